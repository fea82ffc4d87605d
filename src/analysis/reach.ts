/**
 * Exact reachability from a source to a destination (docs/analysis.md): every packet the source
 * can send to the destination's address — each protocol, each source and destination port — put in
 * the set of its disposition, through the ACLs of both ports, load balancers (one branch per
 * backend), OutBoundNAT, routes, encapsulation and the other nodes.
 *
 * How: forwarding, ACLs aside, decides on a few port values (src/analysis/cuts.ts), so the
 * packets split into classes — a protocol group and an interval of each port — that are forwarded
 * alike. One probe walk per class and load-balancer branch (`runProbe`: a new connection, every
 * HNS ACL stage recorded and passed) finds the path: the stages and the packet as each saw it. The
 * ACL stages' verdicts are then worked out for every packet of the class at once, as sets: a
 * stage's allowed set (`aclAllowedSet`, the evaluator's semantics) with the stage's addresses fixed
 * and its ports mapped back to the packet as the source sent it (a port a NAT rewrote is a
 * constant; the others are the packet's own). The first stage that refuses a packet names its
 * disposition (DeniedOut, DeniedIn); what passes them all gets the walk's.
 *
 * The sets live in an AclSpace read the source's way ("local" = the source): protocol, source
 * port, destination address and port, source address. They print as "TCP to 10.0.0.2 port 80
 * from 10.0.0.1 port 1024-65535" and their witnesses are trace requests.
 */
import { FALSE } from './bdd.js';
import { ACL_FIELDS, AclSpace, type FieldName } from './space.js';
import { aclAllowedSet, packetSet, type PacketSet } from './acl.js';
import type { AclPacket } from './space.js';
import { intervals, portCuts, type Network } from './cuts.js';
import { hnsError } from '../core/errors.js';
import type { CompiledAcls } from '../vswitch/acl.js';
import { DISPOSITIONS, type Disposition, type Packet } from '../vswitch/contracts.js';
import { fmt } from '../vswitch/v4.js';
import type { AclCheck, LbChoice } from '../dataplane/walk.js';
import type { Probe } from '../dataplane/trace.js';

const ICMP = 1;
const TCP = 6;
const UDP = 17;
/** The protocol a class of "any other protocol" is walked with (GRE: nothing special-cases it). */
const OTHER = 47;
const SOURCE_PORT_HINT = 50000;
const DESTINATION_PORT_HINT = 80;

/** What to analyse: a source and a destination, named as a trace names them. */
export interface ReachQuery {
  /** An endpoint, container, pod (`ns/name`), node, `host`, or an address (outside). */
  readonly from: string;
  /** As `from`, or a service (`svc:ns/name`), a DNS name, or an address. */
  readonly to: string;
}

export interface ReachOptions {
  /** The space to build the sets in (shared by answers that are compared: `diffReach`). */
  readonly context?: ReachContext;
  /** Load-balancer branches followed per class at most (default 64); beyond, the answer says so. */
  readonly maxBranches?: number;
}

/** A part of the packets: the dispositions they get (one, or one per load-balancer branch). */
export interface ReachOutcome {
  /** Sorted in `DISPOSITIONS` order; more than one when a load balancer's choice decides. */
  readonly dispositions: readonly Disposition[];
  readonly set: PacketSet;
}

/** One choice of the load balancers on a path, and what its packets get. */
export interface ReachBranch {
  /** Each load balancer that chose, in path order: where, which, the backend (index, address). */
  readonly choices: readonly {
    readonly host: string;
    readonly lb: string;
    readonly backend: number;
    readonly of: number;
    readonly to: string;
  }[];
  readonly dispositions: Partial<Readonly<Record<Disposition, PacketSet>>>;
}

export interface Reachability {
  readonly from: string;
  readonly to: string;
  /** The source's address and the destination's (dotted; the destination's before any DNAT). */
  readonly source: string;
  readonly destination: string;
  readonly space: AclSpace;
  /** Every packet the source can send to the destination, partitioned by the dispositions it gets. */
  readonly outcomes: readonly ReachOutcome[];
  /** Per disposition, the packets that get it whatever a load balancer picks. */
  readonly dispositions: Partial<Readonly<Record<Disposition, PacketSet>>>;
  /** Per disposition, the packets that get it on some branch (= `dispositions` without forks). */
  readonly possible: Partial<Readonly<Record<Disposition, PacketSet>>>;
  /** The load-balancer branches, when one chooses among more than one backend. */
  readonly branches: readonly ReachBranch[];
  /** False when a part could not be worked out for every packet (`notes` say which). */
  readonly exact: boolean;
  readonly notes: readonly string[];
  /** How many classes the packets split into, and how many probe walks they took. */
  readonly classes: number;
  readonly walks: number;
}

