/**
 * The flat API, named after the computenetwork.dll exports (reference hns-hcs.md §0.1) and the
 * computecore.dll / vmcompute.dll compute-system exports (hcs-lifecycle.md §0, §1): documents in
 * (JSON strings, as on Windows, or plain objects), documents out, failures returned as data — an
 * HRESULT with its registered name, message and ErrorRecord. Handle-free: objects and compute
 * systems are addressed by ID, and create returns the object as a default query would. The Hcs*
 * failures are spelled as the host's HCS DLL spells them (`HostOptions.hcs.api`): computecore's
 * HCS_E_* (0x8037…) or vmcompute's ERROR_VMCOMPUTE_* (0xC037…).
 *
 *   const r = api.HcnCreateNetwork(null, '{"Name":"nat","Type":"NAT"}');
 *   if (r.hr === 0) console.log(r.result.ID);
 *   api.HcsCreateComputeSystem('c1', { SchemaVersion: { Major: 2, Minor: 1 }, Container: {} });
 */
import {
  HnsError,
  hnsError,
  vmcomputeName,
  type ErrorRecord,
  type HResultLabel,
  type HResultName,
} from '../core/errors.js';
import { toJsonObject, type Json, type JsonObject } from '../core/json.js';
import type { HcsService } from '../hcs/service.js';
import type { HnsService } from '../hns/service.js';
import { argGuid } from '../hns/schema/common.js';
import { serializeEndpoint } from '../hns/schema/endpoint.js';
import { serializeLoadBalancer } from '../hns/schema/loadbalancer.js';
import { serializeNamespace } from '../hns/schema/namespace.js';
import { serializeNetwork } from '../hns/schema/network.js';
import { serializeSdnRoute } from '../hns/schema/route.js';
import { filterGuid, jsonEqual, matchesFilter, parseQuery, type ParsedQuery } from '../hns/query.js';
import {
  completeV1Gateways,
  isV1Document,
  v1EndpointExtras,
  v1EndpointToV2,
  v1NetworkExtras,
  v1NetworkToV2,
} from '../hns/v1/convert.js';
import { v1EndpointView, v1NamespaceView, v1NetworkView, v1PolicyListView } from '../hns/v1/views.js';
import { getPolicyList } from '../hns/v1/policylist.js';
import { findLoadBalancer, listLoadBalancers } from '../hns/loadbalancers.js';
import { endpointStatsDocument, hnsCall, type EndpointStatsDocument } from '../hns/v1/router.js';
import type { AnyRec, EndpointRec, NetworkRec } from '../hns/model.js';
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
  'HcsCreateComputeSystem',
  'HcsStartComputeSystem',
  'HcsShutdownComputeSystem',
  'HcsTerminateComputeSystem',
  'HcsPauseComputeSystem',
  'HcsResumeComputeSystem',
  'HcsModifyComputeSystem',
  'HcsGetComputeSystemProperties',
  'HcsEnumerateComputeSystems',
  'HcsCloseComputeSystem',
] as const;
export type FlatApiMethod = (typeof FLAT_API_METHODS)[number];
/** FLAT_API_METHODS as a set: `call` looks every method up in it (one hash, not a scan of the list). */
const FLAT_API_METHOD_SET: ReadonlySet<string> = new Set(FLAT_API_METHODS);

/** The compute-system functions of FLAT_API_METHODS (computecore.dll / vmcompute.dll). */
export type HcsApiMethod = Extract<FlatApiMethod, `Hcs${string}`>;

/** Whether a flat function is an Hcs* one (answered by the Host Compute Service, not HNS). */
export function isHcsMethod(method: string): method is HcsApiMethod {
  return method.startsWith('Hcs') && FLAT_API_METHOD_SET.has(method);
}

/**
 * Which DLL the flat Hcs* functions are (`HostOptions.hcs.api`, reference hcs-lifecycle.md §0):
 * computecore.dll (the HCS v2 API, HCS_E_* 0x8037… errors) or vmcompute.dll (v1, ERROR_VMCOMPUTE_*
 * 0xC037…).
 */
