/**
 * The typed client's hand-written fast paths agree with what they replace: `copyData` copies as
 * `structuredClone` does (plain data copied here, anything else handed to structuredClone);
 * `unmarshal` fills each field as Go's encoding/json does (an oracle written here from decode.go:
 * keys in order, exact name else the first field that folds to it, a later key overwrites);
 * `marshalQuery` writes what `json.Marshal` of hcsshim's HostComputeQuery gives (an oracle written
 * here from the struct's tags and Go's string encoding, and literal queries), and values Go cannot
 * hold marshal as the generic field-spec marshaller has them; `filterQuery`'s Filter is
 * `json.Marshal(map[string]string{key: value})` (hcsshim hcn/hcn*.go builds it from a one-entry map).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  filterQuery,
  marshalQuery,
  marshalQuerySlow,
  type HostComputeQuery,
} from '../../../src/api/hcn/hcn.js';
import type { JsonObject } from '../../../src/core/json.js';
import { copyData, pick, unmarshal, type Spec } from '../../../src/api/hcn/marshal.js';
import { runs } from '../../runs.js';

describe('copyData', () => {
  it('plain data: a deep copy equal to structuredClone, sharing nothing with the original', () => {
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue({ maxDepth: 2 }),
        fc.constant(undefined),
        fc.array(tie('v'), { maxLength: 4 }),
        fc.dictionary(fc.string({ maxLength: 4 }), tie('v'), { maxKeys: 4 }),
      ),
    })).v;
    fc.assert(
      fc.property(value, (v) => {
        const c = copyData(v);
        expect(c).toStrictEqual(structuredClone(v));
        if (typeof v === 'object' && v !== null) {
          expect(c).not.toBe(v);
          // mutating the copy leaves the original alone
          const before = structuredClone(v);
          const m = c as Record<string, unknown>;
          for (const k of Object.keys(m)) m[k] = 'changed';
          expect(structuredClone(v)).toStrictEqual(before);
        }
      }),
    );
  });

  it('keeps an own "__proto__" key as data, as structuredClone does', () => {
    const v = JSON.parse('{"__proto__":{"x":1},"a":[1]}') as Record<string, unknown>;
    const c = copyData(v);
    expect(Object.keys(c)).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(c)).toBe(Object.prototype);
    expect(c).toStrictEqual(structuredClone(v));
  });

  it('anything not plain is structuredClone’s: Maps, Dates, cycles, sparse arrays, class instances', () => {
    class Point {
      constructor(readonly x: number) {}
    }
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = cyclic;
    // eslint-disable-next-line no-sparse-arrays
    const sparse = [1, , 3];
    for (const v of [new Map([[1, 2]]), new Date(5), cyclic, sparse, new Point(3), { d: new Date(1) }]) {
      expect(copyData(v)).toStrictEqual(structuredClone(v));
    }
    const c = copyData(cyclic);
    expect(c['self']).toBe(c);
    expect(() => copyData({ f: () => 1 })).toThrow();
    expect(copyData(undefined)).toBeUndefined();
  });
});

/**
 * Go's `json.Marshal` of a string (golang/go `src/encoding/json/encode.go`, `appendString` with
 * HTML escaping on, as `json.Marshal` has it), written here for well-formed strings: `"` and `\`
 * escaped; \b \f \n \r \t by name; other control characters as \u00xx; `<`, `>`, `&`, U+2028 and
 * U+2029 as \u003c, \u003e, \u0026, \u2028, \u2029; everything else as it is. A lone surrogate is
 * U+FFFD, written as it is: the Go side holds what it decoded from JSON or converted from UTF-16,
 * and both replace an unpaired surrogate with U+FFFD (`unicode/utf16.Decode`, decode.go `unquote`).
 */
function goString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    const named: Record<number, string> = {
      0x22: '\\"',
      0x5c: '\\\\',
      8: '\\b',
      12: '\\f',
      10: '\\n',
      13: '\\r',
      9: '\\t',
    };
    if (c >= 0xd800 && c <= 0xdfff) out += '\ufffd';
    else if (named[c] !== undefined) out += named[c];
    else if (c < 0x20 || c === 0x3c || c === 0x3e || c === 0x26 || c === 0x2028 || c === 0x2029)
      out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/**
 * `json.Marshal(HostComputeQuery{...})` from hcsshim's struct (hcn/hcn.go @ v0.14.1): `SchemaVersion
 * SchemaVersion \`json:""\`` (always; `Version{Major int \`json:"Major"\`; Minor int \`json:"Minor"\`}`),
 * `Flags HostComputeQueryFlags \`json:",omitempty"\``, `Filter string \`json:",omitempty"\``.
 */
