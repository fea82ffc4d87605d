import { describe, expect, it } from 'vitest';
import { isHnsError } from '../../src/core/errors.js';
import { Rng } from '../../src/core/rng.js';
import {
  defaultMacRange,
  formatMac,
  HYPERV_OUI,
  isLocallyAdministeredMac,
  isUnicastMac,
  isValidMac,
  MacPool,
  macOui,
  parseMac,
} from '../../src/addr/index.js';

function mac(s: string): number {
  const m = parseMac(s);
  if (m === undefined) throw new Error(`test vector ${s} does not parse`);
  return m;
}
function code(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return isHnsError(e) ? e.code : `not an HnsError: ${String(e)}`;
  }
  return undefined;
}
function take(p: MacPool, n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const m = p.allocate();
    out.push(m === undefined ? 'none' : formatMac(m));
  }
  return out;
}

// Docker's default nat network MacPool (reference §3.1)
const DOCKER_NAT = { start: mac('00-15-5D-F2-00-00'), end: mac('00-15-5D-F2-0F-FF') };

describe('parseMac / formatMac', () => {
  it.each([
    ['00-15-5D-52-C0-00', 0x00155d52c000],
    ['00:15:5d:52:c0:00', 0x00155d52c000],
    ['00-15-5d-52-C0-00', 0x00155d52c000],
    ['00:15:5D:F2:0F:FF', 0x00155df20fff],
    ['00-00-00-00-00-00', 0],
    ['FF-FF-FF-FF-FF-FF', 0xffffffffffff],
  ])('%s → %i', (s, n) => {
    expect(parseMac(s)).toBe(n);
  });

  it('formats in the HNS form: dashes, upper case', () => {
    expect(formatMac(0x00155d52c000)).toBe('00-15-5D-52-C0-00');
    expect(formatMac(mac('00:15:5d:f2:0f:ff'))).toBe('00-15-5D-F2-0F-FF');
    expect(formatMac(0)).toBe('00-00-00-00-00-00');
    expect(formatMac(0xffffffffffff)).toBe('FF-FF-FF-FF-FF-FF');
  });

  it.each([
    '00-15-5D-52-C0',
    '00-15-5D-52-C0-00-01',
    '00-15-5D:52-C0-00', // mixed separators
    '00.15.5D.52.C0.00',
    '00155D52C000',
    '0-15-5D-52-C0-000',
    '00-15-5D-52-C0-0G',
    ' 00-15-5D-52-C0-0',
    '00-15-5D-52-C0-00 ',
    '',
  ])('rejects %j', (s) => {
    expect(parseMac(s)).toBeUndefined();
  });

  it('refuses to format a non-MAC with E_INVALIDARG', () => {
    expect(code(() => formatMac(-1))).toBe('E_INVALIDARG');
    expect(code(() => formatMac(2 ** 48))).toBe('E_INVALIDARG');
    expect(code(() => formatMac(1.5))).toBe('E_INVALIDARG');
  });

  it('validation helpers', () => {
    expect(isValidMac(0x00155d52c000)).toBe(true);
    expect(isValidMac(2 ** 48)).toBe(false);
    expect(isUnicastMac(mac('00-15-5D-52-C0-00'))).toBe(true);
    expect(isUnicastMac(mac('01-00-5E-00-00-01'))).toBe(false); // IPv4 multicast
    expect(isUnicastMac(mac('33-33-00-00-00-01'))).toBe(false); // IPv6 multicast
    expect(isUnicastMac(mac('FF-FF-FF-FF-FF-FF'))).toBe(false); // broadcast
    expect(isUnicastMac(mac('02-00-00-00-00-01'))).toBe(true);
    expect(isLocallyAdministeredMac(mac('02-00-00-00-00-01'))).toBe(true);
    expect(isLocallyAdministeredMac(mac('00-15-5D-52-C0-00'))).toBe(false);
    expect(HYPERV_OUI).toBe(0x00155d);
    expect(macOui(mac('00-15-5D-52-C0-00'))).toBe(HYPERV_OUI);
  });
});

