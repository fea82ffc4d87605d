/**
 * `vfpctrl /port <id> /list-rule` for hnsim: the VFP layers, groups and rules of one vSwitch port,
 * as data, compiled from the HostView the trace engine (src/dataplane/plane.ts) evaluates and named
 * the way the engine names the rule behind each step of a trace — so a trace's rule is found in the
 * listing of the port it crossed (reference vfp-dataplane.md §1.2 for layers and groups, §1.3 for
 * their order, §2–§6 for what fills them).
 *
 * Layers are listed in the order an outbound packet meets them in the engine (ACL → LB_DSR → SLB_NAT
 * (non-DSR load balancing, then OutBoundNAT) → VNET_ENCAP → VNET_PA_ROUTE → MAC rewrite); inbound
 * meets them in reverse. Rules are listed in evaluation order: ACL rules by priority with the
 * tie-break the compiler applied, then the implicit default an endpoint with ACLs gets; LPM groups
 * longest prefix first. `Host` ACL rules sit in a `WFP` pseudo-layer (Windows Firewall, not VFP).
 * The host side — the host vNIC of each switch and the uplink — has its own listing (listHostRules):
 * host-originated LocalRoutedVIP load balancers, NodePorts and port mappings the engine applies in
 * the host stack. A group's direction is the port's: IN = switch → port (towards the container),
 * OUT = port → switch; on the uplink IN is the wire → the host.
 *
 *   const rules = listPortRules(host.dataplane.view(), endpointId);
 *   rules.layers.map((l) => l.name); // ['ACL_ENDPOINT_LAYER', 'LB_DSR', 'SLB_NAT_LAYER', …]
 *   console.log(renderPortRules(rules)); // src/render/vfp.ts
 */
import { formatMac } from '../addr/mac.js';
import type { Prefix } from '../addr/ip.js';
import { hnsError } from '../core/errors.js';
import type { TierAclSettings } from '../hns/policy/endpoint/tier-acl.js';
import type { RemoteSubnetRouteSettings } from '../hns/policy/network/remote-subnet-route.js';
import type { PortRange } from '../hns/policy/fields.js';
import type { AclVerdict, CompiledRule, CompiledTier } from './acl.js';
import type { RuleRef } from './contracts.js';
import {
  aclTierGroupName,
  encapRuleName,
  GROUP,
  LAYER,
  lbDsrRuleName,
  lbRuleName,
  MAC_REWRITE_RULE,
  outboundNatExceptionRuleName,
  portMappingRuleName,
  shortId,
  slbLbGroupName,
  snatRuleName,
} from './names.js';
import { fmt, fmtPrefix, fromPrefix, type Prefix4 } from './v4.js';
import {
  vniOf,
  type HostView,
  type LbView,
  type NetworkView,
  type PortView,
  type SwitchView,
} from './view.js';

/** `Host` = an endpoint attached to the host (compartment 1) or a switch's host vNIC. */
export type PortKind = 'Container' | 'Host' | 'Remote' | 'Uplink';
export type RuleAction = 'Allow' | 'Block' | 'Pass' | 'DNAT' | 'SNAT' | 'Encap' | 'Route' | 'MacRewrite';
export type RuleFlag = 'terminating' | 'stateful';
export type GroupDirection = 'IN' | 'OUT';
/**
 * `Priority-based match` (the ACL group's, as vfpctrl prints it), `lpm` on the destination (encap),
 * and WFP's own arbitration (a matching Block beats any Allow) for the pseudo-layer.
 */
export type MatchType = 'Priority-based match' | 'lpm' | 'WFP: block wins';

/**
 * A rule's conditions as vfpctrl shows them: protocol numbers (`6`, `6,17`), addresses (`/32` as a
 * bare address), port ranges (`3000-3000`). Local = the port's side, remote = the peer's, as in the
 * HNS ACL schema; the renderer turns them into Source/Destination by the group's direction.
 */
export interface RuleConditions {
  readonly protocols?: string;
  readonly localAddresses?: string;
  readonly remoteAddresses?: string;
  /** The peer is none of these (OutBoundNAT Exceptions). */
  readonly remoteAddressesNotIn?: string;
  readonly localPorts?: string;
  readonly remotePorts?: string;
  /** The key of an LPM or route rule. */
  readonly destinationPrefix?: string;
}

