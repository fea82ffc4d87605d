/**
 * NodePort Services on Antrea Windows nodes (docs/antrea.md "Services"; reference ovs-windows.md
 * §1.7, §2.5, §5 row 11): the NetNat `antrea-nat-nodeport` static mapping DNATs
 * `<NodeIP>:<nodePort>` (any address: 0.0.0.0) to `169.254.0.252:<nodePort>`, the host route for
 * 169.254.0.252 hands it to antrea-gw0, and OVS load-balances it on the NodePort mark (ServiceLB →
 * group → EndpointDNAT), SNATing to the gateway for a remote endpoint; never DSR. Replies retrace
 * the path and the NetNat un-DNATs them (antrea-io/antrea pkg/agent/proxy/proxier.go
 * installNodePortService, pkg/agent/route/route_windows.go AddNodePortConfigs).
 */
import { describe, expect, it } from 'vitest';
import { Cluster } from '../../src/cluster/cluster.js';
import type { Observation } from '../../src/vswitch/contracts.js';
import type { TraceResult } from '../../src/dataplane/trace.js';

/** The seed-5 cluster's addresses (test/cluster/antrea.test.ts shows the same ones). */
const WIN_A = '10.0.0.10';
const WIN_B = '10.0.0.11';
const GW_A = '10.244.1.1';
const CLIENT = '204.79.197.200';

const num = (ip: string) => ip.split('.').reduce((a, x) => a * 256 + Number(x), 0) >>> 0;

/** Two Antrea nodes, web pods where asked, a NodePort Service web (80 → 8080, nodePort 30080). */
function build(webOn: readonly ('win-a' | 'win-b')[]) {
  const c = new Cluster({ seed: 5 });
  c.addWindowsNode({ name: 'win-a', network: 'antrea' });
  c.addWindowsNode({ name: 'win-b', network: 'antrea' });
  webOn.forEach((node, i) =>
    c.addPod({ namespace: 'default', name: `web-${i}`, node, labels: { app: 'web' } }),
  );
  c.addPod({ namespace: 'default', name: 'client-b', node: 'win-b', labels: { app: 'client' } });
  c.addExternalHost({ name: 'www', ip: CLIENT });
  c.addService({
    namespace: 'default',
    name: 'web',
    type: 'NodePort',
    ports: [{ port: 80, targetPort: 8080, nodePort: 30080 }],
    selector: { app: 'web' },
  });
  return c;
}

const toNodePort = (c: Cluster, from: string, node = WIN_A) =>
  c.trace({ from, to: node, protocol: 'tcp', destinationPort: 30080, reply: true });

const find = (t: TraceResult, f: (o: Observation) => boolean): Observation => {
  const o = t.observations.find(f);
  if (!o) throw new Error(`no such step in ${t.observations.map((x) => `${x.host}:${x.action}`).join(' ')}`);
  return o;
};

/** The NetNat's DNAT on win-a: named after the mapping, to 169.254.0.252:30080. */
function expectNetNatDnat(t: TraceResult, src: string): void {
  const dnat = find(t, (o) => o.host === 'win-a' && o.rule?.policy === 'NetNatStaticMapping');
  expect(dnat).toMatchObject({
    component: 'NAT',
    action: 'DNAT',
    rule: {
      kind: 'Host',
      name: 'antrea-nat-nodeport',
      layer: 'WinNAT',
      rule: 'NetNatStaticMapping antrea-nat-nodeport TCP 0.0.0.0:30080 → 169.254.0.252:30080',
    },
  });
  expect(dnat.packetBefore).toMatchObject({ srcIp: num(src), dstIp: num(WIN_A), dstPort: 30080 });
  expect(dnat.packetAfter).toMatchObject({ srcIp: num(src), dstIp: num('169.254.0.252'), dstPort: 30080 });
  // then the host route for 169.254.0.252 via 169.254.0.253 on antrea-gw0
  const i = t.observations.indexOf(dnat);
  expect(t.observations[i + 1]).toMatchObject({
    host: 'win-a',
    component: 'HostStack',
    action: 'Forwarded',
    rule: { rule: '169.254.0.252/32 via 169.254.0.253 dev antrea-gw0' },
  });
  // OVS: NodePortMark on 169.254.0.252, then ServiceLB on the NodePort mark and nodePort
  const after = t.observations.slice(i);
  expect(after.find((o) => o.host === 'win-a' && o.rule?.policy === 'NodePortMark')!.rule!.rule).toBe(
    'ip,nw_dst=169.254.0.252,actions=set_field:0x80000/0x80000->reg4',
  );
  expect(after.find((o) => o.host === 'win-a' && o.rule?.policy === 'ServiceLB')!.rule!.rule).toMatch(
    /^tcp,reg4=0x90000\/0xf0000,tp_dst=30080,actions=.*set_field:0x200000\/0x200000->reg4,/,
  );
}

