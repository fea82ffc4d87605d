// HostComputeNetwork through the typed client (reference hns-hcs.md §1.1, §6.1): exact request
// bodies, the client-side gateway checks, lookups, policies and endpoint creation.
import { describe, expect, it } from 'vitest';
import {
  EndpointFlags,
  HcnClientError,
  HcnError,
  HostComputeEndpoint,
  HostComputeNetwork,
  isNotFoundError,
  NetworkNotFoundError,
  NetworkPolicyType,
} from '../../../src/api/hcn/index.js';
import {
  defaultSubnet,
  natNetworkDoc,
  overlayNetworkDoc,
  rejection,
  sentSettings,
  setup,
  subnet,
} from './helpers.js';

describe('HostComputeNetwork.create', () => {
  it('sends the document as hcsshim marshals it and returns the network as queried after', async () => {
    const { hcn, rec } = setup();
    const net = await hcn.createNetwork(natNetworkDoc());
    // create, then a default query of the new ID
    expect(rec.methods()).toEqual(['HcnCreateNetwork', 'HcnQueryNetworkProperties']);
    expect(rec.calls[0]!.args[0]).toBe('00000000-0000-0000-0000-000000000000');
    expect(sentSettings(rec, 'HcnCreateNetwork', 1)).toEqual({
      Name: 'GoTestNatNetwork',
      Type: 'NAT',
      MacPool: { Ranges: [{ StartMacAddress: '00-15-5D-52-C0-00', EndMacAddress: '00-15-5D-52-CF-FF' }] },
      Dns: {},
      Ipams: [
        {
          Type: 'Static',
          Subnets: [
            {
              IpAddressPrefix: '192.168.100.0/24',
              Routes: [{ NextHop: '192.168.100.1', DestinationPrefix: '0.0.0.0/0' }],
            },
          ],
        },
      ],
      Health: { Extra: {} },
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    expect(rec.calls[1]!.args).toEqual([net.ID, '{"SchemaVersion":{"Major":2,"Minor":0}}']);
    expect(net).toBeInstanceOf(HostComputeNetwork);
    expect(net.ID).toMatch(/^[0-9A-F-]{36}$/);
    expect(net.Id).toBe(net.ID);
    expect(net.Name).toBe('GoTestNatNetwork');
    expect(net.Type).toBe('NAT');
    expect(net.Ipams[0]!.Subnets![0]!.IpAddressPrefix).toBe('192.168.100.0/24');
    expect(net.MacPool.Ranges![0]!.StartMacAddress).toBe('00-15-5D-52-C0-00');
  });

  it("sends create and modify settings as Go's json.Marshal writes them: <, > and & escaped", async () => {
    const { hcn, rec } = setup();
    const net = await hcn.createNetwork({
      Name: 'a<b>&c',
      Type: 'NAT',
      SchemaVersion: { Major: 2, Minor: 2 },
    });
    expect(rec.calls[0]!.method).toBe('HcnCreateNetwork');
    expect(rec.calls[0]!.args[1]).toContain('"Name":"a\\u003cb\\u003e\\u0026c"');
    expect(net.Name).toBe('a<b>&c');
    rec.clear();
    await net.addPolicy({ Policies: [{ Type: NetworkPolicyType.HostRoute, Settings: { Note: '<&>' } }] });
    expect(rec.calls[0]!.method).toBe('HcnModifyNetwork');
    expect(rec.calls[0]!.args[1]).toContain('{"Note":"\\u003c\\u0026\\u003e"}');
  });

  it('a NAT network without Ipams is valid, and HNS fills a MAC pool', async () => {
    const { hcn } = setup();
    const net = await hcn.createNetwork({ Name: 'hpc', Type: 'NAT', SchemaVersion: { Major: 2, Minor: 2 } });
    expect(net.Type).toBe('NAT');
    expect(net.MacPool.Ranges?.length).toBeGreaterThan(0);
  });

  it('reads a missing Type as NAT (HNS omits the zero enum)', () => {
    const { hcn } = setup();
    expect(HostComputeNetwork.fromJSON(hcn, { ID: 'x', Name: 'n' }).Type).toBe('NAT');
    expect(HostComputeNetwork.fromJSON(hcn, { ID: 'x', Type: 'Overlay' }).Type).toBe('Overlay');
  });

  it('a route without NextHop in a subnet with a prefix fails client-side, before any call', async () => {
    const { hcn, rec } = setup();
    const s = defaultSubnet();
    s.Routes = [{ DestinationPrefix: '0.0.0.0/0' }];
    const e = await rejection(hcn.createNetwork(natNetworkDoc(s)));
    expect(e).toBeInstanceOf(HcnClientError);
    expect(e.message).toBe('network create error, subnet has address prefix but no gateway specified');
    expect(rec.calls).toEqual([]);
  });

  it('a subnet with a prefix needs a default route (0.0.0.0/0 or ::/0); no routes at all also fails', async () => {
    const { hcn, rec } = setup();
    const noDefault = await rejection(
      hcn.createNetwork(natNetworkDoc(subnet('192.168.100.0/24', '192.168.100.1', '10.0.0.0/8'))),
    );
    expect(noDefault.message).toBe('network create error, no default gateway');
    const noRoutes = await rejection(
      hcn.createNetwork(natNetworkDoc({ IpAddressPrefix: '192.168.100.0/24' })),
    );
    expect(noRoutes.message).toBe('network create error, no default gateway');
    expect(rec.calls).toEqual([]);
    // a subnet without a prefix is not checked; ::/0 counts as default
    const v6 = await hcn.createNetwork(natNetworkDoc(subnet('fd00::100/120', 'fd00::101', '::/0'), 'v6'));
    expect(v6.Ipams[0]!.Subnets![0]!.IpAddressPrefix).toBe('fd00::100/120');
  });

  it('a duplicate network name fails in the service with HCN_E_NETWORK_ALREADY_EXISTS', async () => {
    const { hcn } = setup();
    await hcn.createNetwork(natNetworkDoc());
    const e = await rejection(hcn.createNetwork(natNetworkDoc()));
    expect(e).toBeInstanceOf(HcnError);
    expect((e as HcnError).code).toBe('HCN_E_NETWORK_ALREADY_EXISTS');
    expect(e.message).toMatch(
      /^hcnCreateNetwork failed in Win32: A network with this name already exists\. \(0x803b0010\) \{/,
    );
  });
});

describe('network lookups', () => {
  it('listNetworks, getNetworkByID and getNetworkByName enumerate with a filter and query each ID', async () => {
    const { hcn, rec } = setup();
    const a = await hcn.createNetwork(natNetworkDoc(defaultSubnet(), 'a'));
    const b = await hcn.createNetwork(overlayNetworkDoc('b'));
    expect((await hcn.listNetworks()).map((n) => n.Name).sort()).toEqual(['a', 'b']);

    rec.clear();
    const byName = await hcn.getNetworkByName('b');
    expect(byName.ID).toBe(b.ID);
    expect(byName.Type).toBe('Overlay');
    expect(byName.Flags).toBe(8);
    const q = '{"SchemaVersion":{"Major":2,"Minor":0},"Filter":"{\\"Name\\":\\"b\\"}"}';
    expect(rec.calls.map((c) => [c.method, ...c.args])).toEqual([
      ['HcnEnumerateNetworks', q],
      ['HcnQueryNetworkProperties', b.ID, q],
    ]);
    expect((await hcn.getNetworkByID(a.ID)).Name).toBe('a');
    // GUIDs compare case-insensitively in the service filter
    expect((await hcn.getNetworkByID(a.ID.toLowerCase())).ID).toBe(a.ID);
  });

  it('listNetworksQuery passes the query through (Detailed flag)', async () => {
    const { hcn, rec } = setup();
    await hcn.createNetwork(natNetworkDoc());
    rec.clear();
    const found = await hcn.listNetworksQuery({ SchemaVersion: { Major: 2, Minor: 0 }, Flags: 1 });
    expect(found).toHaveLength(1);
    expect(rec.calls[0]!.args[0]).toBe('{"SchemaVersion":{"Major":2,"Minor":0},"Flags":1}');
  });

  it('missing networks: NetworkNotFoundError with hcsshim messages (TestMissingNetworkByName/ById)', async () => {
    const { hcn } = setup();
    const byName = await rejection(hcn.getNetworkByName('Not found name'));
    expect(byName).toBeInstanceOf(NetworkNotFoundError);
    expect(byName.message).toBe('Network name "Not found name" not found');
    expect(isNotFoundError(byName)).toBe(true);
    const byId = await rejection(hcn.getNetworkByID('5f0b1190-63be-4e0c-b974-bd0f55675a42'));
    expect(byId).toBeInstanceOf(NetworkNotFoundError);
    expect(byId.message).toBe('Network ID "5f0b1190-63be-4e0c-b974-bd0f55675a42" not found');
    expect((byId as NetworkNotFoundError).NetworkID).toBe('5f0b1190-63be-4e0c-b974-bd0f55675a42');
    // a malformed ID is just a filter that matches nothing
    expect((await rejection(hcn.getNetworkByID('nope'))).message).toBe('Network ID "nope" not found');
  });
});

describe('enumeration filtered by Type (reference hns-hcs.md §0.2)', () => {
  /** The query exactly as hcsshim marshals it: the filter is a JSON string inside the JSON. */
  const byType = (type: string): string =>
    `{"SchemaVersion":{"Major":2,"Minor":0},"Filter":"{\\"Type\\":\\"${type}\\"}"}`;

  async function fourNetworks() {
    const f = setup();
    const nat = await f.hcn.createNetwork(natNetworkDoc(defaultSubnet(), 'nat'));
    // a NAT network created without Type is NAT too (missing Type → NAT, docs/model.md)
    const untyped = await f.hcn.createNetwork({ Name: 'untyped', SchemaVersion: { Major: 2, Minor: 0 } });
    const overlay = await f.hcn.createNetwork(overlayNetworkDoc('overlay'));
    const l2 = await f.hcn.createNetwork({
      ...natNetworkDoc(subnet('10.1.0.0/24', '10.1.0.1', '0.0.0.0/0'), 'l2'),
      Type: 'L2Bridge',
    });
    return { ...f, nat: nat.ID, untyped: untyped.ID, overlay: overlay.ID, l2: l2.ID };
  }

  it('the query string is the one hcsshim sends', () => {
    expect(JSON.parse(byType('NAT'))).toEqual({
      SchemaVersion: { Major: 2, Minor: 0 },
      Filter: '{"Type":"NAT"}',
    });
  });

  // HNS omits Type for NAT on output (its enum value is 0) but compares the value, so an equality
  // filter on the emitted JSON alone would miss every NAT network
  it('{"Type":"NAT"} matches the NAT networks, whose output has no Type', async () => {
    const { host, nat, untyped } = await fourNetworks();
    const natDoc = host.api.HcnQueryNetworkProperties(nat, '');
    expect(natDoc.ok && 'Type' in natDoc.result).toBe(false);
    const r = host.api.HcnEnumerateNetworks(byType('NAT'));
    expect(r.ok && r.result).toEqual([nat, untyped]);
  });

  it('{"Type":"L2Bridge"} and {"Type":"Overlay"} match only their networks', async () => {
    const { host, overlay, l2 } = await fourNetworks();
    const l2r = host.api.HcnEnumerateNetworks(byType('L2Bridge'));
    expect(l2r.ok && l2r.result).toEqual([l2]);
    const ovr = host.api.HcnEnumerateNetworks(byType('Overlay'));
    expect(ovr.ok && ovr.result).toEqual([overlay]);
  });

  it('a Type no network has matches nothing (and is not an error)', async () => {
    const { host } = await fourNetworks();
    for (const t of ['Transparent', 'ICS', 'NoSuchType']) {
      const r = host.api.HcnEnumerateNetworks(byType(t));
      expect(r.ok && r.result, t).toEqual([]);
    }
  });

  it('the NAT default is the network Type only: a namespace without Type is not {"Type":"NAT"}', async () => {
    const { host } = await fourNetworks();
    const typeless = host.api.HcnCreateNamespace(null, {});
    expect(typeless.ok).toBe(true);
    const r = host.api.HcnEnumerateNamespaces(byType('NAT'));
    expect(r.ok && r.result).toEqual([]);
  });

  it('{"Name":""} finds the unnamed networks (they are not in the name index)', async () => {
    const { host, untyped } = await fourNetworks();
    const unnamed = host.api.HcnCreateNetwork(null, {});
    expect(unnamed.ok).toBe(true);
    const r = host.api.HcnEnumerateNetworks('{"Filter":"{\\"Name\\":\\"\\"}"}');
    expect(r.ok && r.result).toEqual([unnamed.ok && unnamed.result.ID]);
    expect(untyped).not.toBe(unnamed.ok && unnamed.result.ID);
  });

  it('through the typed client: listNetworksQuery with the Type filter', async () => {
    const { hcn, nat, untyped, overlay } = await fourNetworks();
    const q = { SchemaVersion: { Major: 2, Minor: 0 }, Filter: '{"Type":"NAT"}' };
    expect((await hcn.listNetworksQuery(q)).map((n) => n.ID)).toEqual([nat, untyped]);
    const ovr = { ...q, Filter: '{"Type":"Overlay"}' };
    expect((await hcn.listNetworksQuery(ovr)).map((n) => n.ID)).toEqual([overlay]);
  });
});

describe('network delete, modify and policies', () => {
  it('delete removes the network; deleting again is HCN_E_NETWORK_NOT_FOUND from the service', async () => {
    const { hcn } = setup();
    const net = await hcn.createNetwork(natNetworkDoc());
    await net.delete();
    expect(await hcn.listNetworks()).toEqual([]);
    const e = await rejection(net.delete());
    expect((e as HcnError).code).toBe('HCN_E_NETWORK_NOT_FOUND');
    expect(e.message).toMatch(
      /^hcnDeleteNetwork failed in Win32: The network was not found\. \(0x803b0001\)/,
    );
  });

  it('an unparsable ID fails with "invalid network ID" before any call', async () => {
    const { hcn, rec } = setup();
    const e = await rejection(
      new HostComputeNetwork(hcn, { ID: '{5f0b1190-63be-4e0c-b974-bd0f55675a42}' }).delete(),
    );
    expect(e.message).toBe('invalid network ID');
    expect((await rejection(new HostComputeNetwork(hcn).delete())).message).toBe('invalid network ID');
    expect((await rejection(hcn.modifyNetworkSettings('x', {}))).message).toBe('invalid network ID');
    expect(rec.calls).toEqual([]);
  });

  it('addPolicy / removePolicy send the exact request bodies and change the network (testNetworkPolicy)', async () => {
    const { hcn, rec } = setup();
    const net = await hcn.createNetwork(overlayNetworkDoc());
    const rsr = {
      Policies: [
        {
          Type: NetworkPolicyType.RemoteSubnetRoute,
          Settings: {
            DestinationPrefix: '192.168.2.0/24',
            IsolationId: 5000,
            ProviderAddress: '1.1.1.1',
            DistributedRouterMacAddress: '00-12-34-56-78-9a',
          },
        },
      ],
    };
    rec.clear();
    await net.addPolicy(rsr);
    expect(rec.methods()).toEqual(['HcnModifyNetwork', 'HcnQueryNetworkProperties']);
    expect(rec.calls[0]!.args[1]).toBe(
      '{"ResourceType":"Policy","RequestType":"Add","Settings":{"Policies":[{"Type":"RemoteSubnetRoute","Settings":{"DestinationPrefix":"192.168.2.0/24","IsolationId":5000,"ProviderAddress":"1.1.1.1","DistributedRouterMacAddress":"00-12-34-56-78-9a"}}]}}',
    );
    let after = await hcn.getNetworkByID(net.ID);
    expect(after.Policies.map((p) => p.Type)).toContain('RemoteSubnetRoute');
    await net.removePolicy(rsr);
    after = await hcn.getNetworkByID(net.ID);
    expect(after.Policies.map((p) => p.Type)).not.toContain('RemoteSubnetRoute');

    const hostRoute = { Policies: [{ Type: NetworkPolicyType.HostRoute, Settings: {} }] };
    await net.addPolicy(hostRoute);
    expect((await hcn.getNetworkByID(net.ID)).Policies.map((p) => p.Type)).toContain('HostRoute');
    rec.clear();
    await net.removePolicy(hostRoute);
    expect(rec.calls[0]!.args[1]).toBe(
      '{"ResourceType":"Policy","RequestType":"Remove","Settings":{"Policies":[{"Type":"HostRoute","Settings":{}}]}}',
    );
    expect((await hcn.getNetworkByID(net.ID)).Policies.map((p) => p.Type)).not.toContain('HostRoute');
  });

  it('modifyNetworkSettings on the client returns the network as queried after the change', async () => {
    const { hcn } = setup();
    const net = await hcn.createNetwork(overlayNetworkDoc());
    const after = await hcn.modifyNetworkSettings(net.ID, {
      ResourceType: 'Policy',
      RequestType: 'Add',
      Settings: { Policies: [{ Type: 'HostRoute', Settings: {} }] },
    });
    expect(after).toBeInstanceOf(HostComputeNetwork);
    expect(after.Policies.map((p) => p.Type)).toContain('HostRoute');
  });
});

describe('network.createEndpoint / createRemoteEndpoint', () => {
  it('sets HostComputeNetwork on the given endpoint object and returns the created endpoint', async () => {
    const { hcn, rec } = setup();
    const net = await hcn.createNetwork(natNetworkDoc());
    const draft = new HostComputeEndpoint(hcn, {
      Name: 'GoTestNatEndpoint',
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    rec.clear();
    const ep = await net.createEndpoint(draft);
    expect(draft.HostComputeNetwork).toBe(net.ID);
    expect(rec.methods()).toEqual(['HcnCreateEndpoint', 'HcnQueryEndpointProperties']);
    expect(rec.calls[0]!.args[0]).toBe(net.ID);
    expect(sentSettings(rec, 'HcnCreateEndpoint', 2)).toEqual({
      Name: 'GoTestNatEndpoint',
      HostComputeNetwork: net.ID,
      Dns: {},
      Health: { Extra: {} },
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    expect(ep.HostComputeNetwork).toBe(net.ID);
    expect(ep.IpConfigurations[0]).toEqual({ IpAddress: '192.168.100.2', PrefixLength: 24 });
    expect(ep.MacAddress).toMatch(/^00-15-5D-52-C/);
    expect(ep.Flags).toBe(0);
  });

  it('does not run the HostComputeNamespace check (hcsshim only checks in endpoint.Create)', async () => {
    const { hcn, rec } = setup();
    const net = await hcn.createNetwork(natNetworkDoc());
    const ns = await hcn.newNamespace('Host').create();
    rec.clear();
    const ep = await net.createEndpoint({ Name: 'with-ns', HostComputeNamespace: ns.ID });
    expect(rec.methods()[0]).toBe('HcnCreateEndpoint');
    expect(ep.ID).toMatch(/^[0-9A-F-]{36}$/);
  });

  it('createRemoteEndpoint ORs in RemoteEndpoint (Flags 1) and keeps other flags', async () => {
    const { hcn } = setup();
    const net = await hcn.createNetwork(overlayNetworkDoc());
    const draft = new HostComputeEndpoint(hcn, {
      Name: 'remote',
      IpConfigurations: [{ IpAddress: '192.168.100.50', PrefixLength: 24 }],
      MacAddress: '00-15-5D-99-00-01',
      Flags: EndpointFlags.EnableLowInterfaceMetric,
      Policies: [{ Type: 'ProviderAddress', Settings: { ProviderAddress: '10.0.0.5' } }],
    });
    const ep = await net.createRemoteEndpoint(draft);
    expect(draft.Flags).toBe(9);
    expect(ep.Flags & EndpointFlags.RemoteEndpoint).toBe(1);
    expect(ep.IpConfigurations[0]!.IpAddress).toBe('192.168.100.50');
  });

  it('an endpoint on a network that does not exist fails in the service', async () => {
    const { hcn } = setup();
    const ghost = new HostComputeNetwork(hcn, { ID: '5f0b1190-63be-4e0c-b974-bd0f55675a42' });
    const e = await rejection(ghost.createEndpoint({ Name: 'x' }));
    expect((e as HcnError).code).toBe('HCN_E_NETWORK_NOT_FOUND');
    // hcsshim's createEndpoint opens the network first (hcn/hcnendpoint.go: hcnOpenNetwork)
    expect((e as HcnError).title).toBe('hcnOpenNetwork');
  });
});
