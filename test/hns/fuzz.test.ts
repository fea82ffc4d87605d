/**
 * Fuzzing the flat API (DESIGN contract 3, faithful errors; reference hns-hcs.md §0.1, §0.3): every
 * function of FLAT_API_METHODS, every argument position — HNSCall method, path and body included —
 * gets arbitrary JSON values, strings that are not JSON, JS values JSON cannot carry, IDs of live
 * objects and slightly wrong documents. Whatever comes in, the call returns `{ok,hr:0,result}` with
 * a JSON result, or a failure whose HRESULT is registered, whose ErrorRecord matches it and which is
 * not the E_FAIL "internal error" that marks an exception escaping the service; a failure leaves
 * the state untouched. A fixed seed keeps the suite reproducible.
 *
 * Soak: HNSIM_FUZZ_RUNS=400000 [HNSIM_FUZZ_PROFILE=ws2019] npx vitest run test/hns/fuzz.test.ts
 * (HNSIM_FUZZ_STATS=1 prints the outcomes per function).
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ROUTES } from '../../src/hns/v1/router.js';
import { FLAT_API_METHODS, isFailure, type FlatApiMethod, type HcnResult } from '../../src/api/flat.js';
import { HRESULTS, isRegisteredHResult, type HResultName } from '../../src/core/errors.js';
import { cloneJson, type Json, type JsonObject } from '../../src/core/json.js';
import { createHost, type Host } from '../../src/host/host.js';
import type { HnsSnapshot } from '../../src/hns/lifecycle.js';
import {
  BAD_FIELDS,
  endpointDoc,
  invalidDoc,
  loadBalancerDoc,
  namespaceDoc,
  networkDoc,
  policy,
  sdnRouteDoc,
} from '../../src/testing/index.js';
import { runs } from '../runs.js';

/** 2,000 runs in `npm test`, 100,000 in `npm run test:soak` (test/runs.ts); HNSIM_FUZZ_RUNS sets any count. */
const TOTAL_RUNS = Number(process.env.HNSIM_FUZZ_RUNS ?? runs(2_000, 100_000));
const SEED = 20240601;

/** A host holding one object of each kind, so fuzzed IDs can hit live objects. */
interface Fixture {
  readonly host: Host;
  readonly snapshot: HnsSnapshot;
  readonly ids: Record<
    'network' | 'endpoint' | 'endpoint2' | 'namespace' | 'lb' | 'route' | 'policyList',
    string
  >;
}

function okResult<T>(r: HcnResult<T>, what: string): T {
  if (isFailure(r)) throw new Error(`fixture: ${what} failed: ${r.name} ${r.message}`);
  return r.result;
}

function fixture(): Fixture {
  const host = createHost({ seed: 11, profile: process.env.HNSIM_FUZZ_PROFILE ?? 'ws2025' });
  const api = host.api;
  const net = okResult(
    api.HcnCreateNetwork(null, {
      Name: 'fuzz',
      Type: 'NAT',
      Ipams: [
        {
          Type: 'Static',
          Subnets: [
            {
              IpAddressPrefix: '10.0.0.0/24',
              Routes: [{ NextHop: '10.0.0.1', DestinationPrefix: '0.0.0.0/0' }],
            },
          ],
        },
      ],
    }),
    'network',
  );
  const network = net.ID as string;
  const ep = okResult(
    api.HcnCreateEndpoint(network, null, {
      Name: 'eth0',
      Policies: [{ Type: 'PortMapping', Settings: { Protocol: 6, InternalPort: 80, ExternalPort: 8080 } }],
    }),
    'endpoint',
  );
  const ep2 = okResult(api.HcnCreateEndpoint(network, null, { Name: 'eth1' }), 'endpoint 2');
  const ns = okResult(api.HcnCreateNamespace(null, { Type: 'Host' }), 'namespace');
  okResult(
    api.HcnModifyNamespace(ns.ID, {
      ResourceType: 'Endpoint',
      RequestType: 'Add',
      Settings: { EndpointId: ep.ID },
    }),
    'attach',
  );
  const lb = okResult(
    api.HcnCreateLoadBalancer(null, {
      HostComputeEndpoints: [ep.ID],
      FrontendVIPs: ['10.96.0.10'],
      PortMappings: [{ Protocol: 6, InternalPort: 80, ExternalPort: 80 }],
    }),
    'load balancer',
  );
  const route = okResult(
    api.HcnCreateSdnRoute(null, {
      HostComputeEndpoints: [ep2.ID],
      Setting: [{ DestinationPrefix: '10.244.3.0/24', NextHop: '10.127.130.36', NeedEncap: true }],
    }),
    'route',
  );
  const pl = okResult(
    api.HNSCall('POST', '/policylists/', {
      References: [`/endpoints/${ep2.ID as string}`],
      Policies: [{ Type: 'ROUTE', DestinationPrefix: '10.244.4.0/24', NextHop: '10.127.130.37' }],
    }),
    'policy list',
  );
  const ids = {
    network,
    endpoint: ep.ID as string,
    endpoint2: ep2.ID as string,
    namespace: ns.ID as string,
    lb: lb.ID as string,
    route: route.ID as string,
    policyList: ((pl.Output as JsonObject).ID as string) ?? '',
  };
  return { host, snapshot: host.snapshot(), ids };
}

