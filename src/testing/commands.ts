/**
 * Model-based commands for `fc.commands` (STYLE.md, "From fast-check"): HNS (networks, endpoints,
 * namespaces and their membership, load balancers, a service restart), HCS (compute systems through
 * their lifecycle, a crash) and CNI (ADD, DEL and CHECK of pods through the libcni runner), each
 * run against a host and checked against `KitModel`, a small model written from docs/model.md —
 * who exists, who is in which namespace, which state each compute system is in, which pod has
 * which address. After every command: the call answered as the model says (success, or the
 * documented HRESULT), a refused call changed nothing (`canonicalState`), the HNS invariants hold
 * and the host holds what the model holds (`checkKitModel`).
 *
 *   await fc.assert(fc.asyncProperty(fc.commands([...hnsCommands(), ...hcsCommands(), ...cniCommands()]),
 *     (cmds) => fc.asyncModelRun(kitSetup({ cni: true }), cmds)));
 *
 * Your own commands join them: an `fc.AsyncCommand<KitModel, KitReal>` that calls your code on
 * `real.host` and records what it made in the model (`model.networks.set(…)`, owner `'user'`, so
 * the kit's commands leave it alone). Calls go through `host.transport`, so fault rules and a
 * `scheduledHost` apply; with `faults: true` a refused call is accepted whenever it changed nothing.
 */
import fc from 'fast-check';
import type { HcnResult } from '../api/flat.js';
import type { FlatApiMethod } from '../api/flat.js';
import type { NetworkConfigList } from '../cni/conf.js';
import type { CniRunner } from '../cni/runner.js';
import type { Json, JsonObject } from '../core/json.js';
import { createHost, type Host, type HostOptions } from '../host/host.js';
import { cniNetwork, type CniNetworkOptions } from '../runtime/network.js';
import { checkInvariants } from './invariants.js';
import { runUntilSettled } from './race.js';
import { canonicalState } from './state.js';

// ───────────────────────────── the model ─────────────────────────────

/** Who made an object: the kit's HNS commands only touch `hns` ones, the CNI commands `cni` ones. */
export type Owner = 'hns' | 'cni' | 'host' | 'user';

export interface NetworkM {
  readonly name: string;
  readonly owner: Owner;
}
export interface EndpointM {
  readonly network: string;
  readonly name: string;
  readonly owner: Owner;
  namespace?: string;
}
export interface NamespaceM {
  readonly owner: Owner;
}
export interface LoadBalancerM {
  readonly endpoints: readonly string[];
  /** The frontend it claims, `<protocol>/<port>/<vip>`. */
  readonly claim: string;
  readonly owner: Owner;
}
export type SystemState = 'Created' | 'Running' | 'Stopped';
export interface SystemM {
  /** As created (IDs compare case-insensitively; the model's key is lower case). */
  readonly id: string;
  state: SystemState;
  /** The namespace its document names. */
  readonly namespace?: string;
  /** It started while that namespace existed: the namespace lists it until it is closed. */
  joined: boolean;
}
export interface PodM {
  readonly containerId: string;
  readonly netns: string;
  /** `added`: ADD succeeded; `dirty`: an ADD failed or HNS lost its endpoint — it needs a DEL. */
  state: 'added' | 'dirty';
  ip?: string;
}

/** The reference model the commands check the host against. */
export class KitModel {
  readonly networks = new Map<string, NetworkM>();
  readonly endpoints = new Map<string, EndpointM>();
  readonly namespaces = new Map<string, NamespaceM>();
  readonly loadBalancers = new Map<string, LoadBalancerM>();
  /** Compute systems by lower-cased ID. */
  readonly systems = new Map<string, SystemM>();
  /** CNI pods by container ID. */
  readonly pods = new Map<string, PodM>();
  /** IDs of deleted objects (most recent last), for references that no longer name anything. */
  readonly dead: string[] = [];
  /** The CNI network's HNS network (the conflist's name), when the kit runs CNI. */
  cniNetwork?: string;

  /** The model of a host as it is now: everything it holds belongs to `owner` (default `host`). */
  static observe(host: Host, owner: Owner = 'host'): KitModel {
    const m = new KitModel();
    const s = host.hns.store;
    for (const n of s.networks.values()) m.networks.set(n.ID, { name: n.Name, owner });
    for (const ns of s.namespaces.values()) m.namespaces.set(ns.ID, { owner });
    for (const e of s.endpoints.values()) {
      const ns = [...s.namespaces.values()].find((x) =>
        x.Resources.some((r) => r.Type === 'Endpoint' && r.ID.toLowerCase() === e.ID.toLowerCase()),
      );
      m.endpoints.set(e.ID, {
        network: e.HostComputeNetwork,
        name: e.Name,
        owner,
        ...(ns ? { namespace: ns.ID } : {}),
      });
    }
    for (const lb of s.loadBalancers.values())
      m.loadBalancers.set(lb.ID, { endpoints: [...lb.HostComputeEndpoints], claim: '', owner });
    for (const d of host.hcs.enumerate()) {
      const id = String(d['Id']);
      const state = String(d['State']);
      // a container a namespace lists has joined it
      const ns = [...s.namespaces.values()].find((x) =>
        x.Resources.some((r) => r.Type === 'Container' && r.ID.toLowerCase() === id.toLowerCase()),
      );
      m.systems.set(id.toLowerCase(), {
        id,
        state:
          state === 'Running' || state === 'Paused' ? 'Running' : state === 'Stopped' ? 'Stopped' : 'Created',
        ...(ns ? { namespace: ns.ID } : {}),
        joined: ns !== undefined,
      });
    }
    return m;
  }

