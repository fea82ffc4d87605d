/**
 * The validated records the HNS store keeps (reference hns-hcs.md §1). Documents are parsed once at
 * the boundary (src/hns/schema) into these; serialisers turn them back into the JSON HNS emits.
 * Records are replaced, never edited in place, except the allocation pools, which the service
 * mutates only in the commit phase of an operation.
 */
import type { JsonObject } from '../core/json.js';
import { formatIp, type IpAddr, type Prefix } from '../addr/ip.js';
import type { IpPool } from '../addr/pool.js';
import type { MacPool } from '../addr/mac.js';
import type { NetworkType, ParsedPolicy } from './policy/contracts.js';

export interface SchemaVersion {
  readonly Major: number;
  readonly Minor: number;
}

export interface DnsRec {
  readonly Domain?: string;
  readonly Search: readonly string[];
  readonly ServerList: readonly string[];
  readonly Options: readonly string[];
}

export interface RouteRec {
  readonly NextHop: string;
  readonly DestinationPrefix: string;
  readonly Metric?: number;
  readonly dest: Prefix;
  readonly nextHop?: IpAddr;
}

export interface IpSubnetRec {
  readonly ID: string;
  readonly IpAddressPrefix: string;
  readonly Flags: number;
}

export interface SubnetRec {
  readonly ID: string;
  readonly IpAddressPrefix: string;
  readonly prefix: Prefix;
  readonly Policies: readonly ParsedPolicy[];
  readonly Routes: readonly RouteRec[];
  readonly Flags: number;
  readonly IpSubnets: readonly IpSubnetRec[];
  /** The gateway (next hop of the subnet's default route), when it lies in the subnet. */
  readonly gateway?: IpAddr;
}

export interface IpamRec {
  readonly Type: 'Static' | 'Dhcp';
  readonly Subnets: readonly SubnetRec[];
}

export interface MacRangeRec {
  readonly StartMacAddress: string;
  readonly EndMacAddress: string;
  readonly start: number;
  readonly end: number;
}

export interface ExtensionRec {
  readonly Id: string;
  readonly IsEnabled: boolean;
}

/**
 * v1 fields a caller gave that have no HCN v2 home, kept so the v1 view echoes them (reference
 * hns-hcs.md §3.1): Azure CNS sends `ManagementIP` and `DNSServerCompartment`; a network-level
 * VLAN/VSID policy stays in the v1 network's `Policies` (the v2 form carries it on every subnet).
 */
export interface V1NetworkExtras {
  readonly ManagementIP?: string;
  readonly DNSServerCompartment?: number;
  readonly NetworkPolicies?: readonly JsonObject[];
}

/** v1 endpoint fields with no v2 home (`EnableInternalDNS`), echoed by the v1 view. */
export interface V1EndpointExtras {
  readonly EnableInternalDNS?: boolean;
}

export interface NetworkRec {
  readonly kind: 'Network';
  readonly ID: string;
  readonly Name: string;
  readonly Type: NetworkType;
  readonly Policies: readonly ParsedPolicy[];
  readonly MacRanges: readonly MacRangeRec[];
  readonly Dns: DnsRec;
  readonly Ipams: readonly IpamRec[];
  readonly Flags: number;
  readonly SchemaVersion: SchemaVersion;
  readonly Extensions: readonly ExtensionRec[];
  /**
   * HNS-populated (Health.Extra): the vSwitch this network sits on — the ID of the network whose
   * creation made it ('' on no switch, not shown) — and the layer it sits on.
   */
  readonly SwitchGuid: string;
  readonly LayeredOn: string;
  /** Set when HNS chose the subnet itself (NAT network created without Ipams). */
  readonly defaultSubnet: boolean;
  /**
   * The distributed-router MAC HNS gives an Overlay network. The v2 view shows it as a
   * `DrMacAddress` policy (with the management IP as `ProviderAddress`) unless the caller gave one;
   * the v1 view as the top-level `DrMacAddress` field (sig-windows-tools#378, rke2#3517).
   */
  readonly DrMacAddress?: string;
  readonly v1Extras?: V1NetworkExtras;
  /** Simulated time (ms) of creation: the v1 `Health.LastUpdateTime`. */
  readonly created: number;
  /** Creation sequence number: enumeration order. */
  readonly seq: number;
}

export interface IpConfigRec {
  readonly IpAddress: string;
  readonly PrefixLength?: number;
  readonly IpSubnetId?: string;
  readonly addr: IpAddr;
  /** Whether the address was taken from (and must be returned to) a subnet pool. */
  readonly pooled: boolean;
  /** Index of the subnet (flattened over Ipams) the address belongs to, or -1. */
  readonly subnet: number;
}

export interface VmPortRec {
  readonly PortId: string;
  readonly VirtualNicName: string;
  readonly VirtualMachineId: string;
}

