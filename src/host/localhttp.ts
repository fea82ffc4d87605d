/**
 * HTTP on the node's loopback (issue 16): node agents answer their local APIs here — Azure CNS on
 * `localhost:10090`, which azure-vnet calls for pod IPs in its CNS modes — as request/response
 * data, with no socket and no server: an agent `listen`s on a port with a handler, a client
 * `request`s `http://localhost:<port>/<path>` (or `127.0.0.1`) and gets the handler's reply, or,
 * with nothing listening there, the error Go's HTTP client gives on Windows when a connection is
 * refused.
 *
 *   const stop = host.http.listen(10090, (req) => ({ status: 200, body: '{}' }));
 *   host.http.request('POST', 'http://localhost:10090/network/requestipconfigs', '{…}');
 */
import { hnsError } from '../core/errors.js';
import type { PlatformReply } from './azure.js';

/** One request as a handler sees it. */
export interface LocalHttpRequest {
  readonly method: string;
  /** The path and query (`/network/requestipconfigs`). */
  readonly path: string;
  readonly body: string;
}

export type LocalHttpHandler = (request: LocalHttpRequest) => PlatformReply;

/** Nothing listens on that loopback port: Go's `net/http` error text for a refused connection. */
export class ConnectionRefused extends Error {
  constructor(method: string, url: string, port: number) {
    const verb = method.charAt(0).toUpperCase() + method.slice(1).toLowerCase();
    super(
      `${verb} "${url}": dial tcp 127.0.0.1:${port}: connectex: No connection could be made because the target machine actively refused it.`,
    );
    this.name = 'ConnectionRefused';
  }
}

const LOOPBACK = /^http:\/\/(localhost|127\.0\.0\.1)(?::(\d+))?(\/[^#]*)?$/i;

/** Whether a URL names the node's loopback (where `LocalHttp` answers). */
export function isLoopbackUrl(url: string): boolean {
  return LOOPBACK.test(url);
}

/** The node's loopback listeners, by port. */
export class LocalHttp {
  private readonly handlers = new Map<number, LocalHttpHandler>();

  /** Listen on a loopback port; the returned function stops listening. A taken port is E_INVALIDARG. */
  listen(port: number, handler: LocalHttpHandler): () => void {
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw hnsError('E_INVALIDARG', `port ${port} is not 1..65535`);
    if (this.handlers.has(port)) {
      throw hnsError(
        'E_INVALIDARG',
        `listen tcp 127.0.0.1:${port}: bind: Only one usage of each socket address (protocol/network address/port) is normally permitted.`,
      );
    }
    this.handlers.set(port, handler);
    return () => {
      if (this.handlers.get(port) === handler) this.handlers.delete(port);
    };
  }

  /** Whether something listens on the port. */
  listening(port: number): boolean {
    return this.handlers.has(port);
  }

  /** A request to a loopback URL: the listener's reply, or `ConnectionRefused`. */
  request(method: string, url: string, body = ''): PlatformReply {
    const m = LOOPBACK.exec(url);
    if (!m) throw hnsError('E_INVALIDARG', `${url} is not a loopback URL`);
    const port = m[2] === undefined ? 80 : Number(m[2]);
    const handler = this.handlers.get(port);
    if (!handler) throw new ConnectionRefused(method, url, port);
    return handler({ method: method.toUpperCase(), path: m[3] ?? '/', body });
  }
}
