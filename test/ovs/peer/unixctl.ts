/**
 * A client of an Open vSwitch daemon's control socket (what `ovs-appctl` speaks): JSON-RPC 1.0 over
 * a Unix stream socket, one request at a time, each `{"method", "params": [strings], "id"}` answered
 * by `{"id", "result": text, "error": null}` or `{"id", "result": null, "error": text}` (OVS
 * lib/unixctl.c, lib/jsonrpc.c). One connection is kept open for the daemon's life, so a command
 * costs a socket round trip instead of an `ovs-appctl` process (~10 ms each).
 */
import { connect, type Socket } from 'node:net';

/** A command the daemon refused: `message` is its text, as `ovs-appctl` prints it on stderr. */
export class UnixctlError extends Error {
  constructor(
    readonly command: string,
    readonly text: string,
  ) {
    super(text.trimEnd());
    this.name = 'UnixctlError';
  }
}

interface Pending {
  readonly id: number;
  readonly command: string;
  readonly resolve: (text: string) => void;
  readonly reject: (e: Error) => void;
}

/**
 * The end of the first complete JSON object at the start of `s` (index after its closing brace), or
 * -1 when it is not complete yet. The daemon sends objects back to back with no separator.
 */
function objectEnd(s: string): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if ((c === 0x7d || c === 0x5d) && --depth === 0) return i + 1;
  }
  return -1;
}

export class Unixctl {
  private buffer = '';
  private nextId = 0;
  private readonly queue: Pending[] = [];
  private closed: Error | undefined;

  private constructor(private readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.receive(chunk));
    const fail = (e: Error) => {
      this.closed ??= e;
      for (const p of this.queue.splice(0)) p.reject(e);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('unixctl: the daemon closed its control socket')));
  }

  /** Connects to the control socket at `path`. */
  static open(path: string): Promise<Unixctl> {
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      socket.once('connect', () => {
        socket.removeListener('error', reject);
        resolve(new Unixctl(socket));
      });
      socket.once('error', reject);
    });
  }

  /** Runs `command` with string arguments; resolves its output text or rejects with UnixctlError. */
  call(command: string, ...args: readonly string[]): Promise<string> {
    if (this.closed) return Promise.reject(this.closed);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.queue.push({ id, command, resolve, reject });
      this.socket.write(JSON.stringify({ method: command, params: args, id }));
    });
  }

  close(): void {
    this.closed ??= new Error('unixctl: closed');
    this.socket.destroy();
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    for (let end = objectEnd(this.buffer); end > 0; end = objectEnd(this.buffer)) {
      const message = JSON.parse(this.buffer.slice(0, end)) as {
        id?: unknown;
        result?: unknown;
        error?: unknown;
      };
      this.buffer = this.buffer.slice(end).trimStart();
      const at = this.queue.findIndex((p) => p.id === message.id);
      if (at < 0) continue; // a notification, or a reply to nothing we sent
      const [p] = this.queue.splice(at, 1);
      if (message.error != null) p!.reject(new UnixctlError(p!.command, String(message.error)));
      else p!.resolve(typeof message.result === 'string' ? message.result : JSON.stringify(message.result));
    }
  }
}
