/**
 * Azure CNI's network configuration (Azure/azure-container-networking v1.8.12 `cni/netconfig.go`;
 * reference azure-cni.md §4.1): `cni.NetworkConfig` as `json.Unmarshal` fills it (keys matched
 * case-insensitively, so AKS's `Nameservers`/`Search` decode), the `CNI_ARGS` pod fields
 * (`cni.K8SPodEnvArgs` through `types.LoadArgs`), the `AdditionalArgs` entries that become policies,
 * and `Serialize()` — `json.Marshal` of the struct, which is what azure-vnet hands its IPAM plugin
 * (every field in declaration order, `omitempty` ones dropped when zero, the struct-typed `ipam`,
 * `dns`, `runtimeConfig` and `windowsSettings` always written).
 */
import {
  field,
  goBool,
  goInt,
  goMarshal,
  GoOrdered,
  GoRaw,
  goRaw,
  goSlice,
  goString,
  goStruct,
  goUnmarshal,
  goDecodeShared,
  goParseShared,
  type GoValue,
} from '../../cni/gojson.js';
import { TYPES_DNS } from '../../cni/gotypes.js';
import { loadArgs } from '../../cni/loadargs.js';
import type { DnsInfo } from './state.js';

/** `cni.IPAM`. */
export const ACN_IPAM = goStruct('cni.IPAM', [
  field('mode', goString),
  field('type', goString),
  field('environment', goString),
  field('addressSpace', goString),
  field('subnet', goString),
  field('ipAddress', goString),
  field('queryInterval', goString),
]);

const PORT_MAPPING = goStruct('cni.PortMapping', [
  field('hostPort', goInt),
  field('containerPort', goInt),
  field('protocol', goString),
  field('hostIP', goString),
]);
const RUNTIME_DNS = goStruct('cni.RuntimeDNSConfig', [
  field('servers', goSlice(goString)),
  field('searches', goSlice(goString)),
  field('options', goSlice(goString)),
]);
const RUNTIME_CONFIG = goStruct('cni.RuntimeConfig', [
  field('portMappings', goSlice(PORT_MAPPING)),
  field('dns', RUNTIME_DNS),
]);
const WINDOWS_SETTINGS = goStruct('cni.WindowsSettings', [
  field('enableLoopbackDSR', goBool),
  field('hnsTimeoutDurationInSeconds', goInt),
]);
const KV_PAIR = goStruct('cni.KVPair', [field('name', goString), field('value', goRaw)]);

/** `cni.NetworkConfig`, fields in declaration order. */
export const ACN_NETWORK_CONFIG = goStruct('cni.NetworkConfig', [
  field('cniVersion', goString),
  field('name', goString),
  field('type', goString),
  field('mode', goString),
  field('master', goString),
  field('adapterName', goString),
  field('bridge', goString),
  field('logLevel', goString),
  field('logTarget', goString),
  field('infraVnetAddressSpace', goString),
  field('ipv6Mode', goString),
  field('serviceCidrs', goString),
  field('vnetCidrs', goString),
  field('podNamespaceForDualNetwork', goSlice(goString)),
  field('ipsToRouteViaHost', goSlice(goString)),
  field('multiTenancy', goBool),
  field('enableSnatOnHost', goBool),
  field('enableExactMatchForPodName', goBool),
  field('disableHairpinOnHostInterface', goBool),
  field('disableIPTableLock', goBool),
  field('disableAsyncDelete', goBool),
  field('cnsurl', goString),
  field('executionMode', goString),
  field('ipam', ACN_IPAM),
  field('dns', TYPES_DNS),
  field('runtimeConfig', RUNTIME_CONFIG),
  field('windowsSettings', WINDOWS_SETTINGS),
  field('AdditionalArgs', goSlice(KV_PAIR)),
  field('env', goString),
]);

/** The string-typed fields of `cni.NetworkConfig`, in declaration order (before `ipam`). */
const STRING_FIELDS = [
  'cniVersion',
  'name',
  'type',
  'mode',
  'master',
  'adapterName',
  'bridge',
  'logLevel',
  'logTarget',
  'infraVnetAddressSpace',
  'ipv6Mode',
  'serviceCidrs',
  'vnetCidrs',
] as const;
const BOOL_FIELDS = [
  'multiTenancy',
  'enableSnatOnHost',
  'enableExactMatchForPodName',
  'disableHairpinOnHostInterface',
  'disableIPTableLock',
  'disableAsyncDelete',
] as const;

export interface AcnIpam {
  mode: string;
  type: string;
  environment: string;
  addressSpace: string;
  subnet: string;
  ipAddress: string;
  queryInterval: string;
}

