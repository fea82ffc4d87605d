/**
 * Model-based test of the HCS core with HNS beneath it (STYLE.md "Model-based commands"; reference
 * hcs-lifecycle.md §1, §4–§6, hns-hcs.md §7). Random sequences of compute-system operations — create,
 * start, pause, resume, shutdown, terminate, injected exits and close of process containers, utility
 * VMs and containers hosted in them, NIC add/remove on VMs (with and without the guest request) —
 * mixed with the HNS side (namespaces created and deleted, endpoints created, deleted, added to and
 * removed from namespaces through the flat API), vmcompute restarts and snapshot → restore onto a
 * fresh host, against a small reference model. After every step:
 * - the HNS invariants hold (`checkInvariants`) and the host agrees with the model (systems, states,
 *   exit types, NICs, guest adapters, VM ports, namespace resources);
 * - a running process container's `attachedEndpoints` = exactly the endpoints its namespace holds
 *   (those that still exist);
 * - no HNS endpoint has a VM port for a VM that is stopped or gone, or that has no NIC on it;
 * - a stopped VM has no NICs and no guest adapters; a closed system is gone;
 * - no namespace lists a closed system as a `Container` resource (default detachOnClose) — the
 *   entries a vmcompute restart leaves behind (its systems vanish without a Close) excepted;
 * - a failed call threw a registered HnsError and left `host.snapshot()` unchanged;
 * and at the end of every run (and as a command), a snapshot restored on a new host gives the same
 * snapshot (the command then carries on with the restored host).
 *
 * NICs are hot-added only to running (or paused, which fails) VMs: a NIC added to a Created VM
 * kept that VM from starting (fixed; see state-table.test.ts, "Modify × Created").
 * VM documents bring no NICs (see pods.test.ts for the two bugs that path has).
 *
 * Soak: HNSIM_HCS_MODEL_RUNS=2000 HNSIM_HCS_MODEL_COMMANDS=80 npx vitest run test/hcs/model.prop.test.ts
 * (HNSIM_HCS_MODEL_STATS=1 prints how often each operation met each outcome).
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isFailure, type HcnResult } from '../../src/api/flat.js';
import { HnsError, HRESULTS, isRegisteredHResult, type HResultName } from '../../src/core/errors.js';
import type { JsonObject } from '../../src/core/json.js';
import type { ExitType, SystemState } from '../../src/hcs/model.js';
import { createHost, type Host } from '../../src/host/host.js';
import { checkInvariants } from '../../src/testing/index.js';
import { runs } from '../runs.js';

// ───────────────────────────── the reference model ─────────────────────────────

type SysKind = 'proc' | 'uvm' | 'hosted';

interface SysM {
  /** The ID as created. */
  readonly id: string;
  readonly kind: SysKind;
  state: SystemState;
  exitType: ExitType;
  /** Process containers: the HNS namespace of `Container.Networking.Namespace`. */
  readonly ns?: string;
  /** Hosted containers: the key of their VM. */
  readonly host?: string;
  /** ShouldTerminateOnLastHandleClosed. */
  readonly toc: boolean;
  /** VMs: NICs in hot-add order. */
  nics: { nic: string; ep: string }[];
  /** VMs: adapters the guest was told of. */
  guest: string[];
}

interface NsM {
  readonly endpoints: string[];
  /** `Container` resources, as listed (the container's ID as created). */
  readonly containers: string[];
}

interface EpM {
  ns?: string;
  /** The key of the VM whose NIC holds the endpoint's VM port. */
  vm?: string;
}

const key = (id: string): string => id.toLowerCase();

class Model {
  /** Systems by lower-case ID. */
  readonly systems = new Map<string, SysM>();
  /** Lower-case IDs the client closed (and has not created again). */
  readonly closed = new Set<string>();
  /** `<ns>/<lower-case id>` listings left behind by a vmcompute restart. */
  readonly stale = new Set<string>();
  readonly namespaces = new Map<string, NsM>();
  readonly endpoints = new Map<string, EpM>();
  readonly deadNamespaces: string[] = [];
  readonly deadEndpoints: string[] = [];

  join(nsId: string, id: string): void {
    const ns = this.namespaces.get(nsId)!;
    this.stale.delete(`${nsId}/${key(id)}`);
    if (!ns.containers.some((c) => key(c) === key(id))) ns.containers.push(id);
  }

  leave(nsId: string, id: string): void {
    const ns = this.namespaces.get(nsId);
    this.stale.delete(`${nsId}/${key(id)}`);
    const i = ns ? ns.containers.findIndex((c) => key(c) === key(id)) : -1;
    if (i >= 0) ns!.containers.splice(i, 1);
  }

