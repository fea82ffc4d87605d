/**
 * Policy documents, request types and the enumerations of the HCN schema, after hcsshim's
 * `hcn/hcnpolicy.go` and the enums scattered through its resource files (reference hns-hcs.md
 * §1, §2). Settings travel as raw JSON (`json.RawMessage` in Go); the interfaces type them.
 */
import type { Json } from '../../core/json.js';
import { EndpointFlags } from '../../hns/schema/endpoint.js';
import { NetworkFlags, SubnetFlags } from '../../hns/schema/network.js';

type ValueOf<T> = T[keyof T];

// ───────────────────────────── requests ─────────────────────────────

/** Operations on the settings of a network, endpoint or namespace. */
export const RequestType = { Add: 'Add', Remove: 'Remove', Update: 'Update', Refresh: 'Refresh' } as const;
export type RequestType = ValueOf<typeof RequestType>;

export const NetworkResourceType = { Policy: 'Policy', DNS: 'DNS', Extension: 'Extension' } as const;
export type NetworkResourceType = ValueOf<typeof NetworkResourceType>;

export const EndpointResourceType = { Policy: 'Policy', Port: 'Port' } as const;
export type EndpointResourceType = ValueOf<typeof EndpointResourceType>;

export const NamespaceResourceType = { Container: 'Container', Endpoint: 'Endpoint' } as const;
export type NamespaceResourceType = ValueOf<typeof NamespaceResourceType>;

export interface ModifyNetworkSettingRequest {
  ResourceType?: NetworkResourceType | string;
  RequestType?: RequestType | string;
  Settings?: Json;
}

export interface ModifyEndpointSettingRequest {
  ResourceType?: EndpointResourceType | string;
  RequestType?: RequestType | string;
  Settings?: Json;
}

export interface ModifyNamespaceSettingRequest {
  ResourceType?: NamespaceResourceType | string;
  RequestType?: RequestType | string;
  Settings?: Json;
}

export interface PolicyNetworkRequest {
  Policies?: NetworkPolicy[];
}

export interface PolicyEndpointRequest {
  Policies?: EndpointPolicy[];
}

/** Settings of an endpoint `Port` request: a switch port for a VM NIC. */
export interface VmEndpointRequest {
  PortId?: string;
  VirtualNicName?: string;
  VirtualMachineId?: string;
}

// ───────────────────────────── networks ─────────────────────────────

export const NetworkType = {
  NAT: 'NAT',
  Transparent: 'Transparent',
  L2Bridge: 'L2Bridge',
  L2Tunnel: 'L2Tunnel',
  ICS: 'ICS',
  Private: 'Private',
  Overlay: 'Overlay',
} as const;
export type NetworkType = ValueOf<typeof NetworkType>;

/** hcsshim defines None, EnableNonPersistent, DisableHostPort and EnableIov; the rest from the schema. */
export { NetworkFlags, SubnetFlags };
export type NetworkFlags = number;

export type SubnetFlags = number;

export const NetworkPolicyType = {
  SourceMacAddress: 'SourceMacAddress',
  NetAdapterName: 'NetAdapterName',
  VSwitchExtension: 'VSwitchExtension',
  DrMacAddress: 'DrMacAddress',
  AutomaticDNS: 'AutomaticDNS',
  InterfaceConstraint: 'InterfaceConstraint',
  ProviderAddress: 'ProviderAddress',
  RemoteSubnetRoute: 'RemoteSubnetRoute',
  VxlanPort: 'VxlanPort',
  HostRoute: 'HostRoute',
  SetPolicy: 'SetPolicy',
  NetworkL4Proxy: 'L4Proxy',
  LayerConstraint: 'LayerConstraint',
  NetworkACL: 'NetworkACL',
} as const;
export type NetworkPolicyType = ValueOf<typeof NetworkPolicyType>;

export interface NetworkPolicy {
  Type: NetworkPolicyType | string;
  Settings?: Json;
}

