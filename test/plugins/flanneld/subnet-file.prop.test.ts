/**
 * Properties of the flanneld → flannel hand-off (flannel-io/flannel @ cdf76059 `WriteSubnetFile`,
 * flannel-io/cni-plugin @ 092e6d26 `loadFlannelSubnetEnv` + Windows `doCmdAdd`): for any lease
 * subnet inside any cluster network, what flanneld writes the plugin reads back, and the delegate's
 * host-local subnet is the lease subnet itself, its ipMasqNetwork the cluster network.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FileStore } from '../../../src/core/files.js';
import {
  checkedDelegate,
  loadFlannelNetConf,
  loadSubnetEnv,
  sandboxContainerId,
  windowsDelegate,
} from '../../../src/plugins/flannel/index.js';
import { writeSubnetEnv } from '../../../src/plugins/flanneld/index.js';

const dotted = (n: number): string => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');

/** A cluster network /8–/20 and a lease subnet /21–/28 inside it, both network-aligned. */
const layout = fc
  .record({
    base: fc.integer({ min: 1, max: 223 }),
    netLen: fc.integer({ min: 8, max: 20 }),
    leaseLen: fc.integer({ min: 21, max: 28 }),
    index: fc.nat(),
    mtu: fc.integer({ min: 576, max: 9000 }),
    ipMasq: fc.boolean(),
  })
  .map(({ base, netLen, leaseLen, index, mtu, ipMasq }) => {
    const net = ((base << 24) >>> 0) & ((0xffffffff << (32 - netLen)) >>> 0);
    const count = 2 ** (leaseLen - netLen);
    const lease = (net + (index % count) * 2 ** (32 - leaseLen)) >>> 0;
    return {
      network: `${dotted(net)}/${netLen}`,
      subnet: `${dotted(lease)}/${leaseLen}`,
      first: dotted(lease + 1),
      mtu,
      ipMasq,
    };
  });

describe('flanneld subnet.env → flannel delegate', () => {
  it('round-trips for every lease layout', () => {
    fc.assert(
      fc.property(layout, (l) => {
        const files = new FileStore();
        const text = writeSubnetEnv(files, {
          network: l.network,
          subnet: l.subnet,
          mtu: l.mtu,
          ipMasq: l.ipMasq,
        });
        expect(text).toContain(`FLANNEL_SUBNET=${l.first}/${l.subnet.split('/')[1]}\n`);
        const fenv = loadSubnetEnv(files, '/run/flannel/subnet.env');
        const conf = loadFlannelNetConf('{"name":"cbr0","type":"flannel","cniVersion":"0.3.0"}');
        const d = windowsDelegate(conf, checkedDelegate(conf), fenv);
        expect(d['ipam']).toEqual({ type: 'host-local', subnet: l.subnet });
        expect(d['ipMasqNetwork']).toBe(l.network);
        expect(d['ipMasq']).toBe(l.ipMasq);
        expect(fenv.mtu).toBe(l.mtu);
      }),
      { seed: 8, numRuns: 300 },
    );
  });

  it('the sandbox ID is the container ID unless the netns has a colon (other than "none")', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (cid, a, b) => {
        expect(sandboxContainerId(cid, `${a.replace(/:/g, '')}:${b}`)).toBe(b);
        const noColon = a.replace(/:/g, '');
        expect(sandboxContainerId(cid, noColon)).toBe(cid);
      }),
      { seed: 8 },
    );
  });
});
