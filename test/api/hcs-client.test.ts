// The typed HCS client (hcsshim's internal/hcs/v2 in TypeScript): the flows a runtime runs, the
// errors it throws (SystemError "<op> <id>: <text>"), hcsshim's predicates in both spellings, the
// wait for an exit (notifications), Shutdown/Terminate swallowing already-stopped as hcsshim does,
// and ErrAlreadyClosed after close.
import { describe, expect, it } from 'vitest';
import {
  AlreadyClosedError,
  HcsClient,
  HcsClientError,
  HcsError,
  isAccessIsDenied,
  isAlreadyClosed,
  isAlreadyStopped,
  isErrorInvalidHandle,
  isNotExist,
  isNotSupported,
  isOperationInvalidState,
  isPending,
  SystemError,
  UnexpectedProcessAbortError,
  type System,
} from '../../src/api/hcs/index.js';
import type { HcsApi } from '../../src/api/flat.js';
import { HnsError } from '../../src/core/errors.js';
import { HcnClient, HcnError } from '../../src/api/hcn/index.js';
import { createHost } from '../../src/host/host.js';
import { RecordingTransport } from './hcn/helpers.js';
import { containerDoc, ok, setupHcs, v1ContainerDoc, vmDoc } from './hcs-helpers.js';

/** The rejection of `p` (fails the test if it resolves). */
async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(Error);
    return e as Error;
  }
  throw new Error('expected the promise to reject');
}

function track<T>(p: Promise<T>): { readonly done: boolean; readonly value?: T; readonly p: Promise<T> } {
  const state: { done: boolean; value?: T; p: Promise<T> } = { done: false, p };
  p.then(
    (v) => {
      state.done = true;
      state.value = v;
    },
    () => (state.done = true),
  );
  return state;
}

const settle = () => new Promise<void>((r) => setImmediate(r));

function setup(api: HcsApi = 'computecore') {
  const fx = setupHcs(api);
  const rec = new RecordingTransport(fx.host.transport);
  const hcs = new HcsClient(rec, { notifications: fx.host.events });
  return { ...fx, rec, hcs };
}

