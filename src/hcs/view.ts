/**
 * What a compute system sees of the network from inside (reference hns-hcs.md §7.3,
 * kubernetes-windows.md §1.1, vfp-dataplane.md §7): its interfaces, addresses, routes, DNS servers
 * and suffixes. Windows keeps these in the container's own registry (Tcpip\Parameters of its
 * compartment), written from the HNS endpoints it is attached to and from the HCS document's
 * `DnsSearchList` / `AllowUnqualifiedDnsQuery`; this module derives the same facts, as data, from
 * the HNS and HCS state every time it is asked, so a change (an endpoint added to a running pod's
 * namespace) shows at once. src/render/container.ts prints them as `ipconfig /all`, `route print`
 * and `Get-DnsClient` do.
 *
 *   const v = containerView(host.hcs, 'pause-1');        // HCS_E_SYSTEM_NOT_FOUND if unknown
 *   v.interfaces[0].ipv4[0].address;                      // '10.244.1.5'
 *   containerView(host.hcs, 'hpc-1', host);               // a HostProcess container: the host's adapters
 *
 * Names and numbers (evidence quoted upstream; our choices marked):
 * - A container vNIC is `vEthernet (<HNS endpoint Name>)`, described `Hyper-V Virtual Ethernet
 *   Container Adapter` (`#2`, `#3` … after the first): kubernetes-sigs/sig-windows-tools#340 shows
 *   `vEthernet (<sandbox>_flannel.4096)` — win-overlay's endpoint name `<sandbox>_<network>` — and
 *   docker's endpoints, all named `Ethernet` (hnsdiag in kubernetes-sigs/sig-windows-tools#84),
 *   appear as `vEthernet (Ethernet)`, `vEthernet (Ethernet) 2` (microsoft/navcontainerhelper#1042, an
 *   ltsc2022 nanoserver session, RS3/RS4-era IMDS-proxy write-ups). Windows Server 2016
 *   named it `vEthernet (Container NIC <first 8 hex digits of the endpoint ID>)` (docker 17.06
 *   nanoserver output, cloudfoundry/winc `netrules.Applier.MTU`): option `interfaceNames:
 *   'containerNic'`, and what an endpoint without a name gets. Windows numbers duplicate aliases and
 *   descriptions host-wide; here they are numbered within the view (our choice).
 * - A utility VM's synthetic NICs are what a Windows Hyper-V guest calls them: `Ethernet`,
 *   `Ethernet 2` …, `Microsoft Hyper-V Network Adapter` (`#2` …), in hot-add order (Azure VM output
 *   in Azure/aks-engine#2281). A container hosted in the VM sees the VM's adapters (our choice; the
 *   guest HNS's own vNIC naming is not modelled).
 * - The interface index of an endpoint's interface is `1000 + the endpoint's creation sequence`, the
 *   rule Host.adapters() uses for host vNICs (hns/adapters.ts endpointInterface; indices are
 *   host-wide on Windows, ours are stable for the endpoint's life). Container vNICs have interface metric 5000 (route print inside a container
 *   shows 5256 = 5000 + 256: microsoft/Windows-Containers#386; Get-NetRoute ifMetric 5000:
 *   kubernetes-sigs/sig-windows-tools#214); routes default to metric 256.
 * - The connection-specific suffix is `Dns.Domain`, else the first of `Dns.Search` (win-bridge and
 *   win-overlay send the search list as v1 `DNSSuffix`, and the pod in sig-windows-tools#340 shows its
 *   first entry as the suffix). The compartment's search list is the document's `DnsSearchList`,
 *   else the endpoints' `Dns.Search` in order.
 * - MTU: 1450 on Overlay networks (HNS lowers it for the VXLAN header, vfp-dataplane.md §5), 1500
 *   otherwise (endpointInterface again).
 * Not modelled: link-local IPv6 addresses, the loopback interface (the renderers add it), and the
 * routes Windows adds for every address (host /32, broadcast, multicast: route print adds them).
 */
import {
  formatIp,
  formatIPv4,
  formatPrefix,
  parseIp,
  parsePrefix,
  prefixContains,
  type IpAddr,
} from '../addr/ip.js';
import { formatMac, parseMac } from '../addr/mac.js';
import { isJsonObject, type Json, type JsonObject } from '../core/json.js';
import { subnetsOf, type EndpointRec } from '../hns/model.js';
import { endpointInterface } from '../hns/adapters.js';
import type { HnsService } from '../hns/service.js';
import { DEFAULT_COMPARTMENT } from '../hns/v1/attach.js';
import type { HostRoute } from '../vswitch/routes.js';
import { maskOf } from '../vswitch/v4.js';
import { isLive, type ComputeSystemRec, type SystemState } from './model.js';
import type { HcsService } from './service.js';

