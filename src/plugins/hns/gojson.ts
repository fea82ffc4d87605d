/**
 * The two JSON readers the Windows plugins rely on (reference cni-windows.md §2.2): Go's
 * `encoding/json` decoding a config into a struct (field names matched exactly, then
 * case-insensitively; `json.RawMessage` keeping a value's bytes; Go's syntax and type error texts),
 * and `buger/jsonparser`'s case-sensitive lookups on raw bytes that the policy helpers use.
 *
 * A document is parsed once into nodes that remember their span in the source text, so a
 * RawMessage is the exact text of the value and jsonparser sees string contents undecoded.
 */
import type { Json, JsonObject } from '../../core/json.js';
import { goSyntaxError } from '../../cni/gojson.js';

// ───────────────────────────── nodes ─────────────────────────────

interface NodeBase {
  /** The whole source text (shared, not copied). */
  readonly src: string;
  readonly start: number;
  readonly end: number;
}
export interface GoJsonMember {
  /** The key, escapes decoded. */
  readonly key: string;
  readonly node: GoJsonNode;
}
export type GoJsonNode =
  | (NodeBase & { readonly kind: 'object'; readonly members: readonly GoJsonMember[] })
  | (NodeBase & { readonly kind: 'array'; readonly items: readonly GoJsonNode[] })
  | (NodeBase & { readonly kind: 'string'; readonly value: string })
  | (NodeBase & { readonly kind: 'number' })
  | (NodeBase & { readonly kind: 'true' | 'false' | 'null' });

/** The exact source text of a value (what a Go `json.RawMessage` holds). */
export function rawText(node: GoJsonNode): string {
  return node.src.slice(node.start, node.end);
}

/** A syntax error with Go's `encoding/json` scanner text (`invalid character 'x' after array element`). */
export class GoJsonSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GoJsonSyntaxError';
  }
}

const isWs = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** The reader's state over one source text already checked by `goSyntaxError` (module-level functions: no closures per parse). */
interface Scan {
  readonly src: string;
  i: number;
}