  /** A system stops: a VM's hosted containers stop with it, its NICs go and their ports with them. */
  exit(s: SysM, exitType: ExitType): void {
    if (s.kind === 'uvm') {
      for (const h of this.systems.values())
        if (h.host === key(s.id) && h.state !== 'Stopped') {
          h.state = 'Stopped';
          h.exitType = exitType === 'GracefulExit' ? 'ForcedExit' : exitType;
        }
      for (const n of s.nics) {
        const e = this.endpoints.get(n.ep);
        if (e?.vm === key(s.id)) delete e.vm;
      }
      s.nics = [];
      s.guest = [];
    }
    s.state = 'Stopped';
    s.exitType = exitType;
  }

  removeEndpoint(id: string): void {
    const e = this.endpoints.get(id)!;
    if (e.ns) {
      const list = this.namespaces.get(e.ns)!.endpoints;
      list.splice(list.indexOf(id), 1);
    }
    this.endpoints.delete(id);
    this.deadEndpoints.push(id);
  }

  removeNamespace(id: string): void {
    for (const ep of this.namespaces.get(id)!.endpoints) delete this.endpoints.get(ep)!.ns;
    for (const s of [...this.stale]) if (s.startsWith(`${id}/`)) this.stale.delete(s);
    this.namespaces.delete(id);
    this.deadNamespaces.push(id);
  }
}

interface Real {
  host: Host;
}

// ───────────────────────────── references ─────────────────────────────

const SYSTEM_IDS = ['s0', 's1', 's2', 's3', 'vm0', 'vm1'] as const;
const NIC_IDS = [
  '4E1C0000-0000-4000-8000-000000000001',
  '4E1C0000-0000-4000-8000-000000000002',
  '4E1C0000-0000-4000-8000-000000000003',
] as const;
const UNKNOWN_GUID = '0C0FFEE0-0000-4000-8000-00000000A0A0';

/**
 * A system: one the model has (`any`), one of its VMs (`vm`), or any ID of the pool, which may name
 * nothing; maybe upper-cased (HCS IDs compare case-insensitively).
 */
interface SysRef {
  readonly mode: 'any' | 'vm' | 'pool';
  readonly pick: number;
  readonly upper: boolean;
}
function sysRefArb(any: number, vm: number, pool: number): fc.Arbitrary<SysRef> {
  return fc.record({
    mode: fc.oneof(
      { weight: any, arbitrary: fc.constant('any' as const) },
      { weight: vm, arbitrary: fc.constant('vm' as const) },
      { weight: pool, arbitrary: fc.constant('pool' as const) },
    ),
    pick: fc.nat(15),
    upper: fc.boolean(),
  });
}
function sysArg(m: Model, r: SysRef): string {
  const all = [...m.systems.values()];
  const vms = all.filter((s) => s.kind === 'uvm');
  const running = vms.filter((s) => s.state === 'Running');
  // `vm`: a running VM when there is one, else any VM, else any system
  const from =
    r.mode === 'pool' ? [] : r.mode === 'any' ? all : ([running, vms, all].find((xs) => xs.length) ?? []);
  const id = from.length ? from[r.pick % from.length]!.id : SYSTEM_IDS[r.pick % SYSTEM_IDS.length]!;
  return r.upper ? id.toUpperCase() : id;
}
const showRef = (r: SysRef) => `${r.mode}#${r.pick}${r.upper ? '^' : ''}`;

/** An HNS object: a live one, a deleted one, or an ID that never named anything. */
interface ObjRef {
  readonly mode: 'live' | 'dead' | 'unknown';
  readonly pick: number;
}
const objRefArb: fc.Arbitrary<ObjRef> = fc.record({
  mode: fc.oneof(
    { weight: 12, arbitrary: fc.constant('live' as const) },
    { weight: 1, arbitrary: fc.constant('dead' as const) },
    { weight: 1, arbitrary: fc.constant('unknown' as const) },
  ),
  pick: fc.nat(15),
});

function resolve(live: readonly string[], dead: readonly string[], ref: ObjRef): string {
  const at = (xs: readonly string[]) => (xs.length ? xs[ref.pick % xs.length] : undefined);
  if (ref.mode === 'live') return at(live) ?? UNKNOWN_GUID;
  if (ref.mode === 'dead') return at(dead) ?? UNKNOWN_GUID;
  return UNKNOWN_GUID;
}
const nsOf = (m: Model, ref: ObjRef) => resolve([...m.namespaces.keys()], m.deadNamespaces, ref);
const epOf = (m: Model, ref: ObjRef) => resolve([...m.endpoints.keys()], m.deadEndpoints, ref);

// ───────────────────────────── calls and outcomes ─────────────────────────────

type Want = 'ok' | HResultName;

const STATS = new Map<string, number>();
function tally(label: string, outcome: string): void {
  const k = `${label} → ${outcome}`;
  STATS.set(k, (STATS.get(k) ?? 0) + 1);
}

