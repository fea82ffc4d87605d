// JSON-RPC 2.0 server over the flat API: round trips, HNS failures as -32000 with HRESULT data,
// every protocol error code, batches, notifications, host methods, and the never-crash property.
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FLAT_API_METHODS } from '../../src/api/flat.js';
import {
  HOST_RPC_METHODS,
  invalidParams,
  RPC_METHODS,
  RpcServer,
  serveStdio,
  type RpcResponse,
} from '../../src/api/rpc.js';
import { HRESULTS } from '../../src/core/errors.js';
import type { Json, JsonObject } from '../../src/core/json.js';
import { createHost, type Host } from '../../src/host/host.js';

const V2 = { Major: 2, Minor: 0 };

function server(seed = 1, profile?: string): RpcServer {
  return new RpcServer(createHost({ seed, ...(profile ? { profile } : {}) }));
}

async function send(s: RpcServer, msg: unknown): Promise<unknown> {
  const out = await await s.handle(typeof msg === 'string' ? msg : JSON.stringify(msg));
  return out === undefined ? undefined : JSON.parse(out);
}

async function call(s: RpcServer, method: string, params?: unknown, id: Json = 1): Promise<RpcResponse> {
  const msg: JsonObject = { jsonrpc: '2.0', id, method };
  if (params !== undefined) msg.params = params as Json;
  return (await send(s, msg)) as RpcResponse;
}

function result(r: RpcResponse): Json {
  if ('error' in r) throw new Error(`unexpected error ${JSON.stringify(r.error)}`);
  return r.result;
}

function errorOf(r: RpcResponse): { code: number; message: string; data?: Json } {
  if (!('error' in r)) throw new Error(`unexpected result ${JSON.stringify(r.result)}`);
  return r.error;
}

/** A JSON-RPC 2.0 response object: jsonrpc, id, exactly one of result/error with a well-formed error. */
function isResponseObject(v: unknown): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  if (o.jsonrpc !== '2.0' || !('id' in o)) return false;
  const id = o.id;
  if (!(id === null || typeof id === 'string' || typeof id === 'number')) return false;
  const hasResult = 'result' in o;
  const hasError = 'error' in o;
  if (hasResult === hasError) return false;
  if (hasError) {
    const e = o.error as Record<string, unknown>;
    return typeof e === 'object' && e !== null && Number.isInteger(e.code) && typeof e.message === 'string';
  }
  return Object.keys(o).length === 3;
}

function isResponseLine(line: string): boolean {
  if (line.includes('\n')) return false;
  const v = JSON.parse(line) as unknown;
  if (Array.isArray(v)) return v.length > 0 && v.every(isResponseObject);
  return isResponseObject(v);
}

