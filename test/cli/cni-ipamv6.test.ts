// `hnsim cni` reaches a Kubernetes API server from a host document's "kubernetes" (the node
// registered with its pod CIDRs, c:\k\config naming the server), and the attachment lives in the
// state file: azure-vnet-ipamv6 (ipam.environment ipv6NodeIpam, ACN ipam/ipv6Ipam.go) allocates the
// node's IPv6 pod CIDR's first /120 from ::2 in a later invocation that gives no --host at all.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runHnsim, spawnHnsim } from './hnsim.js';
import { ipamEnv } from '../plugins/azure-vnet-ipam/kit.js';

const dir = mkdtempSync(join(tmpdir(), 'hnsim-ipamv6-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HOST = {
  name: 'AksWin1',
  kubernetes: { version: '1.30.4', podCIDRs: ['10.244.1.0/24', 'fd00:10:244:1::/64'] },
};
const CONF = JSON.stringify({
  cniVersion: '0.3.0',
  name: 'azure',
  type: 'azure-vnet-ipamv6',
  ipam: { type: 'azure-vnet-ipamv6', environment: 'ipv6NodeIpam' },
});

/** A host document in the test's folder. */
function hostDoc(file: string, doc: unknown): string {
  const path = join(dir, file);
  writeFileSync(path, JSON.stringify(doc));
  return path;
}

/** The same node without "kubernetes": what it reaches can come only from the state file. */
const NAME_ONLY = { name: HOST.name };

describe('hnsim cni with a host document holding "kubernetes"', () => {
  it('azure-vnet-ipamv6 gets fd00:10:244:1::2/120, then ::3 from the pool it named', () => {
    const state = join(dir, 'state.json');
    const first = spawnHnsim(['cni', '--host', hostDoc('host.json', HOST), '--state', state], {
      input: CONF,
      env: ipamEnv('ADD', 'pod-a'),
    });
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({
      ips: [{ address: 'fd00:10:244:1::2/120', gateway: 'fd00:10:244:1::1' }],
    });
    // the state file keeps the server the node reaches
    const snap = JSON.parse(readFileSync(state, 'utf8')) as Record<string, unknown>;
    expect(snap['kubernetes']).toMatchObject({
      nodes: [{ name: 'akswin1', podCIDRs: HOST.kubernetes.podCIDRs }],
    });
    // (azure-vnet names the pool it got at the first ADD: ipam.subnet)
    const conf = JSON.parse(CONF) as { ipam: Record<string, string> };
    conf.ipam['subnet'] = 'fd00:10:244:1::/120';
    const second = spawnHnsim(['cni', '--host', hostDoc('name.json', NAME_ONLY), '--state', state], {
      input: JSON.stringify(conf),
      env: ipamEnv('ADD', 'pod-b'),
    });
    expect(second.status).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ ips: [{ address: 'fd00:10:244:1::3/120' }] });
  });

  it('the server comes back from the state file: an ADD whose host document has no "kubernetes" still reaches it', async () => {
    const state = join(dir, 'state2.json');
    const v = await runHnsim(['cni', '--host', hostDoc('host2.json', HOST), '--state', state], {
      input: CONF,
      env: ipamEnv('VERSION', 'x'),
    });
    expect(v.status).toBe(0);
    const add = await runHnsim(['cni', '--host', hostDoc('name2.json', NAME_ONLY), '--state', state], {
      input: CONF,
      env: ipamEnv('ADD', 'pod-a'),
    });
    expect(add.stderr).toBe('');
    expect(JSON.parse(add.stdout)).toMatchObject({ ips: [{ address: 'fd00:10:244:1::2/120' }] });
  });

  it('a bad "kubernetes" is a command error naming it', async () => {
    const bad = join(dir, 'bad.json');
    for (const [kube, text] of [
      [['x'], 'host document ' + bad + ': kubernetes must be an object {"url","version","podCIDRs":[…]}'],
      [
        { podCidrs: ['fd00::/64'] },
        'cannot build the host: kubernetes: unknown key "podCidrs" (url, version, podCIDRs)',
      ],
    ] as const) {
      writeFileSync(bad, JSON.stringify({ kubernetes: kube }));
      const r = await runHnsim(['cni', '--host', bad, '--state', join(dir, 'none.json')], {
        input: CONF,
        env: ipamEnv('ADD', 'a'),
      });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(text);
    }
  });

  it('cni --help names azure-vnet-ipamv6 and the host document\'s "kubernetes"', async () => {
    const r = await runHnsim(['cni', '--help']);
    expect(r.stdout).toContain('azure-vnet-ipamv6');
    expect(r.stdout).toContain('"kubernetes":{"url","version","podCIDRs":[…]}');
  });
});
