/**
 * The Host Compute Service (DESIGN: hcs/; reference hcs-lifecycle.md, hns-hcs.md §7): compute
 * systems and their lifecycle — Create, Start, Pause, Resume, Shutdown, Terminate, Modify,
 * GetProperties, Enumerate, Close — as a state machine over Created, Running, Paused and Stopped,
 * and what each step does to the network HNS holds:
 * - a process-isolated container that names an HNS namespace joins it at Start (the namespace lists
 *   it as a `Container` resource), so every container of a pod naming one namespace shares one
 *   compartment; schema 1 `EndpointList` endpoints are attached at Start (`SharedContainers`);
 *   `NetworkSharedContainerName` shares another container's stack;
 * - a utility VM gets vNICs hot-added and removed by Modify on
 *   `VirtualMachine/Devices/NetworkAdapters/<nic>` (the HNS endpoint gets a VM switch port) and
 *   guest requests (`NetworkNamespace`, adapter `PreAdd`/`Add`/`Remove`); its NICs go with it when
 *   it stops, and so do the containers it hosts;
 * - the v1 hot-attach (`{ResourceType:"Network",RequestType:"Add"|"Remove",Settings:<endpoint>}`).
 * Exits never delete HNS endpoints or namespaces (§6). Errors are the HCS_E_* names; the flat API
 * spells them as computecore (0x8037…) or vmcompute (0xC037…) does. Every operation validates
 * everything before it changes anything (DESIGN contract 2). Choices where Windows is undocumented
 * are options (HcsOptions, docs/model.md "HCS").
 */
import { hnsError } from '../core/errors.js';
import { isoAt } from '../core/clock.js';
import type { Clock } from '../core/clock.js';
import type { EventBus, HcsNotificationEvent, HcsNotificationName } from '../core/events.js';
import { HcsNotification } from '../core/events.js';
import { newGuid } from '../core/guid.js';
import type { JsonObject } from '../core/json.js';
import type { Rng } from '../core/rng.js';
import type { HnsService } from '../hns/service.js';
import type { EndpointRec, NamespaceRec } from '../hns/model.js';
import { isRemote } from '../hns/schema/endpoint.js';
import { DEFAULT_COMPARTMENT } from '../hns/v1/attach.js';
import { isLive, type ComputeSystemRec, type ExitType, type GuestAdapterRec, type NicRec } from './model.js';
import {
  parseCreate,
  parseModify,
  parsePropertyQuery,
  parseSystemQuery,
  type GuestRequest,
  type NicRequest,
  type PropertyType,
  type V1NetworkRequest,
} from './schema.js';

/** Choices where the reference marks a transition as inferred (hcs-lifecycle.md §8). */
export interface HcsOptions {
  /** Shutdown of a system that never started: like Terminate (default) or HCS_E_INVALID_STATE. */
  readonly shutdownCreated?: 'terminate' | 'invalid';
  /** Modify of a Created system: applied (default) or HCS_E_INVALID_STATE. */
  readonly modifyCreated?: 'apply' | 'invalid';
  /** Start of a stopped system: HCS_E_INVALID_STATE (default) or HCS_E_SYSTEM_ALREADY_STOPPED. */
  readonly startStopped?: 'invalid' | 'alreadyStopped';
  /**
   * Closing a stopped container takes it out of its HNS namespace's resources (default true); false
   * leaves it listed, as microsoft/Windows-Containers#485 shows after unclean exits.
   */
  readonly detachOnClose?: boolean;
}

export interface HcsDeps {
  readonly hns: HnsService;
  readonly rng: Rng;
  readonly clock: Clock;
  readonly events: EventBus;
  readonly options?: HcsOptions;
}

function key(id: string): string {
  return id.toLowerCase();
}

/** Whether an HNS namespace lists the container as a `Container` resource. */
function listsContainer(ns: NamespaceRec, containerId: string): boolean {
  return ns.Resources.some((r) => r.Type === 'Container' && key(r.ID) === key(containerId));
}

/** A system another one needs running (its hosting VM, the container whose stack it shares). */
function mustBeRunning(rec: ComputeSystemRec, role: string): ComputeSystemRec {
  if (rec.state !== 'Running') throw hnsError('HCS_E_INVALID_STATE', `${role} ${rec.id} is ${rec.state}`);
  return rec;
}