describe('flat API round trips', () => {
  it('creates, queries, enumerates and deletes networks and endpoints', async () => {
    const s = server();
    const net = result(
      await call(s, 'HcnCreateNetwork', [
        null,
        JSON.stringify({ Name: 'nat', Type: 'NAT', SchemaVersion: V2 }),
      ]),
    ) as JsonObject;
    expect(net.Name).toBe('nat');
    expect(net.ID).toMatch(/^[0-9A-F-]{36}$/);
    expect(result(await call(s, 'HcnEnumerateNetworks', []))).toEqual([net.ID]);
    expect(
      result(await call(s, 'HcnEnumerateNetworks', [{ Filter: JSON.stringify({ Name: 'nat' }) }])),
    ).toEqual([net.ID]);
    expect(
      result(await call(s, 'HcnEnumerateNetworks', [{ Filter: JSON.stringify({ Name: 'other' }) }])),
    ).toEqual([]);
    // the query equals what create returned (both are default v2 queries)
    expect(result(await call(s, 'HcnQueryNetworkProperties', [net.ID]))).toEqual(net);

    const ep = result(
      await call(s, 'HcnCreateEndpoint', [
        net.ID,
        null,
        { Name: 'ep1', HostComputeNetwork: net.ID, SchemaVersion: V2 },
      ]),
    ) as JsonObject;
    expect(ep.HostComputeNetwork).toBe(net.ID);
    expect(Array.isArray(ep.IpConfigurations) && ep.IpConfigurations.length).toBe(1);
    const byNet = { Filter: JSON.stringify({ VirtualNetwork: net.ID }) };
    expect(result(await call(s, 'HcnEnumerateEndpoints', [byNet]))).toEqual([ep.ID]);
    expect(result(await call(s, 'HcnQueryEndpointProperties', [ep.ID]))).toEqual(ep);

    // void calls answer null
    expect(result(await call(s, 'HcnDeleteEndpoint', [ep.ID]))).toBeNull();
    expect(result(await call(s, 'HcnEnumerateEndpoints', []))).toEqual([]);
    expect(result(await call(s, 'HcnDeleteNetwork', [net.ID]))).toBeNull();
    expect(result(await call(s, 'HcnEnumerateNetworks', []))).toEqual([]);
  });

  it('attaches an endpoint to a namespace through HcnModifyNamespace', async () => {
    const s = server();
    const net = result(await call(s, 'HcnCreateNetwork', [null, { Name: 'nat', Type: 'NAT' }])) as JsonObject;
    const ep = result(
      await call(s, 'HcnCreateEndpoint', [net.ID, null, { HostComputeNetwork: net.ID }]),
    ) as JsonObject;
    const ns = result(await call(s, 'HcnCreateNamespace', [null, { SchemaVersion: V2 }])) as JsonObject;
    const add = { ResourceType: 'Endpoint', RequestType: 'Add', Settings: { EndpointId: ep.ID } };
    expect(result(await call(s, 'HcnModifyNamespace', [ns.ID, add]))).toBeNull();
    const q = result(await call(s, 'HcnQueryNamespaceProperties', [ns.ID])) as JsonObject;
    expect(q.Resources).toEqual([{ Type: 'Endpoint', Data: { ID: ep.ID } }]);
    expect(
      (result(await call(s, 'HcnQueryEndpointProperties', [ep.ID])) as JsonObject).HostComputeNamespace,
    ).toBe(ns.ID);
  });

  it('passes HNSCall (v1) through: GET /globals/version answers the profile version', async () => {
    const s = server(1, 'ws2025');
    expect(result(await call(s, 'HNSCall', ['GET', '/globals/version', '']))).toEqual({
      Success: true,
      Output: { Major: 15, Minor: 4 },
    });
  });
});

describe('HNS failures are error -32000 with HRESULT data', () => {
  it('HcnQueryNetworkProperties of an unknown GUID → HCN_E_NETWORK_NOT_FOUND (2151350273)', async () => {
    const s = server();
    const r = await call(s, 'HcnQueryNetworkProperties', ['5e0f0d3c-0000-4000-8000-000000000001'], 7);
    expect(r.id).toBe(7);
    const e = errorOf(r);
    expect(e.code).toBe(-32000);
    expect(e.message.startsWith(HRESULTS.HCN_E_NETWORK_NOT_FOUND.message)).toBe(true);
    expect(e.data).toEqual({
      hresult: 2151350273,
      name: 'HCN_E_NETWORK_NOT_FOUND',
      errorRecord: {
        Success: false,
        Error: `${HRESULTS.HCN_E_NETWORK_NOT_FOUND.message} `,
        ErrorCode: 2151350273,
      },
    });
    expect(Object.keys(r).sort()).toEqual(['error', 'id', 'jsonrpc']);
  });

  it('a duplicate PortMapping → HCN_E_PORT_ALREADY_EXISTS 0x803B0013, and the state is unchanged', async () => {
    const s = server();
    const net = result(await call(s, 'HcnCreateNetwork', [null, { Name: 'nat', Type: 'NAT' }])) as JsonObject;
    const pm = { Type: 'PortMapping', Settings: { Protocol: 17, InternalPort: 45678, ExternalPort: 56789 } };
    result(
      await call(s, 'HcnCreateEndpoint', [net.ID, null, { HostComputeNetwork: net.ID, Policies: [pm] }]),
    );
    const before = result(await call(s, 'Snapshot'));
    const e = errorOf(
      await call(s, 'HcnCreateEndpoint', [net.ID, null, { HostComputeNetwork: net.ID, Policies: [pm] }]),
    );
    expect(e.code).toBe(-32000);
    expect(e.data).toMatchObject({ hresult: 0x803b0013, name: 'HCN_E_PORT_ALREADY_EXISTS' });
    expect((e.data as JsonObject).errorRecord).toEqual({
      Success: false,
      Error: `${HRESULTS.HCN_E_PORT_ALREADY_EXISTS.message} `,
      ErrorCode: 2151350291,
    });
    expect(result(await call(s, 'Snapshot'))).toEqual(before);
  });

  it('a malformed settings document → HCN_E_INVALID_JSON', async () => {
    const e = errorOf(await call(server(), 'HcnCreateNetwork', [null, '{not json']));
    expect(e.data).toMatchObject({ hresult: 0x803b001b, name: 'HCN_E_INVALID_JSON' });
  });
});

