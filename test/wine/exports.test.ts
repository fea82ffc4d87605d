/**
 * Issue 10: the DLLs export every function hcsshim binds (its generated zsyscall_windows.go files,
 * microsoft/hcsshim 7c9ff7f48 — the lists below are copied from there, not from native/), and an
 * HCS function the simulator has no model for answers E_NOTIMPL (0x80004001) without crashing the
 * program; HCS callbacks hear SystemExited; an Hcs* call on a bad handle is E_HANDLE.
 *
 * Bugs each test catches:
 * - a function hcsshim binds missing from a .def: LazyProc.Find fails and hcsshim panics
 *   (MustFind) or returns ERROR_PROC_NOT_FOUND where Windows would answer;
 * - a not-simulated function that crashes, hangs, returns S_OK with nothing done, or leaves the
 *   DLL unusable for the next call;
 * - a compute-system callback never called, called with the wrong context or type, or called after
 *   it was unregistered.
 */
import { beforeAll, expect, it } from 'vitest';
import { readPeExports } from '../../src/wine/build.js';
import { describeWine, hcncall, ready, readyWine, startSim } from './kit.js';
import { h, hcncallInput, step, type CallOutput, type Step } from './steps.js';
import { join } from 'node:path';
import { COMPUTECORE_ZSYSCALL, HCN_ZSYSCALL, VMCOMPUTE_ZSYSCALL } from './hcsshim-exports.js';

const E_NOTIMPL = 0x80004001;
const E_HANDLE = 0x80070006;
const CONTAINER = JSON.stringify({ SchemaVersion: { Major: 2, Minor: 1 }, Container: {} });

function notImpl(c: CallOutput): void {
  expect([c.fn, c.hr, c.missing]).toEqual([c.fn, E_NOTIMPL, undefined]);
}

