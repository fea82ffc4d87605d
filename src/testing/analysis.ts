/**
 * A matcher on the ACL analysis (src/analysis): `toHaveNoShadowedRules()` over what
 * `analyzePort(host, endpoint)` or `analyzeAcls(compiled)` returns — no rule, in either direction,
 * that matches packets and decides none. The failure names each shadowed rule, what decides its
 * packets instead, and what it was meant to match (hnsimMatchers has it too).
 *
 *   expect(analyzePort(host, 'web')).toHaveNoShadowedRules();
 */
import type { AclAnalysis, AclOutcome } from '../analysis/acl.js';
import { outcomeLabel, ruleName } from '../analysis/json.js';
import type { MatcherResult } from './flows.js';

function isAnalysis(v: unknown): v is AclAnalysis {
  const o = v as Partial<AclAnalysis> | null;
  return typeof o === 'object' && o !== null && Array.isArray(o.In?.rules) && Array.isArray(o.Out?.rules);
}

const outcomeText = (o: AclOutcome) => (o.kind === 'rule' ? '' : 'the ') + outcomeLabel(o);

export const analysisMatchers = {
  toHaveNoShadowedRules(received: unknown): MatcherResult {
    if (!isAnalysis(received))
      return {
        pass: false,
        message: () =>
          `toHaveNoShadowedRules: expected an ACL analysis (analyzePort, analyzeAcls), got ${typeof received}`,
      };
    const shadowed = [...received.In.rules, ...received.Out.rules].filter((r) => r.status === 'shadowed');
    return {
      pass: shadowed.length === 0,
      message: () =>
        shadowed.length === 0
          ? 'expected a shadowed rule, and no rule is shadowed'
          : [
              `expected no shadowed rule; ${shadowed.length} decide(s) nothing:`,
              ...shadowed.map(
                (r) =>
                  `  ${ruleName(r.rule)} (${r.action} ${r.stage} priority ${r.priority}), meant for ${r.matches.describe(3).join('; ')}: decided by ${r.shadowedBy.map(outcomeText).join(', ')}`,
              ),
            ].join('\n'),
    };
  },
};
