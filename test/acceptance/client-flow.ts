/**
 * Client-side pieces shared by the production-client vectors (flannel, CNI win-overlay/win-bridge,
 * kube-proxy): hcsshim's v1 `hnsCall` semantics, the Go error predicates computed from an HRESULT,
 * Go's `net.ParseMAC` / `HardwareAddr.String()`, and the host-interface lookup flannel does with
 * `net.Interfaces()`. Everything here is written from the upstream client code, never from src/.
 *
 * Upstream: microsoft/hcsshim v0.14.1 (fb5aa2e9) `internal/hns/hnsfuncs.go:14-51`,
 * `internal/hns/hnsnetwork.go:79-90`, `internal/hns/hnsendpoint.go:74-79,143-154`,
 * `hcn/zsyscall_windows.go` (HRESULT → Errno), `hcn/hcnerrors.go` (`IsNotImplemented`,
 * `IsNotFoundError`); flannel-io/flannel @ cdf76059 `pkg/ip/iface_windows.go:86-114`.
 */
import type { Json, JsonObject } from '../../src/core/json.js';
import type { Host } from '../../src/host/host.js';
import { DEFAULT_QUERY, filterQuery } from './hcsshim-flow.js';
import { ZERO_GUID } from './hcsshim-vectors.js';

// hcsshim's zero GUID (`&GUID{}`, the id of every create), `json.Marshal(defaultQuery())` and the
// GetXByName / GetXByID query (`Filter` a JSON string inside the JSON), from the hcsshim kits
export { DEFAULT_QUERY, filterQuery as hcnFilterQuery, ZERO_GUID };

// ─────────────────────────────── HRESULT → hcsshim's error code ───────────────────────────────

/**
 * What the generated syscall stub keeps of a failing HRESULT (`hcn/zsyscall_windows.go`):
 * `if int32(r0) < 0 { if r0&0x1fff0000 == 0x00070000 { r0 &= 0xffff }; hr = syscall.Errno(r0) }`.
 */
export function goErrnoOf(hresult: number): number {
  const r0 = hresult >>> 0;
  if ((r0 | 0) >= 0) return r0;
  return (r0 & 0x1fff0000) === 0x00070000 ? r0 & 0xffff : r0;
}

/** `hcn.IsNotImplemented(err)`: the kept code equals `windows.E_NOTIMPL` (0x80004001). */
export function goIsNotImplemented(hresult: number): boolean {
  return goErrnoOf(hresult) === 0x80004001;
}

/** `hcn.IsNotFoundError(err)` for a service failure: the kept code is `ERROR_NOT_FOUND` (0x490). */
export function goIsErrorNotFound(hresult: number): boolean {
  return goErrnoOf(hresult) === 0x490;
}

// ───────────────────────────────────── v1 HNSCall (hcsshim) ─────────────────────────────────────

/** A v1 failure as hcsshim reports it: the HNSCall itself failed, or the response said Success:false. */
export class HnsV1Error extends Error {
  constructor(
    message: string,
    /** The HRESULT when the call itself failed (0 when HNS answered Success:false). */
    readonly hresult: number,
    /** The response's `Error` text (empty when the call itself failed). */
    readonly hnsError: string,
  ) {
    super(message);
  }
}

export interface V1Call {
  readonly method: string;
  readonly path: string;
  readonly request: string;
}

/**
 * hcsshim's `internal/hns` transport over the simulator: `hnsCall(method, path, request, &out)`.
 * Every call is logged so the vectors can assert the exact sequence a client sends.
 */
export class HnsV1 {
  readonly log: V1Call[] = [];

  constructor(readonly host: Host) {}

  /** The raw `{"Success","Error","Output"}` response; throws if the HNSCall itself fails. */
  response(method: string, path: string, request = ''): JsonObject {
    this.log.push({ method, path, request });
    const r = this.host.api.HNSCall(method, path, request);
    if (!r.ok) {
      throw new HnsV1Error(
        `failed during hnsCallRawResponse: hnsCall failed in Win32: ${r.message}`,
        r.hr,
        '',
      );
    }
    return r.result;
  }

