/**
 * Address translation on one host's path (reference vfp-dataplane.md §1.4, §4): undoing a tracked
 * connection's translation for its replies, recording a new one (for the replies and for the next
 * packets of the same flow), and drawing SNAT ports from the host's dynamic range net of the
 * blocks its non-DSR load balancers reserve. The walk's scratch conntrack holds it all.
 */
import { withPacket, type Packet, type RuleRef } from '../vswitch/contracts.js';
import { replyOf, tupleKey, type CtRewrite } from './conntrack.js';
import type { HostPlane } from './plane.js';
import type { Walk } from './walk.js';

/** The dynamic port range SNAT draws from unless DataplaneOptions.snatPortRange says otherwise. */
const DEFAULT_SNAT_RANGE: readonly [number, number] = [49152, 65535];

export function unNat(
  plane: HostPlane,
  w: Walk,
  p: Packet,
  component: 'NAT' | 'LB' | 'Conntrack' = 'Conntrack',
): Packet {
  const r = w.ct.getNat(tupleKey(plane.name, p));
  if (!r) return p;
  const after = withPacket(p, { srcIp: r.srcIp, srcPort: r.srcPort, dstIp: r.dstIp, dstPort: r.dstPort });
  w.step(
    plane.name,
    component,
    r.kind === 'SNAT' ? 'UnSNAT' : r.kind === 'DNAT' ? 'UnDNAT' : 'UnNAT',
    p,
    after,
    r.rule,
    'reply of a tracked connection: its translation is undone',
  );
  return after;
}

export function track(
  plane: HostPlane,
  w: Walk,
  after: Packet,
  back: Packet,
  kind: CtRewrite['kind'],
  rule: RuleRef,
): void {
  // the reply of `after` must come back as the reply of `back`
  const reply = replyOf(after);
  const want = replyOf(back);
  w.ct.setNat(tupleKey(plane.name, reply), {
    srcIp: want.srcIp,
    srcPort: want.srcPort,
    dstIp: want.dstIp,
    dstPort: want.dstPort,
    kind,
    rule,
  });
  // and the next packet of the same flow gets the same translation (the flow, not the rules)
  w.ct.setNat(flowNatKey(plane, back, kind), {
    srcIp: after.srcIp,
    srcPort: after.srcPort,
    dstIp: after.dstIp,
    dstPort: after.dstPort,
    kind,
    rule,
  });
}

function flowNatKey(plane: HostPlane, p: Packet, kind: CtRewrite['kind']): string {
  return `flow|${kind}|${tupleKey(plane.name, p)}`;
}

/** The translation an earlier packet of this flow got, if any (its SNAT port is kept). */
export function flowNat(
  plane: HostPlane,
  w: Walk,
  p: Packet,
  kind: CtRewrite['kind'],
): CtRewrite | undefined {
  return w.ct.getNat(flowNatKey(plane, p, kind));
}

/** Draw an SNAT port for `ip`/`proto`; undefined when the pool is exhausted. */
export function snatPort(
  plane: HostPlane,
  w: Walk,
  ip: number,
  proto: number,
  endpoint?: string,
  max = 0,
): number | undefined {
  const [lo, hi] = plane.options.snatPortRange ?? DEFAULT_SNAT_RANGE;
  const reserved = plane.view().nonDsrLbs * (plane.options.lbPortBlock ?? 64);
  const pool = `${plane.name}|${ip}|${proto}`;
  if (endpoint && max > 0 && w.ct.portsInUse(`${pool}|${endpoint}`) >= max) return undefined;
  for (let port = lo + reserved; port <= hi; port++) {
    if (w.ct.portUsed(pool, port)) continue;
    w.ct.takePort(pool, port);
    if (endpoint) w.ct.takePort(`${pool}|${endpoint}`, port);
    return port;
  }
  return undefined;
}
