/**
 * What survives an HNS service restart and a host reboot (reference hns-hcs.md §6.15), and a
 * whole-state snapshot that round-trips exactly. Evidence is thin and contradictory (HNS engineers:
 * "HNS does not persist networks and endpoints across reboots"; transparent networks seen to survive;
 * EnableNonPersistent networks removed at reboot; a service restart removed docker's endpoints), so
 * both events take a `RestartPolicy` with documented defaults (docs/model.md).
 */
import { hnsError } from '../core/errors.js';
import type { Json, JsonObject } from '../core/json.js';
import { isJsonObject } from '../core/json.js';
import { IpPool } from '../addr/pool.js';
import { MacPool } from '../addr/mac.js';
import type {
  EndpointRec,
  LoadBalancerRec,
  NamespaceRec,
  NetworkRec,
  PolicyListRec,
  SdnRouteRec,
} from './model.js';
import { dipsOf, subnetsOf } from './model.js';
import type { ParsedPolicy, PolicyContext, PolicyScope, NetworkType } from './policy/contracts.js';
import { parsePolicy, serializePolicy } from './policy/registry.js';
import type { HnsService } from './service.js';
import { formatVersion } from './versions.js';
import { NetworkFlags } from './schema/network.js';
import { loadBalancerClaims, parseLoadBalancer, serializeLoadBalancer } from './schema/loadbalancer.js';
import { parseSdnRoute, serializeSdnRoute } from './schema/route.js';
import { HnsStore } from './store.js';
import { HostNics, switchRequestOf } from './adapters.js';
import { Rng } from '../core/rng.js';
import { auditStore } from './audit.js';
import { deletePolicyList, policyListClaims, policyListEndpoints } from './v1/policylist.js';

export interface RestartPolicy {
  /** keep: all networks survive; keepPersistent: all but EnableNonPersistent (Flags 8); remove: none. */
  readonly networks: 'keep' | 'keepPersistent' | 'remove';
  readonly endpoints: 'keep' | 'remove';
  readonly namespaces: 'keep' | 'remove';
  readonly loadBalancers: 'keep' | 'remove';
  readonly routes: 'keep' | 'remove';
  readonly policyLists: 'keep' | 'remove';
}

/** The choices of each RestartPolicy key (what `restartHns`/`reboot` policies, RPC and scenarios accept). */
export const RESTART_CHOICES = {
  networks: ['keep', 'keepPersistent', 'remove'],
  endpoints: ['keep', 'remove'],
  namespaces: ['keep', 'remove'],
  loadBalancers: ['keep', 'remove'],
  routes: ['keep', 'remove'],
  policyLists: ['keep', 'remove'],
} as const satisfies { readonly [K in keyof RestartPolicy]-?: readonly RestartPolicy[K][] };

/** HNS service restart: networks stay, endpoints and the VFP-programmed objects go (calico#5164). */
export const SERVICE_RESTART_DEFAULT: RestartPolicy = {
  networks: 'keep',
  endpoints: 'remove',
  namespaces: 'keep',
  loadBalancers: 'remove',
  routes: 'remove',
  policyLists: 'remove',
};

/** Host reboot: non-persistent networks, every endpoint, compartment and LB go (Azure ACN#2911 …). */
export const REBOOT_DEFAULT: RestartPolicy = {
  networks: 'keepPersistent',
  endpoints: 'remove',
  namespaces: 'remove',
  loadBalancers: 'remove',
  routes: 'remove',
  policyLists: 'remove',
};

