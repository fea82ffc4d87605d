/**
 * flannel on Windows against upstream vectors, end to end on simulated nodes.
 *
 * Sources:
 * - flannel-io/cni-plugin @ 092e6d26: `README.md` "Windows Support" (the delegate example),
 *   `flannel.go` (loadFlannelNetConf, loadFlannelSubnetEnv, cmdAdd/cmdDel), `flannel_windows.go`
 *   (doCmdAdd/doCmdDel), `flannel_linux_test.go` (the subnet.env and netconf vectors that are not
 *   Linux-specific: `loadFlannelNetConf` and `loadFlannelSubnetEnv`; its lifecycle and
 *   getDelegateIPAM cases exercise the Linux delegate and do not apply).
 * - containernetworking/plugins @ 575e7fff `plugins/meta/flannel/flannel_windows_test.go` (the
 *   2018 plugin's only Windows test: OutBoundNAT added through AdditionalArgs when ipMasq; the
 *   current code dropped `updateOutboundNat`, which the translation below checks).
 * - flannel-io/flannel @ cdf76059 `pkg/backend/vxlan/device_windows.go` (the network document,
 *   reference cni-windows.md §5.3), `pkg/backend/hostgw/hostgw_windows.go` (§5.2),
 *   `pkg/subnet/subnet.go` (WriteSubnetFile).
 * - Pitfalls P1, P2, P15 of reference §7 reproduced with the real win-bridge / win-overlay /
 *   host-local plugins.
 */
import { describe, expect, it } from 'vitest';
import { HcsClient } from '../../src/api/hcs/client.js';
import type { HnsCall } from '../../src/api/transport.js';
import {
  pluginHost,
  PluginRegistry,
  pluginMain,
  stdinText,
  type CniHost,
  type ExecOutput,
} from '../../src/cni/index.js';
import type { JsonObject } from '../../src/core/json.js';
import { createHost, type Host } from '../../src/host/host.js';
import { loadFlannelNetConf, loadSubnetEnv, netString, flannel } from '../../src/plugins/flannel/index.js';
import {
  FlanneldHostGw,
  FlanneldVxlan,
  flanneldHost,
  writeSubnetEnv,
} from '../../src/plugins/flanneld/index.js';
import { hostLocal } from '../../src/plugins/host-local/index.js';
import { winBridge } from '../../src/plugins/win-bridge.js';
import { winOverlay } from '../../src/plugins/win-overlay.js';

const CNI_PATH = 'C:\\opt\\cni\\bin';
const NIC = {
  name: 'Ethernet',
  ipAddress: '10.0.0.11/24',
  gateway: '10.0.0.1',
  macAddress: '00-0D-3A-00-00-11',
};

interface Node {
  readonly host: Host;
  readonly ph: CniHost;
  readonly calls: HnsCall[];
}

function node(): Node {
  const host = createHost({ seed: 17, profile: 'ws2022', adapters: [NIC] });
  const calls: HnsCall[] = [];
  host.faults.fail((c) => {
    calls.push(c);
    return false;
  }, 'E_FAIL');
  const registry = new PluginRegistry()
    .register(flannel)
    .register(winBridge)
    .register(winOverlay)
    .register(hostLocal);
  return { host, ph: pluginHost(host, registry), calls };
}

function run(n: Node, command: string, cid: string, netns: string, conf: unknown): Promise<ExecOutput> {
  return n.ph.exec(
    'flannel',
    {
      env: { CNI_COMMAND: command, CNI_CONTAINERID: cid, CNI_NETNS: netns, CNI_IFNAME: 'eth0', CNI_PATH },
      stdin: JSON.stringify(conf),
    },
    0,
  );
}

/** The namespace containerd creates for a pod. */
function podNamespace(n: Node): string {
  const r = n.host.api.HcnCreateNamespace(null, '{"SchemaVersion":{"Major":2,"Minor":0}}');
  if (!r.ok) throw new Error(r.message);
  return r.result.ID;
}

// ───────────────────────────── flannel_linux_test.go (shared code) ─────────────────────────────

