/**
 * Cluster corrections the review found, each checked against the behaviour it must have:
 * a router given its routes at creation; a service selecting pods of its own namespace only
 * (Kubernetes selectors are namespaced); an HNS failure met while programming a node keeps its
 * code and says its detail once; the demo cluster's names follow its domain; flannel vxlan's sync
 * skips a node whose network a reboot removed, and a node whose join fails is not left half added.
 */
import { describe, expect, it, vi } from 'vitest';
import { Cluster } from '../../src/cluster/cluster.js';
import { demoCluster } from '../../src/cluster/flows.js';
import { Fabric } from '../../src/cluster/underlay.js';
import { hnsError, isHnsError } from '../../src/core/errors.js';
import type { JsonObject } from '../../src/core/json.js';
import { failureOf } from '../../src/api/flat.js';

describe('review fixes', () => {
  it('a router created with static routes has them (and a bad route leaves the underlay as it was)', () => {
    const f = new Fabric();
    f.addSegment('a', '10.0.0.0/24');
    const r = f.addRouter({
      name: 'tor',
      interfaces: [{ segment: 'a', ip: '10.0.0.1' }],
      routes: [{ destinationPrefix: '10.244.1.0/24', nextHop: '10.0.0.10' }],
    });
    expect(r.routes.map((x) => [x.dest.len, x.nextHop])).toEqual([[24, 0x0a00000a]]);
    expect(() =>
      f.addRouter({
        name: 'bad',
        interfaces: [{ segment: 'a', ip: '10.0.0.2' }],
        routes: [{ destinationPrefix: 'nope', nextHop: '10.0.0.10' }],
      }),
    ).toThrow(/route prefix/);
    // 10.0.0.2 is still free: the failed router attached nothing
    expect(() => f.addRouter({ name: 'ok', interfaces: [{ segment: 'a', ip: '10.0.0.2' }] })).not.toThrow();
  });

  it('a service selects the pods of its own namespace only', () => {
    const c = new Cluster({ seed: 2 });
    c.addWindowsNode({ name: 'w', network: 'l2bridge' });
    c.addPod({ namespace: 'a', name: 'web', node: 'w', labels: { app: 'web' } });
    c.addPod({ namespace: 'b', name: 'web', node: 'w', labels: { app: 'web' } });
    c.addPod({ namespace: 'a', name: 'client', node: 'w' });
    c.addService({ namespace: 'a', name: 'web', ports: [{ port: 80 }], selector: { app: 'web' } });
    const r = c.trace({ from: 'a/client', to: 'svc:a/web', allBranches: true });
    // one backend: a/web (b/web has the same labels in another namespace)
    expect(r.lbChoices.map((x) => x.count)).toEqual([1]);
    expect(r.final.dstIp).toBe(0x0af40000 + (256 + 3)); // a/web: the node's first pod, 10.244.1.3
  });

  it('an HNS failure programming a node keeps its code and states its detail once', () => {
    const c = new Cluster({ seed: 2 });
    c.addWindowsNode({ name: 'w', network: 'l2bridge' });
    try {
      c.addPod({ namespace: 'a', name: 'p', node: 'w', policies: [{ Type: 'NoSuchPolicy', Settings: {} }] });
      expect.unreachable();
    } catch (e) {
      expect(isHnsError(e)).toBe(true);
      if (!isHnsError(e)) return;
      expect(e.message.startsWith(`${e.windowsMessage} (`)).toBe(true);
      expect(e.message.indexOf(e.windowsMessage, 1)).toBe(-1);
    }
  });

  it("the demo cluster's DNS names follow its domain", () => {
    const { names } = demoCluster('l2bridge', { domain: 'corp.example' });
    expect(names.serviceFqdn).toBe('web.default.svc.corp.example');
    expect(names.serverName.endsWith('.default.pod.corp.example')).toBe(true);
  });
});

describe('flannel vxlan after a reboot, and a failed join', () => {
  /** The RemoteSubnetRoutes of a Windows overlay node's network (none: the network is gone). */
  function routes(c: Cluster, name: string): string[] | undefined {
    const n = c.nodeOf(name)!;
    if (n.kind !== 'Windows') throw new Error(`${name} is not a Windows node`);
    const r = n.host.api.HcnQueryNetworkProperties(n.networkId, null);
    if (!r.ok) return undefined;
    return (r.result['Policies'] as JsonObject[])
      .filter((p) => p['Type'] === 'RemoteSubnetRoute')
      .map((p) => String((p['Settings'] as JsonObject)['DestinationPrefix']))
      .sort();
  }

  it('a node whose network a reboot removed is skipped by the sync: other nodes still join', () => {
    const c = new Cluster({ seed: 1 });
    c.addWindowsNode({ name: 'win-1', network: 'overlay' });
    c.addWindowsNode({ name: 'win-2', network: 'overlay' });
    c.host('win-1').reboot();
    expect(routes(c, 'win-1')).toBeUndefined();
    c.addLinuxNode({ name: 'lx-1', backend: 'vxlan', vni: 4096, vxlanPort: 4789 });
    c.addWindowsNode({ name: 'win-3', network: 'overlay' });
    expect(c.nodeNames()).toEqual(['win-1', 'win-2', 'lx-1', 'win-3']);
    // win-1 gets no routes (no network to hold them); its peers keep theirs to it
    expect(routes(c, 'win-1')).toBeUndefined();
    expect(routes(c, 'win-2')).toEqual(['10.244.1.0/24', '10.244.3.0/24', '10.244.4.0/24']);
    expect(routes(c, 'win-3')).toEqual(['10.244.1.0/24', '10.244.2.0/24', '10.244.3.0/24']);
  });

  it('a join whose sync fails leaves no half-added node: not in the cluster nor the API server, its address free', () => {
    const c = new Cluster({ seed: 1 });
    const h1 = c.addWindowsNode({ name: 'win-1', network: 'overlay' });
    // win-1's HNS refuses the RemoteSubnetRoute to the new node
    const refuse = vi
      .spyOn(h1.api, 'HcnModifyNetwork')
      .mockReturnValue(failureOf(hnsError('E_ACCESSDENIED', 'refused by the test')));
    expect(() => c.addLinuxNode({ name: 'lx-1', backend: 'vxlan', vni: 4096, vxlanPort: 4789 })).toThrow(
      expect.objectContaining({ code: 'E_ACCESSDENIED' }),
    );
    expect(c.nodeNames()).toEqual(['win-1']);
    expect(c.kubeApi.node('lx-1')).toBeUndefined();
    refuse.mockRestore();
    // the name, the address and the pod subnet are free again
    c.addLinuxNode({ name: 'lx-1', backend: 'vxlan', vni: 4096, vxlanPort: 4789 });
    expect(c.nodeOf('lx-1')!.ip).toBe(0x0a00000b);
    expect(routes(c, 'win-1')).toEqual(['10.244.2.0/24']);
  });
});
