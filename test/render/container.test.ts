/**
 * renderIpconfigAll / renderRoutePrint / renderGetDnsClient (src/render/container.ts): the text of
 * `ipconfig /all`, `route print` and `Get-DnsClient` inside a container. The expected lines follow
 * output quoted upstream: ipconfig inside containers (microsoft/navcontainerhelper#1042,
 * kubernetes-sigs/sig-windows-tools#340: labels with dotted leaders, values at column 39,
 * `NetBIOS over Tcpip. . . : Disabled`, the search list continued on its own lines), route print
 * inside a container (microsoft/Windows-Containers#386: `0.0.0.0 0.0.0.0 <gw> <ip> 5256`, the
 * `On-link` rows), and Get-DnsClient's fixed-width table with wrapped headers. Values come from the
 * HNS documents the test creates.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import { containerView } from '../../src/hcs/view.js';
import { createHost, type Host } from '../../src/host/host.js';
import {
  IPCONFIG_LABELS,
  renderGetDnsClient,
  renderIpconfigAll,
  renderRoutePrint,
} from '../../src/render/container.js';
import { addToNamespace, ok } from '../api/hcs-helpers.js';

const SCHEMA = { Major: 2, Minor: 0 };

interface Pod {
  readonly host: Host;
  readonly ep: JsonObject;
}

/** One pod on a dual-stack NAT network: IPv4 + IPv6 addresses and gateways, DNS search list. */
function pod(search: string[] = ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local']): Pod {
  const host = createHost({ seed: 9, profile: 'ws2022' });
  const net = ok(
    host.api.HcnCreateNetwork(null, {
      Name: 'nat',
      Type: 'NAT',
      Ipams: [
        {
          Type: 'Static',
          Subnets: [
            {
              IpAddressPrefix: '10.244.1.0/24',
              Routes: [{ NextHop: '10.244.1.1', DestinationPrefix: '0.0.0.0/0' }],
            },
            {
              IpAddressPrefix: 'fd00:10:244:1::/64',
              Routes: [{ NextHop: 'fd00:10:244:1::1', DestinationPrefix: '::/0' }],
            },
          ],
        },
      ],
      SchemaVersion: SCHEMA,
    }),
  );
  const ep = ok(
    host.api.HcnCreateEndpoint(net.ID, null, {
      Name: 'pod-a_nat',
      IpConfigurations: [
        { IpAddress: '10.244.1.5', PrefixLength: 24 },
        { IpAddress: 'fd00:10:244:1::abcd:5', PrefixLength: 64 },
      ],
      Routes: [
        { NextHop: '10.244.1.1', DestinationPrefix: '0.0.0.0/0' },
        { NextHop: 'fd00:10:244:1::1', DestinationPrefix: '::/0' },
      ],
      Dns: { Search: search, ServerList: ['10.96.0.10', '10.96.0.11'] },
      SchemaVersion: SCHEMA,
    }),
  );
  const ns = ok(host.api.HcnCreateNamespace(null, { SchemaVersion: SCHEMA }));
  addToNamespace(host, ns.ID, ep.ID);
  host.hcs.create('pod-a', {
    SchemaVersion: { Major: 2, Minor: 1 },
    Owner: 'test',
    Container: { GuestOs: { HostName: 'win-webserver-1' }, Networking: { Namespace: ns.ID } },
  });
  host.hcs.start('pod-a');
  return { host, ep: ok(host.api.HcnQueryEndpointProperties(ep.ID)) };
}

/** The value column of ipconfig: label at column 3, colon at column 37, value at column 39. */
function line(label: string, value: string): string {
  return `   ${label} ${value}`.trimEnd();
}

