/**
 * Translation of a packet through a bridge's OpenFlow tables (ofproto/ofproto-dpif-xlate.c's
 * semantics, reference §4): lookups with conjunctive matches, actions in order, resubmit's depth
 * and count limits, groups with the packet saved and restored around each bucket, ct forks that
 * recirculate, learn, NORMAL; the datapath actions it composes; and the `ofproto/trace` text
 * (ofproto/ofproto-dpif-trace.c). Two modes: a trace (no side effects; ct state from --ct-next)
 * and a run of a real packet (counters, learn, MAC learning and conntrack commit happen).
 */
import type { Action, Learn, Nat, SetField } from './actions.js';
import { formatAction, formatActions, formatNat, makeSetField } from './actions.js';
import type { Bridge, FlowEntry, Group, PacketIn } from './bridge.js';
import type { CachedConn, Connection, Conntrack, CtResult } from './conntrack.js';
import {
  CS,
  CT_STATE_NAMES,
  ETH_TYPE,
  type Flow,
  IPPROTO,
  N_REGS,
  N_WORDS,
  OFPP,
  type Subfield,
  W,
  formatSubfield,
  fullMask,
  newFlow,
  readBig,
  readSubfield,
  readWordSubfield,
  isWordSubfield,
  writeWordSubfield,
  subfieldMask,
  writeSubfield,
} from './fields.js';
import { fail } from './errors.js';
import {
  Match,
  formatFieldValue,
  formatFlags,
  formatFlow,
  formatIp4,
  formatMac,
  formatMatch,
  hexOf,
  packetMask,
} from './match.js';

export type NodeType = 'bridge' | 'table' | 'thaw' | 'action' | 'detail' | 'warn' | 'error' | 'bucket';
export interface TraceNode {
  readonly type: NodeType;
  readonly text: string;
  readonly subs: TraceNode[];
}

/** One table lookup of a pass; the texts are computed when first read. */
export class Lookup {
  constructor(
    readonly table: number,
    /** The flow that matched; undefined on a table miss. */
    readonly flow: FlowEntry | undefined,
    private readonly bridge: Bridge,
    private readonly names: boolean,
  ) {}
  get miss(): boolean {
    return this.flow === undefined;
  }
  get priority(): number | undefined {
    return this.flow?.priority;
  }
  get cookie(): bigint | undefined {
    return this.flow?.cookie;
  }
  /** The flow's match as the trace prints it. */
  get match(): string | undefined {
    return this.flow && formatMatch(this.flow.match, 32768, this.bridge, this.names);
  }
  get actions(): string | undefined {
    return this.flow && formatActions(this.flow.actions, this.bridge, this.names);
  }
}

/** A packet leaving the bridge (run mode; traces list them too). */
export interface Output {
  readonly port: number;
  readonly dpPort: number;
  readonly packet: Flow;
}

/** One pass through the tables (the first, or one resumed by a recirculation). */
export class Pass {
  constructor(
    /** 0 for the first pass, else the recirculation id that resumed it. */
    readonly recircId: number,
    readonly flow: Flow,
    readonly nodes: readonly TraceNode[],
    readonly lookups: readonly Lookup[],
    readonly finalFlow: Flow,
    private readonly odp: readonly OdpPart[],
    readonly error: string | undefined,
    readonly outputs: readonly Output[],
    /** `Megaflow:` text (simplified: see docs/ovs.md); computed only when the trace text is. */
    readonly megaflow: string | undefined,
    private readonly bridge: Bridge,
    private readonly names: boolean,
  ) {}
  #dp: string | undefined;
  /** `Datapath actions:` text (`drop` when there are none), formatted when first read. */
  get datapathActions(): string {
    return (this.#dp ??= odpText(this.odp));
  }
  /** `Final flow:` text (`unchanged` when it is). */
  get finalFlowText(): string {
    return this.flow.every((x, i) => this.finalFlow[i] === x)
      ? 'unchanged'
      : formatFlow(this.finalFlow, this.bridge, this.names);
  }
}

export interface TraceResult {
  /** The whole `ovs-appctl ofproto/trace` output. */
  readonly text: string;
  readonly passes: readonly Pass[];
  /** The last pass's `Datapath actions:` (the verdict). */
  readonly datapathActions: string;
  /** The last pass's final flow, as `flow_format` prints it (never `unchanged`). */
  readonly finalFlow: string;
  readonly packetIns: readonly PacketIn[];
  readonly outputs: readonly Output[];
}

export interface TraceOptions {
  /** `--ct-next` states, one per conntrack recirculation (`trk,est`; `+trk+est` also accepted). */
  readonly ctNext?: readonly string[];
  /** `--names`. */
  readonly names?: boolean;
  /**
   * Select groups without `selection_method=hash`: `'dp_hash'` (default) does what ofproto/trace
   * does without a packet — `hash(sym_l4(0)),recirc(…)` and the pass stops; `'pick'` chooses the
   * bucket by the bridge's seeded hash and goes on (what a real packet ends up doing).
   */
  readonly selectBuckets?: 'dp_hash' | 'pick';
}

/**
 * Where a real packet's side effects go when they must wait (a dataplane trace that `send` may
 * commit later): conntrack into an overlay of the bridge's table, the rest (flow and group
 * counters, MAC learning, learn, fin_timeout) as closures run in order on commit.
 */
export interface Effects {
  readonly conntrack: Conntrack;
  readonly later: (() => void)[];
}

const MAX_DEPTH = 64;
const MAX_RESUBMITS = MAX_DEPTH * MAX_DEPTH;
const MAX_RECIRCULATIONS = 4096;

/**
 * Flow records, carved out of shared slabs: one ArrayBuffer per 64 flows, shared by successive
 * translations, instead of one per flow (or per translation) keeps the hot path's garbage low
 * (an ArrayBuffer is an off-heap allocation in V8). Each flow is a region of its own (no two share
 * a word), so results stay independent; a result's flows keep their slab (17 KB) alive.
 */
const SLAB_FLOWS = 64;
let slab = new Uint32Array(N_WORDS * SLAB_FLOWS);
let slabNext = 0;

class Arena {
  alloc(copyOf?: Flow): Flow {
    if (slabNext === SLAB_FLOWS) {
      slab = new Uint32Array(N_WORDS * SLAB_FLOWS);
      slabNext = 0;
    }
    const f = slab.subarray(slabNext * N_WORDS, ++slabNext * N_WORDS);
    if (copyOf) f.set(copyOf);
    return f;
  }
}

/** The one carver: it holds no state of its own (the slab is module-wide). */
const ARENA = new Arena();

const NO_FLOWS: FlowEntry[] = [];
const SCRATCH_BASE = newFlow();
const SCRATCH_WC = newFlow();
/** Saved packets around group buckets, by nesting depth (restored before the next use). */
const SAVED: Flow[] = [];

const CT_WORDS = Int32Array.from([
  W.CT_STATE,
  W.CT_ZONE,
  W.CT_MARK,
  W.CT_LABEL,
  W.CT_LABEL + 1,
  W.CT_LABEL + 2,
  W.CT_LABEL + 3,
  W.CT_NW_SRC,
  W.CT_NW_DST,
  W.CT_NW_PROTO,
  W.CT_TP_SRC,
  W.CT_TP_DST,
]);

interface Recirc {
  readonly id: number;
  readonly table: number;
  readonly flow: Flow;
  readonly conntrack: boolean;
  readonly nat: Nat | undefined;
  readonly zone: number;
}

/** ct_state text of --ct-next (`trk,est`, `trk|est`, `+trk+est`). */
export function parseCtStateText(s: string): number {
  let v = 0;
  for (const part of s.split(/[,|+]/)) {
    if (!part) continue;
    const b = CT_STATE_NAMES.indexOf(part);
    if (b < 0) return fail(`${s}: unknown ct_state flag(s)`);
    v |= 1 << b;
  }
  return v;
}

const PACKET_IN_REASON_CODES: Record<string, number> = {
  no_match: 0,
  action: 1,
  invalid_ttl: 2,
  action_set: 3,
  group: 4,
  packet_out: 5,
};

class Ctx {
  readonly flow: Flow;
  readonly base: Flow;
  readonly wc: Flow;
  /** Datapath actions; a function formats its text only when the text is read. */
  readonly odp: OdpPart[] = [];
  trace: TraceNode[] | undefined;
  readonly lookups: Lookup[] = [];
  readonly outputs: Output[] = [];
  depth = 0;
  resubmits = 0;
  tableId = 0;
  exit = false;
  error: string | undefined;
  /** The nat() of the ct being composed (trace mode simulates it on the fork). */
  natAction: Nat | undefined;
  /** Header words NAT rewrote in the datapath packet (run mode), until an action rewrites them. */
  natOverride: Map<number, number> | undefined;
  /** A dp_hash select group froze the translation: nothing after it runs in this pass. */
  frozen = false;
  /** The conjunctive clauses behind the last lookup's match (trace's `conj.` lines). */
  conjFlows: FlowEntry[] = NO_FLOWS;
  /** The pass's top-level trace nodes. */
  readonly root: TraceNode[] | undefined;
  constructor(
    readonly bridge: Bridge,
    flow: Flow,
    readonly run: boolean,
    readonly bytes: number,
    readonly recircs: Recirc[],
    readonly state: {
      nextRecirc: number;
      packetIns: PacketIn[];
      frozen: { id: number; table: number; words: number[] }[] | undefined;
      readonly effects: Effects | undefined;
      /** The connection the packet's last ct found or made (the datapath's md.conn), kept across recirculations. */
      conn: CachedConn | undefined;
    },
    trace: boolean,
    readonly names: boolean,
    readonly arena: Arena,
    /** Choose select-group buckets in a trace too (instead of OVS's dp_hash stop). */
    readonly pickBuckets: boolean,
  ) {
    this.flow = flow;
    // base and wc die with the pass: module scratch, copied out only for the megaflow text
    this.base = SCRATCH_BASE;
    this.base.set(flow);
    this.wc = SCRATCH_WC;
    this.wc.fill(0);
    this.trace = trace ? [] : undefined;
    this.root = this.trace;
  }
  report(type: NodeType, text: string): TraceNode | undefined {
    if (!this.trace) return undefined;
    const n: TraceNode = { type, text, subs: [] };
    this.trace.push(n);
    return n;
  }
}

// ───────────────────────────── lookups ─────────────────────────────

function unionMask(ctx: Ctx, f: FlowEntry): void {
  const words = f.maskWords;
  const wc = ctx.wc;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    wc[w] = (wc[w]! | f.mask[w]!) >>> 0;
  }
}

