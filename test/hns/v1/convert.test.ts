/**
 * v1 ↔ v2 document and policy conversion (reference hns-hcs.md §3.1–§3.3, §6.17). Vectors: the
 * bodies hcsshim marshals in `hcn/hcnv1schema_test.go` and `hcn/hnsv1_test.go`, the win-bridge v1
 * endpoint request (cni-windows.md §3.3 W1) and the SDN hns.psm1 bodies.
 */
import { describe, expect, it } from 'vitest';
import { HnsError } from '../../../src/core/errors.js';
import type { Json, JsonObject } from '../../../src/core/json.js';
import type { PolicyScope } from '../../../src/hns/policy/contracts.js';
import { parsePolicy, serializePolicy } from '../../../src/hns/policy/registry.js';
import {
  isV1Document,
  v1EndpointToV2,
  v1NetworkExtras,
  v1NetworkToV2,
  v1PolicyToV2,
  v2PolicyToV1,
} from '../../../src/hns/v1/convert.js';
import { PROFILES } from '../../../src/hns/versions.js';

const VERSION = PROFILES.ws2022!.version;
const NET_ID = '0FB2C1D4-8E6A-4A3B-9C2D-1E2F3A4B5C6D';

/** json.Marshal(hcsshim.HNSNetwork{Type:"NAT", Name:"GoTestNat", MacPools, Subnets}) from TestV1Network. */
const TEST_V1_NETWORK =
  '{"Name":"GoTestNat","Type":"NAT","MacPools":[{"StartMacAddress":"00-15-5D-52-C0-00","EndMacAddress":"00-15-5D-52-CF-FF"}],"Subnets":[{"AddressPrefix":"192.168.100.0/24","GatewayAddress":"192.168.100.1"}]}';

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof HnsError) return e.code;
    throw e;
  }
  return 'no error';
}

describe('isV1Document', () => {
  it.each<[string, JsonObject, 'Network' | 'Endpoint', boolean]>([
    ['TestV1Network body', JSON.parse(TEST_V1_NETWORK) as JsonObject, 'Network', true],
    ['TestV1Endpoint body', { Name: 'GoTestNatEndpoint', VirtualNetwork: NET_ID }, 'Endpoint', true],
    ['SchemaVersion 1.0', { Name: 'x', SchemaVersion: { Major: 1, Minor: 0 } }, 'Network', true],
    [
      'v1 DNS string on a network',
      { Name: 'x', Type: 'L2Bridge', DNSServerList: '10.96.0.10' },
      'Network',
      true,
    ],
    ['v1 remote endpoint', { IPAddress: '10.0.0.5', IsRemoteEndpoint: true }, 'Endpoint', true],
    [
      'flat v1 policies only',
      { Name: 'e', Policies: [{ Type: 'OutBoundNAT', ExceptionList: ['10.0.0.0/8'] }] },
      'Endpoint',
      true,
    ],
    [
      'v2 NAT network (hpc_hns)',
      { Name: 'x', Type: 'NAT', SchemaVersion: { Major: 2, Minor: 2 } },
      'Network',
      false,
    ],
    [
      'v2 network with Ipams',
      { Name: 'x', Type: 'NAT', Ipams: [{ Type: 'Static', Subnets: [] }], MacPool: {}, Dns: {} },
      'Network',
      false,
    ],
    [
      'v2 endpoint',
      { Name: 'e', HostComputeNetwork: NET_ID, Dns: {}, SchemaVersion: { Major: 2, Minor: 0 } },
      'Endpoint',
      false,
    ],
    [
      'v2 policies with Settings',
      { Name: 'e', Policies: [{ Type: 'OutBoundNAT', Settings: {} }] },
      'Endpoint',
      false,
    ],
    ['policy with Type only', { Name: 'e', Policies: [{ Type: 'HostRoute' }] }, 'Network', false],
    [
      'mixed v1 and v2 keys → v2',
      { Name: 'e', HostComputeNetwork: NET_ID, IPAddress: '10.0.0.5' },
      'Endpoint',
      false,
    ],
    ['empty document', {}, 'Network', false],
  ])('%s', (_name, doc, kind, want) => {
    expect(isV1Document(doc, kind)).toBe(want);
  });
});

