// The Hcs* functions over JSON-RPC (what a Go or Python runtime test drives): round trips, failures
// as -32000 with the spelled HRESULT, the host hooks HcsInjectExit and RestartHcs, and fault rules
// on compute-system calls by method, by system ID (any string, any case) and by name.
import { describe, expect, it } from 'vitest';
import type { HcsApi } from '../../src/api/flat.js';
import { callRpc, HOST_RPC_METHODS, RpcServer, type RpcResponse } from '../../src/api/rpc.js';
import type { Json, JsonObject } from '../../src/core/json.js';
import { containerDoc, setupHcs, vmDoc, type HcsFixture } from './hcs-helpers.js';

function server(api: HcsApi = 'computecore'): { s: RpcServer; fx: HcsFixture } {
  const fx = setupHcs(api);
  return { s: new RpcServer(fx.host), fx };
}

function result(r: RpcResponse): Json {
  if ('error' in r) throw new Error(`unexpected error ${JSON.stringify(r.error)}`);
  return r.result;
}

function hresultOf(r: RpcResponse): { hresult: number; name: string } {
  if (!('error' in r)) throw new Error(`unexpected result ${JSON.stringify(r.result)}`);
  expect(r.error.code).toBe(-32000);
  const d = r.error.data as { hresult: number; name: string; errorRecord: { ErrorCode: number } };
  expect(d.errorRecord.ErrorCode).toBe(d.hresult);
  return { hresult: d.hresult, name: d.name };
}

function codeOf(r: RpcResponse): number {
  if (!('error' in r)) throw new Error(`unexpected result ${JSON.stringify(r.result)}`);
  return r.error.code;
}

/** Resolves on the next macrotask: every call nothing holds has answered by then. */
const tick = () => new Promise<void>((r) => setImmediate(r));

describe('Hcs* over JSON-RPC', () => {
  it('a lifecycle round trip: create, start, properties, enumerate, terminate, close', async () => {
    const { s, fx } = server();
    const created = result(await callRpc(s, 'HcsCreateComputeSystem', ['c1', containerDoc(fx.ns)]));
    expect(created).toMatchObject({ Id: 'c1', State: 'Created', SystemType: 'Container' });
    expect(result(await callRpc(s, 'HcsStartComputeSystem', ['c1', '']))).toBeNull();
    const props = result(
      await callRpc(s, 'HcsGetComputeSystemProperties', ['c1', '{"PropertyTypes":["Statistics"]}']),
    ) as JsonObject;
    expect(props).toMatchObject({ Id: 'c1', State: 'Running' });
    expect(props.Statistics).toMatchObject({ Uptime100ns: 0, Processor: { TotalRuntime100ns: 0 } });
    const all = result(await callRpc(s, 'HcsEnumerateComputeSystems', [{ Ids: ['c1'] }])) as JsonObject[];
    expect(all.map((p) => p.Id)).toEqual(['c1']);
    expect(result(await callRpc(s, 'HcsTerminateComputeSystem', ['c1']))).toBeNull();
    expect(result(await callRpc(s, 'HcsCloseComputeSystem', ['c1']))).toBeNull();
    expect(result(await callRpc(s, 'HcsEnumerateComputeSystems', []))).toEqual([]);
  });

  for (const [api, notFound, invalidState] of [
    ['computecore', [0x8037010e, 'HCS_E_SYSTEM_NOT_FOUND'], [0x80370105, 'HCS_E_INVALID_STATE']],
    [
      'vmcompute',
      [0xc037010e, 'ERROR_VMCOMPUTE_SYSTEM_NOT_FOUND'],
      [0xc0370105, 'ERROR_VMCOMPUTE_INVALID_STATE'],
    ],
  ] as const) {
    it(`failures are -32000 with the ${api} spelling`, async () => {
      const { s, fx } = server(api);
      expect(hresultOf(await callRpc(s, 'HcsStartComputeSystem', ['nope', '']))).toEqual({
        hresult: notFound[0],
        name: notFound[1],
      });
      result(await callRpc(s, 'HcsCreateComputeSystem', ['c1', containerDoc(fx.ns)]));
      result(await callRpc(s, 'HcsStartComputeSystem', ['c1', '']));
      expect(hresultOf(await callRpc(s, 'HcsStartComputeSystem', ['c1', '']))).toEqual({
        hresult: invalidState[0],
        name: invalidState[1],
      });
      // an HNS code met on the way is not respelled
      expect(
        hresultOf(
          await callRpc(s, 'HcsCreateComputeSystem', [
            'c2',
            containerDoc('11111111-2222-4333-8444-555555555555'),
          ]),
        ),
      ).toEqual({ hresult: 0x80070490, name: 'ERROR_NOT_FOUND' });
    });
  }

  it('arity: 2 for most, 1 for Enumerate and Close; more is -32602', async () => {
    const { s } = server();
    expect(codeOf(await callRpc(s, 'HcsStartComputeSystem', ['c1', '', 'x']))).toBe(-32602);
    expect(codeOf(await callRpc(s, 'HcsEnumerateComputeSystems', ['', '']))).toBe(-32602);
    expect(codeOf(await callRpc(s, 'HcsCloseComputeSystem', ['c1', '']))).toBe(-32602);
    // exactly the arity is answered by the service
    expect(hresultOf(await callRpc(s, 'HcsCloseComputeSystem', ['c1'])).name).toBe('HCS_E_SYSTEM_NOT_FOUND');
  });

  it('ListMethods lists the Hcs* functions and the HCS host hooks', async () => {
    const { s } = server();
    const methods = result(await callRpc(s, 'ListMethods')) as string[];
    for (const m of ['HcsCreateComputeSystem', 'HcsCloseComputeSystem', 'HcsInjectExit', 'RestartHcs'])
      expect(methods).toContain(m);
    expect(HOST_RPC_METHODS).toContain('HcsInjectExit');
  });
});