export const SubnetPolicyType = { VLAN: 'VLAN', VSID: 'VSID' } as const;
export type SubnetPolicyType = ValueOf<typeof SubnetPolicyType>;

export interface SubnetPolicy {
  Type: SubnetPolicyType | string;
  Settings?: Json;
}

// ───────────────────────────── endpoints ─────────────────────────────

/** hcsshim defines None and RemoteEndpoint; the rest from microsoft/SDN hns.v2.psm1. */
export { EndpointFlags };
export type EndpointFlags = number;

export const EndpointPolicyType = {
  PortMapping: 'PortMapping',
  ACL: 'ACL',
  QOS: 'QOS',
  L2Driver: 'L2Driver',
  OutBoundNAT: 'OutBoundNAT',
  SDNRoute: 'SDNRoute',
  L4Proxy: 'L4Proxy',
  L4WFPPROXY: 'L4WFPPROXY',
  PortName: 'PortName',
  EncapOverhead: 'EncapOverhead',
  IOV: 'Iov',
  NetworkProviderAddress: 'ProviderAddress',
  NetworkInterfaceConstraint: 'InterfaceConstraint',
  TierAcl: 'TierAcl',
} as const;
export type EndpointPolicyType = ValueOf<typeof EndpointPolicyType>;

export interface EndpointPolicy {
  Type: EndpointPolicyType | string;
  Settings?: Json;
}

// ───────────────────────────── namespaces ─────────────────────────────

export const NamespaceType = {
  Host: 'Host',
  HostDefault: 'HostDefault',
  Guest: 'Guest',
  GuestDefault: 'GuestDefault',
} as const;
export type NamespaceType = ValueOf<typeof NamespaceType>;

// ───────────────────────────── load balancers ─────────────────────────────

export const LoadBalancerFlags = { None: 0, DSR: 1, IPv6: 2 } as const;
export type LoadBalancerFlags = number;

/** hcsshim's five; `VipExternalIP` (16) is what kube-proxy also sends. */
export const LoadBalancerPortMappingFlags = {
  None: 0,
  ILB: 1,
  LocalRoutedVIP: 2,
  UseMux: 4,
  PreserveDIP: 8,
  VipExternalIP: 16,
} as const;
export type LoadBalancerPortMappingFlags = number;

export const LoadBalancerDistribution = { None: 0, SourceIPProtocol: 1, SourceIP: 2 } as const;
export type LoadBalancerDistribution = number;

// ───────────────────────────── policy settings ─────────────────────────────

/** hcsshim: None, LocalRoutedVip, IPv6; `ExternalPortReserved` (4) from microsoft/SDN. */
export const NatFlags = { None: 0, LocalRoutedVip: 1, IPv6: 2, ExternalPortReserved: 4 } as const;
export type NatFlags = number;

export const ActionType = { Allow: 'Allow', Block: 'Block', Pass: 'Pass' } as const;
export type ActionType = ValueOf<typeof ActionType>;

export const DirectionType = { In: 'In', Out: 'Out' } as const;
export type DirectionType = ValueOf<typeof DirectionType>;

/** Host = WFP (Windows Firewall) rules, Switch = VFP rules. */
export const RuleType = { Host: 'Host', Switch: 'Switch' } as const;
export type RuleType = ValueOf<typeof RuleType>;

export const ProtocolType = { Unknown: 0, ICMPv4: 1, IGMP: 2, TCP: 6, UDP: 17, ICMPv6: 58 } as const;
export type ProtocolType = number;

export const SetPolicyType = { IpSet: 'IPSET', NestedIpSet: 'NESTEDIPSET' } as const;
export type SetPolicyType = ValueOf<typeof SetPolicyType>;

export interface PortMappingPolicySetting {
  Protocol?: number;
  InternalPort?: number;
  ExternalPort?: number;
  VIP?: string;
  Flags?: NatFlags;
}

