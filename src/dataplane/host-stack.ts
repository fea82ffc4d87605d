/**
 * The host's TCP/IP stack, compartment 1 (reference vfp-dataplane.md §1.6, kubernetes-windows.md
 * §1): what the host sends, and what arrives on its interfaces — NodePorts, external IPs and port
 * mappings answered on its addresses, load-balanced traffic handed to its backend, the rest routed
 * out (IP forwarding, WinNAT in both directions, Internal networks kept host-only).
 */
import { ICMP, withPacket, type Packet, type RuleRef } from '../vswitch/contracts.js';
import { encapRuleName, LAYER, portMappingRuleName } from '../vswitch/names.js';
import { vniOf, type HostInterfaceView, type PortView } from '../vswitch/view.js';
import { contains, fmt, fmtPrefix } from '../vswitch/v4.js';
import { applyLb, findLb, lbRef } from './lb.js';
import { flowNat, snatPort, track, unNat } from './nat.js';
import type { HostPlane } from './plane.js';
import { networkRef, portRef } from './refs.js';
import { encap, wire } from './uplink.js';
import { extensionTakes } from './extension.js';
import type { Walk } from './walk.js';

/**
 * The host's TCP/IP stack (compartment 1): a packet the host sends (`inIf` undefined) or one
 * arriving on one of its interfaces. Delivers what is for the host (after NodePorts, external
 * IPs and port mappings), else routes it (forwarding, WinNAT).
 */
export function hostStack(
  plane: HostPlane,
  w: Walk,
  p0: Packet,
  inIf: HostInterfaceView | undefined,
  reply = false,
  fromWire = false,
): void {
  const host = plane.name;
  const p = unNat(plane, w, p0, 'NAT');
  if (w.looping(`${host}:stack`, p)) {
    return w.stop(host, 'HostStack', 'Loop', p, 'Loop', 'the packet came this way before');
  }
  // service traffic the host originates: the host vNIC's SLB layer (LocalRoutedVIP)
  if (!inIf) {
    const lb = findLb(plane, p, false);
    if (lb && lb.localRoutedVip) {
      const r = applyLb(plane, w, lb, p, 'host');
      if (!r) return;
      return toBackend(plane, w, r.target, r.packet, false);
    }
  }
  const own = plane.ownsIp(p.dstIp);
  // an external IP (a VIP the underlay routes to this node) arriving from the wire
  if (inIf && !own) {
    const ext = findLb(plane, p, false);
    if (ext && !(ext.ilb && fromWire)) {
      const r = applyLb(plane, w, ext, p, 'host');
      if (!r) return;
      return toBackend(plane, w, r.target, r.packet, true);
    }
  }
  if (own) {
    // NodePort / external IP load balancers and port mappings answer on the host's addresses
    const found = findLb(plane, p, true);
    // an ILB port mapping serves only traffic from inside (pods), not from the wire
    const lb = found && !(found.ilb && fromWire) ? found : undefined;
    if (lb) {
      if (!inIf && !plane.options.localNodePort) {
        return w.stop(
          host,
          'HostStack',
          'Unsupported',
          p,
          'Unsupported',
          'a node cannot reach its own NodePort (documented limitation; option localNodePort)',
          lbRef(plane, lb, p.dstIp, 'host'),
        );
      }
      const r = applyLb(plane, w, lb, p, 'host');
      if (!r) return;
      return toBackend(plane, w, r.target, r.packet, true);
    }
    const pm = findPortMapping(plane, p);
    if (pm) {
      const { port, index, s } = pm;
      const after = withPacket(p, { dstIp: port.ip, dstPort: s.internalPort });
      const ref = portRef(
        port,
        'PortMapping',
        index,
        LAYER.SLB_NAT,
        portMappingRuleName(p.proto, s.externalPort, s.internalPort),
      );
      w.step(
        host,
        'NAT',
        'DNAT',
        p,
        after,
        ref,
        `host port ${s.externalPort} → ${fmt(port.ip)}:${s.internalPort}`,
      );
      track(plane, w, after, p, 'DNAT', ref);
      return hostToPort(plane, w, port, after);
    }
    // a NetNat static mapping (Add-NetNatStaticMapping, Antrea's antrea-nat-nodeport): what
    // arrives on an interface for the mapped port is DNATed and routed on (not the host's own)
    const sm = inIf ? plane.staticMappingFor(p.proto, p.dstIp, p.dstPort) : undefined;
    if (sm) {
      const after = withPacket(p, { dstIp: sm.internalIp, dstPort: sm.internalPort });
      const mapped = `${sm.protocol} ${fmt(sm.externalIp)}:${sm.externalPort} → ${fmt(sm.internalIp)}:${sm.internalPort}`;
      const ref: RuleRef = {
        kind: 'Host',
        id: host,
        name: sm.natName,
        policy: 'NetNatStaticMapping',
        ruleId: String(sm.id),
        layer: 'WinNAT',
        rule: `NetNatStaticMapping ${sm.natName} ${mapped}`,
      };
      w.step(host, 'NAT', 'DNAT', p, after, ref, `WinNAT: ${sm.natName} ${mapped}`);
      track(plane, w, after, p, 'DNAT', ref);
      return routeOut(plane, w, after, true);
    }
    w.step(host, 'HostStack', 'Delivered', p, p, undefined, `${fmt(p.dstIp)} is this host's address`);
    return w.finish('Delivered', host, p, 'host');
  }
  if (inIf && plane.options.ipForwarding === false) {
    return w.stop(host, 'HostStack', 'Dropped', p, 'NoRoute', `IP forwarding is disabled on ${inIf.name}`);
  }
  // an Internal network is host-only: the host does not route its containers' traffic elsewhere
  const internal = inIf?.switchId ? plane.view().switches.get(inIf.switchId) : undefined;
  if (internal && internal.networks.some((n) => n.type === 'Internal')) {
    return w.stop(
      host,
      'HostStack',
      'Dropped',
      p,
      'NoRoute',
      `${inIf!.name} is the host vNIC of an Internal (host-only) network: not forwarded`,
    );
  }
  routeOut(plane, w, p, inIf !== undefined, reply || p !== p0);
}

