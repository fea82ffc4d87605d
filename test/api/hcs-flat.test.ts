// The flat Hcs* functions (computecore.dll / vmcompute.dll exports, reference hcs-lifecycle.md §0,
// §1): each one's success, and its failures as data with the HRESULT of the host's spelling —
// computecore's HCS_E_* (0x8037…) by default, vmcompute's ERROR_VMCOMPUTE_* (0xC037…) with
// `hcs: { api: 'vmcompute' }` — HNS codes unchanged in both, the state unchanged after each failure.
// Expected codes are literals from the reference and winerror.h, not read from the registry.
import { describe, expect, it } from 'vitest';
import {
  FLAT_API_METHODS,
  isHcsMethod,
  spellHcsError,
  type HcnResult,
  type HcsApi,
} from '../../src/api/flat.js';
import { HnsError } from '../../src/core/errors.js';
import type { JsonObject } from '../../src/core/json.js';
import { createHost } from '../../src/host/host.js';
import {
  containerDoc,
  failed,
  ok,
  setupHcs,
  stateOf,
  v1ContainerDoc,
  vmDoc,
  type HcsFixture,
} from './hcs-helpers.js';

const APIS: readonly HcsApi[] = ['computecore', 'vmcompute'];

/** A row: bring the fixture to a state, then make the failing call. */
interface FailureCase {
  readonly what: string;
  readonly arrange?: (fx: HcsFixture) => void;
  readonly act: (fx: HcsFixture) => HcnResult<unknown>;
  /** [hr, name] on computecore, then on vmcompute. */
  readonly computecore: readonly [number, string];
  readonly vmcompute: readonly [number, string];
}

const NOT_FOUND = {
  computecore: [0x8037010e, 'HCS_E_SYSTEM_NOT_FOUND'],
  vmcompute: [0xc037010e, 'ERROR_VMCOMPUTE_SYSTEM_NOT_FOUND'],
} as const;
const INVALID_STATE = {
  computecore: [0x80370105, 'HCS_E_INVALID_STATE'],
  vmcompute: [0xc0370105, 'ERROR_VMCOMPUTE_INVALID_STATE'],
} as const;
const ALREADY_STOPPED = {
  computecore: [0x80370110, 'HCS_E_SYSTEM_ALREADY_STOPPED'],
  vmcompute: [0xc0370110, 'ERROR_VMCOMPUTE_SYSTEM_ALREADY_STOPPED'],
} as const;
const INVALID_JSON = {
  computecore: [0x8037010d, 'HCS_E_INVALID_JSON'],
  vmcompute: [0xc037010d, 'ERROR_VMCOMPUTE_INVALID_JSON'],
} as const;
const ALREADY_EXISTS = {
  computecore: [0x8037010f, 'HCS_E_SYSTEM_ALREADY_EXISTS'],
  vmcompute: [0xc037010f, 'ERROR_VMCOMPUTE_SYSTEM_ALREADY_EXISTS'],
} as const;
/** Codes that are not HCS_E_: the same on both APIs. */
const same = (hr: number, name: string) => ({ computecore: [hr, name], vmcompute: [hr, name] }) as const;

function created(fx: HcsFixture, id = 'c1', doc: JsonObject = containerDoc(fx.ns)): void {
  ok(fx.host.api.HcsCreateComputeSystem(id, doc));
}
function running(fx: HcsFixture, id = 'c1', doc?: JsonObject): void {
  created(fx, id, doc ?? containerDoc(fx.ns));
  ok(fx.host.api.HcsStartComputeSystem(id, ''));
}
function stopped(fx: HcsFixture, id = 'c1'): void {
  running(fx, id);
  ok(fx.host.api.HcsTerminateComputeSystem(id, ''));
}