function same(actual: unknown, expected: unknown, what: string): void {
  if (!isDeepStrictEqual(actual, expected)) expect(actual, what).toEqual(expected);
}
function ensure(cond: boolean, what: string): void {
  if (!cond) expect.fail(what);
}

/**
 * Run an HCS call: a failure must be a registered HnsError that left the snapshot as it was; the
 * outcome must be the model's.
 */
function hcsCall<T>(real: Real, label: string, want: Want, fn: () => T): T | undefined {
  const before = real.host.snapshot();
  let out: T | undefined;
  let error: unknown;
  try {
    out = fn();
  } catch (e) {
    error = e;
  }
  if (error !== undefined) {
    if (!(error instanceof HnsError)) throw error;
    tally(label, error.code);
    ensure(isRegisteredHResult(error.hresult), `${label}: unregistered HRESULT ${error.hresult}`);
    same(real.host.snapshot(), before, `${label} failed with ${error.code} but changed the state`);
    ensure(want !== 'ok', `${label}: expected success, got ${error.code} (${error.message})`);
    same(error.code, want, `${label}: error`);
    same(error.hresult, HRESULTS[want as HResultName].code, `${label}: HRESULT`);
    return undefined;
  }
  tally(label, 'ok');
  ensure(want === 'ok', `${label}: expected ${want}, got success`);
  return out;
}

/** The same for a flat HNS call (failures as data). */
function hnsCall<T>(real: Real, label: string, want: Want, fn: () => HcnResult<T>): T | undefined {
  const before = real.host.snapshot();
  const r = fn();
  if (isFailure(r)) {
    tally(label, String(r.name));
    same(real.host.snapshot(), before, `${label} failed with ${r.name} but changed the state`);
    ensure(want !== 'ok', `${label}: expected success, got ${r.name} (${r.message})`);
    same(r.name, want, `${label}: error`);
    return undefined;
  }
  tally(label, 'ok');
  ensure(want === 'ok', `${label}: expected ${want}, got success`);
  return r.result;
}

// ───────────────────────────── agreement and invariants ─────────────────────────────

function namespaceResources(host: Host, ns: string): { endpoints: string[]; containers: string[] } {
  const r = host.api.HcnQueryNamespaceProperties(ns);
  if (isFailure(r)) return expect.fail(`namespace ${ns} cannot be queried: ${r.name}`);
  const res = (r.result.Resources ?? []) as { Type: string; Data: { ID: string } }[];
  return {
    endpoints: res.filter((x) => x.Type === 'Endpoint').map((x) => x.Data.ID),
    containers: res.filter((x) => x.Type === 'Container').map((x) => x.Data.ID),
  };
}

