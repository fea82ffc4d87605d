/**
 * Start-up of the `hnsim` command, against the start-up of node itself measured in the same run
 * (the machine's speed and load cancel out of the ratio). Child processes, stdio pipes only:
 *
 *   (a) `node -e ''`, spawn → exit: the floor every command pays;
 *   (b) `node bin/hnsim.js serve` with one JSON-RPC request written to its stdin at spawn, spawn →
 *       its first response line (stdin is then closed and the server exits): target ≤ 4 × (a);
 *   (c) `npm start --silent` (the quick-start walkthrough, npm's own start included), spawn →
 *       exit: target ≤ 1 s;
 *   (d) `import('hnsim')` and (e) `import('hnsim/testing')` in `node --input-type=module -e`, from
 *       a throwaway project whose node_modules/hnsim links to this checkout (the package resolved
 *       through its exports map, as a user's code resolves it), spawn → exit: what every test file
 *       of a user's suite pays. Target: median of (d) − (a) and of (e) − (a), paired by round,
 *       ≤ 100 ms each.
 *   (f) `import('fast-check')` the same way: the kit's peer dependency, which (e) includes and a
 *       user's property test imports anyway; (e) − (f) is what the kit adds to it (no target).
 *
 * They run interleaved, round after round, so a change of machine load hits all of them.
 * The command under test is the compiled one, dist/cli/hnsim.js: when it is missing or older than
 * src/, `npm run build` runs first, and (b) and (c) run with HNSIM_RUN=dist, so bin/hnsim.js runs
 * the build as in an installed package even if src/ is edited during the run (in a checkout it
 * would otherwise switch to the sources through tsx).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  BIN,
  childCpuMs,
  CLK_TCK,
  ensureBundle,
  median,
  NPM_SHELL,
  quantile,
  ROOT,
  type Report,
} from './harness.js';

const REQUEST = '{"jsonrpc":"2.0","id":1,"method":"HcnEnumerateNetworks","params":[""]}\n';
/** The environment of (b) and (c): the compiled CLI, without bin/hnsim.js's source check. */
const COMPILED = { ...process.env, HNSIM_RUN: 'dist' };

interface Timing {
  /** Spawn → the child exited and its stdio closed. */
  readonly exitMs: number;
  /** Spawn → the first complete line on stdout, if any. */
  readonly firstLineMs: number | undefined;
  readonly firstLine: string | undefined;
  readonly cpuMs: number | undefined;
  readonly code: number | null;
  readonly stdoutChars: number;
  readonly stderr: string;
}

/**
 * Runs one child. With `request`, writes it to stdin at spawn and closes stdin once the first
 * response line has arrived; without, stdin is closed at once.
 */
function timeChild(
  command: string,
  args: readonly string[],
  opts: {
    readonly request?: string;
    readonly shell?: boolean;
    readonly env?: NodeJS.ProcessEnv;
    readonly cwd?: string;
  } = {},
): Promise<Timing> {
  return new Promise((resolve, reject) => {
    const cpu0 = childCpuMs();
    const t0 = performance.now();
    const child = spawn(command, args, {
      cwd: opts.cwd ?? ROOT,
      stdio: 'pipe',
      shell: opts.shell ?? false,
      env: opts.env ?? process.env,
    });
    let firstLineMs: number | undefined;
    let firstLine: string | undefined;
    let pending = '';
    let stdoutChars = 0;
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdoutChars += chunk.length;
      if (firstLine !== undefined) return;
      pending += chunk;
      const nl = pending.indexOf('\n');
      if (nl < 0) return;
      firstLineMs = performance.now() - t0;
      firstLine = pending.slice(0, nl);
      pending = '';
      if (opts.request !== undefined) child.stdin.end();
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (stderr += chunk));
    child.stdin.on('error', () => {}); // a child that dies early: its exit code tells
    child.on('error', reject);
    child.on('close', (code) => {
      const exitMs = performance.now() - t0;
      const cpu1 = childCpuMs();
      const cpuMs = cpu0 !== undefined && cpu1 !== undefined ? cpu1 - cpu0 : undefined;
      resolve({ exitMs, firstLineMs, firstLine, cpuMs, code, stdoutChars, stderr });
    });
    if (opts.request !== undefined) child.stdin.write(opts.request);
    else child.stdin.end();
  });
}

function check(what: string, t: Timing, ok: boolean): void {
  if (t.code !== 0 || !ok) {
    throw new Error(
      `${what} failed (exit code ${t.code}): ${t.stderr.trim() || `first line ${t.firstLine}`}`,
    );
  }
}

