/**
 * Load balancing on one host (reference vfp-dataplane.md §3): finding the load balancer of a
 * packet (VIP or NodePort wildcard), choosing its backend deterministically (the distribution type
 * decides what the hash covers), the rule a load-balancing step names, and the DNAT (plus the SNAT
 * to the source VIP of a non-DSR one) with its tracked translation.
 */
import { withPacket, type Packet, type RuleRef } from '../vswitch/contracts.js';
import { LAYER, lbDsrRuleName, lbRuleName } from '../vswitch/names.js';
import { lbKey, type LbView, type PortView } from '../vswitch/view.js';
import { fmt } from '../vswitch/v4.js';
import { flowNat, snatPort, track } from './nat.js';
import type { CtRewrite } from './conntrack.js';
import type { HostPlane } from './plane.js';
import type { Walk } from './walk.js';

/** A 32-bit mix (murmur3's finaliser) of a seed and some integers: deterministic LB choices. */
export function mix(seed: number, ...values: number[]): number {
  let h = seed >>> 0;
  for (const v of values) {
    h ^= v >>> 0;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    h = (h ^ (h >>> 16)) >>> 0;
  }
  return h >>> 0;
}

/** Rule refs per load balancer, side and VIP; an LbView belongs to one compiled view, so none goes stale. */
const lbRefs = new WeakMap<LbView, Map<number, RuleRef>>();

function chooseBackend(plane: HostPlane, w: Walk, lb: LbView, p: Packet): number {
  const n = lb.backends.length;
  const key = `${plane.name}|${lb.id}`;
  const forced = w.forced.get(key);
  let i: number;
  if (forced !== undefined) i = forced % n;
  else {
    const seed = w.world.seed;
    const h =
      lb.distribution === 2
        ? mix(seed, p.srcIp)
        : lb.distribution === 1
          ? mix(seed, p.srcIp, p.proto)
          : mix(seed, p.srcIp, p.srcPort, p.dstIp, p.dstPort, p.proto);
    i = h % n;
  }
  w.lbChoices.push({ host: plane.name, lb: lb.id, count: n, chosen: i });
  return i;
}

/**
 * The rule a load balancer's step names: on a container port LB_DSR (DSR) or SLB_NAT_LAYER; on
 * the host side (NodePorts, external IPs, host-originated service traffic) SLB_LB_LAYER, with the
 * management IP in the VIP slot of a NodePort (SDN-health).
 */
export function lbRef(plane: HostPlane, lb: LbView, vip: number, side: 'port' | 'host' = 'port'): RuleRef {
  let memo = lbRefs.get(lb);
  if (!memo) lbRefs.set(lb, (memo = new Map()));
  const key = side === 'host' ? -1 - vip : vip;
  let ref = memo.get(key);
  if (!ref) memo.set(key, (ref = computeLbRef(plane, lb, vip, side)));
  return ref;
}

function computeLbRef(plane: HostPlane, lb: LbView, vip: number, side: 'port' | 'host'): RuleRef {
  const slot = lb.vips.length ? vip : plane.primaryIp();
  return {
    ...lb.ref,
    layer: side === 'host' ? LAYER.SLB_LB : lb.dsr ? LAYER.LB_DSR : LAYER.SLB_NAT,
    rule: lb.dsr
      ? lbDsrRuleName(lb.id, plane.primaryIp(), slot, lb.externalPort, lb.internalPort, lb.protocol)
      : lbRuleName(lb.id, slot, lb.externalPort, lb.protocol),
  };
}

export function findLb(plane: HostPlane, p: Packet, wildcard: boolean): LbView | undefined {
  if (p.proto !== 6 && p.proto !== 17) return undefined;
  const lbs = plane.view().lbs;
  return (
    lbs.get(lbKey(p.proto, p.dstIp, p.dstPort)) ??
    (wildcard ? lbs.get(lbKey(p.proto, '*', p.dstPort)) : undefined)
  );
}

/**
 * DNAT to a backend (DSR: at the client's port; otherwise also SNAT to the source VIP). The rule
 * holds the backend's address, not the endpoint: a backend endpoint deleted since is still chosen
 * and its address still the destination; a step says it is gone, and the packet goes on by its
 * address alone (`target` undefined), where nothing may hold it any more (kubernetes#112836).
 */
export function applyLb(
  plane: HostPlane,
  w: Walk,
  lb: LbView,
  p: Packet,
  side: 'port' | 'host',
): { packet: Packet; target: PortView | undefined } | undefined {
  const host = plane.name;
  const ref = lbRef(plane, lb, p.dstIp, side);
  if (lb.backends.length === 0) {
    w.stop(host, 'LB', 'NoBackend', p, 'NoBackend', 'the load balancer has no endpoints', ref);
    return undefined;
  }
  const i = chooseBackend(plane, w, lb, p);
  const b = lb.backends[i]!;
  let after = withPacket(p, { dstIp: lb.preserveDip ? p.dstIp : b.ip, dstPort: lb.internalPort });
  let kind: CtRewrite['kind'] = 'DNAT';
  let detail = `backend ${i + 1} of ${lb.backends.length}: ${fmt(b.ip)}:${lb.internalPort}${b.remote ? ' (remote endpoint)' : ''}`;
  if (lb.preserveDip) detail += ', destination kept as the VIP (PreserveDIP)';
  if (!lb.dsr) {
    const svip = lb.sourceVip || plane.primaryIp();
    const prior = flowNat(plane, w, p, 'DNAT+SNAT');
    const port = prior && prior.srcIp === svip ? prior.srcPort : snatPort(plane, w, svip, p.proto);
    if (port === undefined) {
      w.stop(host, 'LB', 'PortExhausted', p, 'PortExhausted', `no free SNAT port on ${fmt(svip)}`, ref);
      return undefined;
    }
    after = withPacket(after, { srcIp: svip, srcPort: port });
    kind = 'DNAT+SNAT';
    detail += `; source → ${fmt(svip)}:${port} (non-DSR: SourceVIP)`;
  }
  w.step(host, 'LB', kind === 'DNAT' ? 'DNAT' : 'DNAT+SNAT', p, after, ref, detail);
  track(plane, w, after, p, kind, ref);
  if (!b.live) {
    w.step(
      host,
      'LB',
      'BackendGone',
      after,
      after,
      ref,
      `backend endpoint ${b.id} is gone: the load balancer still sends to the address it had, ${fmt(b.ip)}`,
    );
  }
  return { packet: after, target: b.port };
}