export interface PortRule {
  /** The rule name a trace observation carries (`rule.rule`). */
  readonly name: string;
  /** ACL rules: the HNS Priority; other rules: the position in the group (1 = first evaluated). */
  readonly priority: number;
  readonly action: RuleAction;
  /** vfpctrl's `Type`: allow, block, lbnat, dynnat, encap, …; pass, nat, route, transpose are ours. */
  readonly type: string;
  readonly conditions: RuleConditions;
  readonly flags: readonly RuleFlag[];
  /** `Flow TTL` of stateful ACL rules (240 as vfpctrl shows HNS ACLs). */
  readonly flowTtl?: number;
  /** What the action does: backends, NAT address, PA/VNI/DR MAC, next hop, rewritten MACs. */
  readonly data: Readonly<Record<string, string>>;
  /** The HNS object, policy and index it came from, with the layer and rule it is listed as. */
  readonly source: RuleRef;
  /** A rule no HNS policy wrote: the default of an endpoint with ACLs. */
  readonly implicit: boolean;
}

export interface PortGroup {
  readonly name: string;
  readonly direction: GroupDirection;
  /** Position among the layer's groups of that direction (evaluated in sequence). */
  readonly priority: number;
  readonly matchType: MatchType;
  readonly rules: readonly PortRule[];
}

export interface PortLayer {
  readonly name: string;
  /** Our order index: outbound packets meet layers by ascending priority, inbound descending. */
  readonly priority: number;
  readonly stateful: boolean;
  /** False for the WFP pseudo-layer. */
  readonly vfp: boolean;
  /** Set when every group of the layer has this direction. */
  readonly direction?: GroupDirection;
  readonly groups: readonly PortGroup[];
}

export interface PortInfo {
  readonly id: string;
  readonly name: string;
  readonly kind: PortKind;
  /** `00-15-5D-…`, or '' when none. */
  readonly mac: string;
  /** IPv4 address, or '' when none. */
  readonly ip: string;
  readonly network?: { readonly id: string; readonly name: string; readonly type: string };
}

/** A remote endpoint has no VFP port: it is a forwarding entry the local ports' encap rules use. */
export interface RemoteForwarding {
  readonly providerAddress: string;
  readonly vni: number;
  /** The encap rule naming it on the local ports of an overlay network. */
  readonly rule: string;
}

export interface PortRules {
  readonly port: PortInfo;
  readonly layers: readonly PortLayer[];
  readonly forwarding?: RemoteForwarding;
}

/** Every layer a listing can hold, in the order outbound packets meet them (the engine's order). */
export const LAYER_ORDER: readonly string[] = [
  LAYER.ACL,
  LAYER.WFP,
  LAYER.SLB_LB,
  LAYER.LB_DSR,
  LAYER.SLB_NAT,
  LAYER.ENCAP,
  LAYER.ROUTE,
  LAYER.MAC_REWRITE,
];

const STATEFUL_LAYERS = new Set<string>([LAYER.ACL, LAYER.WFP, LAYER.SLB_LB, LAYER.LB_DSR, LAYER.SLB_NAT]);

/** Priority of the implicit default rule of an ACL group: after any HNS priority (uint16). */
export const IMPLICIT_PRIORITY = 65535;

const PRIORITY_MATCH: MatchType = 'Priority-based match';
const TERMINATING_STATEFUL: readonly RuleFlag[] = ['terminating', 'stateful'];
const ACL_FLOW_TTL = 240;

// ───────────────────────────── formatting ─────────────────────────────

function addr(p: Prefix4): string {
  return p.len === 32 ? fmt(p.addr) : fmtPrefix(p);
}

function addrList(list: readonly Prefix4[] | null): string | undefined {
  return list === null ? undefined : list.map(addr).join(',');
}

function v4Prefixes(list: readonly Prefix[]): Prefix4[] {
  return list.map(fromPrefix).filter((p): p is Prefix4 => p !== undefined);
}

/** vfpctrl shows a single port as `3000-3000`. */
function portList(ranges: readonly PortRange[]): string | undefined {
  return ranges.length ? ranges.map((r) => `${r.first}-${r.last}`).join(',') : undefined;
}

function portRange(n: number): string {
  return `${n}-${n}`;
}

function mac(n: number): string {
  return n > 0 ? formatMac(n) : '';
}

/** Drop undefined fields (the record shows only the conditions a rule has). */
function conditions(c: { [K in keyof RuleConditions]: string | undefined }): RuleConditions {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(c)) if (v !== undefined) out[k] = v;
  return out;
}

function named(o: { readonly name?: string }): { name?: string } {
  return o.name ? { name: o.name } : {};
}

