/**
 * The nine supported flows of the Kubernetes Windows networking page (kubernetes-windows.md §1.3),
 * traced across two Windows nodes of each mode the derived table covers:
 * - L2Bridge (flannel host-gw + win-bridge): the MAC is rewritten to the host's on the wire, the
 *   IP stays the same between pods, SNAT to the node IP only towards the outside (§1.2 table,
 *   vfp-dataplane.md §3 and §6);
 * - Overlay (flannel vxlan + win-overlay): an outer header with VNI 4096, UDP 4789 and the node
 *   IPs as outer addresses, the inner packet unchanged (§1.2, §1.7, vfp-dataplane.md §5); Node→Pod
 *   only for local pods (§1.3 table, §1.7).
 * Non-DSR services SNAT to the SourceVIP (node IP on l2bridge, the source VIP on overlay,
 * vfp-dataplane.md §4). Replies are un-NATed back to the VIP / original addresses and pass as
 * established flows (vfp-dataplane.md §1.4). Addresses follow the cluster layout of docs/model.md
 * ("Clusters"): nodes from 10.0.0.10, node i's pods in 10.244.i.0/24 from .3, services from
 * 10.96.0.11 with kube-dns at 10.96.0.10.
 */
import { describe, expect, it } from 'vitest';
import { Cluster, type ClusterOptions } from '../../src/cluster/cluster.js';
import type { JsonObject } from '../../src/core/json.js';
import {
  changes,
  gaps,
  has,
  isDynamicPort,
  step,
  steps,
  tj,
  wire,
  type PacketJ,
  type TraceJ,
} from '../dataplane/trace-kit.js';
import type { TraceRequest } from '../../src/dataplane/trace.js';
import { ok } from '../dataplane/prop-kit.js';

/** The JSON DNS outcome without the trace of the query itself (checked on its own where it matters). */
function omitQuery(d: unknown): unknown {
  if (typeof d !== 'object' || d === null) return d;
  const { query: _q, ...rest } = d as Record<string, unknown>;
  return rest;
}

type Mode = 'l2bridge' | 'overlay';
const MODES: readonly Mode[] = ['l2bridge', 'overlay'];

/** An ACL that allows everything out: with any ACL on an endpoint, what no rule allows is denied. */
const ALLOW_OUT_ONLY: JsonObject = {
  Type: 'ACL',
  Settings: { Action: 'Allow', Direction: 'Out', Priority: 100 },
};

function build(mode: Mode, options: ClusterOptions = {}): Cluster {
  const c = new Cluster({ seed: 1, ...options });
  c.addWindowsNode({ name: 'win-1', network: mode });
  c.addWindowsNode({ name: 'win-2', network: mode });
  c.addCoreDns('win-1');
  c.addPod({ namespace: 'default', name: 'client', node: 'win-1', labels: { app: 'client' } });
  c.addPod({ namespace: 'default', name: 'guarded', node: 'win-1', policies: [ALLOW_OUT_ONLY] });
  c.addPod({
    namespace: 'default',
    name: 'web',
    node: 'win-2',
    labels: { app: 'web' },
    hostname: 'web-0',
    subdomain: 'web-hl',
  });
  c.addPod({ namespace: 'default', name: 'other', node: 'win-2' });
  c.addService({
    namespace: 'default',
    name: 'web',
    ports: [{ port: 80, targetPort: 8080 }],
    selector: { app: 'web' },
  });
  c.addService({
    namespace: 'default',
    name: 'web-hl',
    clusterIP: 'None',
    ports: [{ port: 8080 }],
    selector: { app: 'web' },
  });
  c.addExternalHost({ name: 'bing', ip: '204.79.197.200', dnsName: 'www.bing.com' });
  return c;
}

function trace(c: Cluster, req: TraceRequest): TraceJ {
  return tj(c.trace(req));
}

/** The node's MAC on the wire: its management vNIC's, as Get-NetAdapter shows it. */
function hostMac(c: Cluster, node: string): string {
  const a = c
    .host(node)
    .adapters()
    .find((x) => x['Name'] === 'vEthernet (Ethernet)');
  return String(a?.['MacAddress']);
}

function endpointId(c: Cluster, pod: string): string {
  return c.pod(pod)!.endpointId!;
}

/** A pod's MAC as HNS reports its endpoint. */
function podMac(c: Cluster, pod: string): string {
  const p = c.pod(pod)!;
  return String(ok(c.host(p.node).api.HcnQueryEndpointProperties(p.endpointId, null))['MacAddress']);
}

