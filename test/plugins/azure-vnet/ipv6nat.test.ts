// azure-vnet's legacy dual-stack path, `ipv6Mode: ipv6nat` (ACN v1.8.12 cni/network/invoker_azure.go,
// network_windows.go getIPV6EndpointPolicy, cni/ipam/pluginv6): the IPv4 address from
// azure-vnet-ipam (the wireserver), the IPv6 one from azure-vnet-ipamv6 (the node's pod CIDR in the
// Kubernetes API, its first /120), one endpoint with both, an OutBoundNAT excepting the v6 pod
// prefix; failures release what was taken.
import { describe, expect, it, vi } from 'vitest';
import { HcsClient } from '../../../src/api/hcs/client.js';
import { HnsV1Client } from '../../../src/api/hnsv1/client.js';
import { createHost, type Host } from '../../../src/host/host.js';
import { execPlugin } from '../../../src/plugins/index.js';
import {
  ipamRecords,
  addExtNetwork,
  aksPluginConf,
  cid,
  namespace,
  podArgs,
  AZURE_CNI_BIN,
  SYSTEM32,
  vnet,
} from './kit.js';

const V6_POD_CIDR = 'fd00:10:244:1::/64';

async function dualStackNode(
  options: { kube?: boolean; podCIDRs?: string[]; version?: string } = {},
): Promise<Host> {
  const host = createHost({
    name: 'akswin1',
    adapters: [
      {
        name: 'Ethernet',
        ipAddress: '10.224.0.4/16',
        gateway: '10.224.0.1',
        macAddress: '00-0D-3A-F9-DC-A6',
      },
    ],
    azure: { nics: [{ adapter: 'Ethernet', secondaryIps: ['10.224.0.5', '10.224.0.6'] }] },
    ...(options.kube === false
      ? {}
      : {
          kubernetes: {
            podCIDRs: options.podCIDRs ?? ['10.244.1.0/24', V6_POD_CIDR],
            ...(options.version ? { version: options.version } : {}),
          },
        }),
  });
  await addExtNetwork(host);
  return host;
}

const IPV6NAT = aksPluginConf((p) => {
  p['ipv6Mode'] = 'ipv6nat';
});

/** The taken records of an IPAM state file (`azure-vnet-ipam` or `azure-vnet-ipamv6`): address → ID. */
function inUse(host: Host, file: string, dir = SYSTEM32): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [a, r] of Object.entries(ipamRecords(host, dir, file)))
    if (r.InUse || r.ID !== '') out[a] = r.ID;
  return out;
}

describe('azure-vnet ipv6nat under containerd (HCN v2)', () => {
  it('asks both IPAMs and sends one endpoint with both addresses, the v6 OutBoundNAT and both IPAM routes', async () => {
    const host = await dualStackNode();
    const calls: { method: string; args: unknown[] }[] = [];
    const real = host.api.call.bind(host.api);
    vi.spyOn(host.api, 'call').mockImplementation((method, args) => {
      calls.push({ method, args: [...args] });
      return real(method, args);
    });
    const id = cid('a1');
    const out = await vnet(host, { command: 'ADD', id, netns: await namespace(host), conf: IPV6NAT });
    const create = calls.find((c) => c.method === 'HcnCreateEndpoint')!;
    const doc = JSON.parse(create.args[2] as string) as {
      IpConfigurations: unknown[];
      Policies: { Type: string; Settings: Record<string, unknown> }[];
      Routes: unknown[];
    };
    // invoker_azure.go: result.IPs = v4 then v6; ipam.go: each IPAM's route is 0.0.0.0/0 via its gateway
    expect(doc.IpConfigurations).toEqual([
      { IpAddress: '10.224.0.5', PrefixLength: 16 },
      { IpAddress: 'fd00:10:244:1::2', PrefixLength: 120 },
    ]);
    expect(doc.Routes).toEqual([
      { NextHop: '10.224.0.1', DestinationPrefix: '0.0.0.0/0' },
      { NextHop: 'fd00:10:244:1::1', DestinationPrefix: '0.0.0.0/0' },
    ]);
    // getIPV6EndpointPolicy: everything SNATed but the v6 pod prefix (the network's second subnet)
    expect(doc.Policies).toContainEqual({
      Type: 'OutBoundNAT',
      Settings: { Exceptions: ['fd00:10:244:1::/120'] },
    });
    // hnsim's HNS refuses an IPv4 route with an IPv6 next hop (docs/model.md): the ADD fails and
    // releases both addresses
    expect(out.exitCode).toBe(1);
    expect(JSON.parse(out.stdout)).toMatchObject({ code: 999 });
    expect(out.stdout).toContain(
      'The provided endpoint configuration is invalid or missing parameters. (0x803b000c)',
    );
    expect(inUse(host, 'azure-vnet-ipam.json')).toEqual({});
    expect(inUse(host, 'azure-vnet-ipamv6.json')).toEqual({});
  });
});