export type HcsApi = 'computecore' | 'vmcompute';
export const HCS_APIS: readonly HcsApi[] = ['computecore', 'vmcompute'];

/**
 * A compute system's properties document as HcsGetComputeSystemProperties returns it (schema 2
 * `Properties`, with the v1 `ContainerProperties` extras for a schema 1 system; src/hcs/service.ts).
 */
export type HcsProperties = JsonObject & {
  readonly Id: string;
  readonly SystemType: string;
  readonly State: string;
  readonly Stopped: boolean;
};

/**
 * An HCS failure as `api` spells it (hcs-lifecycle.md §0): vmcompute turns an HCS_E_X into its
 * ERROR_VMCOMPUTE_X twin (`HCS_E_X | 0x40000000`) when winerror.h has one; codes that exist only as
 * HCS_E_ (HCS_E_PROCESS_ALREADY_STOPPED 0x8037011F, HCS_E_SERVICE_DISCONNECT, …) and every other
 * code (HCN_E_*, ERROR_NOT_FOUND, E_INVALIDARG) stay as they are, as do all codes on computecore.
 */
export function spellHcsError(e: HnsError, api: HcsApi): HnsError {
  if (api !== 'vmcompute' || e.code.startsWith('0x')) return e;
  const twin = vmcomputeName(e.code as HResultName);
  return twin ? new HnsError(twin, e.detail) : e;
}

export interface FlatApiOptions {
  /** The Host Compute Service the Hcs* functions call (without it they fail with HCS_E_SERVICE_NOT_AVAILABLE). */
  readonly hcs?: HcsService;
  /** How Hcs* failures are spelled (default `computecore`). */
  readonly hcsApi?: HcsApi;
}

/** A failure of the folded-in Open step: the object a Modify, Delete or Query names does not exist. */
class OpenFailure extends HnsError {
  constructor(e: HnsError) {
    super(e.code as HResultName, e.detail);
  }
}

/**
 * Whether a failure came from the folded-in Open step of a Modify, Delete or Query (the named
 * object does not exist). hcsshim runs `HcnOpen<Kind>` before a Modify or a Query and reports such
 * a failure as `hcnOpen<Kind> failed …`; a Delete passes the GUID with no Open, so the client keeps
 * the Delete's name (`callTitle`). The mark is not part of the failure's data (not enumerable: JSON
 * and JSON-RPC never carry it).
 */
export function openFailed(f: HcnFailure): boolean {
  return (f as { readonly [OPEN]?: boolean })[OPEN] === true;
}
const OPEN = Symbol('hnsim.openFailed');

/** An HnsError as a flat API failure: its HRESULT, name, message and ErrorRecord. */
export function failureOf(e: HnsError): HcnFailure {
  const f: HcnFailure = {
    ok: false,
    hr: e.hresult,
    name: e.code,
    message: e.message,
    errorRecord: e.errorRecord(),
  };
  if (e instanceof OpenFailure) Object.defineProperty(f, OPEN, { value: true, enumerable: false });
  return f;
}

/**
 * A failure as the HnsError it came from (the inverse of `failureOf`): its code, and the detail its
 * message carried after the Windows text — not the whole message again.
 */
export function errorOf(f: HcnFailure): HnsError {
  const e = new HnsError(f.hr);
  const prefix = `${e.windowsMessage} (`;
  const detail =
    f.message.startsWith(prefix) && f.message.endsWith(')') ? f.message.slice(prefix.length, -1) : undefined;
  return detail === undefined ? e : new HnsError(f.hr, detail);
}

/** A call's result; a failure is thrown as the HnsError it was (`errorOf`). */
export function must<T>(r: HcnResult<T>): T {
  if (!r.ok) throw errorOf(r);
  return r.result;
}