const FAILURES: readonly FailureCase[] = [
  // HcsCreateComputeSystem
  {
    what: 'Create with an ID in use (any state)',
    arrange: (fx) => stopped(fx),
    act: (fx) => fx.host.api.HcsCreateComputeSystem('C1', containerDoc(fx.ns)),
    ...ALREADY_EXISTS,
  },
  {
    what: 'Create with malformed JSON',
    act: (fx) => fx.host.api.HcsCreateComputeSystem('c1', '{"SchemaVersion":'),
    ...INVALID_JSON,
  },
  {
    what: 'Create with a document of neither schema',
    act: (fx) => fx.host.api.HcsCreateComputeSystem('c1', { SchemaVersion: { Major: 2, Minor: 1 } }),
    ...INVALID_JSON,
  },
  {
    what: 'Create naming a namespace HNS does not have (ERROR_NOT_FOUND stays)',
    act: (fx) =>
      fx.host.api.HcsCreateComputeSystem('c1', containerDoc('11111111-2222-4333-8444-555555555555')),
    ...same(0x80070490, 'ERROR_NOT_FOUND'),
  },
  {
    what: 'Create (schema 1) naming an endpoint HNS does not have (HCN_E_ENDPOINT_NOT_FOUND stays)',
    act: (fx) =>
      fx.host.api.HcsCreateComputeSystem('v1', v1ContainerDoc(['11111111-2222-4333-8444-555555555555'])),
    ...same(0x803b0002, 'HCN_E_ENDPOINT_NOT_FOUND'),
  },
  {
    what: 'Create with an ID that is not a string',
    act: (fx) => fx.host.api.HcsCreateComputeSystem(42, containerDoc(fx.ns)),
    ...same(0x80070057, 'E_INVALIDARG'),
  },
  // HcsStartComputeSystem
  {
    what: 'Start of an unknown ID',
    act: (fx) => fx.host.api.HcsStartComputeSystem('nope', ''),
    ...NOT_FOUND,
  },
  {
    what: 'Start of a running system',
    arrange: (fx) => running(fx),
    act: (fx) => fx.host.api.HcsStartComputeSystem('c1', ''),
    ...INVALID_STATE,
  },
  {
    what: 'Start with malformed options',
    arrange: (fx) => created(fx),
    act: (fx) => fx.host.api.HcsStartComputeSystem('c1', '{'),
    ...INVALID_JSON,
  },
  {
    what: 'Start of a container whose namespace was deleted since Create (ERROR_NOT_FOUND stays)',
    arrange: (fx) => {
      const ns = ok(fx.host.api.HcnCreateNamespace(null, { Type: 'Host' })).ID;
      created(fx, 'c1', containerDoc(ns));
      ok(fx.host.api.HcnDeleteNamespace(ns));
    },
    act: (fx) => fx.host.api.HcsStartComputeSystem('c1', ''),
    ...same(0x80070490, 'ERROR_NOT_FOUND'),
  },
  // HcsShutdownComputeSystem
  {
    what: 'Shutdown of a stopped system',
    arrange: (fx) => stopped(fx),
    act: (fx) => fx.host.api.HcsShutdownComputeSystem('c1', ''),
    ...ALREADY_STOPPED,
  },
  {
    what: 'Shutdown of a paused VM',
    arrange: (fx) => {
      running(fx, 'vm', vmDoc());
      ok(fx.host.api.HcsPauseComputeSystem('vm', ''));
    },
    act: (fx) => fx.host.api.HcsShutdownComputeSystem('vm', ''),
    ...INVALID_STATE,
  },
  {
    what: 'Shutdown of an unknown ID',
    act: (fx) => fx.host.api.HcsShutdownComputeSystem('x', ''),
    ...NOT_FOUND,
  },
  // HcsTerminateComputeSystem
  {
    what: 'Terminate of a stopped system',
    arrange: (fx) => stopped(fx),
    act: (fx) => fx.host.api.HcsTerminateComputeSystem('c1', ''),
    ...ALREADY_STOPPED,
  },
  {
    what: 'Terminate of an unknown ID',
    act: (fx) => fx.host.api.HcsTerminateComputeSystem('x', null),
    ...NOT_FOUND,
  },
  // HcsPauseComputeSystem
  {
    what: 'Pause of a process-isolated container (ERROR_NOT_SUPPORTED 0x32 stays)',
    arrange: (fx) => running(fx),
    act: (fx) => fx.host.api.HcsPauseComputeSystem('c1', ''),
    ...same(0x80070032, 'ERROR_NOT_SUPPORTED'),
  },
  {
    what: 'Pause of a VM that never started',
    arrange: (fx) => created(fx, 'vm', vmDoc()),
    act: (fx) => fx.host.api.HcsPauseComputeSystem('vm', ''),
    ...INVALID_STATE,
  },
  // HcsResumeComputeSystem
  {
    what: 'Resume of a running VM',
    arrange: (fx) => running(fx, 'vm', vmDoc()),
    act: (fx) => fx.host.api.HcsResumeComputeSystem('vm', ''),
    ...INVALID_STATE,
  },
  { what: 'Resume of an unknown ID', act: (fx) => fx.host.api.HcsResumeComputeSystem('x', ''), ...NOT_FOUND },
  // HcsModifyComputeSystem
  {
    what: 'Modify of a stopped VM (a NIC add)',
    arrange: (fx) => {
      running(fx, 'vm', vmDoc());
      ok(fx.host.api.HcsTerminateComputeSystem('vm', ''));
    },
    act: (fx) =>
      fx.host.api.HcsModifyComputeSystem('vm', {
        ResourcePath: 'VirtualMachine/Devices/NetworkAdapters/8d1c4b5e-7a47-4c42-9d56-0f2d3c8e9a11',
        RequestType: 'Add',
        Settings: { EndpointId: fx.eps[2] },
      }),
    ...ALREADY_STOPPED,
  },
  {
    what: 'Modify with malformed JSON',
    arrange: (fx) => running(fx),
    act: (fx) => fx.host.api.HcsModifyComputeSystem('c1', 'not json'),
    ...INVALID_JSON,
  },
  {
    what: 'Modify: a v1 hot-attach of an endpoint already attached (HCN_E_ENDPOINT_ALREADY_ATTACHED stays)',
    arrange: (fx) => running(fx, 'v1', v1ContainerDoc([fx.eps[1]!])),
    act: (fx) =>
      fx.host.api.HcsModifyComputeSystem('v1', {
        ResourceType: 'Network',
        RequestType: 'Add',
        Settings: fx.eps[1]!,
      }),
    ...same(0x803b0014, 'HCN_E_ENDPOINT_ALREADY_ATTACHED'),
  },
  // HcsGetComputeSystemProperties
  {
    what: 'Properties of an unknown ID',
    act: (fx) => fx.host.api.HcsGetComputeSystemProperties('x', ''),
    ...NOT_FOUND,
  },
  {
    what: 'Statistics of a system that never started',
    arrange: (fx) => created(fx),
    act: (fx) => fx.host.api.HcsGetComputeSystemProperties('c1', { PropertyTypes: ['Statistics'] }),
    ...INVALID_STATE,
  },
  {
    what: 'Properties with an unknown property type',
    arrange: (fx) => created(fx),
    act: (fx) => fx.host.api.HcsGetComputeSystemProperties('c1', '{"PropertyTypes":["Bogus"]}'),
    ...INVALID_JSON,
  },
  // HcsEnumerateComputeSystems
  {
    what: 'Enumerate with a query that is not an object',
    act: (fx) => fx.host.api.HcsEnumerateComputeSystems('[1,2]'),
    ...INVALID_JSON,
  },
  {
    what: 'Enumerate with Ids that are not strings',
    act: (fx) => fx.host.api.HcsEnumerateComputeSystems({ Ids: [1] }),
    ...INVALID_JSON,
  },
  // HcsCloseComputeSystem
  { what: 'Close of an unknown ID', act: (fx) => fx.host.api.HcsCloseComputeSystem('x'), ...NOT_FOUND },
  {
    what: 'Close of a closed (gone) system',
    arrange: (fx) => {
      stopped(fx);
      ok(fx.host.api.HcsCloseComputeSystem('c1'));
    },
    act: (fx) => fx.host.api.HcsCloseComputeSystem('c1'),
    ...NOT_FOUND,
  },
];

