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
import { COMPUTECORE_ZSYSCALL, HCN_EXTRA, HCN_ZSYSCALL, VMCOMPUTE_ZSYSCALL } from './hcsshim-exports.js';

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
