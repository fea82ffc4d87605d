/**
 * Go's `net.IP` / `net.IPNet` (reference cni-windows.md §2.5-§2.7, §5.1), in two forms. `GoIP`: the
 * text forms CNI results carry — `net.ParseIP`, `net.ParseCIDR` (which keeps the host address, as
 * `types.ParseCIDR` does) and their `String()` (IPv4 and IPv4-mapped addresses print as dotted
 * quads, IPv6 in RFC 5952 form), with Go's `net.ParseError` texts. `GoIPBytes`: the 4- or 16-byte
 * slices the plugins compute on (`To4`, `Mask`, `Equal`, `IPNet.String()` and its `<nil>`).
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

/** `net.ParseIP(s)`'s `String()` and family, or undefined when `s` is not an address. */
export function goIPText(s: string): { readonly text: string; readonly family: 4 | 6 } | undefined {
  // (a dotted quad: no 16-byte form needed to print it)
  const v4 = parseIPv4(s);
  if (v4 !== undefined) return { text: formatIPv4(v4), family: 4 };
  const ip = goParseIP(s);
  return ip ? { text: goFormatIP(ip), family: ip.family } : undefined;
}

/** `net.ParseIP(s).String()`, or undefined when `s` is not an address. */
export function goCanonicalIP(s: string): string | undefined {
  return goIPText(s)?.text;
}

/**
 * Go's `dtoi` as `ParseCIDR` uses it on the prefix length: decimal digits only, at least one, all of
 * them read (any number of leading zeros), the value below 0xFFFFFF.
 */
export function goDtoi(s: string): number | undefined {
  if (!/^[0-9]+$/.test(s)) return undefined;
  let n = 0;
  for (const c of s) {
    n = n * 10 + (c.charCodeAt(0) - 48);
    if (n >= 0xffffff) return undefined;
  }
  return n;
}

/** `types.ParseCIDR`: the address as written (not masked) with its prefix length. */
export function goParseCIDR(s: string): GoIPNet | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const addr = s.slice(0, slash);
  const mask = s.slice(slash + 1);
  const n = goDtoi(mask);
  if (n === undefined) return undefined;
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

/** The family of a CIDR's address (`goParseCIDR(s)?.ip.family`), a dotted quad's without its 16-byte form. */
export function goCIDRFamily(s: string): 4 | 6 | undefined {
  const slash = s.indexOf('/');
  if (slash >= 0 && parseIPv4(s.slice(0, slash)) !== undefined) {
    const bits = goDtoi(s.slice(slash + 1));
    return bits === undefined || bits > 32 ? undefined : 4;
  }
  return goParseCIDR(s)?.ip.family;
}

/** Canonical text of a CIDR, or undefined when Go would reject it. */
export function goCanonicalCIDR(s: string): string | undefined {
  // (a dotted quad with its prefix: printed without its 16-byte form)
  const slash = s.indexOf('/');
  if (slash >= 0) {
    const v4 = parseIPv4(s.slice(0, slash));
    if (v4 !== undefined) {
      const bits = goDtoi(s.slice(slash + 1));
      return bits === undefined || bits > 32 ? undefined : `${formatIPv4(v4)}/${bits}`;
    }
  }
  const n = goParseCIDR(s);
  return n ? goFormatCIDR(n) : undefined;
}

/** `net.ParseError` texts. */
export const goCidrError = (s: string): string => `invalid CIDR address: ${s}`;
export const goIPError = (s: string): string => `invalid IP address: ${s}`;

// ──────────────────────────────────── net.IP as Go's bytes ────────────────────────────────────

/** A Go `net.IP`: 4 or 16 bytes, or nil (`null`). An address Go parses is 16 bytes. */
export type GoIPBytes = Uint8Array | null;
/** A Go `net.IPMask`: 4 or 16 bytes. */
export type GoIPMask = Uint8Array;

const V4_IN_V6 = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

const isV4InV6 = (ip: Uint8Array): boolean => ip.length === 16 && V4_IN_V6.every((b, i) => ip[i] === b);

/** The 16 bytes of an address (`netip.Addr.As16`). */
export function ipBytes(ip: GoIP): Uint8Array {
  const out = new Uint8Array(16);
  // the low 128 bits, big-endian, 32 at a time (modulo 2^32: two's complement, as `& 0xff` is)
  const v = ip.v6;
  putWord(out, 0, Number(BigInt.asUintN(32, v >> 96n)));
  putWord(out, 4, Number(BigInt.asUintN(32, v >> 64n)));
  putWord(out, 8, Number(BigInt.asUintN(32, v >> 32n)));
  putWord(out, 12, Number(BigInt.asUintN(32, v)));
  return out;
}

function putWord(out: Uint8Array, at: number, w: number): void {
  out[at] = w >>> 24;
  out[at + 1] = (w >>> 16) & 0xff;
  out[at + 2] = (w >>> 8) & 0xff;
  out[at + 3] = w & 0xff;
}

/** `net.ParseIP`: dotted quad (no leading zeros) or IPv6 without zone; always 16 bytes; else nil. */
export function parseIP(s: string): GoIPBytes {
  const ip = goParseIP(s);
  return ip ? ipBytes(ip) : null;
}

