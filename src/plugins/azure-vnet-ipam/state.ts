/**
 * `azure-vnet-ipam.json`, the IPAM's state on the node's disk (ACN v1.8.12 `store/json.go`,
 * `ipam/manager.go`, `ipam/pool.go`; reference azure-cni.md §1.2, §5.2): a JSON object of keys to
 * values — the manager under `IPAM` — written whole with `json.MarshalIndent(data, "", "\t")`, keys
 * sorted as Go sorts a map's, the manager's exported fields in declaration order: `Version`,
 * `TimeStamp`, `AddressSpaces{<id>:{Id, Scope, Pools{<subnet>:{Id, IfName, Subnet{IP, Mask},
 * Gateway, Addresses{<ip>:{ID, Addr, InUse}}, IsIPv6, Priority, RefCount}}}}`. `Mask` is a
 * `net.IPMask`, so base64 of its bytes. Unexported fields (epochs, `unhealthy`, the by-ID index)
 * are not stored: the index is rebuilt from the records' IDs on load, and every epoch starts at 0.
 *
 * Reading follows `jsonFileStore.Read`: no file or an empty one is no state; other keys are kept
 * as they are; a document Go cannot decode is Go's error text (the plugin then fails to start).
 */
import { formatIp, parseIp, parsePrefix, type IpAddr, type Prefix } from '../../addr/ip.js';
import {
  field,
  goBool,
  goInt,
  GoLaidOut,
  goMap,
  goQuote,
  goSortedKeys,
  goPtr,
  goString,
  goStruct,
  goUnmarshal,
} from '../../cni/gojson.js';
import { netIPType } from '../../cni/result.js';
import type { FileStore } from '../../core/files.js';
import {
  goTimeType,
  ipMaskType,
  maskLen,
  maskOf,
  readStore,
  recallState,
  rememberState,
  storeText,
} from '../azure-vnet/store.js';
import type { AddressManager, AddressPool, AddressRecord, AddressSpace } from './manager.js';

/** The manager's key in the state file. */
export const STORE_KEY = 'IPAM';

const RECORD = goStruct('ipam.addressRecord', [
  field('ID', goString),
  field('Addr', netIPType),
  field('InUse', goBool),
]);
const IPNET = goStruct('net.IPNet', [field('IP', netIPType), field('Mask', ipMaskType)]);
const POOL = goStruct('ipam.addressPool', [
  field('Id', goString),
  field('IfName', goString),
  field('Subnet', IPNET),
  field('Gateway', netIPType),
  field('Addresses', goMap(goPtr(RECORD))),
  field('IsIPv6', goBool),
  field('Priority', goInt),
  field('RefCount', goInt),
]);
const SPACE = goStruct('ipam.addressSpace', [
  field('Id', goString),
  field('Scope', goInt),
  field('Pools', goMap(goPtr(POOL))),
]);
const MANAGER = goStruct('ipam.addressManager', [
  field('Version', goString),
  field('TimeStamp', goTimeType),
  field('AddressSpaces', goMap(goPtr(SPACE))),
]);

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {});

const ZERO_V4: IpAddr = { family: 4, value: 0 };

/**
 * Addresses parsed from state files, by their text: every invocation loads the file another
 * invocation just wrote, with the same few dozen addresses in it (IpAddr values are immutable).
 */
const parsedIps = new Map<string, { addr: IpAddr; text: string } | null>();
const PARSED_IPS_MAX = 4096;

/** A decoded `net.IP` (its canonical text, or absent for nil) parsed, with its text; else `fallback`. */
function ipOf(v: unknown, fallback: IpAddr): { addr: IpAddr; text: string } {
  if (typeof v === 'string') {
    let hit = parsedIps.get(v);
    if (hit === undefined) {
      if (parsedIps.size >= PARSED_IPS_MAX) parsedIps.clear();
      const addr = parseIp(v);
      hit = addr ? { addr, text: formatIp(addr) } : null;
      parsedIps.set(v, hit);
    }
    if (hit) return hit;
  }
  return { addr: fallback, text: formatIp(fallback) };
}

