/**
 * The Antrea agent in the host's snapshot (src/plugins/antrea/agent.ts `toState`, kind `antrea` of
 * src/host/agents.ts; ./state.ts): a node with pods, a peer, Services (a NodePort among them) and
 * NetworkPolicies restored on a fresh host has the same agent and the same bridge, and the next
 * incremental change — a pod's ADD, a Service removed — leaves both nodes alike; the `antrea` CNI
 * binary reaches the restored agent through `\\.\pipe\cnisock`. A bad section is E_INVALIDARG with
 * nothing restored.
 */
import { describe, expect, it } from 'vitest';
import { isJsonObject, type JsonObject } from '../../../src/core/json.js';
import { isHnsError } from '../../../src/core/errors.js';
import { createHost, type Host } from '../../../src/host/host.js';
import { AntreaAgent, antreaOf, type AntreaService } from '../../../src/plugins/antrea/agent.js';
import { DEFAULT_CNI_BIN_DIR, execPlugin } from '../../../src/plugins/index.js';

const hostOptions = {
  name: 'win-a',
  seed: 7,
  adapters: [
    {
      name: 'Ethernet0',
      ipAddress: '192.168.77.100/24',
      gateway: '192.168.77.1',
      macAddress: '00-50-56-00-00-07',
    },
  ],
};
const NO_NS = '0b1ce66e-0000-4000-8000-00000000dead';
const newHost = (): Host => createHost(hostOptions);

function namespace(host: Host): string {
  const ns = host.api.HcnCreateNamespace(null, { SchemaVersion: { Major: 2, Minor: 0 } });
  if (!ns.ok) throw new Error(ns.message);
  return String((ns.result as JsonObject)['ID']);
}

const svc = (key: string, clusterIP: string, endpoints: string[], nodePort?: number): AntreaService => ({
  key,
  clusterIP,
  port: 80,
  protocol: 'TCP',
  endpoints: endpoints.map((ip) => ({ ip, port: 8080, local: ip.startsWith('10.10.0.') })),
  ...(nodePort !== undefined ? { nodePort } : {}),
});

/** A node whose agent has seen a bit of everything: pods, a peer, Services, policies, a released group ID. */
function busyNode(): { host: Host; agent: AntreaAgent; netns: string[] } {
  const host = newHost();
  const agent = new AntreaAgent(host, { podCidr: '10.10.0.0/24', dnsServers: ['10.96.0.10'] });
  agent.start();
  agent.addPeer({ name: 'win-b', nodeIp: '192.168.77.101', podCidr: '10.10.1.0/24' });
  const netns = [namespace(host), namespace(host)];
  const web = agent.cmdAdd({
    containerId: 'c-web',
    netns: netns[0]!,
    podName: 'web',
    podNamespace: 'default',
  });
  agent.cmdAdd({ containerId: 'c-db', netns: netns[1]!, podName: 'db', podNamespace: 'default' });
  // an ADD into a namespace that is gone fails, and host-local's cursor has moved on all the same
  // (a pod's ADD and DEL would too, but leave ovs-vswitchd's port history behind: not in the
  // snapshot, as a restarted vswitchd forgets it, so the next pod's ofport would differ)
  expect(() =>
    agent.cmdAdd({ containerId: 'c-tmp', netns: NO_NS, podName: 'tmp', podNamespace: 'default' }),
  ).toThrow();
  expect(web).toMatchObject({ ips: [{ address: '10.10.0.2/24' }] });
  agent.setServices([
    svc('default/web:80/TCP', '10.96.0.100', ['10.10.0.2', '10.10.1.5'], 30080),
    svc('default/gone:80/TCP', '10.96.0.101', ['10.10.0.3']),
    svc('default/db:80/TCP', '10.96.0.102', ['10.10.0.3', '10.10.0.2']),
  ]);
  agent.removeService('default/gone:80/TCP');
  agent.setNetworkPolicies(
    [
      {
        id: 1,
        policy: 'default/allow-web',
        direction: 'In',
        appliedTo: ['10.10.0.2'],
        peers: ['10.10.1.0/24'],
        ports: [{ protocol: 'TCP', port: 8080 }],
      },
      { id: 2, direction: 'Out', appliedTo: ['10.10.0.3'] },
    ],
    { in: ['10.10.0.2'], out: ['10.10.0.3'] },
  );
  return { host, agent, netns };
}

