/**
 * The Wine prefix hnsim runs Windows programs in (issue 10; reference wine-shim.md §1, §2): created
 * once (`wineboot`, 5–15 s, ~700 MB), reused after; hnsim's DLLs copied into its
 * `drive_c/windows/system32` — the only directory hcsshim's `NewLazySystemDLL` searches — whenever
 * they differ; and a persistent `wineserver` started with its output on /dev/null, so that no Wine
 * process started later holds a caller's stdout open (the reference's trap) and a warm program starts
 * in tens of milliseconds. A lock file beside the prefix keeps two hnsim processes from creating or
 * updating one prefix at once.
 *
 * Programs do not run in the prefix itself but in a prefix per Windows build inside it
 * (`<prefix>/hnsim-windows/10.0.17763/`, issue 15): its own registry, which reports that build
 * (src/wine/winver.ts), its own wineserver, and the shared `drive_c` (system32 with hnsim's DLLs,
 * the users' directories) through symbolic links. Two runs for two profiles at once each see their
 * own build; a run for the same build shares its prefix and server.
 *
 *   const p = await preparePrefix({ dir: defaultPrefixDir(process.env), tools, dlls });
 *   const w = await prepareWindowsPrefix({ base: p.dir, tools, windows: windowsVersionOf(host.profile) });
 *   await startWindowsSession(tools, w.dir, w.windows);
 */
import { spawn } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { WineTools } from './doctor.js';
import { registryFile, versionText, type WindowsVersion } from './winver.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The file written into a prefix once `wineboot` has finished and the registry is on disk. */
export const PREFIX_MARKER = '.hnsim-prefix';

/**
 * The default prefix: `$HNSIM_WINE_PREFIX`, else `$XDG_CACHE_HOME/hnsim/wine-prefix`, else
 * `~/.cache/hnsim/wine-prefix`. Never `~/.wine`: hnsim's DLLs would replace nothing there, but the
 * prefix is hnsim's to update.
 */
export function defaultPrefixDir(env: Env = process.env): string {
  const explicit = env['HNSIM_WINE_PREFIX'];
  if (explicit) return resolve(explicit);
  const cache = env['XDG_CACHE_HOME'] || join(env['HOME'] || homedir(), '.cache');
  return join(resolve(cache), 'hnsim', 'wine-prefix');
}

/** A prefix failure: it could not be created, locked or updated. */
export class WinePrefixError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WinePrefixError';
  }
}

/** The environment every Wine process of a prefix gets from hnsim: quiet, this prefix, this server. */
export function wineEnv(tools: WineTools, dir: string, base: Env = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined) env[k] = v;
  env['WINEPREFIX'] = dir;
  env['WINESERVER'] = tools.wineserver;
  // Wine's own diagnostics ("fixme:…") would mix into the program's stderr; a caller may ask for them
  env['WINEDEBUG'] = base['WINEDEBUG'] ?? '-all';
  return env;
}

/** Run a Wine tool with every stream on /dev/null; resolves to its exit status (null: killed). */
function runQuiet(
  file: string,
  args: readonly string[],
  env: Env,
  timeoutMs: number,
): Promise<number | null> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(file, args, { env: env as NodeJS.ProcessEnv, stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolvePromise(code);
    });
  });
}

/**
 * Start the prefix's wineserver as a persistent daemon (`wineserver -p[N]`: it stays N seconds after
 * its last client, or until `wineserver -k` when `lingerSeconds` is 'forever'), its output on
 * /dev/null. One already running is kept as it is (wineserver answers 2). Returns whether this call
 * started it.
 */
