/**
 * azure-vnet's CNS modes (issue 16; reference azure-cni.md §2.1, §2.7, §5.4) against the CNS agent
 * (src/plugins/cns): Swift (pod subnet) and Overlay with the conflists upstream ships
 * (ACN v1.8.12 `cni/azure-windows-swift.conflist`, `cni/azure-windows-swift-overlay.conflist`),
 * run under containerd. What the expectations come from:
 * - the request azure-vnet sends (`cns/NetworkContainerContract.go` IPConfigsRequest tags, the
 *   `BacknendInterfaceMacAddress` typo included; `PodInterfaceID` = `<cid[:8]>-<ifname>`,
 *   `InfraContainerID` = the container ID: `cni/network/invoker_cns.go` Add);
 * - the HNS shapes: the network's subnet and gateway from the NC's primary IP configuration, the
 *   Swift NATs `{VirtualIP: <NC primary IP>, Destinations: [168.63.129.16]}` and
 *   `{Destinations: [169.254.169.254]}` only for `executionMode: v4swift` outside Overlay and only
 *   from build 18362 (`network_windows.go` getNATInfo);
 * - Overlay's missing gateway: the subnet's address with its last byte + 1 on Windows
 *   (`invoker_cns_test.go` "Test happy CNI Overlay add in v4overlay ipamMode": pod 10.240.1.242, NC
 *   10.240.1.0/16 → gateway 10.240.0.1);
 * - the client's texts (`cns/client/client.go`) and DEL's async delete
 *   (`/var/run/azure-vnet/deleteIDs/<container ID>` holding the pod interface ID).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../src/host/host.js';
import { HcnClient } from '../../../src/api/hcn/client.js';
import { startCns, overlayNc, type CnsOptions } from '../../../src/plugins/cns/index.js';
import { multitenantNetworkName, podNameWithoutSuffix } from '../../../src/plugins/azure-vnet/index.js';
import { addExtNetwork, cid, files, namespace, podArgs, SWIFT_CONF, vnet } from './kit.js';

const SWIFT = SWIFT_CONF;

/** ACN v1.8.12 `cni/azure-windows-swift-overlay.conflist`'s plugin object. */
const OVERLAY = {
  cniVersion: '0.3.0',
  name: 'azure',
  type: 'azure-vnet',
  capabilities: { portMappings: true, dns: true },
  ipam: { type: 'azure-cns', mode: 'overlay' },
  dns: { Nameservers: ['10.0.0.10', '168.63.129.16'], Search: ['svc.cluster.local'] },
  AdditionalArgs: SWIFT.AdditionalArgs,
};

const SWIFT_NC = {
  id: 'swift-nc',
  primaryIp: '10.241.0.4/16',
  gateway: '10.241.0.1',
  secondaryIps: ['10.241.0.5', '10.241.0.6'],
};

/** An AKS node (10.240.0.4/16 on `vEthernet (Ethernet)` after `ext`) with CNS started as `cns` says. */
async function node(cns?: CnsOptions, profile?: 'ws2019' | 'ws2022', nmagentApis?: string[]) {
  const host = createHost({
    ...(profile ? { profile } : {}),
    adapters: [
      {
        name: 'Ethernet',
        ipAddress: '10.240.0.4/16',
        gateway: '10.240.0.1',
        macAddress: '00-0D-3A-00-00-01',
      },
    ],
    azure: { nics: [{ adapter: 'Ethernet' }], ...(nmagentApis ? { nmagentApis } : {}) },
  });
  await addExtNetwork(host);
  const agent = cns ? startCns(host, cns) : undefined;
  return { host, agent };
}

async function add(host: Host, conf: object, tag: string, name = 'web') {
  const id = cid(tag);
  const netns = await namespace(host);
  const out = await vnet(host, {
    command: 'ADD',
    id,
    netns,
    conf: JSON.stringify(conf),
    args: podArgs(name, 'default', id),
  });
  return { id, netns, out };
}

const azureNet = (host: Host) => [...host.hns.store.networks.values()].find((n) => n.Name === 'azure');
/** Each endpoint's policies as HNS answers a query (`{Type, Settings}`). */
const policiesOf = async (host: Host) =>
  (await HcnClient.forHost(host).listEndpoints()).map((e) =>
    (e.Policies ?? []).map((p) => ({ type: p.Type, raw: p.Settings as unknown })),
  );

