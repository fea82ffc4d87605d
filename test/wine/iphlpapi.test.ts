/**
 * Issue 15: hnsim's iphlpapi.dll answers the IP Helper API from the simulated node, so a Windows
 * program under Wine sees the node's adapters and routes instead of Linux's (windows-container-
 * networking's tests picked Linux's `lo`; flannel, Calico and win-overlay-style code look for
 * `vEthernet (Ethernet)` or the interface holding an address).
 *
 * - gonet.exe (native/tests/gonet, Go's net package: net.Interfaces, InterfaceByName, Addrs) run
 *   before, with and after networks the test creates on the node between runs, compared with the
 *   node's own Host.adapters() AND with the literals the test chose (names, addresses, MACs, MTUs);
 * - iplayout.exe (native/tests/iplayout.c): the SDK structure sizes and offsets (literals: the
 *   Windows SDK's x64 layout as wireguard-windows tunnel/winipcfg types_test.go pins it for
 *   MIB_IF_ROW2 / MIB_IPFORWARD_ROW2 / IP_ADAPTER_ADDRESSES, IPTypes.h's field list for
 *   IP_ADAPTER_INFO), then GetAdaptersInfo, GetIfTable2 and GetIpForwardTable2 read at those
 *   offsets, the conversions, GetBestRoute2, the documented error codes, a notification;
 * - every export of Wine's own iphlpapi.dll still resolves (forwarded), and a program without a
 *   node gets Wine's answers.
 *
 * Needs Go for gonet.exe (skipped without it unless HNSIM_WINE_REQUIRED=1).
 */
import { beforeAll, expect, it } from 'vitest';
import { createHost, type Host } from '../../src/host/host.js';
import { readPeExports } from '../../src/wine/build.js';
import { wineBuiltinOf } from '../../src/wine/prefix.js';
import { describeWine, keyValues, readyWine, runProgram, serveHost, WINE_REQUIRED, type Sim } from './kit.js';
import { gonetProgram, goVersion, ipPrograms } from './programs.js';

interface GoIface {
  index: number;
  name: string;
  mtu: number;
  hardwareAddr: string;
  flags: string;
  addrs: string[];
}
interface GoReport {
  interfaces: GoIface[];
  error?: string;
  byName: Record<string, { interface?: GoIface; error?: string }>;
  byIP: Record<string, { interface?: GoIface; error?: string }>;
}

/** The node the tests choose: two physical adapters, literal addresses, MACs and MTUs. */
const ADAPTERS = [
  { name: 'Ethernet', ipAddress: '10.0.0.4/24', gateway: '10.0.0.1', macAddress: '00-0D-3A-10-20-30' },
  { name: 'Ethernet 2', ipAddress: '192.168.50.10/24', macAddress: '00-0D-3A-AA-BB-CC', mtu: 9000 },
];

const LOOPBACK: GoIface = {
  index: 1,
  name: 'Loopback Pseudo-Interface 1',
  mtu: -1,
  hardwareAddr: '',
  flags: 'up|loopback|multicast',
  addrs: ['127.0.0.1/8', '::1/128'],
};

/**
 * What Go's net package must show of the node, from Host.adapters() (Get-NetAdapter's view): every
 * adapter but a physical one bound to an external vSwitch (its host vNIC holds its addresses).
 */
function fromNode(host: Host): GoIface[] {
  const out: GoIface[] = [LOOPBACK];
  for (const a of host.adapters()) {
    if (a.Kind === 'Physical' && a.VSwitchId) continue;
    out.push({
      index: a.ifIndex as number,
      name: a.Name as string,
      mtu: a.MtuSize as number,
      hardwareAddr: (a.MacAddress as string).toLowerCase().replace(/-/g, ':'),
      flags: 'up|broadcast|multicast',
      addrs: a.IPv4Address ? [`${a.IPv4Address as string}/${a.PrefixLength as number}`] : [],
    });
  }
  return out;
}

let gonet = '';
let iplayout = '';
const go = goVersion();

