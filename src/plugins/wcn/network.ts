/**
 * windows-container-networking's network and endpoint records and their HCN documents
 * (`network/network.go`, `network/endpoint.go` @ b96345f; reference cni-windows.md §4.3 step 4 and
 * 9): the network WCN creates when it is missing, the endpoint document (a default route only when
 * the gateway is non-nil, commit 33bbfa2), and how WCN reads networks and endpoints back from HCN —
 * including the places where a malformed policy or subnet makes the Go code panic.
 */
import type { Json, JsonObject } from '../../core/json.js';
import type { HostComputeEndpoint, HostComputeEndpointDoc } from '../../api/hcn/endpoint.js';
import type { HostComputeNetwork, HostComputeNetworkDoc, Subnet } from '../../api/hcn/network.js';
import type { EndpointPolicy, NetworkPolicy } from '../../api/hcn/policy.js';
import type { Route as HcnRoute } from '../../api/hcn/hcn.js';
import { field, goAny, GoError, goString, goStruct, goUnmarshal, type GoType } from '../../cni/gojson.js';
import {
  goIPString,
  goNetString,
  parseCIDR,
  parseIP,
  ZERO_NET,
  type GoIP,
  type GoMask,
  type GoNet,
} from './gonet.js';
import { GoPanic, nilDereference } from '../../cni/gopanic.js';
import { macString, parseMAC } from '../../cni/gomac.js';
import { CNIPolicyType, type Policy } from './policy.js';

/** `network.DNSInfo`. */
export interface DNSInfo {
  readonly nameservers: readonly string[] | undefined;
  readonly domain: string;
  readonly search: readonly string[] | undefined;
  readonly options: readonly string[] | undefined;
}

/** `network.SubnetInfo`. */
export interface SubnetInfo {
  readonly addressPrefix: GoNet;
  readonly gatewayAddress: GoIP | undefined;
  readonly policies: readonly Policy[];
}

/** `network.NetworkInfo`. `id` is the config's name until it is read back from HCN. */
export interface NetworkInfo {
  id: string;
  name: string;
  type: string;
  interfaceName: string;
  subnets: SubnetInfo[];
  dns: DNSInfo;
  policies: Policy[];
}

/** `network.RouteInfo` (collected from IPAM, never sent to HCN). */
export interface RouteInfo {
  readonly destination: GoNet;
  readonly gateway: GoIP | undefined;
}

/** `network.EndpointInfo`. */
export interface EndpointInfo {
  id: string;
  name: string;
  networkId: string;
  namespaceId: string;
  ipAddress: GoIP | undefined;
  /** Only read when dual-stack is on. */
  ip4Mask: GoMask | undefined;
  ipAddress6: GoNet;
  macAddress: Uint8Array | undefined;
  gateway: GoIP | undefined;
  gateway6: GoIP | undefined;
  routes: RouteInfo[];
  policies: Policy[];
  subnet: GoNet;
  dns: DNSInfo;
  containerId: string;
  dualStack: boolean;
}

export function emptyEndpointInfo(): EndpointInfo {
  return {
    id: '',
    name: '',
    networkId: '',
    namespaceId: '',
    ipAddress: undefined,
    ip4Mask: undefined,
    ipAddress6: ZERO_NET,
    macAddress: undefined,
    gateway: undefined,
    gateway6: undefined,
    routes: [],
    policies: [],
    subnet: ZERO_NET,
    dns: { nameservers: undefined, domain: '', search: undefined, options: undefined },
    containerId: '',
    dualStack: false,
  };
}

// ───────────────────────────────────── raw policy decoding ───────────────────────────────────

const policyType = (name: string, typeName: string): GoType =>
  goStruct(name, [field('Type', { k: 'text', name: typeName, decode: (s) => s }), field('Settings', goAny)]);

const ENDPOINT_POLICY = policyType('hcn.EndpointPolicy', 'hcn.EndpointPolicyType');
const NETWORK_POLICY = policyType('hcn.NetworkPolicy', 'hcn.NetworkPolicyType');

/**
 * `json.Unmarshal(policy.Data, &p)` where a failure panics (WCN's `panic(err)`): a nil Data gives
 * `unexpected end of JSON input`, a non-object a type error; `null` is a zero policy.
 */
function unmarshalOrPanic(data: Json | undefined, t: GoType): { Type: string; Settings?: Json } {
  try {
    const r = (goUnmarshal(data === undefined ? '' : JSON.stringify(data), t) ?? {}) as Record<
      string,
      unknown
    >;
    const out: { Type: string; Settings?: Json } = { Type: typeof r['Type'] === 'string' ? r['Type'] : '' };
    if (r['Settings'] !== undefined && r['Settings'] !== null) out.Settings = r['Settings'] as Json;
    return out;
  } catch (e) {
    if (e instanceof GoError) throw new GoPanic(e.message);
    throw e;
  }
}