/** The classifier lookup of one table, with the second lookup of conjunctive matches. */
function lookupTable(ctx: Ctx, table: number, inPort: number): FlowEntry | undefined {
  const flow = ctx.flow;
  const savedPort = flow[W.IN_PORT]!;
  flow[W.IN_PORT] = inPort;
  const t = ctx.bridge.tables[table]!;
  if (ctx.conjFlows.length) ctx.conjFlows = NO_FLOWS;
  let hit = t.hard.lookup(flow);
  if (t.conj.size) {
    const floor = hit ? hit.priority : -1;
    const softs = t.conj.lookupAll(flow, floor);
    // a conjunction has at least two clauses, so one soft match cannot complete one
    if (softs.length > 1) {
      softs.sort((a, b) => b.priority - a.priority);
      let i = 0;
      while (i < softs.length) {
        const p = softs[i]!.priority;
        const clauses = new Map<number, { n: number; seen: number }>();
        for (; i < softs.length && softs[i]!.priority === p; i++)
          for (const c of softs[i]!.conj) {
            const e = clauses.get(c.id) ?? { n: c.n, seen: 0 };
            e.seen |= 1 << c.clause;
            clauses.set(c.id, e);
          }
        const complete = [...clauses]
          .filter(([, e]) => e.seen === 2 ** e.n - 1)
          .map(([id]) => id)
          .sort((a, b) => a - b);
        let found: FlowEntry | undefined;
        let foundId = 0;
        for (const id of complete) {
          flow[W.CONJ_ID] = id;
          const r = t.hard.lookup(flow);
          flow[W.CONJ_ID] = 0;
          if (r && r.mask[W.CONJ_ID] && (!found || r.priority > found.priority)) {
            found = r;
            foundId = id;
          }
        }
        if (found) {
          hit = found;
          ctx.conjFlows = softs.filter((r) => r.priority === p && r.conj.some((c) => c.id === foundId));
          break;
        }
      }
    }
  }
  flow[W.IN_PORT] = savedPort;
  return hit;
}

/** A real packet's side effect: now, or on commit when the run defers them (`Effects`). */
function effect(ctx: Ctx, fn: () => void): void {
  const e = ctx.state.effects;
  if (e) e.later.push(fn);
  else fn();
}

function creditStats(ctx: Ctx, f: FlowEntry): void {
  if (!ctx.run) return;
  const bytes = ctx.bytes;
  const now = ctx.bridge.clock.now();
  effect(ctx, () => {
    f.nPackets++;
    f.nBytes += bytes;
    f.usedMs = now;
  });
}

function reportTable(ctx: Ctx, table: number, rule: FlowEntry | undefined): void {
  if (!ctx.trace) return;
  let text = `${String(table).padStart(2)}. `;
  if (!rule) text += 'No match.';
  else {
    const m = formatMatch(rule.match, 32768, ctx.bridge, ctx.names);
    text += m ? `${m}, ` : '';
    text += `priority ${rule.priority}`;
    if (rule.cookie) text += `, cookie 0x${rule.cookie.toString(16)}`;
  }
  const node = ctx.report('table', text)!;
  ctx.trace = node.subs;
  for (const c of ctx.conjFlows)
    ctx.report('detail', `conj. ${formatMatch(c.match, c.priority, ctx.bridge, ctx.names)}`);
}

