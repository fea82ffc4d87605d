/**
 * ovn-kubernetes' historical native Windows node (src/cluster/ovn-kubernetes-native.ts,
 * docs/ovn-kubernetes.md "Native (historical) node"). Expected values are upstream literals:
 * ovn-org/ovn-kubernetes @ 0eb00c4a1 (parent of 83b2fc743, native Windows removed)
 * `go-controller/pkg/cni/helper_windows.go`, `go-controller/pkg/node/management-port_windows_test.go`,
 * the vendored hcsshim `internal/hns/hnsendpoint.go`; @ b9feda6e2 (parent of f2dbc63c5)
 * `contrib/roles/windows/kubernetes/{tasks/setup_sdn.yml,tasks/setup_ovs_hns.yml,vars/windows.yml}`;
 * openvswitch/ovs @ 0c4caeb114 `ovn/controller/encaps.c` (tunnel ports); reference ovs-windows.md
 * §1.5, §2.4 (STT TCP 7471, Geneve UDP 6081), §6.
 */
import { describe, expect, it, vi } from 'vitest';
import { hnsError } from '../../src/core/errors.js';
import { Cluster } from '../../src/cluster/cluster.js';
import type { JsonObject } from '../../src/core/json.js';
import type { Host } from '../../src/host/host.js';
import { nativeEndpointDoc } from '../../src/cluster/ovn-kubernetes-native.js';
import { antreaSandbox } from '../../src/cluster/antrea.js';
import { path, step, steps, tj } from '../dataplane/trace-kit.js';
import { loadScenario } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';

type Encap = 'geneve' | 'stt';

function cluster(encap: Encap, nodes = 2): { c: Cluster; hosts: Host[] } {
  const c = new Cluster({ seed: 1 });
  const hosts = Array.from({ length: nodes }, (_, i) =>
    c.addWindowsNode({
      name: `win-${i + 1}`,
      network: 'ovn-kubernetes',
      ovnKubernetes: { mode: 'native', encapType: encap },
    }),
  );
  return { c, hosts };
}

function v1(h: Host, method: string, p: string): JsonObject {
  const r = h.api.HNSCall(method, p, '');
  if (!r.ok) throw new Error(r.message);
  return r.result['Output'] as JsonObject;
}

function vsctl(h: Host, ...args: string[]): string {
  const r = h.ovs.vsctl(args);
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout.trim();
}

/** The call throws an HnsError E_INVALIDARG whose message matches. */
function invalid(f: () => unknown, message: RegExp): void {
  let err: unknown;
  try {
    f();
  } catch (e) {
    err = e;
  }
  expect(err).toMatchObject({ code: 'E_INVALIDARG' });
  expect((err as Error).message).toMatch(message);
}

