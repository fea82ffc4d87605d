/**
 * `VLAN` policy, subnet scope (hcsshim `VlanPolicySetting`) and endpoint scope (HNS schema 2.4):
 * 802.1Q tag for the subnet's or endpoint's traffic (reference hns-hcs.md §2.1, §2.2).
 * `IsolationId` is always serialised; valid VLAN ids are 1..4094 (IEEE 802.1Q). One per object.
 */
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyModule } from '../contracts.js';
import { uintField, UINT32_MAX } from '../fields.js';

export const VLAN_MIN = 1;
export const VLAN_MAX = 4094;

export interface VlanSettings {
  readonly isolationId: number;
}

function parse(r: Reader): VlanSettings {
  const isolationId = uintField(r, 'IsolationId', UINT32_MAX);
  if (isolationId < VLAN_MIN || isolationId > VLAN_MAX)
    r.fail(`IsolationId ${isolationId} is not a VLAN id 1..4094`);
  return { isolationId };
}

export const vlanPolicy: PolicyModule<VlanSettings> = {
  type: 'VLAN',
  scopes: ['subnet', 'endpoint'],
  multiple: false,
  parse,
  serialize: (s): JsonObject => ({ IsolationId: s.isolationId }),
  key: (s) => String(s.isolationId),
};
