/**
 * Random interleavings of CNI ADD/DEL/CHECK for several pods on one node, through the libcni
 * runner with the HCN-path plugins (win-bridge `apiVersion: 2`, sdnbridge) and host-local, while
 * HNS calls fail (the fault layer: any of several HRESULTs, once or twice) and are slowed (held
 * for simulated time). Every HNS call is a point where fast-check's scheduler may let another
 * pod's invocation run first, so ADDs and DELs of different pods race as they do on a node
 * (a runtime never runs two operations of one container at once: each pod's operations are in
 * order). Once the faults are gone and every pod has been deleted (DEL retried until it succeeds,
 * as kubelet does), nothing of the pods is left: no endpoint, no IP reservation, no cached result.
 *
 * The v1 path (HotAttach) is not in this property: its DEL ignores a failed endpoint delete and
 * reports success (win-bridge `RemoveHnsEndpoint`, reference cni-windows.md §2.5), so a fault there
 * leaks for real — test/scenarios/cni-pitfall-*.test.ts and test/runtime/ show those leaks. HCS
 * failures under the containerd runtime are test/runtime/lifecycle.prop.test.ts. Seed:
 * vitest.setup.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HResultName } from '../../src/core/errors.js';
import { createHost, type Host } from '../../src/host/host.js';
import type { RuntimeConf } from '../../src/cni/contracts.js';
import { addL2Bridge, runScheduled, scheduledHost } from '../../src/testing/index.js';
import { cniNetwork } from '../../src/runtime/network.js';
import { runs } from '../runs.js';

const RUNS = runs(40, 1_200);

const CODES: readonly HResultName[] = [
  'HCN_E_MANAGER_STOPPED',
  'RPC_S_SERVER_UNAVAILABLE',
  'E_FAIL',
  'HCN_E_ENDPOINT_NOT_FOUND',
];
/** The calls the plugins make on the HCN path. */
const METHODS = [
  'HcnEnumerateNetworks',
  'HcnQueryNetworkProperties',
  'HcnCreateEndpoint',
  'HcnQueryEndpointProperties',
  'HcnEnumerateEndpoints',
  'HcnModifyNamespace',
  'HcnDeleteEndpoint',
  'HcnQueryNamespaceProperties',
] as const;

const faultArb = fc.oneof(
  fc.record({
    kind: fc.constant('fail' as const),
    method: fc.constantFrom(...METHODS),
    code: fc.constantFrom(...CODES),
    times: fc.integer({ min: 1, max: 2 }),
  }),
  fc.record({
    kind: fc.constant('delay' as const),
    method: fc.constantFrom(...METHODS),
    ms: fc.integer({ min: 1, max: 500 }),
    times: fc.integer({ min: 1, max: 3 }),
  }),
);

const opArb = fc.record({ pod: fc.nat(2), verb: fc.constantFrom('ADD', 'ADD', 'DEL', 'CHECK') });

const PLUGINS: Readonly<Record<string, { conf: object; failable: readonly string[] }>> = {
  'win-bridge': { conf: { type: 'win-bridge', apiVersion: 2 }, failable: METHODS },
  sdnbridge: {
    conf: { type: 'sdnbridge' },
    failable: METHODS.filter((m) => m !== 'HcnEnumerateEndpoints' && m !== 'HcnQueryEndpointProperties'),
  },
};

type Fault =
  | { kind: 'fail'; method: string; code: HResultName; times: number }
  | { kind: 'delay'; method: string; ms: number; times: number };

/**
 * One run of the interleaving: the faults armed; each pod's operations in order, the pods
 * concurrently (a runtime never runs two operations of one container at once), the scheduled
 * calls run, simulated time passing when none is ready (delayed calls); then the faults go and
 * kubelet deletes every pod, retrying DEL until it succeeds (three tries). `hits` counts what the
 * run exercised; the result is each pod's last DEL outcome.
 */
