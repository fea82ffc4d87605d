/**
 * Model-based test of the HNS core through the flat API (STYLE.md "Model-based commands"; DESIGN
 * contracts 2 and 3; reference hns-hcs.md §1, §5.3, §6). Random sequences of every HCN operation —
 * valid and invalid: wrong IDs, bad documents, duplicate names, port conflicts, endpoints in two
 * namespaces, deletes of referenced objects — plus v1 HNSCall, HNS restarts and reboots, run against
 * a host and a small reference model (live IDs per kind, names, namespace membership, references,
 * claims). After every step: no invariant is violated, the model agrees with the enumerations, and
 * a failed operation returned a registered HRESULT and left the host exactly as it was: its
 * snapshot and every index, pool, claim map and counter behind it (`fingerprint`).
 * On failure fast-check prints the seed and the shrunk command path to replay.
 *
 * Soak: HNSIM_MODEL_RUNS=2000 HNSIM_MODEL_COMMANDS=100 npx vitest run test/hns/model.prop.test.ts
 * (HNSIM_MODEL_STATS=1 prints how often each operation met each outcome).
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isFailure, type HcnFailure, type HcnResult } from '../../src/api/flat.js';
import { HRESULTS, isRegisteredHResult, type HResultName } from '../../src/core/errors.js';
import { isJsonObject, type Json, type JsonObject } from '../../src/core/json.js';
import { parseIp } from '../../src/addr/ip.js';
import { createHost, type Host } from '../../src/host/host.js';
import { PROFILES, type HnsVersion } from '../../src/hns/versions.js';
import { findLoadBalancer } from '../../src/hns/loadbalancers.js';
import {
  addressIn,
  checkInvariants,
  endpointDoc,
  HNS_ARB,
  invalidDoc,
  loadBalancerDoc,
  namespaceDoc,
  networkDoc,
  policies,
  sdnRouteDoc,
  type ArbContext,
} from '../../src/testing/index.js';
import { runs } from '../runs.js';

// ───────────────────────────── the reference model ─────────────────────────────

type Kind = 'Network' | 'Endpoint' | 'Namespace' | 'LoadBalancer' | 'SdnRoute';
const KINDS: readonly Kind[] = ['Network', 'Endpoint', 'Namespace', 'LoadBalancer', 'SdnRoute'];

/** What HNS answers for an ID that names no object of the kind (reference §9 item 7). */
const NOT_FOUND: Readonly<Record<Kind, HResultName>> = {
  Network: 'HCN_E_NETWORK_NOT_FOUND',
  Endpoint: 'HCN_E_ENDPOINT_NOT_FOUND',
  Namespace: 'ERROR_NOT_FOUND',
  LoadBalancer: 'ERROR_NOT_FOUND',
  SdnRoute: 'ERROR_NOT_FOUND',
};

interface NetM {
  readonly name: string;
  readonly nonPersistent: boolean;
  /** The network Type as queried (`NAT` when omitted). */
  readonly type: string;
}
interface EpM {
  readonly network: string;
  readonly name: string;
  readonly remote: boolean;
  namespace?: string;
  vmPort: boolean;
  /** v1 container attachments (SharedContainers). */
  shared: string[];
  /** PortMapping host-port claims `<protocol>/<port>/<vip|*>/<IPv4|IPv6>`. */
  claims: string[];
  /** Addresses taken from the network's pools (local endpoints). */
  readonly addresses: string[];
  /**
   * Created through the v1 API (HNSCall POST /endpoints/): a schema-2 listing filtered by its
   * network leaves it out (docs/model.md "v1 endpoints in HCN listings", kubernetes#110591).
   */
  readonly createdV1: boolean;
}
interface NsM {
  readonly endpoints: string[];
  readonly containers: string[];
  /** Compartment 1 (a HostDefault namespace): where a v1 host attach goes. */
  readonly defaultCompartment: boolean;
}
interface LbM {
  readonly endpoints: string[];
  readonly claims: string[];
}
interface RouteM {
  readonly endpoints: string[];
}
interface PolicyListM {
  readonly endpoints: string[];
  /** ELB frontends, keyed like LB claims. */
  readonly claims: string[];
}

class Model {
  readonly networks = new Map<string, NetM>();
  readonly endpoints = new Map<string, EpM>();
  readonly namespaces = new Map<string, NsM>();
  /** Every load balancer, in creation order: HCN ones and v1 ELB policy lists (one store in HNS). */
  readonly lbs = new Map<string, LbM>();
  readonly routes = new Map<string, RouteM>();
  /** The load balancers created through v1 as ELB policy lists (and not since modified through HCN). */
  readonly policyLists = new Map<string, PolicyListM>();
  /** IDs of deleted objects, per kind (most recent last). */
  readonly dead: Record<Kind, string[]> = {
    Network: [],
    Endpoint: [],
    Namespace: [],
    LoadBalancer: [],
    SdnRoute: [],
  };

  constructor(readonly version: HnsVersion) {}

  table(kind: Kind): Map<string, unknown> {
    switch (kind) {
      case 'Network':
        return this.networks;
      case 'Endpoint':
        return this.endpoints;
      case 'Namespace':
        return this.namespaces;
      case 'LoadBalancer':
        return this.lbs;
      case 'SdnRoute':
        return this.routes;
    }
  }

  isLive(id: string): boolean {
    return KINDS.some((k) => this.table(k).has(id)) || this.policyLists.has(id);
  }

  hasName(name: string): boolean {
    const key = name.toLowerCase();
    return [...this.networks.values()].some((n) => n.name !== '' && n.name.toLowerCase() === key);
  }

  bury(kind: Kind, id: string): void {
    this.table(kind).delete(id);
    // v1 policy lists and load balancers are one store: a list goes as a load balancer goes
    if (kind === 'LoadBalancer') this.policyLists.delete(id);
    const d = this.dead[kind];
    if (!d.includes(id)) d.push(id);
    if (d.length > 6) d.shift();
  }

  attach(nsId: string, epId: string): void {
    this.namespaces.get(nsId)!.endpoints.push(epId);
    this.endpoints.get(epId)!.namespace = nsId;
  }

  detach(epId: string): void {
    const e = this.endpoints.get(epId);
    if (!e?.namespace) return;
    const ns = this.namespaces.get(e.namespace);
    if (ns) ns.endpoints.splice(ns.endpoints.indexOf(epId), 1);
    delete e.namespace;
  }

  removeEndpoint(epId: string): void {
    this.detach(epId);
    this.bury('Endpoint', epId);
  }

  removeNetwork(id: string): void {
    for (const [epId, e] of [...this.endpoints]) if (e.network === id) this.removeEndpoint(epId);
    this.bury('Network', id);
  }

  removeNamespace(id: string): void {
    for (const epId of [...this.namespaces.get(id)!.endpoints]) this.detach(epId);
    this.bury('Namespace', id);
  }

  /** Claims of the other endpoints of `network`. */
  networkClaims(network: string, except?: string): Set<string> {
    const out = new Set<string>();
    for (const [id, e] of this.endpoints)
      if (e.network === network && id !== except) for (const c of e.claims) out.add(c);
    return out;
  }

  /** Frontends claimed by load balancers and v1 ELB policy lists (but `except`). */
  lbClaims(except?: string): Set<string> {
    const out = new Set<string>();
    for (const [id, x] of [...this.lbs, ...this.policyLists])
      if (id !== except) for (const c of x.claims) out.add(c);
    return out;
  }
}

interface Real {
  readonly host: Host;
}

// ───────────────────────────── references to objects ─────────────────────────────

type RefMode = 'live' | 'lower' | 'braced' | 'dead' | 'unknown' | 'otherKind' | 'malformed' | 'empty';
interface Ref {
  readonly mode: RefMode;
  readonly pick: number;
}

/** IDs that name nothing (until a create is given one of them). */
const SPARE_IDS = [
  '0C0FFEE0-0000-4000-8000-00000000A001',
  '0C0FFEE0-0000-4000-8000-00000000A002',
  '0C0FFEE0-0000-4000-8000-00000000A003',
];

const refArb: fc.Arbitrary<Ref> = fc.record({
  mode: fc.oneof(
    { weight: 14, arbitrary: fc.constant<RefMode>('live') },
    { weight: 2, arbitrary: fc.constant<RefMode>('lower') },
    { weight: 1, arbitrary: fc.constant<RefMode>('braced') },
    { weight: 2, arbitrary: fc.constant<RefMode>('dead') },
    { weight: 1, arbitrary: fc.constant<RefMode>('unknown') },
    { weight: 1, arbitrary: fc.constant<RefMode>('otherKind') },
    { weight: 1, arbitrary: fc.constant<RefMode>('malformed') },
    { weight: 1, arbitrary: fc.constant<RefMode>('empty') },
  ),
  pick: fc.nat(15),
});

/** A reference that names an existing object when one exists (for nested references). */
const liveRefArb: fc.Arbitrary<Ref> = fc.record({
  mode: fc.oneof(
    { weight: 10, arbitrary: fc.constant<RefMode>('live') },
    { weight: 1, arbitrary: fc.constant<RefMode>('lower') },
    { weight: 1, arbitrary: fc.constant<RefMode>('dead') },
    { weight: 1, arbitrary: fc.constant<RefMode>('unknown') },
  ),
  pick: fc.nat(15),
});

interface Resolved {
  /** What is passed to the API. */
  readonly arg: string | null;
  /** The canonical ID when it names a live object of the kind. */
  readonly live?: string;
  readonly malformed: boolean;
}

function resolve(m: Model, kind: Kind, ref: Ref): Resolved {
  const ids = [...m.table(kind).keys()];
  const at = <T>(xs: readonly T[]): T | undefined => (xs.length ? xs[ref.pick % xs.length] : undefined);
  switch (ref.mode) {
    case 'live':
    case 'lower':
    case 'braced': {
      const id = at(ids);
      if (!id)
        return {
          arg: SPARE_IDS[ref.pick % SPARE_IDS.length]!,
          malformed: false,
          ...liveIf(m, kind, SPARE_IDS[ref.pick % SPARE_IDS.length]!),
        };
      const arg = ref.mode === 'lower' ? id.toLowerCase() : ref.mode === 'braced' ? `{${id}}` : id;
      return { arg, live: id, malformed: false };
    }
    case 'dead': {
      const id = at(m.dead[kind].filter((d) => !m.table(kind).has(d))) ?? SPARE_IDS[0]!;
      return { arg: id, malformed: false, ...liveIf(m, kind, id) };
    }
    case 'unknown': {
      const id = SPARE_IDS[ref.pick % SPARE_IDS.length]!;
      return { arg: id, malformed: false, ...liveIf(m, kind, id) };
    }
    case 'otherKind': {
      const others = KINDS.filter((k) => k !== kind).flatMap((k) => [...m.table(k).keys()]);
      const id = at(others) ?? SPARE_IDS[1]!;
      return { arg: id, malformed: false, ...liveIf(m, kind, id) };
    }
    case 'malformed':
      return {
        arg: ['not-a-guid', '1234', '{0C0FFEE0-0000-4000-8000-00000000A001'][ref.pick % 3]!,
        malformed: true,
      };
    case 'empty':
      return { arg: ref.pick % 2 ? '' : null, malformed: false };
  }
}

