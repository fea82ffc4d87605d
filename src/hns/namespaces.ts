/**
 * HCN namespaces (reference hns-hcs.md §1.3, §6.10): compartments and their members — endpoints (at
 * most one namespace each) and containers. Create, modify (Endpoint/Container Add and Remove),
 * delete (members detached), and the check HCS makes before a container joins one.
 *
 *   createNamespace(hns, null, { Type: 'Host', SchemaVersion: { Major: 2, Minor: 0 } })
 */
import { hnsError } from '../core/errors.js';
import { Reader, type JsonObject } from '../core/json.js';
import type { NamespaceRec, NamespaceResourceRec } from './model.js';
import { argGuid } from './schema/common.js';
import { isRemote, unresolvedAddresses } from './schema/endpoint.js';
import { parseNamespace } from './schema/namespace.js';
import { readRequestType } from './policy-request.js';
import type { HnsService } from './service.js';

export function getNamespace(hns: HnsService, id: string): NamespaceRec {
  const ns = hns.store.namespaces.get(id);
  if (!ns) throw hnsError('ERROR_NOT_FOUND', `namespace ${id}`);
  return ns;
}

/**
 * A container is about to join the namespace (HCS create with `Networking.Namespace`): refused
 * with HCN_E_NAMESPACE_ATTACH_FAILED when one of its endpoints is Degraded — HNS's
 * EndpointAttachShared says "Endpoint is in invalid state" (cni-windows.md §7 P9; felix#2893).
 */
export function checkNamespaceAttach(hns: HnsService, id: string): void {
  for (const r of getNamespace(hns, id).Resources) {
    const e = r.Type === 'Endpoint' ? hns.store.endpoints.get(r.ID) : undefined;
    const unresolved = e ? unresolvedAddresses(e) : [];
    if (e && unresolved.length > 0) {
      throw hnsError(
        'HCN_E_NAMESPACE_ATTACH_FAILED',
        `Endpoint is in invalid state: ${e.ID} is Degraded (${unresolved.map((u) => JSON.stringify(u)).join(', ')} is not an address)`,
      );
    }
  }
}

export function createNamespace(
  hns: HnsService,
  idArg: unknown,
  doc: JsonObject,
  opts: { isDefault?: boolean } = {},
): NamespaceRec {
  return hns.atomic(() => {
    const store = hns.store;
    const given = argGuid(idArg);
    const d = parseNamespace(doc);
    const endpoints = d.resources.filter((r) => r.Type === 'Endpoint').map((r) => r.ID);
    for (const epId of endpoints) checkAttachable(hns, epId, undefined);
    if (new Set(endpoints).size !== endpoints.length) {
      throw hnsError('HCN_E_ENDPOINT_NAMESPACE_ALREADY_EXISTS', 'an endpoint is listed twice');
    }
    const id = hns.newId(given ?? d.givenId, 'ERROR_ALREADY_EXISTS');
    const isDefaultCompartment = d.Type === 'HostDefault' || opts.isDefault === true;
    const rec: NamespaceRec = {
      kind: 'Namespace',
      ID: id,
      NamespaceId: isDefaultCompartment ? 1 : store.nextCompartment++,
      ...(d.Type ? { Type: d.Type } : {}),
      Resources: [],
      SchemaVersion: d.SchemaVersion,
      IsDefault: opts.isDefault === true,
      seq: hns.nextSeq(),
    };
    store.namespaces.set(id, rec);
    store.ids.add(id);
    hns.notify('NamespaceCreate', { ID: id, NamespaceId: rec.NamespaceId });
    hns.changed('Namespace', 'create', id);
    for (const r of d.resources) {
      if (r.Type === 'Endpoint') attachToNamespace(hns, id, r.ID);
      else addNamespaceResource(hns, id, { Type: 'Container', ID: r.ID });
    }
    return store.namespaces.get(id)!;
  });
}

/** Validation for adding an endpoint to a namespace (reference §6.10). */
function checkAttachable(hns: HnsService, epId: string, nsId: string | undefined): void {
  const e = hns.getEndpoint(epId);
  if (isRemote(e)) throw hnsError('HCN_E_INVALID_REMOTE_ENDPOINT_OPERATION', epId);
  if (e.HostComputeNamespace) {
    throw hnsError(
      'HCN_E_ENDPOINT_NAMESPACE_ALREADY_EXISTS',
      `${epId} is in namespace ${e.HostComputeNamespace}${nsId === e.HostComputeNamespace ? ' already' : ''}`,
    );
  }
}

