/**
 * A cluster of Antrea Windows nodes (src/cluster/antrea.ts, src/plugins/antrea): each node prepared
 * by its agent, the agents told of each other (tunnels, routes), pods attached by the agent; traces
 * cross the cluster's underlay in Geneve (or VXLAN, STT) through both nodes' OVS bridges.
 */
import { describe, expect, it } from 'vitest';
import { Cluster } from '../../src/cluster/cluster.js';

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
    expect(c.host('win-a').netNats()).toEqual([
      { name: 'antrea-nat', internalIPInterfaceAddressPrefix: '10.244.1.0/24' },
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