/**
 * The host stack hands a load-balanced packet to its backend: a local port through the switch; a
 * remote endpoint of an overlay network encapsulated to its provider address (node-to-node
 * forwarding); any other remote one by the host's routes. A backend whose endpoint is gone
 * (`target` undefined) is only an address: whatever endpoint holds it now, else the host's routes.
 */
function toBackend(
  plane: HostPlane,
  w: Walk,
  target: PortView | undefined,
  p: Packet,
  forwarded: boolean,
): void {
  const v = plane.view();
  const t = target ?? v.localByIp.get(p.dstIp) ?? v.remoteByIp.get(p.dstIp);
  if (!t) return routeOut(plane, w, p, forwarded);
  if (!t.remote) return hostToPort(plane, w, t, p);
  const net = t.network;
  if (net.type === 'Overlay') {
    const rs = net.remoteSubnets.lookup(p.dstIp);
    const pa = t.pa || rs?.pa || 0;
    if (pa) {
      const vni = vniOf(net, t.ip) || rs?.vni || 0;
      return encap(plane, w, net, p, pa, vni, rs?.drMac ?? net.drMac, {
        kind: 'Endpoint',
        id: t.id,
        policy: 'ProviderAddress',
        layer: LAYER.ENCAP,
        rule: encapRuleName(`${fmt(t.ip)}/32`, pa, vni),
      });
    }
  }
  routeOut(plane, w, p, forwarded);
}

function findPortMapping(
  plane: HostPlane,
  p: Packet,
): { port: PortView; index: number; s: PortView['portMappings'][number]['s'] } | undefined {
  if (p.proto !== 6 && p.proto !== 17) return undefined;
  for (const port of plane.view().ports.values()) {
    if (port.remote) continue;
    for (const { s, index } of port.portMappings) {
      if (s.ipv6 || s.protocol !== p.proto || s.externalPort !== p.dstPort) continue;
      if (s.vipAddr && s.vipAddr.family === 4 && s.vipAddr.value !== p.dstIp) continue;
      return { port, index, s };
    }
  }
  return undefined;
}

