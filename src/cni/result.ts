/**
 * CNI results across spec versions (containernetworking/cni `pkg/types/{020,040,100}`,
 * `pkg/types/internal`, `pkg/types/create`; reference cni-windows.md §1.6): reading a result printed
 * at any version, converting it along Go's converter graph (with Go's errors), and printing it with
 * Go's field order, omitempty rules and `json.MarshalIndent(r, "", "    ")` layout.
 *
 * A result read by `parseResult` remembers the Go type it was read into (0.2.0's `ip4`/`ip6`, 0.4.0's
 * `ips[].version`), so converting it again follows exactly the path Go takes from that type; a result
 * a plugin builds is a `types100.Result`.
 */
import {
  CniError,
  CniErrorCode,
  type CniDns,
  type CniIPConfig,
  type CniInterface,
  type CniResult,
  type CniRoute,
  type ExecOutput,
  type Writer,
} from './contracts.js';
import type { Json, JsonObject } from '../core/json.js';
import {
  field,
  goDocOf,
  GoError,
  goMarshalIndent,
  goInt,
  GoOrdered,
  goDecodeShared,
  goParse,
  goParseShared,
  goPtr,
  goQuote,
  goSlice,
  goString,
  goStruct,
  goUnmarshal,
  goDecodeMap,
  goJsonKind,
  type GoType,
  type GoValue,
} from './gojson.js';
import { goCanonicalCIDR, goCanonicalIP, goCIDRFamily, goCidrError, goIPError } from './goip.js';
import { TYPES_DNS, typesRouteStruct } from './gotypes.js';

// ──────────────────────────────────────── Go's types ────────────────────────────────────────

/** `types020.IPConfig`. */
interface Ip020 {
  readonly ip: string;
  readonly gateway?: string;
  readonly routes?: readonly CniRoute[];
}
interface R020 {
  readonly k: '020';
  readonly cniVersion: string;
  readonly ip4?: Ip020;
  readonly ip6?: Ip020;
  readonly dns: CniDns;
}
/** `types040.IPConfig` (`version` is whatever the document said). */
interface Ip040 {
  readonly version: string;
  readonly interface?: number;
  readonly address: string;
  readonly gateway?: string;
}
interface Intf040 {
  readonly name: string;
  readonly mac?: string;
  readonly sandbox?: string;
}
interface R040 {
  readonly k: '040';
  readonly cniVersion: string;
  readonly interfaces?: readonly Intf040[];
  readonly ips?: readonly Ip040[];
  readonly routes?: readonly CniRoute[];
  readonly dns: CniDns;
}
interface R100 {
  readonly k: '100';
  readonly cniVersion: string;
  readonly interfaces?: readonly CniInterface[];
  readonly ips?: readonly CniIPConfig[];
  readonly routes?: readonly CniRoute[];
  readonly dns: CniDns;
}
type GoResult = R020 | R040 | R100;

const V020 = ['', '0.1.0', '0.2.0'] as const;
const V040 = ['0.3.0', '0.3.1', '0.4.0'] as const;
const V100 = ['1.0.0', '1.1.0'] as const;

/** The Go result type behind each result `parseResult` returned. */
const SOURCE = new WeakMap<CniResult, GoResult>();

/** A `net.IPNet` that was never set prints as `<nil>`; so do missing addresses here. */
const NIL_NET = '<nil>';

// ──────────────────────────────────────── conversion ───────────────────────────────────────

const is4 = (cidr: string): boolean => goCIDRFamily(cidr) === 4;

function copyDns(d: CniDns): CniDns {
  const out: { -readonly [K in keyof CniDns]: CniDns[K] } = {};
  if (d.nameservers?.length) out.nameservers = [...d.nameservers];
  if (d.domain) out.domain = d.domain;
  if (d.search?.length) out.search = [...d.search];
  if (d.options?.length) out.options = [...d.options];
  return out;
}

const copyRoute = (r: CniRoute): CniRoute => ({ ...r });

