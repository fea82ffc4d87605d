/**
 * `npm test` is bin/test.js: the type check, lint and format check beside vitest, all four at once.
 * Run here in a folder whose four tools are stand-ins that exit as told, so the runner's own
 * logic is what is checked: every step runs, a failing one fails the whole with its exit code
 * (after all have ended) and its output is shown, and vitest gets the arguments.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { root } from '../cli/hnsim.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The tools: package name → its script, as bin/test.js runs them. */
const TOOLS: [string, string][] = [
  ['typescript', 'bin/tsc'],
  ['eslint', 'bin/eslint.js'],
  ['prettier', 'bin/prettier.cjs'],
  ['vitest', 'vitest.mjs'],
];

/** A checkout with bin/test.js and stand-in tools; `codes` says how each exits (0 unless named). */
function checkout(codes: Record<string, number>): string {
  const dir = mkdtempSync(join(tmpdir(), 'hnsim-npm-test-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'bin'));
  copyFileSync(join(root, 'bin', 'test.js'), join(dir, 'bin', 'test.js'));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  const log = JSON.stringify(join(dir, 'ran.txt'));
  for (const [pkg, script] of TOOLS) {
    const folder = join(dir, 'node_modules', pkg);
    mkdirSync(dirname(join(folder, script)), { recursive: true });
    // CommonJS scripts (bin/tsc has no extension); vitest's .mjs is an ES module
    writeFileSync(join(folder, 'package.json'), `{"name":"${pkg}","type":"commonjs"}\n`);
    const fs = script.endsWith('.mjs') ? "(await import('node:fs'))" : "require('node:fs')";
    // each records that it ran, with its arguments, and says something on both streams
    writeFileSync(
      join(folder, script),
      `${fs}.appendFileSync(${log}, ${JSON.stringify(pkg)} + ' ' + process.argv.slice(2).join(' ') + '\\n');\n` +
        `process.stdout.write('${pkg} says out\\n'); process.stderr.write('${pkg} says err\\n');\n` +
        `process.exitCode = ${codes[pkg] ?? 0};\n`,
    );
  }
  return dir;
}

function npmTest(dir: string, args: string[] = []) {
  const r = spawnSync(process.execPath, [join(dir, 'bin', 'test.js'), ...args], {
    cwd: dir,
    encoding: 'utf8',
  });
  const ran = readFileSync(join(dir, 'ran.txt'), 'utf8').trim().split('\n').sort();
  return { status: r.status, stdout: r.stdout, ran };
}

describe('npm test (bin/test.js)', () => {
  it('runs the three checks and vitest (with the arguments), and passes when all four pass', () => {
    const r = npmTest(checkout({}), ['test/hns']);
    expect(r.status).toBe(0);
    expect(r.ran.map((l) => l.split(' ')[0])).toEqual(['eslint', 'prettier', 'typescript', 'vitest']);
    expect(r.ran).toContain('vitest run test/hns');
    expect(r.ran.find((l) => l.startsWith('typescript'))).toMatch(/^typescript -p tsconfig\.json --noEmit /);
    expect(r.ran.find((l) => l.startsWith('prettier'))).toMatch(/^prettier --check \. --cache /);
    expect(r.stdout).toContain('vitest says out'); // vitest's output streams through
    expect(r.stdout).not.toContain('eslint says out'); // a passing check prints one line
    expect(r.stdout).toMatch(/^npm test: lint passed \(\d+ s\)$/m);
    expect(r.stdout).toMatch(/^npm test: typecheck, lint, format check and vitest passed/m);
  });

  it('a failing check fails npm test with its code and output, after the others have run', () => {
    const r = npmTest(checkout({ eslint: 3 }));
    expect(r.status).toBe(3);
    expect(r.ran).toHaveLength(4);
    expect(r.stdout).toMatch(/npm test: lint FAILED \(exit 3, \d+ s\):\neslint says out\neslint says err/);
    expect(r.stdout).toMatch(/^npm test: FAILED: lint \(/m);
  });

  it('a failing vitest fails npm test', () => {
    const r = npmTest(checkout({ vitest: 1 }));
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^npm test: FAILED: vitest \(/m);
  });

  it('several failures: each named, the first one’s code', () => {
    const r = npmTest(checkout({ typescript: 2, prettier: 1, vitest: 1 }));
    expect(r.status).toBe(2);
    expect(r.stdout).toMatch(/^npm test: FAILED: typecheck, format:check, vitest \(/m);
  });
});
