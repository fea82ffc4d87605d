/**
 * Where a packet goes once its port's layers let it out (reference vfp-dataplane.md §1.5, §6): to
 * another port of the switch (switched, routed between networks of one switch, hairpinned), by a
 * remote endpoint or remote subnet into VXLAN, by an SDN route to the uplink or the host, to the
 * host through a host vNIC, or out of an external switch's uplink.
 */
import { withPacket, type Packet } from '../vswitch/contracts.js';
import { encapRuleName, LAYER } from '../vswitch/names.js';
import { vniOf, type PortView } from '../vswitch/view.js';
import { contains, fmt, fmtPrefix, prefix4 } from '../vswitch/v4.js';
import { containerNextHop } from './container.js';
import type { HostPlane } from './plane.js';
import { networkRef } from './refs.js';
import { encap, uplinkOut } from './uplink.js';
import type { Walk } from './walk.js';

/** After the port's layers: where the packet goes (vSwitch, encapsulation, uplink, host stack). */
export function forward(
  plane: HostPlane,
  w: Walk,
  port: PortView,
  p: Packet,
  nextHop: number,
  fromHost: boolean,
  target: PortView | undefined,
): void {
  const host = plane.name;
  const v = plane.view();
  const net = port.network;
  const local = target && !target.remote ? target : target ? undefined : v.localByIp.get(p.dstIp);
  if (local) return switchTo(plane, w, port, local, p, fromHost);
  // overlay: remote endpoints (kube-proxy) and remote subnets (flannel, Calico)
  if (net.type === 'Overlay') {
    const remote = target?.remote ? target : v.remoteByIp.get(p.dstIp);
    const rs = net.remoteSubnets.lookup(p.dstIp);
    if (remote && remote.pa && remote.network.type === 'Overlay') {
      const vni = vniOf(remote.network, remote.ip) || vniOf(net, port.ip);
      const rule = {
        kind: 'Endpoint' as const,
        id: remote.id,
        ...(remote.name ? { name: remote.name } : {}),
        policy: 'ProviderAddress',
        layer: LAYER.ENCAP,
        rule: encapRuleName(`${fmt(remote.ip)}/32`, remote.pa, vni),
      };
      // a remote endpoint whose provider address is this node (kube-proxy's service-VIP endpoint:
      // the ClusterIP, the host's MAC, PA = the node IP) holds an address only a load balancer
      // serves: a packet that no load balancer took has nowhere to go (our choice: NoRoute here,
      // rather than VXLAN to this node itself)
      if (remote.pa === (net.managementIp || plane.primaryIp())) {
        w.count(host, port.id, 'droppedOut');
        return w.stop(
          host,
          'Encap',
          'NoRoute',
          p,
          'NoRoute',
          `${fmt(p.dstIp)} is a remote endpoint on this node (PA ${fmt(remote.pa)}): no load balancer took the packet`,
          rule,
        );
      }
      return encap(plane, w, net, p, remote.pa, vni, rs?.drMac ?? net.drMac, rule);
    }
    if (rs) {
      return encap(
        plane,
        w,
        net,
        p,
        rs.pa,
        rs.vni,
        rs.drMac,
        networkRef(net, {
          policy: 'RemoteSubnetRoute',
          index: rs.index,
          layer: LAYER.ENCAP,
          rule: encapRuleName(fmtPrefix(rs.dest), rs.pa, rs.vni),
        }),
      );
    }
  }
  const sw = net.switchId ? v.switches.get(net.switchId) : undefined;
  const toHost = !fromHost && plane.ownsIp(p.dstIp);
  // a NeedEncap route: on Overlay the destination must be a remote subnet or endpoint; on the
  // other external types VFP sends it out of the uplink itself, not through the gateway; to one of
  // the host's own addresses (win-bridge's management-IP /32 route) it goes to the host
  const need = fromHost ? undefined : port.sdnRoutes.find((r) => r.needEncap && contains(r.dest, p.dstIp));
  if (need && !toHost) {
    if (net.type !== 'Overlay' && sw?.type === 'External') {
      w.step(
        host,
        'Routing',
        'ToUplink',
        p,
        p,
        need.ref,
        `NeedEncap route to ${fmtPrefix(need.dest)}: out of the uplink`,
      );
      return uplinkOut(plane, w, net, p, p.dstIp);
    }
    w.count(host, port.id, 'droppedOut');
    return w.stop(
      host,
      'Routing',
      'NoRoute',
      p,
      'NoRoute',
      `NeedEncap route to ${fmtPrefix(need.dest)}, but no remote subnet or remote endpoint holds ${fmt(p.dstIp)}`,
      need.ref,
    );
  }
  if (need) {
    w.step(host, 'Routing', 'ToHost', p, p, need.ref, `NeedEncap route ${fmtPrefix(need.dest)}: to the host`);
    return plane.hostStack(w, p, v.hostIfByIp.get(p.dstIp));
  }
  // an overlay network's HostRoute policy: local pod → local host
  if (toHost && net.type === 'Overlay' && net.hostRoute) {
    const i = net.rec.Policies.findIndex((x) => x.type === 'HostRoute');
    w.step(
      host,
      'Routing',
      'ToHost',
      p,
      p,
      networkRef(net, { policy: 'HostRoute', index: i, layer: LAYER.ROUTE }),
      'HostRoute: a local pod reaches its host',
    );
    return plane.hostStack(w, p, v.hostIfByIp.get(p.dstIp));
  }
  const viaRoute = port.sdnRoutes.find((r) => !r.needEncap && r.nextHop && contains(r.dest, p.dstIp));
  if (viaRoute) nextHop = viaRoute.nextHop;
  if (fromHost) {
    return w.stop(host, 'vSwitch', 'NoRoute', p, 'NoRoute', `no port of the switch holds ${fmt(p.dstIp)}`);
  }
  // to a host interface (a host endpoint such as cbr0's .2, or the switch's host vNIC)
  const hi = v.hostIfByIp.get(nextHop);
  if (hi && (hi.switchId === net.switchId || hi.kind === 'EndpointVNic')) {
    w.step(host, 'vSwitch', 'ToHost', p, p, undefined, `to the host through ${hi.name}`);
    return plane.hostStack(w, p, hi);
  }
  if (!sw || sw.type !== 'External') {
    w.count(host, port.id, 'droppedOut');
    return w.stop(
      host,
      'vSwitch',
      'NoRoute',
      p,
      'NoRoute',
      sw ? `${sw.type} switch: ${fmt(nextHop)} is not on it` : 'the network has no switch',
    );
  }
  uplinkOut(plane, w, net, p, nextHop);
}

