/**
 * Go's `net.IP` / `net.IPNet` text forms as CNI results carry them: `net.ParseIP`, `net.ParseCIDR`
 * (which keeps the host address, as `types.ParseCIDR` does), and their `String()` (IPv4 and
 * IPv4-mapped addresses print as dotted quads, IPv6 in RFC 5952 form). Parse errors carry Go's
 * `net.ParseError` text (`invalid CIDR address: x`, `invalid IP address: x`).
 */
import { formatIPv4, formatIPv6, parseIPv4, parseIPv6 } from '../addr/ip.js';

/** An address as Go holds it: IPv4 as 4 bytes, IPv6 as 16 (v4-mapped ones count as IPv4). */
export interface GoIP {
  readonly family: 4 | 6;
  readonly v4: number;
  readonly v6: bigint;
}

export interface GoIPNet {
  readonly ip: GoIP;
  /** Prefix length in the address's own width (32 or 128 bits). */
  readonly bits: number;
  /** The width the mask was parsed at (a v4-mapped IPv6 CIDR keeps a 128-bit mask). */
  readonly maskBits: 32 | 128;
}

const V4_MAPPED = 0xffffn << 32n;

/** `net.ParseIP`: undefined when invalid. */
export function goParseIP(s: string): GoIP | undefined {
  const v4 = parseIPv4(s);
  if (v4 !== undefined) return { family: 4, v4, v6: V4_MAPPED | BigInt(v4) };
  const v6 = parseIPv6(s);
  if (v6 === undefined) return undefined;
  if (v6 >> 32n === 0xffffn) return { family: 4, v4: Number(v6 & 0xffffffffn), v6 };
  return { family: 6, v4: 0, v6 };
}

/** `net.IP.String()`. */
export function goFormatIP(ip: GoIP): string {
  return ip.family === 4 ? formatIPv4(ip.v4) : formatIPv6(ip.v6);
}

/** `net.ParseIP(s).String()`, or undefined when `s` is not an address. */
export function goCanonicalIP(s: string): string | undefined {
  const ip = goParseIP(s);
  return ip ? goFormatIP(ip) : undefined;
}

/** `types.ParseCIDR`: the address as written (not masked) with its prefix length. */
export function goParseCIDR(s: string): GoIPNet | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const addr = s.slice(0, slash);
  const mask = s.slice(slash + 1);
  // dtoi: decimal digits only (leading zeros allowed), at least one
  if (!/^[0-9]{1,7}$/.test(mask)) return undefined;
  const n = Number(mask);
  const v4 = parseIPv4(addr);
  if (v4 !== undefined) {
    if (n > 32) return undefined;
    return { ip: { family: 4, v4, v6: V4_MAPPED | BigInt(v4) }, bits: n, maskBits: 32 };
  }
  const v6 = parseIPv6(addr);
  if (v6 === undefined || n > 128) return undefined;
  if (v6 >> 32n === 0xffffn) {
    return { ip: { family: 4, v4: Number(v6 & 0xffffffffn), v6 }, bits: n, maskBits: 128 };
  }
  return { ip: { family: 6, v4: 0, v6 }, bits: n, maskBits: 128 };
}

/** `net.IPNet.String()` of a parsed CIDR. */
export function goFormatCIDR(n: GoIPNet): string {
  // a v4-mapped address with a 128-bit mask prints its last 32 mask bits
  const len = n.ip.family === 4 && n.maskBits === 128 ? Math.max(0, n.bits - 96) : n.bits;
  return `${goFormatIP(n.ip)}/${len}`;
}

/** Canonical text of a CIDR, or undefined when Go would reject it. */
export function goCanonicalCIDR(s: string): string | undefined {
  const n = goParseCIDR(s);
  return n ? goFormatCIDR(n) : undefined;
}

/** `net.ParseError` texts. */
export const goCidrError = (s: string): string => `invalid CIDR address: ${s}`;
export const goIPError = (s: string): string => `invalid IP address: ${s}`;
