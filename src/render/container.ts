/**
 * What a container sees, printed as the Windows tools inside it print it (reference
 * kubernetes-windows.md §1.1, vfp-dataplane.md §7): `ipconfig /all`, `route print` and
 * `Get-DnsClient`, from a ContainerNetworkView (src/hcs/view.ts).
 *
 *   console.log(renderIpconfigAll(containerView(host.hcs, 'pod-a')));
 *
 * Layouts follow output quoted upstream:
 * - ipconfig /all inside containers: microsoft/navcontainerhelper#1042 and an ltsc2022 nanoserver
 *   session (`Hyper-V Virtual Ethernet Container Adapter`, `NetBIOS over Tcpip. . . : Disabled`, the
 *   `Connection-specific DNS Suffix Search List :` line with its values below), a flannel pod in
 *   kubernetes-sigs/sig-windows-tools#340 (a three-entry `DNS Suffix Search List`), hosts in
 *   docksal/docksal#1352 and docker/for-win#7179 (`Default Gateway` listing the IPv6 gateway first,
 *   continuation values at column 39). Labels are the fixed strings ipconfig prints, dotted leader
 *   included; the value starts at column 39. Lines are right-trimmed (ipconfig leaves a space after
 *   an empty value's colon). Link-local IPv6 addresses are not modelled, so not shown.
 * - route print inside a process container: microsoft/Windows-Containers#386 (loopback and
 *   container vNIC in the Interface List, the subnet, host, broadcast, multicast and limited
 *   broadcast routes, metric 5256 = interface 5000 + route 256); columns from docker/for-win#12297
 *   and microsoft/WSL#5068 (five right-aligned columns of 17, 17, 17, 17 and 7 characters, `On-link`
 *   carrying a trailing space); the IPv6 table's ` If Metric Network Destination      Gateway` rows,
 *   a destination longer than 24 characters pushing its gateway to the next line at column 36, as in
 *   the many route print dumps quoted in public write-ups. Routes sort by destination, prefix length,
 *   then interface index (loopback first). The loopback is `Software Loopback Interface 1` with
 *   interface metric 75 (route metric 331); a container compartment's own loopback number
 *   (Windows-Containers#386 shows `2`, index 18) is not modelled.
 * - Get-DnsClient: Windows PowerShell's fixed-width table (InterfaceAlias 28, Interface Index 9
 *   right-aligned, ConnectionSpecificSuffix 24, ConnectionSpecificSuffixSearchList 24,
 *   RegisterThisConnectionsAddress 16, UseSuffixWhenRegistering 13; headers wrapped at the column
 *   width: `RegisterThisConn` / `ectionsAddress`), as quoted in public scripts (a ZeroTier suffix
 *   script's `Get-DnsClient` dump); cells wider than their column end in `...` (Windows PowerShell
 *   5.1; PowerShell 7 uses `…`). `{ autoSize: true }` gives `Get-DnsClient | Format-Table -AutoSize`.
 */
import { formatIPv4, formatPrefix, parseIp, parsePrefix, prefixLast } from '../addr/ip.js';
import { parseMac } from '../addr/mac.js';
import { maskOf } from '../vswitch/v4.js';
import { DEFAULT_ROUTE_METRIC, type ContainerInterfaceView, type ContainerNetworkView } from '../hcs/view.js';

const LOOPBACK = {
  ifIndex: 1,
  description: 'Software Loopback Interface 1',
  alias: 'Loopback Pseudo-Interface 1',
  address: '127.0.0.1',
  interfaceMetric: 75,
} as const;

// ───────────────────────────── ipconfig /all ─────────────────────────────

