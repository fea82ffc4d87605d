// `hnsim wine`: its flags, help and exit codes (src/cli/wine.ts), without Wine. The error paths run
// in-process and, for the exit codes a script sees, as the spawned command; a whole run goes through
// fake Wine tools (test/wine-cli/fakes.ts) whose "program" is a shell script that calls the
// simulator over HNSIM_ENDPOINT as the DLL would (it needs mingw-w64 for the DLL build, else skips).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { parseDuration, splitWineArgs, WINE_EXIT } from '../../src/cli/wine.js';
import { findMingw } from '../../src/wine/doctor.js';
import { cleanup, fakeWine, readyPrefix, script, tempDir } from './fakes.js';

afterEach(cleanup);

/** The node's namespace IDs. */
function namespaces(host: { api: { HcnEnumerateNamespaces(q: string): unknown } }): string[] {
  const r = host.api.HcnEnumerateNamespaces('') as { ok: boolean; result?: string[] };
  return r.result ?? [];
}
const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'hnsim.js');

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

async function run(args: string[], env: Record<string, string | undefined> = {}, input = ''): Promise<Run> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: string[] = [];
  const err: string[] = [];
  stdout.on('data', (c: Buffer) => out.push(c.toString('utf8')));
  stderr.on('data', (c: Buffer) => err.push(c.toString('utf8')));
  const status = await main(args, {
    stdin: Readable.from([input]),
    stdout,
    stderr,
    isTTY: false,
    env: { PATH: process.env['PATH'], HOME: process.env['HOME'], ...env },
  });
  return { status, stdout: out.join(''), stderr: err.join('') };
}