function recordLookup(ctx: Ctx, table: number, rule: FlowEntry | undefined): void {
  ctx.lookups.push(new Lookup(table, rule, ctx.bridge, ctx.names));
}

/** xlate_table_action: resubmit/goto_table. */
function tableAction(ctx: Ctx, inPort: number, table: number, withCt: boolean): void {
  if (!resourceCheck(ctx)) return;
  const oldTable = ctx.tableId;
  ctx.tableId = table;
  let swapped = false;
  if (withCt) {
    if (ctx.flow[W.CT_NW_PROTO] === 0 || ctx.flow[W.DL_TYPE] !== ETH_TYPE.IP) {
      ctx.report('error', 'resubmit(ct) with non-tracked or non-IP packet!');
      ctx.tableId = oldTable;
      return;
    }
    swapCtTuple(ctx.flow);
    swapped = true;
  }
  const rule = lookupTable(ctx, table, inPort);
  if (swapped) swapCtTuple(ctx.flow);
  // a miss runs the table-miss rule: no actions (drop), the OpenFlow 1.3+ default
  if (rule) {
    unionMask(ctx, rule);
    creditStats(ctx, rule);
  }
  const old = ctx.trace;
  reportTable(ctx, table, rule);
  recordLookup(ctx, table, rule);
  ctx.resubmits++;
  const deepens = table <= oldTable ? 1 : 0;
  ctx.depth += deepens;
  doActions(ctx, rule ? rule.actions : [], rule);
  ctx.depth -= deepens;
  ctx.trace = old;
  ctx.tableId = oldTable;
}

function resourceCheck(ctx: Ctx): boolean {
  if (ctx.depth >= MAX_DEPTH) {
    ctx.report('error', `over max translation depth ${MAX_DEPTH}`);
    ctx.error = 'Recursion too deep';
  } else if (ctx.resubmits >= MAX_RESUBMITS) {
    ctx.report('error', `over ${MAX_RESUBMITS} resubmit actions`);
    ctx.error = 'Too many resubmits';
  } else return true;
  return false;
}

/** Swaps the packet's 5-tuple with the ct original-direction tuple (resubmit(,,ct)). */
function swapCtTuple(flow: Flow): void {
  const pairs: [number, number][] = [
    [W.NW_SRC, W.CT_NW_SRC],
    [W.NW_DST, W.CT_NW_DST],
    [W.NW_PROTO, W.CT_NW_PROTO],
    [W.TP_SRC, W.CT_TP_SRC],
    [W.TP_DST, W.CT_TP_DST],
  ];
  for (const [a, b] of pairs) {
    const x = flow[a]!;
    flow[a] = flow[b]!;
    flow[b] = x;
  }
}

// ───────────────────────────── datapath actions ─────────────────────────────

const HEADER_WORDS = Int32Array.from([
  W.DL_SRC,
  W.DL_SRC + 1,
  W.DL_DST,
  W.DL_DST + 1,
  W.NW_SRC,
  W.NW_DST,
  W.NW_TOS,
  W.NW_TTL,
  W.TP_SRC,
  W.TP_DST,
]);
function headersDiffer(f: Flow, b: Flow): boolean {
  for (let i = 0; i < HEADER_WORDS.length; i++) if (f[HEADER_WORDS[i]!] !== b[HEADER_WORDS[i]!]) return true;
  return false;
}
function unwildcard(ctx: Ctx, w: number, m: number): void {
  ctx.wc[w] = (ctx.wc[w]! | m) >>> 0;
}

/** commit_odp_actions: `set(...)` for every header field the actions changed since the last commit. */
function commit(ctx: Ctx): void {
  const f = ctx.flow;
  const b = ctx.base;
  if (!headersDiffer(f, b)) return;
  const srcMac = f[W.DL_SRC] !== b[W.DL_SRC] || f[W.DL_SRC + 1] !== b[W.DL_SRC + 1];
  const dstMac = f[W.DL_DST] !== b[W.DL_DST] || f[W.DL_DST + 1] !== b[W.DL_DST + 1];
  if (srcMac || dstMac) {
    // (the text is formatted only if read: the dataplane's packets never read it)
    const s0 = f[W.DL_SRC]!;
    const s1 = f[W.DL_SRC + 1]!;
    const d0 = f[W.DL_DST]!;
    const d1 = f[W.DL_DST + 1]!;
    ctx.odp.push(() => {
      const eth: string[] = [];
      if (srcMac) eth.push(`src=${formatMac((BigInt(s0) << 32n) | BigInt(s1))}`);
      if (dstMac) eth.push(`dst=${formatMac((BigInt(d0) << 32n) | BigInt(d1))}`);
      return `set(eth(${eth.join(',')}))`;
    });
  }
  if (f[W.DL_TYPE] === ETH_TYPE.IP) {
    const ip: string[] = [];
    if (f[W.NW_SRC] !== b[W.NW_SRC]) ip.push(`src=${formatIp4(f[W.NW_SRC]!)}`);
    if (f[W.NW_DST] !== b[W.NW_DST]) ip.push(`dst=${formatIp4(f[W.NW_DST]!)}`);
    if (f[W.NW_TOS] !== b[W.NW_TOS]) ip.push(`tos=0x${f[W.NW_TOS]!.toString(16)}`);
    if (f[W.NW_TTL] !== b[W.NW_TTL]) ip.push(`ttl=${f[W.NW_TTL]}`);
    if (ip.length) {
      ctx.odp.push(`set(ipv4(${ip.join(',')}))`);
      // a set() makes the megaflow match what it rewrites (so the datapath can restore it)
      unwildcard(ctx, W.NW_PROTO, 0xff);
      if (f[W.NW_SRC] !== b[W.NW_SRC]) unwildcard(ctx, W.NW_SRC, 0xffffffff);
      if (f[W.NW_DST] !== b[W.NW_DST]) unwildcard(ctx, W.NW_DST, 0xffffffff);
    }
    const p = f[W.NW_PROTO]!;
    if (p === IPPROTO.TCP || p === IPPROTO.UDP || p === IPPROTO.SCTP) {
      const l4: string[] = [];
      if (f[W.TP_SRC] !== b[W.TP_SRC]) l4.push(`src=${f[W.TP_SRC]}`);
      if (f[W.TP_DST] !== b[W.TP_DST]) l4.push(`dst=${f[W.TP_DST]}`);
      const name = p === IPPROTO.TCP ? 'tcp' : p === IPPROTO.UDP ? 'udp' : 'sctp';
      if (l4.length) {
        ctx.odp.push(`set(${name}(${l4.join(',')}))`);
        unwildcard(ctx, W.NW_PROTO, 0xff);
      }
    }
  }
  b.set(f);
}

