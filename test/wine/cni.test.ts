/**
 * Issue 10: a CNI-style Windows program (native/tests/cnistyle.c, win-bridge's order of hcn calls)
 * run twice — ADD in one process, DEL in another — sees one persistent host: through a simulator
 * served in this process, through `hnsim wine --state FILE`, and through `hnsim wine --connect` to
 * a running `hnsim serve --listen`.
 *
 * Bugs each test catches:
 * - state that lives in the DLL or the process instead of the host (the DEL's process finds no
 *   endpoint, or a fresh host each run): the endpoint ADD made is what DEL deletes;
 * - `--state`: a state file not written back after the program, or not read before it;
 * - `--connect`: a second simulator started instead of the running one;
 * - a namespace attach that does not reach HNS (the namespace's resources, the endpoint's
 *   HostComputeNamespace), a DEL that is not idempotent, a failure without a CNI error document.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Json } from '../../src/core/json.js';
import { cni, describeWine, hnsim, ready, rpc, serveChild, startSim, testPrograms } from './kit.js';
import { natNetwork } from './tables.js';

const CONF = { cniVersion: '1.0.0', name: 'cbr0', type: 'cnistyle' };
const SCHEMA = { Major: 2, Minor: 0 };

interface CniResult {
  cniVersion: string;
  ips: { address: string }[];
  interfaces: { name: string; mac: string; sandbox: string }[];
  endpoint: string;
  namespace: string;
}

function parse(stdout: string): CniResult {
  return JSON.parse(stdout) as CniResult;
}

describeWine('a CNI-style program, ADD and DEL in two processes, one persistent host (issue 10)', () => {
  let dir = '';
  beforeAll(async () => {
    await ready();
    dir = mkdtempSync(join(tmpdir(), 'hnsim-wine-cni-'));
  }, 600_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('against a simulator served in this process', async () => {
    const sim = await startSim({ seed: 7 });
    const api = sim.host.api;
    const net = api.HcnCreateNetwork(null, natNetwork('cbr0', '10.244.1'));
    const ns = api.HcnCreateNamespace(null, { Type: 'Host', SchemaVersion: SCHEMA });
    if (!net.ok || !ns.ok) throw new Error('setup');
    const opts = { endpoint: sim.endpoint, containerId: 'pod1', netns: ns.result.ID };
    try {
      const add = await cni('ADD', CONF, opts);
      expect(add.exitCode, add.stdout + add.stderr).toBe(0);
      const r = parse(add.stdout);
      expect(r.ips[0]!.address).toMatch(/^10\.244\.1\.\d+\/24$/);
      expect(r.namespace).toBe(ns.result.ID);
      // the host holds what the first process made
      const ep = api.HcnQueryEndpointProperties(r.endpoint, '');
      if (!ep.ok) throw new Error(ep.message);
      expect(ep.result).toMatchObject({ Name: 'pod1_cbr0', HostComputeNamespace: ns.result.ID });
      expect(`${(ep.result['IpConfigurations'] as { IpAddress: string }[])[0]!.IpAddress}/24`).toBe(
        r.ips[0]!.address,
      );
      const nsDoc = api.HcnQueryNamespaceProperties(ns.result.ID, '');
      expect(nsDoc.ok && (nsDoc.result['Resources'] as Json)).toEqual([
        { Type: 'Endpoint', Data: { ID: r.endpoint } }, // reference §1.3: the JSON key is ID
      ]);

      // ADD again (a retry): the same endpoint, nothing more
      const again = await cni('ADD', CONF, opts);
      expect(again.exitCode, again.stdout).toBe(0);
      expect(parse(again.stdout).endpoint).toBe(r.endpoint);
      expect(api.HcnEnumerateEndpoints('')).toMatchObject({ ok: true, result: [r.endpoint] });

      const check = await cni('CHECK', CONF, opts);
      expect(check.exitCode, check.stdout).toBe(0);

      // DEL in another process finds it by name, detaches and deletes it
      const del = await cni('DEL', CONF, opts);
      expect(del.exitCode, del.stdout + del.stderr).toBe(0);
      expect(api.HcnEnumerateEndpoints('')).toMatchObject({ ok: true, result: [] });
      const after = api.HcnQueryNamespaceProperties(ns.result.ID, '');
      expect(after.ok && after.result['Resources']).toBeUndefined();
      // DEL of what is gone succeeds (CNI); CHECK now fails with a CNI error
      expect((await cni('DEL', CONF, opts)).exitCode).toBe(0);
      const gone = await cni('CHECK', CONF, opts);
      expect(gone.exitCode).toBe(1);
      expect(JSON.parse(gone.stdout)).toMatchObject({ code: 999, msg: 'endpoint pod1_cbr0 not found' });
    } finally {
      await sim.close();
    }
  });

  it('a failure is a CNI error document carrying the HRESULT and the error record', async () => {
    const sim = await startSim({ seed: 7 });
    const api = sim.host.api;
    api.HcnCreateNetwork(null, natNetwork('cbr0', '10.244.1'));
    try {
      const missing = await cni('ADD', { ...CONF, name: 'nowhere' }, { endpoint: sim.endpoint });
      expect(missing.exitCode).toBe(1);
      expect(JSON.parse(missing.stdout)).toMatchObject({ code: 999, msg: 'network nowhere not found' });
      // a namespace that does not exist: HcnOpenNamespace fails with ERROR_NOT_FOUND and its record
      const badNs = await cni('ADD', CONF, {
        endpoint: sim.endpoint,
        netns: '5F0B1190-63BE-4E0C-B974-BD0F55675A42',
      });
      expect(badNs.exitCode).toBe(1);
      const err = JSON.parse(badNs.stdout) as { msg: string; details: string };
      expect(err.msg).toBe('HcnOpenNamespace failed: 0x80070490');
      expect(JSON.parse(err.details)).toEqual({
        Success: false,
        Error: 'Element not found. ',
        ErrorCode: 0x80070490,
      });
      // no simulator: the RPC error, no record
      const down = await cni('ADD', CONF, {});
      expect(down.exitCode).toBe(1);
      expect(JSON.parse(down.stdout)).toMatchObject({
        msg: 'HcnEnumerateNetworks failed: 0x800706BA',
        details: '',
      });
    } finally {
      await sim.close();
    }
  });

  it('hnsim wine --state FILE: ADD and DEL in two runs see the node of the state file', async () => {
    const state = join(dir, 'node.json');
    const { cnistyle } = await testPrograms();
    const created = await hnsim([
      'call',
      '--state',
      state,
      '--seed',
      '7',
      'HcnCreateNetwork',
      'null',
      natNetwork('cbr0', '10.244.2'),
    ]);
    expect(created.code, created.stderr).toBe(0);
    const env = { CNI_CONTAINERID: 'pod2', CNI_NETNS: '', CNI_IFNAME: 'eth0', CNI_PATH: 'Z:\\opt\\cni\\bin' };
    const add = await hnsim(['wine', '--state', state, '--', cnistyle], {
      stdin: JSON.stringify(CONF),
      env: { ...env, CNI_COMMAND: 'ADD' },
    });
    expect(add.code, add.stderr + add.stdout).toBe(0);
    const r = parse(add.stdout);
    expect(r.ips[0]!.address).toMatch(/^10\.244\.2\.\d+\/24$/);
    // written back: the state file holds the endpoint and the namespace ADD created
    const listed = await hnsim(['call', '--state', state, 'HcnEnumerateEndpoints', '']);
    expect(JSON.parse(listed.stdout)).toEqual([r.endpoint]);
    const del = await hnsim(['wine', '--state', state, '--', cnistyle], {
      stdin: JSON.stringify(CONF),
      env: { ...env, CNI_COMMAND: 'DEL' },
    });
    expect(del.code, del.stderr + del.stdout).toBe(0);
    const after = await hnsim(['call', '--state', state, 'HcnEnumerateEndpoints', '']);
    expect(JSON.parse(after.stdout)).toEqual([]);
    expect(readFileSync(state, 'utf8')).toContain('cbr0');
  });

  it('hnsim wine --connect ADDR:PORT: both runs use the running hnsim serve --listen', async () => {
    const server = await serveChild(['--seed', '7']);
    const { cnistyle } = await testPrograms();
    try {
      const net = await rpc(server.endpoint, 'HcnCreateNetwork', [null, natNetwork('cbr0', '10.244.3')]);
      expect(net.error).toBeUndefined();
      const env = {
        CNI_CONTAINERID: 'pod3',
        CNI_NETNS: '',
        CNI_IFNAME: 'eth0',
        CNI_PATH: 'Z:\\opt\\cni\\bin',
      };
      const add = await hnsim(['wine', '--connect', server.endpoint, '--', cnistyle], {
        stdin: JSON.stringify(CONF),
        env: { ...env, CNI_COMMAND: 'ADD' },
      });
      expect(add.code, add.stderr + add.stdout).toBe(0);
      const r = parse(add.stdout);
      expect((await rpc(server.endpoint, 'HcnEnumerateEndpoints', [''])).result).toEqual([r.endpoint]);
      const del = await hnsim(['wine', '--connect', server.endpoint, '--', cnistyle], {
        stdin: JSON.stringify(CONF),
        env: { ...env, CNI_COMMAND: 'DEL' },
      });
      expect(del.code, del.stderr + del.stdout).toBe(0);
      expect((await rpc(server.endpoint, 'HcnEnumerateEndpoints', [''])).result).toEqual([]);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
