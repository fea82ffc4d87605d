/**
 * host-local parses subnets with Go's net.ParseCIDR, whose prefix length is read by `dtoi`
 * (go/src/net/parse.go): decimal digits, any number of leading zeros, and a value below 0xFFFFFF
 * (`big`), then compared with the address's bit count. A length cap on the text (the earlier
 * port refused more than 7 digits) rejected prefixes Go accepts.
 */
import { describe, expect, it } from 'vitest';
import { ipNetString, parseCIDR } from '../../../src/plugins/host-local/ip.js';

describe('host-local ParseCIDR: the prefix length as Go reads it', () => {
  it.each([
    ['10.1.2.0/24', '10.1.2.0/24'],
    ['10.1.2.0/024', '10.1.2.0/24'],
    ['10.1.2.0/00000024', '10.1.2.0/24'],
    ['10.1.2.0/0000000000000016', '10.1.2.0/16'],
    ['fd00::/00000064', 'fd00::/64'],
  ])('%s is accepted as %s', (text, shown) => {
    expect(ipNetString(parseCIDR(text))).toBe(shown);
  });

  it.each(['10.1.2.0/33', '10.1.2.0/', '10.1.2.0/+24', '10.1.2.0/2a', '10.1.2.0/16777215', 'fd00::/129'])(
    '%s is refused',
    (text) => {
      expect(parseCIDR(text)).toBeUndefined();
    },
  );
});
