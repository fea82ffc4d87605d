/**
 * Differential reachability (Batfish's `differentialReachability`): two states of a network —
 * snapshots, scenario steps, before and after a change — and, per source and destination, the
 * packets whose dispositions changed, each part with what it got before and what it gets after.
 *
 * Packets are compared by protocol and ports: a source or destination whose address changed
 * between the states (a pod recreated) is compared as "the packets it sends" / "the packets sent to
 * it", and the answer says the address moved. Both answers must share one `ReachContext`.
 */
import { FALSE } from './bdd.js';
import { ACL_FIELDS } from './space.js';
import type { PacketSet } from './acl.js';
import { hnsError, HnsError } from '../core/errors.js';
import type { Disposition } from '../vswitch/contracts.js';
import { ip4 } from '../vswitch/v4.js';
import type { Network } from './cuts.js';
import { Cluster } from '../cluster/cluster.js';
import type { Host } from '../host/host.js';
import type { EndpointRec, LoadBalancerRec } from '../hns/model.js';
import {
  analyzeReach,
  freeOf,
  pairSet,
  ReachContext,
  type ReachOptions,
  type Reachability,
} from './reach.js';

export interface ReachChange {
  /** The dispositions the packets got before and get after (more than one: a load balancer's choice). */
  readonly before: readonly Disposition[];
  readonly after: readonly Disposition[];
  /** The packets, addressed as the after state addresses them. */
  readonly set: PacketSet;
}

export interface ReachDiff {
  readonly from: string;
  readonly to: string;
  readonly unchanged: boolean;
  readonly changes: readonly ReachChange[];
  /** Both answers exact (else their notes say where). */
  readonly exact: boolean;
  readonly notes: readonly string[];
  /** Present when the pair exists in one state only (its source or destination is missing in the other). */
  readonly missing?: 'before' | 'after';
}

/** Compare two answers for the same source and destination (one context). */
export function diffReach(before: Reachability, after: Reachability): ReachDiff {
  if (before.space !== after.space)
    throw hnsError('E_INVALIDARG', 'compare reachability answers of one ReachContext (one space)');
  const space = after.space;
  const b = space.bdd;
  const addr = (r: Reachability) => ({ src: ip4(r.source) ?? 0, dst: ip4(r.destination) });
  const ab = addr(before);
  const aa = addr(after);
  // compared by protocol and ports: each answer's sets without its own addresses
  const free = (s: PacketSet, a: { src: number; dst: number | undefined }) => {
    const f = freeOf(s);
    if (f !== undefined) return f;
    const u = b.restrict(s.node, ACL_FIELDS.localIp.first, 32, a.src >>> 0);
    return a.dst === undefined ? u : b.restrict(u, ACL_FIELDS.remoteIp.first, 32, a.dst >>> 0);
  };
  const changes: ReachChange[] = [];
  for (const x of before.outcomes) {
    const px = free(x.set, ab);
    for (const y of after.outcomes) {
      if (x.dispositions.join() === y.dispositions.join()) continue;
      const both = b.and(px, free(y.set, aa));
      if (both !== FALSE)
        changes.push({
          before: x.dispositions,
          after: y.dispositions,
          set: pairSet(space, both, aa.src, aa.dst ?? ab.dst),
        });
    }
  }
  const notes = [...before.notes.map((n) => `before: ${n}`), ...after.notes.map((n) => `after: ${n}`)];
  if (before.source !== after.source)
    notes.push(`the source's address moved: ${before.source} → ${after.source}`);
  if (before.destination !== after.destination)
    notes.push(`the destination's address moved: ${before.destination} → ${after.destination}`);
  return {
    from: after.from,
    to: after.to,
    unchanged: changes.length === 0,
    changes,
    exact: before.exact && after.exact,
    notes,
  };
}

/**
 * The differential of every source and destination pair between two states of a network (a
 * source to itself skipped). A pair whose source or destination exists in one state only is
 * reported `missing` (its packets are all changed by definition).
 */
