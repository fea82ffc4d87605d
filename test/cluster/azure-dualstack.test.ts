// A dual-stack Azure cluster (`podCidrV6`): each Windows node is a Node of the cluster's Kubernetes
// API with a /64 of the IPv6 pod CIDR, reaches that API at the URL its c:\k\config names, and gets
// AgentBaker's dual-stack conflist (azurecnifunc.ps1 Set-AzureCNIConfig @ 031ff735, $IsDualStackEnabled
// without WinDSR: ipv6Mode "ipv6nat", the v6 exceptions as a second OutBoundNAT after the ROUTE, then
// a ROUTE for the v6 service CIDR).
import { describe, expect, it, vi } from 'vitest';
import { Cluster } from '../../src/cluster/cluster.js';
import { aksConflist } from '../../src/cluster/azure.js';

describe('dual-stack Azure cluster', () => {
  it('nodes are in the API server with their v6 /64, and reach it through c:\\k\\config', () => {
    const c = new Cluster({ azure: {}, podCidrV6: 'fd00:10:244::/56' });
    const host = c.addWindowsNode({ name: 'akswin1', network: 'azure' });
    const config = host.files.read('c:\\k\\config')!;
    const server = /server: (\S+)/.exec(config)![1]!;
    const node = JSON.parse(host.httpRequest('GET', `${server}/api/v1/nodes/akswin1`).body) as {
      spec: { podCIDRs: string[] };
    };
    // aks-engine (pkg/api/defaults-controller-manager.go): Azure CNI dual-stack runs the controller
    // manager with --allocate-node-cidrs and --cluster-cidr the IPv6 one only
    expect(node.spec.podCIDRs).toEqual(['fd00:10:244:1::/64']);
  });

  it("the conflist is Set-AzureCNIConfig's dual-stack one", () => {
    const c = new Cluster({ azure: {}, podCidrV6: 'fd00:10:244::/56', serviceCidrV6: 'fd00:10:96::/108' });
    const p = (aksConflist(c)['plugins'] as Record<string, unknown>[])[0]!;
    expect(p['ipv6Mode']).toBe('ipv6nat');
    const args = (p['AdditionalArgs'] as { Value: Record<string, unknown> }[]).map((a) => a.Value);
    expect(args.slice(0, 4)).toEqual([
      { Type: 'OutBoundNAT', ExceptionList: ['10.224.0.0/12'] },
      { Type: 'ROUTE', DestinationPrefix: '10.0.0.0/16', NeedEncap: true },
      { Type: 'OutBoundNAT', ExceptionList: ['fd00:10:244::/56'] },
      { Type: 'ROUTE', DestinationPrefix: 'fd00:10:96::/108', NeedEncap: true },
    ]);
  });

  it("an IPv4-only cluster's nodes have no pod CIDR (aks-engine: no --allocate-node-cidrs for Azure CNI) and no ipv6Mode; a bad podCidrV6 is refused", () => {
    const c = new Cluster({ azure: {} });
    c.addWindowsNode({ name: 'akswin1', network: 'azure' });
    expect(c.kubeApi.node('akswin1')!.podCIDRs).toEqual([]);
    expect((aksConflist(c)['plugins'] as Record<string, unknown>[])[0]!['ipv6Mode']).toBeUndefined();
    expect(() => new Cluster({ azure: {}, podCidrV6: '10.0.0.0/8' })).toThrow(/podCidrV6/);
  });
});

