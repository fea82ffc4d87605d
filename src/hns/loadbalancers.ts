/**
 * HCN load balancers (reference hns-hcs.md §1.4, §6.12–§6.13; vfp-dataplane.md §4): frontends (VIPs,
 * ports) mapped to backend endpoints. A frontend (protocol, external port, VIP) is claimed once
 * across load balancers and v1 ELB policy lists (`store.lbClaims`); every backend keeps a reference
 * that stops its deletion.
 *
 *   createLoadBalancer(hns, null, { HostComputeEndpoints: [epId], FrontendVIPs: ['10.96.0.10'],
 *     PortMappings: [{ Protocol: 6, InternalPort: 80, ExternalPort: 80 }] })
 */
import { hnsError } from '../core/errors.js';
import type { JsonObject } from '../core/json.js';
import type { LoadBalancerRec } from './model.js';
import { argGuid } from './schema/common.js';
import { loadBalancerClaims, parseLoadBalancer } from './schema/loadbalancer.js';
import { supports } from './versions.js';
import type { HnsService } from './service.js';

export function getLoadBalancer(hns: HnsService, id: string): LoadBalancerRec {
  const lb = hns.store.loadBalancers.get(id);
  if (!lb) throw hnsError('ERROR_NOT_FOUND', `load balancer ${id}`);
  return lb;
}

function validateLb(hns: HnsService, doc: JsonObject, selfId: string | undefined) {
  const d = parseLoadBalancer(doc, hns.profile.version);
  if (!d.HostComputeEndpoints.length)
    throw hnsError('E_INVALIDARG', 'a load balancer needs at least one endpoint');
  for (const epId of d.HostComputeEndpoints) hns.getEndpoint(epId);
  if (d.HostComputeNetwork) hns.getNetwork(d.HostComputeNetwork);
  const claims = loadBalancerClaims(d);
  const seen = new Set<string>();
  for (const c of claims) {
    const owner = hns.store.lbClaims.get(c);
    if ((owner !== undefined && owner !== selfId) || seen.has(c))
      throw hnsError('HCN_E_PORT_ALREADY_EXISTS', `frontend ${c}`);
    seen.add(c);
  }
  return { d, claims };
}

export function createLoadBalancer(hns: HnsService, idArg: unknown, doc: JsonObject): LoadBalancerRec {
  return hns.atomic(() => {
    const store = hns.store;
    const given = argGuid(idArg);
    const { d, claims } = validateLb(hns, doc, undefined);
    const id = hns.newId(given ?? d.givenId, 'ERROR_ALREADY_EXISTS');
    const { givenId: _g, ...rest } = d;
    const rec: LoadBalancerRec = { kind: 'LoadBalancer', ...rest, ID: id, seq: hns.nextSeq() };
    store.loadBalancers.set(id, rec);
    store.ids.add(id);
    for (const c of claims) store.lbClaims.set(c, id);
    for (const ep of rec.HostComputeEndpoints) store.addRef(ep, id);
    hns.changed('LoadBalancer', 'create', id);
    return rec;
  });
}

/** Whole-object update (HcnModifyLoadBalancer with the full document; needs HNS 15.4). */
export function modifyLoadBalancer(hns: HnsService, id: string, doc: JsonObject): LoadBalancerRec {
  return hns.atomic(() => {
    const store = hns.store;
    const old = getLoadBalancer(hns, id);
    // E_NOTIMPL is what kube-proxy's fallback keys on (winkernel: hcn.IsNotImplemented(err) turns
    // ModifyLoadbalancer off and deletes and re-creates the load balancer instead)
    if (!supports(hns.profile.version, 'ModifyLoadbalancer')) {
      throw hnsError('E_NOTIMPL', 'load balancer modification needs HNS 15.4');
    }
    const { d, claims } = validateLb(hns, doc, id);
    const { givenId: _g, ...rest } = d;
    const rec: LoadBalancerRec = { kind: 'LoadBalancer', ...rest, ID: id, seq: old.seq };
    for (const k of loadBalancerClaims(old)) store.lbClaims.delete(k);
    for (const c of claims) store.lbClaims.set(c, id);
    for (const ep of old.HostComputeEndpoints) store.dropRef(ep, id);
    for (const ep of rec.HostComputeEndpoints) store.addRef(ep, id);
    store.loadBalancers.set(id, rec);
    hns.changed('LoadBalancer', 'modify', id);
    return rec;
  });
}

export function deleteLoadBalancer(hns: HnsService, id: string): void {
  hns.atomic(() => {
    const store = hns.store;
    const lb = getLoadBalancer(hns, id);
    for (const k of loadBalancerClaims(lb)) store.lbClaims.delete(k);
    for (const ep of lb.HostComputeEndpoints) store.dropRef(ep, id);
    store.loadBalancers.delete(id);
    store.ids.delete(id);
    hns.changed('LoadBalancer', 'delete', id);
  });
}
