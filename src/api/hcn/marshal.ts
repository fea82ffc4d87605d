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

/**
 * A spec prepared for `marshal` and `unmarshal`, made once per spec (specs are constants: a spec
 * changed after its first use would keep its old decoder): its keys and kinds as parallel arrays,
 * and which field each JSON key fills.
 */
interface Decoder {
  readonly keys: readonly string[];
  readonly kinds: readonly FieldKind[];
  /** Lower-cased key → the first field (spec order) whose key folds to it. */
  readonly firstFolded: ReadonlyMap<string, number>;
  /**
   * A JSON key → the field it fills, -1 for none: the spec's own keys, and the other spellings met
   * so far (at most ROUTES_MAX of them, so a stream of odd keys cannot grow it without bound).
   */
  readonly routes: Map<string, number>;
}

const ROUTES_MAX = 256;

const decoders = new WeakMap<Spec, Decoder>();

function decoderOf(spec: Spec): Decoder {
  let d = decoders.get(spec);
  if (d === undefined) {
    const keys = spec.map(([k]) => k);
    const firstFolded = new Map<string, number>();
    const routes = new Map<string, number>();
    keys.forEach((k, i) => {
      const lower = k.toLowerCase();
      if (!firstFolded.has(lower)) firstFolded.set(lower, i);
      if (!routes.has(k)) routes.set(k, i);
    });
    d = { keys, kinds: spec.map(([, kind]) => kind), firstFolded, routes };
    decoders.set(spec, d);
  }
  return d;
}

/** The field a JSON key fills (Go's rule: the field of exactly that name, else the first that folds to it), or -1. */
function fieldOf(d: Decoder, key: string): number {
  let i = d.routes.get(key);
  if (i === undefined) {
    i = d.firstFolded.get(key.toLowerCase()) ?? -1;
    if (d.routes.size < ROUTES_MAX + d.keys.length) d.routes.set(key, i);
  }
  return i;
}

/** Marshal `value` (a plain object or class instance holding the spec's keys) the way Go would. */
export function marshal(spec: Spec, value: object): JsonObject {
  const src = value as Record<string, unknown>;
  const out: JsonObject = {};
  const { keys, kinds } = decoderOf(spec);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const kind = kinds[i]!;
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
        if (typeof v === 'string' && v !== '') out[key] = v;
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

/** Marks a field `unmarshal` found no key for. */
const ABSENT = Symbol('absent');

/**
 * Unmarshal `json` into a fresh object with only the spec's keys that are present (nested structs
 * included), like decoding into a zero Go struct and keeping what was set. As Go's `encoding/json`
 * (decode.go `object`): the keys of `json` are read in order, each fills the field of exactly its
 * name, else the first field (spec order) whose name equals it case-insensitively, and a later key
 * for the same field overwrites an earlier one. A key without a value (`undefined`) is no key.
 */
export function unmarshal(spec: Spec, json: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isJsonObject(json)) return out;
  const d = decoderOf(spec);
  const { keys, kinds } = d;
  const n = keys.length;
  const values: (Json | typeof ABSENT)[] = new Array<Json | typeof ABSENT>(n).fill(ABSENT);
  for (const k of Object.keys(json)) {
    const v = json[k];
    if (v === undefined) continue;
    const i = fieldOf(d, k);
    if (i >= 0) values[i] = v;
  }
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === ABSENT) continue;
    const key = keys[i]!;
    const kind = kinds[i]!;
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
  if (v === undefined) return v;
  // plain objects, arrays and primitives are copied here; anything else (a Map, a Date, a class
  // instance, a cycle, a sparse array…) takes structuredClone, which this copy agrees with
  const c = copyPlain(v, 0);
  return c === NOT_PLAIN ? (structuredClone(v) as T) : (c as T);
}

/** Set while a resource is built from `unmarshal`'s output (see `fromUnmarshalled`). */
let adopting = false;

