// The HNS service rules of reference hns-hcs.md §6 and docs/model.md, through the flat API.
import { describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../src/host/host.js';
import type { HcnResult } from '../../src/api/flat.js';
import type { Json, JsonObject } from '../../src/core/json.js';

function ok<T>(r: HcnResult<T>): T {
  if (!r.ok) throw new Error(`expected success, got ${r.name}: ${r.message}`);
  return r.result;
}
function fails<T>(host: Host, r: () => HcnResult<T>, name: string, hr?: number): void {
  const before = JSON.stringify(host.snapshot());
  const res = r();
  expect(res.ok ? 'success' : res.name).toBe(name);
  if (hr !== undefined) expect(res.hr).toBe(hr);
  expect(JSON.stringify(host.snapshot())).toBe(before);
}

const subnet = (prefix: string, gw: string, extra: JsonObject = {}): JsonObject => ({
  IpAddressPrefix: prefix,
  Routes: [{ NextHop: gw, DestinationPrefix: prefix.includes(':') ? '::/0' : '0.0.0.0/0' }],
  ...extra,
});
const netDoc = (name: string, subnets: JsonObject[], extra: JsonObject = {}): string =>
  JSON.stringify({ Name: name, Type: 'NAT', Ipams: [{ Type: 'Static', Subnets: subnets }], ...extra });

function setup(profile = 'ws2022') {
  const host = createHost({ seed: 42, profile });
  const net = ok(
    host.api.HcnCreateNetwork(null, netDoc('nat', [subnet('192.168.100.0/24', '192.168.100.1')])),
  );
  return { host, netId: net.ID as string };
}

describe('addressing', () => {
  it('reserves the gateway: the first endpoint gets .2, then .3', () => {
    const { host, netId } = setup();
    const a = ok(host.api.HcnCreateEndpoint(netId, null, '{"Name":"a"}'));
    const b = ok(host.api.HcnCreateEndpoint(netId, null, '{"Name":"b"}'));
    expect(a.IpConfigurations).toEqual([{ IpAddress: '192.168.100.2', PrefixLength: 24 }]);
    expect(b.IpConfigurations).toEqual([{ IpAddress: '192.168.100.3', PrefixLength: 24 }]);
    expect(a.Routes).toEqual([{ NextHop: '192.168.100.1', DestinationPrefix: '0.0.0.0/0' }]);
  });

  it('hands out the gateway address when the subnet says DoNotReserveGatewayAddress', () => {
    const host = createHost({ seed: 1 });
    const net = ok(
      host.api.HcnCreateNetwork(null, netDoc('n', [subnet('10.1.0.0/24', '10.1.0.1', { Flags: 1 })])),
    );
    const a = ok(host.api.HcnCreateEndpoint(net.ID, null, '{}'));
    expect(a.IpConfigurations).toEqual([{ IpAddress: '10.1.0.1', PrefixLength: 24 }]);
  });

  it('keeps explicit IpConfigurations verbatim on a dual-stack network (lcow_networking_test vector)', () => {
    const host = createHost({ seed: 1 });
    const net = ok(
      host.api.HcnCreateNetwork(
        null,
        netDoc('dual', [subnet('192.168.128.0/20', '192.168.128.1'), subnet('fd00::100/120', 'fd00::101')]),
      ),
    );
    const ep = ok(
      host.api.HcnCreateEndpoint(
        net.ID,
        null,
        JSON.stringify({
          IpConfigurations: [
            { IpAddress: '192.168.128.4', PrefixLength: 20 },
            { IpAddress: 'fd00::106', PrefixLength: 120 },
          ],
        }),
      ),
    );
    expect(ep.IpConfigurations).toEqual([
      { IpAddress: '192.168.128.4', PrefixLength: 20 },
      { IpAddress: 'fd00::106', PrefixLength: 120 },
    ]);
    // auto allocation gives one address per family, skipping the explicit ones' neighbours in order
    const auto = ok(host.api.HcnCreateEndpoint(net.ID, null, '{}'));
    expect(auto.IpConfigurations).toEqual([
      { IpAddress: '192.168.128.2', PrefixLength: 20 },
      { IpAddress: 'fd00::102', PrefixLength: 120 },
    ]);
  });

  it('rejects addresses outside every subnet, reserved or in use, and leaves the state unchanged', () => {
    const { host, netId } = setup();
    const ip = (a: string) => JSON.stringify({ IpConfigurations: [{ IpAddress: a }] });
    fails(
      host,
      () => host.api.HcnCreateEndpoint(netId, null, ip('10.9.9.9')),
      'HCN_E_INVALID_IP',
      0x803b001e,
    );
    fails(host, () => host.api.HcnCreateEndpoint(netId, null, ip('not-an-ip')), 'HCN_E_INVALID_IP');
    fails(
      host,
      () => host.api.HcnCreateEndpoint(netId, null, ip('192.168.100.1')),
      'HCN_E_ADDR_INVALID_OR_RESERVED',
      0x803b002f,
    );
    fails(
      host,
      () => host.api.HcnCreateEndpoint(netId, null, ip('192.168.100.255')),
      'HCN_E_ADDR_INVALID_OR_RESERVED',
    );
    ok(host.api.HcnCreateEndpoint(netId, null, ip('192.168.100.50')));
    fails(
      host,
      () => host.api.HcnCreateEndpoint(netId, null, ip('192.168.100.50')),
      'ERROR_OBJECT_ALREADY_EXISTS',
      0x80071392,
    );
  });

  it('returns addresses and MACs to the pools on delete', () => {
    const { host, netId } = setup();
    const a = ok(host.api.HcnCreateEndpoint(netId, null, '{}'));
    ok(host.api.HcnDeleteEndpoint(a.ID));
    const b = ok(host.api.HcnCreateEndpoint(netId, null, '{}'));
    expect(b.IpConfigurations).toEqual(a.IpConfigurations);
    expect(b.MacAddress).toBe(a.MacAddress);
  });

  it('exhausts a small subnet with HCN_E_SUBNET_NOT_FOUND', () => {
    const host = createHost({ seed: 1 });
    const net = ok(host.api.HcnCreateNetwork(null, netDoc('tiny', [subnet('10.0.0.0/30', '10.0.0.1')])));
    ok(host.api.HcnCreateEndpoint(net.ID, null, '{}')); // .2 is the only free one
    fails(host, () => host.api.HcnCreateEndpoint(net.ID, null, '{}'), 'HCN_E_SUBNET_NOT_FOUND', 0x803b0005);
  });

  it('gives a NAT network without Ipams a default /20 with a gateway and a MAC pool in the Hyper-V OUI', () => {
    const host = createHost({ seed: 3 });
    const n = ok(host.api.HcnCreateNetwork(null, '{"Name":"natnosubnet","Type":"NAT"}'));
    expect(n.Type).toBeUndefined(); // NAT is the zero enum: omitted
    const sub = (n.Ipams as JsonObject[])[0]!.Subnets as JsonObject[];
    expect(sub[0]!.IpAddressPrefix).toMatch(/^172\.(1[6-9]|2\d|3[01])\.\d+\.0\/20$/);
    const mp = (n.MacPool as { Ranges: { StartMacAddress: string; EndMacAddress: string }[] }).Ranges[0]!;
    expect(mp.StartMacAddress).toMatch(/^00-15-5D-[0-9A-F]{2}-[0-9A-F]0-00$/);
    expect(mp.EndMacAddress).toMatch(/^00-15-5D-[0-9A-F]{2}-[0-9A-F]F-FF$/);
    const ep = ok(host.api.HcnCreateEndpoint(n.ID, null, '{}'));
    expect(ep.MacAddress).toBe(mp.StartMacAddress);
    // a second default network does not overlap the first
    const n2 = ok(host.api.HcnCreateNetwork(null, '{"Name":"second"}'));
    const sub2 = ((n2.Ipams as JsonObject[])[0]!.Subnets as JsonObject[])[0]!.IpAddressPrefix;
    expect(sub2).not.toBe(sub[0]!.IpAddressPrefix);
  });

  // This test used to assert a refusal (HCN_E_INVALID_SUBNET, "IPv6 subnets need HNS 11.10"). It
  // changed because that gate was hcsshim's client-side IPv6DualStackSupported range applied by the
  // service: hcsshim's ncproxy tests create the dual-stack NAT network of createTestDualStackNATNetwork
  // and endpoints on it without any feature check, and ran in CI on windows-2019 (docs/model.md).
  it('accepts IPv6 subnets and dual-stack endpoints on Windows Server 2019 (HNS 9.5)', () => {
    const host = createHost({ seed: 1, profile: 'ws2019' });
    const net = ok(
      host.api.HcnCreateNetwork(
        null,
        netDoc('dual', [
          subnet('192.168.100.0/24', '192.168.100.1'),
          subnet('2001:db8:abcd:0012::0/64', '2001:db8:abcd:0012::1'),
        ]),
      ),
    );
    const auto = ok(host.api.HcnCreateEndpoint(net.ID, null, '{"Name":"auto"}'));
    expect(auto.IpConfigurations).toEqual([
      { IpAddress: '192.168.100.2', PrefixLength: 24 },
      { IpAddress: '2001:db8:abcd:12::2', PrefixLength: 64 }, // ::1 is the reserved gateway
    ]);
    const given = ok(
      host.api.HcnCreateEndpoint(
        net.ID,
        null,
        JSON.stringify({
          IpConfigurations: [
            { IpAddress: '192.168.100.5', PrefixLength: 24 },
            { IpAddress: '2001:db8:abcd:0012::3', PrefixLength: 64 },
          ],
        }),
      ),
    );
    expect(given.IpConfigurations).toEqual([
      { IpAddress: '192.168.100.5', PrefixLength: 24 },
      { IpAddress: '2001:db8:abcd:0012::3', PrefixLength: 64 },
    ]);
    // an IPv6-only network too
    ok(host.api.HcnCreateNetwork(null, netDoc('v6', [subnet('fd00::/64', 'fd00::1')])));
  });

  it('keeps the IPv6 load balancer flag (Flags 2) for HNS 11.10: E_INVALIDARG on ws2019', () => {
    const { host, netId } = setup('ws2019');
    const ep = ok(host.api.HcnCreateEndpoint(netId, null, '{}'));
    const lb = (flags: number) =>
      JSON.stringify({
        HostComputeEndpoints: [ep.ID],
        FrontendVIPs: ['10.96.0.10'],
        PortMappings: [{ Protocol: 6, InternalPort: 80, ExternalPort: 80 }],
        Flags: flags,
      });
    fails(host, () => host.api.HcnCreateLoadBalancer(null, lb(2)), 'E_INVALIDARG', 0x80070057);
    ok(host.api.HcnCreateLoadBalancer(null, lb(0)));
  });
});

describe('networks', () => {
  it('keeps names unique (case-insensitively) with HCN_E_NETWORK_ALREADY_EXISTS', () => {
    const { host } = setup();
    fails(
      host,
      () => host.api.HcnCreateNetwork(null, '{"Name":"NAT"}'),
      'HCN_E_NETWORK_ALREADY_EXISTS',
      0x803b0010,
    );
  });

  it('rejects unknown types, bad prefixes and version-gated flags', () => {
    const host = createHost({ seed: 1 });
    fails(
      host,
      () => host.api.HcnCreateNetwork(null, '{"Name":"x","Type":"Bogus"}'),
      'HCN_E_INVALID_NETWORK_TYPE',
      0x803b000b,
    );
    fails(
      host,
      () => host.api.HcnCreateNetwork(null, netDoc('x', [subnet('10.0.0.1/24', '10.0.0.1')])),
      'HCN_E_INVALID_PREFIX',
    );
    fails(host, () => host.api.HcnCreateNetwork(null, '{"Name":"x","Flags":1024}'), 'HCN_E_INVALID_NETWORK');
    const ws2025 = createHost({ seed: 1, profile: 'ws2025' });
    expect(ok(ws2025.api.HcnCreateNetwork(null, '{"Name":"x","Flags":1024}')).Flags).toBe(1024);
  });

  it('emits every network type but NAT, and accepts them case-insensitively', () => {
    const host = createHost({ seed: 1, profile: 'ws2025' });
    for (const t of [
      'ICS',
      'Transparent',
      'L2Bridge',
      'L2Tunnel',
      'Overlay',
      'Private',
      'Internal',
      'Mirrored',
    ]) {
      const n = ok(host.api.HcnCreateNetwork(null, JSON.stringify({ Name: t, Type: t.toLowerCase() })));
      expect(n.Type).toBe(t);
    }
  });

  it('cascades a network delete to its endpoints, which leave their namespace', () => {
    const { host, netId } = setup();
    const ep = ok(host.api.HcnCreateEndpoint(netId, null, '{}'));
    const ns = ok(host.api.HcnCreateNamespace(null, '{}'));
    ok(
      host.api.HcnModifyNamespace(
        ns.ID,
        JSON.stringify({ ResourceType: 'Endpoint', RequestType: 'Add', Settings: { EndpointId: ep.ID } }),
      ),
    );
    ok(host.api.HcnDeleteNetwork(netId));
    expect(ok(host.api.HcnEnumerateEndpoints(''))).toEqual([]);
    expect(ok(host.api.HcnQueryNamespaceProperties(ns.ID, '')).Resources).toBeUndefined();
  });

  it('adds and removes network policies, and refuses a duplicate Add or a missing Remove', () => {
    const { host, netId } = setup();
    const req = (t: string, p: Json) =>
      JSON.stringify({ ResourceType: 'Policy', RequestType: t, Settings: { Policies: [p] } });
    ok(host.api.HcnModifyNetwork(netId, req('Add', { Type: 'HostRoute', Settings: {} })));
    expect(ok(host.api.HcnQueryNetworkProperties(netId, '')).Policies).toEqual([
      { Type: 'HostRoute', Settings: {} },
    ]);
    fails(
      host,
      () => host.api.HcnModifyNetwork(netId, req('Add', { Type: 'HostRoute', Settings: {} })),
      'HCN_E_POLICY_ALREADY_EXISTS',
    );
    ok(host.api.HcnModifyNetwork(netId, req('Remove', { Type: 'HostRoute', Settings: {} })));
    expect(ok(host.api.HcnQueryNetworkProperties(netId, '')).Policies).toBeUndefined();
    fails(
      host,
      () => host.api.HcnModifyNetwork(netId, req('Remove', { Type: 'HostRoute', Settings: {} })),
      'HCN_E_POLICY_NOT_FOUND',
    );
    fails(
      host,
      () => host.api.HcnModifyNetwork(netId, req('Add', { Type: 'NoSuchPolicy', Settings: {} })),
      'HCN_E_INVALID_POLICY_TYPE',
    );
    fails(
      host,
      () => host.api.HcnModifyNetwork(netId, '{"ResourceType":"Bogus","RequestType":"Add"}'),
      'HCN_E_REQUEST_UNSUPPORTED',
    );
  });

  it('updates DNS settings and extension state', () => {
    const { host, netId } = setup();
    ok(
      host.api.HcnModifyNetwork(
        netId,
        JSON.stringify({
          ResourceType: 'DNS',
          RequestType: 'Update',
          Settings: { Domain: 'corp', ServerList: ['10.0.0.10'] },
        }),
      ),
    );
    expect(ok(host.api.HcnQueryNetworkProperties(netId, '')).Dns).toEqual({
      Domain: 'corp',
      ServerList: ['10.0.0.10'],
    });
    fails(
      host,
      () =>
        host.api.HcnModifyNetwork(
          netId,
          JSON.stringify({ ResourceType: 'DNS', RequestType: 'Update', Settings: { ServerList: ['nope'] } }),
        ),
      'HCN_E_INVALID_JSON',
    );
  });
});

describe('endpoints', () => {
  it('refuses a duplicate port mapping on one network, allows it on another', () => {
    const { host, netId } = setup();
    const pm = JSON.stringify({
      Policies: [
        { Type: 'PortMapping', Settings: { Protocol: 17, InternalPort: 45678, ExternalPort: 56789 } },
      ],
    });
    ok(host.api.HcnCreateEndpoint(netId, null, pm));
    fails(host, () => host.api.HcnCreateEndpoint(netId, null, pm), 'HCN_E_PORT_ALREADY_EXISTS', 0x803b0013);
    const other = ok(host.api.HcnCreateNetwork(null, netDoc('other', [subnet('10.5.0.0/24', '10.5.0.1')])));
    ok(host.api.HcnCreateEndpoint(other.ID, null, pm));
  });

  it('Update replaces the policies of the given types only', () => {
    const { host, netId } = setup();
    const ep = ok(
      host.api.HcnCreateEndpoint(
        netId,
        null,
        JSON.stringify({
          Policies: [
            { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.0.0.0/8'] } },
            { Type: 'ACL', Settings: { Action: 'Allow', Direction: 'In', Priority: 100 } },
          ],
        }),
      ),
    );
    ok(
      host.api.HcnModifyEndpoint(
        ep.ID,
        JSON.stringify({
          ResourceType: 'Policy',
          RequestType: 'Update',
          Settings: {
            Policies: [{ Type: 'ACL', Settings: { Action: 'Block', Direction: 'Out', Priority: 200 } }],
          },
        }),
      ),
    );
    const types = (ok(host.api.HcnQueryEndpointProperties(ep.ID, '')).Policies as JsonObject[]).map((p) => [
      p.Type,
      (p.Settings as JsonObject).Action,
    ]);
    expect(types).toEqual([
      ['OutBoundNAT', undefined],
      ['ACL', 'Block'],
    ]);
  });

  it('lists endpoints of a network with the v1 filter key VirtualNetwork, GUIDs in any case', () => {
    const { host, netId } = setup();
    const ep = ok(host.api.HcnCreateEndpoint(netId, null, '{"Name":"x"}'));
    const q = JSON.stringify({
      SchemaVersion: { Major: 2, Minor: 0 },
      Filter: JSON.stringify({ VirtualNetwork: netId.toLowerCase() }),
    });
    expect(ok(host.api.HcnEnumerateEndpoints(q))).toEqual([ep.ID]);
    const byName = JSON.stringify({ Filter: JSON.stringify({ Name: 'x' }) });
    expect(ok(host.api.HcnEnumerateEndpoints(byName))).toEqual([ep.ID]);
    expect(ok(host.api.HcnEnumerateEndpoints(JSON.stringify({ Filter: '{"Name":"y"}' })))).toEqual([]);
    fails(
      host,
      () => host.api.HcnEnumerateEndpoints(JSON.stringify({ Filter: '{bad' })),
      'HCN_E_INVALID_JSON',
      0x803b001b,
    );
  });

  it('answers not-found with the per-kind HRESULTs', () => {
    const host = createHost({ seed: 1 });
    const g = '11111111-2222-4333-8444-555555555555';
    expect(host.api.HcnQueryNetworkProperties(g, '').hr).toBe(0x803b0001);
    expect(host.api.HcnQueryEndpointProperties(g, '').hr).toBe(0x803b0002);
    expect(host.api.HcnQueryNamespaceProperties(g, '').hr).toBe(0x80070490);
    expect(host.api.HcnQueryLoadBalancerProperties(g, '').hr).toBe(0x80070490);
    expect(host.api.HcnQuerySdnRouteProperties(g, '').hr).toBe(0x80070490);
    expect(host.api.HcnQueryNetworkProperties('not-a-guid', '')).toMatchObject({
      ok: false,
      name: 'HCN_E_GUID_CONVERSION_FAILURE',
    });
  });

  it('includes allocator details on a Detailed query', () => {
    const { host, netId } = setup();
    const ep = ok(host.api.HcnCreateEndpoint(netId, null, '{}'));
    const d = ok(host.api.HcnQueryEndpointProperties(ep.ID, '{"Flags":1}'));
    expect((d.Health as JsonObject).Extra).toEqual({
      Resources: {
        Allocators: [
          { Tag: 'IP', IpAddress: '192.168.100.2', IsLocal: true },
          { Tag: 'MAC', MacAddress: ep.MacAddress, IsLocal: true },
        ],
      },
    });
  });
});

describe('namespaces', () => {
  it('tracks membership both ways, one namespace per endpoint, upper-case resource IDs', () => {
    const { host, netId } = setup();
    const ep = ok(host.api.HcnCreateEndpoint(netId, null, '{}'));
    const ns1 = ok(host.api.HcnCreateNamespace(null, '{"Type":"Host"}'));
    const ns2 = ok(host.api.HcnCreateNamespace(null, '{"Type":"Guest"}'));
    expect(ns1.NamespaceId).toBe(2);
    expect(ns2.NamespaceId).toBe(3);
    const add = (ns: string, id: string) =>
      JSON.stringify({ ResourceType: 'Endpoint', RequestType: 'Add', Settings: { EndpointId: id } });
    ok(host.api.HcnModifyNamespace(ns1.ID, add(ns1.ID, ep.ID.toLowerCase())));
    expect(ok(host.api.HcnQueryNamespaceProperties(ns1.ID, '')).Resources).toEqual([
      { Type: 'Endpoint', Data: { ID: ep.ID } },
    ]);
    expect(ok(host.api.HcnQueryEndpointProperties(ep.ID, '')).HostComputeNamespace).toBe(ns1.ID);
    fails(
      host,
      () => host.api.HcnModifyNamespace(ns2.ID, add(ns2.ID, ep.ID)),
      'HCN_E_ENDPOINT_NAMESPACE_ALREADY_EXISTS',
      0x803b002b,
    );
    ok(
      host.api.HcnModifyNamespace(
        ns1.ID,
        JSON.stringify({ ResourceType: 'Endpoint', RequestType: 'Remove', Settings: { EndpointId: ep.ID } }),
      ),
    );
    expect(ok(host.api.HcnQueryEndpointProperties(ep.ID, '')).HostComputeNamespace).toBeUndefined();
    fails(
      host,
      () =>
        host.api.HcnModifyNamespace(
          ns1.ID,
          JSON.stringify({
            ResourceType: 'Endpoint',
            RequestType: 'Remove',
            Settings: { EndpointId: ep.ID },
          }),
        ),
      'ERROR_NOT_FOUND',
    );
  });

  it('refuses remote endpoints', () => {
    const { host, netId } = setup();
    const remote = ok(
      host.api.HcnCreateEndpoint(
        netId,
        null,
        JSON.stringify({
          Flags: 1,
          IpConfigurations: [{ IpAddress: '10.244.2.5', PrefixLength: 24 }],
          MacAddress: '00-15-5D-AA-BB-CC',
        }),
      ),
    );
    expect(remote.IpConfigurations).toEqual([{ IpAddress: '10.244.2.5', PrefixLength: 24 }]);
    const ns = ok(host.api.HcnCreateNamespace(null, '{}'));
    fails(
      host,
      () =>
        host.api.HcnModifyNamespace(
          ns.ID,
          JSON.stringify({
            ResourceType: 'Endpoint',
            RequestType: 'Add',
            Settings: { EndpointId: remote.ID },
          }),
        ),
      'HCN_E_INVALID_REMOTE_ENDPOINT_OPERATION',
    );
  });

  it('boots with a HostDefault namespace in compartment 1', () => {
    const host = createHost({ seed: 1 });
    const ids = ok(host.api.HcnEnumerateNamespaces(''));
    expect(ids).toHaveLength(1);
    expect(ok(host.api.HcnQueryNamespaceProperties(ids[0], ''))).toMatchObject({
      NamespaceId: 1,
      Type: 'HostDefault',
    });
    expect(ok(createHost({ seed: 1, defaultNamespace: false }).api.HcnEnumerateNamespaces(''))).toEqual([]);
  });
});

describe('load balancers and routes', () => {
  function lbSetup() {
    const { host, netId } = setup('ws2025');
    const a = ok(host.api.HcnCreateEndpoint(netId, null, '{}'));
    const b = ok(host.api.HcnCreateEndpoint(netId, null, '{}'));
    return { host, a: a.ID as string, b: b.ID as string };
  }
  const lb = (eps: string[], vip = '10.96.0.10', port = 80): string =>
    JSON.stringify({
      HostComputeEndpoints: eps,
      SourceVIP: '192.168.100.200',
      FrontendVIPs: [vip],
      PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: port }],
    });

  it('creates, conflicts on the same frontend, and updates the backend list', () => {
    const { host, a, b } = lbSetup();
    const l = ok(host.api.HcnCreateLoadBalancer(null, lb([a, b])));
    expect(l.HostComputeEndpoints).toEqual([a, b]);
    fails(host, () => host.api.HcnCreateLoadBalancer(null, lb([a])), 'HCN_E_PORT_ALREADY_EXISTS');
    ok(host.api.HcnCreateLoadBalancer(null, lb([a], '10.96.0.11')));
    ok(host.api.HcnModifyLoadBalancer(l.ID, lb([a])));
    expect(ok(host.api.HcnQueryLoadBalancerProperties(l.ID, '')).HostComputeEndpoints).toEqual([a]);
  });

  it('refuses empty or unknown backends', () => {
    const { host } = lbSetup();
    fails(host, () => host.api.HcnCreateLoadBalancer(null, lb([])), 'E_INVALIDARG');
    fails(
      host,
      () => host.api.HcnCreateLoadBalancer(null, lb(['11111111-2222-4333-8444-555555555555'])),
      'HCN_E_ENDPOINT_NOT_FOUND',
    );
  });

  // Was: deleting a referenced endpoint was refused (HCN_E_ENTITY_HAS_REFERENCES, our choice).
  // Windows deletes it and keeps the load balancer naming it (kubernetes#112836: "an additional
  // external VIP load balancing rule that references endpoints which no longer exist"), its port
  // held (kubernetes PR #137530: orphaned load balancers → 0x803b0013).
  it('deleting a backend endpoint leaves the load balancer and route as they were', () => {
    const { host, a, b } = lbSetup();
    const l = ok(host.api.HcnCreateLoadBalancer(null, lb([a, b])));
    const r = ok(
      host.api.HcnCreateSdnRoute(
        null,
        JSON.stringify({ HostComputeEndpoints: [a], Setting: [{ DestinationPrefix: '10.0.0.0/8' }] }),
      ),
    );
    // the addresses the rules hold: a is .2, b is .3 of the NAT network's 192.168.100.0/24
    expect(host.hns.store.loadBalancers.get(l.ID)!.dips).toEqual([['192.168.100.2'], ['192.168.100.3']]);
    ok(host.api.HcnDeleteEndpoint(a));
    expect(ok(host.api.HcnEnumerateEndpoints(''))).toEqual([b]);
    expect(ok(host.api.HcnQueryLoadBalancerProperties(l.ID, ''))).toEqual(l);
    expect(ok(host.api.HcnQuerySdnRouteProperties(r.ID, ''))).toEqual(r);
    expect(host.hns.store.loadBalancers.get(l.ID)!.dips).toEqual([['192.168.100.2'], ['192.168.100.3']]);
    // the frontend stays claimed; the deleted endpoint cannot be named anew
    fails(host, () => host.api.HcnCreateLoadBalancer(null, lb([b])), 'HCN_E_PORT_ALREADY_EXISTS');
    fails(host, () => host.api.HcnModifyLoadBalancer(l.ID, lb([a, b])), 'HCN_E_ENDPOINT_NOT_FOUND');
    fails(
      host,
      () =>
        host.api.HcnCreateSdnRoute(
          null,
          JSON.stringify({ HostComputeEndpoints: [a], Setting: [{ DestinationPrefix: '10.0.0.0/8' }] }),
        ),
      'HCN_E_ENDPOINT_NOT_FOUND',
    );
    // a modify to live backends only takes their addresses
    ok(host.api.HcnModifyLoadBalancer(l.ID, lb([b])));
    expect(host.hns.store.loadBalancers.get(l.ID)!.dips).toEqual([['192.168.100.3']]);
    ok(host.api.HcnDeleteSdnRoute(r.ID));
    ok(host.api.HcnDeleteLoadBalancer(l.ID));
    ok(host.api.HcnCreateLoadBalancer(null, lb([b])));
  });

  it('deleting a network whose endpoints a load balancer names leaves the load balancer', () => {
    const { host, a, b } = lbSetup();
    const net = host.hns.store.endpoints.get(a)!.HostComputeNetwork;
    const l = ok(host.api.HcnCreateLoadBalancer(null, lb([a, b])));
    ok(host.api.HcnDeleteNetwork(net));
    expect(ok(host.api.HcnEnumerateEndpoints(''))).toEqual([]);
    expect(ok(host.api.HcnEnumerateLoadBalancers(''))).toEqual([l.ID]);
    expect(ok(host.api.HcnQueryLoadBalancerProperties(l.ID, ''))).toEqual(l);
    ok(host.api.HcnDeleteLoadBalancer(l.ID));
    expect(host.hns.store.endpointRefs.size).toBe(0);
  });

  it('rejects whole-object LB modify below HNS 15.4', () => {
    const { host, netId } = setup('ws2022');
    const a = ok(host.api.HcnCreateEndpoint(netId, null, '{}'));
    const l = ok(host.api.HcnCreateLoadBalancer(null, lb([a.ID])));
    fails(host, () => host.api.HcnModifyLoadBalancer(l.ID, lb([a.ID])), 'E_NOTIMPL');
  });

  it('creates SDN routes from Setting or Routes and emits Setting', () => {
    const { host, a } = lbSetup();
    const s = { DestinationPrefix: '10.0.0.0/16', NextHop: '192.168.100.1', NeedEncap: true };
    const r1 = ok(
      host.api.HcnCreateSdnRoute(null, JSON.stringify({ HostComputeEndpoints: [a], Setting: [s] })),
    );
    const r2 = ok(
      host.api.HcnCreateSdnRoute(null, JSON.stringify({ HostComputeEndpoints: [a], Routes: [s] })),
    );
    expect(r1.Setting).toEqual([s]);
    expect(r2.Setting).toEqual([s]);
    fails(host, () => host.api.HcnModifySdnRoute(r1.ID, '{}'), 'HCN_E_REQUEST_UNSUPPORTED');
    fails(
      host,
      () => host.api.HcnCreateSdnRoute(null, JSON.stringify({ HostComputeEndpoints: [], Setting: [s] })),
      'E_INVALIDARG',
    );
  });
});

