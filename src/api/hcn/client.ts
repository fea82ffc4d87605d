/**
 * The typed HCN client: hcsshim's `hcn` package as one object bound to a transport (DESIGN "The
 * typed client and the flat API"; reference hns-hcs.md §0, §4, §5.1). Every method is async and
 * every call goes through `transport.call`, so fault and latency middleware sees all of them.
 *
 *   const hcn = HcnClient.forHost(createHost({ profile: 'ws2022' }));
 *   const net = await hcn.createNetwork({ Name: 'nat', Type: 'NAT', SchemaVersion: { Major: 2, Minor: 0 } });
 *   const ep = await net.createEndpoint({ Name: 'pod-eth0' });
 *   await ep.namespaceAttach(ns.ID);
 */
import { HnsError, isFailureCode } from '../../core/errors.js';
import { isJsonObject, type Json } from '../../core/json.js';
import { FEATURES } from '../../hns/versions.js';
import { openFailed, type FlatApiMethod, type HcnResult } from '../flat.js';
import type { HnsTransport } from '../transport.js';
import { TRANSPORT_FAILURES } from '../faults.js';
import type { Invoker } from './calls.js';
import {
  createEndpoint,
  endpointStatsFromJSON,
  getEndpointByID,
  findEndpointByName,
  getEndpointByName,
  HostComputeEndpoint,
  listEndpoints,
  listEndpointsOfNetwork,
  listEndpointsQuery,
  modifyEndpointSettings,
  type HNSEndpointStats,
  type HostComputeEndpointDoc,
} from './endpoint.js';
import { HcnClientError, HcnError, PlatformNotSupportedError } from './errors.js';
import { VERSION_SPEC, type HostComputeQuery } from './hcn.js';
import {
  addLoadBalancer,
  getLoadBalancerByID,
  HostComputeLoadBalancer,
  listLoadBalancers,
  listLoadBalancersQuery,
  type HostComputeLoadBalancerDoc,
} from './loadbalancer.js';
import { pick, unmarshal } from './marshal.js';
import {
  addNamespaceEndpoint,
  findNamespaceByID,
  getNamespaceByID,
  getNamespaceContainerIds,
  getNamespaceEndpointIds,
  HostComputeNamespace,
  listNamespaces,
  listNamespacesQuery,
  modifyNamespaceSettings,
  newNamespace,
  removeNamespaceEndpoint,
  type HostComputeNamespaceDoc,
} from './namespace.js';
import {
  getNetworkByID,
  getNetworkByName,
  HostComputeNetwork,
  listNetworks,
  listNetworksQuery,
  modifyNetwork,
  type HostComputeNetworkDoc,
} from './network.js';
import type {
  LoadBalancerFlags,
  LoadBalancerPortMappingFlags,
  ModifyEndpointSettingRequest,
  ModifyNamespaceSettingRequest,
  ModifyNetworkSettingRequest,
  NamespaceType,
} from './policy.js';
import {
  addRoute,
  getRouteByID,
  HostComputeRoute,
  listRoutes,
  listRoutesQuery,
  type HostComputeRouteDoc,
} from './route.js';
import {
  FEATURE_CHECKERS,
  featuresOfVersion,
  hasFeature,
  noFeatures,
  type FeatureChecker,
  type Globals,
  type SupportedFeatures,
} from './support.js';

export interface HcnClientOptions {
  /**
   * Plays the pod shim for `HostComputeNamespace.sync()` on Guest namespaces (hcsshim sends the
   * shim a `sync` request). Without it, sync succeeds as hcsshim does when no shim is registered.
   */
  readonly syncGuestNamespace?: (namespace: HostComputeNamespace) => Promise<void>;
}

/**
 * The name hcsshim gives a failing call: `hcnCreateEndpoint`, `hcnQueryRouteProperties`, `hnsCall`;
 * with `open`, the `hcnOpen<Kind>` that hcsshim runs first for a Modify or a Query by ID, and the
 * `hcnOpenNetwork` before an endpoint create (the named object was missing: `hcnOpenNamespace failed
 * in Win32: Element not found. (0x490)`). A Delete takes the GUID itself, with no Open.
 */
