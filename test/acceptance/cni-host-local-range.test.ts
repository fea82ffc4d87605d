// Every case of containernetworking/plugins @3d27709f (v1.9.1)
// plugins/ipam/host-local/backend/allocator/range_test.go ("IP ranges") and range_set_test.go
// ("range sets"), translated. All apply on Windows.
import { describe, expect, it } from 'vitest';
import {
  canonicalizeRange,
  canonicalizeRangeSet,
  rangeContains,
  rangeFor,
  rangeOverlaps,
  rangeSetContains,
  rangeSetOverlaps,
  type Range,
  type RangeSet,
} from '../../src/plugins/host-local/index.js';
import { ip, mustSubnet, networkSubnet } from '../plugins/host-local/helpers.js';

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected an error');
}

describe('range_test.go: IP ranges', () => {
  // Each canonicalises {Subnet: mustSubnet(subnet)} and expects the subnet's network and defaults.
  it.each([
    {
      name: 'should generate sane defaults for ipv4 with a clean prefix',
      subnet: '192.0.2.0/24',
      start: '192.0.2.1',
      end: '192.0.2.254',
      gw: '192.0.2.1',
    },
    {
      name: 'should generate sane defaults for a smaller ipv4 subnet',
      subnet: '192.0.2.0/25',
      start: '192.0.2.1',
      end: '192.0.2.126',
      gw: '192.0.2.1',
    },
    {
      name: 'should generate sane defaults for ipv6 with a clean prefix',
      subnet: '2001:DB8:1::/64',
      start: '2001:DB8:1::1',
      end: '2001:DB8:1::ffff:ffff:ffff:ffff',
      gw: '2001:DB8:1::1',
    },
  ])('$name', ({ subnet, start, end, gw }) => {
    const r: Range = { subnet: mustSubnet(subnet) };
    canonicalizeRange(r);
    expect(r).toEqual({
      subnet: networkSubnet(subnet),
      rangeStart: ip(start),
      rangeEnd: ip(end),
      gateway: ip(gw),
    });
  });

  // Each canonicalises {Subnet: mustSubnet(subnet)} and expects the error.
  it.each([
    {
      name: 'should reject ipv4 subnet using a masked address',
      subnet: '192.0.2.12/24',
      error: 'Network has host bits set. For a subnet mask of length 24 the network address is 192.0.2.0',
    },
    {
      name: 'should reject ipv6 subnet using a masked address',
      subnet: '2001:DB8:1::24:19ff:fee1:c44a/64',
      error: 'Network has host bits set. For a subnet mask of length 64 the network address is 2001:db8:1::',
    },
    {
      name: 'should reject ipv6 prefix with host bit set',
      subnet: '2001:DB8:24:19ff::/63',
      error:
        'Network has host bits set. For a subnet mask of length 63 the network address is 2001:db8:24:19fe::',
    },
    {
      name: 'should reject ipv4 network with host bit set',
      subnet: '192.168.127.0/23',
      error: 'Network has host bits set. For a subnet mask of length 23 the network address is 192.168.126.0',
    },
    {
      name: "Should reject a network that's too small",
      subnet: '192.0.2.0/31',
      error: 'Network 192.0.2.0/31 too small to allocate from',
    },
  ])('$name', ({ subnet, error }) => {
    expect(errorOf(() => canonicalizeRange({ subnet: mustSubnet(subnet) }))).toBe(error);
  });

  it('should reject invalid RangeStart and RangeEnd specifications', () => {
    expect(
      errorOf(() => canonicalizeRange({ subnet: mustSubnet('192.0.2.0/24'), rangeStart: ip('192.0.3.0') })),
    ).toBe('RangeStart 192.0.3.0 not in network 192.0.2.0/24');
    expect(
      errorOf(() => canonicalizeRange({ subnet: mustSubnet('192.0.2.0/24'), rangeEnd: ip('192.0.4.0') })),
    ).toBe('RangeEnd 192.0.4.0 not in network 192.0.2.0/24');
    expect(
      errorOf(() =>
        canonicalizeRange({
          subnet: networkSubnet('192.0.2.0/24'),
          rangeStart: ip('192.0.2.50'),
          rangeEnd: ip('192.0.2.40'),
        }),
      ),
    ).toBe('RangeStart 192.0.2.50 not in network 192.0.2.0/24');
  });

  it('should parse all fields correctly', () => {
    const r: Range = {
      subnet: mustSubnet('192.0.2.0/24'),
      rangeStart: ip('192.0.2.40'),
      rangeEnd: ip('192.0.2.50'),
      gateway: ip('192.0.2.254'),
    };
    canonicalizeRange(r);
    expect(r).toEqual({
      subnet: networkSubnet('192.0.2.0/24'),
      rangeStart: ip('192.0.2.40'),
      rangeEnd: ip('192.0.2.50'),
      gateway: ip('192.0.2.254'),
    });
  });

  // Each canonicalises the range and probes rangeContains with [ip, wanted] pairs.
  it.each<{ name: string; r: Range; probes: [string, boolean][] }>([
    {
      name: 'should accept v4 IPs in range and reject IPs out of range',
      r: {
        subnet: mustSubnet('192.0.2.0/24'),
        rangeStart: ip('192.0.2.40'),
        rangeEnd: ip('192.0.2.50'),
        gateway: ip('192.0.2.254'),
      },
      probes: [
        ['192.0.3.0', false],
        ['192.0.2.39', false],
        ['192.0.2.40', true],
        ['192.0.2.50', true],
        ['192.0.2.51', false],
      ],
    },
    {
      name: 'should accept v6 IPs in range and reject IPs out of range',
      r: {
        subnet: mustSubnet('2001:DB8:1::/64'),
        rangeStart: ip('2001:db8:1::40'),
        rangeEnd: ip('2001:db8:1::50'),
      },
      probes: [
        ['2001:db8:2::', false],
        ['2001:db8:1::39', false],
        ['2001:db8:1::40', true],
        ['2001:db8:1::50', true],
        ['2001:db8:1::51', false],
      ],
    },
  ])('$name', ({ r, probes }) => {
    canonicalizeRange(r);
    for (const [addr, want] of probes) expect(rangeContains(r, ip(addr)), addr).toBe(want);
  });

  describe('Detecting overlap', () => {
    const entries: [string, Range, Range, boolean][] = [
      [
        'non-overlapping',
        { subnet: mustSubnet('10.0.0.0/24') },
        { subnet: mustSubnet('10.0.1.0/24') },
        false,
      ],
      // note that the bits overlap
      ['different families', { subnet: mustSubnet('0.0.0.0/24') }, { subnet: mustSubnet('::/24') }, false],
      ['Identical', { subnet: mustSubnet('10.0.0.0/24') }, { subnet: mustSubnet('10.0.0.0/24') }, true],
      ['Containing', { subnet: mustSubnet('10.0.0.0/20') }, { subnet: mustSubnet('10.0.1.0/24') }, true],
      [
        'same subnet, non overlapping start + end',
        { subnet: mustSubnet('10.0.0.0/24'), rangeEnd: ip('10.0.0.127') },
        { subnet: mustSubnet('10.0.0.0/24'), rangeStart: ip('10.0.0.128') },
        false,
      ],
      [
        'same subnet, overlapping start + end',
        { subnet: mustSubnet('10.0.0.0/24'), rangeEnd: ip('10.0.0.127') },
        { subnet: mustSubnet('10.0.0.0/24'), rangeStart: ip('10.0.0.127') },
        true,
      ],
    ];
    for (const [name, r1, r2, expected] of entries) {
      it(name, () => {
        canonicalizeRange(r1);
        canonicalizeRange(r2);
        // the operation should be commutative
        expect(rangeOverlaps(r1, r2)).toBe(expected);
        expect(rangeOverlaps(r2, r1)).toBe(expected);
      });
    }
  });
});

