/**
 * `DrMacAddress` network policy: the overlay network's distributed-router MAC, which peers put in
 * their RemoteSubnetRoute (reference hns-hcs.md §2.1, vfp-dataplane.md §5). One per network.
 */
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyModule } from '../contracts.js';
import { canonicalMac, requiredMac } from '../fields.js';

export interface DrMacAddressSettings {
  readonly address: string;
}

export const drMacAddressPolicy: PolicyModule<DrMacAddressSettings> = {
  type: 'DrMacAddress',
  scopes: ['network'],
  multiple: false,
  parse: (r: Reader) => ({ address: requiredMac(r, 'Address') }),
  serialize: (s): JsonObject => ({ Address: s.address }),
  key: (s) => canonicalMac(s.address),
};