/** Run `fn`, turning an HnsError into data; anything else is a bug surfaced as E_FAIL with its text. */
export function capture<T>(fn: () => T): HcnResult<T> {
  try {
    return { ok: true, hr: 0, result: fn() };
  } catch (e) {
    if (e instanceof HnsError) return failureOf(e);
    return failureOf(hnsError('E_FAIL', `internal error: ${(e as Error)?.message ?? String(e)}`));
  }
}

type Kind = 'Network' | 'Endpoint' | 'Namespace' | 'LoadBalancer' | 'SdnRoute';

/**
 * A compute system ID argument: a non-empty string (the service names any other in its error
 * detail, which an object without a string form would break), else E_INVALIDARG as Create has it.
 */
function hcsId(input: unknown): string {
  if (typeof input !== 'string' || input === '')
    throw hnsError('E_INVALIDARG', 'a compute system ID is a non-empty string');
  return input;
}

/** An HCS document or options string: a JSON object (empty allowed where HCS takes "" or NULL). */
function hcsDocument(input: unknown, allowEmpty: boolean): JsonObject {
  return toJsonObject(input, allowEmpty, 'HCS_E_INVALID_JSON');
}

/**
 * `parseQuery` of a query string seen before: the answer is a function of the text alone (hcsshim
 * sends the same default query after every create and modify, and an enumeration's query again
 * for each object it lists), so it is kept, frozen; anything else is parsed each time.
 */
function parsedQuery(query: unknown): ParsedQuery {
  if (typeof query !== 'string') return parseQuery(query);
  let q = parsedQueries.get(query);
  if (q === undefined) {
    q = parseQuery(query);
    freezeJson(q.filter);
    Object.freeze(q);
    if (parsedQueries.size >= 1024) parsedQueries.clear();
    parsedQueries.set(query, q);
  }
  return q;
}
const parsedQueries = new Map<string, ParsedQuery>();

function freezeJson(v: unknown): void {
  if (typeof v !== 'object' || v === null || Object.isFrozen(v)) return;
  for (const k of Object.keys(v)) freezeJson((v as Record<string, unknown>)[k]);
  Object.freeze(v);
}

export class FlatApi {
  private readonly hcs: HcsService | undefined;
  /** How the Hcs* functions spell their failures (`HostOptions.hcs.api`). */
  readonly hcsApi: HcsApi;

  constructor(
    private readonly hns: HnsService,
    options: FlatApiOptions = {},
  ) {
    const api = options.hcsApi ?? 'computecore';
    if (!HCS_APIS.includes(api))
      throw hnsError('E_INVALIDARG', `hcs.api ${JSON.stringify(api)} is not computecore or vmcompute`);
    this.hcs = options.hcs;
    this.hcsApi = api;
  }

  /** Run one API call: failures become data, and every call is reported as an `api.call` event. */
  private run<T>(method: FlatApiMethod, fn: () => T): HcnResult<T> {
    // a stopped service answers nothing: the RPC to it fails before any work (docs/model.md)
    const r = this.hns.isDown()
      ? failureOf(
          hnsError(
            'RPC_S_SERVER_UNAVAILABLE',
            `the HNS service is restarting until ${this.hns.downUntil} ms (simulated)`,
          ),
        )
      : capture(fn);
    return this.reported(method, r);
  }

  private reported<T>(method: FlatApiMethod, r: HcnResult<T>): HcnResult<T> {
    const events = this.hns.deps.events;
    if (events.listenerCount('api.call') > 0) {
      events.emit('api.call', { method, hresult: r.hr, time: this.hns.deps.clock.now() });
    }
    return r;
  }

  /**
   * Run one Hcs* call. vmcompute is its own service: an HNS restart window does not stop it. The
   * call is atomic (a failure rolls the RNG back, and HcsService validates before it changes
   * anything), and a failure is spelled as the host's HCS DLL spells it (`spellHcsError`).
   */
  private runHcs<T>(method: HcsApiMethod, fn: (hcs: HcsService) => T): HcnResult<T> {
    const hcs = this.hcs;
    const r = capture(() => {
      if (!hcs) throw hnsError('HCS_E_SERVICE_NOT_AVAILABLE', 'this flat API has no Host Compute Service');
      try {
        return this.hns.atomic(() => fn(hcs));
      } catch (e) {
        throw e instanceof HnsError ? this.spellHcs(e) : e;
      }
    });
    return this.reported(method, r);
  }