describe('flannel_linux_test.go: loadFlannelSubnetEnv and loadFlannelNetConf', () => {
  // the test's subnet.env constants, verbatim
  const onlyIpv4 =
    '\nFLANNEL_NETWORK=10.1.0.0/16\nFLANNEL_SUBNET=10.1.17.1/24\nFLANNEL_MTU=1472\nFLANNEL_IPMASQ=true\n';
  const onlyIpv6 =
    '\nFLANNEL_IPV6_NETWORK=fc00::/48\nFLANNEL_IPV6_SUBNET=fc00::1/64\nFLANNEL_MTU=1472\nFLANNEL_IPMASQ=true\n';
  const dualStack =
    '\nFLANNEL_NETWORK=10.1.0.0/16\nFLANNEL_SUBNET=10.1.17.1/24\nFLANNEL_IPV6_NETWORK=fc00::/48\nFLANNEL_IPV6_SUBNET=fc00::1/64\nFLANNEL_MTU=1472\nFLANNEL_IPMASQ=true\n';

  function fileWith(text: string) {
    const host = createHost();
    host.files.write('/tmp/subnet.env', text);
    return loadSubnetEnv(host.files, '/tmp/subnet.env');
  }

  it('"loads flannel subnet config with ipv4 stack"', () => {
    const conf = fileWith(onlyIpv4);
    expect(netString(conf.networks[0])).toBe('10.1.0.0/16');
    expect(netString(conf.subnet)).toBe('10.1.17.0/24');
    expect(conf.mtu).toBe(1472);
    expect(conf.ipMasq).toBe(true);
  });

  it('"loads flannel subnet config with ipv6 stack"', () => {
    const conf = fileWith(onlyIpv6);
    expect(netString(conf.ipv6Networks[0])).toBe('fc00::/48');
    expect(netString(conf.ipv6Subnet)).toBe('fc00::/64');
    expect(conf.mtu).toBe(1472);
    expect(conf.ipMasq).toBe(true);
  });

  it('"loads flannel subnet config with dual stack"', () => {
    const conf = fileWith(dualStack);
    expect(netString(conf.networks[0])).toBe('10.1.0.0/16');
    expect(netString(conf.subnet)).toBe('10.1.17.0/24');
    expect(netString(conf.ipv6Networks[0])).toBe('fc00::/48');
    expect(netString(conf.ipv6Subnet)).toBe('fc00::/64');
  });

  it('"when flannel subnet env is invalid … returns an error" (foo=bar)', () => {
    expect(() => fileWith('foo=bar')).toThrow(
      'missing FLANNEL_NETWORK, FLANNEL_IPV6_NETWORK, FLANNEL_SUBNET, FLANNEL_IPV6_SUBNET, FLANNEL_MTU, FLANNEL_IPMASQ',
    );
  });

  it('"loads flannel network config" with subnetFile and dataDir, and with the defaults', () => {
    const given = loadFlannelNetConf(
      '\n{\n    "name": "cni-flannel",\n    "type": "flannel",\n    "subnetFile": "/tmp/subnet.env",\n    "dataDir": "/tmp/dataDir"\n}',
    );
    expect([given.name, given.type, given.subnetFile, given.dataDir]).toEqual([
      'cni-flannel',
      'flannel',
      '/tmp/subnet.env',
      '/tmp/dataDir',
    ]);
    const dflt = loadFlannelNetConf('{\n"name": "cni-flannel",\n"type": "flannel"\n}');
    expect([dflt.subnetFile, dflt.dataDir]).toEqual(['/run/flannel/subnet.env', '/var/lib/cni/flannel']);
  });
});

// ───────────────────────────── the README delegate vector ─────────────────────────────