/** The host hands a packet to a local port (through its host vNIC and the switch). */
function hostToPort(plane: HostPlane, w: Walk, port: PortView, p: Packet, through?: HostInterfaceView): void {
  const v = plane.view();
  const viaIf =
    through ??
    v.hostIfs.find(
      (i) => i.switchId === port.network.switchId && (i.kind === 'EndpointVNic' || i.kind === 'HostVNic'),
    );
  // a switch whose forwarding extension replaces VFP: the host's packet goes to it
  // (the frame the host puts on the vNIC: its MAC, the port's as the neighbour it resolved)
  const at = { kind: 'hostVnic', ...(viaIf ? { vnic: viaIf } : {}) } as const;
  const after = withPacket(p, { srcMac: viaIf?.mac ?? plane.hostMac(), dstMac: port.mac });
  if (extensionTakes(plane, w, port.network.switchId, at, after)) return;
  if (port.network.type === 'Overlay' && viaIf?.kind === 'EndpointVNic' && !port.network.hostRoute) {
    return w.stop(
      plane.name,
      'HostStack',
      'NoRoute',
      p,
      'NoRoute',
      `the overlay network has no HostRoute policy: the host does not reach its pods`,
    );
  }
  w.step(
    plane.name,
    'vSwitch',
    'Switched',
    p,
    after,
    undefined,
    `from the host to port ${port.name || port.id}`,
  );
  plane.portIngress(w, port, after);
}

