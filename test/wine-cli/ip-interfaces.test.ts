// The JSON-RPC method `GetIpInterfaces` (docs/api.md; src/host/iphelper.ts), what hnsim's
// iphlpapi.dll answers a Windows program from (issue 15), without Wine: the node's interfaces as the
// IP Helper API reports them — the loopback pseudo-interface, the physical adapters, the host vNICs
// of external and internal vSwitches, host-attached endpoints' vNICs — with their LUIDs (ifdef.h's
// NET_LUID layout: IfType in bits 48–63, NetLuidIndex in bits 24–47), addresses, gateways, and the
// route table. Expected values are the adapters, networks and addresses the test chose.
import { describe, expect, it } from 'vitest';
import { callRpc, RpcServer } from '../../src/api/rpc.js';
import { createHost, type Host } from '../../src/host/host.js';
import type { IpInterfacesDoc } from '../../src/host/iphelper.js';

const ADAPTERS = [
  { name: 'Ethernet', ipAddress: '10.0.0.4/24', gateway: '10.0.0.1', macAddress: '00-0D-3A-10-20-30' },
  { name: 'Ethernet 2', ipAddress: '192.168.50.10/24', macAddress: '00-0D-3A-AA-BB-CC', mtu: 9000 },
];

async function ipInterfaces(host: Host): Promise<IpInterfacesDoc> {
  const r = await callRpc(new RpcServer(host), 'GetIpInterfaces');
  if (!('result' in r)) throw new Error(JSON.stringify(r));
  return r.result as unknown as IpInterfacesDoc;
}

function ok<T>(r: { ok: boolean; result?: unknown }): T {
  expect(r.ok, JSON.stringify(r)).toBe(true);
  return r.result as T;
}

