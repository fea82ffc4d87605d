/**
 * Removing a pod whose endpoint the cluster made, in the order a node does it: kube-proxy learns
 * of the removal (the EndpointSlice drops the pod when its deletion starts) and re-programs the
 * service, and the pod's endpoint goes after (kubelet tears the sandbox down once the containers'
 * grace period is over: StopPodSandbox, CNI DEL). HNS would delete the endpoint in either order
 * (docs/model.md, Endpoints "Delete"); the cluster used to clear every load balancer of the node
 * first on a full sync only because HNS refused to delete an endpoint a load balancer named.
 * Both sync modes now: when the endpoint is deleted, the service's load balancer already exists
 * without it, and nothing is left stale.
 */
import { describe, expect, it } from 'vitest';
import { Cluster } from '../../src/cluster/cluster.js';

describe.each(['incremental', 'full'] as const)('Cluster.removePod with kubeProxySync %s', (mode) => {
  it('re-programs the service before the endpoint goes, and leaves nothing stale', () => {
    const c = new Cluster({ seed: 8, kubeProxySync: mode });
    const host = c.addWindowsNode({ name: 'win-1', network: 'l2bridge' });
    c.addPod({ namespace: 'default', name: 'client', node: 'win-1' });
    c.addPod({ namespace: 'default', name: 'web-0', node: 'win-1', labels: { app: 'web' } });
    const gone = c.addPod({ namespace: 'default', name: 'web-1', node: 'win-1', labels: { app: 'web' } });
    c.addService({
      namespace: 'default',
      name: 'web',
      clusterIP: '10.96.0.10',
      ports: [{ port: 80 }],
      selector: { app: 'web' },
    });
    const s = host.hns.store;
    /** At the endpoint's delete: the backends of every load balancer then. */
    let seen: string[][] | undefined;
    host.events.on('hns.change', (e) => {
      if (e.kind === 'Endpoint' && e.op === 'delete' && e.id === gone.endpointId)
        seen = [...s.loadBalancers.values()].map((lb) => [...lb.HostComputeEndpoints]);
    });
    expect(c.removePod('default', 'web-1')).toBe(true);
    const web0 = c.pod('default/web-0')!.endpointId!;
    expect(seen).toEqual([[web0]]);
    expect(s.endpoints.has(gone.endpointId!)).toBe(false);
    // (the cluster's own pods have namespaces no container joins: no runtime runs them)
    expect(host.audit().filter((f) => f.kind !== 'namespace-without-container')).toEqual([]);
    expect(c.trace({ from: 'default/client', to: 'svc:default/web' }).disposition).toBe('Delivered');
  });
});
