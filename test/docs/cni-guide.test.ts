/**
 * The examples of docs/cni.md, run through the public entry (src/index.ts) exactly as the guide
 * shows them: a pod through containerd + win-bridge + host-local, a plugin of your own written
 * against the typed clients, a fault that makes it leak, and the leak check. If the guide's code
 * stops working, this fails.
 */
import { describe, expect, it } from 'vitest';
import { aksDemoCluster } from '../../src/testing/index.js';
import {
  startCns,
  overlayNc,
  azureVnetIpam,
  kubernetesFlows,
  ContainerdRuntime,
  cniNetwork,
  createHost,
  delegateAdd,
  delegateDel,
  execPlugin,
  hcn,
  pluginMain,
  pluginHost,
  printResult,
  referenceRegistry,
  stdinText,
  VERSION_ALL,
  type Host,
} from '../../src/index.js';

/** The guide's node: an L2Bridge network `cbr0` on 10.244.1.0/24, as flanneld host-gw makes it. */
function node(): Host {
  const host = createHost({ seed: 1 });
  const r = host.api.HcnCreateNetwork(null, {
    Name: 'cbr0',
    Type: 'L2Bridge',
    SchemaVersion: { Major: 2, Minor: 0 },
    Ipams: [
      {
        Type: 'Static',
        Subnets: [
          {
            IpAddressPrefix: '10.244.1.0/24',
            Routes: [{ NextHop: '10.244.1.1', DestinationPrefix: '0.0.0.0/0' }],
          },
        ],
      },
    ],
  });
  if (!r.ok) throw new Error(r.message);
  return host;
}

const CONFLIST = {
  cniVersion: '1.0.0',
  name: 'cbr0',
  plugins: [
    {
      type: 'win-bridge',
      apiVersion: 2,
      capabilities: { portMappings: true, dns: true },
      ipam: { type: 'host-local', subnet: '10.244.1.0/24', rangeStart: '10.244.1.3' },
    },
  ],
};

