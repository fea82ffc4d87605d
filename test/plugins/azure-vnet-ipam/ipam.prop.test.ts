// Model-based property of azure-vnet-ipam through its exec contract (ACN v1.8.12 `ipam/pool.go`;
// reference azure-cni.md §5.3): on an Azure VM with N secondary IPs, any sequence of ADD (in the
// pool's subnet, as azure-vnet calls it once its network exists) and DEL by container ID, with a
// state file that survives between invocations, never gives one address to two containers, gives
// a container the address it already holds, fails with "No available addresses" exactly when
// every secondary IP is held by another container, and a DEL frees the container's address; the
// state file agrees with the model after every step. A failed ADD holds nothing new.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pluginHost } from '../../../src/cni/host.js';
import { referenceRegistry } from '../../../src/plugins/index.js';
import { azureVnetIpam } from '../../../src/plugins/azure-vnet-ipam/index.js';
import { runs } from '../../runs.js';
import { azureHost, ipamConf, ipamEnv, IPAM_STATE } from './kit.js';

type Cmd = { kind: 'ADD' | 'DEL'; id: number };

interface StateDoc {
  IPAM: {
    AddressSpaces: {
      local: { Pools: Record<string, { Addresses: Record<string, { ID: string; InUse: boolean }> }> };
    };
  };
}

describe('azure-vnet-ipam (model-based)', () => {
  it('holds each secondary IP for at most one container, the same one again, until DEL', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.array(
          fc.record({
            kind: fc.constantFrom('ADD' as const, 'DEL' as const),
            id: fc.integer({ min: 0, max: 7 }),
          }),
          { maxLength: 30 },
        ),
        async (n, cmds: Cmd[]) => {
          const secondary = Array.from({ length: n }, (_, i) => `10.240.0.${10 + i}`);
          const host = azureHost(secondary);
          const ph = pluginHost(host, referenceRegistry());
          const exec = (command: string, id: number, subnet: string) =>
            azureVnetIpam.exec(ph, {
              env: ipamEnv(command, `c${id}`),
              stdin: ipamConf({ cniVersion: '0.4.0', ...(subnet ? { subnet } : {}) }),
            });
          // the model: container → address
          const held = new Map<string, string>();
          // azure-vnet's first ADD takes the pool; it never fails on a fresh node with n ≥ 1
          const first = await exec('ADD', 100, '');
          expect(first.exitCode).toBe(0);
          held.set('c100', (JSON.parse(first.stdout) as { ips: { address: string }[] }).ips[0]!.address);
          for (const c of cmds) {
            const id = `c${c.id}`;
            const out = await exec(c.kind, c.id, '10.240.0.0/16');
            if (c.kind === 'DEL') {
              expect(out.exitCode).toBe(0);
              held.delete(id);
            } else {
              const others = new Set([...held].filter(([k]) => k !== id).map(([, a]) => a));
              if (!held.has(id) && others.size === n) {
                expect(JSON.parse(out.stdout)).toEqual({
                  code: 100,
                  msg: 'Failed to allocate address: No available addresses',
                });
              } else {
                expect(out.exitCode).toBe(0);
                const address = (JSON.parse(out.stdout) as { ips: { address: string }[] }).ips[0]!.address;
                if (held.has(id)) expect(address).toBe(held.get(id));
                expect(others.has(address)).toBe(false);
                expect(secondary.map((a) => `${a}/16`)).toContain(address);
                held.set(id, address);
              }
            }
            const doc = JSON.parse(host.files.read(IPAM_STATE)!) as StateDoc;
            const records = doc.IPAM.AddressSpaces.local.Pools['10.240.0.0/16']!.Addresses;
            const inUse = Object.entries(records)
              .filter(([, r]) => r.InUse)
              .map(([a, r]) => `${r.ID}=${a}/16`)
              .sort();
            expect(inUse).toEqual([...held].map(([k, a]) => `${k}=${a}`).sort());
          }
        },
      ),
      { numRuns: runs(40, 400) },
    );
  });
});
