// Endpoint traffic counters (docs/model.md "Endpoints"): fed by the dataplane through
// `HnsStore.countTraffic`, reported by v1 `GET /endpointstats/<id>`, `HcnQueryEndpointStats`, the
// JSON-RPC server and the typed client's `getHNSEndpointStats`; reset with the endpoint and at
// restore, never in a snapshot.
import { describe, expect, it } from 'vitest';
import { FLAT_API_METHODS, type HcnResult } from '../../src/api/flat.js';
import { HcnClient, HcnClientError, isNotFoundError } from '../../src/api/hcn/index.js';
import { RpcServer, type RpcResponse } from '../../src/api/rpc.js';
import type { Json, JsonObject } from '../../src/core/json.js';
import { createHost, type Host } from '../../src/host/host.js';

// reference hns-hcs.md §3.2: `GET /endpointstats/<id>` → these keys, in this order
type StatsKey =
  | 'BytesReceived'
  | 'BytesSent'
  | 'DroppedPacketsIncoming'
  | 'DroppedPacketsOutgoing'
  | 'EndpointId'
  | 'InstanceId'
  | 'PacketsReceived'
  | 'PacketsSent';
const STATS_KEYS: readonly StatsKey[] = [
  'BytesReceived',
  'BytesSent',
  'DroppedPacketsIncoming',
  'DroppedPacketsOutgoing',
  'EndpointId',
  'InstanceId',
  'PacketsReceived',
  'PacketsSent',
];
type StatsDoc = Record<StatsKey, number | string>;

// reference hns-hcs.md §5.2 (HCNHResult.md): 0x803B0002 HCN_E_ENDPOINT_NOT_FOUND "The endpoint was not found"
const ENDPOINT_NOT_FOUND = { name: 'HCN_E_ENDPOINT_NOT_FOUND', hr: 0x803b0002 } as const;
const ENDPOINT_NOT_FOUND_TEXT = 'The endpoint was not found. ';

const ABSENT = '0A1B2C3D-0000-4000-8000-00000000AB5E';

function ok<T>(r: HcnResult<T>): T {
  if (!r.ok) throw new Error(`expected success, got ${r.name}: ${r.message}`);
  return r.result;
}

function setup(profile = 'ws2022') {
  const host = createHost({ seed: 11, profile });
  const net = ok(host.api.HcnCreateNetwork(null, { Name: 'nat', Type: 'NAT' }));
  const ep = ok(host.api.HcnCreateEndpoint(net.ID, null, { Name: 'pod1' }));
  return { host, netId: net.ID, epId: ep.ID };
}

function zeros(id: string, instance = id): StatsDoc {
  return {
    BytesReceived: 0,
    BytesSent: 0,
    DroppedPacketsIncoming: 0,
    DroppedPacketsOutgoing: 0,
    EndpointId: id,
    InstanceId: instance,
    PacketsReceived: 0,
    PacketsSent: 0,
  };
}

/** The v1 stats Output, checked to be a success. */
function v1Stats(host: Host, id: string): Json | undefined {
  const r = ok(host.api.HNSCall('GET', `/endpointstats/${id}`, ''));
  expect(r['Success'], JSON.stringify(r)).toBe(true);
  return r['Output'];
}

/** Everything a failed call must leave as it was: the snapshot and the counters. */
function state(host: Host, ids: readonly string[]): string {
  return JSON.stringify({
    snapshot: host.snapshot(),
    counters: ids.map((id) => host.hns.store.statsOf(id)),
    entries: [...host.hns.store.stats.keys()],
  });
}

