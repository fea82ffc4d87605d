/**
 * The Host Networking Service: every HCN v2 operation on networks, endpoints, namespaces, load
 * balancers and SDN routes (reference hns-hcs.md §1, §6). Each operation validates everything first
 * and then commits; a failure leaves the state exactly as it was (DESIGN contract 2). Lookups are
 * indexed (HnsStore); IP and MAC allocation is amortised O(1) (src/addr).
 */
import { hnsError, type HResultName } from '../core/errors.js';
import { newGuid } from '../core/guid.js';
import type { Clock } from '../core/clock.js';
import type { EventBus, HcnNotificationName, HnsChangeEvent } from '../core/events.js';
import { HcnNotification } from '../core/events.js';
import { Reader, type JsonObject } from '../core/json.js';
import type { Rng } from '../core/rng.js';
import { formatIp, prefixContains, prefixOverlaps, type IpAddr, type Prefix } from '../addr/ip.js';
import { IpPool } from '../addr/pool.js';
import { HYPERV_OUI, MacPool, defaultMacRange, formatMac } from '../addr/mac.js';
import type {
  DnsRec,
  EndpointRec,
  IpConfigRec,
  LoadBalancerRec,
  MacRangeRec,
  NamespaceRec,
  NamespaceResourceRec,
  NetworkAlloc,
  NetworkRec,
  RouteRec,
  SdnRouteRec,
  SubnetRec,
  V1EndpointExtras,
  V1NetworkExtras,
} from './model.js';
import { subnetsOf } from './model.js';
import type { ParsedPolicy, PolicyContext } from './policy/contracts.js';
import type { SetPolicySettings } from './policy/network/set-policy.js';
import type { AclSettings } from './policy/endpoint/acl.js';
import type { TierAclSettings } from './policy/endpoint/tier-acl.js';
import type { RuleMatch } from './policy/rule-match.js';
import {
  assertSingleInstances,
  parsePolicies,
  policyClaims,
  policyKey,
  updateMode,
} from './policy/registry.js';
import { dnsIsEmpty, argGuid, readDns } from './schema/common.js';
import { parseEndpoint, isRemote, unresolvedAddresses, type EndpointDraft } from './schema/endpoint.js';
import { parseLoadBalancer, loadBalancerClaims } from './schema/loadbalancer.js';
import { parseNamespace } from './schema/namespace.js';
import { parseNetwork, parseSubnetDoc, type HostContext } from './schema/network.js';
import { parseSdnRoute } from './schema/route.js';
import { HnsStore } from './store.js';
import { HostNics, parseAdapterSpecs, switchRequestOf, type NetAdapterRec } from './adapters.js';
import { compareVersion, supports, type HostProfile } from './versions.js';

export interface HnsServiceDeps {
  readonly profile: HostProfile;
  readonly rng: Rng;
  readonly clock: Clock;
  readonly events: EventBus;
  /** The host's physical adapters (parseAdapterSpecs); default: one seed-1 `Ethernet`. */
  readonly adapters?: readonly NetAdapterRec[];
}

type RequestType = 'Add' | 'Remove' | 'Update' | 'Refresh';

/** Shared empty list: most endpoints never get a v1 container attachment. */
const NO_CONTAINERS: readonly string[] = Object.freeze([]);
const NO_ADDR: IpAddr = { family: 4, value: 0 };
const REQUEST_TYPES: readonly RequestType[] = ['Add', 'Remove', 'Update', 'Refresh'];

export class HnsService {
  readonly store: HnsStore;
  /** The host's physical adapters, as the service started with them (a legacy snapshot's too). */
  readonly physicalAdapters: readonly NetAdapterRec[];
  /** How many times the service has restarted (a call held across a restart is cut off). */
  epoch = 0;
  /** Simulated time until which the service is down after a restart (calls fail meanwhile). */
  downUntil = 0;

  constructor(readonly deps: HnsServiceDeps) {
    this.physicalAdapters = deps.adapters ?? parseAdapterSpecs(undefined, 1);
    this.store = new HnsStore(HostNics.create(this.physicalAdapters));
  }

  get profile(): HostProfile {
    return this.deps.profile;
  }

  /** Whether the service is stopped (restarting): callers get RPC_S_SERVER_UNAVAILABLE. */
  isDown(): boolean {
    return this.deps.clock.now() < this.downUntil;
  }

  /** Mark a restart: in-flight calls are cut off, and the service is down for `downtimeMs`. */
  beginRestart(downtimeMs: number): void {
    this.epoch++;
    this.downUntil = this.deps.clock.now() + downtimeMs;
    this.notify('ServiceDisconnect', {});
  }

  /** The name of the object with this ID, if it has one (the fault layer's `name` matcher). */
  nameOf(id: string): string | undefined {
    const s = this.store;
    const rec = s.networks.get(id) ?? s.endpoints.get(id);
    return rec?.Name || undefined;
  }

  private get host(): HostContext {
    return { version: this.deps.profile.version, schema: this.deps.profile.schema, rng: this.deps.rng };
  }

  /** Run `fn` atomically: validation throws before any table changes; the RNG is rolled back too. */
  atomic<T>(fn: () => T): T {
    const saved = this.deps.rng.state();
    try {
      return fn();
    } catch (e) {
      this.deps.rng.setState(saved);
      throw e;
    }
  }

  private nextSeq(): number {
    return ++this.store.seq;
  }

  private newId(given: string | undefined, existsCode: HResultName): string {
    if (given) {
      if (this.store.idTaken(given)) throw hnsError(existsCode, `ID ${given} is in use`);
      return given;
    }
    let id = newGuid(this.deps.rng);
    while (this.store.idTaken(id)) id = newGuid(this.deps.rng);
    return id;
  }