function from02xTo04x(r: R020, to: string): R040 {
  const ips: Ip040[] = [];
  const routes: CniRoute[] = [];
  if (r.ip4) {
    ips.push(ip040(r.ip4, '4'));
    for (const rt of r.ip4.routes ?? []) routes.push(copyRoute(rt));
  }
  if (r.ip6) {
    ips.push(ip040(r.ip6, '6'));
    for (const rt of r.ip6.routes ?? []) routes.push(copyRoute(rt));
  }
  return { k: '040', cniVersion: to, ips, routes, dns: copyDns(r.dns) };
}

function ip040(c: Ip020, version: string): Ip040 {
  return c.gateway !== undefined
    ? { version, address: c.ip, gateway: c.gateway }
    : { version, address: c.ip };
}

function internal040(r: R040, to: string): R040 {
  return {
    k: '040',
    cniVersion: to,
    interfaces: r.interfaces?.map((i) => ({ ...i })),
    ips: r.ips?.map((i) => ({ ...i })),
    routes: (r.routes ?? []).map(copyRoute),
    dns: copyDns(r.dns),
  };
}

function from04xTo02x(r: R040, to: string): R020 {
  let ip4: { ip: string; gateway?: string; routes?: CniRoute[] } | undefined;
  let ip6: { ip: string; gateway?: string; routes?: CniRoute[] } | undefined;
  for (const c of r.ips ?? []) {
    const cfg = c.gateway !== undefined ? { ip: c.address, gateway: c.gateway } : { ip: c.address };
    if (c.version === '4' && !ip4) ip4 = cfg;
    else if (c.version === '6' && !ip6) ip6 = cfg;
    if (ip4 && ip6) break;
  }
  for (const rt of r.routes ?? []) {
    const slim: CniRoute = rt.gw !== undefined ? { dst: rt.dst, gw: rt.gw } : { dst: rt.dst };
    const four = is4(rt.dst);
    if (four && ip4) (ip4.routes ??= []).push(slim);
    else if (!four && ip6) (ip6.routes ??= []).push(slim);
  }
  if (!ip4 && !ip6) throw new GoError('cannot convert: no valid IP addresses');
  return { k: '020', cniVersion: to, ip4, ip6, dns: copyDns(r.dns) };
}

function from04xTo100(r: R040, to: string): R100 {
  return {
    k: '100',
    cniVersion: to,
    interfaces: r.interfaces?.map((i) => ({ ...i })),
    ips: r.ips?.map((c) => {
      const out: { interface?: number; address: string; gateway?: string } = { address: c.address };
      if (c.interface !== undefined) out.interface = c.interface;
      if (c.gateway !== undefined) out.gateway = c.gateway;
      return out;
    }),
    routes: (r.routes ?? []).map(copyRoute),
    dns: copyDns(r.dns),
  };
}

function from100To04x(r: R100, to: string): R040 {
  return {
    k: '040',
    cniVersion: to,
    interfaces: r.interfaces?.map((i) => {
      const out: { name: string; mac?: string; sandbox?: string } = { name: i.name };
      if (i.mac !== undefined) out.mac = i.mac;
      if (i.sandbox !== undefined) out.sandbox = i.sandbox;
      return out;
    }),
    ips: r.ips?.map((c) => {
      const out: { version: string; interface?: number; address: string; gateway?: string } = {
        version: is4(c.address) ? '4' : '6',
        address: c.address,
      };
      if (c.interface !== undefined) out.interface = c.interface;
      if (c.gateway !== undefined) out.gateway = c.gateway;
      return out;
    }),
    routes: (r.routes ?? []).map(copyRoute),
    dns: copyDns(r.dns),
  };
}

function from100(r: R100, to: string): R100 {
  return { ...r, cniVersion: to };
}

const inList = (list: readonly string[], v: string): boolean => list.includes(v);

