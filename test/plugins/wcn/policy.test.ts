/**
 * windows-container-networking's policy builders. Source: microsoft/windows-container-networking
 * @ b96345f `network/policy.go` (GetPortEnumValue l.29, GetPortMappingPolicy l.56,
 * GetLoopbackDSRPolicy l.84), `cni/cni.go` getInACLRule l.298 and GetEndpointInfo l.338, with
 * hcsshim v0.8.26 `hcn/hcnpolicy.go` (PortMappingPolicySetting, AclPolicySetting, NatFlags);
 * reference cni-windows.md §4.3 step 2 (the JSON vectors).
 */
import { describe, expect, it } from 'vitest';
import { getEndpointInfo, getNetworkInfo } from '../../../src/plugins/wcn/cni.js';
import { parseNetworkConfig } from '../../../src/plugins/wcn/config.js';
import { parseIP } from '../../../src/plugins/wcn/gonet.js';
import {
  getInACLRule,
  getLoopbackDSRPolicy,
  getPortEnumValue,
  getPortMappingPolicy,
} from '../../../src/plugins/wcn/policy.js';

describe('GetPortEnumValue', () => {
  it('takes names in any case and numbers as strconv.ParseUint(p, 0, 10) reads them', () => {
    expect(getPortEnumValue('tcp')).toBe(6);
    expect(getPortEnumValue('TCP')).toBe(6);
    expect(getPortEnumValue('Udp')).toBe(17);
    expect(getPortEnumValue('icmpv4')).toBe(1);
    expect(getPortEnumValue('ICMPv6')).toBe(58);
    expect(getPortEnumValue('igmp')).toBe(2);
    expect(getPortEnumValue('6')).toBe(6);
    expect(getPortEnumValue('0x11')).toBe(17);
    expect(getPortEnumValue('021')).toBe(17); // a leading 0 is octal
    expect(getPortEnumValue('1_7')).toBe(17); // base 0 allows underscores between digits
    expect(getPortEnumValue('0')).toBe(0);
    expect(getPortEnumValue('1023')).toBe(1023);
  });

  it('rejects everything else', () => {
    for (const p of ['', 'sctp', '1024', '08', '+6', '-6', '6_', ' 6', 'tcp ']) {
      expect(() => getPortEnumValue(p), p).toThrow('invalid protocol supplied to port mapping policy');
    }
  });
});

describe('PortMapping and ACL settings JSON', () => {
  it('drops zero/empty fields (omitempty), unlike win-bridge v2 which always writes "VIP":""', () => {
    expect(getPortMappingPolicy(8080, 80, 'tcp', '', 0).data).toEqual({
      Type: 'PortMapping',
      Settings: { Protocol: 6, InternalPort: 80, ExternalPort: 8080 },
    });
    expect(JSON.stringify(getPortMappingPolicy(8080, 80, 'tcp', '', 0).data)).toBe(
      '{"Type":"PortMapping","Settings":{"Protocol":6,"InternalPort":80,"ExternalPort":8080}}',
    );
    expect(JSON.stringify(getPortMappingPolicy(8080, 80, 'udp', '192.168.1.5', 1).data)).toBe(
      '{"Type":"PortMapping","Settings":{"Protocol":17,"InternalPort":80,"ExternalPort":8080,"VIP":"192.168.1.5","Flags":1}}',
    );
  });

  it('truncates ports to uint16', () => {
    expect(JSON.stringify(getPortMappingPolicy(65536 + 80, 70000, '6', '', 0).data)).toBe(
      '{"Type":"PortMapping","Settings":{"Protocol":6,"InternalPort":4464,"ExternalPort":80}}',
    );
  });

  it('builds the inbound ACL at the given priority, LocalPorts = the container port as written', () => {
    expect(JSON.stringify(getInACLRule(80, 'tcp', 1000).data)).toBe(
      '{"Type":"ACL","Settings":{"Protocols":"6","Action":"Allow","Direction":"In","LocalPorts":"80","Priority":1000}}',
    );
    expect(JSON.stringify(getInACLRule(70000, 'UDP', 1000).data)).toBe(
      '{"Type":"ACL","Settings":{"Protocols":"17","Action":"Allow","Direction":"In","LocalPorts":"70000","Priority":1000}}',
    );
  });

  it('builds the loopback DSR OutBoundNAT, "<nil>" when the endpoint has no IP yet', () => {
    expect(JSON.stringify(getLoopbackDSRPolicy(parseIP('10.244.1.5')).data)).toBe(
      '{"Type":"OutBoundNAT","Settings":{"Destinations":["10.244.1.5"]}}',
    );
    expect(JSON.stringify(getLoopbackDSRPolicy(undefined).data)).toBe(
      '{"Type":"OutBoundNAT","Settings":{"Destinations":["<nil>"]}}',
    );
  });
});

