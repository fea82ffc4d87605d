/**
 * containernetworking/plugins `pkg/hns/netconf_windows.go` (v1.9.1, reference cni-windows.md
 * §2.2-§2.3): the NetConf both Windows plugins decode (Go's case-insensitive field matching), the
 * policy helpers with their exact templates and their case-sensitive de-duplication, the protocol
 * enum of port mappings and the DNS merge with runtimeConfig.
 */
import {
  embedded,
  field,
  goBool,
  goDecodeNode,
  goInt,
  goRaw,
  goSlice,
  goString,
  goStruct,
  goUnmarshalText,
  jpBytes,
  jpGet,
  jpGetString,
  jpParse,
  nodeToJson,
  parseGoJson,
  type GoField,
  type GoJsonNode,
  type GoStruct,
} from '../../cni/gojson.js';
import { PLUGIN_CONF_FIELDS } from '../../cni/gotypes.js';
import type { Json } from '../../core/json.js';
import { parseUintBase0 } from '../../cni/gostrconv.js';

// ───────────────────────────── types ─────────────────────────────

/** `hns.Policy`: `value` is the raw JSON text (`json.RawMessage`), undefined when absent (nil). */
export interface HnsPolicy {
  name: string;
  value: string | undefined;
}

/** `hns.PortMapEntry`. */
export interface PortMapEntry {
  hostPort: number;
  containerPort: number;
  protocol: string;
  hostIP: string;
}

/** `types.DNS` (nil slices are undefined). */
export interface GoDns {
  nameservers: string[] | undefined;
  domain: string;
  search: string[] | undefined;
  options: string[] | undefined;
}

/** `hns.RuntimeConfig`: `runtimeConfig.dns {servers, searches}` and `runtimeConfig.portMappings`. */
export interface RuntimeConfig {
  dns: { nameservers: string[] | undefined; search: string[] | undefined };
  portMaps: PortMapEntry[] | undefined;
}

/** `hns.NetConf` (embedding `types.NetConf`), mutable as in Go: the Apply* helpers append policies. */
export interface HnsNetConf {
  cniVersion: string;
  name: string;
  type: string;
  capabilities: Record<string, boolean> | undefined;
  ipam: { type: string };
  dns: GoDns;
  apiVersion: number;
  policies: HnsPolicy[] | undefined;
  runtimeConfig: RuntimeConfig;
  loopbackDSR: boolean;
}

// ───────────────────────────── decoding ─────────────────────────────

const POLICY_TYPE = goStruct('hns.Policy', [field('name', goString), field('value', goRaw)]);

const PORT_MAP_ENTRY = goStruct('hns.PortMapEntry', [
  field('hostPort', goInt),
  field('containerPort', goInt),
  field('protocol', goString),
  field('hostIP', goString),
]);

const RUNTIME_CONFIG = goStruct('hns.RuntimeConfig', [
  field(
    'dns',
    goStruct('hns.RuntimeDNS', [
      field('servers', goSlice(goString), 'nameservers'),
      field('searches', goSlice(goString), 'search'),
    ]),
  ),
  field('portMappings', goSlice(PORT_MAP_ENTRY), 'portMaps'),
]);

/** `hns.NetConf`'s own fields (after the embedded `types.NetConf`). */
const HNS_NETCONF_FIELDS: readonly GoField[] = [
  field('apiVersion', goInt),
  field('policies', goSlice(POLICY_TYPE)),
  field('runtimeConfig', RUNTIME_CONFIG),
  field('loopbackDSR', goBool),
];

/** A plugin's extra field (`ipMasqNetwork`, `ipMasq`, `endpointMacPrefix`). */
export type PluginField = GoField;

/**
 * The Go struct of a plugin's `NetConf { hns.NetConf; <extra> }`: the promoted fields carry the
 * names of the structs they are embedded in (`NetConf.NetConf.apiVersion` in Go 1.24+ errors).
 */
export function pluginNetConfType(extra: readonly PluginField[]): GoStruct {
  let t = netConfTypes.get(extra);
  if (t === undefined) {
    t = buildNetConfType(extra);
    netConfTypes.set(extra, t);
  }
  return t;
}

