/**
 * `InterfaceParameters` endpoint policy (HNS schema 2.4, reference hns-hcs.md §2.2): interface MTU
 * of the endpoint. Only one per endpoint: a second is HCN_INTERFACEPARAMETERS_ALREADY_APPLIED
 * (enforced by the registry's single-instance check, see registry.ts).
 */
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyModule } from '../contracts.js';
import { uintField, UINT16_MAX } from '../fields.js';

/** Smallest MTU an IPv4 interface accepts (RFC 791); our lower bound. */
export const MIN_MTU = 576;

export interface InterfaceParametersSettings {
  readonly mtu: number;
}

function parse(r: Reader): InterfaceParametersSettings {
  const mtu = uintField(r, 'Mtu', UINT16_MAX);
  if (mtu < MIN_MTU) r.fail(`Mtu ${mtu} must be at least ${MIN_MTU}`);
  return { mtu };
}

export const interfaceParametersPolicy: PolicyModule<InterfaceParametersSettings> = {
  type: 'InterfaceParameters',
  scopes: ['endpoint'],
  multiple: false,
  parse,
  serialize: (s): JsonObject => ({ Mtu: s.mtu }),
  key: (s) => String(s.mtu),
};
