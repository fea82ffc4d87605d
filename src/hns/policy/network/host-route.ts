/**
 * `HostRoute` network policy (HNS ≥ 9.2, `HostRoute`): lets the host reach local pods on an
 * overlay network; settings are the empty object `{}` (reference hns-hcs.md §2.1, §2.3). Other
 * keys are ignored. One per network.
 */
import type { JsonObject } from '../../../core/json.js';
import type { PolicyModule } from '../contracts.js';

export type HostRouteSettings = Readonly<Record<string, never>>;

export const hostRoutePolicy: PolicyModule<HostRouteSettings> = {
  type: 'HostRoute',
  scopes: ['network'],
  feature: 'HostRoute',
  multiple: false,
  parse: () => ({}),
  serialize: (): JsonObject => ({}),
  key: () => '',
};
