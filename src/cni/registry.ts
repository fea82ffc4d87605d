/**
 * Where plugins are "installed": the binaries a node has in its CNI bin directories, found the way
 * containernetworking/cni `pkg/invoke/find.go` finds them on Windows (each `CNI_PATH` entry in
 * order, `<type>.exe` then `<type>`; `filepath.SplitList` splitting on `;` outside quotes) with its
 * error texts. Reference: cni-windows.md §1.2 (CNI_PATH row).
 */
import type { CniPlugin } from './contracts.js';
import { GoError, goList, goStrconvQuote } from './gojson.js';

/** `invoke.ExecutableFileExtensions` on Windows. */
export const EXECUTABLE_EXTENSIONS = ['.exe', ''] as const;

/** Windows `filepath.SplitList`: `;`-separated, quotes group and are removed; "" → []. */
export function splitPathList(path: string): string[] {
  if (path === '') return [];
  const list: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < path.length; i++) {
    const c = path[i];
    if (c === '"') quoted = !quoted;
    else if (c === ';' && !quoted) {
      list.push(path.slice(start, i));
      start = i + 1;
    }
  }
  list.push(path.slice(start));
  return list.map((s) => s.replaceAll('"', ''));
}

/** A directory key: separators unified, trailing ones dropped, case folded (NTFS). */
function dirKey(dir: string): string {
  let d = dir.replace(/\//g, '\\');
  while (d.length > 1 && d.endsWith('\\') && !/^[A-Za-z]:\\$/.test(d)) d = d.slice(0, -1);
  return d.toLowerCase();
}

/** `filepath.Join(dir, name)` in Windows form, enough for display. */
function joinWin(dir: string, name: string): string {
  if (dir === '') return name;
  const d = dir.replace(/\//g, '\\');
  return d.endsWith('\\') ? `${d}${name}` : `${d}\\${name}`;
}

/**
 * Real plugin binaries on the machine running hnsim (issue 10: src/wine/plugin.ts runs them under
 * Wine): the plugin that `file` (`<type>.exe` or `<type>`) in directory `dir` (a CNI_PATH entry, or
 * the directory of a binary path) is, or undefined when there is no such binary there.
 */
export type BinaryLookup = (dir: string, file: string) => CniPlugin | undefined;

export interface FoundPlugin {
  readonly plugin: CniPlugin;
  /** The full path `FindInPath` returned (`C:\opt\cni\bin\win-bridge.exe`). */
  readonly path: string;
}

/**
 * The plugins one node has. `register(plugin, dirs)` puts `<type>.exe` in each directory; without
 * `dirs` the plugin is in every directory a `CNI_PATH` names (a convenience for tests and the CLI).
 */
export class PluginRegistry {
  /** dir key → file name (lower case) → plugin */
  readonly #dirs = new Map<string, Map<string, CniPlugin>>();
  readonly #everywhere = new Map<string, CniPlugin>();
  #binaries: BinaryLookup | undefined;

  register(plugin: CniPlugin, dirs?: readonly string[]): this {
    const file = `${plugin.type}.exe`.toLowerCase();
    if (!dirs) {
      this.#everywhere.set(file, plugin);
      return this;
    }
    for (const dir of dirs) {
      const key = dirKey(dir);
      let files = this.#dirs.get(key);
      if (!files) this.#dirs.set(key, (files = new Map()));
      files.set(file, plugin);
    }
    return this;
  }

  /**
   * Let real binaries be found too: a directory where `lookup` finds a binary holds it, ahead of a
   * registered plugin of the same type (`undefined` turns it off).
   */
  useBinaries(lookup: BinaryLookup | undefined): this {
    this.#binaries = lookup;
    return this;
  }

  /** The real binary a path names (`/opt/cni/win-bridge.exe`, `Z:\cni\x.exe`), if `useBinaries` finds one. */
  binary(path: string): CniPlugin | undefined {
    if (!this.#binaries) return undefined;
    const cut = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
    if (cut < 0) return undefined;
    return this.#binaries(cut === 0 ? path.slice(0, 1) : path.slice(0, cut), path.slice(cut + 1));
  }

  /** Remove a plugin from some directories (or from everywhere it was registered). */
  unregister(type: string, dirs?: readonly string[]): void {
    const file = `${type}.exe`.toLowerCase();
    if (!dirs) {
      this.#everywhere.delete(file);
      for (const files of this.#dirs.values()) files.delete(file);
      return;
    }
    for (const dir of dirs) this.#dirs.get(dirKey(dir))?.delete(file);
  }

  /** The plugin of a type, wherever it is installed (what exec'ing its binary by path reaches). */
  plugin(type: string): CniPlugin | undefined {
    const file = `${type}.exe`.toLowerCase();
    const everywhere = this.#everywhere.get(file);
    if (everywhere) return everywhere;
    for (const files of this.#dirs.values()) {
      const p = files.get(file);
      if (p) return p;
    }
    return undefined;
  }

  /** Every registered plugin type, sorted. */
  types(): string[] {
    const out = new Set<string>();
    for (const p of this.#everywhere.values()) out.add(p.type);
    for (const files of this.#dirs.values()) for (const p of files.values()) out.add(p.type);
    return [...out].sort();
  }

  /** The plugin a file in a directory is, if any. */
  #file(dir: string, name: string): CniPlugin | undefined {
    const real = this.#binaries?.(dir, name);
    if (real) return real;
    const lower = name.toLowerCase();
    return this.#dirs.get(dirKey(dir))?.get(lower) ?? this.#everywhere.get(lower);
  }

  /**
   * `invoke.FindInPath(plugin, paths)`: the first directory holding `<plugin>.exe` or `<plugin>`.
   * Throws Go's errors: `no plugin name provided`, `invalid plugin name: <p>` (a `\` in it),
   * `no paths provided`, `failed to find plugin "<p>" in path [<a> <b>]`.
   */
  find(plugin: string, paths: readonly string[]): FoundPlugin {
    if (plugin === '') throw new GoError('no plugin name provided');
    if (plugin.includes('\\')) throw new GoError(`invalid plugin name: ${plugin}`);
    if (paths.length === 0) throw new GoError('no paths provided');
    for (const dir of paths) {
      for (const ext of EXECUTABLE_EXTENSIONS) {
        const name = `${plugin}${ext}`;
        const found = dir === '' ? undefined : this.#file(dir, name);
        if (found) return { plugin: found, path: joinWin(dir, name) };
      }
    }
    throw new GoError(`failed to find plugin ${goStrconvQuote(plugin)} in path ${goList(paths)}`);
  }
}