// ───────────────────────────── argument generators ─────────────────────────────

/** Strings that do not parse as JSON. */
const nonJsonString = fc.string({ maxLength: 40 }).filter((s) => {
  try {
    JSON.parse(s);
    return false;
  } catch {
    return true;
  }
});

/** Values only a TypeScript caller can pass (JSON-RPC cannot): they must be refused, not crash. */
const EXOTIC_VALUES: readonly unknown[] = [
  undefined,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  -0,
  10n,
  Symbol('x'),
  () => 1,
  new Date(0),
  new Map([['a', 1]]),
  Object.create(null) as object,
  { toJSON: () => ({ Name: 'x' }) },
  [undefined],
  { a: undefined },
  new Uint8Array(2),
  { __proto__: { Name: 'inherited' } },
];
const exoticValue: fc.Arbitrary<unknown> = fc.constantFrom(...EXOTIC_VALUES);

type FixtureKey = keyof Fixture['ids'];

/** ID strings: live IDs (of `prefer` mostly, when given) in several spellings, fresh and broken GUIDs. */
function idStrings(fx: Fixture, prefer?: readonly FixtureKey[]): fc.Arbitrary<string> {
  const live = Object.values(fx.ids).filter((x) => x !== '');
  const own = prefer?.map((k) => fx.ids[k]).filter((x) => x !== '') ?? [];
  const spellings = (ids: readonly string[]) =>
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...ids) },
      { weight: 1, arbitrary: fc.constantFrom(...ids).map((x) => x.toLowerCase()) },
      { weight: 1, arbitrary: fc.constantFrom(...ids).map((x) => `{${x}}`) },
    );
  return fc.oneof(
    { weight: own.length ? 6 : 0, arbitrary: own.length ? spellings(own) : fc.constant('') },
    { weight: 3, arbitrary: spellings(live) },
    { weight: 1, arbitrary: fc.uuid() },
    {
      weight: 1,
      arbitrary: fc.constantFrom('', '00000000-0000-0000-0000-000000000000', 'not-a-guid', '{}', ' '),
    },
  );
}

/** HostComputeQuery documents (reference §0.2): schema, flags and a Filter string. */
function queries(fx: Fixture): fc.Arbitrary<Json> {
  const filter = fc.oneof(
    fc.record({ ID: idStrings(fx) }),
    fc.record({ Name: fc.constantFrom('fuzz', '', 'FUZZ', 'eth0') }),
    fc.record({ VirtualNetwork: idStrings(fx, ['network']) }),
    fc.record({ HostComputeNetwork: idStrings(fx, ['network']), Name: fc.constantFrom('eth0', 'eth1') }),
    fc.record({ Type: fc.constantFrom('NAT', 'Host', 'L2Bridge') }),
  );
  return fc.record<Record<string, Json>>({
    SchemaVersion: fc.oneof(
      { weight: 4, arbitrary: fc.constant({ Major: 2, Minor: 0 }) },
      { weight: 2, arbitrary: fc.constant({ Major: 1, Minor: 0 }) },
      { weight: 1, arbitrary: fc.jsonValue() as fc.Arbitrary<Json> },
    ),
    Flags: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(0, 1) },
      { weight: 1, arbitrary: fc.jsonValue() as fc.Arbitrary<Json> },
    ),
    Filter: fc.oneof(
      { weight: 5, arbitrary: filter.map((f) => JSON.stringify(f)) },
      { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
      { weight: 1, arbitrary: fc.jsonValue() as fc.Arbitrary<Json> },
    ),
  });
}