/** Whether the flat API takes `doc` as a settings object (a JSON object, or a string holding one). */
function objectDoc(doc: Json | undefined): boolean {
  if (isJsonObject(doc)) return true;
  if (typeof doc !== 'string') return false;
  try {
    return isJsonObject(JSON.parse(doc) as Json);
  } catch {
    return false;
  }
}

/**
 * What a call on an existing object's ID fails with before the service looks at the document, in
 * the flat API's order: a malformed ID, no ID, an ID naming nothing (hcsshim opens the object
 * before it sends the document: hcn/hcnnetwork.go modifyNetwork, HcnOpenNetwork then
 * HcnModifyNetwork), a settings argument that is not a JSON object. Undefined when the object exists
 * and the document is an object.
 */
function precheck(kind: Kind, x: Resolved, doc?: Json): Expect {
  if (x.malformed) return 'HCN_E_GUID_CONVERSION_FAILURE';
  if (x.arg === '' || x.arg === null) return NOT_FOUND[kind];
  if (!x.live) return NOT_FOUND[kind];
  if (doc !== undefined && !objectDoc(doc)) return 'HCN_E_INVALID_JSON';
  return undefined;
}

function liveIf(m: Model, kind: Kind, id: string): { live?: string } {
  return m.table(kind).has(id) ? { live: id } : {};
}

/** Resolve a list of references to endpoint IDs (live ones where possible). */
function resolveEndpoints(m: Model, refs: readonly Ref[]): { ids: string[]; missing: boolean } {
  const out: string[] = [];
  let missing = false;
  for (const r of refs) {
    const x = resolve(m, 'Endpoint', r);
    const id = x.live ?? (x.arg && !x.malformed ? x.arg.replace(/[{}]/g, '').toUpperCase() : SPARE_IDS[2]!);
    if (!x.live) missing = true;
    out.push(id);
  }
  return { ids: out, missing };
}

/** The ID a create is given. */
type IdMode = 'none' | 'zero' | 'spare' | 'taken';
const idModeArb: fc.Arbitrary<{ mode: IdMode; pick: number }> = fc.record({
  mode: fc.oneof(
    { weight: 12, arbitrary: fc.constant<IdMode>('none') },
    { weight: 1, arbitrary: fc.constant<IdMode>('zero') },
    { weight: 2, arbitrary: fc.constant<IdMode>('spare') },
    { weight: 1, arbitrary: fc.constant<IdMode>('taken') },
  ),
  pick: fc.nat(15),
});

function newIdArg(
  m: Model,
  x: { mode: IdMode; pick: number },
): { arg: string | null; given?: string; taken: boolean } {
  switch (x.mode) {
    case 'none':
      return { arg: null, taken: false };
    case 'zero':
      return { arg: '00000000-0000-0000-0000-000000000000', taken: false };
    case 'spare': {
      const id = SPARE_IDS[x.pick % SPARE_IDS.length]!;
      return { arg: id.toLowerCase(), given: id, taken: m.isLive(id) };
    }
    case 'taken': {
      const all = KINDS.flatMap((k) => [...m.table(k).keys()]);
      if (!all.length) return { arg: null, taken: false };
      const id = all[x.pick % all.length]!;
      return { arg: id, given: id, taken: true };
    }
  }
}

// ───────────────────────────── checking one step ─────────────────────────────

/**
 * What the model predicts: success, a specific failure, one failure of a set (when the service may
 * meet another refusal first), any failure, or nothing.
 */
type Expect = 'ok' | HResultName | readonly HResultName[] | 'fail' | undefined;

function describeResult(r: HcnResult<unknown>): string {
  return isFailure(r) ? `${r.name} (${r.message})` : 'success';
}

/**
 * `expect(actual, what).toEqual(expected)`, with a cheap structural pre-check first: vitest's expect
 * costs tens of microseconds per call, and the harness checks thousands of things per run.
 */
function same(actual: unknown, expected: unknown, what: string): void {
  if (!isDeepStrictEqual(actual, expected)) expect(actual, what).toEqual(expected);
}

function ensure(cond: boolean, what: string): void {
  if (!cond) expect.fail(what);
}

function checkFailure(label: string, f: HcnFailure): void {
  ensure(isRegisteredHResult(f.hr), `${label}: unregistered HRESULT ${f.hr}`);
  ensure(
    HRESULTS[f.name as HResultName]?.code === f.hr >>> 0,
    `${label}: name ${f.name} does not match hr ${f.hr}`,
  );
  ensure(!/internal error/.test(f.message), `${label}: an exception escaped the service: ${f.message}`);
  same(
    f.errorRecord,
    { Success: false, Error: `${HRESULTS[f.name as HResultName].message} `, ErrorCode: f.hr >>> 0 },
    `${label}: ErrorRecord`,
  );
}

/**
 * Run one API call: a failure must carry a registered HRESULT and leave the host exactly as it was
 * before (DESIGN contract 2: snapshot and `fingerprint`); then compare with the model's expectation.
 */
function call<T>(real: Real, label: string, want: Expect, fn: () => HcnResult<T>): HcnResult<T> {
  const before = fingerprint(real);
  const r = fn();
  if (isFailure(r)) {
    checkFailure(label, r);
    same(fingerprint(real), before, `${label} failed with ${r.name} but changed the state`);
  }
  expectOutcome(label, r, want);
  return r;
}

/**
 * Everything a failed call could leak: the snapshot (tables, pools, claim maps and endpoint lists,
 * adapters and vSwitches, RNG, counters) and what the snapshot does not carry — the ID index, the
 * load-balancer frontend claims, the endpoint references and the name index, each in its order —
 * plus the pools, MAC pools, claim maps, endpoint sets and adapters read straight from the live
 * objects, so a leak cannot hide behind the snapshot's encoding. (The audit in `agree` checks
 * these indexes against the tables as sets; this checks that a failure left them untouched.)
 */
function fingerprint(real: Real) {
  const host = real.host;
  const s = host.hns.store;
  return {
    snapshot: host.snapshot(),
    ids: [...s.ids],
    alloc: [...s.alloc].map(([id, a]) => ({
      id,
      subnets: a.subnets.map((x) => x.IpAddressPrefix),
      pools: a.pools.map((p) => p.toJSON()),
      macs: a.macs.toJSON(),
      claims: [...a.claims],
      endpoints: [...a.endpoints],
    })),
    lbClaims: [...s.lbClaims],
    endpointRefs: [...s.endpointRefs].map(([ep, owners]) => [ep, [...owners]]),
    networkByName: [...s.networkByName],
    tables: [s.networks, s.endpoints, s.namespaces, s.loadBalancers, s.routes, s.policyLists].map((t) => [
      ...t.keys(),
    ]),
    nics: s.nics.toJSON(),
    accelnetMacs: [...s.accelnetMacs],
    rng: host.rng.state(),
    seq: s.seq,
    nextCompartment: s.nextCompartment,
  };
}

/** Outcome counts per operation (printed with HNSIM_MODEL_STATS=1, to check what the runs exercise). */
const STATS = new Map<string, number>();

function tally(label: string, outcome: string): void {
  const k = `${label} → ${outcome}`;
  STATS.set(k, (STATS.get(k) ?? 0) + 1);
}

function expectOutcome(label: string, r: HcnResult<unknown>, want: Expect): void {
  tally(label, isFailure(r) ? r.name : 'ok');
  if (want === undefined) return;
  const got = isFailure(r) ? r.name : 'success';
  if (want === 'ok') ensure(r.hr === 0, `${label}: expected success, got ${describeResult(r)}`);
  else if (want === 'fail') ensure(r.hr !== 0, `${label}: expected a failure, got success`);
  else if (Array.isArray(want))
    ensure(
      want.includes(got as HResultName),
      `${label}: expected one of ${show(want)}, got ${describeResult(r)}`,
    );
  else if (got !== want) expect(got, `${label}: expected ${show(want)}, got ${describeResult(r)}`).toBe(want);
}

/** A v1 response `{"Success":false,…}` is a failed operation too: atomic, with a registered code. */
function callV1(
  real: Real,
  label: string,
  want: Expect,
  fn: () => HcnResult<JsonObject>,
): HcnResult<JsonObject> {
  const before = fingerprint(real);
  const r = fn();
  if (isFailure(r)) {
    checkFailure(label, r);
    same(fingerprint(real), before, `${label} failed with ${r.name} but changed the state`);
    expectOutcome(label, r, want === 'ok' ? 'fail' : want);
    return r;
  }
  const resp = r.result;
  tally(label, resp.Success === false ? `v1 ${String(resp.ErrorCode)}` : 'ok');
  if (resp.Success === false) {
    const code = resp.ErrorCode as number;
    ensure(isRegisteredHResult(code), `${label}: unregistered v1 ErrorCode ${code}`);
    same(fingerprint(real), before, `${label} answered Success:false but changed the state`);
    if (want === 'ok') expect.fail(`${label}: expected success, got v1 error ${String(resp.Error)}`);
    if (Array.isArray(want))
      ensure(
        want.some((n: HResultName) => HRESULTS[n].code === code >>> 0),
        `${label}: v1 ErrorCode ${code} is none of ${show(want)}`,
      );
    else if (want !== undefined && want !== 'fail')
      expect(code >>> 0, `${label}: v1 ErrorCode`).toBe(HRESULTS[want as HResultName].code);
  } else {
    ensure(resp.Success === true, `${label}: v1 Success is ${show(resp.Success)}`);
    if (want !== undefined && want !== 'ok') expect.fail(`${label}: expected ${want}, got v1 success`);
  }
  return r;
}

/** After every command: invariants hold and the model agrees with the host. */
function agree(m: Model, real: Real, label: string): void {
  const problems = checkInvariants(real.host);
  if (problems.length) expect(problems, `invariants after ${label}`).toEqual([]);
  const api = real.host.api;
  const enums: [Kind, HcnResult<string[]>][] = [
    ['Network', api.HcnEnumerateNetworks()],
    ['Endpoint', api.HcnEnumerateEndpoints()],
    ['Namespace', api.HcnEnumerateNamespaces()],
    ['LoadBalancer', api.HcnEnumerateLoadBalancers()],
    ['SdnRoute', api.HcnEnumerateSdnRoutes()],
  ];
  for (const [kind, r] of enums)
    same(isFailure(r) ? r : r.result, [...m.table(kind).keys()], `${kind} IDs after ${label}`);
  const s = real.host.hns.store;
  same([...s.policyLists.keys()], [...m.policyLists.keys()], `policy lists after ${label}`);
  for (const [id, n] of m.networks) same(s.networks.get(id)?.Name, n.name, `name of network ${id}`);
  for (const [id, e] of m.endpoints) {
    const rec = s.endpoints.get(id)!;
    same(rec.HostComputeNetwork, e.network, `network of endpoint ${id}`);
    same(rec.HostComputeNamespace, e.namespace, `namespace of endpoint ${id} after ${label}`);
    same(rec.VmPort !== undefined, e.vmPort, `VM port of endpoint ${id} after ${label}`);
    same(rec.SharedContainers, e.shared, `SharedContainers of endpoint ${id} after ${label}`);
  }
  for (const [id, ns] of m.namespaces) {
    const rec = s.namespaces.get(id)!;
    const eps = rec.Resources.filter((r) => r.Type === 'Endpoint').map((r) => r.ID);
    same(eps, ns.endpoints, `endpoints of namespace ${id} after ${label}`);
    const cs = rec.Resources.filter((r) => r.Type === 'Container').map((r) => r.ID.toLowerCase());
    same(cs, ns.containers, `containers of namespace ${id} after ${label}`);
  }
  for (const [id, lb] of m.lbs)
    same(findLoadBalancer(real.host.hns, id)?.HostComputeEndpoints, lb.endpoints, `backends of ${id}`);
  for (const [id, rt] of m.routes)
    same(s.routes.get(id)?.HostComputeEndpoints, rt.endpoints, `endpoints of route ${id}`);
}