function skipWs(sc: Scan): void {
  const src = sc.src;
  let i = sc.i;
  while (isWs(src.charCodeAt(i))) i++;
  sc.i = i;
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/** A string at `sc.i` (the opening quote): its decoded value; `sc.i` ends past the closing quote. */
function readString(sc: Scan): string {
  const src = sc.src;
  sc.i++; // opening quote
  let value = '';
  let chunk = sc.i;
  for (;;) {
    const c = src.charCodeAt(sc.i);
    if (c === 0x22) {
      value += src.slice(chunk, sc.i);
      sc.i++;
      return value;
    }
    if (c !== 0x5c) {
      sc.i++;
      continue;
    }
    value += src.slice(chunk, sc.i);
    const e = src[sc.i + 1]!;
    if (e === 'u') {
      value += String.fromCharCode(parseInt(src.slice(sc.i + 2, sc.i + 6), 16));
      sc.i += 6;
    } else {
      value += SIMPLE_ESCAPES[e]!;
      sc.i += 2;
    }
    chunk = sc.i;
  }
}

/** The end of the number or literal starting at `i` (the text is valid JSON). */
function scalarEnd(src: string, i: number): number {
  while (i < src.length && /[0-9a-zA-Z+.-]/.test(src[i]!)) i++;
  return i;
}

function readValue(sc: Scan): GoJsonNode {
  const src = sc.src;
  skipWs(sc);
  const start = sc.i;
  const c = src[sc.i]!;
  if (c === '{') {
    sc.i++;
    const members: GoJsonMember[] = [];
    skipWs(sc);
    if (src[sc.i] === '}') {
      sc.i++;
      return { kind: 'object', src, start, end: sc.i, members };
    }
    for (;;) {
      skipWs(sc);
      const key = readString(sc);
      skipWs(sc);
      sc.i++; // ':'
      const node = readValue(sc);
      members.push({ key, node });
      skipWs(sc);
      if (src[sc.i++] === '}') return { kind: 'object', src, start, end: sc.i, members };
    }
  }
  if (c === '[') {
    sc.i++;
    const items: GoJsonNode[] = [];
    skipWs(sc);
    if (src[sc.i] === ']') {
      sc.i++;
      return { kind: 'array', src, start, end: sc.i, items };
    }
    for (;;) {
      items.push(readValue(sc));
      skipWs(sc);
      if (src[sc.i++] === ']') return { kind: 'array', src, start, end: sc.i, items };
    }
  }
  if (c === '"') {
    const value = readString(sc);
    return { kind: 'string', src, start, end: sc.i, value };
  }
  sc.i = scalarEnd(src, sc.i);
  if (c === 't' || c === 'f' || c === 'n') {
    return { kind: c === 't' ? 'true' : c === 'f' ? 'false' : 'null', src, start, end: sc.i };
  }
  return { kind: 'number', src, start, end: sc.i };
}

/**
 * Parse `src` as one JSON value with Go's scanner rules and error texts (`goSyntaxError`). Every
 * node keeps its span; object members keep every key in order, duplicates included (Go decodes
 * each in turn).
 */
export function parseGoJson(src: string): GoJsonNode {
  // nodes are never written to, so a text parsed before gives its tree again (a plugin's config
  // and its policies come back unchanged invocation after invocation)
  const hit = parsedTexts.get(src);
  if (hit !== undefined) return hit;
  const err = goSyntaxError(src);
  if (err !== undefined) throw new GoJsonSyntaxError(err);
  const root = readValue({ src, i: 0 });
  if (parsedTexts.size >= 256) parsedTexts.clear();
  parsedTexts.set(src, root);
  return root;
}

/** Texts parsed before (valid ones only: a syntax error is thrown again each time). */
const parsedTexts = new Map<string, GoJsonNode>();

/** The node as plain JSON (numbers as JS numbers; the last of duplicate keys wins, as JSON.parse). */
export function nodeToJson(node: GoJsonNode): Json {
  switch (node.kind) {
    case 'object': {
      const out: JsonObject = {};
      for (const m of node.members) out[m.key] = nodeToJson(m.node);
      return out;
    }
    case 'array':
      return node.items.map(nodeToJson);
    case 'string':
      return node.value;
    case 'number':
      return Number(rawText(node));
    case 'true':
      return true;
    case 'false':
      return false;
    case 'null':
      return null;
  }
}

// ───────────────────────────── buger/jsonparser ─────────────────────────────

/**
 * `jsonparser.Get(data, keys...)`: walk object keys exactly (case-sensitive, first match at each
 * level). Undefined is jsonparser's `NotExist`.
 */
export function jpGet(node: GoJsonNode | undefined, ...keys: string[]): GoJsonNode | undefined {
  let cur = node;
  for (const key of keys) {
    if (cur?.kind !== 'object') return undefined;
    cur = cur.members.find((m) => m.key === key)?.node;
  }
  return cur;
}

/**
 * The bytes jsonparser hands back for a value: a string's contents between the quotes, escapes
 * NOT decoded; any other value's raw text.
 */
export function jpBytes(node: GoJsonNode): string {
  return node.kind === 'string' ? node.src.slice(node.start + 1, node.end - 1) : rawText(node);
}

/** `jsonparser.GetUnsafeString(data, keys...)`, `""` when the path does not exist. */
export function jpGetString(node: GoJsonNode | undefined, ...keys: string[]): string {
  const v = jpGet(node, ...keys);
  return v ? jpBytes(v) : '';
}

/** Parse a RawMessage for jsonparser; jsonparser finds nothing in text that is not JSON. */
export function jpParse(raw: string | undefined): GoJsonNode | undefined {
  if (raw === undefined) return undefined;
  try {
    return parseGoJson(raw);
  } catch {
    return undefined;
  }
}

// ───────────────────────────── encoding/json Unmarshal into a struct ─────────────────────────────

/** A Go type as `encoding/json` decodes into it; `name` is what `reflect.Type.String()` prints. */
export type GoType =
  | { readonly t: 'string' | 'int' | 'bool' | 'raw' | 'any' }
  | { readonly t: 'slice'; readonly name: string; readonly elem: GoType }
  | { readonly t: 'map'; readonly name: string; readonly elem: GoType }
  | GoStruct;

export interface GoStruct {
  readonly t: 'struct';
  /** `pkg.Name`, as `reflect.Type.String()` prints it. */
  readonly name: string;
  readonly fields: readonly GoField[];
}

export interface GoField {
  /** The JSON name from the tag (or the Go field name). */
  readonly json: string;
  /** The property of the decoded TS object. */
  readonly prop: string;
  readonly type: GoType;
  /**
   * Go field names of the embedded structs this promoted field lives in, outermost first: Go 1.24+
   * puts them in `UnmarshalTypeError.Field` (`NetConf.NetConf.apiVersion`).
   */
  readonly embeddedIn?: readonly string[];
}

export const GO_STRING: GoType = { t: 'string' };
export const GO_INT: GoType = { t: 'int' };
export const GO_BOOL: GoType = { t: 'bool' };
export const GO_RAW: GoType = { t: 'raw' };
export const GO_ANY: GoType = { t: 'any' };
export const GO_STRINGS: GoType = { t: 'slice', name: '[]string', elem: GO_STRING };

/** `json.Unmarshal` type mismatch: Go's `UnmarshalTypeError` text. */
export class GoJsonTypeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GoJsonTypeError';
  }
}

