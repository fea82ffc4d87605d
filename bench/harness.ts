/**
 * The benchmark harness: timing of batched operations (process.hrtime.bigint), order statistics,
 * figures with their targets, and the `name | value | unit | target | PASS/MISS` table. Wall time
 * is measured here and only here; tests never assert on it (DESIGN contract 5 is checked by eye).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import v8 from 'node:v8';
import { buildState, mtimeOf } from '../bin/build-state.js';

/** The package root, bin/hnsim.js and the CLI bundle `npm ci` builds (dist/cli/hnsim.js). */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BIN = join(ROOT, 'bin', 'hnsim.js');
const BUNDLE = join(ROOT, 'dist', 'cli', 'hnsim.js');

/** npm is npm.cmd on Windows, which only a shell runs. */
export const NPM_SHELL = process.platform === 'win32';

/** Clock ticks per second of /proc times (USER_HZ, 100 on every Linux architecture node runs on). */
export const CLK_TCK = 100;

/**
 * CPU time (user + system, ms) of this process's children that have exited and been waited for,
 * grandchildren waited for by them included; undefined off Linux. Resolution: 1000 / CLK_TCK ms.
 */
export function childCpuMs(): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // After "pid (comm) ": field 3 (state) is index 0, so cutime (16) and cstime (17) are 13 and 14.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLK_TCK;
  } catch {
    return undefined;
  }
}

/**
 * Figures of whole CLI processes are taken with the bundle, as a user runs hnsim after `npm ci`
 * (HNSIM_RUN=dist): `npm run build` first when dist/ is not up to date (bin/build-state.js, the rule
 * bin/hnsim.js applies).
 */
export function ensureBundle(group: string): void {
  const state = buildState(ROOT);
  if (state.fresh) return;
  const why = 'why' in state ? state.why : 'no build';
  process.stderr.write(`bench: ${group}: dist/ is not up to date (${why}): npm run build\n`);
  // npm is npm.cmd on Windows, which only a shell runs
  const b = spawnSync('npm', ['run', '-s', 'build'], {
    cwd: ROOT,
    stdio: ['ignore', 2, 2],
    shell: process.platform === 'win32',
  });
  if (b.status !== 0 || mtimeOf(BUNDLE) < 0) {
    throw new Error(`npm run build failed (see above); the ${group} figures need dist/cli/hnsim.js`);
  }
}

/** A bound a figure must keep: `value ≤ max` or `value ≥ min`. No target = information only. */
export type Target = { readonly max: number } | { readonly min: number };

export interface Figure {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  readonly target?: Target;
  /** How the figure was obtained, shown under the table (samples, batch, population…). */
  readonly note?: string;
}

export type Verdict = 'PASS' | 'MISS' | 'info';

export interface Row extends Figure {
  readonly verdict: Verdict;
  readonly group: string;
}

/** What a benchmark module receives: call it once per figure. */
export type Report = (figure: Figure) => void;

export function verdictOf(f: Figure): Verdict {
  if (!f.target || !Number.isFinite(f.value)) return f.target ? 'MISS' : 'info';
  if ('max' in f.target) return f.value <= f.target.max ? 'PASS' : 'MISS';
  return f.value >= f.target.min ? 'PASS' : 'MISS';
}

/**
 * Accepts a figure as an object or as positional `(name, value, unit, target?)`, where a target
 * may be `{max}`/`{min}`, a number (read as a maximum) or a string such as `"≤ 2"`/`">= 5"`; a
 * module written against another reading of `report` still lands in the table.
 */
export function normalizeFigure(args: readonly unknown[]): Figure {
  const [first, ...rest] = args;
  if (typeof first === 'object' && first !== null) {
    const o = first as Record<string, unknown>;
    const f: Figure = {
      name: String(o['name'] ?? '?'),
      value: Number(o['value']),
      unit: String(o['unit'] ?? ''),
    };
    const target = parseTarget(o['target'] ?? maxMin(o));
    const note = o['note'] ?? o['info'];
    return {
      ...f,
      ...(target ? { target } : {}),
      ...(typeof note === 'string' ? { note } : {}),
    };
  }
  const target = parseTarget(rest[2]);
  return {
    name: String(first),
    value: Number(rest[0]),
    unit: String(rest[1] ?? ''),
    ...(target ? { target } : {}),
  };
}

function maxMin(o: Record<string, unknown>): unknown {
  if (typeof o['max'] === 'number') return { max: o['max'] };
  if (typeof o['min'] === 'number') return { min: o['min'] };
  return undefined;
}

function parseTarget(t: unknown): Target | undefined {
  if (typeof t === 'number') return { max: t };
  if (typeof t === 'object' && t !== null) {
    const o = t as Record<string, unknown>;
    if (typeof o['max'] === 'number') return { max: o['max'] };
    if (typeof o['min'] === 'number') return { min: o['min'] };
    return undefined;
  }
  if (typeof t === 'string') {
    const m = /^\s*(≤|<=|<|≥|>=|>)\s*([0-9.eE+-]+)/.exec(t);
    if (!m) return undefined;
    const n = Number(m[2]);
    return m[1]!.startsWith('≤') || m[1]!.startsWith('<') ? { max: n } : { min: n };
  }
  return undefined;
}

// ───────────────────────────── timing ─────────────────────────────