describe('the node as the Ansible role and ovnkube prepared it', () => {
  it('a Transparent HNS network "external" on the NIC (setup_sdn.yml, vars/windows.yml), the OVS extension enabled', () => {
    const { c: c1, hosts } = cluster('stt', 1);
    const h = hosts[0]!;
    const nets = v1(h, 'GET', '/networks/') as unknown as JsonObject[];
    const net = nets.find((n) => n['Name'] === 'external')!;
    // New-HnsNetwork -Name external -AddressPrefix <subnet> -Gateway <subnet .1> -Type Transparent -AdapterName <NIC>
    expect(net).toMatchObject({ Type: 'Transparent', NetworkAdapterName: 'Ethernet' });
    expect(net['Subnets']).toMatchObject([{ AddressPrefix: '10.244.1.0/24', GatewayAddress: '10.244.1.1' }]);
    const ext = (net['Extensions'] as JsonObject[]).find(
      (e) => e['Id'] === '583CC151-73EC-4A6A-8B47-578297AD7623',
    );
    expect(ext?.['IsEnabled']).toBe(true);
    // setup_sdn.yml then setup_ovs_hns.yml, in their order: the network, the bridge and the NIC while
    // ovs-vswitchd is stopped (`--no-wait`), then Enable-OVSOnHNSNetwork
    const n = c1.nodeOf('win-1')!;
    const cmds = n.kind === 'Windows' ? n.ovnNative!.commands : [];
    expect(cmds.slice(0, 4)).toEqual([
      'New-HnsNetwork -Name external -AddressPrefix 10.244.1.0/24 -Gateway 10.244.1.1 -Type Transparent -AdapterName "Ethernet"',
      'ovs-vsctl --no-wait --may-exist add-br br-int',
      'ovs-vsctl --no-wait --may-exist add-port br-int Ethernet',
      `Enable-OVSOnHNSNetwork ${String(net['ID'])}`,
    ]);
  });

  it('external_ids ovn-encap-type / ovn-encap-ip / system-id (setup_ovs_hns.yml), br-int with the uplink and the host vNIC', () => {
    const { hosts } = cluster('stt', 1);
    const h = hosts[0]!;
    const ids = vsctl(h, 'get', 'Open_vSwitch', '.', 'external_ids');
    expect(ids).toMatch(/ovn-encap-ip="?10\.0\.0\.10"?/);
    expect(ids).toMatch(/ovn-encap-type=stt/);
    expect(ids).toMatch(/system-id="?[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}"?/);
    const ports = vsctl(h, 'list-ports', 'br-int').split('\n');
    expect(ports).toEqual(expect.arrayContaining(['Ethernet', 'vEthernet (Ethernet)', 'k8s-win-1']));
  });

  it('the management port k8s-<node>: internal, mtu_request 1400, iface-id, .2 of the subnet, routes via .1 metric 2', () => {
    const { hosts } = cluster('stt', 1);
    const h = hosts[0]!;
    // management-port_windows_test.go: "type=internal mtu_request=1400 external-ids:iface-id=k8s-node1"
    expect(vsctl(h, 'get', 'interface', 'k8s-win-1', 'type')).toBe('internal');
    expect(vsctl(h, 'get', 'interface', 'k8s-win-1', 'mtu_request')).toBe('1400');
    expect(vsctl(h, 'get', 'interface', 'k8s-win-1', 'external_ids:iface-id')).toBe('k8s-win-1');
    const a = h.adapters().find((x) => x['Name'] === 'k8s-win-1')!;
    expect([a['IPv4Address'], a['PrefixLength']]).toEqual(['10.244.1.2', 24]);
    const routes = h
      .routes()
      .filter((r) => r.origin === 'User')
      .map((r) => [
        `${r.dest.addr >>> 24}.${(r.dest.addr >>> 16) & 255}.${(r.dest.addr >>> 8) & 255}.${r.dest.addr & 255}/${r.dest.len}`,
        r.iface,
      ]);
    expect(routes).toEqual([
      ['10.244.0.0/16', 'k8s-win-1'],
      ['10.96.0.0/12', 'k8s-win-1'],
    ]);
  });

  it('management-port_windows_test.go: the commands in its order (the ones hnsim has an equivalent of)', () => {
    const c = new Cluster({ seed: 1, podCidr: '10.1.0.0/16', serviceCidr: '172.16.1.0/24' });
    const h = c.addWindowsNode({
      name: 'node1',
      network: 'ovn-kubernetes',
      podSubnet: '10.1.1.0/24',
      ovnKubernetes: { mode: 'native' },
    });
    const n = c.nodeOf('node1')!;
    const ovn = n.kind === 'Windows' ? n.ovnNative! : undefined;
    const ifIndex = String(h.adapters().find((a) => a['Name'] === 'k8s-node1')!['ifIndex']);
    // the test's expected sequence (mgtPort k8s-node1, 10.1.1.2/24, mtu 1400, gwIP 10.1.1.1), without
    // `ovn-nbctl lsp-add` (OVN's northbound) and the final `ovs-ofctl dump-flows br-int table=65`
    // (OVN's logical-to-physical table, which the stand-in does not have). The test's service route
    // reads "172.16.1.0 mask 255.255.0.0" for a /24 default (a slip in the test): hnsim writes the
    // mask of the service CIDR it is given.
    const expected = [
      'ovs-vsctl --timeout=15 -- --may-exist add-port br-int k8s-node1 -- set interface k8s-node1 type=internal mtu_request=1400 external-ids:iface-id=k8s-node1',
      'ovs-vsctl --timeout=15 --if-exists get interface k8s-node1 mac_in_use',
      'powershell Enable-NetAdapter k8s-node1',
      'powershell Get-NetIPAddress -InterfaceAlias k8s-node1',
      'powershell Remove-NetIPAddress -InterfaceAlias k8s-node1 -Confirm:$false',
      'powershell New-NetIPAddress -IPAddress 10.1.1.2 -PrefixLength 24 -InterfaceAlias k8s-node1',
      'netsh interface ipv4 set subinterface k8s-node1 mtu=1400 store=persistent',
      'powershell $(Get-NetAdapter | Where { $_.Name -Match "k8s-node1" }).ifIndex',
      'route print -4 10.1.0.0',
      `route -p add 10.1.0.0 mask 255.255.0.0 10.1.1.1 METRIC 2 IF ${ifIndex}`,
      'route print -4 172.16.1.0',
      `route -p add 172.16.1.0 mask 255.255.255.0 10.1.1.1 METRIC 2 IF ${ifIndex}`,
      'ovs-vsctl --timeout=15 --if-exists get interface k8s-node1 ofport',
    ];
    const cmds = ovn!.commands;
    const start = cmds.indexOf(expected[0]!);
    expect(start).toBeGreaterThan(0);
    expect(cmds.slice(start, start + expected.length)).toEqual(expected);
    expect(ifIndex).toMatch(/^\d+$/);
  });
});

