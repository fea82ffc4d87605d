/**
 * HostComputeQuery handling (reference hns-hcs.md §0.2): `{"SchemaVersion":{…},"Flags":0|1,
 * "Filter":"<JSON string>"}`. Filters are equality matches on top-level properties of the object as
 * the chosen schema shows it; GUIDs compare case-insensitively; endpoints also answer to the v1 key
 * `VirtualNetwork`. ID, Name and network filters use the store's indexes.
 */
import { hnsError } from '../core/errors.js';
import { parseGuid } from '../core/guid.js';
import { isJsonObject, Reader, toJson, toJsonObject, type Json, type JsonObject } from '../core/json.js';
import type { SchemaVersion } from './model.js';
import { readSchemaVersion } from './schema/common.js';

export const QueryFlags = { None: 0, Detailed: 1 } as const;

export interface ParsedQuery {
  readonly schema: SchemaVersion;
  readonly detailed: boolean;
  readonly filter: JsonObject;
}

export function parseQuery(input: unknown): ParsedQuery {
  const doc = toJsonObject(input, true);
  const r = new Reader(doc, 'HCN_E_INVALID_JSON');
  const schema = readSchemaVersion(r);
  if (schema.Major !== 1 && schema.Major !== 2)
    throw r.err(`SchemaVersion ${schema.Major}.${schema.Minor} is not supported`);
  const flags = r.uint('Flags', 0xffffffff);
  if (flags & ~1) throw r.err(`query Flags ${flags} has unknown bits`);
  const f = r.raw('Filter');
  let filter: JsonObject = {};
  if (f !== undefined) {
    if (typeof f !== 'string') throw r.err('Filter must be a string holding a JSON object');
    if (f.trim() !== '') {
      const v = toJson(f);
      if (!isJsonObject(v)) throw hnsError('HCN_E_INVALID_JSON', 'Filter must hold a JSON object');
      filter = v;
    }
  }
  return { schema, detailed: (flags & 1) === 1, filter };
}

/**
 * One filter value against the object's: equal, two spellings of one GUID (strings), or the same
 * JSON text (objects and arrays). `matchesFilter` compares each key with it.
 */
export function jsonEqual(a: Json | undefined, b: Json): boolean {
  if (typeof a === 'string' && typeof b === 'string') {
    if (a === b) return true;
    const ga = parseGuid(a);
    return ga !== undefined && ga === parseGuid(b);
  }
  if (a === undefined || a === null || b === null || typeof a !== 'object' || typeof b !== 'object')
    return a === b;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Whether the serialised object matches every key of the filter. */
export function matchesFilter(
  obj: JsonObject,
  filter: JsonObject,
  aliases: Readonly<Record<string, string>> = {},
  omittedType?: string,
): boolean {
  for (const [k, want] of Object.entries(filter)) {
    const key = aliases[k] ?? k;
    let have = obj[key];
    // zero values are omitted from output; a filter on a zero value matches the omission (a
    // network's Type is omitted when NAT, enum 0: `omittedType`; other kinds have no such default)
    if (have === undefined && (want === 0 || want === '' || (key === 'Type' && want === omittedType)))
      have = want;
    if (!jsonEqual(have, want)) return false;
  }
  return true;
}

/** The GUID a filter names for `key`, if it names a valid one. */
export function filterGuid(filter: JsonObject, ...keys: string[]): string | undefined | null {
  for (const k of keys) {
    const v = filter[k];
    if (v === undefined) continue;
    if (typeof v !== 'string') return null;
    return parseGuid(v) ?? null;
  }
  return undefined;
}
