/**
 * The flat API, named after the computenetwork.dll exports (reference hns-hcs.md §0.1): documents in
 * (JSON strings, as on Windows, or plain objects), documents out, failures returned as data — an
 * HRESULT with its registered name, message and ErrorRecord. Handle-free: objects are addressed by
 * ID, and create returns the object as a default query would.
 *
 *   const r = api.HcnCreateNetwork(null, '{"Name":"nat","Type":"NAT"}');
 *   if (r.hr === 0) console.log(r.result.ID);
 */
import { HnsError, hnsError, type ErrorRecord, type HResultLabel } from '../core/errors.js';
import { toJsonObject, type Json, type JsonObject } from '../core/json.js';
import type { HnsService } from '../hns/service.js';
import { argGuid } from '../hns/schema/common.js';
import { serializeEndpoint } from '../hns/schema/endpoint.js';
import { serializeLoadBalancer } from '../hns/schema/loadbalancer.js';
import { serializeNamespace } from '../hns/schema/namespace.js';
import { serializeNetwork } from '../hns/schema/network.js';
import { serializeSdnRoute } from '../hns/schema/route.js';
import { filterGuid, matchesFilter, parseQuery, type ParsedQuery } from '../hns/query.js';
import {
  completeV1Gateways,
  isV1Document,
  v1EndpointExtras,
  v1EndpointToV2,
  v1NetworkExtras,
  v1NetworkToV2,
} from '../hns/v1/convert.js';
import { v1EndpointView, v1NamespaceView, v1NetworkView } from '../hns/v1/views.js';
import { endpointStatsDocument, hnsCall, type EndpointStatsDocument } from '../hns/v1/router.js';
import type { AnyRec, NetworkRec } from '../hns/model.js';
import { parseGuid } from '../core/guid.js';
import { supports } from '../hns/versions.js';

export interface HcnSuccess<T> {
  readonly ok: true;
  readonly hr: 0;
  readonly result: T;
}
export interface HcnFailure {
  readonly ok: false;
  readonly hr: number;
  /** The registered HRESULT name (a hex code only for an unregistered code injected by a fault). */
  readonly name: HResultLabel;
  readonly message: string;
  readonly errorRecord: ErrorRecord;
}
export type HcnResult<T> = HcnSuccess<T> | HcnFailure;

export function isFailure<T>(r: HcnResult<T>): r is HcnFailure {
  return !r.ok;
}

/** An HCN object as a query returns it: any JSON object, with its upper-case GUID `ID`. */
export type HcnDocument = JsonObject & { readonly ID: string };

/**
 * What `HcnQueryEndpointStats` returns: the fields of the v1 `/endpointstats/<id>` document
 * (hcsshim `EndpointStats`). The v2 stats shape is undocumented; reusing the v1 one is our choice.
 */
export type HcnEndpointStats = EndpointStatsDocument;

/** Names of every flat API function (the JSON-RPC methods, with Snapshot/Restore). */
export const FLAT_API_METHODS = [
  'HcnEnumerateNetworks',
  'HcnCreateNetwork',
  'HcnQueryNetworkProperties',
  'HcnModifyNetwork',
  'HcnDeleteNetwork',
  'HcnEnumerateEndpoints',
  'HcnCreateEndpoint',
  'HcnQueryEndpointProperties',
  'HcnQueryEndpointStats',
  'HcnModifyEndpoint',
  'HcnDeleteEndpoint',
  'HcnEnumerateNamespaces',
  'HcnCreateNamespace',
  'HcnQueryNamespaceProperties',
  'HcnModifyNamespace',
  'HcnDeleteNamespace',
  'HcnEnumerateLoadBalancers',
  'HcnCreateLoadBalancer',
  'HcnQueryLoadBalancerProperties',
  'HcnModifyLoadBalancer',
  'HcnDeleteLoadBalancer',
  'HcnEnumerateSdnRoutes',
  'HcnCreateSdnRoute',
  'HcnQuerySdnRouteProperties',
  'HcnModifySdnRoute',
  'HcnDeleteSdnRoute',
  'HNSCall',
] as const;
export type FlatApiMethod = (typeof FLAT_API_METHODS)[number];