function agree(m: Model, real: Real, label: string): void {
  const host = real.host;
  const at = ` after ${label}`;
  const problems = checkInvariants(host);
  if (problems.length) expect(problems, `HNS invariants${at}`).toEqual([]);
  const hcs = host.hcs;
  const store = host.hns.store;

  // ── the host agrees with the model
  same([...hcs.systems.keys()].sort(), [...m.systems.keys()].sort(), `systems${at}`);
  for (const [k, s] of m.systems) {
    const rec = hcs.systems.get(k)!;
    same(rec.id, s.id, `ID of ${k}${at}`);
    same(rec.state, s.state, `state of ${k}${at}`);
    same(rec.exitType, s.state === 'Stopped' ? s.exitType : 'None', `exit type of ${k}${at}`);
    same(
      rec.nics.map((n) => [n.nicId, n.endpointId]),
      s.nics.map((n) => [n.nic, n.ep]),
      `NICs of ${k}${at}`,
    );
    same(
      rec.guestAdapters.map((a) => a.adapterId),
      s.guest,
      `guest adapters of ${k}${at}`,
    );
  }
  const nsIds = host.api.HcnEnumerateNamespaces();
  same(isFailure(nsIds) ? nsIds : nsIds.result, [...m.namespaces.keys()], `namespaces${at}`);
  for (const [id, ns] of m.namespaces) same(namespaceResources(host, id), ns, `resources of ${id}${at}`);
  same([...store.endpoints.keys()], [...m.endpoints.keys()], `endpoints${at}`);
  for (const [id, e] of m.endpoints) {
    const rec = store.endpoints.get(id)!;
    same(rec.HostComputeNamespace, e.ns, `namespace of ${id}${at}`);
    const vm = e.vm ? hcs.systems.get(e.vm) : undefined;
    same(rec.VmPort?.VirtualMachineId, vm?.runtimeId, `VM port of ${id}${at}`);
  }

  // ── the invariants, read from the host alone
  const systems = [...hcs.systems.values()];
  for (const rec of systems) {
    const seen = hcs.attachedEndpoints(rec);
    if (rec.isolation === 'Process' && rec.state === 'Running') {
      // exactly the endpoints of its namespace that still exist
      const nsId = rec.networking.namespace;
      const want =
        nsId && store.namespaces.has(nsId)
          ? namespaceResources(host, nsId).endpoints.filter(
              (ep) => !isFailure(host.api.HcnQueryEndpointProperties(ep)),
            )
          : [];
      same(seen, want, `attachedEndpoints of running container ${rec.id}${at}`);
    }
    if (rec.systemType === 'VirtualMachine') {
      if (rec.state === 'Stopped') {
        same(rec.nics, [], `NICs of stopped VM ${rec.id}${at}`);
        same(rec.guestAdapters, [], `guest adapters of stopped VM ${rec.id}${at}`);
      }
      if (rec.state === 'Running' || rec.state === 'Paused')
        same(
          seen,
          rec.nics.map((n) => n.endpointId),
          `attachedEndpoints of VM ${rec.id}${at}`,
        );
    }
    if (rec.isolation === 'Hosted') {
      const vm = hcs.systems.get(key(rec.hostingSystemId!));
      ensure(vm !== undefined, `hosted ${rec.id} outlived its VM${at}`);
      if (vm!.state === 'Stopped') same(rec.state, 'Stopped', `hosted ${rec.id} of a stopped VM${at}`);
      if (rec.state === 'Running' || rec.state === 'Paused')
        same(seen, hcs.attachedEndpoints(vm!), `attachedEndpoints of hosted ${rec.id}${at}`);
    }
    if (rec.state !== 'Running' && rec.state !== 'Paused')
      same(seen, [], `attachedEndpoints of ${rec.id}${at}`);
  }
  for (const e of store.endpoints.values()) {
    if (!e.VmPort) continue;
    const vm = systems.find(
      (s) => s.systemType === 'VirtualMachine' && s.runtimeId === e.VmPort!.VirtualMachineId,
    );
    ensure(vm !== undefined, `endpoint ${e.ID} has a VM port for a VM that is gone${at}`);
    ensure(
      vm!.state === 'Running' || vm!.state === 'Paused',
      `endpoint ${e.ID}: VM ${vm!.id} is ${vm!.state}${at}`,
    );
    ensure(
      vm!.nics.some((n) => n.endpointId === e.ID),
      `endpoint ${e.ID} has a port for VM ${vm!.id}, which has no NIC on it${at}`,
    );
  }
  for (const id of m.closed) ensure(!hcs.systems.has(id), `closed ${id} still exists${at}`);
  for (const ns of store.namespaces.values())
    for (const r of ns.Resources)
      if (r.Type === 'Container' && m.closed.has(key(r.ID)))
        ensure(m.stale.has(`${ns.ID}/${key(r.ID)}`), `namespace ${ns.ID} lists closed system ${r.ID}${at}`);
}

/** Snapshot → restore on a new host gives the same snapshot; the new host carries on. */
function restoreOnNewHost(real: Real): void {
  const snap = real.host.snapshot();
  const fresh = createHost({ seed: 4242 });
  fresh.restore(JSON.parse(JSON.stringify(snap)));
  same(fresh.snapshot(), snap, 'snapshot of the restored host');
  real.host = fresh;
}

// ───────────────────────────── commands ─────────────────────────────

class Step implements fc.Command<Model, Real> {
  constructor(
    private readonly label: string,
    private readonly exec: (m: Model, r: Real) => void,
  ) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    this.exec(m, r);
    agree(m, r, this.label);
  }
  toString(): string {
    return this.label;
  }
}

function processDoc(ns: string | undefined, toc: boolean): JsonObject {
  return {
    SchemaVersion: { Major: 2, Minor: 1 },
    Owner: 'model',
    ShouldTerminateOnLastHandleClosed: toc,
    Container: { Networking: ns ? { Namespace: ns.toLowerCase(), AllowUnqualifiedDnsQuery: true } : {} },
  };
}
function vmDoc(toc: boolean): JsonObject {
  return {
    SchemaVersion: { Major: 2, Minor: 1 },
    Owner: 'model',
    ShouldTerminateOnLastHandleClosed: toc,
    VirtualMachine: { ComputeTopology: {}, Devices: {} },
  };
}
function hostedDoc(vm: string, ns: string | undefined, toc: boolean): JsonObject {
  return {
    SchemaVersion: { Major: 2, Minor: 1 },
    Owner: 'model',
    ShouldTerminateOnLastHandleClosed: toc,
    HostingSystemId: vm,
    HostedSystem: { Container: { Networking: ns ? { Namespace: ns } : {} } },
  };
}

