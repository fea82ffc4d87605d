/**
 * windows-container-networking's network configuration (`cni/cni.go` @ b96345f, libcni v1.1.2
 * types; reference cni-windows.md §4.2): `cni.NetworkConfig` decoded as Go decodes it (case-
 * insensitive keys, Go's type-error texts), the case-sensitive `type` → HCN network type mapping,
 * `Serialize()` — the re-marshalled config WCN hands its IPAM plugin when dual-stack is off, which
 * keeps only the keys its own structs know (pitfall P12) — and the K8S_* CNI_ARGS.
 */
import type { Json } from '../../core/json.js';
import {
  field,
  goAny,
  goBool,
  GoError,
  goInt,
  goMarshal,
  GoOrdered,
  goSlice,
  goString,
  goStrconvQuote,
  goStruct,
  goUnmarshal,
  type GoType,
  type GoValue,
} from '../../cni/gojson.js';
import { TYPES_DNS } from '../../cni/gotypes.js';
import {
  goIPString,
  goNetString,
  parseIP,
  parseTypesCIDR,
  ZERO_NET,
  type GoIP,
  type GoNet,
} from './gonet.js';

// ───────────────────────────────────────── the structs ───────────────────────────────────────

/** `types.Route` of libcni v1.1.2: `dst` (zero when absent) and `gw` (nil when absent). */
export interface Route {
  readonly dst: GoNet;
  readonly gw: GoIP | undefined;
}

/** `cni.IpamConfig`: the only IPAM keys that survive `Serialize()`. */
export interface IpamConfig {
  type: string;
  environment: string;
  addressSpace: string;
  subnet: string;
  ipAddress: string;
  queryInterval: string;
  /** undefined is a nil slice. */
  routes: Route[] | undefined;
}

/** `types.DNS`. */
export interface DnsConfig {
  nameservers: string[] | undefined;
  domain: string;
  search: string[] | undefined;
  options: string[] | undefined;
}

/** `cni.PortMapping` (the `portMappings` capability). */
export interface PortMapping {
  readonly hostPort: number;
  readonly containerPort: number;
  readonly protocol: string;
  readonly hostIP: string;
}

/** `cni.RuntimeConfig`. */
export interface RuntimeConfig {
  portMappings: PortMapping[] | undefined;
  dns: { servers: string[] | undefined; searches: string[] | undefined; options: string[] | undefined };
}

/** `cni.OptionalFlags` (the JSON names; Go's `LocalRoutePortMapping` is `localRoutedPortMapping`). */
export interface OptionalFlags {
  localRoutedPortMapping: boolean;
  allowAclPortMapping: boolean;
  forceBridgeGateway: boolean;
  enableDualStack: boolean;
  loopbackDSR: boolean;
  gatewayFromAdditionalRoutes: boolean;
}

/** `cni.KVP`: `value` is a `json.RawMessage` (undefined is nil, i.e. the key was absent). */
export interface KVP {
  readonly name: string;
  readonly value: Json | undefined;
}

/** `cni.NetworkConfig`. `type` holds the mapped HCN type once parsed. */
export interface NetworkConfig {
  cniVersion: string;
  name: string;
  type: string;
  ipam: IpamConfig;
  dns: DnsConfig;
  optionalFlags: OptionalFlags;
  runtimeConfig: RuntimeConfig;
  additionalRoutes: Route[] | undefined;
  additionalArgs: KVP[] | undefined;
}

// ───────────────────────────────────────── decoding ──────────────────────────────────────────

const TYPE_ERROR = /^json: cannot unmarshal (.+) into Go (?:struct field \S+|value) of type (.+)$/;

/** `types.IPNet.UnmarshalJSON`: a JSON string, then `types.ParseCIDR`. */
const ipNetType: GoType = {
  k: 'custom',
  name: 'types.IPNet',
  decode: (raw) => {
    const s = raw === null ? '' : raw;
    if (typeof s !== 'string') {
      const kind = Array.isArray(s)
        ? 'array'
        : typeof s === 'boolean'
          ? 'bool'
          : typeof s === 'object'
            ? 'object'
            : typeof s;
      throw new GoError(`json: cannot unmarshal ${kind} into Go value of type string`);
    }
    const n = parseTypesCIDR(s);
    if (!n) throw new GoError(`invalid CIDR address: ${s}`);
    return n;
  },
};

/** `net.IP.UnmarshalText`: empty text is nil, anything else must parse. */
const netIPType: GoType = {
  k: 'text',
  name: 'net.IP',
  decode: (s) => {
    if (s === '') return undefined;
    const ip = parseIP(s);
    if (!ip) throw new GoError(`invalid IP address: ${s}`);
    return ip;
  },
};

const innerRoute = goStruct('types.route', [field('dst', ipNetType), field('gw', netIPType)]);

