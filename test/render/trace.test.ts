// Traces as text at ovn-trace's three levels (src/render/trace.ts), on a real host and a real
// two-node cluster: what each level must show, what it must leave out, and the whole text of each
// level for two traces, written out by hand (the same on every run).
import { describe, expect, it } from 'vitest';
import { Cluster } from '../../src/cluster/cluster.js';
import type { Host } from '../../src/host/host.js';
import { packetFieldChanges, renderTrace, traceNames, TRACE_LEVELS } from '../../src/render/trace.js';
import { packet, TCP } from '../../src/vswitch/contracts.js';
import { ip } from '../../src/vswitch/v4.js';
import { ok } from '../dataplane/prop-kit.js';
import { natWebHost } from '../dataplane/trace-kit.js';

const V2 = { Major: 2, Minor: 0 };
const GUID = /[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}/i;

/** The shared NAT host (`web`: PortMapping 8080 → 80; ACLs: in TCP 80 only, out all; `client`) and an unnamed endpoint. */
function smallHost(): { host: Host; web: string; anon: string } {
  const { host, net, web } = natWebHost(1);
  const anon = ok(host.api.HcnCreateEndpoint(net, null, { SchemaVersion: V2 })).ID;
  return { host, web, anon };
}

/** Two overlay nodes, CoreDNS on win-2, pod a on win-1, service web → b (win-2) and b2 (win-1). */
function twoNodes(): Cluster {
  const c = new Cluster({ seed: 1 });
  c.addWindowsNode({ name: 'win-1', network: 'overlay' });
  c.addWindowsNode({ name: 'win-2', network: 'overlay' });
  c.addExternalHost({ name: 'bing', ip: '204.79.197.200', dnsName: 'www.bing.com' });
  c.addCoreDns('win-2');
  c.addPod({ namespace: 'default', name: 'a', node: 'win-1', labels: { app: 'a' } });
  c.addPod({ namespace: 'default', name: 'b', node: 'win-2', labels: { app: 'b' } });
  c.addPod({ namespace: 'default', name: 'b2', node: 'win-1', labels: { app: 'b' } });
  c.addService({
    namespace: 'default',
    name: 'web',
    ports: [{ port: 80, targetPort: 8080 }],
    selector: { app: 'b' },
  });
  return c;
}

const clusterNames = (c: Cluster) => traceNames(c.host('win-1'), c.host('win-2'));

/** A rendering split into lines. */
function lines(text: string): string[] {
  return text.split('\n');
}