// ───────────────────────────── commands ─────────────────────────────

/** One command: a label for the replay path, and the step it runs. */
class Step implements fc.Command<Model, Real> {
  constructor(
    private readonly label: string,
    private readonly exec: (m: Model, r: Real) => void,
  ) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    tally('commands run', 'ok');
    this.exec(m, r);
    agree(m, r, this.label);
  }
  toString(): string {
    return this.label;
  }
}

const show = (x: unknown): string => (x === undefined ? 'undefined' : JSON.stringify(x));

function docArg(doc: Json, asString: boolean): unknown {
  return asString ? JSON.stringify(doc) : doc;
}

/**
 * `<protocol>/<port>/<vip|*>/<family>` of the PortMapping policies (with an ExternalPort) of a
 * document: one host port per protocol, port, VIP (as an address) and address family — NatFlags
 * bit 2 (IPv6) tells the two mappings of a dual-stack port apart (Azure CNI sends Flags 1 and 2,
 * WCN 0 and 2 or 1 and 3), so an IPv6 twin is no duplicate.
 */
function portClaims(policiesJson: Json | undefined): string[] {
  if (!Array.isArray(policiesJson)) return [];
  const out: string[] = [];
  for (const p of policiesJson) {
    if (!isJsonObject(p) || p.Type !== 'PortMapping' || !isJsonObject(p.Settings)) continue;
    const s = p.Settings;
    if (!s.ExternalPort) continue;
    const ip = typeof s.VIP === 'string' ? parseIp(s.VIP) : undefined;
    const vip = ip ? `${ip.family}:${ip.value.toString()}` : typeof s.VIP === 'string' ? s.VIP : '*';
    const family = typeof s.Flags === 'number' && s.Flags & 2 ? 'IPv6' : 'IPv4';
    out.push(`${String(s.Protocol)}/${String(s.ExternalPort)}/${vip}/${family}`);
  }
  return out;
}

/** Network types that refuse PortMapping (docs/model.md "PortMapping"). */
const NO_PORT_MAPPING = ['Transparent', 'L2Tunnel', 'Private', 'Internal'];

/** Whether `claims` hold one twice, or one another endpoint of `network` holds (but `self`). */
function portClash(m: Model, network: string, claims: readonly string[], self?: string): boolean {
  return hasDuplicates(claims) || intersects(claims, m.networkClaims(network, self));
}

/**
 * HCN_E_PORT_ALREADY_EXISTS from an endpoint call must have a reason the model sees: a claim twice
 * in the request, or held by another endpoint. (Catches a claim key that is too coarse: an IPv6
 * twin, another VIP or another protocol refused as if it were the same host port.)
 */
function portRefusalExplained(label: string, r: HcnResult<unknown>, clash: boolean, claims: string[]): void {
  if (isFailure(r) && r.name === 'HCN_E_PORT_ALREADY_EXISTS')
    ensure(clash, `${label}: HCN_E_PORT_ALREADY_EXISTS, but the claims ${show(claims)} are all free`);
}

function lbClaimsOf(doc: JsonObject): string[] {
  const vips =
    Array.isArray(doc.FrontendVIPs) && doc.FrontendVIPs.length ? (doc.FrontendVIPs as string[]) : ['*'];
  const out: string[] = [];
  for (const pm of (doc.PortMappings as JsonObject[] | undefined) ?? []) {
    if (!pm.ExternalPort) continue;
    for (const v of vips) out.push(`${String(pm.Protocol)}/${String(pm.ExternalPort)}/${v}`);
  }
  return out;
}

/** The `Policies` of a settings argument (an object, or a string holding one). */
function policiesOf(doc: Json): Json | undefined {
  if (isJsonObject(doc)) return doc.Policies;
  if (typeof doc !== 'string') return undefined;
  try {
    const v = JSON.parse(doc) as Json;
    return isJsonObject(v) ? v.Policies : undefined;
  } catch {
    return undefined;
  }
}

function hasDuplicates(xs: readonly string[]): boolean {
  return new Set(xs).size !== xs.length;
}

function intersects(xs: readonly string[], set: ReadonlySet<string>): boolean {
  return xs.some((x) => set.has(x));
}

/** Subnet prefixes of a live network, in Ipams order, from a query. */
function subnetsOfNetwork(real: Real, id: string): string[] {
  const r = real.host.api.HcnQueryNetworkProperties(id);
  if (isFailure(r)) return [];
  const ipams = (r.result.Ipams as JsonObject[] | undefined) ?? [];
  return ipams.flatMap((i) =>
    ((i.Subnets as JsonObject[] | undefined) ?? []).map((s) => s.IpAddressPrefix as string),
  );
}

function queryPolicies(real: Real, kind: 'Network' | 'Endpoint', id: string): JsonObject[] {
  const r =
    kind === 'Network'
      ? real.host.api.HcnQueryNetworkProperties(id)
      : real.host.api.HcnQueryEndpointProperties(id);
  return isFailure(r) ? [] : ((r.result.Policies as JsonObject[] | undefined) ?? []);
}

// ── networks

function createNetworkCmd(ctx: ArbContext): fc.Arbitrary<Step> {
  return fc
    .record({
      valid: fc.integer({ min: 1, max: 100 }).map((n) => n <= 85),
      good: networkDoc(ctx),
      bad: invalidDoc(),
      id: idModeArb,
      upper: fc.integer({ min: 1, max: 100 }).map((n) => n <= 10),
      asString: fc.boolean(),
    })
    .map(({ valid, good, bad, id, upper, asString }) => {
      const doc: Json = valid ? (upper ? { ...good, Name: String(good.Name).toUpperCase() } : good) : bad;
      return new Step(`HcnCreateNetwork(${id.mode}, ${show(doc)})`, (m, real) => {
        const idArg = newIdArg(m, id);
        const name = valid && isJsonObject(doc) ? String(doc.Name ?? '') : '';
        const dupName = valid && name !== '' && m.hasName(name);
        const want: Expect = !valid
          ? undefined
          : dupName || idArg.taken
            ? 'HCN_E_NETWORK_ALREADY_EXISTS'
            : 'ok';
        const r = call(real, 'HcnCreateNetwork', want, () =>
          real.host.api.HcnCreateNetwork(idArg.arg, docArg(doc, asString)),
        );
        if (isFailure(r)) return;
        const res = r.result;
        const ID = res.ID as string;
        ensure(!m.isLive(ID), `a create returned the ID ${ID} of a live object`);
        if (idArg.given) same(ID, idArg.given, 'the ID given to the create');
        const got = String(res.Name ?? '');
        if (got !== '') ensure(!m.hasName(got), `network name "${got}" was already taken`);
        // create returns the object exactly as a default query shows it (reference §0.1)
        const q = real.host.api.HcnQueryNetworkProperties(ID);
        same(isFailure(q) ? q : q.result, res, 'query after create');
        m.networks.set(ID, {
          name: got,
          nonPersistent: ((res.Flags as number | undefined) ?? 0) & 8 ? true : false,
          type: typeof res.Type === 'string' ? res.Type : 'NAT',
        });
      });
    });
}

function modifyNetworkCmd(ctx: ArbContext): fc.Arbitrary<Step> {
  const request = fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .record({
          RequestType: fc.constantFrom('Add', 'Remove', 'Update', 'Refresh'),
          Policies: policies('network', ctx, 2),
        })
        .map(({ RequestType, Policies }) => ({
          kind: 'doc' as const,
          doc: { ResourceType: 'Policy', RequestType, Settings: { Policies } },
        })),
    },
    { weight: 2, arbitrary: fc.constant({ kind: 'removeExisting' as const, doc: {} as Json }) },
    {
      weight: 1,
      arbitrary: fc.subarray([...HNS_ARB.dnsServers].slice(0, 2), { minLength: 1 }).map((ServerList) => ({
        kind: 'doc' as const,
        doc: { ResourceType: 'DNS', RequestType: 'Update', Settings: { ServerList } },
      })),
    },
    {
      weight: 1,
      arbitrary: fc.boolean().map((IsEnabled) => ({
        kind: 'doc' as const,
        doc: {
          ResourceType: 'Extension',
          RequestType: 'Add',
          Settings: { Id: 'E7C3B2F0-F3C5-48DF-AF2B-10FED6D72E7A', IsEnabled },
        },
      })),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({ s: fc.constantFrom(...HNS_ARB.ipv4Subnets), RequestType: fc.constantFrom('Add', 'Remove') })
        .map(({ s, RequestType }) => ({
          kind: 'doc' as const,
          doc: {
            ResourceType: 'Subnet',
            RequestType,
            Settings: {
              Subnets: [
                {
                  IpAddressPrefix: s.prefix,
                  Routes: [{ NextHop: s.gateway, DestinationPrefix: '0.0.0.0/0' }],
                },
              ],
            },
          },
        })),
    },
    { weight: 1, arbitrary: invalidDoc().map((doc) => ({ kind: 'doc' as const, doc })) },
  );
  return fc.record({ ref: refArb, req: request }).map(
    ({ ref, req }) =>
      new Step(
        `HcnModifyNetwork(${show(ref)}, ${req.kind === 'doc' ? show(req.doc) : 'remove an existing policy'})`,
        (m, real) => {
          const x = resolve(m, 'Network', ref);
          let doc = req.doc;
          let want: Expect = precheck('Network', x, doc);
          if (req.kind === 'removeExisting' && x.live) {
            // an Overlay network's query also shows the ProviderAddress and DrMacAddress HNS reports
            // for its adapter; whether a Remove may drop those is not settled (docs/model.md has no
            // rule), so this command removes other policies only
            const overlay = m.networks.get(x.live)!.type === 'Overlay';
            const ps = queryPolicies(real, 'Network', x.live).filter(
              (p) => !(overlay && (p.Type === 'ProviderAddress' || p.Type === 'DrMacAddress')),
            );
            doc = {
              ResourceType: 'Policy',
              RequestType: ps.length ? 'Remove' : 'Refresh',
              Settings: { Policies: ps.slice(0, 1) },
            };
            want = 'ok';
          }
          const r = call(real, 'HcnModifyNetwork', want, () => real.host.api.HcnModifyNetwork(x.arg, doc));
          if (!isFailure(r)) same(r.result, null, 'HcnModifyNetwork result');
          if (req.kind === 'removeExisting' && x.live) {
            // after RemovePolicy the policy is gone (reference §6.11)
            const removed = (doc as JsonObject).Settings as JsonObject;
            const left = queryPolicies(real, 'Network', x.live);
            for (const p of removed.Policies as JsonObject[]) expect(left).not.toContainEqual(p);
          }
        },
      ),
  );
}

