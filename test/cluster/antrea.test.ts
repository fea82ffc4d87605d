/**
 * A cluster of Antrea Windows nodes (src/cluster/antrea.ts, src/plugins/antrea): each node prepared
 * by its agent, the agents told of each other (tunnels, routes), pods attached by the agent; traces
 * cross the cluster's underlay in Geneve (or VXLAN, STT) through both nodes' OVS bridges.
 */
import { describe, expect, it, vi } from 'vitest';
import { Cluster } from '../../src/cluster/cluster.js';
import { hnsError } from '../../src/core/errors.js';
import { traceflowResults } from '../../src/render/traceflow.js';
import { fmt as fmtIp } from '../../src/vswitch/v4.js';

function cluster(tunnelType?: 'geneve' | 'vxlan' | 'stt') {
  const c = new Cluster({ seed: 5 });
  c.addWindowsNode({ name: 'win-a', network: 'antrea', ...(tunnelType ? { tunnelType } : {}) });
  c.addWindowsNode({ name: 'win-b', network: 'antrea', ...(tunnelType ? { tunnelType } : {}) });
  c.addPod({ namespace: 'default', name: 'client', node: 'win-a' });
  c.addPod({ namespace: 'default', name: 'web', node: 'win-a' });
  c.addPod({ namespace: 'default', name: 'db', node: 'win-b' });
  return c;
}

const components = (t: ReturnType<Cluster['trace']>) =>
  t.observations.map((o) => `${o.host}:${o.component}:${o.action}`);

