/**
 * GUIDs as HNS handles them: parsed case-insensitively (with or without braces), stored and emitted
 * in canonical upper-case form (HNS v1 output, namespace resources and LB backends are upper-case,
 * reference hns-hcs.md §6.16). New IDs come from the seeded Rng, as version-4 GUIDs.
 */
import type { Rng } from './rng.js';

/** Two upper-case hex digits per byte value. */
export const HEX_BYTE: readonly string[] = Array.from({ length: 256 }, (_, i) =>
  i.toString(16).toUpperCase().padStart(2, '0'),
);

export const NULL_GUID = '00000000-0000-0000-0000-000000000000';

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/** Canonical (upper-case, no braces) form, or undefined when `s` is not a GUID. Hot path: no regex. */
export function parseGuid(s: string): string | undefined {
  let body = s;
  if (s.length === 38) {
    if (s.charCodeAt(0) !== 123 || s.charCodeAt(37) !== 125) return undefined;
    body = s.slice(1, 37);
  } else if (s.length !== 36) {
    return undefined;
  }
  let lower = false;
  for (let i = 0; i < 36; i++) {
    const c = body.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45) return undefined;
    } else if (!isHex(c)) {
      return undefined;
    } else if (c >= 97) {
      lower = true;
    }
  }
  return lower ? body.toUpperCase() : body;
}

export function isNullGuid(canonical: string): boolean {
  return canonical === NULL_GUID;
}

function hex8(n: number): string {
  return HEX_BYTE[n >>> 24]! + HEX_BYTE[(n >>> 16) & 255]! + HEX_BYTE[(n >>> 8) & 255]! + HEX_BYTE[n & 255]!;
}

/** A fresh version-4 GUID drawn from `rng` (built flat: IDs are kept per object). */
export function newGuid(rng: Rng): string {
  const a = hex8(rng.nextU32());
  const b = hex8(rng.nextU32());
  const w2 = rng.nextU32();
  const c = hex8(w2);
  const d = hex8(rng.nextU32());
  const variant = '89AB'[(w2 >>> 28) & 3]!;
  return [
    a,
    '-',
    b.slice(0, 4),
    '-4',
    b.slice(5, 8),
    '-',
    variant,
    c.slice(1, 4),
    '-',
    c.slice(4, 8),
    d,
  ].join('');
}

/**
 * A GUID derived from another (and a salt) without drawing from any Rng: a stable companion ID,
 * e.g. the `ActivityId` HNS shows beside an object's `ID`. Same input → same output.
 */
export function derivedGuid(id: string, salt: number): string {
  const hex = id.replace(/-/g, '');
  let h = (salt ^ 0x9e3779b9) >>> 0;
  const words: number[] = [];
  for (let w = 0; w < 4; w++) {
    const chunk = parseInt(hex.slice(w * 8, w * 8 + 8), 16) >>> 0;
    h = Math.imul(h ^ chunk, 0x85ebca6b) >>> 0;
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
    h = (h ^ (h >>> 16)) >>> 0;
    words.push(h);
  }
  const [a, b, c, d] = words as [number, number, number, number];
  const b1 = hex8(b);
  const c1 = hex8(c);
  const variant = '89AB'[(c >>> 28) & 3]!;
  return `${hex8(a)}-${b1.slice(0, 4)}-4${b1.slice(5, 8)}-${variant}${c1.slice(1, 4)}-${c1.slice(4, 8)}${hex8(d)}`;
}
