/**
 * host-local's allocator (containernetworking/plugins @3d27709f `plugins/ipam/host-local/backend/
 * allocator/allocator.go`; reference cni-windows.md §6): a requested address, or round-robin from
 * `last_reserved_ip.<idx>` + 1 across the ranges of one set, skipping gateways, until one full loop.
 * Everything is synchronous, so a `get` is atomic with respect to other plugin invocations, as the
 * directory lock makes it on Windows.
 */
import { GoError } from '../../cni/gojson.js';
import { ipEqual, ipString, nextIP, type IP } from './ip.js';
import {
  rangeContains,
  rangeFor,
  rangeSetContains,
  rangeSetString,
  type Range,
  type RangeSet,
} from './range.js';
import type { Store } from './store.js';

/** `current.IPConfig` as the allocator hands it out: the address with its range's prefix, and the gateway. */
export interface AllocatedIP {
  readonly ip: IP;
  /** The prefix length of the range's subnet. */
  readonly ones: number;
  readonly gateway: IP | undefined;
}

/** `Address.String()` of an allocation: `10.1.2.2/24`. */
export function allocatedAddress(a: AllocatedIP): string {
  return `${ipString(a.ip)}/${a.ones}`;
}

function onesOf(r: Range): number {
  const sn = r.subnet!;
  return sn.ip.family === 4 && sn.maskBits === 128 ? Math.max(0, sn.ones - 96) : sn.ones;
}

/** `RangeIter`: where round-robin stands (the range, the cursor, and where it started). */
export class RangeIter {
  rangeIdx = 0;
  cur: IP | undefined;
  startIP: IP | undefined;

  constructor(readonly rangeset: RangeSet) {}

  /** `Next()`: the next candidate and its range's gateway; undefined once back at the start. */
  next(): { ip: IP; ones: number; gateway: IP | undefined } | undefined {
    for (;;) {
      let r = this.rangeset[this.rangeIdx]!;
      if (this.cur === undefined) {
        // first call, not starting in the middle: rangeStart, inclusive
        this.cur = r.rangeStart;
        this.startIP = this.cur;
        if (ipEqual(this.cur, r.gateway)) continue;
        return { ip: this.cur!, ones: onesOf(r), gateway: r.gateway };
      }
      if (ipEqual(this.cur, r.rangeEnd)) {
        this.rangeIdx = (this.rangeIdx + 1) % this.rangeset.length;
        r = this.rangeset[this.rangeIdx]!;
        this.cur = r.rangeStart;
      } else {
        this.cur = nextIP(this.cur);
      }
      if (this.startIP === undefined) {
        this.startIP = this.cur;
      } else if (ipEqual(this.cur, this.startIP)) {
        return undefined;
      }
      if (ipEqual(this.cur, r.gateway)) continue;
      return { ip: this.cur!, ones: onesOf(r), gateway: r.gateway };
    }
  }
}

/** `IPAllocator`: one range set (`ranges[idx]`) over the store; `rangeID` is the set's index. */
export class IPAllocator {
  readonly rangeID: string;

  constructor(
    readonly rangeset: RangeSet,
    readonly store: Store,
    id: number | string,
    /** Where `log.Printf` goes (a failure to read the last reserved address). */
    private readonly log: (line: string) => void = () => undefined,
  ) {
    this.rangeID = String(id);
  }

  /**
   * `Get(id, ifname, requestedIP)`: reserve `requestedIP` (it must be in the set and not a
   * gateway), or refuse a second address for (id, ifname) in this set and take the next free one.
   */
  get(id: string, ifname: string, requestedIP?: IP): AllocatedIP {
    this.store.lock();
    try {
      let reserved: AllocatedIP | undefined;
      if (requestedIP !== undefined) {
        const r = rangeFor(this.rangeset, requestedIP);
        if (ipEqual(requestedIP, r.gateway)) {
          throw new GoError(`requested ip ${ipString(requestedIP)} is subnet's gateway`);
        }
        if (!this.store.reserve(id, ifname, requestedIP, this.rangeID)) {
          throw new GoError(
            `requested IP address ${ipString(requestedIP)} is not available in range set ${rangeSetString(this.rangeset)}`,
          );
        }
        reserved = { ip: requestedIP, ones: onesOf(r), gateway: r.gateway };
      } else {
        // a second address for the same (id, ifname) is not allowed by the spec
        for (const allocated of this.store.getByID(id, ifname)) {
          if (rangeSetContains(this.rangeset, allocated)) {
            throw new GoError(
              `${ipString(allocated)} has been allocated to ${id}, duplicate allocation is not allowed`,
            );
          }
        }
        const iter = this.getIter();
        for (;;) {
          const c = iter.next();
          if (c === undefined) break;
          if (this.store.reserve(id, ifname, c.ip, this.rangeID)) {
            reserved = c;
            break;
          }
        }
      }
      if (reserved === undefined) {
        throw new GoError(`no IP addresses available in range set: ${rangeSetString(this.rangeset)}`);
      }
      return reserved;
    } finally {
      this.store.unlock();
    }
  }

  /** `Release(id, ifname)`: every address of (id, ifname) in the store (not only this set's). */
  release(id: string, ifname: string): void {
    this.store.lock();
    try {
      this.store.releaseByID(id, ifname);
    } finally {
      this.store.unlock();
    }
  }

  /**
   * `GetIter()`: start after the last reserved address when the set holds it (in the range that
   * holds it), else at the first range's start.
   */
  getIter(): RangeIter {
    const iter = new RangeIter(this.rangeset);
    let last: IP | undefined;
    try {
      last = this.store.lastReservedIP(this.rangeID);
    } catch (e) {
      this.log(`Error retrieving last reserved ip: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (last !== undefined && rangeSetContains(this.rangeset, last)) {
      const i = this.rangeset.findIndex((r) => rangeContains(r, last));
      iter.rangeIdx = i;
      // Next() advances first, so the first candidate is last + 1
      iter.cur = last;
    } else {
      iter.rangeIdx = 0;
      iter.startIP = this.rangeset[0]!.rangeStart;
    }
    return iter;
  }
}