/** `convert.Convert`: Go's converter registry, from the result's own version to `to`. */
function convert(from: GoResult, toVersion: string): GoResult {
  const to = toVersion === '' ? '0.1.0' : toVersion;
  const fv = from.cniVersion;
  if (fv === to) return from;
  const none = (): never => {
    throw new GoError(`no converter for CNI result version ${fv} to ${to}`);
  };
  // each family registers converters from its own versions only (a Go type assertion guards them)
  if (from.k === '020') {
    if ((fv === '0.1.0' && to === '0.2.0') || (fv === '0.2.0' && to === '0.1.0')) {
      return {
        k: '020',
        cniVersion: to,
        ip4: copyIp020(from.ip4),
        ip6: copyIp020(from.ip6),
        dns: copyDns(from.dns),
      };
    }
    if (fv === '0.1.0' || fv === '0.2.0') {
      if (inList(V040, to)) return from02xTo04x(from, to);
      if (inList(V100, to)) return from04xTo100(convert(from, '0.4.0') as R040, to);
    }
    return none();
  }
  if (from.k === '040') {
    if (!inList(V040, fv)) return none();
    if (inList(V040, to)) return internal040(from, to);
    if (to === '0.1.0' || to === '0.2.0') return from04xTo02x(from, to);
    if (inList(V100, to)) return from04xTo100(from, to);
    return none();
  }
  if (!inList(V100, fv)) return none();
  if (inList(V100, to)) return from100(from, to);
  if (inList(V040, to)) return from100To04x(from, to);
  if (to === '0.1.0' || to === '0.2.0') return convert(from100To04x(from, '0.4.0'), to);
  return none();
}

function copyIp020(c: Ip020 | undefined): Ip020 | undefined {
  if (!c) return undefined;
  const out: { ip: string; gateway?: string; routes?: CniRoute[] } = { ip: c.ip };
  if (c.gateway !== undefined) out.gateway = c.gateway;
  if (c.routes?.length) out.routes = c.routes.map(copyRoute);
  return out;
}

/** The Go value behind a result: what it was read as, or a `types100.Result` a plugin built. */
function goResultOf(result: CniResult): GoResult {
  const src = SOURCE.get(result);
  if (src) return src;
  // GetAsVersion: an unset version is the type's own; a plugin's result is always a types100.Result
  const v = inList(V100, result.cniVersion) ? result.cniVersion : '1.1.0';
  // Go plugins hold net.IP / net.IPNet values, so what they print is always canonical text
  const cidr = (s: string): string => goCanonicalCIDR(s) ?? s;
  const ip = (s: string | undefined): string | undefined => (s === undefined ? s : (goCanonicalIP(s) ?? s));
  return {
    k: '100',
    cniVersion: v,
    interfaces: result.interfaces,
    ips: result.ips?.map((c) => {
      const out: { interface?: number; address: string; gateway?: string } = { address: cidr(c.address) };
      if (c.interface !== undefined) out.interface = c.interface;
      if (c.gateway !== undefined) out.gateway = ip(c.gateway);
      return out;
    }),
    routes: result.routes?.map((r) =>
      r.gw !== undefined ? { ...r, dst: cidr(r.dst), gw: ip(r.gw) } : { ...r, dst: cidr(r.dst) },
    ),
    dns: result.dns ?? {},
  };
}

/** The current-shape view of a Go result (cniVersion kept). */
function view(r: GoResult): CniResult {
  const up: R100 =
    r.k === '100'
      ? r
      : r.k === '040'
        ? from04xTo100(r, r.cniVersion)
        : from04xTo100(from02xTo04x(r, r.cniVersion), r.cniVersion);
  const out: { -readonly [K in keyof CniResult]: CniResult[K] } = { cniVersion: r.cniVersion };
  if (up.interfaces?.length) out.interfaces = up.interfaces;
  if (up.ips?.length) out.ips = up.ips;
  if (up.routes?.length) out.routes = up.routes;
  if (!dnsEmpty(up.dns)) out.dns = up.dns;
  return freezeResult(out);
}

/**
 * A result frozen through and through: its lists, their entries and its DNS lists (an entry holds
 * only strings and numbers, as every result read or converted here does).
 */
function freezeResult(r: CniResult): CniResult {
  freezeList(r.interfaces);
  freezeList(r.ips);
  freezeList(r.routes);
  const d = r.dns;
  if (d !== undefined) {
    if (d.nameservers) Object.freeze(d.nameservers);
    if (d.search) Object.freeze(d.search);
    if (d.options) Object.freeze(d.options);
    Object.freeze(d);
  }
  return Object.freeze(r);
}

