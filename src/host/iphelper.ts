/**
 * The node's network interfaces and routes as Windows' IP Helper API (iphlpapi.dll) reports them
 * (issue 15): what `GetAdaptersAddresses`, `GetIfTable2` and `GetIpForwardTable2` answer on the node,
 * built from `Host.adapters()` (Get-NetAdapter's view: physical NICs, the host vNICs of the vSwitches
 * HNS created, the host vNICs of host-attached endpoints) and `Host.routes()` (Get-NetRoute). hnsim's
 * iphlpapi.dll (native/iphlpapi) fetches it over JSON-RPC (`GetIpInterfaces`, docs/api.md) so a
 * program under Wine sees the node's interfaces instead of Linux's.
 *
 *   ipInterfaces(host).interfaces.find((i) => i.alias === 'vEthernet (Ethernet)')?.ipv4
 *   // [{ address: '10.0.0.4', prefixLength: 24 }]
 *
 * Where Windows has more than the model (docs/model.md, "Real binaries under Wine", our choices):
 * the loopback pseudo-interface (index 1, as Windows numbers it) with 127.0.0.1/8 and ::1/128 and
 * its two routes; no link-local IPv6 addresses (Windows draws a random fe80:: one per interface);
 * no DNS servers (the host's resolver configuration is not modelled); no /32 host, broadcast or
 * multicast routes.
 */
import { isJsonObject, type JsonObject } from '../core/json.js';
import type { Host } from './host.js';

/** IANA ifType values (ipifcons.h): Ethernet (every adapter and host vNIC) and software loopback. */
export const IF_TYPE_ETHERNET_CSMACD = 6;
export const IF_TYPE_SOFTWARE_LOOPBACK = 24;

/** The loopback pseudo-interface's index on Windows ("Loopback Pseudo-Interface 1"). */
export const LOOPBACK_IF_INDEX = 1;

/**
 * NetLuidIndex of an Ethernet interface: 32768 + its ifIndex (our choice; Windows numbers NDIS
 * interfaces from 32768 per type — ConvertInterfaceLuidToName shows `ethernet_32768` — in an order
 * it does not document); the loopback's is 0 (`loopback_0`).
 */
export function netLuidIndexOf(ifIndex: number, ifType: number): number {
  return ifType === IF_TYPE_SOFTWARE_LOOPBACK ? 0 : 32768 + ifIndex;
}

/** NET_LUID's value: NetLuidIndex in bits 24–47, IfType in bits 48–63 (ifdef.h). Below 2^53: exact in JSON. */
export function luidOf(netLuidIndex: number, ifType: number): number {
  return ifType * 2 ** 48 + netLuidIndex * 2 ** 24;
}

export interface IpAddressDoc {
  readonly address: string;
  readonly prefixLength: number;
}

/** One interface as `GetIpInterfaces` answers it. */
export interface IpInterfaceDoc {
  readonly ifIndex: number;
  readonly luid: number;
  readonly netLuidIndex: number;
  readonly ifType: number;
  /** The interface alias (FriendlyName): `Ethernet`, `vEthernet (Ethernet)`, `vEthernet (nat)`. */
  readonly alias: string;
  readonly description: string;
  /** The interface GUID (AdapterName is it in braces). */
  readonly interfaceGuid: string;
  /** `00-15-5D-01-02-03`; empty for the loopback. */
  readonly macAddress: string;
  /** Bytes; 4294967295 for the loopback (Windows' "unlimited"). */
  readonly mtu: number;
  readonly operStatus: 'Up' | 'Down';
  readonly kind: 'Physical' | 'HostVNic' | 'EndpointVNic' | 'Loopback';
  /**
   * Whether TCP/IP is bound: false for a physical adapter bound to an external vSwitch (its host
   * vNIC carries the addresses; `ipconfig` and GetAdaptersAddresses no longer list it).
   */
  readonly ipEnabled: boolean;
  readonly ipv4: readonly IpAddressDoc[];
  readonly ipv6: readonly IpAddressDoc[];
  /** IPv4 default gateways on this interface. */
  readonly gateways: readonly string[];
  readonly dnsServers: readonly string[];
  /** The vSwitch it is bound to (physical: as uplink; host vNIC: as its port). */
  readonly switchId?: string;
  /** A host-attached endpoint's vNIC: the endpoint. */
  readonly endpointId?: string;
}

/** One route as `GetIpInterfaces` answers it. */
export interface IpRouteDoc {
  readonly family: 4 | 6;
  readonly destinationPrefix: string;
  /** `0.0.0.0` / `::` when on-link. */
  readonly nextHop: string;
  readonly ifIndex: number;
  readonly interfaceAlias: string;
  readonly metric: number;
  /** Connected, Default, HostRoute, User (Host.routes()), or Loopback. */
  readonly origin: string;
}

export interface IpInterfacesDoc {
  readonly interfaces: readonly IpInterfaceDoc[];
  readonly routes: readonly IpRouteDoc[];
}

