/**
 * Smaller host-level contracts of the dataplane: a snapshot carries the seed its load-balancer
 * choices hash, host routes behave like `New-NetRoute` (default metric 256, a duplicate refused with
 * ERROR_OBJECT_ALREADY_EXISTS 0x80071392 — "Instance MSFT_NetRoute already exists"), a trace from
 * the host starts with the address its route leaves by, and a packet that leaves the modelled
 * network still gets its reply traced.
 */
import { describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../src/host/host.js';
import { isHnsError } from '../../src/core/errors.js';

const NIC = {
  name: 'Ethernet',
  ipAddress: '192.168.1.11/24',
  gateway: '192.168.1.1',
  macAddress: '00-0D-3A-11-22-33',
};
const V2 = { Major: 2, Minor: 0 };

function bridgeHost(seed: number): Host {
  const host = createHost({ seed, adapters: [NIC] });
  const net = host.api.HcnCreateNetwork(null, {
    Name: 'cbr0',
    Type: 'L2Bridge',
    Ipams: [
      {
        Type: 'Static',
        Subnets: [
          {
            IpAddressPrefix: '10.244.1.0/24',
            Routes: [{ NextHop: '10.244.1.1', DestinationPrefix: '0.0.0.0/0' }],
          },
        ],
      },
    ],
    SchemaVersion: V2,
  });
  if (!net.ok) throw new Error(net.message);
  const id = String(net.result['ID']);
  const ids: string[] = [];
  for (const [name, ip, pols] of [
    ['client', '10.244.1.10', [{ Type: 'OutBoundNAT', Settings: { Exceptions: ['10.244.0.0/16'] } }]],
    ['b1', '10.244.1.20', []],
    ['b2', '10.244.1.21', []],
    ['b3', '10.244.1.22', []],
  ] as const) {
    const ep = host.api.HcnCreateEndpoint(id, null, {
      Name: name,
      IpConfigurations: [{ IpAddress: ip }],
      Policies: pols,
      SchemaVersion: V2,
    });
    if (!ep.ok) throw new Error(ep.message);
    ids.push(String(ep.result['ID']));
  }
  const lb = host.api.HcnCreateLoadBalancer(null, {
    HostComputeEndpoints: ids.slice(1),
    FrontendVIPs: ['10.96.0.20'],
    PortMappings: [{ Protocol: 6, InternalPort: 80, ExternalPort: 80 }],
    Flags: 1,
    SchemaVersion: V2,
  });
  if (!lb.ok) throw new Error(lb.message);
  return host;
}

function hresultOf(fn: () => unknown): number | undefined {
  try {
    fn();
  } catch (e) {
    return isHnsError(e) ? e.hresult : -1;
  }
  return undefined;
}

describe('snapshots and the seed of load-balancer choices', () => {
  it('a snapshot restored on a host with another seed picks the same backends', () => {
    const a = bridgeHost(11);
    const picks = (h: Host) =>
      [50000, 50001, 50002, 50003, 50004, 50005].map(
        (sp) => h.trace({ from: 'client', to: '10.96.0.20', sourcePort: sp }).at,
      );
    const before = picks(a);
    // the choices vary with the flow, or the test says nothing
    expect(new Set(before).size).toBeGreaterThan(1);
    const b = createHost({ seed: 99, adapters: [NIC] });
    b.restore(a.snapshot());
    expect(picks(b)).toEqual(before);
    expect(b.snapshot()['seed']).toBe(11);
  });
});

describe('host routes (New-NetRoute)', () => {
  it('default metric 256; the same route twice is ERROR_OBJECT_ALREADY_EXISTS and the table is unchanged', () => {
    const h = createHost({ seed: 3, adapters: [NIC] });
    const r = h.addRoute({ destinationPrefix: '10.244.2.0/24', nextHop: '192.168.1.12' });
    expect(r.metric).toBe(256);
    const table = JSON.stringify(h.routes());
    expect(hresultOf(() => h.addRoute({ destinationPrefix: '10.244.2.0/24', nextHop: '192.168.1.12' }))).toBe(
      0x80071392,
    );
    expect(JSON.stringify(h.routes())).toBe(table);
    // another metric is another route
    expect(
      h.addRoute({ destinationPrefix: '10.244.2.0/24', nextHop: '192.168.1.12', metric: 10 }).metric,
    ).toBe(10);
    expect(h.removeRoute('10.244.2.0/24', '192.168.1.12')).toBe(2);
  });

  it('removeRoute wants a prefix with its length, as addRoute does', () => {
    const h = createHost({ seed: 3, adapters: [NIC] });
    expect(hresultOf(() => h.removeRoute('10.244.2.0'))).toBe(0x80070057);
  });
});

describe('what a trace starts and ends with', () => {
  it('from the host, the first packet carries the address of the interface its route leaves by', () => {
    const h = bridgeHost(4);
    // cbr0 has no host vNIC here: the host reaches 10.244.1.0/24 only by its default route
    const r = h.trace({ from: 'host', to: '8.8.8.8' });
    expect(r.packet.srcIp).toBe(0xc0a8010b); // 192.168.1.11
    expect(r.observations[0]!.packetBefore.srcIp).toBe(r.packet.srcIp);
  });

  it('a packet that leaves the modelled network still has its reply traced (and un-SNATed)', () => {
    const h = bridgeHost(5);
    const r = h.trace({ from: 'client', to: '8.8.8.8', destinationPort: 443, reply: true });
    expect(r.disposition).toBe('ExitsNetwork');
    expect(r.reply?.disposition).toBe('Delivered');
    expect(r.reply?.final.dstIp).toBe(0x0af4010a); // back to 10.244.1.10
    expect(r.reply?.observations.some((o) => o.action === 'UnSNAT')).toBe(true);
  });

  it('a frame that leaves for outside is addressed to the outside neighbour the replies come from', () => {
    const h = bridgeHost(5);
    const r = h.trace({ from: 'client', to: '8.8.8.8', destinationPort: 443, reply: true });
    // the reply arrives from the neighbour past the uplink, to the host's MAC ...
    const arrived = r.reply!.observations[0]!;
    expect(arrived.action).toBe('Arrived');
    const neighbour = arrived.packetAfter.srcMac;
    expect(neighbour).not.toBe(0);
    // ... and the request left addressed to that neighbour, from the uplink's MAC (00-0D-3A-11-22-33)
    expect(r.final.dstMac).toBe(neighbour);
    expect(r.final.srcMac).toBe(0x000d3a112233);
    const exit = r.observations.at(-1)!;
    expect(exit.action).toBe('ExitsNetwork');
    expect(exit.packetAfter.dstMac).toBe(neighbour);
  });
});

describe('NAT networks: the gateway serves the containers', () => {
  it('a DNS query to the NAT gateway reaches the host (WinNAT DNS proxy), not the outside', () => {
    const h = createHost({ seed: 6, adapters: [NIC] });
    const net = h.api.HcnCreateNetwork(null, {
      Name: 'nat',
      Type: 'NAT',
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
      SchemaVersion: V2,
    });
    if (!net.ok) throw new Error(net.message);
    const ep = h.api.HcnCreateEndpoint(String(net.result['ID']), null, { Name: 'c', SchemaVersion: V2 });
    if (!ep.ok) throw new Error(ep.message);
    const r = h.trace({ from: 'c', to: '172.30.0.1', protocol: 'UDP', destinationPort: 53, reply: true });
    expect(r.disposition).toBe('Delivered');
    expect(r.at).toBe('host');
    expect(r.observations.some((o) => o.action === 'SNAT')).toBe(false);
    expect(r.reply?.disposition).toBe('Delivered');
  });
});