describe('README "Example VXLAN Flannel CNI config" through flanneld vxlan and the real win-overlay', () => {
  it('the delegate flannel saves and hands on; the endpoint win-overlay makes from it', async () => {
    const n = node();
    // flanneld with the backend named like the CNI network ("must match the name … of the HNS network")
    const vx = new FlanneldVxlan(flanneldHost(n.host), { backend: { Type: 'vxlan', Name: 'mynet' } });
    const net = await vx.setup({ subnet: '10.244.1.0/24', publicIp: '10.0.0.11' });
    writeSubnetEnv(n.host.files, {
      network: '10.244.0.0/16',
      subnet: '10.244.1.0/24',
      mtu: net.mtu,
      ipMasq: true,
    });
    const readme = {
      name: 'mynet',
      type: 'flannel',
      delegate: { type: 'win-overlay', endpointMacPrefix: '0E-2A' },
    };
    // dockershim: the pause container exists in HCS for win-overlay's v1 hot attach
    const pause = await HcsClient.forHost(n.host).createComputeSystem('pause1', {
      Owner: 'docker',
      SchemaVersion: { Major: 2, Minor: 1 },
      Container: { Networking: {} },
    });
    await pause.start();
    const out = await run(n, 'ADD', 'pause1', 'none', { cniVersion: '0.3.1', ...readme });
    expect(out.exitCode).toBe(0);
    const ep = await flanneldHost(n.host).hns.getEndpointByName('pause1_mynet');
    expect(ep).toMatchObject({
      IPAddress: '10.244.1.2',
      MacAddress: '0E-2A-0a-f4-01-02',
      VirtualNetwork: net.networkId,
    });
    expect(ep.SharedContainers?.map((c) => c.toLowerCase())).toEqual(['pause1']);
    const saved = JSON.parse(n.host.files.read('/var/lib/cni/flannel/pause1')!) as JsonObject;
    // the README's generated config, plus what the code adds (reference §5.1): cniVersion, ipMasqNetwork
    expect(saved).toEqual({
      name: 'mynet',
      type: 'win-overlay',
      endpointMacPrefix: '0E-2A',
      ipMasq: true,
      ipam: { subnet: '10.244.1.0/24', type: 'host-local' },
      cniVersion: '0.3.1',
      ipMasqNetwork: '10.244.0.0/16',
    });
    expect(n.host.files.read('/var/lib/cni/flannel/pause1')).toBe(
      '{"cniVersion":"0.3.1","endpointMacPrefix":"0E-2A","ipMasq":true,"ipMasqNetwork":"10.244.0.0/16","ipam":{"subnet":"10.244.1.0/24","type":"host-local"},"name":"mynet","type":"win-overlay"}',
    );
  });

  it('with containerd (apiVersion 2): the pod endpoint on the vxlan network, MAC from the prefix', async () => {
    const n = node();
    const vx = new FlanneldVxlan(flanneldHost(n.host), { backend: { Type: 'vxlan', Name: 'mynet' } });
    const net = await vx.setup({ subnet: '10.244.1.0/24', publicIp: '10.0.0.11' });
    writeSubnetEnv(n.host.files, {
      network: '10.244.0.0/16',
      subnet: '10.244.1.0/24',
      mtu: net.mtu,
      ipMasq: true,
    });
    const ns = podNamespace(n);
    const conf = {
      cniVersion: '0.3.1',
      name: 'mynet',
      type: 'flannel',
      delegate: { type: 'win-overlay', endpointMacPrefix: '0E-2A', apiVersion: 2 },
    };
    const out = await run(n, 'ADD', 'pod1', ns, conf);
    expect(out.exitCode).toBe(0);
    const result = JSON.parse(out.stdout) as { ips: { address: string }[]; interfaces: { mac: string }[] };
    expect(result.ips[0]!.address).toBe('10.244.1.2/24');
    expect(result.interfaces[0]!.mac).toBe('0E-2A-0a-f4-01-02');
    const ep = await flanneldHost(n.host).hcn.getEndpointByName('pod1_mynet');
    expect(ep.HostComputeNetwork).toBe(net.networkId);
    expect(ep.MacAddress).toBe('0E-2A-0a-f4-01-02');
    // DEL through the saved config removes the endpoint and the file
    expect((await run(n, 'DEL', 'pod1', ns, conf)).exitCode).toBe(0);
    await expect(flanneldHost(n.host).hcn.getEndpointByName('pod1_mynet')).rejects.toThrow('not found');
    expect(n.host.files.exists('/var/lib/cni/flannel/pod1')).toBe(false);
  });
});

// ───────────────────────────── flannel_windows_test.go (2018) ─────────────────────────────