export function callTitle(method: FlatApiMethod, open = false): string {
  if (method === 'HNSCall') return 'hnsCall';
  if (open && method === 'HcnCreateEndpoint') return 'hcnOpenNetwork';
  const kind = open
    ? /^Hcn(?:Modify|Query)(Network|Endpoint|Namespace|LoadBalancer|SdnRoute)/.exec(method)
    : null;
  if (kind) return 'hcnOpen' + kind[1]!.replace('SdnRoute', 'Route');
  return 'hcn' + method.slice(3).replace('SdnRoute', 'Route');
}

export class HcnClient implements Invoker {
  readonly #transport: HnsTransport;
  readonly #options: HcnClientOptions;
  #features: Promise<SupportedFeatures> | undefined;

  constructor(transport: HnsTransport, options: HcnClientOptions = {}) {
    this.#transport = transport;
    this.#options = options;
  }

  /** A client calling a simulated host through `host.transport` (faults and latency included). */
  static forHost(host: { readonly transport: HnsTransport }, options: HcnClientOptions = {}): HcnClient {
    return new HcnClient(host.transport, options);
  }

  get transport(): HnsTransport {
    return this.#transport;
  }

  get syncGuestNamespace(): HcnClientOptions['syncGuestNamespace'] {
    return this.#options.syncGuestNamespace;
  }

  /** One flat call; a failure becomes an HcnError named after the hcsshim wrapper that made it. */
  async invoke(method: FlatApiMethod, ...args: unknown[]): Promise<Json> {
    let r: HcnResult<Json>;
    try {
      r = await this.#transport.call({ method, args });
    } catch (e) {
      if (e instanceof HnsError && !(e instanceof HcnError))
        throw new HcnError(callTitle(method), e.hresult, { detail: e.message });
      throw e;
    }
    if (!r.ok) {
      // no ErrorRecord comes back when the RPC never reached the service (it is down)
      const record = method !== 'HNSCall' && !TRANSPORT_FAILURES.has(r.name);
      throw new HcnError(callTitle(method, openFailed(r)), r.hr, {
        detail: r.message,
        ...(record ? { record: r.errorRecord } : {}),
      });
    }
    return r.result;
  }

  // ───────────────────────────── networks ─────────────────────────────

  listNetworks(): Promise<HostComputeNetwork[]> {
    return listNetworks(this);
  }
  listNetworksQuery(query: HostComputeQuery): Promise<HostComputeNetwork[]> {
    return listNetworksQuery(this, query);
  }
  getNetworkByID(networkId: string): Promise<HostComputeNetwork> {
    return getNetworkByID(this, networkId);
  }
  /** The first network with this name; `NetworkNotFoundError` if none. */
  getNetworkByName(networkName: string): Promise<HostComputeNetwork> {
    return getNetworkByName(this, networkName);
  }
  /** `new HostComputeNetwork(hcn, doc).create()`, client-side checks included. */
  createNetwork(doc: HostComputeNetworkDoc): Promise<HostComputeNetwork> {
    return new HostComputeNetwork(this, doc).create();
  }
  /** Modify a network by ID; returns it as queried after. */
  modifyNetworkSettings(
    networkId: string,
    request: ModifyNetworkSettingRequest,
  ): Promise<HostComputeNetwork> {
    return modifyNetwork(this, networkId, request);
  }

  // ───────────────────────────── endpoints ─────────────────────────────

