/**
 * Pod lifecycles end to end on Overlay, through containerd and the libcni runner: flanneld's vxlan
 * backend makes the node's network (`flannel.4096`, reference cni-windows.md §5.3), then
 * flannel → win-overlay (`apiVersion: 2`) + host-local, or sdnoverlay + host-local, attach pods.
 * Pods get addresses; the node's HNS state is what the reference says (the MAC `0E-2A-<ip hex>`,
 * the ProviderAddress policy naming the network's management IP, the OutBoundNAT exception for
 * the cluster CIDR; a RemoteSubnetRoute per remote lease); after teardown nothing of the pods is
 * left — no endpoint, namespace, compute system, reservation, flannel file or cached result.
 */
import { describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../src/host/host.js';
import { FlanneldVxlan, flanneldHost, writeSubnetEnv } from '../../src/plugins/flanneld/index.js';
import { ContainerdRuntime } from '../../src/runtime/containerd.js';
import { cniNetwork } from '../../src/runtime/network.js';
import { endpointNamed } from '../scenarios/cni-pitfall-kit.js';
import { isHostLocalBookkeeping, leftovers } from './kit.js';

const NIC = {
  name: 'Ethernet',
  ipAddress: '10.0.0.11/24',
  gateway: '10.0.0.1',
  macAddress: '00-0D-3A-00-00-11',
};

async function vxlanNode(): Promise<{
  host: Host;
  vx: FlanneldVxlan;
  networkId: string;
  managementIp: string;
}> {
  const host = createHost({ seed: 31, profile: 'ws2022', adapters: [NIC] });
  const vx = new FlanneldVxlan(flanneldHost(host));
  const net = await vx.setup({ subnet: '10.244.1.0/24', publicIp: '10.0.0.11' });
  writeSubnetEnv(host.files, {
    network: '10.244.0.0/16',
    subnet: '10.244.1.0/24',
    mtu: net.mtu,
    ipMasq: true,
  });
  return { host, vx, networkId: net.networkId, managementIp: net.managementIp };
}

function pod(i: number) {
  return {
    metadata: { name: `web-${i}`, namespace: 'default', uid: `uid-${i}` },
    dnsConfig: { servers: ['10.96.0.10'], searches: ['default.svc.cluster.local'] },
  };
}

interface PolicyDoc {
  Type: string;
  Settings?: Record<string, unknown>;
}

function endpointDoc(
  host: Host,
  name: string,
): { MacAddress: string; Policies: PolicyDoc[]; ip: string; ns: string } {
  const e = endpointNamed(host, name);
  if (!e) throw new Error(`no endpoint ${name}`);
  const q = host.api.HcnQueryEndpointProperties(e.ID, '');
  if (!q.ok) throw new Error(q.message);
  const doc = q.result as unknown as {
    MacAddress: string;
    Policies?: PolicyDoc[];
    IpConfigurations: { IpAddress: string }[];
    HostComputeNamespace?: string;
  };
  return {
    MacAddress: doc.MacAddress,
    Policies: doc.Policies ?? [],
    ip: doc.IpConfigurations[0]!.IpAddress,
    ns: doc.HostComputeNamespace ?? '',
  };
}

/** What pods may leave: host-local's `last_reserved_ip.0` and `lock` stay, as on a node. */
function podLeftovers(host: Host): ReturnType<typeof leftovers> {
  return leftovers(host, (p) => isHostLocalBookkeeping(p) || p === '/run/flannel/subnet.env');
}

describe('containerd + flannel (vxlan) + win-overlay (apiVersion 2) + host-local', () => {
  it('two pods on flannel.4096 with the MAC, ProviderAddress and OutBoundNAT of the reference; a remote lease; teardown leaves nothing', async () => {
    const { host, vx, networkId, managementIp } = await vxlanNode();
    const conflist = {
      cniVersion: '0.3.1',
      name: 'flannel.4096',
      plugins: [
        {
          type: 'flannel',
          capabilities: { portMappings: true, dns: true },
          delegate: { type: 'win-overlay', apiVersion: 2 },
        },
      ],
    };
    const rt = new ContainerdRuntime(host, { networks: [cniNetwork(host, conflist)] });
    const ids = [await rt.runPodSandbox(pod(0)), await rt.runPodSandbox(pod(1))];
    const ips = await Promise.all(ids.map(async (id) => (await rt.podSandboxStatus(id)).network.ip));
    expect(ips).toEqual(['10.244.1.2', '10.244.1.3']);

    for (const [i, id] of ids.entries()) {
      const ep = endpointDoc(host, `${id}_flannel.4096`);
      // reference §2.6 / M1: MAC = 0E-2A- + the IP's octets in lower-case hex
      expect(ep.MacAddress).toBe(`0E-2A-0a-f4-01-0${i + 2}`);
      expect(ep.ip).toBe(ips[i]);
      // v2 order (reference §2.6): ApplyDefaultPAPolicy(ManagementIP), then with ipMasq (subnet.env's
      // FLANNEL_IPMASQ=true, passed as is) an OutBoundNAT exception for the network's own subnet
      expect(ep.Policies).toEqual([
        { Type: 'ProviderAddress', Settings: { ProviderAddress: managementIp } },
        { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.244.1.0/24'] } },
      ]);
      // the endpoint is in the pod's namespace (containerd's CNI_NETNS)
      expect(ep.ns).toBe((await rt.podSandboxStatus(id)).netns);
    }

    // a remote node: flanneld adds its RemoteSubnetRoute (reference §5.3 step 4), and removes it
    const remote = {
      subnet: '10.244.2.0/24',
      publicIp: '10.0.0.12',
      vni: 4096,
      vtepMac: '00:15:5d:aa:bb:cc',
    };
    await vx.onLeaseAdded(remote);
    const net = host.api.HcnQueryNetworkProperties(networkId, '');
    const routes = (
      (net.ok ? (net.result as unknown as { Policies: PolicyDoc[] }).Policies : []) ?? []
    ).filter((p) => p.Type === 'RemoteSubnetRoute');
    expect(routes).toEqual([
      {
        Type: 'RemoteSubnetRoute',
        Settings: {
          DestinationPrefix: '10.244.2.0/24',
          IsolationId: 4096,
          ProviderAddress: '10.0.0.12',
          // flanneld writes Go's HardwareAddr form (reference §5.3), and HNS keeps it as given
          DistributedRouterMacAddress: '00:15:5d:aa:bb:cc',
        },
      },
    ]);
    await vx.onLeaseRemoved(remote);

    for (const id of ids) {
      await rt.stopPodSandbox(id);
      await rt.removePodSandbox(id);
    }
    expect(podLeftovers(host)).toEqual({ endpoints: [], namespaces: [], systems: [], files: [] });
    // the network flanneld made stays, without the remote route
    const after = host.api.HcnQueryNetworkProperties(networkId, '');
    expect(after.ok).toBe(true);
    const left = (after.ok ? (after.result as unknown as { Policies?: PolicyDoc[] }).Policies : []) ?? [];
    expect(left.filter((p) => p.Type === 'RemoteSubnetRoute')).toEqual([]);
  });
});

describe('containerd + sdnoverlay (windows-container-networking) + host-local', () => {
  it('pods on the existing flannel.4096 network get addresses and the AdditionalArgs policies; teardown leaves nothing', async () => {
    const { host, managementIp } = await vxlanNode();
    // the sig-windows-tools containerd overlay template, filled in (reference §3.4)
    const conflist = {
      cniVersion: '0.2.0',
      name: 'flannel.4096',
      plugins: [
        {
          type: 'sdnoverlay',
          capabilities: { portMappings: true, dns: true },
          ipam: { type: 'host-local', subnet: '10.244.1.0/24' },
          AdditionalArgs: [
            {
              Name: 'EndpointPolicy',
              Value: { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.244.0.0/16', '10.96.0.0/12'] } },
            },
            {
              Name: 'EndpointPolicy',
              Value: { Type: 'SDNROUTE', Settings: { DestinationPrefix: '10.96.0.0/12', NeedEncap: true } },
            },
            {
              Name: 'EndpointPolicy',
              Value: { Type: 'ProviderAddress', Settings: { ProviderAddress: managementIp } },
            },
          ],
        },
      ],
    };
    const rt = new ContainerdRuntime(host, { networks: [cniNetwork(host, JSON.stringify(conflist))] });
    const ids = [await rt.runPodSandbox(pod(0)), await rt.runPodSandbox(pod(1))];
    const ips = await Promise.all(ids.map(async (id) => (await rt.podSandboxStatus(id)).network.ip));
    expect(ips).toEqual(['10.244.1.2', '10.244.1.3']);
    // WCN names the endpoint <CNI_CONTAINERID>_<name> and reuses the network it found (no second one)
    expect([...host.hns.store.networks.values()].map((n) => n.Name)).toEqual(['flannel.4096']);
    const ep = endpointDoc(host, `${ids[0]!}_flannel.4096`);
    expect(ep.Policies.map((p) => p.Type.toLowerCase()).sort()).toEqual([
      'outboundnat',
      'provideraddress',
      'sdnroute',
    ]);
    expect(ep.ns).toBe((await rt.podSandboxStatus(ids[0]!)).netns);

    for (const id of ids) {
      await rt.stopPodSandbox(id);
      await rt.removePodSandbox(id);
    }
    expect(podLeftovers(host)).toEqual({ endpoints: [], namespaces: [], systems: [], files: [] });
  });
});
