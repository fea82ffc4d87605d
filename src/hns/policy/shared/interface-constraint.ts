/**
 * `InterfaceConstraint` policy, network and endpoint scope (reference hns-hcs.md §2.1): pins the
 * object to one host NIC, selected by GUID, LUID, index, media type, alias or description (at least
 * one selector is required: our choice). One per object.
 */
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyModule } from '../contracts.js';
import { optGuid, optString, putNum, putStr, uintField, UINT32_MAX, UINT64_SAFE_MAX } from '../fields.js';

export interface InterfaceConstraintSettings {
  readonly interfaceGuid: string | undefined;
  /** Upper-case canonical GUID, for matching. */
  readonly interfaceGuidCanonical: string | undefined;
  /** uint64 (exact up to 2^53-1); 0 = not given. */
  readonly interfaceLuid: number;
  readonly interfaceIndex: number;
  readonly interfaceMediaType: number;
  readonly interfaceAlias: string | undefined;
  readonly interfaceDescription: string | undefined;
}

function parse(r: Reader): InterfaceConstraintSettings {
  const guid = optGuid(r, 'InterfaceGuid');
  const s: InterfaceConstraintSettings = {
    interfaceGuid: guid?.text,
    interfaceGuidCanonical: guid?.canonical,
    interfaceLuid: uintField(r, 'InterfaceLuid', UINT64_SAFE_MAX),
    interfaceIndex: uintField(r, 'InterfaceIndex', UINT32_MAX),
    interfaceMediaType: uintField(r, 'InterfaceMediaType', UINT32_MAX),
    interfaceAlias: optString(r, 'InterfaceAlias'),
    interfaceDescription: optString(r, 'InterfaceDescription'),
  };
  if (
    !s.interfaceGuid &&
    !s.interfaceLuid &&
    !s.interfaceIndex &&
    !s.interfaceMediaType &&
    !s.interfaceAlias &&
    !s.interfaceDescription
  ) {
    r.fail(
      'at least one of InterfaceGuid, InterfaceLuid, InterfaceIndex, InterfaceMediaType, InterfaceAlias, InterfaceDescription is required',
    );
  }
  return s;
}

function serialize(s: InterfaceConstraintSettings): JsonObject {
  const out: JsonObject = {};
  putStr(out, 'InterfaceGuid', s.interfaceGuid);
  putNum(out, 'InterfaceLuid', s.interfaceLuid);
  putNum(out, 'InterfaceIndex', s.interfaceIndex);
  putNum(out, 'InterfaceMediaType', s.interfaceMediaType);
  putStr(out, 'InterfaceAlias', s.interfaceAlias);
  putStr(out, 'InterfaceDescription', s.interfaceDescription);
  return out;
}

export const interfaceConstraintPolicy: PolicyModule<InterfaceConstraintSettings> = {
  type: 'InterfaceConstraint',
  scopes: ['network', 'endpoint'],
  multiple: false,
  parse,
  serialize,
  key: (s) =>
    [
      s.interfaceGuidCanonical ?? '',
      s.interfaceLuid,
      s.interfaceIndex,
      s.interfaceMediaType,
      s.interfaceAlias ?? '',
      s.interfaceDescription ?? '',
    ].join('|'),
};
