/**
 * The Antrea agent on Windows nodes (src/plugins/antrea/agent.ts; reference ovs-windows.md §1, §2):
 * the node as agent_windows.go prepares it, the CNI server's attach path, and packets through the
 * pipeline it programs — on one node, and between two nodes over Geneve through the Windows
 * encap/decap path (a wire harness hands each frame to the node owning its next hop).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../src/host/host.js';
import type { JsonObject } from '../../../src/core/json.js';
import { AntreaAgent } from '../../../src/plugins/antrea/agent.js';
import { walkFrom, wireWorld } from '../../dataplane/wire.js';
import { containerInterfaceName } from '../../../src/plugins/antrea/naming.js';

function node(name: string, ip: string, podCidr: string, seed: number): { host: Host; agent: AntreaAgent } {
  const host = createHost({
    name,
    seed,
    adapters: [
      {
        name: 'Ethernet0',
        ipAddress: `${ip}/24`,
        gateway: '192.168.77.1',
        macAddress: `00-50-56-00-00-${seed.toString(16).padStart(2, '0')}`,
      },
    ],
  });
  const agent = new AntreaAgent(host, {
    podCidr,
    dnsServers: ['10.96.0.10'],
    dnsSearch: ['default.svc.cluster.local'],
  });
  agent.start();
  return { host, agent };
}

let cid = 0;
/** containerd's part: the pod's HCN namespace, then the agent's CNI ADD. */
function pod(n: { host: Host; agent: AntreaAgent }, podName: string) {
  const ns = n.host.api.HcnCreateNamespace(null, { SchemaVersion: { Major: 2, Minor: 0 } });
  if (!ns.ok) throw new Error(ns.message);
  const netns = String((ns.result as JsonObject)['ID']);
  const containerId = (++cid).toString(16).padStart(64, 'a');
  const result = n.agent.cmdAdd({ containerId, netns, podName, podNamespace: 'default' });
  return { containerId, netns, result, name: containerInterfaceName(podName, containerId) };
}

describe('the node as Antrea prepares it', () => {
  it('the Transparent network with the management IP and source MAC Antrea sends, br-int, the ports, the gateway address', () => {
    const { host, agent } = node('win-a', '192.168.77.100', '10.10.0.0/24', 1);
    const nets = host.api.HNSCall('GET', '/networks/', '');
    const net = ((nets.ok ? nets.result['Output'] : []) as JsonObject[])[0]!;
    expect(net).toMatchObject({
      Name: 'antrea-hnsnetwork',
      Type: 'Transparent',
      NetworkAdapterName: 'Ethernet0',
    });
    const ovs = (net['Extensions'] as JsonObject[]).find((e) => e['Name'] === 'Open vSwitch Extension');
    expect(ovs).toMatchObject({ IsEnabled: true });
    const adapters = host.adapters();
    expect(adapters.find((a) => a['Name'] === 'br-int')).toMatchObject({
      IPv4Address: '192.168.77.100',
      Kind: 'HostVNic',
    });
    expect(adapters.find((a) => a['Name'] === 'antrea-gw0')).toMatchObject({
      IPv4Address: '10.10.0.1',
      Kind: 'HostVNic',
    });
    const ports = (name: string) => host.ovs.vsctl(`get interface ${name} ofport`).stdout.trim();
    expect([ports('antrea-tun0'), ports('antrea-gw0'), ports('Ethernet0'), ports('br-int')]).toEqual([
      '32768',
      '32769',
      '32770',
      '65534',
    ]);
    expect(host.ovs.vsctl('get interface antrea-tun0 options').stdout).toBe(
      '{key=flow, local_ip="192.168.77.100", remote_ip=flow}\n',
    );
    expect(host.ovs.vsctl('get interface Ethernet0 external_ids:antrea-type').stdout).toBe('uplink\n');
    expect(host.ovs.vsctl('get bridge br-int datapath_id').stdout).toBe('"0000005056000001"\n');
    // the flows: the realized pipeline (29 tables' miss flows, the root, pod connectivity)
    expect(host.ovs.bridge('br-int')!.flowCount).toBe(agent.flows().length);
  });

  it('a restarted agent reuses the network, the bridge and its ports (nothing twice)', () => {
    const n = node('win-a', '192.168.77.100', '10.10.0.0/24', 1);
    const before = n.host.ovs.vsctl('show').stdout;
    const again = new AntreaAgent(n.host, { podCidr: '10.10.0.0/24' });
    again.start();
    expect(n.host.ovs.vsctl('show').stdout).toBe(before);
    const nets = n.host.api.HNSCall('GET', '/networks/', '');
    expect((nets.ok ? (nets.result['Output'] as JsonObject[]) : []).length).toBe(1);
  });
});

