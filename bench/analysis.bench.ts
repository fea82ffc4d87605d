/**
 * The ACL analysis (src/analysis, issue 19): one pod's port carrying 1,000 ACL rules, analysed
 * whole (every rule's exact set in both directions, shadowing, redundancy, ties) — target ≤ 100 ms.
 * The rules are what a NetworkPolicy controller writes (Calico's and NPM's shapes, reference
 * vfp-dataplane.md §2.4): allows of peer pods (/32) and namespaces (/24) on service ports, blocks
 * of ranges, priorities rising from 1000 and shared among rules of one action, created through
 * HcnCreateEndpoint. Beside it, for the choice of representation (docs/analysis.md): the first
 * step of the analysis — each rule's packets after the rules before it — done with interval cubes
 * (lists of disjoint boxes, a box minus a box in at most ten pieces), on the same rules.
 */
import { analyzePort } from '../src/analysis/port.js';
import type { JsonObject } from '../src/core/json.js';
import { createHost, type Host } from '../src/host/host.js';
import { addL2Bridge } from '../src/testing/commands.js';
import type { CompiledRule } from '../src/vswitch/acl.js';
import { median, sampleOps, seeded, type Report } from './harness.js';

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