describe('protocol errors', () => {
  it('-32700 for a line that is not JSON, with id null', async () => {
    const s = server();
    for (const line of ['{', 'garbage', '{"jsonrpc":"2.0","id":1,"method":"GetVersion"', "{'a':1}"]) {
      expect(await send(s, line)).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'Parse error' },
      });
    }
  });

  it('-32600 for requests that are not valid Request objects', async () => {
    const s = server();
    const invalid: [unknown, Json][] = [
      [1, null],
      ['"text"', null],
      [{ foo: 'boo' }, null],
      [{ jsonrpc: '1.0', id: 3, method: 'GetVersion' }, 3],
      [{ id: 4, method: 'GetVersion' }, 4],
      [{ jsonrpc: '2.0', id: 5, method: 1, params: 'bar' }, 5],
      [{ jsonrpc: '2.0', id: { x: 1 }, method: 'GetVersion' }, null],
      [{ jsonrpc: '2.0', id: true, method: 'GetVersion' }, null],
      // no id but invalid: still answered, with id null (spec §7 examples)
      [{ jsonrpc: '2.0', method: 1, params: 'bar' }, null],
    ];
    for (const [msg, id] of invalid) {
      const line = typeof msg === 'string' ? msg : JSON.stringify(msg);
      const r = (await send(s, line)) as RpcResponse;
      expect(r.id).toBe(id);
      expect(errorOf(r).code).toBe(-32600);
    }
    expect(errorOf((await send(s, '[]')) as RpcResponse).code).toBe(-32600);
  });

  it('-32601 for unknown methods, including object-prototype and class member names', async () => {
    const s = server();
    for (const m of [
      'Nope',
      'hcnCreateNetwork',
      'constructor',
      '__proto__',
      'toString',
      'call',
      'view',
      'hasOwnProperty',
    ]) {
      const e = errorOf(await call(s, m, []));
      expect(e.code).toBe(-32601);
    }
  });

  it('-32602 when params is not an array, or has more entries than the function takes', async () => {
    const s = server();
    expect(errorOf(await call(s, 'HcnEnumerateNetworks', { query: '' })).code).toBe(-32602);
    expect(errorOf(await call(s, 'HcnEnumerateNetworks', 'x')).code).toBe(-32602);
    expect(errorOf(await call(s, 'HcnEnumerateNetworks', null)).code).toBe(-32602);
    const arity: Record<string, number> = {};
    for (const m of FLAT_API_METHODS) {
      arity[m] =
        m.startsWith('HcnEnumerate') ||
        m.startsWith('HcnDelete') ||
        m === 'HcsEnumerateComputeSystems' ||
        m === 'HcsCloseComputeSystem'
          ? 1
          : m === 'HcnCreateEndpoint' || m === 'HNSCall'
            ? 3
            : 2;
    }
    Object.assign(arity, {
      Snapshot: 0,
      Restore: 1,
      RestartHns: 1,
      Reboot: 1,
      RestartHcs: 0,
      HcsInjectExit: 3,
      GetContainerView: 2,
      GetVersion: 0,
      GetAdapters: 0,
      GetIpInterfaces: 0,
      ListMethods: 0,
      FaultFail: 1,
      FaultDelay: 1,
      FaultHang: 1,
      FaultRelease: 1,
      FaultRemove: 1,
      FaultList: 0,
      FaultHeld: 0,
      FaultClear: 0,
      ClockNow: 0,
      ClockAdvance: 1,
      Trace: 1,
      Send: 1,
      GetRoutes: 0,
      AddRoute: 1,
      RemoveRoute: 2,
      RenameAdapter: 2,
      SetAdapterAddress: 3,
      OvsStart: 0,
      OvsStop: 0,
      OvsVsctl: 1,
      OvsOfctl: 1,
      OvsAppctl: 1,
    });
    for (const m of RPC_METHODS) {
      const n = arity[m]!;
      const tooMany = errorOf(
        await call(
          s,
          m,
          Array.from({ length: n + 1 }, () => null),
        ),
      );
      expect(tooMany.code, m).toBe(-32602);
      expect(tooMany.message).toContain(`at most ${n}`);
    }
    // exactly the arity is not a protocol error (HNS may still refuse the values)
    const r = await call(s, 'HcnCreateEndpoint', [null, null, null]);
    expect(errorOf(r).code).toBe(-32000);
  });

  it('-32603 when a host method fails with something that is not an HNS error', async () => {
    const host = createHost();
    const broken = Object.create(host) as Host;
    Object.defineProperty(broken, 'snapshot', {
      value: () => {
        throw new TypeError('disk on fire');
      },
    });
    const r = await call(new RpcServer(broken), 'Snapshot', [], 9);
    expect(r).toEqual({
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32603, message: 'Internal error: disk on fire' },
    });
  });

  it('keeps string and null ids as given', async () => {
    const s = server();
    expect((await call(s, 'ListMethods', [], 'abc')).id).toBe('abc');
    expect((await call(s, 'ListMethods', [], null)).id).toBeNull();
    expect((await call(s, 'ListMethods', [], 2.5)).id).toBe(2.5);
  });
});

