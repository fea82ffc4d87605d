/**
 * Reachability truth tables, as cyclonus checks them: every source of `from` to every target of
 * `to` is traced; a cell expects `.` (connects) or `X` (does not) by `default`, `allow` and
 * `deny`, and observes `.` when the trace is Delivered, `X` for any other disposition, and `!`
 * when the trace could not run (a pod that never started, …): an error is never a pass, whatever
 * the cell expects. The table holds when every cell is as expected.
 */
import { formatPath, parseCell } from './load.js';
import type { Cell, ExpectationResult } from './results.js';
import type { ReachabilitySpec } from './types.js';
import type { JsonPath } from './validate.js';
import type { RunWorld } from './world.js';

export function checkReachability(w: RunWorld, r: ReachabilitySpec, path: JsonPath): ExpectationResult {
  const allow = new Set((r.allow ?? []).map((c) => parseCell(c)!.join('\u0000')));
  const deny = new Set((r.deny ?? []).map((c) => parseCell(c)!.join('\u0000')));
  const expected: Cell[][] = [];
  const observed: Cell[][] = [];
  const dispositions: string[][] = [];
  const problems: string[] = [];
  let correct = 0;
  let wrong = 0;
  let errors = 0;
  let ignored = 0;
  const total = r.from.length * r.to.length;
  const label = r.name ?? `reachability ${formatPath(path)}`;
  let done = 0;
  for (const f of r.from) {
    const e: Cell[] = [];
    const o: Cell[] = [];
    const d: string[] = [];
    for (const t of r.to) {
      done++;
      if (r.ignoreLoopback && f === t) {
        e.push('-');
        o.push('-');
        d.push('-');
        ignored++;
        continue;
      }
      const key = `${f}\u0000${t}`;
      const want: Cell = allow.has(key) ? '.' : deny.has(key) ? 'X' : r.default === 'allow' ? '.' : 'X';
      let disp: string;
      let got: Cell;
      try {
        disp = w.trace(w.request(f, t, r.protocol, r.port)).disposition;
        got = disp === 'Delivered' ? '.' : 'X';
      } catch (err) {
        const why = w.traceError(err, f, t);
        disp = `error: ${why}`;
        got = '!';
        errors++;
        problems.push(`${f} -> ${t}: the trace could not run: ${why}`);
      }
      e.push(want);
      o.push(got);
      d.push(disp);
      if (want === got) correct++;
      else if (got !== '!') {
        wrong++;
        problems.push(
          `${f} -> ${t}: expected ${want === '.' ? 'to connect' : 'not to connect'}, observed ${disp}`,
        );
      }
      if (w.options.onProgress && (done % 25 === 0 || done === total))
        w.options.onProgress(done, total, label);
    }
    expected.push(e);
    observed.push(o);
    dispositions.push(d);
  }
  const header = `${r.protocol ?? 'TCP'}${r.protocol === 'ICMP' ? '' : `/${r.port ?? 80}`}`;
  return {
    kind: 'reachability',
    label,
    ok: wrong === 0 && errors === 0,
    at: w.where(path),
    problems,
    ...(errors ? { errors } : {}),
    table: {
      label,
      header,
      from: r.from,
      to: r.to,
      expected,
      observed,
      dispositions,
      correct,
      wrong,
      errors,
      ignored,
    },
  };
}
