/**
 * Subnet leases as flanneld's backends see them (flannel-io/flannel @ cdf76059 `pkg/lease/lease.go`;
 * reference cni-windows.md §5.2, §5.3): a node's IPv4 pod subnet, its public IP and, for vxlan, the
 * VNI and VTEP MAC it published; and the `LeaseWatcher` that turns lease events into the batches a
 * backend handles (the node's own subnet is never passed on; a removal carries the lease as it was
 * last added).
 */
import { fmt, ip4, parsePrefix4, type Prefix4 } from '../../vswitch/v4.js';

/**
 * One node's lease. `backendType` defaults to the backend handling it (a mismatch is ignored with a
 * warning, as flanneld does); `vni` and `vtepMac` are vxlan's `BackendData` (`{"VNI","VtepMAC"}`):
 * absent `vtepMac` is a nil MAC, and an empty one is what a node publishes before it knows its DR
 * MAC (`""`, which other nodes fail to decode).
 */
export interface Lease {
  /** The pod subnet, network-aligned: `10.244.1.0/24`. */
  readonly subnet: string;
  /** `PublicIP`: the node's address other nodes route or tunnel to. */
  readonly publicIp: string;
  readonly backendType?: string;
  readonly vni?: number;
  readonly vtepMac?: string;
}

export type LeaseEventType = 'added' | 'removed';

export interface LeaseEvent {
  readonly type: LeaseEventType;
  readonly lease: Lease;
}

/** A lease checked once at the boundary: the subnet and public IP as integers. */
export interface ParsedLease {
  readonly lease: Lease;
  readonly subnet: Prefix4;
  readonly publicIp: number;
}

/** Check a lease (bad input is refused before anything changes on the host). */
export function parseLease(lease: Lease): ParsedLease {
  const text = String(lease.subnet);
  const subnet = text.includes('/') ? parsePrefix4(text) : undefined;
  if (!subnet) throw new Error(`lease subnet "${text}" is not an IPv4 CIDR`);
  if (ip4(text.slice(0, text.indexOf('/'))) !== subnet.addr)
    throw new Error(`lease subnet "${text}" is not a network address (host bits set)`);
  if (subnet.len > 30) throw new Error(`lease subnet "${text}" is too small for pods`);
  const publicIp = ip4(String(lease.publicIp));
  if (publicIp === undefined)
    throw new Error(`lease public IP "${String(lease.publicIp)}" is not an IPv4 address`);
  if (lease.vni !== undefined && typeof lease.vni !== 'number') throw new Error('lease vni must be a number');
  if (lease.vtepMac !== undefined && typeof lease.vtepMac !== 'string')
    throw new Error('lease vtepMac must be a string');
  return { lease, subnet, publicIp };
}

/** `ip.IP4Net.String()`: `10.244.1.0/24`. */
export function subnetText(p: Prefix4): string {
  return `${fmt(p.addr)}/${p.len}`;
}

/**
 * `lease.LeaseWatcher` for IPv4 leases: `update` filters the node's own subnet and keeps the set of
 * other nodes' leases; a removal of an unknown subnet is logged and passed on with the lease given.
 */
export class LeaseWatcher {
  readonly #leases: ParsedLease[] = [];

  constructor(
    private readonly own: Prefix4,
    private readonly log: (level: 'E', message: string) => void,
  ) {}

  /** The other nodes' leases currently known, in the order they were first added. */
  get leases(): readonly ParsedLease[] {
    return this.#leases;
  }

  #same(a: Prefix4, b: Prefix4): boolean {
    return a.addr === b.addr && a.len === b.len;
  }

  /** `Update(events)`: the batch the backend handles. */
  update(
    events: readonly { type: LeaseEventType; lease: ParsedLease }[],
  ): { type: LeaseEventType; lease: ParsedLease }[] {
    const batch: { type: LeaseEventType; lease: ParsedLease }[] = [];
    for (const e of events) {
      if (this.#same(e.lease.subnet, this.own)) continue;
      const i = this.#leases.findIndex((l) => this.#same(l.subnet, e.lease.subnet));
      if (e.type === 'added') {
        if (i >= 0) this.#leases[i] = e.lease;
        else this.#leases.push(e.lease);
        batch.push(e);
      } else if (i >= 0) {
        const [was] = this.#leases.splice(i, 1);
        batch.push({ type: 'removed', lease: was! });
      } else {
        this.log('E', `Removed subnet (${subnetText(e.lease.subnet)}) and ipv6 subnet (::/0) were not found`);
        batch.push(e);
      }
    }
    return batch;
  }

  /**
   * `Reset(snapshot)`: added events for leases not known before, removed events for known leases
   * that are gone, and the known set replaced (the own lease is filtered from the events only).
   */
  reset(snapshot: readonly ParsedLease[]): { type: LeaseEventType; lease: ParsedLease }[] {
    const batch: { type: LeaseEventType; lease: ParsedLease }[] = [];
    const old = [...this.#leases];
    for (const nl of snapshot) {
      if (this.#same(nl.subnet, this.own)) continue;
      const i = old.findIndex((l) => this.#same(l.subnet, nl.subnet));
      if (i >= 0) old.splice(i, 1);
      else batch.push({ type: 'added', lease: nl });
    }
    for (const l of old) batch.push({ type: 'removed', lease: l });
    this.#leases.length = 0;
    this.#leases.push(...snapshot);
    return batch;
  }
}
