/**
 * docs/scenarios.md stays true: its example is loaded and run, and prints the output the page
 * shows (every line of the excerpt, in order); every key of the schema is in its reference.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenario, renderReport, runScenario, SCENARIO_SCHEMA } from '../../src/scenario/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const page = readFileSync(join(root, 'docs', 'scenarios.md'), 'utf8');

/** The first fenced block of `lang` after `heading`. */
function block(heading: string, lang: string): string {
  const from = page.indexOf(heading);
  expect(from).toBeGreaterThanOrEqual(0);
  const m = new RegExp('```' + lang + '\\n([\\s\\S]*?)\\n```').exec(page.slice(from));
  expect(m).not.toBeNull();
  return m![1]!;
}

/** Every property name the schema defines, at any depth. */
function schemaKeys(s: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(s)) s.forEach((x) => schemaKeys(x, out));
  else if (s && typeof s === 'object') {
    const o = s as Record<string, unknown>;
    if (o['properties'] && typeof o['properties'] === 'object')
      for (const k of Object.keys(o['properties'] as object)) out.add(k);
    for (const v of Object.values(o)) schemaKeys(v, out);
  }
  return out;
}

describe('docs/scenarios.md', () => {
  it('its example runs green and prints the excerpt the page shows', async () => {
    const yaml = block('## An example', 'yaml');
    const report = await runScenario(loadScenario(yaml + '\n', 'example.yaml'));
    expect(report.ok).toBe(true);
    const out = renderReport(report).split('\n');
    const excerpt = block('## An example', 'text')
      .split('\n')
      .filter((l) => l.trim() !== '…');
    let at = 0;
    for (const line of excerpt) {
      const found = out.indexOf(line, at);
      expect(found, `"${line}" (after output line ${at})`).toBeGreaterThanOrEqual(0);
      at = found + 1;
    }
  });

  it('documents every key of the schema (each appears in the page’s inline code)', () => {
    const code = [...page.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
    const missing = [...schemaKeys(SCENARIO_SCHEMA)].filter(
      (k) => !code.some((c) => new RegExp(`(^|[^A-Za-z0-9])${k}([^A-Za-z0-9]|$)`).test(c)),
    );
    expect(missing).toEqual([]);
  });
});
