/**
 * hcsshim's `cmd/ncproxy` against the simulator: the HCN calls behind its `GetNetwork` and
 * `GetNetworks` (and their v0 wrappers), replayed call for call, and what ncproxy makes of the
 * answers. ncproxy resolves every network's `Health.Extra.SwitchGuid` with `GetNetworkByID` and
 * takes that network's `Name` as the switch name, failing the whole call when the lookup fails; its
 * ungated tests ran in hcsshim's CI on windows-2019 and windows-2022 (`.github/workflows/ci.yml`,
 * job test-windows, `gotestsum … ./...`), the dual-stack cases included.
 *
 * Sources (microsoft/hcsshim v0.14.1 fb5aa2e9; identical at v0.11.4 b16edf62 but for line numbers
 * in ncproxy.go and ncproxy_v0_service_test.go):
 * - `cmd/ncproxy/hcn.go` L247-328 `hcnNetworkToNetworkResponse` (SwitchGuid → GetNetworkByID → Name
 *   at L285-291; the MAC pool must have a range, L302-314)
 * - `cmd/ncproxy/ncproxy.go` L676-703 `GetNetwork` (hcn.GetNetworkByName), L705-741 `GetNetworks`
 *   (hcn.ListNetworks, one response per network)
 * - `cmd/ncproxy/hcn_networking_test.go` L24-48 (test subnets), L59-103 (createTestIPv4NATNetwork,
 *   createTestDualStackNATNetwork), L1556-1617 `TestGetNetwork_NoError`, L1665-1720
 *   `TestGetNetworks_NoError`
 * - `cmd/ncproxy/ncproxy_v0_service_test.go` L1181 `TestGetNetwork_V0_NoError`, L1264
 *   `TestGetNetworks_V0_NoError`; `ncproxy_v0_service.go` `v1NetworkToV0NetworkResp` ({ID, Name})
 *
 * ncproxy's own bolt store (consulted first, empty in these tests) is not HNS and is skipped.
 */
import { describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/host.js';
import type { JsonObject } from '../../src/core/json.js';
import { goView, HcsshimFlow, sameGuid } from './hcsshim-flow.js';

const START_MAC = '00-15-5D-52-C0-00';
const END_MAC = '00-15-5D-52-CF-FF';
const HOST_NIC = { name: 'Ethernet', ipAddress: '10.1.0.5/24', gateway: '10.1.0.1' };

/** `getTestIPv4Subnets()` and `getTestIPv6Subnets()` as Go marshals `hcn.Subnet`. */
const IPV4_SUBNET = {
  IpAddressPrefix: '192.168.100.0/24',
  Routes: [{ NextHop: '192.168.100.1', DestinationPrefix: '0.0.0.0/0' }],
};
const IPV6_SUBNET = {
  IpAddressPrefix: '2001:db8:abcd:0012::0/64',
  Routes: [{ NextHop: '2001:db8:abcd:0012::1', DestinationPrefix: '::/0' }],
};

/** `createTestIPv4NATNetwork(name)` / `createTestDualStackNATNetwork(name)`: the HostComputeNetwork. */
function natNetworkDoc(name: string, subnets: readonly JsonObject[]): JsonObject {
  return {
    Name: name,
    Type: 'NAT',
    MacPool: { Ranges: [{ StartMacAddress: START_MAC, EndMacAddress: END_MAC }] },
    Dns: {},
    Ipams: [{ Type: 'Static', Subnets: [...subnets] }],
    Health: { Extra: {} },
    SchemaVersion: { Major: 2, Minor: 0 },
  };
}

/** A network of `type` on the host's adapter, as an hcsshim client marshals it (for the shared switch). */
function switchNetworkDoc(name: string, type: string, prefix: string): JsonObject {
  const subnet: JsonObject = {
    IpAddressPrefix: `${prefix}.0/24`,
    Routes: [{ NextHop: `${prefix}.1`, DestinationPrefix: '0.0.0.0/0' }],
  };
  if (type === 'Overlay') subnet.Policies = [{ Type: 'VSID', Settings: { IsolationId: 4096 } }];
  return {
    Name: name,
    Type: type,
    Dns: {},
    Ipams: [{ Type: 'Static', Subnets: [subnet] }],
    Health: { Extra: {} },
    SchemaVersion: { Major: 2, Minor: 0 },
  };
}

/** Go's `subtest.Name()` for `t.Run(name)`: spaces become underscores. */
const subtestName = (test: string, run: string): string => `${test}/${run.replace(/ /g, '_')}`;

interface NetworkResponse {
  readonly ID: string;
  readonly Name: string;
  readonly Mode: string;
  readonly SwitchName: string;
  readonly SubnetIpaddressPrefix: readonly string[];
  readonly DefaultGateway: string;
  readonly SubnetIpaddressPrefixIpv6: readonly string[];
  readonly DefaultGatewayIpv6: string;
  readonly MacRange: { readonly StartMacAddress: string; readonly EndMacAddress: string };
}

/** Go's `net.ParseIP(s) != nil` and `.To4() != nil`, for the prefix strings ncproxy splits. */
function parseIpFamily(text: string): 4 | 6 | undefined {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(text))
    return text.split('.').every((o) => Number(o) <= 255) ? 4 : undefined;
  return /^[0-9a-f:]+$/i.test(text) && text.includes(':') ? 6 : undefined;
}

