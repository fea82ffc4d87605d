import { describe, expect, it } from 'vitest';
import {
  formatIPv4,
  formatIPv6,
  formatIp,
  formatPrefix,
  ipEquals,
  ipKey,
  isDefaultRoute,
  parseIPv4,
  parseIPv6,
  parseIp,
  parsePrefix,
  prefixContains,
  prefixLast,
  prefixOverlaps,
  type IpAddr,
  type Prefix,
} from '../../src/addr/index.js';

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

describe('parseIPv4', () => {
  it.each([
    ['0.0.0.0', 0],
    ['192.168.100.1', 0xc0a86401],
    ['10.0.0.0', 0x0a000000],
    ['255.255.255.255', 0xffffffff],
    ['172.29.144.1', 0xac1d9001],
  ])('%s → %i', (s, n) => {
    expect(parseIPv4(s)).toBe(n);
    expect(formatIPv4(n)).toBe(s);
  });

  it.each([
    '192.168.100.01', // leading zero
    '010.0.0.1',
    '00.0.0.0',
    '256.0.0.1',
    '1.2.3.256',
    '1.2.3',
    '1.2.3.4.5',
    '1.2.3.',
    '.1.2.3',
    '1..2.3',
    ' 1.2.3.4',
    '1.2.3.4 ',
    '1.2 .3.4',
    '1.2.3.4/24',
    '0x1.2.3.4',
    '+1.2.3.4',
    '',
    '1234.1.1.1',
    '::1',
  ])('rejects %j', (s) => {
    expect(parseIPv4(s)).toBeUndefined();
  });
});

describe('IPv6 parse and RFC 5952 format', () => {
  it.each([
    ['fd00::106', 'fd00::106'],
    ['FD00::106', 'fd00::106'],
    ['fd00:0:0:0:0:0:0:106', 'fd00::106'],
    ['::', '::'],
    ['0:0:0:0:0:0:0:0', '::'],
    ['::1', '::1'],
    ['fd00::100', 'fd00::100'],
    // the longest run of zero groups is compressed
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:db8::1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:0:0:1:0:0:0:1', '2001:0:0:1::1'],
    // tie: the first run wins
    ['2001:db8:0:0:1:1:0:0', '2001:db8::1:1:0:0'],
    // a single zero group is never compressed
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    // leading zeros dropped, lower case
    ['2001:0DB8:00AB:000C::0001', '2001:db8:ab:c::1'],
    ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'],
    ['::1:2:3:4:5:6:7', '0:1:2:3:4:5:6:7'],
    ['fe80::', 'fe80::'],
    // IPv4-mapped addresses keep a dotted quad (RFC 5952 §5)
    ['::ffff:192.0.2.1', '::ffff:192.0.2.1'],
    ['::ffff:c000:201', '::ffff:192.0.2.1'],
  ])('%s → %s', (input, out) => {
    const v = parseIPv6(input);
    expect(v).toBeDefined();
    expect(formatIPv6(v!)).toBe(out);
    expect(parseIPv6(out)).toBe(v);
  });

  it('parses to the right integers', () => {
    expect(parseIPv6('::1')).toBe(1n);
    expect(parseIPv6('fd00::106')).toBe((0xfd00n << 112n) | 0x106n);
    expect(parseIPv6('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff')).toBe((1n << 128n) - 1n);
  });

  it.each([
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7',
    '1::2::3',
    '00001::',
    ':1',
    '1:',
    ':::',
    'fe80::1%eth0',
    ' ::1',
    '::1 ',
    '::1/64',
    'g::',
    '::256.1.1.1',
    '1.2.3.4',
    '',
  ])('rejects %j', (s) => {
    expect(parseIPv6(s)).toBeUndefined();
  });
});

describe('parseIp / formatIp / keys', () => {
  it('tells the families apart', () => {
    expect(parseIp('192.168.128.4')).toEqual({ family: 4, value: 0xc0a88004 });
    expect(parseIp('fd00::106')).toEqual({ family: 6, value: (0xfd00n << 112n) | 0x106n });
    expect(parseIp('nonsense')).toBeUndefined();
    expect(formatIp(ip('192.168.128.4'))).toBe('192.168.128.4');
    expect(formatIp(ip('FD00:0::106'))).toBe('fd00::106');
  });

  it('compares and keys by family and value', () => {
    expect(ipEquals(ip('10.0.0.1'), ip('10.0.0.1'))).toBe(true);
    expect(ipEquals(ip('10.0.0.1'), ip('10.0.0.2'))).toBe(false);
    // ::a00:1 has the same integer value as 10.0.0.1 but another family
    expect(ipEquals(ip('10.0.0.1'), ip('::a00:1'))).toBe(false);
    expect(ipKey(ip('10.0.0.1'))).toBe('4:167772161');
    expect(ipKey(ip('::a00:1'))).toBe('6:167772161');
  });
});