  /**
   * A lifecycle step (`HcsStartComputeSystem(id, options)` and its siblings): the options, `""`,
   * NULL or a JSON object HCS does not interpret, are checked, then the step runs; the result is null.
   */
  private runHcsStep(
    method: HcsApiMethod,
    id: unknown,
    options: unknown,
    step: (hcs: HcsService, id: string) => unknown,
  ): HcnResult<null> {
    return this.runHcs(method, (hcs) => {
      hcsDocument(options, true);
      step(hcs, hcsId(id));
      return null;
    });
  }

  /** An HCS failure as this API's DLL spells it (the JSON-RPC host methods use it too). */
  spellHcs(e: HnsError): HnsError {
    return spellHcsError(e, this.hcsApi);
  }

  private settings(input: unknown): JsonObject {
    return toJsonObject(input);
  }

  /**
   * The object a Modify, Delete or Query names, found as hcsshim's `HcnOpen<Kind>` finds it (the flat
   * API folds Open into the call): its key, or the open's failure, marked as such (`openFailed`).
   */
  private id(input: unknown, kind: Kind): string {
    const id = argGuid(input);
    try {
      if (!id)
        throw hnsError(
          kind === 'Network'
            ? 'HCN_E_NETWORK_NOT_FOUND'
            : kind === 'Endpoint'
              ? 'HCN_E_ENDPOINT_NOT_FOUND'
              : 'ERROR_NOT_FOUND',
          'no ID given',
        );
      this.record(kind, id);
    } catch (e) {
      throw e instanceof HnsError ? new OpenFailure(e) : e;
    }
    return id;
  }

