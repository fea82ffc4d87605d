/**
 * The exact JSON documents hcsshim's integration tests send to HNS (microsoft/hcsshim @ 7c9ff7f4,
 * hcn/hcnutils_test.go, hcn/hnsv1_test.go, hcn/hcnv1schema_test.go), written as Go's encoding/json
 * writes them: struct order, struct-typed fields never omitted (`"Dns":{}`, `"Health":{"Extra":{}}`,
 * `"SchemaVersion":{…}`, `"MacPool":{…}`), omitempty scalars and slices left out.
 */
import type { JsonObject } from '../../src/core/json.js';

export const NAT_TEST_NETWORK_NAME = 'GoTestNat';
export const NAT_TEST_ENDPOINT_NAME = 'GoTestNatEndpoint';
export const OVERLAY_TEST_NETWORK_NAME = 'GoTestOverlay';
export const BRIDGE_TEST_NETWORK_NAME = 'GoTestL2Bridge';

/** The all-zero GUID hcsshim passes as `id` to every HcnCreateX (reference §0.1). */
export const ZERO_GUID = '00000000-0000-0000-0000-000000000000';
/** The "random" GUID of TestMissingNetworkById / TestMissingNamespaceById / TestNotFoundError. */
export const RANDOM_GUID = '5f0b1190-63be-4e0c-b974-bd0f55675a42';

const SCHEMA_2_0 = { Major: 2, Minor: 0 };
const TEST_MAC_POOL = {
  Ranges: [{ StartMacAddress: '00-15-5D-52-C0-00', EndMacAddress: '00-15-5D-52-CF-FF' }],
};

/** `CreateSubnet(prefix, nextHop, dest)` — a Subnet with one route. */
export function createSubnet(addressPrefix: string, nextHop: string, destPrefix: string): JsonObject {
  const route: JsonObject = {};
  if (nextHop) route.NextHop = nextHop;
  if (destPrefix) route.DestinationPrefix = destPrefix;
  return { IpAddressPrefix: addressPrefix, Routes: [route] };
}

/** `GetDefaultSubnet()`: 192.168.100.0/24 via 192.168.100.1. */
export function defaultSubnet(): JsonObject {
  return createSubnet('192.168.100.0/24', '192.168.100.1', '0.0.0.0/0');
}

/** `HcnGenerateNATNetwork(subnet)`; `null` = `HcnCreateTestNATNetworkWithSubnet(nil)` (Ipams omitted). */
export function natNetwork(subnet: JsonObject | null = defaultSubnet()): JsonObject {
  const doc: JsonObject = { Name: NAT_TEST_NETWORK_NAME, Type: 'NAT', MacPool: TEST_MAC_POOL, Dns: {} };
  if (subnet) doc.Ipams = [{ Type: 'Static', Subnets: [subnet] }];
  doc.Health = { Extra: {} };
  doc.SchemaVersion = SCHEMA_2_0;
  return doc;
}

/** `CreateTestOverlayNetwork()`: VSID 5000 subnet policy, Flags EnableNonPersistent (8). */
export function overlayNetwork(): JsonObject {
  return {
    Name: OVERLAY_TEST_NETWORK_NAME,
    Type: 'Overlay',
    MacPool: TEST_MAC_POOL,
    Dns: {},
    Ipams: [
      {
        Type: 'Static',
        Subnets: [
          {
            IpAddressPrefix: '192.168.100.0/24',
            Policies: [{ Type: 'VSID', Settings: { IsolationId: 5000 } }],
            Routes: [{ NextHop: '192.168.100.1', DestinationPrefix: '0.0.0.0/0' }],
          },
        ],
      },
    ],
    Flags: 8,
    Health: { Extra: {} },
    SchemaVersion: SCHEMA_2_0,
  };
}

/** `HcnCreateTestL2BridgeNetwork()`: default subnet, Flags EnableNonPersistent (8). */
export function l2BridgeNetwork(): JsonObject {
  return {
    Name: BRIDGE_TEST_NETWORK_NAME,
    Type: 'L2Bridge',
    MacPool: TEST_MAC_POOL,
    Dns: {},
    Ipams: [{ Type: 'Static', Subnets: [defaultSubnet()] }],
    Flags: 8,
    Health: { Extra: {} },
    SchemaVersion: SCHEMA_2_0,
  };
}