/** Interface metric of a container vNIC (route print inside a container: 5256 = 5000 + 256). */
const CONTAINER_INTERFACE_METRIC = 5000;
/** Route metric when a route names none (Windows' default RouteMetric). */
export const DEFAULT_ROUTE_METRIC = 256;
/** Interface metric of a host physical adapter (an Azure VM NIC: on-link routes at 266 = 256 + 10). */
const PHYSICAL_INTERFACE_METRIC = 10;

const CONTAINER_NIC_DESCRIPTION = 'Hyper-V Virtual Ethernet Container Adapter';
const VM_NIC_DESCRIPTION = 'Microsoft Hyper-V Network Adapter';

export interface Ipv4AddressView {
  readonly address: string;
  readonly prefixLength: number;
  /** Dotted form of the prefix length (`255.255.255.0`). */
  readonly subnetMask: string;
}

export interface Ipv6AddressView {
  readonly address: string;
  readonly prefixLength: number;
}

/** One network interface as the system sees it (`Get-NetAdapter` + `Get-NetIPConfiguration`). */
export interface ContainerInterfaceView {
  /** InterfaceAlias, e.g. `vEthernet (pod-a_cbr0)`. */
  readonly name: string;
  readonly description: string;
  readonly ifIndex: number;
  /** The HNS endpoint behind the interface (host adapters that are not endpoints have none). */
  readonly endpointId?: string;
  /** Dash form, upper-case: `00-15-5D-12-34-56`. */
  readonly macAddress: string;
  readonly dhcpEnabled: false;
  readonly ipv4: readonly Ipv4AddressView[];
  readonly ipv6: readonly Ipv6AddressView[];
  /** Next hop of the interface's IPv4 default route. */
  readonly defaultGateway?: string;
  /** Next hop of the interface's IPv6 default route. */
  readonly ipv6DefaultGateway?: string;
  readonly dnsServers: readonly string[];
  /** `Dns.Domain`, else the first of `Dns.Search`, else ''. */
  readonly connectionSpecificSuffix: string;
  /** The interface's own search list (`Get-DnsClient` ConnectionSpecificSuffixSearchList): `Dns.Search`. */
  readonly suffixSearchList: readonly string[];
  readonly mtu: number;
  readonly interfaceMetric: number;
}

/** A route of the system's table (`Get-NetRoute`): on-link routes have next hop `0.0.0.0` / `::`. */
export interface ContainerRouteView {
  readonly destinationPrefix: string;
  readonly nextHop: string;
  readonly interfaceName: string;
  /** RouteMetric (route print shows it plus the interface's metric). */
  readonly metric: number;
}

export interface ContainerDnsView {
  /** The compartment's DNS suffix search list (`DNS Suffix Search List` of ipconfig). */
  readonly suffixSearchList: readonly string[];
  readonly allowUnqualifiedDnsQuery: boolean;
  /** Every interface's DNS servers, in interface order, without repeats. */
  readonly servers: readonly string[];
}

export interface ContainerNetworkView {
  readonly id: string;
  readonly state: SystemState;
  /** The guest's host name: `Container.GuestOs.HostName` (schema 2), `HostName` (schema 1), else the ID. */
  readonly hostName: string;
  /**
   * The network compartment: the HNS namespace's `NamespaceId` for a process container (or the
   * container whose stack it shares), 1 for a HostProcess container; absent otherwise and when the
   * system is not running.
   */
  readonly compartment?: number;
  /** A HostProcess container: it sees the host's own adapters and routes. */
  readonly hostNetwork: boolean;
  readonly interfaces: readonly ContainerInterfaceView[];
  readonly routes: readonly ContainerRouteView[];
  readonly dns: ContainerDnsView;
}

/** Where a HostProcess container's view comes from: a Host has both. */
export interface HostNetworkSource {
  /** The host's adapters, shaped as Host.adapters() returns them. */
  adapters(): readonly JsonObject[];
  /** The host's IPv4 route table (Host.routes()). */
  routes?(): readonly HostRoute[];
}