/** Route a packet out of the host stack (forwarded when `forwarded`). */
function routeOut(plane: HostPlane, w: Walk, p0: Packet, forwarded: boolean, reply = false): void {
  const host = plane.name;
  let p = p0;
  if (forwarded && p.ttl <= 1) {
    return w.stop(host, 'HostStack', 'TtlExceeded', p, 'TtlExceeded');
  }
  const r = plane.lookupRoute(p.dstIp);
  if (!r) {
    return w.stop(host, 'HostStack', 'NoRoute', p, 'NoRoute', `no route to ${fmt(p.dstIp)}`);
  }
  const out = plane.hostInterface(r.iface)!;
  const hop = r.nextHop || p.dstIp;
  const v = plane.view();
  // WinNAT: inbound only through port mappings; the internal prefix is not routed to from outside
  const outSwitch = out.switchId ? v.switches.get(out.switchId) : undefined;
  const intoNat = outSwitch?.networks.find((n) => n.type === 'NAT' || n.type === 'ICS');
  if (forwarded && !reply && intoNat && !intoNat.subnets.some((s) => contains(s.prefix, p.srcIp))) {
    return w.stop(
      host,
      'NAT',
      'Dropped',
      p,
      'NoRoute',
      `${intoNat.name || intoNat.id} is behind WinNAT: reachable from outside only through a port mapping`,
      networkRef(intoNat, { layer: 'WinNAT' }),
    );
  }
  // WinNAT: an internal NAT network's traffic leaving through another interface
  const natNet = [...v.networks.values()].find(
    (n) =>
      (n.type === 'NAT' || n.type === 'ICS') &&
      n.subnets.some((s) => contains(s.prefix, p.srcIp)) &&
      n.switchId !== out.switchId,
  );
  // a NetNat of the host's own (New-NetNat, Antrea's antrea-nat): its internal prefix's traffic
  // forwarded out of an interface outside that prefix, to an address outside it
  const netNat = natNet
    ? undefined
    : forwarded
      ? plane
          .netNats()
          .find(
            (n) => contains(n.prefix, p.srcIp) && !contains(n.prefix, p.dstIp) && !contains(n.prefix, out.ip),
          )
      : undefined;
  const nat = natNet
    ? {
        label: natNet.name || natNet.id,
        ref: networkRef(natNet, { layer: 'WinNAT', rule: `NetNat ${fmtPrefix(natNet.subnets[0]!.prefix)}` }),
      }
    : netNat
      ? {
          label: netNat.name,
          ref: {
            kind: 'Host',
            id: host,
            name: netNat.name,
            policy: 'NetNat',
            layer: 'WinNAT',
            rule: `NetNat ${netNat.name} ${fmtPrefix(netNat.prefix)}`,
          } satisfies RuleRef,
        }
      : undefined;
  if (nat && !reply) {
    if (p.proto !== 6 && p.proto !== 17 && p.proto !== ICMP) {
      return w.stop(
        host,
        'NAT',
        'Unsupported',
        p,
        'Unsupported',
        `WinNAT does not translate protocol ${p.proto}`,
      );
    }
    const prior = flowNat(plane, w, p, 'SNAT');
    const sp =
      p.proto === ICMP
        ? p.srcPort
        : prior && prior.srcIp === out.ip
          ? prior.srcPort
          : snatPort(plane, w, out.ip, p.proto);
    const ref = nat.ref;
    if (sp === undefined) {
      return w.stop(host, 'NAT', 'PortExhausted', p, 'PortExhausted', undefined, ref);
    }
    const after = withPacket(p, { srcIp: out.ip, srcPort: sp });
    w.step(host, 'NAT', 'SNAT', p, after, ref, `WinNAT: ${nat.label} → ${fmt(out.ip)}`);
    track(plane, w, after, p, 'SNAT', ref);
    p = after;
  }
  // the frame leaves through `out`: its MAC, and one TTL less when forwarded
  const sent = withPacket(p, {
    srcMac: out.mac || plane.hostMac(),
    ...(forwarded ? { ttl: p.ttl - 1 } : {}),
  });
  w.step(
    host,
    'HostStack',
    forwarded ? 'Forwarded' : 'Routed',
    p,
    sent,
    {
      kind: 'Host',
      id: host,
      policy: 'Route',
      layer: 'HostStack',
      rule: `${fmtPrefix(r.dest)} via ${r.nextHop ? fmt(r.nextHop) : 'on-link'} dev ${r.iface}`,
    },
    `${fmtPrefix(r.dest)} → ${r.nextHop ? fmt(r.nextHop) : 'on-link'} on ${r.iface}`,
  );
  if (out.kind === 'EndpointVNic' || out.kind === 'HostVNic') {
    const target = v.localByIp.get(hop);
    if (target && target.network.switchId === out.switchId && target.compartment !== 1)
      return hostToPort(plane, w, target, sent, out);
    if (out.kind === 'EndpointVNic') {
      return w.stop(
        host,
        'vSwitch',
        'NoRoute',
        sent,
        'NoRoute',
        `no port of ${out.name}'s switch holds ${fmt(hop)}`,
      );
    }
    if (!outSwitch || outSwitch.type !== 'External') {
      return w.stop(
        host,
        'vSwitch',
        'NoRoute',
        sent,
        'NoRoute',
        `${out.name} is on an ${outSwitch?.type ?? 'unknown'} switch and no port holds ${fmt(hop)}`,
      );
    }
    // out of the management vNIC onto a switch whose forwarding extension replaces VFP
    if (extensionTakes(plane, w, out.switchId, { kind: 'hostVnic', vnic: out }, sent)) return;
  }
  wire(plane, w, sent, hop);
}

/** The host sends a packet (node → pod, node → outside). */
export function sendFromHost(plane: HostPlane, w: Walk, p0: Packet): void {
  const host = plane.name;
  const src = p0.srcIp || sourceFor(plane, p0.dstIp);
  const p = withPacket(p0, { srcIp: src });
  w.step(host, 'HostStack', 'Sent', p0, p, undefined, `from ${fmt(src)}`);
  plane.hostStack(w, p, undefined);
}

/** The source address the host picks for `dst`: its outgoing interface's. */
export function sourceFor(plane: HostPlane, dst: number): number {
  const r = plane.lookupRoute(dst);
  return (r && plane.hostInterface(r.iface)?.ip) || plane.primaryIp();
}
