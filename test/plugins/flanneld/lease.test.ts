/**
 * flanneld's LeaseWatcher (flannel-io/flannel @ cdf76059 `pkg/lease/lease.go` Update/Reset/add/
 * remove/sameSubnet, IPv4): the node's own subnet is filtered, a removal carries the lease as it was
 * added, an unknown removal is logged and passed on; and the lease checks at the boundary.
 */
import { describe, expect, it } from 'vitest';
import { LeaseWatcher, parseLease } from '../../../src/plugins/flanneld/index.js';

const own = parseLease({ subnet: '10.244.1.0/24', publicIp: '10.0.0.11' });
const l2 = parseLease({ subnet: '10.244.2.0/24', publicIp: '10.0.0.12' });
const l2moved = parseLease({ subnet: '10.244.2.0/24', publicIp: '10.0.0.22' });
const l3 = parseLease({ subnet: '10.244.3.0/24', publicIp: '10.0.0.13' });

function watcher() {
  const logs: string[] = [];
  return { w: new LeaseWatcher(own.subnet, (_l, m) => logs.push(m)), logs };
}

const view = (batch: { type: string; lease: { lease: { subnet: string; publicIp: string } } }[]) =>
  batch.map((e) => `${e.type} ${e.lease.lease.subnet} ${e.lease.lease.publicIp}`);

describe('LeaseWatcher', () => {
  it('update: own subnet skipped, an add replaces the known lease of that subnet', () => {
    const { w } = watcher();
    expect(
      view(
        w.update([
          { type: 'added', lease: own },
          { type: 'added', lease: l2 },
        ]),
      ),
    ).toEqual(['added 10.244.2.0/24 10.0.0.12']);
    expect(view(w.update([{ type: 'added', lease: l2moved }]))).toEqual(['added 10.244.2.0/24 10.0.0.22']);
    expect(w.leases.map((l) => l.lease.publicIp)).toEqual(['10.0.0.22']);
  });

  it('a removal carries the stored lease; an unknown one is logged and passed on as given', () => {
    const { w, logs } = watcher();
    w.update([{ type: 'added', lease: l2 }]);
    expect(view(w.update([{ type: 'removed', lease: l2moved }]))).toEqual([
      'removed 10.244.2.0/24 10.0.0.12',
    ]);
    expect(view(w.update([{ type: 'removed', lease: l3 }]))).toEqual(['removed 10.244.3.0/24 10.0.0.13']);
    expect(logs).toEqual(['Removed subnet (10.244.3.0/24) and ipv6 subnet (::/0) were not found']);
  });

  it('reset: new leases added, vanished ones removed, the own lease only filtered from the events', () => {
    const { w } = watcher();
    w.update([{ type: 'added', lease: l2 }]);
    expect(view(w.reset([own, l3]))).toEqual([
      'added 10.244.3.0/24 10.0.0.13',
      'removed 10.244.2.0/24 10.0.0.12',
    ]);
    expect(w.leases.map((l) => l.lease.subnet)).toEqual(['10.244.1.0/24', '10.244.3.0/24']);
  });
});

describe('parseLease', () => {
  it.each([
    [{ subnet: '10.244.1.0', publicIp: '10.0.0.1' }, 'is not an IPv4 CIDR'],
    [{ subnet: '10.244.1.1/24', publicIp: '10.0.0.1' }, 'host bits set'],
    [{ subnet: '10.244.1.0/31', publicIp: '10.0.0.1' }, 'too small'],
    [{ subnet: '10.244.1.0/24', publicIp: 'node-1' }, 'is not an IPv4 address'],
    [{ subnet: 'fc00::/64', publicIp: '10.0.0.1' }, 'is not an IPv4 CIDR'],
  ])('%j → %s', (lease, message) => {
    expect(() => parseLease(lease)).toThrow(message);
  });
});