/** One struct type per plugin's extra fields (built once: the decoder caches its field lookups). */
const netConfTypes = new WeakMap<readonly PluginField[], GoStruct>();

function buildNetConfType(extra: readonly PluginField[]): GoStruct {
  // main.NetConf { hns.NetConf { types.NetConf; … }; … } (types.NetConf is types.PluginConf)
  return goStruct('main.NetConf', [
    ...embedded(['NetConf', 'NetConf'], PLUGIN_CONF_FIELDS),
    ...embedded(['NetConf'], HNS_NETCONF_FIELDS),
    ...extra,
  ]);
}

/**
 * `loadNetConf` of win-bridge/win-overlay: `json.Unmarshal(stdin, &NetConf{})`, failing with
 * `failed to load netconf: <Go's error>`.
 */
export function loadNetConf<T extends HnsNetConf>(stdin: string, extra: readonly PluginField[]): T {
  try {
    return goUnmarshalText(stdin, pluginNetConfType(extra)) as unknown as T;
  } catch (e) {
    throw new Error(`failed to load netconf: ${(e as Error).message}`);
  }
}

/** An empty `hns.NetConf{}` (`apiVersion` as given), as the upstream unit tests build one. */
export function emptyNetConf(apiVersion = 0): HnsNetConf {
  return {
    cniVersion: '',
    name: '',
    type: '',
    capabilities: undefined,
    ipam: { type: '' },
    dns: { nameservers: undefined, domain: '', search: undefined, options: undefined },
    apiVersion,
    policies: undefined,
    runtimeConfig: { dns: { nameservers: undefined, search: undefined }, portMaps: undefined },
    loopbackDSR: false,
  };
}

// ───────────────────────────── protocol, DNS, policy lists ─────────────────────────────

/** Windows socket protocol numbers by name (`protocolEnums`). */
const PROTOCOL_ENUMS: ReadonlyMap<string, number> = new Map([
  ['icmpv4', 1],
  ['igmp', 2],
  ['tcp', 6],
  ['udp', 17],
  ['icmpv6', 58],
]);

/**
 * Go's `strconv.ParseUint(s, 0, 10)`: base from the prefix, `_` separators, a value of at most 1023;
 * undefined where Go returns an error.
 */
export function parseUint10(s: string): number | undefined {
  return parseUintBase0(s, 10);
}

/**
 * `PortMapEntry.GetProtocolEnum`: a number below 1024 in Go literal syntax, else a protocol name
 * (case-insensitive); else `invalid protocol supplied to port mapping policy`.
 */
export function getProtocolEnum(p: Pick<PortMapEntry, 'protocol'>): number {
  const u = parseUint10(p.protocol);
  if (u !== undefined) return u;
  const pe = PROTOCOL_ENUMS.get(p.protocol.toLowerCase());
  if (pe === undefined) throw new Error('invalid protocol supplied to port mapping policy');
  return pe;
}

/** `GetDNS`: the config's DNS, each of nameservers/search replaced by a non-empty runtimeConfig list. */
export function getDNS(n: HnsNetConf): GoDns {
  const dns = { ...n.dns };
  if ((n.runtimeConfig.dns.nameservers?.length ?? 0) > 0) dns.nameservers = n.runtimeConfig.dns.nameservers;
  if ((n.runtimeConfig.dns.search?.length ?? 0) > 0) dns.search = n.runtimeConfig.dns.search;
  return dns;
}

function isEndpointPolicy(p: HnsPolicy): boolean {
  return goEqualFold(p.name, 'EndpointPolicy');
}

/** Go's `strings.EqualFold` for an ASCII target (Unicode simple folding: `ſ` ~ `s`, `K` ~ `k`). */
function goEqualFold(s: string, target: string): boolean {
  if (s === target) return true;
  const a = [...s];
  if (a.length !== target.length) return false;
  return a.every((ch, i) => {
    const t = target[i]!.toLowerCase();
    const c = ch === 'ſ' ? 's' : ch === '\u212a' ? 'k' : ch.toLowerCase();
    return c === t;
  });
}