function typeName(t: GoType): string {
  switch (t.t) {
    case 'string':
    case 'int':
    case 'bool':
      return t.t;
    case 'raw':
      return 'json.RawMessage';
    case 'any':
      return 'interface {}';
    default:
      return t.name;
  }
}

/** Go's `foldName`: ASCII upper-cased, other runes through ToUpper(ToLower(r)). */
export function goFoldName(s: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(s)) return s.toUpperCase();
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    out += c < 0x80 ? ch.toUpperCase() : ch.toLowerCase().toUpperCase();
  }
  return out;
}

/** A struct's fields by exact JSON name and by folded name (the first of each wins, as `find` would). */
interface FieldIndex {
  readonly exact: Map<string, GoField>;
  readonly folded: Map<string, GoField>;
  /** The struct's short name (`UnmarshalTypeError.Struct`). */
  readonly short: string;
}
const fieldIndexes = new WeakMap<GoStruct, FieldIndex>();

function fieldIndex(st: GoStruct): FieldIndex {
  let ix = fieldIndexes.get(st);
  if (ix === undefined) {
    ix = { exact: new Map(), folded: new Map(), short: st.name.slice(st.name.lastIndexOf('.') + 1) };
    for (const f of st.fields) {
      if (!ix.exact.has(f.json)) ix.exact.set(f.json, f);
      const k = goFoldName(f.json);
      if (!ix.folded.has(k)) ix.folded.set(k, f);
    }
    fieldIndexes.set(st, ix);
  }
  return ix;
}

function lookupField(st: GoStruct, key: string): GoField | undefined {
  const ix = fieldIndex(st);
  return ix.exact.get(key) ?? ix.folded.get(goFoldName(key));
}

interface DecodeContext {
  /** The innermost struct whose field is being decoded (`UnmarshalTypeError.Struct`). */
  struct: string;
  stack: string[];
  first: GoJsonTypeError | undefined;
}

/** The zero value of a Go type as our decoded form (nil slices/maps/raw are `undefined`). */
export function goZero(t: GoType): unknown {
  switch (t.t) {
    case 'string':
      return '';
    case 'int':
      return 0;
    case 'bool':
      return false;
    case 'struct': {
      const o: Record<string, unknown> = {};
      for (const f of t.fields) o[f.prop] = goZero(f.type);
      return o;
    }
    default:
      return undefined;
  }
}