describe('a pod through ovn-k8s-cni-overlay (helper_windows.go ConfigureInterface)', () => {
  it('the HNS endpoint JSON: hcsshim.HNSEndpoint marshalled (field order, omitempty), no policies, no gateway', () => {
    const doc = nativeEndpointDoc({
      name: 'default_web',
      networkId: 'NET',
      ip: '10.244.1.3',
      mac: '0a:58:0a:f4:01:03',
      prefixLength: 24,
      dns: { servers: ['10.96.0.10'], search: ['default.svc.cluster.local', 'svc.cluster.local'] },
    });
    expect(JSON.stringify(doc)).toBe(
      '{"Name":"default_web","VirtualNetwork":"NET","MacAddress":"0a-58-0a-f4-01-03","IPAddress":"10.244.1.3","DNSSuffix":"default.svc.cluster.local,svc.cluster.local","DNSServerList":"10.96.0.10","PrefixLength":24}',
    );
    // `json:",omitempty"`: empty DNS strings are left out
    const bare = nativeEndpointDoc({
      name: 'a_b',
      networkId: 'NET',
      ip: '10.244.1.4',
      mac: '0a:58:0a:f4:01:04',
      prefixLength: 24,
      dns: { servers: [], search: [] },
    });
    expect(Object.keys(bare)).toEqual(['Name', 'VirtualNetwork', 'MacAddress', 'IPAddress', 'PrefixLength']);
  });

  it('endpoint <namespace>_<pod> on external, hot-attached to its sandbox; the OVS port with iface-id, attached_mac, ip_address', () => {
    const { c, hosts } = cluster('stt', 1);
    const h = hosts[0]!;
    const pod = c.addPod({ namespace: 'default', name: 'web', node: 'win-1' });
    // pods from .3: .1 is the router port (the gateway), .2 the management port
    expect(pod.ip).toBe('10.244.1.3');
    const ep = v1(h, 'GET', `/endpoints/${pod.endpointId!}`);
    expect(ep['Name']).toBe('default_web');
    expect(String(ep['MacAddress']).toLowerCase()).toBe('0a-58-0a-f4-01-03');
    expect(ep['IPAddress']).toBe('10.244.1.3');
    expect(ep['Policies'] ?? []).toEqual([]);
    expect((ep['SharedContainers'] as string[]).length).toBe(1);
    const nets = v1(h, 'GET', '/networks/') as unknown as JsonObject[];
    expect(ep['VirtualNetwork']).toBe(nets.find((n) => n['Name'] === 'external')!['ID']);
    // ovs-vsctl --may-exist add-port br-int <ep> -- set interface <ep> type=internal -- set interface
    // <ep> external_ids:attached_mac=<mac> external_ids:iface-id=<ns>_<pod> external_ids:ip_address=<ip/len>
    expect(vsctl(h, 'get', 'interface', 'default_web', 'type')).toBe('internal');
    expect(vsctl(h, 'get', 'interface', 'default_web', 'external_ids')).toBe(
      '{attached_mac="0a:58:0a:f4:01:03", iface-id=default_web, ip_address="10.244.1.3/24"}',
    );
    // it binds the endpoint's Hyper-V port (not a new host vNIC)
    expect(Number(vsctl(h, 'get', 'interface', 'default_web', 'ofport'))).toBeGreaterThan(0);
    expect(h.adapters().some((a) => a['Name'] === 'default_web')).toBe(false);
    const n = c.nodeOf('win-1')!;
    const cmds = n.kind === 'Windows' ? n.ovnNative!.commands : [];
    expect(cmds).toContain(
      'powershell Set-NetIPInterface -IncludeAllCompartments -InterfaceAlias "vEthernet (default_web)" -NlMtuBytes 1400',
    );
  });

  it('removePod: del-port br-int <ns>_<pod>, the endpoint deleted (PlatformSpecificCleanup)', () => {
    const { c, hosts } = cluster('stt', 1);
    const h = hosts[0]!;
    const pod = c.addPod({ namespace: 'default', name: 'web', node: 'win-1' });
    c.removePod('default', 'web');
    expect(vsctl(h, 'list-ports', 'br-int').split('\n')).not.toContain('default_web');
    const eps = v1(h, 'GET', '/endpoints/') as unknown as JsonObject[];
    expect(eps.map((e) => e['Name'])).not.toContain('default_web');
    expect(eps.some((e) => e['ID'] === pod.endpointId)).toBe(false);
  });

  it('removePod closes the sandbox after terminating it: the same pod can be added again', () => {
    const { c, hosts } = cluster('geneve', 1);
    const h = hosts[0]!;
    const sandbox = antreaSandbox('default', 'web');
    c.addPod({ namespace: 'default', name: 'web', node: 'win-1' });
    c.removePod('default', 'web');
    // the compute system is gone, not just stopped
    expect(h.api.HcsGetComputeSystemProperties(sandbox)).toMatchObject({
      ok: false,
      name: 'HCS_E_SYSTEM_NOT_FOUND',
    });
    const again = c.addPod({ namespace: 'default', name: 'web', node: 'win-1' });
    const ep = v1(h, 'GET', `/endpoints/${again.endpointId!}`);
    expect(ep['Name']).toBe('default_web');
    expect(ep['SharedContainers']).toEqual([sandbox]);
    expect(h.hcs.find(sandbox)?.state).toBe('Running');
    expect(vsctl(h, 'list-ports', 'br-int').split('\n')).toContain('default_web');
  });

  it("a failed ADD undoes only what it made: a sandbox ID in use is refused, that container and the host's state untouched", () => {
    const { c, hosts } = cluster('geneve', 1);
    const h = hosts[0]!;
    const sandbox = antreaSandbox('default', 'web');
    // a container already holds the ID the pod's sandbox would get
    const made = h.api.HcsCreateComputeSystem(sandbox, {
      SystemType: 'Container',
      Name: sandbox,
      Owner: 'docker',
      EndpointList: [],
    });
    expect(made.ok).toBe(true);
    expect(h.api.HcsStartComputeSystem(sandbox, '').ok).toBe(true);
    const before = h.snapshot();
    let err: unknown;
    try {
      c.addPod({ namespace: 'default', name: 'web', node: 'win-1' });
    } catch (e) {
      err = e;
    }
    // hcs included: the container that was there still runs; no endpoint, port or sequence number taken
    expect(h.snapshot()).toEqual(before);
    expect(err).toMatchObject({
      code: 'HCS_E_SYSTEM_ALREADY_EXISTS',
      detail: `ovn-kubernetes: sandbox: ${sandbox}`,
    });
    expect(h.hcs.find(sandbox)?.state).toBe('Running');
    expect(c.pod('default/web')).toBeUndefined();
  });
});

