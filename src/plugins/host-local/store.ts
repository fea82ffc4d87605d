/**
 * host-local's store (containernetworking/plugins @3d27709f `plugins/ipam/host-local/backend/
 * store.go`, `backend/disk/{backend,lock}.go`; reference cni-windows.md §6) on the node's simulated
 * disk: `<dataDir>/<network>/<ip>` holds `<containerID>\r\n<ifname>`, `last_reserved_ip.<range>`
 * the last address handed out, `lock` the directory lock file; on Windows `:` in a file name becomes
 * `_`, so IPv6 files are `2001_db8_1__2` (and, as on Windows, `GetByID` cannot read them back).
 */
import { joinPath, type FileStore } from '../../core/files.js';
import { GoError } from '../../cni/gojson.js';
import { ipString, parseIP, type IP } from './ip.js';
import { isGoSpace } from '../../cni/gostrconv.js';

/** `backend.Store`. Every method is synchronous: the lock is held by not yielding in between. */
export interface Store {
  lock(): void;
  unlock(): void;
  close(): void;
  /** Reserve `ip` for (id, ifname); false when it is taken. */
  reserve(id: string, ifname: string, ip: IP, rangeID: string): boolean;
  /**
   * The last address reserved in range `rangeID`: undefined when there is none (`os.ErrNotExist`)
   * or when the file does not hold an address (`net.ParseIP` gives nil). Other failures throw.
   */
  lastReservedIP(rangeID: string): IP | undefined;
  releaseByID(id: string, ifname: string): void;
  getByID(id: string, ifname: string): IP[];
}

/** `disk.LineBreak`. */
export const LINE_BREAK = '\r\n';
const LAST_IP_FILE_PREFIX = 'last_reserved_ip.';
/** `defaultDataDir`. */
export const DEFAULT_DATA_DIR = '/var/lib/cni/networks';

/** `strings.TrimSpace`. */
export function goTrimSpace(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isGoSpace(s.charCodeAt(a))) a++;
  while (b > a && isGoSpace(s.charCodeAt(b - 1))) b--;
  return s.slice(a, b);
}

/** `disk.GetEscapedPath(dataDir, fname)` on Windows: `:` → `_`, then `filepath.Join`. */
export function escapedPath(dataDir: string, fname: string): string {
  return joinPath(dataDir, fname.replaceAll(':', '_'));
}

