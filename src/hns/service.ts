/**
 * The Host Networking Service: every HCN v2 operation on networks, endpoints, namespaces, load
 * balancers and SDN routes (reference hns-hcs.md §1, §6). Each operation validates everything first
 * and then commits; a failure leaves the state exactly as it was (DESIGN contract 2). Lookups are
 * indexed (HnsStore); IP and MAC allocation is amortised O(1) (src/addr).
 *
 * This class holds the service's state (store, restart epoch, RNG rollback) and is the one door to
 * the operations, which live one resource per file beside it: networks.ts, endpoints.ts,
 * namespaces.ts, loadbalancers.ts (with the v1 policy lists of v1/policylist.ts), routes.ts, and
 * the policy request semantics in policy-request.ts.
 *
 *   const hns = new HnsService({ profile, rng, clock, events });
 *   const n = hns.createNetwork(null, { Name: 'nat', SchemaVersion: { Major: 2, Minor: 0 } });
 */
import { hnsError, type HResultName } from '../core/errors.js';
import { newGuid } from '../core/guid.js';
import type { Clock } from '../core/clock.js';
import type { EventBus, HcnNotificationName, HnsChangeEvent } from '../core/events.js';
import { HcnNotification } from '../core/events.js';
import type { JsonObject } from '../core/json.js';
import type { Rng } from '../core/rng.js';
import type {
  DnsRec,
  EndpointRec,
  LoadBalancerRec,
  NamespaceRec,
  NetworkRec,
  SdnRouteRec,
  V1NetworkExtras,
} from './model.js';
import type { ParsedPolicy } from './policy/contracts.js';
import type { HostContext } from './schema/network.js';
import { HnsStore } from './store.js';
import { HostNics, parseAdapterSpecs, type NetAdapterRec } from './adapters.js';
import type { HostProfile } from './versions.js';
import * as networks from './networks.js';
import * as endpoints from './endpoints.js';
import * as namespaces from './namespaces.js';
import * as loadBalancers from './loadbalancers.js';
import * as routes from './routes.js';

export { applyPolicyRequest } from './policy-request.js';
export type { CreateEndpointOptions } from './endpoints.js';

