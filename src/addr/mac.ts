/**
 * MAC addresses as 48-bit integers (a JS number holds them exactly) and the per-network MAC pool
 * (reference hns-hcs.md §1.1 MacPool, §3.1 Docker's default range, §6 item 5). HNS writes MACs
 * dash-separated in upper case (`00-15-5D-52-C0-00`); pools live in the Hyper-V OUI 00-15-5D.
 *
 * Our choices (docs/model.md): ranges are used in the order given, each from its start; released
 * MACs are reused first, oldest release first (same engine as IP pools, alloc.ts); ranges that
 * overlap, run backwards or contain a multicast address are HCN_E_INVALID_NETWORK.
 */
import { HEX_BYTE } from '../core/guid.js';
import { hnsError } from '../core/errors.js';
import { Reader, toJsonObject } from '../core/json.js';
import type { Rng } from '../core/rng.js';
import { CursorAllocator, NUMBER_OPS, toRuns } from './alloc.js';

/** The Hyper-V organisationally unique identifier, 00-15-5D, as a 24-bit number. */
export const HYPERV_OUI = 0x00155d;

/** 2^48 - 1, the broadcast MAC FF-FF-FF-FF-FF-FF. */
export const MAC_MAX = 0xffffffffffff;

const TWO_40 = 0x10000000000;
const TWO_24 = 0x1000000;

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

/**
 * `00-15-5D-52-C0-00` or `00:15:5d:52:c0:00`, hex case-insensitive: six two-digit groups with one
 * separator used throughout. Anything else (spaces, dots, missing digits, mixed separators) is
 * undefined.
 */
export function parseMac(s: string): number | undefined {
  if (s.length !== 17) return undefined;
  const sep = s.charCodeAt(2);
  if (sep !== 45 && sep !== 58) return undefined;
  let value = 0;
  for (let i = 0; i < 6; i++) {
    const p = i * 3;
    if (i > 0 && s.charCodeAt(p - 1) !== sep) return undefined;
    const hi = hexDigit(s.charCodeAt(p));
    const lo = hexDigit(s.charCodeAt(p + 1));
    if (hi < 0 || lo < 0) return undefined;
    value = value * 256 + hi * 16 + lo;
  }
  return value;
}

export function isValidMac(n: number): boolean {
  return Number.isInteger(n) && n >= 0 && n <= MAC_MAX;
}

/** HNS form: `00-15-5D-52-C0-00`. A number that is not a MAC is E_INVALIDARG. */
export function formatMac(n: number): string {
  if (!isValidMac(n)) throw hnsError('E_INVALIDARG', `${String(n)} is not a 48-bit MAC address`);
  const hi = Math.floor(n / 0x1000000);
  const lo = n % 0x1000000;
  return [
    HEX_BYTE[hi >>> 16],
    HEX_BYTE[(hi >>> 8) & 255],
    HEX_BYTE[hi & 255],
    HEX_BYTE[lo >>> 16],
    HEX_BYTE[(lo >>> 8) & 255],
    HEX_BYTE[lo & 255],
  ].join('-');
}

/** Individual (not group) address: the low bit of the first octet is clear. */
export function isUnicastMac(n: number): boolean {
  return isValidMac(n) && Math.floor(n / TWO_40) % 2 === 0;
}

/** Locally administered: the second-lowest bit of the first octet is set. */
export function isLocallyAdministeredMac(n: number): boolean {
  return isValidMac(n) && (Math.floor(n / TWO_40) & 2) === 2;
}

/** The OUI (first three octets) as a 24-bit number. */
export function macOui(n: number): number {
  return Math.floor(n / TWO_24);
}

/** An inclusive range of MACs (HNS MacPool `{StartMacAddress, EndMacAddress}`). */
export interface MacRange {
  readonly start: number;
  readonly end: number;
}