describe('the CNI server', () => {
  it('ADD: the endpoint named from pod and infra container, no MAC asked for, attached; the OVS port with Antrea’s external IDs, internal', () => {
    const n = node('win-a', '192.168.77.100', '10.10.0.0/24', 1);
    const p = pod(n, 'web-7975');
    const ep = n.host.api.HNSCall('GET', '/endpoints/', '');
    const mine = ((ep.ok ? ep.result['Output'] : []) as JsonObject[]).find((e) => e['Name'] === p.name)!;
    expect(mine).toMatchObject({
      IPAddress: '10.10.0.2',
      GatewayAddress: '10.10.0.1',
      DNSServerList: '10.96.0.10',
    });
    expect(p.name).toMatch(/^web-7975-[0-9a-f]{6}$/);
    const ids = n.host.ovs.vsctl(`get interface ${p.name} external_ids`).stdout;
    const mac = String(mine['MacAddress']).toLowerCase().replace(/-/g, ':');
    expect(ids).toBe(
      `{antrea-type=container, attached-mac="${mac}", container-id=${p.containerId}, ip-address="10.10.0.2", net-ns="${p.netns}", pod-name=web-7975, pod-namespace=default}\n`,
    );
    expect(n.host.ovs.vsctl(`get interface ${p.name} type`).stdout).toBe('internal\n');
    expect(p.result).toMatchObject({
      interfaces: [
        { name: p.name, sandbox: '' },
        { name: 'eth0', sandbox: p.netns },
      ],
      ips: [{ address: '10.10.0.2/24', gateway: '10.10.0.1', interface: 1 }],
    });
    // a repeated ADD answers the same result, and nothing more is made
    expect(
      n.agent.cmdAdd({
        containerId: p.containerId,
        netns: p.netns,
        podName: 'web-7975',
        podNamespace: 'default',
      }),
    ).toBe(p.result);
    expect(n.agent.pods()).toHaveLength(1);
  });

  it('DEL: flows, the OVS port, the endpoint go; the address is released', () => {
    const n = node('win-a', '192.168.77.100', '10.10.0.0/24', 1);
    const flowsBefore = n.host.ovs.bridge('br-int')!.flowCount;
    const p = pod(n, 'web');
    expect(n.host.ovs.bridge('br-int')!.flowCount).toBe(flowsBefore + 5);
    n.agent.cmdDel({ containerId: p.containerId });
    expect(n.host.ovs.bridge('br-int')!.flowCount).toBe(flowsBefore);
    expect(n.host.ovs.vsctl('list-ports br-int').stdout).not.toContain(p.name);
    const eps = n.host.api.HNSCall('GET', '/endpoints/', '');
    expect((eps.ok ? (eps.result['Output'] as JsonObject[]) : []).length).toBe(0);
    // host-local goes on after the last address it reserved: the freed one is not handed out at once
    expect(pod(n, 'next').result).toMatchObject({ ips: [{ address: '10.10.0.3/24' }] });
    n.agent.cmdDel({ containerId: 'unknown' }); // a DEL of nothing succeeds
  });
});