export class HcsService {
  /** Systems by lower-case ID. */
  readonly systems = new Map<string, ComputeSystemRec>();
  private seq = 0;

  constructor(readonly deps: HcsDeps) {}

  private get hns(): HnsService {
    return this.deps.hns;
  }

  private get opts(): HcsOptions {
    return this.deps.options ?? {};
  }

  private now(): number {
    return this.deps.clock.now();
  }

  private notify(
    system: string | undefined,
    n: HcsNotificationName,
    data?: Record<string, string | number>,
  ): void {
    if (this.deps.events.listenerCount('hcs.notification') === 0) return;
    const def = HcsNotification[n] as { code: number; event?: number };
    // the keys in this order (system, notification, code, event, time, data), absent ones left out
    const e: { -readonly [K in keyof HcsNotificationEvent]?: HcsNotificationEvent[K] } =
      system !== undefined
        ? { system, notification: n, code: def.code }
        : { notification: n, code: def.code };
    if (def.event !== undefined) e.event = def.event;
    e.time = this.now();
    if (data) e.data = data;
    this.deps.events.emit('hcs.notification', e as HcsNotificationEvent);
  }

  get(id: string): ComputeSystemRec {
    const rec = typeof id === 'string' ? this.systems.get(key(id)) : undefined;
    if (!rec) throw hnsError('HCS_E_SYSTEM_NOT_FOUND', typeof id === 'string' ? id : `(${typeof id})`);
    return rec;
  }

  /** The system with this ID (any case), or undefined. */
  find(id: string): ComputeSystemRec | undefined {
    return this.systems.get(key(id));
  }

  private put(rec: ComputeSystemRec): ComputeSystemRec {
    this.systems.set(key(rec.id), rec);
    return rec;
  }

  // ───────────────────────────── create ─────────────────────────────

  create(id: string, doc: JsonObject): ComputeSystemRec {
    if (typeof id !== 'string' || id === '' || id.length > 255)
      throw hnsError('E_INVALIDARG', 'a compute system ID is a non-empty string of at most 255 characters');
    if (this.systems.has(key(id))) throw hnsError('HCS_E_SYSTEM_ALREADY_EXISTS', id);
    const d = parseCreate(doc);
    let host: ComputeSystemRec | undefined;
    if (d.hostingSystemId !== undefined) {
      host = this.get(d.hostingSystemId);
      if (host.systemType !== 'VirtualMachine')
        throw hnsError('E_INVALIDARG', `hosting system ${d.hostingSystemId} is not a virtual machine`);
      mustBeRunning(host, 'hosting system');
    }
    // a namespace holding a Degraded endpoint cannot be joined (HCN_E_NAMESPACE_ATTACH_FAILED)
    if (d.networking.namespace) this.hns.checkNamespaceAttach(d.networking.namespace);
    for (const ep of [
      ...d.networking.endpointList,
      ...d.networking.networkAdapters,
      ...d.nics.map((n) => n.endpointId),
    ])
      this.hns.getEndpoint(ep);
    const nicIds = new Set<string>();
    const nicEndpoints = new Set<string>();
    for (const n of d.nics) {
      if (nicIds.has(n.nicId)) throw hnsError('ERROR_ALREADY_EXISTS', `network adapter ${n.nicId}`);
      if (nicEndpoints.has(n.endpointId))
        throw hnsError('HCN_E_ENDPOINT_ALREADY_ATTACHED', `${n.endpointId} is on two network adapters`);
      this.localEndpoint(n.endpointId);
      nicIds.add(n.nicId);
      nicEndpoints.add(n.endpointId);
    }
    const rec: ComputeSystemRec = {
      id,
      name: d.name || id,
      owner: d.owner,
      systemType: d.systemType,
      isolation: d.isolation,
      schema: d.schema,
      document: doc,
      state: 'Created',
      exitType: 'None',
      exitStatus: 0,
      ...(host ? { hostingSystemId: host.id } : {}),
      networking: d.networking,
      terminateOnLastHandleClosed: d.terminateOnLastHandleClosed,
      runtimeId: newGuid(this.deps.rng),
      nics: d.nics,
      v1Endpoints: [],
      guestAdapters: [],
      created: this.now(),
      seq: ++this.seq,
      // unset until Start, whose `{ ...rec, started }` copy then adds no key (a spread copy that
      // adds one takes V8's slow path); last, where that copy would otherwise append it
      started: undefined,
    };
    this.put(rec);
    this.notify(rec.id, 'SystemCreateCompleted');
    return rec;
  }

