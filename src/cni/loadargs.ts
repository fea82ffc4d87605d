/**
 * containernetworking/cni `pkg/types/args.go` `LoadArgs(args, container)` (v1.3.0): CNI_ARGS as
 * `K=V` pairs split on `;`, each key matched exactly to a field of the container struct — always
 * `IgnoreUnknown` (a `UnmarshallableBool`: 1/true/0/false, any case) and `CommonArgs` (the
 * embedded struct, which cannot take text) — plus the fields a caller names; a pair without
 * exactly one `=` is an error, and so are unknown keys unless `IgnoreUnknown` is true.
 */
import { GoError } from './goscan.js';
import { goQuotedList, goStrconvQuote } from './goencode.js';

/** `ARGS: error parsing value of pair "<pair>": <msg>` (a field's UnmarshalText failed). */
export function argsPairError(pair: string, msg: string): GoError {
  return new GoError(`ARGS: error parsing value of pair ${goStrconvQuote(pair)}: ${msg}`);
}

/**
 * `types.LoadArgs` into a struct with the fields of `fields` (beside `IgnoreUnknown` and
 * `CommonArgs`): each field's setter gets the value and the whole pair (for its error). Returns
 * the `IgnoreUnknown` value. Throws Go's error text as a GoError.
 */
export function loadArgs(
  args: string,
  fields: Readonly<Record<string, (value: string, pair: string) => void>>,
): boolean {
  let ignoreUnknown = false;
  if (args === '') return ignoreUnknown;
  const unknown: string[] = [];
  for (const pair of args.split(';')) {
    // exactly one `=` (strings.Split(pair, "=") must give two parts)
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.indexOf('=', eq + 1) >= 0)
      throw new GoError(`ARGS: invalid pair ${goStrconvQuote(pair)}`);
    const key = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    if (key === 'IgnoreUnknown') {
      const s = value.toLowerCase();
      if (s === '1' || s === 'true') ignoreUnknown = true;
      else if (s === '0' || s === 'false') ignoreUnknown = false;
      else throw argsPairError(pair, `boolean unmarshal error: invalid input ${s}`);
    } else if (key === 'CommonArgs') {
      throw new GoError(
        "ARGS: cannot unmarshal into field 'CommonArgs' - type '*types.CommonArgs' does not implement encoding.TextUnmarshaler",
      );
    } else if (Object.prototype.hasOwnProperty.call(fields, key)) {
      fields[key]!(value, pair);
    } else {
      unknown.push(pair);
    }
  }
  if (unknown.length > 0 && !ignoreUnknown) throw new GoError(`ARGS: unknown args ${goQuotedList(unknown)}`);
  return ignoreUnknown;
}