function deleteCmd(kind: Kind): fc.Arbitrary<Step> {
  return fc.record({ ref: refArb }).map(
    ({ ref }) =>
      new Step(`HcnDelete${kind}(${show(ref)})`, (m, real) => {
        const x = resolve(m, kind, ref);
        // an endpoint (or a network with endpoints) named by load balancers, routes or policy
        // lists is deleted all the same: they keep naming it (docs/model.md, "Endpoints")
        const want: Expect = precheck(kind, x) ?? 'ok';
        const api = real.host.api;
        const fn = {
          Network: () => api.HcnDeleteNetwork(x.arg),
          Endpoint: () => api.HcnDeleteEndpoint(x.arg),
          Namespace: () => api.HcnDeleteNamespace(x.arg),
          LoadBalancer: () => api.HcnDeleteLoadBalancer(x.arg),
          SdnRoute: () => api.HcnDeleteSdnRoute(x.arg),
        }[kind];
        const r = call(real, `HcnDelete${kind}`, want, fn);
        if (isFailure(r) || !x.live) return;
        if (kind === 'Network') m.removeNetwork(x.live);
        else if (kind === 'Endpoint') m.removeEndpoint(x.live);
        else if (kind === 'Namespace') m.removeNamespace(x.live);
        else m.bury(kind, x.live);
        // the object is gone: a query now says not found
        const q = {
          Network: () => api.HcnQueryNetworkProperties(x.live),
          Endpoint: () => api.HcnQueryEndpointProperties(x.live),
          Namespace: () => api.HcnQueryNamespaceProperties(x.live),
          LoadBalancer: () => api.HcnQueryLoadBalancerProperties(x.live),
          SdnRoute: () => api.HcnQuerySdnRouteProperties(x.live),
        }[kind]();
        expectOutcome(`query after HcnDelete${kind}`, q, NOT_FOUND[kind]);
      }),
  );
}

const QUERIES: readonly (Json | undefined)[] = [
  undefined,
  '',
  {},
  '{"Flags":1}',
  { SchemaVersion: { Major: 2, Minor: 0 }, Flags: 1 },
  { SchemaVersion: { Major: 1, Minor: 0 } },
];

function queryCmd(kind: Kind): fc.Arbitrary<Step> {
  return fc.record({ ref: refArb, q: fc.constantFrom(...QUERIES) }).map(
    ({ ref, q }) =>
      new Step(`HcnQuery${kind}Properties(${show(ref)}, ${show(q)})`, (m, real) => {
        const x = resolve(m, kind, ref);
        const want: Expect = precheck(kind, x) ?? 'ok';
        const api = real.host.api;
        const fn = {
          Network: () => api.HcnQueryNetworkProperties(x.arg, q),
          Endpoint: () => api.HcnQueryEndpointProperties(x.arg, q),
          Namespace: () => api.HcnQueryNamespaceProperties(x.arg, q),
          LoadBalancer: () => api.HcnQueryLoadBalancerProperties(x.arg, q),
          SdnRoute: () => api.HcnQuerySdnRouteProperties(x.arg, q),
        }[kind];
        const r = call(real, `HcnQuery${kind}Properties`, want, fn);
        if (isFailure(r) || !x.live) return;
        same(r.result.ID, x.live, 'the queried object');
      }),
  );
}

type FilterKind = 'none' | 'id' | 'name' | 'network' | 'virtualNetwork' | 'bad';

function enumerateCmd(kind: Kind): fc.Arbitrary<Step> {
  return fc
    .record({
      f: fc.constantFrom<FilterKind>('none', 'id', 'name', 'network', 'virtualNetwork', 'bad'),
      ref: refArb,
      name: fc.constantFrom(...HNS_ARB.networkNames, ...HNS_ARB.endpointNames, 'NAT'),
      asString: fc.boolean(),
    })
    .map(
      ({ f, ref, name, asString }) =>
        new Step(`HcnEnumerate${kind}s(${f}, ${show(ref)}, ${show(name)})`, (m, real) => {
          let filter: JsonObject | undefined;
          let expected: string[] | undefined = [...m.table(kind).keys()];
          let want: Expect = 'ok';
          if (f === 'id') {
            const x = resolve(m, kind, ref);
            filter = { ID: x.arg ?? '' };
            expected = x.live ? [x.live] : x.arg === '' || x.arg === null ? expected : [];
            if (x.arg === '' || x.arg === null) expected = undefined;
          } else if (f === 'name' && (kind === 'Network' || kind === 'Endpoint')) {
            filter = { Name: name };
            expected =
              kind === 'Network'
                ? [...m.networks].filter(([, n]) => n.name === name).map(([id]) => id)
                : [...m.endpoints].filter(([, e]) => e.name === name).map(([id]) => id);
          } else if ((f === 'network' || f === 'virtualNetwork') && kind === 'Endpoint') {
            const x = resolve(m, 'Network', ref);
            filter = { [f === 'network' ? 'HostComputeNetwork' : 'VirtualNetwork']: x.arg ?? '' };
            // the query is schema 2: the endpoints created through v1 are not listed by network
            expected = x.live
              ? [...m.endpoints].filter(([, e]) => e.network === x.live && !e.createdV1).map(([id]) => id)
              : x.malformed
                ? []
                : undefined;
            if (!x.live && !x.malformed && x.arg) expected = [];
          } else if (f === 'bad') {
            want = 'HCN_E_INVALID_JSON';
            expected = undefined;
          }
          const query: Json | undefined =
            f === 'bad'
              ? { Filter: '{"ID":' }
              : filter
                ? { SchemaVersion: { Major: 2, Minor: 0 }, Filter: JSON.stringify(filter) }
                : undefined;
          const arg = asString && query !== undefined ? JSON.stringify(query) : query;
          const api = real.host.api;
          const fn = {
            Network: () => api.HcnEnumerateNetworks(arg),
            Endpoint: () => api.HcnEnumerateEndpoints(arg),
            Namespace: () => api.HcnEnumerateNamespaces(arg),
            LoadBalancer: () => api.HcnEnumerateLoadBalancers(arg),
            SdnRoute: () => api.HcnEnumerateSdnRoutes(arg),
          }[kind];
          const r = call(real, `HcnEnumerate${kind}s`, want, fn);
          if (!isFailure(r) && expected)
            same(r.result, expected, `HcnEnumerate${kind}s with filter ${show(filter)}`);
        }),
    );
}

// ── endpoints

/**
 * Check a created endpoint against the model (its network exists, its port claims and pooled
 * addresses were free, explicit addresses came back verbatim) and record it.
 */
function recordEndpoint(
  m: Model,
  res: JsonObject,
  requested: readonly string[],
  remoteDoc: boolean,
  createdV1 = false,
): void {
  const ID = res.ID as string;
  const network = res.HostComputeNetwork as string;
  ensure(m.networks.has(network), `endpoint created on network ${network}, which does not exist`);
  const claims = portClaims(res.Policies);
  ensure(!hasDuplicates(claims), `endpoint ${ID} holds a host port twice: ${show(claims)}`);
  ensure(
    !intersects(claims, m.networkClaims(network)),
    `port claims ${show(claims)} were taken on ${network}`,
  );
  const isRemote = (((res.Flags as number | undefined) ?? 0) & 1) !== 0;
  const cfgs = ((res.IpConfigurations as JsonObject[] | undefined) ?? []).map((c) => c.IpAddress as string);
  // explicit IpConfigurations come back verbatim (reference §6.4)
  if (requested.length) same(cfgs, requested, 'explicit IpConfigurations');
  const taken = new Set(
    [...m.endpoints.values()].filter((e) => e.network === network).flatMap((e) => e.addresses),
  );
  const addresses = isRemote ? [] : cfgs;
  ensure(!intersects(addresses, taken), `address ${show(addresses)} handed out twice on ${network}`);
  same(res.HostComputeNamespace, undefined, 'HostComputeNamespace of a new endpoint');
  m.endpoints.set(ID, {
    network,
    name: String(res.Name ?? ''),
    remote: isRemote || remoteDoc,
    vmPort: false,
    shared: [],
    claims,
    addresses,
    createdV1,
  });
}

