// A scenario file's dual-stack cluster (cluster.podCidrV6, serviceCidrV6): the Azure cluster's
// nodes are Nodes with a /64 of it in the cluster's Kubernetes API, AgentBaker's dual-stack conflist
// (ipv6Mode ipv6nat) runs under containerd, azure-vnet-ipamv6 gets the pod its IPv6 address, and
// HNS refuses the IPv4 default route via the IPv6 gateway azure-vnet sends (docs/cni.md "Legacy
// dual-stack"): the pod fails with 0x803b000c.
import { describe, expect, it } from 'vitest';
import { loadScenario, runScenario } from '../../src/scenario/index.js';

const doc = (cluster: string) => `hnsim: scenario/v1
name: dual
cluster: { azure: {}, ${cluster} }
hosts:
  - { name: w1 }
pods:
  - { name: a, node: w1, expect: { phase: Failed, error: "0x803b000c" } }
`;

describe('scenario: a dual-stack Azure cluster', () => {
  it('the pod reaches HNS with both addresses, which refuses the v4 route via the v6 gateway', async () => {
    const r = await runScenario(
      loadScenario(doc('podCidrV6: "fd00:10:244::/56", serviceCidrV6: "fd00:10:96::/108"'), 'dual.yaml'),
    );
    expect(r.ok).toBe(true);
    expect(JSON.stringify(r.walkthrough.steps)).toContain('Dual-stack: IPv6 pods fd00:10:244::/56');
    // the node is a Node with its /64 in the cluster's API server
    expect(r.world.cluster!.kubeApi.node('w1')!.podCIDRs).toEqual(['fd00:10:244:1::/64']);
  });

  it('a podCidrV6 that is not IPv6, or serviceCidrV6 without it, is refused naming the key', async () => {
    expect(() => loadScenario(doc('podCidrV6: 10.0.0.0/8'), 'dual.yaml')).toThrow(
      /cluster\.podCidrV6: must be an IPv6 address with a prefix length 0\.\.128, e\.g\. fd00:10:244::\/56 \(got the string "10\.0\.0\.0\/8"\)/,
    );
    await expect(
      runScenario(loadScenario(doc('serviceCidrV6: "fd00:10:96::/108"'), 'dual.yaml')),
    ).rejects.toThrow(/serviceCidrV6 is for a dual-stack cluster: give podCidrV6 too/);
  });
});
