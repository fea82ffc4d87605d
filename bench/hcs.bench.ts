/**
 * Benchmarks of the Host Compute Service (issue: "create + start + attach + stop + delete of a
 * process-isolated container: median ≤ 20 µs; 10,000 running containers on one host without any
 * operation slowing by more than 1.5×"). The cycle is what a runtime does for one container of a
 * pod: create it naming the pod's HNS namespace, start it (it joins the namespace), hot-attach and
 * detach an endpoint (the v1 path), shut it down, close it (it leaves the namespace). Each
 * operation is also timed alone, on an empty host and beside 10,000 running containers (each in a
 * pod namespace of its own with an endpoint), and the ratio of the two is reported; the samples
 * are taken in rounds alternating between the two hosts.
 */
import type { JsonObject } from '../src/core/json.js';
import { createHost, type Host } from '../src/host/host.js';
import { median, sampleOps, tick, type Report } from './harness.js';

const V2 = { Major: 2, Minor: 0 };
const NS_PER_US = 1000;
/** The operations of the cycle figure, in order (its name and the target name them). */
const CYCLE: readonly string[] = ['create', 'start', 'hot-attach', 'hot-detach', 'shutdown', 'close'];

function ok<T>(r: { ok: true; result: T } | { ok: false; message: string }): T {
  if (!r.ok) throw new Error(r.message);
  return r.result;
}

interface Bed {
  readonly host: Host;
  readonly nsId: string;
  readonly epId: string;
}

/** A host with a NAT network, one pod namespace with an endpoint, and `running` busy containers. */
function bed(running: number): Bed {
  const host = createHost({ seed: 42 });
  const net = ok(
    host.api.HcnCreateNetwork(null, {
      Name: 'nat',
      Type: 'NAT',
      Ipams: [{ Type: 'Static', Subnets: [{ IpAddressPrefix: '10.0.0.0/8' }] }],
      MacPool: { Ranges: [{ StartMacAddress: '00-15-5D-00-00-00', EndMacAddress: '00-15-5D-0F-FF-FF' }] },
      SchemaVersion: V2,
    }),
  );
  const pod = (i: number): { nsId: string; epId: string } => {
    const ep = ok(host.api.HcnCreateEndpoint(net['ID'], null, { Name: `pod-${i}_eth0`, SchemaVersion: V2 }));
    const ns = ok(host.api.HcnCreateNamespace(null, { SchemaVersion: V2 }));
    ok(
      host.api.HcnModifyNamespace(ns['ID'], {
        ResourceType: 'Endpoint',
        RequestType: 'Add',
        Settings: { EndpointId: ep['ID'] },
      }),
    );
    return { nsId: String(ns['ID']), epId: String(ep['ID']) };
  };
  for (let i = 0; i < running; i++) {
    const p = pod(i);
    host.hcs.create(`busy-${i}`, containerDoc(p.nsId));
    host.hcs.start(`busy-${i}`);
  }
  const mine = pod(running);
  return { host, ...mine };
}

function containerDoc(nsId: string): JsonObject {
  return {
    SchemaVersion: { Major: 2, Minor: 1 },
    Owner: 'bench',
    Container: { Networking: { Namespace: nsId } },
  };
}

/** Compute-system IDs, unique over the whole run (rounds come back to the same host). */
let seq = 0;