describe('v1NetworkToV2', () => {
  it('TestV1Network: Subnets → Ipams with a default route via GatewayAddress, MacPools → MacPool', () => {
    const v2 = v1NetworkToV2(JSON.parse(TEST_V1_NETWORK) as JsonObject, VERSION);
    expect(JSON.stringify(v2)).toBe(
      '{"Name":"GoTestNat","Type":"NAT","MacPool":{"Ranges":[{"StartMacAddress":"00-15-5D-52-C0-00","EndMacAddress":"00-15-5D-52-CF-FF"}]},' +
        '"Ipams":[{"Type":"Static","Subnets":[{"IpAddressPrefix":"192.168.100.0/24","Routes":[{"NextHop":"192.168.100.1","DestinationPrefix":"0.0.0.0/0"}]}]}]}',
    );
  });

  it('overlay with a VSID subnet policy, DNS, adapter, source MAC and AutomaticDNS', () => {
    const v2 = v1NetworkToV2(
      {
        Name: 'vxlan0',
        Type: 'Overlay',
        NetworkAdapterName: 'Ethernet',
        SourceMac: '00-15-5D-00-00-01',
        Subnets: [
          {
            AddressPrefix: '10.244.1.0/24',
            GatewayAddress: '10.244.1.1',
            Policies: [{ Type: 'VSID', VSID: 4096 }],
          },
          { AddressPrefix: 'fd00::/64', GatewayAddress: 'fd00::1' },
        ],
        DNSSuffix: 'cluster.local',
        DNSServerList: '10.96.0.10, 8.8.8.8,',
        AutomaticDNS: true,
        ManagementIP: '10.0.0.4',
        Flags: 8,
      },
      VERSION,
    );
    expect(v2).toEqual({
      Name: 'vxlan0',
      Type: 'Overlay',
      Flags: 8,
      Policies: [
        { Type: 'NetAdapterName', Settings: { NetworkAdapterName: 'Ethernet' } },
        { Type: 'SourceMacAddress', Settings: { SourceMacAddress: '00-15-5D-00-00-01' } },
        { Type: 'AutomaticDNS', Settings: { Enable: true } },
      ],
      Dns: { Domain: 'cluster.local', ServerList: ['10.96.0.10', '8.8.8.8'] },
      Ipams: [
        {
          Type: 'Static',
          Subnets: [
            {
              IpAddressPrefix: '10.244.1.0/24',
              Routes: [{ NextHop: '10.244.1.1', DestinationPrefix: '0.0.0.0/0' }],
              Policies: [{ Type: 'VSID', Settings: { IsolationId: 4096 } }],
            },
            { IpAddressPrefix: 'fd00::/64', Routes: [{ NextHop: 'fd00::1', DestinationPrefix: '::/0' }] },
          ],
        },
      ],
    });
  });

  it('network-level VLAN (real v1 output {"Type":"VLAN","VLAN":1}) moves onto every subnet', () => {
    const v2 = v1NetworkToV2(
      {
        Name: 't',
        Type: 'Transparent',
        Policies: [
          { Type: 'VLAN', VLAN: 11 },
          { Type: 'PA', PA: '10.0.0.4' },
        ],
        Subnets: [
          { AddressPrefix: '10.1.0.0/24', GatewayAddress: '10.1.0.1' },
          { AddressPrefix: '10.2.0.0/24' },
        ],
      },
      VERSION,
    );
    expect(v2['Policies']).toEqual([{ Type: 'ProviderAddress', Settings: { ProviderAddress: '10.0.0.4' } }]);
    expect(v2['Ipams']).toEqual([
      {
        Type: 'Static',
        Subnets: [
          {
            IpAddressPrefix: '10.1.0.0/24',
            Routes: [{ NextHop: '10.1.0.1', DestinationPrefix: '0.0.0.0/0' }],
            Policies: [{ Type: 'VLAN', Settings: { IsolationId: 11 } }],
          },
          { IpAddressPrefix: '10.2.0.0/24', Policies: [{ Type: 'VLAN', Settings: { IsolationId: 11 } }] },
        ],
      },
    ]);
  });

  it('a network VLAN with no subnet has nowhere to go in v2', () => {
    expect(
      code(() => v1NetworkToV2({ Type: 'Transparent', Policies: [{ Type: 'VLAN', VLAN: 11 }] }, VERSION)),
    ).toBe('HCN_E_INVALID_POLICY_TYPE');
  });

  it('microsoft/SDN hns.psm1 subnet policy without a Type (@{VSID = 4096}) is read as VSID', () => {
    const v2 = v1NetworkToV2(
      {
        Type: 'Overlay',
        Subnets: [{ AddressPrefix: '10.0.0.0/24', GatewayAddress: '10.0.0.1', Policies: [{ VSID: 4096 }] }],
      },
      VERSION,
    );
    expect(v2['Ipams']).toMatchObject([
      { Subnets: [{ Policies: [{ Type: 'VSID', Settings: { IsolationId: 4096 } }] }] },
    ]);
  });

  it.each<[string, JsonObject]>([
    ['Subnets not an array', { Subnets: 'x' }],
    ['a subnet not an object', { Subnets: [1] }],
    ['AddressPrefix not a string', { Subnets: [{ AddressPrefix: 24 }] }],
    ['MacPools entry not an object', { MacPools: ['00-15-5D-00-00-00'] }],
    ['DNSServerList not a string', { DNSServerList: ['10.0.0.1'] }],
    ['Name not a string', { Name: 5, Subnets: [] }],
    ['AutomaticDNS not a boolean', { AutomaticDNS: 'yes' }],
  ])('wrong JSON type: %s → HCN_E_INVALID_JSON', (_n, doc) => {
    expect(code(() => v1NetworkToV2(doc, VERSION))).toBe('HCN_E_INVALID_JSON');
  });

  it('an unknown v1 network policy type → HCN_E_INVALID_POLICY_TYPE', () => {
    expect(code(() => v1NetworkToV2({ Type: 'NAT', Policies: [{ Type: 'Bogus', X: 1 }] }, VERSION))).toBe(
      'HCN_E_INVALID_POLICY_TYPE',
    );
  });
});