describe('ipconfig /all', () => {
  it('every label puts its colon at column 37', () => {
    for (const [k, label] of Object.entries(IPCONFIG_LABELS)) {
      if (k === 'connSearchList') continue; // the one label whose values start on the next line
      expect(`   ${label}`.indexOf(':', 3), label).toBe(37);
    }
  });

  it('prints the compartment settings and the adapter block with the endpoint’s values', () => {
    const { host, ep } = pod();
    const text = renderIpconfigAll(containerView(host.hcs, 'pod-a'));
    const lines = text.split('\n');
    const dns = ep.Dns as JsonObject;
    const [v4, v6] = ep.IpConfigurations as JsonObject[];
    const [r4, r6] = ep.Routes as JsonObject[];
    const search = dns.Search as string[];
    const servers = dns.ServerList as string[];
    const at = (l: string) => lines.indexOf(l);

    expect(lines[0]).toBe('Windows IP Configuration');
    expect(lines).toContain(line(IPCONFIG_LABELS.hostName, 'win-webserver-1'));
    expect(lines).toContain('   Primary Dns Suffix  . . . . . . . :');
    expect(lines).toContain('   Node Type . . . . . . . . . . . . : Hybrid');
    const searchAt = at(`   DNS Suffix Search List. . . . . . : ${search[0]!}`);
    expect(searchAt).toBeGreaterThan(0);
    expect(lines.slice(searchAt + 1, searchAt + search.length)).toEqual(
      search.slice(1).map((s) => ' '.repeat(39) + s),
    );

    expect(lines).toContain(`Ethernet adapter vEthernet (${ep.Name as string}):`);
    expect(lines).toContain(`   Connection-specific DNS Suffix  . : ${search[0]!}`);
    expect(lines).toContain(
      '   Description . . . . . . . . . . . : Hyper-V Virtual Ethernet Container Adapter',
    );
    expect(lines).toContain(`   Physical Address. . . . . . . . . : ${ep.MacAddress as string}`);
    expect(lines).toContain('   DHCP Enabled. . . . . . . . . . . : No');
    expect(lines).toContain(`   IPv6 Address. . . . . . . . . . . : ${v6!.IpAddress as string}(Preferred)`);
    expect(lines).toContain(`   IPv4 Address. . . . . . . . . . . : ${v4!.IpAddress as string}(Preferred)`);
    expect(lines).toContain('   Subnet Mask . . . . . . . . . . . : 255.255.255.0');
    // the IPv6 gateway first, the IPv4 one on the next line (docker/for-win#7179)
    const gwAt = at(`   Default Gateway . . . . . . . . . : ${r6!.NextHop as string}`);
    expect(lines[gwAt + 1]).toBe(' '.repeat(39) + (r4!.NextHop as string));
    const dnsAt = at(`   DNS Servers . . . . . . . . . . . : ${servers[0]!}`);
    expect(lines[dnsAt + 1]).toBe(' '.repeat(39) + servers[1]!);
    expect(lines).toContain('   NetBIOS over Tcpip. . . . . . . . : Disabled');
    const connAt = at('   Connection-specific DNS Suffix Search List :');
    expect(lines.slice(connAt + 1)).toEqual(search.map((s) => ' '.repeat(39) + s));
  });

  it('a stopped container prints only the compartment header', () => {
    const { host } = pod();
    host.hcs.terminate('pod-a');
    const text = renderIpconfigAll(containerView(host.hcs, 'pod-a'));
    expect(text).not.toContain('Ethernet adapter');
    expect(text).not.toContain('DNS Suffix Search List');
    expect(text.split('\n')).toContain('   Host Name . . . . . . . . . . . . : win-webserver-1');
  });
});

