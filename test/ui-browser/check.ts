/**
 * Comparisons shared by the browser tests: a trace the page shows against `hnsim trace`'s JSON for
 * the same request.
 */
import { expect } from 'vitest';
import type { CliTrace } from './oracle.js';
import type { PageTrace } from './page.js';

/**
 * The page's trace is the command's: the same disposition, one hop per observation in the same
 * order, each naming the observation's node, component and action, and each hop that decided by a
 * rule naming that rule (the ACL's Id, the route, `EXCEPTION`, …).
 */
export function expectSameTrace(shown: PageTrace, cli: CliTrace): void {
  expect(shown.disposition).toBe(cli.disposition);
  expect(shown.hops.map((h) => h.n)).toEqual(cli.observations.map((_, i) => i + 1));
  cli.observations.forEach((o, i) => {
    const hop = shown.hops[i]!;
    expect(hop.text, `hop ${i + 1}`).toContain(o.host);
    expect(hop.text, `hop ${i + 1}`).toContain(o.component);
    expect(hop.text, `hop ${i + 1}`).toContain(o.action);
    if (o.rule?.rule !== undefined) expect(hop.rule ?? '', `hop ${i + 1}'s rule`).toContain(o.rule.rule);
  });
}
