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
import { FALSE, TRUE, type Bdd } from './bdd.js';
import { ACL_FIELDS, AclSpace, type FieldName } from './space.js';
import { aclAllowedSet, type PacketSet } from './acl.js';
import type { AclPacket } from './space.js';
import { CutIndex, portGroups, type Cuts, type Network, type PortCuts } from './cuts.js';
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
    /** The load balancer's ID (HNS), or its name (a Linux node's kube-proxy service). */
    readonly lb: string;
    /** The VIP and port it balanced (the packet before its DNAT). */
    readonly frontend: string;
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

  readonly #classes = new WeakMap<PortCuts, Class[]>();
  readonly #cuts = new WeakMap<Network, { generation: number; index: CutIndex }>();

  /** The network's port cuts (indexed once per state of it). */
  cuts(net: Network): CutIndex {
    const generation = 'allNodes' in net ? net.generation() : net.dataplane.generation();
    let e = this.#cuts.get(net);
    if (!e || e.generation !== generation)
      this.#cuts.set(net, (e = { generation, index: new CutIndex(net) }));
    return e.index;
  }

  /** The classes of packets the cuts make (without addresses: every pair's). */
  classes(cuts: PortCuts): readonly Class[] {
    let c = this.#classes.get(cuts);
    if (!c) this.#classes.set(cuts, (c = classesOf(this.space, cuts)));
    return c;
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
  const run = new PairRun(net, ctx, query.from, opts.maxBranches ?? 64);

  // where the packets go: the source's address and the destination's (a name resolved once)
  const first = net.probeAddresses({ from: query.from, to: query.to });
  const srcIp = first.source;
  if (first.destination === undefined) {
    const pair = { src: srcIp, dst: undefined };
    return answer(query, pair, space, [[['NameNotResolved'], space.universe]], [], true, [
      `"${query.to}" did not resolve: ${first.dns?.reason ?? 'no address'}`,
    ]);
  }
  const dstIp = first.destination;
  if (first.dns?.fqdn)
    run.note(`${query.to} resolved to ${first.dns.fqdn} = ${fmt(dstIp)}; the packets analysed go there`);
  run.to = fmt(dstIp);

  // (the classes and the stages' sets leave the addresses out — they are the pair's constants —
  // so that pairs share their diagrams; the answer's sets get them back)
  const classes = ctx.classes(ctx.cuts(net).for(dstIp));
  for (const cls of classes) run.classify(cls);
  const sigParts: (readonly [readonly Disposition[], number])[] = [];
  for (const [sig, node] of run.parts) sigParts.push([sig.split(',') as Disposition[], node]);
  return answer(
    query,
    { src: srcIp, dst: dstIp },
    space,
    sigParts,
    [...run.branches.values()],
    run.exact,
    run.notes,
    classes.length,
    run.walks,
  );
}

const OVS_NOTE =
  'Open vSwitch forwards on this path: its flow tables were followed for one packet per class, not worked out for every packet';

/** One pair's analysis in progress: its classes' parts, branches, notes and walks. */
class PairRun {
  to = '';
  readonly notes: string[] = [];
  exact = true;
  walks = 0;
  /** Disposition signature → the packets (without addresses) that get it. */
  readonly parts = new Map<string, number>();
  readonly branches = new Map<string, { choices: ReachBranch['choices']; sets: Map<Disposition, number> }>();
  readonly #b: Bdd;

  constructor(
    readonly net: Network,
    readonly ctx: ReachContext,
    readonly from: string,
    readonly maxBranches: number,
  ) {
    this.#b = ctx.space.bdd;
  }

  note(text: string, inexact = false): void {
    if (!this.notes.includes(text)) this.notes.push(text);
    if (inexact) this.exact = false;
  }

