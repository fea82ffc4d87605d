/**
 * The allocation engine shared by IP pools and MAC pools (DESIGN contract 5: amortised O(1)). It
 * hands out offsets 0..count-1 of a space with a forward cursor plus a FIFO queue of released
 * offsets; the pools map offsets to addresses. Internal to src/addr.
 *
 * Order: released offsets are reused first, oldest release first; only when none is waiting does
 * the cursor advance to the next never-used offset. Invariant: every free offset below the cursor
 * sits in the queue exactly once as a live entry, so the queue plus the cursor cover every free
 * offset. A queue entry turned stale by `take()` is skipped when popped (sequence numbers tell live
 * from stale) and the queue is compacted once stale entries outnumber live ones.
 */

/** A set of offsets: the taken marks of an allocator. */
export interface Marks<T extends number | bigint> {
  has(o: T): boolean;
  add(o: T): void;
  delete(o: T): void;
  /** Every member, ascending. */
  sorted(): T[];
  clone(): Marks<T>;
}

/** Offsets below this are kept in a bitset (at most 8 MiB); beyond it, in a Set. */
const BITSET_CAP = 1 << 26;

/**
 * Number offsets: a bitset (Uint32Array, grown by doubling as offsets are marked) for the dense low
 * part of the space, where a cursor allocator works, and a Set for sparse offsets beyond BITSET_CAP.
 */
export class BitMarks implements Marks<number> {
  private words: Uint32Array;
  private far: Set<number> | undefined;

  constructor(words?: Uint32Array, far?: Set<number>) {
    this.words = words ?? new Uint32Array(32);
    this.far = far;
  }

  has(o: number): boolean {
    if (o < BITSET_CAP) {
      const w = o >>> 5;
      return w < this.words.length && ((this.words[w]! >>> (o & 31)) & 1) === 1;
    }
    return this.far !== undefined && this.far.has(o);
  }

  add(o: number): void {
    if (o < BITSET_CAP) {
      const w = o >>> 5;
      if (w >= this.words.length) {
        let n = this.words.length * 2;
        while (n <= w) n *= 2;
        const grown = new Uint32Array(Math.min(n, BITSET_CAP >>> 5));
        grown.set(this.words);
        this.words = grown;
      }
      this.words[w] = (this.words[w]! | (1 << (o & 31))) >>> 0;
      return;
    }
    (this.far ??= new Set()).add(o);
  }

  delete(o: number): void {
    if (o < BITSET_CAP) {
      const w = o >>> 5;
      if (w < this.words.length) this.words[w] = (this.words[w]! & ~(1 << (o & 31))) >>> 0;
      return;
    }
    this.far?.delete(o);
  }

  sorted(): number[] {
    const out: number[] = [];
    const words = this.words;
    for (let w = 0; w < words.length; w++) {
      let bits = words[w]!;
      while (bits !== 0) {
        const low = bits & -bits;
        out.push(w * 32 + (31 - Math.clz32(low)));
        bits = (bits ^ low) >>> 0;
      }
    }
    if (this.far) out.push(...[...this.far].sort((a, b) => a - b));
    return out;
  }

  clone(): BitMarks {
    return new BitMarks(this.words.slice(), this.far ? new Set(this.far) : undefined);
  }
}

/** Bigint offsets (IPv6 spaces): a plain Set. */
export class BigMarks implements Marks<bigint> {
  constructor(private readonly set: Set<bigint> = new Set()) {}

  has(o: bigint): boolean {
    return this.set.has(o);
  }
  add(o: bigint): void {
    this.set.add(o);
  }
  delete(o: bigint): void {
    this.set.delete(o);
  }
  sorted(): bigint[] {
    return [...this.set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }
  clone(): BigMarks {
    return new BigMarks(new Set(this.set));
  }
}

/** What an allocator needs to know about its offset type. */
export interface OffsetOps<T extends number | bigint> {
  readonly zero: T;
  inc(o: T): T;
  /** b - a as a bigint (for exact counts). */
  span(a: T, b: T): bigint;
  marks(): Marks<T>;
}

export const NUMBER_OPS: OffsetOps<number> = {
  zero: 0,
  inc: (o) => o + 1,
  span: (a, b) => BigInt(b - a),
  marks: () => new BitMarks(),
};

export const BIGINT_OPS: OffsetOps<bigint> = {
  zero: 0n,
  inc: (o) => o + 1n,
  span: (a, b) => b - a,
  marks: () => new BigMarks(),
};

/** The state a pool serialises: taken offsets (ascending), the cursor, the release queue in order. */
export interface AllocatorState<T> {
  readonly taken: T[];
  readonly cursor: T;
  readonly queue: T[];
}

/** Why `restore` refused a state; the pools turn it into HCN_E_INVALID_JSON. */
export type RestoreProblem = string;

export class CursorAllocator<T extends number | bigint> {
  private taken: Marks<T>;
  private cursor: T;
  private queue: T[] = [];
  private seqs: number[] = [];
  private head = 0;
  /** offset → sequence number of its live queue entry */
  private queued = new Map<T, number>();
  private nextSeq = 0;
  private stale = 0;
  private usedCount = 0;

  /**
   * @param count  number of offsets (0..count-1)
   * @param blocked offsets never handed out nor taken (reserved addresses), all below count
   */
  constructor(
    readonly ops: OffsetOps<T>,
    readonly count: T,
    readonly blocked: ReadonlySet<T>,
  ) {
    this.taken = ops.marks();
    this.cursor = ops.zero;
  }

  get used(): number {
    return this.usedCount;
  }

  /** Offsets that can ever be handed out: count minus blocked. */
  get capacity(): bigint {
    return this.ops.span(this.ops.zero, this.count) - BigInt(this.blocked.size);
  }

