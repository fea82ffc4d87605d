/**
 * Two boundaries of the scenario format and the cluster (docs/scenarios.md):
 * - `hosts[].podSubnet` is "its pod subnet, /29 or larger, inside the pod CIDR": a /29 loads and
 *   runs (gateway .1, the bridge endpoint .2, pods from .3: four pods before the broadcast
 *   address), a /28 loads, a /30 is refused at load time at its path; `Cluster.addWindowsNode`
 *   keeps the same bound;
 * - `deletePod` is "the cluster forgets it, then StopPodSandbox and RemovePodSandbox (CNI DEL)":
 *   deleting the same pod a second time is refused at load time ("no pod … at this point"), and
 *   `Cluster.removePod` of a pod already gone answers false and changes nothing; a pod deleted and
 *   added again under the same name runs with a fresh endpoint (the old one gone from HNS), is
 *   reached through its service, and the leak audit finds nothing.
 */
import { describe, expect, it } from 'vitest';
import { Cluster } from '../../src/cluster/cluster.js';
import { isHnsError } from '../../src/core/errors.js';
import { loadScenario, runScenario, ScenarioLoadError, type RunReport } from '../../src/scenario/index.js';
import { canonicalState } from '../../src/testing/state.js';

const lines = (...l: string[]) => l.join('\n') + '\n';

/** The issues a text gets, as `path: message`. */
function issues(text: string): string[] {
  try {
    loadScenario(text, 'f.yaml');
  } catch (e) {
    if (!(e instanceof ScenarioLoadError)) throw e;
    return e.issues.map((i) => `${i.path}: ${i.message}`);
  }
  return [];
}

/** A one-node cluster scenario whose node has `podSubnet`, with `body` after `hosts`. */
function clusterDoc(podSubnet: string | undefined, ...body: string[]): string {
  return lines(
    'hnsim: scenario/v1',
    'name: t',
    'cluster: {}',
    'hosts:',
    '  - name: win-1',
    '    flannel: { backend: host-gw }',
    ...(podSubnet ? [`    podSubnet: ${podSubnet}`] : []),
    ...body,
  );
}

/** The same with containerd and win-bridge on the node (docs/scenarios.md's example conflist). */
function cniDoc(...body: string[]): string {
  return lines(
    'hnsim: scenario/v1',
    'name: t',
    'cluster: {}',
    'hosts:',
    '  - name: win-1',
    '    flannel: { backend: host-gw }',
    '    cni:',
    '      conflist:',
    '        cniVersion: 1.0.0',
    '        name: cbr0',
    '        plugins:',
    '          - type: win-bridge',
    '            apiVersion: 2',
    '            ipam: { type: host-local, subnet: 10.244.1.0/24, rangeStart: 10.244.1.3 }',
    '            policies:',
    '              - name: EndpointPolicy',
    '                value: { Type: OutBoundNAT, Settings: { Exceptions: [10.244.0.0/16, 10.96.0.0/12, 10.0.0.0/24] } }',
    ...body,
  );
}

function failures(report: RunReport): string[] {
  return report.checkpoints.flatMap((c) =>
    c.results.filter((r) => !r.ok).map((r) => `${r.label}: ${r.problems.join('; ')}`),
  );
}

describe('podSubnet: /29 or larger', () => {
  it('a /29 and a /28 load; a /30 is refused at its path', () => {
    expect(issues(clusterDoc('10.244.9.0/29'))).toEqual([]);
    expect(issues(clusterDoc('10.244.9.0/28'))).toEqual([]);
    expect(issues(clusterDoc('10.244.9.0/30'))).toEqual([
      'hosts[0].podSubnet: a pod subnet is a /29 or larger',
    ]);
    expect(issues(clusterDoc('10.244.9.4/32'))).toEqual([
      'hosts[0].podSubnet: a pod subnet is a /29 or larger',
    ]);
  });

  it('a /29 node runs four pods, .3 to .6', async () => {
    const report = await runScenario(
      loadScenario(
        clusterDoc(
          '10.244.9.0/29',
          'pods:',
          '  - { name: web, node: win-1, replicas: 4 }',
          'expect:',
          '  pods:',
          '    - { pod: default/web-0, phase: Running, ip: 10.244.9.3 }',
          '    - { pod: default/web-3, phase: Running, ip: 10.244.9.6 }',
          '  traces:',
          '    - { from: default/web-0, to: default/web-3, port: 80, expect: Delivered }',
        ),
        'f.yaml',
      ),
    );
    expect(failures(report)).toEqual([]);
    expect(report.ok).toBe(true);
    expect([...report.world.pods.values()].map((p) => p.ip)).toEqual([
      '10.244.9.3',
      '10.244.9.4',
      '10.244.9.5',
      '10.244.9.6',
    ]);
  });

  it('Cluster.addWindowsNode keeps the bound: /29 taken, /30 refused with E_INVALIDARG', () => {
    const c = new Cluster({ seed: 1 });
    c.addWindowsNode({ name: 'a', network: 'l2bridge', podSubnet: '10.244.9.0/29' });
    let err: unknown;
    try {
      c.addWindowsNode({ name: 'b', network: 'l2bridge', podSubnet: '10.244.9.8/30' });
    } catch (e) {
      err = e;
    }
    expect(isHnsError(err) && err.hresult).toBe(0x80070057);
    expect(c.nodeNames()).toEqual(['a']);
  });
});

