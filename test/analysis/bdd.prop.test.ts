/**
 * The BDD engine (src/analysis/bdd.ts) against plain sets of integers: over 10 variables every set
 * is a subset of 0..1023, so each operation can be checked point by point. Sets are built from
 * ranges and prefixes (what the analysis builds) and combined by random and/or/diff/not trees;
 * equal sets must be the same node (canonicity), counts and picks must agree with the plain set.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { Bdd, FALSE, TRUE } from '../../src/analysis/bdd.js';
import { runs } from '../runs.js';

const VARS = 10;
const SIZE = 1 << VARS;

/** The point `v` as bits, most significant first (variable 0 = bit 9). */
const bitsOf = (v: number) => Array.from({ length: VARS }, (_, i) => (v >> (VARS - 1 - i)) & 1);
const valueOf = (bits: ArrayLike<number>) => Array.from(bits).reduce((a, b) => a * 2 + b, 0);

type Expr =
  | { op: 'range'; lo: number; hi: number }
  | { op: 'prefix'; value: number; len: number }
  | { op: 'and' | 'or' | 'diff'; a: Expr; b: Expr }
  | { op: 'not'; a: Expr };

const leafArb: fc.Arbitrary<Expr> = fc.oneof(
  fc
    .tuple(fc.integer({ min: 0, max: SIZE - 1 }), fc.integer({ min: 0, max: SIZE - 1 }))
    .map(([x, y]) => ({ op: 'range' as const, lo: Math.min(x, y), hi: Math.max(x, y) })),
  fc
    .tuple(fc.integer({ min: 0, max: SIZE - 1 }), fc.integer({ min: 0, max: VARS }))
    .map(([value, len]) => ({ op: 'prefix' as const, value, len })),
);
const exprArb: fc.Arbitrary<Expr> = fc.letrec<{ e: Expr }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leafArb,
    fc.record({
      op: fc.constantFrom('and' as const, 'or' as const, 'diff' as const),
      a: tie('e'),
      b: tie('e'),
    }),
    fc.record({ op: fc.constant('not' as const), a: tie('e') }),
  ),
})).e;

function build(b: Bdd, e: Expr): number {
  switch (e.op) {
    case 'range':
      return b.range(0, VARS, e.lo, e.hi);
    case 'prefix':
      return b.prefix(0, VARS, e.value, e.len);
    case 'and':
      return b.and(build(b, e.a), build(b, e.b));
    case 'or':
      return b.or(build(b, e.a), build(b, e.b));
    case 'diff':
      return b.diff(build(b, e.a), build(b, e.b));
    case 'not':
      return b.not(build(b, e.a));
  }
}

/** The same expression over plain sets. */
function plain(e: Expr): Set<number> {
  const all = Array.from({ length: SIZE }, (_, i) => i);
  switch (e.op) {
    case 'range':
      return new Set(all.filter((v) => v >= e.lo && v <= e.hi));
    case 'prefix': {
      const shift = VARS - e.len;
      return new Set(all.filter((v) => v >> shift === e.value >> shift));
    }
    case 'and': {
      const b = plain(e.b);
      return new Set([...plain(e.a)].filter((v) => b.has(v)));
    }
    case 'or':
      return new Set([...plain(e.a), ...plain(e.b)]);
    case 'diff': {
      const b = plain(e.b);
      return new Set([...plain(e.a)].filter((v) => !b.has(v)));
    }
    case 'not': {
      const a = plain(e.a);
      return new Set(all.filter((v) => !a.has(v)));
    }
  }
}

describe('Bdd', () => {
  test.prop([exprArb, exprArb, fc.integer({ min: 0, max: SIZE - 1 })], { numRuns: runs(150, 2_000) })(
    'each set holds exactly the points of the plain set; equal sets are one node; count and pick agree',
    (e1, e2, hint) => {
      const b = new Bdd(VARS);
      const u = build(b, e1);
      const s = plain(e1);
      for (let v = 0; v < SIZE; v++) expect(b.has(u, bitsOf(v))).toBe(s.has(v));
      expect(b.count(u)).toBe(BigInt(s.size));
      const picked = b.pick(u, bitsOf(hint));
      if (s.size === 0) expect(picked).toBeUndefined();
      else {
        const v = valueOf(picked!);
        expect(s.has(v)).toBe(true);
        // the hint itself whenever it is in the set
        if (s.has(hint)) expect(v).toBe(hint);
      }
      const w = build(b, e2);
      const t = plain(e2);
      const same = s.size === t.size && [...s].every((v) => t.has(v));
      expect(u === w).toBe(same);
      expect(b.intersects(u, w)).toBe([...s].some((v) => t.has(v)));
    },
  );

  it('the terminals: the empty set and the whole space', () => {
    const b = new Bdd(VARS);
    expect(b.count(FALSE)).toBe(0n);
    expect(b.count(TRUE)).toBe(BigInt(SIZE));
    expect(b.range(0, VARS, 0, SIZE - 1)).toBe(TRUE);
    expect(b.prefix(0, VARS, 123, 0)).toBe(TRUE);
    expect(b.range(0, VARS, 5, 4)).toBe(FALSE);
    expect(b.not(FALSE)).toBe(TRUE);
  });

  it('a 32-bit field: a prefix and the range of the same addresses are one node', () => {
    const b = new Bdd(32);
    const p = b.prefix(0, 32, 0x0af40000, 16);
    expect(b.range(0, 32, 0x0af40000, 0x0af4ffff)).toBe(p);
    expect(b.count(p)).toBe(65536n);
    expect(b.range(0, 32, 0, 0xffffffff)).toBe(TRUE);
  });

  it('past its first tables (4,096 nodes): grown, rehashed, its computed table colliding, still exact', () => {
    // 16 variables, the union of 3,000 scattered points minus 500 of them: tens of thousands of nodes
    const b = new Bdd(16);
    const plainSet = new Set<number>();
    let u = FALSE;
    for (let i = 0; i < 3000; i++) {
      const v = (i * 40503) % 65536;
      plainSet.add(v);
      u = b.or(u, b.prefix(0, 16, v, 16));
    }
    for (let i = 0; i < 500; i++) {
      const v = (i * 7919) % 65536;
      plainSet.delete(v);
      u = b.diff(u, b.prefix(0, 16, v, 16));
    }
    expect(b.size).toBeGreaterThan(4096);
    expect(b.count(u)).toBe(BigInt(plainSet.size));
    const bits = (v: number) => Array.from({ length: 16 }, (_, i) => (v >> (15 - i)) & 1);
    for (let v = 0; v < 65536; v++) if (b.has(u, bits(v)) !== plainSet.has(v)) throw new Error(`point ${v}`);
    // canonical after the growth: the same set built again is the same node
    let again = FALSE;
    for (const v of [...plainSet].sort((x, y) => y - x)) again = b.or(again, b.prefix(0, 16, v, 16));
    expect(again).toBe(u);
  });

  it('refuses to grow past its node limit with a RangeError', () => {
    const b = new Bdd(20, 64);
    expect(() => {
      for (let i = 0; i < 200; i++) b.or(b.prefix(0, 20, i * 4099, 20), b.prefix(0, 20, i * 7, 20));
    }).toThrow(RangeError);
  });
});
