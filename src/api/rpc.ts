/**
 * The JSON-RPC 2.0 face of one simulated host (DESIGN: api/, `hnsim serve`): one request per line in,
 * one response per line out. A method is a flat API function (reference hns-hcs.md §0.1) called with
 * `params` as its positional arguments; an HNS failure is error -32000 carrying the HRESULT, its
 * registered name and the ErrorRecord HNS returns beside it. A few host methods (Snapshot, Restore,
 * RestartHns, Reboot, GetVersion, ListMethods, faults and the clock) complete the surface, with the
 * dataplane's: Trace and Send (src/dataplane/trace.ts) and the host's route table, and the HCS
 * test hooks: RestartHcs (a vmcompute stop) and HcsInjectExit (a compute system dies).
 *
 *   const rpc = new RpcServer(createHost({ seed: 1 }));
 *   rpc.handle('{"jsonrpc":"2.0","id":1,"method":"HcnEnumerateNetworks","params":[]}');
 *   // '{"jsonrpc":"2.0","id":1,"result":[]}'
 */
import { containerView } from '../hcs/view.js';
import { renderGetDnsClient, renderIpconfigAll, renderRoutePrint } from '../render/container.js';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { HnsError, hnsError } from '../core/errors.js';
import { cloneJson, isJsonObject, type Json, type JsonObject } from '../core/json.js';
import type { ExitType } from '../hcs/model.js';
import type { Host } from '../host/host.js';
import { RESTART_CHOICES, type RestartPolicy } from '../hns/lifecycle.js';
import { checkRequest, traceJson, type SendRequest, type TraceRequest } from '../dataplane/trace.js';
import type { HostRoute, RouteSpec } from '../dataplane/plane.js';
import { fmt, fmtPrefix } from '../vswitch/v4.js';
import { MATCHER_KEYS, readHResult, type CallMatcher, type HeldCall, type RuleOptions } from './faults.js';
import {
  failureOf,
  FLAT_API_METHODS,
  isFailure,
  type FlatApi,
  type FlatApiMethod,
  type HcnResult,
} from './flat.js';

/** JSON-RPC 2.0 error codes (spec §5.1) and the server error code used for HNS failures. */
export const RpcErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** An HNS/HCS failure: `data` holds `{hresult, name, errorRecord}`. */
  HnsFailure: -32000,
} as const;

export type RpcId = string | number | null;

export interface RpcError {
  readonly code: number;
  readonly message: string;
  readonly data?: Json;
}

export type RpcResponse =
  | { readonly jsonrpc: '2.0'; readonly id: RpcId; readonly result: Json }
  | { readonly jsonrpc: '2.0'; readonly id: RpcId; readonly error: RpcError };

/**
 * Host methods served beside the flat API, in the order ListMethods lists them, with how many
 * positional parameters each takes at most.
 */
const HOST_ARITY = {
  Snapshot: 0,
  Restore: 1,
  RestartHns: 1,
  Reboot: 1,
  RestartHcs: 0,
  HcsInjectExit: 3,
  GetContainerView: 2,
  GetVersion: 0,
  GetAdapters: 0,
  GetIpInterfaces: 0,
  ListMethods: 0,
  FaultFail: 1,
  FaultDelay: 1,
  FaultHang: 1,
  FaultRelease: 1,
  FaultRemove: 1,
  FaultList: 0,
  FaultHeld: 0,
  FaultClear: 0,
  ClockNow: 0,
  ClockAdvance: 1,
  Trace: 1,
  Send: 1,
  GetRoutes: 0,
  AddRoute: 1,
  RemoveRoute: 2,
  RenameAdapter: 2,
  SetAdapterAddress: 3,
  OvsStart: 0,
  OvsStop: 0,
  OvsVsctl: 1,
  OvsOfctl: 1,
  OvsAppctl: 1,
} as const satisfies Readonly<Record<string, number>>;
export type HostRpcMethod = keyof typeof HOST_ARITY;

/** Host methods served beside the flat API. */
export const HOST_RPC_METHODS = Object.keys(HOST_ARITY) as readonly HostRpcMethod[];

/** Every method name the server answers, flat API first. */
export const RPC_METHODS: readonly string[] = [...FLAT_API_METHODS, ...HOST_RPC_METHODS];

const RESTART_KEYS: Readonly<Record<keyof RestartPolicy, readonly string[]>> = RESTART_CHOICES;

/**
 * A method served beside the flat API and the host methods, given by a layer above api/ (the CNI
 * layer's CniExec and CniExecList, `cniRpcMethods` in src/plugins/index.ts): at most `arity`
 * positional parameters; a `RpcProtocolError` it throws is answered as that error, an `HnsError`
 * as an HNS failure.
 */
export interface RpcMethod {
  readonly arity: number;
  run(params: readonly Json[]): Promise<Json> | Json;
}

export interface RpcServerOptions {
  /** Extra methods by name (they may not shadow a flat API or host method). */
  readonly methods?: Readonly<Record<string, RpcMethod>>;
}