describe('notifications and batches', () => {
  it('answers nothing to a notification, but performs it', async () => {
    const s = server();
    expect(
      await s.handle(
        JSON.stringify({ jsonrpc: '2.0', method: 'HcnCreateNetwork', params: [null, { Name: 'n1' }] }),
      ),
    ).toBeUndefined();
    expect((result(await call(s, 'HcnEnumerateNetworks', [])) as string[]).length).toBe(1);
    // not even errors are reported for notifications
    expect(await s.handle(JSON.stringify({ jsonrpc: '2.0', method: 'Nope' }))).toBeUndefined();
    expect(
      await s.handle(JSON.stringify({ jsonrpc: '2.0', method: 'HcnDeleteNetwork', params: ['bad'] })),
    ).toBeUndefined();
    expect(
      await s.handle(JSON.stringify({ jsonrpc: '2.0', method: 'GetVersion', params: [1, 2] })),
    ).toBeUndefined();
  });

  it('answers nothing to a blank line', async () => {
    expect(await server().handle('')).toBeUndefined();
    expect(await server().handle('  \t ')).toBeUndefined();
  });

  it('answers a batch with an array of responses in order, skipping notifications', async () => {
    const s = server();
    const out = (await send(s, [
      { jsonrpc: '2.0', id: 1, method: 'HcnCreateNetwork', params: [null, { Name: 'a' }] },
      { jsonrpc: '2.0', method: 'HcnCreateNetwork', params: [null, { Name: 'b' }] },
      { foo: 'boo' },
      { jsonrpc: '2.0', id: 'x', method: 'Nope' },
      { jsonrpc: '2.0', id: 2, method: 'HcnEnumerateNetworks', params: [] },
    ])) as RpcResponse[];
    expect(out.map((r) => r.id)).toEqual([1, null, 'x', 2]);
    expect((result(out[0]!) as JsonObject).Name).toBe('a');
    expect(errorOf(out[1]!).code).toBe(-32600);
    expect(errorOf(out[2]!).code).toBe(-32601);
    expect((result(out[3]!) as string[]).length).toBe(2);
  });

  it('answers [1,2,3] with three invalid-request errors, and an all-notification batch with nothing', async () => {
    const s = server();
    const out = (await send(s, '[1,2,3]')) as RpcResponse[];
    expect(out.map((r) => errorOf(r).code)).toEqual([-32600, -32600, -32600]);
    expect(
      await s.handle(
        JSON.stringify([
          { jsonrpc: '2.0', method: 'GetVersion' },
          { jsonrpc: '2.0', method: 'ListMethods' },
        ]),
      ),
    ).toBeUndefined();
  });
});