/** The real command, as a script runs it. */
function spawned(args: string[], env: Record<string, string> = {}): Run {
  const r = spawnSync(process.execPath, [bin, 'wine', ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A file that exists, to get past the program check. */
function someExe(): string {
  const p = join(tempDir(), 'prog.exe');
  writeFileSync(p, 'MZ');
  return p;
}

async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const NO_WINE = { HNSIM_WINE: '/nonexistent/wine64' };

describe('hnsim wine: arguments', () => {
  it('splits hnsim options from the program at -- or at the first non-option', () => {
    expect(splitWineArgs(['--state', 's.json', '--', 'x.exe', '-v'])).toEqual({
      options: ['--state', 's.json'],
      program: 'x.exe',
      programArgs: ['-v'],
    });
    expect(splitWineArgs(['--keep-wineserver', 'x.exe', '--state', 'y'])).toEqual({
      options: ['--keep-wineserver'],
      program: 'x.exe',
      programArgs: ['--state', 'y'],
    });
    expect(splitWineArgs(['--timeout=5s', 'x.exe'])).toEqual({
      options: ['--timeout=5s'],
      program: 'x.exe',
      programArgs: [],
    });
    expect(splitWineArgs(['--doctor'])).toEqual({ options: ['--doctor'], programArgs: [] });
  });

  it('reads durations', () => {
    expect(parseDuration('90')).toBe(90_000);
    expect(parseDuration('1.5s')).toBe(1500);
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('2m')).toBe(120_000);
    expect(parseDuration('1h')).toBe(3_600_000);
    for (const bad of ['', '0', 'soon', '-1', '5d']) expect(parseDuration(bad), bad).toBeUndefined();
  });
});

describe('hnsim wine: help and usage errors (exit 2)', () => {
  it('--help documents the three ways to get a node, go test -exec and every exit code', async () => {
    const r = await run(['wine', '--help']);
    expect(r.status).toBe(0);
    for (const text of [
      '--connect ADDR:PORT',
      '--state FILE',
      'discarded when',
      "go test -exec 'npx hnsim wine --' ./...",
      // issue 15: the DLL answering the interface questions, the Windows build, a namespace for ApiVersion 2
      'iphlpapi.dll',
      'ws2019 10.0.17763',
      'CNI_NETNS=0b1ce66e-0000-4000-8000-000000000001',
      '--keep-wineserver',
      'apt-get install wine64 gcc-mingw-w64-x86-64',
      '120 when Wine or mingw-w64 is missing',
      '121 when --connect reaches no',
      '127 when it',
    ])
      expect(r.stdout).toContain(text);
    expect((await run(['help', 'wine'])).stdout).toBe(r.stdout);
    expect((await run(['--help'])).stdout).toMatch(/\n {2}wine {9}Run a Windows program/);
  });

  it.each([
    [['wine', '--bogus', 'x.exe'], "Unknown option '--bogus'"],
    [
      ['wine', '--state', 'a.json', '--connect', '127.0.0.1:1', 'x.exe'],
      '--state and --connect exclude each other',
    ],
    [['wine', '--connect', '10.0.0.1:80', 'x.exe'], '--connect takes a loopback ADDR:PORT'],
    [['wine', '--connect', '127.0.0.1:80', '--seed', '3', 'x.exe'], '--seed describes a node built here'],
    [['wine', '--timeout', 'soon', 'x.exe'], '--timeout takes a duration'],
    [['wine', '--state', 'a.json'], 'no program to run'],
    [['wine', '--doctor', 'x.exe'], '--doctor runs no program'],
  ])('%j → 2', async (args, message) => {
    const r = await run(args);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`hnsim: wine: ${message}`);
    expect(r.stderr).toContain("(see 'hnsim wine --help')");
  });

  it('a bad host option is the usual usage error', async () => {
    const r = await run(['wine', '--profile', 'ws1999', '--', someExe()]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unknown --profile "ws1999"');
  });
});

describe('hnsim wine: what cannot run', () => {
  it('a program that does not exist is 127, a directory 126', async () => {
    const missing = await run(['wine', '--', '/nonexistent/win-bridge.exe']);
    expect(missing.status).toBe(WINE_EXIT.notFound);
    expect(missing.stderr).toBe('hnsim: /nonexistent/win-bridge.exe: no such file\n');
    expect((await run(['wine', '--', tempDir()])).status).toBe(WINE_EXIT.cannotRun);
  });

  it('without Wine: 120, naming what is missing and the apt-get command', async () => {
    const r = await run(['wine', '--', someExe()], NO_WINE);
    expect(r.status).toBe(120);
    expect(r.stderr).toContain('Wine (its 64-bit loader, wine64)');
    expect(r.stderr).toMatch(/apt-get update && apt-get install -y wine64/);
  });

  it('--connect to an address nobody serves: 121', async () => {
    const port = await deadPort();
    const r = await run(['wine', '--connect', `127.0.0.1:${port}`, '--', someExe()]);
    expect(r.status).toBe(121);
    expect(r.stderr).toContain(`no hnsim simulator answers at 127.0.0.1:${port}: ECONNREFUSED`);
  });

  it('a state file that cannot be read: 122', async () => {
    const dir = tempDir();
    const notJson = join(dir, 'bad.json');
    writeFileSync(notJson, '{');
    const r = await run(['wine', '--state', notJson, '--', someExe()]);
    expect(r.status).toBe(122);
    expect(r.stderr).toContain(`cannot read state ${notJson}`);
    const isDir = join(dir, 'sub');
    mkdirSync(isDir);
    expect((await run(['wine', '--state', isDir, '--', someExe()])).status).toBe(122);
  });

  it('--doctor lists the tools and the prefix; 120 when something is missing', async () => {
    const r = await run(['wine', '--doctor', '--prefix', '/tmp/hnsim-no-such-prefix'], NO_WINE);
    expect(r.status).toBe(120);
    expect(r.stdout).toContain('wine        missing');
    expect(r.stdout).toContain('prefix      /tmp/hnsim-no-such-prefix (not created yet');
    expect(r.stderr).toContain('apt-get install -y wine64');
  });
});

describe('hnsim wine --doctor: the versions it found', () => {
  it('prints each tool with its version, Go as optional; a missing Go is no failure', async () => {
    const fake = fakeWine();
    const bin = tempDir();
    const gcc = script(
      join(bin, 'x86_64-w64-mingw32-gcc'),
      'echo "x86_64-w64-mingw32-gcc (GCC) 12-fake"; echo second line',
    );
    const go = script(join(bin, 'go'), '[ "$1" = version ] && echo "go version go1.19.8 linux/amd64"');
    const prefix = readyPrefix(join(tempDir(), 'prefix'));
    const base = { HNSIM_WINE: fake.tools.wine, WINESERVER: fake.tools.wineserver, HNSIM_MINGW_GCC: gcc };
    const r = await run(['wine', '--doctor', '--prefix', prefix], { ...base, PATH: bin });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      [
        `wine        ${fake.tools.wine} (wine-8.0 (fake))`,
        `wineserver  ${fake.tools.wineserver}`,
        `mingw-w64   ${gcc} (x86_64-w64-mingw32-gcc (GCC) 12-fake)`,
        `go          ${go} (go version go1.19.8 linux/amd64)`,
        `prefix      ${prefix} (ready)`,
        '',
      ].join('\n'),
    );
    const noGo = await run(['wine', '--doctor', '--prefix', prefix], { ...base, PATH: tempDir() });
    expect(noGo.status).toBe(0);
    expect(noGo.stdout).toContain(
      'go          not found (optional: it builds Go programs for GOOS=windows)\n',
    );
  });
});

describe('hnsim wine: the spawned command', () => {
  it('exit codes as a shell sees them: 0 help, 2 usage, 127 no program, 120 no Wine, 121 no simulator', async () => {
    expect(spawned(['--help']).status).toBe(0);
    const usage = spawned(['--bogus']);
    expect([usage.status, usage.stderr]).toEqual([
      2,
      "hnsim: wine: Unknown option '--bogus' (see 'hnsim wine --help')\n",
    ]);
    expect(spawned(['--', '/nonexistent/x.exe']).status).toBe(127);
    const exe = someExe();
    const noWine = spawned(['--', exe], NO_WINE);
    expect(noWine.status).toBe(120);
    expect(noWine.stderr).toContain('apt-get install');
    expect(spawned(['--connect', `127.0.0.1:${await deadPort()}`, '--', exe]).status).toBe(121);
  });
});

describe.skipIf(!findMingw())('hnsim wine: a whole run through fake Wine tools', () => {
  /** Fake wine and wineserver, a ready prefix, and a "program" calling the simulator with node. */
  function setup(programBody: string): { env: Record<string, string>; prog: string; log: () => string[] } {
    const fake = fakeWine();
    const prefix = readyPrefix(join(tempDir(), 'prefix'));
    const prog = script(join(tempDir(), 'prog.exe'), programBody);
    return {
      env: {
        HNSIM_WINE: fake.tools.wine,
        WINESERVER: fake.tools.wineserver,
        HNSIM_WINE_PREFIX: prefix,
        PROBE_VAR: 'kept',
      },
      prog,
      log: fake.log,
    };
  }

  /** A shell line that creates an HCN namespace through HNSIM_ENDPOINT, as computenetwork.dll does. */
  const CREATE_NS = `node -e '
const [h, p] = process.env.HNSIM_ENDPOINT.split(":");
const s = require("net").connect(+p, h, () => s.write(JSON.stringify({jsonrpc:"2.0",id:1,method:"HcnCreateNamespace",params:[null,"{}"]})+"\\n"));
s.on("data", (d) => { process.stdout.write("created " + JSON.parse(d).result.ID + "\\n"); s.end(); });'`;

  it('--state: the program reaches the node, its exit code comes back, the state is saved', async () => {
    const { env, prog, log } =
      setup(`echo "endpoint=$HNSIM_ENDPOINT var=$PROBE_VAR args=$*"; read x; echo "stdin=$x"
${CREATE_NS}
exit 7`);
    const state = join(tempDir(), 'node.json');
    const r = await run(['wine', '--state', state, '--seed', '3', '--', prog, 'a', '-b'], env, 'conf\n');
    // a first use of the build's prefix is said (and a first DLL compile, when the cache has none)
    expect(r.stderr).toMatch(
      /^(hnsim: compiling hnsim's DLLs .*\n)?hnsim: setting up Windows 10\.0\.20348 \(Windows Server 2022 Datacenter\) in .*\/hnsim-windows\/10\.0\.20348 \(first use of this build: a few seconds\)\n$/,
    );
    expect(r.status).toBe(7);
    expect(r.stdout).toMatch(
      /^endpoint=127\.0\.0\.1:\d+ var=kept args=a -b\nstdin=conf\ncreated [0-9A-F-]{36}\n$/,
    );
    const id = /created (\S+)/.exec(r.stdout)![1]!;
    const saved = JSON.parse(readFileSync(state, 'utf8')) as Record<string, unknown>;
    expect(JSON.stringify(saved)).toContain(id);
    expect(log().filter((l) => l.startsWith('wineserver -p'))).toEqual([
      expect.stringMatching(/^wineserver -p60 WINEPREFIX=.*\/hnsim-windows\/10\.0\.20348$/),
    ]);
    // a second run sees the first one's namespace, and says nothing of its own
    const again = await run(['wine', '--state', state, '--', prog], env);
    expect(again.status).toBe(7);
    expect(again.stderr).toBe('');
    const list = await run(['call', '--state', state, 'HcnEnumerateNamespaces', '']);
    expect(JSON.parse(list.stdout)).toEqual(
      expect.arrayContaining([id, /created (\S+)/.exec(again.stdout)![1]]),
    );
  }, 600_000); // the first run may compile the DLLs

  it('no --state: a fresh node, discarded; --keep-wineserver; --timeout → 124', async () => {
    const { env, prog, log } = setup(`${CREATE_NS}\nexit 0`);
    const r = await run(['wine', '--keep-wineserver', '--profile', 'ws2019', '--', prog], env);
    expect(r.status).toBe(0);
    expect(log().filter((l) => l.startsWith('wineserver -p'))).toEqual([
      expect.stringMatching(/^wineserver -p WINEPREFIX=.*\/hnsim-windows\/10\.0\.17763$/),
    ]);
    const slow = setup('sleep 20');
    const t = await run(['wine', '--timeout', '300ms', '--', slow.prog], slow.env);
    expect(t.status).toBe(124);
    expect(t.stderr).toContain('was killed after --timeout 300ms');
  });

  it('--connect: the program talks to the running server', async () => {
    const { serveTcp } = await import('../../src/api/rpc.js');
    const { createHost } = await import('../../src/host/host.js');
    const host = createHost({ seed: 9 });
    const tcp = await serveTcp(host, { host: '127.0.0.1', port: 0 });
    try {
      const { env, prog } = setup(CREATE_NS);
      const r = await run(['wine', '--connect', `localhost:${tcp.port}`, '--', prog], env);
      expect(r.status).toBe(0);
      const id = /created (\S+)/.exec(r.stdout)![1]!;
      expect(namespaces(host)).toContain(id);
    } finally {
      await tcp.close();
    }
  });
});