  listEndpoints(): Promise<HostComputeEndpoint[]> {
    return listEndpoints(this);
  }
  listEndpointsQuery(query: HostComputeQuery): Promise<HostComputeEndpoint[]> {
    return listEndpointsQuery(this, query);
  }
  /** Endpoints whose network is `networkId` (filter `{"VirtualNetwork":id}`). */
  listEndpointsOfNetwork(networkId: string): Promise<HostComputeEndpoint[]> {
    return listEndpointsOfNetwork(this, networkId);
  }
  getEndpointByID(endpointId: string): Promise<HostComputeEndpoint> {
    return getEndpointByID(this, endpointId);
  }
  /** The first endpoint with this name (endpoint names are not unique). */
  getEndpointByName(endpointName: string): Promise<HostComputeEndpoint> {
    return getEndpointByName(this, endpointName);
  }
  /** `getEndpointByName`, undefined instead of its not-found error (no error built to be dropped). */
  findEndpointByName(endpointName: string): Promise<HostComputeEndpoint | undefined> {
    return findEndpointByName(this, endpointName);
  }
  /** `new HostComputeEndpoint(hcn, doc).create()`: the network is `doc.HostComputeNetwork`. */
  createEndpoint(doc: HostComputeEndpointDoc): Promise<HostComputeEndpoint> {
    return new HostComputeEndpoint(this, doc).create();
  }
  /** Create an endpoint on `networkId` without the HostComputeNamespace check (as network.CreateEndpoint). */
  createEndpointOnNetwork(networkId: string, doc: HostComputeEndpointDoc): Promise<HostComputeEndpoint> {
    const ep = new HostComputeEndpoint(this, { ...doc, HostComputeNetwork: networkId });
    return createEndpoint(this, networkId, ep.toJSON());
  }
  /** hcsshim's package-level `ModifyEndpointSettings`. */
  async modifyEndpointSettings(endpointId: string, request: ModifyEndpointSettingRequest): Promise<void> {
    await modifyEndpointSettings(this, endpointId, request);
  }

  /**
   * hcsshim's root `GetHNSEndpointStats(endpointName)` (`internal/hns.GetHNSEndpointStats`): v1
   * `HNSCall("GET", "/endpointstats/<id>")`; the argument is the endpoint ID despite its Go name,
   * put in the path unchecked, as hcsshim does. A `Success:false` answer rejects with hcsshim's
   * `hns failed with error : <Error>`, an `HcnClientError` whose code is the response's `ErrorCode`
   * (our choice: hcsshim's is a plain error, so `isNotFoundError` is false for it there as here).
   */
  async getHNSEndpointStats(endpointId: string): Promise<HNSEndpointStats> {
    const response = await this.invoke('HNSCall', 'GET', `/endpointstats/${endpointId}`, '');
    if (!isJsonObject(response)) {
      throw new HcnClientError(
        'E_FAIL',
        `hnsCall returned ${JSON.stringify(response)}, not a response object`,
      );
    }
    if (pick(response, 'Success') !== true) {
      const err = pick(response, 'Error');
      const code = pick(response, 'ErrorCode');
      throw new HcnClientError(
        typeof code === 'number' && isFailureCode(code) ? code : 'E_FAIL',
        `hns failed with error : ${typeof err === 'string' ? err : ''}`,
      );
    }
    return endpointStatsFromJSON(pick(response, 'Output'));
  }

  // ───────────────────────────── namespaces ─────────────────────────────

