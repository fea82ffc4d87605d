/**
 * The glue a scenario needs between the runtime and the cluster: Cluster.addPod with
 * `endpointId` adopts the endpoint a containerd CNI ADD made (its address, its policies) instead
 * of programming one; services then load-balance to it; removePod leaves the endpoint to the
 * runtime's CNI DEL.
 */
import { describe, expect, it } from 'vitest';
import { Cluster } from '../../src/cluster/cluster.js';
import { winBridgeRuntime } from '../runtime/kit.js';

describe('Cluster.addPod({ endpointId })', () => {
  it('adopts a runtime pod: its IP, DNS and services; removePod leaves the endpoint to CNI DEL', async () => {
    const c = new Cluster({ seed: 4 });
    const host = c.addWindowsNode({ name: 'win-1', network: 'l2bridge' });
    const rt = winBridgeRuntime(host, '10.244.1.7');
    const id = await rt.runPodSandbox({ metadata: { name: 'web', namespace: 'default', uid: 'u1' } });
    const ep = [...host.hns.store.endpoints.values()].find((e) => e.Name === `${id}_cbr0`)!;
    const pod = c.addPod({
      namespace: 'default',
      name: 'web',
      node: 'win-1',
      labels: { app: 'web' },
      endpointId: ep.ID,
    });
    expect(pod).toMatchObject({ ip: '10.244.1.7', endpointId: ep.ID });
    c.addService({ namespace: 'default', name: 'web', ports: [{ port: 80 }], selector: { app: 'web' } });
    const lbs = [...host.hns.store.loadBalancers.values()];
    expect(lbs.map((lb) => lb.HostComputeEndpoints)).toEqual([[ep.ID]]);
    expect(c.trace({ from: 'win-1', to: 'default/web' }).disposition).toBe('Delivered');

    expect(c.removePod('default', 'web')).toBe(true);
    expect(host.hns.store.endpoints.has(ep.ID)).toBe(true);
    expect(host.hns.store.loadBalancers.size).toBe(0);
    await rt.stopPodSandbox(id);
    expect(host.hns.store.endpoints.has(ep.ID)).toBe(false);
  });

  it('refuses an endpoint the node does not have, and policies for an adopted one', () => {
    const c = new Cluster({ seed: 4 });
    c.addWindowsNode({ name: 'win-1', network: 'l2bridge' });
    expect(() => c.addPod({ namespace: 'default', name: 'x', node: 'win-1', endpointId: 'nope' })).toThrow(
      /no endpoint "nope" with an IPv4 address on win-1/,
    );
    expect(() =>
      c.addPod({
        namespace: 'default',
        name: 'x',
        node: 'win-1',
        endpointId: 'nope',
        policies: [{ Type: 'ACL' }],
      }),
    ).toThrow(/an adopted endpoint has the policies its runtime gave it/);
  });
});
