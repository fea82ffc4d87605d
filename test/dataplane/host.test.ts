/**
 * Single-host traces (`host.trace`, `host.send`; src/dataplane, docs/model.md "Dataplane"):
 * - the network types of one host (kubernetes-windows.md §1.2; docs/model.md "NAT / ICS", "L2Tunnel"):
 *   NAT (WinNAT SNAT to the host address outbound, inbound only through a PortMapping on the host's
 *   addresses), Private (containers of one switch only: no host vNIC), Internal (host ↔ container),
 *   L2Tunnel (every packet hair-pinned through the virtualization host, vfp-dataplane.md §6);
 * - the host's routes (`New-NetRoute` / `Remove-NetRoute`) and their errors (E_INVALIDARG
 *   0x80070057, ERROR_NOT_FOUND 0x80070490), atomically;
 * - traffic vs traces: `send` moves the counters HNS reports (v1 `GET /endpointstats/<id>`,
 *   HcnQueryEndpointStats, hns-hcs.md §3.2), a trace changes nothing;
 * - determinism (same seed → same trace), `allBranches` (ovn-trace forks), the flow table (a hit is
 *   the same result; a change of HNS state or routes changes the answer), request errors;
 * - loops and TTL exhaustion (Batfish's LOOP; RFC 791 TTL) built on a cluster's underlay.
 */
import { describe, expect, it } from 'vitest';
import { Cluster } from '../../src/cluster/cluster.js';
import { HnsError } from '../../src/core/errors.js';
import type { TraceRequest } from '../../src/dataplane/trace.js';
import { createHost, type Host } from '../../src/host/host.js';
import { changes, has, isDynamicPort, step, steps, tj, wire, type TraceJ } from './trace-kit.js';
import { createEndpoint, createNetwork, ok } from './prop-kit.js';

const V2 = { Major: 2, Minor: 0 };
const HOST_IP = '192.168.1.10';
const HOST_MAC = '00-0D-3A-00-00-AA';

// hns-hcs.md §5.2 / winerror.h
const E_INVALIDARG = 0x80070057;
const ERROR_NOT_FOUND = 0x80070490;

function host(seed = 7): Host {
  return createHost({
    seed,
    adapters: [
      { name: 'Ethernet', ipAddress: `${HOST_IP}/24`, gateway: '192.168.1.1', macAddress: HOST_MAC },
    ],
  });
}

function trace(h: Host, req: TraceRequest): TraceJ {
  return tj(h.trace(req));
}

function thrown(f: () => unknown): HnsError {
  try {
    f();
  } catch (e) {
    if (e instanceof HnsError) return e;
    throw e;
  }
  throw new Error('expected an HnsError, nothing was thrown');
}