function failure(e: HnsError): HcnFailure {
  return { ok: false, hr: e.hresult, name: e.code, message: e.message, errorRecord: e.errorRecord() };
}

/** Run `fn`, turning an HnsError into data; anything else is a bug surfaced as E_FAIL with its text. */
export function capture<T>(fn: () => T): HcnResult<T> {
  try {
    return { ok: true, hr: 0, result: fn() };
  } catch (e) {
    if (e instanceof HnsError) return failure(e);
    return failure(hnsError('E_FAIL', `internal error: ${(e as Error)?.message ?? String(e)}`));
  }
}

type Kind = 'Network' | 'Endpoint' | 'Namespace' | 'LoadBalancer' | 'SdnRoute';

export class FlatApi {
  constructor(private readonly hns: HnsService) {}

  /** Run one API call: failures become data, and every call is reported as an `api.call` event. */
  private run<T>(method: FlatApiMethod, fn: () => T): HcnResult<T> {
    // a stopped service answers nothing: the RPC to it fails before any work (docs/model.md)
    const r = this.hns.isDown()
      ? failure(
          hnsError(
            'RPC_S_SERVER_UNAVAILABLE',
            `the HNS service is restarting until ${this.hns.downUntil} ms (simulated)`,
          ),
        )
      : capture(fn);
    const events = this.hns.deps.events;
    if (events.listenerCount('api.call') > 0) {
      events.emit('api.call', { method, hresult: r.hr, time: this.hns.deps.clock.now() });
    }
    return r;
  }

  private settings(input: unknown): JsonObject {
    return toJsonObject(input);
  }

  private id(input: unknown, kind: Kind): string {
    const id = argGuid(input);
    if (!id)
      throw hnsError(
        kind === 'Network'
          ? 'HCN_E_NETWORK_NOT_FOUND'
          : kind === 'Endpoint'
            ? 'HCN_E_ENDPOINT_NOT_FOUND'
            : 'ERROR_NOT_FOUND',
        'no ID given',
      );
    return id;
  }

  private v2Guard(): void {
    if (!supports(this.hns.profile.version, 'V2')) {
      throw hnsError('E_NOTIMPL', 'the HCN v2 API needs HNS 9.2 (Windows Server 2019)');
    }
  }

  /** The network an endpoint create names, if it exists (argument first); never throws. */
  private networkOf(arg: unknown, fromDoc: unknown): NetworkRec | undefined {
    for (const v of [arg, fromDoc]) {
      if (typeof v !== 'string') continue;
      const id = parseGuid(v);
      const n = id ? this.hns.store.networks.get(id) : undefined;
      if (n) return n;
    }
    return undefined;
  }

  /** Serialise a record for a query: v1 shape for SchemaVersion 1, else v2. */
  view(rec: AnyRec, q: Pick<ParsedQuery, 'schema' | 'detailed'>): HcnDocument {
    return this.viewJson(rec, q) as HcnDocument;
  }

  private viewJson(rec: AnyRec, q: Pick<ParsedQuery, 'schema' | 'detailed'>): JsonObject {
    const v1 = q.schema.Major === 1;
    switch (rec.kind) {
      case 'Network':
        return v1
          ? v1NetworkView(this.hns, rec)
          : serializeNetwork(rec, {
              detailed: q.detailed,
              endpointCount: this.hns.store.alloc.get(rec.ID)?.endpoints.size ?? 0,
              managementIp: this.hns.store.nics.managementIp(rec.ID),
            });
      case 'Endpoint':
        return v1 ? v1EndpointView(this.hns, rec) : serializeEndpoint(rec, q.detailed);
      case 'Namespace':
        return v1 ? v1NamespaceView(rec) : serializeNamespace(rec);
      case 'LoadBalancer':
        return serializeLoadBalancer(rec);
      case 'SdnRoute':
        return serializeSdnRoute(rec);
      case 'PolicyList':
        return { ID: rec.ID, References: [...rec.References], Policies: [...rec.Policies] };
    }
  }

