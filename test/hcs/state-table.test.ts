/**
 * The HCS state × operation table (reference hcs-lifecycle.md §1 "State × operation table", §8
 * gaps), exhaustively: every state a system can be brought to (Created, Running, Paused, Stopped)
 * × every operation (Start, Pause, Resume, Shutdown, Terminate, Modify as a v1 network add and as a
 * VM NIC add, GetProperties plain and with Statistics, InjectExit, Close) × each system kind (a
 * process-isolated container, a v1 Hyper-V container `HvPartition:true`, a utility VM), through
 * `host.hcs`. Each cell gives the resulting state, exit type and notifications, or the error's name
 * and HRESULT. After every failing call (and every read-only one) `host.snapshot()` is unchanged and
 * no notification was sent.
 *
 * Where the cells come from. [D]/[C]/[I] cells are the reference's. [inf] cells are the defaults
 * src/hcs/service.ts documents; the cells an `HcsOptions` switch changes are marked `option:` and
 * run again under that option below:
 * - Shutdown × Created: like Terminate, ForcedExit (`shutdownCreated`, 'invalid' → INVALID_STATE);
 * - Modify × Created: applied (`modifyCreated`, 'invalid' → INVALID_STATE);
 * - Start × Stopped: INVALID_STATE (`startStopped`, 'alreadyStopped' → SYSTEM_ALREADY_STOPPED).
 * Other [inf] cells the module fixes without an option: Start/Resume/InjectExit in a wrong state →
 * INVALID_STATE; Shutdown × Paused → INVALID_STATE; Terminate × Paused → ForcedExit; Modify × Paused
 * → INVALID_STATE; Statistics × Created → INVALID_STATE (kubelet saw 0xC0370105 or 0x5); Pause of a
 * process-isolated container → ERROR_NOT_SUPPORTED (0x32, docker/for-win#832) in every state, the
 * kind being checked before the state; Modify of the wrong kind (a v1 network add to a VM, a NIC add
 * to a container) → ERROR_NOT_SUPPORTED once the state allows a Modify.
 *
 * A process-isolated container cannot be paused, so it has no Paused row.
 */
import { describe, expect, it } from 'vitest';
import { HnsError, HRESULTS, type HResultName } from '../../src/core/errors.js';
import type { HcsNotificationEvent } from '../../src/core/events.js';
import type { JsonObject } from '../../src/core/json.js';
import type { ExitType, SystemState } from '../../src/hcs/model.js';
import type { HcsOptions } from '../../src/hcs/service.js';
import { createHost, type Host } from '../../src/host/host.js';
import { ok } from '../api/hcs-helpers.js';

// ───────────────────────────── the systems ─────────────────────────────

type Kind = 'process' | 'hyperv' | 'uvm';
const KINDS: readonly Kind[] = ['process', 'hyperv', 'uvm'];

const ID = 'sys1';

/** Create documents: schema 2 Container, schema 1 ContainerConfig with HvPartition, schema 2 VirtualMachine. */
const DOCS: Readonly<Record<Kind, JsonObject>> = {
  process: {
    SchemaVersion: { Major: 2, Minor: 1 },
    Owner: 'containerd-shim-runhcs-v1.exe',
    Container: { Storage: {}, Networking: { AllowUnqualifiedDnsQuery: true } },
  },
  hyperv: {
    SystemType: 'Container',
    Name: ID,
    Owner: 'docker',
    HvPartition: true,
    HvRuntime: { ImagePath: 'C:\\ProgramData\\docker\\windowsfilter\\base\\UtilityVM' },
  },
  uvm: {
    SchemaVersion: { Major: 2, Minor: 1 },
    Owner: 'containerd-shim-runhcs-v1.exe',
    ShouldTerminateOnLastHandleClosed: true,
    VirtualMachine: { Chipset: {}, ComputeTopology: {}, Devices: {} },
  },
};

const NIC = '5C1D0A55-0000-4000-8000-00000000A1C1';

type Op =
  | 'Start'
  | 'Pause'
  | 'Resume'
  | 'Shutdown'
  | 'Terminate'
  | 'Modify v1 network Add'
  | 'Modify NIC Add'
  | 'GetProperties'
  | 'GetProperties Statistics'
  | 'InjectExit'
  | 'Close';
