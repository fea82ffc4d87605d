/**
 * A scenario run as text and as JSON: the narrated walkthrough (src/render/narration.ts), then each
 * checkpoint's results — traces as one table (flow, expected, observed, packet changes), truth
 * tables as cyclonus prints them (expected, observed, and their comparison, with the table's tally
 * "N wrong, E errors, M ignored, K correct" and a legend), and every failure with why and where in
 * the file — then the run's one tally. Each mark means one thing: `.` connects, `X` does not,
 * `!` an error (a trace that could not run; on a result, an expectation that failed because of
 * one), `-` not traced; `✓` holds or as expected, `✗` does not. Rendering is pure: the same report
 * gives the same text.
 */
import type { JsonObject } from '../core/json.js';
import { renderWalkthrough, walkthroughJson } from '../render/narration.js';
import { table } from '../render/table.js';
import type { Cell, Checkpoint, ExpectationResult, RunReport, TruthTable } from './results.js';

export interface ReportOptions {
  /** ANSI colour (bold headings, green passes, red failures): the CLI's TTY-and-no-NO_COLOR rule. */
  readonly color?: boolean;
}

const BOLD = '\x1b[1m';
const GREEN = '\x1b[32m';
const RED = '\x1b[31m';
const YELLOW = '\x1b[33m';
const RESET = '\x1b[0m';

/** A boxed grid: the first row is the header. */
function grid(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const rule = '+' + widths.map((w) => '-'.repeat(w + 2)).join('+') + '+';
  const line = (r: readonly string[]) => '| ' + r.map((c, i) => c.padEnd(widths[i]!)).join(' | ') + ' |';
  return [rule, line(rows[0]!), rule, ...rows.slice(1).map(line), rule];
}

function cells(t: TruthTable, pick: (i: number, j: number) => Cell | string): string[] {
  return grid([[t.header, ...t.to], ...t.from.map((f, i) => [f, ...t.to.map((_, j) => pick(i, j))])]);
}

/** What each mark of a truth table means (its expected and observed grids, then its comparison). */
const TRUTH_TABLE_LEGEND: readonly string[] = [
  'Legend: . connects   X does not connect   ! error: the trace could not run   - not traced (loopback)',
  '        ✓ as expected   ✗ not as expected (comparison)',
];

/** A comparison cell: not traced, an error, as expected or not. */
function compared(want: Cell, got: Cell): string {
  if (want === '-') return '-';
  if (got === '!') return '!';
  return want === got ? '✓' : '✗';
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** One truth table as cyclonus prints it: expected, observed, comparison, tally, legend. */
export function renderTruthTable(t: TruthTable): string[] {
  return [
    'Expected:',
    ...cells(t, (i, j) => t.expected[i]![j]!),
    'Observed:',
    ...cells(t, (i, j) => t.observed[i]![j]!),
    'Comparison:',
    ...cells(t, (i, j) => compared(t.expected[i]![j]!, t.observed[i]![j]!)),
    `${t.wrong} wrong, ${count(t.errors, 'error', 'errors')}, ${t.ignored} ignored, ${t.correct} correct`,
    ...TRUTH_TABLE_LEGEND,
  ];
}

/** A result's mark: `✓` holds, `✗` does not, `!` does not because a trace could not run. */
function resultMark(r: ExpectationResult): '✓' | '✗' | '!' {
  return r.errors ? '!' : r.ok ? '✓' : '✗';
}

function mark(m: '✓' | '✗' | '!', o: ReportOptions): string {
  return o.color ? `${m === '✓' ? GREEN : m === '!' ? YELLOW : RED}${m}${RESET}` : m;
}

function renderCheckpoint(c: Checkpoint, file: string, o: ReportOptions): string {
  const head = `${c.title} (${file}:${c.at.line})`;
  const out: string[] = [o.color ? BOLD + head + RESET : head];
  const traces = c.results.filter((r) => r.trace);
  if (traces.length) {
    out.push(
      ...table(
        ['', 'Flow', 'Expected', 'Observed', 'Packet changes on the way'],
        traces.map((r) => [
          resultMark(r),
          r.label,
          r.trace!.expected + (r.trace!.reply ? ` / reply ${r.trace!.reply.expected}` : ''),
          r.trace!.observed + (r.trace!.reply ? ` / reply ${r.trace!.reply.observed}` : ''),
          r.trace!.changes.join(', ') || '(none)',
        ]),
        o,
      )
        .split('\n')
        // \u2713 ✓, \u2717 ✗: escaped so the bundles stay ASCII (V8 reads a non-ASCII file as two-byte)
        .map(
          (l) => '  ' + (o.color ? l.replace(/^[\u2713\u2717!]/, (m) => mark(m as '✓' | '✗' | '!', o)) : l),
        ),
    );
    for (const r of traces) {
      if (!r.ok) out.push(...problemLines(r, file, o));
      if (r.trace!.text)
        out.push(`  trace of ${r.label}:`, ...r.trace!.text.split('\n').map((l) => `    ${l}`));
    }
  }
  for (const r of c.results) {
    if (r.trace) continue;
    out.push(`  ${mark(resultMark(r), o)} ${r.label}`);
    if (r.table) out.push(...renderTruthTable(r.table).map((l) => `    ${l}`));
    if (!r.ok) out.push(...problemLines(r, file, o));
  }
  return out.join('\n');
}

function problemLines(r: ExpectationResult, file: string, o: ReportOptions): string[] {
  const where = `${file}:${r.at.line}:${r.at.col}${r.at.path ? ` ${r.at.path}` : ''}`;
  const head = `    ${mark(resultMark(r), o)} ${r.trace ? `${r.label}: ` : ''}${where}`;
  return [head, ...r.problems.map((p) => `      ${p}`)];
}

/** The run's one tally: every checkpoint's results, the steps' own included. */
function renderTally(r: RunReport): string {
  const total = r.passed + r.failed;
  if (r.ok) return `All ${total} expectation(s) hold.`;
  const errors = r.errors ? `; ${r.errors} of them could not run a trace (!)` : '';
  return `${r.failed} of ${total} expectation(s) do not hold${errors}.`;
}

/** The whole run as text: the narration, the checkpoints, the tally. */
export function renderReport(r: RunReport, o: ReportOptions = {}): string {
  const parts = [renderWalkthrough(r.walkthrough, o).trimEnd()];
  for (const c of r.checkpoints) parts.push(renderCheckpoint(c, r.file, o));
  const tally = renderTally(r);
  parts.push(o.color ? `${r.ok ? GREEN : RED}${tally}${RESET}` : tally);
  return parts.join('\n\n') + '\n';
}

/** The run as plain JSON (`hnsim run --format json`). */
export function reportJson(r: RunReport, exitCode: number): JsonObject {
  return JSON.parse(
    JSON.stringify({
      scenario: r.scenario,
      file: r.file,
      ...(r.description ? { description: r.description } : {}),
      seed: r.seed,
      ok: r.ok,
      exitCode,
      passed: r.passed,
      failed: r.failed,
      errors: r.errors,
      checkpoints: r.checkpoints,
      narration: walkthroughJson(r.walkthrough),
    }),
  ) as JsonObject;
}