export interface ContainerViewOptions {
  /**
   * How container vNICs are named: `endpoint` (default: `vEthernet (<endpoint Name>)`, Windows
   * Server 2019 and later) or `containerNic` (`vEthernet (Container NIC <id8>)`, Windows Server 2016).
   */
  readonly interfaceNames?: 'endpoint' | 'containerNic';
}

// ───────────────────────────── helpers ─────────────────────────────

function child(o: Json | undefined, k: string): Json | undefined {
  return isJsonObject(o) ? o[k] : undefined;
}

function hostNameOf(rec: ComputeSystemRec): string {
  const d = rec.document;
  const candidates: (Json | undefined)[] = [
    child(child(d['Container'], 'GuestOs'), 'HostName'),
    child(child(child(d['HostedSystem'], 'Container'), 'GuestOs'), 'HostName'),
    d['HostName'],
  ];
  const found = candidates.find((c): c is string => typeof c === 'string' && c !== '');
  return found ?? rec.name;
}

function dottedMask(len: number): string {
  return formatIPv4(maskOf(len));
}

function dashMac(text: string): string {
  const n = parseMac(text);
  return n === undefined ? text.toUpperCase() : formatMac(n);
}

function unique(items: Iterable<string>): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const i of items) {
    if (seen.has(i.toLowerCase())) continue;
    seen.add(i.toLowerCase());
    out.push(i);
  }
  return out;
}

/** The on-link prefix of an address: its network address and length, as text. */
function onLinkPrefix(addr: IpAddr, len: number): string {
  const p = parsePrefix(`${formatIp(addr)}/${len}`);
  return p ? formatPrefix(p) : '';
}

/** The interfaces a system sees and the routes on them. */
interface Seen {
  readonly interfaces: ContainerInterfaceView[];
  readonly routes: ContainerRouteView[];
}

/** What one HNS endpoint contributes: an interface (named later) and its routes. */
interface EndpointPart {
  readonly iface: Omit<ContainerInterfaceView, 'name' | 'description'>;
  /** Routes with the interface still unnamed. */
  readonly routes: readonly Omit<ContainerRouteView, 'interfaceName'>[];
}

function endpointPart(hns: HnsService, e: EndpointRec, macOverride?: string): EndpointPart {
  const net = hns.store.networks.get(e.HostComputeNetwork);
  const subnets = net ? subnetsOf(net) : [];
  const ipv4: Ipv4AddressView[] = [];
  const ipv6: Ipv6AddressView[] = [];
  const routes: Omit<ContainerRouteView, 'interfaceName'>[] = [];
  for (const c of e.IpConfigurations) {
    const len =
      c.PrefixLength ??
      subnets.find((s) => prefixContains(s.prefix, c.addr))?.prefix.len ??
      (c.addr.family === 4 ? 32 : 128);
    if (c.addr.family === 4)
      ipv4.push({ address: c.IpAddress, prefixLength: len, subnetMask: dottedMask(len) });
    else ipv6.push({ address: c.IpAddress, prefixLength: len });
    routes.push({
      destinationPrefix: onLinkPrefix(c.addr, len),
      nextHop: c.addr.family === 4 ? '0.0.0.0' : '::',
      metric: DEFAULT_ROUTE_METRIC,
    });
  }
  let gw4: string | undefined;
  let gw6: string | undefined;
  for (const r of e.Routes) {
    const onLink = !r.nextHop || (r.nextHop.family === 4 ? r.nextHop.value === 0 : r.nextHop.value === 0n);
    const nextHop = onLink ? (r.dest.family === 4 ? '0.0.0.0' : '::') : r.NextHop;
    if (r.dest.len === 0 && !onLink) {
      if (r.dest.family === 4) gw4 ??= r.NextHop;
      else gw6 ??= r.NextHop;
    }
    const dest = formatPrefix(r.dest);
    if (routes.some((x) => x.destinationPrefix === dest && x.nextHop === nextHop)) continue;
    routes.push({ destinationPrefix: dest, nextHop, metric: r.Metric ?? DEFAULT_ROUTE_METRIC });
  }
  const { ifIndex, mtu } = endpointInterface(e, net);
  return {
    iface: {
      ifIndex,
      endpointId: e.ID,
      macAddress: dashMac(macOverride || e.MacAddress),
      dhcpEnabled: false,
      ipv4,
      ipv6,
      ...(gw4 ? { defaultGateway: gw4 } : {}),
      ...(gw6 ? { ipv6DefaultGateway: gw6 } : {}),
      dnsServers: [...e.Dns.ServerList],
      connectionSpecificSuffix: e.Dns.Domain || e.Dns.Search[0] || '',
      suffixSearchList: [...e.Dns.Search],
      mtu,
      interfaceMetric: CONTAINER_INTERFACE_METRIC,
    },
    routes,
  };
}

