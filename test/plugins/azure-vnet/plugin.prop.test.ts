// Model-based property of azure-vnet on an AKS-like node (reference azure-cni.md §2.5, §2.8, §5.3,
// §7): any sequence of pod ADDs (containerd, a fresh namespace each), DELs, ADDs with a broken
// configuration, and reboots followed by AKS's cleanup (state files deleted, the network removed)
// keeps three views in agreement after every step — the HNS endpoints of network `azure`, the
// endpoints azure-vnet.json records, and the addresses azure-vnet-ipam.json holds in use — with
// the model of which pods are up. A pod's ADD fails only when every secondary IP is held; a failed
// ADD (of any kind) changes none of the three; no address is held by two pods; after DEL of every
// pod nothing is left (no endpoint, no state entry, no address in use).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runs } from '../../runs.js';
import {
  aksNode,
  aksPluginConf,
  cid,
  ipamRecords,
  namespace,
  podArgs,
  vnet,
  IPAM_STATE,
  VNET_STATE,
  recordedEndpoints,
} from './kit.js';
import type { Host } from '../../../src/host/host.js';

type Cmd =
  | { kind: 'ADD'; pod: number }
  | { kind: 'DEL'; pod: number }
  | { kind: 'BAD'; pod: number; broken: number }
  | { kind: 'REBOOT' };

/**
 * Configurations upstream refuses without keeping an endpoint or an address; the two policy ones
 * fail in `EndpointCreate`, after the network is created and recorded (NETWORK_FIRST).
 */
const BROKEN: readonly ((p: Record<string, unknown>) => void)[] = [
  (p) => (p['mode'] = 7),
  (p) => (p['bridge'] = 'a/b'),
  (p) => (p['dns'] = { Search: ['svc.cluster.local'] }),
  (p) => (p['AdditionalArgs'] = [{ name: 'EndpointPolicy', value: { Type: 'Nope' } }]),
  (p) =>
    (p['AdditionalArgs'] = [{ name: 'EndpointPolicy', value: { Type: 'OutBoundNAT', ExceptionList: [] } }]),
  (p) =>
    (p['runtimeConfig'] = {
      portMappings: [{ hostPort: 1, containerPort: 1, protocol: 'tcp', hostIP: '1.2.3' }],
    }),
];
const NETWORK_FIRST = new Set([3, 4]);

interface Views {
  readonly hns: string[];
  readonly state: string[];
  readonly inUse: Record<string, string>;
}

async function views(host: Host): Promise<Views> {
  const inUse: Record<string, string> = {};
  for (const [ip, r] of Object.entries(ipamRecords(host))) if (r.InUse) inUse[ip] = r.ID;
  return { ...(await recordedEndpoints(host)), inUse };
}

