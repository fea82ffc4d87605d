/**
 * win-bridge and win-overlay (containernetworking/plugins @ 3d27709f = v1.9.1) run end to end on a
 * simulated node: the worked vectors of reference cni-windows.md §3.3 (N1, N2, M1, M2, G1, P1, W1
 * and its v2 variant, E1-E3, D1-D3) and the real-world configs of §3.4. Upstream has no tests for
 * these plugins, so the vectors are the reference's, derived from
 * `plugins/main/windows/win-bridge/win-bridge_windows.go`, `.../win-overlay/win-overlay_windows.go`,
 * `pkg/hns/endpoint_windows.go` and `pkg/hns/netconf_windows.go`; sample configs are the upstream
 * files `plugins/main/windows/win-{bridge,overlay}/sample*.conf`.
 *
 * The node: `createHost` with one uplink NIC (the network's ManagementIP), HNS state made through
 * the flat API (`HNSCall` v1, `HcnCreate*` v2), containers through the HCS client, plugins run
 * through `pluginHost` + `PluginRegistry`. IPAM is the real host-local (src/plugins/host-local),
 * except where a test needs IPAM to fail or to return something host-local cannot (IPv6 on an
 * overlay): there a small fake `host-local` prints a fixed 1.0.0 result. What a plugin sent to HNS
 * is read from a recording wrapped around `host.transport`.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../src/host/host.js';
import type { HnsCall } from '../../src/api/transport.js';
import { HcsClient } from '../../src/api/hcs/client.js';
import type { CniExecEvent } from '../../src/core/events.js';
import type { JsonObject } from '../../src/core/json.js';
import { CniError, type CniPlugin, type ExecOutput } from '../../src/cni/contracts.js';
import { pluginHost, type CniHost } from '../../src/cni/host.js';
import { PluginRegistry } from '../../src/cni/registry.js';
import { pluginMain } from '../../src/cni/skel.js';
import { VERSION_ALL } from '../../src/cni/version.js';
import { hostLocal } from '../../src/plugins/host-local/index.js';
import { winBridge } from '../../src/plugins/win-bridge.js';
import { overlayMac, winOverlay } from '../../src/plugins/win-overlay.js';
import { constructEndpointName, getSandboxContainerID } from '../../src/plugins/hns/endpoint.js';
import { getProtocolEnum } from '../../src/plugins/hns/netconf.js';

// ───────────────────────────── the node ─────────────────────────────

const CNI_PATH = 'C:\\opt\\cni\\bin';
const NODE_NIC = {
  name: 'Ethernet',
  ipAddress: '192.168.1.11/24',
  gateway: '192.168.1.1',
  macAddress: '00-0D-3A-11-22-33',
};

/** A fake `host-local`: ADD prints `result` as is; DEL/STATUS fail when told to. */
function fakeIpam(result: string, fail: { del?: CniError; status?: CniError } = {}): CniPlugin {
  return pluginMain(
    'host-local',
    {
      add: async (_args, ctx) => ctx.stdout.write(result),
      del: async () => {
        if (fail.del) throw fail.del;
      },
      status: async () => {
        if (fail.status) throw fail.status;
      },
    },
    VERSION_ALL,
    'CNI host-local plugin (test fake)',
  );
}

/** A fixed IPAM result at 1.0.0 with one address. */
function ipamResult(address: string, gateway = '10.244.1.1'): string {
  return `{"cniVersion":"1.0.0","ips":[{"address":"${address}","gateway":"${gateway}"}],"dns":{}}`;
}

interface Node {
  readonly host: Host;
  readonly ph: CniHost;
  readonly calls: HnsCall[];
  readonly execs: CniExecEvent[];
}

function node(ipam: CniPlugin = hostLocal, profile = 'ws2022', nic: typeof NODE_NIC = NODE_NIC): Node {
  const host = createHost({ seed: 41, profile, adapters: [nic] });
  const calls: HnsCall[] = [];
  const inner = host.transport.call.bind(host.transport);
  (host.transport as { call: typeof inner }).call = (c) => {
    calls.push(c);
    return inner(c);
  };
  const execs: CniExecEvent[] = [];
  host.events.on('cni.exec', (e) => execs.push(e));
  const ph = pluginHost(host, new PluginRegistry().register(winBridge).register(winOverlay).register(ipam));
  return { host, ph, calls, execs };
}

function env(command: string, containerId: string, netns: string): Record<string, string> {
  return {
    CNI_COMMAND: command,
    CNI_CONTAINERID: containerId,
    CNI_NETNS: netns,
    CNI_IFNAME: 'eth0',
    CNI_PATH,
  };
}

function run(
  n: Node,
  plugin: string,
  command: string,
  cid: string,
  netns: string,
  conf: unknown,
): Promise<ExecOutput> {
  return n.ph.exec(
    plugin,
    { env: env(command, cid, netns), stdin: typeof conf === 'string' ? conf : JSON.stringify(conf) },
    0,
  );
}

/** A started process container (what dockershim's HotAttach needs to exist). */
async function container(n: Node, id: string): Promise<void> {
  const c = await HcsClient.forHost(n.host).createComputeSystem(id, {
    Owner: 'containerd-shim-runhcs-v1.exe',
    SchemaVersion: { Major: 2, Minor: 1 },
    Container: { Networking: {} },
  });
  await c.start();
  await c.close();
}

function v1(n: Node, method: string, path: string, body = ''): JsonObject {
  const r = n.host.api.HNSCall(method, path, body);
  if (!r.ok) throw new Error(`HNSCall ${method} ${path}: ${r.message}`);
  const out = r.result as JsonObject;
  if (out['Success'] !== true) throw new Error(`HNSCall ${method} ${path}: ${String(out['Error'])}`);
  return out;
}

/** A v1 network (POST /networks/) as HNS returned it. */
function v1Network(n: Node, doc: string): JsonObject {
  return v1(n, 'POST', '/networks/', doc)['Output'] as JsonObject;
}

function v1Endpoints(n: Node): JsonObject[] {
  return v1(n, 'GET', '/endpoints/')['Output'] as JsonObject[];
}

/** The bodies the plugin POSTed to HNS v1 at `path`. */
function v1Posts(n: Node, path: string): string[] {
  return n.calls
    .filter((c) => c.method === 'HNSCall' && c.args[0] === 'POST' && c.args[1] === path)
    .map((c) => c.args[2] as string);
}

/** The settings documents of the plugin's `HcnCreateEndpoint` calls. */
function hcnEndpointCreates(n: Node): string[] {
  return n.calls.filter((c) => c.method === 'HcnCreateEndpoint').map((c) => c.args[2] as string);
}

/** Go's `json.MarshalIndent(v, "", "    ")` of a compact document (plain values only). */
function indented(compact: string): string {
  return JSON.stringify(JSON.parse(compact), null, 4);
}

const CBR0_V1 =
  '{"Name":"cbr0","Type":"L2Bridge","NetworkAdapterName":"Ethernet","Subnets":[{"AddressPrefix":"10.244.1.0/24","GatewayAddress":"10.244.1.1"}]}';

const CBR0_V2 =
  '{"Name":"cbr0","Type":"L2Bridge","Policies":[{"Type":"NetAdapterName","Settings":{"NetworkAdapterName":"Ethernet"}}],' +
  '"Ipams":[{"Type":"Static","Subnets":[{"IpAddressPrefix":"10.244.1.0/24","Routes":[{"NextHop":"10.244.1.1","DestinationPrefix":"0.0.0.0/0"}]}]}],' +
  '"SchemaVersion":{"Major":2,"Minor":0}}';

