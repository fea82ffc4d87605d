/**
 * The Windows test programs of native/tests (hcncall.exe, cnistyle.exe), built with
 * src/wine/build.ts's buildProgram into a cache directory outside the repository, once per process
 * and again only when their sources change. No vitest here: bench/wine.bench.ts uses it too.
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildProgram } from '../../src/wine/build.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const NATIVE_TESTS = join(ROOT, 'native', 'tests');

/** Where the test programs are built: `<$XDG_CACHE_HOME or the temp dir>/hnsim/wine-tests`. */
const PROGRAM_DIR = join(process.env['XDG_CACHE_HOME'] ?? tmpdir(), 'hnsim', 'wine-tests');

let programs: Promise<{ hcncall: string; cnistyle: string }> | undefined;

/** hcncall.exe and cnistyle.exe, built from native/tests (cached by src/wine/build.ts). */
export function testPrograms(): Promise<{ hcncall: string; cnistyle: string }> {
  programs ??= (async () => {
    mkdirSync(PROGRAM_DIR, { recursive: true });
    const hcncall = join(PROGRAM_DIR, 'hcncall.exe');
    const cnistyle = join(PROGRAM_DIR, 'cnistyle.exe');
    await buildProgram([join(NATIVE_TESTS, 'hcncall.c')], hcncall);
    await buildProgram([join(NATIVE_TESTS, 'cnistyle.c')], cnistyle);
    return { hcncall, cnistyle };
  })();
  programs.catch(() => (programs = undefined));
  return programs;
}
