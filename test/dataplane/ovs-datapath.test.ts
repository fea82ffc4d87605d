/**
 * Open vSwitch forwarding a node's Transparent switch (src/host/ovs.ts, src/dataplane/ovs.ts;
 * reference ovs-windows.md §1.2–§1.5, §2.1, §2.4). The node is built the way Antrea's agent builds
 * it (pkg/agent/agent_windows.go, pkg/agent/util/net_windows.go): the Transparent network
 * `antrea-hnsnetwork` through HNS v1, the management vNIC renamed to `br-int`, the extension
 * enabled, then the bridge with the uplink at ofport 32770 and `antrea-gw0` (internal, 32769), and
 * one internal port per attached pod endpoint named after it (§1.5 step 6). The flows are written
 * here by hand from the vectors of §2.3 (`in_port=32770,nw_dst=<node IP> → LOCAL`, `in_port=LOCAL
 * → 32770`, per-pod L3 forwarding with the gateway MAC) — Antrea's own pipeline comes later.
 */
import { describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../src/host/host.js';
import type { JsonObject } from '../../src/core/json.js';
import type { TraceResult } from '../../src/dataplane/trace.js';
import { walkFrom, wireWorld } from './wire.js';

const OVS = '583CC151-73EC-4A6A-8B47-578297AD7623';

function v1(host: Host, method: string, path: string, body?: unknown): JsonObject {
  const r = host.api.HNSCall(method, path, body === undefined ? '' : JSON.stringify(body));
  if (!r.ok) throw new Error(r.message);
  if (r.result['Success'] !== true) throw new Error(JSON.stringify(r.result));
  return (r.result['Output'] ?? {}) as JsonObject;
}

function ok<T>(r: { ok: true; result: T } | { ok: false; message: string }): T {
  if (!r.ok) throw new Error(r.message);
  return r.result;
}

interface AntreaNode {
  readonly host: Host;
  readonly net: string;
  readonly pods: Map<string, { id: string; ip: string; mac: string }>;
}

/** A pod as Antrea's CNI attaches it: v1 endpoint without MAC or policies, namespace attach (§1.5). */
function addPod(n: AntreaNode, name: string, ip: string, gateway: string): void {
  const ep = v1(n.host, 'POST', '/endpoints/', {
    Name: name,
    VirtualNetwork: n.net,
    IPAddress: ip,
    GatewayAddress: gateway,
  });
  const id = String(ep['ID']);
  const ns = ok(n.host.api.HcnCreateNamespace(null, { SchemaVersion: { Major: 2, Minor: 0 } }));
  const nsId = String((ns as JsonObject)['ID']);
  ok(
    n.host.api.HcnModifyNamespace(nsId, {
      ResourceType: 'Endpoint',
      RequestType: 'Add',
      Settings: { EndpointId: id },
    }),
  );
  n.pods.set(name, { id, ip, mac: String(ep['MacAddress']) });
}

const ofMac = (hns: string) => hns.toLowerCase().replace(/-/g, ':');

/**
 * The node of §1.2–§1.3: network, rename, extension, ovs-vswitchd, bridge with uplink and gateway,
 * gateway address. `pods` are attached and added as internal ports.
 */
function antreaNode(opts: { name?: string; ip?: string; podCidr?: string; seed?: number } = {}): AntreaNode {
  const ip = opts.ip ?? '192.168.77.100';
  const cidr = opts.podCidr ?? '10.10.0.0/24';
  const gw = cidr.replace(/0\/24$/, '1');
  const host = createHost({
    name: opts.name ?? 'win-1',
    seed: opts.seed ?? 7,
    adapters: [
      { name: 'Ethernet0', ipAddress: `${ip}/24`, gateway: '192.168.77.1', macAddress: '00-50-56-11-22-33' },
    ],
  });
  const net = String(
    v1(host, 'POST', '/networks/', {
      Name: 'antrea-hnsnetwork',
      Type: 'Transparent',
      NetworkAdapterName: 'Ethernet0',
      Subnets: [{ AddressPrefix: cidr, GatewayAddress: gw }],
    })['ID'],
  );
  host.renameAdapter('vEthernet (Ethernet0)', 'br-int');
  v1(host, 'POST', `/networks/${net}`, { Extensions: [{ Id: OVS, IsEnabled: true }] });
  host.ovs.start();
  const r = host.ovs.vsctl(
    'add-br br-int -- add-port br-int Ethernet0 -- set interface Ethernet0 ofport_request=32770 ' +
      '-- add-port br-int antrea-gw0 -- set interface antrea-gw0 type=internal ofport_request=32769',
  );
  expect(r.stderr).toBe('');
  host.setAdapterAddress('antrea-gw0', `${gw}/24`);
  return { host, net, pods: new Map() };
}

function attach(n: AntreaNode, name: string, ip: string): number {
  const gw = ip.replace(/\.\d+$/, '.1');
  addPod(n, name, ip, gw);
  const r = n.host.ovs.vsctl(`add-port br-int ${name} -- set interface ${name} type=internal`);
  expect(r).toEqual({ status: 0, stdout: '', stderr: '' });
  return Number(n.host.ovs.vsctl(`get interface ${name} ofport`).stdout.trim());
}

function flows(n: AntreaNode, text: string): void {
  const r = n.host.ovs.ofctl(['add-flows', 'br-int', text]);
  expect(r.stderr).toBe('');
}

const gwMac = (n: AntreaNode) =>
  ofMac(String(n.host.adapters().find((a) => a['Name'] === 'antrea-gw0')!['MacAddress']));

/** Local forwarding: the uplink/LOCAL pass-through (§2.3), each pod by IP with the gateway MAC, the rest to the gateway. */
function localFlows(n: AntreaNode, nodeIp = '192.168.77.100'): void {
  const lines = [
    `table=0,priority=200,ip,in_port=32770,nw_dst=${nodeIp},actions=output:LOCAL`,
    'table=0,priority=200,in_port=LOCAL,actions=output:32770',
    'table=0,priority=200,arp,in_port=32770,actions=output:LOCAL',
  ];
  for (const [name, p] of n.pods) {
    lines.push(
      `table=0,priority=100,ip,nw_dst=${p.ip},actions=mod_dl_src:${gwMac(n)},mod_dl_dst:${ofMac(p.mac)},dec_ttl,output:${name}`,
    );
  }
  lines.push('table=0,priority=50,ip,actions=output:antrea-gw0');
  flows(n, lines.join('\n'));
}

const last = (t: TraceResult) => t.observations[t.observations.length - 1]!;
const components = (t: TraceResult) => new Set(t.observations.map((o) => o.component));

describe('the node: Hyper-V ports become OVS ports by name', () => {
  it('antrea-gw0 (internal, no Hyper-V port of that name) becomes a host vNIC on the switch; the renamed management vNIC is adopted as LOCAL', () => {
    const n = antreaNode();
    const adapters = n.host.adapters();
    const gw0 = adapters.find((a) => a['Name'] === 'antrea-gw0')!;
    const brInt = adapters.find((a) => a['Name'] === 'br-int')!;
    const sw = n.host.switches()[0]!;
    expect(gw0).toMatchObject({ Kind: 'HostVNic', IPv4Address: '10.10.0.1', VSwitchId: sw['ID'] });
    expect(String(gw0['MacAddress'])).toMatch(/^00-15-5D-/);
    // the management vNIC keeps the node's address and the uplink's MAC (§1.3)
    expect(brInt).toMatchObject({
      Kind: 'HostVNic',
      IPv4Address: '192.168.77.100',
      MacAddress: '00-50-56-11-22-33',
    });
    expect(adapters.filter((a) => a['Name'] === 'br-int')).toHaveLength(1);
    const ofports = n.host.ovs.vsctl('--columns=name,ofport list interface').stdout;
    expect(ofports).toContain('name                : antrea-gw0\nofport              : 32769\n');
    expect(n.host.ovs.vsctl('get interface Ethernet0 ofport').stdout).toBe('32770\n');
    expect(n.host.ovs.vsctl('get interface antrea-gw0 ofport').stdout).toBe('32769\n');
    expect(n.host.ovs.vsctl('get interface br-int ofport').stdout).toBe('65534\n');
  });

  it('deleting the internal port deletes the vNIC OVS created; deleting the bridge leaves the adopted br-int vNIC', () => {
    const n = antreaNode();
    n.host.ovs.vsctl('del-port br-int antrea-gw0');
    expect(n.host.adapters().some((a) => a['Name'] === 'antrea-gw0')).toBe(false);
    n.host.ovs.vsctl('del-br br-int');
    expect(n.host.adapters().find((a) => a['Name'] === 'br-int')).toMatchObject({
      IPv4Address: '192.168.77.100',
    });
  });

  it('a pod port binds only once its endpoint is attached (the Hyper-V port exists then)', () => {
    const n = antreaNode();
    // the endpoint without a namespace: no Hyper-V port, ofport -1 (Windows reports no error)
    v1(n.host, 'POST', '/endpoints/', {
      Name: 'lonely-0a1b2c',
      VirtualNetwork: n.net,
      IPAddress: '10.10.0.50',
    });
    n.host.ovs.vsctl('add-port br-int lonely-0a1b2c');
    expect(n.host.ovs.vsctl('get interface lonely-0a1b2c ofport').stdout).toBe('-1\n');
    expect(n.host.ovs.vsctl('get interface lonely-0a1b2c error').stdout).toBe('[]\n');
    const port = attach(n, 'web-7975-274540', '10.10.0.10');
    expect(port).toBeGreaterThan(0);
    expect(port).toBeLessThan(32768);
  });

  it('without the extension enabled the bridge has no datapath and nothing binds; enabling it binds what the database holds', () => {
    const host = createHost({
      seed: 7,
      adapters: [{ name: 'Ethernet0', ipAddress: '192.168.77.100/24', gateway: '192.168.77.1' }],
    });
    const net = String(
      v1(host, 'POST', '/networks/', {
        Name: 'antrea-hnsnetwork',
        Type: 'Transparent',
        NetworkAdapterName: 'Ethernet0',
        Subnets: [{ AddressPrefix: '10.10.0.0/24', GatewayAddress: '10.10.0.1' }],
      })['ID'],
    );
    host.ovs.start();
    host.ovs.vsctl('--no-wait add-br br0 -- add-port br0 Ethernet0');
    expect(host.ovs.vsctl('get interface Ethernet0 ofport').stdout).toBe('[]\n');
    expect(host.ovs.bridge('br0')).toBeUndefined();
    v1(host, 'POST', `/networks/${net}`, { Extensions: [{ Id: OVS, IsEnabled: true }] });
    // the datapath binds: the uplink gets its ofport
    expect(host.ovs.vsctl('get interface Ethernet0 ofport').stdout).toBe('1\n');
  });
});

describe('packets through the bridge', () => {
  it('pod → pod: handed to OVS, matched, rewritten by the flow and delivered; no VFP layer runs', () => {
    const n = antreaNode();
    const a = attach(n, 'web-7975-274540', '10.10.0.10');
    attach(n, 'db-5f7c-0a1b2c', '10.10.0.11');
    localFlows(n);
    const t = n.host.trace({
      from: 'web-7975-274540',
      to: '10.10.0.11',
      protocol: 'tcp',
      destinationPort: 5432,
    });
    expect(t.disposition).toBe('Delivered');
    expect(t.at).toBe(`endpoint:${n.pods.get('db-5f7c-0a1b2c')!.id}`);
    const matched = t.observations.find((o) => o.component === 'OVS' && o.action === 'Matched')!;
    expect(matched.rule).toMatchObject({ kind: 'OpenFlow', id: 'br-int', layer: 'table=0', priority: 100 });
    expect(matched.rule!.rule).toContain('nw_dst=10.10.0.11');
    // the flow's actions: dec_ttl and the gateway MAC as source
    const delivered = last(t);
    expect(delivered.packetAfter.ttl).toBe(t.packet.ttl - 1);
    expect(delivered.packetAfter.srcMac).toBe(Number.parseInt(gwMac(n).replace(/:/g, ''), 16));
    expect(components(t).has('ACL')).toBe(false);
    expect(components(t).has('NAT')).toBe(false);
    expect(a).toBeGreaterThan(0);
  });

  it('a table miss drops the packet where OVS dropped it', () => {
    const n = antreaNode();
    attach(n, 'web-7975-274540', '10.10.0.10');
    attach(n, 'db-5f7c-0a1b2c', '10.10.0.11');
    const t = n.host.trace({
      from: 'web-7975-274540',
      to: '10.10.0.11',
      protocol: 'tcp',
      destinationPort: 80,
    });
    expect(t.disposition).toBe('NoRoute');
    expect(last(t)).toMatchObject({ component: 'OVS', action: 'Dropped' });
    expect(last(t).detail).toContain('br-int dropped it in table 0');
    expect(t.observations.some((o) => o.action === 'TableMiss')).toBe(true);
  });

  it('a pod whose endpoint is not an OVS port: the extension drops its packets', () => {
    const n = antreaNode();
    addPod(n, 'web-7975-274540', '10.10.0.10', '10.10.0.1');
    const t = n.host.trace({
      from: 'web-7975-274540',
      to: '10.10.0.1',
      protocol: 'tcp',
      destinationPort: 80,
    });
    expect(t.disposition).toBe('NoRoute');
    expect(last(t).detail).toContain('"web-7975-274540" is not an interface ovs-vswitchd has bound');
  });

  it('pod → node address: out of antrea-gw0 into the host stack (the route Antrea relies on)', () => {
    const n = antreaNode();
    attach(n, 'web-7975-274540', '10.10.0.10');
    localFlows(n);
    const t = n.host.trace({
      from: 'web-7975-274540',
      to: '192.168.77.100',
      protocol: 'tcp',
      destinationPort: 10250,
    });
    expect(t.disposition).toBe('Delivered');
    expect(t.at).toBe('host');
    const out = t.observations.find((o) => o.component === 'OVS' && o.action === 'Output')!;
    expect(out.detail).toContain('antrea-gw0');
  });

  it('the host’s own traffic leaves through LOCAL → uplink; the wire reaches the node through uplink → LOCAL', () => {
    const n = antreaNode();
    localFlows(n);
    const out = n.host.trace({ from: 'host', to: '8.8.8.8', protocol: 'udp', destinationPort: 53 });
    expect(
      out.observations.filter((o) => o.component === 'OVS' && o.action === 'Output').map((o) => o.detail),
    ).toEqual(['to Ethernet0(32770): the physical NIC']);
    expect(out.disposition).not.toBe('NoRoute');
    const inbound = n.host.trace({
      from: '192.168.77.50',
      to: '192.168.77.100',
      protocol: 'tcp',
      destinationPort: 22,
    });
    expect(inbound.disposition).toBe('Delivered');
    expect(inbound.at).toBe('host');
    expect(inbound.observations.some((o) => o.rule?.rule?.includes('in_port=32770'))).toBe(true);
  });

  it('ovs-vswitchd stopped: the host network is dead again; started: its flows are gone until reprogrammed', () => {
    const n = antreaNode();
    localFlows(n);
    const hostOut = () => n.host.trace({ from: 'host', to: '8.8.8.8', protocol: 'udp', destinationPort: 53 });
    const before = hostOut();
    n.host.ovs.stop();
    expect(last(hostOut()).detail).toContain('no OVS datapath is bound');
    expect(n.host.ovs.ofctl(['dump-flows', 'br-int']).stderr).toContain('failed to connect');
    n.host.ovs.start();
    expect(hostOut().disposition).toBe('NoRoute');
    expect(n.host.ovs.ofctl(['--no-stats', 'dump-flows', 'br-int']).stdout).toBe('');
    localFlows(n);
    expect(hostOut().disposition).toBe(before.disposition);
  });

  it('a trace commits nothing; send commits the bridge’s conntrack and counters', () => {
    const n = antreaNode();
    attach(n, 'web-7975-274540', '10.10.0.10');
    attach(n, 'db-5f7c-0a1b2c', '10.10.0.11');
    flows(
      n,
      [
        'table=0,priority=100,ip,actions=ct(commit,zone=65520,table=1)',
        `table=1,priority=100,ip,nw_dst=10.10.0.11,actions=output:db-5f7c-0a1b2c`,
      ].join('\n'),
    );
    const req = {
      from: 'web-7975-274540',
      to: '10.10.0.11',
      protocol: 'tcp',
      destinationPort: 5432,
    } as const;
    const br = n.host.ovs.bridge('br-int')!;
    expect(n.host.trace(req).disposition).toBe('Delivered');
    expect(br.conntrack.size).toBe(0);
    expect(n.host.ovs.ofctl(['dump-flows', 'br-int']).stdout).toContain('n_packets=0');
    expect(n.host.send(req).disposition).toBe('Delivered');
    expect(br.conntrack.size).toBe(1);
    expect(br.conntrack.connections()[0]).toMatchObject({ zone: 65520 });
    const dump = n.host.ovs.ofctl(['dump-flows', 'br-int']).stdout;
    expect(dump.match(/n_packets=1/g)).toHaveLength(2);
    // the trace cache sees the new state: the reply is now +est in the bridge
    flows(
      n,
      'table=0,priority=200,ip,nw_src=10.10.0.11,actions=ct(zone=65520,table=2)\ntable=2,priority=10,ct_state=+est+trk,ip,actions=output:web-7975-274540',
    );
    const reply = n.host.trace({ ...req, reply: true });
    expect(reply.disposition).toBe('Delivered');
  });

  it('a rebooted node: the extension is off (VFP forwards), OVS keeps its database and loses its flows', () => {
    const n = antreaNode();
    localFlows(n);
    n.host.reboot();
    expect(n.host.ovs.vsctl('list-ports br-int').stdout).toBe('Ethernet0\nantrea-gw0\n');
    expect(n.host.ovs.ofctl(['--no-stats', 'dump-flows', 'br-int']).stdout).toBe('');
  });
});

describe('tunnels: the Windows encap/decap path (§2.4), two nodes on one wire', () => {
  /** Two Antrea-like nodes, a Geneve vport each, and a wire that hands a frame to the node owning the next hop. */
  function twoNodes() {
    const a = antreaNode({ name: 'win-a', ip: '192.168.77.100', podCidr: '10.10.0.0/24', seed: 7 });
    const b = antreaNode({ name: 'win-b', ip: '192.168.77.101', podCidr: '10.10.1.0/24', seed: 8 });
    attach(a, 'web-1111-aaaaaa', '10.10.0.10');
    attach(b, 'db-2222-bbbbbb', '10.10.1.20');
    for (const [n, ip] of [
      [a, '192.168.77.100'],
      [b, '192.168.77.101'],
    ] as const) {
      const r = n.host.ovs.vsctl(
        `add-port br-int antrea-tun0 -- set interface antrea-tun0 type=geneve ofport_request=32768 options:key=flow options:remote_ip=flow options:local_ip=${ip}`,
      );
      expect(r.stderr).toBe('');
      localFlows(n, ip);
      // decapsulated packets come in from the tunnel port (Antrea: in_port=32768 → …)
    }
    flows(
      a,
      'table=0,priority=150,ip,nw_dst=10.10.1.0/24,actions=set_field:192.168.77.101->tun_dst,set_field:0->tun_id,output:antrea-tun0',
    );
    const world = wireWorld([a.host, b.host]);
    return { a, b, world };
  }

  it('A encapsulates to B from local_ip, re-injects through LOCAL to the uplink; B decapsulates on output to LOCAL and looks the inner packet up from the vport', () => {
    const { a, b, world } = twoNodes();
    const w = walkFrom(world, a.host, 'web-1111-aaaaaa', '10.10.1.20', 5432);
    expect(w.end?.disposition).toBe('Delivered');
    expect(w.end?.at).toBe(`endpoint:${b.pods.get('db-2222-bbbbbb')!.id}`);
    const steps = w.observations.map((o) => `${o.host}:${o.component}:${o.action}`);
    const enc = w.observations.find((o) => o.action === 'Encapsulated')!;
    expect(enc.packetAfter.outer).toMatchObject({ dstPort: 6081, vni: 0 });
    expect(enc.packetAfter.outer!.srcIp).toBe(0xc0a84d64); // local_ip 192.168.77.100
    expect(enc.packetAfter.outer!.dstIp).toBe(0xc0a84d65); // tun_dst 192.168.77.101
    // two OpenFlow passes per direction: pod → tunnel, then LOCAL → uplink on A; uplink → LOCAL, then tunnel → pod on B
    const matched = w.observations
      .filter((o) => o.action === 'Matched')
      .map((o) => `${o.host}:${o.rule!.rule}`);
    expect(matched).toEqual([
      expect.stringMatching(/^win-a:.*nw_dst=10\.10\.1\.0\/24/),
      expect.stringMatching(/^win-a:in_port=LOCAL/),
      expect.stringMatching(
        /^win-b:ip,in_port=Ethernet0,nw_dst=192\.168\.77\.101|^win-b:ip,in_port=32770,nw_dst=192\.168\.77\.101/,
      ),
      expect.stringMatching(/^win-b:.*nw_dst=10\.10\.1\.20/),
    ]);
    expect(steps).toContain('win-b:Decap:Decapsulated');
    const dec = w.observations.find((o) => o.action === 'Decapsulated')!;
    expect(dec.packetAfter.outer).toBeUndefined();
    expect(dec.detail).toContain('GENEVE VNI 0 from 192.168.77.100');
  });

  it('a vport without local_ip cannot encapsulate on Windows', () => {
    const { a, world } = twoNodes();
    a.host.ovs.vsctl('remove interface antrea-tun0 options local_ip');
    const w = walkFrom(world, a.host, 'web-1111-aaaaaa', '10.10.1.20', 5432);
    expect(w.end?.disposition).toBe('NoRoute');
    expect(w.observations[w.observations.length - 1]!.detail).toContain('no local_ip');
  });
});

describe("the host's own adapter operations: bad input is refused and changes nothing", () => {
  const host0 = () =>
    createHost({
      seed: 7,
      adapters: [
        { name: 'Ethernet0', ipAddress: '192.168.77.100/24', gateway: '192.168.77.1' },
        { name: 'Ethernet1' },
      ],
    });

  it('renameAdapter: an unknown adapter, a taken name', () => {
    const host = host0();
    const before = JSON.stringify(host.adapters());
    expect(() => host.renameAdapter('nope', 'x')).toThrow(
      expect.objectContaining({ code: 'HCN_E_ADAPTER_NOT_FOUND' }),
    );
    expect(() => host.renameAdapter('Ethernet0', 'ethernet1')).toThrow(
      expect.objectContaining({ code: 'E_INVALIDARG' }),
    );
    expect(JSON.stringify(host.adapters())).toBe(before);
    // a rename to the same name in another case is allowed (Windows compares names case-insensitively)
    host.renameAdapter('Ethernet0', 'ETHERNET0');
    expect(host.adapters()[0]!['Name']).toBe('ETHERNET0');
  });

  it('a renamed physical NIC is still the uplink a network names; a renamed management vNIC still holds the address', () => {
    const host = host0();
    host.renameAdapter('Ethernet0', 'uplink');
    v1(host, 'POST', '/networks/', {
      Name: 't',
      Type: 'Transparent',
      NetworkAdapterName: 'uplink',
      Subnets: [{ AddressPrefix: '10.10.0.0/24' }],
    });
    expect(host.adapters().find((a) => a['Name'] === 'vEthernet (uplink)')).toMatchObject({
      IPv4Address: '192.168.77.100',
    });
    host.renameAdapter('vEthernet (uplink)', 'br-int');
    expect(host.switches()[0]).toMatchObject({ SwitchType: 'External' });
    expect(
      host.trace({ from: 'host', to: '192.168.77.50', protocol: 'udp', destinationPort: 53 }).disposition,
    ).not.toBe('NoRoute');
  });

  it('setAdapterAddress: not a prefix, not IPv4, a bad gateway, an unknown adapter', () => {
    const host = host0();
    const before = JSON.stringify(host.adapters());
    for (const [name, cidr, gw] of [
      ['Ethernet1', '10.1.1.1', undefined],
      ['Ethernet1', 'fd00::1/64', undefined],
      ['Ethernet1', '10.1.1.1/24', 'gateway'],
    ] as const) {
      expect(() => host.setAdapterAddress(name, cidr, gw)).toThrow(
        expect.objectContaining({ code: 'E_INVALIDARG' }),
      );
    }
    expect(() => host.setAdapterAddress('nope', '10.1.1.1/24')).toThrow(
      expect.objectContaining({ code: 'HCN_E_ADAPTER_NOT_FOUND' }),
    );
    expect(JSON.stringify(host.adapters())).toBe(before);
    host.setAdapterAddress('Ethernet1', '10.1.1.1/24');
    expect(host.adapters().find((a) => a['Name'] === 'Ethernet1')).toMatchObject({
      IPv4Address: '10.1.1.1',
      PrefixLength: 24,
    });
    host.setAdapterAddress('Ethernet1', undefined);
    expect(host.adapters().find((a) => a['Name'] === 'Ethernet1')!['IPv4Address']).toBeUndefined();
  });
});

describe('snapshots carry OVS', () => {
  function programmed(): AntreaNode {
    const n = antreaNode();
    attach(n, 'web-7975-274540', '10.10.0.10');
    attach(n, 'db-5f7c-0a1b2c', '10.10.0.11');
    n.host.ovs.ofctl(['add-group', 'br-int', 'group_id=3,type=all,bucket=actions=output:32770']);
    localFlows(n);
    return n;
  }
  const req = { from: 'web-7975-274540', to: '10.10.0.11', protocol: 'tcp', destinationPort: 80 } as const;
  const blank = () =>
    createHost({
      name: 'win-1',
      seed: 7,
      adapters: [
        {
          name: 'Ethernet0',
          ipAddress: '192.168.77.100/24',
          gateway: '192.168.77.1',
          macAddress: '00-50-56-11-22-33',
        },
      ],
    });

  it('a restored node has the same database, flows, groups and forwarding', () => {
    const n = programmed();
    const snap = JSON.parse(JSON.stringify(n.host.snapshot()));
    const copy = blank();
    copy.restore(snap);
    for (const args of [
      ['--no-stats', 'dump-flows', 'br-int'],
      ['dump-groups', 'br-int'],
    ])
      expect(copy.ovs.ofctl(args).stdout).toBe(n.host.ovs.ofctl(args).stdout);
    expect(copy.ovs.vsctl('show').stdout).toBe(n.host.ovs.vsctl('show').stdout);
    const a = n.host.trace(req);
    const b = copy.trace(req);
    expect(b.disposition).toBe('Delivered');
    expect(b.observations).toEqual(a.observations);
    // and the copy's OVS-created vNIC goes when its port does
    copy.ovs.vsctl('del-port br-int antrea-gw0');
    expect(copy.adapters().some((x) => x['Name'] === 'antrea-gw0')).toBe(false);
  });

  it('a bad ovs section is refused with E_INVALIDARG and the node is as it was', () => {
    const n = programmed();
    const good = JSON.parse(JSON.stringify(n.host.snapshot())) as JsonObject;
    const ovs = good['ovs'] as JsonObject;
    const db = ovs['db'] as JsonObject;
    const variants: JsonObject[] = [
      { ...good, ovs: { ...ovs, running: 'yes' } },
      { ...good, ovs: { ...ovs, db: { ...db, tables: { Nope: {} } } } },
      { ...good, ovs: { ...ovs, db: { ...db, root: 'not-a-row' } } },
      {
        ...good,
        ovs: { ...ovs, bridges: { 'br-int': { groups: [], flows: ['table=0,actions=frobnicate'] } } },
      },
      { ...good, ovs: { ...ovs, created: [1] } },
    ];
    const target = programmed();
    target.host.ovs.ofctl(['add-flow', 'br-int', 'table=9,actions=drop']);
    const before = JSON.stringify(target.host.snapshot());
    for (const v of variants) {
      expect(() => target.host.restore(v)).toThrow(expect.objectContaining({ code: 'E_INVALIDARG' }));
      expect(JSON.stringify(target.host.snapshot())).toBe(before);
    }
  });

  it('a snapshot without ovs leaves a node whose OVS never ran', () => {
    const n = programmed();
    const plain = blank();
    const snap = JSON.parse(JSON.stringify(plain.snapshot()));
    expect(snap['ovs']).toBeUndefined();
    n.host.restore(snap);
    expect(n.host.ovs.running).toBe(false);
    expect(n.host.ovs.vsctl('list-br').stdout).toBe('');
  });
});

describe('NetNat (New-NetNat) on the host', () => {
  it('names are unique, prefixes checked; nothing changes on a refusal; Remove-NetNat', () => {
    const host = createHost({ seed: 7 });
    host.addNetNat('n1', '10.10.0.0/24');
    expect(() => host.addNetNat('N1', '10.20.0.0/24')).toThrow(
      expect.objectContaining({ code: 'E_INVALIDARG' }),
    );
    expect(() => host.addNetNat('n2', '10.20.0.0')).toThrow(
      expect.objectContaining({ code: 'E_INVALIDARG' }),
    );
    expect(() => host.addNetNat('', '10.20.0.0/24')).toThrow(
      expect.objectContaining({ code: 'E_INVALIDARG' }),
    );
    expect(host.netNats()).toEqual([{ name: 'n1', internalIPInterfaceAddressPrefix: '10.10.0.0/24' }]);
    expect(host.removeNetNat('n1')).toBe(true);
    expect(host.removeNetNat('n1')).toBe(false);
    expect(host.netNats()).toEqual([]);
  });

  it("only the internal prefix's forwarded traffic is SNATed: the host's own is not, and a trace sees a NetNat added later", () => {
    const n = antreaNode();
    attach(n, 'web-7975-274540', '10.10.0.10');
    localFlows(n);
    const out = () =>
      n.host.trace({ from: 'web-7975-274540', to: '8.8.8.8', protocol: 'udp', destinationPort: 53 });
    expect(out().observations.some((o) => o.action === 'SNAT')).toBe(false);
    n.host.addNetNat('antrea-nat', '10.10.0.0/24');
    const t = out();
    expect(t.observations.find((o) => o.action === 'SNAT')!.packetAfter.srcIp).toBe(0xc0a84d64);
    const own = n.host.trace({ from: 'host', to: '8.8.8.8', protocol: 'udp', destinationPort: 53 });
    expect(own.observations.some((o) => o.action === 'SNAT')).toBe(false);
  });
});

describe('review regressions (caches and host vNICs)', () => {
  it('routes added after many sends through a conntrack bridge are seen (the generation stays exact)', () => {
    const n = antreaNode();
    attach(n, 'web-7975-274540', '10.10.0.10');
    attach(n, 'db-5f7c-0a1b2c', '10.10.0.11');
    flows(
      n,
      'table=0,priority=100,ip,actions=ct(commit,zone=1,table=1)\ntable=1,priority=100,ip,nw_dst=10.10.0.11,actions=output:db-5f7c-0a1b2c',
    );
    for (let i = 0; i < 200; i++)
      n.host.send({
        from: 'web-7975-274540',
        to: '10.10.0.11',
        protocol: 'tcp',
        sourcePort: 1000 + i,
        destinationPort: 80,
      });
    for (let i = 0; i < 20; i++)
      n.host.addRoute({ destinationPrefix: `172.16.${i}.0/24`, interfaceAlias: 'antrea-gw0' });
    expect(n.host.routes().filter((r) => r.origin === 'User' && r.iface === 'antrea-gw0')).toHaveLength(20);
  });

  it('a trace sees an interface option change (local_ip removed) with no other change', () => {
    const n = antreaNode();
    attach(n, 'web-7975-274540', '10.10.0.10');
    n.host.ovs.vsctl(
      'add-port br-int antrea-tun0 -- set interface antrea-tun0 type=geneve options:key=flow options:remote_ip=flow options:local_ip=192.168.77.100',
    );
    localFlows(n);
    flows(
      n,
      'table=0,priority=150,ip,nw_dst=10.10.1.0/24,actions=set_field:192.168.77.101->tun_dst,output:antrea-tun0',
    );
    const req = { from: 'web-7975-274540', to: '10.10.1.5', protocol: 'tcp', destinationPort: 80 } as const;
    expect(n.host.trace(req).observations.some((o) => o.action === 'Encapsulated')).toBe(true);
    n.host.ovs.vsctl('remove interface antrea-tun0 options local_ip');
    expect(n.host.trace(req).observations.at(-1)!.detail).toContain('no local_ip');
  });

  it('an internal port named like another adapter (a second NIC) cannot open: no exception, ofport -1', () => {
    const host = createHost({
      seed: 7,
      adapters: [
        { name: 'Ethernet0', ipAddress: '192.168.77.100/24', gateway: '192.168.77.1' },
        { name: 'Ethernet1' },
      ],
    });
    const net = String(
      v1(host, 'POST', '/networks/', {
        Name: 't',
        Type: 'Transparent',
        NetworkAdapterName: 'Ethernet0',
        Subnets: [{ AddressPrefix: '10.10.0.0/24' }],
      })['ID'],
    );
    v1(host, 'POST', `/networks/${net}`, { Extensions: [{ Id: OVS, IsEnabled: true }] });
    host.ovs.start();
    const r = host.ovs.vsctl(
      'add-br br-int -- add-port br-int Ethernet1 -- set interface Ethernet1 type=internal',
    );
    expect(r.status).toBe(0);
    expect(host.ovs.vsctl('get interface Ethernet1 ofport').stdout).toBe('-1\n');
  });
});
