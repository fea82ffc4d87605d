/**
 * flanneld's start on a node (flannel-io/flannel @ cdf76059 `main.go`: RegisterNetwork, then
 * HandleSubnetFile with the backend's MTU): the network, the lease to publish, subnet.env.
 */
import { describe, expect, it } from 'vitest';
import { createHost } from '../../../src/host/host.js';
import { flanneldHost, startFlanneld } from '../../../src/plugins/flanneld/index.js';
import { LEASE, NIC } from './fixture.js';

describe('startFlanneld', () => {
  it('host-gw: subnet.env with the interface MTU', async () => {
    const host = createHost({ adapters: [NIC] });
    const fl = await startFlanneld(host, {
      type: 'host-gw',
      network: '10.244.0.0/16',
      lease: LEASE,
      ipMasq: true,
    });
    expect(fl.subnetEnv).toBe(
      'FLANNEL_NETWORK=10.244.0.0/16\nFLANNEL_SUBNET=10.244.1.1/24\nFLANNEL_MTU=1500\nFLANNEL_IPMASQ=true\n',
    );
    expect(host.files.read('/run/flannel/subnet.env')).toBe(fl.subnetEnv);
    expect((await flanneldHost(host).hns.getNetworkByName('cbr0')).Type).toBe('L2Bridge');
  });

  it('vxlan: MTU − 50 and the lease with its VtepMAC', async () => {
    const host = createHost({ adapters: [NIC], profile: 'ws2022' });
    const fl = await startFlanneld(host, {
      type: 'vxlan',
      network: '10.244.0.0/16',
      lease: LEASE,
      subnetFile: 'C:\\etc\\subnet.env',
    });
    expect(fl.mtu).toBe(1450);
    expect(fl.lease.vni).toBe(4096);
    expect(fl.lease.vtepMac).toMatch(/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/);
    expect(host.files.read('/etc/subnet.env')).toContain('FLANNEL_MTU=1450\nFLANNEL_IPMASQ=false\n');
  });

  it('the 2018 vxlan design', async () => {
    const host = createHost({ adapters: [NIC] });
    const fl = await startFlanneld(host, { type: 'vxlan-2018', network: '10.244.0.0/16', lease: LEASE });
    expect(fl.lease).toEqual({ ...LEASE, backendType: 'vxlan' });
    expect((await flanneldHost(host).hns.getNetworkByName('flannel.4096')).Type).toBe('Overlay');
  });

  it('a bad network is refused before the node changes', async () => {
    const host = createHost({ adapters: [NIC] });
    await expect(
      startFlanneld(host, { type: 'host-gw', network: '10.244.0.0', lease: LEASE }),
    ).rejects.toThrow('network "10.244.0.0" is not an IPv4 CIDR');
    expect(await flanneldHost(host).hns.listNetworks()).toEqual([]);
    expect(host.files.size).toBe(0);
  });
});