async function runGonet(sim: Sim | undefined, args: string[]): Promise<GoReport> {
  const r = await runProgram(gonet, '', { args, ...(sim ? { endpoint: sim.endpoint } : {}) });
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as GoReport;
}

function ok<T>(r: { ok: boolean; result?: unknown; hr?: number }): T {
  expect(r.ok, JSON.stringify(r)).toBe(true);
  return r.result as T;
}

/** An L2Bridge network (binds Ethernet), a NAT network with its gateway, and an endpoint attached to the host. */
function buildNetworks(host: Host): { bridge: string; nat: string; endpoint: string; endpointIp: string } {
  const bridge = ok<{ ID: string }>(
    host.api.HcnCreateNetwork(null, {
      Name: 'cbr0',
      Type: 'L2Bridge',
      Ipams: [
        {
          Subnets: [
            {
              IpAddressPrefix: '10.244.1.0/24',
              Routes: [{ NextHop: '10.244.1.1', DestinationPrefix: '0.0.0.0/0' }],
            },
          ],
        },
      ],
      SchemaVersion: { Major: 2, Minor: 0 },
    }),
  ).ID;
  const nat = ok<{ ID: string }>(
    host.api.HcnCreateNetwork(null, {
      Name: 'nat',
      Type: 'NAT',
      Ipams: [
        {
          Subnets: [
            {
              IpAddressPrefix: '172.20.0.0/16',
              Routes: [{ NextHop: '172.20.0.1', DestinationPrefix: '0.0.0.0/0' }],
            },
          ],
        },
      ],
      SchemaVersion: { Major: 2, Minor: 0 },
    }),
  ).ID;
  const ep = ok<{ ID: string; IpConfigurations: { IpAddress: string }[] }>(
    host.api.HcnCreateEndpoint(nat, null, { Name: 'hostep', SchemaVersion: { Major: 2, Minor: 0 } }),
  );
  const hostDefault = ok<string[]>(host.api.HcnEnumerateNamespaces(''))[0]!;
  ok(
    host.api.HcnModifyNamespace(
      hostDefault,
      JSON.stringify({ ResourceType: 'Endpoint', RequestType: 'Add', Settings: { EndpointId: ep.ID } }),
    ),
  );
  return { bridge, nat, endpoint: ep.ID, endpointIp: ep.IpConfigurations[0]!.IpAddress };
}

