/**
 * Property tests of the pools against a plain model: a Set of allocated addresses, a list of
 * released addresses in reuse order and a cursor (O(n) operations, obviously right). Every step
 * compares outputs exactly, so the documented order is checked too, not only "no duplicates".
 */
import { describe, expect } from 'vitest';
import { fc, it } from '@fast-check/vitest';
import {
  formatIp,
  IpPool,
  MacPool,
  parsePrefix,
  prefixLast,
  type IpAddr,
  type Prefix,
} from '../../src/addr/index.js';
import { runs } from '../runs.js';

type Op =
  | { readonly kind: 'allocate' }
  | { readonly kind: 'reserve'; readonly at: number }
  | { readonly kind: 'release'; readonly at: number }
  | { readonly kind: 'snapshot' }
  | { readonly kind: 'clone' };

/** `at` is an offset from the network address; a few values fall outside the prefix. */
const opArb = (span: number): fc.Arbitrary<Op> =>
  fc.oneof(
    { weight: 5, arbitrary: fc.constant<Op>({ kind: 'allocate' }) },
    {
      weight: 2,
      arbitrary: fc.integer({ min: -2, max: span + 1 }).map<Op>((at) => ({ kind: 'reserve', at })),
    },
    {
      weight: 4,
      arbitrary: fc.integer({ min: -2, max: span + 1 }).map<Op>((at) => ({ kind: 'release', at })),
    },
    { weight: 1, arbitrary: fc.constant<Op>({ kind: 'snapshot' }) },
    { weight: 1, arbitrary: fc.constant<Op>({ kind: 'clone' }) },
  );

/** The spec of the order: released addresses first (oldest release first), then the cursor. */
class Model {
  readonly taken = new Set<bigint>();
  queue: bigint[] = [];
  cursor: bigint;

  constructor(
    readonly first: bigint,
    readonly last: bigint,
    readonly blocked: ReadonlySet<bigint>,
  ) {
    this.cursor = first;
  }
  allocatable(v: bigint): boolean {
    return v >= this.first && v <= this.last && !this.blocked.has(v);
  }
  allocate(): bigint | undefined {
    const q = this.queue.shift();
    if (q !== undefined) {
      this.taken.add(q);
      return q;
    }
    for (; this.cursor <= this.last; this.cursor++) {
      if (!this.taken.has(this.cursor) && !this.blocked.has(this.cursor)) {
        this.taken.add(this.cursor);
        return this.cursor++;
      }
    }
    return undefined;
  }
  reserve(v: bigint): void {
    this.taken.add(v);
    this.queue = this.queue.filter((q) => q !== v);
  }
  release(v: bigint): void {
    this.taken.delete(v);
    if (v < this.cursor) this.queue.push(v);
  }
}

interface Case {
  readonly prefix: Prefix;
  readonly span: number; // addresses in the prefix
  readonly reservedAt: number[];
  readonly ops: Op[];
}

const caseArb: fc.Arbitrary<Case> = fc
  .record({
    family: fc.constantFrom(4, 6),
    hostBits: fc.integer({ min: 0, max: 5 }),
    base: fc.integer({ min: 0, max: 0xffff }),
  })
  .chain(({ family, hostBits, base }) => {
    const span = 2 ** hostBits;
    const text =
      family === 4
        ? `10.${base >> 8}.${base & 255}.0/${32 - hostBits}`
        : `fd00:${base.toString(16)}::/${128 - hostBits}`;
    const prefix = parsePrefix(text)!;
    return fc.record({
      prefix: fc.constant(prefix),
      span: fc.constant(span),
      reservedAt: fc.uniqueArray(fc.integer({ min: -1, max: span }), { maxLength: 3 }),
      ops: fc.array(opArb(span), { maxLength: 120 }),
    });
  });

function addrAt(p: Prefix, at: number): IpAddr {
  if (p.family === 4) return { family: 4, value: (p.addr + at) >>> 0 };
  return { family: 6, value: p.addr + BigInt(at) };
}