/** ipconfig's labels, dotted leader and colon included (the value follows at column 39). */
const L = {
  hostName: 'Host Name . . . . . . . . . . . . :',
  primarySuffix: 'Primary Dns Suffix  . . . . . . . :',
  nodeType: 'Node Type . . . . . . . . . . . . :',
  ipRouting: 'IP Routing Enabled. . . . . . . . :',
  winsProxy: 'WINS Proxy Enabled. . . . . . . . :',
  searchList: 'DNS Suffix Search List. . . . . . :',
  connSuffix: 'Connection-specific DNS Suffix  . :',
  description: 'Description . . . . . . . . . . . :',
  physical: 'Physical Address. . . . . . . . . :',
  dhcp: 'DHCP Enabled. . . . . . . . . . . :',
  autoconf: 'Autoconfiguration Enabled . . . . :',
  ipv6: 'IPv6 Address. . . . . . . . . . . :',
  ipv4: 'IPv4 Address. . . . . . . . . . . :',
  mask: 'Subnet Mask . . . . . . . . . . . :',
  gateway: 'Default Gateway . . . . . . . . . :',
  dnsServers: 'DNS Servers . . . . . . . . . . . :',
  netbios: 'NetBIOS over Tcpip. . . . . . . . :',
  connSearchList: 'Connection-specific DNS Suffix Search List :',
} as const;

export const IPCONFIG_LABELS: Readonly<Record<keyof typeof L, string>> = L;

const INDENT = '   ';
/** Continuation values line up under the first value: column 39. */
const CONTINUATION = ' '.repeat(39);

/** `   Label . . . : v1` then `v2`, `v3` … on their own lines at column 39. */
function field(label: string, values: readonly string[] | string): string[] {
  const list = typeof values === 'string' ? [values] : values;
  const out = [`${INDENT}${label} ${list[0] ?? ''}`.trimEnd()];
  for (const v of list.slice(1)) out.push(CONTINUATION + v);
  return out;
}

function adapterBlock(i: ContainerInterfaceView): string[] {
  const out = [`Ethernet adapter ${i.name}:`, ''];
  out.push(...field(L.connSuffix, i.connectionSpecificSuffix));
  out.push(...field(L.description, i.description));
  out.push(...field(L.physical, i.macAddress));
  out.push(...field(L.dhcp, i.dhcpEnabled ? 'Yes' : 'No'));
  out.push(...field(L.autoconf, 'Yes'));
  for (const a of i.ipv6) out.push(...field(L.ipv6, `${a.address}(Preferred)`));
  for (const a of i.ipv4) {
    out.push(...field(L.ipv4, `${a.address}(Preferred)`));
    out.push(...field(L.mask, a.subnetMask));
  }
  const gateways = [i.ipv6DefaultGateway, i.defaultGateway].filter((g): g is string => !!g);
  out.push(...field(L.gateway, gateways));
  out.push(...field(L.dnsServers, i.dnsServers));
  out.push(...field(L.netbios, 'Disabled'));
  if (i.suffixSearchList.length) {
    out.push(INDENT + L.connSearchList);
    for (const s of i.suffixSearchList) out.push(CONTINUATION + s);
  }
  return out;
}

/** `ipconfig /all` inside the system: the compartment's settings, then one block per adapter. */
export function renderIpconfigAll(view: ContainerNetworkView): string {
  const out = ['Windows IP Configuration', ''];
  out.push(...field(L.hostName, view.hostName));
  out.push(...field(L.primarySuffix, ''));
  out.push(...field(L.nodeType, 'Hybrid'));
  out.push(...field(L.ipRouting, 'No'));
  out.push(...field(L.winsProxy, 'No'));
  if (view.dns.suffixSearchList.length) out.push(...field(L.searchList, view.dns.suffixSearchList));
  for (const i of view.interfaces) out.push('', ...adapterBlock(i));
  return out.join('\n');
}

// ───────────────────────────── route print ─────────────────────────────

const RULE = '='.repeat(75);

interface PrintRoute {
  readonly family: 4 | 6;
  /** Network address and prefix length, for sorting. */
  readonly addr: bigint;
  readonly len: number;
  readonly dest: string;
  readonly mask: string;
  readonly gateway: string;
  readonly ifIndex: number;
  readonly ifAddress: string;
  readonly metric: number;
}

function macBytes(mac: string): string {
  const n = parseMac(mac);
  if (n === undefined) return mac;
  return Array.from({ length: 6 }, (_, k) =>
    (Math.floor(n / 2 ** (8 * (5 - k))) % 256).toString(16).padStart(2, '0'),
  ).join(' ');
}