// ───────────────────────────── host facts the engine derives ─────────────────────────────

/** The engine's primaryIp(): the uplink's address (HostView.uplink), else the first interface's. */
function hostPrimaryIp(view: HostView): number {
  return view.uplink?.ip ?? view.hostIfs[0]?.ip ?? 0;
}

/** The engine's hostMac(): the MAC the host's frames carry on the wire (the uplink's). */
function hostMac(view: HostView): number {
  return view.uplink?.mac ?? 0;
}

interface LbEntry {
  readonly lb: LbView;
  readonly proto: number;
  /** The frontend VIP, or `*` for a NodePort-style load balancer. */
  readonly vip: number | '*';
}

/** The load-balancer index as the engine looks it up: one entry per protocol × VIP × port. */
function lbEntries(view: HostView): LbEntry[] {
  const out: LbEntry[] = [];
  for (const [key, lb] of view.lbs) {
    const [proto, vip] = key.split('/');
    out.push({ lb, proto: Number(proto), vip: vip === '*' ? '*' : Number(vip) });
  }
  return out;
}

// ───────────────────────────── building ─────────────────────────────

interface GroupDraft {
  readonly name: string;
  readonly direction: GroupDirection;
  readonly priority: number;
  readonly matchType: MatchType;
  readonly rules: PortRule[];
}

type RuleDraft = Omit<PortRule, 'priority' | 'implicit' | 'data'> & {
  readonly priority?: number;
  readonly implicit?: boolean;
  readonly data?: Readonly<Record<string, string>>;
};

/** Collects groups per layer; rules without a priority get their position in the group. */
class ListingBuilder {
  private readonly layers = new Map<string, GroupDraft[]>();

  group(layer: string, name: string, direction: GroupDirection, matchType: MatchType): GroupDraft {
    let groups = this.layers.get(layer);
    if (!groups) this.layers.set(layer, (groups = []));
    const found = groups.find((g) => g.name === name && g.direction === direction);
    if (found) return found;
    const g: GroupDraft = {
      name,
      direction,
      priority: groups.filter((x) => x.direction === direction).length + 1,
      matchType,
      rules: [],
    };
    groups.push(g);
    return g;
  }

  push(g: GroupDraft, r: RuleDraft): void {
    g.rules.push({
      ...r,
      priority: r.priority ?? g.rules.length + 1,
      data: r.data ?? {},
      implicit: r.implicit ?? false,
    });
  }

  build(): PortLayer[] {
    const out: PortLayer[] = [];
    for (const name of LAYER_ORDER) {
      const groups = (this.layers.get(name) ?? []).filter((g) => g.rules.length > 0);
      if (!groups.length) continue;
      const dirs = new Set(groups.map((g) => g.direction));
      out.push({
        name,
        priority: LAYER_ORDER.indexOf(name) + 1,
        stateful: STATEFUL_LAYERS.has(name),
        vfp: name !== LAYER.WFP,
        ...(dirs.size === 1 ? { direction: groups[0]!.direction } : {}),
        groups: groups.map((g) => ({ ...g, rules: [...g.rules] })),
      });
    }
    return out;
  }
}

// ───────────────────────────── ACL ─────────────────────────────

function aclRule(r: CompiledRule, wfp: boolean): RuleDraft {
  return {
    name: r.ref.rule ?? r.ref.ruleId ?? `${r.ref.policy ?? 'ACL'}_${r.ref.index ?? 0}`,
    priority: r.priority,
    action: r.action,
    type: r.action.toLowerCase(),
    conditions: conditions({
      protocols: r.protocols.length ? r.protocols.join(',') : undefined,
      localAddresses: addrList(r.local),
      remoteAddresses: addrList(r.remote),
      localPorts: portList(r.localPorts),
      remotePorts: portList(r.remotePorts),
    }),
    // a Pass hands the packet on; WFP arbitrates (block wins) rather than terminating
    flags: wfp ? ['stateful'] : r.action === 'Pass' ? [] : TERMINATING_STATEFUL,
    ...(wfp ? {} : { flowTtl: ACL_FLOW_TTL }),
    source: r.ref,
  };
}

/** The default the engine records when no rule decides (its RuleRef, exactly). */
function implicitRule(port: PortView, layer: string, by: AclVerdict['by']): RuleDraft {
  const allow = by === 'default-allow';
  return {
    name: by,
    priority: IMPLICIT_PRIORITY,
    action: allow ? 'Allow' : 'Block',
    type: allow ? 'allow' : 'block',
    conditions: {},
    flags: TERMINATING_STATEFUL,
    source: { kind: 'Endpoint', id: port.id, policy: 'ACL', layer, rule: by },
    implicit: true,
  };
}

