/**
 * A JSON document as Go's readers over its bytes see it (reference cni-windows.md §2.2): parsed
 * once into nodes that remember their span in the source text, so a `json.RawMessage` is the exact
 * text of its value, duplicate keys are all there (Go's `encoding/json` decodes each in turn), and
 * `buger/jsonparser`'s case-sensitive lookups see string contents undecoded, as the Windows
 * plugins' policy helpers do. Decoding a tree into Go types is src/cni/godecode.ts's, through the
 * tree reader here.
 */
import type { Json, JsonObject } from '../core/json.js';
import { goDecodeWith, type GoStruct, type GoValueReader } from './godecode.js';
import { GoError, goSyntaxError } from './goscan.js';

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
  if (err !== undefined) throw new GoError(err);
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

// ───────────────────────────── encoding/json Unmarshal into Go's zero values ─────────────────────────────

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/**
 * A tree's values as the decoder reads them: a number is its text, so an integer field takes any
 * int64 (`ParseInt`) and its error text is the number as written (`number 1e2`).
 */
const TREE: GoValueReader<GoJsonNode> = {
  kind: (n) => (n.kind === 'true' || n.kind === 'false' ? 'bool' : n.kind),
  string: (n) => (n.kind === 'string' ? n.value : ''),
  bool: (n) => n.kind === 'true',
  float: (n) => {
    const x = Number(rawText(n));
    return Number.isFinite(x) ? x : undefined;
  },
  int: (n, unsigned) => {
    const text = rawText(n);
    if (!(unsigned ? /^\d+$/ : /^-?\d+$/).test(text)) return undefined;
    // up to 15 characters is exact as a double and within int64
    if (text.length <= 15) {
      const x = Number(text);
      return x === 0 ? 0 : x; // -0 decodes to 0
    }
    const v = BigInt(text);
    if (unsigned ? v > UINT64_MAX : v < INT64_MIN || v > INT64_MAX) return undefined;
    return Number(v);
  },
  numberText: (n) => `number ${rawText(n)}`,
  members: (n, each) => {
    if (n.kind === 'object') for (const m of n.members) each(m.key, m.node);
  },
  items: (n) => (n.kind === 'array' ? n.items : []),
  json: nodeToJson,
  raw: rawText,
};

/**
 * `json.Unmarshal(text, &v)` with `v` a zero value of the struct `t`, read from the source text (so
 * RawMessage fields keep their bytes): the decoded object with every field under its property, or
 * Go's error (syntax first, then the first type mismatch; Go decodes on past a mismatch).
 */
export function goUnmarshalText(text: string, t: GoStruct): Record<string, unknown> {
  const root = parseGoJson(text);
  // a text parsed before decodes as it did then (the same stdin invocation after invocation): a
  // copy of that decoding, which its caller may change as Go code changes its struct
  let byType = decodedTrees.get(root);
  const hit = byType?.get(t);
  if (hit !== undefined) return copyDecoded(hit) as Record<string, unknown>;
  const out = goDecodeWith(TREE, root, t, true) as Record<string, unknown>;
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

/** Decode an already parsed node (e.g. a RawMessage's) into Go's zero value of `t`; throws Go's error on a mismatch. */
export function goDecodeNode(node: GoJsonNode, t: GoStruct): Record<string, unknown> {
  return goDecodeWith(TREE, node, t, true) as Record<string, unknown>;
}
