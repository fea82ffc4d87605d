/**
 * The `antrea` CNI plugin (src/plugins/antrea/cni.ts: antrea-io/antrea cmd/antrea-cni, pkg/cni) and
 * the agent's CNI server it calls over `\\.\pipe\cnisock` (src/plugins/antrea/cniserver.ts:
 * pkg/agent/cniserver/server.go, server_windows.go): run as a runtime runs it — libcni over the
 * conflist Antrea installs on Windows (build/yamls/antrea-windows.yml `antrea-cni.conflist`), the
 * binary exec'd alone, and containerd running a pod. Expected texts are upstream's literals.
 */
import { describe, expect, it } from 'vitest';
import { pluginHost } from '../../../src/cni/host.js';
import { runList, type CniListRequest } from '../../../src/cni/runner.js';
import { isJsonObject, type JsonObject } from '../../../src/core/json.js';
import { createHost, type Host } from '../../../src/host/host.js';
import { GrpcStatusError } from '../../../src/host/pipes.js';
import { AntreaAgent, antreaOf } from '../../../src/plugins/antrea/agent.js';
import { DEFAULT_CNI_BIN_DIR, execPlugin, referenceRegistry } from '../../../src/plugins/index.js';
import { ContainerdRuntime } from '../../../src/runtime/containerd.js';
import { cniNetwork } from '../../../src/runtime/network.js';

/** build/yamls/antrea-windows.yml, ConfigMap antrea-windows-config, `antrea-cni.conflist`. */
const ANTREA_CONFLIST = {
  cniVersion: '0.3.0',
  name: 'antrea',
  plugins: [{ type: 'antrea', ipam: { type: 'host-local' }, capabilities: { dns: true } }],
};
/** server_windows_test.go: pod `pod0` with this infra container is `pod0-6631b7`. */
const CONTAINER_ID = '261a1970-5b6c-11ed-8caf-000c294e5d03';
const ENDPOINT = 'pod0-6631b7';
/** The pipe the binary dials (pkg/cni/default_windows.go), as grpc-go quotes the dial error (%q). */
const NO_AGENT = String.raw`rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: open \\\\.\\pipe\\cnisock: The system cannot find the file specified."`;

function newHost(): Host {
  return createHost({
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
  });
}

function antreaNode(): { host: Host; agent: AntreaAgent } {
  const host = newHost();
  const agent = new AntreaAgent(host, { podCidr: '10.10.0.0/24' });
  agent.start();
  return { host, agent };
}

function namespace(host: Host): string {
  const ns = host.api.HcnCreateNamespace(null, { SchemaVersion: { Major: 2, Minor: 0 } });
  if (!ns.ok) throw new Error(ns.message);
  return String((ns.result as JsonObject)['ID']);
}

const k8sArgs = (pod = 'pod0', containerId = CONTAINER_ID): [string, string][] => [
  ['IgnoreUnknown', '1'],
  ['K8S_POD_NAMESPACE', 'default'],
  ['K8S_POD_NAME', pod],
  ['K8S_POD_INFRA_CONTAINER_ID', containerId],
];

function list(host: Host, req: Omit<CniListRequest, 'conflist'> & { conflist?: CniListRequest['conflist'] }) {
  return runList(
    pluginHost(host, referenceRegistry()),
    { path: [DEFAULT_CNI_BIN_DIR] },
    { conflist: ANTREA_CONFLIST, ifname: 'eth0', ...req },
  );
}

/** Exec `antrea` alone, as a runtime execs the binary. */
function exec(host: Host, command: string, conf: object | string, env: Record<string, string> = {}) {
  return execPlugin(host, 'antrea', {
    env: {
      CNI_COMMAND: command,
      CNI_CONTAINERID: CONTAINER_ID,
      CNI_IFNAME: 'eth0',
      CNI_PATH: DEFAULT_CNI_BIN_DIR,
      CNI_ARGS: 'IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=pod0',
      ...env,
    },
    stdin: typeof conf === 'string' ? conf : JSON.stringify(conf),
  });
}

const conf = (extra: object = {}) => ({
  cniVersion: '0.3.0',
  name: 'antrea',
  type: 'antrea',
  ipam: { type: 'host-local' },
  ...extra,
});