  listNamespaces(): Promise<HostComputeNamespace[]> {
    return listNamespaces(this);
  }
  listNamespacesQuery(query: HostComputeQuery): Promise<HostComputeNamespace[]> {
    return listNamespacesQuery(this, query);
  }
  getNamespaceByID(namespaceId: string): Promise<HostComputeNamespace> {
    return getNamespaceByID(this, namespaceId);
  }
  /** `getNamespaceByID`, undefined instead of its not-found error (no error built to be dropped). */
  findNamespaceByID(namespaceId: string): Promise<HostComputeNamespace | undefined> {
    return findNamespaceByID(this, namespaceId);
  }
  getNamespaceEndpointIds(namespaceId: string): Promise<string[]> {
    return getNamespaceEndpointIds(this, namespaceId);
  }
  getNamespaceContainerIds(namespaceId: string): Promise<string[]> {
    return getNamespaceContainerIds(this, namespaceId);
  }
  addNamespaceEndpoint(namespaceId: string, endpointId: string): Promise<void> {
    return addNamespaceEndpoint(this, namespaceId, endpointId);
  }
  removeNamespaceEndpoint(namespaceId: string, endpointId: string): Promise<void> {
    return removeNamespaceEndpoint(this, namespaceId, endpointId);
  }
  /** hcsshim's package-level `ModifyNamespaceSettings`. */
  async modifyNamespaceSettings(namespaceId: string, request: ModifyNamespaceSettingRequest): Promise<void> {
    await modifyNamespaceSettings(this, namespaceId, request);
  }
  /** `{Type, SchemaVersion 2.0}`, not yet created. */
  newNamespace(nsType: NamespaceType | string): HostComputeNamespace {
    return newNamespace(this, nsType);
  }
  createNamespace(doc: HostComputeNamespaceDoc): Promise<HostComputeNamespace> {
    return new HostComputeNamespace(this, doc).create();
  }

  // ───────────────────────────── load balancers ─────────────────────────────

  listLoadBalancers(): Promise<HostComputeLoadBalancer[]> {
    return listLoadBalancers(this);
  }
  listLoadBalancersQuery(query: HostComputeQuery): Promise<HostComputeLoadBalancer[]> {
    return listLoadBalancersQuery(this, query);
  }
  getLoadBalancerByID(loadBalancerId: string): Promise<HostComputeLoadBalancer> {
    return getLoadBalancerByID(this, loadBalancerId);
  }
  createLoadBalancer(doc: HostComputeLoadBalancerDoc): Promise<HostComputeLoadBalancer> {
    return new HostComputeLoadBalancer(this, doc).create();
  }
  /** hcsshim's `AddLoadBalancer(endpoints, flags, portMappingFlags, sourceVIP, frontendVIPs, protocol, internalPort, externalPort)`. */
  addLoadBalancer(
    endpoints: readonly { readonly ID: string }[],
    flags: LoadBalancerFlags,
    portMappingFlags: LoadBalancerPortMappingFlags,
    sourceVIP: string,
    frontendVIPs: readonly string[],
    protocol: number,
    internalPort: number,
    externalPort: number,
  ): Promise<HostComputeLoadBalancer> {
    return addLoadBalancer(
      this,
      endpoints,
      flags,
      portMappingFlags,
      sourceVIP,
      frontendVIPs,
      protocol,
      internalPort,
      externalPort,
    );
  }

  // ───────────────────────────── SDN routes ─────────────────────────────

  listRoutes(): Promise<HostComputeRoute[]> {
    return listRoutes(this);
  }
  listRoutesQuery(query: HostComputeQuery): Promise<HostComputeRoute[]> {
    return listRoutesQuery(this, query);
  }
  getRouteByID(routeId: string): Promise<HostComputeRoute> {
    return getRouteByID(this, routeId);
  }
  createRoute(doc: HostComputeRouteDoc): Promise<HostComputeRoute> {
    return new HostComputeRoute(this, doc).create();
  }
  /** hcsshim's `AddRoute(endpoints, destinationPrefix, nextHop, needEncapsulation)`. */
  addRoute(
    endpoints: readonly { readonly ID: string }[],
    destinationPrefix: string,
    nextHop: string,
    needEncapsulation: boolean,
  ): Promise<HostComputeRoute> {
    return addRoute(this, endpoints, destinationPrefix, nextHop, needEncapsulation);
  }

  // ───────────────────────────── globals and features ─────────────────────────────

  /** The HNS version, through the v1 `HNSCall("GET", "/globals/version")` as hcsshim does. */
  async getGlobals(): Promise<Globals> {
    const response = await this.invoke('HNSCall', 'GET', '/globals/version', '');
    if (!isJsonObject(response)) {
      throw new HcnClientError(
        'E_FAIL',
        `hnsCall returned ${JSON.stringify(response)}, not a response object`,
      );
    }
    if (pick(response, 'Success') !== true) {
      const err = pick(response, 'Error');
      throw new HcnClientError('E_FAIL', `HNS failed with error : ${typeof err === 'string' ? err : ''}`);
    }
    const v = unmarshal(VERSION_SPEC, pick(response, 'Output')) as { Major?: number; Minor?: number };
    return { Version: { Major: v.Major ?? 0, Minor: v.Minor ?? 0 } };
  }

