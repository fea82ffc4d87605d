/**
 * ACN's JSON file store (Azure/azure-container-networking v1.8.12 `store/json.go`; reference
 * azure-cni.md §1.2), shared by azure-vnet (`azure-vnet.json`, key `Network`) and azure-vnet-ipam
 * (`azure-vnet-ipam.json`, key `IPAM`): the file is a JSON object of keys to values; `Read` loads it
 * whole (no file or an empty one is no state; other keys are kept as they are; a document Go cannot
 * decode is Go's error text), `Write` puts one key's value and writes the whole map again with
 * `json.MarshalIndent(data, "", "\t")` — keys sorted, no trailing newline.
 *
 * Plus the Go types both state files hold that `encoding/json` writes in its own way: `net.IPMask`
 * and `net.HardwareAddr` are byte slices (base64, or null), `time.Time` is RFC 3339.
 */
import type { Json } from '../../core/json.js';
import type { FileStore } from '../../core/files.js';
import { isoAt, type Clock } from '../../core/clock.js';
import {
  GoError,
  goJsonKind,
  goMap,
  goMarshalIndent,
  goPtr,
  GoRaw,
  goRaw,
  goUnmarshal,
  type GoType,
  type GoValue,
} from '../../cni/gojson.js';

/** A `[]byte` field (`net.IPMask`, `net.HardwareAddr`): base64 (standard alphabet, padded), or null. */
export function goBytesType(name: string): GoType {
  return {
    k: 'custom',
    name,
    decode: (raw: Json) => {
      if (raw === null) return undefined;
      if (typeof raw !== 'string') {
        throw new GoError(`json: cannot unmarshal ${goJsonKind(raw)} into Go value of type ${name}`);
      }
      if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(raw)) {
        throw new GoError(`illegal base64 data at input byte ${Math.max(0, raw.search(/[^A-Za-z0-9+/=]/))}`);
      }
      return [...Buffer.from(raw, 'base64')];
    },
  };
}

export const ipMaskType = goBytesType('net.IPMask');
export const hardwareAddrType = goBytesType('net.HardwareAddr');

/** `time.Time.UnmarshalJSON`: an RFC 3339 string (null leaves the zero time). */
export const goTimeType: GoType = {
  k: 'custom',
  name: 'time.Time',
  decode: (raw: Json) => {
    if (raw === null) return undefined;
    if (typeof raw !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(raw)) {
      throw new GoError(
        `parsing time ${JSON.stringify(JSON.stringify(raw))} as "\\"2006-01-02T15:04:05Z07:00\\"": cannot parse as RFC 3339`,
      );
    }
    return raw;
  },
};

let lastTime: { readonly ms: number; readonly text: string } | undefined;

/** Go's RFC 3339 with nanoseconds, trailing zeros dropped (`time.Time.MarshalJSON`; the node is on UTC). */
export function goTimeText(ms: number): string {
  // (a simulated clock stands still between most saves)
  if (lastTime?.ms !== ms) lastTime = { ms, text: isoAt(ms).replace(/\.?0+Z$/, 'Z') };
  return lastTime.text;
}

/** A byte slice as `encoding/json` writes it: base64, or null for nil. */
export function bytesValue(bytes: readonly number[] | undefined): GoValue {
  return bytes === undefined ? null : Buffer.from(bytes).toString('base64');
}

/** The prefix length of a mask's bytes (leading ones), or undefined when the mask is not canonical. */
export function maskLen(bytes: readonly number[]): number | undefined {
  let len = 0;
  let ended = false;
  for (const b of bytes) {
    for (let bit = 7; bit >= 0; bit--) {
      if ((b >> bit) & 1) {
        if (ended) return undefined;
        len++;
      } else ended = true;
    }
  }
  return len;
}

/** The bytes of a /len mask: 4 of them for IPv4, 16 for IPv6 (as `net.ParseCIDR` makes it). */
export function maskOf(family: 4 | 6, len: number): number[] {
  const out = new Array<number>(family === 4 ? 4 : 16).fill(0);
  for (let i = 0; i < len; i++) out[i >> 3]! |= 0x80 >> (i & 7);
  return out;
}

const FILE = goMap(goPtr(goRaw));

/** One key of a store file as `Read` finds it, and the file's other keys (kept on `Write`). */
export interface StoreRead {
  readonly others: Map<string, string>;
  /** The key's value as JSON text, when the file has the key. */
  readonly raw?: string;
}

