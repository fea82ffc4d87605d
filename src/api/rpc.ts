/**
 * The JSON-RPC 2.0 face of one simulated host (DESIGN: api/, `hnsim serve`): one request per line in,
 * one response per line out. A method is a flat API function (reference hns-hcs.md §0.1) called with
 * `params` as its positional arguments; an HNS failure is error -32000 carrying the HRESULT, its
 * registered name and the ErrorRecord HNS returns beside it. A few host methods (Snapshot, Restore,
 * RestartHns, Reboot, GetVersion, ListMethods) complete the surface.
 *
 *   const rpc = new RpcServer(createHost({ seed: 1 }));
 *   rpc.handle('{"jsonrpc":"2.0","id":1,"method":"HcnEnumerateNetworks","params":[]}');
 *   // '{"jsonrpc":"2.0","id":1,"result":[]}'
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { HnsError } from '../core/errors.js';
import { isJsonObject, type Json, type JsonObject } from '../core/json.js';
import type { Host } from '../host/host.js';
import type { RestartPolicy } from '../hns/lifecycle.js';
import { FLAT_API_METHODS, isFailure, type FlatApi, type HcnResult } from './flat.js';

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

/** Host methods served beside the flat API. */
export const HOST_RPC_METHODS = [
  'Snapshot',
  'Restore',
  'RestartHns',
  'Reboot',
  'GetVersion',
  'ListMethods',
] as const;
export type HostRpcMethod = (typeof HOST_RPC_METHODS)[number];

/** Every method name the server answers, flat API first. */
export const RPC_METHODS: readonly string[] = [...FLAT_API_METHODS, ...HOST_RPC_METHODS];

/** How many positional parameters each host method takes at most. */
const HOST_ARITY: Readonly<Record<HostRpcMethod, number>> = {
  Snapshot: 0,
  Restore: 1,
  RestartHns: 1,
  Reboot: 1,
  GetVersion: 0,
  ListMethods: 0,
};

const RESTART_KEYS: Readonly<Record<keyof RestartPolicy, readonly string[]>> = {
  networks: ['keep', 'keepPersistent', 'remove'],
  endpoints: ['keep', 'remove'],
  namespaces: ['keep', 'remove'],
  loadBalancers: ['keep', 'remove'],
  routes: ['keep', 'remove'],
  policyLists: ['keep', 'remove'],
};

/** Thrown inside the server to answer with a protocol error. */
class ProtocolError {
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
  return hnsFailureError({ hr: e.hresult, name: e.code, message: e.message, errorRecord: e.errorRecord() });
}

function isValidId(v: unknown): v is RpcId {
  return v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}

/** Arity of a flat API function: its declared parameter count (optional ones included). */
function flatArity(api: FlatApi, method: string): number {
  const fn = (api as unknown as Record<string, unknown>)[method];
  return typeof fn === 'function' ? fn.length : 0;
}

function readRestartPolicy(v: Json | undefined): Partial<RestartPolicy> {
  if (v === undefined || v === null) return {};
  if (!isJsonObject(v)) {
    throw new ProtocolError(RpcErrorCode.InvalidParams, 'restart policy must be an object');
  }
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    const allowed = (RESTART_KEYS as Record<string, readonly string[]>)[k];
    if (!Object.hasOwn(RESTART_KEYS, k) || !allowed) {
      throw new ProtocolError(RpcErrorCode.InvalidParams, `unknown restart policy key "${k}"`);
    }
    if (typeof x !== 'string' || !allowed.includes(x)) {
      throw new ProtocolError(
        RpcErrorCode.InvalidParams,
        `restart policy ${k} must be one of ${allowed.join(', ')}`,
      );
    }
    out[k] = x;
  }
  return out as Partial<RestartPolicy>;
}

/**
 * A JSON-RPC 2.0 server over one host. `handle` never throws: every line gets exactly one response
 * line, except notifications (requests without `id`) and blank lines, which get none.
 */
export class RpcServer {
  constructor(readonly host: Host) {}

  /** Answer one input line: the response line (no trailing newline), or undefined for none. */
  handle(line: string): string | undefined {
    try {
      if (line.trim() === '') return undefined;
      let msg: unknown;
      try {
        msg = JSON.parse(line);
      } catch {
        return JSON.stringify(rpcError(null, RpcErrorCode.ParseError, 'Parse error'));
      }
      const out = this.dispatch(msg);
      return out === undefined ? undefined : JSON.stringify(out);
    } catch (e) {
      return JSON.stringify(rpcError(null, RpcErrorCode.InternalError, `Internal error: ${describe(e)}`));
    }
  }

