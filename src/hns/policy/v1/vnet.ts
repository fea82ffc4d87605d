/**
 * The HNS v1 endpoint policies with no HCN v2 counterpart (reference hns-hcs.md §3.3): `VNET`
 * (no fields) and `Isolation` (`VLAN`, `VSID`, `InDefaultIsolation`, always written). Accepted only
 * where a policy came through the v1 API or a v1-shaped document (PolicyContext.v1), kept, and
 * echoed by the v1 view; HCN v2 documents naming them get HCN_E_INVALID_POLICY_TYPE.
 */
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyModule } from '../contracts.js';
import { boolField, uintField, UINT32_MAX } from '../fields.js';

export const vnetPolicy: PolicyModule<Record<string, never>> = {
  type: 'VNET',
  scopes: ['endpoint'],
  v1Only: true,
  multiple: false,
  parse: () => ({}),
  serialize: (): JsonObject => ({}),
  key: () => '',
};

export interface IsolationSettings {
  readonly vlan: number;
  readonly vsid: number;
  readonly inDefaultIsolation: boolean;
}

function parseIsolation(r: Reader): IsolationSettings {
  const vlan = uintField(r, 'VLAN', UINT32_MAX);
  if (vlan > 4094) r.fail(`VLAN ${vlan} is not a VLAN ID (0..4094)`);
  return {
    vlan,
    vsid: uintField(r, 'VSID', UINT32_MAX),
    inDefaultIsolation: boolField(r, 'InDefaultIsolation'),
  };
}

export const isolationPolicy: PolicyModule<IsolationSettings> = {
  type: 'Isolation',
  scopes: ['endpoint'],
  v1Only: true,
  multiple: false,
  parse: parseIsolation,
  serialize: (s): JsonObject => ({ VLAN: s.vlan, VSID: s.vsid, InDefaultIsolation: s.inDefaultIsolation }),
  key: (s) => `${s.vlan}|${s.vsid}|${s.inDefaultIsolation}`,
};