function emitOutput(ctx: Ctx, port: number): void {
  const p = ctx.bridge.ports.get(port);
  if (!p) {
    ctx.report('warn', 'Nonexistent output port');
    return;
  }
  commit(ctx);
  ctx.odp.push(String(p.dpPort));
  const packet = ctx.arena.alloc(ctx.flow);
  if (ctx.natOverride) for (const [w, v] of ctx.natOverride) packet[w] = v;
  ctx.outputs.push({ port, dpPort: p.dpPort, packet });
}

/** xlate_output_action. */
function output(ctx: Ctx, port: number): void {
  const inPort = ctx.flow[W.IN_PORT]!;
  switch (port) {
    case OFPP.IN_PORT:
      emitOutput(ctx, inPort);
      return;
    case OFPP.NORMAL:
      normal(ctx);
      return;
    case OFPP.FLOOD:
    case OFPP.ALL:
      for (const p of floodPorts(ctx, port === OFPP.FLOOD)) emitOutput(ctx, p);
      return;
    case OFPP.CONTROLLER:
      packetIn(ctx, 'action', 65535, 0, []);
      return;
    case OFPP.NONE:
    case OFPP.TABLE:
      return;
    default:
      if (port === inPort) {
        ctx.report('warn', 'skipping output to input port');
        return;
      }
      emitOutput(ctx, port);
  }
}

function floodPorts(ctx: Ctx, flood: boolean): number[] {
  const inPort = ctx.flow[W.IN_PORT]!;
  return [...ctx.bridge.ports.values()]
    .filter((p) => p.ofport !== inPort && !(flood && p.noFlood))
    .sort((a, b) => a.dpPort - b.dpPort)
    .map((p) => p.ofport);
}

/** The NORMAL action: a learning L2 switch over the bridge's ports. */
function normal(ctx: Ctx): void {
  const f = ctx.flow;
  const inPort = f[W.IN_PORT]!;
  const src = (BigInt(f[W.DL_SRC]!) << 32n) | BigInt(f[W.DL_SRC + 1]!);
  const dst = (BigInt(f[W.DL_DST]!) << 32n) | BigInt(f[W.DL_DST + 1]!);
  if (!ctx.bridge.ports.has(inPort)) {
    ctx.report('warn', 'no input bundle, dropping');
    return;
  }
  if (ctx.run && !(src & 0x010000000000n)) {
    const known = ctx.bridge.macTable.get(src);
    if (!known || known.port !== inPort)
      ctx.report(
        'detail',
        `learned that ${formatMac(src)} is on port ${ctx.bridge.nameOfPort(inPort)} in VLAN 0`,
      );
    const learned = { port: inPort, ms: ctx.bridge.clock.now() };
    effect(ctx, () => {
      const had = ctx.bridge.macTable.get(src);
      if (!had || had.port !== learned.port) ctx.bridge.macChanges++;
      ctx.bridge.macTable.set(src, learned);
    });
  }
  const entry = dst & 0x010000000000n ? undefined : ctx.bridge.macTable.get(dst);
  if (entry) {
    if (entry.port === inPort) {
      ctx.report('detail', 'learned port is input port, dropping');
      return;
    }
    ctx.report('detail', 'forwarding to learned port');
    emitOutput(ctx, entry.port);
    return;
  }
  ctx.report('detail', 'no learned MAC for destination, flooding');
  for (const p of floodPorts(ctx, true)) emitOutput(ctx, p);
}

function packetIn(
  ctx: Ctx,
  reason: string,
  maxLen: number,
  controllerId: number,
  userdata: readonly number[],
  cookie = 0n,
): void {
  commit(ctx);
  const id = ctx.state.nextRecirc++;
  ctx.odp.push(
    `userspace(pid=0,controller(reason=${PACKET_IN_REASON_CODES[reason] ?? 1},dont_send=0,continuation=0,recirc_id=${id},rule_cookie=0x${cookie.toString(16)},controller_id=${controllerId},max_len=${maxLen}))`,
  );
  ctx.state.packetIns.push({
    reason,
    table: ctx.tableId,
    cookie,
    userdata,
    controllerId,
    flow: formatFlow(ctx.flow, ctx.bridge, ctx.names),
  });
}

// ───────────────────────────── actions ─────────────────────────────

function applySetField(ctx: Ctx, a: SetField): void {
  const f = ctx.flow;
  const words = a.words;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    f[w] = ((f[w]! & ~a.wordMasks[i]!) | a.wordValues[i]!) >>> 0;
    if (ctx.natOverride) ctx.natOverride.delete(w);
  }
}

/** `move`: without BigInt when both fields are one word (registers, ct_mark, IPv4 addresses, ports). */
function moveSubfield(flow: Flow, src: Subfield, dst: Subfield): void {
  if (isWordSubfield(src) && isWordSubfield(dst)) writeWordSubfield(flow, dst, readWordSubfield(flow, src));
  else writeSubfield(flow, dst, readSubfield(flow, src));
}

function doActions(ctx: Ctx, actions: readonly Action[], rule: FlowEntry | undefined): void {
  if (!actions.length) {
    ctx.report('action', 'drop');
    return;
  }
  for (const a of actions) {
    if (ctx.exit || ctx.error || ctx.frozen) break;
    if (ctx.trace) ctx.report('action', formatAction(a, ctx.bridge, ctx.names));
    switch (a.type) {
      case 'output':
        output(ctx, a.port);
        break;
      case 'output_reg': {
        const port = isWordSubfield(a.src)
          ? readWordSubfield(ctx.flow, a.src)
          : readSubfield(ctx.flow, a.src);
        if (port > 0xffff) ctx.report('warn', `output port ${port} is out of range`);
        else output(ctx, Number(port));
        break;
      }
      case 'set_field':
        applySetField(ctx, a);
        break;
      case 'move': {
        moveSubfield(ctx.flow, a.src, a.dst);
        if (ctx.trace) reportSubfield(ctx, a.dst);
        break;
      }
      case 'resubmit':
        tableAction(
          ctx,
          a.port === OFPP.IN_PORT ? ctx.flow[W.IN_PORT]! : a.port,
          a.table === 255 ? ctx.tableId : a.table,
          a.ct,
        );
        break;
      case 'goto_table':
        tableAction(ctx, ctx.flow[W.IN_PORT]!, a.table, false);
        break;
      case 'group': {
        const g = ctx.bridge.groups.get(a.id);
        if (g) group(ctx, g);
        break;
      }
      case 'ct':
        conntrack(ctx, a);
        break;
      case 'conjunction':
        break;
      case 'learn':
        learn(ctx, a.learn);
        break;
      case 'controller':
        packetIn(ctx, a.reason, a.maxLen, a.id, a.userdata, rule?.cookie ?? 0n);
        break;
      case 'dec_ttl': {
        const t = ctx.flow[W.DL_TYPE];
        if (t !== ETH_TYPE.IP && t !== ETH_TYPE.IPV6) break;
        if (ctx.flow[W.NW_TTL]! > 1) ctx.flow[W.NW_TTL] = ctx.flow[W.NW_TTL]! - 1;
        else {
          if (ctx.flow[W.NW_TTL]) ctx.flow[W.NW_TTL] = ctx.flow[W.NW_TTL]! - 1;
          packetIn(ctx, 'invalid_ttl', 65535, 0, [], rule?.cookie ?? 0n);
          ctx.exit = true;
        }
        break;
      }
      case 'push_vlan':
        ctx.flow[W.VLAN_TCI] = 0x1000;
        break;
      case 'pop_vlan':
        ctx.flow[W.VLAN_TCI] = 0;
        break;
      case 'note':
        break;
      case 'ct_clear':
        clearConntrack(ctx.flow);
        // the datapath forgets the packet's connection too (md.conn = NULL)
        ctx.state.conn = undefined;
        break;
      case 'exit':
        ctx.exit = true;
        break;
      case 'fin_timeout':
        // a TCP FIN or RST shortens the flow's timeouts (a real packet only)
        if (ctx.run && rule && ctx.flow[W.NW_PROTO] === IPPROTO.TCP && ctx.flow[W.TCP_FLAGS]! & 0x5) {
          const r = rule;
          effect(ctx, () => ctx.bridge.finSeen(r, a.idleTimeout, a.hardTimeout));
        }
        break;
    }
  }
}

