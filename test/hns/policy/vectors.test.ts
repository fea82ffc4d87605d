/**
 * Upstream vectors (reference hns-hcs.md §2.3, hcsshim hcn tests) and the registry rules: exact
 * JSON of the HcnCreateAcls / RemoteSubnetRoute / HostRoute / L4WFPPROXY / TierAcl bodies, the
 * PortMapping claim behind HCN_E_PORT_ALREADY_EXISTS, feature gates by HNS version, scopes and
 * single-instance types.
 */
import { describe, expect, it } from 'vitest';
import { HnsError, HRESULTS, type HResultLabel } from '../../../src/core/errors.js';
import type { Json } from '../../../src/core/json.js';
import type { NetworkType, PolicyContext, PolicyScope } from '../../../src/hns/policy/contracts.js';
import {
  assertSingleInstances,
  canonicalPolicyType,
  getPolicyModule,
  isKnownPolicyType,
  parsePolicies,
  parsePolicy,
  policyClaims,
  policyKey,
  serializePolicy,
} from '../../../src/hns/policy/index.js';
import type { HnsVersion } from '../../../src/hns/versions.js';
import { ACL_IN_VECTOR, L4WFPPROXY_VECTOR, RSR_VECTOR, TIER_ACL_VECTOR } from './samples.js';

function v(major: number, minor: number): HnsVersion {
  return { major, minor };
}
function ctx(scope: PolicyScope, version = v(15, 4), networkType: NetworkType = 'Overlay'): PolicyContext {
  return { version, scope, networkType };
}
function errorOf(f: () => unknown): HResultLabel | undefined {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(HnsError);
    return (e as HnsError).code;
  }
  return undefined;
}
/** Serialise a request body the way hcsshim marshals it, to compare byte for byte. */
function body(policies: Json[], scope: PolicyScope, requestType: string): string {
  const parsed = parsePolicies(policies, ctx(scope));
  return JSON.stringify({
    ResourceType: 'Policy',
    RequestType: requestType,
    Settings: { Policies: parsed.map(serializePolicy) },
  });
}

