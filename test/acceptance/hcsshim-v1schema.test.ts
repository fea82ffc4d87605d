/**
 * hcsshim hcn/hcnv1schema_test.go against the simulator: v1-schema documents (`hcsshim.HNSNetwork`,
 * `hcsshim.HNSEndpoint`) passed to the v2 calls HcnCreateNetwork / HcnCreateEndpoint, then read back
 * with the default v2 query (reference hns-hcs.md §6.17).
 */
import { describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/host.js';
import type { JsonObject } from '../../src/core/json.js';
import { anyGuid, goView, HcsshimFlow, isHostOf24, sameGuid } from './hcsshim-flow.js';
import {
  NAT_TEST_ENDPOINT_NAME,
  NAT_TEST_NETWORK_NAME,
  v1SchemaNetwork,
  v1TestEndpoint,
} from './hcsshim-vectors.js';

function flow(): HcsshimFlow {
  return new HcsshimFlow(createHost({ seed: 19, profile: 'ws2022' }));
}

function subnetPrefixes(net: JsonObject): string[] {
  return ((net.Ipams as JsonObject[] | undefined) ?? []).flatMap((i) =>
    ((i.Subnets as JsonObject[] | undefined) ?? []).map((sn) => String(sn.IpAddressPrefix)),
  );
}

describe('hcsshim hcn/hcnv1schema_test.go', () => {
  it('TestV1Network: a v1 HNSNetwork document accepted by HcnCreateNetwork', () => {
    const hcn = flow();
    const doc = v1SchemaNetwork();
    expect(JSON.stringify(doc)).toBe(
      '{"Name":"GoTestNat","Type":"NAT","MacPools":[{"StartMacAddress":"00-15-5D-52-C0-00",' +
        '"EndMacAddress":"00-15-5D-52-CF-FF"}],"Subnets":[{"AddressPrefix":"192.168.100.0/24",' +
        '"GatewayAddress":"192.168.100.1"}]}',
    );
    const net = hcn.createNetwork(doc);
    const view = goView('HostComputeNetwork', net);
    expect(view).toMatchObject({
      ID: anyGuid(),
      Name: NAT_TEST_NETWORK_NAME,
      MacPool: { Ranges: [{ StartMacAddress: '00-15-5D-52-C0-00', EndMacAddress: '00-15-5D-52-CF-FF' }] },
      Dns: {},
    });
    expect(net).not.toHaveProperty('Type');
    expect(subnetPrefixes(net)).toEqual(['192.168.100.0/24']);
    hcn.delete('Network', String(net.ID));
    expect(hcn.byName('Network', NAT_TEST_NETWORK_NAME)).toEqual([]);
  });

  it('TestV1Endpoint: a v1 HNSEndpoint document accepted by HcnCreateEndpoint', () => {
    const hcn = flow();
    const net = hcn.createNetwork(v1SchemaNetwork());
    const netId = String(net.ID);
    const doc = v1TestEndpoint(netId);
    expect(JSON.stringify(doc)).toBe(`{"Name":"GoTestNatEndpoint","VirtualNetwork":"${netId}"}`);
    const ep = hcn.createEndpoint(netId, doc);
    const view = goView('HostComputeEndpoint', ep);
    expect(view).toMatchObject({
      ID: anyGuid(),
      Name: NAT_TEST_ENDPOINT_NAME,
      HostComputeNetwork: sameGuid(netId),
    });
    // an address from the v1 subnet; the v1 GatewayAddress is not handed out (reference §6.4)
    const ips = view.IpConfigurations as JsonObject[];
    expect(ips).toHaveLength(1);
    expect(isHostOf24(ips[0]!.IpAddress, '192.168.100'), String(ips[0]!.IpAddress)).toBe(true);
    expect(
      hcn.list(
        'Endpoint',
        `{"SchemaVersion":{"Major":2,"Minor":0},"Filter":"{\\"VirtualNetwork\\":\\"${netId}\\"}"}`,
      ),
    ).toEqual([ep]);
    hcn.delete('Endpoint', String(ep.ID));
    hcn.delete('Network', netId);
  });
});