describe('detailed', () => {
  it('shows every observation with its rule, detail and the packet fields it changed', () => {
    const { host } = smallHost();
    const r = host.trace({ from: 'web', to: '8.8.8.8', destinationPort: 443 });
    const text = renderTrace(r, 'detailed', { names: traceNames(host) });
    expect(text.split('\n')[0]).toBe('Trace web → 8.8.8.8, TCP 50000 → 443');
    expect(text).toContain('Packet TCP 172.23.128.2:50000 → 8.8.8.8:443, TTL 128');
    r.observations.forEach((o, i) => {
      expect(text).toContain(`  ${i + 1}. ${o.component} ${o.action}${o.detail ? `: ${o.detail}` : ''}`);
    });
    // the ACL: policy type and index, rule Id and priority, VFP layer and rule name
    expect(text).toMatch(
      /rule: Endpoint web [0-9A-F-]{36}, policy ACL \[2\], Id allow-out, priority 100, layer ACL_ENDPOINT_LAYER, rule allow-out/,
    );
    // WinNAT: only the source changed; MACs in Windows form; TTL on forwarding
    const snat = lines(text).findIndex((l) => l.includes('NAT SNAT: WinNAT'));
    expect(lines(text)[snat + 1]).toMatch(
      /rule: Network nat [0-9A-F-]{36}, layer WinNAT, rule NetNat 172\.23\.128\.0\/20/,
    );
    expect(lines(text)[snat + 2]).toBe('       packet: src 172.23.128.2:50000 → 10.0.98.11:49152');
    expect(text).toMatch(
      /packet: srcMac none → 00-15-5D-[0-9A-F]{2}-[0-9A-F]{2}-[0-9A-F]{2}, dstMac none → 00-15-5D-/,
    );
    expect(text).toContain('TTL 128 → 127');
    // a step that changed nothing has no packet line
    const acl = lines(text).findIndex((l) => l.includes('ACL Allowed'));
    expect(lines(text)[acl + 2]).toMatch(/^ {2}3\. vSwitch ToHost/);
    expect(text).toContain('Disposition: ExitsNetwork at external 8.8.8.8 on node-1');
    expect(text).toMatch(/Final packet TCP 10\.0\.98\.11:49152 → 8\.8\.8\.8:443, TTL 127, MAC 00-0D-3A-/);
  });

  it('names the endpoint a trace ends at, and the ACL rule that denied it', () => {
    const { host, web } = smallHost();
    const text = renderTrace(host.trace({ from: 'client', to: 'web', destinationPort: 81 }), 'detailed');
    expect(text).toContain('  3. ACL Denied: VFP In');
    expect(text).toContain(`rule: Endpoint web ${web}, policy ACL [3], Id deny-in, priority 200`);
    expect(text).toContain(`Disposition: DeniedIn at endpoint web (${web}) on node-1`);
  });

  it('on a cluster: DNS first with the names tried and its query, host sections, VXLAN, LB choice, reply, branches', () => {
    const c = twoNodes();
    const r = c.trace({ from: 'default/a', to: 'web', reply: true, allBranches: true });
    expect(r.branches).toHaveLength(2);
    const text = renderTrace(r, 'detailed', { names: clusterNames(c) });
    const ls = lines(text);
    const dns = ls.indexOf('DNS web → web.default.svc.cluster.local = 10.96.0.11');
    expect(dns).toBeGreaterThan(0);
    expect(ls[dns + 1]).toBe('  names tried: web.default.svc.cluster.local');
    expect(ls[dns + 2]).toMatch(
      /^ {2}query default\/a → 10\.96\.0\.10, UDP 50000 → 53: Delivered at endpoint coredns-0_flannel\.4096 \([0-9A-F-]{36}\) on win-2$/,
    );
    // the query's own walk, nested: it crosses to win-2 in VXLAN
    const firstHost = ls.indexOf('win-1');
    expect(firstHost).toBeGreaterThan(dns);
    expect(ls.slice(dns, firstHost).some((l) => /^ {4}win-2$/.test(l))).toBe(true);
    expect(text).toMatch(/packet: .*\+outer VXLAN VNI 4096 10\.0\.0\.10:\d+ → 10\.0\.0\.11:4789/);
    expect(text).toContain('packet: -outer VXLAN VNI 4096');
    expect(text).toMatch(/outer dstMac none → 00-0D-3A-/);
    // the load-balancing step and the choice
    expect(text).toMatch(
      /LB DNAT\+SNAT: backend 2 of 2: 10\.244\.1\.4:8080; .*\n {7}rule: LoadBalancer [0-9A-F-]{36}, policy PortMappings \[0\], layer SLB_NAT_LAYER, rule LB_[0-9A-F]{8}_10\.96\.0\.11_80_6\n {7}packet: src 10\.244\.1\.3:50000 → 10\.244\.1\.2:\d+, dst 10\.96\.0\.11:80 → 10\.244\.1\.4:8080/,
    );
    expect(text).toMatch(/^Load balancing: LoadBalancer [0-9A-F-]{36} on win-1 chose backend 2 of 2$/m);
    // the reply after the forward trace, then one nested trace per backend
    const disposition = ls.findIndex((l) => l.startsWith('Disposition: '));
    const reply = ls.indexOf('Reply default/b2 → default/a, TCP 8080 → 49344');
    const branches = ls.findIndex((l) => l.startsWith('Branches: 2, one per backend of LoadBalancer '));
    expect(disposition).toBeGreaterThan(firstHost);
    expect(reply).toBeGreaterThan(disposition);
    expect(branches).toBeGreaterThan(reply);
    expect(ls.slice(reply, branches).join('\n')).toMatch(
      /Conntrack UnNAT: .*\n.*\n {9}packet: src 10\.244\.1\.4:8080 → 10\.96\.0\.11:80/,
    );
    expect(ls[branches + 1]).toBe('  Branch 1 of 2:');
    expect(ls.slice(branches)).toContain(
      '    Disposition: Delivered at endpoint b_flannel.4096 (' + r.branches![0]!.at!.slice(9) + ') on win-2',
    );
    expect(ls.slice(branches)).toContain('  Branch 2 of 2:');
  });
});