const OPS: readonly Op[] = [
  'Start',
  'Pause',
  'Resume',
  'Shutdown',
  'Terminate',
  'Modify v1 network Add',
  'Modify NIC Add',
  'GetProperties',
  'GetProperties Statistics',
  'InjectExit',
  'Close',
];

// ───────────────────────────── the table ─────────────────────────────

interface Note {
  readonly notification: string;
  readonly data?: Readonly<Record<string, string | number>>;
}
interface Success {
  /** The state afterwards; `gone` when the ID no longer names a system. */
  readonly state: SystemState | 'gone';
  /** `ExitType` once stopped. */
  readonly exitType?: ExitType;
  readonly notes: readonly Note[];
  /** What Close returns (whether the ID is gone). */
  readonly closed?: boolean;
}
interface Failure {
  readonly error: HResultName;
  readonly hresult: number;
}
type Cell = Success | Failure;

const isFailureCell = (c: Cell): c is Failure => 'error' in c;

function to(state: SystemState | 'gone', ...notes: Note[]): Success {
  return { state, notes };
}
function stopped(exitType: ExitType, ...notes: Note[]): Success {
  return { state: 'Stopped', exitType, notes };
}
function closes(state: SystemState | 'gone', closed: boolean, ...notes: Note[]): Success {
  return { state, closed, notes };
}
const note = (notification: string): Note => ({ notification });
const exited = (ExitType: ExitType, Status = 0): Note => ({
  notification: 'SystemExited',
  data: { Status, ExitType },
});
/** HCS_E_UNEXPECTED_EXIT 0x80370106 as the signed Status of SystemExitStatus (reference §2). */
const UNEXPECTED = -2143878906;

const INVALID_STATE: Failure = { error: 'HCS_E_INVALID_STATE', hresult: 0x80370105 };
const ALREADY_STOPPED: Failure = { error: 'HCS_E_SYSTEM_ALREADY_STOPPED', hresult: 0x80370110 };
const NOT_SUPPORTED: Failure = { error: 'ERROR_NOT_SUPPORTED', hresult: 0x80070032 };

const START = note('SystemStartCompleted');
const PAUSE = note('SystemPauseCompleted');
const RESUME = note('SystemResumeCompleted');
const MODIFY = note('SystemModifyCompleted');

type Row = Readonly<Record<Op, Cell>>;
type Table = Readonly<Record<Kind, Partial<Readonly<Record<SystemState, Row>>>>>;