/** The TierAcl policy a compiled tier came from: its Name (else its Order). */
function tierName(port: PortView, dir: 'In' | 'Out', tier: CompiledTier): string {
  for (const p of port.rec.Policies) {
    if (p.type !== 'TierAcl') continue;
    const s = p.settings as TierAclSettings;
    if (s.direction === dir && s.order === tier.order) return s.name || String(s.order);
  }
  return String(tier.order);
}

function aclLayers(b: ListingBuilder, port: PortView): void {
  const acls = port.acls();
  if (!acls.any) return; // no ACL at all: everything allowed, nothing for VFP to hold
  for (const dir of ['In', 'Out'] as const) {
    const d = acls[dir];
    const vdir: GroupDirection = dir === 'In' ? 'IN' : 'OUT';
    const deny = dir === 'In' ? acls.defaultDenyIn : acls.defaultDenyOut;
    for (const tier of d.tiers) {
      const g = b.group(LAYER.ACL, aclTierGroupName(tierName(port, dir, tier), vdir), vdir, PRIORITY_MATCH);
      for (const r of tier.rules) b.push(g, aclRule(r, false));
    }
    const g = b.group(LAYER.ACL, dir === 'In' ? GROUP.ACL_IN : GROUP.ACL_OUT, vdir, PRIORITY_MATCH);
    for (const r of d.vfp) b.push(g, aclRule(r, false));
    // evaluateAcls: VFP's default denies unless only Host rules exist for WFP to decide
    const vfpHasRules = d.tiers.length > 0 || d.vfp.length > 0;
    b.push(
      g,
      implicitRule(
        port,
        LAYER.ACL,
        deny && (vfpHasRules || d.wfp.length === 0) ? 'default-deny' : 'default-allow',
      ),
    );
    if (d.wfp.length) {
      const w = b.group(LAYER.WFP, dir === 'In' ? GROUP.WFP_IN : GROUP.WFP_OUT, vdir, 'WFP: block wins');
      for (const r of d.wfp) b.push(w, aclRule(r, true));
      if (deny) b.push(w, implicitRule(port, LAYER.WFP, 'default-deny'));
    }
  }
}

// ───────────────────────────── load balancing ─────────────────────────────

const DISTRIBUTION = ['per connection', 'source IP and protocol', 'source IP'];

/** A load balancer as the engine names it (lbRef), matched on the VIP as `side` of the port. */
function lbRule(view: HostView, e: LbEntry, layer: string, side: 'remote' | 'local'): RuleDraft {
  const primary = hostPrimaryIp(view);
  const lb = e.lb;
  // a NodePort-style LB answers on the host's addresses; HNS names it after the management IP
  const vip = e.vip === '*' ? primary : e.vip;
  const name = lb.dsr
    ? lbDsrRuleName(lb.id, primary, vip, lb.externalPort, lb.internalPort, e.proto)
    : lbRuleName(lb.id, vip, lb.externalPort, e.proto);
  const vipText = e.vip === '*' ? [...new Set(view.hostIfs.map((i) => fmt(i.ip)))].join(',') : fmt(vip);
  const data: Record<string, string> = {
    Backends:
      lb.backends
        .map(
          (b) =>
            `${fmt(b.ip)}:${lb.internalPort}${b.remote ? ' (remote endpoint)' : ''}${b.live ? '' : ` (endpoint ${b.id} gone)`}`,
        )
        .join(',') || '(none)',
    Distribution: DISTRIBUTION[lb.distribution] ?? String(lb.distribution),
  };
  if (!lb.dsr) data['Source VIP'] = fmt(lb.sourceVip || primary);
  if (lb.preserveDip) data['Preserve DIP'] = 'true';
  return {
    name,
    action: 'DNAT',
    type: 'lbnat',
    conditions: conditions({
      protocols: String(e.proto),
      [side === 'remote' ? 'remoteAddresses' : 'localAddresses']: vipText,
      [side === 'remote' ? 'remotePorts' : 'localPorts']: portRange(lb.externalPort),
    }),
    flags: TERMINATING_STATEFUL,
    data,
    source: { ...lb.ref, layer, rule: name },
  };
}

