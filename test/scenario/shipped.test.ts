/**
 * Every scenario shipped in scenarios/ loads, runs and meets all its expectations — the check CI
 * makes of them (issue 9: "each runnable and each checked in CI"). Run in-process; the CLI's own
 * behaviour is in cli.test.ts.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, runScenario } from '../../src/scenario/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

function scenarioFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? scenarioFiles(join(dir, e.name))
      : e.name.endsWith('.yaml')
        ? [relative(root, join(dir, e.name))]
        : [],
  );
}

const files = scenarioFiles(join(root, 'scenarios')).sort();

describe('shipped scenarios', () => {
  it('there are the scenarios issue 9 asks for', () => {
    for (const name of [
      'quick-start',
      'overlay-vxlan',
      'mixed-linux-windows',
      'nat-port-mappings',
      'hyperv-pods',
      'dsr',
      'outboundnat-exceptions',
      'hns-restart',
      'reboot',
    ])
      expect(files).toContain(`scenarios/${name}.yaml`);
    expect(files.filter((f) => f.startsWith('scenarios/failures/')).length).toBeGreaterThanOrEqual(5);
  });

  it.each(files)('%s runs green', async (file) => {
    const report = await runScenario(loadScenarioFile(join(root, file)));
    const failures = report.checkpoints.flatMap((c) =>
      c.results.filter((r) => !r.ok).map((r) => `${r.label}: ${r.problems.join('; ')}`),
    );
    expect(failures).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.passed).toBeGreaterThan(0);
  });
});
