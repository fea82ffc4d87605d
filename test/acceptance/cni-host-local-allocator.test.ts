// Every case of containernetworking/plugins @3d27709f (v1.9.1)
// plugins/ipam/host-local/backend/allocator/allocator_test.go ("host-local ip allocator"),
// translated: the allocator over Go's fake store (test/plugins/host-local/helpers.ts FakeStore).
// All of them apply on Windows (the allocator has no OS-specific code).
import { describe, expect, it } from 'vitest';
import {
  allocatedAddress,
  canonicalizeRangeSet,
  IPAllocator,
  ipString,
  parseIP,
  type AllocatedIP,
  type RangeIter,
  type RangeSet,
} from '../../src/plugins/host-local/index.js';
import { FakeStore, ip, mustSubnet } from '../plugins/host-local/helpers.js';

interface AllocatorTestCase {
  subnets: string[];
  ipmap: Record<string, string>;
  expectResult?: string;
  lastIP?: string;
}

/** allocator_test.go `mkalloc()`: 192.168.1.0/29, an empty fake store, range ID "rangeid". */
function mkalloc(): IPAllocator {
  const p: RangeSet = [{ subnet: mustSubnet('192.168.1.0/29') }];
  canonicalizeRangeSet(p);
  return new IPAllocator(p, new FakeStore(), 'rangeid');
}

/** allocator_test.go `newAllocatorWithMultiRanges()` (its Canonicalize error is ignored, `_ =`). */
function newAllocatorWithMultiRanges(): IPAllocator {
  const p: RangeSet = [
    { rangeStart: ip('192.168.1.0'), rangeEnd: ip('192.168.1.3'), subnet: mustSubnet('192.168.1.1/30') },
    { rangeStart: ip('192.168.2.0'), rangeEnd: ip('192.168.2.3'), subnet: mustSubnet('192.168.2.1/30') },
  ];
  try {
    canonicalizeRangeSet(p);
  } catch {
    // `_ = p.Canonicalize()`
  }
  return new IPAllocator(p, new FakeStore(), 'rangeid');
}

/** `AllocatorTestCase.run`: the ranges canonicalised, a fake store with `ipmap` and `lastIP`, Get("ID", "eth0"). */
function run(tc: AllocatorTestCase): AllocatedIP {
  const p: RangeSet = tc.subnets.map((s) => ({ subnet: mustSubnet(s) }));
  canonicalizeRangeSet(p);
  const store = new FakeStore(
    new Map(Object.entries(tc.ipmap)),
    new Map([['rangeid', parseIP(tc.lastIP ?? '')]]),
  );
  return new IPAllocator(p, store, 'rangeid').get('ID', 'eth0');
}

/** allocator_test.go `nextip()`. */
function nextip(r: RangeIter): string | undefined {
  const c = r.next();
  return c === undefined ? undefined : ipString(c.ip);
}

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error');
}

