/**
 * Builds hnsim's replacement Windows DLLs — computenetwork.dll, vmcompute.dll, computecore.dll and iphlpapi.dll,
 * C sources under `native/` (issue 10, reference wine-shim.md §2) — with the mingw-w64 cross
 * compiler, into a cache directory named by a hash of the sources, so an unchanged tree builds once.
 * Also compiles the C test programs that load them (`buildProgram`), and reads a PE file's export
 * and import tables (`readPeExports`, `readPeImports`) to check what a build produced.
 *
 *   const { outDir, dlls } = await buildDlls();         // ~/.cache or $TMPDIR/hnsim/native/<hash>/
 *   await buildProgram(['native/tests/hcncall.c'], '/tmp/hcncall.exe');
 *
 * Sources are found from the package root (the directory with hnsim's package.json and `native/`),
 * so this works from src/ (tsx), dist/ (tsc) and the bundled CLI alike. The outputs never land in
 * the source tree.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The DLLs `buildDlls` produces, each from `native/<name without .dll>/` plus `native/common/`. */
export const DLL_NAMES = ['computenetwork.dll', 'vmcompute.dll', 'computecore.dll', 'iphlpapi.dll'] as const;

/**
 * The module name Wine's own iphlpapi.dll is kept under in a prefix's system32 (src/wine/prefix.ts):
 * hnsim's iphlpapi.dll forwards every export it does not answer itself to it.
 */
export const WINE_IPHLPAPI = 'iphlpapi_wine';
export type DllName = (typeof DLL_NAMES)[number];

/** The cross compiler's name on Debian/Ubuntu (`gcc-mingw-w64-x86-64`) and most distributions. */
export const MINGW_GCC = 'x86_64-w64-mingw32-gcc';

/** What to tell someone whose machine lacks the compiler. */
export const MINGW_MISSING =
  `${MINGW_GCC} was not found on PATH: install mingw-w64 ` +
  '(Debian/Ubuntu: apt-get install gcc-mingw-w64-x86-64; Fedora: dnf install mingw64-gcc), ' +
  'or set HNSIM_MINGW_GCC to the compiler';

/** Bump when the build recipe changes in a way the sources do not show. */
const RECIPE = 'hnsim-native/2';

const C_FLAGS = ['-std=c11', '-O2', '-Wall', '-Wextra', '-ffunction-sections', '-fdata-sections'];
/* static libgcc: the DLLs depend only on system DLLs (kernel32, msvcrt, ole32, ws2_32) */
const DLL_LINK = ['-shared', '-static-libgcc', '-s', '-Wl,--gc-sections'];
const DLL_LIBS = ['-lws2_32', '-lole32'];

export interface BuildDllsOptions {
  /** Where the DLLs go (default: the content-addressed cache directory). */
  readonly outDir?: string;
  /** Rebuild even when the directory already holds this build. */
  readonly force?: boolean;
  /** The compiler (default: `mingwAvailable()`). */
  readonly cc?: string;
  /**
   * The exports of Wine's own iphlpapi.dll (`readPeExports` of it): each one hnsim's iphlpapi.dll
   * does not answer becomes a forwarder to `iphlpapi_wine.<name>`. Without them the DLL has only
   * its own exports (enough for the build tests, not for a prefix).
   */
  readonly iphlpapiForwards?: readonly string[];
  /** Called once, just before the compiler runs (not when an earlier build is reused). */
  readonly onCompile?: () => void;
}

export interface BuiltDlls {
  /** The directory holding the DLLs. */
  readonly outDir: string;
  /** Absolute paths of the DLLs, in DLL_NAMES order. */
  readonly dlls: string[];
  /** Whether this call compiled them (false: an earlier build was reused). */
  readonly built: boolean;
  /** What the compiler printed (warnings) for this build, kept with it when it is reused. */
  readonly warnings: string;
}

/**
 * The mingw-w64 C compiler for x86-64 Windows: `$HNSIM_MINGW_GCC` when set, else
 * `x86_64-w64-mingw32-gcc` from PATH, as an absolute path; undefined when there is none.
 */