describe('route print', () => {
  it('lists the interface, the loopback and the IPv4/IPv6 routes in route print’s columns', () => {
    const { host, ep } = pod();
    const view = containerView(host.hcs, 'pod-a');
    const nic = view.interfaces[0]!;
    const lines = renderRoutePrint(view).split('\n');
    const ip = (ep.IpConfigurations as JsonObject[])[0]!.IpAddress as string;
    const gw = (ep.Routes as JsonObject[])[0]!.NextHop as string;
    const mac = (ep.MacAddress as string).toLowerCase().split('-').join(' ');

    expect(lines[0]).toBe('='.repeat(75));
    expect(lines[1]).toBe('Interface List');
    expect(lines).toContain(
      `${String(nic.ifIndex).padStart(3)}...${mac} ......Hyper-V Virtual Ethernet Container Adapter`,
    );
    expect(lines).toContain('  1...........................Software Loopback Interface 1');
    expect(lines).toContain('IPv4 Route Table');
    expect(lines).toContain('Network Destination        Netmask          Gateway       Interface  Metric');
    const row = (...cells: string[]) =>
      cells
        .slice(0, 4)
        .map((c) => c.padStart(17))
        .join('') + cells[4]!.padStart(7);
    // metric = route 256 + container interface 5000 (Windows-Containers#386)
    expect(lines).toContain(row('0.0.0.0', '0.0.0.0', gw, ip, '5256'));
    expect(lines).toContain(row('10.244.1.0', '255.255.255.0', 'On-link ', ip, '5256'));
    expect(lines).toContain(row(ip, '255.255.255.255', 'On-link ', ip, '5256'));
    expect(lines).toContain(row('10.244.1.255', '255.255.255.255', 'On-link ', ip, '5256'));
    expect(lines).toContain(row('127.0.0.0', '255.0.0.0', 'On-link ', '127.0.0.1', '331'));
    // sorted by destination; loopback before the container NIC for the same destination
    const v4 = lines.slice(
      lines.indexOf('Network Destination        Netmask          Gateway       Interface  Metric') + 1,
    );
    expect(v4[0]!.trim().startsWith('0.0.0.0')).toBe(true);
    const mcast = v4.filter((l) => l.trim().startsWith('224.0.0.0'));
    expect(mcast.map((l) => l.trim().split(/\s+/)[3])).toEqual(['127.0.0.1', ip]);

    expect(lines).toContain(' If Metric Network Destination      Gateway');
    expect(lines).toContain('  1    331 ::1/128                  On-link');
    const gw6 = (ep.Routes as JsonObject[])[1]!.NextHop as string;
    expect(lines).toContain(`${String(nic.ifIndex).padStart(3)}   5256 ::/0                     ${gw6}`);
    expect(lines).toContain(`${String(nic.ifIndex).padStart(3)}   5256 fd00:10:244:1::/64       On-link`);
    // a destination wider than its column pushes the gateway to the next line, at column 36
    const longAt = lines.indexOf(`${String(nic.ifIndex).padStart(3)}   5256 fd00:10:244:1::abcd:5/128`);
    expect(longAt).toBeGreaterThan(0);
    expect(lines[longAt + 1]).toBe(' '.repeat(36) + 'On-link');
    expect(lines.slice(-3)).toEqual(['='.repeat(75), 'Persistent Routes:', '  None']);
  });

  it('a stopped container has only its loopback routes', () => {
    const { host } = pod();
    host.hcs.terminate('pod-a');
    const text = renderRoutePrint(containerView(host.hcs, 'pod-a'));
    expect(text).not.toContain('10.244.1.');
    expect(text).toContain('        127.0.0.0        255.0.0.0         On-link         127.0.0.1    331');
  });
});

describe('Get-DnsClient', () => {
  it('shows each interface’s suffix and search list in the fixed-width table', () => {
    const { host, ep } = pod(['a.local', 'b.local']);
    const view = containerView(host.hcs, 'pod-a');
    const lines = renderGetDnsClient(view).split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'InterfaceAlias               Interface ConnectionSpecificSuffix ConnectionSpecificSuffix RegisterThisConn UseSuffixWhen',
      '                             Index                              SearchList               ectionsAddress   Registering',
      '--------------               --------- ------------------------ ------------------------ ---------------- -------------',
    ]);
    const alias = `vEthernet (${ep.Name as string})`;
    const idx = String(view.interfaces[0]!.ifIndex);
    expect(lines[3]).toBe(
      `${alias.padEnd(28)} ${idx.padStart(9)} ${'a.local'.padEnd(24)} ${'{a.local, b.local}'.padEnd(24)} ${'True'.padEnd(16)} False`,
    );
    expect(lines[4]).toBe(
      `${'Loopback Pseudo-Interface 1'.padEnd(28)} ${'1'.padStart(9)} ${''.padEnd(24)} ${'{}'.padEnd(24)} ${'True'.padEnd(16)} False`,
    );
  });

  it('cuts long cells with ... like Windows PowerShell; -AutoSize shows them whole', () => {
    const { host, ep } = pod();
    const view = containerView(host.hcs, 'pod-a');
    const search = (ep.Dns as JsonObject).Search as string[];
    const fixed = renderGetDnsClient(view).split('\n')[3]!;
    expect(fixed).toContain('default.svc.cluster.l...');
    expect(fixed).toContain('{default.svc.cluster....');
    const auto = renderGetDnsClient(view, { autoSize: true }).split('\n');
    expect(auto[0]!.split(/\s+/)).toEqual([
      'InterfaceAlias',
      'InterfaceIndex',
      'ConnectionSpecificSuffix',
      'ConnectionSpecificSuffixSearchList',
      'RegisterThisConnectionsAddress',
      'UseSuffixWhenRegistering',
    ]);
    expect(auto[2]).toContain(`{${search.join(', ')}}`);
  });
});