  // ───────────────────────────── start ─────────────────────────────

  start(id: string): ComputeSystemRec {
    const rec = this.get(id);
    if (rec.state !== 'Created') {
      if (rec.state === 'Stopped' && this.opts.startStopped === 'alreadyStopped')
        throw hnsError('HCS_E_SYSTEM_ALREADY_STOPPED', rec.id);
      throw hnsError('HCS_E_INVALID_STATE', `${rec.id} is ${rec.state}: only a Created system starts`);
    }
    // validate every attachment before making any
    const n = rec.networking;
    if (rec.hostingSystemId) mustBeRunning(this.get(rec.hostingSystemId), 'hosting system');
    if (n.namespace && rec.isolation !== 'Hosted') this.hns.getNamespace(n.namespace);
    for (const ep of n.endpointList) this.hns.getEndpoint(ep);
    if (n.sharedContainerName) {
      const other = this.find(n.sharedContainerName);
      if (!other)
        throw hnsError('HCS_E_SYSTEM_NOT_FOUND', `network shared container ${n.sharedContainerName}`);
      mustBeRunning(other, 'network shared container');
    }
    for (const nic of rec.nics) {
      const e = this.hns.getEndpoint(nic.endpointId);
      if (e.VmPort) throw hnsError('HCN_E_ENDPOINT_ALREADY_ATTACHED', nic.endpointId);
      if (isRemote(e)) throw hnsError('HCN_E_INVALID_REMOTE_ENDPOINT_OPERATION', nic.endpointId);
    }
    // commit
    if (n.namespace && rec.isolation !== 'Hosted') this.joinNamespace(rec.id, n.namespace);
    for (const ep of n.endpointList) this.shareEndpoint(rec.id, this.hns.getEndpoint(ep), true);
    for (const nic of rec.nics) this.attachPort(rec, nic);
    const started = this.put({
      ...rec,
      v1Endpoints: [...new Set([...rec.v1Endpoints, ...n.endpointList])],
      state: 'Running',
      started: this.now(),
      // adapters present at boot are known to the guest
      guestAdapters: rec.nics.map((nic) => ({ adapterId: nic.nicId, state: 'Add' as const })),
    });
    this.notify(rec.id, 'SystemStartCompleted');
    return started;
  }

  private joinNamespace(containerId: string, nsId: string): void {
    if (!listsContainer(this.hns.getNamespace(nsId), containerId))
      this.hns.modifyNamespace(nsId, {
        ResourceType: 'Container',
        RequestType: 'Add',
        Settings: { ContainerId: containerId },
      });
  }

  private leaveNamespace(containerId: string, nsId: string): void {
    const ns = this.hns.store.namespaces.get(nsId);
    if (!ns) return; // deleted out of band: nothing to leave
    if (listsContainer(ns, containerId))
      this.hns.modifyNamespace(nsId, {
        ResourceType: 'Container',
        RequestType: 'Remove',
        Settings: { ContainerId: containerId },
      });
  }

  /** An HNS endpoint a compute system can take: it exists and is local. */
  private localEndpoint(epId: string): EndpointRec {
    const e = this.hns.getEndpoint(epId);
    if (isRemote(e)) throw hnsError('HCN_E_INVALID_REMOTE_ENDPOINT_OPERATION', e.ID);
    return e;
  }

  /** v1: the endpoint's `SharedContainers` gains (or loses) the container. */
  private shareEndpoint(containerId: string, e: EndpointRec, add: boolean): void {
    const has = e.SharedContainers.some((c) => key(c) === key(containerId));
    if (add && !has) this.hns.setSharedContainers(e.ID, [...e.SharedContainers, containerId]);
    if (!add && has)
      this.hns.setSharedContainers(
        e.ID,
        e.SharedContainers.filter((c) => key(c) !== key(containerId)),
      );
  }