  /**
   * `hnsCall`: Success:false → `"hns failed with error : " + Error`; an absent or empty Output
   * → the caller's zero value (undefined here); else the Output.
   */
  request(method: string, path: string, request = ''): Json | undefined {
    const resp = this.response(method, path, request);
    if (resp.Success !== true) {
      const text = typeof resp.Error === 'string' ? resp.Error : '';
      throw new HnsV1Error(`hns failed with error : ${text}`, 0, text);
    }
    return resp.Output;
  }

  /** `HNSListNetworkRequest("GET", "", "")`: `GET /networks/`. */
  listNetworks(): JsonObject[] {
    return asArray(this.request('GET', '/networks/'));
  }

  /** `GetHNSNetworkByName`: the first list entry whose `Name` equals `name` exactly. */
  networkByName(name: string): JsonObject | undefined {
    return this.listNetworks().find((n) => n.Name === name);
  }

  /** `HNSListEndpointRequest()`: `GET /endpoints/`. */
  listEndpoints(): JsonObject[] {
    return asArray(this.request('GET', '/endpoints/'));
  }

  /** `GetHNSEndpointByName`: the first list entry whose `Name` equals `name` exactly. */
  endpointByName(name: string): JsonObject | undefined {
    return this.listEndpoints().find((e) => e.Name === name);
  }

  count(method: string, pathPrefix: string): number {
    return this.log.filter((c) => c.method === method && c.path.startsWith(pathPrefix)).length;
  }
}

function asArray(out: Json | undefined): JsonObject[] {
  if (!Array.isArray(out)) throw new Error(`expected a JSON array, got ${JSON.stringify(out)}`);
  return out as JsonObject[];
}

// ──────────────────────────────────────── Go net helpers ────────────────────────────────────────

/** `ip.ParseIP4(s)` (flannel pkg/ip): a dotted IPv4 address, else undefined. */
export function goParseIP4(s: unknown): string | undefined {
  if (typeof s !== 'string') return undefined;
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts.join('.') : undefined;
}

const HEX2 = /^[0-9a-fA-F]{2}$/;
const HEX4 = /^[0-9a-fA-F]{4}$/;

/**
 * Go's `net.ParseMAC` for the 6-byte forms: `00:15:5d:ab:cd:ef`, `00-15-5D-AB-CD-EF` (any case,
 * one separator throughout) and `0015.5dab.cdef`. Bare `00155DABCDEF` and `""` are rejected.
 */
export function goParseMac(s: unknown): number[] | undefined {
  if (typeof s !== 'string') return undefined;
  for (const sep of [':', '-']) {
    const groups = s.split(sep);
    if (groups.length === 6 && groups.every((g) => HEX2.test(g))) return groups.map((g) => parseInt(g, 16));
  }
  const dotted = s.split('.');
  if (dotted.length === 3 && dotted.every((g) => HEX4.test(g))) {
    return dotted.flatMap((g) => [parseInt(g.slice(0, 2), 16), parseInt(g.slice(2), 16)]);
  }
  return undefined;
}

/** `net.HardwareAddr.String()`: colon-separated lower-case hex. */
export function goHardwareAddrString(mac: readonly number[]): string {
  return mac.map((b) => b.toString(16).padStart(2, '0')).join(':');
}

/**
 * `ip.GetInterfaceByIP(ip)` (flannel pkg/ip/iface_windows.go): the host interface that carries
 * exactly this IPv4 address, from the simulated `Get-NetAdapter`/`Get-NetIPAddress` view.
 */
export function hostInterfaceWithIp(host: Host, ip: string): JsonObject | undefined {
  return host.adapters().find((a) => a.IPv4Address === ip);
}

// ──────────────────────────────────── v2 HCN (hcsshim hcn) ────────────────────────────────────

/** A failing HCN call as hcsshim's `checkForErrors` reports it (the unsigned HRESULT kept whole). */
export class HcnCallError extends Error {
  constructor(
    readonly fn: string,
    readonly hresult: number,
    readonly code: string,
  ) {
    super(`${fn} failed in Win32: 0x${hresult.toString(16)} ${code}`);
  }
}

export interface HcnCall {
  readonly fn: string;
  readonly args: readonly unknown[];
}

type Kind = 'Network' | 'Endpoint' | 'Namespace' | 'LoadBalancer';

