/**
 * Strict JSON at the boundary. Documents arrive as JSON strings (as on Windows) or as plain
 * objects; both become a private deep copy of plain JSON, or HCN_E_INVALID_JSON. `Reader` then
 * reads typed fields with a path, failing with the HRESULT its owner chose (schema errors →
 * HCN_E_INVALID_JSON, policy settings → HCN_E_INVALID_POLICY, …).
 */
import { hnsError, type HnsError, type HResultName } from './errors.js';

export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep-copies `v` if it is plain JSON (finite numbers, no cycles, no undefined); else undefined. */
export function cloneJson(v: unknown, depth = 0): Json | undefined {
  if (depth > 64) return undefined;
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isFinite(v) ? v : undefined;
    case 'object': {
      if (v === null) return null;
      if (Array.isArray(v)) {
        const out: Json[] = [];
        for (const item of v) {
          const c = cloneJson(item, depth + 1);
          if (c === undefined) return undefined;
          out.push(c);
        }
        return out;
      }
      const proto = Object.getPrototypeOf(v) as unknown;
      if (proto !== Object.prototype && proto !== null) return undefined;
      const out: JsonObject = {};
      const obj = v as Record<string, unknown>;
      for (const k of Object.keys(obj)) {
        const item = obj[k];
        if (item === undefined) continue;
        const c = cloneJson(item, depth + 1);
        if (c === undefined) return undefined;
        out[k] = c;
      }
      return out;
    }
    default:
      return undefined;
  }
}

/** Parse a JSON string or copy a JSON value; anything else is HCN_E_INVALID_JSON (or `code`). */
export function toJson(input: unknown, code: HResultName = 'HCN_E_INVALID_JSON'): Json {
  if (typeof input === 'string') {
    try {
      return JSON.parse(input) as Json;
    } catch (e) {
      throw hnsError(code, (e as Error).message);
    }
  }
  const c = cloneJson(input);
  if (c === undefined) throw hnsError(code, 'not a JSON value');
  return c;
}

/**
 * A settings document: a JSON object given as a string or object. An empty string or null/undefined
 * is treated as `{}` when `allowEmpty` (HNS accepts an empty query), else HCN_E_INVALID_JSON.
 */
export function toJsonObject(
  input: unknown,
  allowEmpty = false,
  code: HResultName = 'HCN_E_INVALID_JSON',
): JsonObject {
  if (allowEmpty && (input === undefined || input === null || input === '')) return {};
  const v = toJson(input, code);
  if (!isJsonObject(v)) throw hnsError(code, 'expected a JSON object');
  return v;
}

/** Reads typed fields of one JSON object; every failure names the path and throws `code`. */
export class Reader {
  constructor(
    readonly obj: JsonObject,
    readonly code: HResultName = 'HCN_E_INVALID_JSON',
    readonly path = '$',
  ) {}

  static of(v: Json | undefined, code: HResultName, path: string): Reader {
    if (!isJsonObject(v)) throw hnsError(code, `${path}: expected an object`);
    return new Reader(v, code, path);
  }

  /** The error for `what` at this path (use as `throw r.err(…)`, which narrows types). */
  err(what: string, code: HResultName = this.code): HnsError {
    return hnsError(code, `${this.path}: ${what}`);
  }

  fail(what: string, code: HResultName = this.code): never {
    throw this.err(what, code);
  }

  has(key: string): boolean {
    return this.obj[key] !== undefined && this.obj[key] !== null;
  }

  raw(key: string): Json | undefined {
    const v = this.obj[key];
    return v === null ? undefined : v;
  }

  optStr(key: string): string | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (typeof v !== 'string') this.fail(`${key} must be a string`);
    return v;
  }

  str(key: string): string {
    const v = this.optStr(key);
    if (v === undefined) this.fail(`${key} is required`);
    return v;
  }

  optBool(key: string): boolean | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (typeof v !== 'boolean') this.fail(`${key} must be a boolean`);
    return v;
  }

  /** An unsigned integer no larger than `max` (0xFFFFFFFF for uint32, 0xFFFF for uint16, …). */
  optUint(key: string, max: number): number | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) {
      this.fail(`${key} must be an integer in 0..${max}`);
    }
    // JSON's -0 is an integer field's 0 (Go's and HNS's integers have no negative zero)
    return v === 0 ? 0 : v;
  }

  uint(key: string, max: number, dflt = 0): number {
    return this.optUint(key, max) ?? dflt;
  }

  optArr(key: string): Json[] | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) this.fail(`${key} must be an array`);
    return v;
  }

  arr(key: string): Json[] {
    return this.optArr(key) ?? [];
  }

  /** Array of strings. */
  strs(key: string): string[] {
    return this.arr(key).map((v, i) => {
      if (typeof v !== 'string') this.fail(`${key}[${i}] must be a string`);
      return v;
    });
  }

  optObj(key: string, code: HResultName = this.code): Reader | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (!isJsonObject(v)) this.fail(`${key} must be an object`, code);
    return new Reader(v, code, `${this.path}.${key}`);
  }

  /** Array of objects, each as a Reader. */
  objs(key: string, code: HResultName = this.code): Reader[] {
    return this.arr(key).map((v, i) => {
      if (!isJsonObject(v)) this.fail(`${key}[${i}] must be an object`, code);
      return new Reader(v, code, `${this.path}.${key}[${i}]`);
    });
  }

  /** One of the given string values (exact case), or `dflt` when absent. */
  optEnum<T extends string>(key: string, values: readonly T[], code: HResultName = this.code): T | undefined {
    const v = this.optStr(key);
    if (v === undefined || v === '') return undefined;
    if (!(values as readonly string[]).includes(v))
      this.fail(`${key} "${v}" is not one of ${values.join(', ')}`, code);
    return v as T;
  }

  with(code: HResultName): Reader {
    return new Reader(this.obj, code, this.path);
  }
}
