/**
 * The replacement DLLs build with mingw-w64 and export exactly the functions a Windows program
 * binds (issue 10). Skipped when x86_64-w64-mingw32-gcc is not installed. The expected names are
 * copied from hcsshim's generated bindings (microsoft/hcsshim 7c9ff7f48, v0.15.0-rc.4+4), not
 * from the DLL sources.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  buildDlls,
  buildProgram,
  DLL_NAMES,
  mingwAvailable,
  readPeExports,
  readPeImports,
  type BuiltDlls,
} from '../../src/wine/build.js';

/** hcn/zsyscall_windows.go: the computenetwork.dll procs (modcomputenetwork.NewProc). */
const HCN_ZSYSCALL = [
  'HcnCloseEndpoint',
  'HcnCloseLoadBalancer',
  'HcnCloseNamespace',
  'HcnCloseNetwork',
  'HcnCloseSdnRoute',
  'HcnCreateEndpoint',
  'HcnCreateLoadBalancer',
  'HcnCreateNamespace',
  'HcnCreateNetwork',
  'HcnCreateSdnRoute',
  'HcnDeleteEndpoint',
  'HcnDeleteLoadBalancer',
  'HcnDeleteNamespace',
  'HcnDeleteNetwork',
  'HcnDeleteSdnRoute',
  'HcnEnumerateEndpoints',
  'HcnEnumerateLoadBalancers',
  'HcnEnumerateNamespaces',
  'HcnEnumerateNetworks',
  'HcnEnumerateSdnRoutes',
  'HcnModifyEndpoint',
  'HcnModifyLoadBalancer',
  'HcnModifyNamespace',
  'HcnModifyNetwork',
  'HcnModifySdnRoute',
  'HcnOpenEndpoint',
  'HcnOpenLoadBalancer',
  'HcnOpenNamespace',
  'HcnOpenNetwork',
  'HcnOpenSdnRoute',
  'HcnQueryEndpointProperties',
  'HcnQueryLoadBalancerProperties',
  'HcnQueryNamespaceProperties',
  'HcnQueryNetworkProperties',
  'HcnQuerySdnRouteProperties',
];
/**
 * Beyond the current bindings: HcnQueryEndpointStats (microsoft/SDN hns.v2.psm1), the documented
 * HcnRegisterServiceCallback / HcnUnregisterServiceCallback (Virtualization-Documentation
 * hcn/Reference), and HcnOpenService / HcnCloseService, bound by hcn/hcn.go before hcsshim v0.10.0.
 */
const HCN_EXTRA = [
  'HcnQueryEndpointStats',
  'HcnRegisterServiceCallback',
  'HcnUnregisterServiceCallback',
  'HcnOpenService',
  'HcnCloseService',
];

/** internal/vmcompute/zsyscall_windows.go (modvmcompute.NewProc) and HNSCall (hcn/, internal/hns/). */
const VMCOMPUTE_ZSYSCALL = [
  'HNSCall',
  'HcsCloseComputeSystem',
  'HcsCloseProcess',
  'HcsCreateComputeSystem',
  'HcsCreateProcess',
  'HcsEnumerateComputeSystems',
  'HcsGetComputeSystemProperties',
  'HcsGetProcessInfo',
  'HcsGetProcessProperties',
  'HcsGetServiceProperties',
  'HcsModifyComputeSystem',
  'HcsModifyProcess',
  'HcsModifyServiceSettings',
  'HcsOpenComputeSystem',
  'HcsOpenProcess',
  'HcsPauseComputeSystem',
  'HcsRegisterComputeSystemCallback',
  'HcsRegisterProcessCallback',
  'HcsResumeComputeSystem',
  'HcsSaveComputeSystem',
  'HcsShutdownComputeSystem',
  'HcsSignalProcess',
  'HcsStartComputeSystem',
  'HcsTerminateComputeSystem',
  'HcsTerminateProcess',
  'HcsUnregisterComputeSystemCallback',
  'HcsUnregisterProcessCallback',
];