type DocKind = 'Network' | 'Endpoint' | 'Namespace' | 'LoadBalancer' | 'SdnRoute';

/**
 * Documents near the valid ones — kit documents with live IDs, the same with a field broken,
 * modify requests, v1 bodies, queries — all mixed (`all`), or biased to one use.
 */
function documentKinds(
  fx: Fixture,
): Record<
  DocKind | 'all' | 'request' | 'NetworkRequest' | 'EndpointRequest' | 'NamespaceRequest',
  fc.Arbitrary<Json>
> {
  const eps = [fx.ids.endpoint, fx.ids.endpoint2];
  const request = fc.record({
    ResourceType: fc.constantFrom(
      'Policy',
      'DNS',
      'Extension',
      'Subnet',
      'IPSubnet',
      'Endpoint',
      'Container',
      'Port',
      'Bogus',
      '',
    ),
    RequestType: fc.constantFrom('Add', 'Remove', 'Update', 'Refresh', 'Reset', 'add', ''),
    Settings: fc.oneof(
      fc.record({
        Policies: fc.array(fc.oneof(policy('network'), policy('endpoint'), policy('subnet')), {
          maxLength: 2,
        }),
      }),
      fc.record({ EndpointId: idStrings(fx) }),
      fc.record({ ContainerId: fc.string({ maxLength: 8 }) }),
      fc.record({
        PortId: fc.uuid(),
        VirtualMachineId: fc.uuid(),
        VirtualNicName: fc.string({ maxLength: 8 }),
      }),
      fc.record({ Subnets: fc.constant([{ IpAddressPrefix: '10.0.1.0/24' }]) }),
      fc.record({ Id: idStrings(fx), IsEnabled: fc.boolean() }),
      fc.jsonValue() as fc.Arbitrary<Json>,
    ),
  });
  // modify requests shaped for each kind (reference §1.1–§1.3 ModifySettingRequest)
  const req = (types: readonly string[], settings: fc.Arbitrary<Json>) =>
    fc.record<Record<string, Json>>({
      ResourceType: fc.constantFrom(...types),
      RequestType: fc.constantFrom('Add', 'Remove', 'Update', 'Refresh'),
      Settings: settings,
    });
  const addRemove = (type: string, settings: fc.Arbitrary<Json>) =>
    fc.record<Record<string, Json>>({
      ResourceType: fc.constant(type),
      RequestType: fc.constantFrom('Add', 'Remove'),
      Settings: settings,
    });
  const fixturePolicy = {
    Type: 'PortMapping',
    Settings: { Protocol: 6, InternalPort: 80, ExternalPort: 8080 },
  };
  const requests = {
    Network: fc.oneof(
      req(['Policy'], fc.record({ Policies: fc.array(policy('network'), { maxLength: 2 }) })),
      req(
        ['DNS'],
        fc.record<Record<string, Json>>({
          ServerList: fc.array(fc.ipV4(), { maxLength: 2 }),
          Search: fc.constant(['a.b']),
        }),
      ),
      req(['Extension'], fc.record({ Id: fc.uuid(), IsEnabled: fc.boolean() })),
      req(
        ['Subnet'],
        fc.record<Record<string, Json>>({
          Subnets: fc.constantFrom<Json>(
            [
              {
                IpAddressPrefix: '10.0.1.0/24',
                Routes: [{ NextHop: '10.0.1.1', DestinationPrefix: '0.0.0.0/0' }],
              },
            ],
            [{ IpAddressPrefix: '10.0.0.0/24' }],
          ),
        }),
      ),
    ),
    Endpoint: fc.oneof(
      req(
        ['Policy'],
        fc.record({
          Policies: fc.array(fc.oneof(policy('endpoint'), fc.constant(fixturePolicy)), { maxLength: 2 }),
        }),
      ),
      addRemove(
        'Port',
        fc.record({
          PortId: fc.uuid(),
          VirtualMachineId: fc.uuid(),
          VirtualNicName: fc.string({ maxLength: 8 }),
        }),
      ),
    ),
    Namespace: fc.oneof(
      addRemove('Endpoint', fc.record({ EndpointId: idStrings(fx, ['endpoint', 'endpoint2']) })),
      addRemove('Container', fc.record({ ContainerId: fc.constantFrom('c1', 'C1', 'pause') })),
    ),
  };
  const v1 = fc.oneof(
    fc.record({
      Name: fc.string({ maxLength: 6 }),
      Type: fc.constantFrom('NAT', 'L2Bridge', 'nat', 'Bogus'),
      Subnets: fc.constant([{ AddressPrefix: '10.9.0.0/24', GatewayAddress: '10.9.0.1' }]),
    }),
    fc.record({ VirtualNetwork: idStrings(fx), Name: fc.string({ maxLength: 6 }), IPAddress: fc.ipV4() }),
    fc.record({
      SystemType: fc.constantFrom('Host', 'Container', 'VirtualMachine', 'x'),
      ContainerId: fc.string({ maxLength: 6 }),
      CompartmentId: fc.integer({ min: -1, max: 3 }),
      VirtualNicName: fc.string({ maxLength: 10 }),
    }),
    fc.record({
      Type: fc.constantFrom('Endpoint', 'Container', 'x'),
      Data: fc.record({ Id: idStrings(fx) }),
    }),
    fc.record({
      References: fc.array(
        idStrings(fx).map((i) => `/endpoints/${i}`),
        { maxLength: 2 },
      ),
      Policies: fc.array(
        fc.oneof(
          fc.record({
            Type: fc.constantFrom('ELB', 'ROUTE', 'elb', 'x'),
            InternalPort: fc.integer({ min: -1, max: 70000 }),
            ExternalPort: fc.integer({ min: 0, max: 90 }),
            VIPs: fc.array(fc.ipV4(), { maxLength: 1 }),
            DestinationPrefix: fc.constantFrom('10.1.0.0/16', 'x'),
          }),
          fc.jsonValue(),
        ),
        { maxLength: 2 },
      ),
    }),
    fc.record({ IsDefault: fc.boolean() }),
  );
  const kinds = {
    Network: networkDoc(),
    Endpoint: endpointDoc(fx.ids.network, { subnets: ['10.0.0.0/24'] }),
    Namespace: namespaceDoc(eps),
    LoadBalancer: loadBalancerDoc(eps),
    SdnRoute: sdnRouteDoc(eps),
  };
  const broken = (doc: fc.Arbitrary<JsonObject>) =>
    fc
      .tuple(doc, fc.constantFrom(...Object.keys(BAD_FIELDS)), fc.jsonValue())
      .map(([d, key, v]): Json => ({ ...d, [key]: v as Json }));
  const all = fc.oneof<fc.Arbitrary<Json>[]>(
    ...Object.values(kinds),
    broken(fc.oneof(...Object.values(kinds))),
    invalidDoc(),
    request as fc.Arbitrary<Json>,
    v1 as fc.Arbitrary<Json>,
    queries(fx),
  );
  const near = (doc: fc.Arbitrary<Json>) =>
    fc.oneof({ weight: 3, arbitrary: doc }, { weight: 2, arbitrary: all });
  return {
    all,
    Network: near(fc.oneof(kinds.Network, broken(kinds.Network))),
    Endpoint: near(fc.oneof(kinds.Endpoint, broken(kinds.Endpoint))),
    Namespace: near(fc.oneof(kinds.Namespace, broken(kinds.Namespace))),
    LoadBalancer: near(fc.oneof(kinds.LoadBalancer, broken(kinds.LoadBalancer))),
    SdnRoute: near(fc.oneof(kinds.SdnRoute, broken(kinds.SdnRoute))),
    request: near(request as fc.Arbitrary<Json>),
    NetworkRequest: near(requests.Network),
    EndpointRequest: near(requests.Endpoint),
    NamespaceRequest: near(requests.Namespace),
  };
}

