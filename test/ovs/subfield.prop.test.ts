/**
 * The number path for one-word subfields (moves and `output:<subfield>` in the hot path) against
 * the BigInt path it stands in for: the same value read, the same words written, for every
 * one-word field (registers, ct_mark, IPv4 addresses, ports, ip_dscp's shifted bits…), every
 * offset and width, and random flows.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import {
  FIELDS,
  N_WORDS,
  isWordSubfield,
  readSubfield,
  readWordSubfield,
  writeSubfield,
  writeWordSubfield,
  type Subfield,
} from '../../src/ovs/fields.js';

const oneWord = FIELDS.filter((f) => f.bits <= 32);

const subfield = fc
  .constantFrom(...oneWord)
  .chain((field) =>
    fc
      .integer({ min: 0, max: field.bits - 1 })
      .chain((ofs) =>
        fc.integer({ min: 1, max: field.bits - ofs }).map((nBits): Subfield => ({ field, ofs, nBits })),
      ),
  );
const flow = fc.uint32Array({ minLength: N_WORDS, maxLength: N_WORDS });

describe('one-word subfields without BigInt', () => {
  test.prop([subfield, flow])('read: the same value as readSubfield', (sf, f) => {
    expect(isWordSubfield(sf)).toBe(true);
    expect(BigInt(readWordSubfield(f, sf))).toBe(readSubfield(f, sf));
  });

  test.prop([subfield, flow, fc.nat({ max: 0xffffffff })])(
    'write: the same words as writeSubfield (other bits and words untouched)',
    (sf, f, value) => {
      const a = f.slice();
      const b = f.slice();
      writeWordSubfield(a, sf, value);
      writeSubfield(b, sf, BigInt(value) & ((1n << BigInt(sf.nBits)) - 1n));
      expect(Array.from(a)).toEqual(Array.from(b));
    },
  );

  test('wider fields take the BigInt path', () => {
    expect(
      FIELDS.filter((f) => f.bits > 32).every((field) => !isWordSubfield({ field, ofs: 0, nBits: 1 })),
    ).toBe(true);
    expect(oneWord.length).toBeGreaterThan(20);
  });
});
