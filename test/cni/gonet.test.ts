/**
 * Go's `net` pieces flannel relies on, against Go's own test tables: `net.ParseCIDR`'s network and
 * `IPNet.String()` (golang/go `src/net/ip_test.go` parseCIDRTests), `net.ParseMAC` and
 * `HardwareAddr.String()` (`src/net/mac_test.go` parseMACTests).
 */
import { describe, expect, it } from 'vitest';
import { ipEqual, netString, parseCIDRNet } from '../../src/cni/goip.js';
import { macString, parseMAC } from '../../src/cni/gomac.js';
import { parseUint10 } from '../../src/cni/gostrconv.js';

describe('net.ParseCIDR → IPNet.String()', () => {
  // golang/go src/net/ip_test.go parseCIDRTests: the *IPNet each input yields, printed
  const vectors: [string, string][] = [
    ['135.104.0.0/32', '135.104.0.0/32'],
    ['0.0.0.0/24', '0.0.0.0/24'],
    ['135.104.0.0/24', '135.104.0.0/24'],
    ['135.104.0.1/32', '135.104.0.1/32'],
    ['135.104.0.1/24', '135.104.0.0/24'],
    ['::1/128', '::1/128'],
    ['abcd:2345::/127', 'abcd:2345::/127'],
    ['abcd:2345::/65', 'abcd:2345::/65'],
    ['abcd:2345::/64', 'abcd:2345::/64'],
    ['abcd:2345::/63', 'abcd:2345::/63'],
    ['abcd:2345::/33', 'abcd:2345::/33'],
    ['abcd:2345::/32', 'abcd:2345::/32'],
    ['abcd:2344::/31', 'abcd:2344::/31'],
    ['abcd:2300::/24', 'abcd:2300::/24'],
    ['abcd:2345::/24', 'abcd:2300::/24'],
    ['2001:DB8::/48', '2001:db8::/48'],
    ['2001:DB8::1/48', '2001:db8::/48'],
  ];
  it.each(vectors)('%s → %s', (input, out) => {
    expect(netString(parseCIDRNet(input))).toBe(out);
  });

  // the same table's errors: every one a *ParseError{Type: "CIDR address"}
  it.each([
    '192.168.1.1/255.255.255.0',
    '192.168.1.1/35',
    '2001:db8::1/-1',
    '2001:db8::1/-0',
    '-0.0.0.0/32',
    '0.-1.0.0/32',
    '0.0.-2.0/32',
    '0.0.0.-3/32',
    '0.0.0.0/-0',
    '',
  ])('%j is not a CIDR', (input) => {
    expect(parseCIDRNet(input)).toBeUndefined();
  });

  it('a v4-mapped IPv6 CIDR keeps its 16-byte mask and prints as IPv4', () => {
    expect(netString(parseCIDRNet('::ffff:10.1.2.3/120'))).toBe('10.1.2.0/24');
  });

  it('a nil network prints <nil>', () => {
    expect(netString(undefined)).toBe('<nil>');
  });

  it('IP.Equal: the 4- and 16-byte forms of one IPv4 address are equal', () => {
    const a = parseCIDRNet('10.0.0.0/8')!.ip;
    const b = parseCIDRNet('::ffff:10.0.0.0/104')!.ip;
    expect(a.length).toBe(4);
    expect(b.length).toBe(16);
    expect(ipEqual(a, b)).toBe(true);
    expect(ipEqual(a, parseCIDRNet('10.0.0.1/32')!.ip)).toBe(false);
  });
});

describe('net.ParseMAC → HardwareAddr.String()', () => {
  // golang/go src/net/mac_test.go parseMACTests
  const good: [string, string][] = [
    ['00:00:5e:00:53:01', '00:00:5e:00:53:01'],
    ['01:23:45:67:89:AB', '01:23:45:67:89:ab'],
    ['01-23-45-67-89-AB', '01:23:45:67:89:ab'],
    ['0123.4567.89AB', '01:23:45:67:89:ab'],
    ['ab:cd:ef:AB:CD:EF', 'ab:cd:ef:ab:cd:ef'],
    ['01:23:45:67:89:AB:CD:EF', '01:23:45:67:89:ab:cd:ef'],
    ['01-23-45-67-89-AB-CD-EF', '01:23:45:67:89:ab:cd:ef'],
    ['0123.4567.89AB.CDEF', '01:23:45:67:89:ab:cd:ef'],
    [
      '01:23:45:67:89:ab:cd:ef:00:00:01:23:45:67:89:ab:cd:ef:00:00',
      '01:23:45:67:89:ab:cd:ef:00:00:01:23:45:67:89:ab:cd:ef:00:00',
    ],
    [
      '0123.4567.89ab.cdef.0000.0123.4567.89ab.cdef.0000',
      '01:23:45:67:89:ab:cd:ef:00:00:01:23:45:67:89:ab:cd:ef:00:00',
    ],
    // the form HNS reports a DR MAC in
    ['00-15-5D-07-B6-48', '00:15:5d:07:b6:48'],
  ];
  it.each(good)('%s → %s', (input, out) => {
    expect(macString(parseMAC(input))).toBe(out);
  });

  it.each([
    '01.02.03.04.05.06',
    '01:02:03:04:05:06:',
    'x1:02:03:04:05:06',
    '01002:03:04:05:06',
    '01:02003:04:05:06',
    '01:02:03004:05:06',
    '01:02:03:04005:06',
    '01:02:03:04:05006',
    '01-02:03:04:05:06',
    '01:02-03-04-05-06',
    '0123:4567:89AF',
    '0123-4567-89AF',
    '0123456789AF0',
    '',
  ])('%j is invalid', (input) => {
    expect(parseMAC(input)).toBeUndefined();
  });

  it('a nil HardwareAddr prints as the empty string', () => {
    expect(macString(undefined)).toBe('');
  });
});

describe('strconv.ParseUint(s, 10, 32)', () => {
  it('values and errors', () => {
    expect(parseUint10('0', 32)).toEqual({ value: 0 });
    expect(parseUint10('007', 32)).toEqual({ value: 7 });
    expect(parseUint10('4294967295', 32)).toEqual({ value: 4294967295 });
    expect(parseUint10('4294967296', 32)).toEqual({
      error: 'strconv.ParseUint: parsing "4294967296": value out of range',
    });
    expect(parseUint10('1 ', 32)).toEqual({ error: 'strconv.ParseUint: parsing "1 ": invalid syntax' });
    expect(parseUint10('\t', 32)).toEqual({ error: 'strconv.ParseUint: parsing "\\t": invalid syntax' });
  });
});
