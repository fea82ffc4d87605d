/**
 * ovn-kubernetes' hybrid overlay as a cluster node kind (src/cluster/ovn-kubernetes.ts,
 * docs/ovn-kubernetes.md). Expected values are upstream literals: the network from ovn-org/
 * ovn-kubernetes `go-controller/hybrid-overlay/pkg/controller/ho_node_windows.go` (`networkName`,
 * `baseNetworkName`, 100.64.0.0/30 and 100.64.0.2, `fakeSubnetVNI = HybridOverlayVNI + 1`, gateway
 * = the subnet's first address, `AddNode`'s RemoteSubnetRoutePolicySetting) and `overlay_windows.go`
 * (`GetHostComputeNetworkConfig`: AutomaticDNS, Flags EnableNonPersistent = 8, VxlanPort only off
 * 4789), `hybrid-overlay/pkg/types/types.go` (`HybridOverlayVNI = 4097`), `pkg/util/net.go`
 * (a Linux node's DR IP .3, `IPAddrToHWAddr` = 0A:58 + the address); the pods' conflist from
 * openshift/windows-machine-config-operator `pkg/nodeconfig/payload/payload.go` (`cni_template`,
 * `VIPEndpoint`) and `pkg/windows/windows.go` (`OVNKubeOverlayNetwork`).
 *
 * Layout: win-1 10.0.0.10 (10.244.1.0/24), win-2 10.0.0.11 (10.244.2.0/24), lx-1 10.0.0.12
 * (10.244.3.0/24, OVN's pods from .4); WMCO's VIPEndpoint takes a Windows node's .2, pods from .3.
 */
import { describe, expect, it, vi } from 'vitest';
import { Cluster } from '../../src/cluster/cluster.js';
import type { JsonObject } from '../../src/core/json.js';
import { hnsError } from '../../src/core/errors.js';
import { failureOf } from '../../src/api/flat.js';
import { hybridOverlayConflist } from '../../src/cluster/ovn-kubernetes.js';
import { execPlugin } from '../../src/plugins/index.js';
import type { Host } from '../../src/host/host.js';
import { isDynamicPort, step, tj } from '../dataplane/trace-kit.js';
import { ok } from '../dataplane/prop-kit.js';

const SCHEMA = { Major: 2, Minor: 0 };

function cluster(): Cluster {
  const c = new Cluster({ seed: 1 });
  c.addWindowsNode({ name: 'win-1', network: 'ovn-kubernetes' });
  c.addWindowsNode({ name: 'win-2', network: 'ovn-kubernetes' });
  c.addLinuxNode({ name: 'lx-1', backend: 'ovn-kubernetes' });
  c.addPod({ namespace: 'default', name: 'client', node: 'win-1', labels: { app: 'client' } });
  c.addPod({ namespace: 'default', name: 'local', node: 'win-1' });
  c.addPod({ namespace: 'default', name: 'web', node: 'win-2', labels: { app: 'web' } });
  c.addPod({ namespace: 'default', name: 'lweb', node: 'lx-1', labels: { app: 'lweb' } });
  return c;
}

/** A network's HCN document by name, as HcnQueryNetworkProperties returns it. */
function network(h: Host, name: string): JsonObject {
  for (const id of ok(h.api.HcnEnumerateNetworks(null)) as unknown as string[]) {
    const n = ok(h.api.HcnQueryNetworkProperties(id, null));
    if (n['Name'] === name) return n;
  }
  throw new Error(`no network ${name} on ${h.name}`);
}

function policies(n: JsonObject, type: string): JsonObject[] {
  return (n['Policies'] as JsonObject[])
    .filter((p) => p['Type'] === type)
    .map((p) => p['Settings'] as JsonObject);
}

function drMac(h: Host): string {
  return String(policies(network(h, 'OVNKubernetesHybridOverlayNetwork'), 'DrMacAddress')[0]!['Address']);
}

/** The call throws an HnsError E_INVALIDARG. */
function invalid(f: () => unknown, message: RegExp): void {
  let err: unknown;
  try {
    f();
  } catch (e) {
    err = e;
  }
  expect(err).toMatchObject({ code: 'E_INVALIDARG' });
  expect((err as Error).message).toMatch(message);
}

