/**
 * Benchmarks of the HNS service and the flat API against the targets of DESIGN contract 5 ("the
 * cost of one operation does not grow with the number of objects"): host construction, endpoint
 * creation at 1k and 100k endpoints on one network, flat API overhead over plain JSON, and memory
 * per endpoint. See bench/README.md for what each figure measures.
 */
import type { JsonObject } from '../src/core/json.js';
import { isFailure } from '../src/api/flat.js';
import { createHost, type Host } from '../src/host/host.js';
import {
  addSamples,
  emptySamples,
  getGc,
  median,
  quantile,
  sampleOps,
  settledHeapUsed,
  tick,
  timeNs,
  type Report,
  type Samples,
} from './harness.js';

export interface HnsBenchOptions {
  /** Fewer samples and a 10k population instead of 100k: a smoke run (`--quick`). */
  readonly quick?: boolean;
}

const NS_PER_US = 1000;

/** Ports 1024..65023 per VIP: the PortMapping claim (protocol, port, VIP) stays unique past 64k endpoints. */
const PORTS_PER_VIP = 64000;

/** The query hcsshim sends by default (`defaultQuery()`). */
const DEFAULT_QUERY = '{"SchemaVersion":{"Major":2,"Minor":0},"Flags":0}';

/**
 * A NAT network on a /8 with a 1M-address MAC pool: the default pool (4096 MACs) would run out
 * long before 100k endpoints.
 */
const NETWORK_DOC: JsonObject = {
  Name: 'bench',
  Type: 'NAT',
  Ipams: [
    {
      Type: 'Static',
      Subnets: [
        {
          IpAddressPrefix: '10.0.0.0/8',
          Routes: [{ NextHop: '10.0.0.1', DestinationPrefix: '0.0.0.0/0' }],
        },
      ],
    },
  ],
  MacPool: { Ranges: [{ StartMacAddress: '00-15-5D-00-00-00', EndMacAddress: '00-15-5D-0F-FF-FF' }] },
  SchemaVersion: { Major: 2, Minor: 0 },
};

/**
 * The endpoint document of the i-th endpoint: three policies, the last one a PortMapping whose
 * (ExternalPort, VIP) pair is distinct for every i, so every create makes a unique claim.
 */
