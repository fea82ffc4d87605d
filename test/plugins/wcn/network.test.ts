/**
 * The network and endpoint records of windows-container-networking and their HCN documents.
 * Source: microsoft/windows-container-networking @ b96345f `cni/cni.go` GetNetworkInfo l.229,
 * `network/network.go` (GetHostComputeNetworkConfig l.40, GetNetworkInfoFromHostComputeNetwork
 * l.81, GetSubnetInfoFromHostComputeSubnet l.107, GetHostComputeSubnetConfig l.122),
 * `network/endpoint.go` (GetHostComputeEndpoint l.42 — the default route only for a non-nil gateway
 * since commit 33bbfa2 —, GetEndpointInfoFromHostComputeEndpoint l.107, GetHostComputeEndpointPolicies
 * l.207); reference cni-windows.md §4.3.
 */
import { describe, expect, it } from 'vitest';
import { HcnClient } from '../../../src/api/hcn/client.js';
import { HostComputeEndpoint } from '../../../src/api/hcn/endpoint.js';
import { HostComputeNetwork } from '../../../src/api/hcn/network.js';
import { createHost } from '../../../src/host/host.js';
import { getEndpointInfo, getNetworkInfo } from '../../../src/plugins/wcn/cni.js';
import { parseNetworkConfig } from '../../../src/plugins/wcn/config.js';
import { GoPanic } from '../../../src/cni/gopanic.js';
import { parseIP } from '../../../src/plugins/wcn/gonet.js';
import {
  emptyEndpointInfo,
  endpointInfoFromHcn,
  hostComputeEndpoint,
  hostComputeNetworkConfig,
  networkInfoFromHcn,
} from '../../../src/plugins/wcn/network.js';

const hcn = HcnClient.forHost(createHost());
const noDsr = (): Promise<void> => Promise.resolve();

async function infoOf(conf: object, podNamespace = ''): Promise<ReturnType<typeof hostComputeNetworkConfig>> {
  const config = parseNetworkConfig(JSON.stringify(conf));
  return hostComputeNetworkConfig(await getNetworkInfo(config, podNamespace, noDsr));
}

