/**
 * The analysis (src/analysis, issue 19).
 *
 * ACLs: one pod's port carrying 1,000 ACL rules, analysed
 * whole (every rule's exact set in both directions, shadowing, redundancy, ties) — target ≤ 100 ms.
 * The rules are what a NetworkPolicy controller writes (Calico's and NPM's shapes, reference
 * vfp-dataplane.md §2.4): allows of peer pods (/32) and namespaces (/24) on service ports, blocks
 * of ranges, priorities rising from 1000 and shared among rules of one action, created through
 * HcnCreateEndpoint. Beside it, for the choice of representation (docs/analysis.md): the first
 * step of the analysis — each rule's packets after the rules before it — done with interval cubes
 * (lists of disjoint boxes, a box minus a box in at most ten pieces), on the same rules.
 *
 * Reachability: every ordered pair of the trace benchmark's 100 pods on two nodes (their ACLs,
 * bench/trace.bench.ts `buildPairs`) plus every pod to each of 10 services, exactly — target ≤ 2 s —
 * beside the all-pairs sampling figure (30,000 traces) of the same cluster in the same run. And the
 * differential of the 50-node scenario (bench/scenario.bench.ts `scaleScenarioYaml`: 2,500 pods,
 * 500 services) before and after one service change (svc-7's port 80 → 8080), the delta found by
 * comparing the two states and every pair it can touch analysed in both — target ≤ 5 s.
 */
import { analyzePort } from '../src/analysis/port.js';
import { analyzeReachAll, ReachContext } from '../src/analysis/reach.js';
import { diffReachChanged } from '../src/analysis/reach-diff.js';
import type { Cluster } from '../src/cluster/cluster.js';
import { loadScenario, runScenario } from '../src/scenario/index.js';
import { scaleScenarioYaml } from './scenario.bench.js';
import { allPairs, buildPairs, PAIR_PODS, pairRequests } from './trace.bench.js';
import type { JsonObject } from '../src/core/json.js';
import { createHost, type Host } from '../src/host/host.js';
import { addL2Bridge } from '../src/testing/commands.js';
import type { CompiledRule } from '../src/vswitch/acl.js';
import { cpuNs, median, sampleOps, seeded, tick, timeNs, type Report } from './harness.js';

const RULES = 1000;
const POD = '10.244.1.2';