/** `jsonFileStore.Read(key, …)` up to the value's own decoding: throws Go's error for a bad file. */
export function readStore(files: FileStore, path: string, key: string): StoreRead {
  const others = new Map<string, string>();
  const text = files.read(path);
  if (text === undefined || text.length === 0) return { others };
  const decoded = goUnmarshal(text, FILE);
  const data = decoded && typeof decoded === 'object' ? (decoded as Record<string, unknown>) : {};
  let raw: string | undefined;
  for (const [k, v] of Object.entries(data)) {
    if (typeof v !== 'string') continue;
    if (k === key) raw = v;
    else others.set(k, v);
  }
  return raw === undefined ? { others } : { others, raw };
}

/** `jsonFileStore.Write(key, value)`: the whole file's text, the other keys as they were. */
export function storeText(others: ReadonlyMap<string, string>, key: string, value: GoValue): string {
  const data: Record<string, GoValue> = {};
  for (const [k, v] of others) data[k] = new GoRaw(v);
  data[key] = value;
  return goMarshalIndent(data, '\t');
}

/** Per node disk: the lock files held now (their release promise) and the next PID to write. */
const locks = new WeakMap<FileStore, { held: Map<string, Promise<void>>; pid: number }>();

/** How long a process waits for the store lock on Windows (ACN `store.DefaultLockTimeoutWindows`). */
export const LOCK_TIMEOUT_MS = 60_000;

/** The store lock's error when the wait ends (ACN `store.ErrTimeoutLockingStore`, wrapped by `InitializeKeyValueStore`). */
export const LOCK_TIMEOUT_ERROR = 'error Acquiring store lock: timed out locking store';

/**
 * `processlock` around one invocation: the process holding `lockPath` on this node runs first, the
 * next waits for it — up to 60 s of the node's simulated time, then it gives up and `timedOut()` is
 * its outcome (a holder stuck in a hung HNS call makes every later invocation time out: ACN #1359).
 * The lock file holds the holder's PID and stays on disk after it exits, as upstream's does
 * (closing the handle releases the lock; nothing deletes the file).
 */
export async function withStoreLock<T>(
  files: FileStore,
  clock: Clock,
  lockPath: string,
  fn: () => Promise<T>,
  timedOut: () => T,
): Promise<T> {
  let node = locks.get(files);
  if (!node) locks.set(files, (node = { held: new Map(), pid: 4100 }));
  const key = lockPath.toLowerCase();
  const before = node.held.get(key);
  let release!: () => void;
  const mine = new Promise<void>((r) => (release = r));
  const chain = (before ?? Promise.resolve()).then(() => mine);
  node.held.set(key, chain);
  try {
    if (before) {
      let timer = 0;
      const expired = new Promise<'expired'>(
        (r) => (timer = clock.schedule(LOCK_TIMEOUT_MS, () => r('expired'))),
      );
      const got = await Promise.race([before.then(() => 'held' as const), expired]);
      clock.cancel(timer);
      if (got === 'expired') return timedOut();
    }
    files.write(lockPath, String((node.pid += 4)));
    return await fn();
  } finally {
    release();
    if (node.held.get(key) === chain) node.held.delete(key);
  }
}

/** Per node disk and path: the last state text this process model wrote or decoded, and its value. */
const decoded = new WeakMap<FileStore, Map<string, { readonly text: string; readonly value: unknown }>>();

/**
 * Remember that the file at `path` holds `text`, which decodes to `value` (what `Read` would build
 * from it): the next invocation that finds exactly this text takes `value` instead of running Go's
 * decoder over it again. Any other text (a file edited, truncated, or written by anyone else) is
 * decoded as usual. The caller must not change `value` afterwards, nor what it returns from
 * `recallState`.
 */
export function rememberState(files: FileStore, path: string, text: string, value: unknown): void {
  let byPath = decoded.get(files);
  if (!byPath) decoded.set(files, (byPath = new Map()));
  byPath.set(path.toLowerCase(), { text, value });
}

/** The value remembered for `path` when the file still holds exactly that text. */
export function recallState<T>(files: FileStore, path: string, text: string | undefined): T | undefined {
  if (text === undefined) return undefined;
  const hit = decoded.get(files)?.get(path.toLowerCase());
  return hit !== undefined && hit.text === text ? (hit.value as T) : undefined;
}
