// The `hnsim` command as a user runs it: `node bin/hnsim.js …` in a child process (no build step),
// checking exit codes, usage errors, JSON-RPC over pipes, the quick-start walkthrough and listings.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HRESULTS } from '../../src/core/errors.js';
import { root, runHnsim, spawnHnsim, type CliOut as Run } from './hnsim.js';

const NOT_FOUND = HRESULTS.HCN_E_NETWORK_NOT_FOUND.message;
const PORT_EXISTS = HRESULTS.HCN_E_PORT_ALREADY_EXISTS.message;

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

const hnsim = (args: string[], input?: string): Run => spawnHnsim(args, { input });

/** The same CLI in-process (fast): fake stdin/stdout/stderr, not a TTY unless asked. */
const run = (args: string[], input = '', tty = false, env: Record<string, string> = {}): Promise<Run> =>
  runHnsim(args, { input, tty, env });

/** Folders made by `tempDir()`, removed after each test (also when it fails). */
const tempDirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hnsim-cli-'));
  tempDirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function rpcLines(...requests: object[]): string {
  return requests.map((r) => JSON.stringify(r)).join('\n') + '\n';
}

describe('the bin shim (child process, no build step)', () => {
  it('--help prints the commands and exits 0', () => {
    const r = hnsim(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Usage: hnsim <command> [options]');
    for (const cmd of ['quickstart', 'serve', 'show', 'version'])
      expect(r.stdout).toMatch(new RegExp(`^  ${cmd} `, 'm'));
    expect(r.stderr).toBe('');
  });

  it('an unknown command exits 2 with one line on stderr', () => {
    const r = hnsim(['frobnicate']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`hnsim: unknown command "frobnicate" (see 'hnsim --help')\n`);
  });

  it('serve answers piped JSON-RPC requests one line each, then exits 0 at EOF', () => {
    const input =
      rpcLines(
        { jsonrpc: '2.0', id: 1, method: 'HcnCreateNetwork', params: [null, '{"Name":"nat","Type":"NAT"}'] },
        { jsonrpc: '2.0', method: 'HcnCreateNetwork', params: [null, { Name: 'quiet' }] },
        { jsonrpc: '2.0', id: 2, method: 'HcnEnumerateNetworks', params: [] },
        {
          jsonrpc: '2.0',
          id: 3,
          method: 'HcnQueryNetworkProperties',
          params: ['00000000-0000-4000-8000-0000000000aa'],
        },
        { jsonrpc: '2.0', id: 4, method: 'NoSuchMethod' },
        { jsonrpc: '2.0', id: 5, method: 'GetVersion' },
      ) + 'not json\n';
    const r = hnsim(['serve', '--seed', '7', '--profile', 'ws2019'], input);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(6);
    const [create, list, notFound, noMethod, version, parse] = lines.map(
      (l) => JSON.parse(l) as Record<string, unknown>,
    );
    const net = create!.result as { ID: string; Name: string };
    expect(create!.id).toBe(1);
    expect(net.Name).toBe('nat');
    expect(list).toEqual({ jsonrpc: '2.0', id: 2, result: [net.ID, expect.any(String)] });
    expect(notFound!.id).toBe(3);
    expect(notFound!.error).toMatchObject({
      code: -32000,
      data: {
        hresult: 2151350273,
        name: 'HCN_E_NETWORK_NOT_FOUND',
        errorRecord: { Success: false, Error: `${NOT_FOUND} `, ErrorCode: 2151350273 },
      },
    });
    expect(noMethod).toMatchObject({ id: 4, error: { code: -32601 } });
    expect(version).toMatchObject({ id: 5, result: { name: 'ws2019', version: { Major: 9, Minor: 5 } } });
    expect(parse).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
  });

  it('quickstart --flat-api exits 0, names what it created with the HRESULT line, and is byte-identical per seed', () => {
    const a = hnsim(['quickstart', '--flat-api']);
    expect(a.status).toBe(0);
    expect(a.stderr).toBe('');
    for (const name of ['"nat"', '"vxlan0"', '"web-1"', '"pod-a"', '"pod-b"'])
      expect(a.stdout).toContain(name);
    expect(a.stdout).toContain(`< HCN_E_PORT_ALREADY_EXISTS (0x803B0013): ${PORT_EXISTS}`);
    const b = hnsim(['quickstart', '--flat-api', '--seed', '1']);
    expect(b.stdout).toBe(a.stdout);
  });
});

describe('help and usage errors', () => {
  it('no arguments, help, and <command> --help print usage and exit 0', async () => {
    const top = await run(['--help']);
    expect((await run([])).stdout).toBe(top.stdout);
    expect((await run(['help'])).stdout).toBe(top.stdout);
    for (const cmd of ['quickstart', 'serve', 'show', 'version']) {
      const r = await run([cmd, '--help']);
      expect(r.status).toBe(0);
      expect(r.stdout.startsWith(`Usage: hnsim ${cmd}`)).toBe(true);
      expect((await run(['help', cmd])).stdout).toBe(r.stdout);
    }
  });

  it.each([
    [['--frob'], /^hnsim: unknown option "--frob" \(see 'hnsim --help'\)$/],
    [
      ['quickstart', '--seed', 'x'],
      /^hnsim: quickstart: --seed must be an integer .* \(see 'hnsim quickstart --help'\)$/,
    ],
    [['quickstart', '--seed', '4294967296'], /^hnsim: quickstart: --seed must be an integer/],
    [['quickstart', '--seed', '-1'], /^hnsim: quickstart: /],
    [['quickstart', '--format', 'yaml'], /^hnsim: quickstart: --format must be text or json, got "yaml"/],
    [['quickstart', '--format'], /^hnsim: quickstart: Option '--format <value>' argument missing/],
    [['quickstart', '--profile', 'ws2003'], /^hnsim: quickstart: unknown --profile "ws2003"/],
    [['quickstart', '--snapshot', 'f'], /^hnsim: quickstart: Unknown option '--snapshot'/],
    [['serve', 'extra'], /^hnsim: serve: unexpected argument "extra"/],
    [['show', 'widgets'], /^hnsim: show: unknown object kind "widgets"/],
    [['show', 'networks', 'endpoints'], /^hnsim: show: unexpected argument "endpoints"/],
    [['version', '--seed', '1'], /^hnsim: version: Unknown option '--seed'/],
    [['help', 'nope'], /^hnsim: help: unknown command "nope"/],
  ])('%j is a usage error: exit 2, one line on stderr', async (args, message) => {
    const r = await run(args);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe('');
    expect(lines[0]).toMatch(message);
  });
});

describe('quickstart --flat-api (the one-host walkthrough)', () => {
  let text: Run;
  beforeAll(async () => {
    text = await run(['quickstart', '--flat-api']);
  });

  it('narrates the walkthrough from the model', () => {
    expect(text.status).toBe(0);
    const out = text.stdout;
    expect(out).toContain('profile ws2022: Windows Server 2022 (build 20348), HNS 15.0, HCN schema 2.11');
    expect(out).toContain(`ErrorRecord: {"Success":false,"Error":"${PORT_EXISTS} ","ErrorCode":2151350291}`);
    expect(out).toContain('State unchanged');
    expect(out).toContain('Networks (2)');
    expect(out).toMatch(/^\s+Name\s+ID\s+IP Address\s+MAC Address\s+Network\s+Namespace\s+Policies$/m);
    expect(out).toContain('Left: 0 network(s), 0 endpoint(s), 1 namespace(s) (HostDefault)');
    expect(out).not.toContain('\x1b['); // not a TTY: no colour
  });

  it('prints the IDs and addresses the JSON walkthrough records', async () => {
    const json = await run(['quickstart', '--flat-api', '--format', 'json']);
    expect(json.status).toBe(0);
    const w = JSON.parse(json.stdout) as {
      completed: boolean;
      steps: {
        calls: { method: string; hresult: number; name: string; result?: Record<string, unknown> }[];
      }[];
    };
    expect(w.completed).toBe(true);
    const calls = w.steps.flatMap((s) => s.calls);
    const created = calls.filter((c) => c.method.startsWith('HcnCreate') && c.hresult === 0);
    expect(created.length).toBe(7); // 2 networks, 1 namespace, 3 endpoints, 1 load balancer
    for (const c of created) expect(text.stdout).toContain(String(c.result!.ID));
    for (const e of created.filter((c) => c.method === 'HcnCreateEndpoint')) {
      const ip = (e.result!.IpConfigurations as { IpAddress: string }[])[0]!.IpAddress;
      expect(text.stdout).toContain(ip);
      expect(text.stdout).toContain(String(e.result!.MacAddress));
    }
    const failed = calls.filter((c) => c.hresult !== 0);
    expect(failed.map((c) => [c.method, c.name, c.hresult])).toEqual([
      ['HcnCreateEndpoint', 'HCN_E_PORT_ALREADY_EXISTS', 2151350291],
    ]);
  });

  it('is deterministic per seed, and another seed gives other IDs', async () => {
    expect((await run(['quickstart', '--flat-api', '--seed', '1'])).stdout).toBe(text.stdout);
    const other = await run(['quickstart', '--flat-api', '--seed', '2']);
    expect(other.status).toBe(0);
    expect(other.stdout).not.toBe(text.stdout);
  });

  it('runs on every named profile', async () => {
    for (const profile of ['ws2019', 'ws2025']) {
      const r = await run(['quickstart', '--flat-api', '--profile', profile]);
      expect(r.status).toBe(0);
      expect(r.stdout).toContain(`profile ${profile}`);
    }
  });

  it('stops with exit 1 on a host too old for the v2 API, showing the HRESULT', async () => {
    const r = await run(['quickstart', '--flat-api', '--profile', '8.0']);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('< E_NOTIMPL (0x80004001)');
    expect(r.stdout).toContain('The walkthrough stopped');
  });

  it('uses colour only on a TTY without NO_COLOR', async () => {
    expect((await run(['quickstart', '--flat-api'], '', true)).stdout).toContain('\x1b[1m');
    expect((await run(['quickstart', '--flat-api'], '', true, { NO_COLOR: '1' })).stdout).not.toContain(
      '\x1b[',
    );
  });
});

describe('show and version', () => {
  it('lists a fresh host: only its HostDefault namespace', async () => {
    const r = await run(['show']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Networks \(0\)$/m);
    expect(r.stdout).toMatch(/^Namespaces \(1\)$/m);
    expect(r.stdout).toMatch(/\s1\s+HostDefault\s/);
  });

  it('lists a snapshot taken over JSON-RPC, as text and as JSON', async () => {
    const serve = await run(
      ['serve', '--profile', 'ws2025'],
      rpcLines(
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'HcnCreateNetwork',
          params: [null, { Name: 'snapnet', Type: 'NAT' }],
        },
        { jsonrpc: '2.0', id: 2, method: 'Snapshot' },
      ),
    );
    const [created, snap] = serve.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const dir = tempDir();
    const file = join(dir, 'snap.json');
    writeFileSync(file, JSON.stringify(snap!.result));
    const net = created!.result as { ID: string };

    // the ws2025 profile is inferred from the snapshot's HNS version
    const text = await run(['show', 'networks', '--snapshot', file]);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^snapnet\\s+${net.ID}\\s+NAT\\s`, 'm'));
    expect(text.stdout).not.toContain('Endpoints (');

    const json = await run(['show', 'networks', '--snapshot', file, '--format', 'json']);
    expect(JSON.parse(json.stdout)).toEqual({ networks: [created!.result] });

    const stdin = await run(['show', 'all', '--snapshot', '-'], JSON.stringify(snap!.result));
    expect(stdin.stdout).toContain('snapnet');

    // an explicit profile of another HNS version cannot restore it
    const other = await run(['show', '--snapshot', file, '--profile', 'ws2019']);
    expect(other.status).toBe(1);
    expect(other.stderr).toMatch(
      /^hnsim: cannot restore snapshot [^\n]*HNS 15\.4 restored on HNS 9\.5[^\n]*\n$/,
    );
  });

  it('fails with exit 1 and one line for an unreadable or foreign snapshot', async () => {
    const missing = await run(['show', '--snapshot', '/nonexistent/snap.json']);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^hnsim: cannot read snapshot \/nonexistent\/snap.json: [^\n]*\n$/);
    const dir = tempDir();
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"format":"other"}');
    const foreign = await run(['show', '--snapshot', bad]);
    expect(foreign.status).toBe(1);
    expect(foreign.stderr).toContain('cannot restore snapshot');
    const notJson = join(dir, 'notjson.json');
    writeFileSync(notJson, 'nope');
    expect((await run(['show', '--snapshot', notJson])).stderr).toMatch(/is not JSON/);
  });

  it('version prints the package version and the profiles', async () => {
    const r = await run(['version']);
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(`hnsim ${pkg.version}`);
    expect(r.stdout).toMatch(/^ws2019\s+9\.5\s+2\.0\s+17763\s/m);
    expect(r.stdout).toMatch(/^ws2022 \*\s+15\.0\s/m);
    expect(r.stdout).toMatch(/^ws2025\s+15\.4\s/m);
    const j = JSON.parse((await run(['version', '--format', 'json'])).stdout) as {
      hnsim: string;
      profiles: { name: string }[];
    };
    expect(j.hnsim).toBe(pkg.version);
    expect(j.profiles.map((p) => p.name)).toEqual(['ws2019', 'ws2022', 'ws2025']);
    expect((await run(['--version'])).stdout).toBe(r.stdout);
  });
});
