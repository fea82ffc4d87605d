/**
 * The ACL layers of an endpoint port, compiled from its HNS policies (reference vfp-dataplane.md §2,
 * §1.2–§1.4): VFP's ACL_ENDPOINT_LAYER evaluates `Switch` rules by priority — lower number wins,
 * the first match decides (rules are "terminating stateful") — and WFP evaluates `Host` rules the
 * way Windows Firewall does: a matching Block beats any Allow. An endpoint with no ACL allows
 * everything; once any ACL policy is on it, each stage denies what no rule allows (#616, "by
 * design"). TierAcl tiers run first, by ascending Order: within a tier the lowest Priority wins,
 * `Pass` goes on to the next tier and past the last one to the flat rules. NetworkACL rules of the
 * endpoint's network join the flat rules. Local = the endpoint's side, Remote = the peer's, in both
 * directions. IP-set ids resolve against the network's SetPolicies.
 *
 * The choices where Windows is silent are options (AclOptions, docs/model.md).
 */
import type { AddressMatch, PortRange } from '../hns/policy/fields.js';
import type { AclAction, AclSettings } from '../hns/policy/endpoint/acl.js';
import type { TierAclSettings } from '../hns/policy/endpoint/tier-acl.js';
import type { RuleMatch } from '../hns/policy/rule-match.js';
import type { RuleRef } from './contracts.js';
import { LAYER } from './names.js';
import { contains, fromPrefix, type Prefix4 } from './v4.js';

export type AclDirectionName = 'In' | 'Out';

export interface AclOptions {
  /** Two rules of one priority, different actions, both matching: which wins (default Block). */
  readonly tieBreak?: 'Block' | 'Allow';
  /**
   * When any ACL policy is on the endpoint: deny what no rule allows in `both` directions (default),
   * or only in directions that have rules of their own.
   */
  readonly defaultDeny?: 'both' | 'direction';
}

/** One compiled rule: what it matches, what it does, and where it came from. */
export interface CompiledRule {
  readonly action: AclAction;
  readonly priority: number;
  /** Protocol numbers; empty = any. */
  readonly protocols: readonly number[];
  /** Local / remote address sets; `null` = any. */
  readonly local: readonly Prefix4[] | null;
  readonly remote: readonly Prefix4[] | null;
  readonly localPorts: readonly PortRange[];
  readonly remotePorts: readonly PortRange[];
  readonly ref: RuleRef;
}

export interface CompiledTier {
  readonly order: number;
  readonly rules: readonly CompiledRule[];
}

/** What an ACL stage decides for one packet, and the rule that decided (none = the default). */
export interface AclVerdict {
  readonly allowed: boolean;
  /**
   * `VFP` or `WFP`: the stage whose rule (or default) decided — the one that denied, else VFP when a
   * Switch rule allowed (WFP only agreeing), else WFP.
   */
  readonly stage: 'VFP' | 'WFP';
  readonly rule?: RuleRef;
  /** `rule`, `default-allow` (no ACL at all) or `default-deny`. */
  readonly by: 'rule' | 'default-allow' | 'default-deny';
}

/** One direction of an endpoint's ACLs. */
export interface AclDirectionRules {
  readonly tiers: readonly CompiledTier[];
  /** Switch rules (VFP), sorted by priority then action (tie-break first). */
  readonly vfp: readonly CompiledRule[];
  /** Host rules (WFP). */
  readonly wfp: readonly CompiledRule[];
  /** `vfp` packed for the first-match scan. */
  readonly vfpPacked: PackedRules;
}

/** Words per rule in PackedRules.words. */
const W = 10;
const GENERAL = 1;
const HAS_PORTS = 2;

/**
 * Rules as one Int32Array (struct of arrays), W words each: protocol (-1 any), local addr/mask,
 * remote addr/mask, local port lo/hi, remote port lo/hi, flags. A rule with several protocols,
 * prefixes or port ranges (or an empty address set) is flagged GENERAL and checked by ruleMatches.
 */
export interface PackedRules {
  readonly words: Int32Array;
  readonly rules: readonly CompiledRule[];
}