/** xlate_report_subfield: `<subfield> is now <value>` (a whole field in its own format, else hex). */
function reportSubfield(ctx: Ctx, sf: Subfield): void {
  const value =
    sf.ofs === 0 && sf.nBits >= sf.field.bits
      ? formatFieldValue(
          sf.field,
          { value: readBig(ctx.flow, sf.field), mask: fullMask(sf.field) },
          ctx.bridge,
          ctx.names,
        )
      : hexOf(readSubfield(ctx.flow, sf));
  ctx.report('detail', `${formatSubfield(sf)} is now ${value}`);
}

function mix(h: number, x: number): number {
  const y = Math.imul(h ^ x, 0x01000193);
  return y ^ (y >>> 13);
}

/**
 * recirc_alloc_id: a ct fork's recirculation id names its frozen state — the table it resumes at
 * and the packet's metadata (in_port, registers, metadata, tunnel) — so identical forks in one
 * translation share an id, as OVS's do.
 */
function frozenId(ctx: Ctx, table: number): number {
  const f = ctx.flow;
  const frozen = (ctx.state.frozen ??= []);
  for (const e of frozen) {
    if (e.table !== table) continue;
    let same = true;
    for (let k = 0; k < FROZEN_WORDS.length; k++)
      if (e.words[k] !== f[FROZEN_WORDS[k]!]) {
        same = false;
        break;
      }
    if (same) return e.id;
  }
  const words: number[] = [];
  for (let k = 0; k < FROZEN_WORDS.length; k++) words.push(f[FROZEN_WORDS[k]!]!);
  const id = ctx.state.nextRecirc++;
  frozen.push({ id, table, words });
  return id;
}
const FROZEN_WORDS = Int32Array.from([
  W.IN_PORT,
  W.METADATA,
  W.METADATA + 1,
  W.TUN_ID,
  W.TUN_ID + 1,
  W.TUN_SRC,
  W.TUN_DST,
  ...Array.from({ length: N_REGS }, (_, i) => W.REG0 + i),
]);

/** The select group's bucket: a weighted rendezvous hash of the flow's symmetric L3/L4 fields and the bridge's seed. */
export function selectBucket(g: Group, flow: Flow, seed: number): number {
  if (!g.buckets.length) return -1;
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b);
  h = mix(h, (flow[W.NW_SRC]! ^ flow[W.NW_DST]!) >>> 0);
  h = mix(h, flow[W.NW_PROTO]!);
  h = mix(h, (flow[W.TP_SRC]! ^ flow[W.TP_DST]!) >>> 0);
  h = mix(h, (flow[W.DL_SRC + 1]! ^ flow[W.DL_DST + 1]!) >>> 0);
  h = mix(h, flow[W.DL_TYPE]!);
  let best = -1;
  let bestScore = -1;
  for (let i = 0; i < g.buckets.length; i++) {
    const b = g.buckets[i]!;
    if (b.weight === 0) continue;
    let x = Math.imul(h ^ Math.imul(b.id + 1, 0x27d4eb2d), 0x165667b1);
    x ^= x >>> 15;
    x = Math.imul(x, 0x2c1b3c6d);
    x ^= x >>> 12;
    const score = ((x >>> 0) / 4294967296) ** (1 / b.weight);
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  }
  return best;
}

function group(ctx: Ctx, g: Group): void {
  if (ctx.run) {
    const bytes = ctx.bytes;
    effect(ctx, () => {
      g.nPackets++;
      g.nBytes += bytes;
    });
  }
  if (g.type === 'all' || g.type === 'indirect') {
    for (let i = 0; i < g.buckets.length; i++) runBucket(ctx, g, i);
    return;
  }
  if (g.type === 'select' && g.selectionMethod === 'dp_hash' && !ctx.run && !ctx.pickBuckets) {
    // pick_dp_hash_select_group: the datapath hashes the packet and recirculates; ofproto/trace
    // without a packet stops there (the recirculation is not a conntrack one, so it is not followed)
    commit(ctx);
    ctx.odp.push('hash(sym_l4(0))', `recirc(0x${(ctx.state.nextRecirc++).toString(16)})`);
    ctx.report('detail', 'no live bucket');
    ctx.frozen = true;
    return;
  }
  let i: number;
  if (g.type === 'select') i = selectBucket(g, ctx.flow, ctx.bridge.seed);
  else i = g.buckets.findIndex((b) => b.watchPort === OFPP.NONE || ctx.bridge.ports.has(b.watchPort));
  if (i < 0) {
    ctx.report('detail', 'no live bucket');
    return;
  }
  ctx.report('detail', `using bucket ${g.buckets[i]!.id}`);
  runBucket(ctx, g, i);
}

/** xlate_group_bucket: the bucket's actions as an action set, the packet restored afterwards. */
function runBucket(ctx: Ctx, g: Group, i: number): void {
  const b = g.buckets[i]!;
  const old = ctx.trace;
  if (ctx.trace) ctx.trace = ctx.report('bucket', `bucket ${b.id}`)!.subs;
  const saved = (SAVED[ctx.depth] ??= newFlow());
  saved.set(ctx.flow);
  ctx.depth++;
  doActions(ctx, b.actionSet, undefined);
  ctx.depth--;
  ctx.flow.set(saved);
  ctx.exit = false;
  ctx.trace = old;
}

function clearConntrack(flow: Flow): void {
  for (let i = 0; i < CT_WORDS.length; i++) flow[CT_WORDS[i]!] = 0;
}

/** Datapath actions of a pass: text, or a function that formats it when read. */
type OdpPart = string | (() => string);

function odpText(parts: readonly OdpPart[]): string {
  return parts.length ? parts.map((x) => (typeof x === 'string' ? x : x())).join(',') : 'drop';
}