export interface EndpointRec {
  readonly kind: 'Endpoint';
  readonly ID: string;
  readonly Name: string;
  readonly HostComputeNetwork: string;
  readonly HostComputeNamespace?: string;
  readonly Policies: readonly ParsedPolicy[];
  readonly IpConfigurations: readonly IpConfigRec[];
  readonly Dns: DnsRec;
  readonly Routes: readonly RouteRec[];
  readonly MacAddress: string;
  readonly mac: number;
  readonly macPooled: boolean;
  readonly Flags: number;
  readonly SchemaVersion: SchemaVersion;
  readonly VmPort?: VmPortRec;
  /** v1 attachments: container IDs sharing this endpoint (EndpointAttachDetachRequest). */
  readonly SharedContainers: readonly string[];
  readonly v1Extras: V1EndpointExtras | undefined;
  /** Simulated time (ms) of creation: the v1 `Health.LastUpdateTime`. */
  readonly created: number;
  readonly seq: number;
  /**
   * Created through the v1 API (HNSCall `POST /endpoints/`): an HCN schema-2 listing filtered by
   * network does not return it (kubernetes#110591; docs/model.md, "Endpoints").
   */
  readonly createdV1?: true;
}

export type NamespaceType = 'Host' | 'HostDefault' | 'Guest' | 'GuestDefault';

export interface NamespaceResourceRec {
  readonly Type: 'Container' | 'Endpoint';
  readonly ID: string;
}

export interface NamespaceRec {
  readonly kind: 'Namespace';
  readonly ID: string;
  readonly NamespaceId: number;
  readonly Type?: NamespaceType;
  readonly Resources: readonly NamespaceResourceRec[];
  readonly SchemaVersion: SchemaVersion;
  /** Created through the v1 API with IsDefault. */
  readonly IsDefault: boolean;
  readonly seq: number;
}

export interface LbPortMappingRec {
  readonly Protocol: number;
  readonly InternalPort: number;
  readonly ExternalPort: number;
  readonly DistributionType: number;
  readonly Flags: number;
}

export interface LoadBalancerRec {
  readonly kind: 'LoadBalancer';
  readonly ID: string;
  readonly HostComputeEndpoints: readonly string[];
  readonly SourceVIP: string;
  readonly FrontendVIPs: readonly string[];
  readonly PortMappings: readonly LbPortMappingRec[];
  readonly SchemaVersion: SchemaVersion;
  readonly Flags: number;
  readonly HostComputeNetwork?: string;
  /**
   * Each backend's addresses (its IpConfigurations, in order), in the order of
   * `HostComputeEndpoints`, as they were when the load balancer was created or modified: the DIPs
   * its VFP rules hold. They stay when a backend endpoint is deleted, so a stale load balancer
   * still redirects to the address its backend had (docs/model.md, "Load balancers").
   */
  readonly dips: readonly (readonly string[])[];
  readonly seq: number;
}

export interface SdnRouteSettingRec {
  readonly DestinationPrefix: string;
  readonly NextHop: string;
  readonly NeedEncap: boolean;
  readonly AutomaticEndpointMonitor: boolean;
}

export interface SdnRouteRec {
  readonly kind: 'SdnRoute';
  readonly ID: string;
  readonly HostComputeEndpoints: readonly string[];
  readonly Setting: readonly SdnRouteSettingRec[];
  readonly SchemaVersion: SchemaVersion;
  readonly HostComputeNetwork?: string;
  readonly seq: number;
}

/** v1 policy lists (`/policylists`): references to endpoints and raw v1 policies. */
export interface PolicyListRec {
  readonly kind: 'PolicyList';
  readonly ID: string;
  readonly References: readonly string[];
  readonly Policies: readonly JsonObject[];
  /** Each referenced endpoint's addresses when the list was created (as `LoadBalancerRec.dips`). */
  readonly dips: readonly (readonly string[])[];
  readonly seq: number;
}

/** Per-network allocation state, mutated only in commit phases. */
export interface NetworkAlloc {
  /** The network's subnets, flattened over Ipams in order (derived; kept beside the pools). */
  readonly subnets: SubnetRec[];
  /** One pool per subnet, flattened over Ipams in order. */
  readonly pools: IpPool[];
  readonly macs: MacPool;
  /** Unique claims (PortMapping host ports) → endpoint ID. */
  readonly claims: Map<string, string>;
  /** Endpoint IDs of the network, in creation order. */
  readonly endpoints: Set<string>;
}

/** A network's subnets, flattened over its Ipams in order (the order of its pools). */
export function subnetsOf(n: Pick<NetworkRec, 'Ipams'>): SubnetRec[] {
  const out: SubnetRec[] = [];
  for (const ipam of n.Ipams) for (const sub of ipam.Subnets) out.push(sub);
  return out;
}

export type AnyRec = NetworkRec | EndpointRec | NamespaceRec | LoadBalancerRec | SdnRouteRec | PolicyListRec;

/**
 * The addresses a load balancer or policy list keeps for a backend it names (its DIPs): the
 * endpoint's IpConfigurations, in order, written canonically.
 */
export function dipsOf(e: Pick<EndpointRec, 'IpConfigurations'>): string[] {
  return e.IpConfigurations.map((c) => formatIp(c.addr));
}
