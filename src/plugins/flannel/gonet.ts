/**
 * The pieces of Go's `net` and `strconv` packages flannel's code leans on, with Go's byte-level
 * semantics: `net.ParseCIDR`'s masked network (`*net.IPNet` with a 4- or 16-byte IP and mask),
 * `IPNet.String()`, `IP.Equal`, `net.ParseMAC` / `HardwareAddr.String()`, `strconv.ParseUint`
 * and their error texts. Used by the flannel CNI plugin (reference cni-windows.md §5.1) and the
 * flanneld backends (§5.2, §5.3). Parsing of the address itself is `src/cni/goip.ts`.
 */
import { goParseCIDR } from '../../cni/goip.js';
import { goStrconvQuote } from '../../cni/gojson.js';
import { formatIPv4, formatIPv6 } from '../../addr/ip.js';

/** A Go runtime panic (index out of range, nil dereference): the process dies with exit code 2. */
export class GoPanic extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GoPanic';
  }
}

/** Go's `index out of range [i] with length n` panic. */
export function indexPanic(index: number, length: number): GoPanic {
  return new GoPanic(`runtime error: index out of range [${index}] with length ${length}`);
}

/** `*net.IPNet` as `net.ParseCIDR` returns it: `ip` already masked; 4 or 16 bytes each. */
export interface GoNet {
  readonly ip: Uint8Array;
  readonly mask: Uint8Array;
}

function v6Bytes(v: bigint): Uint8Array {
  const out = new Uint8Array(16);
  for (let i = 15; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** `net.CIDRMask(ones, bits)`. */
function cidrMask(ones: number, bits: number): Uint8Array {
  const out = new Uint8Array(bits / 8);
  for (let i = 0; i < out.length; i++) {
    const take = Math.max(0, Math.min(8, ones - i * 8));
    out[i] = (0xff00 >> take) & 0xff;
  }
  return out;
}

function isV4InV6Prefix(b: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (b[i] !== 0) return false;
  return b[10] === 0xff && b[11] === 0xff;
}

/** `net.IP.To4()`: the 4-byte form, or undefined. */
function to4(ip: Uint8Array): Uint8Array | undefined {
  if (ip.length === 4) return ip;
  if (ip.length === 16 && isV4InV6Prefix(ip)) return ip.slice(12);
  return undefined;
}

/** `net.IP.Mask(mask)`. */
function maskIP(ip: Uint8Array, mask: Uint8Array): Uint8Array | undefined {
  let m = mask;
  let a = ip;
  if (m.length === 16 && a.length === 4 && m.slice(0, 12).every((x) => x === 0xff)) m = m.slice(12);
  if (m.length === 4 && a.length === 16 && isV4InV6Prefix(a)) a = a.slice(12);
  if (a.length !== m.length) return undefined;
  return a.map((x, i) => x & m[i]!);
}

/** `net.ParseCIDR(s)`'s network, or undefined where Go returns a `*ParseError`. */
export function parseCIDRNet(s: string): GoNet | undefined {
  const n = goParseCIDR(s);
  if (!n) return undefined;
  // the address as 16 bytes (netip.Addr.As16), the mask at the width of the address as parsed
  const ip16 = v6Bytes(n.ip.v6);
  const mask = cidrMask(n.bits, n.maskBits);
  const ip = maskIP(ip16, mask)!;
  return { ip, mask };
}

/** `net.ParseError` text for a CIDR. */
export function cidrError(s: string): string {
  return `invalid CIDR address: ${s}`;
}

/** `net.IP.String()` for a 4- or 16-byte IP. */
export function ipString(ip: Uint8Array): string {
  if (ip.length === 0) return '<nil>';
  const v4 = to4(ip);
  if (v4) return formatIPv4(((v4[0]! << 24) | (v4[1]! << 16) | (v4[2]! << 8) | v4[3]!) >>> 0);
  if (ip.length !== 16) return `?${Buffer.from(ip).toString('hex')}`;
  let v = 0n;
  for (const b of ip) v = (v << 8n) | BigInt(b);
  return formatIPv6(v);
}

/** `simpleMaskLength`: the prefix length of a canonical mask, else -1. */
function simpleMaskLength(m: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < m.length; i++) {
    const v = m[i]!;
    if (v === 0xff) {
      n += 8;
      continue;
    }
    let x = v;
    while (x & 0x80) {
      n++;
      x = (x << 1) & 0xff;
    }
    if (x !== 0) return -1;
    for (let j = i + 1; j < m.length; j++) if (m[j] !== 0) return -1;
    break;
  }
  return n;
}

/** `(*net.IPNet).String()`; `undefined` prints `<nil>` as Go's nil receiver does. */
export function netString(n: GoNet | undefined): string {
  if (!n) return '<nil>';
  let ip = to4(n.ip);
  if (!ip) {
    ip = n.ip;
    if (ip.length !== 16) return '<nil>';
  }
  let m = n.mask;
  if (m.length === 4) {
    if (ip.length !== 4) return '<nil>';
  } else if (m.length === 16) {
    if (ip.length === 4) m = m.slice(12);
  } else return '<nil>';
  const l = simpleMaskLength(m);
  if (l === -1) return `${ipString(ip)}/${Buffer.from(m).toString('hex')}`;
  return `${ipString(ip)}/${l}`;
}

/** `net.IP.Equal`: same bytes, or the same IPv4 address in its 4- and 16-byte forms. */
export function ipEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length === b.length) return a.every((x, i) => x === b[i]);
  const a4 = to4(a);
  const b4 = to4(b);
  return a4 !== undefined && b4 !== undefined && a4.length === 4 && b4.length === 4 && ipEqual(a4, b4);
}

