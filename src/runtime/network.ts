/**
 * A CNI network for a runtime in one call: the conflist parsed as libcni parses it, and a runner
 * on the node with the reference plugins (or your registry) — what containerd builds from its
 * `conf_dir` and `bin_dir`.
 *
 *   const rt = new ContainerdRuntime(host, { networks: [cniNetwork(host, conflist)] });
 */
import { confListFromBytes, type NetworkConfigList } from '../cni/conf.js';
import { pluginHost } from '../cni/host.js';
import type { PluginRegistry } from '../cni/registry.js';
import { CniRunner } from '../cni/runner.js';
import type { Json } from '../core/json.js';
import type { Host } from '../host/host.js';
import { DEFAULT_CNI_BIN_DIR, referenceRegistry } from '../plugins/index.js';
import type { CniNetwork } from './contracts.js';

export interface CniNetworkOptions {
  /** The plugins the node has (default: every reference plugin, in any directory). */
  readonly registry?: PluginRegistry;
  /** The plugin directories (CNI_PATH; default containerd's bin directory on Windows). */
  readonly path?: readonly string[];
  /** libcni's cache directory (default /var/lib/cni). */
  readonly cacheDir?: string;
  /**
   * The working directory the plugins start in (`CniRunnerOptions.cwd`), whichever runtime runs
   * them. Default: unset — the runtime's own (`ContainerdOptions.cwd`, `DockershimOptions.cwd`).
   */
  readonly cwd?: string;
}

/**
 * A conflist (its text, or the JSON object: any plain object literal) and a runner for it on
 * `host`. Throws libcni's parse errors.
 */
export function cniNetwork(
  host: Host,
  conflist: string | Json | object,
  options: CniNetworkOptions = {},
): CniNetwork<NetworkConfigList> & { readonly runner: CniRunner } {
  const text = typeof conflist === 'string' ? conflist : JSON.stringify(conflist);
  const runner = new CniRunner(pluginHost(host, options.registry ?? referenceRegistry()), {
    path: options.path ?? [DEFAULT_CNI_BIN_DIR],
    ...(options.cacheDir !== undefined ? { cacheDir: options.cacheDir } : {}),
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
  });
  return { list: confListFromBytes(text), runner };
}
