/**
 * A validator for the JSON Schema keywords the scenario schema uses (src/scenario/schema.ts), so
 * the published schema is the loader's rules: `$ref` (to `#/$defs/…`), `type`, `const`, `enum`,
 * `properties`, `required`, `additionalProperties`, `propertyNames`, `maxProperties`, `items`,
 * `minItems`, `maxItems`, `minLength`, `maxLength`, `pattern`, `minimum`, `maximum`, `format`
 * (asserted for ipv4, ipv4-prefix, mac, hresult, profile) and `oneOf` over alternatives told apart
 * by their one required key (the steps). Any other keyword in the schema is a bug: it throws.
 *
 * Written here rather than taken from ajv: ajv compiles schemas to code with `new Function` (at
 * start-up, in a CLI that must start fast and is bundled into one file), and its messages ("must
 * have required property 'x'", "must match pattern …") would be reworded anyway, with the
 * did-you-mean hints and the wording of addresses a scenario author needs.
 */
import { HRESULTS } from '../core/errors.js';
import type { Json, JsonObject } from '../core/json.js';
import { resolveProfile } from '../hns/versions.js';
import { parsePrefix } from '../addr/ip.js';

/** A path into the document: keys and indexes. */
export type JsonPath = readonly (string | number)[];

export interface SchemaIssue {
  readonly path: JsonPath;
  readonly message: string;
  /** The issue is about the key at `path` itself (an unknown key), not its value. */
  readonly atKey?: boolean;
}

type Schema = Readonly<Record<string, unknown>>;

const KNOWN_KEYWORDS = new Set([
  '$schema',
  '$id',
  '$ref',
  '$defs',
  'title',
  'description',
  'type',
  'const',
  'enum',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
  'maxProperties',
  'items',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'format',
  'oneOf',
]);

/** What a pattern means, in words (the message a value that misses it gets). */
const PATTERN_WORDS: Readonly<Record<string, string>> = {
  '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$':
    "a name: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit",
  '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$': 'namespace/name, e.g. default/web-0',
  '^[0-9]{1,3}(\\.[0-9]{1,3}){3}$': 'an IPv4 address, e.g. 10.0.0.4',
  '^[0-9]{1,3}(\\.[0-9]{1,3}){3}/[0-9]{1,2}$': 'an IPv4 address with a prefix length, e.g. 10.244.1.0/24',
  '^[0-9A-Fa-f]{2}([-:][0-9A-Fa-f]{2}){5}$': 'a MAC address, e.g. 00-15-5D-01-02-03',
  '^([0-9]{1,3}(\\.[0-9]{1,3}){3}|None)$': 'an IPv4 address or None',
  '^([a-z0-9.-]+/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$':
    "a label key: an optional prefix/ then letters, digits, '-', '_' and '.'",
  '^(Hcn|Hcs|HNS)[A-Za-z]*\\*?$':
    'a flat API method (HcnCreateEndpoint, HcsStartComputeSystem, HNSCall, …), or a prefix ending in *',
  '^(Hcn|Hcs|HNS)[A-Za-z]*$': 'a flat API method such as HcnCreateLoadBalancer',
};

function describe(v: Json | undefined): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  switch (typeof v) {
    case 'string':
      return `the string ${JSON.stringify(v.length > 60 ? v.slice(0, 57) + '...' : v)}`;
    case 'number':
      return Number.isInteger(v) ? `the integer ${v}` : `the number ${v}`;
    case 'boolean':
      return `${v}`;
    case 'object':
      return 'a mapping';
    default:
      return 'nothing';
  }
}

const TYPE_WORDS: Readonly<Record<string, string>> = {
  object: 'a mapping (key: value)',
  array: 'a list',
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  null: 'null',
};

function typeOf(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function hasType(v: Json, t: string): boolean {
  const actual = typeOf(v);
  return actual === t || (t === 'number' && actual === 'integer');
}

/** Levenshtein distance, for did-you-mean hints on unknown keys and values. */
function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}

/** The closest of `choices` to `s` when it is close enough to be a typo. */
export function closest(s: string, choices: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of choices) {
    const d = distance(s.toLowerCase(), c.toLowerCase());
    if (d < bestD) {
      best = c;
      bestD = d;
    }
  }
  return best !== undefined && bestD <= Math.max(1, Math.floor(best.length / 3)) ? best : undefined;
}

