/**
 * HNS v1 policy lists (`/policylists`, reference hns-hcs.md §3.3): a list of `ELB` (load balancer)
 * or `ROUTE` policies applied to the endpoints it references (`"/endpoints/<id>"`). HNS keeps v1
 * policy lists and HCN load balancers in one store, seen through two views (docs/model.md, "Policy
 * lists"): `GET /policylists/` shows every HCN load balancer as an ELB policy list, and a list with
 * an ELB policy is an HCN load balancer (src/hns/loadbalancers.ts). A list created here is kept, as
 * written, in `store.policyLists`; an HCN load balancer in `store.loadBalancers`; the functions below
 * that take an ID find either. Like every service operation, a create validates everything first
 * and then commits; references (to endpoints that exist then) are registered with `store.addRef`,
 * with each endpoint's addresses (`dips`); deleting a referenced endpoint later leaves the list as
 * it is, still naming it; ELB frontends claim `store.lbClaims` with the same keys HCN load
 * balancers use, so the two APIs conflict as on Windows.
 *
 *   createPolicyList(hns, { References: ['/endpoints/<id>'], Policies: [{ Type: 'ELB', Protocol: 6,
 *     InternalPort: 8080, ExternalPort: 80, SourceVIP: '10.0.0.1', VIPs: ['1.1.1.2'] }] })
 */
import { parseIp, parsePrefix } from '../../addr/ip.js';
import { hnsError } from '../../core/errors.js';
import { newGuid, parseGuid } from '../../core/guid.js';
import { isJsonObject, Reader, type Json, type JsonObject } from '../../core/json.js';
import { dipsOf, type LoadBalancerRec, type PolicyListRec } from '../model.js';
import { readGuid } from '../schema/common.js';
import type { HnsService } from '../service.js';
import type { HnsStore } from '../store.js';
import { supports } from '../versions.js';

const REFERENCE_RE = /^\/endpoints\/([^/]+)\/?$/i;

interface ValidatedPolicy {
  readonly json: JsonObject;
  readonly claims: readonly string[];
}

/** `"/endpoints/<guid>"` → canonical reference and endpoint ID; anything else is an invalid reference. */
function readReference(text: string): { ref: string; id: string } {
  const m = REFERENCE_RE.exec(text);
  const id = m ? parseGuid(m[1]!) : undefined;
  if (!id) throw hnsError('HCN_E_INVALID_JSON_REFERENCE', `"${text}" is not "/endpoints/<id>"`);
  return { ref: `/endpoints/${id}`, id };
}

function ipText(r: Reader, key: string, value: Json | undefined): { text: string; key: string } {
  if (typeof value !== 'string') throw r.err(`${key} must be an IP address string`);
  const ip = parseIp(value);
  if (!ip) throw hnsError('HCN_E_INVALID_IP', `${r.path}.${key} "${value}"`);
  return { text: value, key: ip.value.toString() };
}

/**
 * ELB: `{Type, Protocol (uint16, omitted = 0), InternalPort, ExternalPort, SourceVIP, VIPs, ILB, IsDSR}`
 * (hcsshim ELBPolicy/LBPolicy). InternalPort 0 → HCN_E_INVALID_INTERNAL_PORT; IsDSR needs the DSR
 * feature (HNS 9.3 or ≥ 10.2). Claims: one per (Protocol, ExternalPort, VIP), `*` when no VIP.
 */
function readElb(hns: HnsService, r: Reader): ValidatedPolicy {
  const protocol = r.optUint('Protocol', 0xffff) ?? 0;
  if (protocol !== 0 && protocol !== 6 && protocol !== 17)
    throw r.err(`Protocol ${protocol} is not TCP (6) or UDP (17)`);
  const internalPort = r.optUint('InternalPort', 0xffff) ?? 0;
  const externalPort = r.optUint('ExternalPort', 0xffff) ?? 0;
  if (internalPort === 0) throw hnsError('HCN_E_INVALID_INTERNAL_PORT', `${r.path}.InternalPort`);
  const sourceVipRaw = r.optStr('SourceVIP');
  const sourceVip = sourceVipRaw ? ipText(r, 'SourceVIP', sourceVipRaw).text : undefined;
  // `VIPs = @($Vip)` in microsoft/SDN hns.psm1 sends [null] when no VIP is given: nulls are skipped.
  const vips = r.arr('VIPs').flatMap((v, i) => (v === null || v === '' ? [] : [ipText(r, `VIPs[${i}]`, v)]));
  const ilb = r.optBool('ILB') ?? false;
  const dsr = r.optBool('IsDSR') ?? false;
  if (dsr && !supports(hns.profile.version, 'DSR'))
    throw r.err('IsDSR needs Direct Server Return (HNS 9.3 or 10.2+)');
  const json: JsonObject = { Type: 'ELB' };
  if (protocol) json['Protocol'] = protocol;
  json['InternalPort'] = internalPort;
  json['ExternalPort'] = externalPort;
  if (sourceVip) json['SourceVIP'] = sourceVip;
  if (vips.length) json['VIPs'] = vips.map((v) => v.text);
  if (ilb) json['ILB'] = true;
  if (dsr) json['IsDSR'] = true;
  const claims =
    externalPort === 0
      ? []
      : (vips.length ? vips.map((v) => v.key) : ['*']).map((v) => `${protocol}/${externalPort}/${v}`);
  return { json, claims };
}

