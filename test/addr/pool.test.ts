import { describe, expect, it } from 'vitest';
import { isHnsError } from '../../src/core/errors.js';
import { formatIp, IpPool, parseIp, parsePrefix, type IpAddr, type Prefix } from '../../src/addr/index.js';

function ip(s: string): IpAddr {
  const a = parseIp(s);
  if (!a) throw new Error(`test vector ${s} does not parse`);
  return a;
}
function pfx(s: string): Prefix {
  const p = parsePrefix(s, true);
  if (!p) throw new Error(`test vector ${s} does not parse`);
  return p;
}
function pool(prefix: string, ...reserved: string[]): IpPool {
  return new IpPool(pfx(prefix), { reserved: reserved.map(ip) });
}
function take(p: IpPool, n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const a = p.allocate();
    out.push(a === undefined ? 'none' : formatIp(a));
  }
  return out;
}

describe('IpPool: HNS static IPAM on 192.168.100.0/24', () => {
  it('with the gateway reserved, the first endpoint gets .2, then .3', () => {
    const p = pool('192.168.100.0/24', '192.168.100.1');
    expect(take(p, 3)).toEqual(['192.168.100.2', '192.168.100.3', '192.168.100.4']);
    expect(p.used).toBe(3);
    expect(p.size).toBe(253); // 256 - network - broadcast - gateway
    expect(p.capacity).toBe(253n);
  });

  it('with DoNotReserveGatewayAddress (nothing reserved), the first endpoint gets .1', () => {
    const p = pool('192.168.100.0/24');
    expect(take(p, 2)).toEqual(['192.168.100.1', '192.168.100.2']);
    expect(p.size).toBe(254);
  });

  it('never hands out the network or broadcast address and returns undefined when exhausted', () => {
    const p = pool('192.168.100.0/29', '192.168.100.1');
    expect(take(p, 6)).toEqual([
      '192.168.100.2',
      '192.168.100.3',
      '192.168.100.4',
      '192.168.100.5',
      '192.168.100.6',
      'none',
    ]);
    expect(p.allocate()).toBeUndefined();
    expect(p.used).toBe(5);
    expect(p.size).toBe(5);
  });

  it('reuses released addresses before advancing, the one released first first', () => {
    const p = pool('192.168.100.0/24', '192.168.100.1');
    take(p, 5); // .2 .. .6
    expect(p.release(ip('192.168.100.4'))).toBe(true);
    expect(p.release(ip('192.168.100.2'))).toBe(true);
    expect(p.used).toBe(3);
    expect(take(p, 3)).toEqual(['192.168.100.4', '192.168.100.2', '192.168.100.7']);
  });

  it('an address released ahead of the cursor is found by the cursor in order', () => {
    const p = pool('192.168.100.0/24', '192.168.100.1');
    expect(p.reserve(ip('192.168.100.3'))).toBe('ok');
    expect(take(p, 2)).toEqual(['192.168.100.2', '192.168.100.4']);
    const q = pool('192.168.100.0/24', '192.168.100.1');
    q.reserve(ip('192.168.100.3'));
    q.release(ip('192.168.100.3'));
    expect(take(q, 3)).toEqual(['192.168.100.2', '192.168.100.3', '192.168.100.4']);
  });

  it('after exhaustion a release makes exactly that address available again', () => {
    const p = pool('10.0.0.0/30');
    expect(take(p, 3)).toEqual(['10.0.0.1', '10.0.0.2', 'none']);
    expect(p.release(ip('10.0.0.1'))).toBe(true);
    expect(take(p, 2)).toEqual(['10.0.0.1', 'none']);
  });

  it('reserve() outcomes', () => {
    const p = pool('192.168.100.0/24', '192.168.100.1');
    expect(p.reserve(ip('192.168.100.50'))).toBe('ok');
    expect(p.reserve(ip('192.168.100.50'))).toBe('taken');
    expect(p.reserve(ip('192.168.100.1'))).toBe('reserved'); // gateway
    expect(p.reserve(ip('192.168.100.0'))).toBe('reserved'); // network
    expect(p.reserve(ip('192.168.100.255'))).toBe('reserved'); // broadcast
    expect(p.reserve(ip('192.168.101.7'))).toBe('outside');
    expect(p.reserve(ip('fd00::7'))).toBe('outside');
    expect(p.used).toBe(1);
    expect(p.isAllocated(ip('192.168.100.50'))).toBe(true);
    // an address taken by allocate() cannot be reserved, and vice versa
    const a = p.allocate()!;
    expect(formatIp(a)).toBe('192.168.100.2');
    expect(p.reserve(a)).toBe('taken');
  });

  it('a reserved-then-allocated address is skipped by the cursor, and by the reuse queue', () => {
    const p = pool('192.168.100.0/24', '192.168.100.1');
    take(p, 3); // .2 .3 .4
    p.release(ip('192.168.100.3'));
    expect(p.reserve(ip('192.168.100.3'))).toBe('ok'); // an explicit IpConfiguration takes it back
    expect(p.reserve(ip('192.168.100.5'))).toBe('ok');
    expect(take(p, 2)).toEqual(['192.168.100.6', '192.168.100.7']);
  });

  it('release() refuses what it does not hold', () => {
    const p = pool('192.168.100.0/24', '192.168.100.1');
    expect(p.release(ip('192.168.100.9'))).toBe(false); // free
    expect(p.release(ip('192.168.100.1'))).toBe(false); // gateway
    expect(p.release(ip('192.168.100.0'))).toBe(false); // network
    expect(p.release(ip('192.168.100.255'))).toBe(false); // broadcast
    expect(p.release(ip('10.0.0.1'))).toBe(false); // outside
    p.allocate();
    expect(p.release(ip('192.168.100.2'))).toBe(true);
    expect(p.release(ip('192.168.100.2'))).toBe(false); // twice
    expect(p.used).toBe(0);
  });

  it('has / contains / isReserved / isAllocated', () => {
    const p = pool('192.168.128.0/20', '192.168.128.1');
    expect(p.has(ip('192.168.143.255'))).toBe(true);
    expect(p.contains(ip('192.168.144.0'))).toBe(false);
    expect(p.isReserved(ip('192.168.128.0'))).toBe(true);
    expect(p.isReserved(ip('192.168.128.1'))).toBe(true);
    expect(p.isReserved(ip('192.168.143.255'))).toBe(true);
    expect(p.isReserved(ip('192.168.128.4'))).toBe(false);
    expect(p.isReserved(ip('10.0.0.0'))).toBe(false);
    expect(p.isAllocated(ip('192.168.128.4'))).toBe(false);
    expect(p.reserve(ip('192.168.128.4'))).toBe('ok'); // the lcow test's explicit IpConfiguration
    expect(p.isAllocated(ip('192.168.128.4'))).toBe(true);
    expect(p.isAllocated(ip('192.168.128.1'))).toBe(false);
    expect(p.size).toBe(4096 - 3);
  });

  it('ignores reserved addresses outside the prefix and duplicates', () => {
    const p = pool('192.168.100.0/24', '192.168.100.1', '192.168.100.1', '10.0.0.1', 'fd00::1');
    expect(p.reserved.map(formatIp)).toEqual(['192.168.100.1']);
    expect(p.size).toBe(253);
  });

  it('refuses a prefix with host bits set', () => {
    const bad = { family: 4, addr: 0xc0a86401, len: 24 } as const;
    let err: unknown;
    try {
      new IpPool(bad, {});
    } catch (e) {
      err = e;
    }
    expect(isHnsError(err) && err.code).toBe('HCN_E_INVALID_PREFIX');
    expect(() => new IpPool({ family: 4, addr: 0, len: 33 }, {})).toThrow(/prefix provided is invalid/);
  });
});