/** The controller's rules: 1,000 ACL policies, both directions. */
export function policyRules(n: number, seed = 19): JsonObject[] {
  const r = seeded(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const ports = ['53', '80', '443', '8080', '9090', '1000-2000', '30000-32767', '6379', '5432'];
  const out: JsonObject[] = [];
  let priority = 1000;
  let last = 'Allow';
  for (let i = 0; i < n; i++) {
    const action = r() < 0.8 ? 'Allow' : 'Block';
    // Calico's rule: a new priority whenever the action changes
    if (action !== last) priority++;
    last = action;
    const remote =
      r() < 0.6
        ? `10.244.${Math.floor(r() * 64)}.${2 + Math.floor(r() * 250)}`
        : r() < 0.8
          ? `10.244.${Math.floor(r() * 64)}.0/24`
          : `10.${Math.floor(r() * 8) * 32}.0.0/11`;
    const s: JsonObject = {
      Id: `rule-${i}`,
      Action: action,
      Direction: r() < 0.7 ? 'In' : 'Out',
      Priority: priority,
      RuleType: 'Switch',
      Protocols: pick(['6', '6', '17', '256']),
      RemoteAddresses: remote,
    };
    if (s['Protocols'] !== '256') s[s['Direction'] === 'In' ? 'LocalPorts' : 'RemotePorts'] = pick(ports);
    out.push({ Type: 'ACL', Settings: s });
  }
  // the tier's end: allow-all at the bottom
  out.push({ Type: 'ACL', Settings: { Id: 'allow-in', Action: 'Allow', Direction: 'In', Priority: 65000 } });
  out.push({
    Type: 'ACL',
    Settings: { Id: 'allow-out', Action: 'Allow', Direction: 'Out', Priority: 65000 },
  });
  return out;
}

function node(policies: readonly JsonObject[]): Host {
  const host = createHost({
    seed: 3,
    adapters: [{ name: 'Ethernet', ipAddress: '10.0.0.4/24', gateway: '10.0.0.1' }],
  });
  const net = addL2Bridge(host);
  const ep = host.api.HcnCreateEndpoint(net, null, {
    Name: 'web',
    HostComputeNetwork: net,
    IpConfigurations: [{ IpAddress: POD, PrefixLength: 24 }],
    Policies: [...policies],
    SchemaVersion: { Major: 2, Minor: 0 },
  });
  if (!ep.ok) throw new Error(ep.message);
  return host;
}

// ── the alternative: interval cubes (fields: protocol, local port, remote address, remote port)
type Cube = Float64Array; // lo0, hi0, lo1, hi1, …
const D = 4;

function cubesOf(r: CompiledRule): Cube[] {
  const protos = r.protocols.length ? r.protocols.map((p) => [p, p] as const) : [[0, 255] as const];
  const remote =
    r.remote === null
      ? [[0, 0xffffffff] as const]
      : r.remote.map((p) => [p.addr >>> 0, (p.addr | ~p.mask) >>> 0] as const);
  const lp = r.localPorts.length
    ? r.localPorts.map((x) => [x.first, x.last] as const)
    : [[0, 65535] as const];
  const rp = r.remotePorts.length
    ? r.remotePorts.map((x) => [x.first, x.last] as const)
    : [[0, 65535] as const];
  const out: Cube[] = [];
  for (const a of protos)
    for (const b of lp)
      for (const c of remote)
        for (const d of rp) out.push(Float64Array.of(a[0], a[1], b[0], b[1], c[0], c[1], d[0], d[1]));
  return out;
}

/** a ∖ b as disjoint cubes. */
function minus(a: Cube, b: Cube): Cube[] {
  for (let k = 0; k < D; k++) if (b[2 * k]! > a[2 * k + 1]! || b[2 * k + 1]! < a[2 * k]!) return [a];
  const out: Cube[] = [];
  const rest = Float64Array.from(a);
  for (let k = 0; k < D; k++) {
    const lo = rest[2 * k]!;
    const hi = rest[2 * k + 1]!;
    if (b[2 * k]! > lo) {
      const c = Float64Array.from(rest);
      c[2 * k + 1] = b[2 * k]! - 1;
      out.push(c);
      rest[2 * k] = b[2 * k]!;
    }
    if (b[2 * k + 1]! < hi) {
      const c = Float64Array.from(rest);
      c[2 * k] = b[2 * k + 1]! + 1;
      out.push(c);
      rest[2 * k + 1] = b[2 * k + 1]!;
    }
  }
  return out;
}

/** Each rule's first-match cubes, in order; returns how many cubes the last step held at most. */
function cubeFirstMatches(rules: readonly CompiledRule[]): number {
  let covered: Cube[] = [];
  let most = 0;
  for (const r of rules) {
    let mine = cubesOf(r);
    for (const c of covered) {
      const next: Cube[] = [];
      for (const m of mine) next.push(...minus(m, c));
      mine = next;
      if (!mine.length) break;
    }
    covered = covered.concat(mine);
    most = Math.max(most, covered.length);
  }
  return most;
}

export async function run(report: Report, opts: { quick: boolean }): Promise<void> {
  await aclBench(report, opts);
  await reachBench(report, opts);
  await differentialBench(report, opts);
}

const SERVICES = 10;

/** Every pod to every pod and service of the 2-node cluster, exactly; the sampling figure beside it. */
async function reachBench(report: Report, opts: { quick: boolean }): Promise<void> {
  const { cluster, pods } = buildPairs(1, 2);
  const services: string[] = [];
  for (let k = 0; k < SERVICES; k++) {
    cluster.addService({
      namespace: 'default',
      name: `svc-${k}`,
      selector: { app: `app-${k}` },
      ports: [{ port: 80, targetPort: 80, protocol: 'TCP' }],
    });
    services.push(`svc:default/svc-${k}`);
  }
  const destinations = [...pods, ...services];
  const runs = opts.quick ? 1 : 3;
  let answers = analyzeReachAll(cluster, pods, destinations); // warm-up
  await tick();
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const c0 = cpuNs();
    wall.push(timeNs(() => (answers = analyzeReachAll(cluster, pods, destinations))));
    cpu.push(cpuNs() - c0);
    await tick();
  }
  const walks = answers.reduce((n, a) => n + a.walks, 0);
  const inexact = answers.filter((a) => !a.exact).length;
  const delivered = answers.filter((a) => a.dispositions.Delivered && !a.dispositions.Delivered.empty).length;
  report({
    name: `reachability all pairs, ${PAIR_PODS} pods + ${SERVICES} services (2 nodes)`,
    value: median(wall) / 1e6,
    unit: 'ms',
    target: { max: 2000 },
    note: `${answers.length} pairs (pod → pod, pod → service), every packet of each: ${walks} probe walks, ${delivered} pairs deliver something, ${inexact} inexact; a fresh context per run, median of ${runs}; cpu ${(median(cpu) / 1e6).toFixed(0)} ms`,
  });
  const reqs = pairRequests(pods);
  allPairs(cluster, reqs);
  const sampled: number[] = [];
  for (let i = 0; i < runs; i++) {
    sampled.push(allPairs(cluster, reqs).wall);
    await tick();
  }
  report({
    name: `  beside it: all-pairs sampling of the same cluster`,
    value: median(sampled) / 1e6,
    unit: 'ms',
    note: `${reqs.length} traces (pod → pod × 3 ports), one packet each`,
  });
}

