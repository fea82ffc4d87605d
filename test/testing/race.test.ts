/**
 * The race-testing helpers (src/testing/race.ts): a plugin with a check-then-act race across HNS
 * calls is caught by fast-check (and its counterexample replays); the reference win-bridge +
 * host-local stack, whose allocation does not span an HNS call, is not.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pluginHost } from '../../src/cni/host.js';
import { pluginMain, stdinText } from '../../src/cni/skel.js';
import { VERSION_ALL } from '../../src/cni/version.js';
import { printResult } from '../../src/cni/result.js';
import type { Host } from '../../src/host/host.js';
import { referenceRegistry } from '../../src/plugins/index.js';
import { cniNetwork } from '../../src/runtime/network.js';
import { KIT_CONFLIST, runScheduled, scheduledHost } from '../../src/testing/index.js';
import { addL2Bridge } from '../runtime/kit.js';

function l2bridge(host: Host): string {
  return addL2Bridge(host, '10.244.1.1');
}

/**
 * A naive plugin: it picks the next address by listing the network's endpoints, then creates its
 * endpoint with it — two HNS calls apart, so two ADDs can pick the same address.
 */
const naive = pluginMain(
  'naive',
  {
    async add(args, ctx) {
      const conf = JSON.parse(stdinText(args)) as { cniVersion: string; name: string };
      const net = await ctx.host.hcn.getNetworkByName(conf.name);
      const taken = (await ctx.host.hcn.listEndpointsOfNetwork(net.ID)).flatMap((e) =>
        e.IpConfigurations.map((c) => Number((c.IpAddress ?? '').split('.')[3])),
      );
      const ip = `10.244.1.${Math.max(1, ...taken) + 1}`;
      const ep = await net.createEndpoint({
        Name: `${args.containerID}_${conf.name}`,
        IpConfigurations: [{ IpAddress: ip }],
        SchemaVersion: { Major: 2, Minor: 0 },
      });
      printResult(
        ctx.stdout,
        { cniVersion: conf.cniVersion, ips: [{ address: `${ep.IpConfigurations[0]!.IpAddress}/24` }] },
        conf.cniVersion,
      );
    },
    async del() {},
  },
  VERSION_ALL,
  'naive',
);

const CONF = JSON.stringify({ cniVersion: '1.0.0', name: 'cbr0', type: 'naive' });

describe('race testing with scheduledHost / runScheduled', () => {
  it('finds the naive plugin’s race: two concurrent ADDs pick one address and HNS refuses the second', async () => {
    let seen: { exitCode: number; stdout: string }[] = [];
    const property = fc.asyncProperty(fc.scheduler(), async (s) => {
      const host = scheduledHost(s, { seed: 2 });
      l2bridge(host);
      const ph = pluginHost(host, referenceRegistry().register(naive));
      const add = (cid: string) =>
        ph.exec(
          'naive',
          {
            env: {
              CNI_COMMAND: 'ADD',
              CNI_CONTAINERID: cid,
              CNI_NETNS: 'ns',
              CNI_IFNAME: 'eth0',
              CNI_PATH: 'C:\\cni',
            },
            stdin: CONF,
          },
          0,
        );
      const outs = await runScheduled(s, host, Promise.all([add('a'), add('b')]));
      seen = outs;
      expect(outs.map((o) => o.exitCode)).toEqual([0, 0]);
    });
    const run = await fc.check(property, { numRuns: 50, seed: 7 });
    expect(run.failed).toBe(true);
    // the report carries the seed and path of the interleaving; replaying them fails the same way
    expect(run.counterexamplePath).not.toBeNull();
    const again = await fc.check(property, { seed: run.seed, path: run.counterexamplePath!, numRuns: 1 });
    expect(again.failed).toBe(true);
    // in that interleaving one ADD picked the address the other had just taken: HNS refuses it
    const failed = seen.find((o) => o.exitCode !== 0);
    expect(JSON.parse(failed!.stdout)).toMatchObject({
      code: 999,
      msg: expect.stringMatching(/0x1392|already exists/i) as unknown as string,
    });
  });

  it('does not fault win-bridge + host-local: concurrent ADDs get distinct addresses in every interleaving', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), async (s) => {
        const host = scheduledHost(s, { seed: 2 });
        l2bridge(host);
        const net = cniNetwork(host, JSON.stringify(KIT_CONFLIST));
        const newNamespace = () => {
          const r = host.api.HcnCreateNamespace(null, { SchemaVersion: { Major: 2, Minor: 0 } });
          if (!r.ok) throw new Error(r.message);
          return (r.result as { ID: string }).ID;
        };
        const pods = [0, 1, 2].map((i) => ({
          containerId: `pod-${i}`,
          netns: newNamespace(),
          ifName: 'eth0',
        }));
        const results = await runScheduled(
          s,
          host,
          Promise.all(pods.map((rt) => net.runner.addNetworkList(net.list, rt))),
        );
        const ips = results.map((r) => r?.ips?.[0]?.address);
        expect(new Set(ips).size).toBe(3);
      }),
      { numRuns: 40 },
    );
  });
});
