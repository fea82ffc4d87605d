/**
 * The few Go `net` behaviours the Windows plugins depend on (reference cni-windows.md §2.5-§2.7):
 * `net.IP` as 4 or 16 bytes (an IPv4 address parsed by `ParseIP`/`ParseCIDR` is 16 bytes),
 * `To4`, `Mask`, `String` (`"<nil>"` for a nil IP) and `IPNet.String`, which the plugins' gateway
 * "+2" rule, overlay MAC and result addresses are computed from.
 */
import { formatIPv6, parseIPv4, parseIPv6 } from '../../addr/ip.js';

/** A Go `net.IP`: 4 or 16 bytes, or nil (`null`). */
export type GoIP = Uint8Array | null;
/** A Go `net.IPMask`. */
export type GoIPMask = Uint8Array;

const V4_IN_V6 = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

function v4To16(v: number): Uint8Array {
  return new Uint8Array([...V4_IN_V6, (v >>> 24) & 255, (v >>> 16) & 255, (v >>> 8) & 255, v & 255]);
}

function v6Bytes(v: bigint): Uint8Array {
  const out = new Uint8Array(16);
  for (let i = 15; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** `net.ParseIP`: dotted quad (no leading zeros) or IPv6 without zone; always 16 bytes; else nil. */
export function parseIP(s: string): GoIP {
  const v4 = parseIPv4(s);
  if (v4 !== undefined) return v4To16(v4);
  const v6 = parseIPv6(s);
  return v6 === undefined ? null : v6Bytes(v6);
}

/** `ip.To4()`: the 4-byte form of an IPv4 (or IPv4-mapped) address, else nil. */
export function to4(ip: GoIP): GoIP {
  if (ip === null) return null;
  if (ip.length === 4) return ip;
  if (ip.length === 16 && V4_IN_V6.every((b, i) => ip[i] === b)) return ip.slice(12);
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
export function maskIP(ip: GoIP, mask: GoIPMask): GoIP {
  if (ip === null) return null;
  let addr = ip;
  if (mask.length === 16 && addr.length === 4 && mask.slice(0, 12).every((b) => b === 0xff))
    mask = mask.slice(12);
  if (mask.length === 4 && addr.length === 16 && V4_IN_V6.every((b, i) => addr[i] === b))
    addr = addr.slice(12);
  if (addr.length !== mask.length) return null;
  return addr.map((b, i) => b & mask[i]!);
}

/** `ip.String()`: dotted quad for IPv4 (and IPv4-mapped), RFC 5952 for IPv6, `"<nil>"` when empty. */
export function ipString(ip: GoIP): string {
  if (ip === null || ip.length === 0) return '<nil>';
  const v4 = to4(ip);
  if (v4) return `${v4[0]}.${v4[1]}.${v4[2]}.${v4[3]}`;
  if (ip.length !== 16) return `?${[...ip].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
  let v = 0n;
  for (const b of ip) v = (v << 8n) | BigInt(b);
  return formatIPv6(v);
}

/** The leading ones of a canonical mask, or -1. */
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
export function ipNetString(ip: GoIP, mask: GoIPMask): string {
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
  if (ones === -1) return `${ipString(addr)}/${[...m].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
  return `${ipString(addr)}/${ones}`;
}

/** `net.ParseCIDR` result: the address (16 bytes for IPv4) and the network's mask (4 or 16 bytes). */
export interface GoCIDR {
  readonly ip: Uint8Array;
  readonly mask: GoIPMask;
}

/** `net.ParseCIDR(s)`; throws `invalid CIDR address: <s>` as Go's `*ParseError` prints. */
export function parseCIDR(s: string): GoCIDR {
  const slash = s.indexOf('/');
  const fail = (): never => {
    throw new Error(`invalid CIDR address: ${s}`);
  };
  if (slash < 0) fail();
  const addr = s.slice(0, slash);
  const len = s.slice(slash + 1);
  const v4 = parseIPv4(addr);
  const v6 = v4 === undefined ? parseIPv6(addr) : undefined;
  if (v4 === undefined && v6 === undefined) fail();
  const bits = v4 !== undefined ? 32 : 128;
  // Go's dtoi: decimal digits only (leading zeros accepted), no sign, at most the family size
  if (!/^\d{1,8}$/.test(len)) fail();
  const ones = Number(len);
  if (ones > bits) fail();
  return { ip: v4 !== undefined ? v4To16(v4) : v6Bytes(v6!), mask: cidrMask(ones, bits) };
}