/** LB_DSR (DSR) and SLB_NAT (non-DSR) rules: every local pod port, every VIP (the engine's egress). */
function podLbRules(b: ListingBuilder, view: HostView): void {
  for (const e of lbEntries(view)) {
    if (e.vip === '*') continue; // NodePorts: the host stack's (uplink listing)
    if (e.lb.dsr)
      b.push(
        b.group(LAYER.LB_DSR, GROUP.LB_DSR_OUT, 'OUT', PRIORITY_MATCH),
        lbRule(view, e, LAYER.LB_DSR, 'remote'),
      );
    else
      b.push(
        b.group(LAYER.SLB_NAT, GROUP.NAT_OUT, 'OUT', PRIORITY_MATCH),
        lbRule(view, e, LAYER.SLB_NAT, 'remote'),
      );
  }
}

// ───────────────────────────── NAT ─────────────────────────────

function endpointRef(port: PortView, policy: string, index: number, layer: string, rule: string): RuleRef {
  return { kind: 'Endpoint', id: port.id, ...named(port), policy, index, layer, rule };
}

/** OutBoundNAT per policy: the exception (on to the next policy), then SNAT per TCP and UDP. */
function outboundNatRules(b: ListingBuilder, view: HostView, port: PortView): void {
  const g = b.group(LAYER.SLB_NAT, GROUP.NAT_OUT, 'OUT', PRIORITY_MATCH);
  for (const { s, index } of port.outboundNat) {
    if (s.ipv6) continue;
    const dests = v4Prefixes(s.destinationPrefixes);
    const exceptions = v4Prefixes(s.exceptionPrefixes);
    const natIp =
      s.virtualIpAddr?.family === 4
        ? s.virtualIpAddr.value
        : port.network.managementIp || hostPrimaryIp(view);
    // Destinations restrict SNAT to them; Exceptions apply only without Destinations (engine)
    if (!dests.length && exceptions.length) {
      const name = outboundNatExceptionRuleName();
      b.push(g, {
        name,
        action: 'Pass',
        type: 'pass',
        conditions: { remoteAddresses: exceptions.map(addr).join(',') },
        flags: [],
        data: { Translation: 'none (OutBoundNAT Exceptions)' },
        source: endpointRef(port, 'OutBoundNAT', index, LAYER.SLB_NAT, name),
      });
    }
    for (const proto of [6, 17]) {
      const name = snatRuleName(proto, port.ip, natIp);
      const data: Record<string, string> = { 'Source NAT': fmt(natIp) };
      if (s.maxPortPoolUsage) data['MaxPortPoolUsage'] = String(s.maxPortPoolUsage);
      b.push(g, {
        name,
        action: 'SNAT',
        type: 'dynnat',
        conditions: conditions({
          protocols: String(proto),
          localAddresses: port.ip ? fmt(port.ip) : undefined,
          remoteAddresses: dests.length ? dests.map(addr).join(',') : undefined,
          remoteAddressesNotIn:
            !dests.length && exceptions.length ? exceptions.map(addr).join(',') : undefined,
        }),
        flags: TERMINATING_STATEFUL,
        data,
        source: endpointRef(port, 'OutBoundNAT', index, LAYER.SLB_NAT, name),
      });
    }
  }
}

function portMappingRule(port: PortView, pm: PortView['portMappings'][number]): RuleDraft {
  const { s, index } = pm;
  const name = portMappingRuleName(s.protocol, s.externalPort, s.internalPort);
  return {
    name,
    action: 'DNAT',
    type: 'nat',
    conditions: conditions({
      protocols: String(s.protocol),
      localAddresses: s.vipAddr?.family === 4 ? fmt(s.vipAddr.value) : undefined,
      localPorts: portRange(s.externalPort),
    }),
    flags: TERMINATING_STATEFUL,
    data: { 'Translate to': `${fmt(port.ip)}:${s.internalPort}` },
    source: endpointRef(port, 'PortMapping', index, LAYER.SLB_NAT, name),
  };
}

function portMappingRules(b: ListingBuilder, port: PortView, group: string): void {
  const mappings = port.portMappings.filter((pm) => !pm.s.ipv6);
  if (!mappings.length) return;
  const g = b.group(LAYER.SLB_NAT, group, 'IN', PRIORITY_MATCH);
  for (const pm of mappings) b.push(g, portMappingRule(port, pm));
}

// ───────────────────────────── overlay, routes, MAC rewrite ─────────────────────────────