/** ROUTE: `{Type, DestinationPrefix (required), NextHop, NeedEncap}` (hcsshim RoutePolicy). */
function readRoute(r: Reader): ValidatedPolicy {
  const dest = r.optStr('DestinationPrefix') ?? '';
  if (!parsePrefix(dest)) throw r.err(`DestinationPrefix "${dest}" is not an IP prefix`);
  const nextHop = r.optStr('NextHop');
  if (nextHop && !parseIp(nextHop)) throw r.err(`NextHop "${nextHop}" is not an IP address`);
  const json: JsonObject = { Type: 'ROUTE', DestinationPrefix: dest };
  if (nextHop) json['NextHop'] = nextHop;
  if (r.optBool('NeedEncap')) json['NeedEncap'] = true;
  return { json, claims: [] };
}

function readListPolicy(hns: HnsService, raw: Json, index: number): ValidatedPolicy {
  if (!isJsonObject(raw)) throw hnsError('HCN_E_INVALID_POLICY', `Policies[${index}] must be an object`);
  const type = raw['Type'];
  if (typeof type !== 'string')
    throw hnsError('HCN_E_INVALID_POLICY', `Policies[${index}].Type must be a string`);
  const r = new Reader(raw, 'HCN_E_INVALID_POLICY', `$.Policies[${index}]`);
  switch (type.toUpperCase()) {
    case 'ELB':
      return readElb(hns, r);
    case 'ROUTE':
      return readRoute(r);
    default:
      throw hnsError('HCN_E_INVALID_POLICY_TYPE', `policy list policy "${type}" (ELB or ROUTE)`);
  }
}

/**
 * Create a policy list from `{ID?, References, Policies}`. Errors: a reference not of the form
 * `/endpoints/<guid>` → HCN_E_INVALID_JSON_REFERENCE; a missing endpoint → HCN_E_ENDPOINT_NOT_FOUND;
 * a reference listed twice → E_INVALIDARG; a policy other than ELB/ROUTE → HCN_E_INVALID_POLICY_TYPE;
 * an ELB frontend already claimed by a policy list or HCN load balancer → HCN_E_PORT_ALREADY_EXISTS.
 */
export function createPolicyList(hns: HnsService, body: JsonObject): PolicyListRec {
  return hns.atomic(() => {
    const store = hns.store;
    const r = new Reader(body, 'HCN_E_INVALID_JSON', '$');
    const givenId = readGuid(r, 'ID');
    const refs = r.strs('References').map(readReference);
    const ids = new Set<string>();
    const dips: string[][] = [];
    for (const ref of refs) {
      dips.push(dipsOf(hns.getEndpoint(ref.id)));
      if (ids.has(ref.id)) throw hnsError('E_INVALIDARG', `${ref.ref} is referenced twice`);
      ids.add(ref.id);
    }
    const policies = r.arr('Policies').map((p, i) => readListPolicy(hns, p, i));
    const claims = new Set<string>();
    for (const c of policies.flatMap((p) => p.claims)) {
      if (store.lbClaims.has(c) || claims.has(c))
        throw hnsError('HCN_E_PORT_ALREADY_EXISTS', `load balancer frontend ${c}`);
      claims.add(c);
    }
    if (givenId && store.idTaken(givenId)) throw hnsError('ERROR_ALREADY_EXISTS', `ID ${givenId} is in use`);
    let id = givenId ?? newGuid(hns.deps.rng);
    while (!givenId && store.idTaken(id)) id = newGuid(hns.deps.rng);
    // commit
    const rec: PolicyListRec = {
      kind: 'PolicyList',
      ID: id,
      References: refs.map((x) => x.ref),
      Policies: policies.map((p) => p.json),
      dips,
      seq: ++store.seq,
    };
    store.policyLists.set(id, rec);
    store.ids.add(id);
    for (const epId of ids) store.addRef(epId, id);
    for (const c of claims) store.lbClaims.set(c, id);
    hns.changed('PolicyList', 'create', id);
    return rec;
  });
}

/**
 * An HCN load balancer as the v1 API shows it: one ELB policy per port mapping, as hcsshim's v1
 * `ELBPolicy` reads it — `Protocol`, `InternalPort`, `ExternalPort`, the load balancer's `SourceVIP`
 * and `FrontendVIPs` (as `VIPs`), `ILB` from the port mapping's ILB flag (1), `IsDSR` from the load
 * balancer's DSR flag (1) — and its backends as references with lower-case GUIDs, as
 * `Get-HnsPolicyList` shows kube-proxy's load balancers (projectcalico/calico#8465). Distribution
 * type, the other port mapping flags, the IPv6 flag and `HostComputeNetwork` have no v1 field.
 */