/** Remove what `policy` does not keep, in dependency order, emitting the usual events. */
export function applyRestart(hns: HnsService, policy: RestartPolicy): void {
  const s = hns.store;
  const doomedNetworks = new Set<string>();
  for (const n of s.networks.values()) {
    if (policy.networks === 'remove') doomedNetworks.add(n.ID);
    if (policy.networks === 'keepPersistent' && n.Flags & NetworkFlags.EnableNonPersistent)
      doomedNetworks.add(n.ID);
  }
  const doomedEndpoints = new Set<string>();
  for (const e of s.endpoints.values()) {
    if (policy.endpoints === 'remove' || doomedNetworks.has(e.HostComputeNetwork)) doomedEndpoints.add(e.ID);
  }
  // each kind follows its own key: a kept load balancer, route or list whose endpoints go stays,
  // naming them, as after any endpoint delete (docs/model.md)
  if (policy.loadBalancers === 'remove')
    for (const lb of [...s.loadBalancers.values()]) hns.deleteLoadBalancer(lb.ID);
  if (policy.routes === 'remove') for (const rt of [...s.routes.values()]) hns.deleteSdnRoute(rt.ID);
  if (policy.policyLists === 'remove')
    for (const pl of [...s.policyLists.values()]) deletePolicyList(hns, pl.ID);
  for (const id of doomedEndpoints) hns.deleteEndpoint(id);
  if (policy.namespaces === 'remove') {
    for (const ns of [...s.namespaces.values()]) hns.deleteNamespace(ns.ID);
    s.nextCompartment = 2;
  }
  for (const id of doomedNetworks) hns.deleteNetwork(id);
}

/**
 * A host reboot: `applyRestart` with the reboot's policy, then every surviving switch gets its
 * extensions' defaults back (the OVS extension is disabled after a reboot: ovs-windows.md §5 #3).
 */
export function applyReboot(hns: HnsService, policy: RestartPolicy): void {
  applyRestart(hns, policy);
  if (![...hns.store.nics.switches.values()].some((s) => s.Extensions)) return;
  hns.store.nics.resetExtensions();
  hns.store.generation++;
}

// ───────────────────────────── snapshots ─────────────────────────────

export const SNAPSHOT_FORMAT = 'hnsim.snapshot/1';

export interface HnsSnapshot extends JsonObject {
  format: string;
  version: string;
  rng: number[];
  clock: number;
  seq: number;
  nextCompartment: number;
  networks: Json[];
  endpoints: Json[];
  namespaces: Json[];
  loadBalancers: Json[];
  routes: Json[];
  policyLists: Json[];
  accelnetMacs: string[];
  /** Adapters and vSwitches (absent in snapshots of hnsim 0.1.0: rebuilt from the networks). */
  nics: Json;
  /** Simulated time until which the service is down after a restart (absent: up). */
  downUntil: Json;
}

/** bigint-safe plain-JSON encoding of records (bigint → {"$big":"…"}). */
function enc(v: unknown): Json {
  if (typeof v === 'bigint') return { $big: v.toString() };
  if (Array.isArray(v)) return v.map(enc);
  if (v instanceof Set) return { $set: [...v].map(enc) };
  if (typeof v === 'object' && v !== null) {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = enc(x);
    return out;
  }
  return v as Json;
}

function dec(v: Json): unknown {
  if (Array.isArray(v)) return v.map(dec);
  if (isJsonObject(v)) {
    if (typeof v.$big === 'string' && Object.keys(v).length === 1) return BigInt(v.$big);
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = dec(x);
    return out;
  }
  return v;
}

function encPolicies(ps: readonly ParsedPolicy[]): Json {
  return ps.map(serializePolicy);
}

function decPolicies(v: unknown, ctx: PolicyContext): ParsedPolicy[] {
  // stored policies may include v1-only types (VNET, Isolation) created through HNSCall
  return (v as Json[]).map((p) => parsePolicy(p, { ...ctx, v1: true }));
}

/** A network record with its policies serialised. */
function encNetworkRec(n: NetworkRec): Json {
  return enc({
    ...n,
    Policies: encPolicies(n.Policies),
    Ipams: n.Ipams.map((i) => ({
      ...i,
      Subnets: i.Subnets.map((sb) => ({ ...sb, Policies: encPolicies(sb.Policies) })),
    })),
  });
}

