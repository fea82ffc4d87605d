/**
 * An Antrea agent in a state file: a shell session that starts the agent with `hnsim call --state
 * node.json AntreaStart`, then runs the `antrea` plugin with the plugin object of the conflist
 * Antrea installs on Windows (build/yamls/antrea-windows.yml `antrea-cni.conflist`, with libcni's
 * name and version) through `hnsim cni --state node.json` — ADD, a second ADD, DEL — each a
 * separate run of the real `bin/hnsim.js`, so the agent lives only in the file between them.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runHnsim, spawnHnsim } from './hnsim.js';

const dir = mkdtempSync(join(tmpdir(), 'hnsim-antrea-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The node: its uplink `Ethernet0` holding the transport address. */
const NODE = {
  adapters: [
    {
      name: 'Ethernet0',
      ipAddress: '192.168.77.100/24',
      gateway: '192.168.77.1',
      macAddress: '00-50-56-00-00-07',
    },
  ],
};
/** `antrea-cni.conflist`'s plugin, as libcni hands it to the binary (name and cniVersion added). */
const CONF = {
  cniVersion: '0.3.0',
  name: 'antrea',
  type: 'antrea',
  ipam: { type: 'host-local' },
  capabilities: { dns: true },
};
const NS = ['0b1ce66e-0000-4000-8000-0000000000b1', '0b1ce66e-0000-4000-8000-0000000000b2'];
const POD_A = '261a1970-5b6c-11ed-8caf-000c294e5d03';
const POD_B = '77aa15c0-5b6c-11ed-8caf-000c294e5d03';

const env = (command: string, cid: string, netns: string, pod: string) => ({
  CNI_COMMAND: command,
  CNI_CONTAINERID: cid,
  CNI_NETNS: netns,
  CNI_IFNAME: 'eth0',
  CNI_PATH: 'C:\\Program Files\\containerd\\cni\\bin',
  CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=${pod}`,
});

describe('hnsim: the Antrea agent in the state file', () => {
  it('AntreaStart with hnsim call, then ADD, ADD, DEL with hnsim cni, each its own process', async () => {
    const host = join(dir, 'node-host.json');
    const state = join(dir, 'node.json');
    writeFileSync(host, JSON.stringify(NODE));
    const conf = JSON.stringify(CONF);

    const start = spawnHnsim([
      'call',
      '--host',
      host,
      '--state',
      state,
      'AntreaStart',
      '{"podCidr":"10.10.0.0/24"}',
    ]);
    expect(start.status, start.stderr).toBe(0);
    expect(JSON.parse(start.stdout)).toEqual({
      pipe: '\\\\.\\pipe\\cnisock',
      nodeIp: '192.168.77.100',
      gatewayIp: '10.10.0.1',
    });
    expect(JSON.parse(readFileSync(state, 'utf8'))).toMatchObject({
      agents: { antrea: { started: true, options: { podCidr: '10.10.0.0/24' }, pods: [] } },
    });
    for (const ns of NS) {
      const r = await runHnsim(['call', '--state', state, 'HcnCreateNamespace', ns, '{}']);
      expect(r.status, r.stderr).toBe(0);
    }

    const a = spawnHnsim(['cni', '--state', state], { input: conf, env: env('ADD', POD_A, NS[0]!, 'web') });
    expect(a.status, a.stdout + a.stderr).toBe(0);
    expect(JSON.parse(a.stdout)).toMatchObject({ ips: [{ address: '10.10.0.2/24', gateway: '10.10.0.1' }] });
    const b = spawnHnsim(['cni', '--state', state], { input: conf, env: env('ADD', POD_B, NS[1]!, 'db') });
    expect(b.status, b.stdout + b.stderr).toBe(0);
    expect(JSON.parse(b.stdout)).toMatchObject({ ips: [{ address: '10.10.0.3/24' }] });
    const del = spawnHnsim(['cni', '--state', state], { input: conf, env: env('DEL', POD_A, NS[0]!, 'web') });
    expect(del.status, del.stdout + del.stderr).toBe(0);
    expect(del.stdout).toBe('');

    const st = spawnHnsim(['call', '--state', state, 'AntreaState']);
    expect(st.status, st.stderr).toBe(0);
    const doc = JSON.parse(st.stdout) as { running: boolean; pods: { name: string; ip: string }[] };
    expect(doc.running).toBe(true);
    expect(doc.pods.map((p) => [p.name, p.ip])).toEqual([['db', '10.10.0.3']]);

    // stopped: the file holds no agent, and the plugin finds no CNI server (code 11)
    expect(spawnHnsim(['call', '--state', state, 'AntreaStop']).status).toBe(0);
    const refused = spawnHnsim(['cni', '--state', state], {
      input: conf,
      env: env('ADD', POD_A, NS[0]!, 'web'),
    });
    expect(refused.status).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ code: 11 });
  }, 120_000);
});
