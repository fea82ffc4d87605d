/**
 * HCN endpoints (reference hns-hcs.md §1.2, §6.4–§6.9, §6.11): create with addresses from the
 * network's pools and a MAC from its MAC pool, modify (policy requests, VM ports), delete. The
 * unique claims of an endpoint's policies (PortMapping host ports) live in its network's
 * allocation state; load balancers, SDN routes and policy lists that name an endpoint keep it.
 *
 *   createEndpoint(hns, networkId, null, { Name: 'ep', SchemaVersion: { Major: 2, Minor: 0 } })
 */
import { hnsError } from '../core/errors.js';
import { Reader, type JsonObject } from '../core/json.js';
import { formatIp, prefixContains, type IpAddr } from '../addr/ip.js';
import { formatMac } from '../addr/mac.js';
import type {
  DnsRec,
  EndpointRec,
  IpConfigRec,
  NetworkAlloc,
  NetworkRec,
  V1EndpointExtras,
} from './model.js';
import type { ParsedPolicy, PolicyContext } from './policy/contracts.js';
import { parsePolicies, policyClaims } from './policy/registry.js';
import { argGuid, dnsIsEmpty } from './schema/common.js';
import { isRemote, parseEndpoint, type EndpointDraft } from './schema/endpoint.js';
import { applyPolicyRequest, readRequestType } from './policy-request.js';
import { detachFromNamespace } from './namespaces.js';
import type { HnsService } from './service.js';

/** Shared empty list: most endpoints never get a v1 container attachment. */
const NO_CONTAINERS: readonly string[] = Object.freeze([]);
const NO_ADDR: IpAddr = { family: 4, value: 0 };

export function getEndpoint(hns: HnsService, id: string): EndpointRec {
  const e = hns.store.endpoints.get(id);
  if (!e) throw hnsError('HCN_E_ENDPOINT_NOT_FOUND', id);
  return e;
}

export interface CreateEndpointOptions {
  readonly v1?: boolean;
  readonly v1Extras?: V1EndpointExtras | undefined;
  /** Created through HNSCall (`POST /endpoints/`): hidden from schema-2 listings by network. */
  readonly createdV1?: boolean;
}

/**
 * Create an endpoint. `v1` marks a document that came through HNSCall or is v1-shaped (v1-only
 * policy types allowed); `v1Extras` are v1 fields with no v2 home.
 */
export function createEndpoint(
  hns: HnsService,
  networkArg: unknown,
  idArg: unknown,
  doc: JsonObject,
  opts: CreateEndpointOptions = {},
): EndpointRec {
  return hns.atomic(() => {
    const netFromArg = argGuid(networkArg);
    const given = argGuid(idArg);
    const netFromDoc = new Reader(doc, 'HCN_E_INVALID_ENDPOINT').optStr('HostComputeNetwork');
    const netRef = netFromDoc ? argGuid(netFromDoc) : undefined;
    if (netFromArg && netRef && netFromArg !== netRef) {
      throw hnsError(
        'HCN_E_INVALID_ENDPOINT',
        `HostComputeNetwork ${netRef} differs from the network ${netFromArg}`,
      );
    }
    const networkId = netFromArg ?? netRef;
    if (!networkId) throw hnsError('HCN_E_NETWORK_NOT_FOUND', 'no network given');
    const n = hns.getNetwork(networkId);
    const draft = parseEndpoint(doc, n, hns.profile.version, opts.v1 === true);
    return commitEndpoint(hns, n, given ?? draft.givenId, draft, opts.v1Extras, opts.createdV1 === true);
  });
}

