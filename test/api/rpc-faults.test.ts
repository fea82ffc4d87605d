// The fault layer and the simulated clock over JSON-RPC (what Go and Python plugin tests drive):
// fail by method / ID / name / path and first N with a registered name or any HRESULT number,
// delay until ClockAdvance, hang until FaultRelease (and see what is held), clear; and the HNS
// service restart window answering RPC_S_SERVER_UNAVAILABLE until the clock passes it.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { RpcServer, serveStdio, type RpcResponse } from '../../src/api/rpc.js';
import type { Json, JsonObject } from '../../src/core/json.js';
import { createHost } from '../../src/host/host.js';

function server(profile = 'ws2022'): RpcServer {
  return new RpcServer(createHost({ seed: 3, profile }));
}

let nextId = 1;
function request(method: string, params: Json[] = []): string {
  return JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params });
}

async function call(s: RpcServer, method: string, params: Json[] = []): Promise<RpcResponse> {
  return JSON.parse((await s.handle(request(method, params)))!) as RpcResponse;
}

function ok(r: RpcResponse): Json {
  if ('error' in r) throw new Error(`unexpected error ${JSON.stringify(r.error)}`);
  return r.result;
}

function err(r: RpcResponse): { code: number; message: string; data?: Json } {
  if (!('error' in r)) throw new Error(`unexpected result ${JSON.stringify(r.result)}`);
  return r.error;
}

function hresultOf(r: RpcResponse): { hresult: number; name: string } {
  const e = err(r);
  expect(e.code).toBe(-32000);
  return e.data as { hresult: number; name: string };
}

const NAT = { Name: 'nat', Type: 'NAT' };

/** Resolves on the next macrotask: every call nothing holds has answered by then. */
const tick = () => new Promise<void>((r) => setImmediate(r));