/** `ip.To4()`: the 4-byte form of an IPv4 (or IPv4-mapped) address, else nil. */
export function to4(ip: GoIPBytes): GoIPBytes {
  if (ip === null) return null;
  if (ip.length === 4) return ip;
  if (isV4InV6(ip)) return ip.slice(12);
  return null;
}

/** `net.CIDRMask(ones, bits)`. */
export function cidrMask(ones: number, bits: number): GoIPMask {
  const m = new Uint8Array(bits / 8);
  for (let i = 0; i < m.length; i++) {
    const take = Math.max(0, Math.min(8, ones - i * 8));
    m[i] = (0xff << (8 - take)) & 0xff;
  }
  return m;
}

/** `ip.Mask(mask)`: a new IP (4 bytes for an IPv4 address with a 4-byte mask), nil on a length mismatch. */
export function maskIP(ip: GoIPBytes, mask: GoIPMask): GoIPBytes {
  if (ip === null) return null;
  let addr = ip;
  if (mask.length === 16 && addr.length === 4 && mask.slice(0, 12).every((b) => b === 0xff))
    mask = mask.slice(12);
  if (mask.length === 4 && isV4InV6(addr)) addr = addr.slice(12);
  if (addr.length !== mask.length) return null;
  return addr.map((b, i) => b & mask[i]!);
}

/** `ip.Equal(x)`: the same bytes, or the same IPv4 address in its 4- and 16-byte forms. */
export function ipEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length === b.length) return a.every((x, i) => x === b[i]);
  const a4 = to4(a);
  const b4 = to4(b);
  return a4 !== null && b4 !== null && ipEqual(a4, b4);
}

/** `ip.String()`: dotted quad for IPv4 (and IPv4-mapped), RFC 5952 for IPv6, `"<nil>"` when empty. */
export function ipString(ip: GoIPBytes): string {
  if (ip === null || ip.length === 0) return '<nil>';
  const v4 = to4(ip);
  if (v4) return `${v4[0]}.${v4[1]}.${v4[2]}.${v4[3]}`;
  if (ip.length !== 16) return `?${hex(ip)}`;
  let v = 0n;
  for (const b of ip) v = (v << 8n) | BigInt(b);
  return formatIPv6(v);
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** `simpleMaskLength`: the leading ones of a canonical mask, or -1. */
function simpleMaskLength(m: GoIPMask): number {
  let n = 0;
  let done = false;
  for (const b of m) {
    if (done) {
      if (b !== 0) return -1;
      continue;
    }
    if (b === 0xff) {
      n += 8;
      continue;
    }
    let v = b;
    while (v & 0x80) {
      n++;
      v = (v << 1) & 0xff;
    }
    if (v !== 0) return -1;
    done = true;
  }
  return n;
}

/**
 * `(&net.IPNet{IP, Mask}).String()` (what `types.IPNet` marshals to): the address, not masked,
 * with the prefix length; `"<nil>"` when the IP and mask families disagree.
 */
export function ipNetString(ip: GoIPBytes, mask: GoIPMask): string {
  let addr = to4(ip);
  if (addr === null) {
    if (ip === null || ip.length !== 16) return '<nil>';
    addr = ip;
  }
  let m = mask;
  if (m.length === 4) {
    if (addr.length !== 4) return '<nil>';
  } else if (m.length === 16) {
    if (addr.length === 4) m = m.slice(12);
  } else {
    return '<nil>';
  }
  const ones = simpleMaskLength(m);
  return ones === -1 ? `${ipString(addr)}/${hex(m)}` : `${ipString(addr)}/${ones}`;
}

/** `net.ParseCIDR` result: the address (16 bytes for IPv4) and the network's mask (4 or 16 bytes). */
export interface GoCIDR {
  readonly ip: Uint8Array;
  readonly mask: GoIPMask;
}

/** `net.ParseCIDR(s)`'s address and mask; throws `invalid CIDR address: <s>` as Go's `*ParseError` prints. */
export function parseCIDR(s: string): GoCIDR {
  const n = goParseCIDR(s);
  if (!n) throw new Error(goCidrError(s));
  return { ip: ipBytes(n.ip), mask: cidrMask(n.bits, n.maskBits) };
}

/** `*net.IPNet` as `net.ParseCIDR` returns it: `ip` already masked; 4 or 16 bytes each. */
export interface GoNet {
  readonly ip: Uint8Array;
  readonly mask: Uint8Array;
}

/** `net.ParseCIDR(s)`'s network, or undefined where Go returns a `*ParseError`. */
export function parseCIDRNet(s: string): GoNet | undefined {
  const n = goParseCIDR(s);
  if (!n) return undefined;
  const mask = cidrMask(n.bits, n.maskBits);
  return { ip: maskIP(ipBytes(n.ip), mask)!, mask };
}

/** `(*net.IPNet).String()`; `undefined` prints `<nil>` as Go's nil receiver does. */
export function netString(n: GoNet | undefined): string {
  return n ? ipNetString(n.ip, n.mask) : '<nil>';
}
