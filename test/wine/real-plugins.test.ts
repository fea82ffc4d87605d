/**
 * The real containernetworking/plugins Windows binaries (win-bridge.exe, host-local.exe and, when
 * present, win-overlay.exe) run under Wine against a simulated node, next to hnsim's TypeScript
 * plugins on an identical node: the same result, the same HNS objects left behind, and after DEL
 * nothing. Opt-in: the binaries are third-party and never in the repository. Build them once
 * (Debian's Go 1.19 builds up to v1.5.1 offline from the vendored modules):
 *
 *   git clone -b v1.5.1 https://github.com/containernetworking/plugins && cd plugins
 *   GOOS=windows GOARCH=amd64 GOFLAGS=-mod=vendor go build -o ~/cni/bin/ \
 *     ./plugins/main/windows/win-bridge ./plugins/main/windows/win-overlay ./plugins/ipam/host-local
 *   HNSIM_REAL_PLUGINS_DIR=~/cni/bin npm run test:wine -- test/wine/real-plugins.test.ts
 *
 * Measured with v1.5.1 (hcsshim v0.12.3, CNI library v1.1.2): every comparison below held. Two
 * differences are not the simulator's, and the assertions name them:
 * - field order: v1.5.1 prints a 1.0.0 result in Go struct order (cniVersion, interfaces, ips,
 *   dns); the TypeScript plugins follow v1.9.1, whose CNI library (v1.3.0) marshals a result
 *   through a map, so its keys come out sorted. The results are compared as JSON values.
 * - error texts: Go's `syscall.Errno.Error()` asks FormatMessage(FORMAT_MESSAGE_FROM_SYSTEM) for
 *   the HRESULT's text; Wine 8.0's message table has none for HCS and HCN codes (facility 0x37,
 *   0x3B), so Go prints `winapi error #<decimal>` where Windows (and hnsim's model) prints the text.
 *
 * Bugs each test catches:
 * - a DLL export that answers a real hcsshim differently from the flat API (a JSON shape it cannot
 *   unmarshal, a wrong handle or HRESULT): the binary fails, or leaves other objects than the
 *   TypeScript plugin does;
 * - v2 (ApiVersion 2): the endpoint's policies (OutBoundNAT, SDNRoute, the loopbackDSR
 *   OutBoundNAT), its namespace attach, the DEL that detaches and deletes it;
 * - v1: `HNSCall` endpoints and the HotAttach through vmcompute's `HcsOpenComputeSystem` /
 *   `HcsModifyComputeSystem` (the container's compute system must exist, else the endpoint is
 *   removed again and ADD fails with HCS_E_SYSTEM_NOT_FOUND).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import { createHost, type Host } from '../../src/host/host.js';
import { execPlugin } from '../../src/plugins/index.js';
import { describeWine, ready, runProgram, serveHost, winPath } from './kit.js';

const ENV_DIR = process.env['HNSIM_REAL_PLUGINS_DIR'];
const DIR = ENV_DIR ? resolve(ENV_DIR) : undefined;
const HAVE = DIR !== undefined && ['win-bridge.exe', 'host-local.exe'].every((f) => existsSync(join(DIR, f)));
const HAVE_OVERLAY = HAVE && existsSync(join(DIR, 'win-overlay.exe'));

const SCHEMA = { Major: 2, Minor: 0 };
const NS_DOC = { SchemaVersion: SCHEMA };
/** flannel host-gw's cbr0 (gateway .1); win-bridge gives pods the gateway .2 (its "+2" rule). */
const CBR0 = {
  Name: 'cbr0',
  Type: 'L2Bridge',
  SchemaVersion: SCHEMA,
  Ipams: [
    {
      Type: 'Static',
      Subnets: [
        {
          IpAddressPrefix: '10.244.1.0/24',
          Routes: [{ NextHop: '10.244.1.1', DestinationPrefix: '0.0.0.0/0' }],
        },
      ],
    },
  ],
};
/** flannel vxlan's network (device_windows.go), VSID 4096. */
const VXLAN0 = {
  Name: 'vxlan0',
  Type: 'Overlay',
  SchemaVersion: SCHEMA,
  Flags: 8,
  Ipams: [
    {
      Type: 'Static',
      Subnets: [
        {
          IpAddressPrefix: '10.244.1.0/24',
          Policies: [{ Type: 'VSID', Settings: { IsolationId: 4096 } }],
          Routes: [{ NextHop: '10.244.1.1', DestinationPrefix: '0.0.0.0/0' }],
        },
      ],
    },
  ],
};

