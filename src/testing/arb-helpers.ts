/**
 * Small helpers the kit's arbitraries share (arbitraries.ts, rejected.ts, traffic.ts). Internal:
 * not exported from `hnsim/testing` (src/testing/index.ts).
 */
import fc from 'fast-check';
import type { Json, JsonObject } from '../core/json.js';
import type { PolicyScope } from '../hns/policy/contracts.js';

/** One of `xs` (shrinking towards the first). */
export const pick = <T>(xs: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...xs);

const SCOPES: readonly PolicyScope[] = ['network', 'endpoint', 'subnet'];

/**
 * A policy scope in any case (`endpoint`, `Endpoint`), or a TypeError naming the valid ones — the
 * test kit takes scopes and document kinds in either case, so a caller's casing never silently
 * yields an empty or undefined arbitrary.
 */
export function scopeOf(scope: string): PolicyScope {
  const s = SCOPES.find((x) => x === String(scope).toLowerCase());
  if (!s)
    throw new TypeError(`unknown policy scope ${JSON.stringify(scope)}: use network, endpoint or subnet`);
  return s;
}

/** A document without the keys whose generated value is undefined. */
export function compact(o: Record<string, Json | undefined>): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * Optional field: present about `percent`% of the time, and shrinking towards absent (a
 * `fc.oneof` does not shrink from one branch to another): a draw of 0–99 decides, and it shrinks
 * towards 0, which is absent.
 */
export function maybe<T>(arb: fc.Arbitrary<T>, percent = 50): fc.Arbitrary<T | undefined> {
  return fc.tuple(fc.integer({ min: 0, max: 99 }), arb).map(([n, v]) => (n >= 100 - percent ? v : undefined));
}

/** True about `percent`% of the time, shrinking to false. */
export function sometimes(percent: number): fc.Arbitrary<boolean> {
  return fc.integer({ min: 0, max: 99 }).map((n) => n >= 100 - percent);
}