/** The namespace containerd creates per pod (`hcn.HostComputeNamespace{}.Create()`). */
function containerdNamespace(n: Node): string {
  const r = n.host.api.HcnCreateNamespace(null, '{"SchemaVersion":{"Major":2,"Minor":0}}');
  if (!r.ok) throw new Error(r.message);
  return r.result.ID;
}

function hcnNetwork(n: Node, doc: string): string {
  const r = n.host.api.HcnCreateNetwork(null, doc);
  if (!r.ok) throw new Error(r.message);
  return r.result.ID;
}

/** The IPAM invocations the plugins made (delegations: depth 1). */
function ipamCalls(n: Node, command: string): CniExecEvent[] {
  return n.execs.filter((e) => e.plugin === 'host-local' && e.command === command && e.depth === 1);
}

// ───────────────────────────── W1 (reference §3.3) ─────────────────────────────

/** The W1 config, verbatim from reference §3.3. */
const W1_CONF = {
  cniVersion: '0.3.1',
  name: 'cbr0',
  type: 'win-bridge',
  ipMasqNetwork: '10.244.0.0/16',
  ipam: { type: 'host-local', subnet: '10.244.1.0/24' },
  dns: { nameservers: ['10.96.0.10'], search: ['svc.cluster.local'] },
  policies: [
    {
      Name: 'EndpointPolicy',
      Value: { Type: 'OutBoundNAT', ExceptionList: ['10.96.0.0/12', '10.244.0.0/16'] },
    },
    { Name: 'EndpointPolicy', Value: { Type: 'ROUTE', DestinationPrefix: '10.96.0.0/12', NeedEncap: true } },
  ],
  runtimeConfig: {
    portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }],
    dns: { servers: ['10.96.0.10'], searches: ['default.svc.cluster.local', 'svc.cluster.local'] },
  },
};

describe('naming (N1, N2), MAC (M1), protocol (P1)', () => {
  it('N1: GetSandboxContainerID', () => {
    expect(getSandboxContainerID('abc', '')).toBe('abc');
    expect(getSandboxContainerID('abc', 'none')).toBe('abc');
    expect(getSandboxContainerID('w1', 'container:p1')).toBe('p1');
    expect(getSandboxContainerID('abc', '6f1a0b2c-3d4e-4f50-8a6b-7c8d9e0f1a2b')).toBe('abc');
    expect(getSandboxContainerID('abc', 'a:b:c')).toBe('b:c');
  });

  it('N2: ConstructEndpointName(w1, container:p1, cbr0) = p1_cbr0', () => {
    expect(constructEndpointName('w1', 'container:p1', 'cbr0')).toBe('p1_cbr0');
  });

  it('M1: prefix 0E-2A, lower-case hex octets (and the containerd#5729 payload’s MAC)', () => {
    expect(overlayMac('0E-2A', new Uint8Array([10, 244, 1, 5]))).toBe('0E-2A-0a-f4-01-05');
    expect(overlayMac('0E-2A', new Uint8Array([100, 244, 206, 68]))).toBe('0E-2A-64-f4-ce-44');
  });

  it('P1: tcp / UDP / 0x11 / 6 → 6 / 17 / 17 / 6; sctp and 2000 are invalid', () => {
    expect(['tcp', 'UDP', '0x11', '6'].map((protocol) => getProtocolEnum({ protocol }))).toEqual([
      6, 17, 17, 6,
    ]);
    for (const protocol of ['sctp', '2000']) {
      expect(() => getProtocolEnum({ protocol })).toThrow('invalid protocol supplied to port mapping policy');
    }
  });
});