/** HRESULT 0xC037010E as each side prints it (see the header). */
const HCS_E_SYSTEM_NOT_FOUND_WINE = `winapi error #${0xc037010e}`;
const HCS_E_SYSTEM_NOT_FOUND_TEXT =
  'A virtual machine or container with the specified identifier does not exist.';

function ok<T>(r: { ok: true; result: T } | { ok: false; message: string }): T {
  if (!r.ok) throw new Error(r.message);
  return r.result;
}

/** Two identical nodes (one seed, one history): A for the real binaries, B for TypeScript. */
function twoNodes(network: JsonObject): { a: Host; b: Host; ns: string } {
  const make = (): { host: Host; ns: string } => {
    const host = createHost({ seed: 7 });
    ok(host.api.HcnCreateNetwork(null, network));
    const ns = ok(host.api.HcnCreateNamespace(null, NS_DOC)) as JsonObject;
    return { host, ns: ns['ID'] as string };
  };
  const a = make();
  const b = make();
  expect(b.ns).toBe(a.ns);
  return { a: a.host, b: b.host, ns: a.ns };
}

/** What a node holds: v2 endpoints and namespaces, the v1 view of the endpoints. */
function nodeView(host: Host): { endpoints: unknown[]; namespaces: unknown[]; v1: unknown } {
  const api = host.api;
  const eps = ok(api.HcnEnumerateEndpoints('')) as string[];
  const nss = ok(api.HcnEnumerateNamespaces('')) as string[];
  return {
    endpoints: eps.map((id) => ok(api.HcnQueryEndpointProperties(id, ''))),
    namespaces: nss.map((id) => ok(api.HcnQueryNamespaceProperties(id, ''))),
    v1: (ok(api.HNSCall('GET', '/endpoints/', '')) as JsonObject)['Output'],
  };
}

interface Invocation {
  readonly command: 'ADD' | 'DEL';
  readonly containerId: string;
  readonly netns: string;
  readonly conf: object;
}

/** The real binary `<type>.exe` under Wine against `host`; its delegates are found on DIR. */
async function real(
  host: Host,
  type: string,
  inv: Invocation,
): Promise<{ exitCode: number; stdout: string }> {
  const sim = await serveHost(host);
  try {
    const r = await runProgram(join(DIR!, `${type}.exe`), JSON.stringify(inv.conf), {
      endpoint: sim.endpoint,
      env: cniEnv(inv, winPath(DIR!)),
    });
    return { exitCode: r.exitCode, stdout: r.stdout };
  } finally {
    await sim.close();
  }
}

/** hnsim's TypeScript plugin of that type, in-process, with the reference IPAM. */
async function modelled(
  host: Host,
  type: string,
  inv: Invocation,
): Promise<{ exitCode: number; stdout: string }> {
  const r = await execPlugin(host, type, {
    env: cniEnv(inv, 'C:\\opt\\cni\\bin'),
    stdin: JSON.stringify(inv.conf),
  });
  return { exitCode: r.exitCode, stdout: r.stdout };
}

function cniEnv(inv: Invocation, cniPath: string): Record<string, string> {
  return {
    CNI_COMMAND: inv.command,
    CNI_CONTAINERID: inv.containerId,
    CNI_NETNS: inv.netns,
    CNI_IFNAME: 'eth0',
    CNI_PATH: cniPath,
  };
}

/** Both sides, one invocation: exit codes, then the parsed outputs. */
async function both(
  nodes: { a: Host; b: Host },
  type: string,
  inv: Invocation,
): Promise<{ exitCode: number; real: JsonObject | undefined; model: JsonObject | undefined }> {
  const r = await real(nodes.a, type, inv);
  const m = await modelled(nodes.b, type, inv);
  expect(r.exitCode, `real ${type}.exe ${inv.command}: ${r.stdout}`).toBe(m.exitCode);
  const parse = (s: string): JsonObject | undefined =>
    s.trim() === '' ? undefined : (JSON.parse(s) as JsonObject);
  return { exitCode: r.exitCode, real: parse(r.stdout), model: parse(m.stdout) };
}

