// The compute-system record as a snapshot writes it: the key order is the record's, so a change of
// how records are built must not move a key. A created system has no `started`; a started one has
// it last, after `seq` (where a copy that adds it puts it); a system restored from a snapshot taken
// while it was Created starts and stops the same; terminate and close leave the same text.
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import { createHost, type Host } from '../../src/host/host.js';

function ok<T>(r: { ok: true; result: T } | { ok: false; message: string }): T {
  if (!r.ok) throw new Error(r.message);
  return r.result;
}

function systemKeys(host: Host): string[][] {
  const snap = host.snapshot() as unknown as { hcs: { systems: JsonObject[] } };
  return snap.hcs.systems.map((s) => Object.keys(s));
}

const CREATED = [
  'id',
  'name',
  'owner',
  'systemType',
  'isolation',
  'schema',
  'document',
  'state',
  'exitType',
  'exitStatus',
  'networking',
  'terminateOnLastHandleClosed',
  'runtimeId',
  'nics',
  'v1Endpoints',
  'guestAdapters',
  'created',
  'seq',
];

function node(): { host: Host; ns: string } {
  const host = createHost({ seed: 5 });
  const ns = ok(host.api.HcnCreateNamespace(null, {})).ID;
  return { host, ns };
}

function create(host: Host, id: string, ns: string): void {
  ok(
    host.api.HcsCreateComputeSystem(id, {
      Owner: 'test',
      SchemaVersion: { Major: 2, Minor: 1 },
      Container: { Networking: { Namespace: ns } },
      ShouldTerminateOnLastHandleClosed: true,
    }),
  );
}

describe('compute-system records in a snapshot', () => {
  it('a created system has no started; a started one has it last; a stopped one keeps it', () => {
    const { host, ns } = node();
    create(host, 'c1', ns);
    expect(systemKeys(host)).toEqual([CREATED]);
    expect('started' in host.hcs.get('c1') && host.hcs.get('c1').started === undefined).toBe(true);
    ok(host.api.HcsStartComputeSystem('c1', ''));
    expect(systemKeys(host)).toEqual([[...CREATED, 'started']]);
    ok(host.api.HcsTerminateComputeSystem('c1', ''));
    expect(systemKeys(host)).toEqual([[...CREATED, 'started']]);
    expect(host.hcs.get('c1').state).toBe('Stopped');
  });

  it('restored while Created, a system starts into the same record text as one never restored', () => {
    const a = node();
    create(a.host, 'c1', a.ns);
    const b = node();
    b.host.restore(a.host.snapshot());
    for (const h of [a.host, b.host]) ok(h.api.HcsStartComputeSystem('c1', ''));
    expect(JSON.stringify(b.host.snapshot())).toBe(JSON.stringify(a.host.snapshot()));
    expect(systemKeys(b.host)).toEqual([[...CREATED, 'started']]);
    for (const h of [a.host, b.host]) ok(h.api.HcsCloseComputeSystem('c1'));
    expect(JSON.stringify(b.host.snapshot())).toBe(JSON.stringify(a.host.snapshot()));
  });
});

describe('HNS records built key by key', () => {
  it('routes keep NextHop, DestinationPrefix, dest, nextHop, Metric in that order; dest has no host', () => {
    const { host } = node();
    const net = ok(
      host.api.HcnCreateNetwork(null, {
        Name: 'n',
        Type: 'L2Bridge',
        Ipams: [{ Type: 'Static', Subnets: [{ IpAddressPrefix: '10.1.0.0/24' }] }],
      }),
    ).ID;
    const ep = ok(
      host.api.HcnCreateEndpoint(net, null, {
        HostComputeNetwork: net,
        Routes: [
          { NextHop: '10.1.0.1', DestinationPrefix: '0.0.0.0/0', Metric: 5 },
          { DestinationPrefix: '10.2.0.7/16' },
          { NextHop: '10.1.0.1', DestinationPrefix: '10.3.0.0/16' },
          { DestinationPrefix: '10.4.0.0/16', Metric: 2 },
        ],
        Dns: { Domain: 'corp', ServerList: ['10.1.0.10'] },
      }),
    ).ID;
    const rec = host.hns.store.endpoints.get(ep)!;
    expect(rec.Routes.map((r) => Object.keys(r))).toEqual([
      ['NextHop', 'DestinationPrefix', 'dest', 'nextHop', 'Metric'],
      ['NextHop', 'DestinationPrefix', 'dest'],
      ['NextHop', 'DestinationPrefix', 'dest', 'nextHop'],
      ['NextHop', 'DestinationPrefix', 'dest', 'Metric'],
    ]);
    expect(rec.Routes[1]!.dest).toStrictEqual({ family: 4, addr: (10 << 24) | (2 << 16), len: 16 });
    expect(Object.keys(rec.Dns)).toEqual(['Search', 'ServerList', 'Options', 'Domain']);
    expect(rec.IpConfigurations.map((c) => Object.keys(c))).toEqual([
      ['IpAddress', 'PrefixLength', 'addr', 'pooled', 'subnet'],
    ]);
  });

  it('an address given by the caller keeps the draft keys, then pooled and subnet', () => {
    const { host } = node();
    const net = ok(
      host.api.HcnCreateNetwork(null, {
        Name: 'n',
        Type: 'L2Bridge',
        Ipams: [{ Type: 'Static', Subnets: [{ IpAddressPrefix: '10.1.0.0/24' }] }],
      }),
    ).ID;
    const ep = ok(
      host.api.HcnCreateEndpoint(net, null, {
        HostComputeNetwork: net,
        IpConfigurations: [{ IpAddress: '10.1.0.9' }],
      }),
    ).ID;
    const c = host.hns.store.endpoints.get(ep)!.IpConfigurations[0]!;
    expect(Object.keys(c)).toEqual(['IpAddress', 'PrefixLength', 'IpSubnetId', 'addr', 'pooled', 'subnet']);
    expect(c).toMatchObject({ IpAddress: '10.1.0.9', PrefixLength: 24, pooled: true, subnet: 0 });
    expect(c.IpSubnetId).toBeUndefined();
  });
});
