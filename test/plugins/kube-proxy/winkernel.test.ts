/**
 * kube-proxy winkernel's service-VIP endpoint on overlay (kubernetes `pkg/proxy/winkernel`
 * proxier.go, v1.31 era; reference kubernetes-windows.md §2.4 step 7.1, §2.6): for each service
 * port not yet applied, "if there is no HNS endpoint for the ClusterIP, create a remote endpoint
 * for the service VIP: IP = ClusterIP, MAC = host MAC, PA = node IP", ref-counted in
 * `svcInfo.remoteEndpoint` and cleaned up by `cleanupAllPolicies`. The host MAC is NewProxier's:
 * the `HardwareAddr.String()` (Go: lower-case, `:`-separated) of the interface holding the node IP.
 * hns.go `createEndpoint` sends a remote endpoint as `{IpConfigurations: [{IpAddress}], MacAddress,
 * Flags: 1 (RemoteEndpoint), Policies: [ProviderAddress]}`.
 */
import { describe, expect, it } from 'vitest';
import { Cluster } from '../../../src/cluster/cluster.js';
import type { JsonObject } from '../../../src/core/json.js';
import type { Host } from '../../../src/host/host.js';
import { canonicalState } from '../../../src/testing/state.js';

function ipOf(e: JsonObject): string {
  return String((e['IpConfigurations'] as JsonObject[] | undefined)?.[0]?.['IpAddress'] ?? '');
}

function endpointsWithIp(host: Host, ip: string): JsonObject[] {
  return canonicalState(host).endpoints.filter((e) => ipOf(e) === ip);
}

/** Two overlay nodes (10.0.0.10, 10.0.0.11) and a Linux one; no pods. */
function overlay(): Cluster {
  const c = new Cluster({ seed: 3 });
  c.addWindowsNode({ name: 'win-1', network: 'overlay' });
  c.addWindowsNode({ name: 'win-2', network: 'overlay' });
  return c;
}

describe("winkernel's service-VIP remote endpoint (overlay)", () => {
  it('is created for a service with no endpoints, as hns.go sends it, with the host MAC in Go form', () => {
    const c = overlay();
    const { clusterIP } = c.addService({
      namespace: 'default',
      name: 'empty',
      ports: [{ port: 80 }],
      selector: { app: 'none' },
    });
    for (const [node, nodeIp] of [
      ['win-1', '10.0.0.10'],
      ['win-2', '10.0.0.11'],
    ] as const) {
      const host = c.host(node);
      // what Get-NetAdapter shows for the interface holding the node IP, written as Go writes it
      const nic = host.adapters().find((a) => a['IPv4Address'] === nodeIp)!;
      expect(nic['Name']).toBe('vEthernet (Ethernet)');
      const goMac = String(nic['MacAddress']).toLowerCase().replace(/-/g, ':');
      const [vip, ...more] = endpointsWithIp(host, clusterIP);
      expect(more).toEqual([]);
      expect(vip).toMatchObject({
        Flags: 1,
        MacAddress: goMac,
        Policies: [{ Type: 'ProviderAddress', Settings: { ProviderAddress: nodeIp } }],
      });
      // no load balancer names it, and the leak audit knows it for kube-proxy's
      expect(canonicalState(host).loadBalancers).toEqual([]);
      expect(host.audit()).toEqual([]);
    }
  });

  it('one per service (not per port), none for a headless service, none on l2bridge', () => {
    const c = overlay();
    const { clusterIP } = c.addService({
      namespace: 'default',
      name: 'two-ports',
      ports: [{ port: 80 }, { port: 53, protocol: 'UDP' }],
      selector: { app: 'none' },
    });
    expect(endpointsWithIp(c.host('win-1'), clusterIP)).toHaveLength(1);
    const before = canonicalState(c.host('win-1')).endpoints.length;
    c.addService({
      namespace: 'default',
      name: 'headless',
      clusterIP: 'None',
      ports: [{ port: 80 }],
      selector: { app: 'none' },
    });
    expect(canonicalState(c.host('win-1')).endpoints).toHaveLength(before);

    const l2 = new Cluster({ seed: 3 });
    l2.addWindowsNode({ name: 'win-1', network: 'l2bridge' });
    const s = l2.addService({ namespace: 'default', name: 'web', ports: [{ port: 80 }], selector: {} });
    expect(endpointsWithIp(l2.host('win-1'), s.clusterIP)).toEqual([]);
    expect(endpointsWithIp(l2.host('win-1'), '10.96.0.1')).toEqual([]);
  });

  it('goes with its service, and the API server service has its own from the start', () => {
    const c = overlay();
    const host = c.host('win-1');
    expect(endpointsWithIp(host, '10.96.0.1')).toHaveLength(1);
    c.addPod({ namespace: 'default', name: 'web-0', node: 'win-2', labels: { app: 'web' } });
    const { clusterIP } = c.addService({
      namespace: 'default',
      name: 'web',
      ports: [{ port: 80, targetPort: 8080 }],
      selector: { app: 'web' },
    });
    expect(endpointsWithIp(host, clusterIP)).toHaveLength(1);
    expect(c.removeService('default', 'web')).toBe(true);
    expect(endpointsWithIp(host, clusterIP)).toEqual([]);
    // the backend's remote endpoint went with its last service too
    expect(endpointsWithIp(host, c.pod('default/web-0')!.ip)).toEqual([]);
    expect(endpointsWithIp(host, '10.96.0.1')).toHaveLength(1);
  });

  it('an endpoint that already has the ClusterIP is used as it is, and kube-proxy does not delete it', () => {
    const c = overlay();
    const host = c.host('win-1');
    const net = canonicalState(host).networks.find((n) => n['Type'] === 'Overlay')!;
    const theirs = host.api.HcnCreateEndpoint(String(net['ID']), null, {
      IpConfigurations: [{ IpAddress: '10.96.0.50' }],
      MacAddress: '02-11-0a-60-00-32',
      Flags: 1,
      Policies: [{ Type: 'ProviderAddress', Settings: { ProviderAddress: '10.0.0.11' } }],
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    if (!theirs.ok) throw new Error(theirs.message);
    c.addService({
      namespace: 'default',
      name: 'web',
      clusterIP: '10.96.0.50',
      ports: [{ port: 80 }],
      selector: { app: 'none' },
    });
    expect(endpointsWithIp(host, '10.96.0.50').map((e) => e['ID'])).toEqual([theirs.result['ID']]);
    c.removeService('default', 'web');
    expect(endpointsWithIp(host, '10.96.0.50').map((e) => e['ID'])).toEqual([theirs.result['ID']]);
    // win-2 made its own, and deleted it
    expect(endpointsWithIp(c.host('win-2'), '10.96.0.50')).toEqual([]);
  });

  it('deleted behind its back, it comes back with the next change on the node', () => {
    const c = overlay();
    const host = c.host('win-1');
    const [vip] = endpointsWithIp(host, '10.96.0.1');
    const del = host.api.HcnDeleteEndpoint(String(vip!['ID']));
    if (!del.ok) throw new Error(del.message);
    expect(endpointsWithIp(host, '10.96.0.1')).toEqual([]);
    c.addPod({ namespace: 'default', name: 'p', node: 'win-1', labels: { app: 'p' } });
    expect(endpointsWithIp(host, '10.96.0.1')).toHaveLength(1);
  });
});