describe('HcsClient flows', () => {
  it('the docs/api.md example', async () => {
    const host = createHost({ seed: 1 });
    const ns = await HcnClient.forHost(host).newNamespace('Host').create();
    const hcs = HcsClient.forHost(host);
    const c = await hcs.createComputeSystem('c1', {
      Owner: 'containerd-shim-runhcs-v1.exe',
      SchemaVersion: { Major: 2, Minor: 1 },
      Container: { Networking: { Namespace: ns.ID } },
    });
    await c.start();
    expect(await HcnClient.forHost(host).getNamespaceContainerIds(ns.ID)).toEqual(['c1']);
    host.hcs.injectExit('c1');
    expect(await c.waitExited()).toEqual({ exitType: 'UnexpectedExit', status: 0x80370106 });
    await c.shutdown();
    await c.close();
    const e = await rejection(hcs.openComputeSystem('c1'));
    expect(isNotExist(e)).toBe(true);
    expect(e.message).toBe(
      'hcs::OpenComputeSystem c1: A virtual machine or container with the specified identifier does not exist.',
    );
  });

  it('createComputeSystem → System: create then a properties read (cached), start, properties', async () => {
    const { host, hcs, rec, ns } = setup();
    const c = await hcs.createComputeSystem('c1', containerDoc(ns));
    expect(rec.methods()).toEqual(['HcsCreateComputeSystem', 'HcsGetComputeSystemProperties']);
    // the document crosses as JSON text, as hcsshim marshals it
    expect(JSON.parse(rec.calls[0]!.args[1] as string)).toEqual(containerDoc(ns));
    expect([c.id, c.systemType, c.os, c.owner]).toEqual([
      'c1',
      'container',
      'windows',
      'containerd-shim-runhcs-v1.exe',
    ]);
    await c.start();
    expect(rec.calls.at(-1)).toEqual({ method: 'HcsStartComputeSystem', args: ['c1', ''] });
    expect(host.hcs.get('c1').state).toBe('Running');
    const p = await c.properties({ PropertyTypes: ['Statistics'] });
    expect(p).toMatchObject({ Id: 'c1', State: 'Running' });
    // the query crossed: the Statistics part of a running container (nothing has run: uptime 0)
    expect(p.Statistics).toMatchObject({ Uptime100ns: 0, Processor: { TotalRuntime100ns: 0 } });
  });

  it('a utility VM: start, pause, resume, modify (NIC hot-add), shutdown', async () => {
    const { host, hcs, eps } = setup();
    const vm = await hcs.createComputeSystem('vm', vmDoc());
    expect(vm.systemType).toBe('virtualmachine');
    await vm.start();
    await vm.pause();
    expect((await vm.properties()).State).toBe('Paused');
    await vm.resume();
    await vm.modify({
      ResourcePath: 'VirtualMachine/Devices/NetworkAdapters/8d1c4b5e-7a47-4c42-9d56-0f2d3c8e9a11',
      RequestType: 'Add',
      Settings: { EndpointId: eps[2], MacAddress: '00-15-5D-00-00-01' },
    });
    expect(host.hns.store.endpoints.get(eps[2]!)?.VmPort).toMatchObject({
      VirtualMachineId: host.hcs.get('vm').runtimeId,
    });
    await vm.shutdown();
    expect(await vm.waitExited()).toEqual({ exitType: 'GracefulExit', status: 0 });
    // its NIC went with it
    expect(host.hns.store.endpoints.get(eps[2]!)?.VmPort).toBeUndefined();
  });

  it('openComputeSystem and getComputeSystems', async () => {
    const { hcs, ns, host } = setup();
    ok(host.api.HcsCreateComputeSystem('c1', containerDoc(ns)));
    ok(host.api.HcsCreateComputeSystem('v1', v1ContainerDoc([])));
    const c = await hcs.openComputeSystem('C1');
    expect([c.id, c.systemType]).toEqual(['C1', 'container']);
    await c.start();
    expect(host.hcs.get('c1').state).toBe('Running');
    const docker = await hcs.getComputeSystems({ Owners: ['docker'] });
    expect(docker.map((p) => [p.Id, p.Name, p.State])).toEqual([['v1', 'v1', 'Created']]);
    expect((await hcs.getComputeSystems()).map((p) => p.Id)).toEqual(['c1', 'v1']);
  });

  it('HcsClient.forHost calls through host.transport and listens to host.events', async () => {
    const { host, ns } = setup();
    const hcs = HcsClient.forHost(host);
    expect(hcs.transport).toBe(host.transport);
    const c = await hcs.createComputeSystem('c1', containerDoc(ns));
    expect(host.events.listenerCount('hcs.notification')).toBe(1);
    await c.start();
    await c.terminate();
    expect((await c.waitExited()).exitType).toBe('ForcedExit');
    await c.close();
    // the last closed system takes the client's listener with it
    expect(host.events.listenerCount('hcs.notification')).toBe(0);
  });
});

