/**
 * `ipBytes` (an address's 16 bytes, `netip.Addr.As16`) gives the low 128 bits of the value
 * big-endian, as taking `& 0xff` and shifting by 8 sixteen times does — for IPv4 (mapped), IPv6,
 * and values outside 128 bits or negative (two's complement) that a caller could hand it. The
 * canonical texts and families found without the 16-byte form (`goIPText`, `goCanonicalIP`,
 * `goCanonicalCIDR`, `goCIDRFamily`) are what parsing into it gives, for any text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  goCanonicalCIDR,
  goCanonicalIP,
  goCIDRFamily,
  goFormatCIDR,
  goFormatIP,
  goIPText,
  goParseCIDR,
  goParseIP,
  ipBytes,
  ipString,
  type GoIP,
} from '../../src/cni/goip.js';
import { runs } from '../runs.js';

/** The reference: one byte at a time from the low end. */
function bytesByShifting(v: bigint): number[] {
  const out = new Array<number>(16).fill(0);
  for (let i = 15; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

describe('ipBytes', () => {
  it('is the low 128 bits big-endian, whatever the value', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }),
          fc.bigInt({ min: -(1n << 140n), max: 1n << 140n }),
          fc.nat().map((v4) => (0xffffn << 32n) | BigInt(v4)),
        ),
        fc.constantFrom<4 | 6>(4, 6),
        (v6, family) => {
          const ip: GoIP = { family, v4: 0, v6 };
          expect([...ipBytes(ip)]).toEqual(bytesByShifting(v6));
        },
      ),
      { numRuns: runs(700, 20_000) },
    );
  });

  it('of parsed addresses prints them back', () => {
    for (const s of [
      '10.244.0.2',
      '0.0.0.0',
      '255.255.255.255',
      '::ffff:1.2.3.4',
      'fd00::1',
      '::',
      'ffff::ffff',
    ])
      expect(ipString(ipBytes(goParseIP(s)!))).toBe(s === '::ffff:1.2.3.4' ? '1.2.3.4' : s);
  });
});

/** Address-like text: dotted quads (leading zeros, big octets, signs), IPv6 forms, junk. */
const octet = fc.oneof(
  fc.nat(255).map(String),
  fc.constantFrom('00', '01', '256', '999', '+1', '-1', '', ' 1', '0x1'),
);
const addr = fc.oneof(
  fc.array(octet, { minLength: 3, maxLength: 5 }).map((o) => o.join('.')),
  fc.tuple(fc.nat(255), fc.nat(255)).map(([a, b]) => `::ffff:10.${a}.${b}.1`),
  fc
    .array(
      fc.nat(0xffff).map((x) => x.toString(16)),
      { minLength: 1, maxLength: 8 },
    )
    .map((g) => g.join(':')),
  fc.constantFrom(
    '::',
    '::1',
    'fe80::1%eth0',
    '1.2.3.4.',
    '',
    '1::2::3',
    '::ffff:1.2.3.4',
    '0:0:0:0:0:ffff:0102:0304',
  ),
  fc.string({ maxLength: 8 }),
);
const prefix = fc.oneof(
  fc.nat(140).map(String),
  fc.constantFrom('', '024', '0000000032', '+8', '1e1', ' 8', '16777215', '99999999'),
);

describe('canonical texts without the 16-byte form', () => {
  it('goIPText and goCanonicalIP are goParseIP then goFormatIP', () => {
    fc.assert(
      fc.property(addr, (s) => {
        const ip = goParseIP(s);
        expect(goIPText(s)).toEqual(ip ? { text: goFormatIP(ip), family: ip.family } : undefined);
        expect(goCanonicalIP(s)).toBe(ip ? goFormatIP(ip) : undefined);
      }),
      { numRuns: runs(1_000, 30_000) },
    );
  });

  it('goCanonicalCIDR is goParseCIDR then goFormatCIDR, goCIDRFamily its family', () => {
    fc.assert(
      fc.property(addr, prefix, fc.boolean(), (a, p, slash) => {
        const s = slash ? `${a}/${p}` : a;
        const n = goParseCIDR(s);
        expect(goCanonicalCIDR(s)).toBe(n ? goFormatCIDR(n) : undefined);
        expect(goCIDRFamily(s)).toBe(n?.ip.family);
      }),
      { numRuns: runs(1_000, 30_000) },
    );
  });
});