/** Number repeated names (`x`, `x 2`, `x 3`) and descriptions (`d`, `d #2`), as Windows does. */
function named(parts: readonly EndpointPart[], baseName: (i: number) => string, description: string): Seen {
  const taken = new Set<string>();
  const interfaces: ContainerInterfaceView[] = [];
  const routes: ContainerRouteView[] = [];
  parts.forEach((p, i) => {
    const base = baseName(i);
    let name = base;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${base} ${n}`;
    taken.add(name.toLowerCase());
    interfaces.push({ name, description: i === 0 ? description : `${description} #${i + 1}`, ...p.iface });
    for (const r of p.routes) routes.push({ ...r, interfaceName: name });
  });
  return { interfaces, routes };
}

function containerNicName(endpointId: string): string {
  return `vEthernet (Container NIC ${endpointId.slice(0, 8).toLowerCase()})`;
}

/** The endpoints' interfaces of a process container (or of one sharing its stack). */
function containerInterfaces(hcs: HcsService, rec: ComputeSystemRec, options: ContainerViewOptions): Seen {
  const hns = hcs.deps.hns;
  const endpoints = hcs
    .attachedEndpoints(rec)
    .map((id) => hns.store.endpoints.get(id))
    .filter((e): e is EndpointRec => e !== undefined);
  const parts = endpoints.map((e) => endpointPart(hns, e));
  return named(
    parts,
    (i) => {
      const e = endpoints[i]!;
      return options.interfaceNames === 'containerNic' || !e.Name
        ? containerNicName(e.ID)
        : `vEthernet (${e.Name})`;
    },
    CONTAINER_NIC_DESCRIPTION,
  );
}

/** A utility VM's NICs, in hot-add order, as its Windows guest names them. */
function vmInterfaces(hcs: HcsService, vm: ComputeSystemRec): Seen {
  if (!isLive(vm.state)) return { interfaces: [], routes: [] };
  const hns = hcs.deps.hns;
  const parts: EndpointPart[] = [];
  for (const nic of vm.nics) {
    const e = hns.store.endpoints.get(nic.endpointId);
    if (e) parts.push(endpointPart(hns, e, nic.macAddress));
  }
  return named(parts, (i) => (i === 0 ? 'Ethernet' : `Ethernet ${i + 1}`), VM_NIC_DESCRIPTION);
}

function str(o: JsonObject, k: string): string | undefined {
  const v = o[k];
  return typeof v === 'string' ? v : undefined;
}

function num(o: JsonObject, k: string): number | undefined {
  const v = o[k];
  return typeof v === 'number' ? v : undefined;
}

/** The host's adapters and routes, as a HostProcess container sees them. */
function hostInterfaces(host: HostNetworkSource | undefined): Seen {
  if (!host) return { interfaces: [], routes: [] };
  const interfaces: ContainerInterfaceView[] = [];
  const routes: ContainerRouteView[] = [];
  for (const a of host.adapters()) {
    const name = str(a, 'Name') ?? '';
    const ip = str(a, 'IPv4Address');
    const len = num(a, 'PrefixLength') ?? 32;
    const gw = str(a, 'DefaultGateway');
    const endpointId = str(a, 'EndpointId');
    interfaces.push({
      name,
      description: str(a, 'InterfaceDescription') ?? '',
      ifIndex: num(a, 'ifIndex') ?? 0,
      ...(endpointId ? { endpointId } : {}),
      macAddress: dashMac(str(a, 'MacAddress') ?? ''),
      dhcpEnabled: false,
      ipv4: ip ? [{ address: ip, prefixLength: len, subnetMask: dottedMask(len) }] : [],
      ipv6: [],
      ...(gw ? { defaultGateway: gw } : {}),
      dnsServers: [],
      connectionSpecificSuffix: '',
      suffixSearchList: [],
      mtu: num(a, 'MtuSize') ?? 1500,
      interfaceMetric: str(a, 'Kind') === 'Physical' ? PHYSICAL_INTERFACE_METRIC : CONTAINER_INTERFACE_METRIC,
    });
  }
  if (host.routes) {
    for (const r of host.routes())
      routes.push({
        destinationPrefix: `${formatIPv4(r.dest.addr)}/${r.dest.len}`,
        nextHop: formatIPv4(r.nextHop),
        interfaceName: r.iface,
        metric: r.metric,
      });
  } else {
    for (const i of interfaces) {
      for (const a of i.ipv4) {
        const p = parseIp(a.address);
        if (p)
          routes.push({
            destinationPrefix: onLinkPrefix(p, a.prefixLength),
            nextHop: '0.0.0.0',
            interfaceName: i.name,
            metric: DEFAULT_ROUTE_METRIC,
          });
      }
      if (i.defaultGateway)
        routes.push({
          destinationPrefix: '0.0.0.0/0',
          nextHop: i.defaultGateway,
          interfaceName: i.name,
          metric: DEFAULT_ROUTE_METRIC,
        });
    }
  }
  return { interfaces, routes };
}