describe('win-bridge, HNS v1', () => {
  let n: Node;
  let cbr0: JsonObject;
  beforeEach(async () => {
    n = node();
    cbr0 = v1Network(n, CBR0_V1);
    await container(n, 'abc123');
    // "host-local has already handed out .2" (W1): an earlier pod holds it
    expect((await run(n, 'host-local', 'ADD', 'earlier', 'none', W1_CONF)).exitCode).toBe(0);
  });

  it('W1: the exact HNS POST /endpoints/ body and the exact stdout', async () => {
    const out = await run(n, 'win-bridge', 'ADD', 'abc123', 'none', W1_CONF);
    expect(out.exitCode).toBe(0);
    // OutBoundNAT is not re-added: 10.244.0.0/16 is already listed; gateway = 10.244.1.0 + 2
    expect(v1Posts(n, '/endpoints/')).toEqual([
      `{"Name":"abc123_cbr0","VirtualNetwork":"${String(cbr0['ID'])}","Policies":[{"Type":"OutBoundNAT","ExceptionList":["10.96.0.0/12","10.244.0.0/16"]},{"Type":"ROUTE","DestinationPrefix":"10.96.0.0/12","NeedEncap":true},{"Type":"NAT","InternalPort":80,"ExternalPort":8080,"Protocol":"tcp"}],"IPAddress":"10.244.1.3","DNSSuffix":"default.svc.cluster.local,svc.cluster.local","DNSServerList":"10.96.0.10","GatewayAddress":"10.244.1.2"}`,
    ]);
    const [ep] = v1Endpoints(n);
    expect(ep).toMatchObject({ Name: 'abc123_cbr0', IPAddress: '10.244.1.3', SharedContainers: ['abc123'] });
    const mac = String(ep!['MacAddress']);
    expect(mac).toMatch(/^00-15-5D(-[0-9A-F]{2}){3}$/);
    expect(out.stdout).toBe(
      indented(
        `{"cniVersion":"0.3.1","interfaces":[{"name":"abc123_cbr0","mac":"${mac}"}],"ips":[{"version":"4","address":"10.244.1.3/24","gateway":"10.244.1.2"}],"dns":{"nameservers":["10.96.0.10"],"search":["default.svc.cluster.local","svc.cluster.local"]}}`,
      ),
    );
  });

  it('W1 twice: the endpoint is reused (no second create, IPAM not asked again)', async () => {
    expect((await run(n, 'win-bridge', 'ADD', 'abc123', 'none', W1_CONF)).exitCode).toBe(0);
    const again = await run(n, 'win-bridge', 'ADD', 'abc123', 'none', W1_CONF);
    expect(again.exitCode).toBe(0);
    expect(v1Posts(n, '/endpoints/')).toHaveLength(1);
    expect(ipamCalls(n, 'ADD')).toHaveLength(1);
  });

  it('G1: 10.10.5.7/16 from IPAM → GatewayAddress 10.10.0.2 (the IPAM gateway is ignored)', async () => {
    const m = node();
    const net = v1Network(
      m,
      '{"Name":"cbr1","Type":"L2Bridge","NetworkAdapterName":"Ethernet","Subnets":[{"AddressPrefix":"10.10.0.0/16","GatewayAddress":"10.10.0.1"}]}',
    );
    await container(m, 'g1');
    const out = await run(m, 'win-bridge', 'ADD', 'g1', 'none', {
      cniVersion: '1.0.0',
      name: 'cbr1',
      type: 'win-bridge',
      ipam: { type: 'host-local', subnet: '10.10.0.0/16', rangeStart: '10.10.5.7' },
    });
    expect(out.exitCode).toBe(0);
    expect(v1Posts(m, '/endpoints/')).toEqual([
      `{"Name":"g1_cbr1","VirtualNetwork":"${String(net['ID'])}","IPAddress":"10.10.5.7","GatewayAddress":"10.10.0.2"}`,
    ]);
    expect(JSON.parse(out.stdout).ips).toEqual([{ address: '10.10.5.7/16', gateway: '10.10.0.2' }]);
  });

  it('P1 (v1): NAT policies carry the protocol as given; sctp and 2000 are skipped', async () => {
    // what HNS v1 then makes of "UDP", "0x11" or "6" is the simulator's choice (reference §8)
    const conf = {
      cniVersion: '1.0.0',
      name: 'cbr0',
      type: 'win-bridge',
      ipam: { type: 'host-local', subnet: '10.244.1.0/24' },
      runtimeConfig: {
        portMappings: ['tcp', 'UDP', '0x11', '6', 'sctp', '2000'].map((protocol, i) => ({
          hostPort: 8000 + i,
          containerPort: 80,
          protocol,
        })),
      },
    };
    await run(n, 'win-bridge', 'ADD', 'abc123', 'none', conf);
    const body = JSON.parse(v1Posts(n, '/endpoints/')[0]!) as { Policies: unknown[] };
    expect(body.Policies).toEqual([
      { Type: 'NAT', InternalPort: 80, ExternalPort: 8000, Protocol: 'tcp' },
      { Type: 'NAT', InternalPort: 80, ExternalPort: 8001, Protocol: 'UDP' },
      { Type: 'NAT', InternalPort: 80, ExternalPort: 8002, Protocol: '0x11' },
      { Type: 'NAT', InternalPort: 80, ExternalPort: 8003, Protocol: '6' },
    ]);
  });

  it('E1: a containerd namespace GUID on the v1 path → 999 (pitfall P1); IPAM DEL runs anyway', async () => {
    const out = await run(n, 'win-bridge', 'ADD', 'abc123', '6f1a0b2c-3d4e-4f50-8a6b-7c8d9e0f1a2b', W1_CONF);
    expect(out.exitCode).toBe(1);
    expect(JSON.parse(out.stdout)).toEqual({
      code: 999,
      msg: 'error while adding HNSEndpoint: failed to find HNSEndpoint abc123_cbr0: Endpoint abc123_cbr0 not found',
    });
    expect(ipamCalls(n, 'ADD')).toHaveLength(0);
    expect(ipamCalls(n, 'DEL').map((e) => e.depth)).toEqual([1]);
    expect(v1Endpoints(n)).toEqual([]);
  });

  it('E2: the network does not exist', async () => {
    const out = await run(n, 'win-bridge', 'ADD', 'abc123', 'none', { ...W1_CONF, name: 'cbr9' });
    expect(JSON.parse(out.stdout)).toEqual({
      code: 999,
      msg: 'error while getting network cbr9: Network cbr9 not found',
    });
  });

  it('E3: a network of another type', async () => {
    const m = node();
    v1Network(
      m,
      '{"Name":"cbr0","Type":"NAT","Subnets":[{"AddressPrefix":"172.20.0.0/16","GatewayAddress":"172.20.0.1"}]}',
    );
    const out = await run(m, 'win-bridge', 'ADD', 'abc123', 'none', W1_CONF);
    expect(JSON.parse(out.stdout)).toEqual({ code: 999, msg: 'network cbr0 is of unexpected type: NAT' });
  });

  it('an unknown container: the new endpoint is removed again and the attach error returned', async () => {
    const out = await run(n, 'win-bridge', 'ADD', 'nosuch', 'none', W1_CONF);
    expect(out.exitCode).toBe(1);
    const err = JSON.parse(out.stdout) as { code: number; msg: string };
    expect(err.code).toBe(999);
    expect(err.msg).toMatch(
      /^error while adding HNSEndpoint: failed to attach container nosuch to HNSEndpoint [0-9A-F-]{36}: /,
    );
    expect(v1Endpoints(n)).toEqual([]);
    expect(ipamCalls(n, 'DEL')).toHaveLength(1);
  });

  it('D1: DEL with an empty CNI_NETNS succeeds and leaves the endpoint (pitfall P3)', async () => {
    expect((await run(n, 'win-bridge', 'ADD', 'abc123', 'none', W1_CONF)).exitCode).toBe(0);
    const del = await run(n, 'win-bridge', 'DEL', 'abc123', '', W1_CONF);
    expect(del).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(v1Endpoints(n).map((e) => e['Name'])).toEqual(['abc123_cbr0']);
    expect(ipamCalls(n, 'DEL')).toHaveLength(1);
  });

  it('DEL with netns none: hot detach, then delete', async () => {
    expect((await run(n, 'win-bridge', 'ADD', 'abc123', 'none', W1_CONF)).exitCode).toBe(0);
    expect((await run(n, 'win-bridge', 'DEL', 'abc123', 'none', W1_CONF)).exitCode).toBe(0);
    expect(v1Endpoints(n)).toEqual([]);
    // and again: a missing endpoint is a success
    expect((await run(n, 'win-bridge', 'DEL', 'abc123', 'none', W1_CONF)).exitCode).toBe(0);
  });

  it('D2: dockershim workload container: shared endpoint reused on ADD, only detached on DEL', async () => {
    await container(n, 'p1');
    await container(n, 'w1');
    const conf = {
      cniVersion: '0.3.1',
      name: 'cbr0',
      type: 'win-bridge',
      ipam: { type: 'host-local', subnet: '10.244.1.0/24' },
    };
    expect((await run(n, 'win-bridge', 'ADD', 'p1', 'none', conf)).exitCode).toBe(0);
    const add = await run(n, 'win-bridge', 'ADD', 'w1', 'container:p1', conf);
    expect(add.exitCode).toBe(0);
    expect(JSON.parse(add.stdout).interfaces[0].name).toBe('p1_cbr0');
    expect(v1Endpoints(n)[0]!['SharedContainers']).toEqual(['p1', 'w1']);
    const del = await run(n, 'win-bridge', 'DEL', 'w1', 'container:p1', conf);
    expect(del.exitCode).toBe(0);
    const eps = v1Endpoints(n);
    expect(eps.map((e) => e['Name'])).toEqual(['p1_cbr0']);
    expect(eps[0]!['SharedContainers']).toEqual(['p1']);
  });

  it('D3: an IPAM DEL failure is returned as IPAM printed it, and the endpoint stays', async () => {
    const m = node(
      fakeIpam(ipamResult('10.244.1.3/24'), { del: new CniError(11, 'failed to release', 'store locked') }),
    );
    v1Network(m, CBR0_V1);
    await container(m, 'abc123');
    expect((await run(m, 'win-bridge', 'ADD', 'abc123', 'none', W1_CONF)).exitCode).toBe(0);
    const del = await run(m, 'win-bridge', 'DEL', 'abc123', 'none', W1_CONF);
    expect(del.exitCode).toBe(1);
    expect(JSON.parse(del.stdout)).toEqual({ code: 11, msg: 'failed to release', details: 'store locked' });
    expect(v1Endpoints(m).map((e) => e['Name'])).toEqual(['abc123_cbr0']);
  });

  it('an endpoint of that name on another network is deleted and replaced', async () => {
    const other = v1Network(
      n,
      '{"Name":"other","Type":"L2Bridge","NetworkAdapterName":"Ethernet","Subnets":[{"AddressPrefix":"10.99.0.0/24","GatewayAddress":"10.99.0.1"}]}',
    );
    v1(n, 'POST', '/endpoints/', `{"Name":"abc123_cbr0","VirtualNetwork":"${String(other['ID'])}"}`);
    expect((await run(n, 'win-bridge', 'ADD', 'abc123', 'none', W1_CONF)).exitCode).toBe(0);
    const eps = v1Endpoints(n);
    expect(eps).toHaveLength(1);
    expect(String(eps[0]!['VirtualNetwork']).toLowerCase()).toBe(String(cbr0['ID']).toLowerCase());
  });
});

