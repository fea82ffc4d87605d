/**
 * Static IPAM for one subnet (reference hns-hcs.md §6 item 4): endpoints created without
 * IpConfigurations get the next free address; the network address, the IPv4 broadcast address and
 * the reserved addresses (the gateway unless DoNotReserveGatewayAddress — the caller decides) are
 * never handed out. Amortised O(1) per allocate/release (allocation engine in alloc.ts).
 *
 * Our choices where Windows is silent (docs/model.md):
 * - order: a fresh pool hands out addresses in ascending order; released addresses are reused
 *   before the cursor advances, the one released longest ago first (FIFO);
 * - IPv4 /31 and IPv6 /127: both addresses usable (point-to-point, RFC 3021 / RFC 6164);
 *   IPv4 /32 and IPv6 /128: the single address is usable (cf. HNS Slash32EndpointPrefixes);
 * - IPv6 has no broadcast: only the network (subnet-router anycast) address is excluded;
 * - reserved addresses outside the prefix are ignored (and not kept in snapshots).
 *
 *   const pool = new IpPool(parsePrefix('192.168.100.0/24')!, { reserved: [parseIp('192.168.100.1')!] });
 *   pool.allocate(); // 192.168.100.2
 */
import { hnsError } from '../core/errors.js';
import { toJsonObject, Reader } from '../core/json.js';
import { BIGINT_OPS, CursorAllocator, NUMBER_OPS, toRuns, type AllocatorState } from './alloc.js';
import {
  formatIp,
  formatPrefix,
  parseIp,
  parsePrefix,
  prefixContains,
  prefixLast,
  type IpAddr,
  type Prefix,
} from './ip.js';

export type ReserveResult = 'ok' | 'taken' | 'reserved' | 'outside';

export interface IpPoolOptions {
  /** Addresses never handed out (typically the gateway). */
  readonly reserved?: readonly IpAddr[];
}

/**
 * The snapshot form: `allocated` lists runs of consecutive addresses ("a" or "a..b", ascending),
 * `next` is where the cursor stands (absent once it has passed the last address), `released` the
 * addresses waiting for reuse, in reuse order.
 */
export type IpPoolJson = {
  prefix: string;
  reserved: string[];
  allocated: string[];
  next?: string;
  released: string[];
};

/** Upper bound on addresses a snapshot may allocate, so a hostile run cannot hang `fromJSON`. */
const MAX_SNAPSHOT_ADDRESSES = 1 << 27;

/** Family-specific view of the pool: offsets 0..count-1 map to first..first+count-1. */
type Space =
  | { readonly family: 4; readonly first: number; readonly alloc: CursorAllocator<number> }
  | { readonly family: 6; readonly first: bigint; readonly alloc: CursorAllocator<bigint> };

export class IpPool {
  readonly prefix: Prefix;
  /** The reserved addresses inside the prefix, deduplicated, in the order given. */
  readonly reserved: readonly IpAddr[];
  private space: Space;

  constructor(prefix: Prefix, opts: IpPoolOptions = {}) {
    checkPrefix(prefix);
    this.prefix =
      prefix.family === 4
        ? { family: 4, addr: prefix.addr, len: prefix.len }
        : { family: 6, addr: prefix.addr, len: prefix.len };
    const reserved: IpAddr[] = [];
    for (const a of opts.reserved ?? []) {
      if (prefixContains(prefix, a) && !reserved.some((r) => r.value === a.value)) reserved.push(a);
    }
    this.reserved = reserved;
    if (prefix.family === 4) {
      const ends = prefix.len >= 31;
      const first = ends ? prefix.addr : prefix.addr + 1;
      const last = (prefixLast(prefix).value as number) - (ends ? 0 : 1);
      const blocked = new Set<number>();
      for (const r of reserved) {
        const o = (r.value as number) - first;
        if (o >= 0 && r.value <= last) blocked.add(o);
      }
      this.space = { family: 4, first, alloc: new CursorAllocator(NUMBER_OPS, last - first + 1, blocked) };
    } else {
      const first = prefix.len >= 127 ? prefix.addr : prefix.addr + 1n;
      const last = prefixLast(prefix).value as bigint;
      const blocked = new Set<bigint>();
      for (const r of reserved) {
        const o = (r.value as bigint) - first;
        if (o >= 0n) blocked.add(o);
      }
      this.space = { family: 6, first, alloc: new CursorAllocator(BIGINT_OPS, last - first + 1n, blocked) };
    }
  }

