/**
 * Go's `encoding/json` as the CNI libraries see it, so that parse errors, field matching and output
 * bytes match what Go plugins and libcni produce: the scanner's syntax errors (`invalid character
 * 'x' looking for beginning of value`, `unexpected end of JSON input`), `UnmarshalTypeError` texts
 * (`json: cannot unmarshal number into Go struct field PluginConf.type of type string`),
 * case-insensitive struct field matching, and `Marshal` output (maps with sorted keys, `<`, `>`, `&`,
 * U+2028/U+2029 escaped; `MarshalIndent` layout). Written from Go's encoding/json documentation and
 * behaviour (Go 1.21–1.23), not from its code.
 */
import type { Json, JsonObject } from '../core/json.js';

// ─────────────────────────────────────────── errors ──────────────────────────────────────────

/**
 * A plain Go `error` (not a `*types.Error`), carrying Go's text (`err.Error()`). skel turns one that
 * escapes a plugin into code 999; libcni returns them as they are.
 */
export class GoError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GoError';
  }
}

// ─────────────────────────────────────────── scanner ─────────────────────────────────────────

/** Go's `quoteChar`: how the scanner names a byte in its error text (`'x'`, `'\\x01'`, `'\\''`). */
export function goQuoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  return `'${goQuoteRune(c)}'`;
}

/** The inside of `strconv.Quote(string(rune(c)))` for one rune. */
function goQuoteRune(c: number): string {
  switch (c) {
    case 0x07:
      return '\\a';
    case 0x08:
      return '\\b';
    case 0x0c:
      return '\\f';
    case 0x0a:
      return '\\n';
    case 0x0d:
      return '\\r';
    case 0x09:
      return '\\t';
    case 0x0b:
      return '\\v';
    case 0x5c:
      return '\\\\';
    case 0x22:
      return '\\"';
  }
  if (c < 0x20 || c === 0x7f) return `\\x${c.toString(16).padStart(2, '0')}`;
  // Latin-1 supplement: C1 controls, NBSP and the soft hyphen are not printable (strconv.IsPrint)
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `\\u${c.toString(16).padStart(4, '0')}`;
  return String.fromCodePoint(c);
}

const enum S {
  BeginValue,
  BeginValueOrEmpty,
  BeginStringOrEmpty,
  BeginString,
  EndValue,
  EndTop,
  InString,
  InStringEsc,
  InStringEscU,
  Neg,
  Num1,
  Num0,
  Dot,
  Dot0,
  E,
  ESign,
  E0,
  Literal,
}