function policyListOfLoadBalancer(lb: LoadBalancerRec): PolicyListRec {
  const Policies = lb.PortMappings.map((pm) => {
    const json: JsonObject = { Type: 'ELB' };
    if (pm.Protocol) json['Protocol'] = pm.Protocol;
    json['InternalPort'] = pm.InternalPort;
    json['ExternalPort'] = pm.ExternalPort;
    if (lb.SourceVIP) json['SourceVIP'] = lb.SourceVIP;
    if (lb.FrontendVIPs.length) json['VIPs'] = [...lb.FrontendVIPs];
    if (pm.Flags & 1) json['ILB'] = true;
    if (lb.Flags & 1) json['IsDSR'] = true;
    return json;
  });
  return {
    kind: 'PolicyList',
    ID: lb.ID,
    References: lb.HostComputeEndpoints.map((ep) => `/endpoints/${ep.toLowerCase()}`),
    Policies,
    dips: lb.dips,
    seq: lb.seq,
  };
}

/** The policy list with this ID, either kept as one or an HCN load balancer's v1 view; else undefined. */
function findPolicyList(hns: HnsService, id: string): PolicyListRec | undefined {
  const pl = hns.store.policyLists.get(id);
  if (pl) return pl;
  const lb = hns.store.loadBalancers.get(id);
  return lb ? policyListOfLoadBalancer(lb) : undefined;
}

/** A policy list by ID; a missing one is ERROR_NOT_FOUND ("Element not found.", our choice). */
export function getPolicyList(hns: HnsService, id: string): PolicyListRec {
  const pl = findPolicyList(hns, id);
  if (!pl) throw hnsError('ERROR_NOT_FOUND', `policy list ${id}`);
  return pl;
}

/** Every policy list `GET /policylists/` shows — lists and HCN load balancers — in creation order. */
export function listPolicyLists(hns: HnsService): PolicyListRec[] {
  const { policyLists, loadBalancers } = hns.store;
  const out: PolicyListRec[] = [...policyLists.values()];
  for (const lb of loadBalancers.values()) out.push(policyListOfLoadBalancer(lb));
  return bySeq(out);
}

/** `recs` in creation order (each table is nearly so; a load balancer modified from a list is not). */
export function bySeq<T extends { readonly seq: number }>(recs: T[]): T[] {
  for (let i = 1; i < recs.length; i++) {
    if (recs[i - 1]!.seq > recs[i]!.seq) return recs.sort((a, b) => a.seq - b.seq);
  }
  return recs;
}

/**
 * The ELB frontend claims of a stored policy list (its Policies were validated on create), keyed as
 * HCN load balancer claims: `<protocol>/<external port>/<VIP as integer or *>`; port 0 claims nothing.
 */
export function policyListClaims(pl: Pick<PolicyListRec, 'Policies'>): string[] {
  const out: string[] = [];
  for (const p of pl.Policies) {
    if (p['Type'] !== 'ELB') continue;
    const port = typeof p['ExternalPort'] === 'number' ? p['ExternalPort'] : 0;
    if (port === 0) continue;
    const protocol = typeof p['Protocol'] === 'number' ? p['Protocol'] : 0;
    const vips = Array.isArray(p['VIPs']) ? p['VIPs'] : [];
    const keys = vips.length ? vips.map((v) => parseIp(String(v))?.value.toString() ?? String(v)) : ['*'];
    for (const v of keys) out.push(`${protocol}/${port}/${v}`);
  }
  return out;
}

/** The endpoint IDs a stored policy list references. */
export function policyListEndpoints(pl: Pick<PolicyListRec, 'References'>): string[] {
  return pl.References.map((ref) => readReference(ref).id);
}

/**
 * `DELETE /policylists/<id>`: a list kept as one, or an HCN load balancer (deleted as
 * HcnDeleteLoadBalancer does); a missing one is ERROR_NOT_FOUND.
 */
export function deletePolicyList(hns: HnsService, id: string): void {
  if (hns.store.loadBalancers.has(id)) {
    hns.deleteLoadBalancer(id);
    return;
  }
  dropPolicyList(hns, getPolicyList(hns, id));
}

/** Commit-phase removal of a kept list: its endpoint references, ELB frontends and ID go. */
export function dropPolicyList(hns: HnsService, pl: PolicyListRec): void {
  releasePolicyList(hns.store, pl);
  hns.store.ids.delete(pl.ID);
  hns.changed('PolicyList', 'delete', pl.ID);
}

/** The table entry, endpoint references and ELB frontends of a kept list go (its ID stays taken). */
export function releasePolicyList(store: HnsStore, pl: PolicyListRec): void {
  const id = pl.ID;
  for (const ep of policyListEndpoints(pl)) store.dropRef(ep, id);
  for (const k of policyListClaims(pl)) if (store.lbClaims.get(k) === id) store.lbClaims.delete(k);
  store.policyLists.delete(id);
}
