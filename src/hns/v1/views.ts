/**
 * The v1 shapes of stored objects (reference hns-hcs.md §3.1 HNSNetwork, §3.2 HNSEndpoint, §3.3
 * PolicyList, §3.4 Namespace): what `HNSCall` GET returns and what a v2 query with `SchemaVersion`
 * Major 1 returns (§0.2). Keys follow hcsshim's v1 structs with their `omitempty`, then the fields
 * real HNS adds to its output (§3.1 "observed real v1 output") where the store can derive them.
 * GUIDs are upper-case, as everywhere in the store.
 */
import { BOOT_UNIX_MS } from '../../core/clock.js';
import { derivedGuid } from '../../core/guid.js';
import { cloneJson, type JsonObject } from '../../core/json.js';
import type { EndpointRec, NamespaceRec, NetworkRec, PolicyListRec, RouteRec } from '../model.js';
import type { ParsedPolicy } from '../policy/contracts.js';
import { serializePolicy } from '../policy/registry.js';
import { endpointState } from '../schema/endpoint.js';
import { networkExtensions } from '../networks.js';
import type { HnsService } from '../service.js';
import { v2PolicyToV1 } from './policies.js';

/** v1 network `State` as real HNS shows it for a live network (calico#8465, ACN#4355). */
const NETWORK_STATE_CREATED = 1;

function settingsOf(p: ParsedPolicy): JsonObject {
  const s = serializePolicy(p)['Settings'];
  return typeof s === 'object' && s !== null && !Array.isArray(s) ? s : {};
}

