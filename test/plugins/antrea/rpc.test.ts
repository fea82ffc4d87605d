/**
 * AntreaStart / AntreaStop / AntreaState: an Antrea agent on a served node (src/plugins/index.ts
 * cniRpcMethods, src/plugins/antrea/agent.ts), so a client of any language runs the `antrea` CNI
 * plugin through CniExec; a Snapshot carries the agent (`agents.antrea`) and a Restore brings it
 * back serving the pipe. Bad parameters are InvalidParams (-32602) and change nothing; the node's
 * own refusal (no uplink) is the HNS error (-32000 with its HRESULT).
 */
import { describe, expect, it } from 'vitest';
import { RpcServer, type RpcResponse } from '../../../src/api/rpc.js';
import type { Json, JsonObject } from '../../../src/core/json.js';
import { createHost, type Host } from '../../../src/host/host.js';
import { antreaOf } from '../../../src/plugins/antrea/agent.js';
import { cniRpcMethods, DEFAULT_CNI_BIN_DIR } from '../../../src/plugins/index.js';

const res = (r: RpcResponse): unknown => ('result' in r ? r.result : undefined);
const err = (r: RpcResponse): { code: number; message: string; data?: Json } | undefined =>
  'error' in r ? r.error : undefined;
const call = async (s: RpcServer, method: string, params: Json[]): Promise<RpcResponse> =>
  (await s.request({ jsonrpc: '2.0', id: 1, method, params }))!;

const newHost = (): Host =>
  createHost({
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

function served(host = newHost()): { host: Host; s: RpcServer } {
  return { host, s: new RpcServer(host, { methods: cniRpcMethods(host) }) };
}

const CONF = JSON.stringify({
  cniVersion: '0.3.0',
  name: 'antrea',
  type: 'antrea',
  ipam: { type: 'host-local' },
});

const add = (s: RpcServer, netns: string, containerId = '261a1970-5b6c-11ed-8caf-000c294e5d03') =>
  call(s, 'CniExec', [
    {
      plugin: 'antrea',
      env: {
        CNI_COMMAND: 'ADD',
        CNI_CONTAINERID: containerId,
        CNI_NETNS: netns,
        CNI_IFNAME: 'eth0',
        CNI_PATH: DEFAULT_CNI_BIN_DIR,
        CNI_ARGS: 'IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=pod0',
      },
      stdin: CONF,
    },
  ]);

describe('AntreaStart, AntreaStop, AntreaState', () => {
  it('start an agent, ADD through it, carry it in a Snapshot to another node, stop it (ADD refused)', async () => {
    const { host, s } = served();
    expect(res(await call(s, 'AntreaStart', [{ podCidr: '10.10.0.0/24' }]))).toEqual({
      pipe: '\\\\.\\pipe\\cnisock',
      nodeIp: '192.168.77.100',
      gatewayIp: '10.10.0.1',
    });
    expect(err(await call(s, 'AntreaStart', [{ podCidr: '10.10.0.0/24' }]))).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/runs on this node already/),
    });
    const ns = host.api.HcnCreateNamespace(null, { SchemaVersion: { Major: 2, Minor: 0 } });
    const netns = ns.ok ? String((ns.result as JsonObject)['ID']) : '';
    const ok = res(await add(s, netns)) as { exitCode: number; stdout: string };
    expect(ok.exitCode, ok.stdout).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ips: [{ address: '10.10.0.2/24' }] });
    const state = res(await call(s, 'AntreaState', [])) as JsonObject;
    expect(state).toMatchObject({ running: true, started: true, options: { podCidr: '10.10.0.0/24' } });
    expect((state['pods'] as JsonObject[]).map((p) => p['ip'])).toEqual(['10.10.0.2']);

    // the snapshot carries it: another node restored from it has the agent, serving
    const snap = res(await call(s, 'Snapshot', [])) as JsonObject;
    expect((snap['agents'] as JsonObject)['antrea']).toBeDefined();
    const other = served();
    expect(res(await call(other.s, 'Restore', [snap as Json]))).toBeNull();
    expect(res(await call(other.s, 'AntreaState', []))).toEqual(state);
    const ns2 = other.host.api.HcnCreateNamespace(null, { SchemaVersion: { Major: 2, Minor: 0 } });
    const netns2 = ns2.ok ? String((ns2.result as JsonObject)['ID']) : '';
    const again = res(await add(other.s, netns2, 'c-2')) as { exitCode: number; stdout: string };
    expect(again.exitCode, again.stdout).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ ips: [{ address: '10.10.0.3/24' }] });

    expect(res(await call(s, 'AntreaStop', []))).toBeNull();
    expect(res(await call(s, 'AntreaState', []))).toEqual({ running: false });
    expect(antreaOf(host)).toBeUndefined();
    const refused = res(await add(s, netns, 'c-3')) as { exitCode: number; stdout: string };
    expect(JSON.parse(refused.stdout)).toMatchObject({ code: 11 });
    expect((res(await call(s, 'Snapshot', [])) as JsonObject)['agents']).toBeUndefined();
    expect(err(await call(s, 'AntreaStop', []))?.code).toBe(-32602);
    // started again: a new agent on the node's network and bridge
    expect(res(await call(s, 'AntreaStart', [{ podCidr: '10.10.0.0/24' }]))).toMatchObject({
      nodeIp: '192.168.77.100',
    });
    expect(res(await call(s, 'AntreaState', []))).toMatchObject({ running: true, pods: [] });
  });

  it('bad parameters are InvalidParams and start nothing; a node without an uplink: the HNS error', async () => {
    const { host, s } = served();
    const before = JSON.stringify(host.snapshot());
    for (const p of [
      undefined,
      'x',
      {},
      { podCidr: 5 },
      { podCidr: '10.10.0.0/24', nope: 1 },
      { podCidr: '10.10.0.0/24', tunnelType: 'gre' },
      { podCidr: '10.10.0.0/24', proxyAll: 'yes' },
      { podCidr: '10.10.0.0/24', dnsServers: [1] },
      { podCidr: 'fd00::/64' },
      { podCidr: '10.10.0.0/31' },
    ]) {
      const r = await call(s, 'AntreaStart', p === undefined ? [] : [p as Json]);
      expect(err(r)?.code, JSON.stringify(p)).toBe(-32602);
    }
    expect(JSON.stringify(host.snapshot())).toBe(before);
    expect(antreaOf(host)).toBeUndefined();
    expect(res(await call(s, 'AntreaState', []))).toEqual({ running: false });

    const bare = served(createHost({ seed: 7, adapters: [] }));
    const r = err(await call(bare.s, 'AntreaStart', [{ podCidr: '10.10.0.0/24', adapter: 'Nope' }]));
    expect(r?.code).toBe(-32000);
    expect(r?.data).toMatchObject({ name: 'HCN_E_ADAPTER_NOT_FOUND' });
    expect(antreaOf(bare.host)).toBeUndefined();
  });
});
