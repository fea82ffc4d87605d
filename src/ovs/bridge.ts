/**
 * An Open vSwitch bridge's OpenFlow state: ports, flow tables 0–254 with a classifier each,
 * groups, connection tracking and the NORMAL action's MAC table; the flow-mod commands of
 * ovs-ofctl (add-flow(s), mod-flows, del-flows with --strict, add-group, del-groups) and its
 * dump-flows / dump-groups text (lib/ofp-flow.c ofputil_flow_stats_format). Time is a simulated
 * clock passed in. Translation (ofproto/trace and packets for real) is in xlate.ts.
 */
import type { Action, Learn } from './actions.js';
import { checkActions, formatActions, parseActionList } from './actions.js';
import { Classifier, type Classifiable } from './classifier.js';
import { Conntrack } from './conntrack.js';
import { OvsError, fail } from './errors.js';
import { OFPP } from './fields.js';
import { type FlowMod, type FlowModCommand, parseFlowMod } from './flowmod.js';
import { type Match, type PortMap, formatMatch, formatPort } from './match.js';
import { keyValues } from './syntax.js';

/** Milliseconds of simulated time (core/clock's Clock satisfies it). */
export interface TimeSource {
  now(): number;
}

export interface OvsPort {
  readonly name: string;
  readonly ofport: number;
  /** The datapath port number `Datapath actions:` prints. */
  readonly dpPort: number;
  /** `no-flood` (ovs-ofctl mod-port … no-flood): FLOOD and NORMAL skip it. */
  noFlood: boolean;
}

export interface FlowEntry extends Classifiable {
  readonly table: number;
  readonly match: Match;
  actions: readonly Action[];
  cookie: bigint;
  idleTimeout: number;
  hardTimeout: number;
  readonly importance: number;
  readonly sendFlowRem: boolean;
  readonly createdMs: number;
  modifiedMs: number;
  usedMs: number;
  nPackets: number;
  nBytes: number;
  /** The words its mask covers (the megaflow union reads only these). */
  readonly maskWords: Int32Array;
  /** conjunction(id,k/n) actions: a flow made only of them is a conjunctive clause. */
  readonly conj: readonly { id: number; clause: number; n: number }[];
}

export interface Bucket {
  readonly id: number;
  readonly weight: number;
  readonly watchPort: number;
  readonly actions: readonly Action[];
  /** The actions as the bucket runs them, an action set: output or group last (ofpacts_execute_action_set). */
  readonly actionSet: readonly Action[];
}

/**
 * A bucket's actions as an action set executes them (lib/ofp-actions.c
 * ofpacts_execute_action_set): the one-per-kind actions in their fixed order (pop_vlan, push_vlan,
 * dec_ttl), then set_field/move in order, then a single final action — the last of the highest
 * kind among ct, ct_clear, resubmit, output, group. Without a final action nothing runs.
 */
export function asActionSet(actions: readonly Action[]): Action[] {
  const slotOrder = ['pop_vlan', 'push_vlan', 'dec_ttl'] as const;
  const finalOrder = ['ct', 'ct_clear', 'resubmit', 'output', 'group'] as const;
  const slots = new Map<string, Action>();
  const sets: Action[] = [];
  let final: Action | undefined;
  let finalClass = -1;
  for (const a of actions) {
    const slot = (slotOrder as readonly string[]).indexOf(a.type);
    const cls = (finalOrder as readonly string[]).indexOf(a.type);
    if (slot >= 0) slots.set(a.type, a);
    else if (cls >= 0) {
      if (cls >= finalClass) {
        final = a;
        finalClass = cls;
      }
    } else if (a.type === 'set_field' || a.type === 'move') sets.push(a);
  }
  if (!final) return [];
  const out: Action[] = [];
  for (const k of slotOrder) {
    const a = slots.get(k);
    if (a) out.push(a);
  }
  return [...out, ...sets, final];
}