describe('FaultFail', () => {
  it('fails the first N calls of a method with a registered name, then lets them through', async () => {
    const s = server();
    const { rule } = ok(
      await call(s, 'FaultFail', [{ method: 'HcnCreateNetwork', hresult: 'E_ACCESSDENIED', times: 1 }]),
    ) as { rule: number };
    // E_ACCESSDENIED is HRESULT_FROM_WIN32(ERROR_ACCESS_DENIED = 5): 0x80070005, "Access is denied."
    const first = await call(s, 'HcnCreateNetwork', [null, NAT]);
    expect(hresultOf(first)).toMatchObject({ hresult: 0x80070005, name: 'E_ACCESSDENIED' });
    expect(err(first).message).toMatch(/^Access is denied\./);
    // the service was never reached: nothing was created
    expect(ok(await call(s, 'HcnEnumerateNetworks', ['']))).toEqual([]);
    expect((ok(await call(s, 'HcnCreateNetwork', [null, NAT])) as JsonObject).Name).toBe('nat');
    expect(ok(await call(s, 'FaultList'))).toEqual([
      {
        rule,
        kind: 'fail',
        match: 'method=HcnCreateNetwork',
        hresult: 0x80070005,
        name: 'E_ACCESSDENIED',
        remaining: 0,
        hits: 1,
      },
    ]);
  });

  it('takes any failing HRESULT by number, decimal or hex string; an unregistered one keeps its hex name', async () => {
    const s = server();
    ok(await call(s, 'FaultFail', [{ method: 'HcnEnumerateNetworks', hresult: 2147944122, times: 1 }]));
    // 2147944122 = 0x800706BA, RPC_S_SERVER_UNAVAILABLE "The RPC server is unavailable."
    expect(hresultOf(await call(s, 'HcnEnumerateNetworks', ['']))).toMatchObject({
      hresult: 0x800706ba,
      name: 'RPC_S_SERVER_UNAVAILABLE',
    });
    ok(await call(s, 'FaultFail', [{ method: 'HcnEnumerateNetworks', hresult: '0x80070020', times: 1 }]));
    expect(hresultOf(await call(s, 'HcnEnumerateNetworks', ['']))).toMatchObject({
      hresult: 0x80070020,
      name: '0x80070020',
    });
  });

  it('matches by object ID, by object name (document or stored object) and by v1 path', async () => {
    const s = server();
    const net = ok(await call(s, 'HcnCreateNetwork', [null, NAT])) as JsonObject;
    const other = ok(await call(s, 'HcnCreateNetwork', [null, { Name: 'other', Type: 'NAT' }])) as JsonObject;
    ok(
      await call(s, 'FaultFail', [{ id: String(net.ID).toLowerCase(), hresult: 'HCN_E_NETWORK_NOT_FOUND' }]),
    );
    expect(hresultOf(await call(s, 'HcnQueryNetworkProperties', [net.ID!, '']))).toMatchObject({
      name: 'HCN_E_NETWORK_NOT_FOUND',
    });
    expect((ok(await call(s, 'HcnQueryNetworkProperties', [other.ID!, ''])) as JsonObject).Name).toBe(
      'other',
    );
    // a v1 path naming the network matches the same rule
    expect(hresultOf(await call(s, 'HNSCall', ['GET', `/networks/${String(net.ID)}`, '']))).toMatchObject({
      name: 'HCN_E_NETWORK_NOT_FOUND',
    });
    ok(await call(s, 'FaultClear'));
    // by name: a create whose document is named so, and a call on the object of that name
    ok(await call(s, 'FaultFail', [{ name: 'pod1', hresult: 'HCN_E_ADDR_INVALID_OR_RESERVED' }]));
    expect(
      hresultOf(await call(s, 'HcnCreateEndpoint', [net.ID!, null, JSON.stringify({ Name: 'pod1' })])).name,
    ).toBe('HCN_E_ADDR_INVALID_OR_RESERVED');
    const pod2 = ok(await call(s, 'HcnCreateEndpoint', [net.ID!, null, { Name: 'pod2' }])) as JsonObject;
    expect(pod2.Name).toBe('pod2');
    ok(await call(s, 'FaultClear'));
    ok(await call(s, 'FaultFail', [{ path: '/endpoints/', httpMethod: 'post', hresult: 'E_FAIL' }]));
    expect(hresultOf(await call(s, 'HNSCall', ['POST', '/endpoints/', '{}'])).name).toBe('E_FAIL');
    expect(ok(await call(s, 'HNSCall', ['GET', '/endpoints/', '']))).toMatchObject({ Success: true });
  });

  it('a method pattern ending in * matches a prefix', async () => {
    const s = server();
    ok(await call(s, 'FaultFail', [{ method: 'HcnCreate*', hresult: 'E_FAIL' }]));
    expect(hresultOf(await call(s, 'HcnCreateNamespace', [null, {}])).name).toBe('E_FAIL');
    expect(ok(await call(s, 'HcnEnumerateNamespaces', ['']))).toHaveLength(1); // HostDefault only
  });

  it('bad rules are invalid params (-32602) and add nothing', async () => {
    const s = server();
    const bad: Json[] = [
      { method: 'HcnCreateNetwork' }, // no hresult
      { hresult: 'NOT_A_CODE' },
      { hresult: 5 }, // not a failing HRESULT
      { hresult: 'E_FAIL', times: 0 },
      { hresult: 'E_FAIL', id: '' }, // neither a GUID nor a compute system ID
      { hresult: 'E_FAIL', id: 5 },
      { hresult: 'E_FAIL', id: 'x'.repeat(256) },
      { hresult: 'E_FAIL', color: 'red' },
      'E_FAIL',
    ];
    for (const p of bad) expect(err(await call(s, 'FaultFail', [p])).code, JSON.stringify(p)).toBe(-32602);
    expect(err(await call(s, 'FaultDelay', [{ method: 'HcnCreateNetwork' }])).code).toBe(-32602);
    expect(err(await call(s, 'FaultRelease', [{ rule: 99 }])).code).toBe(-32602);
    expect(err(await call(s, 'ClockAdvance', [-1])).code).toBe(-32602);
    expect(ok(await call(s, 'FaultList'))).toEqual([]);
  });
});

