/**
 * The typed client's hand-written fast paths agree with what they replace: `copyData` copies as
 * `structuredClone` does (plain data copied here, anything else handed to structuredClone);
 * `unmarshal` finds each field as `pick` does (Go's rule: the exact key, else the first key equal
 * case-insensitively); `marshalQuery` writes what `json.Marshal` of hcsshim's HostComputeQuery gives through the generic
 * field-spec marshaller; `filterQuery`'s Filter is `json.Marshal(map[string]string{key: value})`
 * (hcsshim hcn/hcn.go builds it from a one-entry map).
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

describe('marshalQuery', () => {
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

  it('is the generic marshaller’s output, field for field', () => {
    fc.assert(
      fc.property(query, (q) => {
        const hq = q as unknown as HostComputeQuery;
        expect(marshalQuery(hq)).toBe(marshalQuerySlow(hq));
      }),
      { numRuns: 500 },
    );
  });

  it('hcsshim’s default query and a filtered one', () => {
    expect(marshalQuery({ SchemaVersion: { Major: 2, Minor: 0 }, Flags: 0 })).toBe(
      '{"SchemaVersion":{"Major":2,"Minor":0}}',
    );
    expect(marshalQuery(filterQuery('Name', 'a"b'))).toBe(
      '{"SchemaVersion":{"Major":2,"Minor":0},"Filter":"{\\"Name\\":\\"a\\\\\\"b\\"}"}',
    );
  });
});

describe('filterQuery', () => {
  it('Filter is the JSON of the one-entry map', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (k, v) => {
        expect(filterQuery(k, v)).toEqual({
          SchemaVersion: { Major: 2, Minor: 0 },
          Flags: 0,
          Filter: JSON.stringify({ [k]: v }),
        });
      }),
    );
  });
});

describe('unmarshal', () => {
  it('reads each field where pick finds it: the exact key first, else the first case-insensitive one', () => {
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
        const obj = Object.fromEntries(entries);
        const out = unmarshal(spec, obj);
        for (const n of names) {
          const want = pick(obj, n);
          if (want === undefined) expect(n in out).toBe(false);
          else expect(out[n]).toBe(want);
        }
      }),
    );
  });

  it('so too when two fields fold to one key (ID and Id), and the fields come out in spec order', () => {
    const names = ['Id', 'Name', 'ID', 'name'];
    const spec: Spec = names.map((n) => [n, 'raw'] as const);
    const key = fc.constantFrom('Name', 'name', 'NAME', 'nAme', 'ID', 'id', 'Id', 'iD', 'other');
    const value = fc.oneof(fc.integer(), fc.constant(null), fc.constant(undefined));
    fc.assert(
      fc.property(fc.array(fc.tuple(key, value), { maxLength: 8 }), (entries) => {
        const obj = Object.fromEntries(entries) as JsonObject;
        const out = unmarshal(spec, obj);
        const want: Record<string, unknown> = {};
        for (const n of names) {
          const v = pick(obj, n);
          if (v !== undefined) want[n] = v;
        }
        expect(out).toStrictEqual(want);
        expect(Object.keys(out)).toEqual(Object.keys(want));
      }),
    );
  });
});