function dotted(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** The route table as `Get-NetRoute` would list it. */
function routeTable(h: Host): string[] {
  return h
    .routes()
    .map(
      (r) =>
        `${dotted(r.dest.addr)}/${r.dest.len} ${r.nextHop ? dotted(r.nextHop) : 'on-link'} ${r.iface} ${r.origin}`,
    );
}

// ───────────────────────────── NAT ─────────────────────────────

describe('NAT network (WinNAT; kubernetes-windows.md §1.2: MAC and IP rewritten to the host MAC/IP)', () => {
  function natHost() {
    const h = host();
    const net = createNetwork(h, 'nat', 'NAT', '172.30.0.0/24', '172.30.0.1');
    const web = createEndpoint(h, net, 'web', '172.30.0.5', [
      { Type: 'PortMapping', Settings: { Protocol: 6, InternalPort: 80, ExternalPort: 8080 } },
    ]);
    const db = createEndpoint(h, net, 'db', '172.30.0.6');
    return { h, web, db };
  }

  it('outbound: through the host vNIC, WinNAT SNAT to the host address, the host MAC on the wire', () => {
    const { h } = natHost();
    const t = trace(h, { from: 'web', to: '8.8.8.8' });
    expect(t.disposition).toBe('ExitsNetwork');
    expect(t.at).toBe('external:8.8.8.8');
    expect(step(t, 'node-1', 'vSwitch', 'ToHost').detail).toBe('to the host through vEthernet (nat)');
    const snat = step(t, 'node-1', 'NAT', 'SNAT');
    expect(snat.rule).toMatchObject({ kind: 'Network', layer: 'WinNAT', rule: 'NetNat 172.30.0.0/24' });
    expect(changes(snat)).toMatchObject({ srcIp: ['172.30.0.5', HOST_IP] });
    expect(isDynamicPort(snat.packetAfter.srcPort)).toBe(true);
    expect(wire(t, 'node-1')).toMatchObject({
      srcMac: HOST_MAC,
      srcIp: HOST_IP,
      dstIp: '8.8.8.8',
      dstPort: 80,
    });
  });

  // Regression (fixed; was trace recording, src/dataplane/plane.ts HostPlane.routeOut): the `HostStack Forwarded`
  // step is recorded with packetBefore = the packet before WinNAT (`w.step(…, p0, p, …)`), after
  // the `NAT SNAT` step already recorded the translation, so the same SNAT appears twice and the
  // chain of steps is broken (SNAT.after ≠ Forwarded.before); the same in the Linux node's
  // masquerade (src/cluster/linux.ts forward: `w.step(…, 'Forwarded', p0, p, …)`).
  it('outbound: the Forwarded step starts where the SNAT step ended (one step per change)', () => {
    const { h } = natHost();
    const t = trace(h, { from: 'web', to: '8.8.8.8' });
    const fwd = step(t, 'node-1', 'HostStack', 'Forwarded');
    expect(Object.keys(changes(fwd))).not.toContain('srcIp');
    expect(fwd.packetBefore).toEqual(step(t, 'node-1', 'NAT', 'SNAT').packetAfter);
  });

  it('inbound through a PortMapping: an outside client to host:8080 is DNATed to the container:80', () => {
    const { h, web } = natHost();
    const t = trace(h, { from: '8.8.8.8', to: HOST_IP, destinationPort: 8080 });
    expect(t.disposition).toBe('Delivered');
    expect(t.at).toBe(`endpoint:${web}`);
    const dnat = step(t, 'node-1', 'NAT', 'DNAT');
    expect(dnat.rule).toMatchObject({
      kind: 'Endpoint',
      id: web,
      policy: 'PortMapping',
      layer: 'SLB_NAT_LAYER',
      rule: 'NAT_PORTMAPPING_TCP_8080_80',
    });
    expect(changes(dnat)).toEqual({ dstIp: [HOST_IP, '172.30.0.5'], dstPort: [8080, 80] });
    expect(t.final).toMatchObject({ srcIp: '8.8.8.8', dstIp: '172.30.0.5', dstPort: 80 });
  });

  // Regression (fixed; was src/dataplane/plane.ts HostPlane.portEgress, the reply branch): after un-NAT the next hop
  // becomes `un.dstIp` whenever un-NAT changed anything (`un === p ? nextHop : un.dstIp`), although
  // the PortMapping's un-DNAT changed only the source; the container's gateway (172.30.0.1) is
  // dropped and forward() finds 8.8.8.8 on no port of the Internal switch: the reply ends NoRoute
  // ("Internal switch: 8.8.8.8 is not on it"). Every NAT-network port mapping is one-way.
  it('inbound through a PortMapping: the reply leaves the host from host:8080 back to the client', () => {
    const { h } = natHost();
    const t = trace(h, { from: '8.8.8.8', to: HOST_IP, destinationPort: 8080, reply: true });
    const r = t.reply!;
    expect(r.disposition).toBe('ExitsNetwork');
    expect(r.at).toBe('external:8.8.8.8');
    expect(wire(r, 'node-1')).toMatchObject({
      srcIp: HOST_IP,
      srcPort: 8080,
      dstIp: '8.8.8.8',
      dstPort: 50000,
    });
  });

  it('inbound without a PortMapping: delivered to the host itself, not to a container', () => {
    const { h } = natHost();
    const t = trace(h, { from: '8.8.8.8', to: HOST_IP, destinationPort: 9090 });
    expect(t).toMatchObject({ disposition: 'Delivered', at: 'host' });
    expect(has(t, 'NAT')).toBe(false);
    expect(has(t, 'Delivery')).toBe(false);
    expect(t.final).toMatchObject({ dstIp: HOST_IP, dstPort: 9090 });
  });

  // Regression (fixed; was src/dataplane/plane.ts HostPlane.hostStack/routeOut with the default ipForwarding=true):
  // a packet arriving on the uplink for a NAT container's private address is forwarded by the host
  // stack into the internal switch and delivered, while docs/model.md ("NAT / ICS") says "inbound
  // only through PortMapping policies on the host's addresses" (WinNAT publishes containers only
  // through its static mappings).
  it('an outside client cannot reach a NAT container by its private address', () => {
    const { h } = natHost();
    const t = trace(h, { from: '8.8.8.8', to: '172.30.0.6' });
    expect(t.disposition).not.toBe('Delivered');
  });

  it('containers of the NAT network reach each other directly, unNATed', () => {
    const { h, db } = natHost();
    const t = trace(h, { from: 'web', to: 'db' });
    expect(t).toMatchObject({ disposition: 'Delivered', at: `endpoint:${db}` });
    expect(has(t, 'NAT')).toBe(false);
    expect(t.final).toMatchObject({ srcIp: '172.30.0.5', dstIp: '172.30.0.6' });
  });
});

// ───────────────────────────── Private, Internal, L2Tunnel ─────────────────────────────

describe('Private network: a private switch, no host vNIC', () => {
  const h = host();
  const net = createNetwork(h, 'priv', 'Private', '172.31.0.0/24', '172.31.0.1');
  createEndpoint(h, net, 'c1', '172.31.0.5');
  const c2 = createEndpoint(h, net, 'c2', '172.31.0.6');

  it('the host has no vEthernet for it', () => {
    expect(h.adapters().map((a) => a['Name'])).toEqual(['Ethernet']);
  });

  it('containers of the switch reach each other', () => {
    const t = trace(h, { from: 'c1', to: 'c2', reply: true });
    expect(t).toMatchObject({ disposition: 'Delivered', at: `endpoint:${c2}` });
    expect(step(t, 'node-1', 'vSwitch', 'Switched').detail).toBe('to port c2');
    expect(t.reply?.disposition).toBe('Delivered');
  });

  it.each([HOST_IP, '8.8.8.8'])('a container reaches nothing else (%s): NoRoute at the switch', (to) => {
    const t = trace(h, { from: 'c1', to });
    expect(t.disposition).toBe('NoRoute');
    expect(step(t, 'node-1', 'vSwitch', 'NoRoute').detail).toContain('Private switch');
    expect(steps(t, 'node-1', 'Port', 'Transmitted')).toEqual([]);
  });

  it('the host does not reach the containers', () => {
    expect(trace(h, { from: 'host', to: 'c1' }).disposition).not.toBe('Delivered');
  });
});

describe('Internal network: host ↔ container', () => {
  const h = host();
  const net = createNetwork(h, 'int', 'Internal', '172.29.0.0/24', '172.29.0.1');
  const c1 = createEndpoint(h, net, 'c1', '172.29.0.5');

  it('the host has a vEthernet on the switch holding the gateway address', () => {
    expect(h.adapters().find((a) => a['Name'] === 'vEthernet (int)')).toMatchObject({
      Kind: 'HostVNic',
      IPv4Address: '172.29.0.1',
    });
  });

  it('host → container, from the vNIC address, and the reply back to the host', () => {
    const t = trace(h, { from: 'host', to: 'c1', reply: true });
    expect(t).toMatchObject({ disposition: 'Delivered', at: `endpoint:${c1}` });
    expect(step(t, 'node-1', 'HostStack', 'Routed').rule?.rule).toBe(
      '172.29.0.0/24 via on-link dev vEthernet (int)',
    );
    expect(t.final.srcIp).toBe('172.29.0.1');
    expect(t.reply).toMatchObject({ disposition: 'Delivered', at: 'host' });
  });

  it('container → host (its primary address), through the vNIC', () => {
    const t = trace(h, { from: 'c1', to: HOST_IP });
    expect(t).toMatchObject({ disposition: 'Delivered', at: 'host' });
    expect(step(t, 'node-1', 'vSwitch', 'ToHost').detail).toBe('to the host through vEthernet (int)');
    expect(t.final.srcIp).toBe('172.29.0.5');
  });

  it('a container does not reach outside the host: the host stack does not forward an Internal network', () => {
    const t = trace(h, { from: 'c1', to: '8.8.8.8' });
    expect(t.disposition).toBe('NoRoute');
    expect(step(t, 'node-1', 'HostStack', 'Dropped').detail).toContain('Internal (host-only)');
    expect(steps(t, 'node-1', 'Port', 'Transmitted')).toEqual([]);
  });
});

describe('L2Tunnel vs L2Bridge on one host (vfp-dataplane.md §6)', () => {
  function pair(type: 'L2Tunnel' | 'L2Bridge') {
    const h = host();
    const net = createNetwork(h, 'ext', type, '192.168.1.0/24', '192.168.1.1');
    createEndpoint(h, net, 'c1', '192.168.1.50');
    const c2 = createEndpoint(h, net, 'c2', '192.168.1.51');
    return { h, c2 };
  }

  it('L2Tunnel: same-host pod → pod has the Hairpinned step, then is delivered', () => {
    const { h, c2 } = pair('L2Tunnel');
    const t = trace(h, { from: 'c1', to: 'c2' });
    expect(t).toMatchObject({ disposition: 'Delivered', at: `endpoint:${c2}` });
    const hp = step(t, 'node-1', 'Underlay', 'Hairpinned');
    expect(hp.detail).toContain('virtualization host');
    const i = t.observations.indexOf(hp);
    expect(t.observations.slice(i + 1).map((o) => `${o.component} ${o.action}`)).toEqual([
      'vSwitch Switched',
      'Delivery Delivered',
    ]);
  });

  it('L2Bridge: same-host same-subnet pod → pod is bridged in the vSwitch, no hairpin', () => {
    const { h, c2 } = pair('L2Bridge');
    const t = trace(h, { from: 'c1', to: 'c2' });
    expect(t).toMatchObject({ disposition: 'Delivered', at: `endpoint:${c2}` });
    expect(has(t, 'Underlay', 'Hairpinned')).toBe(false);
    expect(has(t, 'MacRewrite')).toBe(false);
  });

  it('L2Tunnel: traffic leaving the host carries the host MAC, the container IP', () => {
    const { h } = pair('L2Tunnel');
    const t = trace(h, { from: 'c1', to: '8.8.8.8' });
    expect(t.disposition).toBe('ExitsNetwork');
    expect(changes(step(t, 'node-1', 'MacRewrite', 'Rewritten'))).toMatchObject({
      srcMac: [expect.any(String), HOST_MAC],
    });
    expect(wire(t, 'node-1')).toMatchObject({ srcMac: HOST_MAC, srcIp: '192.168.1.50' });
  });
});

// ───────────────────────────── host routes ─────────────────────────────

describe('host routes (New-NetRoute / Remove-NetRoute)', () => {
  it('starts with the connected subnet and the default route', () => {
    expect(routeTable(host())).toEqual([
      '192.168.1.0/24 on-link Ethernet Connected',
      '0.0.0.0/0 192.168.1.1 Ethernet Default',
    ]);
  });

  it('an added route is listed and used; removed, the default route is used again', () => {
    const h = host();
    expect(h.addRoute({ destinationPrefix: '10.50.0.0/16', nextHop: '192.168.1.20' })).toMatchObject({
      iface: 'Ethernet',
      origin: 'User',
    });
    expect(routeTable(h)).toContain('10.50.0.0/16 192.168.1.20 Ethernet User');
    const via = trace(h, { from: 'host', to: '10.50.1.1' });
    expect(step(via, 'node-1', 'HostStack', 'Routed').rule?.rule).toBe(
      '10.50.0.0/16 via 192.168.1.20 dev Ethernet',
    );
    expect(step(via, 'node-1', 'Port', 'Transmitted').detail).toBe('on the uplink towards 192.168.1.20');
    expect(h.removeRoute('10.50.0.0/16')).toBe(1);
    expect(h.removeRoute('10.50.0.0/16')).toBe(0);
    expect(routeTable(h)).not.toContain('10.50.0.0/16 192.168.1.20 Ethernet User');
    const back = trace(h, { from: 'host', to: '10.50.1.1' });
    expect(step(back, 'node-1', 'HostStack', 'Routed').rule?.rule).toBe(
      '0.0.0.0/0 via 192.168.1.1 dev Ethernet',
    );
  });

  it.each([
    ['a prefix without a length', { destinationPrefix: '10.50.0.0', nextHop: '192.168.1.20' }],
    ['a prefix that is not an address', { destinationPrefix: 'x/8', nextHop: '192.168.1.20' }],
    ['a prefix length over 32', { destinationPrefix: '10.50.0.0/33', nextHop: '192.168.1.20' }],
    ['a next hop that is not an address', { destinationPrefix: '10.50.0.0/16', nextHop: 'gateway' }],
    ['a negative metric', { destinationPrefix: '10.50.0.0/16', nextHop: '192.168.1.20', metric: -1 }],
  ])('%s: E_INVALIDARG (0x80070057), the table unchanged', (_what, spec) => {
    const h = host();
    const before = routeTable(h);
    const e = thrown(() => h.addRoute(spec));
    expect(e.code).toBe('E_INVALIDARG');
    expect(e.hresult).toBe(E_INVALIDARG);
    expect(routeTable(h)).toEqual(before);
  });

  it.each([
    [
      'an unknown interface',
      { destinationPrefix: '10.60.0.0/16', nextHop: '192.168.1.20', interfaceAlias: 'Ethernet 9' },
    ],
    ['a next hop no interface reaches', { destinationPrefix: '10.60.0.0/16', nextHop: '172.16.0.1' }],
  ])('%s: ERROR_NOT_FOUND (0x80070490), the table unchanged', (_what, spec) => {
    const h = host();
    h.addRoute({ destinationPrefix: '10.50.0.0/16', nextHop: '192.168.1.20' });
    const before = routeTable(h);
    const answer = trace(h, { from: 'host', to: '10.60.0.1' });
    const e = thrown(() => h.addRoute(spec));
    expect(e.code).toBe('ERROR_NOT_FOUND');
    expect(e.hresult).toBe(ERROR_NOT_FOUND);
    expect(routeTable(h)).toEqual(before);
    expect(trace(h, { from: 'host', to: '10.60.0.1' })).toEqual(answer);
  });

  it('removing with a bad prefix: E_INVALIDARG, the table unchanged', () => {
    const h = host();
    h.addRoute({ destinationPrefix: '10.50.0.0/16', nextHop: '192.168.1.20' });
    const before = routeTable(h);
    const e = thrown(() => h.removeRoute('not-a-prefix'));
    expect(e.hresult).toBe(E_INVALIDARG);
    expect(routeTable(h)).toEqual(before);
  });
});

// ───────────────────────────── traffic, traces, determinism ─────────────────────────────

/** An L2Bridge host: client .10, web-1..3 .11–.13 behind a load balancer 10.96.0.50:80 → 8080. */
function lbHost(seed = 7) {
  const h = host(seed);
  const net = createNetwork(h, 'cbr0', 'L2Bridge', '10.244.1.0/24', '10.244.1.1');
  const client = createEndpoint(h, net, 'client', '10.244.1.10');
  const webs = [1, 2, 3].map((i) => createEndpoint(h, net, `web-${i}`, `10.244.1.${10 + i}`));
  const lb = ok(
    h.api.HcnCreateLoadBalancer(null, {
      HostComputeEndpoints: webs,
      SourceVIP: '10.244.1.2',
      FrontendVIPs: ['10.96.0.50'],
      PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 80 }],
      SchemaVersion: V2,
    }),
  );
  return { h, client, webs, lbId: String(lb['ID']) };
}

