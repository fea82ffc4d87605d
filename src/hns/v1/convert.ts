/**
 * HNS v1 documents (reference hns-hcs.md §3.1, §3.2) turned into the HCN v2 documents the service
 * parses (§1.1, §1.2). Used by the v1 router and by v2 creates given a v1-shaped body, which HNS
 * accepts (§6.17, hcsshim `hcnv1schema_test.go`). The output is not validated here: the v2 parser
 * does that, so errors are the ones a v2 call gets; only v1 fields of the wrong JSON type fail here,
 * with HCN_E_INVALID_JSON (policy fields: HCN_E_INVALID_POLICY).
 *
 *   v1NetworkToV2({ Type: 'NAT', Name: 'nat', Subnets: [{ AddressPrefix: '192.168.100.0/24',
 *     GatewayAddress: '192.168.100.1' }] }, version)
 *   // {"Name":"nat","Type":"NAT","Ipams":[{"Type":"Static","Subnets":[{"IpAddressPrefix":
 *   //   "192.168.100.0/24","Routes":[{"NextHop":"192.168.100.1","DestinationPrefix":"0.0.0.0/0"}]}]}]}
 */
import { formatIp, parseIp, parsePrefix, prefixContains } from '../../addr/ip.js';
import { hnsError } from '../../core/errors.js';
import { isJsonObject, Reader, type Json, type JsonObject } from '../../core/json.js';
import { subnetsOf, type NetworkRec, type V1EndpointExtras, type V1NetworkExtras } from '../model.js';
import type { HnsVersion } from '../versions.js';
import { v1PolicyToV2, v2PolicyToV1 } from './policies.js';

export { v1PolicyToV2, v2PolicyToV1, V1_POLICY_TYPES, type V1PolicyType } from './policies.js';

const CODE = 'HCN_E_INVALID_JSON';

/** Keys only a v1 HNSNetwork has (hcsshim `internal/hns/hnsnetwork.go`). */
export const V1_NETWORK_KEYS = [
  'Subnets',
  'MacPools',
  'DNSServerList',
  'DNSSuffix',
  'NetworkAdapterName',
  'SourceMac',
  'ManagementIP',
  'DNSServerCompartment',
  'AutomaticDNS',
] as const;
/** Keys only a v2 HostComputeNetwork has. */
const V2_NETWORK_KEYS = ['Ipams', 'MacPool', 'Dns'] as const;

/** Keys only a v1 HNSEndpoint has (hcsshim `internal/hns/hnsendpoint.go`). */
export const V1_ENDPOINT_KEYS = [
  'VirtualNetwork',
  'VirtualNetworkName',
  'IPAddress',
  'IPv6Address',
  'PrefixLength',
  'IPv6PrefixLength',
  'GatewayAddress',
  'GatewayAddressV6',
  'DNSSuffix',
  'DNSServerList',
  'DNSDomain',
  'IsRemoteEndpoint',
  'EnableInternalDNS',
  'DisableICC',
  'EnableLowMetric',
  'EncapOverhead',
  'SharedContainers',
  'Namespace',
] as const;
/** Keys only a v2 HostComputeEndpoint has. */
const V2_ENDPOINT_KEYS = [
  'HostComputeNetwork',
  'HostComputeNamespace',
  'IpConfigurations',
  'Dns',
  'Routes',
] as const;

/** v1 endpoint keys that carry DNS settings (an update replaces DNS only when one is present). */
export const V1_ENDPOINT_DNS_KEYS = ['DNSSuffix', 'DNSServerList', 'DNSDomain'] as const;

function present(doc: JsonObject, key: string): boolean {
  return doc[key] !== undefined && doc[key] !== null;
}

/** A policy written flat (fields beside Type, no Settings) is a v1 policy. */
function hasFlatPolicy(doc: JsonObject): boolean {
  const pols = doc['Policies'];
  if (!Array.isArray(pols)) return false;
  return pols.some(
    (p) => isJsonObject(p) && p['Settings'] === undefined && Object.keys(p).some((k) => k !== 'Type'),
  );
}

/**
 * Whether a document given to a v2 create is v1-shaped: `SchemaVersion.Major` 1, or a key only v1
 * has (Subnets, MacPools, DNSServerList… for networks; VirtualNetwork, IPAddress, GatewayAddress…
 * for endpoints) and none only v2 has, or flat (v1) policies. A document mixing v1 and v2 keys is
 * read as v2 (our choice: the v2 parser then ignores the v1 keys).
 */