/** Thrown inside the server (or an extra method) to answer with a protocol error. */
export class RpcProtocolError {
  constructor(
    readonly code: number,
    readonly message: string,
  ) {}
}

function rpcError(id: RpcId, code: number, message: string, data?: Json): RpcResponse {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

/** The error object for an HNS failure: code -32000, the HNS message, HRESULT data. */
export function hnsFailureError(f: {
  readonly hr: number;
  readonly name: string;
  readonly message: string;
  readonly errorRecord: { Success: false; Error: string; ErrorCode: number };
}): RpcError {
  return {
    code: RpcErrorCode.HnsFailure,
    message: f.message,
    data: {
      hresult: f.hr >>> 0,
      name: f.name,
      errorRecord: { Success: false, Error: f.errorRecord.Error, ErrorCode: f.errorRecord.ErrorCode },
    },
  };
}

/** The error object for a thrown HnsError (a host method failing). */
export function hnsErrorObject(e: HnsError): RpcError {
  return hnsFailureError(failureOf(e));
}

function isValidId(v: unknown): v is RpcId {
  return v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}

/** Arity of a flat API function: its declared parameter count (optional ones included). */
function flatArity(api: FlatApi, method: string): number {
  const fn = (api as unknown as Record<string, unknown>)[method];
  return typeof fn === 'function' ? fn.length : 0;
}

function readRestartPolicy(
  v: Json | undefined,
  allowDowntime: boolean,
): Partial<RestartPolicy> & { downtimeMs?: number } {
  if (v === undefined || v === null) return {};
  if (!isJsonObject(v)) {
    throw new RpcProtocolError(RpcErrorCode.InvalidParams, 'restart policy must be an object');
  }
  const out: Record<string, string | number> = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === 'downtimeMs' && allowDowntime) {
      if (!isMs(x)) {
        throw new RpcProtocolError(RpcErrorCode.InvalidParams, 'downtimeMs must be a number ≥ 0');
      }
      out[k] = x;
      continue;
    }
    const allowed = (RESTART_KEYS as Record<string, readonly string[]>)[k];
    if (!Object.hasOwn(RESTART_KEYS, k) || !allowed) {
      throw new RpcProtocolError(RpcErrorCode.InvalidParams, `unknown restart policy key "${k}"`);
    }
    if (typeof x !== 'string' || !allowed.includes(x)) {
      throw new RpcProtocolError(
        RpcErrorCode.InvalidParams,
        `restart policy ${k} must be one of ${allowed.join(', ')}`,
      );
    }
    out[k] = x;
  }
  return out as Partial<RestartPolicy> & { downtimeMs?: number };
}

/** A span of simulated time: a finite number ≥ 0 (milliseconds). */
function isMs(v: Json | undefined): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0;
}

/** The compute system ID a host method takes first. */
function systemIdParam(method: HostRpcMethod, v: Json | undefined): string {
  if (typeof v !== 'string') throw invalidParams(`${method} takes the compute system ID (a string)`);
  return v;
}

/** An InvalidParams (-32602) answer with the message prefixed as the server prefixes its own. */
export function invalidParams(message: string): RpcProtocolError {
  return new RpcProtocolError(RpcErrorCode.InvalidParams, `Invalid params: ${message}`);
}

/**
 * The one object parameter of an extra method (CNI, CNS, Antrea, the analysis), with only the
 * given keys.
 */
export function objectParam(
  method: string,
  v: Json | undefined,
  keys: readonly string[],
  /** How the refusal of a non-object names what the method takes. */
  takes = `one object: {${keys.join(', ')}}`,
): JsonObject {
  if (!isJsonObject(v)) throw invalidParams(`${method} takes ${takes}`);
  for (const k of Object.keys(v)) {
    if (!keys.includes(k)) throw invalidParams(`${method}: unknown key "${k}" (${keys.join(', ')})`);
  }
  return v;
}

/** The single object parameter of a fault or clock method. */
function ruleParam(method: string, v: Json | undefined, allowed: readonly string[]): JsonObject {
  return objectParam(method, v, allowed, 'one object parameter');
}

function matcherOf(o: JsonObject): CallMatcher {
  const m: Record<string, Json> = {};
  for (const k of MATCHER_KEYS) if (o[k] !== undefined) m[k] = o[k]!;
  return m as CallMatcher;
}

function optTimes(method: string, o: JsonObject): RuleOptions {
  if (o.times === undefined) return {};
  if (typeof o.times !== 'number' || !Number.isInteger(o.times) || o.times < 1) {
    throw invalidParams(`${method}: times must be a positive integer`);
  }
  return { times: o.times };
}

function ruleNumber(method: string, o: JsonObject): number {
  if (typeof o.rule !== 'number' || !Number.isInteger(o.rule)) {
    throw invalidParams(`${method}: rule must be the number FaultFail/FaultDelay/FaultHang returned`);
  }
  return o.rule;
}

/** Run a fault-layer call, turning its E_INVALIDARG (bad matcher, bad HRESULT) into invalid params. */
function faultCall<T>(method: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof HnsError && e.code === 'E_INVALIDARG')
      throw invalidParams(`${method}: ${e.detail ?? e.message}`);
    throw e;
  }
}

