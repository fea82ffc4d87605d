/**
 * A port's ACL analysis as JSON: what `hnsim analyze --format json` prints and JSON-RPC
 * `AnalyzePort` returns. Each set is `{count, text, witness?}`: the count as a decimal string (it
 * passes 2^53), the compact human form (at most eight lines), a packet of the set.
 */
import type { JsonObject } from '../core/json.js';
import type { RuleRef } from '../vswitch/contracts.js';
import type { AclDirectionAnalysis, AclOutcome, AclRuleAnalysis, AclTie, PacketSet } from './acl.js';
import type { AclChange, AclDiff } from './diff.js';
import type { PortAnalysis } from './port.js';
import type { Reachability } from './reach.js';
import type { ReachDiff } from './reach-diff.js';
import type { WitnessPacket } from './space.js';

/** At most this many lines of a set's human form. */
export const SET_LINES = 8;

/** A rule as people name it: its Id, else its policy and index (ACL #3, TierAcl t1/r2). */
export function ruleName(r: RuleRef): string {
  if (r.ruleId) return r.ruleId;
  if (r.rule) return r.rule;
  return `${r.policy ?? 'policy'} #${r.index ?? '?'}`;
}

/** What decided: a rule by its name (with its stage, "block-web (VFP)", if asked), a default as "VFP default-deny". */
export function outcomeLabel(o: AclOutcome, withStage = false): string {
  return o.kind === 'rule'
    ? `${ruleName(o.rule)}${withStage ? ` (${o.stage})` : ''}`
    : `${o.stage} ${o.kind}`;
}

function setJson(s: PacketSet): JsonObject {
  const w = s.witness();
  return {
    count: s.count.toString(),
    text: s.describe(SET_LINES),
    ...(w ? { witness: { ...w } } : {}),
  };
}

function refJson(r: RuleRef): JsonObject {
  return JSON.parse(JSON.stringify(r)) as JsonObject;
}

function outcomeJson(o: AclOutcome): JsonObject {
  return o.kind === 'rule'
    ? { kind: 'rule', stage: o.stage, rule: refJson(o.rule) }
    : { kind: o.kind, stage: o.stage };
}

function ruleJson(r: AclRuleAnalysis): JsonObject {
  return {
    rule: refJson(r.rule),
    stage: r.stage,
    action: r.action,
    priority: r.priority,
    ...(r.tier !== undefined ? { tier: r.tier } : {}),
    status: r.status,
    matches: setJson(r.matches),
    decides: setJson(r.decides),
    ...(r.shadowedBy.length ? { shadowedBy: r.shadowedBy.map(outcomeJson) } : {}),
    ...(r.passes ? { passes: setJson(r.passes) } : {}),
    redundant: r.redundant,
    ...(r.liftsDefaultDeny ? { liftsDefaultDeny: true } : {}),
    ...(r.redundant ? {} : { removalChanges: setJson(r.removalChanges) }),
  };
}

function tieJson(t: AclTie): JsonObject {
  return {
    priority: t.priority,
    ...(t.tier !== undefined ? { tier: t.tier } : {}),
    allow: refJson(t.allow),
    block: refJson(t.block),
    winner: refJson(t.winner),
    overlap: setJson(t.overlap),
  };
}

function directionJson(d: AclDirectionAnalysis): JsonObject {
  return {
    rules: d.rules.map(ruleJson),
    defaults: d.defaults.map((x) => ({ ...outcomeJson(x.outcome), decides: setJson(x.decides) })),
    ties: d.ties.map(tieJson),
    allowed: setJson(d.allowed),
    denied: setJson(d.denied),
  };
}

/** The analysis as JSON. */
export function analysisJson(a: PortAnalysis): JsonObject {
  return { endpoint: { ...a.endpoint }, In: directionJson(a.In), Out: directionJson(a.Out) };
}

function changeJson(c: AclChange): JsonObject {
  return {
    ...setJson(c.packets),
    by: c.by.map((x) => ({ ...outcomeJson(x.outcome), packets: setJson(x.packets) })),
  };
}

/** A before/after comparison as JSON: per direction the newly allowed and newly denied packets. */
export function diffJson(d: AclDiff): JsonObject {
  const dir = (x: AclDiff['In']) => ({
    newlyAllowed: changeJson(x.newlyAllowed),
    newlyDenied: changeJson(x.newlyDenied),
  });
  return { unchanged: d.unchanged, In: dir(d.In), Out: dir(d.Out) };
}