type Stats = Record<string, number | string>;

function v1Stats(h: Host, id: string): Stats {
  const r = ok(h.api.HNSCall('GET', `/endpointstats/${id}`, ''));
  expect(r['Success']).toBe(true);
  return r['Output'] as Stats;
}

function v2Stats(h: Host, id: string): Stats {
  return ok(h.api.HcnQueryEndpointStats(id)) as unknown as Stats;
}

const ZERO = {
  BytesReceived: 0,
  BytesSent: 0,
  DroppedPacketsIncoming: 0,
  DroppedPacketsOutgoing: 0,
  PacketsReceived: 0,
  PacketsSent: 0,
};

describe('send moves the counters HNS reports; trace moves nothing', () => {
  it('a trace leaves the HNS state, the counters and the flow state as they were', () => {
    const { h, client, webs } = lbHost();
    const snap = JSON.stringify(h.snapshot());
    const stats = [client, ...webs].map((id) => v1Stats(h, id));
    trace(h, { from: 'client', to: '10.96.0.50', reply: true });
    trace(h, { from: 'client', to: 'web-1', allBranches: true });
    expect(JSON.stringify(h.snapshot())).toBe(snap);
    expect([client, ...webs].map((id) => v1Stats(h, id))).toEqual(stats);
    for (const s of stats) expect(s).toMatchObject(ZERO);
    // no flow was committed: the reverse packet is not a reply of anything
    const back = trace(h, { from: 'web-1', to: '10.244.1.10', sourcePort: 80, destinationPort: 50000 });
    expect(has(back, 'Conntrack', 'Established')).toBe(false);
  });

  it('send counts packets and bytes on the endpoints the flow left and reached (v1 /endpointstats and HcnQueryEndpointStats)', () => {
    const { h, client, webs } = lbHost();
    const t = tj(h.send({ from: 'client', to: 'web-1', packets: 3, bytes: 200 }));
    expect(t.disposition).toBe('Delivered');
    expect(v1Stats(h, client)).toMatchObject({ ...ZERO, EndpointId: client, PacketsSent: 3, BytesSent: 600 });
    expect(v1Stats(h, webs[0]!)).toMatchObject({
      ...ZERO,
      EndpointId: webs[0],
      PacketsReceived: 3,
      BytesReceived: 600,
    });
    expect(v2Stats(h, client)).toEqual(v1Stats(h, client));
    expect(v2Stats(h, webs[0]!)).toEqual(v1Stats(h, webs[0]!));
    expect(v1Stats(h, webs[1]!)).toMatchObject(ZERO);
    // the flow is committed: the reverse packet is now a reply and skips the rules
    const back = trace(h, { from: 'web-1', to: '10.244.1.10', sourcePort: 80, destinationPort: 50000 });
    expect(has(back, 'Conntrack', 'Established')).toBe(true);
  });

  it('a send denied by an ACL counts a drop on the endpoint that dropped it', () => {
    const { h, client, webs } = lbHost();
    ok(
      h.api.HcnModifyEndpoint(webs[1], {
        ResourceType: 'Policy',
        RequestType: 'Add',
        Settings: {
          Policies: [{ Type: 'ACL', Settings: { Action: 'Block', Direction: 'In', Priority: 100 } }],
        },
      }),
    );
    const t = tj(h.send({ from: 'client', to: 'web-2', packets: 2 }));
    expect(t.disposition).toBe('DeniedIn');
    expect(v1Stats(h, webs[1]!)).toMatchObject({ ...ZERO, DroppedPacketsIncoming: 2 });
    expect(v1Stats(h, client)).toMatchObject({ ...ZERO, PacketsSent: 2, BytesSent: 200 });
  });
});

