/**
 * Go's `encoding/json` scanner as the CNI libraries see it: the plain Go `error` the CNI code
 * carries Go's texts in, the scanner's syntax errors (`invalid character 'x' looking for beginning
 * of value`, `unexpected end of JSON input`) and `json.Unmarshal` into an `interface{}`. Written from
 * Go's encoding/json documentation and behaviour (Go 1.21–1.23), not from its code.
 */
import type { Json } from '../core/json.js';

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
export function goQuoteRune(c: number): string {
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