export async function startWineserver(
  tools: WineTools,
  dir: string,
  lingerSeconds: number | 'forever' = 60,
  env: Env = process.env,
): Promise<boolean> {
  const p = lingerSeconds === 'forever' ? '-p' : `-p${Math.max(0, Math.floor(lingerSeconds))}`;
  let code: number | null;
  try {
    code = await runQuiet(tools.wineserver, [p], wineEnv(tools, dir, env), 30_000);
  } catch (e) {
    throw new WinePrefixError(`cannot start ${tools.wineserver}: ${(e as Error).message}`);
  }
  if (code === 0) return true;
  if (code === 2) return false; // a server for this prefix is running already
  throw new WinePrefixError(
    `${tools.wineserver} ${p} failed (exit status ${String(code)}) for prefix ${dir}`,
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Whether a process with this id exists (EPERM: it does, another user's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Hold `<path>` (created exclusively, holding this process's id) while `fn` runs. A lock whose
 * process is gone is stale and taken over; otherwise wait, polling, up to `timeoutMs`.
 */
export async function withLock<T>(path: string, timeoutMs: number, fn: () => Promise<T>): Promise<T> {
  mkdirSync(dirname(path), { recursive: true });
  const start = performance.now();
  for (;;) {
    let fd: number | undefined;
    try {
      fd = openSync(path, 'wx');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new WinePrefixError(`cannot create the lock ${path}: ${(e as Error).message}`);
      }
    }
    if (fd !== undefined) {
      try {
        writeSync(fd, `${process.pid}\n`);
      } finally {
        closeSync(fd);
      }
      try {
        return await fn();
      } finally {
        try {
          unlinkSync(path);
        } catch {
          // already gone: nothing to release
        }
      }
    }
    let holder = NaN;
    try {
      holder = Number.parseInt(readFileSync(path, 'utf8'), 10);
    } catch {
      // removed meanwhile, or being written: try again
    }
    if (Number.isInteger(holder) && holder > 0 && !alive(holder)) {
      try {
        unlinkSync(path); // its holder died: stale
      } catch {
        // someone else took it over first
      }
      continue;
    }
    if (performance.now() - start > timeoutMs) {
      throw new WinePrefixError(
        `timed out after ${Math.round(timeoutMs / 1000)} s waiting for the lock ${path}` +
          (Number.isInteger(holder) ? ` (held by process ${holder})` : ''),
      );
    }
    await sleep(100);
  }
}

/** Whether the prefix was completely created by hnsim (or adopted) before. */
export function prefixReady(dir: string): boolean {
  return existsSync(join(dir, PREFIX_MARKER)) && existsSync(join(dir, 'system.reg'));
}

/** `drive_c/windows/system32` of a prefix. */
export function system32(dir: string): string {
  return join(dir, 'drive_c', 'windows', 'system32');
}

/** The DLLs whose copy in system32 is missing or differs from the built one. */
export function staleDlls(dir: string, dlls: readonly string[]): string[] {
  const sys = system32(dir);
  return dlls.filter((dll) => {
    const target = join(sys, basename(dll));
    try {
      if (statSync(target).size !== statSync(dll).size) return true;
      return !readFileSync(target).equals(readFileSync(dll));
    } catch {
      return true;
    }
  });
}

/**
 * Create the prefix: `wineboot -u` with every stream on /dev/null (no Mono or Gecko install, no
 * menu entries), then wait for its temporary wineserver to exit, which writes the registry
 * (system.reg) to disk; then the marker.
 */
async function createPrefix(tools: WineTools, dir: string, env: Env, timeoutMs: number): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const base = wineEnv(tools, dir, env);
  base['WINEDEBUG'] = '-all';
  base['WINEDLLOVERRIDES'] = 'mscoree,mshtml=;winemenubuilder.exe=d';
  delete base['DISPLAY'];
  delete base['WAYLAND_DISPLAY'];
  let code: number | null;
  try {
    code = await runQuiet(tools.wine, ['wineboot', '-u'], base, timeoutMs);
  } catch (e) {
    throw new WinePrefixError(`cannot run ${tools.wine} wineboot: ${(e as Error).message}`);
  }
  if (code !== 0) {
    throw new WinePrefixError(
      `creating the Wine prefix ${dir} failed: wineboot exited with ${code === null ? 'a signal (timed out?)' : `status ${code}`}`,
    );
  }
  // `wineserver -w` waits for the server (started by wineboot, not persistent) to exit and save the registry
  await runQuiet(tools.wineserver, ['-w'], base, timeoutMs).catch(() => null);
  if (!existsSync(join(dir, 'system.reg'))) {
    throw new WinePrefixError(
      `creating the Wine prefix ${dir} failed: wineboot finished but the registry (system.reg) was not written`,
    );
  }
  const fd = openSync(join(dir, PREFIX_MARKER), 'w');
  try {
    writeSync(fd, `hnsim Wine prefix (created with ${tools.wine}); delete this directory to start afresh\n`);
  } finally {
    closeSync(fd);
  }
}