describe("the cluster's API server holds each node with the pod CIDRs it really uses", () => {
  it('a flannel node given podSubnet, and Linux nodes, are registered with their pod subnet and node IP', () => {
    const c = new Cluster({ podCidrV6: 'fd00:10:244::/56' });
    c.addWindowsNode({ name: 'Win-1', network: 'l2bridge', podSubnet: '10.244.9.0/24' });
    c.addLinuxNode({ name: 'lin-1', backend: 'host-gw' });
    expect(c.kubeApi.node('win-1')).toEqual({
      name: 'win-1',
      podCIDRs: ['10.244.9.0/24', 'fd00:10:244:1::/64'],
      internalIp: '10.0.0.10',
    });
    expect(c.kubeApi.node('lin-1')!.podCIDRs).toEqual(['10.244.2.0/24', 'fd00:10:244:2::/64']);
    // a name the API server already has in lower case is taken
    expect(() => c.addLinuxNode({ name: 'WIN-1', backend: 'host-gw' })).toThrow(
      /node name "WIN-1" is empty or taken/,
    );
  });

  it("an Overlay node's block is its pod CIDR; a node-subnet node has no IPv4 one (aks-engine: no --allocate-node-cidrs for Azure CNI's IPv4)", () => {
    const overlay = new Cluster({ azure: { mode: 'overlay' } });
    overlay.addWindowsNode({ name: 'aksover1', network: 'azure', podSubnet: '10.244.77.0/24' });
    expect(overlay.kubeApi.node('aksover1')!.podCIDRs).toEqual(['10.244.77.0/24']);
    const subnet = new Cluster({ azure: {}, podCidrV6: 'fd00:10:244::/56' });
    subnet.addWindowsNode({ name: 'akswin1', network: 'azure' });
    expect(subnet.kubeApi.node('akswin1')).toEqual({
      name: 'akswin1',
      podCIDRs: ['fd00:10:244:1::/64'],
      internalIp: '10.224.0.4',
    });
  });

  it('a node whose /64 falls outside podCidrV6 is refused, and nothing changes', () => {
    // a /63 holds two /64s: node 1 takes the second, node 2 has none left
    const c = new Cluster({ azure: {}, podCidrV6: 'fd00:10:244::/63' });
    c.addWindowsNode({ name: 'akswin1', network: 'azure' });
    expect(c.kubeApi.node('akswin1')!.podCIDRs).toEqual(['fd00:10:244:1::/64']);
    const gen = c.generation();
    expect(() => c.addWindowsNode({ name: 'akswin2', network: 'azure' })).toThrow(
      'podCidrV6 fd00:10:244::/63 has no /64 left for node "akswin2"',
    );
    expect(c.nodeNames()).toEqual(['akswin1']);
    expect(c.kubeApi.nodes().map((n) => n.name)).toEqual(['akswin1']);
    expect(c.generation()).toBe(gen);
    // the same for a flannel node
    const f = new Cluster({ podCidrV6: 'fd00::/63' });
    f.addWindowsNode({ name: 'w1', network: 'overlay' });
    expect(() => f.addLinuxNode({ name: 'l2', backend: 'vxlan' })).toThrow(
      /podCidrV6 fd00::\/63 has no \/64 left/,
    );
    expect(f.kubeApi.node('l2')).toBeUndefined();
  });

  it('a node whose setup fails is not left in the API server', () => {
    const c = new Cluster({ azure: {}, podCidrV6: 'fd00:10:244::/56' });
    vi.spyOn(c.fabric, 'attachVm').mockImplementationOnce(() => {
      throw new Error('the VNet refuses the VM');
    });
    expect(() => c.addWindowsNode({ name: 'akswin1', network: 'azure' })).toThrow('the VNet refuses the VM');
    expect(c.kubeApi.node('akswin1')).toBeUndefined();
    // and the name is free again
    c.addWindowsNode({ name: 'akswin1', network: 'azure' });
    expect(c.kubeApi.node('akswin1')!.podCIDRs).toEqual(['fd00:10:244:1::/64']);
  });

  it('podCidrV6 on an Overlay cluster, or serviceCidrV6 alone or not IPv6, is refused', () => {
    expect(() => new Cluster({ azure: { mode: 'overlay' }, podCidrV6: 'fd00::/56' })).toThrow(
      /podCidrV6 with azure.mode overlay: AKS Overlay dual-stack \(CNS dualStackOverlay\) is not modelled/,
    );
    expect(() => new Cluster({ azure: {}, serviceCidrV6: 'fd00:10:96::/108' })).toThrow(
      'serviceCidrV6 is for a dual-stack cluster: give podCidrV6 too',
    );
    expect(() => new Cluster({ azure: {}, podCidrV6: 'fd00::/56', serviceCidrV6: '10.0.0.0/16' })).toThrow(
      'serviceCidrV6 "10.0.0.0/16" is not an IPv6 prefix',
    );
  });
});