/** A Go `json.RawMessage`: the exact JSON text, undefined for nil. */
export type RawMessage = string | undefined;

/**
 * `GetHNSEndpointPolicies`: the raw values of the `EndpointPolicy` entries (name compared
 * case-insensitively), as they go into an HNS v1 endpoint.
 */
export function getHNSEndpointPolicies(n: HnsNetConf): RawMessage[] {
  return (n.policies ?? []).filter(isEndpointPolicy).map((p) => p.value);
}

/**
 * `json.Marshal` of a `[]json.RawMessage`: each value compacted (nil → `null`); a value that is not
 * JSON (a template filled with a quote) fails as Go's encoder does.
 */
export function marshalRawMessages(raws: readonly RawMessage[]): Json[] {
  return raws.map((raw) => {
    if (raw === undefined) return null;
    let node: GoJsonNode;
    try {
      node = parseGoJson(raw);
    } catch (e) {
      throw new Error(`json: error calling MarshalJSON for type json.RawMessage: ${(e as Error).message}`);
    }
    return nodeToJson(node);
  });
}

const HCN_ENDPOINT_POLICY = goStruct('hcn.EndpointPolicy', [
  field('Type', goString),
  field('Settings', goRaw),
]);

/** An `hcn.EndpointPolicy` as decoded from a config value. */
export interface HcnEndpointPolicy {
  Type: string;
  Settings?: Json;
}

/**
 * `GetHostComputeEndpointPolicies`: the `EndpointPolicy` values decoded into `{Type, Settings}`
 * (keys matched case-insensitively; a value that does not decode is skipped; `null` decodes to an
 * empty policy).
 */
export function getHostComputeEndpointPolicies(n: HnsNetConf): HcnEndpointPolicy[] {
  const out: HcnEndpointPolicy[] = [];
  for (const p of n.policies ?? []) {
    if (!isEndpointPolicy(p)) continue;
    const node = jpParse(p.value);
    if (!node) continue; // json.Unmarshal(nil) fails too
    let decoded: Record<string, unknown>;
    try {
      decoded = goDecodeNode(node, HCN_ENDPOINT_POLICY);
    } catch {
      continue;
    }
    const policy: HcnEndpointPolicy = { Type: decoded['Type'] as string };
    const settings = decoded['Settings'] as string | undefined;
    if (settings !== undefined) {
      const s = jpParse(settings);
      if (s) policy.Settings = nodeToJson(s);
    }
    out.push(policy);
  }
  return out;
}

// ───────────────────────────── Apply* helpers ─────────────────────────────

/** Go's `%s` of a string into a template: the text as is (no JSON escaping, as `bprintf` does). */
function append(n: HnsNetConf, value: string): void {
  (n.policies ??= []).push({ name: 'EndpointPolicy', value });
}

/**
 * Whether an `EndpointPolicy` whose Type is one of `types` (exact, case-sensitive) holds at `path` a
 * value `matches` accepts; values are read as jsonparser reads them (string contents undecoded).
 */
function endpointPolicyHas(
  n: HnsNetConf,
  types: readonly string[],
  path: readonly string[],
  matches: (value: GoJsonNode) => boolean,
): boolean {
  for (const p of n.policies ?? []) {
    if (!isEndpointPolicy(p)) continue;
    const node = jpParse(p.value);
    if (!types.includes(jpGetString(node, 'Type'))) continue;
    const value = jpGet(node, ...path);
    if (value !== undefined && matches(value)) return true;
  }
  return false;
}

/**
 * Whether an OutBoundNAT policy lists `wanted` in the array at `path` (v1 `ExceptionList`/`Destinations`,
 * v2 `Settings.Exceptions`/`Settings.Destinations`), compared byte for byte with the undecoded
 * string contents, as jsonparser does.
 */
function outboundNatLists(n: HnsNetConf, path: readonly string[], wanted: string): boolean {
  return endpointPolicyHas(
    n,
    ['OutBoundNAT'],
    path,
    (list) =>
      list.kind === 'array' &&
      list.items.some((v) => v.kind === 'string' && jpBytes(v) !== '' && jpBytes(v) === wanted),
  );
}