export function endpointDoc(i: number): JsonObject {
  const block = Math.floor(i / PORTS_PER_VIP);
  return {
    Name: `bench-ep-${i}`,
    Policies: [
      { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.0.0.0/8', '192.168.0.0/16'] } },
      {
        Type: 'ACL',
        Settings: {
          Protocols: '6',
          Action: 'Allow',
          Direction: 'In',
          LocalPorts: '80',
          RemoteAddresses: '10.0.0.0/8',
          RuleType: 'Switch',
          Priority: 200,
        },
      },
      {
        Type: 'PortMapping',
        Settings: {
          Protocol: 6,
          InternalPort: 80,
          ExternalPort: 1024 + (i % PORTS_PER_VIP),
          VIP: `198.18.${(block >> 8) & 255}.${block & 255}`,
        },
      },
    ],
    SchemaVersion: { Major: 2, Minor: 0 },
  };
}

/** One host with the bench network and a counter of endpoints created on it. */
class Population {
  readonly host: Host;
  readonly networkId: string;
  /** Endpoints created so far (the next document index). */
  next = 0;
  /** IDs of the endpoints created after `fill`, in creation order (for the delete figures). */
  readonly ids: string[] = [];

  constructor(seed: number) {
    this.host = createHost({ seed });
    this.networkId = this.host.hns.createNetwork(null, NETWORK_DOC).ID;
  }

  get size(): number {
    return this.host.hns.store.endpoints.size;
  }

  /**
   * Create `n` endpoints through the service (set-up), turning the event loop every 1000; returns
   * the nanoseconds spent creating (document construction included).
   */
  async fill(n: number): Promise<number> {
    let ns = 0;
    for (let done = 0; done < n; done += 1000) {
      const chunk = Math.min(1000, n - done);
      ns += timeNs(() => {
        for (let k = 0; k < chunk; k++)
          this.host.hns.createEndpoint(this.networkId, null, endpointDoc(this.next++));
      });
      await tick();
    }
    return ns;
  }

  createService(doc: JsonObject): string {
    const id = this.host.hns.createEndpoint(this.networkId, null, doc).ID;
    this.next++;
    this.ids.push(id);
    return id;
  }

  createFlat(json: string): JsonObject {
    const r = this.host.api.HcnCreateEndpoint(this.networkId, null, json);
    if (isFailure(r)) throw new Error(`HcnCreateEndpoint failed: ${r.name} ${r.message}`);
    this.next++;
    this.ids.push(r.result['ID'] as string);
    return r.result;
  }

  /** Pre-parsed documents for the next `n` creates. */
  docs(n: number): JsonObject[] {
    return Array.from({ length: n }, (_, k) => endpointDoc(this.next + k));
  }

  /** JSON strings for the next `n` creates. */
  jsons(n: number): string[] {
    return this.docs(n).map((d) => JSON.stringify(d));
  }
}

const us = (ns: number): number => ns / NS_PER_US;

/** Median (with its target), p95 and CPU-time median of one operation, in µs. */
function reportOp(report: Report, name: string, s: Samples, target: number | undefined, note?: string): void {
  report({
    name: `${name} median`,
    value: us(median(s.wall)),
    unit: 'µs',
    ...(target !== undefined ? { target: { max: target } } : {}),
    ...(note ? { note } : {}),
  });
  report({ name: `${name} p95`, value: us(quantile(s.wall, 0.95)), unit: 'µs' });
  report({ name: `${name} cpu median`, value: us(median(s.cpu)), unit: 'µs' });
}

export async function run(report: Report, opts: HnsBenchOptions = {}): Promise<void> {
  const quick = opts.quick === true;
  const big = quick ? 10_000 : 100_000;
  const bigLabel = quick ? '10k' : '100k';

  // ── 1. createHost ──
  {
    const batch = 10;
    const samples = quick ? 60 : 300;
    const t = await sampleOps({ samples, batch, warmup: quick ? 20 : 100, op: () => void createHost() });
    const note = `${samples} samples × ${batch} hosts, default options (ws2022, HostDefault namespace)`;
    reportOp(report, 'createHost()', t, 100, note);
  }

  // warm the endpoint paths (service, flat, query, delete) on a scratch host so the JIT has settled
  {
    const p = new Population(99);
    await p.fill(3000);
    for (const j of p.jsons(2000)) {
      const created = p.createFlat(j);
      p.host.api.HcnQueryEndpointProperties(created['ID'], DEFAULT_QUERY);
    }
    for (const id of p.ids) p.host.hns.deleteEndpoint(id);
    await tick();
  }

  // ── 2 and 3 at 1k: fresh hosts of 1000 endpoints, each measured while it grows by at most 5% ──
  const small = 1000;
  const rounds = quick ? 10 : 40;
  const perRound = 5;
  const batch1k = 10;
  const svc1k = emptySamples();
  const del1k = emptySamples();
  const flat1k = emptySamples();
  const flatPair = emptySamples();
  const jsonPair = emptySamples();
  let resultJson = '';
  for (let r = 0; r < rounds; r++) {
    {
      const p = new Population(1000 + r);
      await p.fill(small);
      let docs: JsonObject[] = [];
      addSamples(
        svc1k,
        await sampleOps({
          samples: perRound,
          batch: batch1k,
          prepare: () => (docs = p.docs(batch1k)),
          op: (i) => void p.createService(docs[i]!),
        }),
      );
      // delete what was just created: the population goes back to 1000
      let victims: string[] = [];
      addSamples(
        del1k,
        await sampleOps({
          samples: perRound,
          batch: batch1k,
          prepare: () => (victims = p.ids.splice(0, batch1k)),
          op: (i) => p.host.hns.deleteEndpoint(victims[i]!),
        }),
      );
    }
    {
      const p = new Population(2000 + r);
      await p.fill(small);
      let jsons: string[] = [];
      addSamples(
        flat1k,
        await sampleOps({
          samples: perRound,
          batch: batch1k,
          prepare: () => (jsons = p.jsons(batch1k)),
          op: (i) => void p.createFlat(jsons[i]!),
        }),
      );
    }
    {
      // 3. HcnCreateEndpoint + HcnQueryEndpointProperties vs JSON.parse + JSON.stringify of both documents
      const p = new Population(3000 + r);
      await p.fill(small);
      let jsons: string[] = [];
      addSamples(
        flatPair,
        await sampleOps({
          samples: perRound,
          batch: batch1k,
          prepare: () => (jsons = p.jsons(batch1k)),
          op: (i) => {
            const created = p.createFlat(jsons[i]!);
            const q = p.host.api.HcnQueryEndpointProperties(created['ID'], DEFAULT_QUERY);
            if (isFailure(q)) throw new Error(`HcnQueryEndpointProperties failed: ${q.name}`);
            if (!resultJson) resultJson = JSON.stringify(q.result);
          },
        }),
      );
      let sink = 0;
      addSamples(
        jsonPair,
        await sampleOps({
          samples: perRound,
          batch: batch1k,
          prepare: () => (jsons = p.jsons(batch1k)),
          op: (i) => {
            const createObj = JSON.parse(jsons[i]!) as unknown;
            const resultObj = JSON.parse(resultJson) as unknown;
            sink += JSON.stringify(createObj).length + JSON.stringify(resultObj).length;
          },
        }),
      );
      if (sink === 0) throw new Error('the JSON baseline did nothing');
    }
  }
  const n1k = `${rounds} hosts × ${perRound} samples × ${batch1k} ops, population 1000..1050`;
  reportOp(
    report,
    'endpoint create (service) @1k',
    svc1k,
    10,
    `${n1k}; hns.createEndpoint(networkId, null, doc), doc pre-parsed, 3 policies`,
  );
  reportOp(
    report,
    'endpoint create (flat) @1k',
    flat1k,
    undefined,
    `${n1k}; HcnCreateEndpoint(networkId, null, json), JSON string in, result object out`,
  );
  report({ name: 'endpoint delete (service) @1k median', value: us(median(del1k.wall)), unit: 'µs' });

  // ── 4. memory at 100k, then 2. endpoint create at 100k ──
  const gc = getGc();
  const p = new Population(7);
  const heap0 = await settledHeapUsed(gc);
  const tFill = await p.fill(big);
  const heap1 = await settledHeapUsed(gc);
  report({
    name: `memory per endpoint @${bigLabel}`,
    value: (heap1 - heap0) / big,
    unit: 'B',
    target: { max: 2048 },
    note: `(heapUsed after gc − before) / ${big}, 3 policies each; heap ${mib(heap0)} → ${mib(heap1)} MiB`,
  });
  report({ name: `endpoint create (service) fill 0→${bigLabel} mean`, value: us(tFill / big), unit: 'µs' });
  // untimed creates and a pause: the forced collections above leave the heap in a state (marking,
  // sweeping of a large old generation) that is not the steady state the figure is about
  await p.fill(1000);
  await new Promise((resolve) => setTimeout(resolve, 200));

  const batchBig = 20;
  const samplesBig = quick ? 40 : 100;
  let docs: JsonObject[] = [];
  const svcBig = await sampleOps({
    samples: samplesBig,
    batch: batchBig,
    prepare: () => (docs = p.docs(batchBig)),
    op: (i) => void p.createService(docs[i]!),
  });
  const from = p.size - samplesBig * batchBig;
  reportOp(
    report,
    `endpoint create (service) @${bigLabel}`,
    svcBig,
    10,
    `${samplesBig} samples × ${batchBig} creates, population ${from}..${p.size}`,
  );
  report({
    name: `endpoint create ratio ${bigLabel}/1k`,
    value: median(svcBig.wall) / median(svc1k.wall),
    unit: '×',
    target: { max: 1.5 },
    note: 'ratio of the wall-clock medians; the cpu ratio beside it is less sensitive to machine load',
  });
  report({
    name: `endpoint create ratio ${bigLabel}/1k (cpu)`,
    value: median(svcBig.cpu) / median(svc1k.cpu),
    unit: '×',
  });
  let jsons: string[] = [];
  const flatBig = await sampleOps({
    samples: samplesBig,
    batch: batchBig,
    prepare: () => (jsons = p.jsons(batchBig)),
    op: (i) => void p.createFlat(jsons[i]!),
  });
  report({
    name: `endpoint create (flat) @${bigLabel} median`,
    value: us(median(flatBig.wall)),
    unit: 'µs',
    note: `${samplesBig} samples × ${batchBig} creates, population ${p.size - samplesBig * batchBig}..${p.size}`,
  });
  const delBatch = 10;
  let victims: string[] = [];
  const delBig = await sampleOps({
    samples: quick ? 5 : 20,
    batch: delBatch,
    prepare: () => (victims = p.ids.splice(p.ids.length - delBatch, delBatch)),
    op: (i) => p.host.hns.deleteEndpoint(victims[i]!),
  });
  report({
    name: `endpoint delete (service) @${bigLabel} median`,
    value: us(median(delBig.wall)),
    unit: 'µs',
  });

  // ── 3 (figures) ──
  report({
    name: 'flat create+query @1k median',
    value: us(median(flatPair.wall)),
    unit: 'µs',
    note: `HcnCreateEndpoint(json) + HcnQueryEndpointProperties(id, default query json); ${n1k}`,
  });
  report({
    name: 'JSON parse+stringify of both docs median',
    value: us(median(jsonPair.wall)),
    unit: 'µs',
    note: `JSON.parse + JSON.stringify of the create document and of the query result (${resultJson.length} chars)`,
  });
  report({
    name: 'flat overhead ratio',
    value: median(flatPair.wall) / median(jsonPair.wall),
    unit: '×',
    target: { max: 3 },
  });
  report({
    name: 'flat overhead ratio (cpu)',
    value: median(flatPair.cpu) / median(jsonPair.cpu),
    unit: '×',
  });
}

function mib(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(1);
}