describe('the network WCN creates (getOrCreateNetwork → GetHostComputeNetworkConfig)', () => {
  it('example/nat.conf: NAT, gateway = subnet address + 1 (its routes use an unknown "gateway" key)', async () => {
    // example/nat.conf @ b96345f
    const doc = await infoOf({
      cniVersion: '0.2.0',
      name: 'natNetwork',
      type: 'nat',
      master: 'Ethernet',
      ipam: { subnet: '192.168.100.0/24', routes: [{ gateway: '192.168.100.1' }] },
    });
    expect(new HostComputeNetwork(hcn, doc).toJSON()).toEqual({
      Name: 'natNetwork',
      Type: 'NAT',
      MacPool: {},
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
  });

  it('example/l2bridge.conf (as sdnbridge): L2Bridge, gateway from routes[0].GW, DNS, no endpoint policies on the network', async () => {
    const doc = await infoOf({
      cniVersion: '0.2.0',
      name: 'l2bridgeNetwork',
      type: 'sdnbridge',
      ipam: { subnet: '192.168.1.0/24', routes: [{ GW: '192.168.1.2' }] },
      dns: { Nameservers: ['11.0.0.10'], Search: ['svc.cluster.local'] },
      AdditionalArgs: [
        {
          Name: 'EndpointPolicy',
          Value: {
            Type: 'OutBoundNAT',
            Settings: { Exceptions: ['192.168.0.0/16', '11.0.0.0/8', '10.124.24.0/23'] },
          },
        },
      ],
    });
    expect(doc).toEqual({
      Name: 'l2bridgeNetwork',
      Type: 'L2Bridge',
      Dns: { Search: ['svc.cluster.local'], ServerList: ['11.0.0.10'] },
      SchemaVersion: { Major: 2, Minor: 0 },
      Ipams: [
        {
          Type: 'Static',
          Subnets: [
            {
              IpAddressPrefix: '192.168.1.0/24',
              Routes: [{ NextHop: '192.168.1.2', DestinationPrefix: '0.0.0.0/0' }],
            },
          ],
        },
      ],
    });
  });

  it('sdnoverlay without ipam.subnet: no Ipams; NetworkPolicy AdditionalArgs go to the network', async () => {
    const doc = await infoOf({
      name: 'vxlan0',
      type: 'sdnoverlay',
      AdditionalArgs: [
        {
          Name: 'NetworkPolicy',
          Value: { Type: 'ProviderAddress', Settings: { ProviderAddress: '10.0.0.4' } },
        },
        { Name: 'OutBoundNatPolicy', Value: { Type: 'X' } },
        { Name: 'Unrelated', Value: 1 },
      ],
    });
    expect(doc).toEqual({
      Name: 'vxlan0',
      Type: 'Overlay',
      Dns: {},
      SchemaVersion: { Major: 2, Minor: 0 },
      Policies: [{ Type: 'ProviderAddress', Settings: { ProviderAddress: '10.0.0.4' } }],
    });
  });

  it('the gateway is the address as written + 1, wrapping in its last byte', async () => {
    const gw = async (subnet: string): Promise<string | undefined> =>
      (await infoOf({ name: 'n', type: 'nat', ipam: { subnet } })).Ipams?.[0]?.Subnets?.[0]?.Routes?.[0]
        ?.NextHop;
    expect(await gw('10.0.0.5/24')).toBe('10.0.0.6');
    expect(await gw('10.0.0.255/24')).toBe('10.0.0.0');
    expect(await gw('10.244.1.64/26')).toBe('10.244.1.65');
  });

  it('panics on an IPv6 or malformed ipam.subnet (gatewayIP[3]++ on a nil To4())', async () => {
    for (const subnet of ['fd00::/64', '10.0.0.0', 'bogus']) {
      const config = parseNetworkConfig(JSON.stringify({ name: 'n', type: 'nat', ipam: { subnet } }));
      await expect(getNetworkInfo(config, '', noDsr)).rejects.toThrow(
        new GoPanic('index out of range [3] with length 0', true),
      );
    }
  });

  it('DNS: the pod namespace prefixes search[0]; runtimeConfig values replace field by field, unprefixed', async () => {
    const conf = {
      name: 'n',
      type: 'nat',
      dns: {
        Nameservers: ['10.0.0.10'],
        Search: ['svc.cluster.local', 'cluster.local'],
        Options: ['ndots:5'],
      },
    };
    expect((await infoOf(conf, 'kube-system')).Dns).toEqual({
      Search: ['kube-system.svc.cluster.local', 'cluster.local'],
      ServerList: ['10.0.0.10'],
      Options: ['ndots:5'],
    });
    expect(
      (await infoOf({ ...conf, runtimeConfig: { dns: { searches: ['default.svc.cluster.local'] } } }, 'x'))
        .Dns,
    ).toEqual({ Search: ['default.svc.cluster.local'], ServerList: ['10.0.0.10'], Options: ['ndots:5'] });
    expect((await infoOf({ ...conf, runtimeConfig: { dns: { servers: ['10.96.0.10'] } } })).Dns).toEqual({
      Search: ['svc.cluster.local', 'cluster.local'],
      ServerList: ['10.96.0.10'],
      Options: ['ndots:5'],
    });
  });

  it('asks for DSR support only with loopbackDSR, and fails with its error', async () => {
    const config = parseNetworkConfig(
      JSON.stringify({ name: 'n', type: 'nat', optionalFlags: { loopbackDSR: true } }),
    );
    await expect(
      getNetworkInfo(config, '', () =>
        Promise.reject(new Error('Platform does not support feature Direct Server Return (DSR)')),
      ),
    ).rejects.toThrow('Platform does not support feature Direct Server Return (DSR)');
    const plain = parseNetworkConfig(JSON.stringify({ name: 'n', type: 'nat' }));
    await expect(getNetworkInfo(plain, '', () => Promise.reject(new Error('asked')))).resolves.toBeDefined();
  });
});

describe('the endpoint document (GetHostComputeEndpoint)', () => {
  it('routes only for non-nil gateways (33bbfa2), no prefix lengths, EndpointPolicy entries only', async () => {
    const config = parseNetworkConfig(
      JSON.stringify({
        name: 'cbr0',
        type: 'sdnbridge',
        AdditionalArgs: [
          {
            Name: 'EndpointPolicy',
            Value: { Type: 'SDNROUTE', Settings: { DestinationPrefix: '', NeedEncap: true } },
          },
          {
            Name: 'NetworkPolicy',
            Value: { Type: 'ProviderAddress', Settings: { ProviderAddress: '10.0.0.4' } },
          },
        ],
      }),
    );
    const info = await getNetworkInfo(config, '', noDsr);
    const ep = getEndpointInfo(config, info, 'c1', '');
    ep.policies.push(...info.policies);
    ep.networkId = '9C5C790D-7421-41F6-847B-3839BBAE902E';
    expect(new HostComputeEndpoint(hcn, hostComputeEndpoint(ep)).toJSON()).toEqual({
      Name: 'c1_cbr0',
      HostComputeNetwork: '9C5C790D-7421-41F6-847B-3839BBAE902E',
      Policies: [{ Type: 'SDNROUTE', Settings: { DestinationPrefix: '', NeedEncap: true } }],
      Dns: {},
      Health: { Extra: {} },
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    ep.ipAddress = parseIP('10.244.1.5');
    ep.gateway = parseIP('10.244.1.1');
    ep.ipAddress6 = { ip: parseIP('fd00::5'), mask: { ones: 64, width: 128 } };
    ep.gateway6 = parseIP('fd00::1');
    const doc = hostComputeEndpoint(ep);
    expect(doc.IpConfigurations).toEqual([{ IpAddress: '10.244.1.5' }, { IpAddress: 'fd00::5' }]);
    expect(doc.Routes).toEqual([
      { NextHop: '10.244.1.1', DestinationPrefix: '0.0.0.0/0' },
      { NextHop: 'fd00::1', DestinationPrefix: '::/0' },
    ]);
  });

  it('panics when an EndpointPolicy value is not a policy object (WCN panics on the unmarshal error)', () => {
    const ep = emptyEndpointInfo();
    ep.policies = [{ type: 'EndpointPolicy', data: 'OutBoundNAT' }];
    expect(() => hostComputeEndpoint(ep)).toThrow(
      new GoPanic('json: cannot unmarshal string into Go value of type hcn.EndpointPolicy'),
    );
    ep.policies = [{ type: 'EndpointPolicy', data: undefined }];
    expect(() => hostComputeEndpoint(ep)).toThrow(new GoPanic('unexpected end of JSON input'));
    ep.policies = [{ type: 'EndpointPolicy', data: { Type: 7 } }];
    expect(() => hostComputeEndpoint(ep)).toThrow(
      new GoPanic(
        'json: cannot unmarshal number into Go struct field EndpointPolicy.Type of type hcn.EndpointPolicyType',
      ),
    );
    // null is a zero policy, other CNI policy types are dropped
    ep.policies = [
      { type: 'EndpointPolicy', data: null },
      { type: 'OutBoundNatPolicy', data: 'anything' },
    ];
    expect(hostComputeEndpoint(ep).Policies).toEqual([{ Type: '' }]);
  });
});

describe('reading HCN objects back', () => {
  const endpoint = (doc: object): HostComputeEndpoint => HostComputeEndpoint.fromJSON(hcn, doc);

  it("single stack: first IpConfiguration, first route's NextHop, MAC parsed", () => {
    const info = endpointInfoFromHcn(
      endpoint({
        ID: 'E1',
        Name: 'c1_cbr0',
        HostComputeNetwork: 'N1',
        IpConfigurations: [{ IpAddress: '10.244.1.5', PrefixLength: 24 }],
        Routes: [{ NextHop: '10.244.1.2', DestinationPrefix: '0.0.0.0/0' }],
        MacAddress: '00-15-5D-AB-90-00',
      }),
      false,
    );
    expect(info.ipAddress).toEqual(parseIP('10.244.1.5'));
    expect(info.gateway).toEqual(parseIP('10.244.1.2'));
    expect(Array.from(info.macAddress!)).toEqual([0x00, 0x15, 0x5d, 0xab, 0x90, 0x00]);
    expect(info.ip4Mask).toBeUndefined();
  });

  it('dual stack: the first v4 and v6 of each, with the prefix lengths HNS reports', () => {
    const info = endpointInfoFromHcn(
      endpoint({
        IpConfigurations: [
          { IpAddress: 'fd00::5', PrefixLength: 64 },
          { IpAddress: '10.244.1.5', PrefixLength: 24 },
        ],
        Routes: [
          { NextHop: '10.244.1.2', DestinationPrefix: '0.0.0.0/0' },
          { NextHop: 'fd00::1', DestinationPrefix: '::/0' },
        ],
      }),
      true,
    );
    expect(info.ipAddress).toEqual(parseIP('10.244.1.5'));
    expect(info.ip4Mask).toEqual({ ones: 24, width: 32 });
    expect(info.ipAddress6).toEqual({ ip: parseIP('fd00::5'), mask: { ones: 64, width: 128 } });
    expect(info.gateway).toEqual(parseIP('10.244.1.2'));
    expect(info.gateway6).toEqual(parseIP('fd00::1'));
  });

  it('a network subnet Go cannot parse dereferences nil', () => {
    const n = HostComputeNetwork.fromJSON(hcn, {
      Name: 'x',
      Ipams: [{ Subnets: [{ Routes: [{ NextHop: '10.0.0.1' }] }] }],
    });
    expect(() => networkInfoFromHcn(n)).toThrow(
      new GoPanic('invalid memory address or nil pointer dereference', true),
    );
  });

  it("a network reads its first ipam's subnets and the NetAdapterName policy", () => {
    const n = HostComputeNetwork.fromJSON(hcn, {
      ID: 'N1',
      Name: 'cbr0',
      Type: 'L2Bridge',
      Policies: [{ Type: 'NetAdapterName', Settings: { NetworkAdapterName: 'Ethernet' } }],
      Ipams: [
        {
          Type: 'Static',
          Subnets: [{ IpAddressPrefix: '10.244.1.0/24', Routes: [{ NextHop: '10.244.1.1' }] }],
        },
      ],
    });
    const info = networkInfoFromHcn(n);
    expect(info.interfaceName).toBe('Ethernet');
    expect(info.subnets).toHaveLength(1);
    expect(info.subnets[0]!.gatewayAddress).toEqual(parseIP('10.244.1.1'));
    expect(info.subnets[0]!.addressPrefix.mask).toEqual({ ones: 24, width: 32 });
  });
});
