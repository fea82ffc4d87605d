/**
 * Cluster corrections the review found, each checked against the behaviour it must have:
 * a router given its routes at creation; a service selecting pods of its own namespace only
 * (Kubernetes selectors are namespaced); an HNS failure met while programming a node keeps its
 * code and says its detail once; the demo cluster's names follow its domain.
 */
import { describe, expect, it } from 'vitest';
import { Cluster } from '../../src/cluster/cluster.js';
import { demoCluster } from '../../src/cluster/flows.js';
import { Fabric } from '../../src/cluster/underlay.js';
import { isHnsError } from '../../src/core/errors.js';

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