describe('containernetworking/plugins flannel_windows_test.go (575e7fff), translated', () => {
  it('TestFlannelSetsWindowsOutboundNatWhenNotSet: the current plugin no longer adds OutBoundNAT itself', async () => {
    // then: ipmasq → AdditionalArgs [{Name: EndpointPolicy, Value: {Type: OutBoundNAT, ExceptionList: [nw]}}];
    // now (cni-plugin 092e6d26 flannel_windows.go): ipMasq and ipMasqNetwork go to the delegate, which
    // builds the OutBoundNAT policy itself
    const seen: string[] = [];
    const delegate = pluginMain(
      'win-bridge',
      {
        add: async (args, ctx) => {
          seen.push(stdinText(args));
          ctx.stdout.write('{"cniVersion":"0.3.0"}');
          return Promise.resolve();
        },
        del: async () => Promise.resolve(),
      },
      ['0.3.0'],
      '',
    );
    const host = createHost();
    host.files.write(
      '/run/flannel/subnet.env',
      'FLANNEL_NETWORK=192.168.0.0/16\nFLANNEL_SUBNET=192.168.10.1/24\nFLANNEL_MTU=1500\nFLANNEL_IPMASQ=true\n',
    );
    const ph = pluginHost(host, new PluginRegistry().register(flannel).register(delegate));
    await ph.exec(
      'flannel',
      {
        env: { CNI_COMMAND: 'ADD', CNI_CONTAINERID: 'c', CNI_NETNS: 'none', CNI_IFNAME: 'eth0', CNI_PATH },
        stdin: '{"cniVersion":"0.3.0","name":"cbr0","type":"flannel"}',
      },
      0,
    );
    const d = JSON.parse(seen[0]!) as JsonObject;
    expect(d['AdditionalArgs']).toBeUndefined();
    expect(d['ipMasq']).toBe(true);
    expect(d['ipMasqNetwork']).toBe('192.168.0.0/16');
  });
});

// ───────────────────────────── flanneld's documents (§5.2, §5.3) ─────────────────────────────

describe('flanneld vxlan: the §5.3 network, field by field with what HNS stored', () => {
  it('the create request and the stored network', async () => {
    const n = node();
    const net = await new FlanneldVxlan(flanneldHost(n.host)).setup({
      subnet: '10.244.1.0/24',
      publicIp: '10.0.0.11',
    });
    // reference §5.3 item 2 (device_windows.go newVXLANDevice), <iface> = the node's adapter
    const expected = {
      Type: 'Overlay',
      Name: 'flannel.4096',
      Flags: 8,
      SchemaVersion: { Major: 2, Minor: 0 },
      Ipams: [
        {
          Type: 'Static',
          Subnets: [
            {
              IpAddressPrefix: '10.244.1.0/24',
              Routes: [{ NextHop: '10.244.1.1', DestinationPrefix: '0.0.0.0/0' }],
              Policies: [{ Type: 'VSID', Settings: { IsolationId: 4096 } }],
            },
          ],
        },
      ],
      Policies: [{ Type: 'NetAdapterName', Settings: { NetworkAdapterName: 'Ethernet' } }],
    };
    const create = n.calls.find((c) => c.method === 'HcnCreateNetwork');
    const sent = JSON.parse(String(create?.args[1])) as Record<string, unknown>;
    for (const [k, v] of Object.entries(expected)) expect(sent[k], k).toEqual(v);

    const stored = (await flanneldHost(n.host).hcn.getNetworkByID(net.networkId)).toJSON() as Record<
      string,
      unknown
    >;
    expect(stored['Type']).toBe('Overlay');
    expect(stored['Name']).toBe('flannel.4096');
    expect(stored['Flags']).toBe(8);
    expect(stored['SchemaVersion']).toEqual({ Major: 2, Minor: 0 });
    expect(stored['Ipams']).toEqual(expected.Ipams);
    const policies = stored['Policies'] as { Type: string; Settings: JsonObject }[];
    expect(policies.find((p) => p.Type === 'NetAdapterName')?.Settings).toEqual({
      NetworkAdapterName: 'Ethernet',
    });
    // HNS populated the ProviderAddress flanneld waits for; flanneld added HostRoute
    expect(policies.find((p) => p.Type === 'ProviderAddress')?.Settings).toEqual({
      ProviderAddress: '10.0.0.11',
    });
    expect(policies.filter((p) => p.Type === 'HostRoute')).toEqual([{ Type: 'HostRoute', Settings: {} }]);
    const modify = n.calls.find((c) => c.method === 'HcnModifyNetwork');
    expect(JSON.parse(String(modify?.args[1]))).toEqual({
      ResourceType: 'Policy',
      RequestType: 'Add',
      Settings: { Policies: [{ Type: 'HostRoute', Settings: {} }] },
    });
  });

  it('§5.3 item 4: the RemoteSubnetRoute for a remote lease', async () => {
    const n = node();
    const vx = new FlanneldVxlan(flanneldHost(n.host));
    await vx.setup({ subnet: '10.244.1.0/24', publicIp: '10.0.0.11' });
    n.calls.length = 0;
    await vx.onLeaseAdded({
      subnet: '10.244.2.0/24',
      publicIp: '10.0.0.12',
      vni: 4096,
      vtepMac: '0e:2a:00:00:00:02',
    });
    const modify = n.calls
      .filter((c) => c.method === 'HcnModifyNetwork')
      .map((c) => JSON.parse(String(c.args[1])) as unknown);
    expect(modify).toEqual([
      {
        ResourceType: 'Policy',
        RequestType: 'Add',
        Settings: {
          Policies: [
            {
              Type: 'RemoteSubnetRoute',
              Settings: {
                DestinationPrefix: '10.244.2.0/24',
                IsolationId: 4096,
                ProviderAddress: '10.0.0.12',
                DistributedRouterMacAddress: '0e:2a:00:00:00:02',
              },
            },
          ],
        },
      },
    ]);
  });
});