function attachToNamespace(hns: HnsService, nsId: string, epId: string): void {
  const e = hns.store.endpoints.get(epId)!;
  hns.store.endpoints.set(epId, { ...e, HostComputeNamespace: nsId });
  addNamespaceResource(hns, nsId, { Type: 'Endpoint', ID: epId });
  hns.notify('NetworkEndpointAttached', { ID: epId, Namespace: nsId, Network: e.HostComputeNetwork });
}

/** Commit-phase: the endpoint leaves the namespace (either may already be gone). */
export function detachFromNamespace(hns: HnsService, nsId: string, epId: string): void {
  const store = hns.store;
  const ns = store.namespaces.get(nsId);
  const e = store.endpoints.get(epId);
  if (e && e.HostComputeNamespace === nsId) {
    store.endpoints.set(epId, { ...e, HostComputeNamespace: undefined });
  }
  if (ns) {
    store.namespaces.set(nsId, {
      ...ns,
      Resources: ns.Resources.filter((r) => !(r.Type === 'Endpoint' && r.ID === epId)),
    });
    hns.changed('Namespace', 'modify', nsId, `Endpoint Remove ${epId}`);
  }
  hns.notify('NetworkEndpointDetached', {
    ID: epId,
    Namespace: nsId,
    Network: e?.HostComputeNetwork ?? '',
  });
}

function addNamespaceResource(hns: HnsService, nsId: string, res: NamespaceResourceRec): void {
  const ns = hns.store.namespaces.get(nsId)!;
  hns.store.namespaces.set(nsId, { ...ns, Resources: [...ns.Resources, res] });
  hns.changed('Namespace', 'modify', nsId, `${res.Type} Add ${res.ID}`);
}

export function modifyNamespace(hns: HnsService, id: string, doc: JsonObject): NamespaceRec {
  return hns.atomic(() => {
    const store = hns.store;
    const ns = getNamespace(hns, id);
    const r = new Reader(doc, 'HCN_E_INVALID_JSON');
    const resourceType = r.optStr('ResourceType') ?? '';
    const requestType = readRequestType(r);
    const settings = r.optObj('Settings') ?? new Reader({}, 'HCN_E_INVALID_JSON', '$.Settings');
    if (requestType !== 'Add' && requestType !== 'Remove') {
      throw hnsError('HCN_E_REQUEST_UNSUPPORTED', `namespace ${requestType}`);
    }
    if (resourceType === 'Endpoint') {
      const epId = argGuid(settings.optStr('EndpointId') ?? '');
      if (!epId) throw settings.err('EndpointId is required');
      if (requestType === 'Add') {
        checkAttachable(hns, epId, id);
        attachToNamespace(hns, id, epId);
      } else {
        if (!ns.Resources.some((x) => x.Type === 'Endpoint' && x.ID === epId)) {
          throw hnsError('ERROR_NOT_FOUND', `endpoint ${epId} is not in namespace ${id}`);
        }
        detachFromNamespace(hns, id, epId);
      }
      return store.namespaces.get(id)!;
    }
    if (resourceType === 'Container') {
      const cid = settings.optStr('ContainerId') ?? '';
      if (!cid) throw settings.err('ContainerId is required');
      const has = ns.Resources.some(
        (x) => x.Type === 'Container' && x.ID.toLowerCase() === cid.toLowerCase(),
      );
      if (requestType === 'Add') {
        if (has) throw hnsError('ERROR_ALREADY_EXISTS', `container ${cid}`);
        addNamespaceResource(hns, id, { Type: 'Container', ID: cid });
      } else {
        if (!has) throw hnsError('ERROR_NOT_FOUND', `container ${cid}`);
        store.namespaces.set(id, {
          ...ns,
          Resources: ns.Resources.filter(
            (x) => !(x.Type === 'Container' && x.ID.toLowerCase() === cid.toLowerCase()),
          ),
        });
        hns.changed('Namespace', 'modify', id, `Container Remove ${cid}`);
      }
      return store.namespaces.get(id)!;
    }
    throw hnsError('HCN_E_REQUEST_UNSUPPORTED', `namespace ResourceType "${resourceType}"`);
  });
}

/** Delete a namespace; endpoints still in it are detached (our choice, docs/model.md). */
export function deleteNamespace(hns: HnsService, id: string): void {
  hns.atomic(() => {
    const ns = getNamespace(hns, id);
    for (const r of ns.Resources) if (r.Type === 'Endpoint') detachFromNamespace(hns, id, r.ID);
    hns.store.namespaces.delete(id);
    hns.store.ids.delete(id);
    hns.notify('NamespaceDelete', { ID: id, NamespaceId: ns.NamespaceId });
    hns.changed('Namespace', 'delete', id);
  });
}
