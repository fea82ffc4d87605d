/**
 * HostComputeNamespace documents (reference hns-hcs.md §1.3): a network compartment holding
 * endpoints and containers. `NamespaceId` is the compartment ID, chosen by HNS.
 */
import { Reader, type JsonObject } from '../../core/json.js';
import type { NamespaceRec, NamespaceType, SchemaVersion } from '../model.js';
import { readGuid, readSchemaVersion, writeSchemaVersion } from './common.js';

export const NAMESPACE_TYPES: readonly NamespaceType[] = ['Host', 'HostDefault', 'Guest', 'GuestDefault'];

export interface NamespaceDraft {
  readonly givenId?: string;
  readonly Type?: NamespaceType;
  readonly SchemaVersion: SchemaVersion;
  readonly resources: readonly { readonly Type: 'Endpoint' | 'Container'; readonly ID: string }[];
}

export function parseNamespace(doc: JsonObject): NamespaceDraft {
  const r = new Reader(doc, 'HCN_E_INVALID_JSON');
  const givenId = readGuid(r, 'ID');
  const Type = r.optEnum('Type', NAMESPACE_TYPES);
  r.optUint('NamespaceId', 0xffffffff); // read-only: chosen by HNS
  r.optBool('CreateWithCompartment');
  const resources = r.objs('Resources').map((res) => {
    const t = res.optEnum('Type', ['Endpoint', 'Container'] as const);
    if (!t) throw res.err('resource Type must be Endpoint or Container');
    const data = res.optObj('Data');
    if (!data) throw res.err('resource Data is required');
    const id = t === 'Endpoint' ? readGuid(data, 'ID') : (data.optStr('ID') ?? data.optStr('Id'));
    if (!id) throw res.err('resource Data.ID is required');
    return { Type: t, ID: t === 'Container' ? id : id.toUpperCase() };
  });
  return {
    ...(givenId ? { givenId } : {}),
    ...(Type ? { Type } : {}),
    SchemaVersion: readSchemaVersion(r),
    resources,
  };
}

export function serializeNamespace(n: NamespaceRec): JsonObject {
  const out: JsonObject = { ID: n.ID, NamespaceId: n.NamespaceId };
  if (n.Type) out.Type = n.Type;
  if (n.Resources.length)
    out.Resources = n.Resources.map((res) => ({ Type: res.Type, Data: { ID: res.ID } }));
  out.SchemaVersion = writeSchemaVersion(n.SchemaVersion);
  return out;
}