function freezeList(list: readonly object[] | undefined): void {
  if (list === undefined) return;
  for (let i = 0; i < list.length; i++) Object.freeze(list[i]);
  Object.freeze(list);
}

const dnsEmpty = (d: CniDns | undefined): boolean =>
  !d || (!d.nameservers?.length && !d.domain && !d.search?.length && !d.options?.length);

// ───────────────────────────────────────── marshalling ─────────────────────────────────────

function routeValue(r: CniRoute, sorted: boolean): GoValue {
  // types.route: dst, gw, mtu, advmss, priority (omitempty ints), table, scope (pointers)
  const e: [string, GoValue][] = [['dst', r.dst]];
  if (r.gw !== undefined && r.gw !== '') e.push(['gw', r.gw]);
  if (r.mtu) e.push(['mtu', r.mtu]);
  if (r.advmss) e.push(['advmss', r.advmss]);
  if (r.priority) e.push(['priority', r.priority]);
  if (r.table !== undefined) e.push(['table', r.table]);
  if (r.scope !== undefined) e.push(['scope', r.scope]);
  return sorted ? Object.fromEntries(e) : new GoOrdered(e);
}

function dnsValue(d: CniDns, sorted: boolean): GoValue {
  const e: [string, GoValue][] = [];
  if (d.nameservers?.length) e.push(['nameservers', [...d.nameservers]]);
  if (d.domain) e.push(['domain', d.domain]);
  if (d.search?.length) e.push(['search', [...d.search]]);
  if (d.options?.length) e.push(['options', [...d.options]]);
  return sorted ? Object.fromEntries(e) : new GoOrdered(e);
}

/**
 * What `json.Marshal(result)` produces for a Go result value: 0.2.0 and 0.4.0 results are structs
 * (declaration order, `dns` always present); a 1.x result marshals through a map (`MarshalJSON`
 * re-encodes it), so every key is sorted and an empty `dns` is dropped.
 */
function marshalValue(r: GoResult): GoValue {
  if (r.k === '020') {
    const ipc = (c: Ip020): GoValue => {
      const e: [string, GoValue][] = [['ip', c.ip]];
      if (c.gateway !== undefined && c.gateway !== '') e.push(['gateway', c.gateway]);
      if (c.routes?.length) e.push(['routes', c.routes.map((x) => routeValue(x, false))]);
      return new GoOrdered(e);
    };
    const e: [string, GoValue][] = [];
    if (r.cniVersion) e.push(['cniVersion', r.cniVersion]);
    if (r.ip4) e.push(['ip4', ipc(r.ip4)]);
    if (r.ip6) e.push(['ip6', ipc(r.ip6)]);
    e.push(['dns', dnsValue(r.dns, false)]);
    return new GoOrdered(e);
  }
  if (r.k === '040') {
    const e: [string, GoValue][] = [];
    if (r.cniVersion) e.push(['cniVersion', r.cniVersion]);
    if (r.interfaces?.length) {
      e.push([
        'interfaces',
        r.interfaces.map((i) => {
          const f: [string, GoValue][] = [['name', i.name]];
          if (i.mac) f.push(['mac', i.mac]);
          if (i.sandbox) f.push(['sandbox', i.sandbox]);
          return new GoOrdered(f);
        }),
      ]);
    }
    if (r.ips?.length) {
      e.push([
        'ips',
        r.ips.map((c) => {
          const f: [string, GoValue][] = [['version', c.version]];
          if (c.interface !== undefined) f.push(['interface', c.interface]);
          f.push(['address', c.address]);
          if (c.gateway !== undefined && c.gateway !== '') f.push(['gateway', c.gateway]);
          return new GoOrdered(f);
        }),
      ]);
    }
    if (r.routes?.length) e.push(['routes', r.routes.map((x) => routeValue(x, false))]);
    e.push(['dns', dnsValue(r.dns, false)]);
    return new GoOrdered(e);
  }
  const out: Record<string, GoValue> = {};
  if (r.cniVersion) out['cniVersion'] = r.cniVersion;
  if (r.interfaces?.length) {
    out['interfaces'] = r.interfaces.map((i) => {
      const f: Record<string, GoValue> = { name: i.name };
      if (i.mac) f['mac'] = i.mac;
      if (i.mtu) f['mtu'] = i.mtu;
      if (i.sandbox) f['sandbox'] = i.sandbox;
      if (i.socketPath) f['socketPath'] = i.socketPath;
      if (i.pciID) f['pciID'] = i.pciID;
      return f;
    });
  }
  if (r.ips?.length) {
    out['ips'] = r.ips.map((c) => {
      const f: Record<string, GoValue> = { address: c.address };
      if (c.interface !== undefined) f['interface'] = c.interface;
      if (c.gateway !== undefined && c.gateway !== '') f['gateway'] = c.gateway;
      return f;
    });
  }
  if (r.routes?.length) out['routes'] = r.routes.map((x) => routeValue(x, true));
  if (!dnsEmpty(r.dns)) out['dns'] = dnsValue(r.dns, true);
  return out;
}