describe('endpoint counters', () => {
  it('start at zero: v1 endpointstats and HcnQueryEndpointStats give the reference keys in order', () => {
    const { host, epId } = setup();
    const v1 = v1Stats(host, epId) as JsonObject;
    expect(v1).toEqual(zeros(epId));
    expect(Object.keys(v1)).toEqual(STATS_KEYS);
    const v2 = ok(host.api.HcnQueryEndpointStats(epId, ''));
    expect(v2).toEqual(zeros(epId));
    expect(Object.keys(v2)).toEqual(STATS_KEYS);
    expect(host.hns.store.stats.size).toBe(0);
  });

  it('report what the dataplane counted, summed over calls', () => {
    const { host, epId } = setup();
    host.hns.store.countTraffic(epId, { PacketsSent: 1, BytesSent: 98 });
    host.hns.store.countTraffic(epId, {
      PacketsSent: 2,
      BytesSent: 196,
      PacketsReceived: 1,
      BytesReceived: 60,
    });
    host.hns.store.countTraffic(epId, { DroppedPacketsIncoming: 3, DroppedPacketsOutgoing: 4 });
    const expected: StatsDoc = {
      BytesReceived: 60,
      BytesSent: 294,
      DroppedPacketsIncoming: 3,
      DroppedPacketsOutgoing: 4,
      EndpointId: epId,
      InstanceId: epId,
      PacketsReceived: 1,
      PacketsSent: 3,
    };
    expect(v1Stats(host, epId)).toEqual(expected);
    expect(ok(host.api.HcnQueryEndpointStats(epId, ''))).toEqual(expected);
    // any schema version and the Detailed flag give the same document
    expect(
      ok(host.api.HcnQueryEndpointStats(epId, { SchemaVersion: { Major: 1, Minor: 0 }, Flags: 1 })),
    ).toEqual(expected);
    // GUIDs in any case, with braces, as for the other queries
    expect(ok(host.api.HcnQueryEndpointStats(`{${epId.toLowerCase()}}`))).toEqual(expected);
    expect(v1Stats(host, epId.toLowerCase())).toEqual(expected);
  });

  it('survive changes of the endpoint (a policy update, a VM port): the same endpoint keeps counting', () => {
    const { host, epId } = setup();
    host.hns.store.countTraffic(epId, { PacketsReceived: 5 });
    ok(
      host.api.HcnModifyEndpoint(epId, {
        ResourceType: 'Policy',
        RequestType: 'Add',
        Settings: {
          Policies: [{ Type: 'ACL', Settings: { Action: 'Allow', Direction: 'In', Priority: 100 } }],
        },
      }),
    );
    const port = '5E1F0000-0000-4000-8000-000000000001';
    const vm = '5E1F0000-0000-4000-8000-000000000002';
    ok(
      host.api.HcnModifyEndpoint(epId, {
        ResourceType: 'Port',
        RequestType: 'Add',
        Settings: { PortId: port, VirtualMachineId: vm },
      }),
    );
    host.hns.store.countTraffic(epId, { PacketsReceived: 1 });
    // InstanceId is the switch port once the endpoint has one
    expect(ok(host.api.HcnQueryEndpointStats(epId, ''))).toMatchObject({
      PacketsReceived: 6,
      EndpointId: epId,
      InstanceId: port,
    });
  });

  it('ignore IDs no endpoint holds, and count per endpoint', () => {
    const { host, netId, epId } = setup();
    const other = ok(host.api.HcnCreateEndpoint(netId, null, { Name: 'pod2' })).ID;
    host.hns.store.countTraffic(ABSENT, { PacketsSent: 9 });
    host.hns.store.countTraffic(netId, { PacketsSent: 9 });
    expect(host.hns.store.stats.size).toBe(0);
    host.hns.store.countTraffic(other, { PacketsSent: 2 });
    expect(ok(host.api.HcnQueryEndpointStats(epId, '')).PacketsSent).toBe(0);
    expect(ok(host.api.HcnQueryEndpointStats(other, '')).PacketsSent).toBe(2);
    expect(host.hns.store.statsOf(ABSENT)).toEqual({
      BytesReceived: 0,
      BytesSent: 0,
      PacketsReceived: 0,
      PacketsSent: 0,
      DroppedPacketsIncoming: 0,
      DroppedPacketsOutgoing: 0,
    });
  });

  it('go with the endpoint: a new endpoint with the same ID starts from zero', () => {
    const { host, netId, epId } = setup();
    host.hns.store.countTraffic(epId, { PacketsSent: 7, BytesSent: 700 });
    ok(host.api.HcnDeleteEndpoint(epId));
    // counting for the deleted endpoint is ignored
    host.hns.store.countTraffic(epId, { PacketsSent: 1 });
    // HNS honours a given ID: the same ID, another endpoint
    expect(ok(host.api.HcnCreateEndpoint(netId, epId, { Name: 'again' })).ID).toBe(epId);
    expect(ok(host.api.HcnQueryEndpointStats(epId, ''))).toEqual(zeros(epId));
    expect(v1Stats(host, epId)).toEqual(zeros(epId));
    host.hns.store.countTraffic(epId, { PacketsSent: 1 });
    expect(ok(host.api.HcnQueryEndpointStats(epId, '')).PacketsSent).toBe(1);
  });

  it('go with the endpoint when the next count comes first too, and through v1 delete and create', () => {
    const { host, netId, epId } = setup();
    host.hns.store.countTraffic(epId, { PacketsReceived: 3 });
    const del = ok(host.api.HNSCall('DELETE', `/endpoints/${epId}`, ''));
    expect(del).toEqual({ Success: true });
    ok(host.api.HcnCreateEndpoint(netId, epId, { Name: 'again' }));
    // the dataplane counts before anyone reads: the old entry is not added to
    host.hns.store.countTraffic(epId, { PacketsReceived: 1 });
    expect(v1Stats(host, epId)).toMatchObject({ PacketsReceived: 1 });
  });

  it('do not pile up for deleted endpoints the dataplane no longer names', () => {
    const { host, netId } = setup();
    for (let i = 0; i < 200; i++) {
      const id = ok(host.api.HcnCreateEndpoint(netId, null, { Name: `p${i}` })).ID;
      host.hns.store.countTraffic(id, { PacketsSent: 1 });
      ok(host.api.HcnDeleteEndpoint(id));
    }
    // bounded by the endpoints alive at the last new entry (pod1 and one pN), not by the 200 deleted
    const live = host.hns.store.endpoints.size + 1;
    expect(host.hns.store.stats.size).toBeLessThanOrEqual(2 * live + 16);
  });

  it('are runtime state: not in snapshots, zero after a restore, gone with the endpoints a restart removes', () => {
    const { host, epId } = setup();
    const snap = host.snapshot();
    host.hns.store.countTraffic(epId, { PacketsSent: 4 });
    expect(host.snapshot()).toEqual(snap);
    host.restore(snap);
    expect(ok(host.api.HcnQueryEndpointStats(epId, ''))).toEqual(zeros(epId));
    expect(host.hns.store.stats.size).toBe(0);

    // a restart keeping endpoints keeps their counters (our choice: the switch port survives)
    host.hns.store.countTraffic(epId, { PacketsSent: 4 });
    host.restartHns({ endpoints: 'keep' });
    expect(ok(host.api.HcnQueryEndpointStats(epId, '')).PacketsSent).toBe(4);
    // the default restart removes endpoints, and their counters with them
    host.restartHns();
    expect(host.api.HcnQueryEndpointStats(epId, '')).toMatchObject({
      ok: false,
      name: ENDPOINT_NOT_FOUND.name,
    });
    expect(host.hns.store.statsOf(epId).PacketsSent).toBe(0);
  });
});