interface EncapDraft {
  readonly dest: Prefix4;
  readonly pa: number;
  readonly vni: number;
  readonly drMac: number;
  readonly source: Omit<RuleRef, 'layer' | 'rule'>;
}

function pushEncap(b: ListingBuilder, view: HostView, net: NetworkView, drafts: EncapDraft[]): void {
  if (!drafts.length) return;
  const g = b.group(LAYER.ENCAP, GROUP.ENCAP_OUT, 'OUT', 'lpm');
  const src = net.managementIp || hostPrimaryIp(view);
  // longest prefix first; a remote endpoint (/32) before a remote subnet of the same prefix
  const sorted = drafts.map((d, i) => ({ d, i })).sort((a, c) => c.d.dest.len - a.d.dest.len || a.i - c.i);
  for (const { d } of sorted) {
    const name = encapRuleName(fmtPrefix(d.dest), d.pa, d.vni);
    b.push(g, {
      name,
      action: 'Encap',
      type: 'encap',
      conditions: { destinationPrefix: fmtPrefix(d.dest) },
      flags: ['terminating'],
      data: {
        'Encap type': 'VXLAN',
        PA: fmt(d.pa),
        VNI: String(d.vni),
        'DR MAC': d.drMac ? formatMac(d.drMac) : '(unchanged)',
        'Source PA': fmt(src),
        'UDP port': String(net.vxlanPort),
      },
      source: { ...d.source, layer: LAYER.ENCAP, rule: name },
    });
  }
}

/** The RemoteSubnetRoutes of a network, first per prefix (as its LPM table keeps them). */
function remoteSubnets(net: NetworkView): { dest: Prefix4; s: RemoteSubnetRouteSettings; index: number }[] {
  const seen = new Set<string>();
  const out: { dest: Prefix4; s: RemoteSubnetRouteSettings; index: number }[] = [];
  net.rec.Policies.forEach((p, index) => {
    if (p.type !== 'RemoteSubnetRoute') return;
    const s = p.settings as RemoteSubnetRouteSettings;
    const dest = fromPrefix(s.destination);
    if (!dest || s.provider.family !== 4 || seen.has(fmtPrefix(dest))) return;
    seen.add(fmtPrefix(dest));
    out.push({ dest, s, index });
  });
  return out;
}

/** An overlay port: remote endpoints with a PA (any overlay network), then its RemoteSubnetRoutes. */
function encapRules(b: ListingBuilder, view: HostView, port: PortView): void {
  const net = port.network;
  const drafts: EncapDraft[] = [];
  for (const r of view.remoteByIp.values()) {
    if (!r.pa || r.network.type !== 'Overlay') continue;
    drafts.push({
      dest: { addr: r.ip, len: 32, mask: 0xffffffff },
      pa: r.pa,
      vni: vniOf(r.network, r.ip) || vniOf(net, port.ip),
      drMac: net.remoteSubnets.lookup(r.ip)?.drMac ?? net.drMac,
      source: { kind: 'Endpoint', id: r.id, ...named(r), policy: 'ProviderAddress' },
    });
  }
  for (const { dest, s, index } of remoteSubnets(net)) {
    drafts.push({
      dest,
      pa: s.provider.family === 4 ? s.provider.value : 0,
      vni: s.isolationId,
      drMac: net.remoteSubnets.lookup(dest.addr)?.drMac ?? 0,
      source: { kind: 'Network', id: net.id, ...named(net), policy: 'RemoteSubnetRoute', index },
    });
  }
  pushEncap(b, view, net, drafts);
}

/** SDNRoute / v1 ROUTE policies and route objects: the engine takes the first that matches. */
function routeRules(b: ListingBuilder, port: PortView): void {
  if (!port.sdnRoutes.length) return;
  const g = b.group(LAYER.ROUTE, GROUP.ROUTE_OUT, 'OUT', PRIORITY_MATCH);
  for (const r of port.sdnRoutes) {
    const data: Record<string, string> = {};
    if (r.nextHop) data['Next hop'] = fmt(r.nextHop);
    if (r.needEncap) data['Need encap'] = 'true';
    b.push(g, {
      name: r.ref.rule ?? fmtPrefix(r.dest),
      action: 'Route',
      type: r.needEncap ? 'encap' : 'route',
      conditions: { destinationPrefix: fmtPrefix(r.dest) },
      flags: ['terminating'],
      data,
      source: r.ref,
    });
  }
}