describe('determinism, branches and the flow table', () => {
  const REQUESTS: TraceRequest[] = [
    { from: 'client', to: '10.96.0.50', reply: true },
    { from: 'client', to: '10.96.0.50', sourcePort: 40001 },
    { from: 'client', to: '8.8.8.8' },
    { from: '8.8.8.8', to: 'web-2' },
    { from: 'host', to: 'web-3' },
  ];

  it('the same seed and the same calls give identical traces (traceJson)', () => {
    const a = lbHost(11);
    const b = lbHost(11);
    for (const req of REQUESTS) expect(tj(b.h.trace(req))).toEqual(tj(a.h.trace(req)));
  });

  it('allBranches: one branch per backend of the 3-backend load balancer, each delivered to a different backend', () => {
    const { h, webs, lbId } = lbHost();
    const t = trace(h, { from: 'client', to: '10.96.0.50', allBranches: true });
    expect(t.disposition).toBe('Delivered');
    expect(t.lbChoices).toEqual([{ host: 'node-1', lb: lbId, count: 3, chosen: expect.any(Number) }]);
    const branches = t.branches!;
    expect(branches).toHaveLength(3);
    for (const b of branches) expect(b.disposition).toBe('Delivered');
    expect(branches.map((b) => b.at)).toEqual(webs.map((id) => `endpoint:${id}`));
    branches.forEach((b, i) => {
      const lb = step(b, 'node-1', 'LB', 'DNAT+SNAT');
      expect(lb.detail).toContain(`backend ${i + 1} of 3: 10.244.1.${11 + i}:8080`);
      expect(b.final).toMatchObject({ srcIp: '10.244.1.2', dstIp: `10.244.1.${11 + i}`, dstPort: 8080 });
    });
    // the main answer is the branch the load balancer chose
    expect(t.at).toBe(branches[t.lbChoices![0]!.chosen]!.at);
  });

  it('a flow-table hit returns the identical result; an ACL added through HNS changes the answer', () => {
    const { h, webs } = lbHost();
    const req: TraceRequest = { from: 'client', to: 'web-1' };
    const first = h.trace(req);
    const hits = h.flowTable.hits;
    expect(h.trace(req)).toBe(first);
    expect(h.flowTable.hits).toBe(hits + 1);
    expect(first.disposition).toBe('Delivered');
    // a request differing in any one field is another entry: a miss, answered for its own fields
    const variants: Partial<TraceRequest>[] = [
      { to: 'web-2' },
      { sourcePort: 40001 },
      { destinationPort: 81 },
      { protocol: 'UDP' },
      { ttl: 9 },
      { reply: true },
      { allBranches: true },
    ];
    for (const v of variants) {
      const other = h.trace({ ...req, ...v });
      expect(other, JSON.stringify(v)).not.toBe(first);
      expect(tj(other).request, JSON.stringify(v)).toMatchObject({
        to: v.to ?? 'web-1',
        sourcePort: v.sourcePort ?? 50000,
        destinationPort: v.destinationPort ?? 80,
        protocol: v.protocol === 'UDP' ? 17 : 6,
      });
      expect(other.packet.ttl, JSON.stringify(v)).toBe(v.ttl ?? 128);
      expect(other.reply !== undefined, JSON.stringify(v)).toBe(v.reply === true);
    }
    expect(h.flowTable.hits).toBe(hits + 1);
    ok(
      h.api.HcnModifyEndpoint(webs[0], {
        ResourceType: 'Policy',
        RequestType: 'Add',
        Settings: {
          Policies: [{ Type: 'ACL', Settings: { Action: 'Block', Direction: 'In', Priority: 100 } }],
        },
      }),
    );
    const after = h.trace(req);
    expect(after).not.toBe(first);
    expect(after.disposition).toBe('DeniedIn');
    expect(step(tj(after), 'node-1', 'ACL', 'Denied').rule).toMatchObject({ policy: 'ACL', id: webs[0] });
  });

  it('a host route added or removed changes the answer of a cached trace', () => {
    const h = host();
    const req: TraceRequest = { from: 'host', to: '10.50.1.1' };
    const before = h.trace(req);
    h.addRoute({ destinationPrefix: '10.50.0.0/16', nextHop: '192.168.1.20' });
    const withRoute = h.trace(req);
    expect(withRoute).not.toBe(before);
    expect(step(tj(withRoute), 'node-1', 'HostStack', 'Routed').rule?.rule).toBe(
      '10.50.0.0/16 via 192.168.1.20 dev Ethernet',
    );
    h.removeRoute('10.50.0.0/16');
    expect(step(tj(h.trace(req)), 'node-1', 'HostStack', 'Routed').rule?.rule).toBe(
      '0.0.0.0/0 via 192.168.1.1 dev Ethernet',
    );
  });
});