describe('HcsInjectExit and RestartHcs', () => {
  it('HcsInjectExit(id): UnexpectedExit by default; answers the stopped system’s properties', async () => {
    const { s, fx } = server();
    const exits: JsonObject[] = [];
    fx.host.events.on('hcs.notification', (e) => {
      if (e.notification === 'SystemExited') exits.push({ system: e.system!, ...e.data });
    });
    result(await callRpc(s, 'HcsCreateComputeSystem', ['c1', containerDoc(fx.ns)]));
    result(await callRpc(s, 'HcsStartComputeSystem', ['c1', '']));
    const p = result(await callRpc(s, 'HcsInjectExit', ['c1'])) as JsonObject;
    expect(p).toMatchObject({ Id: 'c1', State: 'Stopped', Stopped: true, ExitType: 'UnexpectedExit' });
    // SystemExitStatus.Status is HCS_E_UNEXPECTED_EXIT as an int32
    expect(exits).toEqual([{ system: 'c1', Status: 0x80370106 | 0, ExitType: 'UnexpectedExit' }]);
  });

  it('HcsInjectExit(id, exitType, status)', async () => {
    const { s, fx } = server();
    result(await callRpc(s, 'HcsCreateComputeSystem', ['vm', vmDoc()]));
    result(await callRpc(s, 'HcsStartComputeSystem', ['vm', '']));
    const p = result(await callRpc(s, 'HcsInjectExit', ['vm', 'GracefulExit', 0])) as JsonObject;
    expect(p).toMatchObject({ State: 'Stopped', ExitType: 'GracefulExit' });
    expect(fx.host.hcs.get('vm').exitStatus).toBe(0);
  });

  for (const [api, notFound, invalidState] of [
    ['computecore', 0x8037010e, 0x80370105],
    ['vmcompute', 0xc037010e, 0xc0370105],
  ] as const) {
    it(`HcsInjectExit refusals are -32000 spelled for ${api}; bad parameters -32602`, async () => {
      const { s, fx } = server(api);
      expect(hresultOf(await callRpc(s, 'HcsInjectExit', ['nope'])).hresult).toBe(notFound);
      result(await callRpc(s, 'HcsCreateComputeSystem', ['c1', containerDoc(fx.ns)]));
      const before = fx.host.snapshot();
      // a system that is not running cannot exit
      expect(hresultOf(await callRpc(s, 'HcsInjectExit', ['c1'])).hresult).toBe(invalidState);
      for (const params of [
        [],
        [5],
        ['c1', 'Crashed'],
        ['c1', 7],
        ['c1', 'ForcedExit', 'x'],
        ['c1', null, 2 ** 33],
      ])
        expect(codeOf(await callRpc(s, 'HcsInjectExit', params as Json[])), JSON.stringify(params)).toBe(
          -32602,
        );
      expect(codeOf(await callRpc(s, 'HcsInjectExit', ['c1', 'ForcedExit', 0, 1]))).toBe(-32602);
      expect(fx.host.snapshot()).toEqual(before);
    });
  }

  it('RestartHcs: live systems force-exit, every handle is disconnected, the systems are gone; HNS stays', async () => {
    const { s, fx } = server();
    const seen: string[] = [];
    fx.host.events.on('hcs.notification', (e) => seen.push(`${e.system ?? ''} ${e.notification}`));
    result(await callRpc(s, 'HcsCreateComputeSystem', ['c1', containerDoc(fx.ns)]));
    result(await callRpc(s, 'HcsStartComputeSystem', ['c1', '']));
    result(await callRpc(s, 'HcsCreateComputeSystem', ['c2', containerDoc(fx.ns)]));
    seen.length = 0;
    expect(result(await callRpc(s, 'RestartHcs'))).toBeNull();
    expect(seen).toEqual([
      'c2 SystemExited',
      'c1 SystemExited',
      'c1 ServiceDisconnect',
      'c2 ServiceDisconnect',
    ]);
    expect(result(await callRpc(s, 'HcsEnumerateComputeSystems', ['']))).toEqual([]);
    expect((result(await callRpc(s, 'HcnEnumerateNamespaces', [''])) as string[]).length).toBe(2);
    expect(codeOf(await callRpc(s, 'RestartHcs', [{}]))).toBe(-32602);
  });
});

