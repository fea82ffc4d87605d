// Model-based property of azure-vnet in a CNS mode (Swift; reference azure-cni.md §5.4, ACN
// v1.8.12 cni/network/invoker_cns.go): any sequence of pod ADDs, DELs and CNS going down and up
// keeps the HNS endpoints of network `azure`, the endpoints azure-vnet.json records and the
// addresses CNS has assigned in agreement with the model: an ADD fails with CNS down or every NC
// address taken, and then changes nothing; a DEL with CNS down still succeeds (the endpoint goes)
// and leaves the pod in /var/run/azure-vnet/deleteIDs, whose address CNS keeps until it starts
// again and releases it; no address is held twice; after every pod's DEL with CNS up, nothing is
// left anywhere.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../src/host/host.js';
import { startCns, type CnsAgent } from '../../../src/plugins/cns/index.js';
import { runs } from '../../runs.js';
import { cid, namespace, podArgs, recordedEndpoints, SWIFT_CONF, vnet } from './kit.js';

type Cmd = { kind: 'ADD'; pod: number } | { kind: 'DEL'; pod: number } | { kind: 'DOWN' } | { kind: 'UP' };

/** ACN v1.8.12 `cni/azure-windows-swift.conflist` (the test kit's vector). */
const SWIFT = JSON.stringify(SWIFT_CONF);

async function views(host: Host, cns: CnsAgent) {
  const assigned = Object.fromEntries([...cns.assigned()].sort(([a], [b]) => a.localeCompare(b)));
  return {
    ...(await recordedEndpoints(host)),
    assigned,
    pending: host.files.list('/var/run/azure-vnet/deleteIDs').sort(),
  };
}

describe('azure-vnet with CNS (model-based)', () => {
  it('HNS, azure-vnet.json and CNS agree with the pods that are up, through ADD/DEL/CNS down and up', async () => {
    const pods = 5;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.array(
          fc.oneof(
            { weight: 4, arbitrary: fc.record({ kind: fc.constant('ADD' as const), pod: fc.nat(pods - 1) }) },
            { weight: 3, arbitrary: fc.record({ kind: fc.constant('DEL' as const), pod: fc.nat(pods - 1) }) },
            { weight: 1, arbitrary: fc.constant({ kind: 'DOWN' as const }) },
            { weight: 1, arbitrary: fc.constant({ kind: 'UP' as const }) },
          ),
          { maxLength: 14 },
        ),
        async (n, cmds: Cmd[]) => {
          const host = createHost({
            adapters: [{ name: 'Ethernet', ipAddress: '10.240.0.4/16', gateway: '10.240.0.1' }],
            azure: { nics: [{ adapter: 'Ethernet' }] },
          });
          const pool = Array.from({ length: n }, (_, i) => `10.241.0.${5 + i}`);
          const cns = startCns(host, {
            ncs: [{ id: 'swift-nc', primaryIp: '10.241.0.4/16', gateway: '10.241.0.1', secondaryIps: pool }],
          });
          let running = true;
          // the model: pods up (pod → container ID, netns, address) and pods deleted while CNS was down
          const up = new Map<number, { id: string; netns: string; ip: string }>();
          const orphaned = new Map<string, { id: string; ip: string }>();
          let serial = 0;
          const key = (id: string) => `${id.slice(0, 8)}-eth0`;
          for (const c of cmds) {
            const before = await views(host, cns);
            if (c.kind === 'ADD') {
              if (up.has(c.pod)) continue;
              const id = cid(`${(c.pod + 1).toString(16)}${(serial++).toString(16)}abcdef`.slice(0, 8));
              const netns = await namespace(host);
              const out = await vnet(host, {
                command: 'ADD',
                id,
                netns,
                conf: SWIFT,
                args: podArgs(`p${c.pod}`, 'default', id),
              });
              const taken = up.size + orphaned.size;
              if (!running || taken >= n) {
                const err = JSON.parse(out.stdout) as { code: number; msg: string };
                expect(err.code).toBe(999);
                expect(err.msg).toContain(running ? 'not enough IPs available' : 'actively refused');
                expect(await views(host, cns)).toEqual(before);
                continue;
              }
              expect(out.exitCode, out.stdout).toBe(0);
              const ip = (JSON.parse(out.stdout) as { ips: { address: string }[] }).ips[0]!.address.split(
                '/',
              )[0]!;
              expect(pool).toContain(ip);
              expect([...up.values(), ...orphaned.values()].map((p) => p.ip)).not.toContain(ip);
              up.set(c.pod, { id, netns, ip });
            } else if (c.kind === 'DEL') {
              const p = up.get(c.pod);
              if (!p) continue;
              const out = await vnet(host, {
                command: 'DEL',
                id: p.id,
                netns: p.netns,
                conf: SWIFT,
                args: podArgs(`p${c.pod}`, 'default', p.id),
              });
              expect(out).toEqual({ exitCode: 0, stdout: '', stderr: '' });
              up.delete(c.pod);
              if (!running) orphaned.set(key(p.id), p);
            } else if (c.kind === 'DOWN') {
              cns.stop();
              running = false;
            } else {
              cns.start();
              running = true;
              orphaned.clear();
            }
            const v = await views(host, cns);
            const names = [...up.values()].map((p) => key(p.id)).sort();
            expect(v.hns).toEqual(names);
            expect(v.state).toEqual(names);
            const held = [...up.values(), ...orphaned.values()].map((p) => [key(p.id), [p.ip]] as const);
            expect(v.assigned).toEqual(Object.fromEntries(held.sort(([a], [b]) => a.localeCompare(b))));
            expect(v.pending).toEqual([...orphaned.values()].map((p) => p.id).sort());
          }
          cns.start();
          for (const [pod, p] of up) {
            const out = await vnet(host, {
              command: 'DEL',
              id: p.id,
              netns: p.netns,
              conf: SWIFT,
              args: podArgs(`p${pod}`, 'default', p.id),
            });
            expect(out.exitCode).toBe(0);
          }
          expect(await views(host, cns)).toEqual({ hns: [], state: [], assigned: {}, pending: [] });
        },
      ),
      { numRuns: runs(20, 200) },
    );
  });
});
