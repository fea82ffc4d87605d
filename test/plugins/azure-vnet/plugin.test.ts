/**
 * azure-vnet in node-subnet mode on an AKS-like node (reference azure-cni.md §1–§4, §7, §8; ACN
 * v1.8.12). Expected documents are written out from the reference's tables and upstream's code
 * paths (`configureHcnNetwork`, `configureHcnEndpoint`, `newEndpointImplHnsV1`), not from src/.
 */
import { describe, expect, it } from 'vitest';
import { HcnClient } from '../../../src/api/hcn/client.js';
import { HnsV1Client } from '../../../src/api/hnsv1/client.js';
import { HcsClient } from '../../../src/api/hcs/client.js';
import {
  aksNode,
  aksPluginConf,
  cid,
  files,
  hnsView,
  ipamRecords,
  namespace,
  podArgs,
  vnet,
  IPAM_STATE,
  NODE_IP,
  VNET_STATE,
} from './kit.js';

describe('azure-vnet ADD on HCN v2 (containerd: CNI_NETNS a namespace GUID)', () => {
  it('creates the L2Bridge network and the endpoint AKS expects, attaches it, and prints the IPAM result at 0.3.0', async () => {
    const host = await aksNode();
    const ns = await namespace(host);
    const id = cid('3f813b02');
    const out = await vnet(host, { command: 'ADD', id, netns: ns });
    expect(out.exitCode).toBe(0);
    // convertInterfaceInfoToCniResult: interfaces [{name}] (no MAC for an infra NIC), the IPAM's
    // address, gateway (subnet .1), route and DNS (the wireserver), at the conflist's 0.3.0
    expect(JSON.parse(out.stdout)).toEqual({
      cniVersion: '0.3.0',
      interfaces: [{ name: 'eth0' }],
      ips: [{ version: '4', address: '10.224.0.5/16', gateway: '10.224.0.1' }],
      routes: [{ dst: '0.0.0.0/0', gw: '10.224.0.1' }],
      dns: { nameservers: ['168.63.129.16'] },
    });
    const hcn = HcnClient.forHost(host);
    const nw = await hcn.getNetworkByName('azure');
    // §2.3: Static IPAM with the VNet subnet and a default route via .1; Flags EnableNonPersistent;
    // no NetAdapterName policy: the master interface is `vEthernet (Ethernet)` (the ext network's)
    expect(nw.Type).toBe('L2Bridge');
    expect(nw.Flags).toBe(8);
    expect(nw.Policies).toEqual([]);
    expect(nw.Ipams).toEqual([
      {
        Type: 'Static',
        Subnets: [
          {
            IpAddressPrefix: '10.224.0.0/16',
            Routes: [{ NextHop: '10.224.0.1', DestinationPrefix: '0.0.0.0/0' }],
          },
        ],
      },
    ]);
    const ep = await hcn.getEndpointByName('3f813b02-eth0');
    expect(ep.HostComputeNetwork).toBe(nw.ID);
    expect(ep.HostComputeNamespace).toBe(ns);
    expect(ep.IpConfigurations).toEqual([{ IpAddress: '10.224.0.5', PrefixLength: 16 }]);
    expect(ep.Routes).toEqual([{ NextHop: '10.224.0.1', DestinationPrefix: '0.0.0.0/0' }]);
    // §4.3: Search = <pod namespace>.<conflist Search>, servers from the conflist
    expect(ep.Dns).toEqual({
      Search: ['default.svc.cluster.local'],
      ServerList: ['10.0.0.10', '168.63.129.16'],
    });
    // §3: the AdditionalArgs in conflist order; ROUTE → SDNRoute; ACL settings without Type
    expect(ep.Policies).toEqual([
      { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.224.0.0/12', '10.224.1.0/12'] } },
      { Type: 'SDNRoute', Settings: { DestinationPrefix: '10.0.0.0/16', NeedEncap: true } },
      {
        Type: 'ACL',
        Settings: {
          Protocols: '6',
          Action: 'Block',
          Direction: 'Out',
          RemoteAddresses: '168.63.129.16/32',
          RemotePorts: '80',
          RuleType: 'Switch',
          Priority: 200,
        },
      },
      {
        Type: 'ACL',
        Settings: {
          Protocols: '6',
          Action: 'Block',
          Direction: 'Out',
          RemoteAddresses: '168.63.129.16/32',
          RemotePorts: '32526',
          RuleType: 'Switch',
          Priority: 200,
        },
      },
      { Type: 'ACL', Settings: { Action: 'Allow', Direction: 'In', Priority: 65500 } },
      { Type: 'ACL', Settings: { Action: 'Allow', Direction: 'Out', Priority: 65500 } },
    ]);
    // the address is the IPAM's, recorded as the container's
    expect(ipamRecords(host)['10.224.0.5']).toEqual({ ID: id, InUse: true });
  });

  it('writes azure-vnet.json as Go marshals the network manager (struct order, omitempty, base64 masks and MACs)', async () => {
    const host = await aksNode();
    const ns = await namespace(host);
    const id = cid('3f813b02');
    await vnet(host, { command: 'ADD', id, netns: ns });
    const text = host.files.read(VNET_STATE)!;
    // MarshalIndent with a tab, no trailing newline
    expect(text.startsWith('{\n\t"Network": {\n\t\t"CnsClient": null,\n\t\t"Version": "v1.8.12",')).toBe(
      true,
    );
    expect(text.endsWith('}')).toBe(true);
    const doc = JSON.parse(text) as { Network: Record<string, unknown> };
    expect(Object.keys(doc.Network)).toEqual(['CnsClient', 'Version', 'TimeStamp', 'ExternalInterfaces']);
    const ext = (doc.Network['ExternalInterfaces'] as Record<string, Record<string, unknown>>)[
      'vEthernet (Ethernet)'
    ]!;
    // network/network.go externalInterface, in declaration order
    expect(Object.keys(ext)).toEqual([
      'Name',
      'Networks',
      'Subnets',
      'BridgeName',
      'DNSInfo',
      'MacAddress',
      'IPAddresses',
      'Routes',
      'IPv4Gateway',
      'IPv6Gateway',
    ]);
    expect(ext['Subnets']).toEqual(['10.224.0.0/16']);
    // the host interface's MAC (00-0D-3A-F9-DC-A6) as a []byte
    expect(ext['MacAddress']).toBe(Buffer.from([0x00, 0x0d, 0x3a, 0xf9, 0xdc, 0xa6]).toString('base64'));
    expect([ext['IPv4Gateway'], ext['IPv6Gateway'], ext['IPAddresses'], ext['Routes']]).toEqual([
      '0.0.0.0',
      '::',
      null,
      null,
    ]);
    const nw = (ext['Networks'] as Record<string, Record<string, unknown>>)['azure']!;
    expect(Object.keys(nw)).toEqual([
      'Id',
      'HnsId',
      'Mode',
      'VlanId',
      'Subnets',
      'Endpoints',
      'DNS',
      'EnableSnatOnHost',
      'NetNs',
      'SnatBridgeIP',
    ]);
    expect(nw['HnsId']).toBe((await HcnClient.forHost(host).getNetworkByName('azure')).ID);
    expect(nw['Mode']).toBe('bridge');
    expect(nw['NetNs']).toBe(ns);
    // a 4-byte /16 mask is //8AAA== (net.IPMask is a []byte)
    expect(nw['Subnets']).toEqual([
      { Family: 2, Prefix: { IP: '10.224.0.0', Mask: '//8AAA==' }, Gateway: '10.224.0.1', PrimaryIP: '' },
    ]);
    const ep = (nw['Endpoints'] as Record<string, Record<string, unknown>>)['3f813b02-eth0']!;
    // network/endpoint.go endpoint, in declaration order; NetworkNameSpace and
    // InfraVnetAddressSpace are omitempty and empty
    expect(Object.keys(ep)).toEqual([
      'Id',
      'HnsId',
      'HNSNetworkID',
      'SandboxKey',
      'IfName',
      'HostIfName',
      'MacAddress',
      'InfraVnetIP',
      'LocalIP',
      'IPAddresses',
      'Gateways',
      'DNS',
      'Routes',
      'VlanID',
      'EnableSnatOnHost',
      'EnableInfraVnet',
      'EnableMultitenancy',
      'AllowInboundFromHostToNC',
      'AllowInboundFromNCToHost',
      'NetworkContainerID',
      'ContainerID',
      'PODName',
      'PODNameSpace',
      'NetNs',
      'SecondaryInterfaces',
      'NICType',
    ]);
    const hnsEp = await HcnClient.forHost(host).getEndpointByName('3f813b02-eth0');
    const mac = hnsEp.MacAddress.split('-').map((h) => parseInt(h, 16));
    expect(ep).toMatchObject({
      Id: '3f813b02-eth0',
      HnsId: hnsEp.ID,
      HNSNetworkID: nw['HnsId'],
      SandboxKey: id,
      IfName: 'eth0',
      MacAddress: Buffer.from(mac).toString('base64'),
      InfraVnetIP: { IP: '', Mask: null },
      IPAddresses: [{ IP: '10.224.0.5', Mask: '//8AAA==' }],
      Gateways: ['10.224.0.1'],
      DNS: { Suffix: 'default.svc.cluster.local', Servers: ['10.0.0.10', '168.63.129.16'], Options: null },
      Routes: [
        {
          Dst: { IP: '0.0.0.0', Mask: 'AAAAAA==' },
          Src: '',
          Gw: '10.224.0.1',
          Protocol: 0,
          DevName: '',
          Scope: 0,
          Priority: 0,
          Table: 0,
        },
      ],
      ContainerID: id,
      PODName: 'web',
      PODNameSpace: 'default',
      NetNs: ns,
      SecondaryInterfaces: null,
      NICType: 'InfraNIC',
    });
  });

  it('a second pod reuses the network: one HNS network, HNSNetworkID only on the endpoint of the ADD that created it', async () => {
    const host = await aksNode();
    const a = cid('aaaa0001');
    const b = cid('bbbb0002');
    expect((await vnet(host, { command: 'ADD', id: a, netns: await namespace(host) })).exitCode).toBe(0);
    expect(
      (
        await vnet(host, {
          command: 'ADD',
          id: b,
          netns: await namespace(host),
          args: podArgs('api', 'default', b),
        })
      ).exitCode,
    ).toBe(0);
    expect(await hnsView(host)).toEqual({
      networks: ['azure', 'ext'],
      endpoints: ['aaaa0001-eth0', 'bbbb0002-eth0'],
    });
    const eps = JSON.parse(files(host).vnet!).Network.ExternalInterfaces['vEthernet (Ethernet)'].Networks
      .azure.Endpoints;
    expect('HNSNetworkID' in eps['aaaa0001-eth0']).toBe(true);
    expect('HNSNetworkID' in eps['bbbb0002-eth0']).toBe(false);
    expect(eps['bbbb0002-eth0'].IPAddresses).toEqual([{ IP: '10.224.0.6', Mask: '//8AAA==' }]);
  });

  it('reuses an HNS network of the same name when the state files do not know it (state wiped, network kept)', async () => {
    const host = await aksNode();
    const a = cid('aaaa0001');
    const ns = await namespace(host);
    await vnet(host, { command: 'ADD', id: a, netns: ns });
    await vnet(host, { command: 'DEL', id: a, netns: ns });
    const before = (await HcnClient.forHost(host).getNetworkByName('azure')).ID;
    host.files.remove(VNET_STATE);
    host.files.remove(IPAM_STATE);
    expect(
      (await vnet(host, { command: 'ADD', id: cid('bbbb0002'), netns: await namespace(host) })).exitCode,
    ).toBe(0);
    const nets = (await HcnClient.forHost(host).listNetworks()).filter((n) => n.Name === 'azure');
    expect(nets.map((n) => n.ID)).toEqual([before]);
  });
});

describe('azure-vnet: the IPAM pool retry looks in C:\\k (reference §5.3, §7 #10)', () => {
  it('under containerd (System32) a lost azure-vnet.json leaves the pool taken: every ADD fails "no available address pools"', async () => {
    const host = await aksNode();
    await vnet(host, { command: 'ADD', id: cid('aaaa0001'), netns: await namespace(host) });
    host.files.remove(VNET_STATE);
    const out = await vnet(host, { command: 'ADD', id: cid('bbbb0002'), netns: await namespace(host) });
    expect(JSON.parse(out.stdout)).toEqual({
      code: 100,
      msg: 'Failed to allocate pool: Failed to delegate: Failed to allocate pool: no available address pools',
    });
  });

  it("with state in C:\\k the retry deletes azure-vnet-ipam.json: the fresh pool hands out the running pod's address again", async () => {
    const host = await aksNode();
    const cwd = 'C:\\k';
    const a = cid('aaaa0001');
    await vnet(host, { command: 'ADD', id: a, netns: await namespace(host), cwd });
    host.files.remove('C:\\k\\azure-vnet.json');
    const b = cid('bbbb0002');
    const out = await vnet(host, { command: 'ADD', id: b, netns: await namespace(host), cwd });
    // 10.224.0.5 again, which pod aaaa0001's endpoint holds: HNS refuses the second endpoint
    expect(JSON.parse(out.stdout)).toMatchObject({ code: 999 });
    expect(JSON.parse(out.stdout).msg).toMatch(
      /^failed to create endpoint: Failed to create endpoint: bbbb0002-eth0 due to error: .*already exists/,
    );
    // the recreated IPAM state no longer knows pod aaaa0001 (its record was in the deleted file)
    expect(Object.values(ipamRecords(host, cwd)).filter((r) => r.ID === a)).toEqual([]);
    expect((await HcnClient.forHost(host).listEndpoints()).map((e) => e.Name)).toEqual(['aaaa0001-eth0']);
  });
});

describe('azure-vnet DEL', () => {
  it('deletes the endpoint, releases the address, keeps the network and its state entry (Endpoints {})', async () => {
    const host = await aksNode();
    const id = cid('3f813b02');
    const ns = await namespace(host);
    await vnet(host, { command: 'ADD', id, netns: ns });
    const del = await vnet(host, { command: 'DEL', id, netns: ns });
    expect(del).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(await hnsView(host)).toEqual({ networks: ['azure', 'ext'], endpoints: [] });
    expect(ipamRecords(host)['10.224.0.5']).toEqual({ ID: '', InUse: false });
    const nw = JSON.parse(files(host).vnet!).Network.ExternalInterfaces['vEthernet (Ethernet)'].Networks
      .azure;
    expect(nw.Endpoints).toEqual({});
    expect((await HcnClient.forHost(host).getNamespaceByID(ns)).Resources).toEqual([]);
  });

  it('a DEL for a container without an endpoint releases by container ID and succeeds; a second DEL too', async () => {
    const host = await aksNode();
    const id = cid('3f813b02');
    const ns = await namespace(host);
    await vnet(host, { command: 'ADD', id, netns: ns });
    await vnet(host, { command: 'DEL', id, netns: ns });
    const again = await vnet(host, { command: 'DEL', id, netns: ns });
    expect(again.exitCode).toBe(0);
    const never = await vnet(host, { command: 'DEL', id: cid('cccc0003'), netns: ns });
    expect(never.exitCode).toBe(0);
  });

  it("an endpoint deleted behind the plugin's back: DEL still succeeds (not found is success) and releases", async () => {
    const host = await aksNode();
    const id = cid('3f813b02');
    const ns = await namespace(host);
    await vnet(host, { command: 'ADD', id, netns: ns });
    const hcn = HcnClient.forHost(host);
    const ep = await hcn.getEndpointByName('3f813b02-eth0');
    await hcn.removeNamespaceEndpoint(ns, ep.ID);
    await ep.delete();
    expect((await vnet(host, { command: 'DEL', id, netns: ns })).exitCode).toBe(0);
    expect(ipamRecords(host)['10.224.0.5']!.InUse).toBe(false);
  });
});

describe('azure-vnet on HNS v1 (dockershim: CNI_NETNS none)', () => {
  it('POSTs the v1 network and endpoint documents, hot-attaches the endpoint, and keeps state in C:\\k', async () => {
    const host = await aksNode();
    const hcs = HcsClient.forHost(host);
    const id = cid('5e5e0001');
    const pause = await hcs.createComputeSystem(id, { SystemType: 'Container', Owner: 'docker', Name: id });
    await pause.start();
    const out = await vnet(host, { command: 'ADD', id, netns: 'none', cwd: 'C:\\k' });
    expect(out.exitCode).toBe(0);
    const v1 = new HnsV1Client(host.transport, hcs);
    const nw = await v1.getNetworkByName('azure');
    // §2.4: l2bridge; NetworkAdapterName "" (the master is a vEthernet interface); the subnet
    expect(nw.Type).toBe('L2Bridge');
    expect(nw.Subnets).toEqual([
      expect.objectContaining({ AddressPrefix: '10.224.0.0/16', GatewayAddress: '10.224.0.1' }),
    ]);
    const ep = await v1.getEndpointByName('5e5e0001-eth0');
    // §2.6: DNSSuffix, DNSServerList comma-joined, IPAddress/PrefixLength; §3 v1 forms: OutBoundNAT
    // with ExceptionList, ROUTE and ACLs passed through raw (Type included)
    expect(ep).toMatchObject({
      VirtualNetwork: nw.ID,
      DNSSuffix: 'default.svc.cluster.local',
      DNSServerList: '10.0.0.10,168.63.129.16',
      IPAddress: '10.224.0.5',
      PrefixLength: 16,
      GatewayAddress: '10.224.0.1',
    });
    expect(ep.Policies).toEqual([
      { Type: 'OutBoundNAT', ExceptionList: ['10.224.0.0/12', '10.224.1.0/12'] },
      { Type: 'ROUTE', DestinationPrefix: '10.0.0.0/16', NeedEncap: true },
      {
        Type: 'ACL',
        Protocols: '6',
        Action: 'Block',
        Direction: 'Out',
        RemoteAddresses: '168.63.129.16/32',
        RemotePorts: '80',
        Priority: 200,
        RuleType: 'Switch',
      },
      {
        Type: 'ACL',
        Protocols: '6',
        Action: 'Block',
        Direction: 'Out',
        RemoteAddresses: '168.63.129.16/32',
        RemotePorts: '32526',
        Priority: 200,
        RuleType: 'Switch',
      },
      { Type: 'ACL', Action: 'Allow', Direction: 'In', Priority: 65500 },
      { Type: 'ACL', Action: 'Allow', Direction: 'Out', Priority: 65500 },
    ]);
    expect(await v1.isAttached(ep.ID!, id)).toBe(true);
    // the state lands beside the process (C:\k), none in System32
    expect(files(host).vnet).toBeUndefined();
    const state = JSON.parse(files(host, 'C:\\k').vnet!);
    const rec =
      state.Network.ExternalInterfaces['vEthernet (Ethernet)'].Networks.azure.Endpoints['5e5e0001-eth0'];
    // the v1 path sets no pod name/namespace and no HNSNetworkID: omitempty drops them
    expect(['PODName', 'PODNameSpace', 'HNSNetworkID'].filter((k) => k in rec)).toEqual([]);
    expect(rec.NetNs).toBe('none');
    expect(rec.Gateways).toEqual(['10.224.0.1']);
    // DEL: the v1 DELETE, the address released
    expect((await vnet(host, { command: 'DEL', id, netns: 'none', cwd: 'C:\\k' })).exitCode).toBe(0);
    expect((await v1.listEndpoints()).map((e) => e.Name)).toEqual([]);
    expect(ipamRecords(host, 'C:\\k')['10.224.0.5']!.InUse).toBe(false);
  });
});

describe('azure-vnet: the reboot pitfall (reference §7 #1)', () => {
  it('after a reboot the non-persistent network is gone but azure-vnet.json keeps its HnsId: every ADD fails until the state is wiped', async () => {
    const host = await aksNode();
    const a = cid('aaaa0001');
    await vnet(host, { command: 'ADD', id: a, netns: await namespace(host) });
    host.reboot();
    expect((await hnsView(host)).networks).not.toContain('azure');
    const b = cid('bbbb0002');
    const failed = await vnet(host, { command: 'ADD', id: b, netns: await namespace(host) });
    expect(failed.exitCode).toBe(1);
    const err = JSON.parse(failed.stdout) as { code: number; msg: string };
    expect(err.code).toBe(999);
    expect(err.msg).toMatch(
      /^failed to create endpoint: Failed to create endpoint: bbbb0002-eth0 due to error: /,
    );
    // the failed ADD gave its address back; the old pod's record stays in use (nothing resets it)
    expect(ipamRecords(host)['10.224.0.5']).toEqual({ ID: a, InUse: true });
    expect(Object.values(ipamRecords(host)).filter((r) => r.ID === b)).toEqual([]);
    // AKS's cleanupnetwork.ps1: delete the state files; the next ADD works
    host.files.remove(VNET_STATE);
    host.files.remove(IPAM_STATE);
    const ok = await vnet(host, { command: 'ADD', id: b, netns: await namespace(host) });
    expect(ok.exitCode).toBe(0);
    expect((await hnsView(host)).networks).toContain('azure');
  });
});

describe('azure-vnet: the node IP is never a pod IP', () => {
  it('the pods get the NIC secondary IPs only', async () => {
    const host = await aksNode({ secondary: ['10.224.0.5'] });
    await vnet(host, { command: 'ADD', id: cid('aaaa0001'), netns: await namespace(host) });
    const second = await vnet(host, { command: 'ADD', id: cid('bbbb0002'), netns: await namespace(host) });
    // reference §8: the IPAM's code-100 text, unwrapped by skel's errors.As
    expect(JSON.parse(second.stdout)).toEqual({
      code: 100,
      msg: 'Failed to allocate pool: Failed to delegate: Failed to allocate address: No available addresses',
    });
    expect(Object.keys(ipamRecords(host))).not.toContain(NODE_IP);
  });
});

describe('azure-vnet: a failed repeat ADD (reference §7 #3, #12)', () => {
  it('a second ADD of a live container that fails after IPAM releases the address the container still uses', async () => {
    const host = await aksNode();
    const id = cid('3f813b02');
    const ns = await namespace(host);
    await vnet(host, { command: 'ADD', id, netns: ns });
    // the IPAM hands the same container its address again; the ADD then fails (a DNS mistake),
    // and the cleanup releases that address by value: the running pod's record is free again
    const out = await vnet(host, {
      command: 'ADD',
      id,
      netns: ns,
      conf: aksPluginConf((p) => (p['dns'] = { Search: ['svc.cluster.local'] })),
    });
    expect(JSON.parse(out.stdout).code).toBe(100);
    expect(ipamRecords(host)['10.224.0.5']).toEqual({ ID: '', InUse: false });
    expect((await hnsView(host)).endpoints).toEqual(['3f813b02-eth0']);
    // the next pod gets the same address: HNS refuses it as a duplicate
    const next = await vnet(host, { command: 'ADD', id: cid('bbbb0002'), netns: await namespace(host) });
    expect(JSON.parse(next.stdout).msg).toMatch(/already exists/);
  });
});

describe('azure-vnet: store lock', () => {
  it('concurrent ADDs on one node are serialized: both endpoints end up in azure-vnet.json', async () => {
    const host = await aksNode();
    const [n1, n2, n3] = [await namespace(host), await namespace(host), await namespace(host)];
    const ids = [cid('aaaa0001'), cid('bbbb0002'), cid('cccc0003')];
    const outs = await Promise.all([
      vnet(host, { command: 'ADD', id: ids[0]!, netns: n1 }),
      vnet(host, { command: 'ADD', id: ids[1]!, netns: n2, args: podArgs('b', 'default', ids[1]) }),
      vnet(host, { command: 'ADD', id: ids[2]!, netns: n3, args: podArgs('c', 'default', ids[2]) }),
    ]);
    expect(outs.map((o) => o.exitCode)).toEqual([0, 0, 0]);
    const eps = JSON.parse(files(host).vnet!).Network.ExternalInterfaces['vEthernet (Ethernet)'].Networks
      .azure.Endpoints;
    expect(Object.keys(eps).sort()).toEqual(['aaaa0001-eth0', 'bbbb0002-eth0', 'cccc0003-eth0']);
    const ips = Object.values(eps).map((e) => (e as { IPAddresses: { IP: string }[] }).IPAddresses[0]!.IP);
    expect(new Set(ips).size).toBe(3);
    // the lock file holds a PID and stays
    expect(host.files.read('C:\\Windows\\System32\\azure-vnet.lock')).toMatch(/^\d+$/);
  });
});

describe('azure-vnet CHECK (upstream Get)', () => {
  it('prints the recorded endpoint as a result; an unknown endpoint fails', async () => {
    const host = await aksNode();
    const id = cid('3f813b02');
    const ns = await namespace(host);
    await vnet(host, { command: 'ADD', id, netns: ns });
    const conf = aksPluginConf((p) => {
      p['cniVersion'] = '0.4.0';
    });
    const check = await vnet(host, {
      command: 'CHECK',
      id,
      netns: ns,
      conf: conf.replace('"0.3.0"', '"0.4.0"'),
    });
    expect(check.exitCode).toBe(0);
    expect(JSON.parse(check.stdout)).toEqual({
      cniVersion: '0.4.0',
      interfaces: [{ name: 'eth0' }],
      ips: [{ version: '4', interface: 0, address: '10.224.0.5/16', gateway: '10.224.0.1' }],
      routes: [{ dst: '0.0.0.0/0', gw: '10.224.0.1' }],
      dns: { nameservers: ['10.0.0.10', '168.63.129.16'], domain: 'default.svc.cluster.local' },
    });
    const unknown = await vnet(host, {
      command: 'CHECK',
      id: cid('dddd0004'),
      netns: ns,
      conf: conf.replace('"0.3.0"', '"0.4.0"'),
    });
    expect(JSON.parse(unknown.stdout)).toEqual({ code: 999, msg: 'Endpoint not found' });
  });
});

describe('azure-vnet: the store lock times out (reference §1.2, §7 #4; ACN #1359)', () => {
  it('a DEL stuck in a hung HNS call holds the lock: a concurrent ADD gives up after 60 s with code 11; the DEL ends when HNS does', async () => {
    const host = await aksNode();
    const a = cid('aaaa0001');
    const nsA = await namespace(host);
    await vnet(host, { command: 'ADD', id: a, netns: nsA });
    const gate = host.faults.hang({ method: 'HcnDeleteEndpoint' });
    const del = vnet(host, { command: 'DEL', id: a, netns: nsA });
    const settle = () => new Promise((r) => setImmediate(r));
    await settle();
    const b = cid('bbbb0002');
    const add = vnet(host, {
      command: 'ADD',
      id: b,
      netns: await namespace(host),
      args: podArgs('b', 'default', b),
    });
    await settle();
    host.clock.advance(59_000);
    await settle();
    let addDone = false;
    void add.then(() => (addDone = true));
    await settle();
    expect(addDone).toBe(false);
    host.clock.advance(1_000);
    expect(JSON.parse((await add).stdout)).toEqual({
      code: 11,
      msg: 'Failed to initialize key-value store of network plugin: error Acquiring store lock: timed out locking store',
    });
    gate.release();
    expect((await del).exitCode).toBe(0);
    expect((await hnsView(host)).endpoints).toEqual([]);
    // the lock is free again: the next ADD goes through
    expect(
      (
        await vnet(host, {
          command: 'ADD',
          id: b,
          netns: await namespace(host),
          args: podArgs('b', 'default', b),
        })
      ).exitCode,
    ).toBe(0);
  });
});
