/**
 * hcsshim's call flow over the flat API, for the acceptance vectors: every create/modify is followed
 * by a default query (hcn.go `defaultQuery`), every GetXByID/ByName is Enumerate(filter) + Query
 * (reference hns-hcs.md §0.1–0.2). Also the object as hcsshim's Go structs see it (`goView`) and the
 * failure check every vector uses (exact HRESULT, name, ErrorRecord, state unchanged).
 */
import { expect } from 'vitest';
import type { HResultName } from '../../src/core/errors.js';
import type { Json, JsonObject } from '../../src/core/json.js';
import { isFailure, type HcnFailure, type HcnResult } from '../../src/api/flat.js';
import type { Host } from '../../src/host/host.js';
import { ZERO_GUID } from './hcsshim-vectors.js';

/** `json.Marshal(defaultQuery())`: Flags None is omitted. */
export const DEFAULT_QUERY = '{"SchemaVersion":{"Major":2,"Minor":0}}';

/** The query GetXByID / GetXByName / ListEndpointsOfNetwork send: Filter is a JSON string. */
export function filterQuery(filter: Readonly<Record<string, string>>): string {
  return JSON.stringify({ SchemaVersion: { Major: 2, Minor: 0 }, Filter: JSON.stringify(filter) });
}

/** The value of a successful call; a failure fails the test with its HRESULT (like `t.Fatal(err)`). */
export function ok<T>(r: HcnResult<T>, what = 'call'): T {
  if (isFailure(r))
    throw new Error(`${what} failed: 0x${r.hr.toString(16).toUpperCase()} ${r.name}: ${r.message}`);
  return r.result;
}

/** Any GUID, either case. */
export const GUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const anyGuid = (): unknown => expect.stringMatching(GUID_RE);
/** The same GUID as `id`, compared case-insensitively (reference §6.16). */
export const sameGuid = (id: string): unknown => expect.stringMatching(new RegExp(`^${id}$`, 'i'));