describe('the hybrid overlay network on a Windows node (ho_node_windows.go, overlay_windows.go)', () => {
  const c = cluster();
  const h = c.host('win-1');

  it('OVNKubernetesHybridOverlayNetwork: Overlay, non-persistent, VSID 4097 on the pod subnet, gateway .1', () => {
    const n = network(h, 'OVNKubernetesHybridOverlayNetwork');
    expect(n).toMatchObject({ Type: 'Overlay', Flags: 8, SchemaVersion: SCHEMA });
    expect(n['Ipams']).toMatchObject([
      {
        Type: 'Static',
        Subnets: [
          {
            IpAddressPrefix: '10.244.1.0/24',
            Routes: [{ NextHop: '10.244.1.1', DestinationPrefix: '0.0.0.0/0' }],
            Policies: [{ Type: 'VSID', Settings: { IsolationId: 4097 } }],
          },
        ],
      },
    ]);
    expect(policies(n, 'AutomaticDNS')).toEqual([{ Enable: true }]);
    expect(policies(n, 'HostRoute')).toEqual([{}]);
    // UDP 4789 is the default: no VxlanPort policy
    expect(policies(n, 'VxlanPort')).toEqual([]);
  });

  it('the persistent base network under it: 100.64.0.0/30, gateway 100.64.0.2, VSID 4098', () => {
    const b = network(h, 'BaseOVNKubernetesHybridOverlayNetwork');
    expect(b['Type']).toBe('Overlay');
    expect(b['Flags'] ?? 0).toBe(0);
    expect(b['Ipams']).toMatchObject([
      {
        Subnets: [
          {
            IpAddressPrefix: '100.64.0.0/30',
            Routes: [{ NextHop: '100.64.0.2', DestinationPrefix: '0.0.0.0/0' }],
            Policies: [{ Type: 'VSID', Settings: { IsolationId: 4098 } }],
          },
        ],
      },
    ]);
  });

  it("a RemoteSubnetRoute per other node: VNI 4097, its node IP, its DR MAC (a Linux node's 0A-58-<.3>)", () => {
    const routes = policies(network(h, 'OVNKubernetesHybridOverlayNetwork'), 'RemoteSubnetRoute');
    const win2Mac = drMac(c.host('win-2'));
    expect(win2Mac).toMatch(/^00-15-5D-/);
    expect(routes).toEqual([
      {
        DestinationPrefix: '10.244.2.0/24',
        IsolationId: 4097,
        ProviderAddress: '10.0.0.11',
        DistributedRouterMacAddress: win2Mac,
      },
      {
        DestinationPrefix: '10.244.3.0/24',
        IsolationId: 4097,
        ProviderAddress: '10.0.0.12',
        DistributedRouterMacAddress: '0A-58-0A-F4-03-03',
      },
    ]);
  });

  it("WMCO's VIPEndpoint takes .2 in the host compartment; kube-proxy's source VIP is its address", () => {
    const eps = [...h.hns.store.endpoints.values()].filter((e) => e.Name === 'VIPEndpoint');
    expect(eps).toHaveLength(1);
    expect(eps[0]!.IpConfigurations.map((i) => i.IpAddress)).toEqual(['10.244.1.2']);
    const ns = h.hns.store.namespaces.get(eps[0]!.HostComputeNamespace!);
    expect(ns?.NamespaceId).toBe(1);
    expect(c.nodeOf('win-1')).toMatchObject({ sourceVip: 0x0af40102 });
  });

  it("a pod's endpoint: WMCO's three policies, MAC 0E-2A-<ip>, gateway .1, named after the network", () => {
    const id = c.pod('default/client')!.endpointId!;
    const ep = ok(h.api.HcnQueryEndpointProperties(id, null));
    expect(ep).toMatchObject({
      Name: 'client_OVNKubernetesHybridOverlayNetwork',
      IpConfigurations: [{ IpAddress: '10.244.1.3', PrefixLength: 24 }],
      MacAddress: '0E-2A-0a-f4-01-03',
      Routes: [{ NextHop: '10.244.1.1', DestinationPrefix: '0.0.0.0/0' }],
    });
    expect(ep['Policies']).toEqual([
      { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.96.0.0/12'] } },
      { Type: 'SDNRoute', Settings: { DestinationPrefix: '10.96.0.0/12', NeedEncap: true } },
      { Type: 'ProviderAddress', Settings: { ProviderAddress: '10.0.0.10' } },
    ]);
  });

  it('check() has nothing to say about the hybrid overlay (VNI and port are its own)', () => {
    expect(c.check()).toEqual([]);
  });
});

describe("WMCO's win-overlay conflist (payload.go cni_template)", () => {
  it('is the template with the network name, service CIDR, host subnet and provider address filled in', () => {
    expect(hybridOverlayConflist('10.96.0.0/12', '10.244.1.0/24', '10.0.0.10')).toEqual({
      cniVersion: '0.2.0',
      name: 'OVNKubernetesHybridOverlayNetwork',
      type: 'win-overlay',
      apiVersion: 2,
      capabilities: { portMappings: true, dns: true },
      ipam: { type: 'host-local', subnet: '10.244.1.0/24' },
      policies: [
        {
          name: 'EndpointPolicy',
          value: {
            type: 'OutBoundNAT',
            settings: { exceptionList: ['10.96.0.0/12'], destinationPrefix: '', needEncap: false },
          },
        },
        {
          name: 'EndpointPolicy',
          value: {
            type: 'SDNRoute',
            settings: { exceptionList: [], destinationPrefix: '10.96.0.0/12', needEncap: true },
          },
        },
        {
          name: 'EndpointPolicy',
          value: { type: 'ProviderAddress', settings: { providerAddress: '10.0.0.10' } },
        },
      ],
    });
  });

  it("the real win-overlay ADD with it (HCN's field names) makes the endpoint the cluster programs", async () => {
    const made = (() => {
      const c = new Cluster({ seed: 1 });
      const h = c.addWindowsNode({ name: 'win-1', network: 'ovn-kubernetes' });
      c.addPod({ namespace: 'default', name: 'client', node: 'win-1' });
      return ok(h.api.HcnQueryEndpointProperties(c.pod('default/client')!.endpointId!, null));
    })();
    const h = new Cluster({ seed: 1 }).addWindowsNode({ name: 'win-1', network: 'ovn-kubernetes' });
    // the simulated HNS reads settings keys case-sensitively (docs/model.md): HCN's names here
    const conf = hybridOverlayConflist('10.96.0.0/12', '10.244.1.0/24', '10.0.0.10');
    conf['policies'] = [
      { name: 'EndpointPolicy', value: { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.96.0.0/12'] } } },
      {
        name: 'EndpointPolicy',
        value: { Type: 'SDNRoute', Settings: { DestinationPrefix: '10.96.0.0/12', NeedEncap: true } },
      },
      {
        name: 'EndpointPolicy',
        value: { Type: 'ProviderAddress', Settings: { ProviderAddress: '10.0.0.10' } },
      },
    ];
    const add = (plugin: string, containerId: string, netns: string, stdin: JsonObject) =>
      execPlugin(h, plugin, {
        env: {
          CNI_COMMAND: 'ADD',
          CNI_CONTAINERID: containerId,
          CNI_NETNS: netns,
          CNI_IFNAME: 'eth0',
          CNI_PATH: 'C:\\k\\cni',
        },
        stdin: JSON.stringify(stdin),
      });
    // host-local knows nothing of the VIPEndpoint's .2 (HNS gave it): taken first, as the cluster does
    const vip = await add('host-local', 'vip', 'none', {
      cniVersion: '0.2.0',
      name: conf['name']!,
      ipam: conf['ipam']!,
    });
    expect(vip.stdout).toMatch(/10\.244\.1\.2/);
    const ns = ok(h.api.HcnCreateNamespace(null, { SchemaVersion: SCHEMA }));
    const out = await add('win-overlay', 'sandbox1', String(ns['ID']), conf);
    expect(out.stdout).not.toMatch(/"code"/);
    const ep = [...h.hns.store.endpoints.values()].find(
      (e) => e.Name === 'sandbox1_OVNKubernetesHybridOverlayNetwork',
    );
    const real = ok(h.api.HcnQueryEndpointProperties(ep!.ID, null));
    for (const k of ['IpConfigurations', 'MacAddress', 'Policies', 'Routes'])
      expect(real[k]).toEqual(made[k]);
  });
});

describe('traffic in the hybrid overlay', () => {
  const c = cluster();

  it('places the pods where the traces below expect them', () => {
    expect(
      ['default/client', 'default/local', 'default/web', 'default/lweb'].map((p) => c.pod(p)!.ip),
    ).toEqual(['10.244.1.3', '10.244.1.4', '10.244.2.3', '10.244.3.4']);
  });

  it('Windows pod → Windows pod on another node: VXLAN VNI 4097 to the peer on UDP 4789, delivered', () => {
    const t = tj(c.trace({ from: 'default/client', to: 'default/web', destinationPort: 8080 }));
    expect(t).toMatchObject({ disposition: 'Delivered', host: 'win-2' });
    const e = step(t, 'win-1', 'Encap', 'Encapsulated');
    expect(e.packetAfter.outer).toMatchObject({
      srcIp: '10.0.0.10',
      dstIp: '10.0.0.11',
      dstPort: 4789,
      vni: 4097,
    });
    expect(e.packetAfter.dstMac).toBe(drMac(c.host('win-2')));
    expect(isDynamicPort(e.packetAfter.outer!.srcPort)).toBe(true);
    expect(step(t, 'win-2', 'Decap', 'Decapsulated').packetBefore.outer).toMatchObject({ vni: 4097 });
  });

  it('Windows pod → Windows pod on the same node: no encapsulation', () => {
    const t = tj(c.trace({ from: 'default/client', to: 'default/local', destinationPort: 8080 }));
    expect(t).toMatchObject({ disposition: 'Delivered', host: 'win-1' });
    expect(t.observations.some((o) => o.component === 'Encap')).toBe(false);
  });

  it("Windows pod → Linux OVN pod: VNI 4097 to br-ext's ext-vxlan, inner frame to the DR MAC 0A-58-0A-F4-03-03", () => {
    const t = tj(c.trace({ from: 'default/client', to: 'default/lweb', destinationPort: 8080 }));
    expect(t).toMatchObject({ disposition: 'Delivered', host: 'lx-1', at: 'pod:default/lweb' });
    const e = step(t, 'win-1', 'Encap', 'Encapsulated');
    expect(e.packetAfter.outer).toMatchObject({
      srcIp: '10.0.0.10',
      dstIp: '10.0.0.12',
      dstPort: 4789,
      vni: 4097,
    });
    expect(e.packetAfter.dstMac).toBe('0A-58-0A-F4-03-03');
    expect(step(t, 'lx-1', 'Decap', 'Decapsulated').rule?.layer).toBe('ext-vxlan');
  });

  it("Linux OVN pod → Windows pod: VNI 4097 on UDP 4789 to the node's DR MAC, delivered", () => {
    const t = tj(c.trace({ from: 'default/lweb', to: 'default/client', destinationPort: 8080 }));
    expect(t).toMatchObject({ disposition: 'Delivered', host: 'win-1' });
    const e = step(t, 'lx-1', 'Encap', 'Encapsulated');
    expect(e.packetAfter.outer).toMatchObject({
      srcIp: '10.0.0.12',
      dstIp: '10.0.0.10',
      dstPort: 4789,
      vni: 4097,
    });
    expect(e.packetAfter.dstMac).toBe(drMac(c.host('win-1')));
    expect(e.packetAfter.srcIp).toBe('10.244.3.4');
  });

  it('Windows pod → a Service whose backend is on the Linux node: DNAT by kube-proxy, then VNI 4097', () => {
    c.addService({
      namespace: 'default',
      name: 'lweb',
      ports: [{ port: 80, targetPort: 8080 }],
      selector: { app: 'lweb' },
    });
    const t = tj(c.trace({ from: 'default/client', to: 'svc:default/lweb' }));
    expect(t).toMatchObject({ disposition: 'Delivered', host: 'lx-1', at: 'pod:default/lweb' });
    const e = step(t, 'win-1', 'Encap', 'Encapsulated');
    expect(e.packetAfter).toMatchObject({ dstIp: '10.244.3.4', dstPort: 8080 });
    expect(e.packetAfter.outer).toMatchObject({ dstIp: '10.0.0.12', vni: 4097 });
  });
});

describe('nodes joining and leaving', () => {
  it('a node that joins later gets a RemoteSubnetRoute on every node, and has one to each', () => {
    const c = new Cluster({ seed: 1 });
    c.addWindowsNode({ name: 'win-1', network: 'ovn-kubernetes' });
    const net1 = () => network(c.host('win-1'), 'OVNKubernetesHybridOverlayNetwork');
    expect(policies(net1(), 'RemoteSubnetRoute')).toEqual([]);
    c.addWindowsNode({ name: 'win-2', network: 'ovn-kubernetes' });
    expect(policies(net1(), 'RemoteSubnetRoute').map((p) => p['DestinationPrefix'])).toEqual([
      '10.244.2.0/24',
    ]);
    expect(
      policies(network(c.host('win-2'), 'OVNKubernetesHybridOverlayNetwork'), 'RemoteSubnetRoute').map(
        (p) => p['ProviderAddress'],
      ),
    ).toEqual(['10.0.0.10']);
  });

  it("a RemoteSubnetRoute to a node no longer there goes at the next sync (hybrid-overlay's DeleteNode)", () => {
    const c = new Cluster({ seed: 1 });
    const h = c.addWindowsNode({ name: 'win-1', network: 'ovn-kubernetes' });
    const id = String(network(h, 'OVNKubernetesHybridOverlayNetwork')['ID']);
    // a node that left: its route is still on win-1 (the cluster has no removeNode)
    ok(
      h.api.HcnModifyNetwork(id, {
        ResourceType: 'Policy',
        RequestType: 'Add',
        Settings: {
          Policies: [
            {
              Type: 'RemoteSubnetRoute',
              Settings: {
                DestinationPrefix: '10.244.9.0/24',
                IsolationId: 4097,
                ProviderAddress: '10.0.0.99',
                DistributedRouterMacAddress: '00-15-5D-00-00-99',
              },
            },
          ],
        },
      }),
    );
    c.addWindowsNode({ name: 'win-2', network: 'ovn-kubernetes' });
    expect(
      policies(network(h, 'OVNKubernetesHybridOverlayNetwork'), 'RemoteSubnetRoute').map(
        (p) => p['DestinationPrefix'],
      ),
    ).toEqual(['10.244.2.0/24']);
  });
});

describe('after a reboot, and a failed join', () => {
  const routes = (h: Host) =>
    policies(network(h, 'OVNKubernetesHybridOverlayNetwork'), 'RemoteSubnetRoute').map(
      (p) => p['DestinationPrefix'],
    );

  it('a node whose network a reboot removed (Flags 8) is skipped by the sync: other nodes still join', () => {
    const c = new Cluster({ seed: 1 });
    const h1 = c.addWindowsNode({ name: 'win-1', network: 'ovn-kubernetes' });
    const h2 = c.addWindowsNode({ name: 'win-2', network: 'ovn-kubernetes' });
    h1.reboot();
    expect(() => network(h1, 'OVNKubernetesHybridOverlayNetwork')).toThrow(/no network/);
    c.addLinuxNode({ name: 'lx-1', backend: 'ovn-kubernetes' });
    c.addWindowsNode({ name: 'win-3', network: 'ovn-kubernetes' });
    expect(c.nodeNames()).toEqual(['win-1', 'win-2', 'lx-1', 'win-3']);
    // win-1 gets no routes (it has no network to hold them); its peers keep theirs to it
    expect(() => network(h1, 'OVNKubernetesHybridOverlayNetwork')).toThrow(/no network/);
    expect(routes(h2).sort()).toEqual(['10.244.1.0/24', '10.244.3.0/24', '10.244.4.0/24']);
    expect(routes(c.host('win-3')).sort()).toEqual(['10.244.1.0/24', '10.244.2.0/24', '10.244.3.0/24']);
    // a pod on win-1 is refused with HNS's code, not a TypeError
    expect(() => c.addPod({ namespace: 'default', name: 'p', node: 'win-1' })).toThrow(
      expect.objectContaining({ code: 'HCN_E_NETWORK_NOT_FOUND' }),
    );
  });

  it('a join whose sync fails leaves no half-added node: not in the cluster nor the API server, its address free', () => {
    const c = new Cluster({ seed: 1 });
    const h1 = c.addWindowsNode({ name: 'win-1', network: 'ovn-kubernetes' });
    // win-1's HNS refuses the RemoteSubnetRoute to the new node
    const refuse = vi
      .spyOn(h1.api, 'HcnModifyNetwork')
      .mockReturnValue(failureOf(hnsError('E_ACCESSDENIED', 'refused by the test')));
    let err: unknown;
    try {
      c.addWindowsNode({ name: 'win-2', network: 'ovn-kubernetes' });
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'E_ACCESSDENIED' });
    expect(c.nodeNames()).toEqual(['win-1']);
    expect(c.nodeOf('win-2')).toBeUndefined();
    expect(c.kubeApi.node('win-2')).toBeUndefined();
    refuse.mockRestore();
    // the name, the address and the pod subnet are free again
    const h2 = c.addWindowsNode({ name: 'win-2', network: 'ovn-kubernetes' });
    expect(c.nodeOf('win-2')!.ip).toBe(0x0a00000b);
    expect(routes(h1)).toEqual(['10.244.2.0/24']);
    expect(routes(h2)).toEqual(['10.244.1.0/24']);
  });
});

describe('settings and combinations refused with E_INVALIDARG, nothing added', () => {
  it('a vni (the hybrid overlay VNI is the constant 4097), a port off 1..65535, Antrea or Azure keys', () => {
    const c = new Cluster({ seed: 1 });
    invalid(() => c.addWindowsNode({ name: 'w', network: 'ovn-kubernetes', vni: 4097 }), /no vni/);
    invalid(
      () => c.addWindowsNode({ name: 'w', network: 'ovn-kubernetes', vxlanPort: 70000 }),
      /vxlanPort 70000/,
    );
    invalid(
      () => c.addWindowsNode({ name: 'w', network: 'ovn-kubernetes', tunnelType: 'geneve' }),
      /tunnelType/,
    );
    invalid(() => c.addWindowsNode({ name: 'w', network: 'ovn-kubernetes', maxPods: 10 }), /maxPods/);
    invalid(() => c.addLinuxNode({ name: 'l', backend: 'ovn-kubernetes', vni: 4097 }), /no vni/);
    expect(c.nodeNames()).toEqual([]);
  });

  it('ovn-kubernetes beside flannel or Antrea nodes, in either order', () => {
    const a = new Cluster({ seed: 1 });
    a.addWindowsNode({ name: 'flannel', network: 'overlay' });
    invalid(() => a.addWindowsNode({ name: 'w', network: 'ovn-kubernetes' }), /one network plugin/);
    invalid(() => a.addLinuxNode({ name: 'l', backend: 'ovn-kubernetes' }), /one network plugin/);
    const b = new Cluster({ seed: 1 });
    b.addWindowsNode({ name: 'w', network: 'ovn-kubernetes' });
    invalid(() => b.addWindowsNode({ name: 'x', network: 'antrea' }), /one network plugin/);
    invalid(() => b.addWindowsNode({ name: 'x', network: 'l2bridge' }), /one network plugin/);
    invalid(
      () => b.addLinuxNode({ name: 'l', backend: 'vxlan', vni: 4097, vxlanPort: 4789 }),
      /one network plugin/,
    );
    expect([a.nodeNames(), b.nodeNames()]).toEqual([['flannel'], ['w']]);
  });

  it('a second Linux OVN node (Geneve between OVN Linux nodes is not modelled), an Azure cluster', () => {
    const c = new Cluster({ seed: 1 });
    c.addLinuxNode({ name: 'l1', backend: 'ovn-kubernetes' });
    invalid(() => c.addLinuxNode({ name: 'l2', backend: 'ovn-kubernetes' }), /Geneve/);
    const az = new Cluster({ seed: 1, azure: {} });
    invalid(() => az.addWindowsNode({ name: 'w', network: 'ovn-kubernetes' }), /network must be azure/);
  });

  it('a VXLAN port off 4789 is a VxlanPort policy on both networks, and the Linux node uses it too', () => {
    const c = new Cluster({ seed: 1 });
    const h = c.addWindowsNode({ name: 'w', network: 'ovn-kubernetes', vxlanPort: 4790 });
    c.addLinuxNode({ name: 'l', backend: 'ovn-kubernetes', vxlanPort: 4790 });
    for (const name of ['OVNKubernetesHybridOverlayNetwork', 'BaseOVNKubernetesHybridOverlayNetwork'])
      expect(policies(network(h, name), 'VxlanPort')).toEqual([{ Port: 4790 }]);
    c.addPod({ namespace: 'default', name: 'a', node: 'w' });
    c.addPod({ namespace: 'default', name: 'b', node: 'l' });
    const t = tj(c.trace({ from: 'default/b', to: 'default/a', destinationPort: 80 }));
    expect(t.disposition).toBe('Delivered');
    expect(step(t, 'l', 'Encap', 'Encapsulated').packetAfter.outer).toMatchObject({
      dstPort: 4790,
      vni: 4097,
    });
  });
});