/** A route of `family` as route print lists it, or undefined when it is of the other family. */
function printRoute(
  family: 4 | 6,
  destinationPrefix: string,
  nextHop: string,
  iface: { readonly ifIndex: number; readonly interfaceMetric: number; readonly ifAddress?: string },
  metric: number,
): PrintRoute | undefined {
  const p = parsePrefix(destinationPrefix);
  if (!p || p.family !== family) return undefined;
  const gw = parseIp(nextHop);
  const onLink = !gw || gw.value === 0 || gw.value === 0n;
  if (family === 4 && !iface.ifAddress) return undefined;
  return {
    family,
    addr: BigInt(p.addr),
    len: p.len,
    dest: p.family === 4 ? formatIPv4(p.addr) : formatPrefix(p),
    mask: family === 4 ? formatIPv4(maskOf(p.len)) : '',
    gateway: onLink ? 'On-link' : nextHop,
    ifIndex: iface.ifIndex,
    ifAddress: iface.ifAddress ?? '',
    metric: metric + iface.interfaceMetric,
  };
}

function sortRoutes(routes: PrintRoute[]): PrintRoute[] {
  return routes.sort((a, b) =>
    a.addr !== b.addr
      ? a.addr < b.addr
        ? -1
        : 1
      : a.len - b.len || a.ifIndex - b.ifIndex || a.metric - b.metric,
  );
}

/** The routes Windows adds for the loopback, each address, and multicast/broadcast on each interface. */
function tableOf(view: ContainerNetworkView, family: 4 | 6): PrintRoute[] {
  const out: PrintRoute[] = [];
  const add = (r: PrintRoute | undefined) => {
    if (
      r &&
      !out.some(
        (x) => x.dest === r.dest && x.len === r.len && x.ifIndex === r.ifIndex && x.gateway === r.gateway,
      )
    )
      out.push(r);
  };
  const lo = {
    ifIndex: LOOPBACK.ifIndex,
    interfaceMetric: LOOPBACK.interfaceMetric,
    ifAddress: LOOPBACK.address,
  };
  const m = DEFAULT_ROUTE_METRIC;
  if (family === 4) {
    for (const d of [
      '127.0.0.0/8',
      '127.0.0.1/32',
      '127.255.255.255/32',
      '224.0.0.0/4',
      '255.255.255.255/32',
    ])
      add(printRoute(4, d, '0.0.0.0', lo, m));
  } else {
    for (const d of ['::1/128', 'ff00::/8']) add(printRoute(6, d, '::', lo, m));
  }
  for (const i of view.interfaces) {
    const ref = { ifIndex: i.ifIndex, interfaceMetric: i.interfaceMetric, ifAddress: i.ipv4[0]?.address };
    for (const r of view.routes)
      if (r.interfaceName === i.name) add(printRoute(family, r.destinationPrefix, r.nextHop, ref, r.metric));
    if (family === 4) {
      if (!i.ipv4.length) continue;
      for (const a of i.ipv4) {
        add(printRoute(4, `${a.address}/32`, '0.0.0.0', ref, m));
        const p = parsePrefix(`${a.address}/${a.prefixLength}`);
        if (p && p.len < 31)
          add(printRoute(4, `${formatIPv4(prefixLast(p).value as number)}/32`, '0.0.0.0', ref, m));
      }
      add(printRoute(4, '224.0.0.0/4', '0.0.0.0', ref, m));
      add(printRoute(4, '255.255.255.255/32', '0.0.0.0', ref, m));
    } else {
      if (!i.ipv6.length) continue;
      for (const a of i.ipv6) add(printRoute(6, `${a.address}/128`, '::', ref, m));
      add(printRoute(6, 'ff00::/8', '::', ref, m));
    }
  }
  return sortRoutes(out);
}

function v4Row(r: PrintRoute): string {
  // route print's `On-link` carries a trailing space inside its 17-character column
  const gw = r.gateway === 'On-link' ? 'On-link ' : r.gateway;
  return (
    r.dest.padStart(17) +
    r.mask.padStart(17) +
    gw.padStart(17) +
    r.ifAddress.padStart(17) +
    String(r.metric).padStart(7)
  );
}