/**
 * `types.Route.UnmarshalJSON` (a fresh `json.Unmarshal` into the private `route`): a type error in
 * it surfaces with the outer decoder's context (`Go struct field IpamConfig.ipam.routes of type
 * net.IP`), as Go's `addErrorContext` rewrites it on the way out.
 */
function routeType(outerContext: string): GoType {
  return {
    k: 'custom',
    name: 'types.Route',
    decode: (raw) => {
      let r: Record<string, unknown>;
      try {
        // the raw bytes, re-read (a JSON string here is a value, not text to parse)
        r = (goUnmarshal(JSON.stringify(raw), innerRoute) ?? {}) as Record<string, unknown>;
      } catch (e) {
        const m = e instanceof Error ? TYPE_ERROR.exec(e.message) : null;
        if (m)
          throw new GoError(
            `json: cannot unmarshal ${m[1]} into Go struct field ${outerContext} of type ${m[2]}`,
          );
        throw e;
      }
      const route: Route = {
        dst: (r['dst'] as GoNet | undefined) ?? ZERO_NET,
        gw: r['gw'] as GoIP | undefined,
      };
      return route;
    },
  };
}

const strs = goSlice(goString);

const NETWORK_CONFIG: GoType = goStruct('cni.NetworkConfig', [
  field('cniVersion', goString),
  field('name', goString),
  field('type', { k: 'text', name: 'hcn.NetworkType', decode: (s) => s }),
  field(
    'ipam',
    goStruct('cni.IpamConfig', [
      field('type', goString),
      field('environment', goString),
      field('addressSpace', goString),
      field('subnet', goString),
      field('ipAddress', goString),
      field('queryInterval', goString),
      field('routes', goSlice(routeType('IpamConfig.ipam.routes'))),
    ]),
  ),
  field('dns', TYPES_DNS),
  field(
    'optionalFlags',
    goStruct('cni.OptionalFlags', [
      field('localRoutedPortMapping', goBool),
      field('allowAclPortMapping', goBool),
      field('forceBridgeGateway', goBool),
      field('enableDualStack', goBool),
      field('loopbackDSR', goBool),
      field('gatewayFromAdditionalRoutes', goBool),
    ]),
  ),
  field(
    'runtimeConfig',
    goStruct('cni.RuntimeConfig', [
      field(
        'portMappings',
        goSlice(
          goStruct('cni.PortMapping', [
            field('hostPort', goInt),
            field('containerPort', goInt),
            field('protocol', goString),
            field('hostIP', goString),
          ]),
        ),
      ),
      field(
        'dns',
        goStruct('cni.cniDNSConfig', [
          field('servers', strs),
          field('searches', strs),
          field('options', strs),
        ]),
      ),
    ]),
  ),
  field('additionalRoutes', goSlice(routeType('NetworkConfig.additionalRoutes'))),
  field('AdditionalArgs', goSlice(goStruct('cni.KVP', [field('name', goString), field('value', goAny)]))),
]);

type Obj = Record<string, unknown>;

const str = (o: Obj, k: string): string => (typeof o[k] === 'string' ? (o[k] as string) : '');
const bool = (o: Obj, k: string): boolean => o[k] === true;
const list = (o: Obj, k: string): string[] | undefined =>
  Array.isArray(o[k]) ? (o[k] as unknown[]).map((s) => (typeof s === 'string' ? s : '')) : undefined;
const obj = (o: Obj, k: string): Obj => (o[k] !== null && typeof o[k] === 'object' ? (o[k] as Obj) : {});

