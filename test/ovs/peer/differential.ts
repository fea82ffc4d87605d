/**
 * The seam between the real-OVS peer and the OpenFlow engine (issue 17 §4): a "trace provider" is
 * anything that loads a flow table (ovs-ofctl add-flows / add-group text) and traces a packet
 * (ofproto/trace flow syntax, with --ct-next states) to the LAST `Datapath actions:` line and the
 * last pass's `Final flow:` — the peer (`peerProvider`) or the engine in src/ovs (wrapped the same
 * way). `differentialProperty(a, b, features)` generates random flow tables and packets within a
 * feature set the caller chooses and fails on the first case where the two providers disagree,
 * printing the table, the packet and both answers (and fast-check's seed and path).
 *
 *   const peer = peerProvider(await ovsPeer(), …);
 *   await fc.assert(differentialProperty(peer, engine, { resubmit: true, ct: { nat: true } }));
 */
import fc from 'fast-check';
import type { OvsPeer } from './peer.js';
import { normalizeRecirc } from './kit.js';

// ───────────────────────────── the providers' contract ─────────────────────────────

/** A bridge's table: flows one per line (add-flows syntax) and groups (add-group syntax). */
export interface FlowTable {
  readonly flows: string;
  readonly groups?: readonly string[];
}

/** A packet to trace: ofproto/trace's flow syntax, and one --ct-next state per ct fork. */
export interface TracedPacket {
  readonly flow: string;
  readonly ctNext?: readonly string[];
}

/** What is compared: both strings exactly as `ofproto/trace` prints them. */
export interface TraceOutcome {
  /** The last `Datapath actions:` line's text (e.g. `ct(commit,zone=3),2`, `drop`). */
  readonly datapathActions: string;
  /** The last pass's `Final flow:` text (`unchanged` or the flow). */
  readonly finalFlow: string;
}

export interface TraceProvider {
  readonly name: string;
  /** Replaces the whole table (a bad table must reject and leave the previous one). */
  load(table: FlowTable): Promise<void> | void;
  trace(packet: TracedPacket): Promise<TraceOutcome> | TraceOutcome;
}

/**
 * The peer as a provider: its bridge must exist with ports p1…p4 (ofport = datapath port). Traces
 * have no side effects, so the peer's conntrack is not involved: ct states come from --ct-next.
 */
export function peerProvider(peer: OvsPeer, bridge = 'br0', name = 'ovs-vswitchd'): TraceProvider {
  return {
    name,
    load: (table) => peer.replaceTable(bridge, table),
    async trace(packet) {
      const t = await peer.trace(bridge, packet.flow, packet.ctNext ? { ctNext: packet.ctNext } : {});
      return { datapathActions: t.datapathActions, finalFlow: t.finalFlow };
    },
  };
}

/** Recirculation ids renumbered by first appearance (vswitchd's grow with every trace). */
export function normalizeOutcome(o: TraceOutcome): TraceOutcome {
  const [actions, final] = normalizeRecirc(`${o.datapathActions}\n${o.finalFlow}`).split('\n');
  return { datapathActions: actions!, finalFlow: final! };
}

/** Where two outcomes differ (after normalising recirculation ids), or undefined. */
export function outcomeDifference(a: TraceOutcome, b: TraceOutcome): string | undefined {
  const [x, y] = [normalizeOutcome(a), normalizeOutcome(b)];
  const diffs: string[] = [];
  if (x.datapathActions !== y.datapathActions)
    diffs.push(`Datapath actions: ${x.datapathActions}\n               vs ${y.datapathActions}`);
  if (x.finalFlow !== y.finalFlow) diffs.push(`Final flow: ${x.finalFlow}\n         vs ${y.finalFlow}`);
  return diffs.length === 0 ? undefined : diffs.join('\n');
}

// ───────────────────────────── the feature set ─────────────────────────────

/** What the random tables may use; everything off is one table of output-only flows. */
export interface FeatureSet {
  /** Up to this many tables (0…n-1); default 1. */
  readonly tables?: number;
  /** Up to this many flows per table; default 4. */
  readonly flowsPerTable?: number;
  /** Flows at several priorities in one table (unique per table: equal ones are undefined in OVS). */
  readonly priorities?: boolean;
  /** Prefix masks on nw_src/nw_dst, value/mask on tcp_dst/udp_dst and reg0. */
  readonly masks?: boolean;
  /** `resubmit(,N)` to a later table (and `goto_table:N`). */
  readonly resubmit?: boolean;
  /** `set_field:…->nw_dst` / `->reg0`. */
  readonly setField?: boolean;
  /** `load:…->NXM_NX_REG0[a..b]`. */
  readonly load?: boolean;
  /** `move:NXM_OF_IP_SRC[]->NXM_NX_REG1[]` and the like. */
  readonly move?: boolean;
  /** `group:G` to `all` groups (buckets of set_field/output) and one-bucket `select` groups. */
  readonly groups?: boolean;
  /** `ct(…)` actions with zones, `commit`, and with `nat` NAT on commit; ct_state/ct_zone matches. */
  readonly ct?: false | { readonly zones?: boolean; readonly commit?: boolean; readonly nat?: boolean };
}

