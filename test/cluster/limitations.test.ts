/**
 * The documented limitations and their troubleshooting entries (kubernetes-windows.md §1.5, §1.6,
 * §1.7, §1.9; vfp-dataplane.md §3, §4, §6), traced on two-node clusters of both modes and, for MAC
 * spoofing, on a single host:
 * - outbound ICMP is not transposed by OutBoundNAT ("Use curl instead of ping"), ping inside the
 *   network works;
 * - the external target must not be in the ExceptionList, "otherwise there is no SNAT" and the reply
 *   has no way back;
 * - a node cannot reach its own NodePort; other nodes and external clients can;
 * - MAC spoofing must be allowed for Transparent containers (L2Bridge rewrites the MAC);
 * - DSR: a pod reaching a service backed only by itself needs loopback DSR; DSR keeps the client
 *   IP (non-DSR backends see the SourceVIP); externalTrafficPolicy Local keeps it on NodePorts
 *   (DSR whenever HNS has DSR), except on an HNS without DSR ("Local traffic policy in non-DSR
 *   mode");
 * - a service without endpoints has no load balancer (kube-proxy skips it, §2.4 step 7.7); on
 *   overlay its VIP is still a remote endpoint pointing at the node (step 7.1).
 */
import { describe, expect, it } from 'vitest';
import { Cluster, type ClusterOptions, type ServiceSpec } from '../../src/cluster/cluster.js';
import type { JsonObject } from '../../src/core/json.js';
import type { TraceRequest } from '../../src/dataplane/trace.js';
import { createHost, type Host } from '../../src/host/host.js';
import { changes, gaps, has, step, steps, tj, wire, type TraceJ } from '../dataplane/trace-kit.js';
import { ok } from '../dataplane/prop-kit.js';

type Mode = 'l2bridge' | 'overlay';
const MODES: readonly Mode[] = ['l2bridge', 'overlay'];
const V2 = { Major: 2, Minor: 0 };

interface Fixture {
  readonly mode?: Mode;
  readonly options?: ClusterOptions;
  readonly web?: Partial<ServiceSpec>;
}

/**
 * win-1: coredns-0 .3, client .4 (app=client); win-2: web .3 (app=web). Services: kube-dns
 * 10.96.0.10, web 10.96.0.11 (NodePort 30080 → 8080), self 10.96.0.12 (backed by client only),
 * empty 10.96.0.13 (no endpoints). bing 204.79.197.200 outside.
 */
function build({ mode = 'l2bridge', options = {}, web = {} }: Fixture = {}): Cluster {
  const c = new Cluster({ seed: 1, ...options });
  c.addWindowsNode({ name: 'win-1', network: mode });
  c.addWindowsNode({ name: 'win-2', network: mode });
  c.addCoreDns('win-1');
  c.addPod({ namespace: 'default', name: 'client', node: 'win-1', labels: { app: 'client' } });
  c.addPod({ namespace: 'default', name: 'web', node: 'win-2', labels: { app: 'web' } });
  c.addService({
    namespace: 'default',
    name: 'web',
    type: 'NodePort',
    ports: [{ port: 80, targetPort: 8080, nodePort: 30080 }],
    selector: { app: 'web' },
    ...web,
  });
  c.addService({
    namespace: 'default',
    name: 'self',
    ports: [{ port: 81, targetPort: 8081 }],
    selector: { app: 'client' },
  });
  c.addService({ namespace: 'default', name: 'empty', ports: [{ port: 82 }], selector: { app: 'nothing' } });
  c.addExternalHost({ name: 'bing', ip: '204.79.197.200', dnsName: 'www.bing.com' });
  return c;
}

function trace(c: Cluster, req: TraceRequest): TraceJ {
  return tj(c.trace(req));
}

function endpointId(c: Cluster, pod: string): string {
  return c.pod(pod)!.endpointId!;
}

/** The OutBoundNAT exceptions the CNI gave an endpoint. */
function exceptions(c: Cluster, pod: string): string[] {
  const p = c.pod(pod)!;
  const ep = ok(c.host(p.node).api.HcnQueryEndpointProperties(p.endpointId, null));
  const nat = (ep['Policies'] as JsonObject[]).find((x) => x['Type'] === 'OutBoundNAT');
  return (nat?.['Settings'] as JsonObject)['Exceptions'] as string[];
}

