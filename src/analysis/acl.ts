/**
 * Every packet of a port's ACLs at once (issue 19, "per port"): for each rule the exact set of
 * packets whose verdict it gives — after higher-priority rules, tiers and their Pass, the VFP
 * default, and the WFP stage for Host rules, exactly as `evaluateAcls` (src/vswitch/acl.ts) decides
 * one packet — then the rules that decide nothing (shadowed, with the rules and defaults that decide
 * their packets instead), the rules whose removal changes no packet's verdict (redundant), and the
 * Allow/Block rules of equal priority whose packets overlap, with the rule that wins there.
 *
 * The sets are BDDs over the port's packet space (./space.ts); `evaluateAcls` is the oracle the
 * tests hold every set to (test/analysis). Redundancy is found without re-analysing the port per
 * rule: one backward pass gives, for every position of the evaluation order, the packets the rest
 * of the order allows, and a rule is redundant when none of the packets it takes first would get
 * another verdict from the rest (and the WFP stage would let that difference through).
 */
import type { AclAction } from '../hns/policy/endpoint/acl.js';
import type { AclDirectionName, AclDirectionRules, CompiledAcls, CompiledRule } from '../vswitch/acl.js';
import type { RuleRef } from '../vswitch/contracts.js';
import type { Prefix4 } from '../vswitch/v4.js';
import { FALSE, TRUE } from './bdd.js';
import { AclSpace, type AclPacket, type WitnessPacket } from './space.js';

/** What decides a packet: a rule, or a stage's default. */
export type AclOutcome =
  | { readonly kind: 'rule'; readonly rule: RuleRef; readonly stage: 'VFP' | 'WFP' }
  | { readonly kind: 'default-allow' | 'default-deny'; readonly stage: 'VFP' | 'WFP' };

/** A set of packets of the port, with its faces. */
export interface PacketSet {
  readonly empty: boolean;
  /** How many packets (protocol, both addresses, both ports). */
  readonly count: bigint;
  /** The compact human form, a line per box. */
  describe(max?: number): string[];
  /** One packet of the set, in a trace's words (source → destination). */
  witness(): WitnessPacket | undefined;
  has(p: AclPacket): boolean;
  /** The set's node in the analysis' diagram (for set algebra through `AclAnalysis.space`). */
  readonly node: number;
}

export interface AclRuleAnalysis {
  readonly rule: RuleRef;
  readonly stage: 'VFP' | 'WFP';
  readonly action: AclAction;
  readonly priority: number;
  /** The TierAcl's Order, for a tier's rule. */
  readonly tier?: number;
  /** The packets the rule's conditions match on this port. */
  readonly matches: PacketSet;
  /** The packets whose verdict is this rule's (as `evaluateAcls` names it). */
  readonly decides: PacketSet;
  /**
   * `decides`: it decides some packet; `pass`: a Pass rule that packets reach (it never decides: it
   * hands them on, `passes`); `permits`: a Host (WFP) Allow that decides nothing by name but lets
   * packets through WFP that a Switch rule allowed (the verdict names the Switch rule; without it
   * they would be denied: `removalChanges`); `shadowed`: it matches packets but other rules or a
   * default decide them all (a Pass rule: none reaches it); `matches-nothing`: no packet of this
   * port meets its conditions (an address list without IPv4, ports on a protocol without them, a
   * local address that is not the endpoint's).
   */
  readonly status: 'decides' | 'pass' | 'permits' | 'shadowed' | 'matches-nothing';
  /** For a shadowed rule: what decides its packets instead, in evaluation order. */
  readonly shadowedBy: readonly AclOutcome[];
  /** For a Pass rule: the packets that reach it and that it hands on. */
  readonly passes?: PacketSet;
  /**
   * Whether removing the rule changes no packet's verdict (allowed or denied), in either
   * direction.
   */
  readonly redundant: boolean;
  /** The packets of the rule's direction whose verdict its removal would change. */
  readonly removalChanges: PacketSet;
  /**
   * The rule is the port's only ACL policy: removing it also lifts the other direction's default
   * deny (`AclOptions.defaultDeny` `both`), so it is not redundant even when `removalChanges` is
   * empty.
   */
  readonly liftsDefaultDeny?: true;
}

/**
 * Two rules of one priority and group, Allow and Block, that both match packets reaching them: the
 * overlap is those packets (the ones an earlier rule takes are left out).
 */
