/**
 * The VFP pipeline of one vSwitch port (reference vfp-dataplane.md §1.2–§1.4, §2): outbound, the
 * ACL layer, load balancing, OutBoundNAT and then forwarding; inbound, un-NAT, the ACL layer (a
 * reply of an allowed flow skips it) and delivery to the container.
 */
import { evaluateAcls } from '../vswitch/acl.js';
import { ICMP, withPacket, type Packet } from '../vswitch/contracts.js';
import { LAYER, outboundNatExceptionRuleName, snatRuleName } from '../vswitch/names.js';
import type { LbView, PortView } from '../vswitch/view.js';
import { contains, fmt, type Prefix4 } from '../vswitch/v4.js';
import { flowKey, replyOf } from './conntrack.js';
import { containerNextHop } from './container.js';
import { applyLb, findLb, lbRef } from './lb.js';
import { flowNat, snatPort, track, unNat } from './nat.js';
import type { HostPlane } from './plane.js';
import { portRef } from './refs.js';
import { forward } from './switch.js';
import { extensionTakes } from './extension.js';
import type { Walk } from './walk.js';

/**
 * The VFP pipeline of a port, outbound (container → switch): ACL, load balancing, OutBoundNAT,
 * routes, then forwarding (vSwitch, encapsulation, MAC rewrite, uplink or host stack). A reply of
 * an allowed flow skips the rules (stateful layers).
 */
export function portEgress(
  plane: HostPlane,
  w: Walk,
  port: PortView,
  p: Packet,
  nextHop: number,
  fromHost: boolean,
): void {
  const host = plane.name;
  // a switch whose forwarding extension replaces VFP (OVS): no VFP layer runs on its ports
  if (extensionTakes(plane, w, port.network.switchId, { kind: 'port', port }, p)) return;
  // (a probe meets every port's rules: the analysis works out which packets are replies)
  if (!w.checks && w.ct.isEstablished(flowKey(host, port.id, 'Out', p))) {
    w.step(
      host,
      'Conntrack',
      'Established',
      p,
      p,
      undefined,
      'reply of an allowed flow: the port rules are skipped',
    );
    const un = unNat(plane, w, p);
    return forward(plane, w, port, un, hopAfter(port, p, un, nextHop), fromHost, undefined);
  }
  const dipFirst = plane.options.egressAclSees === 'dip';
  if (!dipFirst && !aclStage(plane, w, port, 'Out', p)) return;
  // load balancing (LB_DSR on every local pod port; SLB for non-DSR)
  const lb = findLb(plane, p, false);
  let balanced: { packet: Packet; target: PortView | undefined } | undefined;
  if (lb) {
    balanced = applyLb(plane, w, lb, p, 'port');
    if (!balanced) return;
    if (dipFirst) establish(w, host, port, 'In', p);
  }
  const cur = balanced?.packet ?? p;
  if (dipFirst && !aclStage(plane, w, port, 'Out', cur)) return;
  // OutBoundNAT (and loopback DSR)
  const natted = outboundNat(plane, w, port, cur, lb ? { lb, vip: p.dstIp } : undefined);
  if (!natted) return;
  forward(plane, w, port, natted, hopAfter(port, p, natted, nextHop), fromHost, balanced?.target);
}

/** The next hop once a layer rewrote `before` into `after`: a new destination is routed anew. */
function hopAfter(port: PortView, before: Packet, after: Packet, nextHop: number): number {
  if (after.dstIp === before.dstIp) return nextHop;
  const h = containerNextHop(port, after.dstIp);
  return h ? (h.onLink ? after.dstIp : h.nextHop) : after.dstIp;
}

/**
 * A port's ACL layer (and WFP) in one direction: records the verdict and its rule, ends the walk
 * on a denial, and on an allow records the flow its replies will belong to.
 */
function aclStage(plane: HostPlane, w: Walk, port: PortView, dir: 'In' | 'Out', p: Packet): boolean {
  const host = plane.name;
  if (w.checks) {
    w.checks.push({ host, port, dir, packet: p, at: w.observations.length });
    w.step(host, 'ACL', 'Probed', p, p, undefined, `${dir}: every verdict is followed (analysis)`);
    establish(w, host, port, dir === 'In' ? 'Out' : 'In', p);
    return true;
  }
  const acls = port.acls();
  const v = evaluateAcls(acls, dir, p.proto, p.srcIp, p.srcPort, p.dstIp, p.dstPort);
  if (acls.any) {
    // no ACL at all: VFP has no rule to show
    const rule = v.rule ?? {
      kind: 'Endpoint',
      id: port.id,
      policy: 'ACL',
      layer: v.stage === 'WFP' ? LAYER.WFP : LAYER.ACL,
      rule: v.by,
    };
    const detail =
      v.by === 'rule' ? `${v.stage} ${dir}` : `${v.stage} ${dir}: ${v.by} (the endpoint has ACL policies)`;
    w.step(host, 'ACL', v.allowed ? 'Allowed' : 'Denied', p, p, rule, detail);
  }
  if (!v.allowed) {
    w.count(host, port.id, dir === 'In' ? 'droppedIn' : 'droppedOut');
    w.finish(
      dir === 'In' ? 'DeniedIn' : 'DeniedOut',
      host,
      p,
      dir === 'In' ? `endpoint:${port.id}` : undefined,
    );
    return false;
  }
  establish(w, host, port, dir === 'In' ? 'Out' : 'In', p);
  return true;
}

