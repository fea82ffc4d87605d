/**
 * How azure-vnet turns its configuration into HNS policies (ACN v1.8.12
 * `network/policy/policy_windows.go`, `cni/network/network_windows.go`; reference azure-cni.md §3):
 * `GetPolicyType` infers an entry's kind from its value (OutBoundNAT, ROUTE, L4WFPPROXY, an
 * HCN-shaped PortMapping, anything with a non-empty `Action` = ACL, LoopbackDSR, in that order);
 * `GetHcnEndpointPolicies` builds the HCN v2 `EndpointPolicy` list (an entry it cannot place fails
 * the ADD) and `SerializePolicies` the HNS v1 `Policies` (unplaceable entries pass through raw,
 * unbuildable ones are dropped). Settings are written as hcsshim's structs marshal: fields in
 * declaration order, `omitempty` ones dropped when zero.
 */
import type { Json, JsonObject } from '../../core/json.js';
import {
  field,
  goBool,
  GoError,
  goRaw,
  goString,
  goStruct,
  goUint,
  goUnmarshal,
  type GoType,
} from '../../cni/gojson.js';
import { netIPType } from '../../cni/result.js';
import { goCanonicalIP } from '../../cni/goip.js';
import type { EndpointPolicy } from '../../api/hcn/policy.js';
// ACN `network/networkutils` `AzureDNS`
import { WIRESERVER_IP } from '../../host/azure.js';
import type { AcnPortMapping, CniPolicy } from './conf.js';

/** ACN `policy.CNIPolicyType` values. */
export const POLICY = {
  network: 'NetworkPolicy',
  endpoint: 'EndpointPolicy',
  outBoundNat: 'OutBoundNAT',
  route: 'ROUTE',
  portMapping: 'NAT',
  acl: 'ACL',
  l4WfpProxy: 'L4WFPPROXY',
  loopbackDsr: 'LoopbackDSR',
} as const;

/** `uint16`: Go's range check for a JSON number decoded into it. */
function goUint16(structField: string): GoType {
  return {
    k: 'custom',
    name: 'uint16',
    decode: (raw: Json) => {
      if (raw === null) return undefined;
      if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 0 || raw > 0xffff) {
        const what = typeof raw === 'number' ? `number ${String(raw)}` : kindOf(raw);
        throw new GoError(
          `json: cannot unmarshal ${what} into Go struct field ${structField} of type uint16`,
        );
      }
      return raw;
    },
  };
}
const kindOf = (v: Json): string =>
  Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v === 'object' ? 'object' : typeof v;

const KV_OUTBOUND_NAT = goStruct('policy.KVPairOutBoundNAT', [
  field('Type', goString),
  field('ExceptionList', goRaw),
]);
const KV_ROUTE = goStruct('policy.KVPairRoute', [
  field('Type', goString),
  field('DestinationPrefix', goString),
  field('NeedEncap', goBool),
]);
const KV_ROUTE_POLICY = goStruct('policy.KVPairRoutePolicy', [
  field('Type', goString),
  field('DestinationPrefix', goRaw),
  field('NeedEncap', goRaw),
]);
const KV_L4_WFP_PROXY = goStruct('policy.KVPairL4WfpProxyPolicy', [
  field('Type', goString),
  field('OutboundProxyPort', goString),
  field('InboundProxyPort', goString),
  field('UserSID', goString),
  field('FilterTuple', goRaw),
  field('InboundExceptions', goRaw),
  field('OutboundExceptions', goRaw),
]);
const HCN_ENDPOINT_POLICY = goStruct('hcn.EndpointPolicy', [
  field('Type', goString),
  field('Settings', goRaw),
]);
const ACL_FIELDS = [
  'Protocols',
  'Action',
  'Direction',
  'LocalAddresses',
  'RemoteAddresses',
  'LocalPorts',
  'RemotePorts',
  'RuleType',
] as const;
const ACL_SETTING = goStruct('hcn.AclPolicySetting', [
  ...ACL_FIELDS.map((f) => field(f, goString)),
  field('Priority', goUint16('AclPolicySetting.Priority')),
]);
const FIVE_TUPLE_STRINGS = [
  'Protocols',
  'LocalAddresses',
  'RemoteAddresses',
  'LocalPorts',
  'RemotePorts',
] as const;
const FIVE_TUPLE = goStruct('hcn.FiveTuple', [
  ...FIVE_TUPLE_STRINGS.map((f) => field(f, goString)),
  field('Priority', goUint16('FiveTuple.Priority')),
]);
const PROXY_EXCEPTIONS = goStruct('hcn.ProxyExceptions', [
  field('IpAddressExceptions', { k: 'slice', elem: goString }),
  field('PortExceptions', { k: 'slice', elem: goString }),
]);
const L4_WFP_PROXY_SETTING = goStruct('hcn.L4WfpProxyPolicySetting', [
  field('InboundProxyPort', goString),
  field('OutboundProxyPort', goString),
  field('FilterTuple', FIVE_TUPLE),
  field('UserSID', goString),
  field('InboundExceptions', PROXY_EXCEPTIONS),
  field('OutboundExceptions', PROXY_EXCEPTIONS),
]);
const LOOPBACK_DSR = goStruct('policy.LoopbackDSR', [field('Type', goString), field('IPAddress', netIPType)]);

