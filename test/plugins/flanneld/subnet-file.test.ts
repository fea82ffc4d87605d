/**
 * flanneld's subnet.env writer (flannel-io/flannel @ cdf76059 `pkg/subnet/subnet.go`
 * WriteSubnetFile: `FLANNEL_NETWORK=%s\nFLANNEL_SUBNET=%s\n`, the IPv6 pair, then
 * `FLANNEL_MTU=%d\nFLANNEL_IPMASQ=%t\n`; the lease IP incremented by one), and the round trip
 * through the flannel plugin's reader.
 */
import { describe, expect, it } from 'vitest';
import { FileStore } from '../../../src/core/files.js';
import { subnetEnvText, writeSubnetEnv } from '../../../src/plugins/flanneld/index.js';
import { loadSubnetEnv, netString } from '../../../src/plugins/flannel/index.js';

describe('WriteSubnetFile', () => {
  it('IPv4: the network, the first usable address of the lease with its prefix, MTU, ipMasq', () => {
    const files = new FileStore();
    const text = writeSubnetEnv(files, {
      network: '10.244.0.0/16',
      subnet: '10.244.1.0/24',
      mtu: 1450,
      ipMasq: false,
    });
    expect(text).toBe(
      'FLANNEL_NETWORK=10.244.0.0/16\nFLANNEL_SUBNET=10.244.1.1/24\nFLANNEL_MTU=1450\nFLANNEL_IPMASQ=false\n',
    );
    expect(files.read('C:\\run\\flannel\\subnet.env')).toBe(text);
  });

  it('dual stack, in flanneld order; the network is printed masked', () => {
    expect(
      subnetEnvText({
        network: '10.244.7.9/16',
        subnet: '10.244.1.0/24',
        ipv6Network: 'FC00::/48',
        ipv6Subnet: 'fc00:0:0:1::/64',
        mtu: 1500,
        ipMasq: true,
      }),
    ).toBe(
      'FLANNEL_NETWORK=10.244.0.0/16\nFLANNEL_SUBNET=10.244.1.1/24\nFLANNEL_IPV6_NETWORK=fc00::/48\nFLANNEL_IPV6_SUBNET=fc00:0:0:1::1/64\nFLANNEL_MTU=1500\nFLANNEL_IPMASQ=true\n',
    );
  });

  it('IPv6 only', () => {
    expect(
      subnetEnvText({
        ipv6Network: 'fc00::/48',
        ipv6Subnet: 'fc00::/64',
        mtu: 1450,
        ipMasq: true,
        path: '/x',
      }),
    ).toBe(
      'FLANNEL_IPV6_NETWORK=fc00::/48\nFLANNEL_IPV6_SUBNET=fc00::1/64\nFLANNEL_MTU=1450\nFLANNEL_IPMASQ=true\n',
    );
  });

  it('refuses incomplete or malformed input, writing nothing', () => {
    const files = new FileStore();
    expect(() => writeSubnetEnv(files, { network: '10.244.0.0/16', mtu: 1450, ipMasq: false })).toThrow(
      'lease subnet',
    );
    expect(() =>
      writeSubnetEnv(files, { network: 'fc00::/48', subnet: '10.244.1.0/24', mtu: 1, ipMasq: false }),
    ).toThrow('not an IPv4 CIDR');
    expect(() => writeSubnetEnv(files, { mtu: 1, ipMasq: false })).toThrow('needs network');
    expect(files.size).toBe(0);
  });

  it('what flanneld writes, the plugin reads back (FLANNEL_SUBNET as the lease network)', () => {
    const files = new FileStore();
    writeSubnetEnv(files, { network: '10.244.0.0/16', subnet: '10.244.3.0/24', mtu: 1450, ipMasq: true });
    const se = loadSubnetEnv(files, '/run/flannel/subnet.env');
    expect(netString(se.subnet)).toBe('10.244.3.0/24');
    expect(se.networks.map(netString)).toEqual(['10.244.0.0/16']);
    expect(se.mtu).toBe(1450);
    expect(se.ipMasq).toBe(true);
  });
});
