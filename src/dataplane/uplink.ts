/**
 * The host's uplink (reference vfp-dataplane.md §1.5, §6; overlay.md): out, VXLAN encapsulation
 * towards a provider address, the MAC rewrite (or the MAC-spoofing check of Transparent) and the
 * wire; in, a frame from the underlay — decapsulated by the overlay network of its UDP port and
 * VNI, to a port of an external switch, or to the host stack.
 */
import { withPacket, type Packet, type RuleRef } from '../vswitch/contracts.js';
import { LAYER, MAC_REWRITE_RULE } from '../vswitch/names.js';
import type { NetworkView } from '../vswitch/view.js';
import { contains, fmt, prefix4 } from '../vswitch/v4.js';
import { mix } from './lb.js';
import { unNat } from './nat.js';
import type { HostPlane } from './plane.js';
import { networkRef } from './refs.js';
import type { Walk } from './walk.js';
import { extensionTakes } from './extension.js';

/** The on-link prefix of a host without an uplink address: 0.0.0.0/32. */
const NO_UPLINK = prefix4(0, 32);

/** VXLAN encapsulation towards a provider address, then the uplink. */
export function encap(
  plane: HostPlane,
  w: Walk,
  net: NetworkView,
  p: Packet,
  pa: number,
  vni: number,
  drMac: number,
  rule: RuleRef,
): void {
  const host = plane.name;
  const src = net.managementIp || plane.primaryIp();
  const inner = withPacket(p, { srcMac: net.drMac || p.srcMac, dstMac: drMac || p.dstMac });
  const after = withPacket(inner, {
    outer: {
      srcMac: plane.hostMac(),
      dstMac: 0,
      srcIp: src,
      dstIp: pa,
      // the source port hashes the inner flow (RFC 7348 §5), here deterministically
      srcPort: 49152 + (mix(0, inner.srcIp, inner.dstIp, inner.srcPort, inner.dstPort, inner.proto) % 16384),
      dstPort: net.vxlanPort,
      vni,
    },
  });
  w.step(host, 'Encap', 'Encapsulated', p, after, rule, `VXLAN VNI ${vni} to ${fmt(pa)}:${net.vxlanPort}`);
  if (pa === src) {
    return w.stop(host, 'Encap', 'Loop', after, 'Loop', 'the provider address is this host', rule);
  }
  wire(plane, w, after, underlayNextHop(plane, pa));
}

/** The uplink: L2Bridge/L2Tunnel/Overlay rewrite the source MAC to the host's; Transparent needs spoofing. */
export function uplinkOut(plane: HostPlane, w: Walk, net: NetworkView, p: Packet, nextHop: number): void {
  const host = plane.name;
  const v = plane.view();
  const sw = net.switchId ? v.switches.get(net.switchId) : undefined;
  let cur = p;
  if (net.type === 'L2Bridge' || net.type === 'L2Tunnel' || net.type === 'Overlay') {
    const after = withPacket(p, { srcMac: plane.hostMac() });
    w.step(
      host,
      'MacRewrite',
      'Rewritten',
      p,
      after,
      networkRef(net, { layer: LAYER.MAC_REWRITE, rule: MAC_REWRITE_RULE }),
      'container MAC → host MAC',
    );
    cur = after;
  } else if (cur.srcMac !== plane.hostMac() && sw && !sw.macSpoofing) {
    return w.stop(
      host,
      'Port',
      'Dropped',
      cur,
      'DroppedMacSpoofing',
      `${sw.uplinkName ?? 'the uplink'} does not allow MAC spoofing: a frame from container MAC leaves with a foreign source MAC`,
    );
  }
  // the underlay next hop: on the host's subnet directly, else the host's route for it
  const hop = contains(v.uplink?.prefix ?? NO_UPLINK, nextHop) ? nextHop : underlayNextHop(plane, cur.dstIp);
  wire(plane, w, cur, hop);
}

/** The next hop on the underlay for `dst`, by the host's routes through its uplink. */
function underlayNextHop(plane: HostPlane, dst: number): number {
  const r = plane.lookupRoute(dst, (r) => plane.hostInterface(r.iface)?.kind === 'EndpointVNic');
  if (!r) return dst;
  return r.nextHop || dst;
}