/** An overlay network's distributed-router MAC (its DrMacAddress policy). */
function drMac(c: Cluster, node: string): string {
  const h = c.host(node);
  const [id] = ok(h.api.HcnEnumerateNetworks(null)) as unknown as string[];
  const net = ok(h.api.HcnQueryNetworkProperties(id, null));
  const p = (net['Policies'] as JsonObject[]).find((x) => x['Type'] === 'DrMacAddress');
  return String((p?.['Settings'] as JsonObject)['Address']);
}

function addresses(p: PacketJ): Pick<PacketJ, 'srcIp' | 'dstIp' | 'srcPort' | 'dstPort'> {
  return { srcIp: p.srcIp, dstIp: p.dstIp, srcPort: p.srcPort, dstPort: p.dstPort };
}

/** The inner packet's L3/L4 fields (what "inner packet unchanged" speaks of). */
function inner(p: PacketJ): Omit<PacketJ, 'srcMac' | 'dstMac' | 'outer'> {
  return {
    srcIp: p.srcIp,
    dstIp: p.dstIp,
    protocol: p.protocol,
    srcPort: p.srcPort,
    dstPort: p.dstPort,
    ttl: p.ttl,
  };
}

describe.each(MODES)('the cluster layout (%s)', (mode) => {
  it('places nodes, pods and services as docs/model.md describes', () => {
    const c = build(mode);
    expect(c.pod('kube-system/coredns-0')!.ip).toBe('10.244.1.3');
    expect(c.pod('default/client')!.ip).toBe('10.244.1.4');
    expect(c.pod('default/guarded')!.ip).toBe('10.244.1.5');
    expect(c.pod('default/web')!.ip).toBe('10.244.2.3');
    expect(c.pod('default/other')!.ip).toBe('10.244.2.4');
    for (const [node, ip] of [
      ['win-1', '10.0.0.10'],
      ['win-2', '10.0.0.11'],
    ] as const) {
      const a = c
        .host(node)
        .adapters()
        .find((x) => x['Name'] === 'vEthernet (Ethernet)');
      expect(a?.['IPv4Address']).toBe(ip);
    }
    expect(trace(c, { from: 'default/client', to: 'svc:default/web' }).packet.dstIp).toBe('10.96.0.11');
  });
});

// ───────────────────────────── flows that do not depend on the mode ─────────────────────────────