  /** A VM NIC's endpoint gets a VM switch port (what `Get-HnsEndpoint` shows as attached to a VM). */
  private attachPort(vm: ComputeSystemRec, nic: NicRec): void {
    this.hns.modifyEndpoint(nic.endpointId, {
      ResourceType: 'Port',
      RequestType: 'Add',
      Settings: {
        PortId: newGuid(this.deps.rng),
        VirtualMachineId: vm.runtimeId,
        VirtualNicName: `${vm.runtimeId}--${nic.nicId}`,
      },
    });
  }

  private detachPort(vm: ComputeSystemRec, nic: NicRec): void {
    const e = this.hns.store.endpoints.get(nic.endpointId);
    // only this VM's port: an endpoint a never-started VM names may be on another VM's port
    if (e?.VmPort && e.VmPort.VirtualMachineId === vm.runtimeId)
      this.hns.modifyEndpoint(nic.endpointId, { ResourceType: 'Port', RequestType: 'Remove', Settings: {} });
  }

  // ───────────────────────────── pause / resume ─────────────────────────────

  pause(id: string): ComputeSystemRec {
    const rec = this.get(id);
    if (rec.isolation === 'Process' || rec.isolation === 'HostProcess')
      throw hnsError('ERROR_NOT_SUPPORTED', 'a process-isolated container cannot be paused');
    if (rec.state !== 'Running')
      throw hnsError('HCS_E_INVALID_STATE', `${rec.id} is ${rec.state}: only a Running system pauses`);
    const out = this.put({ ...rec, state: 'Paused' });
    this.notify(rec.id, 'SystemPauseCompleted');
    return out;
  }

  resume(id: string): ComputeSystemRec {
    const rec = this.get(id);
    if (rec.state !== 'Paused')
      throw hnsError('HCS_E_INVALID_STATE', `${rec.id} is ${rec.state}: only a Paused system resumes`);
    const out = this.put({ ...rec, state: 'Running' });
    this.notify(rec.id, 'SystemResumeCompleted');
    return out;
  }

  // ───────────────────────────── stopping ─────────────────────────────

  /** Graceful shutdown (GracefulExit). */
  shutdown(id: string): ComputeSystemRec {
    const rec = this.get(id);
    if (rec.state === 'Stopped') throw hnsError('HCS_E_SYSTEM_ALREADY_STOPPED', rec.id);
    if (rec.state === 'Paused')
      throw hnsError('HCS_E_INVALID_STATE', `${rec.id} is Paused: the guest cannot shut down`);
    if (rec.state === 'Created') {
      if (this.opts.shutdownCreated === 'invalid')
        throw hnsError('HCS_E_INVALID_STATE', `${rec.id} never started`);
      return this.exit(rec, 'ForcedExit', 0);
    }
    return this.exit(rec, 'GracefulExit', 0);
  }

  /** Forced termination (ForcedExit). */
  terminate(id: string): ComputeSystemRec {
    const rec = this.get(id);
    if (rec.state === 'Stopped') throw hnsError('HCS_E_SYSTEM_ALREADY_STOPPED', rec.id);
    return this.exit(rec, 'ForcedExit', 0);
  }

  /**
   * The system dies on its own (a crash, a guest bug): UnexpectedExit with HCS_E_UNEXPECTED_EXIT
   * as its status, unless told otherwise. For tests and fault injection.
   */
  injectExit(id: string, exitType: ExitType = 'UnexpectedExit', status?: number): ComputeSystemRec {
    const rec = this.get(id);
    if (!isLive(rec.state))
      throw hnsError('HCS_E_INVALID_STATE', `${rec.id} is ${rec.state}: only a running system can exit`);
    return this.exit(rec, exitType, status ?? (exitType === 'UnexpectedExit' ? 0x80370106 : 0));
  }

  /** Stop a system: its NICs go, the containers it hosts stop with it; HNS objects stay (§6). */
  private exit(rec: ComputeSystemRec, exitType: ExitType, status: number): ComputeSystemRec {
    if (rec.systemType === 'VirtualMachine') {
      for (const hosted of [...this.systems.values()])
        if (hosted.hostingSystemId === rec.id && hosted.state !== 'Stopped')
          this.exit(hosted, exitType === 'GracefulExit' ? 'ForcedExit' : exitType, status);
      if (rec.state !== 'Created') for (const nic of rec.nics) this.detachPort(rec, nic);
    }
    const out = this.put({
      ...rec,
      state: 'Stopped',
      exitType,
      exitStatus: status >>> 0,
      nics: [],
      guestAdapters: [],
      ...(rec.guestNamespace ? { guestNamespace: undefined } : {}),
    });
    this.notify(rec.id, 'SystemExited', { Status: status | 0, ExitType: exitType });
    return out;
  }

