/**
 * HCN SDN routes (reference hns-hcs.md §1.5): route settings (`DestinationPrefix`, `NextHop`,
 * `NeedEncap`) applied to the endpoints they name. No modify: hcsshim deletes and re-creates.
 *
 *   createSdnRoute(hns, null, { HostComputeEndpoints: [epId],
 *     Setting: [{ DestinationPrefix: '10.96.0.0/12', NeedEncap: true }] })
 */
import { hnsError } from '../core/errors.js';
import type { JsonObject } from '../core/json.js';
import type { SdnRouteRec } from './model.js';
import { argGuid } from './schema/common.js';
import { parseSdnRoute } from './schema/route.js';
import type { HnsService } from './service.js';

export function getSdnRoute(hns: HnsService, id: string): SdnRouteRec {
  const rt = hns.store.routes.get(id);
  if (!rt) throw hnsError('ERROR_NOT_FOUND', `route ${id}`);
  return rt;
}

export function createSdnRoute(hns: HnsService, idArg: unknown, doc: JsonObject): SdnRouteRec {
  return hns.atomic(() => {
    const store = hns.store;
    const given = argGuid(idArg);
    const d = parseSdnRoute(doc);
    if (!d.HostComputeEndpoints.length)
      throw hnsError('E_INVALIDARG', 'an SDN route needs at least one endpoint');
    if (!d.Setting.length) throw hnsError('E_INVALIDARG', 'an SDN route needs at least one route setting');
    for (const epId of d.HostComputeEndpoints) hns.getEndpoint(epId);
    if (d.HostComputeNetwork) hns.getNetwork(d.HostComputeNetwork);
    const id = hns.newId(given ?? d.givenId, 'ERROR_ALREADY_EXISTS');
    const { givenId: _g, ...rest } = d;
    const rec: SdnRouteRec = { kind: 'SdnRoute', ...rest, ID: id, seq: hns.nextSeq() };
    store.routes.set(id, rec);
    store.ids.add(id);
    for (const ep of new Set(rec.HostComputeEndpoints)) store.addRef(ep, id);
    hns.changed('SdnRoute', 'create', id);
    return rec;
  });
}

export function modifySdnRoute(hns: HnsService, id: string, _doc: JsonObject): SdnRouteRec {
  getSdnRoute(hns, id);
  throw hnsError('HCN_E_REQUEST_UNSUPPORTED', 'SDN routes cannot be modified; delete and re-create');
}

export function deleteSdnRoute(hns: HnsService, id: string): void {
  hns.atomic(() => {
    const store = hns.store;
    const rt = getSdnRoute(hns, id);
    for (const ep of new Set(rt.HostComputeEndpoints)) store.dropRef(ep, id);
    store.routes.delete(id);
    store.ids.delete(id);
    hns.changed('SdnRoute', 'delete', id);
  });
}
