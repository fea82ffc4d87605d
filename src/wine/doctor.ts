/**
 * What running a Windows program against hnsim needs on this machine (issue 10; reference
 * wine-shim.md §1): Wine's 64-bit loader and its wineserver, and mingw-w64's C compiler, which builds
 * hnsim's computenetwork.dll, vmcompute.dll, computecore.dll and iphlpapi.dll from their sources on first use.
 * When something is missing, the report names it and the Debian package that provides it.
 *
 *   const report = wineDoctor(process.env);
 *   if (!report.ok) console.error(doctorMessage(report));   // … apt-get install -y wine64 …
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join } from 'node:path';

/** Wine's loader and server, as found. */
export interface WineTools {
  /** The loader that runs a Windows program (`/usr/lib/wine/wine64` on Debian 12). */
  readonly wine: string;
  /** The server every Wine process of a prefix talks to (`wineserver`). */
  readonly wineserver: string;
}

/** One thing `hnsim wine` needs and did not find. */
export interface MissingTool {
  readonly what: string;
  /** Where it was looked for. */
  readonly lookedFor: string;
  /** The Debian package that provides it. */
  readonly package: string;
}

export interface DoctorReport {
  readonly wine?: string;
  readonly wineserver?: string;
  /** mingw-w64's `x86_64-w64-mingw32-gcc`. */
  readonly mingw?: string;
  readonly missing: readonly MissingTool[];
  readonly ok: boolean;
}

/** The Debian 12 packages (reference wine-shim.md §1): Wine (pulls `wine`), mingw-w64's gcc. */
export const WINE_PACKAGE = 'wine64';
export const MINGW_PACKAGE = 'gcc-mingw-w64-x86-64';

type Env = Readonly<Record<string, string | undefined>>;

/** Whether a path is an executable regular file. */
function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `which name` over the environment's PATH. */
function onPath(name: string, env: Env): string | undefined {
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue;
    const p = join(dir, name);
    if (isExecutable(p)) return p;
  }
  return undefined;
}

/** A candidate: an absolute path, or a name looked up on PATH. */
function resolveCandidate(c: string, env: Env): string | undefined {
  if (isAbsolute(c)) return isExecutable(c) ? c : undefined;
  return onPath(c, env);
}

/**
 * The loader: `$HNSIM_WINE` when set, else Debian's `/usr/lib/wine/wine64` (Debian 12 has no
 * `/usr/bin/wine64`; reference §1), else `wine64` or `wine` on PATH (`/usr/bin/wine` is Debian's
 * shell wrapper around the same loader).
 */
export const WINE_CANDIDATES = ['/usr/lib/wine/wine64', 'wine64', '/usr/bin/wine', 'wine'] as const;

/** The server: `$WINESERVER` (Wine's own variable), else the loader's sibling, else these. */
export const WINESERVER_CANDIDATES = [
  '/usr/lib/wine/wineserver',
  'wineserver',
  '/usr/bin/wineserver',
] as const;

/** Wine's loader and server on this machine, each undefined when not found. */
export function findWine(env: Env = process.env): Partial<WineTools> {
  const explicit = env['HNSIM_WINE'];
  const wine =
    explicit !== undefined && explicit !== ''
      ? resolveCandidate(explicit, env)
      : WINE_CANDIDATES.map((c) => resolveCandidate(c, env)).find((p) => p !== undefined);
  const explicitServer = env['WINESERVER'];
  let wineserver: string | undefined;
  if (explicitServer !== undefined && explicitServer !== '') {
    wineserver = resolveCandidate(explicitServer, env);
  } else {
    const sibling = wine ? join(dirname(wine), 'wineserver') : undefined;
    wineserver = [...(sibling ? [sibling] : []), ...WINESERVER_CANDIDATES]
      .map((c) => resolveCandidate(c, env))
      .find((p) => p !== undefined);
  }
  return { ...(wine ? { wine } : {}), ...(wineserver ? { wineserver } : {}) };
}

/**
 * mingw-w64's compiler: `$HNSIM_MINGW_GCC`, else `x86_64-w64-mingw32-gcc` on PATH (what
 * src/wine/build.ts's mingwAvailable finds in this process's environment).
 */
export function findMingw(env: Env = process.env): string | undefined {
  const explicit = env['HNSIM_MINGW_GCC'];
  if (explicit) return resolveCandidate(explicit, env);
  return resolveCandidate('x86_64-w64-mingw32-gcc', env);
}

/**
 * What is there and what is missing. `mingw` finds the compiler (default findMingw over `env`;
 * src/wine/build.ts's `mingwAvailable` looks in this process's environment); `needMingw: false`
 * skips it.
 */