  /**
   * `newId` that also enters the ID in the index, in one hash operation (the endpoint hot path). Only
   * for the last step of validation: nothing after it may throw.
   */
  private takeNewId(given: string | undefined, existsCode: HResultName): string {
    const ids = this.store.ids;
    if (given) {
      const before = ids.size;
      ids.add(given);
      if (ids.size === before) throw hnsError(existsCode, `ID ${given} is in use`);
      return given;
    }
    for (;;) {
      const id = newGuid(this.deps.rng);
      const before = ids.size;
      ids.add(id);
      if (ids.size !== before) return id;
    }
  }

  private notify(notification: HcnNotificationName, data: Record<string, string | number>): void {
    if (this.deps.events.listenerCount('hns.notification') === 0) return;
    this.deps.events.emit('hns.notification', {
      notification,
      code: HcnNotification[notification],
      time: this.deps.clock.now(),
      data,
    });
  }

  /**
   * Record a change of the tables: moves the store's `generation` (the vSwitch view and flow-table
   * entries of older generations go stale) and reports an `hns.change` event. Every change of an
   * object table ends in one call (the v1 policy lists' too).
   */
  changed(kind: HnsChangeEvent['kind'], op: HnsChangeEvent['op'], id: string, detail?: string): void {
    this.store.generation++;
    if (this.deps.events.listenerCount('hns.change') === 0) return;
    const time = this.deps.clock.now();
    this.deps.events.emit('hns.change', detail ? { kind, op, id, time, detail } : { kind, op, id, time });
  }

  // ───────────────────────────── networks ─────────────────────────────

  getNetwork(id: string): NetworkRec {
    const n = this.store.networks.get(id);
    if (!n) throw hnsError('HCN_E_NETWORK_NOT_FOUND', id);
    return n;
  }

  /** Create a network; `v1Extras` are v1 fields with no v2 home (HNSCall and v1-shaped documents). */
  createNetwork(idArg: unknown, doc: JsonObject, v1Extras?: V1NetworkExtras): NetworkRec {
    return this.atomic(() => {
      const given = argGuid(idArg);
      const draft = parseNetwork(doc, this.host);
      const key = this.store.nameKey(draft.Name);
      if (draft.Name !== '' && this.store.networkByName.has(key)) {
        throw hnsError('HCN_E_NETWORK_ALREADY_EXISTS', `"${draft.Name}"`);
      }
      let ipams = draft.Ipams;
      let defaultSubnet = false;
      if (ipams.length === 0 && draft.Type === 'NAT') {
        ipams = [{ Type: 'Static', Subnets: [this.chooseNatSubnet()] }];
        defaultSubnet = true;
      }
      const id = this.newId(given ?? draft.givenId, 'HCN_E_NETWORK_ALREADY_EXISTS');
      const macRanges = draft.MacRanges.length ? draft.MacRanges : [this.defaultMacRange()];
      const plan = this.store.nics.plan(switchRequestOf(id, { ...draft, Ipams: ipams }), this.deps.rng);
      const { givenId: _g, ...rest } = draft;
      const rec: NetworkRec = {
        ...rest,
        ID: id,
        Ipams: ipams,
        MacRanges: macRanges,
        SwitchGuid: plan.switchId ?? newGuid(this.deps.rng),
        LayeredOn: newGuid(this.deps.rng),
        defaultSubnet,
        // HNS gives an Overlay network a distributed-router MAC (vfp-dataplane.md §5)
        ...(draft.Type === 'Overlay' ? { DrMacAddress: formatMac(this.drMac(macRanges)) } : {}),
        ...(v1Extras ? { v1Extras } : {}),
        created: this.deps.clock.now(),
        seq: this.nextSeq(),
      };
      // commit
      this.notify('NetworkPreCreate', { ID: id });
      this.store.nics.commit(plan);
      this.store.networks.set(id, rec);
      this.store.ids.add(id);
      if (rec.Name !== '') this.store.networkByName.set(key, id);
      this.store.alloc.set(id, this.freshAlloc(rec));
      this.notify('NetworkCreate', { ID: id });
      this.changed('Network', 'create', id, rec.Name);
      return rec;
    });
  }

  private freshAlloc(n: NetworkRec): NetworkAlloc {
    const subnets = subnetsOf(n);
    return {
      subnets,
      pools: subnets.map((s) => this.poolFor(s)),
      macs: new MacPool(n.MacRanges.map((m) => ({ start: m.start, end: m.end }))),
      claims: new Map(),
      endpoints: new Set(),
    };
  }

  private poolFor(s: SubnetRec): IpPool {
    const reserveGw = s.gateway && (s.Flags & 1) === 0;
    return new IpPool(s.prefix, { reserved: reserveGw && s.gateway ? [s.gateway] : [] });
  }

  /** HNS picks a private /20 for a NAT network created without Ipams (reference §6.6). */
  private chooseNatSubnet(): SubnetRec {
    const taken: Prefix[] = [];
    for (const n of this.store.networks.values()) for (const s of subnetsOf(n)) taken.push(s.prefix);
    // 172.16.0.0/12 carved into /20s, starting at a seeded offset, like Docker's default nat (172.29.144.0/20).
    const count = 256;
    const start = this.deps.rng.nextInt(count);
    for (let i = 0; i < count; i++) {
      const idx = (start + i) % count;
      const addr = ((172 << 24) | (16 << 16)) + idx * 4096;
      const prefix: Prefix = { family: 4, addr: addr >>> 0, len: 20 };
      if (taken.some((t) => prefixOverlaps(t, prefix))) continue;
      const gw: IpAddr = { family: 4, value: (addr + 1) >>> 0 };
      const text = `${formatIp({ family: 4, value: addr >>> 0 })}/20`;
      const route: RouteRec = {
        NextHop: formatIp(gw),
        DestinationPrefix: '0.0.0.0/0',
        dest: { family: 4, addr: 0, len: 0 },
        nextHop: gw,
      };
      return {
        ID: newGuid(this.deps.rng),
        IpAddressPrefix: text,
        prefix,
        Policies: [],
        Routes: [route],
        Flags: 0,
        IpSubnets: [],
        gateway: gw,
      };
    }
    throw hnsError('HCN_E_SUBNET_NOT_FOUND', 'no free 172.16.0.0/12 subnet for a default NAT network');
  }

