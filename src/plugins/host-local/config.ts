/**
 * host-local's configuration (containernetworking/plugins @3d27709f
 * `plugins/ipam/host-local/backend/allocator/config.go`, with cni v1.3.0 `types.LoadArgs`;
 * reference cni-windows.md §6): the network config decoded as Go decodes it into `allocator.Net`,
 * requested addresses from CNI_ARGS `IP=`, `args.cni.ips` and `runtimeConfig.ips`, the legacy
 * single range and `runtimeConfig.ipRanges` prepended to `ranges`, every set validated, and Go's
 * error texts throughout.
 */
import type { CniRoute } from '../../cni/contracts.js';
import {
  field,
  GoError,
  goDecodeShared,
  goParseShared,
  goPtr,
  goSlice,
  goString,
  goStruct,
  goUnmarshal,
  type GoType,
} from '../../cni/gojson.js';
import { typesRouteStruct } from '../../cni/gotypes.js';
import { argsPairError, loadArgs } from '../../cni/loadargs.js';
import { versionGte } from '../../cni/version.js';
import { ipNetString, ipString, parseCIDR, parseIP, type IP, type IPNet } from './ip.js';
import { canonicalizeRangeSet, rangeSetOverlaps, type Range, type RangeSet } from './range.js';

/** `allocator.IPAMConfig` after `LoadIPAMConfig` (the legacy range folded into `ranges`). */
export interface IPAMConfig {
  /** The network's name (copied from the top-level `name`). */
  name: string;
  type: string;
  /** `routes`, as the result carries them (undefined when absent: Go's nil). */
  routes: CniRoute[] | undefined;
  dataDir: string;
  resolvConf: string;
  ranges: RangeSet[];
  /** Requested addresses, in the order Go appends them (CNI_ARGS, args, runtimeConfig). */
  ipArgs: IP[];
}

export interface LoadedConfig {
  readonly conf: IPAMConfig;
  /** The config's `cniVersion`, as written ("" when absent). */
  readonly version: string;
}

// ───────────────────────────── Go types of config.go ─────────────────────────────

/** `pkg/ip.IP` decoded: `ip` undefined for the empty text (its `ToIP()` is nil). */
export interface PkgIP {
  readonly ip?: IP;
}

/** `ip.ParseIP(s)` of pkg/ip: `<ip>` or `<ip>/<prefix>` (the address kept). */
function pkgParseIP(s: string): IP | undefined {
  if (s.includes('/')) return parseCIDR(s)?.ip;
  return parseIP(s);
}

/** `net.IP` (UnmarshalText): "" is nil; else `net.ParseIP` or `invalid IP address: x`. */
const NET_IP: GoType = {
  k: 'text',
  name: 'net.IP',
  decode: (s: string): IP | undefined => {
    if (s === '') return undefined;
    const ip = parseIP(s);
    if (ip === undefined) throw new GoError(`invalid IP address: ${s}`);
    return ip;
  },
};

/** `types.IPNet` (UnmarshalJSON): a JSON string parsed by `types.ParseCIDR`. */
const TYPES_IPNET: GoType = {
  k: 'custom',
  name: 'types.IPNet',
  decode: (raw): IPNet => {
    // a JSON string decodes to itself; anything else fails as Go's string decode does
    const s =
      raw === null
        ? ''
        : typeof raw === 'string'
          ? raw
          : (goUnmarshal(JSON.stringify(raw), goString) as string);
    const n = parseCIDR(s);
    if (n === undefined) throw new GoError(`invalid CIDR address: ${s}`);
    return n;
  },
};

/** `pkg/ip.IP` (UnmarshalText): `invalid IP address x` (no colon). */
const PKG_IP: GoType = {
  k: 'text',
  name: 'ip.IP',
  decode: (s: string): PkgIP => {
    if (s === '') return {};
    const ip = pkgParseIP(s);
    if (ip === undefined) throw new GoError(`invalid IP address ${s}`);
    return { ip };
  },
};

/** `types.route`, what `Route.UnmarshalJSON` decodes into. */
const ROUTE_STRUCT = typesRouteStruct(TYPES_IPNET, NET_IP);

interface DecodedRoute {
  dst?: IPNet;
  gw?: IP;
  mtu?: number;
  advmss?: number;
  priority?: number;
  table?: number;
  scope?: number;
}

/** `types.Route` as a result prints it (`Route.MarshalJSON`: gw, mtu, advmss, priority omitted when zero). */
function toCniRoute(d: DecodedRoute): CniRoute {
  return {
    dst: d.dst === undefined ? '<nil>' : ipNetString(d.dst),
    ...(d.gw !== undefined ? { gw: ipString(d.gw) } : {}),
    ...(d.mtu ? { mtu: d.mtu } : {}),
    ...(d.advmss ? { advmss: d.advmss } : {}),
    ...(d.priority ? { priority: d.priority } : {}),
    ...(d.table !== undefined ? { table: d.table } : {}),
    ...(d.scope !== undefined ? { scope: d.scope } : {}),
  };
}

