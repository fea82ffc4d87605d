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
  goMap,
  GoOrdered,
  goPtr,
  goString,
  goStruct,
  goUnmarshal,
  type GoValue,
} from '../../cni/gojson.js';
import { netIPType } from '../../cni/result.js';
import type { FileStore } from '../../core/files.js';
import {
  bytesValue,
  goTimeType,
  ipMaskType,
  maskLen,
  maskOf,
  readStore,
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
/** A decoded `net.IP` (its canonical text, or absent for nil), else `fallback`. */
const ipOf = (v: unknown, fallback: IpAddr): IpAddr => (typeof v === 'string' && parseIp(v)) || fallback;

/** The state file's other keys (kept when the file is written again) and the manager, restored. */
export interface LoadedState {
  readonly others: Map<string, string>;
}

/**
 * `restore`: fill `am` from the file at `path`. Throws GoError for a document Go cannot decode
 * (the syntax error, or a value of the wrong type).
 */
export function loadState(files: FileStore, path: string, am: AddressManager): LoadedState {
  const { others, raw } = readStore(files, path, STORE_KEY);
  if (raw === undefined) return { others };
  const m = obj(goUnmarshal(raw, MANAGER));
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
      const subnet = parsePrefix(`${formatIp(ip)}/${len}`)!;
      const gw = ipOf(p['Gateway'], ip);
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
        const addr = ipOf(r['Addr'], ZERO_V4);
        const rec: AddressRecord = {
          ID: (r['ID'] as string | undefined) ?? '',
          addr,
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

/** The manager as Go marshals it (struct fields in order, maps sorted by `goMarshal`). */
function managerValue(am: AddressManager): GoValue {
  const spaces: Record<string, GoValue> = {};
  for (const [k, as] of am.spaces) {
    const pools: Record<string, GoValue> = {};
    for (const [pk, p] of as.pools) {
      const addresses: Record<string, GoValue> = {};
      for (const [ak, r] of p.addresses) {
        addresses[ak] = new GoOrdered([
          ['ID', r.ID],
          ['Addr', formatIp(r.addr)],
          ['InUse', r.InUse],
        ]);
      }
      pools[pk] = new GoOrdered([
        ['Id', p.Id],
        ['IfName', p.IfName],
        [
          'Subnet',
          new GoOrdered([
            // the network address: the prefix's text before its length
            ['IP', formatPrefix(p.subnet).split('/')[0]!],
            ['Mask', bytesValue(maskOf(p.subnet.family, p.subnet.len))],
          ]),
        ],
        ['Gateway', formatIp(p.gateway)],
        ['Addresses', addresses],
        ['IsIPv6', p.IsIPv6],
        ['Priority', p.Priority],
        ['RefCount', p.RefCount],
      ]);
    }
    spaces[k] = new GoOrdered([
      ['Id', as.Id],
      ['Scope', as.Scope],
      ['Pools', pools],
    ]);
  }
  return new GoOrdered([
    ['Version', am.Version],
    ['TimeStamp', am.TimeStamp],
    ['AddressSpaces', spaces],
  ]);
}

/** `jsonFileStore.Write(IPAM, am)`: the whole file, tab-indented, the other keys as they were. */
export function stateText(am: AddressManager, others: ReadonlyMap<string, string>): string {
  return storeText(others, STORE_KEY, managerValue(am));
}
