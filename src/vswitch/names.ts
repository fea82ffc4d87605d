/**
 * VFP vocabulary: the layer, group and rule names a port's compiled policies carry, as `vfpctrl
 * /port <id> /list-rule` prints them on a Windows node (reference vfp-dataplane.md §1.2: layer and
 * group names from vfpctrl output in issues and Microsoft's network-health script; rule-name
 * patterns from the same script). The trace engine names the rule behind each step with these, and
 * the rule listing prints them, so a user can find a trace's rule in the listing.
 *
 *   snatRuleName(6, ip('10.244.1.5'), ip('10.0.0.4'))  // 'SNAT_TCP_OUTBOUNDNAT_10.244.1.5_10.0.0.4'
 */
import { fmt } from './v4.js';

/** Layers of a container port, in the order an outbound packet meets them (docs/model.md). */
export const LAYER = {
  ACL: 'ACL_ENDPOINT_LAYER',
  LB_DSR: 'LB_DSR',
  SLB_NAT: 'SLB_NAT_LAYER',
  ROUTE: 'VNET_PA_ROUTE_LAYER',
  ENCAP: 'VNET_ENCAP_LAYER',
  MAC_REWRITE: 'VNET_MAC_REWRITE_LAYER',
  /** Host vNIC port: host-originated service traffic (SDN-health). */
  SLB_LB: 'SLB_LB_LAYER',
  /** Windows Firewall (WFP) for `Host` ACL rules: not a VFP layer, listed beside it. */
  WFP: 'WFP',
} as const;

/** Groups, per direction (`IN` = towards the container). */
export const GROUP = {
  ACL_IN: 'ACL_ENDPOINT_GROUP_IPV4_IN',
  ACL_OUT: 'ACL_ENDPOINT_GROUP_IPV4_OUT',
  LB_DSR_OUT: 'LB_DSR_IPv4_OUT',
  NAT_IN: 'SLB_GROUP_NAT_IPv4_IN',
  NAT_OUT: 'SLB_GROUP_NAT_IPv4_OUT',
  ROUTE_OUT: 'VNET_GROUP_PA_ROUTE_IPV4_OUT',
  ENCAP_OUT: 'VNET_GROUP_ENCAP_IPV4_OUT',
  MAC_OUT: 'VNET_GROUP_MAC_REWRITE_OUT',
  MAC_IN: 'VNET_GROUP_MAC_REWRITE_IN',
  SLB_LB_OUT: 'SLB_GROUP_LB_IPv4_OUT',
  WFP_IN: 'WFP_IN',
  WFP_OUT: 'WFP_OUT',
} as const;

function protoName(proto: number): string {
  return proto === 6 ? 'TCP' : proto === 17 ? 'UDP' : proto === 1 ? 'ICMP' : String(proto);
}

/** The first 8 hex digits of an HNS ID, as vfpctrl shortens port and object names. */
export function shortId(id: string): string {
  return id.replace(/[{}-]/g, '').slice(0, 8).toUpperCase();
}

/** OutBoundNAT on a pod port: `SNAT_TCP_OUTBOUNDNAT_<podIP>_<natIP>`. */
export function snatRuleName(proto: number, podIp: number, natIp: number): string {
  return `SNAT_${protoName(proto)}_OUTBOUNDNAT_${fmt(podIp)}_${fmt(natIp)}`;
}

/** A DSR load balancer on every local pod port: `LB_DSR_<lb>_<mgmtIP>_<VIP>_<ext>_<int>_<proto number>` (SDN-health writes the protocol as a number). */
export function lbDsrRuleName(
  lbId: string,
  mgmtIp: number,
  vip: number,
  ext: number,
  int: number,
  proto: number,
): string {
  return `LB_DSR_${shortId(lbId)}_${fmt(mgmtIp)}_${fmt(vip)}_${ext}_${int}_${proto}`;
}

/** A non-DSR load balancer: `LB_<lb>_<VIP>_<ext>_<proto number>` (DNAT and SNAT to the source VIP). */
export function lbRuleName(lbId: string, vip: number, ext: number, proto: number): string {
  return `LB_${shortId(lbId)}_${fmt(vip)}_${ext}_${proto}`;
}

/** A PortMapping policy (SLB_NAT IN): `NAT_PORTMAPPING_<proto>_<hostPort>_<containerPort>`. */
export function portMappingRuleName(proto: number, ext: number, int: number): string {
  return `NAT_PORTMAPPING_${protoName(proto)}_${ext}_${int}`;
}

/** An overlay destination (VNET_ENCAP): `ENCAP_<prefix>_<PA>_<VNI>`. */
export function encapRuleName(dest: string, pa: number, vni: number): string {
  return `ENCAP_${dest}_${fmt(pa)}_${vni}`;
}

/** An SDNRoute / v1 ROUTE policy (VNET_PA_ROUTE): `ROUTE_<prefix>`, `_ENCAP` when NeedEncap. */
export function routeRuleName(dest: string, needEncap: boolean): string {
  return `ROUTE_${dest}${needEncap ? '_ENCAP' : ''}`;
}

/** L2Bridge MAC rewrite (container MAC ↔ host MAC). */
export const MAC_REWRITE_RULE = 'MAC_REWRITE_HOST';

/**
 * A TierAcl tier's group in ACL_ENDPOINT_LAYER (ours: VFP evaluates groups in sequence, and a tier
 * is a unit evaluated before the flat rules): `ACL_TIER_GROUP_<tier>_IPV4_IN`.
 */
export function aclTierGroupName(tier: string, dir: 'IN' | 'OUT'): string {
  return `ACL_TIER_GROUP_${tier}_IPV4_${dir}`;
}

/**
 * The SLB_LB group of a direction: `SLB_GROUP_LB_IPv4_OUT` on the host vNIC (SDN-health); the `_IN`
 * twin is ours, for NodePorts and host-address VIPs the engine load-balances on the uplink.
 */
export function slbLbGroupName(dir: 'IN' | 'OUT'): string {
  return `SLB_GROUP_LB_IPv4_${dir}`;
}

/** The OutBoundNAT exception (no SNAT; on to the next policy) as the trace engine names it. */
export function outboundNatExceptionRuleName(): string {
  return 'EXCEPTION';
}
