/**
 * microsoft/windows-container-networking (`sdnbridge`, `sdnoverlay`, `nat`) end to end on a
 * simulated node, with the real host-local IPAM where one is needed. Source:
 * microsoft/windows-container-networking @ b96345f (hcsshim v0.8.26, libcni v1.1.2):
 *
 *   `example/{l2bridge,nat,flannel_l2bridge,l2bridgedualstack_host-local_ipam}.conf` (inputs);
 *   `test/utilities/{plugin_testing,connectivity_testing,testing_windows}.go` and
 *   `plugins/{sdnbridge,sdnoverlay,nat}/*_test.go` (the upstream test flow: network, netconf, CNI_ARGS,
 *   expected endpoint properties); `common/core/network.go` (Add l.95, allocateIpam l.295, Delete
 *   l.425), `network/manager.go` (CreateEndpoint l.120, DeleteEndpoint l.142), `cni/cni.go`.
 *
 * Also kubernetes-sigs/sig-windows-tools @ 70413fd^ `kubeadm/flannel/flannel-{host-gw,overlay}.yml`
 * (the containerd `cni-conf-containerd.json` delegates, with and without run.ps1's substitutions).
 * Reference cni-windows.md §3.4, §4, and pitfalls P3, P4, P5, P6, P9, P10, P12, P17.
 */
import { describe, expect, it } from 'vitest';
import { HcnClient } from '../../src/api/hcn/client.js';
import type { HostComputeEndpoint } from '../../src/api/hcn/endpoint.js';
import { EndpointNotFoundError } from '../../src/api/hcn/errors.js';
import { pluginHost, PluginRegistry, type CniPlugin, type ExecOutput } from '../../src/cni/index.js';
import { createHost, type Host } from '../../src/host/host.js';
import { hostLocal } from '../../src/plugins/host-local/index.js';
import { nat, sdnbridge, sdnoverlay } from '../../src/plugins/wcn/index.js';
import { fakePlugin, type Fake } from '../cni/fake-plugins.js';

const BIN = 'C:\\k\\cni';
const HOST_IP = '192.168.1.11';

interface Node {
  readonly host: Host;
  readonly hcn: HcnClient;
  readonly ipam: Fake;
  cni(
    command: string,
    conf: object | string,
    opts?: { cid?: string; netns?: string; args?: string; ifName?: string; plugin?: string },
  ): Promise<ExecOutput>;
  namespace(): Promise<string>;
  endpoint(name: string): Promise<HostComputeEndpoint | undefined>;
}

/** One node with the three WCN binaries, host-local and a scriptable fake IPAM in C:\k\cni. */
function node(opts: { profile?: string; fake?: Parameters<typeof fakePlugin>[1] } = {}): Node {
  const host = createHost({
    profile: opts.profile ?? 'ws2022',
    adapters: [{ name: 'Ethernet', ipAddress: `${HOST_IP}/24`, gateway: '192.168.1.1' }],
  });
  const ipam = fakePlugin(
    'fake-ipam',
    opts.fake ?? {
      add: JSON.stringify({ cniVersion: '0.2.0', ip4: { ip: '10.244.1.5/24', gateway: '10.244.1.1' } }),
    },
  );
  const registry = new PluginRegistry();
  for (const p of [sdnbridge, sdnoverlay, nat, hostLocal, ipam.plugin] as CniPlugin[])
    registry.register(p, [BIN]);
  const ph = pluginHost(host, registry);
  const hcn = HcnClient.forHost(host);
  return {
    host,
    hcn,
    ipam,
    cni(command, conf, o = {}) {
      const stdin = typeof conf === 'string' ? conf : JSON.stringify(conf);
      const type =
        o.plugin ?? (typeof conf === 'string' ? 'sdnbridge' : String((conf as { type?: string }).type));
      const env: Record<string, string> = {
        CNI_COMMAND: command,
        CNI_CONTAINERID: o.cid ?? 'c1',
        CNI_IFNAME: o.ifName ?? 'eth0',
        CNI_PATH: BIN,
        CNI_ARGS: o.args ?? 'IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=web-0',
      };
      if (o.netns !== undefined) env['CNI_NETNS'] = o.netns;
      return ph.exec(type, { env, stdin }, 0);
    },
    async namespace() {
      return (await hcn.newNamespace('HostDefault').create()).ID;
    },
    async endpoint(name) {
      try {
        return await hcn.getEndpointByName(name);
      } catch (e) {
        if (e instanceof EndpointNotFoundError) return undefined;
        throw e;
      }
    },
  };
}

function errorOf(out: ExecOutput): { code: number; msg: string; details?: string } {
  expect(out.exitCode).toBe(1);
  return JSON.parse(out.stdout) as { code: number; msg: string; details?: string };
}

/** An `AdditionalArgs` entry as the confs write it: `{"Name": "EndpointPolicy", "Value": value}`. */
const endpointPolicy = <T>(Value: T) => ({ Name: 'EndpointPolicy', Value });

/** host-local's on-disk allocations (`/var/lib/cni/networks/<net>/<ip>` files). */
function allocations(host: Host, network: string): string[] {
  return host.files
    .entries()
    .map(([path]) => path)
    .filter((p) => p.startsWith(`/var/lib/cni/networks/${network}/`))
    .map((p) => p.slice(`/var/lib/cni/networks/${network}/`.length))
    .filter((f) => f !== 'lock' && !f.startsWith('last_reserved_ip'));
}

// ───────────────────────────────────────── upstream flow ─────────────────────────────────────

