/**
 * Reduced ordered binary decision diagrams: the packet sets of the analysis (docs/analysis.md says
 * why BDDs and not interval cubes). A set over `vars` bits is a node index; 0 is the empty set, 1
 * the whole space. Nodes live in typed arrays (variable, low child, high child) and are never freed:
 * a `Bdd` serves one analysis and is dropped with it. Hash-consing (the unique table) makes equal
 * sets the same index, so emptiness and equality are integer comparisons; `and`, `or` and `diff`
 * memoize in a lossy computed table, as BDD packages do (a miss costs time, never correctness).
 *
 * Variable 0 is the top of every diagram; a field's most significant bit comes first, so the
 * values of a prefix or of a range are a handful of nodes.
 */

/** The empty set and the whole space. */
export const FALSE = 0;
export const TRUE = 1;

const OP_AND = 1;
const OP_OR = 2;
const OP_DIFF = 3;
const OP_MEET = 4;

export class Bdd {
  /** Per node: its variable (terminals: `vars`), its 0-child and 1-child. */
  #v: Int32Array;
  #lo: Int32Array;
  #hi: Int32Array;
  #n = 2;
  /** Open-addressed unique table: node index + 1, 0 = free. */
  #unique: Int32Array;
  /** Computed table, 4 words an entry: op, a, b, result (lossy, direct-mapped). */
  #cache: Int32Array;
  readonly #cacheMask: number;

  constructor(
    readonly vars: number,
    /** Nodes allowed before an operation throws (a set too complex to analyse exactly). */
    readonly maxNodes = 1 << 24,
  ) {
    const size = 1 << 12;
    this.#v = new Int32Array(size);
    this.#lo = new Int32Array(size);
    this.#hi = new Int32Array(size);
    this.#v[0] = vars;
    this.#v[1] = vars;
    this.#hi[1] = 1;
    this.#lo[1] = 1;
    this.#unique = new Int32Array(size * 2);
    const cacheEntries = 1 << 16;
    this.#cache = new Int32Array(cacheEntries * 4);
    this.#cacheMask = cacheEntries - 1;
  }

  /** How many nodes exist (both terminals included). */
  get size(): number {
    return this.#n;
  }

  /** The node's variable (`vars` for a terminal). */
  varOf(u: number): number {
    return this.#v[u]!;
  }
  lowOf(u: number): number {
    return this.#lo[u]!;
  }
  highOf(u: number): number {
    return this.#hi[u]!;
  }

