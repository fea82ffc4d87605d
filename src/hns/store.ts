/**
 * The HNS object tables with their indexes (DESIGN contract 5): by ID (upper-case GUID), network by
 * name (case-insensitive), endpoints by network, reverse references from endpoints to the load
 * balancers, SDN routes and policy lists that name them. Maps keep insertion order, which is
 * creation order: enumeration order.
 */
import { HostNics } from './adapters.js';
import type {
  EndpointRec,
  LoadBalancerRec,
  NamespaceRec,
  NetworkAlloc,
  NetworkRec,
  PolicyListRec,
  SdnRouteRec,
} from './model.js';

export class HnsStore {
  constructor(nics: HostNics = HostNics.create([])) {
    this.nics = nics;
  }

  readonly networks = new Map<string, NetworkRec>();
  readonly alloc = new Map<string, NetworkAlloc>();
  readonly networkByName = new Map<string, string>();
  readonly endpoints = new Map<string, EndpointRec>();
  readonly namespaces = new Map<string, NamespaceRec>();
  readonly loadBalancers = new Map<string, LoadBalancerRec>();
  /** LB frontend claims (protocol/port/VIP) → LB ID. */
  readonly lbClaims = new Map<string, string>();
  readonly routes = new Map<string, SdnRouteRec>();
  readonly policyLists = new Map<string, PolicyListRec>();
  /** Endpoint ID → IDs of LBs, routes and policy lists that reference it. */
  readonly endpointRefs = new Map<string, Set<string>>();
  /** Accelnet management MAC addresses (v1 `/accelnet/`, HNS ≥ 15.4), canonical dash form. */
  accelnetMacs: string[] = [];
  /** The host's adapters and the vSwitches networks sit on (src/hns/adapters.ts). */
  readonly nics: HostNics;
  seq = 0;
  nextCompartment = 2;

  nameKey(name: string): string {
    return name.toLowerCase();
  }

  addRef(endpointId: string, ownerId: string): void {
    let s = this.endpointRefs.get(endpointId);
    if (!s) this.endpointRefs.set(endpointId, (s = new Set()));
    s.add(ownerId);
  }

  dropRef(endpointId: string, ownerId: string): void {
    const s = this.endpointRefs.get(endpointId);
    if (!s) return;
    s.delete(ownerId);
    if (s.size === 0) this.endpointRefs.delete(endpointId);
  }

  refsOf(endpointId: string): ReadonlySet<string> {
    return this.endpointRefs.get(endpointId) ?? EMPTY;
  }

  /** Every live object ID, of any kind (IDs are unique across kinds): one lookup per new ID. */
  readonly ids = new Set<string>();

  /** Rebuild the ID index from the tables (after filling them directly). */
  reindexIds(): void {
    this.ids.clear();
    const tables = [
      this.networks,
      this.endpoints,
      this.namespaces,
      this.loadBalancers,
      this.routes,
      this.policyLists,
    ];
    for (const table of tables) for (const id of table.keys()) this.ids.add(id);
  }

  /** Whether an ID is taken by any object kind. */
  idTaken(id: string): boolean {
    return this.ids.has(id);
  }

  /** Take over every table of `other` (snapshot restore swaps a fully built store in). */
  assign(other: HnsStore): void {
    this.clear();
    for (const [k, v] of other.networks) this.networks.set(k, v);
    for (const [k, v] of other.alloc) this.alloc.set(k, v);
    for (const [k, v] of other.networkByName) this.networkByName.set(k, v);
    for (const [k, v] of other.endpoints) this.endpoints.set(k, v);
    for (const [k, v] of other.namespaces) this.namespaces.set(k, v);
    for (const [k, v] of other.loadBalancers) this.loadBalancers.set(k, v);
    for (const [k, v] of other.lbClaims) this.lbClaims.set(k, v);
    for (const [k, v] of other.routes) this.routes.set(k, v);
    for (const [k, v] of other.policyLists) this.policyLists.set(k, v);
    for (const [k, v] of other.endpointRefs) this.endpointRefs.set(k, v);
    this.reindexIds();
    this.accelnetMacs = [...other.accelnetMacs];
    this.nics.assign(other.nics);
    this.seq = other.seq;
    this.nextCompartment = other.nextCompartment;
  }

  clear(): void {
    this.networks.clear();
    this.alloc.clear();
    this.networkByName.clear();
    this.endpoints.clear();
    this.namespaces.clear();
    this.loadBalancers.clear();
    this.lbClaims.clear();
    this.routes.clear();
    this.policyLists.clear();
    this.endpointRefs.clear();
    this.ids.clear();
    this.accelnetMacs = [];
  }
}

const EMPTY: ReadonlySet<string> = new Set();