function createEndpointCmd(ctx: ArbContext): fc.Arbitrary<Step> {
  return fc
    .record({
      net: refArb,
      id: idModeArb,
      valid: fc.integer({ min: 1, max: 100 }).map((n) => n <= 88),
      // portClashes: some documents map one host port twice (refused) or carry IPv6 twins (accepted)
      good: endpointDoc(undefined, { ...ctx, portClashes: true }),
      bad: invalidDoc(),
      hosts: fc.option(fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 2 }), {
        freq: 3,
      }),
      docNet: fc.constantFrom('none', 'none', 'none', 'same', 'other'),
      asString: fc.boolean(),
    })
    .map(
      ({ net, id, valid, good, bad, hosts, docNet, asString }) =>
        new Step(
          `HcnCreateEndpoint(${show(net)}, ${id.mode}, ${show(valid ? good : bad)}, ip ${show(hosts)}, ${docNet})`,
          (m, real) => {
            const x = resolve(m, 'Network', net);
            const idArg = newIdArg(m, id);
            let doc: Json = valid ? { ...good } : bad;
            const requested: string[] = [];
            if (valid && isJsonObject(doc)) {
              if (hosts && x.live) {
                const subs = subnetsOfNetwork(real, x.live);
                const cfgs: JsonObject[] = [];
                const fams = new Set<boolean>();
                hosts.forEach((h, i) => {
                  const p = subs[i % Math.max(1, subs.length)];
                  if (!p || fams.has(p.includes(':'))) return;
                  fams.add(p.includes(':'));
                  cfgs.push({ IpAddress: addressIn(p, h) });
                  requested.push(addressIn(p, h));
                });
                if (cfgs.length) doc = { ...doc, IpConfigurations: cfgs };
              }
              if (docNet === 'same' && x.live) doc = { ...doc, HostComputeNetwork: x.live.toLowerCase() };
              if (docNet === 'other') {
                const other = [...m.networks.keys()].find((n) => n !== x.live);
                if (other) doc = { ...doc, HostComputeNetwork: other };
              }
            }
            // the claims of what is sent, valid or not (a broken field the service ignores leaves
            // the policies in force)
            const docClaims = portClaims(policiesOf(doc));
            const remote =
              valid && isJsonObject(doc) && ((doc.Flags as number | undefined) ?? 0) & 1 ? true : false;
            let want: Expect;
            const conflictingNet =
              valid &&
              isJsonObject(doc) &&
              typeof doc.HostComputeNetwork === 'string' &&
              doc.HostComputeNetwork.toUpperCase() !== x.live;
            if (!valid) want = undefined;
            else if (x.malformed) want = 'HCN_E_GUID_CONVERSION_FAILURE';
            else if (conflictingNet && x.live) want = 'HCN_E_INVALID_ENDPOINT';
            else if (valid && !x.live && !conflictingNet) want = 'HCN_E_NETWORK_NOT_FOUND';
            // the network the endpoint goes to: the argument, or without one the document's
            const docNetwork =
              isJsonObject(doc) && typeof doc.HostComputeNetwork === 'string'
                ? doc.HostComputeNetwork.toUpperCase()
                : undefined;
            const target =
              x.live ??
              ((x.arg === null || x.arg === '') && docNetwork && m.networks.has(docNetwork)
                ? docNetwork
                : undefined);
            const clash = target !== undefined && portClash(m, target, docClaims);
            if (want === undefined && valid && target && clash) {
              // a host port twice in the request, or held by another endpoint: the create must
              // fail — with 0x803B0013 unless a check the service makes first refuses it already
              // (PortMapping on a network type without NAT; the address checks before the claims)
              want = NO_PORT_MAPPING.includes(m.networks.get(target)!.type)
                ? 'HCN_E_MAPPING_NOT_SUPPORTED'
                : requested.length
                  ? [
                      'HCN_E_PORT_ALREADY_EXISTS',
                      'ERROR_OBJECT_ALREADY_EXISTS',
                      'HCN_E_ADDR_INVALID_OR_RESERVED',
                      'HCN_E_INVALID_IP',
                      'HCN_E_INVALID_ENDPOINT',
                    ]
                  : ['HCN_E_PORT_ALREADY_EXISTS', 'HCN_E_SUBNET_NOT_FOUND'];
            }
            const r = call(real, 'HcnCreateEndpoint', want, () =>
              real.host.api.HcnCreateEndpoint(x.arg, idArg.arg, docArg(doc, asString)),
            );
            portRefusalExplained('HcnCreateEndpoint', r, clash, docClaims);
            if (isFailure(r)) return;
            const res = r.result;
            const ID = res.ID as string;
            ensure(!m.isLive(ID), `a create returned the ID ${ID} of a live object`);
            ensure(!idArg.taken, 'a create succeeded with an ID in use');
            if (idArg.given) same(ID, idArg.given, 'the ID given to the create');
            if (x.live) same(res.HostComputeNetwork, x.live, 'HostComputeNetwork of the new endpoint');
            recordEndpoint(m, res, requested, remote);
            const q = real.host.api.HcnQueryEndpointProperties(ID);
            same(isFailure(q) ? q : q.result, res, 'query after create');
          },
        ),
    );
}

function modifyEndpointCmd(ctx: ArbContext): fc.Arbitrary<Step> {
  const request = fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .record({
          RequestType: fc.constantFrom('Add', 'Remove', 'Update', 'Refresh'),
          Policies: policies('endpoint', ctx, 2, { portClashes: true }),
        })
        .map(({ RequestType, Policies }) => ({
          kind: 'policy' as const,
          doc: { ResourceType: 'Policy', RequestType, Settings: { Policies } } as Json,
        })),
    },
    { weight: 2, arbitrary: fc.constant({ kind: 'removeExisting' as const, doc: {} as Json }) },
    { weight: 2, arbitrary: fc.constant({ kind: 'portAdd' as const, doc: {} as Json }) },
    { weight: 5, arbitrary: fc.constant({ kind: 'mapAgain' as const, doc: {} as Json }) },
    {
      weight: 1,
      arbitrary: fc.constant({
        kind: 'portRemove' as const,
        doc: { ResourceType: 'Port', RequestType: 'Remove', Settings: {} } as Json,
      }),
    },
    { weight: 1, arbitrary: invalidDoc().map((doc) => ({ kind: 'doc' as const, doc })) },
  );
  return fc.record({ ref: refArb, req: request, vm: fc.nat(3) }).map(
    ({ ref, req, vm }) =>
      new Step(`HcnModifyEndpoint(${show(ref)}, ${req.kind}, ${show(req.doc)})`, (m, real) => {
        // mapAgain aims at an endpoint that holds a host port half of the time, when there is one
        const holders = [...m.endpoints.keys()].filter((id) => m.endpoints.get(id)!.claims.length);
        const x: Resolved =
          req.kind === 'mapAgain' && holders.length && ref.pick % 2 === 0
            ? {
                arg: holders[ref.pick % holders.length]!,
                live: holders[ref.pick % holders.length]!,
                malformed: false,
              }
            : resolve(m, 'Endpoint', ref);
        const e = x.live ? m.endpoints.get(x.live) : undefined;
        let doc = req.doc;
        let want: Expect = precheck('Endpoint', x, doc);
        if (e && x.live) {
          if (req.kind === 'removeExisting') {
            const ps = queryPolicies(real, 'Endpoint', x.live);
            doc = {
              ResourceType: 'Policy',
              RequestType: ps.length ? 'Remove' : 'Refresh',
              Settings: { Policies: ps.slice(-1) },
            };
            want = 'ok';
          } else if (req.kind === 'portAdd') {
            const vmId = `5F0B1190-63BE-4E0C-B974-BD0F55675A4${vm}`;
            doc = {
              ResourceType: 'Port',
              RequestType: 'Add',
              Settings: {
                PortId: `A1B2C3D4-0000-4000-8000-00000000000${vm}`,
                VirtualMachineId: vmId,
                VirtualNicName: `${vmId}--${x.live}`,
              },
            };
            want = e.vmPort
              ? 'HCN_E_ENDPOINT_ALREADY_ATTACHED'
              : e.remote
                ? 'HCN_E_INVALID_REMOTE_ENDPOINT_OPERATION'
                : 'ok';
          } else if (req.kind === 'portRemove') {
            want = e.vmPort ? 'ok' : 'HCN_E_ENDPOINT_NOT_ATTACHED';
          } else if (req.kind === 'mapAgain') {
            // Add a second mapping (another internal port) on a host port the endpoint holds: the
            // claim is its own, but twice — refused like a clash with another endpoint. An endpoint
            // without one gets a first mapping instead (so later steps find holders).
            const held = queryPolicies(real, 'Endpoint', x.live).find(
              (p) => p.Type === 'PortMapping' && isJsonObject(p.Settings) && p.Settings.ExternalPort,
            );
            const s = (held?.Settings as JsonObject | undefined) ?? {
              Protocol: 6,
              InternalPort: 80,
              ExternalPort: HNS_ARB.ports[ref.pick % HNS_ARB.ports.length]!,
            };
            const mapping = { ...s, InternalPort: s.InternalPort === 9376 ? 8443 : 9376 };
            doc = {
              ResourceType: 'Policy',
              RequestType: 'Add',
              Settings: { Policies: [{ Type: 'PortMapping', Settings: mapping }] },
            };
            want = held
              ? 'HCN_E_PORT_ALREADY_EXISTS'
              : NO_PORT_MAPPING.includes(m.networks.get(e.network)!.type)
                ? 'HCN_E_MAPPING_NOT_SUPPORTED'
                : intersects(
                      portClaims([{ Type: 'PortMapping', Settings: mapping }]),
                      m.networkClaims(e.network, x.live),
                    )
                  ? 'HCN_E_PORT_ALREADY_EXISTS'
                  : 'ok';
          }
        }
        // the claims the endpoint would hold after a policy request: Add keeps its own and adds the
        // request's (a second mapping on a port it holds is a clash too); Update with PortMappings
        // replaces all of its PortMappings; Remove and Refresh add nothing
        let after: string[] = [];
        if (
          e &&
          (req.kind === 'policy' || req.kind === 'mapAgain') &&
          isJsonObject(doc) &&
          isJsonObject(doc.Settings)
        ) {
          const given = portClaims(doc.Settings.Policies);
          const givesMappings =
            Array.isArray(doc.Settings.Policies) &&
            doc.Settings.Policies.some((p) => isJsonObject(p) && p.Type === 'PortMapping');
          if (doc.RequestType === 'Add') after = [...e.claims, ...given];
          else if (doc.RequestType === 'Update' && givesMappings) after = given;
        }
        const clash = e !== undefined && x.live !== undefined && portClash(m, e.network, after, x.live);
        if (want === undefined && clash) {
          // refused: 0x803B0013, unless the policy checks the service makes first refuse it already
          want = [
            'HCN_E_PORT_ALREADY_EXISTS',
            'HCN_E_POLICY_ALREADY_EXISTS',
            'HCN_INTERFACEPARAMETERS_ALREADY_APPLIED',
            'HCN_E_MAPPING_NOT_SUPPORTED',
          ];
        }
        const r = call(real, 'HcnModifyEndpoint', want, () => real.host.api.HcnModifyEndpoint(x.arg, doc));
        portRefusalExplained('HcnModifyEndpoint', r, clash, after);
        if (isFailure(r) || !e || !x.live) return;
        if (req.kind === 'portAdd') e.vmPort = true;
        if (req.kind === 'portRemove') e.vmPort = false;
        const claims = portClaims(queryPolicies(real, 'Endpoint', x.live));
        ensure(!hasDuplicates(claims), `endpoint ${x.live} holds a host port twice: ${show(claims)}`);
        ensure(
          !intersects(claims, m.networkClaims(e.network, x.live)),
          `port claims ${show(claims)} were taken`,
        );
        e.claims = claims;
      }),
  );
}

// ── namespaces

