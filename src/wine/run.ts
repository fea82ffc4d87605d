/**
 * Run a Windows program under Wine against a simulated node (issue 10; reference wine-shim.md): the
 * prefix ready with hnsim's DLLs in system32 (src/wine/prefix.ts), a persistent wineserver, then the
 * program with the caller's environment plus `HNSIM_ENDPOINT` (where the DLLs find the simulator's
 * TCP face), its stdin, and its exit code, stdout and stderr back.
 *
 *   const out = await runUnderWine({ program: './win-bridge.exe', env: cniEnv, stdin: conf, endpoint: '127.0.0.1:40513' });
 *   out.exitCode; out.stdout;
 *
 * The program is a path on this machine (a Unix path: Wine maps `/` to drive `Z:`, so a program in
 * /home/me sees its directory as `Z:\home\me`) or a Windows path inside the prefix (`C:\…`).
 */
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { constants } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { wineDoctor, doctorMessage, type WineTools } from './doctor.js';
import {
  defaultPrefixDir,
  prepareWindowsPrefix,
  preparePrefix,
  startWindowsSession,
  system32,
  wineBuiltinOf,
  wineEnv,
  WinePrefixError,
  type PreparedPrefix,
} from './prefix.js';
import { simulatorVersion } from './sim.js';
import { windowsVersionOf, type WindowsVersion } from './winver.js';
import { DEFAULT_PROFILE, resolveProfile } from '../hns/versions.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The DLLs' module names, loaded native (from system32) whatever Wine ships as builtins: Wine 8 has
 * an iphlpapi.dll of its own, which it would load instead of hnsim's.
 */
export const HNSIM_DLL_OVERRIDES = 'computenetwork,vmcompute,computecore,iphlpapi=n';

/** Wine or mingw-w64 is not installed: `message` says which and the apt command. */
export class WineMissingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WineMissingError';
  }
}

/** The program cannot be run: not found (127) or not a file (126), the shell's codes. */
export class WineProgramError extends Error {
  constructor(
    message: string,
    readonly exitCode: 126 | 127,
  ) {
    super(message);
    this.name = 'WineProgramError';
  }
}

export interface WineRunRequest {
  /** The .exe: a path on this machine (relative to `cwd`), or a Windows path in the prefix. */
  readonly program: string;
  readonly args?: readonly string[];
  /** The program's environment (default: this process's); hnsim adds WINEPREFIX, WINEDEBUG (-all unless set), … */
  readonly env?: Env;
  /**
   * Its stdin: bytes (written, then closed), a stream (piped), or 'inherit' (this process's fd 0).
   * Default: empty.
   */
  readonly stdin?: string | Uint8Array | Readable | 'inherit';
  /** `127.0.0.1:PORT` of the simulator's TCP face, given to the program as HNSIM_ENDPOINT. */
  readonly endpoint?: string;
  /** The Wine prefix (default: defaultPrefixDir). */
  readonly prefix?: string;
  readonly cwd?: string;
  /** Kill the program (and its process group) after this long; the result says `timedOut`. */
  readonly timeoutMs?: number;
  /** Write the program's stdout / stderr here as it comes, instead of collecting it. */
  readonly stdout?: Writable;
  readonly stderr?: Writable;
  /** Aborting kills the program (SIGTERM, SIGKILL a second later). */
  readonly signal?: AbortSignal;
  /** Keep the wineserver until `wineserver -k` instead of for a minute after the last program. */
  readonly keepWineserver?: boolean;
  /** Tools and DLLs already checked (tests, callers that prepared them). */
  readonly wine?: PreparedWine;
  /**
   * The Windows the program sees (src/wine/winver.ts): default, the one of the node at `endpoint`
   * (its GetVersion profile), else the default profile's (ws2022).
   */
  readonly windows?: WindowsVersion;
  /** Told before a slow first-use step: the per-build prefix being written (a few seconds). */
  readonly onStep?: (step: WineStep) => void;
}

/** A slow first-use step, announced before it runs (`hnsim wine` says each on stderr). */
export type WineStep =
  | { readonly step: 'prefix'; readonly dir: string }
  | { readonly step: 'compile' }
  | { readonly step: 'windows'; readonly dir: string; readonly windows: WindowsVersion };

export interface WineRunResult {
  /** The program's exit status (Wine passes its low 8 bits); 128 + N when killed by signal N. */
  readonly exitCode: number;
  /** What it printed (empty when streamed to `stdout` / `stderr`). */
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  readonly signal?: NodeJS.Signals;
}

/** Wine and a prefix ready to run programs in. */
export interface PreparedWine {
  readonly tools: WineTools;
  readonly prefix: PreparedPrefix;
}

const prepared = new Map<string, Promise<PreparedWine>>();