describe('v1EndpointToV2', () => {
  it('win-bridge v1 ADD body (cni-windows W1)', () => {
    const body = JSON.parse(
      `{"Name":"abc123_cbr0","VirtualNetwork":"${NET_ID}","Policies":[{"Type":"OutBoundNAT","ExceptionList":["10.96.0.0/12","10.244.0.0/16"]},{"Type":"ROUTE","DestinationPrefix":"10.96.0.0/12","NeedEncap":true},{"Type":"NAT","InternalPort":80,"ExternalPort":8080,"Protocol":"tcp"}],"IPAddress":"10.244.1.3","DNSSuffix":"default.svc.cluster.local,svc.cluster.local","DNSServerList":"10.96.0.10","GatewayAddress":"10.244.1.2"}`,
    ) as JsonObject;
    expect(v1EndpointToV2(body, VERSION)).toEqual({
      Name: 'abc123_cbr0',
      HostComputeNetwork: NET_ID,
      Policies: [
        { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.96.0.0/12', '10.244.0.0/16'] } },
        { Type: 'SDNRoute', Settings: { DestinationPrefix: '10.96.0.0/12', NeedEncap: true } },
        { Type: 'PortMapping', Settings: { Protocol: 6, InternalPort: 80, ExternalPort: 8080 } },
      ],
      IpConfigurations: [{ IpAddress: '10.244.1.3' }],
      Dns: { Search: ['default.svc.cluster.local', 'svc.cluster.local'], ServerList: ['10.96.0.10'] },
      Routes: [{ NextHop: '10.244.1.2', DestinationPrefix: '0.0.0.0/0' }],
    });
  });

  it('flags, dual stack, DNS domain, MAC and EncapOverhead', () => {
    const v2 = v1EndpointToV2(
      {
        ID: 'aaaaaaaa-0000-4000-8000-000000000001',
        IPAddress: '10.0.0.5',
        PrefixLength: 24,
        IPv6Address: 'fd00::5',
        IPv6PrefixLength: 64,
        GatewayAddressV6: 'fd00::1',
        DNSDomain: 'corp.local',
        MacAddress: '00-15-5D-AA-BB-CC',
        IsRemoteEndpoint: true,
        DisableICC: true,
        EnableLowMetric: true,
        EnableInternalDNS: true,
        EncapOverhead: 50,
      },
      VERSION,
    );
    expect(v2).toEqual({
      ID: 'aaaaaaaa-0000-4000-8000-000000000001',
      Policies: [{ Type: 'EncapOverhead', Settings: { Overhead: 50 } }],
      IpConfigurations: [
        { IpAddress: '10.0.0.5', PrefixLength: 24 },
        { IpAddress: 'fd00::5', PrefixLength: 64 },
      ],
      Dns: { Domain: 'corp.local' },
      Routes: [{ NextHop: 'fd00::1', DestinationPrefix: '::/0' }],
      MacAddress: '00-15-5D-AA-BB-CC',
      Flags: 11,
    });
  });

  it.each<[string, JsonObject]>([
    ['IPAddress not a string', { IPAddress: 167772165 }],
    ['PrefixLength out of uint8', { IPAddress: '10.0.0.5', PrefixLength: 300 }],
    ['IsRemoteEndpoint not a boolean', { IsRemoteEndpoint: 1 }],
    ['Policies not an array', { Policies: { Type: 'ACL' } }],
    ['SharedContainers not strings', { SharedContainers: [1] }],
  ])('wrong JSON type: %s → HCN_E_INVALID_JSON', (_n, doc) => {
    expect(code(() => v1EndpointToV2(doc, VERSION))).toBe('HCN_E_INVALID_JSON');
  });
});

/** A v1 policy, its v2 form, and the v1 form the v2 form shows as (normalised). */
const POLICY_VECTORS: [string, PolicyScope, JsonObject, JsonObject, JsonObject?][] = [
  [
    'NAT (docker/win-bridge)',
    'endpoint',
    { Type: 'NAT', Protocol: 'TCP', InternalPort: 80, ExternalPort: 8080 },
    { Type: 'PortMapping', Settings: { Protocol: 6, InternalPort: 80, ExternalPort: 8080 } },
  ],
  [
    'NAT UDP with ExternalPortReserved',
    'endpoint',
    { Type: 'NAT', Protocol: 'udp', InternalPort: 53, ExternalPort: 53, ExternalPortReserved: true },
    { Type: 'PortMapping', Settings: { Protocol: 17, InternalPort: 53, ExternalPort: 53, Flags: 4 } },
    { Type: 'NAT', Protocol: 'UDP', InternalPort: 53, ExternalPort: 53, ExternalPortReserved: true },
  ],
  [
    'ACL (calico-style, v1 singular fields)',
    'endpoint',
    {
      Type: 'ACL',
      Protocol: 6,
      Action: 'Allow',
      Direction: 'In',
      RemoteAddresses: '10.0.0.0/8',
      LocalPort: 80,
      RuleType: 'Switch',
      Priority: 200,
    },
    // the v1 single-value fields are kept as written (and echoed), not rewritten as lists
    {
      Type: 'ACL',
      Settings: {
        Action: 'Allow',
        Direction: 'In',
        RemoteAddresses: '10.0.0.0/8',
        RuleType: 'Switch',
        Priority: 200,
        Protocol: 6,
        LocalPort: 80,
      },
    },
  ],
  [
    'ACL (Felix allow-host-to-endpoint: Id, Protocol 256)',
    'endpoint',
    {
      Type: 'ACL',
      Id: 'allow-host-to-endpoint',
      Protocol: 256,
      Action: 'Allow',
      Direction: 'In',
      RemoteAddresses: '10.0.0.4/32,10.244.1.2/32',
      RuleType: 'Switch',
      Priority: 900,
    },
    {
      Type: 'ACL',
      Settings: {
        Id: 'allow-host-to-endpoint',
        Action: 'Allow',
        Direction: 'In',
        RemoteAddresses: '10.0.0.4/32,10.244.1.2/32',
        RuleType: 'Switch',
        Priority: 900,
        Protocol: 256,
      },
    },
  ],
  [
    'ACL (InternalPort, RemotePort, ServiceName)',
    'endpoint',
    {
      Type: 'ACL',
      Protocol: 17,
      InternalPort: 53,
      Action: 'Block',
      Direction: 'Out',
      RemotePort: 5353,
      ServiceName: 'dns',
    },
    {
      Type: 'ACL',
      Settings: {
        Action: 'Block',
        Direction: 'Out',
        Protocol: 17,
        InternalPort: 53,
        RemotePort: 5353,
        ServiceName: 'dns',
      },
    },
  ],
  [
    'PA',
    'endpoint',
    { Type: 'PA', PA: '10.0.0.4' },
    { Type: 'ProviderAddress', Settings: { ProviderAddress: '10.0.0.4' } },
  ],
  ['VLAN (subnet)', 'subnet', { Type: 'VLAN', VLAN: 11 }, { Type: 'VLAN', Settings: { IsolationId: 11 } }],
  [
    'VSID (subnet)',
    'subnet',
    { Type: 'VSID', VSID: 4096 },
    { Type: 'VSID', Settings: { IsolationId: 4096 } },
  ],
  [
    'QOS',
    'endpoint',
    { Type: 'QOS', MaximumOutgoingBandwidthInBytes: 1000000 },
    { Type: 'QOS', Settings: { MaximumOutgoingBandwidthInBytes: 1000000 } },
  ],
  [
    'OutBoundNAT',
    'endpoint',
    { Type: 'OutBoundNAT', VIP: '10.0.0.4', ExceptionList: ['10.96.0.0/12'], Destinations: ['10.0.0.9'] },
    {
      Type: 'OutBoundNAT',
      Settings: { VirtualIP: '10.0.0.4', Exceptions: ['10.96.0.0/12'], Destinations: ['10.0.0.9'] },
    },
  ],
  [
    'OutBoundNAT without fields (hns.psm1 -EnableOutboundNat)',
    'endpoint',
    { Type: 'OutBoundNAT' },
    { Type: 'OutBoundNAT', Settings: {} },
  ],
  [
    'ROUTE',
    'endpoint',
    { Type: 'ROUTE', DestinationPrefix: '10.96.0.0/12', NeedEncap: true },
    { Type: 'SDNRoute', Settings: { DestinationPrefix: '10.96.0.0/12', NeedEncap: true } },
  ],
  [
    'PROXY',
    'endpoint',
    {
      Type: 'PROXY',
      IP: '10.0.0.10',
      Port: '80',
      ExceptionList: ['10.0.0.0/24'],
      Destination: '127.0.0.1:15001',
      OutboundNat: true,
    },
    {
      Type: 'L4Proxy',
      Settings: {
        IP: '10.0.0.10',
        Port: '80',
        Exceptions: ['10.0.0.0/24'],
        Destination: '127.0.0.1:15001',
        OutboundNAT: true,
      },
    },
  ],
  [
    'Isolation with a VLAN',
    'endpoint',
    { Type: 'Isolation', VLAN: 7, VSID: 0, InDefaultIsolation: false },
    // no HCN v2 counterpart on an endpoint: kept as the v1 policy it is
    { Type: 'Isolation', Settings: { VLAN: 7, VSID: 0, InDefaultIsolation: false } },
  ],
  ['VNET (endpoint)', 'endpoint', { Type: 'VNET' }, { Type: 'VNET', Settings: {} }],
  [
    'a v2-only type written flat (SDNROUTE, upper case)',
    'endpoint',
    { Type: 'SDNROUTE', DestinationPrefix: '10.0.0.0/8' },
    { Type: 'SDNRoute', Settings: { DestinationPrefix: '10.0.0.0/8' } },
    { Type: 'ROUTE', DestinationPrefix: '10.0.0.0/8' },
  ],
  [
    'a v2-only type written flat (EncapOverhead)',
    'endpoint',
    { Type: 'EncapOverhead', Overhead: 50 },
    { Type: 'EncapOverhead', Settings: { Overhead: 50 } },
  ],
  [
    'a v2-shaped policy passes through',
    'endpoint',
    { Type: 'PortMapping', Settings: { Protocol: 17, InternalPort: 45678, ExternalPort: 56789 } },
    { Type: 'PortMapping', Settings: { Protocol: 17, InternalPort: 45678, ExternalPort: 56789 } },
    { Type: 'NAT', Protocol: 'UDP', InternalPort: 45678, ExternalPort: 56789 },
  ],
];

describe('policy mappers', () => {
  it.each(POLICY_VECTORS)('%s: v1 → v2 → stored → v1', (_name, scope, v1, v2, back) => {
    expect(v1PolicyToV2(v1, scope)).toEqual(v2);
    const stored = serializePolicy(
      parsePolicy(v1PolicyToV2(v1, scope), { version: VERSION, scope, networkType: 'Overlay', v1: true }),
    );
    const shown = v2PolicyToV1(stored);
    expect(shown).toEqual(back ?? v1);
    // what a v1 view shows reads back to the same policy
    expect(v1PolicyToV2(shown, scope)).toEqual(stored);
  });

  it('v2 types without a v1 name show flat and read back', () => {
    const p = {
      Type: 'RemoteSubnetRoute',
      Settings: {
        DestinationPrefix: '192.168.2.0/24',
        IsolationId: 5000,
        ProviderAddress: '1.1.1.1',
        DistributedRouterMacAddress: '00-12-34-56-78-9a',
      },
    };
    const v1 = v2PolicyToV1(p);
    expect(v1).toEqual({
      Type: 'RemoteSubnetRoute',
      DestinationPrefix: '192.168.2.0/24',
      IsolationId: 5000,
      ProviderAddress: '1.1.1.1',
      DistributedRouterMacAddress: '00-12-34-56-78-9a',
    });
    expect(v1PolicyToV2(v1, 'network')).toEqual(p);
  });

  it('PortMapping VIP and LocalRoutedVip survive the v1 view', () => {
    const v1 = v2PolicyToV1({
      Type: 'PortMapping',
      Settings: { Protocol: 6, InternalPort: 80, ExternalPort: 80, VIP: '10.0.0.4', Flags: 5 },
    });
    expect(v1).toEqual({
      Type: 'NAT',
      Protocol: 'TCP',
      InternalPort: 80,
      ExternalPort: 80,
      ExternalPortReserved: true,
      VIP: '10.0.0.4',
      Flags: 1,
    });
    expect(v1PolicyToV2(v1, 'endpoint')).toEqual({
      Type: 'PortMapping',
      Settings: { Protocol: 6, InternalPort: 80, ExternalPort: 80, VIP: '10.0.0.4', Flags: 5 },
    });
  });

  it.each<[string, Json, string]>([
    ['unknown type', { Type: 'Bogus' }, 'HCN_E_INVALID_POLICY_TYPE'],
    [
      'ELB only in policy lists',
      { Type: 'ELB', InternalPort: 80, ExternalPort: 80 },
      'HCN_E_INVALID_POLICY_TYPE',
    ],
    ['not an object', 'NAT', 'HCN_E_INVALID_POLICY'],
    ['no Type', { Protocol: 'TCP' }, 'HCN_E_INVALID_POLICY'],
    ['InternalPort as a string', { Type: 'NAT', InternalPort: '80' }, 'HCN_E_INVALID_POLICY'],
    ['NAT protocol SCTP', { Type: 'NAT', Protocol: 'SCTP', InternalPort: 80 }, 'HCN_E_INVALID_POLICY'],
    ['ExceptionList not strings', { Type: 'OutBoundNAT', ExceptionList: [1] }, 'HCN_E_INVALID_POLICY'],
  ])('%s → %s', (_n, raw, want) => {
    expect(code(() => v1PolicyToV2(raw, 'endpoint'))).toBe(want);
  });

  it('VNET and Isolation are endpoint policies only; a subnet Isolation without VLAN or VSID has no form', () => {
    expect(code(() => v1PolicyToV2({ Type: 'VNET' }, 'network'))).toBe('HCN_E_INVALID_POLICY_TYPE');
    expect(code(() => v1PolicyToV2({ Type: 'Isolation', InDefaultIsolation: true }, 'subnet'))).toBe(
      'HCN_E_INVALID_POLICY_TYPE',
    );
    // an HCN v2 document cannot name them (they exist only through v1)
    const v2ctx = { version: VERSION, scope: 'endpoint' as const, networkType: 'Overlay' as const };
    expect(code(() => parsePolicy({ Type: 'VNET', Settings: {} }, v2ctx))).toBe('HCN_E_INVALID_POLICY_TYPE');
  });

  it('v1 NAT Protocol: names in any case, numbers and decimal strings; absent = TCP', () => {
    const proto = (p: Json | undefined) =>
      (
        v1PolicyToV2(
          { Type: 'NAT', ...(p === undefined ? {} : { Protocol: p }), InternalPort: 1 },
          'endpoint',
        )['Settings'] as JsonObject
      )['Protocol'];
    expect([proto('TCP'), proto('tcp'), proto('Udp'), proto('17'), proto(6), proto(undefined)]).toEqual([
      6, 6, 17, 17, 6, 6,
    ]);
  });
});

describe('v1NetworkExtras: ManagementIP', () => {
  it("an address with its prefix length, as Antrea sends Go's IPNet.String() (pkg/agent/util/net_windows.go CreateHNSNetwork), is accepted and kept", () => {
    expect(v1NetworkExtras({ Name: 'antrea-hnsnetwork', ManagementIP: '192.168.77.100/24' })).toEqual({
      ManagementIP: '192.168.77.100/24',
    });
    expect(v1NetworkExtras({ ManagementIP: '10.0.0.4' })).toEqual({ ManagementIP: '10.0.0.4' });
  });

  it('anything else is HCN_E_INVALID_NETWORK', () => {
    for (const bad of ['192.168.77.100/33', 'not-an-ip', '10.0.0.4/', '/24', '10.0.0.4/24/1']) {
      expect(() => v1NetworkExtras({ ManagementIP: bad }), bad).toThrow(
        expect.objectContaining({ code: 'HCN_E_INVALID_NETWORK' }),
      );
    }
  });
});