export function isV1Document(doc: JsonObject, kind: 'Network' | 'Endpoint'): boolean {
  const sv = doc['SchemaVersion'];
  if (isJsonObject(sv) && sv['Major'] === 1) return true;
  const v2Keys: readonly string[] = kind === 'Network' ? V2_NETWORK_KEYS : V2_ENDPOINT_KEYS;
  if (v2Keys.some((k) => present(doc, k))) return false;
  const v1Keys: readonly string[] = kind === 'Network' ? V1_NETWORK_KEYS : V1_ENDPOINT_KEYS;
  return v1Keys.some((k) => present(doc, k)) || hasFlatPolicy(doc);
}

function optText(r: Reader, key: string): string | undefined {
  const v = r.optStr(key);
  return v === '' ? undefined : v;
}

/** A v1 comma list (`"10.96.0.10,8.8.8.8"`) as an array, blanks dropped. */
export function splitList(s: string | undefined): string[] {
  if (!s) return [];
  return s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
}

/** `{NextHop, DestinationPrefix}` default route via `gateway` (0.0.0.0/0 or ::/0 by its family). */
function defaultRoute(gateway: string, v6Hint: boolean): JsonObject {
  const ip = parseIp(gateway);
  const v6 = ip ? ip.family === 6 : v6Hint;
  return { NextHop: gateway, DestinationPrefix: v6 ? '::/0' : '0.0.0.0/0' };
}

function convertPolicies(r: Reader, scope: 'network' | 'endpoint' | 'subnet'): JsonObject[] {
  return r.arr('Policies').map((p) => v1PolicyToV2(p, scope));
}

/**
 * A v1 HNSNetwork as a v2 HostComputeNetwork document:
 * - `Subnets[{AddressPrefix, GatewayAddress, Policies}]` → `Ipams[{Type:"Static", Subnets[{IpAddressPrefix,
 *   Routes:[default route via GatewayAddress], Policies (v2 form)}]}]` (subnet `ID`/`Flags` kept);
 * - `MacPools` → `MacPool.Ranges`; `DNSSuffix` → `Dns.Domain`; `DNSServerList` → `Dns.ServerList`;
 * - `NetworkAdapterName` → NetAdapterName policy; `SourceMac` → SourceMacAddress policy;
 *   `AutomaticDNS` → AutomaticDNS policy;
 * - network-level `VLAN`/`VSID`/`Isolation` policies (v1 puts them on the network, v2 on subnets)
 *   are added to every subnet; other policies map by `v1PolicyToV2` at network scope;
 * - read-only output fields (`ManagementIP`, `CurrentEndpointCount`, `State`, …) are ignored.
 */
export function v1NetworkToV2(doc: JsonObject, _version: HnsVersion): JsonObject {
  const r = new Reader(doc, CODE, '$');
  const out: JsonObject = {};
  const id = optText(r, 'ID');
  if (id !== undefined) out['ID'] = id;
  const name = r.optStr('Name');
  if (name !== undefined) out['Name'] = name;
  const type = optText(r, 'Type');
  if (type !== undefined) out['Type'] = type;
  const flags = r.optUint('Flags', 0xffffffff);
  if (flags) out['Flags'] = flags;
  r.optStr('ManagementIP');
  r.optUint('DNSServerCompartment', 0xffffffff);
  r.optBool('IPv6');

  const networkPolicies: JsonObject[] = [];
  const subnetWide: JsonObject[] = [];
  for (const p of r.arr('Policies')) {
    const t = isJsonObject(p) && typeof p['Type'] === 'string' ? p['Type'].toLowerCase() : '';
    if (t === 'vlan' || t === 'vsid' || t === 'isolation') subnetWide.push(v1PolicyToV2(p, 'subnet'));
    else networkPolicies.push(v1PolicyToV2(p, 'network'));
  }
  const adapter = optText(r, 'NetworkAdapterName');
  if (adapter !== undefined)
    networkPolicies.push({ Type: 'NetAdapterName', Settings: { NetworkAdapterName: adapter } });
  const sourceMac = optText(r, 'SourceMac');
  if (sourceMac !== undefined)
    networkPolicies.push({ Type: 'SourceMacAddress', Settings: { SourceMacAddress: sourceMac } });
  if (r.optBool('AutomaticDNS')) networkPolicies.push({ Type: 'AutomaticDNS', Settings: { Enable: true } });
  if (networkPolicies.length) out['Policies'] = networkPolicies;

  const ranges = r.objs('MacPools').map((m) => {
    const range: JsonObject = {};
    const start = m.optStr('StartMacAddress');
    const end = m.optStr('EndMacAddress');
    if (start !== undefined) range['StartMacAddress'] = start;
    if (end !== undefined) range['EndMacAddress'] = end;
    return range;
  });
  if (ranges.length) out['MacPool'] = { Ranges: ranges };

  const dns: JsonObject = {};
  const suffix = optText(r, 'DNSSuffix');
  if (suffix !== undefined) dns['Domain'] = suffix;
  const servers = splitList(r.optStr('DNSServerList'));
  if (servers.length) dns['ServerList'] = servers;
  if (Object.keys(dns).length) out['Dns'] = dns;

  const subnets = r.objs('Subnets').map((s) => {
    const prefix = s.optStr('AddressPrefix') ?? '';
    const sub: JsonObject = {};
    const subId = optText(s, 'ID');
    if (subId !== undefined) sub['ID'] = subId;
    sub['IpAddressPrefix'] = prefix;
    const gateway = optText(s, 'GatewayAddress');
    if (gateway !== undefined) sub['Routes'] = [defaultRoute(gateway, prefix.includes(':'))];
    const policies = [...convertPolicies(s, 'subnet'), ...subnetWide];
    if (policies.length) sub['Policies'] = policies;
    const subFlags = s.optUint('Flags', 0xffffffff);
    if (subFlags) sub['Flags'] = subFlags;
    return sub;
  });
  if (subnetWide.length && !subnets.length) {
    // v2 keeps VLAN/VSID on subnets only; with no subnet there is nowhere to put it (our choice).
    throw r.err('a VLAN/VSID network policy needs a subnet to carry it', 'HCN_E_INVALID_POLICY_TYPE');
  }
  if (subnets.length) out['Ipams'] = [{ Type: 'Static', Subnets: subnets }];
  return out;
}