describe('allocator_test.go: host-local ip allocator', () => {
  describe('RangeIter', () => {
    // Each reserves and releases `last` (when given), so the store remembers it, then takes six.
    it.each([
      {
        name: 'should loop correctly from the beginning',
        last: undefined,
        want: ['192.168.1.2', '192.168.1.3', '192.168.1.4', '192.168.1.5', '192.168.1.6', undefined],
      },
      {
        name: 'should loop correctly from the end',
        last: '192.168.1.6',
        want: ['192.168.1.2', '192.168.1.3', '192.168.1.4', '192.168.1.5', '192.168.1.6', undefined],
      },
      {
        name: 'should loop correctly from the middle',
        last: '192.168.1.3',
        want: ['192.168.1.4', '192.168.1.5', '192.168.1.6', '192.168.1.2', '192.168.1.3', undefined],
      },
    ])('$name', ({ last, want }) => {
      const a = mkalloc();
      if (last !== undefined) {
        a.store.reserve('ID', 'eth0', ip(last), a.rangeID);
        a.store.releaseByID('ID', 'eth0');
      }
      const r = a.getIter();
      expect(Array.from({ length: 6 }, () => nextip(r))).toEqual(want);
    });
  });

  describe('when has free ip', () => {
    it('should allocate ips in round robin', () => {
      const testCases: AllocatorTestCase[] = [
        // fresh start
        { subnets: ['10.0.0.0/29'], ipmap: {}, expectResult: '10.0.0.2', lastIP: '' },
        { subnets: ['2001:db8:1::0/64'], ipmap: {}, expectResult: '2001:db8:1::2', lastIP: '' },
        { subnets: ['10.0.0.0/30'], ipmap: {}, expectResult: '10.0.0.2', lastIP: '' },
        { subnets: ['10.0.0.0/29'], ipmap: { '10.0.0.2': 'id' }, expectResult: '10.0.0.3', lastIP: '' },
        // next ip of last reserved ip
        { subnets: ['10.0.0.0/29'], ipmap: {}, expectResult: '10.0.0.6', lastIP: '10.0.0.5' },
        {
          subnets: ['10.0.0.0/29'],
          ipmap: { '10.0.0.4': 'id', '10.0.0.5': 'id' },
          expectResult: '10.0.0.6',
          lastIP: '10.0.0.3',
        },
        // round robin to the beginning
        {
          subnets: ['10.0.0.0/29'],
          ipmap: { '10.0.0.6': 'id' },
          expectResult: '10.0.0.2',
          lastIP: '10.0.0.5',
        },
        // lastIP is out of range
        {
          subnets: ['10.0.0.0/29'],
          ipmap: { '10.0.0.2': 'id' },
          expectResult: '10.0.0.3',
          lastIP: '10.0.0.128',
        },
        // subnet is completely full except for lastip: wrap around and reserve lastIP
        {
          subnets: ['10.0.0.0/29'],
          ipmap: { '10.0.0.2': 'id', '10.0.0.4': 'id', '10.0.0.5': 'id', '10.0.0.6': 'id' },
          expectResult: '10.0.0.3',
          lastIP: '10.0.0.3',
        },
        // allocate from multiple subnets
        { subnets: ['10.0.0.0/30', '10.0.1.0/30'], expectResult: '10.0.0.2', ipmap: {} },
        // advance to next subnet
        { subnets: ['10.0.0.0/30', '10.0.1.0/30'], lastIP: '10.0.0.2', expectResult: '10.0.1.2', ipmap: {} },
        // roll to start subnet
        {
          subnets: ['10.0.0.0/30', '10.0.1.0/30', '10.0.2.0/30'],
          lastIP: '10.0.2.2',
          expectResult: '10.0.0.2',
          ipmap: {},
        },
      ];
      testCases.forEach((tc, idx) => {
        expect(ipString(run(tc).ip), `case ${idx}`).toBe(tc.expectResult);
      });
    });

    it('should not allocate the broadcast address', () => {
      const alloc = mkalloc();
      for (let i = 2; i < 7; i++) {
        expect(allocatedAddress(alloc.get(`ID${i}`, 'eth0'))).toBe(`192.168.1.${i}/29`);
      }
      expect(() => alloc.get('ID8', 'eth0')).toThrow();
    });

    it('should allocate in a round-robin fashion', () => {
      const alloc = mkalloc();
      expect(allocatedAddress(alloc.get('ID', 'eth0'))).toBe('192.168.1.2/29');
      alloc.release('ID', 'eth0');
      expect(allocatedAddress(alloc.get('ID', 'eth0'))).toBe('192.168.1.3/29');
    });

    describe('when requesting a specific IP', () => {
      it('must allocate the requested IP', () => {
        const alloc = mkalloc();
        expect(ipString(alloc.get('ID', 'eth0', ip('192.168.1.5')).ip)).toBe('192.168.1.5');
      });

      it('must fail when the requested IP is allocated', () => {
        const alloc = mkalloc();
        expect(ipString(alloc.get('ID', 'eth0', ip('192.168.1.5')).ip)).toBe('192.168.1.5');
        expect(errorOf(() => alloc.get('ID', 'eth0', ip('192.168.1.5'))).message).toBe(
          'requested IP address 192.168.1.5 is not available in range set 192.168.1.1-192.168.1.6',
        );
      });

      it('must return an error when the requested IP is after RangeEnd', () => {
        const alloc = mkalloc();
        alloc.rangeset[0]!.rangeEnd = ip('192.168.1.4');
        expect(() => alloc.get('ID', 'eth0', ip('192.168.1.5'))).toThrow();
      });

      it('must return an error when the requested IP is before RangeStart', () => {
        const alloc = mkalloc();
        alloc.rangeset[0]!.rangeStart = ip('192.168.1.3');
        expect(() => alloc.get('ID', 'eth0', ip('192.168.1.2'))).toThrow();
      });
    });
  });

  describe('when out of ips', () => {
    it('returns a meaningful error', () => {
      const testCases: AllocatorTestCase[] = [
        { subnets: ['10.0.0.0/30'], ipmap: { '10.0.0.2': 'id' } },
        {
          subnets: ['10.0.0.0/29'],
          ipmap: { '10.0.0.2': 'id', '10.0.0.3': 'id', '10.0.0.4': 'id', '10.0.0.5': 'id', '10.0.0.6': 'id' },
        },
        { subnets: ['10.0.0.0/30', '10.0.1.0/30'], ipmap: { '10.0.0.2': 'id', '10.0.1.2': 'id' } },
      ];
      testCases.forEach((tc, idx) => {
        const e = errorOf(() => run(tc));
        expect(
          e.message.startsWith('no IP addresses available in range set'),
          `case ${idx}: ${e.message}`,
        ).toBe(true);
      });
    });
  });

  describe('when lastReservedIP is at the end of one of multi ranges', () => {
    it('should use the first IP of next range as startIP after Next', () => {
      const a = newAllocatorWithMultiRanges();
      // reserve the last IP of the first range
      expect(a.store.reserve('ID', 'eth0', ip('192.168.1.3'), a.rangeID)).toBe(true);
      const r = a.getIter();
      expect(nextip(r)).toBeDefined();
      expect(ipString(r.startIP)).toBe('192.168.2.0');
    });
  });

  describe('when no lastReservedIP', () => {
    it('should use the first IP of the first range as startIP after Next', () => {
      const a = newAllocatorWithMultiRanges();
      const r = a.getIter();
      expect(nextip(r)).toBeDefined();
      expect(ipString(r.startIP)).toBe('192.168.1.0');
    });
  });
});