function packRules(rules: readonly CompiledRule[]): PackedRules {
  const words = new Int32Array(rules.length * W);
  rules.forEach((r, i) => {
    const o = i * W;
    let flags = 0;
    if (r.protocols.length > 1) flags |= GENERAL;
    words[o] = r.protocols.length === 1 ? r.protocols[0]! : -1;
    const addr = (set: readonly Prefix4[] | null, at: number) => {
      if (set === null) {
        words[at] = 0;
        words[at + 1] = 0;
      } else if (set.length === 1) {
        words[at] = set[0]!.addr | 0;
        words[at + 1] = set[0]!.mask | 0;
      } else flags |= GENERAL;
    };
    addr(r.local, o + 1);
    addr(r.remote, o + 3);
    const ports = (ranges: readonly PortRange[], at: number) => {
      if (ranges.length === 0) {
        words[at] = 0;
        words[at + 1] = 65535;
      } else if (ranges.length === 1) {
        words[at] = ranges[0]!.first;
        words[at + 1] = ranges[0]!.last;
      } else flags |= GENERAL;
    };
    ports(r.localPorts, o + 5);
    ports(r.remotePorts, o + 7);
    if (r.localPorts.length || r.remotePorts.length) flags |= HAS_PORTS;
    words[o + 9] = flags;
  });
  return { words, rules };
}

/** Index of the first rule at or after `from` that matches, or -1. */
function firstMatch(
  p: PackedRules,
  from: number,
  proto: number,
  localIp: number,
  localPort: number,
  remoteIp: number,
  remotePort: number,
): number {
  const w = p.words;
  const n = p.rules.length;
  const ported = proto === 6 || proto === 17;
  const lip = localIp | 0;
  const rip = remoteIp | 0;
  for (let i = from, o = from * W; i < n; i++, o += W) {
    const flags = w[o + 9]!;
    if (flags & GENERAL) {
      if (ruleMatches(p.rules[i]!, proto, localIp, localPort, remoteIp, remotePort)) return i;
      continue;
    }
    const pr = w[o]!;
    if (pr !== -1 && pr !== proto) continue;
    if ((lip & w[o + 2]!) !== w[o + 1]! || (rip & w[o + 4]!) !== w[o + 3]!) continue;
    if (ported) {
      if (localPort < w[o + 5]! || localPort > w[o + 6]! || remotePort < w[o + 7]! || remotePort > w[o + 8]!)
        continue;
    } else if (flags & HAS_PORTS) continue;
    return i;
  }
  return -1;
}

export interface CompiledAcls {
  /** Whether the endpoint has any ACL policy (the default-deny posture). */
  readonly any: boolean;
  readonly In: AclDirectionRules;
  readonly Out: AclDirectionRules;
  readonly defaultDenyIn: boolean;
  readonly defaultDenyOut: boolean;
  /** The AclOptions.defaultDeny these were compiled with (what removing a direction's last rule does). */
  readonly defaultDenyScope: 'both' | 'direction';
}

/** A source policy for the compiler: the parsed settings and where they live. */
export interface AclSource {
  readonly type: 'ACL' | 'NetworkACL' | 'TierAcl';
  readonly settings: AclSettings | TierAclSettings;
  readonly owner: { readonly kind: 'Endpoint' | 'Network'; readonly id: string; readonly name?: string };
  readonly index: number;
}

/** Resolves an IP-set id to its addresses (NESTEDIPSET members flattened); undefined = no such set. */
export type SetResolver = (id: string) => readonly Prefix4[] | undefined;

function addresses(m: AddressMatch, sets: SetResolver): readonly Prefix4[] | null {
  if (!m.prefixes.length && !m.setIds.length) return null;
  const out: Prefix4[] = [];
  for (const p of m.prefixes) {
    const v4 = fromPrefix(p);
    if (v4) out.push(v4);
  }
  for (const id of m.setIds) out.push(...(sets(id) ?? []));
  return out; // may be empty: an IPv6-only list or an empty set matches no IPv4 packet
}