/** L2Bridge/L2Tunnel/Overlay on an external switch: container MAC ↔ host MAC at the uplink. */
function macRewriteRules(b: ListingBuilder, view: HostView, port: PortView): void {
  const net = port.network;
  const sw = net.switchId ? view.switches.get(net.switchId) : undefined;
  if (!sw || sw.type !== 'External') return;
  const source: RuleRef = {
    kind: 'Network',
    id: net.id,
    ...named(net),
    layer: LAYER.MAC_REWRITE,
    rule: MAC_REWRITE_RULE,
  };
  const host = mac(hostMac(view)) || '(host MAC)';
  const own = mac(port.mac) || '(container MAC)';
  if (net.type === 'L2Bridge' || net.type === 'L2Tunnel' || net.type === 'Overlay') {
    b.push(b.group(LAYER.MAC_REWRITE, GROUP.MAC_OUT, 'OUT', PRIORITY_MATCH), {
      name: MAC_REWRITE_RULE,
      action: 'MacRewrite',
      type: 'transpose',
      conditions: {},
      flags: [],
      data: { 'Source MAC': `${own} -> ${host}` },
      source,
    });
  }
  if (net.type !== 'Transparent' && port.compartment !== 1) {
    b.push(b.group(LAYER.MAC_REWRITE, GROUP.MAC_IN, 'IN', PRIORITY_MATCH), {
      name: MAC_REWRITE_RULE,
      action: 'MacRewrite',
      type: 'transpose',
      conditions: {},
      flags: [],
      data: { 'Destination MAC': `${host} -> ${own}` },
      source,
    });
  }
}

// ───────────────────────────── ports ─────────────────────────────

function norm(s: string): string {
  return s.toLowerCase().replace(/[{}]/g, '');
}

function findEndpointPort(view: HostView, ref: string): PortView | undefined {
  const key = norm(ref);
  for (const p of view.ports.values()) if (p.id.toLowerCase() === key) return p;
  for (const p of view.ports.values()) if (!p.remote && p.name && p.name.toLowerCase() === key) return p;
  for (const p of view.ports.values()) if (p.remote && p.name && p.name.toLowerCase() === key) return p;
  return undefined;
}

function portInfo(p: PortView, kind: PortKind): PortInfo {
  return {
    id: p.id,
    name: p.name,
    kind,
    mac: mac(p.mac),
    ip: p.ip ? fmt(p.ip) : '',
    network: { id: p.network.id, name: p.network.name, type: p.network.type },
  };
}

function localPortRules(view: HostView, p: PortView): PortRules {
  const kind: PortKind = p.compartment === 1 ? 'Host' : 'Container';
  const b = new ListingBuilder();
  aclLayers(b, p);
  // load balancing runs on the egress of pod ports (the host's own endpoints send through its stack)
  if (kind === 'Container') podLbRules(b, view);
  outboundNatRules(b, view, p);
  portMappingRules(b, p, GROUP.NAT_IN);
  if (p.network.type === 'Overlay') encapRules(b, view, p);
  routeRules(b, p);
  macRewriteRules(b, view, p);
  return { port: portInfo(p, kind), layers: b.build() };
}

function remotePortRules(p: PortView): PortRules {
  const net = p.network;
  if (net.type !== 'Overlay' || !p.pa) return { port: portInfo(p, 'Remote'), layers: [] };
  const vni = vniOf(net, p.ip);
  return {
    port: portInfo(p, 'Remote'),
    layers: [],
    forwarding: {
      providerAddress: fmt(p.pa),
      vni,
      rule: encapRuleName(`${fmt(p.ip)}/32`, p.pa, vni),
    },
  };
}

/**
 * The rules of one port: a local endpoint (ID, braces and case ignored, or name), a remote
 * endpoint (no layers; its forwarding entry), or a host-side port of listHostRules (its ID or
 * name). Anything else is ERROR_NOT_FOUND.
 */
export function listPortRules(view: HostView, portId: string): PortRules {
  const p = findEndpointPort(view, portId);
  if (p) return p.remote ? remotePortRules(p) : localPortRules(view, p);
  const key = norm(portId);
  const host = listHostRules(view).find((h) => norm(h.port.id) === key || norm(h.port.name) === key);
  if (host) return host;
  throw hnsError(
    'ERROR_NOT_FOUND',
    `no vSwitch port "${portId}": not an endpoint of this host, a host vNIC or the uplink`,
  );
}

