/**
 * The packet space of an endpoint port's ACLs and its sets: which bits are which field, the packets
 * that exist (a protocol without ports has port 0 on both sides), and the faces of a set — how many
 * packets, a compact human form ("TCP to port 80, 443 from 10.244.0.0/16 except 10.244.3.7") and a
 * witness packet that `trace` can replay.
 *
 * Fields, in diagram order: protocol (8 bits), the endpoint's port, the peer's address, the peer's
 * port, the endpoint's address (32/16 bits, most significant first). "Local" is the endpoint's side
 * and "remote" the peer's in both directions (vfp-dataplane.md §2.1); an `In` packet goes from
 * remote to local, an `Out` packet from local to remote. ICMP type and code are not fields: no HNS
 * ACL can match them (§2.1).
 */
import { Bdd, FALSE, TRUE } from './bdd.js';
import { fmt, type Prefix4 } from '../vswitch/v4.js';
import type { PortRange } from '../hns/policy/fields.js';

export type FieldName = 'proto' | 'localPort' | 'remoteIp' | 'remotePort' | 'localIp';

interface Field {
  readonly first: number;
  readonly width: number;
}

export const ACL_FIELDS: Readonly<Record<FieldName, Field>> = {
  proto: { first: 0, width: 8 },
  localPort: { first: 8, width: 16 },
  remoteIp: { first: 24, width: 32 },
  remotePort: { first: 56, width: 16 },
  localIp: { first: 72, width: 32 },
};
const ORDER: readonly FieldName[] = ['proto', 'localPort', 'remoteIp', 'remotePort', 'localIp'];
const VARS = 104;

const TCP = 6;
const UDP = 17;

/** One packet of the space, as the endpoint sees it. */
export interface AclPacket {
  readonly proto: number;
  readonly localIp: number;
  readonly localPort: number;
  readonly remoteIp: number;
  readonly remotePort: number;
}

/** A packet in the words of a trace: source and destination. */
export interface WitnessPacket {
  readonly protocol: number;
  readonly srcIp: string;
  readonly srcPort: number;
  readonly dstIp: string;
  readonly dstPort: number;
}

/** TCP from 203.0.113.10:49152 to port 80 of 0.0.0.0: where a witness starts from. */
const DEFAULT_HINT: AclPacket = {
  proto: TCP,
  localIp: 0,
  localPort: 80,
  remoteIp: 0xcb00710a,
  remotePort: 49152,
};

/** A packet as one bit per variable of the space. */
function bitsOf(p: AclPacket): Uint8Array {
  const bits = new Uint8Array(VARS);
  for (const k of ORDER) {
    const f = ACL_FIELDS[k];
    const v = p[k] >>> 0;
    for (let i = 0; i < f.width; i++) bits[f.first + i] = Math.floor(v / 2 ** (f.width - 1 - i)) % 2;
  }
  return bits;
}

/** The diagram manager of one analysis and the sets of its fields. */
export class AclSpace {
  readonly bdd = new Bdd(VARS);
  /** Every packet that exists: TCP and UDP with any ports, other protocols with ports 0. */
  readonly universe: number;
  readonly #tcpUdp: number;

