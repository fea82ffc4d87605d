/**
 * Connection tracking per zone, as the ct action sees it (ovs-actions(7) "ct", lib/meta-flow.xml
 * ct_state): a committed connection is keyed by its original and reply 5-tuples; a packet in the
 * reply direction is +est+rpl and makes the connection established; NAT set on commit rewrites
 * later packets of either direction (replies are un-NATed). IPv4 TCP/UDP/ICMP. Reference §4.
 * Connections, not TCP states: sequence numbers and flags are not tracked.
 */
import { CS, ETH_TYPE, type Flow, IPPROTO, W } from './fields.js';
import type { Nat } from './actions.js';

export interface Tuple {
  readonly src: number;
  readonly dst: number;
  readonly proto: number;
  readonly sport: number;
  readonly dport: number;
}

export interface Connection {
  readonly zone: number;
  readonly orig: Tuple;
  /** The tuple replies carry (source = the translated destination, and so on). */
  readonly reply: Tuple;
  mark: number;
  /** ct_label as 4 big-endian words. */
  readonly label: Uint32Array;
  seenReply: boolean;
  /** CS.SRC_NAT / CS.DST_NAT bits of the mapping. */
  readonly natBits: number;
  readonly createdMs: number;
  lastMs: number;
}

const keyOf = (zone: number, t: Tuple): string =>
  `${zone}|${t.proto}|${t.src}|${t.sport}|${t.dst}|${t.dport}`;
const reverse = (t: Tuple): Tuple => ({
  src: t.dst,
  dst: t.src,
  proto: t.proto,
  sport: t.dport,
  dport: t.sport,
});

/** The 5-tuple of a packet (ICMP: id and type as ports, as OVS's conntrack keys them: simplified to type/code). */
export function tupleOf(flow: Flow): Tuple | undefined {
  if (flow[W.DL_TYPE] !== ETH_TYPE.IP) return undefined;
  const proto = flow[W.NW_PROTO]!;
  const ports = proto === IPPROTO.TCP || proto === IPPROTO.UDP || proto === IPPROTO.SCTP;
  return {
    src: flow[W.NW_SRC]!,
    dst: flow[W.NW_DST]!,
    proto,
    sport: ports ? flow[W.TP_SRC]! : 0,
    dport: ports ? flow[W.TP_DST]! : 0,
  };
}

/** The result of a ct action on one packet. */
export interface CtResult {
  readonly state: number;
  readonly conn: Connection | undefined;
  /** Header rewrites NAT applied (undefined fields unchanged). */
  readonly rewrite: { nwSrc?: number; nwDst?: number; tpSrc?: number; tpDst?: number } | undefined;
}

export interface CtRequest {
  readonly zone: number;
  readonly commit: boolean;
  readonly force: boolean;
  readonly nat: Nat | undefined;
  /** ct_mark/ct_label writes of exec(), applied to the connection on commit. */
  readonly setMark?: { value: number; mask: number };
  readonly setLabel?: { value: Uint32Array; mask: Uint32Array };
}

export class Conntrack {
  private readonly table = new Map<string, { conn: Connection; reply: boolean }>();

  get size(): number {
    return this.table.size / 2;
  }

  connections(): Connection[] {
    const out = new Set<Connection>();
    for (const e of this.table.values()) out.add(e.conn);
    return [...out];
  }

  flush(zone?: number): void {
    for (const [k, e] of this.table) if (zone === undefined || e.conn.zone === zone) this.table.delete(k);
  }

  /** Removes connections idle for longer than `idleMs`. */
  expire(nowMs: number, idleMs: number): void {
    for (const [k, e] of this.table) if (nowMs - e.conn.lastMs > idleMs) this.table.delete(k);
  }

  private inUse(zone: number, t: Tuple): boolean {
    return this.table.has(keyOf(zone, t));
  }