/** The state file's other keys (kept when the file is written again) and the manager, restored. */
export interface LoadedState {
  readonly others: Map<string, string>;
}

/** A stored address record, its address parsed. */
interface RecordImage {
  readonly key: string;
  readonly ID: string;
  readonly addr: IpAddr;
  readonly text: string;
  readonly InUse: boolean;
}

/** A stored pool: its subnet as Go writes it (`IP`, `Mask`) and parsed. */
interface PoolImage {
  readonly key: string;
  readonly Id: string;
  readonly IfName: string;
  readonly ip: string;
  readonly mask: readonly number[] | undefined;
  readonly subnet: Prefix;
  readonly gateway: IpAddr;
  readonly gatewayText: string;
  readonly IsIPv6: boolean;
  readonly Priority: number;
  readonly RefCount: number;
  /** In ascending address order. */
  readonly records: readonly RecordImage[];
}

interface SpaceImage {
  readonly key: string;
  readonly Id: string;
  readonly Scope: number;
  /** In the order of their keys' bytes (the file's). */
  readonly pools: readonly PoolImage[];
}

/**
 * The manager's persisted fields with their addresses parsed: what a save writes and remembers,
 * and what a load builds the manager from (`Version`/`TimeStamp` undefined when the document
 * lacks them). Spaces and pools are in the order of their keys' bytes — the file's —, records in
 * ascending address order, so that a manager built from a remembered save and one built from the
 * file's text range their maps alike (Go's own map order is random: docs/model.md
 * "azure-vnet-ipam").
 */
interface Image {
  readonly Version: string | undefined;
  readonly TimeStamp: string | undefined;
  readonly spaces: readonly SpaceImage[];
}

function byAddress(a: RecordImage, b: RecordImage): number {
  if (a.addr.family !== b.addr.family) return a.addr.family - b.addr.family;
  return a.addr.value < b.addr.value ? -1 : a.addr.value > b.addr.value ? 1 : 0;
}

/** A decoded manager (`goUnmarshal`'s output, or a StateSnapshot: the same shape) as an image. */
function imageOfDecoded(m: Obj): Image {
  const spaces = obj(m['AddressSpaces']);
  return {
    Version: m['Version'] as string | undefined,
    TimeStamp: m['TimeStamp'] as string | undefined,
    spaces: goSortedKeys(Object.keys(spaces)).map((key) => {
      const a = obj(spaces[key]);
      const pools = obj(a['Pools']);
      return {
        key,
        Id: (a['Id'] as string | undefined) ?? '',
        Scope: (a['Scope'] as number | undefined) ?? 0,
        pools: goSortedKeys(Object.keys(pools)).map((pk) => {
          const p = obj(pools[pk]);
          const net = obj(p['Subnet']);
          const ip = ipOf(net['IP'], ZERO_V4);
          const mask = net['Mask'] as number[] | undefined;
          const gateway = ipOf(p['Gateway'], ip.addr);
          const records = Object.entries(obj(p['Addresses'])).map(([ak, av]) => {
            const r = obj(av);
            const { addr, text } = ipOf(r['Addr'], ZERO_V4);
            return {
              key: ak,
              ID: (r['ID'] as string | undefined) ?? '',
              addr,
              text,
              InUse: r['InUse'] === true,
            };
          });
          return {
            key: pk,
            Id: (p['Id'] as string | undefined) ?? '',
            IfName: (p['IfName'] as string | undefined) ?? '',
            ip: ip.text,
            mask,
            subnet: parsePrefix(`${ip.text}/${maskLen(mask ?? []) ?? 0}`)!,
            gateway: gateway.addr,
            gatewayText: gateway.text,
            IsIPv6: p['IsIPv6'] === true,
            Priority: (p['Priority'] as number | undefined) ?? 0,
            RefCount: (p['RefCount'] as number | undefined) ?? 0,
            records: records.sort(byAddress),
          };
        }),
      };
    }),
  };
}