describe('failures', () => {
  it('an unknown endpoint: HCN_E_ENDPOINT_NOT_FOUND (0x803B0002), with state and counters unchanged', () => {
    const { host, epId } = setup();
    host.hns.store.countTraffic(epId, { BytesReceived: 10 });
    const before = state(host, [epId, ABSENT]);
    const r = host.api.HcnQueryEndpointStats(ABSENT, '');
    expect(r).toMatchObject({
      ok: false,
      hr: ENDPOINT_NOT_FOUND.hr,
      name: ENDPOINT_NOT_FOUND.name,
      errorRecord: { Success: false, Error: ENDPOINT_NOT_FOUND_TEXT, ErrorCode: ENDPOINT_NOT_FOUND.hr },
    });
    // v1: a successful call answering Success:false, ErrorCode the HRESULT as a signed int32
    expect(ok(host.api.HNSCall('GET', `/endpointstats/${ABSENT}`, ''))).toEqual({
      Success: false,
      Error: ENDPOINT_NOT_FOUND_TEXT,
      ErrorCode: ENDPOINT_NOT_FOUND.hr | 0,
    });
    expect(state(host, [epId, ABSENT])).toBe(before);
  });

  it('fails exactly as HcnQueryEndpointProperties does for the same ID and query arguments', () => {
    const { host, netId, epId } = setup();
    const inputs: [unknown, unknown][] = [
      [null, ''],
      ['', ''],
      [undefined, undefined],
      ['not-a-guid', ''],
      [42, ''],
      [netId, ''],
      [ABSENT, ''],
      [epId, '{"SchemaVersion":{"Major":3,"Minor":0}}'],
      [epId, '{"Flags":2}'],
      [epId, 'not json'],
      [epId, { Filter: 7 }],
    ];
    const before = state(host, [epId]);
    for (const [id, query] of inputs) {
      const stats = host.api.HcnQueryEndpointStats(id, query);
      const props = host.api.HcnQueryEndpointProperties(id, query);
      expect(stats.ok, `${String(id)} ${JSON.stringify(query)}`).toBe(false);
      expect(stats.ok ? stats : { hr: stats.hr, name: stats.name }).toEqual(
        props.ok ? props : { hr: props.hr, name: props.name },
      );
    }
    expect(state(host, [epId])).toBe(before);
  });

  it('is E_NOTIMPL before the V2 API (HNS 9.1), like every Hcn* call', () => {
    const host = createHost({ seed: 11, profile: '9.1' });
    expect(host.api.HcnQueryEndpointStats(ABSENT, '')).toMatchObject({ ok: false, name: 'E_NOTIMPL' });
  });
});

