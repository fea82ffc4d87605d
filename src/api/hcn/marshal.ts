/**
 * Go `encoding/json` semantics for the typed client (reference hns-hcs.md §1): each hcsshim struct
 * is a field spec, so requests carry exactly what hcsshim sends (`omitempty` scalars and slices
 * dropped, struct-typed fields always present: `"Dns":{}`, `"Health":{"Extra":{}}`) and responses
 * are read as Go reads them (keys matched case-insensitively, unknown keys ignored).
 */
import { cloneJson, isJsonObject, type Json, type JsonObject } from '../../core/json.js';

/**
 * How one struct field marshals. `str`/`num`/`bool`/`strs`/`raws`/`raw`/`objs` carry `omitempty`;
 * `strReq`/`numReq`/`rawReq`/`obj` are always written (a `json:""` tag, or a struct-typed field,
 * which Go's omitempty never drops).
 */
export type FieldKind =
  | 'str'
  | 'strReq'
  | 'num'
  | 'numReq'
  | 'bool'
  | 'strs'
  | 'raw'
  | 'rawReq'
  | 'raws'
  | { readonly obj: Spec }
  | { readonly objs: Spec };

export type Spec = readonly (readonly [key: string, kind: FieldKind])[];

/** The value under `key`, matched exactly first and then case-insensitively (Go's rule). */
export function pick(o: JsonObject, key: string): Json | undefined {
  if (Object.prototype.hasOwnProperty.call(o, key)) return o[key];
  const lower = key.toLowerCase();
  for (const k of Object.keys(o)) if (k.toLowerCase() === lower) return o[k];
  return undefined;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}
function strs(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
}
function raw(v: unknown): Json | undefined {
  if (v === undefined || v === null) return undefined;
  return cloneJson(v);
}

/** Marshal `value` (a plain object or class instance holding the spec's keys) the way Go would. */
export function marshal(spec: Spec, value: object): JsonObject {
  const src = value as Record<string, unknown>;
  const out: JsonObject = {};
  for (const [key, kind] of spec) {
    const v = src[key];
    if (typeof kind === 'object') {
      if ('obj' in kind) {
        out[key] = marshal(kind.obj, isPlainObject(v) ? v : {});
      } else if (Array.isArray(v) && v.length) {
        out[key] = v.map((item) => marshal(kind.objs, isPlainObject(item) ? item : {}));
      }
      continue;
    }
    switch (kind) {
      case 'str':
        if (str(v) !== '') out[key] = str(v);
        break;
      case 'strReq':
        out[key] = str(v);
        break;
      case 'num':
        if (num(v) !== 0) out[key] = num(v);
        break;
      case 'numReq':
        out[key] = num(v);
        break;
      case 'bool':
        if (v === true) out[key] = true;
        break;
      case 'strs':
        if (Array.isArray(v) && v.length) out[key] = v.map(str);
        break;
      case 'raw': {
        const r = raw(v);
        if (r !== undefined) out[key] = r;
        break;
      }
      case 'rawReq':
        out[key] = raw(v) ?? null;
        break;
      case 'raws':
        if (Array.isArray(v) && v.length) out[key] = v.map((item) => raw(item) ?? null);
        break;
    }
  }
  return out;
}

/**
 * Unmarshal `json` into a fresh object with only the spec's keys that are present (nested structs
 * included), like decoding into a zero Go struct and keeping what was set.
 */
export function unmarshal(spec: Spec, json: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isJsonObject(json)) return out;
  for (const [key, kind] of spec) {
    const v = pick(json, key);
    if (v === undefined) continue;
    if (typeof kind === 'object') {
      if ('obj' in kind) out[key] = unmarshal(kind.obj, v);
      else out[key] = Array.isArray(v) ? v.map((item) => unmarshal(kind.objs, item)) : [];
      continue;
    }
    switch (kind) {
      case 'str':
      case 'strReq':
        out[key] = str(v);
        break;
      case 'num':
      case 'numReq':
        out[key] = num(v);
        break;
      case 'bool':
        out[key] = v === true;
        break;
      case 'strs':
        out[key] = strs(v);
        break;
      case 'raw':
      case 'rawReq':
        out[key] = raw(v) ?? null;
        break;
      case 'raws':
        out[key] = Array.isArray(v) ? v.map((item) => raw(item) ?? null) : [];
        break;
    }
  }
  return out;
}

function isPlainObject(v: unknown): v is object {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A deep copy of plain data (requests the caller keeps mutating must not alias our objects). */
export function copyData<T>(v: T): T {
  return v === undefined ? v : (structuredClone(v) as T);
}

const GO_GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** go-winio `guid.FromString`: exactly 36 characters, hex groups 8-4-4-4-12, no braces. */
export function isGoGuid(s: string): boolean {
  return GO_GUID.test(s);
}

/** The all-zero GUID hcsshim passes as `id` on create, so that HNS chooses the ID. */
export const ZERO_GUID = '00000000-0000-0000-0000-000000000000';

/** Go's `%q` for the strings in not-found messages (JSON quoting agrees on printable text). */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}