function createNamespaceCmd(): fc.Arbitrary<Step> {
  return fc
    .record({
      id: idModeArb,
      valid: fc.integer({ min: 1, max: 100 }).map((n) => n <= 90),
      good: namespaceDoc(),
      bad: invalidDoc(),
      eps: fc.array(liveRefArb, { maxLength: 2 }),
      withEndpoints: fc.integer({ min: 1, max: 100 }).map((n) => n <= 35),
    })
    .map(
      ({ id, valid, good, bad, eps, withEndpoints }) =>
        new Step(
          `HcnCreateNamespace(${id.mode}, ${show(valid ? good : bad)}, eps ${withEndpoints ? show(eps) : '[]'})`,
          (m, real) => {
            const idArg = newIdArg(m, id);
            const { ids } = withEndpoints ? resolveEndpoints(m, eps) : { ids: [] as string[] };
            let doc: Json = valid ? good : bad;
            let want: Expect;
            if (valid) {
              const resources = [
                ...((good.Resources as JsonObject[] | undefined) ?? []),
                ...ids.map((i) => ({ Type: 'Endpoint', Data: { ID: i } })),
              ];
              doc = resources.length ? { ...good, Resources: resources } : good;
              // the first failing check wins (reference §6.10): missing, remote, in a namespace; then duplicates; then the ID
              for (const epId of ids) {
                const e = m.endpoints.get(epId);
                want = !e
                  ? 'HCN_E_ENDPOINT_NOT_FOUND'
                  : e.remote
                    ? 'HCN_E_INVALID_REMOTE_ENDPOINT_OPERATION'
                    : e.namespace
                      ? 'HCN_E_ENDPOINT_NAMESPACE_ALREADY_EXISTS'
                      : undefined;
                if (want) break;
              }
              if (!want && hasDuplicates(ids)) want = 'HCN_E_ENDPOINT_NAMESPACE_ALREADY_EXISTS';
              if (!want) want = idArg.taken ? 'ERROR_ALREADY_EXISTS' : 'ok';
            }
            const r = call(real, 'HcnCreateNamespace', want, () =>
              real.host.api.HcnCreateNamespace(idArg.arg, doc),
            );
            if (isFailure(r)) return;
            const res = r.result;
            const ID = res.ID as string;
            ensure(!m.isLive(ID), `a create returned the ID ${ID} of a live object`);
            if (idArg.given) same(ID, idArg.given, 'the ID given to the create');
            const resources = ((res.Resources as JsonObject[] | undefined) ?? []).map((x) => ({
              Type: x.Type as string,
              ID: (x.Data as JsonObject).ID as string,
            }));
            const epIds = resources.filter((x) => x.Type === 'Endpoint').map((x) => x.ID);
            for (const epId of epIds) {
              const e = m.endpoints.get(epId);
              ensure(e !== undefined, `namespace lists unknown endpoint ${epId}`);
              ensure(e!.namespace === undefined, `endpoint ${epId} was already in a namespace`);
              ensure(!e!.remote, `remote endpoint ${epId} attached`);
            }
            m.namespaces.set(ID, {
              endpoints: [],
              containers: resources.filter((x) => x.Type === 'Container').map((x) => x.ID.toLowerCase()),
              defaultCompartment: res.Type === 'HostDefault',
            });
            if (res.Type === 'HostDefault')
              same(res.NamespaceId, 1, 'compartment of a HostDefault namespace');
            for (const epId of epIds) m.attach(ID, epId);
          },
        ),
    );
}

type NsAction = 'addEndpoint' | 'removeEndpoint' | 'addContainer' | 'removeContainer' | 'invalid';

function modifyNamespaceCmd(): fc.Arbitrary<Step> {
  return fc
    .record({
      ns: refArb,
      action: fc.constantFrom<NsAction>(
        'addEndpoint',
        'addEndpoint',
        'addEndpoint',
        'removeEndpoint',
        'removeEndpoint',
        'addContainer',
        'removeContainer',
        'invalid',
      ),
      ep: liveRefArb,
      container: fc.constantFrom(...HNS_ARB.containerIds),
      bad: invalidDoc(),
    })
    .map(
      ({ ns, action, ep, container, bad }) =>
        new Step(
          `HcnModifyNamespace(${show(ns)}, ${action}, ${action === 'invalid' ? show(bad) : action.endsWith('Container') ? container : show(ep)})`,
          (m, real) => {
            const x = resolve(m, 'Namespace', ns);
            const model = x.live ? m.namespaces.get(x.live) : undefined;
            let doc: Json = bad;
            let want: Expect = precheck('Namespace', x, action === 'invalid' ? doc : {});
            let epId: string | undefined;
            if (action === 'addEndpoint' || action === 'removeEndpoint') {
              epId = resolveEndpoints(m, [ep]).ids[0]!;
              doc = {
                ResourceType: 'Endpoint',
                RequestType: action === 'addEndpoint' ? 'Add' : 'Remove',
                Settings: { EndpointId: epId.toLowerCase() },
              };
              if (model) {
                const e = m.endpoints.get(epId);
                if (action === 'addEndpoint') {
                  want = !e
                    ? 'HCN_E_ENDPOINT_NOT_FOUND'
                    : e.remote
                      ? 'HCN_E_INVALID_REMOTE_ENDPOINT_OPERATION'
                      : e.namespace
                        ? 'HCN_E_ENDPOINT_NAMESPACE_ALREADY_EXISTS'
                        : 'ok';
                } else {
                  want = model.endpoints.includes(epId) ? 'ok' : 'ERROR_NOT_FOUND';
                }
              }
            } else if (action === 'addContainer' || action === 'removeContainer') {
              doc = {
                ResourceType: 'Container',
                RequestType: action === 'addContainer' ? 'Add' : 'Remove',
                Settings: { ContainerId: container },
              };
              if (model) {
                const has = model.containers.includes(container.toLowerCase());
                want =
                  action === 'addContainer'
                    ? has
                      ? 'ERROR_ALREADY_EXISTS'
                      : 'ok'
                    : has
                      ? 'ok'
                      : 'ERROR_NOT_FOUND';
              }
            }
            const r = call(real, 'HcnModifyNamespace', want, () =>
              real.host.api.HcnModifyNamespace(x.arg, doc),
            );
            if (isFailure(r) || !model || !x.live) return;
            if (action === 'addEndpoint') m.attach(x.live, epId!);
            if (action === 'removeEndpoint') m.detach(epId!);
            if (action === 'addContainer') model.containers.push(container.toLowerCase());
            if (action === 'removeContainer') {
              const keep = model.containers.filter((c) => c !== container.toLowerCase());
              model.containers.splice(0, model.containers.length, ...keep);
            }
          },
        ),
    );
}

// ── load balancers and SDN routes

const PLACEHOLDERS = ['@0', '@1', '@2', '@3'];

/** References for the placeholders: consecutive picks, so they name distinct endpoints when enough exist. */
const backendRefs: fc.Arbitrary<Ref[]> = liveRefArb.map((base) =>
  PLACEHOLDERS.map((_, k) => ({ mode: base.mode, pick: base.pick + k })),
);

/** Whether a backend list may keep an endpoint twice (E_INVALIDARG for load balancers). */
const dupesArb = fc.integer({ min: 1, max: 100 }).map((n) => n <= 15);

/** Put endpoint IDs in place of the placeholders; unless `dupes`, an ID listed twice is kept once. */
function substitute(doc: JsonObject, key: string, ids: readonly string[], dupes = false): JsonObject {
  const list = ((doc[key] as string[] | undefined) ?? []).map((p) => ids[PLACEHOLDERS.indexOf(p)] ?? p);
  return { ...doc, [key]: dupes ? list : [...new Set(list)] };
}

function lbExpectation(m: Model, ids: readonly string[], doc: JsonObject, self?: string): Expect {
  if (!ids.length) return 'E_INVALIDARG';
  if (hasDuplicates(ids)) return 'E_INVALIDARG';
  if (ids.some((i) => !m.endpoints.has(i))) return 'HCN_E_ENDPOINT_NOT_FOUND';
  const claims = lbClaimsOf(doc).map(canonicalClaim);
  if (intersects(claims, new Set([...m.lbClaims(self)].map(canonicalClaim))))
    return 'HCN_E_PORT_ALREADY_EXISTS';
  return undefined;
}

/** LB claims compare VIPs as addresses (the service keys them by integer value). */
function canonicalClaim(c: string): string {
  const [proto, port, vip] = c.split('/');
  const ip = vip && vip !== '*' ? parseIp(vip) : undefined;
  return `${proto}/${port}/${ip ? ip.value.toString() : vip}`;
}

function createLoadBalancerCmd(ctx: ArbContext): fc.Arbitrary<Step> {
  return fc
    .record({
      id: idModeArb,
      valid: fc.integer({ min: 1, max: 100 }).map((n) => n <= 88),
      good: loadBalancerDoc(PLACEHOLDERS, ctx),
      bad: invalidDoc(),
      eps: backendRefs,
      dupes: dupesArb,
    })
    .map(
      ({ id, valid, good, bad, eps, dupes }) =>
        new Step(
          `HcnCreateLoadBalancer(${id.mode}, ${show(valid ? good : bad)}, eps ${show(eps)})`,
          (m, real) => {
            const idArg = newIdArg(m, id);
            const { ids } = resolveEndpoints(m, eps);
            const doc: Json = valid ? substitute(good, 'HostComputeEndpoints', ids, dupes) : bad;
            let want: Expect;
            if (valid && isJsonObject(doc)) {
              want =
                lbExpectation(m, doc.HostComputeEndpoints as string[], doc) ??
                (idArg.taken ? 'ERROR_ALREADY_EXISTS' : 'ok');
            }
            const r = call(real, 'HcnCreateLoadBalancer', want, () =>
              real.host.api.HcnCreateLoadBalancer(idArg.arg, doc),
            );
            if (isFailure(r)) return;
            const res = r.result;
            const ID = res.ID as string;
            ensure(!m.isLive(ID), `a create returned the ID ${ID} of a live object`);
            const endpoints = (res.HostComputeEndpoints as string[] | undefined) ?? [];
            for (const ep of endpoints) ensure(m.endpoints.has(ep), `LB backend ${ep} does not exist`);
            const claims = lbClaimsOf(res).map(canonicalClaim);
            ensure(
              !intersects(claims, new Set([...m.lbClaims()].map(canonicalClaim))),
              `frontends ${show(claims)} were taken`,
            );
            m.lbs.set(ID, { endpoints, claims });
          },
        ),
    );
}

function modifyLoadBalancerCmd(ctx: ArbContext, canModify: boolean): fc.Arbitrary<Step> {
  return fc
    .record({
      ref: refArb,
      valid: fc.integer({ min: 1, max: 100 }).map((n) => n <= 85),
      good: loadBalancerDoc(PLACEHOLDERS, ctx),
      bad: invalidDoc(),
      eps: backendRefs,
      dupes: dupesArb,
    })
    .map(
      ({ ref, valid, good, bad, eps, dupes }) =>
        new Step(
          `HcnModifyLoadBalancer(${show(ref)}, ${show(valid ? good : bad)}, eps ${show(eps)})`,
          (m, real) => {
            const x = resolve(m, 'LoadBalancer', ref);
            const { ids } = resolveEndpoints(m, eps);
            const doc: Json = valid ? substitute(good, 'HostComputeEndpoints', ids, dupes) : bad;
            let want: Expect = precheck('LoadBalancer', x, doc);
            if (!want && !canModify) want = 'E_NOTIMPL';
            else if (!want && valid && isJsonObject(doc)) {
              want = lbExpectation(m, doc.HostComputeEndpoints as string[], doc, x.live) ?? 'ok';
            }
            const r = call(real, 'HcnModifyLoadBalancer', want, () =>
              real.host.api.HcnModifyLoadBalancer(x.arg, doc),
            );
            if (isFailure(r) || !x.live) return;
            const q = real.host.api.HcnQueryLoadBalancerProperties(x.live);
            if (isFailure(q)) return expect.fail('the modified load balancer is gone');
            m.lbs.set(x.live, {
              endpoints: (q.result.HostComputeEndpoints as string[] | undefined) ?? [],
              claims: lbClaimsOf(q.result).map(canonicalClaim),
            });
            m.policyLists.delete(x.live); // a v1 list so updated is an HCN load balancer now
            // Update replaces the backend list (reference §6.13)
            if (valid && isJsonObject(doc))
              same(m.lbs.get(x.live)!.endpoints, doc.HostComputeEndpoints, 'backends after update');
          },
        ),
    );
}

