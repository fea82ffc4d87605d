/**
 * The Wine prefix hnsim runs Windows programs in (issue 10; reference wine-shim.md §1, §2): created
 * once (`wineboot`, 5–15 s, ~700 MB), reused after; hnsim's DLLs copied into its
 * `drive_c/windows/system32` — the only directory hcsshim's `NewLazySystemDLL` searches — whenever
 * they differ; and a persistent `wineserver` started with its output on /dev/null, so that no Wine
 * process started later holds a caller's stdout open (the reference's trap) and a warm program starts
 * in tens of milliseconds. A lock file beside the prefix keeps two hnsim processes from creating or
 * updating one prefix at once.
 *
 *   const p = await preparePrefix({ dir: defaultPrefixDir(process.env), tools, dlls });
 *   await startWineserver(tools, p.dir);
 */
import { spawn } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { WineTools } from './doctor.js';

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

/** Copy a DLL into system32 atomically (a Wine process loading it meanwhile sees one or the other). */
function installDll(dir: string, dll: string): void {
  const target = join(system32(dir), basename(dll));
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
