/**
 * Scenario files with Antrea nodes (`cni: antrea`, `antrea: {tunnelType}`): loaded into
 * `network: antrea` cluster nodes; misuse refused by the loader with the path and a reason.
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
    return String((e as Error).message).split('\n');
  }
}

describe('cni: antrea in scenarios', () => {
  it('cni: antrea (or an antrea key) makes an Antrea node; the tunnel type is honoured', async () => {
    const s = loadScenario(
      base('  - { name: w1, cni: antrea }\n  - { name: w2, antrea: { tunnelType: stt } }'),
      't.yaml',
    );
    expect(s.doc.hosts.map((h) => h.antrea)).toEqual([{}, { tunnelType: 'stt' }]);
    expect(s.doc.hosts[0]!.cni).toBeUndefined();
    const r = await runScenario(s);
    expect(r.world.cluster!.host('w2').ovs.vsctl('get interface antrea-tun0 type').stdout).toBe('stt\n');
  });

  it('misuse: standalone, an Azure cluster, flannel or a conflist beside it, a Linux node', () => {
    const cases: [string, RegExp][] = [
      [base('  - { name: w1, cni: antrea }', ''), /cni: antrea is for a cluster node/],
      [
        base('  - { name: w1, cni: antrea }', 'cluster: { azure: {} }\n'),
        /not for a node of an Azure cluster/,
      ],
      [
        base('  - { name: w1, cni: antrea, flannel: { backend: host-gw } }'),
        /flannel is not for an Antrea node/,
      ],
      [base('  - { name: w1, antrea: {}, runtime: dockershim }'), /runtime is not for an Antrea node/],
      [base('  - { name: w1, os: linux, antrea: {} }'), /antrea is for Windows nodes/],
      [base('  - { name: w1, antrea: { tunnelType: gre } }'), /tunnelType/],
    ];
    for (const [text, re] of cases) expect(problems(text).join('\n'), text).toMatch(re);
  });
});