/** The model's system of an ID, in any case (undefined: HCS_E_SYSTEM_NOT_FOUND). */
function lookup(m: Model, id: string): SysM | undefined {
  return m.systems.get(key(id));
}

function createCmd(): fc.Arbitrary<Step> {
  return fc
    .record({
      kind: fc.constantFrom<SysKind>('proc', 'proc', 'uvm', 'uvm', 'hosted', 'hosted'),
      id: fc.nat(SYSTEM_IDS.length - 1),
      withNs: fc.boolean(),
      ns: objRefArb,
      vm: sysRefArb(1, 8, 1),
      toc: fc.boolean(),
    })
    .map(
      ({ kind, id: pick, withNs, ns: nsRef, vm: vmRef, toc }) =>
        new Step(
          `create ${kind} ${SYSTEM_IDS[pick]}${withNs ? ` ns(${nsRef.mode} ${nsRef.pick})` : ''}`,
          (m, real) => {
            const id = SYSTEM_IDS[pick]!;
            const ns = withNs ? nsOf(m, nsRef) : undefined;
            const vmId = sysArg(m, vmRef);
            const vm = lookup(m, vmId);
            let want: Want = 'ok';
            if (m.systems.has(key(id))) want = 'HCS_E_SYSTEM_ALREADY_EXISTS';
            else if (kind === 'hosted' && !vm) want = 'HCS_E_SYSTEM_NOT_FOUND';
            else if (kind === 'hosted' && vm!.kind !== 'uvm') want = 'E_INVALIDARG';
            else if (kind === 'hosted' && vm!.state !== 'Running') want = 'HCS_E_INVALID_STATE';
            else if (kind !== 'uvm' && ns && !m.namespaces.has(ns)) want = 'ERROR_NOT_FOUND';
            const doc =
              kind === 'proc' ? processDoc(ns, toc) : kind === 'uvm' ? vmDoc(toc) : hostedDoc(vmId, ns, toc);
            const r = hcsCall(real, `create ${kind}`, want, () => real.host.hcs.create(id, doc));
            if (!r) return;
            m.closed.delete(key(id));
            m.systems.set(key(id), {
              id,
              kind,
              state: 'Created',
              exitType: 'None',
              ...(kind === 'proc' && ns ? { ns } : {}),
              ...(kind === 'hosted' ? { host: key(vmId) } : {}),
              toc,
              nics: [],
              guest: [],
            });
          },
        ),
    );
}

type LifeOp = 'start' | 'pause' | 'resume' | 'shutdown' | 'terminate' | 'injectExit' | 'close';

function lifecycleCmd(op: LifeOp): fc.Arbitrary<Step> {
  return sysRefArb(6, 3, 1).map(
    (ref) =>
      new Step(`${op}(${showRef(ref)})`, (m, real) => {
        const id = sysArg(m, ref);
        const s = lookup(m, id);
        const hcs = real.host.hcs;
        const label = `${op} ${s?.kind ?? 'missing'} ${s?.state ?? ''}`.trim();
        if (!s) {
          hcsCall(real, label, 'HCS_E_SYSTEM_NOT_FOUND', () => (hcs[op] as (id: string) => unknown)(id));
          return;
        }
        switch (op) {
          case 'start': {
            const vm = s.host ? m.systems.get(s.host) : undefined;
            const want: Want =
              s.state !== 'Created'
                ? 'HCS_E_INVALID_STATE'
                : s.kind === 'hosted' && vm?.state !== 'Running'
                  ? 'HCS_E_INVALID_STATE'
                  : s.ns && !m.namespaces.has(s.ns)
                    ? 'ERROR_NOT_FOUND'
                    : 'ok';
            if (!hcsCall(real, label, want, () => hcs.start(id))) return;
            s.state = 'Running';
            if (s.ns) m.join(s.ns, s.id);
            return;
          }
          case 'pause': {
            const want: Want =
              s.kind === 'proc'
                ? 'ERROR_NOT_SUPPORTED'
                : s.state !== 'Running'
                  ? 'HCS_E_INVALID_STATE'
                  : 'ok';
            if (hcsCall(real, label, want, () => hcs.pause(id))) s.state = 'Paused';
            return;
          }
          case 'resume':
            if (
              hcsCall(real, label, s.state === 'Paused' ? 'ok' : 'HCS_E_INVALID_STATE', () => hcs.resume(id))
            )
              s.state = 'Running';
            return;
          case 'shutdown': {
            const want: Want =
              s.state === 'Stopped'
                ? 'HCS_E_SYSTEM_ALREADY_STOPPED'
                : s.state === 'Paused'
                  ? 'HCS_E_INVALID_STATE'
                  : 'ok';
            if (hcsCall(real, label, want, () => hcs.shutdown(id)))
              m.exit(s, s.state === 'Created' ? 'ForcedExit' : 'GracefulExit');
            return;
          }
          case 'terminate':
            if (
              hcsCall(real, label, s.state === 'Stopped' ? 'HCS_E_SYSTEM_ALREADY_STOPPED' : 'ok', () =>
                hcs.terminate(id),
              )
            )
              m.exit(s, 'ForcedExit');
            return;
          case 'injectExit': {
            const want: Want = s.state === 'Running' || s.state === 'Paused' ? 'ok' : 'HCS_E_INVALID_STATE';
            if (hcsCall(real, label, want, () => hcs.injectExit(id))) m.exit(s, 'UnexpectedExit');
            return;
          }
          case 'close': {
            const closed = hcsCall(real, label, 'ok', () => hcs.close(id));
            const live = s.state !== 'Stopped';
            same(closed, !live || s.toc, `close(${id}) returns`);
            if (live && !s.toc) return; // the system keeps running, reachable by ID
            if (live) m.exit(s, 'ForcedExit');
            for (const [k, h] of [...m.systems]) if (h.host === key(s.id)) m.systems.delete(k);
            if (s.ns) m.leave(s.ns, s.id);
            m.systems.delete(key(s.id));
            m.closed.add(key(s.id));
            return;
          }
        }
      }),
  );
}