describe('GetIpInterfaces', () => {
  it("a fresh node: the loopback and the physical adapters, with the test's literals", async () => {
    const doc = await ipInterfaces(createHost({ seed: 5, adapters: ADAPTERS }));
    expect(doc.interfaces.map((i) => [i.ifIndex, i.alias, i.kind, i.ipEnabled])).toEqual([
      [1, 'Loopback Pseudo-Interface 1', 'Loopback', true],
      [4, 'Ethernet', 'Physical', true],
      [5, 'Ethernet 2', 'Physical', true],
    ]);
    const [lo, eth, eth2] = doc.interfaces;
    expect(lo).toMatchObject({
      ifType: 24,
      luid: 24 * 2 ** 48, // IF_TYPE_SOFTWARE_LOOPBACK, NetLuidIndex 0
      mtu: 4294967295,
      macAddress: '',
      ipv4: [{ address: '127.0.0.1', prefixLength: 8 }],
      ipv6: [{ address: '::1', prefixLength: 128 }],
    });
    expect(eth).toMatchObject({
      ifType: 6,
      netLuidIndex: 32772,
      luid: 6 * 2 ** 48 + 32772 * 2 ** 24,
      description: 'Microsoft Hyper-V Network Adapter',
      macAddress: '00-0D-3A-10-20-30',
      mtu: 1500,
      operStatus: 'Up',
      ipv4: [{ address: '10.0.0.4', prefixLength: 24 }],
      ipv6: [],
      gateways: ['10.0.0.1'],
      dnsServers: [],
    });
    expect(eth2).toMatchObject({
      mtu: 9000,
      gateways: [],
      ipv4: [{ address: '192.168.50.10', prefixLength: 24 }],
    });
    expect(doc.routes.map((r) => [r.family, r.destinationPrefix, r.nextHop, r.ifIndex, r.origin])).toEqual([
      [4, '127.0.0.0/8', '0.0.0.0', 1, 'Loopback'],
      [4, '10.0.0.0/24', '0.0.0.0', 4, 'Connected'],
      [4, '192.168.50.0/24', '0.0.0.0', 5, 'Connected'],
      [4, '0.0.0.0/0', '10.0.0.1', 4, 'Default'],
      [6, '::1/128', '::', 1, 'Loopback'],
    ]);
  });

  it('follows the networks: the external vSwitch vNIC takes the address, internal vNICs hold the gateway, host-attached endpoints get one', async () => {
    const host = createHost({ seed: 5, adapters: ADAPTERS });
    const bridge = ok<{ ID: string }>(
      host.api.HcnCreateNetwork(null, {
        Name: 'cbr0',
        Type: 'L2Bridge',
        Ipams: [{ Subnets: [{ IpAddressPrefix: '10.244.1.0/24' }] }],
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
              {
                IpAddressPrefix: 'fd00:20::/64',
                Routes: [{ NextHop: 'fd00:20::1', DestinationPrefix: '::/0' }],
              },
            ],
          },
        ],
        SchemaVersion: { Major: 2, Minor: 2 },
      }),
    ).ID;
    const ep = ok<{ ID: string; IpConfigurations: { IpAddress: string; PrefixLength: number }[] }>(
      host.api.HcnCreateEndpoint(nat, null, { Name: 'hostep', SchemaVersion: { Major: 2, Minor: 2 } }),
    );
    const def = ok<string[]>(host.api.HcnEnumerateNamespaces(''))[0]!;
    ok(
      host.api.HcnModifyNamespace(
        def,
        JSON.stringify({ ResourceType: 'Endpoint', RequestType: 'Add', Settings: { EndpointId: ep.ID } }),
      ),
    );
    const doc = await ipInterfaces(host);
    const by = new Map(doc.interfaces.map((i) => [i.alias, i]));
    expect([...by.keys()]).toEqual([
      'Loopback Pseudo-Interface 1',
      'Ethernet',
      'Ethernet 2',
      'vEthernet (Ethernet)',
      'vEthernet (nat)',
      'vEthernet (hostep)',
    ]);
    // the bound adapter: listed, without TCP/IP and without its address
    expect(by.get('Ethernet')).toMatchObject({ kind: 'Physical', ipEnabled: false, ipv4: [], gateways: [] });
    expect(by.get('vEthernet (Ethernet)')).toMatchObject({
      kind: 'HostVNic',
      ipEnabled: true,
      macAddress: '00-0D-3A-10-20-30',
      mtu: 1500,
      ipv4: [{ address: '10.0.0.4', prefixLength: 24 }],
      gateways: ['10.0.0.1'],
      description: 'Hyper-V Virtual Ethernet Adapter #1',
    });
    expect(by.get('vEthernet (Ethernet)')!.switchId).toBe(by.get('Ethernet')!.switchId);
    expect(by.get('vEthernet (nat)')).toMatchObject({ ipv4: [{ address: '172.20.0.1', prefixLength: 16 }] });
    const v4 = ep.IpConfigurations.find((c) => !c.IpAddress.includes(':'))!;
    const v6 = ep.IpConfigurations.find((c) => c.IpAddress.includes(':'))!;
    expect(v6.IpAddress).toMatch(/^fd00:20::/);
    expect(by.get('vEthernet (hostep)')).toMatchObject({
      kind: 'EndpointVNic',
      endpointId: ep.ID,
      ipv4: [{ address: v4.IpAddress, prefixLength: 16 }],
      ipv6: [{ address: v6.IpAddress, prefixLength: 64 }],
    });
    // every interface has its own index and LUID
    expect(new Set(doc.interfaces.map((i) => i.ifIndex)).size).toBe(doc.interfaces.length);
    expect(new Set(doc.interfaces.map((i) => i.luid)).size).toBe(doc.interfaces.length);
    const vnic = by.get('vEthernet (Ethernet)')!.ifIndex;
    expect(doc.routes.filter((r) => r.destinationPrefix === '0.0.0.0/0')).toEqual([
      {
        family: 4,
        destinationPrefix: '0.0.0.0/0',
        nextHop: '10.0.0.1',
        ifIndex: vnic,
        interfaceAlias: 'vEthernet (Ethernet)',
        metric: 256,
        origin: 'Default',
      },
    ]);
    // gone again with the networks
    ok(host.api.HcnDeleteEndpoint(ep.ID));
    ok(host.api.HcnDeleteNetwork(nat));
    ok(host.api.HcnDeleteNetwork(bridge));
    expect(await ipInterfaces(host)).toEqual(await ipInterfaces(createHost({ seed: 5, adapters: ADAPTERS })));
  });

  it('takes no parameters', async () => {
    const r = await callRpc(new RpcServer(createHost({ seed: 5 })), 'GetIpInterfaces', [1]);
    expect('error' in r && r.error.code).toBe(-32602);
  });
});
