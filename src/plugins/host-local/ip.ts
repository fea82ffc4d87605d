/**
 * The slice of Go's `net.IP`/`net.IPNet` and containernetworking/plugins `pkg/ip` (@3d27709f
 * `pkg/ip/cidr.go`, `pkg/ip/ip.go`) that host-local uses (reference cni-windows.md §6): addresses as
 * integers (IPv4 a `number`, IPv6 a `bigint`), always in host-local's canonical form (`To4` when
 * possible), `NextIP`, `Cmp`, masks, and Go's text forms. Parsing happens here, once, at the edge.
 */
import { goDtoi } from '../../cni/goip.js';
import { formatIPv4, formatIPv6, parseIPv4, parseIPv6, type IpAddr } from '../../addr/ip.js';

/** A canonical address: an IPv4 (or IPv4-mapped) address is family 4, as `canonicalizeIP` leaves it. */
export type IP = IpAddr;

/**
 * `types.IPNet` as `types.ParseCIDR` builds it: the address as written (host bits kept), its prefix
 * length, and the width of the mask (`net.ParseCIDR` gives an IPv4-mapped IPv6 CIDR a 128-bit mask
 * while its address canonicalises to IPv4, which `Range.Canonicalize` then rejects).
 */
export interface IPNet {
  readonly ip: IP;
  readonly ones: number;
  readonly maskBits: 32 | 128;
}

const V4_MAPPED_TAG = 0xffffn;
const V6_ALL = (1n << 128n) - 1n;

function fromV6(v: bigint): IP {
  if (v >> 32n === V4_MAPPED_TAG) return { family: 4, value: Number(v & 0xffffffffn) };
  return { family: 6, value: v };
}

/** `net.ParseIP(s)` then `canonicalizeIP`: undefined when Go would return nil. */
export function parseIP(s: string): IP | undefined {
  const v4 = parseIPv4(s);
  if (v4 !== undefined) return { family: 4, value: v4 };
  const v6 = parseIPv6(s);
  return v6 === undefined ? undefined : fromV6(v6);
}

/**
 * `net.ParseCIDR(s)` keeping the address as written (`types.ParseCIDR`): `<addr>/<decimal
 * prefix>`, the prefix at most 32 for a dotted quad and 128 for any IPv6 form. Undefined on error.
 */
export function parseCIDR(s: string): IPNet | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const addr = s.slice(0, slash);
  const mask = s.slice(slash + 1);
  const n = goDtoi(mask); // Go's dtoi: any leading zeros, below 0xFFFFFF
  if (n === undefined) return undefined;
  const v4 = parseIPv4(addr);
  if (v4 !== undefined) return n > 32 ? undefined : { ip: { family: 4, value: v4 }, ones: n, maskBits: 32 };
  const v6 = parseIPv6(addr);
  if (v6 === undefined || n > 128) return undefined;
  return { ip: fromV6(v6), ones: n, maskBits: 128 };
}

/** `net.IP.String()` (`<nil>` for a nil IP). */
export function ipString(ip: IP | undefined): string {
  if (ip === undefined) return '<nil>';
  return ip.family === 4 ? formatIPv4(ip.value) : formatIPv6(ip.value);
}

/** `net.IPNet.String()`: the address as held and the prefix length (an IPv4 address under a
 * 128-bit mask shows the mask's last 32 bits). */
export function ipNetString(n: IPNet | undefined): string {
  if (n === undefined) return '<nil>';
  const len = n.ip.family === 4 && n.maskBits === 128 ? Math.max(0, n.ones - 96) : n.ones;
  return `${ipString(n.ip)}/${len}`;
}

/** `net.IP.Equal` on canonical addresses. */
export function ipEqual(a: IP | undefined, b: IP | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.family === b.family && a.value === b.value;
}

/** `ip.Cmp(a, b)`: -1, 0, 1, or -2 for different families (or a nil address). */
export function ipCmp(a: IP | undefined, b: IP | undefined): number {
  if (a === undefined || b === undefined || a.family !== b.family) return -2;
  return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
}

/**
 * `ip.NextIP(ip)`: the address plus one, in the same family. (Go's `intToIP` turns an IPv6 result
 * whose integer has exactly four significant bytes into an IPv4 address, and panics past
 * 255.255.255.255; neither can happen inside a host-local range, so neither is modelled.)
 */
export function nextIP(ip: IP): IP {
  if (ip.family === 4) return { family: 4, value: (ip.value + 1) >>> 0 };
  return { family: 6, value: (ip.value + 1n) & V6_ALL };
}

/** The host mask of a prefix in the address's own width. */
function hostBits(n: IPNet): number {
  const width = n.ip.family === 4 ? 32 : 128;
  const ones = n.ip.family === 4 && n.maskBits === 128 ? Math.max(0, n.ones - 96) : n.ones;
  return width - Math.min(ones, width);
}

/** `ip.Mask(mask)`: the network address (Go returns nil for a family mismatch; callers check first). */
export function networkIP(n: IPNet): IP {
  const h = hostBits(n);
  if (n.ip.family === 4) {
    const mask = h >= 32 ? 0 : (0xffffffff << h) >>> 0;
    return { family: 4, value: (n.ip.value & mask) >>> 0 };
  }
  const mask = V6_ALL ^ ((1n << BigInt(h)) - 1n);
  return { family: 6, value: n.ip.value & mask };
}

/** `lastIP(subnet)` of range.go: the last address, minus one (the broadcast) for IPv4. */
export function lastIP(n: IPNet): IP {
  const h = hostBits(n);
  if (n.ip.family === 4) {
    const host = h >= 32 ? 0xffffffff : 2 ** h - 1;
    // Go decrements only the last byte (end[3]--); the host part of a usable IPv4 subnet ends in 11
    return { family: 4, value: ((n.ip.value | host) >>> 0) - 1 };
  }
  return { family: 6, value: n.ip.value | ((1n << BigInt(h)) - 1n) };
}

/** `net.IPNet.Contains(ip)`: same family, same network bits (host bits of the subnet ignored). */
export function ipNetContains(n: IPNet, ip: IP): boolean {
  if (n.ip.family !== ip.family) return false;
  return ipEqual(networkIP(n), networkIP({ ...n, ip }));
}