  /** A fresh Hyper-V MAC (00-15-5D) in no network's MacPool range. */
  private drMac(own: readonly MacRangeRec[]): number {
    const ranges: { start: number; end: number }[] = [...own];
    for (const n of this.store.networks.values()) ranges.push(...n.MacRanges);
    for (;;) {
      const mac = HYPERV_OUI * 0x1000000 + this.deps.rng.nextInt(0x1000000);
      if (!ranges.some((r) => mac >= r.start && mac <= r.end)) return mac;
    }
  }

  private defaultMacRange(): NetworkRec['MacRanges'][number] {
    const used = new Set<number>();
    for (const n of this.store.networks.values()) for (const m of n.MacRanges) used.add(m.start);
    for (let tries = 0; tries < 64; tries++) {
      const r = defaultMacRange(this.deps.rng);
      if (used.has(r.start)) continue;
      return {
        StartMacAddress: formatMac(r.start),
        EndMacAddress: formatMac(r.end),
        start: r.start,
        end: r.end,
      };
    }
    throw hnsError('HCN_E_INVALID_NETWORK', 'no free default MAC range');
  }

  modifyNetwork(id: string, doc: JsonObject): NetworkRec {
    return this.atomic(() => {
      const n = this.getNetwork(id);
      const r = new Reader(doc, 'HCN_E_INVALID_JSON');
      const resourceType = r.optStr('ResourceType') ?? '';
      const requestType = this.requestType(r);
      const settings = r.optObj('Settings') ?? new Reader({}, 'HCN_E_INVALID_JSON', '$.Settings');
      let next: NetworkRec;
      switch (resourceType) {
        case 'Policy': {
          const ctx: PolicyContext = { version: this.profile.version, scope: 'network', networkType: n.Type };
          const policies = parsePolicies(settings.optArr('Policies'), ctx);
          next = { ...n, Policies: applyPolicyRequest(n.Policies, policies, requestType) };
          this.checkSetReferences(n, next.Policies, policies, requestType);
          break;
        }
        case 'DNS': {
          const dns = readDns(new Reader({ Dns: settings.obj }, 'HCN_E_INVALID_JSON'));
          if (requestType === 'Remove') next = { ...n, Dns: { Search: [], ServerList: [], Options: [] } };
          else if (requestType === 'Refresh') next = n;
          else next = { ...n, Dns: dns };
          break;
        }
        case 'Extension': {
          const extId = argGuid(settings.optStr('Id') ?? '');
          if (!extId) throw settings.err('Id is required');
          const enabled = settings.optBool('IsEnabled') ?? false;
          const others = n.Extensions.filter((e) => e.Id !== extId);
          next =
            requestType === 'Remove'
              ? { ...n, Extensions: others }
              : { ...n, Extensions: [...others, { Id: extId, IsEnabled: enabled }] };
          break;
        }
        case 'Subnet': {
          next = this.modifySubnets(n, settings, requestType);
          break;
        }
        default:
          throw hnsError('HCN_E_REQUEST_UNSUPPORTED', `network ResourceType "${resourceType}"`);
      }
      // commit
      if (next !== n) {
        this.store.networks.set(id, next);
        if (next.Ipams !== n.Ipams) this.resyncPools(n, next);
        this.changed('Network', 'modify', id, `${resourceType} ${requestType}`);
      }
      return next;
    });
  }

  /**
   * IP-set references on a network (reference vfp-dataplane.md §2.5): a NESTEDIPSET added or updated
   * must name sets that exist (HCN_E_POLICY_NOT_FOUND), and a set still named by a NESTEDIPSET, a
   * NetworkACL or an ACL/TierAcl of one of the network's endpoints cannot be removed
   * (HCN_E_ENTITY_HAS_REFERENCES). Azure NPM orders its calls so (members first; ACLs cleared
   * before sets), and ACN's own HNS fake enforces both rules.
   */
  private checkSetReferences(
    n: NetworkRec,
    next: readonly ParsedPolicy[],
    given: readonly ParsedPolicy[],
    requestType: RequestType,
  ): void {
    const sets = (ps: readonly ParsedPolicy[]) =>
      ps.filter((p) => p.type === 'SetPolicy').map((p) => p.settings as SetPolicySettings);
    const nextSets = sets(next);
    if (requestType === 'Add' || requestType === 'Update') {
      const ids = new Set(nextSets.map((s) => s.id));
      for (const s of sets(given)) {
        for (const m of s.memberSetIds) {
          if (!ids.has(m))
            throw hnsError('HCN_E_POLICY_NOT_FOUND', `set ${s.id} names a missing member set ${m}`);
        }
      }
      return;
    }
    if (requestType !== 'Remove') return;
    const removed = new Set(sets(given).map((s) => s.id));
    if (!removed.size) return;
    const referrers: string[] = [];
    for (const s of nextSets)
      for (const m of s.memberSetIds) if (removed.has(m)) referrers.push(`set ${s.id}`);
    for (const p of next) if (p.type === 'NetworkACL' && namesSet(p, removed)) referrers.push('a NetworkACL');
    for (const epId of this.store.alloc.get(n.ID)?.endpoints ?? []) {
      const e = this.store.endpoints.get(epId)!;
      if (e.Policies.some((p) => namesSet(p, removed))) referrers.push(`endpoint ${epId}`);
    }
    if (referrers.length) {
      throw hnsError(
        'HCN_E_ENTITY_HAS_REFERENCES',
        `${[...removed].join(', ')} still used by ${referrers.join(', ')}`,
      );
    }
  }