export interface Group {
  readonly id: number;
  readonly type: 'all' | 'select' | 'indirect' | 'ff';
  /** A select group's `selection_method`: OVS uses `dp_hash` when none is given. */
  readonly selectionMethod: 'dp_hash' | 'hash';
  readonly buckets: readonly Bucket[];
  nPackets: number;
  nBytes: number;
}

/** A packet-in: what a controller would receive (the engine records it as an observation). */
export interface PacketIn {
  readonly reason: string;
  readonly table: number;
  readonly cookie: bigint;
  readonly userdata: readonly number[];
  readonly controllerId: number;
  /** The packet as `Flow:` prints it. */
  readonly flow: string;
}

export interface BridgeOptions {
  readonly name?: string;
  readonly clock?: TimeSource;
  /** Seed of the select-group hash. */
  readonly seed?: number;
}

export interface DumpOptions {
  /** `--no-stats`. */
  readonly noStats?: boolean;
  /** `--names`. */
  readonly names?: boolean;
  /** A flow filter (del-flows syntax: `table=…`, match fields, `cookie=v/m`, `out_port=`). */
  readonly filter?: string;
}

/** The datapath port a dummy datapath gives a port (lib/dpif-netdev.c choose_port): its name's number, +100 for `br…`. */
export function dummyDpPort(name: string, used: ReadonlySet<number>): number {
  const m = /\d+/.exec(name);
  if (m) {
    const n = (name.startsWith('br') ? 100 : 0) + Number(m[0]);
    if (n > 0 && !used.has(n)) return n;
  }
  for (let n = 1; ; n++) if (!used.has(n)) return n;
}

const N_TABLES = 255;

interface Table {
  readonly hard: Classifier<FlowEntry>;
  readonly conj: Classifier<FlowEntry>;
}

export class Bridge implements PortMap {
  readonly name: string;
  readonly clock: TimeSource;
  readonly seed: number;
  readonly tables: readonly Table[];
  readonly groups = new Map<number, Group>();
  readonly ports = new Map<number, OvsPort>();
  private readonly portsByName = new Map<string, OvsPort>();
  readonly conntrack = new Conntrack();
  /** NORMAL's MAC learning table: MAC (48-bit) → ofport. */
  readonly macTable = new Map<bigint, { port: number; ms: number }>();
  readonly packetIns: PacketIn[] = [];
  private seq = 0;
  /** Flows by table, priority and match (the identity OpenFlow gives a flow). */
  private readonly byKey = new Map<string, FlowEntry>();
  /** Flows whose actions name a group, by group ID (del-groups removes them with it). */
  private readonly byGroup = new Map<number, Set<FlowEntry>>();
  /** Flows with an idle or hard timeout: the only ones expire() looks at. */
  private readonly timed = new Set<FlowEntry>();
  /** No timed flow expires before this (ms). */
  private nextExpiryMs = Infinity;
  /** Moves with every change of ports, flows and groups. */
  private changes = 0;

  constructor(opts: BridgeOptions = {}) {
    this.name = opts.name ?? 'br0';
    this.clock = opts.clock ?? { now: () => 0 };
    this.seed = opts.seed ?? 0;
    this.tables = Array.from({ length: N_TABLES }, () => ({
      hard: new Classifier<FlowEntry>(),
      conj: new Classifier<FlowEntry>(),
    }));
    this.addPort(this.name, OFPP.LOCAL);
  }

  /**
   * A number that moves whenever a packet's fate through this bridge could: ports, flows, groups,
   * the connection table, learned MACs (a cache key: a sum of counters that only go up).
   */
  get generation(): number {
    return this.changes + this.conntrack.changes + this.macChanges;
  }

  /** Learned MACs (NORMAL's table) that appeared or moved: part of `generation`. */
  macChanges = 0;

  // ───────────── ports ─────────────