  bury(id: string): void {
    this.dead.push(id);
    if (this.dead.length > 8) this.dead.shift();
  }

  /** Live IDs of one table made by `owner`. */
  own<T extends { readonly owner: Owner }>(table: ReadonlyMap<string, T>, owner: Owner): string[] {
    return [...table].filter(([, v]) => v.owner === owner).map(([k]) => k);
  }

  /** Endpoints a load balancer names (deleted ones too: a load balancer keeps naming them). */
  referenced(): Set<string> {
    const out = new Set<string>();
    for (const lb of this.loadBalancers.values()) for (const e of lb.endpoints) out.add(e.toUpperCase());
    return out;
  }

  deleteEndpoint(id: string): void {
    this.endpoints.delete(id);
    this.bury(id);
  }

  deleteLoadBalancer(id: string): void {
    this.loadBalancers.delete(id);
    this.bury(id);
  }

  deleteNetwork(id: string): void {
    for (const [e, ep] of [...this.endpoints]) if (ep.network === id) this.deleteEndpoint(e);
    this.networks.delete(id);
    this.bury(id);
  }

  deleteNamespace(id: string): void {
    for (const ep of this.endpoints.values()) if (ep.namespace === id) delete ep.namespace;
    for (const sys of this.systems.values()) if (sys.namespace === id) sys.joined = false;
    this.namespaces.delete(id);
    this.bury(id);
  }
}

/** What the commands run against: the host, and the CNI network when the kit runs CNI. */
export interface KitReal {
  readonly host: Host;
  readonly cni?: { readonly list: NetworkConfigList; readonly runner: CniRunner };
  /** Accept a refused call that changed nothing wherever the model expected success. */
  readonly faults: boolean;
  /**
   * Wait for a call or CNI invocation: `runUntilSettled(host, work)` by default (simulated time
   * passes while only delayed calls are pending); `runScheduled(s, host, work)` under a scheduler.
   */
  readonly settle: <T>(work: Promise<T>) => Promise<T>;
}

export interface KitSetupOptions {
  /** Build the host (default `createHost({ seed: 1, ...host })`); what it holds is left alone. */
  readonly createHost?: () => Host;
  readonly host?: HostOptions;
  /**
   * Run CNI: an L2Bridge network `cbr0` on 10.244.1.0/24 and win-bridge (HCN) + host-local, or
   * the conflist and options given (its network must be named like an HNS network the host has).
   */
  readonly cni?: boolean | { readonly conflist: Json; readonly options?: CniNetworkOptions };
  /** See `KitReal.faults` (default false: every call must answer as the model says). */
  readonly faults?: boolean;
  /** See `KitReal.settle` (default `runUntilSettled`). */
  readonly settle?: (host: Host, work: Promise<unknown>) => Promise<unknown>;
}

const V2 = { Major: 2, Minor: 0 };

/** The CNI network the kit uses by default (flannel host-gw's, as docs/cni.md has it). */
export const KIT_CONFLIST = {
  cniVersion: '1.0.0',
  name: 'cbr0',
  plugins: [
    {
      type: 'win-bridge',
      apiVersion: 2,
      ipam: { type: 'host-local', subnet: '10.244.1.0/24', rangeStart: '10.244.1.3' },
    },
  ],
} as const;

/**
 * The L2Bridge network `cbr0` on 10.244.1.0/24 (default route via `gateway`), as flannel host-gw makes
 * it and `KIT_CONFLIST` expects it; returns its ID.
 */
export function addL2Bridge(host: Host, gateway = '10.244.1.1'): string {
  const r = host.api.HcnCreateNetwork(null, {
    Name: 'cbr0',
    Type: 'L2Bridge',
    SchemaVersion: V2,
    Ipams: [
      {
        Type: 'Static',
        Subnets: [
          {
            IpAddressPrefix: '10.244.1.0/24',
            Routes: [{ NextHop: gateway, DestinationPrefix: '0.0.0.0/0' }],
          },
        ],
      },
    ],
  });
  if (!r.ok) throw new Error(`addL2Bridge: ${r.name} ${r.message}`);
  return String(r.result['ID']);
}

/** The setup function `fc.asyncModelRun` takes: a fresh host and its model, every run. */
export function kitSetup(opts: KitSetupOptions = {}): () => { model: KitModel; real: KitReal } {
  return () => {
    const host = opts.createHost ? opts.createHost() : createHost({ seed: 1, ...opts.host });
    let cni: KitReal['cni'];
    let cniName: string | undefined;
    if (opts.cni) {
      const conf = opts.cni === true ? { conflist: KIT_CONFLIST as unknown as Json } : opts.cni;
      if (opts.cni === true) {
        addL2Bridge(host);
      }
      cni = cniNetwork(host, conf.conflist, conf.options);
      cniName = cni.list.name;
    }
    const model = KitModel.observe(host);
    if (cniName !== undefined) {
      const id = [...model.networks].find(([, n]) => n.name.toLowerCase() === cniName.toLowerCase())?.[0];
      if (!id) throw new Error(`kitSetup: the host has no HNS network named ${cniName}`);
      model.cniNetwork = id;
    }
    const settle = opts.settle
      ? <T>(work: Promise<T>) => opts.settle!(host, work) as Promise<T>
      : <T>(work: Promise<T>) => runUntilSettled(host, work);
    return { model, real: { host, ...(cni ? { cni } : {}), faults: opts.faults ?? false, settle } };
  };
}