/** The ct_mark/ct_label bits an exec() write sets (the datapath's masks). */
function noteWrites(
  words: Int32Array,
  masks: Uint32Array,
  markMask: Uint32Array,
  labelMask: Uint32Array,
): void {
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === W.CT_MARK) markMask[0] = (markMask[0]! | masks[i]!) >>> 0;
    else if (w >= W.CT_LABEL && w < W.CT_LABEL + 4)
      labelMask[w - W.CT_LABEL] = (labelMask[w - W.CT_LABEL]! | masks[i]!) >>> 0;
  }
}

/** The words a move to `dst` writes (computed once per subfield). */
const MOVE_WRITES = new WeakMap<object, { words: Int32Array; wordMasks: Uint32Array }>();
function moveWrites(dst: Parameters<typeof subfieldMask>[0]): { words: Int32Array; wordMasks: Uint32Array } {
  let m = MOVE_WRITES.get(dst);
  if (!m) {
    const bits = subfieldMask(dst);
    m = makeSetField(dst.field, bits, bits);
    MOVE_WRITES.set(dst, m);
  }
  return m;
}

const NO_MARK = new Uint32Array(1);
const NO_LABEL = new Uint32Array(4);
const MARK_SCRATCH = new Uint32Array(1);
const LABEL_SCRATCH = new Uint32Array(4);

/** compose_conntrack_action. */
function conntrack(ctx: Ctx, a: Extract<Action, { type: 'ct' }>): void {
  const zone = a.zoneSrc ? Number(readSubfield(ctx.flow, a.zoneSrc)) : a.zone;
  commit(ctx);
  // exec() runs first, on the ct_mark/ct_label of the flow (its masks say what the datapath sets)
  const markBefore = ctx.flow[W.CT_MARK]!;
  const hasExec = a.exec.length > 0;
  const labelBefore = hasExec ? ctx.flow.slice(W.CT_LABEL, W.CT_LABEL + 4) : NO_LABEL;
  // (scratch: exec() holds no ct, so one ct is composed at a time; the closure below copies them)
  const markMask = hasExec ? MARK_SCRATCH.fill(0) : NO_MARK;
  const labelMask = hasExec ? LABEL_SCRATCH.fill(0) : NO_LABEL;
  ctx.natAction = a.nat;
  // the actions nested in ct() run (and trace) first: nat, then exec's
  if (a.nat && ctx.trace) ctx.report('action', formatNat(a.nat));
  // an empty nested list traces as `drop`, as any empty action list does (do_xlate_actions)
  if (!a.nat && !a.exec.length && ctx.trace) ctx.report('action', 'drop');
  for (const x of a.exec) {
    if (ctx.trace) ctx.report('action', formatAction(x, ctx.bridge, ctx.names));
    if (x.type === 'set_field') {
      applySetField(ctx, x);
      noteWrites(x.words, x.wordMasks, markMask, labelMask);
    } else if (x.type === 'move') {
      moveSubfield(ctx.flow, x.src, x.dst);
      const m = moveWrites(x.dst);
      noteWrites(m.words, m.wordMasks, markMask, labelMask);
    }
  }
  {
    const mark = markMask[0] ? ctx.flow[W.CT_MARK]! : 0;
    const markM = markMask[0]!;
    const label = labelMask.some((x) => x) ? ctx.flow.slice(W.CT_LABEL, W.CT_LABEL + 4) : undefined;
    const labelM = label ? labelMask.slice() : undefined;
    ctx.odp.push(() => {
      const parts: string[] = [];
      if (a.commit) parts.push(a.force ? 'force_commit' : 'commit');
      if (zone) parts.push(`zone=${zone}`);
      if (markM) parts.push(`mark=0x${mark.toString(16)}/0x${markM.toString(16)}`);
      if (label && labelM) {
        const v = (Array.from(label) as number[]).reduce((acc, x) => (acc << 32n) | BigInt(x), 0n);
        const m = (Array.from(labelM) as number[]).reduce((acc, x) => (acc << 32n) | BigInt(x), 0n);
        parts.push(`label=0x${v.toString(16)}/0x${m.toString(16)}`);
      }
      if (a.nat) parts.push(formatNat(a.nat));
      return parts.length ? `ct(${parts.join(',')})` : 'ct';
    });
  }

  // a real packet meets conntrack: its answer fills the fork; NAT rewrites the datapath packet
  const res = ctx.run
    ? (ctx.state.effects?.conntrack ?? ctx.bridge.conntrack).execute(
        ctx.flow,
        {
          zone,
          commit: a.commit,
          force: a.force,
          nat: a.nat,
          setMark: markMask[0] ? { value: ctx.flow[W.CT_MARK]!, mask: markMask[0] } : undefined,
          setLabel: labelMask.some((x) => x)
            ? { value: ctx.flow.slice(W.CT_LABEL, W.CT_LABEL + 4), mask: labelMask.slice() }
            : undefined,
        },
        ctx.bridge.clock.now(),
        ctx.state.conn,
      )
    : undefined;
  if (res)
    ctx.state.conn = res.conn ? { conn: res.conn, reply: (res.state & CS.REPLY_DIR) !== 0 } : undefined;
  let forkFlow: Flow | undefined;
  if (a.table !== 255) {
    forkFlow = ctx.arena.alloc(ctx.flow);
    forkFlow[W.CT_ZONE] = zone;
    if (res) {
      fillCtFields(forkFlow, res.state, zone, res.conn);
      if (res.rewrite) applyRewrite(forkFlow, res.rewrite);
    }
  } else if (res?.rewrite) {
    // the datapath packet is NATed from here on; the translation's flow does not know it
    const r = res.rewrite;
    const o = (ctx.natOverride ??= new Map());
    if (r.nwSrc !== undefined) o.set(W.NW_SRC, r.nwSrc);
    if (r.nwDst !== undefined) o.set(W.NW_DST, r.nwDst);
    if (r.tpSrc !== undefined) o.set(W.TP_SRC, r.tpSrc);
    if (r.tpDst !== undefined) o.set(W.TP_DST, r.tpDst);
  }
  if (forkFlow) {
    const id = frozenId(ctx, a.table);
    forkFlow[W.RECIRC_ID] = id;
    ctx.odp.push(`recirc(0x${id.toString(16)})`);
    ctx.recircs.push({ id, table: a.table, flow: forkFlow, conntrack: true, nat: a.nat, zone });
    ctx.report(
      'detail',
      `A clone of the packet is forked to recirculate. The forked pipeline will be resumed at table ${a.table}.`,
    );
  }
  ctx.natAction = undefined;
  // ct_mark/ct_label writes were only for the datapath action
  ctx.flow[W.CT_MARK] = markBefore;
  if (hasExec) ctx.flow.set(labelBefore, W.CT_LABEL);
  clearConntrack(ctx.flow);
  ctx.base.set(ctx.flow);
  ctx.report('detail', 'Sets the packet to an untracked state, and clears all the conntrack fields.');
}

