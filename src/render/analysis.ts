/**
 * The faces of a port's ACL analysis (src/analysis): JSON (what `hnsim analyze --format json` and
 * JSON-RPC `AnalyzePort` return) and text, one section per direction — each rule with its verdict
 * set in the compact human form, what shadows it, whether it is redundant — then the ties and what
 * the defaults decide. Counts are decimal strings in JSON (they pass 2^53).
 */
import type {
  AclDirectionAnalysis,
  AclOutcome,
  AclRuleAnalysis,
  AclTie,
  PacketSet,
} from '../analysis/acl.js';
import type { PortAnalysis } from '../analysis/port.js';
import type { JsonObject } from '../core/json.js';
import type { RuleRef } from '../vswitch/contracts.js';

/** At most this many lines of a set's human form. */
const LINES = 8;

/** A rule as people name it: its Id, else its policy and index (ACL #3, TierAcl t1/r2). */
export function ruleName(r: RuleRef): string {
  if (r.ruleId) return r.ruleId;
  if (r.rule) return r.rule;
  return `${r.policy ?? 'policy'} #${r.index ?? '?'}`;
}

function outcomeName(o: AclOutcome): string {
  return o.kind === 'rule' ? `${ruleName(o.rule)} (${o.stage})` : `${o.stage} ${o.kind}`;
}

function setJson(s: PacketSet): JsonObject {
  const w = s.witness();
  return {
    count: s.count.toString(),
    text: s.describe(LINES),
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
    redundant: r.redundant,
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

const indent = (lines: readonly string[], pad: string) => lines.map((l) => pad + l);

function renderDirection(d: AclDirectionAnalysis): string[] {
  const out: string[] = [`${d.direction === 'In' ? 'Inbound' : 'Outbound'} (${d.direction}):`];
  if (!d.rules.length && d.defaults.every((x) => x.outcome.kind === 'default-allow'))
    out.push('  no ACL: every packet allowed');
  for (const r of d.rules) {
    const head = `  ${ruleName(r.rule)}  ${r.action} ${r.stage}${r.tier !== undefined ? ` tier ${r.tier}` : ''} priority ${r.priority}`;
    const notes = [r.status, ...(r.redundant && r.status !== 'matches-nothing' ? ['redundant'] : [])];
    out.push(`${head}  [${notes.join(', ')}]`);
    if (r.status === 'decides') out.push(...indent(r.decides.describe(LINES), '      '));
    if (r.status === 'pass') out.push(...indent(r.matches.describe(LINES), '      passes on '));
    if (r.status === 'shadowed')
      out.push(`      its packets are decided by ${r.shadowedBy.map(outcomeName).join(', ')}`);
    if (r.status === 'matches-nothing') out.push('      no packet of this port meets its conditions');
  }
  for (const t of d.ties) {
    out.push(
      `  tie at priority ${t.priority}: ${ruleName(t.allow)} (Allow) and ${ruleName(t.block)} (Block) overlap; ${ruleName(t.winner)} wins on`,
    );
    out.push(...indent(t.overlap.describe(LINES), '      '));
  }
  for (const x of d.defaults) {
    out.push(`  ${x.outcome.stage} ${x.outcome.kind}:`);
    out.push(...indent(x.decides.describe(LINES), '      '));
  }
  return out;
}

/** The analysis as text. */
export function renderAnalysis(a: PortAnalysis): string {
  const head = `ACL analysis of ${a.endpoint.name} (${a.endpoint.ip}, ${a.endpoint.id})`;
  return [head, '', ...renderDirection(a.In), '', ...renderDirection(a.Out)].join('\n') + '\n';
}