  constructor() {
    const b = this.bdd;
    this.#tcpUdp = b.or(this.value('proto', TCP), this.value('proto', UDP));
    const noPorts = b.and(this.value('localPort', 0), this.value('remotePort', 0));
    this.universe = b.or(this.#tcpUdp, noPorts);
  }

  value(field: FieldName, v: number): number {
    const f = ACL_FIELDS[field];
    return this.bdd.prefix(f.first, f.width, v, f.width);
  }

  /** A protocol list (empty = any). */
  protocols(list: readonly number[]): number {
    return list.length ? this.bdd.orAll(list.map((p) => this.value('proto', p))) : TRUE;
  }

  /** An address list (`null` = any; empty = none). */
  addresses(field: 'localIp' | 'remoteIp', set: readonly Prefix4[] | null): number {
    if (set === null) return TRUE;
    const f = ACL_FIELDS[field];
    return this.bdd.orAll(set.map((p) => this.bdd.prefix(f.first, f.width, p.addr >>> 0, p.len)));
  }

  /** A port list (empty = any port, of any protocol); a non-empty list matches only TCP and UDP. */
  ports(field: 'localPort' | 'remotePort', ranges: readonly PortRange[]): number {
    if (!ranges.length) return TRUE;
    const f = ACL_FIELDS[field];
    const any = this.bdd.orAll(ranges.map((r) => this.bdd.range(f.first, f.width, r.first, r.last)));
    return this.bdd.and(any, this.#tcpUdp);
  }

  /** The set of one packet. */
  packet(p: AclPacket): number {
    let u = this.universe;
    for (const k of ORDER) u = this.bdd.and(u, this.value(k, p[k] >>> 0));
    return u;
  }

  has(set: number, p: AclPacket): boolean {
    return this.bdd.has(set, bitsOf(p));
  }

  /**
   * A packet of the set, as close to `hint` as the set allows (field by field, most significant
   * bit first); undefined when the set is empty. The default hint is a plausible packet: TCP from
   * 203.0.113.10:49152 (TEST-NET-3) to port 80.
   */
  pick(set: number, hint: AclPacket = DEFAULT_HINT): AclPacket | undefined {
    const bits = this.bdd.pick(set, bitsOf(hint));
    if (!bits) return undefined;
    const read = (k: FieldName) => {
      const f = ACL_FIELDS[k];
      let v = 0;
      for (let i = 0; i < f.width; i++) v = v * 2 + bits[f.first + i]!;
      return v;
    };
    return {
      proto: read('proto'),
      localPort: read('localPort'),
      remoteIp: read('remoteIp'),
      remotePort: read('remotePort'),
      localIp: read('localIp'),
    };
  }

  /** How many packets the set holds. */
  count(set: number): bigint {
    return this.bdd.count(set);
  }

  /**
   * The set as lines of a human form, one per box of its field-by-field decomposition (at most
   * `max` lines; then a last line says how many more). `dir` words local and remote as the packet
   * goes: `In` "to port … from …", `Out` "to … port … from …".
   */
  describe(set: number, dir: 'In' | 'Out', max = 12): string[] {
    if (set === FALSE) return ['no packet'];
    const { boxes, complete } = this.boxes(set);
    const lines = boxes.slice(0, max).map((b) => renderBox(b, dir));
    if (boxes.length > max) lines.push(`… and ${complete ? '' : 'more than '}${boxes.length - max} more`);
    return lines;
  }

  /**
   * The set as disjoint boxes: per field, the intervals of its values — at most `limit` of them
   * (`complete` false when the set has more: a set that scattered reads as a list, not a form).
   */
  boxes(set: number, limit = BOX_LIMIT): { boxes: Box[]; complete: boolean } {
    const out: Box[] = [];
    const walk = (u: number, k: number, acc: Partial<Record<FieldName, Interval[]>>) => {
      if (out.length > limit) return;
      if (k === ORDER.length) {
        out.push(acc as Box);
        return;
      }
      const name = ORDER[k]!;
      for (const [target, intervals] of this.split(u, ACL_FIELDS[name]))
        walk(target, k + 1, { ...acc, [name]: intervals });
    };
    walk(set, 0, {});
    const complete = out.length <= limit;
    return { boxes: mergeBoxes(out.slice(0, limit).map(portless)), complete };
  }

  /**
   * One field's values of a set, grouped by what the set is over the later fields: target node →
   * the field's intervals leading there (ascending, adjacent ones merged).
   */
  private split(u: number, f: Field): Map<number, Interval[]> {
    const b = this.bdd;
    const end = f.first + f.width;
    const groups = new Map<number, Interval[]>();
    const add = (target: number, lo: number, hi: number) => {
      const list = groups.get(target);
      if (!list) groups.set(target, [[lo, hi]]);
      else {
        const last = list[list.length - 1]!;
        if (last[1] + 1 === lo) last[1] = hi;
        else list.push([lo, hi]);
      }
    };
    const go = (x: number, bit: number, base: number) => {
      if (x === FALSE) return;
      const v = b.varOf(x);
      const span = 2 ** (f.width - bit);
      if (v >= end) {
        add(x, base, base + span - 1);
        return;
      }
      const at = v - f.first;
      if (at > bit) {
        // a bit no node tests: both halves lead on to the same node
        go(x, bit + 1, base);
        go(x, bit + 1, base + span / 2);
        return;
      }
      go(b.lowOf(x), bit + 1, base);
      go(b.highOf(x), bit + 1, base + span / 2);
    };
    go(u, 0, 0);
    return groups;
  }

  /** A witness in a trace's words: `In` goes remote → local, `Out` local → remote. */
  witness(set: number, dir: 'In' | 'Out', hint?: AclPacket): WitnessPacket | undefined {
    const p = this.pick(set, hint);
    if (!p) return undefined;
    const local = { ip: fmt(p.localIp), port: p.localPort };
    const remote = { ip: fmt(p.remoteIp), port: p.remotePort };
    const [src, dst] = dir === 'In' ? [remote, local] : [local, remote];
    return { protocol: p.proto, srcIp: src.ip, srcPort: src.port, dstIp: dst.ip, dstPort: dst.port };
  }
}

export type Interval = [lo: number, hi: number];
export type Box = Readonly<Record<FieldName, Interval[]>>;

const ALL_PORTS: Interval[] = [[0, 65535]];

/** A box of protocols without ports: its ports (0, the only value they take) read as any. */
function portless(b: Box): Box {
  const ported = b.proto.some(([lo, hi]) => (lo <= TCP && TCP <= hi) || (lo <= UDP && UDP <= hi));
  return ported ? b : { ...b, localPort: ALL_PORTS, remotePort: ALL_PORTS };
}

function sameIntervals(a: readonly Interval[], b: readonly Interval[]): boolean {
  return a.length === b.length && a.every(([lo, hi], i) => lo === b[i]![0] && hi === b[i]![1]);
}

/** The union of two sorted, disjoint interval lists, adjacent intervals joined. */
function unionIntervals(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const all = [...a, ...b].sort((x, y) => x[0] - y[0]);
  const out: Interval[] = [];
  for (const [lo, hi] of all) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

const MERGE_MAX = 256;
/** Boxes a set's human form is worked out from, at most. */
const BOX_LIMIT = 4096;

/** Boxes that differ in one field only become one (until no two do): fewer lines, same packets. */
function mergeBoxes(boxes: Box[]): Box[] {
  // (pairwise: for the few boxes a readable set has; a set of hundreds is listed as it is)
  if (boxes.length > MERGE_MAX) return boxes;
  const list = [...boxes];
  for (let merged = true; merged;) {
    merged = false;
    for (let i = 0; i < list.length && !merged; i++)
      for (let j = i + 1; j < list.length && !merged; j++) {
        const differ = ORDER.filter((k) => !sameIntervals(list[i]![k], list[j]![k]));
        if (differ.length !== 1) continue;
        const k = differ[0]!;
        list[i] = { ...list[i]!, [k]: unionIntervals(list[i]![k], list[j]![k]) };
        list.splice(j, 1);
        merged = true;
      }
  }
  return list;
}

const PROTOCOL_NAMES: Readonly<Record<number, string>> = {
  1: 'ICMP',
  2: 'IGMP',
  6: 'TCP',
  17: 'UDP',
  58: 'ICMPv6',
};

function isAll(list: readonly Interval[], width: number): boolean {
  return list.length === 1 && list[0]![0] === 0 && list[0]![1] === 2 ** width - 1;
}

function renderProtocols(list: readonly Interval[]): string {
  if (isAll(list, 8)) return 'any protocol';
  const name = (p: number) => PROTOCOL_NAMES[p] ?? `protocol ${p}`;
  const size = list.reduce((n, [lo, hi]) => n + hi - lo + 1, 0);
  if (size > 128) {
    // most protocols: name the few that are not
    const not = complement(list, 8).flatMap(([lo, hi]) =>
      Array.from({ length: hi - lo + 1 }, (_, i) => lo + i),
    );
    return `any protocol except ${not.map(name).join(', ')}`;
  }
  return list
    .map(([lo, hi]) =>
      lo === hi ? name(lo) : hi - lo < 3 ? range(lo, hi).map(name).join(', ') : `protocols ${lo}-${hi}`,
    )
    .join(', ');
}

function range(lo: number, hi: number): number[] {
  return Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
}

function renderPorts(list: readonly Interval[]): string {
  return list.map(([lo, hi]) => (lo === hi ? `${lo}` : `${lo}-${hi}`)).join(', ');
}

/** The intervals of [0, 2^width) not in the list. */
function complement(list: readonly Interval[], width: number, lo = 0, hi = 2 ** width - 1): Interval[] {
  const out: Interval[] = [];
  let next = lo;
  for (const [a, b] of list) {
    if (b < lo || a > hi) continue;
    if (a > next) out.push([next, a - 1]);
    next = Math.max(next, b + 1);
  }
  if (next <= hi) out.push([next, hi]);
  return out;
}

/** An interval as the fewest prefixes (largest aligned blocks first). */
function prefixesOf(lo: number, hi: number): string[] {
  const out: string[] = [];
  let a = lo;
  while (a <= hi) {
    let size = 1;
    while (size < 2 ** 32 && a % (size * 2) === 0 && a + size * 2 - 1 <= hi) size *= 2;
    const len = 32 - Math.log2(size);
    out.push(len === 32 ? fmt(a) : `${fmt(a)}/${len}`);
    a += size;
  }
  return out;
}

/** An interval as text: one address, a prefix, two or three prefixes, else a range. */
function renderInterval([lo, hi]: Interval): string {
  const p = prefixesOf(lo, hi);
  return p.length <= 3 ? p.join(', ') : `${fmt(lo)}-${fmt(hi)}`;
}

/** Addresses: as they are, or as the smallest prefix holding them "except" what it holds besides. */
function renderAddresses(list: readonly Interval[]): string {
  if (isAll(list, 32)) return 'any';
  const plain = list.map(renderInterval).join(', ');
  const lo = list[0]![0];
  const hi = list[list.length - 1]![1];
  let len = 32;
  while (len > 0 && Math.floor(lo / 2 ** (32 - len)) !== Math.floor(hi / 2 ** (32 - len))) len--;
  const base = Math.floor(lo / 2 ** (32 - len)) * 2 ** (32 - len);
  const top = base + 2 ** (32 - len) - 1;
  const holes = complement(list, 32, base, top);
  if (!holes.length) return plain;
  const encl = len === 0 ? 'any' : len === 32 ? fmt(base) : `${fmt(base)}/${len}`;
  // (more than one hole in parentheses: "A except (B, C)", never read as "(A except B), C")
  const hole = holes.map(renderInterval).join(', ');
  const except = `${encl} except ${hole.includes(', ') ? `(${hole})` : hole}`;
  return except.length < plain.length ? except : plain;
}

function renderBox(b: Box, dir: 'In' | 'Out'): string {
  const proto = renderProtocols(b.proto);
  // ports exist only for TCP and UDP (elsewhere they are 0 on both sides)
  const ported = b.proto.some(([lo, hi]) => (lo <= TCP && TCP <= hi) || (lo <= UDP && UDP <= hi));
  const port = (list: Interval[]) => (ported && !isAll(list, 16) ? renderPorts(list) : undefined);
  const ip = (list: Interval[]) => (isAll(list, 32) ? undefined : renderAddresses(list));
  const lp = port(b.localPort);
  const rp = port(b.remotePort);
  const la = ip(b.localIp);
  const ra = ip(b.remoteIp);
  const parts = [proto];
  if (dir === 'In') {
    if (la) parts.push(`to ${la}`);
    if (lp) parts.push(`${la ? '' : 'to '}port ${lp}`);
    if (ra) parts.push(`from ${ra}`);
    if (rp) parts.push(`${ra ? '' : 'from '}port ${rp}`);
  } else {
    if (ra) parts.push(`to ${ra}`);
    if (rp) parts.push(`${ra ? '' : 'to '}port ${rp}`);
    if (la) parts.push(`from ${la}`);
    if (lp) parts.push(`${la ? '' : 'from '}port ${lp}`);
  }
  return parts.join(' ');
}