/**
 * The state answers share: their space and the allowed sets of the ACL stages met (per compiled
 * ACLs, so two states' answers can share one context).
 */
export class ReachContext {
  readonly space: AclSpace;
  readonly #allowed = new WeakMap<CompiledAcls, { In?: number; Out?: number }>();
  readonly #staged = new WeakMap<CompiledAcls, Map<string, number>>();

  constructor(space = new AclSpace()) {
    this.space = space;
  }

  /** A direction's allowed set of compiled ACLs, in the port's own words (local = the endpoint). */
  allowed(acls: CompiledAcls, dir: 'In' | 'Out'): number {
    let e = this.#allowed.get(acls);
    if (!e) this.#allowed.set(acls, (e = {}));
    return (e[dir] ??= aclAllowedSet(acls, dir, this.space));
  }

  /** Memo of a stage's set of these ACLs for one address pair and port mapping (keyed by the caller). */
  staged(acls: CompiledAcls, key: string, make: () => number): number {
    let m = this.#staged.get(acls);
    if (!m) this.#staged.set(acls, (m = new Map()));
    let v = m.get(key);
    if (v === undefined) m.set(key, (v = make()));
    return v;
  }
}

/** The flow fields of the space: the source is "local". */
const F = {
  proto: ACL_FIELDS.proto,
  srcPort: ACL_FIELDS.localPort,
  dstIp: ACL_FIELDS.remoteIp,
  dstPort: ACL_FIELDS.remotePort,
  srcIp: ACL_FIELDS.localIp,
} as const;

interface Class {
  readonly set: number;
  readonly proto: number;
  readonly srcPort: number;
  readonly dstPort: number;
}

interface Leaf {
  readonly probe: Probe;
  readonly sets: Map<Disposition, number>;
}

/**
 * Where each packet the source sends to the destination ends, exactly. Errors as a trace's
 * (ERROR_NOT_FOUND for an unknown source, E_INVALIDARG for a bad query).
 */
export function analyzeReach(net: Network, query: ReachQuery, opts: ReachOptions = {}): Reachability {
  checkQuery(query);
  const ctx = opts.context ?? new ReachContext();
  const space = ctx.space;
  const b = space.bdd;
  const maxBranches = opts.maxBranches ?? 64;
  const notes: string[] = [];
  let exact = true;
  const note = (text: string, inexact = false) => {
    if (!notes.includes(text)) notes.push(text);
    if (inexact) exact = false;
  };

  // where the packets go: the source's address and the destination's (a name resolved once)
  const first = net.probe({ from: query.from, to: query.to, protocol: 'TCP' });
  const srcIp = first.result.packet.srcIp;
  if (first.result.disposition === 'NameNotResolved') {
    const all = b.and(space.universe, space.value('localIp', srcIp));
    return answer(query, fmt(srcIp), '', space, new Map([['NameNotResolved', all]]), [], [], true, [
      `"${query.to}" did not resolve: ${first.result.dns?.reason ?? 'no address'}`,
    ]);
  }
  const dstIp = first.result.packet.dstIp;
  if (first.result.dns?.fqdn)
    note(`${query.to} resolved to ${first.result.dns.fqdn} = ${fmt(dstIp)}; the packets analysed go there`);
  const to = fmt(dstIp);

  const cuts = portCuts(net, dstIp);
  const pair = b.and(b.and(space.universe, space.value('localIp', srcIp)), space.value('remoteIp', dstIp));
  const classes = classesOf(space, pair, cuts.src, cuts.dst);

  const parts = new Map<string, number>();
  const branches = new Map<string, { choices: ReachBranch['choices']; sets: Map<Disposition, number> }>();
  let walks = 0;
  for (const cls of classes) {
    const leaves: Leaf[] = [];
    const explore = (forced: Map<string, number>) => {
      const probe = net.probe(
        {
          from: query.from,
          to,
          protocol: cls.proto,
          sourcePort: cls.srcPort,
          destinationPort: cls.dstPort,
        },
        forced,
      );
      walks++;
      const fork = probe.result.lbChoices.find((c) => c.count > 1 && !forced.has(choiceKey(c)));
      if (fork && leaves.length + fork.count <= maxBranches) {
        for (let i = 0; i < fork.count; i++) explore(new Map([...forced, [choiceKey(fork), i]]));
        return;
      }
      if (fork)
        note(
          `${fork.lb} on ${fork.host} has ${fork.count} backends: more branches than ${maxBranches}; the rest follow the hash's choice`,
          true,
        );
      leaves.push({ probe, sets: dispositionsOf(ctx, cls, probe, note) });
    };
    explore(new Map());
    // the class's packets by the dispositions they get over its branches
    let local = new Map<string, number>([['', cls.set]]);
    for (const leaf of leaves) {
      const next = new Map<string, number>();
      for (const [sig, node] of local)
        for (const [d, s] of leaf.sets) {
          const x = b.and(node, s);
          if (x === FALSE) continue;
          const key = addSig(sig, d);
          next.set(key, b.or(next.get(key) ?? FALSE, x));
        }
      local = next;
    }
    for (const [sig, node] of local) parts.set(sig, b.or(parts.get(sig) ?? FALSE, node));
    if (leaves.length > 1)
      for (const leaf of leaves) {
        const choices = choicesOf(leaf.probe);
        const key = choices.map((c) => `${c.host}|${c.lb}#${c.backend}`).join(',');
        let e = branches.get(key);
        if (!e) branches.set(key, (e = { choices, sets: new Map() }));
        for (const [d, s] of leaf.sets) e.sets.set(d, b.or(e.sets.get(d) ?? FALSE, b.and(s, cls.set)));
      }
    for (const leaf of leaves)
      if (leaf.probe.result.observations.some((o) => o.component === 'OVS'))
        note(
          'Open vSwitch forwards on this path: its flow tables were followed for one packet per class, not worked out for every packet',
          true,
        );
  }
  const sigParts = [...parts].map(([sig, node]) => [sig.split(',') as Disposition[], node] as const);
  return answer(
    query,
    fmt(srcIp),
    to,
    space,
    undefined,
    sigParts,
    [...branches.values()],
    exact,
    notes,
    classes.length,
    walks,
  );
}

