/**
 * Mixed clusters: a Windows node beside a Linux node. Linux flannel's VXLAN defaults are VNI 1 and
 * UDP 8472, while Windows is "restricted to using VNI 4096 and UDP port 4789" (kubernetes-windows.md
 * §1.7; vfp-dataplane.md §5: Flannel and Calico on Windows require VNI ≥ 4096 and flannel only
 * accepts 4789), so a mixed VXLAN cluster must set 4096/4789 on the Linux side; `check()` says so
 * and the traces fail at decapsulation until it is done. host-gw pairs a Windows L2Bridge node with
 * a Linux host-gw node by routes alone. Linux flannel masquerades pod traffic leaving the pod CIDR
 * (`ip-masq`). Layout (docs/model.md "Clusters"): win-1 10.0.0.10 with pods in 10.244.1.0/24 from
 * .3; lx-1 10.0.0.11 with pods in 10.244.2.0/24 from .2.
 */
import { describe, expect, it } from 'vitest';
import { Cluster, type LinuxNodeSpec } from '../../src/cluster/cluster.js';
import type { JsonObject } from '../../src/core/json.js';
import type { TraceRequest } from '../../src/dataplane/trace.js';
import { changes, has, isDynamicPort, step, steps, tj, wire, type TraceJ } from '../dataplane/trace-kit.js';
import { ok } from '../dataplane/prop-kit.js';

function build(win: 'l2bridge' | 'overlay', linux: Omit<LinuxNodeSpec, 'name'>): Cluster {
  const c = new Cluster({ seed: 1 });
  c.addWindowsNode({ name: 'win-1', network: win });
  c.addLinuxNode({ name: 'lx-1', ...linux });
  c.addPod({ namespace: 'default', name: 'w', node: 'win-1' });
  c.addPod({ namespace: 'default', name: 'l', node: 'lx-1' });
  c.addExternalHost({ name: 'bing', ip: '204.79.197.200' });
  return c;
}

function trace(c: Cluster, req: TraceRequest): TraceJ {
  return tj(c.trace(req));
}

function drMac(c: Cluster): string {
  const h = c.host('win-1');
  const [id] = ok(h.api.HcnEnumerateNetworks(null)) as unknown as string[];
  const p = (ok(h.api.HcnQueryNetworkProperties(id, null))['Policies'] as JsonObject[]).find(
    (x) => x['Type'] === 'DrMacAddress',
  );
  return String((p?.['Settings'] as JsonObject)['Address']);
}

const W_TO_L: TraceRequest = { from: 'default/w', to: 'default/l' };
const L_TO_W: TraceRequest = { from: 'default/l', to: 'default/w' };

describe('Windows overlay + Linux vxlan with the Linux defaults (VNI 1, UDP 8472)', () => {
  const c = build('overlay', { backend: 'vxlan' });

  it('places the pods where the traces below expect them', () => {
    expect([c.pod('default/w')!.ip, c.pod('default/l')!.ip]).toEqual(['10.244.1.3', '10.244.2.2']);
  });

  it('check() flags the VNI and the UDP port as errors, and the Linux VNI below 4096', () => {
    const f = c.check();
    const vni = f.find((x) => x.setting === 'VNI' && x.nodes.length === 2);
    expect(vni).toMatchObject({ severity: 'error', nodes: ['win-1', 'lx-1'] });
    expect(vni?.message).toContain('4096 on win-1');
    expect(vni?.message).toContain('1 on lx-1');
    const port = f.find((x) => x.setting === 'UDP port');
    expect(port).toMatchObject({ severity: 'error', nodes: ['win-1', 'lx-1'] });
    expect(port?.message).toContain('4789 on win-1');
    expect(port?.message).toContain('8472 on lx-1');
    expect(f.find((x) => x.setting === 'VNI' && x.nodes.length === 1)).toMatchObject({
      severity: 'error',
      nodes: ['lx-1'],
    });
    expect(f.some((x) => x.setting === 'backend')).toBe(false);
  });

  it('Windows → Linux: sent as VNI 4096 / UDP 4789, dropped by flannel.1 on Linux (it listens on 8472)', () => {
    const t = trace(c, W_TO_L);
    expect(t.disposition).toBe('NoRoute');
    expect(t.host).toBe('lx-1');
    expect(wire(t, 'win-1').outer).toMatchObject({
      srcIp: '10.0.0.10',
      dstIp: '10.0.0.11',
      dstPort: 4789,
      vni: 4096,
    });
    const d = step(t, 'lx-1', 'Decap', 'Dropped');
    expect(d.detail).toBe('flannel.1 listens on UDP 8472, not 4789');
    expect(has(t, 'Delivery')).toBe(false);
  });

  it('Linux → Windows: sent as VNI 1 / UDP 8472, dropped on Windows (no overlay network listens on 8472)', () => {
    const t = trace(c, L_TO_W);
    expect(t.disposition).toBe('NoRoute');
    expect(t.host).toBe('win-1');
    const e = step(t, 'lx-1', 'Encap', 'Encapsulated');
    expect(e.packetAfter.outer).toMatchObject({
      srcIp: '10.0.0.11',
      dstIp: '10.0.0.10',
      dstPort: 8472,
      vni: 1,
    });
    const d = step(t, 'win-1', 'Decap', 'Dropped');
    expect(d.detail).toBe('no overlay network listens on UDP 8472 (this host uses 4789)');
    expect(has(t, 'Delivery')).toBe(false);
  });
});