describe('restart, reboot and snapshots', () => {
  it('removes EnableNonPersistent networks and every endpoint on reboot, keeps the others', () => {
    const host = createHost({ seed: 5 });
    const keep = ok(host.api.HcnCreateNetwork(null, netDoc('keep', [subnet('10.1.0.0/24', '10.1.0.1')])));
    const gone = ok(
      host.api.HcnCreateNetwork(null, netDoc('gone', [subnet('10.2.0.0/24', '10.2.0.1')], { Flags: 8 })),
    );
    ok(host.api.HcnCreateEndpoint(keep.ID, null, '{}'));
    ok(host.api.HcnCreateNamespace(null, '{}'));
    host.reboot();
    expect(ok(host.api.HcnEnumerateNetworks(''))).toEqual([keep.ID]);
    expect(host.api.HcnQueryNetworkProperties(gone.ID, '').hr).toBe(0x803b0001);
    expect(ok(host.api.HcnEnumerateEndpoints(''))).toEqual([]);
    const ns = ok(host.api.HcnEnumerateNamespaces(''));
    expect(ns).toHaveLength(1); // only the re-created HostDefault
    // the freed pool hands the first address out again
    expect(ok(host.api.HcnCreateEndpoint(keep.ID, null, '{}')).IpConfigurations).toEqual([
      { IpAddress: '10.1.0.2', PrefixLength: 24 },
    ]);
  });

  it('keeps networks and namespaces across an HNS restart, drops endpoints, LBs and SDN routes; policy is configurable', () => {
    const host = createHost({ seed: 5 });
    const n = ok(host.api.HcnCreateNetwork(null, netDoc('n', [subnet('10.1.0.0/24', '10.1.0.1')])));
    const a = ok(host.api.HcnCreateEndpoint(n.ID, null, '{}'));
    const b = ok(host.api.HcnCreateEndpoint(n.ID, null, '{}'));
    const ns = ok(
      host.api.HcnCreateNamespace(
        null,
        JSON.stringify({ Resources: [{ Type: 'Endpoint', Data: { ID: a.ID } }] }),
      ),
    );
    const lbDoc = (eps: unknown[]): string =>
      JSON.stringify({
        HostComputeEndpoints: eps,
        FrontendVIPs: ['10.96.0.10'],
        PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 80 }],
      });
    ok(host.api.HcnCreateLoadBalancer(null, lbDoc([a.ID, b.ID])));
    const routeDoc = (eps: unknown[]): string =>
      JSON.stringify({
        HostComputeEndpoints: eps,
        Setting: [{ DestinationPrefix: '10.2.0.0/16', NextHop: '10.1.0.1', NeedEncap: true }],
      });
    ok(host.api.HcnCreateSdnRoute(null, routeDoc([b.ID])));
    const namespacesBefore = ok(host.api.HcnEnumerateNamespaces(''));
    expect(namespacesBefore).toContain(ns.ID);

    // SERVICE_RESTART_DEFAULT (docs/model.md): endpoints, load balancers, routes go; networks and
    // namespaces stay, the namespace without its endpoint
    host.restartHns();
    expect(ok(host.api.HcnEnumerateNetworks(''))).toEqual([n.ID]);
    expect(ok(host.api.HcnEnumerateNamespaces(''))).toEqual(namespacesBefore);
    expect(ok(host.api.HcnQueryNamespaceProperties(ns.ID, '')).Resources ?? []).toEqual([]);
    expect(ok(host.api.HcnEnumerateEndpoints(''))).toEqual([]);
    expect(ok(host.api.HcnEnumerateLoadBalancers(''))).toEqual([]);
    expect(ok(host.api.HcnEnumerateSdnRoutes(''))).toEqual([]);
    // the removed load balancer's frontend is free again (a claim left behind would refuse this)
    const c = ok(host.api.HcnCreateEndpoint(n.ID, null, '{}'));
    ok(host.api.HcnCreateLoadBalancer(null, lbDoc([c.ID])));

    // each kind follows its own setting: with endpoints kept, LBs and routes still go by default
    const keeper = createHost({ seed: 5, serviceRestart: { endpoints: 'keep' } });
    const kn = ok(keeper.api.HcnCreateNetwork(null, netDoc('n', [subnet('10.1.0.0/24', '10.1.0.1')])));
    const ke = ok(keeper.api.HcnCreateEndpoint(kn.ID, null, '{}'));
    ok(keeper.api.HcnCreateLoadBalancer(null, lbDoc([ke.ID])));
    ok(keeper.api.HcnCreateSdnRoute(null, routeDoc([ke.ID])));
    keeper.restartHns();
    expect(ok(keeper.api.HcnEnumerateEndpoints(''))).toEqual([ke.ID]);
    expect(ok(keeper.api.HcnEnumerateLoadBalancers(''))).toEqual([]);
    expect(ok(keeper.api.HcnEnumerateSdnRoutes(''))).toEqual([]);
    // per call: keep LBs too; then remove endpoints — a kept LB stays, naming the endpoints that
    // went, as after any endpoint delete (was: the LB went with them, only because HNS refused
    // to delete a referenced endpoint)
    const klb = ok(keeper.api.HcnCreateLoadBalancer(null, lbDoc([ke.ID])));
    keeper.restartHns({ loadBalancers: 'keep' });
    expect(ok(keeper.api.HcnEnumerateLoadBalancers(''))).toEqual([klb.ID]);
    keeper.restartHns({ endpoints: 'remove', loadBalancers: 'keep' });
    expect(ok(keeper.api.HcnEnumerateEndpoints(''))).toEqual([]);
    expect(ok(keeper.api.HcnEnumerateLoadBalancers(''))).toEqual([klb.ID]);
    expect(ok(keeper.api.HcnQueryLoadBalancerProperties(klb.ID, '')).HostComputeEndpoints).toEqual([ke.ID]);
    expect(ok(keeper.api.HcnEnumerateNetworks(''))).toEqual([kn.ID]);
  });

  it('round-trips a snapshot exactly and continues identically after restore', () => {
    const { host, netId } = setup();
    ok(host.api.HcnCreateEndpoint(netId, null, '{}'));
    const snap = JSON.parse(JSON.stringify(host.snapshot()));
    const next1 = ok(host.api.HcnCreateEndpoint(netId, null, '{}'));
    const other = createHost({ seed: 999 });
    other.restore(snap);
    expect(other.snapshot()).toEqual(snap);
    const next2 = ok(other.api.HcnCreateEndpoint(netId, null, '{}'));
    expect(next2).toEqual(next1);
    expect(() => other.restore({ format: 'nope' })).toThrow(/snapshot/);
    // a corrupt snapshot is refused with E_INVALIDARG and leaves the state as it was
    const before = other.snapshot();
    const corrupt = JSON.parse(JSON.stringify(snap));
    corrupt.endpoints[0].IpConfigurations = 'garbage';
    const bad = JSON.parse(JSON.stringify(before));
    bad.networks = [];
    for (const s of [corrupt, bad]) {
      expect(() => other.restore(s)).toThrow(expect.objectContaining({ code: 'E_INVALIDARG' }));
      expect(other.snapshot()).toEqual(before);
    }
  });

  it('keeps the addresses of load balancer backends; a 0.1 snapshot without them looks them up', () => {
    const { host, netId } = setup('ws2025');
    const a = ok(host.api.HcnCreateEndpoint(netId, null, '{}')); // 192.168.100.2
    const b = ok(host.api.HcnCreateEndpoint(netId, null, '{}')); // 192.168.100.3
    const doc = {
      FrontendVIPs: ['10.96.0.10'],
      PortMappings: [{ Protocol: 6, InternalPort: 80, ExternalPort: 80 }],
    };
    const l = ok(
      host.api.HcnCreateLoadBalancer(null, JSON.stringify({ ...doc, HostComputeEndpoints: [a.ID, b.ID] })),
    );
    const list = ok(
      host.api.HNSCall(
        'POST',
        '/policylists/',
        JSON.stringify({
          References: [`/endpoints/${b.ID}`],
          Policies: [{ Type: 'ELB', Protocol: 6, InternalPort: 80, ExternalPort: 81, VIPs: ['10.96.0.11'] }],
        }),
      ),
    ) as JsonObject;
    const listId = String((list['Output'] as JsonObject)['ID']);
    const dips = [['192.168.100.2'], ['192.168.100.3']];
    // hnsim 0.1: no dips (every backend then existed)
    const old = JSON.parse(JSON.stringify(host.snapshot()));
    for (const r of [...old.loadBalancers, ...old.policyLists]) delete r.dips;
    const restored = createHost({ seed: 1, profile: 'ws2025' });
    restored.restore(old);
    expect(restored.hns.store.loadBalancers.get(l.ID)!.dips).toEqual(dips);
    expect(restored.hns.store.policyLists.get(listId)!.dips).toEqual([['192.168.100.3']]);
    // a backend deleted since: the snapshot keeps its address, and restores it
    ok(host.api.HcnDeleteEndpoint(a.ID));
    const snap = JSON.parse(JSON.stringify(host.snapshot()));
    const again = createHost({ seed: 1, profile: 'ws2025' });
    again.restore(snap);
    expect(again.snapshot()).toEqual(snap);
    expect(again.hns.store.loadBalancers.get(l.ID)!.dips).toEqual(dips);
    // without dips, a backend the snapshot lacks is a corrupt snapshot; so is a dips that is no list
    const lacking = JSON.parse(JSON.stringify(snap));
    delete lacking.loadBalancers[0].dips;
    const garbled = JSON.parse(JSON.stringify(snap));
    garbled.policyLists[0].dips = 'x';
    const before = again.snapshot();
    for (const bad of [lacking, garbled]) {
      expect(() => again.restore(bad)).toThrow(expect.objectContaining({ code: 'E_INVALIDARG' }));
      expect(again.snapshot()).toEqual(before);
    }
  });
});

describe('notifications', () => {
  it('emits HCN notifications with their codes', () => {
    const host = createHost({ seed: 1, defaultNamespace: false });
    const seen: [string, number][] = [];
    host.events.on('hns.notification', (e) => seen.push([e.notification, e.code]));
    const n = ok(host.api.HcnCreateNetwork(null, '{"Name":"n"}'));
    const ep = ok(host.api.HcnCreateEndpoint(n.ID, null, '{}'));
    const ns = ok(
      host.api.HcnCreateNamespace(
        null,
        JSON.stringify({ Resources: [{ Type: 'Endpoint', Data: { ID: ep.ID } }] }),
      ),
    );
    ok(host.api.HcnDeleteNamespace(ns.ID));
    ok(host.api.HcnDeleteNetwork(n.ID));
    expect(seen).toEqual([
      ['NetworkPreCreate', 1],
      ['NetworkCreate', 2],
      ['NamespaceCreate', 5],
      ['NetworkEndpointAttached', 9],
      ['NetworkEndpointDetached', 0x10],
      ['NamespaceDelete', 6],
      ['NetworkPreDelete', 3],
      ['NetworkDelete', 4],
    ]);
  });
});
