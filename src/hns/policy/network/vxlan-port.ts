/**
 * `VxlanPort` network policy (HNS ≥ 10.3, `VxlanPort`): the UDP port of the overlay network's
 * VXLAN encapsulation, default 4789 (reference hns-hcs.md §2.1, vfp-dataplane.md §5). `Port` is
 * always serialised; it must be 1..65535 (our choice). One per network.
 */
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyModule } from '../contracts.js';
import { uintField, UINT16_MAX } from '../fields.js';

export const DEFAULT_VXLAN_PORT = 4789;

export interface VxlanPortSettings {
  readonly port: number;
}

function parse(r: Reader): VxlanPortSettings {
  const port = uintField(r, 'Port', UINT16_MAX);
  if (port === 0) r.fail('Port must be 1..65535');
  return { port };
}

export const vxlanPortPolicy: PolicyModule<VxlanPortSettings> = {
  type: 'VxlanPort',
  scopes: ['network'],
  feature: 'VxlanPort',
  multiple: false,
  parse,
  serialize: (s): JsonObject => ({ Port: s.port }),
  key: (s) => String(s.port),
};