  private table(kind: Kind): ReadonlyMap<string, AnyRec> {
    const s = this.hns.store;
    return kind === 'Network'
      ? s.networks
      : kind === 'Endpoint'
        ? s.endpoints
        : kind === 'Namespace'
          ? s.namespaces
          : kind === 'LoadBalancer'
            ? s.loadBalancers
            : s.routes;
  }

  private enumerate(kind: Kind, query: unknown): string[] {
    this.v2Guard();
    const q = parseQuery(query);
    const table = this.table(kind);
    let candidates: Iterable<AnyRec>;
    const byId = filterGuid(q.filter, 'ID', 'Id');
    const byNet =
      kind === 'Endpoint' ? filterGuid(q.filter, 'HostComputeNetwork', 'VirtualNetwork') : undefined;
    if (byId === null || byNet === null) return [];
    if (byId) {
      const r = table.get(byId);
      candidates = r ? [r] : [];
    } else if (byNet) {
      const ids = this.hns.store.alloc.get(byNet)?.endpoints ?? new Set<string>();
      candidates = [...ids].map((i) => this.hns.store.endpoints.get(i)!);
    } else if (
      kind === 'Network' &&
      typeof q.filter.Name === 'string' &&
      q.filter.Name !== '' && // unnamed networks are not in the name index
      Object.keys(q.filter).length === 1
    ) {
      const id = this.hns.store.networkByName.get(this.hns.store.nameKey(q.filter.Name));
      const r = id ? table.get(id) : undefined;
      candidates = r && (r as { Name: string }).Name === q.filter.Name ? [r] : [];
    } else {
      candidates = table.values();
    }
    const keys = Object.keys(q.filter);
    const out: string[] = [];
    // the v2 network view omits Type for NAT (enum 0); the v1 view always writes it
    const omittedType = kind === 'Network' && q.schema.Major !== 1 ? 'NAT' : undefined;
    const aliases: Record<string, string> =
      kind === 'Endpoint' && q.schema.Major !== 1 ? { VirtualNetwork: 'HostComputeNetwork' } : {};
    for (const rec of candidates) {
      if (keys.length === 0 || matchesFilter(this.view(rec, q), q.filter, aliases, omittedType)) {
        out.push(rec.ID);
      }
    }
    return out;
  }

  private query(kind: Kind, id: unknown, query: unknown): HcnDocument {
    this.v2Guard();
    const q = parseQuery(query);
    const key = this.id(id, kind);
    const rec =
      kind === 'Network'
        ? this.hns.getNetwork(key)
        : kind === 'Endpoint'
          ? this.hns.getEndpoint(key)
          : kind === 'Namespace'
            ? this.hns.getNamespace(key)
            : kind === 'LoadBalancer'
              ? this.hns.getLoadBalancer(key)
              : this.hns.getSdnRoute(key);
    return this.view(rec, q);
  }

  private created(rec: AnyRec): HcnDocument {
    return this.view(rec, { schema: { Major: 2, Minor: 0 }, detailed: false });
  }