/** The reservation files host-local left in its data directory for one network. */
function reservations(dataDir: string, network: string): string[] {
  const dir = join(dataDir, network);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f !== 'lock' && !f.startsWith('last_reserved_ip'))
    .sort();
}

const BUILD_HINT =
  'Build containernetworking/plugins v1.5.1 for Windows (GOOS=windows GOARCH=amd64 GOFLAGS=-mod=vendor ' +
  'go build -o DIR ./plugins/main/windows/win-bridge ./plugins/main/windows/win-overlay ' +
  './plugins/ipam/host-local) and set HNSIM_REAL_PLUGINS_DIR=DIR.';

if (DIR === undefined) {
  process.stderr.write(
    `test/wine/real-plugins: skipped (HNSIM_REAL_PLUGINS_DIR is not set). ${BUILD_HINT}\n`,
  );
  describe.skip('real containernetworking/plugins binaries — skipped: HNSIM_REAL_PLUGINS_DIR is not set', () => {
    it('runs win-bridge.exe and host-local.exe', () => undefined);
  });
} else if (!HAVE) {
  // set but wrong: a failure, not a silent skip
  describe('real containernetworking/plugins binaries', () => {
    it('finds win-bridge.exe and host-local.exe in HNSIM_REAL_PLUGINS_DIR', () => {
      throw new Error(`HNSIM_REAL_PLUGINS_DIR=${DIR} lacks win-bridge.exe or host-local.exe. ${BUILD_HINT}`);
    });
  });
} else {
  describeWine('real containernetworking/plugins binaries under Wine vs the TypeScript plugins', () => {
    let dataDir = '';
    beforeAll(async () => {
      await ready();
      dataDir = mkdtempSync(join(tmpdir(), 'hnsim-real-plugins-'));
    }, 600_000);
    afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

    /** host-local in a directory of its own per test (the real one writes this machine's disk). */
    const ipam = (sub: string): JsonObject => ({
      type: 'host-local',
      subnet: '10.244.1.0/24',
      rangeStart: '10.244.1.3',
      dataDir: winPath(join(dataDir, sub)),
    });

    it('win-bridge ApiVersion 2: ADD gives the same result and endpoint, DEL leaves nothing', async () => {
      const nodes = twoNodes(CBR0);
      const conf = {
        cniVersion: '1.0.0',
        name: 'cbr0',
        type: 'win-bridge',
        apiVersion: 2,
        capabilities: { portMappings: true, dns: true },
        ipam: ipam('v2'),
        dns: { nameservers: ['10.96.0.10'], search: ['svc.cluster.local'] },
        policies: [
          {
            name: 'EndpointPolicy',
            value: { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.244.0.0/16', '10.96.0.0/12'] } },
          },
          {
            name: 'EndpointPolicy',
            value: { Type: 'SDNRoute', Settings: { DestinationPrefix: '10.96.0.0/12', NeedEncap: true } },
          },
        ],
        loopbackDSR: true,
      };
      const inv: Invocation = { command: 'ADD', containerId: 'pod-a', netns: nodes.ns, conf };

      const add = await both(nodes, 'win-bridge', inv);
      expect(add.exitCode).toBe(0);
      // ConstructHcnResult: the endpoint's name and MAC, the address, the "+2" gateway, the DNS
      expect(add.real).toEqual({
        cniVersion: '1.0.0',
        interfaces: [{ name: 'pod-a_cbr0', mac: expect.stringMatching(/^00-15-5D-[0-9A-F-]{8}$/) }],
        ips: [{ address: '10.244.1.3/24', gateway: '10.244.1.2' }],
        dns: { nameservers: ['10.96.0.10'], search: ['svc.cluster.local'] },
      });
      expect(add.real).toEqual(add.model);
      expect(reservations(join(dataDir, 'v2'), 'cbr0')).toEqual(['10.244.1.3']);

      const view = nodeView(nodes.a);
      expect(view).toEqual(nodeView(nodes.b));
      expect(view.endpoints).toHaveLength(1);
      expect(view.endpoints[0]).toMatchObject({
        Name: 'pod-a_cbr0',
        HostComputeNamespace: nodes.ns,
        IpConfigurations: [{ IpAddress: '10.244.1.3', PrefixLength: 24 }],
        Routes: [{ NextHop: '10.244.1.2', DestinationPrefix: '0.0.0.0/0' }],
        Policies: [
          { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.244.0.0/16', '10.96.0.0/12'] } },
          { Type: 'SDNRoute', Settings: { DestinationPrefix: '10.96.0.0/12', NeedEncap: true } },
          // loopbackDSR (win-bridge, apiVersion 2): the pod's own address as an OutBoundNAT destination
          { Type: 'OutBoundNAT', Settings: { Destinations: ['10.244.1.3'] } },
        ],
      });
      const epId = (view.endpoints[0] as JsonObject)['ID'];
      expect(view.namespaces.find((n) => (n as JsonObject)['ID'] === nodes.ns)).toEqual({
        ID: nodes.ns,
        NamespaceId: 2,
        Resources: [{ Type: 'Endpoint', Data: { ID: epId } }],
        SchemaVersion: SCHEMA,
      });

      const del = await both(nodes, 'win-bridge', { ...inv, command: 'DEL' });
      expect(del.exitCode).toBe(0);
      expect(del.real).toBeUndefined();
      expect(nodeView(nodes.a)).toEqual(nodeView(nodes.b));
      const after = nodeView(nodes.a);
      expect(after.endpoints).toEqual([]);
      expect(after.namespaces.find((n) => (n as JsonObject)['ID'] === nodes.ns)).toEqual({
        ID: nodes.ns,
        NamespaceId: 2,
        SchemaVersion: SCHEMA,
      });
      expect(reservations(join(dataDir, 'v2'), 'cbr0')).toEqual([]);

      // DEL of what is gone succeeds (CNI)
      expect((await both(nodes, 'win-bridge', { ...inv, command: 'DEL' })).exitCode).toBe(0);
    });

    it('win-bridge ApiVersion 1: HNSCall and HotAttach need the container compute system', async () => {
      const nodes = twoNodes(CBR0);
      const conf = {
        cniVersion: '0.3.1',
        name: 'cbr0',
        type: 'win-bridge',
        ipam: ipam('v1'),
        dns: { Nameservers: ['10.96.0.10'], Search: ['svc.cluster.local'] },
        policies: [
          { name: 'EndpointPolicy', value: { Type: 'OutBoundNAT', ExceptionList: ['10.244.0.0/16'] } },
          {
            name: 'EndpointPolicy',
            value: { Type: 'ROUTE', DestinationPrefix: '10.96.0.0/12', NeedEncap: true },
          },
        ],
      };
      // dockershim's infra container: CNI_NETNS "none", the container ID is the compute system's
      const inv: Invocation = { command: 'ADD', containerId: 'pod-v1', netns: 'none', conf };

      // no compute system: HotAttachEndpoint fails, the new endpoint is removed, IPAM released
      const failed = await both(nodes, 'win-bridge', inv);
      expect(failed.exitCode).toBe(1);
      const msg = failed.real!['msg'] as string;
      expect(msg).toMatch(
        /^error while adding HNSEndpoint: failed to attach container pod-v1 to HNSEndpoint /,
      );
      expect(msg).toContain(HCS_E_SYSTEM_NOT_FOUND_WINE);
      expect(msg.replace(HCS_E_SYSTEM_NOT_FOUND_WINE, HCS_E_SYSTEM_NOT_FOUND_TEXT)).toBe(
        failed.model!['msg'],
      );
      expect(nodeView(nodes.a)).toEqual(nodeView(nodes.b));
      expect(nodeView(nodes.a).endpoints).toEqual([]);
      expect(reservations(join(dataDir, 'v1'), 'cbr0')).toEqual([]);

      // with the container's compute system, ADD attaches the endpoint to it
      for (const host of [nodes.a, nodes.b]) {
        ok(
          host.api.HcsCreateComputeSystem('pod-v1', {
            SystemType: 'Container',
            Name: 'pod-v1',
            Owner: 'docker',
          }),
        );
        ok(host.api.HcsStartComputeSystem('pod-v1', ''));
      }
      const add = await both(nodes, 'win-bridge', inv);
      expect(add.exitCode, JSON.stringify(add.real)).toBe(0);
      expect(add.real).toEqual({
        cniVersion: '0.3.1',
        interfaces: [{ name: 'pod-v1_cbr0', mac: expect.stringMatching(/^00-15-5D-/) }],
        // host-local goes on from the last reserved address (.3, released by the failed ADD)
        ips: [{ version: '4', address: '10.244.1.4/24', gateway: '10.244.1.2' }],
        dns: { nameservers: ['10.96.0.10'], search: ['svc.cluster.local'] },
      });
      expect(add.real).toEqual(add.model);
      const view = nodeView(nodes.a);
      expect(view).toEqual(nodeView(nodes.b));
      expect(view.v1).toMatchObject([
        {
          Name: 'pod-v1_cbr0',
          VirtualNetworkName: 'cbr0',
          IPAddress: '10.244.1.4',
          GatewayAddress: '10.244.1.2',
          DNSServerList: '10.96.0.10',
          DNSSuffix: 'svc.cluster.local',
          SharedContainers: ['pod-v1'],
          Policies: [
            { Type: 'OutBoundNAT', ExceptionList: ['10.244.0.0/16'] },
            { Type: 'ROUTE', DestinationPrefix: '10.96.0.0/12', NeedEncap: true },
          ],
        },
      ]);

      // DEL: HotDetach, then the endpoint deleted
      const del = await both(nodes, 'win-bridge', { ...inv, command: 'DEL' });
      expect(del.exitCode).toBe(0);
      expect(nodeView(nodes.a)).toEqual(nodeView(nodes.b));
      expect(nodeView(nodes.a).v1).toEqual([]);
      expect(reservations(join(dataDir, 'v1'), 'cbr0')).toEqual([]);
    });

    it.skipIf(!HAVE_OVERLAY)('win-overlay ApiVersion 2 on an Overlay network: ADD and DEL', async () => {
      const nodes = twoNodes(VXLAN0);
      const conf = {
        cniVersion: '0.3.0',
        name: 'vxlan0',
        type: 'win-overlay',
        apiVersion: 2,
        ipam: ipam('overlay'),
        policies: [
          {
            name: 'EndpointPolicy',
            value: { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.244.0.0/16', '10.96.0.0/12'] } },
          },
        ],
      };
      const inv: Invocation = { command: 'ADD', containerId: 'pod-o', netns: nodes.ns, conf };
      const add = await both(nodes, 'win-overlay', inv);
      expect(add.exitCode, JSON.stringify(add.real)).toBe(0);
      expect(add.real).toEqual({
        cniVersion: '0.3.0',
        // the MAC conjured from the address: the default endpointMacPrefix 0E-2A, then the IP bytes
        interfaces: [{ name: 'pod-o_vxlan0', mac: '0E-2A-0a-f4-01-03' }],
        ips: [{ version: '4', address: '10.244.1.3/24', gateway: '10.244.1.1' }],
        dns: {}, // a 0.3.0 result's DNS is a struct: Go's omitempty keeps it
      });
      expect(add.real).toEqual(add.model);
      const view = nodeView(nodes.a);
      expect(view).toEqual(nodeView(nodes.b));
      expect(view.endpoints[0]).toMatchObject({
        Name: 'pod-o_vxlan0',
        HostComputeNamespace: nodes.ns,
        MacAddress: '0E-2A-0a-f4-01-03',
        Policies: [
          { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.244.0.0/16', '10.96.0.0/12'] } },
          { Type: 'ProviderAddress', Settings: { ProviderAddress: expect.any(String) } },
        ],
      });

      const del = await both(nodes, 'win-overlay', { ...inv, command: 'DEL' });
      expect(del.exitCode).toBe(0);
      expect(nodeView(nodes.a)).toEqual(nodeView(nodes.b));
      expect(nodeView(nodes.a).endpoints).toEqual([]);
      expect(reservations(join(dataDir, 'overlay'), 'vxlan0')).toEqual([]);
    });
  });
}