export interface AclPolicySetting {
  Protocols?: string;
  Action: ActionType;
  Direction: DirectionType;
  LocalAddresses?: string;
  RemoteAddresses?: string;
  LocalPorts?: string;
  RemotePorts?: string;
  RuleType?: RuleType;
  Priority?: number;
}

export type NetworkACLPolicySetting = AclPolicySetting;

export interface QosPolicySetting {
  MaximumOutgoingBandwidthInBytes: number;
}

export interface OutboundNatPolicySetting {
  VirtualIP?: string;
  Exceptions?: string[];
  Destinations?: string[];
  Flags?: NatFlags;
  MaxPortPoolUsage?: number;
}

export interface SDNRoutePolicySetting {
  DestinationPrefix?: string;
  NextHop?: string;
  NeedEncap?: boolean;
}

export interface FiveTuple {
  Protocols?: string;
  LocalAddresses?: string;
  RemoteAddresses?: string;
  LocalPorts?: string;
  RemotePorts?: string;
  Priority?: number;
}

export interface ProxyExceptions {
  IpAddressExceptions?: string[];
  PortExceptions?: string[];
}

export interface L4WfpProxyPolicySetting {
  InboundProxyPort?: string;
  OutboundProxyPort?: string;
  FilterTuple: FiveTuple;
  UserSID?: string;
  InboundExceptions: ProxyExceptions;
  OutboundExceptions: ProxyExceptions;
}

export interface PortnameEndpointPolicySetting {
  Name?: string;
}

export interface EncapOverheadEndpointPolicySetting {
  Overhead?: number;
}

export interface IovPolicySetting {
  IovOffloadWeight?: number;
  QueuePairsRequested?: number;
  InterruptModeration?: number;
}

export interface ProviderAddressEndpointPolicySetting {
  ProviderAddress?: string;
}

export interface InterfaceConstraintPolicySetting {
  InterfaceGuid?: string;
  InterfaceLuid?: number;
  InterfaceIndex?: number;
  InterfaceMediaType?: number;
  InterfaceAlias?: string;
  InterfaceDescription?: string;
}

export interface SourceMacAddressNetworkPolicySetting {
  SourceMacAddress?: string;
}

export interface NetAdapterNameNetworkPolicySetting {
  NetworkAdapterName?: string;
}

export interface ProviderAddressNetworkPolicySetting {
  ProviderAddress?: string;
}

export interface VSwitchExtensionNetworkPolicySetting {
  ExtensionID?: string;
  Enable?: boolean;
}

export interface DrMacAddressNetworkPolicySetting {
  Address?: string;
}

export interface AutomaticDNSNetworkPolicySetting {
  Enable?: boolean;
}

export interface LayerConstraintNetworkPolicySetting {
  LayerId?: string;
}

export interface VlanPolicySetting {
  IsolationId: number;
}

export interface VsidPolicySetting {
  IsolationId: number;
}

export interface RemoteSubnetRoutePolicySetting {
  DestinationPrefix: string;
  IsolationId: number;
  ProviderAddress: string;
  DistributedRouterMacAddress: string;
}

/** Go field `Type` is serialised as `PolicyType`. */
export interface SetPolicySetting {
  Id: string;
  Name: string;
  PolicyType: SetPolicyType;
  Values: string;
}

export interface VxlanPortPolicySetting {
  Port: number;
}

/** hcsshim's keys `Exceptions`/`OutboundNAT` (the schema says `ExceptionList`/`OutboundNat`). */
export interface L4ProxyPolicySetting {
  IP?: string;
  Port?: string;
  Protocol?: ProtocolType;
  Exceptions?: string[];
  Destination: string;
  OutboundNAT?: boolean;
}

export interface TierAclRule {
  Id?: string;
  Protocols?: string;
  TierAclRuleAction: ActionType;
  LocalAddresses?: string;
  RemoteAddresses?: string;
  LocalPorts?: string;
  RemotePorts?: string;
  Priority?: number;
}

export interface TierAclPolicySetting {
  Name: string;
  Direction: DirectionType;
  Order: number;
  TierAclRules?: TierAclRule[];
}