describe('IpPool against the model', () => {
  it.prop([caseArb], { numRuns: runs(150, 4_000) })(
    'same outputs, no double allocation, used consistent',
    (c) => {
      const { prefix } = c;
      const reserved = c.reservedAt.map((at) => addrAt(prefix, at));
      let pool = new IpPool(prefix, { reserved });
      const net = BigInt(prefix.addr);
      const lastInPrefix = BigInt(prefixLast(prefix).value);
      const smallest = prefix.family === 4 ? prefix.len >= 31 : prefix.len >= 127;
      const first = smallest ? net : net + 1n;
      const last = smallest || prefix.family === 6 ? lastInPrefix : lastInPrefix - 1n;
      const blocked = new Set<bigint>();
      for (const r of reserved) if (pool.has(r)) blocked.add(BigInt(r.value));
      const model = new Model(first, last, blocked);
      let capacity = 0n;
      for (let v = first; v <= last; v++) if (!blocked.has(v)) capacity++;
      expect(pool.capacity).toBe(capacity);

      for (const op of c.ops) {
        switch (op.kind) {
          case 'allocate': {
            const got = pool.allocate();
            const want = model.allocate();
            expect(got === undefined ? undefined : BigInt(got.value)).toBe(want);
            if (got !== undefined) {
              expect(got.family).toBe(prefix.family);
              expect(model.allocatable(BigInt(got.value))).toBe(true); // never network/broadcast/reserved
            } else {
              expect(BigInt(model.taken.size)).toBe(capacity); // undefined only when really exhausted
            }
            break;
          }
          case 'reserve': {
            const a = addrAt(prefix, op.at);
            const v = BigInt(a.value);
            const want =
              op.at < 0 || op.at >= c.span
                ? 'outside'
                : !model.allocatable(v)
                  ? 'reserved'
                  : model.taken.has(v)
                    ? 'taken'
                    : 'ok';
            expect(pool.reserve(a)).toBe(want);
            if (want === 'ok') model.reserve(v);
            break;
          }
          case 'release': {
            const a = addrAt(prefix, op.at);
            const v = BigInt(a.value);
            const want = op.at >= 0 && op.at < c.span && model.taken.has(v);
            expect(pool.release(a)).toBe(want);
            if (want) model.release(v);
            break;
          }
          case 'snapshot': {
            const snap = pool.toJSON();
            const back = IpPool.fromJSON(JSON.parse(JSON.stringify(snap)));
            expect(back.toJSON()).toEqual(snap);
            pool = back;
            break;
          }
          case 'clone':
            pool = pool.clone();
            break;
        }
        expect(pool.used).toBe(model.taken.size);
      }
      const allocated = pool.allocated().map((a) => BigInt(a.value));
      expect(allocated).toEqual([...model.taken].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
      for (const v of allocated) expect(pool.isAllocated(addrAt(prefix, Number(v - net)))).toBe(true);
      expect(new Set(allocated.map((v) => formatIp(addrAt(prefix, Number(v - net))))).size).toBe(
        allocated.length,
      );
    },
  );
});

describe('MacPool against the model', () => {
  const macCaseArb = fc.record({
    sizes: fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 3 }),
    ops: fc.array(opArb(20), { maxLength: 100 }),
  });

  it.prop([macCaseArb], { numRuns: runs(100, 3_000) })(
    'same outputs as the model over concatenated ranges',
    ({ sizes, ops }) => {
      // ranges in descending MAC order, gaps between them, so pool order ≠ MAC order
      const base = 0x00155df20000;
      const ranges = sizes.map((n, i) => ({
        start: base + (sizes.length - i) * 0x100,
        end: base + (sizes.length - i) * 0x100 + n - 1,
      }));
      const macs = ranges.flatMap((r) => Array.from({ length: r.end - r.start + 1 }, (_, k) => r.start + k));
      const at = (i: number): number => (i >= 0 && i < macs.length ? macs[i]! : base + 0x10000 + i); // else outside
      let pool = new MacPool(ranges);
      const model = new Model(0n, BigInt(macs.length - 1), new Set());
      for (const op of ops) {
        switch (op.kind) {
          case 'allocate': {
            const got = pool.allocate();
            const want = model.allocate();
            expect(got).toBe(want === undefined ? undefined : macs[Number(want)]);
            break;
          }
          case 'reserve': {
            const inside = op.at >= 0 && op.at < macs.length;
            const want = !inside ? 'outside' : model.taken.has(BigInt(op.at)) ? 'taken' : 'ok';
            expect(pool.reserve(at(op.at))).toBe(want);
            if (want === 'ok') model.reserve(BigInt(op.at));
            break;
          }
          case 'release': {
            const want = op.at >= 0 && op.at < macs.length && model.taken.has(BigInt(op.at));
            expect(pool.release(at(op.at))).toBe(want);
            if (want) model.release(BigInt(op.at));
            break;
          }
          case 'snapshot': {
            const snap = pool.toJSON();
            pool = MacPool.fromJSON(JSON.stringify(snap));
            expect(pool.toJSON()).toEqual(snap);
            break;
          }
          case 'clone':
            pool = pool.clone();
            break;
        }
        expect(pool.used).toBe(model.taken.size);
      }
    },
  );
});

describe('IpPool queue housekeeping against the model', () => {
  // Phases big enough to reach the paths short random sequences miss: compaction of stale queue
  // entries (reserve() of many released addresses) and trimming of a long consumed queue head.
  const phaseArb = fc.record({
    kind: fc.constantFrom('allocate', 'release', 'reserveReleased'),
    count: fc.integer({ min: 1, max: 2500 }),
    rotate: fc.nat(),
  });

  it.prop([fc.array(phaseArb, { minLength: 1, maxLength: 10 }), fc.constantFrom(4, 6)], {
    numRuns: runs(10, 300),
  })('same outputs over long phases', (phases, family) => {
    const prefix = parsePrefix(family === 4 ? '10.7.0.0/20' : 'fd00:7::/116')!;
    const gw = addrAt(prefix, 1);
    let pool = new IpPool(prefix, { reserved: [gw] });
    const net = BigInt(prefix.addr);
    const last = family === 4 ? net + 4094n : net + 4095n;
    const model = new Model(net + 1n, last, new Set([net + 1n]));
    const at = (v: bigint): IpAddr => addrAt(prefix, Number(v - net));
    for (const ph of phases) {
      if (ph.kind === 'allocate') {
        for (let i = 0; i < ph.count; i++) {
          const got = pool.allocate();
          expect(got === undefined ? undefined : BigInt(got.value)).toBe(model.allocate());
        }
      } else {
        const source = ph.kind === 'release' ? [...model.taken] : [...model.queue];
        const k = source.length === 0 ? 0 : ph.rotate % source.length;
        const targets = source.slice(k).concat(source.slice(0, k)).slice(0, ph.count);
        for (const v of targets) {
          if (ph.kind === 'release') {
            expect(pool.release(at(v))).toBe(true);
            model.release(v);
          } else {
            expect(pool.reserve(at(v))).toBe('ok');
            model.reserve(v);
          }
        }
      }
      expect(pool.used).toBe(model.taken.size);
      expect(pool.toJSON().released).toEqual(model.queue.map((v) => formatIp(at(v))));
      if (ph.rotate % 3 === 0) pool = IpPool.fromJSON(pool.toJSON());
    }
  });
});
