/**
 * A host's simulated file system: what CNI plugins keep on disk between invocations (host-local's
 * `<dataDir>/<network>/<ip>` reservations, flannel's saved delegate config, libcni's result cache).
 * It belongs to the host, goes into its snapshot, and so survives across `hnsim cni` runs.
 *
 * Paths are Windows paths: `\` and `/` are the same separator, case does not matter, a drive letter
 * `C:` names the one volume (so `C:\var\lib\cni` and `/var/lib/cni` are one directory), repeated
 * separators collapse. A name keeps the case it was first written with. Directories exist while they
 * hold a file; `mkdir` is implied. Contents are text (every file a CNI plugin writes is).
 *
 *   host.files.write('/var/lib/cni/networks/cbr0/10.244.1.2', 'abc\r\neth0');
 *   host.files.list('/var/lib/cni/networks/cbr0');   // ['10.244.1.2']
 */
import { isJsonObject, type JsonObject } from './json.js';
import { hnsError } from './errors.js';

/** Bounds that keep a snapshot's file section sane: a path, a file, and the whole store. */
export const FILE_LIMITS = { path: 4096, file: 1 << 20, files: 100_000 } as const;

export interface FileChange {
  readonly op: 'write' | 'remove';
  readonly path: string;
}

/** `C:\Var\\lib/` → `/var/lib` (the key), and the display form `/Var/lib`. */
export function normalizePath(path: string): { key: string; display: string } {
  let p = path.replace(/\\/g, '/');
  p = p.replace(/^[A-Za-z]:/, '');
  if (!p.startsWith('/')) p = `/${p}`;
  const parts: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  const display = `/${parts.join('/')}`;
  return { key: display.toLowerCase(), display };
}

/** Join path segments with `/` (what Go's filepath.Join does, up to the separator). */
export function joinPath(...segments: string[]): string {
  return normalizePath(segments.filter((s) => s !== '').join('/')).display;
}

export class FileStore {
  /** key → [display path, contents] */
  readonly #files = new Map<string, [string, string]>();
  /** Called after every change (the host turns it into an event). */
  onChange: ((c: FileChange) => void) | undefined;

  get size(): number {
    return this.#files.size;
  }

  read(path: string): string | undefined {
    return this.#files.get(normalizePath(path).key)?.[1];
  }

  exists(path: string): boolean {
    return this.#files.has(normalizePath(path).key);
  }

  /** Whether `path` is a directory: some file lies under it. */
  isDirectory(path: string): boolean {
    const { key } = normalizePath(path);
    const prefix = key === '/' ? '/' : `${key}/`;
    for (const k of this.#files.keys()) if (k.startsWith(prefix)) return true;
    return false;
  }

  write(path: string, data: string): void {
    const { key, display } = normalizePath(path);
    if (display === '/') throw hnsError('E_INVALIDARG', 'cannot write the root directory');
    if (display.length > FILE_LIMITS.path)
      throw hnsError('E_INVALIDARG', `path longer than ${FILE_LIMITS.path}`);
    if (data.length > FILE_LIMITS.file)
      throw hnsError('E_INVALIDARG', `file larger than ${FILE_LIMITS.file}`);
    const old = this.#files.get(key);
    if (!old && this.#files.size >= FILE_LIMITS.files) {
      throw hnsError('E_INVALIDARG', `more than ${FILE_LIMITS.files} files`);
    }
    if (!old && this.isDirectory(display)) throw hnsError('E_INVALIDARG', `${display} is a directory`);
    this.#files.set(key, [old ? old[0] : this.#caseOf(display), data]);
    this.onChange?.({ op: 'write', path: display });
  }

  /** Keep the case of directories that already exist (`/var/LIB/x` under `/var/lib` → `/var/lib/x`). */
  #caseOf(display: string): string {
    const segs = display.split('/').slice(1);
    if (segs.length < 2) return display;
    const dir = `/${segs.slice(0, -1).join('/')}`;
    const dirKey = dir.toLowerCase();
    for (const [k, [shown]] of this.#files) {
      if (k.startsWith(`${dirKey}/`)) return `${shown.slice(0, dir.length)}/${segs[segs.length - 1]!}`;
    }
    return display;
  }

  /** Remove a file; true if it existed. */
  remove(path: string): boolean {
    const { key, display } = normalizePath(path);
    const had = this.#files.delete(key);
    if (had) this.onChange?.({ op: 'remove', path: display });
    return had;
  }

  /** Remove a directory and everything under it; the number of files removed. */
  removeTree(path: string): number {
    const { key } = normalizePath(path);
    const prefix = key === '/' ? '/' : `${key}/`;
    let n = 0;
    for (const [k, [shown]] of [...this.#files]) {
      if (k === key || k.startsWith(prefix)) {
        this.#files.delete(k);
        n++;
        this.onChange?.({ op: 'remove', path: shown });
      }
    }
    return n;
  }

  /** The names directly in a directory (files and subdirectories), sorted; [] if there is none. */
  list(dir: string): string[] {
    const { key } = normalizePath(dir);
    const prefix = key === '/' ? '/' : `${key}/`;
    const names = new Set<string>();
    for (const [k, [shown]] of this.#files) {
      if (!k.startsWith(prefix)) continue;
      names.add(shown.slice(prefix.length).split('/')[0]!);
    }
    return [...names].sort();
  }

  /** Every file under a directory (default: all), as [path, contents], sorted by path. */
  entries(under = '/'): [string, string][] {
    const { key } = normalizePath(under);
    const prefix = key === '/' ? '/' : `${key}/`;
    return [...this.#files]
      .filter(([k]) => k === key || k.startsWith(prefix))
      .map(([, v]): [string, string] => [v[0], v[1]])
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }

  clear(): void {
    this.#files.clear();
  }

  toJSON(): JsonObject {
    return Object.fromEntries(this.entries());
  }

  /** Validate first, then replace everything (a bad document changes nothing). */
  restore(doc: unknown): void {
    if (doc === undefined || doc === null) {
      this.#files.clear();
      return;
    }
    if (!isJsonObject(doc)) throw hnsError('E_INVALIDARG', 'files: expected an object of path → contents');
    const next = new Map<string, [string, string]>();
    for (const [p, data] of Object.entries(doc)) {
      if (typeof data !== 'string') throw hnsError('E_INVALIDARG', `files: ${p} is not text`);
      const { key, display } = normalizePath(p);
      if (display === '/' || display.length > FILE_LIMITS.path || data.length > FILE_LIMITS.file) {
        throw hnsError('E_INVALIDARG', `files: bad entry ${p.slice(0, 80)}`);
      }
      next.set(key, [display, data]);
    }
    if (next.size > FILE_LIMITS.files)
      throw hnsError('E_INVALIDARG', `files: more than ${FILE_LIMITS.files}`);
    this.#files.clear();
    for (const [k, v] of next) this.#files.set(k, v);
  }
}
