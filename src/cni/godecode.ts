/**
 * Go's `encoding/json` decoding into typed values (`json.Unmarshal(data, &v)`), once for every CNI
 * reader: a Go type described as data (GoType), Go's field matching (the exact name, then
 * `foldName`'s case folding), `UnmarshalTypeError` texts with Go 1.24+'s embedded-struct names,
 * decoding that goes on past a type mismatch and reports the first, `UnmarshalJSON` /
 * `UnmarshalText` errors that stop at once, and what JSON `null` does to each kind.
 *
 * One core reads values through a GoValueReader, so it decodes either a parsed document (`Json`,
 * here: what libcni, skel and most plugins hand on) or a source tree that keeps every value's bytes
 * and every duplicate key (src/cni/gotree.ts: what `json.RawMessage` fields need). A decoded struct
 * is either sparse (only the fields the input set, Go's zero values left to the caller) or, with
 * `zero`, Go's whole struct (every field, zero values included, under the caller's property names).
 */
import type { Json, JsonObject } from '../core/json.js';
import { bytesMemo, GoError, goParse } from './goscan.js';

// ───────────────────────────── Go types ─────────────────────────────

/**
 * A Go type, as far as decoding into it matters. `name` is what `reflect.Type.String()` prints
 * (`types.IPAM`, `[]string`); a struct's `short` is its `Name()` (`PluginConf`) used in field
 * context. `raw` is `json.RawMessage` (the value's JSON text, `null` included); `custom` is a type
 * with `UnmarshalJSON` (its error aborts decoding); `text` one with `UnmarshalText` (only JSON
 * strings reach it).
 */
export type GoType =
  | { readonly k: 'string' | 'bool' | 'int' | 'uint' | 'float64' | 'any' | 'raw' }
  | { readonly k: 'slice'; readonly elem: GoType }
  | { readonly k: 'map'; readonly elem: GoType }
  | { readonly k: 'ptr'; readonly elem: GoType }
  | {
      readonly k: 'struct';
      readonly name: string;
      readonly short: string;
      readonly fields: readonly GoField[];
    }
  | { readonly k: 'custom'; readonly name: string; readonly decode: (raw: Json) => unknown }
  | { readonly k: 'text'; readonly name: string; readonly decode: (s: string) => unknown };

/** A struct type. */
export type GoStruct = Extract<GoType, { readonly k: 'struct' }>;

export interface GoField {
  /** The JSON name from the tag (or the Go field name). */
  readonly json: string;
  readonly type: GoType;
  /** The decoded object's property for the field (default: the JSON name). */
  readonly prop?: string;
  /**
   * Go field names of the embedded structs this promoted field lives in, outermost first: Go 1.24+
   * puts them in `UnmarshalTypeError.Field` (`NetConf.NetConf.apiVersion`).
   */
  readonly embeddedIn?: readonly string[];
}

export const goString: GoType = { k: 'string' };
export const goBool: GoType = { k: 'bool' };
export const goInt: GoType = { k: 'int' };
export const goUint: GoType = { k: 'uint' };
export const goAny: GoType = { k: 'any' };
/** `json.RawMessage`. */
export const goRaw: GoType = { k: 'raw' };
export const goSlice = (elem: GoType): GoType => ({ k: 'slice', elem });
export const goMap = (elem: GoType): GoType => ({ k: 'map', elem });
export const goPtr = (elem: GoType): GoType => ({ k: 'ptr', elem });
/** A struct type: `name` as `Type.String()` prints it, `short` its `Name()` ('' when anonymous). */
export const goStruct = (name: string, fields: readonly GoField[], short?: string): GoStruct => ({
  k: 'struct',
  name,
  short: short ?? (name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : name),
  fields,
});
/** A field: its JSON name, its type, and the decoded object's property when that is not the JSON name. */
export const field = (json: string, type: GoType, prop?: string): GoField =>
  prop === undefined || prop === json ? { json, type } : { json, type, prop };
/**
 * The fields of an embedded struct as the outer struct promotes them: each remembers the Go field
 * name(s) it is embedded under (`embedded(['NetConf'], TYPES_NET_CONF_FIELDS)`).
 */
export const embedded = (outer: readonly string[], fields: readonly GoField[]): GoField[] =>
  fields.map((f) => ({ ...f, embeddedIn: [...outer, ...(f.embeddedIn ?? [])] }));