/** An IPv4 dotted quad as a number, or undefined. */
export function parseIpv4(s: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  if (m.slice(1).some((p) => p.length > 1 && p.startsWith('0'))) return undefined;
  return (((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0) as number;
}

/** `a.b.c.d/len` as {addr, len}, or undefined. */
export function parseIpv4Prefix(s: string): { addr: number; len: number } | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const addr = parseIpv4(s.slice(0, slash));
  const lenText = s.slice(slash + 1);
  if (addr === undefined || !/^\d{1,2}$/.test(lenText) || Number(lenText) > 32) return undefined;
  return { addr, len: Number(lenText) };
}

/** A registered HRESULT name, `S_OK`, or `0x…` (8 hex digits at most): its number, else undefined. */
export function parseHResult(s: string): number | undefined {
  if (s === 'S_OK') return 0;
  if (/^0x[0-9a-f]{1,8}$/i.test(s)) return Number.parseInt(s.slice(2), 16) >>> 0;
  const rec = (HRESULTS as Readonly<Record<string, { readonly code: number }>>)[s];
  return rec ? rec.code >>> 0 : undefined;
}

function checkFormat(format: string, v: string): string | undefined {
  switch (format) {
    case 'ipv4':
      return parseIpv4(v) === undefined
        ? `must be an IPv4 address, e.g. 10.0.0.4 (got ${describe(v)})`
        : undefined;
    case 'ipv4-prefix':
      return parseIpv4Prefix(v) === undefined
        ? `must be an IPv4 address with a prefix length 0..32, e.g. 10.244.1.0/24 (got ${describe(v)})`
        : undefined;
    case 'ipv6-prefix': {
      const p = parsePrefix(v);
      return p?.family !== 6
        ? `must be an IPv6 address with a prefix length 0..128, e.g. fd00:10:244::/56 (got ${describe(v)})`
        : undefined;
    }
    case 'mac':
      return undefined; // the pattern says it all
    case 'hresult': {
      if (parseHResult(v) !== undefined) return undefined;
      const hint = closest(v, Object.keys(HRESULTS));
      return `must be a registered HRESULT name (HCN_E_…, E_…, ERROR_…), S_OK, or 0x followed by hex digits (got ${describe(v)})${hint ? `; did you mean ${hint}?` : ''}`;
    }
    case 'profile':
      return resolveProfile(v)
        ? undefined
        : `must be ws2019, ws2022, ws2025 or an HNS version such as 13.1 (got ${describe(v)})`;
    default:
      throw new Error(`scenario schema: unknown format "${format}"`);
  }
}

/**
 * A value outside an `enum`, of any type: the allowed values, what was given, and a hint — the
 * closest value to a misspelt string, or the key with its first value (`reply: true` is
 * `reply: Delivered`: the key takes which value, not whether).
 */
function enumMessage(choices: readonly string[], v: Json, path: JsonPath): string {
  const key = [...path].reverse().find((p) => typeof p === 'string');
  const hint =
    typeof v === 'string'
      ? closest(v, choices)
      : key !== undefined && choices.length
        ? `${key}: ${choices[0]}`
        : undefined;
  return `must be one of ${choices.join(', ')} (got ${describe(v)})${hint ? `; did you mean ${hint}?` : ''}`;
}

export class SchemaValidator {
  private readonly issues: SchemaIssue[] = [];

  constructor(private readonly root: Schema) {}

  /** Every issue of `value` against the root schema, in document order. */
  validate(value: Json): SchemaIssue[] {
    this.issues.length = 0;
    this.check(this.root, value, []);
    return [...this.issues];
  }

  private add(path: JsonPath, message: string, atKey = false): void {
    this.issues.push(atKey ? { path, message, atKey } : { path, message });
  }

  private resolve(schema: Schema): Schema {
    let s = schema;
    for (let i = 0; i < 8 && typeof s.$ref === 'string'; i++) {
      const m = /^#\/\$defs\/([A-Za-z0-9_]+)$/.exec(s.$ref);
      const defs = this.root.$defs as Readonly<Record<string, Schema>> | undefined;
      const target = m ? defs?.[m[1]!] : undefined;
      if (!target) throw new Error(`scenario schema: unresolvable $ref ${s.$ref}`);
      s = target;
    }
    return s;
  }

  private check(schemaIn: Schema, v: Json, path: JsonPath): void {
    const s = this.resolve(schemaIn);
    for (const k of Object.keys(s))
      if (!KNOWN_KEYWORDS.has(k)) throw new Error(`scenario schema: unsupported keyword "${k}"`);
    if (s.oneOf !== undefined) {
      this.checkOneOf(s.oneOf as readonly Schema[], v, path);
      return;
    }
    if ('const' in s && v !== s.const) {
      this.add(path, `must be ${JSON.stringify(s.const)} (got ${describe(v)})`);
      return;
    }
    if (Array.isArray(s.enum) && !s.enum.includes(v)) {
      this.add(path, enumMessage(s.enum as readonly string[], v, path));
      return;
    }
    if (typeof s.type === 'string' && !hasType(v, s.type)) {
      this.add(path, `must be ${TYPE_WORDS[s.type] ?? s.type} (got ${describe(v)})`);
      return;
    }
    if (typeof v === 'string') this.checkString(s, v, path);
    else if (typeof v === 'number') this.checkNumber(s, v, path);
    else if (Array.isArray(v)) this.checkArray(s, v, path);
    else if (v !== null && typeof v === 'object') this.checkObject(s, v, path);
  }

  private checkString(s: Schema, v: string, path: JsonPath): void {
    if (typeof s.minLength === 'number' && v.length < s.minLength) {
      this.add(
        path,
        s.minLength === 1 ? 'must not be empty' : `must have at least ${s.minLength} characters`,
      );
      return;
    }
    if (typeof s.maxLength === 'number' && v.length > s.maxLength) {
      this.add(path, `must have at most ${s.maxLength} characters (got ${v.length})`);
      return;
    }
    if (typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(v)) {
      const words = PATTERN_WORDS[s.pattern];
      this.add(path, `must be ${words ?? `a string matching ${s.pattern}`} (got ${describe(v)})`);
      return;
    }
    if (typeof s.format === 'string') {
      const msg = checkFormat(s.format, v);
      if (msg) this.add(path, msg);
    }
  }

  private checkNumber(s: Schema, v: number, path: JsonPath): void {
    if (!Number.isFinite(v)) {
      this.add(path, `must be a finite number (got ${v})`);
      return;
    }
    const lo = typeof s.minimum === 'number' ? s.minimum : -Infinity;
    const hi = typeof s.maximum === 'number' ? s.maximum : Infinity;
    if (v < lo || v > hi) this.add(path, `must be in ${lo}..${hi} (got ${v})`);
  }

  private checkArray(s: Schema, v: readonly Json[], path: JsonPath): void {
    if (typeof s.minItems === 'number' && v.length < s.minItems) {
      this.add(path, s.minItems === 1 ? 'must not be empty' : `must have at least ${s.minItems} items`);
      return;
    }
    if (typeof s.maxItems === 'number' && v.length > s.maxItems) {
      this.add(path, `has ${v.length} items; at most ${s.maxItems} are allowed`);
      return;
    }
    if (s.items && typeof s.items === 'object') {
      v.forEach((x, i) => this.check(s.items as Schema, x, [...path, i]));
    }
  }

  private checkObject(s: Schema, v: JsonObject, path: JsonPath): void {
    const props = (s.properties ?? {}) as Readonly<Record<string, Schema>>;
    const keys = Object.keys(v);
    if (typeof s.maxProperties === 'number' && keys.length > s.maxProperties) {
      this.add(path, `has ${keys.length} keys; at most ${s.maxProperties} are allowed`);
      return;
    }
    for (const k of (s.required ?? []) as readonly string[]) {
      if (!Object.hasOwn(v, k)) this.add(path, `missing required key "${k}"`);
    }
    for (const k of keys) {
      const child = v[k] as Json;
      if (Object.hasOwn(props, k)) {
        this.check(props[k]!, child, [...path, k]);
        continue;
      }
      if (s.propertyNames && typeof s.propertyNames === 'object') {
        const before = this.issues.length;
        this.check(s.propertyNames as Schema, k, [...path, k]);
        if (this.issues.length > before) {
          const last = this.issues.pop()!;
          this.add(last.path, `key ${last.message.replace(/^must/, 'must')}`, true);
          continue;
        }
      }
      const extra = s.additionalProperties;
      if (extra === false) {
        const known = Object.keys(props);
        const hint = closest(k, known);
        this.add(
          [...path, k],
          `unknown key "${k}"${hint ? `; did you mean "${hint}"?` : ''} (known keys: ${known.join(', ')})`,
          true,
        );
      } else if (extra && typeof extra === 'object') {
        this.check(extra as Schema, child, [...path, k]);
      }
    }
  }

  /** oneOf over objects told apart by their first required key (each step has one action key). */
  private checkOneOf(alternatives: readonly Schema[], v: Json, path: JsonPath): void {
    // alternatives of different types (a shorthand string or the whole mapping): the value's type picks
    const types = alternatives.map((alt) => this.resolve(alt).type);
    if (types.every((t) => typeof t === 'string') && new Set(types).size === types.length) {
      const i = types.findIndex((t) => hasType(v, t as string));
      if (i >= 0) this.check(alternatives[i]!, v, path);
      else {
        const words = types.map((t) => TYPE_WORDS[t as string] ?? (t as string));
        this.add(path, `must be ${words.join(' or ')} (got ${describe(v)})`);
      }
      return;
    }
    const keyOf = (alt: Schema) => ((this.resolve(alt).required ?? []) as readonly string[])[0]!;
    const names = alternatives.map(keyOf);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) {
      this.add(path, `must be a mapping with one of the keys ${names.join(', ')} (got ${describe(v)})`);
      return;
    }
    const present = names.filter((n) => Object.hasOwn(v, n));
    if (present.length === 1) {
      this.check(alternatives[names.indexOf(present[0]!)]!, v, path);
      return;
    }
    if (present.length > 1) {
      this.add(path, `has ${present.join(' and ')}: a step does one thing (give each its own step)`);
      return;
    }
    const unknown = Object.keys(v).find((k) => k !== 'title');
    const hint = unknown !== undefined ? closest(unknown, names) : undefined;
    if (unknown !== undefined)
      this.add(
        [...path, unknown],
        `unknown step "${unknown}"${hint ? `; did you mean "${hint}"?` : ''} (steps: ${names.join(', ')})`,
        true,
      );
    else this.add(path, `must have one of the keys ${names.join(', ')}`);
  }
}