  /**
   * Close the last handle: a stopped system's ID is gone (its container leaves its namespace's
   * resources, unless `detachOnClose` is false); a live one with TerminateOnLastHandleClosed is
   * terminated and gone; any other live one keeps running (HCS keeps it for a later Open).
   */
  close(id: string): boolean {
    const rec = this.get(id);
    let cur = rec;
    if (rec.state !== 'Stopped') {
      if (!rec.terminateOnLastHandleClosed) return false;
      cur = this.exit(rec, 'ForcedExit', 0);
    }
    if (rec.systemType === 'VirtualMachine')
      for (const hosted of [...this.systems.values()])
        if (hosted.hostingSystemId === rec.id) this.systems.delete(key(hosted.id));
    if (this.opts.detachOnClose !== false) {
      if (cur.networking.namespace && cur.isolation !== 'Hosted')
        this.leaveNamespace(cur.id, cur.networking.namespace);
      // the container's vNICs went with it: HNS endpoints no longer list it as attached
      for (const ep of cur.v1Endpoints) {
        const e = this.hns.store.endpoints.get(ep);
        if (e) this.shareEndpoint(cur.id, e, false);
      }
    }
    this.systems.delete(key(rec.id));
    return true;
  }

  // ───────────────────────────── modify ─────────────────────────────

  modify(id: string, doc: JsonObject): ComputeSystemRec {
    const rec = this.get(id);
    const req = parseModify(doc);
    if (rec.state === 'Stopped') throw hnsError('HCS_E_SYSTEM_ALREADY_STOPPED', rec.id);
    if (rec.state === 'Paused' || (rec.state === 'Created' && this.opts.modifyCreated === 'invalid'))
      throw hnsError('HCS_E_INVALID_STATE', `${rec.id} is ${rec.state}`);
    let out: ComputeSystemRec;
    switch (req.kind) {
      case 'v1Network':
        out = this.modifyV1Network(rec, req);
        break;
      case 'nic':
        out = this.modifyNic(rec, req);
        break;
      case 'guest':
        out = this.put({ ...rec, ...this.guestChange(rec, req.guest, rec.nics) });
        break;
      default:
        throw hnsError('ERROR_NOT_SUPPORTED', `modify of "${req.resource}" is not simulated`);
    }
    this.notify(rec.id, 'SystemModifyCompleted');
    return out;
  }

  /** The v1 hot-attach (or detach) of an endpoint to a container: its `SharedContainers` change. */
  private modifyV1Network(rec: ComputeSystemRec, req: V1NetworkRequest): ComputeSystemRec {
    if (rec.systemType === 'VirtualMachine')
      throw hnsError('ERROR_NOT_SUPPORTED', 'a virtual machine takes network adapters through ResourcePath');
    const e = this.localEndpoint(req.endpointId);
    const add = req.requestType === 'Add';
    const has = e.SharedContainers.some((c) => key(c) === key(rec.id));
    if (add && has) throw hnsError('HCN_E_ENDPOINT_ALREADY_ATTACHED', `${req.endpointId} to ${rec.id}`);
    if (!add && !has) throw hnsError('HCN_E_ENDPOINT_NOT_ATTACHED', `${req.endpointId} from ${rec.id}`);
    this.shareEndpoint(rec.id, e, add);
    return this.put({
      ...rec,
      v1Endpoints: add ? [...rec.v1Endpoints, e.ID] : rec.v1Endpoints.filter((x) => x !== e.ID),
    });
  }