export interface AcnPortMapping {
  hostPort: number;
  containerPort: number;
  protocol: string;
  hostIP: string;
}

export interface AcnKVPair {
  name: string;
  /** The value's JSON text (`json.RawMessage`: '' — a nil one — when the key was absent). */
  value: string;
}

/** `cni.NetworkConfig` with Go's zero values filled in. */
export interface AcnNetworkConfig {
  cniVersion: string;
  name: string;
  type: string;
  mode: string;
  master: string;
  adapterName: string;
  bridge: string;
  logLevel: string;
  logTarget: string;
  infraVnetAddressSpace: string;
  ipv6Mode: string;
  serviceCidrs: string;
  vnetCidrs: string;
  podNamespaceForDualNetwork: string[] | null;
  ipsToRouteViaHost: string[] | null;
  multiTenancy: boolean;
  enableSnatOnHost: boolean;
  enableExactMatchForPodName: boolean;
  disableHairpinOnHostInterface: boolean;
  disableIPTableLock: boolean;
  disableAsyncDelete: boolean;
  cnsurl: string;
  executionMode: string;
  ipam: AcnIpam;
  dns: { nameservers: string[] | null; domain: string; search: string[] | null; options: string[] | null };
  runtimeConfig: {
    portMappings: AcnPortMapping[] | null;
    dns: { servers: string[] | null; searches: string[] | null; options: string[] | null };
  };
  windowsSettings: { enableLoopbackDSR: boolean; hnsTimeoutDurationInSeconds: number };
  AdditionalArgs: AcnKVPair[] | null;
  env: string;
}

/** ACN `cni/cni.go` `defaultVersion`: a configuration without `cniVersion` is 0.2.0. */
export const DEFAULT_CNI_VERSION = '0.2.0';

type Decoded = Record<string, unknown> | undefined;
const str = (o: Decoded, k: string): string => (o?.[k] as string | undefined) ?? '';
/** A decoded `[]string` (copied: the decoded document is shared). */
const strs = (o: Decoded, k: string): string[] | null => {
  const v = o?.[k] as string[] | null | undefined;
  return v ? [...v] : null;
};
const obj = (o: Decoded, k: string): Decoded => (o?.[k] as Decoded) ?? undefined;

/**
 * `json.Unmarshal` into `cni.NetworkConfig`: the decoded struct, shared and only read (for stdin
 * bytes, remembered per document as skel's own decoding is: a runtime sends the same bytes pod
 * after pod).
 */
export function decodeNetworkConfig(stdin: string | Uint8Array): Record<string, unknown> {
  const d =
    typeof stdin === 'string'
      ? goUnmarshal(stdin, ACN_NETWORK_CONFIG)
      : goDecodeShared(goParseShared(stdin), ACN_NETWORK_CONFIG);
  return (d ?? {}) as Record<string, unknown>;
}

/** `cni.ParseNetworkConfig`: Go's decode error as it is; an empty `cniVersion` becomes 0.2.0. */
export function parseNetworkConfig(stdin: string | Uint8Array): AcnNetworkConfig {
  const d = decodeNetworkConfig(stdin);
  const ipam = obj(d, 'ipam');
  const dns = obj(d, 'dns');
  const rc = obj(d, 'runtimeConfig');
  const rcDns = obj(rc, 'dns');
  const ws = obj(d, 'windowsSettings');
  const out = {} as Record<string, unknown>;
  for (const k of STRING_FIELDS) out[k] = str(d, k);
  for (const k of BOOL_FIELDS) out[k] = (d[k] as boolean | undefined) ?? false;
  const conf = out as unknown as AcnNetworkConfig;
  if (conf.cniVersion === '') conf.cniVersion = DEFAULT_CNI_VERSION;
  conf.podNamespaceForDualNetwork = strs(d, 'podNamespaceForDualNetwork');
  conf.ipsToRouteViaHost = strs(d, 'ipsToRouteViaHost');
  conf.cnsurl = str(d, 'cnsurl');
  conf.executionMode = str(d, 'executionMode');
  conf.ipam = {
    mode: str(ipam, 'mode'),
    type: str(ipam, 'type'),
    environment: str(ipam, 'environment'),
    addressSpace: str(ipam, 'addressSpace'),
    subnet: str(ipam, 'subnet'),
    ipAddress: str(ipam, 'ipAddress'),
    queryInterval: str(ipam, 'queryInterval'),
  };
  conf.dns = {
    nameservers: strs(dns, 'nameservers'),
    domain: str(dns, 'domain'),
    search: strs(dns, 'search'),
    options: strs(dns, 'options'),
  };
  const pms = (rc?.['portMappings'] as Decoded[] | null | undefined) ?? null;
  conf.runtimeConfig = {
    portMappings:
      pms === null
        ? null
        : pms.map((p) => ({
            hostPort: (p?.['hostPort'] as number | undefined) ?? 0,
            containerPort: (p?.['containerPort'] as number | undefined) ?? 0,
            protocol: str(p, 'protocol'),
            hostIP: str(p, 'hostIP'),
          })),
    dns: {
      servers: strs(rcDns, 'servers'),
      searches: strs(rcDns, 'searches'),
      options: strs(rcDns, 'options'),
    },
  };
  conf.windowsSettings = {
    enableLoopbackDSR: (ws?.['enableLoopbackDSR'] as boolean | undefined) ?? false,
    hnsTimeoutDurationInSeconds: (ws?.['hnsTimeoutDurationInSeconds'] as number | undefined) ?? 0,
  };
  const kv = (d['AdditionalArgs'] as Decoded[] | null | undefined) ?? null;
  conf.AdditionalArgs =
    kv === null ? null : kv.map((p) => ({ name: str(p, 'name'), value: str(p, 'value') }));
  conf.env = str(d, 'env');
  return conf;
}

