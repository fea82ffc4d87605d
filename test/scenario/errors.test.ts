/**
 * A trace that cannot run is an error, never a pass (issue 15: a policy typo made both pods fail
 * to start, and "✓ port 22 blocked everywhere" showed "0 wrong … 4 correct" because an erroring
 * trace counted as blocked). The user's case, then the same file with the typo fixed: the errors
 * show as `!` cells with their text, the expectation fails, the text and the JSON say so, and the
 * run reports one tally.
 */
import { describe, expect, it } from 'vitest';
import {
  loadScenario,
  renderReport,
  renderTruthTable,
  reportJson,
  runScenario,
  type TruthTable,
} from '../../src/scenario/index.js';
import { runHnsim } from '../cli/hnsim.js';

/** Two pods behind ACLs that block port 22 in and allow the rest; `action` is the block rule's Action. */
const file = (action: string) => `hnsim: scenario/v1
name: acl-typo
seed: 1
cluster: {}
hosts:
  - name: win-1
    flannel: { backend: host-gw }
    cni:
      conflist:
        cniVersion: 1.0.0
        name: cbr0
        plugins:
          - type: win-bridge
            apiVersion: 2
            ipam: { type: host-local, subnet: 10.244.1.0/24, rangeStart: 10.244.1.3 }
            policies:
              - name: EndpointPolicy
                value: { Type: ACL, Settings: { Action: ${action}, Direction: In, Protocols: "6", LocalPorts: "22", Priority: 100 } }
              - name: EndpointPolicy
                value: { Type: ACL, Settings: { Action: Allow, Direction: In, Priority: 200 } }
              - name: EndpointPolicy
                value: { Type: ACL, Settings: { Action: Allow, Direction: Out, Priority: 200 } }
pods:
  - { name: a, node: win-1 }
  - { name: b, node: win-1 }
expect:
  reachability:
    - name: port 22 blocked everywhere
      port: 22
      from: [default/a, default/b]
      to: [default/a, default/b]
      default: deny
      ignoreLoopback: true
  traces:
    - { name: a reaches b on port 80, from: default/a, to: default/b, port: 80, expect: Delivered }
`;

const run = (action: string) => runScenario(loadScenario(file(action), 'acl.yaml'));

/** The lines of `text` from the one equal to `first`, `n` of them. */
function linesFrom(text: string, first: string, n: number): string[] {
  const lines = text.split('\n');
  const at = lines.indexOf(first);
  expect(at, `"${first}" in the output`).toBeGreaterThanOrEqual(0);
  return lines.slice(at, at + n);
}

/** The trace's own error, then which of its two pods is not running. */
const NOT_FOUND = (from: string, to: string) =>
  `ERROR_NOT_FOUND (0x80070490): trace source "${from}" is not an endpoint, container, pod, node or address here (pod ${from} is Failed, pod ${to} is Failed)`;