// ─────────────────────────────────────────── public ────────────────────────────────────────

/**
 * The Go value of a result converted to `toVersion` (`GetAsVersion`), ready to embed where Go embeds
 * the `types.Result` itself (libcni's `prevResult` injection): 0.x structs keep their field order.
 */
export function resultGoValue(result: CniResult, toVersion: string): GoValue {
  return marshalValue(convert(goResultOf(result), toVersion));
}

/** `json.Marshal(result)` of a result as it is (no conversion): what libcni's cache stores. */
export function resultOwnGoValue(result: CniResult): GoValue {
  return marshalValue(goResultOf(result));
}

/** The version a result carries as a Go value (a plugin-built one counts as a `types100.Result`). */
export function resultVersion(result: CniResult): string {
  return goResultOf(result).cniVersion;
}

/**
 * Convert to any version, with Go's field order and omitempty rules and Go's conversion errors
 * (`no converter for CNI result version X to Y`, `cannot convert: no valid IP addresses`), thrown as
 * a plain `GoError` (a plugin that lets it escape fails with 999, as a Go plugin would).
 */
export function resultJson(result: CniResult, toVersion: string): JsonObject {
  // (the document of Go's text: structs' fields in order, maps' keys sorted)
  return goDocOf(resultGoValue(result, toVersion)) as JsonObject;
}

/** `types.PrintResult(result, version)`: convert, then `json.MarshalIndent(r, "", "    ")`. */
export function printResult(out: Writer, result: CniResult, version: string): void {
  const value = resultGoValue(result, version);
  const text = goMarshalIndent(value);
  out.write(text);
  printed.set(out, { text, value });
}

/**
 * What `printResult` last wrote to each writer: the text and the Go value it is the text of — so
 * that a caller reading a plugin's stdout that is exactly this text can take its document from
 * the value (`goDocOf`, what JSON.parse of the text gives) instead of parsing the text again.
 */
const printed = new WeakMap<Writer, { readonly text: string; readonly value: GoValue }>();

/** Plugin outputs whose stdout is one result `printResult` wrote, with that result's Go value. */
const printedOutputs = new WeakMap<ExecOutput, GoValue>();

/**
 * Remember that `output`'s stdout, read from `stdout`, is exactly one printed result (skel calls
 * this for every invocation it ends; nothing is remembered when anything else was written).
 */
export function notePrintedOutput(output: ExecOutput, stdout: Writer): void {
  const p = printed.get(stdout);
  if (p !== undefined && p.text === output.stdout) printedOutputs.set(output, p.value);
}

/** The text `printResult` writes. */
export function resultText(result: CniResult, version: string): string {
  return goMarshalIndent(resultGoValue(result, version));
}

/**
 * Convert to `toVersion` and read back into the current shape with `cniVersion` = `toVersion` — what
 * `GetAsVersion` hands a Go caller (the view keeps the Go type, so it prints as that version does).
 */
export function convertResult(result: CniResult, toVersion: string): CniResult {
  const r = convert(goResultOf(result), toVersion);
  const v = view(r);
  SOURCE.set(v, r);
  return v;
}