describe('the upstream plugin tests (test/utilities/plugin_testing.go RunUnitTest)', () => {
  /** getDefaultEndpointPolicies(hostIp, false) of connectivity_testing.go. */
  const defaultPolicies = [
    { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.0.0.0/16', `${HOST_IP}/32`] } },
    { Type: 'SDNRoute', Settings: { DestinationPrefix: '11.0.0.0/8', NeedEncap: true } },
    { Type: 'ProviderAddress', Settings: { ProviderAddress: HOST_IP } },
  ];
  /** GetDefaultIpams(): 10.0.0.0/16 via 10.0.0.1. */
  const defaultIpams = (subnetPolicies?: object[]): object[] => [
    {
      Subnets: [
        {
          IpAddressPrefix: '10.0.0.0/16',
          Routes: [{ NextHop: '10.0.0.1', DestinationPrefix: '0.0.0.0/0' }],
          ...(subnetPolicies ? { Policies: subnetPolicies } : {}),
        },
      ],
    },
  ];

  /**
   * MakeTestStruct + CreateNetworkConf, marshalled as Go marshals cni.NetworkConfig: cniVersion
   * 0.2.0, the network's mapped type, ipam {environment "mas", the /16, a 0.0.0.0/0 route via .2
   * (needGW) or .1}, getDefaultDns(), AdditionalArgs from the policies (an empty list when epPols
   * is false).
   */
  const netconf = (name: string, type: string, needGW: boolean, epPols: boolean): string =>
    `{"cniVersion":"0.2.0","name":"${name}","type":"${type}",` +
    `"ipam":{"type":"","environment":"mas","subnet":"10.0.0.0/16","routes":[{"dst":"0.0.0.0/0","gw":"10.0.0.${needGW ? 2 : 1}"}]},` +
    '"dns":{"nameservers":["10.50.10.50","8.8.8.8"],"search":["svc.cluster.local","svc.cluster.local"]},' +
    '"optionalFlags":{"localRoutedPortMapping":false,"allowAclPortMapping":false,"forceBridgeGateway":false,' +
    '"enableDualStack":false,"loopbackDSR":false,"gatewayFromAdditionalRoutes":false},' +
    '"runtimeConfig":{"dns":{}},"additionalRoutes":null,"AdditionalArgs":[' +
    (epPols
      ? defaultPolicies.map((p) => `{"name":"EndpointPolicy","value":${JSON.stringify(p)}}`).join(',')
      : '') +
    ']}';

  const cases = [
    // sdnbridge_windows_test.go: CreateBridgeTestNetwork, MakeTestStruct(…, true, true, …)
    {
      binary: 'sdnbridge',
      name: 'bridgeNet',
      type: 'L2Bridge',
      epPols: true,
      needGW: true,
      subnetPolicies: undefined,
    },
    // sdnoverlay_windows_test.go: ipams[0].Subnets[0].Policies = GetVsidPol(); MakeTestStruct(…, true, false, …)
    {
      binary: 'sdnoverlay',
      name: 'overlayNet',
      type: 'Overlay',
      epPols: true,
      needGW: false,
      subnetPolicies: [{ Type: 'VSID', Settings: { IsolationId: 4096 } }],
    },
    // nat_windows_test.go: CreateNatTestNetwork, MakeTestStruct(…, false, false, …)
    { binary: 'nat', name: 'natNet', type: 'NAT', epPols: false, needGW: false, subnetPolicies: undefined },
  ] as const;

  for (const c of cases) {
    it(`${c.binary}: ADD puts <cid>_${c.name} on the network and in the namespace; DEL removes it`, async () => {
      const n = node();
      const network = await n.hcn.createNetwork({
        Name: c.name,
        Type: c.type,
        SchemaVersion: { Major: 2, Minor: 0 },
        Ipams: defaultIpams(c.subnetPolicies ? [...c.subnetPolicies] : undefined) as never,
      });
      if (c.needGW) {
        // CreateGatewayEp: "GwEp" at the netconf's route gateway
        await n.hcn.createEndpoint({
          Name: 'GwEp',
          HostComputeNetwork: network.ID,
          SchemaVersion: { Major: 2, Minor: 0 },
          IpConfigurations: [{ IpAddress: '10.0.0.2', PrefixLength: 0 }],
          Routes: [{ NextHop: '0.0.0.0', DestinationPrefix: '0.0.0.0/0' }],
        });
      }
      const ns = await n.namespace();
      const cid = `${c.type}TestUnitContainer`;
      // CreateArgs: Args is the JSON of K8SPodEnvArgs, which types.LoadArgs cannot read
      const args = '{"K8S_POD_NAMESPACE":"test-default"}';
      const conf = netconf(c.name, c.type, c.needGW, c.epPols);

      const add = await n.cni('ADD', conf, { cid, netns: ns, args, plugin: c.binary, ifName: 'Ethernet' });
      expect(add.exitCode, add.stdout).toBe(0);
      const ep = await n.endpoint(`${cid}_${c.name}`);
      expect(ep).toBeDefined();
      // verifyAddEndpointProperties
      expect(ep!.HostComputeNamespace.toLowerCase()).toBe(ns.toLowerCase());
      expect(ep!.HostComputeNetwork.toLowerCase()).toBe(network.ID.toLowerCase());
      expect(ep!.Policies).toEqual(c.epPols ? defaultPolicies : []);
      // the namespace did not get the pod namespace prefix (Args did not parse) and no IPAM ran
      expect(ep!.Dns).toEqual({
        Search: ['svc.cluster.local', 'svc.cluster.local'],
        ServerList: ['10.50.10.50', '8.8.8.8'],
      });
      expect(ep!.Routes).toEqual([{ NextHop: `10.0.0.${c.needGW ? 2 : 1}`, DestinationPrefix: '0.0.0.0/0' }]);
      // verifyAddNamespaceProperties: the namespace's first resource names the endpoint (upper case)
      const nsDoc = await n.hcn.getNamespaceByID(ns);
      expect(JSON.stringify(nsDoc.Resources[0]?.Data)).toContain(ep!.ID.toUpperCase());
      // the result, at 0.2.0: HNS's address in the network's /16, the netconf gateway
      const ip = ep!.IpConfigurations[0]!.IpAddress!;
      expect(JSON.parse(add.stdout)).toEqual({
        cniVersion: '0.2.0',
        ip4: { ip: `${ip}/16`, gateway: `10.0.0.${c.needGW ? 2 : 1}` },
        dns: {},
      });

      const del = await n.cni('DEL', conf, { cid, netns: ns, args, plugin: c.binary, ifName: 'Ethernet' });
      expect(del).toEqual({ exitCode: 0, stdout: '', stderr: '' });
      expect(await n.endpoint(`${cid}_${c.name}`)).toBeUndefined();
      expect(await n.hcn.getNamespaceEndpointIds(ns)).toEqual([]);
      // the network was the test's own and stays
      expect((await n.hcn.getNetworkByName(c.name)).ID).toBe(network.ID);
    });
  }
});

// ────────────────────────────────────────── example confs ────────────────────────────────────

/** example/l2bridge.conf @ b96345f. */
const L2BRIDGE_CONF = {
  cniVersion: '0.2.0',
  name: 'l2bridgeNetwork',
  type: 'l2bridge',
  master: 'Ethernet',
  capabilities: { portMappings: true, dnsCapabilities: true },
  optionalFlags: { loopbackDSR: false },
  ipam: { subnet: '192.168.1.0/24', routes: [{ GW: '192.168.1.2' }] },
  dns: { Nameservers: ['11.0.0.10'], Search: ['svc.cluster.local'] },
  AdditionalArgs: [
    endpointPolicy({
      Type: 'OutBoundNAT',
      Settings: { Exceptions: ['192.168.0.0/16', '11.0.0.0/8', '10.124.24.0/23'] },
    }),
    endpointPolicy({ Type: 'SDNRoute', Settings: { DestinationPrefix: '11.0.0.0/8', NeedEncap: true } }),
    endpointPolicy({
      Type: 'SDNRoute',
      Settings: { DestinationPrefix: '10.124.24.196/32', NeedEncap: true },
    }),
  ],
};

/** example/l2bridgedualstack_host-local_ipam.conf @ b96345f. */
const DUALSTACK_CONF = {
  cniVersion: '0.2.0',
  name: 'winl2bridge',
  type: 'sdnbridge',
  master: 'Ethernet',
  capabilities: { portMappings: true, dnsCapabilities: true },
  optionalFlags: { localRoutedPortMapping: true, allowAclPortMapping: true, enableDualStack: true },
  ipam: {
    type: 'host-local',
    ranges: [
      [
        {
          subnet: '192.168.1.0/24',
          rangeStart: '192.168.1.10',
          rangeEnd: '192.168.1.50',
          gateway: '192.168.1.2',
        },
      ],
      [{ subnet: 'fd00::100/120', rangeStart: 'fd00::102', rangeEnd: 'fd00::1fe', gateway: 'fd00::101' }],
    ],
  },
  dns: { Nameservers: ['10.127.130.7'], Search: ['svc.cluster.local'] },
  AdditionalArgs: [
    endpointPolicy({
      Type: 'OutBoundNAT',
      Settings: { Exceptions: ['192.168.0.0/16', '11.0.0.0/8', '10.124.24.0/23'] },
    }),
    endpointPolicy({
      Type: 'OutBoundNAT',
      Settings: {
        VirtualIP: 'fc00::123',
        Destinations: ['fd01::192', 'fd01::193'],
        Exceptions: ['fd03::100/120', 'fd04::100/120'],
      },
    }),
    endpointPolicy({ Type: 'SDNRoute', Settings: { DestinationPrefix: '11.0.0.0/8', NeedEncap: true } }),
    endpointPolicy({ Type: 'SDNRoute', Settings: { DestinationPrefix: 'fd00::200/120', NeedEncap: true } }),
  ],
};

describe('example confs', () => {
  it('example/l2bridge.conf as shipped: "l2bridge" is not a type any more (P17, commit 1181792); nothing changes', async () => {
    const n = node();
    const ns = await n.namespace();
    const before = JSON.stringify(n.host.snapshot());
    const out = await n.cni('ADD', L2BRIDGE_CONF, { netns: ns, plugin: 'sdnbridge' });
    expect(errorOf(out)).toEqual({
      code: 999,
      msg: `Unsupported CNI config 'type' "l2bridge". Options are the keys/values from: map[nat:NAT sdnbridge:L2Bridge sdnoverlay:Overlay]`,
    });
    expect(JSON.stringify(n.host.snapshot())).toBe(before);
  });

  it('example/l2bridge.conf with type sdnbridge: creates the L2Bridge network, HNS picks the address', async () => {
    const n = node();
    const ns = await n.namespace();
    const out = await n.cni('ADD', { ...L2BRIDGE_CONF, type: 'sdnbridge' }, { netns: ns });
    expect(out.exitCode, out.stdout).toBe(0);
    const network = await n.hcn.getNetworkByName('l2bridgeNetwork');
    expect(network.Type).toBe('L2Bridge');
    expect(network.Ipams).toEqual([
      {
        Type: 'Static',
        Subnets: [
          {
            IpAddressPrefix: '192.168.1.0/24',
            Routes: [{ NextHop: '192.168.1.2', DestinationPrefix: '0.0.0.0/0' }],
          },
        ],
      },
    ]);
    const ep = (await n.endpoint('c1_l2bridgeNetwork'))!;
    expect(ep.Policies).toEqual(L2BRIDGE_CONF.AdditionalArgs.map((a) => a.Value));
    // K8S_POD_NAMESPACE=default prefixes the first search domain
    expect(ep.Dns).toEqual({ Search: ['default.svc.cluster.local'], ServerList: ['11.0.0.10'] });
    expect(network.Dns).toEqual({ Search: ['default.svc.cluster.local'], ServerList: ['11.0.0.10'] });
    const ip = ep.IpConfigurations[0]!.IpAddress!;
    expect(ip.startsWith('192.168.1.')).toBe(true);
    expect(out.stdout).toBe(
      `{\n    "cniVersion": "0.2.0",\n    "ip4": {\n        "ip": "${ip}/24",\n        "gateway": "192.168.1.2"\n    },\n    "dns": {}\n}`,
    );
  });

  it('example/nat.conf: the routes\' "gateway" key is unknown, so the gateway is the subnet address + 1', async () => {
    // example/nat.conf @ b96345f
    const NAT_CONF = {
      cniVersion: '0.2.0',
      name: 'natNetwork',
      type: 'nat',
      master: 'Ethernet',
      ipam: { subnet: '192.168.100.0/24', routes: [{ gateway: '192.168.100.1' }] },
    };
    const n = node();
    const ns = await n.namespace();
    const out = await n.cni('ADD', NAT_CONF, { netns: ns });
    expect(out.exitCode, out.stdout).toBe(0);
    const network = await n.hcn.getNetworkByName('natNetwork');
    expect(network.Type).toBe('NAT');
    expect(network.Ipams[0]!.Subnets![0]!.Routes).toEqual([
      { NextHop: '192.168.100.1', DestinationPrefix: '0.0.0.0/0' },
    ]);
    const ep = (await n.endpoint('c1_natNetwork'))!;
    expect(ep.Routes).toEqual([{ NextHop: '192.168.100.1', DestinationPrefix: '0.0.0.0/0' }]);
    expect(ep.Policies).toEqual([]);
  });

  it('example/l2bridgedualstack_host-local_ipam.conf: the L2Bridge network must exist beforehand', async () => {
    const n = node();
    const ns = await n.namespace();
    expect(errorOf(await n.cni('ADD', DUALSTACK_CONF, { netns: ns }))).toEqual({
      code: 999,
      msg: 'Network name "winl2bridge" not found',
    });
    await n.hcn.createNetwork({ Name: 'winl2bridge', Type: 'NAT', SchemaVersion: { Major: 2, Minor: 0 } });
    expect(errorOf(await n.cni('ADD', DUALSTACK_CONF, { netns: ns }))).toEqual({
      code: 999,
      msg: 'Dual stack specified with non l2bridge network',
    });
    expect(n.host.files.entries().filter(([p]) => p.includes('winl2bridge'))).toEqual([]);
  });

  it('example/l2bridgedualstack_host-local_ipam.conf on a dual-stack L2Bridge: host-local gets the original ranges', async () => {
    const n = node();
    const ns = await n.namespace();
    await n.hcn.createNetwork({
      Name: 'winl2bridge',
      Type: 'L2Bridge',
      SchemaVersion: { Major: 2, Minor: 0 },
      Ipams: [
        {
          Type: 'Static',
          Subnets: [
            {
              IpAddressPrefix: '192.168.1.0/24',
              Routes: [{ NextHop: '192.168.1.2', DestinationPrefix: '0.0.0.0/0' }],
            },
            {
              IpAddressPrefix: 'fd00::100/120',
              Routes: [{ NextHop: 'fd00::101', DestinationPrefix: '::/0' }],
            },
          ],
        },
      ],
    });
    const withPorts = {
      ...DUALSTACK_CONF,
      runtimeConfig: { portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'TCP' }] },
    };
    const out = await n.cni('ADD', withPorts, { netns: ns });
    expect(out.exitCode, out.stdout).toBe(0);
    // rangeStart of each range set
    expect(JSON.parse(out.stdout)).toEqual({
      cniVersion: '0.2.0',
      ip4: { ip: '192.168.1.10/24', gateway: '192.168.1.2' },
      ip6: { ip: 'fd00::102/120', gateway: 'fd00::101' },
      dns: {},
    });
    const ep = (await n.endpoint('c1_winl2bridge'))!;
    expect(ep.IpConfigurations.map((c) => c.IpAddress)).toEqual(['192.168.1.10', 'fd00::102']);
    expect(ep.Routes).toEqual([
      { NextHop: '192.168.1.2', DestinationPrefix: '0.0.0.0/0' },
      { NextHop: 'fd00::101', DestinationPrefix: '::/0' },
    ]);
    // port mapping (local-routed), its IPv6 twin, the ACL, then the AdditionalArgs
    expect(ep.Policies).toEqual([
      { Type: 'PortMapping', Settings: { Protocol: 6, InternalPort: 80, ExternalPort: 8080, Flags: 1 } },
      { Type: 'PortMapping', Settings: { Protocol: 6, InternalPort: 80, ExternalPort: 8080, Flags: 3 } },
      {
        Type: 'ACL',
        Settings: { Protocols: '6', Action: 'Allow', Direction: 'In', LocalPorts: '80', Priority: 1000 },
      },
      ...DUALSTACK_CONF.AdditionalArgs.map((a) => a.Value),
    ]);
    expect(allocations(n.host, 'winl2bridge').sort()).toEqual(['192.168.1.10', 'fd00__102']);

    expect((await n.cni('DEL', withPorts, { netns: ns })).exitCode).toBe(0);
    expect(await n.endpoint('c1_winl2bridge')).toBeUndefined();
    expect(allocations(n.host, 'winl2bridge')).toEqual([]);
  });
});