export function diffReachAll(
  before: Network,
  after: Network,
  sources: readonly string[],
  destinations: readonly string[],
  opts: ReachOptions = {},
): ReachDiff[] {
  return diffNamed({ net: before }, { net: after }, sources, destinations, opts);
}

/** A network with how its names are read, for comparing two states by name. */
export interface NamedNetwork {
  readonly net: Network;
  /** A name as the network's trace scope takes it (default: as given). */
  readonly ref?: (name: string) => string;
  /** Whether the name exists in this state (default: unless the analysis finds no such source). */
  readonly has?: (name: string) => boolean;
}

/** Reachability of a pair, the answer carrying the names as given (not the scope's references). */
export function reachNamed(n: NamedNetwork, from: string, to: string, opts: ReachOptions = {}): Reachability {
  const ref = n.ref ?? ((x: string) => x);
  const r = analyzeReach(n.net, { from: ref(from), to: ref(to) }, opts);
  return r.from === from && r.to === to ? r : { ...r, from, to };
}

/**
 * The differential of every source × destination (a source to itself skipped) between two states,
 * in one context. A pair whose source or destination exists in one state only is `missing`
 * (reported, never unchanged); one that exists in neither is left out.
 */
export function diffNamed(
  before: NamedNetwork,
  after: NamedNetwork,
  sources: readonly string[],
  destinations: readonly string[],
  opts: ReachOptions = {},
): ReachDiff[] {
  const o = { ...opts, context: opts.context ?? new ReachContext() };
  const reach = (n: NamedNetwork, from: string, to: string): Reachability | undefined => {
    if (n.has && !(n.has(from) && n.has(to))) return undefined;
    try {
      return reachNamed(n, from, to, o);
    } catch (e) {
      if (e instanceof HnsError && e.code === 'ERROR_NOT_FOUND') return undefined;
      throw e;
    }
  };
  const out: ReachDiff[] = [];
  for (const from of sources)
    for (const to of destinations) {
      if (from === to) continue;
      let x = reach(before, from, to);
      let y = reach(after, from, to);
      // (a destination that resolves in one state only — a pod or service there, not here — is
      // missing where it does not, not a name that stopped resolving)
      if (x && y && !x.destination !== !y.destination) {
        if (!x.destination) x = undefined;
        else y = undefined;
      }
      if (x && y) out.push(diffReach(x, y));
      else if (x || y) out.push(oneSided(from, to, x ? 'after' : 'before'));
    }
  return out;
}

/** A pair that exists in one state only: all its packets changed, by definition (`missing` says which). */
export function oneSided(from: string, to: string, missing: 'before' | 'after'): ReachDiff {
  return { from, to, unchanged: false, changes: [], exact: true, notes: [], missing };
}

/**
 * What differs between two states of a network, for a differential that analyses only the pairs a
 * change can touch: the addresses whose endpoint (its policies, its address, its network), load
 * balancer (a VIP's frontends and backends) or kube-proxy service changed, and whether anything
 * else differs (networks, routes, NetNat, OVS, Linux nodes' routes, NetworkPolicies, the nodes
 * themselves) — then every pair is analysed.
 */
export interface ReachDelta {
  /** Something beyond endpoints, load balancers and services changed: every pair may have. */
  readonly global: boolean;
  /** Addresses of endpoints that changed (as sources and as destinations). */
  readonly endpoints: ReadonlySet<number>;
  /** Destination addresses whose load balancing changed (VIPs; node addresses for NodePorts). */
  readonly destinations: ReadonlySet<number>;
}

/** What a Windows host forwards by, for comparison: its global part and its two big tables. */
interface HostTables {
  readonly global: string;
  readonly endpoints: readonly EndpointRec[];
  readonly lbs: readonly LoadBalancerRec[];
  endpoint(id: string): EndpointRec | undefined;
}

