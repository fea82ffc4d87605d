/**
 * IP addresses as integers. Parsing happens once at the boundary (IPv4 by hand, which is strict and
 * fast; IPv6 validated by ip-num); inside, an IPv4 address is a uint32 `number` and an IPv6 address
 * a `bigint`, so containment and allocation are plain integer math.
 */
import { createRequire } from 'node:module';
import type * as IpNum from 'ip-num';

/**
 * ip-num, loaded at the first IPv6 string to validate rather than with this module: its top-level
 * code builds IPv6 ranges (~15–20 ms), which every `import 'hnsim'` would pay though most hosts
 * never see an IPv6 address. It is CommonJS, so a synchronous `require` loads it on every Node 20
 * (from an ES module, `import('ip-num')` costs several times more: node's CommonJS export scan).
 * Not bundled: dist/ and the CLI bundle load it from node_modules, where it is a dependency.
 */
let ipNum: typeof IpNum | undefined;
function loadIpNum(): typeof IpNum {
  return (ipNum ??= createRequire(import.meta.url)('ip-num') as typeof IpNum);
}

export type IpAddr =
  { readonly family: 4; readonly value: number } | { readonly family: 6; readonly value: bigint };

/** Strict dotted quad: four decimal octets 0-255, no leading zeros, no spaces. */
export function parseIPv4(s: string): number | undefined {
  const n = s.length;
  if (n < 7 || n > 15) return undefined;
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (digits === 0) return undefined;
      value = value * 256 + octet;
      octet = 0;
      digits = 0;
      dots++;
      if (dots > 3) return undefined;
    } else if (c >= 48 && c <= 57) {
      if (digits > 0 && octet === 0) return undefined; // leading zero
      octet = octet * 10 + (c - 48);
      digits++;
      if (octet > 255) return undefined;
    } else {
      return undefined;
    }
  }
  if (dots !== 3 || digits === 0) return undefined;
  return value * 256 + octet;
}

export function formatIPv4(v: number): string {
  return `${(v >>> 24) & 255}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
}

export function parseIPv6(s: string): bigint | undefined {
  if (s.length < 2 || s.length > 45 || !s.includes(':') || s.includes('%')) return undefined;
  const { IPv6, Validator } = loadIpNum();
  const [ok] = Validator.isValidIPv6String(s);
  if (!ok) return undefined;
  try {
    return new IPv6(s).getValue();
  } catch {
    return undefined;
  }
}

/**
 * RFC 5952 form: lower case, no leading zeros, the longest run (at least two) of zero groups
 * compressed to `::` (the first run on a tie); IPv4-mapped addresses (::ffff:0:0/96) end in dotted
 * quad, `::ffff:192.0.2.1` (RFC 5952 §5, as Go's net.IP and Windows print them).
 */
export function formatIPv6(v: bigint): string {
  if (v >> 32n === 0xffffn) return `::ffff:${formatIPv4(Number(v & 0xffffffffn))}`;
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((v >> BigInt(i * 16)) & 0xffffn));
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

export function parseIp(s: string): IpAddr | undefined {
  const v4 = parseIPv4(s);
  if (v4 !== undefined) return { family: 4, value: v4 };
  const v6 = parseIPv6(s);
  if (v6 !== undefined) return { family: 6, value: v6 };
  return undefined;
}

export function formatIp(a: IpAddr): string {
  return a.family === 4 ? formatIPv4(a.value) : formatIPv6(a.value);
}

export function ipEquals(a: IpAddr, b: IpAddr): boolean {
  return a.family === b.family && a.value === b.value;
}

/** A hashable key for maps: "4:<n>" or "6:<n>". */
export function ipKey(a: IpAddr): string {
  return `${a.family}:${a.value.toString()}`;
}

/** A CIDR prefix. `addr` is the network address (host bits zero). */
export type Prefix =
  | { readonly family: 4; readonly addr: number; readonly len: number }
  | { readonly family: 6; readonly addr: bigint; readonly len: number };

const V6_ALL = (1n << 128n) - 1n;

/** The IPv4 netmask of a prefix length as a uint32 (lengths outside 0..32 are clamped). */
export function v4Mask(len: number): number {
  return len <= 0 ? 0 : len >= 32 ? 0xffffffff : (0xffffffff << (32 - len)) >>> 0;
}
function v6Mask(len: number): bigint {
  return len === 0 ? 0n : (V6_ALL << BigInt(128 - len)) & V6_ALL;
}

/**
 * Parse "a.b.c.d/len" or "x::/len". With `strict`, host bits must be zero; otherwise they are
 * cleared (the given host address is returned as `host`).
 */
export function parsePrefix(s: string, strict = false): (Prefix & { readonly host: IpAddr }) | undefined {
  const slash = s.indexOf('/');
  if (slash <= 0 || slash !== s.lastIndexOf('/')) return undefined;
  const lenStr = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(lenStr) || (lenStr.length > 1 && lenStr[0] === '0')) return undefined;
  const len = Number(lenStr);
  const ip = parseIp(s.slice(0, slash));
  if (!ip) return undefined;
  if (ip.family === 4) {
    if (len > 32) return undefined;
    const addr = (ip.value & v4Mask(len)) >>> 0;
    if (strict && addr !== ip.value) return undefined;
    return { family: 4, addr, len, host: ip };
  }
  if (len > 128) return undefined;
  const addr = ip.value & v6Mask(len);
  if (strict && addr !== ip.value) return undefined;
  return { family: 6, addr, len, host: ip };
}

export function formatPrefix(p: Prefix): string {
  return p.family === 4 ? `${formatIPv4(p.addr)}/${p.len}` : `${formatIPv6(p.addr)}/${p.len}`;
}

export function prefixContains(p: Prefix, a: IpAddr): boolean {
  if (p.family === 4) return a.family === 4 && (a.value & v4Mask(p.len)) >>> 0 === p.addr;
  return a.family === 6 && (a.value & v6Mask(p.len)) === p.addr;
}

/** Whether two prefixes share any address. */
export function prefixOverlaps(a: Prefix, b: Prefix): boolean {
  if (a.family !== b.family) return false;
  const shorter = a.len <= b.len ? a : b;
  const longer = shorter === a ? b : a;
  return prefixContains(
    shorter,
    longer.family === 4 ? { family: 4, value: longer.addr } : { family: 6, value: longer.addr as bigint },
  );
}

/** Last address of the prefix (broadcast for IPv4). */
export function prefixLast(p: Prefix): IpAddr {
  if (p.family === 4) return { family: 4, value: (p.addr | (~v4Mask(p.len) >>> 0)) >>> 0 };
  return { family: 6, value: p.addr | (~v6Mask(p.len) & V6_ALL) };
}

export function isDefaultRoute(p: Prefix): boolean {
  return p.len === 0;
}
