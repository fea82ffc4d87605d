/**
 * `SourceMacAddress` network policy: the MAC the network's traffic is sourced from (reference
 * hns-hcs.md §2.1). Dash form `00-15-5D-…`; one per network (our choice).
 */
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyModule } from '../contracts.js';
import { canonicalMac, requiredMac } from '../fields.js';

export interface SourceMacAddressSettings {
  readonly sourceMacAddress: string;
}

export const sourceMacAddressPolicy: PolicyModule<SourceMacAddressSettings> = {
  type: 'SourceMacAddress',
  scopes: ['network'],
  multiple: false,
  parse: (r: Reader) => ({ sourceMacAddress: requiredMac(r, 'SourceMacAddress') }),
  serialize: (s): JsonObject => ({ SourceMacAddress: s.sourceMacAddress }),
  key: (s) => canonicalMac(s.sourceMacAddress),
};
