/**
 * Benchmarks of traces against DESIGN contract 5 ("the cost of one operation does not grow with the
 * number of objects"): a pod → ClusterIP trace through 1,000 ACL rules on the source port and
 * 10,000 load balancers, uncached (a flow-table miss) and cached (a hit); the same trace with 100
 * load balancers, for the ratio; the HostView compile the traces rest on; and all-pairs
 * reachability over 100 pods × 3 ports on a 2-node cluster. Every object is created through the
 * flat API with the JSON a real client sends. See bench/README.md, "Traces".
 */
import { isFailure, type HcnResult } from '../src/api/flat.js';
import { Cluster } from '../src/cluster/cluster.js';
import type { JsonObject } from '../src/core/json.js';
import type { TraceRequest, TraceResult } from '../src/dataplane/trace.js';
import { createHost, type Host } from '../src/host/host.js';
import { compileHostView } from '../src/vswitch/view.js';
import { fmt, ip4 } from '../src/vswitch/v4.js';
import {
  addSamples,
  emptySamples,
  median,
  quantile,
  sampleOps,
  seeded,
  tick,
  timeNs,
  type Report,
  type Samples,
} from './harness.js';

export interface TraceBenchOptions {
  /** Fewer samples and rounds: a smoke run (`--quick`). */
  readonly quick?: boolean;
}

const V2 = { Major: 2, Minor: 0 };
const NODE_IP = '10.0.0.10';
const POD_PREFIX = '10.244.1.';
const POD_GATEWAY = `${POD_PREFIX}2`; // win-bridge: the gateway is cbr0_ep, .2
const SERVICE_CIDR = '10.96.0.0/12';
const SERVICE_BASE = ip4('10.96.0.0')!;
/** Addresses in the /12: VIPs are `SERVICE_BASE + (11 + i × VIP_STRIDE) mod 2^20`, distinct for i < 2^20. */
const SERVICE_SIZE = 1 << 20;
const VIP_STRIDE = 7919;
const SERVICE_PORT = 80;
const TARGET_PORT = 8080;

/** Pods on the host of benchmarks 1–2: the client (pod 0, 1,000 ACL rules) and 99 backends. */
const HOST_PODS = 100;
const CLIENT_ACLS = 1000;
/** Priority of the rule that decides the traced packet; every Out rule before it misses the packet. */
const DECIDING_PRIORITY = 4000;
const DECIDING_ID = 'bench-allow-services';
/** Load balancers the traces cycle through: among the first 100, so both hosts of the ratio have them. */
const TARGET_LBS = 16;
/** Source ports of uncached traces: 10000.. (every ACL LocalPorts rule of the client is below it). */
const FIRST_SOURCE_PORT = 10000;

const NS_PER_US = 1000;
const us = (ns: number): number => ns / NS_PER_US;

// ───────────────────────────── set-up ─────────────────────────────

function randInt(rnd: () => number, lo: number, hi: number): number {
  return lo + Math.floor(rnd() * (hi - lo + 1));
}

function must<T>(r: HcnResult<T>, what: string): T {
  if (isFailure(r)) throw new Error(`${what} failed: ${r.name} ${r.message}`);
  return r.result;
}

/** The ClusterIP of the i-th load balancer. */
export function vipOf(i: number): string {
  return fmt((SERVICE_BASE + ((11 + i * VIP_STRIDE) % SERVICE_SIZE)) >>> 0);
}

function acl(id: string, s: JsonObject): JsonObject {
  return { Type: 'ACL', Settings: { Id: id, RuleType: 'Switch', ...s } };
}

/**
 * The client's 1,000 ACL rules (Calico-style: each has an Id, RuleType Switch). Out rules at
 * priorities 100..3999 that miss a TCP packet from the client to a ClusterIP on port 80 (other
 * protocols, other remote prefixes, other remote ports, local ports below the source ports used,
 * other local addresses); the deciding Allow at 4000; rules after it that would match (a Block of
 * all TCP at 65000 among them: the Allow really decides); and In rules, which egress never reads.
 */