describe('errors: SystemError / HcsError as hcsshim words them', () => {
  it('an unknown system: hcs::OpenComputeSystem, isNotExist in both spellings', async () => {
    for (const [api, hr] of [
      ['computecore', 0x8037010e],
      ['vmcompute', 0xc037010e],
    ] as const) {
      const { hcs, host } = setup(api);
      const e = await rejection(hcs.openComputeSystem('gone'));
      expect(e).toBeInstanceOf(SystemError);
      expect(e).toBeInstanceOf(HnsError);
      const s = e as SystemError;
      expect([s.op, s.id, s.hresult, s.errno]).toEqual(['hcs::OpenComputeSystem', 'gone', hr, hr]);
      expect(s.message).toBe(
        'hcs::OpenComputeSystem gone: A virtual machine or container with the specified identifier does not exist.',
      );
      expect(s.detail).toContain('gone');
      expect(isNotExist(e)).toBe(true);
      expect(isAlreadyStopped(e)).toBe(false);
      // a failed open leaves no listener behind
      expect(host.events.listenerCount('hcs.notification')).toBe(0);
    }
  });

  it('start of a running system: isOperationInvalidState in both spellings (0x80370105, 0xC0370105)', async () => {
    for (const [api, hr] of [
      ['computecore', 0x80370105],
      ['vmcompute', 0xc0370105],
    ] as const) {
      const { hcs, ns } = setup(api);
      const c = await hcs.createComputeSystem('c1', containerDoc(ns));
      await c.start();
      const e = (await rejection(c.start())) as SystemError;
      expect([e.op, e.hresult]).toEqual(['hcs::System::Start', hr]);
      expect(e.message).toBe(
        'hcs::System::Start c1: The requested virtual machine or container operation is not valid in the current state.',
      );
      expect(isOperationInvalidState(e)).toBe(true);
    }
  });

  it('pause of a process-isolated container: 0x32, isNotSupported', async () => {
    const { hcs, ns } = setup('vmcompute');
    const c = await hcs.createComputeSystem('c1', containerDoc(ns));
    await c.start();
    const e = (await rejection(c.pause())) as SystemError;
    expect([e.op, e.hresult, e.errno]).toEqual(['hcs::System::Pause', 0x80070032, 0x32]);
    expect(e.message).toBe('hcs::System::Pause c1: The request is not supported.');
    expect(isNotSupported(e)).toBe(true);
  });

  it('create with an ID in use: hcs::CreateComputeSystem; the system that holds the ID is not touched', async () => {
    const { hcs, ns, host, rec } = setup('vmcompute');
    const first = await hcs.createComputeSystem('c1', containerDoc(ns));
    await first.start();
    rec.clear();
    const e = (await rejection(hcs.createComputeSystem('c1', containerDoc(ns)))) as SystemError;
    expect([e.op, e.hresult, e.code]).toEqual([
      'hcs::CreateComputeSystem',
      0xc037010f,
      'ERROR_VMCOMPUTE_SYSTEM_ALREADY_EXISTS',
    ]);
    // no handle was opened: no terminate, no close
    expect(rec.methods()).toEqual(['HcsCreateComputeSystem']);
    expect(host.hcs.get('c1').state).toBe('Running');
  });

  it('a failed properties read after create terminates and closes the new system (hcsshim’s cleanup)', async () => {
    const { hcs, host, rec } = setup();
    host.faults.fail({ method: 'HcsGetComputeSystemProperties' }, 'E_ACCESSDENIED', { times: 1 });
    const e = (await rejection(hcs.createComputeSystem('vm', vmDoc()))) as SystemError;
    expect([e.op, e.code]).toEqual(['hcs::System::Properties', 'E_ACCESSDENIED']);
    expect(isAccessIsDenied(e)).toBe(true);
    expect(rec.methods()).toEqual([
      'HcsCreateComputeSystem',
      'HcsGetComputeSystemProperties',
      'HcsTerminateComputeSystem',
      'HcsCloseComputeSystem',
    ]);
    expect(host.hcs.systems.size).toBe(0);
  });

  it('getComputeSystems failures are HcsError (no ID): "hcs::GetComputeSystems: <text>"', async () => {
    const { hcs, host } = setup();
    host.faults.fail({ method: 'HcsEnumerateComputeSystems' }, 0x80070005, { times: 1 });
    const e = (await rejection(hcs.getComputeSystems())) as HcsError;
    expect(e).toBeInstanceOf(HcsError);
    expect(e).not.toBeInstanceOf(SystemError);
    expect(e.message).toBe('hcs::GetComputeSystems: Access is denied.');
    expect(isAccessIsDenied(e)).toBe(true);
  });

  it('an HNS code met by an HCS call is kept (HCN_E_ENDPOINT_ALREADY_ATTACHED on a second hot-attach)', async () => {
    const { hcs, eps } = setup('vmcompute');
    const c = await hcs.createComputeSystem('v1', v1ContainerDoc([eps[1]!]));
    await c.start();
    const e = (await rejection(
      c.modify({ ResourceType: 'Network', RequestType: 'Add', Settings: eps[1] }),
    )) as SystemError;
    expect([e.op, e.hresult]).toEqual(['hcs::System::Modify', 0x803b0014]);
  });
});

