/**
 * AntreaProxy's NodePorts in the agent (src/plugins/antrea/agent.ts; antrea-io/antrea
 * pkg/agent/proxy/proxier.go installNodePortService/uninstallNodePortService,
 * pkg/agent/route/route_windows.go Initialize, AddNodePortConfigs, DeleteNodePortConfigs): the
 * host's NetNat and routes with proxyAll, a static mapping per nodePort kept in step with the
 * Service, a host refusal logged rather than thrown. The packets are in
 * test/cluster/antrea-nodeport.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../src/host/host.js';
import { AntreaAgent, type AntreaService } from '../../../src/plugins/antrea/agent.js';

function node(proxyAll?: boolean): { host: Host; agent: AntreaAgent } {
  const host = createHost({
    name: 'win-a',
    seed: 1,
    adapters: [
      {
        name: 'Ethernet0',
        ipAddress: '192.168.77.100/24',
        gateway: '192.168.77.1',
        macAddress: '00-50-56-00-00-01',
      },
    ],
  });
  const agent = new AntreaAgent(host, {
    podCidr: '10.10.0.0/24',
    ...(proxyAll !== undefined ? { proxyAll } : {}),
  });
  agent.start();
  return { host, agent };
}

const web = (nodePort?: number): AntreaService => ({
  key: 'default/web:80/TCP',
  clusterIP: '10.96.0.100',
  port: 80,
  protocol: 'TCP',
  endpoints: [{ ip: '10.10.1.5', port: 8080, local: false }],
  ...(nodePort !== undefined ? { nodePort } : {}),
});

const mapped = (host: Host) =>
  host
    .netNatStaticMappings()
    .map(
      (m) =>
        `${m.natName} ${m.protocol} ${m.externalIPAddress}:${m.externalPort} → ${m.internalIPAddress}:${m.internalPort}`,
    );

const nodePortFlows = (agent: AntreaAgent) => agent.flows().filter((f) => f.includes('reg4=0x90000/0xf0000'));

describe('AntreaProxy NodePorts on a Windows node', () => {
  it('a nodePort: its mapping 0.0.0.0:<port> → 169.254.0.252:<port> and its ServiceLB flow; a changed nodePort replaces both; removal takes both', () => {
    const { host, agent } = node();
    agent.updateService(web(30080));
    expect(mapped(host)).toEqual(['antrea-nat-nodeport TCP 0.0.0.0:30080 → 169.254.0.252:30080']);
    expect(nodePortFlows(agent)).toEqual([
      'cookie=0x1030000000000, table=ServiceLB, priority=200,tcp,reg4=0x90000/0xf0000,tp_dst=30080 actions=set_field:0x200/0x200->reg0,set_field:0x20000/0x70000->reg4,set_field:0x200000/0x200000->reg4,set_field:0x5->reg7,group:5',
    ]);
    // an endpoint change leaves the mapping alone (the same StaticMappingID)
    const id = host.netNatStaticMappings()[0]!.staticMappingID;
    agent.updateService({ ...web(30080), endpoints: [{ ip: '10.10.0.7', port: 8080, local: true }] });
    expect(host.netNatStaticMappings().map((m) => m.staticMappingID)).toEqual([id]);
    agent.updateService(web(30081));
    expect(mapped(host)).toEqual(['antrea-nat-nodeport TCP 0.0.0.0:30081 → 169.254.0.252:30081']);
    const dump = host.ovs.ofctl(['dump-flows', 'br-int', 'table=11']).stdout;
    expect(dump).toContain('tp_dst=30081');
    expect(dump).not.toContain('tp_dst=30080');
    // no nodePort any more (type ClusterIP again): mapping and flow gone, the ClusterIP's stays
    agent.updateService(web());
    expect(mapped(host)).toEqual([]);
    expect(nodePortFlows(agent)).toEqual([]);
    expect(host.ovs.ofctl(['dump-flows', 'br-int', 'table=11']).stdout).toContain('nw_dst=10.96.0.100');
    agent.updateService(web(30080));
    expect(agent.removeService('default/web:80/TCP')).toBe(true);
    expect(mapped(host)).toEqual([]);
    expect(host.ovs.ofctl(['dump-flows', 'br-int', 'table=11']).stdout).not.toContain('tp_dst=');
  });

  it('a port another NetNat maps: the host refuses, AntreaProxy logs it (nodePortErrors), the flows stay; freed, the next sync maps it', () => {
    const { host, agent } = node();
    host.addNetNat('other', '10.99.0.0/24');
    host.addNetNatStaticMapping({
      natName: 'other',
      protocol: 'TCP',
      externalIp: '0.0.0.0',
      externalPort: 30080,
      internalIp: '10.99.0.5',
      internalPort: 80,
    });
    agent.updateService(web(30080));
    expect([...agent.nodePortErrors().keys()]).toEqual(['30080-TCP']);
    expect(agent.nodePortErrors().get('30080-TCP')).toMatch(/mapped already/);
    expect(mapped(host)).toEqual(['other TCP 0.0.0.0:30080 → 10.99.0.5:80']);
    expect(nodePortFlows(agent)).toHaveLength(1);
    host.removeNetNat('other');
    // the agent's restart re-syncs the host's state (route_windows.go syncNetNatStaticMapping)
    agent.start();
    expect(agent.nodePortErrors().size).toBe(0);
    expect(mapped(host)).toEqual(['antrea-nat-nodeport TCP 0.0.0.0:30080 → 169.254.0.252:30080']);
  });

  it('the routes to 169.254.0.253 and 169.254.0.252 have metric 50 (winnet.MetricHigh)', () => {
    const { host } = node();
    // route_windows.go addVirtualServiceIPRoute, addVirtualNodePortDNATIPRoute:
    // generateRoute(…, winnet.MetricHigh); pkg/agent/util/winnet/net_windows.go: MetricHigh = 50
    const svc = host
      .routes()
      .filter((r) => r.origin === 'User' && r.dest.len === 32)
      .map((r) => ({ dest: r.dest.addr, iface: r.iface, nextHop: r.nextHop, metric: r.metric }));
    const ip = (s: string) => s.split('.').reduce((a, o) => a * 256 + Number(o), 0);
    expect(svc).toEqual([
      { dest: ip('169.254.0.253'), iface: 'antrea-gw0', nextHop: 0, metric: 50 },
      { dest: ip('169.254.0.252'), iface: 'antrea-gw0', nextHop: ip('169.254.0.253'), metric: 50 },
    ]);
  });

  it('a restarted agent reuses its NetNat, routes and mappings (nothing doubled)', () => {
    const { host, agent } = node();
    agent.updateService(web(30080));
    const routes = host.routes().filter((r) => r.origin === 'User').length;
    agent.start();
    expect(host.netNats().filter((n) => n.name === 'antrea-nat-nodeport')).toHaveLength(1);
    expect(host.routes().filter((r) => r.origin === 'User')).toHaveLength(routes);
    expect(mapped(host)).toEqual(['antrea-nat-nodeport TCP 0.0.0.0:30080 → 169.254.0.252:30080']);
  });

  it('without proxyAll: no antrea-nat-nodeport, no routes for 169.254.0.252/253, no mapping, no NodePort flow', () => {
    const { host, agent } = node(false);
    agent.updateService(web(30080));
    expect(host.netNats().map((n) => n.name)).toEqual(['antrea-nat']);
    expect(host.routes().filter((r) => r.origin === 'User')).toEqual([]);
    expect(mapped(host)).toEqual([]);
    expect(nodePortFlows(agent)).toEqual([]);
  });
});