/**
 * What a failed ADD must leave as it was: the host's snapshot (HCN networks, endpoints and
 * namespaces, the host's routes and NetNats, OVS's database and bridges), the bridge's flows as
 * `ovs-ofctl dump-flows` prints them, and the agent's pods. Masked: the allocators a failed ADD moves
 * on a real node too — HNS's MAC pool cursor (the MAC of the endpoint made and deleted again goes to
 * its released queue), its object counter, GUID source and compartment counter, HCS's counter (a
 * pod's run and removal), and host-local's `last_reserved_ip` (the agent's `lastReservedIp` in
 * `agents.antrea`: a failed ADD moves it on, docs/antrea.md, "The CNI plugin `antrea`").
 */
function nodeState(host: Host, agent?: AntreaAgent) {
  const snap = JSON.parse(JSON.stringify(host.snapshot())) as JsonObject;
  const networks = (snap['networks'] as JsonObject[]).map((n) =>
    isJsonObject(n['macs']) ? { ...n, macs: { ...n['macs'], next: 'cursor', released: 'cursor' } } : n,
  );
  const hcs = { ...(snap['hcs'] as JsonObject), seq: 'compute system counter' };
  const agents = snap['agents'] as JsonObject | undefined;
  const antrea = agents?.['antrea'] as JsonObject | undefined;
  return {
    snapshot: {
      ...snap,
      ...(agents && antrea
        ? { agents: { ...agents, antrea: { ...antrea, lastReservedIp: 'host-local cursor' } } }
        : {}),
      rng: 'GUID source',
      seq: 'object counter',
      nextCompartment: 'compartment counter',
      hcs,
      networks,
    },
    // (a node without an agent has no OVS: asking for its flows would install it)
    flows: agent ? host.ovs.ofctl(['--no-stats', 'dump-flows', 'br-int']).stdout : undefined,
    pods: agent?.pods(),
  };
}

function endpoint(host: Host, name: string): JsonObject | undefined {
  const eps = host.api.HNSCall('GET', '/endpoints/', '');
  return ((eps.ok ? eps.result['Output'] : []) as JsonObject[]).find((e) => e['Name'] === name);
}

const errorDoc = (stdout: string) => JSON.parse(stdout) as { code: number; msg: string; details?: string };