  /** The record of `kind` with key `id`, or the service's not-found failure for that kind. */
  private record(kind: Kind, id: string): AnyRec {
    return kind === 'Network'
      ? this.hns.getNetwork(id)
      : kind === 'Endpoint'
        ? this.hns.getEndpoint(id)
        : kind === 'Namespace'
          ? this.hns.getNamespace(id)
          : kind === 'LoadBalancer'
            ? this.hns.getLoadBalancer(id)
            : this.hns.getSdnRoute(id);
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
        // SchemaVersion 1: the load balancer as the v1 API shows it, an ELB policy list
        return v1 ? v1PolicyListView(getPolicyList(this.hns, rec.ID)) : serializeLoadBalancer(rec);
      case 'SdnRoute':
        return serializeSdnRoute(rec);
      case 'PolicyList':
        return v1PolicyListView(rec);
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
    const q = parsedQuery(query);
    const table = this.table(kind);
    let candidates: Iterable<AnyRec>;
    const byId = filterGuid(q.filter, 'ID', 'Id');
    const byNet =
      kind === 'Endpoint' ? filterGuid(q.filter, 'HostComputeNetwork', 'VirtualNetwork') : undefined;
    if (byId === null || byNet === null) return [];
    /** Whether the lookup below found the network by its name (a v2 view shows the Name as it is). */
    let byName = false;
    if (byId) {
      const r = kind === 'LoadBalancer' ? findLoadBalancer(this.hns, byId) : table.get(byId);
      candidates = r ? [r] : [];
    } else if (byNet) {
      const ids = this.hns.store.alloc.get(byNet)?.endpoints ?? new Set<string>();
      const eps = [...ids].map((i) => this.hns.store.endpoints.get(i)!);
      // a schema-2 listing by network misses endpoints created through v1 (kubernetes#110591)
      candidates = q.schema.Major === 1 ? eps : eps.filter((e) => !e.createdV1);
    } else if (
      kind === 'Network' &&
      typeof q.filter.Name === 'string' &&
      q.filter.Name !== '' && // unnamed networks are not in the name index
      Object.keys(q.filter).length === 1
    ) {
      const id = this.hns.store.networkByName.get(this.hns.store.nameKey(q.filter.Name));
      const r = id ? table.get(id) : undefined;
      candidates = r && (r as { Name: string }).Name === q.filter.Name ? [r] : [];
      byName = true;
    } else if (kind === 'Endpoint' && typeof q.filter['Name'] === 'string' && q.filter['Name'] !== '') {
      // the name index gives every endpoint the Name check below can let through; with more than
      // one, the table is read in order (enumeration order is creation order)
      const ids = this.hns.store.endpoints.idsNamed(q.filter['Name']);
      candidates = ids.length > 1 ? table.values() : ids.map((i) => table.get(i)!);
    } else {
      // load balancers: HCN ones and v1 ELB policy lists, one store (docs/model.md "Policy lists")
      candidates = kind === 'LoadBalancer' ? listLoadBalancers(this.hns) : table.values();
    }
    const keys = Object.keys(q.filter);
    const out: string[] = [];
    // the v2 network view omits Type for NAT (enum 0); the v1 view always writes it
    const omittedType = kind === 'Network' && q.schema.Major !== 1 ? 'NAT' : undefined;
    const aliases: Record<string, string> =
      kind === 'Endpoint' && q.schema.Major !== 1 ? { VirtualNetwork: 'HostComputeNetwork' } : {};
    // an endpoint's view shows its Name as it is (omitted when empty): a Name filter can skip the
    // serialisation of every endpoint whose name cannot match, compared as `matchesFilter` compares
    // (an empty name, omitted from the view, never matches a non-empty Name)
    const wantName = kind === 'Endpoint' ? q.filter['Name'] : undefined;
    const nameChecked = typeof wantName === 'string' && wantName !== '';
    // a filter whose every key the lookup above has answered needs no view of each object: `ID` (a
    // v2 view shows the record's ID, the one the lookup by that GUID found), a network's `Name`
    // (the name index found the network so named) and an endpoint's `Name` (checked below as the
    // view's Name would compare); `Id` is not answered (no view has an `Id` key: it never matches)
    const answered =
      q.schema.Major !== 1 &&
      keys.every((k) => (k === 'ID' && byId !== undefined) || (k === 'Name' && (nameChecked || byName)));
    for (const rec of candidates) {
      if (nameChecked && !jsonEqual((rec as EndpointRec).Name, wantName as string)) continue;
      if (answered || matchesFilter(this.view(rec, q), q.filter, aliases, omittedType)) {
        out.push(rec.ID);
      }
    }
    return out;
  }