/** Texts of what a state forwards by outside its Windows hosts' tables, and those tables by host. */
interface Fingerprint {
  readonly global: string[];
  readonly hosts: Map<string, HostTables>;
  /** Linux nodes' pods and kube-proxy services, per address. */
  readonly endpoints: Map<number, string[]>;
  readonly vips: Map<number, string[]>;
}

function add(m: Map<number, string[]>, ip: number, text: string): void {
  const list = m.get(ip);
  if (list) list.push(text);
  else m.set(ip, [text]);
}

function fingerprint(net: Network): Fingerprint {
  const f: Fingerprint = { global: [], hosts: new Map(), endpoints: new Map(), vips: new Map() };
  const hosts: { name: string; host: Host }[] = [];
  if (net instanceof Cluster) {
    for (const n of net.allNodes()) {
      if (n.kind === 'Windows') hosts.push({ name: n.name, host: n.host });
      else {
        f.global.push(JSON.stringify([n.name, n.ip, n.podSubnet, n.node.routes]));
        for (const p of n.node.pods.values()) add(f.endpoints, p.ip, JSON.stringify([n.name, p]));
        for (const [key, svc] of n.node.services)
          add(f.vips, Number(key.split('/')[1]), JSON.stringify([n.name, key, svc]));
      }
    }
    f.global.push(JSON.stringify(net.networkPolicyList()));
  } else hosts.push({ name: net.name, host: net });
  for (const { name, host } of hosts) {
    const store = host.hns.store;
    f.hosts.set(name, {
      global: JSON.stringify(host.forwardingState()),
      endpoints: [...store.endpoints.values()],
      lbs: [...store.loadBalancers.values()],
      endpoint: (id) => store.endpoints.get(id),
    });
  }
  return f;
}

/** Records as text (bigints and sets written out where a record has them). */
function recordText(rec: unknown): string {
  try {
    return JSON.stringify(rec);
  } catch {
    return JSON.stringify(rec, (_k, v: unknown) =>
      typeof v === 'bigint' ? `${v}n` : v instanceof Set ? [...(v as Set<unknown>)] : v,
    );
  }
}

function endpointIps(configs: readonly { readonly IpAddress?: string }[] | undefined): number[] {
  const out: number[] = [];
  for (const c of configs ?? []) {
    const ip = c.IpAddress ? ip4(c.IpAddress) : undefined;
    if (ip !== undefined) out.push(ip);
  }
  return out;
}

function changedKeys(a: Map<number, string[]>, b: Map<number, string[]>, out: Set<number>): void {
  for (const k of new Set([...a.keys(), ...b.keys()])) if (!sameTexts(a.get(k), b.get(k))) out.add(k);
}