describe('an Antrea cluster', () => {
  it('pods get addresses from their node’s pod subnet (the gateway is .1), endpoints named as Antrea names them', () => {
    const c = cluster();
    const [client, web, db] = ['default/client', 'default/web', 'default/db'].map((r) => c.pod(r)!);
    expect(client!.ip.endsWith('.2')).toBe(true);
    expect(web!.ip.endsWith('.3')).toBe(true);
    expect(db!.ip.endsWith('.2')).toBe(true);
    const eps = c.host('win-a').api.HNSCall('GET', '/endpoints/', '');
    const names = (eps.ok ? (eps.result['Output'] as { Name: string }[]) : []).map((e) => e.Name).sort();
    expect(names).toHaveLength(2);
    for (const n of names) expect(n).toMatch(/^(client|web)-[0-9a-f]{6}$/);
  });

  it('pod → pod on a node: OVS only, delivered', () => {
    const c = cluster();
    const t = c.trace({ from: 'default/client', to: 'default/web', protocol: 'tcp', destinationPort: 80 });
    expect(t.disposition).toBe('Delivered');
    expect(components(t).some((s) => s.startsWith('win-a:OVS:Matched'))).toBe(true);
    expect(components(t).some((s) => s.includes(':ACL:') || s.includes(':LB:'))).toBe(false);
  });

  it.each(['geneve', 'vxlan', 'stt'] as const)(
    'pod → pod across nodes in %s: encapsulated on win-a, decapsulated on win-b',
    (type) => {
      const c = cluster(type);
      const t = c.trace({ from: 'default/client', to: 'default/db', protocol: 'tcp', destinationPort: 5432 });
      expect(t.disposition).toBe('Delivered');
      expect(t.host).toBe('win-b');
      const enc = t.observations.find((o) => o.action === 'Encapsulated')!;
      expect(enc.host).toBe('win-a');
      expect(enc.detail).toMatch(new RegExp(`^${type.toUpperCase()} VNI 0 from `));
      expect(enc.packetAfter.outer!.dstPort).toBe({ geneve: 6081, vxlan: 4789, stt: 7471 }[type]);
      expect(t.observations.some((o) => o.host === 'win-b' && o.action === 'Decapsulated')).toBe(true);
      // and back: the reply takes the tunnel the other way
      const r = c.trace({
        from: 'default/client',
        to: 'default/db',
        protocol: 'tcp',
        destinationPort: 5432,
        reply: true,
      });
      expect(r.disposition).toBe('Delivered');
    },
  );

  it('pod → its node and the other node; node → pod', () => {
    const c = cluster();
    expect(
      c.trace({ from: 'default/client', to: 'win-a', protocol: 'tcp', destinationPort: 10250 }).disposition,
    ).toBe('Delivered');
    const toB = c.trace({ from: 'default/client', to: 'win-b', protocol: 'tcp', destinationPort: 10250 });
    expect(toB.disposition).toBe('Delivered');
    expect(toB.host).toBe('win-b');
    const nodeToPod = c.trace({ from: 'win-b', to: 'default/client', protocol: 'tcp', destinationPort: 80 });
    expect(nodeToPod.disposition).toBe('Delivered');
  });

  it('pod → outside: out of antrea-gw0, SNATed by the antrea-nat NetNat to the node address, LOCAL → uplink; the reply is un-NATed and comes back in (§2.5)', () => {
    const c = cluster();
    c.addExternalHost({ name: 'www', ip: '204.79.197.200' });
    const t = c.trace({
      from: 'default/client',
      to: '204.79.197.200',
      protocol: 'tcp',
      destinationPort: 443,
      reply: true,
    });
    expect(t.disposition).toBe('Delivered');
    const snat = t.observations.find((o) => o.action === 'SNAT')!;
    expect(snat).toMatchObject({
      host: 'win-a',
      component: 'NAT',
      rule: { policy: 'NetNat', name: 'antrea-nat', layer: 'WinNAT' },
    });
    expect(snat.packetAfter.srcIp).toBe(c.nodeOf('win-a')!.ip);
    const outs = t.observations
      .filter((o) => o.component === 'OVS' && o.action === 'Output')
      .map((o) => o.detail);
    expect(outs).toEqual([
      'to antrea-gw0(32769): the host vNIC antrea-gw0',
      'to Ethernet(32770): the physical NIC',
    ]);
    const reply = t.reply!;
    expect(reply.disposition).toBe('Delivered');
    expect(reply.at).toBe(`endpoint:${c.pod('default/client')!.endpointId}`);
    expect(reply.observations.some((o) => o.action === 'UnSNAT')).toBe(true);
    // (and, with proxyAll, the NodePorts' NetNat: test/cluster/antrea-nodeport.test.ts)
    expect(c.host('win-a').netNats()).toEqual([
      { name: 'antrea-nat', internalIPInterfaceAddressPrefix: '10.244.1.0/24' },
      { name: 'antrea-nat-nodeport', internalIPInterfaceAddressPrefix: '169.254.0.252/32' },
    ]);
  });

  it('a removed pod: its endpoint, OVS port and flows go; traces to its address find nothing', () => {
    const c = cluster();
    const web = c.pod('default/web')!;
    const host = c.host('win-a');
    const flows = host.ovs.bridge('br-int')!.flowCount;
    expect(c.removePod('default', 'web')).toBe(true);
    expect(host.ovs.bridge('br-int')!.flowCount).toBe(flows - 5);
    const t = c.trace({ from: 'default/client', to: web.ip, protocol: 'tcp', destinationPort: 80 });
    expect(t.disposition).not.toBe('Delivered');
    const eps = host.api.HNSCall('GET', '/endpoints/', '');
    expect((eps.ok ? (eps.result['Output'] as unknown[]) : []).length).toBe(1);
  });

  it('bad node specs are refused and the cluster is unchanged', () => {
    const c = new Cluster({ seed: 5 });
    expect(() => c.addWindowsNode({ name: 'x', network: 'antrea', tunnelType: 'gre' as never })).toThrow(
      /tunnelType/,
    );
    expect(() => c.addWindowsNode({ name: 'x', network: 'antrea', vni: 4096 })).toThrow(/vni/);
    expect(() => c.addWindowsNode({ name: 'x', network: 'l2bridge', tunnelType: 'geneve' })).toThrow(
      /antrea/,
    );
    expect(c.nodeNames()).toEqual([]);
    c.addWindowsNode({ name: 'x', network: 'antrea' });
    expect(() => c.addPod({ namespace: 'd', name: 'p', node: 'x', policies: [{ Type: 'ACL' }] })).toThrow(
      /HNS policies/,
    );
  });
});

