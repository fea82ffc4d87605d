/**
 * host-local's `Range` and `RangeSet` (containernetworking/plugins @3d27709f
 * `plugins/ipam/host-local/backend/allocator/{range,range_set}.go`; reference cni-windows.md §6):
 * filling in and checking a range's defaults (gateway .1, start .1, end = last address minus the
 * IPv4 broadcast), membership, overlap and Go's texts (`RangeStart X not in network Y`, `subnets A
 * and B overlap`, `X not in range set S`). Ranges are mutable records, as the Go structs are:
 * `canonicalizeRange` fills them in place and may stop half way, as `Canonicalize` does.
 */
import { GoError } from '../../cni/gojson.js';
import {
  ipCmp,
  ipEqual,
  ipNetContains,
  ipNetString,
  ipString,
  lastIP,
  networkIP,
  nextIP,
  type IP,
  type IPNet,
} from './ip.js';

/** `allocator.Range`: `subnet` undefined is Go's zero `types.IPNet` (a nil IP). */
export interface Range {
  subnet: IPNet | undefined;
  rangeStart?: IP | undefined;
  rangeEnd?: IP | undefined;
  gateway?: IP | undefined;
}

/** `allocator.RangeSet`. */
export type RangeSet = Range[];

/** `canonicalizeIP` of a nil address: `IP <nil> not v4 nor v6`. */
function notV4NorV6(): GoError {
  return new GoError('IP <nil> not v4 nor v6');
}

/**
 * `Range.Canonicalize()`: check the subnet (not smaller than /30 or /126, same family as its mask,
 * no host bits), default the gateway to network+1, check or default rangeStart (network+1) and
 * rangeEnd (last address, minus the broadcast for IPv4). Throws Go's error text.
 */
export function canonicalizeRange(r: Range): void {
  const sn = r.subnet;
  if (sn === undefined) throw notV4NorV6();
  const masklen = sn.maskBits;
  if (sn.ones > masklen - 2) throw new GoError(`Network ${ipNetString(sn)} too small to allocate from`);
  if ((sn.ip.family === 4 ? 32 : 128) !== masklen) throw new GoError('IPNet IP and Mask version mismatch');
  const network = networkIP(sn);
  if (!ipEqual(sn.ip, network)) {
    throw new GoError(
      `Network has host bits set. For a subnet mask of length ${sn.ones} the network address is ${ipString(network)}`,
    );
  }
  if (r.gateway === undefined) r.gateway = nextIP(sn.ip);
  if (r.rangeStart !== undefined) {
    if (!rangeContains(r, r.rangeStart)) {
      throw new GoError(`RangeStart ${ipString(r.rangeStart)} not in network ${ipNetString(sn)}`);
    }
  } else {
    r.rangeStart = nextIP(sn.ip);
  }
  if (r.rangeEnd !== undefined) {
    if (!rangeContains(r, r.rangeEnd)) {
      throw new GoError(`RangeEnd ${ipString(r.rangeEnd)} not in network ${ipNetString(sn)}`);
    }
  } else {
    r.rangeEnd = lastIP(sn);
  }
}

/** `Range.Contains(addr)`: in the subnet and between rangeStart and rangeEnd (each when set). */
export function rangeContains(r: Range, addr: IP | undefined): boolean {
  if (addr === undefined || r.subnet === undefined) return false;
  if (addr.family !== r.subnet.ip.family) return false;
  if (!ipNetContains(r.subnet, addr)) return false;
  if (r.rangeStart !== undefined && ipCmp(addr, r.rangeStart) < 0) return false;
  if (r.rangeEnd !== undefined && ipCmp(addr, r.rangeEnd) > 0) return false;
  return true;
}

/** `Range.Overlaps(r1)`: same family and either contains an end of the other. */
export function rangeOverlaps(r: Range, r1: Range): boolean {
  if (r.rangeStart?.family !== r1.rangeStart?.family) return false;
  return (
    rangeContains(r, r1.rangeStart) ||
    rangeContains(r, r1.rangeEnd) ||
    rangeContains(r1, r.rangeStart) ||
    rangeContains(r1, r.rangeEnd)
  );
}

/** `Range.String()`: `start-end`. */
function rangeString(r: Range): string {
  return `${ipString(r.rangeStart)}-${ipString(r.rangeEnd)}`;
}

/** `RangeSet.Contains(addr)`. */
export function rangeSetContains(s: RangeSet, addr: IP | undefined): boolean {
  return s.some((r) => rangeContains(r, addr));
}

/** `RangeSet.RangeFor(addr)`: the first range holding `addr`; else `X not in range set S`. */
export function rangeFor(s: RangeSet, addr: IP | undefined): Range {
  if (addr === undefined) throw notV4NorV6();
  for (const r of s) if (rangeContains(r, addr)) return r;
  throw new GoError(`${ipString(addr)} not in range set ${rangeSetString(s)}`);
}

/** `RangeSet.Overlaps(p1)`: any range of one overlaps any range of the other. */
export function rangeSetOverlaps(s: RangeSet, p1: RangeSet): boolean {
  return s.some((r) => p1.some((r1) => rangeOverlaps(r, r1)));
}

/**
 * `RangeSet.Canonicalize()`: not empty, each range canonical, one family (`mixed address
 * families`), and no two ranges overlapping (`subnets A and B overlap`).
 */
export function canonicalizeRangeSet(s: RangeSet): void {
  if (s.length === 0) throw new GoError('empty range set');
  let fam: number | undefined;
  for (let i = 0; i < s.length; i++) {
    const r = s[i]!;
    canonicalizeRange(r);
    if (i === 0) fam = r.rangeStart?.family;
    else if (fam !== r.rangeStart?.family) throw new GoError('mixed address families');
  }
  for (let i = 0; i < s.length - 1; i++) {
    for (let j = i + 1; j < s.length; j++) {
      if (rangeOverlaps(s[i]!, s[j]!)) {
        throw new GoError(`subnets ${rangeString(s[i]!)} and ${rangeString(s[j]!)} overlap`);
      }
    }
  }
}

/** `RangeSet.String()`: the ranges joined with `,`. */
export function rangeSetString(s: RangeSet): string {
  return s.map(rangeString).join(',');
}