describe.each(MODES)('the fixture (%s)', (mode) => {
  it('has the addresses the tests below use', () => {
    const c = build({ mode });
    expect([c.pod('default/client')!.ip, c.pod('default/web')!.ip]).toEqual(['10.244.1.4', '10.244.2.3']);
    for (const [svc, vip] of [
      ['web', '10.96.0.11'],
      ['self', '10.96.0.12'],
      ['empty', '10.96.0.13'],
    ] as const)
      expect(trace(c, { from: 'default/client', to: `svc:default/${svc}` }).packet.dstIp).toBe(vip);
  });
});

// ───────────────────────────── ICMP ─────────────────────────────

describe.each(MODES)(
  'ICMP (%s): "ping inside the same network works; ping to remote networks is not transposed"',
  (mode) => {
    const c = build({ mode });

    it('a ping to the outside ends Unsupported at the OutBoundNAT step and never reaches the wire', () => {
      const t = trace(c, { from: 'default/client', to: '204.79.197.200', protocol: 'ICMP' });
      expect(t.disposition).toBe('Unsupported');
      expect(t.host).toBe('win-1');
      const s = step(t, 'win-1', 'NAT', 'Unsupported');
      expect(s.rule).toMatchObject({
        kind: 'Endpoint',
        id: endpointId(c, 'default/client'),
        policy: 'OutBoundNAT',
        layer: 'SLB_NAT_LAYER',
      });
      expect(s.detail).toContain('ICMP');
      expect(changes(s)).toEqual({});
      expect(steps(t, 'win-1', 'Port', 'Transmitted')).toEqual([]);
      expect(t.observations.at(-1)).toBe(t.observations.find((o) => o.action === 'Unsupported'));
    });

    it('the same ping as TCP (curl) leaves, SNATed', () => {
      const t = trace(c, { from: 'default/client', to: '204.79.197.200', protocol: 'TCP' });
      expect(t.disposition).toBe('Delivered');
      expect(t.final.srcIp).toBe('10.0.0.10');
    });

    it('a ping to a pod on another node is delivered and answered (no NAT: the pod CIDR is excepted)', () => {
      const t = trace(c, { from: 'default/client', to: '10.244.2.3', protocol: 'ICMP', reply: true });
      expect(t.disposition).toBe('Delivered');
      expect(t.at).toBe(`endpoint:${endpointId(c, 'default/web')}`);
      expect(step(t, 'win-1', 'NAT', 'Excepted').rule?.policy).toBe('OutBoundNAT');
      expect(t.final).toMatchObject({ srcIp: '10.244.1.4', dstIp: '10.244.2.3', protocol: 1 });
      expect(t.reply).toMatchObject({
        disposition: 'Delivered',
        at: `endpoint:${endpointId(c, 'default/client')}`,
      });
    });

    it('a ping to a pod on the same node is delivered', () => {
      const t = trace(c, { from: 'default/client', to: '10.244.1.3', protocol: 'ICMP' });
      expect(t.disposition).toBe('Delivered');
      expect(t.at).toBe(`endpoint:${endpointId(c, 'kube-system/coredns-0')}`);
      expect(has(t, 'NAT', 'SNAT')).toBe(false);
    });
  },
);

// ───────────────────────────── the ExceptionList ─────────────────────────────