describe('waitExited', () => {
  it('resolves when host.hcs.injectExit kills the system: UnexpectedExit, status HCS_E_UNEXPECTED_EXIT', async () => {
    const { hcs, ns, host } = setup();
    const c = await hcs.createComputeSystem('c1', containerDoc(ns));
    await c.start();
    const w = track(c.waitExited());
    await settle();
    expect(w.done).toBe(false);
    host.hcs.injectExit('c1');
    expect(await w.p).toEqual({ exitType: 'UnexpectedExit', status: 0x80370106 });
    // hcsshim's ExitError: the unexpected exit as ErrVmcomputeUnexpectedExit (0xC0370106, both APIs)
    const ee = c.exitError() as SystemError;
    expect([ee.op, ee.hresult]).toEqual(['hcs::System::waitBackground', 0xc0370106]);
    expect(ee.message).toBe(
      'hcs::System::waitBackground c1: The virtual machine or container exited unexpectedly.',
    );
  });

  it('resolves after terminate (ForcedExit) and after shutdown (GracefulExit); exitError is undefined', async () => {
    const { hcs, ns } = setup();
    const a = await hcs.createComputeSystem('a', containerDoc(ns));
    const b = await hcs.createComputeSystem('b', containerDoc(ns));
    await a.start();
    await b.start();
    expect(b.exitError()).toBeInstanceOf(HcsClientError); // "container not exited"
    const wa = a.waitExited();
    await a.terminate();
    await b.shutdown();
    expect(await wa).toEqual({ exitType: 'ForcedExit', status: 0 });
    expect(await b.waitExited()).toEqual({ exitType: 'GracefulExit', status: 0 });
    expect(a.exitError()).toBeUndefined();
  });

  it('a hosted container exits with its utility VM', async () => {
    const { hcs, ns } = setup();
    const vm = await hcs.createComputeSystem('vm', vmDoc());
    await vm.start();
    const c = await hcs.createComputeSystem('c1', {
      SchemaVersion: { Major: 2, Minor: 1 },
      HostingSystemId: 'vm',
      HostedSystem: { SchemaVersion: { Major: 2, Minor: 1 }, Container: { Networking: { Namespace: ns } } },
    });
    await c.start();
    const w = c.waitExited();
    await vm.terminate();
    expect((await w).exitType).toBe('ForcedExit');
  });

  it('resolves at once for a system opened after it stopped', async () => {
    const { hcs, ns, host } = setup();
    ok(host.api.HcsCreateComputeSystem('c1', containerDoc(ns)));
    ok(host.api.HcsStartComputeSystem('c1', ''));
    host.hcs.injectExit('c1', 'UnexpectedExit');
    const c = await hcs.openComputeSystem('c1');
    expect(await c.waitExited()).toEqual({ exitType: 'UnexpectedExit' });
  });

  it('a vmcompute stop (host.restartHcs): the exit comes before the disconnect, so waits resolve ForcedExit', async () => {
    const { hcs, ns, host } = setup();
    const c = await hcs.createComputeSystem('c1', containerDoc(ns));
    await c.start();
    const w = c.waitExited();
    host.restartHcs();
    expect(await w).toEqual({ exitType: 'ForcedExit', status: 0x8037011e });
    // the system is gone: another start is not-exist
    expect(isNotExist(await rejection(c.start()))).toBe(true);
  });

  it('a ServiceDisconnect with no exit first ends the wait with ErrUnexpectedProcessAbort', async () => {
    const { hcs, ns, host } = setup();
    const c = await hcs.createComputeSystem('c1', containerDoc(ns));
    const w = track(c.waitExited());
    host.events.emit('hcs.notification', {
      system: 'c1',
      notification: 'ServiceDisconnect',
      code: 0x01000000,
      event: 0x02000000,
      time: 0,
    });
    const e = (await rejection(w.p)) as SystemError;
    expect(e.message).toBe('hcs::System::waitBackground c1: lost communication with compute service');
    expect(e.cause).toBeInstanceOf(UnexpectedProcessAbortError);
    expect(c.exitError()).toBe(e);
  });

  it('close while waiting rejects the wait with ErrAlreadyClosed; a wait after close too', async () => {
    const { hcs, ns } = setup();
    const c = await hcs.createComputeSystem(
      'c1',
      containerDoc(ns, { ShouldTerminateOnLastHandleClosed: false }),
    );
    await c.start();
    const w = track(c.waitExited());
    await c.close();
    const e = await rejection(w.p);
    expect(e).toBeInstanceOf(AlreadyClosedError);
    expect(e.message).toBe('hcsshim: the handle has already been closed');
    expect(isAlreadyClosed(e)).toBe(true);
    expect(isAlreadyClosed(await rejection(c.waitExited()))).toBe(true);
  });

  it('without notifications: a stopped system resolves from its state, a running one cannot be waited for', async () => {
    const { host, ns } = setup();
    const hcs = new HcsClient(host.transport);
    const c = await hcs.createComputeSystem('c1', containerDoc(ns));
    await c.start();
    const e = await rejection(c.waitExited());
    expect(e).toBeInstanceOf(HcsClientError);
    expect((e as HcsClientError).code).toBe('E_NOTIMPL');
    ok(host.api.HcsTerminateComputeSystem('c1', ''));
    expect(await c.waitExited()).toEqual({ exitType: 'ForcedExit' });
  });
});