/** One azure-vnet-ipamv6 invocation as azure-vnet delegates it (environment ipv6NodeIpam). */
function ipamV6(
  host: Host,
  command: string,
  id: string,
  ipAddress = '',
  subnet = '',
): ReturnType<typeof execPlugin> {
  return execPlugin(host, 'azure-vnet-ipamv6', {
    env: {
      CNI_COMMAND: command,
      CNI_CONTAINERID: id,
      CNI_NETNS: 'x',
      CNI_IFNAME: 'eth0',
      CNI_ARGS: podArgs(),
      CNI_PATH: AZURE_CNI_BIN,
    },
    stdin: JSON.stringify({
      cniVersion: '0.3.0',
      name: 'azure',
      type: 'azure-vnet',
      ipam: {
        type: 'azure-vnet-ipamv6',
        environment: 'ipv6NodeIpam',
        ...(ipAddress ? { ipAddress } : {}),
        ...(subnet ? { subnet } : {}),
      },
    }),
  });
}

/** The pool azure-vnet names once its network records the v6 subnet (`nwInfo.Subnets[1]`). */
const POOL = 'fd00:10:244:1::/120';

describe('azure-vnet ipv6nat under dockershim (HNS v1: the path aks-engine ran)', () => {
  it('creates one v1 endpoint with both addresses, the v6 gateway and the v6 OutBoundNAT, hot-attached; DEL releases both', async () => {
    const host = await dualStackNode();
    const hcs = HcsClient.forHost(host);
    const id = cid('b2');
    const pause = await hcs.createComputeSystem(id, { SystemType: 'Container', Owner: 'docker', Name: id });
    await pause.start();
    const add = await vnet(host, { command: 'ADD', id, netns: 'none', conf: IPV6NAT, cwd: 'C:\\k' });
    expect(add.exitCode).toBe(0);
    const v1 = new HnsV1Client(host.transport, hcs);
    const ep = await v1.getEndpointByName(`${id.slice(0, 8)}-eth0`);
    // ACN v1.8.12 network/endpoint_windows.go newEndpointImplHnsV1: the v4 address in IPAddress, the
    // v6 one in IPv6Address/IPv6PrefixLength, GatewayAddressV6 from the network's second subnet
    expect(ep).toMatchObject({
      IPAddress: '10.224.0.5',
      PrefixLength: 16,
      IPv6Address: 'fd00:10:244:1::2',
      IPv6PrefixLength: 120,
      GatewayAddressV6: 'fd00:10:244:1::1',
      SharedContainers: [id],
    });
    // network_windows.go getIPV6EndpointPolicy: an OutBoundNAT excepting the v6 pod prefix, last
    expect(ep.Policies!.at(-1)).toEqual({ Type: 'OutBoundNAT', ExceptionList: ['fd00:10:244:1::/120'] });
    expect(inUse(host, 'azure-vnet-ipamv6.json', 'C:\\k')).toEqual({ 'fd00:10:244:1::2': id });
    const del = await vnet(host, { command: 'DEL', id, netns: 'none', conf: IPV6NAT, cwd: 'C:\\k' });
    expect(del.exitCode).toBe(0);
    expect(inUse(host, 'azure-vnet-ipamv6.json', 'C:\\k')).toEqual({});
    expect(inUse(host, 'azure-vnet-ipam.json', 'C:\\k')).toEqual({});
    expect((await v1.listEndpoints()).filter((e) => e.Name === `${id.slice(0, 8)}-eth0`)).toEqual([]);
  });
});