/** `hcnNetworkToNetworkResponse(ctx, network)` (hcn.go L247-328), over the simulator's flat API. */
function hcnNetworkToNetworkResponse(hcn: HcsshimFlow, doc: JsonObject): NetworkResponse {
  // json.Unmarshal into hcn.HostComputeNetwork; hcsshim pre-sets Type to NAT (HNS omits it)
  const network = goView('HostComputeNetwork', doc);
  const v4: string[] = [];
  const v6: string[] = [];
  let gw4 = '';
  let gw6 = '';
  for (const ipam of (network.Ipams as JsonObject[] | undefined) ?? []) {
    for (const subnet of (ipam.Subnets as JsonObject[] | undefined) ?? []) {
      const prefix = String(subnet.IpAddressPrefix);
      const family = parseIpFamily(prefix.split('/')[0]!);
      if (!family) throw new Error(`failed to parse IP address ${prefix}`);
      const routes = (subnet.Routes as JsonObject[] | undefined) ?? [];
      if (family === 4) {
        v4.push(prefix);
        if (routes.length) gw4 = String(routes[0]!.NextHop ?? '');
      } else {
        v6.push(prefix);
        if (routes.length) gw6 = String(routes[0]!.NextHop ?? '');
      }
    }
  }
  let switchName = '';
  const switchGuid = String(((network.Health as JsonObject).Extra as JsonObject).SwitchGuid ?? '');
  if (switchGuid !== '') {
    // hcn.GetNetworkByID: Enumerate with {"ID":…} + query; none → NetworkNotFoundError, returned as is
    const found = hcn.byId('Network', switchGuid);
    if (!found.length) throw new Error(`Network ID ${switchGuid} not found`);
    switchName = String(goView('HostComputeNetwork', found[0]!).Name ?? '');
  }
  const ranges = ((network.MacPool as JsonObject).Ranges as JsonObject[] | undefined) ?? [];
  if (ranges.length < 1) throw new Error(`network ${String(network.Name)} MAC pool is empty`);
  return {
    ID: String(network.ID),
    Name: String(network.Name ?? ''),
    Mode: String(network.Type ?? 'NAT'),
    SwitchName: switchName,
    SubnetIpaddressPrefix: v4,
    DefaultGateway: gw4,
    SubnetIpaddressPrefixIpv6: v6,
    DefaultGatewayIpv6: gw6,
    MacRange: {
      StartMacAddress: String(ranges[0]!.StartMacAddress ?? ''),
      EndMacAddress: String(ranges[0]!.EndMacAddress ?? ''),
    },
  };
}

/** `GetNetwork(ctx, {Name})` (ncproxy.go L676-703): hcn.GetNetworkByName, then the response. */
function getNetwork(hcn: HcsshimFlow, name: string): NetworkResponse {
  const found = hcn.byName('Network', name);
  if (!found.length) throw new Error(`no network with name \`${name}\` found`);
  return hcnNetworkToNetworkResponse(hcn, found[0]!);
}

/** `GetNetworks(ctx, {})` (ncproxy.go L705-741): hcn.ListNetworks, one response each, any error fails all. */
function getNetworks(hcn: HcsshimFlow): NetworkResponse[] {
  return hcn.list('Network').map((n) => hcnNetworkToNetworkResponse(hcn, n));
}

const flow = (profile: string) => new HcsshimFlow(createHost({ seed: 11, profile, adapters: [HOST_NIC] }));

const PROFILES = ['ws2019', 'ws2022', 'ws2025'] as const;

/** The table rows of both tests: `<verb> returns no error` and `<verb> dual stack returns no error`. */
const NAT_CASES: readonly (readonly [run: string, subnets: readonly JsonObject[]])[] = [
  ['returns no error', [IPV4_SUBNET]],
  ['dual stack returns no error', [IPV4_SUBNET, IPV6_SUBNET]],
];

