/**
 * HCN load balancers (reference hns-hcs.md §1.4, §6.12–§6.13; vfp-dataplane.md §4): frontends (VIPs,
 * ports) mapped to backend endpoints. HNS keeps them in one store with the v1 policy lists
 * (src/hns/v1/policylist.ts): a v1 list holding an ELB policy is a load balancer here, and every
 * load balancer is an ELB policy list through v1 (docs/model.md, "Policy lists"). A frontend
 * (protocol, external port, VIP) is claimed once across both (`store.lbClaims`). Each backend
 * must exist when a load balancer is created or modified, and its addresses are kept (`dips`):
 * deleting a backend endpoint later leaves the load balancer as it is, still naming it and still
 * redirecting to its address (docs/model.md, "Load balancers").
 *
 *   createLoadBalancer(hns, null, { HostComputeEndpoints: [epId], FrontendVIPs: ['10.96.0.10'],
 *     PortMappings: [{ Protocol: 6, InternalPort: 80, ExternalPort: 80 }] })
 */
import { hnsError } from '../core/errors.js';
import type { Json, JsonObject } from '../core/json.js';
import { dipsOf, type LbPortMappingRec, type LoadBalancerRec, type PolicyListRec } from './model.js';
import { argGuid } from './schema/common.js';
import { loadBalancerClaims, parseLoadBalancer } from './schema/loadbalancer.js';
import { supports } from './versions.js';
import { bySeq, dropPolicyList, policyListEndpoints, releasePolicyList } from './v1/policylist.js';
import type { HnsService } from './service.js';

const num = (v: Json | undefined): number => (typeof v === 'number' ? v : 0);

/**
 * A v1 policy list as HCN shows it: a load balancer when it holds an ELB policy (else undefined).
 * Each ELB policy is a port mapping (`ILB` → port mapping flag 1); the first ELB policy gives
 * `SourceVIP`, `FrontendVIPs` (its `VIPs`) and the DSR flag (`IsDSR` → 1); the references are the
 * backends. ROUTE policies have no load balancer form (docs/model.md).
 */
function loadBalancerOfList(pl: PolicyListRec): LoadBalancerRec | undefined {
  const elbs = pl.Policies.filter((p) => String(p['Type']).toUpperCase() === 'ELB');
  const first = elbs[0];
  if (!first) return undefined;
  const vips = Array.isArray(first['VIPs']) ? first['VIPs'] : [];
  return {
    kind: 'LoadBalancer',
    ID: pl.ID,
    HostComputeEndpoints: policyListEndpoints(pl),
    SourceVIP: typeof first['SourceVIP'] === 'string' ? first['SourceVIP'] : '',
    FrontendVIPs: vips.filter((v): v is string => typeof v === 'string'),
    PortMappings: elbs.map((p): LbPortMappingRec => ({
      Protocol: num(p['Protocol']),
      InternalPort: num(p['InternalPort']),
      ExternalPort: num(p['ExternalPort']),
      DistributionType: 0,
      Flags: p['ILB'] === true ? 1 : 0,
    })),
    SchemaVersion: { Major: 2, Minor: 0 },
    Flags: first['IsDSR'] === true ? 1 : 0,
    dips: pl.dips,
    seq: pl.seq,
  };
}

/** The load balancer with this ID: an HCN one, or a v1 list with an ELB policy; else undefined. */
export function findLoadBalancer(hns: HnsService, id: string): LoadBalancerRec | undefined {
  const lb = hns.store.loadBalancers.get(id);
  if (lb) return lb;
  const pl = hns.store.policyLists.get(id);
  return pl ? loadBalancerOfList(pl) : undefined;
}

export function getLoadBalancer(hns: HnsService, id: string): LoadBalancerRec {
  const lb = findLoadBalancer(hns, id);
  if (!lb) throw hnsError('ERROR_NOT_FOUND', `load balancer ${id}`);
  return lb;
}

/** Every load balancer HcnEnumerateLoadBalancers lists — HCN ones and v1 ELB lists — in creation order. */
export function listLoadBalancers(hns: HnsService): LoadBalancerRec[] {
  const { loadBalancers, policyLists } = hns.store;
  const out: LoadBalancerRec[] = [...loadBalancers.values()];
  for (const pl of policyLists.values()) {
    const lb = loadBalancerOfList(pl);
    if (lb) out.push(lb);
  }
  return bySeq(out);
}

