// The audit's false positives found by the scenarios: kube-proxy's source-VIP endpoint on an
// overlay network (kubernetes-windows.md §2, winkernel: "if no endpoint exists with IP ==
// sourceVip, create the source-VIP endpoint: local, MAC = host MAC, PA = node IP"; load balancers
// name it by address as their SourceVIP, never by ID), and a Hyper-V pod's namespace, which HCS
// adds to the utility VM's guest (hcs-lifecycle.md: the `NetworkNamespace` guest request) so that
// no container joins it on the host; and kube-proxy's service-VIP remote endpoint on overlay.
// Each test fails on the audit before the fix.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Cluster } from '../../src/cluster/cluster.js';
import { createHost } from '../../src/host/host.js';
import { loadScenarioFile, runScenario } from '../../src/scenario/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe("kube-proxy's source-VIP endpoint", () => {
  it('is not unused on a flannel VXLAN node, before and after a service names it', () => {
    const c = new Cluster({ seed: 1 });
    const host = c.addWindowsNode({ name: 'win-1', network: 'overlay' });
    c.addWindowsNode({ name: 'win-2', network: 'overlay' });
    const svip = [...host.hns.store.endpoints.values()].find((e) => e.Name === 'sourcevip');
    expect(svip?.IpConfigurations[0]?.IpAddress).toBe('10.244.1.2');
    expect(host.audit()).toEqual([]);
    c.addPod({ namespace: 'default', name: 'web-0', node: 'win-2', labels: { app: 'web' } });
    c.addService({ namespace: 'default', name: 'web', ports: [{ port: 80 }], selector: { app: 'web' } });
    expect(host.audit()).toEqual([]);
  });

  it('a local endpoint a load balancer names as its SourceVIP is used', () => {
    const host = createHost({ seed: 4 });
    const net = host.api.HcnCreateNetwork(null, {
      Name: 'nat',
      Type: 'NAT',
      Ipams: [{ Type: 'Static', Subnets: [{ IpAddressPrefix: '10.0.5.0/24' }] }],
    });
    if (!net.ok) throw new Error(net.message);
    const ep = host.api.HcnCreateEndpoint(net.result.ID as string, null, { Name: 'svip' });
    if (!ep.ok) throw new Error(ep.message);
    const ip = (ep.result.IpConfigurations as { IpAddress: string }[])[0]!.IpAddress;
    expect(host.audit().map((f) => [f.kind, f.object])).toEqual([['endpoint-unused', ep.result.ID]]);
    const web = host.api.HcnCreateEndpoint(net.result.ID as string, null, { Name: 'web' });
    if (!web.ok) throw new Error(web.message);
    const lb = host.api.HcnCreateLoadBalancer(null, {
      HostComputeEndpoints: [web.result.ID as string],
      SourceVIP: ip,
      FrontendVIPs: ['10.96.0.20'],
      PortMappings: [{ Protocol: 6, InternalPort: 80, ExternalPort: 80 }],
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    if (!lb.ok) throw new Error(lb.message);
    expect(host.audit().map((f) => [f.kind, f.object])).toEqual([]);
  });

  it('a leaked pod endpoint on the same overlay network is still found', () => {
    const c = new Cluster({ seed: 1 });
    const host = c.addWindowsNode({ name: 'win-1', network: 'overlay' });
    const netId = [...host.hns.store.networks.values()].find((n) => n.Type === 'Overlay')!.ID;
    const leaked = host.api.HcnCreateEndpoint(netId, null, {
      Name: 'leaked',
      IpConfigurations: [{ IpAddress: '10.244.1.9', PrefixLength: 24 }],
      Policies: [{ Type: 'ProviderAddress', Settings: { ProviderAddress: '10.0.0.10' } }],
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    if (!leaked.ok) throw new Error(leaked.message);
    expect(host.audit().map((f) => [f.kind, f.object])).toEqual([['endpoint-unused', leaked.result.ID]]);
  });
});

// kube-proxy's service-VIP endpoint (kubernetes-windows.md §2.4 step 7.1: on overlay, "if there is
// no HNS endpoint for the ClusterIP, create a remote endpoint for the service VIP: IP = ClusterIP,
// MAC = host MAC, PA = node IP"): no load balancer names it, and a service without endpoints has
// it with no load balancer at all; kube-proxy writes the MAC as Go does (`00:0d:3a:…`).
describe("kube-proxy's service-VIP endpoint", () => {
  function node(): { c: Cluster; host: ReturnType<Cluster['host']>; netId: string } {
    const c = new Cluster({ seed: 1 });
    const host = c.addWindowsNode({ name: 'win-1', network: 'overlay' });
    c.addWindowsNode({ name: 'win-2', network: 'overlay' });
    const netId = [...host.hns.store.networks.values()].find((n) => n.Type === 'Overlay')!.ID;
    return { c, host, netId };
  }

  function remote(
    host: ReturnType<Cluster['host']>,
    netId: string,
    ip: string,
    mac: string,
    pa: string,
  ): string {
    const r = host.api.HcnCreateEndpoint(netId, null, {
      IpConfigurations: [{ IpAddress: ip }],
      MacAddress: mac,
      Flags: 1,
      Policies: [{ Type: 'ProviderAddress', Settings: { ProviderAddress: pa } }],
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    if (!r.ok) throw new Error(r.message);
    return String(r.result['ID']);
  }

  it('is not an unreferenced remote endpoint, with or without a load balancer for its service', () => {
    const { c, host } = node();
    // the API server's service has one from the start, with no endpoints and no load balancer
    const vips = [...host.hns.store.endpoints.values()].filter((e) => (e.Flags & 1) === 1);
    expect(vips.map((e) => e.IpConfigurations[0]?.IpAddress)).toEqual(['10.96.0.1']);
    expect(host.audit()).toEqual([]);
    c.addPod({ namespace: 'default', name: 'web-0', node: 'win-2', labels: { app: 'web' } });
    c.addService({ namespace: 'default', name: 'web', ports: [{ port: 80 }], selector: { app: 'web' } });
    expect(host.audit()).toEqual([]);
  });

  it('the host MAC in either notation, with the node IP as PA; anything else unreferenced is still found', () => {
    const { host, netId } = node();
    // the vNIC holding 10.0.0.10 has the uplink's MAC 00-0D-3A-00-00-01
    remote(host, netId, '10.96.0.40', '00-0D-3A-00-00-01', '10.0.0.10');
    const otherPa = remote(host, netId, '10.96.0.41', '00:0d:3a:00:00:01', '10.0.0.11');
    const conjured = remote(host, netId, '10.96.0.42', '02-11-0a-60-00-2a', '10.0.0.10');
    expect(host.audit().map((f) => [f.kind, f.object])).toEqual(
      [
        ['remote-endpoint-unreferenced', otherPa],
        ['remote-endpoint-unreferenced', conjured],
      ].sort((a, b) => (a[1]! < b[1]! ? -1 : 1)),
    );
  });
});

describe("a Hyper-V pod's namespace", () => {
  it('is held by the utility VM whose guest it was added to', async () => {
    const report = await runScenario(loadScenarioFile(join(root, 'scenarios/hyperv-pods.yaml')));
    const win2 = report.world.nodes.get('win-2')!.host!;
    const uvm = [...win2.hcs.systems.values()].find((s) => s.guestNamespace !== undefined);
    expect(uvm?.isolation).toBe('VirtualMachine');
    expect(win2.audit()).toEqual([]);
  });
});