describe('trace request errors leave everything as it was', () => {
  const cases: [string, unknown, string, number][] = [
    ['an unknown source', { from: 'nosuch', to: 'web-1' }, 'ERROR_NOT_FOUND', ERROR_NOT_FOUND],
    [
      'an unknown protocol name',
      { from: 'client', to: 'web-1', protocol: 'SCTP' },
      'E_INVALIDARG',
      E_INVALIDARG,
    ],
    [
      'a protocol number over 255',
      { from: 'client', to: 'web-1', protocol: 300 },
      'E_INVALIDARG',
      E_INVALIDARG,
    ],
    [
      'a protocol of another type',
      { from: 'client', to: 'web-1', protocol: true },
      'E_INVALIDARG',
      E_INVALIDARG,
    ],
    ['a port as text', { from: 'client', to: 'web-1', destinationPort: '80' }, 'E_INVALIDARG', E_INVALIDARG],
    ['a port out of range', { from: 'client', to: 'web-1', sourcePort: 70000 }, 'E_INVALIDARG', E_INVALIDARG],
    [
      'a fractional port',
      { from: 'client', to: 'web-1', destinationPort: 80.5 },
      'E_INVALIDARG',
      E_INVALIDARG,
    ],
    ['a TTL of 0', { from: 'client', to: 'web-1', ttl: 0 }, 'E_INVALIDARG', E_INVALIDARG],
    ['an unknown field', { from: 'client', to: 'web-1', vlan: 7 }, 'E_INVALIDARG', E_INVALIDARG],
    ['reply as text', { from: 'client', to: 'web-1', reply: 'yes' }, 'E_INVALIDARG', E_INVALIDARG],
  ];

  it.each(cases)('%s: %s', (_what, req, code, hresult) => {
    const { h, client, webs } = lbHost();
    const snap = JSON.stringify(h.snapshot());
    const stats = [client, ...webs].map((id) => v1Stats(h, id));
    const cached = h.flowTable.size;
    for (const run of [() => h.trace(req as TraceRequest), () => h.send(req as TraceRequest)]) {
      const e = thrown(run);
      expect(e.code).toBe(code);
      expect(e.hresult).toBe(hresult);
    }
    expect(JSON.stringify(h.snapshot())).toBe(snap);
    expect([client, ...webs].map((id) => v1Stats(h, id))).toEqual(stats);
    expect(h.flowTable.size).toBe(cached);
  });
});

