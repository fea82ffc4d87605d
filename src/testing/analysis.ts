/**
 * Matchers on the analysis (src/analysis), every packet at once (hnsimMatchers has them too):
 *
 * - `toHaveNoShadowedRules()` over what `analyzePort(host, endpoint)` or `analyzeAcls(compiled)`
 *   returns — no rule, in either direction, that matches packets and decides none. The failure
 *   names each shadowed rule, what decides its packets instead, and what it was meant to match.
 * - `toReachExactly(spec)` over a reachability answer (`net.analyze({from, to})`): the packets
 *   delivered whatever a load balancer picks are exactly the flow spec ("TCP port 80, 443; UDP
 *   port 53", "nothing"); the failure says what is also delivered and what is not (with what it
 *   gets instead), each with a trace that replays a packet of it.
 * - `toKeepReachability(before, pairs?)` over a network (host or cluster): every packet of the
 *   pairs gets what it got before — `before` is the answers taken earlier (`analyzeReachAll`, one
 *   context: their pairs), or another network with `{from, to}` lists; the failure is the
 *   differential (`hnsim analyze --diff` prints the same).
 *
 *   expect(analyzePort(host, 'web')).toHaveNoShadowedRules();
 *   expect(cluster.analyze({ from: 'default/client', to: 'svc:default/web' })).toReachExactly('TCP port 80');
 *   expect(cluster).toKeepReachability(before);
 */
import type { AclAnalysis, AclOutcome } from '../analysis/acl.js';
import type { Network } from '../analysis/cuts.js';
import { outcomeLabel, ruleName } from '../analysis/json.js';
import type { Reachability } from '../analysis/reach.js';
import { checkReachExactly, diffNamed, diffSince } from '../analysis/reach-check.js';
import { renderReachDiff } from '../render/analysis.js';
import type { MatcherResult } from './flows.js';

function isAnalysis(v: unknown): v is AclAnalysis {
  const o = v as Partial<AclAnalysis> | null;
  return typeof o === 'object' && o !== null && Array.isArray(o.In?.rules) && Array.isArray(o.Out?.rules);
}

const outcomeText = (o: AclOutcome) => (o.kind === 'rule' ? '' : 'the ') + outcomeLabel(o);

function isReachability(v: unknown): v is Reachability {
  const o = v as Partial<Reachability> | null;
  return typeof o === 'object' && o !== null && Array.isArray(o.outcomes) && typeof o.source === 'string';
}

function isNetwork(v: unknown): v is Network {
  return typeof v === 'object' && v !== null && typeof (v as { probe?: unknown }).probe === 'function';
}

/** Which pairs `toKeepReachability` compares when `before` is another network. */
export interface ReachPairs {
  readonly from: readonly string[];
  readonly to: readonly string[];
}

/** Refuse what a matcher cannot be used on (never a pass, even under `.not`). */
function misuse(matcher: string, what: string): never {
  throw new TypeError(`${matcher}: ${what}`);
}

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

  toReachExactly(received: unknown, spec: unknown): MatcherResult {
    if (!isReachability(received))
      misuse(
        'toReachExactly',
        `expected a reachability answer (net.analyze({ from, to })), got ${typeof received}`,
      );
    if (typeof spec !== 'string')
      misuse('toReachExactly', 'give the packets as a flow spec, e.g. "TCP port 80"');
    const c = checkReachExactly(received, spec);
    const pair = `${received.from} → ${received.to}`;
    return {
      pass: c.ok,
      message: () =>
        c.ok
          ? `expected ${pair} not to deliver exactly ${spec}, and it does: ${c.expected.join('; ')}`
          : [
              `expected ${pair} to deliver exactly ${spec} (whatever a load balancer picks):`,
              ...c.problems.map((l) => `  ${l}`),
            ].join('\n'),
    };
  },

  toKeepReachability(received: unknown, before: unknown, pairs?: ReachPairs): MatcherResult {
    if (!isNetwork(received))
      misuse('toKeepReachability', `expected a host or a cluster, got ${typeof received}`);
    let diffs;
    if (isNetwork(before)) {
      if (!pairs)
        misuse(
          'toKeepReachability',
          'give the pairs to compare with another network: { from: [...], to: [...] }',
        );
      diffs = diffNamed({ net: before }, { net: received }, pairs.from, pairs.to);
    } else {
      const list = isReachability(before) ? [before] : before;
      if (!Array.isArray(list) || !list.every(isReachability))
        misuse('toKeepReachability', 'before is a host or a cluster, or reachability answers taken earlier');
      if (pairs) misuse('toKeepReachability', 'earlier answers name their pairs: pairs go with a network');
      diffs = diffSince(list, received);
    }
    const changed = diffs.filter((d) => !d.unchanged).length;
    const [head, ...rest] = renderReachDiff(diffs).trimEnd().split('\n');
    return {
      pass: changed === 0,
      message: () =>
        changed === 0
          ? `expected reachability to change, and the ${diffs.length} pair(s) are unchanged`
          : [`expected reachability unchanged; ${head}:`, ...rest.map((l) => `  ${l}`)].join('\n'),
    };
  },
};