  // networks
  HcnEnumerateNetworks(query?: unknown): HcnResult<string[]> {
    return this.run('HcnEnumerateNetworks', () => this.enumerate('Network', query));
  }
  HcnCreateNetwork(id: unknown, settings: unknown): HcnResult<HcnDocument> {
    return this.run('HcnCreateNetwork', () => {
      this.v2Guard();
      const doc = this.settings(settings);
      if (isV1Document(doc, 'Network')) {
        const v2 = v1NetworkToV2(doc, this.hns.profile.version);
        return this.created(this.hns.createNetwork(id, v2, v1NetworkExtras(doc)));
      }
      return this.created(this.hns.createNetwork(id, doc));
    });
  }
  HcnQueryNetworkProperties(id: unknown, query?: unknown): HcnResult<HcnDocument> {
    return this.run('HcnQueryNetworkProperties', () => this.query('Network', id, query));
  }
  HcnModifyNetwork(id: unknown, settings: unknown): HcnResult<null> {
    return this.run('HcnModifyNetwork', () => {
      this.v2Guard();
      const key = this.id(id, 'Network');
      this.hns.modifyNetwork(key, this.settings(settings));
      return null;
    });
  }
  HcnDeleteNetwork(id: unknown): HcnResult<null> {
    return this.run('HcnDeleteNetwork', () => {
      this.v2Guard();
      this.hns.deleteNetwork(this.id(id, 'Network'));
      return null;
    });
  }

  // endpoints
  HcnEnumerateEndpoints(query?: unknown): HcnResult<string[]> {
    return this.run('HcnEnumerateEndpoints', () => this.enumerate('Endpoint', query));
  }
  HcnCreateEndpoint(networkId: unknown, id: unknown, settings: unknown): HcnResult<HcnDocument> {
    return this.run('HcnCreateEndpoint', () => {
      this.v2Guard();
      const doc = this.settings(settings);
      if (isV1Document(doc, 'Endpoint')) {
        let v2 = v1EndpointToV2(doc, this.hns.profile.version);
        const net = this.networkOf(networkId, v2['HostComputeNetwork']);
        if (net) v2 = completeV1Gateways(v2, net);
        return this.created(
          this.hns.createEndpoint(networkId, id, v2, { v1: true, v1Extras: v1EndpointExtras(doc) }),
        );
      }
      return this.created(this.hns.createEndpoint(networkId, id, doc));
    });
  }
  HcnQueryEndpointProperties(id: unknown, query?: unknown): HcnResult<HcnDocument> {
    return this.run('HcnQueryEndpointProperties', () => this.query('Endpoint', id, query));
  }
  /**
   * `HcnQueryEndpointStats(Endpoint, Query, Stats, ErrorRecord)`: the endpoint's traffic counters
   * (`HcnEndpointStats`). The query is validated as for the other queries; its schema version and
   * flags do not change the document.
   */
  HcnQueryEndpointStats(id: unknown, query?: unknown): HcnResult<HcnEndpointStats> {
    return this.run('HcnQueryEndpointStats', () => {
      this.v2Guard();
      parseQuery(query);
      const e = this.hns.getEndpoint(this.id(id, 'Endpoint'));
      return endpointStatsDocument(this.hns, e);
    });
  }
  HcnModifyEndpoint(id: unknown, settings: unknown): HcnResult<null> {
    return this.run('HcnModifyEndpoint', () => {
      this.v2Guard();
      const key = this.id(id, 'Endpoint');
      this.hns.modifyEndpoint(key, this.settings(settings));
      return null;
    });
  }
  HcnDeleteEndpoint(id: unknown): HcnResult<null> {
    return this.run('HcnDeleteEndpoint', () => {
      this.v2Guard();
      this.hns.deleteEndpoint(this.id(id, 'Endpoint'));
      return null;
    });
  }

  // namespaces
  HcnEnumerateNamespaces(query?: unknown): HcnResult<string[]> {
    return this.run('HcnEnumerateNamespaces', () => this.enumerate('Namespace', query));
  }
  HcnCreateNamespace(id: unknown, settings: unknown): HcnResult<HcnDocument> {
    return this.run('HcnCreateNamespace', () => {
      this.v2Guard();
      return this.created(this.hns.createNamespace(id, this.settings(settings)));
    });
  }
  HcnQueryNamespaceProperties(id: unknown, query?: unknown): HcnResult<HcnDocument> {
    return this.run('HcnQueryNamespaceProperties', () => this.query('Namespace', id, query));
  }
  HcnModifyNamespace(id: unknown, settings: unknown): HcnResult<null> {
    return this.run('HcnModifyNamespace', () => {
      this.v2Guard();
      const key = this.id(id, 'Namespace');
      this.hns.modifyNamespace(key, this.settings(settings));
      return null;
    });
  }
  HcnDeleteNamespace(id: unknown): HcnResult<null> {
    return this.run('HcnDeleteNamespace', () => {
      this.v2Guard();
      this.hns.deleteNamespace(this.id(id, 'Namespace'));
      return null;
    });
  }

