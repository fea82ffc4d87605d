/**
 * Fuzzing the flat Hcs* functions (DESIGN contracts 2 and 3) against a host holding compute systems
 * in every state — Created, Running and Stopped containers, a schema 1 container with an endpoint,
 * a running utility VM with a NIC and a container hosted in it, a paused VM: every argument
 * position gets IDs of live systems (in other cases too), unknown and non-string IDs, create
 * documents of both schemas (valid, and with a field broken), modify requests (v1 hot-attach, VM
 * NICs, guest requests), property and system queries, options, JSON text and non-JSON strings.
 * Whatever comes in, the call returns plain JSON or a failure whose HRESULT is registered and
 * spelled as the host's API spells it (vmcompute: never an HCS_E_ code that has a 0xC037 twin),
 * which is not an escaped exception and leaves the state as it was; a read changes nothing.
 *
 * Soak: HNSIM_HCS_FUZZ_RUNS=100000 npx vitest run test/api/hcs-fuzz.test.ts
 * (HNSIM_HCS_FUZZ_STATS=1 prints the outcomes per function).
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FLAT_API_METHODS, isFailure, isHcsMethod, type HcnResult, type HcsApi } from '../../src/api/flat.js';
import { HRESULTS, isRegisteredHResult, vmcomputeName, type HResultName } from '../../src/core/errors.js';
import { cloneJson, type Json, type JsonObject } from '../../src/core/json.js';
import type { HnsSnapshot } from '../../src/hns/lifecycle.js';
import { checkInvariants } from '../../src/testing/index.js';
import { containerDoc, ok, setupHcs, v1ContainerDoc, vmDoc, type HcsFixture } from './hcs-helpers.js';
import { runs } from '../runs.js';

const TOTAL_RUNS = Number(process.env.HNSIM_HCS_FUZZ_RUNS ?? runs(600, 30_000));
const SEED = 20261130;
const NIC = '8d1c4b5e-7a47-4c42-9d56-0f2d3c8e9a11';
const NIC2 = '0b6f1c2a-1d8e-4f3b-a2c4-5e6f7a8b9c0d';
const IDS = ['created', 'running', 'stopped', 'v1', 'vm', 'hosted', 'paused'] as const;

interface Fixture extends HcsFixture {
  readonly snapshot: HnsSnapshot;
}

function fixture(api: HcsApi): Fixture {
  const fx = setupHcs(api, 23);
  const a = fx.host.api;
  ok(a.HcsCreateComputeSystem('created', containerDoc(fx.ns)));
  ok(a.HcsCreateComputeSystem('running', containerDoc(fx.ns, { Name: 'web' })));
  ok(a.HcsStartComputeSystem('running', ''));
  ok(a.HcsCreateComputeSystem('stopped', containerDoc(fx.ns)));
  ok(a.HcsStartComputeSystem('stopped', ''));
  ok(a.HcsTerminateComputeSystem('stopped', ''));
  ok(a.HcsCreateComputeSystem('v1', v1ContainerDoc([fx.eps[1]!])));
  ok(a.HcsStartComputeSystem('v1', ''));
  ok(a.HcsCreateComputeSystem('vm', vmDoc()));
  ok(a.HcsStartComputeSystem('vm', ''));
  ok(
    a.HcsModifyComputeSystem('vm', {
      ResourcePath: `VirtualMachine/Devices/NetworkAdapters/${NIC}`,
      RequestType: 'Add',
      Settings: { EndpointId: fx.eps[2] },
    }),
  );
  ok(
    a.HcsCreateComputeSystem('hosted', {
      SchemaVersion: { Major: 2, Minor: 1 },
      HostingSystemId: 'vm',
      HostedSystem: {
        SchemaVersion: { Major: 2, Minor: 1 },
        Container: { Networking: { Namespace: fx.ns } },
      },
    }),
  );
  ok(a.HcsStartComputeSystem('hosted', ''));
  ok(a.HcsCreateComputeSystem('paused', vmDoc()));
  ok(a.HcsStartComputeSystem('paused', ''));
  ok(a.HcsPauseComputeSystem('paused', ''));
  return { ...fx, snapshot: fx.host.snapshot() };
}

// ───────────────────────────── arguments ─────────────────────────────

const nonJsonString = fc.string({ maxLength: 20 }).filter((s) => {
  try {
    JSON.parse(s);
    return false;
  } catch {
    return true;
  }
});

const EXOTIC: readonly unknown[] = [
  undefined,
  Number.NaN,
  10n,
  Symbol('x'),
  () => 1,
  Object.create(null) as object,
  [undefined],
];

function systemIds(): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...IDS) },
    { weight: 2, arbitrary: fc.constantFrom(...IDS).map((x) => x.toUpperCase()) },
    { weight: 1, arbitrary: fc.constantFrom('', 'nope', ' running', 'x'.repeat(256), NIC) },
    { weight: 1, arbitrary: fc.constantFrom(...EXOTIC, null, 7, {}) },
  );
}

function guids(fx: HcsFixture): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...fx.eps, fx.ns, fx.net, NIC, NIC2),
    fc.constantFrom(...fx.eps).map((x) => x.toLowerCase()),
    fc.uuid(),
    fc.constantFrom('not-a-guid', ''),
  );
}

function createDocs(fx: HcsFixture): fc.Arbitrary<Json> {
  const valid = fc.oneof(
    fc.constantFrom<Json>(containerDoc(fx.ns), containerDoc(), vmDoc(), v1ContainerDoc([fx.eps[1]!], 'n1')),
    guids(fx).map((g) => containerDoc(g)),
    fc.array(guids(fx), { maxLength: 2 }).map((eps) => v1ContainerDoc(eps, 'n2')),
    fc.record({
      SchemaVersion: fc.constant({ Major: 2, Minor: 1 }),
      HostingSystemId: fc.constantFrom('vm', 'paused', 'running', 'nope'),
      HostedSystem: fc.constant({ Container: { Networking: { Namespace: fx.ns } } }),
    }) as fc.Arbitrary<Json>,
    fc.record({
      SchemaVersion: fc.constant({ Major: 2, Minor: 1 }),
      VirtualMachine: fc.record({
        Devices: fc.record({
          NetworkAdapters: fc.dictionary(
            fc.constantFrom(NIC, NIC2, 'bad'),
            fc.record({ EndpointId: guids(fx), MacAddress: fc.constantFrom('00-15-5D-00-00-09', '') }),
            { maxKeys: 2 },
          ),
        }),
      }),
    }) as fc.Arbitrary<Json>,
    fc.record({
      SystemType: fc.constantFrom('Container', 'VirtualMachine', 'container', 'x'),
      HvPartition: fc.boolean(),
      NetworkSharedContainerName: fc.constantFrom('running', 'created', 'nope'),
    }) as fc.Arbitrary<Json>,
  );
  const broken = fc
    .tuple(
      fc.constantFrom<JsonObject>(containerDoc(fx.ns), vmDoc(), v1ContainerDoc([fx.eps[1]!])),
      fc.constantFrom(
        'SchemaVersion',
        'Container',
        'VirtualMachine',
        'EndpointList',
        'SystemType',
        'Owner',
        'Name',
      ),
      fc.jsonValue(),
    )
    .map(([d, k, v]): Json => ({ ...d, [k]: v as Json }));
  return fc.oneof(
    { weight: 4, arbitrary: valid },
    { weight: 2, arbitrary: broken },
    { weight: 1, arbitrary: fc.jsonValue() as fc.Arbitrary<Json> },
  );
}

function modifyDocs(fx: HcsFixture): fc.Arbitrary<Json> {
  const reqType = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('Add', 'Remove', 'Update') },
    { weight: 1, arbitrary: fc.constantFrom('add', 'PreAdd', 'x') },
  );
  const guid = fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...fx.eps, fx.ns) },
    { weight: 1, arbitrary: guids(fx) },
  );
  const v1 = fc.record({
    ResourceType: fc.constantFrom('Network', 'network', 'MappedDirectory'),
    RequestType: reqType,
    Settings: fc.oneof(guid, guid.map((g) => ({ EndpointId: g })) as fc.Arbitrary<Json>),
  }) as fc.Arbitrary<Json>;
  const guest = fc.oneof(
    fc.record({
      ResourceType: fc.constant('NetworkNamespace'),
      RequestType: reqType,
      Settings: guid.map((g) => ({ Id: g })),
    }),
    fc.record({
      ResourceType: fc.constantFrom('Network', 'network'),
      RequestType: reqType,
      Settings: fc.record({
        AdapterId: fc.constantFrom(NIC, NIC2, 'x'),
        RequestType: fc.constantFrom('PreAdd', 'Add', 'Remove', 'Update'),
      }),
    }),
    fc.record({ RequestType: reqType, Settings: fc.record({ AdapterId: fc.constantFrom(NIC, NIC2) }) }),
  ) as fc.Arbitrary<Json>;
  const nic = fc.record(
    {
      ResourcePath: fc
        .constantFrom(NIC, NIC, NIC2, NIC2, 'x')
        .map((n) => `VirtualMachine/Devices/NetworkAdapters/${n}`),
      RequestType: reqType,
      Settings: fc.record(
        { EndpointId: guid, MacAddress: fc.constantFrom('00-15-5D-00-00-0A', '') },
        { requiredKeys: [] },
      ),
      GuestRequest: guest,
    },
    { requiredKeys: ['ResourcePath', 'RequestType'] },
  ) as fc.Arbitrary<Json>;
  const other = fc.oneof(
    guest.map((g): Json => ({ GuestRequest: g })),
    guest.map((g): Json => ({ ResourcePath: '', GuestRequest: g })),
    fc.constantFrom<Json>(
      {
        ResourcePath: 'VirtualMachine/ComputeTopology/Memory/SizeInMB',
        RequestType: 'Update',
        Settings: 1024,
      },
      {},
    ),
  );
  return fc.oneof(
    { weight: 3, arbitrary: v1 },
    { weight: 4, arbitrary: nic },
    { weight: 2, arbitrary: other },
    { weight: 1, arbitrary: fc.jsonValue() as fc.Arbitrary<Json> },
  );
}

const propertyQueries: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(undefined, null, '', '{}'),
  fc
    .array(
      fc.constantFrom(
        'Statistics',
        'ProcessList',
        'Memory',
        'GuestConnection',
        'TerminateOnLastHandleClosed',
        'statistics',
        'Bogus',
      ),
      {
        maxLength: 3,
      },
    )
    .map((t) => ({ PropertyTypes: t })),
  fc.jsonValue(),
);

const systemQueries: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(undefined, null, '', '{}'),
  fc.record(
    {
      Ids: fc.array(fc.constantFrom(...IDS, 'nope', 'VM'), { maxLength: 2 }),
      Names: fc.array(fc.constantFrom('web', 'v1', 'x'), { maxLength: 2 }),
      Types: fc.array(fc.constantFrom('Container', 'VirtualMachine', 'x'), { maxLength: 2 }),
      Owners: fc.array(fc.constantFrom('docker', 'containerd-shim-runhcs-v1.exe'), { maxLength: 2 }),
    },
    { requiredKeys: [] },
  ),
  fc.jsonValue(),
);

const options: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(undefined, null, '', '{}', {}) },
  { weight: 1, arbitrary: fc.oneof(nonJsonString, fc.jsonValue(), fc.constantFrom(...EXOTIC)) },
);

/** Anything at all, sometimes as JSON text. */
function anything(fx: HcsFixture): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.jsonValue(),
    nonJsonString,
    fc.constantFrom(...EXOTIC),
    systemIds(),
    createDocs(fx).map((d) => JSON.stringify(d)),
    modifyDocs(fx).map((d) => JSON.stringify(d)),
  );
}