describe('azure-vnet with CNS: Swift (pod subnet)', () => {
  it('takes the pod IP from the NC; the network is the NC subnet with its gateway; Swift NATs the platform', async () => {
    const { host, agent } = await node({ ncs: [SWIFT_NC] });
    const { id, out } = await add(host, SWIFT, 'aaaa0001');
    expect(out.exitCode, out.stdout).toBe(0);
    const result = JSON.parse(out.stdout) as {
      ips: { address: string; gateway: string }[];
      routes: unknown[];
    };
    expect(result.ips).toEqual([{ address: '10.241.0.5/16', gateway: '10.241.0.1' }]);
    expect(result.routes).toEqual([{ dst: '0.0.0.0/0', gw: '10.241.0.1' }]);
    expect(agent!.assigned()).toEqual(new Map([[`${id.slice(0, 8)}-eth0`, ['10.241.0.5']]]));
    const net = azureNet(host)!;
    expect(net.Type).toBe('L2Bridge');
    expect(net.Ipams[0]!.Subnets.map((s) => [s.IpAddressPrefix, s.Routes[0]!.NextHop])).toEqual([
      ['10.241.0.0/16', '10.241.0.1'],
    ]);
    // the master is vEthernet (Ethernet), holding HostPrimaryIPInfo's subnet: no NetAdapterName
    expect(net.Policies).toEqual([]);
    const nats = (await policiesOf(host))[0]!.filter((p) => p.type === 'OutBoundNAT').map((p) => p.raw);
    expect(nats).toEqual([
      { Exceptions: ['10.240.0.0/16', '10.0.0.0/8'] },
      { VirtualIP: '10.241.0.4', Destinations: ['168.63.129.16'] },
      { Destinations: ['169.254.169.254'] },
    ]);
  });

  it('sends the IPConfigsRequest upstream sends; a repeated request gets the same address', async () => {
    const { host, agent } = await node({ ncs: [SWIFT_NC] });
    const bodies: string[] = [];
    // a listener in front of CNS on another port, as `cnsurl` can name one
    host.http.listen(10091, (r) => {
      bodies.push(r.body);
      return host.http.request(r.method, `http://localhost:10090${r.path}`, r.body);
    });
    const conf = { ...SWIFT, cnsurl: 'http://localhost:10091' };
    const { id, netns, out } = await add(host, conf, 'bbbb0002');
    expect(out.exitCode, out.stdout).toBe(0);
    expect(bodies).toEqual([
      `{"desiredIPAddresses":null,"podInterfaceID":"${id.slice(0, 8)}-eth0","infraContainerID":"${id}","orchestratorContext":{"podName":"web","podNamespace":"default"},"ifname":"","secondaryInterfacesExist":false,"BackendInterfaceExist":false,"BacknendInterfaceMacAddress":null}\n`,
    ]);
    // CNS answers a repeated request with the same address (GetExistingIPConfig)
    const body = bodies[0]!;
    const ip = (t: string) =>
      (JSON.parse(t) as { podIPInfo: { PodIPConfig: { IPAddress: string } }[] }).podIPInfo[0]!.PodIPConfig
        .IPAddress;
    expect(ip(host.http.request('POST', 'http://localhost:10090/network/requestipconfigs', body).body)).toBe(
      '10.241.0.5',
    );
    // a repeated ADD of the live pod: HNS refuses the second endpoint, and the cleanup releases the
    // pod interface at CNS — the live pod's address with it (CNS releases by pod interface)
    const again = await vnet(host, {
      command: 'ADD',
      id,
      netns,
      conf: JSON.stringify(conf),
      args: podArgs('web', 'default', id),
    });
    expect(JSON.parse(again.stdout)).toMatchObject({ code: 999 });
    expect((JSON.parse(again.stdout) as { msg: string }).msg).toContain(
      'The object already exists. (0x1392)',
    );
    expect(agent!.assigned().size).toBe(0);
  });

  it('on WS2019 (build 17763) the Swift NATs are left out', async () => {
    const { host } = await node({ ncs: [SWIFT_NC] }, 'ws2019');
    const { out } = await add(host, SWIFT, 'cccc0003');
    expect(out.exitCode, out.stdout).toBe(0);
    expect((await policiesOf(host))[0]!.filter((p) => p.type === 'OutBoundNAT')).toHaveLength(1);
  });
});

