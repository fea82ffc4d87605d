/**
 * Properties of results and Go JSON (src/cni/result.ts, gojson.ts): conversions that Go makes
 * lossless are lossless for any result, printed text always re-reads to the same result, and the
 * Go scanner accepts exactly the documents JSON.parse accepts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { convertResult, parseResult, resultJson, resultText, type CniResult } from '../../src/cni/index.js';
import { goMarshal, goSyntaxError, type GoValue } from '../../src/cni/gojson.js';
import { runs } from '../runs.js';

const v4 = fc
  .tuple(fc.integer({ min: 1, max: 223 }), fc.nat(255), fc.nat(255), fc.nat(255))
  .map((o) => o.join('.'));
const v6 = fc
  .array(fc.nat(0xffff), { minLength: 8, maxLength: 8 })
  .map((g) => g.map((x) => x.toString(16)).join(':'));
const cidr = fc.oneof(
  fc.tuple(v4, fc.nat(32)).map(([a, l]) => `${a}/${l}`),
  fc.tuple(v6, fc.nat(128)).map(([a, l]) => `${a}/${l}`),
);
const word = fc.stringMatching(/^[a-z0-9]{1,8}$/);
const result: fc.Arbitrary<CniResult> = fc.record(
  {
    cniVersion: fc.constant('1.1.0'),
    interfaces: fc.array(
      fc.record(
        {
          name: word,
          mac: fc.option(word, { nil: undefined }),
          sandbox: fc.option(word, { nil: undefined }),
        },
        { requiredKeys: ['name'] },
      ),
      { minLength: 1, maxLength: 3 },
    ),
    ips: fc.array(
      fc.record(
        {
          address: cidr,
          gateway: fc.option(v4, { nil: undefined }),
          interface: fc.option(fc.nat(2), { nil: undefined }),
        },
        { requiredKeys: ['address'] },
      ),
      { minLength: 1, maxLength: 3 },
    ),
    routes: fc.array(
      fc.record({ dst: cidr, gw: fc.option(v4, { nil: undefined }) }, { requiredKeys: ['dst'] }),
      { maxLength: 3 },
    ),
    dns: fc.record(
      { nameservers: fc.array(v4, { maxLength: 2 }), domain: fc.option(word, { nil: undefined }) },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['cniVersion', 'ips'] },
);

/** Drop undefined members (what a JSON round trip does). */
const clean = (r: CniResult): unknown => JSON.parse(JSON.stringify(r));

describe('result properties', () => {
  it('1.1.0 → 1.0.0 → 1.1.0 and 1.1.0 → 0.4.0 → 1.1.0 are lossless for what 0.4.0 carries', () => {
    fc.assert(
      fc.property(result, (r) => {
        const direct = resultJson(r, '1.1.0');
        expect(resultJson(convertResult(convertResult(r, '1.0.0'), '1.1.0'), '1.1.0')).toEqual(direct);
        expect(resultJson(convertResult(convertResult(r, '0.4.0'), '1.1.0'), '1.1.0')).toEqual(direct);
      }),
    );
  });

  it('printed text read back at its version prints the same text', () => {
    fc.assert(
      fc.property(
        result,
        fc.constantFrom('0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'),
        (r, v) => {
          const text = resultText(r, v);
          expect(resultText(parseResult(text, v), v)).toBe(text);
        },
      ),
    );
  });

  it('a result read at its own version keeps its content', () => {
    fc.assert(
      fc.property(result, (r) => {
        const back = parseResult(resultText(r, '1.1.0'), '1.1.0');
        expect(resultJson(back, '1.1.0')).toEqual(resultJson(clean(r) as CniResult, '1.1.0'));
      }),
    );
  });
});

describe('Go JSON properties', () => {
  it('goSyntaxError accepts exactly what JSON.parse accepts', () => {
    const text = fc.oneof(
      fc.json(),
      fc.json().map((s) => s.slice(0, Math.max(0, s.length - 1))),
      fc.string({
        unit: fc.constantFrom(
          '{',
          '}',
          '[',
          ']',
          '"',
          ':',
          ',',
          '1',
          '-',
          '.',
          'e',
          't',
          'n',
          ' ',
          '\\',
          'u',
          'a',
        ),
      }),
    );
    fc.assert(
      fc.property(text, (s) => {
        let ok = true;
        try {
          JSON.parse(s);
        } catch {
          ok = false;
        }
        expect(goSyntaxError(s) === undefined).toBe(ok);
      }),
      { numRuns: runs(500) },
    );
  });

  it('goMarshal text parses back to the value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(JSON.parse(goMarshal(v as GoValue))).toEqual(JSON.parse(JSON.stringify(v)));
      }),
    );
  });
});
