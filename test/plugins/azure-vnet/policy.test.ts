/**
 * azure-vnet's policy translation and configuration handling against upstream's own vectors:
 * ACN v1.8.12 `network/policy/policy_windows_test.go` (the Settings strings),
 * `cni/network/network_windows_test.go` (TestSetPoliciesFromNwCfg, TestDSRPolciy,
 * TestAddWithRunTimeNetPolicies), and the reference's translation table (azure-cni.md §3).
 */
import { describe, expect, it } from 'vitest';
import {
  hcnEndpointPolicies,
  policyType,
  runtimePortMappings,
  v1Policies,
  type PolicyContext,
} from '../../../src/plugins/azure-vnet/policy.js';
import {
  endpointDnsSettings,
  parseNetworkConfig,
  policiesFromConfig,
  serializeNetworkConfig,
  type CniPolicy,
} from '../../../src/plugins/azure-vnet/conf.js';
import { AKS_CONFLIST_TEXT, aksPluginConf } from './kit.js';

const ep = (data: string): CniPolicy => ({ type: 'EndpointPolicy', data });
const ctx = (dsr = true, extra: Partial<PolicyContext> = {}): PolicyContext => ({
  dsrSupported: () =>
    dsr
      ? Promise.resolve()
      : Promise.reject(new Error('platform does not support feature Direct Server Return (DSR)')),
  enableSnatForDns: false,
  enableMultiTenancy: false,
  ...extra,
});
/** The Settings of the one policy built from `data`, as Go's json.Marshal writes them. */
async function settings(data: string, c: PolicyContext = ctx()): Promise<string> {
  const [p] = await hcnEndpointPolicies([ep(data)], c, [], false);
  return JSON.stringify(p!.Settings);
}

describe('HCN v2 policies: policy_windows_test.go vectors', () => {
  it('OutBoundNAT → {"Exceptions":[…]}, with the multitenant cnetAddressSpace appended', async () => {
    const data = '{"Type": "OutBoundNAT", "ExceptionList": ["10.240.0.0/16","10.0.0.0/8"]}';
    expect(await settings(data)).toBe('{"Exceptions":["10.240.0.0/16","10.0.0.0/8"]}');
    expect(await settings(data, ctx(true, { cnetAddressSpace: ['50.1.1.1', '60.1.1.1'] }))).toBe(
      '{"Exceptions":["10.240.0.0/16","10.0.0.0/8","50.1.1.1","60.1.1.1"]}',
    );
  });

  it('ROUTE → SDNRoute {"DestinationPrefix":…,"NeedEncap":true}', async () => {
    expect(await settings('{"Type": "ROUTE", "DestinationPrefix": "10.0.0.0/8", "NeedEncap": true}')).toBe(
      '{"DestinationPrefix":"10.0.0.0/8","NeedEncap":true}',
    );
  });

  it('ACL → AclPolicySetting marshalled again: Type dropped, omitempty fields dropped', async () => {
    expect(await settings('{"Type": "ACL", "Protocols": "TCP", "Direction": "In", "Action": "Allow"}')).toBe(
      '{"Protocols":"TCP","Action":"Allow","Direction":"In"}',
    );
  });

  it('L4WFPPROXY → L4WfpProxyPolicySetting (struct-typed exceptions always written)', async () => {
    const data = `{
      "Type": "L4WFPPROXY",
      "OutboundProxyPort": "15001",
      "InboundProxyPort": "15003",
      "UserSID": "S-1-5-32-556",
      "FilterTuple": { "Protocols": "6" }}`;
    expect(await settings(data)).toBe(
      '{"InboundProxyPort":"15003","OutboundProxyPort":"15001","FilterTuple":{"Protocols":"6"},"UserSID":"S-1-5-32-556","InboundExceptions":{},"OutboundExceptions":{}}',
    );
  });

  it('LoopbackDSR → OutBoundNAT {"Destinations":[ip]}; without DSR support the ADD fails with hcsshim\'s text', async () => {
    const data = '{"Type":"LoopbackDSR","IPAddress":"10.240.0.17"}';
    expect(await hcnEndpointPolicies([ep(data)], ctx(), [], false)).toEqual([
      { Type: 'OutBoundNAT', Settings: { Destinations: ['10.240.0.17'] } },
    ]);
    await expect(hcnEndpointPolicies([ep(data)], ctx(false), [], false)).rejects.toThrow(
      "hcn doesn't support DSR: platform does not support feature Direct Server Return (DSR)",
    );
  });

  it('an HCN-shaped PortMapping passes through as it is; NAT rules come last, only on 1903+', async () => {
    const pm = '{"Type":"PortMapping","Settings":{"InternalPort":8080,"ExternalPort":8008}}';
    const nat = [{ virtualIp: 'vip', destinations: ['192.168.1.1', '192.169.1.1'] }];
    expect(await hcnEndpointPolicies([ep(pm)], ctx(), nat, true)).toEqual([
      { Type: 'PortMapping', Settings: { InternalPort: 8080, ExternalPort: 8008 } },
      { Type: 'OutBoundNAT', Settings: { VirtualIP: 'vip', Destinations: ['192.168.1.1', '192.169.1.1'] } },
    ]);
    // ws2019 (17763 < 18362): no DNS/IMDS NAT rules (reference §7 #8)
    expect(await hcnEndpointPolicies([ep(pm)], ctx(), nat, false)).toHaveLength(1);
  });

  it('malformed or unrecognised entries fail the ADD; an empty exception list is "OutBoundNAT policy not set"', async () => {
    await expect(hcnEndpointPolicies([ep('invalid json')], ctx(), [], false)).rejects.toThrow(
      'Failed to set Policy: Type: EndpointPolicy, Data: invalid json',
    );
    await expect(hcnEndpointPolicies([ep('{"Type":"Bogus"}')], ctx(), [], false)).rejects.toThrow(
      'Failed to set Policy: Type: EndpointPolicy, Data: {"Type":"Bogus"}',
    );
    await expect(
      hcnEndpointPolicies([ep('{"Type":"OutBoundNAT","ExceptionList":[]}')], ctx(), [], false),
    ).rejects.toThrow(/^OutBoundNAT policy not set$/);
    // a ROUTE without NeedEncap passes GetPolicyType but not GetHcnRoutePolicy's RawMessage decode
    await expect(
      hcnEndpointPolicies([ep('{"Type":"ROUTE","DestinationPrefix":"10.0.0.0/8"}')], ctx(), [], false),
    ).rejects.toThrow('unexpected end of JSON input');
  });

  it('only EndpointPolicy entries become endpoint policies (a NetworkPolicy entry is not)', async () => {
    const nat = '{"Type":"OutBoundNAT","ExceptionList":["10.0.0.0/8"]}';
    expect(await hcnEndpointPolicies([{ type: 'NetworkPolicy', data: nat }], ctx(), [], false)).toEqual([]);
  });
});