describe('IpPool: small prefixes (our choice, docs/model.md)', () => {
  it('/32 has one usable address, no network/broadcast exclusion', () => {
    const p = pool('10.1.2.3/32');
    expect(p.size).toBe(1);
    expect(take(p, 2)).toEqual(['10.1.2.3', 'none']);
  });

  it('/31 has two usable addresses (RFC 3021)', () => {
    const p = pool('10.1.2.2/31');
    expect(p.size).toBe(2);
    expect(take(p, 3)).toEqual(['10.1.2.2', '10.1.2.3', 'none']);
  });

  it('/31 with one address reserved', () => {
    const p = pool('10.1.2.2/31', '10.1.2.2');
    expect(take(p, 2)).toEqual(['10.1.2.3', 'none']);
  });

  it('/30 keeps network and broadcast out', () => {
    expect(take(pool('10.1.2.0/30'), 3)).toEqual(['10.1.2.1', '10.1.2.2', 'none']);
  });

  it('IPv6 /128 and /127', () => {
    expect(take(pool('fd00::5/128'), 2)).toEqual(['fd00::5', 'none']);
    expect(take(pool('fd00::4/127'), 3)).toEqual(['fd00::4', 'fd00::5', 'none']);
  });

  it('a /32 whose only address is reserved is empty', () => {
    const p = pool('10.1.2.3/32', '10.1.2.3');
    expect(p.size).toBe(0);
    expect(p.allocate()).toBeUndefined();
  });
});

