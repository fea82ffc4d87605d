/**
 * Scenario files with ovn-kubernetes nodes (`cni: ovn-kubernetes`, `ovnKubernetes: {vxlanPort}`):
 * loaded into `network: 'ovn-kubernetes'` Windows nodes and `backend: 'ovn-kubernetes'` Linux
 * nodes; misuse refused by the loader with the path and a reason (docs/ovn-kubernetes.md).
 */
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';

const base = (hosts: string, cluster = 'cluster: {}\n') =>
  `hnsim: scenario/v1\nname: t\n${cluster}hosts:\n${hosts}\npods:\n  - { name: a, node: w1 }\n`;

function problems(text: string): string[] {
  try {
    loadScenario(text, 't.yaml');
    return [];
  } catch (e) {
    return ((e as { issues?: { message: string }[] }).issues ?? []).map((i) => i.message);
  }
}

describe('cni: ovn-kubernetes in scenarios', () => {
  it('cni: ovn-kubernetes (or the ovnKubernetes key) makes hybrid overlay nodes, the port honoured', async () => {
    const s = loadScenario(
      base(
        [
          '  - { name: w1, cni: ovn-kubernetes, ovnKubernetes: { vxlanPort: 4790 } }',
          '  - { name: l1, os: linux, ovnKubernetes: { vxlanPort: 4790 } }',
        ].join('\n'),
      ),
      't.yaml',
    );
    expect(s.doc.hosts.map((h) => h.ovnKubernetes)).toEqual([{ vxlanPort: 4790 }, { vxlanPort: 4790 }]);
    expect(s.doc.hosts[0]!.cni).toBeUndefined();
    const r = await runScenario(s);
    expect(r.ok).toBe(true);
    const nets = [...r.world.cluster!.host('w1').hns.store.networks.values()].map((n) => n.Name).sort();
    expect(nets).toEqual(['BaseOVNKubernetesHybridOverlayNetwork', 'OVNKubernetesHybridOverlayNetwork']);
    expect(r.world.cluster!.linux('l1').vxlan).toMatchObject({ vni: 4097, port: 4790 });
  });

  it('misuse: standalone, an Azure cluster, flannel, a conflist or a runtime beside it, a bad port', () => {
    const cases: [string, RegExp][] = [
      [base('  - { name: w1, cni: ovn-kubernetes }', ''), /cni: ovn-kubernetes is for a cluster node/],
      [
        base('  - { name: w1, cni: ovn-kubernetes }', 'cluster: { azure: {} }\n'),
        /not for a node of an Azure cluster/,
      ],
      [
        base('  - { name: w1, cni: ovn-kubernetes, flannel: { backend: vxlan } }'),
        /flannel is not for an ovn-kubernetes node/,
      ],
      [
        base('  - { name: w1, ovnKubernetes: {}, runtime: containerd }'),
        /runtime is not for an ovn-kubernetes node/,
      ],
      [base('  - { name: w1, ovnKubernetes: {}, antrea: {} }'), /Antrea or ovn-kubernetes/],
      [base('  - { name: w1, ovnKubernetes: { vxlanPort: 70000 } }'), /must be in 1\.\.65535/],
    ];
    for (const [text, re] of cases) expect(problems(text).join('\n'), text).toMatch(re);
  });
});