function documents(fx: Fixture): fc.Arbitrary<Json> {
  return documentKinds(fx).all;
}

/** Any argument: JSON values, non-JSON strings, exotic JS values, IDs, documents and their JSON text. */
function argument(fx: Fixture): fc.Arbitrary<unknown> {
  const docs = documents(fx);
  return fc.oneof(
    { weight: 3, arbitrary: fc.jsonValue() },
    { weight: 2, arbitrary: nonJsonString },
    { weight: 1, arbitrary: exoticValue },
    { weight: 3, arbitrary: idStrings(fx) },
    { weight: 4, arbitrary: docs },
    { weight: 3, arbitrary: docs.map((d) => JSON.stringify(d)) },
  );
}

/** HNSCall arguments: methods, v1 paths (with live and broken IDs), bodies. */
function hnsCallArgs(fx: Fixture): fc.Arbitrary<unknown[]> {
  // mostly a real route (router.ts ROUTES) with an ID of the right kind, so the handlers run
  const idFor: Record<string, FixtureKey[]> = {
    networks: ['network'],
    endpoints: ['endpoint', 'endpoint2'],
    endpointstats: ['endpoint'],
    policylists: ['policyList'],
    namespaces: ['namespace'],
  };
  const routed = fc.tuple(fc.constantFrom(...ROUTES), fc.boolean(), fc.boolean()).chain(([r, lower, slash]) =>
    (r.withId
      ? r.resource === 'globals'
        ? fc.constant('version')
        : idStrings(fx, idFor[r.resource])
      : fc.constant('')
    ).map((id) => {
      const path = `/${r.resource}/${id}${r.action ? `/${r.action}` : ''}${slash ? '/' : ''}`;
      return [lower ? r.method.toLowerCase() : r.method, path] as const;
    }),
  );
  const method = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('GET', 'POST', 'DELETE', 'get', 'Post') },
    { weight: 1, arbitrary: fc.constantFrom('PUT', 'PATCH', '', ' GET') },
    { weight: 1, arbitrary: argument(fx) },
  );
  const resource = fc.constantFrom(
    'networks',
    'endpoints',
    'policylists',
    'namespaces',
    'globals',
    'accelnet',
    'NETWORKS',
    'x',
  );
  const path = fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(
          resource,
          fc.option(fc.oneof(idStrings(fx), fc.constant('version')), { nil: undefined }),
          fc.option(fc.constantFrom('attach', 'detach', 'addresource', 'removeresource', 'x'), {
            nil: undefined,
          }),
          fc.boolean(),
        )
        .map(([r, id, action, slash]) => `/${r}/${id ?? ''}${action ? `/${action}` : ''}${slash ? '/' : ''}`),
    },
    { weight: 1, arbitrary: fc.constantFrom('/', '', '//', '/a/b/c/d', 'networks') },
    { weight: 1, arbitrary: argument(fx) },
  );
  const body = fc.oneof({ weight: 3, arbitrary: documents(fx) }, { weight: 1, arbitrary: argument(fx) });
  return fc.oneof(
    { weight: 4, arbitrary: fc.tuple(routed, body).map(([[m, p], b]) => [m, p, b]) },
    { weight: 1, arbitrary: fc.tuple(method, path, body) },
  );
}