const nicPath = (nic: string) => `VirtualMachine/Devices/NetworkAdapters/${nic}`;

function nicAddCmd(): fc.Arbitrary<Step> {
  return fc
    .record({ vm: sysRefArb(1, 8, 1), ep: objRefArb, nic: fc.nat(NIC_IDS.length - 1), guest: fc.boolean() })
    .map(
      ({ vm: ref, ep: epRef, nic: pick, guest }) =>
        new Step(
          `NIC Add ${showRef(ref)} nic${pick} ep(${epRef.mode} ${epRef.pick})${guest ? ' +guest' : ''}`,
          (m, real) => {
            const id = sysArg(m, ref);
            const s = lookup(m, id);
            if (s?.state === 'Created' && s.kind === 'uvm') return; // see the module comment
            const ep = epOf(m, epRef);
            const nic = NIC_IDS[pick]!;
            const e = m.endpoints.get(ep);
            const want: Want = !s
              ? 'HCS_E_SYSTEM_NOT_FOUND'
              : s.state === 'Stopped'
                ? 'HCS_E_SYSTEM_ALREADY_STOPPED'
                : s.state === 'Paused'
                  ? 'HCS_E_INVALID_STATE'
                  : s.kind !== 'uvm'
                    ? 'ERROR_NOT_SUPPORTED'
                    : s.nics.some((n) => n.nic === nic)
                      ? 'ERROR_ALREADY_EXISTS'
                      : !e
                        ? 'HCN_E_ENDPOINT_NOT_FOUND'
                        : e.vm
                          ? 'HCN_E_ENDPOINT_ALREADY_ATTACHED'
                          : 'ok';
            const doc: JsonObject = {
              ResourcePath: nicPath(nic),
              RequestType: 'Add',
              Settings: { EndpointId: ep },
              ...(guest
                ? {
                    GuestRequest: {
                      RequestType: 'Add',
                      ResourceType: 'Network',
                      Settings: { AdapterId: nic, RequestType: 'Add' },
                    },
                  }
                : {}),
            };
            if (
              !hcsCall(real, `NIC Add ${s?.kind ?? 'missing'} ${s?.state ?? ''}`, want, () =>
                real.host.hcs.modify(id, doc),
              )
            )
              return;
            s!.nics.push({ nic, ep });
            if (guest) s!.guest.push(nic);
            e!.vm = key(s!.id);
          },
        ),
    );
}

function nicRemoveCmd(): fc.Arbitrary<Step> {
  return fc.record({ vm: sysRefArb(1, 8, 1), nic: fc.nat(NIC_IDS.length - 1), guest: fc.boolean() }).map(
    ({ vm: ref, nic: pick, guest }) =>
      new Step(`NIC Remove ${showRef(ref)} nic${pick}${guest ? ' +guest' : ''}`, (m, real) => {
        const id = sysArg(m, ref);
        const s = lookup(m, id);
        const nic = NIC_IDS[pick]!;
        const have = s?.nics.find((n) => n.nic === nic);
        const want: Want = !s
          ? 'HCS_E_SYSTEM_NOT_FOUND'
          : s.state === 'Stopped'
            ? 'HCS_E_SYSTEM_ALREADY_STOPPED'
            : s.state === 'Paused'
              ? 'HCS_E_INVALID_STATE'
              : s.kind !== 'uvm'
                ? 'ERROR_NOT_SUPPORTED'
                : !have
                  ? 'ERROR_NOT_FOUND'
                  : guest && !s.guest.includes(nic)
                    ? 'ERROR_NOT_FOUND'
                    : 'ok';
        const doc: JsonObject = {
          ResourcePath: nicPath(nic),
          RequestType: 'Remove',
          Settings: { EndpointId: have?.ep ?? UNKNOWN_GUID },
          ...(guest
            ? {
                GuestRequest: {
                  RequestType: 'Remove',
                  ResourceType: 'Network',
                  Settings: { AdapterId: nic, RequestType: 'Remove' },
                },
              }
            : {}),
        };
        if (
          !hcsCall(real, `NIC Remove ${s?.kind ?? 'missing'} ${s?.state ?? ''}`, want, () =>
            real.host.hcs.modify(id, doc),
          )
        )
          return;
        s!.nics = s!.nics.filter((n) => n !== have);
        s!.guest = s!.guest.filter((g) => g !== nic);
        const e = m.endpoints.get(have!.ep);
        if (e?.vm === key(s!.id)) delete e.vm;
      }),
  );
}

