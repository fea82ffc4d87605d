/**
 * An Azure cluster in AKS's node-subnet mode (issue 16; reference azure-cni.md §4.2, §6): nodes are
 * Azure VMs on one VNet subnet whose NICs hold secondary IPs for pods, the VNet routes each to its
 * VM, the VM's host applies its NIC's NSG, and pods come from containerd running azure-vnet with
 * AKS's conflist. What the tests hold it to, from outside the code:
 * - Azure's addressing: a subnet's first usable address is .4 (.0–.3 reserved), AKS sizes each NIC
 *   with `--max-pods` secondary IPs (the wireserver lists them), azure-vnet-ipam hands out the
 *   first free one (ACN ipam pool.go);
 * - the flows of kubernetes-windows.md §1.3 with AKS's conflist: the VNet is in the OutBoundNAT
 *   ExceptionList (no SNAT between pods and nodes), egress is SNATed to the node IP, a ClusterIP
 *   is DNATed and (not DSR) SNATed to the SourceVIP, the node IP on L2Bridge (vfp-dataplane.md §4);
 * - frames Azure's host hands a VM come from its `SDNRemoteArpMacAddress` 12-34-56-78-9a-bc
 *   (azure-cni.md §4.2) to the NIC's MAC;
 * - NSGs see only what crosses the host: L2Bridge switches same-node traffic in the VM, L2Tunnel
 *   hairpins it through the host (azure-cni.md §6).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Cluster } from '../../src/cluster/cluster.js';
import { aksConflist, startAzurePod } from '../../src/cluster/azure.js';
import { kubernetesFlows } from '../../src/cluster/flows.js';
import { aksDemoCluster } from '../../src/testing/aks.js';
import { createAzureVnet, REFERENCE_PLUGINS } from '../../src/plugins/index.js';
import { PluginRegistry } from '../../src/cni/registry.js';
import { ContainerdRuntime } from '../../src/runtime/containerd.js';
import { cniNetwork } from '../../src/runtime/network.js';
import type { NsgSpec } from '../../src/host/nsg.js';
import { fmtPrefix } from '../../src/vswitch/v4.js';
import { gaps, has, path, step, steps, tj } from '../dataplane/trace-kit.js';

const HOST_MAC = '12-34-56-78-9A-BC';

function denyInbound(name: string, ip: string, port: string): NsgSpec {
  return {
    name: 'aks-agentpool-nsg',
    rules: [
      {
        name,
        priority: 200,
        direction: 'Inbound',
        access: 'Deny',
        protocol: 'Tcp',
        destinationAddressPrefix: ip,
        destinationPortRange: port,
      },
    ],
  };
}

/** An Azure cluster of `nodes` (name → NSG), each with containerd running azure-vnet (`release`, `mode`). */
function azureCluster(
  nodes: Record<string, NsgSpec | undefined>,
  opts: { release?: 'v1.5.50'; mode?: string; maxPods?: number } = {},
): { c: Cluster; rt: (node: string) => ContainerdRuntime } {
  const c = new Cluster({ seed: 7, azure: { maxPods: opts.maxPods ?? 8 } });
  const rts = new Map<string, ContainerdRuntime>();
  for (const [name, nsg] of Object.entries(nodes)) {
    const host = c.addWindowsNode({ name, network: 'azure', ...(nsg ? { nsg } : {}) });
    const conflist = aksConflist(c) as { plugins: Record<string, unknown>[] };
    if (opts.mode !== undefined) conflist.plugins[0]!['mode'] = opts.mode;
    const plugins = opts.release
      ? REFERENCE_PLUGINS.map((p) =>
          p.type === 'azure-vnet' ? createAzureVnet({ release: opts.release! }) : p,
        )
      : REFERENCE_PLUGINS;
    const registry = new PluginRegistry();
    for (const p of plugins) registry.register(p);
    rts.set(
      name,
      new ContainerdRuntime(host, { networks: [cniNetwork(host, conflist, { registry })], seed: 1 }),
    );
  }
  return { c, rt: (n) => rts.get(n)! };
}