/** The manager as it is now, as an image (what its save writes). */
function imageOfManager(am: AddressManager): Image {
  const spaceKeys = goSortedKeys(am.spaces.keys());
  return {
    Version: am.Version,
    TimeStamp: am.TimeStamp,
    spaces: spaceKeys.map((key) => {
      const as = am.spaces.get(key)!;
      return {
        key,
        Id: as.Id,
        Scope: as.Scope,
        pools: goSortedKeys(as.pools.keys()).map((pk) => {
          const p = as.pools.get(pk)!;
          const records: RecordImage[] = [];
          let ordered = true;
          for (const [ak, r] of p.addresses) {
            const rec = { key: ak, ID: r.ID, addr: r.addr, text: r.text, InUse: r.InUse };
            if (ordered && records.length > 0 && byAddress(records[records.length - 1]!, rec) > 0)
              ordered = false;
            records.push(rec);
          }
          return {
            key: pk,
            Id: p.Id,
            IfName: p.IfName,
            ip: formatIp(prefixAddress(p.subnet)),
            mask: maskOf(p.subnet.family, p.subnet.len),
            subnet: p.subnet,
            gateway: p.gateway,
            gatewayText: formatIp(p.gateway),
            IsIPv6: p.IsIPv6,
            Priority: p.Priority,
            RefCount: p.RefCount,
            // (a loaded pool is in order; a refresh appends)
            records: ordered ? records : records.sort(byAddress),
          };
        }),
      };
    }),
  };
}

/** The first address of a prefix. */
function prefixAddress(p: Prefix): IpAddr {
  return p.family === 4 ? { family: 4, value: p.addr } : { family: 6, value: p.addr };
}

/** What a state file's text decodes to, remembered by the text (`rememberState`). */
interface Remembered {
  readonly others: ReadonlyMap<string, string>;
  readonly image: Image | undefined;
}

/**
 * `restore`: fill `am` from the file at `path`. Throws GoError for a document Go cannot decode
 * (the syntax error, or a value of the wrong type).
 */
export function loadState(files: FileStore, path: string, am: AddressManager): LoadedState {
  const text = files.read(path);
  let hit = recallState<Remembered>(files, path, text);
  if (!hit) {
    const read = readStore(files, path, STORE_KEY);
    const image = read.raw === undefined ? undefined : imageOfDecoded(obj(goUnmarshal(read.raw, MANAGER)));
    hit = { others: read.others, image };
    if (text !== undefined) rememberState(files, path, text, hit);
  }
  const others = new Map(hit.others);
  const image = hit.image;
  if (image === undefined) return { others };
  // json.Unmarshal sets what the document has: the release that first wrote the file stays its Version
  am.Version = image.Version ?? am.Version;
  am.TimeStamp = image.TimeStamp ?? am.TimeStamp;
  for (const a of image.spaces) {
    const space: AddressSpace = { Id: a.Id, Scope: a.Scope, pools: new Map(), epoch: 0 };
    am.spaces.set(a.key, space);
    for (const p of a.pools) {
      const pool: AddressPool = {
        space,
        Id: p.Id,
        IfName: p.IfName,
        subnet: p.subnet,
        gateway: p.gateway,
        addresses: new Map(),
        byId: new Map(),
        IsIPv6: p.IsIPv6,
        Priority: p.Priority,
        RefCount: p.RefCount,
        epoch: 0,
      };
      space.pools.set(p.key, pool);
      for (const r of p.records) {
        const rec: AddressRecord = {
          ID: r.ID,
          addr: r.addr,
          text: r.text,
          InUse: r.InUse,
          unhealthy: false,
          epoch: 0,
        };
        pool.addresses.set(r.key, rec);
        if (rec.ID !== '') pool.byId.set(rec.ID, rec);
      }
    }
  }
  return { others };
}

/**
 * A free record's text at the records' indentation, by its address: most of a pool's records are
 * free (no ID, not in use) and written the same way at every save of every invocation.
 */
let freeTexts: { readonly at: string; readonly texts: Map<string, string> } | undefined;
const FREE_TEXTS_MAX = 4096;

