/**
 * hcsshim hcn/hnsv1_test.go against the simulator, through `HNSCall(method, path, body)`: v1
 * networks, endpoints, host attach/detach, endpoint stats and the accelnet list (reference
 * hns-hcs.md §0.3, §3, §6.8). A v1 response is `{"Success","Error","Output"}`.
 */
import { describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/host.js';
import type { Json, JsonObject } from '../../src/core/json.js';
import { HcsshimFlow, isHostOf24, sameGuid } from './hcsshim-flow.js';
import {
  NAT_TEST_ENDPOINT_NAME,
  NAT_TEST_NETWORK_NAME,
  V1_ACCELNET_MACS,
  V1_HOST_ATTACH,
  V1_HOST_DETACH,
  v1TestEndpoint,
  v1TestNetwork,
} from './hcsshim-vectors.js';

/** v1 output uses upper-case GUIDs (reference §3.1, §6.16). */
const UPPER_GUID = /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/;

function flow(profile = 'ws2022'): HcsshimFlow {
  return new HcsshimFlow(createHost({ seed: 23, profile }));
}

/** `CreateTestNetwork()`: POST /networks/ with the v1 NAT document. */
function createTestNetwork(hcn: HcsshimFlow): JsonObject {
  const out = hcn.hnsCallOk('POST', '/networks/', v1TestNetwork()) as JsonObject;
  expect(out).toMatchObject({
    ID: expect.stringMatching(UPPER_GUID),
    Name: NAT_TEST_NETWORK_NAME,
    Subnets: [{ AddressPrefix: '192.168.100.0/24', GatewayAddress: '192.168.100.1' }],
  });
  return out;
}

/** `network.CreateEndpoint(&HNSEndpoint{Name})`: POST /endpoints/ with VirtualNetwork set. */
function createTestEndpoint(hcn: HcsshimFlow, networkId: string): JsonObject {
  const out = hcn.hnsCallOk('POST', '/endpoints/', v1TestEndpoint(networkId)) as JsonObject;
  expect(out).toMatchObject({
    ID: expect.stringMatching(UPPER_GUID),
    Name: NAT_TEST_ENDPOINT_NAME,
    VirtualNetwork: sameGuid(networkId),
  });
  expect(isHostOf24(out.IPAddress, '192.168.100'), String(out.IPAddress)).toBe(true);
  return out;
}

function idsOf(list: Json | undefined): string[] {
  expect(Array.isArray(list)).toBe(true);
  return (list as JsonObject[]).map((x) => String(x.ID));
}

describe('hcsshim hcn/hnsv1_test.go', () => {
  it('TestNetwork: POST /networks/ then DELETE /networks/<id>', () => {
    const hcn = flow();
    const body = v1TestNetwork();
    expect(JSON.stringify(body)).toBe(
      '{"Name":"GoTestNat","Type":"NAT","Subnets":[{"AddressPrefix":"192.168.100.0/24","GatewayAddress":"192.168.100.1"}]}',
    );
    const net = createTestNetwork(hcn);
    hcn.hnsCallOk('DELETE', `/networks/${String(net.ID)}`);
    expect(idsOf(hcn.hnsCallOk('GET', '/networks/'))).toEqual([]);
  });

  it('TestNetworkGetAll: GET /networks/', () => {
    const hcn = flow();
    expect(idsOf(hcn.hnsCallOk('GET', '/networks/'))).toEqual([]);
    const net = createTestNetwork(hcn);
    expect(idsOf(hcn.hnsCallOk('GET', '/networks/'))).toEqual([net.ID]);
  });

  it('TestEndpoint: create, HostAttach(1), HostDetach(), delete', () => {
    const hcn = flow();
    const net = createTestNetwork(hcn);
    const ep = createTestEndpoint(hcn, String(net.ID));
    const id = String(ep.ID);
    expect(JSON.stringify(V1_HOST_ATTACH)).toBe('{"SystemType":"Host","CompartmentId":1}');
    expect(hcn.hnsCall('POST', `/endpoints/${id}/attach`, V1_HOST_ATTACH)).toMatchObject({ Success: true });
    expect(hcn.hnsCall('POST', `/endpoints/${id}/detach`, V1_HOST_DETACH)).toMatchObject({ Success: true });
    hcn.hnsCallOk('DELETE', `/endpoints/${id}`);
    hcn.hnsCallOk('DELETE', `/networks/${String(net.ID)}`);
    expect(idsOf(hcn.hnsCallOk('GET', '/endpoints/'))).toEqual([]);
  });

  it('TestEndpointGetAll: GET /endpoints/', () => {
    const hcn = flow();
    expect(idsOf(hcn.hnsCallOk('GET', '/endpoints/'))).toEqual([]);
    const net = createTestNetwork(hcn);
    const ep = createTestEndpoint(hcn, String(net.ID));
    expect(idsOf(hcn.hnsCallOk('GET', '/endpoints/'))).toEqual([ep.ID]);
  });

  it('TestEndpointStatsAll: stats of every endpoint, then delete the network with its endpoint alive', () => {
    const hcn = flow();
    const net = createTestNetwork(hcn);
    createTestEndpoint(hcn, String(net.ID));
    const ids = idsOf(hcn.hnsCallOk('GET', '/endpoints/'));
    expect(ids).toHaveLength(1);
    for (const id of ids) {
      const stats = hcn.hnsCallOk('GET', `/endpointstats/${id}`) as JsonObject;
      expect(stats).toMatchObject({
        BytesReceived: expect.any(Number),
        BytesSent: expect.any(Number),
        DroppedPacketsIncoming: expect.any(Number),
        DroppedPacketsOutgoing: expect.any(Number),
        EndpointId: sameGuid(id),
        InstanceId: expect.any(String),
        PacketsReceived: expect.any(Number),
        PacketsSent: expect.any(Number),
      });
    }
    // reference §6.8: HNS allows deleting a network whose endpoint still exists [T]
    hcn.hnsCallOk('DELETE', `/networks/${String(net.ID)}`);
    expect(idsOf(hcn.hnsCallOk('GET', '/networks/'))).toEqual([]);
  });

  it('DELETE of a missing v1 endpoint: Success false, "The endpoint was not found." (reference §3.2 [O])', () => {
    const hcn = flow();
    const before = hcn.host.snapshot();
    const resp = hcn.hnsCall('DELETE', '/endpoints/5f0b1190-63be-4e0c-b974-bd0f55675a42');
    expect(resp.Success).toBe(false);
    expect(String(resp.Error)).toMatch(/^The endpoint was not found\./);
    expect(hcn.host.snapshot()).toEqual(before);
  });

  it('TestAccelnetNnvManagementMacAddresses on ws2025 (Accelnet needs HNS 15.4)', () => {
    const hcn = flow('ws2025');
    const net = createTestNetwork(hcn);
    const count = (out: Json | undefined): number =>
      (((out as JsonObject | undefined)?.MacAddressList as Json[] | undefined) ?? []).length;
    expect(count(hcn.hnsCallOk('POST', '/accelnet/', V1_ACCELNET_MACS))).toBe(2);
    expect(count(hcn.hnsCallOk('GET', '/accelnet/'))).toBe(2);
    expect(count(hcn.hnsCallOk('DELETE', '/accelnet/'))).toBe(0);
    expect(count(hcn.hnsCallOk('GET', '/accelnet/'))).toBe(0);
    hcn.hnsCallOk('DELETE', `/networks/${String(net.ID)}`);
  });

  it('accelnet is refused below HNS 15.4 and an empty list is refused', () => {
    const old = flow('ws2022');
    const r = old.hnsCall('GET', '/accelnet/');
    expect(r).toMatchObject({ Success: false, ErrorCode: 0x803b0015 | 0 });
    const hcn = flow('ws2025');
    expect(hcn.hnsCall('POST', '/accelnet/', { MacAddressList: [] })).toMatchObject({
      Success: false,
      ErrorCode: 0x80070057 | 0,
    });
  });
});