// ───────────────────────────── checking ─────────────────────────────

/** The name win-bridge gives a pod's endpoint (`<container>_<network>`), lower case for comparing. */
function podEndpointName(containerId: string, real: KitReal): string {
  return `${containerId}_${real.cni?.list.name ?? ''}`.toLowerCase();
}

/**
 * Where the host and the model disagree, as lines (`[]` when they agree): the HNS invariants, the
 * objects of each kind, namespace membership, compute systems and their states, which namespace
 * lists which started container, and each CNI pod's endpoint, address and namespace.
 */
export function checkKitModel(model: KitModel, real: KitReal): string[] {
  const out = checkInvariants(real.host);
  const s = real.host.hns.store;
  const same = (what: string, got: Iterable<string>, want: Iterable<string>) => {
    const g = [...got].map((x) => x.toUpperCase()).sort();
    const w = [...want].map((x) => x.toUpperCase()).sort();
    if (g.join() !== w.join()) out.push(`${what}: host has [${g.join(', ')}], model [${w.join(', ')}]`);
  };
  same('networks', s.networks.keys(), model.networks.keys());
  same('namespaces', s.namespaces.keys(), model.namespaces.keys());
  same('load balancers', s.loadBalancers.keys(), model.loadBalancers.keys());
  // CNI endpoints are the plugin's to make: the model knows them through its pods
  const podEndpoints = new Set([...model.pods.values()].map((p) => podEndpointName(p.containerId, real)));
  const hostEps = [...s.endpoints.values()].filter(
    (e) => !(e.HostComputeNetwork === model.cniNetwork && podEndpoints.has(e.Name.toLowerCase())),
  );
  same(
    'endpoints',
    hostEps.map((e) => e.ID),
    model.endpoints.keys(),
  );
  const memberOf = new Map<string, string>();
  for (const ns of s.namespaces.values())
    for (const r of ns.Resources) if (r.Type === 'Endpoint') memberOf.set(r.ID.toUpperCase(), ns.ID);
  for (const [id, e] of model.endpoints) {
    const got = memberOf.get(id.toUpperCase());
    if ((got ?? '') !== (e.namespace ?? ''))
      out.push(`endpoint ${id} is in namespace ${got ?? 'none'}, model says ${e.namespace ?? 'none'}`);
  }
  // compute systems
  const systems = new Map(real.host.hcs.enumerate().map((d) => [String(d['Id']).toLowerCase(), d] as const));
  same('compute systems', systems.keys(), model.systems.keys());
  for (const [key, sys] of model.systems) {
    const d = systems.get(key);
    if (d && d['State'] !== sys.state)
      out.push(`${sys.id} is ${String(d['State'])}, model says ${sys.state}`);
  }
  for (const ns of s.namespaces.values()) {
    const listed = ns.Resources.filter((r) => r.Type === 'Container').map((r) => r.ID.toLowerCase());
    const want = [...model.systems].filter(([, v]) => v.joined && v.namespace === ns.ID).map(([k]) => k);
    same(`containers in namespace ${ns.ID}`, listed, want);
  }
  // CNI pods
  for (const p of model.pods.values()) {
    if (p.state !== 'added') continue;
    const name = podEndpointName(p.containerId, real);
    const eps = [...s.endpoints.values()].filter((e) => e.Name.toLowerCase() === name);
    if (eps.length !== 1) {
      out.push(`pod ${p.containerId} has ${eps.length} endpoints, model says 1`);
      continue;
    }
    const e = eps[0]!;
    const ip = e.IpConfigurations[0]?.IpAddress;
    if (ip !== p.ip)
      out.push(`pod ${p.containerId}'s endpoint has ${ip ?? 'no address'}, its ADD said ${p.ip ?? '?'}`);
    if (memberOf.get(e.ID.toUpperCase())?.toUpperCase() !== p.netns.toUpperCase())
      out.push(`pod ${p.containerId}'s endpoint is not in its namespace ${p.netns}`);
  }
  const ips = [...model.pods.values()].filter((p) => p.state === 'added').map((p) => p.ip);
  if (new Set(ips).size !== ips.length) out.push(`two pods share an address: ${ips.join(', ')}`);
  return out;
}

/** A command's failure: what was called, what the model expected, what came back. */
class ModelMismatch extends Error {
  constructor(command: string, detail: string) {
    super(`${command}: ${detail}`);
    this.name = 'ModelMismatch';
  }
}

type Expect = { readonly ok: true } | { readonly hresult: string };

/**
 * Call through the transport and hold the answer to the model's expectation; a refused call must
 * leave the node as it was. Returns whether the call succeeded (the model is then updated by the
 * caller) — with `faults`, a refusal the model did not expect is accepted if it changed nothing.
 */
async function call(
  real: KitReal,
  label: string,
  method: FlatApiMethod,
  args: readonly unknown[],
  want: Expect,
): Promise<HcnResult<Json>> {
  const before = canonicalState(real.host);
  const r = await real.settle(real.host.transport.call({ method, args }));
  if (!r.ok) {
    const after = canonicalState(real.host);
    if (JSON.stringify(after) !== JSON.stringify(before))
      throw new ModelMismatch(label, `refused with ${r.name} but changed the node`);
    if ('hresult' in want && r.name === want.hresult) return r;
    if (real.faults) return r;
    throw new ModelMismatch(
      label,
      `refused with ${r.name} (${r.message}); the model expected ${'ok' in want ? 'success' : want.hresult}`,
    );
  }
  if ('hresult' in want) throw new ModelMismatch(label, `succeeded; the model expected ${want.hresult}`);
  return r;
}

