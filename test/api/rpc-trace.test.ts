// The dataplane over JSON-RPC (docs/api.md "Traces and traffic"): Trace answers traceJson of
// host.trace, Send moves the endpoint counters HcnQueryEndpointStats reports and a Trace does not,
// the route table methods, and bad requests answered with their HRESULT, changing nothing.
import { describe, expect, it } from 'vitest';
import { callRpc, HOST_RPC_METHODS, RpcServer, type RpcResponse } from '../../src/api/rpc.js';
import { HRESULTS } from '../../src/core/errors.js';
import type { Json, JsonObject } from '../../src/core/json.js';
import { traceJson, type TraceRequest } from '../../src/dataplane/trace.js';
import type { Host } from '../../src/host/host.js';
import { natWebHost } from '../dataplane/trace-kit.js';

const E_INVALIDARG = HRESULTS.E_INVALIDARG.code;
const ERROR_NOT_FOUND = HRESULTS.ERROR_NOT_FOUND.code;

/** The shared NAT host: `web` (a port mapping 8080 → 80 and ACLs: in TCP 80 only) and `client`. */
function build(seed = 3): { host: Host; web: string; client: string } {
  return natWebHost(seed);
}

function result(r: RpcResponse): Json {
  if ('error' in r) throw new Error(`unexpected error ${JSON.stringify(r.error)}`);
  return r.result;
}

async function stats(s: RpcServer, id: string): Promise<JsonObject> {
  return result(await callRpc(s, 'HcnQueryEndpointStats', [id, ''])) as JsonObject;
}

/** Everything a failed call must leave as it was: HNS state, counters, routes, flow state. */
async function state(s: RpcServer, ids: readonly string[]): Promise<Json> {
  return {
    snapshot: result(await callRpc(s, 'Snapshot')),
    stats: await Promise.all(ids.map((id) => stats(s, id))),
    routes: result(await callRpc(s, 'GetRoutes')),
    reply: result(
      await callRpc(s, 'Trace', [{ from: 'web', to: 'client', sourcePort: 80, destinationPort: 50000 }]),
    ),
  };
}

describe('Trace', () => {
  it('answers traceJson of host.trace: the same JSON as a twin host traced directly', async () => {
    const { host } = build();
    const twin = build().host;
    const s = new RpcServer(host);
    const requests: TraceRequest[] = [
      { from: 'client', to: 'web', reply: true },
      { from: 'client', to: 'web', destinationPort: 81 },
      { from: 'web', to: '8.8.8.8', protocol: 'UDP', destinationPort: 53 },
      { from: '192.168.1.50', to: 'host', destinationPort: 8080, sourcePort: 40000 },
      { from: 'host', to: 'web', protocol: 'ICMP', ttl: 64 },
    ];
    for (const req of requests) {
      const r = result(await callRpc(s, 'Trace', [req as unknown as Json])) as JsonObject;
      expect(r).toEqual(traceJson(twin.trace(req)));
      expect(r).toEqual(traceJson(host.trace(req)));
      expect(Object.keys(r)).toEqual(expect.arrayContaining(['request', 'disposition', 'observations']));
    }
    const denied = result(await callRpc(s, 'Trace', [{ from: 'client', to: 'web', destinationPort: 81 }]));
    expect(denied).toMatchObject({ disposition: 'DeniedIn' });
    const last = (denied as { observations: JsonObject[] }).observations.at(-1);
    expect(last).toMatchObject({
      component: 'ACL',
      action: 'Denied',
      rule: { ruleId: 'deny-in', policy: 'ACL' },
    });
  });

  it('takes one request object: params that are not an array or too many are -32602', async () => {
    const s = new RpcServer(build().host);
    const req = { from: 'client', to: 'web' };
    expect(
      await s
        .handle(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'Trace', params: req }))
        .then((l) => JSON.parse(l!)),
    ).toMatchObject({ error: { code: -32602 } });
    expect(await callRpc(s, 'Trace', [req, req])).toMatchObject({ error: { code: -32602 } });
    expect(await callRpc(s, 'RemoveRoute', ['10.0.0.0/8', null, 'x'])).toMatchObject({
      error: { code: -32602 },
    });
  });

  it.each([
    ['no parameter', [], E_INVALIDARG, /a trace request must be an object/],
    ['a string', ['client→web'], E_INVALIDARG, /must be an object/],
    ['missing from', [{ to: 'web' }], E_INVALIDARG, /from must be a non-empty string/],
    ['missing to', [{ from: 'client' }], E_INVALIDARG, /to must be a non-empty string/],
    ['from a number', [{ from: 7, to: 'web' }], E_INVALIDARG, /from must be/],
    [
      'a port as text',
      [{ from: 'client', to: 'web', destinationPort: '80' }],
      E_INVALIDARG,
      /destinationPort/,
    ],
    ['a port out of range', [{ from: 'client', to: 'web', sourcePort: 70000 }], E_INVALIDARG, /sourcePort/],
    ['reply as text', [{ from: 'client', to: 'web', reply: 'yes' }], E_INVALIDARG, /reply must be a boolean/],
    [
      'an unknown protocol',
      [{ from: 'client', to: 'web', protocol: 'SCTP' }],
      E_INVALIDARG,
      /protocol "SCTP"/,
    ],
    ['a bad ttl', [{ from: 'client', to: 'web', ttl: 0 }], E_INVALIDARG, /ttl/],
    [
      'an unknown field',
      [{ from: 'client', to: 'web', dport: 80 }],
      E_INVALIDARG,
      /unknown trace request field "dport"/,
    ],
    [
      'a Send field',
      [{ from: 'client', to: 'web', packets: 2 }],
      E_INVALIDARG,
      /unknown trace request field "packets"/,
    ],
    ['an unknown source', [{ from: 'nobody', to: 'web' }], ERROR_NOT_FOUND, /trace source "nobody"/],
  ])('%s → -32000 with its HRESULT, and nothing changes', async (_what, params, hr, message) => {
    const { host, web, client } = build();
    const s = new RpcServer(host);
    const before = await state(s, [web, client]);
    const r = await callRpc(s, 'Trace', params as Json[]);
    expect(r).toMatchObject({ error: { code: -32000, data: { hresult: hr } } });
    expect('error' in r && r.error.message).toMatch(message);
    // the same request is as bad for Send, except the fields that are Send's
    if (!String(message).includes('packets'))
      expect(await callRpc(s, 'Send', params as Json[])).toMatchObject({
        error: { code: -32000, data: { hresult: hr } },
      });
    expect(await state(s, [web, client])).toEqual(before);
  });
});