function encNetwork(hns: HnsService, n: NetworkRec): Json {
  const alloc = hns.store.alloc.get(n.ID)!;
  return {
    // the record is immutable; its allocation state is not
    rec: encoded(n, () => encNetworkRec(n)),
    ...(enc({
      pools: alloc.pools.map((p) => p.toJSON()),
      macs: alloc.macs.toJSON(),
      claims: [...alloc.claims],
      endpoints: [...alloc.endpoints],
    }) as JsonObject),
  };
}

/**
 * The tables packets are forwarded by, besides endpoints and load balancers (which a comparison
 * reads record by record), encoded as a snapshot encodes them: networks (without their address
 * pools), routes, policy lists, the adapters — not namespaces, allocation state, the RNG or the
 * clock (for comparing two states: src/analysis/reach-diff.ts).
 */
export function forwardingTables(hns: HnsService): JsonObject {
  const s = hns.store;
  return {
    networks: [...s.networks.values()].map(encNetworkRec),
    routes: [...s.routes.values()].map(enc),
    policyLists: [...s.policyLists.values()].map(enc),
    nics: s.nics.toJSON(),
  };
}

/**
 * Network, endpoint, namespace and load-balancer records are immutable (a change stores a new
 * record), so each is encoded once however many snapshots hold it (the web page's recorder takes
 * thousands).
 */
const ENCODED = new WeakMap<object, Json>();
function encoded(rec: object, encode: () => Json): Json {
  let j = ENCODED.get(rec);
  if (j === undefined) ENCODED.set(rec, (j = encode()));
  return j;
}

export function takeSnapshot(hns: HnsService): HnsSnapshot {
  const s = hns.store;
  return {
    format: SNAPSHOT_FORMAT,
    version: formatVersion(hns.profile.version),
    rng: hns.deps.rng.state(),
    clock: hns.deps.clock.now(),
    seq: s.seq,
    nextCompartment: s.nextCompartment,
    networks: [...s.networks.values()].map((n) => encNetwork(hns, n)),
    endpoints: [...s.endpoints.values()].map((e) =>
      encoded(e, () => enc({ ...e, Policies: encPolicies(e.Policies) })),
    ),
    namespaces: [...s.namespaces.values()].map((n) => encoded(n, () => enc(n))),
    loadBalancers: [...s.loadBalancers.values()].map((lb) => encoded(lb, () => enc(lb))),
    routes: [...s.routes.values()].map(enc),
    policyLists: [...s.policyLists.values()].map(enc),
    accelnetMacs: [...s.accelnetMacs],
    nics: s.nics.toJSON(),
    downUntil: hns.downUntil,
  };
}