describe('azure-vnet with CNS: Overlay', () => {
  it('the node pod CIDR’s NC: gateway .1, pods from .2, no Swift NATs', async () => {
    const { host } = await node({ ncs: [overlayNc('overlay-nc', '10.244.1.0/24')] });
    const { out } = await add(host, OVERLAY, 'dddd0004');
    expect(out.exitCode, out.stdout).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({
      ips: [{ address: '10.244.1.2/24', gateway: '10.244.1.1' }],
    });
    expect(azureNet(host)!.Ipams[0]!.Subnets[0]!.IpAddressPrefix).toBe('10.244.1.0/24');
    expect((await policiesOf(host))[0]!.filter((p) => p.type === 'OutBoundNAT')).toHaveLength(1);
  });

  it('an Overlay NC without a gateway: the subnet address + 1 (invoker_cns_test.go v4overlay vector)', async () => {
    const { host } = await node({
      ncs: [{ id: 'nc', primaryIp: '10.240.1.0/16', gateway: '', secondaryIps: ['10.240.1.242'] }],
    });
    const { out } = await add(host, OVERLAY, 'eeee0005');
    expect(out.exitCode, out.stdout).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({
      ips: [{ address: '10.240.1.242/16', gateway: '10.240.0.1' }],
      routes: [{ dst: '0.0.0.0/0', gw: '10.240.0.1' }],
    });
  });

  it('the same NC without a gateway outside Overlay is an invalid response', async () => {
    const { host, agent } = await node({
      ncs: [{ id: 'nc', primaryIp: '10.240.1.0/16', gateway: '', secondaryIps: ['10.240.1.242'] }],
    });
    const before = host.hns.store.endpoints.size;
    const { out } = await add(host, SWIFT, 'ffff0006');
    expect(JSON.parse(out.stdout)).toEqual({
      code: 999,
      msg: 'IPAM Invoker Add failed with error: failed to add ipam invoker: %w: Gateway address  from response is invalid: invalid arg(s)',
    });
    expect(host.hns.store.endpoints.size).toBe(before);
    // the address CNS assigned stays assigned: upstream's cleanup runs only for addresses it parsed
    expect([...agent!.assigned().values()]).toEqual([['10.240.1.242']]);
  });
});

describe('azure-vnet with CNS: failures and DEL', () => {
  it('CNS not running: the ADD fails with Go’s refused-connection text and leaves HNS and the state alone', async () => {
    const { host } = await node();
    const before = {
      nets: host.hns.store.networks.size,
      eps: host.hns.store.endpoints.size,
      files: files(host),
    };
    const { out } = await add(host, SWIFT, 'aaaa0007');
    expect(out.exitCode).toBe(1);
    expect(JSON.parse(out.stdout)).toEqual({
      code: 999,
      msg: 'IPAM Invoker Add failed with error: failed to add ipam invoker: Failed to get IP address from CNS: http request failed: Post "http://localhost:10090/network/requestipconfigs": dial tcp 127.0.0.1:10090: connectex: No connection could be made because the target machine actively refused it.',
    });
    expect({
      nets: host.hns.store.networks.size,
      eps: host.hns.store.endpoints.size,
      files: files(host),
    }).toEqual(before);
  });

  it('the pool exhausted: CNS code 32’s message reaches the runtime; what CNS assigned is unchanged', async () => {
    const { host, agent } = await node({ ncs: [{ ...SWIFT_NC, secondaryIps: ['10.241.0.5'] }] });
    await add(host, SWIFT, 'aaaa0008', 'one');
    const { id, out } = await add(host, SWIFT, 'bbbb0009', 'two');
    const err = JSON.parse(out.stdout) as { code: number; msg: string };
    expect(err.code).toBe(999);
    expect(err.msg).toContain(
      'Failed to get IP address from CNS: AllocateIPConfig failed: not enough IPs available of type ipv4 for swift-nc, waiting on Azure CNS to allocate more with NC Status: , IP config request is {[] ',
    );
    expect(err.msg).toContain(`${id.slice(0, 8)}-eth0 ${id} [123 34 112 111 100 78 97 109 101 34`);
    expect([...agent!.assigned().values()]).toEqual([['10.241.0.5']]);
  });

  it('CNS answering 404 on requestipconfigs: the single-IP API is used', async () => {
    const { host, agent } = await node({ ncs: [SWIFT_NC] });
    const paths: string[] = [];
    host.http.listen(10092, (r) => {
      paths.push(r.path);
      if (r.path === '/network/requestipconfigs') return { status: 404, body: '404 page not found\n' };
      return host.http.request(r.method, `http://localhost:10090${r.path}`, r.body);
    });
    const { out } = await add(host, { ...SWIFT, cnsurl: 'http://localhost:10092' }, 'cccc0010');
    expect(out.exitCode, out.stdout).toBe(0);
    expect(paths).toEqual(['/network/requestipconfigs', '/network/requestipconfig']);
    expect([...agent!.assigned().values()]).toEqual([['10.241.0.5']]);
  });

  it('DEL releases at CNS; with CNS down it leaves the pod in deleteIDs and succeeds; CNS releases it when it starts', async () => {
    const { host, agent } = await node({ ncs: [SWIFT_NC] });
    const a = await add(host, SWIFT, 'aaaa0011', 'a');
    const b = await add(host, SWIFT, 'bbbb0012', 'b');
    const del = (x: typeof a, conf: object = SWIFT) =>
      vnet(host, {
        command: 'DEL',
        id: x.id,
        netns: x.netns,
        conf: JSON.stringify(conf),
        args: podArgs('a', 'default', x.id),
      });
    expect((await del(a)).exitCode).toBe(0);
    expect([...agent!.assigned().keys()]).toEqual([`${b.id.slice(0, 8)}-eth0`]);
    agent!.stop();
    const failed = await del(b, { ...SWIFT, disableAsyncDelete: true });
    expect(JSON.parse(failed.stdout)).toEqual({
      code: 11,
      msg: 'failed to release address: failed to release IP address using ReleaseIPs and async delete is disabled: Post "http://localhost:10090/network/releaseipconfigs": dial tcp 127.0.0.1:10090: connectex: No connection could be made because the target machine actively refused it.',
    });
    const ok = await del(b);
    expect(ok.exitCode, ok.stdout).toBe(0);
    expect(host.files.read(`/var/run/azure-vnet/deleteIDs/${b.id}`)).toBe(`${b.id.slice(0, 8)}-eth0`);
    expect(agent!.assigned().size).toBe(1);
    agent!.start();
    expect(agent!.assigned().size).toBe(0);
    expect(host.files.list('/var/run/azure-vnet/deleteIDs')).toEqual([]);
  });
});