  private modifyNic(rec: ComputeSystemRec, req: NicRequest): ComputeSystemRec {
    if (rec.systemType !== 'VirtualMachine')
      throw hnsError(
        'ERROR_NOT_SUPPORTED',
        `${rec.id} is a container: network adapters belong to virtual machines`,
      );
    const existing = rec.nics.find((n) => n.nicId === req.nicId);
    if (req.requestType === 'Add') {
      if (existing) throw hnsError('ERROR_ALREADY_EXISTS', `network adapter ${req.nicId}`);
      const e = this.localEndpoint(req.endpointId!);
      if (e.VmPort || rec.nics.some((n) => n.endpointId === e.ID))
        throw hnsError('HCN_E_ENDPOINT_ALREADY_ATTACHED', req.endpointId!);
      const nic: NicRec = { nicId: req.nicId, endpointId: e.ID, macAddress: req.macAddress ?? e.MacAddress };
      const nics = [...rec.nics, nic];
      const guest = req.guest ? this.guestChange(rec, req.guest, nics) : {};
      // a Created VM gets the port when it starts, with the NICs of its document
      if (rec.state === 'Running') this.attachPort(rec, nic);
      return this.put({ ...rec, nics, ...guest });
    }
    if (!existing) throw hnsError('ERROR_NOT_FOUND', `network adapter ${req.nicId}`);
    if (req.requestType === 'Update') {
      const nic = { ...existing, ...(req.macAddress ? { macAddress: req.macAddress } : {}) };
      return this.put({ ...rec, nics: rec.nics.map((n) => (n.nicId === nic.nicId ? nic : n)) });
    }
    const nics = rec.nics.filter((n) => n.nicId !== req.nicId);
    // removing the host NIC takes the guest's adapter with it
    const guest = req.guest ? this.guestChange(rec, req.guest, rec.nics) : {};
    if (rec.state !== 'Created') this.detachPort(rec, existing);
    const guestAdapters = (guest.guestAdapters ?? rec.guestAdapters).filter((a) => a.adapterId !== req.nicId);
    return this.put({ ...rec, nics, ...guest, guestAdapters });
  }

  /** A guest request to a utility VM (WCOW GCS): validated against the state, no change made. */
  private guestChange(
    rec: ComputeSystemRec,
    g: GuestRequest,
    nics: readonly NicRec[],
  ): { guestNamespace?: string | undefined; guestAdapters?: readonly GuestAdapterRec[] } {
    if (rec.systemType !== 'VirtualMachine')
      throw hnsError('ERROR_NOT_SUPPORTED', `${rec.id} has no guest to send requests to`);
    if (rec.state !== 'Running')
      throw hnsError('HCS_E_INVALID_STATE', `the guest of ${rec.id} is not running`);
    if (g.kind === 'namespace') {
      if (g.requestType === 'Add') {
        this.hns.getNamespace(g.namespaceId);
        if (rec.guestNamespace)
          throw hnsError('ERROR_ALREADY_EXISTS', `network namespace ${rec.guestNamespace} already added`);
        return { guestNamespace: g.namespaceId };
      }
      if (!rec.guestNamespace || key(rec.guestNamespace) !== key(g.namespaceId))
        throw hnsError('ERROR_NOT_FOUND', `network namespace ${g.namespaceId} is not in the guest`);
      if (rec.guestAdapters.length)
        throw hnsError(
          'HCS_E_INVALID_STATE',
          `network namespace ${g.namespaceId} still has ${rec.guestAdapters.length} adapter(s)`,
        );
      return { guestNamespace: undefined };
    }
    const have = rec.guestAdapters.find((a) => a.adapterId === g.adapterId);
    switch (g.requestType) {
      case 'PreAdd':
        if (have)
          throw hnsError('ERROR_ALREADY_EXISTS', `adapter ${g.adapterId} already present in the guest`);
        return { guestAdapters: [...rec.guestAdapters, { adapterId: g.adapterId, state: 'PreAdd' }] };
      case 'Add':
        if (have?.state === 'Add')
          throw hnsError('ERROR_ALREADY_EXISTS', `adapter ${g.adapterId} already present in the guest`);
        if (!nics.some((n) => n.nicId === g.adapterId))
          throw hnsError('ERROR_NOT_FOUND', `adapter ${g.adapterId}: the host has no such network adapter`);
        return {
          guestAdapters: have
            ? rec.guestAdapters.map((a) =>
                a.adapterId === g.adapterId ? { ...a, state: 'Add' as const } : a,
              )
            : [...rec.guestAdapters, { adapterId: g.adapterId, state: 'Add' }],
        };
      case 'Remove':
        if (!have) throw hnsError('ERROR_NOT_FOUND', `adapter ${g.adapterId} is not in the guest`);
        return { guestAdapters: rec.guestAdapters.filter((a) => a.adapterId !== g.adapterId) };
    }
  }