/** Replace the whole state with a snapshot's. Invalid snapshots → E_INVALIDARG, state untouched. */
export function restoreSnapshot(hns: HnsService, input: unknown): void {
  if (!isJsonObject(input) || input.format !== SNAPSHOT_FORMAT) {
    throw hnsError('E_INVALIDARG', `not an ${SNAPSHOT_FORMAT} snapshot`);
  }
  const snap = input as HnsSnapshot;
  if (snap.version !== formatVersion(hns.profile.version)) {
    throw hnsError(
      'E_INVALIDARG',
      `snapshot of HNS ${snap.version} restored on HNS ${formatVersion(hns.profile.version)}`,
    );
  }
  const version = hns.profile.version;
  // build everything first, then swap in
  let built;
  try {
    const networks = snap.networks.map((raw) => {
      const x = dec(raw) as {
        rec: NetworkRec & {
          Policies: Json;
          Ipams: { Type: 'Static' | 'Dhcp'; Subnets: { Policies: Json }[] }[];
        };
        pools: unknown[];
        macs: unknown;
        claims: [string, string][];
        endpoints: string[];
      };
      const type = x.rec.Type as NetworkType;
      const ctx = (scope: PolicyScope): PolicyContext => ({ version, scope, networkType: type });
      const rec = {
        ...x.rec,
        Policies: decPolicies(x.rec.Policies, ctx('network')),
        Ipams: x.rec.Ipams.map((i) => ({
          ...i,
          Subnets: i.Subnets.map((sb) => ({ ...sb, Policies: decPolicies(sb.Policies, ctx('subnet')) })),
        })),
      } as unknown as NetworkRec;
      const alloc = {
        subnets: subnetsOf(rec),
        pools: x.pools.map((p) => IpPool.fromJSON(p)),
        macs: MacPool.fromJSON(x.macs),
        claims: new Map(x.claims),
        endpoints: new Set(x.endpoints),
      };
      return { rec, alloc };
    });
    const netType = new Map(networks.map((n) => [n.rec.ID, n.rec.Type]));
    const endpoints = snap.endpoints.map((raw) => {
      const e = dec(raw) as EndpointRec & { Policies: Json };
      const networkType = netType.get(e.HostComputeNetwork);
      if (!networkType) throw new Error(`endpoint ${e.ID} names a missing network`);
      // the key order of a freshly created record, so later changes serialise identically
      const shape = {
        kind: 'Endpoint',
        ID: '',
        Name: '',
        HostComputeNetwork: '',
        HostComputeNamespace: undefined,
        Policies: [],
        IpConfigurations: [],
        Dns: undefined,
        Routes: [],
        MacAddress: '',
        mac: -1,
        macPooled: false,
        Flags: 0,
        SchemaVersion: undefined,
        VmPort: undefined,
        SharedContainers: [],
        v1Extras: undefined,
        created: 0,
        seq: 0,
        createdV1: undefined,
      };
      const policies = decPolicies(e.Policies, { version, scope: 'endpoint', networkType });
      return Object.assign(shape, e, { Policies: policies }) as unknown as EndpointRec;
    });
    // a snapshot of hnsim 0.1 has no backend addresses: its load balancers' and lists' backends
    // all existed (0.1 refused to delete them), so their addresses are read from the endpoints
    const byId = new Map(endpoints.map((e) => [e.ID, e]));
    const withDips = <T extends { dips?: unknown }>(r: T, ids: readonly string[], what: string) => {
      if (r.dips !== undefined) {
        if (!isDipLists(r.dips)) throw new Error(`${what}: dips is not a list of address lists`);
        return r as T & { dips: string[][] };
      }
      const dips = ids.map((id) => {
        const e = byId.get(id);
        if (!e) throw new Error(`${what} names endpoint ${id}, which the snapshot does not have`);
        return dipsOf(e);
      });
      return { ...r, dips };
    };
    built = {
      networks,
      endpoints,
      namespaces: snap.namespaces.map((r) => dec(r) as NamespaceRec),
      loadBalancers: snap.loadBalancers.map((r) => {
        const lb = dec(r) as LoadBalancerRec;
        return withDips(lb, lb.HostComputeEndpoints, `load balancer ${lb.ID}`);
      }),
      routes: snap.routes.map((r) => dec(r) as SdnRouteRec),
      policyLists: snap.policyLists.map((r) => {
        const pl = dec(r) as PolicyListRec;
        return withDips(pl, policyListEndpoints(pl), `policy list ${pl.ID}`);
      }),
    };
  } catch (e) {
    throw hnsError('E_INVALIDARG', `corrupt snapshot: ${(e as Error).message}`);
  }
  // Fill a fresh store, derive its indexes, validate it; only then swap it in.
  let s: HnsStore;
  try {
    s = new HnsStore(
      snap.nics !== undefined
        ? HostNics.fromJSON(snap.nics)
        : legacyNics(
            hns,
            built.networks.map((n) => n.rec),
          ),
    );
  } catch (e) {
    throw hnsError('E_INVALIDARG', `corrupt snapshot: ${(e as Error).message}`);
  }
  try {
    for (const { rec, alloc } of built.networks) {
      s.networks.set(rec.ID, rec);
      s.alloc.set(rec.ID, alloc);
      if (rec.Name !== '') s.networkByName.set(s.nameKey(rec.Name), rec.ID);
    }
    for (const e of built.endpoints) s.endpoints.set(e.ID, e);
    for (const ns of built.namespaces) s.namespaces.set(ns.ID, ns);
    for (const lb of built.loadBalancers) {
      // re-parse: a corrupt load balancer fails here, not later in an index
      parseLoadBalancer(serializeLoadBalancer(lb), version);
      s.loadBalancers.set(lb.ID, lb);
    }
    for (const rt of built.routes) {
      parseSdnRoute(serializeSdnRoute(rt));
      s.routes.set(rt.ID, rt);
    }
    for (const pl of built.policyLists) s.policyLists.set(pl.ID, pl);
    s.reindexIds();
    rebuildIndexes(s);
    s.accelnetMacs = Array.isArray(snap.accelnetMacs) ? snap.accelnetMacs.map(String) : [];
    s.seq = snap.seq;
    s.nextCompartment = snap.nextCompartment;
    if (!Array.isArray(snap.rng) || snap.rng.length !== 4 || typeof snap.clock !== 'number') {
      throw new Error('bad rng or clock state');
    }
    const problems = auditStore(s);
    if (problems.length) throw new Error(problems.slice(0, 3).join('; '));
  } catch (e) {
    throw hnsError('E_INVALIDARG', `corrupt snapshot: ${(e as Error).message}`);
  }
  hns.store.assign(s);
  hns.deps.rng.setState(snap.rng as [number, number, number, number]);
  hns.deps.clock.setNow(snap.clock);
  hns.downUntil = typeof snap.downUntil === 'number' ? snap.downUntil : 0;
}