describe.each(MODES)('OutBoundNAT ExceptionList (%s): the external target must not be in it', (mode) => {
  it('correct config: SNAT to the node IP and the reply comes back', () => {
    const c = build({ mode });
    const t = trace(c, { from: 'default/client', to: '204.79.197.200', reply: true });
    expect(t.disposition).toBe('Delivered');
    expect(t.final.srcIp).toBe('10.0.0.10');
    expect(t.reply?.disposition).toBe('Delivered');
    expect(t.reply?.at).toBe(`endpoint:${endpointId(c, 'default/client')}`);
  });

  it('the target wrongly excepted (an HNS policy Update): the packet leaves with the pod IP and the reply cannot come back', () => {
    const c = build({ mode });
    const p = c.pod('default/client')!;
    const wrong = [...exceptions(c, 'default/client'), '204.79.197.200/32'];
    ok(
      c.host('win-1').api.HcnModifyEndpoint(p.endpointId, {
        ResourceType: 'Policy',
        RequestType: 'Update',
        Settings: { Policies: [{ Type: 'OutBoundNAT', Settings: { Exceptions: wrong } }] },
      }),
    );
    expect(exceptions(c, 'default/client')).toEqual(wrong);
    const t = trace(c, { from: 'default/client', to: '204.79.197.200', reply: true });
    expect(t.disposition).toBe('Delivered');
    expect(t.at).toBe('external:204.79.197.200');
    const ex = step(t, 'win-1', 'NAT', 'Excepted');
    expect(ex.rule).toMatchObject({ policy: 'OutBoundNAT', rule: 'EXCEPTION' });
    expect(has(t, 'NAT', 'SNAT')).toBe(false);
    expect(wire(t, 'win-1').srcIp).toBe('10.244.1.4');
    expect(t.final).toMatchObject({ srcIp: '10.244.1.4', dstIp: '204.79.197.200', srcPort: 50000 });
    // the outside answers a private pod address nobody routes back to the cluster
    const r = t.reply!;
    expect(r.packet.dstIp).toBe('10.244.1.4');
    expect(r.disposition).not.toBe('Delivered');
    expect(steps(r, 'win-1')).toEqual([]);
  });
});

// ───────────────────────────── NodePorts ─────────────────────────────

describe.each(MODES)(
  'NodePort (%s): "local NodePort access from the node itself" is not supported',
  (mode) => {
    const c = build({ mode });

    it('the node reaching its own NodePort ends Unsupported at the host stack, on the NodePort load balancer', () => {
      const t = trace(c, { from: 'win-1', to: '10.0.0.10', destinationPort: 30080 });
      expect(t.disposition).toBe('Unsupported');
      const s = step(t, 'win-1', 'HostStack', 'Unsupported');
      expect(s.rule?.kind).toBe('LoadBalancer');
      expect(s.rule?.rule).toMatch(/^LB_[0-9A-F]{8}_10\.0\.0\.10_30080_6$/);
      expect(has(t, 'LB')).toBe(false);
      expect(steps(t, 'win-2')).toEqual([]);
    });

    it('another node reaches it: DNAT+SNAT on win-1 to the backend on win-2, and back', () => {
      const t = trace(c, { from: 'win-2', to: '10.0.0.10', destinationPort: 30080, reply: true });
      expect(t.disposition).toBe('Delivered');
      expect(t.at).toBe(`endpoint:${endpointId(c, 'default/web')}`);
      const lb = step(t, 'win-1', 'LB', 'DNAT+SNAT');
      expect(lb.rule?.rule).toMatch(/^LB_[0-9A-F]{8}_10\.0\.0\.10_30080_6$/);
      expect(lb.packetAfter).toMatchObject({ dstIp: '10.244.2.3', dstPort: 8080 });
      expect(t.reply?.disposition).toBe('Delivered');
      expect(t.reply?.final).toMatchObject({
        srcIp: '10.0.0.10',
        srcPort: 30080,
        dstIp: '10.0.0.11',
        dstPort: 50000,
      });
    });

    it('an external client reaches it, and the reply goes back to the client from the NodePort', () => {
      const t = trace(c, { from: 'bing', to: '10.0.0.10', destinationPort: 30080, reply: true });
      expect(t.disposition).toBe('Delivered');
      expect(t.at).toBe(`endpoint:${endpointId(c, 'default/web')}`);
      expect(step(t, 'win-1', 'LB', 'DNAT+SNAT').packetBefore).toMatchObject({
        srcIp: '204.79.197.200',
        dstPort: 30080,
      });
      expect(t.reply).toMatchObject({ disposition: 'Delivered', at: 'external:204.79.197.200' });
      expect(t.reply?.final).toMatchObject({
        srcIp: '10.0.0.10',
        srcPort: 30080,
        dstIp: '204.79.197.200',
        dstPort: 50000,
      });
    });
  },
);

// ───────────────────────────── MAC spoofing ─────────────────────────────