/** A port's findings in brief (`hnsim analyze FILE` without --port; its JSON too). */
export interface PortSummary {
  readonly endpoint: string;
  readonly ip: string;
  /** Rules in both directions. */
  readonly rules: number;
  /** Each shadowed rule with what decides its packets instead. */
  readonly shadowed: readonly { readonly rule: string; readonly by: readonly string[] }[];
  readonly redundant: readonly string[];
  readonly ties: number;
}

export function portSummary(a: PortAnalysis): PortSummary {
  const rules = [...a.In.rules, ...a.Out.rules];
  return {
    endpoint: a.endpoint.name,
    ip: a.endpoint.ip,
    rules: rules.length,
    shadowed: rules
      .filter((r) => r.status === 'shadowed')
      .map((r) => ({ rule: ruleName(r.rule), by: r.shadowedBy.map((o) => outcomeLabel(o, true)) })),
    redundant: rules.filter((r) => r.redundant).map((r) => ruleName(r.rule)),
    ties: a.In.ties.length + a.Out.ties.length,
  };
}

const PROTOCOL_WORDS: Readonly<Record<number, string>> = { 1: 'ICMP', 6: 'TCP', 17: 'UDP' };

/**
 * A witness as the `hnsim trace` options that replay it (`--from X --to ADDR --protocol TCP --sport
 * … --dport …`); `to` instead of its address when the destination is a name that did not resolve.
 */
export function witnessTrace(from: string, w: WitnessPacket, to = w.dstIp): string {
  const ported = w.protocol === 6 || w.protocol === 17;
  const proto = PROTOCOL_WORDS[w.protocol] ?? String(w.protocol);
  return `--from ${from} --to ${to} --protocol ${proto}${ported ? ` --sport ${w.srcPort} --dport ${w.dstPort}` : ''}`;
}

/** Where a replay of an answer's witness goes: its address, or the name when it did not resolve. */
export const replayTarget = (r: { readonly to: string; readonly destination: string }): string | undefined =>
  r.destination ? undefined : r.to;

/**
 * A set of the source's packets with the trace request its witness is (`hnsim trace` replays it:
 * `--from` the source, `--to` the witness's destination address, or `to` for a name that did not
 * resolve).
 */
function flowJson(s: PacketSet, from: string, to?: string): JsonObject {
  const o = setJson(s);
  const w = s.witness();
  if (w)
    o['trace'] = {
      from,
      to: to ?? w.dstIp,
      protocol: w.protocol,
      ...(w.protocol === 6 || w.protocol === 17 ? { sourcePort: w.srcPort, destinationPort: w.dstPort } : {}),
    };
  return o;
}

/** Reachability as JSON: `Analyze({from, to})` over JSON-RPC, `hnsim analyze --from --to --format json`. */
export function reachJson(r: Reachability): JsonObject {
  const byDisposition = (m: Reachability['dispositions']): JsonObject => {
    const o: JsonObject = {};
    for (const [d, s] of Object.entries(m)) if (s) o[d] = flowJson(s, r.from, replayTarget(r));
    return o;
  };
  const o: JsonObject = {
    from: r.from,
    to: r.to,
    source: r.source,
    destination: r.destination,
    exact: r.exact,
    classes: r.classes,
    walks: r.walks,
    dispositions: byDisposition(r.dispositions),
  };
  const forked = r.outcomes.some((x) => x.dispositions.length > 1);
  if (forked) o['possible'] = byDisposition(r.possible);
  if (r.branches.length)
    o['branches'] = r.branches.map((br) => ({
      choices: br.choices.map((c) => ({ ...c })),
      dispositions: byDisposition(br.dispositions),
    }));
  if (r.notes.length) o['notes'] = [...r.notes];
  return o;
}

/** A reachability differential as JSON. */
export function reachDiffJson(d: ReachDiff): JsonObject {
  return {
    from: d.from,
    to: d.to,
    unchanged: d.unchanged,
    exact: d.exact,
    changes: d.changes.map((c) => ({
      before: [...c.before],
      after: [...c.after],
      ...flowJson(c.set, d.from),
    })),
    ...(d.missing ? { missing: d.missing } : {}),
    ...(d.notes.length ? { notes: [...d.notes] } : {}),
  };
}
