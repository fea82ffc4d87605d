/**
 * HNS v1 objects in the packet path: an `ELB` policy list load-balances like an HCN load balancer,
 * `ROUTE` policy lists and HCN route objects steer like SDNRoute policies (the issue: "HNS v1
 * policy lists (`ELB`, `ROUTE`) compile into the same layers as their v2 counterparts"), and the
 * host-only / internal-only corners (Internal networks, ILB port mappings).
 *
 * Documents are the v1 shapes of hcsshim `internal/hns/hnspolicylist.go` (ELBPolicy: Protocol,
 * InternalPort, ExternalPort, VIPs, ILB, IsDSR; RoutePolicy: DestinationPrefix, NeedEncap) and of
 * microsoft/SDN `hns.psm1` `New-HnsLoadBalancer` / `New-HnsRoute`.
 */
import { describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../src/host/host.js';
import type { JsonObject } from '../../src/core/json.js';

const NIC = {
  name: 'Ethernet',
  ipAddress: '192.168.1.11/24',
  gateway: '192.168.1.1',
  macAddress: '00-0D-3A-11-22-33',
};

function v1(host: Host, method: string, path: string, body?: JsonObject): JsonObject {
  const r = host.api.HNSCall(method, path, body === undefined ? '' : JSON.stringify(body));
  if (!r.ok) throw new Error(`${r.name}: ${r.message}`);
  const resp = r.result;
  if (resp['Success'] !== true) throw new Error(String(resp['Error']));
  return resp['Output'] as JsonObject;
}

/** A v1 L2Bridge network `cbr0` (10.244.1.0/24) with three endpoints, as win-bridge's v1 path makes them. */
function l2bridge(): { host: Host; eps: Record<string, JsonObject> } {
  const host = createHost({ seed: 5, adapters: [NIC] });
  const net = v1(host, 'POST', '/networks/', {
    Name: 'cbr0',
    Type: 'L2Bridge',
    NetworkAdapterName: 'Ethernet',
    Subnets: [{ AddressPrefix: '10.244.1.0/24', GatewayAddress: '10.244.1.1' }],
  });
  const eps: Record<string, JsonObject> = {};
  for (const [name, ip] of [
    ['client', '10.244.1.10'],
    ['web-a', '10.244.1.20'],
    ['web-b', '10.244.1.21'],
  ] as const) {
    eps[name] = v1(host, 'POST', '/endpoints/', {
      Name: name,
      VirtualNetwork: String(net['ID']),
      IPAddress: ip,
      GatewayAddress: '10.244.1.1',
    });
  }
  return { host, eps };
}

describe('v1 ELB policy lists are load balancers', () => {
  it('a VIP of an ELB list is DNATed to one of its referenced endpoints, non-DSR also SNATed to SourceVIP', () => {
    const { host, eps } = l2bridge();
    v1(host, 'POST', '/policylists/', {
      References: [`/endpoints/${String(eps['web-a']!['ID'])}`, `/endpoints/${String(eps['web-b']!['ID'])}`],
      Policies: [
        {
          Type: 'ELB',
          Protocol: 6,
          InternalPort: 8080,
          ExternalPort: 80,
          SourceVIP: '10.244.1.2',
          VIPs: ['10.96.0.50'],
        },
      ],
    });
    const r = host.trace({ from: 'client', to: '10.96.0.50', destinationPort: 80, allBranches: true });
    expect(r.disposition).toBe('Delivered');
    const lb = r.observations.find((o) => o.component === 'LB')!;
    expect(lb.action).toBe('DNAT+SNAT');
    expect(lb.rule).toMatchObject({ kind: 'PolicyList', policy: 'ELB', index: 0 });
    // the SourceVIP of the list, and the internal port
    expect(lb.packetAfter.srcIp).toBe(0x0af40102);
    expect(lb.packetAfter.dstPort).toBe(8080);
    // one branch per referenced endpoint, each delivered to a different backend
    const backends = r.branches!.map((b) => b.at);
    expect(r.branches).toHaveLength(2);
    expect(new Set(backends).size).toBe(2);
    expect(backends.sort()).toEqual(
      [`endpoint:${String(eps['web-a']!['ID'])}`, `endpoint:${String(eps['web-b']!['ID'])}`].sort(),
    );
  });

  it('IsDSR keeps the client address and names the LB_DSR rule; the reply is un-DNATed to the VIP', () => {
    const { host, eps } = l2bridge();
    v1(host, 'POST', '/policylists/', {
      References: [`/endpoints/${String(eps['web-a']!['ID'])}`],
      Policies: [
        { Type: 'ELB', Protocol: 6, InternalPort: 8080, ExternalPort: 80, VIPs: ['10.96.0.51'], IsDSR: true },
      ],
    });
    const r = host.trace({ from: 'client', to: '10.96.0.51', destinationPort: 80, reply: true });
    expect(r.disposition).toBe('Delivered');
    const lb = r.observations.find((o) => o.component === 'LB')!;
    expect(lb.action).toBe('DNAT');
    expect(lb.rule?.layer).toBe('LB_DSR');
    expect(lb.packetAfter.srcIp).toBe(0x0af4010a); // 10.244.1.10: source preserved
    expect(r.reply!.disposition).toBe('Delivered');
    expect(r.reply!.final.srcIp).toBe(0x0a600033); // 10.96.0.51 as the client sees it
    expect(r.reply!.final.srcPort).toBe(80);
  });

  it('deleting the list removes the load balancer from the packet path', () => {
    const { host, eps } = l2bridge();
    const pl = v1(host, 'POST', '/policylists/', {
      References: [`/endpoints/${String(eps['web-a']!['ID'])}`],
      Policies: [{ Type: 'ELB', Protocol: 17, InternalPort: 53, ExternalPort: 53, VIPs: ['10.96.0.10'] }],
    });
    expect(host.trace({ from: 'client', to: '10.96.0.10', protocol: 'UDP', destinationPort: 53 }).at).toBe(
      `endpoint:${String(eps['web-a']!['ID'])}`,
    );
    v1(host, 'DELETE', `/policylists/${String(pl['ID'])}`);
    const after = host.trace({ from: 'client', to: '10.96.0.10', protocol: 'UDP', destinationPort: 53 });
    expect(after.observations.some((o) => o.component === 'LB')).toBe(false);
    expect(after.disposition).not.toBe('Delivered');
  });
});

describe('ROUTE lists and route objects steer like SDNRoute policies', () => {
  function overlay(): { host: Host; ep: string; netId: string } {
    const host = createHost({ seed: 6, adapters: [NIC] });
    const net = host.api.HcnCreateNetwork(null, {
      Name: 'vxlan0',
      Type: 'Overlay',
      Ipams: [
        {
          Type: 'Static',
          Subnets: [
            {
              IpAddressPrefix: '10.244.1.0/24',
              Policies: [{ Type: 'VSID', Settings: { IsolationId: 4096 } }],
              Routes: [{ NextHop: '10.244.1.1', DestinationPrefix: '0.0.0.0/0' }],
            },
          ],
        },
      ],
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    if (!net.ok) throw new Error(net.message);
    const netId = String(net.result['ID']);
    const ep = host.api.HcnCreateEndpoint(netId, null, {
      Name: 'pod',
      IpConfigurations: [{ IpAddress: '10.244.1.5' }],
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    if (!ep.ok) throw new Error(ep.message);
    return { host, ep: String(ep.result['ID']), netId };
  }

  it('a v1 ROUTE list with NeedEncap to the service CIDR: a VIP without load balancer ends NoRoute at that rule', () => {
    const { host, ep } = overlay();
    // before: an unknown VIP goes out of the host (the gateway)
    expect(host.trace({ from: 'pod', to: '10.96.0.99' }).disposition).toBe('ExitsNetwork');
    const pl = v1(host, 'POST', '/policylists/', {
      References: [`/endpoints/${ep}`],
      Policies: [{ Type: 'ROUTE', DestinationPrefix: '10.96.0.0/12', NeedEncap: true }],
    });
    const r = host.trace({ from: 'pod', to: '10.96.0.99' });
    expect(r.disposition).toBe('NoRoute');
    const step = r.observations.at(-1)!;
    expect(step.rule).toMatchObject({ kind: 'PolicyList', id: String(pl['ID']), policy: 'ROUTE', index: 0 });
  });

  it('an HCN route object (HcnCreateSdnRoute) applies to the endpoints it lists', () => {
    const { host, ep, netId } = overlay();
    const rt = host.api.HcnCreateSdnRoute(null, {
      HostComputeEndpoints: [ep],
      HostComputeNetwork: netId,
      Setting: [{ DestinationPrefix: '10.96.0.0/12', NeedEncap: true }],
      SchemaVersion: { Major: 2, Minor: 0 },
    } as unknown as JsonObject);
    if (!rt.ok) throw new Error(rt.message);
    const r = host.trace({ from: 'pod', to: '10.96.0.99' });
    expect(r.disposition).toBe('NoRoute');
    expect(r.observations.at(-1)!.rule).toMatchObject({ kind: 'SdnRoute', id: String(rt.result['ID']) });
  });
});

describe('host-only and internal-only corners', () => {
  it('an Internal network: the host reaches its container and back, the host does not route the container outside', () => {
    const host = createHost({ seed: 7, adapters: [NIC] });
    const net = host.api.HcnCreateNetwork(null, {
      Name: 'internal',
      Type: 'Internal',
      Ipams: [
        {
          Type: 'Static',
          Subnets: [
            {
              IpAddressPrefix: '172.30.0.0/24',
              Routes: [{ NextHop: '172.30.0.1', DestinationPrefix: '0.0.0.0/0' }],
            },
          ],
        },
      ],
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    if (!net.ok) throw new Error(net.message);
    const ep = host.api.HcnCreateEndpoint(String(net.result['ID']), null, {
      Name: 'c1',
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    if (!ep.ok) throw new Error(ep.message);
    const toC = host.trace({ from: 'host', to: 'c1', reply: true });
    expect(toC.disposition).toBe('Delivered');
    expect(toC.reply!.disposition).toBe('Delivered');
    expect(toC.reply!.at).toBe('host');
    const out = host.trace({ from: 'c1', to: '8.8.8.8', destinationPort: 443 });
    expect(out.disposition).toBe('NoRoute');
    expect(out.observations.at(-1)!.detail).toMatch(/Internal \(host-only\)/);
  });

  it('an ILB port mapping answers pods, not a client on the wire', () => {
    const { host, eps } = l2bridge();
    const lb = host.api.HcnCreateLoadBalancer(null, {
      HostComputeEndpoints: [String(eps['web-a']!['ID'])],
      FrontendVIPs: [],
      PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 30080, Flags: 1 }],
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    if (!lb.ok) throw new Error(lb.message);
    const fromWire = host.trace({ from: '192.168.1.50', to: '192.168.1.11', destinationPort: 30080 });
    expect(fromWire.observations.some((o) => o.component === 'LB')).toBe(false);
    expect(fromWire.at).toBe('host');
    // a pod reaching the node (win-bridge's NeedEncap route to the management IP) is served
    v1(host, 'POST', '/policylists/', {
      References: [`/endpoints/${String(eps['client']!['ID'])}`],
      Policies: [{ Type: 'ROUTE', DestinationPrefix: '192.168.1.11/32', NeedEncap: true }],
    });
    const fromPod = host.trace({ from: 'client', to: '192.168.1.11', destinationPort: 30080 });
    expect(fromPod.observations.find((o) => o.component === 'LB')?.action).toBe('DNAT+SNAT');
    expect(fromPod.at).toBe(`endpoint:${String(eps['web-a']!['ID'])}`);
  });
});