function agree(model: KitModel, real: KitReal, label: string): void {
  const diff = checkKitModel(model, real);
  if (diff.length) throw new ModelMismatch(label, `host and model disagree:\n  ${diff.join('\n  ')}`);
}

// ───────────────────────────── references ─────────────────────────────

/** A reference to an object: a live one of the kit's (by index), or one that no longer exists. */
interface Ref {
  readonly pick: number;
  readonly stale: boolean;
}

const refArb = (stalePercent = 10): fc.Arbitrary<Ref> =>
  fc.record({
    pick: fc.nat(7),
    stale: fc.oneof(
      { weight: 100 - stalePercent, arbitrary: fc.constant(false) },
      { weight: stalePercent, arbitrary: fc.constant(true) },
    ),
  });

/** An ID that never named anything. */
const NEVER = '0C0FFEE0-0000-4000-8000-00000000C0DE';

function resolve(model: KitModel, live: readonly string[], ref: Ref): { id: string; live: boolean } {
  if (ref.stale || !live.length) {
    const dead = model.dead.filter((d) => !live.includes(d));
    return { id: dead.length ? dead[ref.pick % dead.length]! : NEVER, live: false };
  }
  return { id: live[ref.pick % live.length]!, live: true };
}

const idOf = (r: HcnResult<Json>): string => String((r.ok ? (r.result as JsonObject) : {})['ID']);

// ───────────────────────────── HNS commands ─────────────────────────────

/** Network names the commands use (two differ only in case: names compare case-insensitively). */
export const KIT_NETWORKS = [
  { name: 'net-a', type: 'L2Bridge', prefix: '192.168.10.0/24' },
  { name: 'net-b', type: 'NAT', prefix: '192.168.20.0/24' },
  { name: 'NET-A', type: 'NAT', prefix: '192.168.30.0/24' },
] as const;

/** The frontend VIP of the kit's load balancers; ports 80 and 443 make conflicts likely. */
const LB_VIP = '10.96.0.100';

class CreateNetwork implements fc.AsyncCommand<KitModel, KitReal> {
  constructor(readonly which: number) {}
  check = () => true;
  async run(m: KitModel, r: KitReal): Promise<void> {
    const n = KIT_NETWORKS[this.which % KIT_NETWORKS.length]!;
    const taken = [...m.networks.values()].some(
      (x) => x.name !== '' && x.name.toLowerCase() === n.name.toLowerCase(),
    );
    const doc = {
      Name: n.name,
      Type: n.type,
      SchemaVersion: V2,
      Ipams: [
        {
          Type: 'Static',
          Subnets: [
            {
              IpAddressPrefix: n.prefix,
              Routes: [{ NextHop: n.prefix.replace(/0\/24$/, '1'), DestinationPrefix: '0.0.0.0/0' }],
            },
          ],
        },
      ],
    };
    const res = await call(
      r,
      this.toString(),
      'HcnCreateNetwork',
      [null, doc],
      taken ? { hresult: 'HCN_E_NETWORK_ALREADY_EXISTS' } : { ok: true },
    );
    if (res.ok) m.networks.set(idOf(res), { name: n.name, owner: 'hns' });
    agree(m, r, this.toString());
  }
  toString = () => `CreateNetwork(${KIT_NETWORKS[this.which % KIT_NETWORKS.length]!.name})`;
}

class DeleteNetwork implements fc.AsyncCommand<KitModel, KitReal> {
  constructor(readonly ref: Ref) {}
  check = () => true;
  async run(m: KitModel, r: KitReal): Promise<void> {
    const { id, live } = resolve(m, m.own(m.networks, 'hns'), this.ref);
    // endpoints load balancers name go with their network all the same; the load balancers stay
    // (docs/model.md, "Networks")
    const want: Expect = live ? { ok: true } : { hresult: 'HCN_E_NETWORK_NOT_FOUND' };
    const res = await call(r, this.toString(), 'HcnDeleteNetwork', [id], want);
    if (res.ok) m.deleteNetwork(id);
    agree(m, r, this.toString());
  }
  toString = () => `DeleteNetwork(${this.ref.stale ? 'stale' : this.ref.pick})`;
}

class CreateEndpoint implements fc.AsyncCommand<KitModel, KitReal> {
  constructor(
    readonly ref: Ref,
    readonly name: string,
  ) {}
  check = () => true;
  async run(m: KitModel, r: KitReal): Promise<void> {
    const { id, live } = resolve(m, m.own(m.networks, 'hns'), this.ref);
    const doc = { Name: this.name, SchemaVersion: V2 };
    const res = await call(
      r,
      this.toString(),
      'HcnCreateEndpoint',
      [id, null, doc],
      live ? { ok: true } : { hresult: 'HCN_E_NETWORK_NOT_FOUND' },
    );
    if (res.ok) m.endpoints.set(idOf(res), { network: id, name: this.name, owner: 'hns' });
    agree(m, r, this.toString());
  }
  toString = () => `CreateEndpoint(${this.ref.stale ? 'stale' : this.ref.pick}, ${this.name})`;
}