/** The reply un-DNATed by the NetNat: it leaves win-a from <NodeIP>:30080. */
function expectReplyFromNodePort(t: TraceResult, to: string): void {
  const reply = t.reply!;
  expect(reply.disposition).toBe('Delivered');
  const un = find(reply, (o) => o.host === 'win-a' && o.rule?.policy === 'NetNatStaticMapping');
  expect(un).toMatchObject({ component: 'NAT', action: 'UnDNAT' });
  expect(un.packetBefore).toMatchObject({ srcIp: num('169.254.0.252'), srcPort: 30080 });
  expect(un.packetAfter).toMatchObject({ srcIp: num(WIN_A), srcPort: 30080, dstIp: num(to) });
}

describe('a NodePort Service on Antrea nodes', () => {
  it('the host state route_windows.go makes: routes via 169.254.0.253 on antrea-gw0, the antrea-nat-nodeport NetNat and one static mapping per nodePort', () => {
    const c = build(['win-a']);
    for (const node of ['win-a', 'win-b']) {
      const h = c.host(node);
      expect(h.netNats()).toContainEqual({
        name: 'antrea-nat-nodeport',
        internalIPInterfaceAddressPrefix: '169.254.0.252/32',
      });
      // every node maps the port, whatever node the endpoints are on
      expect(h.netNatStaticMappings()).toEqual([
        {
          staticMappingID: 0,
          natName: 'antrea-nat-nodeport',
          protocol: 'TCP',
          externalIPAddress: '0.0.0.0',
          externalPort: 30080,
          internalIPAddress: '169.254.0.252',
          internalPort: 30080,
        },
      ]);
      const routes = h
        .routes()
        .filter((r) => r.origin === 'User' && r.dest.len === 32)
        .map((r) => [r.dest.addr, r.nextHop, r.iface]);
      expect(routes).toEqual([
        [num('169.254.0.253'), 0, 'antrea-gw0'],
        [num('169.254.0.252'), num('169.254.0.253'), 'antrea-gw0'],
      ]);
    }
  });

  it('the NodePort ServiceLB flow: the NodePort mark and nodePort, no address, ToExternalAddress, the ClusterIP’s group', () => {
    const c = build(['win-a']);
    // derived from pipeline.go serviceLBFlows (no upstream vector without affinity; see
    // test/plugins/antrea/pipeline.test.ts for the upstream one with affinity); group 6: the
    // cluster's kubernetes Service took 5
    const expected =
      'cookie=0x1030000000000, table=ServiceLB, priority=200,tcp,reg4=0x90000/0xf0000,tp_dst=30080 actions=set_field:0x200/0x200->reg0,set_field:0x20000/0x70000->reg4,set_field:0x200000/0x200000->reg4,set_field:0x6->reg7,group:6';
    const agent = (c.nodeOf('win-a') as { antrea: { flows(): string[] } }).antrea;
    expect(agent.flows()).toContain(expected);
    const dump = c.host('win-a').ovs.ofctl(['dump-flows', 'br-int', 'table=11', '--no-stats']).stdout;
    expect(dump).toContain(
      'priority=200,tcp,reg4=0x90000/0xf0000,tp_dst=30080 actions=set_field:0x200/0x200->reg0,set_field:0x20000/0x70000->reg4,set_field:0x200000/0x200000->reg4,set_field:0x6->reg7,group:6',
    );
  });

  it('outside → NodeIP:nodePort, local endpoint: NetNat DNAT to 169.254.0.252, antrea-gw0, OVS ServiceLB and EndpointDNAT; the client address kept (no SNAT, no DSR); the reply un-DNATed', () => {
    const c = build(['win-a']);
    const t = toNodePort(c, 'www');
    expect(t.disposition).toBe('Delivered');
    expect(t.at).toBe(`endpoint:${c.pod('default/web-0')!.endpointId}`);
    expectNetNatDnat(t, CLIENT);
    expect(
      find(t, (o) => o.rule?.policy === 'EndpointDNAT' && o.action === 'DNAT').packetAfter,
    ).toMatchObject({
      dstIp: num(c.pod('default/web-0')!.ip),
      dstPort: 8080,
    });
    expect(t.final).toMatchObject({ srcIp: num(CLIENT), dstPort: 8080 });
    expect(t.observations.some((o) => o.action === 'SNAT')).toBe(false);
    expectReplyFromNodePort(t, CLIENT);
    expect(t.reply).toMatchObject({ disposition: 'Delivered', at: `external:${CLIENT}` });
    expect(t.reply!.final).toMatchObject({ srcIp: num(WIN_A), srcPort: 30080, dstIp: num(CLIENT) });
  });

  it('the other node’s host → NodeIP:nodePort, remote endpoint: SNATed to the gateway and tunnelled to win-b; the reply back through win-a', () => {
    const c = build(['win-b']);
    const t = toNodePort(c, 'win-b');
    expect(t.disposition).toBe('Delivered');
    expect(t.at).toBe(`endpoint:${c.pod('default/web-0')!.endpointId}`);
    expectNetNatDnat(t, WIN_B);
    // an external address to a remote endpoint: SNAT to the gateway in zone 65521
    const snat = find(t, (o) => o.host === 'win-a' && o.action === 'SNAT');
    expect(snat.detail).toContain('zone 65521');
    expect(snat.packetAfter.srcIp).toBe(num(GW_A));
    expect(find(t, (o) => o.action === 'Encapsulated').host).toBe('win-a');
    expect(find(t, (o) => o.action === 'Decapsulated').host).toBe('win-b');
    expect(t.final).toMatchObject({
      srcIp: num(GW_A),
      dstIp: num(c.pod('default/web-0')!.ip),
      dstPort: 8080,
    });
    expectReplyFromNodePort(t, WIN_B);
    expect(t.reply).toMatchObject({ disposition: 'Delivered', at: 'host' });
    expect(t.reply!.host).toBe('win-b');
  });

  it('a pod on the other node → NodeIP:nodePort: SNATed by its own antrea-nat, DNATed by win-a’s mapping; the reply reaches the pod', () => {
    const c = build(['win-a', 'win-b']);
    const t = toNodePort(c, 'default/client-b');
    expect(t.disposition).toBe('Delivered');
    expect(find(t, (o) => o.host === 'win-b' && o.action === 'SNAT').rule).toMatchObject({
      policy: 'NetNat',
      name: 'antrea-nat',
    });
    expectNetNatDnat(t, WIN_B);
    expectReplyFromNodePort(t, WIN_B);
    expect(t.reply!.at).toBe(`endpoint:${c.pod('default/client-b')!.endpointId}`);
  });

  it('what the mapping does not take: the node’s own host traffic to its NodePort (WinNAT maps inbound traffic only: docs/model.md)', () => {
    const c = build(['win-a']);
    const t = c.trace({ from: 'win-a', to: WIN_A, protocol: 'tcp', destinationPort: 30080 });
    expect(t.disposition).toBe('Delivered');
    expect(t.at).toBe('host');
    expect(t.observations.some((o) => o.component === 'NAT')).toBe(false);
  });

  it('removing the Service removes its mapping and flows on every node: the port is the host’s own again (no DNAT, no OVS Service stage)', () => {
    const c = build(['win-a']);
    const br = c.host('win-a').ovs.bridge('br-int')!;
    const before = br.flowCount;
    expect(c.removeService('default', 'web')).toBe(true);
    for (const node of ['win-a', 'win-b']) expect(c.host(node).netNatStaticMappings()).toEqual([]);
    // ServiceLB for the ClusterIP and the NodePort, the local endpoint's EndpointDNAT and hairpin SNATMark
    expect(br.flowCount).toBe(before - 4);
    expect(c.host('win-a').ovs.ofctl(['dump-flows', 'br-int', 'table=11']).stdout).not.toContain(
      'tp_dst=30080',
    );
    // the NetNat itself stays (route_windows.go makes it once, at Initialize)
    expect(
      c
        .host('win-a')
        .netNats()
        .map((n) => n.name),
    ).toContain('antrea-nat-nodeport');
    const t = toNodePort(c, 'www');
    // the model has no listening sockets: what reaches the host's address is delivered to the host
    expect(t.disposition).toBe('Delivered');
    expect(t.at).toBe('host');
    expect(t.observations.some((o) => o.component === 'NAT')).toBe(false);
    expect(t.observations.some((o) => o.rule?.policy === 'ServiceLB')).toBe(false);
  });

  it('a nodePort another Service holds is refused (E_INVALIDARG) and nothing changes', () => {
    const c = build(['win-a']);
    const flows = c.host('win-a').ovs.bridge('br-int')!.flowCount;
    expect(() =>
      c.addService({
        namespace: 'default',
        name: 'web2',
        type: 'NodePort',
        ports: [{ port: 81, nodePort: 30080, protocol: 'UDP' }],
        selector: { app: 'web' },
      }),
    ).toThrow(expect.objectContaining({ code: 'E_INVALIDARG' }));
    expect(c.host('win-a').netNatStaticMappings()).toHaveLength(1);
    expect(c.host('win-a').ovs.bridge('br-int')!.flowCount).toBe(flows);
    expect(toNodePort(c, 'www').disposition).toBe('Delivered');
  });
});