function argsFor(fx: HcsFixture, m: string): fc.Arbitrary<unknown[]> {
  const text = (a: fc.Arbitrary<Json>) =>
    fc.oneof({ weight: 3, arbitrary: a }, { weight: 1, arbitrary: a.map((d) => JSON.stringify(d)) });
  const shaped: fc.Arbitrary<unknown[]> =
    m === 'HcsCreateComputeSystem'
      ? fc.tuple(fc.oneof(systemIds(), fc.constantFrom('new', 'NEW2')), text(createDocs(fx)))
      : m === 'HcsModifyComputeSystem'
        ? fc.tuple(
            fc.oneof(
              { weight: 3, arbitrary: fc.constantFrom('vm', 'v1', 'running') },
              { weight: 2, arbitrary: systemIds() },
            ),
            text(modifyDocs(fx)),
          )
        : m === 'HcsGetComputeSystemProperties'
          ? fc.tuple(systemIds(), propertyQueries)
          : m === 'HcsEnumerateComputeSystems'
            ? fc.tuple(systemQueries)
            : m === 'HcsCloseComputeSystem'
              ? fc.tuple(systemIds())
              : fc.tuple(systemIds(), options);
  return fc.oneof(
    { weight: 6, arbitrary: shaped },
    { weight: 1, arbitrary: fc.array(anything(fx), { maxLength: 3 }) },
  );
}

