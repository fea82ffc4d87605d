// docs/tutorial.md is built from a real run: its scenario (the yaml block) is saved as
// tutorial.yaml and every console block (`$ npx hnsim …` then the output) is run again with the CLI
// and compared, so the page never drifts from what hnsim prints. To refresh the page after a
// deliberate change, run each command in a folder holding the yaml block as tutorial.yaml.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { root, runHnsim as hnsim } from '../cli/hnsim.js';

const page = readFileSync(join(root, 'docs', 'tutorial.md'), 'utf8');
const blocks = [...page.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, text: m[2]! }));
const yaml = blocks.find((b) => b.lang === 'yaml')!.text;
const commands = blocks
  .filter((b) => b.lang === 'console')
  .map((b) => {
    const nl = b.text.indexOf('\n');
    return { line: b.text.slice(0, nl), output: b.text.slice(nl + 1) };
  });

const dir = mkdtempSync(join(tmpdir(), 'hnsim-tutorial-'));
const file = join(dir, 'tutorial.yaml');
writeFileSync(file, yaml);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('docs/tutorial.md', () => {
  it('has its scenario and the commands the text walks through', () => {
    expect(yaml).toMatch(/^hnsim: scenario\/v1\n/);
    expect(commands.map((c) => c.line.split(' ').slice(0, 4).join(' '))).toEqual([
      '$ npx hnsim run',
      '$ npx hnsim show',
      '$ npx hnsim show',
      '$ npx hnsim show',
      '$ npx hnsim show',
      '$ npx hnsim show',
      '$ npx hnsim trace',
      '$ npx hnsim trace',
      '$ npx hnsim explain',
    ]);
  });

  it.each(commands.map((c) => [c.line, c.output] as const))(
    '%s prints what the page shows',
    async (line, output) => {
      const args = line
        .replace(/^\$ npx hnsim /, '')
        .split(' ')
        .map((a) => (a === 'tutorial.yaml' ? file : a));
      const r = await hnsim(args);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout.split(file).join('tutorial.yaml')).toBe(output);
    },
  );
});