describe('reference vectors (hns-hcs.md §2.3)', () => {
  it('HcnCreateAcls(): the two ACL policies serialise to the exact request body', () => {
    const out = { ...ACL_IN_VECTOR, Direction: 'Out' };
    const expected =
      '{"ResourceType":"Policy","RequestType":"Update","Settings":{"Policies":[' +
      '{"Type":"ACL","Settings":{"Protocols":"6","Action":"Allow","Direction":"In","LocalAddresses":"192.168.100.0/24,10.0.0.21","RemoteAddresses":"192.168.100.0/24,10.0.0.21","LocalPorts":"80,8080","RemotePorts":"80,8080","RuleType":"Switch","Priority":200}},' +
      '{"Type":"ACL","Settings":{"Protocols":"6","Action":"Allow","Direction":"Out","LocalAddresses":"192.168.100.0/24,10.0.0.21","RemoteAddresses":"192.168.100.0/24,10.0.0.21","LocalPorts":"80,8080","RemotePorts":"80,8080","RuleType":"Switch","Priority":200}}]}}';
    // Input with keys in another order still comes back in hcsshim's order.
    const shuffled = Object.fromEntries(Object.entries(out).reverse());
    expect(
      body(
        [
          { Type: 'ACL', Settings: ACL_IN_VECTOR },
          { Type: 'ACL', Settings: shuffled },
        ],
        'endpoint',
        'Update',
      ),
    ).toBe(expected);
  });

  it('HcnCreateAcls(): the parsed record exposes what the VFP compiler needs', () => {
    const p = parsePolicy({ Type: 'ACL', Settings: ACL_IN_VECTOR }, ctx('endpoint'));
    expect(p.settings).toMatchObject({
      action: 'Allow',
      direction: 'In',
      effectiveRuleType: 'Switch',
      priority: 200,
      protocolSet: [6],
      localPortRanges: [
        { first: 80, last: 80 },
        { first: 8080, last: 8080 },
      ],
      local: {
        prefixes: [
          { family: 4, addr: 0xc0a86400, len: 24 },
          { family: 4, addr: 0x0a000015, len: 32 },
        ],
        setIds: [],
      },
    });
  });

  it('network.AddPolicy(RemoteSubnetRoute) serialises to the exact request body', () => {
    expect(body([{ Type: 'RemoteSubnetRoute', Settings: RSR_VECTOR }], 'network', 'Add')).toBe(
      '{"ResourceType":"Policy","RequestType":"Add","Settings":{"Policies":[{"Type":"RemoteSubnetRoute","Settings":{"DestinationPrefix":"192.168.2.0/24","IsolationId":5000,"ProviderAddress":"1.1.1.1","DistributedRouterMacAddress":"00-12-34-56-78-9a"}}]}}',
    );
  });

  it('network.RemovePolicy(HostRoute) serialises to the exact request body', () => {
    expect(body([{ Type: 'HostRoute', Settings: {} }], 'network', 'Remove')).toBe(
      '{"ResourceType":"Policy","RequestType":"Remove","Settings":{"Policies":[{"Type":"HostRoute","Settings":{}}]}}',
    );
  });

  it('HcnCreateWfpProxyPolicyRequest(): L4WFPPROXY as json.Marshal writes it', () => {
    const p = parsePolicy({ Type: 'L4WFPPROXY', Settings: L4WFPPROXY_VECTOR }, ctx('endpoint'));
    expect(JSON.stringify(serializePolicy(p))).toBe(
      '{"Type":"L4WFPPROXY","Settings":{"InboundProxyPort":"80","OutboundProxyPort":"81","FilterTuple":{"Protocols":"6","RemoteAddresses":"10.0.0.4","Priority":8},"InboundExceptions":{"IpAddressExceptions":["12.0.1.12"],"PortExceptions":["8181"]},"OutboundExceptions":{"IpAddressExceptions":["10.0.1.12"],"PortExceptions":["81"]}}}',
    );
    expect(p.settings).toMatchObject({ inboundPort: 80, outboundPort: 81 });
  });

  it('L4WFPPROXY always emits FilterTuple and both exception structs, {} when empty', () => {
    const p = parsePolicy({ Type: 'L4WFPPROXY', Settings: { OutboundProxyPort: '15001' } }, ctx('endpoint'));
    expect(JSON.stringify(serializePolicy(p).Settings)).toBe(
      '{"OutboundProxyPort":"15001","FilterTuple":{},"InboundExceptions":{},"OutboundExceptions":{}}',
    );
  });

  it('HcnCreateTierAcls(): a tier round-trips in hcsshim field order with Pass rules', () => {
    const p = parsePolicy({ Type: 'TierAcl', Settings: TIER_ACL_VECTOR }, ctx('endpoint', v(14, 0)));
    expect(JSON.stringify(serializePolicy(p).Settings)).toBe(JSON.stringify(TIER_ACL_VECTOR));
    expect(p.settings).toMatchObject({
      name: 'TierIn1',
      direction: 'In',
      order: 1001,
      rules: [
        { id: 'TierIn1Rule1', action: 'Pass', priority: 2001, protocolSet: [6] },
        { id: 'TierIn1Rule2', action: 'Block', priority: 2100, protocolSet: [] },
      ],
    });
  });

  it('TestEndpointAlreadyExistsError: UDP 45678→56789 claims its host port', () => {
    const settings = { Protocol: 17, InternalPort: 45678, ExternalPort: 56789 };
    const a = parsePolicy({ Type: 'PortMapping', Settings: settings }, ctx('endpoint'));
    const b = parsePolicy({ Type: 'PortMapping', Settings: { ...settings } }, ctx('endpoint'));
    expect(JSON.stringify(serializePolicy(a))).toBe(
      '{"Type":"PortMapping","Settings":{"Protocol":17,"InternalPort":45678,"ExternalPort":56789}}',
    );
    expect(policyClaims(a)).toEqual([{ key: 'PortMapping/17/56789/*', error: 'HCN_E_PORT_ALREADY_EXISTS' }]);
    expect(policyClaims(b)).toEqual(policyClaims(a));
    expect(HRESULTS[policyClaims(a)[0]!.error].code).toBe(0x803b0013);
  });
});