function commitEndpoint(
  hns: HnsService,
  n: NetworkRec,
  givenId: string | undefined,
  d: EndpointDraft,
  v1Extras: V1EndpointExtras | undefined,
  createdV1 = false,
): EndpointRec {
  const store = hns.store;
  const alloc = store.alloc.get(n.ID)!;
  const subs = alloc.subnets;
  const remote = isRemote(d);
  // validate addresses
  const plan: {
    cfg: Omit<IpConfigRec, 'pooled' | 'subnet'>;
    subnet: number;
    pool: 'reserve' | 'allocate' | 'none';
  }[] = [];
  if (d.IpConfigurations.length) {
    for (const c of d.IpConfigurations) {
      const idx = subs.findIndex((s) => prefixContains(s.prefix, c.addr));
      if (remote) {
        plan.push({ cfg: c, subnet: idx, pool: 'none' });
        continue;
      }
      if (idx < 0) {
        if (subs.length)
          throw hnsError('HCN_E_INVALID_IP', `${c.IpAddress} is outside every subnet of ${n.ID}`);
        plan.push({ cfg: c, subnet: -1, pool: 'none' });
        continue;
      }
      const s = subs[idx]!;
      const pool = alloc.pools[idx]!;
      // an address another endpoint holds: "The object already exists." (0x1392, seen from win-bridge
      // and flannel when a pod got the cbr0 gateway endpoint's address); a reserved one: 0x803B002F
      if (pool.isAllocated(c.addr)) {
        throw hnsError('ERROR_OBJECT_ALREADY_EXISTS', `${c.IpAddress} is held by another endpoint`);
      }
      if (pool.isReserved(c.addr)) {
        throw hnsError('HCN_E_ADDR_INVALID_OR_RESERVED', `${c.IpAddress} is reserved`);
      }
      if (c.IpSubnetId && !s.IpSubnets.some((x) => x.ID === c.IpSubnetId)) {
        throw hnsError('HCN_E_INVALID_IP_SUBNET', `IpSubnetId ${c.IpSubnetId}`);
      }
      plan.push({
        cfg:
          c.PrefixLength === undefined
            ? { IpAddress: c.IpAddress, PrefixLength: s.prefix.len, IpSubnetId: c.IpSubnetId, addr: c.addr }
            : c,
        subnet: idx,
        pool: 'reserve',
      });
    }
  } else if (!remote) {
    // one address per family, from the first Static subnet of that family with a free address
    for (const family of [4, 6] as const) {
      let seen = false;
      let idx = -1;
      let i = 0;
      for (const ipam of n.Ipams) {
        for (const sub of ipam.Subnets) {
          if (idx < 0 && ipam.Type === 'Static' && sub.prefix.family === family) {
            seen = true;
            const pool = alloc.pools[i]!;
            if (pool.used < pool.size) idx = i;
          }
          i++;
        }
      }
      if (!seen) continue;
      if (idx < 0) throw hnsError('HCN_E_SUBNET_NOT_FOUND', `no free IPv${family} address in ${n.ID}`);
      plan.push({
        cfg: { IpAddress: '', PrefixLength: subs[idx]!.prefix.len, addr: NO_ADDR },
        subnet: idx,
        pool: 'allocate',
      });
    }
  }
  // duplicate addresses among remote endpoints are not checked (kube-proxy reprograms them freely)
  const claims = checkClaims(alloc, d.Policies, undefined);
  // MAC
  let mac: number | undefined = d.MacAddress?.mac;
  let macPooled = false;
  if (mac !== undefined) {
    if (!remote && alloc.macs.contains(mac)) {
      if (alloc.macs.isAllocated(mac))
        throw hnsError('HCN_E_ADDR_INVALID_OR_RESERVED', `MAC ${d.MacAddress!.text} is in use`);
      macPooled = true;
    }
  } else if (!remote) {
    if (alloc.macs.used >= alloc.macs.size)
      throw hnsError('HCN_E_ADDR_INVALID_OR_RESERVED', 'the MAC pool is exhausted');
    macPooled = true;
  }
  const id = hns.takeNewId(givenId, 'ERROR_ALREADY_EXISTS'); // last check; enters the ID index
  // commit (nothing below throws)
  const IpConfigurations: IpConfigRec[] = plan.map((p) => {
    const pool = p.subnet >= 0 ? alloc.pools[p.subnet]! : undefined;
    if (p.pool === 'allocate') {
      const addr = pool!.allocate()!;
      return {
        IpAddress: formatIp(addr),
        PrefixLength: p.cfg.PrefixLength!,
        addr,
        pooled: true,
        subnet: p.subnet,
      };
    }
    if (p.pool === 'reserve') pool!.reserve(p.cfg.addr);
    // the draft's fields in their order, then two more, written out: a copy that adds keys
    // (`{ ...p.cfg, pooled, subnet }`) takes V8's slow path
    const c = p.cfg;
    return {
      IpAddress: c.IpAddress,
      PrefixLength: c.PrefixLength,
      IpSubnetId: c.IpSubnetId,
      addr: c.addr,
      pooled: p.pool === 'reserve',
      subnet: p.subnet,
    };
  });
  if (mac === undefined && macPooled) mac = alloc.macs.allocate()!;
  else if (mac !== undefined && macPooled) alloc.macs.reserve(mac);
  for (const c of claims) alloc.claims.set(c, id);
  let Routes = d.Routes;
  if (!Routes.length && !remote) {
    // shared with the subnet when there is one address (records are immutable)
    Routes =
      IpConfigurations.length === 1
        ? IpConfigurations[0]!.subnet >= 0
          ? subs[IpConfigurations[0]!.subnet]!.Routes
          : Routes
        : IpConfigurations.flatMap((c) => (c.subnet >= 0 ? subs[c.subnet]!.Routes : []));
  }
  const Dns: DnsRec = dnsIsEmpty(d.Dns) && !remote ? n.Dns : d.Dns;
  const rec: EndpointRec = {
    kind: 'Endpoint',
    ID: id,
    Name: d.Name,
    HostComputeNetwork: n.ID,
    HostComputeNamespace: undefined,
    Policies: d.Policies,
    IpConfigurations,
    Dns,
    Routes,
    MacAddress: d.MacAddress ? d.MacAddress.text : mac === undefined ? '' : formatMac(mac),
    mac: mac ?? -1,
    macPooled,
    Flags: d.Flags,
    SchemaVersion: d.SchemaVersion,
    VmPort: undefined,
    SharedContainers: NO_CONTAINERS,
    v1Extras,
    created: hns.deps.clock.now(),
    seq: hns.nextSeq(),
    ...(createdV1 ? { createdV1: true as const } : {}),
  };
  store.endpoints.set(id, rec);
  alloc.endpoints.add(id);
  hns.changed('Endpoint', 'create', id, rec.Name);
  return rec;
}