/** ACN v1.8.12 `cni/azure-windows-multitenancy.conflist`'s plugin object. */
const MULTITENANT = {
  cniVersion: '0.3.0',
  name: 'azure',
  type: 'azure-vnet',
  multiTenancy: true,
  enableSnatOnHost: true,
  enableExactMatchForPodName: true,
  capabilities: { portMappings: true },
  ipam: { type: 'azure-cns' },
  dns: { Nameservers: ['10.0.0.10', '168.63.129.16'], Search: ['svc.cluster.local'] },
  AdditionalArgs: [
    ...SWIFT.AdditionalArgs,
    {
      Name: 'EndpointPolicy',
      Value: {
        Type: 'ACL',
        Protocols: '6',
        Action: 'Block',
        Direction: 'Out',
        RemoteAddresses: '168.63.129.16',
        RemotePorts: '80',
        Priority: 200,
        RuleType: 'Switch',
      },
    },
    { Name: 'EndpointPolicy', Value: { Type: 'ACL', Action: 'Allow', Direction: 'In', Priority: 65500 } },
    { Name: 'EndpointPolicy', Value: { Type: 'ACL', Action: 'Allow', Direction: 'Out', Priority: 65500 } },
  ],
  windowsSettings: { hnsTimeoutDurationInSeconds: 120 },
};

const MT_NC = {
  pod: 'default/web',
  id: 'nc-1',
  vlan: 1,
  ip: '20.0.0.10/24',
  gateway: '20.0.0.1',
  cnetAddressSpace: ['192.168.0.0/24'],
  localIp: '169.254.0.5/17',
};

