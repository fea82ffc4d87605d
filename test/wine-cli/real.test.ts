// `hnsim wine` and the CNI runner with real Wine (skipped without Wine or mingw-w64): Windows
// programs built from test/wine-cli/fixtures with src/wine/build.ts's buildProgram, hnsim's DLLs in
// the prefix's system32, the simulator behind HNSIM_ENDPOINT. probe.exe shows what a program gets;
// tiny-plugin.exe is a chained CNI plugin that creates an HCN namespace through computenetwork.dll.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { callRpc, RpcServer, serveTcp } from '../../src/api/rpc.js';
import { main } from '../../src/cli/main.js';
import { pluginHost } from '../../src/cni/host.js';
import { CniRunner } from '../../src/cni/runner.js';
import { cniRpcMethods } from '../../src/plugins/index.js';
import { buildProgram } from '../../src/wine/build.js';
import { wineDoctor } from '../../src/wine/doctor.js';
import { wineRegistry } from '../../src/wine/plugin.js';
import { prepareWine } from '../../src/wine/run.js';
import { node } from '../runtime/kit.js';
import { BIN, cid, conflist, recordExecs, rtConf } from '../scenarios/cni-pitfall-kit.js';
import { tempDir } from './fakes.js';

/** The node's namespace IDs. */
function namespaces(host: { api: { HcnEnumerateNamespaces(q: string): unknown } }): string[] {
  const r = host.api.HcnEnumerateNamespaces('') as { ok: boolean; result?: string[] };
  return r.result ?? [];
}
const root = fileURLToPath(new URL('../..', import.meta.url));
const fixtures = join(root, 'test', 'wine-cli', 'fixtures');
const outDir = join(process.env['XDG_CACHE_HOME'] || tmpdir(), 'hnsim', 'wine-cli-fixtures');
const ready = wineDoctor(process.env).ok;

let probe = '';
let tinyPlugin = '';

async function run(args: string[], env: Record<string, string> = {}, input = '') {
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
    env: { ...process.env, ...env },
  });
  return { status, stdout: out.join(''), stderr: err.join('') };
}

/** `key=value` lines as an object (a C program's stdout is in text mode: CRLF line ends). */
function lines(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split(/\r?\n/)
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

describe.skipIf(!ready)('with Wine', () => {
  beforeAll(async () => {
    probe = (await buildProgram(join(fixtures, 'probe.c'), join(outDir, 'probe.exe'))).exe;
    tinyPlugin = (await buildProgram(join(fixtures, 'tiny-plugin.c'), join(outDir, 'tiny-plugin.exe'))).exe;
    await prepareWine(); // the prefix (a first use creates it) and the DLLs
  }, 600_000);

  it('hnsim wine --state: arguments, environment, stdin, exit code, and the DLL reaching the saved node', () => {
    const state = join(tempDir(), 'node.json');
    const r = spawnSync(
      process.execPath,
      [join(root, 'bin', 'hnsim.js'), 'wine', '--state', state, '--', probe, 'a b', '-x'],
      {
        input: '{"cniVersion":"1.0.0"}\n',
        env: { ...process.env, PROBE_VAR: 'kept', PROBE_CREATE_NS: '1', PROBE_EXIT: '7' },
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    expect(r.status, r.stderr).toBe(7);
    const out = lines(r.stdout);
    expect(out).toMatchObject({
      argc: '3',
      arg1: 'a b',
      arg2: '-x',
      PROBE_VAR: 'kept',
      stdin: '{"cniVersion":"1.0.0"}',
      hr: '0x00000000',
    });
    expect(out['HNSIM_ENDPOINT']).toMatch(/^127\.0\.0\.1:\d+$/);
    const ns = JSON.parse(out['namespace']!) as { ID: string };
    expect(readFileSync(state, 'utf8')).toContain(ns.ID);
  });

  it('hnsim wine --connect: the program changes the running server host', async () => {
    const host = node(21);
    const tcp = await serveTcp(host, { host: '127.0.0.1', port: 0 });
    try {
      const r = await run(['wine', '--connect', `127.0.0.1:${tcp.port}`, '--', probe], {
        PROBE_CREATE_NS: '1',
      });
      expect(r.status, r.stderr).toBe(0);
      const ns = JSON.parse(lines(r.stdout)['namespace']!) as { ID: string };
      expect(namespaces(host)).toContain(ns.ID);
    } finally {
      await tcp.close();
    }
  });

  it('the CNI runner: win-bridge (TypeScript) then tiny-plugin.exe under Wine, ADD and DEL', async () => {
    const host = node(22);
    const ns = host.api.HcnCreateNamespace(null, { SchemaVersion: { Major: 2, Minor: 0 } });
    if (!ns.ok) throw new Error(ns.message);
    const nsId = (ns.result as { ID: string }).ID;
    const dir = `Z:${outDir.replace(/\//g, '\\')}`;
    const runner = new CniRunner(pluginHost(host, wineRegistry(host)), { path: [BIN, dir] });
    const list = conflist({
      cniVersion: '1.0.0',
      name: 'cbr0',
      plugins: [
        {
          type: 'win-bridge',
          apiVersion: 2,
          ipam: { type: 'host-local', subnet: '10.244.1.0/24', rangeStart: '10.244.1.3' },
        },
        { type: 'tiny-plugin' },
      ],
    });
    const execs = recordExecs(host);
    const before = namespaces(host).length;
    const result = await runner.addNetworkList(list, rtConf(cid(1), nsId));
    expect(result?.ips?.[0]?.address).toBe('10.244.1.3/24');
    expect(namespaces(host).length).toBe(before + 1);
    await runner.delNetworkList(list, rtConf(cid(1), nsId));
    expect(execs).toEqual([
      '1:host-local ADD 0',
      '0:win-bridge ADD 0',
      '0:tiny-plugin ADD 0',
      '0:tiny-plugin DEL 0',
      '1:host-local DEL 0',
      '0:win-bridge DEL 0',
    ]);
  });

  it('CniExec with a path to the .exe runs it against the same node', async () => {
    const host = node(23);
    const rpc = new RpcServer(host, { methods: cniRpcMethods(host, wineRegistry(host)) });
    const env = {
      CNI_COMMAND: 'ADD',
      CNI_CONTAINERID: 'c1',
      CNI_NETNS: 'none',
      CNI_IFNAME: 'eth0',
      CNI_PATH: 'C:\\cni',
    };
    const stdin = JSON.stringify({
      cniVersion: '1.0.0',
      name: 'x',
      type: 'tiny-plugin',
      prevResult: { cniVersion: '1.0.0', ips: [] },
    });
    const before = namespaces(host).length;
    const a = await callRpc(rpc, 'CniExec', [{ plugin: tinyPlugin, env, stdin }]);
    expect(a).toMatchObject({ result: { exitCode: 0 } });
    expect(JSON.parse((a as unknown as { result: { stdout: string } }).result.stdout)).toEqual({
      cniVersion: '1.0.0',
      ips: [],
    });
    expect(namespaces(host).length).toBe(before + 1);
  });
});