describe.each(MODES)('flows 2, 4, 5, 7: names from a Windows pod (%s)', (mode) => {
  const c = build(mode);

  it('Pod → Pod (name): the pod DNS name a-b-c-d.ns.pod.cluster.local resolves and is delivered', () => {
    const r = c.trace({ from: 'default/client', to: '10-244-2-3.default.pod.cluster.local' });
    const t = tj(r);
    expect(omitQuery(t.dns)).toEqual({
      name: '10-244-2-3.default.pod.cluster.local',
      tried: ['10-244-2-3.default.pod.cluster.local'],
      fqdn: '10-244-2-3.default.pod.cluster.local',
      address: '10.244.2.3',
    });
    expect(t.observations[0]).toMatchObject({ host: 'win-1', component: 'DNS', action: 'Resolved' });
    expect(t.disposition).toBe('Delivered');
    expect(t.at).toBe(`endpoint:${endpointId(c, 'default/web')}`);
    expect(addresses(t.final)).toEqual({
      srcIp: '10.244.1.4',
      dstIp: '10.244.2.3',
      srcPort: 50000,
      dstPort: 80,
    });
    // the query itself: UDP 53 to the kube-dns VIP, load-balanced to CoreDNS on win-1
    const q = tj(r.dns!.query!);
    expect(q.disposition).toBe('Delivered');
    expect(q.at).toBe(`endpoint:${endpointId(c, 'kube-system/coredns-0')}`);
    expect(q.packet).toMatchObject({ srcIp: '10.244.1.4', dstIp: '10.96.0.10', protocol: 17, dstPort: 53 });
    expect(q.final).toMatchObject({ dstIp: '10.244.1.3', dstPort: 53 });
    expect(step(q, 'win-1', 'LB').rule?.rule).toMatch(/^LB_[0-9A-F]{8}_10\.96\.0\.10_53_17$/);
  });

  it('Pod → Pod (name): a headless service hostname <hostname>.<subdomain>.<ns>.svc resolves to the pod', () => {
    const t = trace(c, {
      from: 'default/client',
      to: 'web-0.web-hl.default.svc.cluster.local',
      destinationPort: 8080,
    });
    expect(t.dns).toMatchObject({ fqdn: 'web-0.web-hl.default.svc.cluster.local', address: '10.244.2.3' });
    expect(t.disposition).toBe('Delivered');
    expect(t.at).toBe(`endpoint:${endpointId(c, 'default/web')}`);
    // a headless name is the pod's own address: no load balancer on the way
    expect(has(t, 'LB')).toBe(false);
  });

  it('Pod → Service (PQDN): a name without a dot gets the namespace suffix (only the first)', () => {
    const t = trace(c, { from: 'default/client', to: 'web' });
    expect(omitQuery(t.dns)).toEqual({
      name: 'web',
      tried: ['web.default.svc.cluster.local'],
      fqdn: 'web.default.svc.cluster.local',
      address: '10.96.0.11',
    });
    expect(t.disposition).toBe('Delivered');
    expect(t.at).toBe(`endpoint:${endpointId(c, 'default/web')}`);
    expect(step(t, 'win-1', 'LB').rule?.rule).toMatch(/^LB_[0-9A-F]{8}_10\.96\.0\.11_80_6$/);
  });

  it.each(['web.default', 'web.default.svc'])(
    'Pod → Service (PQDN) with a dot: %s is NameNotResolved, tried only as given',
    (name) => {
      const t = trace(c, { from: 'default/client', to: name });
      expect(t.disposition).toBe('NameNotResolved');
      expect(t.dns?.tried).toEqual([name]);
      expect(t.dns?.reason).toContain('treats it as fully qualified');
      const last = t.observations.at(-1)!;
      expect(last).toMatchObject({ host: 'win-1', component: 'DNS', action: 'NotResolved' });
      // nothing was sent towards a service: the name never became an address
      expect(t.final.dstIp).toBe('0.0.0.0');
    },
  );

  it('Pod → Service (FQDN): web.default.svc.cluster.local resolves as given and is load-balanced', () => {
    const t = trace(c, { from: 'default/client', to: 'web.default.svc.cluster.local' });
    expect(t.dns).toMatchObject({ tried: ['web.default.svc.cluster.local'], address: '10.96.0.11' });
    expect(t.disposition).toBe('Delivered');
    expect(t.at).toBe(`endpoint:${endpointId(c, 'default/web')}`);
    expect(t.final).toMatchObject({ dstIp: '10.244.2.3', dstPort: 8080 });
  });

  it('Pod → external (DNS): www.bing.com resolves upstream and leaves SNATed to the node IP', () => {
    const t = trace(c, { from: 'default/client', to: 'www.bing.com' });
    expect(omitQuery(t.dns)).toEqual({
      name: 'www.bing.com',
      tried: ['www.bing.com'],
      fqdn: 'www.bing.com',
      address: '204.79.197.200',
    });
    expect(t.disposition).toBe('Delivered');
    expect(t.at).toBe('external:204.79.197.200');
    expect(step(t, 'win-1', 'NAT', 'SNAT').rule?.rule).toBe('SNAT_TCP_OUTBOUNDNAT_10.244.1.4_10.0.0.10');
    expect(t.final.srcIp).toBe('10.0.0.10');
  });

  it('a reply is an established flow: it passes an endpoint whose ACLs deny every new inbound packet', () => {
    // guarded (10.244.1.5) allows only Out: a new connection to it is denied …
    const fresh = trace(c, { from: 'default/other', to: '10.244.1.5' });
    expect(fresh.disposition).toBe('DeniedIn');
    expect(step(fresh, 'win-1', 'ACL', 'Denied').rule).toMatchObject({
      policy: 'ACL',
      layer: 'ACL_ENDPOINT_LAYER',
    });
    // … but the reply of its own connection comes in without any ACL evaluation
    const t = trace(c, { from: 'default/guarded', to: '10.244.2.4', reply: true });
    expect(t.disposition).toBe('Delivered');
    expect(step(t, 'win-1', 'ACL', 'Allowed').rule).toMatchObject({
      policy: 'ACL',
      layer: 'ACL_ENDPOINT_LAYER',
    });
    const r = t.reply!;
    expect(r.disposition).toBe('Delivered');
    expect(r.at).toBe(`endpoint:${endpointId(c, 'default/guarded')}`);
    expect(has(r, 'ACL')).toBe(false);
    expect(steps(r, 'win-1', 'Conntrack', 'Established')).toHaveLength(1);
    expect(addresses(r.final)).toEqual({
      srcIp: '10.244.2.4',
      dstIp: '10.244.1.5',
      srcPort: 80,
      dstPort: 50000,
    });
  });
});