describe('docs/cni.md', () => {
  it('a pod through containerd, win-bridge (HCN) and host-local, and back', async () => {
    const host = node();
    const rt = new ContainerdRuntime(host, { networks: [cniNetwork(host, CONFLIST)] });
    const pod = await rt.runPodSandbox({ metadata: { name: 'web', namespace: 'default', uid: 'u1' } });
    const status = await rt.podSandboxStatus(pod);
    expect(status.network.ip).toBe('10.244.1.3');
    // the namespace containerd made holds the endpoint win-bridge created and the pause container
    const ns = host.api.HcnQueryNamespaceProperties(status.netns, '');
    const kinds = ns.ok
      ? (ns.result as unknown as { Resources: { Type: string }[] }).Resources.map((r) => r.Type)
      : [];
    expect(kinds.sort()).toEqual(['Container', 'Endpoint']);
    await rt.stopPodSandbox(pod);
    await rt.removePodSandbox(pod);
    expect([...host.hns.store.endpoints.values()]).toEqual([]);
    expect(host.files.list('/var/lib/cni/networks/cbr0')).toEqual(['last_reserved_ip.0', 'lock']);
  });

  it('your own plugin, against the typed clients, next to the reference ones', async () => {
    // a minimal bridge plugin: IPAM by delegation, an HCN endpoint, the namespace attach
    const myBridge = pluginMain(
      'my-bridge',
      {
        async add(args, ctx) {
          const conf = JSON.parse(stdinText(args)) as {
            cniVersion: string;
            name: string;
            ipam: { type: string };
          };
          const ipam = await delegateAdd(ctx, conf.ipam.type, args.stdinData);
          const ip = ipam.ips![0]!.address.split('/')[0]!;
          const net = await ctx.host.hcn.getNetworkByName(conf.name);
          const ep = await net.createEndpoint({
            Name: `${args.containerID}_${conf.name}`,
            IpConfigurations: [{ IpAddress: ip }],
            SchemaVersion: { Major: 2, Minor: 0 },
          });
          await ctx.host.hcn.addNamespaceEndpoint(args.netns, ep.ID);
          printResult(
            ctx.stdout,
            {
              cniVersion: conf.cniVersion,
              interfaces: [{ name: 'eth0', mac: ep.MacAddress }],
              ips: ipam.ips!,
            },
            conf.cniVersion,
          );
        },
        async del(args, ctx) {
          const conf = JSON.parse(stdinText(args)) as { name: string; ipam: { type: string } };
          await delegateDel(ctx, conf.ipam.type, args.stdinData);
          try {
            const ep = await ctx.host.hcn.getEndpointByName(`${args.containerID}_${conf.name}`);
            await ep.delete();
          } catch (e) {
            if (!hcn.isNotFoundError(e)) throw e;
          }
        },
      },
      VERSION_ALL,
      'my-bridge v0.1.0',
    );

    const host = node();
    const registry = referenceRegistry().register(myBridge);
    const conflist = { ...CONFLIST, plugins: [{ type: 'my-bridge', ipam: CONFLIST.plugins[0]!.ipam }] };
    const rt = new ContainerdRuntime(host, { networks: [cniNetwork(host, conflist, { registry })] });
    const pod = await rt.runPodSandbox({ metadata: { name: 'web', namespace: 'default', uid: 'u1' } });
    expect((await rt.podSandboxStatus(pod)).network.ip).toBe('10.244.1.3');

    // the same plugin, one invocation, as a shell would exec it
    const out = await execPlugin(
      host,
      'my-bridge',
      { env: { CNI_COMMAND: 'VERSION' }, stdin: '{}' },
      registry,
    );
    expect(JSON.parse(out.stdout)).toMatchObject({ cniVersion: '1.1.0' });

    // a fault: the endpoint delete fails once; containerd's StopPodSandbox fails and keeps the pod
    host.faults.fail({ method: 'HcnDeleteEndpoint' }, 'HCN_E_MANAGER_STOPPED', { times: 1 });
    await expect(rt.stopPodSandbox(pod)).rejects.toThrow(/failed to destroy network for sandbox/);
    expect(host.hns.store.endpoints.size).toBe(1);
    // kubelet retries: this time it goes through and nothing is left
    await rt.stopPodSandbox(pod);
    await rt.removePodSandbox(pod);
    expect(host.hns.store.endpoints.size).toBe(0);
    expect(host.files.list('/var/lib/cni/networks/cbr0')).toEqual(['last_reserved_ip.0', 'lock']);
  });

  it('README "Test a CNI plugin": the same lines', async () => {
    const host = createHost({ seed: 1 });
    host.api.HcnCreateNetwork(null, {
      Name: 'cbr0',
      Type: 'L2Bridge',
      Ipams: [
        {
          Type: 'Static',
          Subnets: [
            {
              IpAddressPrefix: '10.244.1.0/24',
              Routes: [{ NextHop: '10.244.1.1', DestinationPrefix: '0.0.0.0/0' }],
            },
          ],
        },
      ],
    });
    const rt = new ContainerdRuntime(host, {
      networks: [
        cniNetwork(host, {
          cniVersion: '1.0.0',
          name: 'cbr0',
          plugins: [
            {
              type: 'win-bridge',
              apiVersion: 2,
              ipam: { type: 'host-local', subnet: '10.244.1.0/24', rangeStart: '10.244.1.3' },
            },
          ],
        }),
      ],
    });
    const pod = await rt.runPodSandbox({ metadata: { name: 'web', namespace: 'default', uid: 'u1' } });
    expect((await rt.podSandboxStatus(pod)).network.ip).toBe('10.244.1.3');
    await rt.stopPodSandbox(pod);
    expect(host.hns.store.endpoints.size).toBe(0);
  });

  it("Azure CNI: the AKS conflist under containerd, azure-vnet's state files in System32", async () => {
    const host = createHost({
      adapters: [{ name: 'Ethernet', ipAddress: '10.224.0.4/16', gateway: '10.224.0.1' }],
      azure: { nics: [{ adapter: 'Ethernet', secondaryIps: ['10.224.0.5', '10.224.0.6'] }] },
    });
    const aks = {
      cniVersion: '0.3.0',
      name: 'azure',
      adapterName: '',
      plugins: [
        {
          type: 'azure-vnet',
          mode: 'bridge',
          bridge: 'azure0',
          capabilities: { portMappings: true, dns: true },
          ipam: { type: 'azure-vnet-ipam' },
          dns: { Nameservers: ['10.0.0.10', '168.63.129.16'], Search: ['svc.cluster.local'] },
          AdditionalArgs: [
            { Name: 'EndpointPolicy', Value: { Type: 'OutBoundNAT', ExceptionList: ['10.224.0.0/12'] } },
            {
              Name: 'EndpointPolicy',
              Value: { Type: 'ROUTE', DestinationPrefix: '10.0.0.0/16', NeedEncap: true },
            },
          ],
        },
      ],
    };
    const rt = new ContainerdRuntime(host, {
      networks: [cniNetwork(host, aks, { path: ['C:\\k\\azurecni\\bin'] })],
    });
    const pod = await rt.runPodSandbox({ metadata: { name: 'web', namespace: 'default', uid: 'u1' } });
    expect((await rt.podSandboxStatus(pod)).network.ip).toBe('10.224.0.5');
    const eps = [...host.hns.store.endpoints.values()];
    expect(eps.map((e) => e.Name)).toEqual([`${pod.slice(0, 8)}-eth0`]);
    expect(eps[0]!.Policies.map((p) => p.type)).toEqual(['OutBoundNAT', 'SDNRoute']);
    const nets = [...host.hns.store.networks.values()].filter((n) => n.Name === 'azure');
    expect(nets.map((n) => [n.Type, n.Flags])).toEqual([['L2Bridge', 8]]);
    expect(host.files.exists('C:\\Windows\\System32\\azure-vnet.json')).toBe(true);
    expect(host.files.exists('C:\\Windows\\System32\\azure-vnet-ipam.json')).toBe(true);
    await rt.stopPodSandbox(pod);
    expect(host.hns.store.endpoints.size).toBe(0);
    expect([...host.hns.store.networks.values()].map((n) => n.Name)).toContain('azure');
  });

  it("Azure CNI's IPAM: azure-vnet-ipam hands out the NIC's secondary IPs the wireserver lists", async () => {
    const host = createHost({
      adapters: [{ name: 'Ethernet', ipAddress: '10.240.0.4/16', gateway: '10.240.0.1' }],
      azure: { nics: [{ adapter: 'Ethernet', secondaryIps: ['10.240.0.5', '10.240.0.6'] }] },
    });
    const env = {
      CNI_COMMAND: 'ADD',
      CNI_CONTAINERID: 'pod-a',
      CNI_NETNS: 'none',
      CNI_IFNAME: 'eth0',
      CNI_PATH: 'C:\\k',
    };
    const conf =
      '{"cniVersion":"1.0.0","name":"azure","type":"azure-vnet","ipam":{"type":"azure-vnet-ipam"}}';
    const out = await azureVnetIpam.exec(pluginHost(host, referenceRegistry()), { env, stdin: conf });
    expect(JSON.parse(out.stdout)).toEqual({
      cniVersion: '1.0.0',
      ips: [{ address: '10.240.0.5/16', gateway: '10.240.0.1' }],
      routes: [{ dst: '0.0.0.0/0', gw: '10.240.0.1' }],
      dns: { nameservers: ['168.63.129.16'] },
    });
    expect(host.files.exists('C:\\Windows\\System32\\azure-vnet-ipam.json')).toBe(true);
  });

  it('Azure CNI: a whole AKS-like cluster, the VNet routing a secondary IP to its VM', async () => {
    const { cluster, names } = await aksDemoCluster();
    const rows = kubernetesFlows(cluster, names);
    expect(rows).toHaveLength(9);
    expect(rows.map((r) => r.disposition)).toEqual(Array(9).fill('Delivered'));
    expect(rows[0]!.changes).toBe('MAC→host MAC');
    expect(rows[2]!.changes).toBe(
      'DNAT 10.0.0.11:80→10.224.0.15:8080, SNAT 10.224.0.5→10.224.0.4, MAC→host MAC',
    );
    expect(rows[5]!.changes).toBe('SNAT 10.224.0.5→10.224.0.4, MAC→host MAC');
    const t = cluster.trace({ from: 'default/client', to: 'default/web-0', destinationPort: 8080 });
    const vnet = t.observations.find((o) => o.component === 'Underlay' && o.rule?.policy === 'VNet');
    expect(vnet?.rule?.kind).toBe('AzureHost');
    expect(vnet?.detail).toContain('10.224.0.15, a secondary IP of its NIC');
    expect(vnet?.packetAfter.srcMac).toBe(0x123456789abc);
  });

  it('Azure CNS: upstream’s Overlay conflist with CNS answering, stop and start', async () => {
    const host = createHost({
      adapters: [{ name: 'Ethernet', ipAddress: '10.240.0.4/16', gateway: '10.240.0.1' }],
      azure: { nics: [{ adapter: 'Ethernet' }] },
    });
    const cns = startCns(host, { ncs: [overlayNc('overlay-nc', '10.244.1.0/24', '10.244.0.0/16')] });
    const overlay = {
      cniVersion: '0.3.0',
      name: 'azure',
      plugins: [
        {
          type: 'azure-vnet',
          ipam: { type: 'azure-cns', mode: 'overlay' },
          dns: { Nameservers: ['10.0.0.10', '168.63.129.16'], Search: ['svc.cluster.local'] },
        },
      ],
    };
    const rt = new ContainerdRuntime(host, { networks: [cniNetwork(host, overlay)] });
    const pod = await rt.runPodSandbox({ metadata: { name: 'web', namespace: 'default', uid: 'u1' } });
    expect((await rt.podSandboxStatus(pod)).network.ip).toBe('10.244.1.2');
    const ep = [...host.hns.store.endpoints.values()][0]!;
    expect(ep.IpConfigurations[0]!.PrefixLength).toBe(16);
    expect([...cns.assigned().values()]).toEqual([['10.244.1.2']]);
    cns.stop();
    await rt.stopPodSandbox(pod);
    expect(host.files.list('/var/run/azure-vnet/deleteIDs')).toHaveLength(1);
    cns.start();
    expect(cns.assigned().size).toBe(0);
  });
});