/** A packet from a container port to another port of this host. */
function switchTo(
  plane: HostPlane,
  w: Walk,
  from: PortView,
  to: PortView,
  p: Packet,
  fromHost: boolean,
): void {
  const host = plane.name;
  if (to.id === from.id && !fromHost) {
    const back = withPacket(p, { dstMac: to.mac });
    w.step(host, 'vSwitch', 'Hairpin', p, back, undefined, 'back into the sending port');
    return plane.portIngress(w, to, back);
  }
  if (from.network.type === 'L2Tunnel' && !fromHost) {
    w.step(
      host,
      'Underlay',
      'Hairpinned',
      p,
      p,
      undefined,
      'L2Tunnel: every packet goes through the virtualization host, where its SDN policy applies',
    );
    // a host that can send it back (an Azure VM's): out of the uplink and in again, through the
    // NSG; elsewhere nothing can hairpin it, and the vSwitch delivers it (docs/model.md)
    if (w.world.underlay.hairpins) return uplinkOut(plane, w, from.network, p, to.ip);
  }
  const sameNet = to.network.id === from.network.id;
  const sameSubnet = sameNet && contains(prefix4(from.ip, from.prefixLen), to.ip);
  if (sameSubnet || fromHost) {
    const after = withPacket(p, { dstMac: to.mac });
    w.step(host, 'vSwitch', 'Switched', p, after, undefined, `to port ${to.name || to.id}`);
    return plane.portIngress(w, to, after);
  }
  if (from.network.switchId && from.network.switchId === to.network.switchId) {
    const after = withPacket(p, { srcMac: gatewayMac(plane, from), dstMac: to.mac });
    w.step(
      host,
      'vSwitch',
      'Routed',
      p,
      after,
      undefined,
      `to ${to.network.name || to.network.id}, port ${to.name || to.id}`,
    );
    return plane.portIngress(w, to, after);
  }
  // another switch: through the host stack, if the container's gateway leads there
  const hop = containerNextHop(from, p.dstIp);
  const hi = hop ? plane.view().hostIfByIp.get(hop.nextHop) : undefined;
  if (hi) {
    w.step(host, 'vSwitch', 'ToHost', p, p, undefined, `to the host through ${hi.name}`);
    return plane.hostStack(w, p, hi);
  }
  w.count(host, from.id, 'droppedOut');
  w.stop(
    host,
    'vSwitch',
    'NoRoute',
    p,
    'NoRoute',
    `${fmt(p.dstIp)} is on another switch and the container's gateway is not a host interface`,
  );
}

function gatewayMac(plane: HostPlane, port: PortView): number {
  return port.network.type === 'Overlay' && port.network.drMac ? port.network.drMac : plane.hostMac();
}