// ───────────────────────────── the property ─────────────────────────────

/** Whether a result is plain JSON (what crosses the DLL / JSON-RPC boundary). */
function isPlainJson(v: unknown): boolean {
  return isDeepStrictEqual(cloneJson(v), v);
}

function check(
  method: FlatApiMethod,
  args: readonly unknown[],
  r: HcnResult<unknown>,
  before: HnsSnapshot,
  fx: Fixture,
): void {
  const where = () => `${method}(${args.map(describeArg).join(', ')})`;
  if (!isFailure(r)) {
    if ((r.hr as number) !== 0 || r.ok !== true) expect.fail(`${where()}: a success with hr ${String(r.hr)}`);
    if (!isPlainJson(r.result)) expect.fail(`${where()}: the result is not plain JSON`);
    return;
  }
  if (!isRegisteredHResult(r.hr)) expect.fail(`${where()}: unregistered HRESULT ${r.hr}`);
  if (HRESULTS[r.name as HResultName]?.code !== r.hr >>> 0)
    expect.fail(`${where()}: name ${r.name} does not match hr ${r.hr}`);
  if (r.name === 'E_FAIL' && r.message.includes('internal error')) {
    expect.fail(`${where()}: an exception escaped the service: ${r.message}`);
  }
  if (r.errorRecord.ErrorCode !== r.hr >>> 0 || r.errorRecord.Success !== false) {
    expect.fail(`${where()}: ErrorRecord ${JSON.stringify(r.errorRecord)} does not match hr ${r.hr}`);
  }
  const after = fx.host.snapshot();
  if (!isDeepStrictEqual(after, before))
    expect(after, `${where()} failed with ${r.name} but changed the state`).toEqual(before);
}