/** Go's `omitempty` on a slice: nil and empty both dropped. */
const someStrs = (v: readonly string[] | null): v is string[] => v !== null && v.length > 0;

/** `(*NetworkConfig).Serialize()`: `json.Marshal` of the struct. */
export function serializeNetworkConfig(c: AcnNetworkConfig): string {
  const e: [string, GoValue][] = [];
  for (const k of STRING_FIELDS) if (c[k] !== '') e.push([k, c[k]]);
  if (someStrs(c.podNamespaceForDualNetwork))
    e.push(['podNamespaceForDualNetwork', c.podNamespaceForDualNetwork]);
  if (someStrs(c.ipsToRouteViaHost)) e.push(['ipsToRouteViaHost', c.ipsToRouteViaHost]);
  for (const k of BOOL_FIELDS) if (c[k]) e.push([k, true]);
  if (c.cnsurl !== '') e.push(['cnsurl', c.cnsurl]);
  if (c.executionMode !== '') e.push(['executionMode', c.executionMode]);
  const i = c.ipam;
  const ipam: [string, GoValue][] = [];
  if (i.mode !== '') ipam.push(['mode', i.mode]);
  ipam.push(['type', i.type]);
  if (i.environment !== '') ipam.push(['environment', i.environment]);
  if (i.addressSpace !== '') ipam.push(['addressSpace', i.addressSpace]);
  if (i.subnet !== '') ipam.push(['subnet', i.subnet]);
  if (i.ipAddress !== '') ipam.push(['ipAddress', i.ipAddress]);
  if (i.queryInterval !== '') ipam.push(['queryInterval', i.queryInterval]);
  e.push(['ipam', new GoOrdered(ipam)]);
  const dns: [string, GoValue][] = [];
  if (someStrs(c.dns.nameservers)) dns.push(['nameservers', c.dns.nameservers]);
  if (c.dns.domain !== '') dns.push(['domain', c.dns.domain]);
  if (someStrs(c.dns.search)) dns.push(['search', c.dns.search]);
  if (someStrs(c.dns.options)) dns.push(['options', c.dns.options]);
  e.push(['dns', new GoOrdered(dns)]);
  const rc: [string, GoValue][] = [];
  const pm = c.runtimeConfig.portMappings;
  if (pm !== null && pm.length > 0) {
    rc.push([
      'portMappings',
      pm.map(
        (p) =>
          new GoOrdered([
            ['hostPort', p.hostPort],
            ['containerPort', p.containerPort],
            ['protocol', p.protocol],
            ...(p.hostIP !== '' ? [['hostIP', p.hostIP] as [string, GoValue]] : []),
          ]),
      ),
    ]);
  }
  const rd = c.runtimeConfig.dns;
  const rdns: [string, GoValue][] = [];
  if (someStrs(rd.servers)) rdns.push(['servers', rd.servers]);
  if (someStrs(rd.searches)) rdns.push(['searches', rd.searches]);
  if (someStrs(rd.options)) rdns.push(['options', rd.options]);
  rc.push(['dns', new GoOrdered(rdns)]);
  e.push(['runtimeConfig', new GoOrdered(rc)]);
  const ws: [string, GoValue][] = [];
  if (c.windowsSettings.enableLoopbackDSR) ws.push(['enableLoopbackDSR', true]);
  if (c.windowsSettings.hnsTimeoutDurationInSeconds !== 0)
    ws.push(['hnsTimeoutDurationInSeconds', c.windowsSettings.hnsTimeoutDurationInSeconds]);
  e.push(['windowsSettings', new GoOrdered(ws)]);
  const kv = c.AdditionalArgs;
  if (kv !== null && kv.length > 0) {
    e.push([
      'AdditionalArgs',
      kv.map(
        (p) =>
          new GoOrdered([
            ['name', p.name],
            // a nil RawMessage marshals as null
            ['value', new GoRaw(p.value === '' ? 'null' : p.value)],
          ]),
      ),
    ]);
  }
  if (c.env !== '') e.push(['env', c.env]);
  return goMarshal(new GoOrdered(e));
}