/**
 * A v1 HNSEndpoint as a v2 HostComputeEndpoint document:
 * - `VirtualNetwork` → `HostComputeNetwork` (`VirtualNetworkName` is resolved by the caller);
 * - `IPAddress`/`PrefixLength`, `IPv6Address`/`IPv6PrefixLength` → `IpConfigurations`;
 * - `GatewayAddress`/`GatewayAddressV6` → default `Routes`;
 * - `DNSSuffix` (comma list) → `Dns.Search`, `DNSServerList` → `Dns.ServerList`, `DNSDomain` → `Dns.Domain`;
 * - `IsRemoteEndpoint` → Flags 1, `DisableICC` → Flags 2, `EnableLowMetric` → Flags 8;
 * - `EncapOverhead` → EncapOverhead policy; `Policies` → v2 policies (`v1PolicyToV2`);
 * - `EnableInternalDNS`, `Namespace`, `SharedContainers`, `State` are accepted and ignored (no v2
 *   field; namespace membership and attachment go through their own calls).
 */
export function v1EndpointToV2(doc: JsonObject, _version: HnsVersion): JsonObject {
  const r = new Reader(doc, CODE, '$');
  const out: JsonObject = {};
  const id = optText(r, 'ID');
  if (id !== undefined) out['ID'] = id;
  const name = r.optStr('Name');
  if (name !== undefined) out['Name'] = name;
  const network = optText(r, 'VirtualNetwork');
  if (network !== undefined) out['HostComputeNetwork'] = network;
  r.optStr('VirtualNetworkName');
  r.optBool('EnableInternalDNS');
  r.optObj('Namespace');
  r.optUint('State', 0xffff);
  r.strs('SharedContainers');

  const policies: Json[] = convertPolicies(r, 'endpoint');
  const overhead = r.optUint('EncapOverhead', 0xffff);
  if (overhead) policies.push({ Type: 'EncapOverhead', Settings: { Overhead: overhead } });
  if (policies.length) out['Policies'] = policies;

  const ipConfigs: JsonObject[] = [];
  const v4 = optText(r, 'IPAddress');
  const v4Len = r.optUint('PrefixLength', 0xff);
  if (v4 !== undefined) ipConfigs.push(v4Len ? { IpAddress: v4, PrefixLength: v4Len } : { IpAddress: v4 });
  const v6 = optText(r, 'IPv6Address');
  const v6Len = r.optUint('IPv6PrefixLength', 0xff);
  if (v6 !== undefined) ipConfigs.push(v6Len ? { IpAddress: v6, PrefixLength: v6Len } : { IpAddress: v6 });
  if (ipConfigs.length) out['IpConfigurations'] = ipConfigs;

  const dns: JsonObject = {};
  const domain = optText(r, 'DNSDomain');
  if (domain !== undefined) dns['Domain'] = domain;
  const search = splitList(r.optStr('DNSSuffix'));
  if (search.length) dns['Search'] = search;
  const servers = splitList(r.optStr('DNSServerList'));
  if (servers.length) dns['ServerList'] = servers;
  if (Object.keys(dns).length) out['Dns'] = dns;

  const routes: JsonObject[] = [];
  const gw = optText(r, 'GatewayAddress');
  if (gw !== undefined) routes.push(defaultRoute(gw, false));
  const gw6 = optText(r, 'GatewayAddressV6');
  if (gw6 !== undefined) routes.push(defaultRoute(gw6, true));
  if (routes.length) out['Routes'] = routes;

  const mac = optText(r, 'MacAddress');
  if (mac !== undefined) out['MacAddress'] = mac;

  let flags = 0;
  if (r.optBool('IsRemoteEndpoint')) flags |= 1;
  if (r.optBool('DisableICC')) flags |= 2;
  if (r.optBool('EnableLowMetric')) flags |= 8;
  if (flags) out['Flags'] = flags;
  return out;
}