function describeArg(a: unknown): string {
  if (typeof a === 'bigint') return `${a}n`;
  if (typeof a === 'symbol' || typeof a === 'function') return String(a);
  if (a === undefined) return 'undefined';
  try {
    return JSON.stringify(a) ?? String(a);
  } catch {
    return String(a);
  }
}

type Position = 'id' | 'newId' | 'doc' | 'query';

/** What each argument position of a function expects (FlatApi signatures). */
function positions(m: FlatApiMethod): Position[] {
  if (m === 'HcnCreateEndpoint') return ['id', 'newId', 'doc'];
  if (m.startsWith('HcnEnumerate')) return ['query'];
  if (m.startsWith('HcnCreate')) return ['newId', 'doc'];
  if (m.startsWith('HcnQuery')) return ['id', 'query'];
  if (m.startsWith('HcnModify')) return ['id', 'doc'];
  return ['id'];
}

/** Mostly what the position expects (to get past the first checks), sometimes anything at all. */
/** The kind of object a function is about. */
function docKindOf(m: FlatApiMethod): DocKind {
  for (const k of ['Network', 'Endpoint', 'Namespace', 'LoadBalancer', 'SdnRoute'] as const) {
    if (m.endsWith(k) || m.includes(`${k}Properties`) || m.includes(`Enumerate${k}s`)) return k;
  }
  return 'Network';
}

/** The fixture objects a function's ID argument names. */
function kindOf(m: FlatApiMethod): FixtureKey[] {
  if (m === 'HcnCreateEndpoint') return ['network'];
  if (m.endsWith('Network') || m.includes('NetworkProperties')) return ['network'];
  if (m.endsWith('Endpoint') || m.includes('EndpointProperties') || m.includes('EndpointStats'))
    return ['endpoint', 'endpoint2'];
  if (m.endsWith('Namespace') || m.includes('NamespaceProperties')) return ['namespace'];
  if (m.endsWith('LoadBalancer') || m.includes('LoadBalancerProperties')) return ['lb'];
  return ['route'];
}

function typed(fx: Fixture, p: Position, m: FlatApiMethod): fc.Arbitrary<unknown> {
  const anything = argument(fx);
  const kinds = documentKinds(fx);
  const kind = docKindOf(m);
  const docs = !m.startsWith('HcnModify')
    ? kinds[kind]
    : kind === 'Network' || kind === 'Endpoint' || kind === 'Namespace'
      ? kinds[`${kind}Request`]
      : kind === 'LoadBalancer'
        ? kinds.LoadBalancer
        : kinds.request;
  const expected: fc.Arbitrary<unknown> =
    p === 'id'
      ? idStrings(fx, kindOf(m))
      : p === 'newId'
        ? fc.oneof(
            fc.constantFrom(null, '', '00000000-0000-0000-0000-000000000000'),
            fc.uuid(),
            idStrings(fx),
          )
        : p === 'doc'
          ? fc.oneof(
              { weight: 4, arbitrary: docs },
              { weight: 1, arbitrary: docs.map((d) => JSON.stringify(d)) },
            )
          : fc.oneof(
              fc.constantFrom(undefined, null, '', {}),
              queries(fx),
              queries(fx).map((q) => JSON.stringify(q)),
            );
  return fc.oneof({ weight: 4, arbitrary: expected }, { weight: 1, arbitrary: anything });
}