export function clientAcls(seed: number): JsonObject[] {
  const rnd = seeded(seed);
  const rules: JsonObject[] = [];
  const before = 900;
  const after = 49;
  const inbound = CLIENT_ACLS - before - 1 - after;
  for (let k = 0; k < before; k++) {
    const action = rnd() < 0.5 ? 'Allow' : 'Block';
    const priority = randInt(rnd, 100, DECIDING_PRIORITY - 1);
    const id = `bench-out-${k}`;
    switch (k % 6) {
      case 0:
        rules.push(
          acl(id, {
            Protocols: '17',
            Action: action,
            Direction: 'Out',
            RemoteAddresses: SERVICE_CIDR,
            Priority: priority,
          }),
        );
        break;
      case 1:
        rules.push(
          acl(id, {
            Protocols: '6',
            Action: action,
            Direction: 'Out',
            RemoteAddresses: `172.16.${k % 256}.0/24`,
            Priority: priority,
          }),
        );
        break;
      case 2:
        rules.push(
          acl(id, {
            Protocols: '6',
            Action: action,
            Direction: 'Out',
            RemoteAddresses: SERVICE_CIDR,
            RemotePorts: String(1000 + k),
            Priority: priority,
          }),
        );
        break;
      case 3:
        rules.push(
          acl(id, {
            Protocols: '6',
            Action: action,
            Direction: 'Out',
            LocalPorts: String(1 + (k % 1000)),
            Priority: priority,
          }),
        );
        break;
      case 4:
        rules.push(
          acl(id, {
            Protocols: '6',
            Action: action,
            Direction: 'Out',
            LocalAddresses: `10.244.2.${1 + (k % 250)}`,
            RemoteAddresses: SERVICE_CIDR,
            Priority: priority,
          }),
        );
        break;
      default:
        rules.push(acl(id, { Protocols: '1', Action: action, Direction: 'Out', Priority: priority }));
    }
  }
  rules.push(
    acl(DECIDING_ID, {
      Protocols: '6',
      Action: 'Allow',
      Direction: 'Out',
      RemoteAddresses: SERVICE_CIDR,
      RemotePorts: String(SERVICE_PORT),
      Priority: DECIDING_PRIORITY,
    }),
  );
  for (let k = 0; k < after; k++) {
    const last = k === after - 1;
    rules.push(
      acl(`bench-late-${k}`, {
        Protocols: '6',
        Action: last || rnd() < 0.7 ? 'Block' : 'Allow',
        Direction: 'Out',
        ...(last ? {} : { RemoteAddresses: SERVICE_CIDR }),
        Priority: last ? 65000 : randInt(rnd, DECIDING_PRIORITY + 1, 60000),
      }),
    );
  }
  for (let k = 0; k < inbound; k++) {
    rules.push(
      acl(`bench-in-${k}`, {
        Protocols: '6',
        Action: rnd() < 0.5 ? 'Allow' : 'Block',
        Direction: 'In',
        LocalPorts: String(8000 + k),
        RemoteAddresses: `10.244.${k % 8}.0/24`,
        Priority: randInt(rnd, 100, 60000),
      }),
    );
  }
  return rules;
}

/** What a backend pod carries: NPM-style, allow the service's target port in and anything out. */
const BACKEND_ACLS: readonly JsonObject[] = [
  acl('backend-in', {
    Protocols: '6',
    Action: 'Allow',
    Direction: 'In',
    LocalPorts: String(TARGET_PORT),
    Priority: 200,
  }),
  acl('backend-out', { Action: 'Allow', Direction: 'Out', Priority: 200 }),
];