  /** Adds a port; `ofport` defaults to the lowest free number, its datapath number to the dummy datapath's choice. */
  addPort(name: string, ofport?: number, opts: { dpPort?: number; noFlood?: boolean } = {}): OvsPort {
    if (this.portsByName.has(name))
      return fail(
        `cannot create a port named ${name} because a port named ${name} already exists on bridge ${this.name}`,
      );
    let n = ofport;
    if (n === undefined) for (n = 1; this.ports.has(n); n++);
    if (this.ports.has(n)) return fail(`ofport ${n} is in use`);
    const used = new Set([...this.ports.values()].map((p) => p.dpPort));
    const port: OvsPort = {
      name,
      ofport: n,
      dpPort: opts.dpPort ?? dummyDpPort(name, used),
      noFlood: opts.noFlood ?? false,
    };
    this.ports.set(n, port);
    this.portsByName.set(name, port);
    this.changes++;
    return port;
  }

  delPort(name: string): void {
    const p = this.portsByName.get(name);
    if (!p || p.ofport === OFPP.LOCAL) return fail(`no port named ${name}`);
    this.ports.delete(p.ofport);
    this.portsByName.delete(name);
    this.changes++;
    for (const [mac, e] of this.macTable) if (e.port === p.ofport) this.macTable.delete(mac);
  }

  portByName(name: string): number | undefined {
    return this.portsByName.get(name)?.ofport;
  }
  nameOfPort(port: number): string | undefined {
    return this.ports.get(port)?.name;
  }

  // ───────────── flows ─────────────

  /** Every flow, by table, then priority (descending), then age. */
  flows(table?: number): FlowEntry[] {
    return this.flowsWhere(table, () => true);
  }

  /**
   * The flows of one table (or all) that `keep` accepts, in dump order (by table, then priority
   * down, then age): only the kept ones are sorted.
   */
  private flowsWhere(table: number | undefined, keep: (f: FlowEntry) => boolean): FlowEntry[] {
    const out: FlowEntry[] = [];
    for (let t = 0; t < N_TABLES; t++) {
      if (table !== undefined && t !== table) continue;
      const tb = this.tables[t]!;
      if (!tb.hard.size && !tb.conj.size) continue;
      const fs: FlowEntry[] = [];
      for (const f of tb.hard.all()) if (keep(f)) fs.push(f);
      for (const f of tb.conj.all()) if (keep(f)) fs.push(f);
      fs.sort((a, b) => b.priority - a.priority || a.seq - b.seq);
      out.push(...fs);
    }
    return out;
  }

  /** How many flows the bridge holds (after expiring timed-out ones). */
  get flowCount(): number {
    this.expire();
    let n = 0;
    for (const t of this.tables) n += t.hard.size + t.conj.size;
    return n;
  }

  private insert(e: FlowEntry): void {
    const t = this.tables[e.table]!;
    (e.conj.length ? t.conj : t.hard).insert(e);
    this.changes++;
    this.byKey.set(`${e.table}/${e.priority}/${e.match.key()}`, e);
    this.indexGroups(e, true);
    if (e.idleTimeout || e.hardTimeout) {
      this.timed.add(e);
      this.nextExpiryMs = Math.min(this.nextExpiryMs, deadline(e));
    }
  }

  /** Record (or forget) the groups a flow's actions name. */
  private indexGroups(e: FlowEntry, add: boolean): void {
    for (const a of e.actions) {
      if (a.type !== 'group') continue;
      let set = this.byGroup.get(a.id);
      if (add) {
        if (!set) this.byGroup.set(a.id, (set = new Set()));
        set.add(e);
      } else if (set) {
        set.delete(e);
        if (!set.size) this.byGroup.delete(a.id);
      }
    }
  }