/** `GetHostComputeEndpointPolicies`: the EndpointPolicy-typed entries, decoded (others dropped). */
function hostComputeEndpointPolicies(policies: readonly Policy[]): EndpointPolicy[] {
  const out: EndpointPolicy[] = [];
  for (const p of policies) {
    if (p.type === CNIPolicyType.EndpointPolicy) out.push(unmarshalOrPanic(p.data, ENDPOINT_POLICY));
  }
  return out;
}

/** `GetHostComputeNetworkPolicies`: the NetworkPolicy-typed entries, decoded. */
function hostComputeNetworkPolicies(policies: readonly Policy[]): NetworkPolicy[] {
  const out: NetworkPolicy[] = [];
  for (const p of policies) {
    if (p.type === CNIPolicyType.NetworkPolicy) out.push(unmarshalOrPanic(p.data, NETWORK_POLICY));
  }
  return out;
}

function policyData(p: { Type: string; Settings?: Json }): Json {
  const o: JsonObject = { Type: p.Type };
  if (p.Settings !== undefined && p.Settings !== null) o['Settings'] = p.Settings;
  return o;
}

// ────────────────────────────────────────── networks ─────────────────────────────────────────

/** `SubnetInfo.GetHostComputeSubnetConfig`: one route, `0.0.0.0/0` via the gateway when there is one. */
function hostComputeSubnet(s: SubnetInfo): Subnet {
  const prefix = s.addressPrefix.ip && s.addressPrefix.mask ? goNetString(s.addressPrefix) : '';
  const route: HcnRoute = {};
  if (s.gatewayAddress) {
    route.NextHop = goIPString(s.gatewayAddress);
    route.DestinationPrefix = '0.0.0.0/0';
  }
  const out: Subnet = { Routes: [route] };
  if (prefix !== '') out.IpAddressPrefix = prefix;
  const policies = s.policies.filter((p) => p.type === CNIPolicyType.NetworkPolicy).map((p) => p.data);
  if (policies.length) out.Policies = policies.map((p) => (p ?? null) as JsonObject);
  return out;
}

/**
 * `NetworkInfo.GetHostComputeNetworkConfig`: `{Name, Type, Ipams (one Static ipam when there are
 * subnets), Dns, SchemaVersion 2.0, Policies}` with the config's NetworkPolicy entries.
 */
export function hostComputeNetworkConfig(info: NetworkInfo): HostComputeNetworkDoc {
  const subnets = info.subnets.map(hostComputeSubnet);
  const policies = hostComputeNetworkPolicies(info.policies);
  if (info.interfaceName !== '') {
    policies.push({ Type: 'NetAdapterName', Settings: { NetworkAdapterName: info.interfaceName } });
  }
  const doc: HostComputeNetworkDoc = {
    Name: info.name,
    Type: info.type,
    Dns: dnsDoc(info.dns),
    SchemaVersion: { Major: 2, Minor: 0 },
  };
  if (subnets.length) doc.Ipams = [{ Type: 'Static', Subnets: subnets }];
  if (policies.length) doc.Policies = policies;
  return doc;
}

function dnsDoc(d: DNSInfo): NonNullable<HostComputeNetworkDoc['Dns']> {
  const out: NonNullable<HostComputeNetworkDoc['Dns']> = {};
  if (d.domain !== '') out.Domain = d.domain;
  if (d.search?.length) out.Search = [...d.search];
  if (d.nameservers?.length) out.ServerList = [...d.nameservers];
  if (d.options?.length) out.Options = [...d.options];
  return out;
}

function dnsInfo(d: {
  Domain?: string;
  Search?: string[];
  ServerList?: string[];
  Options?: string[];
}): DNSInfo {
  return { domain: d.Domain ?? '', search: d.Search, nameservers: d.ServerList, options: d.Options };
}

/** `GetSubnetInfoFromHostComputeSubnet`: a prefix Go cannot parse dereferences nil (panic). */
function subnetInfo(s: Subnet): SubnetInfo {
  const parsed = parseCIDR(s.IpAddressPrefix ?? '');
  if (!parsed) throw nilDereference();
  const routes = s.Routes ?? [];
  return {
    addressPrefix: parsed.net,
    gatewayAddress: routes.length ? parseIP(routes[0]!.NextHop ?? '') : undefined,
    policies: (s.Policies ?? []).map((p) => ({ type: CNIPolicyType.NetworkPolicy, data: p })),
  };
}

/** `GetNetAdapterNameNetworkPolicySetting`: the first `NetAdapterName` policy (bad settings panic). */
function netAdapterName(policies: readonly NetworkPolicy[]): string {
  for (const p of policies) {
    if (p.Type !== 'NetAdapterName') continue;
    try {
      const s = (goUnmarshal(
        p.Settings === undefined ? '' : JSON.stringify(p.Settings),
        goStruct('hcn.NetAdapterNameNetworkPolicySetting', [field('NetworkAdapterName', goString)]),
      ) ?? {}) as Record<string, unknown>;
      return typeof s['NetworkAdapterName'] === 'string' ? s['NetworkAdapterName'] : '';
    } catch (e) {
      if (e instanceof GoError) throw new GoPanic(e.message);
      throw e;
    }
  }
  return '';
}

