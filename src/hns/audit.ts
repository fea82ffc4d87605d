/**
 * Whole-store consistency of one HNS (reference hns-hcs.md §1, §6; DESIGN contracts 2 and 5): IDs
 * unique across kinds, endpoints on existing networks and namespaces, namespace membership
 * symmetric, allocation pools, claims and indexes that agree with the objects. (A load balancer,
 * route or policy list naming a deleted endpoint is a state HNS allows, not an inconsistency.) Used
 * to validate a restored snapshot before it is swapped in, and by the public test kit
 * (`checkInvariants` in src/testing) after every operation.
 *
 *   auditStore(host.hns.store) // [] when consistent; one readable line per violation otherwise
 */
import { formatIp, ipKey, parseIp, prefixContains } from '../addr/ip.js';
import { formatMac } from '../addr/mac.js';
import { subnetsOf, type AnyRec } from './model.js';
import { policyClaims } from './policy/registry.js';
import { loadBalancerClaims } from './schema/loadbalancer.js';
import type { HnsStore } from './store.js';
import { auditNics } from './adapters.js';
import { policyListClaims, policyListEndpoints } from './v1/policylist.js';

function sameSet(a: Iterable<string>, b: Iterable<string>): boolean {
  const x = new Set(a);
  const y = new Set(b);
  if (x.size !== y.size) return false;
  for (const v of x) if (!y.has(v)) return false;
  return true;
}

function list(xs: Iterable<string>): string {
  return `[${[...xs].join(', ')}]`;
}

