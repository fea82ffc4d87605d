/**
 * The fast paths of the Go JSON helpers give Go's answers: a document JSON.parse takes is one Go's
 * scanner takes (RFC 8259 is the grammar of both: encoding/json/scanner.go), and a failure still
 * carries the scanner's text; `json.Indent` lays text out as JSON.stringify's indentation does
 * (4 spaces, `"k": v`, empty containers kept `{}`/`[]`); `json.Compact` drops exactly the
 * insignificant white space; map keys are sorted by their UTF-8 bytes (code point order); strings
 * are quoted with HTML escaping and invalid UTF-16 replaced by U+FFFD (encoding/json encode.go).
 * The shared document of config bytes follows the bytes when they change.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bytesMemo,
  goCompact,
  GoError,
  goIndent,
  goMarshal,
  goParse,
  goParseShared,
  goQuote,
  goSortedKeys,
  goSyntaxError,
  goUnmarshal,
  goDecode,
  goString,
  goStruct,
  field,
  type GoValue,
} from '../../src/cni/gojson.js';
import type { Json } from '../../src/core/json.js';
import { runs } from '../runs.js';

/** Text that is JSON or close to it: JSON with one character changed, cut, or surrounded. */
const nearJson = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc
    .tuple(
      fc.jsonValue(),
      fc.nat(),
      fc.constantFrom('', ' ', ',', '}', ']', '"', '\\', '\u0001', 'x', '-', '.', 'e', '0'),
    )
    .map(([v, i, c]) => {
      const s = JSON.stringify(v, null, 1);
      const k = i % (s.length + 1);
      return s.slice(0, k) + c + s.slice(k + 1);
    }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom(
    '01',
    '-',
    '1.',
    '1e',
    '1e+',
    '-0',
    '\ufeff{}',
    '{"a":1}x',
    ' true ',
    'nul',
    '"\\u12"',
    '"\\x"',
    '[1,]',
  ),
);

describe('goParse: JSON.parse first, the scanner only on failure', () => {
  it('accepts exactly what the scanner accepts, with the scanner text on failure', () => {
    fc.assert(
      fc.property(nearJson, (text) => {
        const err = goSyntaxError(text);
        if (err === undefined) {
          expect(goParse(text)).toEqual(JSON.parse(text));
        } else {
          expect(() => goParse(text)).toThrow(new GoError(err));
        }
      }),
      { numRuns: runs(700, 20_000) },
    );
  });

  it('bytes (invalid UTF-8 included) are judged on the bytes', () => {
    fc.assert(
      fc.property(
        fc.tuple(fc.jsonValue(), fc.uint8Array({ maxLength: 3 }), fc.boolean()).map(([v, junk, inString]) => {
          const text = JSON.stringify(inString ? `s${'x'}` : v);
          const b = Buffer.from(text, 'utf8');
          const at = inString ? 2 : b.length;
          return new Uint8Array([...b.subarray(0, at), ...junk.map((x) => x | 0x80), ...b.subarray(at)]);
        }),
        (bytes) => {
          const err = goSyntaxError(bytes);
          if (err === undefined)
            expect(goParse(bytes)).toEqual(JSON.parse(Buffer.from(bytes).toString('utf8')));
          else expect(() => goParse(bytes)).toThrow(new GoError(err));
        },
      ),
    );
  });
});

describe('goIndent and goCompact', () => {
  it('indent of compact JSON is JSON.stringify with 4 spaces', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(goIndent(JSON.stringify(v))).toBe(JSON.stringify(v, null, 4));
        expect(goIndent(JSON.stringify(v, null, 3))).toBe(JSON.stringify(v, null, 4));
      }),
    );
  });

  it('with a prefix, every line after the first starts with it', () => {
    expect(goIndent('{"a":[1,{}],"b":"x, y: {z}"}', '>', '\t')).toBe(
      '{\n>\t"a": [\n>\t\t1,\n>\t\t{}\n>\t],\n>\t"b": "x, y: {z}"\n>}',
    );
  });

  it('compact drops the white space JSON.stringify added, and nothing in strings', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(goCompact(JSON.stringify(v, null, 2))).toBe(JSON.stringify(v));
        expect(goCompact(JSON.stringify(v))).toBe(JSON.stringify(v));
      }),
    );
    expect(goCompact('{ "a b" :\t[ 1 ,\r\n2 ] }')).toBe('{"a b":[1,2]}');
  });
});

/** Go's key order: by UTF-8 bytes, i.e. by code points (a lone surrogate as its own value). */
function codePointOrder(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** The string with every lone surrogate replaced by U+FFFD (`String.prototype.toWellFormed`). */
function wellFormed(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out += s[i]! + s[i + 1]!;
        i++;
        continue;
      }
    }
    out += c >= 0xd800 && c <= 0xdfff ? '\ufffd' : s[i]!;
  }
  return out;
}