function compileRule(m: RuleMatch, action: AclAction, ref: RuleRef, sets: SetResolver): CompiledRule {
  return {
    action,
    priority: m.priority,
    protocols: m.protocolSet,
    local: addresses(m.local, sets),
    remote: addresses(m.remote, sets),
    localPorts: m.localPortRanges,
    remotePorts: m.remotePortRanges,
    ref,
  };
}

const ACTION_RANK_BLOCK: Record<AclAction, number> = { Block: 0, Allow: 1, Pass: 2 };
const ACTION_RANK_ALLOW: Record<AclAction, number> = { Allow: 0, Block: 1, Pass: 2 };

function sortRules(rules: readonly CompiledRule[], tieBreak: 'Block' | 'Allow'): CompiledRule[] {
  const rank = tieBreak === 'Block' ? ACTION_RANK_BLOCK : ACTION_RANK_ALLOW;
  // Array.prototype.sort is stable: equal priority and action keep the order the policies were given in
  return [...rules].sort((a, b) => a.priority - b.priority || rank[a.action] - rank[b.action]);
}

/** Compile an endpoint's ACL, TierAcl and its network's NetworkACL policies into the port's layers. */
export function compileAcls(
  sources: readonly AclSource[],
  sets: SetResolver,
  opts: AclOptions = {},
): CompiledAcls {
  const tieBreak = opts.tieBreak ?? 'Block';
  const dirs: Record<AclDirectionName, { tiers: CompiledTier[]; vfp: CompiledRule[]; wfp: CompiledRule[] }> =
    {
      In: { tiers: [], vfp: [], wfp: [] },
      Out: { tiers: [], vfp: [], wfp: [] },
    };
  for (const s of sources) {
    const base = {
      kind: s.owner.kind,
      id: s.owner.id,
      ...(s.owner.name ? { name: s.owner.name } : {}),
      policy: s.type,
      index: s.index,
    };
    if (s.type === 'TierAcl') {
      const t = s.settings as TierAclSettings;
      const rules = t.rules.map((r, k) =>
        compileRule(
          r,
          r.action,
          {
            ...base,
            ...(r.id ? { ruleId: r.id } : {}),
            priority: r.priority,
            layer: LAYER.ACL,
            rule: `TIER_${t.name || t.order}_${r.id ?? k}`,
          },
          sets,
        ),
      );
      dirs[t.direction].tiers.push({ order: t.order, rules: sortRules(rules, tieBreak) });
      continue;
    }
    const a = s.settings as AclSettings;
    const host = a.effectiveRuleType === 'Host';
    const rule = compileRule(
      a,
      a.action,
      {
        ...base,
        ...(a.id ? { ruleId: a.id } : {}),
        priority: a.priority,
        layer: host ? LAYER.WFP : LAYER.ACL,
        rule: a.id ?? `${s.type}_${s.owner.kind === 'Network' ? 'NET_' : ''}${s.index}`,
      },
      sets,
    );
    (host ? dirs[a.direction].wfp : dirs[a.direction].vfp).push(rule);
  }
  const any = sources.length > 0;
  const hasRules = (d: AclDirectionName) =>
    dirs[d].tiers.length > 0 || dirs[d].vfp.length > 0 || dirs[d].wfp.length > 0;
  const denyWhen = (d: AclDirectionName) => any && ((opts.defaultDeny ?? 'both') === 'both' || hasRules(d));
  const finish = (d: AclDirectionName): AclDirectionRules => {
    const vfp = sortRules(dirs[d].vfp, tieBreak);
    return {
      tiers: [...dirs[d].tiers].sort((a, b) => a.order - b.order),
      vfp,
      wfp: dirs[d].wfp,
      vfpPacked: packRules(vfp),
    };
  };
  return {
    any,
    In: finish('In'),
    Out: finish('Out'),
    defaultDenyIn: denyWhen('In'),
    defaultDenyOut: denyWhen('Out'),
    defaultDenyScope: opts.defaultDeny ?? 'both',
  };
}

function inPorts(ranges: readonly PortRange[], port: number): boolean {
  if (!ranges.length) return true;
  for (const r of ranges) if (port >= r.first && port <= r.last) return true;
  return false;
}

