/**
 * hnsdiag-like listings of HNS objects (reference kubernetes-windows.md: `hnsdiag list
 * networks|endpoints|namespaces|loadbalancers` is the inspection tool docs and issues use). Input is
 * what the flat API returns (v2 query documents), so a listing shows exactly what a client would
 * read; tables are plain text in PowerShell's Format-Table shape, bold headers only when asked.
 *
 *   console.log(renderListing(collectListing(host.api), ['networks', 'endpoints']));
 */
import type { Json, JsonObject } from '../core/json.js';
import { isJsonObject } from '../core/json.js';
import type { FlatApi, HcnResult } from '../api/flat.js';
import { table, type RenderOptions } from './table.js';

export { table, type RenderOptions } from './table.js';

export const LISTING_KINDS = [
  'networks',
  'endpoints',
  'namespaces',
  'loadbalancers',
  'routes',
  'adapters',
] as const;
export type ListingKind = (typeof LISTING_KINDS)[number];

/** The objects of one host, each as HcnQuery*Properties returns it, in enumeration order. */
export interface HnsListing {
  networks: JsonObject[];
  endpoints: JsonObject[];
  namespaces: JsonObject[];
  loadbalancers: JsonObject[];
  routes: JsonObject[];
  /** The host's network adapters (Host.adapters()), physical then vEthernet. */
  adapters: JsonObject[];
  /** The vSwitches HNS created (Host.switches()), to name an adapter's switch. */
  switches: JsonObject[];
}

/** Where the host-side parts of a listing come from (a Host has both). */
export interface AdapterSource {
  adapters(): JsonObject[];
  switches(): JsonObject[];
}

function ok<T>(r: HcnResult<T>): T | undefined {
  return 'result' in r ? r.result : undefined;
}

/**
 * Enumerate and query every object kind through the flat API (default v2 queries); the adapters
 * and switches come from `host` when given.
 */
export function collectListing(api: FlatApi, host?: AdapterSource): HnsListing {
  const each = (ids: HcnResult<string[]>, query: (id: string) => HcnResult<JsonObject>): JsonObject[] =>
    (ok(ids) ?? []).map((id) => ok(query(id))).filter((o): o is JsonObject => o !== undefined);
  return {
    networks: each(api.HcnEnumerateNetworks(), (id) => api.HcnQueryNetworkProperties(id)),
    endpoints: each(api.HcnEnumerateEndpoints(), (id) => api.HcnQueryEndpointProperties(id)),
    namespaces: each(api.HcnEnumerateNamespaces(), (id) => api.HcnQueryNamespaceProperties(id)),
    loadbalancers: each(api.HcnEnumerateLoadBalancers(), (id) => api.HcnQueryLoadBalancerProperties(id)),
    routes: each(api.HcnEnumerateSdnRoutes(), (id) => api.HcnQuerySdnRouteProperties(id)),
    adapters: host?.adapters() ?? [],
    switches: host?.switches() ?? [],
  };
}

// ───────────────────────────── JSON field helpers ─────────────────────────────