describe('range_set_test.go: range sets', () => {
  it('should detect set membership correctly', () => {
    const p: RangeSet = [{ subnet: mustSubnet('192.168.0.0/24') }, { subnet: mustSubnet('172.16.1.0/24') }];
    canonicalizeRangeSet(p);
    expect(rangeSetContains(p, ip('192.168.0.55'))).toBe(true);
    expect(rangeFor(p, ip('192.168.0.55'))).toEqual(p[0]);
    expect(errorOf(() => rangeFor(p, ip('192.168.99.99')))).toBe(
      '192.168.99.99 not in range set 192.168.0.1-192.168.0.254,172.16.1.1-172.16.1.254',
    );
  });

  it('should discover overlaps within a set', () => {
    const p: RangeSet = [{ subnet: mustSubnet('192.168.0.0/20') }, { subnet: mustSubnet('192.168.2.0/24') }];
    expect(errorOf(() => canonicalizeRangeSet(p))).toBe(
      'subnets 192.168.0.1-192.168.15.254 and 192.168.2.1-192.168.2.254 overlap',
    );
  });

  it('should discover overlaps outside a set', () => {
    const p1: RangeSet = [{ subnet: mustSubnet('192.168.0.0/20') }];
    const p2: RangeSet = [{ subnet: mustSubnet('192.168.2.0/24') }];
    canonicalizeRangeSet(p1);
    canonicalizeRangeSet(p2);
    expect(rangeSetOverlaps(p1, p2)).toBe(true);
    expect(rangeSetOverlaps(p2, p1)).toBe(true);
  });
});