describe('Hcs* failures as data, in both spellings, leaving the state as it was', () => {
  for (const api of APIS) {
    describe(api, () => {
      it.each(FAILURES.map((c) => [c.what, c] as const))('%s', (_what, c) => {
        const fx = setupHcs(api);
        c.arrange?.(fx);
        const before = fx.host.snapshot();
        const r = c.act(fx);
        const [hr, name] = c[api];
        expect(failed(r)).toEqual({ hr, name });
        if (!r.ok) {
          expect(r.errorRecord).toEqual({
            Success: false,
            Error: expect.stringMatching(/ $/),
            ErrorCode: hr,
          });
          expect(r.message.length).toBeGreaterThan(0);
        }
        expect(fx.host.snapshot()).toEqual(before);
      });
    });
  }

  it('the two spellings differ by 0x40000000 and carry the same Windows text', () => {
    const core = setupHcs('computecore');
    const v1 = setupHcs('vmcompute');
    const a = core.host.api.HcsStartComputeSystem('nope', '');
    const b = v1.host.api.HcsStartComputeSystem('nope', '');
    if (a.ok || b.ok) throw new Error('expected failures');
    expect((a.hr | 0x40000000) >>> 0).toBe(b.hr);
    expect(a.errorRecord.Error).toBe(
      'A virtual machine or container with the specified identifier does not exist. ',
    );
    expect(b.errorRecord.Error).toBe(a.errorRecord.Error);
    // the detail names the input, as for the Hcn* functions
    expect(a.message).toBe(
      'A virtual machine or container with the specified identifier does not exist. (nope)',
    );
  });
});