function checkQuery(q: unknown): asserts q is ReachQuery {
  if (typeof q !== 'object' || q === null || Array.isArray(q))
    throw hnsError('E_INVALIDARG', 'a reachability query must be an object with from and to');
  const r = q as Record<string, unknown>;
  for (const k of Object.keys(r))
    if (k !== 'from' && k !== 'to') throw hnsError('E_INVALIDARG', `unknown reachability field "${k}"`);
  for (const k of ['from', 'to'])
    if (typeof r[k] !== 'string' || !r[k]) throw hnsError('E_INVALIDARG', `${k} must be a non-empty string`);
}

function choiceKey(c: LbChoice): string {
  return `${c.host}|${c.lb}`;
}

/** A signature (sorted dispositions, comma-separated) with one more disposition. */
function addSig(sig: string, d: Disposition): string {
  if (!sig) return d;
  const list = sig.split(',') as Disposition[];
  if (list.includes(d)) return sig;
  list.push(d);
  list.sort((x, y) => DISPOSITIONS.indexOf(x) - DISPOSITIONS.indexOf(y));
  return list.join(',');
}

/** The load balancers' choices of a walk, each with the backend its DNAT step went to. */
function choicesOf(probe: Probe): ReachBranch['choices'] {
  const dnat = probe.result.observations.filter((o) => o.component === 'LB' && o.action.startsWith('DNAT'));
  return probe.result.lbChoices.map((c, i) => {
    const after = dnat[i]?.packetAfter;
    return {
      host: c.host,
      lb: c.lb,
      backend: c.chosen,
      of: c.count,
      to: after ? `${fmt(after.dstIp)}:${after.dstPort}` : '',
    };
  });
}

/**
 * The classes: TCP and UDP split by the port cuts (source × destination intervals), ICMP, and every
 * other protocol (ports 0), each with the packet its probe walks with.
 */
function classesOf(
  space: AclSpace,
  pair: number,
  srcCuts: ReadonlySet<number>,
  dstCuts: ReadonlySet<number>,
): Class[] {
  const b = space.bdd;
  const out: Class[] = [];
  const srcI = intervals(srcCuts);
  const dstI = intervals(dstCuts);
  const inside = (hint: number, [lo, hi]: [number, number]) => (hint >= lo && hint <= hi ? hint : lo);
  for (const proto of [TCP, UDP]) {
    const p = b.and(pair, space.value('proto', proto));
    for (const si of srcI) {
      const ps = b.and(p, b.range(F.srcPort.first, 16, si[0], si[1]));
      for (const di of dstI)
        out.push({
          set: b.and(ps, b.range(F.dstPort.first, 16, di[0], di[1])),
          proto,
          srcPort: inside(SOURCE_PORT_HINT, si),
          dstPort: inside(DESTINATION_PORT_HINT, di),
        });
    }
  }
  out.push({ set: b.and(pair, space.value('proto', ICMP)), proto: ICMP, srcPort: 0, dstPort: 0 });
  const special = b.orAll([ICMP, TCP, UDP].map((x) => space.value('proto', x)));
  out.push({ set: b.diff(pair, special), proto: OTHER, srcPort: 0, dstPort: 0 });
  return out;
}