// ───────────────────────────── L2Bridge ─────────────────────────────

describe('L2Bridge (flannel host-gw + win-bridge): the nine flows', () => {
  const c = build('l2bridge');
  const mac1 = hostMac(c, 'win-1');
  const mac2 = hostMac(c, 'win-2');

  it('Pod → Pod (IP): no SNAT, host-gw route, host MAC on the wire, container MAC back on arrival', () => {
    const t = trace(c, { from: 'default/client', to: '10.244.2.3', reply: true });
    expect(t.disposition).toBe('Delivered');
    expect(t.at).toBe(`endpoint:${endpointId(c, 'default/web')}`);
    // OutBoundNAT: the pod CIDR is an exception
    expect(step(t, 'win-1', 'NAT', 'Excepted').rule).toMatchObject({
      policy: 'OutBoundNAT',
      rule: 'EXCEPTION',
    });
    expect(has(t, 'NAT', 'SNAT')).toBe(false);
    expect(has(t, 'Encap')).toBe(false);
    // flannel host-gw: the remote pod subnet is routed to the other node
    expect(step(t, 'win-1', 'HostStack', 'Forwarded').rule?.rule).toBe(
      '10.244.2.0/24 via 10.0.0.11 dev vEthernet (Ethernet)',
    );
    const onWire = wire(t, 'win-1');
    expect(onWire.srcMac).toBe(mac1);
    expect(onWire.outer).toBeUndefined();
    expect(addresses(onWire)).toEqual({
      srcIp: '10.244.1.4',
      dstIp: '10.244.2.3',
      srcPort: 50000,
      dstPort: 80,
    });
    // ingress: host MAC → container MAC
    const rw = step(t, 'win-2', 'MacRewrite', 'Rewritten');
    expect(rw.rule).toMatchObject({
      kind: 'Network',
      layer: 'VNET_MAC_REWRITE_LAYER',
      rule: 'MAC_REWRITE_HOST',
    });
    expect(changes(rw)).toEqual({ dstMac: [mac2, podMac(c, 'default/web')] });
    expect(addresses(t.final)).toEqual(addresses(onWire));

    const r = t.reply!;
    expect(r.disposition).toBe('Delivered');
    expect(r.at).toBe(`endpoint:${endpointId(c, 'default/client')}`);
    expect(wire(r, 'win-2').srcMac).toBe(mac2);
    expect(step(r, 'win-1', 'MacRewrite', 'Rewritten').packetAfter.dstMac).toBe(podMac(c, 'default/client'));
    expect(steps(r, 'win-1', 'Conntrack', 'Established')).toHaveLength(1);
    expect(has(r, 'ACL')).toBe(false);
    expect(addresses(r.final)).toEqual({
      srcIp: '10.244.2.3',
      dstIp: '10.244.1.4',
      srcPort: 80,
      dstPort: 50000,
    });
  });

  // Regression (fixed; was trace recording, src/dataplane/plane.ts HostPlane.routeOut → wire): the host stack puts
  // the uplink's MAC on the frame (`withPacket(p, { srcMac: out.mac || this.hostMac() })`) between
  // its `HostStack Forwarded` step and its `Port Transmitted` step, so no step records the L2Bridge
  // MAC rewrite on the way out; the same silent change happens in switchTo's Hairpin (dstMac) and
  // in routeOut → hostToPort (srcMac).
  it('Pod → Pod (IP): a step on win-1 records the container MAC → host MAC rewrite', () => {
    const t = trace(c, { from: 'default/client', to: '10.244.2.3' });
    const client = podMac(c, 'default/client');
    const rewrite = steps(t, 'win-1').filter(
      (s) => s.packetBefore.srcMac === client && s.packetAfter.srcMac === mac1,
    );
    expect(rewrite).toHaveLength(1);
    expect(gaps(t)).toEqual([]);
  });

  it('Pod → Service (ClusterIP): DNAT to the remote backend, SNAT to the node IP (non-DSR SourceVIP); the reply comes back from the VIP', () => {
    const t = trace(c, { from: 'default/client', to: 'svc:default/web', reply: true });
    expect(t.disposition).toBe('Delivered');
    expect(t.at).toBe(`endpoint:${endpointId(c, 'default/web')}`);
    const lb = step(t, 'win-1', 'LB', 'DNAT+SNAT');
    expect(lb.rule).toMatchObject({ kind: 'LoadBalancer', layer: 'SLB_NAT_LAYER' });
    expect(lb.rule?.rule).toMatch(/^LB_[0-9A-F]{8}_10\.96\.0\.11_80_6$/);
    const ch = changes(lb);
    expect(ch).toEqual({
      srcIp: ['10.244.1.4', '10.0.0.10'],
      srcPort: [50000, expect.any(Number)],
      dstIp: ['10.96.0.11', '10.244.2.3'],
      dstPort: [80, 8080],
    });
    expect(isDynamicPort(ch['srcPort']![1])).toBe(true);
    expect(wire(t, 'win-1')).toMatchObject({
      srcMac: mac1,
      srcIp: '10.0.0.10',
      dstIp: '10.244.2.3',
      dstPort: 8080,
    });
    expect(t.final).toMatchObject({ srcIp: '10.0.0.10', dstIp: '10.244.2.3', dstPort: 8080 });

    const r = t.reply!;
    expect(r.disposition).toBe('Delivered');
    expect(r.at).toBe(`endpoint:${endpointId(c, 'default/client')}`);
    const un = step(r, 'win-1', 'NAT', 'UnNAT');
    expect(un.rule?.rule).toBe(lb.rule?.rule);
    expect(changes(un)).toEqual({
      srcIp: ['10.244.2.3', '10.96.0.11'],
      srcPort: [8080, 80],
      dstIp: ['10.0.0.10', '10.244.1.4'],
      dstPort: [ch['srcPort']![1], 50000],
    });
    expect(addresses(r.final)).toEqual({
      srcIp: '10.96.0.11',
      dstIp: '10.244.1.4',
      srcPort: 80,
      dstPort: 50000,
    });
  });

  it('Pod → external (IP): OutBoundNAT SNAT to the node IP, the host MAC on the wire; the reply is un-SNATed', () => {
    const t = trace(c, { from: 'default/client', to: '204.79.197.200', reply: true });
    expect(t.disposition).toBe('Delivered');
    expect(t.at).toBe('external:204.79.197.200');
    const snat = step(t, 'win-1', 'NAT', 'SNAT');
    expect(snat.rule).toMatchObject({
      kind: 'Endpoint',
      id: endpointId(c, 'default/client'),
      policy: 'OutBoundNAT',
      layer: 'SLB_NAT_LAYER',
      rule: 'SNAT_TCP_OUTBOUNDNAT_10.244.1.4_10.0.0.10',
    });
    const ch = changes(snat);
    expect(ch).toEqual({ srcIp: ['10.244.1.4', '10.0.0.10'], srcPort: [50000, expect.any(Number)] });
    expect(isDynamicPort(ch['srcPort']![1])).toBe(true);
    expect(wire(t, 'win-1')).toMatchObject({ srcMac: mac1, srcIp: '10.0.0.10', dstIp: '204.79.197.200' });
    expect(t.final).toMatchObject({ srcIp: '10.0.0.10', dstIp: '204.79.197.200', dstPort: 80 });

    const r = t.reply!;
    expect(r.disposition).toBe('Delivered');
    expect(r.at).toBe(`endpoint:${endpointId(c, 'default/client')}`);
    const un = step(r, 'win-1', 'NAT', 'UnSNAT');
    expect(un.rule?.rule).toBe('SNAT_TCP_OUTBOUNDNAT_10.244.1.4_10.0.0.10');
    expect(changes(un)).toEqual({ dstIp: ['10.0.0.10', '10.244.1.4'], dstPort: [ch['srcPort']![1], 50000] });
    expect(has(r, 'ACL')).toBe(false);
    expect(addresses(r.final)).toEqual({
      srcIp: '204.79.197.200',
      dstIp: '10.244.1.4',
      srcPort: 80,
      dstPort: 50000,
    });
  });

  it('Node → Pod: the local pod through cbr0_ep (source .2), the remote pod by the host-gw route', () => {
    const local = trace(c, { from: 'win-1', to: 'default/client', reply: true });
    expect(local.disposition).toBe('Delivered');
    expect(local.at).toBe(`endpoint:${endpointId(c, 'default/client')}`);
    expect(step(local, 'win-1', 'HostStack', 'Routed').rule?.rule).toBe(
      '10.244.1.0/24 via on-link dev vEthernet (cbr0_ep)',
    );
    expect(addresses(local.final)).toEqual({
      srcIp: '10.244.1.2',
      dstIp: '10.244.1.4',
      srcPort: 50000,
      dstPort: 80,
    });
    expect(local.reply).toMatchObject({ disposition: 'Delivered', at: 'host' });

    const remote = trace(c, { from: 'win-1', to: 'default/web', reply: true });
    expect(remote.disposition).toBe('Delivered');
    expect(remote.at).toBe(`endpoint:${endpointId(c, 'default/web')}`);
    expect(step(remote, 'win-1', 'HostStack', 'Routed').rule?.rule).toBe(
      '10.244.2.0/24 via 10.0.0.11 dev vEthernet (Ethernet)',
    );
    expect(wire(remote, 'win-1')).toMatchObject({ srcMac: mac1, srcIp: '10.0.0.10', dstIp: '10.244.2.3' });
    expect(has(remote, 'NAT')).toBe(false);
    expect(remote.reply).toMatchObject({ disposition: 'Delivered', at: 'host', host: 'win-1' });
  });

  it('Pod → Node: the other node with the pod IP (management subnet excepted); its own node by the /32 NeedEncap route', () => {
    const other = trace(c, { from: 'default/client', to: 'win-2', reply: true });
    expect(other.disposition).toBe('Delivered');
    expect(other).toMatchObject({ host: 'win-2', at: 'host' });
    expect(step(other, 'win-1', 'NAT', 'Excepted').rule?.policy).toBe('OutBoundNAT');
    expect(wire(other, 'win-1')).toMatchObject({ srcMac: mac1, srcIp: '10.244.1.4', dstIp: '10.0.0.11' });
    expect(addresses(other.final)).toEqual({
      srcIp: '10.244.1.4',
      dstIp: '10.0.0.11',
      srcPort: 50000,
      dstPort: 80,
    });
    expect(other.reply).toMatchObject({
      disposition: 'Delivered',
      at: `endpoint:${endpointId(c, 'default/client')}`,
    });

    const own = trace(c, { from: 'default/client', to: 'win-1', reply: true });
    expect(own).toMatchObject({ disposition: 'Delivered', host: 'win-1', at: 'host' });
    expect(step(own, 'win-1', 'Routing', 'ToHost').rule).toMatchObject({
      policy: 'SDNRoute',
      layer: 'VNET_PA_ROUTE_LAYER',
      rule: 'ROUTE_10.0.0.10/32_ENCAP',
    });
    expect(own.final.srcIp).toBe('10.244.1.4');
    expect(own.reply?.disposition).toBe('Delivered');
  });
});