// ───────────────────────────────────────────── P12 ───────────────────────────────────────────

describe('P12: host-local ranges are dropped when dual-stack is off (WCN#64)', () => {
  const conf = { ...DUALSTACK_CONF, optionalFlags: { enableDualStack: false } };

  it('ADD fails with host-local\'s "no IP ranges specified" after WCN has created the network', async () => {
    const n = node();
    const ns = await n.namespace();
    const out = await n.cni('ADD', conf, { netns: ns });
    expect(errorOf(out)).toEqual({ code: 999, msg: 'no IP ranges specified' });
    // getOrCreateNetwork ran before IPAM: the network stays, no endpoint, no allocation
    expect((await n.hcn.getNetworkByName('winl2bridge')).Type).toBe('L2Bridge');
    expect(await n.endpoint('c1_winl2bridge')).toBeUndefined();
    expect(allocations(n.host, 'winl2bridge')).toEqual([]);
  });

  it('DEL fails the same way and keeps whatever endpoint there is (P3)', async () => {
    const n = node();
    expect(errorOf(await n.cni('DEL', conf))).toEqual({
      code: 999,
      msg: 'ipam deletion failed, no IP ranges specified',
    });
  });

  it('the legacy ipam.subnet form survives the re-serialisation and works', async () => {
    const n = node();
    const ns = await n.namespace();
    const legacy = {
      cniVersion: '0.4.0',
      name: 'cbr0',
      type: 'sdnbridge',
      ipam: { type: 'host-local', subnet: '10.244.1.0/24' },
    };
    const out = await n.cni('ADD', legacy, { netns: ns });
    expect(out.exitCode, out.stdout).toBe(0);
    // host-local's first address is .2 (the gateway defaults to .1)
    expect(JSON.parse(out.stdout).ips).toEqual([
      { version: '4', interface: 0, address: '10.244.1.2/24', gateway: '10.244.1.1' },
    ]);
    expect(allocations(n.host, 'cbr0')).toEqual(['10.244.1.2']);
  });

  it('an ipam route without dst reaches host-local as "<nil>", which it cannot parse', async () => {
    const n = node();
    const ns = await n.namespace();
    const out = await n.cni(
      'ADD',
      {
        cniVersion: '0.4.0',
        name: 'cbr0',
        type: 'sdnbridge',
        ipam: { type: 'host-local', subnet: '10.244.1.0/24', routes: [{ GW: '10.244.1.2' }] },
      },
      { netns: ns },
    );
    expect(errorOf(out)).toEqual({ code: 999, msg: 'invalid CIDR address: <nil>' });
  });
});

