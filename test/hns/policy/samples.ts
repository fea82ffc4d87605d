/**
 * Settings samples for the shared policy contract battery: per Type, settings that must parse and
 * round-trip (first = fullest), and settings that must fail with HCN_E_INVALID_POLICY. Vectors from
 * hcsshim's tests and reference hns-hcs.md §2.3 are marked.
 */
import type { JsonObject } from '../../../src/core/json.js';

export interface ModuleSamples {
  readonly valid: readonly JsonObject[];
  readonly bad: readonly JsonObject[];
}

/** hcsshim `HcnCreateAcls()` inbound rule (hns-hcs.md §2.3). */
export const ACL_IN_VECTOR: JsonObject = {
  Protocols: '6',
  Action: 'Allow',
  Direction: 'In',
  LocalAddresses: '192.168.100.0/24,10.0.0.21',
  RemoteAddresses: '192.168.100.0/24,10.0.0.21',
  LocalPorts: '80,8080',
  RemotePorts: '80,8080',
  RuleType: 'Switch',
  Priority: 200,
};

/** hcsshim `HcnCreateTestRemoteSubnetRoute()` (hns-hcs.md §2.3). */
export const RSR_VECTOR: JsonObject = {
  DestinationPrefix: '192.168.2.0/24',
  IsolationId: 5000,
  ProviderAddress: '1.1.1.1',
  DistributedRouterMacAddress: '00-12-34-56-78-9a',
};

/** hcsshim `HcnCreateWfpProxyPolicyRequest()` (hcn/hcnutils_test.go), as json.Marshal writes it. */
export const L4WFPPROXY_VECTOR: JsonObject = {
  InboundProxyPort: '80',
  OutboundProxyPort: '81',
  FilterTuple: { Protocols: '6', RemoteAddresses: '10.0.0.4', Priority: 8 },
  InboundExceptions: { IpAddressExceptions: ['12.0.1.12'], PortExceptions: ['8181'] },
  OutboundExceptions: { IpAddressExceptions: ['10.0.1.12'], PortExceptions: ['81'] },
};

/** hcsshim `HcnCreateTierAcls()` first tier (hcn/hcnutils_test.go). */
export const TIER_ACL_VECTOR: JsonObject = {
  Name: 'TierIn1',
  Direction: 'In',
  Order: 1001,
  TierAclRules: [
    {
      Id: 'TierIn1Rule1',
      Protocols: '6',
      TierAclRuleAction: 'Pass',
      LocalAddresses: '192.168.100.0/24,10.0.0.21',
      RemoteAddresses: '192.168.100.0/24,10.0.0.22',
      LocalPorts: '80',
      RemotePorts: '80',
      Priority: 2001,
    },
    { Id: 'TierIn1Rule2', TierAclRuleAction: 'Block', Priority: 2100 },
  ],
};

const GUID = '5f0b1190-63be-4e0c-b974-bd0f55675a42';