type Decoded = Record<string, unknown>;

/** `json.Unmarshal(data, &v)`: the decoded struct, or undefined where Go returns an error. */
function tryDecode(data: string, t: GoType): Decoded | undefined {
  try {
    return (goUnmarshal(data, t) ?? {}) as Decoded;
  } catch {
    return undefined;
  }
}

/** `json.Unmarshal(data, &v)`, its error thrown. A nil RawMessage ('') is Go's end-of-input error. */
function decode(data: string, t: GoType): Decoded {
  if (data === '') throw new GoError('unexpected end of JSON input');
  return (goUnmarshal(data, t) ?? {}) as Decoded;
}

const s = (o: Decoded, k: string): string => (o[k] as string | undefined) ?? '';

/**
 * What an entry's value translates to, by its JSON text: its kind, and (for the kinds whose
 * translation depends on nothing else) the HCN policy or the error building it. A conflist's
 * entries are the same pod after pod; the cache is bounded.
 */
const translations = new Map<string, { kind: string; hcn?: EndpointPolicy | { error: string } }>();
const TRANSLATIONS_MAX = 512;

function translation(data: string): { kind: string; hcn?: EndpointPolicy | { error: string } } {
  let t = translations.get(data);
  if (t === undefined) {
    if (translations.size >= TRANSLATIONS_MAX) translations.clear();
    t = { kind: policyTypeOf(data) };
    translations.set(data, t);
  }
  return t;
}

/** The translation of a kind that depends on the entry alone, built once per text. */
function pureHcn(
  p: CniPolicy,
  t: { kind: string; hcn?: EndpointPolicy | { error: string } },
  build: (p: CniPolicy) => EndpointPolicy,
): EndpointPolicy {
  if (t.hcn === undefined) {
    try {
      t.hcn = build(p);
    } catch (e) {
      t.hcn = { error: (e as Error).message };
    }
  }
  if ('error' in t.hcn) throw new Error(t.hcn.error);
  // a copy: the caller's document may be changed
  return structuredClone(t.hcn);
}

/** `GetPolicyType`: the entry's kind, or '' when nothing recognises it. */
export function policyType(p: CniPolicy): string {
  return translation(p.data).kind;
}

function policyTypeOf(data: string): string {
  if (data === '') return '';
  const nat = tryDecode(data, KV_OUTBOUND_NAT);
  if (nat && s(nat, 'Type') === POLICY.outBoundNat) return POLICY.outBoundNat;
  const route = tryDecode(data, KV_ROUTE);
  if (route && s(route, 'Type') === POLICY.route) return POLICY.route;
  const proxy = tryDecode(data, KV_L4_WFP_PROXY);
  if (proxy && s(proxy, 'Type') === POLICY.l4WfpProxy) return POLICY.l4WfpProxy;
  const hcn = tryDecode(data, HCN_ENDPOINT_POLICY);
  if (hcn && s(hcn, 'Type') === 'PortMapping') return POLICY.portMapping;
  const acl = tryDecode(data, ACL_SETTING);
  if (acl && s(acl, 'Action') !== '') return POLICY.acl;
  const dsr = tryDecode(data, LOOPBACK_DSR);
  if (dsr && s(dsr, 'Type') === POLICY.loopbackDsr) return POLICY.loopbackDsr;
  return '';
}