  /** Picks the NAT mapping of a new connection: the lowest address and port of the range not in use. */
  private allocate(zone: number, orig: Tuple, nat: Nat): Tuple | undefined {
    const ipMax = nat.ipMax || nat.ipMin;
    const pMin = nat.portMin;
    const pMax = nat.portMax || nat.portMin;
    const hasPorts = orig.proto === IPPROTO.TCP || orig.proto === IPPROTO.UDP || orig.proto === IPPROTO.SCTP;
    for (let ip = nat.ipMin; ip <= ipMax; ip++) {
      const ports: number[] = [];
      if (!hasPorts || !pMin) ports.push(nat.src ? orig.sport : orig.dport);
      else {
        const own = nat.src ? orig.sport : orig.dport;
        if (own >= pMin && own <= pMax) ports.push(own);
        for (let p = pMin; p <= pMax; p++) if (p !== own) ports.push(p);
      }
      for (const p of ports) {
        const translated: Tuple = nat.src
          ? { ...orig, src: ip >>> 0, sport: p }
          : { ...orig, dst: ip >>> 0, dport: p };
        const reply = reverse(translated);
        if (!this.inUse(zone, reply)) return reply;
      }
    }
    return undefined;
  }

  /** Runs ct on a packet: looks it up, NATs it, commits it. `nowMs` stamps the connection. */
  execute(flow: Flow, req: CtRequest, nowMs: number): CtResult {
    const t = tupleOf(flow);
    if (!t) return { state: CS.TRACKED | CS.INVALID, conn: undefined, rewrite: undefined };
    let hit = this.table.get(keyOf(req.zone, t));
    if (hit && req.force && hit.reply && req.commit) {
      this.table.delete(keyOf(hit.conn.zone, hit.conn.orig));
      this.table.delete(keyOf(hit.conn.zone, hit.conn.reply));
      hit = undefined;
    }
    let state = CS.TRACKED;
    let conn = hit?.conn;
    let replyDir = hit?.reply ?? false;
    if (conn) {
      conn.lastMs = nowMs;
      if (replyDir) {
        conn.seenReply = true;
        state |= CS.ESTABLISHED | CS.REPLY_DIR;
      } else state |= conn.seenReply ? CS.ESTABLISHED : CS.NEW;
    } else {
      state |= CS.NEW;
      if (req.commit) {
        let reply = reverse(t);
        let natBits = 0;
        if (req.nat && (req.nat.src || req.nat.dst) && req.nat.ipMin) {
          const r = this.allocate(req.zone, t, req.nat);
          // no free mapping: the packet goes on untranslated and uncommitted, still +new
          // (observed: ovs-vswitchd 3.1's userspace conntrack through the differential peer)
          if (!r) return { state: CS.TRACKED | CS.NEW, conn: undefined, rewrite: undefined };
          reply = r;
          natBits = req.nat.src ? CS.SRC_NAT : CS.DST_NAT;
        }
        conn = {
          zone: req.zone,
          orig: t,
          reply,
          mark: 0,
          label: new Uint32Array(4),
          seenReply: false,
          natBits,
          createdMs: nowMs,
          lastMs: nowMs,
        };
        this.table.set(keyOf(req.zone, t), { conn, reply: false });
        this.table.set(keyOf(req.zone, reply), { conn, reply: true });
        replyDir = false;
      }
    }
    if (conn && req.commit) {
      if (req.setMark)
        conn.mark = ((conn.mark & ~req.setMark.mask) | (req.setMark.value & req.setMark.mask)) >>> 0;
      if (req.setLabel)
        for (let i = 0; i < 4; i++)
          conn.label[i] =
            ((conn.label[i]! & ~req.setLabel.mask[i]!) | (req.setLabel.value[i]! & req.setLabel.mask[i]!)) >>>
            0;
    }
    let rewrite: CtResult['rewrite'];
    if (conn && req.nat && conn.natBits) {
      // a reply is rewritten the other way: un-DNAT changes its source (ovs_ct_update_key)
      state |= replyDir ? (conn.natBits === CS.SRC_NAT ? CS.DST_NAT : CS.SRC_NAT) : conn.natBits;
      // the packet takes the addresses of the other direction's tuple, reversed
      const want = replyDir ? reverse(conn.orig) : reverse(conn.reply);
      rewrite = {};
      if (want.src !== t.src) rewrite.nwSrc = want.src;
      if (want.dst !== t.dst) rewrite.nwDst = want.dst;
      if (want.sport !== t.sport) rewrite.tpSrc = want.sport;
      if (want.dport !== t.dport) rewrite.tpDst = want.dport;
    }
    return { state, conn, rewrite };
  }
}