describe('an AKS-like cluster in node-subnet mode', () => {
  it('lays nodes and pods out on the VNet subnet as Azure and azure-vnet-ipam do', async () => {
    const { cluster: c } = await aksDemoCluster();
    const one = c.host('akswin1');
    const two = c.host('akswin2');
    // .4 is a subnet's first usable address; eight secondary IPs follow each NIC's own
    expect(c.nodeOf('akswin1')!.ip).toBe(0x0ae00004);
    expect(one.azure!.nics[0]!.secondaryIps).toEqual([5, 6, 7, 8, 9, 10, 11, 12].map((i) => `10.224.0.${i}`));
    expect(two.azure!.nics[0]!.primaryIp).toBe('10.224.0.13');
    // the wireserver's interface document lists them for azure-vnet-ipam
    const xml = two.platformGet(
      'http://168.63.129.16/machine/plugins?comp=nmagent&type=getinterfaceinfov1',
    ).body;
    expect(xml).toContain('<IPAddress Address="10.224.0.21" IsPrimary="false"/>');
    expect(xml).not.toContain('10.224.0.22');
    // the first free secondary IP of each node, in the order pods came
    expect(c.pod('kube-system/coredns-0')!.ip).toBe('10.224.0.14');
    expect(c.pod('default/client')!.ip).toBe('10.224.0.5');
    expect(c.pod('default/web-0')!.ip).toBe('10.224.0.15');
    for (const h of [one, two]) {
      const nets = [...h.hns.store.networks.values()].map((n) => [n.Name, n.Type]);
      expect(nets).toEqual([
        ['ext', 'L2Bridge'],
        ['azure', 'L2Bridge'],
      ]);
    }
  });

  it('kube-proxy programs the azure network: the ClusterIP to a remote endpoint for the other VM’s pod', async () => {
    const { cluster: c } = await aksDemoCluster();
    const h = c.host('akswin1');
    const net = [...h.hns.store.networks.values()].find((n) => n.Name === 'azure')!;
    const web = [...h.hns.store.loadBalancers.values()].find((lb) => lb.FrontendVIPs.includes('10.0.0.11'))!;
    expect(web).toBeDefined();
    expect(web.SourceVIP).toBe('10.224.0.4');
    const [backend] = web.HostComputeEndpoints.map((id) => h.hns.store.endpoints.get(id)!);
    expect(backend!.HostComputeNetwork).toBe(net.ID);
    expect(backend!.IpConfigurations.map((x) => x.IpAddress)).toEqual(['10.224.0.15']);
    expect(backend!.Flags & 1).toBe(1); // a remote endpoint
  });

  it('runs the nine flows of the Kubernetes docs', async () => {
    const { cluster, names } = await aksDemoCluster();
    const rows = kubernetesFlows(cluster, names).map((r) => [r.flow, r.disposition, r.changes]);
    expect(rows).toEqual([
      ['Pod → Pod (IP)', 'Delivered', 'MAC→host MAC'],
      ['Pod → Pod (name)', 'Delivered', 'MAC→host MAC'],
      [
        'Pod → Service (ClusterIP)',
        'Delivered',
        'DNAT 10.0.0.11:80→10.224.0.15:8080, SNAT 10.224.0.5→10.224.0.4, MAC→host MAC',
      ],
      [
        'Pod → Service (PQDN)',
        'Delivered',
        'DNAT 10.0.0.11:80→10.224.0.15:8080, SNAT 10.224.0.5→10.224.0.4, MAC→host MAC',
      ],
      [
        'Pod → Service (FQDN)',
        'Delivered',
        'DNAT 10.0.0.11:80→10.224.0.15:8080, SNAT 10.224.0.5→10.224.0.4, MAC→host MAC',
      ],
      ['Pod → external (IP)', 'Delivered', 'SNAT 10.224.0.5→10.224.0.4, MAC→host MAC'],
      ['Pod → external (DNS)', 'Delivered', 'SNAT 10.224.0.5→10.224.0.4, MAC→host MAC'],
      ['Node → Pod', 'Delivered', ''],
      ['Pod → Node', 'Delivered', ''],
    ]);
  });

  it('the VNet routes a secondary IP to its VM; Azure’s host delivers from its gateway MAC to the NIC’s', async () => {
    const { cluster: c } = await aksDemoCluster();
    const t = tj(
      c.trace({ from: 'default/client', to: 'default/web-0', destinationPort: 8080, reply: true }),
    );
    expect(t.disposition, path(t)).toBe('Delivered');
    expect(gaps(t)).toEqual([]);
    const vnet = step(t, 'akswin1', 'Underlay', 'Switched');
    expect(vnet.rule).toMatchObject({ kind: 'AzureHost', id: 'akswin2', policy: 'VNet' });
    expect(vnet.detail).toContain('a secondary IP of its NIC');
    expect(vnet.packetAfter.srcMac).toBe(HOST_MAC);
    expect(vnet.packetAfter.dstMac).toBe('00-0D-3A-00-00-02');
    expect(vnet.packetAfter.srcIp).toBe('10.224.0.5'); // the VNet is excepted from OutBoundNAT
    expect(t.reply?.disposition).toBe('Delivered');
  });

  it('an NSG sees traffic from another VM, never a same-node neighbour’s on L2Bridge', async () => {
    const { c, rt } = azureCluster({ a: undefined, b: denyInbound('deny-web-5432', '10.224.0.14', '5432') });
    await startAzurePod(c, rt('a'), { namespace: 'default', name: 'far', node: 'a' });
    const web = await startAzurePod(c, rt('b'), { namespace: 'default', name: 'web', node: 'b' });
    await startAzurePod(c, rt('b'), { namespace: 'default', name: 'near', node: 'b' });
    expect(web.ip).toBe('10.224.0.14');
    const far = tj(c.trace({ from: 'default/far', to: 'default/web', destinationPort: 5432 }));
    expect(far.disposition, path(far)).toBe('DeniedIn');
    const last = far.observations.at(-1)!;
    expect([last.host, last.component, last.rule?.name]).toEqual(['b', 'NSG', 'deny-web-5432']);
    const near = tj(c.trace({ from: 'default/near', to: 'default/web', destinationPort: 5432 }));
    expect(near.disposition, path(near)).toBe('Delivered');
    expect(has(near, 'NSG')).toBe(false);
    expect(has(near, 'Underlay')).toBe(false);
    // another port passes the NSG (AllowVnetInBound), and the reply passes it statefully
    const ok = tj(c.trace({ from: 'default/far', to: 'default/web', destinationPort: 8080, reply: true }));
    expect(ok.disposition).toBe('Delivered');
    expect(step(ok, 'b', 'NSG', 'Allowed').rule?.name).toBe('AllowVnetInBound');
    expect(ok.reply?.disposition).toBe('Delivered');
  });

  it('an outbound NSG rule stops egress at the sending VM; the platform addresses stay reachable', async () => {
    const nsg: NsgSpec = {
      name: 'egress-nsg',
      rules: [
        {
          name: 'deny-internet',
          priority: 100,
          direction: 'Outbound',
          access: 'Deny',
          protocol: '*',
          destinationAddressPrefix: 'Internet',
          destinationPortRange: '*',
        },
      ],
    };
    const { c, rt } = azureCluster({ a: nsg });
    await startAzurePod(c, rt('a'), { namespace: 'default', name: 'p', node: 'a' });
    const out = tj(c.trace({ from: 'default/p', to: '204.79.197.200', destinationPort: 443 }));
    expect(out.disposition, path(out)).toBe('DeniedOut');
    expect(out.observations.at(-1)).toMatchObject({ host: 'a', component: 'NSG' });
    expect(out.observations.at(-1)!.rule?.name).toBe('deny-internet');
    // the wireserver's DNS and IMDS are the platform's: no NSG filters them
    const dns = tj(c.trace({ from: 'default/p', to: '168.63.129.16', protocol: 'UDP', destinationPort: 53 }));
    expect(dns.disposition, path(dns)).toBe('Delivered');
    expect(dns.at).toBe('platform:wireserver');
    const imds = tj(c.trace({ from: 'default/p', to: '169.254.169.254', destinationPort: 80 }));
    expect(imds.disposition, path(imds)).toBe('Delivered');
    expect(imds.final.srcIp).toBe('10.224.0.4'); // IMDS answers the VM's primary IP only
  });

  it('L2Tunnel (azure-vnet v1.5, tunnel mode) hairpins same-node traffic through the host and its NSG', async () => {
    const { c, rt } = azureCluster(
      { a: denyInbound('deny-b-80', '10.224.0.6', '80') },
      { release: 'v1.5.50', mode: 'tunnel' },
    );
    await startAzurePod(c, rt('a'), { namespace: 'default', name: 'pa', node: 'a' });
    await startAzurePod(c, rt('a'), { namespace: 'default', name: 'pb', node: 'a' });
    expect([...c.host('a').hns.store.networks.values()].find((n) => n.Name === 'azure')!.Type).toBe(
      'L2Tunnel',
    );
    const denied = tj(c.trace({ from: 'default/pa', to: 'default/pb', destinationPort: 80 }));
    expect(denied.disposition, path(denied)).toBe('DeniedIn');
    expect(step(denied, 'a', 'Underlay', 'Hairpinned')).toBeDefined();
    expect(denied.observations.at(-1)!.rule?.name).toBe('deny-b-80');
    const passed = tj(c.trace({ from: 'default/pa', to: 'default/pb', destinationPort: 8080, reply: true }));
    expect(passed.disposition, path(passed)).toBe('Delivered');
    const back = step(passed, 'a', 'Underlay', 'Forwarded');
    expect(back.rule).toMatchObject({ kind: 'AzureHost', policy: 'VNet' });
    expect(back.packetAfter.srcMac).toBe(HOST_MAC);
    // the NIC's NSG judges it twice: leaving the VM and coming back in
    expect(steps(passed, 'a', 'NSG', 'Allowed').map((o) => o.rule?.name)).toEqual([
      'AllowVnetOutBound',
      'AllowVnetInBound',
    ]);
    expect(passed.reply?.disposition).toBe('Delivered');
  });

  it('kube-proxy programs a node only once azure-vnet has made its network', async () => {
    const { c, rt } = azureCluster({ a: undefined, b: undefined });
    await startAzurePod(c, rt('a'), { namespace: 'default', name: 'web', node: 'a', labels: { app: 'web' } });
    c.addService({ namespace: 'default', name: 'web', ports: [{ port: 80 }], selector: { app: 'web' } });
    expect(c.host('a').hns.store.loadBalancers.size).toBe(1);
    // b has no pod yet: no azure network, nothing programmed
    expect(c.host('b').hns.store.loadBalancers.size).toBe(0);
    await startAzurePod(c, rt('b'), { namespace: 'default', name: 'client', node: 'b' });
    const lbs = [...c.host('b').hns.store.loadBalancers.values()];
    expect(lbs.map((lb) => lb.FrontendVIPs)).toEqual([['10.0.0.11']]);
    expect(c.trace({ from: 'default/client', to: 'svc:default/web' }).disposition).toBe('Delivered');
  });

  it('a NIC’s secondary IPs are all its pods get: the next ADD fails with azure-vnet-ipam’s text', async () => {
    const { c, rt } = azureCluster({ a: undefined }, { maxPods: 1 });
    await startAzurePod(c, rt('a'), { namespace: 'default', name: 'one', node: 'a' });
    await expect(startAzurePod(c, rt('a'), { namespace: 'default', name: 'two', node: 'a' })).rejects.toThrow(
      /No available addresses/,
    );
    expect(c.pod('default/two')).toBeUndefined();
  });
});