describe("GetPolicyType: the kind inferred from the value, in upstream's order", () => {
  it.each([
    ['{"Type":"OutBoundNAT","Action":"Allow"}', 'OutBoundNAT'],
    ['{"Type":"ROUTE","DestinationPrefix":"10.0.0.0/8","NeedEncap":true}', 'ROUTE'],
    ['{"type":"route"}', ''],
    ['{"Type":"L4WFPPROXY"}', 'L4WFPPROXY'],
    ['{"Type":"PortMapping","Settings":{}}', 'NAT'],
    ['{"Type":"Whatever","Action":"Block"}', 'ACL'],
    ['{"Action":""}', ''],
    ['{"Type":"LoopbackDSR","IPAddress":"10.0.0.1"}', 'LoopbackDSR'],
    // a wrong-typed field fails that struct's decode: the next kind is tried
    ['{"Type":"ROUTE","NeedEncap":"yes","Action":"Allow"}', 'ACL'],
    ['"OutBoundNAT"', ''],
  ])('%s → %s', (data, kind) => {
    expect(policyType(ep(data))).toBe(kind);
  });
});

describe('HNS v1 policies (SerializePolicies)', () => {
  it('OutBoundNAT with ExceptionList, raw ROUTE and ACL, NAT from a PortMapping, LoopbackDSR as Destinations', async () => {
    const entries = [
      ep('{"Type":"OutBoundNAT","ExceptionList":["10.240.0.0/16"]}'),
      ep('{"Type":"ROUTE","DestinationPrefix":"10.0.0.0/8","NeedEncap":true}'),
      ep('{"Type":"ACL","Action":"Allow","Direction":"In","Priority":65500}'),
      ep(
        '{"Type":"PortMapping","Settings":{"Protocol":17,"InternalPort":53,"ExternalPort":5353,"VIP":"1.2.3.4","Flags":1}}',
      ),
      ep('{"Type":"LoopbackDSR","IPAddress":"10.240.0.17"}'),
    ];
    expect(await v1Policies('EndpointPolicy', entries, ctx(), false)).toEqual([
      { Type: 'OutBoundNAT', ExceptionList: ['10.240.0.0/16'] },
      { Type: 'ROUTE', DestinationPrefix: '10.0.0.0/8', NeedEncap: true },
      { Type: 'ACL', Action: 'Allow', Direction: 'In', Priority: 65500 },
      // VIP and flags are lost on v1 (reference §3)
      { Type: 'NAT', Protocol: 'UDP', InternalPort: 53, ExternalPort: 5353 },
      { Type: 'OutBoundNAT', Destinations: ['10.240.0.17'] },
    ]);
  });

  it('drops what it cannot build: an empty exception list, LoopbackDSR without DSR; passes unknown entries raw', async () => {
    const entries = [
      ep('{"Type":"OutBoundNAT","ExceptionList":[]}'),
      ep('{"Type":"LoopbackDSR","IPAddress":"10.240.0.17"}'),
      ep('{"Type":"Bogus","X":1}'),
    ];
    expect(await v1Policies('EndpointPolicy', entries, ctx(false), false)).toEqual([{ Type: 'Bogus', X: 1 }]);
  });
});