/** Rows shared by the kinds; the kind-specific cells are spread over them. */
const created: Row = {
  Start: to('Running', START), // [C]
  Pause: INVALID_STATE, // [inf]
  Resume: INVALID_STATE, // [inf]
  Shutdown: stopped('ForcedExit', exited('ForcedExit')), // [inf] like Terminate — option: shutdownCreated
  Terminate: stopped('ForcedExit', exited('ForcedExit')), // [inf], [T] uvm_test "close created"
  'Modify v1 network Add': to('Created', MODIFY), // [inf] — option: modifyCreated
  'Modify NIC Add': NOT_SUPPORTED, // a container has no NICs
  GetProperties: to('Created'), // [D]
  'GetProperties Statistics': INVALID_STATE, // [C kubelet] 0xC0370105 (or 0x5)
  InjectExit: INVALID_STATE, // a system that never started cannot exit
  Close: closes('Created', false), // [D] keeps running (no TerminateOnLastHandleClosed), no notification
};
const running: Row = {
  Start: INVALID_STATE, // [inf]
  Pause: to('Paused', PAUSE), // [C]
  Resume: INVALID_STATE, // [inf]
  Shutdown: stopped('GracefulExit', exited('GracefulExit')), // [D]
  Terminate: stopped('ForcedExit', exited('ForcedExit')), // [D]
  'Modify v1 network Add': to('Running', MODIFY), // [C] applied
  'Modify NIC Add': NOT_SUPPORTED,
  GetProperties: to('Running'),
  'GetProperties Statistics': to('Running'),
  InjectExit: stopped('UnexpectedExit', exited('UnexpectedExit', UNEXPECTED)), // [C] §2
  Close: closes('Running', false), // [D]
};
const paused: Row = {
  Start: INVALID_STATE, // [inf]
  Pause: INVALID_STATE, // [inf]
  Resume: to('Running', RESUME), // [C]
  Shutdown: INVALID_STATE, // [inf] the guest cannot shut down while paused
  Terminate: stopped('ForcedExit', exited('ForcedExit')), // [inf]
  'Modify v1 network Add': INVALID_STATE, // [inf]
  'Modify NIC Add': INVALID_STATE, // [inf] (the state is checked before the kind)
  GetProperties: to('Paused'),
  'GetProperties Statistics': to('Paused'),
  InjectExit: stopped('UnexpectedExit', exited('UnexpectedExit', UNEXPECTED)),
  Close: closes('Paused', false),
};
const stoppedRow: Row = {
  Start: INVALID_STATE, // [inf] — option: startStopped
  Pause: INVALID_STATE, // [inf]
  Resume: INVALID_STATE, // [inf]
  Shutdown: ALREADY_STOPPED, // [D]
  Terminate: ALREADY_STOPPED, // [D][C]
  'Modify v1 network Add': ALREADY_STOPPED, // [C] 0x80370110 on v2
  'Modify NIC Add': ALREADY_STOPPED, // [C]
  GetProperties: stopped('GracefulExit'), // [inf] Stopped:true with ExitType
  'GetProperties Statistics': stopped('GracefulExit'),
  InjectExit: INVALID_STATE,
  Close: closes('gone', true), // [C] Stopped + last handle → ID gone, no notification
};

/** The Stopped row's systems were stopped by Shutdown from Running (so their ExitType is GracefulExit). */
const TABLE: Table = {
  process: {
    // Pause: 0x32 "not supported" for a process-isolated container [I docker/for-win#832], in every state
    Created: { ...created, Pause: NOT_SUPPORTED },
    Running: { ...running, Pause: NOT_SUPPORTED },
    Stopped: { ...stoppedRow, Pause: NOT_SUPPORTED },
  },
  hyperv: {
    Created: created,
    Running: running,
    Paused: paused,
    Stopped: stoppedRow,
  },
  uvm: {
    // a VM takes adapters by ResourcePath, not the v1 network request; ShouldTerminateOnLastHandleClosed
    Created: {
      ...created,
      'Modify v1 network Add': NOT_SUPPORTED,
      'Modify NIC Add': to('Created', MODIFY), // [inf] — option: modifyCreated
      Close: closes('gone', true, exited('ForcedExit')), // [D] the last close force-terminates
    },
    Running: {
      ...running,
      'Modify v1 network Add': NOT_SUPPORTED,
      'Modify NIC Add': to('Running', MODIFY), // [C] hot-add
      Close: closes('gone', true, exited('ForcedExit')),
    },
    Paused: { ...paused, Close: closes('gone', true, exited('ForcedExit')) },
    Stopped: stoppedRow,
  },
};

/** The cells each option changes (every other cell must stay as in TABLE). */
interface Variant {
  readonly options: HcsOptions;
  readonly cells: readonly { kind: Kind; state: SystemState; op: Op; cell: Cell }[];
}
const VARIANTS: readonly Variant[] = [
  {
    options: { shutdownCreated: 'invalid' },
    cells: KINDS.map((kind) => ({ kind, state: 'Created', op: 'Shutdown', cell: INVALID_STATE })),
  },
  {
    // the state is checked before the kind: a NIC add to a Created container is INVALID_STATE too
    options: { modifyCreated: 'invalid' },
    cells: KINDS.flatMap((kind) =>
      (['Modify v1 network Add', 'Modify NIC Add'] as const).map((op) => ({
        kind,
        state: 'Created' as const,
        op,
        cell: INVALID_STATE,
      })),
    ),
  },
  {
    options: { startStopped: 'alreadyStopped' },
    cells: KINDS.map((kind) => ({ kind, state: 'Stopped', op: 'Start', cell: ALREADY_STOPPED })),
  },
];