export function mingwAvailable(): string | undefined {
  const forced = process.env['HNSIM_MINGW_GCC'];
  if (forced) return isExecutable(forced) ? resolve(forced) : undefined;
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, MINGW_GCC);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The hnsim package root: the nearest directory above this module holding hnsim's package.json
 * and the `native/` sources (src/wine/, dist/wine/ and the bundled dist/cli/ all find it).
 */
export function hnsimPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && existsSync(join(dir, 'native'))) {
      try {
        const name = (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: unknown }).name;
        if (name === 'hnsim') return dir;
      } catch {
        // not a readable package.json: keep looking upwards
      }
    }
    const up = dirname(dir);
    if (up === dir)
      throw new Error(`hnsim: no package root with native/ sources above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}

/** The C sources of the DLLs (`<package root>/native`). */
export function nativeSourceDir(): string {
  return join(hnsimPackageRoot(), 'native');
}

interface Source {
  readonly path: string;
  readonly rel: string;
}

/** The files one DLL is built from: native/common/*.c|h and native/<dll>/*.c|h|def. */
async function dllSources(native: string): Promise<{ common: Source[]; own: Map<DllName, Source[]> }> {
  const list = async (dir: string, exts: readonly string[]): Promise<Source[]> =>
    (await readdir(join(native, dir)))
      .filter((f) => exts.some((e) => f.endsWith(e)))
      .sort()
      .map((f) => ({ path: join(native, dir, f), rel: `${dir}/${f}` }));
  const common = await list('common', ['.c', '.h']);
  const own = new Map<DllName, Source[]>();
  for (const dll of DLL_NAMES) own.set(dll, await list(dll.slice(0, -'.dll'.length), ['.c', '.h', '.def']));
  return { common, own };
}

function run(cmd: string, args: readonly string[], cwd: string): Promise<{ stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    execFile(cmd, args, { cwd, maxBuffer: 16 * 1024 * 1024 }, (err, _stdout, stderr) => {
      if (err) {
        reject(new Error(`${cmd} ${args.join(' ')} failed:\n${stderr || err.message}`));
        return;
      }
      resolvePromise({ stderr });
    });
  });
}

/** Run `jobs` with at most `limit` at a time; the results in order. */
async function pooled<T>(jobs: readonly (() => Promise<T>)[], limit: number): Promise<T[]> {
  const out: T[] = new Array<T>(jobs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await jobs[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, jobs.length)) }, worker));
  return out;
}

const versions = new Map<string, Promise<string>>();

/** `cc -dumpversion` and the target, part of the build hash (a new compiler rebuilds). */
function compilerVersion(cc: string): Promise<string> {
  let v = versions.get(cc);
  if (v === undefined) {
    v = new Promise((resolvePromise) => {
      execFile(cc, ['-dumpversion'], (err, stdout) => resolvePromise(err ? 'unknown' : stdout.trim()));
    });
    versions.set(cc, v);
  }
  return v;
}

function cacheBase(): string {
  return process.env['XDG_CACHE_HOME'] || tmpdir();
}

const STAMP = '.hnsim-build.json';
const inflight = new Map<string, Promise<BuiltDlls>>();
let tmpCounter = 0;

/**
 * Build the DLLs (or reuse an earlier build of the same sources): `outDir` defaults to
 * `<$XDG_CACHE_HOME or os.tmpdir()>/hnsim/native/<hash>`. Throws when mingw-w64 is missing
 * (`MINGW_MISSING`) or a compile fails (the compiler's output in the message). Safe to call from
 * several processes at once: each builds in a directory of its own and moves the files in.
 */
export async function buildDlls(opts: BuildDllsOptions = {}): Promise<BuiltDlls> {
  const cc = opts.cc ?? mingwAvailable();
  if (!cc) throw new Error(MINGW_MISSING);
  const native = nativeSourceDir();
  const { common, own } = await dllSources(native);
  const hash = createHash('sha256');
  hash.update(
    `${RECIPE}\0${cc}\0${await compilerVersion(cc)}\0${C_FLAGS.join(' ')}\0${DLL_LINK.join(' ')}\0`,
  );
  for (const s of [...common, ...[...own.values()].flat()]) {
    hash.update(`${s.rel}\0`);
    hash.update(await readFile(s.path));
    hash.update('\0');
  }
  const forwards = [...new Set(opts.iphlpapiForwards ?? [])].sort();
  hash.update(`forwards\0${forwards.join('\0')}\0`);
  const digest = hash.digest('hex');
  const outDir = resolve(opts.outDir ?? join(cacheBase(), 'hnsim', 'native', digest.slice(0, 16)));
  const dlls = DLL_NAMES.map((n) => join(outDir, n));
  const key = `${outDir}\0${opts.force ? 'force' : ''}`;
  const running = inflight.get(key);
  if (running) return running;
  const job = (async (): Promise<BuiltDlls> => {
    const stamp = opts.force ? undefined : await readStamp(outDir, digest);
    if (stamp && dlls.every((d) => existsSync(d)))
      return { outDir, dlls, built: false, warnings: stamp.warnings };
    opts.onCompile?.();
    const warnings = await compile(cc, native, common, own, outDir, digest, forwards);
    return { outDir, dlls, built: true, warnings };
  })();
  inflight.set(key, job);
  try {
    return await job;
  } finally {
    inflight.delete(key);
  }
}

/** The stamp of the build in `outDir` if it is this build (same hash). */
async function readStamp(outDir: string, digest: string): Promise<{ warnings: string } | undefined> {
  try {
    const stamp = JSON.parse(await readFile(join(outDir, STAMP), 'utf8')) as {
      hash?: unknown;
      warnings?: unknown;
    };
    if (stamp.hash !== digest) return undefined;
    return { warnings: typeof stamp.warnings === 'string' ? stamp.warnings : '' };
  } catch {
    return undefined;
  }
}

async function compile(
  cc: string,
  native: string,
  common: readonly Source[],
  own: ReadonlyMap<DllName, readonly Source[]>,
  outDir: string,
  digest: string,
  forwards: readonly string[],
): Promise<string> {
  const tmp = `${outDir}.tmp-${process.pid}-${++tmpCounter}`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(join(tmp, 'obj'), { recursive: true });
  try {
    const include = join(native, 'common');
    const objectOf = (s: Source): string =>
      join(tmp, 'obj', s.rel.replace(/[/\\]/g, '-').replace(/\.c$/, '.o'));
    const units = [...common, ...[...own.values()].flat()].filter((s) => s.rel.endsWith('.c'));
    const limit = Math.min(availableParallelism(), 4);
    // windows.h and winsock2.h are most of each unit's compile time: parse them once, into a
    // precompiled copy of hnsim.h that every unit takes first (`-include`; its guard skips the
    // unit's own #include). Same flags as the units, as a precompiled header requires.
    const pch = join(tmp, 'pch', 'hnsim.h');
    await mkdir(dirname(pch), { recursive: true });
    await writeFile(pch, await readFile(join(include, 'hnsim.h')));
    const header = await run(cc, [...C_FLAGS, '-x', 'c-header', pch, '-o', `${pch}.gch`], native);
    const compiled = await pooled(
      units.map(
        (s) => () =>
          run(
            cc,
            [...C_FLAGS, '-Winvalid-pch', '-include', pch, '-I', include, '-c', s.path, '-o', objectOf(s)],
            native,
          ),
      ),
      limit,
    );
    compiled.unshift(header);
    const commonObjects = common.filter((s) => s.rel.endsWith('.c')).map(objectOf);
    const linked = await pooled(
      DLL_NAMES.map((dll) => () => {
        const files = own.get(dll) ?? [];
        const objects = files.filter((s) => s.rel.endsWith('.c')).map(objectOf);
        const defs = files.filter((s) => s.rel.endsWith('.def')).map((s) => s.path);
        if (dll === 'iphlpapi.dll') defs.splice(0, defs.length, forwardingDef(tmp, defs, forwards));
        return run(
          cc,
          [...DLL_LINK, '-o', join(tmp, dll), ...objects, ...commonObjects, ...defs, ...DLL_LIBS],
          native,
        );
      }),
      limit,
    );
    await mkdir(outDir, { recursive: true });
    // file by file: a rename is atomic, and a concurrent build of the same hash writes the same bytes
    for (const dll of DLL_NAMES) await rename(join(tmp, dll), join(outDir, dll));
    const warnings = [...compiled, ...linked]
      .map((r) => r.stderr)
      .filter((s) => s.trim() !== '')
      .join('');
    const stamp = { hash: digest, dlls: DLL_NAMES, compiler: cc, warnings };
    await writeFile(join(tmp, STAMP), JSON.stringify(stamp) + '\n');
    await rename(join(tmp, STAMP), join(outDir, STAMP));
    return warnings;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/**
 * The module definition of iphlpapi.dll: its own exports (native/iphlpapi/iphlpapi.def) and a
 * forwarder `Name=iphlpapi_wine.Name` for every other export of Wine's iphlpapi.dll, so a program
 * that binds any of Wine's exports, at load time or with GetProcAddress, still finds it.
 */
function forwardingDef(tmp: string, defs: readonly string[], forwards: readonly string[]): string {
  const text = defs.map((d) => readFileSync(d, 'utf8')).join('\n');
  const own = new Set<string>();
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Za-z_][\w@]*)\s*=/.exec(line);
    if (m) own.add(m[1]!);
  }
  const extra = forwards.filter((n) => !own.has(n) && /^[A-Za-z_][\w@]*$/.test(n));
  const out = join(tmp, 'iphlpapi.def');
  writeFileSync(out, `${text.trimEnd()}\n${extra.map((n) => `${n}=${WINE_IPHLPAPI}.${n}`).join('\n')}\n`);
  return out;
}

export interface BuildProgramOptions {
  /** Compiler flags (default `-O2 -Wall -Wextra`). */
  readonly cflags?: readonly string[];
  /** Libraries to link, without `-l` (default ole32, ws2_32, psapi). */
  readonly libs?: readonly string[];
  /** Compile even when `outExe` is already this build of these sources. */
  readonly force?: boolean;
  /** The compiler (default: `mingwAvailable()`). */
  readonly cc?: string;
}

export interface BuiltProgram {
  readonly exe: string;
  readonly built: boolean;
  readonly warnings: string;
}

/**
 * Compile C sources into a Windows console program (for the test programs that call the DLLs).
 * A hash of the sources, flags and compiler is kept beside the program (`<exe>.hnsim-build`), and
 * an unchanged program is not compiled again. Throws as `buildDlls` does.
 */
export async function buildProgram(
  srcFiles: string | readonly string[],
  outExe: string,
  opts: BuildProgramOptions = {},
): Promise<BuiltProgram> {
  const cc = opts.cc ?? mingwAvailable();
  if (!cc) throw new Error(MINGW_MISSING);
  const sources = (typeof srcFiles === 'string' ? [srcFiles] : [...srcFiles]).map((s) => resolve(s));
  if (sources.length === 0) throw new Error('buildProgram: no source files');
  const exe = resolve(outExe);
  const cflags = opts.cflags ?? ['-O2', '-Wall', '-Wextra'];
  const libs = (opts.libs ?? ['ole32', 'ws2_32', 'psapi']).map((l) => `-l${l}`);
  const hash = createHash('sha256');
  hash.update(`${RECIPE}\0${cc}\0${await compilerVersion(cc)}\0${cflags.join(' ')}\0${libs.join(' ')}\0`);
  for (const s of sources) {
    hash.update(`${s}\0`);
    hash.update(await readFile(s));
    hash.update('\0');
  }
  // headers beside the sources (a test program's own .h) count too
  for (const dir of new Set(sources.map((s) => dirname(s)))) {
    for (const f of (await readdir(dir)).filter((n) => n.endsWith('.h')).sort()) {
      hash.update(`${join(dir, f)}\0`);
      hash.update(await readFile(join(dir, f)));
    }
  }
  const digest = hash.digest('hex');
  const stamp = `${exe}.hnsim-build`;
  if (!opts.force && existsSync(exe)) {
    try {
      if ((await readFile(stamp, 'utf8')).trim() === digest) return { exe, built: false, warnings: '' };
    } catch {
      // no stamp: compile
    }
  }
  await mkdir(dirname(exe), { recursive: true });
  const tmp = `${exe}.tmp-${process.pid}-${++tmpCounter}.exe`;
  try {
    const { stderr } = await run(cc, [...cflags, '-o', tmp, ...sources, ...libs], dirname(sources[0]!));
    await rename(tmp, exe);
    await writeFile(stamp, digest + '\n');
    return { exe, built: true, warnings: stderr };
  } finally {
    await rm(tmp, { force: true });
  }
}

// ───────────────────────────── PE tables ─────────────────────────────

interface PeImage {
  readonly buf: Buffer;
  /** RVA → file offset. */
  at(rva: number): number;
  /** Data directory `index`: [RVA, size]. */
  dir(index: number): readonly [number, number];
}

function readPe(file: string): PeImage {
  const buf = readFileSync(file);
  const fail = (why: string): never => {
    throw new Error(`${file}: not a PE image (${why})`);
  };
  if (buf.length < 64 || buf.toString('latin1', 0, 2) !== 'MZ') fail('no MZ header');
  const pe = buf.readUInt32LE(0x3c);
  if (pe + 24 > buf.length || buf.toString('latin1', pe, pe + 4) !== 'PE\0\0') fail('no PE signature');
  const sections = buf.readUInt16LE(pe + 6);
  const optSize = buf.readUInt16LE(pe + 20);
  const opt = pe + 24;
  const magic = buf.readUInt16LE(opt);
  const dirs =
    magic === 0x20b
      ? opt + 112
      : magic === 0x10b
        ? opt + 96
        : fail(`optional header magic 0x${magic.toString(16)}`);
  const dirCount = buf.readUInt32LE(dirs - 4);
  const table = opt + optSize;
  const at = (rva: number): number => {
    for (let i = 0; i < sections; i++) {
      const s = table + i * 40;
      const va = buf.readUInt32LE(s + 12);
      const size = Math.max(buf.readUInt32LE(s + 8), buf.readUInt32LE(s + 16));
      if (rva >= va && rva < va + size) return buf.readUInt32LE(s + 20) + (rva - va);
    }
    return fail(`RVA 0x${rva.toString(16)} outside every section`);
  };
  const dir = (index: number): readonly [number, number] =>
    index < dirCount ? [buf.readUInt32LE(dirs + index * 8), buf.readUInt32LE(dirs + index * 8 + 4)] : [0, 0];
  return { buf, at, dir };
}

function cString(buf: Buffer, offset: number): string {
  const end = buf.indexOf(0, offset);
  return buf.toString('latin1', offset, end < 0 ? buf.length : end);
}

/** The names a PE file (a DLL) exports, in the order of its name table (sorted, as linkers write it). */
export function readPeExports(file: string): string[] {
  const pe = readPe(file);
  const [rva] = pe.dir(0);
  if (rva === 0) return [];
  const ed = pe.at(rva);
  const count = pe.buf.readUInt32LE(ed + 24);
  const names = pe.at(pe.buf.readUInt32LE(ed + 32));
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(cString(pe.buf, pe.at(pe.buf.readUInt32LE(names + i * 4))));
  return out;
}

/** The forwarded exports of a PE file (a DLL): name → `DLL.Function` it forwards to. */
export function readPeForwards(file: string): Record<string, string> {
  const pe = readPe(file);
  const [rva, size] = pe.dir(0);
  if (rva === 0) return {};
  const ed = pe.at(rva);
  const count = pe.buf.readUInt32LE(ed + 24);
  const functions = pe.at(pe.buf.readUInt32LE(ed + 28));
  const names = pe.at(pe.buf.readUInt32LE(ed + 32));
  const ordinals = pe.at(pe.buf.readUInt32LE(ed + 36));
  const out: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const name = cString(pe.buf, pe.at(pe.buf.readUInt32LE(names + i * 4)));
    const target = pe.buf.readUInt32LE(functions + pe.buf.readUInt16LE(ordinals + i * 2) * 4);
    // an address inside the export directory is a forwarder string, not code
    if (target >= rva && target < rva + size) out[name] = cString(pe.buf, pe.at(target));
  }
  return out;
}

/** The DLLs a PE file imports from, as named in its import table. */
export function readPeImports(file: string): string[] {
  const pe = readPe(file);
  const [rva] = pe.dir(1);
  if (rva === 0) return [];
  const out: string[] = [];
  for (let d = pe.at(rva); ; d += 20) {
    const name = pe.buf.readUInt32LE(d + 12);
    if (name === 0) break;
    out.push(cString(pe.buf, pe.at(name)));
  }
  return out;
}