describe('IpPool: IPv6 (reference dual-stack NAT network, fd00::100/120)', () => {
  it('skips the network address, has no broadcast, reserves the gateway', () => {
    const p = pool('fd00::100/120', 'fd00::101');
    expect(p.size).toBe(254); // 256 - network - gateway
    expect(take(p, 2)).toEqual(['fd00::102', 'fd00::103']);
    expect(p.reserve(ip('fd00::106'))).toBe('ok');
    expect(p.reserve(ip('fd00::1ff'))).toBe('ok'); // the last address is usable in IPv6
    expect(p.reserve(ip('fd00::100'))).toBe('reserved');
    expect(p.reserve(ip('fd00::101'))).toBe('reserved');
    expect(p.reserve(ip('fd00::200'))).toBe('outside');
    expect(p.reserve(ip('192.168.128.4'))).toBe('outside');
    expect(take(p, 4)).toEqual(['fd00::104', 'fd00::105', 'fd00::107', 'fd00::108']);
  });

  it('exhausts a /120 exactly', () => {
    const p = pool('fd00::100/120', 'fd00::101');
    const got = take(p, 255);
    expect(got[253]).toBe('fd00::1ff');
    expect(got[254]).toBe('none');
    expect(new Set(got.slice(0, 254)).size).toBe(254);
  });

  it('a /64 reports its size and allocates far addresses sparsely', () => {
    const p = pool('fd00:1::/64', 'fd00:1::1');
    expect(p.capacity).toBe((1n << 64n) - 2n);
    expect(p.reserve(ip('fd00:1::ffff:ffff:ffff:ffff'))).toBe('ok');
    expect(take(p, 2)).toEqual(['fd00:1::2', 'fd00:1::3']);
    expect(p.release(ip('fd00:1::ffff:ffff:ffff:ffff'))).toBe(true);
    expect(p.used).toBe(2);
  });
});