describe('FaultDelay and the clock', () => {
  it('a delayed call takes effect when ClockAdvance passes its delay; others answer meanwhile', async () => {
    const s = server();
    ok(await call(s, 'FaultDelay', [{ method: 'HcnCreateNetwork', ms: 500 }]));
    const pending = s.handle(request('HcnCreateNetwork', [null, NAT]));
    let answered = false;
    void pending.then(() => (answered = true));
    await tick();
    expect(answered).toBe(false);
    expect(ok(await call(s, 'HcnEnumerateNetworks', ['']))).toEqual([]);
    expect(ok(await call(s, 'ClockNow'))).toEqual({ now: 0 });
    expect(ok(await call(s, 'ClockAdvance', [499]))).toEqual({ now: 499 });
    await tick();
    expect(answered).toBe(false);
    ok(await call(s, 'ClockAdvance', [1]));
    const r = JSON.parse((await pending)!) as RpcResponse;
    expect((ok(r) as JsonObject).Name).toBe('nat');
    expect(ok(await call(s, 'HcnEnumerateNetworks', ['']))).toHaveLength(1);
  });
});

describe('FaultHang, FaultHeld and FaultRelease', () => {
  it('holds matching calls, lists them, and lets one or all through', async () => {
    const s = server();
    const { rule } = ok(await call(s, 'FaultHang', [{ method: 'HcnCreateNamespace' }])) as { rule: number };
    const a = s.handle(request('HcnCreateNamespace', [null, {}]));
    const b = s.handle(request('HcnCreateNamespace', [null, { Type: 'Host' }]));
    await tick();
    const held = ok(await call(s, 'FaultHeld')) as JsonObject[];
    expect(held).toEqual([
      { rule, seq: 1, method: 'HcnCreateNamespace', params: [null, {}] },
      { rule, seq: 2, method: 'HcnCreateNamespace', params: [null, { Type: 'Host' }] },
    ]);
    expect(ok(await call(s, 'FaultList'))).toEqual([
      { rule, kind: 'hang', match: 'method=HcnCreateNamespace', remaining: null, hits: 2, held: 2 },
    ]);
    expect(ok(await call(s, 'FaultRelease', [{ rule, one: true }]))).toEqual({ released: 1 });
    expect((ok(JSON.parse((await a)!) as RpcResponse) as JsonObject).NamespaceId).toBe(2);
    expect(ok(await call(s, 'FaultHeld'))).toHaveLength(1);
    expect(ok(await call(s, 'FaultRelease', [{ rule }]))).toEqual({ released: 1 });
    expect((ok(JSON.parse((await b)!) as RpcResponse) as JsonObject).Type).toBe('Host');
    // the rule still holds later calls until it is removed (which lets held calls go)
    const c = s.handle(request('HcnCreateNamespace', [null, {}]));
    await tick();
    expect(ok(await call(s, 'FaultRemove', [{ rule }]))).toEqual({ removed: true });
    expect(ok(JSON.parse((await c)!) as RpcResponse)).toMatchObject({ NamespaceId: 4 });
  });

  it('a call held across an HNS restart fails with RPC_S_CALL_FAILED when released', async () => {
    const s = server();
    const { rule } = ok(await call(s, 'FaultHang', [{ method: 'HcnCreateNetwork' }])) as { rule: number };
    const held = s.handle(request('HcnCreateNetwork', [null, NAT]));
    await tick();
    ok(await call(s, 'RestartHns', []));
    ok(await call(s, 'FaultRelease', [{ rule }]));
    // 0x800706BE = HRESULT_FROM_WIN32(RPC_S_CALL_FAILED 1726), "The remote procedure call failed."
    expect(hresultOf(JSON.parse((await held)!) as RpcResponse)).toMatchObject({
      hresult: 0x800706be,
      name: 'RPC_S_CALL_FAILED',
    });
    expect(ok(await call(s, 'HcnEnumerateNetworks', ['']))).toEqual([]);
  });
});