/** `reflect.Type.String()` of a GoType. */
export function goTypeName(t: GoType): string {
  switch (t.k) {
    case 'any':
      return 'interface {}';
    case 'raw':
      return 'json.RawMessage';
    case 'slice':
      return `[]${goTypeName(t.elem)}`;
    case 'map':
      return `map[string]${goTypeName(t.elem)}`;
    case 'ptr':
      return `*${goTypeName(t.elem)}`;
    case 'struct':
    case 'custom':
    case 'text':
      return t.name;
    default:
      return t.k;
  }
}

/** The zero value of a Go type in the `zero` form (nil slices, maps, pointers and RawMessages are `undefined`). */
export function goZero(t: GoType): unknown {
  switch (t.k) {
    case 'string':
      return '';
    case 'int':
    case 'uint':
    case 'float64':
      return 0;
    case 'bool':
      return false;
    case 'struct': {
      const o: Record<string, unknown> = {};
      for (const f of t.fields) o[f.prop ?? f.json] = goZero(f.type);
      return o;
    }
    default:
      return undefined;
  }
}

/**
 * Go's `foldName`: ASCII upper-cased, any other rune through `unicode.ToUpper(unicode.ToLower(r))`.
 * Go's unicode package maps one rune to one rune (Unicode's simple case mappings), where
 * toLowerCase/toUpperCase apply the full ones that map a few runes to several: U+0130 İ lower-cases
 * to i (its first rune), and a rune whose upper case is several (ß → SS) has no simple mapping and
 * stays as it is.
 */
export function goFoldName(s: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(s)) return s.toUpperCase();
  let out = '';
  for (const ch of s) {
    if (ch.codePointAt(0)! < 0x80) {
      out += ch.toUpperCase();
      continue;
    }
    const lower = String.fromCodePoint(ch.toLowerCase().codePointAt(0)!);
    const upper = lower.toUpperCase();
    out += [...upper].length === 1 ? upper : lower;
  }
  return out;
}

/** A struct's fields by exact JSON name and by folded name (the first of each wins, as Go's field cache does). */
interface FieldIndex {
  readonly exact: Map<string, GoField>;
  readonly folded: Map<string, GoField>;
}
const fieldIndexes = new WeakMap<GoStruct, FieldIndex>();

/** A struct's field index (built once per struct). */
function fieldIndex(t: GoStruct): FieldIndex {
  let ix = fieldIndexes.get(t);
  if (ix === undefined) {
    ix = { exact: new Map(), folded: new Map() };
    for (const f of t.fields) {
      if (!ix.exact.has(f.json)) ix.exact.set(f.json, f);
      const k = goFoldName(f.json);
      if (!ix.folded.has(k)) ix.folded.set(k, f);
    }
    fieldIndexes.set(t, ix);
  }
  return ix;
}

// ───────────────────────────── readers ─────────────────────────────

/** The kind of a JSON value, as Go names it in `UnmarshalTypeError.Value`. */
export type GoJsonKind = 'object' | 'array' | 'string' | 'number' | 'bool' | 'null';

/** How the decoder reads the values of one representation of a JSON document. */
export interface GoValueReader<V> {
  kind(v: V): GoJsonKind;
  string(v: V): string;
  bool(v: V): boolean;
  /** A number as float64; undefined when Go's `ParseFloat` fails on it (out of range). */
  float(v: V): number | undefined;
  /** A number as int64 (`unsigned`: uint64); undefined when Go's `ParseInt` / `ParseUint` fails on it. */
  int(v: V, unsigned: boolean): number | undefined;
  /** `UnmarshalTypeError.Value` of a number that is no integer of the field's type (`number 1.5`). */
  numberText(v: V): string;
  /** An object's members in the order Go reads them. */
  members(v: V, each: (key: string, value: V) => void): void;
  items(v: V): readonly V[];
  /** The value as JSON (`interface{}` and `UnmarshalJSON` see this). */
  json(v: V): Json;
  /** The value's JSON text (`json.RawMessage`). */
  raw(v: V): string;
}

/** Go's name for the kind of a JSON value in `UnmarshalTypeError.Value`. */
export function goJsonKind(v: Json): GoJsonKind {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'bool';
    default:
      return 'object';
  }
}

/**
 * A parsed document (JSON.parse's values): numbers are doubles already, so an integer field takes
 * one only while the double is exact (up to 2^53), and its error text is the double's shortest form.
 */
