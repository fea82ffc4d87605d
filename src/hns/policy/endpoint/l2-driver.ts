/**
 * `L2Driver` endpoint policy (reference hns-hcs.md §2.2): listed by hcsshim and the HNS schema but
 * with no settings struct anywhere, so the simulator keeps Settings as an opaque JSON object and
 * emits it back unchanged (keys sorted).
 */
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyModule } from '../contracts.js';
import { canonicalJson } from '../fields.js';

export interface L2DriverSettings {
  /** The Settings object as given (a private copy, keys sorted). */
  readonly raw: JsonObject;
}

function parse(r: Reader): L2DriverSettings {
  return { raw: canonicalJson(r.obj) as JsonObject };
}

export const l2DriverPolicy: PolicyModule<L2DriverSettings> = {
  type: 'L2Driver',
  scopes: ['endpoint'],
  parse,
  serialize: (s) => canonicalJson(s.raw) as JsonObject,
  key: (s) => JSON.stringify(s.raw),
};