describe('summary', () => {
  it('one line per observation under a heading per host, rules in short form', () => {
    const c = twoNodes();
    const r = c.trace({ from: 'default/a', to: 'default/b', reply: true });
    const text = renderTrace(r, 'summary', { names: clusterNames(c) });
    const ls = lines(text);
    expect(ls[0]).toBe('Trace default/a → default/b, TCP 50000 → 80: TCP 10.244.1.3:50000 → 10.244.2.4:80');
    // forward part: headings where the host changes, then each observation on one line
    const end = ls.findIndex((l) => l.startsWith('→ '));
    const body = ls.slice(1, end);
    const headings = body.filter((l) => !l.startsWith(' '));
    expect(headings).toEqual(['win-1', 'win-2']);
    expect(body.filter((l) => l.startsWith('  '))).toHaveLength(r.observations.length);
    expect(body).toContain(
      '  NAT Excepted [a_flannel.4096 OutBoundNAT#0 EXCEPTION]  10.244.2.4 is in the OutBoundNAT exceptions: no SNAT',
    );
    expect(
      body.some((l) =>
        /^ {2}Encap Encapsulated \[Endpoint [0-9A-F]{8} ProviderAddress ENCAP_10\.244\.2\.4\/32_10\.0\.0\.11_4096\]/.test(
          l,
        ),
      ),
    ).toBe(true);
    expect(ls[end]).toBe('→ Delivered at endpoint b_flannel.4096 on win-2');
    // the reply, indented, with its own host headings
    const reply = ls.indexOf('Reply default/b → default/a, TCP 80 → 50000');
    expect(reply).toBe(end + 1);
    expect(ls.slice(reply + 1).filter((l) => /^ {2}\S/.test(l) && !l.startsWith('  →'))).toEqual([
      '  win-2',
      '  win-1',
    ]);
    expect(ls.at(-1)).toBe('  → Delivered at endpoint a_flannel.4096 on win-1');
    // no packet dumps and no full GUIDs
    expect(text).not.toContain('packet:');
    expect(text).not.toMatch(GUID);
  });

  it('shows the DNS answer and its query first, and each branch nested', () => {
    const c = twoNodes();
    const text = renderTrace(c.trace({ from: 'default/a', to: 'web', allBranches: true }), 'summary', {
      names: clusterNames(c),
    });
    const ls = lines(text);
    expect(ls[1]).toBe(
      'DNS web → web.default.svc.cluster.local = 10.96.0.11 (tried web.default.svc.cluster.local)',
    );
    expect(ls[2]).toBe('  query: Delivered at endpoint coredns-0_flannel.4096 on win-2');
    expect(ls[3]).toBe('win-1');
    expect(text).toMatch(
      /^ {2}LB DNAT\+SNAT \[LoadBalancer [0-9A-F]{8} PortMappings#0 LB_[0-9A-F]{8}_10\.96\.0\.11_80_6\]/m,
    );
    expect(text).toMatch(
      /\nBranches: 2, one per backend of LoadBalancer [0-9A-F]{8} on win-1\n {2}Branch 1 of 2:\n {4}win-1\n/,
    );
    expect(text).toContain('    → Delivered at endpoint b_flannel.4096 on win-2');
    expect(text).toContain('    → Delivered at endpoint b2_flannel.4096 on win-1');
  });
});

describe('minimal', () => {
  it('only the translations and the disposition: the SNAT with both addresses, no ACL steps', () => {
    const { host } = smallHost();
    const names = traceNames(host);
    const text = renderTrace(host.trace({ from: 'web', to: '8.8.8.8', destinationPort: 443 }), 'minimal', {
      names,
    });
    expect(text).toBe(
      [
        'trace web → 8.8.8.8, TCP 50000 → 443',
        'node-1: SNAT src 172.23.128.2:50000 → 10.0.98.11:49152 (WinNAT nat)',
        'ExitsNetwork at external 8.8.8.8 on node-1',
      ].join('\n'),
    );
    expect(text).not.toContain('Allowed');
    expect(text).not.toContain('ACL');
    // once sent, the answer from outside is un-NATed back to the container
    host.send({ from: 'web', to: '8.8.8.8', destinationPort: 443 });
    const back = host.trace({ from: '8.8.8.8', to: '10.0.98.11', sourcePort: 443, destinationPort: 49152 });
    expect(renderTrace(back, 'minimal', { names })).toBe(
      [
        'trace 8.8.8.8 → 10.0.98.11, TCP 443 → 49152',
        'node-1: UnSNAT dst 10.0.98.11:49152 → 172.23.128.2:50000 (WinNAT nat)',
        'Delivered at endpoint web on node-1',
      ].join('\n'),
    );
  });

  it('a port mapping, and a denial with the rule that decided', () => {
    const { host } = smallHost();
    const names = traceNames(host);
    expect(
      renderTrace(host.trace({ from: '192.168.1.50', to: 'host', destinationPort: 8080 }), 'minimal', {
        names,
      }),
    ).toBe(
      [
        'trace 192.168.1.50 → host, TCP 50000 → 8080',
        'node-1: DNAT dst 10.0.98.11:8080 → 172.23.128.2:80 (PortMapping web)',
        'Delivered at endpoint web on node-1',
      ].join('\n'),
    );
    expect(
      renderTrace(host.trace({ from: 'client', to: 'web', destinationPort: 81 }), 'minimal', { names }),
    ).toBe(
      ['trace client → web, TCP 50000 → 81', 'DeniedIn at endpoint web on node-1 by ACL web deny-in'].join(
        '\n',
      ),
    );
  });

  it('has no GUIDs: endpoints by name, an unnamed one by its address', () => {
    const { host, web, anon } = smallHost();
    const r = host.trace({ from: web, to: anon, reply: true });
    const bare = renderTrace(r, 'minimal');
    expect(bare).not.toMatch(GUID);
    expect(bare.split('\n')).toEqual([
      'trace web → 172.23.128.4, TCP 50000 → 80',
      'Delivered at endpoint 172.23.128.4 on node-1',
      'reply TCP 172.23.128.4:80 → 172.23.128.2:50000',
      '  Delivered at endpoint web on node-1',
    ]);
    expect(renderTrace(r, 'minimal', { names: traceNames(host) })).toBe(bare);
    // the detailed form keeps the IDs
    expect(renderTrace(r, 'detailed')).toContain(`Disposition: Delivered at endpoint ${anon} on node-1`);
  });

  it('on a cluster: DNS answer, LB DNAT+SNAT, VXLAN in and out, OutBoundNAT, the reply and the branches', () => {
    const c = twoNodes();
    const names = clusterNames(c);
    const svc = renderTrace(
      c.trace({ from: 'default/a', to: 'web', reply: true, allBranches: true }),
      'minimal',
      { names },
    );
    const ls = lines(svc);
    expect(ls[0]).toBe('trace default/a → web, TCP 50000 → 80');
    expect(ls[1]).toBe('dns web → web.default.svc.cluster.local = 10.96.0.11 (query Delivered on win-2)');
    expect(ls[2]).toMatch(
      /^win-1: DNAT\+SNAT src 10\.244\.1\.3:50000 → 10\.244\.1\.2:(\d+), dst 10\.96\.0\.11:80 → 10\.244\.1\.4:8080 \(LoadBalancer\)$/,
    );
    expect(ls[3]).toBe('Delivered at endpoint b2_flannel.4096 on win-1');
    expect(ls[4]).toMatch(/^reply TCP 10\.244\.1\.4:8080 → 10\.244\.1\.2:\d+$/);
    expect(ls[5]).toMatch(
      /^ {2}win-1: UnNAT src 10\.244\.1\.4:8080 → 10\.96\.0\.11:80, dst 10\.244\.1\.2:\d+ → 10\.244\.1\.3:50000 \(LoadBalancer\)$/,
    );
    expect(ls.slice(7)).toEqual([
      'branch 1 of 2',
      expect.stringMatching(
        /^ {2}win-1: DNAT\+SNAT .* dst 10\.96\.0\.11:80 → 10\.244\.2\.4:8080 \(LoadBalancer\)$/,
      ),
      '  win-1: Encapsulated VXLAN VNI 4096 10.0.0.10 → 10.0.0.11:4789 (ProviderAddress)',
      '  win-2: Decapsulated VXLAN VNI 4096 (Network flannel.4096)',
      '  Delivered at endpoint b_flannel.4096 on win-2',
      'branch 2 of 2',
      expect.stringMatching(
        /^ {2}win-1: DNAT\+SNAT .* dst 10\.96\.0\.11:80 → 10\.244\.1\.4:8080 \(LoadBalancer\)$/,
      ),
      '  Delivered at endpoint b2_flannel.4096 on win-1',
    ]);
    const out = renderTrace(c.trace({ from: 'default/a', to: 'www.bing.com' }), 'minimal', { names });
    expect(out).toMatch(
      /\nwin-1: SNAT src 10\.244\.1\.3:50000 → 10\.0\.0\.10:\d+ \(OutBoundNAT a_flannel\.4096\)\n/,
    );
    expect(out.split('\n').at(-1)).toBe('Delivered at external 204.79.197.200 on bing');
    for (const t of [svc, out]) {
      expect(t).not.toMatch(GUID);
      expect(t).not.toMatch(/Allowed|Excepted|Container|Switched|Transmitted/);
    }
  });

  it('a name that does not resolve ends NameNotResolved after the DNS line', () => {
    const c = twoNodes();
    expect(renderTrace(c.trace({ from: 'default/a', to: 'nope' }), 'minimal')).toBe(
      [
        'trace default/a → nope, TCP 50000 → 80',
        'dns nope: not resolved (query Delivered on win-2)',
        'NameNotResolved on win-1',
      ].join('\n'),
    );
  });
});

/**
 * The whole text of each level for two traces, written out by hand from the format the renderer
 * promises (ovn-trace's three levels, DESIGN.md; docs/cli.md `trace --level`): a heading, the packet,
 * a section per host with numbered steps (detailed: rule, packet changes) or one line each
 * (summary: short rule refs), the disposition, the final packet, then the reply indented; minimal:
 * the translations and the disposition only. The objects' IDs and MACs are read from the hosts
 * (the renderer does not choose them); addresses and ports are the model's documented choices
 * (WinNAT host address, PortMapping, the SourceVIP's SNAT port after the 64-port blocks of the
 * node's three non-DSR load balancers: 49152 + 3 × 64 = 49344). Two builds give the same text.
 */
function macOf(host: Host, adapter: string): string {
  const a = host.adapters().find((x) => x['Name'] === adapter);
  return String(a?.['MacAddress']);
}

function hostCase(): {
  text: (level: (typeof TRACE_LEVELS)[number]) => string;
  want: Record<string, string>;
} {
  const { host, web } = smallHost();
  const r = host.trace({ from: '192.168.1.50', to: 'host', destinationPort: 8080, reply: true });
  const webMac = String(ok(host.api.HcnQueryEndpointProperties(web, ''))['MacAddress']);
  const nic = macOf(host, 'Ethernet');
  const vnic = macOf(host, 'vEthernet (nat)');
  const out = '02-00-00-00-FE-01';
  const pm = `rule: Endpoint web ${web}, policy PortMapping [0], layer SLB_NAT_LAYER, rule NAT_PORTMAPPING_TCP_8080_80`;
  const want = {
    detailed: [
      'Trace 192.168.1.50 → host, TCP 50000 → 8080',
      '',
      'Packet TCP 192.168.1.50:50000 → 10.0.98.11:8080, TTL 128',
      '',
      'node-1',
      '  1. Underlay Arrived: from 192.168.1.50, outside the modelled network',
      `       packet: srcMac none → ${out}, dstMac none → ${nic}`,
      '  2. Port Received: on the uplink',
      '  3. NAT DNAT: host port 8080 → 172.23.128.2:80',
      `       ${pm}`,
      '       packet: dst 10.0.98.11:8080 → 172.23.128.2:80',
      '  4. vSwitch Switched: from the host to port web',
      `       packet: srcMac ${out} → ${vnic}, dstMac ${nic} → ${webMac}`,
      '  5. ACL Allowed: VFP In',
      `       rule: Endpoint web ${web}, policy ACL [1], Id allow-80, priority 100, layer ACL_ENDPOINT_LAYER, rule allow-80`,
      '  6. Delivery Delivered: to web',
      '',
      `Disposition: Delivered at endpoint web (${web}) on node-1`,
      `Final packet TCP 192.168.1.50:50000 → 172.23.128.2:80, TTL 128, MAC ${vnic} → ${webMac}`,
      '',
      'Reply web → 192.168.1.50, TCP 80 → 50000',
      '',
      `  Packet TCP 172.23.128.2:80 → 192.168.1.50:50000, TTL 128, MAC ${webMac} → ${vnic}`,
      '',
      '  node-1',
      '    1. Container Sent: via gateway 172.23.128.1',
      '    2. Conntrack Established: reply of an allowed flow: the port rules are skipped',
      '    3. Conntrack UnDNAT: reply of a tracked connection: its translation is undone',
      `         ${pm}`,
      '         packet: src 172.23.128.2:80 → 10.0.98.11:8080',
      '    4. vSwitch ToHost: to the host through vEthernet (nat)',
      '    5. HostStack Forwarded: 0.0.0.0/0 → 10.0.0.1 on Ethernet',
      '         rule: Host node-1, policy Route, layer HostStack, rule 0.0.0.0/0 via 10.0.0.1 dev Ethernet',
      `         packet: srcMac ${webMac} → ${nic}, TTL 128 → 127`,
      '    6. Port Transmitted: on the uplink towards 10.0.0.1',
      '    7. Underlay ExitsNetwork: towards 10.0.0.1: outside the modelled network',
      `         packet: dstMac ${vnic} → ${out}`,
      '',
      '  Disposition: ExitsNetwork at external 192.168.1.50 on node-1',
      `  Final packet TCP 10.0.98.11:8080 → 192.168.1.50:50000, TTL 127, MAC ${nic} → ${out}`,
    ].join('\n'),
    summary: [
      'Trace 192.168.1.50 → host, TCP 50000 → 8080: TCP 192.168.1.50:50000 → 10.0.98.11:8080',
      'node-1',
      '  Underlay Arrived  from 192.168.1.50, outside the modelled network',
      '  Port Received  on the uplink',
      '  NAT DNAT [web PortMapping#0 NAT_PORTMAPPING_TCP_8080_80]  host port 8080 → 172.23.128.2:80',
      '  vSwitch Switched  from the host to port web',
      '  ACL Allowed [web ACL#1 allow-80]  VFP In',
      '  Delivery Delivered  to web',
      '→ Delivered at endpoint web on node-1',
      'Reply web → 192.168.1.50, TCP 80 → 50000',
      '  node-1',
      '    Container Sent  via gateway 172.23.128.1',
      '    Conntrack Established  reply of an allowed flow: the port rules are skipped',
      '    Conntrack UnDNAT [web PortMapping#0 NAT_PORTMAPPING_TCP_8080_80]  reply of a tracked connection: its translation is undone',
      '    vSwitch ToHost  to the host through vEthernet (nat)',
      '    HostStack Forwarded [node-1 Route 0.0.0.0/0 via 10.0.0.1 dev Ethernet]  0.0.0.0/0 → 10.0.0.1 on Ethernet',
      '    Port Transmitted  on the uplink towards 10.0.0.1',
      '    Underlay ExitsNetwork  towards 10.0.0.1: outside the modelled network',
      '  → ExitsNetwork at external 192.168.1.50 on node-1',
    ].join('\n'),
    minimal: [
      'trace 192.168.1.50 → host, TCP 50000 → 8080',
      'node-1: DNAT dst 10.0.98.11:8080 → 172.23.128.2:80 (PortMapping web)',
      'Delivered at endpoint web on node-1',
      'reply TCP 172.23.128.2:80 → 192.168.1.50:50000',
      '  node-1: UnDNAT src 172.23.128.2:80 → 10.0.98.11:8080 (PortMapping web)',
      '  ExitsNetwork at external 192.168.1.50 on node-1',
    ].join('\n'),
  };
  return { text: (level) => renderTrace(r, level, { names: traceNames(host) }), want };
}

function clusterCase(): {
  text: (level: (typeof TRACE_LEVELS)[number]) => string;
  want: Record<string, string>;
} {
  const c = twoNodes();
  const r = c.trace({ from: 'default/a', to: 'web', reply: true, allBranches: true });
  const s1 = c.host('win-1').hns.store;
  const lbId = [...s1.loadBalancers.values()].find((lb) => lb.FrontendVIPs[0] === '10.96.0.11')!.ID;
  const remoteB = [...s1.endpoints.values()].find(
    (e) => e.IpConfigurations[0]?.IpAddress === '10.244.2.4',
  )!.ID;
  const lb = lbId.slice(0, 8);
  const lbRef = `[LoadBalancer ${lb} PortMappings#0 LB_${lb}_10.96.0.11_80_6]`;
  const dns = 'web → web.default.svc.cluster.local = 10.96.0.11 (tried web.default.svc.cluster.local)';
  const toB2 = [
    `DNS Resolved  ${dns}`,
    'Container Sent  via gateway 10.244.1.1',
    `LB DNAT+SNAT ${lbRef}  backend 2 of 2: 10.244.1.4:8080; source → 10.244.1.2:49344 (non-DSR: SourceVIP)`,
    'NAT Excepted [a_flannel.4096 OutBoundNAT#0 EXCEPTION]  10.244.1.4 is in the OutBoundNAT exceptions: no SNAT',
    'vSwitch Switched  to port b2_flannel.4096',
    'Delivery Delivered  to b2_flannel.4096',
  ];
  const indent = (n: number, ls: string[]) => ls.map((l) => ' '.repeat(n) + l);
  const want = {
    summary: [
      'Trace default/a → web, TCP 50000 → 80: TCP 10.244.1.3:50000 → 10.96.0.11:80',
      `DNS ${dns}`,
      '  query: Delivered at endpoint coredns-0_flannel.4096 on win-2',
      'win-1',
      ...indent(2, toB2),
      '→ Delivered at endpoint b2_flannel.4096 on win-1',
      'Reply default/b2 → default/a, TCP 8080 → 49344',
      '  win-1',
      '    Container Sent  10.244.1.2 is on-link',
      '    Conntrack Established  reply of an allowed flow: the port rules are skipped',
      `    Conntrack UnNAT ${lbRef}  reply of a tracked connection: its translation is undone`,
      '    vSwitch Switched  to port a_flannel.4096',
      '    Conntrack Established  reply of a tracked flow (the port has no ACL)',
      '    Delivery Delivered  to a_flannel.4096',
      '  → Delivered at endpoint a_flannel.4096 on win-1',
      '',
      `Branches: 2, one per backend of LoadBalancer ${lb} on win-1`,
      '  Branch 1 of 2:',
      '    win-1',
      `      DNS Resolved  ${dns}`,
      '      Container Sent  via gateway 10.244.1.1',
      `      LB DNAT+SNAT ${lbRef}  backend 1 of 2: 10.244.2.4:8080 (remote endpoint); source → 10.244.1.2:49344 (non-DSR: SourceVIP)`,
      '      NAT Excepted [a_flannel.4096 OutBoundNAT#0 EXCEPTION]  10.244.2.4 is in the OutBoundNAT exceptions: no SNAT',
      `      Encap Encapsulated [Endpoint ${remoteB.slice(0, 8)} ProviderAddress ENCAP_10.244.2.4/32_10.0.0.11_4096]  VXLAN VNI 4096 to 10.0.0.11:4789`,
      '      Port Transmitted  on the uplink towards 10.0.0.11',
      '      Underlay Switched  segment nodes to win-2 (10.0.0.11)',
      '    win-2',
      '      Port Received  on the uplink',
      '      Decap Decapsulated [flannel.4096]  VXLAN VNI 4096',
      '      Delivery Delivered  to b_flannel.4096',
      '    → Delivered at endpoint b_flannel.4096 on win-2',
      '  Branch 2 of 2:',
      '    win-1',
      ...indent(6, toB2),
      '    → Delivered at endpoint b2_flannel.4096 on win-1',
    ].join('\n'),
    minimal: [
      'trace default/a → web, TCP 50000 → 80',
      'dns web → web.default.svc.cluster.local = 10.96.0.11 (query Delivered on win-2)',
      'win-1: DNAT+SNAT src 10.244.1.3:50000 → 10.244.1.2:49344, dst 10.96.0.11:80 → 10.244.1.4:8080 (LoadBalancer)',
      'Delivered at endpoint b2_flannel.4096 on win-1',
      'reply TCP 10.244.1.4:8080 → 10.244.1.2:49344',
      '  win-1: UnNAT src 10.244.1.4:8080 → 10.96.0.11:80, dst 10.244.1.2:49344 → 10.244.1.3:50000 (LoadBalancer)',
      '  Delivered at endpoint a_flannel.4096 on win-1',
      'branch 1 of 2',
      '  win-1: DNAT+SNAT src 10.244.1.3:50000 → 10.244.1.2:49344, dst 10.96.0.11:80 → 10.244.2.4:8080 (LoadBalancer)',
      '  win-1: Encapsulated VXLAN VNI 4096 10.0.0.10 → 10.0.0.11:4789 (ProviderAddress)',
      '  win-2: Decapsulated VXLAN VNI 4096 (Network flannel.4096)',
      '  Delivered at endpoint b_flannel.4096 on win-2',
      'branch 2 of 2',
      '  win-1: DNAT+SNAT src 10.244.1.3:50000 → 10.244.1.2:49344, dst 10.96.0.11:80 → 10.244.1.4:8080 (LoadBalancer)',
      '  Delivered at endpoint b2_flannel.4096 on win-1',
    ].join('\n'),
  };
  return { text: (level) => renderTrace(r, level, { names: clusterNames(c) }), want };
}

describe('every level, as whole text', () => {
  it('a host: a port mapping from outside and its reply, at the three levels', () => {
    for (const make of [hostCase, hostCase]) {
      const { text, want } = make();
      for (const level of TRACE_LEVELS) expect(text(level), level).toBe(want[level]);
    }
  });

  it('a cluster: DNS, a service, VXLAN, the reply and the branches, summary and minimal', () => {
    for (const make of [clusterCase, clusterCase]) {
      const { text, want } = make();
      expect(text('summary')).toBe(want['summary']);
      expect(text('minimal')).toBe(want['minimal']);
    }
  });

  it.each([
    ['host', hostCase],
    ['cluster', clusterCase],
  ] as const)('ends each trace with its disposition and has no trailing newline (%s)', (_what, make) => {
    const { text } = make();
    for (const level of TRACE_LEVELS) {
      const t = text(level);
      expect(t.endsWith('\n')).toBe(false);
      expect(t).toMatch(/Delivered at endpoint/);
    }
  });
});

describe('packetFieldChanges', () => {
  it('names only what changed: an address and port together, MACs, TTL, the outer header', () => {
    const p = packet({
      srcIp: ip('10.0.0.1'),
      dstIp: ip('10.0.0.2'),
      proto: TCP,
      srcPort: 1000,
      dstPort: 80,
    });
    expect(packetFieldChanges(p, p)).toEqual([]);
    expect(packetFieldChanges(p, { ...p, srcIp: ip('10.0.0.9') })).toEqual(['srcIp 10.0.0.1 → 10.0.0.9']);
    expect(packetFieldChanges(p, { ...p, dstPort: 8080 })).toEqual(['dstPort 80 → 8080']);
    expect(packetFieldChanges(p, { ...p, srcIp: ip('10.0.0.9'), srcPort: 5, ttl: 127 })).toEqual([
      'src 10.0.0.1:1000 → 10.0.0.9:5',
      'TTL 128 → 127',
    ]);
    expect(packetFieldChanges(p, { ...p, dstMac: 0x00155d000001 })).toEqual([
      'dstMac none → 00-15-5D-00-00-01',
    ]);
    const outer = {
      srcMac: 0x000d3a000001,
      dstMac: 0,
      srcIp: ip('10.0.0.10'),
      dstIp: ip('10.0.0.11'),
      srcPort: 50001,
      dstPort: 4789,
      vni: 4096,
    };
    const enc = { ...p, outer };
    expect(packetFieldChanges(p, enc)).toEqual([
      '+outer VXLAN VNI 4096 10.0.0.10:50001 → 10.0.0.11:4789 (00-0D-3A-00-00-01 → none)',
    ]);
    expect(packetFieldChanges(enc, { ...enc, outer: { ...outer, dstMac: 0x000d3a000002 } })).toEqual([
      'outer dstMac none → 00-0D-3A-00-00-02',
    ]);
    expect(packetFieldChanges(enc, p)).toEqual(['-outer VXLAN VNI 4096']);
  });
});