const DOCUMENT: GoValueReader<Json> = {
  kind: goJsonKind,
  string: (v) => v as string,
  bool: (v) => v as boolean,
  float: (v) => v as number,
  int: (v, unsigned) => {
    const n = v as number;
    return Number.isInteger(n) && (!unsigned || n >= 0) && Math.abs(n) <= Number.MAX_SAFE_INTEGER
      ? n
      : undefined;
  },
  numberText: (v) => `number ${JSON.stringify(v)}`,
  members: (v, each) => {
    const o = v as JsonObject;
    for (const key of Object.keys(o)) each(key, o[key]!);
  },
  items: (v) => v as Json[],
  json: (v) => v,
  raw: (v) => JSON.stringify(v),
};

// ───────────────────────────── the decoder ─────────────────────────────

interface Ctx {
  /** The first type mismatch's text. */
  first: string | undefined;
  /** The innermost struct whose field is being decoded (`UnmarshalTypeError.Struct`). */
  struct: string | undefined;
  /** The field path (`UnmarshalTypeError.Field`). */
  fields: string[];
  /** Decode into Go's zero values (every field, under its property) rather than sparsely. */
  readonly zero: boolean;
}

/** An `UnmarshalJSON` / `UnmarshalText` error: it ends decoding at once. */
class Abort {
  constructor(readonly message: string) {}
}

/** Record a type mismatch (Go keeps the first and decodes on); the value stays as it was. */
function mismatch(ctx: Ctx, value: string, t: GoType, current: unknown): unknown {
  if (ctx.first === undefined) {
    const tn = goTypeName(t);
    ctx.first =
      ctx.struct !== undefined
        ? `json: cannot unmarshal ${value} into Go struct field ${ctx.struct}.${ctx.fields.join('.')} of type ${tn}`
        : `json: cannot unmarshal ${value} into Go value of type ${tn}`;
  }
  return current;
}

function abortOf(e: unknown): Abort {
  return new Abort(e instanceof Error ? e.message : String(e));
}

/**
 * Decode `v` into a value of type `t`, starting from `current` (Go decodes into the existing value:
 * JSON `null` leaves it as it was, but clears a slice, a map or a pointer).
 */
function decodeValue<V>(r: GoValueReader<V>, v: V, t: GoType, current: unknown, ctx: Ctx): unknown {
  switch (t.k) {
    case 'ptr':
      return r.kind(v) === 'null' ? undefined : decodeValue(r, v, t.elem, current, ctx);
    case 'any':
      return r.json(v);
    case 'raw':
      return r.raw(v); // RawMessage keeps even `null`
    case 'custom':
      try {
        return t.decode(r.json(v));
      } catch (e) {
        throw abortOf(e);
      }
  }
  const kind = r.kind(v);
  if (kind === 'null') return t.k === 'slice' || t.k === 'map' ? undefined : current;
  switch (t.k) {
    case 'text':
      if (kind !== 'string') return mismatch(ctx, kind, t, current);
      try {
        return t.decode(r.string(v));
      } catch (e) {
        throw abortOf(e);
      }
    case 'string':
      return kind === 'string' ? r.string(v) : mismatch(ctx, kind, t, current);
    case 'bool':
      return kind === 'bool' ? r.bool(v) : mismatch(ctx, kind, t, current);
    case 'float64': {
      if (kind !== 'number') return mismatch(ctx, kind, t, current);
      const n = r.float(v);
      return n !== undefined ? n : mismatch(ctx, r.numberText(v), t, current);
    }
    case 'int':
    case 'uint': {
      if (kind !== 'number') return mismatch(ctx, kind, t, current);
      const n = r.int(v, t.k === 'uint');
      return n !== undefined ? n : mismatch(ctx, r.numberText(v), t, current);
    }
    case 'slice': {
      if (kind !== 'array') return mismatch(ctx, kind, t, current);
      const elem = t.elem;
      return r.items(v).map((item) => decodeValue(r, item, elem, ctx.zero ? goZero(elem) : undefined, ctx));
    }
    case 'map': {
      if (kind !== 'object') return mismatch(ctx, kind, t, current);
      const elem = t.elem;
      const out: Record<string, unknown> = ctx.zero ? { ...((current as object | undefined) ?? {}) } : {};
      r.members(v, (key, item) => {
        out[key] = decodeValue(r, item, elem, ctx.zero ? goZero(elem) : undefined, ctx);
      });
      return out;
    }
    case 'struct': {
      if (kind !== 'object') return mismatch(ctx, kind, t, current);
      const out: Record<string, unknown> = ctx.zero
        ? { ...((current as object | undefined) ?? (goZero(t) as object)) }
        : {};
      // Go's field lookup: the exact name first, then foldName equality
      const ix = fieldIndex(t);
      r.members(v, (key, item) => {
        const f = ix.exact.get(key) ?? ix.folded.get(goFoldName(key));
        if (!f) return; // unknown keys are ignored
        const prop = f.prop ?? f.json;
        const savedStruct = ctx.struct;
        const savedDepth = ctx.fields.length;
        ctx.struct = t.short;
        if (f.embeddedIn) for (const name of f.embeddedIn) ctx.fields.push(name);
        ctx.fields.push(f.json);
        const d = decodeValue(r, item, f.type, out[prop], ctx);
        ctx.fields.length = savedDepth;
        ctx.struct = savedStruct;
        // sparse: a field is set when the input gave it a value (a JSON null makes a pointer nil)
        if (ctx.zero || d !== undefined || (f.type.k === 'ptr' && r.kind(item) === 'null')) out[prop] = d;
      });
      return out;
    }
  }
}

