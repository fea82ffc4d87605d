// Scenario keys for an Azure VM (docs/scenarios.md `hosts[]`: `azure`, `cni.azureVnetRelease`):
// a bad NSG is a setup error at the host with createHost's text, `azure` on a cluster node is
// refused when the file loads, and the release picks the azure-vnet binary (L2Tunnel from v1.5.50
// in tunnel mode, L2Bridge from today's). The shipped azure-*-nsg.yaml files run in shipped.test.ts.
import { describe, expect, it } from 'vitest';
import { loadScenario, runScenario } from '../../src/scenario/index.js';

const file = (nsg: string, release = '') => `hnsim: scenario/v1
name: azure
seed: 3
hosts:
  - name: vm
    nics: [{ name: Ethernet, ipAddress: 10.224.0.4/16, gateway: 10.224.0.1 }]
    azure:
      nics: [{ adapter: Ethernet, secondaryIps: [10.224.0.5], nsg: ${nsg} }]
    cni:
      ${release}
      conflist:
        cniVersion: 0.3.0
        name: azure
        plugins:
          - { type: azure-vnet, mode: tunnel, ipam: { type: azure-vnet-ipam }, dns: { Nameservers: [10.0.0.10], Search: [svc.cluster.local] } }
pods:
  - { name: a, node: vm }
expect:
  pods: [{ pod: default/a, phase: Running, ip: 10.224.0.5 }]
`;

describe('scenario: an Azure VM host', () => {
  it('an NSG rule Azure would refuse is a setup error naming the host and the rule', async () => {
    const bad = file('{ name: n, rules: [{ name: r, priority: 99, direction: Inbound, access: Allow }] }');
    await expect(runScenario(loadScenario(bad, 'azure.yaml'))).rejects.toThrow(
      'nic 0 nsg rule 0: priority must be an integer from 100 to 4096',
    );
  });

  it('azure on a cluster node is refused when the file loads', () => {
    const clustered = `hnsim: scenario/v1
name: c
cluster: {}
hosts:
  - { name: w, flannel: { backend: host-gw }, azure: { nics: [] } }
`;
    expect(() => loadScenario(clustered, 'c.yaml')).toThrow(
      /hosts\[0\]\.azure: azure is for a standalone host/,
    );
  });

  it("cni.azureVnetRelease picks the binary: v1.5.50 in tunnel mode makes L2Tunnel, today's L2Bridge", async () => {
    const nsg = '{ name: n, rules: [] }';
    for (const [release, type] of [
      ['azureVnetRelease: v1.5.50', 'L2Tunnel'],
      ['', 'L2Bridge'],
    ] as const) {
      const r = await runScenario(
        loadScenario(
          file(nsg, release).replace(
            'expect:\n',
            `expect:\n  hns: [{ node: vm, kind: networks, where: { Name: azure }, count: 1, has: { Type: ${type} } }]\n`,
          ),
          'azure.yaml',
        ),
      );
      expect(r.ok).toBe(true);
    }
  });
});