function isDipLists(v: unknown): v is string[][] {
  return Array.isArray(v) && v.every((l) => Array.isArray(l) && l.every((a) => typeof a === 'string'));
}

/**
 * Adapters and switches for a snapshot taken before hnsim modelled them: the host's physical
 * adapters, with each network (in creation order) put on the switch it would get now. Every network
 * takes its switch's ID (the first network on it) as its SwitchGuid, a network on no switch none
 * (records are rewritten in place, before anything is swapped in).
 */
function legacyNics(hns: HnsService, networks: NetworkRec[]): HostNics {
  const nics = HostNics.create(hns.physicalAdapters);
  const rng = new Rng(0);
  const order = [...networks].sort((a, b) => a.seq - b.seq);
  for (const n of order) {
    const plan = nics.plan(switchRequestOf(n.ID, n), rng);
    nics.commit(plan);
    (n as { SwitchGuid: string }).SwitchGuid = plan.switchId ?? '';
  }
  return nics;
}

/** Derived indexes: frontend claims and endpoint back-references, in creation order of their owners. */
function rebuildIndexes(s: HnsStore): void {
  const owners: { seq: number; id: string; endpoints: readonly string[]; claims: readonly string[] }[] = [];
  for (const lb of s.loadBalancers.values()) {
    owners.push({
      seq: lb.seq,
      id: lb.ID,
      endpoints: lb.HostComputeEndpoints,
      claims: loadBalancerClaims(lb),
    });
  }
  for (const rt of s.routes.values()) {
    owners.push({ seq: rt.seq, id: rt.ID, endpoints: [...new Set(rt.HostComputeEndpoints)], claims: [] });
  }
  for (const pl of s.policyLists.values()) {
    owners.push({ seq: pl.seq, id: pl.ID, endpoints: policyListEndpoints(pl), claims: policyListClaims(pl) });
  }
  owners.sort((a, b) => a.seq - b.seq);
  for (const o of owners) {
    for (const ep of o.endpoints) s.addRef(ep, o.id);
    for (const c of o.claims) {
      if (s.lbClaims.has(c)) throw new Error(`frontend ${c} is claimed twice`);
      s.lbClaims.set(c, o.id);
    }
  }
}