/** Per-operation wall times (ns per operation) of `samples` × `batch` cycles on `b`; `cycle` is the whole cycle. */
async function opSamples(b: Bed, samples: number, batch: number): Promise<Record<string, number[]>> {
  const { host, nsId, epId } = b;
  const doc = containerDoc(nsId);
  const attach = { ResourceType: 'Network', RequestType: 'Add', Settings: epId };
  const detach = { ResourceType: 'Network', RequestType: 'Remove', Settings: epId };
  const query = { PropertyTypes: ['Statistics'] };
  const ids: string[] = [];
  const steps: [string, (id: string) => void][] = [
    ['create', (id) => host.hcs.create(id, doc)],
    ['start', (id) => host.hcs.start(id)],
    ['hot-attach', (id) => host.hcs.modify(id, attach)],
    ['properties', (id) => host.hcs.properties(id, query)],
    ['hot-detach', (id) => host.hcs.modify(id, detach)],
    ['shutdown', (id) => host.hcs.shutdown(id)],
    ['close', (id) => host.hcs.close(id)],
  ];
  // the cycle the target is about (create + start + attach + detach + stop + close); the
  // properties read is timed alone below, not in the cycle
  const cycleSteps = steps.filter(([name]) => CYCLE.includes(name));
  const out: Record<string, number[]> = {};
  const cycle = await sampleOps({
    samples,
    batch,
    warmup: 2,
    op: () => {
      const id = `c-${seq++}`;
      for (const [, fn] of cycleSteps) fn(id);
    },
  });
  out['cycle'] = cycle.wall;
  for (const [name, fn] of steps) {
    // finish the cycle of the last sample's containers, untimed, so nothing piles up
    const finish = () => {
      for (const id of ids) {
        let after = false;
        for (const [other, f] of steps) {
          if (after) f(id);
          if (other === name) after = true;
        }
      }
      ids.length = 0;
    };
    const s = await sampleOps({
      samples,
      batch,
      warmup: 1,
      // bring each container to the state the timed step starts from, untimed
      prepare: () => {
        finish();
        for (let i = 0; i < batch; i++) {
          const id = `p-${seq++}`;
          ids.push(id);
          for (const [other, f] of steps) {
            if (other === name) break;
            f(id);
          }
        }
      },
      op: (i) => fn(ids[i]!),
    });
    finish();
    out[name] = s.wall;
    await tick();
  }
  return out;
}

export async function run(report: Report, opts: { quick?: boolean } = {}): Promise<void> {
  const population = opts.quick ? 1000 : 10_000;
  const rounds = opts.quick ? 3 : 5;
  const perRound = opts.quick ? 10 : 20;
  const samples = rounds * perRound;
  const batch = 20;
  // one throwaway round so that neither host measures the JIT's first compiles
  await opSamples(bed(0), 60, batch);
  // then rounds alternating between the two hosts: whichever is measured first is slower (the JIT
  // is still settling), so one host measured after the other would bias the ratio either way
  const smallBed = bed(0);
  const bigBed = bed(population);
  const pooled = { small: {} as Record<string, number[]>, big: {} as Record<string, number[]> };
  for (let r = 0; r < rounds; r++) {
    for (const [which, b] of [
      ['small', smallBed],
      ['big', bigBed],
    ] as const) {
      for (const [k, xs] of Object.entries(await opSamples(b, perRound, batch)))
        (pooled[which][k] ??= []).push(...xs);
      await tick();
    }
  }
  const medians = (m: Record<string, number[]>): Record<string, number> =>
    Object.fromEntries(Object.entries(m).map(([k, xs]) => [k, median(xs) / NS_PER_US]));
  const small = medians(pooled.small);
  const big = medians(pooled.big);
  report({
    name: 'hcs create+start+attach+detach+stop+close median',
    value: small['cycle']!,
    unit: 'µs',
    target: { max: 20 },
    note: `a process-isolated container naming a pod namespace: create, start (joins the namespace), v1 hot-attach and detach of an endpoint, shutdown, close (leaves the namespace); ${samples} samples × ${batch} cycles, in ${rounds} rounds alternating with the ${population}-container host`,
  });
  report({ name: `hcs cycle median @${population} running`, value: big['cycle']!, unit: 'µs' });
  let worst = 0;
  let worstName = '';
  for (const k of Object.keys(small)) {
    if (k === 'cycle') continue;
    const ratio = big[k]! / small[k]!;
    report({ name: `hcs ${k} median @${population} running`, value: big[k]!, unit: 'µs' });
    if (ratio > worst) {
      worst = ratio;
      worstName = k;
    }
  }
  report({
    name: `hcs slowest operation ratio ${population}/0 running`,
    value: worst,
    unit: '×',
    target: { max: 1.5 },
    note: `each operation alone (${Object.keys(small)
      .filter((k) => k !== 'cycle')
      .join(
        ', ',
      )}), median on a host with ${population} running containers over one with none; the worst is ${worstName}`,
  });
}