// ────────────────────────────────────── sig-windows-tools ────────────────────────────────────

/**
 * The delegate flannel's Windows `doCmdAdd` hands over (reference §5.1): the conf's `delegate` plus
 * name, cniVersion, ipMasq (FLANNEL_IPMASQ as-is), ipMasqNetwork and a host-local ipam with the
 * node's subnet; WCN drops the keys it does not know. subnet.env: FLANNEL_NETWORK=10.244.0.0/16,
 * FLANNEL_SUBNET=10.244.1.1/24, FLANNEL_IPMASQ=true.
 */
function flannelDelegate(name: string, delegate: object): object {
  return {
    ...delegate,
    cniVersion: '0.2.0',
    ipMasq: true,
    ipMasqNetwork: '10.244.0.0/16',
    ipam: { subnet: '10.244.1.0/24', type: 'host-local' },
    name,
  };
}

describe('example/flannel_l2bridge.conf through flannel', () => {
  it('forceBridgeGateway: the gateway is .2, the three policies reach the endpoint', async () => {
    // example/flannel_l2bridge.conf @ b96345f, its "delegate"
    const delegate = {
      type: 'sdnbridge',
      optionalFlags: { forceBridgeGateway: true, loopbackDSR: false },
      AdditionalArgs: [
        endpointPolicy({ Type: 'OutBoundNAT', Settings: { Exceptions: ['10.244.0.0/16', '10.96.0.0/12'] } }),
        endpointPolicy({
          Type: 'SDNRoute',
          Settings: { DestinationPrefix: '10.96.0.0/12', NeedEncap: true },
        }),
        endpointPolicy({
          Type: 'SDNRoute',
          Settings: { DestinationPrefix: '10.132.34.98/32', NeedEncap: true },
        }),
      ],
    };
    const n = node();
    const ns = await n.namespace();
    const out = await n.cni('ADD', flannelDelegate('cbr0', delegate), { netns: ns });
    expect(out.exitCode, out.stdout).toBe(0);
    const ep = (await n.endpoint('c1_cbr0'))!;
    expect(ep.Policies).toEqual(delegate.AdditionalArgs.map((a) => a.Value));
    expect(ep.Routes).toEqual([{ NextHop: '10.244.1.2', DestinationPrefix: '0.0.0.0/0' }]);
    // host-local's legacy "subnet" is also WCN's ipam.subnet: the network WCN creates gets it, via .1
    const network = await n.hcn.getNetworkByName('cbr0');
    expect(network.Ipams[0]!.Subnets).toEqual([
      {
        IpAddressPrefix: '10.244.1.0/24',
        Routes: [{ NextHop: '10.244.1.1', DestinationPrefix: '0.0.0.0/0' }],
      },
    ]);
    // host-local hands out .2, the very address forceBridgeGateway names as gateway (on a real node
    // flanneld's cbr0_ep holds .2 already and HNS refuses the duplicate: P2)
    expect(JSON.parse(out.stdout)).toEqual({
      cniVersion: '0.2.0',
      ip4: { ip: '10.244.1.2/24', gateway: '10.244.1.2' },
      dns: {},
    });
  });
});

