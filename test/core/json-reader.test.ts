/**
 * The JSON field reader under every HNS document: integer fields as Go and HNS read them.
 */
import { describe, expect, it } from 'vitest';
import { Reader } from '../../src/core/json.js';
import { HnsError } from '../../src/core/errors.js';

describe('Reader.optUint', () => {
  it("reads JSON's -0 as 0, so a document read and written again is the same JSON (found by the soak of parsePolicy)", () => {
    const doc = JSON.parse('{"Protocol": -0, "Priority": 0}') as { Protocol: number };
    expect(Object.is(doc.Protocol, -0)).toBe(true);
    const r = new Reader(doc);
    expect(Object.is(r.optUint('Protocol', 0xffff), 0)).toBe(true);
    expect(Object.is(r.uint('Priority', 0xffff), 0)).toBe(true);
  });

  it('refuses what is no integer in range, naming the path', () => {
    const r = new Reader({ a: -1, b: 1.5, c: 70000, d: '1' }, 'HCN_E_INVALID_JSON', '$.Settings');
    for (const k of ['a', 'b', 'c', 'd']) {
      expect(() => r.optUint(k, 0xffff)).toThrow(HnsError);
      expect(() => r.optUint(k, 0xffff)).toThrow(`$.Settings: ${k} must be an integer in 0..65535`);
    }
    expect(r.optUint('missing', 1)).toBeUndefined();
  });
});