describe('GetEndpointInfo port mapping policies', () => {
  const mappings = [
    { hostPort: 8080, containerPort: 80, protocol: 'tcp' },
    { hostPort: 5353, containerPort: 53, protocol: 'udp', hostIP: '10.0.0.4' },
  ];
  const endpointPolicies = async (optionalFlags: Record<string, boolean>): Promise<string[]> => {
    const config = parseNetworkConfig(
      JSON.stringify({ name: 'n', type: 'nat', optionalFlags, runtimeConfig: { portMappings: mappings } }),
    );
    const info = await getNetworkInfo(config, '', () => Promise.resolve());
    return getEndpointInfo(config, info, 'cid', '').policies.map((p) => JSON.stringify(p.data));
  };

  it('one PortMapping per mapping, flag LocalRoutedVip (1) with localRoutedPortMapping', async () => {
    expect(await endpointPolicies({})).toEqual([
      '{"Type":"PortMapping","Settings":{"Protocol":6,"InternalPort":80,"ExternalPort":8080}}',
      '{"Type":"PortMapping","Settings":{"Protocol":17,"InternalPort":53,"ExternalPort":5353,"VIP":"10.0.0.4"}}',
    ]);
    expect(await endpointPolicies({ localRoutedPortMapping: true })).toEqual([
      '{"Type":"PortMapping","Settings":{"Protocol":6,"InternalPort":80,"ExternalPort":8080,"Flags":1}}',
      '{"Type":"PortMapping","Settings":{"Protocol":17,"InternalPort":53,"ExternalPort":5353,"VIP":"10.0.0.4","Flags":1}}',
    ]);
  });

  it('dual-stack adds an IPv6 twin (flag 2 | local-routed, no VIP); allowAclPortMapping an ACL, all at priority 1000', async () => {
    expect(
      await endpointPolicies({
        localRoutedPortMapping: true,
        enableDualStack: true,
        allowAclPortMapping: true,
      }),
    ).toEqual([
      '{"Type":"PortMapping","Settings":{"Protocol":6,"InternalPort":80,"ExternalPort":8080,"Flags":1}}',
      '{"Type":"PortMapping","Settings":{"Protocol":6,"InternalPort":80,"ExternalPort":8080,"Flags":3}}',
      '{"Type":"ACL","Settings":{"Protocols":"6","Action":"Allow","Direction":"In","LocalPorts":"80","Priority":1000}}',
      '{"Type":"PortMapping","Settings":{"Protocol":17,"InternalPort":53,"ExternalPort":5353,"VIP":"10.0.0.4","Flags":1}}',
      '{"Type":"PortMapping","Settings":{"Protocol":17,"InternalPort":53,"ExternalPort":5353,"Flags":3}}',
      '{"Type":"ACL","Settings":{"Protocols":"17","Action":"Allow","Direction":"In","LocalPorts":"53","Priority":1000}}',
    ]);
  });

  it('wraps a bad protocol', async () => {
    const config = parseNetworkConfig(
      JSON.stringify({
        name: 'n',
        type: 'nat',
        runtimeConfig: { portMappings: [{ hostPort: 1, containerPort: 1, protocol: 'sctp' }] },
      }),
    );
    const info = await getNetworkInfo(config, '', () => Promise.resolve());
    expect(() => getEndpointInfo(config, info, 'cid', '')).toThrow(
      'failed during GetEndpointInfo from netconf: invalid protocol supplied to port mapping policy',
    );
  });
});