/**
 * hcsshim's `hcn` package call sequences over the flat API (hcn/hcnnetwork.go, hcnendpoint.go,
 * hcnnamespace.go, hcnloadbalancer.go): lookups are Enumerate(filter) + Query(each, same filter),
 * creates and modifies are followed by a default query. Every flat call is logged.
 */
export class HcnV2 {
  readonly log: HcnCall[] = [];

  constructor(readonly host: Host) {}

  private run<T>(fn: string, args: readonly unknown[]): T {
    this.log.push({ fn, args });
    const api = this.host.api as unknown as Record<string, (...a: unknown[]) => unknown>;
    const r = api[fn]!.apply(this.host.api, args as unknown[]) as
      { ok: true; result: T } | { ok: false; hr: number; name: string };
    if (!r.ok) throw new HcnCallError(fn, r.hr, r.name);
    return r.result;
  }

  calls(fn: string): HcnCall[] {
    return this.log.filter((c) => c.fn === fn);
  }

  /** `ListXQuery(query)`: enumerate, then query each ID with the same query. */
  list(kind: Kind, query: string = DEFAULT_QUERY): JsonObject[] {
    const ids = this.run<string[]>(`HcnEnumerate${kind}s`, [query]);
    return ids.map((id) => this.run<JsonObject>(`HcnQuery${kind}Properties`, [id, query]));
  }

  /** `GetXByName` / `GetXByID`: the first of the filtered list, undefined for hcsshim's NotFoundError. */
  byName(kind: 'Network' | 'Endpoint', name: string): JsonObject | undefined {
    return this.list(kind, filterQuery({ Name: name }))[0];
  }

  byId(kind: Kind, id: string): JsonObject | undefined {
    return this.list(kind, filterQuery({ ID: id }))[0];
  }

  private query(kind: Kind, id: string): JsonObject {
    return this.run<JsonObject>(`HcnQuery${kind}Properties`, [id, DEFAULT_QUERY]);
  }

  createNetwork(settings: string): JsonObject {
    const created = this.run<JsonObject>('HcnCreateNetwork', [ZERO_GUID, settings]);
    return this.query('Network', String(created.ID));
  }

  /** `network.AddPolicy` / `RemovePolicy`: HcnModifyNetwork, then the default query. */
  modifyNetwork(id: string, request: string): JsonObject {
    this.run<null>('HcnModifyNetwork', [id, request]);
    return this.query('Network', id);
  }

  deleteNetwork(id: string): void {
    this.run<null>('HcnDeleteNetwork', [id]);
  }

  /** `network.CreateEndpoint(ep)`: HcnCreateEndpoint on the network, then the default query. */
  createEndpoint(networkId: string, settings: string): JsonObject {
    const created = this.run<JsonObject>('HcnCreateEndpoint', [networkId, ZERO_GUID, settings]);
    return this.query('Endpoint', String(created.ID));
  }

  deleteEndpoint(id: string): void {
    this.run<null>('HcnDeleteEndpoint', [id]);
  }

  createNamespace(settings: string): JsonObject {
    const created = this.run<JsonObject>('HcnCreateNamespace', [ZERO_GUID, settings]);
    return this.query('Namespace', String(created.ID));
  }

  /** `AddNamespaceEndpoint` / `RemoveNamespaceEndpoint`: HcnModifyNamespace, then the default query. */
  modifyNamespace(id: string, request: string): JsonObject {
    this.run<null>('HcnModifyNamespace', [id, request]);
    return this.query('Namespace', id);
  }

  deleteNamespace(id: string): void {
    this.run<null>('HcnDeleteNamespace', [id]);
  }

  createLoadBalancer(settings: string): JsonObject {
    const created = this.run<JsonObject>('HcnCreateLoadBalancer', [ZERO_GUID, settings]);
    return this.query('LoadBalancer', String(created.ID));
  }

  /** `loadBalancer.Update(id)`: HcnModifyLoadBalancer on the opened ID, then the default query. */
  updateLoadBalancer(id: string, settings: string): JsonObject {
    this.run<null>('HcnModifyLoadBalancer', [id, settings]);
    return this.query('LoadBalancer', id);
  }

  deleteLoadBalancer(id: string): void {
    this.run<null>('HcnDeleteLoadBalancer', [id]);
  }
}