export interface AclTie {
  readonly priority: number;
  readonly tier?: number;
  readonly allow: RuleRef;
  readonly block: RuleRef;
  readonly overlap: PacketSet;
  /** The rule whose action the overlap gets (AclOptions.tieBreak; undocumented on Windows). */
  readonly winner: RuleRef;
}

export interface AclDirectionAnalysis {
  readonly direction: AclDirectionName;
  readonly rules: readonly AclRuleAnalysis[];
  /** The packets a default decides, per default (absent when it decides none). */
  readonly defaults: readonly { readonly outcome: AclOutcome; readonly decides: PacketSet }[];
  readonly allowed: PacketSet;
  readonly denied: PacketSet;
  readonly ties: readonly AclTie[];
}

export interface AclAnalysis {
  readonly space: AclSpace;
  readonly In: AclDirectionAnalysis;
  readonly Out: AclDirectionAnalysis;
}

export interface AclAnalysisOptions {
  /**
   * The endpoint's own addresses: the packets of the port have one of them on the local side (an
   * `In` packet's destination after DNAT, an `Out` packet's source before SNAT). Default: any.
   */
  readonly localAddresses?: readonly Prefix4[];
  /**
   * The space to build the sets in (default a new one): analyses sharing one have comparable sets
   * (`PacketSet.node`), as a before/after comparison needs.
   */
  readonly space?: AclSpace;
}

/**
 * Analyse both directions of a port's compiled ACLs (their `defaultDenyScope` says what removing a
 * direction's last rule does).
 */
export function analyzeAcls(acls: CompiledAcls, opts: AclAnalysisOptions = {}): AclAnalysis {
  const space = opts.space ?? new AclSpace();
  const scope = opts.localAddresses
    ? space.bdd.and(space.universe, space.addresses('localIp', opts.localAddresses))
    : space.universe;
  const mode = acls.defaultDenyScope;
  return {
    space,
    In: analyzeDirection(space, scope, acls, 'In', mode),
    Out: analyzeDirection(space, scope, acls, 'Out', mode),
  };
}

/**
 * The packets a direction's compiled ACLs allow, as `evaluateAcls` decides them (without the
 * per-rule analysis): what reachability composes along a path. `scope` defaults to every packet
 * of the space.
 */
export function aclAllowedSet(
  acls: CompiledAcls,
  dir: AclDirectionName,
  space: AclSpace,
  scope = space.universe,
): number {
  if (!acls.any) return scope;
  const rules = acls[dir];
  const slot = (r: CompiledRule, stage: 'VFP' | 'WFP', tier: number): Slot => ({
    r,
    stage,
    tier,
    match: matchOf(space, scope, r),
    hull: NO_HULL,
    first: FALSE,
    decides: FALSE,
    changes: FALSE,
  });
  const deny = dir === 'In' ? acls.defaultDenyIn : acls.defaultDenyOut;
  return allowedBy(
    space,
    scope,
    rules.tiers.map((t, k) => t.rules.map((r) => slot(r, 'VFP', k))),
    rules.vfp.map((r) => slot(r, 'VFP', -1)),
    rules.wfp.map((r) => slot(r, 'WFP', -1)),
    deny,
  );
}

const NO_HULL = new Float64Array(0);

/** The packets of `scope` a rule's conditions match. */
function matchOf(space: AclSpace, scope: number, r: CompiledRule): number {
  const b = space.bdd;
  let u = b.and(scope, space.protocols(r.protocols));
  u = b.and(u, space.addresses('localIp', r.local));
  u = b.and(u, space.addresses('remoteIp', r.remote));
  u = b.and(u, space.ports('localPort', r.localPorts));
  return b.and(u, space.ports('remotePort', r.remotePorts));
}

/** A rule in evaluation order: where it sits and what it matches. */
interface Slot {
  readonly r: CompiledRule;
  readonly stage: 'VFP' | 'WFP';
  /** Index of its tier in `rules.tiers`; -1 for a flat rule. */
  readonly tier: number;
  readonly match: number;
  /** Its fields' hull (hullOf), for skipping rules that share no packet with it. */
  readonly hull: Float64Array;
  /** VFP: the packets that reach it and meet it first (within its tier; in the flat rules). */
  first: number;
  /** The final verdict's packets. */
  decides: number;
  /** The packets whose verdict removing it changes. */
  changes: number;
}

