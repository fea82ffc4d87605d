/**
 * The HNS object tables with their indexes (DESIGN contract 5): by ID (upper-case GUID), network by
 * name (case-insensitive), endpoints by network, reverse references from endpoints to the load
 * balancers, SDN routes and policy lists that name them. Maps keep insertion order, which is
 * creation order: enumeration order. Beside the tables, the endpoints' traffic counters (what
 * `/endpointstats` reports, reference hns-hcs.md §3.2): runtime state the dataplane feeds, not part
 * of a snapshot.
 */
import { parseGuid } from '../core/guid.js';
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

/** The traffic counters of one endpoint, named as v1 `GET /endpointstats/<id>` names them. */
export interface EndpointCounters {
  BytesReceived: number;
  BytesSent: number;
  PacketsReceived: number;
  PacketsSent: number;
  DroppedPacketsIncoming: number;
  DroppedPacketsOutgoing: number;
}

/** Which counters a packet moves on an endpoint it crossed (the dataplane's walk records these). */
export type TrafficField = 'sent' | 'received' | 'droppedIn' | 'droppedOut';

/**
 * The counters of one endpoint incarnation: `seq` is the endpoint record's creation sequence, so an
 * entry left by a deleted endpoint is never read as the counters of a new one with the same ID.
 */
export class EndpointTraffic implements EndpointCounters {
  BytesReceived = 0;
  BytesSent = 0;
  PacketsReceived = 0;
  PacketsSent = 0;
  DroppedPacketsIncoming = 0;
  DroppedPacketsOutgoing = 0;

  constructor(public seq: number) {}
}

/**
 * The endpoint table: a Map by ID that also keeps the IDs of the endpoints with each name, and with
 * each GUID a name spells (any case, braces or not), so that a Name filter finds its endpoints
 * without reading the others. The index is kept by `set`, `delete` and `clear` themselves, so every
 * path that changes the table (service, restore, rebuild) keeps it exact. Records are immutable:
 * a change of name is a `set` of a new record.
 */
export class EndpointTable extends Map<string, EndpointRec> {
  /** Name → IDs of the endpoints so named (unnamed endpoints are not indexed). */
  readonly #byName: IdIndex = new Map();
  /** Canonical GUID a name parses as → IDs of the endpoints whose name parses as it. */
  readonly #byGuid: IdIndex = new Map();