/**
 * The v1 network fields HCN v2 has no place for, validated (HCN_E_INVALID_JSON for a wrong JSON
 * type, HCN_E_INVALID_NETWORK for a bad value): `ManagementIP` (an IP; Azure CNS sends it),
 * `DNSServerCompartment` (uint32), and the network-level `VLAN`/`VSID`/`Isolation` policies as
 * given, which the v1 view keeps in the network's `Policies`. Undefined when there are none.
 */
export function v1NetworkExtras(doc: JsonObject): V1NetworkExtras | undefined {
  const r = new Reader(doc, CODE, '$');
  const out: { ManagementIP?: string; DNSServerCompartment?: number; NetworkPolicies?: JsonObject[] } = {};
  const mgmt = optText(r, 'ManagementIP');
  if (mgmt !== undefined) {
    // an address, or one with its prefix length: Antrea sends Go's IPNet.String()
    // (pkg/agent/util/net_windows.go CreateHNSNetwork: "192.168.77.100/24")
    if (!parseIp(mgmt) && !(parsePrefix(mgmt) && parseIp(mgmt.split('/')[0]!)))
      throw hnsError('HCN_E_INVALID_NETWORK', `ManagementIP "${mgmt}" is not an IP address`);
    out.ManagementIP = mgmt;
  }
  const comp = r.optUint('DNSServerCompartment', 0xffffffff);
  if (comp !== undefined) out.DNSServerCompartment = comp;
  const lifted: JsonObject[] = [];
  for (const p of r.arr('Policies')) {
    const t = isJsonObject(p) && typeof p['Type'] === 'string' ? p['Type'].toLowerCase() : '';
    if (t === 'vlan' || t === 'vsid' || t === 'isolation')
      lifted.push(v2PolicyToV1(v1PolicyToV2(p, 'subnet')));
  }
  if (lifted.length) out.NetworkPolicies = lifted;
  return Object.keys(out).length ? out : undefined;
}

/** The v1 endpoint fields HCN v2 has no place for: `EnableInternalDNS`. Undefined when absent. */
export function v1EndpointExtras(doc: JsonObject): V1EndpointExtras | undefined {
  const r = new Reader(doc, CODE, '$');
  const internalDns = r.optBool('EnableInternalDNS');
  return internalDns === undefined ? undefined : { EnableInternalDNS: internalDns };
}

/**
 * A v1 endpoint that gives a gateway for one family only still gets the other family's gateway from
 * the subnet holding its address: Azure CNI's dual-stack v1 endpoint sends `GatewayAddressV6` but
 * not `GatewayAddress`, and reads `GatewayAddress` back (`network/endpoint_windows.go`). `v2` is
 * the converted document (v1EndpointToV2); returns it with the missing default route added.
 */
export function completeV1Gateways(v2: JsonObject, network: NetworkRec): JsonObject {
  const routes = Array.isArray(v2['Routes']) ? v2['Routes'] : [];
  const configs = Array.isArray(v2['IpConfigurations']) ? v2['IpConfigurations'] : [];
  if (!routes.length || !configs.length) return v2; // no gateway at all: the subnet routes are inherited
  const added: JsonObject[] = [];
  for (const c of configs) {
    const ip = isJsonObject(c) && typeof c['IpAddress'] === 'string' ? parseIp(c['IpAddress']) : undefined;
    if (!ip) continue;
    const dflt = ip.family === 4 ? '0.0.0.0/0' : '::/0';
    if (routes.some((r) => isJsonObject(r) && r['DestinationPrefix'] === dflt)) continue;
    const sub = subnetsOf(network).find((s) => s.gateway && prefixContains(s.prefix, ip));
    if (sub?.gateway) added.push({ NextHop: formatIp(sub.gateway), DestinationPrefix: dflt });
  }
  return added.length ? { ...v2, Routes: [...added, ...routes] } : v2;
}