function describe(node: GoJsonNode, t: GoType): string {
  switch (node.kind) {
    case 'object':
    case 'array':
    case 'string':
      return node.kind;
    case 'true':
    case 'false':
      return 'bool';
    case 'number':
      return t.t === 'int' ? `number ${rawText(node)}` : 'number';
    default:
      return node.kind;
  }
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * Decode `node` into a value of type `t`, starting from `current` (Go decodes into the existing
 * value: a struct keeps fields the object does not name, a map keeps its keys, a slice is reset).
 */
function mismatchOf(node: GoJsonNode, t: GoType, current: unknown, ctx: DecodeContext): unknown {
  const where = ctx.struct !== '' || ctx.stack.length > 0;
  const msg = where
    ? `json: cannot unmarshal ${describe(node, t)} into Go struct field ${ctx.struct}.${ctx.stack.join('.')} of type ${typeName(t)}`
    : `json: cannot unmarshal ${describe(node, t)} into Go value of type ${typeName(t)}`;
  ctx.first ??= new GoJsonTypeError(msg);
  return current;
}

function decodeInto(node: GoJsonNode, t: GoType, current: unknown, ctx: DecodeContext): unknown {
  if (t.t === 'raw') return rawText(node); // RawMessage keeps even `null`
  if (t.t === 'any') return nodeToJson(node);
  if (node.kind === 'null') {
    // null clears a slice or map and leaves anything else as it was
    return t.t === 'slice' || t.t === 'map' ? undefined : current;
  }
  switch (t.t) {
    case 'string':
      return node.kind === 'string' ? node.value : mismatchOf(node, t, current, ctx);
    case 'bool':
      return node.kind === 'true' ? true : node.kind === 'false' ? false : mismatchOf(node, t, current, ctx);
    case 'int': {
      if (node.kind !== 'number') return mismatchOf(node, t, current, ctx);
      const text = rawText(node);
      if (!/^-?\d+$/.test(text)) return mismatchOf(node, t, current, ctx);
      // up to 15 digits is exact as a double and within int64
      if (text.length <= 15) {
        const n = Number(text);
        return n === 0 ? 0 : n; // -0 decodes to 0
      }
      const v = BigInt(text);
      if (v < INT64_MIN || v > INT64_MAX) return mismatchOf(node, t, current, ctx);
      return Number(v);
    }
    case 'slice': {
      if (node.kind !== 'array') return mismatchOf(node, t, current, ctx);
      return node.items.map((item) => decodeInto(item, t.elem, goZero(t.elem), ctx));
    }
    case 'map': {
      if (node.kind !== 'object') return mismatchOf(node, t, current, ctx);
      const out: Record<string, unknown> = { ...((current as Record<string, unknown> | undefined) ?? {}) };
      for (const m of node.members) out[m.key] = decodeInto(m.node, t.elem, goZero(t.elem), ctx);
      return out;
    }
    case 'struct': {
      if (node.kind !== 'object') return mismatchOf(node, t, current, ctx);
      const out = {
        ...((current as Record<string, unknown> | undefined) ?? (goZero(t) as object)),
      } as Record<string, unknown>;
      for (const m of node.members) {
        const f = lookupField(t, m.key);
        if (!f) continue; // unknown keys are ignored
        const savedStruct = ctx.struct;
        const savedDepth = ctx.stack.length;
        if (f.embeddedIn) ctx.stack.push(...f.embeddedIn);
        ctx.stack.push(f.json);
        ctx.struct = fieldIndex(t).short;
        out[f.prop] = decodeInto(m.node, f.type, out[f.prop], ctx);
        ctx.stack.length = savedDepth;
        ctx.struct = savedStruct;
      }
      return out;
    }
  }
}

/**
 * `json.Unmarshal(text, &v)` with `v` a zero value of the struct `t`: the decoded object, or
 * Go's error (syntax first, then the first type mismatch; Go decodes on past a mismatch).
 */
export function goUnmarshal(text: string, t: GoStruct): Record<string, unknown> {
  const root = parseGoJson(text);
  // a text parsed before decodes as it did then (the same stdin invocation after invocation): a
  // copy of that decoding, which its caller may change as Go code changes its struct
  let byType = decodedTrees.get(root);
  const hit = byType?.get(t);
  if (hit !== undefined) return copyDecoded(hit) as Record<string, unknown>;
  const ctx: DecodeContext = { struct: '', stack: [], first: undefined };
  const out = decodeInto(root, t, goZero(t), ctx) as Record<string, unknown>;
  if (ctx.first) throw ctx.first;
  if (byType === undefined) decodedTrees.set(root, (byType = new Map()));
  byType.set(t, copyDecoded(out) as Record<string, unknown>);
  return out;
}

/** Successful decodings of a parsed tree (kept while `parseGoJson` keeps the tree), by type. */
const decodedTrees = new WeakMap<GoJsonNode, Map<GoStruct, Record<string, unknown>>>();

/**
 * A deep copy of a decoded value (objects, arrays and scalars only), each object with the prototype
 * it had (a map key `__proto__` set one, as an assignment does).
 */
function copyDecoded(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(copyDecoded);
  const out = Object.create(Object.getPrototypeOf(v) as object | null) as Record<string, unknown>;
  for (const k of Object.keys(v)) out[k] = copyDecoded((v as Record<string, unknown>)[k]);
  return out;
}

/** Decode an already parsed node (e.g. a RawMessage) into `t`; throws Go's error on a mismatch. */
export function goDecodeNode(node: GoJsonNode, t: GoStruct): Record<string, unknown> {
  const ctx: DecodeContext = { struct: '', stack: [], first: undefined };
  const out = decodeInto(node, t, goZero(t), ctx) as Record<string, unknown>;
  if (ctx.first) throw ctx.first;
  return out;
}
