/**
 * HostComputeNamespace, after hcsshim's `hcn/hcnnamespace.go` (reference hns-hcs.md §1.3, §7.3): a
 * network compartment holding endpoints and containers; endpoints join and leave through
 * ModifyNamespaceSettingRequest. `Sync` only matters for Guest namespaces (see `sync`).
 */
import { isJsonObject, type Json } from '../../core/json.js';
import { create, enumerate, modify, remove } from './calls.js';
import type { HcnClient } from './client.js';
import { HcnResource } from './resource.js';
import { HcnClientError, NamespaceNotFoundError } from './errors.js';
import {
  defaultQuery,
  filterQuery,
  marshalQuery,
  MODIFY_SPEC,
  v2SchemaVersion,
  VERSION_SPEC,
  type HostComputeQuery,
  type SchemaVersion,
} from './hcn.js';
import { copyOwned, fromUnmarshalled, marshal, pick, unmarshal, type Spec } from './marshal.js';
import {
  NamespaceResourceType,
  NamespaceType,
  RequestType,
  type ModifyNamespaceSettingRequest,
} from './policy.js';

/** `Data` of an Endpoint resource (and of a Container one): `{"ID":"<guid>"}`. */
export interface NamespaceResourceEndpoint {
  ID: string;
}
export type NamespaceResourceContainer = NamespaceResourceEndpoint;

export interface NamespaceResource {
  Type: NamespaceResourceType | string;
  Data: Json;
}

export interface HostComputeNamespaceDoc {
  ID?: string;
  NamespaceId?: number;
  Type?: NamespaceType | string;
  Resources?: NamespaceResource[];
  SchemaVersion?: SchemaVersion;
}

export const NAMESPACE_SPEC: Spec = [
  ['ID', 'str'],
  ['NamespaceId', 'num'],
  ['Type', 'str'],
  [
    'Resources',
    {
      objs: [
        ['Type', 'strReq'],
        ['Data', 'rawReq'],
      ],
    },
  ],
  ['SchemaVersion', { obj: VERSION_SPEC }],
];

export class HostComputeNamespace extends HcnResource implements Required<HostComputeNamespaceDoc> {
  ID = '';
  NamespaceId = 0;
  Type: NamespaceType | string = '';
  Resources: NamespaceResource[] = [];
  SchemaVersion: SchemaVersion = { Major: 0, Minor: 0 };

  constructor(client: HcnClient, doc: HostComputeNamespaceDoc = {}) {
    super(client, NAMESPACE_SPEC);
    if (doc.ID !== undefined) this.ID = doc.ID;
    if (doc.NamespaceId !== undefined) this.NamespaceId = doc.NamespaceId;
    if (doc.Type !== undefined) this.Type = doc.Type;
    if (doc.Resources !== undefined) this.Resources = copyOwned(doc.Resources);
    if (doc.SchemaVersion !== undefined) this.SchemaVersion = { ...doc.SchemaVersion };
  }

  static fromJSON(client: HcnClient, json: unknown): HostComputeNamespace {
    const doc = unmarshal(NAMESPACE_SPEC, json) as HostComputeNamespaceDoc;
    return fromUnmarshalled(() => new HostComputeNamespace(client, doc));
  }

  async create(): Promise<HostComputeNamespace> {
    return HostComputeNamespace.fromJSON(this.client, await create(this.client, 'Namespace', this.toJSON()));
  }

  async delete(): Promise<void> {
    await remove(this.client, 'Namespace', this.ID);
  }

  /** Send a ModifyNamespaceSettingRequest for this namespace. */
  async modifyNamespaceSettings(request: ModifyNamespaceSettingRequest): Promise<void> {
    await modifyNamespaceSettings(this.client, this.ID, request);
  }