/**
 * A 4096-address range in the Hyper-V OUI drawn from `rng`: 00-15-5D-XX-Y0-00 … 00-15-5D-XX-YF-FF,
 * the shape of the range HNS gives a network created without MacPool (Docker's default nat network
 * had 00-15-5D-F2-00-00 … 00-15-5D-F2-0F-FF). Draws two values: XX then Y.
 */
export function defaultMacRange(rng: Rng): MacRange {
  const xx = rng.nextInt(256);
  const y = rng.nextInt(16);
  const start = HYPERV_OUI * TWO_24 + xx * 0x10000 + y * 0x1000;
  return { start, end: start + 0xfff };
}

export type MacReserveResult = 'ok' | 'taken' | 'outside';

/** Snapshot form; `allocated` holds runs of consecutive MACs ("a" or "a..b"). */
export type MacPoolJson = {
  ranges: { start: string; end: string }[];
  allocated: string[];
  next?: string;
  released: string[];
};

export class MacPool {
  readonly ranges: readonly MacRange[];
  /** offset of the first MAC of ranges[i] */
  private readonly bases: number[];
  /** indices of ranges, by ascending start */
  private readonly byStart: number[];
  private alloc: CursorAllocator<number>;

  constructor(ranges: readonly MacRange[]) {
    const copy = ranges.map((r, i) => {
      if (!isValidMac(r.start) || !isValidMac(r.end)) {
        throw hnsError('HCN_E_INVALID_NETWORK', `MacPool range ${i} is not made of MAC addresses`);
      }
      if (r.start > r.end) {
        throw hnsError(
          'HCN_E_INVALID_NETWORK',
          `MacPool range ${formatMac(r.start)}..${formatMac(r.end)} is backwards`,
        );
      }
      // Every MAC in the range shares the first octet only if start and end do; that octet must be even.
      const first = Math.floor(r.start / TWO_40);
      if (first !== Math.floor(r.end / TWO_40) || first % 2 === 1) {
        throw hnsError(
          'HCN_E_INVALID_NETWORK',
          `MacPool range ${formatMac(r.start)}..${formatMac(r.end)} has multicast MACs`,
        );
      }
      return { start: r.start, end: r.end };
    });
    this.byStart = copy.map((_, i) => i).sort((a, b) => copy[a]!.start - copy[b]!.start);
    for (let k = 1; k < this.byStart.length; k++) {
      const prev = copy[this.byStart[k - 1]!]!;
      const cur = copy[this.byStart[k]!]!;
      if (cur.start <= prev.end) {
        throw hnsError('HCN_E_INVALID_NETWORK', `MacPool ranges overlap at ${formatMac(cur.start)}`);
      }
    }
    this.ranges = copy;
    this.bases = [];
    let total = 0;
    for (const r of copy) {
      this.bases.push(total);
      total += r.end - r.start + 1;
    }
    this.alloc = new CursorAllocator(NUMBER_OPS, total, new Set());
  }

  /** MACs this pool can hand out. */
  get size(): number {
    return this.alloc.count;
  }

  get used(): number {
    return this.alloc.used;
  }

  has(mac: number): boolean {
    return this.offset(mac) !== undefined;
  }

  /** Alias of `has`. */
  contains(mac: number): boolean {
    return this.has(mac);
  }

  isAllocated(mac: number): boolean {
    const o = this.offset(mac);
    return o !== undefined && this.alloc.isTaken(o);
  }

  /** The next free MAC, or undefined when every MAC of every range is in use. */
  allocate(): number | undefined {
    const o = this.alloc.alloc();
    return o === undefined ? undefined : this.macAt(o);
  }

  /** Marks an explicit MAC (an endpoint created with MacAddress) as used. */
  reserve(mac: number): MacReserveResult {
    const o = this.offset(mac);
    if (o === undefined) return 'outside';
    return this.alloc.take(o) ? 'ok' : 'taken';
  }