  /** A class: its walks (one per load-balancer branch), then its packets by signature. */
  classify(cls: Class, depth = 0): void {
    const b = this.#b;
    const leaves: Leaf[] = [];
    this.explore(cls, NO_FORCE, leaves);
    // a packet a stage sees addressed to its own source with equal ports is its own reply (the
    // flow state it made on the way takes it): such packets of the class are walked apart
    if (depth < 2)
      for (const leaf of leaves) {
        const own = ownReplies(this, cls, leaf.probe);
        if (own === FALSE || own === cls.set) continue;
        this.classify(subclass(this.ctx, cls, own), depth + 1);
        this.classify(subclass(this.ctx, cls, b.diff(cls.set, own)), depth + 1);
        return;
      }
    for (const leaf of leaves) {
      const obs = leaf.probe.result.observations;
      for (let i = 0; i < obs.length; i++)
        if (obs[i]!.component === 'OVS') {
          this.note(OVS_NOTE, true);
          break;
        }
    }
    if (leaves.length === 1) {
      for (const [d, s] of leaves[0]!.sets) this.parts.set(d, b.or(this.parts.get(d) ?? FALSE, s));
      return;
    }
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
    for (const [sig, node] of local) this.parts.set(sig, b.or(this.parts.get(sig) ?? FALSE, node));
    for (const leaf of leaves) {
      const choices = choicesOf(leaf.probe);
      let key = '';
      for (const c of choices) key += `${c.host}|${c.lb}#${c.backend},`;
      let e = this.branches.get(key);
      if (!e) this.branches.set(key, (e = { choices, sets: new Map() }));
      for (const [d, s] of leaf.sets) e.sets.set(d, b.or(e.sets.get(d) ?? FALSE, b.and(s, cls.set)));
    }
  }

  /**
   * The hash's own choice at a fork: its walk is that branch's (with the choice forced it would be
   * the same walk); a later load balancer on it forks again.
   */
  forkLeaf(
    cls: Class,
    forced: ReadonlyMap<string, number>,
    fork: LbChoice,
    probe: Probe,
    leaves: Leaf[],
  ): void {
    const now = forcing(forced, fork, fork.chosen);
    for (const c of probe.result.lbChoices)
      if (c.count > 1 && !now.has(choiceKey(c))) {
        // (a second fork: walk again with this choice forced, which forks there)
        this.explore(cls, now, leaves);
        return;
      }
    leaves.push({ probe, sets: dispositionsOf(this, cls, probe) });
  }

  /** Walk the class's packet with `forced` choices; fork at the first load balancer not forced. */
  explore(cls: Class, forced: ReadonlyMap<string, number>, leaves: Leaf[]): void {
    const probe = this.net.probe(
      {
        from: this.from,
        to: this.to,
        protocol: cls.proto,
        sourcePort: cls.srcPort,
        destinationPort: cls.dstPort,
      },
      forced,
    );
    this.walks++;
    if (probe.committed > 0) this.note(committedNote(probe.committed), true);
    let fork: LbChoice | undefined;
    for (const c of probe.result.lbChoices)
      if (c.count > 1 && !forced.has(choiceKey(c))) {
        fork = c;
        break;
      }
    if (fork && leaves.length + fork.count <= this.maxBranches) {
      // (the walk made is the branch the hash chose; the others are walked forced)
      for (let i = 0; i < fork.count; i++)
        if (i === fork.chosen) this.forkLeaf(cls, forced, fork, probe, leaves);
        else explore2(this, cls, forced, fork, i, leaves);
      return;
    }
    if (fork)
      this.note(
        `${fork.lb} on ${fork.host} has ${fork.count} backends: more branches than ${this.maxBranches}; the rest follow the hash's choice`,
        true,
      );
    leaves.push({ probe, sets: dispositionsOf(this, cls, probe) });
  }
}

const NO_FORCE: ReadonlyMap<string, number> = new Map();

/** What flows the world has committed change (traffic sent): the answer is of new connections. */
function committedNote(n: number): string {
  return `${n} committed flow entr${n === 1 ? 'y is' : 'ies are'} not taken into account: this is every packet as a new connection on an empty flow table (a trace of a packet of a committed flow is a reply or reuses its SNAT port)`;
}

/**
 * The packets of a class that some stage of the walk would see with source = destination (address
 * and port): packets that are their own reply.
 */
function ownReplies(run: PairRun, cls: Class, probe: Probe): number {
  const ctx = run.ctx;
  const b = ctx.space.bdd;
  const start = probe.result.packet;
  let u = FALSE;
  for (const c of probe.checks) {
    const q = c.packet;
    if (q.srcIp !== q.dstIp) continue;
    const here = portSources(probe, c.at, start, q);
    const same = portsEqual(ctx, cls, here.src, here.dst);
    // (the diagonal only decides where there are rules to skip)
    if (same === undefined) {
      if (c.port.acls().any) run.note(DIAGONAL_NOTE, true);
    } else u = b.or(u, b.and(cls.set, same));
  }
  return u;
}