describeWine("hnsim's iphlpapi.dll: the node's interfaces and routes (issue 15)", () => {
  beforeAll(async () => {
    await readyWine();
    iplayout = (await ipPrograms()).iplayout;
    if (go) gonet = await gonetProgram();
  }, 600_000);

  it.skipIf(!go && !WINE_REQUIRED)(
    "Go's net package sees the node's adapters and host vNICs, as networks come and go",
    async () => {
      expect(go, 'Go is not installed (Debian: apt-get install golang-go)').toBeDefined();
      const sim = await serveHost(createHost({ seed: 5, adapters: ADAPTERS }));
      try {
        const host = sim.host;
        const args = [
          '-ip',
          '10.0.0.4',
          '-ip',
          '192.168.50.10',
          'Ethernet',
          'vEthernet (Ethernet)',
          'vEthernet (nat)',
        ];
        // before: the two physical adapters, with the test's literals
        const before = await runGonet(sim, args);
        expect(before.error).toBeUndefined();
        expect(before.interfaces).toEqual([
          LOOPBACK,
          {
            index: 4,
            name: 'Ethernet',
            mtu: 1500,
            hardwareAddr: '00:0d:3a:10:20:30',
            flags: 'up|broadcast|multicast',
            addrs: ['10.0.0.4/24'],
          },
          {
            index: 5,
            name: 'Ethernet 2',
            mtu: 9000,
            hardwareAddr: '00:0d:3a:aa:bb:cc',
            flags: 'up|broadcast|multicast',
            addrs: ['192.168.50.10/24'],
          },
        ]);
        expect(before.interfaces).toEqual(fromNode(host));
        expect(before.byIP['10.0.0.4']?.interface?.name).toBe('Ethernet');
        expect(before.byName['vEthernet (Ethernet)']?.error).toContain('no such network interface');

        // with an L2Bridge network, a NAT network and a host-attached endpoint
        const made = buildNetworks(host);
        const during = await runGonet(sim, args);
        expect(during.interfaces).toEqual(fromNode(host));
        const byName = new Map(during.interfaces.map((i) => [i.name, i]));
        expect([...byName.keys()]).toEqual([
          'Loopback Pseudo-Interface 1',
          'Ethernet 2',
          'vEthernet (Ethernet)',
          'vEthernet (nat)',
          'vEthernet (hostep)',
        ]);
        expect(byName.get('vEthernet (Ethernet)')).toMatchObject({
          mtu: 1500,
          hardwareAddr: '00:0d:3a:10:20:30',
          addrs: ['10.0.0.4/24'],
        });
        expect(byName.get('vEthernet (nat)')?.addrs).toEqual(['172.20.0.1/16']);
        expect(byName.get('vEthernet (hostep)')?.addrs).toEqual([`${made.endpointIp}/16`]);
        expect(during.byName['Ethernet']?.error).toContain('no such network interface');
        expect(during.byName['vEthernet (Ethernet)']?.interface?.addrs).toEqual(['10.0.0.4/24']);
        expect(during.byIP['10.0.0.4']?.interface?.name).toBe('vEthernet (Ethernet)');
        expect(during.byIP['192.168.50.10']?.interface?.name).toBe('Ethernet 2');

        // deleted: as before
        ok(host.api.HcnDeleteEndpoint(made.endpoint));
        ok(host.api.HcnDeleteNetwork(made.nat));
        ok(host.api.HcnDeleteNetwork(made.bridge));
        const after = await runGonet(sim, args);
        expect(after).toEqual(before);
      } finally {
        await sim.close();
      }
    },
  );

  it('C callers: the SDK layouts, and GetAdaptersInfo / GetIfTable2 / GetIpForwardTable2 read at them', async () => {
    const sim = await serveHost(createHost({ seed: 5, adapters: ADAPTERS }));
    try {
      const made = buildNetworks(sim.host);
      const r = await runProgram(iplayout, '', { endpoint: sim.endpoint });
      expect(r.exitCode, r.stderr).toBe(0);
      const out = keyValues(r.stdout);
      // the Windows SDK's x64 layouts
      const layout: Record<string, number> = {
        'IP_ADAPTER_INFO.size': 704,
        'IP_ADAPTER_INFO.ComboIndex': 8,
        'IP_ADAPTER_INFO.AdapterName': 12,
        'IP_ADAPTER_INFO.Description': 272,
        'IP_ADAPTER_INFO.AddressLength': 404,
        'IP_ADAPTER_INFO.Address': 408,
        'IP_ADAPTER_INFO.Index': 416,
        'IP_ADAPTER_INFO.Type': 420,
        'IP_ADAPTER_INFO.DhcpEnabled': 424,
        'IP_ADAPTER_INFO.CurrentIpAddress': 432,
        'IP_ADAPTER_INFO.IpAddressList': 440,
        'IP_ADAPTER_INFO.GatewayList': 488,
        'IP_ADAPTER_INFO.DhcpServer': 536,
        'IP_ADAPTER_INFO.HaveWins': 584,
        'IP_ADAPTER_INFO.PrimaryWinsServer': 592,
        'IP_ADAPTER_INFO.SecondaryWinsServer': 640,
        'IP_ADAPTER_INFO.LeaseObtained': 688,
        'IP_ADAPTER_INFO.LeaseExpires': 696,
        'IP_ADDR_STRING.size': 48,
        'MIB_IF_ROW2.size': 1352,
        'MIB_IF_ROW2.InterfaceIndex': 8,
        'MIB_IF_ROW2.InterfaceGuid': 12,
        'MIB_IF_ROW2.Alias': 28,
        'MIB_IF_ROW2.Description': 542,
        'MIB_IF_ROW2.PhysicalAddressLength': 1056,
        'MIB_IF_ROW2.PhysicalAddress': 1060,
        'MIB_IF_ROW2.PermanentPhysicalAddress': 1092,
        'MIB_IF_ROW2.Mtu': 1124,
        'MIB_IF_ROW2.Type': 1128,
        'MIB_IF_ROW2.TunnelType': 1132,
        'MIB_IF_ROW2.MediaType': 1136,
        'MIB_IF_ROW2.PhysicalMediumType': 1140,
        'MIB_IF_ROW2.AccessType': 1144,
        'MIB_IF_ROW2.DirectionType': 1148,
        'MIB_IF_ROW2.InterfaceAndOperStatusFlags': 1152,
        'MIB_IF_ROW2.OperStatus': 1156,
        'MIB_IF_ROW2.AdminStatus': 1160,
        'MIB_IF_ROW2.MediaConnectState': 1164,
        'MIB_IF_ROW2.NetworkGuid': 1168,
        'MIB_IF_ROW2.ConnectionType': 1184,
        'MIB_IF_ROW2.TransmitLinkSpeed': 1192,
        'MIB_IF_ROW2.ReceiveLinkSpeed': 1200,
        'MIB_IF_ROW2.InOctets': 1208,
        'MIB_IF_ROW2.OutQLen': 1344,
        'MIB_IF_TABLE2.size': 1360,
        'MIB_IF_TABLE2.Table': 8,
        'MIB_IPFORWARD_ROW2.size': 104,
        'MIB_IPFORWARD_ROW2.InterfaceIndex': 8,
        'MIB_IPFORWARD_ROW2.DestinationPrefix': 12,
        'MIB_IPFORWARD_ROW2.NextHop': 44,
        'MIB_IPFORWARD_ROW2.SitePrefixLength': 72,
        'MIB_IPFORWARD_ROW2.ValidLifetime': 76,
        'MIB_IPFORWARD_ROW2.PreferredLifetime': 80,
        'MIB_IPFORWARD_ROW2.Metric': 84,
        'MIB_IPFORWARD_ROW2.Protocol': 88,
        'MIB_IPFORWARD_ROW2.Loopback': 92,
        'MIB_IPFORWARD_ROW2.AutoconfigureAddress': 93,
        'MIB_IPFORWARD_ROW2.Publish': 94,
        'MIB_IPFORWARD_ROW2.Immortal': 95,
        'MIB_IPFORWARD_ROW2.Age': 96,
        'MIB_IPFORWARD_ROW2.Origin': 100,
        'MIB_IPFORWARD_TABLE2.size': 112,
        'MIB_IPFORWARD_TABLE2.Table': 8,
        'IP_ADAPTER_ADDRESSES.size': 448,
        'IP_ADAPTER_ADDRESSES.FriendlyName': 72,
        'IP_ADAPTER_ADDRESSES.Mtu': 96,
        'IP_ADAPTER_ADDRESSES.FirstPrefix': 176,
        'IP_ADAPTER_ADDRESSES.FirstGatewayAddress': 208,
        'IP_ADAPTER_ADDRESSES.Luid': 224,
      };
      const got = Object.fromEntries(
        Object.entries(out)
          .filter(([k]) => k.startsWith('layout.'))
          .map(([k, v]) => [k.slice('layout.'.length), Number(v)]),
      );
      expect(got).toEqual(layout);

      // GetAdaptersInfo: the IPv4 adapters but the loopback, read at the SDK offsets
      const adapters = sim.host.adapters();
      const listed = adapters.filter((a) => !(a.Kind === 'Physical' && a.VSwitchId));
      expect(out['info.status']).toBe('0');
      expect(Number(out['info.count'])).toBe(listed.length);
      listed.forEach((a, n) => {
        expect(out[`info.${n}.adapterName`]).toBe(`{${a.InterfaceGuid as string}}`);
        expect(out[`info.${n}.address`]).toBe(a.MacAddress);
        expect(out[`info.${n}.index`]).toBe(String(a.ifIndex));
        expect(out[`info.${n}.type`]).toBe('6'); // MIB_IF_TYPE_ETHERNET
        expect(out[`info.${n}.ipAddress`]).toBe(a.IPv4Address ?? '0.0.0.0');
      });
      const info = (alias: string): number => listed.findIndex((a) => a.Name === alias);
      expect(out[`info.${info('vEthernet (Ethernet)')}.ipMask`]).toBe('255.255.255.0');
      expect(out[`info.${info('vEthernet (Ethernet)')}.gateway`]).toBe('10.0.0.1');
      expect(out[`info.${info('vEthernet (nat)')}.ipAddress`]).toBe('172.20.0.1');
      expect(out[`info.${info('vEthernet (nat)')}.ipMask`]).toBe('255.255.0.0');
      expect(out[`info.${info('vEthernet (hostep)')}.ipAddress`]).toBe(made.endpointIp);

      // GetIfTable2: every interface (the bound physical adapter too), in index order
      expect(out['if2.status']).toBe('0');
      const rows = Number(out['if2.count']);
      expect(rows).toBe(adapters.length + 1);
      const aliases = Array.from({ length: rows }, (_, i) => out[`if2.${i}.alias`]);
      expect(aliases).toEqual([
        'Loopback Pseudo-Interface 1',
        'Ethernet',
        'Ethernet 2',
        'vEthernet (Ethernet)',
        'vEthernet (nat)',
        'vEthernet (hostep)',
      ]);
      for (let i = 0; i < rows; i++) {
        const index = out[`if2.${i}.index`]!;
        const luid = out[`if2.${i}.luid`]!;
        expect(out[`if2.${i}.luidToIndex`]).toBe(`0:${index}`);
        expect(out[`if2.${i}.indexToLuid`]).toBe(`0:${luid}`);
        expect(out[`if2.${i}.luidToAlias`]).toBe(`0:${out[`if2.${i}.alias`]}`);
        expect(out[`if2.${i}.luidToAliasShort`]).toBe('8'); // ERROR_NOT_ENOUGH_MEMORY
        // NET_LUID: IfType in bits 48–63
        expect(BigInt(luid) >> 48n).toBe(BigInt(out[`if2.${i}.type`]!));
        const node = adapters.find((a) => a.Name === out[`if2.${i}.alias`]);
        if (!node) continue; // the loopback
        expect(index).toBe(String(node.ifIndex));
        expect(out[`if2.${i}.mac`]).toBe(node.MacAddress);
        expect(out[`if2.${i}.mtu`]).toBe(String(node.MtuSize));
        expect(out[`if2.${i}.type`]).toBe('6'); // IF_TYPE_ETHERNET_CSMACD
        expect(out[`if2.${i}.operStatus`]).toBe('1'); // IfOperStatusUp
      }
      expect(out['if2.0.type']).toBe('24'); // IF_TYPE_SOFTWARE_LOOPBACK
      expect(out['if2.0.mtu']).toBe('4294967295');
      expect(out[`if2.${aliases.indexOf('Ethernet 2')}.mtu`]).toBe('9000');

      // GetIpForwardTable2: the node's route table, then the loopback's IPv6 route
      const indexOf = new Map(adapters.map((a) => [a.Name as string, String(a.ifIndex)]));
      indexOf.set('Loopback Pseudo-Interface 1', '1');
      const expected = [
        ['127.0.0.0/8', '0.0.0.0', '1'],
        ...sim.host
          .routes()
          .map((rt) => [`${fmt(rt.dest.addr)}/${rt.dest.len}`, fmt(rt.nextHop), indexOf.get(rt.iface)!]),
        ['::1/128', '::', '1'],
      ];
      expect(out['route.status']).toBe('0');
      expect(Number(out['route.count'])).toBe(expected.length);
      expected.forEach(([dest, hop, index], i) => {
        expect([out[`route.${i}.destination`], out[`route.${i}.nextHop`], out[`route.${i}.index`]]).toEqual([
          dest,
          hop,
          index,
        ]);
      });
      const routes = Array.from({ length: expected.length }, (_, i) => out[`route.${i}.destination`]);
      expect(routes).toEqual(
        expect.arrayContaining(['0.0.0.0/0', '10.0.0.0/24', '172.20.0.0/16', '192.168.50.0/24']),
      );
      const dflt = routes.indexOf('0.0.0.0/0');
      expect(out[`route.${dflt}.nextHop`]).toBe('10.0.0.1');
      expect(out[`route.${dflt}.index`]).toBe(indexOf.get('vEthernet (Ethernet)'));
      expect(out[`route.${dflt}.protocol`]).toBe('3'); // MIB_IPPROTO_NETMGMT
      expect(out['route.0.loopback']).toBe('1');

      // the best route out: the default one, from the vNIC's address
      expect(out['best.status']).toBe('0');
      expect(out['best.index']).toBe(indexOf.get('vEthernet (Ethernet)'));
      expect(out['best.source']).toBe('10.0.0.4');
      // the documented codes: ERROR_INVALID_PARAMETER (87), ERROR_FILE_NOT_FOUND (2),
      // ERROR_BUFFER_OVERFLOW (111), ERROR_INVALID_HANDLE (6)
      expect(out['best.nullDestination']).toBe('87');
      expect(out['ifEntry2.unknown']).toBe('2');
      expect(out['indexToLuid.unknown']).toBe('2');
      expect(out['luidToIndex.unknown']).toBe('87');
      expect(out['gaa.badFamily']).toBe('87');
      expect(out['gaa.probe']).toBe('111');
      expect(out['info.probe']).toBe('111');
      // a registration: the initial notification it asked for, no change notification, then cancelled
      expect(out['notify.status']).toBe('0');
      expect([out['notify.calls'], out['notify.type'], out['notify.rowNull']]).toEqual(['1', '3', '1']);
      expect(out['notify.cancel']).toBe('0');
      expect(out['notify.cancelNull']).toBe('6');
    } finally {
      await sim.close();
    }
  });

  it("keeps every export of Wine's own iphlpapi.dll: forwarded to it, or answered from the node", async () => {
    const wine = await readyWine();
    const builtin = wineBuiltinOf(wine.prefix.dir, 'iphlpapi.dll');
    expect(builtin).toBeDefined();
    const names = readPeExports(builtin!);
    expect(names.length).toBeGreaterThan(100);
    const sim = await serveHost(createHost({ seed: 5 }));
    try {
      const r = await runProgram(iplayout, names.join('\n') + '\n', {
        endpoint: sim.endpoint,
        args: ['exports'],
      });
      const out = keyValues(r.stdout);
      expect(out['missing']).toBe('0');
      expect(out['found']).toBe(String(names.length));
      // answered here
      expect(out['module.GetAdaptersAddresses']?.toLowerCase()).toBe('iphlpapi.dll');
      expect(out['module.GetIfTable2']?.toLowerCase()).toBe('iphlpapi.dll');
      // forwarded to Wine's, which answers
      expect(out['module.GetNetworkParams']).toBe('iphlpapi_wine.dll');
      expect(out['module.IcmpSendEcho']).toBe('iphlpapi_wine.dll');
      expect(out['GetNetworkParams']).toBe('111'); // ERROR_BUFFER_OVERFLOW: a size probe Wine answered
    } finally {
      await sim.close();
    }
  });

  it.skipIf(!go && !WINE_REQUIRED)(
    "without a node (no HNSIM_ENDPOINT) the DLL is Wine's: Linux's interfaces; with an unreachable one, an error",
    async () => {
      const alone = await runGonet(undefined, ['Ethernet']);
      expect(alone.error).toBeUndefined();
      expect(alone.interfaces.length).toBeGreaterThan(0);
      expect(alone.interfaces.map((i) => i.name)).not.toContain('Loopback Pseudo-Interface 1');
      expect(alone.byName['Ethernet']?.error).toContain('no such network interface');
      const sim = await serveHost(createHost({ seed: 5 }));
      const endpoint = sim.endpoint;
      await sim.close();
      const r = await runProgram(gonet, '', { endpoint });
      const gone = JSON.parse(r.stdout) as GoReport;
      expect(gone.error).toMatch(/getadaptersaddresses/);
      expect(gone.interfaces).toEqual([]);
    },
  );
});

function fmt(v: number): string {
  return `${(v >>> 24) & 255}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
}
