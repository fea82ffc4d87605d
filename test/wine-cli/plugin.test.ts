// The CNI runner and CniExec running a real plugin binary (src/wine/plugin.ts), without Wine: a fake
// executor stands in for runUnderWine. It proves the wiring — which file runs, with which CNI
// environment and stdin (prevResult from the TypeScript plugin before it), in libcni's order (ADD in
// order, DEL in reverse), and that HNSIM_ENDPOINT reaches the same simulated node over TCP.
import { connect } from 'node:net';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { callRpc, RpcServer } from '../../src/api/rpc.js';
import { pluginHost } from '../../src/cni/host.js';
import { CniRunner, cniErrorOf } from '../../src/cni/runner.js';
import { cniRpcMethods, referenceRegistry } from '../../src/plugins/index.js';
import { linuxDir, wineBinaries, type WineExecutor } from '../../src/wine/plugin.js';
import type { WineRunRequest } from '../../src/wine/run.js';
import { serveSimulator } from '../../src/wine/sim.js';
import { BIN, cid, conflist, endpointNames, recordExecs, rtConf } from '../scenarios/cni-pitfall-kit.js';
import { node } from '../runtime/kit.js';
import type { Host } from '../../src/host/host.js';

/** A node with the HCN L2Bridge network cbr0, and a namespace for the pod (CNI_NETNS). */
function hcnNode(seed: number): { host: Host; ns: string } {
  const host = node(seed);
  const r = host.api.HcnCreateNamespace(null, { SchemaVersion: { Major: 2, Minor: 0 } });
  if (!r.ok) throw new Error(r.message);
  return { host, ns: (r.result as { ID: string }).ID };
}

import { cleanup, tempDir } from './fakes.js';

afterEach(cleanup);

/** One JSON-RPC call over TCP, as the DLL makes it. */
function tcpCall(
  endpoint: string,
  method: string,
  params: unknown[],
): Promise<{ result?: unknown; error?: unknown }> {
  const m = /^(.*):(\d+)$/.exec(endpoint)!;
  return new Promise((resolve, reject) => {
    const s = connect({ host: m[1]!, port: Number(m[2]) });
    let buf = '';
    s.setEncoding('utf8');
    s.on('connect', () => s.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) + '\n'));
    s.on('data', (t: string) => {
      buf += t;
      if (buf.includes('\n')) {
        s.end();
        resolve(JSON.parse(buf.slice(0, buf.indexOf('\n'))) as { result?: unknown });
      }
    });
    s.on('error', reject);
  });
}

