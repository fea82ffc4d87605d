/**
 * `npm run test:soak` (issue 15): the long runs of the property, fuzz and model tests. Which files it
 * runs, and that `runs()` gives the quick count here and the soak count there.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import soak from '../../vitest.soak.config.js';
import { root } from '../cli/hnsim.js';
import { runs, SOAK } from '../runs.js';

const include = (soak.test?.include ?? []) as string[];
const testFiles = readdirSync(join(root, 'test'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => `test/${f.split('\\').join('/')}`);

describe('npm run test:soak', () => {
  it('runs every property file and every file whose counts scale, none of the Wine suite', () => {
    const scaled = testFiles.filter((f) =>
      /import \{[^}]*\bruns\b[^}]*\} from '(\.\.\/)+runs\.js'/.test(readFileSync(join(root, f), 'utf8')),
    );
    // the fuzzers and model tests named by issue 15 are among them
    for (const f of ['test/hns/fuzz.test.ts', 'test/api/hcs-fuzz.test.ts', 'test/hns/model.prop.test.ts'])
      expect(scaled).toContain(f);
    const want = new Set([...scaled, ...testFiles.filter((f) => f.endsWith('.prop.test.ts'))]);
    expect([...include].sort()).toEqual([...want].filter((f) => !f.startsWith('test/wine/')).sort());
    expect(soak.test?.env).toEqual({ HNSIM_SOAK: '1' });
  });

  it('runs(quick, soak): the quick count under npm test, the soak count (ten times unless named) under the soak', () => {
    if (SOAK) {
      expect([runs(40), runs(40, 1_000)]).toEqual([400, 1_000]);
    } else {
      expect([runs(40), runs(40, 1_000)]).toEqual([40, 40]);
    }
  });
});
