// `hnsim call --connect ADDR:PORT`: a shell drives a running `hnsim serve --listen` — prepares its
// host, sets faults, moves its clock, releases a held call — with the output and exit codes of
// `hnsim call --state`, and exit 121 (as `hnsim wine --connect`) when no hnsim server answers.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, root, runHnsim as run, spawnHnsim } from './hnsim.js';

let server: ChildProcess;
let address: string;
const dir = mkdtempSync(join(tmpdir(), 'hnsim-call-'));

beforeAll(async () => {
  server = spawn(process.execPath, [bin, 'serve', '--listen', '127.0.0.1:0', '--seed', '7'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  address = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout!.setEncoding('utf8').on('data', (t: string) => {
      out += t;
      const m = /^hnsim: listening on (127\.0\.0\.1:\d+)\n/.exec(out);
      if (m) resolve(m[1]!);
    });
    server.once('exit', (code) => reject(new Error(`hnsim serve exited (${code})`)));
  });
}, 120_000);

afterAll(() => {
  server.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const call = (...args: string[]) => run(['call', '--connect', address, ...args]);
const json = (text: string): unknown => JSON.parse(text);

/** A loopback TCP server doing `onSocket` with each connection; its port. */
async function fakeServer(onSocket: (s: Socket) => void): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const s: Server = createServer((sock) => {
    sockets.add(sock);
    onSocket(sock);
  });
  await new Promise<void>((resolve) => s.listen({ host: '127.0.0.1', port: 0 }, resolve));
  return {
    port: (s.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const sock of sockets) sock.destroy();
        s.close(() => resolve());
      }),
  };
}