describe('a load balancer without backends', () => {
  it('a v1 ELB policy list that references no endpoint ends NoBackend at the LB step', () => {
    const { h } = lbHost();
    const r = ok(
      h.api.HNSCall(
        'POST',
        '/policylists',
        JSON.stringify({
          References: [],
          Policies: [{ Type: 'ELB', Protocol: 6, InternalPort: 80, ExternalPort: 81, VIPs: ['10.96.0.51'] }],
        }),
      ),
    );
    expect(r['Success']).toBe(true);
    const t = trace(h, { from: 'client', to: '10.96.0.51', destinationPort: 81 });
    expect(t.disposition).toBe('NoBackend');
    const s = step(t, 'node-1', 'LB', 'NoBackend');
    expect(s.rule).toMatchObject({ kind: 'PolicyList', policy: 'ELB' });
    expect(s.rule?.rule).toMatch(/^LB_[0-9A-F]{8}_10\.96\.0\.51_81_6$/);
    expect(changes(s)).toEqual({});
  });

  it('HNS refuses an HCN load balancer without endpoints (E_INVALIDARG)', () => {
    const { h } = lbHost();
    const r = h.api.HcnCreateLoadBalancer(null, {
      HostComputeEndpoints: [],
      FrontendVIPs: ['10.96.0.52'],
      PortMappings: [{ Protocol: 6, InternalPort: 80, ExternalPort: 80 }],
      SchemaVersion: V2,
    });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.hr).toBe(E_INVALIDARG);
  });
});

