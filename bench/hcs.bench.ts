/**
 * Benchmarks of the Host Compute Service (issue: "create + start + attach + stop + delete of a
 * process-isolated container: median ≤ 20 µs; 10,000 running containers on one host without any
 * operation slowing by more than 1.5×"). The cycle is what a runtime does for one container of a
 * pod: create it naming the pod's HNS namespace, start it (it joins the namespace), hot-attach and
 * detach an endpoint (the v1 path), shut it down, close it (it leaves the namespace). Each
 * operation is also timed alone, on an empty host and beside 10,000 running containers (each in a
 * pod namespace of its own with an endpoint), and the ratio of the two is reported.
 */
import type { JsonObject } from '../src/core/json.js';
import { createHost, type Host } from '../src/host/host.js';
import { median, sampleOps, tick, type Report } from './harness.js';

const V2 = { Major: 2, Minor: 0 };
const NS_PER_US = 1000;

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

/** The per-operation medians (µs) of `samples` × `batch` cycles on `b`. */
async function opMedians(b: Bed, samples: number, batch: number): Promise<Record<string, number>> {
  const { host, nsId, epId } = b;
  const doc = containerDoc(nsId);
  const attach = { ResourceType: 'Network', RequestType: 'Add', Settings: epId };
  const detach = { ResourceType: 'Network', RequestType: 'Remove', Settings: epId };
  const query = { PropertyTypes: ['Statistics'] };
  let n = 0;
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
  const out: Record<string, number> = {};
  const cycle = await sampleOps({
    samples,
    batch,
    warmup: 2,
    op: () => {
      const id = `c-${n++}`;
      for (const [, fn] of steps) fn(id);
    },
  });
  out['cycle'] = median(cycle.wall) / NS_PER_US;
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
          const id = `p-${n++}`;
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
    out[name] = median(s.wall) / NS_PER_US;
    await tick();
  }
  return out;
}

export async function run(report: Report, opts: { quick?: boolean } = {}): Promise<void> {
  const population = opts.quick ? 1000 : 10_000;
  const samples = opts.quick ? 30 : 100;
  const batch = 20;
  // one throwaway round so that neither host measures the JIT's first compiles
  await opMedians(bed(0), 60, batch);
  const small = await opMedians(bed(0), samples, batch);
  const big = await opMedians(bed(population), samples, batch);
  report({
    name: 'hcs create+start+attach+detach+stop+close median',
    value: small['cycle']!,
    unit: 'µs',
    target: { max: 20 },
    note: `a process-isolated container naming a pod namespace: create, start (joins the namespace), v1 hot-attach and detach of an endpoint, shutdown, close (leaves the namespace); ${samples} samples × ${batch} cycles`,
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