describe('hnsim call --connect', () => {
  it('drives the running host: a network made by one call is seen by the next (and by a child process)', async () => {
    const made = await call('HcnCreateNetwork', 'null', '{"Name":"nat","Type":"NAT"}');
    expect(made.stderr).toBe('');
    expect(made.status).toBe(0);
    const net = json(made.stdout) as { ID: string; Name: string };
    expect(net.Name).toBe('nat');
    // as a shell runs it: node bin/hnsim.js in a child process
    const listed = spawnHnsim(['call', '--connect', address, 'HcnEnumerateNetworks', '']);
    expect(listed.stderr).toBe('');
    expect(listed.status).toBe(0);
    expect(json(listed.stdout)).toEqual([net.ID]);
    expect(listed.stdout).toBe(JSON.stringify([net.ID], null, 2) + '\n');
  });

  it('faults: FaultFail makes the next call fail with its HRESULT (exit 1, error on stderr), once', async () => {
    const net = json((await call('HcnCreateNetwork', 'null', '{"Name":"f","Type":"NAT"}')).stdout) as {
      ID: string;
    };
    const rule = await call(
      'FaultFail',
      '{"method":"HcnCreateEndpoint","hresult":"HCN_E_ADAPTER_NOT_FOUND","times":1}',
    );
    expect(rule.status, rule.stderr).toBe(0);
    const failed = await call('HcnCreateEndpoint', net.ID, 'null', '{"Name":"ep1"}');
    expect(failed.status).toBe(1);
    expect(failed.stdout).toBe('');
    expect(json(failed.stderr)).toMatchObject({
      code: -32000,
      data: { name: 'HCN_E_ADAPTER_NOT_FOUND' },
    });
    const again = await call('HcnCreateEndpoint', net.ID, 'null', '{"Name":"ep1"}');
    expect(again.status, again.stderr).toBe(0);
    expect(json(again.stdout)).toMatchObject({ Name: 'ep1' });
  });

  it('the clock: ClockAdvance moves the server clock ClockNow reads', async () => {
    const before = (json((await call('ClockNow')).stdout) as { now: number }).now;
    expect((await call('ClockAdvance', '30000')).status).toBe(0);
    expect(json((await call('ClockNow')).stdout)).toEqual({ now: before + 30000 });
  });

  it('a call a fault rule holds is awaited until another call releases it', async () => {
    const net = json((await call('HcnCreateNetwork', 'null', '{"Name":"held","Type":"NAT"}')).stdout) as {
      ID: string;
    };
    const { rule } = json((await call('FaultHang', '{"method":"HcnDeleteNetwork"}')).stdout) as {
      rule: number;
    };
    const deleting = call('HcnDeleteNetwork', net.ID);
    // wait (bounded) until the server holds the delete, then release it from another connection
    let held: unknown[] = [];
    for (let i = 0; i < 200 && held.length === 0; i++) {
      held = json((await call('FaultHeld')).stdout) as unknown[];
      if (held.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(held).toHaveLength(1);
    expect((await call('FaultRelease', JSON.stringify({ rule }))).status).toBe(0);
    const deleted = await deleting;
    expect(deleted.status, deleted.stderr).toBe(0);
    expect(json((await call('HcnEnumerateNetworks', '')).stdout)).not.toContain(net.ID);
  });

  it('prints what --state prints for the same call', async () => {
    const state = join(dir, 'node.json');
    const viaState = await run(['call', '--state', state, 'ListMethods']);
    const viaServer = await call('ListMethods');
    expect(viaServer.status).toBe(0);
    expect(viaServer.stdout).toBe(viaState.stdout);
    const unknownState = await run(['call', '--state', state, 'NoSuchMethod']);
    const unknownServer = await call('NoSuchMethod');
    expect(unknownServer.status).toBe(1);
    expect(unknownServer.stderr).toBe(unknownState.stderr);
    expect(json(unknownServer.stderr)).toMatchObject({ code: -32601 });
  });

  it('--json takes the whole parameter array', async () => {
    const r = await run([
      'call',
      '--connect',
      address,
      '--json',
      'HcnCreateNetwork',
      '[null, {"Name":"j","Type":"NAT"}]',
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(json(r.stdout)).toMatchObject({ Name: 'j' });
  });

  it('exit 121 when no hnsim server answers: refused, not JSON-RPC, closed, silent', async () => {
    const gone = await fakeServer(() => undefined);
    const port = gone.port;
    await gone.close();
    const refused = await run(['call', '--connect', `127.0.0.1:${port}`, 'ListMethods']);
    expect(refused.status).toBe(121);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      `hnsim: call: no hnsim simulator answers at 127.0.0.1:${port}: ECONNREFUSED ` +
        `(start one with 'hnsim serve --listen 127.0.0.1:0')\n`,
    );

    const cases: [(s: Socket) => void, string][] = [
      [(s) => s.end('HTTP/1.1 400 Bad Request\r\n\r\n'), 'the answer is not JSON-RPC'],
      [
        (s) => s.end('{"jsonrpc":"2.0","id":"hnsim-call-probe","error":{"code":-32601}}\n'),
        'the answer is not a GetVersion result',
      ],
      [(s) => s.destroy(), 'the connection closed'],
      [() => undefined, 'no answer within 5000 ms'],
    ];
    for (const [behave, why] of cases) {
      const fake = await fakeServer(behave);
      try {
        const r = await run(['call', '--connect', `127.0.0.1:${fake.port}`, 'ListMethods']);
        expect(r.status, why).toBe(121);
        expect(r.stderr, why).toContain(`no hnsim simulator answers at 127.0.0.1:${fake.port}: ${why}`);
      } finally {
        await fake.close();
      }
    }
  });

  it('usage errors exit 2: --state with --connect, host options, a bad or non-loopback address', async () => {
    const cases: [string[], string][] = [
      [
        ['--state', join(dir, 'x.json'), '--connect', address],
        'call: --state and --connect exclude each other',
      ],
      [
        ['--connect', address, '--seed', '3'],
        "call: --seed describes a node built here; with --connect the server's node is used",
      ],
      [['--connect', '10.0.0.1:80'], 'call: --connect 10.0.0.1:80: 10.0.0.1 is not a loopback address'],
      [['--connect', '127.0.0.1:0'], 'call: --connect 127.0.0.1:0: the port must be an integer 1..65535'],
      [['--connect', '127.0.0.1'], 'call: --connect takes ADDR:PORT'],
      [[], 'call: --state FILE or --connect ADDR:PORT is required'],
    ];
    for (const [args, message] of cases) {
      const r = await run(['call', ...args, 'ListMethods']);
      expect(r.status, message).toBe(2);
      expect(r.stderr, message).toContain(`hnsim: ${message}`);
      expect(r.stdout).toBe('');
    }
  });
});