describe('flanneld host-gw: the §5.2 network and endpoint', () => {
  it('POST {"Name":"cbr0","Type":"L2Bridge","DNSServerList":…,"Subnets":[…]}, cbr0_ep at S+2', async () => {
    const n = node();
    await new FlanneldHostGw(flanneldHost(n.host), {
      backend: { Type: 'host-gw', DNSServerList: '10.96.0.10' },
    }).setup({
      subnet: '10.244.1.0/24',
      publicIp: '10.0.0.11',
    });
    const posts = n.calls
      .filter((c) => c.method === 'HNSCall' && c.args[0] === 'POST')
      .map((c) => String(c.args[2]));
    expect(JSON.parse(posts[0]!)).toEqual({
      Name: 'cbr0',
      Type: 'L2Bridge',
      DNSServerList: '10.96.0.10',
      Subnets: [{ AddressPrefix: '10.244.1.0/24', GatewayAddress: '10.244.1.1' }],
    });
    expect(JSON.parse(posts[1]!)).toMatchObject({ Name: 'cbr0_ep', IPAddress: '10.244.1.2' });
    expect(JSON.parse(posts[2]!)).toEqual({ SystemType: 'Host', CompartmentId: 1 });
  });
});

// ───────────────────────────── end to end: flannel → win-bridge → host-local ─────────────────────────────

describe('flannel → win-bridge → host-local on a host-gw node', () => {
  async function hostGwNode(): Promise<Node> {
    const n = node();
    const gw = new FlanneldHostGw(flanneldHost(n.host));
    const net = await gw.setup({ subnet: '10.244.1.0/24', publicIp: '10.0.0.11' });
    writeSubnetEnv(n.host.files, {
      network: '10.244.0.0/16',
      subnet: '10.244.1.0/24',
      mtu: net.mtu,
      ipMasq: true,
    });
    return n;
  }
  const CONF = {
    cniVersion: '0.3.0',
    name: 'cbr0',
    type: 'flannel',
    delegate: { type: 'win-bridge', apiVersion: 2 },
  };

  it("P2: the first pod gets .2 = cbr0_ep's address and fails; the retry gets .3 with gateway .2", async () => {
    const n = await hostGwNode();
    const ns = podNamespace(n);
    const first = await run(n, 'ADD', 'pod1', ns, CONF);
    expect(first.exitCode).toBe(1);
    expect(JSON.parse(first.stdout)).toMatchObject({ code: 999 });
    expect((JSON.parse(first.stdout) as { msg: string }).msg).toContain(
      'The object already exists. (0x1392)',
    );
    const second = await run(n, 'ADD', 'pod1', ns, CONF);
    expect(second.exitCode).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({
      cniVersion: '0.3.0',
      ips: [{ version: '4', address: '10.244.1.3/24', gateway: '10.244.1.2' }],
    });
    expect(n.host.files.read('/var/lib/cni/networks/cbr0/10.244.1.3')).toBe('pod1\r\neth0');
    expect((await run(n, 'DEL', 'pod1', ns, CONF)).exitCode).toBe(0);
    expect(n.host.files.exists('/var/lib/cni/networks/cbr0/10.244.1.3')).toBe(false);
    expect(n.host.files.exists('/var/lib/cni/flannel/pod1')).toBe(false);
  });

  it('P1: the default apiVersion under containerd fails in win-bridge; flannel passes the error on', async () => {
    const n = await hostGwNode();
    const ns = podNamespace(n);
    const out = await run(n, 'ADD', 'pod1', ns, { ...CONF, delegate: { type: 'win-bridge' } });
    expect(out.exitCode).toBe(1);
    expect((JSON.parse(out.stdout) as { msg: string }).msg).toContain(`failed to find HNSEndpoint pod1_cbr0`);
  });
});