/** Every feature the generator has, at the sizes the differential tests use. */
export const ALL_FEATURES: FeatureSet = {
  tables: 4,
  flowsPerTable: 4,
  priorities: true,
  masks: true,
  resubmit: true,
  setField: true,
  load: true,
  move: true,
  groups: true,
  ct: { zones: true, commit: true, nat: true },
};

/** One generated case: a table and packets to trace through it. */
export interface DiffCase {
  readonly table: FlowTable;
  readonly packets: readonly TracedPacket[];
}

const PORTS = [1, 2, 3, 4] as const;
const HOSTS = ['10.0.0.1', '10.0.0.2', '10.0.1.5', '192.168.0.1'] as const;
const L4_PORTS = [53, 80, 443, 1000] as const;
type Proto = 'tcp' | 'udp' | 'icmp';

const pick = <T>(xs: readonly T[]) => fc.constantFrom(...xs);
/** `x` in one match of three, else absent: sparse matches, so that random packets hit flows. */
const sometimes = <T>(x: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: x });

/** A match for table `t`, beginning with its protocol keyword (prerequisites of what follows). */
/** The fields of a generated match a packet can be aimed at. */
interface Aim {
  readonly proto: Proto | 'ip';
  readonly inPort?: number | undefined;
  readonly src?: string | undefined;
  readonly dst?: string | undefined;
  readonly tpDst?: number | undefined;
}

/**
 * A match for table `t`, beginning with its protocol keyword (prerequisites of what follows);
 * ct_state/ct_zone only after table 0 (a traced packet enters untracked).
 */
function matchArb(f: FeatureSet, t: number): fc.Arbitrary<{ proto: Proto | 'ip'; text: string; aim: Aim }> {
  const ct = f.ct || undefined;
  return fc
    .record({
      proto: pick(['ip', 'tcp', 'udp', 'icmp'] as const),
      inPort: sometimes(pick(PORTS)),
      src: sometimes(fc.tuple(pick(HOSTS), pick(f.masks ? [8, 16, 24, 32] : [32]))),
      dst: sometimes(fc.tuple(pick(HOSTS), pick(f.masks ? [8, 16, 24, 32] : [32]))),
      tpDst: sometimes(fc.tuple(pick(L4_PORTS), pick(f.masks ? [0xffff, 0xff00, 0xfff0] : [0xffff]))),
      reg0: sometimes(
        fc.tuple(fc.integer({ min: 0, max: 15 }), pick(f.masks ? [0xf, 0x3, 0xffffffff] : [0xffffffff])),
      ),
      // one match in two after table 0: what ct forks resume into
      ctState: fc.option(pick(['-trk', '+trk', '+trk+new', '+trk+est', '+trk+est+rpl']), {
        nil: undefined,
        freq: 2,
      }),
      ctZone: sometimes(pick([0, 3, 7])),
    })
    .map((m) => {
      const parts: string[] = [m.proto];
      if (m.inPort !== undefined) parts.push(`in_port=${m.inPort}`);
      if (m.src) parts.push(m.src[1] === 32 ? `nw_src=${m.src[0]}` : `nw_src=${m.src[0]}/${m.src[1]}`);
      if (m.dst) parts.push(m.dst[1] === 32 ? `nw_dst=${m.dst[0]}` : `nw_dst=${m.dst[0]}/${m.dst[1]}`);
      if (m.tpDst && (m.proto === 'tcp' || m.proto === 'udp')) {
        const [port, mask] = m.tpDst;
        parts.push(
          mask === 0xffff
            ? `${m.proto}_dst=${port}`
            : `${m.proto}_dst=0x${(port & mask).toString(16)}/0x${mask.toString(16)}`,
        );
      }
      if (m.reg0 && (f.setField || f.load || f.move)) {
        const [v, mask] = m.reg0;
        parts.push(
          mask === 0xffffffff ? `reg0=${v}` : `reg0=0x${(v & mask).toString(16)}/0x${mask.toString(16)}`,
        );
      }
      if (ct && t > 0 && m.ctState) parts.push(`ct_state=${m.ctState}`);
      if (ct?.zones && t > 0 && m.ctZone !== undefined) parts.push(`ct_zone=${m.ctZone}`);
      const l4 = m.proto === 'tcp' || m.proto === 'udp';
      const aim: Aim = {
        proto: m.proto,
        inPort: m.inPort,
        src: m.src?.[0],
        dst: m.dst?.[0],
        tpDst: l4 ? m.tpDst?.[0] : undefined,
      };
      return { proto: m.proto, text: parts.join(','), aim };
    });
}