/** internal/computecore/zsyscall_windows.go (modcomputecore.NewProc): note HcsShutDownComputeSystem. */
const COMPUTECORE_ZSYSCALL = [
  'HcsAddResourceToOperation',
  'HcsCancelLiveMigration',
  'HcsCancelOperation',
  'HcsCloseComputeSystem',
  'HcsCloseOperation',
  'HcsCloseProcess',
  'HcsCrashComputeSystem',
  'HcsCreateComputeSystem',
  'HcsCreateComputeSystemInNamespace',
  'HcsCreateEmptyGuestStateFile',
  'HcsCreateEmptyRuntimeStateFile',
  'HcsCreateOperation',
  'HcsCreateOperationWithNotifications',
  'HcsCreateProcess',
  'HcsEnumerateComputeSystems',
  'HcsEnumerateComputeSystemsInNamespace',
  'HcsFinalizeLiveMigration',
  'HcsGetComputeSystemFromOperation',
  'HcsGetComputeSystemProperties',
  'HcsGetOperationContext',
  'HcsGetOperationId',
  'HcsGetOperationProperties',
  'HcsGetOperationResult',
  'HcsGetOperationResultAndProcessInfo',
  'HcsGetOperationType',
  'HcsGetProcessFromOperation',
  'HcsGetProcessInfo',
  'HcsGetProcessProperties',
  'HcsGetProcessorCompatibilityFromSavedState',
  'HcsGetServiceProperties',
  'HcsGrantVmAccess',
  'HcsGrantVmGroupAccess',
  'HcsInitializeLiveMigrationOnSource',
  'HcsModifyComputeSystem',
  'HcsModifyProcess',
  'HcsModifyServiceSettings',
  'HcsOpenComputeSystem',
  'HcsOpenComputeSystemInNamespace',
  'HcsOpenProcess',
  'HcsPauseComputeSystem',
  'HcsResumeComputeSystem',
  'HcsRevokeVmAccess',
  'HcsRevokeVmGroupAccess',
  'HcsSaveComputeSystem',
  'HcsSetComputeSystemCallback',
  'HcsSetOperationCallback',
  'HcsSetOperationContext',
  'HcsSetProcessCallback',
  'HcsShutDownComputeSystem',
  'HcsSignalProcess',
  'HcsStartComputeSystem',
  'HcsStartLiveMigrationOnSource',
  'HcsStartLiveMigrationTransfer',
  'HcsSubmitWerReport',
  'HcsTerminateComputeSystem',
  'HcsTerminateProcess',
  'HcsWaitForComputeSystemExit',
  'HcsWaitForOperationResult',
  'HcsWaitForOperationResultAndProcessInfo',
  'HcsWaitForProcessExit',
];

const sorted = (names: readonly string[]): string[] => [...names].sort();
/** Windows system DLLs only: no libgcc_s or libwinpthread to ship beside them. */
const SYSTEM_DLLS = ['KERNEL32.dll', 'msvcrt.dll', 'ole32.dll', 'WS2_32.dll'];

const mingw = mingwAvailable();
const scratch = mkdtempSync(join(tmpdir(), 'hnsim-wine-build-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.skipIf(!mingw)('replacement DLLs (mingw-w64)', () => {
  let built: BuiltDlls;

  it('build without compiler warnings', async () => {
    // the shared cache: a build of these sources made earlier (by the Wine tests too) is reused
    built = await buildDlls();
    expect(built.warnings).toBe('');
    expect(built.dlls.map((d) => d.slice(built.outDir.length + 1))).toEqual([...DLL_NAMES]);
  });

  it('computenetwork.dll exports what hcsshim binds, and the documented extras', () => {
    expect(sorted(readPeExports(built.dlls[0]!))).toEqual(sorted([...HCN_ZSYSCALL, ...HCN_EXTRA]));
  });

  it('vmcompute.dll exports HNSCall and the internal/vmcompute functions', () => {
    expect(sorted(readPeExports(built.dlls[1]!))).toEqual(sorted(VMCOMPUTE_ZSYSCALL));
  });

  it('computecore.dll exports the internal/computecore functions', () => {
    expect(sorted(readPeExports(built.dlls[2]!))).toEqual(sorted(COMPUTECORE_ZSYSCALL));
  });

  it('import from system DLLs only', () => {
    for (const dll of built.dlls) expect(sorted(readPeImports(dll))).toEqual(sorted(SYSTEM_DLLS));
  });

  it('reuse an unchanged build', async () => {
    const before = statSync(built.dlls[0]!).mtimeMs;
    const again = await buildDlls({ outDir: built.outDir });
    expect(again.built).toBe(false);
    expect(statSync(again.dlls[0]!).mtimeMs).toBe(before);
  });

  it('compile a test program once, then reuse it', async () => {
    const src = join(scratch, 'hello.c');
    writeFileSync(src, '#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n');
    const exe = join(scratch, 'bin', 'hello.exe');
    const first = await buildProgram([src], exe);
    expect(first).toMatchObject({ exe, built: true, warnings: '' });
    expect(readPeImports(exe)).toContain('KERNEL32.dll');
    expect((await buildProgram(src, exe)).built).toBe(false);
  });
});

describe('PE reader', () => {
  it('refuses a file that is not a PE image', () => {
    const f = join(scratch, 'not-pe.dll');
    writeFileSync(f, 'MZ but nothing else');
    expect(() => readPeExports(f)).toThrow(/not a PE image/);
  });
});
