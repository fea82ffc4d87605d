/**
 * `PortName` endpoint policy: names the endpoint's vSwitch port (reference hns-hcs.md §2.2).
 * One per endpoint (our choice).
 */
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyModule } from '../contracts.js';
import { requiredString } from '../fields.js';

export interface PortNameSettings {
  readonly name: string;
}

export const portNamePolicy: PolicyModule<PortNameSettings> = {
  type: 'PortName',
  scopes: ['endpoint'],
  multiple: false,
  parse: (r: Reader) => ({ name: requiredString(r, 'Name') }),
  serialize: (s): JsonObject => ({ Name: s.name }),
  key: (s) => s.name,
};