async function interleave(o: {
  s: fc.Scheduler;
  host: Host;
  net: ReturnType<typeof cniNetwork>;
  rt: (pod: number) => RuntimeConf;
  ops: readonly { pod: number; verb: string }[];
  faults: readonly Fault[];
  hits: { fail: number; delay: number; raced: number };
  delBetweenAdds?: boolean;
}): Promise<{ ok: boolean; last: string }[]> {
  const { s, host, net, rt } = o;
  for (const f of o.faults) {
    if (f.kind === 'fail') host.faults.fail({ method: f.method }, f.code, { times: f.times });
    else host.faults.delay({ method: f.method }, f.ms, { times: f.times });
  }
  const byPod = new Map<number, string[]>();
  for (const op of o.ops) {
    const verbs = byPod.get(op.pod) ?? [];
    if (o.delBetweenAdds && op.verb === 'ADD' && verbs.includes('ADD') && verbs[verbs.length - 1] !== 'DEL')
      verbs.push('DEL');
    byPod.set(op.pod, [...verbs, op.verb]);
  }
  const chains = [...byPod].map(async ([pod, verbs]) => {
    for (const verb of verbs) {
      try {
        if (verb === 'ADD') await net.runner.addNetworkList(net.list, rt(pod));
        else if (verb === 'DEL') await net.runner.delNetworkList(net.list, rt(pod));
        else await net.runner.checkNetworkList(net.list, rt(pod));
      } catch {
        // a failed invocation: the runtime retries later (or deletes the pod)
      }
    }
  });
  await runScheduled(s, host, Promise.all(chains));
  for (const r of host.faults.list()) if (r.kind === 'fail' || r.kind === 'delay') o.hits[r.kind] += r.hits;
  if (byPod.size > 1) o.hits.raced++;
  host.faults.clear();
  const out: { ok: boolean; last: string }[] = [];
  for (let pod = 0; pod < 3; pod++) {
    let ok = false;
    let last = '';
    for (let attempt = 0; attempt < 3 && !ok; attempt++) {
      ok = await runScheduled(
        s,
        host,
        net.runner.delNetworkList(net.list, rt(pod)).then(
          () => true,
          (e: Error) => ((last = e.message), false),
        ),
      );
    }
    out.push({ ok, last });
  }
  return out;
}

/** Faults on the methods a plugin may see fail (delays on any). */
function faultsFor(failable: readonly string[]) {
  return faultArb.filter((f) => f.kind === 'delay' || failable.includes(f.method));
}

describe('CNI ADD/DEL/CHECK interleavings under HNS failures and delays', () => {
  for (const [name, { conf: plugin, failable }] of Object.entries(PLUGINS)) {
    it(`${name} + host-local: once every pod is deleted, nothing is left`, async () => {
      // what the runs exercised: a property whose faults never fire would check nothing
      const hits = { fail: 0, delay: 0, raced: 0 };
      await fc.assert(
        fc.asyncProperty(
          fc.scheduler(),
          fc.array(opArb, { minLength: 1, maxLength: 12 }),
          fc.array(faultsFor(failable), { maxLength: 3 }),
          async (s, ops, faults) => {
            const host = scheduledHost(s, { seed: 9 });
            addL2Bridge(host);
            // the namespaces containerd would have made, one per pod
            const ns: string[] = [];
            for (let i = 0; i < 3; i++) {
              const r = host.api.HcnCreateNamespace(null, { SchemaVersion: { Major: 2, Minor: 0 } });
              if (!r.ok) throw new Error(r.message);
              ns.push((r.result as { ID: string }).ID);
            }
            const net = cniNetwork(host, {
              cniVersion: '1.0.0',
              name: 'cbr0',
              plugins: [{ ...plugin, ipam: { type: 'host-local', subnet: '10.244.1.0/24' } }],
            });
            const rt = (pod: number) => ({ containerId: `pod-${pod}`, netns: ns[pod]!, ifName: 'eth0' });
            const dels = await interleave({ s, host, net, rt, ops, faults, hits });
            for (const [pod, d] of dels.entries()) expect(d.ok, `DEL of pod-${pod} keeps failing`).toBe(true);

            const endpoints = [...host.hns.store.endpoints.values()].map((e) => e.Name);
            expect(endpoints).toEqual([]);
            const files = host.files
              .entries()
              .map(([p]) => p)
              .filter((p) => !p.endsWith('/last_reserved_ip.0') && !p.endsWith('/lock'));
            expect(files).toEqual([]);
            // every namespace the pods used is empty again
            for (const id of ns) expect(host.hns.store.namespaces.get(id)?.Resources ?? []).toEqual([]);
          },
        ),
        { numRuns: RUNS },
      );
      // the schedules exercise what the property is about: faults that fire, and pods whose calls
      // interleave (in a sixth, a sixth and two fifths of the runs at least)
      expect(hits.fail).toBeGreaterThan(RUNS / 6);
      expect(hits.delay).toBeGreaterThan(RUNS / 6);
      expect(hits.raced).toBeGreaterThan(RUNS * 0.4);
    });
  }
});

/**
 * azure-vnet + azure-vnet-ipam on an Azure VM (issue 16): the same interleavings. Some faults leak
 * for real, as on Windows, and are left out (pinned below): its DEL treats an endpoint lookup that
 * says "not found" as done (ACN `deleteEndpointImplHnsV2`), so a spurious HCN_E_ENDPOINT_NOT_FOUND
 * leaks the endpoint; a failed read right after hcsshim's create leaves an endpoint azure-vnet
 * never learnt the ID of; and when the namespace step fails after the create, the endpoint's
 * undo is one DeleteEndpoint whose failure nobody retries (so namespace failures are left out,
 * and endpoint deletes may fail: DEL retries them). What must be left at the end: no HNS
 * endpoint of a pod, no endpoint in azure-vnet.json (the network record stays: DEL never deletes
 * it), no address in use in azure-vnet-ipam.json.
 */