/** Every violated invariant of the store, as readable lines; `[]` when consistent. Read-only. */
export function auditStore(s: HnsStore): string[] {
  const out: string[] = [];

  // ── IDs unique across kinds, and each record filed under its own ID and kind
  const tables: [string, ReadonlyMap<string, AnyRec>][] = [
    ['Network', s.networks],
    ['Endpoint', s.endpoints],
    ['Namespace', s.namespaces],
    ['LoadBalancer', s.loadBalancers],
    ['SdnRoute', s.routes],
    ['PolicyList', s.policyLists],
  ];
  const allIds = new Set<string>();
  for (const [, table] of tables) for (const id of table.keys()) allIds.add(id);
  if (!sameSet(allIds, s.ids)) out.push(`ID index holds ${s.ids.size} IDs, tables hold ${allIds.size}`);
  const owner = new Map<string, string>();
  const seqs = new Map<number, string>();
  for (const [kind, table] of tables) {
    for (const [id, rec] of table) {
      if (rec.ID !== id) out.push(`${kind} filed under ${id} has ID ${rec.ID}`);
      if (rec.kind !== kind) out.push(`${kind} table holds a ${rec.kind} record ${id}`);
      if (id !== id.toUpperCase()) out.push(`${kind} ${id}: ID is not upper-case`);
      const prev = owner.get(id);
      if (prev) out.push(`ID ${id} is used by both a ${prev} and a ${kind}`);
      owner.set(id, kind);
      const other = seqs.get(rec.seq);
      if (other) out.push(`${kind} ${id}: creation sequence ${rec.seq} also used by ${other}`);
      seqs.set(rec.seq, id);
      if (rec.seq > s.seq) out.push(`${kind} ${id}: sequence ${rec.seq} is beyond the store's ${s.seq}`);
    }
  }

  // ── networks: name index, allocation state
  const named = [...s.networks.values()].filter((n) => n.Name !== '');
  for (const n of named) {
    const key = s.nameKey(n.Name);
    const indexed = s.networkByName.get(key);
    if (indexed !== n.ID)
      out.push(`networkByName["${key}"] is ${indexed ?? 'missing'}, expected network ${n.ID}`);
  }
  for (const [key, id] of s.networkByName) {
    const n = s.networks.get(id);
    if (!n) out.push(`networkByName["${key}"] names missing network ${id}`);
    else if (s.nameKey(n.Name) !== key)
      out.push(`networkByName["${key}"] names network ${id} called "${n.Name}"`);
  }
  if (s.networkByName.size !== named.length) {
    out.push(`networkByName has ${s.networkByName.size} entries for ${named.length} named networks`);
  }
  out.push(...s.endpoints.auditNameIndex());
  if (!sameSet(s.alloc.keys(), s.networks.keys())) {
    out.push(`allocation state exists for ${list(s.alloc.keys())}, networks are ${list(s.networks.keys())}`);
  }

  // ── adapters and vSwitches: each network with a switch carries its ID as SwitchGuid, a network
  // without one none
  out.push(...auditNics(s.nics, new Set(s.networks.keys())));
  for (const n of s.networks.values()) {
    const swId = s.nics.networkSwitch.get(n.ID);
    if (swId !== undefined && swId !== n.SwitchGuid)
      out.push(`network ${n.ID}: SwitchGuid ${n.SwitchGuid} is not its switch ${swId}`);
    if (swId === undefined && n.SwitchGuid !== '')
      out.push(`network ${n.ID} is on no switch but has SwitchGuid ${n.SwitchGuid}`);
  }

  for (const n of s.networks.values()) {
    const alloc = s.alloc.get(n.ID);
    if (!alloc) continue;
    const subs = subnetsOf(n);
    const members = [...s.endpoints.values()].filter((e) => e.HostComputeNetwork === n.ID);
    if (
      !sameSet(
        alloc.endpoints,
        members.map((e) => e.ID),
      )
    ) {
      out.push(
        `network ${n.ID}: endpoint index ${list(alloc.endpoints)} != endpoints on it ${list(members.map((e) => e.ID))}`,
      );
    }
    // IP pools: one per subnet, used = pooled IpConfigurations there, each pooled address allocated once
    if (alloc.pools.length !== subs.length) {
      out.push(`network ${n.ID}: ${alloc.pools.length} IP pools for ${subs.length} subnets`);
    }
    const pooled = subs.map(() => new Set<string>());
    for (const e of members) {
      for (const c of e.IpConfigurations) {
        if (!c.pooled) continue;
        const pool = alloc.pools[c.subnet];
        const sub = subs[c.subnet];
        if (!pool || !sub) {
          out.push(
            `endpoint ${e.ID}: pooled address ${c.IpAddress} names subnet #${c.subnet} of network ${n.ID}, which has ${subs.length}`,
          );
          continue;
        }
        if (!prefixContains(sub.prefix, c.addr)) {
          out.push(
            `endpoint ${e.ID}: pooled address ${c.IpAddress} is outside its subnet ${sub.IpAddressPrefix}`,
          );
        }
        const written = parseIp(c.IpAddress);
        if (!written || ipKey(written) !== ipKey(c.addr)) {
          out.push(
            `endpoint ${e.ID}: IpAddress "${c.IpAddress}" is not the address ${formatIp(c.addr)} it holds`,
          );
        }
        if (!pool.isAllocated(c.addr))
          out.push(
            `endpoint ${e.ID}: pooled address ${c.IpAddress} is not allocated in ${sub.IpAddressPrefix}`,
          );
        const key = ipKey(c.addr);
        if (pooled[c.subnet]!.has(key))
          out.push(`network ${n.ID}: address ${c.IpAddress} is held by two endpoints`);
        pooled[c.subnet]!.add(key);
      }
    }
    alloc.pools.forEach((pool, i) => {
      const sub = subs[i];
      if (
        sub &&
        (pool.prefix.family !== sub.prefix.family ||
          pool.prefix.addr !== sub.prefix.addr ||
          pool.prefix.len !== sub.prefix.len)
      ) {
        out.push(`network ${n.ID}: pool #${i} is for another prefix than subnet ${sub.IpAddressPrefix}`);
      }
      const want = pooled[i]?.size ?? 0;
      if (pool.used !== want) {
        out.push(
          `network ${n.ID}: pool of ${sub?.IpAddressPrefix ?? `#${i}`} has ${pool.used} addresses in use, endpoints hold ${want}`,
        );
      }
    });
    // MAC pool: used = pooled MACs, each allocated once
    const macs = new Set<number>();
    for (const e of members) {
      if (!e.macPooled) continue;
      if (!alloc.macs.isAllocated(e.mac))
        out.push(`endpoint ${e.ID}: pooled MAC ${e.MacAddress} is not allocated`);
      if (macs.has(e.mac)) out.push(`network ${n.ID}: MAC ${e.MacAddress} is held by two endpoints`);
      macs.add(e.mac);
      if (e.MacAddress !== formatMac(e.mac))
        out.push(`endpoint ${e.ID}: MacAddress ${e.MacAddress} != its number ${formatMac(e.mac)}`);
    }
    if (alloc.macs.used !== macs.size) {
      out.push(`network ${n.ID}: MAC pool has ${alloc.macs.used} in use, endpoints hold ${macs.size}`);
    }
    // unique claims (PortMapping host ports) = the union of the endpoints' policy claims
    const want = new Map<string, string>();
    for (const e of members) {
      for (const p of e.Policies) {
        for (const c of policyClaims(p)) {
          const prev = want.get(c.key);
          if (prev !== undefined)
            out.push(`network ${n.ID}: claim ${c.key} is made by endpoints ${prev} and ${e.ID}`);
          want.set(c.key, e.ID);
        }
      }
    }
    const have = alloc.claims;
    for (const [k, ep] of want) {
      if (have.get(k) !== ep)
        out.push(`network ${n.ID}: claim ${k} of endpoint ${ep} is recorded as ${have.get(k) ?? 'absent'}`);
    }
    for (const [k, ep] of have) {
      if (!want.has(k))
        out.push(`network ${n.ID}: claim ${k} recorded for ${ep} is made by no endpoint policy`);
    }
  }

  // ── endpoints ↔ networks, namespaces (membership symmetric)
  for (const e of s.endpoints.values()) {
    if (!s.networks.has(e.HostComputeNetwork))
      out.push(`endpoint ${e.ID}: network ${e.HostComputeNetwork} does not exist`);
    if (e.HostComputeNamespace !== undefined) {
      const ns = s.namespaces.get(e.HostComputeNamespace);
      if (!ns) out.push(`endpoint ${e.ID}: namespace ${e.HostComputeNamespace} does not exist`);
      else if (!ns.Resources.some((r) => r.Type === 'Endpoint' && r.ID === e.ID)) {
        out.push(`endpoint ${e.ID}: namespace ${ns.ID} does not list it`);
      }
    }
  }
  const compartments = new Map<number, string>();
  for (const ns of s.namespaces.values()) {
    const seen = new Set<string>();
    for (const r of ns.Resources) {
      if (r.Type !== 'Endpoint') continue;
      if (seen.has(r.ID)) out.push(`namespace ${ns.ID} lists endpoint ${r.ID} twice`);
      seen.add(r.ID);
      const e = s.endpoints.get(r.ID);
      if (!e) out.push(`namespace ${ns.ID} lists missing endpoint ${r.ID}`);
      else if (e.HostComputeNamespace !== ns.ID) {
        out.push(
          `namespace ${ns.ID} lists endpoint ${r.ID}, whose namespace is ${e.HostComputeNamespace ?? 'none'}`,
        );
      }
    }
    if (ns.NamespaceId !== 1) {
      const other = compartments.get(ns.NamespaceId);
      if (other) out.push(`namespaces ${other} and ${ns.ID} share compartment ${ns.NamespaceId}`);
      compartments.set(ns.NamespaceId, ns.ID);
      if (ns.NamespaceId >= s.nextCompartment) {
        out.push(
          `namespace ${ns.ID}: compartment ${ns.NamespaceId} is not below the next free one ${s.nextCompartment}`,
        );
      }
    }
  }

  // ── LBs, routes, policy lists: endpointRefs is exactly the union of their endpoint references.
  // A reference to a deleted endpoint (or network) is no inconsistency: HNS lets the endpoint go
  // and the referencing object keep naming it (docs/model.md; the leak audit reports it). Each
  // load balancer and list keeps one address list per backend.
  const refs = new Map<string, Set<string>>();
  const ref = (ep: string, by: string) => {
    let set = refs.get(ep);
    if (!set) refs.set(ep, (set = new Set()));
    set.add(by);
  };
  const dipsMatch = (what: string, dips: readonly (readonly string[])[], backends: number) => {
    if (dips.length !== backends)
      out.push(`${what}: ${dips.length} backend address lists for ${backends} backends`);
  };
  for (const lb of s.loadBalancers.values()) {
    for (const ep of lb.HostComputeEndpoints) ref(ep, lb.ID);
    dipsMatch(`load balancer ${lb.ID}`, lb.dips, lb.HostComputeEndpoints.length);
  }
  for (const rt of s.routes.values()) for (const ep of rt.HostComputeEndpoints) ref(ep, rt.ID);
  for (const pl of s.policyLists.values()) {
    for (const ep of policyListEndpoints(pl)) ref(ep, pl.ID);
    dipsMatch(`policy list ${pl.ID}`, pl.dips, pl.References.length);
  }
  for (const [ep, by] of refs) {
    const have = s.endpointRefs.get(ep);
    if (!have || !sameSet(have, by))
      out.push(`endpointRefs[${ep}] is ${list(have ?? [])}, expected ${list(by)}`);
  }
  for (const [ep, have] of s.endpointRefs) {
    if (!refs.has(ep)) out.push(`endpointRefs[${ep}] is ${list(have)} but nothing references it`);
  }

  // ── frontend claims (protocol/port/VIP) = recomputed from the load balancers and v1 ELB policy lists
  const lbWant = new Map<string, string>();
  const claim = (c: string, by: string) => {
    const prev = lbWant.get(c);
    if (prev !== undefined) out.push(`frontend ${c} is claimed by both ${prev} and ${by}`);
    lbWant.set(c, by);
  };
  for (const lb of s.loadBalancers.values()) for (const c of loadBalancerClaims(lb)) claim(c, lb.ID);
  for (const pl of s.policyLists.values()) for (const c of policyListClaims(pl)) claim(c, pl.ID);
  for (const [c, id] of lbWant) {
    if (s.lbClaims.get(c) !== id)
      out.push(`lbClaims[${c}] is ${s.lbClaims.get(c) ?? 'absent'}, expected ${id}`);
  }
  for (const [c, id] of s.lbClaims)
    if (!lbWant.has(c)) out.push(`lbClaims[${c}] → ${id} is claimed by nothing`);

  return out;
}
