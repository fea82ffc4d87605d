/**
 * The key-value syntax of ovs-ofctl flows and actions (ofputil_parse_key_value): items separated
 * by commas or white space, `key=value`, `key:value` or `key(value)`, parentheses nesting.
 */

export interface KeyValue {
  readonly key: string;
  readonly value: string;
}

const SPACE = new Set([',', ' ', '\t', '\r', '\n']);

/** Splits `s` into key-value items. */
export function keyValues(s: string): KeyValue[] {
  const out: KeyValue[] = [];
  let i = 0;
  const n = s.length;
  while (i < n) {
    while (i < n && SPACE.has(s[i]!)) i++;
    if (i >= n) break;
    let k = i;
    while (k < n && !SPACE.has(s[k]!) && s[k] !== '=' && s[k] !== ':' && s[k] !== '(') k++;
    const key = s.slice(i, k);
    if (k < n && s[k] === '(') {
      const end = closeParen(s, k);
      out.push({ key, value: s.slice(k + 1, end) });
      i = end + 1;
      continue;
    }
    if (k < n && (s[k] === '=' || s[k] === ':')) {
      let j = k + 1;
      let depth = 0;
      while (j < n && (depth > 0 || !SPACE.has(s[j]!))) {
        if (s[j] === '(') depth++;
        else if (s[j] === ')') depth--;
        j++;
      }
      out.push({ key, value: s.slice(k + 1, j) });
      i = j;
      continue;
    }
    out.push({ key, value: '' });
    i = k;
  }
  return out;
}

/** Index of the `)` closing the `(` at `open` (or the end of the string). */
export function closeParen(s: string, open: number): number {
  let depth = 0;
  for (let j = open; j < s.length; j++) {
    if (s[j] === '(') depth++;
    else if (s[j] === ')' && --depth === 0) return j;
  }
  return s.length;
}