/** A pod endpoint as win-bridge writes it (cni-windows W1): OutBoundNAT exceptions, NeedEncap routes. */
function podEndpointJson(networkId: string, name: string, ip: string, acls: readonly JsonObject[]): string {
  return JSON.stringify({
    Name: `${name}_cbr0`,
    HostComputeNetwork: networkId,
    Policies: [
      { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.244.0.0/16', SERVICE_CIDR, '10.0.0.0/24'] } },
      { Type: 'SDNRoute', Settings: { DestinationPrefix: SERVICE_CIDR, NeedEncap: true } },
      { Type: 'SDNRoute', Settings: { DestinationPrefix: `${NODE_IP}/32`, NeedEncap: true } },
      ...acls,
    ],
    IpConfigurations: [{ IpAddress: ip, PrefixLength: 24 }],
    Dns: {
      Search: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
      ServerList: ['10.96.0.10'],
    },
    Routes: [{ NextHop: POD_GATEWAY, DestinationPrefix: '0.0.0.0/0' }],
    SchemaVersion: V2,
  });
}

/** A kube-proxy (winkernel, `--enable-dsr`) ClusterIP load balancer. */
function lbJson(vip: string, backends: readonly string[]): string {
  return JSON.stringify({
    HostComputeEndpoints: backends,
    SourceVIP: NODE_IP,
    FrontendVIPs: [vip],
    PortMappings: [
      { Protocol: 6, InternalPort: TARGET_PORT, ExternalPort: SERVICE_PORT, DistributionType: 0, Flags: 0 },
    ],
    Flags: 1,
    SchemaVersion: V2,
  });
}

export interface BenchHost {
  readonly host: Host;
  /** The client pod's endpoint name (the trace's `from`) and ID. */
  readonly client: string;
  readonly clientId: string;
  readonly lbCount: number;
  /** Nanoseconds the load-balancer creates took (set-up, info). */
  readonly lbCreateNs: number;
}

/**
 * One win-bridge node (flannel host-gw): an L2Bridge network `cbr0` on 10.244.1.0/24 bound to the
 * adapter, `cbr0_ep` at .2 in the host compartment, 100 pods (.3..) each in its own namespace, the
 * client (pod 0) with 1,000 ACL rules, and `lbCount` DSR load balancers with distinct ClusterIPs in
 * 10.96.0.0/12, each with 1–3 backends among pods 1..99. The same seed gives the same first LBs
 * whatever `lbCount`.
 */
export async function buildHost(seed: number, lbCount: number): Promise<BenchHost> {
  const host = createHost({
    seed,
    name: 'win-1',
    adapters: [
      {
        name: 'Ethernet',
        ipAddress: `${NODE_IP}/24`,
        gateway: '10.0.0.1',
        macAddress: '00-0D-3A-00-00-01',
        macSpoofing: true,
      },
    ],
  });
  const api = host.api;
  const net = must(
    api.HcnCreateNetwork(
      null,
      JSON.stringify({
        Name: 'cbr0',
        Type: 'L2Bridge',
        Policies: [{ Type: 'NetAdapterName', Settings: { NetworkAdapterName: 'Ethernet' } }],
        Ipams: [
          {
            Type: 'Static',
            Subnets: [
              {
                IpAddressPrefix: `${POD_PREFIX}0/24`,
                Routes: [{ NextHop: `${POD_PREFIX}1`, DestinationPrefix: '0.0.0.0/0' }],
              },
            ],
          },
        ],
        SchemaVersion: V2,
      }),
    ),
    'HcnCreateNetwork',
  );
  const networkId = net.ID;
  const bridge = must(
    api.HcnCreateEndpoint(
      networkId,
      null,
      JSON.stringify({
        Name: 'cbr0_ep',
        HostComputeNetwork: networkId,
        IpConfigurations: [{ IpAddress: POD_GATEWAY, PrefixLength: 24 }],
        SchemaVersion: V2,
      }),
    ),
    'HcnCreateEndpoint cbr0_ep',
  );
  const hostNs = [...host.hns.store.namespaces.values()].find((n) => n.NamespaceId === 1)!;
  must(
    api.HcnModifyNamespace(
      hostNs.ID,
      JSON.stringify({ ResourceType: 'Endpoint', RequestType: 'Add', Settings: { EndpointId: bridge.ID } }),
    ),
    'HcnModifyNamespace (host)',
  );
  const podIds: string[] = [];
  for (let i = 0; i < HOST_PODS; i++) {
    const ip = `${POD_PREFIX}${3 + i}`;
    const acls = i === 0 ? clientAcls(seed) : BACKEND_ACLS;
    const ep = must(
      api.HcnCreateEndpoint(networkId, null, podEndpointJson(networkId, `pod-${i}`, ip, acls)),
      'HcnCreateEndpoint pod',
    );
    const ns = must(
      api.HcnCreateNamespace(null, JSON.stringify({ SchemaVersion: V2 })),
      'HcnCreateNamespace',
    );
    must(
      api.HcnModifyNamespace(
        ns.ID,
        JSON.stringify({ ResourceType: 'Endpoint', RequestType: 'Add', Settings: { EndpointId: ep.ID } }),
      ),
      'HcnModifyNamespace',
    );
    podIds.push(ep.ID);
  }
  const rnd = seeded(seed ^ 0x5eed);
  let lbCreateNs = 0;
  for (let i = 0; i < lbCount; i++) {
    const n = randInt(rnd, 1, 3);
    const backends = new Set<string>();
    while (backends.size < n) backends.add(podIds[randInt(rnd, 1, HOST_PODS - 1)]!);
    const json = lbJson(vipOf(i), [...backends]);
    lbCreateNs += timeNs(() => void must(api.HcnCreateLoadBalancer(null, json), 'HcnCreateLoadBalancer'));
    if (i % 1000 === 999) await tick();
  }
  return { host, client: 'pod-0_cbr0', clientId: podIds[0]!, lbCount, lbCreateNs };
}

/** The k-th uncached request: a target LB among the first 100 and a source port of its own. */
export function missRequest(b: BenchHost, k: number): TraceRequest {
  return {
    from: b.client,
    to: vipOf(((k % TARGET_LBS) * 97 + 3) % 100),
    protocol: 'TCP',
    sourcePort: FIRST_SOURCE_PORT + (k % 50000),
    destinationPort: SERVICE_PORT,
  };
}

/** The trace the figures are about must be the one described: delivered, decided by the deep Allow. */
function checkTrace(r: TraceResult, what: string): void {
  const acl = r.observations.find((o) => o.component === 'ACL');
  const lb = r.observations.find((o) => o.component === 'LB');
  if (r.disposition !== 'Delivered' || acl?.rule?.ruleId !== DECIDING_ID || lb?.action !== 'DNAT')
    throw new Error(
      `${what}: expected Delivered through ${DECIDING_ID} and a DSR DNAT, got ${r.disposition} ` +
        `(${r.observations.map((o) => `${o.component}:${o.action}${o.rule?.ruleId ? `[${o.rule.ruleId}]` : ''}`).join(' → ')}) ${r.detail ?? ''}`,
    );
}

/**
 * Uncached traces: `samples` × `batch` requests, each a new flow (its own source port); the flow
 * table is cleared before each sample (untimed), so no request of a sample was seen before.
 */
async function sampleMisses(b: BenchHost, samples: number, batch: number, warmup: number): Promise<Samples> {
  let k = 0;
  let reqs: TraceRequest[] = [];
  const table = b.host.flowTable;
  const hits0 = table.hits;
  const s = await sampleOps({
    samples,
    batch,
    warmup,
    prepare: () => {
      table.clear();
      reqs = Array.from({ length: batch }, () => missRequest(b, k++));
    },
    op: (i) => void b.host.trace(reqs[i]!),
  });
  if (table.hits !== hits0) throw new Error('an uncached trace hit the flow table');
  return s;
}

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

// ───────────────────────────── all pairs ─────────────────────────────

export const PAIR_PODS = 100;
export const PAIR_PORTS = [80, 443, 8080] as const;

/**
 * The ACLs of the all-pairs pods, by pod index mod 4: none (allow all); In 80 from anywhere, 443
 * from the pod CIDR, 8080 blocked from node 1's pods and allowed otherwise, Out anything; In 80 and
 * 443 only, Out only to ports 80 and 443; In anything but a Host (WFP) Block of 443, Out anything.
 */
function pairPolicies(i: number): JsonObject[] {
  const g = i % 4;
  const outAny = acl(`p${i}-out`, { Action: 'Allow', Direction: 'Out', Priority: 1000 });
  if (g === 0) return [];
  if (g === 1)
    return [
      acl(`p${i}-in-80`, {
        Protocols: '6',
        Action: 'Allow',
        Direction: 'In',
        LocalPorts: '80',
        Priority: 100,
      }),
      acl(`p${i}-in-443`, {
        Protocols: '6',
        Action: 'Allow',
        Direction: 'In',
        LocalPorts: '443',
        RemoteAddresses: '10.244.0.0/16',
        Priority: 110,
      }),
      acl(`p${i}-in-8080-b`, {
        Protocols: '6',
        Action: 'Block',
        Direction: 'In',
        LocalPorts: '8080',
        RemoteAddresses: '10.244.1.0/24',
        Priority: 120,
      }),
      acl(`p${i}-in-8080`, {
        Protocols: '6',
        Action: 'Allow',
        Direction: 'In',
        LocalPorts: '8080',
        Priority: 130,
      }),
      outAny,
    ];
  if (g === 2)
    return [
      acl(`p${i}-in`, {
        Protocols: '6',
        Action: 'Allow',
        Direction: 'In',
        LocalPorts: '80,443',
        Priority: 100,
      }),
      acl(`p${i}-out-web`, {
        Protocols: '6',
        Action: 'Allow',
        Direction: 'Out',
        RemotePorts: '80,443',
        Priority: 100,
      }),
    ];
  return [
    acl(`p${i}-in`, { Action: 'Allow', Direction: 'In', Priority: 100 }),
    {
      Type: 'ACL',
      Settings: {
        Id: `p${i}-wfp-443`,
        Protocols: '6',
        Action: 'Block',
        Direction: 'In',
        LocalPorts: '443',
        RuleType: 'Host',
        Priority: 100,
      },
    },
    outAny,
  ];
}

/** 100 pods (50 per node, or all on one) with the ACLs above, as the cluster's CNI creates them. */
export function buildPairs(seed: number, nodes: 1 | 2): { cluster: Cluster; pods: string[] } {
  const cluster = new Cluster({ seed });
  for (let n = 1; n <= nodes; n++) cluster.addWindowsNode({ name: `win-${n}`, network: 'l2bridge' });
  const pods: string[] = [];
  for (let i = 0; i < PAIR_PODS; i++) {
    cluster.addPod({
      namespace: 'default',
      name: `pod-${i}`,
      node: `win-${1 + (i % nodes)}`,
      labels: { app: `app-${i % 10}` },
      policies: pairPolicies(i),
    });
    pods.push(`default/pod-${i}`);
  }
  return { cluster, pods };
}

/** Every ordered pair × every port, the flow table cleared first (untimed): wall and CPU nanoseconds. */
export function allPairs(c: Cluster, reqs: readonly TraceRequest[]): { wall: number; cpu: number } {
  c.flowTable.clear();
  const hits0 = c.flowTable.hits;
  const c0 = process.cpuUsage();
  const wall = timeNs(() => {
    for (const r of reqs) c.trace(r);
  });
  const c1 = process.cpuUsage(c0);
  if (c.flowTable.hits !== hits0) throw new Error('an all-pairs trace hit the flow table');
  return { wall, cpu: (c1.user + c1.system) * 1000 };
}

export function pairRequests(pods: readonly string[]): TraceRequest[] {
  const out: TraceRequest[] = [];
  for (const from of pods)
    for (const to of pods)
      for (const destinationPort of PAIR_PORTS) out.push({ from, to, protocol: 'TCP', destinationPort });
  return out;
}

/** How the traces ended, most frequent first (from the flow table the last run filled). */
function dispositions(c: Cluster, reqs: readonly TraceRequest[]): string {
  const counts = new Map<string, number>();
  for (const r of reqs) {
    const d = c.trace(r).disposition;
    counts.set(d, (counts.get(d) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([d, n]) => `${d} ${n}`)
    .join(', ');
}

// ───────────────────────────── run ─────────────────────────────

export async function run(report: Report, opts: TraceBenchOptions = {}): Promise<void> {
  const quick = opts.quick === true;
  const bigLbs = 10_000;
  const smallLbs = 100;
  const seed = 42;

  // the 100-LB host first: its traces warm the trace path up (JIT) before anything is timed
  const small = await buildHost(seed, smallLbs);
  for (let k = 0; k < TARGET_LBS; k++) checkTrace(small.host.trace(missRequest(small, k)), '100-LB host');
  await sampleMisses(small, 50, 20, 0);

  // ── the 10k host; the first view() after its last change compiles the HostView ──
  const big = await buildHost(seed, bigLbs);
  report({ name: 'LB create (flat) 0→10k mean', value: us(big.lbCreateNs / bigLbs), unit: 'µs' });
  const compileOnce = timeNs(() => void big.host.dataplane.view());
  // the first trace after a change also compiles the client port's ACL rules (PortView.acls() is lazy)
  const firstTrace = timeNs(() => checkTrace(big.host.trace(missRequest(big, 0)), '10k-LB host'));
  const store = big.host.hns.store;
  const compiles: number[] = [];
  const aclCompiles: number[] = [];
  for (let i = 0; i < (quick ? 5 : 15); i++) {
    let view: ReturnType<typeof compileHostView> | undefined;
    compiles.push(timeNs(() => void (view = compileHostView({ store, generation: store.generation }))));
    const port = view!.ports.get(big.clientId)!;
    aclCompiles.push(timeNs(() => void port.acls()));
    await tick();
  }
  report({
    name: 'HostView compile @10k LBs, first view()',
    value: compileOnce / 1e6,
    unit: 'ms',
    note: `once per HNS change (store generation): ${HOST_PODS + 1} endpoints, ${bigLbs} LBs; the median is over ${compiles.length} further compileHostView() calls`,
  });
  report({ name: 'HostView compile @10k LBs median', value: median(compiles) / 1e6, unit: 'ms' });
  report({
    name: `client port ACL compile (${CLIENT_ACLS} rules) median`,
    value: median(aclCompiles) / 1e6,
    unit: 'ms',
    note: 'PortView.acls(): compiled lazily by the first trace through the port after a change',
  });
  report({
    name: 'first trace after the compile',
    value: us(firstTrace),
    unit: 'µs',
    note: 'compiles the client port ACLs, then traces (the trace path already warm)',
  });
  for (let k = 0; k < TARGET_LBS; k++) checkTrace(big.host.trace(missRequest(big, k)), '10k-LB host');

  // ── 1. uncached at 10k LBs and 2. the same at 100 LBs, in alternating rounds ──
  const batch = 20;
  const rounds = quick ? 4 : 10;
  const perRound = quick ? 10 : 30;
  const missBig = emptySamples();
  const missSmall = emptySamples();
  await sampleMisses(big, 50, batch, 0);
  for (let r = 0; r < rounds; r++) {
    addSamples(missBig, await sampleMisses(big, perRound, batch, 2));
    addSamples(missSmall, await sampleMisses(small, perRound, batch, 2));
  }
  const samplesNote = `${rounds * perRound} samples × ${batch} traces`;
  reportOp(
    report,
    'trace pod→ClusterIP uncached @10k LBs',
    missBig,
    20,
    `host.trace({ from: '${big.client}', to: <ClusterIP>, TCP, sourcePort, destinationPort: ${SERVICE_PORT} }): ` +
      `${CLIENT_ACLS} ACL rules on the source port (the deciding Allow, priority ${DECIDING_PRIORITY}, after 900 Out rules that miss), ` +
      `DSR LB → one of 1–3 backend pods; ${samplesNote}, each trace a new flow (its own source port), flow table cleared before each sample; ` +
      `${TARGET_LBS} target LBs in turn`,
  );
  reportOp(report, 'trace pod→ClusterIP uncached @100 LBs', missSmall, undefined);
  report({
    name: 'trace uncached ratio 10k/100 LBs',
    value: median(missBig.wall) / median(missSmall.wall),
    unit: '×',
    target: { max: 1.5 },
    note: `the same requests on both hosts (targets among the first 100 LBs, which both hosts have); rounds alternate between the hosts`,
  });
  report({
    name: 'trace uncached ratio 10k/100 LBs (cpu)',
    value: median(missBig.cpu) / median(missSmall.cpu),
    unit: '×',
  });

  // ── 1. a flow-table hit: the same request again ──
  const hitReq = missRequest(big, 1);
  big.host.trace(hitReq);
  const hitSamples = quick ? 100 : 300;
  const hitBatch = 50;
  const hitWarmup = 20;
  const hits0 = big.host.flowTable.hits;
  const hit = await sampleOps({
    samples: hitSamples,
    batch: hitBatch,
    warmup: hitWarmup,
    op: () => void big.host.trace(hitReq),
  });
  if (big.host.flowTable.hits - hits0 !== (hitSamples + hitWarmup) * hitBatch)
    throw new Error('a repeated trace missed the flow table');
  reportOp(
    report,
    'trace pod→ClusterIP flow-table hit @10k LBs',
    hit,
    2,
    `${hitSamples} samples × ${hitBatch} host.trace() of one request (cache key built, looked up, result returned)`,
  );

  // ── 3. all pairs: 100 × 100 pods × 3 ports = 30,000 traces, uncached; 2 nodes (target), 1 (info) ──
  for (const nodes of [2, 1] as const) {
    const { cluster, pods } = buildPairs(seed, nodes);
    const reqs = pairRequests(pods);
    const runs = quick ? 2 : 5;
    allPairs(cluster, reqs); // warm-up
    await tick();
    const wall: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t = allPairs(cluster, reqs);
      wall.push(t.wall);
      cpu.push(t.cpu);
      await tick();
    }
    const label = nodes === 2 ? '2-node cluster' : 'one host';
    report({
      name: `all-pairs ${PAIR_PODS} pods × ${PAIR_PORTS.length} ports (${label}) median`,
      value: median(wall) / 1e6,
      unit: 'ms',
      ...(nodes === 2 ? { target: { max: 1000 } } : {}),
      note:
        `${reqs.length} cluster.trace() calls (every ordered pair, self included, × ports ${PAIR_PORTS.join('/')}), ` +
        `flow table cleared before each of ${runs} runs after one warm-up; ${dispositions(cluster, reqs)}`,
    });
    report({
      name: `all-pairs (${label}) cpu median`,
      value: median(cpu) / 1e6,
      unit: 'ms',
    });
    report({ name: `all-pairs (${label}) per trace`, value: us(median(wall) / reqs.length), unit: 'µs' });
    await tick();
  }
}
