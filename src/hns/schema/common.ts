/**
 * Pieces shared by every HCN document (reference hns-hcs.md §1): SchemaVersion, Dns, Routes, GUID
 * fields. Inputs accept what hcsshim sends (`"Dns":{}`, `"SchemaVersion":{"Major":0,"Minor":0}`,
 * `"Health":{"Extra":{}}`); outputs follow hcsshim's JSON shape.
 */
import { hnsError, type HResultName } from '../../core/errors.js';
import { parseGuid } from '../../core/guid.js';
import type { JsonObject } from '../../core/json.js';
import type { Reader } from '../../core/json.js';
import { parseIp, parsePrefix } from '../../addr/ip.js';
import type { DnsRec, RouteRec, SchemaVersion } from '../model.js';

export const SCHEMA_V2: SchemaVersion = Object.freeze({ Major: 2, Minor: 0 });

/** `SchemaVersion` as given; absent or `{0,0}` means 2.0. Major 1 selects the v1 shape. */
export function readSchemaVersion(r: Reader): SchemaVersion {
  const sv = r.optObj('SchemaVersion');
  if (!sv) return SCHEMA_V2;
  const Major = sv.uint('Major', 0xffff);
  const Minor = sv.uint('Minor', 0xffff);
  if ((Major === 0 && Minor === 0) || (Major === 2 && Minor === 0)) return SCHEMA_V2; // shared, immutable
  return { Major, Minor };
}

export function writeSchemaVersion(sv: SchemaVersion): JsonObject {
  return { Major: sv.Major, Minor: sv.Minor };
}

export const EMPTY_DNS: DnsRec = { Search: [], ServerList: [], Options: [] };

export function readDns(r: Reader, key = 'Dns', code: HResultName = r.code): DnsRec {
  const d = r.optObj(key, code);
  if (!d) return EMPTY_DNS;
  const Domain = d.optStr('Domain');
  const ServerList = d.strs('ServerList');
  for (const s of ServerList) if (!parseIp(s)) throw d.err(`ServerList entry "${s}" is not an IP address`);
  const Search = d.strs('Search');
  const Options = d.strs('Options');
  // written out, not `{ ...rec, Domain }`: a copy that adds a key takes V8's slow path
  return Domain ? { Search, ServerList, Options, Domain } : { Search, ServerList, Options };
}

/** hcsshim's Dns struct: every field omitempty, the struct itself always present. */
export function writeDns(d: DnsRec): JsonObject {
  const out: JsonObject = {};
  if (d.Domain) out.Domain = d.Domain;
  if (d.Search.length) out.Search = [...d.Search];
  if (d.ServerList.length) out.ServerList = [...d.ServerList];
  if (d.Options.length) out.Options = [...d.Options];
  return out;
}

export function dnsIsEmpty(d: DnsRec): boolean {
  return !d.Domain && !d.Search.length && !d.ServerList.length && !d.Options.length;
}

export function readRoutes(r: Reader, key: string, code: HResultName): RouteRec[] {
  return r.objs(key, code).map((rt) => {
    const DestinationPrefix = rt.optStr('DestinationPrefix') ?? '';
    const NextHop = rt.optStr('NextHop') ?? '';
    const Metric = rt.optUint('Metric', 0xffff);
    const dest = parsePrefix(DestinationPrefix);
    if (!dest) throw rt.err(`DestinationPrefix "${DestinationPrefix}" is not a prefix`, code);
    let nextHop;
    if (NextHop !== '') {
      nextHop = parseIp(NextHop);
      if (!nextHop) throw rt.err(`NextHop "${NextHop}" is not an IP address`, code);
      if (nextHop.family !== dest.family) throw rt.err('NextHop and DestinationPrefix families differ', code);
    }
    // the prefix without its host address, and the record built key by key in this order: NextHop,
    // DestinationPrefix, dest, nextHop?, Metric? (an object rest or a copy that adds a key takes
    // V8's slow path)
    const rec: { -readonly [K in keyof RouteRec]: RouteRec[K] } = {
      NextHop,
      DestinationPrefix,
      dest: { family: dest.family, addr: dest.addr, len: dest.len } as RouteRec['dest'],
    };
    if (nextHop) rec.nextHop = nextHop;
    if (Metric !== undefined) rec.Metric = Metric;
    return rec;
  });
}

export function writeRoutes(routes: readonly RouteRec[]): JsonObject[] {
  return routes.map((rt) => {
    const o: JsonObject = {};
    if (rt.NextHop) o.NextHop = rt.NextHop;
    if (rt.DestinationPrefix) o.DestinationPrefix = rt.DestinationPrefix;
    if (rt.Metric) o.Metric = rt.Metric;
    return o;
  });
}

/** A GUID field; absent or empty → undefined; malformed → HCN_E_GUID_CONVERSION_FAILURE. */
export function readGuid(r: Reader, key: string): string | undefined {
  const s = r.optStr(key);
  if (s === undefined || s === '') return undefined;
  const g = parseGuid(s);
  if (!g) throw hnsError('HCN_E_GUID_CONVERSION_FAILURE', `${r.path}.${key}: "${s}"`);
  return g;
}

/** A GUID given as a call argument (null/''/all-zero → undefined). */
export function argGuid(id: unknown): string | undefined {
  if (id === null || id === undefined || id === '') return undefined;
  if (typeof id !== 'string') throw hnsError('HCN_E_GUID_CONVERSION_FAILURE', 'ID must be a GUID string');
  const g = parseGuid(id);
  if (!g) throw hnsError('HCN_E_GUID_CONVERSION_FAILURE', `"${id}"`);
  return g === '00000000-0000-0000-0000-000000000000' ? undefined : g;
}