export interface HnsServiceDeps {
  readonly profile: HostProfile;
  readonly rng: Rng;
  readonly clock: Clock;
  readonly events: EventBus;
  /** The host's physical adapters (parseAdapterSpecs); default: one seed-1 `Ethernet`. */
  readonly adapters?: readonly NetAdapterRec[];
}

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

  /** What document parsing needs to know about the host (HNS version, schema, RNG). */
  get hostContext(): HostContext {
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

  /** The next creation sequence number (enumeration order). */
  nextSeq(): number {
    return ++this.store.seq;
  }

  /** The ID a new object gets: the given one (taken → `existsCode`), else a fresh GUID. */
  newId(given: string | undefined, existsCode: HResultName): string {
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
  takeNewId(given: string | undefined, existsCode: HResultName): string {
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

  /** Report an HCN service notification (`hns.notification`), when anyone listens. */
  notify(notification: HcnNotificationName, data: Record<string, string | number>): void {
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

  // ───────────────────────────── networks (networks.ts) ─────────────────────────────

  getNetwork(id: string): NetworkRec {
    return networks.getNetwork(this, id);
  }

  /** Create a network; `v1Extras` are v1 fields with no v2 home (HNSCall and v1-shaped documents). */
  createNetwork(idArg: unknown, doc: JsonObject, v1Extras?: V1NetworkExtras): NetworkRec {
    return networks.createNetwork(this, idArg, doc, v1Extras);
  }

  modifyNetwork(id: string, doc: JsonObject): NetworkRec {
    return networks.modifyNetwork(this, id, doc);
  }

  /** Delete a network with its endpoints; refused while a load balancer or route names one. */
  deleteNetwork(id: string): void {
    networks.deleteNetwork(this, id);
  }

  // ───────────────────────────── endpoints (endpoints.ts) ─────────────────────────────

  getEndpoint(id: string): EndpointRec {
    return endpoints.getEndpoint(this, id);
  }

  /**
   * Create an endpoint. `v1` marks a document that came through HNSCall or is v1-shaped (v1-only
   * policy types allowed); `v1Extras` are v1 fields with no v2 home.
   */
  createEndpoint(
    networkArg: unknown,
    idArg: unknown,
    doc: JsonObject,
    opts: endpoints.CreateEndpointOptions = {},
  ): EndpointRec {
    return endpoints.createEndpoint(this, networkArg, idArg, doc, opts);
  }

  modifyEndpoint(id: string, doc: JsonObject): EndpointRec {
    return endpoints.modifyEndpoint(this, id, doc);
  }

  /** Delete an endpoint (allowed while in a namespace; refused while an LB or route names it). */
  deleteEndpoint(id: string): void {
    endpoints.deleteEndpoint(this, id);
  }

  /** v1 attach bookkeeping (EndpointAttachDetachRequest). */
  setSharedContainers(epId: string, containers: readonly string[]): EndpointRec {
    return endpoints.setSharedContainers(this, epId, containers);
  }

  /** Whole-endpoint replacement keeping addresses (v1 POST /endpoints/<id> update of policies/DNS). */
  replaceEndpointPolicies(epId: string, policies: readonly ParsedPolicy[], dns?: DnsRec): EndpointRec {
    return endpoints.replaceEndpointPolicies(this, epId, policies, dns);
  }

  // ───────────────────────────── namespaces (namespaces.ts) ─────────────────────────────

  getNamespace(id: string): NamespaceRec {
    return namespaces.getNamespace(this, id);
  }

  /** A container is about to join the namespace: refused while one of its endpoints is Degraded. */
  checkNamespaceAttach(id: string): void {
    namespaces.checkNamespaceAttach(this, id);
  }

  createNamespace(idArg: unknown, doc: JsonObject, opts: { isDefault?: boolean } = {}): NamespaceRec {
    return namespaces.createNamespace(this, idArg, doc, opts);
  }

  modifyNamespace(id: string, doc: JsonObject): NamespaceRec {
    return namespaces.modifyNamespace(this, id, doc);
  }

  /** Delete a namespace; endpoints still in it are detached (our choice, docs/model.md). */
  deleteNamespace(id: string): void {
    namespaces.deleteNamespace(this, id);
  }

  // ───────────────────────────── load balancers (loadbalancers.ts) ─────────────────────────────

  getLoadBalancer(id: string): LoadBalancerRec {
    return loadBalancers.getLoadBalancer(this, id);
  }

  createLoadBalancer(idArg: unknown, doc: JsonObject): LoadBalancerRec {
    return loadBalancers.createLoadBalancer(this, idArg, doc);
  }

  /** Whole-object update (HcnModifyLoadBalancer with the full document; needs HNS 15.4). */
  modifyLoadBalancer(id: string, doc: JsonObject): LoadBalancerRec {
    return loadBalancers.modifyLoadBalancer(this, id, doc);
  }

  deleteLoadBalancer(id: string): void {
    loadBalancers.deleteLoadBalancer(this, id);
  }

  // ───────────────────────────── SDN routes (routes.ts) ─────────────────────────────

  getSdnRoute(id: string): SdnRouteRec {
    return routes.getSdnRoute(this, id);
  }

  createSdnRoute(idArg: unknown, doc: JsonObject): SdnRouteRec {
    return routes.createSdnRoute(this, idArg, doc);
  }

  modifySdnRoute(id: string, doc: JsonObject): SdnRouteRec {
    return routes.modifySdnRoute(this, id, doc);
  }

  deleteSdnRoute(id: string): void {
    routes.deleteSdnRoute(this, id);
  }
}