describe('packets through the pipeline', () => {
  it('pod → pod on the node: every table on the way, delivered with the conntrack commit', () => {
    const n = node('win-a', '192.168.77.100', '10.10.0.0/24', 1);
    const a = pod(n, 'client');
    const b = pod(n, 'server');
    const t = n.host.trace({ from: a.name, to: '10.10.0.3', protocol: 'tcp', destinationPort: 8080 });
    expect(t.disposition).toBe('Delivered');
    expect(t.at).toMatch(/^endpoint:/);
    const tables = t.observations
      .filter((o) => o.component === 'OVS' && o.rule?.policy)
      .map((o) => o.rule!.policy);
    expect(tables.slice(0, 5)).toEqual([
      'PipelineRootClassifier',
      'Classifier',
      'SpoofGuard',
      'UnSNAT',
      'ConntrackZone',
    ]);
    expect(tables).toContain('L2ForwardingCalc');
    expect(tables.slice(-2)).toEqual(['ConntrackCommit', 'Output']);
    expect(b.name).not.toBe(a.name);
  });

  it('a drop names its table; in a policy table it is the policy’s verdict (EgressRule: DeniedOut, IngressRule: DeniedIn)', () => {
    const n = node('win-a', '192.168.77.100', '10.10.0.0/24', 1);
    const a = pod(n, 'client');
    pod(n, 'server');
    const req = { from: a.name, to: '10.10.0.3', protocol: 'tcp', destinationPort: 80 } as const;
    const drop = (table: number) =>
      expect(
        n.host.ovs.ofctl([
          'add-flow',
          'br-int',
          `table=${table},priority=250,ip,nw_src=10.10.0.2,actions=drop`,
        ]).status,
      ).toBe(0);
    drop(24); // IngressRule
    let t = n.host.trace(req);
    expect(t.disposition).toBe('DeniedIn');
    expect(t.observations[t.observations.length - 1]!.detail).toContain('table 24 (IngressRule)');
    drop(14); // EgressRule, earlier on the way
    t = n.host.trace(req);
    expect(t.disposition).toBe('DeniedOut');
    drop(4); // SpoofGuard: not a policy
    t = n.host.trace(req);
    expect(t.disposition).toBe('NoRoute');
    expect(t.observations[t.observations.length - 1]!.detail).toContain('table 4 (SpoofGuard)');
  });

  it('pod → node, node → pod: through antrea-gw0 and the host stack', () => {
    const n = node('win-a', '192.168.77.100', '10.10.0.0/24', 1);
    const a = pod(n, 'web');
    const toNode = n.host.trace({
      from: a.name,
      to: '192.168.77.100',
      protocol: 'tcp',
      destinationPort: 10250,
    });
    expect(toNode.disposition).toBe('Delivered');
    expect(toNode.at).toBe('host');
    const toPod = n.host.trace({ from: 'host', to: '10.10.0.2', protocol: 'tcp', destinationPort: 80 });
    expect(toPod.disposition).toBe('Delivered');
    // the host's packet comes from the gateway address: Classifier's priority-210 flow (FromLocal)
    const cls = toPod.observations.find((o) => o.rule?.policy === 'Classifier')!;
    expect(cls.rule!.rule).toContain('nw_src=10.10.0.1');
  });

  it('pod → pod on another node: Geneve from local_ip via LOCAL and the uplink; decapsulated on the peer and delivered', () => {
    const A = node('win-a', '192.168.77.100', '10.10.0.0/24', 1);
    const B = node('win-b', '192.168.77.101', '10.10.1.0/24', 2);
    A.agent.addPeer({ name: 'win-b', nodeIp: '192.168.77.101', podCidr: '10.10.1.0/24' });
    B.agent.addPeer({ name: 'win-a', nodeIp: '192.168.77.100', podCidr: '10.10.0.0/24' });
    const a = pod(A, 'client');
    const b = pod(B, 'server');
    const world = wireWorld([A.host, B.host]);
    const w = walkFrom(world, A.host, a.name, '10.10.1.2');
    expect(w.end?.disposition).toBe('Delivered');
    expect(w.end?.host).toBe('win-b');
    const enc = w.observations.find((o) => o.action === 'Encapsulated')!;
    expect(enc.detail).toBe('GENEVE VNI 0 from 192.168.77.100 to 192.168.77.101:6081');
    const byHost = (h: string) =>
      w.observations
        .filter((o) => o.host === h && o.component === 'OVS' && o.action === 'Matched')
        .map((o) => o.rule!.policy);
    // A: the pod's pass ends at the tunnel; the outer packet's pass is LOCAL → uplink (Classifier)
    expect(byHost('win-a')).toContain('L3Forwarding');
    expect(byHost('win-a').slice(-2)).toEqual(['PipelineRootClassifier', 'Classifier']);
    // B: uplink → LOCAL (Classifier), decap, then the tunnel's pass to the pod
    const bTables = byHost('win-b');
    expect(bTables.slice(0, 2)).toEqual(['PipelineRootClassifier', 'Classifier']);
    expect(bTables.slice(2, 4)).toEqual(['PipelineRootClassifier', 'Classifier']);
    expect(bTables.at(-1)).toBe('Output');
    const arrived = w.end!.packet;
    // the L3 forwarding rewrote the MACs to gateway → pod and decremented the TTL twice (one per node)
    expect(arrived.ttl).toBe(126);
    expect(b.result).toMatchObject({ ips: [{ address: '10.10.1.2/24' }] });
  });
});