describe('Windows overlay + Linux vxlan on UDP 4789 but VNI 1', () => {
  const c = build('overlay', { backend: 'vxlan', vni: 1, vxlanPort: 4789 });

  it('check() flags only the VNI', () => {
    const f = c.check();
    expect(f.map((x) => x.setting).sort()).toEqual(['VNI', 'VNI']);
  });

  it('both directions are dropped at decapsulation, the detail naming the VNI', () => {
    const wl = trace(c, W_TO_L);
    expect(wl.disposition).toBe('NoRoute');
    expect(step(wl, 'lx-1', 'Decap', 'Dropped').detail).toBe("VNI 4096 is not flannel.1's");
    const lw = trace(c, L_TO_W);
    expect(lw.disposition).toBe('NoRoute');
    expect(step(lw, 'win-1', 'Decap', 'Dropped').detail).toBe(
      "VNI 1 is not an overlay subnet's VSID here (4096)",
    );
  });
});

describe('Windows overlay + Linux vxlan set to VNI 4096 / UDP 4789', () => {
  const c = build('overlay', { backend: 'vxlan', vni: 4096, vxlanPort: 4789 });

  it('check() finds nothing', () => {
    expect(c.check()).toEqual([]);
  });

  it('Windows → Linux is delivered: RemoteSubnetRoute to the Linux VTEP, inner packet unchanged, and back', () => {
    const t = trace(c, { ...W_TO_L, reply: true });
    expect(t).toMatchObject({ disposition: 'Delivered', host: 'lx-1', at: 'pod:default/l' });
    const e = step(t, 'win-1', 'Encap', 'Encapsulated');
    expect(e.rule).toMatchObject({ policy: 'RemoteSubnetRoute', rule: 'ENCAP_10.244.2.0/24_10.0.0.11_4096' });
    expect(e.packetAfter.outer).toMatchObject({
      srcIp: '10.0.0.10',
      dstIp: '10.0.0.11',
      dstPort: 4789,
      vni: 4096,
    });
    expect(isDynamicPort(e.packetAfter.outer!.srcPort)).toBe(true);
    expect(step(t, 'lx-1', 'Decap', 'Decapsulated').rule?.layer).toBe('flannel.4096');
    expect(t.final).toMatchObject({
      srcIp: '10.244.1.3',
      dstIp: '10.244.2.2',
      srcPort: 50000,
      dstPort: 80,
      ttl: 128,
    });
    expect(t.final.outer).toBeUndefined();
    expect(t.reply).toMatchObject({
      disposition: 'Delivered',
      at: `endpoint:${c.pod('default/w')!.endpointId}`,
    });
  });

  it("Linux → Windows is delivered: VXLAN to the Windows node, the inner frame addressed to the network's DR MAC, and back", () => {
    const t = trace(c, { ...L_TO_W, reply: true });
    expect(t).toMatchObject({
      disposition: 'Delivered',
      host: 'win-1',
      at: `endpoint:${c.pod('default/w')!.endpointId}`,
    });
    const e = step(t, 'lx-1', 'Encap', 'Encapsulated');
    expect(e.packetAfter.outer).toMatchObject({
      srcIp: '10.0.0.11',
      dstIp: '10.0.0.10',
      dstPort: 4789,
      vni: 4096,
    });
    expect(e.packetAfter.dstMac).toBe(drMac(c));
    expect(step(t, 'win-1', 'Decap', 'Decapsulated').detail).toBe('VXLAN VNI 4096');
    expect(t.final).toMatchObject({ srcIp: '10.244.2.2', dstIp: '10.244.1.3', dstMac: '0E-2A-0A-F4-01-03' });
    expect(t.reply).toMatchObject({ disposition: 'Delivered', at: 'pod:default/l' });
  });
});

