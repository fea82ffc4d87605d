// The Python example in docs/api.md, run as written against a spawned `hnsim serve` (the current
// sources, through bin/hnsim.js): faults, a held call and a restart window driven from another
// language over JSON-RPC. The docs stay true because this runs them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const python = ['python3', 'python'].find((p) => spawnSync(p, ['--version']).status === 0);
const dir = mkdtempSync(join(tmpdir(), 'hnsim-python-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The ```python block that follows the `<!-- python-example -->` marker. */
function example(): string {
  const doc = readFileSync(join(root, 'docs', 'api.md'), 'utf8');
  const m = /<!-- python-example -->\s*```python\n([\s\S]*?)```/.exec(doc);
  if (!m) throw new Error('docs/api.md has no python example after <!-- python-example -->');
  return m[1]!;
}

describe('docs/api.md Python example', () => {
  it('is a complete, standard-library-only script', () => {
    const code = example();
    expect(code).toMatch(/^import json, os, shlex, subprocess$/m);
    expect(code).not.toMatch(/^(from|import) (?!json|os|shlex|subprocess)/m);
  });

  it.runIf(python)('runs against a spawned hnsim serve and exits 0', () => {
    const file = join(dir, 'example.py');
    writeFileSync(file, example());
    const r = spawnSync(python!, [file], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
      env: {
        ...process.env,
        HNSIM: `${process.execPath} ${join(root, 'bin', 'hnsim.js')}`,
        HNSIM_RUN: 'src',
      },
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe('ok: fault, hang and restart driven from Python');
  });
});