/**
 * `HcnCreateTestEndpoint(network)` / `HcnCreateTestEndpointWithPolicies(network, policies)`, after
 * `network.CreateEndpoint` has set `HostComputeNetwork` to the network's ID.
 */
export function testEndpoint(networkId: string, policies: readonly JsonObject[] = []): JsonObject {
  const doc: JsonObject = { Name: NAT_TEST_ENDPOINT_NAME, HostComputeNetwork: networkId };
  if (policies.length) doc.Policies = [...policies];
  doc.Dns = {};
  doc.Health = { Extra: {} };
  doc.SchemaVersion = SCHEMA_2_0;
  return doc;
}

/** `HcnCreateTestNamespace()`: HostDefault, NamespaceId 5. */
export function testNamespace(type = 'HostDefault'): JsonObject {
  return { NamespaceId: 5, Type: type, SchemaVersion: SCHEMA_2_0 };
}

/** `NewNamespace(type)`: `{Type, SchemaVersion 2.0}`. */
export function newNamespace(type: string): JsonObject {
  return { Type: type, SchemaVersion: SCHEMA_2_0 };
}

/** TestEndpointAlreadyExistsError's PortMapping: UDP 45678 → 56789. */
export const PORT_MAPPING_POLICY: JsonObject = {
  Type: 'PortMapping',
  Settings: { Protocol: 17, InternalPort: 45678, ExternalPort: 56789 },
};

function aclSetting(direction: 'In' | 'Out'): JsonObject {
  return {
    Protocols: '6',
    Action: 'Allow',
    Direction: direction,
    LocalAddresses: '192.168.100.0/24,10.0.0.21',
    RemoteAddresses: '192.168.100.0/24,10.0.0.21',
    LocalPorts: '80,8080',
    RemotePorts: '80,8080',
    RuleType: 'Switch',
    Priority: 200,
  };
}

/** `HcnCreateAcls()`: a PolicyEndpointRequest with an inbound and an outbound ACL (reference §2.3). */
export function aclRequest(): JsonObject {
  return {
    Policies: [
      { Type: 'ACL', Settings: aclSetting('In') },
      { Type: 'ACL', Settings: aclSetting('Out') },
    ],
  };
}

/** `HcnCreateNetworkACLs()`: a PolicyNetworkRequest with one inbound NetworkACL. */
export function networkAclRequest(): JsonObject {
  return { Policies: [{ Type: 'NetworkACL', Settings: aclSetting('In') }] };
}

/** `HcnCreateWfpProxyPolicyRequest()`. */
export function wfpProxyRequest(): JsonObject {
  return {
    Policies: [
      {
        Type: 'L4WFPPROXY',
        Settings: {
          InboundProxyPort: '80',
          OutboundProxyPort: '81',
          FilterTuple: { Protocols: '6', RemoteAddresses: '10.0.0.4', Priority: 8 },
          InboundExceptions: { IpAddressExceptions: ['12.0.1.12'], PortExceptions: ['8181'] },
          OutboundExceptions: { IpAddressExceptions: ['10.0.1.12'], PortExceptions: ['81'] },
        },
      },
    ],
  };
}