/**
 * Check the tools, build the DLLs (src/wine/build.ts, cached by source hash) and prepare the prefix;
 * once per prefix per process. A missing tool rejects with WineMissingError.
 */
export function prepareWine(
  options: { readonly prefix?: string; readonly env?: Env; readonly onStep?: (step: WineStep) => void } = {},
): Promise<PreparedWine> {
  const env = options.env ?? process.env;
  const dir = resolve(options.prefix ?? defaultPrefixDir(env));
  let p = prepared.get(dir);
  if (!p) {
    p = (async () => {
      const { buildDlls, readPeExports } = await import('./build.js');
      const { prefixReady } = await import('./prefix.js');
      const report = wineDoctor(env);
      if (!report.ok || !report.wine || !report.wineserver) throw new WineMissingError(doctorMessage(report));
      const tools: WineTools = { wine: report.wine, wineserver: report.wineserver };
      // the prefix first: hnsim's iphlpapi.dll forwards to the exports of the Wine it holds
      if (!prefixReady(dir)) options.onStep?.({ step: 'prefix', dir });
      const created = (await preparePrefix({ dir, tools, dlls: [], env })).created;
      const wineIphlpapi = wineBuiltinOf(dir, 'iphlpapi.dll');
      if (!wineIphlpapi) {
        throw new WinePrefixError(
          `Wine's iphlpapi.dll is neither in ${system32(dir)} nor kept there as iphlpapi_wine.dll: delete the prefix ${dir} to start afresh`,
        );
      }
      const built = await buildDlls({
        ...(report.mingw ? { cc: report.mingw } : {}),
        iphlpapiForwards: readPeExports(wineIphlpapi),
        onCompile: () => options.onStep?.({ step: 'compile' }),
      });
      const dlls = built.dlls.map((d) => (isAbsolute(d) ? d : resolve(built.outDir, d)));
      const prefix = await preparePrefix({ dir, tools, dlls, env });
      return { tools, prefix: { ...prefix, created: prefix.created || created } };
    })();
    prepared.set(dir, p);
    p.catch(() => prepared.delete(dir));
  }
  return p;
}

/** A Windows path (`C:\…`, `Z:/…`, `\\server\share`), Wine's to find. */
function isWindowsPath(program: string): boolean {
  return /^[A-Za-z]:[\\/]/.test(program) || program.startsWith('\\\\');
}

/** Check a program given as a path on this machine; a Windows path (`C:\…`) is Wine's to find. */
export function checkProgram(program: string, cwd: string = process.cwd()): void {
  if (isWindowsPath(program)) return;
  const path = resolve(cwd, program);
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new WineProgramError(`${program}: no such file`, 127);
  }
  if (!st.isFile()) throw new WineProgramError(`${program}: not a file`, 126);
}

/** WINEDLLOVERRIDES with hnsim's DLLs native first; the caller's entries kept after. */
function dllOverrides(current: string | undefined): string {
  return current ? `${HNSIM_DLL_OVERRIDES};${current}` : HNSIM_DLL_OVERRIDES;
}

/** How long a program's pipes may stay open after it exits (a Wine service holding them). */
const PIPE_GRACE_MS = 250;

/**
 * Run one program under Wine and wait for it. Rejects with WineMissingError (no Wine or mingw-w64),
 * WineProgramError (no such program) or a WinePrefixError (the prefix cannot be prepared); the
 * program's own failure is its exit code.
 */
export async function runUnderWine(request: WineRunRequest): Promise<WineRunResult> {
  const env = request.env ?? process.env;
  const cwd = request.cwd ?? process.cwd();
  checkProgram(request.program, cwd);
  const wine =
    request.wine ?? (await prepareWine({ ...(request.prefix ? { prefix: request.prefix } : {}), env }));
  const { tools } = wine;
  const windows = request.windows ?? (await windowsOfNode(request.endpoint));
  const w = await prepareWindowsPrefix({
    base: wine.prefix.dir,
    tools,
    windows,
    env,
    ...(request.onStep
      ? { onCreate: (dir: string) => request.onStep!({ step: 'windows', dir, windows }) }
      : {}),
  });
  const dir = w.dir;
  await startWindowsSession(tools, dir, windows, request.keepWineserver ? 'forever' : 60, env);
  const childEnv = wineEnv(tools, dir, env);
  childEnv['WINEDLLOVERRIDES'] = dllOverrides(env['WINEDLLOVERRIDES']);
  if (request.endpoint !== undefined) childEnv['HNSIM_ENDPOINT'] = request.endpoint;
  // a path on this machine goes to Wine absolute (Wine would look a bare name up as Windows does)
  const program = isWindowsPath(request.program) ? request.program : resolve(cwd, request.program);
  return spawnWine(tools.wine, [program, ...(request.args ?? [])], childEnv, cwd, request);
}