/** Whether a switch carries any backend of a load balancer (else: every host vNIC lists it). */
function lbOnSwitch(view: HostView, lb: LbView, sw: SwitchView): boolean {
  const switches = new Set(lb.backends.flatMap((b) => (b.port ? [b.port.network.switchId] : [])));
  if (switches.has(sw.id)) return true;
  return ![...switches].some((id) => id !== undefined && view.switches.get(id)?.hostVnic);
}

function hostVnicRules(view: HostView, sw: SwitchView): PortRules | undefined {
  const vnic = sw.hostVnic;
  if (!vnic) return undefined;
  const b = new ListingBuilder();
  // host-originated traffic to a VIP with LocalRoutedVIP (SDN-health: SLB_LB_LAYER on the host vNIC)
  for (const e of lbEntries(view)) {
    if (e.vip === '*' || !e.lb.localRoutedVip || !lbOnSwitch(view, e.lb, sw)) continue;
    b.push(
      b.group(LAYER.SLB_LB, slbLbGroupName('OUT'), 'OUT', PRIORITY_MATCH),
      lbRule(view, e, LAYER.SLB_LB, 'remote'),
    );
  }
  // the host stack hands load-balanced packets to remote overlay backends encapsulated (toBackend)
  for (const net of sw.networks) {
    if (net.type !== 'Overlay') continue;
    const drafts: EncapDraft[] = [];
    for (const t of view.ports.values()) {
      if (!t.remote || t.network.id !== net.id) continue;
      const rs = net.remoteSubnets.lookup(t.ip);
      const pa = t.pa || rs?.pa || 0;
      if (!pa) continue;
      drafts.push({
        dest: { addr: t.ip, len: 32, mask: 0xffffffff },
        pa,
        vni: vniOf(net, t.ip) || rs?.vni || 0,
        drMac: rs?.drMac ?? net.drMac,
        source: { kind: 'Endpoint', id: t.id, ...named(t), policy: 'ProviderAddress' },
      });
    }
    pushEncap(b, view, net, drafts);
  }
  return {
    port: {
      id: vnic.name,
      name: `Container NIC ${shortId(sw.id)}`,
      kind: 'Host',
      mac: mac(vnic.mac),
      ip: vnic.ip ? fmt(vnic.ip) : '',
    },
    layers: b.build(),
  };
}

function uplinkRules(view: HostView): PortRules | undefined {
  const iface = view.uplink;
  if (!iface) return undefined;
  // the external switch's host vNIC, or a physical adapter no switch is bound to
  const sw = iface.switchId ? view.switches.get(iface.switchId) : undefined;
  const b = new ListingBuilder();
  // NodePorts and VIPs that are host addresses: the host stack load-balances what arrives for them
  const entries = lbEntries(view);
  const exact = entries.filter((e) => e.vip !== '*' && view.hostIfByIp.has(e.vip));
  const wildcard = entries.filter((e) => e.vip === '*');
  for (const e of [...exact, ...wildcard]) {
    b.push(
      b.group(LAYER.SLB_LB, slbLbGroupName('IN'), 'IN', PRIORITY_MATCH),
      lbRule(view, e, LAYER.SLB_LB, 'local'),
    );
  }
  // port mappings: host port → container (the first port holding a mapping wins)
  for (const p of view.ports.values()) if (!p.remote) portMappingRules(b, p, GROUP.NAT_IN);
  return {
    port: {
      id: sw?.uplinkName ?? iface.name,
      name: sw ? 'ExternalPort' : iface.name,
      kind: 'Uplink',
      mac: mac(iface.mac),
      ip: iface.ip ? fmt(iface.ip) : '',
    },
    layers: b.build(),
  };
}

/**
 * The host side: the host vNIC of every switch that has one (LocalRoutedVIP load balancers, encap
 * to remote overlay backends), then the uplink (NodePorts, host-address VIPs, port mappings).
 */
export function listHostRules(view: HostView): PortRules[] {
  const out: PortRules[] = [];
  for (const sw of view.switches.values()) {
    const r = hostVnicRules(view, sw);
    if (r) out.push(r);
  }
  const up = uplinkRules(view);
  if (up) out.push(up);
  return out;
}

/** Every rule of a listing, flattened with its layer and group (for searches and tests). */
export function allRules(
  rules: PortRules,
): { readonly layer: string; readonly group: string; readonly rule: PortRule }[] {
  return rules.layers.flatMap((l) =>
    l.groups.flatMap((g) => g.rules.map((rule) => ({ layer: l.name, group: g.name, rule }))),
  );
}