  private query(kind: Kind, id: unknown, query: unknown): HcnDocument {
    this.v2Guard();
    // hcsshim opens the object, then queries it with the query string
    const key = this.id(id, kind);
    const q = parsedQuery(query);
    return this.view(this.record(kind, key), q);
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
      // hcsshim opens the network before it sends the endpoint document (hcn/hcnendpoint.go)
      if (typeof networkId === 'string' && argGuid(networkId)) this.id(networkId, 'Network');
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
      parsedQuery(query);
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

  // ───────────────────────────── compute systems (HCS) ─────────────────────────────

  /**
   * `HcsCreateComputeSystem(id, configuration)`: a schema 2 `ComputeSystem` or schema 1
   * `ContainerConfig` document (JSON string or object); the result is the new system's properties
   * document (State `Created`). An ID in use is HCS_E_SYSTEM_ALREADY_EXISTS; malformed JSON or a
   * malformed document HCS_E_INVALID_JSON; an HNS namespace or endpoint it names that does not
   * exist keeps its HNS code (ERROR_NOT_FOUND, HCN_E_ENDPOINT_NOT_FOUND).
   */
  HcsCreateComputeSystem(id: unknown, configuration: unknown): HcnResult<HcsProperties> {
    return this.runHcs('HcsCreateComputeSystem', (hcs) => {
      const doc = hcsDocument(configuration, false);
      const rec = hcs.create(hcsId(id), doc);
      return hcs.properties(rec.id) as HcsProperties;
    });
  }
  /** `HcsStartComputeSystem(id, options)`: Created → Running (the container joins its namespace). */
  HcsStartComputeSystem(id: unknown, options?: unknown): HcnResult<null> {
    return this.runHcsStep('HcsStartComputeSystem', id, options, (hcs, sys) => hcs.start(sys));
  }
  /** `HcsShutdownComputeSystem(id, options)`: a graceful stop (SystemExited, GracefulExit). */
  HcsShutdownComputeSystem(id: unknown, options?: unknown): HcnResult<null> {
    return this.runHcsStep('HcsShutdownComputeSystem', id, options, (hcs, sys) => hcs.shutdown(sys));
  }
  /** `HcsTerminateComputeSystem(id, options)`: a forced stop (SystemExited, ForcedExit). */
  HcsTerminateComputeSystem(id: unknown, options?: unknown): HcnResult<null> {
    return this.runHcsStep('HcsTerminateComputeSystem', id, options, (hcs, sys) => hcs.terminate(sys));
  }
  /** `HcsPauseComputeSystem(id, options)`: Running → Paused (not a process-isolated container). */
  HcsPauseComputeSystem(id: unknown, options?: unknown): HcnResult<null> {
    return this.runHcsStep('HcsPauseComputeSystem', id, options, (hcs, sys) => hcs.pause(sys));
  }
  /** `HcsResumeComputeSystem(id, options)`: Paused → Running. */
  HcsResumeComputeSystem(id: unknown, options?: unknown): HcnResult<null> {
    return this.runHcsStep('HcsResumeComputeSystem', id, options, (hcs, sys) => hcs.resume(sys));
  }
  /**
   * `HcsModifyComputeSystem(id, configuration)`: a v1 network hot-attach
   * `{ResourceType:"Network",RequestType,Settings:"<endpoint>"}`, a VM NIC request on
   * `VirtualMachine/Devices/NetworkAdapters/<nic>`, or a guest request.
   */
  HcsModifyComputeSystem(id: unknown, settings: unknown): HcnResult<null> {
    return this.runHcs('HcsModifyComputeSystem', (hcs) => {
      const doc = hcsDocument(settings, false);
      hcs.modify(hcsId(id), doc);
      return null;
    });
  }
  /** `HcsGetComputeSystemProperties(id, propertyQuery)`: `{PropertyTypes:[…]}`, or empty. */
  HcsGetComputeSystemProperties(id: unknown, query?: unknown): HcnResult<HcsProperties> {
    return this.runHcs('HcsGetComputeSystemProperties', (hcs) => {
      const q = hcsDocument(query, true);
      return hcs.properties(hcsId(id), q) as HcsProperties;
    });
  }
  /** `HcsEnumerateComputeSystems(query)`: `{Ids, Names, Types, Owners}` → properties documents. */
  HcsEnumerateComputeSystems(query?: unknown): HcnResult<HcsProperties[]> {
    return this.runHcs('HcsEnumerateComputeSystems', (hcs) => {
      const q = hcsDocument(query, true);
      return hcs.enumerate(q) as HcsProperties[];
    });
  }
  /**
   * `HcsCloseComputeSystem(id)`: the last handle closes. A stopped system's ID is gone; a live one
   * with ShouldTerminateOnLastHandleClosed is terminated and gone; any other keeps running.
   */
  HcsCloseComputeSystem(id: unknown): HcnResult<null> {
    return this.runHcs('HcsCloseComputeSystem', (hcs) => {
      hcs.close(hcsId(id));
      return null;
    });
  }

  /** Dispatch by name (JSON-RPC). Unknown names → undefined. */
  call(method: string, params: readonly Json[]): HcnResult<Json> | undefined {
    if (!FLAT_API_METHOD_SET.has(method)) return undefined;
    const fn = (this as unknown as Record<string, (...a: unknown[]) => HcnResult<Json>>)[method]!;
    return fn.apply(this, params as unknown[]);
  }
}