/** Whether something listens at an endpoint. */
function listening(endpoint: string): Promise<boolean> {
  const m = /^(.*):(\d+)$/.exec(endpoint)!;
  return new Promise((resolve) => {
    const s = connect({ host: m[1]!, port: Number(m[2]) });
    s.on('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

/** A directory of this machine holding a "Windows binary" (an MZ header is all the lookup checks). */
function binaries(...names: string[]): string {
  const d = tempDir();
  for (const n of names) writeFileSync(join(d, n), Buffer.from('MZ\x90\x00fake'));
  return d;
}

interface Seen {
  readonly request: WineRunRequest;
  readonly endpoints: string[];
}

/**
 * A stand-in for runUnderWine: a chained plugin that lists the node's endpoints through
 * HNSIM_ENDPOINT, as the real binary's computenetwork.dll would, and prints its prevResult back.
 */
function fakeExecutor(seen: Seen[], fail?: { code: number; msg: string }): WineExecutor {
  return async (request) => {
    const listed = await tcpCall(request.endpoint!, 'HcnEnumerateEndpoints', ['']);
    seen.push({ request, endpoints: listed.result as string[] });
    if (fail) return { exitCode: 1, stdout: JSON.stringify(fail), stderr: '' };
    const conf = JSON.parse(String(request.stdin)) as { prevResult?: object; cniVersion: string };
    const command = request.env?.['CNI_COMMAND'];
    return { exitCode: 0, stdout: command === 'ADD' ? JSON.stringify(conf.prevResult) : '', stderr: '' };
  };
}

describe('linuxDir', () => {
  it("maps Wine's drive Z: and Unix paths to this machine; other drives are the simulated node's", () => {
    expect(linuxDir('Z:\\home\\me\\cni')).toBe('/home/me/cni');
    expect(linuxDir('z:/opt/bin')).toBe('/opt/bin');
    expect(linuxDir('Z:')).toBe('/');
    expect(linuxDir('/opt/cni/bin')).toBe('/opt/cni/bin');
    expect(linuxDir('C:\\opt\\cni\\bin')).toBeUndefined();
    expect(linuxDir('bin')).toBeUndefined();
  });
});

describe('a conflist mixing a TypeScript plugin and a real binary', () => {
  const doc = (dir: string) => ({
    cniVersion: '0.4.0',
    name: 'cbr0',
    plugins: [
      {
        type: 'win-bridge',
        apiVersion: 2,
        ipam: { type: 'host-local', subnet: '10.244.1.0/24', rangeStart: '10.244.1.3' },
      },
      { type: 'my-tuning', mtu: 1400 },
    ],
    _dir: dir,
  });

  it('ADD runs win-bridge (TypeScript) then my-tuning.exe with the CNI env, prevResult and the same node', async () => {
    const { host, ns } = hcnNode(11);
    const dir = binaries('my-tuning.exe');
    const winDir = `Z:${dir.replace(/\//g, '\\')}`;
    const seen: Seen[] = [];
    const registry = referenceRegistry([BIN]).useBinaries(wineBinaries(host, { exec: fakeExecutor(seen) }));
    const runner = new CniRunner(pluginHost(host, registry), { path: [BIN, winDir] });
    const execs = recordExecs(host);
    const result = await runner.addNetworkList(conflist(doc(dir)), rtConf(cid(1), ns));

    expect(execs).toEqual(['1:host-local ADD 0', '0:win-bridge ADD 0', '0:my-tuning ADD 0']);
    expect(seen).toHaveLength(1);
    const { request, endpoints } = seen[0]!;
    expect(request.program).toBe(join(dir, 'my-tuning.exe'));
    expect(request.env).toMatchObject({
      CNI_COMMAND: 'ADD',
      CNI_CONTAINERID: cid(1),
      CNI_NETNS: ns,
      CNI_IFNAME: 'eth0',
      CNI_PATH: `${BIN};${winDir}`,
      // the runtime's own environment under the CNI variables (Wine needs HOME, PATH, …)
      PATH: process.env['PATH'],
    });
    const stdin = JSON.parse(String(request.stdin)) as Record<string, unknown>;
    expect(stdin).toMatchObject({ type: 'my-tuning', name: 'cbr0', cniVersion: '0.4.0', mtu: 1400 });
    expect(stdin['prevResult']).toMatchObject({ ips: [{ address: '10.244.1.3/24' }] });
    // the binary reached the node win-bridge had just changed
    expect(endpoints).toHaveLength(1);
    expect(result?.ips?.[0]?.address).toBe('10.244.1.3/24');
    // the temporary face is gone after the call
    expect(await listening(request.endpoint!)).toBe(false);

    // DEL: in reverse, the binary first (the endpoint still there), with the cached result
    await runner.delNetworkList(conflist(doc(dir)), rtConf(cid(1), ns));
    expect(execs.slice(3)).toEqual(['0:my-tuning DEL 0', '1:host-local DEL 0', '0:win-bridge DEL 0']);
    expect(seen[1]!.request.env?.['CNI_COMMAND']).toBe('DEL');
    expect(seen[1]!.endpoints).toHaveLength(1);
    expect(JSON.parse(String(seen[1]!.request.stdin))).toHaveProperty('prevResult');
    expect(endpointNames(host)).toEqual([]);
  });

  it("a failing binary's error document becomes libcni's error, with its code", async () => {
    const { host, ns } = hcnNode(12);
    const dir = binaries('my-tuning.exe');
    const seen: Seen[] = [];
    const registry = referenceRegistry([BIN]).useBinaries(
      wineBinaries(host, { exec: fakeExecutor(seen, { code: 11, msg: 'try again later' }) }),
    );
    const runner = new CniRunner(pluginHost(host, registry), { path: [BIN, dir] });
    const err = await runner.addNetworkList(conflist(doc(dir)), rtConf(cid(1), ns)).catch((e: unknown) => e);
    expect((err as Error).message).toBe('plugin type="my-tuning" failed (add): try again later');
    expect(cniErrorOf(err)?.code).toBe(11);
  });

  it('a binary in the CNI_PATH directory shadows the TypeScript plugin of the same type there', async () => {
    const host = node(13);
    const dir = binaries('win-bridge.exe');
    const seen: Seen[] = [];
    const registry = referenceRegistry().useBinaries(wineBinaries(host, { exec: fakeExecutor(seen) }));
    const ph = pluginHost(host, registry);
    expect(ph.find('win-bridge', [dir]).path).toBe(`${dir}\\win-bridge.exe`.replace(/\//g, '\\'));
    expect(ph.find('win-bridge', [BIN]).plugin.type).toBe('win-bridge');
    expect(seen).toEqual([]);
  });

  it('ignores a file that is not a Windows executable, or not named .exe', () => {
    const host = node(14);
    const dir = tempDir();
    writeFileSync(join(dir, 'script.exe'), '#!/bin/sh\n');
    writeFileSync(join(dir, 'plain'), Buffer.from('MZ'));
    const lookup = wineBinaries(host, { exec: fakeExecutor([]) });
    expect(lookup(dir, 'script.exe')).toBeUndefined();
    expect(lookup(dir, 'plain')).toBeUndefined();
    expect(lookup(dir, 'missing.exe')).toBeUndefined();
  });
});

describe('CniExec with a path to an .exe', () => {
  it('runs the binary (a Unix path or Z:\\) against the same node; a Windows path still names a type', async () => {
    const host = node(15);
    const dir = binaries('probe.exe');
    const seen: Seen[] = [];
    const registry = referenceRegistry().useBinaries(wineBinaries(host, { exec: fakeExecutor(seen) }));
    const rpc = new RpcServer(host, { methods: cniRpcMethods(host, registry) });
    const stdin = JSON.stringify({
      cniVersion: '1.0.0',
      name: 'x',
      type: 'probe',
      prevResult: { cniVersion: '1.0.0' },
    });
    const env = {
      CNI_COMMAND: 'ADD',
      CNI_CONTAINERID: 'c1',
      CNI_NETNS: 'none',
      CNI_IFNAME: 'eth0',
      CNI_PATH: 'C:\\cni',
    };
    const a = await callRpc(rpc, 'CniExec', [{ plugin: join(dir, 'probe.exe'), env, stdin }]);
    expect(a).toMatchObject({ result: { exitCode: 0, stdout: '{"cniVersion":"1.0.0"}', stderr: '' } });
    const z = await callRpc(rpc, 'CniExec', [
      { plugin: `Z:${join(dir, 'probe.exe').replace(/\//g, '\\')}`, env, stdin },
    ]);
    expect(z).toMatchObject({ result: { exitCode: 0 } });
    expect(seen.map((s) => s.request.program)).toEqual([join(dir, 'probe.exe'), join(dir, 'probe.exe')]);
    expect(seen[0]!.request.env).toMatchObject(env);
    // a reference plugin by Windows path, as before
    const v = await callRpc(rpc, 'CniExec', [
      {
        plugin: 'C:\\cni\\win-bridge.exe',
        env: { ...env, CNI_COMMAND: 'VERSION' },
        stdin: '{"cniVersion":"1.0.0"}',
      },
    ]);
    expect(v).toMatchObject({ result: { exitCode: 0 } });
    expect(seen).toHaveLength(2);
    // a path to nothing names no plugin
    const none = await callRpc(rpc, 'CniExec', [{ plugin: join(dir, 'nothing.exe'), env, stdin }]);
    expect(none).toMatchObject({ error: { code: -32602 } });
  });

  it("uses the host's registered face when it is served over TCP", async () => {
    const host = node(16);
    const face = await serveSimulator(host);
    try {
      const dir = binaries('probe.exe');
      const seen: Seen[] = [];
      const registry = referenceRegistry().useBinaries(wineBinaries(host, { exec: fakeExecutor(seen) }));
      const rpc = new RpcServer(host, { methods: cniRpcMethods(host, registry) });
      await callRpc(rpc, 'CniExec', [
        { plugin: join(dir, 'probe.exe'), env: { CNI_COMMAND: 'DEL' }, stdin: '{}' },
      ]);
      expect(seen[0]!.request.endpoint).toBe(face.endpoint);
      expect(await listening(face.endpoint)).toBe(true);
    } finally {
      await face.close();
    }
  });
});

describe('the public entry', () => {
  it("docs/wine.md's example: wineRegistry in a CniRunner, through 'hnsim'", async () => {
    const { CniRunner: Runner, pluginHost: ph, wineRegistry } = await import('../../src/index.js');
    const { host, ns } = hcnNode(17);
    const dir = binaries('my-cni.exe');
    const seen: Seen[] = [];
    const runner = new Runner(ph(host, wineRegistry(host, { exec: fakeExecutor(seen) })), {
      path: ['C:\\opt\\cni\\bin', `Z:${dir.replace(/\//g, '\\')}`],
    });
    const list = conflist({
      cniVersion: '1.0.0',
      name: 'cbr0',
      plugins: [
        {
          type: 'win-bridge',
          apiVersion: 2,
          ipam: { type: 'host-local', subnet: '10.244.1.0/24', rangeStart: '10.244.1.3' },
        },
        { type: 'my-cni' },
      ],
    });
    const result = await runner.addNetworkList(list, { containerId: cid(2), netns: ns, ifName: 'eth0' });
    expect(result?.ips?.[0]?.address).toBe('10.244.1.3/24');
    expect(seen.map((s) => s.request.program)).toEqual([join(dir, 'my-cni.exe')]);
  });
});