describe('azure-vnet with CNS: multitenancy (Swift v1)', () => {
  it('names the network as upstream does (TestGetNetworkNameFromCNS, TestPluginWindowsAdd)', () => {
    expect(multitenantNetworkName('azure', 1, '10.240.0.5', 24)).toBe('azure-vlan1-10-240-0-0_24');
    expect(multitenantNetworkName('mulnet', 1, '20.0.0.10', 24)).toBe('mulnet-vlan1-20-0-0-0_24');
    expect(podNameWithoutSuffix('web-5d8f9c-x7k2p')).toBe('web');
    expect(podNameWithoutSuffix('web-0')).toBe('web-0');
  });

  it('a current NMAgent (DNS support): the VLAN network on the ProviderAddress, OutBoundNAT dropped, a default route via the NC', async () => {
    const { host } = await node({ multitenancy: [MT_NC] });
    const { id, netns, out } = await add(host, MULTITENANT, 'aaaa0021');
    expect(out.exitCode, out.stdout).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({
      ips: [{ address: '20.0.0.10/24', gateway: '20.0.0.1' }],
      routes: [{ dst: '192.168.0.0/24', gw: '20.0.0.1' }],
    });
    const [net] = (await HcnClient.forHost(host).listNetworks()).filter((n) => n.Name !== 'ext');
    expect(net).toMatchObject({
      Name: 'azure-vlan1-20-0-0-0_24',
      Type: 'L2Bridge',
      Policies: [{ Type: 'ProviderAddress', Settings: { ProviderAddress: '10.240.0.4' } }],
    });
    expect(net!.Ipams![0]!.Subnets![0]).toEqual({
      IpAddressPrefix: '20.0.0.0/24',
      Policies: [{ Type: 'VLAN', Settings: { IsolationId: 1 } }],
      Routes: [{ NextHop: '20.0.0.1', DestinationPrefix: '0.0.0.0/0' }],
    });
    const [ep] = await HcnClient.forHost(host).listEndpoints();
    expect(ep!.Routes).toEqual([
      { NextHop: '20.0.0.1', DestinationPrefix: '192.168.0.0/24' },
      { NextHop: '20.0.0.1', DestinationPrefix: '0.0.0.0/0' },
    ]);
    expect((ep!.Policies ?? []).map((p) => p.Type)).toEqual(['SDNRoute', 'ACL', 'ACL', 'ACL']);
    expect(host.files.read('/snatConfig.json')).toBe('{"EnableSnatOnHost":false,"EnableSnatForDns":false}');
    const state = JSON.parse(files(host).vnet!) as {
      Network: {
        ExternalInterfaces: Record<
          string,
          { Networks: Record<string, { VlanId: number; Endpoints: Record<string, Record<string, unknown>> }> }
        >;
      };
    };
    const nw = Object.values(state.Network.ExternalInterfaces)[0]!.Networks['azure-vlan1-20-0-0-0_24']!;
    expect(nw.VlanId).toBe(1);
    expect(Object.values(nw.Endpoints)[0]).toMatchObject({
      VlanID: 1,
      EnableMultitenancy: true,
      NetworkContainerID: 'nc-1',
    });
    // DEL: the endpoint goes, nothing is released at CNS, the network stays
    const del = await vnet(host, {
      command: 'DEL',
      id,
      netns,
      conf: JSON.stringify(MULTITENANT),
      args: podArgs('web', 'default', id),
    });
    expect(del.exitCode, del.stdout).toBe(0);
    expect(host.hns.store.endpoints.size).toBe(0);
    expect((await HcnClient.forHost(host).listNetworks()).map((n) => n.Name)).toContain(
      'azure-vlan1-20-0-0-0_24',
    );
  });

  it('an NMAgent without DNS support: SNAT on the host — OutBoundNAT kept with the cnet space, DNS NATed, no default route', async () => {
    const { host } = await node({ multitenancy: [MT_NC] }, undefined, []);
    const { out } = await add(host, MULTITENANT, 'bbbb0022');
    expect(out.exitCode, out.stdout).toBe(0);
    const [ep] = await HcnClient.forHost(host).listEndpoints();
    expect(ep!.Routes).toEqual([{ NextHop: '20.0.0.1', DestinationPrefix: '192.168.0.0/24' }]);
    const nats = (ep!.Policies ?? []).filter((p) => p.Type === 'OutBoundNAT').map((p) => p.Settings);
    expect(nats).toEqual([
      { Exceptions: ['10.240.0.0/16', '10.0.0.0/8', '192.168.0.0/24'] },
      { Destinations: ['168.63.129.16'] },
    ]);
    // SNAT on the host needs the NC's local IP
    const bare = await node({ multitenancy: [{ ...MT_NC, localIp: undefined }] }, undefined, []);
    const r = await add(bare.host, MULTITENANT, 'cccc0023');
    expect(JSON.parse(r.out.stdout)).toEqual({
      code: 999,
      msg: 'GetAllNetworkContainers failed for podname web namespace default. error: Snat IP not populated',
    });
    expect(bare.host.hns.store.endpoints.size).toBe(0);
  });

  it('a pod CNS has no NC for fails with CNS’s lookup error; without exact match the pod name loses its suffix', async () => {
    const { host } = await node({ multitenancy: [MT_NC] });
    const r = await add(host, MULTITENANT, 'dddd0024', 'db');
    expect(JSON.parse(r.out.stdout)).toEqual({
      code: 999,
      msg: 'GetAllNetworkContainers failed for podname db namespace default. error: [Azure cnsclient] Code: 99 , Error: Failed to get NC  due to Failed to find networkContainerID for orchestratorContext dbdefault',
    });
    const loose = { ...MULTITENANT, enableExactMatchForPodName: false };
    const ok = await add(host, loose, 'eeee0025', 'web-5d8f9c-x7k2p');
    expect(ok.out.exitCode, ok.out.stdout).toBe(0);
  });
});

