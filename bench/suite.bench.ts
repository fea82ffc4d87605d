/**
 * The project's own test suites as a contributor runs them: `npm test` (typecheck, lint, format
 * check, vitest) and `npm run test:soak` (the long property, fuzz and soak runs), each spawned as a
 * whole process, spawn → exit. Target for `npm test`: ≤ 2 minutes on 2 idle cores (issue 15); the
 * soak suite is information.
 *
 * Minutes long, so not part of a plain `npm run bench`: `npm run bench -- --only=suite` (or
 * `--all`) runs it (bench/run.ts). On a busy machine the wall time says more about the load than
 * about the suite: the note carries the load average and the CPU time of the whole process tree.
 */
import { spawn } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { childCpuMs, NPM_SHELL, ROOT, type Report } from './harness.js';

interface Run {
  readonly seconds: number;
  readonly cpuSeconds: number | undefined;
  readonly code: number | null;
  readonly output: string;
  readonly load: readonly [number, number];
}

/** `npm run -s <script>` in the checkout, output kept (vitest's summary is read from it). */
function runScript(script: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const load0 = loadavg()[0]!;
    const cpu0 = childCpuMs();
    const t0 = performance.now();
    // FORCE_COLOR=0: vitest's summary without colour codes
    const child = spawn('npm', ['run', '-s', script], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: NPM_SHELL,
      env: { ...process.env, FORCE_COLOR: '0' },
    });
    let output = '';
    const keep = (chunk: string): void => {
      output += chunk;
      if (output.length > 1 << 20) output = output.slice(-(1 << 19)); // the summary is at the end
    };
    child.stdout.setEncoding('utf8').on('data', keep);
    child.stderr.setEncoding('utf8').on('data', keep);
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = (performance.now() - t0) / 1000;
      const cpu1 = childCpuMs();
      const cpuSeconds = cpu0 !== undefined && cpu1 !== undefined ? (cpu1 - cpu0) / 1000 : undefined;
      resolve({ seconds, cpuSeconds, code, output, load: [load0, loadavg()[0]!] });
    });
  });
}

/** vitest's own summary lines ("Test Files …", "Tests …", "Duration …"), or undefined. */
export function vitestSummary(output: string): { tests?: string; duration?: number } {
  // eslint-disable-next-line no-control-regex -- colour codes, in case a reporter ignores FORCE_COLOR
  const plain = output.replace(/\u001b\[[0-9;]*m/g, '');
  const tests = /^\s*Tests\s+(.+)$/m.exec(plain)?.[1]?.trim();
  const d = /^\s*Duration\s+([0-9.]+)\s*(ms|s)\b/m.exec(plain);
  const duration = d ? Number(d[1]) / (d[2] === 'ms' ? 1000 : 1) : undefined;
  return { ...(tests ? { tests } : {}), ...(duration !== undefined ? { duration } : {}) };
}

function lastLines(output: string, n: number): string {
  return output.trimEnd().split('\n').slice(-n).join(' / ');
}

async function suite(
  report: Report,
  script: string,
  name: string,
  target: { max: number } | undefined,
): Promise<void> {
  process.stderr.write(`bench: suite: npm run ${script}…\n`);
  const r = await runScript(script);
  const cores = availableParallelism();
  const load = `load average ${r.load[0].toFixed(1)} → ${r.load[1].toFixed(1)} on ${cores} cores`;
  const { tests, duration } = vitestSummary(r.output);
  const failed = r.code !== 0;
  report({
    name: `${name} wall`,
    // a failed run has no comparable time
    value: failed ? NaN : r.seconds,
    unit: 's',
    ...(target ? { target } : {}),
    note: failed
      ? `npm run ${script} exited with ${r.code} after ${r.seconds.toFixed(1)} s (${load}): ${lastLines(r.output, 4)}`
      : `npm run ${script}, spawn → exit; ${load}${tests ? `; vitest: ${tests}` : ''}${target ? '; the target is for 2 idle cores' : ''}`,
  });
  if (r.cpuSeconds !== undefined) {
    report({
      name: `${name} cpu`,
      value: r.cpuSeconds,
      unit: 's',
      note: 'user + system time of the whole process tree (npm, tsc, eslint, prettier, vitest and its workers)',
    });
  }
  if (duration !== undefined) report({ name: `${name}: vitest's Duration`, value: duration, unit: 's' });
}

export async function run(report: Report): Promise<void> {
  await suite(report, 'test', 'npm test', { max: 120 });
  await suite(report, 'test:soak', 'npm run test:soak', undefined);
}