  private modifySubnets(n: NetworkRec, settings: Reader, requestType: RequestType): NetworkRec {
    if (compareVersion(this.profile.schema, { major: 2, minor: 6 }) < 0)
      throw hnsError('HCN_E_REQUEST_UNSUPPORTED', 'Subnet modification needs HCN schema 2.6');
    const subs = settings
      .objs('Subnets', 'HCN_E_INVALID_SUBNET')
      .map((s) => parseSubnetDoc(s, this.host, n.Type));
    const existing = subnetsOf(n);
    const alloc = this.store.alloc.get(n.ID)!;
    if (requestType === 'Add') {
      for (const s of subs) {
        if (existing.some((e) => prefixOverlaps(e.prefix, s.prefix))) {
          throw hnsError('HCN_E_INVALID_SUBNET', `${s.IpAddressPrefix} overlaps an existing subnet`);
        }
      }
      const ipams = n.Ipams.length
        ? n.Ipams.map((i, k) => (k === 0 ? { ...i, Subnets: [...i.Subnets, ...subs] } : i))
        : [{ Type: 'Static' as const, Subnets: subs }];
      return { ...n, Ipams: ipams };
    }
    if (requestType === 'Remove') {
      const drop = new Set<string>();
      for (const s of subs) {
        const idx = existing.findIndex((e) => e.IpAddressPrefix === s.IpAddressPrefix);
        if (idx < 0) throw hnsError('HCN_E_SUBNET_NOT_FOUND', s.IpAddressPrefix);
        if (alloc.pools[idx]!.used > 0)
          throw hnsError('HCN_E_ENTITY_HAS_REFERENCES', `${s.IpAddressPrefix} has endpoints`);
        drop.add(s.IpAddressPrefix);
      }
      return {
        ...n,
        Ipams: n.Ipams.map((i) => ({ ...i, Subnets: i.Subnets.filter((s) => !drop.has(s.IpAddressPrefix)) })),
      };
    }
    throw hnsError('HCN_E_REQUEST_UNSUPPORTED', `Subnet ${requestType}`);
  }

  /** After subnets change, keep the pools of surviving subnets and create pools for new ones. */
  private resyncPools(before: NetworkRec, after: NetworkRec): void {
    const alloc = this.store.alloc.get(after.ID)!;
    const old = subnetsOf(before);
    const pools = subnetsOf(after).map((s) => {
      const i = old.findIndex((o) => o.IpAddressPrefix === s.IpAddressPrefix);
      return i >= 0 ? alloc.pools[i]! : this.poolFor(s);
    });
    alloc.pools.splice(0, alloc.pools.length, ...pools);
    alloc.subnets.splice(0, alloc.subnets.length, ...subnetsOf(after));
    // endpoint subnet indexes follow the new order
    for (const epId of alloc.endpoints) {
      const e = this.store.endpoints.get(epId)!;
      const subs = subnetsOf(after);
      const cfgs = e.IpConfigurations.map((c) => ({
        ...c,
        subnet: subs.findIndex((s) => prefixContains(s.prefix, c.addr)),
      }));
      this.store.endpoints.set(epId, { ...e, IpConfigurations: cfgs });
    }
  }

  private requestType(r: Reader): RequestType {
    const t = r.optStr('RequestType') ?? '';
    const found = REQUEST_TYPES.find((x) => x === t);
    if (!found) throw hnsError('HCN_E_REQUEST_UNSUPPORTED', `RequestType "${t}"`);
    return found;
  }

  /**
   * Delete a network. Its endpoints go with it (the v1 test TestEndpointStatsAll deletes a network
   * with a live endpoint and expects success); refused while a load balancer or route names one.
   */
  deleteNetwork(id: string): void {
    this.atomic(() => {
      const n = this.getNetwork(id);
      const alloc = this.store.alloc.get(id)!;
      for (const epId of alloc.endpoints) {
        if (this.store.refsOf(epId).size) {
          throw hnsError(
            'HCN_E_ENTITY_HAS_REFERENCES',
            `endpoint ${epId} is used by ${[...this.store.refsOf(epId)].sort().join(', ')}`,
          );
        }
      }
      this.notify('NetworkPreDelete', { ID: id });
      for (const epId of [...alloc.endpoints]) this.removeEndpoint(epId);
      this.store.networks.delete(id);
      this.store.ids.delete(id);
      this.store.alloc.delete(id);
      this.store.nics.release(id);
      if (n.Name !== '' && this.store.networkByName.get(this.store.nameKey(n.Name)) === id) {
        this.store.networkByName.delete(this.store.nameKey(n.Name));
      }
      this.notify('NetworkDelete', { ID: id });
      this.changed('Network', 'delete', id, n.Name);
    });
  }

  // ───────────────────────────── endpoints ─────────────────────────────

  getEndpoint(id: string): EndpointRec {
    const e = this.store.endpoints.get(id);
    if (!e) throw hnsError('HCN_E_ENDPOINT_NOT_FOUND', id);
    return e;
  }

  /**
   * Create an endpoint. `v1` marks a document that came through HNSCall or is v1-shaped (v1-only
   * policy types allowed); `v1Extras` are v1 fields with no v2 home.
   */
  createEndpoint(
    networkArg: unknown,
    idArg: unknown,
    doc: JsonObject,
    opts: {
      readonly v1?: boolean;
      readonly v1Extras?: V1EndpointExtras | undefined;
      /** Created through HNSCall (`POST /endpoints/`): hidden from schema-2 listings by network. */
      readonly createdV1?: boolean;
    } = {},
  ): EndpointRec {
    return this.atomic(() => {
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
      const n = this.getNetwork(networkId);
      const draft = parseEndpoint(doc, n, this.profile.version, opts.v1 === true);
      return this.commitEndpoint(n, given ?? draft.givenId, draft, opts.v1Extras, opts.createdV1 === true);
    });
  }