function sameTexts(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (!a || !b) return a === b;
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

/**
 * A host's endpoints and load balancers compared record by record (a table that is equal as a
 * whole, the usual case, costs one comparison): the addresses of endpoints that differ, and the
 * VIPs of load balancers that differ — with a backend's address counted as part of its load
 * balancer. A VIP-less load balancer (NodePort) that differs is global.
 */
function hostChanges(x: HostTables, y: HostTables, endpoints: Set<number>, vips: Set<number>): boolean {
  const sameEndpoints = recordText(x.endpoints) === recordText(y.endpoints);
  if (!sameEndpoints) {
    const byIp = (t: HostTables) => {
      const m = new Map<number, string[]>();
      for (const e of t.endpoints) {
        const text = recordText(e);
        for (const ip of endpointIps(e.IpConfigurations)) add(m, ip, text);
      }
      return m;
    };
    changedKeys(byIp(x), byIp(y), endpoints);
  }
  if (sameEndpoints && recordText(x.lbs) === recordText(y.lbs)) return false;
  let global = false;
  const byVip = (t: HostTables) => {
    const m = new Map<number, string[]>();
    for (const lb of t.lbs) {
      const backends = lb.HostComputeEndpoints.map((id) =>
        t.endpoint(id)?.IpConfigurations.map((c) => c.IpAddress),
      );
      const text = recordText(lb) + JSON.stringify(backends);
      const list = lb.FrontendVIPs.map((v) => ip4(v)).filter((v) => v !== undefined);
      if (!list.length) add(m, -1, text);
      for (const v of list) add(m, v, text);
    }
    return m;
  };
  const changed = new Set<number>();
  changedKeys(byVip(x), byVip(y), changed);
  for (const v of changed)
    if (v === -1) global = true;
    else vips.add(v);
  return global;
}

/** What differs between two states (see ReachDelta). */
export function reachDelta(before: Network, after: Network): ReachDelta {
  const x = fingerprint(before);
  const y = fingerprint(after);
  let global = x.global.length !== y.global.length || x.global.some((g, i) => g !== y.global[i]);
  const endpoints = new Set<number>();
  const destinations = new Set<number>();
  changedKeys(x.endpoints, y.endpoints, endpoints);
  changedKeys(x.vips, y.vips, destinations);
  if (x.hosts.size !== y.hosts.size) global = true;
  for (const [name, hx] of x.hosts) {
    const hy = y.hosts.get(name);
    if (!hy || hx.global !== hy.global) {
      global = true;
      continue;
    }
    if (hostChanges(hx, hy, endpoints, destinations)) global = true;
  }
  return { global, endpoints, destinations };
}

/**
 * The differential of the pairs a change can touch (`reachDelta`): every source to a destination
 * whose endpoint or load balancing changed, and every pair whose source changed — or all pairs when
 * something global changed. The pairs left out keep their reachability by construction: nothing
 * their packets meet differs.
 */
export function diffReachChanged(
  before: Network,
  after: Network,
  sources: readonly string[],
  destinations: readonly string[],
  opts: ReachOptions = {},
): { readonly delta: ReachDelta; readonly pairs: number; readonly diffs: ReachDiff[] } {
  const delta = reachDelta(before, after);
  if (delta.global) {
    const diffs = diffReachAll(before, after, sources, destinations, opts);
    return { delta, pairs: diffs.length, diffs };
  }
  const addresses = (ref: string, asSource: boolean): number[] =>
    [before, after].flatMap((net) => {
      const a = addressOf(net, ref, asSource, sources[0] ?? ref);
      return a === undefined ? [] : [a];
    });
  const touched = (ips: number[], set: ReadonlySet<number>) => ips.some((ip) => set.has(ip));
  const srcHit = sources.filter((s) => touched(addresses(s, true), delta.endpoints));
  const dstHit = destinations.filter((d) => {
    const ips = addresses(d, false);
    return touched(ips, delta.endpoints) || touched(ips, delta.destinations);
  });
  const context = opts.context ?? new ReachContext();
  const o = { ...opts, context };
  const seen = new Set<string>();
  const diffs: ReachDiff[] = [];
  const run = (from: string, tos: readonly string[]) => {
    const fresh = tos.filter((to) => !seen.has(`${from}\n${to}`));
    for (const to of fresh) seen.add(`${from}\n${to}`);
    diffs.push(...diffReachAll(before, after, [from], fresh, o));
  };
  for (const from of srcHit) run(from, destinations);
  for (const from of sources) run(from, dstHit);
  return { delta, pairs: seen.size, diffs };
}

/** The address a source or destination reference has in a state (undefined: not there). */
function addressOf(net: Network, ref: string, asSource: boolean, anySource: string): number | undefined {
  try {
    const p = net.probeAddresses(asSource ? { from: ref, to: '192.0.2.1' } : { from: anySource, to: ref });
    return asSource ? p.source : p.destination;
  } catch (e) {
    if (e instanceof HnsError && e.code === 'ERROR_NOT_FOUND') return undefined;
    throw e;
  }
}