const enum P {
  ObjectKey,
  ObjectValue,
  ArrayValue,
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/**
 * Go's `checkValid`: scan the whole input and return the scanner's error text, or undefined if it is
 * one valid JSON value (surrounding white space allowed). Works on the UTF-8 bytes, as Go does.
 */
export function goSyntaxError(input: string | Uint8Array): string | undefined {
  const b = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  const stack: P[] = [];
  let state = S.BeginValue as S;
  let esc = 0;
  let lit = ''; // the literal being read (`true`, `false`, `null`) and the position in it
  let litPos = 0;

  const fail = (c: number, ctx: string): string => `invalid character ${goQuoteChar(c)} ${ctx}`;
  // its first letter was just read
  const literal = (name: string): undefined => {
    lit = name;
    litPos = 1;
    state = S.Literal;
    return undefined;
  };
  // a `]` or `}` closed the innermost container
  const close = (): undefined => {
    stack.pop();
    state = stack.length === 0 ? S.EndTop : S.EndValue;
    return undefined;
  };

  // returns an error text, or undefined to continue
  const step = (c: number): string | undefined => {
    for (;;) {
      switch (state) {
        case S.BeginValueOrEmpty:
          if (isSpace(c)) return undefined;
          if (c === 0x5d) return close();
          state = S.BeginValue;
          continue;
        case S.BeginValue:
          if (isSpace(c)) return undefined;
          switch (c) {
            case 0x7b:
              stack.push(P.ObjectKey);
              state = S.BeginStringOrEmpty;
              return undefined;
            case 0x5b:
              stack.push(P.ArrayValue);
              state = S.BeginValueOrEmpty;
              return undefined;
            case 0x22:
              state = S.InString;
              return undefined;
            case 0x2d:
              state = S.Neg;
              return undefined;
            case 0x30:
              state = S.Num0;
              return undefined;
            case 0x74:
              return literal('true');
            case 0x66:
              return literal('false');
            case 0x6e:
              return literal('null');
          }
          if (c >= 0x31 && c <= 0x39) {
            state = S.Num1;
            return undefined;
          }
          return fail(c, 'looking for beginning of value');
        case S.BeginStringOrEmpty:
          if (isSpace(c)) return undefined;
          if (c === 0x7d) {
            stack[stack.length - 1] = P.ObjectValue;
            state = S.EndValue;
            continue;
          }
          state = S.BeginString;
          continue;
        case S.BeginString:
          if (isSpace(c)) return undefined;
          if (c === 0x22) {
            state = S.InString;
            return undefined;
          }
          return fail(c, 'looking for beginning of object key string');
        case S.EndValue: {
          const n = stack.length;
          if (n === 0) {
            state = S.EndTop;
            continue;
          }
          if (isSpace(c)) return undefined;
          const top = stack[n - 1]!;
          if (top === P.ObjectKey) {
            if (c === 0x3a) {
              stack[n - 1] = P.ObjectValue;
              state = S.BeginValue;
              return undefined;
            }
            return fail(c, 'after object key');
          }
          if (top === P.ObjectValue) {
            if (c === 0x2c) {
              stack[n - 1] = P.ObjectKey;
              state = S.BeginString;
              return undefined;
            }
            if (c === 0x7d) return close();
            return fail(c, 'after object key:value pair');
          }
          if (c === 0x2c) {
            state = S.BeginValue;
            return undefined;
          }
          if (c === 0x5d) return close();
          return fail(c, 'after array element');
        }
        case S.EndTop:
          if (isSpace(c)) return undefined;
          return fail(c, 'after top-level value');
        case S.InString:
          if (c === 0x22) {
            state = S.EndValue;
            return undefined;
          }
          if (c === 0x5c) {
            state = S.InStringEsc;
            return undefined;
          }
          if (c < 0x20) return fail(c, 'in string literal');
          return undefined;
        case S.InStringEsc:
          if ([0x62, 0x66, 0x6e, 0x72, 0x74, 0x5c, 0x2f, 0x22].includes(c)) {
            state = S.InString;
            return undefined;
          }
          if (c === 0x75) {
            esc = 0;
            state = S.InStringEscU;
            return undefined;
          }
          return fail(c, 'in string escape code');
        case S.InStringEscU:
          if (!isHex(c)) return fail(c, 'in \\u hexadecimal character escape');
          if (++esc === 4) state = S.InString;
          return undefined;
        case S.Neg:
          if (c === 0x30) {
            state = S.Num0;
            return undefined;
          }
          if (c >= 0x31 && c <= 0x39) {
            state = S.Num1;
            return undefined;
          }
          return fail(c, 'in numeric literal');
        case S.Num1:
          if (isDigit(c)) return undefined;
          state = S.Num0;
          continue;
        case S.Num0:
          if (c === 0x2e) {
            state = S.Dot;
            return undefined;
          }
          if (c === 0x65 || c === 0x45) {
            state = S.E;
            return undefined;
          }
          state = S.EndValue;
          continue;
        case S.Dot:
          if (isDigit(c)) {
            state = S.Dot0;
            return undefined;
          }
          return fail(c, 'after decimal point in numeric literal');
        case S.Dot0:
          if (isDigit(c)) return undefined;
          if (c === 0x65 || c === 0x45) {
            state = S.E;
            return undefined;
          }
          state = S.EndValue;
          continue;
        case S.E:
          if (c === 0x2b || c === 0x2d) {
            state = S.ESign;
            return undefined;
          }
          state = S.ESign;
          continue;
        case S.ESign:
          if (isDigit(c)) {
            state = S.E0;
            return undefined;
          }
          return fail(c, 'in exponent of numeric literal');
        case S.E0:
          if (isDigit(c)) return undefined;
          state = S.EndValue;
          continue;
        case S.Literal: {
          const want = lit.charCodeAt(litPos);
          if (c !== want) return fail(c, `in literal ${lit} (expecting ${goQuoteChar(want)})`);
          if (++litPos === lit.length) state = S.EndValue;
          return undefined;
        }
      }
    }
  };

  for (let i = 0; i < b.length; i++) {
    const err = step(b[i]!);
    if (err !== undefined) return err;
  }
  if (state === S.EndTop) return undefined;
  // Go's eof(): one more step with a space, whose own error wins (`tru` → "invalid character ' '
  // in literal true (expecting 'e')"); a space completes a top-level number
  const err = step(0x20);
  if (err !== undefined) return err;
  if ((state as S) === S.EndTop) return undefined;
  return 'unexpected end of JSON input';
}

/** `json.Unmarshal(data, &interface{})`: Go's syntax check, then the value. */
export function goParse(input: string | Uint8Array): Json {
  const text = typeof input === 'string' ? input : Buffer.from(input).toString('utf8');
  // JSON.parse accepts exactly the grammar Go's scanner accepts (RFC 8259: the same white space,
  // literals, numbers and escapes, no control characters in strings), so a document it takes is
  // one Go takes; only a failure needs the scanner, for Go's error text
  try {
    return JSON.parse(text) as Json;
  } catch {
    const err = goSyntaxError(input);
    if (err !== undefined) throw new GoError(err);
  }
  return JSON.parse(text) as Json;
}

/**
 * A value derived from bytes, remembered per array while its bytes stay the same: a copy of them
 * is compared on every use, so an array changed in place is derived again. A derivation that
 * throws is not remembered.
 */
export function bytesMemo<T>(derive: (bytes: Uint8Array) => T): (bytes: Uint8Array) => T {
  const memo = new WeakMap<Uint8Array, { readonly bytes: Buffer; readonly value: T }>();
  return (b) => {
    const hit = memo.get(b);
    // (the same bytes are the same text: compared as bytes, without decoding them again)
    if (hit !== undefined && hit.bytes.equals(b)) return hit.value;
    const value = derive(b);
    memo.set(b, { bytes: Buffer.from(b), value });
    return value;
  };
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

// ──────────────────────────────────────── typed decoding ─────────────────────────────────────

/**
 * A Go type, as far as decoding into it matters. `name` is what `reflect.Type.String()` prints
 * (`types.IPAM`, `[]string`); a struct's `short` is its `Name()` (`PluginConf`) used in field
 * context. `custom` is a type with `UnmarshalJSON` (its error aborts decoding); `text` one with
 * `UnmarshalText` (only JSON strings reach it).
 */
export type GoType =
  | { readonly k: 'string' | 'bool' | 'int' | 'uint' | 'float64' | 'any' }
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

export interface GoField {
  readonly json: string;
  readonly type: GoType;
}

export const goString: GoType = { k: 'string' };
export const goBool: GoType = { k: 'bool' };
export const goInt: GoType = { k: 'int' };
export const goUint: GoType = { k: 'uint' };
export const goAny: GoType = { k: 'any' };
export const goSlice = (elem: GoType): GoType => ({ k: 'slice', elem });
export const goMap = (elem: GoType): GoType => ({ k: 'map', elem });
export const goPtr = (elem: GoType): GoType => ({ k: 'ptr', elem });
/** A struct type: `name` as `Type.String()` prints it, `short` its `Name()` ('' when anonymous). */
export const goStruct = (name: string, fields: readonly GoField[], short?: string): GoType => ({
  k: 'struct',
  name,
  short: short ?? (name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : name),
  fields,
});
export const field = (json: string, type: GoType): GoField => ({ json, type });

/** `reflect.Type.String()` of a GoType. */
export function goTypeName(t: GoType): string {
  switch (t.k) {
    case 'any':
      return 'interface {}';
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

/** Go's name for the kind of a JSON value in `UnmarshalTypeError.Value`. */
export function goJsonKind(v: Json): string {
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

interface Ctx {
  firstError: string | undefined;
  struct: string | undefined;
  fields: string[];
}

class Abort {
  constructor(readonly message: string) {}
}

function typeError(ctx: Ctx, value: string, t: GoType): void {
  if (ctx.firstError !== undefined) return;
  const tn = goTypeName(t.k === 'ptr' ? t.elem : t);
  ctx.firstError =
    ctx.struct !== undefined
      ? `json: cannot unmarshal ${value} into Go struct field ${ctx.struct}.${ctx.fields.join('.')} of type ${tn}`
      : `json: cannot unmarshal ${value} into Go value of type ${tn}`;
}

/** The JSON literal text of a number as Go's error shows it (`number 1.5`). */
function numberText(n: number): string {
  return `number ${JSON.stringify(n)}`;
}

function decodeValue(v: Json, t: GoType, ctx: Ctx): unknown {
  if (t.k === 'ptr') {
    if (v === null) return undefined;
    return decodeValue(v, t.elem, ctx);
  }
  if (t.k === 'any') return v;
  if (t.k === 'custom') {
    try {
      return t.decode(v);
    } catch (e) {
      throw new Abort(e instanceof Error ? e.message : String(e));
    }
  }
  if (v === null) return undefined; // null leaves the Go value as it is
  switch (t.k) {
    case 'text':
      if (typeof v !== 'string') {
        typeError(ctx, goJsonKind(v), t);
        return undefined;
      }
      try {
        return t.decode(v);
      } catch (e) {
        throw new Abort(e instanceof Error ? e.message : String(e));
      }
    case 'string':
      if (typeof v === 'string') return v;
      typeError(ctx, goJsonKind(v), t);
      return undefined;
    case 'bool':
      if (typeof v === 'boolean') return v;
      typeError(ctx, goJsonKind(v), t);
      return undefined;
    case 'float64':
      if (typeof v === 'number') return v;
      typeError(ctx, goJsonKind(v), t);
      return undefined;
    case 'int':
      if (typeof v === 'number') {
        if (Number.isInteger(v) && Math.abs(v) <= Number.MAX_SAFE_INTEGER) return v;
        typeError(ctx, numberText(v), t);
        return undefined;
      }
      typeError(ctx, goJsonKind(v), t);
      return undefined;
    case 'uint':
      if (typeof v === 'number') {
        if (Number.isInteger(v) && v >= 0 && v <= Number.MAX_SAFE_INTEGER) return v;
        typeError(ctx, numberText(v), t);
        return undefined;
      }
      typeError(ctx, goJsonKind(v), t);
      return undefined;
    case 'slice': {
      if (!Array.isArray(v)) {
        typeError(ctx, goJsonKind(v), t);
        return undefined;
      }
      return v.map((item) => decodeValue(item, t.elem, ctx));
    }
    case 'map': {
      if (typeof v !== 'object' || Array.isArray(v)) {
        typeError(ctx, goJsonKind(v), t);
        return undefined;
      }
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(v)) {
        const d = decodeValue(item, t.elem, ctx);
        out[key] = d;
      }
      return out;
    }
    case 'struct': {
      if (typeof v !== 'object' || Array.isArray(v)) {
        typeError(ctx, goJsonKind(v), t);
        return undefined;
      }
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v)) {
        const f = matchField(t.fields, key);
        if (!f) continue;
        const item = v[key]!;
        const savedStruct = ctx.struct;
        const savedDepth = ctx.fields.length;
        ctx.struct = t.short;
        ctx.fields.push(f.json);
        const d = decodeValue(item, f.type, ctx);
        ctx.fields.length = savedDepth;
        ctx.struct = savedStruct;
        // a JSON null leaves a non-pointer field as it was; a pointer field becomes nil
        if (d !== undefined || (item === null && f.type.k === 'ptr')) out[f.json] = d;
      }
      return out;
    }
  }
}

/** A struct's fields by exact JSON name and by lower-cased name (first of each wins). */
interface FieldIndex {
  readonly exact: Map<string, GoField>;
  readonly folded: Map<string, GoField>;
}
const fieldIndexes = new WeakMap<readonly GoField[], FieldIndex>();

function fieldIndex(fields: readonly GoField[]): FieldIndex {
  let ix = fieldIndexes.get(fields);
  if (ix === undefined) {
    ix = { exact: new Map(), folded: new Map() };
    for (const f of fields) {
      if (!ix.exact.has(f.json)) ix.exact.set(f.json, f);
      const k = f.json.toLowerCase();
      if (!ix.folded.has(k)) ix.folded.set(k, f);
    }
    fieldIndexes.set(fields, ix);
  }
  return ix;
}

/** Go's field lookup: the exact name first, then a case-insensitive match. */
function matchField(fields: readonly GoField[], key: string): GoField | undefined {
  const ix = fieldIndex(fields);
  return ix.exact.get(key) ?? ix.folded.get(key.toLowerCase());
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

/** The decoding half of `goUnmarshal`: `v` is a parsed document (a string in it is a JSON string). */
export function goDecode(v: Json, t: GoType): unknown {
  const ctx: Ctx = { firstError: undefined, struct: undefined, fields: [] };
  let out: unknown;
  try {
    out = decodeValue(v, t, ctx);
  } catch (e) {
    if (e instanceof Abort) throw new GoError(e.message);
    throw e;
  }
  if (ctx.firstError !== undefined) throw new GoError(ctx.firstError);
  return out;
}

// ─────────────────────────────────────────── encoding ────────────────────────────────────────

/** Text a `MarshalJSON` method produced: spliced into the output as it is (compacted). */
export class GoRaw {
  constructor(
    readonly text: string,
    /** The text is compact JSON already (Go's own output): spliced in without a pass over it. */
    readonly compact = false,
  ) {}
}

/** A Go struct value: fields in declaration order (never sorted). */
export class GoOrdered {
  constructor(readonly entries: readonly (readonly [string, GoValue])[]) {}
}

/** What `goMarshal` takes: JSON, where plain objects are Go maps, plus structs and raw text. */
export type GoValue =
  | null
  | boolean
  | number
  | string
  | readonly GoValue[]
  | GoOrdered
  | GoRaw
  | { readonly [key: string]: GoValue };

/** The characters Go's string encoder escapes or replaces (HTML escaping on, lone surrogates). */
// eslint-disable-next-line no-control-regex
const NEEDS_QUOTING = /["\\\u0000-\u001f<>&\u2028\u2029\ud800-\udfff]/;

/** Go's string encoder with HTML escaping (the json.Marshal default). */
export function goQuote(s: string): string {
  if (!NEEDS_QUOTING.test(s)) return `"${s}"`;
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    switch (c) {
      case 0x22:
        out += '\\"';
        continue;
      case 0x5c:
        out += '\\\\';
        continue;
      case 0x0a:
        out += '\\n';
        continue;
      case 0x0d:
        out += '\\r';
        continue;
      case 0x09:
        out += '\\t';
        continue;
      case 0x08:
        out += '\\b';
        continue;
      case 0x0c:
        out += '\\f';
        continue;
      case 0x3c:
      case 0x3e:
      case 0x26:
      case 0x2028:
      case 0x2029:
        out += `\\u${c.toString(16).padStart(4, '0')}`;
        continue;
    }
    if (c < 0x20) {
      out += `\\u00${c.toString(16).padStart(2, '0')}`;
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      // a lone surrogate is invalid UTF-8 in Go: it becomes U+FFFD
      const next = s.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        out += s[i]! + s[i + 1]!;
        i++;
      } else out += '\ufffd';
      continue;
    }
    out += s[i]!;
  }
  return `${out}"`;
}

/** Go's float64 encoding (`strconv.FormatFloat` 'f', or 'e' outside [1e-6, 1e21)); JS agrees. */
function goNumber(n: number): string {
  if (!Number.isFinite(n)) throw new GoError(`json: unsupported value: ${String(n)}`);
  return Object.is(n, -0) ? '-0' : String(n);
}

/** `json.Marshal`: compact text. Plain objects are maps (keys sorted); `GoOrdered` keeps order. */
export function goMarshal(v: GoValue): string {
  return marshal(v, '', '');
}

/** A map's keys in Go's order (by their bytes), those of undefined values left out. */
function mapKeys(obj: { readonly [key: string]: GoValue }): string[] {
  const keys: string[] = [];
  let sorted = true;
  for (const k of Object.keys(obj)) {
    if (obj[k] === undefined) continue;
    if (sorted && keys.length > 0 && byteOrder(keys[keys.length - 1]!, k) > 0) sorted = false;
    keys.push(k);
  }
  // (a map decoded from Go's output is in order already)
  if (!sorted) keys.sort(byteOrder);
  return keys;
}

/** Go sorts map keys by their bytes; for UTF-16 that is code point order. */
function byteOrder(a: string, b: string): number {
  if (a === b) return 0;
  // code unit order is code point order up to the first difference unless a surrogate is involved
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length - b.length;
  const x = a.charCodeAt(i);
  const y = b.charCodeAt(i);
  if (x < 0xd800 && y < 0xd800) return x - y;
  return byteOrderSlow(a, b);
}

function byteOrderSlow(a: string, b: string): number {
  const ai = [...a];
  const bi = [...b];
  for (let i = 0; i < Math.min(ai.length, bi.length); i++) {
    const x = ai[i]!.codePointAt(0)!;
    const y = bi[i]!.codePointAt(0)!;
    if (x !== y) return x - y;
  }
  return ai.length - bi.length;
}

/** `json.Compact`: drop insignificant white space from valid JSON text. */
export function goCompact(text: string): string {
  // no white space character at all (what goMarshal writes): nothing to drop
  if (!/[ \t\n\r]/.test(text)) return text;
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      out += ch;
      if (ch === '\\') out += text[++i] ?? '';
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') continue;
    out += ch;
  }
  return out;
}

/** Characters `goIndent` acts on outside strings. */
const INDENT_STOPS = /["{}[\],:]/g;

/** `json.Indent(dst, src, prefix, indent)` over valid compact or spaced JSON text. */
export function goIndent(text: string, prefix = '', indent = '    '): string {
  const src = goCompact(text);
  const n = src.length;
  const newlines: string[] = [];
  const newline = (depth: number): string => (newlines[depth] ??= `\n${prefix}${indent.repeat(depth)}`);
  let out = '';
  let depth = 0;
  let needIndent = false; // just opened a container: defer the newline until we see it is non-empty
  let i = 0;
  while (i < n) {
    const ch = src[i]!;
    if (needIndent && ch !== ']' && ch !== '}') {
      needIndent = false;
      depth++;
      out += newline(depth);
    }
    switch (ch) {
      case '"': {
        // the whole string, escapes included, as it is
        let j = i + 1;
        while (j < n) {
          const c = src.charCodeAt(j);
          if (c === 0x5c) j += 2;
          else if (c === 0x22) break;
          else j++;
        }
        out += src.slice(i, j + 1);
        i = j + 1;
        continue;
      }
      case '{':
      case '[':
        out += ch;
        needIndent = true;
        break;
      case ',':
        out += `,${newline(depth)}`;
        break;
      case ':':
        out += ': ';
        break;
      case '}':
      case ']':
        if (needIndent) {
          needIndent = false; // empty container: `{}` / `[]`
        } else {
          depth--;
          out += newline(depth);
        }
        out += ch;
        break;
      default: {
        // a run of literal characters (numbers, true, false, null)
        INDENT_STOPS.lastIndex = i;
        const m = INDENT_STOPS.exec(src);
        const j = m === null ? n : m.index;
        out += src.slice(i, j);
        i = j;
        continue;
      }
    }
    i++;
  }
  return out;
}

/**
 * `json.MarshalIndent(v, "", "    ")`, what CNI's `PrintResult` and `types.Error.Print` write: the
 * same text as `goIndent(goMarshal(v), '', indent)`, laid out while marshalling (no second pass
 * over the text).
 */
export function goMarshalIndent(v: GoValue, indent = '    '): string {
  return marshal(v, '\n', indent);
}

/**
 * `v` marshalled: compact when `nl` is '' (`goMarshal`), else indented (`goMarshalIndent`), its
 * first line at the cursor and its others after `nl` (`\n` + the indent so far).
 */
function marshal(v: GoValue, nl: string, indent: string): string {
  switch (typeof v) {
    case 'string':
      return goQuote(v);
    case 'number':
      return goNumber(v);
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (v === null) return 'null';
  const compact = nl === '';
  // a MarshalJSON text: compacted, then laid out (a JSON string holds no raw newline)
  if (v instanceof GoRaw) {
    if (compact) return v.compact ? v.text : goCompact(v.text);
    return goIndent(v.text, '', indent).replaceAll('\n', nl);
  }
  // (compact: every member on the cursor's line, `:` without a space)
  const inner = nl + indent;
  const colon = compact ? ':' : ': ';
  if (v instanceof GoOrdered) {
    const es = v.entries;
    if (es.length === 0) return '{}';
    let out = '{';
    for (let i = 0; i < es.length; i++) {
      out += `${i > 0 ? ',' : ''}${inner}${goQuote(es[i]![0])}${colon}${marshal(es[i]![1], inner, indent)}`;
    }
    return `${out}${nl}}`;
  }
  if (Array.isArray(v)) {
    const a = v as readonly GoValue[];
    if (a.length === 0) return '[]';
    let out = '[';
    for (let i = 0; i < a.length; i++) out += `${i > 0 ? ',' : ''}${inner}${marshal(a[i]!, inner, indent)}`;
    return `${out}${nl}]`;
  }
  const obj = v as { readonly [key: string]: GoValue };
  const keys = mapKeys(obj);
  if (keys.length === 0) return '{}';
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    out += `${i > 0 ? ',' : ''}${inner}${goQuote(keys[i]!)}${colon}${marshal(obj[keys[i]!]!, inner, indent)}`;
  }
  return `${out}${nl}}`;
}

/**
 * A value a Go runtime holds as structs (containerd's go-cni capability args such as
 * `[]PortMapping`): objects marshal in the order given, not sorted as maps would be.
 */
export function goStructOrder(v: unknown): GoValue {
  if (v === null || v === undefined) return null;
  if (v instanceof GoOrdered || v instanceof GoRaw) return v;
  if (Array.isArray(v)) return v.map(goStructOrder);
  if (typeof v === 'object') {
    return new GoOrdered(
      Object.entries(v as Record<string, unknown>)
        .filter(([, x]) => x !== undefined)
        .map(([k, x]): [string, GoValue] => [k, goStructOrder(x)]),
    );
  }
  return v as GoValue;
}

/**
 * `json.Unmarshal(json.Marshal(v), &map[string]interface{}{})` (libcni caches a result that way):
 * structs become maps, so their keys marshal sorted; nil members are dropped. That is the document
 * `goDocOf` builds without the text (a map's member order does not matter to Go), Go's error
 * thrown for a value it cannot encode.
 */
export function goMapOf(v: GoValue): Json {
  return goDocOf(v);
}

const SURROGATE = /[\ud800-\udfff]/;

/**
 * `JSON.parse(goMarshal(v))`, built without the text: the document a reader of Go's output gets
 * (members in the text's order — a struct's fields as declared, a map's keys sorted — each string
 * as the text spells it, lone surrogates as U+FFFD; a repeated key keeps its first place and its
 * last value; `__proto__` an own member). Throws Go's error where `goMarshal` does.
 */
export function goDocOf(v: GoValue): Json {
  switch (typeof v) {
    case 'string':
      return SURROGATE.test(v) ? (JSON.parse(goQuote(v)) as string) : v;
    case 'number':
      goNumber(v); // throws on what Go cannot encode
      return v;
    case 'boolean':
      return v;
  }
  if (v === null) return null;
  if (v instanceof GoRaw) return JSON.parse(goCompact(v.text)) as Json;
  if (Array.isArray(v)) return (v as readonly GoValue[]).map(goDocOf);
  const out: JsonObject = {};
  if (v instanceof GoOrdered) {
    for (const [k, x] of v.entries) docMember(out, k, goDocOf(x));
    return out;
  }
  const obj = v as { readonly [key: string]: GoValue };
  for (const k of mapKeys(obj)) docMember(out, k, goDocOf(obj[k]!));
  return out;
}

/** One member as JSON.parse sets it: the key as the text spells it, `__proto__` an own member. */
function docMember(out: JsonObject, key: string, value: Json): void {
  const k = SURROGATE.test(key) ? (JSON.parse(goQuote(key)) as string) : key;
  if (k === '__proto__') {
    Object.defineProperty(out, k, { value, writable: true, enumerable: true, configurable: true });
  } else {
    out[k] = value;
  }
}

/** A JSON value decoded as Go decodes into `interface{}` (objects are maps), typed as a GoValue. */
export function asGoValue(v: Json | JsonObject): GoValue {
  return v as GoValue;
}

/** Go's `%T` of a value decoded into `interface{}`. */
export function goDynamicType(v: Json | undefined): string {
  if (v === undefined || v === null) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    default:
      return 'map[string]interface {}';
  }
}

/** Go's `%q` of a `[]string` (`["a" "b"]`) and `%v`/`%s` (`[a b]`). */
export function goQuotedList(list: readonly string[]): string {
  return `[${list.map((s) => goStrconvQuote(s)).join(' ')}]`;
}
export function goList(list: readonly string[]): string {
  return `[${list.join(' ')}]`;
}

/** `strconv.Quote` (`%q`) for ordinary text: printable characters kept, others escaped. */
export function goStrconvQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c < 0x80) out += c < 0x20 || c === 0x7f ? goQuoteRune(c) : ch;
    else if (c <= 0xff) out += goQuoteRune(c);
    else if (c >= 0xd800 && c <= 0xdfff) out += '\\ufffd';
    else out += ch;
  }
  return `${out}"`;
}