  private commitEndpoint(
    n: NetworkRec,
    givenId: string | undefined,
    d: EndpointDraft,
    v1Extras: V1EndpointExtras | undefined,
    createdV1 = false,
  ): EndpointRec {
    const alloc = this.store.alloc.get(n.ID)!;
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
    if (!remote && plan.length > 1 && !supports(this.profile.version, 'IPv6DualStack')) {
      throw hnsError('HCN_E_INVALID_ENDPOINT', 'dual-stack endpoints need HNS 11.10');
    }
    // duplicate addresses among remote endpoints are not checked (kube-proxy reprograms them freely)
    const claims = this.checkClaims(alloc, d.Policies, undefined);
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
    const id = this.takeNewId(givenId, 'ERROR_ALREADY_EXISTS'); // last check; enters the ID index
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
      created: this.deps.clock.now(),
      seq: this.nextSeq(),
      ...(createdV1 ? { createdV1: true as const } : {}),
    };
    this.store.endpoints.set(id, rec);
    alloc.endpoints.add(id);
    this.changed('Endpoint', 'create', id, rec.Name);
    return rec;
  }

  modifyEndpoint(id: string, doc: JsonObject): EndpointRec {
    return this.atomic(() => {
      const e = this.getEndpoint(id);
      const n = this.getNetwork(e.HostComputeNetwork);
      const r = new Reader(doc, 'HCN_E_INVALID_JSON');
      const resourceType = r.optStr('ResourceType') ?? '';
      const requestType = this.requestType(r);
      const settings = r.optObj('Settings') ?? new Reader({}, 'HCN_E_INVALID_JSON', '$.Settings');
      if (resourceType === 'Policy') {
        // an endpoint created through v1 may already hold v1-only types (VNET, Isolation); requests
        // through HCN v2 cannot add them
        const ctx: PolicyContext = { version: this.profile.version, scope: 'endpoint', networkType: n.Type };
        const policies = parsePolicies(settings.optArr('Policies'), ctx);
        const next = applyPolicyRequest(e.Policies, policies, requestType, 'endpoint');
        return this.rebindPolicies(e, next, undefined, `Policy ${requestType}`);
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
          this.store.endpoints.set(id, rec);
          this.changed('Endpoint', 'modify', id, 'Port Add');
          return rec;
        }
        if (requestType === 'Remove') {
          if (!e.VmPort) throw hnsError('HCN_E_ENDPOINT_NOT_ATTACHED', id);
          const rest: EndpointRec = { ...e, VmPort: undefined };
          this.store.endpoints.set(id, rest);
          this.changed('Endpoint', 'modify', id, 'Port Remove');
          return rest;
        }
        throw hnsError('HCN_E_REQUEST_UNSUPPORTED', `Port ${requestType}`);
      }
      throw hnsError('HCN_E_REQUEST_UNSUPPORTED', `endpoint ResourceType "${resourceType}"`);
    });
  }

  /** Delete an endpoint (allowed while in a namespace, reference §6.9; refused while an LB or route names it). */
  deleteEndpoint(id: string): void {
    this.atomic(() => {
      this.getEndpoint(id);
      const refs = this.store.refsOf(id);
      if (refs.size) throw hnsError('HCN_E_ENTITY_HAS_REFERENCES', `used by ${[...refs].sort().join(', ')}`);
      this.removeEndpoint(id);
    });
  }

  /** Commit-phase removal: frees addresses, MAC and claims, leaves its namespace. */
  private removeEndpoint(id: string): void {
    const e = this.store.endpoints.get(id)!;
    const alloc = this.store.alloc.get(e.HostComputeNetwork)!;
    for (const c of e.IpConfigurations) if (c.pooled && c.subnet >= 0) alloc.pools[c.subnet]!.release(c.addr);
    if (e.macPooled) alloc.macs.release(e.mac);
    for (const k of this.claimsOf(e)) alloc.claims.delete(k);
    alloc.endpoints.delete(id);
    if (e.HostComputeNamespace) this.detachFromNamespace(e.HostComputeNamespace, id);
    this.store.endpoints.delete(id);
    this.store.ids.delete(id);
    this.changed('Endpoint', 'delete', id, e.Name);
  }

  /** The unique-claim keys an endpoint's policies hold (derived, so removal never scans the network). */
  private claimsOf(e: EndpointRec): string[] {
    const out: string[] = [];
    for (const p of e.Policies) for (const c of policyClaims(p)) out.push(c.key);
    return out;
  }

  // ───────────────────────────── namespaces ─────────────────────────────

  getNamespace(id: string): NamespaceRec {
    const ns = this.store.namespaces.get(id);
    if (!ns) throw hnsError('ERROR_NOT_FOUND', `namespace ${id}`);
    return ns;
  }

  /**
   * A container is about to join the namespace (HCS create with `Networking.Namespace`): refused
   * with HCN_E_NAMESPACE_ATTACH_FAILED when one of its endpoints is Degraded — HNS's
   * EndpointAttachShared says "Endpoint is in invalid state" (cni-windows.md §7 P9; felix#2893).
   */
  checkNamespaceAttach(id: string): void {
    for (const r of this.getNamespace(id).Resources) {
      const e = r.Type === 'Endpoint' ? this.store.endpoints.get(r.ID) : undefined;
      const unresolved = e ? unresolvedAddresses(e) : [];
      if (e && unresolved.length > 0) {
        throw hnsError(
          'HCN_E_NAMESPACE_ATTACH_FAILED',
          `Endpoint is in invalid state: ${e.ID} is Degraded (${unresolved.map((u) => JSON.stringify(u)).join(', ')} is not an address)`,
        );
      }
    }
  }

  createNamespace(idArg: unknown, doc: JsonObject, opts: { isDefault?: boolean } = {}): NamespaceRec {
    return this.atomic(() => {
      const given = argGuid(idArg);
      const d = parseNamespace(doc);
      const endpoints = d.resources.filter((r) => r.Type === 'Endpoint').map((r) => r.ID);
      for (const epId of endpoints) this.checkAttachable(epId, undefined);
      if (new Set(endpoints).size !== endpoints.length) {
        throw hnsError('HCN_E_ENDPOINT_NAMESPACE_ALREADY_EXISTS', 'an endpoint is listed twice');
      }
      const id = this.newId(given ?? d.givenId, 'ERROR_ALREADY_EXISTS');
      const isDefaultCompartment = d.Type === 'HostDefault' || opts.isDefault === true;
      const rec: NamespaceRec = {
        kind: 'Namespace',
        ID: id,
        NamespaceId: isDefaultCompartment ? 1 : this.store.nextCompartment++,
        ...(d.Type ? { Type: d.Type } : {}),
        Resources: [],
        SchemaVersion: d.SchemaVersion,
        IsDefault: opts.isDefault === true,
        seq: this.nextSeq(),
      };
      this.store.namespaces.set(id, rec);
      this.store.ids.add(id);
      this.notify('NamespaceCreate', { ID: id, NamespaceId: rec.NamespaceId });
      this.changed('Namespace', 'create', id);
      for (const r of d.resources) {
        if (r.Type === 'Endpoint') this.attachToNamespace(id, r.ID);
        else this.addNamespaceResource(id, { Type: 'Container', ID: r.ID });
      }
      return this.store.namespaces.get(id)!;
    });
  }

  /** Validation for adding an endpoint to a namespace (reference §6.10). */
  private checkAttachable(epId: string, nsId: string | undefined): void {
    const e = this.getEndpoint(epId);
    if (isRemote(e)) throw hnsError('HCN_E_INVALID_REMOTE_ENDPOINT_OPERATION', epId);
    if (e.HostComputeNamespace) {
      throw hnsError(
        'HCN_E_ENDPOINT_NAMESPACE_ALREADY_EXISTS',
        `${epId} is in namespace ${e.HostComputeNamespace}${nsId === e.HostComputeNamespace ? ' already' : ''}`,
      );
    }
  }

  private attachToNamespace(nsId: string, epId: string): void {
    const e = this.store.endpoints.get(epId)!;
    this.store.endpoints.set(epId, { ...e, HostComputeNamespace: nsId });
    this.addNamespaceResource(nsId, { Type: 'Endpoint', ID: epId });
    this.notify('NetworkEndpointAttached', { ID: epId, Namespace: nsId, Network: e.HostComputeNetwork });
  }

  private detachFromNamespace(nsId: string, epId: string): void {
    const ns = this.store.namespaces.get(nsId);
    const e = this.store.endpoints.get(epId);
    if (e && e.HostComputeNamespace === nsId) {
      this.store.endpoints.set(epId, { ...e, HostComputeNamespace: undefined });
    }
    if (ns) {
      this.store.namespaces.set(nsId, {
        ...ns,
        Resources: ns.Resources.filter((r) => !(r.Type === 'Endpoint' && r.ID === epId)),
      });
      this.changed('Namespace', 'modify', nsId, `Endpoint Remove ${epId}`);
    }
    this.notify('NetworkEndpointDetached', {
      ID: epId,
      Namespace: nsId,
      Network: e?.HostComputeNetwork ?? '',
    });
  }

  private addNamespaceResource(nsId: string, res: NamespaceResourceRec): void {
    const ns = this.store.namespaces.get(nsId)!;
    this.store.namespaces.set(nsId, { ...ns, Resources: [...ns.Resources, res] });
    this.changed('Namespace', 'modify', nsId, `${res.Type} Add ${res.ID}`);
  }

  modifyNamespace(id: string, doc: JsonObject): NamespaceRec {
    return this.atomic(() => {
      const ns = this.getNamespace(id);
      const r = new Reader(doc, 'HCN_E_INVALID_JSON');
      const resourceType = r.optStr('ResourceType') ?? '';
      const requestType = this.requestType(r);
      const settings = r.optObj('Settings') ?? new Reader({}, 'HCN_E_INVALID_JSON', '$.Settings');
      if (requestType !== 'Add' && requestType !== 'Remove') {
        throw hnsError('HCN_E_REQUEST_UNSUPPORTED', `namespace ${requestType}`);
      }
      if (resourceType === 'Endpoint') {
        const epId = argGuid(settings.optStr('EndpointId') ?? '');
        if (!epId) throw settings.err('EndpointId is required');
        if (requestType === 'Add') {
          this.checkAttachable(epId, id);
          this.attachToNamespace(id, epId);
        } else {
          if (!ns.Resources.some((x) => x.Type === 'Endpoint' && x.ID === epId)) {
            throw hnsError('ERROR_NOT_FOUND', `endpoint ${epId} is not in namespace ${id}`);
          }
          this.detachFromNamespace(id, epId);
        }
        return this.store.namespaces.get(id)!;
      }
      if (resourceType === 'Container') {
        const cid = settings.optStr('ContainerId') ?? '';
        if (!cid) throw settings.err('ContainerId is required');
        const has = ns.Resources.some(
          (x) => x.Type === 'Container' && x.ID.toLowerCase() === cid.toLowerCase(),
        );
        if (requestType === 'Add') {
          if (has) throw hnsError('ERROR_ALREADY_EXISTS', `container ${cid}`);
          this.addNamespaceResource(id, { Type: 'Container', ID: cid });
        } else {
          if (!has) throw hnsError('ERROR_NOT_FOUND', `container ${cid}`);
          this.store.namespaces.set(id, {
            ...ns,
            Resources: ns.Resources.filter(
              (x) => !(x.Type === 'Container' && x.ID.toLowerCase() === cid.toLowerCase()),
            ),
          });
          this.changed('Namespace', 'modify', id, `Container Remove ${cid}`);
        }
        return this.store.namespaces.get(id)!;
      }
      throw hnsError('HCN_E_REQUEST_UNSUPPORTED', `namespace ResourceType "${resourceType}"`);
    });
  }

  /** Delete a namespace; endpoints still in it are detached (our choice, docs/model.md). */
  deleteNamespace(id: string): void {
    this.atomic(() => {
      const ns = this.getNamespace(id);
      for (const r of ns.Resources) if (r.Type === 'Endpoint') this.detachFromNamespace(id, r.ID);
      this.store.namespaces.delete(id);
      this.store.ids.delete(id);
      this.notify('NamespaceDelete', { ID: id, NamespaceId: ns.NamespaceId });
      this.changed('Namespace', 'delete', id);
    });
  }

  // ───────────────────────────── load balancers ─────────────────────────────

  getLoadBalancer(id: string): LoadBalancerRec {
    const lb = this.store.loadBalancers.get(id);
    if (!lb) throw hnsError('ERROR_NOT_FOUND', `load balancer ${id}`);
    return lb;
  }

  private validateLb(doc: JsonObject, selfId: string | undefined) {
    const d = parseLoadBalancer(doc, this.profile.version);
    if (!d.HostComputeEndpoints.length)
      throw hnsError('E_INVALIDARG', 'a load balancer needs at least one endpoint');
    for (const epId of d.HostComputeEndpoints) this.getEndpoint(epId);
    if (d.HostComputeNetwork) this.getNetwork(d.HostComputeNetwork);
    const claims = loadBalancerClaims(d);
    const seen = new Set<string>();
    for (const c of claims) {
      const owner = this.store.lbClaims.get(c);
      if ((owner !== undefined && owner !== selfId) || seen.has(c))
        throw hnsError('HCN_E_PORT_ALREADY_EXISTS', `frontend ${c}`);
      seen.add(c);
    }
    return { d, claims };
  }

  createLoadBalancer(idArg: unknown, doc: JsonObject): LoadBalancerRec {
    return this.atomic(() => {
      const given = argGuid(idArg);
      const { d, claims } = this.validateLb(doc, undefined);
      const id = this.newId(given ?? d.givenId, 'ERROR_ALREADY_EXISTS');
      const { givenId: _g, ...rest } = d;
      const rec: LoadBalancerRec = { kind: 'LoadBalancer', ...rest, ID: id, seq: this.nextSeq() };
      this.store.loadBalancers.set(id, rec);
      this.store.ids.add(id);
      for (const c of claims) this.store.lbClaims.set(c, id);
      for (const ep of rec.HostComputeEndpoints) this.store.addRef(ep, id);
      this.changed('LoadBalancer', 'create', id);
      return rec;
    });
  }

  /** Whole-object update (HcnModifyLoadBalancer with the full document; needs HNS 15.4). */
  modifyLoadBalancer(id: string, doc: JsonObject): LoadBalancerRec {
    return this.atomic(() => {
      const old = this.getLoadBalancer(id);
      // E_NOTIMPL is what kube-proxy's fallback keys on (winkernel: hcn.IsNotImplemented(err) turns
      // ModifyLoadbalancer off and deletes and re-creates the load balancer instead)
      if (!supports(this.profile.version, 'ModifyLoadbalancer')) {
        throw hnsError('E_NOTIMPL', 'load balancer modification needs HNS 15.4');
      }
      const { d, claims } = this.validateLb(doc, id);
      const { givenId: _g, ...rest } = d;
      const rec: LoadBalancerRec = { kind: 'LoadBalancer', ...rest, ID: id, seq: old.seq };
      for (const k of loadBalancerClaims(old)) this.store.lbClaims.delete(k);
      for (const c of claims) this.store.lbClaims.set(c, id);
      for (const ep of old.HostComputeEndpoints) this.store.dropRef(ep, id);
      for (const ep of rec.HostComputeEndpoints) this.store.addRef(ep, id);
      this.store.loadBalancers.set(id, rec);
      this.changed('LoadBalancer', 'modify', id);
      return rec;
    });
  }

  deleteLoadBalancer(id: string): void {
    this.atomic(() => {
      const lb = this.getLoadBalancer(id);
      for (const k of loadBalancerClaims(lb)) this.store.lbClaims.delete(k);
      for (const ep of lb.HostComputeEndpoints) this.store.dropRef(ep, id);
      this.store.loadBalancers.delete(id);
      this.store.ids.delete(id);
      this.changed('LoadBalancer', 'delete', id);
    });
  }

  // ───────────────────────────── SDN routes ─────────────────────────────

  getSdnRoute(id: string): SdnRouteRec {
    const rt = this.store.routes.get(id);
    if (!rt) throw hnsError('ERROR_NOT_FOUND', `route ${id}`);
    return rt;
  }

  createSdnRoute(idArg: unknown, doc: JsonObject): SdnRouteRec {
    return this.atomic(() => {
      const given = argGuid(idArg);
      const d = parseSdnRoute(doc);
      if (!d.HostComputeEndpoints.length)
        throw hnsError('E_INVALIDARG', 'an SDN route needs at least one endpoint');
      if (!d.Setting.length) throw hnsError('E_INVALIDARG', 'an SDN route needs at least one route setting');
      for (const epId of d.HostComputeEndpoints) this.getEndpoint(epId);
      if (d.HostComputeNetwork) this.getNetwork(d.HostComputeNetwork);
      const id = this.newId(given ?? d.givenId, 'ERROR_ALREADY_EXISTS');
      const { givenId: _g, ...rest } = d;
      const rec: SdnRouteRec = { kind: 'SdnRoute', ...rest, ID: id, seq: this.nextSeq() };
      this.store.routes.set(id, rec);
      this.store.ids.add(id);
      for (const ep of new Set(rec.HostComputeEndpoints)) this.store.addRef(ep, id);
      this.changed('SdnRoute', 'create', id);
      return rec;
    });
  }

  modifySdnRoute(id: string, _doc: JsonObject): SdnRouteRec {
    this.getSdnRoute(id);
    throw hnsError('HCN_E_REQUEST_UNSUPPORTED', 'SDN routes cannot be modified; delete and re-create');
  }

  deleteSdnRoute(id: string): void {
    this.atomic(() => {
      const rt = this.getSdnRoute(id);
      for (const ep of new Set(rt.HostComputeEndpoints)) this.store.dropRef(ep, id);
      this.store.routes.delete(id);
      this.store.ids.delete(id);
      this.changed('SdnRoute', 'delete', id);
    });
  }

  // ───────────────────────────── helpers for other layers ─────────────────────────────

  /** v1 attach bookkeeping (EndpointAttachDetachRequest). */
  setSharedContainers(epId: string, containers: readonly string[]): EndpointRec {
    const e = this.getEndpoint(epId);
    const rec = { ...e, SharedContainers: [...containers] };
    this.store.endpoints.set(epId, rec);
    this.changed('Endpoint', 'modify', epId, 'attach');
    return rec;
  }

  /** Whole-endpoint replacement keeping addresses (v1 POST /endpoints/<id> update of policies/DNS). */
  replaceEndpointPolicies(epId: string, policies: readonly ParsedPolicy[], dns?: DnsRec): EndpointRec {
    return this.atomic(() => this.rebindPolicies(this.getEndpoint(epId), policies, dns, 'update'));
  }

  /**
   * The unique-claim keys `policies` would hold on endpoint `selfId` (undefined: a new endpoint). A
   * key another endpoint holds, or one claimed twice, fails with that claim's error.
   */
  private checkClaims(
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
  private rebindPolicies(
    e: EndpointRec,
    policies: readonly ParsedPolicy[],
    dns: DnsRec | undefined,
    detail: string,
  ): EndpointRec {
    const alloc = this.store.alloc.get(e.HostComputeNetwork)!;
    const keys = this.checkClaims(alloc, policies, e.ID);
    for (const k of this.claimsOf(e)) alloc.claims.delete(k);
    for (const k of keys) alloc.claims.set(k, e.ID);
    const rec: EndpointRec = { ...e, Policies: policies, Dns: dns ?? e.Dns };
    this.store.endpoints.set(e.ID, rec);
    this.changed('Endpoint', 'modify', e.ID, detail);
    return rec;
  }
}