/** Decode the stdin bytes into `cni.NetworkConfig` (Go's zero values for what is absent). */
export function decodeNetworkConfig(stdin: string | Uint8Array): NetworkConfig {
  const c = (goUnmarshal(stdin, NETWORK_CONFIG) ?? {}) as Obj;
  const ipam = obj(c, 'ipam');
  const dns = obj(c, 'dns');
  const flags = obj(c, 'optionalFlags');
  const rt = obj(c, 'runtimeConfig');
  const rtDns = obj(rt, 'dns');
  const routes = (o: Obj, k: string): Route[] | undefined =>
    Array.isArray(o[k])
      ? (o[k] as unknown[]).map((r) => (r as Route | undefined) ?? { dst: ZERO_NET, gw: undefined })
      : undefined;
  return {
    cniVersion: str(c, 'cniVersion'),
    name: str(c, 'name'),
    type: str(c, 'type'),
    ipam: {
      type: str(ipam, 'type'),
      environment: str(ipam, 'environment'),
      addressSpace: str(ipam, 'addressSpace'),
      subnet: str(ipam, 'subnet'),
      ipAddress: str(ipam, 'ipAddress'),
      queryInterval: str(ipam, 'queryInterval'),
      routes: routes(ipam, 'routes'),
    },
    dns: {
      nameservers: list(dns, 'nameservers'),
      domain: str(dns, 'domain'),
      search: list(dns, 'search'),
      options: list(dns, 'options'),
    },
    optionalFlags: {
      localRoutedPortMapping: bool(flags, 'localRoutedPortMapping'),
      allowAclPortMapping: bool(flags, 'allowAclPortMapping'),
      forceBridgeGateway: bool(flags, 'forceBridgeGateway'),
      enableDualStack: bool(flags, 'enableDualStack'),
      loopbackDSR: bool(flags, 'loopbackDSR'),
      gatewayFromAdditionalRoutes: bool(flags, 'gatewayFromAdditionalRoutes'),
    },
    runtimeConfig: {
      portMappings: Array.isArray(rt['portMappings'])
        ? (rt['portMappings'] as unknown[]).map((m) => {
            const p = (m ?? {}) as Obj;
            return {
              hostPort: typeof p['hostPort'] === 'number' ? p['hostPort'] : 0,
              containerPort: typeof p['containerPort'] === 'number' ? p['containerPort'] : 0,
              protocol: str(p, 'protocol'),
              hostIP: str(p, 'hostIP'),
            };
          })
        : undefined,
      dns: {
        servers: list(rtDns, 'servers'),
        searches: list(rtDns, 'searches'),
        options: list(rtDns, 'options'),
      },
    },
    additionalRoutes: routes(c, 'additionalRoutes'),
    additionalArgs: Array.isArray(c['AdditionalArgs'])
      ? (c['AdditionalArgs'] as unknown[]).map((kv) => {
          const k = (kv ?? {}) as Obj;
          return { name: str(k, 'name'), value: k['value'] as Json | undefined };
        })
      : undefined,
  };
}

// ─────────────────────────────────────── type mapping ────────────────────────────────────────

/** `cni.CniPluginNameToHcnTypeMap`: binary name → HCN network type. */
export const CNI_PLUGIN_NAME_TO_HCN_TYPE: Readonly<Record<string, string>> = {
  nat: 'NAT',
  sdnbridge: 'L2Bridge',
  sdnoverlay: 'Overlay',
};

/**
 * `MapCniTypeToHcnType`: a binary name or an HCN type, compared case-sensitively (so
 * `example/l2bridge.conf`'s `l2bridge` fails). Error: `Unsupported CNI config 'type' "x". Options
 * are the keys/values from: map[nat:NAT sdnbridge:L2Bridge sdnoverlay:Overlay]`.
 */
export function mapCniTypeToHcnType(typeArg: string): string {
  for (const [binary, netType] of Object.entries(CNI_PLUGIN_NAME_TO_HCN_TYPE)) {
    if (typeArg === binary || typeArg === netType) return netType;
  }
  const map = Object.keys(CNI_PLUGIN_NAME_TO_HCN_TYPE)
    .sort()
    .map((k) => `${k}:${CNI_PLUGIN_NAME_TO_HCN_TYPE[k]}`)
    .join(' ');
  throw new Error(
    `Unsupported CNI config 'type' ${goStrconvQuote(typeArg)}. Options are the keys/values from: map[${map}]`,
  );
}

/** `ParseNetworkConfig`: decode, then map `type`; any failure is a plain Go error (code 999). */
export function parseNetworkConfig(stdin: string | Uint8Array): NetworkConfig {
  const config = decodeNetworkConfig(stdin);
  config.type = mapCniTypeToHcnType(config.type);
  return config;
}

// ──────────────────────────────────────── Serialize ──────────────────────────────────────────

/** A `json.RawMessage` value kept in its key order (Go compacts it; objects are not maps). */
function rawValue(v: Json): GoValue {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(rawValue);
  return new GoOrdered(Object.entries(v).map(([k, x]) => [k, rawValue(x)] as const));
}

function routeValue(r: Route): GoValue {
  const e: [string, GoValue][] = [['dst', goNetString(r.dst)]];
  if (r.gw) e.push(['gw', goIPString(r.gw)]);
  return new GoOrdered(e);
}

function omitEmpty(e: [string, GoValue][], key: string, value: string | readonly string[] | undefined): void {
  if (value === undefined || value.length === 0) return;
  e.push([key, typeof value === 'string' ? value : [...value]]);
}

/**
 * `NetworkConfig.Serialize()`: `json.Marshal(config)` in struct order. Unknown keys are gone
 * (host-local's `ranges`, `rangeStart`, `dataDir`, …; `capabilities`, `master`), `type` is the
 * mapped HCN type, routes print `"dst":"<nil>"` when they had none, and `additionalRoutes` /
 * `AdditionalArgs` are `null` when absent.
 */