/** Record the flow `p` opens: its replies arriving at the port in `replyDir` are let through. */
function establish(w: Walk, host: string, port: PortView, replyDir: 'In' | 'Out', p: Packet): void {
  const matches = replyOf(p);
  w.ct.establish(flowKey(host, port.id, replyDir, matches));
  if (w.checks)
    w.established.push({
      host,
      portId: port.id,
      dir: replyDir,
      matches: matches as Packet,
      at: w.observations.length,
    });
}

/** OutBoundNAT: SNAT to the host (or VirtualIP) unless the destination is an exception. */
function outboundNat(
  plane: HostPlane,
  w: Walk,
  port: PortView,
  p: Packet,
  viaLb: { readonly lb: LbView; readonly vip: number } | undefined,
): Packet | undefined {
  const host = plane.name;
  for (const { s, index, dests, exceptions } of port.outboundNat) {
    if (s.ipv6) continue;
    const inList = (list: readonly Prefix4[]) => list.some((x) => contains(x, p.dstIp));
    if (dests.length && !inList(dests)) continue;
    if (!dests.length && inList(exceptions)) {
      w.step(
        host,
        'NAT',
        'Excepted',
        p,
        p,
        portRef(port, 'OutBoundNAT', index, LAYER.SLB_NAT, outboundNatExceptionRuleName()),
        `${fmt(p.dstIp)} is in the OutBoundNAT exceptions: no SNAT`,
      );
      continue;
    }
    const natIp =
      s.virtualIpAddr?.family === 4 ? s.virtualIpAddr.value : port.network.managementIp || plane.primaryIp();
    const ref = portRef(port, 'OutBoundNAT', index, LAYER.SLB_NAT, snatRuleName(p.proto, port.ip, natIp));
    if (p.proto !== 6 && p.proto !== 17) {
      const { rule: _none, ...policyOnly } = ref;
      w.count(host, port.id, 'droppedOut');
      w.stop(
        host,
        'NAT',
        'Unsupported',
        p,
        'Unsupported',
        `VFP does not transpose ${p.proto === ICMP ? 'ICMP' : `protocol ${p.proto}`} through OutBoundNAT`,
        policyOnly,
      );
      return undefined;
    }
    const prior = flowNat(plane, w, p, 'SNAT');
    const sp =
      prior && prior.srcIp === natIp
        ? prior.srcPort
        : snatPort(plane, w, natIp, p.proto, port.id, s.maxPortPoolUsage);
    if (sp === undefined) {
      w.count(host, port.id, 'droppedOut');
      w.stop(
        host,
        'NAT',
        'PortExhausted',
        p,
        'PortExhausted',
        s.maxPortPoolUsage
          ? `MaxPortPoolUsage ${s.maxPortPoolUsage} reached or pool empty`
          : `no free SNAT port on ${fmt(natIp)}`,
        ref,
      );
      return undefined;
    }
    const after = withPacket(p, { srcIp: natIp, srcPort: sp });
    w.step(
      host,
      'NAT',
      'SNAT',
      p,
      after,
      ref,
      dests.length ? `${fmt(p.dstIp)} is in Destinations` : undefined,
    );
    track(plane, w, after, p, 'SNAT', ref);
    return after;
  }
  if (viaLb && viaLb.lb.dsr && p.dstIp === port.ip) {
    w.count(host, port.id, 'droppedOut');
    w.stop(
      host,
      'LB',
      'Unsupported',
      p,
      'Unsupported',
      'a pod reaching itself through a DSR VIP needs loopback DSR (an OutBoundNAT policy with Destinations = its own IP)',
      lbRef(plane, viaLb.lb, viaLb.vip),
    );
    return undefined;
  }
  return p;
}

/** The VFP pipeline of a port, inbound: un-NAT, ACL In (unless established), delivery. */
export function portIngress(plane: HostPlane, w: Walk, port: PortView, p0: Packet): void {
  const host = plane.name;
  const p = unNat(plane, w, p0, 'LB');
  if (!w.checks && w.ct.isEstablished(flowKey(host, port.id, 'In', p))) {
    w.step(
      host,
      'Conntrack',
      'Established',
      p,
      p,
      undefined,
      port.acls().any
        ? 'reply of an allowed flow: the ACL rules are skipped'
        : 'reply of a tracked flow (the port has no ACL)',
    );
  } else if (!aclStage(plane, w, port, 'In', p)) {
    return;
  }
  const after = withPacket(p, { dstMac: port.mac });
  w.step(
    host,
    'Delivery',
    'Delivered',
    p,
    after,
    undefined,
    port.compartment === 1 ? `to the host through ${port.name || port.id}` : `to ${port.name || port.id}`,
  );
  w.count(host, port.id, 'received');
  w.finish('Delivered', host, after, port.compartment === 1 ? 'host' : `endpoint:${port.id}`);
}
