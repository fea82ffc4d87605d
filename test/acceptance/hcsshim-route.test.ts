/**
 * hcsshim hcn/hcnroute_test.go against the simulator: SDN routes created with hcsshim's `Setting`
 * key (and the schema's `Routes` key), lookups, and hcsshim's delete-and-recreate
 * AddEndpoint/RemoveEndpoint (reference hns-hcs.md §1.5, §9.4).
 */
import { describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/host.js';
import type { JsonObject } from '../../src/core/json.js';
import { anyGuid, goView, HcsshimFlow, sameGuid } from './hcsshim-flow.js';
import { addRouteDoc, overlayNetwork, testEndpoint, testSdnRoute } from './hcsshim-vectors.js';

function setup() {
  const hcn = new HcsshimFlow(createHost({ seed: 17, profile: 'ws2022' }));
  const netId = String(hcn.createNetwork(overlayNetwork()).ID);
  const epId = String(hcn.createEndpoint(netId, testEndpoint(netId)).ID);
  return { hcn, netId, epId };
}

function endpointsOf(route: JsonObject): string[] {
  return (route.HostComputeEndpoints as string[] | undefined) ?? [];
}

/** hcsshim's `route.Delete()`: GetRouteByID first, delete only if found (reference §1.5 [C]). */
function hcsshimRouteDelete(hcn: HcsshimFlow, id: string): void {
  if (hcn.byId('SdnRoute', id).length) hcn.delete('SdnRoute', id);
}

describe('hcsshim hcn/hcnroute_test.go', () => {
  it('TestCreateDeleteRoute: HcnCreateTestSdnRoute with Setting', () => {
    const { hcn, netId, epId } = setup();
    const doc = testSdnRoute([epId]);
    expect(JSON.stringify(doc)).toBe(
      `{"HostComputeEndpoints":["${epId}"],"Setting":[{"DestinationPrefix":"169.254.169.254/24",` +
        '"NextHop":"127.10.0.34"}],"SchemaVersion":{"Major":2,"Minor":0}}',
    );
    const route = hcn.createRoute(doc);
    expect(goView('HostComputeRoute', route)).toEqual({
      ID: anyGuid(),
      HostComputeEndpoints: [sameGuid(epId)],
      Setting: [{ DestinationPrefix: '169.254.169.254/24', NextHop: '127.10.0.34' }],
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    hcsshimRouteDelete(hcn, String(route.ID));
    expect(hcn.byId('SdnRoute', String(route.ID))).toEqual([]);
    hcn.delete('Endpoint', epId);
    hcn.delete('Network', netId);
  });

  it('SDN route documents with the schema key Routes are accepted; hcsshim reads Setting back', () => {
    const { hcn, epId } = setup();
    const { Setting, ...rest } = testSdnRoute([epId]);
    const route = hcn.createRoute({ ...rest, Routes: Setting! });
    expect(goView('HostComputeRoute', route)).toEqual({
      ID: anyGuid(),
      HostComputeEndpoints: [sameGuid(epId)],
      Setting: [{ DestinationPrefix: '169.254.169.254/24', NextHop: '127.10.0.34' }],
      SchemaVersion: { Major: 2, Minor: 0 },
    });
  });

  it('TestGetRouteById', () => {
    const { hcn, epId } = setup();
    const route = hcn.createRoute(testSdnRoute([epId]));
    expect(hcn.byId('SdnRoute', String(route.ID))).toEqual([route]);
  });

  it('TestListRoutes', () => {
    const { hcn, epId } = setup();
    expect(hcn.list('SdnRoute')).toEqual([]);
    const route = hcn.createRoute(testSdnRoute([epId]));
    expect(hcn.list('SdnRoute')).toEqual([route]);
  });

  it('TestRouteAddRemoveEndpoint: delete and re-create with 2, then 1 endpoints', () => {
    const { hcn, netId, epId } = setup();
    // hcsshim's in-memory `route`, mutated in place by AddEndpoint/RemoveEndpoint
    const route: JsonObject = { ...hcn.createRoute(testSdnRoute([epId])) };
    const second = String(hcn.createEndpoint(netId, testEndpoint(netId)).ID);

    hcsshimRouteDelete(hcn, String(route.ID));
    route.HostComputeEndpoints = [...endpointsOf(route), second];
    const added = hcn.createRoute(route);
    expect(endpointsOf(added)).toHaveLength(2);

    hcsshimRouteDelete(hcn, String(route.ID));
    route.HostComputeEndpoints = endpointsOf(route).filter((id) => id !== second);
    const removed = hcn.createRoute(route);
    expect(endpointsOf(removed)).toHaveLength(1);

    hcsshimRouteDelete(hcn, String(route.ID));
    hcn.delete('Endpoint', second);
    hcn.delete('Endpoint', epId);
    hcn.delete('Network', netId);
    expect(hcn.enumerate('SdnRoute')).toEqual([]);
  });

  it('TestAddRoute: AddRoute(endpoints, "169.254.169.254/24", "127.10.0.33", false)', () => {
    const { hcn, epId } = setup();
    const route = hcn.createRoute(addRouteDoc([epId]));
    expect(goView('HostComputeRoute', route).Setting).toEqual([
      { DestinationPrefix: '169.254.169.254/24', NextHop: '127.10.0.33' },
    ]);
    expect(hcn.byId('SdnRoute', String(route.ID))).toEqual([route]);
  });
});