describe('hcsshim cmd/ncproxy hcn_networking_test.go: GetNetwork / GetNetworks', () => {
  describe.each(PROFILES)('on %s', (profile) => {
    it.each(NAT_CASES)('TestGetNetwork_NoError "GetNetwork %s"', (run, subnets) => {
      const hcn = flow(profile);
      const name = `${subtestName('TestGetNetwork_NoError', `GetNetwork ${run}`)}-network`;
      const network = hcn.createNetwork(natNetworkDoc(name, subnets));
      const resp = getNetwork(hcn, name);
      // the NAT network made its own switch: SwitchGuid is its ID, so the switch is named after it
      expect(((network.Health as JsonObject).Extra as JsonObject).SwitchGuid).toEqual(
        sameGuid(String(network.ID)),
      );
      expect(resp).toEqual({
        ID: network.ID,
        Name: name,
        Mode: 'NAT',
        SwitchName: name,
        SubnetIpaddressPrefix: ['192.168.100.0/24'],
        DefaultGateway: '192.168.100.1',
        SubnetIpaddressPrefixIpv6: subnets.length > 1 ? ['2001:db8:abcd:0012::0/64'] : [],
        DefaultGatewayIpv6: subnets.length > 1 ? '2001:db8:abcd:0012::1' : '',
        MacRange: { StartMacAddress: START_MAC, EndMacAddress: END_MAC },
      });
      hcn.delete('Network', String(network.ID));
    });

    it.each(NAT_CASES)('TestGetNetworks_NoError "GetNetworks %s"', (run, subnets) => {
      const hcn = flow(profile);
      // a host also holding Docker's default nat network: GetNetworks resolves every network's switch
      hcn.createNetwork(
        natNetworkDoc('nat', [
          {
            ...IPV4_SUBNET,
            IpAddressPrefix: '172.29.144.0/20',
            Routes: [{ NextHop: '172.29.144.1', DestinationPrefix: '0.0.0.0/0' }],
          },
        ]),
      );
      const name = `${subtestName('TestGetNetworks_NoError', `GetNetworks ${run}`)}-network`;
      const network = hcn.createNetwork(natNetworkDoc(name, subnets));
      const all = getNetworks(hcn);
      expect(all.map((r) => [r.Name, r.SwitchName])).toEqual([
        ['nat', 'nat'],
        [name, name],
      ]);
      hcn.delete('Network', String(network.ID));
    });

    it('TestGetNetwork_V0_NoError / TestGetNetworks_V0_NoError: the v0 wrapper keeps ID and Name', () => {
      const hcn = flow(profile);
      const name = 'TestGetNetwork_V0_NoError-network';
      const network = hcn.createNetwork(natNetworkDoc(name, [IPV4_SUBNET]));
      const v0 = (r: NetworkResponse) => ({ ID: r.ID, Name: r.Name }); // v1NetworkToV0NetworkResp
      expect(v0(getNetwork(hcn, name))).toEqual({ ID: network.ID, Name: name });
      expect(getNetworks(hcn).map(v0)).toEqual([{ ID: network.ID, Name: name }]);
    });
  });

  it('networks sharing an external switch all name it after the network that made it', () => {
    const hcn = flow('ws2022');
    // the first external network on the adapter makes the switch; the others join it
    const ext = hcn.createNetwork(switchNetworkDoc('ext', 'Transparent', '192.168.255'));
    const bridge = hcn.createNetwork(switchNetworkDoc('cbr0', 'L2Bridge', '10.244.1'));
    const overlay = hcn.createNetwork(switchNetworkDoc('vxlan0', 'Overlay', '10.245.1'));
    const nat = hcn.createNetwork(natNetworkDoc('nat', [IPV4_SUBNET]));
    for (const n of [ext, bridge, overlay]) {
      expect(((n.Health as JsonObject).Extra as JsonObject).SwitchGuid).toEqual(sameGuid(String(ext.ID)));
    }
    expect(getNetworks(hcn).map((r) => [r.Name, r.Mode, r.SwitchName])).toEqual([
      ['ext', 'Transparent', 'ext'],
      ['cbr0', 'L2Bridge', 'ext'],
      ['vxlan0', 'Overlay', 'ext'],
      ['nat', 'NAT', 'nat'],
    ]);
    expect(getNetwork(hcn, 'cbr0').SwitchName).toBe('ext');
    expect(String(nat.ID)).not.toBe(String(ext.ID));
  });

  it('after the network that made the switch is deleted, its ID names no network (our choice)', () => {
    const hcn = flow('ws2022');
    const ext = hcn.createNetwork(switchNetworkDoc('ext', 'Transparent', '192.168.255'));
    const bridge = hcn.createNetwork(switchNetworkDoc('cbr0', 'L2Bridge', '10.244.1'));
    hcn.delete('Network', String(ext.ID));
    // the switch stays with cbr0 and keeps its ID (openshift/windows-machine-config-operator#603:
    // removing the first network kept connectivity); GetNetworkByID of it finds nothing, so
    // ncproxy's GetNetwork fails as hcn.go returns the lookup's error
    expect(
      ((hcn.get('Network', String(bridge.ID)).Health as JsonObject).Extra as JsonObject).SwitchGuid,
    ).toEqual(sameGuid(String(ext.ID)));
    expect(hcn.byId('Network', String(ext.ID))).toEqual([]);
    expect(() => getNetwork(hcn, 'cbr0')).toThrow(/not found/);
  });
});