  /**
   * Sync the namespace's endpoints into the utility VM holding it. Host types: nothing to do (a
   * process container sees endpoint changes at once). Guest types: hcsshim asks the pod's shim
   * (found through a registry key the CNI layer wrote) to sync, and succeeds when there is no such
   * shim; here the client's `syncGuestNamespace` hook plays the shim, and without one this
   * succeeds as hcsshim does when no registry entry exists.
   */
  async sync(): Promise<void> {
    if (this.Type !== NamespaceType.Guest) return;
    const hook = this.client.syncGuestNamespace;
    if (hook) await hook(this);
  }
}

/** hcsshim's `NewNamespace(type)`: `{Type, SchemaVersion 2.0}`, not yet created. */
export function newNamespace(client: HcnClient, nsType: NamespaceType | string): HostComputeNamespace {
  return new HostComputeNamespace(client, { Type: nsType, SchemaVersion: v2SchemaVersion() });
}

export async function listNamespacesQuery(
  client: HcnClient,
  query: HostComputeQuery,
): Promise<HostComputeNamespace[]> {
  const found = await enumerate(client, 'Namespace', marshalQuery(query));
  return found.map((n) => HostComputeNamespace.fromJSON(client, n));
}

export async function listNamespaces(client: HcnClient): Promise<HostComputeNamespace[]> {
  return listNamespacesQuery(client, defaultQuery());
}

export async function getNamespaceByID(
  client: HcnClient,
  namespaceId: string,
): Promise<HostComputeNamespace> {
  const found = await findNamespaceByID(client, namespaceId);
  if (found === undefined) throw new NamespaceNotFoundError(namespaceId);
  return found;
}

/**
 * `getNamespaceByID` with undefined where it would throw its `NamespaceNotFoundError` (any other
 * failure is thrown the same): for callers that ask whether a namespace still exists.
 */
export async function findNamespaceByID(
  client: HcnClient,
  namespaceId: string,
): Promise<HostComputeNamespace | undefined> {
  const found = await listNamespacesQuery(client, filterQuery('ID', namespaceId));
  return found[0];
}

function resourceIds(ns: HostComputeNamespace, type: NamespaceResourceType): string[] {
  const ids: string[] = [];
  for (const res of ns.Resources) {
    if (res.Type !== type) continue;
    if (!isJsonObject(res.Data)) {
      throw new HcnClientError('E_FAIL', `namespace ${ns.ID}: ${type} resource Data is not an object`);
    }
    const id = pick(res.Data, 'ID');
    ids.push(typeof id === 'string' ? id : '');
  }
  return ids;
}

/** IDs of the endpoints in a namespace (HNS writes them upper-case). */
export async function getNamespaceEndpointIds(client: HcnClient, namespaceId: string): Promise<string[]> {
  return resourceIds(await getNamespaceByID(client, namespaceId), NamespaceResourceType.Endpoint);
}

/** IDs of the containers in a namespace. */
export async function getNamespaceContainerIds(client: HcnClient, namespaceId: string): Promise<string[]> {
  return resourceIds(await getNamespaceByID(client, namespaceId), NamespaceResourceType.Container);
}

/** hcsshim's package-level `ModifyNamespaceSettings(namespaceID, request)`. */
export async function modifyNamespaceSettings(
  client: HcnClient,
  namespaceId: string,
  request: ModifyNamespaceSettingRequest,
): Promise<HostComputeNamespace> {
  return HostComputeNamespace.fromJSON(
    client,
    await modify(client, 'Namespace', namespaceId, marshal(MODIFY_SPEC, request)),
  );
}

export async function addNamespaceEndpoint(
  client: HcnClient,
  namespaceId: string,
  endpointId: string,
): Promise<void> {
  await modifyNamespaceSettings(client, namespaceId, {
    ResourceType: NamespaceResourceType.Endpoint,
    RequestType: RequestType.Add,
    Settings: { EndpointId: endpointId },
  });
}

export async function removeNamespaceEndpoint(
  client: HcnClient,
  namespaceId: string,
  endpointId: string,
): Promise<void> {
  await modifyNamespaceSettings(client, namespaceId, {
    ResourceType: NamespaceResourceType.Endpoint,
    RequestType: RequestType.Remove,
    Settings: { EndpointId: endpointId },
  });
}