  isTaken(o: T): boolean {
    return this.taken.has(o);
  }

  /** The next offset: the oldest released one, else the first never-used one at or after the cursor. */
  alloc(): T | undefined {
    while (this.head < this.queue.length) {
      const o = this.queue[this.head]!;
      const seq = this.seqs[this.head]!;
      this.head++;
      if (this.queued.get(o) === seq) {
        this.queued.delete(o);
        this.trimHead();
        this.mark(o);
        return o;
      }
      this.stale--;
    }
    if (this.head !== 0) this.trimHead();
    while (this.cursor < this.count) {
      const o = this.cursor;
      this.cursor = this.ops.inc(o);
      if (!this.taken.has(o) && !this.blocked.has(o)) {
        this.mark(o);
        return o;
      }
    }
    return undefined;
  }

  /** Marks a specific offset (not blocked, below count) as taken; false if it already was. */
  take(o: T): boolean {
    if (this.taken.has(o)) return false;
    this.mark(o);
    if (o < this.cursor && this.queued.delete(o)) {
      this.stale++;
      this.compactIfStale();
    }
    return true;
  }

  /** Frees a taken offset; false if it was not taken. */
  free(o: T): boolean {
    if (!this.taken.has(o)) return false;
    this.taken.delete(o);
    this.usedCount--;
    if (o < this.cursor) this.enqueue(o);
    return true;
  }

  state(): AllocatorState<T> {
    const queue: T[] = [];
    for (let i = this.head; i < this.queue.length; i++) {
      const o = this.queue[i]!;
      if (this.queued.get(o) === this.seqs[i]) queue.push(o);
    }
    return { taken: this.taken.sorted(), cursor: this.cursor, queue };
  }

  /**
   * Replaces the state with `s` after checking it is one this allocator could have reached: offsets
   * in range, none blocked, no duplicates, and the queue holding exactly the free offsets below the
   * cursor (checked by counting, so the cost is O(taken + queue), not O(cursor)).
   */
  restore(s: AllocatorState<T>): RestoreProblem | undefined {
    const { zero } = this.ops;
    if (s.cursor < zero || s.cursor > this.count) return 'cursor outside the pool';
    const taken = this.ops.marks();
    let takenBelow = 0n;
    for (const o of s.taken) {
      if (o < zero || o >= this.count) return 'allocated address outside the pool';
      if (this.blocked.has(o)) return 'allocated address is reserved';
      if (taken.has(o)) return 'address allocated twice';
      taken.add(o);
      if (o < s.cursor) takenBelow++;
    }
    const seen = new Set<T>();
    for (const o of s.queue) {
      if (o < zero || o >= s.cursor) return 'released address not below the cursor';
      if (taken.has(o) || this.blocked.has(o) || seen.has(o)) return 'released address is not free';
      seen.add(o);
    }
    let blockedBelow = 0n;
    for (const o of this.blocked) if (o < s.cursor) blockedBelow++;
    const freeBelow = this.ops.span(zero, s.cursor) - takenBelow - blockedBelow;
    if (freeBelow !== BigInt(s.queue.length)) return 'released list does not match the free addresses';
    this.taken = taken;
    this.cursor = s.cursor;
    this.usedCount = s.taken.length;
    this.queue = [];
    this.seqs = [];
    this.head = 0;
    this.queued = new Map();
    this.stale = 0;
    for (const o of s.queue) this.enqueue(o);
    return undefined;
  }

  clone(): CursorAllocator<T> {
    const c = new CursorAllocator(this.ops, this.count, this.blocked);
    c.taken = this.taken.clone();
    c.cursor = this.cursor;
    c.queue = this.queue.slice(this.head);
    c.seqs = this.seqs.slice(this.head);
    c.queued = new Map(this.queued);
    c.nextSeq = this.nextSeq;
    c.stale = this.stale;
    c.usedCount = this.usedCount;
    return c;
  }

  private mark(o: T): void {
    this.taken.add(o);
    this.usedCount++;
  }

  private enqueue(o: T): void {
    const seq = this.nextSeq++;
    this.queue.push(o);
    this.seqs.push(seq);
    this.queued.set(o, seq);
  }

  /** Drops consumed entries once they are the bigger part of the arrays (amortised O(1)). */
  private trimHead(): void {
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.seqs.length = 0;
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.queue.length) {
      this.queue.splice(0, this.head);
      this.seqs.splice(0, this.head);
      this.head = 0;
    }
  }

  /** Rebuilds the queue without stale entries once they outnumber the live ones. */
  private compactIfStale(): void {
    if (this.stale < 64 || this.stale * 2 < this.queue.length - this.head) return;
    const queue: T[] = [];
    const seqs: number[] = [];
    for (let i = this.head; i < this.queue.length; i++) {
      const o = this.queue[i]!;
      const seq = this.seqs[i]!;
      if (this.queued.get(o) === seq) {
        queue.push(o);
        seqs.push(seq);
      }
    }
    this.queue = queue;
    this.seqs = seqs;
    this.head = 0;
    this.stale = 0;
  }
}

/**
 * Groups ascending values into runs of consecutive values, for compact snapshots:
 * [2,3,4,9] → [[2,4],[9,9]]. `next(a, b)` says whether b directly follows a.
 */
export function toRuns<V>(sorted: readonly V[], next: (a: V, b: V) => boolean): [V, V][] {
  const runs: [V, V][] = [];
  for (const v of sorted) {
    const last = runs[runs.length - 1];
    if (last !== undefined && next(last[1], v)) last[1] = v;
    else runs.push([v, v]);
  }
  return runs;
}
