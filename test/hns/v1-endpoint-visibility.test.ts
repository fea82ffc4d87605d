// Endpoints created through the v1 API are not returned by an HCN schema-2 listing filtered by
// network — what hcsshim's `hcn.ListEndpointsOfNetwork` sends (`{"VirtualNetwork":id}`), and why
// kube-proxy lost the endpoints of dockershim's v1 CNIs (kubernetes/kubernetes#110591; reference
// cni-windows.md §7 P14). By ID, by name, unfiltered and through every v1 listing they are found.
import { describe, expect, it } from 'vitest';
import { HcnClient } from '../../src/api/hcn/client.js';
import { HnsV1Client } from '../../src/api/hnsv1/client.js';
import { createHost } from '../../src/host/host.js';

async function node() {
  const host = createHost({ seed: 13 });
  const r = host.api.HNSCall(
    'POST',
    '/networks/',
    JSON.stringify({
      Name: 'cbr0',
      Type: 'L2Bridge',
      Subnets: [{ AddressPrefix: '10.244.1.0/24', GatewayAddress: '10.244.1.1' }],
    }),
  );
  if (!r.ok) throw new Error(r.message);
  const v1 = HnsV1Client.forHost(host);
  const hcn = HcnClient.forHost(host);
  const net = await hcn.getNetworkByName('cbr0');
  // win-bridge's v1 path (dockershim) and its HCN path (containerd)
  const old = await v1.createEndpoint({
    Name: 'pause1_cbr0',
    VirtualNetwork: net.ID,
    IPAddress: '10.244.1.3',
  });
  const cur = await hcn.createEndpoint({
    Name: 'pause2_cbr0',
    HostComputeNetwork: net.ID,
    IpConfigurations: [{ IpAddress: '10.244.1.4' }],
    SchemaVersion: { Major: 2, Minor: 0 },
  });
  return { host, v1, hcn, net, old, cur };
}

describe('v1-created endpoints and HCN listings by network', () => {
  it('ListEndpointsOfNetwork ({"VirtualNetwork":id}, schema 2) returns the HCN endpoint only', async () => {
    const { hcn, net, cur } = await node();
    expect((await hcn.listEndpointsOfNetwork(net.ID)).map((e) => e.ID)).toEqual([cur.ID]);
    const byHcnKey = await hcn.listEndpointsQuery({
      SchemaVersion: { Major: 2, Minor: 0 },
      Filter: JSON.stringify({ HostComputeNetwork: net.ID }),
    });
    expect(byHcnKey.map((e) => e.ID)).toEqual([cur.ID]);
  });

  it('unfiltered, by ID and by name HCN still finds the v1 endpoint', async () => {
    const { hcn, old } = await node();
    expect((await hcn.listEndpoints()).map((e) => e.Name)).toEqual(['pause1_cbr0', 'pause2_cbr0']);
    expect((await hcn.getEndpointByID(old.ID!)).Name).toBe('pause1_cbr0');
    expect((await hcn.getEndpointByName('pause1_cbr0')).ID).toBe(old.ID);
  });

  it('a schema-1 query by network and the v1 listing return both', async () => {
    const { host, v1, net, old, cur } = await node();
    const r = host.api.HcnEnumerateEndpoints({
      SchemaVersion: { Major: 1, Minor: 0 },
      Filter: JSON.stringify({ VirtualNetwork: net.ID }),
    });
    expect(r.ok && r.result).toEqual([old.ID, cur.ID]);
    expect((await v1.listEndpoints()).map((e) => e.Name)).toEqual(['pause1_cbr0', 'pause2_cbr0']);
  });

  it('the mark survives a snapshot round trip', async () => {
    const { host, hcn, net, cur } = await node();
    const copy = createHost({ seed: 13 });
    copy.restore(JSON.parse(JSON.stringify(host.snapshot())));
    const listed = await HcnClient.forHost(copy).listEndpointsOfNetwork(net.ID);
    expect(listed.map((e) => e.ID)).toEqual([cur.ID]);
    expect((await hcn.listEndpoints()).length).toBe(2);
  });
});
