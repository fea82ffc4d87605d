/**
 * `Cluster.check()` on the OVS-era plugins: settings that are one per cluster in their own
 * configurations — Antrea's `tunnelType` (antrea-agent.conf), OVN's encapsulation (a chassis'
 * `ovn-encap-type`), the hybrid overlay's VXLAN port (`--hybrid-overlay-vxlan-port`, which the
 * Windows nodes and OVN's Linux node must share) — and plugins that do not route to each other
 * (Antrea beside flannel, docs/antrea.md). Each finding comes with the trace that shows why: a pod
 * on one side does not reach a pod on the other. The expected findings are written out here.
 */
import { describe, expect, it } from 'vitest';
import { Cluster } from '../../src/cluster/cluster.js';

/** Pods p on `a` and q on `b`; the trace p → q. */
function podsAcross(c: Cluster, a: string, b: string): string {
  c.addPod({ namespace: 'default', name: 'p', node: a });
  c.addPod({ namespace: 'default', name: 'q', node: b });
  return c.trace({ from: 'default/p', to: 'default/q', destinationPort: 80 }).disposition;
}

describe('check() on Antrea and ovn-kubernetes clusters', () => {
  it('Antrea nodes of one tunnel type: nothing to say; of two: a tunnel-type error, and the pods do not meet', () => {
    const same = new Cluster({ seed: 1 });
    same.addWindowsNode({ name: 'w1', network: 'antrea', tunnelType: 'vxlan' });
    same.addWindowsNode({ name: 'w2', network: 'antrea', tunnelType: 'vxlan' });
    expect(same.check()).toEqual([]);
    expect(podsAcross(same, 'w1', 'w2')).toBe('Delivered');

    const c = new Cluster({ seed: 1 });
    c.addWindowsNode({ name: 'w1', network: 'antrea' });
    c.addWindowsNode({ name: 'w2', network: 'antrea', tunnelType: 'vxlan' });
    c.addWindowsNode({ name: 'w3', network: 'antrea', tunnelType: 'geneve' });
    expect(c.check()).toEqual([
      {
        severity: 'error',
        nodes: ['w1', 'w2', 'w3'],
        setting: 'tunnel',
        message:
          "tunnel type differs: geneve on w1, w3; vxlan on w2 — Antrea's tunnel type is one for the cluster: a node takes only its own tunnel's packets",
      },
    ]);
    expect(podsAcross(c, 'w1', 'w2')).not.toBe('Delivered');
  });

  it('native ovn-kubernetes nodes of two encapsulations (Geneve, STT): a tunnel-type error', () => {
    const c = new Cluster({ seed: 1 });
    c.addWindowsNode({
      name: 'w1',
      network: 'ovn-kubernetes',
      ovnKubernetes: { mode: 'native', encapType: 'stt' },
    });
    c.addWindowsNode({ name: 'w2', network: 'ovn-kubernetes', ovnKubernetes: { mode: 'native' } });
    expect(c.check()).toEqual([
      {
        severity: 'error',
        nodes: ['w1', 'w2'],
        setting: 'tunnel',
        message:
          'tunnel type differs: stt on w1; geneve on w2 — OVN encapsulates to a chassis in the type it registered: a node takes only its own',
      },
    ]);
    expect(podsAcross(c, 'w1', 'w2')).not.toBe('Delivered');
  });

  it("a hybrid overlay node on another VXLAN port than OVN's Linux node: a UDP port error", () => {
    const c = new Cluster({ seed: 1 });
    c.addWindowsNode({ name: 'w1', network: 'ovn-kubernetes' });
    c.addWindowsNode({ name: 'w2', network: 'ovn-kubernetes', vxlanPort: 4790 });
    c.addLinuxNode({ name: 'l1', backend: 'ovn-kubernetes' });
    expect(c.check()).toEqual([
      {
        severity: 'error',
        nodes: ['w1', 'w2', 'l1'],
        setting: 'UDP port',
        message:
          "UDP port differs: 4789 on w1, l1; 4790 on w2 — the hybrid overlay's VXLAN reaches a node only on the port its network listens on",
      },
    ]);
    expect(podsAcross(c, 'w2', 'l1')).not.toBe('Delivered');
    // the Linux node on the Windows nodes' port: nothing to say
    const ok = new Cluster({ seed: 1 });
    ok.addWindowsNode({ name: 'w1', network: 'ovn-kubernetes', vxlanPort: 4790 });
    ok.addLinuxNode({ name: 'l1', backend: 'ovn-kubernetes', vxlanPort: 4790 });
    expect(ok.check()).toEqual([]);
    expect(podsAcross(ok, 'w1', 'l1')).toBe('Delivered');
  });

  it('Antrea nodes beside flannel nodes (overlay and host-gw): a backend error naming both sides', () => {
    const c = new Cluster({ seed: 1 });
    c.addWindowsNode({ name: 'a1', network: 'antrea' });
    c.addWindowsNode({ name: 'f1', network: 'overlay' });
    expect(c.check()).toEqual([
      {
        severity: 'error',
        nodes: ['a1', 'f1'],
        setting: 'backend',
        message: 'Antrea nodes (a1) and flannel nodes (f1) have no route between their pods',
      },
    ]);
    expect(podsAcross(c, 'a1', 'f1')).not.toBe('Delivered');
    c.addLinuxNode({ name: 'l1', backend: 'host-gw' });
    expect(c.check().map((f) => f.message)).toEqual([
      'overlay nodes (f1) and host-gw nodes (l1) have no route between their pods',
      'Antrea nodes (a1) and flannel nodes (f1, l1) have no route between their pods',
    ]);
  });
});
