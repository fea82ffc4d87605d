/**
 * Go `net` behaviours the plugins compute with (src/cni/goip.ts). Expected values were
 * printed by Go's `net` package: `ParseCIDR` keeps a 16-byte IPv4 host address, `IP.Mask` returns
 * 4 bytes for it, `IPNet.String()` does not mask and gives `<nil>` when families disagree.
 */
import { describe, expect, it } from 'vitest';
import { ipNetString, ipString, maskIP, parseCIDR, parseIP, to4 } from '../../src/cni/goip.js';

describe('Go net.IP', () => {
  it('ParseCIDR keeps the host address (16 bytes for IPv4) and accepts leading zeros in the length', () => {
    const c = parseCIDR('10.244.1.3/24');
    expect(c.ip).toHaveLength(16);
    expect(ipString(c.ip)).toBe('10.244.1.3');
    expect([...c.mask]).toEqual([255, 255, 255, 0]);
    expect([...parseCIDR('10.0.0.0/024').mask]).toEqual([255, 255, 255, 0]);
  });

  it('ParseCIDR errors read `invalid CIDR address: <s>`', () => {
    expect(() => parseCIDR('10.0.0.0/+24')).toThrow('invalid CIDR address: 10.0.0.0/+24');
    expect(() => parseCIDR('10.0.0.1/33')).toThrow('invalid CIDR address: 10.0.0.1/33');
    expect(() => parseCIDR('10.0.0.1')).toThrow('invalid CIDR address: 10.0.0.1');
  });

  it('Mask of a 16-byte IPv4 address with a 4-byte mask gives 4 bytes (the gateway "+2" base)', () => {
    const c = parseCIDR('10.10.5.7/16');
    const gw = maskIP(c.ip, c.mask)!;
    expect(gw).toHaveLength(4);
    gw[gw.length - 1]! += 2;
    expect(ipString(gw)).toBe('10.10.0.2');
  });

  it('String of nil is <nil>; IPv4-mapped prints dotted; IPv6 RFC 5952', () => {
    expect(ipString(null)).toBe('<nil>');
    expect(ipString(parseIP('::ffff:10.1.2.3'))).toBe('10.1.2.3');
    expect(ipString(parseIP('fe80:0:0:0:0:0:0:5'))).toBe('fe80::5');
    expect(to4(parseIP('fe80::5'))).toBeNull();
  });

  it('IPNet.String does not mask, and is <nil> for an IPv6 address with an IPv4 mask', () => {
    expect(ipNetString(parseIP('10.0.0.1'), parseCIDR('10.0.0.0/24').mask)).toBe('10.0.0.1/24');
    expect(ipNetString(parseIP('fe80::5'), parseCIDR('10.0.0.0/24').mask)).toBe('<nil>');
    expect(ipNetString(parseIP('10.1.1.1'), parseCIDR('fe80::/64').mask)).toBe('10.1.1.1/0');
    expect(ipNetString(null, parseCIDR('10.0.0.0/24').mask)).toBe('<nil>');
  });
});