export function sameGuidText(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

type Kind = 'Network' | 'Endpoint' | 'Namespace' | 'LoadBalancer' | 'SdnRoute';

/** hcsshim's hcn package, reduced to the calls its integration tests make. */
export class HcsshimFlow {
  constructor(readonly host: Host) {}

  private get api() {
    return this.host.api;
  }

  private enumerateRaw(kind: Kind, query: string): HcnResult<string[]> {
    const a = this.api;
    switch (kind) {
      case 'Network':
        return a.HcnEnumerateNetworks(query);
      case 'Endpoint':
        return a.HcnEnumerateEndpoints(query);
      case 'Namespace':
        return a.HcnEnumerateNamespaces(query);
      case 'LoadBalancer':
        return a.HcnEnumerateLoadBalancers(query);
      case 'SdnRoute':
        return a.HcnEnumerateSdnRoutes(query);
    }
  }

  queryRaw(kind: Kind, id: string, query: string = DEFAULT_QUERY): HcnResult<JsonObject> {
    const a = this.api;
    switch (kind) {
      case 'Network':
        return a.HcnQueryNetworkProperties(id, query);
      case 'Endpoint':
        return a.HcnQueryEndpointProperties(id, query);
      case 'Namespace':
        return a.HcnQueryNamespaceProperties(id, query);
      case 'LoadBalancer':
        return a.HcnQueryLoadBalancerProperties(id, query);
      case 'SdnRoute':
        return a.HcnQuerySdnRouteProperties(id, query);
    }
  }

  /** `HcnEnumerateX(query)`: the IDs. */
  enumerate(kind: Kind, query: string = DEFAULT_QUERY): string[] {
    return ok(this.enumerateRaw(kind, query), `HcnEnumerate ${kind}`);
  }

  /** `ListXQuery(query)`: enumerate, then open + query each with the same query. */
  list(kind: Kind, query: string = DEFAULT_QUERY): JsonObject[] {
    return this.enumerate(kind, query).map((id) => ok(this.queryRaw(kind, id, query), `HcnQuery ${kind}`));
  }

  /** `GetXByID(id)`: the list filtered on ID (empty = hcsshim's XNotFoundError). */
  byId(kind: Kind, id: string): JsonObject[] {
    return this.list(kind, filterQuery({ ID: id }));
  }

  /** `GetXByName(name)`: the list filtered on Name; hcsshim takes the first. */
  byName(kind: 'Network' | 'Endpoint', name: string): JsonObject[] {
    return this.list(kind, filterQuery({ Name: name }));
  }

  /** Query by ID with the default query (what every create/modify does afterwards). */
  get(kind: Kind, id: string): JsonObject {
    return ok(this.queryRaw(kind, id), `HcnQuery ${kind} ${id}`);
  }

  /** create → default query; the create answer must equal the queried object. */
  private created(kind: Kind, r: HcnResult<JsonObject>): JsonObject {
    const obj = ok(r, `HcnCreate ${kind}`);
    const id = obj.ID;
    if (typeof id !== 'string') throw new Error(`HcnCreate ${kind} returned no ID`);
    const queried = this.get(kind, id);
    expect(obj).toEqual(queried);
    return queried;
  }

  createNetwork(doc: JsonObject): JsonObject {
    return this.created('Network', this.api.HcnCreateNetwork(ZERO_GUID, JSON.stringify(doc)));
  }

  /** `network.CreateEndpoint(ep)`: the document already names the network. */
  createEndpoint(networkId: string, doc: JsonObject): JsonObject {
    return this.created('Endpoint', this.api.HcnCreateEndpoint(networkId, ZERO_GUID, JSON.stringify(doc)));
  }

  createNamespace(doc: JsonObject): JsonObject {
    return this.created('Namespace', this.api.HcnCreateNamespace(ZERO_GUID, JSON.stringify(doc)));
  }

  createLoadBalancer(doc: JsonObject): JsonObject {
    return this.created('LoadBalancer', this.api.HcnCreateLoadBalancer(ZERO_GUID, JSON.stringify(doc)));
  }

  createRoute(doc: JsonObject): JsonObject {
    return this.created('SdnRoute', this.api.HcnCreateSdnRoute(ZERO_GUID, JSON.stringify(doc)));
  }

  modifyNetwork(id: string, request: JsonObject): void {
    ok(this.api.HcnModifyNetwork(id, JSON.stringify(request)), 'HcnModifyNetwork');
  }

  modifyEndpoint(id: string, request: JsonObject): void {
    ok(this.api.HcnModifyEndpoint(id, JSON.stringify(request)), 'HcnModifyEndpoint');
  }

  modifyNamespace(id: string, request: JsonObject): void {
    ok(this.api.HcnModifyNamespace(id, JSON.stringify(request)), 'HcnModifyNamespace');
  }

  /** `lb.Update(id)`: HcnModifyLoadBalancer with the whole object, then the default query. */
  updateLoadBalancer(id: string, doc: JsonObject): JsonObject {
    ok(this.api.HcnModifyLoadBalancer(id, JSON.stringify(doc)), 'HcnModifyLoadBalancer');
    return this.get('LoadBalancer', id);
  }

  delete(kind: Kind, id: string): void {
    const a = this.api;
    const r =
      kind === 'Network'
        ? a.HcnDeleteNetwork(id)
        : kind === 'Endpoint'
          ? a.HcnDeleteEndpoint(id)
          : kind === 'Namespace'
            ? a.HcnDeleteNamespace(id)
            : kind === 'LoadBalancer'
              ? a.HcnDeleteLoadBalancer(id)
              : a.HcnDeleteSdnRoute(id);
    ok(r, `HcnDelete ${kind} ${id}`);
  }

  /** `GetNamespaceEndpointIds(ns)`: Resources of Type Endpoint, `Data.ID`. */
  namespaceResourceIds(namespaceId: string, type: 'Endpoint' | 'Container'): string[] {
    const ns = this.get('Namespace', namespaceId);
    const out: string[] = [];
    for (const r of (ns.Resources as JsonObject[] | undefined) ?? []) {
      if (r.Type === type) out.push(String((r.Data as JsonObject).ID));
    }
    return out;
  }

  /** `HNSCall(method, path, request)`: the `{"Success","Error","Output"}` response. */
  hnsCall(method: string, path: string, request: JsonObject | '' = ''): JsonObject {
    const body = request === '' ? '' : JSON.stringify(request);
    return ok(this.api.HNSCall(method, path, body), `HNSCall ${method} ${path}`);
  }

  /** hcsshim's `hnsCall`: Success must be true; returns Output. */
  hnsCallOk(method: string, path: string, request: JsonObject | '' = ''): Json | undefined {
    const resp = this.hnsCall(method, path, request);
    expect(resp.Success, `${method} ${path}: ${String(resp.Error)}`).toBe(true);
    return resp.Output;
  }
}

/**
 * A call that must fail: exact unsigned HRESULT and registered name, an ErrorRecord
 * `{"Success":false,"Error":"<text> ","ErrorCode":<hr>}` (reference §0.1), and the state snapshot
 * unchanged (DESIGN contract 2).
 */
export function expectHcnFailure<T>(
  host: Host,
  call: () => HcnResult<T>,
  hr: number,
  name: HResultName,
): HcnFailure {
  const before = host.snapshot();
  const r = call();
  expect({ hr: r.hr, name: (r as HcnFailure).name }).toEqual({ hr, name });
  const f = r as HcnFailure;
  expect(f.errorRecord).toEqual({ Success: false, Error: expect.stringMatching(/ $/), ErrorCode: hr });
  expect(host.snapshot()).toEqual(before);
  return f;
}

// ───────────────────────────── the object as hcsshim's Go structs see it ─────────────────────────────

type GoKind =
  'string' | 'number' | 'bool' | 'raw' | { readonly struct: readonly GoField[] } | { readonly slice: GoKind };
type GoField = readonly [name: string, kind: GoKind, omitempty: boolean];

const s = (name: string, omitempty = true): GoField => [name, 'string', omitempty];
const n = (name: string, omitempty = true): GoField => [name, 'number', omitempty];
const raw = (name: string, omitempty = true): GoField => [name, 'raw', omitempty];
const struct = (name: string, fields: readonly GoField[]): GoField => [name, { struct: fields }, true];
const slice = (name: string, of: GoKind, omitempty = true): GoField => [name, { slice: of }, omitempty];

const VERSION: readonly GoField[] = [n('Major', false), n('Minor', false)];
const ROUTE: readonly GoField[] = [s('NextHop'), s('DestinationPrefix'), n('Metric')];
const DNS: readonly GoField[] = [
  s('Domain'),
  slice('Search', 'string'),
  slice('ServerList', 'string'),
  slice('Options', 'string'),
];
const HEALTH: readonly GoField[] = [
  raw('Data'),
  struct('Extra', [
    raw('Resources'),
    raw('SharedContainers'),
    s('LayeredOn'),
    s('SwitchGuid'),
    s('UtilityVM'),
    s('VirtualMachine'),
  ]),
];
const POLICY: GoKind = { struct: [s('Type', false), raw('Settings')] };

/** hcn structs (hcnnetwork.go, hcnendpoint.go, hcnnamespace.go, hcnloadbalancer.go, hcnroute.go). */
export const GO_STRUCTS = {
  HostComputeNetwork: [
    s('ID'),
    s('Name'),
    s('Type'),
    slice('Policies', POLICY),
    struct('MacPool', [slice('Ranges', { struct: [s('StartMacAddress'), s('EndMacAddress')] })]),
    struct('Dns', DNS),
    slice('Ipams', {
      struct: [
        s('Type'),
        slice('Subnets', {
          struct: [
            s('IpAddressPrefix'),
            slice('Policies', 'raw'),
            slice('Routes', { struct: ROUTE }),
            n('Flags'),
          ],
        }),
      ],
    }),
    n('Flags'),
    struct('Health', HEALTH),
    struct('SchemaVersion', VERSION),
  ],
  HostComputeEndpoint: [
    s('ID'),
    s('Name'),
    s('HostComputeNetwork'),
    s('HostComputeNamespace'),
    slice('Policies', POLICY),
    slice('IpConfigurations', { struct: [s('IpAddress'), n('PrefixLength')] }),
    struct('Dns', DNS),
    slice('Routes', { struct: ROUTE }),
    s('MacAddress'),
    n('Flags'),
    struct('Health', HEALTH),
    struct('SchemaVersion', VERSION),
  ],
  HostComputeNamespace: [
    s('ID'),
    n('NamespaceId'),
    s('Type'),
    slice('Resources', { struct: [s('Type', false), raw('Data', false)] }),
    struct('SchemaVersion', VERSION),
  ],
  HostComputeLoadBalancer: [
    s('ID'),
    slice('HostComputeEndpoints', 'string'),
    s('SourceVIP'),
    slice('FrontendVIPs', 'string'),
    slice('PortMappings', {
      struct: [n('Protocol'), n('InternalPort'), n('ExternalPort'), n('DistributionType'), n('Flags')],
    }),
    struct('SchemaVersion', VERSION),
    n('Flags'),
  ],
  HostComputeRoute: [
    s('ID'),
    slice('HostComputeEndpoints', 'string'),
    slice('Setting', { struct: [s('DestinationPrefix'), s('NextHop'), ['NeedEncap', 'bool', true]] }),
    struct('SchemaVersion', VERSION),
  ],
} as const satisfies Record<string, readonly GoField[]>;

function decode(kind: GoKind, v: Json | undefined): Json | undefined {
  if (kind === 'string') return typeof v === 'string' ? v : '';
  if (kind === 'number') return typeof v === 'number' ? v : 0;
  if (kind === 'bool') return v === true;
  if (kind === 'raw') return v;
  if ('struct' in kind)
    return encodeStruct(kind.struct, v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {});
  return Array.isArray(v) ? v.map((x) => decode(kind.slice, x) ?? null) : undefined;
}

function isZero(kind: GoKind, v: Json | undefined): boolean {
  if (kind === 'string') return v === '';
  if (kind === 'number') return v === 0;
  if (kind === 'bool') return v === false;
  if (kind === 'raw') return v === undefined;
  if ('struct' in kind) return false; // omitempty never omits a struct
  return v === undefined || (Array.isArray(v) && v.length === 0);
}

function encodeStruct(fields: readonly GoField[], obj: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [name, kind, omitempty] of fields) {
    const v = decode(kind, obj[name]);
    if (omitempty && isZero(kind, v)) continue;
    out[name] = v === undefined ? null : v;
  }
  return out;
}

/**
 * `json.Marshal(obj)` after `json.Unmarshal(hnsOutput, &obj)` for hcsshim struct `type`: keys hcsshim
 * does not know are dropped, zero omitempty fields vanish, struct fields always appear. Keys must be
 * spelled exactly as hcsshim's tags (stricter than Go's case-insensitive match).
 */
export function goView(type: keyof typeof GO_STRUCTS, obj: JsonObject): JsonObject {
  return encodeStruct(GO_STRUCTS[type], obj);
}

/** Whether `ip` is a usable host address of `a.b.c.0/24` other than the gateway `.1`. */
export function isHostOf24(ip: unknown, net24: string): boolean {
  if (typeof ip !== 'string' || !ip.startsWith(`${net24}.`)) return false;
  const last = Number(ip.slice(net24.length + 1));
  return Number.isInteger(last) && last >= 2 && last <= 254;
}