  get family(): 4 | 6 {
    return this.prefix.family;
  }

  /** Addresses this pool can ever hand out (exact). */
  get capacity(): bigint {
    return this.space.alloc.capacity;
  }

  /** `capacity` as a number: exact up to 2^53, rounded beyond (an IPv6 /64 holds 2^64 - 1). */
  get size(): number {
    return Number(this.space.alloc.capacity);
  }

  /** Addresses currently allocated (by allocate() or reserve()). */
  get used(): number {
    return this.space.alloc.used;
  }

  /** Whether the address lies in the prefix. */
  has(a: IpAddr): boolean {
    return prefixContains(this.prefix, a);
  }

  /** Alias of `has`. */
  contains(a: IpAddr): boolean {
    return prefixContains(this.prefix, a);
  }

  /** Whether the address is in the prefix but never allocatable (network, broadcast, reserved). */
  isReserved(a: IpAddr): boolean {
    if (!this.has(a)) return false;
    const o = this.offset(a);
    return o === undefined || this.blockedHas(o);
  }

  isAllocated(a: IpAddr): boolean {
    const o = this.has(a) ? this.offset(a) : undefined;
    return o !== undefined && this.takenHas(o);
  }

  /** The next free address (see the order above), or undefined when the pool is exhausted. */
  allocate(): IpAddr | undefined {
    const s = this.space;
    if (s.family === 4) {
      const o = s.alloc.alloc();
      return o === undefined ? undefined : { family: 4, value: s.first + o };
    }
    const o = s.alloc.alloc();
    return o === undefined ? undefined : { family: 6, value: s.first + o };
  }

  /** Marks an explicit address as allocated (an endpoint created with IpConfigurations). */
  reserve(a: IpAddr): ReserveResult {
    if (!this.has(a)) return 'outside';
    const o = this.offset(a);
    if (o === undefined || this.blockedHas(o)) return 'reserved';
    const s = this.space;
    const ok = s.family === 4 ? s.alloc.take(o as number) : s.alloc.take(o as bigint);
    return ok ? 'ok' : 'taken';
  }

  /** Frees an allocated address; false if it was not allocated (or is reserved, or outside). */
  release(a: IpAddr): boolean {
    const o = this.has(a) ? this.offset(a) : undefined;
    if (o === undefined || this.blockedHas(o)) return false;
    const s = this.space;
    return s.family === 4 ? s.alloc.free(o as number) : s.alloc.free(o as bigint);
  }

  /** Every allocated address, ascending. */
  allocated(): IpAddr[] {
    const s = this.space;
    if (s.family === 4) return s.alloc.state().taken.map((o) => ({ family: 4, value: s.first + o }));
    return s.alloc.state().taken.map((o) => ({ family: 6, value: s.first + o }));
  }

  toJSON(): IpPoolJson {
    const s = this.space;
    const st: AllocatorState<number | bigint> = s.alloc.state();
    const count = s.alloc.count;
    const addr = (o: number | bigint): string => this.format(o);
    const runs = toRuns<number | bigint>(st.taken, (a, b) =>
      typeof a === 'number' ? b === a + 1 : b === (a as bigint) + 1n,
    );
    const out: IpPoolJson = {
      prefix: formatPrefix(this.prefix),
      reserved: this.reserved.map(formatIp),
      allocated: runs.map(([a, b]) => (a === b ? addr(a) : `${addr(a)}..${addr(b)}`)),
      released: st.queue.map(addr),
    };
    if (st.cursor < count) out.next = addr(st.cursor);
    return out;
  }