describe('Hcs* successes', () => {
  it('HcsCreateComputeSystem: JSON string or object; the result is the properties document', () => {
    const fx = setupHcs();
    const doc = containerDoc(fx.ns, { Name: 'web' });
    const a = ok(fx.host.api.HcsCreateComputeSystem('c1', JSON.stringify(doc)));
    expect(a).toMatchObject({
      Id: 'c1',
      SystemType: 'Container',
      Name: 'web',
      Owner: 'containerd-shim-runhcs-v1.exe',
      RuntimeOsType: 'windows',
      State: 'Created',
      Stopped: false,
    });
    expect(a).not.toHaveProperty('ExitType');
    const b = ok(fx.host.api.HcsCreateComputeSystem('c2', doc));
    expect(b.Id).toBe('c2');
    expect(ok(fx.host.api.HcsGetComputeSystemProperties('c1', ''))).toEqual(a);
  });

  it('HcsStartComputeSystem: Running, and the container joins its namespace', () => {
    const fx = setupHcs();
    created(fx);
    expect(ok(fx.host.api.HcsStartComputeSystem('c1', ''))).toBeNull();
    expect(stateOf(fx.host, 'c1')).toBe('Running');
    const ns = ok(fx.host.api.HcnQueryNamespaceProperties(fx.ns, ''));
    expect(ns.Resources).toContainEqual({ Type: 'Container', Data: { ID: 'c1' } });
  });

  it('options are "", null, absent or a JSON object', () => {
    const fx = setupHcs();
    created(fx, 'a');
    created(fx, 'b');
    created(fx, 'c');
    created(fx, 'd');
    ok(fx.host.api.HcsStartComputeSystem('a', ''));
    ok(fx.host.api.HcsStartComputeSystem('b', null));
    ok(fx.host.api.HcsStartComputeSystem('c'));
    ok(fx.host.api.HcsStartComputeSystem('d', '{}'));
    expect(['a', 'b', 'c', 'd'].map((id) => stateOf(fx.host, id))).toEqual(Array(4).fill('Running'));
  });

  it('HcsShutdownComputeSystem: Stopped, GracefulExit', () => {
    const fx = setupHcs();
    running(fx);
    expect(ok(fx.host.api.HcsShutdownComputeSystem('c1', ''))).toBeNull();
    expect(ok(fx.host.api.HcsGetComputeSystemProperties('c1', ''))).toMatchObject({
      State: 'Stopped',
      Stopped: true,
      ExitType: 'GracefulExit',
    });
  });

  it('HcsTerminateComputeSystem: Stopped, ForcedExit', () => {
    const fx = setupHcs();
    running(fx);
    expect(ok(fx.host.api.HcsTerminateComputeSystem('c1', ''))).toBeNull();
    expect(ok(fx.host.api.HcsGetComputeSystemProperties('c1', ''))).toMatchObject({
      State: 'Stopped',
      ExitType: 'ForcedExit',
    });
  });

  it('HcsPauseComputeSystem / HcsResumeComputeSystem: a VM goes Paused and back to Running', () => {
    const fx = setupHcs();
    running(fx, 'vm', vmDoc());
    expect(ok(fx.host.api.HcsPauseComputeSystem('vm', ''))).toBeNull();
    expect(stateOf(fx.host, 'vm')).toBe('Paused');
    expect(ok(fx.host.api.HcsResumeComputeSystem('vm', ''))).toBeNull();
    expect(stateOf(fx.host, 'vm')).toBe('Running');
  });

  it('HcsModifyComputeSystem: a v1 hot-attach puts the container in the endpoint’s SharedContainers', () => {
    const fx = setupHcs();
    running(fx, 'v1', v1ContainerDoc([]));
    const req = { ResourceType: 'Network', RequestType: 'Add', Settings: fx.eps[1]! };
    expect(ok(fx.host.api.HcsModifyComputeSystem('v1', JSON.stringify(req)))).toBeNull();
    const ep = ok(fx.host.api.HNSCall('GET', `/endpoints/${fx.eps[1]!}`, ''));
    expect((ep.Output as JsonObject).SharedContainers).toEqual(['v1']);
  });

  it('HcsModifyComputeSystem: a NIC hot-added to a running VM gives its endpoint a VM port', () => {
    const fx = setupHcs();
    running(fx, 'vm', vmDoc());
    ok(
      fx.host.api.HcsModifyComputeSystem('vm', {
        ResourcePath: 'VirtualMachine/Devices/NetworkAdapters/8d1c4b5e-7a47-4c42-9d56-0f2d3c8e9a11',
        RequestType: 'Add',
        Settings: { EndpointId: fx.eps[2], MacAddress: '00-15-5D-00-00-01' },
      }),
    );
    expect(fx.host.hns.store.endpoints.get(fx.eps[2]!)?.VmPort).toMatchObject({
      VirtualMachineId: fx.host.hcs.get('vm').runtimeId,
    });
  });

  it('HcsGetComputeSystemProperties: PropertyTypes add their parts', () => {
    const fx = setupHcs();
    running(fx);
    const p = ok(
      fx.host.api.HcsGetComputeSystemProperties('c1', {
        PropertyTypes: ['Statistics', 'TerminateOnLastHandleClosed', 'ProcessList'],
      }),
    );
    expect(p).toMatchObject({
      Id: 'c1',
      State: 'Running',
      TerminateOnLastHandleClosed: true,
      ProcessList: [],
    });
    expect(p.Statistics).toMatchObject({ Uptime100ns: 0 });
  });

  it('HcsEnumerateComputeSystems: the matching systems, in creation order', () => {
    const fx = setupHcs();
    created(fx, 'c1');
    running(fx, 'vm', vmDoc());
    created(fx, 'v1', v1ContainerDoc([]));
    const all = ok(fx.host.api.HcsEnumerateComputeSystems(''));
    expect(all.map((p) => p.Id)).toEqual(['c1', 'vm', 'v1']);
    expect(ok(fx.host.api.HcsEnumerateComputeSystems()).length).toBe(3);
    const vms = ok(fx.host.api.HcsEnumerateComputeSystems({ Types: ['VirtualMachine'] }));
    expect(vms.map((p) => [p.Id, p.State])).toEqual([['vm', 'Running']]);
    const docker = ok(fx.host.api.HcsEnumerateComputeSystems('{"Owners":["docker"]}'));
    expect(docker.map((p) => p.Id)).toEqual(['v1']);
    expect(ok(fx.host.api.HcsEnumerateComputeSystems({ Ids: ['C1'] })).map((p) => p.Id)).toEqual(['c1']);
  });

  it('HcsCloseComputeSystem: a stopped system is gone; a running one without terminate-on-close stays', () => {
    const fx = setupHcs();
    stopped(fx);
    expect(ok(fx.host.api.HcsCloseComputeSystem('c1'))).toBeNull();
    expect(failed(fx.host.api.HcsGetComputeSystemProperties('c1', '')).name).toBe('HCS_E_SYSTEM_NOT_FOUND');
    running(fx, 'keep', containerDoc(fx.ns, { ShouldTerminateOnLastHandleClosed: false }));
    ok(fx.host.api.HcsCloseComputeSystem('keep'));
    expect(stateOf(fx.host, 'keep')).toBe('Running');
    running(fx, 'vm', vmDoc()); // ShouldTerminateOnLastHandleClosed: the last close terminates it
    ok(fx.host.api.HcsCloseComputeSystem('vm'));
    expect(failed(fx.host.api.HcsGetComputeSystemProperties('vm', '')).name).toBe('HCS_E_SYSTEM_NOT_FOUND');
  });

  it('every Hcs* call is reported as an api.call event with its HRESULT', () => {
    const fx = setupHcs('vmcompute');
    const seen: [string, number][] = [];
    fx.host.events.on('api.call', (e) => seen.push([e.method, e.hresult]));
    created(fx);
    fx.host.api.HcsStartComputeSystem('nope', '');
    expect(seen).toEqual([
      ['HcsCreateComputeSystem', 0],
      ['HcsStartComputeSystem', 0xc037010e],
    ]);
  });
});