/** Calls that must not change the state, even when they succeed (queries, enumerations, v1 GET). */
function READ_ONLY(m: FlatApiMethod, args: readonly unknown[]): boolean {
  if (m.startsWith('HcnQuery') || m.startsWith('HcnEnumerate')) return true;
  return m === 'HNSCall' && typeof args[0] === 'string' && args[0].toUpperCase() === 'GET';
}

/** Outcome counts per function (printed with HNSIM_FUZZ_STATS=1, to see what the inputs reach). */
const STATS = new Map<string, number>();
function tally(method: string, r: HcnResult<unknown>): void {
  const v1 = !isFailure(r) && method === 'HNSCall' ? (r.result as JsonObject) : undefined;
  const outcome = isFailure(r) ? r.name : v1 && v1.Success === false ? `v1 ${String(v1.ErrorCode)}` : 'ok';
  const k = `${method} → ${outcome}`;
  STATS.set(k, (STATS.get(k) ?? 0) + 1);
}

function argsFor(fx: Fixture, m: FlatApiMethod): fc.Arbitrary<unknown[]> {
  const shaped = m === 'HNSCall' ? hnsCallArgs(fx) : fc.tuple(...positions(m).map((p) => typed(fx, p, m)));
  // missing and extra arguments are inputs too
  return fc.oneof(
    { weight: 6, arbitrary: shaped },
    { weight: 1, arbitrary: fc.array(argument(fx), { maxLength: 4 }) },
  );
}

