/**
 * Go's `encoding/json` encoding as the CNI libraries print: `Marshal` (maps with sorted keys, struct
 * fields in declaration order, `<`, `>`, `&`, U+2028/U+2029 escaped), `MarshalIndent`, `Compact`
 * and `Indent`, and the `fmt`/`strconv` quoting CNI's messages use. Written from Go's encoding/json
 * documentation and behaviour (Go 1.21–1.23), not from its code.
 */
import type { Json, JsonObject } from '../core/json.js';
import { GoError, goQuoteRune } from './goscan.js';

/** Text a `MarshalJSON` method produced: spliced into the output as it is (compacted). */
export class GoRaw {
  constructor(
    readonly text: string,
    /** The text is compact JSON already (Go's own output): spliced in without a pass over it. */
    readonly compact = false,
  ) {}
}

/**
 * A value that lays itself out: `render(nl, indent)` returns its text for the position it is
 * marshalled at (`nl` is '' when compact, else a newline and the indentation so far), as
 * `goMarshalAt(value, nl, indent)` would. Lets a caller reuse the text of a part that did not
 * change since it was last written.
 */
export class GoLaidOut {
  constructor(readonly render: (nl: string, indent: string) => string) {}
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
  | GoLaidOut
  | { readonly [key: string]: GoValue };

/** The characters Go's string encoder escapes or replaces (HTML escaping on, lone surrogates). */
// eslint-disable-next-line no-control-regex
const NEEDS_QUOTING = /["\\\u0000-\u001f<>&\u2028\u2029\ud800-\udfff]/;

/** Any UTF-16 surrogate: where code unit order and code point (byte) order part, and Go replaces a lone one. */
const SURROGATE = /[\ud800-\udfff]/;

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

/** Object keys as quoted: a program writes the same few keys (struct fields, map keys) again and again. */
const quotedKeys = new Map<string, string>();
const QUOTED_KEYS_MAX = 4096;

function quoteKey(k: string): string {
  let q = quotedKeys.get(k);
  if (q === undefined) {
    if (quotedKeys.size >= QUOTED_KEYS_MAX) quotedKeys.clear();
    q = goQuote(k);
    quotedKeys.set(k, q);
  }
  return q;
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

/** A map's keys in the order Go marshals them (by their bytes). */
export function goSortedKeys(keys: Iterable<string>): string[] {
  const out = [...keys];
  // (keys read back from Go's output, or kept in a map filled from it, are in order already)
  let sorted = true;
  let surrogates = false;
  for (let i = 0; i < out.length; i++) {
    if (!surrogates && SURROGATE.test(out[i]!)) surrogates = true;
    if (sorted && i > 0 && byteOrder(out[i - 1]!, out[i]!) > 0) sorted = false;
  }
  if (sorted) return out;
  // without surrogates, the default sort's code unit order is the bytes' order
  return surrogates ? out.sort(byteOrder) : out.sort();
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

/** `v` marshalled at a position (see `GoLaidOut`): compact when `nl` is '', else indented. */
export function goMarshalAt(v: GoValue, nl: string, indent: string): string {
  return marshal(v, nl, indent);
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
  if (v instanceof GoLaidOut) return v.render(nl, indent);
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
      out += `${i > 0 ? ',' : ''}${inner}${quoteKey(es[i]![0])}${colon}${marshal(es[i]![1], inner, indent)}`;
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
    out += `${i > 0 ? ',' : ''}${inner}${quoteKey(keys[i]!)}${colon}${marshal(obj[keys[i]!]!, inner, indent)}`;
  }
  return `${out}${nl}}`;
}

/**
 * A value a Go runtime holds as structs (containerd's go-cni capability args such as
 * `[]PortMapping`): objects marshal in the order given, not sorted as maps would be.
 */
export function goStructOrder(v: unknown): GoValue {
  if (v === null || v === undefined) return null;
  if (v instanceof GoOrdered || v instanceof GoRaw || v instanceof GoLaidOut) return v;
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
  if (v instanceof GoLaidOut) return JSON.parse(v.render('', '')) as Json;
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