export function modifyEndpoint(hns: HnsService, id: string, doc: JsonObject): EndpointRec {
  return hns.atomic(() => {
    const e = getEndpoint(hns, id);
    const n = hns.getNetwork(e.HostComputeNetwork);
    const r = new Reader(doc, 'HCN_E_INVALID_JSON');
    const resourceType = r.optStr('ResourceType') ?? '';
    const requestType = readRequestType(r);
    const settings = r.optObj('Settings') ?? new Reader({}, 'HCN_E_INVALID_JSON', '$.Settings');
    if (resourceType === 'Policy') {
      // an endpoint created through v1 may already hold v1-only types (VNET, Isolation); requests
      // through HCN v2 cannot add them
      const ctx: PolicyContext = { version: hns.profile.version, scope: 'endpoint', networkType: n.Type };
      const policies = parsePolicies(settings.optArr('Policies'), ctx);
      const next = applyPolicyRequest(e.Policies, policies, requestType, 'endpoint');
      return rebindPolicies(hns, e, next, undefined, `Policy ${requestType}`);
    }
    if (resourceType === 'Port') {
      if (requestType === 'Add') {
        const PortId = argGuid(settings.optStr('PortId') ?? '');
        const VirtualMachineId = argGuid(settings.optStr('VirtualMachineId') ?? '');
        const VirtualNicName = settings.optStr('VirtualNicName') ?? '';
        if (!PortId || !VirtualMachineId) throw settings.err('PortId and VirtualMachineId are required');
        if (e.VmPort) throw hnsError('HCN_E_ENDPOINT_ALREADY_ATTACHED', id);
        if (isRemote(e)) throw hnsError('HCN_E_INVALID_REMOTE_ENDPOINT_OPERATION', id);
        const rec = { ...e, VmPort: { PortId, VirtualMachineId, VirtualNicName } };
        hns.store.endpoints.set(id, rec);
        hns.changed('Endpoint', 'modify', id, 'Port Add');
        return rec;
      }
      if (requestType === 'Remove') {
        if (!e.VmPort) throw hnsError('HCN_E_ENDPOINT_NOT_ATTACHED', id);
        const rest: EndpointRec = { ...e, VmPort: undefined };
        hns.store.endpoints.set(id, rest);
        hns.changed('Endpoint', 'modify', id, 'Port Remove');
        return rest;
      }
      throw hnsError('HCN_E_REQUEST_UNSUPPORTED', `Port ${requestType}`);
    }
    throw hnsError('HCN_E_REQUEST_UNSUPPORTED', `endpoint ResourceType "${resourceType}"`);
  });
}

