/**
 * The TCP face of the JSON-RPC server (src/api/rpc.ts serveTcp, issue 10): loopback only, several
 * connections on one host, one request per line as on stdio. Framing (partial lines, CRLF, UTF-8
 * split across packets, over-long lines), held calls across connections, clients that go away,
 * back-pressure and close().
 */
import { connect, createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { serveTcp, type TcpListen, type TcpRpcServer, type RpcResponse } from '../../src/api/rpc.js';
import type { Json, JsonObject } from '../../src/core/json.js';
import { createHost, type Host } from '../../src/host/host.js';
import { cniRpcMethods } from '../../src/plugins/index.js';

const NAT = { Name: 'nat', Type: 'NAT' };

function line(id: number | string, method: string, params: Json[] = []): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n';
}

function ok(r: RpcResponse): Json {
  if ('error' in r) throw new Error(`expected a result, got ${JSON.stringify(r.error)}`);
  return r.result;
}

function errorOf(r: RpcResponse): { code: number; message: string } {
  if (!('error' in r)) throw new Error(`expected an error, got ${JSON.stringify(r.result)}`);
  return r.error;
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Wait (in event-loop turns, bounded) until `cond` holds. */
async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 5000; i++) {
    if (cond()) return;
    await new Promise<void>((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A line-reading client of the TCP face: answers kept in order, awaited by id. */
class Client {
  readonly answers: RpcResponse[] = [];
  /** Raw lines as they arrived (a batch is one line holding an array). */
  readonly lines: string[] = [];
  readonly closed: Promise<void>;
  readonly ended: Promise<void>;
  #rest = '';
  #waiters: (() => void)[] = [];

  private constructor(readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => {
      const parts = (this.#rest + text).split('\n');
      this.#rest = parts.pop()!;
      for (const p of parts) {
        this.lines.push(p);
        const v = JSON.parse(p) as RpcResponse | RpcResponse[];
        if (Array.isArray(v)) this.answers.push(...v);
        else this.answers.push(v);
      }
      const w = this.#waiters;
      this.#waiters = [];
      for (const f of w) f();
    });
    socket.on('error', () => undefined);
    this.ended = new Promise((resolve) => socket.once('end', resolve));
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
  }

  static open(port: number, host = '127.0.0.1'): Promise<Client> {
    return new Promise((resolve, reject) => {
      const s = connect({ port, host }, () => resolve(new Client(s)));
      s.once('error', reject);
    });
  }

  send(text: string): void {
    this.socket.write(text);
  }

  /** The answer with this id (waiting for it). */
  async wait(id: Json): Promise<RpcResponse> {
    for (;;) {
      const found = this.answers.find((a) => a.id === id);
      if (found) return found;
      if (this.socket.destroyed) throw new Error(`connection closed before the answer to ${String(id)}`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        this.socket.once('close', resolve);
      });
    }
  }

  /** Wait until `n` answers (or lines, for batches) have arrived. */
  async count(n: number): Promise<void> {
    await until(() => this.answers.length >= n || this.socket.destroyed, `${n} answers`);
    expect(this.answers.length).toBeGreaterThanOrEqual(n);
  }

  async call(id: number, method: string, params: Json[] = []): Promise<RpcResponse> {
    this.send(line(id, method, params));
    return this.wait(id);
  }
}

const servers: TcpRpcServer[] = [];
const clients: Client[] = [];

async function serve(
  host: Host = createHost({ seed: 1 }),
  options: Parameters<typeof serveTcp>[2] = {},
): Promise<TcpRpcServer> {
  const s = await serveTcp(host, { host: '127.0.0.1', port: 0 }, options);
  servers.push(s);
  return s;
}

async function client(server: TcpRpcServer): Promise<Client> {
  const c = await Client.open(server.port, server.address);
  clients.push(c);
  return c;
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.socket.destroy();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('serveTcp: listening', () => {
  it('port 0 picks a free port on 127.0.0.1 and answers with the extra (CNI) methods', async () => {
    const host = createHost({ seed: 1 });
    const server = await serve(host, { methods: cniRpcMethods(host) });
    expect(server.address).toBe('127.0.0.1');
    expect(server.port).toBeGreaterThan(0);
    const c = await client(server);
    expect(ok(await c.call(1, 'ListMethods'))).toEqual(
      expect.arrayContaining(['HcnCreateNetwork', 'CniExec']),
    );
    const exec = await c.call(2, 'CniExec', [
      { plugin: 'nat', env: { CNI_COMMAND: 'VERSION' }, stdin: '{"cniVersion":"1.0.0"}' },
    ]);
    expect(ok(exec)).toMatchObject({ exitCode: 0 });
    expect(server.rpc.host).toBe(host);
  });

  it('refuses a non-loopback address or a bad port, and reports a port in use', async () => {
    const host = createHost({ seed: 1 });
    for (const bad of ['0.0.0.0', '10.0.0.1', '::', '192.168.1.1', '127.0.0.1 ', ''])
      await expect(serveTcp(host, { host: bad as TcpListen['host'], port: 0 })).rejects.toThrow(
        /refusing to listen on .*loopback only \(127\.0\.0\.1, ::1, localhost\)/,
      );
    for (const port of [-1, 65536, 1.5, Number.NaN])
      await expect(serveTcp(host, { host: '127.0.0.1', port })).rejects.toThrow(/port must be an integer/);
    await expect(serve(host, { maxLineBytes: 0 })).rejects.toThrow(/maxLineBytes/);
    const taken = await serve(host);
    await expect(serveTcp(host, { host: '127.0.0.1', port: taken.port })).rejects.toMatchObject({
      code: 'EADDRINUSE',
    });
  });

  it('binds localhost (and ::1 where the system has IPv6) to a loopback address', async () => {
    const host = createHost({ seed: 1 });
    const local = await serveTcp(host, { host: 'localhost', port: 0 });
    servers.push(local);
    expect(['127.0.0.1', '::1']).toContain(local.address);
    const c = await client(local);
    expect(ok(await c.call(1, 'HcnEnumerateNetworks', ['']))).toEqual([]);

    const probe = createServer();
    const v6 = await new Promise<boolean>((resolve) => {
      probe.once('error', () => resolve(false));
      probe.listen({ host: '::1', port: 0 }, () => probe.close(() => resolve(true)));
    });
    if (!v6) return;
    const six = await serveTcp(host, { host: '::1', port: 0 });
    servers.push(six);
    expect(six.address).toBe('::1');
    const c6 = await client(six);
    expect(ok(await c6.call(1, 'HcnEnumerateNetworks', ['']))).toEqual([]);
  });
});

describe('serveTcp: one host, many connections', () => {
  it('a network created on one connection is seen from another', async () => {
    const server = await serve();
    const [a, b] = [await client(server), await client(server)];
    const net = ok(await a.call(1, 'HcnCreateNetwork', [null, NAT])) as JsonObject;
    expect(ok(await b.call(1, 'HcnEnumerateNetworks', ['']))).toEqual([net.ID]);
    expect(server.connections).toBe(2);
  });

  it('serves 50 connections at once, each its own answers (same ids, no cross-talk)', async () => {
    const server = await serve();
    const cs = await Promise.all(Array.from({ length: 50 }, () => client(server)));
    const created = await Promise.all(
      cs.map((c, i) => c.call(7, 'HcnCreateNetwork', [null, { Name: `n${i}`, Type: 'NAT' }])),
    );
    created.forEach((r, i) => expect((ok(r) as JsonObject).Name).toBe(`n${i}`));
    for (const c of cs) expect(c.answers).toHaveLength(1);
    expect(ok(await cs[0]!.call(8, 'HcnEnumerateNetworks', ['']))).toHaveLength(50);
  });

  it('a call held on one connection does not block another, which can see it and release it', async () => {
    const server = await serve();
    const [a, b] = [await client(server), await client(server)];
    const { rule } = ok(await a.call(1, 'FaultHang', [{ method: 'HcnCreateNetwork' }])) as { rule: number };
    a.send(line(2, 'HcnCreateNetwork', [null, NAT]));
    expect(ok(await a.call(3, 'HcnEnumerateNetworks', ['']))).toEqual([]); // same connection goes on
    expect(ok(await b.call(1, 'HcnEnumerateNetworks', ['']))).toEqual([]);
    expect(ok(await b.call(2, 'FaultHeld'))).toEqual([
      { rule, seq: expect.any(Number) as number, method: 'HcnCreateNetwork', params: [null, NAT] },
    ]);
    expect(a.answers.map((x) => x.id)).toEqual([1, 3]);
    expect(ok(await b.call(3, 'FaultRelease', [{ rule }]))).toEqual({ released: 1 });
    expect((ok(await a.wait(2)) as JsonObject).Name).toBe('nat');
    expect(a.answers.map((x) => x.id)).toEqual([1, 3, 2]);
  });

  it("a connection's end releases nothing: other connections' held calls stay held", async () => {
    const host = createHost({ seed: 1 });
    const server = await serve(host);
    const a = await client(server);
    await a.call(1, 'FaultHang', [{ method: 'HcnCreateNetwork' }]);
    a.send(line(2, 'HcnCreateNetwork', [null, NAT]));
    await until(() => host.faults.held().length === 1, 'the held call');
    const b = await client(server);
    b.send(line(1, 'FaultDelay', [{ method: 'HcnCreateNamespace', ms: 100 }]));
    b.socket.end(line(2, 'HcnEnumerateNetworks', ['']));
    await b.closed; // answered, then ended by the server
    expect(b.answers.map((x) => x.id)).toEqual([1, 2]);
    expect(host.faults.held()).toHaveLength(1);
    expect(host.faults.list().map((r) => r.kind)).toEqual(['hang', 'delay']);
    expect(a.answers.map((x) => x.id)).toEqual([1]);
  });
});

describe('serveTcp: framing', () => {
  it('joins a request split across packets (mid-UTF-8 too) and strips CRLF', async () => {
    const server = await serve();
    const c = await client(server);
    const bytes = Buffer.from(
      line(1, 'HcnCreateNetwork', [null, { Name: 'café-网络', Type: 'NAT' }]).replace('\n', '\r\n'),
    );
    for (let i = 0; i < bytes.length; i += 7) {
      c.socket.write(bytes.subarray(i, i + 7));
      await tick();
    }
    expect((ok(await c.wait(1)) as JsonObject).Name).toBe('café-网络');
    c.send(line(2, 'HcnEnumerateNetworks', ['']).replace('\n', '\r\n') + '\r\n\n' + line(3, 'GetVersion'));
    await c.count(3);
    expect(c.answers.map((x) => x.id)).toEqual([1, 2, 3]); // blank lines get no answer
  });

  it('answers a malformed line with -32700 and keeps the connection open', async () => {
    const server = await serve();
    const c = await client(server);
    c.send('not json\n{"jsonrpc":"2.0","id":1,"method":"Nope"}\n[]\n');
    c.send(line(2, 'HcnEnumerateNetworks', ['']));
    await c.count(4);
    const [parse, unknown, empty, last] = c.answers;
    expect(parse).toMatchObject({ id: null, error: { code: -32700, message: 'Parse error' } });
    expect(errorOf(unknown!).code).toBe(-32601);
    expect(errorOf(empty!).code).toBe(-32600);
    expect(ok(last!)).toEqual([]);
    expect(c.socket.destroyed).toBe(false);
  });

  it('bounds the line length: a longer line is -32700, skipped to its end; the connection goes on', async () => {
    const server = await serve(createHost({ seed: 1 }), { maxLineBytes: 200 });
    const c = await client(server);
    const exact = line(1, 'GetVersion').replace(
      '{',
      '{' + ' '.repeat(200 - line(1, 'GetVersion').length + 1),
    );
    expect(Buffer.byteLength(exact) - 1).toBe(200);
    c.send(exact.replace('\n', '\r\n')); // exactly the bound, CR not counted
    c.send('x'.repeat(201) + '\n'); // one over, in one packet
    for (let i = 0; i < 20; i++) {
      c.send('y'.repeat(1000)); // far over, across packets
      await tick();
    }
    c.send('\n' + line(2, 'HcnEnumerateNetworks', ['']));
    await c.count(4);
    expect(c.answers[0]).toMatchObject({ id: 1, result: { name: 'ws2022' } });
    for (const r of c.answers.slice(1, 3))
      expect(r).toMatchObject({
        id: null,
        error: { code: -32700, message: 'Parse error: request line longer than 200 bytes (skipped)' },
      });
    expect(c.answers[3]).toMatchObject({ id: 2, result: [] });
  });

  it('answers notifications with nothing and a batch with one line', async () => {
    const server = await serve();
    const c = await client(server);
    c.send(JSON.stringify({ jsonrpc: '2.0', method: 'HcnCreateNetwork', params: [null, NAT] }) + '\n');
    c.send(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'HcnEnumerateNetworks', params: [''] },
        { jsonrpc: '2.0', id: 'b', method: 'ClockNow' },
      ]) + '\n',
    );
    await c.count(2);
    expect(c.lines).toHaveLength(1);
    expect(c.answers.map((x) => x.id)).toEqual(['a', 'b']);
    expect(ok(c.answers[0]!)).toHaveLength(1);
  });

  it('a client that half-closes gets every answer (a last line without LF too), then the end', async () => {
    const server = await serve();
    const c = await client(server);
    c.socket.end(line(1, 'HcnCreateNetwork', [null, NAT]) + line(2, 'HcnEnumerateNetworks', ['']).trimEnd());
    await c.ended;
    expect(c.answers.map((x) => x.id)).toEqual([1, 2]);
    expect(ok(c.answers[1]!)).toHaveLength(1);
    await c.closed;
    await until(() => server.connections === 0, 'the connection to go');
  });

  it('2000 requests in one write, answers read only afterwards: all answered in order', async () => {
    const server = await serve();
    const c = await client(server);
    c.socket.pause();
    c.send(Array.from({ length: 2000 }, (_, i) => line(i, 'ClockNow')).join(''));
    await new Promise<void>((resolve) => setTimeout(resolve, 50));
    c.socket.resume();
    await c.count(2000);
    expect(c.answers.map((x) => x.id)).toEqual(Array.from({ length: 2000 }, (_, i) => i));
  });
});