/**
 * Wine DLLs hnsim replaces but keeps, under another name, for its own DLL to forward to: Wine's
 * iphlpapi.dll as iphlpapi_wine.dll (src/wine/build.ts WINE_IPHLPAPI).
 */
export const KEPT_BUILTINS: Readonly<Record<string, string>> = { 'iphlpapi.dll': 'iphlpapi_wine.dll' };

/** Whether a file is one of Wine's builtin DLLs ("Wine builtin DLL" in its DOS stub, at 0x40). */
function isWineBuiltin(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const b = Buffer.alloc(16);
    return readSync(fd, b, 0, 16, 0x40) === 16 && b.toString('latin1') === 'Wine builtin DLL';
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Wine's own copy of a DLL hnsim replaces (`iphlpapi.dll`) in a prefix: system32's file while it is
 * still Wine's (a new prefix, or after a Wine update put it back), else the copy kept beside it.
 */
export function wineBuiltinOf(dir: string, dll: string): string | undefined {
  const current = join(system32(dir), dll);
  if (isWineBuiltin(current)) return current;
  const kept = KEPT_BUILTINS[dll];
  const copy = kept ? join(system32(dir), kept) : undefined;
  return copy && existsSync(copy) ? copy : undefined;
}

/** Copy a DLL into system32 atomically (a Wine process loading it meanwhile sees one or the other). */
function installDll(dir: string, dll: string): void {
  const target = join(system32(dir), basename(dll));
  const kept = KEPT_BUILTINS[basename(dll).toLowerCase()];
  if (kept && isWineBuiltin(target)) {
    const copy = join(system32(dir), kept);
    const tmpCopy = `${copy}.hnsim-${process.pid}.tmp`;
    copyFileSync(target, tmpCopy);
    renameSync(tmpCopy, copy);
  }
  const tmp = `${target}.hnsim-${process.pid}.tmp`;
  copyFileSync(dll, tmp);
  renameSync(tmp, target);
}

export interface PrefixOptions {
  readonly dir: string;
  readonly tools: WineTools;
  /** The DLLs to put into system32 (absolute paths; W1's buildDlls output). */
  readonly dlls: readonly string[];
  readonly env?: Env;
  /** How long to wait for another process's lock (default 10 minutes). */
  readonly lockTimeoutMs?: number;
  /** How long wineboot may take (default 5 minutes). */
  readonly bootTimeoutMs?: number;
}

export interface PreparedPrefix {
  readonly dir: string;
  /** Whether this call created the prefix (a first use: several seconds). */
  readonly created: boolean;
  /** The DLLs this call copied into system32 (their file names). */
  readonly copied: readonly string[];
}

/**
 * Make the prefix ready: created if needed, the DLLs in system32 up to date. The common case (ready
 * and unchanged) takes no lock: one read of each DLL pair.
 */
export async function preparePrefix(options: PrefixOptions): Promise<PreparedPrefix> {
  const dir = resolve(options.dir);
  const env = options.env ?? process.env;
  if (prefixReady(dir) && staleDlls(dir, options.dlls).length === 0) {
    return { dir, created: false, copied: [] };
  }
  return withLock(`${dir}.lock`, options.lockTimeoutMs ?? 600_000, async () => {
    let created = false;
    if (!prefixReady(dir)) {
      await createPrefix(options.tools, dir, env, options.bootTimeoutMs ?? 300_000);
      created = true;
    }
    const stale = staleDlls(dir, options.dlls);
    try {
      for (const dll of stale) installDll(dir, dll);
    } catch (e) {
      throw new WinePrefixError(`cannot copy the DLLs into ${system32(dir)}: ${(e as Error).message}`);
    }
    return { dir, created, copied: stale.map((d) => basename(d)) };
  });
}

// ───────────────────────────── a prefix per Windows build ─────────────────────────────

/** `<prefix>/hnsim-windows`: the prefixes per Windows build. */
export const WINDOWS_DIR = 'hnsim-windows';
/** The file written into a per-build prefix once its registry holds the build (its content: the digest). */
const WINDOWS_MARKER = '.hnsim-windows';

/** The prefix a program of this Windows build runs in. */
export function windowsPrefixDir(base: string, windows: WindowsVersion): string {
  return join(resolve(base), WINDOWS_DIR, versionText(windows));
}

function registryDigest(windows: WindowsVersion): string {
  return createHash('sha256').update(registryFile(windows)).digest('hex').slice(0, 16);
}

/** Whether the per-build prefix is there with this registry (a later hnsim may write other values). */
function windowsPrefixReady(dir: string, windows: WindowsVersion): boolean {
  try {
    return readFileSync(join(dir, WINDOWS_MARKER), 'utf8').trim() === registryDigest(windows);
  } catch {
    return false;
  }
}

/** A Unix path as Wine's drive Z: shows it. */
function zPath(path: string): string {
  return `Z:${path.replace(/\//g, '\\')}`;
}

/** The environment of Wine's own tools: no caller DLL overrides, no simulator, no display. */
function toolEnv(tools: WineTools, dir: string, env: Env): Record<string, string> {
  const out = wineEnv(tools, dir, env);
  out['WINEDEBUG'] = '-all';
  out['WINEDLLOVERRIDES'] = 'mscoree,mshtml=;winemenubuilder.exe=d';
  delete out['HNSIM_ENDPOINT'];
  delete out['HNSIM_TIMEOUT_MS'];
  delete out['DISPLAY'];
  delete out['WAYLAND_DISPLAY'];
  return out;
}

export interface WindowsPrefixOptions {
  /** The prefix (created, src/wine/prefix.ts preparePrefix). */
  readonly base: string;
  readonly tools: WineTools;
  readonly windows: WindowsVersion;
  readonly env?: Env;
  readonly lockTimeoutMs?: number;
  /** How long `reg import` and the server's exit may take (default 2 minutes). */
  readonly timeoutMs?: number;
  /** Called before the prefix is written (a first use for this build: a few seconds). */
  readonly onCreate?: (dir: string) => void;
}

export interface PreparedWindowsPrefix {
  readonly dir: string;
  readonly windows: WindowsVersion;
  /** Whether this call wrote it (a first use for this build: a few seconds). */
  readonly created: boolean;
}

/**
 * The prefix for one Windows build, made once: a directory beside the others under
 * `<prefix>/hnsim-windows/` with a copy of the prefix's registry files, `drive_c` and `dosdevices/c:`
 * linking to the prefix's drive C:, `dosdevices/z:` to `/`; then Wine's `reg import` writes the
 * build's values (src/wine/winver.ts registryFile) and `wineserver -w` waits for the registry to
 * reach the disk. It is built under a temporary name and renamed into place, so a running server of
 * an older one is never written under.
 */
export async function prepareWindowsPrefix(options: WindowsPrefixOptions): Promise<PreparedWindowsPrefix> {
  const base = resolve(options.base);
  const { windows, tools } = options;
  const dir = windowsPrefixDir(base, windows);
  if (windowsPrefixReady(dir, windows)) return { dir, windows, created: false };
  const env = options.env ?? process.env;
  return withLock(`${dir}.lock`, options.lockTimeoutMs ?? 600_000, async () => {
    if (windowsPrefixReady(dir, windows)) return { dir, windows, created: false };
    options.onCreate?.(dir);
    const tmp = `${dir}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    try {
      mkdirSync(join(tmp, 'dosdevices'), { recursive: true });
      for (const f of ['system.reg', 'user.reg', 'userdef.reg', '.update-timestamp']) {
        if (existsSync(join(base, f))) copyFileSync(join(base, f), join(tmp, f));
      }
      // relative links: the prefix can move as a whole
      symlinkSync(join('..', '..', 'drive_c'), join(tmp, 'drive_c'));
      symlinkSync(join('..', '..', '..', 'drive_c'), join(tmp, 'dosdevices', 'c:'));
      symlinkSync('/', join(tmp, 'dosdevices', 'z:'));
      const reg = join(tmp, 'hnsim-windows.reg');
      writeFileSync(reg, registryFile(windows));
      const toolsEnv = toolEnv(tools, tmp, env);
      const timeout = options.timeoutMs ?? 120_000;
      let code: number | null;
      try {
        code = await runQuiet(tools.wine, ['reg', 'import', zPath(reg)], toolsEnv, timeout);
      } catch (e) {
        throw new WinePrefixError(`cannot run ${tools.wine} reg import: ${(e as Error).message}`);
      }
      if (code !== 0) {
        throw new WinePrefixError(
          `setting Windows ${versionText(windows)} in ${dir} failed: reg import exited with ${code === null ? 'a signal (timed out?)' : `status ${code}`}`,
        );
      }
      // the server started for reg import saves the registry when it exits
      await runQuiet(tools.wineserver, ['-w'], toolsEnv, timeout).catch(() => null);
      writeFileSync(join(tmp, WINDOWS_MARKER), `${registryDigest(windows)}\n`);
      const old = `${dir}.old-${process.pid}`;
      if (existsSync(dir)) renameSync(dir, old);
      renameSync(tmp, dir);
      rmSync(old, { recursive: true, force: true });
    } catch (e) {
      rmSync(tmp, { recursive: true, force: true });
      if (e instanceof WinePrefixError) throw e;
      throw new WinePrefixError(`cannot prepare ${dir}: ${(e as Error).message}`);
    }
    return { dir, windows, created: true };
  });
}

/**
 * Start the per-build prefix's persistent wineserver (startWineserver) and, when this call started
 * it, Wine's own processes (services, plugplay, the device drivers) with a clean environment: the
 * first Wine process of a server starts them with its environment, and they must not inherit a
 * program's `WINEDLLOVERRIDES` (Wine's ndis.sys would load hnsim's iphlpapi.dll) or its
 * `HNSIM_ENDPOINT`. The first process is `reg query` of the build, which also checks that the
 * registry still holds it. Under the prefix's lock, so a concurrent run waits for that start.
 */
export async function startWindowsSession(
  tools: WineTools,
  dir: string,
  windows: WindowsVersion,
  lingerSeconds: number | 'forever' = 60,
  env: Env = process.env,
): Promise<boolean> {
  return withLock(`${dir}.lock`, 600_000, async () => {
    const started = await startWineserver(tools, dir, lingerSeconds, env);
    if (!started) return false;
    const build = await runCapture(
      tools.wine,
      ['reg', 'query', 'HKLM\\Software\\Microsoft\\Windows NT\\CurrentVersion', '/v', 'CurrentBuildNumber'],
      toolEnv(tools, dir, env),
      120_000,
    ).catch(() => '');
    if (!new RegExp(`CurrentBuildNumber\\s+REG_SZ\\s+${windows.build}\\b`).test(build)) {
      // a Wine update rewrote the registry (wineboot --update): write the build again
      const reg = join(dir, 'hnsim-windows.reg');
      writeFileSync(reg, registryFile(windows));
      await runQuiet(tools.wine, ['reg', 'import', zPath(reg)], toolEnv(tools, dir, env), 120_000).catch(
        () => null,
      );
    }
    return true;
  });
}

/** Run a Wine tool and collect its stdout (stdin and stderr on /dev/null). */
function runCapture(file: string, args: readonly string[], env: Env, timeoutMs: number): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(file, args, { env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'ignore'] });
    const out: Buffer[] = [];
    child.stdout!.on('data', (b: Buffer) => out.push(b));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('exit', () => {
      clearTimeout(timer);
      // a Wine service may hold the pipe: take what came
      setTimeout(() => {
        child.stdout!.destroy();
        resolvePromise(Buffer.concat(out).toString('utf8'));
      }, 50);
    });
  });
}