describe('Services on Antrea nodes (AntreaProxy in OVS)', () => {
  function withService() {
    const c = new Cluster({ seed: 5 });
    c.addWindowsNode({ name: 'win-a', network: 'antrea' });
    c.addWindowsNode({ name: 'win-b', network: 'antrea' });
    c.addPod({ namespace: 'default', name: 'client', node: 'win-a', labels: { app: 'client' } });
    c.addPod({ namespace: 'default', name: 'web-0', node: 'win-b', labels: { app: 'web' } });
    const { clusterIP } = c.addService({
      namespace: 'default',
      name: 'web',
      ports: [{ port: 80, targetPort: 8080 }],
      selector: { app: 'web' },
    });
    return { c, clusterIP };
  }

  it('pod → ClusterIP: ServiceLB picks the endpoint, EndpointDNAT commits the DNAT, the tunnel carries it; the reply comes back from the ClusterIP', () => {
    const { c, clusterIP } = withService();
    const t = c.trace({
      from: 'default/client',
      to: clusterIP,
      protocol: 'tcp',
      destinationPort: 80,
      reply: true,
    });
    expect(t.disposition).toBe('Delivered');
    expect(t.at).toBe(`endpoint:${c.pod('default/web-0')!.endpointId}`);
    const dnat = t.observations.find((o) => o.host === 'win-a' && o.rule?.policy === 'EndpointDNAT')!;
    expect(dnat.rule!.rule).toContain(`nat(dst=${c.pod('default/web-0')!.ip}:8080)`);
    expect(t.final.dstIp).toBe(
      c
        .pod('default/web-0')!
        .ip.split('.')
        .reduce((a, x) => a * 256 + Number(x), 0),
    );
    expect(t.final.dstPort).toBe(8080);
    const reply = t.reply!;
    expect(reply.disposition).toBe('Delivered');
    // un-DNATed on win-a: the client sees the ClusterIP and port it called
    expect(reply.final.srcIp).toBe(clusterIP.split('.').reduce((a, x) => a * 256 + Number(x), 0));
    expect(reply.final.srcPort).toBe(80);
  });

  it('the groups follow the endpoints: a new local endpoint joins the group; none left: NoBackend at EndpointDNAT', () => {
    const { c, clusterIP } = withService();
    const hex = (ip: string) =>
      `0x${(ip.split('.').reduce((a, x) => a * 256 + Number(x), 0) >>> 0).toString(16)}`;
    const groups = () => c.host('win-a').ovs.ofctl(['dump-groups', 'br-int']).stdout.split('\n').slice(1, -1);
    // the cluster's kubernetes Service (no endpoints here: the no-endpoint bucket), then web's
    const web0 = hex(c.pod('default/web-0')!.ip);
    expect(groups()).toEqual([
      ' group_id=5,type=select,bucket=bucket_id:0,weight:100,actions=set_field:0x4000/0x4000->reg0,resubmit(,12)',
      ` group_id=6,type=select,bucket=bucket_id:0,weight:100,actions=set_field:0x4000000/0x4000000->reg4,set_field:${web0}->reg3,set_field:0x1f90/0xffff->reg4,resubmit(,12)`,
    ]);
    c.addPod({ namespace: 'default', name: 'web-1', node: 'win-a', labels: { app: 'web' } });
    const web1 = hex(c.pod('default/web-1')!.ip);
    // the local endpoint's bucket has no RemoteEndpointRegMark; the group keeps its ID
    expect(groups()[1]).toBe(
      ` group_id=6,type=select,bucket=bucket_id:0,weight:100,actions=set_field:0x4000000/0x4000000->reg4,set_field:${web0}->reg3,set_field:0x1f90/0xffff->reg4,resubmit(,12),bucket=bucket_id:1,weight:100,actions=set_field:${web1}->reg3,set_field:0x1f90/0xffff->reg4,resubmit(,12)`,
    );
    c.removePod('default', 'web-0');
    c.removePod('default', 'web-1');
    const t = c.trace({ from: 'default/client', to: clusterIP, protocol: 'tcp', destinationPort: 80 });
    expect(t.disposition).toBe('NoBackend');
    expect(t.observations[t.observations.length - 1]!.detail).toContain('(EndpointDNAT)');
  });
});

