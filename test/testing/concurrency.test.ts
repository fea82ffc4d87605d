/**
 * Race testing with the kit (src/testing/race.ts): `runConcurrently` under `fc.scheduler()` finds
 * the race in a deliberately buggy toy plugin — an ADD that looks its endpoint up by name and
 * creates it when missing, so two ADDs of one container (a runtime retrying a slow ADD) both create
 * one and a DEL removes only one — and the failure carries the seed, the path and the scheduler's
 * log, and replays. The same plugin made idempotent (the endpoint ID derived from the container,
 * so the second create is refused and taken as done) passes every interleaving, as do concurrent
 * pods through containerd with the reference plugins.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isNotFoundError } from '../../src/api/hcn/errors.js';
import { pluginHost } from '../../src/cni/host.js';
import { printResult } from '../../src/cni/result.js';
import { pluginMain, stdinText } from '../../src/cni/skel.js';
import { VERSION_ALL } from '../../src/cni/version.js';
import { referenceRegistry } from '../../src/plugins/index.js';
import { ContainerdRuntime } from '../../src/runtime/containerd.js';
import { cniNetwork } from '../../src/runtime/network.js';
import {
  hnsimMatchers,
  runConcurrently,
  runScheduled,
  scheduledHost,
  type HnsimMatchers,
} from '../../src/testing/index.js';
import { addL2Bridge, KIT_CONFLIST } from '../../src/testing/commands.js';

declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Assertion<T> extends HnsimMatchers<T> {}
}
expect.extend(hnsimMatchers);

const V2 = { Major: 2, Minor: 0 };

/** A GUID derived from a container ID (what an idempotent plugin names its endpoint by). */
function endpointIdFor(containerId: string): string {
  let h = 0x811c9dc5;
  for (const ch of containerId) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  const hex = h.toString(16).padStart(8, '0').toUpperCase();
  return `${hex}-0000-4000-8000-${hex}0000`;
}

/**
 * The toy plugin. `idempotent: false`: look the endpoint up by name, create it if missing (the
 * race). `idempotent: true`: create it with an ID derived from the container; "already exists"
 * means an earlier ADD made it.
 */
function toyPlugin(idempotent: boolean) {
  return pluginMain(
    'toy',
    {
      async add(args, ctx) {
        const conf = JSON.parse(stdinText(args)) as { cniVersion: string; name: string };
        const name = `${args.containerID}_${conf.name}`;
        const net = await ctx.host.hcn.getNetworkByName(conf.name);
        let ep;
        if (idempotent) {
          const id = endpointIdFor(args.containerID);
          try {
            await net.createEndpoint({ ID: id, Name: name, SchemaVersion: V2 });
          } catch (e) {
            if ((e as { code?: string }).code !== 'ERROR_ALREADY_EXISTS') throw e;
          }
          ep = await ctx.host.hcn.getEndpointByID(id);
        } else {
          try {
            ep = await ctx.host.hcn.getEndpointByName(name);
          } catch (e) {
            if (!isNotFoundError(e)) throw e;
            ep = await net.createEndpoint({ Name: name, SchemaVersion: V2 });
          }
        }
        const members = await ctx.host.hcn.getNamespaceEndpointIds(args.netns);
        if (!members.includes(ep.ID)) await ctx.host.hcn.addNamespaceEndpoint(args.netns, ep.ID);
        const ip = ep.IpConfigurations[0]!.IpAddress!;
        printResult(
          ctx.stdout,
          { cniVersion: conf.cniVersion, ips: [{ address: `${ip}/24` }] },
          conf.cniVersion,
        );
      },
      async del(args, ctx) {
        const conf = JSON.parse(stdinText(args)) as { name: string };
        try {
          const ep = await ctx.host.hcn.getEndpointByName(`${args.containerID}_${conf.name}`);
          await ep.delete();
        } catch (e) {
          if (!isNotFoundError(e)) throw e;
        }
      },
    },
    VERSION_ALL,
    'toy',
  );
}

const CONF = JSON.stringify({ cniVersion: '1.0.0', name: 'cbr0', type: 'toy' });

