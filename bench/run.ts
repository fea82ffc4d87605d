/**
 * `npm run bench`: runs every benchmark module, prints `name | value | unit | target | PASS/MISS`
 * (or, with --json, the same rows as JSON) and exits 0 whatever the verdicts, unless --strict is
 * given (then 1 on any MISS). A module that throws is reported and makes the exit code 2.
 *
 *   npm run bench                      # the table
 *   npm run bench -- --json            # machine-readable rows on stdout
 *   npm run bench -- --strict --quick  # smoke run (10k instead of 100k), non-zero on a MISS
 *   npm run bench -- --only=addr       # some modules, comma-separated (hns, addr, trace, ovs, hcs, cni, startup, wine, scenario, analysis, ui, suite)
 *   npm run bench -- --all             # every module, the opt-in ones (suite: minutes of npm test) included
 */
import { existsSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { normalizeFigure, renderTable, verdictOf, type Report, type Row } from './harness.js';

interface Options {
  readonly json: boolean;
  readonly strict: boolean;
  readonly quick: boolean;
  /** The groups to run (`--only=cni,wine`); undefined = every group that is not opt-in. */
  readonly only: ReadonlySet<string> | undefined;
  /** `--all`: the opt-in groups too. */
  readonly all: boolean;
}

type BenchModule = { run: (report: Report, opts: { quick: boolean }) => unknown };

/**
 * Benchmark modules by group name; a module file that does not exist yet is skipped. An opt-in
 * group runs only when named in --only or with --all: `suite` spawns the project's own test
 * suites, minutes each, which would turn a 40-second run into a many-minute one.
 */
const MODULES: readonly { readonly group: string; readonly file: string; readonly optIn?: true }[] = [
  { group: 'hns', file: './hns.bench.ts' },
  { group: 'addr', file: './addr.bench.ts' },
  { group: 'trace', file: './trace.bench.ts' },
  { group: 'ovs', file: './ovs.bench.ts' },
  { group: 'hcs', file: './hcs.bench.ts' },
  { group: 'cni', file: './cni.bench.ts' },
  { group: 'startup', file: './startup.bench.ts' },
  { group: 'wine', file: './wine.bench.ts' },
  { group: 'scenario', file: './scenario.bench.ts' },
  { group: 'analysis', file: './analysis.bench.ts' },
  { group: 'ui', file: './ui.bench.ts' },
  { group: 'suite', file: './suite.bench.ts', optIn: true },
];

function parseArgs(argv: readonly string[]): Options {
  let only: Set<string> | undefined;
  for (const a of argv) {
    if (a.startsWith('--only=')) {
      only = new Set(a.slice('--only='.length).split(','));
      const unknown = [...only].filter((g) => !MODULES.some((m) => m.group === g));
      if (unknown.length) {
        const known = MODULES.map((m) => m.group).join(', ');
        process.stderr.write(`bench: unknown group ${unknown.join(', ')} (known: ${known})\n`);
        process.exit(2);
      }
    } else if (!['--json', '--strict', '--quick', '--all'].includes(a)) {
      process.stderr.write(
        `bench: unknown argument ${a} (known: --json --strict --quick --all --only=<group>)\n`,
      );
      process.exit(2);
    }
  }
  return {
    json: argv.includes('--json'),
    strict: argv.includes('--strict'),
    quick: argv.includes('--quick'),
    only,
    all: argv.includes('--all'),
  };
}

async function main(): Promise<number> {
  const opts = parseArgs(process.argv.slice(2));
  const rows: Row[] = [];
  const errors: { group: string; error: string }[] = [];
  const started = performance.now();
  const loadStart = loadavg()[0]!;
  for (const m of MODULES) {
    if (opts.only !== undefined ? !opts.only.has(m.group) : m.optIn && !opts.all) continue;
    const url = new URL(m.file, import.meta.url);
    if (!existsSync(url)) {
      process.stderr.write(`bench: ${m.file} not found, skipped\n`);
      continue;
    }
    const t0 = performance.now();
    process.stderr.write(`bench: ${m.group}…\n`);
    try {
      const mod = (await import(url.href)) as Partial<BenchModule>;
      if (typeof mod.run !== 'function') throw new Error(`${m.file} exports no run(report)`);
      const report: Report = (...args: unknown[]) => {
        const f = normalizeFigure(args);
        rows.push({ ...f, group: m.group, verdict: verdictOf(f) });
      };
      await mod.run(report, { quick: opts.quick });
    } catch (e) {
      const error = e instanceof Error ? (e.stack ?? e.message) : String(e);
      errors.push({ group: m.group, error });
      process.stderr.write(`bench: ${m.group} failed: ${error}\n`);
    }
    process.stderr.write(`bench: ${m.group} done in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  }
  const seconds = (performance.now() - started) / 1000;
  const load = { start: loadStart, end: loadavg()[0]!, cores: availableParallelism() };
  const misses = rows.filter((r) => r.verdict === 'MISS');
  if (opts.json) {
    const out = {
      node: process.version,
      quick: opts.quick,
      seconds,
      load,
      results: rows.map((r) => ({
        group: r.group,
        name: r.name,
        value: r.value,
        unit: r.unit,
        target: r.target ?? null,
        verdict: r.verdict,
        ...(r.note ? { note: r.note } : {}),
      })),
      errors,
    };
    process.stdout.write(JSON.stringify(out, null, 2) + '\n');
  } else {
    process.stdout.write(renderTable(rows) + '\n');
    const passes = rows.filter((r) => r.verdict === 'PASS').length;
    process.stdout.write(
      `\n${passes} PASS, ${misses.length} MISS, ${rows.length - passes - misses.length} info` +
        `${errors.length ? `, ${errors.length} module error(s)` : ''} — ${seconds.toFixed(1)} s, node ${process.version}\n` +
        `load average ${load.start.toFixed(1)} → ${load.end.toFixed(1)} on ${load.cores} cores` +
        `${Math.max(load.start, load.end) > load.cores ? ' — the machine is busy: wall-clock figures are inflated, compare the cpu figures' : ''}\n`,
    );
  }
  if (errors.length) return 2;
  return opts.strict && misses.length ? 1 : 0;
}

process.exitCode = await main();