class DeleteEndpoint implements fc.AsyncCommand<KitModel, KitReal> {
  constructor(readonly ref: Ref) {}
  check = () => true;
  async run(m: KitModel, r: KitReal): Promise<void> {
    const { id, live } = resolve(m, m.own(m.endpoints, 'hns'), this.ref);
    // a load balancer naming it keeps naming it (docs/model.md, "Endpoints")
    const want: Expect = live ? { ok: true } : { hresult: 'HCN_E_ENDPOINT_NOT_FOUND' };
    const res = await call(r, this.toString(), 'HcnDeleteEndpoint', [id], want);
    if (res.ok) m.deleteEndpoint(id);
    agree(m, r, this.toString());
  }
  toString = () => `DeleteEndpoint(${this.ref.stale ? 'stale' : this.ref.pick})`;
}

class CreateNamespace implements fc.AsyncCommand<KitModel, KitReal> {
  check = () => true;
  async run(m: KitModel, r: KitReal): Promise<void> {
    const res = await call(r, this.toString(), 'HcnCreateNamespace', [null, { SchemaVersion: V2 }], {
      ok: true,
    });
    if (res.ok) m.namespaces.set(idOf(res), { owner: 'hns' });
    agree(m, r, this.toString());
  }
  toString = () => 'CreateNamespace()';
}

class DeleteNamespace implements fc.AsyncCommand<KitModel, KitReal> {
  constructor(readonly ref: Ref) {}
  check = () => true;
  async run(m: KitModel, r: KitReal): Promise<void> {
    const { id, live } = resolve(m, m.own(m.namespaces, 'hns'), this.ref);
    const res = await call(
      r,
      this.toString(),
      'HcnDeleteNamespace',
      [id],
      live ? { ok: true } : { hresult: 'ERROR_NOT_FOUND' },
    );
    if (res.ok) m.deleteNamespace(id);
    agree(m, r, this.toString());
  }
  toString = () => `DeleteNamespace(${this.ref.stale ? 'stale' : this.ref.pick})`;
}

/** HcnModifyNamespace: an endpoint of the kit's into (Add) or out of (Remove) a namespace of the kit's. */
class NamespaceEndpoint implements fc.AsyncCommand<KitModel, KitReal> {
  constructor(
    readonly op: 'Add' | 'Remove',
    readonly ep: number,
    readonly ns: number,
  ) {}
  check = (m: Readonly<KitModel>) =>
    m.own(m.endpoints, 'hns').length > 0 && m.own(m.namespaces, 'hns').length > 0;
  async run(m: KitModel, r: KitReal): Promise<void> {
    const eps = m.own(m.endpoints, 'hns');
    const nss = m.own(m.namespaces, 'hns');
    const epId = eps[this.ep % eps.length]!;
    const ep = m.endpoints.get(epId)!;
    // Remove acts on the endpoint's own namespace when it has one, else on the one picked
    const nsId =
      this.op === 'Remove' && ep.namespace && nss.includes(ep.namespace)
        ? ep.namespace
        : nss[this.ns % nss.length]!;
    const want: Expect =
      this.op === 'Add'
        ? ep.namespace
          ? { hresult: 'HCN_E_ENDPOINT_NAMESPACE_ALREADY_EXISTS' }
          : { ok: true }
        : ep.namespace === nsId
          ? { ok: true }
          : { hresult: 'ERROR_NOT_FOUND' };
    const req = { ResourceType: 'Endpoint', RequestType: this.op, Settings: { EndpointId: epId } };
    const res = await call(r, this.toString(), 'HcnModifyNamespace', [nsId, req], want);
    if (res.ok) {
      if (this.op === 'Add') ep.namespace = nsId;
      else delete ep.namespace;
    }
    agree(m, r, this.toString());
  }
  toString = () => `NamespaceEndpoint(${this.op}, ep ${this.ep}, ns ${this.ns})`;
}

class CreateLoadBalancer implements fc.AsyncCommand<KitModel, KitReal> {
  constructor(
    readonly backends: readonly number[],
    readonly port: number,
  ) {}
  check = (m: Readonly<KitModel>) => m.own(m.endpoints, 'hns').length > 0;
  async run(m: KitModel, r: KitReal): Promise<void> {
    const eps = m.own(m.endpoints, 'hns');
    const chosen = [...new Set(this.backends.map((b) => eps[b % eps.length]!))];
    const claim = `6/${this.port}/${LB_VIP}`;
    const taken = [...m.loadBalancers.values()].some((lb) => lb.claim === claim);
    const doc = {
      HostComputeEndpoints: chosen,
      FrontendVIPs: [LB_VIP],
      PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: this.port }],
      SchemaVersion: V2,
    };
    const res = await call(
      r,
      this.toString(),
      'HcnCreateLoadBalancer',
      [null, doc],
      taken ? { hresult: 'HCN_E_PORT_ALREADY_EXISTS' } : { ok: true },
    );
    if (res.ok) m.loadBalancers.set(idOf(res), { endpoints: chosen, claim, owner: 'hns' });
    agree(m, r, this.toString());
  }
  toString = () => `CreateLoadBalancer([${this.backends.join(', ')}], ${this.port})`;
}

class DeleteLoadBalancer implements fc.AsyncCommand<KitModel, KitReal> {
  constructor(readonly ref: Ref) {}
  check = () => true;
  async run(m: KitModel, r: KitReal): Promise<void> {
    const { id, live } = resolve(m, m.own(m.loadBalancers, 'hns'), this.ref);
    const res = await call(
      r,
      this.toString(),
      'HcnDeleteLoadBalancer',
      [id],
      live ? { ok: true } : { hresult: 'ERROR_NOT_FOUND' },
    );
    if (res.ok) m.deleteLoadBalancer(id);
    agree(m, r, this.toString());
  }
  toString = () => `DeleteLoadBalancer(${this.ref.stale ? 'stale' : this.ref.pick})`;
}