/** vmcompute HCS_NOTIFICATIONS codes (reference §1) of the notifications in the table. */
const CODES: Readonly<Record<string, number>> = {
  SystemExited: 0x1,
  SystemCreateCompleted: 0x2,
  SystemStartCompleted: 0x3,
  SystemPauseCompleted: 0x4,
  SystemResumeCompleted: 0x5,
  SystemModifyCompleted: 0xc,
};

// ───────────────────────────── running a cell ─────────────────────────────

interface Env {
  readonly host: Host;
  /** The endpoint of the v1 network add. */
  readonly v1Endpoint: string;
  /** The endpoint of the NIC add. */
  readonly nicEndpoint: string;
}

function setup(kind: Kind, state: SystemState, options?: HcsOptions): Env {
  const host = createHost({ seed: 11, ...(options ? { hcs: options } : {}) });
  const net = ok(host.api.HcnCreateNetwork(null, { Name: 'nat', Type: 'NAT' }), 'HcnCreateNetwork');
  const ep = (Name: string) => ok(host.api.HcnCreateEndpoint(net.ID, null, { Name }), 'HcnCreateEndpoint').ID;
  const env = { host, v1Endpoint: ep('v1'), nicEndpoint: ep('nic') };
  host.hcs.create(ID, DOCS[kind]);
  if (state !== 'Created') host.hcs.start(ID);
  if (state === 'Paused') host.hcs.pause(ID);
  if (state === 'Stopped') host.hcs.shutdown(ID);
  expect(host.hcs.get(ID).state).toBe(state);
  return env;
}

function run(env: Env, op: Op): unknown {
  const hcs = env.host.hcs;
  switch (op) {
    case 'Start':
      return hcs.start(ID);
    case 'Pause':
      return hcs.pause(ID);
    case 'Resume':
      return hcs.resume(ID);
    case 'Shutdown':
      return hcs.shutdown(ID);
    case 'Terminate':
      return hcs.terminate(ID);
    case 'Modify v1 network Add':
      // hcsshim HotAttachEndpoint: the endpoint ID is the Settings string (reference §4)
      return hcs.modify(ID, { ResourceType: 'Network', RequestType: 'Add', Settings: env.v1Endpoint });
    case 'Modify NIC Add':
      return hcs.modify(ID, {
        ResourcePath: `VirtualMachine/Devices/NetworkAdapters/${NIC}`,
        RequestType: 'Add',
        Settings: { EndpointId: env.nicEndpoint, MacAddress: '00-15-5D-AA-BB-CC' },
      });
    case 'GetProperties':
      return hcs.properties(ID);
    case 'GetProperties Statistics':
      return hcs.properties(ID, { PropertyTypes: ['Statistics'] });
    case 'InjectExit':
      return hcs.injectExit(ID);
    case 'Close':
      return hcs.close(ID);
  }
}