describe('host methods', () => {
  it('Snapshot and Restore round-trip the whole state', async () => {
    const s = server(3);
    const net = result(await call(s, 'HcnCreateNetwork', [null, { Name: 'nat', Type: 'NAT' }])) as JsonObject;
    const ep = result(
      await call(s, 'HcnCreateEndpoint', [net.ID, null, { HostComputeNetwork: net.ID }]),
    ) as JsonObject;
    const snap = result(await call(s, 'Snapshot', []));
    result(await call(s, 'HcnDeleteEndpoint', [ep.ID]));
    result(await call(s, 'HcnDeleteNetwork', [net.ID]));
    expect(result(await call(s, 'Restore', [snap]))).toBeNull();
    expect(result(await call(s, 'HcnQueryEndpointProperties', [ep.ID]))).toEqual(ep);
    expect(result(await call(s, 'Snapshot'))).toEqual(snap);
    // into another server on the same profile: the same objects, and the same next IDs
    const t = server(99);
    result(await call(t, 'Restore', [snap]));
    expect(result(await call(t, 'HcnQueryNetworkProperties', [net.ID]))).toEqual(net);
    const next = async (x: RpcServer) =>
      (result(await call(x, 'HcnCreateNamespace', [null, {}])) as JsonObject).ID;
    expect(await next(t)).toBe(await next(s));
  });

  it('Restore of something that is not a snapshot fails with E_INVALIDARG and changes nothing', async () => {
    const s = server();
    result(await call(s, 'HcnCreateNetwork', [null, { Name: 'nat' }]));
    const before = result(await call(s, 'Snapshot'));
    const e = errorOf(await call(s, 'Restore', [{ format: 'nope' }]));
    expect(e.code).toBe(-32000);
    expect(e.data).toMatchObject({ hresult: 0x80070057, name: 'E_INVALIDARG' });
    expect(result(await call(s, 'Snapshot'))).toEqual(before);
  });

  it('RestartHns keeps networks and drops endpoints by default; a policy can say otherwise', async () => {
    const s = server();
    const net = result(await call(s, 'HcnCreateNetwork', [null, { Name: 'nat' }])) as JsonObject;
    result(await call(s, 'HcnCreateEndpoint', [net.ID, null, { HostComputeNetwork: net.ID }]));
    expect(result(await call(s, 'RestartHns', []))).toBeNull();
    expect(result(await call(s, 'HcnEnumerateNetworks', []))).toEqual([net.ID]);
    expect(result(await call(s, 'HcnEnumerateEndpoints', []))).toEqual([]);
    expect(result(await call(s, 'RestartHns', [{ networks: 'remove' }]))).toBeNull();
    expect(result(await call(s, 'HcnEnumerateNetworks', []))).toEqual([]);
    expect(errorOf(await call(s, 'RestartHns', [{ networks: 'sometimes' }])).code).toBe(-32602);
    expect(errorOf(await call(s, 'RestartHns', [{ disks: 'keep' }])).code).toBe(-32602);
    expect(errorOf(await call(s, 'Reboot', ['all'])).code).toBe(-32602);
  });

  it('Reboot removes non-persistent networks and recreates the HostDefault namespace', async () => {
    const s = server();
    result(await call(s, 'HcnCreateNetwork', [null, { Name: 'keep' }]));
    result(await call(s, 'HcnCreateNetwork', [null, { Name: 'temp', Flags: 8 }]));
    result(await call(s, 'HcnCreateNamespace', [null, {}]));
    expect(result(await call(s, 'Reboot'))).toBeNull();
    const nets = result(await call(s, 'HcnEnumerateNetworks', [])) as string[];
    const names: Json[] = [];
    for (const id of nets)
      names.push((result(await call(s, 'HcnQueryNetworkProperties', [id])) as JsonObject).Name!);
    expect(names).toEqual(['keep']);
    const nss = result(await call(s, 'HcnEnumerateNamespaces', [])) as string[];
    const types: Json[] = [];
    for (const id of nss)
      types.push((result(await call(s, 'HcnQueryNamespaceProperties', [id])) as JsonObject).Type!);
    expect(types).toEqual(['HostDefault']);
  });

  it('GetVersion answers the profile; ListMethods every method', async () => {
    expect(result(await call(server(1, 'ws2025'), 'GetVersion'))).toEqual({
      name: 'ws2025',
      description: 'Windows Server 2025 (build 26100)',
      version: { Major: 15, Minor: 4 },
      schema: { Major: 2, Minor: 16 },
      build: 26100,
    });
    expect(result(await call(server(1, 'ws2019'), 'GetVersion'))).toMatchObject({
      version: { Major: 9, Minor: 5 },
    });
    const methods = result(await call(server(), 'ListMethods')) as string[];
    expect(methods).toEqual([...FLAT_API_METHODS, ...HOST_RPC_METHODS]);
  });
});