function createSdnRouteCmd(): fc.Arbitrary<Step> {
  return fc
    .record({
      id: idModeArb,
      valid: fc.integer({ min: 1, max: 100 }).map((n) => n <= 88),
      good: sdnRouteDoc(PLACEHOLDERS),
      bad: invalidDoc(),
      eps: backendRefs,
    })
    .map(
      ({ id, valid, good, bad, eps }) =>
        new Step(
          `HcnCreateSdnRoute(${id.mode}, ${show(valid ? good : bad)}, eps ${show(eps)})`,
          (m, real) => {
            const idArg = newIdArg(m, id);
            const { ids } = resolveEndpoints(m, eps);
            const doc: Json = valid ? substitute(good, 'HostComputeEndpoints', ids) : bad;
            let want: Expect;
            if (valid && isJsonObject(doc)) {
              const listed = doc.HostComputeEndpoints as string[];
              want = !listed.length
                ? 'E_INVALIDARG'
                : listed.some((i) => !m.endpoints.has(i))
                  ? 'HCN_E_ENDPOINT_NOT_FOUND'
                  : idArg.taken
                    ? 'ERROR_ALREADY_EXISTS'
                    : 'ok';
            }
            const r = call(real, 'HcnCreateSdnRoute', want, () =>
              real.host.api.HcnCreateSdnRoute(idArg.arg, doc),
            );
            if (isFailure(r)) return;
            const ID = r.result.ID as string;
            ensure(!m.isLive(ID), `a create returned the ID ${ID} of a live object`);
            const endpoints = (r.result.HostComputeEndpoints as string[] | undefined) ?? [];
            for (const ep of endpoints) ensure(m.endpoints.has(ep), `route endpoint ${ep} does not exist`);
            m.routes.set(ID, { endpoints });
          },
        ),
    );
}

function modifySdnRouteCmd(): fc.Arbitrary<Step> {
  return fc.record({ ref: refArb, doc: fc.oneof(sdnRouteDoc([]), invalidDoc()) }).map(
    ({ ref, doc }) =>
      new Step(`HcnModifySdnRoute(${show(ref)}, ${show(doc)})`, (m, real) => {
        const x = resolve(m, 'SdnRoute', ref);
        // SDN routes have no modify: hcsshim deletes and re-creates (reference §1.5)
        const want: Expect = precheck('SdnRoute', x, doc) ?? 'HCN_E_REQUEST_UNSUPPORTED';
        call(real, 'HcnModifySdnRoute', want, () => real.host.api.HcnModifySdnRoute(x.arg, doc));
      }),
  );
}

// ── HNS v1

/** A v1 HNSNetwork body (reference §3.1): NAT or L2Bridge, with a subnet and its gateway. */
const v1NetworkDoc: fc.Arbitrary<JsonObject> = fc
  .record({
    Name: fc.constantFrom(...HNS_ARB.networkNames),
    Type: fc.constantFrom('NAT', 'L2Bridge', 'Overlay'),
    subnet: fc.constantFrom(...HNS_ARB.ipv4Subnets),
  })
  .map(({ Name, Type, subnet }) => ({
    Name,
    Type,
    Subnets: [{ AddressPrefix: subnet.prefix, GatewayAddress: subnet.gateway }],
  }));

type V1Call =
  | 'version'
  | 'listNetworks'
  | 'listEndpoints'
  | 'listNamespaces'
  | 'getNetwork'
  | 'getEndpoint'
  | 'deleteEndpoint'
  | 'addResource'
  | 'removeResource'
  | 'createPolicyList'
  | 'deletePolicyList'
  | 'attachHost'
  | 'detachHost'
  | 'attachContainer'
  | 'detachContainer'
  | 'createNetwork'
  | 'createEndpoint';

function hnsCallCmd(): fc.Arbitrary<Step> {
  return fc
    .record({
      what: fc.constantFrom<V1Call>(
        'version',
        'listNetworks',
        'listEndpoints',
        'listNamespaces',
        'getNetwork',
        'getEndpoint',
        'deleteEndpoint',
        'addResource',
        'removeResource',
        'createPolicyList',
        'createPolicyList',
        'deletePolicyList',
        'attachHost',
        'attachHost',
        'detachHost',
        'attachContainer',
        'detachContainer',
        'createNetwork',
        'createEndpoint',
      ),
      container: fc.constantFrom(...HNS_ARB.containerIds),
      v1net: v1NetworkDoc,
      ref: refArb,
      ep: liveRefArb,
      port: fc.constantFrom(...HNS_ARB.ports),
      method: fc.constantFrom('GET', 'get'),
    })
    .map(
      ({ what, ref, ep, port, method, container, v1net }) =>
        new Step(
          `HNSCall ${what}(${show(ref)}, ${show(ep)}, ${port}, ${container}, ${show(v1net)})`,
          (m, real) => {
            const api = real.host.api;
            const out = (r: HcnResult<JsonObject>): Json | undefined =>
              isFailure(r) ? undefined : r.result.Output;
            const ids = (r: HcnResult<JsonObject>): string[] =>
              ((out(r) as JsonObject[] | undefined) ?? []).map((o) => o.ID as string);
            switch (what) {
              case 'version': {
                const r = callV1(real, 'HNSCall version', 'ok', () =>
                  api.HNSCall(method, '/globals/version', ''),
                );
                same(out(r), { Major: m.version.major, Minor: m.version.minor }, '/globals/version');
                return;
              }
              case 'listNetworks':
                return same(
                  ids(callV1(real, 'HNSCall list', 'ok', () => api.HNSCall(method, '/networks/', ''))),
                  [...m.networks.keys()],
                  'GET /networks/',
                );
              case 'listEndpoints':
                return same(
                  ids(callV1(real, 'HNSCall list', 'ok', () => api.HNSCall(method, '/endpoints/', ''))),
                  [...m.endpoints.keys()],
                  'GET /endpoints/',
                );
              case 'listNamespaces':
                return same(
                  ids(callV1(real, 'HNSCall list', 'ok', () => api.HNSCall(method, '/namespaces/', ''))),
                  [...m.namespaces.keys()],
                  'GET /namespaces/',
                );
              case 'getNetwork':
              case 'getEndpoint': {
                const kind: Kind = what === 'getNetwork' ? 'Network' : 'Endpoint';
                const x = resolve(m, kind, ref);
                const path = `/${kind === 'Network' ? 'networks' : 'endpoints'}/${x.arg ?? ''}`;
                const want: Expect = x.malformed
                  ? 'HCN_E_GUID_CONVERSION_FAILURE'
                  : x.live
                    ? 'ok'
                    : x.arg
                      ? NOT_FOUND[kind]
                      : undefined;
                const r = callV1(real, `HNSCall GET /${kind}/<id>`, want, () => api.HNSCall('GET', path, ''));
                if (x.live && want === 'ok') same((out(r) as JsonObject).ID, x.live, `ID from ${path}`);
                return;
              }
              case 'deleteEndpoint': {
                const x = resolve(m, 'Endpoint', ref);
                if (!x.arg || x.malformed) return;
                const want: Expect = !x.live ? 'HCN_E_ENDPOINT_NOT_FOUND' : 'ok';
                const r = callV1(real, 'HNSCall DELETE endpoint', want, () =>
                  api.HNSCall('DELETE', `/endpoints/${x.arg}`, ''),
                );
                if (!isFailure(r) && r.result.Success === true && x.live) m.removeEndpoint(x.live);
                return;
              }
              case 'addResource':
              case 'removeResource': {
                const x = resolve(m, 'Namespace', ref);
                if (!x.arg || x.malformed) return;
                const epId = resolveEndpoints(m, [ep]).ids[0]!;
                const e = m.endpoints.get(epId);
                const ns = x.live ? m.namespaces.get(x.live) : undefined;
                let want: Expect = 'ERROR_NOT_FOUND';
                if (ns && what === 'addResource') {
                  want = !e
                    ? 'HCN_E_ENDPOINT_NOT_FOUND'
                    : e.remote
                      ? 'HCN_E_INVALID_REMOTE_ENDPOINT_OPERATION'
                      : e.namespace
                        ? 'HCN_E_ENDPOINT_NAMESPACE_ALREADY_EXISTS'
                        : 'ok';
                } else if (ns) want = ns.endpoints.includes(epId) ? 'ok' : 'ERROR_NOT_FOUND';
                const body = { Type: 'Endpoint', Data: { Id: epId.toLowerCase() } };
                const r = callV1(real, `HNSCall ${what}`, want, () =>
                  api.HNSCall('POST', `/namespaces/${x.arg}/${what.toLowerCase()}`, body),
                );
                if (isFailure(r) || r.result.Success !== true || !x.live) return;
                if (what === 'addResource') m.attach(x.live, epId);
                else m.detach(epId);
                return;
              }
              case 'createPolicyList': {
                const epId = resolveEndpoints(m, [ep]).ids[0]!;
                const vip = HNS_ARB.vips[port % HNS_ARB.vips.length]!;
                const externalPort = port;
                const body = {
                  References: [`/endpoints/${epId}`],
                  Policies: [
                    { Type: 'ELB', Protocol: 6, InternalPort: 8080, ExternalPort: externalPort, VIPs: [vip] },
                  ],
                };
                const claims = externalPort ? [canonicalClaim(`6/${externalPort}/${vip}`)] : [];
                const want: Expect = !m.endpoints.has(epId)
                  ? 'HCN_E_ENDPOINT_NOT_FOUND'
                  : intersects(claims, new Set([...m.lbClaims()].map(canonicalClaim)))
                    ? 'HCN_E_PORT_ALREADY_EXISTS'
                    : 'ok';
                const r = callV1(real, 'HNSCall POST /policylists/', want, () =>
                  api.HNSCall('POST', '/policylists/', body),
                );
                const o = out(r);
                if (isJsonObject(o) && r.hr === 0 && (r as { result: JsonObject }).result.Success === true) {
                  m.policyLists.set(o.ID as string, { endpoints: [epId], claims });
                  // an ELB list is a load balancer through HCN too
                  m.lbs.set(o.ID as string, { endpoints: [epId], claims });
                }
                return;
              }
              case 'attachHost':
              case 'detachHost':
              case 'attachContainer':
              case 'detachContainer': {
                const x = resolve(m, 'Endpoint', ep);
                const e = x.live ? m.endpoints.get(x.live) : undefined;
                const host = what.endsWith('Host');
                const attach = what.startsWith('attach');
                const body = host
                  ? { SystemType: 'Host', CompartmentId: 1 }
                  : { SystemType: 'Container', ContainerId: container };
                const key = container.toLowerCase();
                const defaultNs = [...m.namespaces].find(([, ns]) => ns.defaultCompartment)?.[0];
                let want: Expect = 'HCN_E_ENDPOINT_NOT_FOUND';
                if (e && attach && e.remote) want = 'HCN_E_INVALID_REMOTE_ENDPOINT_OPERATION';
                else if (e && attach && host) {
                  want = !e.namespace
                    ? 'ok'
                    : e.namespace === defaultNs
                      ? 'HCN_E_ENDPOINT_ALREADY_ATTACHED'
                      : 'HCN_E_ENDPOINT_NAMESPACE_ALREADY_EXISTS';
                } else if (e && host) want = e.namespace ? 'ok' : 'HCN_E_ENDPOINT_NOT_ATTACHED';
                else if (e) {
                  const has = e.shared.some((c) => c.toLowerCase() === key);
                  want = attach
                    ? has
                      ? 'HCN_E_ENDPOINT_ALREADY_ATTACHED'
                      : 'ok'
                    : has
                      ? 'ok'
                      : 'HCN_E_ENDPOINT_NOT_ATTACHED';
                }
                const path = `/endpoints/${x.arg ?? ''}/${attach ? 'attach' : 'detach'}`;
                if (!x.arg || x.malformed) return;
                const r = callV1(real, `HNSCall ${what}`, want, () => api.HNSCall('POST', path, body));
                if (isFailure(r) || r.result.Success !== true || !e || !x.live) return;
                if (host && attach) {
                  let nsId = defaultNs;
                  if (!nsId) {
                    // compartment 1 had no namespace: HNS made a HostDefault one for it
                    nsId = [...real.host.hns.store.namespaces.keys()].pop()!;
                    ensure(!m.namespaces.has(nsId), 'no new namespace for compartment 1');
                    same(
                      real.host.hns.store.namespaces.get(nsId)!.NamespaceId,
                      1,
                      'compartment of the new namespace',
                    );
                    m.namespaces.set(nsId, { endpoints: [], containers: [], defaultCompartment: true });
                  }
                  m.attach(nsId, x.live);
                } else if (host) m.detach(x.live);
                else if (attach) e.shared.push(container);
                else e.shared = e.shared.filter((c) => c.toLowerCase() !== key);
                return;
              }
              case 'createNetwork': {
                const dup = m.hasName(String(v1net.Name));
                const r = callV1(
                  real,
                  'HNSCall POST /networks/',
                  dup ? 'HCN_E_NETWORK_ALREADY_EXISTS' : 'ok',
                  () => api.HNSCall('POST', '/networks/', JSON.stringify(v1net)),
                );
                const o = out(r);
                if (!isJsonObject(o)) return;
                m.networks.set(o.ID as string, {
                  name: String(o.Name ?? ''),
                  nonPersistent: false,
                  type: String(o.Type),
                });
                return;
              }
              case 'createEndpoint': {
                const x = resolve(m, 'Network', ref);
                if (!x.arg || x.malformed) return;
                const body = { VirtualNetwork: x.arg, Name: 'v1-eth0' };
                const r = callV1(
                  real,
                  'HNSCall POST /endpoints/',
                  x.live ? undefined : 'HCN_E_NETWORK_NOT_FOUND',
                  () => api.HNSCall('POST', '/endpoints/', body),
                );
                const o = out(r);
                if (!isJsonObject(o)) return;
                const q = api.HcnQueryEndpointProperties(o.ID);
                if (isFailure(q))
                  return expect.fail(`the v1-created endpoint ${String(o.ID)} cannot be queried`);
                same(q.result.HostComputeNetwork, x.live, 'network of the v1-created endpoint');
                recordEndpoint(m, q.result, [], false, true);
                return;
              }
              case 'deletePolicyList': {
                // every load balancer is a policy list through v1, those created through HCN too
                const pls = [...m.lbs.keys()];
                const id = pls.length ? pls[ref.pick % pls.length]! : SPARE_IDS[0]!;
                const r = callV1(
                  real,
                  'HNSCall DELETE /policylists',
                  pls.length ? 'ok' : 'ERROR_NOT_FOUND',
                  () => api.HNSCall('DELETE', `/policylists/${id}`, ''),
                );
                if (!isFailure(r) && r.result.Success === true) m.bury('LoadBalancer', id);
                return;
              }
            }
          },
        ),
    );
}