describe('Shutdown and Terminate of an already-stopped system resolve (hcsshim returns nil)', () => {
  for (const [api, stoppedHr, goneHr] of [
    ['computecore', 0x80370110, 0x8037010e],
    ['vmcompute', 0xc0370110, 0xc037010e],
  ] as const) {
    it(`${api}: HCS answers ${stoppedHr.toString(16)} / ${goneHr.toString(16)} and the client swallows it`, async () => {
      const { host, ns } = setup(api);
      // a client without notifications has not seen the exit, so it does call HCS
      const rec = new RecordingTransport(host.transport);
      const hcs = new HcsClient(rec);
      const c = await hcs.createComputeSystem('c1', containerDoc(ns));
      await c.start();
      ok(host.api.HcsTerminateComputeSystem('c1', '')); // another handle stops it
      const direct = host.api.HcsShutdownComputeSystem('c1', '');
      expect(direct.ok ? 0 : direct.hr).toBe(stoppedHr);
      rec.clear();
      await c.shutdown();
      await c.terminate();
      expect(rec.methods()).toEqual(['HcsShutdownComputeSystem', 'HcsTerminateComputeSystem']);
      // another handle closes it: the ID is gone, terminate still resolves
      ok(host.api.HcsCloseComputeSystem('c1'));
      const gone = host.api.HcsTerminateComputeSystem('c1', '');
      expect(gone.ok ? 0 : gone.hr).toBe(goneHr);
      await c.terminate();
      // other operations are not swallowed
      const e = await rejection(c.start());
      expect(isNotExist(e)).toBe(true);
    });
  }

  it('with notifications the exit was seen: no call is made at all', async () => {
    const { hcs, ns, rec } = setup();
    const c = await hcs.createComputeSystem('c1', containerDoc(ns));
    await c.start();
    await c.terminate();
    rec.clear();
    await c.shutdown();
    await c.terminate();
    expect(rec.methods()).toEqual([]);
  });

  it('a fault-injected pending (0xC0370103) is swallowed too; other stop failures are not', async () => {
    const { hcs, ns, host } = setup();
    const c = await hcs.createComputeSystem('c1', containerDoc(ns));
    await c.start();
    host.faults.fail({ method: 'HcsShutdownComputeSystem' }, 0xc0370103, { times: 1 });
    await c.shutdown();
    host.faults.fail({ method: 'HcsTerminateComputeSystem' }, 'E_ACCESSDENIED', { times: 1 });
    const e = (await rejection(c.terminate())) as SystemError;
    expect([e.op, e.code]).toEqual(['hcs::System::Terminate', 'E_ACCESSDENIED']);
    expect(host.hcs.get('c1').state).toBe('Running');
  });
});

