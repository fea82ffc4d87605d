/**
 * flanneld vxlan on Windows, current design (flannel-io/flannel @ cdf76059
 * `pkg/backend/vxlan/{vxlan_windows,device_windows,vxlan_network_windows}.go`; reference
 * cni-windows.md §5.3, P11, P16): config checks, the HCN Overlay network and its reuse rules, the
 * HostRoute policy, DR MAC → VtepMAC, and RemoteSubnetRoute policies per remote lease.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import { createHost, type Host } from '../../../src/host/host.js';
import { FlanneldVxlan, flanneldHost, vxlanConfig } from '../../../src/plugins/flanneld/index.js';
import { LEASE, NIC } from './fixture.js';

const REMOTE = { subnet: '10.244.2.0/24', publicIp: '10.0.0.12', vni: 4096, vtepMac: '00:15:5d:aa:bb:02' };

function node(profile = 'ws2022'): Host {
  return createHost({ seed: 9, profile, adapters: [NIC] });
}

async function policies(host: Host, name = 'flannel.4096'): Promise<JsonObject[]> {
  const n = await flanneldHost(host).hcn.getNetworkByName(name);
  return n.Policies as unknown as JsonObject[];
}

async function rsr(host: Host): Promise<unknown[]> {
  return (await policies(host)).filter((p) => p['Type'] === 'RemoteSubnetRoute').map((p) => p['Settings']);
}

describe('vxlan config (RegisterNetwork steps 1–2)', () => {
  it('defaults: VNI 4096, port 4789, MacPrefix 0E-2A, name flannel.<VNI>', () => {
    expect(vxlanConfig(undefined)).toEqual({
      name: 'flannel.4096',
      macPrefix: '0E-2A',
      vni: 4096,
      port: 4789,
      gbp: false,
      directRouting: false,
    });
    expect(vxlanConfig({ Type: 'vxlan', vni: 4097 }).name).toBe('flannel.4097');
    expect(vxlanConfig('{"Name":"vxlan0","VNI":5000}').name).toBe('vxlan0');
  });

  it.each([
    [{ VNI: 1 }, 'invalid VXLAN backend config. VNI [1] must be greater than or equal to 4096 on Windows'],
    [
      { VNI: 4096, Port: 8472 },
      'invalid VXLAN backend config. Port [8472] is not supported on Windows. Omit the setting to default to port 4789',
    ],
    [{ DirectRouting: true }, 'invalid VXLAN backend config. DirectRouting is not supported on Windows'],
    [{ GBP: true }, 'invalid VXLAN backend config. GBP is not supported on Windows'],
    [
      { MacPrefix: '0E2A' },
      'invalid VXLAN backend config.MacPrefix [0E2A] is invalid, prefix must be of the format xx-xx e.g. 0E-2A',
    ],
    [
      { MacPrefix: '0E:2A' },
      'invalid VXLAN backend config.MacPrefix [0E:2A] is invalid, prefix must be of the format xx-xx e.g. 0E-2A',
    ],
    [
      { MacPrefix: '' },
      'invalid VXLAN backend config.MacPrefix [] is invalid, prefix must be of the format xx-xx e.g. 0E-2A',
    ],
    [
      { VNI: '4096' },
      'error decoding VXLAN backend config: json: cannot unmarshal string into Go struct field .VNI of type int',
    ],
    [
      { VNI: 4096.5 },
      'error decoding VXLAN backend config: json: cannot unmarshal number 4096.5 into Go struct field .VNI of type int',
    ],
  ])('%j → %s', (backend, message) => {
    expect(() => vxlanConfig(backend)).toThrow(message);
  });

  it('the VNI check comes before the port check', () => {
    expect(() => vxlanConfig({ VNI: 1, Port: 1 })).toThrow('VNI [1]');
  });
});

describe('vxlan setup', () => {
  it('creates the Overlay network, adds HostRoute, publishes the DR MAC as the VtepMAC', async () => {
    const host = node();
    const vx = new FlanneldVxlan(flanneldHost(host));
    const net = await vx.setup(LEASE);
    const n = await flanneldHost(host).hcn.getNetworkByName('flannel.4096');
    expect(n.Type).toBe('Overlay');
    expect(n.Flags).toBe(8);
    expect(n.Ipams).toEqual([
      {
        Type: 'Static',
        Subnets: [
          {
            IpAddressPrefix: '10.244.1.0/24',
            Policies: [{ Type: 'VSID', Settings: { IsolationId: 4096 } }],
            Routes: [{ NextHop: '10.244.1.1', DestinationPrefix: '0.0.0.0/0' }],
          },
        ],
      },
    ]);
    const types = n.Policies.map((p) => p.Type);
    expect(types).toContain('NetAdapterName');
    expect(types.filter((t) => t === 'HostRoute')).toHaveLength(1);
    const dr = n.Policies.find((p) => p.Type === 'DrMacAddress')!.Settings as { Address: string };
    // HNS reports 00-15-5D-…; the lease carries Go's HardwareAddr.String() form
    expect(net.vtepMac).toBe(dr.Address.toLowerCase().replace(/-/g, ':'));
    expect(net.lease).toEqual({ ...LEASE, backendType: 'vxlan', vni: 4096, vtepMac: net.vtepMac });
    expect(net.mtu).toBe(1450);
    expect(net.managementIp).toBe('10.0.0.11');
  });

  it('a restart reuses the network (same type and first prefix) and adds no second HostRoute', async () => {
    const host = node();
    const first = await new FlanneldVxlan(flanneldHost(host)).setup(LEASE);
    const vx = new FlanneldVxlan(flanneldHost(host));
    const second = await vx.setup(LEASE);
    expect(second.networkId).toBe(first.networkId);
    expect((await policies(host)).filter((p) => p['Type'] === 'HostRoute')).toHaveLength(1);
    expect(vx.log.map((l) => l.message)).toContain('Found existing HostComputeNetwork flannel.4096');
  });

  it('P16: another lease subnet deletes the network; a restarted flanneld names the vNIC as its adapter', async () => {
    const host = node();
    const first = await new FlanneldVxlan(flanneldHost(host)).setup(LEASE);
    // after the first run the default route goes out of vEthernet (Ethernet): that is the external
    // interface, and NetAdapterName of the new network (code-derived: newVXLANDevice uses
    // extIface.Iface.Name); deleting the old network took that vNIC away, so the create fails
    const vx = new FlanneldVxlan(flanneldHost(host));
    expect(vx.ext.iface.name).toBe('vEthernet (Ethernet)');
    await expect(vx.setup({ subnet: '10.244.7.0/24', publicIp: '10.0.0.11' })).rejects.toThrow(
      'failed to create VXLAN network: failed to create HostComputeNetwork flannel.4096: hcnCreateNetwork failed in Win32: An adapter was not found.',
    );
    expect(vx.log.map((l) => l.message)).toContain('Deleted stale HostComputeNetwork flannel.4096');
    // flanneld exits and is restarted: the physical adapter has its address back and is used
    const again = new FlanneldVxlan(flanneldHost(host));
    expect(again.ext.iface.name).toBe('Ethernet');
    const second = await again.setup({ subnet: '10.244.7.0/24', publicIp: '10.0.0.11' });
    expect(second.networkId).not.toBe(first.networkId);
  });

  it('P11: the network is non-persistent — after a reboot flanneld creates it again', async () => {
    const host = node();
    const first = await new FlanneldVxlan(flanneldHost(host)).setup(LEASE);
    host.reboot();
    await expect(flanneldHost(host).hcn.getNetworkByName('flannel.4096')).rejects.toThrow('not found');
    const again = await new FlanneldVxlan(flanneldHost(host)).setup(LEASE);
    expect(again.networkId).not.toBe(first.networkId);
  });

  it('HNS older than 9.2 has no RemoteSubnet: the setup fails before creating anything', async () => {
    const host = node('9.1');
    await expect(new FlanneldVxlan(flanneldHost(host)).setup(LEASE)).rejects.toThrow(
      'platform does not support feature Remote Subnet',
    );
    expect(await flanneldHost(host).hns.listNetworks()).toEqual([]);
  });

  it('a failed create is wrapped twice', async () => {
    const host = node();
    host.faults.fail({ method: 'HcnCreateNetwork' }, 'HCN_E_INVALID_NETWORK');
    const err = (await new FlanneldVxlan(flanneldHost(host)).setup(LEASE).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(
      /^failed to create VXLAN network: failed to create HostComputeNetwork flannel\.4096: hcnCreateNetwork failed in Win32: /,
    );
  });
});

describe('vxlan lease events', () => {
  async function ready() {
    const host = node();
    const vx = new FlanneldVxlan(flanneldHost(host));
    await vx.setup(LEASE);
    return { host, vx };
  }

  it('a RemoteSubnetRoute per remote lease, its MAC as Go prints it', async () => {
    const { host, vx } = await ready();
    await vx.onLeaseAdded({ ...REMOTE, vtepMac: '00-15-5D-AA-BB-02' });
    expect(await rsr(host)).toEqual([
      {
        DestinationPrefix: '10.244.2.0/24',
        IsolationId: 4096,
        ProviderAddress: '10.0.0.12',
        DistributedRouterMacAddress: '00:15:5d:aa:bb:02',
      },
    ]);
  });

  it('a changed lease: the route for its prefix is removed first, then the new one added', async () => {
    const { host, vx } = await ready();
    await vx.onLeaseAdded(REMOTE);
    await vx.onLeaseAdded({ ...REMOTE, publicIp: '10.0.0.22', vtepMac: '00:15:5d:aa:bb:22' });
    expect(await rsr(host)).toEqual([
      {
        DestinationPrefix: '10.244.2.0/24',
        IsolationId: 4096,
        ProviderAddress: '10.0.0.22',
        DistributedRouterMacAddress: '00:15:5d:aa:bb:22',
      },
    ]);
  });

  it('a lease without a MAC removes the old route for its prefix and adds none', async () => {
    const { host, vx } = await ready();
    await vx.onLeaseAdded(REMOTE);
    const { vtepMac: _mac, ...noMac } = REMOTE;
    await vx.onLeaseAdded(noMac);
    expect(await rsr(host)).toEqual([]);
  });

  it('an empty VtepMAC (what a node publishes before it knows its DR MAC) fails to decode: skipped', async () => {
    const { host, vx } = await ready();
    await vx.onLeaseAdded(REMOTE);
    await vx.onLeaseAdded({ ...REMOTE, vtepMac: '' });
    expect(await rsr(host)).toHaveLength(1);
    expect(vx.log.at(-1)).toMatchObject({
      level: 'E',
      message: 'error decoding subnet lease JSON: invalid MAC address',
    });
  });

  it('VNI below 4096, another backend, the own lease: nothing happens', async () => {
    const { host, vx } = await ready();
    await vx.onLeaseAdded({ ...REMOTE, vni: 1 });
    expect(vx.log.at(-1)?.message).toBe(
      'VNI is 1 but it is required to be greater than or equal to 4096 on Windows.',
    );
    await vx.onLeaseAdded({ ...REMOTE, vni: 70000 });
    expect(vx.log.at(-1)?.message).toBe(
      'error decoding subnet lease JSON: json: cannot unmarshal number 70000 into Go struct field vxlanLeaseAttrs.VNI of type uint16',
    );
    await vx.onLeaseAdded({ ...REMOTE, backendType: 'host-gw' });
    expect(vx.log.at(-1)?.message).toBe('ignoring non-vxlan subnet(10.244.2.0/24): type=host-gw');
    await vx.onLeaseAdded({ ...LEASE, vni: 4096, vtepMac: '00:15:5d:00:00:01' });
    expect(await rsr(host)).toEqual([]);
  });

  it('removal removes the route of the lease as it was added; no MAC, nothing removed', async () => {
    const { host, vx } = await ready();
    await vx.onLeaseAdded(REMOTE);
    await vx.onLeaseAdded({
      subnet: '10.244.3.0/24',
      publicIp: '10.0.0.13',
      vni: 4096,
      vtepMac: '00:15:5d:aa:bb:03',
    });
    await vx.onLeaseRemoved({ subnet: '10.244.2.0/24', publicIp: '10.0.0.12' });
    expect((await rsr(host)).map((s) => (s as { DestinationPrefix: string }).DestinationPrefix)).toEqual([
      '10.244.3.0/24',
    ]);
    expect(vx.leases.map((l) => l.subnet)).toEqual(['10.244.3.0/24']);
  });

  it('HNS refusing a policy is ignored, as flanneld ignores AddPolicy errors', async () => {
    const { host, vx } = await ready();
    host.faults.fail({ method: 'HcnModifyNetwork' }, 'HCN_E_INVALID_POLICY', { times: 1 });
    await vx.onLeaseAdded(REMOTE);
    expect(await rsr(host)).toEqual([]);
    expect(vx.log.filter((l) => l.level === 'E')).toEqual([]);
  });

  it('the network gone: the event is logged and skipped', async () => {
    const { host, vx } = await ready();
    const fh = flanneldHost(host);
    await (await fh.hcn.getNetworkByName('flannel.4096')).delete();
    await vx.onLeaseAdded(REMOTE);
    expect(vx.log.at(-1)?.message).toBe(
      'Unable to find network flannel.4096, error: Network name "flannel.4096" not found',
    );
  });
});