// ───────────────────────────── loops and TTL ─────────────────────────────

describe('loops and TTL exhaustion', () => {
  /** The ToR routes 203.0.113.0/24 to win-1, whose default route points back at the ToR. */
  function routerCycle(): Cluster {
    const c = new Cluster({ seed: 1 });
    c.addWindowsNode({ name: 'win-1', network: 'l2bridge' });
    c.addExternalHost({ name: 'bing', ip: '204.79.197.200' });
    c.addRouterRoute('203.0.113.0/24', '10.0.0.10');
    return c;
  }

  /** Two Linux nodes each routing 10.99.0.0/16 to the other. */
  function linuxCycle(): Cluster {
    const c = new Cluster({ seed: 1 });
    c.addLinuxNode({ name: 'lx-1', backend: 'host-gw' });
    c.addLinuxNode({ name: 'lx-2', backend: 'host-gw' });
    c.addPod({ namespace: 'default', name: 'p', node: 'lx-1' });
    const dest = { addr: (10 << 24) | (99 << 16), len: 16, mask: 0xffff0000 };
    c.linux('lx-1').routes = [{ dest, via: (10 << 24) | 11 }];
    c.linux('lx-2').routes = [{ dest, via: (10 << 24) | 10 }];
    return c;
  }

  it('a router ↔ node route cycle ends Loop at the router, the packet having gone round twice', () => {
    const t = tj(routerCycle().trace({ from: 'bing', to: '203.0.113.5' }));
    expect(t.disposition).toBe('Loop');
    expect(t.host).toBe('router');
    expect(steps(t, 'router', 'Routing', 'Forwarded').map((s) => s.rule?.rule)).toEqual([
      '203.0.113.0/24 via 10.0.0.10',
      '203.0.113.0/24 via 10.0.0.10',
    ]);
    expect(steps(t, 'win-1', 'HostStack', 'Forwarded')).toHaveLength(2);
    expect(t.observations.at(-1)).toMatchObject({ host: 'router', component: 'Routing', action: 'Loop' });
  });

  it('the same cycle with TTL 3 ends TtlExceeded, each hop having decremented it', () => {
    const t = tj(routerCycle().trace({ from: 'bing', to: '203.0.113.5', ttl: 3 }));
    expect(t.disposition).toBe('TtlExceeded');
    expect(changes(step(t, 'router', 'Routing', 'Forwarded'))).toEqual({ ttl: [3, 2] });
    // the host forwards with its own MAC as the source: the same step records both changes
    expect(changes(step(t, 'win-1', 'HostStack', 'Forwarded'))).toMatchObject({ ttl: [2, 1] });
    expect(t.observations.at(-1)).toMatchObject({ host: 'router', action: 'TtlExceeded' });
    expect(t.final.ttl).toBe(1);
  });

  it('two Linux nodes routing a prefix to each other: Loop', () => {
    const t = tj(linuxCycle().trace({ from: 'default/p', to: '10.99.0.1' }));
    expect(t.disposition).toBe('Loop');
    expect(steps(t, 'lx-2', 'Routing', 'Forwarded').map((s) => s.rule?.rule)).toContain(
      '10.99.0.0/16 via 10.0.0.10',
    );
  });

  it('two Linux nodes routing a prefix to each other with TTL 4: TtlExceeded', () => {
    const t = tj(linuxCycle().trace({ from: 'default/p', to: '10.99.0.1', ttl: 4 }));
    expect(t.disposition).toBe('TtlExceeded');
    expect(t.final.ttl).toBe(1);
  });
});