describe('win-bridge loopback DSR gated by the HNS version (hcn.DSRSupported: 9.3-9.x, ≥ 10.2)', () => {
  const conf = {
    cniVersion: '1.0.0',
    name: 'cbr0',
    type: 'win-bridge',
    ipam: { type: 'host-local', subnet: '10.244.1.0/24', rangeStart: '10.244.1.3' },
    loopbackDSR: true,
  };
  for (const [profile, expected] of [
    ['ws2022', true],
    ['9.3', true],
    ['9.2', false],
    ['10.1', false],
    ['10.2', true],
  ] as const) {
    it(`HNS ${profile}: DSR policy ${expected ? 'appended last' : 'absent'}`, async () => {
      const n = node(hostLocal, profile);
      v1Network(n, CBR0_V1);
      await container(n, 'c1');
      expect((await run(n, 'win-bridge', 'ADD', 'c1', 'none', conf)).exitCode).toBe(0);
      const body = JSON.parse(v1Posts(n, '/endpoints/')[0]!) as { Policies?: unknown[] };
      expect(body.Policies).toEqual(
        expected ? [{ Type: 'OutBoundNAT', Destinations: ['10.244.1.3'] }] : undefined,
      );
    });
  }
});

describe('win-bridge, HCN v2 (apiVersion 2)', () => {
  const W1_V2 = {
    ...W1_CONF,
    apiVersion: 2,
    policies: [
      {
        Name: 'EndpointPolicy',
        Value: { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.96.0.0/12', '10.244.0.0/16'] } },
      },
      {
        Name: 'EndpointPolicy',
        Value: { Type: 'SDNRoute', Settings: { DestinationPrefix: '10.96.0.0/12', NeedEncap: true } },
      },
    ],
  };
  let n: Node;
  let netId: string;
  let ns: string;
  beforeEach(async () => {
    n = node();
    netId = hcnNetwork(n, CBR0_V2);
    ns = containerdNamespace(n);
    expect((await run(n, 'host-local', 'ADD', 'earlier', 'none', W1_V2)).exitCode).toBe(0);
  });

  it('W1 v2: the HCN endpoint document, the namespace add and the result', async () => {
    const out = await run(n, 'win-bridge', 'ADD', 'abc123', ns, W1_V2);
    expect(out.exitCode).toBe(0);
    // hcsshim's HostComputeEndpoint in field order; Health and SchemaVersion are struct fields (always written)
    expect(hcnEndpointCreates(n)).toEqual([
      `{"Name":"abc123_cbr0","HostComputeNetwork":"${netId}","Policies":[{"Type":"OutBoundNAT","Settings":{"Exceptions":["10.96.0.0/12","10.244.0.0/16"]}},{"Type":"SDNRoute","Settings":{"DestinationPrefix":"10.96.0.0/12","NeedEncap":true}},{"Type":"PortMapping","Settings":{"InternalPort":80,"ExternalPort":8080,"Protocol":6,"VIP":""}}],"IpConfigurations":[{"IpAddress":"10.244.1.3"}],"Dns":{"Search":["default.svc.cluster.local","svc.cluster.local"],"ServerList":["10.96.0.10"]},"Routes":[{"NextHop":"10.244.1.2","DestinationPrefix":"0.0.0.0/0"}],"Health":{"Extra":{}},"SchemaVersion":{"Major":2,"Minor":0}}`,
    ]);
    const modify = n.calls.filter((c) => c.method === 'HcnModifyNamespace');
    expect(modify).toHaveLength(1);
    expect(modify[0]!.args[0]).toBe(ns);
    const epId = JSON.parse(modify[0]!.args[1] as string) as JsonObject;
    expect(epId).toMatchObject({ ResourceType: 'Endpoint', RequestType: 'Add' });
    const result = JSON.parse(out.stdout) as { interfaces: { name: string; mac: string }[] };
    expect(out.stdout).toBe(
      indented(
        `{"cniVersion":"0.3.1","interfaces":[{"name":"abc123_cbr0","mac":"${result.interfaces[0]!.mac}"}],"ips":[{"version":"4","address":"10.244.1.3/24","gateway":"10.244.1.2"}],"dns":{"nameservers":["10.96.0.10"],"search":["default.svc.cluster.local","svc.cluster.local"]}}`,
      ),
    );
  });

  it('DNS (v2): runtimeConfig servers replace the config’s; domain and options come from the config only', async () => {
    const conf = {
      cniVersion: '0.3.1',
      name: 'cbr0',
      type: 'win-bridge',
      apiVersion: 2,
      ipam: { type: 'host-local', subnet: '10.244.1.0/24' },
      dns: { nameservers: ['10.96.0.10'], domain: 'cluster.local', options: ['ndots:5'] },
      runtimeConfig: { dns: { servers: ['10.0.0.10'], searches: [], options: ['ignored'] } },
    };
    const out = await run(n, 'win-bridge', 'ADD', 'c1', ns, conf);
    expect(out.exitCode).toBe(0);
    const body = JSON.parse(hcnEndpointCreates(n)[0]!) as JsonObject;
    expect(body['Dns']).toEqual({ Domain: 'cluster.local', ServerList: ['10.0.0.10'], Options: ['ndots:5'] });
    expect(JSON.parse(out.stdout).dns).toEqual({
      nameservers: ['10.0.0.10'],
      domain: 'cluster.local',
      options: ['ndots:5'],
    });
  });

  it('P1 (v2): PortMapping policies with the protocol number; sctp and 2000 skipped', async () => {
    const conf = {
      cniVersion: '1.0.0',
      name: 'cbr0',
      type: 'win-bridge',
      apiVersion: 2,
      ipam: { type: 'host-local', subnet: '10.244.1.0/24' },
      runtimeConfig: {
        portMappings: ['tcp', 'UDP', '0x11', '6', 'sctp', '2000'].map((protocol, i) => ({
          hostPort: 8000 + i,
          containerPort: 80 + i,
          protocol,
        })),
      },
    };
    expect((await run(n, 'win-bridge', 'ADD', 'c1', ns, conf)).exitCode).toBe(0);
    const body = JSON.parse(hcnEndpointCreates(n)[0]!) as { Policies: { Settings: { Protocol: number } }[] };
    expect(body.Policies.map((p) => p.Settings.Protocol)).toEqual([6, 17, 17, 6]);
  });

  it('DEL removes the endpoint from its namespace, then deletes it; a second DEL succeeds', async () => {
    expect((await run(n, 'win-bridge', 'ADD', 'abc123', ns, W1_V2)).exitCode).toBe(0);
    expect((await run(n, 'win-bridge', 'DEL', 'abc123', ns, W1_V2)).exitCode).toBe(0);
    const removes = n.calls
      .filter((c) => c.method === 'HcnModifyNamespace')
      .map((c) => (JSON.parse(c.args[1] as string) as JsonObject)['RequestType']);
    expect(removes).toEqual(['Add', 'Remove']);
    expect(n.calls.filter((c) => c.method === 'HcnDeleteEndpoint')).toHaveLength(1);
    expect((await run(n, 'win-bridge', 'DEL', 'abc123', ns, W1_V2)).exitCode).toBe(0);
  });

  it('DEL after the namespace is gone still deletes the endpoint (pitfall P5)', async () => {
    expect((await run(n, 'win-bridge', 'ADD', 'abc123', ns, W1_V2)).exitCode).toBe(0);
    const del = n.host.api.HcnDeleteNamespace(ns);
    expect(del.ok).toBe(true);
    expect((await run(n, 'win-bridge', 'DEL', 'abc123', ns, W1_V2)).exitCode).toBe(0);
    expect(n.calls.filter((c) => c.method === 'HcnDeleteEndpoint')).toHaveLength(1);
  });

  it('ADD with a namespace that does not exist: the new endpoint is removed, IPAM DEL runs', async () => {
    const out = await run(n, 'win-bridge', 'ADD', 'abc123', '0d8e7f6a-5b4c-4d3e-8f2a-1b0c9d8e7f6a', W1_V2);
    expect(out.exitCode).toBe(1);
    const err = JSON.parse(out.stdout) as { code: number; msg: string };
    expect(err.msg).toMatch(
      /^error while adding HostComputeEndpoint: failed to add HostComputeEndpoint abc123_cbr0 to HostComputeNamespace 0d8e7f6a-5b4c-4d3e-8f2a-1b0c9d8e7f6a: /,
    );
    expect(n.calls.filter((c) => c.method === 'HcnDeleteEndpoint')).toHaveLength(1);
    expect(ipamCalls(n, 'DEL')).toHaveLength(1);
  });

  it('E2 (v2): the network does not exist (hcn wording)', async () => {
    const out = await run(n, 'win-bridge', 'ADD', 'abc123', ns, { ...W1_V2, name: 'cbr9' });
    expect(JSON.parse(out.stdout)).toEqual({
      code: 999,
      msg: 'error while getting network cbr9: Network name "cbr9" not found',
    });
  });
});

describe('STATUS, CHECK, VERSION', () => {
  it('STATUS is forwarded to IPAM (its error as IPAM printed it); without ipam.type it succeeds', async () => {
    const n = node(
      fakeIpam(ipamResult('10.244.1.3/24'), { status: new CniError(50, 'plugin not available') }),
    );
    const conf = { cniVersion: '1.1.0', name: 'cbr0', type: 'win-bridge', ipam: { type: 'host-local' } };
    const out = await run(n, 'win-bridge', 'STATUS', '', '', conf);
    expect(out.exitCode).toBe(1);
    expect(JSON.parse(out.stdout)).toEqual({ code: 50, msg: 'plugin not available' });
    expect(ipamCalls(n, 'STATUS')).toHaveLength(1);
    const none = await run(n, 'win-bridge', 'STATUS', '', '', {
      cniVersion: '1.1.0',
      name: 'cbr0',
      type: 'win-bridge',
    });
    expect(none.exitCode).toBe(0);
    expect(ipamCalls(n, 'STATUS')).toHaveLength(1);
  });

  it('STATUS through the real host-local (v1.9.1 registers no STATUS: success)', async () => {
    const n = node();
    const conf = {
      cniVersion: '1.1.0',
      name: 'cbr0',
      type: 'win-bridge',
      ipam: { type: 'host-local', subnet: '10.244.1.0/24' },
    };
    expect(await run(n, 'win-bridge', 'STATUS', '', '', conf)).toEqual({
      exitCode: 0,
      stdout: '',
      stderr: '',
    });
    expect(ipamCalls(n, 'STATUS').map((e) => e.exitCode)).toEqual([0]);
  });

  it('win-overlay STATUS always forwards: no ipam.type → no plugin name provided', async () => {
    const n = node();
    const out = await run(n, 'win-overlay', 'STATUS', '', '', {
      cniVersion: '1.1.0',
      name: 'vxlan0',
      type: 'win-overlay',
    });
    expect(JSON.parse(out.stdout)).toEqual({ code: 999, msg: 'no plugin name provided' });
  });

  it('CHECK is a no-op success', async () => {
    const n = node();
    const out = await run(n, 'win-bridge', 'CHECK', 'abc123', 'none', { ...W1_CONF, cniVersion: '1.0.0' });
    expect(out).toEqual({ exitCode: 0, stdout: '', stderr: '' });
  });

  it('VERSION reports version.All', async () => {
    const n = node();
    for (const plugin of ['win-bridge', 'win-overlay']) {
      const out = await n.ph.exec(plugin, { env: { CNI_COMMAND: 'VERSION', CNI_PATH }, stdin: '' }, 0);
      expect(JSON.parse(out.stdout)).toEqual({
        cniVersion: '1.1.0',
        supportedVersions: ['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'],
      });
    }
  });

  it('a config of the wrong type: failed to load netconf', async () => {
    const n = node();
    const out = await run(n, 'win-bridge', 'ADD', 'abc123', 'none', { ...W1_CONF, apiVersion: '2' });
    expect(JSON.parse(out.stdout)).toEqual({
      code: 999,
      msg: 'failed to load netconf: json: cannot unmarshal string into Go struct field NetConf.NetConf.apiVersion of type int',
    });
  });
});

// ───────────────────────────── win-overlay ─────────────────────────────

const VXLAN0_V1 =
  '{"Name":"vxlan0","Type":"Overlay","NetworkAdapterName":"Ethernet","Subnets":[{"AddressPrefix":"10.244.1.0/24","GatewayAddress":"10.244.1.1","Policies":[{"Type":"VSID","VSID":4096}]}]}';

/** host-local for vxlan0, starting at .5 (the M1 vector's address). */
const OVERLAY_IPAM = { type: 'host-local', subnet: '10.244.1.0/24', rangeStart: '10.244.1.5' };

describe('win-overlay, HNS v1', () => {
  let n: Node;
  let net: JsonObject;
  beforeEach(async () => {
    n = node();
    net = v1Network(n, VXLAN0_V1);
    await container(n, 'c1');
  });

  it('M1: MAC from the IP, gateway from the network, PA = ManagementIP, then ipMasq OutBoundNAT and DSR', async () => {
    const conf = {
      cniVersion: '0.3.1',
      name: 'vxlan0',
      type: 'win-overlay',
      ipMasq: true,
      loopbackDSR: true,
      ipam: OVERLAY_IPAM,
      policies: [
        {
          name: 'EndpointPolicy',
          value: { Type: 'ROUTE', DestinationPrefix: '10.96.0.0/12', NeedEncap: true },
        },
      ],
      runtimeConfig: { portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }] },
    };
    const out = await run(n, 'win-overlay', 'ADD', 'c1', 'none', conf);
    expect(out.exitCode).toBe(0);
    const mgmt = String(net['ManagementIP']);
    expect(mgmt).toBe('192.168.1.11');
    // order (code-derived): user…, PA, OutBoundNAT(ipMasq), OutBoundNAT(DSR); no NAT: port mappings are unused
    expect(v1Posts(n, '/endpoints/')).toEqual([
      `{"Name":"c1_vxlan0","VirtualNetwork":"${String(net['ID'])}","Policies":[{"Type":"ROUTE","DestinationPrefix":"10.96.0.0/12","NeedEncap":true},{"Type":"PA","PA":"${mgmt}"},{"Type":"OutBoundNAT","ExceptionList":["10.244.1.0/24"]},{"Type":"OutBoundNAT","Destinations":["10.244.1.5"]}],"MacAddress":"0E-2A-0a-f4-01-05","IPAddress":"10.244.1.5","GatewayAddress":"10.244.1.1"}`,
    ]);
    expect(out.stdout).toBe(
      indented(
        '{"cniVersion":"0.3.1","interfaces":[{"name":"c1_vxlan0","mac":"0E-2A-0a-f4-01-05"}],"ips":[{"version":"4","address":"10.244.1.5/24","gateway":"10.244.1.1"}],"dns":{"nameservers":[""],"search":[""]}}',
      ),
    );
  });

  it('M2: endpointMacPrefix 0E2A and 0E-2A- are refused', async () => {
    for (const prefix of ['0E2A', '0E-2A-']) {
      const out = await run(n, 'win-overlay', 'ADD', 'c1', 'none', {
        cniVersion: '0.3.1',
        name: 'vxlan0',
        type: 'win-overlay',
        endpointMacPrefix: prefix,
        ipam: OVERLAY_IPAM,
      });
      expect(JSON.parse(out.stdout)).toEqual({
        code: 999,
        msg: `endpointMacPrefix [${prefix}] is invalid, value must be of the format xx-xx`,
      });
    }
    expect(ipamCalls(n, 'ADD')).toHaveLength(0);
  });

  it('a custom prefix is used as given', async () => {
    const out = await run(n, 'win-overlay', 'ADD', 'c1', 'none', {
      cniVersion: '1.0.0',
      name: 'vxlan0',
      type: 'win-overlay',
      endpointMacPrefix: '0a-BC',
      ipam: OVERLAY_IPAM,
    });
    expect(JSON.parse(out.stdout).interfaces[0].mac).toBe('0a-BC-0a-f4-01-05');
  });

  it('the network missing: the GETHNSNewtorkByName typo', async () => {
    const out = await run(n, 'win-overlay', 'ADD', 'c1', 'none', {
      cniVersion: '0.3.1',
      name: 'vxlan9',
      type: 'win-overlay',
      ipam: OVERLAY_IPAM,
    });
    expect(JSON.parse(out.stdout)).toEqual({
      code: 999,
      msg: 'error while GETHNSNewtorkByName(vxlan9): Network vxlan9 not found',
    });
  });

  it('a network of another type', async () => {
    v1Network(n, CBR0_V1);
    const out = await run(n, 'win-overlay', 'ADD', 'c1', 'none', {
      cniVersion: '0.3.1',
      name: 'cbr0',
      type: 'win-overlay',
      ipam: OVERLAY_IPAM,
    });
    expect(JSON.parse(out.stdout)).toEqual({
      code: 999,
      msg: 'network cbr0 is of an unexpected type: L2Bridge',
    });
  });

  it('IPv6 from IPAM is refused; IPAM DEL runs twice (the deferred one and cmdAdd’s)', async () => {
    const m = node(fakeIpam(ipamResult('fd00::5/64', 'fd00::1')));
    const net6 = v1Network(m, VXLAN0_V1);
    await container(m, 'c1');
    const out = await run(m, 'win-overlay', 'ADD', 'c1', 'none', {
      cniVersion: '0.3.1',
      name: 'vxlan0',
      type: 'win-overlay',
      ipam: { type: 'host-local' },
    });
    expect(JSON.parse(out.stdout)).toEqual({
      code: 999,
      msg: `error while AddHnsEndpoint(c1_vxlan0,${String(net6['ID'])},c1): failed to make a new HNSEndpoint: win-overlay doesn't support IPv6 now`,
    });
    expect(ipamCalls(m, 'DEL')).toHaveLength(2);
  });

  it('upstream sample.conf (0.2.0, no ipam): the v1 maker runs IPAM anyway → no plugin name provided', async () => {
    const sample =
      '{"cniVersion":"0.2.0","name":"vxlan0","type":"win-overlay","dns":{"nameservers":["11.0.0.10"],"search":["svc.cluster.local"]},' +
      '"policies":[{"name":"EndpointPolicy","value":{"Type":"OutBoundNAT","ExceptionList":["192.168.0.0/16","11.0.0.0/8"]}},' +
      '{"name":"EndpointPolicy","value":{"Type":"ROUTE","DestinationPrefix":"11.0.0.0/8","NeedEncap":true}}]}';
    const out = await run(n, 'win-overlay', 'ADD', 'c1', 'none', sample);
    expect(JSON.parse(out.stdout)).toEqual({
      code: 999,
      msg: `error while AddHnsEndpoint(c1_vxlan0,${String(net['ID'])},c1): failed to make a new HNSEndpoint: error while ipam.ExecAdd: no plugin name provided`,
    });
  });

  it('upstream sample.conf with an ipam: 0.2.0 (ip4) result, DNS from the config, PA appended', async () => {
    const sample = {
      cniVersion: '0.2.0',
      name: 'vxlan0',
      type: 'win-overlay',
      ipam: OVERLAY_IPAM,
      dns: { nameservers: ['11.0.0.10'], search: ['svc.cluster.local'] },
      policies: [
        {
          name: 'EndpointPolicy',
          value: { Type: 'OutBoundNAT', ExceptionList: ['192.168.0.0/16', '11.0.0.0/8'] },
        },
        {
          name: 'EndpointPolicy',
          value: { Type: 'ROUTE', DestinationPrefix: '11.0.0.0/8', NeedEncap: true },
        },
      ],
    };
    const out = await run(n, 'win-overlay', 'ADD', 'c1', 'none', sample);
    expect(out.exitCode).toBe(0);
    expect(out.stdout).toBe(
      indented(
        '{"cniVersion":"0.2.0","ip4":{"ip":"10.244.1.5/24","gateway":"10.244.1.1"},"dns":{"nameservers":["11.0.0.10"],"search":["svc.cluster.local"]}}',
      ),
    );
    const body = JSON.parse(v1Posts(n, '/endpoints/')[0]!) as { Policies: JsonObject[] };
    expect(body.Policies.map((p) => p['Type'])).toEqual(['OutBoundNAT', 'ROUTE', 'PA']);
  });
});