describe('PortMapping claims', () => {
  const pm = (s: Json) => parsePolicy({ Type: 'PortMapping', Settings: s }, ctx('endpoint'));
  it('differ by protocol and by VIP, and a mapping without ExternalPort claims nothing', () => {
    const tcp = policyClaims(pm({ Protocol: 6, InternalPort: 1, ExternalPort: 8080 }))[0]!.key;
    const udp = policyClaims(pm({ Protocol: 17, InternalPort: 1, ExternalPort: 8080 }))[0]!.key;
    const vip = policyClaims(pm({ Protocol: 6, InternalPort: 2, ExternalPort: 8080, VIP: '10.0.0.5' }))[0]!
      .key;
    expect(new Set([tcp, udp, vip]).size).toBe(3);
    expect(vip).toBe('PortMapping/6/8080/10.0.0.5');
    expect(policyClaims(pm({ Protocol: 6, InternalPort: 80 }))).toEqual([]);
  });
  it('compare VIPs by value (IPv6 spellings collide)', () => {
    const a = policyClaims(
      pm({ Protocol: 6, InternalPort: 1, ExternalPort: 80, VIP: 'FD00::0:5', Flags: 2 }),
    );
    const b = policyClaims(pm({ Protocol: 6, InternalPort: 9, ExternalPort: 80, VIP: 'fd00::5', Flags: 2 }));
    expect(a).toEqual(b);
  });
  it('InternalPort 0 or missing is HCN_E_INVALID_INTERNAL_PORT (0x803B002D)', () => {
    expect(errorOf(() => pm({ Protocol: 6, InternalPort: 0, ExternalPort: 80 }))).toBe(
      'HCN_E_INVALID_INTERNAL_PORT',
    );
    expect(errorOf(() => pm({ Protocol: 6, ExternalPort: 80 }))).toBe('HCN_E_INVALID_INTERNAL_PORT');
    expect(HRESULTS.HCN_E_INVALID_INTERNAL_PORT.code).toBe(0x803b002d);
  });
  it('is HCN_E_MAPPING_NOT_SUPPORTED on a Transparent network, accepted on NAT/L2Bridge/Overlay', () => {
    const raw = { Type: 'PortMapping', Settings: { Protocol: 6, InternalPort: 80, ExternalPort: 80 } };
    expect(errorOf(() => parsePolicy(raw, ctx('endpoint', v(15, 4), 'Transparent')))).toBe(
      'HCN_E_MAPPING_NOT_SUPPORTED',
    );
    for (const t of ['NAT', 'L2Bridge', 'Overlay'] as const) {
      expect(parsePolicy(raw, ctx('endpoint', v(15, 4), t)).type).toBe('PortMapping');
    }
  });
});