/** `HcnCreateTierAcls()`: six tiers, three per direction. */
export function tierAclRequest(): JsonObject {
  const tier = (Name: string, Direction: string, Order: number, TierAclRules: JsonObject[]): JsonObject => ({
    Type: 'TierAcl',
    Settings: { Name, Direction, Order, TierAclRules },
  });
  return {
    Policies: [
      tier('TierIn1', 'In', 1001, [
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
      ]),
      tier('TierIn2', 'In', 1002, [
        {
          Id: 'TierIn2Rule1',
          TierAclRuleAction: 'Pass',
          LocalAddresses: '192.168.100.0/24',
          RemoteAddresses: '192.168.100.0/24',
          Priority: 3000,
        },
        {
          Id: 'TierIn2Rule2',
          TierAclRuleAction: 'Pass',
          LocalAddresses: '10.0.0.21',
          RemoteAddresses: '10.0.0.21',
          Priority: 3010,
        },
        { Id: 'TierIn2Rule3', TierAclRuleAction: 'Block', Priority: 3100 },
      ]),
      tier('TierIn3', 'In', 1013, [
        {
          Id: 'TierIn3Rule1',
          Protocols: '17',
          TierAclRuleAction: 'Allow',
          LocalPorts: '8080',
          RemotePorts: '8080',
          Priority: 3000,
        },
        { Id: 'TierIn3Rule2', TierAclRuleAction: 'Block', Priority: 3010 },
      ]),
      tier('TierOut1', 'Out', 1001, [
        {
          Id: 'TierOut1Rule1',
          Protocols: '6',
          TierAclRuleAction: 'Pass',
          LocalAddresses: '192.168.100.0/24,10.0.0.21',
          RemoteAddresses: '192.168.100.0/24,10.0.0.22',
          LocalPorts: '81',
          RemotePorts: '81',
          Priority: 2000,
        },
        { Id: 'TierOut1Rule2', TierAclRuleAction: 'Block', Priority: 2100 },
      ]),
      tier('TierOut2', 'Out', 1002, [
        {
          Id: 'TierOut2Rule1',
          TierAclRuleAction: 'Pass',
          LocalAddresses: '192.168.100.0/24',
          RemoteAddresses: '192.168.100.0/24',
          Priority: 3000,
        },
        {
          Id: 'TierOut2Rule2',
          Protocols: '6',
          TierAclRuleAction: 'Pass',
          LocalAddresses: '10.0.0.21',
          RemoteAddresses: '10.0.0.21',
          LocalPorts: '8082',
          RemotePorts: '8082',
          Priority: 3010,
        },
        { Id: 'TierOut2Rule3', TierAclRuleAction: 'Block', Priority: 3100 },
      ]),
      tier('TierOut3', 'Out', 1013, [
        {
          Id: 'TierOut3Rule1',
          Protocols: '6',
          TierAclRuleAction: 'Allow',
          LocalPorts: '90',
          RemotePorts: '90',
          Priority: 3000,
        },
        { Id: 'TierOut3Rule2', TierAclRuleAction: 'Block', Priority: 3010 },
      ]),
    ],
  };
}

/** `HcnCreateTestRemoteSubnetRoute()` (reference §2.3; every field serialised, no omitempty). */
export function remoteSubnetRouteRequest(): JsonObject {
  return {
    Policies: [
      {
        Type: 'RemoteSubnetRoute',
        Settings: {
          DestinationPrefix: '192.168.2.0/24',
          IsolationId: 5000,
          ProviderAddress: '1.1.1.1',
          DistributedRouterMacAddress: '00-12-34-56-78-9a',
        },
      },
    ],
  };
}

/** `HcnCreateTestHostRoute()`: `{"Type":"HostRoute","Settings":{}}`. */
export function hostRouteRequest(): JsonObject {
  return { Policies: [{ Type: 'HostRoute', Settings: {} }] };
}

/** `ModifyNetworkSettingRequest` / `ModifyEndpointSettingRequest` with ResourceType Policy. */
export function policyModify(
  requestType: 'Add' | 'Remove' | 'Update' | 'Refresh',
  settings: JsonObject,
): JsonObject {
  return { ResourceType: 'Policy', RequestType: requestType, Settings: settings };
}

/** `AddNamespaceEndpoint` / `RemoveNamespaceEndpoint` (reference §2.3). */
export function namespaceEndpointModify(requestType: 'Add' | 'Remove', endpointId: string): JsonObject {
  return { ResourceType: 'Endpoint', RequestType: requestType, Settings: { EndpointId: endpointId } };
}

