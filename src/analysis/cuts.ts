/**
 * Where forwarding can treat two ports differently (reachability's classes): the values and range
 * bounds that anything on a path compares a TCP/UDP port with, ACLs aside (they are analysed as
 * sets). Between two cuts every port is forwarded alike, so one walk answers for all of them.
 *
 * The sources, each read from the model's own state: load balancers' frontend ports (VFP's
 * `lbKey(proto, VIP or *, port)`), PortMapping policies and NetNat static mappings (external
 * ports), a Linux node's kube-proxy services, Azure's platform endpoints (wireserver DNS 53, TCP
 * 80 and 32526; IMDS TCP 80) and NSG port ranges, NetworkPolicy ports and port ranges. A cut is
 * the first port of a new interval: a value `v` cuts at `v` and `v + 1`, a range `[a, b]` at `a`
 * and `b + 1`. Extra cuts cost walks, never exactness; a missing one would merge ports that
 * forwarding separates (docs/analysis.md lists what is covered, the property tests check it).
 */
import type { Cluster } from '../cluster/cluster.js';
import type { Host } from '../host/host.js';
import { IMDS_V4, WIRESERVER_V4 } from '../host/azure.js';

/** Cut points for the source and the destination port of packets to one address. */
export interface PortCuts {
  readonly src: ReadonlySet<number>;
  readonly dst: ReadonlySet<number>;
}

/** The network a question is asked of: one node or a cluster. */
export type Network = Host | Cluster;

function hostsOf(net: Network): Host[] {
  if ('allNodes' in net) {
    const out: Host[] = [];
    for (const n of net.allNodes()) if (n.kind === 'Windows') out.push(n.host);
    return out;
  }
  return [net];
}

function cutValue(set: Set<number>, v: number): void {
  set.add(v);
  if (v < 65535) set.add(v + 1);
}

function cutRange(set: Set<number>, lo: number, hi: number): void {
  if (lo > 0) set.add(lo);
  if (hi < 65535) set.add(hi + 1);
}

/** The cuts for packets to `dstIp` anywhere in `net`. */
export function portCuts(net: Network, dstIp: number): PortCuts {
  const src = new Set<number>();
  const dst = new Set<number>();
  for (const host of hostsOf(net)) {
    const plane = host.dataplane;
    const view = plane.view();
    for (const lb of view.lbs.values())
      if (!lb.vips.length || lb.vips.includes(dstIp)) cutValue(dst, lb.externalPort);
    for (const port of view.ports.values())
      for (const { s } of port.portMappings) cutValue(dst, s.externalPort);
    for (const m of plane.staticMappings()) cutValue(dst, m.externalPort);
    const vm = host.azure;
    if (vm) {
      if (dstIp === WIRESERVER_V4) for (const v of [53, 80, 32526]) cutValue(dst, v);
      if (dstIp === IMDS_V4) cutValue(dst, 80);
      for (const nic of vm.nics)
        for (const r of nic.nsg?.rules ?? []) {
          for (const [lo, hi] of r.sourcePorts) cutRange(src, lo, hi);
          for (const [lo, hi] of r.destinationPorts) cutRange(dst, lo, hi);
        }
    }
  }
  if ('allNodes' in net) {
    for (const n of net.allNodes()) {
      if (n.kind !== 'Linux') continue;
      for (const key of n.node.services.keys()) {
        const [, vip, port] = key.split('/');
        if (Number(vip) === dstIp) cutValue(dst, Number(port));
      }
    }
    for (const np of net.networkPolicyList())
      for (const r of [...(np.ingress ?? []), ...(np.egress ?? [])])
        for (const p of r.ports ?? []) {
          if (p.port === undefined) continue;
          cutRange(dst, p.port, p.endPort ?? p.port);
        }
  }
  return { src, dst };
}

/** Sorted cut points → the intervals [lo, hi] they split 0..65535 into. */
export function intervals(cuts: ReadonlySet<number>): [number, number][] {
  const points = [...cuts].filter((v) => v > 0 && v <= 65535).sort((a, b) => a - b);
  const out: [number, number][] = [];
  let lo = 0;
  for (const c of points) {
    if (c > lo) out.push([lo, c - 1]);
    lo = c;
  }
  out.push([lo, 65535]);
  return out;
}
