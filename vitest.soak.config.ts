// `npm run test:soak`: the long runs of the property, fuzz and model tests (issue 15). The files are
// the ones whose run counts scale with the soak — those importing test/runs.ts — and every
// `*.prop.test.ts` (a property naming no count gets 1,000 runs here: vitest.setup.ts). The same
// tests run in `npm test` with their quick counts; this suite runs them again, longer.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

const root = fileURLToPath(new URL('.', import.meta.url));
const testDir = join(root, 'test');

function soakFiles(): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(testDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.test.ts')) continue;
    const path = join(entry.parentPath, entry.name);
    const rel = relative(root, path).split('\\').join('/');
    if (rel.startsWith('test/wine/')) continue;
    if (entry.name.endsWith('.prop.test.ts') || /from '(\.\.\/)+runs\.js'/.test(readFileSync(path, 'utf8')))
      files.push(rel);
  }
  return files.sort();
}

// the base config's options with this suite's files (mergeConfig would add them to its `include`)
export default defineConfig({
  test: {
    ...base.test,
    include: soakFiles(),
    env: { HNSIM_SOAK: '1' },
    testTimeout: 1_800_000,
    hookTimeout: 600_000,
  },
});
