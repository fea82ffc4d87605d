// Scenario keys for an Azure VM (docs/scenarios.md `hosts[]`: `azure`, `cni.azureVnetRelease`):
// a bad NSG is a setup error at the host with createHost's text, `azure` on a cluster node is
// refused when the file loads, and the release picks the azure-vnet binary (L2Tunnel from v1.5.50
// in tunnel mode, L2Bridge from today's). An Azure cluster (`cluster.azure`): its nodes are
// Windows VMs with `{maxPods, nsg}` and a default conflist; what is not for them is refused when
// the file loads, naming the key. The shipped azure-*-nsg.yaml and aks-node-subnet.yaml files run
// in shipped.test.ts.
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

const aks = (hosts: string, cluster = 'azure: { maxPods: 4 }') => `hnsim: scenario/v1
name: aks
seed: 5
cluster: { ${cluster} }
hosts:
${hosts}
`;

describe('scenario: an Azure cluster (cluster.azure)', () => {
  it.each([
    ['  - { name: l, os: linux }', /hosts\[0\]\.os: an Azure cluster's nodes are Windows VMs/],
    [
      '  - { name: w, flannel: { backend: host-gw } }',
      /hosts\[0\]\.flannel: flannel is not for a node of an Azure cluster/,
    ],
    ['  - { name: w, podSubnet: 10.244.1.0/24 }', /hosts\[0\]\.podSubnet: podSubnet is not for a node/],
    ['  - { name: w, azure: { nics: [] } }', /hosts\[0\]\.azure\.nics: unknown key "nics"/],
    ['  - { name: w, azure: { maxPods: 0 } }', /hosts\[0\]\.azure\.maxPods: maxPods is an integer 1\.\.250/],
  ])('refuses %s when the file loads', (hosts, message) => {
    expect(() => loadScenario(aks(hosts), 'aks.yaml')).toThrow(message);
  });

  it('a cni without conflist is only for a node of an Azure cluster', () => {
    const plain = `hnsim: scenario/v1
name: p
cluster: {}
hosts:
  - { name: w, flannel: { backend: host-gw }, cni: { azureVnetRelease: v1.5.50 } }
`;
    expect(() => loadScenario(plain, 'p.yaml')).toThrow(/hosts\[0\]\.cni: missing required key "conflist"/);
  });

  it('cni: azure is the cluster’s AKS conflist (as no cni); elsewhere, or any other word or type, refused naming the key', async () => {
    const doc = `${aks(`  - { name: w1, cni: azure }
  - { name: w2 }`)}pods:
  - { name: a, node: w1 }
  - { name: b, node: w2 }
expect:
  pods:
    - { pod: default/a, phase: Running, ip: 10.224.0.5 }
  hns:
    - { node: w1, kind: networks, where: { Name: azure }, count: 1, has: { Type: L2Bridge } }
  traces:
    - { from: default/a, to: default/b, port: 80, expect: Delivered, reply: Delivered }
`;
    const r = await runScenario(loadScenario(doc, 'aks.yaml'));
    expect([r.passed, r.failed]).toEqual([3, 0]);
    const plain = (cni: string) => `hnsim: scenario/v1
name: p
cluster: {}
hosts:
  - { name: w, flannel: { backend: host-gw }, cni: ${cni} }
`;
    expect(() => loadScenario(plain('azure'), 'p.yaml')).toThrow(
      /hosts\[0\]\.cni: cni: azure is the AKS conflist of an Azure cluster/,
    );
    expect(() => loadScenario(aks('  - { name: w, cni: azur }'), 'aks.yaml')).toThrow(
      /hosts\[0\]\.cni: .*azure/,
    );
    expect(() => loadScenario(aks('  - { name: w, cni: 7 }'), 'aks.yaml')).toThrow(
      /hosts\[0\]\.cni: must be a string or a mapping \(key: value\) \(got the integer 7\)/,
    );
  });

  it('a ClusterIP outside AKS’s default service CIDR is refused', () => {
    const doc = `${aks('  - { name: w }')}services:\n  - { name: s, clusterIP: 10.96.0.20, ports: [{ port: 80 }], selector: { a: b } }\n`;
    expect(() => loadScenario(doc, 'aks.yaml')).toThrow(
      /10\.96\.0\.20 is not in the service CIDR 10\.0\.0\.0\/16/,
    );
  });

  it('nodes get AKS’s conflist and the v1.5 release’s L2Tunnel when asked; pods take the NIC’s secondary IPs', async () => {
    const doc = `${aks(`  - { name: w1, azure: { maxPods: 2 } }
  - name: w2
    cni:
      azureVnetRelease: v1.5.50
      conflist:
        cniVersion: 0.3.0
        name: azure
        plugins:
          - { type: azure-vnet, mode: tunnel, ipam: { type: azure-vnet-ipam }, dns: { Nameservers: [10.0.0.10], Search: [svc.cluster.local] } }`)}pods:
  - { name: a, node: w1 }
  - { name: b, node: w2 }
expect:
  pods:
    - { pod: default/a, phase: Running, ip: 10.224.0.5 }
    - { pod: default/b, phase: Running, ip: 10.224.0.8 }
  hns:
    - { node: w1, kind: networks, where: { Name: azure }, count: 1, has: { Type: L2Bridge } }
    - { node: w2, kind: networks, where: { Name: azure }, count: 1, has: { Type: L2Tunnel } }
  traces:
    - { from: default/a, to: default/b, port: 80, expect: Delivered, reply: Delivered }
`;
    const r = await runScenario(loadScenario(doc, 'aks.yaml'));
    expect([r.passed, r.failed]).toEqual([5, 0]); // two pods, two HNS queries, one trace
    expect(r.ok).toBe(true);
  });
});

describe('scenario: an Azure CNI Overlay cluster', () => {
  it('refuses maxPods on its nodes', () => {
    expect(() =>
      loadScenario(aks('  - { name: w, azure: { maxPods: 4 } }', 'azure: { mode: overlay }'), 'aks.yaml'),
    ).toThrow(/hosts\[0\]\.azure\.maxPods: an Overlay node has no secondary IPs/);
  });
});

describe('scenario: Azure CNS on a standalone host (hosts[].cns)', () => {
  const doc = (extra: string) => `hnsim: scenario/v1
name: cns
hosts:
  - name: vm
    nics: [{ name: Ethernet, ipAddress: 10.224.0.4/16, gateway: 10.224.0.1 }]
${extra}
`;
  it('is only for an Azure host, with ncs and multitenancy', () => {
    expect(() => loadScenario(doc('    cns: { ncs: [] }'), 'c.yaml')).toThrow(
      /hosts\[0\]\.cns: cns is for a standalone Azure host/,
    );
    expect(() =>
      loadScenario(doc('    azure: { nics: [{ adapter: Ethernet }] }\n    cns: { pools: [] }'), 'c.yaml'),
    ).toThrow(/hosts\[0\]\.cns\.pools: unknown key "pools"/);
  });

  it('a spec CNS could not have is a setup error naming it', async () => {
    const s = loadScenario(
      doc(
        '    azure: { nics: [{ adapter: Ethernet }] }\n    cns: { ncs: [{ id: n, primaryIp: 10.241.0.4/16, secondaryIps: [10.9.9.9] }] }',
      ),
      'c.yaml',
    );
    await expect(runScenario(s)).rejects.toThrow(/secondary IP "10.9.9.9" is not in 10.241.0.4\/16/);
  });
});