function analyzeDirection(
  space: AclSpace,
  scope: number,
  acls: CompiledAcls,
  dir: AclDirectionName,
  mode: 'both' | 'direction',
): AclDirectionAnalysis {
  const b = space.bdd;
  const rules = acls[dir];
  const set = (node: number): PacketSet => packetSet(space, node, dir);
  if (!acls.any)
    return {
      direction: dir,
      rules: [],
      defaults: [{ outcome: { kind: 'default-allow', stage: 'VFP' }, decides: set(scope) }],
      allowed: set(scope),
      denied: set(FALSE),
      ties: [],
    };
  const deny = dir === 'In' ? acls.defaultDenyIn : acls.defaultDenyOut;
  const slot = (r: CompiledRule, stage: 'VFP' | 'WFP', tier: number): Slot => ({
    r,
    stage,
    tier,
    match: matchOf(space, scope, r),
    hull: hullOf(r),
    first: FALSE,
    decides: FALSE,
    changes: FALSE,
  });
  const tiers = rules.tiers.map((t, k) => t.rules.map((r) => slot(r, 'VFP', k)));
  const flat = rules.vfp.map((r) => slot(r, 'VFP', -1));
  const wfp = rules.wfp.map((r) => slot(r, 'WFP', -1));

  // ── VFP, forward: what reaches each rule and meets it first
  const { rest } = forwardPass(b, scope, tiers, flat, (s, first) => (s.first = first));
  const vfpHasRules = tiers.length > 0 || flat.length > 0;
  const defaultAllowed = vfpDefaultAllows(deny, vfpHasRules, wfp.length > 0);
  const vfpDefault: AclOutcome = {
    kind: deny && (vfpHasRules || wfp.length === 0) ? 'default-deny' : 'default-allow',
    stage: 'VFP',
  };

  // ── VFP, backward: the packets the evaluation from each position on allows (for redundancy)
  const allowedFromFlat: number[] = new Array<number>(flat.length + 1);
  allowedFromFlat[flat.length] = defaultAllowed ? scope : FALSE;
  for (let k = flat.length - 1; k >= 0; k--) {
    const s = flat[k]!;
    const next = allowedFromFlat[k + 1]!;
    allowedFromFlat[k] =
      s.r.action === 'Allow' ? b.or(s.match, next) : s.r.action === 'Block' ? b.diff(next, s.match) : next;
  }
  const fromTier: number[] = new Array<number>(tiers.length + 1);
  fromTier[tiers.length] = allowedFromFlat[0]!;
  const tierNext = new Array<number[]>(tiers.length);
  for (let t = tiers.length - 1; t >= 0; t--) {
    const tier = tiers[t]!;
    const after = fromTier[t + 1]!;
    let g = after;
    const next = (tierNext[t] = new Array<number>(tier.length + 1));
    next[tier.length] = g;
    for (let k = tier.length - 1; k >= 0; k--) {
      const s = tier[k]!;
      const out = s.r.action === 'Allow' ? TRUE : s.r.action === 'Block' ? FALSE : after;
      g = b.or(b.and(s.match, out), b.diff(g, s.match));
      next[k] = g;
    }
    fromTier[t] = g;
  }
  const vfpAllowed = fromTier[0]!;

  // ── WFP: Host rules filter what VFP allowed, a Block beating any Allow
  const blocks = wfp.filter((s) => s.r.action === 'Block');
  const allows = wfp.filter((s) => s.r.action === 'Allow');
  const anyBlock = b.orAll(blocks.map((s) => s.match));
  const anyAllow = b.orAll(allows.map((s) => s.match));
  const wfpPass = wfpGate(b, wfp.length > 0, anyBlock, anyAllow, deny);

  // ── each rule's final packets
  const vfpDefaultSet = rest;
  for (const s of [...tiers.flat(), ...flat]) {
    if (s.r.action === 'Pass') continue;
    s.decides = s.r.action === 'Allow' ? b.and(s.first, wfpPass) : s.first;
  }
  const defaults: { outcome: AclOutcome; node: number }[] = [];
  if (!defaultAllowed) defaults.push({ outcome: vfpDefault, node: vfpDefaultSet });
  else
    defaults.push({
      outcome: vfpDefault,
      node: b.and(vfpDefaultSet, wfp.length && deny ? FALSE : b.not(b.or(anyBlock, anyAllow))),
    });
  if (wfp.length) {
    let blocked = FALSE;
    for (const s of blocks) {
      s.decides = b.diff(b.and(s.match, vfpAllowed), blocked);
      blocked = b.or(blocked, s.decides);
    }
    // a Host Allow names the verdict only where VFP allowed by its default
    let allowedByWfp = FALSE;
    const byDefault = defaultAllowed ? b.diff(vfpDefaultSet, anyBlock) : FALSE;
    for (const s of allows) {
      s.decides = b.diff(b.and(s.match, byDefault), allowedByWfp);
      allowedByWfp = b.or(allowedByWfp, s.decides);
    }
    if (deny)
      defaults.push({
        outcome: { kind: 'default-deny', stage: 'WFP' },
        node: b.diff(b.diff(vfpAllowed, anyBlock), anyAllow),
      });
  }

  // ── redundancy: the packets whose allowed-or-denied removing the rule changes — of those it
  // takes first, the ones the rest of the order would judge otherwise (an Allow's: those the rest
  // denies; a Block's: those it allows; a Pass's: where its tier's end and the rest disagree)
  const differs = (s: Slot, next: number, passTo: number) =>
    s.r.action === 'Allow'
      ? b.diff(s.first, next)
      : s.r.action === 'Block'
        ? b.and(s.first, next)
        : b.and(s.first, xor(b, passTo, next));
  for (let t = 0; t < tiers.length; t++)
    tiers[t]!.forEach((s, k) => {
      s.changes = b.and(differs(s, tierNext[t]![k + 1]!, fromTier[t + 1]!), wfpPass);
    });
  flat.forEach((s, k) => {
    // (a flat Pass hands its packets to the next rule: removing it changes nothing)
    if (s.r.action !== 'Pass') s.changes = b.and(differs(s, allowedFromFlat[k + 1]!, FALSE), wfpPass);
  });
  const others = (list: readonly Slot[]) => {
    // the union of every other slot's match, by prefix and suffix unions
    const pre: number[] = [FALSE];
    for (const s of list) pre.push(b.or(pre[pre.length - 1]!, s.match));
    const suf: number[] = new Array<number>(list.length + 1).fill(FALSE);
    for (let i = list.length - 1; i >= 0; i--) suf[i] = b.or(suf[i + 1]!, list[i]!.match);
    return list.map((_, i) => b.or(pre[i]!, suf[i + 1]!));
  };
  const otherBlocks = others(blocks);
  const otherAllows = others(allows);
  blocks.forEach((s, i) => {
    const lets = deny ? anyAllow : TRUE;
    s.changes = b.and(b.diff(b.and(s.match, vfpAllowed), otherBlocks[i]!), lets);
  });
  allows.forEach((s, i) => {
    s.changes = deny ? b.diff(b.diff(b.and(s.match, vfpAllowed), anyBlock), otherAllows[i]!) : FALSE;
  });
  // a rule whose removal changes the posture (the port's only ACL, a stage's or, in `direction`
  // mode, the direction's last rule) is measured against the port without it
  const all = [...tiers.flat(), ...flat, ...wfp];
  const finalAllowed = b.and(vfpAllowed, wfpPass);
  // (policies, not rules: a TierAcl without rules still is one, and still puts the port in default-deny)
  const total = policies(acls.In) + policies(acls.Out);
  const here = policies(rules);
  // the port's only ACL policy (not a TierAcl's rule: the tier stays): without it the other
  // direction's default deny goes too
  const lifts = (s: Slot) => s.tier === -1 && total === 1 && mode === 'both';
  for (const s of all) {
    const own = s.tier === -1;
    const structural =
      own &&
      (total === 1 ||
        (mode === 'direction' && here === 1) ||
        (s.stage === 'VFP' && tiers.length === 0 && flat.length === 1 && wfp.length > 0) ||
        (s.stage === 'WFP' && wfp.length === 1));
    if (!structural) continue;
    const without = (list: readonly Slot[]) => list.filter((x) => x !== s);
    const denyAfter = total > 1 && (mode === 'both' || here > 1);
    const after =
      total === 1
        ? scope
        : allowedBy(space, scope, tiers.map(without), without(flat), without(wfp), denyAfter);
    s.changes = xor(b, finalAllowed, after);
  }

  // ── the faces
  const outcomes: { outcome: AclOutcome; node: number; hull?: Float64Array }[] = [
    ...[...tiers.flat(), ...flat, ...wfp]
      .filter((s) => s.r.action !== 'Pass')
      .map((s) => ({
        outcome: { kind: 'rule', rule: s.r.ref, stage: s.stage } as AclOutcome,
        node: s.decides,
        hull: s.hull,
      })),
    ...defaults,
  ];
  /** The outcomes that decide some of `match`, in evaluation order (stopping once all of it is). */
  const deciders = (s: Slot): AclOutcome[] => {
    const out: AclOutcome[] = [];
    let left = s.match;
    for (const o of outcomes) {
      // (rules whose fields' hulls are apart share no packet: most of them, skipped cheaply)
      if (o.hull && !hullsMeet(o.hull, s.hull)) continue;
      if (!b.intersects(o.node, left)) continue;
      out.push(o.outcome);
      left = b.diff(left, o.node);
      if (left === FALSE) break;
    }
    return out;
  };
  const statusOf = (s: Slot): AclRuleAnalysis['status'] => {
    if (s.match === FALSE) return 'matches-nothing';
    if (s.r.action === 'Pass') return s.first === FALSE ? 'shadowed' : 'pass';
    if (s.decides !== FALSE) return 'decides';
    return s.stage === 'WFP' && s.r.action === 'Allow' && s.changes !== FALSE ? 'permits' : 'shadowed';
  };
  const analysed = all.map((s): AclRuleAnalysis => {
    const status = statusOf(s);
    return {
      rule: s.r.ref,
      stage: s.stage,
      action: s.r.action,
      priority: s.r.priority,
      ...(s.tier >= 0 ? { tier: rules.tiers[s.tier]!.order } : {}),
      matches: set(s.match),
      decides: set(s.decides),
      status,
      shadowedBy: status === 'shadowed' ? deciders(s) : [],
      ...(status === 'pass' ? { passes: set(s.first) } : {}),
      redundant: s.changes === FALSE && !lifts(s),
      removalChanges: set(s.changes),
      ...(lifts(s) ? { liftsDefaultDeny: true as const } : {}),
    };
  });
  return {
    direction: dir,
    rules: analysed,
    defaults: defaults
      .filter((d) => d.node !== FALSE)
      .map((d) => ({ outcome: d.outcome, decides: set(d.node) })),
    allowed: set(finalAllowed),
    denied: set(b.diff(scope, finalAllowed)),
    ties: ties(space, rules, [...tiers, flat], dir),
  };
}