describe('spelling rules', () => {
  it('vmcompute spells an HCS_E_ code by its ERROR_VMCOMPUTE_ twin (found by value: names can differ)', () => {
    const t = spellHcsError(new HnsError('HCS_E_CONNECTION_TIMEOUT', 'x'), 'vmcompute');
    expect([t.code, t.hresult, t.detail]).toEqual(['ERROR_VMCOMPUTE_TIMEOUT', 0xc0370109, 'x']);
    const u = spellHcsError(new HnsError('HCS_E_UNEXPECTED_EXIT'), 'vmcompute');
    expect([u.code, u.hresult]).toEqual(['ERROR_VMCOMPUTE_UNEXPECTED_EXIT', 0xc0370106]);
  });

  it('codes with no 0xC037 twin stay 0x8037… on vmcompute (HCS_E_PROCESS_ALREADY_STOPPED, as hcsshim expects)', () => {
    for (const [name, hr] of [
      ['HCS_E_PROCESS_ALREADY_STOPPED', 0x8037011f],
      ['HCS_E_SERVICE_DISCONNECT', 0x8037011e],
      ['HCS_E_OPERATION_PENDING', 0x80370117],
      ['HCS_E_ACCESS_DENIED', 0x8037011b],
    ] as const) {
      const e = spellHcsError(new HnsError(name), 'vmcompute');
      expect([e.code, e.hresult]).toEqual([name, hr]);
    }
  });

  it('HNS and Win32 codes stay as they are; computecore changes nothing', () => {
    for (const name of [
      'HCN_E_ENDPOINT_NOT_FOUND',
      'ERROR_NOT_FOUND',
      'E_INVALIDARG',
      'ERROR_NOT_SUPPORTED',
    ] as const)
      expect(spellHcsError(new HnsError(name), 'vmcompute').code).toBe(name);
    expect(spellHcsError(new HnsError('HCS_E_INVALID_STATE'), 'computecore').hresult).toBe(0x80370105);
  });

  it('a code injected by a fault rule is delivered as injected (the flat API never sees the call)', async () => {
    const fx = setupHcs('vmcompute');
    created(fx);
    fx.host.faults.fail({ method: 'HcsStartComputeSystem' }, 'HCS_E_INVALID_STATE', { times: 1 });
    const r = await fx.host.transport.call({ method: 'HcsStartComputeSystem', args: ['c1', ''] });
    expect(failed(r)).toEqual({ hr: 0x80370105, name: 'HCS_E_INVALID_STATE' });
    expect(stateOf(fx.host, 'c1')).toBe('Created');
  });

  it('an unknown hcs.api is E_INVALIDARG at createHost', () => {
    expect(() => createHost({ hcs: { api: 'hcsdiag' as HcsApi } })).toThrow(
      expect.objectContaining({ code: 'E_INVALIDARG' }),
    );
  });
});

