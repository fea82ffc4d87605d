/**
 * A pod deleted while kube-proxy's load balancers still name it: kubernetes/kubernetes#112836
 * ("Regression in winkernel proxier that causes stale load balancing proxy rules", 2022, closed by
 * PR #112837). Its reproduction: "Create a Kubernetes Service with type "LoadBalancer" on Windows.
 * Delete one or more pods of the Service. Observe stale load balancing rule left behind referencing
 * endpoint that was already deleted", which "can cause occasional connectivity issues and
 * timeouts, if a stale load balancing rule is matched and it redirects traffic to an endpoint
 * which no longer exists". So on Windows the pod's endpoint was deleted (the CNI plugin's DEL, run
 * by kubelet's StopPodSandbox) while a load balancer named it, and the load balancer stayed.
 *
 * Replayed on one node: containerd with win-bridge (`apiVersion: 2`) + host-local runs the pods
 * (their CNI ADD makes the endpoints) and the cluster's kube-proxy programs the service over them.
 * kubelet tears `web-1` down before kube-proxy has synced: the DEL succeeds (it failed under hnsim
 * before, with HCN_E_ENTITY_HAS_REFERENCES, a failure Windows never gives), every load balancer of
 * the service stays naming the deleted endpoint and holding its frontend (kubernetes PR #137530:
 * re-creating it fails with 0x803b0013), traffic to the service that picks that backend is DNATed
 * to web-1's old address and lost, and the leak audit names the load balancers. Once kube-proxy
 * syncs (the cluster learns the pod is gone), they are re-programmed without it and the node is
 * clean.
 */
import { describe, expect, it } from 'vitest';
import { Cluster } from '../../src/cluster/cluster.js';
import { winBridgeRuntime } from '../runtime/kit.js';
import { tj } from '../dataplane/trace-kit.js';

const VIP = '10.96.0.100';
const INGRESS_IP = '10.0.0.200';

describe('kubernetes#112836: a backend pod deleted while kube-proxy still names it', () => {
  it('the DEL succeeds, the load balancers stay and lose its share of traffic, the audit says so, a sync cleans up', async () => {
    const c = new Cluster({ seed: 112836 });
    const host = c.addWindowsNode({ name: 'win-1', network: 'l2bridge' });
    const rt = winBridgeRuntime(host, '10.244.1.10');
    const s = host.hns.store;
    /** kubelet starts a pod (RunPodSandbox: CNI ADD), then the cluster sees it with that endpoint. */
    const start = async (name: string, labels: Record<string, string> = {}) => {
      const sandbox = await rt.runPodSandbox({ metadata: { name, namespace: 'default', uid: name } });
      const ep = [...s.endpoints.values()].find((e) => e.Name === `${sandbox}_cbr0`)!;
      c.addPod({ namespace: 'default', name, node: 'win-1', labels, endpointId: ep.ID });
      return { sandbox, ep: ep.ID };
    };
    await start('client');
    const web0 = await start('web-0', { app: 'web' });
    const web1 = await start('web-1', { app: 'web' });
    c.addService({
      namespace: 'default',
      name: 'web',
      type: 'LoadBalancer',
      clusterIP: VIP,
      loadBalancerIP: INGRESS_IP,
      ports: [{ port: 80, nodePort: 30080 }],
      selector: { app: 'web' },
    });
    // host-local handed out .10 (client), .11 (web-0), .12 (web-1)
    expect(s.endpoints.get(web1.ep)!.IpConfigurations.map((x) => x.IpAddress)).toEqual(['10.244.1.12']);
    // kube-proxy: the ClusterIP, the NodePort and the ingress IP load balancer, each over both pods
    const lbs = [...s.loadBalancers.values()];
    expect(lbs.map((lb) => [lb.FrontendVIPs, lb.PortMappings[0]!.ExternalPort])).toEqual([
      [[VIP], 80],
      [[], 30080],
      [[INGRESS_IP], 80],
    ]);
    for (const lb of lbs) expect(lb.HostComputeEndpoints).toEqual([web0.ep, web1.ep]);
    const before = tj(c.trace({ from: 'default/client', to: `svc:default/web`, allBranches: true }));
    expect(before.branches!.map((b) => [b.disposition, b.at])).toEqual([
      ['Delivered', `endpoint:${web0.ep}`],
      ['Delivered', `endpoint:${web1.ep}`],
    ]);
    expect(host.audit()).toEqual([]);

    // kubelet stops web-1's sandbox before kube-proxy has synced: win-bridge's DEL deletes the endpoint
    await rt.stopPodSandbox(web1.sandbox);
    await rt.removePodSandbox(web1.sandbox);
    expect(s.endpoints.has(web1.ep)).toBe(false);
    // the load balancers stay as they were, still naming it
    expect([...s.loadBalancers.values()]).toEqual(lbs);
    const listed = host.api.HcnQueryLoadBalancerProperties(lbs[2]!.ID, '');
    expect(listed.ok && listed.result['HostComputeEndpoints']).toEqual([web0.ep, web1.ep]);
    // a stale rule that picks web-1 redirects to 10.244.1.12, which no endpoint holds: lost
    for (const to of ['svc:default/web', INGRESS_IP]) {
      const t = tj(c.trace({ from: 'default/client', to, destinationPort: 80, allBranches: true }));
      const [live, stale] = t.branches!;
      expect(live!.disposition).toBe('Delivered');
      const gone = stale!.observations.find((o) => o.action === 'BackendGone')!;
      expect(gone.rule).toMatchObject({
        kind: 'LoadBalancer',
        id: to === INGRESS_IP ? lbs[2]!.ID : lbs[0]!.ID,
      });
      expect(gone.detail).toContain(`backend endpoint ${web1.ep} is gone`);
      expect(stale!.final).toMatchObject({ dstIp: '10.244.1.12', dstPort: 80 });
      expect(stale!.disposition).toBe('NoRoute');
    }
    // the frontends stay taken (kubernetes PR #137530: re-creating one fails with 0x803b0013)
    const again = host.api.HcnCreateLoadBalancer(null, {
      HostComputeEndpoints: [web0.ep],
      FrontendVIPs: [INGRESS_IP],
      PortMappings: [{ Protocol: 6, InternalPort: 80, ExternalPort: 80 }],
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    expect(again.ok ? 0 : again.hr >>> 0).toBe(0x803b0013);
    // the leak audit: each load balancer names a deleted endpoint
    expect(host.audit().map((f) => [f.kind, f.object])).toEqual(
      lbs.map((lb) => ['endpoint-reference-stale', lb.ID]).sort((a, b) => (a[1]! < b[1]! ? -1 : 1)),
    );

    // kube-proxy syncs: the service has web-0 only, and the node is clean
    c.removePod('default', 'web-1');
    for (const lb of s.loadBalancers.values()) expect(lb.HostComputeEndpoints).toEqual([web0.ep]);
    expect(host.audit()).toEqual([]);
    const after = c.trace({ from: 'default/client', to: `svc:default/web`, allBranches: true });
    expect(after.lbChoices.map((x) => x.count)).toEqual([1]);
    expect(after.disposition).toBe('Delivered');
    expect(after.at).toBe(`endpoint:${web0.ep}`);
  });
});
