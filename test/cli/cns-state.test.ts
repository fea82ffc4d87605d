/**
 * Azure CNS in a state file (issue 16): a shell session that starts CNS with `hnsim call --state
 * node.json CnsStart`, then runs azure-vnet with upstream's Swift conflist (ACN v1.8.12
 * `cni/azure-windows-swift.conflist`, its plugin object with libcni's name and version: the
 * azure-vnet test kit's vector) through `hnsim cni --state node.json` — ADD, a second ADD, DEL —
 * each a separate run of the real `bin/hnsim.js`, so CNS lives only in the file between them. The
 * expected addresses are the NC's secondary IPs given here, in their order, with the NC's prefix
 * length and gateway (azure-vnet takes both from CNS's `NetworkContainerPrimaryIPConfig`).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SWIFT_CONF } from '../plugins/azure-vnet/kit.js';
import { runHnsim, spawnHnsim } from './hnsim.js';

const dir = mkdtempSync(join(tmpdir(), 'hnsim-cns-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The Azure VM: its NIC `Ethernet` on the VNet (docs/cni.md's vm.json). */
const VM = {
  adapters: [{ name: 'Ethernet', ipAddress: '10.240.0.4/16', gateway: '10.240.0.1' }],
  azure: { nics: [{ adapter: 'Ethernet' }] },
};
/** Swift's pod-subnet NC as DNC-RC would program it. */
const NC = {
  id: 'swift-nc',
  primaryIp: '10.241.0.4/16',
  gateway: '10.241.0.1',
  secondaryIps: ['10.241.0.5', '10.241.0.6'],
};
const NS = ['0b1ce66e-0000-4000-8000-0000000000a1', '0b1ce66e-0000-4000-8000-0000000000a2'];
const POD_A = '3f813b029429b4e4';
const POD_B = '77aa15c0d9e24b10';

const env = (command: string, cid: string, netns: string, pod: string) => ({
  CNI_COMMAND: command,
  CNI_CONTAINERID: cid,
  CNI_NETNS: netns,
  CNI_IFNAME: 'eth0',
  CNI_PATH: 'C:\\k\\azurecni\\bin',
  CNI_ARGS: `K8S_POD_NAMESPACE=default;K8S_POD_NAME=${pod}`,
});

describe('hnsim: Azure CNS in the state file', () => {
  it('CnsStart with hnsim call, then Swift ADD, ADD, DEL with hnsim cni, each its own process', async () => {
    const vm = join(dir, 'vm.json');
    const state = join(dir, 'node.json');
    const conf = join(dir, 'azure-swift.conf');
    writeFileSync(vm, JSON.stringify(VM));
    writeFileSync(conf, JSON.stringify(SWIFT_CONF));
    const swift = readFileSync(conf, 'utf8');

    const start = spawnHnsim([
      'call',
      '--host',
      vm,
      '--state',
      state,
      'CnsStart',
      JSON.stringify({ ncs: [NC] }),
    ]);
    expect(start.status, start.stderr).toBe(0);
    expect(JSON.parse(start.stdout)).toEqual({ port: 10090 });
    expect(JSON.parse(readFileSync(state, 'utf8'))).toMatchObject({
      agents: { cns: { running: true, port: 10090, ncs: [NC], assigned: [] } },
    });
    // the pods' namespaces, as containerd creates them (in-process: not what is under test here)
    for (const ns of NS) {
      const r = await runHnsim(['call', '--state', state, 'HcnCreateNamespace', ns, '{}']);
      expect(r.status, r.stderr).toBe(0);
    }

    const a = spawnHnsim(['cni', '--state', state], { input: swift, env: env('ADD', POD_A, NS[0]!, 'web') });
    expect(a.status, a.stdout + a.stderr).toBe(0);
    expect(JSON.parse(a.stdout)).toMatchObject({
      ips: [{ address: '10.241.0.5/16', gateway: '10.241.0.1' }],
    });
    const b = spawnHnsim(['cni', '--state', state], { input: swift, env: env('ADD', POD_B, NS[1]!, 'db') });
    expect(b.status, b.stdout + b.stderr).toBe(0);
    expect(JSON.parse(b.stdout)).toMatchObject({
      ips: [{ address: '10.241.0.6/16', gateway: '10.241.0.1' }],
    });
    const del = spawnHnsim(['cni', '--state', state], {
      input: swift,
      env: env('DEL', POD_A, NS[0]!, 'web'),
    });
    expect(del.status, del.stdout + del.stderr).toBe(0);
    expect(del.stdout).toBe('');

    // CNS keeps the second pod's address, keyed by its pod interface (`<cid[:8]>-<ifname>`)
    const st = spawnHnsim(['call', '--state', state, 'CnsState']);
    expect(st.status, st.stderr).toBe(0);
    expect(JSON.parse(st.stdout)).toEqual({ running: true, assigned: { '77aa15c0-eth0': ['10.241.0.6'] } });
    // the snapshot's other readers take it too
    const show = await runHnsim(['show', 'endpoints', '--snapshot', state]);
    expect(show.status, show.stderr).toBe(0);
    expect(show.stdout).toContain('10.241.0.6');
  }, 120_000);

  it('CNS stopped in one run stays stopped in the next; started again, it releases what a DEL left', async () => {
    const state = join(dir, 'stopped.json');
    const vm = join(dir, 'vm2.json');
    writeFileSync(vm, JSON.stringify(VM));
    const swift = JSON.stringify(SWIFT_CONF);
    const call = (...args: string[]) => runHnsim(['call', '--state', state, ...args]);
    expect(
      (await runHnsim(['call', '--host', vm, '--state', state, 'CnsStart', JSON.stringify({ ncs: [NC] })]))
        .status,
    ).toBe(0);
    expect((await call('HcnCreateNamespace', NS[0]!, '{}')).status).toBe(0);
    const cni = (command: string) =>
      runHnsim(['cni', '--state', state], { input: swift, env: env(command, POD_A, NS[0]!, 'web') });
    expect((await cni('ADD')).status).toBe(0);
    expect((await call('CnsStop')).status).toBe(0);
    // CNS down: the ADD of another pod is refused, the DEL succeeds and leaves the pod for CNS
    const refused = await runHnsim(['cni', '--state', state], {
      input: swift,
      env: env('ADD', POD_B, NS[0]!, 'db'),
    });
    expect(refused.status).toBe(1);
    expect(refused.stdout).toContain('actively refused');
    expect((await cni('DEL')).status).toBe(0);
    expect(JSON.parse((await call('CnsState')).stdout)).toEqual({
      running: false,
      assigned: { '3f813b02-eth0': ['10.241.0.5'] },
    });
    expect(JSON.parse((await call('CnsStart')).stdout)).toEqual({ port: 10090 });
    expect(JSON.parse((await call('CnsState')).stdout)).toEqual({ running: true, assigned: {} });
  });

  it('a state file whose CNS section is bad is refused with its reason, and left as it was', async () => {
    const state = join(dir, 'bad.json');
    expect(
      (await runHnsim(['call', '--state', state, 'CnsStart', JSON.stringify({ ncs: [NC] })])).status,
    ).toBe(0);
    const snap = JSON.parse(readFileSync(state, 'utf8')) as { agents: { cns: { port: unknown } } };
    snap.agents.cns.port = 'ten';
    const text = JSON.stringify(snap);
    writeFileSync(state, text);
    const r = await runHnsim(['call', '--state', state, 'CnsState']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('snapshot: cns.port must be a port number 1..65535');
    expect(readFileSync(state, 'utf8')).toBe(text);
  });
});