/** One action of a flow in table `t` of `tables`; `proto` is the flow's match keyword. */
function actionArb(
  f: FeatureSet,
  t: number,
  tables: number,
  proto: Proto | 'ip',
  groups: number,
): fc.Arbitrary<string> {
  const arbs: fc.Arbitrary<string>[] = [pick(PORTS).map((p) => `output:${p}`)];
  const later = tables - t - 1;
  if (f.resubmit && later > 0) {
    const to = fc.integer({ min: t + 1, max: tables - 1 });
    arbs.push(to.map((n) => `resubmit(,${n})`));
  }
  if (f.setField) {
    arbs.push(pick(HOSTS).map((h) => `set_field:${h}->nw_dst`));
    arbs.push(fc.integer({ min: 0, max: 15 }).map((v) => `set_field:${v}->reg0`));
  }
  if (f.load) {
    arbs.push(
      fc
        .tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 }))
        .map(([v, at]) => `load:0x${v.toString(16)}->NXM_NX_REG0[${at}..${at + 1}]`),
    );
  }
  if (f.move) {
    arbs.push(
      pick([
        'move:NXM_OF_IP_SRC[]->NXM_NX_REG1[]',
        'move:NXM_NX_REG0[0..3]->NXM_NX_REG2[4..7]',
        'move:NXM_OF_IP_DST[0..7]->NXM_NX_REG0[0..7]',
      ]),
    );
  }
  if (f.groups && groups > 0) arbs.push(fc.integer({ min: 1, max: groups }).map((g) => `group:${g}`));
  const ct = f.ct || undefined;
  if (ct) {
    const zone = ct.zones ? pick([0, 3, 7]) : fc.constant(0);
    const zoneText = (z: number) => (z === 0 ? '' : `,zone=${z}`);
    if (later > 0) {
      arbs.push(
        fc.tuple(zone, fc.integer({ min: t + 1, max: tables - 1 }), fc.boolean()).map(([z, n, nat]) => {
          const inner = [`table=${n}`, ...(z ? [`zone=${z}`] : []), ...(ct.nat && nat ? ['nat'] : [])];
          return `ct(${inner.join(',')})`;
        }),
      );
    }
    if (ct.commit) {
      arbs.push(zone.map((z) => `ct(commit${zoneText(z)})`));
      if (ct.nat) {
        const l4 = proto === 'tcp' || proto === 'udp';
        arbs.push(
          fc
            .tuple(zone, pick(HOSTS), pick(['src', 'dst'] as const), pick(L4_PORTS))
            .map(([z, h, dir, p]) => `ct(commit${zoneText(z)},nat(${dir}=${h}${l4 ? `:${p}` : ''}))`),
        );
      }
    }
  }
  return fc.oneof(...arbs);
}

/** A group: `all` with 1–2 buckets of set_field/output, or a one-bucket `select` (OVS's dp_hash). */
function groupArb(f: FeatureSet, id: number): fc.Arbitrary<string> {
  const bucketAction = fc.oneof(
    pick(PORTS).map((p) => `output:${p}`),
    ...(f.setField ? [pick(HOSTS).map((h) => `set_field:${h}->nw_dst`)] : []),
  );
  const bucket = fc.array(bucketAction, { minLength: 1, maxLength: 2 }).map((as) => `bucket=${as.join(',')}`);
  return fc.oneof(
    fc.array(bucket, { minLength: 1, maxLength: 2 }).map((bs) => `group_id=${id},type=all,${bs.join(',')}`),
    bucket.map((b) => `group_id=${id},type=select,${b}`),
  );
}