function namespaceCmd(): fc.Arbitrary<Step> {
  return fc
    .record({
      op: fc.constantFrom('create', 'add', 'add', 'add', 'remove', 'delete'),
      ns: objRefArb,
      ep: objRefArb,
    })
    .map(
      ({ op, ns: nsRef, ep: epRef }) =>
        new Step(
          `namespace ${op} ns(${nsRef.mode} ${nsRef.pick}) ep(${epRef.mode} ${epRef.pick})`,
          (m, real) => {
            const api = real.host.api;
            if (op === 'create') {
              const r = hnsCall(real, 'HcnCreateNamespace', 'ok', () =>
                api.HcnCreateNamespace(null, { SchemaVersion: { Major: 2, Minor: 0 } }),
              );
              m.namespaces.set(r!.ID, { endpoints: [], containers: [] });
              return;
            }
            const ns = nsOf(m, nsRef);
            const nsM = m.namespaces.get(ns);
            if (op === 'delete') {
              if (
                hnsCall(real, 'HcnDeleteNamespace', nsM ? 'ok' : 'ERROR_NOT_FOUND', () =>
                  api.HcnDeleteNamespace(ns),
                ) === null
              )
                m.removeNamespace(ns);
              return;
            }
            const ep = epOf(m, epRef);
            const e = m.endpoints.get(ep);
            const want: Want = !nsM
              ? 'ERROR_NOT_FOUND'
              : op === 'add'
                ? !e
                  ? 'HCN_E_ENDPOINT_NOT_FOUND'
                  : e.ns
                    ? 'HCN_E_ENDPOINT_NAMESPACE_ALREADY_EXISTS'
                    : 'ok'
                : nsM.endpoints.includes(ep)
                  ? 'ok'
                  : 'ERROR_NOT_FOUND';
            const r = hnsCall(real, `HcnModifyNamespace ${op}`, want, () =>
              api.HcnModifyNamespace(ns, {
                ResourceType: 'Endpoint',
                RequestType: op === 'add' ? 'Add' : 'Remove',
                Settings: { EndpointId: ep.toLowerCase() },
              }),
            );
            if (r !== null) return;
            if (op === 'add') {
              nsM!.endpoints.push(ep);
              e!.ns = ns;
            } else {
              nsM!.endpoints.splice(nsM!.endpoints.indexOf(ep), 1);
              delete e!.ns;
            }
          },
        ),
    );
}

function endpointCmd(): fc.Arbitrary<Step> {
  return fc.record({ del: fc.boolean(), ep: objRefArb }).map(
    ({ del, ep: epRef }) =>
      new Step(del ? `endpoint delete ep(${epRef.mode} ${epRef.pick})` : 'endpoint create', (m, real) => {
        const api = real.host.api;
        if (!del) {
          const net = [...real.host.hns.store.networks.keys()][0]!;
          const r = hnsCall(real, 'HcnCreateEndpoint', 'ok', () =>
            api.HcnCreateEndpoint(net, null, { Name: 'ep' }),
          );
          m.endpoints.set(r!.ID, {});
          return;
        }
        const ep = epOf(m, epRef);
        const e = m.endpoints.get(ep);
        if (
          hnsCall(real, 'HcnDeleteEndpoint', e ? 'ok' : 'HCN_E_ENDPOINT_NOT_FOUND', () =>
            api.HcnDeleteEndpoint(ep),
          ) === null
        )
          m.removeEndpoint(ep);
      }),
  );
}

function restartHcsCmd(): fc.Arbitrary<Step> {
  return fc.constant(
    new Step('host.restartHcs()', (m, real) => {
      real.host.restartHcs();
      for (const s of m.systems.values()) if (s.state !== 'Stopped') m.exit(s, 'ForcedExit');
      // the systems vanish without a Close: the namespaces keep listing them
      for (const [id, ns] of m.namespaces) for (const c of ns.containers) m.stale.add(`${id}/${key(c)}`);
      m.systems.clear();
    }),
  );
}