  /** Restores a snapshot made by toJSON (object or JSON string); HCN_E_INVALID_JSON if malformed. */
  static fromJSON(input: unknown): IpPool {
    const r: Reader = new Reader(toJsonObject(input), 'HCN_E_INVALID_JSON', '$IpPool');
    const prefixStr = r.str('prefix');
    const prefix = parsePrefix(prefixStr, true);
    if (!prefix) r.fail(`prefix "${prefixStr}" is not a CIDR prefix`);
    const addr = (s: string, what: string): IpAddr => {
      const a = parseIp(s);
      if (!a || a.family !== prefix.family) r.fail(`${what} "${s}" is not an IPv${prefix.family} address`);
      return a;
    };
    const pool = new IpPool(prefix, { reserved: r.strs('reserved').map((s) => addr(s, 'reserved')) });
    const offset = (s: string, what: string): number | bigint => {
      const a = addr(s, what);
      const o = pool.has(a) ? pool.offset(a) : undefined;
      if (o === undefined) r.fail(`${what} "${s}" is not an allocatable address of ${prefixStr}`);
      return o;
    };
    const taken: (number | bigint)[] = [];
    for (const run of r.strs('allocated')) {
      const dots = run.indexOf('..');
      const lo = offset(dots < 0 ? run : run.slice(0, dots), 'allocated');
      const hi = dots < 0 ? lo : offset(run.slice(dots + 2), 'allocated');
      if (hi < lo) r.fail(`allocated run "${run}" is descending`);
      if (BigInt(taken.length) + BigInt(hi) - BigInt(lo) >= MAX_SNAPSHOT_ADDRESSES)
        r.fail('too many addresses');
      if (typeof lo === 'number') for (let o = lo; o <= (hi as number); o++) taken.push(o);
      else for (let o = lo; o <= (hi as bigint); o++) taken.push(o);
    }
    const queue = r.strs('released').map((s) => offset(s, 'released'));
    const next = r.optStr('next');
    const cursor = next === undefined ? pool.space.alloc.count : offset(next, 'next');
    const problem =
      pool.space.family === 4
        ? pool.space.alloc.restore({
            taken: taken as number[],
            cursor: cursor as number,
            queue: queue as number[],
          })
        : pool.space.alloc.restore({
            taken: taken as bigint[],
            cursor: cursor as bigint,
            queue: queue as bigint[],
          });
    if (problem !== undefined) r.fail(problem);
    return pool;
  }

  /** An independent copy (same state, same future allocations). */
  clone(): IpPool {
    const c = new IpPool(this.prefix, { reserved: this.reserved });
    const s = this.space;
    c.space =
      s.family === 4
        ? { family: 4, first: s.first, alloc: s.alloc.clone() }
        : { family: 6, first: s.first, alloc: s.alloc.clone() };
    return c;
  }

  /** Offset of an address of the prefix in the allocatable range, or undefined (network/broadcast). */
  private offset(a: IpAddr): number | bigint | undefined {
    const s = this.space;
    if (s.family === 4) {
      const o = (a.value as number) - s.first;
      return o >= 0 && o < s.alloc.count ? o : undefined;
    }
    const o = (a.value as bigint) - s.first;
    return o >= 0n && o < s.alloc.count ? o : undefined;
  }

  private blockedHas(o: number | bigint): boolean {
    const s = this.space;
    return s.family === 4 ? s.alloc.blocked.has(o as number) : s.alloc.blocked.has(o as bigint);
  }

  private takenHas(o: number | bigint): boolean {
    const s = this.space;
    return s.family === 4 ? s.alloc.isTaken(o as number) : s.alloc.isTaken(o as bigint);
  }

  private format(o: number | bigint): string {
    const s = this.space;
    return s.family === 4
      ? formatIp({ family: 4, value: s.first + (o as number) })
      : formatIp({ family: 6, value: s.first + (o as bigint) });
  }
}

/** A pool needs a normalised prefix (host bits zero); anything else is HCN_E_INVALID_PREFIX. */
function checkPrefix(p: Prefix): void {
  const max = p.family === 4 ? 32 : 128;
  if (!Number.isInteger(p.len) || p.len < 0 || p.len > max) {
    throw hnsError('HCN_E_INVALID_PREFIX', `prefix length ${String(p.len)}`);
  }
  if (
    p.family === 4
      ? !Number.isInteger(p.addr) || p.addr < 0 || p.addr > 0xffffffff
      : p.addr < 0n || p.addr >> 128n !== 0n
  ) {
    throw hnsError('HCN_E_INVALID_PREFIX', 'address out of range');
  }
  const a: IpAddr = p.family === 4 ? { family: 4, value: p.addr } : { family: 6, value: p.addr };
  if (!prefixContains(p, a))
    throw hnsError('HCN_E_INVALID_PREFIX', `${formatIp(a)}/${p.len} has host bits set`);
}
