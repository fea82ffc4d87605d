/**
 * hcsshim hcn/hcnnetwork_test.go against the simulator: NAT (with and without a subnet), Overlay
 * (VSID 5000, Flags 8), L2Bridge, lookups by name and ID, and network policy add/remove
 * (reference hns-hcs.md §1.1, §2.1, §2.3, §6.6, §6.11, §6.14).
 */
import { describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/host.js';
import { parsePrefix } from '../../src/addr/ip.js';
import type { JsonObject } from '../../src/core/json.js';
import { anyGuid, DEFAULT_QUERY, filterQuery, goView, HcsshimFlow, sameGuid } from './hcsshim-flow.js';
import {
  hostRouteRequest,
  l2BridgeNetwork,
  natNetwork,
  NAT_TEST_NETWORK_NAME,
  networkAclRequest,
  overlayNetwork,
  policyModify,
  remoteSubnetRouteRequest,
} from './hcsshim-vectors.js';

const TEST_MAC_POOL = {
  Ranges: [{ StartMacAddress: '00-15-5D-52-C0-00', EndMacAddress: '00-15-5D-52-CF-FF' }],
};
const DEFAULT_SUBNET_VIEW = {
  IpAddressPrefix: '192.168.100.0/24',
  Routes: [{ NextHop: '192.168.100.1', DestinationPrefix: '0.0.0.0/0' }],
};

/** The node's NIC: Overlay networks report its address as their ProviderAddress. */
const HOST_NIC = { name: 'Ethernet', ipAddress: '10.1.0.5/24', gateway: '10.1.0.1' };
const DR_MAC = /^00-15-5D-[0-9A-F]{2}-[0-9A-F]{2}-[0-9A-F]{2}$/;

function flow(profile = 'ws2022'): HcsshimFlow {
  return new HcsshimFlow(createHost({ seed: 7, profile, adapters: [HOST_NIC] }));
}

/**
 * The network as hcsshim sees it, with the HNS-chosen Health.Extra checked separately: each of these
 * networks is the first on its switch, so its SwitchGuid is its own ID (docs/model.md, ncproxy).
 */
function networkView(net: JsonObject): JsonObject {
  const v = goView('HostComputeNetwork', net);
  expect(v.Health).toEqual({ Extra: expect.objectContaining({ SwitchGuid: sameGuid(String(net.ID)) }) });
  const { Health: _h, ...rest } = v;
  return rest;
}

describe('hcsshim hcn/hcnnetwork_test.go', () => {
  it('TestCreateDeleteNetworks: HcnCreateTestNATNetwork', () => {
    const hcn = flow();
    const net = hcn.createNetwork(natNetwork());
    expect(networkView(net)).toEqual({
      ID: anyGuid(),
      Name: NAT_TEST_NETWORK_NAME,
      MacPool: TEST_MAC_POOL,
      Dns: {},
      Ipams: [{ Type: 'Static', Subnets: [DEFAULT_SUBNET_VIEW] }],
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    // HNS omits Type for NAT (enum 0) and zero Flags (reference §1.1, §9.2)
    expect(net).not.toHaveProperty('Type');
    expect(net).not.toHaveProperty('Flags');
    hcn.delete('Network', String(net.ID));
    expect(hcn.byName('Network', NAT_TEST_NETWORK_NAME)).toEqual([]);
    expect(hcn.enumerate('Network')).toEqual([]);
  });

  it('TestCreateDeleteNetworks: HcnCreateTestNATNetworkWithSubnet(nil) (HNS chooses a subnet)', () => {
    const hcn = flow();
    const doc = natNetwork(null);
    expect(doc).not.toHaveProperty('Ipams');
    const net = hcn.createNetwork(doc);
    const { Ipams, ...rest } = networkView(net);
    expect(rest).toEqual({
      ID: anyGuid(),
      Name: NAT_TEST_NETWORK_NAME,
      MacPool: TEST_MAC_POOL,
      Dns: {},
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    // reference §6.6: a NAT network without Ipams is valid; HNS picks the subnet
    const subnets = (Ipams as JsonObject[]).flatMap((i) => (i.Subnets as JsonObject[] | undefined) ?? []);
    expect(subnets.length).toBeGreaterThan(0);
    expect(parsePrefix(String(subnets[0]!.IpAddressPrefix), true)).toBeDefined();
    hcn.delete('Network', String(net.ID));
    expect(hcn.enumerate('Network')).toEqual([]);
  });

  it('TestGetNetworkByName', () => {
    const hcn = flow();
    const net = hcn.createNetwork(natNetwork());
    const found = hcn.byName('Network', NAT_TEST_NETWORK_NAME);
    expect(found).toEqual([net]);
    hcn.delete('Network', String(net.ID));
  });

  it('TestGetNetworkById', () => {
    const hcn = flow();
    const net = hcn.createNetwork(natNetwork());
    expect(hcn.byId('Network', String(net.ID))).toEqual([net]);
    // the filter GUID matches in any case (reference §6.16)
    expect(hcn.byId('Network', String(net.ID).toLowerCase())).toEqual([net]);
    hcn.delete('Network', String(net.ID));
  });

  it('TestListNetwork', () => {
    const hcn = flow();
    expect(hcn.list('Network')).toEqual([]);
    const nat = hcn.createNetwork(natNetwork());
    expect(hcn.list('Network')).toEqual([nat]);
  });

  it('CreateTestOverlayNetwork: VSID 5000 subnet policy and Flags 8 round-trip', () => {
    const hcn = flow();
    const net = hcn.createNetwork(overlayNetwork());
    expect(networkView(net)).toEqual({
      ID: anyGuid(),
      Name: 'GoTestOverlay',
      Type: 'Overlay',
      // HNS adds the management IP as ProviderAddress and a distributed-router MAC (vfp-dataplane.md §5)
      Policies: [
        { Type: 'ProviderAddress', Settings: { ProviderAddress: '10.1.0.5' } },
        { Type: 'DrMacAddress', Settings: { Address: expect.stringMatching(DR_MAC) } },
      ],
      MacPool: TEST_MAC_POOL,
      Dns: {},
      Ipams: [
        {
          Type: 'Static',
          Subnets: [
            { ...DEFAULT_SUBNET_VIEW, Policies: [{ Type: 'VSID', Settings: { IsolationId: 5000 } }] },
          ],
        },
      ],
      Flags: 8,
      SchemaVersion: { Major: 2, Minor: 0 },
    });
  });

  it('HcnCreateTestL2BridgeNetwork: L2Bridge with Flags 8', () => {
    const hcn = flow();
    const net = hcn.createNetwork(l2BridgeNetwork());
    expect(networkView(net)).toEqual({
      ID: anyGuid(),
      Name: 'GoTestL2Bridge',
      Type: 'L2Bridge',
      MacPool: TEST_MAC_POOL,
      Dns: {},
      Ipams: [{ Type: 'Static', Subnets: [DEFAULT_SUBNET_VIEW] }],
      Flags: 8,
      SchemaVersion: { Major: 2, Minor: 0 },
    });
  });

  it('TestNetworkFlags: the re-read overlay network has EnableNonPersistent (8)', () => {
    const hcn = flow();
    const net = hcn.createNetwork(overlayNetwork());
    const [reloaded] = hcn.byId('Network', String(net.ID));
    expect(Number(reloaded!.Flags) & 8).toBe(8);
  });

  /** testNetworkPolicy: AddPolicy on an overlay network, re-read, RemovePolicy, re-read. */
  function testNetworkPolicy(profile: string, request: JsonObject): void {
    const hcn = flow(profile);
    const net = hcn.createNetwork(overlayNetwork());
    const id = String(net.ID);
    const sent = request.Policies as JsonObject[];

    const hnsAdded = net.Policies as JsonObject[];
    expect(hnsAdded.map((p) => p.Type)).toEqual(['ProviderAddress', 'DrMacAddress']);
    hcn.modifyNetwork(id, policyModify('Add', request));
    const [added] = hcn.byId('Network', id);
    // the caller's policies, then what HNS reports about the adapter
    expect(added!.Policies).toEqual([...sent, ...hnsAdded]);

    hcn.modifyNetwork(id, policyModify('Remove', request));
    const [removed] = hcn.byId('Network', id);
    const types = ((removed!.Policies as JsonObject[] | undefined) ?? []).map((p) => p.Type);
    for (const p of sent) expect(types).not.toContain(p.Type);

    hcn.delete('Network', id);
  }

  it('TestAddRemoveRemoteSubnetRoutePolicy (reference §2.3 body)', () => {
    const req = policyModify('Add', remoteSubnetRouteRequest());
    expect(JSON.stringify(req)).toBe(
      '{"ResourceType":"Policy","RequestType":"Add","Settings":{"Policies":[{"Type":"RemoteSubnetRoute","Settings":' +
        '{"DestinationPrefix":"192.168.2.0/24","IsolationId":5000,"ProviderAddress":"1.1.1.1",' +
        '"DistributedRouterMacAddress":"00-12-34-56-78-9a"}}]}}',
    );
    testNetworkPolicy('ws2022', remoteSubnetRouteRequest());
  });

  it('TestAddRemoveHostRoutePolicy (reference §2.3 body)', () => {
    expect(JSON.stringify(policyModify('Remove', hostRouteRequest()))).toBe(
      '{"ResourceType":"Policy","RequestType":"Remove","Settings":{"Policies":[{"Type":"HostRoute","Settings":{}}]}}',
    );
    testNetworkPolicy('ws2022', hostRouteRequest());
  });

  it.each(['ws2022', 'ws2025'])(
    'TestAddRemoveNetworACLPolicy on %s (NetworkACL needs HNS 15.0)',
    (profile) => {
      testNetworkPolicy(profile, networkAclRequest());
    },
  );

  it('network lookups use hcsshim query strings exactly', () => {
    expect(DEFAULT_QUERY).toBe('{"SchemaVersion":{"Major":2,"Minor":0}}');
    expect(filterQuery({ Name: NAT_TEST_NETWORK_NAME })).toBe(
      '{"SchemaVersion":{"Major":2,"Minor":0},"Filter":"{\\"Name\\":\\"GoTestNat\\"}"}',
    );
  });
});