describe('azure-vnet-ipamv6 as azure-vnet delegates to it', () => {
  it("ADD: an address of the node's /120 keyed by the container, gateway host 1, in azure-vnet-ipamv6.json", async () => {
    const host = await dualStackNode();
    const out = await ipamV6(host, 'ADD', cid('b1'));
    expect(out.exitCode).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({
      ips: [{ version: '6', address: 'fd00:10:244:1::2/120', gateway: 'fd00:10:244:1::1' }],
      routes: [{ dst: '0.0.0.0/0', gw: 'fd00:10:244:1::1' }],
      dns: { nameservers: ['168.63.129.16'] },
    });
    expect(inUse(host, 'azure-vnet-ipamv6.json')).toEqual({ 'fd00:10:244:1::2': cid('b1') });
    expect(host.files.exists(`${SYSTEM32}\\azure-vnet-ipam.json`)).toBe(false);
  });

  it('no leak: 300 ADD/DEL cycles leave every address free and the pool whole', async () => {
    const host = await dualStackNode();
    for (let i = 0; i < 300; i++) {
      const id = (i + 0x1000).toString(16).padStart(64, '0');
      const add = await ipamV6(host, 'ADD', id, '', i === 0 ? '' : POOL);
      expect(add.exitCode).toBe(0);
      const addr = (JSON.parse(add.stdout) as { ips: { address: string }[] }).ips[0]!.address.split('/')[0]!;
      expect((await ipamV6(host, 'DEL', id, addr, POOL)).exitCode).toBe(0);
    }
    expect(inUse(host, 'azure-vnet-ipamv6.json')).toEqual({});
  });

  it('a full /120: the 255th pod gets "No available addresses" (code 100), the state unchanged', async () => {
    const host = await dualStackNode();
    for (let i = 0; i < 254; i++)
      expect(
        (await ipamV6(host, 'ADD', i.toString(16).padStart(64, '0'), '', i === 0 ? '' : POOL)).exitCode,
      ).toBe(0);
    const before = host.files.read(`${SYSTEM32}\\azure-vnet-ipamv6.json`);
    const out = await ipamV6(host, 'ADD', cid('eeee'), '', POOL);
    expect(JSON.parse(out.stdout)).toEqual({
      code: 100,
      msg: 'Failed to allocate address: No available addresses',
    });
    expect(host.files.read(`${SYSTEM32}\\azure-vnet-ipamv6.json`)).toBe(before);
  });

  // ipv6Ipam.go's failures are only logged by manager.go refreshSource: the plugin then finds no
  // `local` space (pool.go errInvalidAddressSpace)
  for (const [what, node] of [
    ['no kubeconfig', () => dualStackNode({ kube: false })],
    ['an API server of 1.16', () => dualStackNode({ version: '1.16.15' })],
    ['no IPv6 pod CIDR', () => dualStackNode({ podCIDRs: ['10.244.1.0/24'] })],
  ] as const) {
    it(`${what}: "Failed to allocate pool: Invalid address space" (code 100), no state written`, async () => {
      const host = await node();
      const out = await ipamV6(host, 'ADD', cid('f1'));
      expect(JSON.parse(out.stdout)).toEqual({
        code: 100,
        msg: 'Failed to allocate pool: Invalid address space',
      });
      expect(host.files.exists(`${SYSTEM32}\\azure-vnet-ipamv6.json`)).toBe(false);
    });
  }

  it('once loaded, the API server is not asked again (isLoaded): the kubeconfig gone, ADD still works', async () => {
    const host = await dualStackNode();
    expect((await ipamV6(host, 'ADD', cid('g1'))).exitCode).toBe(0);
    host.files.remove('c:\\k\\config');
    const out = await ipamV6(host, 'ADD', cid('g2'), '', POOL);
    expect(JSON.parse(out.stdout)).toMatchObject({ ips: [{ address: 'fd00:10:244:1::3/120' }] });
  });
});

describe('azure-vnet ipv6nat failures leave both IPAMs as they were', () => {
  it("no IPv6 source: the v6 error wrapped by the invoker; the v4 address stays tagged (upstream's cleanup DEL names no pool)", async () => {
    const host = await dualStackNode({ kube: false });
    const out = await vnet(host, {
      command: 'ADD',
      id: cid('h1'),
      netns: await namespace(host),
      conf: IPV6NAT,
    });
    expect(out.exitCode).toBe(1);
    const err = JSON.parse(out.stdout) as { code: number; msg: string };
    // invoker_azure.go: "Failed to allocate v6 pool: %v" around the delegated IPAM's error
    expect(err.code).toBe(100);
    expect(err.msg).toContain('Failed to allocate v6 pool: ');
    expect(err.msg).toContain('Failed to allocate pool: Invalid address space');
    // invoker_azure.go's deferred Delete runs with nwInfo.Subnets empty (no network yet) and
    // ipam.subnet unset, so the IPAM's DEL fails ("Pool id  not found") and only logs: the address
    // stays with the container, which a retry gets back (ipam/pool.go requestAddress by ID)
    expect(inUse(host, 'azure-vnet-ipam.json')).toEqual({ '10.224.0.5': cid('h1') });
    expect(host.files.exists(`${SYSTEM32}\\azure-vnet-ipamv6.json`)).toBe(false);
  });
});
