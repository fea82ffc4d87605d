// Model-based property of host-local's allocator over the disk store (containernetworking/plugins
// @3d27709f backend/allocator/allocator.go; reference cni-windows.md §6): for any IPv4 range and
// any sequence of Get/Release, an address is never handed out twice, never the gateway, always
// inside [rangeStart, rangeEnd]; Get fails only when every usable address is held; and the next
// address is the first free one after the last reserved (round-robin).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FileStore } from '../../../src/core/files.js';
import {
  canonicalizeRangeSet,
  DiskStore,
  IPAllocator,
  type RangeSet,
} from '../../../src/plugins/host-local/index.js';
import { runs } from '../../runs.js';

const BASE = 0x0a000000; // 10.0.0.0

type Cmd = { kind: 'get'; id: number } | { kind: 'release'; id: number };

describe('host-local allocator (model-based)', () => {
  it('hands out unique, in-range, non-gateway addresses round-robin until the range is full', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 26, max: 30 }),
        fc.nat(),
        fc.nat(),
        fc.nat(),
        fc.array(
          fc.oneof(
            fc.record({ kind: fc.constant('get' as const), id: fc.integer({ min: 0, max: 20 }) }),
            fc.record({ kind: fc.constant('release' as const), id: fc.integer({ min: 0, max: 20 }) }),
          ),
          { maxLength: 60 },
        ),
        (ones, a, b, g, cmds: Cmd[]) => {
          const size = 2 ** (32 - ones);
          // usable: network+1 … last-1 (the broadcast excluded)
          const lo = BASE + 1 + (a % (size - 2));
          const hi = lo + (b % (BASE + size - 2 - lo + 1));
          const gw = BASE + 1 + (g % (size - 2));
          const v4 = (v: number) => ({ family: 4 as const, value: v });
          const set: RangeSet = [
            {
              subnet: { ip: v4(BASE), ones, maskBits: 32 },
              rangeStart: v4(lo),
              rangeEnd: v4(hi),
              gateway: v4(gw),
            },
          ];
          canonicalizeRangeSet(set);
          const alloc = new IPAllocator(set, DiskStore.open(new FileStore(), 'net', '/d'), 0);
          const usable: number[] = [];
          for (let v = lo; v <= hi; v++) if (v !== gw) usable.push(v);
          const held = new Map<number, number>(); // id → address
          let last: number | undefined;
          for (const c of cmds) {
            if (c.kind === 'release') {
              alloc.release(`c${c.id}`, 'eth0');
              held.delete(c.id);
              continue;
            }
            const taken = new Set(held.values());
            let got: number | undefined;
            try {
              got = alloc.get(`c${c.id}`, 'eth0').ip.value as number;
            } catch (e) {
              const msg = (e as Error).message;
              if (held.has(c.id)) {
                expect(msg).toMatch(/duplicate allocation is not allowed$/);
              } else {
                expect(msg.startsWith('no IP addresses available in range set')).toBe(true);
                expect(taken.size).toBe(usable.length);
              }
              continue;
            }
            expect(held.has(c.id)).toBe(false);
            expect(taken.has(got)).toBe(false);
            expect(got).not.toBe(gw);
            expect(got >= lo && got <= hi).toBe(true);
            // round-robin: the first free usable address after the last reserved one, wrapping
            const order =
              last === undefined
                ? usable
                : [...usable.filter((u) => u > last!), ...usable.filter((u) => u <= last!)];
            expect(got).toBe(order.find((u) => !taken.has(u)));
            held.set(c.id, got);
            last = got;
          }
        },
      ),
      { numRuns: runs(200) },
    );
  });
});