describe('goMarshal', () => {
  it('writes map keys in code point order, whatever order they come in', () => {
    const key = fc.string({
      unit: fc.constantFrom('a', 'b', 'Z', '\u00e9', '\uffff', '\ud83d\ude00', '\ud800', '\ue000'),
      maxLength: 3,
    });
    fc.assert(
      fc.property(fc.uniqueArray(key, { maxLength: 8 }), (keys) => {
        const obj: Record<string, GoValue> = {};
        keys.forEach((k, i) => (obj[k] = i));
        const text = goMarshal(obj);
        const order = Object.keys(JSON.parse(text) as object);
        // JSON.parse lists integer-like keys first: none here
        const want = [...keys].sort(codePointOrder).map((k) => JSON.parse(goQuote(k)) as string);
        expect(order).toEqual(want);
      }),
    );
  });

  it('goSortedKeys sorts in code point order, with surrogates or without (the default sort is only right without)', () => {
    const key = (units: string[]) => fc.string({ unit: fc.constantFrom(...units), maxLength: 3 });
    const bmp = ['a', 'Z', '1', '.', '\u00e9', '\uffff', '\ue000'];
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uniqueArray(key(bmp), { maxLength: 12 }),
          fc.uniqueArray(key([...bmp, '\ud83d\ude00', '\ud800']), { maxLength: 12 }),
        ),
        (keys) => {
          expect(goSortedKeys(keys)).toEqual([...keys].sort(codePointOrder));
          // already in order: returned as given
          const sorted = [...keys].sort(codePointOrder);
          expect(goSortedKeys(sorted)).toEqual(sorted);
        },
      ),
      { numRuns: runs(300) },
    );
  });

  it('quotes as Go: HTML characters and U+2028/U+2029 escaped, lone surrogates become U+FFFD', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 20 }), (s) => {
        const q = goQuote(s);
        expect(q).not.toMatch(/[<>&\u2028\u2029]/);
        // JSON.parse of Go's output gives the string with every lone surrogate replaced
        expect(JSON.parse(q)).toBe(wellFormed(s));
        // nothing to escape: the string between quotes
        // eslint-disable-next-line no-control-regex
        if (!/["\\\u0000-\u001f<>&\u2028\u2029\ud800-\udfff]/.test(s)) expect(q).toBe(`"${s}"`);
      }),
    );
  });
});

describe('goParseShared and goDecode', () => {
  it('a changed byte in the same array gives the new document', () => {
    const bytes = new Uint8Array(Buffer.from('{"name":"a"}', 'utf8'));
    expect(goParseShared(bytes)).toEqual({ name: 'a' });
    expect(goParseShared(bytes)).toBe(goParseShared(bytes));
    bytes[9] = 0x62; // a → b
    expect(goParseShared(bytes)).toEqual({ name: 'b' });
  });

  it('bytesMemo derives once per array and bytes: again after a change in place or a failure', () => {
    const seen: string[] = [];
    const upper = bytesMemo((b) => {
      const t = Buffer.from(b).toString('utf8');
      seen.push(t);
      if (t === 'bad') throw new Error('bad bytes');
      return t.toUpperCase();
    });
    const bytes = new Uint8Array(Buffer.from('abc', 'utf8'));
    expect(upper(bytes)).toBe('ABC');
    expect(upper(bytes)).toBe('ABC');
    // equal bytes in another array are another key
    expect(upper(new Uint8Array(Buffer.from('abc', 'utf8')))).toBe('ABC');
    bytes[0] = 0x78; // a → x
    expect(upper(bytes)).toBe('XBC');
    const bad = new Uint8Array(Buffer.from('bad', 'utf8'));
    for (let i = 0; i < 2; i++) expect(() => upper(bad)).toThrow('bad bytes');
    expect(seen).toEqual(['abc', 'abc', 'xbc', 'bad', 'bad']);
  });

  it('a syntax error is thrown each time, as goParse throws it', () => {
    const bytes = new Uint8Array(Buffer.from('{"name":', 'utf8'));
    for (let i = 0; i < 2; i++) expect(() => goParseShared(bytes)).toThrow('unexpected end of JSON input');
  });

  it('goDecode takes a parsed document: a JSON string in it is a string, not text to parse', () => {
    const t = goStruct('types.NetConf', [field('name', goString)]);
    const doc: Json = 'x';
    expect(() => goDecode(doc, t)).toThrow(
      'json: cannot unmarshal string into Go value of type types.NetConf',
    );
    expect(() => goUnmarshal('"x"', t)).toThrow(
      'json: cannot unmarshal string into Go value of type types.NetConf',
    );
  });
});