/** A single host whose NIC does (not) allow MAC spoofing, with one network of `type` on it. */
function spoofHost(type: 'Transparent' | 'L2Bridge', macSpoofing: boolean): Host {
  const h = createHost({
    seed: 3,
    adapters: [
      {
        name: 'Ethernet',
        ipAddress: '192.168.1.10/24',
        gateway: '192.168.1.1',
        macAddress: '00-0D-3A-00-00-AA',
        macSpoofing,
      },
    ],
  });
  const net = ok(
    h.api.HcnCreateNetwork(null, {
      Name: 'ext',
      Type: type,
      Ipams: [
        {
          Type: 'Static',
          Subnets: [
            {
              IpAddressPrefix: '192.168.1.0/24',
              Routes: [{ NextHop: '192.168.1.1', DestinationPrefix: '0.0.0.0/0' }],
            },
          ],
        },
      ],
      SchemaVersion: V2,
    }),
  );
  ok(
    h.api.HcnCreateEndpoint(net['ID'], null, {
      Name: 'c1',
      IpConfigurations: [{ IpAddress: '192.168.1.50', PrefixLength: 24 }],
      MacAddress: '00-15-5D-00-00-50',
      SchemaVersion: V2,
    }),
  );
  return h;
}

describe('MAC spoofing (troubleshooting: "Enable MAC spoofing on the VM NICs")', () => {
  it('Transparent, spoofing off: the container-MAC frame is dropped at the uplink (DroppedMacSpoofing)', () => {
    const t = tj(spoofHost('Transparent', false).trace({ from: 'c1', to: '8.8.8.8' }));
    expect(t.disposition).toBe('DroppedMacSpoofing');
    const s = step(t, 'node-1', 'Port', 'Dropped');
    expect(s.packetBefore).toMatchObject({ srcMac: '00-15-5D-00-00-50', srcIp: '192.168.1.50' });
    expect(s.detail).toContain('MAC spoofing');
    expect(steps(t, 'node-1', 'Port', 'Transmitted')).toEqual([]);
  });

  it('Transparent, spoofing on: the frame leaves with the container MAC and address unchanged', () => {
    const t = tj(spoofHost('Transparent', true).trace({ from: 'c1', to: '8.8.8.8' }));
    expect(t.disposition).toBe('ExitsNetwork');
    expect(has(t, 'MacRewrite')).toBe(false);
    expect(wire(t, 'node-1')).toMatchObject({
      srcMac: '00-15-5D-00-00-50',
      srcIp: '192.168.1.50',
      dstIp: '8.8.8.8',
    });
  });

  it('L2Bridge, spoofing off: unaffected, the MAC is rewritten to the host MAC', () => {
    const t = tj(spoofHost('L2Bridge', false).trace({ from: 'c1', to: '8.8.8.8' }));
    expect(t.disposition).toBe('ExitsNetwork');
    const rw = step(t, 'node-1', 'MacRewrite', 'Rewritten');
    expect(changes(rw)).toEqual({ srcMac: ['00-15-5D-00-00-50', '00-0D-3A-00-00-AA'] });
    expect(wire(t, 'node-1')).toMatchObject({ srcMac: '00-0D-3A-00-00-AA', srcIp: '192.168.1.50' });
  });

  it('a cluster whose l2bridge nodes forbid MAC spoofing still carries pod traffic', () => {
    const c = new Cluster({ seed: 1 });
    c.addWindowsNode({ name: 'win-1', network: 'l2bridge', macSpoofing: false });
    c.addWindowsNode({ name: 'win-2', network: 'l2bridge', macSpoofing: false });
    c.addPod({ namespace: 'default', name: 'a', node: 'win-1' });
    c.addPod({ namespace: 'default', name: 'b', node: 'win-2' });
    c.addExternalHost({ name: 'bing', ip: '204.79.197.200' });
    expect(trace(c, { from: 'default/a', to: 'default/b', reply: true })).toMatchObject({
      disposition: 'Delivered',
      reply: { disposition: 'Delivered' },
    });
    expect(trace(c, { from: 'default/a', to: '204.79.197.200' }).disposition).toBe('Delivered');
  });
});

// ───────────────────────────── DSR ─────────────────────────────