/**
 * The HNS service restarts (`host.restartHns()`, default policy, docs/model.md "Service restart"):
 * networks and namespaces stay; endpoints (the pods' too, which then need a DEL) and load
 * balancers go.
 */
class RestartHns implements fc.AsyncCommand<KitModel, KitReal> {
  check = () => true;
  async run(m: KitModel, r: KitReal): Promise<void> {
    r.host.restartHns();
    for (const id of [...m.endpoints.keys()]) m.deleteEndpoint(id);
    for (const id of [...m.loadBalancers.keys()]) m.deleteLoadBalancer(id);
    for (const p of m.pods.values()) p.state = 'dirty';
    agree(m, r, this.toString());
  }
  toString = () => 'RestartHns()';
}

export interface HnsCommandOptions {
  /** Also restart the HNS service now and then (default false). */
  readonly restarts?: boolean;
}

/** The HNS commands: create and delete networks, endpoints, namespaces, load balancers; attach and detach. */
export function hnsCommands(
  opts: HnsCommandOptions = {},
): fc.Arbitrary<fc.AsyncCommand<KitModel, KitReal>>[] {
  const createNetwork = fc.nat(KIT_NETWORKS.length - 1).map((i) => new CreateNetwork(i));
  const createEndpoint = fc
    .tuple(refArb(), fc.constantFrom('pod-a_eth0', 'pod-b_eth0', ''))
    .map(([ref, name]) => new CreateEndpoint(ref, name));
  const createNamespace = fc.constant(null).map(() => new CreateNamespace());
  const membership = fc
    .tuple(fc.constantFrom<'Add' | 'Remove'>('Add', 'Add', 'Remove'), fc.nat(7), fc.nat(7))
    .map(([op, ep, ns]) => new NamespaceEndpoint(op, ep, ns));
  // creations listed twice: fc.commands picks uniformly, and a run needs objects to act on
  const out: fc.Arbitrary<fc.AsyncCommand<KitModel, KitReal>>[] = [
    createNetwork,
    createNetwork,
    refArb().map((ref) => new DeleteNetwork(ref)),
    createEndpoint,
    createEndpoint,
    refArb().map((ref) => new DeleteEndpoint(ref)),
    createNamespace,
    refArb().map((ref) => new DeleteNamespace(ref)),
    membership,
    membership,
    fc
      .tuple(fc.array(fc.nat(7), { minLength: 1, maxLength: 3 }), fc.constantFrom(80, 443))
      .map(([b, p]) => new CreateLoadBalancer(b, p)),
    refArb().map((ref) => new DeleteLoadBalancer(ref)),
  ];
  if (opts.restarts) out.push(fc.constant(null).map(() => new RestartHns()));
  return out;
}

// ───────────────────────────── HCS commands ─────────────────────────────

/** Compute system IDs the commands use (`c1` and `C1` are one ID: compared case-insensitively). */
export const KIT_SYSTEMS = ['c1', 'c2', 'C1', 'c3'] as const;

class CreateSystem implements fc.AsyncCommand<KitModel, KitReal> {
  constructor(
    readonly which: number,
    readonly ns: number | undefined,
  ) {}
  check = () => true;
  async run(m: KitModel, r: KitReal): Promise<void> {
    const id = KIT_SYSTEMS[this.which % KIT_SYSTEMS.length]!;
    const nss = [...m.namespaces.keys()];
    const ns = this.ns === undefined || !nss.length ? undefined : nss[this.ns % nss.length]!;
    const doc = {
      SchemaVersion: { Major: 2, Minor: 1 },
      Owner: 'hnsim-kit',
      Container: ns ? { Networking: { Namespace: ns } } : {},
    };
    const want: Expect = m.systems.has(id.toLowerCase())
      ? { hresult: 'HCS_E_SYSTEM_ALREADY_EXISTS' }
      : { ok: true };
    const res = await call(r, this.toString(), 'HcsCreateComputeSystem', [id, doc], want);
    if (res.ok)
      m.systems.set(id.toLowerCase(), {
        id,
        state: 'Created',
        ...(ns ? { namespace: ns } : {}),
        joined: false,
      });
    agree(m, r, this.toString());
  }
  toString = () =>
    `CreateSystem(${KIT_SYSTEMS[this.which % KIT_SYSTEMS.length]!}${this.ns === undefined ? '' : `, ns ${this.ns}`})`;
}

type SystemOp = 'Start' | 'Shutdown' | 'Terminate' | 'Close';