const AZURE_METHODS = METHODS.filter((m) => m !== 'HcnEnumerateEndpoints');
const AZURE_CODES = CODES.filter((c) => c !== 'HCN_E_ENDPOINT_NOT_FOUND');
const azureFaultArb = fc.oneof(
  fc.record({
    kind: fc.constant('fail' as const),
    method: fc.constantFrom(
      ...AZURE_METHODS.filter(
        (m) =>
          m !== 'HcnQueryEndpointProperties' &&
          m !== 'HcnQueryNamespaceProperties' &&
          m !== 'HcnModifyNamespace',
      ),
    ),
    code: fc.constantFrom(...AZURE_CODES),
    times: fc.integer({ min: 1, max: 2 }),
  }),
  fc.record({
    kind: fc.constant('delay' as const),
    method: fc.constantFrom(...AZURE_METHODS),
    ms: fc.integer({ min: 1, max: 500 }),
    times: fc.integer({ min: 1, max: 3 }),
  }),
);

describe('azure-vnet ADD/DEL/CHECK interleavings under HNS failures and delays', () => {
  it('azure-vnet + azure-vnet-ipam: once every pod is deleted, no endpoint and no address is left', async () => {
    const hits = { fail: 0, delay: 0, raced: 0 };
    const SYSTEM32 = 'C:\\Windows\\System32';
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(opArb, { minLength: 1, maxLength: 12 }),
        fc.array(azureFaultArb, { maxLength: 3 }),
        async (s, ops, faults) => {
          const host = scheduledHost(s, {
            seed: 9,
            adapters: [{ name: 'Ethernet', ipAddress: '10.224.0.4/16', gateway: '10.224.0.1' }],
            azure: {
              nics: [{ adapter: 'Ethernet', secondaryIps: ['10.224.0.5', '10.224.0.6', '10.224.0.7'] }],
            },
          });
          const ns: string[] = [];
          for (let i = 0; i < 3; i++) {
            const r = host.api.HcnCreateNamespace(null, { SchemaVersion: { Major: 2, Minor: 0 } });
            if (!r.ok) throw new Error(r.message);
            ns.push((r.result as { ID: string }).ID);
          }
          const net = cniNetwork(host, {
            cniVersion: '1.0.0',
            name: 'azure',
            plugins: [
              {
                type: 'azure-vnet',
                mode: 'bridge',
                ipam: { type: 'azure-vnet-ipam' },
                dns: { Nameservers: ['10.0.0.10'], Search: ['svc.cluster.local'] },
                AdditionalArgs: [
                  {
                    Name: 'EndpointPolicy',
                    Value: { Type: 'OutBoundNAT', ExceptionList: ['10.224.0.0/12'] },
                  },
                ],
              },
            ],
          });
          const id = (pod: number) => `${pod}`.repeat(64);
          const rt = (pod: number) => ({
            containerId: id(pod),
            netns: ns[pod]!,
            ifName: 'eth0',
            args: [
              ['IgnoreUnknown', '1'],
              ['K8S_POD_NAMESPACE', 'default'],
              ['K8S_POD_NAME', `pod-${pod}`],
            ] as [string, string][],
          });
          // containerd never ADDs a sandbox twice without a DEL between (a failed setup is torn
          // down first): azure-vnet's second ADD would make a second endpoint and forget the first
          // (reference §7 #12), a leak of the runtime's making
          const dels = await interleave({ s, host, net, rt, ops, faults, hits, delBetweenAdds: true });
          // a DEL before any ADD recorded the network cannot name a pool (reference §5.3): code 11
          for (const d of dels) if (!d.ok) expect(d.last).toContain('Pool id  not found');
          expect([...host.hns.store.endpoints.values()].map((e) => e.Name)).toEqual([]);
          const vnet = host.files.read(`${SYSTEM32}\\azure-vnet.json`);
          if (vnet !== undefined) {
            const doc = JSON.parse(vnet) as {
              Network: {
                ExternalInterfaces: Record<string, { Networks: Record<string, { Endpoints: object }> }>;
              };
            };
            for (const x of Object.values(doc.Network.ExternalInterfaces))
              for (const n of Object.values(x.Networks)) expect(n.Endpoints).toEqual({});
          }
          const ipam = host.files.read(`${SYSTEM32}\\azure-vnet-ipam.json`);
          if (ipam !== undefined) expect(ipam).not.toContain('"InUse": true');
          for (const n of ns) expect(host.hns.store.namespaces.get(n)?.Resources ?? []).toEqual([]);
        },
      ),
      { numRuns: RUNS },
    );
    expect(hits.fail).toBeGreaterThan(RUNS / 6);
    expect(hits.delay).toBeGreaterThan(RUNS / 6);
    expect(hits.raced).toBeGreaterThan(RUNS * 0.4);
  });
});