describe('an Azure cluster refuses what it does not model, and keeps its state', () => {
  it('rejects non-Azure nodes, Azure nodes elsewhere, and pods not made by azure-vnet', () => {
    const c = new Cluster({ azure: {} });
    expect(() => c.addWindowsNode({ name: 'x', network: 'l2bridge' })).toThrow(/network must be azure/);
    expect(() => c.addLinuxNode({ name: 'l', backend: 'host-gw' })).toThrow(/Windows VMs/);
    expect(() => c.addWindowsNode({ name: 'y', network: 'azure', maxPods: 0 })).toThrow(/maxPods 0/);
    expect(() => c.addWindowsNode({ name: 'y', network: 'azure', maxPods: 251 })).toThrow(/maxPods 251/);
    expect(() =>
      c.addWindowsNode({ name: 'y', network: 'azure', nsg: { name: 'n', rules: [{ name: 'r' }] } as never }),
    ).toThrow();
    expect(c.nodeNames()).toEqual([]);
    // nothing was taken: the first node still gets the subnet's first usable address
    c.addWindowsNode({ name: 'first', network: 'azure', maxPods: 2 });
    expect(c.host('first').azure!.nics[0]!.primaryIp).toBe('10.224.0.4');
    expect(() => c.addPod({ namespace: 'default', name: 'p', node: 'first' })).toThrow(/azure-vnet/);
    c.addWindowsNode({ name: 'second', network: 'azure', maxPods: 2 });
    expect(c.host('second').azure!.nics[0]!.primaryIp).toBe('10.224.0.7');
    const plain = new Cluster();
    expect(() => plain.addWindowsNode({ name: 'z', network: 'azure' })).toThrow(/needs an Azure cluster/);
    expect(() => plain.addWindowsNode({ name: 'z', network: 'l2bridge', maxPods: 3 })).toThrow(
      /Azure cluster/,
    );
    expect(plain.nodeNames()).toEqual([]);
  });

  it('uses AKS’s addresses by default and writes AKS’s conflist for them', () => {
    const c = new Cluster({ azure: {} });
    expect([c.options.nodeSubnet, c.options.serviceCidr, c.options.dnsServiceIp]).toEqual([
      '10.224.0.0/16',
      '10.0.0.0/16',
      '10.0.0.10',
    ]);
    const conf = aksConflist(c) as { plugins: Record<string, unknown>[] };
    expect(conf.plugins[0]!['dns']).toEqual({
      Nameservers: ['10.0.0.10', '168.63.129.16'],
      Search: ['svc.cluster.local'],
    });
    const args = conf.plugins[0]!['AdditionalArgs'] as { Value: Record<string, unknown> }[];
    expect(args[0]!.Value).toEqual({ Type: 'OutBoundNAT', ExceptionList: ['10.224.0.0/12'] });
    expect(args[1]!.Value).toEqual({ Type: 'ROUTE', DestinationPrefix: '10.0.0.0/16', NeedEncap: true });
  });
});