/** `GetOutBoundNatExceptionList`: the `ExceptionList` as `[]string` (nil when it is JSON null). */
function exceptionList(p: CniPolicy): string[] | null {
  const d = decode(p.data, KV_OUTBOUND_NAT);
  if (s(d, 'Type') !== POLICY.outBoundNat) return null;
  const raw = (d['ExceptionList'] as string | undefined) ?? '';
  return (decode(raw, { k: 'slice', elem: goString }) as unknown as string[] | null) ?? null;
}

/**
 * Exceptions plus the multitenant `cnetAddressSpace`, appended one by one to a nil slice: with
 * neither there is none (an empty list too), and the policy is then not set.
 */
function natExceptions(p: CniPolicy, cnet: readonly string[] | undefined): string[] | null {
  let out: string[] | null = null;
  for (const ip of [...(exceptionList(p) ?? []), ...(cnet ?? [])]) (out ??= []).push(ip);
  return out;
}

/** An object of the fields whose values are not Go's zero (`omitempty` everywhere). */
function omitEmpty(entries: readonly (readonly [string, Json | undefined])[]): JsonObject {
  const o: JsonObject = {};
  for (const [k, v] of entries) {
    if (v === undefined || v === '' || v === 0 || v === false || v === null) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    o[k] = v;
  }
  return o;
}

/** hcsshim `OutboundNatPolicySetting`. */
export function outboundNatSetting(
  vip: string,
  exceptions: readonly string[] | null,
  destinations: readonly string[] | null,
): JsonObject {
  return omitEmpty([
    ['VirtualIP', vip],
    ['Exceptions', exceptions ? [...exceptions] : null],
    ['Destinations', destinations ? [...destinations] : null],
  ]);
}

/** `GetHcnOutBoundNATPolicy`. */
function hcnOutBoundNat(p: CniPolicy, cnet: readonly string[] | undefined): EndpointPolicy {
  const exceptions = natExceptions(p, cnet);
  if (exceptions === null) throw new Error('OutBoundNAT policy not set');
  return { Type: 'OutBoundNAT', Settings: outboundNatSetting('', exceptions, null) };
}

/** `GetHcnRoutePolicy`. */
function hcnRoute(p: CniPolicy): EndpointPolicy {
  const d = decode(p.data, KV_ROUTE_POLICY);
  const prefix = decode(s(d, 'DestinationPrefix'), goString) as unknown as string | null;
  const encap = decode(s(d, 'NeedEncap'), goBool) as unknown as boolean | null;
  return {
    Type: 'SDNRoute',
    Settings: omitEmpty([
      ['DestinationPrefix', prefix ?? ''],
      ['NeedEncap', encap ?? false],
    ]),
  };
}

/** `GetHcnPortMappingPolicy`: the entry is an HCN policy already; its type forced to PortMapping. */
function hcnPortMapping(p: CniPolicy): EndpointPolicy {
  let d: Decoded;
  try {
    d = decode(p.data, HCN_ENDPOINT_POLICY);
  } catch (e) {
    throw new Error(
      `Invalid policy: {Type:${p.type} Data:[${bytesList(p.data)}]}. Expecting PortMapping policy. Error: ${(e as Error).message}`,
    );
  }
  const raw = d['Settings'] as string | undefined;
  const settings = raw === undefined || raw === 'null' ? undefined : (JSON.parse(raw) as Json);
  return settings === undefined ? { Type: 'PortMapping' } : { Type: 'PortMapping', Settings: settings };
}

/** `%+v` of a `json.RawMessage`: its bytes as decimal numbers. */
function bytesList(text: string): string {
  return [...Buffer.from(text, 'utf8')].join(' ');
}

/** `GetHcnACLPolicy`: decoded as `AclPolicySetting` and marshalled again (unknown keys, `Type` included, dropped). */
function hcnAcl(p: CniPolicy): EndpointPolicy {
  const d = decode(p.data, ACL_SETTING);
  const o: JsonObject = {};
  if (s(d, 'Protocols') !== '') o['Protocols'] = s(d, 'Protocols');
  o['Action'] = s(d, 'Action');
  o['Direction'] = s(d, 'Direction');
  for (const f of ACL_FIELDS.slice(3)) if (s(d, f) !== '') o[f] = s(d, f);
  const prio = (d['Priority'] as number | undefined) ?? 0;
  if (prio !== 0) o['Priority'] = prio;
  return { Type: 'ACL', Settings: o };
}

