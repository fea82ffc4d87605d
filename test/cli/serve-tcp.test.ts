// `hnsim serve --listen ADDR:PORT` as a user runs it: `node bin/hnsim.js` in a child process, the
// port read from its one stdout line, several connections on one host, SIGTERM/SIGINT → exit 0.
// Refused addresses and other usage errors run in-process (they answer before anything listens).
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { bin, root, runHnsim as run, spawnHnsim } from './hnsim.js';

const LISTENING = /^hnsim: listening on (127\.0\.0\.1|\[::1\]):(\d+)$/;

interface Served {
  readonly child: ChildProcess;
  readonly address: string;
  readonly port: number;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

const children: ChildProcess[] = [];
const sockets: Socket[] = [];

afterEach(() => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** Start `hnsim serve --listen …` and wait for its listening line. */
function startServe(args: string[]): Promise<Served> {
  const child = spawn(process.execPath, [bin, 'serve', ...args], { cwd: root, stdio: 'pipe' });
  children.push(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>(
    (resolve) => child.once('exit', (code, signal) => resolve({ code, signal, stderr })),
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (t: string) => {
      out += t;
      const first = out.split('\n');
      if (first.length < 2) return;
      const m = LISTENING.exec(first[0]!);
      if (!m) return reject(new Error(`unexpected first line: ${first[0]}`));
      resolve({ child, address: m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]), exit });
    });
    void exit.then((e) => reject(new Error(`hnsim serve exited (${e.code ?? e.signal}): ${e.stderr}`)));
  });
}

/** A JSON-RPC connection: send a request, await the answer with its id. */
async function rpcClient(port: number, host: string) {
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = connect({ port, host }, () => resolve(s));
    s.once('error', reject);
  });
  sockets.push(socket);
  const answers = new Map<unknown, { result?: unknown; error?: { code: number } }>();
  const waiters = new Set<() => void>();
  let rest = '';
  socket.setEncoding('utf8').on('data', (t: string) => {
    const parts = (rest + t).split('\n');
    rest = parts.pop()!;
    for (const p of parts) {
      const a = JSON.parse(p) as { id: unknown; result?: unknown; error?: { code: number } };
      answers.set(a.id, a);
    }
    for (const w of waiters) w();
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  let next = 0;
  return {
    closed,
    send(method: string, ...params: unknown[]): number {
      const id = ++next;
      socket.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
      return id;
    },
    async wait(id: number) {
      while (!answers.has(id)) {
        if (socket.destroyed) throw new Error(`closed before the answer to ${id}`);
        await new Promise<void>((resolve) => {
          waiters.add(resolve);
          socket.once('close', resolve);
        });
      }
      return answers.get(id)!;
    },
    async call(method: string, ...params: unknown[]) {
      return this.wait(this.send(method, ...params));
    },
  };
}

describe('hnsim serve --listen (spawned)', () => {
  it('prints the port it picked, serves two connections on one host (CNI too), exits 0 on SIGTERM', async () => {
    const served = await startServe(['--listen', '127.0.0.1:0', '--seed', '7']);
    expect(served.address).toBe('127.0.0.1');
    expect(served.port).toBeGreaterThan(0);
    const a = await rpcClient(served.port, served.address);
    const b = await rpcClient(served.port, served.address);
    const net = (await a.call('HcnCreateNetwork', null, { Name: 'nat', Type: 'NAT' })).result as {
      ID: string;
    };
    expect((await b.call('HcnEnumerateNetworks', '')).result).toEqual([net.ID]);
    expect((await b.call('ListMethods')).result).toEqual(expect.arrayContaining(['CniExec', 'CniExecList']));
    const exec = await b.call('CniExec', {
      plugin: 'nat',
      env: { CNI_COMMAND: 'VERSION' },
      stdin: '{"cniVersion":"1.0.0"}',
    });
    expect(exec.result).toMatchObject({ exitCode: 0 });
    // a call held on a at shutdown does not keep the process alive
    await a.call('FaultHang', { method: 'HcnDeleteNetwork' });
    a.send('HcnDeleteNetwork', net.ID);
    expect(((await b.call('FaultHeld')).result as unknown[]).length).toBe(1);
    served.child.kill('SIGTERM');
    expect(await served.exit).toEqual({ code: 0, signal: null, stderr: '' });
    await Promise.all([a.closed, b.closed]);
  });

  it('localhost works too, and SIGINT also exits 0', async () => {
    const served = await startServe(['--listen', 'localhost:0']);
    expect(['127.0.0.1', '::1']).toContain(served.address);
    const c = await rpcClient(served.port, served.address);
    expect((await c.call('HcnEnumerateNetworks', '')).result).toEqual([]);
    served.child.kill('SIGINT');
    expect(await served.exit).toMatchObject({ code: 0, signal: null });
    await c.closed;
  });

  it('refuses a non-loopback address with exit 2 and says why', () => {
    for (const addr of ['0.0.0.0:0', '10.0.0.1:8080']) {
      const r = spawnHnsim(['serve', '--listen', addr]);
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `hnsim: serve: --listen ${addr}: ${addr.split(':')[0]} is not a loopback address; hnsim serves on ` +
          `127.0.0.1, [::1] or localhost only (the server has no authentication) (see 'hnsim serve --help')\n`,
      );
    }
  });
});

describe('hnsim serve --listen (in-process)', () => {
  it('usage errors (exit 2): other addresses, a missing or bad port, unbracketed IPv6', async () => {
    const cases: [string, RegExp][] = [
      ['[::]:0', /:: is not a loopback address/],
      ['192.168.0.10:80', /192\.168\.0\.10 is not a loopback address/],
      ['example.com:80', /example\.com is not a loopback address/],
      [':0', /no address; hnsim serves on 127\.0\.0\.1, \[::1\] or localhost only/],
      ['127.0.0.1', /--listen takes ADDR:PORT \(127\.0\.0\.1:PORT, \[::1\]:PORT or localhost:PORT\)/],
      ['::1:80', /--listen takes ADDR:PORT/],
      ['127.0.0.1:70000', /the port must be an integer 0\.\.65535 \(0 picks a free one\)/],
      ['localhost:http', /the port must be an integer/],
      ['127.0.0.1:', /the port must be an integer/],
    ];
    for (const [addr, message] of cases) {
      const r = await run(['serve', '--listen', addr]);
      expect(r.status, addr).toBe(2);
      expect(r.stderr, addr).toMatch(message);
      expect(r.stderr, addr).toMatch(/\(see 'hnsim serve --help'\)\n$/);
      expect(r.stdout).toBe('');
    }
  });

  it('a port in use is a runtime failure (exit 1) naming the address', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen({ host: '127.0.0.1', port: 0 }, resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const r = await run(['serve', '--listen', `127.0.0.1:${port}`]);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(`^hnsim: serve: cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`),
      );
      expect(r.stdout).toBe('');
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });

  it('--help documents --listen, the listening line and the exit codes', async () => {
    const r = await run(['serve', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('[--listen ADDR:PORT]');
    expect(r.stdout).toContain('hnsim: listening on 127.0.0.1:PORT');
    expect(r.stdout).toContain('until SIGINT or SIGTERM (then exit 0)');
    expect(r.stdout).toContain('2 for a bad command line (a non-loopback --listen)');
    const top = await run(['--help']);
    expect(top.stdout).toContain('or on a loopback TCP port (--listen)');
  });
});