/** Random tables within `f`, and 1–4 packets each. */
export function diffCaseArbitrary(f: FeatureSet): fc.Arbitrary<DiffCase> {
  const tables = Math.max(1, f.tables ?? 1);
  const perTable = Math.max(1, f.flowsPerTable ?? 4);
  type Flow = { text: string; aim: Aim };
  const flowArb = (t: number, prio: number, groupCount: number): fc.Arbitrary<Flow> =>
    matchArb(f, t).chain((m) =>
      fc.array(actionArb(f, t, tables, m.proto, groupCount), { maxLength: 3 }).map((as) => ({
        text: `table=${t},priority=${prio},${m.text} actions=${as.length === 0 ? 'drop' : as.join(',')}`,
        aim: m.aim,
      })),
    );
  // unique priorities per table: overlapping flows of equal priority are undefined in OVS
  const tableArb = (t: number, groupCount: number): fc.Arbitrary<Flow[]> =>
    fc
      .uniqueArray(fc.integer({ min: 1, max: f.priorities ? 200 : 1 }), {
        minLength: 1,
        maxLength: f.priorities ? perTable : 1,
      })
      .chain((prios) =>
        fc
          .tuple(fc.tuple(...prios.map((prio) => flowArb(t, prio, groupCount))), missArb(t))
          .map(([fs, miss]) => [...fs, miss]),
      );
  // every table ends in an explicit miss flow at priority 0, as Antrea's do (reference §4): on to
  // the next table (goto_table, or resubmit) or out of a port
  const missArb = (t: number): fc.Arbitrary<Flow> => {
    const next = f.resubmit && t + 1 < tables ? [`goto_table:${t + 1}`, `resubmit(,${t + 1})`] : [];
    return pick([...next, ...PORTS.map((p) => `output:${p}`)]).map((a) => ({
      text: `table=${t},priority=0 actions=${a}`,
      aim: { proto: 'ip' },
    }));
  };
  return fc.integer({ min: 0, max: f.groups ? 2 : 0 }).chain((groupCount) =>
    fc
      .record({
        groups: fc.tuple(...Array.from({ length: groupCount }, (_, i) => groupArb(f, i + 1))),
        flows: fc.tuple(...Array.from({ length: tables }, (_, t) => tableArb(t, groupCount))),
      })
      .chain((r) =>
        // two packets in three aimed at one of table 0's flows, so that most of them hit something
        fc
          .array(
            packetArb(
              f,
              r.flows[0]!.map((fl) => fl.aim),
            ),
            { minLength: 1, maxLength: 4 },
          )
          .map((packets) => ({
            table: { flows: r.flows.flatMap((ts) => ts.map((fl) => fl.text)).join('\n'), groups: r.groups },
            packets,
          })),
      ),
  );
}

/** A packet in ofproto/trace syntax (`tcp_src`, not `tp_src`: the trace parser wants the former). */
export function packetArb(f: FeatureSet, aims: readonly Aim[] = []): fc.Arbitrary<TracedPacket> {
  const aim: fc.Arbitrary<Aim | undefined> =
    aims.length === 0
      ? fc.constant(undefined)
      : fc.oneof({ weight: 1, arbitrary: fc.constant(undefined) }, { weight: 2, arbitrary: pick(aims) });
  return fc
    .record({
      aim,
      proto: pick(['tcp', 'udp', 'icmp'] as const),
      inPort: pick(PORTS),
      src: pick(HOSTS),
      dst: pick(HOSTS),
      sport: pick(L4_PORTS),
      dport: pick(L4_PORTS),
      ctNext: f.ct
        ? fc.array(pick(['trk,new', 'trk,est', 'trk,est,rpl', 'trk,inv']), { maxLength: 2 })
        : fc.constant([]),
    })
    .map((p) => {
      const l4 =
        p.proto === 'icmp'
          ? 'icmp_type=8,icmp_code=0'
          : `${p.proto}_src=${p.sport},${p.proto}_dst=${p.dport}`;
      const flow =
        `in_port=${p.inPort},${p.proto},dl_src=50:54:00:00:00:05,dl_dst=50:54:00:00:00:07,` +
        `nw_src=${p.src},nw_dst=${p.dst},nw_ttl=64,${l4}`;
      return p.ctNext.length > 0 ? { flow, ctNext: p.ctNext } : { flow };
    });
}

// ───────────────────────────── the property ─────────────────────────────

/** Loads `c` into both and traces every packet; the first difference, described, or undefined. */
export async function firstDifference(
  a: TraceProvider,
  b: TraceProvider,
  c: DiffCase,
): Promise<string | undefined> {
  const loaded = await Promise.allSettled([a.load(c.table), b.load(c.table)]);
  const [la, lb] = loaded.map((r) =>
    r.status === 'rejected' ? String((r.reason as Error).message ?? r.reason) : undefined,
  );
  if (la !== lb) return `loading the table: ${a.name}: ${la ?? 'accepted'}\n${b.name}: ${lb ?? 'accepted'}`;
  if (la !== undefined) return undefined; // both refused the table (with the same text): nothing to trace
  for (const p of c.packets) {
    const [x, y] = await Promise.all([a.trace(p), b.trace(p)]);
    const d = outcomeDifference(x, y);
    if (d !== undefined) {
      const ct = p.ctNext ? ` --ct-next ${p.ctNext.join(' --ct-next ')}` : '';
      return `packet ${p.flow}${ct}\n${a.name} vs ${b.name}:\n${d}`;
    }
  }
  return undefined;
}

/** The differential property: `a` and `b` agree on every generated table and packet. */
export function differentialProperty(a: TraceProvider, b: TraceProvider, f: FeatureSet) {
  return fc.asyncProperty(diffCaseArbitrary(f), async (c) => {
    const d = await firstDifference(a, b, c);
    if (d !== undefined)
      throw new Error(`${d}\n--- table ---\n${[...(c.table.groups ?? []), c.table.flows].join('\n')}`);
  });
}
