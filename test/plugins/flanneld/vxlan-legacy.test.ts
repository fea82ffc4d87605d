/**
 * flanneld's 2018 Windows vxlan design (flannel-io/flannel commit e6fc2a29
 * `backend/vxlan/{vxlan_windows,device_windows,vxlan_network_windows}.go`; reference cni-windows.md
 * §5.3 item 6): an HNS v1 Overlay network, and one `remote_<ip>` remote endpoint with a PA policy
 * per address S+2 … broadcast−1 of every other node's subnet.
 */
import { describe, expect, it } from 'vitest';
import type { HnsCall } from '../../../src/api/transport.js';
import { createHost, type Host } from '../../../src/host/host.js';
import { conjureMac, FlanneldVxlanLegacy, flanneldHost } from '../../../src/plugins/flanneld/index.js';
import { LEASE, NIC } from './fixture.js';

function node(): Host {
  return createHost({ seed: 4, adapters: [NIC] });
}

async function remotes(host: Host) {
  return (await flanneldHost(host).hns.listEndpoints())
    .filter((e) => e.IsRemoteEndpoint)
    .map((e) => ({ name: e.Name, mac: e.MacAddress, ip: e.IPAddress, policies: e.Policies, id: e.ID }));
}

describe('vxlan (2018) setup', () => {
  it('POSTs the v1 Overlay network with the VSID subnet policy; the waits poll after one interval', async () => {
    const host = node();
    const calls: HnsCall[] = [];
    host.faults.fail((c) => {
      calls.push(c);
      return false;
    }, 'E_FAIL');
    const vx = new FlanneldVxlanLegacy(flanneldHost(host), { backend: { Type: 'vxlan', VNI: 4097 } });
    const net = await vx.setup(LEASE);
    const post = calls.find((c) => c.method === 'HNSCall' && c.args[0] === 'POST');
    expect(post?.args[2]).toBe(
      '{"Name":"flannel.4097","Type":"Overlay","Subnets":[{"AddressPrefix":"10.244.1.0/24","GatewayAddress":"10.244.1.1","Policies":[{"Type":"VSID","VSID":4097}]}]}',
    );
    expect(net).toMatchObject({ name: 'flannel.4097', vni: 4097, mtu: 1450, managementIp: '10.0.0.11' });
    // no BackendData in this design
    expect(net.lease).toEqual({ ...LEASE, backendType: 'vxlan' });
    // wait.Poll (no immediate try): 500 ms for the management IP, 500 ms for the interface
    expect(host.clock.now()).toBe(1000);
  });

  it('reuses a network with the same type, prefix and gateway', async () => {
    const host = node();
    const first = await new FlanneldVxlanLegacy(flanneldHost(host)).setup(LEASE);
    const vx = new FlanneldVxlanLegacy(flanneldHost(host));
    expect((await vx.setup(LEASE)).networkId).toBe(first.networkId);
    expect(vx.log.map((l) => l.message)).toContain('Found existing HNSNetwork flannel.4096');
  });
});