/** Nanoseconds taken by `fn` (one call). */
export function timeNs(fn: () => void): number {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0);
}

/**
 * Lets the event loop turn. Objects behind a WeakRef created in the current job stay alive until
 * the job ends (ECMAScript KeepDuringJob; inversify keeps its containers in WeakLists), so a long
 * synchronous loop retains every host it builds: the harness yields between samples.
 */
export function tick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Per-operation times of a series of samples, in nanoseconds: wall clock and process CPU time. */
export interface Samples {
  readonly wall: number[];
  readonly cpu: number[];
}

export function emptySamples(): Samples {
  return { wall: [], cpu: [] };
}

/** Appends `more` to `into` (in place) and returns `into`. */
export function addSamples(into: Samples, more: Samples): Samples {
  into.wall.push(...more.wall);
  into.cpu.push(...more.cpu);
  return into;
}

/** CPU time of this process so far (user + system, GC helper threads included), in nanoseconds. */
export function cpuNs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
}

/**
 * Per-operation times: `samples` samples, each timing `batch` calls of `op(i)` in one window and
 * dividing by `batch`. Wall time comes from process.hrtime.bigint(); CPU time (process.cpuUsage,
 * GC helper threads included) is kept beside it because a loaded machine inflates wall time but
 * hardly CPU time. `prepare(sample)` runs untimed before each sample; the event loop turns between
 * samples (see `tick`).
 */
export async function sampleOps(opts: {
  readonly samples: number;
  readonly batch: number;
  readonly warmup?: number;
  readonly prepare?: (sample: number) => void;
  readonly op: (i: number) => void;
}): Promise<Samples> {
  const { samples, batch, op } = opts;
  for (let w = 0; w < (opts.warmup ?? 0); w++) {
    opts.prepare?.(-1);
    for (let i = 0; i < batch; i++) op(i);
    await tick();
  }
  const out = emptySamples();
  for (let s = 0; s < samples; s++) {
    await tick();
    opts.prepare?.(s);
    const c0 = cpuNs();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) op(i);
    const t1 = process.hrtime.bigint();
    const c1 = cpuNs();
    out.wall.push(Number(t1 - t0) / batch);
    out.cpu.push((c1 - c0) / batch);
  }
  return out;
}

/**
 * `sampleOps` for asynchronous operations: each sample times `batch` calls of `op(i)`, each awaited
 * before the next starts; `prepare(sample)`, awaited, runs untimed before each sample and warm-up.
 */
export async function sampleAsyncOps(opts: {
  readonly samples: number;
  readonly batch: number;
  readonly warmup?: number;
  readonly prepare?: (sample: number) => void | Promise<void>;
  readonly op: (i: number) => Promise<void>;
}): Promise<Samples> {
  const { samples, batch, op } = opts;
  for (let w = 0; w < (opts.warmup ?? 0); w++) {
    await opts.prepare?.(-1);
    for (let i = 0; i < batch; i++) await op(i);
    await tick();
  }
  const out = emptySamples();
  for (let s = 0; s < samples; s++) {
    await tick();
    await opts.prepare?.(s);
    const c0 = cpuNs();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) await op(i);
    const t1 = process.hrtime.bigint();
    const c1 = cpuNs();
    out.wall.push(Number(t1 - t0) / batch);
    out.cpu.push((c1 - c0) / batch);
  }
  return out;
}

/** The q-quantile (0..1) by nearest rank of a copy sorted ascending. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

export const median = (values: readonly number[]): number => quantile(values, 0.5);

/** `global.gc` when node runs with --expose-gc, else the same function obtained through V8 flags. */
export function getGc(): () => void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (typeof g === 'function') return g;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

/** Full collections, after a turn of the event loop, until heapUsed settles. */
export async function settledHeapUsed(gc: () => void): Promise<number> {
  let last = Infinity;
  for (let i = 0; i < 6; i++) {
    await tick();
    gc();
    const used = process.memoryUsage().heapUsed;
    if (Math.abs(last - used) < 64 * 1024) return used;
    last = used;
  }
  return last;
}

// ───────────────────────────── output ─────────────────────────────

function formatValue(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a >= 1000) return v.toFixed(0);
  if (a >= 100) return v.toFixed(1);
  if (a >= 10) return v.toFixed(2);
  return v.toFixed(3);
}

export function formatTarget(t: Target | undefined): string {
  if (!t) return '-';
  return 'max' in t ? `≤ ${t.max}` : `≥ ${t.min}`;
}

/** The table, columns padded; notes numbered under it. */
export function renderTable(rows: readonly Row[]): string {
  const header = ['name', 'value', 'unit', 'target', 'PASS/MISS'];
  const body = rows.map((r) => [r.name, formatValue(r.value), r.unit, formatTarget(r.target), r.verdict]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (i === 1 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ');
  const out = [line(header), widths.map((w) => '-'.repeat(w)).join('-|-')];
  let group = '';
  for (let i = 0; i < rows.length; i++) {
    if (rows[i]!.group !== group && i > 0) out.push('');
    group = rows[i]!.group;
    out.push(line(body[i]!));
  }
  const notes = rows.filter((r) => r.note);
  if (notes.length) {
    out.push('', 'notes:');
    for (const r of notes) out.push(`  ${r.name}: ${r.note}`);
  }
  return out.join('\n');
}

/** mulberry32: a small seeded generator, so that every run builds the same rules and objects. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