describe('antrea: ADD, DEL through the conflist Antrea installs', () => {
  it('ADD: the endpoint pod0-6631b7, its OVS port, and the result the agent answered (0.3.0)', async () => {
    const { host, agent } = antreaNode();
    const netns = namespace(host);
    const out = await list(host, {
      command: 'ADD',
      containerId: CONTAINER_ID,
      netns,
      args: k8sArgs(),
      capabilityArgs: { dns: { servers: ['10.96.0.10'], searches: ['default.svc.cluster.local'] } },
    });
    expect(out.error).toBeUndefined();
    const ep = endpoint(host, ENDPOINT)!;
    expect(ep).toMatchObject({
      IPAddress: '10.10.0.2',
      GatewayAddress: '10.10.0.1',
      DNSServerList: '10.96.0.10',
    });
    const mac = String(ep['MacAddress']);
    expect(out.result).toEqual({
      cniVersion: '0.3.0',
      interfaces: [
        { name: ENDPOINT, mac },
        { name: 'eth0', mac, sandbox: netns },
      ],
      ips: [{ version: '4', interface: 1, address: '10.10.0.2/24', gateway: '10.10.0.1' }],
      routes: [{ dst: '0.0.0.0/0', gw: '10.10.0.1' }],
      dns: { nameservers: ['10.96.0.10'], search: ['default.svc.cluster.local'] },
    });
    expect(host.ovs.vsctl(['list-ports', 'br-int']).stdout.split('\n')).toContain(ENDPOINT);
    expect(host.ovs.vsctl(['get', 'interface', ENDPOINT, 'external_ids:pod-name']).stdout.trim()).toBe(
      'pod0',
    );
    expect(agent.pods()).toMatchObject([
      { containerId: CONTAINER_ID, name: 'pod0', interface: ENDPOINT, ip: '10.10.0.2' },
    ]);
  });

  it('the binary prints the server’s cni_result as it is: MarshalIndent of the result at 1.0.0', async () => {
    const { host } = antreaNode();
    const out = await exec(host, 'ADD', conf({ cniVersion: '1.0.0' }), { CNI_NETNS: namespace(host) });
    expect(out.exitCode).toBe(0);
    expect(out.stdout.startsWith('{\n    "cniVersion": "1.0.0",\n    "interfaces": [\n')).toBe(true);
    const r = JSON.parse(out.stdout) as JsonObject;
    expect(r['ips']).toEqual([{ interface: 1, address: '10.10.0.2/24', gateway: '10.10.0.1' }]);
    // no runtime DNS and none in the config: an empty DNS, which types100's MarshalJSON drops
    expect(r['dns']).toBeUndefined();
    expect(r['routes']).toEqual([{ dst: '0.0.0.0/0', gw: '10.10.0.1' }]);
  });

  it('a repeated ADD answers the same result; a second pod takes the next address', async () => {
    const { host } = antreaNode();
    const netns = namespace(host);
    const req = { command: 'ADD' as const, containerId: CONTAINER_ID, netns, args: k8sArgs() };
    const a = await list(host, req);
    const b = await list(host, req);
    expect(b.result).toEqual(a.result);
    const other = 'f'.repeat(64);
    const c = await list(host, {
      ...req,
      containerId: other,
      netns: namespace(host),
      args: k8sArgs('web', other),
    });
    expect((c.result!['ips'] as JsonObject[])[0]!['address']).toBe('10.10.0.3/24');
  });

  it('DEL removes the endpoint, the OVS port and the pod; a DEL of an unknown container succeeds', async () => {
    const { host, agent } = antreaNode();
    const netns = namespace(host);
    const before = nodeState(host, agent);
    const req = { containerId: CONTAINER_ID, netns, args: k8sArgs() };
    expect((await list(host, { command: 'ADD', ...req })).ok).toBe(true);
    expect((await list(host, { command: 'DEL', ...req })).ok).toBe(true);
    expect(endpoint(host, ENDPOINT)).toBeUndefined();
    expect(nodeState(host, agent)).toEqual(before);
    expect((await list(host, { command: 'DEL', ...req })).ok).toBe(true);
    const del = await exec(host, 'DEL', conf(), { CNI_NETNS: netns });
    expect(del).toMatchObject({ exitCode: 0, stdout: '' });
  });

  it('VERSION: every spec version (skel.PluginMainFuncs with cniversion.All)', async () => {
    const out = await execPlugin(newHost(), 'antrea', { env: { CNI_COMMAND: 'VERSION' }, stdin: '' });
    expect(JSON.parse(out.stdout)).toEqual({
      cniVersion: '1.1.0',
      supportedVersions: ['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'],
    });
  });
});

describe('antrea: CHECK (server.go CmdCheck, interface_configuration_windows.go)', () => {
  it('0.3.0 (Antrea’s conflist): libcni does not run CHECK', async () => {
    const { host } = antreaNode();
    const out = await list(host, {
      command: 'CHECK',
      containerId: CONTAINER_ID,
      netns: namespace(host),
      args: k8sArgs(),
    });
    // libcni api.go CheckNetworkList
    expect(out.error?.msg).toBe('configuration version "0.3.0" does not support the CHECK command');
    // the binary alone: skel's gate (skel.go: "config version does not allow CHECK")
    const alone = await exec(host, 'CHECK', conf(), { CNI_NETNS: namespace(host) });
    expect(errorDoc(alone.stdout)).toEqual({ code: 1, msg: 'config version does not allow CHECK' });
  });

  it('1.0.0 after ADD: the container interface `eth0` is looked up as `vEthernet (eth0)` and not found (103)', async () => {
    const { host } = antreaNode();
    const conflist = { ...ANTREA_CONFLIST, cniVersion: '1.0.0' };
    const req = { conflist, containerId: CONTAINER_ID, netns: namespace(host), args: k8sArgs() };
    expect((await list(host, { command: 'ADD', ...req })).ok).toBe(true);
    const out = await list(host, { command: 'CHECK', ...req });
    // Go's net.InterfaceByName error; server_windows_test.go "container-host-names-mismatch"
    expect(out.error).toMatchObject({ code: 103, msg: 'route ip+net: no such network interface' });
  });

  it('a prevResult whose sandbox is another namespace: 103 with server_windows_test.go’s text', async () => {
    const { host } = antreaNode();
    const netns = namespace(host);
    expect((await exec(host, 'ADD', conf({ cniVersion: '1.0.0' }), { CNI_NETNS: netns })).exitCode).toBe(0);
    const prevResult = {
      cniVersion: '1.0.0',
      interfaces: [
        { name: 'pod0-6631b7', mac: '11:22:33:44:33:22' },
        { name: 'pod0-6631b7_eth0', mac: '11:22:33:44:33:22', sandbox: 'invalid-namespace' },
      ],
      ips: [{ interface: 1, address: '10.10.0.2/24', gateway: '10.10.0.1' }],
    };
    const out = await exec(host, 'CHECK', conf({ cniVersion: '1.0.0', prevResult }), { CNI_NETNS: netns });
    expect(errorDoc(out.stdout)).toEqual({
      code: 103,
      msg: `sandbox in prevResult invalid-namespace doesn't match configured netns: ${netns}`,
    });
  });

  it('no prevResult at 1.0.0: UNSUPPORTED_FIELD; an unknown container: host-local’s CHECK error (101)', async () => {
    const { host } = antreaNode();
    const netns = namespace(host);
    expect((await exec(host, 'ADD', conf({ cniVersion: '1.0.0' }), { CNI_NETNS: netns })).exitCode).toBe(0);
    const noPrev = await exec(host, 'CHECK', conf({ cniVersion: '1.0.0' }), { CNI_NETNS: netns });
    expect(errorDoc(noPrev.stdout)).toEqual({
      code: 2,
      msg: 'Network configuration does not support prevResult=',
    });
    const unknown = await exec(host, 'CHECK', conf({ cniVersion: '1.0.0' }), {
      CNI_NETNS: netns,
      CNI_CONTAINERID: 'c0ffee',
    });
    expect(errorDoc(unknown.stdout)).toEqual({
      code: 101,
      msg: 'host-local: Failed to find address added by container c0ffee',
    });
  });
});