  /** The node (v ? hi : lo), reduced and shared. */
  mk(v: number, lo: number, hi: number): number {
    if (lo === hi) return lo;
    const table = this.#unique;
    const mask = table.length - 1;
    let h = hash3(v, lo, hi) & mask;
    for (;;) {
      const e = table[h]!;
      if (e === 0) break;
      const u = e - 1;
      if (this.#v[u] === v && this.#lo[u] === lo && this.#hi[u] === hi) return u;
      h = (h + 1) & mask;
    }
    const u = this.#n;
    if (u >= this.maxNodes) throw new RangeError(`the packet sets need more than ${this.maxNodes} BDD nodes`);
    if (u === this.#v.length) this.grow();
    this.#v[u] = v;
    this.#lo[u] = lo;
    this.#hi[u] = hi;
    this.#n++;
    if (this.#n * 2 > this.#unique.length) this.rehash();
    else this.#unique[h] = u + 1;
    return u;
  }

  private grow(): void {
    const size = this.#v.length * 2;
    const copy = (a: Int32Array) => {
      const b = new Int32Array(size);
      b.set(a);
      return b;
    };
    this.#v = copy(this.#v);
    this.#lo = copy(this.#lo);
    this.#hi = copy(this.#hi);
  }

  /** A unique table twice the size, every node (the new one included) entered again. */
  private rehash(): void {
    const table = new Int32Array(this.#unique.length * 2);
    const mask = table.length - 1;
    for (let u = 2; u < this.#n; u++) {
      let h = hash3(this.#v[u]!, this.#lo[u]!, this.#hi[u]!) & mask;
      while (table[h] !== 0) h = (h + 1) & mask;
      table[h] = u + 1;
    }
    this.#unique = table;
  }

  and(a: number, b: number): number {
    if (a === FALSE || b === FALSE) return FALSE;
    if (a === TRUE || a === b) return b;
    if (b === TRUE) return a;
    if (a > b) [a, b] = [b, a];
    return this.apply(OP_AND, a, b);
  }

  or(a: number, b: number): number {
    if (a === TRUE || b === TRUE) return TRUE;
    if (a === FALSE || a === b) return b;
    if (b === FALSE) return a;
    if (a > b) [a, b] = [b, a];
    return this.apply(OP_OR, a, b);
  }

  /** a ∖ b. */
  diff(a: number, b: number): number {
    if (a === FALSE || b === TRUE || a === b) return FALSE;
    if (b === FALSE) return a;
    return this.apply(OP_DIFF, a, b);
  }

  not(a: number): number {
    return this.diff(TRUE, a);
  }

  /** Whether the two sets share a point (without building their intersection). */
  intersects(a: number, b: number): boolean {
    // (a node other than FALSE holds a point: every path of a reduced diagram leads somewhere)
    if (a === FALSE || b === FALSE) return false;
    if (a === TRUE || b === TRUE || a === b) return true;
    if (a > b) [a, b] = [b, a];
    const c = this.#cache;
    const slot = (hash3(OP_MEET, a, b) & this.#cacheMask) * 4;
    if (c[slot] === OP_MEET && c[slot + 1] === a && c[slot + 2] === b) return c[slot + 3] === 1;
    const va = this.#v[a]!;
    const vb = this.#v[b]!;
    const v = va < vb ? va : vb;
    const r =
      this.intersects(va === v ? this.#lo[a]! : a, vb === v ? this.#lo[b]! : b) ||
      this.intersects(va === v ? this.#hi[a]! : a, vb === v ? this.#hi[b]! : b);
    c[slot] = OP_MEET;
    c[slot + 1] = a;
    c[slot + 2] = b;
    c[slot + 3] = r ? 1 : 0;
    return r;
  }

  private apply(op: number, a: number, b: number): number {
    const c = this.#cache;
    const slot = (hash3(op, a, b) & this.#cacheMask) * 4;
    if (c[slot] === op && c[slot + 1] === a && c[slot + 2] === b) return c[slot + 3]!;
    const va = this.#v[a]!;
    const vb = this.#v[b]!;
    const v = va < vb ? va : vb;
    const a0 = va === v ? this.#lo[a]! : a;
    const a1 = va === v ? this.#hi[a]! : a;
    const b0 = vb === v ? this.#lo[b]! : b;
    const b1 = vb === v ? this.#hi[b]! : b;
    const r =
      op === OP_AND
        ? this.mk(v, this.and(a0, b0), this.and(a1, b1))
        : op === OP_OR
          ? this.mk(v, this.or(a0, b0), this.or(a1, b1))
          : this.mk(v, this.diff(a0, b0), this.diff(a1, b1));
    c[slot] = op;
    c[slot + 1] = a;
    c[slot + 2] = b;
    c[slot + 3] = r;
    return r;
  }

  /** The union of many sets (pairwise, so that the intermediate sets stay small). */
  orAll(sets: readonly number[]): number {
    let level = [...sets];
    if (level.length === 0) return FALSE;
    while (level.length > 1) {
      const next: number[] = [];
      for (let i = 0; i < level.length; i += 2)
        next.push(i + 1 < level.length ? this.or(level[i]!, level[i + 1]!) : level[i]!);
      level = next;
    }
    return level[0]!;
  }

  /**
   * The values of the `width` bits from variable `first` (most significant first) in [lo, hi], as
   * a set over those bits only (every other variable free).
   */
  range(first: number, width: number, lo: number, hi: number): number {
    if (lo > hi) return FALSE;
    const max = width === 32 ? 0xffffffff : 2 ** width - 1;
    return this.rangeAt(first, width, 0, max, lo, hi);
  }

  /** Values in [lo, hi] ∩ [base, base + 2^bits - 1], deciding the bit at `first + width - bits`. */
  private rangeAt(first: number, width: number, base: number, top: number, lo: number, hi: number): number {
    if (lo <= base && top <= hi) return TRUE;
    if (hi < base || top < lo) return FALSE;
    const half = (top - base + 1) / 2;
    const v = first + width - Math.log2(top - base + 1);
    return this.mk(
      v,
      this.rangeAt(first, width, base, base + half - 1, lo, hi),
      this.rangeAt(first, width, base + half, top, lo, hi),
    );
  }

  /** The values of a `width`-bit field whose top `len` bits are those of `value` (a prefix). */
  prefix(first: number, width: number, value: number, len: number): number {
    let u = TRUE;
    for (let i = len - 1; i >= 0; i--) {
      const bit = Math.floor(value / 2 ** (width - 1 - i)) % 2;
      u = bit ? this.mk(first + i, FALSE, u) : this.mk(first + i, u, FALSE);
    }
    return u;
  }

  /** How many points of the space the set holds. */
  count(u: number): bigint {
    const memo = new Map<number, bigint>();
    const go = (x: number): bigint => {
      if (x === FALSE) return 0n;
      if (x === TRUE) return 1n;
      const m = memo.get(x);
      if (m !== undefined) return m;
      const v = this.#v[x]!;
      const lo = this.#lo[x]!;
      const hi = this.#hi[x]!;
      const r = (go(lo) << BigInt(this.#v[lo]! - v - 1)) + (go(hi) << BigInt(this.#v[hi]! - v - 1));
      memo.set(x, r);
      return r;
    };
    // (the variables above the root are free: a terminal's variable is `vars`, all of them)
    return go(u) << BigInt(this.#v[u]!);
  }

  /**
   * One point of the set: every variable's bit as in `hint` wherever the set allows it, greedily
   * from the top (without a hint: all zero, so the smallest value of the first field, then of the
   * next, …); undefined when the set is empty.
   */
  pick(u: number, hint?: ArrayLike<number>): Uint8Array | undefined {
    if (u === FALSE) return undefined;
    const bits = new Uint8Array(this.vars);
    if (hint) for (let i = 0; i < this.vars; i++) bits[i] = hint[i] ? 1 : 0;
    let x = u;
    while (x !== TRUE) {
      const v = this.#v[x]!;
      const want = bits[v]!;
      const next = want ? this.#hi[x]! : this.#lo[x]!;
      if (next !== FALSE) x = next;
      else {
        bits[v] = want ? 0 : 1;
        x = want ? this.#lo[x]! : this.#hi[x]!;
      }
    }
    return bits;
  }

  /**
   * The set with the `width`-bit field at `first` fixed to `value` (the cofactor): the points whose
   * other variables, with that field set to `value`, are in `u` — a set that no longer depends on
   * the field.
   */
  restrict(u: number, first: number, width: number, value: number): number {
    const end = first + width;
    const memo = new Map<number, number>();
    const go = (x: number): number => {
      if (x <= TRUE) return x;
      const v = this.#v[x]!;
      if (v >= end) return x;
      const m = memo.get(x);
      if (m !== undefined) return m;
      let r: number;
      if (v >= first) {
        const bit = Math.floor(value / 2 ** (end - 1 - v)) % 2;
        r = go(bit ? this.#hi[x]! : this.#lo[x]!);
      } else r = this.mk(v, go(this.#lo[x]!), go(this.#hi[x]!));
      memo.set(x, r);
      return r;
    };
    return go(u);
  }

  /**
   * The set with its variables renamed by `to` (variable → variable, one to one over the
   * variables `u` depends on): any renaming, order-preserving or not (the diagram is rebuilt).
   */
  rename(u: number, to: (v: number) => number): number {
    const memo = new Map<number, number>();
    const go = (x: number): number => {
      if (x <= TRUE) return x;
      const m = memo.get(x);
      if (m !== undefined) return m;
      const nv = to(this.#v[x]!);
      const lo = go(this.#lo[x]!);
      const hi = go(this.#hi[x]!);
      // (nv ? hi : lo) over diagrams that may test variables above nv
      const r = this.or(this.and(this.mk(nv, FALSE, TRUE), hi), this.and(this.mk(nv, TRUE, FALSE), lo));
      memo.set(x, r);
      return r;
    };
    return go(u);
  }

  /** Whether the set tests any variable in [first, first + width). */
  dependsOn(u: number, first: number, width: number): boolean {
    const end = first + width;
    const seen = new Set<number>();
    const go = (x: number): boolean => {
      if (x <= TRUE || seen.has(x)) return false;
      seen.add(x);
      const v = this.#v[x]!;
      if (v >= end) return false;
      if (v >= first) return true;
      return go(this.#lo[x]!) || go(this.#hi[x]!);
    };
    return go(u);
  }

  /** Whether the point (one bit per variable) is in the set. */
  has(u: number, bits: ArrayLike<number>): boolean {
    let x = u;
    while (x > TRUE) x = bits[this.#v[x]!] ? this.#hi[x]! : this.#lo[x]!;
    return x === TRUE;
  }
}

function hash3(a: number, b: number, c: number): number {
  let h = Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77) ^ Math.imul(c, 0xc2b2ae3d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return (h ^ (h >>> 12)) >>> 0;
}