function restoreCmd(): fc.Arbitrary<Step> {
  return fc.constant(new Step('restore(snapshot) on a new host', (_m, real) => restoreOnNewHost(real)));
}

const w = (weight: number, arbitrary: fc.Arbitrary<Step>) => ({ weight, arbitrary });
const COMMANDS = fc.commands(
  [
    fc.oneof(
      w(10, createCmd()),
      w(8, lifecycleCmd('start')),
      w(1, lifecycleCmd('pause')),
      w(1, lifecycleCmd('resume')),
      w(2, lifecycleCmd('shutdown')),
      w(2, lifecycleCmd('terminate')),
      w(2, lifecycleCmd('injectExit')),
      w(4, lifecycleCmd('close')),
      w(8, nicAddCmd()),
      w(4, nicRemoveCmd()),
      w(6, namespaceCmd()),
      w(2, endpointCmd()),
      w(1, restartHcsCmd()),
      w(1, restoreCmd()),
    ),
  ],
  { maxCommands: Number(process.env.HNSIM_HCS_MODEL_COMMANDS ?? 60), size: 'max' },
);

/**
 * A host with a NAT network, three endpoints and a namespace (beside HostDefault) — and maybe a
 * running VM and a running container in the namespace — and its model.
 */
function setup(seed: number, start: { vm: boolean; proc: boolean }): { model: Model; real: Real } {
  const host = createHost({ seed });
  const model = new Model();
  const nsIds = host.api.HcnEnumerateNamespaces();
  for (const id of isFailure(nsIds) ? [] : nsIds.result)
    model.namespaces.set(id, { endpoints: [], containers: [] });
  const net = host.api.HcnCreateNetwork(null, { Name: 'nat', Type: 'NAT' });
  if (isFailure(net)) return expect.fail(`HcnCreateNetwork: ${net.name}`);
  for (let i = 0; i < 3; i++) {
    const ep = host.api.HcnCreateEndpoint(net.result.ID, null, { Name: `ep${i}` });
    if (isFailure(ep)) return expect.fail(`HcnCreateEndpoint: ${ep.name}`);
    model.endpoints.set(ep.result.ID, {});
  }
  const ns = host.api.HcnCreateNamespace(null, { SchemaVersion: { Major: 2, Minor: 0 } });
  if (isFailure(ns)) return expect.fail(`HcnCreateNamespace: ${ns.name}`);
  model.namespaces.set(ns.result.ID, { endpoints: [], containers: [] });
  // maybe a running VM and a running container in the namespace to start from
  if (start.vm) {
    host.hcs.create('vm0', vmDoc(true));
    host.hcs.start('vm0');
    model.systems.set('vm0', { ...fresh('vm0', 'uvm', true), state: 'Running' });
  }
  if (start.proc) {
    host.hcs.create('s0', processDoc(ns.result.ID, false));
    host.hcs.start('s0');
    model.systems.set('s0', { ...fresh('s0', 'proc', false), state: 'Running', ns: ns.result.ID });
    model.join(ns.result.ID, 's0');
  }
  return { model, real: { host } };
}

function fresh(id: string, kind: SysKind, toc: boolean): SysM {
  return { id, kind, state: 'Created', exitType: 'None', toc, nics: [], guest: [] };
}

describe('HCS model-based property', () => {
  it('random HCS + HNS sequences keep the invariants, agree with the model, fail atomically and restore', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1 << 30 }),
        fc.record({ vm: fc.boolean(), proc: fc.boolean() }),
        COMMANDS,
        (seed, start, cmds) => {
          const { model, real } = setup(seed, start);
          agree(model, real, 'setup');
          fc.modelRun(() => ({ model, real }), cmds);
          restoreOnNewHost(real);
          agree(model, real, 'the final restore');
        },
      ),
      { numRuns: Number(process.env.HNSIM_HCS_MODEL_RUNS ?? runs(50, 1_500)) },
    );
    if (process.env.HNSIM_HCS_MODEL_STATS) {
      console.log(
        [...STATS]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, n]) => `${String(n).padStart(6)}  ${k}`)
          .join('\n'),
      );
    }
    // the runs reach the interesting outcomes
    for (const k of [
      'start proc Created → ok',
      'NIC Add uvm Running → ok',
      'NIC Remove uvm Running → ok',
      'close uvm Stopped → ok',
      'HcnModifyNamespace add → ok',
      'NIC Add uvm Running → HCN_E_ENDPOINT_ALREADY_ATTACHED',
    ])
      expect(STATS.get(k) ?? 0, k).toBeGreaterThan(0);
  });
});