/** Start, Shutdown, Terminate or Close a compute system (docs/model.md, "HCS": States, Close). */
class SystemCall implements fc.AsyncCommand<KitModel, KitReal> {
  constructor(
    readonly op: SystemOp,
    readonly which: number,
  ) {}
  check = () => true;
  async run(m: KitModel, r: KitReal): Promise<void> {
    const id = KIT_SYSTEMS[this.which % KIT_SYSTEMS.length]!;
    const sys = m.systems.get(id.toLowerCase());
    let want: Expect;
    if (!sys) want = { hresult: 'HCS_E_SYSTEM_NOT_FOUND' };
    else if (this.op === 'Start') {
      if (sys.state !== 'Created') want = { hresult: 'HCS_E_INVALID_STATE' };
      else if (sys.namespace && !m.namespaces.has(sys.namespace)) want = { hresult: 'ERROR_NOT_FOUND' };
      else want = { ok: true };
    } else if (this.op === 'Close') want = { ok: true };
    else want = sys.state === 'Stopped' ? { hresult: 'HCS_E_SYSTEM_ALREADY_STOPPED' } : { ok: true };
    const args = this.op === 'Close' ? [id] : [id, ''];
    const res = await call(r, this.toString(), `Hcs${this.op}ComputeSystem` as FlatApiMethod, args, want);
    if (res.ok && sys) {
      if (this.op === 'Start') {
        sys.state = 'Running';
        sys.joined = sys.namespace !== undefined;
      } else if (this.op === 'Close') {
        if (sys.state === 'Stopped') m.systems.delete(id.toLowerCase());
      } else sys.state = 'Stopped';
    }
    agree(m, r, this.toString());
  }
  toString = () => `${this.op}System(${KIT_SYSTEMS[this.which % KIT_SYSTEMS.length]!})`;
}

/** A running compute system crashes (`host.hcs.injectExit`: UnexpectedExit). */
class CrashSystem implements fc.AsyncCommand<KitModel, KitReal> {
  constructor(readonly which: number) {}
  check = (m: Readonly<KitModel>) => [...m.systems.values()].some((s) => s.state === 'Running');
  async run(m: KitModel, r: KitReal): Promise<void> {
    const running = [...m.systems.values()].filter((s) => s.state === 'Running');
    const sys = running[this.which % running.length]!;
    r.host.hcs.injectExit(sys.id);
    sys.state = 'Stopped';
    agree(m, r, this.toString());
  }
  toString = () => `CrashSystem(${this.which})`;
}

/** The HCS commands: create (in a namespace or not), start, shutdown, terminate, close, crash. */
export function hcsCommands(): fc.Arbitrary<fc.AsyncCommand<KitModel, KitReal>>[] {
  const which = fc.nat(KIT_SYSTEMS.length - 1);
  return [
    fc.tuple(which, fc.option(fc.nat(7), { nil: undefined })).map(([w, ns]) => new CreateSystem(w, ns)),
    fc
      .tuple(fc.constantFrom<SystemOp>('Start', 'Start', 'Shutdown', 'Terminate', 'Close'), which)
      .map(([op, w]) => new SystemCall(op, w)),
    fc.nat(3).map((w) => new CrashSystem(w)),
  ];
}

// ───────────────────────────── CNI commands ─────────────────────────────

/** The pods (container IDs) the CNI commands use. */
export const KIT_PODS = ['pod-a', 'pod-b', 'pod-c'] as const;

function rtOf(p: { containerId: string; netns: string }) {
  return { containerId: p.containerId, netns: p.netns, ifName: 'eth0' };
}

/** The addresses of a CNI result (`ips[].address` without the prefix length). */
function resultIps(result: unknown): string[] {
  const ips = (result as { ips?: { address?: string }[] } | undefined)?.ips ?? [];
  return ips.map((i) => String(i.address ?? '').split('/')[0]!);
}