/**
 * Build a resource from a document `unmarshal` just made: its values are fresh (raw values are
 * cloned, nested structs and lists built anew) and nobody else holds them, so `copyOwned` in the
 * constructor takes them as they are instead of copying them a second time.
 */
export function fromUnmarshalled<T>(make: () => T): T {
  adopting = true;
  try {
    return make();
  } finally {
    adopting = false;
  }
}

/** `copyData` of a constructor argument, except inside `fromUnmarshalled` (already a private copy). */
export function copyOwned<T>(v: T): T {
  return adopting ? v : copyData(v);
}

const NOT_PLAIN = Symbol('not plain');

function copyPlain(v: unknown, depth: number): unknown {
  if (typeof v !== 'object') {
    // functions and symbols make structuredClone throw: let it
    return typeof v === 'function' || typeof v === 'symbol' ? NOT_PLAIN : v;
  }
  if (v === null) return null;
  if (depth > 64) return NOT_PLAIN;
  if (Array.isArray(v)) {
    if (Object.getPrototypeOf(v) !== Array.prototype) return NOT_PLAIN;
    const n = v.length;
    const out: unknown[] = new Array<unknown>(n);
    for (let i = 0; i < n; i++) {
      if (!(i in v)) return NOT_PLAIN;
      const c = copyPlain(v[i], depth + 1);
      if (c === NOT_PLAIN) return NOT_PLAIN;
      out[i] = c;
    }
    // extra own enumerable properties of an array (structuredClone keeps them)
    if (Object.keys(v).length !== n) return NOT_PLAIN;
    return out;
  }
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    if (k === '__proto__') return NOT_PLAIN; // an own "__proto__" must stay a data property
    const c = copyPlain((v as Record<string, unknown>)[k], depth + 1);
    if (c === NOT_PLAIN) return NOT_PLAIN;
    out[k] = c;
  }
  return out;
}

const GO_GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** go-winio `guid.FromString`: exactly 36 characters, hex groups 8-4-4-4-12, no braces. */
export function isGoGuid(s: string): boolean {
  return GO_GUID.test(s);
}

/** The all-zero GUID hcsshim passes as `id` on create, so that HNS chooses the ID. */
export const ZERO_GUID = '00000000-0000-0000-0000-000000000000';

/**
 * Where Go's `json.Marshal` and `JSON.stringify` write a string differently: `<`, `>`, `&`, U+2028
 * and U+2029 (Go escapes them: HTMLEscape), and a lone surrogate, which `JSON.stringify` writes as
 * a `\udXXX` escape (a pair it writes as it is) and Go holds as U+FFFD (the Go side decoded the
 * text or converted UTF-16 into a string: either replaces it) and writes as it is. An escaped
 * backslash is matched too, so that `\\ud800` (a backslash, then text) is left alone.
 */
const GO_ONLY_ESCAPES = /[<>&\u2028\u2029]|\\(?:\\|ud[89a-f][0-9a-f]{2})/g;

function goEscape(m: string): string {
  if (m.length === 1) return `\\u${m.charCodeAt(0).toString(16).padStart(4, '0')}`;
  return m === '\\\\' ? m : '\ufffd';
}

/**
 * JSON text as Go's `json.Marshal` writes this value (objects in their key order, as the struct
 * specs and `json.RawMessage` keep them): `JSON.stringify`, with `<`, `>`, `&`, U+2028 and U+2029
 * escaped as `\u003c`, `\u003e`, `\u0026`, `\u2028`, `\u2029` (Go's HTML-safe string encoding)
 * and a lone surrogate written as U+FFFD; those only occur inside strings, so the whole text can
 * be rewritten.
 */
export function goJson(value: unknown): string {
  const text = JSON.stringify(value);
  return text.search(GO_ONLY_ESCAPES) < 0 ? text : text.replace(GO_ONLY_ESCAPES, goEscape);
}

/** Go's `%q` for the strings in not-found messages (JSON quoting agrees on printable text). */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}