describe('incremental reprogramming', () => {
  it('a policy change touches only the flows it changes: the others keep their counters', () => {
    const n = node('win-a', '192.168.77.100', '10.10.0.0/24', 1);
    const a = pod(n, 'a');
    const b = pod(n, 'b');
    const ipOf = (c: { containerId: string }) =>
      n.agent.pods().find((p) => p.containerId === c.containerId)!.ip;
    const rules = [{ id: 1, direction: 'Out' as const, appliedTo: [ipOf(a)] }];
    n.agent.setNetworkPolicies(rules, { in: [], out: [ipOf(a)] });
    const conj = () =>
      n.host.ovs
        .ofctl(['dump-flows', 'br-int'])
        .stdout.split('\n')
        .find((l) => l.includes('conj_id=1,'))!;
    const sent = n.host.send({ from: a.name, to: ipOf(b), protocol: 'tcp', destinationPort: 80 });
    expect(sent.disposition).toBe('Delivered');
    expect(conj()).toContain('n_packets=1,');
    // another pod and the same policy again: rule 1's flows are not reinstalled
    pod(n, 'c');
    n.agent.setNetworkPolicies(rules, { in: [], out: [ipOf(a)] });
    expect(conj()).toContain('n_packets=1,');
  });

  // every change touches only its own flows (as Antrea installs per object); whatever the sequence,
  // the bridge holds exactly what a full reprogramming gives
  it('after any sequence of pods, peers, Services and NetworkPolicies, the bridge equals a full program()', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant('add' as const), n: fc.integer({ min: 0, max: 5 }) }),
            fc.record({ op: fc.constant('del' as const), n: fc.integer({ min: 0, max: 5 }) }),
            fc.record({
              op: fc.constant('peer' as const),
              n: fc.integer({ min: 1, max: 3 }),
              on: fc.boolean(),
            }),
            fc.record({
              op: fc.constant('svc' as const),
              pick: fc.array(fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 3 }), { maxLength: 3 }),
              affinity: fc.boolean(),
              nodePort: fc.option(fc.integer({ min: 30000, max: 30002 }), { nil: undefined }),
            }),
            fc.record({
              op: fc.constant('pol' as const),
              rules: fc.array(
                fc.record({
                  ingress: fc.boolean(),
                  to: fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 3 }),
                  peers: fc.option(fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 2 }), {
                    nil: undefined,
                  }),
                  port: fc.option(fc.integer({ min: 79, max: 81 }), { nil: undefined }),
                }),
                { maxLength: 3 },
              ),
              isolated: fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 3 }),
            }),
          ),
          { maxLength: 12 },
        ),
        (ops) => {
          const n = node('win-a', '192.168.77.100', '10.10.0.0/24', 1);
          const pods = new Map<number, ReturnType<typeof pod>>();
          let nodePorts: number[] = [];
          for (const o of ops) {
            if (o.op === 'add' && !pods.has(o.n)) pods.set(o.n, pod(n, `p${o.n}`));
            else if (o.op === 'del' && pods.has(o.n)) {
              n.agent.cmdDel({ containerId: pods.get(o.n)!.containerId });
              pods.delete(o.n);
            } else if (o.op === 'peer') {
              if (o.on)
                n.agent.addPeer({
                  name: `w${o.n}`,
                  nodeIp: `192.168.77.${100 + o.n}`,
                  podCidr: `10.10.${o.n}.0/24`,
                });
              else n.agent.removePeer(`w${o.n}`);
            } else if (o.op === 'svc') {
              // (a NodePort per Service port, as the API server allocates them: distinct)
              nodePorts = o.nodePort === undefined ? [] : o.pick.map((_, i) => o.nodePort! + 3 * i);
              n.agent.setServices(
                o.pick.map((eps, i) => ({
                  key: `default/s${i}:80/TCP`,
                  clusterIP: `10.96.0.${10 + i}`,
                  port: 80,
                  protocol: 'TCP' as const,
                  ...(o.affinity ? { affinityTimeout: 10800 } : {}),
                  ...(o.nodePort !== undefined ? { nodePort: nodePorts[i]! } : {}),
                  endpoints: eps.map((e) => ({ ip: `10.10.0.${2 + e}`, port: 8080, local: pods.has(e) })),
                })),
              );
            } else if (o.op === 'pol') {
              // a pod's address (or one no pod of the node has), as the cluster resolves groups
              const ipOf = (k: number) =>
                n.agent.pods().find((p) => p.containerId === pods.get(k)?.containerId)?.ip ??
                `10.10.0.${200 + k}`;
              const iso = [...new Set(o.isolated.map(ipOf))];
              n.agent.setNetworkPolicies(
                o.rules.map((r, i) => ({
                  id: i + 1,
                  direction: r.ingress ? ('In' as const) : ('Out' as const),
                  appliedTo: [...new Set(r.to.map(ipOf))],
                  ...(r.peers ? { peers: r.peers.map((k) => `${ipOf(k)}/32`) } : {}),
                  ...(r.port !== undefined ? { ports: [{ protocol: 'TCP' as const, port: r.port }] } : {}),
                })),
                { in: iso, out: iso },
              );
            }
          }
          // and the host holds exactly the NodePorts' static mappings
          expect(
            n.host
              .netNatStaticMappings()
              .map((m) => m.externalPort)
              .sort(),
          ).toEqual([...nodePorts].sort());
          const state = () => [
            ...n.host.ovs.ofctl(['--no-stats', 'dump-flows', 'br-int']).stdout.split('\n').sort(),
            ...n.host.ovs.ofctl(['dump-groups', 'br-int']).stdout.split('\n').sort(),
          ];
          const incremental = state();
          n.agent.program();
          expect(incremental).toEqual(state());
        },
      ),
      { numRuns: 25 },
    );
  });
});