/**
 * Decode `v` (read through `r`) into `t`, Go's way: the first type mismatch, or an
 * `UnmarshalJSON`/`UnmarshalText` error, is thrown as a GoError. `zero`: into Go's zero value of
 * `t` (a struct gets every field, under its property), else sparsely (a struct holds only the
 * fields the input set, under their JSON names unless a property is given; the caller supplies
 * Go's zero values).
 */
export function goDecodeWith<V>(r: GoValueReader<V>, v: V, t: GoType, zero = false): unknown {
  const ctx: Ctx = { first: undefined, struct: undefined, fields: [], zero };
  let out: unknown;
  try {
    out = decodeValue(r, v, t, zero ? goZero(t) : undefined, ctx);
  } catch (e) {
    if (e instanceof Abort) throw new GoError(e.message);
    throw e;
  }
  if (ctx.first !== undefined) throw new GoError(ctx.first);
  return out;
}

// ───────────────────────────── parsed documents ─────────────────────────────

/** The decoding half of `goUnmarshal`: `v` is a parsed document (a string in it is a JSON string). */
export function goDecode(v: Json, t: GoType): unknown {
  return goDecodeWith(DOCUMENT, v, t);
}

/**
 * `json.Unmarshal(data, &v)` with `v` of type `t`: Go's syntax check first, then decoding that keeps
 * going past type mismatches and reports the first one; an `UnmarshalJSON`/`UnmarshalText` error
 * stops at once. A struct decodes to an object holding only the fields the input set (the caller
 * supplies Go's zero values).
 */
export function goUnmarshal(input: string | Uint8Array | Json, t: GoType): unknown {
  return goDecode(typeof input === 'string' || input instanceof Uint8Array ? goParse(input) : input, t);
}

/**
 * The decoding half of `json.Unmarshal(data, &m)` with `m` a `map[string]interface{}`: the parsed
 * document's object as it is, null for JSON null, else Go's error (`json: cannot unmarshal array
 * into Go value of type map[string]interface {}`).
 */
export function goDecodeMap(v: Json): JsonObject | null {
  if (v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v)) {
    throw new GoError(
      `json: cannot unmarshal ${goJsonKind(v)} into Go value of type map[string]interface {}`,
    );
  }
  return v;
}

/**
 * `goParse` of config bytes, for readers that only look at the document and keep nothing of it
 * (they decode it into strings and numbers): the same bytes come back invocation after invocation
 * (the runner's config is the same object for every pod, and a plugin hands its stdin on to its
 * IPAM plugin), so their document is kept, keyed by the array and checked against its bytes.
 * The document is shared: a caller must not change it or hand it on.
 */
export const goParseShared: (input: Uint8Array) => Json = bytesMemo((input) => {
  const doc = goParse(input);
  if (typeof doc === 'object' && doc !== null) decodedShared.set(doc, new Map());
  return doc;
});

/** What each shared document decoded to, by Go type: the value, or Go's error text. */
const decodedShared = new WeakMap<
  object,
  Map<GoType, { readonly value: unknown } | { readonly error: string }>
>();

/**
 * `goDecode`, remembered for a document `goParseShared` returned (no one changes those): skel, the
 * version check and host-local decode the same stdin invocation after invocation. The value is
 * shared too: a caller only reads it.
 */
export function goDecodeShared(doc: Json, t: GoType): unknown {
  const memo = typeof doc === 'object' && doc !== null ? decodedShared.get(doc) : undefined;
  if (memo === undefined) return goDecode(doc, t);
  let hit = memo.get(t);
  if (hit === undefined) {
    try {
      hit = { value: goDecode(doc, t) };
    } catch (e) {
      if (!(e instanceof GoError)) throw e;
      hit = { error: e.message };
    }
    memo.set(t, hit);
  }
  if ('error' in hit) throw new GoError(hit.error);
  return hit.value;
}
