/**
 * `AutomaticDNS` network policy: turns HNS's automatic DNS for the network on or off (reference
 * hns-hcs.md §2.1). `Enable` false is omitted on output (hcsshim omitempty). One per network.
 */
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyModule } from '../contracts.js';
import { boolField, putBool } from '../fields.js';

export interface AutomaticDnsSettings {
  readonly enable: boolean;
}

export const automaticDnsPolicy: PolicyModule<AutomaticDnsSettings> = {
  type: 'AutomaticDNS',
  scopes: ['network'],
  multiple: false,
  parse: (r: Reader) => ({ enable: boolField(r, 'Enable') }),
  serialize: (s) => {
    const out: JsonObject = {};
    putBool(out, 'Enable', s.enable);
    return out;
  },
  key: (s) => String(s.enable),
};