// Azure CNI Overlay (reference azure-cni.md §2.1, §2.7): each node a /24 of the pod CIDR, handed
// out by the node's CNS (gateway .1, pods from .2) and routed to the VM by the VNet; AgentBaker's
// Overlay conflist (AzureCNI.Expect.Overlay.conflist, test/plugins/azure-vnet/vectors) excepts only
// the pod CIDR from OutBoundNAT, so VNet destinations — nodes included — see the node's IP.
describe('an AKS-like cluster on Azure CNI Overlay', () => {
  const vector = JSON.parse(
    readFileSync(
      fileURLToPath(new URL('../plugins/azure-vnet/vectors/aks-expect-overlay.conflist', import.meta.url)),
      'utf8',
    ),
  ) as { plugins: Record<string, unknown>[] };

  it('writes AgentBaker’s Overlay conflist: v4swift, CNS in v4overlay mode, only the pod CIDR excepted', () => {
    const c = new Cluster({ azure: { mode: 'overlay' } });
    const p = (aksConflist(c) as { plugins: Record<string, unknown>[] }).plugins[0]!;
    const v = vector.plugins[0]!;
    expect([p['executionMode'], p['ipam']]).toEqual([v['executionMode'], v['ipam']]);
    const args = p['AdditionalArgs'] as { Value: Record<string, unknown> }[];
    expect(args[0]!.Value).toEqual({ Type: 'OutBoundNAT', ExceptionList: ['10.244.0.0/16'] });
    // the vector's ACLs are all there (its ROUTE is gone because WinDSR is on there; that file
    // predates the TCP 32526 block the DisableWinDSR vector and azure-cni.md §4.2 have)
    const acls = (a: unknown) => (a as { Value: { Type: string } }[]).filter((x) => x.Value.Type === 'ACL');
    expect(acls(args)).toEqual(expect.arrayContaining(acls(v['AdditionalArgs'])));
    expect(acls(args)).toHaveLength(acls(v['AdditionalArgs']).length + 1);
  });

  it('runs the nine flows: pods by their own addresses, everything else SNATed to the node', async () => {
    const { cluster, names } = await aksDemoCluster({ azure: { mode: 'overlay' } });
    expect(
      ['kube-system/coredns-0', 'default/client', 'default/web-0'].map((p) => cluster.pod(p)?.ip),
    ).toEqual(['10.244.2.2', '10.244.1.2', '10.244.2.3']);
    const rows = kubernetesFlows(cluster, names).map((r) => [r.flow, r.disposition, r.changes]);
    const svc = 'DNAT 10.0.0.11:80→10.244.2.3:8080, SNAT 10.244.1.2→10.224.0.4, MAC→host MAC';
    expect(rows).toEqual([
      ['Pod → Pod (IP)', 'Delivered', 'MAC→host MAC'],
      ['Pod → Pod (name)', 'Delivered', 'MAC→host MAC'],
      ['Pod → Service (ClusterIP)', 'Delivered', svc],
      ['Pod → Service (PQDN)', 'Delivered', svc],
      ['Pod → Service (FQDN)', 'Delivered', svc],
      ['Pod → external (IP)', 'Delivered', 'SNAT 10.244.1.2→10.224.0.4, MAC→host MAC'],
      ['Pod → external (DNS)', 'Delivered', 'SNAT 10.244.1.2→10.224.0.4, MAC→host MAC'],
      ['Node → Pod', 'Delivered', ''],
      ['Pod → Node', 'Delivered', 'SNAT 10.244.1.2→10.224.0.4, MAC→host MAC'],
    ]);
    const t = tj(cluster.trace({ from: 'default/client', to: 'default/web-0', destinationPort: 8080 }));
    const vnet = step(t, 'akswin1', 'Underlay', 'Switched');
    expect(vnet.rule).toMatchObject({ kind: 'AzureHost', id: 'akswin2', policy: 'VNet' });
    expect(vnet.detail).toContain('10.244.2.3, in a prefix the VNet routes to it');
    // each node's CNS handed out its own /24
    const node2 = cluster.nodeOf('akswin2');
    expect(node2?.kind === 'Windows' ? [...node2.cns!.assigned().values()] : []).toEqual([
      ['10.244.2.2'],
      ['10.244.2.3'],
    ]);
  });

  it('refuses maxPods on an Overlay node and a pod CIDR routed to two VMs, keeping its state', () => {
    const c = new Cluster({ azure: { mode: 'overlay' } });
    expect(() => c.addWindowsNode({ name: 'a', network: 'azure', maxPods: 4 })).toThrow(/no secondary IPs/);
    c.addWindowsNode({ name: 'a', network: 'azure', podSubnet: '10.244.7.0/24' });
    expect(() => c.addWindowsNode({ name: 'b', network: 'azure', podSubnet: '10.244.7.0/25' })).toThrow(
      /routed to another VM already/,
    );
    expect(c.nodeNames()).toEqual(['a']);
    c.addWindowsNode({ name: 'b', network: 'azure' });
    expect(c.host('b').azure!.nics[0]!.primaryIp).toBe('10.224.0.5');
  });
});