  removeFlow(e: FlowEntry, cascade = true): void {
    const t = this.tables[e.table]!;
    if (!(e.conj.length ? t.conj : t.hard).remove(e)) return;
    this.changes++;
    this.byKey.delete(`${e.table}/${e.priority}/${e.match.key()}`);
    this.indexGroups(e, false);
    this.timed.delete(e);
    if (cascade) this.dropOrphanedLearned(learnTargets(e.actions));
  }

  /**
   * learn(delete_learned): once no flow's learn action targets a (table, cookie) any more, the
   * flows in that table with that cookie go too, cascading (tests/learn.at "delete_learned").
   */
  private dropOrphanedLearned(targets: readonly string[]): void {
    for (const t of targets) {
      const [table, cookie] = t.split('/');
      if (this.flowsWhere(undefined, (f) => learnTargets(f.actions).includes(t)).length > 0) continue;
      for (const f of this.flowsWhere(Number(table), (f) => f.cookie === BigInt(cookie!))) this.removeFlow(f);
    }
  }

  findExact(table: number, match: Match, priority: number): FlowEntry | undefined {
    return this.byKey.get(`${table}/${priority}/${match.key()}`);
  }

  /** Builds and installs a flow (replacing one with the same match and priority). */
  installFlow(
    table: number,
    priority: number,
    match: Match,
    actions: readonly Action[],
    o: {
      cookie?: bigint;
      idleTimeout?: number;
      hardTimeout?: number;
      importance?: number;
      sendFlowRem?: boolean;
      checkOverlap?: boolean;
    } = {},
  ): FlowEntry {
    const now = this.clock.now();
    const old = this.findExact(table, match, priority);
    if (o.checkOverlap && !old)
      for (const f of this.flows(table))
        if (f.priority === priority && (f.match.isSubsetOf(match) || match.isSubsetOf(f.match)))
          fail('OFPFMFC_OVERLAP');
    if (old) this.removeFlow(old, false);
    const conj: { id: number; clause: number; n: number }[] = [];
    for (const a of actions)
      if (a.type === 'conjunction') conj.push({ id: a.id, clause: a.clause, n: a.nClauses });
    const e: FlowEntry = {
      table,
      priority,
      match,
      value: match.value,
      mask: match.mask,
      seq: ++this.seq,
      maskWords: Int32Array.from(match.mask.reduce<number[]>((acc, m, i) => (m ? [...acc, i] : acc), [])),
      actions,
      cookie: o.cookie ?? 0n,
      idleTimeout: o.idleTimeout ?? 0,
      hardTimeout: o.hardTimeout ?? 0,
      importance: o.importance ?? 0,
      sendFlowRem: o.sendFlowRem ?? false,
      createdMs: now,
      modifiedMs: now,
      usedMs: now,
      nPackets: 0,
      nBytes: 0,
      conj,
    };
    this.insert(e);
    if (old) this.dropOrphanedLearned(learnTargets(old.actions));
    return e;
  }

  /** `ovs-ofctl add-flow`: one flow. Nothing changes on error. */
  addFlow(text: string): void {
    this.addFlows(text);
  }