describe.each(MODES)('DSR hairpin (%s): a pod reaching a service backed only by itself', (mode) => {
  it('without loopback DSR: Unsupported at the LB_DSR layer, after the DNAT to its own address', () => {
    const c = build({ mode, options: { dsr: true, loopbackDsr: false } });
    const t = trace(c, { from: 'default/client', to: 'svc:default/self' });
    expect(t.disposition).toBe('Unsupported');
    const dnat = step(t, 'win-1', 'LB', 'DNAT');
    expect(dnat.rule).toMatchObject({ kind: 'LoadBalancer', layer: 'LB_DSR' });
    expect(dnat.rule?.rule).toMatch(/^LB_DSR_[0-9A-F]{8}_10\.0\.0\.10_10\.96\.0\.12_81_8081_6$/);
    expect(changes(dnat)).toEqual({ dstIp: ['10.96.0.12', '10.244.1.4'], dstPort: [81, 8081] });
    const s = step(t, 'win-1', 'LB', 'Unsupported');
    expect(s.rule).toMatchObject({ kind: 'LoadBalancer', layer: 'LB_DSR' });
    expect(s.detail).toContain('loopback DSR');
    expect(has(t, 'Delivery')).toBe(false);
  });

  // Regression (fixed; was src/dataplane/plane.ts HostPlane.outboundNat, the `hairpin && lb.dsr` branch): the
  // Unsupported step names its rule with `this.lbRef(lb, p.dstIp)`, where p is the packet after the
  // DNAT, so the "VIP" in the rule name is the pod's own address
  // (LB_DSR_<id>_10.0.0.10_10.244.1.4_81_8081_6): a rule vfpctrl never lists. It should be the
  // rule of the DNAT step, with the VIP 10.96.0.12.
  it('without loopback DSR: the Unsupported step names the same LB_DSR rule as the DNAT (the VIP, not the pod IP)', () => {
    const c = build({ mode, options: { dsr: true, loopbackDsr: false } });
    const t = trace(c, { from: 'default/client', to: 'svc:default/self' });
    expect(step(t, 'win-1', 'LB', 'Unsupported').rule?.rule).toBe(step(t, 'win-1', 'LB', 'DNAT').rule?.rule);
  });

  it('with loopback DSR (OutBoundNAT Destinations = its own IP): SNATed to the node IP and delivered; the reply is un-NATed to the VIP', () => {
    const c = build({ mode, options: { dsr: true, loopbackDsr: true } });
    const t = trace(c, { from: 'default/client', to: 'svc:default/self', reply: true });
    expect(t.disposition).toBe('Delivered');
    expect(t.at).toBe(`endpoint:${endpointId(c, 'default/client')}`);
    expect(step(t, 'win-1', 'LB', 'DNAT').rule?.layer).toBe('LB_DSR');
    const snat = step(t, 'win-1', 'NAT', 'SNAT');
    expect(snat.rule).toMatchObject({
      policy: 'OutBoundNAT',
      rule: 'SNAT_TCP_OUTBOUNDNAT_10.244.1.4_10.0.0.10',
    });
    expect(snat.detail).toBe('10.244.1.4 is in Destinations');
    expect(changes(snat)).toEqual({
      srcIp: ['10.244.1.4', '10.0.0.10'],
      srcPort: [50000, expect.any(Number)],
    });
    expect(t.final).toMatchObject({ srcIp: '10.0.0.10', dstIp: '10.244.1.4', dstPort: 8081 });
    expect(t.reply?.disposition).toBe('Delivered');
    expect(t.reply?.final).toMatchObject({
      srcIp: '10.96.0.12',
      srcPort: 81,
      dstIp: '10.244.1.4',
      dstPort: 50000,
    });
  });

  it('without DSR the hairpin works: the LB SNATs to the SourceVIP', () => {
    const c = build({ mode });
    const t = trace(c, { from: 'default/client', to: 'svc:default/self' });
    expect(t.disposition).toBe('Delivered');
    expect(step(t, 'win-1', 'LB', 'DNAT+SNAT').rule?.layer).toBe('SLB_NAT_LAYER');
    expect(step(t, 'win-1', 'vSwitch', 'Hairpin').detail).toBe('back into the sending port');
  });

  // Regression (fixed; was trace recording, src/dataplane/plane.ts HostPlane.switchTo): the Hairpin step records the
  // packet unchanged and then hands `withPacket(p, { dstMac: to.mac })` to portIngress, so the
  // destination MAC changes (gateway MAC → the pod's own MAC) between two steps without any step
  // recording it.
  it('without DSR: every change of the hairpinned packet is recorded by a step', () => {
    const c = build({ mode });
    const t = trace(c, { from: 'default/client', to: 'svc:default/self' });
    expect(gaps(t)).toEqual([]);
  });
});