describe('vxlan (2018) remote endpoints', () => {
  async function ready() {
    const host = node();
    const vx = new FlanneldVxlanLegacy(flanneldHost(host));
    await vx.setup(LEASE);
    return { host, vx };
  }

  it('ConjureMac: the prefix as configured, then the address octets in lower-case hex', () => {
    expect(conjureMac('0E-2A', 0x0af4020a)).toBe('0E-2A-0a-f4-02-0a');
  });

  it('one remote endpoint per address S+2 … broadcast−1, named remote_<ip>, with the PA policy', async () => {
    const { host, vx } = await ready();
    await vx.onLeaseAdded({ subnet: '10.244.2.0/28', publicIp: '10.0.0.12' });
    const eps = await remotes(host);
    expect(eps.map((e) => e.name)).toEqual([
      'remote_10.244.2.2',
      'remote_10.244.2.3',
      'remote_10.244.2.4',
      'remote_10.244.2.5',
      'remote_10.244.2.6',
      'remote_10.244.2.7',
      'remote_10.244.2.8',
      'remote_10.244.2.9',
      'remote_10.244.2.10',
      'remote_10.244.2.11',
      'remote_10.244.2.12',
      'remote_10.244.2.13',
      'remote_10.244.2.14',
    ]);
    expect(eps[0]).toMatchObject({
      ip: '10.244.2.2',
      mac: '0E-2A-0a-f4-02-02',
      policies: [{ Type: 'PA', PA: '10.0.0.12' }],
    });
    expect(eps[12]!.mac).toBe('0E-2A-0a-f4-02-0e');
  });

  it('a /24 lease gives 253 endpoints', async () => {
    const { host, vx } = await ready();
    await vx.onLeaseAdded({ subnet: '10.244.2.0/24', publicIp: '10.0.0.12' });
    const eps = await remotes(host);
    expect(eps).toHaveLength(253);
    expect(eps.at(-1)!.name).toBe('remote_10.244.2.254');
  });

  it('an endpoint with the same PA is kept; a new PA replaces every endpoint', async () => {
    const { host, vx } = await ready();
    await vx.onLeaseAdded({ subnet: '10.244.2.0/29', publicIp: '10.0.0.12' });
    const before = (await remotes(host)).map((e) => e.id);
    await vx.onLeaseAdded({ subnet: '10.244.2.0/29', publicIp: '10.0.0.12' });
    expect((await remotes(host)).map((e) => e.id)).toEqual(before);
    await vx.onLeaseAdded({ subnet: '10.244.2.0/29', publicIp: '10.0.0.22' });
    const after = await remotes(host);
    expect(after.map((e) => e.id).filter((id) => before.includes(id))).toEqual([]);
    expect(after.every((e) => JSON.stringify(e.policies) === '[{"Type":"PA","PA":"10.0.0.22"}]')).toBe(true);
  });

  it("removal deletes the endpoints whose PA is the lease's public IP", async () => {
    const { host, vx } = await ready();
    await vx.onLeaseAdded({ subnet: '10.244.2.0/29', publicIp: '10.0.0.12' });
    await vx.onLeaseAdded({ subnet: '10.244.3.0/30', publicIp: '10.0.0.13' });
    await vx.onLeaseRemoved({ subnet: '10.244.2.0/29', publicIp: '10.0.0.12' });
    // a /30 has one address between S+1 and the broadcast address: S+2
    expect((await remotes(host)).map((e) => e.name)).toEqual(['remote_10.244.3.2']);
    await vx.onLeaseAdded({ subnet: '10.244.4.0/29', publicIp: '10.0.0.14' });
    const fh = flanneldHost(host);
    // someone changed one endpoint's PA: the removal leaves it
    const ep = await fh.hns.getEndpointByName('remote_10.244.4.3');
    await fh.hns.deleteEndpoint(ep.ID!);
    await fh.hns.createEndpoint({ ...ep, ID: '', Policies: [{ Type: 'PA', PA: '10.0.0.99' }] });
    await vx.onLeaseRemoved({ subnet: '10.244.4.0/29', publicIp: '10.0.0.14' });
    expect((await remotes(host)).map((e) => e.name)).toEqual(['remote_10.244.3.2', 'remote_10.244.4.3']);
  });

  it('a failing create is logged and the loop goes on', async () => {
    const { host, vx } = await ready();
    host.faults.fail(
      { method: 'HNSCall', httpMethod: 'POST', path: '/endpoints/' },
      'HCN_E_ADDR_INVALID_OR_RESERVED',
      {
        times: 1,
      },
    );
    await vx.onLeaseAdded({ subnet: '10.244.2.0/29', publicIp: '10.0.0.12' });
    expect((await remotes(host)).map((e) => e.name)).toEqual([
      'remote_10.244.2.3',
      'remote_10.244.2.4',
      'remote_10.244.2.5',
      'remote_10.244.2.6',
    ]);
    expect(vx.log.find((l) => l.level === 'E')?.message).toMatch(
      /^failed to create remote HNSEndpoint remote_10\.244\.2\.2: failed during hnsCallRawResponse: hnsCall failed in Win32: /,
    );
  });
});