  /** Answer a parsed message: a request, or a batch (array) of them. */
  dispatch(msg: unknown): RpcResponse | RpcResponse[] | undefined {
    if (Array.isArray(msg)) {
      if (msg.length === 0) {
        return rpcError(null, RpcErrorCode.InvalidRequest, 'Invalid Request: empty batch');
      }
      const out: RpcResponse[] = [];
      for (const m of msg as unknown[]) {
        const r = this.request(m);
        if (r) out.push(r);
      }
      return out.length ? out : undefined;
    }
    return this.request(msg);
  }

  /** Answer one request object; undefined for a notification. */
  request(msg: unknown): RpcResponse | undefined {
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
      const result = this.call(msg.method, msg.params, Object.hasOwn(msg, 'params'));
      response =
        'error' in result
          ? { jsonrpc: '2.0', id: rid, error: result.error }
          : { jsonrpc: '2.0', id: rid, result: result.value };
    } catch (e) {
      response =
        e instanceof ProtocolError
          ? rpcError(rid, e.code, e.message)
          : e instanceof HnsError
            ? { jsonrpc: '2.0', id: rid, error: hnsErrorObject(e) }
            : rpcError(rid, RpcErrorCode.InternalError, `Internal error: ${describe(e)}`);
    }
    return hasId ? response : undefined;
  }

  /** Run a method by name with raw `params`; protocol problems throw ProtocolError. */
  private call(
    method: string,
    rawParams: Json | undefined,
    present: boolean,
  ): { value: Json } | { error: RpcError } {
    const isFlat = (FLAT_API_METHODS as readonly string[]).includes(method);
    const isHost = (HOST_RPC_METHODS as readonly string[]).includes(method);
    if (!isFlat && !isHost) {
      throw new ProtocolError(RpcErrorCode.MethodNotFound, `Method not found: ${method}`);
    }
    if (present && !Array.isArray(rawParams)) {
      throw new ProtocolError(
        RpcErrorCode.InvalidParams,
        'Invalid params: params must be an array of positional arguments',
      );
    }
    const params: Json[] = Array.isArray(rawParams) ? rawParams : [];
    const max = isFlat ? flatArity(this.host.api, method) : HOST_ARITY[method as HostRpcMethod];
    if (params.length > max) {
      throw new ProtocolError(
        RpcErrorCode.InvalidParams,
        `Invalid params: ${method} takes at most ${max} parameter${max === 1 ? '' : 's'}, got ${params.length}`,
      );
    }
    if (isFlat) return this.flat(this.host.api.call(method, params));
    return { value: this.hostMethod(method as HostRpcMethod, params) };
  }

  private flat(r: HcnResult<Json> | undefined): { value: Json } | { error: RpcError } {
    if (!r) throw new ProtocolError(RpcErrorCode.MethodNotFound, 'Method not found');
    if (isFailure(r)) return { error: hnsFailureError(r) };
    return { value: r.result === undefined ? null : r.result };
  }

  private hostMethod(method: HostRpcMethod, params: readonly Json[]): Json {
    const host = this.host;
    switch (method) {
      case 'Snapshot':
        return host.snapshot();
      case 'Restore':
        host.restore(params[0]);
        return null;
      case 'RestartHns':
        host.restartHns(readRestartPolicy(params[0]));
        return null;
      case 'Reboot':
        host.reboot(readRestartPolicy(params[0]));
        return null;
      case 'GetVersion':
        return versionDocument(host);
      case 'ListMethods':
        return [...RPC_METHODS];
    }
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
 * Serve JSON-RPC over a line stream until `input` ends: each line is answered in order, responses
 * written one per line. Resolves when the input is exhausted and every response has been written.
 */
export async function serveStdio(host: Host, input: Readable, output: Writable): Promise<void> {
  const server = new RpcServer(host);
  const lines = createInterface({ input, crlfDelay: Infinity, terminal: false });
  for await (const line of lines) {
    const out = server.handle(line);
    if (out === undefined) continue;
    if (!output.write(out + '\n')) await new Promise<void>((resolve) => output.once('drain', resolve));
  }
}

/** Convenience for in-process clients and tests: the parsed response to one request object. */
export function callRpc(
  server: RpcServer,
  method: string,
  params: readonly Json[] = [],
  id: RpcId = 1,
): RpcResponse {
  const line = server.handle(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  return JSON.parse(line!) as RpcResponse;
}
