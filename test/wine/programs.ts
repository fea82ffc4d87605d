/**
 * The Windows test programs of native/tests (hcncall.exe, cnistyle.exe, winver.exe, iplayout.exe,
 * and the Go program gonet.exe), built with src/wine/build.ts's buildProgram (Go's with `go build`)
 * into a cache directory outside the repository, once per process and again only when their
 * sources change. No vitest here: bench/wine.bench.ts uses it too.
 */
import { spawn, spawnSync } from 'node:child_process';
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

let extra: Promise<{ winver: string; iplayout: string }> | undefined;

/** winver.exe (the Windows version a program sees) and iplayout.exe (hnsim's iphlpapi.dll from C). */
export function ipPrograms(): Promise<{ winver: string; iplayout: string }> {
  extra ??= (async () => {
    mkdirSync(PROGRAM_DIR, { recursive: true });
    const winver = join(PROGRAM_DIR, 'winver.exe');
    const iplayout = join(PROGRAM_DIR, 'iplayout.exe');
    await buildProgram([join(NATIVE_TESTS, 'winver.c')], winver, { libs: ['advapi32'] });
    await buildProgram([join(NATIVE_TESTS, 'iplayout.c')], iplayout, { libs: ['iphlpapi', 'ws2_32'] });
    return { winver, iplayout };
  })();
  extra.catch(() => (extra = undefined));
  return extra;
}

/** `go version`, or undefined when Go is not installed. */
export function goVersion(): string | undefined {
  const r = spawnSync('go', ['version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** The environment of a Windows Go build from the vendored-free test modules: no network, no cgo. */
export const GO_WINDOWS_ENV = {
  GOOS: 'windows',
  GOARCH: 'amd64',
  GOFLAGS: '-mod=mod',
  GOPROXY: 'off',
  CGO_ENABLED: '0',
} as const;

let gonet: Promise<string> | undefined;

/** gonet.exe (native/tests/gonet: what Go's net package sees), built with `go build` (go decides what to rebuild). */
export function gonetProgram(): Promise<string> {
  gonet ??= new Promise<string>((resolve, reject) => {
    mkdirSync(PROGRAM_DIR, { recursive: true });
    const exe = join(PROGRAM_DIR, 'gonet.exe');
    const child = spawn('go', ['build', '-o', exe, '.'], {
      cwd: join(NATIVE_TESTS, 'gonet'),
      env: { ...process.env, ...GO_WINDOWS_ENV },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(exe) : reject(new Error(`go build gonet: ${err}`))));
  });
  gonet.catch(() => (gonet = undefined));
  return gonet;
}