describe('flat API fuzz', () => {
  const fx = fixture();
  const runs = Math.max(1, Math.floor(TOTAL_RUNS / FLAT_API_METHODS.length));

  it('the fixture holds one live object of each kind', () => {
    expect(Object.values(fx.ids).every((id) => /^[0-9A-F-]{36}$/.test(id))).toBe(true);
  });

  it.each(FLAT_API_METHODS)('%s: any input gives a result or a registered HRESULT, atomically', (method) => {
    const api = fx.host.api as unknown as Record<FlatApiMethod, (...a: unknown[]) => HcnResult<unknown>>;
    const args = argsFor(fx, method);
    fc.assert(
      fc.property(args, (a) => {
        // every run starts from the fixture state: restored after a success, kept by a failure
        const r = api[method]!.apply(fx.host.api, a);
        check(method, a, r, fx.snapshot, fx);
        if (process.env.HNSIM_FUZZ_STATS) tally(method, r);
        if (isFailure(r)) return;
        const v1Failed = method === 'HNSCall' && (r.result as JsonObject).Success === false;
        if (v1Failed) {
          const code = (r.result as JsonObject).ErrorCode as number;
          if (!isRegisteredHResult(code))
            expect.fail(`HNSCall(${a.map(describeArg).join(', ')}): v1 ErrorCode ${code}`);
        }
        if (READ_ONLY(method, a) || v1Failed) {
          // reads and v1 failures ({"Success":false}) leave the state as it was
          const after = fx.host.snapshot();
          if (!isDeepStrictEqual(after, fx.snapshot)) {
            expect(after, `${method}(${a.map(describeArg).join(', ')}) changed the state`).toEqual(
              fx.snapshot,
            );
          }
        } else fx.host.restore(fx.snapshot);
      }),
      { seed: SEED, numRuns: runs },
    );
  });

  it('values JSON cannot carry, in every argument position of every function, fail cleanly or are ignored', () => {
    const api = fx.host.api as unknown as Record<FlatApiMethod, (...a: unknown[]) => HcnResult<unknown>>;
    const { network, endpoint, namespace, lb, route } = fx.ids;
    // a valid call per function; each position in turn gets each exotic value
    const baseline: Record<FlatApiMethod, unknown[]> = {
      HcnEnumerateNetworks: [''],
      HcnCreateNetwork: [null, { Name: 'exotic', Type: 'NAT' }],
      HcnQueryNetworkProperties: [network, ''],
      HcnModifyNetwork: [network, { ResourceType: 'Policy', RequestType: 'Refresh', Settings: {} }],
      HcnDeleteNetwork: [network],
      HcnEnumerateEndpoints: [''],
      HcnCreateEndpoint: [network, null, { Name: 'exotic' }],
      HcnQueryEndpointProperties: [endpoint, ''],
      HcnQueryEndpointStats: [endpoint, ''],
      HcnModifyEndpoint: [endpoint, { ResourceType: 'Policy', RequestType: 'Refresh', Settings: {} }],
      HcnDeleteEndpoint: [endpoint],
      HcnEnumerateNamespaces: [''],
      HcnCreateNamespace: [null, { Type: 'Host' }],
      HcnQueryNamespaceProperties: [namespace, ''],
      HcnModifyNamespace: [
        namespace,
        { ResourceType: 'Container', RequestType: 'Add', Settings: { ContainerId: 'x' } },
      ],
      HcnDeleteNamespace: [namespace],
      HcnEnumerateLoadBalancers: [''],
      HcnCreateLoadBalancer: [
        null,
        {
          HostComputeEndpoints: [endpoint],
          PortMappings: [{ Protocol: 6, InternalPort: 81, ExternalPort: 81 }],
        },
      ],
      HcnQueryLoadBalancerProperties: [lb, ''],
      HcnModifyLoadBalancer: [
        lb,
        {
          HostComputeEndpoints: [endpoint],
          PortMappings: [{ Protocol: 6, InternalPort: 82, ExternalPort: 82 }],
        },
      ],
      HcnDeleteLoadBalancer: [lb],
      HcnEnumerateSdnRoutes: [''],
      HcnCreateSdnRoute: [
        null,
        { HostComputeEndpoints: [endpoint], Setting: [{ DestinationPrefix: '10.1.0.0/16' }] },
      ],
      HcnQuerySdnRouteProperties: [route, ''],
      HcnModifySdnRoute: [route, {}],
      HcnDeleteSdnRoute: [route],
      HNSCall: ['POST', `/namespaces/${namespace}/addresource`, { Type: 'Container', Data: { Id: 'c9' } }],
      // the Hcs* functions (test/api/hcs-fuzz.test.ts fuzzes them against live compute systems)
      HcsCreateComputeSystem: [
        'exotic',
        { SchemaVersion: { Major: 2, Minor: 1 }, Container: { Networking: { Namespace: namespace } } },
      ],
      HcsStartComputeSystem: ['exotic', ''],
      HcsShutdownComputeSystem: ['exotic', ''],
      HcsTerminateComputeSystem: ['exotic', ''],
      HcsPauseComputeSystem: ['exotic', ''],
      HcsResumeComputeSystem: ['exotic', ''],
      HcsModifyComputeSystem: ['exotic', { ResourceType: 'Network', RequestType: 'Add', Settings: endpoint }],
      HcsGetComputeSystemProperties: ['exotic', ''],
      HcsEnumerateComputeSystems: [''],
      HcsCloseComputeSystem: ['exotic'],
    };
    for (const method of FLAT_API_METHODS) {
      const base = baseline[method];
      for (let pos = 0; pos < base.length; pos++) {
        for (const v of EXOTIC_VALUES) {
          const args = base.map((x, i) => (i === pos ? v : x));
          const r = api[method]!.apply(fx.host.api, args);
          check(method, args, r, fx.snapshot, fx);
          if (!isFailure(r)) fx.host.restore(fx.snapshot);
        }
      }
    }
  });

  it.runIf(process.env.HNSIM_FUZZ_STATS)('statistics', () => {
    console.log(
      [...STATS]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, n]) => `${String(n).padStart(6)}  ${k}`)
        .join('\n'),
    );
  });
});