function goQuery(major: number, minor: number, flags: number, filter: string): string {
  let out = `{"SchemaVersion":{"Major":${major},"Minor":${minor}}`;
  if (flags !== 0) out += `,"Flags":${flags}`;
  if (filter !== '') out += `,"Filter":${goString(filter)}`;
  return `${out}}`;
}

/** Strings with the characters Go and JSON.stringify write differently mixed in, lone surrogates too. */
const text = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 3 }),
      fc.constantFrom(
        '<',
        '>',
        '&',
        '\u2028',
        '\u2029',
        '"',
        '\\',
        '\n',
        '\b',
        '\u0001',
        '\u007f',
        'é',
        '😀',
        '\ud800',
        '\udfff',
        '\\ud800',
      ),
    ),
    { maxLength: 6 },
  )
  .map((parts) => parts.join(''));

describe('marshalQuery', () => {
  it('hcsshim’s queries, literally: defaultQuery, GetNetworkByName’s filter, a name Go escapes', () => {
    expect(marshalQuery({ SchemaVersion: { Major: 2, Minor: 0 }, Flags: 0 })).toBe(
      '{"SchemaVersion":{"Major":2,"Minor":0}}',
    );
    expect(marshalQuery(filterQuery('Name', 'cbr0'))).toBe(
      '{"SchemaVersion":{"Major":2,"Minor":0},"Filter":"{\\"Name\\":\\"cbr0\\"}"}',
    );
    expect(marshalQuery(filterQuery('Name', 'a"b'))).toBe(
      '{"SchemaVersion":{"Major":2,"Minor":0},"Filter":"{\\"Name\\":\\"a\\\\\\"b\\"}"}',
    );
    expect(marshalQuery(filterQuery('Name', '<your service cidr>'))).toBe(
      '{"SchemaVersion":{"Major":2,"Minor":0},"Filter":"{\\"Name\\":\\"\\\\u003cyour service cidr\\\\u003e\\"}"}',
    );
    expect(marshalQuery({ SchemaVersion: { Major: 2, Minor: 0 }, Flags: 1 })).toBe(
      '{"SchemaVersion":{"Major":2,"Minor":0},"Flags":1}',
    );
  });

  it('is json.Marshal of hcsshim’s HostComputeQuery for any value Go can hold', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
        fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
        fc.oneof(fc.constant(0), fc.constant(1), fc.integer({ min: 0, max: 2 ** 32 - 1 })),
        fc.oneof(fc.constant(''), text),
        (major, minor, flags, filter) => {
          const q: HostComputeQuery = {
            SchemaVersion: { Major: major, Minor: minor },
            Flags: flags,
            Filter: filter,
          };
          expect(marshalQuery(q)).toBe(goQuery(major, minor, flags, filter));
          expect(marshalQuerySlow(q)).toBe(goQuery(major, minor, flags, filter));
        },
      ),
      { numRuns: runs(500) },
    );
  });

  it('values Go cannot hold (not numbers, not strings) marshal as their zero, the fast path as the generic one', () => {
    const anything = fc.oneof(fc.jsonValue({ maxDepth: 1 }), fc.constant(undefined), fc.double());
    const query = fc.record(
      {
        SchemaVersion: fc.oneof(
          fc.record({ Major: anything, Minor: anything }, { requiredKeys: [] }),
          anything,
        ),
        Flags: anything,
        Filter: anything,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(query, (q) => {
        const hq = q as unknown as HostComputeQuery;
        expect(marshalQuery(hq)).toBe(marshalQuerySlow(hq));
      }),
      { numRuns: runs(300) },
    );
    expect(
      marshalQuery({ SchemaVersion: 'x', Flags: Number.NaN, Filter: 5 } as unknown as HostComputeQuery),
    ).toBe('{"SchemaVersion":{"Major":0,"Minor":0}}');
  });
});

describe('filterQuery', () => {
  it('Filter is json.Marshal(map[string]string{key: value}) (hcsshim hcn/hcn*.go)', () => {
    fc.assert(
      fc.property(text, text, (k, v) => {
        expect(filterQuery(k, v)).toEqual({
          SchemaVersion: { Major: 2, Minor: 0 },
          Flags: 0,
          Filter: `{${goString(k)}:${goString(v)}}`,
        });
      }),
    );
    expect(filterQuery('Name', 'a&b').Filter).toBe('{"Name":"a\\u0026b"}');
  });
});