function str(o: JsonObject, key: string): string | undefined {
  const v = o[key];
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

function objs(v: Json | undefined): JsonObject[] {
  return Array.isArray(v) ? v.filter(isJsonObject) : [];
}

function strs(v: Json | undefined): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

const same = (a: string | undefined, b: string | undefined): boolean =>
  a !== undefined && b !== undefined && a.toUpperCase() === b.toUpperCase();

/** IANA protocol numbers HNS uses in policies and load balancers. */
export function protocolName(p: Json | undefined): string {
  switch (p) {
    case 1:
      return 'ICMP';
    case 2:
      return 'IGMP';
    case 6:
      return 'TCP';
    case 17:
      return 'UDP';
    case 58:
      return 'ICMPv6';
    case undefined:
    case null:
      return 'ANY';
    default:
      return String(p);
  }
}

function policyTypes(...lists: (Json | undefined)[]): string {
  const types: string[] = [];
  for (const list of lists) {
    for (const p of objs(list)) {
      const t = str(p, 'Type');
      if (t && !types.includes(t)) types.push(t);
    }
  }
  return types.join(', ');
}

function subnetsOf(net: JsonObject): JsonObject[] {
  return objs(net.Ipams).flatMap((ipam) => objs(ipam.Subnets));
}

/** The next hop of a subnet's default route (0.0.0.0/0 or ::/0): the gateway HNS reserves. */
export function subnetGateway(subnet: JsonObject): string | undefined {
  for (const rt of objs(subnet.Routes)) {
    const dest = str(rt, 'DestinationPrefix');
    if (dest === '0.0.0.0/0' || dest === '::/0') return str(rt, 'NextHop');
  }
  return undefined;
}

/** An endpoint's addresses as `ip/len`, comma-joined. */
export function endpointAddresses(ep: JsonObject): string {
  return objs(ep.IpConfigurations)
    .map((c) => {
      const ip = str(c, 'IpAddress') ?? '';
      const len = str(c, 'PrefixLength');
      return len ? `${ip}/${len}` : ip;
    })
    .join(', ');
}

// ───────────────────────────── tables ─────────────────────────────

const BOLD = '\x1b[1m';
const RESET = '\x1b[0m';

function orDash(s: string | undefined): string {
  return s === undefined || s === '' ? '-' : s;
}

export function renderNetworks(l: HnsListing, opts: RenderOptions = {}): string {
  const rows = l.networks.map((n) => {
    const subnets = subnetsOf(n);
    return [
      orDash(str(n, 'Name')),
      orDash(str(n, 'ID')),
      str(n, 'Type') ?? 'NAT', // HNS omits Type when NAT (enum 0)
      orDash(subnets.map((s) => str(s, 'IpAddressPrefix') ?? '').join(', ')),
      orDash(
        subnets
          .map((s) => subnetGateway(s) ?? '')
          .filter(Boolean)
          .join(', '),
      ),
      orDash(policyTypes(n.Policies, ...subnets.map((s) => s.Policies))),
    ];
  });
  return table(['Name', 'ID', 'Type', 'Subnets', 'Gateway', 'Policies'], rows, opts);
}

export function renderEndpoints(l: HnsListing, opts: RenderOptions = {}): string {
  const rows = l.endpoints.map((e) => {
    const netId = str(e, 'HostComputeNetwork');
    const net = l.networks.find((n) => same(str(n, 'ID'), netId));
    const nsId = str(e, 'HostComputeNamespace');
    return [
      orDash(str(e, 'Name')),
      orDash(str(e, 'ID')),
      orDash(endpointAddresses(e)),
      orDash(str(e, 'MacAddress')),
      orDash(net ? str(net, 'Name') || str(net, 'ID') : netId),
      orDash(nsId),
      orDash(policyTypes(e.Policies)),
    ];
  });
  return table(['Name', 'ID', 'IP Address', 'MAC Address', 'Network', 'Namespace', 'Policies'], rows, opts);
}

function endpointLabel(l: HnsListing, id: string): string {
  const ep = l.endpoints.find((e) => same(str(e, 'ID'), id));
  if (!ep) return id;
  return str(ep, 'Name') || str(ep, 'ID') || id;
}

export function renderNamespaces(l: HnsListing, opts: RenderOptions = {}): string {
  const rows = l.namespaces.map((ns) => {
    const resources = objs(ns.Resources).map((r) => {
      const data = isJsonObject(r.Data) ? r.Data : {};
      const id = str(data, 'ID') ?? str(data, 'Id') ?? '?';
      return str(r, 'Type') === 'Endpoint' ? endpointLabel(l, id) : `${str(r, 'Type') ?? '?'} ${id}`;
    });
    return [
      orDash(str(ns, 'ID')),
      orDash(str(ns, 'NamespaceId')),
      orDash(str(ns, 'Type')),
      orDash(resources.join(', ')),
    ];
  });
  return table(['ID', 'Compartment', 'Type', 'Endpoints'], rows, opts);
}

export function renderLoadBalancers(l: HnsListing, opts: RenderOptions = {}): string {
  const rows = l.loadbalancers.map((lb) => {
    const ports = objs(lb.PortMappings).map(
      (pm) =>
        `${protocolName(pm.Protocol)} ${str(pm, 'ExternalPort') ?? '0'}->${str(pm, 'InternalPort') ?? '0'}`,
    );
    const flags = typeof lb.Flags === 'number' ? lb.Flags : 0;
    const flagNames = [flags & 1 ? 'DSR' : '', flags & 2 ? 'IPv6' : ''].filter(Boolean);
    return [
      orDash(str(lb, 'ID')),
      orDash(strs(lb.FrontendVIPs).join(', ')),
      orDash(ports.join(', ')),
      orDash(
        strs(lb.HostComputeEndpoints)
          .map((id) => endpointLabel(l, id))
          .join(', '),
      ),
      orDash(str(lb, 'SourceVIP')),
      orDash(flagNames.join(', ')),
    ];
  });
  return table(['ID', 'Frontend VIPs', 'Ports', 'Backends', 'Source VIP', 'Flags'], rows, opts);
}

export function renderRoutes(l: HnsListing, opts: RenderOptions = {}): string {
  const rows = l.routes.flatMap((rt) => {
    const settings = objs(rt.Setting ?? rt.Routes);
    const eps = orDash(
      strs(rt.HostComputeEndpoints)
        .map((id) => endpointLabel(l, id))
        .join(', '),
    );
    const id = orDash(str(rt, 'ID'));
    if (settings.length === 0) return [[id, '-', '-', '-', eps]];
    return settings.map((s) => [
      id,
      orDash(str(s, 'DestinationPrefix')),
      orDash(str(s, 'NextHop')),
      s.NeedEncap === true ? 'yes' : 'no',
      eps,
    ]);
  });
  return table(['ID', 'Destination', 'Next Hop', 'Encap', 'Endpoints'], rows, opts);
}

/** `Get-NetAdapter` with each adapter's IPv4 configuration and the vSwitch it belongs to. */
export function renderAdapters(l: HnsListing, opts: RenderOptions = {}): string {
  const rows = l.adapters.map((a) => {
    const swId = str(a, 'VSwitchId');
    const sw = l.switches.find((s) => same(str(s, 'ID'), swId));
    const ip = str(a, 'IPv4Address');
    const len = str(a, 'PrefixLength');
    return [
      orDash(str(a, 'Name')),
      orDash(str(a, 'ifIndex')),
      str(a, 'Kind') === 'HostVNic' ? 'host vNIC' : 'physical',
      orDash(str(a, 'MacAddress')),
      ip ? `${ip}/${len ?? '?'}` : '-',
      orDash(str(a, 'DefaultGateway')),
      sw ? `${str(sw, 'Name') ?? '?'} (${str(sw, 'SwitchType') ?? '?'})` : '-',
    ];
  });
  return table(['Name', 'ifIndex', 'Kind', 'MAC Address', 'IPv4 Address', 'Gateway', 'vSwitch'], rows, opts);
}

const RENDERERS: Readonly<Record<ListingKind, { title: string; render: typeof renderNetworks }>> = {
  networks: { title: 'Networks', render: renderNetworks },
  endpoints: { title: 'Endpoints', render: renderEndpoints },
  namespaces: { title: 'Namespaces', render: renderNamespaces },
  loadbalancers: { title: 'Load balancers', render: renderLoadBalancers },
  routes: { title: 'SDN routes', render: renderRoutes },
  adapters: { title: 'Host adapters', render: renderAdapters },
};

/** Several sections, each titled with its kind and count, separated by a blank line. */
export function renderListing(
  l: HnsListing,
  kinds: readonly ListingKind[] = LISTING_KINDS,
  opts: RenderOptions = {},
): string {
  return kinds
    .map((k) => {
      const { title, render } = RENDERERS[k];
      const head = `${title} (${l[k].length})`;
      return `${opts.color ? BOLD + head + RESET : head}\n${render(l, opts)}`;
    })
    .join('\n\n');
}

/** The listing restricted to `kinds`, as a JSON document (`--format json`). */
export function listingJson(l: HnsListing, kinds: readonly ListingKind[] = LISTING_KINDS): JsonObject {
  const out: JsonObject = {};
  for (const k of kinds) out[k] = l[k];
  return out;
}
