/**
 * `NetAdapterName` network policy: the host adapter an external-switch network binds to
 * (`{"NetworkAdapterName":"Ethernet"}`, reference hns-hcs.md §2.1). One per network (our choice).
 */
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyModule } from '../contracts.js';
import { requiredString } from '../fields.js';

export interface NetAdapterNameSettings {
  readonly networkAdapterName: string;
}

export const netAdapterNamePolicy: PolicyModule<NetAdapterNameSettings> = {
  type: 'NetAdapterName',
  scopes: ['network'],
  multiple: false,
  parse: (r: Reader) => ({ networkAdapterName: requiredString(r, 'NetworkAdapterName') }),
  serialize: (s): JsonObject => ({ NetworkAdapterName: s.networkAdapterName }),
  key: (s) => s.networkAdapterName.toLowerCase(),
};