describe('feature gates by HNS version (hns-hcs.md §4)', () => {
  const gate = (raw: Json, scope: PolicyScope, version: HnsVersion) =>
    errorOf(() => parsePolicy(raw, ctx(scope, version))) ?? 'ok';

  it('TierAcl: rejected at 13.0, accepted at 14.0', () => {
    const raw = { Type: 'TierAcl', Settings: TIER_ACL_VECTOR };
    expect(gate(raw, 'endpoint', v(13, 0))).toBe('HCN_E_INVALID_POLICY_TYPE');
    expect(gate(raw, 'endpoint', v(14, 0))).toBe('ok');
  });

  it('NetworkACL: rejected at 14.9, accepted at 15.0', () => {
    const raw = { Type: 'NetworkACL', Settings: ACL_IN_VECTOR };
    expect(gate(raw, 'network', v(14, 9))).toBe('HCN_E_INVALID_POLICY_TYPE');
    expect(gate(raw, 'network', v(15, 0))).toBe('ok');
  });

  it('SetPolicy: IPSET from 13.0; NESTEDIPSET only from 15.0', () => {
    const ipset = {
      Type: 'SetPolicy',
      Settings: { Id: 'a', Name: 'a', PolicyType: 'IPSET', Values: '10.0.0.1' },
    };
    const nested = {
      Type: 'SetPolicy',
      Settings: { Id: 'n', Name: 'n', PolicyType: 'NESTEDIPSET', Values: 'a' },
    };
    expect(gate(ipset, 'network', v(12, 9))).toBe('HCN_E_INVALID_POLICY_TYPE');
    expect(gate(ipset, 'network', v(13, 0))).toBe('ok');
    expect(gate(ipset, 'network', v(13, 5))).toBe('ok');
    expect(gate(nested, 'network', v(13, 5))).toBe('HCN_E_INVALID_POLICY_TYPE');
    expect(gate(nested, 'network', v(15, 0))).toBe('ok');
  });

  it('L4Proxy: 9.5 yes, 10.0 no, 10.5 yes, 13.0 no, 13.1 yes', () => {
    const raw = { Type: 'L4Proxy', Settings: { IP: '10.0.0.1', Port: '80', Destination: '127.0.0.1:15001' } };
    const got = [v(9, 5), v(10, 0), v(10, 5), v(13, 0), v(13, 1)].map((ver) => gate(raw, 'endpoint', ver));
    expect(got).toEqual(['ok', 'HCN_E_INVALID_POLICY_TYPE', 'ok', 'HCN_E_INVALID_POLICY_TYPE', 'ok']);
    expect(gate(raw, 'network', v(9, 5))).toBe('ok');
  });

  it('L4WFPPROXY from 13.2, VxlanPort from 10.3, RemoteSubnetRoute and HostRoute from 9.2', () => {
    const wfp = { Type: 'L4WFPPROXY', Settings: L4WFPPROXY_VECTOR };
    expect([gate(wfp, 'endpoint', v(13, 1)), gate(wfp, 'endpoint', v(13, 2))]).toEqual([
      'HCN_E_INVALID_POLICY_TYPE',
      'ok',
    ]);
    const vx = { Type: 'VxlanPort', Settings: { Port: 4789 } };
    expect([gate(vx, 'network', v(10, 2)), gate(vx, 'network', v(10, 3))]).toEqual([
      'HCN_E_INVALID_POLICY_TYPE',
      'ok',
    ]);
    const rsr = { Type: 'RemoteSubnetRoute', Settings: RSR_VECTOR };
    expect([gate(rsr, 'network', v(9, 1)), gate(rsr, 'network', v(9, 2))]).toEqual([
      'HCN_E_INVALID_POLICY_TYPE',
      'ok',
    ]);
    const hr = { Type: 'HostRoute', Settings: {} };
    expect([gate(hr, 'network', v(9, 1)), gate(hr, 'network', v(9, 2))]).toEqual([
      'HCN_E_INVALID_POLICY_TYPE',
      'ok',
    ]);
  });

  it('ACL Action Pass needs HNS 14.0; protocol 252 needs 11.0 (HCN_E_INVALID_POLICY)', () => {
    const pass = { Type: 'ACL', Settings: { Action: 'Pass', Direction: 'In' } };
    expect([gate(pass, 'endpoint', v(13, 5)), gate(pass, 'endpoint', v(14, 0))]).toEqual([
      'HCN_E_INVALID_POLICY',
      'ok',
    ]);
    const vxlan = { Type: 'ACL', Settings: { Action: 'Allow', Direction: 'In', Protocols: '252' } };
    expect([gate(vxlan, 'endpoint', v(10, 9)), gate(vxlan, 'endpoint', v(11, 0))]).toEqual([
      'HCN_E_INVALID_POLICY',
      'ok',
    ]);
  });
});