/** The 50-node scenario, before and after one service change: the differential. */
async function differentialBench(report: Report, opts: { quick: boolean }): Promise<void> {
  const nodes = opts.quick ? 10 : 50;
  const yaml = scaleScenarioYaml({ nodes, pods: nodes * 50, services: nodes * 10, cni: false });
  const from = '- { name: svc-7, ports: [{ port: 80, targetPort: 8080 }]';
  const changed = yaml.replace(from, '- { name: svc-7, ports: [{ port: 8080, targetPort: 8080 }]');
  if (changed === yaml) throw new Error('the scenario has no svc-7 to change');
  const state = async (text: string, name: string): Promise<Cluster> => {
    const run = await runScenario(loadScenario(text, name));
    if (!run.world.cluster) throw new Error(`${name} made no cluster`);
    return run.world.cluster;
  };
  const before = await state(yaml, 'before.yaml');
  const after = await state(changed, 'after.yaml');
  const pods = [...before.podRecs()].map((p) => `${p.namespace}/${p.name}`);
  const services = Array.from({ length: nodes * 10 }, (_, k) => `svc:default/svc-${k}`);
  const destinations = [...pods, ...services];
  await tick();
  let result: ReturnType<typeof diffReachChanged> | undefined;
  const c0 = cpuNs();
  const wall = timeNs(() => {
    result = diffReachChanged(before, after, pods, destinations, { context: new ReachContext() });
  });
  const cpu = cpuNs() - c0;
  const r = result!;
  const changedPairs = r.diffs.filter((d) => !d.unchanged).length;
  if (changedPairs === 0) throw new Error('the service change changed no pair');
  report({
    name: `reachability differential, ${nodes}-node scenario, one service changed`,
    value: wall / 1e6,
    unit: 'ms',
    ...(opts.quick ? {} : { target: { max: 5000 } }),
    note: `${pods.length} pods × ${destinations.length} destinations: the two states compared (${r.delta.global ? 'a global change' : `${r.delta.endpoints.size} endpoints, ${r.delta.destinations.size} VIPs changed`}), ${r.pairs} pairs analysed in both, ${changedPairs} changed; cpu ${(cpu / 1e6).toFixed(0)} ms; one run (scenario set-up without CNI, untimed)`,
  });
}

async function aclBench(report: Report, opts: { quick: boolean }): Promise<void> {
  const host = node(policyRules(RULES));
  const first = analyzePort(host, 'web');
  // (the figure is of the whole port: every rule made it through HNS and into the analysis)
  const analysed = first.In.rules.length + first.Out.rules.length;
  if (analysed !== RULES + 2) throw new Error(`the port has ${analysed} rules, not ${RULES + 2}`);
  const nodes = first.space.bdd.size;
  const samples = await sampleOps({
    samples: opts.quick ? 3 : 9,
    batch: 1,
    warmup: 3,
    op: () => analyzePort(host, 'web'),
  });
  const shadowed = [...first.In.rules, ...first.Out.rules].filter((r) => r.status === 'shadowed').length;
  const redundant = [...first.In.rules, ...first.Out.rules].filter((r) => r.redundant).length;
  report({
    name: `analysis ACLs of a port with ${RULES} rules`,
    value: median(samples.wall) / 1e6,
    unit: 'ms',
    target: { max: 100 },
    note: `every rule's exact set both ways, shadowing, redundancy, ties (${shadowed} shadowed, ${redundant} redundant; ${nodes} BDD nodes); cpu ${(median(samples.cpu) / 1e6).toFixed(1)} ms`,
  });
  const acls = host.dataplane.view().portByRef.get('web')!.acls();
  let most = 0;
  const cubes = await sampleOps({
    samples: opts.quick ? 1 : 3,
    batch: 1,
    op: () => {
      most = cubeFirstMatches(acls.In.vfp);
      cubeFirstMatches(acls.Out.vfp);
    },
  });
  report({
    name: `analysis first-match sets with interval cubes (${RULES} rules)`,
    value: median(cubes.wall) / 1e6,
    unit: 'ms',
    note: `the representation not chosen, on the same rules: each rule's packets after the rules before it only (a part of what the BDD row does), as lists of disjoint boxes; up to ${most} boxes`,
  });
}