function freeRecords(l6: string, l7: string): (addr: string) => string {
  const at = l6 + l7;
  if (freeTexts?.at !== at) freeTexts = { at, texts: new Map() };
  const texts = freeTexts.texts;
  return (addr) => {
    let t = texts.get(addr);
    if (t === undefined) {
      if (texts.size >= FREE_TEXTS_MAX) texts.clear();
      const q = goQuote(addr);
      t = `${l6}${q}: {${l7}"ID": "",${l7}"Addr": ${q},${l7}"InUse": false${l6}}`;
      texts.set(addr, t);
    }
    return t;
  };
}

/**
 * The last record order computed, by the keys in address order: a pool's keys stay the same from
 * save to save (only the document changes them), so the sort is done once.
 */
let lastKeyOrder: { readonly keys: readonly string[]; readonly order: readonly number[] } | undefined;

const sameKeys = (a: readonly string[], records: readonly RecordImage[]): boolean =>
  a.length === records.length && records.every((r, i) => r.key === a[i]);

/** A pool's records in the order Go writes a map's keys (by their bytes). */
function recordsInKeyOrder(records: readonly RecordImage[]): readonly RecordImage[] {
  if (!lastKeyOrder || !sameKeys(lastKeyOrder.keys, records)) {
    const at = new Map<string, number>();
    records.forEach((r, i) => at.set(r.key, i));
    lastKeyOrder = { keys: records.map((r) => r.key), order: goSortedKeys(at.keys()).map((k) => at.get(k)!) };
  }
  return lastKeyOrder.order.map((i) => records[i]!);
}

/**
 * The manager as `json.MarshalIndent` writes it at a position (`nl`: a newline and the indentation
 * so far; `indent`: one level), from its image: struct fields in declaration order, map keys
 * sorted by their bytes. Written out directly — the file is written after every invocation that
 * changes it, and its address records are most of it (test/plugins/azure-vnet-ipam checks this
 * against Go's generic encoding of the same structs).
 */
function managerText(m: Image, nl: string, indent: string): string {
  const l1 = nl + indent;
  const l2 = l1 + indent;
  const l3 = l2 + indent;
  const l4 = l3 + indent;
  const l5 = l4 + indent;
  const l6 = l5 + indent;
  const l7 = l6 + indent;
  let spaces = '{}';
  if (m.spaces.length > 0) {
    spaces = '{';
    m.spaces.forEach((as, si) => {
      let pools = '{}';
      if (as.pools.length > 0) {
        pools = '{';
        as.pools.forEach((p, pi) => {
          let addresses = '{}';
          if (p.records.length > 0) {
            addresses = '{';
            const free = freeRecords(l6, l7);
            recordsInKeyOrder(p.records).forEach((r, ai) => {
              if (ai > 0) addresses += ',';
              addresses +=
                r.ID === '' && !r.InUse && r.text === r.key
                  ? free(r.key)
                  : `${l6}${goQuote(r.key)}: {` +
                    `${l7}"ID": ${goQuote(r.ID)},${l7}"Addr": ${goQuote(r.text)},${l7}"InUse": ${String(r.InUse)}${l6}}`;
            });
            addresses += `${l5}}`;
          }
          const mask = p.mask === undefined ? 'null' : `"${Buffer.from(p.mask).toString('base64')}"`;
          pools +=
            `${pi > 0 ? ',' : ''}${l4}${goQuote(p.key)}: {` +
            `${l5}"Id": ${goQuote(p.Id)},` +
            `${l5}"IfName": ${goQuote(p.IfName)},` +
            `${l5}"Subnet": {${l6}"IP": ${goQuote(p.ip)},${l6}"Mask": ${mask}${l5}},` +
            `${l5}"Gateway": ${goQuote(p.gatewayText)},` +
            `${l5}"Addresses": ${addresses},` +
            `${l5}"IsIPv6": ${String(p.IsIPv6)},` +
            `${l5}"Priority": ${String(p.Priority)},` +
            `${l5}"RefCount": ${String(p.RefCount)}${l4}}`;
        });
        pools += `${l3}}`;
      }
      spaces +=
        `${si > 0 ? ',' : ''}${l2}${goQuote(as.key)}: {` +
        `${l3}"Id": ${goQuote(as.Id)},${l3}"Scope": ${String(as.Scope)},${l3}"Pools": ${pools}${l2}}`;
    });
    spaces += `${l1}}`;
  }
  return `{${l1}"Version": ${goQuote(m.Version ?? '')},${l1}"TimeStamp": ${goQuote(m.TimeStamp ?? '')},${l1}"AddressSpaces": ${spaces}${nl}}`;
}