function fillCtFields(flow: Flow, state: number, zone: number, conn: Connection | undefined): void {
  flow[W.CT_STATE] = state;
  flow[W.CT_ZONE] = zone;
  if (conn) {
    flow[W.CT_MARK] = conn.mark;
    flow.set(conn.label, W.CT_LABEL);
    flow[W.CT_NW_SRC] = conn.orig.src;
    flow[W.CT_NW_DST] = conn.orig.dst;
    flow[W.CT_NW_PROTO] = conn.orig.proto;
    flow[W.CT_TP_SRC] = conn.orig.sport;
    flow[W.CT_TP_DST] = conn.orig.dport;
  } else if (flow[W.DL_TYPE] === ETH_TYPE.IP && !(state & CS.INVALID)) {
    flow[W.CT_NW_SRC] = flow[W.NW_SRC]!;
    flow[W.CT_NW_DST] = flow[W.NW_DST]!;
    flow[W.CT_NW_PROTO] = flow[W.NW_PROTO]!;
    const ports =
      flow[W.NW_PROTO] === IPPROTO.TCP ||
      flow[W.NW_PROTO] === IPPROTO.UDP ||
      flow[W.NW_PROTO] === IPPROTO.SCTP;
    flow[W.CT_TP_SRC] = ports ? flow[W.TP_SRC]! : 0;
    flow[W.CT_TP_DST] = ports ? flow[W.TP_DST]! : 0;
  }
}

function applyRewrite(flow: Flow, r: NonNullable<CtResult['rewrite']>): void {
  if (r.nwSrc !== undefined) flow[W.NW_SRC] = r.nwSrc;
  if (r.nwDst !== undefined) flow[W.NW_DST] = r.nwDst;
  if (r.tpSrc !== undefined) flow[W.TP_SRC] = r.tpSrc;
  if (r.tpDst !== undefined) flow[W.TP_DST] = r.tpDst;
}

/** learn_execute: the flow a learn action adds (run mode only: ofproto/trace without a packet has no side effects). */
function learn(ctx: Ctx, l: Learn): void {
  if (!ctx.run) return;
  const match = new Match();
  const actions: Action[] = [];
  // fin timeouts become a fin_timeout action of the learned flow (learn_execute)
  if (l.finIdleTimeout || l.finHardTimeout)
    actions.push({ type: 'fin_timeout', idleTimeout: l.finIdleTimeout, hardTimeout: l.finHardTimeout });
  for (const sp of l.specs) {
    switch (sp.kind) {
      case 'match_imm':
      case 'match_field': {
        const v = sp.kind === 'match_imm' ? sp.value : readSubfield(ctx.flow, sp.src);
        const cur = match.get(sp.dst.field);
        const bits = subfieldMask(sp.dst);
        match.set(sp.dst.field, {
          value: (cur.value & ~bits) | (v << BigInt(sp.dst.ofs)),
          mask: cur.mask | bits,
        });
        break;
      }
      case 'load_imm':
      case 'load_field': {
        const v = sp.kind === 'load_imm' ? sp.value : readSubfield(ctx.flow, sp.src);
        const bits = subfieldMask(sp.dst);
        actions.push(makeSetField(sp.dst.field, v << BigInt(sp.dst.ofs), bits));
        break;
      }
      case 'output':
        actions.push({ type: 'output', port: Number(readSubfield(ctx.flow, sp.src) & 0xffffn), maxLen: 0 });
        break;
    }
  }
  effect(ctx, () =>
    ctx.bridge.installFlow(l.table, l.priority, match, actions, {
      cookie: l.cookie,
      idleTimeout: l.idleTimeout,
      hardTimeout: l.hardTimeout,
      sendFlowRem: l.sendFlowRem,
    }),
  );
  if (ctx.trace) {
    let s = `table=${l.table} `;
    const m = formatMatch(match, 32768);
    s += m;
    s = s.replace(/ $/, '');
    s += ` priority=${l.priority}`;
    if (l.cookie) s += ` cookie=0x${l.cookie.toString(16)}`;
    if (l.idleTimeout) s += ` idle=${l.idleTimeout}`;
    if (l.hardTimeout) s += ` hard=${l.hardTimeout}`;
    if (l.sendFlowRem) s += ' send_flow_rem';
    s += ` actions=${formatActions(actions)}`;
    ctx.report('detail', s);
  }
}

// ───────────────────────────── passes and text ─────────────────────────────

function runPass(ctx: Ctx, startTable: number, resumed: boolean): void {
  const bridgeNode = ctx.report('bridge', `bridge("${ctx.bridge.name}")`);
  if (bridgeNode) ctx.trace = bridgeNode.subs;
  if (resumed && ctx.trace) {
    const thaw = ctx.report('thaw', 'thaw')!;
    thaw.subs.push({ type: 'thaw', text: `Resuming from table ${startTable}`, subs: [] });
  }
  ctx.tableId = startTable;
  const rule = lookupTable(ctx, startTable, ctx.flow[W.IN_PORT]!);
  const top = ctx.trace;
  reportTable(ctx, startTable, rule);
  recordLookup(ctx, startTable, rule);
  if (rule) {
    unionMask(ctx, rule);
    creditStats(ctx, rule);
    doActions(ctx, rule.actions, rule);
  } else ctx.report('action', 'drop'); // a table miss drops (the OpenFlow 1.3+ default)
  ctx.trace = top;
}

/** oftrace_node_print_details. */
export function printNodes(nodes: readonly TraceNode[], level = 0): string {
  let out = '';
  nodes.forEach((n, i) => {
    if (n.type === 'bridge') out += '\n';
    const terminal =
      n.type === 'action' ||
      n.type === 'detail' ||
      n.type === 'warn' ||
      n.type === 'error' ||
      n.type === 'bucket';
    const more = i < nodes.length - 1 || terminal ? 1 : 0;
    const pad = ' '.repeat((level + more) * 4);
    switch (n.type) {
      case 'detail':
        out += `${pad} -> ${n.text}\n`;
        break;
      case 'warn':
        out += `${pad} >> ${n.text}\n`;
        break;
      case 'error':
        out += `${pad} >>>> ${n.text} <<<<\n`;
        break;
      case 'bridge':
        out += `${pad}${n.text}\n${pad}${'-'.repeat(n.text.length)}\n`;
        break;
      default:
        out += `${pad}${n.text}\n`;
    }
    out += printNodes(n.subs, level + more + more);
  });
  return out;
}