describe('antrea: errors, with the codes and texts of pkg/cni/client.go and server.go', () => {
  it('no agent on the node: TRY_AGAIN_LATER (11) with grpc-go’s dial failure; nothing changes', async () => {
    const host = newHost();
    const netns = namespace(host);
    const before = nodeState(host);
    const out = await list(host, { command: 'ADD', containerId: CONTAINER_ID, netns, args: k8sArgs() });
    expect(out.error).toMatchObject({ code: 11, msg: NO_AGENT });
    expect(nodeState(host)).toEqual(before);
    // a stopped agent's node the same
    const { host: h2, agent } = antreaNode();
    agent.stopCniServer();
    const del = await exec(h2, 'DEL', conf(), { CNI_NETNS: namespace(h2) });
    expect(errorDoc(del.stdout)).toEqual({ code: 11, msg: NO_AGENT });
  });

  it('a restored node: the agent comes back with its snapshot and serves the pipe; a snapshot without it: no CNI server answers (11)', async () => {
    const { host, agent } = antreaNode();
    const netns = namespace(host);
    const snap = host.snapshot();
    // a fresh host's snapshot restored over it: no agent, as on a fresh host
    host.restore(newHost().snapshot());
    expect(antreaOf(host)).toBeUndefined();
    const del = await exec(host, 'DEL', conf(), { CNI_NETNS: netns });
    expect(errorDoc(del.stdout)).toEqual({ code: 11, msg: NO_AGENT });
    // the agent it had was replaced: it cannot start on the node again
    expect(() => agent.start()).toThrow(/replaced on the node/);
    // the snapshot with the agent: a rebuilt agent serves the pipe
    host.restore(snap);
    expect(antreaOf(host)).not.toBe(agent);
    expect((await exec(host, 'ADD', conf(), { CNI_NETNS: netns })).exitCode).toBe(0);
    expect(
      antreaOf(host)
        ?.pods()
        .map((p) => p.interface),
    ).toEqual([ENDPOINT]);
  });

  it('a server without the method: INCOMPATIBLE_API_VERSION (202) with the client’s version 1.0.0-beta.1', async () => {
    const host = newHost();
    host.pipes.listen('\\\\.\\pipe\\cnisock', () => {
      throw new GrpcStatusError(
        'Unimplemented',
        'unknown method CmdAdd for service antrea_io.antrea.pkg.apis.cni.v1beta1.Cni',
      );
    });
    const out = await exec(host, 'ADD', conf(), { CNI_NETNS: namespace(host) });
    expect(errorDoc(out.stdout)).toEqual({
      code: 202,
      msg: 'incompatible CNI API version between client (antrea-cni) and server (antrea-agent), client is using version 1.0.0-beta.1',
      details:
        'service or method unimplemented by gRPC server: rpc error: code = Unimplemented desc = unknown method CmdAdd for service antrea_io.antrea.pkg.apis.cni.v1beta1.Cni',
    });
  });

  it('an unsupported cniVersion: skel refuses it (1); with none, the server does (1, its own text)', async () => {
    const { host, agent } = antreaNode();
    const netns = namespace(host);
    const before = nodeState(host, agent);
    const skel = await exec(host, 'ADD', conf({ cniVersion: '0.5.0' }), { CNI_NETNS: netns });
    expect(errorDoc(skel.stdout)).toEqual({
      code: 1,
      msg: 'incompatible CNI versions',
      details: 'config is "0.5.0", plugin supports ["0.1.0" "0.2.0" "0.3.0" "0.3.1" "0.4.0" "1.0.0" "1.1.0"]',
    });
    const { cniVersion: _, ...noVersion } = conf();
    const server = await exec(host, 'ADD', noVersion, { CNI_NETNS: netns });
    expect(errorDoc(server.stdout)).toEqual({
      code: 1,
      msg: 'Unsupported CNI version [], supported versions [0.1.0 0.2.0 0.3.0 0.3.1 0.4.0 1.0.0 1.1.0]',
    });
    expect(nodeState(host, agent)).toEqual(before);
  });

  it('missing or bad arguments: skel’s env check (4), CNI_ARGS the server cannot load (6), no IPAM type (2)', async () => {
    const { host, agent } = antreaNode();
    const netns = namespace(host);
    const before = nodeState(host, agent);
    const noNetns = await exec(host, 'ADD', conf());
    expect(errorDoc(noNetns.stdout)).toEqual({ code: 4, msg: 'required env variables [CNI_NETNS] missing' });
    const badArgs = await exec(host, 'ADD', conf(), {
      CNI_NETNS: netns,
      CNI_ARGS: 'K8S_POD_NAME=pod0;FOO=bar',
    });
    expect(errorDoc(badArgs.stdout)).toEqual({ code: 6, msg: 'Failed to decode network config' });
    const badPair = await exec(host, 'ADD', conf(), { CNI_NETNS: netns, CNI_ARGS: 'K8S_POD_NAME' });
    expect(errorDoc(badPair.stdout)).toEqual({ code: 6, msg: 'Failed to decode network config' });
    const noIpam = await exec(host, 'ADD', conf({ ipam: undefined }), { CNI_NETNS: netns });
    expect(errorDoc(noIpam.stdout)).toEqual({
      code: 2,
      msg: 'Network configuration does not support ipam/type=',
    });
    const dhcp = await exec(host, 'ADD', conf({ ipam: { type: 'dhcp' } }), { CNI_NETNS: netns });
    expect(errorDoc(dhcp.stdout)).toEqual({
      code: 2,
      msg: 'Network configuration does not support ipam/type=dhcp',
    });
    const badMtu = await exec(host, 'ADD', conf({ mtu: 'big' }), { CNI_NETNS: netns });
    expect(errorDoc(badMtu.stdout)).toEqual({ code: 6, msg: 'Failed to decode network config' });
    expect(nodeState(host, agent)).toEqual(before);
  });

  it('an IPAM routes/addresses/dns that Antrea’s types.IPAMConfig does not decode: 6; valid ones pass', async () => {
    // pkg/agent/cniserver/types/types.go IPAMConfig: Routes []*cnitypes.Route (dst a types.IPNet),
    // Addresses []Address (Gateway net.IP), DNS cnitypes.DNS; server.go validateRequestMessage:
    // decodingFailureResponse("network config")
    const { host, agent } = antreaNode();
    const netns = namespace(host);
    const before = nodeState(host, agent);
    for (const ipam of [
      { routes: 'x' },
      { routes: [{ dst: 'not-a-cidr' }] },
      { routes: [{ dst: '10.0.0.0/8', gw: 'zz' }] },
      { routes: [{ dst: 10 }] },
      { addresses: [{ address: '1.2.3.4/24', gateway: 'zz' }] },
      { addresses: { address: '1.2.3.4/24' } },
      { dns: { nameservers: '8.8.8.8' } },
      { dns: 'x' },
    ]) {
      const out = await exec(host, 'ADD', conf({ ipam: { type: 'host-local', ...ipam } }), {
        CNI_NETNS: netns,
      });
      expect(errorDoc(out.stdout), JSON.stringify(ipam)).toEqual({
        code: 6,
        msg: 'Failed to decode network config',
      });
    }
    expect(nodeState(host, agent)).toEqual(before);
    const ok = await exec(
      host,
      'ADD',
      conf({
        ipam: {
          type: 'host-local',
          routes: [{ dst: '0.0.0.0/0' }, { dst: '10.0.0.0/8', gw: '10.10.0.1' }, null],
          addresses: [{ address: '10.10.0.9/24', gateway: '10.10.0.1' }],
          dns: { nameservers: ['10.96.0.10'], search: ['svc.cluster.local'] },
        },
      }),
      { CNI_NETNS: netns },
    );
    expect(ok.exitCode).toBe(0);
  });

  it('Docker’s netns: the server’s Go error, as the gRPC status the shim reports (201)', async () => {
    const { host, agent } = antreaNode();
    const before = nodeState(host, agent);
    const out = await exec(host, 'ADD', conf(), { CNI_NETNS: 'none' });
    expect(errorDoc(out.stdout)).toEqual({
      code: 201,
      msg: 'rpc error: code = Unknown desc = failed to validate container runtime for CmdAdd request: Docker runtime is not supported after Antrea 2.0 for Windows Nodes',
    });
    expect(nodeState(host, agent)).toEqual(before);
  });

  it('a namespace that does not exist: CONFIG_INTERFACE_FAILURE (102), the endpoint removed again', async () => {
    const { host, agent } = antreaNode();
    const before = nodeState(host, agent);
    const out = await exec(host, 'ADD', conf(), { CNI_NETNS: '8f3b1c9e-0000-4000-8000-000000000001' });
    expect(out.exitCode).toBe(1);
    expect(errorDoc(out.stdout).code).toBe(102);
    expect(nodeState(host, agent)).toEqual(before);
    // host-local's last_reserved_ip moved with the failed ADD (10.10.0.2): the next pod takes .3
    const next = await exec(host, 'ADD', conf(), { CNI_NETNS: namespace(host) });
    expect((JSON.parse(next.stdout) as { ips: { address: string }[] }).ips[0]!.address).toBe('10.10.0.3/24');
  });

  it('an exhausted pod subnet: host-local’s error as IPAM_FAILURE (101)', async () => {
    const host = newHost();
    const agent = new AntreaAgent(host, { podCidr: '10.10.0.0/30' });
    agent.start();
    const first = await exec(host, 'ADD', conf(), { CNI_NETNS: namespace(host) });
    expect(first.exitCode).toBe(0);
    const netns = namespace(host);
    const before = nodeState(host, agent);
    const out = await exec(host, 'ADD', conf(), { CNI_NETNS: netns, CNI_CONTAINERID: 'b'.repeat(64) });
    expect(errorDoc(out.stdout)).toEqual({
      code: 101,
      msg: 'no IP addresses available in range set: 10.10.0.2-10.10.0.2',
    });
    expect(nodeState(host, agent)).toEqual(before);
  });
});