describe('serveStdio', () => {
  it('answers line by line, in order, and resolves at end of input', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const chunks: string[] = [];
    output.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
    const done = serveStdio(createHost({ seed: 1 }), input, output);
    input.write('{"jsonrpc":"2.0","id":1,"method":"HcnCreateNetwork","params":[null,{"Name":"nat"}]}\r\n');
    input.write('{"jsonrpc":"2.0","method":"HcnCreateNetwork","params":[null,{"Name":"x"}]}\n\n');
    input.write('not json\n{"jsonrpc":"2.0","id":2,"method":"HcnEnumerateNetworks","params":[]}');
    input.end();
    await done;
    const lines = chunks.join('').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(3);
    const [a, b, c] = lines.map((l) => JSON.parse(l) as RpcResponse);
    expect((result(a!) as JsonObject).Name).toBe('nat');
    expect(errorOf(b!).code).toBe(-32700);
    expect(c!.id).toBe(2);
    expect((result(c!) as string[]).length).toBe(2);
  });
});

describe('never crashes (property)', () => {
  it('any string → exactly one valid response line, or none only for blank lines and notifications', async () => {
    const s = server();
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.json()), async (line) => {
        const out = await s.handle(line);
        if (out === undefined) {
          expect(line.trim() === '' || isNotificationOnly(JSON.parse(line))).toBe(true);
          return;
        }
        expect(isResponseLine(out)).toBe(true);
        let parsed = true;
        try {
          JSON.parse(line);
        } catch {
          parsed = false;
        }
        if (!parsed) expect(JSON.parse(out)).toMatchObject({ id: null, error: { code: -32700 } });
      }),
      { numRuns: 2000 },
    );
  });

  it('any JSON value → a valid response (one per non-notification in a batch), or none for notifications', async () => {
    const s = server();
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (v) => {
        const out = await s.handle(JSON.stringify(v));
        if (out === undefined) {
          expect(isNotificationOnly(v)).toBe(true);
          return;
        }
        expect(isResponseLine(out)).toBe(true);
        const r = JSON.parse(out) as unknown;
        if (Array.isArray(v) && v.length > 0) {
          expect(Array.isArray(r)).toBe(true);
          expect((r as unknown[]).length).toBeLessThanOrEqual(v.length);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('any call of a real method with any JSON params → one response with its id, never -32603', async () => {
    const s = server();
    const request = fc.record({
      id: fc.oneof(fc.integer(), fc.string()),
      // a hang or delay rule could hold every later call: those are driven in their own tests
      method: fc.constantFrom(...RPC_METHODS.filter((m) => m !== 'FaultHang' && m !== 'FaultDelay')),
      params: fc.array(fc.oneof(fc.jsonValue(), fc.string(), fc.constant(null)), { maxLength: 4 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 6 }), async (reqs) => {
        for (const q of reqs) {
          const out = await s.handle(JSON.stringify({ jsonrpc: '2.0', ...q }));
          expect(out).toBeDefined();
          expect(isResponseLine(out!)).toBe(true);
          const r = JSON.parse(out!) as RpcResponse;
          expect(r.id).toBe(q.id);
          if ('error' in r) expect([-32000, -32602]).toContain(r.error.code);
        }
      }),
      { numRuns: 300 },
    );
  });
});

/** A valid request without id, or a non-empty batch of only such requests. */
function isNotificationOnly(v: unknown): boolean {
  const one = (x: unknown) =>
    typeof x === 'object' &&
    x !== null &&
    !Array.isArray(x) &&
    !Object.hasOwn(x, 'id') &&
    (x as Record<string, unknown>).jsonrpc === '2.0' &&
    typeof (x as Record<string, unknown>).method === 'string';
  return Array.isArray(v) ? v.length > 0 && v.every(one) : one(v);
}

describe('extra methods (given by the layers above api/)', () => {
  const echo = {
    arity: 1,
    run: async (params: readonly Json[]) => {
      if (typeof params[0] !== 'string') throw invalidParams('Echo takes a string');
      await Promise.resolve();
      return { echoed: params[0] };
    },
  };

  it('serves them, lists them last, and enforces their arity and their own parameter errors', async () => {
    const s = new RpcServer(createHost({ seed: 1 }), { methods: { Echo: echo } });
    expect(await call(s, 'Echo', ['hi'])).toEqual({ jsonrpc: '2.0', id: 1, result: { echoed: 'hi' } });
    const listed = await call(s, 'ListMethods');
    expect('result' in listed && (listed.result as string[]).at(-1)).toBe('Echo');
    const tooMany = await call(s, 'Echo', ['a', 'b']);
    expect('error' in tooMany && tooMany.error).toMatchObject({
      code: -32602,
      message: /at most 1 parameter, got 2/,
    });
    const bad = await call(s, 'Echo', [5]);
    expect('error' in bad && bad.error).toMatchObject({
      code: -32602,
      message: 'Invalid params: Echo takes a string',
    });
    // a server without the extension does not know the method
    const plain = await call(new RpcServer(createHost({ seed: 1 })), 'Echo', ['hi']);
    expect('error' in plain && plain.error.code).toBe(-32601);
  });

  it('may not shadow a flat API or host method', () => {
    expect(() => new RpcServer(createHost(), { methods: { Snapshot: echo } })).toThrow(/already exists/);
    expect(() => new RpcServer(createHost(), { methods: { HcnCreateNetwork: echo } })).toThrow(
      /already exists/,
    );
  });
});