describe('close and ErrAlreadyClosed', () => {
  it('operations after close fail with ErrAlreadyClosed in a SystemError, without calling HCS', async () => {
    const { hcs, ns, rec } = setup();
    const c = await hcs.createComputeSystem('c1', containerDoc(ns));
    await c.close();
    await c.close(); // no double close
    expect(rec.methods().filter((m) => m === 'HcsCloseComputeSystem')).toHaveLength(1);
    rec.clear();
    for (const op of [
      () => c.start(),
      () => c.pause(),
      () => c.resume(),
      () => c.modify({}),
      () => c.properties(),
    ]) {
      const e = (await rejection(op())) as SystemError;
      expect(e).toBeInstanceOf(SystemError);
      expect(e.cause).toBeInstanceOf(AlreadyClosedError);
      expect(e.errno).toBeUndefined();
      expect(isAlreadyClosed(e)).toBe(true);
      // hcsshim's IsErrorInvalidHandle looks for HCS's 0x6, not for its own ErrAlreadyClosed
      expect(isErrorInvalidHandle(e)).toBe(false);
    }
    expect((await rejection(c.start())).message).toBe(
      'hcs::System::Start c1: hcsshim: the handle has already been closed',
    );
    // shutdown and terminate of a closed handle resolve (hcsshim: handle == 0 → nil)
    await c.shutdown();
    await c.terminate();
    expect(rec.methods()).toEqual([]);
  });

  it('close of a Created container with ShouldTerminateOnLastHandleClosed ends it; its ID is free again', async () => {
    const { hcs, ns, host } = setup();
    const c = await hcs.createComputeSystem('c1', containerDoc(ns));
    await c.close();
    expect(host.hcs.systems.size).toBe(0);
    const again = await hcs.createComputeSystem('c1', containerDoc(ns));
    expect(again.id).toBe('c1');
  });
});