describe('fault rules on compute-system calls', () => {
  it('FaultFail by method: HcsStartComputeSystem fails with the injected code, nothing changes', async () => {
    const { s, fx } = server('vmcompute');
    result(await callRpc(s, 'HcsCreateComputeSystem', ['c1', containerDoc(fx.ns)]));
    const before = fx.host.snapshot();
    result(
      await callRpc(s, 'FaultFail', [{ method: 'HcsStartComputeSystem', hresult: '0xC0370106', times: 1 }]),
    );
    expect(hresultOf(await callRpc(s, 'HcsStartComputeSystem', ['c1', '']))).toEqual({
      hresult: 0xc0370106,
      name: 'ERROR_VMCOMPUTE_UNEXPECTED_EXIT',
    });
    expect(fx.host.snapshot()).toEqual(before);
    // spent: the retry reaches HCS
    expect(result(await callRpc(s, 'HcsStartComputeSystem', ['c1', '']))).toBeNull();
  });

  it('FaultFail by system ID (not a GUID, any case): only that system’s calls fail', async () => {
    const { s, fx } = server();
    for (const id of ['web', 'db'])
      result(await callRpc(s, 'HcsCreateComputeSystem', [id, containerDoc(fx.ns)]));
    result(
      await callRpc(s, 'FaultFail', [
        { method: 'HcsStartComputeSystem', id: 'WEB', hresult: 'E_ACCESSDENIED' },
      ]),
    );
    expect(hresultOf(await callRpc(s, 'HcsStartComputeSystem', ['web', ''])).name).toBe('E_ACCESSDENIED');
    expect(result(await callRpc(s, 'HcsStartComputeSystem', ['db', '']))).toBeNull();
    // the id alone matches every call naming the system, not Enumerate (it names none)
    result(await callRpc(s, 'FaultClear'));
    result(await callRpc(s, 'FaultFail', [{ id: 'db', hresult: 'HCS_E_CONNECTION_TIMEOUT' }]));
    expect(hresultOf(await callRpc(s, 'HcsGetComputeSystemProperties', ['db', ''])).hresult).toBe(0x80370109);
    expect(hresultOf(await callRpc(s, 'HcsTerminateComputeSystem', ['DB', ''])).hresult).toBe(0x80370109);
    expect((result(await callRpc(s, 'HcsEnumerateComputeSystems', [''])) as JsonObject[]).length).toBe(2);
  });

  it('FaultFail by a GUID system ID matches it in any case, with braces', async () => {
    const { s, fx } = server();
    const id = '8d1c4b5e-7a47-4c42-9d56-0f2d3c8e9a11';
    result(await callRpc(s, 'HcsCreateComputeSystem', [id, containerDoc(fx.ns)]));
    result(await callRpc(s, 'FaultFail', [{ id: `{${id.toUpperCase()}}`, hresult: 'E_FAIL' }]));
    expect(hresultOf(await callRpc(s, 'HcsStartComputeSystem', [id, ''])).name).toBe('E_FAIL');
  });

  it('FaultFail by name: the Name of the create document, then of the system', async () => {
    const { s, fx } = server();
    result(await callRpc(s, 'FaultFail', [{ name: 'web', hresult: 'E_ACCESSDENIED', times: 1 }]));
    const doc = containerDoc(fx.ns, { Name: 'web' });
    expect(hresultOf(await callRpc(s, 'HcsCreateComputeSystem', ['c1', doc])).name).toBe('E_ACCESSDENIED');
    result(await callRpc(s, 'HcsCreateComputeSystem', ['c1', doc]));
    result(
      await callRpc(s, 'FaultFail', [{ name: 'web', method: 'HcsStartComputeSystem', hresult: 'E_FAIL' }]),
    );
    expect(hresultOf(await callRpc(s, 'HcsStartComputeSystem', ['c1', ''])).name).toBe('E_FAIL');
  });

  it('FaultDelay by system ID: the start takes effect when the clock passes the delay', async () => {
    const { s, fx } = server();
    for (const id of ['web', 'db'])
      result(await callRpc(s, 'HcsCreateComputeSystem', [id, containerDoc(fx.ns)]));
    result(await callRpc(s, 'FaultDelay', [{ method: 'HcsStartComputeSystem', id: 'web', ms: 250 }]));
    let answered: RpcResponse | undefined;
    void callRpc(s, 'HcsStartComputeSystem', ['web', ''], 7).then((r) => (answered = r));
    result(await callRpc(s, 'HcsStartComputeSystem', ['db', '']));
    await tick();
    expect(answered).toBeUndefined();
    expect(fx.host.hcs.get('web').state).toBe('Created');
    expect(fx.host.hcs.get('db').state).toBe('Running');
    result(await callRpc(s, 'ClockAdvance', [250]));
    await tick();
    expect(answered).toEqual({ jsonrpc: '2.0', id: 7, result: null });
    expect(fx.host.hcs.get('web').state).toBe('Running');
  });

  it('a compute-system call held across an HNS restart still reaches vmcompute', async () => {
    const { s, fx } = server();
    result(await callRpc(s, 'HcsCreateComputeSystem', ['vm', vmDoc()]));
    const { rule } = result(await callRpc(s, 'FaultHang', [{ method: 'HcsStartComputeSystem' }])) as {
      rule: number;
    };
    let answered: RpcResponse | undefined;
    void callRpc(s, 'HcsStartComputeSystem', ['vm', ''], 8).then((r) => (answered = r));
    await tick();
    fx.host.restartHns();
    result(await callRpc(s, 'FaultRelease', [{ rule }]));
    await tick();
    expect(answered).toEqual({ jsonrpc: '2.0', id: 8, result: null });
  });
});