  /**
   * The features of this HNS, queried once per client (hcsshim: once per process, sync.Once):
   * later calls return the first outcome, failure included. A failed version query gives
   * `failed to query HCN version number: this is expected on pre 1803 builds.: <cause>`.
   */
  getCachedSupportedFeatures(): Promise<SupportedFeatures> {
    this.#features ??= this.#querySupportedFeatures();
    return this.#features;
  }

  /** Alias of `getCachedSupportedFeatures`. */
  supportedFeatures(): Promise<SupportedFeatures> {
    return this.getCachedSupportedFeatures();
  }

  /** Deprecated in hcsshim: the cached features, or all false when the version query failed. */
  async getSupportedFeatures(): Promise<SupportedFeatures> {
    try {
      return await this.getCachedSupportedFeatures();
    } catch {
      return noFeatures();
    }
  }

  async #querySupportedFeatures(): Promise<SupportedFeatures> {
    let globals: Globals;
    try {
      globals = await this.getGlobals();
    } catch (e) {
      const cause = e instanceof Error ? e.message : String(e);
      throw new HcnClientError(
        e instanceof HnsError ? e.hresult : 'E_FAIL',
        `failed to query HCN version number: this is expected on pre 1803 builds.: ${cause}`,
        { cause: e },
      );
    }
    return featuresOfVersion(globals.Version);
  }

  async #check(checker: FeatureChecker): Promise<void> {
    const feature = FEATURE_CHECKERS[checker];
    const supported = await this.getCachedSupportedFeatures();
    if (!hasFeature(supported, feature)) throw new PlatformNotSupportedError(FEATURES[feature].display);
  }

  v2ApiSupported(): Promise<void> {
    return this.#check('v2ApiSupported');
  }
  remoteSubnetSupported(): Promise<void> {
    return this.#check('remoteSubnetSupported');
  }
  hostRouteSupported(): Promise<void> {
    return this.#check('hostRouteSupported');
  }
  dsrSupported(): Promise<void> {
    return this.#check('dsrSupported');
  }
  slash32EndpointPrefixesSupported(): Promise<void> {
    return this.#check('slash32EndpointPrefixesSupported');
  }
  aclSupportForProtocol252Supported(): Promise<void> {
    return this.#check('aclSupportForProtocol252Supported');
  }
  sessionAffinitySupported(): Promise<void> {
    return this.#check('sessionAffinitySupported');
  }
  ipv6DualStackSupported(): Promise<void> {
    return this.#check('ipv6DualStackSupported');
  }
  setPolicySupported(): Promise<void> {
    return this.#check('setPolicySupported');
  }
  vxlanPortSupported(): Promise<void> {
    return this.#check('vxlanPortSupported');
  }
  l4proxyPolicySupported(): Promise<void> {
    return this.#check('l4proxyPolicySupported');
  }
  l4WfpProxyPolicySupported(): Promise<void> {
    return this.#check('l4WfpProxyPolicySupported');
  }
  tierAclPolicySupported(): Promise<void> {
    return this.#check('tierAclPolicySupported');
  }
  networkACLPolicySupported(): Promise<void> {
    return this.#check('networkACLPolicySupported');
  }
  nestedIpSetSupported(): Promise<void> {
    return this.#check('nestedIpSetSupported');
  }
  disableHostPortSupported(): Promise<void> {
    return this.#check('disableHostPortSupported');
  }
  modifyLoadbalancerSupported(): Promise<void> {
    return this.#check('modifyLoadbalancerSupported');
  }
  accelnetSupported(): Promise<void> {
    return this.#check('accelnetSupported');
  }
}