describeWine('the DLLs export what hcsshim binds; what the simulator lacks is E_NOTIMPL (issue 10)', () => {
  beforeAll(async () => {
    await ready();
  }, 600_000);

  it('every export hcsshim binds is in the DLL in system32', async () => {
    const w = await readyWine();
    const system32 = join(w.prefix.dir, 'drive_c', 'windows', 'system32');
    const exports = (dll: string) => new Set(readPeExports(join(system32, dll)));
    const missing = (dll: string, names: readonly string[]) => names.filter((n) => !exports(dll).has(n));
    expect(missing('computenetwork.dll', HCN_ZSYSCALL)).toEqual([]);
    expect(missing('vmcompute.dll', VMCOMPUTE_ZSYSCALL)).toEqual([]);
    expect(missing('computecore.dll', COMPUTECORE_ZSYSCALL)).toEqual([]);
    expect(HCN_ZSYSCALL).toHaveLength(35);
  });

  it('vmcompute functions without a model: E_NOTIMPL with a result document, and the next call works', async () => {
    const sim = await startSim({ seed: 7 });
    const steps: Step[] = [
      step('HcsCreateComputeSystem', ['c1', CONTAINER], { out: 'c1' }),
      step('HcsCreateProcess', [h('c1'), '{"CommandLine":"cmd.exe"}'], { out: 'p' }),
      step('HcsOpenProcess', [h('c1'), { n: 4 }], { out: 'p2' }),
      step('HcsTerminateProcess', [{ rawHandle: 0x1234 }]),
      step('HcsSignalProcess', [{ rawHandle: 0x1234 }, '{}']),
      step('HcsGetProcessInfo', [{ rawHandle: 0x1234 }]),
      step('HcsGetProcessProperties', [{ rawHandle: 0x1234 }]),
      step('HcsModifyProcess', [{ rawHandle: 0x1234 }, '{}']),
      step('HcsCloseProcess', [{ rawHandle: 0x1234 }]),
      step('HcsSaveComputeSystem', [h('c1'), '{}']),
      step('HcsGetServiceProperties', ['{"PropertyTypes":["Basic"]}']),
      step('HcsModifyServiceSettings', ['{}']),
      step('HcsGetComputeSystemProperties', [h('c1'), ''], { why: 'still answering' }),
    ];
    const run = await hcncall(steps, { endpoint: sim.endpoint });
    await sim.close();
    expect(run.calls[0]!.hr).toBe(0);
    for (const c of run.calls.slice(1, -1)) notImpl(c);
    // the out-handles stay NULL; a document says why, as a vmcompute failure does
    expect(run.calls[1]!.handle).toBe(0);
    const doc = JSON.parse(run.calls[1]!.record!) as { Error: number; ErrorMessage: string };
    expect(doc.Error).toBe(E_NOTIMPL | 0);
    expect(doc.ErrorMessage).toMatch(/^Not implemented/);
    expect(run.calls.at(-1)!.hr).toBe(0);
    expect(JSON.parse(run.calls.at(-1)!.result!)).toMatchObject({ Id: 'c1', State: 'Created' });
  });

  it('computecore functions without a model: E_NOTIMPL, and the next call works', async () => {
    const sim = await startSim({ seed: 7 });
    const run = await hcncall(
      [
        step('HcsGetServiceProperties', ['{}']),
        step('cc:HcsCreateOperation', [], { out: 'op' }),
        step('cc:HcsEnumerateComputeSystems', ['', h('op')]),
        step('cc:HcsWaitForOperationResult', [h('op'), { n: 1000 }]),
        step('cc:HcsCloseOperation', [h('op')]),
      ],
      { endpoint: sim.endpoint },
    );
    await sim.close();
    notImpl(run.calls[0]!);
    expect(run.calls.slice(1).map((c) => c.hr)).toEqual([0, 0, 0, 0]);
    expect(run.calls[3]!.result).toBe('[]');
  });

  it('a vmcompute callback hears SystemExited (0x1) with its context after Terminate; unregistered, it is gone', async () => {
    const sim = await startSim({ seed: 7 });
    const input =
      hcncallInput([
        step('HcsCreateComputeSystem', ['c1', CONTAINER], { out: 'c1' }),
        step('HcsRegisterComputeSystemCallback', [h('c1')], { out: 'cb' }),
        step('HcsStartComputeSystem', [h('c1'), '']),
        step('HcsTerminateComputeSystem', [h('c1'), '']),
      ]) +
      '!sleep 300\n' + // the notification comes from a thread of the DLL's
      hcncallInput([
        step('HcsUnregisterComputeSystemCallback', [h('cb')]),
        step('HcsUnregisterComputeSystemCallback', [h('cb')], { why: 'twice' }),
        step('HcsCloseComputeSystem', [h('c1')]),
        step('HcsCloseComputeSystem', [h('c1')], { why: 'twice' }),
      ]);
    const run = await hcncall(input, { endpoint: sim.endpoint });
    await sim.close();
    expect(run.calls.map((c) => [c.fn, c.hr])).toEqual([
      ['HcsCreateComputeSystem', 0],
      ['HcsRegisterComputeSystemCallback', 0],
      ['HcsStartComputeSystem', 0],
      ['HcsTerminateComputeSystem', 0],
      ['HcsUnregisterComputeSystemCallback', 0],
      ['HcsUnregisterComputeSystemCallback', E_HANDLE],
      ['HcsCloseComputeSystem', 0],
      ['HcsCloseComputeSystem', E_HANDLE],
    ]);
    const notes = run.outputs.filter(
      (o): o is { notification: number; context: number; data: string } => 'notification' in o,
    );
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ notification: 1, context: 0x5eed });
    expect(JSON.parse(notes[0]!.data)).toMatchObject({ ExitType: 'ForcedExit' });
  });

  it('an Hcs* call on a handle vmcompute never gave is E_HANDLE with a result document', async () => {
    const sim = await startSim({ seed: 7 });
    const run = await hcncall(
      [
        step('HcsStartComputeSystem', [{ rawHandle: 0x4444 }, '']),
        step('HcsGetComputeSystemProperties', [null, '']),
        step('HcsCloseComputeSystem', [{ rawHandle: 0x4444 }]),
      ],
      { endpoint: sim.endpoint },
    );
    await sim.close();
    expect(run.calls.map((c) => c.hr)).toEqual([E_HANDLE, E_HANDLE, E_HANDLE]);
    expect(JSON.parse(run.calls[0]!.record!)).toEqual({
      Error: E_HANDLE | 0,
      ErrorMessage: 'The handle is invalid.',
    });
  });
});