/**
 * A rule's hull: per field (protocol, local port, remote address, remote port, local address) the
 * least interval holding every value it matches.
 */
function hullOf(r: CompiledRule): Float64Array {
  const h = new Float64Array(10);
  const span = (at: number, values: readonly (readonly [number, number])[], max: number) => {
    h[at] = values.length ? Math.min(...values.map((v) => v[0])) : 0;
    h[at + 1] = values.length ? Math.max(...values.map((v) => v[1])) : max;
  };
  const addrs = (set: CompiledRule['local']) =>
    set === null ? [] : set.map((p) => [p.addr >>> 0, (p.addr | ~p.mask) >>> 0] as const);
  span(
    0,
    r.protocols.map((p) => [p, p] as const),
    255,
  );
  span(
    2,
    r.localPorts.map((p) => [p.first, p.last] as const),
    65535,
  );
  span(4, addrs(r.remote), 0xffffffff);
  span(
    6,
    r.remotePorts.map((p) => [p.first, p.last] as const),
    65535,
  );
  span(8, addrs(r.local), 0xffffffff);
  // (an empty address list matches nothing: its hull meets none)
  if ((r.remote && !r.remote.length) || (r.local && !r.local.length)) h.fill(-1);
  return h;
}

function hullsMeet(a: Float64Array, b: Float64Array): boolean {
  for (let k = 0; k < 10; k += 2) if (a[k]! > b[k + 1]! || b[k]! > a[k + 1]!) return false;
  return true;
}

