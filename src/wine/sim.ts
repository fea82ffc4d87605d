/**
 * The simulator a Windows program's DLLs reach (issue 10): the JSON-RPC TCP face of a simulated host
 * (src/api/rpc.ts serveTcp), given to the program as `HNSIM_ENDPOINT=127.0.0.1:PORT`. Either a
 * running `hnsim serve --listen` (connectSimulator: checked with one GetVersion call), or a host served
 * in this process for as long as it is needed (serveSimulator). `withFace(host, fn)` finds the face of
 * a host, starting a temporary one when it has none: what a CNI plugin binary run from inside the
 * simulator (CniExec, the CNI runner) uses.
 *
 *   const sim = await serveSimulator(host);      // sim.endpoint: '127.0.0.1:40513'
 *   … run the program with HNSIM_ENDPOINT = sim.endpoint …
 *   await sim.close();
 */
import { connect } from 'node:net';
import type { Host } from '../host/host.js';
import { serveTcp, type RpcMethod, type TcpRpcServer } from '../api/rpc.js';

/** The simulator cannot be reached at the address given (refused, timed out, or not hnsim). */
export class SimulatorUnreachableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SimulatorUnreachableError';
  }
}

/** A TCP face a program can be pointed at. */
export interface SimulatorFace {
  /** `127.0.0.1:PORT`: the value of HNSIM_ENDPOINT. */
  readonly endpoint: string;
  /** The host, when it is served in this process. */
  readonly host?: Host;
  /** The node's profile, as GetVersion answered (a connected face). */
  readonly version?: SimulatorVersion;
  /** Stop serving (a connected face: nothing to stop). */
  close(): Promise<void>;
}

/** The addresses `--connect` takes: a loopback host (the server listens on loopback only) and a port. */
export function parseEndpoint(text: string): { host: '127.0.0.1' | '::1'; port: number } | undefined {
  const m = /^\[([^\]]*)\]:(\d{1,5})$/.exec(text) ?? /^([^:[\]]*):(\d{1,5})$/.exec(text);
  if (!m) return undefined;
  const addr = m[1]!.toLowerCase();
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return undefined;
  if (addr === '127.0.0.1' || addr === 'localhost') return { host: '127.0.0.1', port };
  if (addr === '::1') return { host: '::1', port };
  return undefined;
}

/** `127.0.0.1:PORT`, or `[::1]:PORT`. */
function endpointText(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** What GetVersion answers about the node's profile (src/api/rpc.ts versionDocument). */
export interface SimulatorVersion {
  readonly name: string;
  readonly version: { readonly major: number; readonly minor: number };
}

/** One GetVersion call at a loopback address: the answer's profile, or a reason it failed. */
function askVersion(
  host: string,
  port: number,
  timeoutMs: number,
): Promise<{ version: SimulatorVersion } | { why: string }> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (r: { version: SimulatorVersion } | { why: string }): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(r);
    };
    const socket = connect({ host, port });
    const timer = setTimeout(() => finish({ why: `no answer within ${timeoutMs} ms` }), timeoutMs);
    let buf = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      socket.write('{"jsonrpc":"2.0","id":"hnsim-wine","method":"GetVersion","params":[]}\n');
    });
    socket.on('data', (t: string) => {
      buf += t;
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      let answer: unknown;
      try {
        answer = JSON.parse(buf.slice(0, nl));
      } catch {
        return finish({ why: 'the answer is not JSON-RPC' });
      }
      const a = answer as {
        id?: unknown;
        result?: { name?: unknown; version?: { Major?: unknown; Minor?: unknown } };
      };
      const r = a.result;
      if (a.id !== 'hnsim-wine' || r === undefined)
        return finish({ why: 'the answer is not a GetVersion result' });
      const major = r.version?.Major;
      const minor = r.version?.Minor;
      finish({
        version: {
          name: typeof r.name === 'string' ? r.name : '',
          version: {
            major: typeof major === 'number' ? major : 0,
            minor: typeof minor === 'number' ? minor : 0,
          },
        },
      });
    });
    socket.on('error', (e: NodeJS.ErrnoException) => finish({ why: e.code ?? e.message }));
    socket.on('close', () => finish({ why: 'the connection closed' }));
  });
}