// ───────────────────────────────────────── MAC addresses ─────────────────────────────────────────

function hexDigit(c: string): number {
  const x = c.charCodeAt(0);
  if (x >= 48 && x <= 57) return x - 48;
  if (x >= 97 && x <= 102) return x - 87;
  if (x >= 65 && x <= 70) return x - 55;
  return -1;
}

/** `xtoi2(s, e)`: two hex digits, then `e` (or the end). */
function xtoi2(s: string, e: string): number | undefined {
  if (s.length > 2 && s[2] !== e) return undefined;
  if (s.length < 2) return undefined;
  const hi = hexDigit(s[0]!);
  const lo = hexDigit(s[1]!);
  if (hi < 0 || lo < 0) return undefined;
  return hi * 16 + lo;
}

/** The text of Go's `*net.AddrError` for a bad MAC. */
export function macError(s: string): string {
  return s === '' ? 'invalid MAC address' : `address ${s}: invalid MAC address`;
}

/**
 * `net.ParseMAC`: IEEE 802 MAC-48, EUI-48, EUI-64 or 20-octet InfiniBand addresses, with `:` or
 * `-` between octets or `.` between groups of four digits. Undefined where Go errors.
 */
export function parseMAC(s: string): Uint8Array | undefined {
  if (s.length < 14) return undefined;
  if (s[2] === ':' || s[2] === '-') {
    if ((s.length + 1) % 3 !== 0) return undefined;
    const n = (s.length + 1) / 3;
    if (n !== 6 && n !== 8 && n !== 20) return undefined;
    const hw = new Uint8Array(n);
    for (let x = 0, i = 0; i < n; i++, x += 3) {
      const b = xtoi2(s.slice(x), s[2]);
      if (b === undefined) return undefined;
      hw[i] = b;
    }
    return hw;
  }
  if (s[4] === '.') {
    if ((s.length + 1) % 5 !== 0) return undefined;
    const n = (2 * (s.length + 1)) / 5;
    if (n !== 6 && n !== 8 && n !== 20) return undefined;
    const hw = new Uint8Array(n);
    for (let x = 0, i = 0; i < n; i += 2, x += 5) {
      const a = xtoi2(s.slice(x, x + 2), '\0');
      const b = xtoi2(s.slice(x + 2), s[4]);
      if (a === undefined || b === undefined) return undefined;
      hw[i] = a;
      hw[i + 1] = b;
    }
    return hw;
  }
  return undefined;
}

/** `net.HardwareAddr.String()`: lower-case hex octets joined by `:` (empty for none). */
export function macString(hw: Uint8Array | undefined): string {
  if (!hw) return '';
  return [...hw].map((b) => b.toString(16).padStart(2, '0')).join(':');
}

// ─────────────────────────────────────────── strconv ───────────────────────────────────────────

/**
 * `strconv.ParseUint(s, 10, bitSize)`: the value, or the `*NumError` text (`strconv.ParseUint:
 * parsing "x": invalid syntax` / `value out of range`). Digits are read left to right and the
 * first bad digit or the first overflow decides, as Go's loop does.
 */
export function parseUint10(s: string, bitSize: 32 | 64): { value: number } | { error: string } {
  const fail = (what: string) => ({ error: `strconv.ParseUint: parsing ${goStrconvQuote(s)}: ${what}` });
  if (s === '') return fail('invalid syntax');
  const max = bitSize === 32 ? 0xffffffffn : 0xffffffffffffffffn;
  let n = 0n;
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    if (ch.length !== 1 || c < 48 || c > 57) return fail('invalid syntax');
    n = n * 10n + BigInt(c - 48);
    if (n > max) return fail('value out of range');
  }
  return { value: Number(n) };
}
