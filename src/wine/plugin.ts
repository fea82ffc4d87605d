/**
 * Real CNI plugin binaries as plugins of a simulated node (issue 10): a Windows `.exe` on this
 * machine, run under Wine (src/wine/run.ts) with the invocation's environment and stdin, its
 * computenetwork.dll calls reaching the node through its TCP face (src/wine/sim.ts withFace). Where
 * real binaries live: in a Linux directory, named on CNI_PATH in Wine's form (`Z:\home\me\cni\bin`,
 * drive Z: being Wine's `/`) or as a Unix path (`/home/me/cni/bin`), or given by path to CniExec and
 * `hnsim cni --plugin`. Only PE files named `*.exe` count. A registry with `useBinaries(…)` finds
 * them ahead of a TypeScript plugin of the same type in that directory, so a conflist mixes both.
 *
 *   const registry = referenceRegistry().useBinaries(wineBinaries(host));
 *   // conflist: win-bridge (TypeScript) then my-cni, with CNI_PATH 'C:\opt\cni\bin;Z:\home\me\cni\bin'
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Host } from '../host/host.js';
import type { CniPlugin, ExecOutput, ExecRequest, PluginHost } from '../cni/contracts.js';
import type { BinaryLookup, PluginRegistry } from '../cni/registry.js';
import { referenceRegistry } from '../plugins/index.js';
import { runUnderWine, type WineRunRequest, type WineRunResult } from './run.js';
import { withFace } from './sim.js';
import { windowsVersionOf } from './winver.js';

type Env = Readonly<Record<string, string | undefined>>;

/** What runs a binary: runUnderWine, or a stand-in (tests). */
export type WineExecutor = (
  request: WineRunRequest,
) => Promise<Pick<WineRunResult, 'exitCode' | 'stdout' | 'stderr'>>;

export interface WineBinaryOptions {
  /** Default runUnderWine. */
  readonly exec?: WineExecutor;
  /** The Wine prefix (default: src/wine/prefix.ts defaultPrefixDir). */
  readonly prefix?: string;
  /** How long one invocation may take (default 120 s; then it is killed, exit status 137). */
  readonly timeoutMs?: number;
  /**
   * The environment under the invocation's CNI_* variables (default: this process's, as a runtime
   * passes its own environment to plugins; Wine needs HOME and friends).
   */
  readonly env?: Env;
  /** The program's working directory (default: this process's; on drive Z: under Wine). */
  readonly cwd?: string;
}

/**
 * The directory on this machine a CNI_PATH entry names: `Z:\x` (or `Z:/x`) is `/x`, a Unix absolute
 * path is itself; any other drive is the simulated node's, not this machine's (undefined).
 */
export function linuxDir(dir: string): string | undefined {
  const m = /^[Zz]:([\\/].*)?$/.exec(dir);
  if (m) return (m[1] ?? '/').replace(/\\/g, '/') || '/';
  if (dir.startsWith('/')) return dir;
  return undefined;
}

/** Whether a file is a Windows executable (its first two bytes "MZ"). */
function isPeFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    const fd = openSync(path, 'r');
    try {
      const b = Buffer.alloc(2);
      return readSync(fd, b, 0, 2, 0) === 2 && b[0] === 0x4d && b[1] === 0x5a;
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}

/** One real binary as a CNI plugin of `host`'s node: each exec runs it under Wine. */
export function winePlugin(
  host: Host,
  type: string,
  path: string,
  options: WineBinaryOptions = {},
): CniPlugin {
  const exec = options.exec ?? runUnderWine;
  return {
    type,
    async exec(_ph: PluginHost, request: ExecRequest): Promise<ExecOutput> {
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(options.env ?? process.env)) if (v !== undefined) env[k] = v;
      for (const [k, v] of Object.entries(request.env)) if (v !== undefined) env[k] = v;
      return withFace(host, async (endpoint) => {
        const out = await exec({
          program: path,
          env,
          stdin: request.stdin,
          endpoint,
          windows: windowsVersionOf(host.profile),
          timeoutMs: options.timeoutMs ?? 120_000,
          ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
          ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
        });
        return { exitCode: out.exitCode, stdout: out.stdout, stderr: out.stderr };
      });
    },
  };
}

/**
 * The lookup that makes a registry find real binaries (`registry.useBinaries(wineBinaries(host))`):
 * `<type>.exe` in a directory of this machine (linuxDir) that is a PE file.
 */
export function wineBinaries(host: Host, options: WineBinaryOptions = {}): BinaryLookup {
  const cache = new Map<string, CniPlugin>();
  return (dir, file) => {
    if (!/\.exe$/i.test(file)) return undefined;
    const d = linuxDir(dir);
    if (d === undefined) return undefined;
    const path = join(d, file);
    if (!isPeFile(path)) return undefined;
    let p = cache.get(path);
    if (!p) {
      p = winePlugin(host, file.replace(/\.exe$/i, ''), path, options);
      cache.set(path, p);
    }
    return p;
  };
}

/** The reference plugins plus the real binaries of this machine, for `host`'s node. */
export function wineRegistry(host: Host, options: WineBinaryOptions = {}): PluginRegistry {
  return referenceRegistry().useBinaries(wineBinaries(host, options));
}
