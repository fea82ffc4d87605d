/**
 * Per-module semantics beyond the shared battery: parsed fields the dataplane reads, accepted
 * alternative spellings (schema vs hcsshim keys), canonical emission and policy identity.
 */
import { describe, expect, it } from 'vitest';
import type { Json, JsonObject } from '../../../src/core/json.js';
import type { ParsedPolicy, PolicyScope } from '../../../src/hns/policy/contracts.js';
import type { AclSettings } from '../../../src/hns/policy/endpoint/acl.js';
import type { OutboundNatSettings } from '../../../src/hns/policy/endpoint/outbound-nat.js';
import type { SetPolicySettings } from '../../../src/hns/policy/network/set-policy.js';
import type { L4ProxySettings } from '../../../src/hns/policy/shared/l4-proxy.js';
import { parsePolicy, policyKey, serializePolicy } from '../../../src/hns/policy/index.js';

function parse<S>(type: string, settings: Json, scope: PolicyScope = 'endpoint'): ParsedPolicy<S> {
  return parsePolicy(
    { Type: type, Settings: settings },
    { version: { major: 15, minor: 4 }, scope, networkType: 'Overlay' },
  ) as ParsedPolicy<S>;
}
function settingsJson(p: ParsedPolicy): JsonObject {
  return serializePolicy(p)['Settings'] as JsonObject;
}

describe('ACL', () => {
  it('reads protocol 256 and an empty Protocols as any, de-duplicating lists', () => {
    expect(
      parse<AclSettings>('ACL', { Action: 'Block', Direction: 'In', Protocols: '256' }).settings.protocolSet,
    ).toEqual([]);
    expect(
      parse<AclSettings>('ACL', { Action: 'Block', Direction: 'In', Protocols: '' }).settings.protocolSet,
    ).toEqual([]);
    expect(
      parse<AclSettings>('ACL', { Action: 'Block', Direction: 'In', Protocols: '17,6,17' }).settings
        .protocolSet,
    ).toEqual([6, 17]);
  });

  it('reads port ranges, set ids and IPv6 prefixes; clears host bits of prefixes', () => {
    const s = parse<AclSettings>('ACL', {
      Action: 'Allow',
      Direction: 'Out',
      LocalPorts: '80, 1000-2000',
      RemoteAddresses: 'azure-npm-42,10.1.2.3/8,fd00::1/64',
    }).settings;
    expect(s.localPortRanges).toEqual([
      { first: 80, last: 80 },
      { first: 1000, last: 2000 },
    ]);
    expect(s.remote.setIds).toEqual(['azure-npm-42']);
    expect(s.remote.prefixes).toEqual([
      { family: 4, addr: 0x0a000000, len: 8 },
      { family: 6, addr: 0xfd00n << 112n, len: 64 },
    ]);
    // the wire string comes back exactly as written
    expect(
      settingsJson(parse('ACL', { Action: 'Allow', Direction: 'Out', LocalPorts: '80, 1000-2000' }))[
        'LocalPorts'
      ],
    ).toBe('80, 1000-2000');
  });

  it('omits empty fields and keeps RuleType as written (Switch applies when omitted)', () => {
    const p = parse<AclSettings>('ACL', {
      Action: 'Allow',
      Direction: 'In',
      LocalAddresses: '',
      Priority: 0,
    });
    expect(settingsJson(p)).toEqual({ Action: 'Allow', Direction: 'In' });
    expect(p.settings.ruleType).toBeUndefined();
    expect(p.settings.effectiveRuleType).toBe('Switch');
  });

  it('gives equal keys to rules that differ only in spelling', () => {
    const a = parse('ACL', {
      Action: 'Allow',
      Direction: 'In',
      LocalAddresses: '10.0.0.21,192.168.100.0/24',
    });
    const b = parse('ACL', {
      Action: 'Allow',
      Direction: 'In',
      LocalAddresses: '192.168.100.0/24, 10.0.0.21/32',
    });
    const c = parse('ACL', {
      Action: 'Block',
      Direction: 'In',
      LocalAddresses: '10.0.0.21,192.168.100.0/24',
    });
    expect(policyKey(a)).toBe(policyKey(b));
    expect(policyKey(a)).not.toBe(policyKey(c));
  });
});

describe('OutBoundNAT', () => {
  it('accepts the v1 spelling ExceptionList and emits Exceptions', () => {
    const p = parse<OutboundNatSettings>('OutBoundNAT', { ExceptionList: ['10.244.0.0/16'] });
    expect(settingsJson(p)).toEqual({ Exceptions: ['10.244.0.0/16'] });
    expect(p.settings.exceptionPrefixes).toEqual([{ family: 4, addr: 0x0af40000, len: 16 }]);
  });
  it('exposes the NatFlags bits', () => {
    const s = parse<OutboundNatSettings>('OutBoundNAT', { VirtualIP: 'fd00::9', Flags: 3 }).settings;
    expect([s.localRoutedVip, s.ipv6, s.virtualIpAddr?.family]).toEqual([true, true, 6]);
  });
});