describe('Windows l2bridge + Linux host-gw', () => {
  const c = build('l2bridge', { backend: 'host-gw' });
  const mac1 = String(
    c
      .host('win-1')
      .adapters()
      .find((a) => a['Name'] === 'vEthernet (Ethernet)')?.['MacAddress'],
  );

  it('check() finds nothing', () => {
    expect(c.check()).toEqual([]);
  });

  it('Windows → Linux: routed by the host-gw route, host MAC on the wire, pod addresses unchanged; and back', () => {
    const t = trace(c, { ...W_TO_L, reply: true });
    expect(t).toMatchObject({ disposition: 'Delivered', host: 'lx-1', at: 'pod:default/l' });
    expect(step(t, 'win-1', 'HostStack', 'Forwarded').rule?.rule).toBe(
      '10.244.2.0/24 via 10.0.0.11 dev vEthernet (Ethernet)',
    );
    expect(has(t, 'Encap')).toBe(false);
    expect(wire(t, 'win-1')).toMatchObject({ srcMac: mac1, srcIp: '10.244.1.3', dstIp: '10.244.2.2' });
    expect(t.final).toMatchObject({ srcIp: '10.244.1.3', dstIp: '10.244.2.2', srcPort: 50000, dstPort: 80 });
    expect(t.reply).toMatchObject({
      disposition: 'Delivered',
      at: `endpoint:${c.pod('default/w')!.endpointId}`,
    });
    expect(step(t.reply!, 'lx-1', 'Routing', 'Forwarded').rule?.rule).toBe('10.244.1.0/24 via 10.0.0.10');
  });

  it('Linux → Windows: routed to the Windows node, MAC rewritten to the container on arrival; and back', () => {
    const t = trace(c, { ...L_TO_W, reply: true });
    expect(t).toMatchObject({
      disposition: 'Delivered',
      host: 'win-1',
      at: `endpoint:${c.pod('default/w')!.endpointId}`,
    });
    expect(step(t, 'lx-1', 'Routing', 'Forwarded').rule).toMatchObject({
      policy: 'Route',
      rule: '10.244.1.0/24 via 10.0.0.10',
    });
    expect(step(t, 'win-1', 'MacRewrite', 'Rewritten').rule?.rule).toBe('MAC_REWRITE_HOST');
    expect(has(t, 'NAT')).toBe(false);
    expect(t.final).toMatchObject({ srcIp: '10.244.2.2', dstIp: '10.244.1.3' });
    expect(t.reply).toMatchObject({ disposition: 'Delivered', at: 'pod:default/l' });
  });

  it('Linux masquerades its pod traffic to the outside to the node address, and un-NATs the reply', () => {
    const t = trace(c, { from: 'default/l', to: '204.79.197.200', reply: true });
    expect(t).toMatchObject({ disposition: 'Delivered', at: 'external:204.79.197.200' });
    const m = step(t, 'lx-1', 'NAT', 'SNAT');
    expect(m.rule).toMatchObject({ policy: 'MASQUERADE', rule: '! -d 10.244.0.0/16 -j MASQUERADE' });
    expect(changes(m)).toEqual({ srcIp: ['10.244.2.2', '10.0.0.11'] });
    expect(t.final).toMatchObject({ srcIp: '10.0.0.11', dstIp: '204.79.197.200' });
    const r = t.reply!;
    expect(r).toMatchObject({ disposition: 'Delivered', at: 'pod:default/l' });
    expect(changes(step(r, 'lx-1', 'NAT', 'UnSNAT'))).toEqual({ dstIp: ['10.0.0.11', '10.244.2.2'] });
  });

  it('Linux does not masquerade pod-to-pod traffic: the Windows pod sees the Linux pod address', () => {
    const t = trace(c, L_TO_W);
    expect(steps(t, 'lx-1', 'NAT')).toEqual([]);
    expect(t.final.srcIp).toBe('10.244.2.2');
  });

  it('the Windows node routes its pod’s packet (cbr0_ep → host stack → uplink): the TTL drops by one', () => {
    const t = trace(c, W_TO_L);
    expect(changes(step(t, 'win-1', 'HostStack', 'Forwarded'))).toMatchObject({ ttl: [128, 127] });
    expect(t.final.ttl).toBe(127);
  });

  // Regression (fixed; was src/cluster/linux.ts LinuxNode.sendFromPod → forward(w, p, true)): a Linux node routes its
  // pod's packet from cni0 to eth0 (host-gw) or flannel.<VNI> like any IP router (RFC 1812 §5.3.1:
  // a forwarded packet's TTL is decremented), as the Windows node does above; the model forwards
  // it without decrementing, and without a step recording the MAC it puts on the frame.
  it('the Linux node routes its pod’s packet: the TTL drops by one', () => {
    const t = trace(c, L_TO_W);
    expect(changes(step(t, 'lx-1', 'Routing', 'Forwarded'))).toMatchObject({ ttl: [128, 127] });
    expect(t.final.ttl).toBe(127);
  });
});

describe('Windows overlay + Linux host-gw', () => {
  it('check() flags mixed backends, and the pods have no route between them', () => {
    const c = build('overlay', { backend: 'host-gw' });
    const f = c.check().find((x) => x.setting === 'backend');
    expect(f).toMatchObject({ severity: 'error', nodes: ['win-1', 'lx-1'] });
    expect(trace(c, W_TO_L).disposition).not.toBe('Delivered');
    expect(trace(c, L_TO_W).disposition).not.toBe('Delivered');
  });
});
