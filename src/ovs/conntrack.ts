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

/** The connection a packet's previous ct found or made (the datapath's packet metadata), and its direction. */
export interface CachedConn {
  readonly conn: Connection;
  readonly reply: boolean;
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

type Entry = { conn: Connection; reply: boolean };

/**
 * The connection table of a bridge, or a scratch overlay of one (`child()`): an overlay reads
 * through to its parent, copies a connection before changing it, and changes the parent only when
 * committed (`commit`) — how a dataplane trace runs a real packet without leaving state behind.
 */
export class Conntrack {
  private readonly table = new Map<string, Entry>();
  /** Keys an overlay deleted from its parent's view (a forced re-commit). */
  private readonly gone = new Set<string>();
  /** Moves with every change of the table (a trace cache's key). */
  changes = 0;

  constructor(private readonly parent?: Conntrack) {}

  /** A scratch overlay: reads this table, writes only itself until `commit`. */
  child(): Conntrack {
    return new Conntrack(this);
  }

  /** Apply an overlay's changes to this table (its parent). */
  commit(overlay: Conntrack): void {
    if (overlay.parent !== this) throw new Error('conntrack: not an overlay of this table');
    if (!overlay.table.size && !overlay.gone.size) return;
    for (const k of overlay.gone) this.table.delete(k);
    for (const [k, e] of overlay.table) this.table.set(k, e);
    this.changes++;
  }

  private lookup(k: string): Entry | undefined {
    const own = this.table.get(k);
    if (own || !this.parent || this.gone.has(k)) return own;
    const e = this.parent.lookup(k);
    if (!e) return undefined;
    // copy-on-read: both directions of the parent's connection become this overlay's own
    const c = e.conn;
    const copy: Connection = { ...c, label: Uint32Array.from(c.label) };
    this.table.set(keyOf(c.zone, c.orig), { conn: copy, reply: false });
    this.table.set(keyOf(c.zone, c.reply), { conn: copy, reply: true });
    return this.table.get(k);
  }

  private remove(k: string): void {
    this.table.delete(k);
    if (this.parent) this.gone.add(k);
    this.changes++;
  }

  private entries(): Map<string, Entry> {
    if (!this.parent) return this.table;
    const all = new Map(this.parent.entries());
    for (const k of this.gone) all.delete(k);
    for (const [k, e] of this.table) all.set(k, e);
    return all;
  }

  get size(): number {
    return this.entries().size / 2;
  }

  connections(): Connection[] {
    const out = new Set<Connection>();
    for (const e of this.entries().values()) out.add(e.conn);
    return [...out];
  }

  flush(zone?: number): void {
    for (const [k, e] of this.entries()) if (zone === undefined || e.conn.zone === zone) this.remove(k);
  }

  /** Removes connections idle for longer than `idleMs`. */
  expire(nowMs: number, idleMs: number): void {
    for (const [k, e] of this.entries()) if (nowMs - e.conn.lastMs > idleMs) this.remove(k);
  }

  private inUse(zone: number, t: Tuple): boolean {
    return this.lookup(keyOf(zone, t)) !== undefined;
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

  /**
   * Runs ct on a packet: looks it up, NATs it, commits it. `nowMs` stamps the connection. `cached`:
   * the connection the packet's previous ct in this translation found or made — in the same zone
   * (and without `force`) it is the packet's connection whatever its addresses now are (NAT
   * rewrote them), as the datapath's cached `md.conn` / `skb->_nfct` is: a second `ct(commit)`
   * after a DNAT commits the same connection, not a new one for the translated tuple.
   */
  execute(flow: Flow, req: CtRequest, nowMs: number, cached?: CachedConn): CtResult {
    const t = tupleOf(flow);
    if (!t) return { state: CS.TRACKED | CS.INVALID, conn: undefined, rewrite: undefined };
    let hit =
      cached && cached.conn.zone === req.zone && !req.force
        ? (this.lookup(keyOf(req.zone, cached.reply ? cached.conn.reply : cached.conn.orig)) ?? undefined)
        : this.lookup(keyOf(req.zone, t));
    if (hit && req.force && hit.reply && req.commit) {
      this.remove(keyOf(hit.conn.zone, hit.conn.orig));
      this.remove(keyOf(hit.conn.zone, hit.conn.reply));
      hit = undefined;
    }
    let state = CS.TRACKED;
    let conn = hit?.conn;
    let replyDir = hit?.reply ?? false;
    if (conn) {
      conn.lastMs = nowMs;
      if (replyDir) {
        if (!conn.seenReply) this.changes++;
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
        this.changes++;
        replyDir = false;
      }
    }
    if (conn && req.commit) {
      if (req.setMark || req.setLabel) this.changes++;
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