function stringSetting(p: ParsedPolicy | undefined, key: string): string | undefined {
  if (!p) return undefined;
  const v = settingsOf(p)[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** Next hop of the first default route of `family` (0.0.0.0/0 or ::/0), if any. */
function gatewayOf(routes: readonly RouteRec[], family: 4 | 6): string | undefined {
  const r = routes.find((x) => x.dest.len === 0 && x.dest.family === family && x.NextHop !== '');
  return r?.NextHop;
}

function v1Policies(policies: readonly ParsedPolicy[]): JsonObject[] {
  return policies.map((p) => v2PolicyToV1(serializePolicy(p)));
}

/** Network policy types shown as top-level v1 fields instead of in `Policies`. */
const LIFTED_NETWORK_POLICIES = new Set([
  'NetAdapterName',
  'SourceMacAddress',
  'AutomaticDNS',
  'DrMacAddress',
]);

/** The simulated host booted at 2026-01-01T00:00:00Z; FILETIME counts 100 ns ticks since 1601. */
const FILETIME_UNIX_OFFSET_MS = 11_644_473_600_000;

/**
 * `Health` as v1 objects carry it: no error, last update at the object's simulated creation time
 * (a network restored from an hnsim 0.1.0 snapshot has none: boot time).
 */
function v1Health(createdMs: number | undefined): JsonObject {
  return {
    LastErrorCode: 0,
    LastUpdateTime: (BOOT_UNIX_MS + FILETIME_UNIX_OFFSET_MS + (createdMs ?? 0)) * 10_000,
  };
}

/** The `ActivityId` HNS shows beside an object: a stable GUID derived from its ID. */
function activityId(id: string): string {
  return derivedGuid(id, 0x41435449);
}

/** The VXLAN overhead HNS reports on Overlay endpoints (AKS#1367, calico#4682, flannel's fixture: 50). */
export const OVERLAY_ENCAP_OVERHEAD = 50;

/**
 * HNSNetwork: `ID, Name, Type, NetworkAdapterName, SourceMac, Policies, MacPools, Subnets[{AddressPrefix,
 * GatewayAddress, Policies, ID, Flags, IpSubnets}], DNSSuffix, DNSServerList, ManagementIP, AutomaticDNS`,
 * then `CurrentEndpointCount, Extensions, Flags, IPv6, LayeredOn, State`. `GatewayAddress` is the
 * next hop of the subnet's default route; `ManagementIP` the address of the host vNIC of the
 * network's external switch (src/hns/adapters.ts), else its ProviderAddress policy;
 * `DNSSuffix` is `Dns.Domain` (else the search list, comma-joined). `Type` is always shown.
 */
export function v1NetworkView(hns: HnsService, n: NetworkRec): JsonObject {
  const out: JsonObject = { ID: n.ID };
  if (n.Name) out['Name'] = n.Name;
  out['Type'] = n.Type;
  const find = (type: string) => n.Policies.find((p) => p.type === type);
  const adapter = stringSetting(find('NetAdapterName'), 'NetworkAdapterName');
  if (adapter) out['NetworkAdapterName'] = adapter;
  const sourceMac = stringSetting(find('SourceMacAddress'), 'SourceMacAddress');
  if (sourceMac) out['SourceMac'] = sourceMac;
  const networkLevel = n.v1Extras?.NetworkPolicies ?? [];
  const others = [
    ...networkLevel.map((p) => ({ ...p })),
    ...v1Policies(n.Policies.filter((p) => !LIFTED_NETWORK_POLICIES.has(p.type))),
  ];
  if (others.length) out['Policies'] = others;
  const liftedKeys = new Set(networkLevel.map((p) => JSON.stringify(p)));
  if (n.MacRanges.length) {
    out['MacPools'] = n.MacRanges.map((m) => ({
      StartMacAddress: m.StartMacAddress,
      EndMacAddress: m.EndMacAddress,
    }));
  }
  const subnets = n.Ipams.flatMap((i) => i.Subnets);
  if (subnets.length) {
    out['Subnets'] = subnets.map((s) => {
      const o: JsonObject = { AddressPrefix: s.IpAddressPrefix };
      const gw = gatewayOf(s.Routes, s.prefix.family);
      if (gw) o['GatewayAddress'] = gw;
      // a VLAN/VSID the caller gave on the network is shown there, not on each subnet
      const own = v1Policies(s.Policies).filter((p) => !liftedKeys.has(JSON.stringify(p)));
      if (own.length) o['Policies'] = own;
      o['ID'] = s.ID;
      if (s.Flags) o['Flags'] = s.Flags;
      if (s.IpSubnets.length) {
        o['IpSubnets'] = s.IpSubnets.map((ips) => {
          const x: JsonObject = { ID: ips.ID, IpAddressPrefix: ips.IpAddressPrefix };
          if (ips.Flags) x['Flags'] = ips.Flags;
          return x;
        });
      }
      return o;
    });
  }
  const suffix = n.Dns.Domain ?? (n.Dns.Search.length ? n.Dns.Search.join(',') : undefined);
  if (suffix) out['DNSSuffix'] = suffix;
  if (n.Dns.ServerList.length) out['DNSServerList'] = n.Dns.ServerList.join(',');
  if (n.v1Extras?.DNSServerCompartment !== undefined) {
    out['DNSServerCompartment'] = n.v1Extras.DNSServerCompartment;
  }
  const managementIp =
    hns.store.nics.managementIp(n.ID) ??
    n.v1Extras?.ManagementIP ??
    stringSetting(find('ProviderAddress'), 'ProviderAddress');
  if (managementIp) out['ManagementIP'] = managementIp;
  const autoDns = find('AutomaticDNS');
  if (autoDns && settingsOf(autoDns)['Enable'] === true) out['AutomaticDNS'] = true;
  out['ActivityId'] = activityId(n.ID);
  out['CurrentEndpointCount'] = hns.store.alloc.get(n.ID)?.endpoints.size ?? 0;
  const drMac = stringSetting(find('DrMacAddress'), 'Address') ?? n.DrMacAddress;
  if (drMac) out['DrMacAddress'] = drMac;
  // the switch's extensions, as HNS lists them on every network of a switch (src/hns/extensions.ts)
  const extensions = networkExtensions(hns, n.ID);
  if (extensions.length)
    out['Extensions'] = extensions.map((e) => ({ Id: e.Id, IsEnabled: e.IsEnabled, Name: e.Name }));
  if (n.Flags) out['Flags'] = n.Flags;
  out['Health'] = v1Health(n.created);
  if (subnets.some((s) => s.prefix.family === 6)) out['IPv6'] = true;
  out['LayeredOn'] = n.LayeredOn;
  out['State'] = NETWORK_STATE_CREATED;
  return out;
}

export { EndpointState, endpointState } from '../schema/endpoint.js';

/**
 * HNSEndpoint in hcsshim's key order: `ID, Name, VirtualNetwork, VirtualNetworkName, Policies,
 * MacAddress, IPAddress, IPv6Address, DNSSuffix, DNSServerList, DNSDomain, GatewayAddress,
 * GatewayAddressV6, DisableICC, PrefixLength, IPv6PrefixLength, IsRemoteEndpoint, EnableLowMetric,
 * Namespace, EncapOverhead, SharedContainers, State`. The EncapOverhead policy is shown as the
 * top-level `EncapOverhead` field; `DNSSuffix` is the DNS search list, comma-joined.
 */
export function v1EndpointView(hns: HnsService, e: EndpointRec): JsonObject {
  const out: JsonObject = { ID: e.ID };
  if (e.Name) out['Name'] = e.Name;
  out['VirtualNetwork'] = e.HostComputeNetwork;
  const networkName = hns.store.networks.get(e.HostComputeNetwork)?.Name;
  if (networkName) out['VirtualNetworkName'] = networkName;
  const encap = e.Policies.find((p) => p.type === 'EncapOverhead');
  const others = e.Policies.filter((p) => p !== encap);
  if (others.length) out['Policies'] = v1Policies(others);
  if (e.MacAddress) out['MacAddress'] = e.MacAddress;
  const v4 = e.IpConfigurations.find((c) => c.addr.family === 4);
  const v6 = e.IpConfigurations.find((c) => c.addr.family === 6);
  if (v4) out['IPAddress'] = v4.IpAddress;
  if (v6) out['IPv6Address'] = v6.IpAddress;
  if (e.Dns.Search.length) out['DNSSuffix'] = e.Dns.Search.join(',');
  if (e.Dns.ServerList.length) out['DNSServerList'] = e.Dns.ServerList.join(',');
  if (e.Dns.Domain) out['DNSDomain'] = e.Dns.Domain;
  const gw = gatewayOf(e.Routes, 4);
  if (gw) out['GatewayAddress'] = gw;
  const gw6 = gatewayOf(e.Routes, 6);
  if (gw6) out['GatewayAddressV6'] = gw6;
  if (e.v1Extras?.EnableInternalDNS !== undefined) out['EnableInternalDNS'] = e.v1Extras.EnableInternalDNS;
  if (e.Flags & 2) out['DisableICC'] = true;
  if (v4?.PrefixLength) out['PrefixLength'] = v4.PrefixLength;
  if (v6?.PrefixLength) out['IPv6PrefixLength'] = v6.PrefixLength;
  if (e.Flags & 1) out['IsRemoteEndpoint'] = true;
  if (e.Flags & 8) out['EnableLowMetric'] = true;
  if (e.HostComputeNamespace) {
    const ns = hns.store.namespaces.get(e.HostComputeNamespace);
    const o: JsonObject = { ID: e.HostComputeNamespace };
    if (ns?.IsDefault) o['IsDefault'] = true;
    if (ns) o['CompartmentId'] = ns.NamespaceId;
    out['Namespace'] = o;
  }
  const overhead = encap ? settingsOf(encap)['Overhead'] : undefined;
  if (typeof overhead === 'number' && overhead) out['EncapOverhead'] = overhead;
  else if (hns.store.networks.get(e.HostComputeNetwork)?.Type === 'Overlay') {
    out['EncapOverhead'] = OVERLAY_ENCAP_OVERHEAD;
  }
  if (e.SharedContainers.length) out['SharedContainers'] = [...e.SharedContainers];
  out['State'] = endpointState(e);
  out['ActivityId'] = activityId(e.ID);
  out['Health'] = v1Health(e.created);
  return out;
}

/**
 * v1 Namespace: `{ID, IsDefault, ResourceList:[{Type, Data:{Id}}], CompartmentId}` (hcsshim
 * `internal/hns/namespace.go` reads `Data.Id`; §3.4 adds CompartmentId).
 */
export function v1NamespaceView(ns: NamespaceRec): JsonObject {
  const out: JsonObject = { ID: ns.ID };
  if (ns.IsDefault) out['IsDefault'] = true;
  if (ns.Resources.length)
    out['ResourceList'] = ns.Resources.map((r) => ({ Type: r.Type, Data: { Id: r.ID } }));
  out['CompartmentId'] = ns.NamespaceId;
  return out;
}

/** v1 PolicyList: `{ID, References:["/endpoints/<id>"], Policies:[…]}` (References/Policies omitempty). */
export function v1PolicyListView(pl: PolicyListRec): JsonObject {
  const out: JsonObject = { ID: pl.ID };
  if (pl.References.length) out['References'] = [...pl.References];
  if (pl.Policies.length) out['Policies'] = pl.Policies.map((p) => cloneJson(p) as JsonObject);
  return out;
}