/** `GetHcnL4WFPProxyPolicy`. */
function hcnL4WfpProxy(p: CniPolicy): EndpointPolicy {
  const d = decode(p.data, L4_WFP_PROXY_SETTING);
  const tuple = (d['FilterTuple'] as Decoded | undefined) ?? {};
  const exceptions = (k: string): JsonObject => {
    const e = (d[k] as Decoded | undefined) ?? {};
    return omitEmpty([
      ['IpAddressExceptions', (e['IpAddressExceptions'] as string[] | null | undefined) ?? null],
      ['PortExceptions', (e['PortExceptions'] as string[] | null | undefined) ?? null],
    ]);
  };
  const o: JsonObject = omitEmpty([
    ['InboundProxyPort', s(d, 'InboundProxyPort')],
    ['OutboundProxyPort', s(d, 'OutboundProxyPort')],
  ]);
  o['FilterTuple'] = omitEmpty([
    ...FIVE_TUPLE_STRINGS.map((f) => [f, s(tuple, f)] as const),
    ['Priority', (tuple['Priority'] as number | undefined) ?? 0],
  ]);
  if (s(d, 'UserSID') !== '') o['UserSID'] = s(d, 'UserSID');
  o['InboundExceptions'] = exceptions('InboundExceptions');
  o['OutboundExceptions'] = exceptions('OutboundExceptions');
  return { Type: 'L4WFPPROXY', Settings: o };
}

/** The LoopbackDSR entry's address as `net.IP.String()` prints it (`<nil>` when absent). */
function dsrAddress(p: CniPolicy): string {
  let d: Decoded;
  try {
    d = decode(p.data, LOOPBACK_DSR);
  } catch (e) {
    throw new Error(`unmarshal dsr data failed: ${(e as Error).message}`);
  }
  // net.IP decodes through UnmarshalText to its canonical text; a nil IP prints <nil>
  return (d['IPAddress'] as string | undefined) ?? '<nil>';
}

/** What the policy builders need from the node and the endpoint. */
export interface PolicyContext {
  /** `hcn.DSRSupported()`: resolves when HNS supports DSR, else rejects with hcsshim's error. */
  readonly dsrSupported: () => Promise<void>;
  /** The multitenant `cnetAddressSpace` (appended to OutBoundNAT exceptions). */
  readonly cnetAddressSpace?: readonly string[];
  readonly enableSnatForDns: boolean;
  readonly enableMultiTenancy: boolean;
}

/** `GetHcnLoopbackDSRPolicy`. */
async function hcnLoopbackDsr(p: CniPolicy, ctx: PolicyContext): Promise<EndpointPolicy> {
  try {
    await ctx.dsrSupported();
  } catch (e) {
    throw new Error(`hcn doesn't support DSR: ${(e as Error).message}`);
  }
  return { Type: 'OutBoundNAT', Settings: outboundNatSetting('', null, [dsrAddress(p)]) };
}

/** One `NATInfo` rule (ACN `policy.NATInfo`). */
export interface NatInfo {
  readonly virtualIp: string;
  readonly destinations: readonly string[];
}

/**
 * `GetHcnEndpointPolicies(EndpointPolicy, …)`: the `EndpointPolicy` entries in order (OutBoundNAT
 * left out in multitenancy without SNAT for DNS), then one OutBoundNAT per NAT rule when the OS
 * build allows DNS NAT. An entry of no known kind fails: `Failed to set Policy: Type: …, Data: …`.
 */