describe('IpPool snapshots', () => {
  it('serialises compactly as runs', () => {
    const p = pool('192.168.100.0/24', '192.168.100.1');
    take(p, 6); // .2 .. .7
    p.release(ip('192.168.100.4'));
    p.reserve(ip('192.168.100.20'));
    expect(p.toJSON()).toEqual({
      prefix: '192.168.100.0/24',
      reserved: ['192.168.100.1'],
      allocated: ['192.168.100.2..192.168.100.3', '192.168.100.5..192.168.100.7', '192.168.100.20'],
      released: ['192.168.100.4'],
      next: '192.168.100.8',
    });
  });

  it('a fresh pool and an exhausted one', () => {
    expect(pool('10.0.0.0/30').toJSON()).toEqual({
      prefix: '10.0.0.0/30',
      reserved: [],
      allocated: [],
      released: [],
      next: '10.0.0.1',
    });
    const full = pool('10.0.0.0/30');
    take(full, 2);
    expect(full.toJSON()).toEqual({
      prefix: '10.0.0.0/30',
      reserved: [],
      allocated: ['10.0.0.1..10.0.0.2'],
      released: [],
    });
    expect(IpPool.fromJSON(full.toJSON()).allocate()).toBeUndefined();
  });

  it('round-trips through JSON text with the same future allocations', () => {
    const p = pool('fd00::100/120', 'fd00::101');
    take(p, 10);
    p.release(ip('fd00::105'));
    p.release(ip('fd00::103'));
    p.reserve(ip('fd00::1f0'));
    const q = IpPool.fromJSON(JSON.stringify(p.toJSON()));
    expect(q.toJSON()).toEqual(p.toJSON());
    expect(q.used).toBe(p.used);
    expect(take(q, 5)).toEqual(take(p, 5));
    expect(take(q, 5)).toEqual(['fd00::10f', 'fd00::110', 'fd00::111', 'fd00::112', 'fd00::113']);
  });

  it('clone() is independent and behaves the same', () => {
    const p = pool('192.168.100.0/24', '192.168.100.1');
    take(p, 4);
    p.release(ip('192.168.100.3'));
    const c = p.clone();
    expect(take(c, 2)).toEqual(['192.168.100.3', '192.168.100.6']);
    expect(p.used).toBe(3);
    expect(take(p, 2)).toEqual(['192.168.100.3', '192.168.100.6']);
    expect(c.toJSON()).toEqual(p.toJSON());
  });

  it.each([
    ['not JSON', '{'],
    ['no prefix', { reserved: [], allocated: [], released: [] }],
    ['bad prefix', { prefix: '10.0.0.1/24', reserved: [], allocated: [], released: [] }],
    ['allocated outside', { prefix: '10.0.0.0/24', reserved: [], allocated: ['10.0.1.1'], released: [] }],
    ['allocated broadcast', { prefix: '10.0.0.0/24', reserved: [], allocated: ['10.0.0.255'], released: [] }],
    [
      'allocated reserved',
      { prefix: '10.0.0.0/24', reserved: ['10.0.0.1'], allocated: ['10.0.0.1'], released: [] },
    ],
    ['wrong family', { prefix: '10.0.0.0/24', reserved: [], allocated: ['fd00::1'], released: [] }],
    [
      'descending run',
      { prefix: '10.0.0.0/24', reserved: [], allocated: ['10.0.0.9..10.0.0.3'], released: [] },
    ],
    [
      'twice',
      { prefix: '10.0.0.0/24', reserved: [], allocated: ['10.0.0.2..10.0.0.5', '10.0.0.4'], released: [] },
    ],
    // cursor at .5 with .1-.2 allocated: .3 and .4 must be waiting in `released`
    [
      'lost free address',
      {
        prefix: '10.0.0.0/24',
        reserved: [],
        allocated: ['10.0.0.1..10.0.0.2'],
        next: '10.0.0.5',
        released: ['10.0.0.3'],
      },
    ],
    [
      'released not free',
      {
        prefix: '10.0.0.0/24',
        reserved: [],
        allocated: ['10.0.0.1'],
        next: '10.0.0.3',
        released: ['10.0.0.1'],
      },
    ],
    [
      'released ahead',
      { prefix: '10.0.0.0/24', reserved: [], allocated: [], next: '10.0.0.1', released: ['10.0.0.9'] },
    ],
    [
      'huge v6 run',
      { prefix: 'fd00::/64', reserved: [], allocated: ['fd00::1..fd00::ffff:ffff:ffff:ffff'], released: [] },
    ],
  ])('rejects a malformed snapshot (%s) with HCN_E_INVALID_JSON', (_name, snap) => {
    let err: unknown;
    try {
      IpPool.fromJSON(snap);
    } catch (e) {
      err = e;
    }
    expect(isHnsError(err) && err.code).toBe('HCN_E_INVALID_JSON');
  });
});

describe('IpPool at scale', () => {
  it('hands out 100k distinct ascending addresses in 10.0.0.0/8, then reuses released ones', () => {
    const p = pool('10.0.0.0/8', '10.0.0.1');
    let prev = 0;
    let ascending = true;
    for (let i = 0; i < 100_000; i++) {
      const a = p.allocate()!;
      if (!(a.value > prev)) ascending = false;
      prev = a.value as number;
    }
    expect(ascending).toBe(true);
    expect(formatIp({ family: 4, value: prev })).toBe('10.1.134.161'); // 10.0.0.2 + 99_999
    for (let i = 0; i < 50_000; i++) p.release({ family: 4, value: 0x0a000002 + 2 * i });
    expect(p.used).toBe(50_000);
    expect(formatIp(p.allocate()!)).toBe('10.0.0.2');
    expect(formatIp(p.allocate()!)).toBe('10.0.0.4');
    const snap = p.toJSON();
    expect(snap.allocated.length).toBeLessThan(50_010);
    expect(IpPool.fromJSON(snap).toJSON()).toEqual(snap);
  });

  it('100k allocations in an IPv6 /64', () => {
    const p = pool('fd00:2::/64', 'fd00:2::1');
    for (let i = 0; i < 100_000; i++) p.allocate();
    expect(p.used).toBe(100_000);
    expect(p.toJSON().allocated).toEqual(['fd00:2::2..fd00:2::1:86a1']);
  });
});