describe('Send', () => {
  it('moves the counters HcnQueryEndpointStats reports; a Trace of the same flow does not', async () => {
    const { host, web, client } = build();
    const s = new RpcServer(host);
    const req = { from: 'client', to: 'web' };
    result(await callRpc(s, 'Trace', [req]));
    expect(await stats(s, client)).toMatchObject({ PacketsSent: 0, BytesSent: 0 });
    expect(await stats(s, web)).toMatchObject({ PacketsReceived: 0 });
    const sent = result(await callRpc(s, 'Send', [{ ...req, packets: 3, bytes: 200 }]));
    expect(sent).toEqual(traceJson(build().host.trace(req)));
    expect(await stats(s, client)).toMatchObject({ PacketsSent: 3, BytesSent: 600, PacketsReceived: 0 });
    expect(await stats(s, web)).toMatchObject({ PacketsReceived: 3, BytesReceived: 600, PacketsSent: 0 });
    result(await callRpc(s, 'Trace', [req]));
    expect(await stats(s, client)).toMatchObject({ PacketsSent: 3 });
  });

  it('commits the flow state: afterwards the reply is an established connection', async () => {
    const { host } = build();
    const s = new RpcServer(host);
    const reply = { from: 'web', to: 'client', sourcePort: 80, destinationPort: 50000 };
    const components = async () =>
      ((result(await callRpc(s, 'Trace', [reply])) as { observations: JsonObject[] }).observations ?? []).map(
        (o) => `${String(o.component)} ${String(o.action)}`,
      );
    result(await callRpc(s, 'Trace', [{ from: 'client', to: 'web' }]));
    expect(await components()).not.toContain('Conntrack Established');
    result(await callRpc(s, 'Send', [{ from: 'client', to: 'web' }]));
    expect(await components()).toContain('Conntrack Established');
  });

  it('counts a denied packet as dropped on the endpoint whose ACL denied it', async () => {
    const { host, web } = build();
    const s = new RpcServer(host);
    const r = result(
      await callRpc(s, 'Send', [{ from: 'client', to: 'web', destinationPort: 81, packets: 2 }]),
    );
    expect(r).toMatchObject({ disposition: 'DeniedIn' });
    expect(await stats(s, web)).toMatchObject({ DroppedPacketsIncoming: 2, PacketsReceived: 0 });
  });

  it.each([
    ['packets 0', { packets: 0 }, /packets must be an integer/],
    ['packets as text', { packets: '3' }, /packets must be an integer/],
    ['bytes too small', { bytes: 10 }, /bytes must be an integer/],
    ['allBranches (a Trace field)', { allBranches: true }, /unknown send request field "allBranches"/],
  ])('%s is E_INVALIDARG and counts nothing', async (_what, extra, message) => {
    const { host, web, client } = build();
    const s = new RpcServer(host);
    const before = await state(s, [web, client]);
    const r = await callRpc(s, 'Send', [{ from: 'client', to: 'web', ...extra } as Json]);
    expect(r).toMatchObject({
      error: { code: -32000, data: { hresult: E_INVALIDARG, name: 'E_INVALIDARG' } },
    });
    expect('error' in r && r.error.message).toMatch(message);
    expect(await state(s, [web, client])).toEqual(before);
  });
});