describe('azure-vnet (model-based)', () => {
  it('HNS, azure-vnet.json and the IPAM agree with the pods that are up, through ADD/DEL/bad ADD/reboot', async () => {
    const pods = 6;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(
          fc.oneof(
            { weight: 4, arbitrary: fc.record({ kind: fc.constant('ADD' as const), pod: fc.nat(pods - 1) }) },
            { weight: 3, arbitrary: fc.record({ kind: fc.constant('DEL' as const), pod: fc.nat(pods - 1) }) },
            {
              weight: 1,
              arbitrary: fc.record({
                kind: fc.constant('BAD' as const),
                pod: fc.nat(pods - 1),
                broken: fc.nat(BROKEN.length - 1),
              }),
            },
            { weight: 1, arbitrary: fc.constant({ kind: 'REBOOT' as const }) },
          ),
          { maxLength: 14 },
        ),
        async (n, cmds: Cmd[]) => {
          const secondary = Array.from({ length: n }, (_, i) => `10.224.0.${5 + i}`);
          const host = await aksNode({ secondary });
          // the model: pod → [container ID, netns, address]
          const up = new Map<number, { id: string; netns: string; ip: string }>();
          let generation = 0;
          // whether azure-vnet.json records the network (a DEL without it cannot name a pool)
          let recorded = false;
          const idOf = (pod: number) =>
            cid(`${(pod + 1).toString(16)}${generation.toString(16)}c0ffee`.slice(0, 8));
          for (const c of cmds) {
            const before = await views(host);
            if (c.kind === 'ADD') {
              if (up.has(c.pod)) continue;
              const id = idOf(c.pod);
              const netns = await namespace(host);
              const out = await vnet(host, {
                command: 'ADD',
                id,
                netns,
                args: podArgs(`p${c.pod}`, 'default', id),
              });
              if (up.size >= n) {
                expect(JSON.parse(out.stdout)).toEqual({
                  code: 100,
                  msg: 'Failed to allocate pool: Failed to delegate: Failed to allocate address: No available addresses',
                });
                expect(await views(host)).toEqual(before);
                continue;
              }
              expect(out.exitCode).toBe(0);
              const ip = (JSON.parse(out.stdout) as { ips: { address: string }[] }).ips[0]!.address.split(
                '/',
              )[0]!;
              expect([...up.values()].map((p) => p.ip)).not.toContain(ip);
              expect(secondary).toContain(ip);
              up.set(c.pod, { id, netns, ip });
              recorded = true;
            } else if (c.kind === 'DEL') {
              const p = up.get(c.pod);
              const out = await vnet(host, {
                command: 'DEL',
                id: p?.id ?? idOf(c.pod),
                netns: p?.netns ?? 'none',
                args: podArgs(`p${c.pod}`),
              });
              if (p || recorded) {
                expect(out).toEqual({ exitCode: 0, stdout: '', stderr: '' });
              } else {
                // reference §5.3: no network recorded, so no ipam.subnet: the release by container
                // ID cannot find a pool, and DEL keeps failing with code 11
                expect(JSON.parse(out.stdout)).toEqual({
                  code: 11,
                  msg: 'failed to release address(no endpoint): Attempted to release address with error:  Failed to delegate: Failed to release address: Pool id  not found :Invalid address pool',
                });
              }
              up.delete(c.pod);
            } else if (c.kind === 'BAD') {
              // another sandbox's broken ADD (a repeat ADD of a live container that fails releases
              // that container's address: plugin.test.ts, "a failed repeat ADD")
              const id = cid(`bad${c.pod}${generation}`.padEnd(8, 'f'));
              const out = await vnet(host, {
                command: 'ADD',
                id,
                netns: await namespace(host),
                conf: aksPluginConf(BROKEN[c.broken]!),
              });
              expect(out.exitCode).toBe(1);
              if (NETWORK_FIRST.has(c.broken) && up.size < n) recorded = true;
              // a broken ADD must not take any pod's endpoint or address away
              expect(await views(host)).toEqual(before);
            } else {
              // reboot: the non-persistent network and every endpoint are gone; AKS's
              // cleanupnetwork.ps1 deletes the state files before kubelet starts pods again
              host.reboot();
              host.files.remove(VNET_STATE);
              host.files.remove(IPAM_STATE);
              up.clear();
              generation++;
              recorded = false;
            }
            const v = await views(host);
            const expected = [...up.values()].map((p) => `${p.id.slice(0, 8)}-eth0`).sort();
            expect(v.hns).toEqual(expected);
            expect(v.state).toEqual(expected);
            expect(v.inUse).toEqual(Object.fromEntries([...up.values()].map((p) => [p.ip, p.id])));
          }
          for (const [pod, p] of up) {
            const out = await vnet(host, {
              command: 'DEL',
              id: p.id,
              netns: p.netns,
              args: podArgs(`p${pod}`),
            });
            expect(out.exitCode).toBe(0);
          }
          expect(await views(host)).toEqual({ hns: [], state: [], inUse: {} });
        },
      ),
      { numRuns: runs(25, 250) },
    );
  });
});