const WEB = [
  'pods:',
  '  - { name: client, node: win-1 }',
  '  - { name: web, node: win-1, labels: { app: web } }',
  'services:',
  '  - { name: web, ports: [{ port: 80, targetPort: 8080 }], selector: { app: web } }',
];

describe('deleting a pod twice, and deleting then adding it again', () => {
  it('a second deletePod of the same pod is refused at load time', () => {
    expect(
      issues(
        clusterDoc(undefined, ...WEB, 'steps:', '  - deletePod: default/web', '  - deletePod: default/web'),
      ),
    ).toEqual(['steps[1].deletePod: no pod default/web at this point']);
  });

  it('Cluster.removePod of a pod already gone answers false and changes nothing', () => {
    const c = new Cluster({ seed: 2 });
    c.addWindowsNode({ name: 'w', network: 'l2bridge' });
    c.addPod({ namespace: 'default', name: 'web', node: 'w', labels: { app: 'web' } });
    c.addService({ namespace: 'default', name: 'web', ports: [{ port: 80 }], selector: { app: 'web' } });
    expect(c.removePod('default', 'web')).toBe(true);
    const before = canonicalState(c.host('w'));
    const gen = c.generation();
    expect(c.removePod('default', 'web')).toBe(false);
    expect(canonicalState(c.host('w'))).toEqual(before);
    expect(c.generation()).toBe(gen);
  });

  // Cluster.removePod used to leave the namespace createPodEndpoint made for the pod ("in a fresh
  // namespace (containerd)"): the audit found `namespace-without-container … holds nothing`, one
  // per removed pod, where containerd's RemovePodSandbox deletes it (`netns.Remove()`, idempotent
  // on not-found: kubernetes-windows.md §3.1 step 2). Both syncs, both layouts.
  describe.each([
    ['l2bridge', 'incremental'],
    ['overlay', 'incremental'],
    ['l2bridge', 'full'],
    ['overlay', 'full'],
  ] as const)('%s, %s sync', (network, kubeProxySync) => {
    it('Cluster.removePod leaves the node as it was before addPod (no empty namespace)', () => {
      const c = new Cluster({ seed: 2, kubeProxySync });
      c.addWindowsNode({ name: 'w', network });
      c.addService({ namespace: 'default', name: 'web', ports: [{ port: 80 }], selector: { app: 'web' } });
      const before = c.host('w').audit();
      const nsBefore = canonicalState(c.host('w')).namespaces.length;
      c.addPod({ namespace: 'default', name: 'web', node: 'w', labels: { app: 'web' } });
      expect(canonicalState(c.host('w')).namespaces).toHaveLength(nsBefore + 1);
      expect(c.removePod('default', 'web')).toBe(true);
      expect(c.host('w').audit()).toEqual(before);
      expect(canonicalState(c.host('w')).namespaces).toHaveLength(nsBefore);
    });

    it('a pod whose namespace is already gone is removed all the same', () => {
      const c = new Cluster({ seed: 2, kubeProxySync });
      c.addWindowsNode({ name: 'w', network });
      const nsBefore = canonicalState(c.host('w')).namespaces.length;
      const { endpointId } = c.addPod({ namespace: 'default', name: 'web', node: 'w' });
      const host = c.host('w');
      const ns = host.hns.store.endpoints.get(endpointId!)!.HostComputeNamespace!;
      const gone = host.api.HcnDeleteNamespace(ns);
      if (!gone.ok) throw new Error(gone.message);
      expect(c.removePod('default', 'web')).toBe(true);
      expect(host.hns.store.endpoints.has(endpointId!)).toBe(false);
      expect(canonicalState(host).namespaces).toHaveLength(nsBefore);
    });
  });

  it('deleted and added again: a running pod with a fresh endpoint, reached through its service, nothing leaked', async () => {
    const doc = cniDoc(
      ...WEB,
      'steps:',
      '  - deletePod: default/web',
      '  - expect:',
      '      pods: [{ pod: default/web, phase: Absent }]',
      '      audit: [{ findings: [] }]',
      '  - addPod: { name: web, node: win-1, labels: { app: web } }',
      'expect:',
      '  pods: [{ pod: default/web, phase: Running }]',
      '  traces:',
      '    - { from: default/client, to: svc:default/web, expect: Delivered }',
      '    - { from: default/client, to: default/web, port: 8080, expect: Delivered }',
      '  audit: [{ findings: [] }]',
    );
    const first = await runScenario(loadScenario(doc, 'f.yaml'), { until: 0 });
    const before = first.world.pods.get('default/web')!;
    expect(before.phase).toBe('Running');
    const report = await runScenario(loadScenario(doc, 'f.yaml'));
    expect(failures(report)).toEqual([]);
    expect(report.ok).toBe(true);
    const after = report.world.pods.get('default/web')!;
    expect(after.endpointId).toBeDefined();
    expect(after.endpointId).not.toBe(before.endpointId);
    const host = report.world.nodes.get('win-1')!.host!;
    const ids = canonicalState(host).endpoints.map((e) => String(e['ID']).toUpperCase());
    expect(ids).toContain(after.endpointId!.toUpperCase());
    expect(ids).not.toContain(before.endpointId!.toUpperCase());
    expect(host.audit()).toEqual([]);
  });
});