describe('L4Proxy', () => {
  it('accepts schema keys ExceptionList/OutboundNat and emits hcsshim keys Exceptions/OutboundNAT', () => {
    const p = parse<L4ProxySettings>(
      'L4Proxy',
      {
        IP: '10.0.0.0/8',
        Port: '443',
        Protocol: 6,
        ExceptionList: ['10.0.0.1'],
        Destination: '127.0.0.1:15001',
        OutboundNat: true,
      },
      'network',
    );
    expect(JSON.stringify(settingsJson(p))).toBe(
      '{"IP":"10.0.0.0/8","Port":"443","Protocol":6,"Exceptions":["10.0.0.1"],"Destination":"127.0.0.1:15001","OutboundNAT":true}',
    );
    expect(p.settings).toMatchObject({ portNumber: 443, destinationPort: 15001, outboundNat: true });
  });
  it('always emits Destination, even empty', () => {
    expect(settingsJson(parse('L4Proxy', {}))).toEqual({ Destination: '' });
  });
});

describe('SetPolicy', () => {
  it('accepts microsoft/SDN numeric PolicyType and emits the string', () => {
    const p = parse<SetPolicySettings>(
      'SetPolicy',
      { Id: 's1', Name: 'n', PolicyType: 1, Values: 's2,s3' },
      'network',
    );
    expect(settingsJson(p)).toEqual({ Id: 's1', Name: 'n', PolicyType: 'NESTEDIPSET', Values: 's2,s3' });
    expect(p.settings.memberSetIds).toEqual(['s2', 's3']);
  });
  it('always emits all four fields and is identified by Id', () => {
    const a = parse('SetPolicy', { Id: 's1', PolicyType: 'IPSET' }, 'network');
    const b = parse('SetPolicy', { Id: 's1', PolicyType: 'IPSET', Values: '10.0.0.1' }, 'network');
    expect(settingsJson(a)).toEqual({ Id: 's1', Name: '', PolicyType: 'IPSET', Values: '' });
    expect(policyKey(a)).toBe(policyKey(b));
  });
});

describe('always-serialised fields (no omitempty in hcsshim)', () => {
  it('QOS, VSID, VLAN, VxlanPort, RemoteSubnetRoute, TierAcl keep their zero-able fields', () => {
    expect(settingsJson(parse('QOS', {}))).toEqual({ MaximumOutgoingBandwidthInBytes: 0 });
    expect(settingsJson(parse('VSID', { IsolationId: 4096 }, 'subnet'))).toEqual({ IsolationId: 4096 });
    expect(settingsJson(parse('VLAN', { IsolationId: 7 }, 'subnet'))).toEqual({ IsolationId: 7 });
    expect(settingsJson(parse('TierAcl', { Name: 't', Direction: 'Out' }))).toEqual({
      Name: 't',
      Direction: 'Out',
      Order: 0,
    });
  });
  it('omitempty fields vanish when zero: PortMapping Flags 0, EncapOverhead 0, AutomaticDNS false', () => {
    expect(settingsJson(parse('PortMapping', { Protocol: 6, InternalPort: 80, Flags: 0, VIP: '' }))).toEqual({
      Protocol: 6,
      InternalPort: 80,
    });
    expect(settingsJson(parse('EncapOverhead', { Overhead: 0 }))).toEqual({});
    expect(settingsJson(parse('AutomaticDNS', { Enable: false }, 'network'))).toEqual({});
  });
});

describe('Iov', () => {
  it('maps the schema InterruptModeration name to hcsshim numbers', () => {
    expect(settingsJson(parse('Iov', { InterruptModeration: 'IovInterruptModerationHigh' }))).toEqual({
      InterruptModeration: 300,
    });
  });
});

describe('keys by value', () => {
  it('RemoteSubnetRoute compares the DR MAC case-insensitively', () => {
    const base = { DestinationPrefix: '10.244.2.0/24', IsolationId: 4096, ProviderAddress: '10.0.0.5' };
    const a = parse(
      'RemoteSubnetRoute',
      { ...base, DistributedRouterMacAddress: '00-15-5d-aa-bb-cc' },
      'network',
    );
    const b = parse(
      'RemoteSubnetRoute',
      { ...base, DistributedRouterMacAddress: '00-15-5D-AA-BB-CC' },
      'network',
    );
    expect(policyKey(a)).toBe(policyKey(b));
    expect(settingsJson(a)['DistributedRouterMacAddress']).toBe('00-15-5d-aa-bb-cc');
  });
  it('VSwitchExtension is identified by its GUID in any spelling', () => {
    const g = '5f0b1190-63be-4e0c-b974-bd0f55675a42';
    const a = parse('VSwitchExtension', { ExtensionID: g, Enable: true }, 'network');
    const b = parse('VSwitchExtension', { ExtensionID: `{${g.toUpperCase()}}` }, 'network');
    expect(policyKey(a)).toBe(policyKey(b));
  });
});