// ── host lifecycle

function restartCmd(): fc.Arbitrary<Step> {
  return fc.constant(
    new Step('host.restartHns()', (m, real) => {
      real.host.restartHns();
      // SERVICE_RESTART_DEFAULT: networks and namespaces stay; endpoints, LBs, routes, policy lists go
      for (const id of [...m.lbs.keys()]) m.bury('LoadBalancer', id);
      for (const id of [...m.routes.keys()]) m.bury('SdnRoute', id);
      m.policyLists.clear();
      for (const id of [...m.endpoints.keys()]) m.removeEndpoint(id);
    }),
  );
}

function rebootCmd(): fc.Arbitrary<Step> {
  return fc.constant(
    new Step('host.reboot()', (m, real) => {
      real.host.reboot();
      // REBOOT_DEFAULT: only persistent networks stay; a fresh HostDefault namespace is created
      for (const id of [...m.lbs.keys()]) m.bury('LoadBalancer', id);
      for (const id of [...m.routes.keys()]) m.bury('SdnRoute', id);
      m.policyLists.clear();
      for (const id of [...m.endpoints.keys()]) m.removeEndpoint(id);
      for (const id of [...m.namespaces.keys()]) m.removeNamespace(id);
      for (const [id, n] of [...m.networks]) if (n.nonPersistent) m.bury('Network', id);
      const ns = real.host.api.HcnEnumerateNamespaces();
      expect(isFailure(ns) ? [] : ns.result).toHaveLength(1);
      const id = (ns as { result: string[] }).result[0]!;
      expect(real.host.hns.store.namespaces.get(id)!.Type).toBe('HostDefault');
      m.namespaces.set(id, { endpoints: [], containers: [], defaultCompartment: true });
    }),
  );
}

function snapshotCmd(): fc.Arbitrary<Step> {
  return fc.constant(
    new Step('host.restore(host.snapshot())', (_m, real) => {
      const snap = real.host.snapshot();
      real.host.restore(JSON.parse(JSON.stringify(snap)));
      expect(real.host.snapshot()).toEqual(snap);
    }),
  );
}

// ───────────────────────────── the property ─────────────────────────────

const PROFILE_NAMES = ['ws2019', 'ws2022', 'ws2025'] as const;

function commandsFor(profile: (typeof PROFILE_NAMES)[number]) {
  const version = PROFILES[profile]!.version;
  const ctx: ArbContext = { version };
  const canModifyLb = version.major > 15 || (version.major === 15 && version.minor >= 4);
  const w = (weight: number, arbitrary: fc.Arbitrary<Step>) => ({ weight, arbitrary });
  const cmd = fc.oneof(
    w(8, createNetworkCmd(ctx)),
    w(2, queryCmd('Network')),
    w(2, enumerateCmd('Network')),
    w(3, modifyNetworkCmd(ctx)),
    w(2, deleteCmd('Network')),
    w(16, createEndpointCmd(ctx)),
    w(2, queryCmd('Endpoint')),
    w(2, enumerateCmd('Endpoint')),
    w(5, modifyEndpointCmd(ctx)),
    w(3, deleteCmd('Endpoint')),
    w(4, createNamespaceCmd()),
    w(1, queryCmd('Namespace')),
    w(1, enumerateCmd('Namespace')),
    w(6, modifyNamespaceCmd()),
    w(2, deleteCmd('Namespace')),
    w(5, createLoadBalancerCmd(ctx)),
    w(1, queryCmd('LoadBalancer')),
    w(1, enumerateCmd('LoadBalancer')),
    w(2, modifyLoadBalancerCmd(ctx, canModifyLb)),
    w(2, deleteCmd('LoadBalancer')),
    w(3, createSdnRouteCmd()),
    w(1, queryCmd('SdnRoute')),
    w(1, enumerateCmd('SdnRoute')),
    w(1, modifySdnRouteCmd()),
    w(1, deleteCmd('SdnRoute')),
    w(6, hnsCallCmd()),
    w(1, restartCmd()),
    w(1, rebootCmd()),
    w(1, snapshotCmd()),
  );
  return fc.commands([cmd], { maxCommands: Number(process.env.HNSIM_MODEL_COMMANDS ?? 40), size: 'max' });
}

/** A fresh host, its model, and the networks a run starts with (so endpoints have somewhere to go). */
function setup(
  profile: (typeof PROFILE_NAMES)[number],
  seed: number,
  networks: readonly JsonObject[],
  endpoints: readonly JsonObject[],
): { model: Model; real: Real } {
  const host = createHost({ seed, profile });
  const model = new Model(host.profile.version);
  const ns = host.api.HcnEnumerateNamespaces();
  for (const id of isFailure(ns) ? [] : ns.result)
    model.namespaces.set(id, { endpoints: [], containers: [], defaultCompartment: true });
  for (const doc of networks) {
    const name = String(doc.Name ?? '');
    const r = host.api.HcnCreateNetwork(null, doc);
    expectOutcome('initial HcnCreateNetwork', r, model.hasName(name) ? 'HCN_E_NETWORK_ALREADY_EXISTS' : 'ok');
    if (isFailure(r)) continue;
    model.networks.set(r.result.ID as string, {
      name,
      nonPersistent: ((r.result.Flags as number | undefined) ?? 0) & 8 ? true : false,
      type: typeof r.result.Type === 'string' ? r.result.Type : 'NAT',
    });
  }
  const nets = [...model.networks.keys()];
  endpoints.forEach((doc, i) => {
    if (!nets.length) return;
    const r = host.api.HcnCreateEndpoint(nets[i % nets.length], null, doc);
    if (isFailure(r)) checkFailure('initial HcnCreateEndpoint', r);
    else recordEndpoint(model, r.result, [], false);
  });
  return { model, real: { host } };
}

describe('HNS model-based property', () => {
  it('random operation sequences keep the invariants, agree with the model and fail atomically', () => {
    // one command arbitrary per profile, built once (building them costs more than drawing from them)
    const scenario = fc.oneof(
      ...PROFILE_NAMES.map((profile) =>
        fc.tuple(
          fc.constant(profile),
          fc.integer({ min: 1, max: 1 << 30 }),
          fc.array(networkDoc({ version: PROFILES[profile]!.version }), { minLength: 1, maxLength: 2 }),
          fc.array(endpointDoc(undefined, { version: PROFILES[profile]!.version }), { maxLength: 3 }),
          commandsFor(profile),
        ),
      ),
    );
    fc.assert(
      fc.property(scenario, ([profile, seed, networks, endpoints, cmds]) => {
        const { model, real } = setup(profile, seed, networks, endpoints);
        agree(model, real, 'setup');
        fc.modelRun(() => ({ model, real }), cmds);
      }),
      { numRuns: Number(process.env.HNSIM_MODEL_RUNS ?? runs(35, 1_000)) },
    );
    if (process.env.HNSIM_MODEL_STATS) {
      console.log(
        [...STATS]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, n]) => `${String(n).padStart(6)}  ${k}`)
          .join('\n'),
      );
    }
  });
});
