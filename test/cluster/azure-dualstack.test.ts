// A dual-stack Azure cluster (`podCidrV6`): each Windows node is a Node of the cluster's Kubernetes
// API with a /64 of the IPv6 pod CIDR, reaches that API at the URL its c:\k\config names, and gets
// AgentBaker's dual-stack conflist (azurecnifunc.ps1 Set-AzureCNIConfig @ 031ff735, $IsDualStackEnabled
// without WinDSR: ipv6Mode "ipv6nat", the v6 exceptions as a second OutBoundNAT after the ROUTE, then
// a ROUTE for the v6 service CIDR).
import { describe, expect, it } from 'vitest';
import { Cluster } from '../../src/cluster/cluster.js';
import { aksConflist } from '../../src/cluster/azure.js';

describe('dual-stack Azure cluster', () => {
  it('nodes are in the API server with a v4 /24 and a v6 /64, and reach it through c:\\k\\config', () => {
    const c = new Cluster({ azure: {}, podCidrV6: 'fd00:10:244::/56' });
    const host = c.addWindowsNode({ name: 'akswin1', network: 'azure' });
    const config = host.files.read('c:\\k\\config')!;
    const server = /server: (\S+)/.exec(config)![1]!;
    const node = JSON.parse(host.httpRequest('GET', `${server}/api/v1/nodes/akswin1`).body) as {
      spec: { podCIDRs: string[] };
    };
    expect(node.spec.podCIDRs).toEqual(['10.244.1.0/24', 'fd00:10:244:1::/64']);
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

  it("an IPv4-only cluster's nodes have only the v4 pod CIDR and no ipv6Mode; a bad podCidrV6 is refused", () => {
    const c = new Cluster({ azure: {} });
    c.addWindowsNode({ name: 'akswin1', network: 'azure' });
    expect(c.kubeApi.node('akswin1')!.podCIDRs).toEqual(['10.244.1.0/24']);
    expect((aksConflist(c)['plugins'] as Record<string, unknown>[])[0]!['ipv6Mode']).toBeUndefined();
    expect(() => new Cluster({ azure: {}, podCidrV6: '10.0.0.0/8' })).toThrow(/podCidrV6/);
  });
});