describe('sig-windows-tools flannel containerd delegates (kubeadm/flannel @ 70413fd^)', () => {
  /** The host-gw delegate after run.ps1 and flannel: service 10.96.0.0/12, pod 10.244.0.0/16, node 10.244.1.0/24. */
  const hostGw = (exceptions: string[], prefixes: [string, string]): object =>
    flannelDelegate('cbr0', {
      type: 'sdnbridge',
      optionalFlags: { forceBridgeGateway: true },
      AdditionalArgs: [
        endpointPolicy({ Type: 'OutBoundNAT', Settings: { Exceptions: exceptions } }),
        endpointPolicy({ Type: 'SDNROUTE', Settings: { DestinationPrefix: prefixes[0], NeedEncap: true } }),
        endpointPolicy({ Type: 'SDNROUTE', Settings: { DestinationPrefix: prefixes[1], NeedEncap: true } }),
      ],
    });

  it("substituted: forceBridgeGateway makes the gateway .2 — and host-local's first address is .2 too (P2)", async () => {
    const n = node();
    const ns = await n.namespace();
    const conf = hostGw(
      ['10.96.0.0/12', '10.244.0.0/16', '10.244.1.0/24'],
      ['10.96.0.0/12', `${HOST_IP}/32`],
    );
    const out = await n.cni('ADD', conf, { netns: ns });
    expect(out.exitCode, out.stdout).toBe(0);
    const ep = (await n.endpoint('c1_cbr0'))!;
    expect(ep.IpConfigurations.map((c) => c.IpAddress)).toEqual(['10.244.1.2']);
    expect(ep.Routes).toEqual([{ NextHop: '10.244.1.2', DestinationPrefix: '0.0.0.0/0' }]);
    // HNS reads the type case-insensitively (upstream's comparePolicyLists compares it that way too)
    expect(ep.Policies.map((p) => p.Type.toLowerCase())).toEqual(['outboundnat', 'sdnroute', 'sdnroute']);
    expect(ep.Policies.map((p) => p.Settings)).toEqual([
      { Exceptions: ['10.96.0.0/12', '10.244.0.0/16', '10.244.1.0/24'] },
      { DestinationPrefix: '10.96.0.0/12', NeedEncap: true },
      { DestinationPrefix: `${HOST_IP}/32`, NeedEncap: true },
    ]);
    // a second pod gets .3
    const ns2 = await n.namespace();
    expect((await n.cni('ADD', conf, { cid: 'c2', netns: ns2 })).exitCode).toBe(0);
    expect((await n.endpoint('c2_cbr0'))!.IpConfigurations[0]!.IpAddress).toBe('10.244.1.3');
  });

  it('unsubstituted template (empty Exceptions, DestinationPrefix ""): HNS rejects the policies (P9); IPAM is released', async () => {
    const n = node();
    const ns = await n.namespace();
    const out = await n.cni('ADD', hostGw([], ['', '']), { netns: ns });
    const err = errorOf(out);
    expect(err.code).toBe(999);
    expect(err.msg).toMatch(/^error creating endpoint hcnCreateEndpoint failed in Win32: .*\(0x803b000d\)/);
    // the config struct as Go's %v prints it: &{Id Name HostComputeNetwork HostComputeNamespace Policies …}
    expect(err.msg).toContain(' : endpoint config &{ c1_cbr0 ');
    expect(err.msg).toContain(
      '[{10.244.1.2 0}] { [] [] []} [{10.244.1.2 0.0.0.0/0 0}]  0 {<nil> {[] []    }} {2 0}}',
    );
    // the deferred IPAM DEL ran
    expect(allocations(n.host, 'cbr0')).toEqual([]);
    expect(await n.endpoint('c1_cbr0')).toBeUndefined();
  });

  it('the overlay delegate: sdnoverlay with ProviderAddress = node IP', async () => {
    const n = node();
    const ns = await n.namespace();
    const delegate = {
      type: 'sdnoverlay',
      AdditionalArgs: [
        endpointPolicy({ Type: 'OutBoundNAT', Settings: { Exceptions: ['10.96.0.0/12', '10.244.0.0/16'] } }),
        endpointPolicy({
          Type: 'SDNROUTE',
          Settings: { DestinationPrefix: '10.96.0.0/12', NeedEncap: true },
        }),
        endpointPolicy({ Type: 'ProviderAddress', Settings: { ProviderAddress: HOST_IP } }),
      ],
    };
    const out = await n.cni('ADD', flannelDelegate('flannel.4096', delegate), { netns: ns });
    expect(out.exitCode, out.stdout).toBe(0);
    const network = await n.hcn.getNetworkByName('flannel.4096');
    expect(network.Type).toBe('Overlay');
    const ep = (await n.endpoint('c1_flannel.4096'))!;
    expect(ep.Policies.map((p) => ({ ...p, Type: p.Type.toLowerCase() }))).toEqual(
      delegate.AdditionalArgs.map((a) => ({ ...a.Value, Type: a.Value.Type.toLowerCase() })),
    );
    expect(ep.Routes).toEqual([{ NextHop: '10.244.1.1', DestinationPrefix: '0.0.0.0/0' }]);
  });
});