function imageText(image: Image, others: ReadonlyMap<string, string>): string {
  return storeText(others, STORE_KEY, new GoLaidOut((nl, indent) => managerText(image, nl, indent)));
}

/** `jsonFileStore.Write(IPAM, am)`: the whole file, tab-indented, the other keys as they were. */
export function stateText(am: AddressManager | StateSnapshot, others: ReadonlyMap<string, string>): string {
  return imageText('AddressSpaces' in am ? imageOfDecoded(am as unknown as Obj) : imageOfManager(am), others);
}

/** The manager's persisted fields as Go's decoder reads them back (IPs as text, masks as bytes). */
export interface StateSnapshot {
  readonly Version: string;
  readonly TimeStamp: string;
  readonly AddressSpaces: Readonly<
    Record<
      string,
      {
        readonly Id: string;
        readonly Scope: number;
        readonly Pools: Readonly<
          Record<
            string,
            {
              readonly Id: string;
              readonly IfName: string;
              readonly Subnet: { readonly IP: string; readonly Mask: readonly number[] };
              readonly Gateway: string;
              readonly Addresses: Readonly<
                Record<string, { readonly ID: string; readonly Addr: string; readonly InUse: boolean }>
              >;
              readonly IsIPv6: boolean;
              readonly Priority: number;
              readonly RefCount: number;
            }
          >
        >;
      }
    >
  >;
}

/**
 * The manager as Go's decoder reads it back from `stateText` (the struct fields as `goUnmarshal`
 * fills them: IPs as canonical text, masks as bytes).
 */
export function snapshotState(am: AddressManager): StateSnapshot {
  const spaces: Obj = {};
  for (const as of imageOfManager(am).spaces) {
    const pools: Obj = {};
    for (const p of as.pools) {
      const addresses: Obj = {};
      for (const r of recordsInKeyOrder(p.records))
        addresses[r.key] = { ID: r.ID, Addr: r.text, InUse: r.InUse };
      pools[p.key] = {
        Id: p.Id,
        IfName: p.IfName,
        Subnet: { IP: p.ip, Mask: p.mask },
        Gateway: p.gatewayText,
        Addresses: addresses,
        IsIPv6: p.IsIPv6,
        Priority: p.Priority,
        RefCount: p.RefCount,
      };
    }
    spaces[as.key] = { Id: as.Id, Scope: as.Scope, Pools: pools };
  }
  return { Version: am.Version, TimeStamp: am.TimeStamp, AddressSpaces: spaces } as unknown as StateSnapshot;
}

function saveImage(files: FileStore, path: string, image: Image, others: ReadonlyMap<string, string>): void {
  const text = imageText(image, others);
  files.write(path, text);
  const remembered: Remembered = { others: new Map(others), image };
  rememberState(files, path, text, remembered);
}

/** Write the manager as the state file and remember it (`rememberState`): an invocation's save. */
export function saveManager(
  files: FileStore,
  path: string,
  am: AddressManager,
  others: ReadonlyMap<string, string>,
): void {
  saveImage(files, path, imageOfManager(am), others);
}

/** Write a snapshot (the decoded shape) as the state file and remember what it decodes to. */
export function saveState(
  files: FileStore,
  path: string,
  m: StateSnapshot,
  others: ReadonlyMap<string, string>,
): void {
  saveImage(files, path, imageOfDecoded(m as unknown as Obj), others);
}
