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

/** An absolute path with `/` separators, no empty, `.` or `..` segment and no trailing `/`. */
const NORMAL_PATH = /^(?:\/(?!\.\.?(?:\/|$))[^/\\]+)+$/;

/**
 * `C:\Var\\lib/` → `/var/lib` (the key), and the display form `/Var/lib`. A path is normalised
 * many times over (every store operation on it, and the plugins look a file up before they write
 * it), so recent answers are kept (frozen, shared).
 */
export function normalizePath(path: string): { readonly key: string; readonly display: string } {
  let n = normalized.get(path);
  if (n === undefined) {
    n = Object.freeze(normalizeNow(path));
    if (normalized.size >= 4096) normalized.clear();
    normalized.set(path, n);
  }
  return n;
}
const normalized = new Map<string, { readonly key: string; readonly display: string }>();

function normalizeNow(path: string): { key: string; display: string } {
  // already in the display form: nothing to rewrite
  if (NORMAL_PATH.test(path)) return { key: path.toLowerCase(), display: path };
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

interface DirEntry {
  /** The directory's path as first written. */
  display: string;
  /** Files under it, at any depth (the directory exists while this is > 0). */
  count: number;
  /** lower-case name → name as written, of the files and directories directly in it. */
  readonly children: Map<string, string>;
}

export class FileStore {
  /** key → [display path, contents] */
  readonly #files = new Map<string, [string, string]>();
  /** Every directory that holds a file, by key (the root included): O(depth) per change. */
  readonly #dirs = new Map<string, DirEntry>();
  /** Called after every change (the host turns it into an event). */
  onChange: ((c: FileChange) => void) | undefined;
  /** Changes so far (writes, removes; a clear or restore counts one). */
  #changes = 0;
  /** Directory key → the change count at its latest change at any depth under it. */
  readonly #dirStamps = new Map<string, number>();
  /** The change count of the latest clear or restore (every directory changed then). */
  #floor = 0;

  get size(): number {
    return this.#files.size;
  }

  /**
   * How many changes this store has seen (a write or a remove counts one; so does a `clear` or a
   * `restore`). With `stamp`, lets a reader keep what it derived from a directory's files until
   * they change.
   */
  get changes(): number {
    return this.#changes;
  }

  /**
   * The change count of the latest change anywhere under `dir` (a file written or removed at any
   * depth, a clear, a restore): equal stamps mean nothing under `dir` changed in between.
   */
  stamp(dir: string): number {
    return Math.max(this.#dirStamps.get(normalizePath(dir).key) ?? 0, this.#floor);
  }

  /** The path of a file as the store shows it (the case it was first written with), if it exists. */
  displayPath(path: string): string | undefined {
    return this.#files.get(normalizePath(path).key)?.[0];
  }

  /** Count one change to the file `key`, stamped on every directory above it. */
  #touch(key: string): void {
    const n = ++this.#changes;
    let k = key;
    for (;;) {
      const i = k.lastIndexOf('/');
      if (i <= 0) break;
      k = k.slice(0, i);
      this.#dirStamps.set(k, n);
    }
    this.#dirStamps.set('/', n);
  }

  read(path: string): string | undefined {
    return this.#files.get(normalizePath(path).key)?.[1];
  }

  exists(path: string): boolean {
    return this.#files.has(normalizePath(path).key);
  }

  /** Whether `path` is a directory: some file lies under it. */
  isDirectory(path: string): boolean {
    return this.#dirs.has(normalizePath(path).key);
  }

  write(path: string, data: string): void {
    const { key, display } = normalizePath(path);
    if (display === '/') throw hnsError('E_INVALIDARG', 'cannot write the root directory');
    if (display.length > FILE_LIMITS.path)
      throw hnsError('E_INVALIDARG', `path longer than ${FILE_LIMITS.path}`);
    if (data.length > FILE_LIMITS.file)
      throw hnsError('E_INVALIDARG', `file larger than ${FILE_LIMITS.file}`);
    const old = this.#files.get(key);
    if (old) {
      old[1] = data;
    } else {
      if (this.#files.size >= FILE_LIMITS.files)
        throw hnsError('E_INVALIDARG', `more than ${FILE_LIMITS.files} files`);
      if (this.#dirs.has(key)) throw hnsError('E_INVALIDARG', `${display} is a directory`);
      const shown = this.#caseOf(display);
      // a file cannot sit where a directory of the path must be
      // (n: how many segments the directory has; the shown path may differ in length from the key)
      for (let i = key.indexOf('/', 1), n = 2; i > 0; i = key.indexOf('/', i + 1), n++) {
        if (this.#files.has(key.slice(0, i)))
          throw hnsError('E_INVALIDARG', `${shown.split('/').slice(0, n).join('/')} is a file`);
      }
      this.#files.set(key, [shown, data]);
      this.#link(key, shown);
    }
    this.#touch(key);
    this.onChange?.({ op: 'write', path: old ? old[0] : display });
  }

  /** The path with the case of the directories that already exist (`/var/LIB/x` → `/var/lib/x`). */
  #caseOf(display: string): string {
    const segs = display.split('/');
    let shown = '';
    for (let i = 1; i < segs.length; i++) {
      const dir = this.#dirs.get((shown || '/').toLowerCase());
      shown += `/${dir?.children.get(segs[i]!.toLowerCase()) ?? segs[i]!}`;
    }
    return shown;
  }

  /** Record a new file in its ancestors. */
  #link(key: string, shown: string): void {
    const keys = key.split('/');
    const names = shown.split('/');
    // the directory above segment i, built up one segment at a time (`/` for the first)
    let dirKey = '';
    let dirShown = '';
    for (let i = 1; i < keys.length; i++) {
      if (i > 1) {
        dirKey += `/${keys[i - 1]!}`;
        dirShown += `/${names[i - 1]!}`;
      }
      let dir = this.#dirs.get(dirKey || '/');
      if (!dir) {
        dir = { display: dirShown || '/', count: 0, children: new Map() };
        this.#dirs.set(dirKey || '/', dir);
      }
      dir.count++;
      if (!dir.children.has(keys[i]!)) dir.children.set(keys[i]!, names[i]!);
    }
  }

  /** Forget a removed file in its ancestors; directories left empty go. */
  #unlink(key: string): void {
    const keys = key.split('/');
    let childGone = true;
    // the directory above segment i: the key up to the i-th `/` (`/` for the first)
    let end = key.length;
    for (let i = keys.length - 1; i >= 1; i--) {
      end -= keys[i]!.length + 1;
      const dirKey = end === 0 ? '/' : key.slice(0, end);
      const dir = this.#dirs.get(dirKey)!;
      if (childGone) dir.children.delete(keys[i]!);
      dir.count--;
      childGone = dir.count === 0;
      if (childGone) this.#dirs.delete(dirKey);
    }
  }

  /** Remove a file; true if it existed. */
  remove(path: string): boolean {
    const { key } = normalizePath(path);
    const old = this.#files.get(key);
    if (!old) return false;
    this.#files.delete(key);
    this.#unlink(key);
    this.#touch(key);
    this.onChange?.({ op: 'remove', path: old[0] });
    return true;
  }

  /** Remove a directory and everything under it (or one file); the number of files removed. */
  removeTree(path: string): number {
    const { key } = normalizePath(path);
    if (this.#files.has(key)) return this.remove(path) ? 1 : 0;
    const victims = this.#under(key).map(([k]) => k);
    for (const k of victims) {
      const shown = this.#files.get(k)![0];
      this.#files.delete(k);
      this.#unlink(k);
      this.#touch(k);
      this.onChange?.({ op: 'remove', path: shown });
    }
    return victims.length;
  }

  /** [key, display] of every file under a directory key, sorted by display path. */
  #under(dirKey: string): [string, string][] {
    const out: [string, string][] = [];
    const walk = (k: string): void => {
      const dir = this.#dirs.get(k);
      if (!dir) return;
      for (const child of dir.children.keys()) {
        const ck = k === '/' ? `/${child}` : `${k}/${child}`;
        const f = this.#files.get(ck);
        if (f) out.push([ck, f[0]]);
        else walk(ck);
      }
    };
    walk(dirKey);
    return out.sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  }

  /** The names directly in a directory (files and subdirectories), sorted; [] if there is none. */
  list(dir: string): string[] {
    const d = this.#dirs.get(normalizePath(dir).key);
    return d ? [...d.children.values()].sort() : [];
  }

  /** Every file under a directory (default: all), or that one file, as [path, contents], sorted by path. */
  entries(under = '/'): [string, string][] {
    const { key } = normalizePath(under);
    const f = this.#files.get(key);
    if (f) return [[f[0], f[1]]];
    return this.#under(key).map(([k, shown]): [string, string] => [shown, this.#files.get(k)![1]]);
  }

  clear(): void {
    this.#files.clear();
    this.#dirs.clear();
    this.#dirStamps.clear();
    this.#floor = ++this.#changes;
  }

  toJSON(): JsonObject {
    return Object.fromEntries(this.entries());
  }

  /** Validate first, then replace everything (a bad document changes nothing). */
  restore(doc: unknown): void {
    if (doc !== undefined && doc !== null && !isJsonObject(doc)) {
      throw hnsError('E_INVALIDARG', 'files: expected an object of path → contents');
    }
    const next = new FileStore();
    for (const [p, data] of Object.entries(doc ?? {})) {
      if (typeof data !== 'string') throw hnsError('E_INVALIDARG', `files: ${p} is not text`);
      try {
        next.write(p, data);
      } catch (e) {
        throw hnsError('E_INVALIDARG', `files: bad entry ${p.slice(0, 80)}: ${(e as Error).message}`);
      }
    }
    this.clear();
    for (const [k, v] of next.#files) {
      this.#files.set(k, v);
      this.#link(k, v[0]);
    }
    this.#floor = ++this.#changes;
  }
}