/** A copy to change (the IPAM fields azure-vnet sets before delegating). */
export function copyNetworkConfig(c: AcnNetworkConfig): AcnNetworkConfig {
  return { ...c, ipam: { ...c.ipam } };
}

/** `cni.K8SPodEnvArgs` after `types.LoadArgs`. */
export interface K8sPodArgs {
  readonly podNamespace: string;
  readonly podName: string;
  readonly infraContainerId: string;
}

/**
 * `cni.ParseCniArgs`: `types.LoadArgs(args, &K8SPodEnvArgs{})` — `K=V` pairs split on `;`, keys
 * matched to the Go field names exactly (`IgnoreUnknown`, the three `K8S_POD_*` strings;
 * `CommonArgs` names a struct field that cannot take text), unknown keys an error unless
 * `IgnoreUnknown` is true.
 */
export function parseCniArgs(args: string): K8sPodArgs {
  const out = { podNamespace: '', podName: '', infraContainerId: '' };
  loadArgs(args, {
    K8S_POD_NAMESPACE: (v) => (out.podNamespace = v),
    K8S_POD_NAME: (v) => (out.podName = v),
    K8S_POD_INFRA_CONTAINER_ID: (v) => (out.infraContainerId = v),
  });
  return out;
}

/** `cni.PolicyStr`: an `AdditionalArgs` entry whose name contains it is a policy. */
export const POLICY_STR = 'Policy';

/** A `policy.Policy`: the entry's name as its type, its value's JSON text as its data. */
export interface CniPolicy {
  readonly type: string;
  readonly data: string;
}

/** `cni.GetPoliciesFromNwCfg`: the entries whose name contains `Policy` (case-sensitive). */
export function policiesFromConfig(kv: readonly AcnKVPair[] | null): CniPolicy[] {
  const out: CniPolicy[] = [];
  for (const p of kv ?? []) if (p.name.includes(POLICY_STR)) out.push({ type: p.name, data: p.value });
  return out;
}

/** `%+v` of a `cniTypes.DNS`. */
function dnsPlusV(c: AcnNetworkConfig): string {
  const list = (v: readonly string[] | null): string => `[${(v ?? []).join(' ')}]`;
  return `{Nameservers:${list(c.dns.nameservers)} Domain:${c.dns.domain} Search:${list(c.dns.search)} Options:${list(c.dns.options)}}`;
}

/**
 * `getEndpointDNSSettings` (reference azure-cni.md §4.3): the runtime's DNS when it has servers or
 * searches (suffix = the searches joined with `,`); else, with exactly one of `dns.Search` and
 * `dns.Nameservers` empty, `Wrong DNS configuration: {…}`; else with a search list the conflist's
 * servers and `<pod namespace>.<searches joined with ,>`; else the IPAM's DNS. Options come from the
 * conflist (or the runtime, in the first case).
 */
export function endpointDnsSettings(c: AcnNetworkConfig, ipamDns: DnsInfo, namespace: string): DnsInfo {
  const rt = c.runtimeConfig.dns;
  const custom: DnsInfo = {
    Suffix: (rt.searches ?? []).length > 0 ? rt.searches!.join(',') : '',
    Servers: rt.servers,
    Options: rt.options,
  };
  if ((custom.Servers ?? []).length > 0 || custom.Suffix !== '') return custom;
  const noSearch = (c.dns.search ?? []).length === 0;
  const noServers = (c.dns.nameservers ?? []).length === 0;
  if (noSearch !== noServers) throw new Error(`Wrong DNS configuration: ${dnsPlusV(c)}`);
  if (!noSearch) {
    return {
      Servers: c.dns.nameservers,
      Suffix: `${namespace}.${c.dns.search!.join(',')}`,
      Options: c.dns.options,
    };
  }
  return { ...ipamDns, Options: c.dns.options };
}