  release(mac: number): boolean {
    const o = this.offset(mac);
    return o !== undefined && this.alloc.free(o);
  }

  /** Every allocated MAC, in pool order (ranges as given, ascending within a range). */
  allocated(): number[] {
    return this.alloc.state().taken.map((o) => this.macAt(o));
  }

  toJSON(): MacPoolJson {
    const st = this.alloc.state();
    const runs = toRuns(
      st.taken.map((o) => this.macAt(o)),
      (a, b) => b === a + 1,
    );
    const out: MacPoolJson = {
      ranges: this.ranges.map((r) => ({ start: formatMac(r.start), end: formatMac(r.end) })),
      allocated: runs.map(([a, b]) => (a === b ? formatMac(a) : `${formatMac(a)}..${formatMac(b)}`)),
      released: st.queue.map((o) => formatMac(this.macAt(o))),
    };
    if (st.cursor < this.alloc.count) out.next = formatMac(this.macAt(st.cursor));
    return out;
  }

  /** Restores a snapshot made by toJSON (object or JSON string); HCN_E_INVALID_JSON if malformed. */
  static fromJSON(input: unknown): MacPool {
    const r: Reader = new Reader(toJsonObject(input), 'HCN_E_INVALID_JSON', '$MacPool');
    const mac = (s: string, what: string): number => {
      const m = parseMac(s);
      if (m === undefined) r.fail(`${what} "${s}" is not a MAC address`);
      return m;
    };
    const ranges = r
      .objs('ranges')
      .map((rr) => ({ start: mac(rr.str('start'), 'start'), end: mac(rr.str('end'), 'end') }));
    let pool: MacPool;
    try {
      pool = new MacPool(ranges);
    } catch (e) {
      r.fail(e instanceof Error ? e.message : 'bad ranges');
    }
    const offset = (s: string, what: string): number => {
      const o = pool.offset(mac(s, what));
      if (o === undefined) r.fail(`${what} "${s}" is outside the pool`);
      return o;
    };
    const taken: number[] = [];
    for (const run of r.strs('allocated')) {
      const dots = run.indexOf('..');
      const lo = mac(dots < 0 ? run : run.slice(0, dots), 'allocated');
      const hi = dots < 0 ? lo : mac(run.slice(dots + 2), 'allocated');
      if (hi < lo) r.fail(`allocated run "${run}" is descending`);
      if (taken.length + (hi - lo) >= pool.size) r.fail('more MACs allocated than the pool holds');
      for (let m = lo; m <= hi; m++) {
        const o = pool.offset(m);
        if (o === undefined) r.fail(`allocated "${formatMac(m)}" is outside the pool`);
        taken.push(o);
      }
    }
    taken.sort((a, b) => a - b);
    const queue = r.strs('released').map((s) => offset(s, 'released'));
    const next = r.optStr('next');
    const cursor = next === undefined ? pool.size : offset(next, 'next');
    const problem = pool.alloc.restore({ taken, cursor, queue });
    if (problem !== undefined) r.fail(problem);
    return pool;
  }

  /** An independent copy (same state, same future allocations). */
  clone(): MacPool {
    const c = new MacPool(this.ranges);
    c.alloc = this.alloc.clone();
    return c;
  }

  /** Offset of a MAC in the pool, or undefined if no range holds it. */
  private offset(mac: number): number | undefined {
    let lo = 0;
    let hi = this.byStart.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const i = this.byStart[mid]!;
      const r = this.ranges[i]!;
      if (mac < r.start) hi = mid - 1;
      else if (mac > r.end) lo = mid + 1;
      else return this.bases[i]! + (mac - r.start);
    }
    return undefined;
  }

  private macAt(o: number): number {
    let lo = 0;
    let hi = this.bases.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.bases[mid]! <= o) lo = mid;
      else hi = mid - 1;
    }
    return this.ranges[lo]!.start + (o - this.bases[lo]!);
  }
}