function v6Rows(r: PrintRoute): string[] {
  const head = `${String(r.ifIndex).padStart(3)} ${String(r.metric).padStart(6)} `;
  if (r.dest.length > 24) return [head + r.dest, ' '.repeat(36) + r.gateway];
  return [head + r.dest.padEnd(24) + ' ' + r.gateway];
}

/** `route print` inside the system: Interface List, IPv4 Route Table, IPv6 Route Table. */
export function renderRoutePrint(view: ContainerNetworkView): string {
  const out = [RULE, 'Interface List'];
  for (const i of view.interfaces)
    out.push(`${String(i.ifIndex).padStart(3)}...${macBytes(i.macAddress)} ......${i.description}`);
  out.push(`${String(LOOPBACK.ifIndex).padStart(3)}${'.'.repeat(27)}${LOOPBACK.description}`);
  out.push(RULE, '', 'IPv4 Route Table', RULE, 'Active Routes:');
  out.push('Network Destination        Netmask          Gateway       Interface  Metric');
  for (const r of tableOf(view, 4)) out.push(v4Row(r));
  out.push(RULE, 'Persistent Routes:', '  None', '', 'IPv6 Route Table', RULE, 'Active Routes:');
  out.push(' If Metric Network Destination      Gateway');
  for (const r of tableOf(view, 6)) out.push(...v6Rows(r));
  out.push(RULE, 'Persistent Routes:', '  None');
  return out.join('\n');
}

// ───────────────────────────── Get-DnsClient ─────────────────────────────

/** Column headers of Get-DnsClient's table view and their widths in Windows PowerShell. */
const DNS_COLUMNS = [
  { header: 'InterfaceAlias', width: 28, right: false },
  { header: 'InterfaceIndex', width: 9, right: true },
  { header: 'ConnectionSpecificSuffix', width: 24, right: false },
  { header: 'ConnectionSpecificSuffixSearchList', width: 24, right: false },
  { header: 'RegisterThisConnectionsAddress', width: 16, right: false },
  { header: 'UseSuffixWhenRegistering', width: 13, right: false },
] as const;

function fit(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, Math.max(0, width - 3))}...` : text;
}

export interface GetDnsClientOptions {
  /** `Get-DnsClient | Format-Table -AutoSize`: columns as wide as their content, nothing cut. */
  readonly autoSize?: boolean;
}

/**
 * `Get-DnsClient` inside the system: one row per interface (then the loopback) with its
 * connection-specific suffix and search list; registration is on, suffix registration off (the
 * Windows defaults; HNS sets neither).
 */
export function renderGetDnsClient(view: ContainerNetworkView, opts: GetDnsClientOptions = {}): string {
  const rows: string[][] = view.interfaces.map((i) => [
    i.name,
    String(i.ifIndex),
    i.connectionSpecificSuffix,
    `{${i.suffixSearchList.join(', ')}}`,
    'True',
    'False',
  ]);
  rows.push([LOOPBACK.alias, String(LOOPBACK.ifIndex), '', '{}', 'True', 'False']);
  const widths = DNS_COLUMNS.map((c, k) =>
    opts.autoSize ? Math.max(c.header.length, ...rows.map((r) => r[k]!.length)) : c.width,
  );
  const cell = (text: string, k: number) => {
    const t = fit(text, widths[k]!);
    return DNS_COLUMNS[k]!.right ? t.padStart(widths[k]!) : t.padEnd(widths[k]!);
  };
  const line = (cells: readonly string[]) => cells.map(cell).join(' ').trimEnd();
  // headers are left-aligned; one wider than its column wraps onto a second line at the width
  const head = (cells: readonly string[]) =>
    cells
      .map((c, k) => c.padEnd(widths[k]!))
      .join(' ')
      .trimEnd();
  const head1 = DNS_COLUMNS.map((c, k) => c.header.slice(0, widths[k]));
  const head2 = DNS_COLUMNS.map((c, k) => c.header.slice(widths[k]));
  const out = [head(head1)];
  if (head2.some((h) => h !== '')) out.push(head(head2));
  out.push(head(head1.map((h) => '-'.repeat(h.length))));
  for (const r of rows) out.push(line(r));
  return out.join('\n');
}