describe('azure-vnet UPDATE', () => {
  it('finds the pod’s endpoint and its NC, then dies in updateEndpointImpl: an empty result, exit 1, state kept', async () => {
    // a Swift pod (network "azure", the conflist's name) whose NC CNS also knows by pod
    const { host } = await node({ ncs: [SWIFT_NC], multitenancy: [MT_NC] });
    const { id, netns } = await add(host, SWIFT, 'aaaa0031');
    const before = files(host);
    const update = (args: string, conf: object = SWIFT) =>
      vnet(host, { command: 'UPDATE', id, netns, conf: JSON.stringify(conf), args });
    const r = await update(podArgs('web', 'default', id));
    // (a 1.0.0 result prints through a map: sorted keys, an empty dns dropped — src/cni/result.ts)
    expect(r).toMatchObject({ exitCode: 1, stdout: '{\n    "cniVersion": "1.0.0"\n}' });
    expect(files(host)).toEqual(before);
    // errors before that are only logged: nothing printed, exit 0 (an unknown pod, no pod name, no name)
    for (const args of [podArgs('other', 'default', id), 'K8S_POD_NAMESPACE=default']) {
      expect(await update(args)).toMatchObject({ exitCode: 0, stdout: '' });
    }
    expect(await update(podArgs('web', 'default', id), { ...SWIFT, name: '' })).toMatchObject({
      exitCode: 0,
      stdout: '',
    });
  });

  it('a multitenant pod’s network is not named by the conflist: UPDATE finds no network and ends quietly', async () => {
    const { host } = await node({ multitenancy: [MT_NC] });
    const { id, netns } = await add(host, MULTITENANT, 'bbbb0032');
    const r = await vnet(host, {
      command: 'UPDATE',
      id,
      netns,
      conf: JSON.stringify(MULTITENANT),
      args: podArgs('web', 'default', id),
    });
    expect(r).toMatchObject({ exitCode: 0, stdout: '' });
  });
});

// AgentBaker's expected Windows conflists for Swift and Overlay (staging/cse/windows/
// azurecnifunc.tests.suites/AzureCNI.Expect.Swift.conflist and AzureCNI.Expect.Overlay.conflist;
// vectors/), as AKS writes them, run as they are: both v4swift with loopback DSR, Overlay's CNS in
// v4overlay mode — so only Swift NATs the platform addresses (getNATInfo).
describe('AKS’s Swift and Overlay conflists (AgentBaker vectors)', () => {
  const vector = (file: string) =>
    readFileSync(fileURLToPath(new URL(`./vectors/${file}`, import.meta.url)), 'utf8');
  const pluginOf = (text: string) => {
    const list = JSON.parse(text) as { name: string; cniVersion: string; plugins: Record<string, unknown>[] };
    return { ...list.plugins[0]!, name: list.name, cniVersion: list.cniVersion };
  };

  it.each([
    ['aks-expect-swift.conflist', { ncs: [SWIFT_NC] }, '10.241.0.5', true],
    ['aks-expect-overlay.conflist', { ncs: [overlayNc('overlay-nc', '10.244.1.0/24')] }, '10.244.1.2', false],
  ] as const)('%s', async (file, cns, ip, swiftNats) => {
    const { host } = await node(cns);
    const { out } = await add(host, pluginOf(vector(file)), 'aaaa0041');
    expect(out.exitCode, out.stdout).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({
      ips: [{ address: expect.stringMatching(`^${ip}/`) as unknown }],
    });
    const nats = (await policiesOf(host))[0]!.filter((p) => p.type === 'OutBoundNAT').map((p) => p.raw);
    // the conflist's OutBoundNAT, loopback DSR to the pod itself, then (Swift) the platform NATs
    expect(nats).toContainEqual({ Destinations: [ip] });
    expect(nats.some((n) => JSON.stringify(n).includes('169.254.169.254'))).toBe(swiftNats);
  });
});