describe('a trace that cannot run', () => {
  it('with the policy typo: both pods fail, every cell is an error, and the table does not hold', async () => {
    const report = await run('Blokc');
    expect(report.ok).toBe(false);
    const [actions, checks] = report.checkpoints;
    expect(actions!.results.map((r) => [r.label, r.ok])).toEqual([
      ['pod default/a runs', false],
      ['pod default/b runs', false],
    ]);
    const table = checks!.results.find((r) => r.kind === 'reachability')!;
    expect(table.ok).toBe(false);
    expect(table.errors).toBe(2);
    expect(table.table).toMatchObject({ correct: 0, wrong: 0, errors: 2, ignored: 2 });
    expect(table.table!.observed).toEqual([
      ['-', '!'],
      ['!', '-'],
    ]);
    expect(table.table!.dispositions[1]![0]).toBe(`error: ${NOT_FOUND('default/b', 'default/a')}`);
    expect(table.problems).toEqual([
      `default/a -> default/b: the trace could not run: ${NOT_FOUND('default/a', 'default/b')}`,
      `default/b -> default/a: the trace could not run: ${NOT_FOUND('default/b', 'default/a')}`,
    ]);
    const trace = checks!.results.find((r) => r.kind === 'trace')!;
    expect(trace).toMatchObject({
      ok: false,
      errors: 1,
      problems: [`the trace could not run: ${NOT_FOUND('default/a', 'default/b')}`],
    });
    expect(trace.trace).toMatchObject({ observed: 'error', detail: NOT_FOUND('default/a', 'default/b') });
    // one tally: 2 pods + a table + a trace, none holding, 2 of them errors
    expect([report.passed, report.failed, report.errors]).toEqual([0, 4, 2]);

    const text = renderReport(report);
    expect(linesFrom(text, '  ! port 22 blocked everywhere', 1)).toEqual(['  ! port 22 blocked everywhere']);
    expect(linesFrom(text, '    Observed:', 7)).toEqual([
      '    Observed:',
      '    +-----------+-----------+-----------+',
      '    | TCP/22    | default/a | default/b |',
      '    +-----------+-----------+-----------+',
      '    | default/a | -         | !         |',
      '    | default/b | !         | -         |',
      '    +-----------+-----------+-----------+',
    ]);
    expect(linesFrom(text, '    Comparison:', 10)).toEqual([
      '    Comparison:',
      '    +-----------+-----------+-----------+',
      '    | TCP/22    | default/a | default/b |',
      '    +-----------+-----------+-----------+',
      '    | default/a | -         | !         |',
      '    | default/b | !         | -         |',
      '    +-----------+-----------+-----------+',
      '    0 wrong, 2 errors, 2 ignored, 0 correct',
      '    Legend: . connects   X does not connect   ! error: the trace could not run   - not traced (loopback)',
      '            ✓ as expected   ✗ not as expected (comparison)',
    ]);
    expect(text).toMatch(/ {2}! {2}a reaches b on port 80 {2}Delivered {2}error {5}\(none\)\n/);
    expect(text).toContain(`      the trace could not run: ${NOT_FOUND('default/a', 'default/b')}\n`);
    // the narration does not count on its own: the one tally is the last line
    expect(linesFrom(text, '5. Expectations', 2)).toEqual([
      '5. Expectations',
      '  Checked here: 1 trace, 1 truth table (results below).',
    ]);
    expect(text.match(/expectation\(s\)/g)).toHaveLength(1);
    expect(text.endsWith('\n4 of 4 expectation(s) do not hold; 2 of them could not run a trace (!).\n')).toBe(
      true,
    );

    const json = reportJson(report, 1);
    expect(json).toMatchObject({ ok: false, passed: 0, failed: 4, errors: 2 });
    const doc = JSON.stringify(json);
    expect(doc).toContain(JSON.stringify(`error: ${NOT_FOUND('default/a', 'default/b')}`));
    expect(doc).toContain('"observed":[["-","!"],["!","-"]]');
  });

  it('with the typo fixed: the pods run and the same table holds for the right reason', async () => {
    const report = await run('Block');
    expect(report.ok).toBe(true);
    expect([report.passed, report.failed, report.errors]).toEqual([2, 0, 0]);
    const table = report.checkpoints[0]!.results.find((r) => r.kind === 'reachability')!;
    expect(table.errors).toBeUndefined();
    expect(table.table!.dispositions).toEqual([
      ['-', 'DeniedIn'],
      ['DeniedIn', '-'],
    ]);
    const text = renderReport(report);
    expect(linesFrom(text, '    Comparison:', 8).slice(4)).toEqual([
      '    | default/a | -         | ✓         |',
      '    | default/b | ✓         | -         |',
      '    +-----------+-----------+-----------+',
      '    0 wrong, 0 errors, 2 ignored, 2 correct',
    ]);
    expect(text.endsWith('\nAll 2 expectation(s) hold.\n')).toBe(true);
  });

  it('a truth table shows each mark for one thing, with its legend', () => {
    const t: TruthTable = {
      label: 't',
      header: 'TCP/80',
      from: ['p', 'q'],
      to: ['p', 'q', 'r'],
      expected: [
        ['-', '.', 'X'],
        ['.', 'X', '.'],
      ],
      observed: [
        ['-', 'X', 'X'],
        ['!', '.', '.'],
      ],
      dispositions: [
        ['-', 'DeniedIn', 'NoRoute'],
        ['error: boom', 'Delivered', 'Delivered'],
      ],
      correct: 2,
      wrong: 2,
      errors: 1,
      ignored: 1,
    };
    expect(renderTruthTable(t)).toEqual([
      'Expected:',
      '+--------+---+---+---+',
      '| TCP/80 | p | q | r |',
      '+--------+---+---+---+',
      '| p      | - | . | X |',
      '| q      | . | X | . |',
      '+--------+---+---+---+',
      'Observed:',
      '+--------+---+---+---+',
      '| TCP/80 | p | q | r |',
      '+--------+---+---+---+',
      '| p      | - | X | X |',
      '| q      | ! | . | . |',
      '+--------+---+---+---+',
      'Comparison:',
      '+--------+---+---+---+',
      '| TCP/80 | p | q | r |',
      '+--------+---+---+---+',
      '| p      | - | ✗ | ✓ |',
      '| q      | ! | ✗ | ✓ |',
      '+--------+---+---+---+',
      '2 wrong, 1 error, 1 ignored, 2 correct',
      'Legend: . connects   X does not connect   ! error: the trace could not run   - not traced (loopback)',
      '        ✓ as expected   ✗ not as expected (comparison)',
    ]);
  });

  it('hnsim run exits 1, and --format json carries the error', async () => {
    const r = await runHnsim(['run', '-', '--format', 'json'], { input: file('Blokc') });
    expect(r.status).toBe(1);
    const doc = JSON.parse(r.stdout) as {
      ok: boolean;
      exitCode: number;
      errors: number;
      checkpoints: { results: { kind: string; ok: boolean; errors?: number; problems: string[] }[] }[];
    };
    expect(doc).toMatchObject({ ok: false, exitCode: 1, errors: 2 });
    const table = doc.checkpoints[1]!.results.find((x) => x.kind === 'reachability')!;
    expect(table).toMatchObject({ ok: false, errors: 2 });
    expect(table.problems[0]).toBe(
      `default/a -> default/b: the trace could not run: ${NOT_FOUND('default/a', 'default/b')}`,
    );
  });
});
