/**
 * IPv4 on integers for the packet path: addresses are uint32, prefixes `{addr, len, mask}` with the
 * mask precomputed, and a longest-prefix-match table. Text is parsed only at the edges (trace
 * requests, HNS records), through src/addr.
 */
import { hnsError } from '../core/errors.js';
import { formatIPv4, parseIPv4, v4Mask, type Prefix } from '../addr/ip.js';

/** `10.0.0.4` → uint32, or undefined; and uint32 → `10.0.0.4` (src/addr's, under the packet path's names). */
export { parseIPv4 as ip4, formatIPv4 as fmt } from '../addr/ip.js';

export interface Prefix4 {
  readonly addr: number;
  readonly len: number;
  readonly mask: number;
}

/** The netmask of a prefix length (src/addr/ip.ts). */
export const maskOf = v4Mask;

export function prefix4(addr: number, len: number): Prefix4 {
  const mask = maskOf(len);
  return { addr: (addr & mask) >>> 0, len, mask };
}

/** An IPv4 prefix from the HNS record form; undefined for IPv6. */
export function fromPrefix(p: Prefix): Prefix4 | undefined {
  return p.family === 4 ? prefix4(p.addr, p.len) : undefined;
}

export function contains(p: Prefix4, ip: number): boolean {
  return (ip & p.mask) >>> 0 === p.addr;
}

/** `10.0.0.4` → uint32; throws on bad text (for literals in code and tests). */
export function ip(text: string): number {
  const v = parseIPv4(text);
  if (v === undefined) throw new TypeError(`not an IPv4 address: ${text}`);
  return v;
}

export function fmtPrefix(p: Prefix4): string {
  return `${formatIPv4(p.addr)}/${p.len}`;
}

/** `10.244.0.0/16` → Prefix4 (host bits cleared), or undefined. */
export function parsePrefix4(text: string): Prefix4 | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) {
    const a = parseIPv4(text);
    return a === undefined ? undefined : prefix4(a, 32);
  }
  const a = parseIPv4(text.slice(0, slash));
  const lenText = text.slice(slash + 1);
  if (a === undefined || !/^\d{1,2}$/.test(lenText) || Number(lenText) > 32) return undefined;
  return prefix4(a, Number(lenText));
}

/** A longest-prefix-match table: prefixes grouped by length, looked up longest first. */
export class Lpm<T> {
  private readonly byLen = new Map<number, Map<number, T>>();
  private lens: number[] = [];

  add(p: Prefix4, value: T): void {
    let m = this.byLen.get(p.len);
    if (!m) {
      m = new Map();
      this.byLen.set(p.len, m);
      this.lens = [...this.byLen.keys()].sort((a, b) => b - a);
    }
    if (!m.has(p.addr)) m.set(p.addr, value);
  }

  lookup(ip: number): T | undefined {
    for (const len of this.lens) {
      const v = this.byLen.get(len)!.get((ip & maskOf(len)) >>> 0);
      if (v !== undefined) return v;
    }
    return undefined;
  }

  get size(): number {
    let n = 0;
    for (const m of this.byLen.values()) n += m.size;
    return n;
  }
}

/**
 * A prefix argument of an API (`10.244.0.0/16`, the length required, at most /`longest`), else
 * E_INVALIDARG naming `what`.
 */
export function prefixArg(text: string, what: string, longest = 32): Prefix4 {
  const p = parsePrefix4(text);
  if (!p || !text.includes('/') || p.len > longest)
    throw hnsError(
      'E_INVALIDARG',
      `${what} "${text}" is not an IPv4 prefix${longest < 32 ? ` of /${longest} or larger` : ''}`,
    );
  return p;
}