describe.each([
  ['l2bridge', '10.0.0.10'],
  ['overlay', '10.244.1.2'],
] as const)('source-IP preservation (%s)', (mode, sourceVip) => {
  it('with DSR the backend sees the client pod IP; return traffic bypasses the load balancer', () => {
    const c = build({ mode, options: { dsr: true } });
    const t = trace(c, { from: 'default/client', to: 'svc:default/web', reply: true });
    expect(t.disposition).toBe('Delivered');
    const lb = step(t, 'win-1', 'LB', 'DNAT');
    expect(lb.rule).toMatchObject({ kind: 'LoadBalancer', layer: 'LB_DSR' });
    expect(lb.rule?.rule).toMatch(/^LB_DSR_[0-9A-F]{8}_10\.0\.0\.10_10\.96\.0\.11_80_8080_6$/);
    expect(changes(lb)).toEqual({ dstIp: ['10.96.0.11', '10.244.2.3'], dstPort: [80, 8080] });
    expect(t.final).toMatchObject({
      srcIp: '10.244.1.4',
      srcPort: 50000,
      dstIp: '10.244.2.3',
      dstPort: 8080,
    });
    const r = t.reply!;
    expect(r.disposition).toBe('Delivered');
    expect(steps(r, 'win-2').filter((s) => s.component === 'LB' || s.component === 'NAT')).toEqual([]);
    expect(step(r, 'win-1', 'NAT', 'UnDNAT').rule?.rule).toBe(lb.rule?.rule);
    expect(r.final).toMatchObject({ srcIp: '10.96.0.11', srcPort: 80, dstIp: '10.244.1.4', dstPort: 50000 });
  });

  it(`without DSR the backend sees the SourceVIP ${sourceVip}`, () => {
    const c = build({ mode });
    const t = trace(c, { from: 'default/client', to: 'svc:default/web' });
    expect(t.disposition).toBe('Delivered');
    expect(step(t, 'win-1', 'LB', 'DNAT+SNAT').packetAfter.srcIp).toBe(sourceVip);
    expect(t.final.srcIp).toBe(sourceVip);
  });
});