function megaflow(ctx: Ctx, initial: Flow): string {
  const k = ctx.wc.slice();
  k[W.RECIRC_ID] = 0xffffffff;
  k[W.IN_PORT] = 0xffff;
  k[W.DL_TYPE] = 0xffff;
  if (initial[W.DL_TYPE] === ETH_TYPE.IP || initial[W.DL_TYPE] === ETH_TYPE.IPV6)
    k[W.NW_FRAG] = k[W.NW_FRAG]! | 1;
  const pm = packetMask(initial);
  const v = newFlow();
  for (let i = 0; i < N_WORDS; i++) {
    k[i] =
      (k[i]! &
        (pm[i]! |
          (i === W.RECIRC_ID ||
          (i >= W.REG0 && i < W.REG0 + 16) ||
          i === W.METADATA ||
          i === W.METADATA + 1 ||
          i === W.CONJ_ID
            ? 0xffffffff
            : 0))) >>>
      0;
    v[i] = (initial[i]! & k[i]!) >>> 0;
  }
  return formatMatch(new Match(v, k));
}

const SEPARATOR = '='.repeat(79);

/** The state of one translate() call across its passes. */
interface Run {
  readonly bridge: Bridge;
  readonly run: boolean;
  readonly bytes: number;
  readonly wantText: boolean;
  readonly names: boolean;
  readonly ctNext: number[];
  readonly pickBuckets: boolean;
  readonly state: {
    nextRecirc: number;
    packetIns: PacketIn[];
    frozen: { id: number; table: number; words: number[] }[] | undefined;
    readonly effects: Effects | undefined;
    conn: CachedConn | undefined;
  };
  readonly queue: Recirc[];
  readonly arena: Arena;
  readonly passes: Pass[];
  readonly outputs: Output[];
  text: string;
}

function doPass(t: Run, flow: Flow, startTable: number, recircId: number, resumed: boolean): void {
  const ctx = new Ctx(
    t.bridge,
    t.arena.alloc(flow),
    t.run,
    t.bytes,
    t.queue,
    t.state,
    t.wantText,
    t.names,
    t.arena,
    t.pickBuckets,
  );
  if (t.wantText) t.text += `Flow: ${formatFlow(flow, t.bridge, t.names)}\n`;
  runPass(ctx, startTable, resumed);
  const nodes = ctx.root ?? NO_NODES;
  if (ctx.error) ctx.odp.length = 0;
  const mega = t.wantText ? megaflow(ctx, flow) : undefined;
  const pass = new Pass(
    recircId,
    flow,
    nodes,
    ctx.lookups,
    ctx.flow,
    ctx.odp,
    ctx.error,
    ctx.outputs,
    mega,
    t.bridge,
    t.names,
  );
  if (t.wantText) {
    t.text += printNodes(nodes);
    t.text += `\nFinal flow: ${pass.finalFlowText}\nMegaflow: ${mega}\nDatapath actions: ${pass.datapathActions}`;
    if (ctx.error) t.text += `\nTranslation failed (${ctx.error}), packet is dropped.\n`;
  }
  for (const o of ctx.outputs) t.outputs.push(o);
  t.passes.push(pass);
}

const natLine = (r: Recirc, f: Flow): string =>
  r.nat!.ipMin
    ? `nw_src=${formatIp4(f[W.NW_SRC]!)},tp_src=${f[W.TP_SRC]},nw_dst=${formatIp4(f[W.NW_DST]!)},tp_dst=${f[W.TP_DST]}\n`
    : '\n';

/**
 * ofproto_trace_recirc_node: sets the resumed packet's ct_state (--ct-next, else trk|new; a real
 * packet keeps conntrack's answer) and, in a trace, simulates NAT with the range's first address
 * and port; returns the separator text.
 */
function resume(t: Run, r: Recirc): string {
  const flow = r.flow;
  const T = t.wantText;
  let head = T ? `\n\n${SEPARATOR}\nrecirc(0x${r.id.toString(16)})` : '';
  if (r.conntrack) {
    if (!t.run) {
      const next = t.ctNext.shift();
      flow[W.CT_STATE] = next ?? CS.TRACKED | CS.NEW;
      if (T)
        head +=
          next === undefined
            ? ' - resume conntrack with default ct_state=trk|new (use --ct-next to customize)'
            : ` - resume conntrack with ct_state=${formatFlags(next, CT_STATE_NAMES)}`;
    } else if (T)
      head += ` - resume conntrack with ct_state=${formatFlags(flow[W.CT_STATE]!, CT_STATE_NAMES)}`;
  }
  if (T) head += '\n';
  const nat = r.nat;
  if (nat && !t.run) {
    if (T) head += `Replacing src/dst IP/ports to simulate NAT:\n Initial flow: ${natLine(r, flow)}`;
    if (nat.src && nat.ipMin) {
      flow[W.NW_SRC] = nat.ipMin;
      if (nat.portMin) flow[W.TP_SRC] = nat.portMin;
    }
    if (nat.dst && nat.ipMin) {
      flow[W.NW_DST] = nat.ipMin;
      if (nat.portMin) flow[W.TP_DST] = nat.portMin;
    }
    if (T) head += ` Modified flow: ${natLine(r, flow)}`;
  }
  if (T) head += `${SEPARATOR}\n\n`;
  return head;
}

const NO_NODES: TraceNode[] = [];

/** Translates `flow` through the bridge: a trace (run=false) or a real packet (run=true). */
export function translate(
  bridge: Bridge,
  packet: Flow,
  opts: TraceOptions & { run: boolean; bytes?: number; text?: boolean; effects?: Effects },
): TraceResult {
  bridge.expire();
  const t: Run = {
    bridge,
    run: opts.run,
    bytes: opts.bytes ?? 64,
    wantText: opts.text ?? true,
    names: opts.names ?? false,
    ctNext: opts.ctNext ? opts.ctNext.map(parseCtStateText) : [],
    pickBuckets: opts.selectBuckets === 'pick',
    state: { nextRecirc: 1, packetIns: [], frozen: undefined, effects: opts.effects, conn: undefined },
    queue: [],
    arena: ARENA,
    passes: [],
    outputs: [],
    text: '',
  };
  doPass(t, t.arena.alloc(packet), 0, 0, false);
  let n = 0;
  while (t.queue.length) {
    const r = t.queue.shift()!;
    if (n++ > MAX_RECIRCULATIONS) {
      t.text += `\n\n${SEPARATOR}\nTrace reached the recirculation limit.  Sopping the trace here.\nQueued but not processed: ${t.queue.length + 1} recirculations.`;
      break;
    }
    t.text += resume(t, r);
    doPass(t, r.flow, r.table, r.id, true);
  }
  return new Result(t);
}

class Result implements TraceResult {
  readonly text: string;
  readonly passes: readonly Pass[];
  readonly packetIns: readonly PacketIn[];
  readonly outputs: readonly Output[];
  private readonly last: Pass;
  constructor(private readonly t: Run) {
    this.text = !t.wantText || t.text.endsWith('\n') ? t.text : `${t.text}\n`;
    this.passes = t.passes;
    this.last = t.passes[t.passes.length - 1]!;
    this.packetIns = t.state.packetIns;
    this.outputs = t.outputs;
  }
  get datapathActions(): string {
    return this.last.datapathActions;
  }
  get finalFlow(): string {
    return formatFlow(this.last.finalFlow, this.t.bridge, this.t.names);
  }
}