describe('RestartHns with a downtime', () => {
  it('answers RPC_S_SERVER_UNAVAILABLE until the clock passes the restart, through both APIs', async () => {
    const s = server();
    const net = ok(await call(s, 'HcnCreateNetwork', [null, NAT])) as JsonObject;
    ok(await call(s, 'HcnCreateEndpoint', [net.ID!, null, { Name: 'e' }]));
    ok(await call(s, 'RestartHns', [{ downtimeMs: 2000 }]));
    for (const [m, p] of [
      ['HcnEnumerateNetworks', ['']],
      ['HcnCreateNamespace', [null, {}]],
      ['HNSCall', ['GET', '/globals/version', '']],
    ] as [string, Json[]][]) {
      // 0x800706BA = HRESULT_FROM_WIN32(RPC_S_SERVER_UNAVAILABLE 1722), "The RPC server is unavailable."
      expect(hresultOf(await call(s, m, p)), m).toMatchObject({
        hresult: 0x800706ba,
        name: 'RPC_S_SERVER_UNAVAILABLE',
      });
    }
    ok(await call(s, 'ClockAdvance', [1999]));
    expect(hresultOf(await call(s, 'HcnEnumerateNetworks', [''])).name).toBe('RPC_S_SERVER_UNAVAILABLE');
    ok(await call(s, 'ClockAdvance', [1]));
    // back: the network survived, the endpoint did not (the default restart policy)
    expect(ok(await call(s, 'HcnEnumerateNetworks', ['']))).toEqual([net.ID]);
    expect(ok(await call(s, 'HcnEnumerateEndpoints', ['']))).toEqual([]);
  });

  it('a bad downtime is invalid params and restarts nothing', async () => {
    const s = server();
    ok(await call(s, 'HcnCreateNetwork', [null, NAT]));
    expect(err(await call(s, 'RestartHns', [{ downtimeMs: -5 }])).code).toBe(-32602);
    expect(err(await call(s, 'Reboot', [{ downtimeMs: 5 }])).code).toBe(-32602);
    expect(ok(await call(s, 'HcnEnumerateNetworks', ['']))).toHaveLength(1);
  });
});

describe('GetAdapters', () => {
  it('lists the physical adapter, then the vEthernet an external network adds', async () => {
    const host = createHost({
      seed: 3,
      adapters: [{ name: 'Ethernet', ipAddress: '10.1.0.5/24', gateway: '10.1.0.1' }],
    });
    const s = new RpcServer(host);
    const before = ok(await call(s, 'GetAdapters')) as { adapters: JsonObject[]; switches: JsonObject[] };
    expect(before.adapters.map((a) => [a.Name, a.IPv4Address])).toEqual([['Ethernet', '10.1.0.5']]);
    expect(before.switches).toEqual([]);
    ok(await call(s, 'HcnCreateNetwork', [null, { Name: 'l2', Type: 'L2Bridge' }]));
    const after = ok(await call(s, 'GetAdapters')) as { adapters: JsonObject[]; switches: JsonObject[] };
    expect(after.adapters.map((a) => [a.Name, a.IPv4Address ?? null])).toEqual([
      ['Ethernet', null],
      ['vEthernet (Ethernet)', '10.1.0.5'],
    ]);
    expect(after.switches).toMatchObject([
      { SwitchType: 'External', NetAdapterName: 'Ethernet', HostVNic: 'vEthernet (Ethernet)' },
    ]);
  });
});

describe('serveStdio with fault rules', () => {
  async function serveLines(lines: string[]): Promise<RpcResponse[]> {
    const input = new PassThrough();
    const output = new PassThrough();
    const chunks: string[] = [];
    output.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
    const done = serveStdio(createHost({ seed: 3 }), input, output);
    for (const l of lines) input.write(l + '\n');
    input.end();
    await done;
    return chunks
      .join('')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as RpcResponse);
  }

  it('answers later lines while a call is held, and answers the held call when input ends', async () => {
    const out = await serveLines([
      request('FaultHang', [{ method: 'HcnCreateNetwork' }]),
      request('HcnCreateNetwork', [null, NAT]),
      request('HcnEnumerateNetworks', ['']),
      request('FaultDelay', [{ method: 'HcnCreateNamespace', ms: 1000 }]),
      request('HcnCreateNamespace', [null, {}]),
    ]);
    expect(out).toHaveLength(5);
    const [hang, create, list, delay, ns] = [...out].sort((a, b) => Number(a.id) - Number(b.id));
    expect(ok(hang!)).toEqual({ rule: 1 });
    expect(ok(list!)).toEqual([]); // answered while the create was held
    expect(ok(delay!)).toEqual({ rule: 2 });
    // the held create and the delayed namespace were answered at end of input, after the list
    expect((ok(create!) as JsonObject).Name).toBe('nat');
    expect((ok(ns!) as JsonObject).NamespaceId).toBe(2);
    expect(out.indexOf(list!)).toBeLessThan(out.indexOf(create!));
  });
});
