// HostComputeRoute through the typed client (reference hns-hcs.md §1.5): AddRoute, silent delete and
// add/remove endpoint as delete + re-create.
import { describe, expect, it } from 'vitest';
import {
  HcnClientError,
  HostComputeRoute,
  isNotFoundError,
  RouteNotFoundError,
  type HostComputeEndpoint,
} from '../../../src/api/hcn/index.js';
import { overlayNetworkDoc, rejection, sentSettings, setup, type Fixture } from './helpers.js';

async function endpoints(f: Fixture, n: number): Promise<HostComputeEndpoint[]> {
  const net = await f.hcn.createNetwork(overlayNetworkDoc());
  const out: HostComputeEndpoint[] = [];
  for (let i = 0; i < n; i++) out.push(await net.createEndpoint({ Name: `ep${i}` }));
  return out;
}

describe('HostComputeRoute', () => {
  it("addRoute creates one Setting over the endpoints (TestAddRoute) and sends hcsshim's `Setting` key", async () => {
    const f = setup();
    const [a] = await endpoints(f, 1);
    const route = await f.hcn.addRoute([a!], '169.254.169.254/24', '127.10.0.33', false);
    expect(f.rec.methods().slice(-2)).toEqual(['HcnCreateSdnRoute', 'HcnQuerySdnRouteProperties']);
    expect(sentSettings(f.rec, 'HcnCreateSdnRoute', 1)).toEqual({
      HostComputeEndpoints: [a!.ID],
      Setting: [{ DestinationPrefix: '169.254.169.254/24', NextHop: '127.10.0.33' }],
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    expect(route).toBeInstanceOf(HostComputeRoute);
    expect(route.Setting).toEqual([
      { DestinationPrefix: '169.254.169.254/24', NextHop: '127.10.0.33', NeedEncap: false },
    ]);
    expect(route.HostComputeEndpoints).toEqual([a!.ID]);
    expect((await f.hcn.listRoutes()).map((r) => r.ID)).toEqual([route.ID]);
    expect((await f.hcn.getRouteByID(route.ID)).ID).toBe(route.ID);
  });

  it('addRoute with no endpoints: "missing endpoints", before any call', async () => {
    const f = setup();
    f.rec.clear();
    const e = await rejection(f.hcn.addRoute([], '10.0.0.0/8', '10.0.0.1', true));
    expect(e).toBeInstanceOf(HcnClientError);
    expect(e.message).toBe('missing endpoints');
    expect(f.rec.calls).toEqual([]);
  });

  it('delete succeeds silently when the route is already gone (lookup first)', async () => {
    const f = setup();
    const [a] = await endpoints(f, 1);
    const route = await f.hcn.addRoute([a!], '10.1.0.0/16', '192.168.100.1', true);
    f.rec.clear();
    await route.delete();
    expect(f.rec.methods()).toEqual([
      'HcnEnumerateSdnRoutes',
      'HcnQuerySdnRouteProperties',
      'HcnDeleteSdnRoute',
    ]);
    f.rec.clear();
    await route.delete();
    expect(f.rec.methods()).toEqual(['HcnEnumerateSdnRoutes']);
    await new HostComputeRoute(f.hcn, { ID: 'not-a-guid' }).delete();
  });

  it('addEndpoint / removeEndpoint delete and re-create (TestAddRemoveEndpoint)', async () => {
    const f = setup();
    const [a, b] = await endpoints(f, 2);
    const route = await f.hcn.createRoute({
      SchemaVersion: { Major: 2, Minor: 0 },
      Setting: [{ DestinationPrefix: '169.254.169.254/24', NextHop: '127.10.0.34' }],
      HostComputeEndpoints: [a!.ID],
    });
    const ops: string[] = [];
    f.host.events.on('hns.change', (e) => {
      if (e.kind === 'SdnRoute') ops.push(e.op);
    });
    const added = await route.addEndpoint(b!);
    expect(added.HostComputeEndpoints).toHaveLength(2);
    const removed = await route.removeEndpoint(b!);
    expect(removed.HostComputeEndpoints).toEqual([a!.ID]);
    expect(ops).toEqual(['delete', 'create', 'delete', 'create']);
    await route.delete();
    expect(await f.hcn.listRoutes()).toEqual([]);
  });

  it("removeEndpoint of an endpoint not in the list drops the first entry, as hcsshim's loop does", async () => {
    const f = setup();
    const [a, b, c] = await endpoints(f, 3);
    const route = await f.hcn.addRoute([a!, b!], '10.2.0.0/16', '192.168.100.1', false);
    const after = await route.removeEndpoint(c!);
    expect(after.HostComputeEndpoints).toEqual([b!.ID]);
  });

  it('missing: RouteNotFoundError "SDN Route \\"…\\" not found"', async () => {
    const f = setup();
    const e = await rejection(f.hcn.getRouteByID('5f0b1190-63be-4e0c-b974-bd0f55675a42'));
    expect(e).toBeInstanceOf(RouteNotFoundError);
    expect(e.message).toBe('SDN Route "5f0b1190-63be-4e0c-b974-bd0f55675a42" not found');
    expect(isNotFoundError(e)).toBe(true);
    expect((await f.hcn.listRoutesQuery({ SchemaVersion: { Major: 2, Minor: 0 } })).length).toBe(0);
  });
});
