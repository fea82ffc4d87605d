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
import { formatIp, formatPrefix, parseIp, parsePrefix, type IpAddr } from '../../addr/ip.js';
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

/**
 * `restore`: fill `am` from the file at `path`. Throws GoError for a document Go cannot decode
 * (the syntax error, or a value of the wrong type).
 */
export function loadState(files: FileStore, path: string, am: AddressManager): LoadedState {
  const text = files.read(path);
  const hit = recallState<{ others: ReadonlyMap<string, string>; m: Obj | undefined }>(files, path, text);
  let others: Map<string, string>;
  let m: Obj;
  if (hit) {
    others = new Map(hit.others);
    if (hit.m === undefined) return { others };
    m = hit.m;
  } else {
    const read = readStore(files, path, STORE_KEY);
    others = read.others;
    const decodedM = read.raw === undefined ? undefined : obj(goUnmarshal(read.raw, MANAGER));
    if (text !== undefined) rememberState(files, path, text, { others: new Map(others), m: decodedM });
    if (decodedM === undefined) return { others };
    m = decodedM;
  }
  // json.Unmarshal sets what the document has: the release that first wrote the file stays its Version
  am.Version = (m['Version'] as string | undefined) ?? am.Version;
  am.TimeStamp = (m['TimeStamp'] as string | undefined) ?? am.TimeStamp;
  for (const [asKey, asVal] of Object.entries(obj(m['AddressSpaces']))) {
    const a = obj(asVal);
    const space: AddressSpace = {
      Id: (a['Id'] as string | undefined) ?? '',
      Scope: (a['Scope'] as number | undefined) ?? 0,
      pools: new Map(),
      epoch: 0,
    };
    am.spaces.set(asKey, space);
    for (const [pk, pv] of Object.entries(obj(a['Pools']))) {
      const p = obj(pv);
      const net = obj(p['Subnet']);
      const ip = ipOf(net['IP'], ZERO_V4);
      const len = maskLen((net['Mask'] as number[] | undefined) ?? []) ?? 0;
      const subnet = parsePrefix(`${ip.text}/${len}`)!;
      const gw = ipOf(p['Gateway'], ip.addr).addr;
      const pool: AddressPool = {
        space,
        Id: (p['Id'] as string | undefined) ?? '',
        IfName: (p['IfName'] as string | undefined) ?? '',
        subnet,
        gateway: gw,
        addresses: new Map(),
        byId: new Map(),
        IsIPv6: p['IsIPv6'] === true,
        Priority: (p['Priority'] as number | undefined) ?? 0,
        RefCount: (p['RefCount'] as number | undefined) ?? 0,
        epoch: 0,
      };
      space.pools.set(pk, pool);
      for (const [ak, av] of Object.entries(obj(p['Addresses']))) {
        const r = obj(av);
        const { addr, text } = ipOf(r['Addr'], ZERO_V4);
        const rec: AddressRecord = {
          ID: (r['ID'] as string | undefined) ?? '',
          addr,
          text,
          InUse: r['InUse'] === true,
          unhealthy: false,
          epoch: 0,
        };
        pool.addresses.set(ak, rec);
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
 * The manager as `json.MarshalIndent` writes it at a position (`nl`: a newline and the indentation
 * so far; `indent`: one level), from its snapshot: struct fields in declaration order, map keys
 * sorted by their bytes. Written out directly — the file is written after every invocation that
 * changes it, and its address records are most of it (test/plugins/azure-vnet-ipam checks this
 * against Go's generic encoding of the same structs).
 */
function managerText(m: StateSnapshot, nl: string, indent: string): string {
  const l1 = nl + indent;
  const l2 = l1 + indent;
  const l3 = l2 + indent;
  const l4 = l3 + indent;
  const l5 = l4 + indent;
  const l6 = l5 + indent;
  const l7 = l6 + indent;
  const spaceKeys = goSortedKeys(Object.keys(m.AddressSpaces));
  let spaces = '{}';
  if (spaceKeys.length > 0) {
    spaces = '{';
    spaceKeys.forEach((k, si) => {
      const as = m.AddressSpaces[k]!;
      const poolKeys = goSortedKeys(Object.keys(as.Pools));
      let pools = '{}';
      if (poolKeys.length > 0) {
        pools = '{';
        poolKeys.forEach((pk, pi) => {
          const p = as.Pools[pk]!;
          const addrKeys = goSortedKeys(Object.keys(p.Addresses));
          let addresses = '{}';
          if (addrKeys.length > 0) {
            addresses = '{';
            const free = freeRecords(l6, l7);
            addrKeys.forEach((ak, ai) => {
              const r = p.Addresses[ak]!;
              if (ai > 0) addresses += ',';
              addresses +=
                r.ID === '' && !r.InUse && r.Addr === ak
                  ? free(ak)
                  : `${l6}${goQuote(ak)}: {` +
                    `${l7}"ID": ${goQuote(r.ID)},${l7}"Addr": ${goQuote(r.Addr)},${l7}"InUse": ${String(r.InUse)}${l6}}`;
            });
            addresses += `${l5}}`;
          }
          const mask =
            p.Subnet.Mask === undefined ? 'null' : `"${Buffer.from(p.Subnet.Mask).toString('base64')}"`;
          pools +=
            `${pi > 0 ? ',' : ''}${l4}${goQuote(pk)}: {` +
            `${l5}"Id": ${goQuote(p.Id)},` +
            `${l5}"IfName": ${goQuote(p.IfName)},` +
            `${l5}"Subnet": {${l6}"IP": ${goQuote(p.Subnet.IP)},${l6}"Mask": ${mask}${l5}},` +
            `${l5}"Gateway": ${goQuote(p.Gateway)},` +
            `${l5}"Addresses": ${addresses},` +
            `${l5}"IsIPv6": ${String(p.IsIPv6)},` +
            `${l5}"Priority": ${String(p.Priority)},` +
            `${l5}"RefCount": ${String(p.RefCount)}${l4}}`;
        });
        pools += `${l3}}`;
      }
      spaces +=
        `${si > 0 ? ',' : ''}${l2}${goQuote(k)}: {` +
        `${l3}"Id": ${goQuote(as.Id)},${l3}"Scope": ${String(as.Scope)},${l3}"Pools": ${pools}${l2}}`;
    });
    spaces += `${l1}}`;
  }
  return `{${l1}"Version": ${goQuote(m.Version)},${l1}"TimeStamp": ${goQuote(m.TimeStamp)},${l1}"AddressSpaces": ${spaces}${nl}}`;
}

/** `jsonFileStore.Write(IPAM, am)`: the whole file, tab-indented, the other keys as they were. */
export function stateText(am: AddressManager | StateSnapshot, others: ReadonlyMap<string, string>): string {
  const m = 'AddressSpaces' in am ? am : snapshotState(am);
  return storeText(others, STORE_KEY, new GoLaidOut((nl, indent) => managerText(m, nl, indent)));
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
 * fills them: IPs as canonical text, masks as bytes): what a save stores, and what the next
 * invocation takes instead of decoding the file again.
 */
export function snapshotState(am: AddressManager): StateSnapshot {
  const spaces: Obj = {};
  for (const [k, as] of am.spaces) {
    const pools: Obj = {};
    for (const [pk, p] of as.pools) {
      const addresses: Obj = {};
      for (const [ak, r] of p.addresses) addresses[ak] = { ID: r.ID, Addr: r.text, InUse: r.InUse };
      pools[pk] = {
        Id: p.Id,
        IfName: p.IfName,
        Subnet: { IP: formatPrefix(p.subnet).split('/')[0]!, Mask: maskOf(p.subnet.family, p.subnet.len) },
        Gateway: formatIp(p.gateway),
        Addresses: addresses,
        IsIPv6: p.IsIPv6,
        Priority: p.Priority,
        RefCount: p.RefCount,
      };
    }
    spaces[k] = { Id: as.Id, Scope: as.Scope, Pools: pools };
  }
  return { Version: am.Version, TimeStamp: am.TimeStamp, AddressSpaces: spaces } as unknown as StateSnapshot;
}

/** Write a saved snapshot as the state file and remember what it decodes to (`rememberState`). */
export function saveState(
  files: FileStore,
  path: string,
  m: StateSnapshot,
  others: ReadonlyMap<string, string>,
): void {
  const text = stateText(m, others);
  files.write(path, text);
  rememberState(files, path, text, { others: new Map(others), m });
}