/**
 * Delete an endpoint: allowed while in a namespace (reference §6.9) and while load balancers, SDN
 * routes or v1 policy lists name it — they stay as they are, still naming it (a stale reference:
 * kubernetes#112836, docs/model.md "Endpoints").
 */
export function deleteEndpoint(hns: HnsService, id: string): void {
  hns.atomic(() => {
    getEndpoint(hns, id);
    removeEndpoint(hns, id);
  });
}

/**
 * Commit-phase removal: frees addresses, MAC and claims, leaves its namespace. The references
 * other objects hold to it (`store.endpointRefs`) stay: they still name it.
 */
export function removeEndpoint(hns: HnsService, id: string): void {
  const store = hns.store;
  const e = store.endpoints.get(id)!;
  const alloc = store.alloc.get(e.HostComputeNetwork)!;
  for (const c of e.IpConfigurations) if (c.pooled && c.subnet >= 0) alloc.pools[c.subnet]!.release(c.addr);
  if (e.macPooled) alloc.macs.release(e.mac);
  for (const k of claimsOf(e)) alloc.claims.delete(k);
  alloc.endpoints.delete(id);
  if (e.HostComputeNamespace) detachFromNamespace(hns, e.HostComputeNamespace, id);
  store.endpoints.delete(id);
  store.ids.delete(id);
  hns.changed('Endpoint', 'delete', id, e.Name);
}

/** The unique-claim keys an endpoint's policies hold (derived, so removal never scans the network). */
function claimsOf(e: EndpointRec): string[] {
  const out: string[] = [];
  for (const p of e.Policies) for (const c of policyClaims(p)) out.push(c.key);
  return out;
}

/**
 * The unique-claim keys `policies` would hold on endpoint `selfId` (undefined: a new endpoint). A
 * key another endpoint holds, or one claimed twice, fails with that claim's error.
 */
function checkClaims(
  alloc: NetworkAlloc,
  policies: readonly ParsedPolicy[],
  selfId: string | undefined,
): string[] {
  const keys: string[] = [];
  for (const p of policies) {
    for (const c of policyClaims(p)) {
      const owner = alloc.claims.get(c.key);
      if ((owner !== undefined && owner !== selfId) || keys.includes(c.key)) throw hnsError(c.error, c.key);
      keys.push(c.key);
    }
  }
  return keys;
}

/** Give an endpoint a new policy list (and DNS): validate its claims, then move them. */
function rebindPolicies(
  hns: HnsService,
  e: EndpointRec,
  policies: readonly ParsedPolicy[],
  dns: DnsRec | undefined,
  detail: string,
): EndpointRec {
  const alloc = hns.store.alloc.get(e.HostComputeNetwork)!;
  const keys = checkClaims(alloc, policies, e.ID);
  for (const k of claimsOf(e)) alloc.claims.delete(k);
  for (const k of keys) alloc.claims.set(k, e.ID);
  const rec: EndpointRec = { ...e, Policies: policies, Dns: dns ?? e.Dns };
  hns.store.endpoints.set(e.ID, rec);
  hns.changed('Endpoint', 'modify', e.ID, detail);
  return rec;
}

/** v1 attach bookkeeping (EndpointAttachDetachRequest). */
export function setSharedContainers(
  hns: HnsService,
  epId: string,
  containers: readonly string[],
): EndpointRec {
  const e = getEndpoint(hns, epId);
  const rec = { ...e, SharedContainers: [...containers] };
  hns.store.endpoints.set(epId, rec);
  hns.changed('Endpoint', 'modify', epId, 'attach');
  return rec;
}

/** Whole-endpoint replacement keeping addresses (v1 POST /endpoints/<id> update of policies/DNS). */
export function replaceEndpointPolicies(
  hns: HnsService,
  epId: string,
  policies: readonly ParsedPolicy[],
  dns?: DnsRec,
): EndpointRec {
  return hns.atomic(() => rebindPolicies(hns, getEndpoint(hns, epId), policies, dns, 'update'));
}