// ─────────────────────────────────────────── parsing ───────────────────────────────────────

const ipNetType: GoType = {
  k: 'custom',
  name: 'types.IPNet',
  decode: (raw) => {
    // IPNet.UnmarshalJSON: a JSON string, then types.ParseCIDR
    const s = raw === null ? '' : raw;
    if (typeof s !== 'string')
      throw new GoError(`json: cannot unmarshal ${goJsonKind(s)} into Go value of type string`);
    const canonical = goCanonicalCIDR(s);
    if (canonical === undefined) throw new GoError(goCidrError(s));
    return canonical;
  },
};

/** `net.IP` as `UnmarshalText` decodes it: '' is nil, else Go's canonical text or `invalid IP address: …`. */
export const netIPType: GoType = {
  k: 'text',
  name: 'net.IP',
  decode: (s) => {
    if (s === '') return undefined;
    const ip = goCanonicalIP(s);
    if (ip === undefined) throw new GoError(goIPError(s));
    return ip;
  },
};

const routeStruct = typesRouteStruct(ipNetType, netIPType);

/** `types.Route.UnmarshalJSON`: a fresh decode into the private `route` struct. */
const routeType: GoType = {
  k: 'custom',
  name: 'types.Route',
  decode: (raw) => {
    const r = (goUnmarshal(raw, routeStruct) ?? {}) as Record<string, unknown>;
    const out: { -readonly [K in keyof CniRoute]: CniRoute[K] } = {
      dst: (r['dst'] as string | undefined) ?? NIL_NET,
    };
    if (r['gw'] !== undefined) out.gw = r['gw'] as string;
    if (r['mtu']) out.mtu = r['mtu'] as number;
    if (r['advmss']) out.advmss = r['advmss'] as number;
    if (r['priority']) out.priority = r['priority'] as number;
    if (r['table'] !== undefined) out.table = r['table'] as number;
    if (r['scope'] !== undefined) out.scope = r['scope'] as number;
    return out;
  },
};

function ipConfigType(withVersion: boolean, pkg: string): GoType {
  const inner = goStruct(`${pkg}.ipConfig`, [
    ...(withVersion ? [field('version', goString)] : []),
    field('interface', goPtr(goInt)),
    field('address', ipNetType),
    field('gateway', netIPType),
  ]);
  return {
    k: 'custom',
    name: `${pkg}.IPConfig`,
    decode: (raw) => {
      const r = (goUnmarshal(raw, inner) ?? {}) as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      if (withVersion) out['version'] = r['version'] ?? '';
      if (r['interface'] !== undefined) out['interface'] = r['interface'];
      out['address'] = r['address'] ?? NIL_NET;
      if (r['gateway'] !== undefined) out['gateway'] = r['gateway'];
      return out;
    },
  };
}

const ip020Type: GoType = {
  k: 'custom',
  name: 'types020.IPConfig',
  decode: (raw) => {
    const inner = goStruct('types020.ipConfig', [
      field('ip', ipNetType),
      field('gateway', netIPType),
      field('routes', goSlice(routeType)),
    ]);
    const r = (goUnmarshal(raw, inner) ?? {}) as Record<string, unknown>;
    const out: Record<string, unknown> = { ip: r['ip'] ?? NIL_NET };
    if (r['gateway'] !== undefined) out['gateway'] = r['gateway'];
    if (Array.isArray(r['routes']) && r['routes'].length) out['routes'] = r['routes'];
    return out;
  },
};

const intf040 = goStruct('types040.Interface', [
  field('name', goString),
  field('mac', goString),
  field('sandbox', goString),
]);
const intf100 = goStruct('types100.Interface', [
  field('name', goString),
  field('mac', goString),
  field('mtu', goInt),
  field('sandbox', goString),
  field('socketPath', goString),
  field('pciID', goString),
]);