describe('hcsshim’s predicates (internal/hcs/errors.go, v2/errors.go, errors_test.go)', () => {
  const wrapped = (hr: number): SystemError => new SystemError('hcs::System::Modify', 'uvm-test', hr);

  it('isAlreadyStopped: 0xC0370110, 0x80370110, 0x8037011F, 0x490 — bare, in SystemError, in HcsError', () => {
    for (const hr of [0xc0370110, 0x80370110, 0x8037011f, 0x80070490]) {
      expect(isAlreadyStopped(new HnsError(hr)), hr.toString(16)).toBe(true);
      expect(isAlreadyStopped(wrapped(hr)), hr.toString(16)).toBe(true);
      expect(isAlreadyStopped(new HcsError('hcs::GetComputeSystems', hr))).toBe(true);
    }
    for (const hr of [0x80370105, 0xc037010e, 0x8037010e]) expect(isAlreadyStopped(wrapped(hr))).toBe(false);
  });

  it('isNotExist: 0xC037010E, 0x490 (hcsshim) and 0x8037010E (computecore’s spelling)', () => {
    for (const hr of [0xc037010e, 0x8037010e, 0x80070490])
      expect(isNotExist(wrapped(hr)), hr.toString(16)).toBe(true);
    for (const hr of [0xc0370110, 0x80370110, 0x803b0002]) expect(isNotExist(wrapped(hr))).toBe(false);
  });

  it('isOperationInvalidState: 0xC0370105, and v2’s ErrInvalidState 0x80370105', () => {
    expect(isOperationInvalidState(wrapped(0xc0370105))).toBe(true);
    expect(isOperationInvalidState(wrapped(0x80370105))).toBe(true);
    expect(isOperationInvalidState(wrapped(0xc0370110))).toBe(false);
  });

  it('isNotSupported: 0xC037010D, 0xD, 0x32, 0xC037010B — not computecore’s 0x8037010D', () => {
    for (const hr of [0xc037010d, 0x8007000d, 0x80070032, 0xc037010b])
      expect(isNotSupported(wrapped(hr)), hr.toString(16)).toBe(true);
    expect(isNotSupported(wrapped(0x8037010d))).toBe(false);
  });

  it('isAlreadyClosed only for ErrAlreadyClosed; isErrorInvalidHandle for HCS’s 0x6; isPending for 0xC0370103', () => {
    expect(isAlreadyClosed(new AlreadyClosedError())).toBe(true);
    expect(isAlreadyClosed(new SystemError('hcs::System::Start', 'c1', new AlreadyClosedError()))).toBe(true);
    expect(isAlreadyClosed(wrapped(0x80070006))).toBe(false);
    expect(isErrorInvalidHandle(wrapped(0x80070006))).toBe(true);
    expect(isErrorInvalidHandle(new AlreadyClosedError())).toBe(false);
    expect(isPending(wrapped(0xc0370103))).toBe(true);
  });

  it('predicates follow a cause chain and read other service errors (an HcnError) too; never throw', () => {
    const outer = new Error('runtime: stop failed', { cause: wrapped(0xc0370110) });
    expect(isAlreadyStopped(outer)).toBe(true);
    expect(isNotExist(new HcnError('hcnQueryNamespaceProperties', 'ERROR_NOT_FOUND'))).toBe(true);
    for (const v of [undefined, null, 'x', 42, {}, new Error('plain')]) {
      expect(isNotExist(v)).toBe(false);
      expect(isAlreadyStopped(v)).toBe(false);
      expect(isAlreadyClosed(v)).toBe(false);
    }
  });

  it('SystemError and HcsError are HnsErrors with registered codes; a code HCS does not register keeps its hex', () => {
    const s = new SystemError('hcs::System::Start', 'c1', 0x80070020);
    expect(s).toBeInstanceOf(HcsError);
    expect(s.name).toBe('SystemError');
    expect([s.code, s.errno]).toEqual(['0x80070020', 0x20]);
    expect(s.message).toBe('hcs::System::Start c1: Unknown error 0x80070020.');
    const h = new HcsError('hcs::GetComputeSystems', 'HCS_E_SERVICE_NOT_AVAILABLE');
    expect([h.name, h.hresult, h.errno]).toEqual(['HcsError', 0x80370114, 0x80370114]);
  });
});

describe('fault rules reach the typed client', () => {
  it('a delay on one system’s start (by ID) holds only that start until the clock passes it', async () => {
    const { hcs, ns, host } = setup();
    const web = await hcs.createComputeSystem('web', containerDoc(ns));
    const db = await hcs.createComputeSystem('db', containerDoc(ns));
    host.faults.delay({ method: 'HcsStartComputeSystem', id: 'web' }, 100);
    const starting = track(web.start());
    await db.start();
    await settle();
    expect(starting.done).toBe(false);
    expect(host.hcs.get('web').state).toBe('Created');
    host.clock.advance(100);
    await starting.p;
    expect(host.hcs.get('web').state).toBe('Running');
  });

  it('a failure injected on start by method surfaces as a SystemError with that code; state unchanged', async () => {
    const { hcs, ns, host } = setup();
    const c: System = await hcs.createComputeSystem('c1', containerDoc(ns));
    const before = host.snapshot();
    host.faults.fail({ method: 'HcsStartComputeSystem' }, 'HCS_E_TERMINATED_DURING_START', { times: 1 });
    const e = (await rejection(c.start())) as SystemError;
    expect([e.op, e.hresult]).toEqual(['hcs::System::Start', 0x80370100]);
    expect(host.snapshot()).toEqual(before);
    await c.start();
  });
});