describe('JSON-RPC, faults and the typed client', () => {
  it('is a flat API method the JSON-RPC server lists and answers', async () => {
    expect(FLAT_API_METHODS).toContain('HcnQueryEndpointStats');
    const { host, epId } = setup();
    host.hns.store.countTraffic(epId, { PacketsSent: 2 });
    const rpc = new RpcServer(host);
    const send = async (id: number, method: string, params: Json[]) =>
      JSON.parse((await rpc.handle(JSON.stringify({ jsonrpc: '2.0', id, method, params })))!) as RpcResponse;
    const methods = await send(1, 'ListMethods', []);
    expect('result' in methods && methods.result).toContain('HcnQueryEndpointStats');
    const r = await send(2, 'HcnQueryEndpointStats', [epId, '']);
    expect('result' in r && r.result).toMatchObject({ EndpointId: epId, PacketsSent: 2 });
    const missing = await send(3, 'HcnQueryEndpointStats', [ABSENT]);
    expect('error' in missing && missing.error).toMatchObject({
      code: -32000,
      data: { hresult: ENDPOINT_NOT_FOUND.hr, name: ENDPOINT_NOT_FOUND.name },
    });
    expect((await send(4, 'HcnQueryEndpointStats', [epId, '', 'extra'])) as JsonObject).toMatchObject({
      error: { code: -32602 },
    });
  });

  it('fault rules match it by method, prefix and ID', async () => {
    const { host, epId } = setup();
    const call = () => host.transport.call({ method: 'HcnQueryEndpointStats', args: [epId, ''] });
    host.faults.fail({ method: 'HcnQuery*' }, 'E_ACCESSDENIED', { times: 1 });
    expect(await call()).toMatchObject({ ok: false, name: 'E_ACCESSDENIED' });
    host.faults.fail({ method: 'HcnQueryEndpointStats', id: epId.toLowerCase() }, 'E_FAIL', { times: 1 });
    expect(await call()).toMatchObject({ ok: false, name: 'E_FAIL' });
    host.faults.fail({ method: 'HcnQueryEndpointProperties' }, 'E_FAIL');
    expect(await call()).toMatchObject({ ok: true, result: { EndpointId: epId } });
  });

  it("the typed client's getHNSEndpointStats is hcsshim's GetHNSEndpointStats over v1", async () => {
    const { host, epId } = setup();
    host.hns.store.countTraffic(epId, { BytesReceived: 1500, PacketsReceived: 1 });
    const hcn = HcnClient.forHost(host);
    expect(await hcn.getHNSEndpointStats(epId)).toEqual({
      BytesReceived: 1500,
      BytesSent: 0,
      DroppedPacketsIncoming: 0,
      DroppedPacketsOutgoing: 0,
      EndpointID: epId,
      InstanceID: epId,
      PacketsReceived: 1,
      PacketsSent: 0,
    });
    const calls: string[] = [];
    host.events.on('api.call', (e) => calls.push(e.method));
    const e = await hcn.getHNSEndpointStats(ABSENT).catch((x: unknown) => x);
    expect(calls).toEqual(['HNSCall']);
    expect(e).toBeInstanceOf(HcnClientError);
    // hcsshim internal/hns hnsCall: fmt.Errorf("hns failed with error : %s", Error)
    expect((e as HcnClientError).message).toBe(`hns failed with error : ${ENDPOINT_NOT_FOUND_TEXT}`);
    expect((e as HcnClientError).hresult).toBe(ENDPOINT_NOT_FOUND.hr);
    expect(isNotFoundError(e)).toBe(false);
  });
});