function isFirstResponse(line: string | undefined): boolean {
  try {
    const r = JSON.parse(line ?? '') as { jsonrpc?: unknown; id?: unknown; result?: unknown };
    return r.jsonrpc === '2.0' && r.id === 1 && Array.isArray(r.result);
  } catch {
    return false;
  }
}

const nodeBare = async (): Promise<Timing> => {
  const t = await timeChild(process.execPath, ['-e', '']);
  check("node -e ''", t, true);
  return t;
};

const serveFirst = async (): Promise<Timing> => {
  const t = await timeChild(process.execPath, [BIN, 'serve'], { request: REQUEST, env: COMPILED });
  check('hnsim serve', t, t.firstLineMs !== undefined && isFirstResponse(t.firstLine));
  return t;
};

const npmStart = async (): Promise<Timing> => {
  const t = await timeChild('npm', ['start', '--silent'], { shell: NPM_SHELL, env: COMPILED });
  check('npm start', t, t.stdoutChars > 0);
  return t;
};

/**
 * A throwaway project that depends on hnsim: node_modules/hnsim is a link to this checkout (a
 * junction on Windows, which needs no privilege), so `import('hnsim')` resolves the package by
 * name through its `exports`, to the files `npm run build` wrote, as in a user's project.
 */
function userProject(): { readonly dir: string; readonly remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'hnsim-import-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules', 'hnsim'), 'junction');
  // the user's own fast-check, the one the kit resolves (its peer dependency), for (f)
  symlinkSync(join(ROOT, 'node_modules', 'fast-check'), join(dir, 'node_modules', 'fast-check'), 'junction');
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** `import(specifier)` in a child node started in `dir`, spawn → exit. */
async function importChild(dir: string, specifier: string): Promise<Timing> {
  const t = await timeChild(process.execPath, ['--input-type=module', '-e', `await import('${specifier}')`], {
    cwd: dir,
  });
  check(`import('${specifier}')`, t, true);
  return t;
}

/**
 * Whether one child's import loads what only some calls need: ip-num (the first IPv6 string,
 * src/addr/ip.ts) and yaml (the first scenario, src/scenario/load.ts) are required when first
 * used, never by the import itself. Answers a sentence for the note.
 */
async function importLoads(dir: string): Promise<string> {
  const probe = [
    "await import('hnsim'); await import('hnsim/testing');",
    "const { createRequire } = await import('node:module');",
    'const cache = Object.keys(createRequire(import.meta.url).cache);',
    "console.log(JSON.stringify(['ip-num', 'yaml'].filter((p) => cache.some((k) => k.includes(`node_modules/${p}/`) || k.includes(`node_modules\\\\${p}\\\\`)))));",
  ].join(' ');
  const t = await timeChild(process.execPath, ['--input-type=module', '-e', probe], { cwd: dir });
  check('import probe', t, t.firstLine !== undefined);
  const loaded = JSON.parse(t.firstLine!) as string[];
  return loaded.length
    ? `the import LOADS ${loaded.join(' and ')} (something uses it at module load)`
    : 'neither ip-num nor yaml loaded by the import (each at its first use)';
}

/** The median over rounds of `a[r] − b[r]` (children of the same round, so the same load). */
function pairedMedian(a: readonly Timing[], b: readonly Timing[]): number {
  return median(a.map((t, r) => t.exitMs - b[r]!.exitMs));
}

/** CPU time of a series as a mean (its tick resolution divides by the number of runs). */
function cpuMean(ts: readonly Timing[]): number | undefined {
  if (ts.some((t) => t.cpuMs === undefined)) return undefined;
  return ts.reduce((sum, t) => sum + t.cpuMs!, 0) / ts.length;
}

function spread(values: readonly number[]): string {
  return `min ${Math.min(...values).toFixed(1)}, p95 ${quantile(values, 0.95).toFixed(1)} ms`;
}

export async function run(report: Report, opts: { quick?: boolean } = {}): Promise<void> {
  const rounds = opts.quick ? 5 : 15;
  ensureBundle('startup');
  const user = userProject();
  try {
    await measure(report, rounds, user.dir);
  } finally {
    user.remove();
  }
}