// Dual-stack Overlay (invoker_cns_test.go TestCNSIPAMInvoker_Add_Overlay "…dualstack overlay…"):
// CNS answers two InfraNIC PodIpInfos — v4 10.0.1.10 (NC /24, gateway 10.0.0.1) and v6 fd11:1234::1
// (PodIPConfig /24 but NC IPSubnet /112, no IPSubnetV6, gateway fe80::1234:5678:9abc) — and the
// endpoint gets 10.0.1.10/24 and fd11:1234::1/112 with 0.0.0.0/0 → 10.0.0.1 and ::/0 → fe80::1234:5678:9abc.
describe('azure-vnet with CNS: dual-stack Overlay', () => {
  const info = (ip: string, len: number, nc: string, ncLen: number, gw: string, gw6: string) => ({
    PodIPConfig: { IPAddress: ip, PrefixLength: len },
    NetworkContainerPrimaryIPConfig: {
      IPSubnet: { IPAddress: nc, PrefixLength: ncLen },
      IPSubnetV6: { IPAddress: '', PrefixLength: 0 },
      DNSServers: null,
      GatewayIPAddress: gw,
      GatewayIPv6Address: gw6,
    },
    HostPrimaryIPInfo: { Gateway: '10.0.0.1', PrimaryIP: '10.0.0.1', Subnet: '10.240.0.0/16' },
    NICType: 'InfraNIC',
  });

  it('the upstream vector: one endpoint with both addresses, both default routes', async () => {
    const { host } = await node();
    host.http.listen(10093, () => ({
      status: 200,
      body: JSON.stringify({
        podIPInfo: [
          info('10.0.1.10', 24, '10.0.1.0', 24, '10.0.0.1', ''),
          info('fd11:1234::1', 24, 'fd11:1234::', 112, '', 'fe80::1234:5678:9abc'),
        ],
        response: { ReturnCode: 0, Message: '' },
      }),
    }));
    const conf = {
      ...OVERLAY,
      ipam: { type: 'azure-cns', mode: 'dualStackOverlay' },
      cnsurl: 'http://localhost:10093',
    };
    const { out } = await add(host, conf, 'aaaa0051');
    expect(out.exitCode, out.stdout).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({
      ips: [
        { address: '10.0.1.10/24', gateway: '10.0.0.1' },
        { address: 'fd11:1234::1/112', gateway: 'fe80::1234:5678:9abc' },
      ],
      routes: [
        { dst: '0.0.0.0/0', gw: '10.0.0.1' },
        { dst: '::/0', gw: 'fe80::1234:5678:9abc' },
      ],
    });
    const [ep] = await HcnClient.forHost(host).listEndpoints();
    expect(ep!.IpConfigurations).toEqual([
      { IpAddress: '10.0.1.10', PrefixLength: 24 },
      { IpAddress: 'fd11:1234::1', PrefixLength: 112 },
    ]);
    expect(azureNet(host)!.Ipams[0]!.Subnets.map((s) => [s.IpAddressPrefix, s.Routes[0]!.NextHop])).toEqual([
      ['10.0.1.0/24', '10.0.0.1'],
      ['fd11:1234::/112', 'fe80::1234:5678:9abc'],
    ]);
  });

  it('with the agent: a v4 and a v6 Overlay NC give the pod one address of each; DEL gives both back', async () => {
    const { host, agent } = await node({
      ncs: [overlayNc('v4', '10.244.1.0/24'), overlayNc('v6', 'fd00:10:244:1::/64')],
    });
    const conf = { ...OVERLAY, ipam: { type: 'azure-cns', mode: 'dualStackOverlay' } };
    const { id, netns, out } = await add(host, conf, 'bbbb0052');
    expect(JSON.parse(out.stdout)).toMatchObject({
      ips: [{ address: '10.244.1.2/24', gateway: '10.244.1.1' }, { address: 'fd00:10:244:1::2/64' }],
    });
    expect([...agent!.assigned().values()]).toEqual([['10.244.1.2', 'fd00:10:244:1::2']]);
    const del = await vnet(host, {
      command: 'DEL',
      id,
      netns,
      conf: JSON.stringify(conf),
      args: podArgs('web', 'default', id),
    });
    expect(del.exitCode, del.stdout).toBe(0);
    expect(agent!.assigned().size).toBe(0);
  });
});