/**
 * Policy request semantics (hcsshim comments on ModifyEndpointSettingRequest): Add appends (the same
 * policy twice → HCN_E_POLICY_ALREADY_EXISTS); Remove drops each given policy (absent →
 * HCN_E_POLICY_NOT_FOUND); Update replaces the policies the request identifies — a SetPolicy the set
 * with its Id, any other policy every existing policy of its Type, and on an endpoint always the
 * ACL set (docs/model.md, with the Azure NPM and Calico evidence); Refresh re-applies and changes
 * nothing.
 */
export function applyPolicyRequest(
  current: readonly ParsedPolicy[],
  given: readonly ParsedPolicy[],
  requestType: RequestType,
  scope: 'network' | 'endpoint' = 'network',
): ParsedPolicy[] {
  const keys = new Set(current.map(policyKey));
  switch (requestType) {
    case 'Add': {
      const seen = new Set<string>();
      for (const p of given) {
        const k = policyKey(p);
        if (keys.has(k) || seen.has(k)) throw hnsError('HCN_E_POLICY_ALREADY_EXISTS', p.type);
        seen.add(k);
      }
      const merged = [...current, ...given];
      assertSingleInstances(merged);
      return merged;
    }
    case 'Remove': {
      const drop = new Set<string>();
      for (const p of given) {
        const k = policyKey(p);
        if (!keys.has(k)) throw hnsError('HCN_E_POLICY_NOT_FOUND', p.type);
        drop.add(k);
      }
      return current.filter((p) => !drop.has(policyKey(p)));
    }
    case 'Update': {
      // a keyed policy (SetPolicy) replaces the one with its identity, in place; any other replaces
      // every existing policy of its Type (Calico's ACL-only Update keeps OutBoundNAT and PA)
      const byKey = new Map<string, ParsedPolicy>();
      // an endpoint's ACL set is always replaced, by the request's ACLs or by none: Azure NPM removes
      // its last ACLs with an Update that carries only the endpoint's other policies
      const types = new Set<string>(scope === 'endpoint' ? ['ACL'] : []);
      for (const p of given) {
        if (updateMode(p) === 'key') {
          const k = policyKey(p);
          if (!keys.has(k)) throw hnsError('HCN_E_POLICY_NOT_FOUND', `${p.type} ${k} is not on the object`);
          if (byKey.has(k)) throw hnsError('HCN_E_POLICY_ALREADY_EXISTS', `${p.type} ${k} is given twice`);
          byKey.set(k, p);
        } else types.add(p.type);
      }
      const merged: ParsedPolicy[] = [];
      for (const p of current) {
        if (types.has(p.type)) continue;
        merged.push(byKey.get(policyKey(p)) ?? p);
      }
      for (const p of given) if (types.has(p.type)) merged.push(p);
      assertSingleInstances(merged);
      return merged;
    }
    case 'Refresh':
      return [...current];
  }
}

/** Whether an ACL, NetworkACL or TierAcl policy names one of `ids` in its address fields. */
function namesSet(p: ParsedPolicy, ids: ReadonlySet<string>): boolean {
  const hit = (m: RuleMatch) =>
    m.local.setIds.some((x) => ids.has(x)) || m.remote.setIds.some((x) => ids.has(x));
  if (p.type === 'ACL' || p.type === 'NetworkACL') return hit(p.settings as AclSettings);
  if (p.type === 'TierAcl') return (p.settings as TierAclSettings).rules.some(hit);
  return false;
}