/** ADD twice (concurrently: a retried ADD), then DEL: nothing may be left. */
function addAddDel(idempotent: boolean) {
  return fc.asyncProperty(fc.scheduler(), async (s) => {
    const host = scheduledHost(s, { seed: 4 });
    addL2Bridge(host);
    const ns = host.api.HcnCreateNamespace(null, { SchemaVersion: V2 });
    if (!ns.ok) throw new Error(ns.message);
    const ph = pluginHost(host, referenceRegistry().register(toyPlugin(idempotent)));
    const exec = (command: string) =>
      ph.exec(
        'toy',
        {
          env: {
            CNI_COMMAND: command,
            CNI_CONTAINERID: 'pod-1',
            CNI_NETNS: String(ns.result.ID),
            CNI_IFNAME: 'eth0',
            CNI_PATH: 'C:\\cni',
          },
          stdin: CONF,
        },
        0,
      );
    const out = await runConcurrently(s, host, { 'add-1': () => exec('ADD'), 'add-2': () => exec('ADD') });
    expect(out['add-1']!.status).toBe('fulfilled');
    expect(out['add-2']!.status).toBe('fulfilled');
    await runConcurrently(s, host, { del: () => exec('DEL') });
    host.api.HcnDeleteNamespace(String(ns.result.ID));
    expect(host).toHaveNoLeaks();
  });
}

describe('runConcurrently finds a race in a toy plugin', () => {
  it('check-then-create: two concurrent ADDs make two endpoints, DEL removes one — found, reported, replayed', async () => {
    const run = await fc.check(addAddDel(false), { numRuns: 100, seed: 42 });
    expect(run.failed).toBe(true);
    // what fast-check prints: the seed and path to replay, and the interleaving the scheduler chose
    const report = fc.defaultReportMessage(run)!;
    expect(report).toMatch(/\{ seed: 42, path: "[\d:]+", endOnFailure: true \}/);
    expect(report).toMatch(/start add-1/);
    expect(report).toMatch(/HcnCreateEndpoint/);
    expect(String(run.errorInstance)).toMatch(/expected no leaks, found 1:\n\s+endpoint-unused/);
    // replaying seed and path fails the same way at once
    const again = await fc.check(addAddDel(false), {
      seed: run.seed,
      path: run.counterexamplePath!,
      numRuns: 1,
    });
    expect(again.failed).toBe(true);
    expect(again.numRuns).toBe(1);
  });

  it('the idempotent plugin passes every interleaving', async () => {
    await fc.assert(addAddDel(true), { numRuns: 60 });
  });
});

describe('runtime calls concurrently', () => {
  it('containerd with win-bridge + host-local: three pods started and stopped at once get distinct addresses and leave nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), async (s) => {
        const host = scheduledHost(s, { seed: 2 });
        addL2Bridge(host);
        const rt = new ContainerdRuntime(host, {
          networks: [cniNetwork(host, JSON.stringify(KIT_CONFLIST))],
        });
        const names = ['a', 'b', 'c'];
        const started = await runConcurrently(
          s,
          host,
          Object.fromEntries(
            names.map((n) => [
              n,
              () => rt.runPodSandbox({ metadata: { name: n, namespace: 'default', uid: n } }),
            ]),
          ),
        );
        const pods = names.map((n) => {
          const r = started[n]!;
          if (r.status !== 'fulfilled') throw r.reason;
          return r.value;
        });
        // every call on a scheduled host waits for the scheduler: drive this one too
        const ips = await runScheduled(
          s,
          host,
          Promise.all(pods.map(async (p) => (await rt.podSandboxStatus(p)).network.ip)),
        );
        expect(new Set(ips).size).toBe(3);
        const stopped = await runConcurrently(
          s,
          host,
          Object.fromEntries(
            pods.map((p) => [p, () => rt.stopPodSandbox(p).then(() => rt.removePodSandbox(p))]),
          ),
        );
        expect(Object.values(stopped).map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
        expect(host).toHaveNoLeaks();
      }),
      { numRuns: 25 },
    );
  });
});
