/**
 * docs/testing.md's examples, run as written: each ```ts block marked `<!-- example: name -->` is
 * taken from the guide, its `hnsim` / `hnsim/testing` imports pointed at the sources, and run as a
 * module (top-level await included) inside a test. If the guide's code stops working, or a block
 * disappears, this fails. Its list of exports names every value `hnsim/testing` exports, and every
 * type its index lists.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import * as kit from '../../src/testing/index.js';
import { hnsimMatchers } from '../../src/testing/index.js';

expect.extend(hnsimMatchers);

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const guide = readFileSync(join(root, 'docs', 'testing.md'), 'utf8');
const tmp = join(root, 'node_modules', '.cache', `hnsim-guide-${process.pid}`);

/** The marked examples, by name. */
function examples(): Map<string, string> {
  const out = new Map<string, string>();
  const re = /<!-- example: ([\w-]+) -->\n```ts\n([\s\S]*?)\n```/g;
  for (const m of guide.matchAll(re)) out.set(m[1]!, m[2]!);
  return out;
}

/** The block as a module: imports of the package pointed at the sources, `expect` from vitest. */
function moduleOf(code: string): string {
  const src = (p: string) => JSON.stringify(join(root, 'src', p));
  let text = code
    .replace(/from 'hnsim\/testing'/g, `from ${src('testing/index.ts')}`)
    .replace(/from 'hnsim'/g, `from ${src('index.ts')}`);
  if (!/import \{[^}]*\bexpect\b[^}]*\} from 'vitest'/.test(text))
    text = `import { expect } from 'vitest';\n${text}`;
  return `${text}\nexport {};\n`;
}

const EXPECTED = [
  'rejected',
  'acl',
  'cluster',
  'matchers',
  'analysis',
  'reachability',
  'fixtures',
  'commands',
  'weights',
  'race',
  'schedule',
];

describe('docs/testing.md', () => {
  const blocks = examples();
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('has every example this test runs', () => {
    expect([...blocks.keys()]).toEqual(EXPECTED);
  });

  for (const name of EXPECTED) {
    it(`example "${name}" runs`, async () => {
      const code = blocks.get(name);
      expect(code, name).toBeDefined();
      mkdirSync(tmp, { recursive: true });
      const file = join(tmp, `${name}.ts`);
      writeFileSync(file, moduleOf(code!));
      await import(pathToFileURL(file).href);
    });
  }

  it('its list of exports names every export of hnsim/testing', () => {
    const from = guide.indexOf('## Everything `hnsim/testing` exports');
    expect(from).toBeGreaterThanOrEqual(0);
    const list = guide.slice(from, guide.indexOf('\n## ', from + 1));
    const named = new Set([...list.matchAll(/`([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!));
    // values at run time; types from the index's own list
    const index = readFileSync(join(root, 'src', 'testing', 'index.ts'), 'utf8');
    const types = [...index.matchAll(/\btype ([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!);
    expect(types.length).toBeGreaterThan(40);
    const missing = [...Object.keys(kit), ...types].filter((n) => !named.has(n));
    expect(missing).toEqual([]);
  });
});
