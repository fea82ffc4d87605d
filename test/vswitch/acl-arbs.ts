/**
 * Arbitraries of HNS ACL fields shared by the ACL property tests (test/vswitch, test/analysis):
 * addresses from five hosts with /8–/32 prefixes and ports from seven values, so that rules
 * overlap often, and priorities mostly from three values, so that they tie often.
 */
import { fc } from '@fast-check/vitest';

export const HOSTS = ['10.0.0.1', '10.0.0.2', '10.0.1.1', '10.1.0.1', '11.0.0.1'] as const;
export const PORTS = [53, 80, 443, 1000, 1500, 2000, 8080] as const;

export const prefixArb = fc
  .tuple(fc.constantFrom(...HOSTS), fc.oneof(fc.constantFrom(32, 24, 16, 8), fc.integer({ min: 8, max: 32 })))
  .map(([a, len]) => `${a}/${len}`);
export const addressListArb = fc.array(prefixArb, { minLength: 1, maxLength: 2 }).map((xs) => xs.join(','));
const portItemArb = fc.oneof(
  fc.constantFrom(...PORTS).map(String),
  fc
    .tuple(fc.constantFrom(...PORTS), fc.constantFrom(...PORTS))
    .map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
);
export const portListArb = fc.array(portItemArb, { minLength: 1, maxLength: 3 }).map((xs) => xs.join(','));
/** Mostly three shared values, so that equal priorities (ties) are common. */
export const priorityArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(100, 500, 1000) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 65500 }) },
);

/** An optional field, absent two times in three (and when shrunk), so that rules are often broad. */
export function optional<T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
}
