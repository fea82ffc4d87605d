/**
 * What a container's own network stack decides before its frame reaches the vSwitch port
 * (reference vfp-dataplane.md §1.1): its next hop (connected subnet, its Routes, its gateway) and
 * the MAC the frame carries.
 */
import { withPacket, type Packet } from '../vswitch/contracts.js';
import type { PortView } from '../vswitch/view.js';
import { contains, fmt, prefix4 } from '../vswitch/v4.js';
import type { HostPlane } from './plane.js';
import type { Walk } from './walk.js';

/**
 * A container (or the host, for a packet it originates towards a local port) sends `p` from
 * `port`. `p` carries addresses and ports; MACs are filled in here.
 */
export function sendFromPort(plane: HostPlane, w: Walk, port: PortView, p0: Packet): void {
  const host = plane.name;
  // the container's routing: connected subnet, its Routes, its gateway
  const hop = containerNextHop(port, p0.dstIp);
  if (!hop) {
    w.count(host, port.id, 'droppedOut');
    return w.stop(
      host,
      'Container',
      'NoRoute',
      p0,
      'NoRoute',
      `no route to ${fmt(p0.dstIp)} in the container`,
    );
  }
  const p = withPacket(p0, {
    srcMac: port.mac,
    dstMac: nextHopMac(plane, port, hop.onLink ? p0.dstIp : hop.nextHop),
  });
  w.step(
    host,
    'Container',
    'Sent',
    p0,
    p,
    undefined,
    hop.onLink ? `${fmt(p0.dstIp)} is on-link` : `via gateway ${fmt(hop.nextHop)}`,
  );
  w.count(host, port.id, 'sent');
  plane.portEgress(w, port, p, hop.onLink ? p.dstIp : hop.nextHop, false);
}

/** The container's next hop for `dst`: on its subnet, by its Routes, or by its gateway. */
export function containerNextHop(
  port: PortView,
  dst: number,
): { nextHop: number; onLink: boolean } | undefined {
  if (port.ip && contains(prefix4(port.ip, port.prefixLen), dst)) return { nextHop: dst, onLink: true };
  let best: { len: number; nextHop: number } | undefined;
  for (const r of port.routes) {
    if (contains(r.dest, dst) && (!best || r.dest.len > best.len))
      best = { len: r.dest.len, nextHop: r.nextHop };
  }
  if (best) return best.nextHop ? { nextHop: best.nextHop, onLink: false } : { nextHop: dst, onLink: true };
  const gw = subnetGateway(port);
  return gw ? { nextHop: gw, onLink: false } : undefined;
}

function subnetGateway(port: PortView): number {
  for (const s of port.network.subnets) if (contains(s.prefix, port.ip)) return s.gateway;
  return 0;
}

/** The MAC a container's frame to `hop` carries: a local port's, a host interface's, the DR MAC. */
function nextHopMac(plane: HostPlane, port: PortView, hop: number): number {
  const v = plane.view();
  const local = v.localByIp.get(hop);
  if (local) return local.mac;
  const hi = v.hostIfByIp.get(hop);
  if (hi) return hi.mac;
  if (port.network.type === 'Overlay' && port.network.drMac) return port.network.drMac;
  return plane.hostMac();
}