export function wire(plane: HostPlane, w: Walk, p: Packet, nextHop: number): void {
  if (w.looping(`${plane.name}:uplink`, p)) {
    return w.stop(plane.name, 'Underlay', 'Loop', p, 'Loop', 'the packet came this way before');
  }
  w.step(plane.name, 'Port', 'Transmitted', p, p, undefined, `on the uplink towards ${fmt(nextHop)}`);
  w.world.underlay.send(w, plane, p, nextHop);
}

/** A frame arrives on the host's uplink from the underlay. */
export function receive(plane: HostPlane, w: Walk, p0: Packet): void {
  const host = plane.name;
  const v = plane.view();
  w.step(host, 'Port', 'Received', p0, p0, undefined, 'on the uplink');
  // the external switch's forwarding extension (OVS) takes every frame from the wire
  const ext = v.uplink?.kind === 'HostVNic' ? v.uplink.switchId : undefined;
  if (extensionTakes(plane, w, ext, { kind: 'uplink' }, p0)) return;
  if (p0.outer) return decap(plane, w, p0);
  const p = unNat(plane, w, p0, 'NAT');
  // a port of an external switch addressed on the wire (L2Bridge with ToR routes, Transparent)
  const local = v.localByIp.get(p.dstIp);
  if (
    local &&
    local.compartment !== 1 &&
    local.network.switchId &&
    v.switches.get(local.network.switchId)?.type === 'External'
  ) {
    let cur = p;
    if (local.network.type !== 'Transparent') {
      cur = withPacket(p, { dstMac: local.mac });
      w.step(
        host,
        'MacRewrite',
        'Rewritten',
        p,
        cur,
        { kind: 'Network', id: local.network.id, layer: LAYER.MAC_REWRITE, rule: MAC_REWRITE_RULE },
        'host MAC → container MAC',
      );
    }
    return plane.portIngress(w, local, cur);
  }
  plane.hostStack(w, p, v.uplink, p !== p0, true);
}

function decap(plane: HostPlane, w: Walk, p: Packet): void {
  const host = plane.name;
  const outer = p.outer!;
  const v = plane.view();
  const overlays = [...v.networks.values()].filter((n) => n.type === 'Overlay');
  const byPort = overlays.filter((n) => n.vxlanPort === outer.dstPort);
  if (!byPort.length) {
    return w.stop(
      host,
      'Decap',
      'Dropped',
      p,
      'NoRoute',
      overlays.length
        ? `no overlay network listens on UDP ${outer.dstPort} (this host uses ${[...new Set(overlays.map((n) => n.vxlanPort))].join(', ')})`
        : 'no overlay network on this host',
    );
  }
  const net = byPort.find((n) => n.subnets.some((s) => s.vsid === outer.vni));
  if (!net) {
    return w.stop(
      host,
      'Decap',
      'Dropped',
      p,
      'NoRoute',
      `VNI ${outer.vni} is not an overlay subnet's VSID here (${byPort.flatMap((n) => n.subnets.map((s) => s.vsid)).join(', ')})`,
    );
  }
  const inner = withPacket(p, { outer: undefined });
  w.step(
    host,
    'Decap',
    'Decapsulated',
    p,
    inner,
    networkRef(net, { layer: LAYER.ENCAP }),
    `VXLAN VNI ${outer.vni}`,
  );
  if (net.drMac && inner.dstMac && inner.dstMac !== net.drMac) {
    return w.stop(
      host,
      'Decap',
      'Dropped',
      inner,
      'NoRoute',
      `inner destination MAC is not the network's DR MAC: the sender's RemoteSubnetRoute has the wrong DistributedRouterMacAddress`,
    );
  }
  const p2 = unNat(plane, w, inner, 'NAT');
  const local = v.localByIp.get(p2.dstIp);
  if (local) return plane.portIngress(w, local, p2);
  if (p2 !== inner || plane.ownsIp(p2.dstIp)) return plane.hostStack(w, p2, v.uplink, p2 !== inner);
  w.stop(host, 'Decap', 'NoRoute', p2, 'NoRoute', `no local endpoint holds ${fmt(p2.dstIp)}`);
}