/** `*types.Route` (UnmarshalJSON through `types.route`; its error stops the whole decode). */
const TYPES_ROUTE: GoType = {
  k: 'custom',
  name: 'types.Route',
  decode: (raw): CniRoute =>
    toCniRoute((goUnmarshal(JSON.stringify(raw), ROUTE_STRUCT) ?? {}) as DecodedRoute),
};

const RANGE_FIELDS = [
  field('rangeStart', NET_IP),
  field('rangeEnd', NET_IP),
  field('subnet', TYPES_IPNET),
  field('gateway', NET_IP),
];
const RANGE = goStruct('allocator.Range', RANGE_FIELDS);
const RANGE_SET = goSlice(RANGE);

/** `IPAMConfig`, with the fields of its embedded `*Range` promoted (Go's rule for embedded structs). */
const IPAM_CONFIG = goStruct('allocator.IPAMConfig', [
  ...RANGE_FIELDS,
  field('Name', goString),
  field('type', goString),
  field('routes', goSlice(goPtr(TYPES_ROUTE))),
  field('dataDir', goString),
  field('resolvConf', goString),
  field('ranges', goSlice(RANGE_SET)),
]);

const IPAM_ARGS = goStruct('allocator.IPAMArgs', [field('ips', goSlice(goPtr(PKG_IP)))]);

const NET = goStruct('allocator.Net', [
  field('name', goString),
  field('cniVersion', goString),
  field('ipam', goPtr(IPAM_CONFIG)),
  field(
    'runtimeConfig',
    goStruct(
      'struct { IPRanges []allocator.RangeSet "json:\\"ipRanges,omitempty\\""; IPs []*ip.IP "json:\\"ips,omitempty\\"" }',
      [field('ipRanges', goSlice(RANGE_SET)), field('ips', goSlice(goPtr(PKG_IP)))],
      '',
    ),
  ),
  field(
    'args',
    goPtr(
      goStruct('struct { A *allocator.IPAMArgs "json:\\"cni\\"" }', [field('cni', goPtr(IPAM_ARGS))], ''),
    ),
  ),
]);

interface DecodedRange {
  rangeStart?: IP;
  rangeEnd?: IP;
  subnet?: IPNet;
  gateway?: IP;
}

interface DecodedIpam extends DecodedRange {
  Name?: string;
  type?: string;
  routes?: (CniRoute | undefined)[];
  dataDir?: string;
  resolvConf?: string;
  ranges?: ((DecodedRange | undefined)[] | undefined)[];
}

interface DecodedNet {
  name?: string;
  cniVersion?: string;
  ipam?: DecodedIpam;
  runtimeConfig?: {
    ipRanges?: ((DecodedRange | undefined)[] | undefined)[];
    ips?: (PkgIP | undefined)[];
  };
  args?: { cni?: { ips?: (PkgIP | undefined)[] } };
}

function toRange(d: DecodedRange | undefined): Range {
  return {
    subnet: d?.subnet,
    ...(d?.rangeStart !== undefined ? { rangeStart: d.rangeStart } : {}),
    ...(d?.rangeEnd !== undefined ? { rangeEnd: d.rangeEnd } : {}),
    ...(d?.gateway !== undefined ? { gateway: d.gateway } : {}),
  };
}

function toRangeSets(sets: ((DecodedRange | undefined)[] | undefined)[] | undefined): RangeSet[] {
  return (sets ?? []).map((s) => (s ?? []).map(toRange));
}

/** `(*ip.IP).ToIP()`: a nil pointer panics in Go. */
function toIP(p: PkgIP | undefined): IP | undefined {
  if (p === undefined) throw new GoError('runtime error: invalid memory address or nil pointer dereference');
  return p.ip;
}

// ───────────────────────────── CNI_ARGS (types.LoadArgs into IPAMEnvArgs) ─────────────────────────────

/** `IPAMEnvArgs` as `types.LoadArgs` fills it. */
export interface IPAMEnvArgs {
  ignoreUnknown: boolean;
  ip: PkgIP;
}

/**
 * `types.LoadArgs(args, &IPAMEnvArgs{})`: `K=V` pairs split on `;`, keys matched to the Go field
 * names exactly (`IgnoreUnknown`, `IP`; `CommonArgs` is a field too, and not a TextUnmarshaler),
 * unknown keys an error unless `IgnoreUnknown` is true.
 */