/** A part of a class, walked with a packet of its own (near the class's). */
function subclass(ctx: ReachContext, cls: Class, set: number): Class {
  const p = ctx.space.pick(set, {
    proto: cls.proto,
    localPort: cls.srcPort,
    remotePort: cls.dstPort,
    localIp: 0,
    remoteIp: 0,
  })!;
  return { set, proto: cls.proto, srcPort: p.localPort, dstPort: p.remotePort };
}

/** Force a choice in a map of forced choices (a copy). */
function forcing(forced: ReadonlyMap<string, number>, fork: LbChoice, i: number): Map<string, number> {
  const next = new Map(forced);
  next.set(choiceKey(fork), i);
  return next;
}

/** A branch: the walk again with the fork's choice forced to `i`. */
function explore2(
  run: PairRun,
  cls: Class,
  forced: ReadonlyMap<string, number>,
  fork: LbChoice,
  i: number,
  leaves: Leaf[],
): void {
  run.explore(cls, forcing(forced, fork, i), leaves);
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
    const step = dnat[i];
    const after = step?.packetAfter;
    const before = step?.packetBefore;
    return {
      host: c.host,
      lb: c.lb,
      frontend: before ? `${fmt(before.dstIp)}:${before.dstPort}` : '',
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
function classesOf(space: AclSpace, cuts: PortCuts): Class[] {
  const b = space.bdd;
  const all = space.universe;
  const out: Class[] = [];
  for (const [proto, c] of [
    [TCP, cuts.tcp],
    [UDP, cuts.udp],
  ] as [number, Cuts][]) {
    const p = b.and(all, space.value('proto', proto));
    const dstG = portGroups(c.dst);
    for (const sg of portGroups(c.src)) {
      const ps = b.and(p, portsSet(space, F.srcPort.first, sg));
      for (const dg of dstG)
        out.push({
          set: b.and(ps, portsSet(space, F.dstPort.first, dg)),
          proto,
          srcPort: pickPort(SOURCE_PORT_HINT, sg),
          dstPort: pickPort(DESTINATION_PORT_HINT, dg),
        });
    }
  }
  out.push({ set: b.and(all, space.value('proto', ICMP)), proto: ICMP, srcPort: 0, dstPort: 0 });
  const special = b.orAll([ICMP, TCP, UDP].map((x) => space.value('proto', x)));
  out.push({ set: b.diff(all, special), proto: OTHER, srcPort: 0, dstPort: 0 });
  return out;
}

/** A port field's values in the intervals of a group. */
function portsSet(space: AclSpace, first: number, group: readonly (readonly [number, number])[]): number {
  return space.bdd.orAll(group.map(([lo, hi]) => space.bdd.range(first, 16, lo, hi)));
}

/** The port a class's walk uses: the hint when the group holds it, else the group's first. */
function pickPort(hint: number, group: readonly (readonly [number, number])[]): number {
  for (const [lo, hi] of group) if (hint >= lo && hint <= hi) return hint;
  return group[0]![0];
}

/**
 * A class's packets by disposition along one probe's path: each ACL stage in turn keeps what it
 * allows; the rest of a stage is DeniedOut/DeniedIn; what passes them all ends as the walk did.
 */
function dispositionsOf(run: PairRun, cls: Class, probe: Probe): Map<Disposition, number> {
  const b = run.ctx.space.bdd;
  const sets = new Map<Disposition, number>();
  let rest = cls.set;
  const start = probe.result.packet;
  for (const c of probe.checks) {
    if (rest === FALSE) break;
    let allowed = stageSet(run, c, start, probe);
    // (a packet that is the reply of a flow the walk opened at this port skips its rules)
    if (allowed !== TRUE) allowed = b.or(allowed, replies(run, cls, c, start, probe));
    const denied = b.diff(rest, allowed);
    if (denied !== FALSE) {
      const d: Disposition = c.dir === 'In' ? 'DeniedIn' : 'DeniedOut';
      sets.set(d, b.or(sets.get(d) ?? FALSE, denied));
    }
    rest = b.and(rest, allowed);
  }
  const end = probe.result.disposition;
  if (rest !== FALSE) sets.set(end, b.or(sets.get(end) ?? FALSE, rest));
  return sets;
}

/** Where a stage's port comes from: a constant of the class (a NAT rewrote it), or the packet's own. */
interface PortSource {
  readonly fixed: boolean;
  readonly value: number;
  /** The packet's field it is when not fixed (a walk never swaps them). */
  readonly field: 'srcPort' | 'dstPort';
}

/** The sources of a packet's two ports as a walk saw it after `at` observations. */
function portSources(
  probe: Probe,
  at: number,
  start: Packet,
  q: { readonly srcPort: number; readonly dstPort: number },
): { src: PortSource; dst: PortSource } {
  const nat = rewritten(probe, at);
  return {
    src: { fixed: nat.src || q.srcPort !== start.srcPort, value: q.srcPort, field: 'srcPort' },
    dst: { fixed: nat.dst || q.dstPort !== start.dstPort, value: q.dstPort, field: 'dstPort' },
  };
}

/**
 * The packets of a class for which two port sources are equal; undefined for "the packet's source
 * port equals its destination port" among TCP or UDP ports — a diagonal the space's variable order
 * cannot hold compactly (the two fields lie apart: ~2^17 nodes, and millions once addressed), so
 * the caller notes it instead.
 */
function portsEqual(ctx: ReachContext, cls: Class, a: PortSource, b: PortSource): number | undefined {
  const space = ctx.space;
  if (a.fixed && b.fixed) return a.value === b.value ? TRUE : FALSE;
  if (a.fixed) return space.bdd.prefix(F[b.field].first, 16, a.value, 16);
  if (b.fixed) return space.bdd.prefix(F[a.field].first, 16, b.value, 16);
  if (a.field === b.field) return TRUE;
  // (protocols without ports: both are 0)
  return cls.proto === TCP || cls.proto === UDP ? undefined : TRUE;
}

export const DIAGONAL_NOTE =
  'a packet to its own source with source port = destination port (TCP, UDP) is the reply of its own flow: the dataplane lets it back in without the In rules; those packets are counted with the rest of their class';

/**
 * The packets of a class that reach an In stage as the reply of a flow the walk opened at that
 * port before (its Out stage, or a load balancer's DIP-first state): the dataplane lets them
 * through without the rules. A pod sending to itself with equal ports, a port mapping back to the
 * sender: the packet is its own reply.
 */
function replies(run: PairRun, cls: Class, c: AclCheck, start: Packet, probe: Probe): number {
  const b = run.ctx.space.bdd;
  let u = FALSE;
  const q = c.packet;
  for (const e of probe.established) {
    if (e.at > c.at || e.host !== c.host || e.portId !== c.port.id || e.dir !== c.dir) continue;
    if (e.matches.proto !== q.proto || e.matches.srcIp !== q.srcIp || e.matches.dstIp !== q.dstIp) continue;
    // e.matches is the reply of the packet that opened the flow: its ports are that packet's, swapped
    const opened = portSources(probe, e.at, start, {
      srcPort: e.matches.dstPort,
      dstPort: e.matches.srcPort,
    });
    const here = portSources(probe, c.at, start, q);
    const x = portsEqual(run.ctx, cls, here.src, opened.dst);
    const y = portsEqual(run.ctx, cls, here.dst, opened.src);
    if (x === undefined || y === undefined) run.note(DIAGONAL_NOTE, true);
    else u = b.or(u, b.and(x, y));
  }
  return u;
}

/** Which of the packet's ports a NAT rewrote in the first `at` observations (then a constant for the class). */
function rewritten(probe: Probe, at: number): { src: boolean; dst: boolean } {
  let src = false;
  let dst = false;
  const obs = probe.result.observations;
  for (let i = 0; i < at && i < obs.length; i++) {
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
function stageSet(run: PairRun, c: AclCheck, start: Packet, probe: Probe): number {
  const ctx = run.ctx;
  const acls = c.port.acls();
  // (a port without ACLs lets every packet through)
  if (!acls.any) return TRUE;
  const b = ctx.space.bdd;
  const q = c.packet;
  const inbound = c.dir === 'In';
  const nat = rewritten(probe, c.at);
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
    run.note(
      `the ${c.dir} ACLs of ${c.port.name || c.port.id} on ${c.host} decide on the source port a NAT picks per flow: counted with the port the walk got (${q.srcPort})`,
      true,
    );
  return set;
}

/**
 * The answer from the sets without addresses (`parts`: per signature; `branches`: per choice);
 * its sets get the pair's addresses when they are read.
 */
function answer(
  query: ReachQuery,
  pair: { readonly src: number; readonly dst: number | undefined },
  space: AclSpace,
  list: readonly (readonly [readonly Disposition[], number])[],
  branches: readonly { choices: ReachBranch['choices']; sets: Map<Disposition, number> }[],
  exact: boolean,
  notes: readonly string[],
  classes = 1,
  walks = 1,
): Reachability {
  const b = space.bdd;
  const set = (node: number) => pairSet(space, node, pair.src, pair.dst);
  const order = (x: readonly Disposition[], y: readonly Disposition[]) =>
    DISPOSITIONS.indexOf(x[0]!) - DISPOSITIONS.indexOf(y[0]!) || x.length - y.length;
  const sorted = [...list].filter(([, n]) => n !== FALSE).sort(([x], [y]) => order(x, y));
  const outcomes = sorted.map(([dispositions, node]) => ({ dispositions, set: set(node) }));
  // (one part per signature: a disposition's certain set is its one-disposition outcome's)
  const certain: Partial<Record<Disposition, PacketSet>> = {};
  let forked = false;
  for (const o of outcomes)
    if (o.dispositions.length === 1) certain[o.dispositions[0]!] = o.set;
    else forked = true;
  let possible: Partial<Record<Disposition, PacketSet>> | undefined = forked ? undefined : certain;
  const possibleSets = () => {
    const p: Partial<Record<Disposition, PacketSet>> = {};
    for (const d of DISPOSITIONS) {
      const some = outcomes.filter((o) => o.dispositions.includes(d));
      if (some.length === 1) p[d] = some[0]!.set;
      else if (some.length) p[d] = set(b.orAll(some.map((o) => freeOf(o.set)!)));
    }
    return p;
  };
  return {
    from: query.from,
    to: query.to,
    source: fmt(pair.src),
    destination: pair.dst === undefined ? '' : fmt(pair.dst),
    space,
    outcomes,
    dispositions: certain,
    get possible() {
      return (possible ??= possibleSets());
    },
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

/** Where a pair's set keeps its set without addresses (see pairSet). */
const FREE = Symbol('free');

/**
 * A set of one pair's packets: `free` is the set over protocol and ports (any address), `src`/`dst`
 * the pair's addresses. Its node (the set with the addresses) is built when asked for: an
 * all-pairs analysis that only counts and compares never builds it.
 */
export function pairSet(space: AclSpace, free: number, src: number, dst: number | undefined): PacketSet {
  const b = space.bdd;
  let bound: number | undefined;
  let count: bigint | undefined;
  const node = () =>
    (bound ??= b.and(
      b.and(free, space.value('localIp', src)),
      dst === undefined ? TRUE : space.value('remoteIp', dst),
    ));
  const s: PacketSet & { [FREE]: number } = {
    [FREE]: free,
    get node() {
      return node();
    },
    empty: free === FALSE,
    // (free leaves both addresses, 64 bits, or the source's, 32, to any value)
    get count() {
      return (count ??= space.count(free) >> (dst === undefined ? 32n : 64n));
    },
    describe: (max?: number) => space.describe(node(), 'Out', max),
    witness: () => space.witness(node(), 'Out', FLOW_HINT),
    has: (p) =>
      p.localIp >>> 0 === src >>> 0 &&
      (dst === undefined || p.remoteIp >>> 0 === dst >>> 0) &&
      space.has(free, p),
  };
  return s;
}

/** A pair's set without its addresses (protocol and ports), when it is one of pairSet's. */
export function freeOf(s: PacketSet): number | undefined {
  return (s as PacketSet & { [FREE]?: number })[FREE];
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