export async function hcnEndpointPolicies(
  policies: readonly CniPolicy[],
  ctx: PolicyContext,
  natInfo: readonly NatInfo[],
  validWinVerForDnsNat: boolean,
): Promise<EndpointPolicy[]> {
  const out: EndpointPolicy[] = [];
  for (const p of policies) {
    if (p.type !== POLICY.endpoint) continue;
    let ep: EndpointPolicy;
    const t = translation(p.data);
    const kind = t.kind;
    switch (kind) {
      case POLICY.outBoundNat:
        ep =
          (ctx.cnetAddressSpace ?? []).length > 0
            ? hcnOutBoundNat(p, ctx.cnetAddressSpace)
            : pureHcn(p, t, (x) => hcnOutBoundNat(x, undefined));
        break;
      case POLICY.route:
        ep = pureHcn(p, t, hcnRoute);
        break;
      case POLICY.portMapping:
        ep = pureHcn(p, t, hcnPortMapping);
        break;
      case POLICY.acl:
        ep = pureHcn(p, t, hcnAcl);
        break;
      case POLICY.l4WfpProxy:
        ep = pureHcn(p, t, hcnL4WfpProxy);
        break;
      case POLICY.loopbackDsr:
        ep = await hcnLoopbackDsr(p, ctx);
        break;
      default:
        throw new Error(`Failed to set Policy: Type: ${p.type}, Data: ${p.data}`);
    }
    if (!(kind === POLICY.outBoundNat && ctx.enableMultiTenancy && !ctx.enableSnatForDns)) out.push(ep);
  }
  if (validWinVerForDnsNat) {
    for (const n of natInfo) {
      out.push({ Type: 'OutBoundNAT', Settings: outboundNatSetting(n.virtualIp, null, n.destinations) });
    }
  }
  return out;
}

/** hcsshim `OutboundNatPolicy` (v1): `Type`, then `VIP`, `ExceptionList`, `Destinations`, omitempty. */
function v1OutboundNat(
  exceptions: readonly string[] | null,
  destinations: readonly string[] | null,
): JsonObject {
  return {
    Type: 'OutBoundNAT',
    ...omitEmpty([
      ['ExceptionList', exceptions ? [...exceptions] : null],
      ['Destinations', destinations ? [...destinations] : null],
    ]),
  };
}

/** `hcn.PortMappingPolicySetting` as `json.Unmarshal` fills it. */
const PORT_MAPPING_SETTING = goStruct('hcn.PortMappingPolicySetting', [
  field('Protocol', goUint),
  field('InternalPort', goUint16('PortMappingPolicySetting.InternalPort')),
  field('ExternalPort', goUint16('PortMappingPolicySetting.ExternalPort')),
  field('VIP', goString),
  field('Flags', goUint),
]);

/** `SerializeNATPolicy`: an HCN PortMapping entry as a v1 `NatPolicy` (VIP and flags lost). */
function v1Nat(p: CniPolicy): JsonObject {
  const d = decode(p.data, HCN_ENDPOINT_POLICY);
  const setting = decode(s(d, 'Settings'), PORT_MAPPING_SETTING);
  const proto = setting['Protocol'] === 6 ? 'TCP' : setting['Protocol'] === 17 ? 'UDP' : '';
  return {
    Type: 'NAT',
    ...omitEmpty([
      ['Protocol', proto],
      ['InternalPort', (setting['InternalPort'] as number | undefined) ?? 0],
      ['ExternalPort', (setting['ExternalPort'] as number | undefined) ?? 0],
    ]),
  };
}

/**
 * `SerializePolicies(kind, …)`, the HNS v1 `Policies`: OutBoundNAT with its exceptions (dropped
 * when it has none, or in multitenancy without SNAT for DNS), port mappings as v1 NAT, LoopbackDSR
 * as a destination OutBoundNAT (dropped when HNS lacks DSR), every other entry as its raw JSON;
 * then, in multitenancy with SNAT for DNS on a build that allows it, the wireserver DNS NAT.
 */
export async function v1Policies(
  kind: string,
  policies: readonly CniPolicy[],
  ctx: PolicyContext,
  validWinVerForDnsNat: boolean,
): Promise<Json[]> {
  const out: Json[] = [];
  const snatAndSerialize = ctx.enableMultiTenancy && ctx.enableSnatForDns;
  for (const p of policies) {
    if (p.type !== kind) continue;
    switch (policyType(p)) {
      case POLICY.outBoundNat:
        if (snatAndSerialize || !ctx.enableMultiTenancy) {
          try {
            const exceptions = natExceptions(p, ctx.cnetAddressSpace);
            if (exceptions !== null) out.push(v1OutboundNat(exceptions, null));
          } catch {
            // logged and dropped upstream
          }
        }
        break;
      case POLICY.portMapping:
        try {
          out.push(v1Nat(p));
        } catch {
          // dropped
        }
        break;
      case POLICY.loopbackDsr:
        try {
          await ctx.dsrSupported();
          out.push(v1OutboundNat(null, [dsrAddress(p)]));
        } catch {
          // dropped
        }
        break;
      default:
        out.push(p.data === '' ? null : (JSON.parse(p.data) as Json));
    }
  }
  if (snatAndSerialize && validWinVerForDnsNat) out.push(v1OutboundNat(null, [WIRESERVER_IP]));
  return out;
}