/** How many ACL policies a direction has (a TierAcl is one, whatever its rules). */
function policies(d: AclDirectionRules): number {
  return d.tiers.length + d.vfp.length + d.wfp.length;
}

/**
 * VFP's rules in evaluation order — the tiers by Order (first match within each; a Pass goes on to
 * the next tier), then the flat Switch rules (first match that is not a Pass) — from `scope`:
 * `visit` hears what reaches each rule and meets it first; returns what the rules allow and what
 * none of them decides (the VFP default's packets).
 */
function forwardPass(
  b: AclSpace['bdd'],
  scope: number,
  tiers: readonly (readonly Slot[])[],
  flat: readonly Slot[],
  visit?: (s: Slot, first: number) => void,
): { allowed: number; rest: number } {
  let rest = scope;
  let allowed = FALSE;
  const meet = (s: Slot, first: number) => {
    visit?.(s, first);
    if (s.r.action === 'Pass') return;
    if (s.r.action === 'Allow') allowed = b.or(allowed, first);
    rest = b.diff(rest, first);
  };
  for (const tier of tiers) {
    let inTier = rest;
    for (const s of tier) {
      const first = b.and(s.match, inTier);
      inTier = b.diff(inTier, first);
      meet(s, first);
    }
  }
  for (const s of flat) meet(s, b.and(s.match, rest));
  return { allowed, rest };
}