// The branches the first tests left out (review): the agent's spec checks, UPDATE's quiet ends,
// the snatConfig cache upstream reads under another name than it writes, the 404 fallbacks of
// release and NC lookup, SkipDefaultRoutes, and Swift's NATs taking precedence in multitenancy.
describe('azure-vnet with CNS: the remaining branches', () => {
  it('CNS refuses specs it could not have been programmed with', () => {
    const host = createHost({});
    const bad = (o: CnsOptions, why: RegExp) => expect(() => startCns(host, o)).toThrow(why);
    bad(
      { ncs: [{ ...SWIFT_NC, secondaryIps: ['10.9.0.5'] }] },
      /secondary IP "10.9.0.5" is not in 10.241.0.4\/16/,
    );
    bad(
      { ncs: [{ ...SWIFT_NC, gateway: 'fe80::1' }] },
      /gateway "fe80::1" is not an address of the NC's family/,
    );
    bad({ multitenancy: [{ ...MT_NC, pod: 'web' }] }, /pod "web" is not namespace\/name/);
    bad({ multitenancy: [{ ...MT_NC, ip: 'bogus' }] }, /ip "bogus"/);
    bad({ multitenancy: [{ ...MT_NC, vlan: 4095 }] }, /vlan 4095 is not 0..4094/);
    expect(host.http.listening(10090)).toBe(false);
  });

  it('UPDATE ends quietly when CNS has no NC for the pod, and prints nothing when the result cannot take the version', async () => {
    const { host } = await node({ ncs: [SWIFT_NC], multitenancy: [MT_NC] });
    const { id, netns } = await add(host, SWIFT, 'aaaa0061');
    const upd = (conf: object) =>
      vnet(host, {
        command: 'UPDATE',
        id,
        netns,
        conf: JSON.stringify(conf),
        args: podArgs('web', 'default', id),
      });
    const noNc = await node({ ncs: [SWIFT_NC] });
    const n = await add(noNc.host, SWIFT, 'bbbb0062');
    expect(
      await vnet(noNc.host, {
        command: 'UPDATE',
        id: n.id,
        netns: n.netns,
        conf: JSON.stringify(SWIFT),
        args: podArgs('web', 'default', n.id),
      }),
    ).toMatchObject({ exitCode: 0, stdout: '' });
    // a 0.1.0 result cannot hold the conversion (GetAsVersion's error is only logged)
    expect(await upd({ ...SWIFT, cniVersion: '0.1.0' })).toMatchObject({ exitCode: 1, stdout: '' });
  });

  it('multitenancy reads %TEMP%\\snatConfig (never what it writes, snatConfig.json)', async () => {
    const { host } = await node({ multitenancy: [MT_NC] });
    // a cache under the written name is not read: NMAgent (DNS support) decides, OutBoundNAT dropped
    host.files.write('/snatConfig.json', '{"EnableSnatOnHost":true,"EnableSnatForDns":true}');
    await add(host, MULTITENANT, 'aaaa0063');
    expect(host.files.read('/snatConfig.json')).toBe('{"EnableSnatOnHost":false,"EnableSnatForDns":false}');
    expect(((await policiesOf(host))[0] ?? []).map((p) => p.type)).not.toContain('OutBoundNAT');
    // one under the read name is used: SNAT for DNS, no SNAT on the host
    const other = await node({ multitenancy: [MT_NC] });
    other.host.files.write('/snatConfig', '{"EnableSnatOnHost":false,"EnableSnatForDns":true}');
    await add(other.host, MULTITENANT, 'bbbb0064');
    expect(other.host.files.read('/snatConfig.json')).toBeUndefined();
    const nats = ((await policiesOf(other.host))[0] ?? [])
      .filter((p) => p.type === 'OutBoundNAT')
      .map((p) => p.raw);
    expect(nats).toEqual([
      { Exceptions: ['10.240.0.0/16', '10.0.0.0/8', '192.168.0.0/24'] },
      { Destinations: ['168.63.129.16'] },
    ]);
  });

  it('multitenancy with executionMode v4swift: Swift’s NATs come first (getNATInfo)', async () => {
    const { host } = await node({ multitenancy: [MT_NC] }, undefined, []);
    await add(host, { ...MULTITENANT, executionMode: 'v4swift' }, 'aaaa0065');
    const nats = ((await policiesOf(host))[0] ?? [])
      .filter((p) => p.type === 'OutBoundNAT')
      .map((p) => p.raw);
    expect(nats.slice(1)).toEqual([
      { Destinations: ['168.63.129.16'] },
      { Destinations: ['169.254.169.254'] },
    ]);
  });

  it('404s: release falls back to releaseipconfig, the NC lookup to getnetworkcontainerbyorchestratorcontext', async () => {
    const { host, agent } = await node({ ncs: [SWIFT_NC], multitenancy: [MT_NC] });
    const paths: string[] = [];
    agent!.stop();
    const inner = startCns(host, { ncs: [SWIFT_NC], multitenancy: [MT_NC], port: 10095 });
    host.http.listen(10090, (r) => {
      paths.push(r.path);
      if (r.path === '/network/releaseipconfigs' || r.path === '/network/getAllNetworkContainers')
        return { status: 404, body: '404 page not found\n' };
      return host.http.request(r.method, `http://localhost:10095${r.path}`, r.body);
    });
    const a = await add(host, SWIFT, 'aaaa0066');
    expect(a.out.exitCode).toBe(0);
    const del = await vnet(host, {
      command: 'DEL',
      id: a.id,
      netns: a.netns,
      conf: JSON.stringify(SWIFT),
      args: podArgs('web', 'default', a.id),
    });
    expect(del.exitCode, del.stdout).toBe(0);
    expect(inner.assigned().size).toBe(0);
    const m = await add(host, MULTITENANT, 'bbbb0067');
    expect(m.out.exitCode, m.out.stdout).toBe(0);
    expect(paths).toEqual([
      '/network/requestipconfigs',
      '/network/releaseipconfigs',
      '/network/releaseipconfig',
      '/network/getAllNetworkContainers',
      '/network/getnetworkcontainerbyorchestratorcontext',
    ]);
  });

  it('an NC with SkipDefaultRoutes leaves no interface with default routes: the ADD fails, nothing kept in HNS', async () => {
    const { host } = await node({ ncs: [{ ...SWIFT_NC, skipDefaultRoutes: true }] });
    const { out } = await add(host, SWIFT, 'aaaa0068');
    expect(JSON.parse(out.stdout)).toEqual({
      code: 999,
      msg: 'IPAM Invoker Add failed with error: failed to add ipam invoker: add result requires exactly one interface with default routes',
    });
    expect(host.hns.store.endpoints.size).toBe(0);
  });
});