/** `policy.Policy{Type: EndpointPolicy, Data: …}` built by the plugin itself. */
export function endpointPolicy(data: JsonObject): CniPolicy {
  return { type: POLICY.endpoint, data: JSON.stringify(data) };
}

/** hcn `NatFlags`: `NatFlagsLocalRoutedVip` (1) and `NatFlagsIPv6` (2). */
export const NAT_FLAGS_LOCAL_ROUTED_VIP = 1;
export const NAT_FLAGS_IPV6 = 2;

/** `createPortMappingPolicy`: an HCN PortMapping entry (PortMappingPolicySetting, omitempty). */
export function portMappingPolicy(
  hostPort: number,
  containerPort: number,
  hostIp: string,
  protocol: number,
  flags: number,
): CniPolicy {
  // uint16(hostPort): Go truncates an out-of-range int
  const settings = omitEmpty([
    ['Protocol', protocol],
    ['InternalPort', containerPort & 0xffff],
    ['ExternalPort', hostPort & 0xffff],
    ['VIP', hostIp],
    ['Flags', flags],
  ]);
  return endpointPolicy({ Type: 'PortMapping', Settings: settings });
}

/** `getLoopbackDSRPolicy` entry for one pod IPv4 address. */
export function loopbackDsrPolicy(ip: string): CniPolicy {
  return endpointPolicy({ Type: POLICY.loopbackDsr, IPAddress: ip });
}

/** `netip.ParseAddr`: 4 or 6 for an address it accepts, undefined otherwise (a zone only on IPv6). */
function netipParseAddr(s: string): 4 | 6 | undefined {
  if (!s.includes(':')) {
    const parts = s.split('.');
    const ok =
      parts.length === 4 &&
      parts.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255 && !(o.length > 1 && o.startsWith('0')));
    return ok ? 4 : undefined;
  }
  const [addr = '', zone] = s.split('%');
  if (zone === '') return undefined;
  return goCanonicalIP(addr) !== undefined ? 6 : undefined;
}

/**
 * `getPoliciesFromRuntimeCfg`: one PortMapping per `runtimeConfig.portMappings` entry — protocol 6
 * for tcp, 17 for udp (any other keeps the previous entry's number, 0 at first), flags 1
 * (`NatFlagsLocalRoutedVip`), or 2 (`NatFlagsIPv6`) for an IPv6 `hostIP` on a dual-stack pod — and
 * for a dual-stack pod without `hostIP` a second one with flags 2. A `hostIP` `netip.ParseAddr`
 * refuses fails: `failed to parse hostIP invalid IP: ParseAddr("…"): unable to parse IP`.
 */
export function runtimePortMappings(
  mappings: readonly AcnPortMapping[] | null,
  ipv6Enabled: boolean,
): CniPolicy[] {
  const out: CniPolicy[] = [];
  let protocol = 0;
  for (const m of mappings ?? []) {
    const proto = m.protocol.trim().toUpperCase();
    if (proto === 'TCP') protocol = 6;
    else if (proto === 'UDP') protocol = 17;
    let flag = NAT_FLAGS_LOCAL_ROUTED_VIP;
    if (m.hostIP !== '') {
      const family = netipParseAddr(m.hostIP);
      if (family === undefined) {
        throw new Error(
          `failed to parse hostIP invalid IP: ParseAddr(${JSON.stringify(m.hostIP)}): unable to parse IP`,
        );
      }
      if (family === 6 && ipv6Enabled) flag = NAT_FLAGS_IPV6;
    }
    out.push(portMappingPolicy(m.hostPort, m.containerPort, m.hostIP, protocol, flag));
    if (m.hostIP === '' && ipv6Enabled) {
      out.push(portMappingPolicy(m.hostPort, m.containerPort, m.hostIP, protocol, NAT_FLAGS_IPV6));
    }
  }
  return out;
}
