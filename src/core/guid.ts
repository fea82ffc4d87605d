/**
 * GUIDs as HNS handles them: parsed case-insensitively (with or without braces), stored and emitted
 * in canonical upper-case form (HNS v1 output, namespace resources and LB backends are upper-case,
 * reference hns-hcs.md §6.16). New IDs come from the seeded Rng, as version-4 GUIDs.
 */
import type { Rng } from './rng.js';

const GUID_RE = /^\{?([0-9a-fA-F]{8})-([0-9a-fA-F]{4})-([0-9a-fA-F]{4})-([0-9a-fA-F]{4})-([0-9a-fA-F]{12})\}?$/;

export const NULL_GUID = '00000000-0000-0000-0000-000000000000';

/** Canonical (upper-case, no braces) form, or undefined when `s` is not a GUID. */
export function parseGuid(s: string): string | undefined {
  const m = GUID_RE.exec(s);
  if (!m) return undefined;
  if (s.startsWith('{') !== s.endsWith('}')) return undefined;
  return `${m[1]}-${m[2]}-${m[3]}-${m[4]}-${m[5]}`.toUpperCase();
}

export function isNullGuid(canonical: string): boolean {
  return canonical === NULL_GUID;
}

function hex8(n: number): string {
  return (n >>> 0).toString(16).toUpperCase().padStart(8, '0');
}

/** A fresh version-4 GUID drawn from `rng`. */
export function newGuid(rng: Rng): string {
  const a = hex8(rng.nextU32());
  const b = hex8(rng.nextU32());
  const c = hex8(rng.nextU32());
  const d = hex8(rng.nextU32());
  const version = '4' + b.slice(5, 8);
  const variant = ((parseInt(c[0]!, 16) & 0x3) | 0x8).toString(16).toUpperCase() + c.slice(1, 4);
  return `${a}-${b.slice(0, 4)}-${version}-${variant}-${c.slice(4, 8)}${d}`;
}