describe('the Hcs* functions beside HNS', () => {
  it('are flat API methods (JSON-RPC and the fault layer see them)', () => {
    const hcs = FLAT_API_METHODS.filter((m) => isHcsMethod(m));
    expect(hcs).toEqual([
      'HcsCreateComputeSystem',
      'HcsStartComputeSystem',
      'HcsShutdownComputeSystem',
      'HcsTerminateComputeSystem',
      'HcsPauseComputeSystem',
      'HcsResumeComputeSystem',
      'HcsModifyComputeSystem',
      'HcsGetComputeSystemProperties',
      'HcsEnumerateComputeSystems',
      'HcsCloseComputeSystem',
    ]);
    expect(isHcsMethod('HcnCreateNetwork')).toBe(false);
    expect(isHcsMethod('HcsOpenComputeSystem')).toBe(false);
  });

  it('an HNS restart window does not stop vmcompute: Hcs* calls are answered, Hcn* ones are not', () => {
    const fx = setupHcs();
    fx.host.restartHns({ downtimeMs: 1000 });
    expect(failed(fx.host.api.HcnEnumerateNetworks('')).name).toBe('RPC_S_SERVER_UNAVAILABLE');
    expect(ok(fx.host.api.HcsCreateComputeSystem('vm', vmDoc())).State).toBe('Created');
    expect(ok(fx.host.api.HcsEnumerateComputeSystems('')).map((p) => p.Id)).toEqual(['vm']);
  });

  it('a FlatApi built without a Host Compute Service answers HCS_E_SERVICE_NOT_AVAILABLE', async () => {
    const { FlatApi } = await import('../../src/api/flat.js');
    const host = createHost();
    const bare = new FlatApi(host.hns);
    expect(failed(bare.HcsEnumerateComputeSystems(''))).toEqual({
      hr: 0x80370114,
      name: 'HCS_E_SERVICE_NOT_AVAILABLE',
    });
  });
});
