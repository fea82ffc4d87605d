/**
 * The one-pass forms of the Go JSON helpers give what their two-pass references give: `json.
 * MarshalIndent` laid out while marshalling is `json.Indent` of `json.Marshal`'s text (Go's
 * encoding/json: MarshalIndent = Marshal then Indent), a value turned into Go's map form
 * directly is what unmarshalling its marshalled text gives (libcni's cached result), and the
 * document of a value built directly is what JSON.parse makes of its text (members in the same
 * order, same prototypes), for maps
 * (sorted keys), structs (declared order, repeated names), MarshalJSON texts, unicode, escapes,
 * lone surrogates, `__proto__`, big and negative-zero numbers, values Go cannot encode and deep
 * nesting.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  goDocOf,
  goIndent,
  goMapOf,
  goMarshal,
  goMarshalIndent,
  GoOrdered,
  GoRaw,
  type GoValue,
} from '../../src/cni/gojson.js';
import { runs } from '../runs.js';

/** Strings and keys with what Go's encoder treats specially. */
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.string({
    unit: fc.constantFrom(
      'a',
      'Z',
      '<',
      '>',
      '&',
      '"',
      '\\',
      '\n',
      '\u0001',
      '\u2028',
      '\ud800',
      '\udc00',
      '\ud83d\ude00',
      'é',
      ' ',
    ),
    maxLength: 6,
  }),
);

const number = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 1e21, 1e-7, 2 ** 53 + 2, -(2 ** 63), 123456789012345680000),
);

/** GoValues: plain objects are maps, GoOrdered structs (duplicate names allowed), GoRaw texts. */
const { value } = fc.letrec<{ value: GoValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    number,
    text,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(text, tie('value'), { maxKeys: 4 }),
    fc.array(fc.tuple(text, tie('value')), { maxLength: 4 }).map((es) => new GoOrdered(es)),
    fc
      .tuple(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(undefined, 1, 2, '\t'))
      .map(([v, sp]) => new GoRaw(` ${JSON.stringify(v, null, sp)}\n`)),
    // Go's own compact output, spliced as it is
    fc.jsonValue({ maxDepth: 3 }).map((v) => new GoRaw(JSON.stringify(v), true)),
  ),
}));

/** A value nested `depth` levels in alternating maps, structs and arrays. */
function deep(depth: number): GoValue {
  let v: GoValue = 'leaf';
  for (let i = 0; i < depth; i++) {
    v =
      i % 3 === 0
        ? { k: v, a: [] }
        : i % 3 === 1
          ? new GoOrdered([
              ['z', v],
              ['a', {}],
            ])
          : [v, 1];
  }
  return v;
}

describe('goMarshalIndent is goIndent(goMarshal(v))', () => {
  it('on generated values', () => {
    fc.assert(
      fc.property(value, fc.constantFrom('    ', '\t', '  '), (v, indent) => {
        expect(goMarshalIndent(v, indent)).toBe(goIndent(goMarshal(v), '', indent));
      }),
      { numRuns: runs(1_000, 30_000) },
    );
  });

  it('on deep nesting and empty containers', () => {
    for (const d of [0, 1, 2, 3, 10, 200])
      expect(goMarshalIndent(deep(d))).toBe(goIndent(goMarshal(deep(d))));
    for (const v of [{}, [], new GoOrdered([]), { a: undefined } as unknown as GoValue, [[], {}]])
      expect(goMarshalIndent(v)).toBe(goIndent(goMarshal(v)));
  });

  it('fails as goMarshal fails on what Go cannot encode', () => {
    for (const bad of [NaN, Infinity, { a: [1, -Infinity] }])
      expect(() => goMarshalIndent(bad)).toThrow(/json: unsupported value/);
  });
});

describe('goMapOf is JSON.parse(goMarshal(v))', () => {
  /** What the round trip gives, as Go's text sees it: the same marshalled text, the same content. */
  const same = (v: GoValue): void => {
    let want: unknown;
    try {
      want = JSON.parse(goMarshal(v));
    } catch (e) {
      expect(() => goMapOf(v)).toThrow((e as Error).message);
      return;
    }
    const got = goMapOf(v);
    expect(got).toEqual(want);
    expect(goMarshal(got as GoValue)).toBe(goMarshal(want as GoValue));
  };

  it('on generated values', () => {
    fc.assert(fc.property(value, same), { numRuns: runs(1_000, 30_000) });
  });

  it('on deep nesting, repeated struct fields, undefined members and what Go cannot encode', () => {
    for (const d of [0, 1, 5, 200]) same(deep(d));
    same(
      new GoOrdered([
        ['a', 1],
        ['b', 2],
        ['a', 3],
      ]),
    );
    same({ a: undefined, b: [1, { c: undefined }] } as unknown as GoValue);
    same(new GoOrdered([['__proto__', { x: 1 }]]));
    same({ '\ud800': 1, '\ufffd': 2 });
    same(new GoOrdered([['k', NaN]]));
    same({ a: Infinity, b: -Infinity });
  });
});

/** The member names of every object in `v`, in order, with their paths: what key order shows. */
function shape(v: unknown, path = '$'): string[] {
  if (typeof v !== 'object' || v === null) return [];
  const here = `${path}:${Array.isArray(v) ? 'array' : String(Object.getPrototypeOf(v) === Object.prototype)}`;
  return [
    `${here}[${Object.keys(v).join('\u0000')}]`,
    ...Object.keys(v).flatMap((k) => shape((v as Record<string, unknown>)[k], `${path}.${k}`)),
  ];
}

describe('goDocOf is JSON.parse(goMarshal(v))', () => {
  const same = (v: GoValue): void => {
    let want: unknown;
    try {
      want = JSON.parse(goMarshal(v));
    } catch (e) {
      expect(() => goDocOf(v)).toThrow((e as Error).message);
      return;
    }
    const got = goDocOf(v);
    expect(got).toStrictEqual(want);
    expect(shape(got)).toEqual(shape(want));
  };

  it('on generated values', () => {
    fc.assert(fc.property(value, same), { numRuns: runs(1_000, 30_000) });
  });

  it('on deep nesting, repeated names, `__proto__`, merged keys, integer keys and bad numbers', () => {
    for (const d of [0, 1, 5, 200]) same(deep(d));
    same(
      new GoOrdered([
        ['b', 1],
        ['a', 2],
        ['b', 3],
      ]),
    );
    same(
      new GoOrdered([
        ['__proto__', { x: 1 }],
        ['y', 2],
      ]),
    );
    same({ ['__proto__']: 1 } as GoValue);
    same(JSON.parse('{"__proto__":{"a":1},"b":2}') as GoValue);
    same({ '\ud800': 1, '\ufffd': 2, a: '\udc00x' });
    same(
      new GoOrdered([
        ['\ud800', 1],
        ['\ufffd', 2],
        ['\udfff', 3],
      ]),
    );
    same({ b: 1, '10': 2, '2': 3, a: [-0, 0, 1e21] });
    same(
      new GoOrdered([
        ['k', 1],
        ['n', NaN],
      ]),
    );
    same({ b: -Infinity, a: NaN });
  });
});