function checkCell(kind: Kind, state: SystemState, op: Op, want: Cell, options?: HcsOptions): void {
  const env = setup(kind, state, options);
  const { host } = env;
  const notes: HcsNotificationEvent[] = [];
  host.events.on('hcs.notification', (e) => notes.push(e));
  const before = host.snapshot();
  let result: unknown;
  let error: unknown;
  try {
    result = run(env, op);
  } catch (e) {
    error = e;
  }

  if (isFailureCell(want)) {
    expect(error, `${op} should fail`).toBeInstanceOf(HnsError);
    const e = error as HnsError;
    expect({ code: e.code, hresult: e.hresult }).toEqual({ code: want.error, hresult: want.hresult });
    expect(HRESULTS[want.error].code).toBe(want.hresult);
    expect(notes).toEqual([]);
    expect(host.snapshot()).toEqual(before);
    return;
  }

  if (error) throw error;
  const rec = host.hcs.systems.get(ID.toLowerCase());
  expect(rec?.state ?? 'gone').toBe(want.state);
  if (rec && want.exitType) expect(rec.exitType).toBe(want.exitType);
  if (rec && rec.state !== 'Stopped') expect(rec.exitType).toBe('None');
  expect(notes.map((n) => (n.data ? { notification: n.notification, data: n.data } : n))).toEqual(
    want.notes.map((n) => expect.objectContaining(n)),
  );
  for (const n of notes) {
    expect(n.system).toBe(ID);
    expect(n.code).toBe(CODES[n.notification]);
  }

  switch (op) {
    case 'Close':
      expect(result).toBe(want.closed);
      if (!want.closed) expect(host.snapshot()).toEqual(before);
      else
        expect(() => host.hcs.get(ID)).toThrow(expect.objectContaining({ code: 'HCS_E_SYSTEM_NOT_FOUND' }));
      break;
    case 'GetProperties':
    case 'GetProperties Statistics': {
      // read-only: Id and SystemType always, Stopped and ExitType once stopped (reference §3)
      expect(host.snapshot()).toEqual(before);
      const doc = result as JsonObject;
      expect(doc).toMatchObject({
        Id: ID,
        SystemType: kind === 'uvm' ? 'VirtualMachine' : 'Container',
        State: state,
        Stopped: state === 'Stopped',
      });
      if (state === 'Stopped') expect(doc.ExitType).toBe(want.exitType);
      else expect(doc).not.toHaveProperty('ExitType');
      if (op === 'GetProperties Statistics') expect(doc.Statistics).toMatchObject({ Uptime100ns: 0 });
      else expect(doc).not.toHaveProperty('Statistics');
      break;
    }
    case 'Modify v1 network Add':
      // the endpoint's SharedContainers gains the container (what hcsshim's HotAttachEndpoint reads)
      expect(host.hns.store.endpoints.get(env.v1Endpoint)!.SharedContainers).toEqual([ID]);
      break;
    case 'Modify NIC Add': {
      const vm = host.hcs.get(ID);
      expect(vm.nics).toEqual([{ nicId: NIC, endpointId: env.nicEndpoint, macAddress: '00-15-5D-AA-BB-CC' }]);
      // a Created VM's NIC gets its VM switch port when the VM starts (docs/model.md, "HCS")
      if (vm.state === 'Created')
        expect(host.hns.store.endpoints.get(env.nicEndpoint)!.VmPort).toBeUndefined();
      else expect(host.hns.store.endpoints.get(env.nicEndpoint)!.VmPort?.VirtualMachineId).toBe(vm.runtimeId);
      break;
    }
    default:
      if (want.state === 'Stopped') {
        const exit = host.hcs.properties(ID);
        expect(exit).toMatchObject({ State: 'Stopped', Stopped: true, ExitType: want.exitType });
      }
  }
}

function cellsOf(kind: Kind): { state: SystemState; op: Op; cell: Cell }[] {
  const rows = TABLE[kind];
  return (['Created', 'Running', 'Paused', 'Stopped'] as const).flatMap((state) => {
    const row = rows[state];
    return row ? OPS.map((op) => ({ state, op, cell: row[op] })) : [];
  });
}

function label(cell: Cell): string {
  if (isFailureCell(cell)) return `${cell.error} 0x${cell.hresult.toString(16).toUpperCase()}`;
  const notes = cell.notes.map((n) => n.notification).join(', ');
  return `→ ${cell.state}${cell.exitType ? ` (${cell.exitType})` : ''}${notes ? ` [${notes}]` : ''}`;
}

// ───────────────────────────── the tests ─────────────────────────────

