/**
 * One JSON-RPC call to a running `hnsim serve --listen` (src/api/rpc.ts serveTcp), as `hnsim call
 * --connect` makes it: one request per line, answers matched by id. The server is checked first
 * with a GetVersion call (a host method: no fault rule holds it), which must answer within
 * `probeMs`; the call itself is then awaited however long a fault rule holds it.
 *
 *   const answer = await callServer({ host: '127.0.0.1', port: 40513 }, 'HcnEnumerateNetworks', ['']);
 */
import { connect } from 'node:net';

/** No hnsim server answers at the address: refused, silent, not JSON-RPC, or gone before answering. */
export class ServerUnreachableError {
  constructor(readonly message: string) {}
}

/** A JSON-RPC response as the server wrote it. */
export interface RpcAnswer {
  readonly id?: unknown;
  readonly result?: unknown;
  readonly error?: unknown;
}

const PROBE_ID = 'hnsim-call-probe';
const CALL_ID = 1;

/** `127.0.0.1:PORT`, or `[::1]:PORT`. */
export function endpointText(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Call `method` with `params` on the server at `where`; resolves to its answer (a result or an
 * error), rejects with ServerUnreachableError when there is no hnsim server to answer.
 */
export function callServer(
  where: { readonly host: string; readonly port: number },
  method: string,
  params: readonly unknown[],
  probeMs = 5000,
): Promise<RpcAnswer> {
  const endpoint = endpointText(where.host, where.port);
  return new Promise<RpcAnswer>((resolve, reject) => {
    let probed = false;
    let reply: RpcAnswer | undefined;
    let settled = false;
    const finish = (f: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      f();
    };
    const fail = (why: string): void =>
      finish(() =>
        reject(
          new ServerUnreachableError(
            `no hnsim simulator answers at ${endpoint}: ${why} (start one with 'hnsim serve --listen 127.0.0.1:0')`,
          ),
        ),
      );
    const timer = setTimeout(() => fail(`no answer within ${probeMs} ms`), probeMs);
    const socket = connect({ host: where.host, port: where.port });
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      socket.write(
        JSON.stringify({ jsonrpc: '2.0', id: PROBE_ID, method: 'GetVersion', params: [] }) +
          '\n' +
          JSON.stringify({ jsonrpc: '2.0', id: CALL_ID, method, params }) +
          '\n',
      );
    });
    let buffer = '';
    socket.on('data', (text: string) => {
      buffer += text;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        let answer: unknown;
        try {
          answer = JSON.parse(line);
        } catch {
          return fail('the answer is not JSON-RPC');
        }
        const a = (typeof answer === 'object' && answer !== null ? answer : {}) as RpcAnswer;
        if (a.id === PROBE_ID && a.result !== undefined) {
          probed = true;
          clearTimeout(timer);
        } else if (a.id === CALL_ID) {
          reply = a;
        } else if (!probed) {
          return fail('the answer is not a GetVersion result');
        }
        if (probed && reply) return finish(() => resolve(reply!));
      }
    });
    socket.on('error', (e: NodeJS.ErrnoException) => fail(e.code ?? e.message));
    socket.on('close', () =>
      fail(probed ? `the connection closed before the answer to ${method}` : 'the connection closed'),
    );
  });
}