describe('registry', () => {
  it('unknown Type → HCN_E_INVALID_POLICY_TYPE (0x803B000E); bad envelope → HCN_E_INVALID_POLICY', () => {
    expect(errorOf(() => parsePolicy({ Type: 'Firewall2', Settings: {} }, ctx('endpoint')))).toBe(
      'HCN_E_INVALID_POLICY_TYPE',
    );
    expect(errorOf(() => parsePolicy({ Type: '', Settings: {} }, ctx('endpoint')))).toBe(
      'HCN_E_INVALID_POLICY_TYPE',
    );
    expect(HRESULTS.HCN_E_INVALID_POLICY_TYPE.code).toBe(0x803b000e);
    for (const raw of [null, 'ACL', [], 7, { Type: 3 }, { Settings: {} }] as Json[]) {
      expect(
        errorOf(() => parsePolicy(raw, ctx('endpoint'))),
        JSON.stringify(raw),
      ).toBe('HCN_E_INVALID_POLICY');
    }
  });

  it('a Type of another scope is HCN_E_INVALID_POLICY_TYPE (VSID on an endpoint, ACL on a network)', () => {
    expect(
      errorOf(() => parsePolicy({ Type: 'VSID', Settings: { IsolationId: 5000 } }, ctx('endpoint'))),
    ).toBe('HCN_E_INVALID_POLICY_TYPE');
    expect(errorOf(() => parsePolicy({ Type: 'ACL', Settings: ACL_IN_VECTOR }, ctx('network')))).toBe(
      'HCN_E_INVALID_POLICY_TYPE',
    );
  });

  it('looks types up case-insensitively and knows both-scope types', () => {
    expect(canonicalPolicyType('outboundnat')).toBe('OutBoundNAT');
    expect(canonicalPolicyType('l4wfpproxy')).toBe('L4WFPPROXY');
    expect(canonicalPolicyType('IOV')).toBe('Iov');
    expect(isKnownPolicyType('vlan')).toBe(true);
    expect(isKnownPolicyType('Firewall2')).toBe(false);
    expect(getPolicyModule('VLAN', 'subnet')).toBe(getPolicyModule('vlan', 'endpoint'));
    expect(getPolicyModule('VLAN', 'network')).toBeUndefined();
    for (const t of ['L4Proxy', 'ProviderAddress', 'InterfaceConstraint']) {
      expect(getPolicyModule(t, 'network')).toBe(getPolicyModule(t, 'endpoint'));
    }
  });

  it('parsePolicies: absent = [], not an array = HCN_E_INVALID_POLICY', () => {
    expect(parsePolicies(undefined, ctx('endpoint'))).toEqual([]);
    expect(errorOf(() => parsePolicies({ Type: 'ACL' }, ctx('endpoint')))).toBe('HCN_E_INVALID_POLICY');
  });

  it('a second InterfaceParameters is HCN_INTERFACEPARAMETERS_ALREADY_APPLIED (0x803B0036)', () => {
    const ip = { Type: 'InterfaceParameters', Settings: { Mtu: 1450 } };
    expect(parsePolicies([ip], ctx('endpoint'))).toHaveLength(1);
    expect(errorOf(() => parsePolicies([ip, { ...ip, Settings: { Mtu: 1400 } }], ctx('endpoint')))).toBe(
      'HCN_INTERFACEPARAMETERS_ALREADY_APPLIED',
    );
    expect(HRESULTS.HCN_INTERFACEPARAMETERS_ALREADY_APPLIED.code).toBe(0x803b0036);
  });

  it('other single-instance types are HCN_E_POLICY_ALREADY_EXISTS; multi-instance types repeat freely', () => {
    const pa = (ip: string) => ({ Type: 'ProviderAddress', Settings: { ProviderAddress: ip } });
    expect(errorOf(() => parsePolicies([pa('10.0.0.1'), pa('10.0.0.2')], ctx('endpoint')))).toBe(
      'HCN_E_POLICY_ALREADY_EXISTS',
    );
    const vsid = { Type: 'VSID', Settings: { IsolationId: 5000 } };
    expect(errorOf(() => parsePolicies([vsid, vsid], ctx('subnet')))).toBe('HCN_E_POLICY_ALREADY_EXISTS');
    const acls = parsePolicies(
      [
        { Type: 'ACL', Settings: ACL_IN_VECTOR },
        { Type: 'ACL', Settings: { ...ACL_IN_VECTOR, Direction: 'Out' } },
      ],
      ctx('endpoint'),
    );
    expect(acls).toHaveLength(2);
    expect(policyKey(acls[0]!)).not.toBe(policyKey(acls[1]!));
  });

  it('assertSingleInstances checks existing + added policies together', () => {
    const existing = parsePolicies(
      [{ Type: 'InterfaceParameters', Settings: { Mtu: 1450 } }],
      ctx('endpoint'),
    );
    const added = parsePolicies([{ Type: 'interfaceparameters', Settings: { Mtu: 1500 } }], ctx('endpoint'));
    expect(() => assertSingleInstances(existing)).not.toThrow();
    expect(errorOf(() => assertSingleInstances([...existing, ...added]))).toBe(
      'HCN_INTERFACEPARAMETERS_ALREADY_APPLIED',
    );
  });
});
