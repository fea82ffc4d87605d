/**
 * Named pipes on the node (`\\.\pipe\<name>`): how a node agent serves a local gRPC API on Windows —
 * Antrea's agent serves its CNI server on `\\.\pipe\cnisock` (antrea pkg/cni/default_windows.go),
 * which the `antrea` CNI binary dials (pkg/cni/dial_windows.go, go-winio `DialPipe`). As data, with
 * no bytes on a wire: a server `listen`s on a pipe path with a handler of unary calls (the full
 * gRPC method name and the request message as plain JSON), a client `dial`s the path and calls it;
 * with no server there, `dial` throws go-winio's error for a pipe that does not exist.
 *
 *   const stop = host.pipes.listen('\\\\.\\pipe\\cnisock', (method, request) => ({ …reply }));
 *   host.pipes.dial('\\\\.\\pipe\\cnisock')('/pkg.Service/Method', { … });
 */
import type { Json } from '../core/json.js';

/** A unary call: the gRPC method (`/<package>.<Service>/<Method>`) and the request message. */
export type PipeHandler = (method: string, request: Json) => Json;

/**
 * A gRPC status a server (or the client library) ends a call with: `code` as grpc-go's
 * `codes.Code` prints it (`Unknown`, `Unavailable`, `Unimplemented`, …) and its description;
 * `message` is `status.Error(...).Error()`: `rpc error: code = <code> desc = <desc>`.
 */
export class GrpcStatusError extends Error {
  constructor(
    readonly code: string,
    readonly desc: string,
  ) {
    super(`rpc error: code = ${code} desc = ${desc}`);
    this.name = 'GrpcStatusError';
  }
}

/**
 * No server holds the pipe: go-winio `DialPipe`'s `*os.PathError` (`open <path>: <errno text>`)
 * for ERROR_FILE_NOT_FOUND.
 */
export class PipeNotFound extends Error {
  constructor(readonly path: string) {
    super(`open ${path}: The system cannot find the file specified.`);
    this.name = 'PipeNotFound';
  }
}

/** The node's named-pipe servers, by path (case-insensitive, as Windows names pipes). */
export class NamedPipes {
  private readonly servers = new Map<string, PipeHandler>();

  /**
   * Serve a pipe; the returned function stops serving it. A newer server of the same path takes it
   * over (the process that held it is gone: an agent restarted).
   */
  listen(path: string, handler: PipeHandler): () => void {
    const key = path.toLowerCase();
    this.servers.set(key, handler);
    return () => {
      if (this.servers.get(key) === handler) this.servers.delete(key);
    };
  }

  /** Whether a server holds the pipe. */
  listening(path: string): boolean {
    return this.servers.has(path.toLowerCase());
  }

  /**
   * Every server stops (the processes that held the pipes are gone: `host.restore` replaces the
   * node's agents); a stop function handed out before does nothing afterwards.
   */
  clear(): void {
    this.servers.clear();
  }

  /** Connect to a pipe: its server's calls, or `PipeNotFound` when none holds it. */
  dial(path: string): PipeHandler {
    const handler = this.servers.get(path.toLowerCase());
    if (!handler) throw new PipeNotFound(path);
    return handler;
  }
}