/** `GetNetworkInfoFromHostComputeNetwork`: subnets of the first ipam, DNS, policies, adapter name. */
export function networkInfoFromHcn(n: HostComputeNetwork): NetworkInfo {
  const subnets = n.Ipams.length > 0 ? (n.Ipams[0]!.Subnets ?? []).map(subnetInfo) : [];
  return {
    id: n.ID,
    name: n.Name,
    type: n.Type,
    interfaceName: netAdapterName(n.Policies),
    subnets,
    dns: dnsInfo(n.Dns),
    policies: n.Policies.map((p) => ({ type: CNIPolicyType.NetworkPolicy, data: policyData(p) })),
  };
}

// ───────────────────────────────────────── endpoints ─────────────────────────────────────────

/**
 * `EndpointInfo.GetHostComputeEndpoint`: IpConfigurations without prefix lengths, a `0.0.0.0/0`
 * route only for a non-nil gateway and `::/0` for a non-nil IPv6 gateway, schema 2.0, and the
 * EndpointPolicy entries.
 */
export function hostComputeEndpoint(ep: EndpointInfo): HostComputeEndpointDoc {
  const ipConfigs: { IpAddress: string }[] = [];
  if (ep.ipAddress) ipConfigs.push({ IpAddress: goIPString(ep.ipAddress) });
  if (ep.ipAddress6.ip) ipConfigs.push({ IpAddress: goIPString(ep.ipAddress6.ip) });
  const routes: HcnRoute[] = [];
  if (ep.gateway) routes.push({ NextHop: goIPString(ep.gateway), DestinationPrefix: '0.0.0.0/0' });
  if (ep.gateway6) routes.push({ NextHop: goIPString(ep.gateway6), DestinationPrefix: '::/0' });
  return {
    Name: ep.name,
    ID: ep.id,
    HostComputeNetwork: ep.networkId,
    HostComputeNamespace: ep.namespaceId,
    Dns: dnsDoc(ep.dns),
    MacAddress: macString(ep.macAddress),
    Routes: routes,
    IpConfigurations: ipConfigs,
    SchemaVersion: { Major: 2, Minor: 0 },
    Policies: hostComputeEndpointPolicies(ep.policies),
  };
}

/** `common.GetAddressAsCidr` + `net.ParseCIDR`; a failure dereferences the nil IPNet (panic). */
function cidrOf(ipAddress: string, prefixLength: number): { ip: GoIP; mask: GoMask } {
  const parsed = parseCIDR(`${ipAddress}/${prefixLength}`);
  if (!parsed) throw nilDereference();
  return { ip: parsed.ip, mask: parsed.net.mask! };
}

/**
 * `GetEndpointInfoFromHostComputeEndpoint`: single-stack reads the first route's NextHop and the
 * first IpConfiguration; dual-stack picks the first IPv4 and IPv6 of each (with prefix lengths).
 * The MAC is `net.ParseMAC` of HNS's text (nil when it does not parse).
 */
export function endpointInfoFromHcn(ep: HostComputeEndpoint, withIpv6: boolean): EndpointInfo {
  const info = emptyEndpointInfo();
  info.name = ep.Name;
  info.id = ep.ID;
  info.networkId = ep.HostComputeNetwork;
  info.namespaceId = ep.HostComputeNamespace;
  info.dns = dnsInfo(ep.Dns);
  info.macAddress = parseMAC(ep.MacAddress);
  info.policies = ep.Policies.map((p) => ({ type: CNIPolicyType.EndpointPolicy, data: policyData(p) }));
  if (!withIpv6) {
    if (ep.Routes.length > 0) info.gateway = parseIP(ep.Routes[0]!.NextHop ?? '');
    if (ep.IpConfigurations.length > 0) info.ipAddress = parseIP(ep.IpConfigurations[0]!.IpAddress ?? '');
    return info;
  }
  let ip4: { ip: GoIP; mask: GoMask } | undefined;
  let ip6: { ip: GoIP; mask: GoMask } | undefined;
  for (const c of ep.IpConfigurations) {
    const addr = c.IpAddress ?? '';
    const parsed = parseIP(addr);
    if (parsed?.family !== 4 && !ip6) ip6 = cidrOf(addr, c.PrefixLength ?? 0);
    else if (!ip4) ip4 = cidrOf(addr, c.PrefixLength ?? 0);
    if (ip4 && ip6) break;
  }
  let gw4: GoIP | undefined;
  let gw6: GoIP | undefined;
  let found4 = false;
  let found6 = false;
  for (const r of ep.Routes) {
    const hop = parseIP(r.NextHop ?? '');
    if (hop?.family !== 4 && !found6) {
      gw6 = hop;
      found6 = true;
    } else if (!found4) {
      gw4 = hop;
      found4 = true;
    }
    if (found4 && found6) break;
  }
  info.gateway = gw4;
  info.gateway6 = gw6;
  info.ipAddress = ip4?.ip;
  info.ip4Mask = ip4?.mask;
  info.ipAddress6 = ip6 ? { ip: ip6.ip, mask: ip6.mask } : ZERO_NET;
  return info;
}