describe('defaultMacRange', () => {
  it('is a 4096-address 00-15-5D-XX-Y0-00..00-15-5D-XX-YF-FF range, fixed by the seed', () => {
    for (let seed = 0; seed < 50; seed++) {
      const r = defaultMacRange(new Rng(seed));
      const s = formatMac(r.start);
      const e = formatMac(r.end);
      expect(r.end - r.start + 1).toBe(4096);
      expect(s).toMatch(/^00-15-5D-[0-9A-F]{2}-[0-9A-F]0-00$/);
      expect(e).toBe(`${s.slice(0, 12)}${s[12]}F-FF`);
      expect(defaultMacRange(new Rng(seed))).toEqual(r);
    }
  });

  it('differs across seeds', () => {
    const starts = new Set<number>();
    for (let seed = 0; seed < 50; seed++) starts.add(defaultMacRange(new Rng(seed)).start);
    expect(starts.size).toBeGreaterThan(40);
  });
});

describe('MacPool', () => {
  it('hands out Docker nat MACs from the start of the range, in order', () => {
    const p = new MacPool([DOCKER_NAT]);
    expect(p.size).toBe(4096);
    expect(take(p, 3)).toEqual(['00-15-5D-F2-00-00', '00-15-5D-F2-00-01', '00-15-5D-F2-00-02']);
    expect(p.used).toBe(3);
  });

  it('walks ranges in the order given and returns undefined when exhausted', () => {
    const p = new MacPool([
      { start: mac('00-15-5D-00-00-10'), end: mac('00-15-5D-00-00-11') },
      { start: mac('00-15-5D-00-00-00'), end: mac('00-15-5D-00-00-00') },
    ]);
    expect(p.size).toBe(3);
    expect(take(p, 4)).toEqual(['00-15-5D-00-00-10', '00-15-5D-00-00-11', '00-15-5D-00-00-00', 'none']);
  });

  it('reuses released MACs first, oldest release first', () => {
    const p = new MacPool([DOCKER_NAT]);
    take(p, 4);
    expect(p.release(mac('00-15-5D-F2-00-02'))).toBe(true);
    expect(p.release(mac('00-15-5D-F2-00-00'))).toBe(true);
    expect(p.release(mac('00-15-5D-F2-00-00'))).toBe(false);
    expect(p.release(mac('00-15-5D-F2-0F-00'))).toBe(false); // never allocated
    expect(p.release(mac('00-15-5D-F3-00-00'))).toBe(false); // outside
    expect(take(p, 3)).toEqual(['00-15-5D-F2-00-02', '00-15-5D-F2-00-00', '00-15-5D-F2-00-04']);
  });

  it('reserve() outcomes and explicit MACs skipped by allocate()', () => {
    const p = new MacPool([DOCKER_NAT]);
    expect(p.reserve(mac('00-15-5D-F2-00-01'))).toBe('ok');
    expect(p.reserve(mac('00-15-5D-F2-00-01'))).toBe('taken');
    expect(p.reserve(mac('00-15-5D-52-C0-00'))).toBe('outside');
    expect(p.isAllocated(mac('00-15-5D-F2-00-01'))).toBe(true);
    expect(p.has(mac('00-15-5D-F2-0F-FF'))).toBe(true);
    expect(p.contains(mac('00-15-5D-F2-10-00'))).toBe(false);
    expect(take(p, 2)).toEqual(['00-15-5D-F2-00-00', '00-15-5D-F2-00-02']);
    expect(p.allocated().map(formatMac)).toEqual([
      '00-15-5D-F2-00-00',
      '00-15-5D-F2-00-01',
      '00-15-5D-F2-00-02',
    ]);
  });

  it('an empty pool allocates nothing', () => {
    const p = new MacPool([]);
    expect(p.size).toBe(0);
    expect(p.allocate()).toBeUndefined();
    expect(p.reserve(mac('00-15-5D-F2-00-01'))).toBe('outside');
  });

  it('refuses bad ranges with HCN_E_INVALID_NETWORK', () => {
    const a = mac('00-15-5D-F2-00-00');
    expect(code(() => new MacPool([{ start: a + 5, end: a }]))).toBe('HCN_E_INVALID_NETWORK');
    expect(
      code(
        () =>
          new MacPool([
            { start: a, end: a + 10 },
            { start: a + 10, end: a + 20 },
          ]),
      ),
    ).toBe('HCN_E_INVALID_NETWORK');
    expect(
      code(() => new MacPool([{ start: mac('01-00-5E-00-00-00'), end: mac('01-00-5E-00-00-FF') }])),
    ).toBe('HCN_E_INVALID_NETWORK');
    expect(
      code(() => new MacPool([{ start: mac('00-FF-FF-FF-FF-00'), end: mac('02-00-00-00-00-00') }])),
    ).toBe('HCN_E_INVALID_NETWORK');
    expect(code(() => new MacPool([{ start: -1, end: 3 }]))).toBe('HCN_E_INVALID_NETWORK');
  });

  it('snapshots compactly and round-trips with the same future allocations', () => {
    const p = new MacPool([DOCKER_NAT, { start: mac('00-15-5D-F3-00-00'), end: mac('00-15-5D-F3-00-0F') }]);
    take(p, 5);
    p.release(mac('00-15-5D-F2-00-01'));
    p.reserve(mac('00-15-5D-F3-00-07'));
    const snap = p.toJSON();
    expect(snap).toEqual({
      ranges: [
        { start: '00-15-5D-F2-00-00', end: '00-15-5D-F2-0F-FF' },
        { start: '00-15-5D-F3-00-00', end: '00-15-5D-F3-00-0F' },
      ],
      allocated: ['00-15-5D-F2-00-00', '00-15-5D-F2-00-02..00-15-5D-F2-00-04', '00-15-5D-F3-00-07'],
      released: ['00-15-5D-F2-00-01'],
      next: '00-15-5D-F2-00-05',
    });
    const q = MacPool.fromJSON(JSON.stringify(snap));
    expect(q.toJSON()).toEqual(snap);
    expect(take(q, 3)).toEqual(take(p, 3));
    const c = p.clone();
    expect(take(c, 2)).toEqual(take(p, 2));
    c.allocate();
    expect(c.used).toBe(p.used + 1);
  });

  it('rejects malformed snapshots with HCN_E_INVALID_JSON', () => {
    const ranges = [{ start: '00-15-5D-F2-00-00', end: '00-15-5D-F2-00-0F' }];
    expect(code(() => MacPool.fromJSON('nope'))).toBe('HCN_E_INVALID_JSON');
    expect(
      code(() => MacPool.fromJSON({ ranges: [{ start: 'x', end: 'y' }], allocated: [], released: [] })),
    ).toBe('HCN_E_INVALID_JSON');
    expect(
      code(() =>
        MacPool.fromJSON({
          ranges: [{ start: ranges[0]!.end, end: ranges[0]!.start }],
          allocated: [],
          released: [],
        }),
      ),
    ).toBe('HCN_E_INVALID_JSON');
    expect(code(() => MacPool.fromJSON({ ranges, allocated: ['00-15-5D-F2-00-10'], released: [] }))).toBe(
      'HCN_E_INVALID_JSON',
    );
    expect(
      code(() =>
        MacPool.fromJSON({
          ranges,
          allocated: ['00-15-5D-F2-00-00'],
          released: [],
          next: '00-15-5D-F2-00-03',
        }),
      ),
    ).toBe('HCN_E_INVALID_JSON');
    expect(
      code(() =>
        MacPool.fromJSON({
          ranges,
          allocated: ['00-15-5D-F2-00-00..00-15-5D-F2-00-0F', '00-15-5D-F2-00-03'],
          released: [],
        }),
      ),
    ).toBe('HCN_E_INVALID_JSON');
  });

  it('stays O(1): 100k allocations across a large range', () => {
    const p = new MacPool([{ start: mac('00-15-5D-00-00-00'), end: mac('00-15-5D-FF-FF-FF') }]);
    for (let i = 0; i < 100_000; i++) p.allocate();
    expect(p.used).toBe(100_000);
    expect(p.toJSON().allocated).toEqual(['00-15-5D-00-00-00..00-15-5D-01-86-9F']);
  });
});