/** `HcnCreateTestLoadBalancer(endpoint)`: TCP 8080 ← 8090 on 1.1.1.2 and 1.1.1.3, source VIP 10.0.0.1. */
export function testLoadBalancer(endpointIds: readonly string[]): JsonObject {
  return {
    HostComputeEndpoints: [...endpointIds],
    SourceVIP: '10.0.0.1',
    FrontendVIPs: ['1.1.1.2', '1.1.1.3'],
    PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 8090 }],
    SchemaVersion: SCHEMA_2_0,
  };
}

/**
 * `AddLoadBalancer(endpoints, flags, portMappingFlags, "10.0.0.1", ["1.1.1.2","1.1.1.3"], 6, 8080, 80)`
 * as TestAddLoadBalancer / TestAddDSRLoadBalancer / TestAddILBLoadBalancer call it.
 */
export function addLoadBalancerDoc(
  endpointIds: readonly string[],
  flags: number,
  portMappingFlags: number,
): JsonObject {
  const pm: JsonObject = { Protocol: 6, InternalPort: 8080, ExternalPort: 80 };
  if (portMappingFlags) pm.Flags = portMappingFlags;
  const doc: JsonObject = {
    HostComputeEndpoints: [...endpointIds],
    SourceVIP: '10.0.0.1',
    FrontendVIPs: ['1.1.1.2', '1.1.1.3'],
    PortMappings: [pm],
    SchemaVersion: SCHEMA_2_0,
  };
  if (flags) doc.Flags = flags;
  return doc;
}

/** `HcnCreateTestSdnRoute(endpoint)` (NeedEncap false is omitted). */
export function testSdnRoute(endpointIds: readonly string[]): JsonObject {
  return {
    HostComputeEndpoints: [...endpointIds],
    Setting: [{ DestinationPrefix: '169.254.169.254/24', NextHop: '127.10.0.34' }],
    SchemaVersion: SCHEMA_2_0,
  };
}

/** `AddRoute(endpoints, "169.254.169.254/24", "127.10.0.33", false)`. */
export function addRouteDoc(endpointIds: readonly string[]): JsonObject {
  return {
    HostComputeEndpoints: [...endpointIds],
    Setting: [{ DestinationPrefix: '169.254.169.254/24', NextHop: '127.10.0.33' }],
    SchemaVersion: SCHEMA_2_0,
  };
}

// ───────────────────────────── v1 (HNSCall) ─────────────────────────────

/** hnsv1_test.go `CreateTestNetwork()`: `hcsshim.HNSNetwork` NAT with one subnet. */
export function v1TestNetwork(): JsonObject {
  return {
    Name: NAT_TEST_NETWORK_NAME,
    Type: 'NAT',
    Subnets: [{ AddressPrefix: '192.168.100.0/24', GatewayAddress: '192.168.100.1' }],
  };
}

/** hcnv1schema_test.go's v1 network: as `v1TestNetwork` plus a MacPools entry. */
export function v1SchemaNetwork(): JsonObject {
  return {
    Name: NAT_TEST_NETWORK_NAME,
    Type: 'NAT',
    MacPools: [{ StartMacAddress: '00-15-5D-52-C0-00', EndMacAddress: '00-15-5D-52-CF-FF' }],
    Subnets: [{ AddressPrefix: '192.168.100.0/24', GatewayAddress: '192.168.100.1' }],
  };
}

/** `hcsshim.HNSEndpoint{Name, VirtualNetwork}` as `network.CreateEndpoint` sends it. */
export function v1TestEndpoint(networkId: string): JsonObject {
  return { Name: NAT_TEST_ENDPOINT_NAME, VirtualNetwork: networkId };
}

/** `EndpointAttachDetachRequest` of `HostAttach(1)` and `HostDetach()`. */
export const V1_HOST_ATTACH: JsonObject = { SystemType: 'Host', CompartmentId: 1 };
export const V1_HOST_DETACH: JsonObject = { SystemType: 'Host' };

/** TestAccelnetNnvManagementMacAddresses: `HNSNnvManagementMacList` with two addresses. */
export const V1_ACCELNET_MACS: JsonObject = {
  MacAddressList: [{ MacAddress: '00-15-5D-0A-B7-C6' }, { MacAddress: '00-15-5D-38-01-00' }],
};