/** The conflist's AdditionalArgs values. */
const argsOf = (conf: Record<string, unknown>): Record<string, unknown>[] =>
  (
    (conf['plugins'] as Record<string, unknown>[])[0]!['AdditionalArgs'] as {
      Value: Record<string, unknown>;
    }[]
  ).map((a) => a.Value);

// azurecnifunc.ps1 @ 031ff735 Set-AzureCNIConfig: on "1809" (Get-WindowsVersion of build 17763) the
// exceptions go through GetBroadestRangesForEachAddress and no IPv6 OutBoundNAT is appended; the
// IPv6 service ROUTE and ipv6Mode come from the WinDSR-disabled branch, on every OS
describe("AgentBaker's dual-stack conflist per Windows version", () => {
  it('WS2019: one OutBoundNAT (the IPv6 CIDR dropped), the v4 ROUTE, the v6 ROUTE, ipv6Mode ipv6nat', () => {
    const c = new Cluster({ azure: {}, profile: 'ws2019', podCidrV6: 'fd00:10:244::/56' });
    const conf = aksConflist(c);
    expect((conf['plugins'] as Record<string, unknown>[])[0]!['ipv6Mode']).toBe('ipv6nat');
    expect(argsOf(conf).slice(0, 3)).toEqual([
      { Type: 'OutBoundNAT', ExceptionList: ['10.224.0.0/12'] },
      { Type: 'ROUTE', DestinationPrefix: '10.0.0.0/16', NeedEncap: true },
      { Type: 'ROUTE', DestinationPrefix: 'fd12:3456:789a:1::/108', NeedEncap: true },
    ]);
    // then the wireserver ACLs, as on every version
    expect(argsOf(conf)[3]).toMatchObject({ Type: 'ACL', RemotePorts: '80' });
    expect(argsOf(conf).filter((a) => a['Type'] === 'OutBoundNAT')).toHaveLength(1);
  });

  it("a node's own OS decides: a WS2019 node of a WS2022 cluster gets the 1809 form, the cluster's default the other", () => {
    const c = new Cluster({ azure: {}, podCidrV6: 'fd00:10:244::/56' });
    c.addWindowsNode({ name: 'akswin1', network: 'azure', profile: 'ws2019' });
    c.addWindowsNode({ name: 'akswin2', network: 'azure' });
    const nats = (conf: Record<string, unknown>) =>
      argsOf(conf)
        .filter((a) => a['Type'] === 'OutBoundNAT')
        .map((a) => a['ExceptionList']);
    expect(nats(aksConflist(c, 'akswin1'))).toEqual([['10.224.0.0/12']]);
    expect(nats(aksConflist(c, 'akswin2'))).toEqual([['10.224.0.0/12'], ['fd00:10:244::/56']]);
    expect(nats(aksConflist(c))).toEqual([['10.224.0.0/12'], ['fd00:10:244::/56']]);
  });

  it("WS2019 keeps each address's broadest range (azurecnifunc.tests.ps1 GetBroadestRangesForEachAddress vectors)", () => {
    // the tests' third vector: 10.0.0.0/16, 10.240.0.0/12, 10.0.0.0/8 → 10.0.0.0/8 and 10.240.0.0/12
    // (the tests check membership only: the script's hashtable fixes no order)
    const c = new Cluster({
      azure: { addressSpace: ['10.0.0.0/16', '10.240.0.0/12', '10.0.0.0/8'] },
      nodeSubnet: '10.0.0.0/24',
      profile: 'ws2019',
    });
    const first = argsOf(aksConflist(c))[0]!['ExceptionList'] as string[];
    expect([...first].sort()).toEqual(['10.0.0.0/8', '10.240.0.0/12']);
    const ws2022 = new Cluster({
      azure: { addressSpace: ['10.0.0.0/16', '10.240.0.0/12', '10.0.0.0/8'] },
      nodeSubnet: '10.0.0.0/24',
    });
    expect(argsOf(aksConflist(ws2022))[0]!['ExceptionList']).toEqual([
      '10.0.0.0/16',
      '10.240.0.0/12',
      '10.0.0.0/8',
    ]);
  });
});
