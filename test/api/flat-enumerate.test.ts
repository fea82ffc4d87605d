// The flat API answers an enumeration whose filter keys are all found through the store's indexes
// (`ID`; a network's or an endpoint's `Name`) without building a view of each object. Whatever the
// path, the IDs must be those a scan finds: every object whose queried document matches the filter
// by HNS's rule (equal values, GUIDs compared case-insensitively, a zero value matching its
// omission; hns-hcs.md §0.2) — in creation
// order, through attaches, deletes and a snapshot restore.
import { describe, expect, it } from 'vitest';
import type { HcnResult } from '../../src/api/flat.js';
import { parseGuid } from '../../src/core/guid.js';
import type { Json, JsonObject } from '../../src/core/json.js';
import { createHost, type Host } from '../../src/host/host.js';

function ok<T>(r: HcnResult<T>): T {
  if (!r.ok) throw new Error(`${r.name}: ${r.message}`);
  return r.result;
}

/** HNS's filter rule for one value: equal, two spellings of one GUID, or a zero value left out. */
function same(have: Json | undefined, want: Json): boolean {
  if (have === undefined) return want === '' || want === 0;
  if (typeof have === 'string' && typeof want === 'string') {
    const g = parseGuid(have);
    return have === want || (g !== undefined && g === parseGuid(want));
  }
  return have === want;
}

type Kind = 'Network' | 'Endpoint' | 'Namespace';
const PLURAL = { Network: 'Networks', Endpoint: 'Endpoints', Namespace: 'Namespaces' } as const;

/** The slow path: query every object and keep those whose document matches every filter key. */
function scan(host: Host, kind: Kind, query: string, filter: JsonObject): string[] {
  const all = ok(host.api[`HcnEnumerate${PLURAL[kind]}`]('{"SchemaVersion":{"Major":2,"Minor":0}}'));
  return all.filter((id) => {
    const doc = ok(host.api[`Hcn${'Query'}${kind}Properties`](id, query)) as JsonObject;
    return Object.keys(filter).every((k) => same(doc[k], filter[k]!));
  });
}

function enumerate(host: Host, kind: Kind, filter: JsonObject): string[] {
  const query = JSON.stringify({ SchemaVersion: { Major: 2, Minor: 0 }, Filter: JSON.stringify(filter) });
  const got = ok(host.api[`HcnEnumerate${PLURAL[kind]}`](query));
  expect(got, `${kind} ${JSON.stringify(filter)}`).toEqual(scan(host, kind, query, filter));
  return got;
}

const GUID_NAME = '1f6cf7a2-4b1e-4c5d-9e8f-0a1b2c3d4e5f';

function node(): { host: Host; net: string; eps: string[]; ns: string } {
  const host = createHost({ seed: 3 });
  const net = ok(
    host.api.HcnCreateNetwork(null, {
      Name: 'cbr0',
      Type: 'L2Bridge',
      Ipams: [{ Type: 'Static', Subnets: [{ IpAddressPrefix: '10.244.0.0/24' }] }],
      SchemaVersion: { Major: 2, Minor: 0 },
    }),
  ).ID;
  ok(host.api.HcnCreateNetwork(null, { Name: 'nat', Type: 'NAT' }));
  const eps = ['pod-a', GUID_NAME, `{${GUID_NAME.toUpperCase()}}`, 'pod-a', ''].map(
    (Name) => ok(host.api.HcnCreateEndpoint(net, null, { Name, HostComputeNetwork: net })).ID,
  );
  const ns = ok(host.api.HcnCreateNamespace(null, {})).ID;
  return { host, net, eps, ns };
}

/** Every filter the indexes answer, and the ones beside them that they must not. */
function filters(net: string, eps: readonly string[], ns: string): [Kind, JsonObject][] {
  const idSpellings = (id: string): string[] => [id, id.toLowerCase(), `{${id}}`];
  return [
    ...idSpellings(net).map((ID): [Kind, JsonObject] => ['Network', { ID }]),
    ['Network', { Name: 'cbr0' }],
    ['Network', { Name: 'CBR0' }],
    ['Network', { Name: 'nat' }],
    ['Network', { Name: 'cbr0', Type: 'L2Bridge' }],
    ['Network', { Id: net }],
    ...eps.flatMap((e) => idSpellings(e).map((ID): [Kind, JsonObject] => ['Endpoint', { ID }])),
    ['Endpoint', { Id: eps[0]! }],
    ['Endpoint', { ID: eps[0]!, Id: eps[0]! }],
    ['Endpoint', { ID: eps[1]!, Name: 'pod-a' }],
    ['Endpoint', { Name: 'pod-a' }],
    ['Endpoint', { Name: 'POD-A' }],
    ['Endpoint', { Name: GUID_NAME }],
    ['Endpoint', { Name: GUID_NAME.toUpperCase() }],
    ['Endpoint', { Name: '' }],
    ['Endpoint', { Name: 'missing' }],
    ['Endpoint', { ID: '2f6cf7a2-4b1e-4c5d-9e8f-0a1b2c3d4e5f' }],
    ...idSpellings(ns).map((ID): [Kind, JsonObject] => ['Namespace', { ID }]),
    ['Namespace', { Id: ns }],
  ];
}

describe('HcnEnumerate* with index-answered filters', () => {
  it('lists what a scan of the queried documents lists', () => {
    const { host, net, eps, ns } = node();
    for (const [kind, f] of filters(net, eps, ns)) enumerate(host, kind, f);
    expect(enumerate(host, 'Endpoint', { Name: 'pod-a' })).toEqual([eps[0], eps[3]]);
    expect(enumerate(host, 'Endpoint', { Name: GUID_NAME })).toEqual([eps[1], eps[2]]);
    expect(enumerate(host, 'Endpoint', { Id: eps[0]! })).toEqual([]);
    expect(enumerate(host, 'Network', { ID: net.toLowerCase() })).toEqual([net]);
    expect(enumerate(host, 'Namespace', { ID: `{${ns}}` })).toEqual([ns]);
  });

  it('after attaches, deletes and a snapshot restore', () => {
    const { host, net, eps, ns } = node();
    const snap = host.snapshot();
    ok(
      host.api.HcnModifyNamespace(ns, {
        ResourceType: 'Endpoint',
        RequestType: 'Add',
        Settings: { EndpointId: eps[0]! },
      }),
    );
    ok(host.api.HcnDeleteEndpoint(eps[3]!));
    ok(host.api.HcnDeleteEndpoint(eps[1]!));
    for (const [kind, f] of filters(net, eps, ns)) enumerate(host, kind, f);
    expect(enumerate(host, 'Endpoint', { Name: 'pod-a' })).toEqual([eps[0]]);
    expect(enumerate(host, 'Endpoint', { ID: eps[1]! })).toEqual([]);
    host.restore(snap);
    for (const [kind, f] of filters(net, eps, ns)) enumerate(host, kind, f);
    expect(enumerate(host, 'Endpoint', { Name: 'pod-a' })).toEqual([eps[0], eps[3]]);
    ok(host.api.HcnDeleteNamespace(ns));
    expect(enumerate(host, 'Namespace', { ID: ns })).toEqual([]);
  });
});