// ──────────────────────────────────── ADD and DEL semantics ──────────────────────────────────

describe('ADD', () => {
  const conf = {
    cniVersion: '1.0.0',
    name: 'cbr0',
    type: 'sdnbridge',
    ipam: { type: 'host-local', subnet: '10.244.1.0/24' },
  };

  it('prints the 1.0.0 result: CNI_IFNAME, the raw MAC bytes, interface 0, "dns": {}', async () => {
    const n = node();
    const ns = await n.namespace();
    const out = await n.cni('ADD', conf, { netns: ns });
    expect(out.exitCode, out.stdout).toBe(0);
    const ep = (await n.endpoint('c1_cbr0'))!;
    // this node's first MAC: 00-15-5D-AB-90-00; string(net.HardwareAddr) is its six bytes, and
    // encoding/json writes 0x00 and 0x15 as \u00XX, 0x5d as "]", and 0xab, 0x90 (invalid UTF-8) as \ufffd
    expect(ep.MacAddress).toBe('00-15-5D-AB-90-00');
    expect(out.stdout).toBe(
      [
        '{',
        '    "cniVersion": "1.0.0",',
        '    "interfaces": [',
        '        {',
        '            "name": "eth0",',
        '            "mac": "\\u0000\\u0015]\\ufffd\\ufffd\\u0000"',
        '        }',
        '    ],',
        '    "ips": [',
        '        {',
        '            "interface": 0,',
        '            "address": "10.244.1.2/24",',
        '            "gateway": "10.244.1.1"',
        '        }',
        '    ],',
        '    "dns": {}',
        '}',
      ].join('\n'),
    );
  });

  it('takes the network type from the config, not from the binary it runs as', async () => {
    const n = node();
    const ns = await n.namespace();
    const out = await n.cni(
      'ADD',
      { cniVersion: '0.4.0', name: 'ovl', type: 'sdnoverlay' },
      { netns: ns, plugin: 'nat' },
    );
    expect(out.exitCode, out.stdout).toBe(0);
    expect((await n.hcn.getNetworkByName('ovl')).Type).toBe('Overlay');
  });

  it('is idempotent for an endpoint already on the network (P6): no second IPAM call, no attach', async () => {
    const n = node();
    const ns = await n.namespace();
    const first = await n.cni('ADD', conf, { netns: ns });
    const second = await n.cni('ADD', conf, { netns: ns });
    expect(second).toEqual(first);
    expect(allocations(n.host, 'cbr0')).toEqual(['10.244.1.2']);
    expect((await n.hcn.listEndpoints()).length).toBe(1);
  });

  it('leaks the endpoint when AddNamespaceEndpoint fails (P4), releases IPAM, and a retry returns the unattached endpoint', async () => {
    const n = node();
    const gone = '11111111-2222-3333-4444-555555555555';
    const err = errorOf(await n.cni('ADD', conf, { netns: gone }));
    expect(err.msg).toMatch(
      /^error adding endpoint to namespace .*\(0x490\).* : endpoint &\{[0-9A-F-]{36} c1_cbr0 /,
    );
    const leaked = (await n.endpoint('c1_cbr0'))!;
    expect(leaked).toBeDefined();
    expect(leaked.HostComputeNamespace).toBe('');
    expect(allocations(n.host, 'cbr0')).toEqual([]);

    const ns = await n.namespace();
    const retry = await n.cni('ADD', conf, { netns: ns });
    expect(retry.exitCode).toBe(0);
    expect(JSON.parse(retry.stdout).ips[0].address).toBe('10.244.1.2/24');
    // the address was released, the endpoint kept it, and nobody attached it
    expect(allocations(n.host, 'cbr0')).toEqual([]);
    expect(await n.hcn.getNamespaceEndpointIds(ns)).toEqual([]);
  });

  it('an EndpointPolicy value that is not a policy panics: exit 2, nothing on stdout, IPAM not released', async () => {
    const n = node();
    const ns = await n.namespace();
    const out = await n.cni(
      'ADD',
      { ...conf, AdditionalArgs: [endpointPolicy('OutBoundNAT')] },
      { netns: ns },
    );
    expect(out.exitCode).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toMatch(
      /^panic: json: cannot unmarshal string into Go value of type hcn\.EndpointPolicy\n\ngoroutine 1 \[running\]:/,
    );
    expect(allocations(n.host, 'cbr0')).toEqual(['10.244.1.2']);
    expect(await n.endpoint('c1_cbr0')).toBeUndefined();
  });

  it('passes an IPAM error through as it is', async () => {
    const n = node({ fake: { fail: { ADD: new Error('no more addresses') } } });
    const ns = await n.namespace();
    const out = await n.cni(
      'ADD',
      { cniVersion: '0.4.0', name: 'cbr0', type: 'sdnbridge', ipam: { type: 'fake-ipam' } },
      { netns: ns },
    );
    expect(errorOf(out)).toEqual({ code: 999, msg: 'no more addresses' });
    // the IPAM plugin got WCN's re-serialised config with the mapped type
    expect(n.ipam.calls[0]!.conf['type']).toBe('L2Bridge');
    expect(n.ipam.calls[0]!.conf['ipam']).toEqual({ type: 'fake-ipam' });
  });

  it('reads the IPAM result as 0.2.0: only its first IPv4 address and gateway are used', async () => {
    const n = node({
      fake: {
        add: JSON.stringify({
          cniVersion: '1.0.0',
          ips: [
            { address: '10.244.1.7/24', gateway: '10.244.1.1' },
            { address: '10.244.1.8/24', gateway: '10.244.1.254' },
          ],
          routes: [{ dst: '0.0.0.0/0', gw: '10.244.1.254' }],
        }),
      },
    });
    const ns = await n.namespace();
    const out = await n.cni(
      'ADD',
      {
        cniVersion: '1.0.0',
        name: 'cbr0',
        type: 'sdnbridge',
        ipam: { type: 'fake-ipam', subnet: '10.244.1.0/24' },
      },
      { netns: ns },
    );
    expect(out.exitCode, out.stdout).toBe(0);
    const ep = (await n.endpoint('c1_cbr0'))!;
    expect(ep.IpConfigurations.map((c) => c.IpAddress)).toEqual(['10.244.1.7']);
    expect(ep.Routes).toEqual([{ NextHop: '10.244.1.1', DestinationPrefix: '0.0.0.0/0' }]);
  });

  it('an IPAM result with no address cannot be converted to 0.2.0', async () => {
    const n = node({ fake: { add: JSON.stringify({ cniVersion: '1.0.0', ips: [] }) } });
    const ns = await n.namespace();
    const out = await n.cni(
      'ADD',
      { cniVersion: '1.0.0', name: 'cbr0', type: 'sdnbridge', ipam: { type: 'fake-ipam' } },
      { netns: ns },
    );
    expect(errorOf(out)).toEqual({ code: 999, msg: 'cannot convert: no valid IP addresses' });
    // the deferred IPAM DEL did not run: allocateIpam itself failed
    expect(n.ipam.calls.map((c) => c.command)).toEqual(['ADD']);
  });

  it('gatewayFromAdditionalRoutes fills a gateway the IPAM result lacks', async () => {
    const n = node({ fake: { add: JSON.stringify({ cniVersion: '0.2.0', ip4: { ip: '10.244.1.9/24' } }) } });
    const ns = await n.namespace();
    const out = await n.cni(
      'ADD',
      {
        cniVersion: '0.2.0',
        name: 'cbr0',
        type: 'sdnbridge',
        ipam: { type: 'fake-ipam', subnet: '10.244.1.0/24' },
        optionalFlags: { gatewayFromAdditionalRoutes: true },
        additionalRoutes: [
          { dst: '10.0.0.0/8', gw: '10.244.1.200' },
          { dst: '0.0.0.0/0', gw: '10.244.1.254' },
        ],
      },
      { netns: ns },
    );
    expect(out.exitCode, out.stdout).toBe(0);
    expect((await n.endpoint('c1_cbr0'))!.Routes).toEqual([
      { NextHop: '10.244.1.254', DestinationPrefix: '0.0.0.0/0' },
    ]);
    expect(JSON.parse(out.stdout).ip4).toEqual({ ip: '10.244.1.9/24', gateway: '10.244.1.254' });
  });

  it('runtime port mappings with allowAclPortMapping: the §4.3 PortMapping and ACL documents reach HNS', async () => {
    const n = node();
    const ns = await n.namespace();
    const out = await n.cni(
      'ADD',
      {
        cniVersion: '0.4.0',
        name: 'natnet',
        type: 'nat',
        ipam: { subnet: '172.20.0.0/24' },
        optionalFlags: { allowAclPortMapping: true },
        runtimeConfig: { portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }] },
      },
      { netns: ns },
    );
    expect(out.exitCode, out.stdout).toBe(0);
    expect((await n.endpoint('c1_natnet'))!.Policies).toEqual([
      { Type: 'PortMapping', Settings: { Protocol: 6, InternalPort: 80, ExternalPort: 8080 } },
      {
        Type: 'ACL',
        Settings: { Protocols: '6', Action: 'Allow', Direction: 'In', LocalPorts: '80', Priority: 1000 },
      },
    ]);
  });
});

