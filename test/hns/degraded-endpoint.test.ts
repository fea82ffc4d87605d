// A template placeholder left in an endpoint's OutBoundNAT exceptions or SDNRoute prefix
// (`<your service cidr>`): HNS creates the endpoint Degraded (State 5), the namespace takes it, and a
// container joining that namespace fails with HCN_E_NAMESPACE_ATTACH_FAILED — the sequence of
// containerd/containerd#5729 (projectcalico/felix#2893: "Endpoint is in invalid state",
// EndpointAttachShared). Reference cni-windows.md §7 P9, §3.4 (the HCN endpoint of #5729).
import { describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../src/host/host.js';

const V2 = { Major: 2, Minor: 0 };

/** An Overlay network like Calico's on the #5729 node (its pods in 100.244.206.64/26, gateway .65). */
function calicoNode(): { host: Host; net: string } {
  const host = createHost({ seed: 11 });
  const r = host.api.HcnCreateNetwork(null, {
    Name: 'Calico',
    Type: 'Overlay',
    Ipams: [
      {
        Type: 'Static',
        Subnets: [
          {
            IpAddressPrefix: '100.244.206.64/26',
            Routes: [{ NextHop: '100.244.206.65', DestinationPrefix: '0.0.0.0/0' }],
            Policies: [{ Type: 'VSID', Settings: { IsolationId: 4096 } }],
          },
        ],
      },
    ],
    SchemaVersion: V2,
  });
  if (!r.ok) throw new Error(r.message);
  return { host, net: (r.result as unknown as { ID: string }).ID };
}

/** The HCN endpoint of containerd#5729, with the service CIDR as given (or the placeholder). */
function endpointDoc(net: string, serviceCidr: string) {
  return {
    Name: 'd48c3e4703d9_Calico',
    HostComputeNetwork: net,
    Policies: [
      { Type: 'OutBoundNAT', Settings: { Exceptions: [serviceCidr, '100.244.0.0/16'] } },
      { Type: 'SDNROUTE', Settings: { DestinationPrefix: serviceCidr, NeedEncap: true } },
      { Type: 'ProviderAddress', Settings: { ProviderAddress: '10.0.2.15' } },
    ],
    IpConfigurations: [{ IpAddress: '100.244.206.68' }],
    Dns: {
      Search: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
      ServerList: ['10.96.0.10'],
      Options: ['ndots:5'],
    },
    Routes: [{ NextHop: '100.244.206.65', DestinationPrefix: '0.0.0.0/0' }],
    MacAddress: '0E-2A-64-f4-ce-44',
    SchemaVersion: V2,
  };
}

function podNamespaceWith(host: Host, endpointId: string): string {
  const ns = host.api.HcnCreateNamespace(null, { SchemaVersion: V2 });
  if (!ns.ok) throw new Error(ns.message);
  const id = (ns.result as { ID: string }).ID;
  const add = host.api.HcnModifyNamespace(id, {
    ResourceType: 'Endpoint',
    RequestType: 'Add',
    Settings: { EndpointId: endpointId },
  });
  if (!add.ok) throw new Error(add.message);
  return id;
}

const pauseDoc = (ns: string) => ({
  Owner: 'containerd-shim-runhcs-v1.exe',
  SchemaVersion: { Major: 2, Minor: 1 },
  Container: { Storage: { Layers: [] }, Networking: { Namespace: ns } },
});

describe('a Degraded endpoint (template placeholder in OutBoundNAT / SDNRoute)', () => {
  it('is created and joins the namespace; the container joining that namespace fails with 0x803b002e', () => {
    const { host, net } = calicoNode();
    const r = host.api.HcnCreateEndpoint(net, null, endpointDoc(net, '<your service cidr>'));
    expect(r.ok).toBe(true);
    const id = r.ok ? (r.result as unknown as { ID: string }).ID : '';
    const q = host.api.HcnQueryEndpointProperties(id, { SchemaVersion: V2 });
    const ep = q.ok ? (q.result as unknown as { ID: string; State: number; Policies: unknown[] }) : undefined;
    expect(ep!.State).toBe(5);
    // kept as written
    expect(ep!.Policies.slice(0, 2)).toEqual([
      { Type: 'OutBoundNAT', Settings: { Exceptions: ['<your service cidr>', '100.244.0.0/16'] } },
      { Type: 'SDNRoute', Settings: { DestinationPrefix: '<your service cidr>', NeedEncap: true } },
    ]);
    const ns = podNamespaceWith(host, ep!.ID);
    const c = host.api.HcsCreateComputeSystem('windows-server-iis', pauseDoc(ns));
    expect(c).toMatchObject({ ok: false, name: 'HCN_E_NAMESPACE_ATTACH_FAILED', hr: 0x803b002e });
    expect(c.ok ? '' : c.message).toMatch(
      /^The requested operation for attach namespace failed\. \(Endpoint is in invalid state: /,
    );
    expect(host.hcs.systems.size).toBe(0);
    // the v1 view shows the same state
    const v1 = host.api.HNSCall('GET', `/endpoints/${ep!.ID}`, '');
    expect(v1.ok && (v1.result as { Output: { State: number } }).Output.State).toBe(5);
  });

  it('with the template filled in, the endpoint is Attached and the container starts in the namespace', () => {
    const { host, net } = calicoNode();
    const r = host.api.HcnCreateEndpoint(net, null, endpointDoc(net, '10.96.0.0/12'));
    const id = r.ok ? (r.result as unknown as { ID: string }).ID : '';
    const ns = podNamespaceWith(host, id);
    const c = host.api.HcsCreateComputeSystem('windows-server-iis', pauseDoc(ns));
    expect(c.ok).toBe(true);
    const q = host.api.HcnQueryEndpointProperties(id, { SchemaVersion: V2 });
    expect(q.ok && (q.result as unknown as { State: number }).State).toBe(2);
  });

  it('a placeholder route routes nothing: the endpoint has no SDN route in the dataplane view', () => {
    const { host, net } = calicoNode();
    const r = host.api.HcnCreateEndpoint(net, null, endpointDoc(net, '<your service cidr>'));
    expect(r.ok).toBe(true);
    const id = r.ok ? (r.result as unknown as { ID: string }).ID : '';
    const port = host.dataplane.view().ports.get(id);
    expect(port?.sdnRoutes).toEqual([]);
    expect(port?.outboundNat.map((o) => o.exceptions.length)).toEqual([1]);
  });

  it.each([
    ['an out-of-range prefix', { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.0.0.0/40'] } }],
    ['an empty SDNRoute prefix', { Type: 'SDNRoute', Settings: { DestinationPrefix: '', NeedEncap: true } }],
    ['a word', { Type: 'SDNRoute', Settings: { DestinationPrefix: 'servicecidr' } }],
    // Go's nil net.IP printed by win-bridge's loopback DSR without IPAM (reference §2.3)
    ['`<nil>`', { Type: 'OutBoundNAT', Settings: { Destinations: ['<nil>'] } }],
  ])('%s is still refused with HCN_E_INVALID_POLICY (0x803b000d)', (_label, policy) => {
    const { host, net } = calicoNode();
    const r = host.api.HcnCreateEndpoint(net, null, {
      HostComputeNetwork: net,
      Policies: [policy],
      SchemaVersion: V2,
    });
    expect(r).toMatchObject({ ok: false, name: 'HCN_E_INVALID_POLICY', hr: 0x803b000d });
  });
});