describe('parsePrefix', () => {
  it('parses the reference subnets', () => {
    expect(parsePrefix('192.168.100.0/24', true)).toEqual({
      family: 4,
      addr: 0xc0a86400,
      len: 24,
      host: { family: 4, value: 0xc0a86400 },
    });
    const v6 = parsePrefix('fd00::100/120', true)!;
    expect(v6.family).toBe(6);
    expect(v6.len).toBe(120);
    expect(formatPrefix(v6)).toBe('fd00::100/120');
    expect(formatPrefix(pfx('192.168.128.0/20'))).toBe('192.168.128.0/20');
    expect(formatPrefix(pfx('0.0.0.0/0'))).toBe('0.0.0.0/0');
    expect(formatPrefix(pfx('::/0'))).toBe('::/0');
  });

  it('strict mode refuses host bits; lenient mode clears them and keeps the host', () => {
    expect(parsePrefix('192.168.128.4/20', true)).toBeUndefined();
    const p = parsePrefix('192.168.128.4/20')!;
    expect(formatPrefix(p)).toBe('192.168.128.0/20');
    expect(formatIp(p.host)).toBe('192.168.128.4');
    expect(parsePrefix('fd00::106/120', true)).toBeUndefined();
    const q = parsePrefix('fd00::106/120')!;
    expect(formatPrefix(q)).toBe('fd00::100/120');
    expect(formatIp(q.host)).toBe('fd00::106');
  });

  it.each([
    '10.0.0.0',
    '10.0.0.0/',
    '10.0.0.0/33',
    '10.0.0.0/08',
    '10.0.0.0/-1',
    '10.0.0.0/8/8',
    '/8',
    '10.0.0.0/ 8',
    '10.0.0.0/8 ',
    '10.0.0.256/8',
    '::/129',
    'fd00::/0120',
  ])('rejects %j', (s) => {
    expect(parsePrefix(s)).toBeUndefined();
  });

  it('accepts the length bounds', () => {
    expect(pfx('10.0.0.1/32').len).toBe(32);
    expect(pfx('::1/128').len).toBe(128);
    expect(isDefaultRoute(pfx('0.0.0.0/0'))).toBe(true);
    expect(isDefaultRoute(pfx('::/0'))).toBe(true);
    expect(isDefaultRoute(pfx('10.0.0.0/8'))).toBe(false);
  });
});

describe('prefix math', () => {
  it('contains', () => {
    const p = pfx('192.168.128.0/20');
    expect(prefixContains(p, ip('192.168.128.4'))).toBe(true);
    expect(prefixContains(p, ip('192.168.143.255'))).toBe(true);
    expect(prefixContains(p, ip('192.168.144.0'))).toBe(false);
    expect(prefixContains(p, ip('192.168.127.255'))).toBe(false);
    expect(prefixContains(p, ip('::ffff:192.168.128.4'))).toBe(false);
    const q = pfx('fd00::100/120');
    expect(prefixContains(q, ip('fd00::106'))).toBe(true);
    expect(prefixContains(q, ip('fd00::1ff'))).toBe(true);
    expect(prefixContains(q, ip('fd00::200'))).toBe(false);
    expect(prefixContains(q, ip('192.168.128.4'))).toBe(false);
    expect(prefixContains(pfx('0.0.0.0/0'), ip('255.255.255.255'))).toBe(true);
    expect(prefixContains(pfx('::/0'), ip('ffff::'))).toBe(true);
    expect(prefixContains(pfx('10.0.0.7/32'), ip('10.0.0.7'))).toBe(true);
    expect(prefixContains(pfx('10.0.0.7/32'), ip('10.0.0.6'))).toBe(false);
  });

  it('overlap', () => {
    expect(prefixOverlaps(pfx('10.0.0.0/8'), pfx('10.244.1.0/24'))).toBe(true);
    expect(prefixOverlaps(pfx('10.244.1.0/24'), pfx('10.0.0.0/8'))).toBe(true);
    expect(prefixOverlaps(pfx('10.244.1.0/24'), pfx('10.244.2.0/24'))).toBe(false);
    expect(prefixOverlaps(pfx('192.168.128.0/20'), pfx('192.168.143.0/24'))).toBe(true);
    expect(prefixOverlaps(pfx('192.168.128.0/20'), pfx('192.168.144.0/24'))).toBe(false);
    expect(prefixOverlaps(pfx('0.0.0.0/0'), pfx('1.2.3.4/32'))).toBe(true);
    expect(prefixOverlaps(pfx('fd00::100/120'), pfx('fd00::/64'))).toBe(true);
    expect(prefixOverlaps(pfx('fd00::100/120'), pfx('fd00::200/120'))).toBe(false);
    expect(prefixOverlaps(pfx('10.0.0.0/8'), pfx('::/0'))).toBe(false);
  });

  it('prefixLast is the broadcast for IPv4 and the last address for IPv6', () => {
    expect(formatIp(prefixLast(pfx('192.168.100.0/24')))).toBe('192.168.100.255');
    expect(formatIp(prefixLast(pfx('192.168.128.0/20')))).toBe('192.168.143.255');
    expect(formatIp(prefixLast(pfx('172.29.144.0/20')))).toBe('172.29.159.255');
    expect(formatIp(prefixLast(pfx('10.0.0.0/8')))).toBe('10.255.255.255');
    expect(formatIp(prefixLast(pfx('0.0.0.0/0')))).toBe('255.255.255.255');
    expect(formatIp(prefixLast(pfx('10.0.0.7/32')))).toBe('10.0.0.7');
    expect(formatIp(prefixLast(pfx('10.0.0.6/31')))).toBe('10.0.0.7');
    expect(formatIp(prefixLast(pfx('fd00::100/120')))).toBe('fd00::1ff');
    expect(formatIp(prefixLast(pfx('fd00::/64')))).toBe('fd00::ffff:ffff:ffff:ffff');
    expect(formatIp(prefixLast(pfx('::/0')))).toBe('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff');
    expect(formatIp(prefixLast(pfx('::1/128')))).toBe('::1');
  });
});