describe('serveTcp: clients going away, and close()', () => {
  it('a client that disconnects while its call is held: the call completes when released, nothing crashes', async () => {
    const host = createHost({ seed: 1 });
    const server = await serve(host);
    const a = await client(server);
    const b = await client(server);
    const { rule } = ok(await a.call(1, 'FaultHang', [{ method: 'HcnCreateNetwork' }])) as { rule: number };
    a.send(line(2, 'HcnCreateNetwork', [null, NAT]));
    await until(() => host.faults.held().length === 1, 'the held call');
    a.socket.destroy();
    await a.closed;
    expect(ok(await b.call(1, 'FaultHeld'))).toHaveLength(1);
    expect(ok(await b.call(2, 'FaultRelease', [{ rule }]))).toEqual({ released: 1 });
    expect(ok(await b.call(3, 'HcnEnumerateNetworks', ['']))).toHaveLength(1); // the request was carried out
    await until(() => server.connections === 1, "a's connection to go");
    expect(ok(await b.call(4, 'GetVersion'))).toMatchObject({ name: 'ws2022' });
  });

  it('a client reset mid-stream (lines queued, partial line) leaves the server serving', async () => {
    const server = await serve();
    const a = await client(server);
    a.send(Array.from({ length: 500 }, (_, i) => line(i, 'HcnEnumerateNetworks', [''])).join('') + '{"json');
    a.socket.resetAndDestroy();
    await a.closed;
    const b = await client(server);
    expect(ok(await b.call(1, 'HcnEnumerateNetworks', ['']))).toEqual([]);
    await until(() => server.connections === 1, "a's connection to go");
  });

  it('close() ends every connection (held calls stay held in the host) and stops listening', async () => {
    const host = createHost({ seed: 1 });
    const server = await serve(host);
    const cs = await Promise.all([client(server), client(server), client(server)]);
    await cs[0]!.call(1, 'FaultHang', [{ method: 'HcnCreateNetwork' }]);
    cs[0]!.send(line(2, 'HcnCreateNetwork', [null, NAT]));
    await until(() => host.faults.held().length === 1, 'the held call');
    await server.close();
    await Promise.all(cs.map((c) => c.closed));
    expect(server.connections).toBe(0);
    expect(host.faults.held()).toHaveLength(1); // the host is the caller's: close() changed nothing
    expect(cs[0]!.answers.map((x) => x.id)).toEqual([1]);
    await expect(Client.open(server.port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await expect(server.close()).resolves.toBeUndefined(); // twice is fine
    host.faults.clear();
    await until(() => host.api.HcnEnumerateNetworks('').ok, 'the released call');
  });

  it('close() ends a connection whose client reads nothing, after a grace second', async () => {
    const server = await serve();
    const c = await client(server);
    c.socket.pause(); // reads neither its answers nor the server's end
    c.send(Array.from({ length: 200 }, (_, i) => line(i, 'ListMethods')).join(''));
    await new Promise<void>((resolve) => setTimeout(resolve, 50));
    await server.close();
    expect(server.connections).toBe(0);
    c.socket.resume();
    await c.closed;
  });
});