// ───────────────────────────── the property ─────────────────────────────

function describeArg(a: unknown): string {
  if (typeof a === 'bigint') return `${a}n`;
  if (typeof a === 'symbol' || typeof a === 'function' || a === undefined) return String(a);
  try {
    return JSON.stringify(a) ?? String(a);
  } catch {
    return String(a);
  }
}

function check(
  api: HcsApi,
  fx: Fixture,
  method: string,
  args: readonly unknown[],
  r: HcnResult<unknown>,
): void {
  const where = () => `${api} ${method}(${args.map(describeArg).join(', ')})`;
  if (!isFailure(r)) {
    if (!isDeepStrictEqual(cloneJson(r.result), r.result))
      expect.fail(`${where()}: the result is not plain JSON`);
    if (method === 'HcsGetComputeSystemProperties' || method === 'HcsEnumerateComputeSystems') {
      if (!isDeepStrictEqual(fx.host.snapshot(), fx.snapshot))
        expect.fail(`${where()}: a read changed the state`);
    }
    const broken = checkInvariants(fx.host);
    if (broken.length) expect.fail(`${where()}: HNS invariants broken: ${broken.join('; ')}`);
    return;
  }
  if (!isRegisteredHResult(r.hr)) expect.fail(`${where()}: unregistered HRESULT ${r.hr}`);
  if (HRESULTS[r.name as HResultName]?.code !== r.hr >>> 0)
    expect.fail(`${where()}: name ${r.name} ≠ hr ${r.hr}`);
  if (r.name === 'E_FAIL' && r.message.includes('internal error'))
    expect.fail(`${where()}: an exception escaped the service: ${r.message}`);
  if (r.errorRecord.ErrorCode !== r.hr >>> 0) expect.fail(`${where()}: ErrorRecord ≠ hr`);
  if (api === 'vmcompute' && vmcomputeName(r.name as HResultName))
    expect.fail(`${where()}: ${r.name} has a vmcompute twin but was not spelled as it`);
  if (api === 'computecore' && r.name.startsWith('ERROR_VMCOMPUTE_'))
    expect.fail(`${where()}: computecore answered the vmcompute spelling ${r.name}`);
  if (!isDeepStrictEqual(fx.host.snapshot(), fx.snapshot))
    expect(fx.host.snapshot(), `${where()} failed with ${r.name} but changed the state`).toEqual(fx.snapshot);
}