const result020Type = goStruct('types020.Result', [
  field('cniVersion', goString),
  field('ip4', goPtr(ip020Type)),
  field('ip6', goPtr(ip020Type)),
  field('dns', TYPES_DNS),
]);
const result040Type = goStruct('types040.Result', [
  field('cniVersion', goString),
  field('interfaces', goSlice(goPtr(intf040))),
  field('ips', goSlice(goPtr(ipConfigType(true, 'types040')))),
  field('routes', goSlice(goPtr(routeType))),
  field('dns', TYPES_DNS),
]);
const result100Type = goStruct('types100.Result', [
  field('cniVersion', goString),
  field('interfaces', goSlice(goPtr(intf100))),
  field('ips', goSlice(goPtr(ipConfigType(false, 'types100')))),
  field('routes', goSlice(goPtr(routeType))),
  field('dns', TYPES_DNS),
]);

function readDns(v: unknown): CniDns {
  const d = (v ?? {}) as Record<string, unknown>;
  const out: { -readonly [K in keyof CniDns]: CniDns[K] } = {};
  const list = (x: unknown): string[] =>
    Array.isArray(x) ? x.map((s) => (typeof s === 'string' ? s : '')) : [];
  if (list(d['nameservers']).length) out.nameservers = list(d['nameservers']);
  if (typeof d['domain'] === 'string' && d['domain']) out.domain = d['domain'];
  if (list(d['search']).length) out.search = list(d['search']);
  if (list(d['options']).length) out.options = list(d['options']);
  return out;
}

/** Elements of a `[]*T` that came in as JSON null are nil pointers; Go would crash on them later. */
function nonNil<T>(v: unknown, what: string): T[] | undefined {
  if (!Array.isArray(v)) return undefined;
  if (v.some((x) => x === undefined)) throw new GoError(`invalid nil entry in result ${what}`);
  return v as T[];
}

function cleanIntf(v: Record<string, unknown>): CniInterface {
  const out: Record<string, unknown> = { name: v['name'] ?? '' };
  for (const k of ['mac', 'mtu', 'sandbox', 'socketPath', 'pciID']) if (v[k]) out[k] = v[k];
  return out as unknown as CniInterface;
}

function decodeAs(family: '020' | '040' | '100', doc: Json): GoResult {
  if (family === '020') {
    const r = (goUnmarshal(doc, result020Type) ?? {}) as Record<string, unknown>;
    const v = (r['cniVersion'] as string | undefined) ?? '';
    if (!inList(V020, v))
      throw new GoError(
        `result type supports [${V020.join(' ')}] but unmarshalled CNIVersion is ${goQuote(v)}`,
      );
    return {
      k: '020',
      cniVersion: v === '' ? '0.1.0' : v,
      ip4: r['ip4'] as Ip020 | undefined,
      ip6: r['ip6'] as Ip020 | undefined,
      dns: readDns(r['dns']),
    };
  }
  const type = family === '040' ? result040Type : result100Type;
  const list = family === '040' ? V040 : V100;
  const r = (goUnmarshal(doc, type) ?? {}) as Record<string, unknown>;
  const v = (r['cniVersion'] as string | undefined) ?? '';
  if (!inList(list, v))
    throw new GoError(
      `result type supports [${list.join(' ')}] but unmarshalled CNIVersion is ${goQuote(v)}`,
    );
  const interfaces = nonNil<Record<string, unknown>>(r['interfaces'], 'interfaces')?.map(cleanIntf);
  const ips = nonNil<Ip040 & CniIPConfig>(r['ips'], 'ips');
  const routes = nonNil<CniRoute>(r['routes'], 'routes');
  const dns = readDns(r['dns']);
  return family === '040'
    ? { k: '040', cniVersion: v, interfaces, ips: ips as Ip040[] | undefined, routes, dns }
    : { k: '100', cniVersion: v, interfaces, ips, routes, dns };
}

function familyOf(version: string): '020' | '040' | '100' | undefined {
  if (inList(V020, version)) return '020';
  if (inList(V040, version)) return '040';
  if (inList(V100, version)) return '100';
  return undefined;
}

function asDoc(doc: unknown): Json {
  if (typeof doc === 'string' || doc instanceof Uint8Array) return goParse(doc);
  return doc as Json;
}