export function serializeNetworkConfig(c: NetworkConfig): string {
  const ipam: [string, GoValue][] = [['type', c.ipam.type]];
  omitEmpty(ipam, 'environment', c.ipam.environment);
  omitEmpty(ipam, 'addressSpace', c.ipam.addressSpace);
  omitEmpty(ipam, 'subnet', c.ipam.subnet);
  omitEmpty(ipam, 'ipAddress', c.ipam.ipAddress);
  omitEmpty(ipam, 'queryInterval', c.ipam.queryInterval);
  if (c.ipam.routes?.length) ipam.push(['routes', c.ipam.routes.map(routeValue)]);

  const dns: [string, GoValue][] = [];
  omitEmpty(dns, 'nameservers', c.dns.nameservers);
  omitEmpty(dns, 'domain', c.dns.domain);
  omitEmpty(dns, 'search', c.dns.search);
  omitEmpty(dns, 'options', c.dns.options);

  const f = c.optionalFlags;
  const flags: [string, GoValue][] = [
    ['localRoutedPortMapping', f.localRoutedPortMapping],
    ['allowAclPortMapping', f.allowAclPortMapping],
    ['forceBridgeGateway', f.forceBridgeGateway],
    ['enableDualStack', f.enableDualStack],
    ['loopbackDSR', f.loopbackDSR],
    ['gatewayFromAdditionalRoutes', f.gatewayFromAdditionalRoutes],
  ];

  const rt: [string, GoValue][] = [];
  if (c.runtimeConfig.portMappings?.length) {
    rt.push([
      'portMappings',
      c.runtimeConfig.portMappings.map((m) => {
        const e: [string, GoValue][] = [
          ['hostPort', m.hostPort],
          ['containerPort', m.containerPort],
          ['protocol', m.protocol],
        ];
        if (m.hostIP !== '') e.push(['hostIP', m.hostIP]);
        return new GoOrdered(e);
      }),
    ]);
  }
  const rtDns: [string, GoValue][] = [];
  omitEmpty(rtDns, 'servers', c.runtimeConfig.dns.servers);
  omitEmpty(rtDns, 'searches', c.runtimeConfig.dns.searches);
  omitEmpty(rtDns, 'options', c.runtimeConfig.dns.options);
  rt.push(['dns', new GoOrdered(rtDns)]);

  return goMarshal(
    new GoOrdered([
      ['cniVersion', c.cniVersion],
      ['name', c.name],
      ['type', c.type],
      ['ipam', new GoOrdered(ipam)],
      ['dns', new GoOrdered(dns)],
      ['optionalFlags', new GoOrdered(flags)],
      ['runtimeConfig', new GoOrdered(rt)],
      ['additionalRoutes', c.additionalRoutes ? c.additionalRoutes.map(routeValue) : null],
      [
        'AdditionalArgs',
        c.additionalArgs
          ? c.additionalArgs.map(
              (kv) =>
                new GoOrdered([
                  ['name', kv.name],
                  ['value', kv.value === undefined ? null : rawValue(kv.value)],
                ]),
            )
          : null,
      ],
    ]),
  );
}

// ───────────────────────────────────────── CNI_ARGS ──────────────────────────────────────────

/** The fields of `cni.K8SPodEnvArgs` `types.LoadArgs` can set (`CommonArgs` is the embedded struct). */
const K8S_ARG_FIELDS = new Set([
  'IgnoreUnknown',
  'K8S_POD_NAMESPACE',
  'K8S_POD_NAME',
  'K8S_POD_INFRA_CONTAINER_ID',
]);

/**
 * `ParseCniArgs` (`types.LoadArgs` into `K8SPodEnvArgs`) reduced to what WCN uses: the pod
 * namespace, or '' when loading fails — an unknown key without `IgnoreUnknown=1` (K8S_POD_UID from
 * containerd, say), a pair without exactly one `=`, or a bad IgnoreUnknown value.
 */
export function podNamespaceFromArgs(args: string): string {
  if (args === '') return '';
  let namespace = '';
  let ignoreUnknown = false;
  let unknown = false;
  for (const pair of args.split(';')) {
    const kv = pair.split('=');
    if (kv.length !== 2) return '';
    const [key, value] = kv as [string, string];
    if (key === 'CommonArgs') return ''; // a struct: no TextUnmarshaler
    if (!K8S_ARG_FIELDS.has(key)) {
      unknown = true;
      continue;
    }
    if (key === 'IgnoreUnknown') {
      const s = value.toLowerCase();
      if (s === '1' || s === 'true') ignoreUnknown = true;
      else if (s === '0' || s === 'false') ignoreUnknown = false;
      else return '';
    } else if (key === 'K8S_POD_NAMESPACE') {
      namespace = value;
    }
  }
  if (unknown && !ignoreUnknown) return '';
  return namespace;
}