describe('loopbackDSR (P10)', () => {
  const conf = {
    cniVersion: '0.2.0',
    name: 'cbr0',
    type: 'sdnbridge',
    optionalFlags: { loopbackDSR: true },
    ipam: { type: 'host-local', subnet: '10.244.1.0/24' },
    AdditionalArgs: [endpointPolicy({ Type: 'OutBoundNAT', Settings: { Exceptions: ['10.244.0.0/16'] } })],
  };

  it('on an HNS without DSR (10.1) ADD fails before touching anything (win-bridge would skip the policy)', async () => {
    const n = node({ profile: '10.1' });
    const ns = await n.namespace();
    const before = JSON.stringify(n.host.snapshot());
    expect(errorOf(await n.cni('ADD', conf, { netns: ns }))).toEqual({
      code: 999,
      msg: 'Platform does not support feature Direct Server Return (DSR)',
    });
    expect(JSON.stringify(n.host.snapshot())).toBe(before);
  });

  it('with DSR the OutBoundNAT Destinations [pod IP] policy is appended last', async () => {
    const n = node();
    const ns = await n.namespace();
    expect((await n.cni('ADD', conf, { netns: ns })).exitCode).toBe(0);
    expect((await n.endpoint('c1_cbr0'))!.Policies).toEqual([
      { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.244.0.0/16'] } },
      { Type: 'OutBoundNAT', Settings: { Destinations: ['10.244.1.2'] } },
    ]);
  });
});

describe('DEL', () => {
  const conf = {
    cniVersion: '0.4.0',
    name: 'cbr0',
    type: 'sdnbridge',
    ipam: { type: 'host-local', subnet: '10.244.1.0/24' },
  };

  it('releases the address and deletes the endpoint; a second DEL succeeds', async () => {
    const n = node();
    const ns = await n.namespace();
    expect((await n.cni('ADD', conf, { netns: ns })).exitCode).toBe(0);
    expect(await n.cni('DEL', conf, { netns: ns })).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(await n.endpoint('c1_cbr0')).toBeUndefined();
    expect(allocations(n.host, 'cbr0')).toEqual([]);
    expect(await n.cni('DEL', conf, { netns: ns })).toEqual({ exitCode: 0, stdout: '', stderr: '' });
  });

  it('tolerates a namespace that is already gone (P5)', async () => {
    const n = node();
    const ns = await n.namespace();
    expect((await n.cni('ADD', conf, { netns: ns })).exitCode).toBe(0);
    const ep = (await n.endpoint('c1_cbr0'))!;
    await n.hcn.removeNamespaceEndpoint(ns, ep.ID);
    await (await n.hcn.getNamespaceByID(ns)).delete();
    expect((await n.cni('DEL', conf)).exitCode).toBe(0);
    expect(await n.endpoint('c1_cbr0')).toBeUndefined();
  });

  it('keeps the endpoint when IPAM DEL fails (P3)', async () => {
    const n = node({
      fake: {
        add: JSON.stringify({ cniVersion: '0.2.0', ip4: { ip: '10.244.1.5/24', gateway: '10.244.1.1' } }),
        fail: { DEL: new Error('store is locked') },
      },
    });
    const ns = await n.namespace();
    const fake = {
      cniVersion: '0.4.0',
      name: 'cbr0',
      type: 'sdnbridge',
      ipam: { type: 'fake-ipam', subnet: '10.244.1.0/24' },
    };
    expect((await n.cni('ADD', fake, { netns: ns })).exitCode).toBe(0);
    expect(errorOf(await n.cni('DEL', fake, { netns: ns }))).toEqual({
      code: 999,
      msg: 'ipam deletion failed, store is locked',
    });
    expect(await n.endpoint('c1_cbr0')).toBeDefined();
  });

  it('leaves the network in place', async () => {
    const n = node();
    const ns = await n.namespace();
    expect((await n.cni('ADD', conf, { netns: ns })).exitCode).toBe(0);
    expect((await n.cni('DEL', conf, { netns: ns })).exitCode).toBe(0);
    expect((await n.hcn.getNetworkByName('cbr0')).Type).toBe('L2Bridge');
  });
});