/** CNI ADD of a pod: its namespace first (as containerd makes it), then `addNetworkList`. */
class CniAdd implements fc.AsyncCommand<KitModel, KitReal> {
  constructor(readonly which: number) {}
  check = (m: Readonly<KitModel>) =>
    m.cniNetwork !== undefined && !m.pods.has(KIT_PODS[this.which % KIT_PODS.length]!);
  async run(m: KitModel, r: KitReal): Promise<void> {
    const cni = r.cni!;
    const containerId = KIT_PODS[this.which % KIT_PODS.length]!;
    const ns = await call(r, this.toString(), 'HcnCreateNamespace', [null, { SchemaVersion: V2 }], {
      ok: true,
    });
    if (!ns.ok) return agree(m, r, this.toString());
    const netns = idOf(ns);
    m.namespaces.set(netns, { owner: 'cni' });
    const pod: PodM = { containerId, netns, state: 'dirty' };
    m.pods.set(containerId, pod);
    try {
      const result = await r.settle(cni.runner.addNetworkList(cni.list, rtOf(pod)));
      const [ip] = resultIps(result);
      pod.state = 'added';
      if (ip) pod.ip = ip;
    } catch (e) {
      if (!r.faults)
        throw new ModelMismatch(this.toString(), `ADD failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    agree(m, r, this.toString());
  }
  toString = () => `CniAdd(${KIT_PODS[this.which % KIT_PODS.length]!})`;
}

/** CNI DEL of a pod, then its namespace deleted (containerd's teardown); nothing of it may be left. */
class CniDel implements fc.AsyncCommand<KitModel, KitReal> {
  constructor(readonly which: number) {}
  check = (m: Readonly<KitModel>) => m.pods.has(KIT_PODS[this.which % KIT_PODS.length]!);
  async run(m: KitModel, r: KitReal): Promise<void> {
    const cni = r.cni!;
    const pod = m.pods.get(KIT_PODS[this.which % KIT_PODS.length]!)!;
    try {
      await r.settle(cni.runner.delNetworkList(cni.list, rtOf(pod)));
    } catch (e) {
      if (!r.faults)
        throw new ModelMismatch(this.toString(), `DEL failed: ${e instanceof Error ? e.message : String(e)}`);
      pod.state = 'dirty';
      return agree(m, r, this.toString());
    }
    const nsLive = m.namespaces.has(pod.netns);
    const res = await call(
      r,
      this.toString(),
      'HcnDeleteNamespace',
      [pod.netns],
      nsLive ? { ok: true } : { hresult: 'ERROR_NOT_FOUND' },
    );
    if (res.ok) m.deleteNamespace(pod.netns);
    if (!res.ok && nsLive) {
      pod.state = 'dirty';
      return agree(m, r, this.toString());
    }
    m.pods.delete(pod.containerId);
    const name = podEndpointName(pod.containerId, r);
    const left = [...r.host.hns.store.endpoints.values()].filter((e) => e.Name.toLowerCase() === name);
    if (left.length) throw new ModelMismatch(this.toString(), `DEL left endpoint ${left[0]!.ID}`);
    const reserved = r.host
      .audit()
      .filter(
        (f) => f.kind === 'ip-reservation-orphaned' && f.detail.includes(` for ${pod.containerId} on `),
      );
    if (reserved.length) throw new ModelMismatch(this.toString(), `DEL left ${reserved[0]!.object}`);
    agree(m, r, this.toString());
  }
  toString = () => `CniDel(${KIT_PODS[this.which % KIT_PODS.length]!})`;
}

/** CNI CHECK of an added pod: the plugins find what ADD made. */
class CniCheck implements fc.AsyncCommand<KitModel, KitReal> {
  constructor(readonly which: number) {}
  check = (m: Readonly<KitModel>) => m.pods.get(KIT_PODS[this.which % KIT_PODS.length]!)?.state === 'added';
  async run(m: KitModel, r: KitReal): Promise<void> {
    const cni = r.cni!;
    const pod = m.pods.get(KIT_PODS[this.which % KIT_PODS.length]!)!;
    try {
      await r.settle(cni.runner.checkNetworkList(cni.list, rtOf(pod)));
    } catch (e) {
      if (!r.faults)
        throw new ModelMismatch(
          this.toString(),
          `CHECK failed: ${e instanceof Error ? e.message : String(e)}`,
        );
    }
    agree(m, r, this.toString());
  }
  toString = () => `CniCheck(${KIT_PODS[this.which % KIT_PODS.length]!})`;
}

/** The CNI commands (need `kitSetup({ cni })`): ADD of a new pod, DEL of any, CHECK of an added one. */
export function cniCommands(): fc.Arbitrary<fc.AsyncCommand<KitModel, KitReal>>[] {
  const which = fc.nat(KIT_PODS.length - 1);
  return [
    which.map((w) => new CniAdd(w)),
    which.map((w) => new CniDel(w)),
    which.map((w) => new CniCheck(w)),
  ];
}

// ───────────────────────────── weights ─────────────────────────────

/** A command arbitrary, or one with its weight (`fc.oneof`'s `{ arbitrary, weight }`). */
export type MaybeWeightedCommand<M extends object = KitModel, R = KitReal> =
  fc.Arbitrary<fc.AsyncCommand<M, R>> | fc.WeightedArbitrary<fc.AsyncCommand<M, R>>;

/** A group of commands and its share of the draws (`weight`, a non-negative integer). */
export interface CommandGroup<M extends object = KitModel, R = KitReal> {
  readonly weight: number;
  readonly commands: readonly MaybeWeightedCommand<M, R>[];
}

/**
 * Commands for `fc.commands` with weights. `fc.commands` draws each command uniformly from its
 * list, so the kit's ~18 commands drown a few of your own; here each group is drawn with
 * probability weight / (sum of the weights), then a command of it uniformly (or by the weights
 * its commands carry, `{ arbitrary, weight }`). The result is a one-element list, for
 * `fc.commands` as is; shrinking works as usual.
 *
 *   fc.commands(weightedCommands(
 *     { weight: 3, commands: [mine] },
 *     { weight: 1, commands: [...hnsCommands(), ...hcsCommands(), ...cniCommands()] },
 *   ), { maxCommands: 30 })
 */
export function weightedCommands<M extends object = KitModel, R = KitReal>(
  ...groups: readonly CommandGroup<M, R>[]
): fc.Arbitrary<fc.AsyncCommand<M, R>>[] {
  const live = groups.filter((g) => {
    if (!Number.isInteger(g.weight) || g.weight < 0)
      throw new RangeError(`weightedCommands: a weight must be a non-negative integer, got ${g.weight}`);
    return g.weight > 0;
  });
  if (!live.some((g) => g.commands.length))
    throw new RangeError('weightedCommands: no group with a positive weight has commands');
  return [
    fc.oneof(
      ...live
        .filter((g) => g.commands.length)
        .map((g) => ({ weight: g.weight, arbitrary: fc.oneof(...g.commands) })),
    ),
  ];
}

/**
 * Tear down what the kit's commands left (compute systems stopped and closed, pods deleted), so a
 * run can end with a leak check: `expect(real.host).toHaveNoLeaks()` then holds for the kit's own
 * objects only if you also delete the `hns` ones — `cleanupKit` does the pods and systems.
 */
export async function cleanupKit(model: KitModel, real: KitReal): Promise<void> {
  for (const sys of [...model.systems.values()]) {
    if (sys.state !== 'Stopped')
      await real.settle(
        real.host.transport.call({ method: 'HcsTerminateComputeSystem', args: [sys.id, ''] }),
      );
    await real.settle(real.host.transport.call({ method: 'HcsCloseComputeSystem', args: [sys.id] }));
    model.systems.delete(sys.id.toLowerCase());
  }
  for (const pod of [...model.pods.values()])
    await new CniDel(KIT_PODS.indexOf(pod.containerId as (typeof KIT_PODS)[number])).run(model, real);
}
