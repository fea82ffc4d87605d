/**
 * The HNS v1 documents of hcsshim's root package (`HNSNetwork`, `HNSEndpoint`, `Subnet`, `MacPool`,
 * `Namespace`; microsoft/hcsshim v0.14.1 `internal/hns/hnsnetwork.go`, `hnsendpoint.go`,
 * `namespace.go`) as loosely typed JSON objects, with Go's field order and `omitempty` rules for
 * requests and Go's decoding (keys case-insensitive, unknown keys dropped) for responses
 * (reference cni-windows.md §2.8).
 */
import type { Json, JsonObject } from '../../core/json.js';
import { marshal, unmarshal, type Spec } from '../hcn/marshal.js';
import { ENDPOINT_STATS_SPEC } from '../hcn/endpoint.js';
import { EndpointState } from '../../hns/schema/endpoint.js';

/** `hns.Subnet`: `AddressPrefix`, `GatewayAddress`, raw `Policies` (VSID, VLAN). */
export interface HNSSubnet {
  AddressPrefix?: string;
  GatewayAddress?: string;
  Policies?: Json[];
}

/** `hns.MacPool`. */
export interface HNSMacPool {
  StartMacAddress?: string;
  EndMacAddress?: string;
}

/** `hns.HNSNetwork` (the Go field `Id` is `ID` in JSON). */
export interface HNSNetwork {
  ID?: string;
  Name?: string;
  Type?: string;
  NetworkAdapterName?: string;
  SourceMac?: string;
  Policies?: Json[];
  MacPools?: HNSMacPool[];
  Subnets?: HNSSubnet[];
  DNSSuffix?: string;
  DNSServerList?: string;
  DNSServerCompartment?: number;
  ManagementIP?: string;
  AutomaticDNS?: boolean;
}

/** `hns.NamespaceResource`: `{Type, Data}` (`Data` raw JSON). */
export interface HNSNamespaceResource {
  Type?: string;
  Data?: Json;
}

/** `hns.Namespace`: a compartment (`ID` is always written). */
export interface HNSNamespace {
  ID?: string;
  IsDefault?: boolean;
  ResourceList?: HNSNamespaceResource[];
  CompartmentId?: number;
}

/** `hns.EndpointState`: 1 Created … 6 Destroyed (the service's own table). */
export { EndpointState };

/** `EndpointState.String()`. */
export const ENDPOINT_STATE_NAMES = [
  'Uninitialized',
  'Created',
  'Attached',
  'AttachedSharing',
  'Detached',
  'Degraded',
  'Destroyed',
] as const;

/** `hns.HNSEndpoint`. `IPAddress`/`IPv6Address` are Go `net.IP`s, written as text. */
export interface HNSEndpoint {
  ID?: string;
  Name?: string;
  VirtualNetwork?: string;
  VirtualNetworkName?: string;
  Policies?: Json[];
  MacAddress?: string;
  IPAddress?: string;
  IPv6Address?: string;
  DNSSuffix?: string;
  DNSServerList?: string;
  DNSDomain?: string;
  GatewayAddress?: string;
  GatewayAddressV6?: string;
  EnableInternalDNS?: boolean;
  DisableICC?: boolean;
  PrefixLength?: number;
  IPv6PrefixLength?: number;
  IsRemoteEndpoint?: boolean;
  EnableLowMetric?: boolean;
  Namespace?: HNSNamespace;
  EncapOverhead?: number;
  SharedContainers?: string[];
  State?: number;
}

/** `hns.EndpointStats` (every field always written). */
export interface HNSEndpointStats {
  BytesReceived: number;
  BytesSent: number;
  DroppedPacketsIncoming: number;
  DroppedPacketsOutgoing: number;
  EndpointId: string;
  InstanceId: string;
  PacketsReceived: number;
  PacketsSent: number;
}

/** `hns.SystemType`. */
export type SystemType = 'Container' | 'VirtualMachine' | 'Host';

/** `hns.EndpointAttachDetachRequest`. */
export interface EndpointAttachDetachRequest {
  ContainerId?: string;
  SystemType: SystemType;
  CompartmentId?: number;
  VirtualNicName?: string;
}

// ───────────────────────────── field specs (Go declaration order) ─────────────────────────────

export const SUBNET_SPEC: Spec = [
  ['AddressPrefix', 'str'],
  ['GatewayAddress', 'str'],
  ['Policies', 'raws'],
];

export const MAC_POOL_SPEC: Spec = [
  ['StartMacAddress', 'str'],
  ['EndMacAddress', 'str'],
];