// What a failed call must leave as it was (review of the Azure cluster change): a pod the cluster
// refuses after its sandbox ran, an Overlay block taken by hand, addresses at a subnet's end,
// options Azure would refuse.
describe('an Azure cluster keeps its state on refusals', () => {
  it('startAzurePod: a pod name taken on another node, or another node’s runtime — no sandbox, no endpoint, no address left', async () => {
    const { c, rt } = azureCluster({ a: undefined, b: undefined });
    await startAzurePod(c, rt('a'), { namespace: 'default', name: 'web', node: 'a' });
    const b = c.host('b');
    await expect(startAzurePod(c, rt('b'), { namespace: 'default', name: 'web', node: 'b' })).rejects.toThrow(
      /exists/,
    );
    // the wrong runtime: the sandbox ran on a, the cluster was asked for b
    await expect(
      startAzurePod(c, rt('a'), { namespace: 'default', name: 'other', node: 'b' }),
    ).rejects.toThrow(/has no HNS endpoint on b/);
    expect(b.hns.store.endpoints.size).toBe(0);
    const a = c.host('a');
    expect([...a.hns.store.endpoints.values()].map((e) => e.IpConfigurations[0]!.IpAddress)).toEqual([
      '10.224.0.5',
    ]);
    expect(await rt('a').listPodSandbox()).toHaveLength(1);
  });

  it('node-subnet: the NIC’s secondary IPs end before the subnet’s last address (Azure keeps it)', () => {
    const c = new Cluster({ nodeSubnet: '10.224.0.0/28', azure: {} });
    expect(() => c.addWindowsNode({ name: 'big', network: 'azure', maxPods: 11 })).toThrow(/is full/);
    c.addWindowsNode({ name: 'fits', network: 'azure', maxPods: 10 });
    expect(c.host('fits').azure!.nics[0]!.secondaryIps.at(-1)).toBe('10.224.0.14');
    expect(() => c.addWindowsNode({ name: 'more', network: 'azure', maxPods: 1 })).toThrow(/is full/);
  });

  it('Overlay: a block given by hand is skipped by the next default node; bad blocks are refused', () => {
    const c = new Cluster({ azure: { mode: 'overlay' } });
    c.addWindowsNode({ name: 'a', network: 'azure', podSubnet: '10.244.2.0/24' });
    c.addWindowsNode({ name: 'b', network: 'azure' });
    c.addWindowsNode({ name: 'c', network: 'azure' });
    expect(['a', 'b', 'c'].map((n) => fmtPrefix(c.nodeOf(n)!.podSubnet))).toEqual([
      '10.244.2.0/24',
      '10.244.3.0/24',
      '10.244.4.0/24',
    ]);
    expect(() => c.addWindowsNode({ name: 'd', network: 'azure', podSubnet: '10.245.0.0/24' })).toThrow(
      /not inside the pod CIDR/,
    );
    expect(c.nodeNames()).toEqual(['a', 'b', 'c']);
  });

  it('refuses an unknown mode, a VNet subnet outside the address space, and an Overlay pod CIDR on the VNet', () => {
    expect(() => new Cluster({ azure: { mode: 'swift' as never } })).toThrow(/node-subnet or overlay/);
    expect(() => new Cluster({ azure: { addressSpace: ['172.16.0.0/16'] } })).toThrow(
      /10.224.0.0\/16 is not inside azure.addressSpace/,
    );
    expect(() => new Cluster({ podCidr: '10.224.0.0/16', azure: { mode: 'overlay' } })).toThrow(
      /overlaps the VNet subnet/,
    );
  });

  it('Overlay pods carry the cluster pod CIDR’s length (CreateNCRequestFromStaticNC: SubnetAddressSpace)', async () => {
    const { cluster } = await aksDemoCluster({ azure: { mode: 'overlay' } });
    const h = cluster.host('akswin1');
    const ep = [...h.hns.store.endpoints.values()].find((e) => e.Name.endsWith('-eth0'))!;
    expect(ep.IpConfigurations.map((x) => `${x.IpAddress}/${x.PrefixLength}`)).toEqual(['10.244.1.2/16']);
    const net = [...h.hns.store.networks.values()].find((n) => n.Name === 'azure')!;
    expect(net.Ipams[0]!.Subnets.map((s) => [s.IpAddressPrefix, s.Routes[0]!.NextHop])).toEqual([
      ['10.244.0.0/16', '10.244.1.1'],
    ]);
  });
});