  override set(id: string, rec: EndpointRec): this {
    const old = super.get(id);
    if (old === undefined || old.Name !== rec.Name) {
      if (old !== undefined) this.#unindex(id, old.Name);
      if (rec.Name !== '') {
        addTo(this.#byName, rec.Name, id);
        const g = parseGuid(rec.Name);
        if (g !== undefined) addTo(this.#byGuid, g, id);
      }
    }
    return super.set(id, rec);
  }

  override delete(id: string): boolean {
    const old = super.get(id);
    if (old === undefined) return false;
    this.#unindex(id, old.Name);
    return super.delete(id);
  }

  override clear(): void {
    this.#byName.clear();
    this.#byGuid.clear();
    super.clear();
  }

  /**
   * The IDs of the endpoints a Name filter of `name` can match: named exactly so, or (when `name`
   * is a GUID) named as the same GUID in another spelling. Unordered; `name` must not be empty.
   */
  idsNamed(name: string): string[] {
    const exact = this.#byName.get(name);
    const g = parseGuid(name);
    const same = g === undefined ? undefined : this.#byGuid.get(g);
    if (same === undefined) return idList(exact);
    if (exact === undefined) return idList(same);
    return [...new Set([...idList(exact), ...idList(same)])];
  }

  /**
   * How the name index differs from one built afresh from the records (`[]` when exact): the
   * store audit (src/hns/audit.ts) checks it after every change a test makes.
   */
  auditNameIndex(): string[] {
    const byName: IdIndex = new Map();
    const byGuid: IdIndex = new Map();
    for (const [id, rec] of super.entries()) {
      if (rec.Name === '') continue;
      addTo(byName, rec.Name, id);
      const g = parseGuid(rec.Name);
      if (g !== undefined) addTo(byGuid, g, id);
    }
    return [
      ...diffIndex('endpoint name index', this.#byName, byName),
      ...diffIndex('endpoint GUID-name index', this.#byGuid, byGuid),
    ];
  }

  #unindex(id: string, name: string): void {
    if (name === '') return;
    dropFrom(this.#byName, name, id);
    const g = parseGuid(name);
    if (g !== undefined) dropFrom(this.#byGuid, g, id);
  }
}

/**
 * Key → the IDs filed under it: one ID as a bare string (almost every name is unique: no set is
 * allocated for it), two or more as a set.
 */
type IdIndex = Map<string, string | Set<string>>;

function idList(v: string | ReadonlySet<string> | undefined): string[] {
  return v === undefined ? [] : typeof v === 'string' ? [v] : [...v];
}

function addTo(index: IdIndex, key: string, id: string): void {
  const v = index.get(key);
  if (v === undefined) index.set(key, id);
  else if (typeof v === 'string') {
    if (v !== id) index.set(key, new Set([v, id]));
  } else v.add(id);
}

function dropFrom(index: IdIndex, key: string, id: string): void {
  const v = index.get(key);
  if (v === undefined) return;
  if (typeof v === 'string') {
    if (v === id) index.delete(key);
    return;
  }
  v.delete(id);
  // back to a bare string when one is left (the audit compares contents, not representation)
  if (v.size === 1) index.set(key, v.values().next().value!);
  else if (v.size === 0) index.delete(key);
}

function diffIndex(what: string, have: IdIndex, want: IdIndex): string[] {
  const out: string[] = [];
  const show = (ids: string[]) => (ids.length ? ids.sort().join(', ') : 'nothing');
  for (const key of new Set([...have.keys(), ...want.keys()])) {
    const h = idList(have.get(key));
    const w = idList(want.get(key));
    if (h.length !== w.length || h.some((id) => !w.includes(id)))
      out.push(`${what}["${key}"] holds ${show(h)}, the endpoints so named are ${show(w)}`);
  }
  return out;
}

export class HnsStore {
  constructor(nics: HostNics = HostNics.create([])) {
    this.nics = nics;
  }

  readonly networks = new Map<string, NetworkRec>();
  readonly alloc = new Map<string, NetworkAlloc>();
  readonly networkByName = new Map<string, string>();
  /** Endpoints by ID; also indexes them by name (see `EndpointTable`). */
  readonly endpoints = new EndpointTable();
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
  /**
   * Bumped by every change of any table (service changes, restores): the vSwitch recompiles its
   * view when it moves, and flow-table entries of an older generation are stale.
   */
  generation = 0;

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

  /**
   * Endpoint ID → its traffic counters, created by the first `countTraffic`. Runtime state: not in
   * snapshots, emptied by `clear` and `assign` (a restore starts from zero), never moving
   * `generation` (counting is not a change of any table). Endpoint deletion happens in the service,
   * so an entry may outlive its endpoint; it is dropped when next touched or by the amortised sweep
   * of counting, and never counts for another endpoint (see `EndpointTraffic.seq`). Read it
   * through `statsOf`.
   */
  readonly stats = new Map<string, EndpointTraffic>();

  /**
   * Add `c` to the counters of the endpoint `endpointId` (the store's upper-case ID); an ID no
   * endpoint holds is ignored. The dataplane's hot path: two hash lookups, no allocation after an
   * endpoint's first packet (pass a reused object to avoid the caller's own).
   */
  countTraffic(endpointId: string, c: Partial<EndpointCounters>): void {
    const t = this.trafficOf(endpointId);
    if (t === undefined) return;
    if (c.BytesReceived) t.BytesReceived += c.BytesReceived;
    if (c.BytesSent) t.BytesSent += c.BytesSent;
    if (c.PacketsReceived) t.PacketsReceived += c.PacketsReceived;
    if (c.PacketsSent) t.PacketsSent += c.PacketsSent;
    if (c.DroppedPacketsIncoming) t.DroppedPacketsIncoming += c.DroppedPacketsIncoming;
    if (c.DroppedPacketsOutgoing) t.DroppedPacketsOutgoing += c.DroppedPacketsOutgoing;
  }

  /**
   * Count `packets` packets of `bytes` bytes each as the dataplane reports them (`field`): sent and
   * received move the packet and byte counters, a drop only the packet counter of its direction. The
   * one mapping from a walk's counter updates to `/endpointstats` (a host's and a cluster's traces).
   */
  countTrafficField(endpointId: string, field: TrafficField, packets: number, bytes: number): void {
    const t = this.trafficOf(endpointId);
    if (t === undefined) return;
    if (field === 'sent') {
      t.PacketsSent += packets;
      t.BytesSent += packets * bytes;
    } else if (field === 'received') {
      t.PacketsReceived += packets;
      t.BytesReceived += packets * bytes;
    } else if (field === 'droppedIn') t.DroppedPacketsIncoming += packets;
    else t.DroppedPacketsOutgoing += packets;
  }

  /** The counters of the live incarnation of an endpoint, created (or reset) on first use. */
  private trafficOf(endpointId: string): EndpointTraffic | undefined {
    const e = this.endpoints.get(endpointId);
    if (e === undefined) return undefined;
    let t = this.stats.get(endpointId);
    if (t === undefined) {
      t = new EndpointTraffic(e.seq);
      this.stats.set(endpointId, t);
      // entries of deleted endpoints: sweep when they could outnumber the live ones (amortised O(1))
      if (this.stats.size > 2 * this.endpoints.size + 16) this.sweepStats();
    } else if (t.seq !== e.seq) {
      zeroCounters(t);
      t.seq = e.seq;
    }
    return t;
  }

  /**
   * A copy of the endpoint's counters: zeros when it has none, or when `id` names no endpoint (an
   * entry left by a deleted endpoint is dropped here).
   */
  statsOf(id: string): EndpointCounters {
    const t = this.stats.get(id);
    if (t === undefined) return noTraffic();
    if (this.endpoints.get(id)?.seq !== t.seq) {
      this.stats.delete(id);
      return noTraffic();
    }
    return {
      BytesReceived: t.BytesReceived,
      BytesSent: t.BytesSent,
      PacketsReceived: t.PacketsReceived,
      PacketsSent: t.PacketsSent,
      DroppedPacketsIncoming: t.DroppedPacketsIncoming,
      DroppedPacketsOutgoing: t.DroppedPacketsOutgoing,
    };
  }

  /** Drop the counters of endpoints that no longer exist (or exist again under a new incarnation). */
  private sweepStats(): void {
    for (const [id, t] of this.stats) {
      if (this.endpoints.get(id)?.seq !== t.seq) this.stats.delete(id);
    }
  }

  /**
   * Take over every table of `other` (snapshot restore swaps a fully built store in). Traffic
   * counters are not taken over: runtime state, they start again from zero.
   */
  assign(other: HnsStore): void {
    this.clear(); // moves `generation`
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
    this.generation++;
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
    this.stats.clear();
  }
}

const EMPTY: ReadonlySet<string> = new Set();

function noTraffic(): EndpointCounters {
  return {
    BytesReceived: 0,
    BytesSent: 0,
    PacketsReceived: 0,
    PacketsSent: 0,
    DroppedPacketsIncoming: 0,
    DroppedPacketsOutgoing: 0,
  };
}

function zeroCounters(t: EndpointCounters): void {
  t.BytesReceived = 0;
  t.BytesSent = 0;
  t.PacketsReceived = 0;
  t.PacketsSent = 0;
  t.DroppedPacketsIncoming = 0;
  t.DroppedPacketsOutgoing = 0;
}