export function loadEnvArgs(args: string): IPAMEnvArgs {
  const out: IPAMEnvArgs = { ignoreUnknown: false, ip: {} };
  out.ignoreUnknown = loadArgs(args, {
    IP: (value, pair) => {
      if (value === '') {
        out.ip = {};
        return;
      }
      const ip = pkgParseIP(value);
      if (ip === undefined) throw argsPairError(pair, `invalid IP address ${value}`);
      out.ip = { ip };
    },
  });
  return out;
}

// ───────────────────────────── LoadIPAMConfig ─────────────────────────────

/** `version.GreaterThanOrEqualTo(v, other)` with its error ignored (`ok, _ :=`). */
function atLeast(v: string, other: string): boolean {
  try {
    return versionGte(v, other);
  } catch {
    return false;
  }
}

/**
 * `LoadIPAMConfig(bytes, envArgs)`: the IPAM config and the config's cniVersion, or Go's error
 * (`IPAM config missing 'ipam' key`, `no IP ranges specified`, `invalid range set N: …`, `CNI
 * version X does not support more than 1 address per family`, `range set I overlaps with J`, …).
 */
export function loadIPAMConfig(bytes: string | Uint8Array, envArgs: string): LoadedConfig {
  // (bytes: the shared read-only document and its shared decoding; below, what is read is copied)
  const shared = bytes instanceof Uint8Array;
  const decoded = shared ? goDecodeShared(goParseShared(bytes), NET) : goUnmarshal(bytes, NET);
  const n = (decoded ?? {}) as DecodedNet;
  const ipam = n.ipam;
  if (ipam === undefined) throw new GoError("IPAM config missing 'ipam' key");

  let ipArgs: (IP | undefined)[] = [];
  if (envArgs !== '') {
    const e = loadEnvArgs(envArgs);
    if (e.ip.ip !== undefined) ipArgs = [e.ip.ip];
  }
  const cniIps = n.args?.cni?.ips ?? [];
  const runtimeIps = n.runtimeConfig?.ips ?? [];
  // no address requested: the config is the document's alone, the same for every invocation
  const plain = shared && ipArgs.length === 0 && cniIps.length === 0 && runtimeIps.length === 0;
  if (plain) {
    const hit = loadedShared.get(n);
    if (hit !== undefined) return hit;
  }
  for (const i of cniIps) ipArgs.push(toIP(i));
  for (const i of runtimeIps) ipArgs.push(toIP(i));
  const canonical: IP[] = [];
  for (const ip of ipArgs) {
    if (ip === undefined) throw new GoError('cannot understand ip: IP <nil> not v4 nor v6');
    canonical.push(ip);
  }

  let ranges = toRangeSets(ipam.ranges);
  // the old single range, when it names a subnet, goes first
  if (ipam.subnet !== undefined) ranges = [[toRange(ipam)], ...ranges];
  const runtimeRanges = toRangeSets(n.runtimeConfig?.ipRanges);
  if (runtimeRanges.length > 0) ranges = [...runtimeRanges, ...ranges];
  if (ranges.length === 0) throw new GoError('no IP ranges specified');

  let numV4 = 0;
  let numV6 = 0;
  ranges.forEach((set, i) => {
    try {
      canonicalizeRangeSet(set);
    } catch (e) {
      throw new GoError(`invalid range set ${i}: ${(e as Error).message}`);
    }
    if (set[0]!.rangeStart?.family === 4) numV4++;
    else numV6++;
  });

  const version = n.cniVersion ?? '';
  if ((numV4 > 1 || numV6 > 1) && !atLeast(version, '0.3.0')) {
    throw new GoError(`CNI version ${version} does not support more than 1 address per family`);
  }

  for (let i = 0; i < ranges.length - 1; i++) {
    for (let j = i + 1; j < ranges.length; j++) {
      if (rangeSetOverlaps(ranges[i]!, ranges[j]!)) throw new GoError(`range set ${i} overlaps with ${j}`);
    }
  }

  const loaded: LoadedConfig = {
    conf: {
      name: n.name ?? '',
      type: ipam.type ?? '',
      routes: ipam.routes?.filter((r): r is CniRoute => r !== undefined),
      dataDir: ipam.dataDir ?? '',
      resolvConf: ipam.resolvConf ?? '',
      ranges,
      ipArgs: canonical,
    },
    version,
  };
  if (plain) loadedShared.set(n, deepFreeze(loaded));
  return loaded;
}

/**
 * The configs of shared documents that request no address, by their (shared) decoding: frozen, as
 * every invocation with that stdin gets the very same one.
 */
const loadedShared = new WeakMap<object, LoadedConfig>();

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}
