/**
 * A port's ACL analysis (src/analysis) as text (`hnsim analyze`): one section per direction — each
 * rule with its verdict set in the compact human form, what shadows it, whether it is redundant —
 * then the ties and what the defaults decide. Its JSON form is src/analysis/json.ts.
 */
import type { AclDirectionAnalysis, AclOutcome } from '../analysis/acl.js';
import type { AclChange, AclDiff } from '../analysis/diff.js';
import {
  outcomeLabel,
  ruleName,
  SET_LINES as LINES,
  replayTarget,
  witnessTrace,
  type PortSummary,
} from '../analysis/json.js';
import type { PortAnalysis } from '../analysis/port.js';
import type { Reachability } from '../analysis/reach.js';
import type { ReachDiff } from '../analysis/reach-diff.js';

export {
  analysisJson,
  diffJson,
  portSummary,
  reachDiffJson,
  reachJson,
  ruleName,
  type PortSummary,
} from '../analysis/json.js';

/** A rule with its stage ("block-web (VFP)"), a default as "VFP default-deny". */
const outcomeName = (o: AclOutcome): string => outcomeLabel(o, true);

const indent = (lines: readonly string[], pad: string) => lines.map((l) => pad + l);

function renderDirection(d: AclDirectionAnalysis): string[] {
  const out: string[] = [`${d.direction === 'In' ? 'Inbound' : 'Outbound'} (${d.direction}):`];
  // (no rule in this direction and nothing denied: one line says it all)
  const open = !d.rules.length && d.denied.empty;
  if (open) out.push('  no ACL rule: every packet allowed');
  for (const r of d.rules) {
    const head = `  ${ruleName(r.rule)}  ${r.action} ${r.stage}${r.tier !== undefined ? ` tier ${r.tier}` : ''} priority ${r.priority}`;
    const notes = [r.status, ...(r.redundant ? ['redundant'] : [])];
    out.push(`${head}  [${notes.join(', ')}]`);
    if (r.status === 'decides') out.push(...indent(r.decides.describe(LINES), '      '));
    if (r.status === 'pass') out.push(...indent(r.passes!.describe(LINES), '      passes on '));
    if (r.status === 'permits')
      out.push(
        '      the verdict names the Switch rule that allowed; without it WFP would deny',
        ...indent(r.removalChanges.describe(LINES), '      '),
      );
    if (r.status === 'shadowed')
      out.push(`      its packets are decided by ${r.shadowedBy.map(outcomeName).join(', ')}`);
    if (r.status === 'matches-nothing') out.push('      no packet of this port meets its conditions');
    if (r.liftsDefaultDeny)
      out.push("      the port's only ACL: without it both directions allow everything");
  }
  for (const t of d.ties) {
    out.push(
      `  tie at priority ${t.priority}: ${ruleName(t.allow)} (Allow) and ${ruleName(t.block)} (Block) overlap; ${ruleName(t.winner)} wins on`,
    );
    out.push(...indent(t.overlap.describe(LINES), '      '));
  }
  for (const x of open ? [] : d.defaults) {
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

/** A before/after comparison as text: per direction what is newly allowed and newly denied, and by what. */
export function renderDiff(d: AclDiff, title: string): string {
  const out = [title, ''];
  if (d.unchanged) return [...out, 'No packet changes verdict, in either direction.'].join('\n') + '\n';
  const change = (what: string, c: AclChange) => {
    if (c.packets.empty) return;
    out.push(`  ${what}:`);
    for (const x of c.by) {
      out.push(`    now by ${outcomeName(x.outcome)}:`);
      out.push(...indent(x.packets.describe(LINES), '      '));
    }
  };
  for (const x of [d.In, d.Out]) {
    out.push(`${x.direction === 'In' ? 'Inbound' : 'Outbound'} (${x.direction}):`);
    if (x.newlyAllowed.packets.empty && x.newlyDenied.packets.empty) out.push('  unchanged');
    change('newly allowed', x.newlyAllowed);
    change('newly denied', x.newlyDenied);
    out.push('');
  }
  return out.join('\n');
}

/** Per node, a line per port: its rules and findings. */
export function renderPortSummaries(byNode: readonly (readonly [string, readonly PortSummary[]])[]): string {
  const out: string[] = [];
  for (const [node, ports] of byNode) {
    out.push(`== ${node} ==`);
    if (!ports.length) out.push('  no endpoint port');
    for (const p of ports) {
      const findings = [
        ...(p.shadowed.length
          ? [`shadowed: ${p.shadowed.map((x) => `${x.rule} (by ${x.by.join(', ')})`).join('; ')}`]
          : []),
        ...(p.redundant.length ? [`redundant: ${p.redundant.join(', ')}`] : []),
        ...(p.ties ? [`ties: ${p.ties}`] : []),
      ];
      const what =
        p.rules === 0
          ? 'no ACL'
          : `${p.rules} rule${p.rules === 1 ? '' : 's'}${findings.length ? `; ${findings.join('; ')}` : ', nothing to say'}`;
      out.push(`  ${p.endpoint} (${p.ip}): ${what}`);
    }
    out.push('');
  }
  return out.join('\n');
}

/** A witness as the trace command that replays it. */
function traceLine(
  from: string,
  w: ReturnType<Reachability['outcomes'][number]['set']['witness']>,
  to?: string,
): string {
  return w ? `e.g. ${witnessTrace(from, w, to)}` : '';
}

/** Reachability as text: per outcome its packets (human form) and a witness a trace replays. */
export function renderReach(r: Reachability): string {
  const out: string[] = [`${r.from} (${r.source}) → ${r.to} (${r.destination || 'unresolved'})`];
  out.push(`  ${r.classes} classes, ${r.walks} walks${r.exact ? '' : '; NOT exact (see the notes)'}`);
  for (const o of r.outcomes) {
    const head =
      o.dispositions.length > 1
        ? `${o.dispositions.join(' or ')} (the load balancer's choice decides)`
        : o.dispositions[0]!;
    out.push(`${head}: ${o.set.count} packets`);
    out.push(...indent(o.set.describe(LINES), '    '));
    const w = traceLine(r.from, o.set.witness(), replayTarget(r));
    if (w) out.push(`    ${w}`);
  }
  for (const br of r.branches) {
    const via = br.choices
      .map(
        (c) =>
          `${c.frontend} (load balancer ${c.lb} on ${c.host}) → backend ${c.backend + 1} of ${c.of}, ${c.to}`,
      )
      .join(', ');
    out.push(`branch: ${via}`);
    for (const [d, s] of Object.entries(br.dispositions)) {
      if (!s) continue;
      out.push(`  ${d}:`, ...indent(s.describe(LINES), '    '));
    }
  }
  for (const n of r.notes) out.push(`note: ${n}`);
  return out.join('\n') + '\n';
}

/** A reachability differential as text: per change the packets and their before → after. */
export function renderReachDiff(diffs: readonly ReachDiff[]): string {
  const out: string[] = [];
  const changed = diffs.filter((d) => !d.unchanged);
  out.push(`${diffs.length} pair${diffs.length === 1 ? '' : 's'} compared, ${changed.length} changed`);
  for (const d of changed) {
    out.push(
      `${d.from} → ${d.to}${d.missing ? ` (exists ${d.missing === 'before' ? 'after' : 'before'} only)` : ''}`,
    );
    for (const c of d.changes) {
      out.push(`  ${c.before.join(' or ')} → ${c.after.join(' or ')}: ${c.set.count} packets`);
      out.push(...indent(c.set.describe(LINES), '      '));
      const w = traceLine(d.from, c.set.witness());
      if (w) out.push(`      ${w}`);
    }
    for (const n of d.notes) out.push(`  note: ${n}`);
  }
  return out.join('\n') + '\n';
}