/**
 * Check that an hnsim JSON-RPC server answers at `address` (one GetVersion call) and use it. Rejects
 * with SimulatorUnreachableError naming the cause (refused, timed out, not a JSON-RPC answer).
 */
export async function connectSimulator(address: string, timeoutMs = 5000): Promise<SimulatorFace> {
  const where = parseEndpoint(address);
  if (!where) {
    throw new SimulatorUnreachableError(
      `${address} is not a loopback ADDR:PORT (127.0.0.1:PORT, localhost:PORT or [::1]:PORT)`,
    );
  }
  const endpoint = endpointText(where.host, where.port);
  const r = await askVersion(where.host, where.port, timeoutMs);
  if ('why' in r) {
    throw new SimulatorUnreachableError(
      `no hnsim simulator answers at ${endpoint}: ${r.why} (start one with 'hnsim serve --listen 127.0.0.1:0')`,
    );
  }
  return { endpoint, version: r.version, close: async () => undefined };
}

/** The profile of the node served at `endpoint` (GetVersion); rejects when none answers. */
export async function simulatorVersion(endpoint: string, timeoutMs = 5000): Promise<SimulatorVersion> {
  return (await connectSimulator(endpoint, timeoutMs)).version!;
}

/** Faces registered for hosts served over TCP (`hnsim serve --listen`, serveSimulator). */
const faces = new WeakMap<Host, string[]>();

/** Record that `host` is served at `endpoint` (until the returned function is called). */
export function registerFace(host: Host, endpoint: string): () => void {
  const list = faces.get(host) ?? [];
  list.push(endpoint);
  faces.set(host, list);
  return () => {
    const l = faces.get(host);
    const i = l ? l.indexOf(endpoint) : -1;
    if (l && i >= 0) l.splice(i, 1);
  };
}

/**
 * Serve `host` on 127.0.0.1 at a free port for this process (with `methods` beside the flat API,
 * e.g. the CNI ones), registered as its face until closed.
 */
export async function serveSimulator(
  host: Host,
  options: { readonly methods?: Readonly<Record<string, RpcMethod>> } = {},
): Promise<SimulatorFace> {
  const tcp = await serveTcp(
    host,
    { host: '127.0.0.1', port: 0 },
    options.methods ? { methods: options.methods } : {},
  );
  const endpoint = endpointText(tcp.address, tcp.port);
  const unregister = registerFace(host, endpoint);
  return {
    endpoint,
    host,
    async close() {
      unregister();
      await tcp.close();
    },
  };
}

/** Temporary faces in use, shared by concurrent calls on one host. */
const temporary = new WeakMap<Host, { readonly server: Promise<TcpRpcServer>; users: number }>();

/**
 * Run `fn` with an endpoint serving `host`: its registered face when it has one, else a temporary
 * one on 127.0.0.1 (flat API and host methods), shared by the calls in flight and closed after the
 * last one.
 */
export async function withFace<T>(host: Host, fn: (endpoint: string) => Promise<T>): Promise<T> {
  const known = faces.get(host);
  if (known && known.length > 0) return fn(known[0]!);
  let t = temporary.get(host);
  if (!t) {
    t = { server: serveTcp(host, { host: '127.0.0.1', port: 0 }), users: 0 };
    temporary.set(host, t);
  }
  const entry = t;
  entry.users++;
  try {
    const server = await entry.server;
    return await fn(endpointText(server.address, server.port));
  } finally {
    entry.users--;
    if (entry.users === 0) {
      if (temporary.get(host) === entry) temporary.delete(host);
      await entry.server.then((s) => s.close()).catch(() => undefined);
    }
  }
}
