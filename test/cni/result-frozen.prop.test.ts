/**
 * A result read or converted here is shared (its Go type is remembered for later conversions), so
 * nothing reachable from it can be changed: every object and list in it is frozen, for results of
 * every version and shape (interfaces with mtu/socketPath/pciID, IPs with interface indexes,
 * routes with mtu/table/scope, DNS lists; 0.2.0's ip4/ip6 with their routes).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { convertResult, parseResult, resultText, type CniResult } from '../../src/cni/index.js';
import { runs } from '../runs.js';

const VERSIONS = ['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'] as const;

const v4 = fc
  .tuple(fc.integer({ min: 1, max: 223 }), fc.nat(255), fc.nat(255), fc.nat(255))
  .map((o) => o.join('.'));
const cidr = fc.tuple(v4, fc.nat(32)).map(([a, l]) => `${a}/${l}`);
const word = fc.stringMatching(/^[a-z0-9]{1,8}$/);
const opt = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(a, { nil: undefined });

const result: fc.Arbitrary<CniResult> = fc.record(
  {
    cniVersion: fc.constant('1.1.0'),
    interfaces: fc.array(
      fc.record(
        {
          name: word,
          mac: opt(word),
          mtu: opt(fc.nat(9000)),
          sandbox: opt(word),
          socketPath: opt(word),
          pciID: opt(word),
        },
        { requiredKeys: ['name'] },
      ),
      { maxLength: 3 },
    ),
    ips: fc.array(
      fc.record(
        { address: cidr, gateway: opt(v4), interface: opt(fc.nat(2)) },
        { requiredKeys: ['address'] },
      ),
      { minLength: 1, maxLength: 3 },
    ),
    routes: fc.array(
      fc.record(
        { dst: cidr, gw: opt(v4), mtu: opt(fc.nat(9000)), table: opt(fc.nat(300)), scope: opt(fc.nat(255)) },
        { requiredKeys: ['dst'] },
      ),
      { maxLength: 3 },
    ),
    dns: fc.record(
      {
        nameservers: fc.array(v4, { maxLength: 2 }),
        domain: opt(word),
        search: fc.array(word, { maxLength: 2 }),
        options: fc.array(word, { maxLength: 2 }),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['cniVersion', 'ips'] },
);

/** Every object reachable from `v` is frozen. */
function expectDeepFrozen(v: unknown, path = 'result'): void {
  if (typeof v !== 'object' || v === null) return;
  expect(Object.isFrozen(v), path).toBe(true);
  for (const [k, x] of Object.entries(v)) expectDeepFrozen(x, `${path}.${k}`);
}

describe('results read or converted are frozen through and through', () => {
  it('parseResult of printed text, at every version', () => {
    fc.assert(
      fc.property(result, fc.constantFrom(...VERSIONS), (r, v) => {
        let text: string;
        try {
          text = resultText(r, v);
        } catch {
          return; // (no IPv4 address left for 0.2.0, …)
        }
        expectDeepFrozen(parseResult(text, v));
      }),
      { numRuns: runs(500) },
    );
  });

  it('convertResult of a built result and of a read one, to every version', () => {
    fc.assert(
      fc.property(result, fc.constantFrom(...VERSIONS), fc.constantFrom(...VERSIONS), (r, a, b) => {
        let converted: CniResult;
        try {
          converted = convertResult(r, a);
        } catch {
          return;
        }
        expectDeepFrozen(converted);
        let again: CniResult | undefined;
        try {
          again = convertResult(converted, b);
        } catch {
          again = undefined;
        }
        if (again) expectDeepFrozen(again);
      }),
      { numRuns: runs(500) },
    );
  });

  it('a 0.2.0 document with ip4 and ip6 routes and DNS', () => {
    const doc = {
      cniVersion: '0.2.0',
      ip4: { ip: '10.0.0.2/24', gateway: '10.0.0.1', routes: [{ dst: '0.0.0.0/0', gw: '10.0.0.1' }] },
      ip6: { ip: 'fd00::2/64', routes: [{ dst: '::/0' }] },
      dns: { nameservers: ['10.0.0.10'], domain: 'd', search: ['s'], options: ['o'] },
    };
    expectDeepFrozen(parseResult(JSON.stringify(doc), '0.2.0'));
    expectDeepFrozen(convertResult(parseResult(JSON.stringify(doc), '0.2.0'), '1.0.0'));
  });
});