  // ───────────────────────────── properties ─────────────────────────────

  /** The properties document (schema 2 names; a schema 1 system gets its v1 extras). */
  properties(id: string, query: JsonObject = {}): JsonObject {
    const rec = this.get(id);
    const types = parsePropertyQuery(query);
    if (types.includes('Statistics') && rec.state === 'Created')
      throw hnsError('HCS_E_INVALID_STATE', `${rec.id} has no statistics before it starts`);
    return this.document(rec, types);
  }

  private document(rec: ComputeSystemRec, types: readonly PropertyType[]): JsonObject {
    const o: JsonObject = {
      Id: rec.id,
      SystemType: rec.systemType,
      Name: rec.name,
      Owner: rec.owner,
      RuntimeOsType: 'windows',
      RuntimeId: rec.runtimeId,
      State: rec.state,
      Stopped: rec.state === 'Stopped',
    };
    if (rec.state === 'Stopped') o['ExitType'] = rec.exitType;
    if (rec.hostingSystemId) o['HostingSystemId'] = rec.hostingSystemId;
    if (rec.schema === 1) {
      o['SiloGuid'] = rec.runtimeId;
      o['IsRuntimeTemplate'] = false;
    }
    if (types.includes('TerminateOnLastHandleClosed'))
      o['TerminateOnLastHandleClosed'] = rec.terminateOnLastHandleClosed;
    if (types.includes('ProcessList')) o['ProcessList'] = [];
    if (types.includes('Memory'))
      o['Memory'] = { VirtualMachineMemory: { AvailableMemory: 0, AssignedMemory: 0 } };
    if (types.includes('GuestConnection') && rec.systemType === 'VirtualMachine') {
      o['GuestConnectionInfo'] = {
        SupportedSchemaVersions: [{ Major: 2, Minor: 1 }],
        ProtocolVersion: 4,
        GuestDefinedCapabilities: { NamespaceAddRequestSupported: true },
      };
    }
    if (types.includes('Statistics')) {
      const start = rec.started ?? rec.created;
      const stats: JsonObject = {
        Timestamp: isoAt(this.now()),
        ContainerStartTime: isoAt(start),
        Uptime100ns: rec.state === 'Stopped' ? 0 : (this.now() - start) * 10_000,
        Memory: {
          MemoryUsageCommitBytes: 0,
          MemoryUsageCommitPeakBytes: 0,
          MemoryUsagePrivateWorkingSetBytes: 0,
        },
        Processor: { TotalRuntime100ns: 0, RuntimeUser100ns: 0, RuntimeKernel100ns: 0 },
      };
      // vmcompute's ContainerProperties carry the network counters of the attached endpoints
      if (rec.schema === 1) {
        stats['Network'] = this.attachedEndpoints(rec).map((epId) => {
          const c = this.hns.store.statsOf(epId);
          return {
            BytesReceived: c.BytesReceived,
            BytesSent: c.BytesSent,
            PacketsReceived: c.PacketsReceived,
            PacketsSent: c.PacketsSent,
            DroppedPacketsIncoming: c.DroppedPacketsIncoming,
            DroppedPacketsOutgoing: c.DroppedPacketsOutgoing,
            EndpointId: epId,
            InstanceId: epId,
          };
        });
      }
      o['Statistics'] = stats;
    }
    return o;
  }