/**
 * A class's packets by disposition along one probe's path: each ACL stage in turn keeps what it
 * allows; the rest of a stage is DeniedOut/DeniedIn; what passes them all ends as the walk did.
 */
function dispositionsOf(
  ctx: ReachContext,
  cls: Class,
  probe: Probe,
  note: (text: string, inexact?: boolean) => void,
): Map<Disposition, number> {
  const b = ctx.space.bdd;
  const sets = new Map<Disposition, number>();
  const add = (d: Disposition, x: number) => {
    if (x !== FALSE) sets.set(d, b.or(sets.get(d) ?? FALSE, x));
  };
  let rest = cls.set;
  const start = probe.result.packet;
  for (const c of probe.checks) {
    if (rest === FALSE) break;
    const allowed = stageSet(ctx, c, start, probe, note);
    add(c.dir === 'In' ? 'DeniedIn' : 'DeniedOut', b.diff(rest, allowed));
    rest = b.and(rest, allowed);
  }
  add(probe.result.disposition, rest);
  return sets;
}

/** Which of the packet's ports a NAT rewrote before the stage (then a constant for the class). */
function rewritten(probe: Probe, c: AclCheck): { src: boolean; dst: boolean } {
  let src = false;
  let dst = false;
  const obs = probe.result.observations;
  for (let i = 0; i < c.at && i < obs.length; i++) {
    const o = obs[i]!;
    if (o.packetAfter.srcPort !== o.packetBefore.srcPort || o.action.includes('SNAT')) src = true;
    if (o.packetAfter.dstPort !== o.packetBefore.dstPort || o.action.includes('DNAT')) dst = true;
  }
  return { src, dst };
}

/**
 * The packets of the source's space an ACL stage allows: the stage's allowed set (its port's
 * words) with the addresses it saw fixed and each of its two ports either fixed (a NAT rewrote
 * it) or renamed to the source's port it is (in `In`, the port's local side is the destination).
 */
function stageSet(
  ctx: ReachContext,
  c: AclCheck,
  start: Packet,
  probe: Probe,
  note: (text: string, inexact?: boolean) => void,
): number {
  const space = ctx.space;
  const b = space.bdd;
  const q = c.packet;
  const inbound = c.dir === 'In';
  const nat = rewritten(probe, c);
  // the ports' sources: the stage's local port is the packet's source port going out, its
  // destination port coming in
  const srcFixed = nat.src || q.srcPort !== start.srcPort;
  const dstFixed = nat.dst || q.dstPort !== start.dstPort;
  const local = inbound
    ? { ip: q.dstIp, port: q.dstPort, fixed: dstFixed, from: 'dstPort' as const }
    : { ip: q.srcIp, port: q.srcPort, fixed: srcFixed, from: 'srcPort' as const };
  const remote = inbound
    ? { ip: q.srcIp, port: q.srcPort, fixed: srcFixed, from: 'srcPort' as const }
    : { ip: q.dstIp, port: q.dstPort, fixed: dstFixed, from: 'dstPort' as const };
  const acls = c.port.acls();
  const key = `${c.dir}|${local.ip}|${remote.ip}|${local.fixed ? local.port : '*'}|${remote.fixed ? remote.port : '*'}`;
  let snatDependent = false;
  const set = ctx.staged(acls, key, () => {
    let u = ctx.allowed(acls, c.dir);
    u = b.restrict(u, ACL_FIELDS.localIp.first, 32, local.ip >>> 0);
    u = b.restrict(u, ACL_FIELDS.remoteIp.first, 32, remote.ip >>> 0);
    const moves: [FieldName, 'srcPort' | 'dstPort'][] = [];
    for (const [field, side] of [
      ['localPort', local],
      ['remotePort', remote],
    ] as const) {
      if (side.fixed) u = b.restrict(u, ACL_FIELDS[field].first, 16, side.port);
      else moves.push([field, side.from]);
    }
    const map = new Map<number, number>();
    for (const [field, to] of moves) {
      const from = ACL_FIELDS[field].first;
      const dest = F[to].first;
      if (from !== dest) for (let i = 0; i < 16; i++) map.set(from + i, dest + i);
    }
    return map.size ? b.rename(u, (v) => map.get(v) ?? v) : u;
  });
  // a source port a NAT picked per flow: the stage's verdict must not depend on which
  if (nat.src) {
    const field = inbound ? ACL_FIELDS.remotePort : ACL_FIELDS.localPort;
    let u = b.restrict(ctx.allowed(acls, c.dir), ACL_FIELDS.localIp.first, 32, local.ip >>> 0);
    u = b.restrict(u, ACL_FIELDS.remoteIp.first, 32, remote.ip >>> 0);
    // (of this protocol: the space ties the ports of others to 0)
    snatDependent = b.dependsOn(b.restrict(u, ACL_FIELDS.proto.first, 8, q.proto), field.first, 16);
  }
  if (snatDependent)
    note(
      `the ${c.dir} ACLs of ${c.port.name || c.port.id} on ${c.host} decide on the source port a NAT picks per flow: counted with the port the walk got (${q.srcPort})`,
      true,
    );
  return set;
}