/**
 * `create.Create(version, doc)`: read a result with the Go type registered for `version` (0.1.0/0.2.0
 * `ip4`/`ip6`; 0.3.x/0.4.0 with `ips[].version`; 1.x), returned in the current shape. As in Go, the
 * type is chosen by `version` and `cniVersion` is the document's own, which must be one that type
 * supports (`result type supports [0.3.0 0.3.1 0.4.0] but unmarshalled CNIVersion is "…"`); 0.2.0's
 * type reads a missing one as 0.1.0. Addresses come back in Go's canonical text. Errors are plain
 * `GoError`s with Go's text (`unsupported CNI result version "…"`, JSON and CIDR errors).
 */
export function parseResult(doc: unknown, version: string): CniResult {
  const family = familyOf(version);
  if (!family) throw new GoError(`unsupported CNI result version ${goQuote(version)}`);
  const r = decodeAs(family, asDoc(doc));
  const v = view(r);
  SOURCE.set(v, r);
  return v;
}

const VERSION_STRUCT = goStruct(
  'struct { CNIVersion string "json:\\"cniVersion\\"" }',
  [field('cniVersion', goString)],
  '',
);

/** `create.DecodeVersion`: a document's `cniVersion`, `0.1.0` when absent or empty. */
export function decodeVersion(doc: string | Uint8Array | Json): string {
  let parsed: Json;
  try {
    // (bytes: the shared read-only document, decoded into one string here)
    parsed = doc instanceof Uint8Array ? goParseShared(doc) : typeof doc === 'string' ? goParse(doc) : doc;
  } catch (e) {
    throw new GoError(`decoding version from network config: ${(e as Error).message}`);
  }
  return decodeVersionOf(parsed);
}

/** `decodeVersion` of a document already parsed (a string in it is a JSON string). */
export function decodeVersionOf(doc: Json): string {
  let r: Record<string, unknown>;
  try {
    // (a shared document's decoding is remembered; any other is decoded now)
    r = (goDecodeShared(doc, VERSION_STRUCT) ?? {}) as Record<string, unknown>;
  } catch (e) {
    throw new GoError(`decoding version from network config: ${(e as Error).message}`);
  }
  const v = r['cniVersion'];
  return typeof v === 'string' && v !== '' ? v : '0.1.0';
}

/** `create.CreateFromBytes`: the version from the document itself, then `parseResult`. */
export function createFromBytes(doc: string | Uint8Array | Json): CniResult {
  return parseResult(doc, decodeVersion(doc));
}

/**
 * What `invoke.ExecPluginWithResult` makes of a plugin's stdout (`fixupResultVersion`): a result with
 * no (or an empty, or a non-string) `cniVersion` is taken to be at the config's version; otherwise it
 * is read at its own version. `output`, when given, is the plugin output `stdout` came from.
 */
export function parsePluginOutput(
  stdout: string,
  netconf: string | Uint8Array,
  output?: ExecOutput,
): CniResult {
  const confVersion = decodeVersion(netconf);
  let raw: JsonObject | null;
  // the output of a plugin that printed one result: its document without parsing the text again
  const value = output !== undefined && output.stdout === stdout ? printedOutputs.get(output) : undefined;
  try {
    raw = goDecodeMap(value !== undefined ? goDocOf(value) : goParse(stdout));
  } catch (e) {
    throw new GoError(`failed to unmarshal raw result: ${(e as Error).message}`);
  }
  const obj: JsonObject = raw ?? {};
  const rv = obj['cniVersion'];
  if (typeof rv === 'string' && rv !== '') return parseResult(obj, rv);
  return parseResult({ ...obj, cniVersion: confVersion }, confVersion);
}

/** The error document skel prints (`types.Error.Print`: MarshalIndent, 4 spaces, no newline). */
export function errorText(err: CniError): string {
  const e: [string, GoValue][] = [
    ['code', err.code],
    ['msg', err.msg],
  ];
  if (err.details) e.push(['details', err.details]);
  return goMarshalIndent(new GoOrdered(e));
}

/** What skel makes of anything a plugin function throws: a `CniError` as is, else code 999. */
export function asCniError(e: unknown): CniError {
  if (e instanceof CniError) return e;
  return new CniError(CniErrorCode.Internal, e instanceof Error ? e.message : String(e));
}
