/**
 * Behaviours of `pkg/hns/netconf_windows.go` (containernetworking/plugins @ 3d27709f, v1.9.1) that
 * the upstream unit tests do not cover, from reference cni-windows.md §2.2-§2.3: Go's
 * case-insensitive config keys next to jsonparser's case-sensitive policy lookups, the PA rule, the
 * protocol enum (`strconv.ParseUint(s, 0, 10)` results checked against Go), and GetDNS.
 */
import { describe, expect, it } from 'vitest';
import {
  applyDefaultPAPolicy,
  applyLoopbackDSRPolicy,
  applyOutboundNatPolicy,
  emptyNetConf,
  getDNS,
  getHNSEndpointPolicies,
  getHostComputeEndpointPolicies,
  getProtocolEnum,
  loadNetConf,
  marshalRawMessages,
  parseUint10,
  type HnsNetConf,
} from '../../../src/plugins/hns/netconf.js';

describe('NetConf decoding (encoding/json)', () => {
  it('accepts "Name"/"Value" policy keys and "ApiVersion" (sig-windows-tools configs)', () => {
    const n = loadNetConf<HnsNetConf>(
      '{"ApiVersion":2,"Policies":[{"Name":"EndpointPolicy","Value":{"Type":"OutBoundNAT","Settings":{"Exceptions":[]}}}]}',
      [],
    );
    expect(n.apiVersion).toBe(2);
    expect(n.policies).toEqual([
      { name: 'EndpointPolicy', value: '{"Type":"OutBoundNAT","Settings":{"Exceptions":[]}}' },
    ]);
  });

  it('reads runtimeConfig.dns {servers, searches} and portMappings', () => {
    const n = loadNetConf<HnsNetConf>(
      '{"runtimeConfig":{"dns":{"servers":["10.96.0.10"],"searches":["a.local"],"options":["ndots:5"]},' +
        '"portMappings":[{"hostPort":8080,"containerPort":80,"protocol":"tcp"}]}}',
      [],
    );
    expect(n.runtimeConfig.dns).toEqual({ nameservers: ['10.96.0.10'], search: ['a.local'] });
    expect(n.runtimeConfig.portMaps).toEqual([
      { hostPort: 8080, containerPort: 80, protocol: 'tcp', hostIP: '' },
    ]);
  });
});

describe('policy helpers: jsonparser lookups are case-sensitive', () => {
  it('an OutBoundNAT spelled "outboundnat" is not seen: a second OutBoundNAT is appended', () => {
    const n = emptyNetConf();
    n.policies = [
      { name: 'endpointpolicy', value: '{"Type":"outboundnat","ExceptionList":["10.244.0.0/16"]}' },
    ];
    applyOutboundNatPolicy(n, '10.244.0.0/16');
    expect(n.policies).toHaveLength(2);
    expect(n.policies[1]!.value).toBe('{"Type": "OutBoundNAT", "ExceptionList": ["10.244.0.0/16"]}');
  });

  it('a key spelled "exceptionlist" is not seen either', () => {
    const n = emptyNetConf();
    n.policies = [
      { name: 'EndpointPolicy', value: '{"Type":"OutBoundNAT","exceptionlist":["10.244.0.0/16"]}' },
    ];
    applyOutboundNatPolicy(n, '10.244.0.0/16');
    expect(n.policies).toHaveLength(2);
  });

  it('the policy name is compared case-insensitively (EqualFold)', () => {
    const n = emptyNetConf();
    n.policies = [
      { name: 'ENDPOINTPOLICY', value: '{"Type":"OutBoundNAT","ExceptionList":["10.244.0.0/16"]}' },
    ];
    applyOutboundNatPolicy(n, '10.244.0.0/16');
    expect(n.policies).toHaveLength(1);
    expect(getHNSEndpointPolicies(n)).toEqual(['{"Type":"OutBoundNAT","ExceptionList":["10.244.0.0/16"]}']);
  });

  it('a v1 ExceptionList does not count for a v2 config (Settings.Exceptions)', () => {
    const n = emptyNetConf(2);
    n.policies = [
      { name: 'EndpointPolicy', value: '{"Type":"OutBoundNAT","ExceptionList":["10.244.0.0/16"]}' },
    ];
    applyOutboundNatPolicy(n, '10.244.0.0/16');
    expect(n.policies).toHaveLength(2);
  });

  it('PA: the same address is not re-added, a different one is, and ProviderAddress counts too', () => {
    const n = emptyNetConf(2);
    n.policies = [
      {
        name: 'EndpointPolicy',
        value: '{"Type":"ProviderAddress","Settings":{"ProviderAddress":"10.0.133.170"}}',
      },
    ];
    applyDefaultPAPolicy(n, '10.0.133.170');
    expect(n.policies).toHaveLength(1);
    applyDefaultPAPolicy(n, '10.0.133.171');
    expect(n.policies.map((p) => p.value)).toEqual([
      '{"Type":"ProviderAddress","Settings":{"ProviderAddress":"10.0.133.170"}}',
      '{"Type": "ProviderAddress", "Settings": {"ProviderAddress": "10.0.133.171"}}',
    ]);
  });

  it('DSR: unsupported HNS → nothing; a nil IP prints "<nil>"', () => {
    const n = emptyNetConf();
    applyLoopbackDSRPolicy(n, '10.0.0.5', false);
    expect(n.policies).toBeUndefined();
    applyLoopbackDSRPolicy(n, '<nil>', true);
    expect(n.policies![0]!.value).toBe('{"Type": "OutBoundNAT", "Destinations": ["<nil>"]}');
  });

  it('v2 policies: keys decode case-insensitively; values that do not decode are skipped; null is an empty policy', () => {
    const n = emptyNetConf(2);
    n.policies = [
      {
        name: 'EndpointPolicy',
        value: '{"type":"SDNRoute","settings":{"DestinationPrefix":"10.96.0.0/12"}}',
      },
      { name: 'EndpointPolicy', value: '{"Type":5}' },
      { name: 'EndpointPolicy', value: '"OutBoundNAT"' },
      { name: 'EndpointPolicy', value: 'null' },
    ];
    expect(getHostComputeEndpointPolicies(n)).toEqual([
      { Type: 'SDNRoute', Settings: { DestinationPrefix: '10.96.0.0/12' } },
      { Type: '' },
    ]);
  });
});