export const NETWORK_SPEC: Spec = [
  ['ID', 'str'],
  ['Name', 'str'],
  ['Type', 'str'],
  ['NetworkAdapterName', 'str'],
  ['SourceMac', 'str'],
  ['Policies', 'raws'],
  ['MacPools', { objs: MAC_POOL_SPEC }],
  ['Subnets', { objs: SUBNET_SPEC }],
  ['DNSSuffix', 'str'],
  ['DNSServerList', 'str'],
  ['DNSServerCompartment', 'num'],
  ['ManagementIP', 'str'],
  ['AutomaticDNS', 'bool'],
];

export const NAMESPACE_RESOURCE_SPEC: Spec = [
  ['Type', 'strReq'],
  ['Data', 'rawReq'],
];

export const NAMESPACE_SPEC: Spec = [
  ['ID', 'strReq'],
  ['IsDefault', 'bool'],
  ['ResourceList', { objs: NAMESPACE_RESOURCE_SPEC }],
  ['CompartmentId', 'num'],
];

/** `Namespace` is a `*Namespace` with omitempty: written (as a struct) only when set. */
export const ENDPOINT_SPEC: Spec = [
  ['ID', 'str'],
  ['Name', 'str'],
  ['VirtualNetwork', 'str'],
  ['VirtualNetworkName', 'str'],
  ['Policies', 'raws'],
  ['MacAddress', 'str'],
  ['IPAddress', 'str'],
  ['IPv6Address', 'str'],
  ['DNSSuffix', 'str'],
  ['DNSServerList', 'str'],
  ['DNSDomain', 'str'],
  ['GatewayAddress', 'str'],
  ['GatewayAddressV6', 'str'],
  ['EnableInternalDNS', 'bool'],
  ['DisableICC', 'bool'],
  ['PrefixLength', 'num'],
  ['IPv6PrefixLength', 'num'],
  ['IsRemoteEndpoint', 'bool'],
  ['EnableLowMetric', 'bool'],
  ['Namespace', 'raw'],
  ['EncapOverhead', 'num'],
  ['SharedContainers', 'strs'],
  ['State', 'num'],
];

/** The stats document's keys: the HCN client's spec (one `hns.EndpointStats` for both). */
export { ENDPOINT_STATS_SPEC };

export const ATTACH_REQUEST_SPEC: Spec = [
  ['ContainerId', 'str'],
  ['SystemType', 'strReq'],
  ['CompartmentId', 'num'],
  ['VirtualNicName', 'str'],
];

// ───────────────────────────── marshal / unmarshal ─────────────────────────────

/** `json.Marshal(network)`. */
export function marshalNetwork(n: HNSNetwork): JsonObject {
  return marshal(NETWORK_SPEC, n);
}

/** `json.Marshal(endpoint)`: `Namespace` as a struct when set, absent when not. */
export function marshalEndpoint(e: HNSEndpoint): JsonObject {
  const ns = e.Namespace;
  const src = ns && typeof ns === 'object' ? { ...e, Namespace: marshal(NAMESPACE_SPEC, ns) } : e;
  return marshal(ENDPOINT_SPEC, src);
}

/** Decode an HNS network document as Go decodes it into `HNSNetwork`. */
export function unmarshalNetwork(json: Json | undefined): HNSNetwork {
  return unmarshal(NETWORK_SPEC, json) as HNSNetwork;
}

/** Decode an HNS endpoint document as Go decodes it into `HNSEndpoint`. */
export function unmarshalEndpoint(json: Json | undefined): HNSEndpoint {
  const out = unmarshal(ENDPOINT_SPEC, json) as HNSEndpoint & { Namespace?: unknown };
  if ('Namespace' in out) {
    if (out.Namespace === null) delete out.Namespace;
    else out.Namespace = unmarshal(NAMESPACE_SPEC, out.Namespace) as HNSNamespace;
  }
  return out;
}

/** Decode a namespace document into `hns.Namespace`. */
export function unmarshalNamespace(json: Json | undefined): HNSNamespace {
  return unmarshal(NAMESPACE_SPEC, json) as HNSNamespace;
}

/** Decode `/endpointstats/<id>` into `hns.EndpointStats` (absent fields are zero). */
export function unmarshalEndpointStats(json: Json | undefined): HNSEndpointStats {
  const got = unmarshal(ENDPOINT_STATS_SPEC, json);
  return marshal(ENDPOINT_STATS_SPEC, got) as unknown as HNSEndpointStats;
}