  /** `ovs-ofctl add-flows`: one flow per line (`#` comments and blank lines skipped); all or nothing. */
  addFlows(text: string): void {
    this.expire();
    const mods: FlowMod[] = [];
    text.split('\n').forEach((raw, i, lines) => {
      // `#` starts a comment, to the end of the line (ds_get_preprocessed_line)
      const line = raw.replace(/#.*/, '').trim();
      if (!line) return;
      try {
        mods.push(parseFlowMod(line, 'add', this));
      } catch (e) {
        if (e instanceof OvsError && lines.length > 1) throw new OvsError(`-:${i + 1}: ${e.message}`);
        throw e;
      }
    });
    for (const fm of mods) {
      this.installFlow(fm.table === 255 ? 0 : fm.table, fm.priority, fm.match, fm.actions, {
        cookie: fm.cookie,
        idleTimeout: fm.idleTimeout,
        hardTimeout: fm.hardTimeout,
        importance: fm.importance,
        sendFlowRem: fm.sendFlowRem,
        checkOverlap: fm.checkOverlap,
      });
    }
  }

  /** The flows a del/mod/dump request selects (loose: every flow at least as specific; strict: same match and priority). */
  private select(fm: FlowMod, strict: boolean): FlowEntry[] {
    const keep = (f: FlowEntry) =>
      (f.cookie & fm.cookieMask) === (fm.cookie & fm.cookieMask) &&
      (fm.outPort === OFPP.NONE || outputsTo(f.actions, fm.outPort)) &&
      (fm.outGroup === 0xffffffff || f.actions.some((a) => a.type === 'group' && a.id === fm.outGroup));
    // strict in one table: at most the one flow of that priority and match (OpenFlow's identity)
    if (strict && fm.table !== 255) {
      const f = this.findExact(fm.table, fm.match, fm.priority);
      return f && keep(f) ? [f] : [];
    }
    return this.flowsWhere(
      fm.table === 255 ? undefined : fm.table,
      (f) =>
        (strict ? f.priority === fm.priority && f.match.equals(fm.match) : f.match.isSubsetOf(fm.match)) &&
        (f.cookie & fm.cookieMask) === (fm.cookie & fm.cookieMask) &&
        (fm.outPort === OFPP.NONE || outputsTo(f.actions, fm.outPort)) &&
        (fm.outGroup === 0xffffffff || f.actions.some((a) => a.type === 'group' && a.id === fm.outGroup)),
    );
  }

  /** `ovs-ofctl del-flows [--strict] [flow]`. */
  delFlows(text = '', opts: { strict?: boolean } = {}): number {
    this.expire();
    const fm = parseFlowMod(text, opts.strict ? 'delete_strict' : 'delete', this);
    const victims = this.select(fm, opts.strict ?? false);
    for (const f of victims) this.removeFlow(f);
    return victims.length;
  }

  /** `ovs-ofctl mod-flows [--strict] flow`: new actions (and cookie if given) for the selected flows. */
  modFlows(text: string, opts: { strict?: boolean } = {}): number {
    this.expire();
    const cmd: FlowModCommand = opts.strict ? 'modify_strict' : 'modify';
    const fm = parseFlowMod(text, cmd, this);
    const hit = this.select(fm, opts.strict ?? false);
    for (const f of hit) {
      checkActions(fm.actions, f.match, f.table);
    }
    const now = this.clock.now();
    const oldTargets = hit.flatMap((f) => learnTargets(f.actions));
    for (const f of hit) {
      this.indexGroups(f, false);
      f.actions = fm.actions;
      this.indexGroups(f, true);
      if (fm.setCookie) f.cookie = fm.cookie;
      f.modifiedMs = now;
    }
    if (hit.length) this.changes++;
    this.dropOrphanedLearned(oldTargets);
    return hit.length;
  }

  /** fin_timeout on a TCP FIN or RST: the given timeouts, where shorter, replace the flow's. */
  finSeen(e: FlowEntry, idle: number, hard: number): void {
    if (idle && (!e.idleTimeout || idle < e.idleTimeout)) e.idleTimeout = idle;
    if (hard && (!e.hardTimeout || hard < e.hardTimeout)) e.hardTimeout = hard;
    if (e.idleTimeout || e.hardTimeout) {
      this.timed.add(e);
      this.nextExpiryMs = Math.min(this.nextExpiryMs, deadline(e));
    }
  }

  /** Removes flows whose idle or hard timeout has passed on the clock. */
  expire(): void {
    if (!this.timed.size) return;
    const now = this.clock.now();
    // packets only push deadlines later, so the earliest one computed here stays a lower bound
    if (now < this.nextExpiryMs) return;
    let next = Infinity;
    for (const f of [...this.timed]) {
      const d = deadline(f);
      if (now >= d) this.removeFlow(f);
      else if (d < next) next = d;
    }
    this.nextExpiryMs = next;
  }

  /** `ovs-ofctl dump-flows`: one line per flow, as OVS prints them (each line starts with a space). */
  dumpFlows(opts: DumpOptions = {}): string[] {
    this.expire();
    const fm = parseFlowMod(opts.filter ?? '', 'delete', this);
    const now = this.clock.now();
    return this.select(fm, false).map((f) => ` ${formatFlowStats(f, now, opts, this)}`);
  }

  // ───────────── groups ─────────────

  /** `ovs-ofctl add-group`: `group_id=N,type=all|select|indirect|ff,bucket=…,bucket=…`. */
  addGroup(text: string): void {
    const g = parseGroup(text, this);
    if (this.groups.has(g.id)) return fail('OFPGMFC_GROUP_EXISTS');
    this.groups.set(g.id, g);
    this.changes++;
  }

  /** `ovs-ofctl del-groups [group_id=N]`; deletes the flows that use it too. */
  delGroups(text = ''): void {
    const kv = keyValues(text).find((x) => x.key === 'group_id');
    const ids = kv && kv.value !== 'all' ? [Number(kv.value)] : [...this.groups.keys()];
    for (const id of ids) {
      if (!this.groups.delete(id)) continue;
      this.changes++;
      for (const f of [...(this.byGroup.get(id) ?? [])]) this.removeFlow(f);
    }
  }

  /** `ovs-ofctl -O OpenFlow15 dump-groups` lines (after the reply header). */
  dumpGroups(): string[] {
    return [...this.groups.values()]
      .sort((a, b) => a.id - b.id)
      .map((g) => {
        let s = ` group_id=${g.id},type=${g.type === 'ff' ? 'fast_failover' : g.type}`;
        if (g.type === 'select' && g.selectionMethod === 'hash') s += ',selection_method=hash';
        for (const b of g.buckets) {
          s += `,bucket=bucket_id:${b.id},`;
          if (g.type === 'select') s += `weight:${b.weight},`;
          if (b.watchPort !== OFPP.NONE) s += `watch_port:${formatPort(b.watchPort)},`;
          s += `actions=${formatActions(b.actions)}`;
        }
        return s;
      });
  }
}

/** When a flow times out: the earlier of its hard and idle deadlines (ms). */
function deadline(f: FlowEntry): number {
  const hard = f.hardTimeout ? f.modifiedMs + f.hardTimeout * 1000 : Infinity;
  const idle = f.idleTimeout ? f.usedMs + f.idleTimeout * 1000 : Infinity;
  return Math.min(hard, idle);
}

/** The (table, cookie) targets of a flow's learn(delete_learned) actions. */
function learnTargets(actions: readonly Action[]): string[] {
  const out: string[] = [];
  for (const a of actions)
    if (a.type === 'learn' && a.learn.deleteLearned) out.push(`${a.learn.table}/${a.learn.cookie}`);
  return out;
}

function outputsTo(actions: readonly Action[], port: number): boolean {
  return actions.some((a) => a.type === 'output' && a.port === port);
}

/** ofp_print_duration: seconds, then milliseconds when not whole. */
function duration(ms: number): string {
  const s = Math.floor(ms / 1000);
  const r = ms - s * 1000;
  return r ? `${s}.${String(Math.floor(r)).padStart(3, '0')}s` : `${s}s`;
}

/** One dump-flows line (ofputil_flow_stats_format). */
export function formatFlowStats(f: FlowEntry, nowMs: number, opts: DumpOptions, ports?: PortMap): string {
  const stats = !opts.noStats;
  const names = opts.names ?? false;
  let s = '';
  if (stats || f.cookie) s += `cookie=0x${f.cookie.toString(16)}, `;
  if (stats) s += `duration=${duration(nowMs - f.createdMs)}, `;
  if (stats || f.table) s += `table=${f.table}, `;
  if (stats) s += `n_packets=${f.nPackets}, n_bytes=${f.nBytes}, `;
  if (f.idleTimeout) s += `idle_timeout=${f.idleTimeout}, `;
  if (f.hardTimeout) s += `hard_timeout=${f.hardTimeout}, `;
  if (f.sendFlowRem) s += 'send_flow_rem ';
  if (f.importance) s += `importance=${f.importance}, `;
  if (stats) {
    s += `idle_age=${Math.floor((nowMs - f.usedMs) / 1000)}, `;
    const hardAge = Math.floor((nowMs - f.modifiedMs) / 1000);
    if (hardAge !== Math.floor((nowMs - f.createdMs) / 1000)) s += `hard_age=${hardAge}, `;
  }
  const m = formatMatch(f.match, f.priority, ports, names);
  if (m) s += `${m} `;
  return `${s}actions=${formatActions(f.actions, ports, names)}`;
}

/** Comma-separated items outside parentheses. */
function topLevelItems(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= s.length; i++) {
    const c = s[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if ((c === ',' || c === undefined) && depth === 0) {
      const item = s.slice(start, i).trim();
      if (item) out.push(item);
      start = i + 1;
    }
  }
  return out;
}

/** Parses add-group text (ovs-ofctl(8) "Group Syntax"). */
export function parseGroup(text: string, ports?: PortMap): Group {
  const parts = text.split(/bucket=/);
  const head = parts[0]!;
  let id: number | undefined;
  let type: Group['type'] | undefined;
  let selectionMethod: Group['selectionMethod'] = 'dp_hash';
  for (const { key, value } of keyValues(head)) {
    if (key === 'group_id') {
      if (!/^\d+$/.test(value) || Number(value) > 0xffffff00) return fail(`invalid group id ${value}`);
      id = Number(value);
    } else if (key === 'type') {
      const t = value === 'fast_failover' ? 'ff' : value;
      if (t !== 'all' && t !== 'select' && t !== 'indirect' && t !== 'ff')
        return fail(`invalid group type ${value}`);
      type = t;
    } else if (key === 'selection_method') {
      if (value !== 'hash' && value !== 'dp_hash') return fail(`${value}: unknown selection method`);
      selectionMethod = value;
    } else if (key === 'selection_method_param' || key === 'fields') continue;
    else return fail(`unknown keyword ${key}`);
  }
  if (id === undefined) return fail('must specify a group_id');
  if (type === undefined) return fail('must specify a type');
  const buckets: Bucket[] = [];
  parts.slice(1).forEach((raw, i) => {
    let body = raw.trim().replace(/,$/, '');
    let bucketId = i;
    let weight = 100;
    let watchPort: number = OFPP.NONE;
    const actIdx = body.indexOf('actions=');
    let actText: string;
    if (actIdx >= 0) {
      actText = body.slice(actIdx + 'actions='.length);
      body = body.slice(0, actIdx);
    } else actText = '';
    const rest: string[] = [];
    for (const item of topLevelItems(body)) {
      const m = /^(bucket_id|weight|watch_port|watch_group)[:=](.*)$/.exec(item);
      if (!m) rest.push(item);
      else if (m[1] === 'bucket_id') bucketId = Number(m[2]);
      else if (m[1] === 'weight') weight = Number(m[2]);
      else if (m[1] === 'watch_port') watchPort = Number(m[2]);
    }
    if (rest.length) actText = actText ? `${rest.join(',')},${actText}` : rest.join(',');
    const actions = parseActionList(actText, { ports });
    buckets.push({ id: bucketId, weight, watchPort, actions, actionSet: asActionSet(actions) });
  });
  if (type === 'indirect' && buckets.length !== 1) return fail('OFPGMFC_INVALID_GROUP');
  return { id, type, selectionMethod, buckets, nPackets: 0, nBytes: 0 };
}

export type { Learn };