  /**
   * The HNS endpoints a running system's network sees: its namespace's (process containers), the
   * endpoints sharing it (v1), its NICs' (utility VMs), its host's (hosted containers), or those of
   * the container whose stack it shares. Empty unless running or paused.
   */
  attachedEndpoints(rec: ComputeSystemRec, seen = new Set<string>()): string[] {
    if (!isLive(rec.state)) return [];
    if (seen.has(key(rec.id))) return [];
    seen.add(key(rec.id));
    if (rec.networking.sharedContainerName) {
      const other = this.find(rec.networking.sharedContainerName);
      return other ? this.attachedEndpoints(other, seen) : [];
    }
    if (rec.isolation === 'Hosted') {
      const vm = rec.hostingSystemId ? this.find(rec.hostingSystemId) : undefined;
      return vm ? this.attachedEndpoints(vm, seen) : [];
    }
    if (rec.systemType === 'VirtualMachine') return rec.nics.map((n) => n.endpointId);
    const out: string[] = [];
    const s = this.hns.store;
    const addEndpointsOf = (ns: NamespaceRec | undefined): void => {
      for (const r of ns?.Resources ?? []) if (r.Type === 'Endpoint' && s.endpoints.has(r.ID)) out.push(r.ID);
    };
    // a HostProcess container runs in the host's network: its default compartment's endpoints
    if (rec.isolation === 'HostProcess') {
      for (const ns of s.namespaces.values()) if (ns.NamespaceId === DEFAULT_COMPARTMENT) addEndpointsOf(ns);
      return out;
    }
    if (rec.networking.namespace) addEndpointsOf(s.namespaces.get(rec.networking.namespace));
    for (const e of s.endpoints.values())
      if (!out.includes(e.ID) && e.SharedContainers.some((c) => key(c) === key(rec.id))) out.push(e.ID);
    return out;
  }

  /** `HcsEnumerateComputeSystems`: the systems a query selects (Ids, Names, Types, Owners). */
  enumerate(query: JsonObject = {}): JsonObject[] {
    const q = parseSystemQuery(query);
    const inList = (list: readonly string[], v: string) =>
      !list.length || list.some((x) => key(x) === key(v));
    return [...this.systems.values()]
      .filter(
        (r) =>
          inList(q.ids, r.id) &&
          inList(q.names, r.name) &&
          inList(q.types, r.systemType) &&
          inList(q.owners, r.owner),
      )
      .sort((a, b) => a.seq - b.seq)
      .map((r) => this.document(r, []));
  }

  // ───────────────────────────── service events ─────────────────────────────

  /**
   * vmcompute stops or crashes (§7): every live system is force-exited, every handle gets
   * ServiceDisconnect, and the systems are gone (handles do not survive; runtimes create anew).
   */
  serviceStop(): void {
    for (const rec of [...this.systems.values()].sort((a, b) => b.seq - a.seq))
      if (rec.state !== 'Stopped') this.exit(rec, 'ForcedExit', 0x8037011e);
    for (const rec of this.systems.values()) this.notify(rec.id, 'ServiceDisconnect');
    this.systems.clear();
  }

  /** Forget everything (a reboot, a restore). */
  clear(): void {
    this.systems.clear();
  }

  // ───────────────────────────── snapshots ─────────────────────────────

  snapshot(): JsonObject {
    return {
      seq: this.seq,
      systems: [...this.systems.values()]
        .sort((a, b) => a.seq - b.seq)
        .map((r) => JSON.parse(JSON.stringify(r)) as JsonObject),
    };
  }

  /** Check a snapshot's HCS part (before anything is restored); returns what `restore` takes. */
  static readSnapshot(snap: unknown): { seq: number; systems: ComputeSystemRec[] } | undefined {
    if (snap === undefined || snap === null) return undefined;
    const o = snap as { seq?: unknown; systems?: unknown };
    if (!Array.isArray(o.systems) || typeof o.seq !== 'number')
      throw hnsError('E_INVALIDARG', "the snapshot's hcs part is not {seq, systems}");
    const systems = (o.systems as ComputeSystemRec[]).map((r) => {
      if (typeof r?.id !== 'string' || typeof r.state !== 'string' || !Array.isArray(r.nics))
        throw hnsError('E_INVALIDARG', 'a compute system of the snapshot has no id, state or nics');
      // snapshots taken before these fields existed
      return { ...r, v1Endpoints: r.v1Endpoints ?? [], guestAdapters: r.guestAdapters ?? [] };
    });
    return { seq: o.seq, systems };
  }

  restore(snap: { seq: number; systems: ComputeSystemRec[] } | undefined): void {
    this.systems.clear();
    this.seq = snap?.seq ?? 0;
    for (const r of snap?.systems ?? []) this.systems.set(key(r.id), r);
  }
}