const HCS_METHODS = FLAT_API_METHODS.filter((m) => isHcsMethod(m));

/** Outcome counts per function (printed with HNSIM_HCS_FUZZ_STATS=1, to see what the inputs reach). */
const STATS = new Map<string, number>();

describe.each(['computecore', 'vmcompute'] as const)('Hcs* fuzz (%s)', (api) => {
  const fx = fixture(api);
  const runs = Math.max(1, Math.floor(TOTAL_RUNS / HCS_METHODS.length));

  it('the fixture is consistent', () => {
    expect(checkInvariants(fx.host)).toEqual([]);
    expect(ok(fx.host.api.HcsEnumerateComputeSystems('')).map((p) => [p.Id, p.State])).toEqual([
      ['created', 'Created'],
      ['running', 'Running'],
      ['stopped', 'Stopped'],
      ['v1', 'Running'],
      ['vm', 'Running'],
      ['hosted', 'Running'],
      ['paused', 'Paused'],
    ]);
  });

  it.each(HCS_METHODS)('%s: any input gives JSON or a registered, spelled HRESULT, atomically', (method) => {
    const call = (fx.host.api as unknown as Record<string, (...a: unknown[]) => HcnResult<unknown>>)[method]!;
    fc.assert(
      fc.property(argsFor(fx, method), (a) => {
        const r = call.apply(fx.host.api, a);
        check(api, fx, method, a, r);
        if (process.env.HNSIM_HCS_FUZZ_STATS) {
          const k = `${api} ${method} → ${isFailure(r) ? r.name : 'ok'}`;
          STATS.set(k, (STATS.get(k) ?? 0) + 1);
        }
        if (!isFailure(r)) fx.host.restore(fx.snapshot);
      }),
      { seed: SEED, numRuns: runs },
    );
  });

  it.runIf(process.env.HNSIM_HCS_FUZZ_STATS)('outcomes', () => {
    console.log(
      [...STATS]
        .sort()
        .map(([k, n]) => `${n}\t${k}`)
        .join('\n'),
    );
  });
});
