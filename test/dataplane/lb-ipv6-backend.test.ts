/**
 * A load balancer's IPv4 path only sends to backends with an IPv4 address: an IPv6-only endpoint
 * among its HostComputeEndpoints is no IPv4 backend (the packet is never DNATed to 0.0.0.0).
 */
import { expect, it } from 'vitest';
import { createHost } from '../../src/host/host.js';
import { createEndpoint, createNetwork, ok } from './prop-kit.js';
import { tj } from './trace-kit.js';

it('an IPv6-only backend is not chosen for an IPv4 VIP: every branch goes to the IPv4 backend', () => {
  const h = createHost({
    seed: 12,
    adapters: [{ name: 'Ethernet', ipAddress: '192.168.1.10/24', gateway: '192.168.1.1' }],
  });
  const net = createNetwork(h, 'nat', 'NAT', '172.20.0.0/24', '172.20.0.1');
  const net6 = String(
    ok(
      h.api.HcnCreateNetwork(null, {
        Name: 'nat6',
        Type: 'NAT',
        Ipams: [{ Type: 'Static', Subnets: [{ IpAddressPrefix: 'fd00:20::/64' }] }],
        SchemaVersion: { Major: 2, Minor: 0 },
      }),
    )['ID'],
  );
  createEndpoint(h, net, 'client', '172.20.0.10');
  const web4 = createEndpoint(h, net, 'web-4', '172.20.0.11');
  const web6 = createEndpoint(h, net6, 'web-6', 'fd00:20::11');
  ok(
    h.api.HcnCreateLoadBalancer(null, {
      HostComputeEndpoints: [web6, web4],
      FrontendVIPs: ['10.96.0.50'],
      PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 80 }],
      SchemaVersion: { Major: 2, Minor: 0 },
    }),
  );
  const t = tj(h.trace({ from: 'client', to: '10.96.0.50', allBranches: true }));
  const ends = (t.branches ?? [t]).map((b) => [b.disposition, b.at]);
  expect(ends).toEqual([['Delivered', `endpoint:${web4}`]]);
});