/** A held call as data: the rule, arrival order, method and arguments (documents as sent). */
function heldJson(h: HeldCall & { readonly rule: number }): JsonObject {
  const params = h.call.args.map((a) => (a === undefined || a === null ? null : (cloneJson(a) ?? String(a))));
  return { rule: h.rule, seq: h.seq, method: h.call.method, params };
}

/**
 * The request of `Trace` or `Send`, checked by checkRequest (E_INVALIDARG naming the field):
 * `packets` and `bytes` belong to Send, `allBranches` to Trace.
 */
function traceRequest(method: 'Trace' | 'Send', v: Json | undefined): SendRequest {
  return checkRequest(v, method === 'Send' ? 'send' : 'trace') as TraceRequest & SendRequest;
}

/** What `GetContainerView(id, format?)` renders: data (absent), or a Windows command's text. */
const CONTAINER_VIEW_FORMATS = ['ipconfig', 'route', 'dnsclient'] as const;
type ContainerViewFormat = (typeof CONTAINER_VIEW_FORMATS)[number];

/** The exit types HcsInjectExit takes (`NotificationType` of a stopped system, hcs-lifecycle.md §1). */
const INJECTED_EXIT_TYPES: readonly ExitType[] = ['UnexpectedExit', 'GracefulExit', 'ForcedExit', 'Unknown'];

/** `HcsInjectExit(id, exitType?, status?)`'s parameters; wrong types are invalid params. */
function injectedExit(params: readonly Json[]): { id: string; exitType?: ExitType; status?: number } {
  const [id, exitType, status] = params;
  const out: { id: string; exitType?: ExitType; status?: number } = {
    id: systemIdParam('HcsInjectExit', id),
  };
  if (exitType !== undefined && exitType !== null) {
    if (typeof exitType !== 'string' || !(INJECTED_EXIT_TYPES as readonly string[]).includes(exitType))
      throw invalidParams(`HcsInjectExit: exitType must be one of ${INJECTED_EXIT_TYPES.join(', ')}`);
    out.exitType = exitType as ExitType;
  }
  if (status !== undefined && status !== null) {
    if (
      typeof status !== 'number' ||
      !Number.isInteger(status) ||
      status < -0x80000000 ||
      status > 0xffffffff
    )
      throw invalidParams('HcsInjectExit: status must be a 32-bit HRESULT (a number)');
    out.status = status;
  }
  return out;
}

const ROUTE_KEYS = ['destinationPrefix', 'nextHop', 'interfaceAlias', 'metric'];

/** `AddRoute`'s parameter as a RouteSpec; a wrong shape is E_INVALIDARG naming the field. */
function routeSpec(v: Json | undefined): RouteSpec {
  if (!isJsonObject(v))
    throw hnsError(
      'E_INVALIDARG',
      'a route must be an object {destinationPrefix, nextHop?, interfaceAlias?, metric?}',
    );
  for (const k of Object.keys(v))
    if (!ROUTE_KEYS.includes(k))
      throw hnsError('E_INVALIDARG', `unknown route field "${k}" (${ROUTE_KEYS.join(', ')})`);
  if (typeof v.destinationPrefix !== 'string')
    throw hnsError('E_INVALIDARG', 'destinationPrefix must be a string such as "10.244.2.0/24"');
  for (const k of ['nextHop', 'interfaceAlias'] as const)
    if (v[k] !== undefined && typeof v[k] !== 'string')
      throw hnsError('E_INVALIDARG', `${k} must be a string`);
  if (v.metric !== undefined && (typeof v.metric !== 'number' || !Number.isInteger(v.metric) || v.metric < 0))
    throw hnsError('E_INVALIDARG', 'metric must be an integer ≥ 0');
  return v as unknown as RouteSpec;
}

/** A host route as `GetRoutes` answers it (Get-NetRoute's fields; on-link routes have next hop 0.0.0.0). */
export function routeJson(r: HostRoute): JsonObject {
  return {
    destinationPrefix: fmtPrefix(r.dest),
    nextHop: fmt(r.nextHop),
    interfaceAlias: r.iface,
    metric: r.metric,
    origin: r.origin,
  };
}

/**
 * A JSON-RPC 2.0 server over one host. `handle` never rejects: every line gets exactly one response
 * line, except notifications (requests without `id`) and blank lines, which get none. Flat API
 * calls go through the host's fault layer, so a held or delayed call is answered when it completes
 * while other lines are answered meanwhile (match responses by `id`).
 */
export class RpcServer {
  readonly #extra: Readonly<Record<string, RpcMethod>>;

  constructor(
    readonly host: Host,
    options: RpcServerOptions = {},
  ) {
    const extra = options.methods ?? {};
    for (const name of Object.keys(extra)) {
      if (RPC_METHODS.includes(name)) throw new TypeError(`RPC method ${name} already exists`);
    }
    this.#extra = extra;
  }