/** Whether the VFP default allows: no default deny, or a direction whose rules are all Host rules. */
function vfpDefaultAllows(deny: boolean, vfpHasRules: boolean, hasWfp: boolean): boolean {
  return !deny || (!vfpHasRules && hasWfp);
}

/**
 * The packets the WFP stage lets through of what VFP allowed: everything without Host rules; else
 * none a Host Block matches and, under the default deny, only those a Host Allow matches.
 */
function wfpGate(
  b: AclSpace['bdd'],
  hasWfp: boolean,
  anyBlock: number,
  anyAllow: number,
  deny: boolean,
): number {
  return hasWfp ? b.diff(deny ? anyAllow : TRUE, anyBlock) : TRUE;
}

/**
 * The packets a direction's rules allow, evaluated as `evaluateAcls` does — the VFP rules, the VFP
 * default, then the WFP stage (for the few removals that change the posture).
 */
function allowedBy(
  space: AclSpace,
  scope: number,
  tiers: readonly (readonly Slot[])[],
  flat: readonly Slot[],
  wfp: readonly Slot[],
  deny: boolean,
): number {
  const b = space.bdd;
  const { allowed, rest } = forwardPass(b, scope, tiers, flat);
  const vfp = vfpDefaultAllows(deny, tiers.length > 0 || flat.length > 0, wfp.length > 0)
    ? b.or(allowed, rest)
    : allowed;
  const union = (action: string) => b.orAll(wfp.filter((s) => s.r.action === action).map((s) => s.match));
  return b.and(vfp, wfpGate(b, wfp.length > 0, union('Block'), union('Allow'), deny));
}

function xor(b: AclSpace['bdd'], x: number, y: number): number {
  return b.or(b.diff(x, y), b.diff(y, x));
}

/** Allow and Block rules of one priority in one group (a tier, the flat rules) that overlap. */
function ties(
  space: AclSpace,
  rules: AclDirectionRules,
  groups: readonly Slot[][],
  dir: AclDirectionName,
): AclTie[] {
  const b = space.bdd;
  const out: AclTie[] = [];
  for (const group of groups) {
    const byPriority = new Map<number, Slot[]>();
    for (const s of group) byPriority.set(s.r.priority, [...(byPriority.get(s.r.priority) ?? []), s]);
    for (const [priority, list] of byPriority) {
      const allows = list.filter((s) => s.r.action === 'Allow');
      const blocks = list.filter((s) => s.r.action === 'Block');
      if (!allows.length || !blocks.length) continue;
      const anyBlock = b.orAll(blocks.map((s) => s.match));
      for (const a of allows) {
        if (!b.intersects(a.match, anyBlock)) continue;
        for (const k of blocks) {
          // the group is sorted: of the two, the one first in it wins — where packets reach it
          const winner = list.indexOf(a) < list.indexOf(k) ? a : k;
          const overlap = b.and(b.and(a.match, k.match), winner.first);
          if (overlap === FALSE) continue;
          out.push({
            priority,
            ...(a.tier >= 0 ? { tier: rules.tiers[a.tier]!.order } : {}),
            allow: a.r.ref,
            block: k.r.ref,
            overlap: packetSet(space, overlap, dir),
            winner: winner.r.ref,
          });
        }
      }
    }
  }
  return out;
}

/** A set of the space with its faces. */
export function packetSet(space: AclSpace, node: number, dir: AclDirectionName): PacketSet {
  let count: bigint | undefined;
  return {
    node,
    empty: node === FALSE,
    get count() {
      return (count ??= space.count(node));
    },
    describe: (max?: number) => space.describe(node, dir, max),
    witness: () => space.witness(node, dir),
    has: (p) => space.has(node, p),
  };
}