function answer(
  query: ReachQuery,
  source: string,
  destination: string,
  space: AclSpace,
  single: Map<Disposition, number> | undefined,
  parts: readonly (readonly [readonly Disposition[], number])[],
  branches: readonly { choices: ReachBranch['choices']; sets: Map<Disposition, number> }[],
  exact: boolean,
  notes: readonly string[],
  classes = 1,
  walks = 1,
): Reachability {
  const b = space.bdd;
  const list = single ? [...single].map(([d, node]) => [[d], node] as const) : parts;
  const set = (node: number) => flowSet(space, node);
  const order = (x: readonly Disposition[], y: readonly Disposition[]) =>
    DISPOSITIONS.indexOf(x[0]!) - DISPOSITIONS.indexOf(y[0]!) || x.length - y.length;
  const sorted = [...list].filter(([, n]) => n !== FALSE).sort(([x], [y]) => order(x, y));
  const certain: Partial<Record<Disposition, PacketSet>> = {};
  const possible: Partial<Record<Disposition, PacketSet>> = {};
  for (const d of DISPOSITIONS) {
    const only = sorted.filter(([ds]) => ds.length === 1 && ds[0] === d).map(([, n]) => n);
    const some = sorted.filter(([ds]) => ds.includes(d)).map(([, n]) => n);
    if (only.length) certain[d] = set(b.orAll(only));
    if (some.length) possible[d] = set(b.orAll(some));
  }
  return {
    from: query.from,
    to: query.to,
    source,
    destination,
    space,
    outcomes: sorted.map(([dispositions, node]) => ({ dispositions, set: set(node) })),
    dispositions: certain,
    possible,
    branches: branches.map((br) => {
      const d: Partial<Record<Disposition, PacketSet>> = {};
      for (const x of DISPOSITIONS) {
        const n = br.sets.get(x);
        if (n !== undefined && n !== FALSE) d[x] = set(n);
      }
      return { choices: br.choices, dispositions: d };
    }),
    exact,
    notes,
    classes,
    walks,
  };
}

/** A witness starts from TCP 50000 → 80 where the set allows. */
const FLOW_HINT: AclPacket = {
  proto: TCP,
  localPort: SOURCE_PORT_HINT,
  remotePort: DESTINATION_PORT_HINT,
  localIp: 0,
  remoteIp: 0,
};

/** A set of the source's packets with its faces (words and witness the source's way). */
export function flowSet(space: AclSpace, node: number): PacketSet {
  const base = packetSet(space, node, 'Out');
  return {
    node,
    empty: base.empty,
    get count() {
      return base.count;
    },
    describe: base.describe,
    has: base.has,
    witness: () => space.witness(node, 'Out', FLOW_HINT),
  };
}

/**
 * Reachability between every source and every destination given (a source to itself skipped),
 * in one context: the ACL stages' sets are worked out once for all pairs.
 */
export function analyzeReachAll(
  net: Network,
  sources: readonly string[],
  destinations: readonly string[],
  opts: ReachOptions = {},
): Reachability[] {
  const context = opts.context ?? new ReachContext();
  const out: Reachability[] = [];
  for (const from of sources)
    for (const to of destinations)
      if (from !== to) out.push(analyzeReach(net, { from, to }, { ...opts, context }));
  return out;
}