describe('a leak the property leaves out, on its own', () => {
  it('azure-vnet: an endpoint it never recorded (a failed read after the create; a failed undo) stays after DEL', async () => {
    const host = createHost({
      seed: 9,
      adapters: [{ name: 'Ethernet', ipAddress: '10.224.0.4/16', gateway: '10.224.0.1' }],
      azure: { nics: [{ adapter: 'Ethernet', secondaryIps: ['10.224.0.5'] }] },
    });
    const r = host.api.HcnCreateNamespace(null, { SchemaVersion: { Major: 2, Minor: 0 } });
    if (!r.ok) throw new Error(r.message);
    const netns = (r.result as { ID: string }).ID;
    const net = cniNetwork(host, {
      cniVersion: '1.0.0',
      name: 'azure',
      plugins: [
        {
          type: 'azure-vnet',
          ipam: { type: 'azure-vnet-ipam' },
          dns: { Nameservers: ['10.0.0.10'], Search: ['svc.cluster.local'] },
        },
      ],
    });
    const rt = {
      containerId: '0'.repeat(64),
      netns,
      ifName: 'eth0',
      args: [
        ['K8S_POD_NAMESPACE', 'default'],
        ['K8S_POD_NAME', 'pod-0'],
      ] as [string, string][],
    };
    host.faults.fail({ method: 'HcnQueryEndpointProperties' }, 'HCN_E_MANAGER_STOPPED', { times: 1 });
    await expect(net.runner.addNetworkList(net.list, rt)).rejects.toThrow(
      /failed to create endpoint: Failed to create endpoint/,
    );
    await net.runner.delNetworkList(net.list, rt);
    expect([...host.hns.store.endpoints.values()].map((e) => e.Name)).toEqual(['00000000-eth0']);
    expect(host.audit().map((f) => f.kind)).toContain('endpoint-unused');
    // the namespace step fails after the create, and so does the undo's DeleteEndpoint
    await net.runner.delNetworkList(net.list, rt);
    for (const e of [...host.hns.store.endpoints.values()]) host.api.HcnDeleteEndpoint(e.ID);
    host.faults.fail({ method: 'HcnQueryNamespaceProperties' }, 'HCN_E_MANAGER_STOPPED', { times: 1 });
    host.faults.fail({ method: 'HcnDeleteEndpoint' }, 'HCN_E_MANAGER_STOPPED', { times: 1 });
    await expect(net.runner.addNetworkList(net.list, rt)).rejects.toThrow(/Failed to get hcn namespace/);
    host.faults.clear();
    await net.runner.delNetworkList(net.list, rt);
    expect([...host.hns.store.endpoints.values()].map((e) => e.Name)).toEqual(['00000000-eth0']);
  });

  it('sdnbridge: a failed read after a create that happened gives a second endpoint of that name; one DEL leaves it', async () => {
    const host = createHost({ seed: 9 });
    addL2Bridge(host);
    const r = host.api.HcnCreateNamespace(null, { SchemaVersion: { Major: 2, Minor: 0 } });
    if (!r.ok) throw new Error(r.message);
    const netns = (r.result as { ID: string }).ID;
    const net = cniNetwork(host, {
      cniVersion: '1.0.0',
      name: 'cbr0',
      plugins: [{ type: 'sdnbridge', ipam: { type: 'host-local', subnet: '10.244.1.0/24' } }],
    });
    const rt = { containerId: 'pod-0', netns, ifName: 'eth0' };
    // the query hcsshim makes after the create fails, then the by-name lookup of the retry fails too
    host.faults.fail({ method: 'HcnQueryEndpointProperties' }, 'HCN_E_MANAGER_STOPPED', { times: 2 });
    await expect(net.runner.addNetworkList(net.list, rt)).rejects.toThrow(/HCN_E_MANAGER_STOPPED|0x803b0020/);
    await net.runner.addNetworkList(net.list, rt);
    const names = () => [...host.hns.store.endpoints.values()].map((e) => e.Name);
    expect(names()).toEqual(['pod-0_cbr0', 'pod-0_cbr0']);
    await net.runner.delNetworkList(net.list, rt);
    expect(names()).toEqual(['pod-0_cbr0']);
  });
});