// ───────────────────────────── Overlay ─────────────────────────────

describe('Overlay (flannel vxlan + win-overlay): the nine flows', () => {
  const c = build('overlay');
  const mac1 = hostMac(c, 'win-1');
  const dr1 = drMac(c, 'win-1');
  const dr2 = drMac(c, 'win-2');

  it('Pod → Pod (IP): VXLAN VNI 4096 / UDP 4789 between the node IPs by the RemoteSubnetRoute; the inner packet unchanged', () => {
    const t = trace(c, { from: 'default/client', to: '10.244.2.4', reply: true });
    expect(t.disposition).toBe('Delivered');
    expect(t.at).toBe(`endpoint:${endpointId(c, 'default/other')}`);
    expect(step(t, 'win-1', 'NAT', 'Excepted').rule?.policy).toBe('OutBoundNAT');
    const e = step(t, 'win-1', 'Encap', 'Encapsulated');
    expect(e.rule).toMatchObject({
      kind: 'Network',
      policy: 'RemoteSubnetRoute',
      layer: 'VNET_ENCAP_LAYER',
      rule: 'ENCAP_10.244.2.0/24_10.0.0.11_4096',
    });
    expect(e.packetBefore.outer).toBeUndefined();
    expect(e.packetAfter.outer).toMatchObject({
      srcMac: mac1,
      srcIp: '10.0.0.10',
      dstIp: '10.0.0.11',
      dstPort: 4789,
      vni: 4096,
    });
    expect(isDynamicPort(e.packetAfter.outer!.srcPort)).toBe(true);
    expect(inner(e.packetAfter)).toEqual({
      srcIp: '10.244.1.4',
      dstIp: '10.244.2.4',
      protocol: 6,
      srcPort: 50000,
      dstPort: 80,
      ttl: 128,
    });
    // the inner frame is addressed to the remote network's DR MAC (flannel: "decap works at L2")
    expect(e.packetAfter.dstMac).toBe(dr2);
    expect(wire(t, 'win-1').outer).toMatchObject({
      srcIp: '10.0.0.10',
      dstIp: '10.0.0.11',
      dstPort: 4789,
      vni: 4096,
    });
    const d = step(t, 'win-2', 'Decap', 'Decapsulated');
    expect(d.detail).toBe('VXLAN VNI 4096');
    expect(d.packetAfter.outer).toBeUndefined();
    expect(inner(d.packetAfter)).toEqual(inner(e.packetAfter));
    expect(inner(t.final)).toEqual(inner(e.packetBefore));
    expect(t.final.dstMac).toBe('0E-2A-0A-F4-02-04');

    const r = t.reply!;
    expect(r.disposition).toBe('Delivered');
    expect(r.at).toBe(`endpoint:${endpointId(c, 'default/client')}`);
    const back = step(r, 'win-2', 'Encap', 'Encapsulated');
    expect(back.rule?.rule).toBe('ENCAP_10.244.1.0/24_10.0.0.10_4096');
    expect(back.packetAfter.outer).toMatchObject({
      srcIp: '10.0.0.11',
      dstIp: '10.0.0.10',
      dstPort: 4789,
      vni: 4096,
    });
    expect(back.packetAfter.dstMac).toBe(dr1);
    expect(steps(r, 'win-1', 'Decap', 'Decapsulated')).toHaveLength(1);
    expect(steps(r, 'win-1', 'Conntrack', 'Established')).toHaveLength(1);
    expect(has(r, 'ACL')).toBe(false);
    expect(addresses(r.final)).toEqual({
      srcIp: '10.244.2.4',
      dstIp: '10.244.1.4',
      srcPort: 80,
      dstPort: 50000,
    });
  });

  it('Pod → Pod (IP) to a service backend: encapsulated by kube-proxy remote endpoint (ProviderAddress) to the same node', () => {
    const t = trace(c, { from: 'default/client', to: '10.244.2.3' });
    expect(t.disposition).toBe('Delivered');
    const e = step(t, 'win-1', 'Encap', 'Encapsulated');
    expect(e.rule).toMatchObject({
      kind: 'Endpoint',
      policy: 'ProviderAddress',
      rule: 'ENCAP_10.244.2.3/32_10.0.0.11_4096',
    });
    expect(e.packetAfter.outer).toMatchObject({
      srcIp: '10.0.0.10',
      dstIp: '10.0.0.11',
      dstPort: 4789,
      vni: 4096,
    });
    expect(inner(t.final)).toEqual(inner(e.packetBefore));
  });

  it('Pod → Service (ClusterIP): DNAT to the backend, SNAT to the source VIP, then VXLAN; the reply comes back from the VIP', () => {
    const t = trace(c, { from: 'default/client', to: 'svc:default/web', reply: true });
    expect(t.disposition).toBe('Delivered');
    expect(t.at).toBe(`endpoint:${endpointId(c, 'default/web')}`);
    const lb = step(t, 'win-1', 'LB', 'DNAT+SNAT');
    expect(lb.rule).toMatchObject({ kind: 'LoadBalancer', layer: 'SLB_NAT_LAYER' });
    expect(lb.rule?.rule).toMatch(/^LB_[0-9A-F]{8}_10\.96\.0\.11_80_6$/);
    const ch = changes(lb);
    expect(ch).toEqual({
      srcIp: ['10.244.1.4', '10.244.1.2'],
      srcPort: [50000, expect.any(Number)],
      dstIp: ['10.96.0.11', '10.244.2.3'],
      dstPort: [80, 8080],
    });
    const e = step(t, 'win-1', 'Encap', 'Encapsulated');
    expect(e.packetAfter.outer).toMatchObject({
      srcIp: '10.0.0.10',
      dstIp: '10.0.0.11',
      dstPort: 4789,
      vni: 4096,
    });
    expect(inner(e.packetAfter)).toEqual(inner(lb.packetAfter));
    expect(t.final).toMatchObject({ srcIp: '10.244.1.2', dstIp: '10.244.2.3', dstPort: 8080 });

    const r = t.reply!;
    expect(r.disposition).toBe('Delivered');
    expect(r.at).toBe(`endpoint:${endpointId(c, 'default/client')}`);
    expect(step(r, 'win-2', 'Encap', 'Encapsulated').packetAfter.outer).toMatchObject({
      dstIp: '10.0.0.10',
      vni: 4096,
    });
    const un = step(r, 'win-1', 'NAT', 'UnNAT');
    expect(un.rule?.rule).toBe(lb.rule?.rule);
    expect(addresses(r.final)).toEqual({
      srcIp: '10.96.0.11',
      dstIp: '10.244.1.4',
      srcPort: 80,
      dstPort: 50000,
    });
  });

  it('Pod → external (IP): SNAT to the node IP, container MAC → host MAC, no outer header; the reply is un-SNATed', () => {
    const t = trace(c, { from: 'default/client', to: '204.79.197.200', reply: true });
    expect(t.disposition).toBe('Delivered');
    expect(t.at).toBe('external:204.79.197.200');
    const snat = step(t, 'win-1', 'NAT', 'SNAT');
    expect(snat.rule).toMatchObject({
      policy: 'OutBoundNAT',
      rule: 'SNAT_TCP_OUTBOUNDNAT_10.244.1.4_10.0.0.10',
    });
    expect(changes(snat)).toEqual({
      srcIp: ['10.244.1.4', '10.0.0.10'],
      srcPort: [50000, expect.any(Number)],
    });
    const rw = step(t, 'win-1', 'MacRewrite', 'Rewritten');
    expect(rw.rule).toMatchObject({ layer: 'VNET_MAC_REWRITE_LAYER', rule: 'MAC_REWRITE_HOST' });
    expect(changes(rw)).toEqual({ srcMac: ['0E-2A-0A-F4-01-04', mac1] });
    expect(has(t, 'Encap')).toBe(false);
    expect(wire(t, 'win-1').outer).toBeUndefined();
    expect(t.final).toMatchObject({ srcIp: '10.0.0.10', dstIp: '204.79.197.200' });

    const r = t.reply!;
    expect(r.disposition).toBe('Delivered');
    expect(step(r, 'win-1', 'NAT', 'UnSNAT').rule?.rule).toBe('SNAT_TCP_OUTBOUNDNAT_10.244.1.4_10.0.0.10');
    expect(addresses(r.final)).toEqual({
      srcIp: '204.79.197.200',
      dstIp: '10.244.1.4',
      srcPort: 80,
      dstPort: 50000,
    });
  });

  it('Node → Pod: the local pod through the HostRoute; a remote pod is not reached (flannel VXLAN: local pods only)', () => {
    const local = trace(c, { from: 'win-1', to: 'default/client', reply: true });
    expect(local.disposition).toBe('Delivered');
    expect(local.at).toBe(`endpoint:${endpointId(c, 'default/client')}`);
    expect(step(local, 'win-1', 'HostStack', 'Routed').rule?.rule).toBe(
      '10.244.1.0/24 via on-link dev vEthernet (Ethernet)',
    );
    expect(addresses(local.final)).toEqual({
      srcIp: '10.0.0.10',
      dstIp: '10.244.1.4',
      srcPort: 50000,
      dstPort: 80,
    });
    expect(local.reply).toMatchObject({ disposition: 'Delivered', at: 'host' });
    expect(step(local.reply!, 'win-1', 'Routing', 'ToHost').rule?.policy).toBe('HostRoute');

    const remote = trace(c, { from: 'win-1', to: 'default/other' });
    expect(remote.disposition).not.toBe('Delivered');
    expect(has(remote, 'Encap')).toBe(false);
    expect(steps(remote, 'win-2')).toEqual([]);
  });

  it('Pod → Node: the other node, SNATed to the node IP (only the pod and service CIDRs are exceptions); its own node by the HostRoute', () => {
    const other = trace(c, { from: 'default/client', to: 'win-2', reply: true });
    expect(other).toMatchObject({ disposition: 'Delivered', host: 'win-2', at: 'host' });
    expect(step(other, 'win-1', 'NAT', 'SNAT').rule?.rule).toBe('SNAT_TCP_OUTBOUNDNAT_10.244.1.4_10.0.0.10');
    expect(wire(other, 'win-1')).toMatchObject({ srcMac: mac1, srcIp: '10.0.0.10', dstIp: '10.0.0.11' });
    expect(wire(other, 'win-1').outer).toBeUndefined();
    expect(other.reply).toMatchObject({
      disposition: 'Delivered',
      at: `endpoint:${endpointId(c, 'default/client')}`,
    });
    expect(step(other.reply!, 'win-1', 'NAT', 'UnSNAT').packetAfter.dstIp).toBe('10.244.1.4');

    const own = trace(c, { from: 'default/client', to: 'win-1', reply: true });
    expect(own).toMatchObject({ disposition: 'Delivered', host: 'win-1', at: 'host' });
    expect(step(own, 'win-1', 'Routing', 'ToHost').rule).toMatchObject({
      kind: 'Network',
      policy: 'HostRoute',
    });
    expect(own.reply?.disposition).toBe('Delivered');
  });
});