describe('HCS state × operation table (default options)', () => {
  for (const kind of KINDS) {
    describe(kind, () => {
      for (const { state, op, cell } of cellsOf(kind)) {
        it(`${state} × ${op}: ${label(cell)}`, () => checkCell(kind, state, op, cell));
      }
    });
  }

  it('covers every state of the Hyper-V container and the VM, and all but Paused of a process container', () => {
    expect(cellsOf('hyperv')).toHaveLength(4 * OPS.length);
    expect(cellsOf('uvm')).toHaveLength(4 * OPS.length);
    expect(cellsOf('process')).toHaveLength(3 * OPS.length);
  });

  it('a process-isolated container never reaches Paused (Pause is not supported, 0x32)', () => {
    const { host } = setup('process', 'Running');
    expect(() => host.hcs.pause(ID)).toThrow(expect.objectContaining({ code: 'ERROR_NOT_SUPPORTED' }));
    expect(host.hcs.get(ID).state).toBe('Running');
  });

  it('Create of an ID in use, in any state, is HCS_E_SYSTEM_ALREADY_EXISTS (0x8037010F) and changes nothing', () => {
    for (const kind of KINDS)
      for (const state of ['Created', 'Running', 'Stopped'] as const) {
        const { host } = setup(kind, state);
        const before = host.snapshot();
        expect(() => host.hcs.create(ID.toUpperCase(), DOCS.process)).toThrow(
          expect.objectContaining({ code: 'HCS_E_SYSTEM_ALREADY_EXISTS', hresult: 0x8037010f }),
        );
        expect(host.snapshot()).toEqual(before);
      }
  });

  it('an operation on a closed (gone) system is HCS_E_SYSTEM_NOT_FOUND (0x8037010E)', () => {
    const { host } = setup('process', 'Stopped');
    host.hcs.close(ID);
    const before = host.snapshot();
    for (const op of OPS) {
      const env = { host, v1Endpoint: '', nicEndpoint: '' };
      expect(() => run(env, op), op).toThrow(
        expect.objectContaining({ code: 'HCS_E_SYSTEM_NOT_FOUND', hresult: 0x8037010e }),
      );
    }
    expect(host.snapshot()).toEqual(before);
  });
});

for (const v of VARIANTS) {
  describe(`HCS state × operation table with ${JSON.stringify(v.options)}`, () => {
    for (const kind of KINDS) {
      it(`${kind}: the option's cells change, every other cell is as by default`, () => {
        const mine = v.cells.filter((c) => c.kind === kind);
        expect(mine.length).toBeGreaterThan(0);
        for (const { state, op, cell } of cellsOf(kind)) {
          const changed = mine.find((c) => c.state === state && c.op === op);
          if (changed) expect(changed.cell).not.toEqual(cell);
          checkCell(kind, state, op, changed?.cell ?? cell, v.options);
        }
      });
    }
  });
}

// ───────────────────────────── gaps the table exposes ─────────────────────────────

describe('Modify × Created of a utility VM (reference §8 gap 2; default modifyCreated: apply)', () => {
  // Regression (fixed; was src/hcs/service.ts, modifyNic → attachPort, and start's "for (const nic of rec.nics) … if
  // (e.VmPort) throw"): a NIC hot-added while the VM is Created gets its HNS VM port at once; Start
  // then finds that very port on the endpoint and refuses with HCN_E_ENDPOINT_ALREADY_ATTACHED, so a
  // VM given a NIC before Start can never start. Applied (the module's documented default) must mean
  // the VM starts with the NIC attached, as a NIC of its create document does.
  it('a VM given a NIC while Created starts, with the NIC and its port', () => {
    const env = setup('uvm', 'Created');
    run(env, 'Modify NIC Add');
    const vm = env.host.hcs.start(ID);
    expect(vm.state).toBe('Running');
    expect(vm.nics.map((n) => n.endpointId)).toEqual([env.nicEndpoint]);
    expect(env.host.hns.store.endpoints.get(env.nicEndpoint)!.VmPort?.VirtualMachineId).toBe(vm.runtimeId);
  });

  it('a VM given its NIC in the create document gets the port at Start, not before', () => {
    const host = createHost({ seed: 11 });
    const net = ok(host.api.HcnCreateNetwork(null, { Name: 'nat', Type: 'NAT' }), 'net');
    const ep = ok(host.api.HcnCreateEndpoint(net.ID, null, { Name: 'e' }), 'ep').ID;
    const doc = structuredClone(DOCS.uvm) as { VirtualMachine: { Devices: JsonObject } };
    doc.VirtualMachine.Devices = { NetworkAdapters: { [NIC]: { EndpointId: ep } } };
    host.hcs.create(ID, doc as unknown as JsonObject);
    expect(host.hns.store.endpoints.get(ep)!.VmPort).toBeUndefined();
    const vm = host.hcs.start(ID);
    expect(host.hns.store.endpoints.get(ep)!.VmPort?.VirtualMachineId).toBe(vm.runtimeId);
    expect(host.hcs.attachedEndpoints(vm)).toEqual([ep]);
  });
});