function inAddrs(set: readonly Prefix4[] | null, ip: number): boolean {
  if (set === null) return true;
  for (const p of set) if (contains(p, ip)) return true;
  return false;
}

/** Whether a rule matches a packet seen from the endpoint: its own address/port and the peer's. */
function ruleMatches(
  r: CompiledRule,
  proto: number,
  localIp: number,
  localPort: number,
  remoteIp: number,
  remotePort: number,
): boolean {
  if (r.protocols.length && !r.protocols.includes(proto)) return false;
  if (!inAddrs(r.local, localIp) || !inAddrs(r.remote, remoteIp)) return false;
  // ports only constrain protocols that have them
  if (proto === 6 || proto === 17) {
    if (!inPorts(r.localPorts, localPort) || !inPorts(r.remotePorts, remotePort)) return false;
  } else if (r.localPorts.length || r.remotePorts.length) {
    return false;
  }
  return true;
}

/**
 * Evaluate one direction: tiers, then VFP (Switch) rules, then WFP (Host) rules. `In` packets are
 * seen with the endpoint as destination, `Out` packets with it as source.
 */
export function evaluateAcls(
  acls: CompiledAcls,
  dir: AclDirectionName,
  proto: number,
  srcIp: number,
  srcPort: number,
  dstIp: number,
  dstPort: number,
): AclVerdict {
  if (!acls.any) return { allowed: true, stage: 'VFP', by: 'default-allow' };
  const inbound = dir === 'In';
  const localIp = inbound ? dstIp : srcIp;
  const localPort = inbound ? dstPort : srcPort;
  const remoteIp = inbound ? srcIp : dstIp;
  const remotePort = inbound ? srcPort : dstPort;
  const rules = acls[dir];
  const deny = inbound ? acls.defaultDenyIn : acls.defaultDenyOut;
  let vfp: AclVerdict | undefined;
  // tiers: the lowest priority match of each tier; Pass goes on
  for (const tier of rules.tiers) {
    const hit = tier.rules.find((r) => ruleMatches(r, proto, localIp, localPort, remoteIp, remotePort));
    if (!hit || hit.action === 'Pass') continue;
    vfp = { allowed: hit.action === 'Allow', stage: 'VFP', rule: hit.ref, by: 'rule' };
    break;
  }
  if (!vfp) {
    for (let i = 0; ; i++) {
      i = firstMatch(rules.vfpPacked, i, proto, localIp, localPort, remoteIp, remotePort);
      if (i < 0) break;
      const r = rules.vfp[i]!;
      // a flat Pass (schema 2.10) hands the packet on: the next rule decides
      if (r.action === 'Pass') continue;
      vfp = { allowed: r.action === 'Allow', stage: 'VFP', rule: r.ref, by: 'rule' };
      break;
    }
  }
  // a direction whose rules are all Host rules has nothing for VFP to enforce: WFP decides
  const vfpHasRules = rules.tiers.length > 0 || rules.vfp.length > 0;
  vfp ??= {
    allowed: !deny || (!vfpHasRules && rules.wfp.length > 0),
    stage: 'VFP',
    by: deny && (vfpHasRules || rules.wfp.length === 0) ? 'default-deny' : 'default-allow',
  };
  if (!vfp.allowed) return vfp;
  // WFP filters only a direction that has Host rules (Switch-only policies, as hcsshim's tests and
  // Calico's CNI write them, are VFP's alone); there, Windows Firewall semantics: a matching Block
  // beats any Allow, and what no rule allows is denied once the endpoint has ACLs
  if (rules.wfp.length === 0) return vfp;
  let allow: CompiledRule | undefined;
  for (const r of rules.wfp) {
    if (!ruleMatches(r, proto, localIp, localPort, remoteIp, remotePort)) continue;
    if (r.action === 'Block') return { allowed: false, stage: 'WFP', rule: r.ref, by: 'rule' };
    if (r.action === 'Allow') allow ??= r;
  }
  if (allow) return vfp.by === 'rule' ? vfp : { allowed: true, stage: 'WFP', rule: allow.ref, by: 'rule' };
  return deny ? { allowed: false, stage: 'WFP', by: 'default-deny' } : vfp;
}