const LOOPBACK: IpInterfaceDoc = {
  ifIndex: LOOPBACK_IF_INDEX,
  luid: luidOf(0, IF_TYPE_SOFTWARE_LOOPBACK),
  netLuidIndex: 0,
  ifType: IF_TYPE_SOFTWARE_LOOPBACK,
  alias: 'Loopback Pseudo-Interface 1',
  description: 'Software Loopback Interface 1',
  interfaceGuid: '3A5D5C0D-3C2E-11EE-A7D3-806E6F6E6963',
  macAddress: '',
  mtu: 4294967295,
  operStatus: 'Up',
  kind: 'Loopback',
  ipEnabled: true,
  ipv4: [{ address: '127.0.0.1', prefixLength: 8 }],
  ipv6: [{ address: '::1', prefixLength: 128 }],
  gateways: [],
  dnsServers: [],
};

const LOOPBACK_ROUTES: readonly IpRouteDoc[] = [
  {
    family: 4,
    destinationPrefix: '127.0.0.0/8',
    nextHop: '0.0.0.0',
    ifIndex: LOOPBACK_IF_INDEX,
    interfaceAlias: LOOPBACK.alias,
    metric: 256,
    origin: 'Loopback',
  },
  {
    family: 6,
    destinationPrefix: '::1/128',
    nextHop: '::',
    ifIndex: LOOPBACK_IF_INDEX,
    interfaceAlias: LOOPBACK.alias,
    metric: 256,
    origin: 'Loopback',
  },
];

function str(o: JsonObject, k: string): string | undefined {
  const v = o[k];
  return typeof v === 'string' ? v : undefined;
}

function num(o: JsonObject, k: string): number | undefined {
  const v = o[k];
  return typeof v === 'number' ? v : undefined;
}

/** The IPv6 addresses of a host-attached endpoint (Host.adapters() shows its IPv4 one). */
function endpointIpv6(host: Host, endpointId: string): IpAddressDoc[] {
  const e = host.hns.store.endpoints.get(endpointId);
  if (!e) return [];
  return e.IpConfigurations.filter((c) => c.addr.family === 6).map((c) => ({
    address: c.IpAddress,
    prefixLength: c.PrefixLength ?? 128,
  }));
}

/** The interfaces and routes of the node's default compartment, as iphlpapi.dll reports them. */
export function ipInterfaces(host: Host): IpInterfacesDoc {
  const interfaces: IpInterfaceDoc[] = [LOOPBACK];
  for (const a of host.adapters()) {
    if (!isJsonObject(a)) continue;
    const ifIndex = num(a, 'ifIndex')!;
    const endpointId = str(a, 'EndpointId');
    const switchId = str(a, 'VSwitchId');
    const physical = a.Kind === 'Physical';
    const v4 = str(a, 'IPv4Address');
    const gw = str(a, 'DefaultGateway');
    const netLuidIndex = netLuidIndexOf(ifIndex, IF_TYPE_ETHERNET_CSMACD);
    interfaces.push({
      ifIndex,
      luid: luidOf(netLuidIndex, IF_TYPE_ETHERNET_CSMACD),
      netLuidIndex,
      ifType: IF_TYPE_ETHERNET_CSMACD,
      alias: str(a, 'Name')!,
      description: str(a, 'InterfaceDescription') ?? '',
      interfaceGuid: str(a, 'InterfaceGuid') ?? '',
      macAddress: str(a, 'MacAddress') ?? '',
      mtu: num(a, 'MtuSize') ?? 1500,
      operStatus: a.Status === 'Down' ? 'Down' : 'Up',
      kind: physical ? 'Physical' : endpointId ? 'EndpointVNic' : 'HostVNic',
      ipEnabled: !(physical && switchId),
      ipv4: v4 ? [{ address: v4, prefixLength: num(a, 'PrefixLength') ?? 32 }] : [],
      ipv6: endpointId ? endpointIpv6(host, endpointId) : [],
      gateways: gw ? [gw] : [],
      dnsServers: [],
      ...(switchId ? { switchId } : {}),
      ...(endpointId ? { endpointId } : {}),
    });
  }
  const byAlias = new Map(interfaces.map((i) => [i.alias.toLowerCase(), i]));
  const routes: IpRouteDoc[] = [LOOPBACK_ROUTES[0]!];
  for (const r of host.routes()) {
    const i = byAlias.get(r.iface.toLowerCase());
    if (!i) continue;
    routes.push({
      family: 4,
      destinationPrefix: `${ipv4Text(r.dest.addr)}/${r.dest.len}`,
      nextHop: ipv4Text(r.nextHop),
      ifIndex: i.ifIndex,
      interfaceAlias: i.alias,
      metric: r.metric,
      origin: r.origin,
    });
  }
  routes.push(LOOPBACK_ROUTES[1]!);
  return { interfaces, routes };
}

function ipv4Text(v: number): string {
  return `${(v >>> 24) & 255}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
}
