/**
 * `hnsim run SCENARIO`: load a scenario file (src/scenario), run it with narration, print the
 * expectations' results (traces, cyclonus-style truth tables, HNS state, audits) and exit with a
 * code that says how it went. Options are parsed here with node:util parseArgs in main.ts's style
 * (a usage error is one line on stderr and exit 2); the model loads only once the line is good.
 */
import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import type { Scenario } from '../scenario/index.js';
import type { CliIo } from './main.js';
import { progressBar, useColor } from './progress.js';

export const RUN_OK = 0;
export const RUN_EXPECTATION_FAILED = 1;
export const RUN_USAGE = 2;
export const RUN_INVALID_FILE = 3;
export const RUN_SETUP_FAILED = 4;

export const RUN_USAGE_TEXT = `Usage: hnsim run SCENARIO [--trace] [--format text|json] [--seed N]

Run a scenario file (YAML; the format is docs/scenarios.md, its JSON Schema
scenarios/schema.json): build its nodes, underlay and CNI networks, start its pods through
the runtime and the CNI plugins, create its services, apply its steps and faults, and check
its expectations. The text output narrates each step from the nodes' events (HCS creates
the pause container, HNS creates the namespace = compartment N, CNI ADD, the endpoint and
its policies, the vSwitch port's VFP layers, kube-proxy's load balancers), then prints each
checkpoint: traces with their expected and observed dispositions, truth tables as cyclonus
prints them (expected, observed, comparison), HNS state and audit results, and every
failure with the file position of the expectation. SCENARIO "-" reads stdin.

  hnsim run scenarios/quick-start.yaml
  hnsim run scenarios/dsr.yaml --trace --format json

Options:
  --trace           Also print each trace expectation's packet path (ovn-trace's summary level)
  --format FORMAT   text (default) or json (the report, its narration and results as data)
  --seed N          Override the scenario's seed (integer 0..4294967295)
  -h, --help        Show this help

Exit status:
  0  every expectation holds
  1  an expectation does not hold, or a step's action failed (a refused delete, a call
     with another outcome than expected, a pod that did not run)
  2  bad command line
  3  the file is not a valid scenario: unreadable, not YAML, against the schema, or over a
     size bound; each problem is printed as FILE:LINE:COL: PATH: message
  4  the simulator refused what the file describes (FILE:LINE:COL: PATH: why)
Colour only on a terminal, and never with NO_COLOR set.
`;

function write(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(text, (err) => (err ? reject(err) : resolve()));
  });
}

async function usage(io: CliIo, message: string): Promise<number> {
  await write(io.stderr, `hnsim: run: ${message} (see 'hnsim run --help')\n`);
  return RUN_USAGE;
}

async function readStdin(io: CliIo): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of io.stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

export async function cmdRun(args: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        trace: { type: 'boolean' },
        format: { type: 'string' },
        seed: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    return usage(io, (e as Error).message.split('\n')[0]!.replace(/\. To specify a positional.*$/, ''));
  }
  const { values: flags, positionals } = parsed;
  if (flags.help) {
    await write(io.stdout, RUN_USAGE_TEXT);
    return RUN_OK;
  }
  if (positionals.length === 0) return usage(io, 'a SCENARIO file is required');
  if (positionals.length > 1) return usage(io, `unexpected argument "${positionals[1]}"`);
  const format = flags.format ?? 'text';
  if (format !== 'text' && format !== 'json')
    return usage(io, `--format must be text or json, got "${format}"`);
  let seed: number | undefined;
  if (flags.seed !== undefined) {
    if (!/^\d{1,10}$/.test(flags.seed) || Number(flags.seed) > 0xffffffff)
      return usage(io, `--seed must be an integer 0..4294967295, got "${flags.seed}"`);
    seed = Number(flags.seed);
  }
  const file = positionals[0]!;
  const { loadScenario, loadScenarioFile, ScenarioLoadError } = await import('../scenario/index.js');
  let scenario;
  try {
    scenario = file === '-' ? loadScenario(await readStdin(io), '<stdin>') : loadScenarioFile(file);
  } catch (e) {
    if (!(e instanceof ScenarioLoadError)) throw e;
    return fail(io, format, RUN_INVALID_FILE, e.message.split('\n'), { issues: e.issues });
  }
  if (seed !== undefined) scenario = { ...scenario, doc: { ...scenario.doc, seed } };
  return reportScenario(io, scenario, { format, trace: flags.trace === true });
}

/** A failure's lines on stderr (`hnsim: …`), and with --format json its data on stdout. */
async function fail(
  io: CliIo,
  format: 'text' | 'json',
  code: number,
  lines: string[],
  data: object,
): Promise<number> {
  await write(io.stderr, lines.map((l) => `hnsim: ${l}\n`).join(''));
  if (format === 'json')
    await write(io.stdout, JSON.stringify({ ok: false, exitCode: code, ...data }, null, 2) + '\n');
  return code;
}

/**
 * Run a loaded scenario and print its report (`hnsim run`, and `hnsim quickstart` on the
 * quick-start scenario): the exit code is 0, 1 (an expectation failed) or 4 (the simulator
 * refused the scenario).
 */
export async function reportScenario(
  io: CliIo,
  scenario: Scenario,
  o: { readonly format: 'text' | 'json'; readonly trace: boolean },
): Promise<number> {
  const { runScenario, ScenarioSetupError, renderReport, reportJson } = await import('../scenario/index.js');
  let report;
  const onProgress = o.format === 'text' ? progressBar(io) : undefined;
  try {
    report = await runScenario(scenario, {
      traces: o.trace,
      ...(onProgress ? { onProgress } : {}),
    });
  } catch (e) {
    if (!(e instanceof ScenarioSetupError)) throw e;
    return fail(io, o.format, RUN_SETUP_FAILED, [e.message], { error: { ...e.at, message: e.reason } });
  }
  const code = report.ok ? RUN_OK : RUN_EXPECTATION_FAILED;
  const text =
    o.format === 'json'
      ? JSON.stringify(reportJson(report, code), null, 2) + '\n'
      : renderReport(report, { color: useColor(io) });
  await write(io.stdout, text);
  return code;
}