/**
 * Go's `encoding/json` decoding a JSON object into a struct (golang/go `src/encoding/json/decode.go`,
 * `object`): the keys are read in order; each goes to the field of exactly its name, else to the
 * first field (in struct order) whose name equals it case-insensitively; its value is decoded into
 * that field, over whatever an earlier key put there. Written here from decode.go, for fields that
 * take any value (`json.RawMessage`); a key with no value (`undefined`, which JSON cannot carry) is
 * no key. The fields come out in struct (spec) order.
 */
function goDecodeStruct(fields: readonly string[], obj: JsonObject): Record<string, unknown> {
  const set = new Map<string, unknown>();
  for (const key of Object.keys(obj)) {
    const value = obj[key];
    if (value === undefined) continue;
    const field = fields.includes(key) ? key : fields.find((f) => f.toLowerCase() === key.toLowerCase());
    if (field !== undefined) set.set(field, value);
  }
  const out: Record<string, unknown> = {};
  for (const f of fields) if (set.has(f)) out[f] = set.get(f);
  return out;
}

describe('unmarshal', () => {
  it('literal vectors: an exact key, a case-insensitive one, and the later of two keys for one field', () => {
    const spec: Spec = [
      ['Name', 'raw'],
      ['ID', 'raw'],
      ['Id', 'raw'],
    ];
    expect(unmarshal(spec, { Name: 'a' })).toStrictEqual({ Name: 'a' });
    expect(unmarshal(spec, { NAME: 'a', other: 1 })).toStrictEqual({ Name: 'a' });
    // Go: each key assigns its field in turn; the last one for a field stays
    expect(unmarshal(spec, { name: 'a', Name: 'b' })).toStrictEqual({ Name: 'b' });
    expect(unmarshal(spec, { Name: 'b', name: 'a' })).toStrictEqual({ Name: 'a' });
    // "id" folds to both ID and Id: the first of them in struct order takes it
    expect(unmarshal(spec, { id: 1 })).toStrictEqual({ ID: 1 });
    expect(unmarshal(spec, { Id: 2, id: 1 })).toStrictEqual({ ID: 1, Id: 2 });
    expect(unmarshal(spec, { id: 1, ID: 3 })).toStrictEqual({ ID: 3 });
  });

  it('reads each field as Go does, for any keys in any order', () => {
    const names = ['Name', 'ID', 'Flags', 'Dns'];
    const spec: Spec = names.map((n) => [n, 'raw'] as const);
    const key = fc.constantFrom(
      'Name',
      'name',
      'NAME',
      'ID',
      'id',
      'Id',
      'Flags',
      'flags',
      'dns',
      'DNS',
      'other',
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(key, fc.integer()), { maxLength: 8 }), (entries) => {
        const obj = Object.fromEntries(entries) as JsonObject;
        expect(unmarshal(spec, obj)).toStrictEqual(goDecodeStruct(names, obj));
      }),
    );
  });

  it('so too when two fields fold to one key (ID and Id), with nulls and missing values, in spec order', () => {
    const names = ['Id', 'Name', 'ID', 'name'];
    const spec: Spec = names.map((n) => [n, 'raw'] as const);
    const key = fc.constantFrom('Name', 'name', 'NAME', 'nAme', 'ID', 'id', 'Id', 'iD', 'other');
    const value = fc.oneof(fc.integer(), fc.constant(null), fc.constant(undefined));
    fc.assert(
      fc.property(fc.array(fc.tuple(key, value), { maxLength: 8 }), (entries) => {
        const obj = Object.fromEntries(entries) as JsonObject;
        const out = unmarshal(spec, obj);
        const want = goDecodeStruct(names, obj);
        expect(out).toStrictEqual(want);
        expect(Object.keys(out)).toEqual(Object.keys(want));
      }),
    );
  });

  it('pick agrees with Go where one key names the field', () => {
    const key = fc.constantFrom('Name', 'name', 'NAME', 'other');
    fc.assert(
      fc.property(key, fc.integer(), (k, v) => {
        const obj: JsonObject = { [k]: v };
        expect(pick(obj, 'Name')).toBe(goDecodeStruct(['Name'], obj)['Name']);
      }),
    );
  });
});
