/**
 * A port's ACL analysis (src/analysis) as text (`hnsim analyze`): one section per direction — each
 * rule with its verdict set in the compact human form, what shadows it, whether it is redundant —
 * then the ties and what the defaults decide. Its JSON form is src/analysis/json.ts.
 */
import type { AclDirectionAnalysis, AclOutcome } from '../analysis/acl.js';
import { ruleName } from '../analysis/json.js';
import type { PortAnalysis } from '../analysis/port.js';

export { analysisJson, ruleName } from '../analysis/json.js';

/** At most this many lines of a set's human form. */
const LINES = 8;

function outcomeName(o: AclOutcome): string {
  return o.kind === 'rule' ? `${ruleName(o.rule)} (${o.stage})` : `${o.stage} ${o.kind}`;
}

const indent = (lines: readonly string[], pad: string) => lines.map((l) => pad + l);

function renderDirection(d: AclDirectionAnalysis): string[] {
  const out: string[] = [`${d.direction === 'In' ? 'Inbound' : 'Outbound'} (${d.direction}):`];
  if (!d.rules.length && d.defaults.every((x) => x.outcome.kind === 'default-allow'))
    out.push('  no ACL: every packet allowed');
  for (const r of d.rules) {
    const head = `  ${ruleName(r.rule)}  ${r.action} ${r.stage}${r.tier !== undefined ? ` tier ${r.tier}` : ''} priority ${r.priority}`;
    const notes = [r.status, ...(r.redundant ? ['redundant'] : [])];
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