describe('tunnels between native nodes (encaps.c; Windows encap/decap through the host vNIC, §2.4)', () => {
  it('one port per other chassis: ovn-<6 of its system-id>-0, remote_ip, key=flow, ovn-chassis-id', () => {
    const { hosts } = cluster('stt');
    const [h1, h2] = hosts as [Host, Host];
    const sys2 = vsctl(h2, 'get', 'Open_vSwitch', '.', 'external_ids:system-id').replace(/"/g, '');
    const port = `ovn-${sys2.slice(0, 6)}-0`;
    expect(vsctl(h1, 'list-ports', 'br-int').split('\n')).toContain(port);
    expect(vsctl(h1, 'get', 'interface', port, 'type')).toBe('stt');
    expect(vsctl(h1, 'get', 'interface', port, 'options:remote_ip')).toBe('"10.0.0.11"');
    expect(vsctl(h1, 'get', 'interface', port, 'options:key')).toBe('flow');
    expect(vsctl(h1, 'get', 'port', port, 'external_ids:ovn-chassis-id')).toBe(`"${sys2}"`);
  });

  for (const [encap, dport, proto] of [
    ['stt', 7471, 6],
    ['geneve', 6081, 17],
  ] as const)
    it(`pod → pod across nodes: ${encap.toUpperCase()} to the peer (outer dst port ${dport}, ${proto === 6 ? 'TCP' : 'UDP'}), two OVS passes per node`, () => {
      const { c } = cluster(encap);
      c.addPod({ namespace: 'default', name: 'a', node: 'win-1' });
      c.addPod({ namespace: 'default', name: 'b', node: 'win-2' });
      const t = tj(c.trace({ from: 'default/a', to: 'default/b', destinationPort: 80 }));
      expect(t.disposition, path(t)).toBe('Delivered');
      const enc = step(t, 'win-1', 'Encap', 'Encapsulated');
      expect(enc.packetAfter.outer).toMatchObject({ srcIp: '10.0.0.10', dstIp: '10.0.0.11', dstPort: dport });
      const raw = c
        .trace({ from: 'default/a', to: 'default/b', destinationPort: 80 })
        .observations.find((o) => o.action === 'Encapsulated')!.packetAfter.outer!;
      expect([raw.proto ?? 17, raw.kind]).toEqual([proto, encap]);
      // the outer packet leaves through the host vNIC's port, then the uplink (§2.4)
      expect(steps(t, 'win-1', 'OVS', 'Output').map((s) => s.detail)).toEqual([
        expect.stringMatching(/^to ovn-[0-9a-f]{6}-0\(\d+\)/),
        'to Ethernet(1): the physical NIC',
      ]);
      expect(step(t, 'win-2', 'Decap', 'Decapsulated').detail).toMatch(
        /looked up again from ovn-[0-9a-f]{6}-0/,
      );
      expect(steps(t, 'win-2', 'OVS', 'Output').map((s) => s.detail)).toEqual(['to default_b(5)']);
    });

  it('three nodes: each tunnel port takes its own peer’s packets (decap by remote_ip)', () => {
    const { c, hosts } = cluster('geneve', 3);
    c.addPod({ namespace: 'default', name: 'a', node: 'win-1' });
    c.addPod({ namespace: 'default', name: 'c', node: 'win-3' });
    const sys3 = vsctl(hosts[2]!, 'get', 'Open_vSwitch', '.', 'external_ids:system-id').replace(/"/g, '');
    const t = tj(c.trace({ from: 'default/c', to: 'default/a', destinationPort: 80 }));
    expect(t.disposition, path(t)).toBe('Delivered');
    expect(step(t, 'win-1', 'Decap', 'Decapsulated').detail).toContain(`from ovn-${sys3.slice(0, 6)}-0`);
  });
});

describe('the nine flows where the historical design has them (the stand-in pipeline)', () => {
  it('node ↔ pod through the management port k8s-<node>', () => {
    const { c } = cluster('stt');
    c.addPod({ namespace: 'default', name: 'a', node: 'win-1' });
    c.addPod({ namespace: 'default', name: 'b', node: 'win-2' });
    const toPod = tj(c.trace({ from: 'win-1', to: 'default/a', destinationPort: 80 }));
    expect(toPod.disposition, path(toPod)).toBe('Delivered');
    expect(toPod.packet.srcIp).toBe('10.244.1.2');
    // its own subnet is on-link on k8s-win-1 (the .2/24 address); the cluster CIDR via .1 there
    expect(step(toPod, 'win-1', 'HostStack', 'Routed').detail).toBe('10.244.1.0/24 → on-link on k8s-win-1');
    const remote = tj(c.trace({ from: 'win-1', to: 'default/b', destinationPort: 80 }));
    expect(remote.disposition, path(remote)).toBe('Delivered');
    expect(step(remote, 'win-1', 'HostStack', 'Routed').detail).toBe(
      '10.244.0.0/16 → 10.244.1.1 on k8s-win-1',
    );
    expect(step(remote, 'win-1', 'Encap', 'Encapsulated').detail).toBe(
      'STT VNI 3 from 10.0.0.10 to 10.0.0.11:7471',
    );
    const toNode = tj(c.trace({ from: 'default/a', to: 'win-1', destinationPort: 10250 }));
    expect(toNode.disposition, path(toNode)).toBe('Delivered');
    expect(steps(toNode, 'win-1', 'OVS', 'Output').map((s) => s.detail)).toEqual([
      'to k8s-win-1(3): the host vNIC k8s-win-1',
    ]);
  });

  it('pod → outside: SNAT to the node address in OVS (the gateway router), out of the uplink', () => {
    const { c } = cluster('stt');
    c.addPod({ namespace: 'default', name: 'a', node: 'win-1' });
    const t = tj(c.trace({ from: 'default/a', to: '8.8.8.8', destinationPort: 443 }));
    expect(t.disposition, path(t)).toBe('ExitsNetwork');
    const snat = step(t, 'win-1', 'NAT', 'SNAT');
    expect([snat.packetBefore.srcIp, snat.packetAfter.srcIp]).toEqual(['10.244.1.3', '10.0.0.10']);
  });

  it('a Service: a select group and ct(commit,nat(dst)) in OVS, no kube-proxy load balancer', () => {
    const { c, hosts } = cluster('stt');
    c.addPod({ namespace: 'default', name: 'client', node: 'win-1' });
    c.addPod({ namespace: 'default', name: 'web', node: 'win-2', labels: { app: 'web' } });
    c.addService({
      namespace: 'default',
      name: 'web',
      ports: [{ port: 80, targetPort: 8080 }],
      selector: { app: 'web' },
    });
    const groups = hosts[0]!.ovs.ofctl(['dump-groups', 'br-int']).stdout;
    expect(groups).toMatch(/type=select/);
    expect(groups).toMatch(/ct\(commit,table=3,zone=1,nat\(dst=10\.244\.2\.3:8080\)\)/);
    expect(hosts[0]!.hns.store.loadBalancers.size).toBe(0);
    const t = tj(c.trace({ from: 'default/client', to: 'svc:default/web' }));
    expect(t.disposition, path(t)).toBe('Delivered');
    const dnat = step(t, 'win-1', 'NAT', 'DNAT');
    expect([dnat.packetAfter.dstIp, dnat.packetAfter.dstPort]).toEqual(['10.244.2.3', 8080]);
    expect(step(t, 'win-1', 'Encap', 'Encapsulated').packetAfter.outer?.dstPort).toBe(7471);
  });
});

describe('specs refused with E_INVALIDARG, nothing added', () => {
  it('bad mode / encapType values, encapType without native, ovnKubernetes off ovn-kubernetes, VXLAN keys on native', () => {
    const c = new Cluster({ seed: 1 });
    const w =
      (o: unknown, extra: object = {}) =>
      () =>
        c.addWindowsNode({
          name: 'w',
          network: 'ovn-kubernetes',
          ovnKubernetes: o as { mode: 'native' },
          ...extra,
        });
    invalid(w({ mode: 'ovs' }), /mode must be hybrid-overlay or native/);
    invalid(w({ mode: 'native', encapType: 'vxlan' }), /encapType must be geneve or stt/);
    invalid(w({ encapType: 'stt' }), /encapType is for native nodes/);
    invalid(w({ mode: 'hybrid-overlay', encapType: 'geneve' }), /encapType is for native nodes/);
    invalid(w({ mode: 'native', vni: 1 }), /not a setting/);
    invalid(w('native'), /must be an object/);
    invalid(w({ mode: 'native' }, { vxlanPort: 4789 }), /vxlanPort is not for a native/);
    invalid(w({ mode: 'native' }, { tunnelType: 'stt' }), /tunnelType is not for a native/);
    invalid(
      () => c.addWindowsNode({ name: 'w', network: 'overlay', ovnKubernetes: { mode: 'native' } }),
      /ovnKubernetes is for nodes with network ovn-kubernetes/,
    );
    expect(c.nodeNames()).toEqual([]);
  });

  it('native beside hybrid overlay or Linux OVN nodes, in either order', () => {
    const a = new Cluster({ seed: 1 });
    a.addWindowsNode({ name: 'hybrid', network: 'ovn-kubernetes' });
    invalid(
      () => a.addWindowsNode({ name: 'n', network: 'ovn-kubernetes', ovnKubernetes: { mode: 'native' } }),
      /do not meet/,
    );
    const b = new Cluster({ seed: 1 });
    b.addWindowsNode({ name: 'n', network: 'ovn-kubernetes', ovnKubernetes: { mode: 'native' } });
    invalid(() => b.addWindowsNode({ name: 'hybrid', network: 'ovn-kubernetes' }), /do not meet/);
    invalid(() => b.addLinuxNode({ name: 'l', backend: 'ovn-kubernetes' }), /do not meet/);
    invalid(() => b.addWindowsNode({ name: 'x', network: 'antrea' }), /one network plugin/);
    const d = new Cluster({ seed: 1 });
    d.addLinuxNode({ name: 'l', backend: 'ovn-kubernetes' });
    invalid(
      () => d.addWindowsNode({ name: 'n', network: 'ovn-kubernetes', ovnKubernetes: { mode: 'native' } }),
      /do not meet/,
    );
    expect([a.nodeNames(), b.nodeNames(), d.nodeNames()]).toEqual([['hybrid'], ['n'], ['l']]);
  });

  it('native pods take no HNS policies and no adopted endpoint', () => {
    const { c } = cluster('stt', 1);
    invalid(
      () => c.addPod({ namespace: 'default', name: 'p', node: 'win-1', policies: [{ Type: 'ACL' }] }),
      /no HNS policies/,
    );
    invalid(
      () => c.addPod({ namespace: 'default', name: 'p', node: 'win-1', endpointId: 'x' }),
      /attaches its own/,
    );
    expect(c.pod('default/p')).toBeUndefined();
  });
});

describe('in scenarios: ovnKubernetes { mode: native, encapType }', () => {
  const doc = (hosts: string) =>
    `hnsim: scenario/v1\nname: t\ncluster: {}\nhosts:\n${hosts}\npods:\n  - { name: a, node: w1 }\n`;
  function problems(text: string): string[] {
    try {
      loadScenario(text, 't.yaml');
      return [];
    } catch (e) {
      return ((e as { issues?: { message: string }[] }).issues ?? []).map((i) => i.message);
    }
  }

  it('makes native nodes with the tunnel asked for', async () => {
    const s = loadScenario(
      doc(
        [
          '  - { name: w1, cni: ovn-kubernetes, ovnKubernetes: { mode: native, encapType: stt } }',
          '  - { name: w2, cni: ovn-kubernetes, ovnKubernetes: { mode: native, encapType: stt } }',
        ].join('\n'),
      ),
      't.yaml',
    );
    const r = await runScenario(s);
    expect(r.ok).toBe(true);
    const h = r.world.cluster!.host('w1');
    expect([...h.hns.store.networks.values()].map((n) => n.Name)).toEqual(['external']);
    expect(vsctl(h, 'get', 'Open_vSwitch', '.', 'external_ids:ovn-encap-type')).toBe('stt');
  });

  it('refuses native on Linux, vxlanPort with native, encapType without it, bad values', () => {
    expect(
      problems(doc('  - { name: w1, os: linux, cni: ovn-kubernetes, ovnKubernetes: { mode: native } }')),
    ).toEqual([expect.stringMatching(/mode native is for Windows nodes/)]);
    expect(
      problems(
        doc('  - { name: w1, cni: ovn-kubernetes, ovnKubernetes: { mode: native, vxlanPort: 4789 } }'),
      ),
    ).toEqual([expect.stringMatching(/vxlanPort is the hybrid overlay's/)]);
    expect(problems(doc('  - { name: w1, cni: ovn-kubernetes, ovnKubernetes: { encapType: stt } }'))).toEqual(
      [expect.stringMatching(/encapType is for native nodes/)],
    );
    expect(
      problems(
        doc('  - { name: w1, cni: ovn-kubernetes, ovnKubernetes: { mode: native, encapType: vxlan } }'),
      ),
    ).not.toEqual([]);
  });
});

describe('a join that fails', () => {
  it('leaves no half-added native node: not in the cluster nor the API server, no tunnel port to it on the others, its address free', () => {
    const { c, hosts } = cluster('geneve', 1);
    const h1 = hosts[0]!;
    const n1 = c.nodeOf('win-1');
    if (n1?.kind !== 'Windows' || !n1.ovnNative) throw new Error('win-1 is not a native node');
    const portsBefore = vsctl(h1, 'list-ports', 'br-int');
    // the cluster's sync after the join (OVN's load balancers on every native node) fails on win-1
    const refuse = vi.spyOn(n1.ovnNative, 'setServices').mockImplementation(() => {
      throw hnsError('E_ACCESSDENIED', 'refused by the test');
    });
    let err: unknown;
    try {
      c.addWindowsNode({ name: 'win-2', network: 'ovn-kubernetes', ovnKubernetes: { mode: 'native' } });
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'E_ACCESSDENIED' });
    expect(c.nodeNames()).toEqual(['win-1']);
    expect(c.kubeApi.node('win-2')).toBeUndefined();
    expect(vsctl(h1, 'list-ports', 'br-int')).toBe(portsBefore);
    refuse.mockRestore();
    // the name and the address are free again; the retry's tunnel carries pods' packets
    const h2 = c.addWindowsNode({
      name: 'win-2',
      network: 'ovn-kubernetes',
      ovnKubernetes: { mode: 'native' },
    });
    expect(c.nodeOf('win-2')!.ip).toBe(0x0a00000b);
    const sys2 = vsctl(h2, 'get', 'Open_vSwitch', '.', 'external_ids:system-id').replace(/"/g, '');
    expect(vsctl(h1, 'list-ports', 'br-int').split('\n')).toContain(`ovn-${sys2.slice(0, 6)}-0`);
    c.addPod({ namespace: 'default', name: 'a', node: 'win-1' });
    c.addPod({ namespace: 'default', name: 'b', node: 'win-2' });
    const t = tj(c.trace({ from: 'default/a', to: 'default/b', destinationPort: 80 }));
    expect(t.disposition, path(t)).toBe('Delivered');
  });
});