describe.each([
  ['l2bridge', '10.0.0.11'],
  ['overlay', '10.244.2.2'],
] as const)('externalTrafficPolicy: Local on a NodePort (%s)', (mode, sourceVip) => {
  it('with DSR the backend sees the external client IP, and the reply leaves from the NodePort', () => {
    const c = build({ mode, options: { dsr: true }, web: { externalTrafficPolicy: 'Local' } });
    const t = trace(c, { from: 'bing', to: '10.0.0.11', destinationPort: 30080, reply: true });
    expect(t.disposition).toBe('Delivered');
    expect(t.at).toBe(`endpoint:${endpointId(c, 'default/web')}`);
    const lb = step(t, 'win-2', 'LB', 'DNAT');
    // a NodePort is load-balanced on the host side (SDN-health: SLB_LB_LAYER), under the node's
    // management IP
    expect(lb.rule).toMatchObject({ kind: 'LoadBalancer', layer: 'SLB_LB_LAYER' });
    expect(lb.rule?.rule).toMatch(/^LB_DSR_[0-9A-F]{8}_10\.0\.0\.11_10\.0\.0\.11_30080_8080_6$/);
    expect(changes(lb)).toEqual({ dstIp: ['10.0.0.11', '10.244.2.3'], dstPort: [30080, 8080] });
    expect(t.final).toMatchObject({ srcIp: '204.79.197.200', dstIp: '10.244.2.3' });
    expect(t.reply).toMatchObject({ disposition: 'Delivered', at: 'external:204.79.197.200' });
    expect(t.reply?.final).toMatchObject({ srcIp: '10.0.0.11', srcPort: 30080, dstIp: '204.79.197.200' });
  });

  // proxier.go newServiceInfo: localTrafficDSR = externalTrafficPolicy Local, forced off only when
  // HNS lacks DSR; `--enable-dsr` decides the ClusterIP load balancer alone
  it('without --enable-dsr, Local is DSR all the same: the backend sees the client IP', () => {
    const c = build({ mode, web: { externalTrafficPolicy: 'Local' } });
    const t = trace(c, { from: 'bing', to: '10.0.0.11', destinationPort: 30080 });
    expect(t.disposition).toBe('Delivered');
    const lb = step(t, 'win-2', 'LB', 'DNAT');
    expect(changes(lb)).toEqual({ dstIp: ['10.0.0.11', '10.244.2.3'], dstPort: [30080, 8080] });
    expect(t.final).toMatchObject({ srcIp: '204.79.197.200', dstIp: '10.244.2.3' });
  });

  // hcsshim DSRVersion: 9.3–9.x, 10.2 on; HNS 10.0 has no DSR, and "Local traffic policy in non-DSR
  // mode" is a documented limitation (kubernetes-windows.md §1.5): every backend, SNAT
  it(`on an HNS without DSR (10.0), Local is not DSR: the client IP is lost to ${sourceVip}`, () => {
    const c = build({ mode, options: { profile: '10.0' }, web: { externalTrafficPolicy: 'Local' } });
    const t = trace(c, { from: 'bing', to: '10.0.0.11', destinationPort: 30080 });
    expect(t.disposition).toBe('Delivered');
    expect(step(t, 'win-2', 'LB', 'DNAT+SNAT').packetAfter.srcIp).toBe(sourceVip);
    // and win-1, with no backend of its own, balances the NodePort to win-2's pod too
    expect(has(trace(c, { from: 'bing', to: '10.0.0.10', destinationPort: 30080 }), 'LB')).toBe(true);
  });

  it('a node without a local backend has no NodePort load balancer for the service (the packet stops at its host)', () => {
    const c = build({ mode, options: { dsr: true }, web: { externalTrafficPolicy: 'Local' } });
    const t = trace(c, { from: 'bing', to: '10.0.0.10', destinationPort: 30080 });
    expect(has(t, 'LB')).toBe(false);
    expect(t).toMatchObject({ host: 'win-1', at: 'host' });
    expect(steps(t, 'win-2')).toEqual([]);
  });
});

// ───────────────────────────── no endpoints ─────────────────────────────

describe('a service without endpoints (kube-proxy programs no load balancer for it)', () => {
  // kube-proxy still makes the service-VIP remote endpoint on overlay (syncProxyRules creates it
  // before looking at the endpoints): the packet meets it, with no load balancer in front
  it('overlay: NoRoute at the service-VIP remote endpoint (PA = this node; no load balancer took it)', () => {
    const c = build({ mode: 'overlay' });
    const t = trace(c, { from: 'default/client', to: 'svc:default/empty' });
    expect(t.disposition).toBe('NoRoute');
    expect(has(t, 'LB')).toBe(false);
    const s = step(t, 'win-1', 'Encap', 'NoRoute');
    expect(s.rule).toMatchObject({
      kind: 'Endpoint',
      policy: 'ProviderAddress',
      layer: 'VNET_ENCAP_LAYER',
      rule: 'ENCAP_10.96.0.13/32_10.0.0.10_4096',
    });
    expect(has(t, 'Encap', 'Encapsulated')).toBe(false);
    expect(t.final.dstIp).toBe('10.96.0.13');
  });

  it('l2bridge: not delivered and never load-balanced (the VIP is not translated)', () => {
    const c = build({ mode: 'l2bridge' });
    const t = trace(c, { from: 'default/client', to: 'svc:default/empty' });
    expect(t.disposition).not.toBe('Delivered');
    expect(has(t, 'LB')).toBe(false);
    expect(t.final.dstIp).toBe('10.96.0.13');
    expect(steps(t, 'win-2')).toEqual([]);
  });
});