/** `filepath.Join` as Windows prints it (backslashes), for error texts. */
function windowsPath(path: string): string {
  return path.replace(/\//g, '\\');
}

/**
 * What `filepath.Walk` of one directory would find, kept between invocations: every file under it
 * (path as the store shows it → trimmed contents) and the files by trimmed contents. It is valid
 * while the store's `stamp` of the directory is `stamp`; host-local's own writes and removes update
 * it in place, anything else makes the next use read the directory again. So a reservation or a
 * release costs O(1), not a walk of every file, with the walk's results.
 */
interface DirIndex {
  stamp: number;
  readonly trimmed: Map<string, string>;
  readonly byContent: Map<string, Set<string>>;
}
const dirIndexes = new WeakMap<FileStore, Map<string, DirIndex>>();

/** The walk's order: by path, as `FileStore.entries` sorts. */
const byPath = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function indexAdd(ix: DirIndex, path: string, trimmed: string): void {
  ix.trimmed.set(path, trimmed);
  let set = ix.byContent.get(trimmed);
  if (set === undefined) ix.byContent.set(trimmed, (set = new Set()));
  set.add(path);
}

function indexDelete(ix: DirIndex, path: string): void {
  const old = ix.trimmed.get(path);
  if (old === undefined) return;
  ix.trimmed.delete(path);
  const set = ix.byContent.get(old)!;
  set.delete(path);
  if (set.size === 0) ix.byContent.delete(old);
}

/** `disk.Store`: one network's directory. */
export class DiskStore implements Store {
  private constructor(
    private readonly files: FileStore,
    /** `<dataDir>/<network>`. */
    readonly dataDir: string,
  ) {}

  /**
   * `disk.New(network, dataDir)`: `MkdirAll(<dataDir>/<network>)` and open the directory lock
   * (go-filemutex creates `<dir>/lock` with OPEN_ALWAYS, so the file stays).
   */
  static open(files: FileStore, network: string, dataDir: string): DiskStore {
    const dir = joinPath(dataDir === '' ? DEFAULT_DATA_DIR : dataDir, network);
    // os.MkdirAll: a file where a directory must be is ENOTDIR ("not a directory") on Windows
    // (none when the directory holds files already: then it and every directory above it is one)
    if (!files.isDirectory(dir)) {
      const segs = dir.split('/');
      for (let i = 2; i <= segs.length; i++) {
        const p = segs.slice(0, i).join('/');
        if (files.exists(p)) throw new GoError(`mkdir ${windowsPath(p)}: not a directory`);
      }
    }
    const lockPath = joinPath(dir, 'lock');
    if (!files.exists(lockPath)) {
      // go-filemutex's CreateFile on a directory
      if (files.isDirectory(lockPath)) throw new GoError('Access is denied.');
      files.write(lockPath, '');
    }
    return new DiskStore(files, dir);
  }

  lock(): void {}
  unlock(): void {}
  close(): void {}

  /** `os.OpenFile(O_EXCL|O_CREATE)`: a taken name (file or directory) is not reserved. */
  reserve(id: string, ifname: string, ip: IP, rangeID: string): boolean {
    const fname = escapedPath(this.dataDir, ipString(ip));
    if (this.files.exists(fname) || this.files.isDirectory(fname)) return false;
    this.#write(fname, goTrimSpace(id) + LINE_BREAK + ifname);
    this.#write(escapedPath(this.dataDir, LAST_IP_FILE_PREFIX + rangeID), ipString(ip));
    return true;
  }

  /** The directory's index, if it is still valid. */
  #validIndex(): DirIndex | undefined {
    const ix = dirIndexes.get(this.files)?.get(this.dataDir.toLowerCase());
    return ix !== undefined && ix.stamp === this.files.stamp(this.dataDir) ? ix : undefined;
  }

  /** The directory's index: the one kept, or a new one from a walk when something else changed. */
  #index(): DirIndex {
    const ix = this.#validIndex();
    if (ix !== undefined) return ix;
    const fresh: DirIndex = {
      stamp: this.files.stamp(this.dataDir),
      trimmed: new Map(),
      byContent: new Map(),
    };
    for (const [path, data] of this.walk()) indexAdd(fresh, path, goTrimSpace(data));
    let perStore = dirIndexes.get(this.files);
    if (perStore === undefined) dirIndexes.set(this.files, (perStore = new Map()));
    perStore.set(this.dataDir.toLowerCase(), fresh);
    return fresh;
  }

  /** Keep the index (if valid) in step with a change made here, when it was the only change. */
  #changed(ix: DirIndex | undefined, before: number, apply: (ix: DirIndex) => void): void {
    if (ix === undefined) return;
    if (this.files.changes !== before + 1) {
      ix.stamp = -1; // something else changed too (a listener wrote): read the directory again
      return;
    }
    apply(ix);
    ix.stamp = this.files.stamp(this.dataDir);
  }

  #write(path: string, data: string): void {
    const ix = this.#validIndex();
    const before = this.files.changes;
    this.files.write(path, data);
    this.#changed(ix, before, (i) => {
      const shown = this.files.displayPath(path)!;
      indexDelete(i, shown);
      indexAdd(i, shown, goTrimSpace(data));
    });
  }

  #remove(path: string): boolean {
    const ix = this.#validIndex();
    const before = this.files.changes;
    const removed = this.files.remove(path);
    if (removed) this.#changed(ix, before, (i) => indexDelete(i, path));
    return removed;
  }

  /** The paths (as `walk` gives them, in its order) of the files whose trimmed contents are `match`. */
  #matching(match: string): string[] {
    const set = this.#index().byContent.get(match);
    return set === undefined ? [] : [...set].sort(byPath);
  }

  lastReservedIP(rangeID: string): IP | undefined {
    const data = this.files.read(escapedPath(this.dataDir, LAST_IP_FILE_PREFIX + rangeID));
    return data === undefined ? undefined : parseIP(data);
  }

  /** `filepath.Walk` of the directory: every file under it, in lexical order, with its contents. */
  private walk(): [string, string][] {
    return this.files.entries(this.dataDir).filter(([p]) => p !== this.dataDir);
  }

  /** `FindByKey`: some file's trimmed contents equal `match`. */
  private findByKey(match: string): boolean {
    return this.#index().byContent.has(match);
  }

  /** `FindByID` (CHECK): a file of (id, ifname), or of the id alone (the old format). */
  findByID(id: string, ifname: string): boolean {
    return this.findByKey(goTrimSpace(id) + LINE_BREAK + ifname) || this.findByKey(goTrimSpace(id));
  }

  /** `ReleaseByKey`: remove every file whose trimmed contents equal `match`. */
  private releaseByKey(match: string): boolean {
    let found = false;
    for (const path of this.#matching(match)) {
      if (this.#remove(path)) found = true;
    }
    return found;
  }

  /** `ReleaseByID`: by (id, ifname); if nothing matched, by the id alone (files of older versions). */
  releaseByID(id: string, ifname: string): void {
    if (!this.releaseByKey(goTrimSpace(id) + LINE_BREAK + ifname)) this.releaseByKey(goTrimSpace(id));
  }

  /**
   * `GetByID`: the addresses whose files hold (id, ifname) or the id alone, read back from the file
   * names with `net.ParseIP`, which fails on the escaped IPv6 names of Windows.
   */
  getByID(id: string, ifname: string): IP[] {
    const match = goTrimSpace(id) + LINE_BREAK + ifname;
    const matchOld = goTrimSpace(id);
    const out: IP[] = [];
    const paths = this.#matching(match);
    if (matchOld !== match) paths.push(...this.#matching(matchOld));
    for (const path of paths.sort(byPath)) {
      const ip = parseIP(path.slice(path.lastIndexOf('/') + 1));
      if (ip !== undefined) out.push(ip);
    }
    return out;
  }
}