  /** Every method this server answers: flat API, host methods, then the extra ones. */
  get methods(): readonly string[] {
    return [...RPC_METHODS, ...Object.keys(this.#extra)];
  }

  /** Answer one input line: the response line (no trailing newline), or undefined for none. */
  async handle(line: string): Promise<string | undefined> {
    try {
      if (line.trim() === '') return undefined;
      let msg: unknown;
      try {
        msg = JSON.parse(line);
      } catch {
        return JSON.stringify(rpcError(null, RpcErrorCode.ParseError, 'Parse error'));
      }
      const out = await this.dispatch(msg);
      return out === undefined ? undefined : JSON.stringify(out);
    } catch (e) {
      return JSON.stringify(rpcError(null, RpcErrorCode.InternalError, `Internal error: ${describe(e)}`));
    }
  }

  /** Answer a parsed message: a request, or a batch (array) of them, run concurrently. */
  async dispatch(msg: unknown): Promise<RpcResponse | RpcResponse[] | undefined> {
    if (Array.isArray(msg)) {
      if (msg.length === 0) {
        return rpcError(null, RpcErrorCode.InvalidRequest, 'Invalid Request: empty batch');
      }
      const answers = await Promise.all((msg as unknown[]).map((m) => this.request(m)));
      const out = answers.filter((r): r is RpcResponse => r !== undefined);
      return out.length ? out : undefined;
    }
    return this.request(msg);
  }

  /** Answer one request object; undefined for a notification. */
  async request(msg: unknown): Promise<RpcResponse | undefined> {
    if (!isJsonObject(msg)) {
      return rpcError(null, RpcErrorCode.InvalidRequest, 'Invalid Request: not an object');
    }
    const hasId = Object.hasOwn(msg, 'id');
    const id = msg.id;
    if (hasId && !isValidId(id)) {
      return rpcError(
        null,
        RpcErrorCode.InvalidRequest,
        'Invalid Request: id must be a string, number or null',
      );
    }
    const rid: RpcId = hasId ? (id as RpcId) : null;
    if (msg.jsonrpc !== '2.0') {
      return rpcError(rid, RpcErrorCode.InvalidRequest, 'Invalid Request: jsonrpc must be "2.0"');
    }
    if (typeof msg.method !== 'string') {
      return rpcError(rid, RpcErrorCode.InvalidRequest, 'Invalid Request: method must be a string');
    }
    let response: RpcResponse;
    try {
      const result = await this.call(msg.method, msg.params, Object.hasOwn(msg, 'params'));
      response =
        'error' in result
          ? { jsonrpc: '2.0', id: rid, error: result.error }
          : { jsonrpc: '2.0', id: rid, result: result.value };
    } catch (e) {
      response =
        e instanceof RpcProtocolError
          ? rpcError(rid, e.code, e.message)
          : e instanceof HnsError
            ? { jsonrpc: '2.0', id: rid, error: hnsErrorObject(e) }
            : rpcError(rid, RpcErrorCode.InternalError, `Internal error: ${describe(e)}`);
    }
    return hasId ? response : undefined;
  }

  /** Run a method by name with raw `params`; protocol problems throw RpcProtocolError. */
  private async call(
    method: string,
    rawParams: Json | undefined,
    present: boolean,
  ): Promise<{ value: Json } | { error: RpcError }> {
    const isFlat = (FLAT_API_METHODS as readonly string[]).includes(method);
    const isHost = (HOST_RPC_METHODS as readonly string[]).includes(method);
    const extra = isFlat || isHost || !Object.hasOwn(this.#extra, method) ? undefined : this.#extra[method];
    if (!isFlat && !isHost && !extra) {
      throw new RpcProtocolError(RpcErrorCode.MethodNotFound, `Method not found: ${method}`);
    }
    if (present && !Array.isArray(rawParams)) {
      throw invalidParams('params must be an array of positional arguments');
    }
    const params: Json[] = Array.isArray(rawParams) ? rawParams : [];
    const max = extra
      ? extra.arity
      : isFlat
        ? flatArity(this.host.api, method)
        : HOST_ARITY[method as HostRpcMethod];
    if (params.length > max) {
      throw invalidParams(
        `${method} takes at most ${max} parameter${max === 1 ? '' : 's'}, got ${params.length}`,
      );
    }
    if (extra) return { value: await extra.run(params) };
    if (isFlat) {
      const r = await this.host.transport.call({ method: method as FlatApiMethod, args: params });
      return this.flat(r);
    }
    return { value: this.hostMethod(method as HostRpcMethod, params) };
  }

  private flat(r: HcnResult<Json> | undefined): { value: Json } | { error: RpcError } {
    if (!r) throw new RpcProtocolError(RpcErrorCode.MethodNotFound, 'Method not found');
    if (isFailure(r)) return { error: hnsFailureError(r) };
    return { value: r.result === undefined ? null : r.result };
  }

  private hostMethod(method: HostRpcMethod, params: readonly Json[]): Json {
    const host = this.host;
    const faults = host.faults;
    switch (method) {
      case 'Snapshot':
        return host.snapshot();
      case 'Restore':
        host.restore(params[0]);
        return null;
      case 'RestartHns':
        host.restartHns(readRestartPolicy(params[0], true));
        return null;
      case 'Reboot':
        host.reboot(readRestartPolicy(params[0], false));
        return null;
      case 'RestartHcs':
        host.restartHcs();
        return null;
      case 'HcsInjectExit': {
        const x = injectedExit(params);
        return spelledAsHcs(host, () => {
          const rec = host.hcs.injectExit(x.id, x.exitType, x.status);
          return host.hcs.properties(rec.id);
        });
      }
      case 'GetContainerView': {
        const id = systemIdParam(method, params[0]);
        const format = params[1];
        if (format !== undefined && !CONTAINER_VIEW_FORMATS.includes(format as ContainerViewFormat))
          throw invalidParams(`GetContainerView: format must be one of ${CONTAINER_VIEW_FORMATS.join(', ')}`);
        const view = spelledAsHcs(host, () => containerView(host.hcs, id, host));
        switch (format as ContainerViewFormat | undefined) {
          case 'ipconfig':
            return renderIpconfigAll(view);
          case 'route':
            return renderRoutePrint(view);
          case 'dnsclient':
            return renderGetDnsClient(view);
          default:
            return JSON.parse(JSON.stringify(view)) as Json;
        }
      }
      case 'GetVersion':
        return versionDocument(host);
      case 'GetAdapters':
        return { adapters: host.adapters(), switches: host.switches() };
      case 'GetIpInterfaces':
        return host.ipInterfaces() as unknown as Json;
      case 'ListMethods':
        return [...this.methods];
      case 'FaultFail': {
        const o = ruleParam(method, params[0], [...MATCHER_KEYS, 'hresult', 'times', 'detail']);
        if (o.detail !== undefined && typeof o.detail !== 'string')
          throw invalidParams(`${method}: detail must be a string`);
        if (o.hresult === undefined)
          throw invalidParams(`${method}: hresult is required (a name or a number)`);
        const rule = faultCall(method, () =>
          faults.fail(matcherOf(o), readHResult(o.hresult), {
            ...optTimes(method, o),
            ...(typeof o.detail === 'string' ? { detail: o.detail } : {}),
          }),
        );
        return { rule: rule.id };
      }
      case 'FaultDelay': {
        const o = ruleParam(method, params[0], [...MATCHER_KEYS, 'ms', 'times']);
        if (typeof o.ms !== 'number')
          throw invalidParams(`${method}: ms (simulated milliseconds) is required`);
        const ms = o.ms;
        const rule = faultCall(method, () => faults.delay(matcherOf(o), ms, optTimes(method, o)));
        return { rule: rule.id };
      }
      case 'FaultHang': {
        const o = ruleParam(method, params[0], [...MATCHER_KEYS, 'times']);
        const gate = faultCall(method, () => faults.hang(matcherOf(o), optTimes(method, o)));
        return { rule: gate.id };
      }
      case 'FaultRelease': {
        const o = ruleParam(method, params[0], ['rule', 'one', 'stayOpen']);
        const gate = faults.gate(ruleNumber(method, o));
        if (!gate) throw invalidParams(`${method}: no hang rule ${String(o.rule)}`);
        if (o.one === true) return { released: gate.releaseOne() ? 1 : 0 };
        return { released: gate.release(o.stayOpen === true) };
      }
      case 'FaultRemove': {
        const o = ruleParam(method, params[0], ['rule']);
        return { removed: faults.remove(ruleNumber(method, o)) };
      }
      case 'FaultList':
        return faults.list() as unknown as Json;
      case 'FaultHeld':
        return faults.held().map(heldJson);
      case 'FaultClear':
        faults.clear();
        return null;
      case 'ClockNow':
        return { now: host.clock.now() };
      case 'ClockAdvance': {
        const ms = params[0];
        if (!isMs(ms)) {
          throw invalidParams('ClockAdvance takes the simulated milliseconds to advance (a number ≥ 0)');
        }
        host.clock.advance(ms);
        return { now: host.clock.now() };
      }
      case 'Trace':
        return traceJson(host.trace(traceRequest(method, params[0])));
      case 'Send':
        return traceJson(host.send(traceRequest(method, params[0])));
      case 'GetRoutes':
        return host.routes().map(routeJson);
      case 'AddRoute':
        return routeJson(host.addRoute(routeSpec(params[0])));
      case 'RemoveRoute': {
        const [prefix, nextHop] = params;
        if (typeof prefix !== 'string')
          throw hnsError(
            'E_INVALIDARG',
            'RemoveRoute takes the destination prefix (a string), then a next hop',
          );
        if (nextHop !== undefined && nextHop !== null && typeof nextHop !== 'string')
          throw hnsError('E_INVALIDARG', 'the next hop must be a string (or null for every next hop)');
        return { removed: host.removeRoute(prefix, nextHop ?? undefined) };
      }
      case 'RenameAdapter': {
        const [name, to] = params;
        if (typeof name !== 'string' || typeof to !== 'string')
          throw invalidParams('RenameAdapter takes the adapter name and its new name (strings)');
        host.renameAdapter(name, to);
        return null;
      }
      case 'SetAdapterAddress': {
        const [name, cidr, gateway] = params;
        if (typeof name !== 'string' || (cidr !== null && typeof cidr !== 'string'))
          throw invalidParams(
            'SetAdapterAddress takes the adapter name, an address with its prefix length (or null), a gateway',
          );
        if (gateway !== undefined && gateway !== null && typeof gateway !== 'string')
          throw invalidParams('SetAdapterAddress: the gateway must be a string');
        host.setAdapterAddress(name, cidr ?? undefined, gateway ?? undefined);
        return null;
      }
      case 'OvsStart':
        host.ovs.start();
        return { running: true };
      case 'OvsStop':
        host.ovs.stop();
        return { running: false };
      case 'OvsVsctl':
      case 'OvsOfctl':
      case 'OvsAppctl': {
        const argv = params[0];
        const words =
          typeof argv === 'string' && method === 'OvsVsctl'
            ? argv
            : Array.isArray(argv) && argv.every((a) => typeof a === 'string')
              ? (argv as string[])
              : undefined;
        if (words === undefined)
          throw invalidParams(
            `${method} takes the command's arguments as an array of strings${method === 'OvsVsctl' ? ' (or one command line)' : ''}`,
          );
        const r =
          typeof words === 'string'
            ? host.ovs.vsctl(words)
            : host.ovs.run(
                method === 'OvsVsctl' ? 'vsctl' : method === 'OvsOfctl' ? 'ofctl' : 'appctl',
                words,
              );
        return { status: r.status, stdout: r.stdout, stderr: r.stderr };
      }
    }
  }
}

/** Run a host method on the HCS: a failure is spelled as the host's Hcs* functions spell theirs. */
function spelledAsHcs<T>(host: Host, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw e instanceof HnsError ? host.api.spellHcs(e) : e;
  }
}

/** The `GetVersion` answer: the host profile; `version` in the `/globals/version` shape. */
export function versionDocument(host: Host): JsonObject {
  const p = host.profile;
  return {
    name: p.name,
    description: p.description,
    version: { Major: p.version.major, Minor: p.version.minor },
    schema: { Major: p.schema.major, Minor: p.schema.minor },
    build: p.build,
  };
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Serve JSON-RPC over a line stream until `input` ends. Lines are read in order and each request
 * starts before the next line is read; responses are written one per line as calls complete (in
 * request order unless a fault rule holds or delays a call). When the input ends, calls still held
 * are released and pending delays elapse, so every request is answered before this resolves.
 */
export async function serveStdio(
  host: Host,
  input: Readable,
  output: Writable,
  options: RpcServerOptions = {},
): Promise<void> {
  const server = new RpcServer(host, options);
  const lines = createInterface({ input, crlfDelay: Infinity, terminal: false });
  const pending = new Set<Promise<void>>();
  let writes: Promise<void> = Promise.resolve();
  const write = (text: string): Promise<void> => {
    writes = writes.then(
      () =>
        new Promise<void>((resolve) => {
          if (output.write(text + '\n')) resolve();
          else output.once('drain', resolve);
        }),
    );
    return writes;
  };
  for await (const line of lines) {
    const p: Promise<void> = server
      .handle(line)
      .then((out) => (out === undefined ? undefined : write(out)))
      .finally(() => pending.delete(p));
    pending.add(p);
    // let a call that nothing holds finish (and answer) before the next line is read
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  for (let guard = 0; pending.size && guard < 10_000; guard++) {
    host.faults.clear();
    host.clock.runAll();
    await Promise.race([...pending, new Promise<void>((resolve) => setImmediate(resolve))]);
  }
  await writes;
}

/** Convenience for in-process clients and tests: the parsed response to one request object. */
export async function callRpc(
  server: RpcServer,
  method: string,
  params: readonly Json[] = [],
  id: RpcId = 1,
): Promise<RpcResponse> {
  const line = await server.handle(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  return JSON.parse(line!) as RpcResponse;
}

/*
 * The TCP face (issue 10: a replacement computenetwork.dll under Wine reaches the simulator on
 * loopback TCP, reference wine-shim.md §3). Each connection is a session like serveStdio's, one
 * request per line, against one RpcServer: every connection sees the same host.
 */

/** The addresses serveTcp binds to: loopback only, since the server has no authentication. */
export const LOOPBACK_HOSTS = ['127.0.0.1', '::1', 'localhost'] as const;
export type LoopbackHost = (typeof LOOPBACK_HOSTS)[number];

/** Where serveTcp listens: a loopback host and a port (0: the system picks a free one). */
export interface TcpListen {
  readonly host: LoopbackHost;
  readonly port: number;
}

export interface TcpServeOptions extends RpcServerOptions {
  /**
   * The longest request line in bytes, its CR/LF excluded (default DEFAULT_MAX_LINE_BYTES). A longer
   * line is answered with a parse error (-32700, id null) in its place and skipped up to its end;
   * the connection stays open.
   */
  readonly maxLineBytes?: number;
}

/** A running TCP face. */
export interface TcpRpcServer {
  /** The bound address: 127.0.0.1 or ::1 ('localhost' resolved). */
  readonly address: string;
  /** The bound port (the one picked when 0 was asked). */
  readonly port: number;
  /** The server every connection shares. */
  readonly rpc: RpcServer;
  /** Connections open now. */
  readonly connections: number;
  /**
   * Stop listening and end every connection: lines not yet started are dropped, answers already
   * written are flushed, then each socket is ended (and destroyed if its peer has not closed within
   * a second). Calls in flight keep running in the host, held calls stay held, and their answers
   * are dropped: the host is the caller's and close() does not change it. Resolves when the last
   * connection is gone; calling it again returns the same promise.
   */
  close(): Promise<void>;
}

/** The default bound on a request line: 32 MiB, room for the Restore of a large snapshot. */
export const DEFAULT_MAX_LINE_BYTES = 32 * 1024 * 1024;

/** Lines read and not yet started on one connection beyond which the connection stops reading. */
const MAX_QUEUED_LINES = 256;

/** How long close() waits for a peer to close after the server ended its side. */
const CLOSE_GRACE_MS = 1000;

/** Whether a bound address is a loopback one (127.0.0.0/8, ::1, or 127/8 mapped into IPv6). */
function isLoopbackAddress(address: string): boolean {
  return address === '::1' || /^(::ffff:)?127\./i.test(address);
}

/** The listen address, checked: a RangeError names what is refused and why. */
function checkListen(listen: TcpListen): TcpListen {
  const { host, port } = listen as { host: unknown; port: unknown };
  if (typeof host !== 'string' || !(LOOPBACK_HOSTS as readonly string[]).includes(host)) {
    throw new RangeError(
      `refusing to listen on "${String(host)}": the JSON-RPC server listens on loopback only ` +
        `(${LOOPBACK_HOSTS.join(', ')}); it has no authentication`,
    );
  }
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new RangeError(`the port must be an integer 0..65535 (0 picks one), got ${String(port)}`);
  }
  return listen;
}

/** Queue marker for a line that went over the bound: answered with a parse error in its place. */
const TOO_LONG = Symbol('line too long');

/**
 * One connection: bytes split into lines (LF, an optional CR before it stripped, UTF-8), each line
 * started in arrival order after the previous one's synchronous work, as serveStdio does, and each
 * answer written when its call completes. Every complete line received is run, even when the peer
 * has gone since (a request that reached HNS is carried out); only its answer is dropped. When the
 * peer ends its side, a last line without LF is run too, and the socket is ended once every call
 * of the connection is answered: a held call keeps the connection half-open until it is let go.
 * Reading pauses while lines pile up or the peer does not read its answers.
 */
class TcpSession {
  /** Settles when the socket has closed. */
  readonly closed: Promise<void>;
  readonly #socket: Socket;
  readonly #rpc: RpcServer;
  readonly #max: number;
  readonly #tooLong: string;
  #partial: Buffer[] = [];
  #partialBytes = 0;
  /** Inside a line longer than the bound: bytes are dropped up to the next LF. */
  #skipping = false;
  #queue: (string | typeof TOO_LONG)[] = [];
  #head = 0;
  #pumping = false;
  #inFlight = 0;
  #inputEnded = false;
  #paused = false;
  /** The server is closing: nothing more is read or started. */
  #stopped = false;

  constructor(socket: Socket, rpc: RpcServer, maxLineBytes: number, onClose: () => void) {
    this.#socket = socket;
    this.#rpc = rpc;
    this.#max = maxLineBytes;
    this.#tooLong = JSON.stringify(
      rpcError(
        null,
        RpcErrorCode.ParseError,
        `Parse error: request line longer than ${maxLineBytes} bytes (skipped)`,
      ),
    );
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('end', () => {
      if (this.#stopped) return;
      if (this.#partialBytes > 0 && !this.#skipping) this.#endLine();
      this.#inputEnded = true;
      void this.#pump();
    });
    socket.on('drain', () => this.#flow());
    // ECONNRESET, EPIPE: the peer went away; 'close' follows and answers still due are dropped.
    socket.on('error', () => undefined);
    this.closed = new Promise<void>((resolve) =>
      socket.on('close', () => {
        this.#partial = [];
        this.#partialBytes = 0;
        onClose();
        resolve();
      }),
    );
  }

  /** The server closes: drop what has not started, flush what is written, end the socket. */
  shutdown(): void {
    this.#stopped = true;
    this.#queue = [];
    this.#head = 0;
    const s = this.#socket;
    if (s.destroyed) return;
    const timer = setTimeout(() => s.destroy(), CLOSE_GRACE_MS);
    timer.unref();
    s.once('close', () => clearTimeout(timer));
    s.resume(); // read (and drop) until the peer closes, so it is not reset with answers unread
    s.end();
  }

  #onData(chunk: Buffer): void {
    if (this.#stopped) return;
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, start)) {
      this.#addPiece(chunk.subarray(start, nl));
      this.#endLine();
      start = nl + 1;
    }
    if (start < chunk.length) this.#addPiece(chunk.subarray(start));
    this.#flow();
    void this.#pump();
  }

  /** Part of the current line; over the bound (one byte spared for a CR), the line is refused. */
  #addPiece(piece: Buffer): void {
    if (this.#skipping || piece.length === 0) return;
    if (this.#partialBytes + piece.length > this.#max + 1) {
      this.#refuseLine();
      this.#skipping = true;
      return;
    }
    this.#partial.push(piece);
    this.#partialBytes += piece.length;
  }

  /** An LF (or the end of input): the current line is complete. */
  #endLine(): void {
    if (this.#skipping) {
      this.#skipping = false;
      return;
    }
    const parts = this.#partial;
    let line = parts.length === 1 ? parts[0]! : Buffer.concat(parts, this.#partialBytes);
    this.#partial = [];
    this.#partialBytes = 0;
    if (line.length > 0 && line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1);
    if (line.length > this.#max) return this.#refuseLine();
    if (line.length > 0) this.#queue.push(line.toString('utf8'));
  }

  #refuseLine(): void {
    this.#partial = [];
    this.#partialBytes = 0;
    this.#queue.push(TOO_LONG);
  }

  /** Start queued lines one by one; each gets a turn of the event loop before the next starts. */
  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    while (!this.#stopped && this.#head < this.#queue.length) {
      const item = this.#queue[this.#head++]!;
      if (this.#head === this.#queue.length) {
        this.#queue = [];
        this.#head = 0;
      } else if (this.#head >= 1024) {
        this.#queue = this.#queue.slice(this.#head);
        this.#head = 0;
      }
      if (item === TOO_LONG) this.#send(this.#tooLong);
      else this.#run(item);
      this.#flow();
      // let a call that nothing holds finish (and answer) before the next line starts
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    this.#pumping = false;
    this.#maybeEnd();
  }

  #run(line: string): void {
    this.#inFlight++;
    void this.#rpc
      .handle(line)
      .then((out) => {
        if (out !== undefined) this.#send(out);
      })
      .catch(() => undefined) // handle never rejects; still, nothing may escape unhandled
      .then(() => {
        this.#inFlight--;
        this.#maybeEnd();
      });
  }

  #send(text: string): void {
    const s = this.#socket;
    if (s.destroyed || s.writableEnded) return; // the peer is gone or the server closing: dropped
    s.write(text + '\n');
    this.#flow();
  }

  /** Pause reading while lines pile up or the peer does not read its answers; resume after. */
  #flow(): void {
    const s = this.#socket;
    if (s.destroyed || this.#stopped) return;
    const hold = this.#queue.length - this.#head >= MAX_QUEUED_LINES || s.writableNeedDrain;
    if (hold && !this.#paused) s.pause();
    else if (!hold && this.#paused) s.resume();
    this.#paused = hold;
  }

  /** After the peer's end of input, end the socket once every line is answered. */
  #maybeEnd(): void {
    const s = this.#socket;
    if (!this.#inputEnded || this.#stopped || this.#pumping || this.#inFlight > 0) return;
    if (this.#head < this.#queue.length || s.destroyed || s.writableEnded) return;
    s.end();
  }
}

/**
 * Serve JSON-RPC on a loopback TCP port: each connection is a session as on stdio (one request per
 * line, answers as calls complete, match them by id) against one RpcServer, so every connection
 * sees, and may release, the same host and fault rules. Unlike serveStdio, a connection's end does
 * not release held calls or run delays: fault rules are the host's, and another connection may be
 * holding them on purpose. A non-loopback address or a bad port is refused with a RangeError; a
 * port in use rejects with Node's EADDRINUSE error.
 *
 *   const tcp = await serveTcp(createHost({ seed: 1 }), { host: '127.0.0.1', port: 0 });
 *   // connect to tcp.port, write '{"jsonrpc":"2.0","id":1,"method":"ListMethods"}\n', …
 *   await tcp.close();
 */
export async function serveTcp(
  host: Host,
  listen: TcpListen,
  options: TcpServeOptions = {},
): Promise<TcpRpcServer> {
  const where = checkListen(listen);
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  if (!Number.isInteger(maxLineBytes) || maxLineBytes < 1) {
    throw new RangeError(`maxLineBytes must be a positive integer, got ${String(maxLineBytes)}`);
  }
  const rpc = new RpcServer(host, options.methods ? { methods: options.methods } : {});
  const sessions = new Set<TcpSession>();
  let closing: Promise<void> | undefined;
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    if (closing) {
      socket.destroy();
      return;
    }
    const session = new TcpSession(socket, rpc, maxLineBytes, () => sessions.delete(session));
    sessions.add(session);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: where.host, port: where.port, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // Once listening, an error (a failed accept: EMFILE) refuses that connection, not the server.
  server.on('error', () => undefined);
  const bound = server.address() as AddressInfo;
  if (!isLoopbackAddress(bound.address)) {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw new RangeError(`refusing to listen on ${bound.address}: ${where.host} is not a loopback address`);
  }
  return {
    address: bound.address,
    port: bound.port,
    rpc,
    get connections() {
      return sessions.size;
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        const open = [...sessions];
        server.close(() => void Promise.all(open.map((s) => s.closed)).then(() => resolve()));
        for (const s of open) s.shutdown();
      });
      return closing;
    },
  };
}
