// `npm test`: the type check, the lint, the format check and vitest, all four at once (issue 15:
// `npm test` within 2 minutes on 2 cores). The run is bound by CPU time (~250 CPU-seconds on the
// 2-core machine, vitest a bit more than half of it), so the four start together and the machine's
// cores are busy to the end: the three checks, one process each, end before vitest, whose two
// workers then have both cores (one check after another beside vitest left a core idle at the
// end instead). Each check's node runs with a 64 MB young generation (--max-semi-space-size):
// tsc, eslint and prettier allocate many short-lived objects, and fewer scavenges save ~8
// CPU-seconds of the three's ~110. vitest's output streams as it runs; each check prints one line
// when it ends, and its whole output when it fails. Exits with the first failing step's code, after
// all four have ended. Arguments go to vitest (`npm test -- test/hns`); `npm run typecheck`, `lint`
// and `format:check` run one check alone.
//
// The three checks keep caches in node_modules/.cache/hnsim/ (tsc's build info, eslint's and
// prettier's caches: each keyed by file content and configuration), so a second run checks only
// what changed; a clean checkout has none and checks everything.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const require = createRequire(join(root, 'package.json'));
const cache = join(root, 'node_modules', '.cache', 'hnsim');
mkdirSync(cache, { recursive: true });

/** A package's command-line script, run with this node (no npm or npx process in between). */
const tool = (pkg, script) => join(dirname(require.resolve(`${pkg}/package.json`)), script);

const checks = [
  {
    name: 'typecheck',
    argv: [
      tool('typescript', 'bin/tsc'),
      ...['-p', 'tsconfig.json', '--noEmit', '--incremental'],
      ...['--tsBuildInfoFile', join(cache, 'tsconfig.tsbuildinfo')],
    ],
  },
  {
    name: 'lint',
    argv: [tool('eslint', 'bin/eslint.js'), '.', '--cache', '--cache-location', join(cache, 'eslint')],
  },
  {
    name: 'format:check',
    argv: [
      tool('prettier', 'bin/prettier.cjs'),
      ...['--check', '.', '--cache', '--cache-location', join(cache, 'prettier')],
    ],
  },
];

/** Runs `argv` with node; resolves its exit code and, unless `inherit`, its output. */
function run(argv, inherit) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, {
      cwd: root,
      stdio: inherit ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    if (!inherit) {
      child.stdout.setEncoding('utf8').on('data', (c) => (output += c));
      child.stderr.setEncoding('utf8').on('data', (c) => (output += c));
    }
    child.on('error', (e) => resolve({ code: 1, output: `${e.message}\n` }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

// Ctrl-C reaches every child through the terminal's process group; end once they have
process.on('SIGINT', () => {});

const t0 = performance.now();
const seconds = () => `${Math.round((performance.now() - t0) / 1000)} s`;
/** One check, in its own node; its line (and, failed, its output) when it ends. */
async function check(c) {
  const r = await run(['--max-semi-space-size=64', ...c.argv], false);
  if (r.code === 0) process.stdout.write(`npm test: ${c.name} passed (${seconds()})\n`);
  else process.stdout.write(`\nnpm test: ${c.name} FAILED (exit ${r.code}, ${seconds()}):\n${r.output}\n`);
  return { name: c.name, code: r.code };
}
const [checked, tested] = await Promise.all([
  Promise.all(checks.map(check)),
  run([tool('vitest', 'vitest.mjs'), 'run', ...process.argv.slice(2)], true),
]);
const results = [...checked, { name: 'vitest', code: tested.code }];
const failed = results.filter((r) => r.code !== 0);
process.stdout.write(
  failed.length === 0
    ? `npm test: typecheck, lint, format check and vitest passed (${seconds()})\n`
    : `npm test: FAILED: ${failed.map((r) => r.name).join(', ')} (${seconds()})\n`,
);
process.exitCode = failed[0]?.code ?? 0;