describe('port mappings from runtimeConfig: TestSetPoliciesFromNwCfg', () => {
  const settingsOf = (ps: CniPolicy[]): unknown[] =>
    ps.map((p) => {
      expect(p.type).toBe('EndpointPolicy');
      const d = JSON.parse(p.data) as { Type: string; Settings: unknown };
      expect(d.Type).toBe('PortMapping');
      return d.Settings;
    });
  const m = (hostPort: number, hostIP = '') => [{ protocol: 'tcp', hostIP, hostPort, containerPort: 80 }];
  it.each([
    [
      'ipv4 host ip, no ipv6',
      [{ protocol: 'tcp', hostIP: '192.168.0.4', hostPort: 8000, containerPort: 80 }],
      false,
      [{ Protocol: 6, InternalPort: 80, ExternalPort: 8000, VIP: '192.168.0.4', Flags: 1 }],
    ],
    [
      'no host ip, no ipv6',
      m(44000),
      false,
      [{ Protocol: 6, InternalPort: 80, ExternalPort: 44000, Flags: 1 }],
    ],
    [
      'ipv6 host ip on a dual-stack pod',
      m(44000, '2001:2002:2003::1'),
      true,
      [{ Protocol: 6, InternalPort: 80, ExternalPort: 44000, VIP: '2001:2002:2003::1', Flags: 2 }],
    ],
    [
      'ipv4 host ip on a dual-stack pod',
      m(44000, '192.168.0.4'),
      true,
      [{ Protocol: 6, InternalPort: 80, ExternalPort: 44000, VIP: '192.168.0.4', Flags: 1 }],
    ],
    [
      'no host ip on a dual-stack pod: an IPv4 and an IPv6 policy',
      m(44000),
      true,
      [
        { Protocol: 6, InternalPort: 80, ExternalPort: 44000, Flags: 1 },
        { Protocol: 6, InternalPort: 80, ExternalPort: 44000, Flags: 2 },
      ],
    ],
    [
      'ipv6 localhost host ip on a dual-stack pod',
      m(44000, '::1'),
      true,
      [{ Protocol: 6, InternalPort: 80, ExternalPort: 44000, VIP: '::1', Flags: 2 }],
    ],
  ])('%s', (_name, mappings, v6, expected) => {
    expect(settingsOf(runtimePortMappings(mappings, v6))).toEqual(expected);
  });

  it("udp is 17; an unknown protocol keeps the previous mapping's number; a bad hostIP fails with netip's text", () => {
    const ps = runtimePortMappings(
      [
        { protocol: ' UDP ', hostIP: '', hostPort: 53, containerPort: 53 },
        { protocol: 'sctp', hostIP: '', hostPort: 9, containerPort: 9 },
      ],
      false,
    );
    expect(settingsOf(ps).map((s) => (s as { Protocol: number }).Protocol)).toEqual([17, 17]);
    expect(() => runtimePortMappings(m(1, '10.0.0.256'), false)).toThrow(
      'failed to parse hostIP invalid IP: ParseAddr("10.0.0.256"): unable to parse IP',
    );
  });
});