describe('Traceflow’s view of a trace (packetin.go’s observations)', () => {
  const view = (c: Cluster, from: string, to: string, port = 80) =>
    traceflowResults(c.trace({ from, to, protocol: 'tcp', destinationPort: port }));

  it('pod → pod across nodes: the sender’s SpoofGuard and tunnel, the receiver’s Received and Delivered', () => {
    const c = cluster();
    expect(view(c, 'default/client', 'default/db')).toEqual([
      {
        node: 'win-a',
        observations: [
          { component: 'SpoofGuard', action: 'Forwarded', srcPodIP: c.pod('default/client')!.ip },
          {
            component: 'Forwarding',
            componentInfo: 'Output',
            action: 'Forwarded',
            tunnelDstIP: fmtIp(c.nodeOf('win-b')!.ip),
          },
        ],
      },
      {
        node: 'win-b',
        observations: [
          { component: 'Forwarding', action: 'Received' },
          { component: 'Forwarding', componentInfo: 'Output', action: 'Delivered' },
        ],
      },
    ]);
  });

  it('pod → Service: LB with the translated destination; pod → outside: ForwardedOutOfNetwork; pod → its gateway: Delivered', () => {
    const c = cluster();
    c.addPod({ namespace: 'default', name: 'api', node: 'win-b', labels: { app: 'api' } });
    const { clusterIP } = c.addService({
      namespace: 'default',
      name: 'api',
      ports: [{ port: 80 }],
      selector: { app: 'api' },
    });
    const svc = view(c, 'default/client', clusterIP);
    expect(svc[0]!.observations).toContainEqual({
      component: 'LB',
      action: 'Forwarded',
      translatedDstIP: c.pod('default/api')!.ip,
    });
    c.addExternalHost({ name: 'www', ip: '204.79.197.200' });
    const out = view(c, 'default/client', '204.79.197.200', 443);
    expect(out).toEqual([
      {
        node: 'win-a',
        observations: [
          { component: 'SpoofGuard', action: 'Forwarded', srcPodIP: c.pod('default/client')!.ip },
          { component: 'Forwarding', componentInfo: 'Output', action: 'ForwardedOutOfNetwork' },
        ],
      },
    ]);
    const gw = c.pod('default/client')!.ip.replace(/\.\d+$/, '.1');
    expect(view(c, 'default/client', gw)[0]!.observations[1]).toEqual({
      component: 'Forwarding',
      componentInfo: 'Output',
      action: 'Delivered',
    });
  });

  it('a drop in a policy table is NetworkPolicy/Dropped with the table', () => {
    const c = cluster();
    const host = c.host('win-a');
    host.ovs.ofctl(['add-flow', 'br-int', 'table=14,priority=250,ip,actions=drop']);
    const v = view(c, 'default/client', 'default/web');
    expect(v[0]!.observations.at(-1)).toEqual({
      component: 'NetworkPolicy',
      componentInfo: 'EgressRule',
      action: 'Dropped',
    });
  });

  it('an Antrea node beside a flannel overlay node: no route between their pod subnets either way (docs/antrea.md)', () => {
    const c = new Cluster({ seed: 5 });
    c.addWindowsNode({ name: 'win-a', network: 'antrea' });
    c.addWindowsNode({ name: 'win-f', network: 'overlay' });
    c.addPod({ namespace: 'default', name: 'a', node: 'win-a' });
    c.addPod({ namespace: 'default', name: 'f', node: 'win-f' });
    for (const [from, to] of [
      ['default/a', 'default/f'],
      ['default/f', 'default/a'],
    ] as const) {
      const t = c.trace({ from, to, protocol: 'tcp', destinationPort: 80 });
      expect(t.disposition).toBe('NoRoute');
      // neither node tunnels it: the packet leaves unencapsulated and the underlay's router drops it
      expect(t.observations.some((o) => o.action === 'Encapsulated')).toBe(false);
      expect(t.host).toBe('router');
    }
  });
});

/** A host's route destinations. */
const dests = (h: ReturnType<Cluster['host']>) =>
  h.routes().map((r) => `${fmtIp(r.dest.addr)}/${r.dest.len}`);

describe('a join that fails', () => {
  it('leaves no half-added Antrea node: not in the cluster nor the API server, no peer route or tunnel flow to it on the others, its address free', () => {
    const c = new Cluster({ seed: 5 });
    const ha = c.addWindowsNode({ name: 'win-a', network: 'antrea' });
    const a = c.nodeOf('win-a');
    if (a?.kind !== 'Windows' || !a.antrea) throw new Error('win-a is not an Antrea node');
    const flowsBefore = a.antrea.flows();
    const routesBefore = dests(ha);
    expect(routesBefore).not.toContain('10.244.2.0/24');
    // the cluster's sync after the join fails on win-a's agent
    const refuse = vi.spyOn(a.antrea, 'setNetworkPolicies').mockImplementation(() => {
      throw hnsError('E_ACCESSDENIED', 'refused by the test');
    });
    expect(() => c.addWindowsNode({ name: 'win-b', network: 'antrea' })).toThrow(
      expect.objectContaining({ code: 'E_ACCESSDENIED' }),
    );
    expect(c.nodeNames()).toEqual(['win-a']);
    expect(c.kubeApi.node('win-b')).toBeUndefined();
    // win-a is as it was: no route to 10.244.2.0/24, no tunnel flow to 10.0.0.11
    expect(dests(ha)).toEqual(routesBefore);
    expect(a.antrea.flows()).toEqual(flowsBefore);
    refuse.mockRestore();
    // the name, the address and the pod subnet are free again
    c.addWindowsNode({ name: 'win-b', network: 'antrea' });
    expect(fmtIp(c.nodeOf('win-b')!.ip)).toBe('10.0.0.11');
    expect(dests(ha)).toContain('10.244.2.0/24');
    c.addPod({ namespace: 'default', name: 'client', node: 'win-a' });
    c.addPod({ namespace: 'default', name: 'db', node: 'win-b' });
    expect(c.trace({ from: 'default/client', to: 'default/db', destinationPort: 80 }).disposition).toBe(
      'Delivered',
    );
  });
});