describe('GetRoutes, AddRoute, RemoveRoute', () => {
  it('list the host route table, add a route the next trace follows, and remove it', async () => {
    const { host } = build();
    const s = new RpcServer(host);
    const initial = result(await callRpc(s, 'GetRoutes')) as JsonObject[];
    expect(initial).toContainEqual({
      destinationPrefix: '0.0.0.0/0',
      nextHop: '10.0.0.1',
      interfaceAlias: 'Ethernet',
      metric: 256,
      origin: 'Default',
    });
    expect(initial.every((r) => r.origin !== 'User')).toBe(true);
    const via = async () =>
      (
        (
          result(await callRpc(s, 'Trace', [{ from: 'host', to: '10.244.2.5' }])) as {
            observations: JsonObject[];
          }
        ).observations ?? []
      ).find((o) => o.component === 'HostStack' && o.action === 'Routed')?.detail;
    expect(await via()).toBe('0.0.0.0/0 → 10.0.0.1 on Ethernet');
    const added = result(
      await callRpc(s, 'AddRoute', [{ destinationPrefix: '10.244.2.0/24', nextHop: '10.0.0.11', metric: 5 }]),
    );
    expect(added).toEqual({
      destinationPrefix: '10.244.2.0/24',
      nextHop: '10.0.0.11',
      interfaceAlias: 'Ethernet',
      metric: 5,
      origin: 'User',
    });
    expect(result(await callRpc(s, 'GetRoutes'))).toEqual([...initial, added]);
    expect(await via()).toBe('10.244.2.0/24 → 10.0.0.11 on Ethernet');
    expect(result(await callRpc(s, 'RemoveRoute', ['10.244.2.0/24', '10.0.0.99']))).toEqual({ removed: 0 });
    expect(result(await callRpc(s, 'RemoveRoute', ['10.244.2.0/24', '10.0.0.11']))).toEqual({ removed: 1 });
    expect(result(await callRpc(s, 'GetRoutes'))).toEqual(initial);
    expect(await via()).toBe('0.0.0.0/0 → 10.0.0.1 on Ethernet');
    expect(host.routes().length).toBe(initial.length);
  });

  it.each([
    ['AddRoute', [], E_INVALIDARG, /a route must be an object/],
    ['AddRoute', [{ nextHop: '10.0.0.11' }], E_INVALIDARG, /destinationPrefix must be a string/],
    ['AddRoute', [{ destinationPrefix: '10.244.2.0' }], E_INVALIDARG, /is not an IPv4 prefix/],
    [
      'AddRoute',
      [{ destinationPrefix: '10.244.2.0/24', via: '10.0.0.11' }],
      E_INVALIDARG,
      /unknown route field "via"/,
    ],
    [
      'AddRoute',
      [{ destinationPrefix: '10.244.2.0/24', nextHop: 11 }],
      E_INVALIDARG,
      /nextHop must be a string/,
    ],
    ['AddRoute', [{ destinationPrefix: '10.244.2.0/24', nextHop: 'ten' }], E_INVALIDARG, /NextHop "ten"/],
    [
      'AddRoute',
      [{ destinationPrefix: '10.244.2.0/24', metric: -1 }],
      E_INVALIDARG,
      /metric must be an integer/,
    ],
    [
      'AddRoute',
      [{ destinationPrefix: '10.244.2.0/24', nextHop: '192.168.9.1' }],
      ERROR_NOT_FOUND,
      /no interface/,
    ],
    [
      'AddRoute',
      [{ destinationPrefix: '10.244.2.0/24', interfaceAlias: 'Wi-Fi' }],
      ERROR_NOT_FOUND,
      /"Wi-Fi"/,
    ],
    ['RemoveRoute', [], E_INVALIDARG, /destination prefix/],
    ['RemoveRoute', ['10.244.2.0/24', 5], E_INVALIDARG, /next hop must be a string/],
    ['RemoveRoute', ['nowhere'], E_INVALIDARG, /is not an IPv4 prefix/],
  ])('%s %j → -32000 with its HRESULT, and the table is unchanged', async (method, params, hr, message) => {
    const { host, web, client } = build();
    const s = new RpcServer(host);
    result(await callRpc(s, 'AddRoute', [{ destinationPrefix: '10.9.0.0/16', nextHop: '10.0.0.9' }]));
    const before = await state(s, [web, client]);
    const r = await callRpc(s, method, params as Json[]);
    expect(r).toMatchObject({ error: { code: -32000, data: { hresult: hr } } });
    expect('error' in r && r.error.message).toMatch(message);
    expect(await state(s, [web, client])).toEqual(before);
  });

  it('are listed with the other host methods', async () => {
    const s = new RpcServer(build().host);
    const methods = result(await callRpc(s, 'ListMethods')) as string[];
    for (const m of ['Trace', 'Send', 'GetRoutes', 'AddRoute', 'RemoveRoute']) {
      expect(HOST_RPC_METHODS).toContain(m);
      expect(methods).toContain(m);
    }
  });
});