/** The Windows of the node a program will talk to (its GetVersion profile), else the default profile's. */
async function windowsOfNode(endpoint: string | undefined): Promise<WindowsVersion> {
  const version =
    endpoint === undefined ? undefined : await simulatorVersion(endpoint).catch(() => undefined);
  return windowsVersionOf(version ?? resolveProfile(DEFAULT_PROFILE)!);
}

/** Spawn the loader in its own process group and collect (or stream) its output. */
function spawnWine(
  file: string,
  args: readonly string[],
  env: Record<string, string>,
  cwd: string,
  request: WineRunRequest,
): Promise<WineRunResult> {
  const stdinMode = request.stdin === 'inherit' ? 'inherit' : 'pipe';
  return new Promise<WineRunResult>((resolvePromise, reject) => {
    const child = spawn(file, args, { cwd, env, stdio: [stdinMode, 'pipe', 'pipe'], detached: true });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    let settled = false;
    const killGroup = (sig: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, sig);
      } catch {
        child.kill(sig);
      }
    };
    const timers: NodeJS.Timeout[] = [];
    if (request.timeoutMs !== undefined) {
      timers.push(
        setTimeout(() => {
          timedOut = true;
          killGroup('SIGKILL');
        }, request.timeoutMs),
      );
    }
    const onAbort = (): void => {
      killGroup('SIGTERM');
      const t = setTimeout(() => killGroup('SIGKILL'), 1000);
      t.unref();
      timers.push(t);
    };
    request.signal?.addEventListener('abort', onAbort, { once: true });
    // aborted while the prefix was being prepared: the listener above will never fire
    if (request.signal?.aborted) onAbort();
    // a reader that went away (`hnsim wine … | head`) is not the program's failure: what it would
    // have read is dropped, as a shell pipeline drops it, and the program runs on
    const closed = new Set<Writable>();
    const onWriteError = (to: Writable) => (): void => {
      closed.add(to);
    };
    const listeners: [Writable, () => void][] = [];
    for (const to of [request.stdout, request.stderr]) {
      if (!to || listeners.some(([w]) => w === to)) continue;
      const l = onWriteError(to);
      to.on('error', l);
      listeners.push([to, l]);
    }
    const sink = (chunks: Buffer[], to: Writable | undefined) => (b: Buffer) => {
      if (!to) chunks.push(b);
      else if (!closed.has(to) && !to.destroyed) to.write(b);
    };
    child.stdout!.on('data', sink(out, request.stdout));
    child.stderr!.on('data', sink(err, request.stderr));
    const ended = (s: Readable): Promise<void> =>
      new Promise((r) => {
        if (s.readableEnded || s.destroyed) r();
        else s.once('close', () => r());
      });
    const pipesClosed = Promise.all([ended(child.stdout!), ended(child.stderr!)]);
    // stdin: an EPIPE when the program exits without reading it is not a failure
    if (child.stdin) {
      child.stdin.on('error', () => undefined);
      const input = request.stdin;
      if (input === undefined) child.stdin.end();
      else if (typeof input === 'string' || input instanceof Uint8Array) child.stdin.end(input);
      else if (typeof input !== 'string') input.pipe(child.stdin);
    }
    child.once('error', (e) => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      request.signal?.removeEventListener('abort', onAbort);
      for (const [w, l] of listeners) w.off('error', l);
      reject(new WineMissingError(`cannot run ${file}: ${e.message}`));
    });
    child.once('exit', (code, signal) => {
      void (async () => {
        for (const t of timers) clearTimeout(t);
        request.signal?.removeEventListener('abort', onAbort);
        const input = request.stdin;
        if (input !== undefined && typeof input !== 'string' && !(input instanceof Uint8Array)) {
          input.unpipe(child.stdin ?? undefined);
        }
        // the output written before exit arrives now; a pipe a Wine service still holds is let go
        let graceTimer: NodeJS.Timeout | undefined;
        const grace = new Promise<void>((r) => (graceTimer = setTimeout(r, PIPE_GRACE_MS)));
        await Promise.race([pipesClosed, grace]);
        clearTimeout(graceTimer); // a pending grace timer would keep a CLI process alive 250 ms longer
        child.stdout!.destroy();
        child.stderr!.destroy();
        for (const [w, l] of listeners) w.off('error', l);
        if (settled) return;
        settled = true;
        const sig = signal ?? undefined;
        resolvePromise({
          exitCode: code ?? 128 + signalNumber(sig),
          stdout: Buffer.concat(out).toString('utf8'),
          stderr: Buffer.concat(err).toString('utf8'),
          timedOut,
          ...(sig ? { signal: sig } : {}),
        });
      })();
    });
  });
}

function signalNumber(sig: NodeJS.Signals | undefined): number {
  return sig ? (constants.signals[sig] ?? 0) : 0;
}
