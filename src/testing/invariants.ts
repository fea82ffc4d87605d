/**
 * Whole-state invariants of one host's HNS (reference hns-hcs.md §1, §6; DESIGN contracts 2, 5):
 * the seed of the leak audit. After any sequence of operations — failed ones included —
 * `checkInvariants(host)` must return `[]`; each violation is one line naming the object.
 *
 *   expect(checkInvariants(host)).toEqual([]);
 *
 * What is checked:
 * - IDs: unique across kinds, upper-case, each record filed under its own ID; creation sequence
 *   numbers unique and not beyond the store's counter.
 * - Networks: `networkByName` holds exactly the named networks (case-insensitive key); allocation
 *   state exists for exactly the networks; `alloc.endpoints` = the endpoints on the network.
 * - Pools: one IP pool per subnet, for that prefix; `used` = the pooled IpConfigurations in that
 *   subnet, each allocated, inside the subnet, held once; MAC pool `used` = the pooled MACs, each
 *   allocated and held once; `claims` = exactly the union of the endpoints' policy claims.
 * - References: an endpoint's network and namespace exist, the namespace lists it and every
 *   namespace Endpoint resource points back (membership symmetric, listed once); non-default
 *   compartments unique and below the next free one; `endpointRefs` = exactly the union of the
 *   LB, route and policy-list endpoint references; each LB and policy list keeps one address list
 *   per backend; `lbClaims` = exactly the frontends of the load balancers and v1 ELB policy lists.
 *   An LB, route or policy list naming a deleted endpoint or network is not a violation: HNS
 *   allows it (docs/model.md); the leak audit reports it (`endpoint-reference-stale`).
 * - Enumerations: each HcnEnumerate* returns the table's IDs in creation order (load balancers: the
 *   HCN ones and the v1 policy lists holding an ELB policy, one store in HNS).
 *
 * Everything but the enumerations is `auditStore` (src/hns/audit.ts), which snapshot restore uses too.
 */
import type { FlatApi } from '../api/flat.js';
import { HRESULTS } from '../core/errors.js';
import { auditStore } from '../hns/audit.js';
import { listLoadBalancers } from '../hns/loadbalancers.js';
import type { HnsService } from '../hns/service.js';

/** What the check needs of a host: its HNS service and flat API (a `Host` has both). */
export interface InvariantTarget {
  readonly hns: HnsService;
  readonly api: FlatApi;
}

/**
 * Every violated invariant of `host`'s HNS state, as readable lines; `[]` when consistent.
 * Read-only: it looks at the store and calls only the Enumerate functions of the flat API.
 */
export function checkInvariants(host: InvariantTarget): string[] {
  const s = host.hns.store;
  const out = auditStore(s);

  // ── enumerations = table contents, in creation order
  const enumerations: [string, () => { hr: number; result?: unknown }, ReadonlyMap<string, unknown>][] = [
    ['HcnEnumerateNetworks', () => host.api.HcnEnumerateNetworks(), s.networks],
    ['HcnEnumerateEndpoints', () => host.api.HcnEnumerateEndpoints(), s.endpoints],
    ['HcnEnumerateNamespaces', () => host.api.HcnEnumerateNamespaces(), s.namespaces],
    [
      'HcnEnumerateLoadBalancers',
      () => host.api.HcnEnumerateLoadBalancers(),
      new Map(listLoadBalancers(host.hns).map((lb) => [lb.ID, lb])),
    ],
    ['HcnEnumerateSdnRoutes', () => host.api.HcnEnumerateSdnRoutes(), s.routes],
  ];
  for (const [name, call, table] of enumerations) {
    const r = call();
    if (r.hr === HRESULTS.E_NOTIMPL.code) continue; // a host without the v2 API
    if (r.hr !== 0) {
      out.push(`${name}() failed with 0x${(r.hr >>> 0).toString(16)}`);
      continue;
    }
    const ids = r.result as string[];
    const want = [...table.keys()];
    if (ids.length !== want.length || ids.some((id, i) => id !== want[i])) {
      out.push(`${name}() = [${ids.join(', ')}], tables hold [${want.join(', ')}]`);
    }
  }
  return out;
}