const flows = (host: Host) => host.ovs.ofctl(['--no-stats', 'dump-flows', 'br-int']).stdout;
const groups = (host: Host) => host.ovs.ofctl(['dump-groups', 'br-int']).stdout;

/** The snapshot as plain JSON (what a state file holds). */
const json = (host: Host): JsonObject => JSON.parse(JSON.stringify(host.snapshot())) as JsonObject;

function restored(snap: JsonObject): { host: Host; agent: AntreaAgent } {
  const host = newHost();
  host.restore(snap);
  const agent = antreaOf(host);
  if (!agent) throw new Error('no agent restored');
  return { host, agent };
}

describe('the Antrea agent in the host snapshot', () => {
  it('comes back on a fresh host: the same state, flows and groups; the next changes keep both nodes alike', () => {
    const a = busyNode();
    expect(antreaOf(a.host)).toBe(a.agent);
    const snap = json(a.host);
    const state = (snap['agents'] as JsonObject)['antrea'] as JsonObject;
    expect(state).toMatchObject({
      started: true,
      options: { podCidr: '10.10.0.0/24', dnsServers: ['10.96.0.10'] },
      peers: [{ name: 'win-b', nodeIp: '192.168.77.101', podCidr: '10.10.1.0/24' }],
      freeGroupIds: [6],
      nextGroupId: 8,
      lastReservedIp: '10.10.0.4',
      nodePortErrors: {},
    });
    expect((state['services'] as JsonObject[]).map((s) => [s['key'], s['groupId'], s['nodePort']])).toEqual([
      ['default/web:80/TCP', 5, 30080],
      ['default/db:80/TCP', 7, undefined],
    ]);
    expect((state['pods'] as JsonObject[]).map((p) => p['ip'])).toEqual(['10.10.0.2', '10.10.0.3']);

    const b = restored(snap);
    expect(b.agent).not.toBe(a.agent);
    expect(b.agent.toState()).toEqual(a.agent.toState());
    expect(b.agent.nodeIp).toBe('192.168.77.100');
    expect(b.agent.config()).toEqual(a.agent.config());
    expect(b.agent.flows()).toEqual(a.agent.flows());
    expect(flows(b.host)).toBe(flows(a.host));
    expect(groups(b.host)).toBe(groups(a.host));
    expect(b.host.netNatStaticMappings()).toEqual(a.host.netNatStaticMappings());

    // the same changes on both: a pod (the next address after host-local's last), a Service gone,
    // a peer gone, and a Service taking the free group ID
    for (const n of [a, b]) {
      const netns = namespace(n.host);
      const r = n.agent.cmdAdd({ containerId: 'c-new', netns, podName: 'new', podNamespace: 'default' });
      expect(r).toMatchObject({ ips: [{ address: '10.10.0.5/24' }] });
      expect(n.agent.removeService('default/web:80/TCP')).toBe(true);
      expect(n.agent.removePeer('win-b')).toBe(true);
      n.agent.updateService(svc('default/new:80/TCP', '10.96.0.103', ['10.10.0.5']));
      n.agent.cmdDel({ containerId: 'c-db' });
    }
    expect(b.agent.toState()).toEqual(a.agent.toState());
    expect(flows(b.host)).toBe(flows(a.host));
    expect(groups(b.host)).toBe(groups(a.host));
    expect(b.host.netNatStaticMappings()).toEqual(a.host.netNatStaticMappings());
    expect(b.host.netNatStaticMappings()).toEqual([]);
    // what is on the bridge is exactly what the agent programs (nothing left behind, nothing
    // missing): reprogrammed from scratch, the same flows (in another order within a priority)
    const sorted = (h: Host) => flows(h).split('\n').sort();
    const before = sorted(b.host);
    b.agent.program();
    expect(sorted(b.host)).toEqual(before);
  });

  it('the antrea CNI binary ADDs and DELs through the restored agent’s pipe', async () => {
    const a = busyNode();
    const netns = namespace(a.host);
    const b = restored(json(a.host));
    const run = (host: Host, command: string) =>
      execPlugin(host, 'antrea', {
        env: {
          CNI_COMMAND: command,
          CNI_CONTAINERID: '261a1970-5b6c-11ed-8caf-000c294e5d03',
          CNI_NETNS: netns,
          CNI_IFNAME: 'eth0',
          CNI_PATH: DEFAULT_CNI_BIN_DIR,
          CNI_ARGS: 'IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=pod0',
        },
        stdin: JSON.stringify({
          cniVersion: '0.3.0',
          name: 'antrea',
          type: 'antrea',
          ipam: { type: 'host-local' },
        }),
      });
    const [x, y] = [await run(a.host, 'ADD'), await run(b.host, 'ADD')];
    expect(y.exitCode, y.stdout).toBe(0);
    expect(y.stdout).toBe(x.stdout);
    expect(JSON.parse(y.stdout)).toMatchObject({ ips: [{ address: '10.10.0.5/24' }] });
    expect(flows(b.host)).toBe(flows(a.host));
    expect((await run(b.host, 'DEL')).exitCode).toBe(0);
    expect(b.agent.pods().map((p) => p.name)).toEqual(['web', 'db']);
  });

  it('an agent that never started comes back not started and not serving', () => {
    const host = newHost();
    const agent = new AntreaAgent(host, { podCidr: '10.10.0.0/24', tunnelType: 'vxlan' });
    agent.addPeer({ name: 'win-b', nodeIp: '192.168.77.101', podCidr: '10.10.1.0/24' });
    host.agents.set('antrea', agent);
    const b = restored(json(host));
    expect(b.agent.toState()).toEqual(agent.toState());
    expect(b.agent.running).toBe(false);
    expect(b.host.pipes.listening('\\\\.\\pipe\\cnisock')).toBe(false);
  });

  it('a snapshot without agents.antrea: no agent after the restore, and the one there lets go of the pipe', () => {
    const a = busyNode();
    a.host.restore(newHost().snapshot());
    expect(antreaOf(a.host)).toBeUndefined();
    expect(a.agent.running).toBe(false);
    expect(a.host.pipes.listening('\\\\.\\pipe\\cnisock')).toBe(false);
    // without the section but with the rest of the node: the same
    const snap = json(busyNode().host);
    delete snap['agents'];
    const host = newHost();
    host.restore(snap);
    expect(antreaOf(host)).toBeUndefined();
  });

  it('a bad agents.antrea is E_INVALIDARG naming what is wrong, and nothing is restored', () => {
    const good = json(busyNode().host);
    const st = (good['agents'] as JsonObject)['antrea'] as JsonObject;
    const pods = st['pods'] as JsonObject[];
    const services = st['services'] as JsonObject[];
    const cases: [string, JsonObject | string, RegExp][] = [
      ['not an object', 'antrea', /snapshot: antrea must be an object/],
      ['unknown key', { ...st, extra: 1 }, /unknown key "extra"/],
      ['missing key', (({ peers: _p, ...r }) => r)(st), /antrea\.peers is required/],
      ['started', { ...st, started: 'yes' }, /antrea\.started must be true or false/],
      ['option type', { ...st, options: { podCidr: 5 } }, /options\.podCidr must be a string/],
      ['option key', { ...st, options: { podCidr: '10.10.0.0/24', mtu: 1 } }, /unknown key "mtu"/],
      [
        'tunnel',
        { ...st, options: { podCidr: '10.10.0.0/24', tunnelType: 'gre' } },
        /tunnelType must be one of/,
      ],
      ['pod CIDR', { ...st, options: { podCidr: '10.10.0.0/31' } }, /options: .*not an IPv4 subnet of \/30/],
      ['duplicate pod', { ...st, pods: [pods[0]!, pods[0]!] }, /pods\[1\]: container "c-web" twice/],
      ['pod IP twice', { ...st, pods: [pods[0]!, { ...pods[1]!, ip: '10.10.0.2' }] }, /another pod's/],
      ['pod outside', { ...st, pods: [{ ...pods[0]!, ip: '10.20.0.2' }] }, /not a pod address of/],
      ['pod ofport', { ...st, pods: [{ ...pods[0]!, ofport: -1 }] }, /pods\[0\]\.ofport must be an integer/],
      [
        'pod result',
        { ...st, pods: [{ ...pods[0]!, result: {} }] },
        /pods\[0\]\.result must be a CNI result/,
      ],
      ['pod key', { ...st, pods: [{ ...pods[0]!, extra: 1 }] }, /pods\[0\]: unknown key "extra"/],
      [
        'peer CIDR',
        { ...st, peers: [{ name: 'x', nodeIp: '1.2.3.4', podCidr: 'x' }] },
        /peers\[0\]\.podCidr/,
      ],
      ['service twice', { ...st, services: [services[0]!, services[0]!] }, /services\[1\]: key .* twice/],
      [
        'group ID in use',
        { ...st, services: [services[0]!, { ...services[1]!, groupId: 5 }] },
        /another Service port's/,
      ],
      [
        'group ID beyond',
        { ...st, services: [{ ...services[0]!, groupId: 99 }] },
        /groupId 99 is not one allocated/,
      ],
      ['free ID in use', { ...st, freeGroupIds: [5] }, /freeGroupIds: 5 is in use/],
      ['protocol', { ...st, services: [{ ...services[0]!, protocol: 'SCTP' }] }, /protocol must be one of/],
      [
        'rule direction',
        {
          ...st,
          policies: { rules: [{ id: 1, direction: 'Up', appliedTo: [] }], isolated: { in: [], out: [] } },
        },
        /direction must be one of/,
      ],
      [
        'isolated',
        { ...st, policies: { rules: [], isolated: { in: 'x', out: [] } } },
        /isolated\.in must be a list of strings/,
      ],
      ['last IP', { ...st, lastReservedIp: '10.99.0.1' }, /lastReservedIp "10.99.0.1" is not in/],
      ['nodePort errors', { ...st, nodePortErrors: { x: 'y' } }, /"x" is not <port>-<protocol>/],
      ['pods, not started', { ...st, started: false }, /pods on an agent that never started/],
    ];
    for (const [name, section, message] of cases) {
      const a = busyNode();
      const before = JSON.stringify(a.host.snapshot());
      const bad = { ...good, agents: { antrea: section } };
      let caught: unknown;
      try {
        a.host.restore(bad);
      } catch (e) {
        caught = e;
      }
      expect(isHnsError(caught) && caught.code, name).toBe('E_INVALIDARG');
      expect((caught as Error).message, name).toMatch(message);
      expect(JSON.stringify(a.host.snapshot()), name).toBe(before);
      expect(antreaOf(a.host), name).toBe(a.agent);
      expect(a.agent.running, name).toBe(true);
    }
  });

  it('another agent started on the node replaces it in the snapshot', () => {
    const a = busyNode();
    const next = new AntreaAgent(a.host, { podCidr: '10.10.0.0/24' });
    next.start();
    expect(antreaOf(a.host)).toBe(next);
    expect(a.agent.running).toBe(false);
    expect(next.running).toBe(true);
    expect(a.host.pipes.listening('\\\\.\\pipe\\cnisock')).toBe(true);
    expect(() => a.agent.start()).toThrow(/replaced/);
    expect(isJsonObject((json(a.host)['agents'] as JsonObject)['antrea'])).toBe(true);
  });
});