/** The system whose network stack `rec` uses: itself, or the one named by NetworkSharedContainerName. */
function stackOwner(hcs: HcsService, rec: ComputeSystemRec): ComputeSystemRec | undefined {
  const seen = new Set<string>();
  let cur: ComputeSystemRec | undefined = rec;
  while (cur?.networking.sharedContainerName) {
    if (seen.has(cur.id.toLowerCase())) return undefined;
    seen.add(cur.id.toLowerCase());
    cur = hcs.find(cur.networking.sharedContainerName);
    if (cur && !isLive(cur.state)) return undefined;
  }
  return cur;
}

// ───────────────────────────── the view ─────────────────────────────

/**
 * What system `id` sees: its interfaces, routes and DNS settings, from the HNS endpoints of its
 * compartment (process containers), its NICs (utility VMs) or its VM's NICs (hosted containers), or
 * the host's adapters (`host`, for HostProcess containers). A system that is not Running or Paused
 * sees nothing. An unknown ID is HCS_E_SYSTEM_NOT_FOUND.
 */
export function containerView(
  hcs: HcsService,
  id: string,
  host?: HostNetworkSource,
  options: ContainerViewOptions = {},
): ContainerNetworkView {
  const rec = hcs.get(id);
  const base = {
    id: rec.id,
    state: rec.state,
    hostName: hostNameOf(rec),
    hostNetwork: rec.isolation === 'HostProcess',
  };
  const nothing: ContainerNetworkView = {
    ...base,
    interfaces: [],
    routes: [],
    dns: {
      suffixSearchList: [],
      allowUnqualifiedDnsQuery: rec.networking.allowUnqualifiedDnsQuery,
      servers: [],
    },
  };
  if (!isLive(rec.state)) return nothing;
  const owner = stackOwner(hcs, rec);
  if (!owner) return nothing;

  let seen: Seen;
  let compartment: number | undefined;
  if (owner.isolation === 'HostProcess') {
    seen = hostInterfaces(host);
    compartment = DEFAULT_COMPARTMENT;
  } else if (owner.systemType === 'VirtualMachine') {
    seen = vmInterfaces(hcs, owner);
  } else if (owner.isolation === 'Hosted') {
    const vm = owner.hostingSystemId ? hcs.find(owner.hostingSystemId) : undefined;
    seen = vm ? vmInterfaces(hcs, vm) : { interfaces: [], routes: [] };
  } else {
    seen = containerInterfaces(hcs, owner, options);
    const ns = owner.networking.namespace;
    const nsRec = ns ? hcs.deps.hns.store.namespaces.get(ns) : undefined;
    if (nsRec) compartment = nsRec.NamespaceId;
  }

  const own = rec.networking.dnsSearchList;
  const shared = owner.networking.dnsSearchList;
  const suffixSearchList = own.length
    ? [...own]
    : shared.length
      ? [...shared]
      : unique(seen.interfaces.flatMap((i) => i.suffixSearchList));
  return {
    ...base,
    ...(compartment !== undefined ? { compartment } : {}),
    interfaces: seen.interfaces,
    routes: seen.routes,
    dns: {
      suffixSearchList,
      allowUnqualifiedDnsQuery: rec.networking.allowUnqualifiedDnsQuery,
      servers: unique(seen.interfaces.flatMap((i) => i.dnsServers)),
    },
  };
}