export const SAMPLES: Readonly<Record<string, ModuleSamples>> = {
  // ---- network
  SourceMacAddress: {
    // the colon form is Go's net.HardwareAddr.String(), which flannel and Calico send
    valid: [{ SourceMacAddress: '00-15-5D-52-C0-00' }, { SourceMacAddress: '00:15:5d:52:c0:00' }],
    bad: [
      {},
      { SourceMacAddress: '00.15.5d.52.c0.00' },
      { SourceMacAddress: 5 },
      { SourceMacAddress: '00-15-5D-52-C0' },
    ],
  },
  NetAdapterName: {
    valid: [{ NetworkAdapterName: 'Ethernet' }],
    bad: [{}, { NetworkAdapterName: '' }, { NetworkAdapterName: true }],
  },
  VSwitchExtension: {
    valid: [{ ExtensionID: GUID, Enable: true }, { ExtensionID: `{${GUID.toUpperCase()}}` }],
    bad: [{}, { ExtensionID: 'not-a-guid', Enable: true }, { ExtensionID: GUID, Enable: 'yes' }],
  },
  DrMacAddress: {
    valid: [{ Address: '00-12-34-56-78-9a' }],
    bad: [{}, { Address: '0012.3456.789a' }],
  },
  AutomaticDNS: {
    valid: [{ Enable: true }, {}],
    bad: [{ Enable: 1 }, { Enable: 'true' }],
  },
  RemoteSubnetRoute: {
    valid: [RSR_VECTOR, { ...RSR_VECTOR, DestinationPrefix: 'fd00:1::/64', ProviderAddress: 'fd00::1' }],
    bad: [
      {},
      { ...RSR_VECTOR, IsolationId: 0 },
      { ...RSR_VECTOR, IsolationId: 4095 },
      { ...RSR_VECTOR, IsolationId: 16777215 },
      { ...RSR_VECTOR, IsolationId: '5000' },
      { ...RSR_VECTOR, DestinationPrefix: '192.168.2.0' },
      { ...RSR_VECTOR, ProviderAddress: '1.1.1' },
      { ...RSR_VECTOR, DistributedRouterMacAddress: '' },
    ],
  },
  VxlanPort: {
    valid: [{ Port: 4789 }],
    bad: [{}, { Port: 0 }, { Port: 65536 }, { Port: -1 }, { Port: 4789.5 }],
  },
  HostRoute: { valid: [{}], bad: [] },
  SetPolicy: {
    valid: [
      {
        Id: 'azure-npm-3216600258',
        Name: 'ns-default',
        PolicyType: 'IPSET',
        Values: '10.240.0.4,10.240.0.0/24',
      },
      { Id: 'azure-npm-1', Name: 'nested', PolicyType: 'NESTEDIPSET', Values: 'azure-npm-2,azure-npm-3' },
      { Id: 'empty', Name: '', PolicyType: 'IPSET', Values: '' },
    ],
    bad: [
      { Name: 'x', PolicyType: 'IPSET', Values: '' },
      { Id: '10.0.0.1', PolicyType: 'IPSET', Values: '' },
      { Id: 's', PolicyType: 'ipset', Values: '' },
      { Id: 's', PolicyType: 'IPSET', Values: 'azure-npm-2' },
      { Id: 's', PolicyType: 'NESTEDIPSET', Values: '10.0.0.1' },
      { Id: 's', PolicyType: 2, Values: '' },
      { Id: 's', PolicyType: 'IPSET', Values: '10.0.0.1,,10.0.0.2' },
    ],
  },
  LayerConstraint: {
    valid: [{ LayerId: GUID }],
    bad: [{}, { LayerId: 'layer' }],
  },
  NetworkACL: {
    valid: [ACL_IN_VECTOR, { Action: 'Block', Direction: 'Out' }],
    bad: [{ Direction: 'In' }, { Action: 'allow', Direction: 'In' }, { Action: 'Allow', Direction: 'Both' }],
  },
  NeighborDiscovery: {
    valid: [
      { TargetIpPrefix: '10.0.0.0/24', SenderIpAddress: '10.0.0.1', SenderMacAddress: '00-15-5D-00-00-01' },
      { TargetIpPrefix: '10.0.0.0/24', SenderIpAddress: '10.0.0.1' },
    ],
    bad: [{}, { TargetIpPrefix: '10.0.0.0/24' }, { TargetIpPrefix: '10.0.0.0/24', SenderIpAddress: 'x' }],
  },
  // ---- network and endpoint
  InterfaceConstraint: {
    valid: [
      {
        InterfaceGuid: GUID,
        InterfaceLuid: 1689399632855040,
        InterfaceIndex: 12,
        InterfaceMediaType: 6,
        InterfaceAlias: 'Ethernet 2',
        InterfaceDescription: 'Microsoft Hyper-V Network Adapter',
      },
      { InterfaceIndex: 7 },
    ],
    bad: [
      {},
      { InterfaceGuid: 'x' },
      { InterfaceIndex: -1 },
      { InterfaceLuid: 2 ** 60 },
      { InterfaceAlias: 3 },
    ],
  },
  ProviderAddress: {
    valid: [{ ProviderAddress: '10.1.1.1' }, { ProviderAddress: 'fd00::10' }],
    bad: [{}, { ProviderAddress: '10.1.1.1/32' }, { ProviderAddress: 'localhost' }],
  },
  L4Proxy: {
    valid: [
      {
        IP: '10.0.0.0/16',
        Port: '80',
        Protocol: 6,
        Exceptions: ['10.0.0.10', '10.1.0.0/16'],
        Destination: '127.0.0.1:15001',
        OutboundNAT: true,
      },
      { Destination: '' },
      { IP: 'fd00::1', Destination: '[::1]:15001' },
    ],
    bad: [
      { Protocol: 7 },
      { Port: 80 },
      { Port: '65536' },
      { IP: 'ten' },
      { Destination: '127.0.0.1:http' },
      { Exceptions: ['x'] },
      { OutboundNAT: true, OutboundNat: false },
      { Exceptions: ['10.0.0.1'], ExceptionList: ['10.0.0.2'] },
    ],
  },
  // ---- endpoint
  PortMapping: {
    valid: [
      { Protocol: 6, InternalPort: 80, ExternalPort: 8080, VIP: '10.0.0.5', Flags: 1 },
      { Protocol: 17, InternalPort: 45678, ExternalPort: 56789 },
      { Protocol: 6, InternalPort: 443 },
    ],
    bad: [
      { InternalPort: 80 },
      { Protocol: 1, InternalPort: 80 },
      { Protocol: 6, InternalPort: 80, ExternalPort: 70000 },
      { Protocol: 6, InternalPort: 80, VIP: '10.0.0' },
      { Protocol: 6, InternalPort: 80, Flags: 8 },
      { Protocol: '6', InternalPort: 80 },
    ],
  },
  ACL: {
    valid: [
      { ...ACL_IN_VECTOR, Id: 'CNIDefaultDenyAllPolicy' },
      { Action: 'Block', Direction: 'In', Protocols: '256', RuleType: 'Switch', Priority: 65500 },
      {
        Action: 'Allow',
        Direction: 'Out',
        RemoteAddresses: 'azure-npm-3216600258',
        LocalPorts: '1000-2000,3000',
      },
      { Action: 'Allow', Direction: 'In', RuleType: 'Host' },
      { Action: 'Pass', Direction: 'In', Protocols: '6,17', RemoteAddresses: 'fd00::/64' },
    ],
    bad: [
      {},
      { Action: 'Allow' },
      { Direction: 'In' },
      { Action: 'Deny', Direction: 'In' },
      { Action: 'Allow', Direction: 'in' },
      { Action: 'Allow', Direction: 'In', RuleType: 'switch' },
      { Action: 'Allow', Direction: 'In', Protocols: 'TCP' },
      { Action: 'Allow', Direction: 'In', Protocols: '257' },
      { Action: 'Allow', Direction: 'In', Protocols: 6 },
      { Action: 'Allow', Direction: 'In', RemoteAddresses: 'Any' },
      { Action: 'Allow', Direction: 'In', RemoteAddresses: '*' },
      { Action: 'Allow', Direction: 'In', RemoteAddresses: '10.0.0.0/33' },
      { Action: 'Allow', Direction: 'In', LocalPorts: '2000-1000' },
      { Action: 'Allow', Direction: 'In', LocalPorts: '65536' },
      { Action: 'Allow', Direction: 'In', LocalPorts: '80,' },
      { Action: 'Allow', Direction: 'In', Priority: 65536 },
      { Action: 'Allow', Direction: 'In', Priority: -5 },
    ],
  },
  QOS: {
    valid: [{ MaximumOutgoingBandwidthInBytes: 1000000 }, {}],
    bad: [
      { MaximumOutgoingBandwidthInBytes: -1 },
      { MaximumOutgoingBandwidthInBytes: '1000' },
      { MaximumOutgoingBandwidthInBytes: 2 ** 64 },
    ],
  },
  L2Driver: { valid: [{}, { Anything: [1, { b: null }], Else: 'x' }], bad: [] },
  // ---- v1-only endpoint policies (hcsshim internal/hns/hnspolicy.go: VNET has no fields; Isolation
  // always writes VLAN, VSID and InDefaultIsolation)
  VNET: { valid: [{}], bad: [] },
  Isolation: {
    valid: [
      { VLAN: 7, VSID: 0, InDefaultIsolation: false },
      { VLAN: 0, VSID: 5000, InDefaultIsolation: true },
    ],
    bad: [{ VLAN: 5000 }, { VLAN: '7' }, { VSID: -1 }, { InDefaultIsolation: 'yes' }],
  },
  OutBoundNAT: {
    valid: [
      {
        VirtualIP: '10.0.0.100',
        Exceptions: ['10.244.0.0/16', '10.96.0.0/12', '10.0.0.4'],
        Destinations: ['168.63.129.16'],
        Flags: 1,
        MaxPortPoolUsage: 50,
      },
      { Exceptions: ['fd00::/48'], Flags: 2 },
      {},
    ],
    bad: [
      { VirtualIP: 'x' },
      { Exceptions: 'a,b' },
      { Exceptions: ['10.0.0.0/40'] },
      { Exceptions: [''] },
      { Destinations: [5] },
      { Flags: 16 },
      { MaxPortPoolUsage: 70000 },
    ],
  },
  SDNRoute: {
    valid: [
      {
        DestinationPrefix: '10.96.0.0/12',
        NextHop: '10.244.1.1',
        NeedEncap: true,
        AutomaticEndpointMonitor: true,
      },
      { DestinationPrefix: '169.254.169.254/24', NextHop: '127.10.0.34' },
    ],
    bad: [{}, { NextHop: '10.0.0.1' }, { DestinationPrefix: '10.96.0.0/12', NeedEncap: 'true' }],
  },
  L4WFPPROXY: {
    valid: [
      L4WFPPROXY_VECTOR,
      { InboundProxyPort: '15006', UserSID: 'S-1-5-21-1004336348-1177238915-682003330-512' },
    ],
    bad: [
      {},
      { InboundProxyPort: 80 },
      { InboundProxyPort: '80', FilterTuple: { Protocols: 'tcp' } },
      { InboundProxyPort: '80', FilterTuple: { RemoteAddresses: 'azure-npm-1' } },
      { InboundProxyPort: '80', UserSID: 'Administrator' },
      { InboundProxyPort: '80', InboundExceptions: { PortExceptions: ['x'] } },
      { InboundProxyPort: '80', OutboundExceptions: { IpAddressExceptions: ['1.2.3.4.5'] } },
      { InboundProxyPort: '80', FilterTuple: 'none' },
    ],
  },
  PortName: { valid: [{ Name: 'Container NIC 6f0c1a2b' }], bad: [{}, { Name: 7 }] },
  EncapOverhead: { valid: [{ Overhead: 50 }, {}], bad: [{ Overhead: 65536 }, { Overhead: '50' }] },
  Iov: {
    valid: [
      { IovOffloadWeight: 100, QueuePairsRequested: 4, InterruptModeration: 200 },
      { IovOffloadWeight: 50, InterruptModeration: 'IovInterruptModerationAdaptive' },
      {},
    ],
    bad: [{ InterruptModeration: 3 }, { InterruptModeration: 'High' }, { IovOffloadWeight: -1 }],
  },
  TierAcl: {
    valid: [TIER_ACL_VECTOR, { Name: 'TierOut3', Direction: 'Out', Order: 1013 }],
    bad: [
      { Direction: 'In', Order: 1 },
      { Name: 't', Order: 1 },
      { Name: 't', Direction: 'In', Order: 70000 },
      { Name: 't', Direction: 'In', TierAclRules: [{ Priority: 1 }] },
      { Name: 't', Direction: 'In', TierAclRules: [{ TierAclRuleAction: 'Deny' }] },
      { Name: 't', Direction: 'In', TierAclRules: {} },
      { Name: 't', Direction: 'In', TierAclRules: [{ TierAclRuleAction: 'Allow', LocalPorts: 'eighty' }] },
    ],
  },
  Encryption: {
    valid: [
      {
        EncryptionMethodType: 'Ipsec',
        AuthenticationMethods: [
          { Type: 'Certificate', Settings: { CertificateName: 'CN=node' } },
          { Type: 'PresharedKey', Settings: { Key: 'secret' } },
        ],
        Name: 'pod-to-pod',
        Endpoints1: ['10.244.1.0/24'],
        Endpoints2: ['10.244.2.0/24', '10.0.0.4'],
        ProtocolType: '6',
        Endpoint1Ports: ['80'],
        Endpoint2Ports: ['1000-2000'],
      },
      { AuthenticationMethods: [{ Type: 'PresharedKey', Settings: { Key: 'k' } }] },
    ],
    bad: [
      {},
      { AuthenticationMethods: [] },
      {
        EncryptionMethodType: 'Tls',
        AuthenticationMethods: [{ Type: 'PresharedKey', Settings: { Key: 'k' } }],
      },
      { AuthenticationMethods: [{ Type: 'Kerberos', Settings: {} }] },
      { AuthenticationMethods: [{ Type: 'PresharedKey', Settings: { CertificateName: 'x' } }] },
      { AuthenticationMethods: [{ Type: 'PresharedKey', Settings: { Key: 'k' } }], Endpoints1: ['host'] },
    ],
  },
  InterfaceParameters: { valid: [{ Mtu: 1450 }], bad: [{}, { Mtu: 100 }, { Mtu: 70000 }] },
  // ---- endpoint and subnet
  VLAN: {
    valid: [{ IsolationId: 100 }],
    bad: [{}, { IsolationId: 0 }, { IsolationId: 4095 }, { IsolationId: 'x' }],
  },
  // ---- subnet
  VSID: {
    valid: [{ IsolationId: 5000 }, { IsolationId: 4096 }, { IsolationId: 16777214 }],
    bad: [{}, { IsolationId: 4095 }, { IsolationId: 16777215 }, { IsolationId: 5000.5 }],
  },
};

/** Types whose settings cannot be invalid (HostRoute ignores them, L2Driver keeps them opaque). */
export const TYPES_WITHOUT_BAD_SETTINGS: readonly string[] = ['HostRoute', 'L2Driver', 'VNET'];