  // load balancers
  HcnEnumerateLoadBalancers(query?: unknown): HcnResult<string[]> {
    return this.run('HcnEnumerateLoadBalancers', () => this.enumerate('LoadBalancer', query));
  }
  HcnCreateLoadBalancer(id: unknown, settings: unknown): HcnResult<HcnDocument> {
    return this.run('HcnCreateLoadBalancer', () => {
      this.v2Guard();
      return this.created(this.hns.createLoadBalancer(id, this.settings(settings)));
    });
  }
  HcnQueryLoadBalancerProperties(id: unknown, query?: unknown): HcnResult<HcnDocument> {
    return this.run('HcnQueryLoadBalancerProperties', () => this.query('LoadBalancer', id, query));
  }
  HcnModifyLoadBalancer(id: unknown, settings: unknown): HcnResult<null> {
    return this.run('HcnModifyLoadBalancer', () => {
      this.v2Guard();
      const key = this.id(id, 'LoadBalancer');
      this.hns.modifyLoadBalancer(key, this.settings(settings));
      return null;
    });
  }
  HcnDeleteLoadBalancer(id: unknown): HcnResult<null> {
    return this.run('HcnDeleteLoadBalancer', () => {
      this.v2Guard();
      this.hns.deleteLoadBalancer(this.id(id, 'LoadBalancer'));
      return null;
    });
  }

  // SDN routes
  HcnEnumerateSdnRoutes(query?: unknown): HcnResult<string[]> {
    return this.run('HcnEnumerateSdnRoutes', () => this.enumerate('SdnRoute', query));
  }
  HcnCreateSdnRoute(id: unknown, settings: unknown): HcnResult<HcnDocument> {
    return this.run('HcnCreateSdnRoute', () => {
      this.v2Guard();
      return this.created(this.hns.createSdnRoute(id, this.settings(settings)));
    });
  }
  HcnQuerySdnRouteProperties(id: unknown, query?: unknown): HcnResult<HcnDocument> {
    return this.run('HcnQuerySdnRouteProperties', () => this.query('SdnRoute', id, query));
  }
  HcnModifySdnRoute(id: unknown, settings: unknown): HcnResult<null> {
    return this.run('HcnModifySdnRoute', () => {
      this.v2Guard();
      const key = this.id(id, 'SdnRoute');
      this.hns.modifySdnRoute(key, this.settings(settings));
      return null;
    });
  }
  HcnDeleteSdnRoute(id: unknown): HcnResult<null> {
    return this.run('HcnDeleteSdnRoute', () => {
      this.v2Guard();
      this.hns.deleteSdnRoute(this.id(id, 'SdnRoute'));
      return null;
    });
  }

  /**
   * HNS v1 (`vmcompute.dll!HNSCall`): the response document `{"Success","Error","Output"}`. A v1
   * failure is a successful call whose response says Success:false, as on Windows; only a malformed
   * request (bad method, bad JSON) fails the call itself.
   */
  HNSCall(method: unknown, path: unknown, request?: unknown): HcnResult<JsonObject> {
    return this.run('HNSCall', () => hnsCall(this.hns, method, path, request));
  }

  /** Dispatch by name (JSON-RPC). Unknown names → undefined. */
  call(method: string, params: readonly Json[]): HcnResult<Json> | undefined {
    if (!(FLAT_API_METHODS as readonly string[]).includes(method)) return undefined;
    const fn = (this as unknown as Record<string, (...a: unknown[]) => HcnResult<Json>>)[method]!;
    return fn.apply(this, params as unknown[]);
  }
}
