/**
 * The CNI methods of the JSON-RPC server (src/plugins/index.ts cniRpcMethods): CniExec runs one
 * invocation as exec'ing a plugin binary; CniExecList runs a conflist as libcni does. Bad
 * parameters are InvalidParams (-32602) and change nothing on the node.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { RpcServer, serveStdio, type RpcResponse } from '../../src/api/rpc.js';
import type { Json } from '../../src/core/json.js';
import { createHost, type Host } from '../../src/host/host.js';
import { cniRpcMethods, execPlugin, hostLocal } from '../../src/plugins/index.js';
import { PluginRegistry } from '../../src/cni/registry.js';

function server(): { s: RpcServer; host: Host; ns: string } {
  const host = createHost({ seed: 5 });
  const net = host.api.HcnCreateNetwork(null, {
    Name: 'cbr0',
    Type: 'L2Bridge',
    SchemaVersion: { Major: 2, Minor: 0 },
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
  });
  if (!net.ok) throw new Error(net.message);
  const ns = host.api.HcnCreateNamespace(null, { SchemaVersion: { Major: 2, Minor: 0 } });
  if (!ns.ok) throw new Error(ns.message);
  return {
    s: new RpcServer(host, { methods: cniRpcMethods(host) }),
    host,
    ns: (ns.result as { ID: string }).ID,
  };
}

async function call(s: RpcServer, method: string, params: Json[]): Promise<RpcResponse> {
  return (await s.request({ jsonrpc: '2.0', id: 1, method, params }))!;
}

const CONF = {
  cniVersion: '1.0.0',
  name: 'cbr0',
  type: 'win-bridge',
  apiVersion: 2,
  ipam: { type: 'host-local', subnet: '10.244.1.0/24', rangeStart: '10.244.1.3' },
};

describe('CniExec', () => {
  it('runs one ADD and one DEL with the given environment and stdin', async () => {
    const { s, host, ns } = server();
    const env = {
      CNI_COMMAND: 'ADD',
      CNI_CONTAINERID: 'c1',
      CNI_NETNS: ns,
      CNI_IFNAME: 'eth0',
      CNI_PATH: 'C:\\cni\\bin',
    };
    const add = await call(s, 'CniExec', [{ plugin: 'win-bridge', env, stdin: JSON.stringify(CONF) }]);
    expect('result' in add && add.result).toMatchObject({ exitCode: 0, stderr: '' });
    const out = JSON.parse((add as unknown as { result: { stdout: string } }).result.stdout) as {
      ips: { address: string; gateway: string }[];
    };
    expect(out.ips).toEqual([{ address: '10.244.1.3/24', gateway: '10.244.1.2' }]);
    expect(host.api.HcnEnumerateEndpoints('')).toMatchObject({ ok: true, result: [expect.any(String)] });
    // a binary path names the same plugin
    const del = await call(s, 'CniExec', [
      {
        plugin: 'C:\\cni\\bin\\win-bridge.exe',
        env: { ...env, CNI_COMMAND: 'DEL' },
        stdin: JSON.stringify(CONF),
      },
    ]);
    expect('result' in del && del.result).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(host.api.HcnEnumerateEndpoints('')).toMatchObject({ ok: true, result: [] });
  });

  it('a plugin failure is data: exit code 1 and the error document', async () => {
    const { s } = server();
    const r = await call(s, 'CniExec', [{ plugin: 'host-local', env: { CNI_COMMAND: 'ADD' }, stdin: '{' }]);
    expect('result' in r && r.result).toMatchObject({ exitCode: 1 });
    expect(JSON.parse((r as unknown as { result: { stdout: string } }).result.stdout)).toMatchObject({
      code: 4,
    });
  });

  it('bad parameters are InvalidParams, and the node is unchanged', async () => {
    const { s, host } = server();
    const before = JSON.stringify(host.snapshot());
    for (const [params, msg] of [
      [[{}], 'plugin (a type or a binary path) is required'],
      [[{ plugin: 'bridge' }], 'no CNI plugin "bridge"'],
      [[{ plugin: 'win-bridge', env: { CNI_COMMAND: 1 } }], 'env.CNI_COMMAND must be a string'],
      [[{ plugin: 'win-bridge', stdin: {} }], 'stdin must be a string'],
      [[{ plugin: 'win-bridge', extra: 1 }], 'unknown key "extra"'],
      [['win-bridge'], 'CniExec takes one object'],
    ] as [Json[], string][]) {
      const r = await call(s, 'CniExec', params);
      expect('error' in r && r.error.code, msg).toBe(-32602);
      expect('error' in r && r.error.message).toContain(msg);
    }
    expect(JSON.stringify(host.snapshot())).toBe(before);
  });
});

describe('CniExecList', () => {
  it('ADD then DEL of a one-plugin list: the result, then the cache and the endpoint gone', async () => {
    const { s, host, ns } = server();
    const conflist = { cniVersion: '1.0.0', name: 'cbr0', plugins: [{ ...CONF, name: undefined }] };
    const base = { conflist: JSON.stringify(conflist), containerId: 'c2', netns: ns, ifname: 'eth0' };
    const add = await call(s, 'CniExecList', [{ ...base, command: 'ADD' }]);
    expect('result' in add && add.result).toMatchObject({ ok: true, result: { cniVersion: '1.0.0' } });
    expect(host.files.exists('/var/lib/cni/results/cbr0-c2-eth0')).toBe(true);
    const check = await call(s, 'CniExecList', [{ ...base, command: 'CHECK' }]);
    expect('result' in check && check.result).toEqual({ ok: true });
    const del = await call(s, 'CniExecList', [{ ...base, command: 'DEL' }]);
    expect('result' in del && del.result).toEqual({ ok: true });
    expect(host.files.exists('/var/lib/cni/results/cbr0-c2-eth0')).toBe(false);
    expect(host.api.HcnEnumerateEndpoints('')).toMatchObject({ ok: true, result: [] });
  });

  it('a failure is data with the plugin’s code and libcni’s whole message', async () => {
    const { s } = server();
    const conflist = { cniVersion: '1.0.0', name: 'nope', plugins: [{ type: 'win-bridge', apiVersion: 2 }] };
    const r = await call(s, 'CniExecList', [{ conflist, command: 'ADD', containerId: 'c3', netns: 'x' }]);
    const out = (
      r as unknown as { result: { ok: boolean; error: { code: number; msg: string; message: string } } }
    ).result;
    expect(out.ok).toBe(false);
    // win-bridge_windows.go cmdHcnAdd: errors.Annotatef(err, "error while getting network %v", networkName)
    expect(out.error.msg).toBe('error while getting network nope: Network name "nope" not found');
    expect(out.error.message).toMatch(
      /^plugin type="win-bridge" failed \(add\): error while getting network nope/,
    );
  });

  it('bad parameters are InvalidParams', async () => {
    const { s } = server();
    for (const p of [
      { command: 'ADD' },
      { conflist: '{}', command: 'UP' },
      { conflist: '{}', command: 'ADD', args: 5 },
      { conflist: '{}', command: 'ADD', cniPath: 5 },
      { conflist: '{}', command: 'GC', validAttachments: [{ containerID: 1 }] },
    ]) {
      const r = await call(s, 'CniExecList', [p as unknown as Json]);
      expect('error' in r && r.error.code, JSON.stringify(p)).toBe(-32602);
    }
  });
});

describe('hnsim serve carries them', () => {
  it('ListMethods names CniExec and CniExecList; a request line is answered', async () => {
    const host = createHost();
    const input = new PassThrough();
    const output = new PassThrough();
    const lines: string[] = [];
    output.on('data', (c: Buffer) => lines.push(...c.toString('utf8').split('\n').filter(Boolean)));
    const done = serveStdio(host, input, output, { methods: cniRpcMethods(host) });
    input.write('{"jsonrpc":"2.0","id":1,"method":"ListMethods"}\n');
    input.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'CniExec',
        params: [{ plugin: 'nat', env: { CNI_COMMAND: 'VERSION' }, stdin: '{"cniVersion":"1.0.0"}' }],
      }) + '\n',
    );
    await done;
    const [methods, exec] = lines.map((l) => JSON.parse(l) as { result: Json });
    expect(methods!.result).toEqual(expect.arrayContaining(['CniExec', 'CniExecList']));
    expect(exec!.result).toMatchObject({ exitCode: 0 });
  });
});

describe('execPlugin finds a plugin wherever it is installed', () => {
  it('a plugin installed in one directory only is run by its type or its binary path', async () => {
    const host = createHost();
    const registry = new PluginRegistry().register(hostLocal, ['C:\\opt\\cni\\bin']);
    expect(registry.plugin('host-local')).toBe(hostLocal);
    expect(registry.plugin('win-bridge')).toBeUndefined();
    for (const name of ['host-local', 'C:\\opt\\cni\\bin\\host-local.exe']) {
      const out = await execPlugin(host, name, { env: { CNI_COMMAND: 'VERSION' }, stdin: '{}' }, registry);
      expect(out.exitCode).toBe(0);
      expect(JSON.parse(out.stdout)).toMatchObject({ cniVersion: '1.1.0' });
    }
    expect(() => execPlugin(host, 'win-bridge', { env: {}, stdin: '' }, registry)).toThrow(
      'no CNI plugin "win-bridge" (known: host-local)',
    );
  });
});

// CnsStart / CnsStop / CnsState: Azure CNS on a served node (src/plugins/cns), so a client of any
// language runs azure-vnet's CNS modes through CniExec (upstream's swift conflist, ACN v1.8.12).
describe('CnsStart, CnsStop, CnsState', () => {
  const res = (r: RpcResponse): unknown => ('result' in r ? r.result : undefined);
  const err = (r: RpcResponse): { code: number; message: string } | undefined =>
    'error' in r ? r.error : undefined;
  const swift = JSON.stringify({
    cniVersion: '1.0.0',
    name: 'azure',
    type: 'azure-vnet',
    executionMode: 'v4swift',
    ipam: { type: 'azure-cns' },
    dns: { Nameservers: ['10.0.0.10'], Search: ['svc.cluster.local'] },
  });
  const nc = {
    id: 'swift-nc',
    primaryIp: '10.241.0.4/16',
    gateway: '10.241.0.1',
    secondaryIps: ['10.241.0.5'],
  };

  it('start CNS, ADD through it, stop it (ADD refused), start it again with what it had', async () => {
    const host = createHost({
      adapters: [{ name: 'Ethernet', ipAddress: '10.240.0.4/16', gateway: '10.240.0.1' }],
      azure: { nics: [{ adapter: 'Ethernet' }] },
    });
    const s = new RpcServer(host, { methods: cniRpcMethods(host) });
    const ns = host.api.HcnCreateNamespace(null, { SchemaVersion: { Major: 2, Minor: 0 } });
    const netns = ns.ok ? (ns.result as { ID: string }).ID : '';
    const id = 'aaaa0001'.repeat(8);
    const add = () =>
      call(s, 'CniExec', [
        {
          plugin: 'azure-vnet',
          env: {
            CNI_COMMAND: 'ADD',
            CNI_CONTAINERID: id,
            CNI_NETNS: netns,
            CNI_IFNAME: 'eth0',
            CNI_ARGS: 'K8S_POD_NAMESPACE=default;K8S_POD_NAME=web',
            CNI_PATH: 'C:\\k\\azurecni\\bin',
          },
          stdin: swift,
        },
      ]);
    expect(res(await call(s, 'CnsStart', [{ ncs: [nc] }]))).toEqual({ port: 10090 });
    expect(err(await call(s, 'CnsStart', [{ ncs: [nc] }]))?.message).toMatch(/runs on this node already/);
    const ok = res(await add()) as { exitCode: number; stdout: string };
    expect(ok.exitCode, ok.stdout).toBe(0);
    expect(res(await call(s, 'CnsState', []))).toEqual({
      running: true,
      assigned: { 'aaaa0001-eth0': ['10.241.0.5'] },
    });
    expect(res(await call(s, 'CnsStop', []))).toBeNull();
    expect(res(await call(s, 'CnsState', []))).toMatchObject({ running: false });
    expect((res(await add()) as { stdout: string }).stdout).toContain('actively refused');
    expect(res(await call(s, 'CnsStart', []))).toEqual({ port: 10090 });
    expect(res(await call(s, 'CnsState', []))).toEqual({
      running: true,
      assigned: { 'aaaa0001-eth0': ['10.241.0.5'] },
    });
  });

  it('bad parameters are InvalidParams and start nothing', async () => {
    const host = createHost({});
    const s = new RpcServer(host, { methods: cniRpcMethods(host) });
    for (const p of [
      { nope: 1 },
      { ncs: 'x' },
      { ncs: [{ ...nc, secondaryIps: ['1.2.3.4'] }] },
      { port: 'x' },
    ]) {
      const r = await call(s, 'CnsStart', [p as unknown as Json]);
      expect(err(r)?.code).toBe(-32602);
    }
    expect(host.http.listening(10090)).toBe(false);
    expect(err(await call(s, 'CnsStop', []))?.code).toBe(-32602);
    expect(res(await call(s, 'CnsState', []))).toEqual({ running: false, assigned: {} });
  });
});