/**
 * `ApplyLoopbackDSRPolicy(&ip)`: append `{"Type": "OutBoundNAT", "Destinations": ["<ip>"]}` (v2:
 * under `Settings`) unless an OutBoundNAT already lists that address. `dsrSupported` is
 * `hcn.DSRSupported() == nil`; `ipText` is Go's `ip.String()` (`"<nil>"` for a nil IP).
 */
export function applyLoopbackDSRPolicy(n: HnsNetConf, ipText: string, dsrSupported: boolean): void {
  if (!dsrSupported) return;
  appendOutboundNatUnlessListed(n, ipText, 'Destinations', 'Destinations');
}

/**
 * An OutBoundNAT policy listing `value` under `v1Field` (v2: `Settings.<v2Field>`), appended unless
 * an OutBoundNAT already lists that exact string there.
 */
function appendOutboundNatUnlessListed(n: HnsNetConf, value: string, v1Field: string, v2Field: string): void {
  const path = n.apiVersion === 2 ? ['Settings', v2Field] : [v1Field];
  if (outboundNatLists(n, path, value)) return;
  append(
    n,
    n.apiVersion === 2
      ? `{"Type": "OutBoundNAT", "Settings": {"${v2Field}": ["${value}"]}}`
      : `{"Type": "OutBoundNAT", "${v1Field}": ["${value}"]}`,
  );
}

/**
 * `ApplyOutboundNatPolicy(cidr)`: append `{"Type": "OutBoundNAT", "ExceptionList": ["<cidr>"]}`
 * (v2: `Settings.Exceptions`) unless the CIDR is empty or an OutBoundNAT already lists that exact
 * string. Since v1.0.0 this appends a second OutBoundNAT rather than merging (pitfall P9).
 */
export function applyOutboundNatPolicy(n: HnsNetConf, exceptionCIDR: string): void {
  if (exceptionCIDR === '') return;
  appendOutboundNatUnlessListed(n, exceptionCIDR, 'ExceptionList', 'Exceptions');
}

/**
 * `ApplyDefaultPAPolicy(address)`: append `{"Type": "PA", "PA": "<addr>"}` (v2: `ProviderAddress`
 * with `Settings.ProviderAddress`) unless the address is empty or a policy of Type `PA` or
 * `ProviderAddress` already holds exactly that address (a different address → a second PA).
 */
export function applyDefaultPAPolicy(n: HnsNetConf, address: string): void {
  if (address === '') return;
  const path = n.apiVersion === 2 ? ['Settings', 'ProviderAddress'] : ['PA'];
  const listed = endpointPolicyHas(
    n,
    ['PA', 'ProviderAddress'],
    path,
    (pa) => pa.kind === 'string' && jpBytes(pa) === address,
  );
  if (listed) return;
  append(
    n,
    n.apiVersion === 2
      ? `{"Type": "ProviderAddress", "Settings": {"ProviderAddress": "${address}"}}`
      : `{"Type": "PA", "PA": "${address}"}`,
  );
}

/**
 * `ApplyPortMappingPolicy(portMappings)`: one `{"Type": "NAT", "InternalPort": c, "ExternalPort": h,
 * "Protocol": "<as given>"}` per entry (v2: `PortMapping` with the protocol number and `VIP`),
 * entries with an invalid protocol skipped; nothing at all for an empty list.
 */
export function applyPortMappingPolicy(
  n: HnsNetConf,
  portMappings: readonly PortMapEntry[] | undefined,
): void {
  for (const p of portMappings ?? []) {
    let protocol: number;
    try {
      protocol = getProtocolEnum(p);
    } catch {
      continue;
    }
    append(
      n,
      n.apiVersion === 2
        ? `{"Type": "PortMapping", "Settings": {"InternalPort": ${p.containerPort}, "ExternalPort": ${p.hostPort}, "Protocol": ${protocol}, "VIP": "${p.hostIP}"}}`
        : `{"Type": "NAT", "InternalPort": ${p.containerPort}, "ExternalPort": ${p.hostPort}, "Protocol": "${p.protocol}"}`,
    );
  }
}