describe('containerd runs a pod on an Antrea node through the conflist', () => {
  it('RunPodSandbox: the agent attaches it (its address is the sandbox’s); StopPodSandbox: DEL removes it', async () => {
    const { host, agent } = antreaNode();
    const before = nodeState(host, agent);
    const rt = new ContainerdRuntime(host, { networks: [cniNetwork(host, ANTREA_CONFLIST)] });
    const id = await rt.runPodSandbox({
      metadata: { name: 'pod0', namespace: 'default', uid: '7c1c0c5e-1f6a-4b7e-9a53-2f0d3c1e9a10' },
      dnsConfig: { servers: ['10.96.0.10'], searches: ['default.svc.cluster.local'] },
    });
    const status = await rt.podSandboxStatus(id);
    expect(status.network.ip).toBe('10.10.0.2');
    const pod = agent.pods().find((p) => p.containerId === id)!;
    expect(pod).toMatchObject({ name: 'pod0', namespace: 'default', ip: '10.10.0.2' });
    expect(endpoint(host, pod.interface)).toMatchObject({
      DNSServerList: '10.96.0.10',
      DNSSuffix: 'default.svc.cluster.local',
    });
    expect(host.ovs.vsctl(['list-ports', 'br-int']).stdout.split('\n')).toContain(pod.interface);
    await rt.stopPodSandbox(id);
    await rt.removePodSandbox(id);
    expect(nodeState(host, agent)).toEqual(before);
  });
});