describe('v1 policies are raw JSON until the endpoint is marshalled', () => {
  it('a template filled with a quote is not JSON: Go’s encoder error', () => {
    const n = emptyNetConf();
    applyOutboundNatPolicy(n, '10.0.0.0/8"');
    const raws = getHNSEndpointPolicies(n);
    expect(raws).toEqual(['{"Type": "OutBoundNAT", "ExceptionList": ["10.0.0.0/8""]}']);
    expect(() => marshalRawMessages(raws)).toThrow(
      `json: error calling MarshalJSON for type json.RawMessage: invalid character '"' after array element`,
    );
  });

  it('nil is null; values keep their key order', () => {
    expect(marshalRawMessages([undefined, '{"b":1,"a":2}'])).toEqual([null, { b: 1, a: 2 }]);
    expect(JSON.stringify(marshalRawMessages(['{"b":1, "a" : 2}']))).toBe('[{"b":1,"a":2}]');
  });
});

describe('GetProtocolEnum (strconv.ParseUint(s, 0, 10), then names)', () => {
  it.each([
    ['6', 6],
    ['0x11', 17],
    ['017', 15],
    ['0b101', 5],
    ['0o17', 15],
    ['1023', 1023],
    ['1_0', 10],
    ['0x_11', 17],
  ])('ParseUint(%s) = %d', (s, v) => expect(parseUint10(s)).toBe(v));

  it.each(['1024', '-1', '+6', ' 6', '08', '0x', ''])('ParseUint(%j) fails', (s) => {
    expect(parseUint10(s)).toBeUndefined();
  });

  it('names are case-insensitive; unknown ones are refused', () => {
    expect(getProtocolEnum({ protocol: 'ICMPv6' })).toBe(58);
    expect(getProtocolEnum({ protocol: 'igmp' })).toBe(2);
    expect(() => getProtocolEnum({ protocol: 'constructor' })).toThrow(
      'invalid protocol supplied to port mapping policy',
    );
  });
});

describe('GetDNS', () => {
  it('replaces nameservers and search one at a time, keeps domain and options', () => {
    const n = emptyNetConf();
    n.dns = { nameservers: ['1.1.1.1'], domain: 'd', search: ['s'], options: ['ndots:5'] };
    n.runtimeConfig.dns = { nameservers: undefined, search: ['a', 'b'] };
    expect(getDNS(n)).toEqual({
      nameservers: ['1.1.1.1'],
      domain: 'd',
      search: ['a', 'b'],
      options: ['ndots:5'],
    });
    n.runtimeConfig.dns = { nameservers: [], search: [] };
    expect(getDNS(n)).toEqual(n.dns);
  });
});
