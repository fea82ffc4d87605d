/**
 * The cluster's flow-table key and its determinism: a change on any node — the tenth as well as the
 * first — makes the next trace a fresh one, and a cluster built twice in one process traces
 * identically (nothing is counted per process).
 */
import { describe, expect, it } from 'vitest';
import { Cluster } from '../../src/cluster/cluster.js';
import { traceJson } from '../../src/dataplane/trace.js';

function tenNodes(): Cluster {
  const c = new Cluster({ seed: 3 });
  for (let i = 1; i <= 10; i++) c.addWindowsNode({ name: `win-${i}`, network: 'l2bridge' });
  c.addPod({ namespace: 'd', name: 'a', node: 'win-10' });
  c.addPod({ namespace: 'd', name: 'b', node: 'win-1' });
  return c;
}

describe('the cluster flow table', () => {
  it('a host route removed on the tenth node changes the next trace (no stale cached answer)', () => {
    const c = tenNodes();
    expect(c.trace({ from: 'd/a', to: 'd/b' }).disposition).toBe('Delivered');
    // win-10 forgets how to reach win-1's pod subnet: its pod's packet takes the default route,
    // and the router has no route for the pod CIDR
    const removed = c.host('win-10').removeRoute('10.244.1.0/24');
    expect(removed).toBe(1);
    expect(c.trace({ from: 'd/a', to: 'd/b' }).disposition).toBe('NoRoute');
  });

  it('two clusters built alike in one process trace alike (router MACs included)', () => {
    const build = () => {
      const c = new Cluster({ seed: 4 });
      c.addWindowsNode({ name: 'w', network: 'l2bridge' });
      c.addPod({ namespace: 'd', name: 'p', node: 'w' });
      c.addExternalHost({ name: 'ext', ip: '8.8.8.8' });
      return c;
    };
    const first = traceJson(build().trace({ from: 'd/p', to: '8.8.8.8', reply: true }));
    // more underlays in between change nothing
    build();
    build();
    const again = traceJson(build().trace({ from: 'd/p', to: '8.8.8.8', reply: true }));
    expect(again).toEqual(first);
  });
});