export function wineDoctor(
  env: Env = process.env,
  options: { readonly mingw?: () => string | undefined; readonly needMingw?: boolean } = {},
): DoctorReport {
  const { wine, wineserver } = findWine(env);
  const needMingw = options.needMingw ?? true;
  const mingw = needMingw ? (options.mingw ?? (() => findMingw(env)))() : undefined;
  const missing: MissingTool[] = [];
  const explicit = env['HNSIM_WINE'];
  if (!wine) {
    missing.push({
      what: 'Wine (its 64-bit loader, wine64)',
      lookedFor:
        explicit !== undefined && explicit !== ''
          ? `$HNSIM_WINE=${explicit}`
          : '/usr/lib/wine/wine64, then wine64, /usr/bin/wine and wine on PATH',
      package: WINE_PACKAGE,
    });
  } else if (!wineserver) {
    missing.push({
      what: "Wine's server (wineserver)",
      lookedFor: `$WINESERVER, ${join(dirname(wine), 'wineserver')}, wineserver on PATH`,
      package: WINE_PACKAGE,
    });
  }
  if (needMingw && !mingw) {
    missing.push({
      what: "mingw-w64's C compiler (x86_64-w64-mingw32-gcc), which builds hnsim's DLLs",
      lookedFor: env['HNSIM_MINGW_GCC']
        ? `$HNSIM_MINGW_GCC=${env['HNSIM_MINGW_GCC']}`
        : 'x86_64-w64-mingw32-gcc on PATH',
      package: MINGW_PACKAGE,
    });
  }
  return {
    ...(wine ? { wine } : {}),
    ...(wineserver ? { wineserver } : {}),
    ...(mingw ? { mingw } : {}),
    missing,
    ok: missing.length === 0,
  };
}

/** The apt command that installs what is missing (every package, when nothing is). */
export function installCommand(report: DoctorReport): string {
  const pkgs = [...new Set(report.missing.map((m) => m.package))];
  return `apt-get update && apt-get install -y ${(pkgs.length ? pkgs : [WINE_PACKAGE, MINGW_PACKAGE]).join(' ')}`;
}

/** The plain-language account of what is missing and how to install it (several lines, no trailing newline). */
export function doctorMessage(report: DoctorReport): string {
  if (report.ok) return 'Wine and mingw-w64 are installed';
  const lines = [
    'running Windows programs needs Wine and mingw-w64; this machine lacks:',
    ...report.missing.map((m) => `  - ${m.what} (looked for ${m.lookedFor}; Debian package ${m.package})`),
    'Install them (Debian 12 or Ubuntu, as root; about 1.5 GB on disk, and the Wine prefix takes',
    'another ~700 MB on first use):',
    `  ${installCommand(report)}`,
  ];
  return lines.join('\n');
}

/** Go's toolchain on PATH (optional: it builds a Go plugin or test for GOOS=windows). */
export function findGo(env: Env = process.env): string | undefined {
  return onPath('go', env);
}

/** The first line a tool prints for its version flag, or undefined when it does not answer. */
function versionLine(file: string, args: readonly string[], env: Env): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { env: env as NodeJS.ProcessEnv, timeout: 20_000, maxBuffer: 1 << 20 },
      (err, stdout) => {
        const line = String(stdout).split('\n')[0]?.trim();
        resolve(err || !line ? undefined : line);
      },
    );
  });
}

export interface ToolVersions {
  /** `wine --version`: `wine-8.0 (Debian 8.0~repack-4)`. */
  readonly wine?: string;
  /** The mingw-w64 compiler's `--version` first line: `x86_64-w64-mingw32-gcc (GCC) 12-win32`. */
  readonly mingw?: string;
  /** `go version`: `go version go1.19.8 linux/amd64`. */
  readonly go?: string;
}

/** What the tools the doctor found say of their versions (run at once; a tool that fails: none). */
export async function toolVersions(
  tools: { readonly wine?: string; readonly mingw?: string; readonly go?: string },
  env: Env = process.env,
): Promise<ToolVersions> {
  const quiet: Record<string, string | undefined> = { ...env, WINEDEBUG: '-all' };
  const [wine, mingw, go] = await Promise.all([
    tools.wine ? versionLine(tools.wine, ['--version'], quiet) : undefined,
    tools.mingw ? versionLine(tools.mingw, ['--version'], env) : undefined,
    tools.go ? versionLine(tools.go, ['version'], env) : undefined,
  ]);
  return { ...(wine ? { wine } : {}), ...(mingw ? { mingw } : {}), ...(go ? { go } : {}) };
}