function validateLb(hns: HnsService, doc: JsonObject, selfId: string | undefined) {
  const d = parseLoadBalancer(doc, hns.profile.version);
  if (!d.HostComputeEndpoints.length)
    throw hnsError('E_INVALIDARG', 'a load balancer needs at least one endpoint');
  // every backend must exist now; its addresses are what the rules hold from here on
  const dips = d.HostComputeEndpoints.map((epId) => dipsOf(hns.getEndpoint(epId)));
  if (d.HostComputeNetwork) hns.getNetwork(d.HostComputeNetwork);
  const claims = loadBalancerClaims(d);
  const seen = new Set<string>();
  for (const c of claims) {
    const owner = hns.store.lbClaims.get(c);
    if ((owner !== undefined && owner !== selfId) || seen.has(c))
      throw hnsError('HCN_E_PORT_ALREADY_EXISTS', `frontend ${c}`);
    seen.add(c);
  }
  return { d, claims, dips };
}

export function createLoadBalancer(hns: HnsService, idArg: unknown, doc: JsonObject): LoadBalancerRec {
  return hns.atomic(() => {
    const store = hns.store;
    const given = argGuid(idArg);
    const { d, claims, dips } = validateLb(hns, doc, undefined);
    const id = hns.newId(given ?? d.givenId, 'ERROR_ALREADY_EXISTS');
    const { givenId: _g, ...rest } = d;
    const rec: LoadBalancerRec = { kind: 'LoadBalancer', ...rest, ID: id, dips, seq: hns.nextSeq() };
    store.loadBalancers.set(id, rec);
    store.ids.add(id);
    for (const c of claims) store.lbClaims.set(c, id);
    for (const ep of rec.HostComputeEndpoints) store.addRef(ep, id);
    hns.changed('LoadBalancer', 'create', id);
    return rec;
  });
}

/**
 * Whole-object update (HcnModifyLoadBalancer with the full document; needs HNS 15.4). A v1 ELB list
 * so updated becomes the HCN load balancer the document describes (same ID and place in order).
 */
export function modifyLoadBalancer(hns: HnsService, id: string, doc: JsonObject): LoadBalancerRec {
  return hns.atomic(() => {
    const store = hns.store;
    const old = getLoadBalancer(hns, id);
    // E_NOTIMPL is what kube-proxy's fallback keys on (winkernel: hcn.IsNotImplemented(err) turns
    // ModifyLoadbalancer off and deletes and re-creates the load balancer instead)
    if (!supports(hns.profile.version, 'ModifyLoadbalancer')) {
      throw hnsError('E_NOTIMPL', 'load balancer modification needs HNS 15.4');
    }
    const { d, claims, dips } = validateLb(hns, doc, id);
    const { givenId: _g, ...rest } = d;
    const rec: LoadBalancerRec = { kind: 'LoadBalancer', ...rest, ID: id, dips, seq: old.seq };
    const list = store.policyLists.get(id);
    if (list) releasePolicyList(store, list);
    else {
      for (const k of loadBalancerClaims(old)) store.lbClaims.delete(k);
      for (const ep of old.HostComputeEndpoints) store.dropRef(ep, id);
    }
    for (const c of claims) store.lbClaims.set(c, id);
    for (const ep of rec.HostComputeEndpoints) store.addRef(ep, id);
    store.loadBalancers.set(id, rec);
    hns.changed('LoadBalancer', 'modify', id);
    return rec;
  });
}

/** Delete a load balancer: an HCN one, or a v1 list with an ELB policy (the whole list goes). */
export function deleteLoadBalancer(hns: HnsService, id: string): void {
  hns.atomic(() => {
    const store = hns.store;
    const lb = getLoadBalancer(hns, id);
    const list = store.policyLists.get(id);
    if (list) {
      dropPolicyList(hns, list);
      return;
    }
    for (const k of loadBalancerClaims(lb)) store.lbClaims.delete(k);
    for (const ep of lb.HostComputeEndpoints) store.dropRef(ep, id);
    store.loadBalancers.delete(id);
    store.ids.delete(id);
    hns.changed('LoadBalancer', 'delete', id);
  });
}