describe('endpoint DNS (getEndpointDNSSettings, reference §4.3)', () => {
  const ipamDns = { Suffix: '', Servers: ['168.63.129.16'], Options: null };
  const conf = (dns: object, rt: object = {}) =>
    parseNetworkConfig(JSON.stringify({ name: 'azure', dns, runtimeConfig: { dns: rt } }));
  it("runtime DNS first; then the conflist with the pod namespace prefixed; then the IPAM's", () => {
    expect(
      endpointDnsSettings(conf({}, { servers: ['10.96.0.10'], searches: ['a.svc', 'svc'] }), ipamDns, 'ns1'),
    ).toEqual({
      Suffix: 'a.svc,svc',
      Servers: ['10.96.0.10'],
      Options: null,
    });
    expect(
      endpointDnsSettings(
        conf({ Nameservers: ['10.0.0.10'], Search: ['svc.cluster.local', 'cluster.local'] }),
        ipamDns,
        'ns1',
      ),
    ).toEqual({
      Suffix: 'ns1.svc.cluster.local,cluster.local',
      Servers: ['10.0.0.10'],
      Options: null,
    });
    expect(endpointDnsSettings(conf({ options: ['ndots:5'] }), ipamDns, 'ns1')).toEqual({
      Suffix: '',
      Servers: ['168.63.129.16'],
      Options: ['ndots:5'],
    });
  });

  it('exactly one of Search and Nameservers set: "Wrong DNS configuration" with %+v of the struct', () => {
    expect(() => endpointDnsSettings(conf({ Nameservers: ['10.0.0.10'] }), ipamDns, 'ns1')).toThrow(
      'Wrong DNS configuration: {Nameservers:[10.0.0.10] Domain: Search:[] Options:[]}',
    );
  });
});

describe('the configuration azure-vnet hands its IPAM plugin (NetworkConfig.Serialize)', () => {
  it('the AKS plugin object re-marshalled: lower-case dns keys, struct fields always written, capabilities gone', () => {
    const c = parseNetworkConfig(aksPluginConf());
    expect(serializeNetworkConfig(c)).toBe(
      '{"cniVersion":"0.3.0","name":"azure","type":"azure-vnet","mode":"bridge","bridge":"azure0",' +
        '"ipam":{"type":"azure-vnet-ipam"},' +
        '"dns":{"nameservers":["10.0.0.10","168.63.129.16"],"search":["svc.cluster.local"]},' +
        '"runtimeConfig":{"dns":{}},"windowsSettings":{},' +
        '"AdditionalArgs":[' +
        '{"name":"EndpointPolicy","value":{"Type":"OutBoundNAT","ExceptionList":["10.224.0.0/12","10.224.1.0/12"]}},' +
        '{"name":"EndpointPolicy","value":{"Type":"ROUTE","DestinationPrefix":"10.0.0.0/16","NeedEncap":true}},' +
        '{"name":"EndpointPolicy","value":{"Type":"ACL","Protocols":"6","Action":"Block","Direction":"Out","RemoteAddresses":"168.63.129.16/32","RemotePorts":"80","Priority":200,"RuleType":"Switch"}},' +
        '{"name":"EndpointPolicy","value":{"Type":"ACL","Protocols":"6","Action":"Block","Direction":"Out","RemoteAddresses":"168.63.129.16/32","RemotePorts":"32526","Priority":200,"RuleType":"Switch"}},' +
        '{"name":"EndpointPolicy","value":{"Type":"ACL","Action":"Allow","Direction":"In","Priority":65500}},' +
        '{"name":"EndpointPolicy","value":{"Type":"ACL","Action":"Allow","Direction":"Out","Priority":65500}}]}',
    );
  });

  it("a configuration without cniVersion is 0.2.0; list-level adapterName is not the plugin's (libcni forwards name and cniVersion only)", () => {
    expect(parseNetworkConfig('{"name":"azure"}').cniVersion).toBe('0.2.0');
    expect(JSON.parse(AKS_CONFLIST_TEXT).adapterName).toBe('');
    expect(parseNetworkConfig(aksPluginConf()).adapterName).toBe('');
  });

  it('GetPoliciesFromNwCfg: names containing "Policy" (case-sensitive) in order', () => {
    const c = parseNetworkConfig(
      JSON.stringify({
        name: 'azure',
        AdditionalArgs: [
          { name: 'EndpointPolicy', value: { Type: 'A' } },
          { name: 'endpointpolicy', value: { Type: 'B' } },
          { Name: 'NetworkPolicy', Value: { Type: 'C' } },
          { name: 'MyPolicyX' },
        ],
      }),
    );
    expect(policiesFromConfig(c.AdditionalArgs)).toEqual([
      { type: 'EndpointPolicy', data: '{"Type":"A"}' },
      { type: 'NetworkPolicy', data: '{"Type":"C"}' },
      { type: 'MyPolicyX', data: '' },
    ]);
  });
});
