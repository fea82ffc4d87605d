/**
 * Go's `strconv.ParseUint` as the plugins call it (reference cni-windows.md §2, §4, §5.1): base 10
 * with the `*NumError` text (flannel's subnet.env), and base 0 with its prefixes and underscores
 * (the port-mapping and WCN policy protocol numbers); and `unicode.IsSpace` (skel's interface-name
 * check, host-local's `strings.TrimSpace`).
 */
import { goStrconvQuote } from './gojson.js';

/** Go's `unicode.IsSpace`. */
export function isGoSpace(c: number): boolean {
  return (
    c === 0x20 ||
    (c >= 0x09 && c <= 0x0d) ||
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

/** The value of a hex digit's char code, or -1. */
export function hexVal(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

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

/**
 * `strconv.ParseUint(s, 0, bitSize)`: base from the prefix (`0x`, `0o`, `0b`, a bare leading `0`
 * for octal, else decimal), underscores allowed only between digits (base 0), no sign. Undefined on
 * Go's syntax or range error.
 */
export function parseUintBase0(s: string, bitSize: number): number | undefined {
  if (s === '') return undefined;
  let base = 10;
  let body = s;
  if (s[0] === '0') {
    const p = s[1]?.toLowerCase();
    if (s.length >= 3 && p === 'x') {
      base = 16;
      body = s.slice(2);
    } else if (s.length >= 3 && p === 'o') {
      base = 8;
      body = s.slice(2);
    } else if (s.length >= 3 && p === 'b') {
      base = 2;
      body = s.slice(2);
    } else {
      base = 8;
      body = s.slice(1);
    }
  }
  if (!underscoreOK(s)) return undefined;
  const max = 2 ** bitSize - 1;
  let n = 0;
  let digits = 0;
  for (const ch of body) {
    if (ch === '_') continue;
    const d = hexVal(ch.charCodeAt(0));
    if (d < 0 || d >= base) return undefined;
    n = n * base + d;
    digits++;
    if (n > max) return undefined;
  }
  // a bare "0" is decimal zero; "0x" alone has no digits
  if (digits === 0 && !(s === '0' || /^0_*$/.test(s))) return undefined;
  return n;
}

/** Go's `underscoreOK`: underscores only between digits or between the base prefix and a digit. */
function underscoreOK(s: string): boolean {
  let saw = '^';
  let i = 0;
  let hex = false;
  if (s.length >= 1 && (s[0] === '-' || s[0] === '+')) s = s.slice(1);
  if (s.length >= 2 && s[0] === '0') {
    const p = s[1]!.toLowerCase();
    if (p === 'x' || p === 'o' || p === 'b') {
      i = 2;
      saw = '0';
      hex = p === 'x';
    }
  }
  for (; i < s.length; i++) {
    const c = s[i]!;
    const lower = c.toLowerCase();
    if ((c >= '0' && c <= '9') || (hex && lower >= 'a' && lower <= 'f')) {
      saw = '0';
      continue;
    }
    if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
      continue;
    }
    if (saw === '_') return false;
    saw = '!';
  }
  return saw !== '_';
}
