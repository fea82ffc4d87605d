/**
 * The typed HCN client, hcsshim's `hcn` package in TypeScript (DESIGN "The typed client and the
 * flat API"): `HcnClient` for the package-level functions, one class per resource, the policy
 * types and enums, the feature table and the error predicates.
 */
export { HcnClient, callTitle, type HcnClientOptions } from './client.js';
export {
  HostComputeNetwork,
  NETWORK_SPEC,
  type HostComputeNetworkDoc,
  type Ipam,
  type MacPool,
  type MacRange,
  type Subnet,
} from './network.js';
export {
  HostComputeEndpoint,
  ENDPOINT_SPEC,
  ENDPOINT_STATS_SPEC,
  endpointStatsFromJSON,
  type HNSEndpointStats,
  type HostComputeEndpointDoc,
  type IpConfig,
} from './endpoint.js';
export {
  HostComputeNamespace,
  NAMESPACE_SPEC,
  type HostComputeNamespaceDoc,
  type NamespaceResource,
  type NamespaceResourceContainer,
  type NamespaceResourceEndpoint,
} from './namespace.js';
export {
  HostComputeLoadBalancer,
  LOAD_BALANCER_SPEC,
  type HostComputeLoadBalancerDoc,
  type LoadBalancerPortMapping,
} from './loadbalancer.js';
export { HostComputeRoute, ROUTE_DOC_SPEC, type HostComputeRouteDoc } from './route.js';
export * from './policy.js';
export {
  defaultQuery,
  filterQuery,
  HostComputeQueryFlags,
  marshalQuery,
  v2SchemaVersion,
  type Dns,
  type ExtraParams,
  type Health,
  type HostComputeQuery,
  type Route,
  type SchemaVersion,
  type Version,
} from './hcn.js';
export * from './support.js';
export * from './errors.js';
export { marshal, unmarshal, type FieldKind, type Spec } from './marshal.js';