async function measure(report: Report, rounds: number, userDir: string): Promise<void> {
  // One untimed round loads the files into the page cache, then rounds of (a) … (e).
  await nodeBare();
  await serveFirst();
  await npmStart();
  await importChild(userDir, 'hnsim');
  await importChild(userDir, 'hnsim/testing');
  await importChild(userDir, 'fast-check');
  const loads = await importLoads(userDir);
  const bare: Timing[] = [];
  const serve: Timing[] = [];
  const start: Timing[] = [];
  const lib: Timing[] = [];
  const kit: Timing[] = [];
  const fc: Timing[] = [];
  for (let r = 0; r < rounds; r++) {
    bare.push(await nodeBare());
    serve.push(await serveFirst());
    start.push(await npmStart());
    lib.push(await importChild(userDir, 'hnsim'));
    kit.push(await importChild(userDir, 'hnsim/testing'));
    fc.push(await importChild(userDir, 'fast-check'));
  }
  const bareMs = bare.map((t) => t.exitMs);
  const firstMs = serve.map((t) => t.firstLineMs!);
  const startMs = start.map((t) => t.exitMs);
  const nodeMedian = median(bareMs);
  report({
    name: "node -e '' start→exit median",
    value: nodeMedian,
    unit: 'ms',
    note: `${rounds} rounds of (node, serve, npm start, import hnsim, import hnsim/testing, import fast-check) after one untimed round; ${spread(bareMs)}`,
  });
  report({
    name: 'hnsim serve spawn→first response median',
    value: median(firstMs),
    unit: 'ms',
    note: `node bin/hnsim.js serve, HcnEnumerateNetworks written to stdin at spawn; ${spread(firstMs)}`,
  });
  report({
    name: 'hnsim serve spawn→exit median',
    value: median(serve.map((t) => t.exitMs)),
    unit: 'ms',
    note: 'stdin closed after the first response',
  });
  report({
    name: 'hnsim serve first response / node start',
    value: median(firstMs) / nodeMedian,
    unit: '×',
    target: { max: 4 },
  });
  report({
    name: 'npm start start→exit median',
    value: median(startMs),
    unit: 'ms',
    target: { max: 1000 },
    note: `npm start --silent (npm's own start included), output piped; ${spread(startMs)}`,
  });
  report({ name: 'npm start / node start', value: median(startMs) / nodeMedian, unit: '×' });
  for (const [specifier, series] of [
    ['hnsim', lib],
    ['hnsim/testing', kit],
  ] as const) {
    const ms = series.map((t) => t.exitMs);
    report({
      name: `import '${specifier}' − node start, median`,
      value: pairedMedian(series, bare),
      unit: 'ms',
      target: { max: 100 },
      note: `node --input-type=module -e "await import('${specifier}')" in a project depending on hnsim, spawn → exit (${specifier === 'hnsim' ? `median ${median(ms).toFixed(1)} ms, ${spread(ms)}; ${loads}` : `median ${median(ms).toFixed(1)} ms, ${spread(ms)}; fast-check, its peer dependency, included`}), minus the same round's node -e ''`,
    });
  }
  report({
    name: "import 'fast-check' − node start, median",
    value: pairedMedian(fc, bare),
    unit: 'ms',
    note: "the kit's peer dependency alone, as (e) loads it; a user's property test pays it anyway",
  });
  report({
    name: "import 'hnsim/testing' − import 'fast-check', median",
    value: pairedMedian(kit, fc),
    unit: 'ms',
    note: 'what the kit adds to the fast-check a property test imports anyway',
  });

  const cpu = [cpuMean(bare), cpuMean(serve), cpuMean(start)] as const;
  if (cpu[0] === undefined || cpu[1] === undefined || cpu[2] === undefined) return;
  report({
    name: "node -e '' cpu mean",
    value: cpu[0],
    unit: 'ms',
    note: `user+system time of the exited children (/proc/self/stat cutime+cstime, ${1000 / CLK_TCK} ms ticks, mean of ${rounds})`,
  });
  report({ name: 'hnsim serve cpu mean', value: cpu[1], unit: 'ms', note: 'the whole process, to exit' });
  report({ name: 'npm start cpu mean', value: cpu[2], unit: 'ms' });
  report({ name: 'hnsim serve / node start (cpu)', value: cpu[1] / cpu[0], unit: '×' });
  const [libCpu, kitCpu] = [cpuMean(lib), cpuMean(kit)];
  if (libCpu !== undefined)
    report({ name: "import 'hnsim' − node start (cpu)", value: libCpu - cpu[0], unit: 'ms' });
  if (kitCpu !== undefined) {
    report({ name: "import 'hnsim/testing' − node start (cpu)", value: kitCpu - cpu[0], unit: 'ms' });
  }
}