describe('win-overlay, HCN v2', () => {
  /** flannel vxlan's network (device_windows.go) under the OVN sample's name and subnet. */
  const OVN_NET =
    '{"Name":"OVNKubernetesHybridOverlayNetwork","Type":"Overlay","Policies":[{"Type":"NetAdapterName","Settings":{"NetworkAdapterName":"Ethernet"}}],' +
    '"Ipams":[{"Type":"Static","Subnets":[{"IpAddressPrefix":"10.132.0.0/24","Policies":[{"Type":"VSID","Settings":{"IsolationId":4096}}],' +
    '"Routes":[{"NextHop":"10.132.0.1","DestinationPrefix":"0.0.0.0/0"}]}]}],"SchemaVersion":{"Major":2,"Minor":0}}';

  /** Upstream `win-overlay/sample-v2.conf`, verbatim. */
  const SAMPLE_V2 = {
    cniVersion: '0.2.0',
    name: 'OVNKubernetesHybridOverlayNetwork',
    type: 'win-overlay',
    ipam: { type: 'host-local', subnet: '10.132.0.0/24' },
    apiVersion: 2,
    capabilities: { portMappings: true, dns: true },
    policies: [
      { name: 'EndpointPolicy', value: { Type: 'OutBoundNAT', Settings: { Exceptions: ['172.30.0.0/16'] } } },
      {
        name: 'EndpointPolicy',
        value: { Type: 'SDNRoute', Settings: { DestinationPrefix: '172.30.0.0/16', NeedEncap: true } },
      },
      {
        name: 'EndpointPolicy',
        value: { Type: 'ProviderAddress', Settings: { ProviderAddress: '10.0.133.170' } },
      },
    ],
  };

  /** A node whose uplink is the sample's ProviderAddress, as on the OVN-Kubernetes hybrid overlay node it was written for. */
  const OVN_NIC = { ...NODE_NIC, ipAddress: '10.0.133.170/24', gateway: '10.0.133.1' };

  it('sample-v2.conf on its node (ManagementIP = its ProviderAddress): no second PA; 0.2.0 result', async () => {
    const n = node(hostLocal, 'ws2022', OVN_NIC);
    const netId = hcnNetwork(n, OVN_NET);
    const ns = containerdNamespace(n);
    const out = await run(n, 'win-overlay', 'ADD', 'pod1', ns, SAMPLE_V2);
    expect(out.exitCode).toBe(0);
    expect(hcnEndpointCreates(n)).toEqual([
      `{"Name":"pod1_OVNKubernetesHybridOverlayNetwork","HostComputeNetwork":"${netId}","Policies":[{"Type":"OutBoundNAT","Settings":{"Exceptions":["172.30.0.0/16"]}},{"Type":"SDNRoute","Settings":{"DestinationPrefix":"172.30.0.0/16","NeedEncap":true}},{"Type":"ProviderAddress","Settings":{"ProviderAddress":"10.0.133.170"}}],"IpConfigurations":[{"IpAddress":"10.132.0.2"}],"Dns":{},"Routes":[{"NextHop":"10.132.0.1","DestinationPrefix":"0.0.0.0/0"}],"MacAddress":"0E-2A-0a-84-00-02","Health":{"Extra":{}},"SchemaVersion":{"Major":2,"Minor":0}}`,
    ]);
    expect(out.stdout).toBe(
      indented('{"cniVersion":"0.2.0","ip4":{"ip":"10.132.0.2/24","gateway":"10.132.0.1"},"dns":{}}'),
    );
  });

  it('sample-v2.conf on another node: a second ProviderAddress (the management IP) is appended', async () => {
    const n = node();
    hcnNetwork(n, OVN_NET);
    const ns = containerdNamespace(n);
    const out = await run(n, 'win-overlay', 'ADD', 'pod1', ns, SAMPLE_V2);
    const body = JSON.parse(hcnEndpointCreates(n)[0]!) as { Policies: JsonObject[] };
    expect(body.Policies.slice(2)).toEqual([
      { Type: 'ProviderAddress', Settings: { ProviderAddress: '10.0.133.170' } },
      { Type: 'ProviderAddress', Settings: { ProviderAddress: '192.168.1.11' } },
    ]);
    // the simulated HNS refuses two ProviderAddress policies (HCN_E_POLICY_ALREADY_EXISTS, its choice)
    expect(out.exitCode).toBe(1);
    expect(JSON.parse(out.stdout).msg).toMatch(
      /^error while adding HostComputeEndpoint: failed to create the new HostComputeEndpoint: hcnCreateEndpoint failed in Win32: /,
    );
    expect(ipamCalls(n, 'DEL')).toHaveLength(1);
  });

  it('policy order on v2 (code-derived): user…, OutBoundNAT(DSR), ProviderAddress, OutBoundNAT(ipMasq)', async () => {
    const n = node();
    hcnNetwork(n, OVN_NET);
    const ns = containerdNamespace(n);
    const conf = { ...SAMPLE_V2, cniVersion: '1.0.0', policies: [], ipMasq: true, loopbackDSR: true };
    expect((await run(n, 'win-overlay', 'ADD', 'pod1', ns, conf)).exitCode).toBe(0);
    const body = JSON.parse(hcnEndpointCreates(n)[0]!) as { Policies: JsonObject[] };
    expect(body.Policies).toEqual([
      { Type: 'OutBoundNAT', Settings: { Destinations: ['10.132.0.2'] } },
      { Type: 'ProviderAddress', Settings: { ProviderAddress: '192.168.1.11' } },
      { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.132.0.0/24'] } },
    ]);
  });

  it('the network missing: the hcn lookup error wins', async () => {
    const n = node();
    const ns = containerdNamespace(n);
    const out = await run(n, 'win-overlay', 'ADD', 'pod1', ns, SAMPLE_V2);
    expect(JSON.parse(out.stdout)).toEqual({
      code: 999,
      msg: 'error while hcn.GetNetworkByName(OVNKubernetesHybridOverlayNetwork): Network name "OVNKubernetesHybridOverlayNetwork" not found',
    });
  });

  it('DEL: IPAM DEL, namespace remove, endpoint delete', async () => {
    const n = node(hostLocal, 'ws2022', OVN_NIC);
    hcnNetwork(n, OVN_NET);
    const ns = containerdNamespace(n);
    expect((await run(n, 'win-overlay', 'ADD', 'pod1', ns, SAMPLE_V2)).exitCode).toBe(0);
    expect((await run(n, 'win-overlay', 'DEL', 'pod1', ns, SAMPLE_V2)).exitCode).toBe(0);
    expect(ipamCalls(n, 'DEL')).toHaveLength(1);
    expect(n.calls.filter((c) => c.method === 'HcnDeleteEndpoint')).toHaveLength(1);
  });
});

// ───────────────────────────── real-world configs (reference §3.4) ─────────────────────────────

describe('real-world configs (reference §3.4)', () => {
  /** Upstream `win-bridge/sample-v1.conf`, verbatim (no cniVersion, no ipam, loopbackDSR). */
  const SAMPLE_V1 =
    '{"name":"cbr0","type":"win-bridge","dns":{"nameservers":["11.0.0.10"],"search":["svc.cluster.local"]},' +
    '"policies":[{"name":"EndpointPolicy","value":{"Type":"OutBoundNAT","ExceptionList":["192.168.0.0/16","11.0.0.0/8","10.137.196.0/23"]}},' +
    '{"name":"EndpointPolicy","value":{"Type":"ROUTE","DestinationPrefix":"11.0.0.0/8","NeedEncap":true}},' +
    '{"name":"EndpointPolicy","value":{"Type":"ROUTE","DestinationPrefix":"10.137.198.27/32","NeedEncap":true}}],' +
    '"loopbackDSR":true}';

  it('win-bridge sample-v1.conf on HNS without DSR: no cniVersion → a 0.1.0 ip4 result; HNS picks the IP', async () => {
    const n = node(hostLocal, '9.2');
    const net = v1Network(n, CBR0_V1);
    await container(n, 'c1');
    const out = await run(n, 'win-bridge', 'ADD', 'c1', 'none', SAMPLE_V1);
    expect(out.exitCode).toBe(0);
    expect(v1Posts(n, '/endpoints/')).toEqual([
      `{"Name":"c1_cbr0","VirtualNetwork":"${String(net['ID'])}","Policies":[{"Type":"OutBoundNAT","ExceptionList":["192.168.0.0/16","11.0.0.0/8","10.137.196.0/23"]},{"Type":"ROUTE","DestinationPrefix":"11.0.0.0/8","NeedEncap":true},{"Type":"ROUTE","DestinationPrefix":"10.137.198.27/32","NeedEncap":true}],"DNSSuffix":"svc.cluster.local","DNSServerList":"11.0.0.10"}`,
    ]);
    const [ep] = v1Endpoints(n);
    const ip = String(ep!['IPAddress']);
    const gw = ep!['GatewayAddress'];
    const ip4 = gw ? `{"ip":"${ip}/24","gateway":"${String(gw)}"}` : `{"ip":"${ip}/24"}`;
    expect(out.stdout).toBe(
      indented(
        `{"cniVersion":"0.1.0","ip4":${ip4},"dns":{"nameservers":["11.0.0.10"],"search":["svc.cluster.local"]}}`,
      ),
    );
    expect(ipamCalls(n, 'ADD')).toHaveLength(0);
  });

  it('win-bridge sample-v1.conf on a DSR-capable HNS: the nil IP becomes Destinations ["<nil>"]', async () => {
    const n = node();
    v1Network(n, CBR0_V1);
    await container(n, 'c1');
    const out = await run(n, 'win-bridge', 'ADD', 'c1', 'none', SAMPLE_V1);
    const body = JSON.parse(v1Posts(n, '/endpoints/')[0]!) as { Policies: JsonObject[] };
    expect(body.Policies.at(-1)).toEqual({ Type: 'OutBoundNAT', Destinations: ['<nil>'] });
    expect(out.exitCode).toBe(1);
    expect(JSON.parse(out.stdout).msg).toMatch(
      /^error while adding HNSEndpoint: failed to create the new HNSEndpoint: /,
    );
    expect(v1Endpoints(n)).toEqual([]);
  });

  it('win-bridge sample-v2.conf’s delegate (apiVersion 2, V2 policies, loopbackDSR)', async () => {
    const n = node();
    const netId = hcnNetwork(n, CBR0_V2);
    const ns = containerdNamespace(n);
    // the delegate of upstream sample-v2.conf as flannel hands it on: name and ipam added (the range
    // starts at .3, past the .2 that the "+2" gateway takes: see the SDN#333 case below)
    const delegate = {
      cniVersion: '0.3.0',
      name: 'cbr0',
      apiVersion: 2,
      type: 'win-bridge',
      ipam: { type: 'host-local', subnet: '10.244.1.0/24', rangeStart: '10.244.1.3' },
      dns: { nameservers: ['11.0.0.10'], search: ['svc.cluster.local'] },
      policies: [
        {
          name: 'EndpointPolicy',
          value: {
            Type: 'OutBoundNAT',
            Settings: { Exceptions: ['192.168.0.0/16', '11.0.0.0/8', '10.137.196.0/23'] },
          },
        },
        {
          name: 'EndpointPolicy',
          value: { Type: 'SDNRoute', Settings: { DestinationPrefix: '11.0.0.0/8', NeedEncap: true } },
        },
        {
          name: 'EndpointPolicy',
          value: { Type: 'SDNRoute', Settings: { DestinationPrefix: '10.137.198.27/32', NeedEncap: true } },
        },
      ],
      loopbackDSR: true,
    };
    const out = await run(n, 'win-bridge', 'ADD', 'pod1', ns, delegate);
    expect(out.exitCode).toBe(0);
    expect(hcnEndpointCreates(n)).toEqual([
      `{"Name":"pod1_cbr0","HostComputeNetwork":"${netId}","Policies":[{"Type":"OutBoundNAT","Settings":{"Exceptions":["192.168.0.0/16","11.0.0.0/8","10.137.196.0/23"]}},{"Type":"SDNRoute","Settings":{"DestinationPrefix":"11.0.0.0/8","NeedEncap":true}},{"Type":"SDNRoute","Settings":{"DestinationPrefix":"10.137.198.27/32","NeedEncap":true}},{"Type":"OutBoundNAT","Settings":{"Destinations":["10.244.1.3"]}}],"IpConfigurations":[{"IpAddress":"10.244.1.3"}],"Dns":{"Search":["svc.cluster.local"],"ServerList":["11.0.0.10"]},"Routes":[{"NextHop":"10.244.1.2","DestinationPrefix":"0.0.0.0/0"}],"Health":{"Extra":{}},"SchemaVersion":{"Major":2,"Minor":0}}`,
    ]);
  });

  it('microsoft/SDN#333: the first pod gets .2 = the gateway = cbr0_ep → 0x1392; the retry gets .3 (pitfall P2)', async () => {
    const n = node();
    const net = v1Network(n, CBR0_V1);
    // flanneld's host endpoint already holds .2 (host-gw: cbr0_ep)
    v1(
      n,
      'POST',
      '/endpoints/',
      `{"Name":"cbr0_ep","VirtualNetwork":"${String(net['ID'])}","IPAddress":"10.244.1.2"}`,
    );
    await container(n, 'c333');
    const conf = {
      cniVersion: '0.2.0',
      name: 'cbr0',
      type: 'win-bridge',
      ipMasqNetwork: '10.244.0.0/16',
      ipam: { type: 'host-local', subnet: '10.244.1.0/24' },
      dns: { nameservers: ['10.96.0.10'], search: ['default.svc.cluster.local'] },
      policies: [
        {
          name: 'EndpointPolicy',
          value: {
            Type: 'OutBoundNAT',
            ExceptionList: ['10.96.0.0/12', '192.168.29.80/28', '10.244.0.0/16'],
          },
        },
        {
          name: 'EndpointPolicy',
          value: { DestinationPrefix: '10.96.0.0/12', NeedEncap: true, Type: 'ROUTE' },
        },
        {
          name: 'EndpointPolicy',
          value: { DestinationPrefix: '192.168.29.88/32', NeedEncap: true, Type: 'ROUTE' },
        },
      ],
    };
    const out = await run(n, 'win-bridge', 'ADD', 'c333', 'none', conf);
    // the payload of the issue, byte for byte (with this node's network ID and container ID)
    expect(v1Posts(n, '/endpoints/').at(-1)).toBe(
      `{"Name":"c333_cbr0","VirtualNetwork":"${String(net['ID'])}","Policies":[{"Type":"OutBoundNAT","ExceptionList":["10.96.0.0/12","192.168.29.80/28","10.244.0.0/16"]},{"DestinationPrefix":"10.96.0.0/12","NeedEncap":true,"Type":"ROUTE"},{"DestinationPrefix":"192.168.29.88/32","NeedEncap":true,"Type":"ROUTE"}],"IPAddress":"10.244.1.2","DNSSuffix":"default.svc.cluster.local","DNSServerList":"10.96.0.10","GatewayAddress":"10.244.1.2"}`,
    );
    expect(out.exitCode).toBe(1);
    const err = JSON.parse(out.stdout) as { code: number; msg: string };
    expect(err.code).toBe(999);
    expect(err.msg).toMatch(/^error while adding HNSEndpoint: failed to create the new HNSEndpoint: /);
    expect(err.msg).toContain('The object already exists. (0x1392)');
    expect(ipamCalls(n, 'DEL')).toHaveLength(1);
    expect(v1Endpoints(n).map((e) => e['Name'])).toEqual(['cbr0_ep']);

    // the kubelet retries: host-local's round robin moves past the released .2
    const retry = await run(n, 'win-bridge', 'ADD', 'c333', 'none', conf);
    expect(retry.exitCode).toBe(0);
    expect(JSON.parse(retry.stdout).ip4).toEqual({ ip: '10.244.1.3/24', gateway: '10.244.1.2' });
  });
});

describe('Go runtime panics (indexing an empty Subnets list; reference §2.7)', () => {
  const PANIC = 'panic: runtime error: index out of range [0] with length 0\n';

  it('win-bridge v1 on a network without subnets: endpoint made and attached, then the result panics (exit 2)', async () => {
    const n = node();
    v1Network(n, '{"Name":"cbr0","Type":"L2Bridge","NetworkAdapterName":"Ethernet"}');
    await container(n, 'c1');
    const out = await run(n, 'win-bridge', 'ADD', 'c1', 'none', {
      cniVersion: '0.3.1',
      name: 'cbr0',
      type: 'win-bridge',
    });
    expect(out.exitCode).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr.startsWith(PANIC)).toBe(true);
    // the panic skips cmdAdd's cleanup: the endpoint stays
    expect(v1Endpoints(n).map((e) => e['Name'])).toEqual(['c1_cbr0']);
  });

  it('win-overlay v1 on a network without subnets: the maker panics after IPAM ADD; nothing releases the IP', async () => {
    const n = node();
    v1Network(n, '{"Name":"vxlan0","Type":"Overlay","NetworkAdapterName":"Ethernet"}');
    await container(n, 'c1');
    const out = await run(n, 'win-overlay', 'ADD', 'c1', 'none', {
      cniVersion: '0.3.1',
      name: 'vxlan0',
      type: 'win-overlay',
      ipam: OVERLAY_IPAM,
    });
    expect(out.exitCode).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr.startsWith(PANIC)).toBe(true);
    expect(ipamCalls(n, 'ADD')).toHaveLength(1);
    expect(ipamCalls(n, 'DEL')).toHaveLength(0);
    expect(v1Endpoints(n)).toEqual([]);
  });
});
