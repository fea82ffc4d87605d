/**
 * The Wine tests' kit (issue 10): whether Wine and mingw-w64 are here (skip, or fail under
 * HNSIM_WINE_REQUIRED=1 as CI sets it), the test programs of native/tests built once per run, a
 * simulator served on loopback TCP in this process, and hcncall.exe / cnistyle.exe runs against it.
 *
 *   describeWine('…', () => {
 *     it('…', async () => {
 *       const sim = await startSim({ seed: 7 });
 *       const run = await hcncall([step('HcnEnumerateNetworks', [''])], { endpoint: sim.endpoint });
 *       await sim.close();
 *     });
 *   });
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { serveTcp, type TcpRpcServer } from '../../src/api/rpc.js';
import { createHost, type Host, type HostOptions } from '../../src/host/host.js';
import { cniRpcMethods } from '../../src/plugins/index.js';
import { doctorMessage, wineDoctor } from '../../src/wine/doctor.js';
import { mingwAvailable } from '../../src/wine/build.js';
import { prepareWine, runUnderWine, type PreparedWine, type WineRunResult } from '../../src/wine/run.js';
import { NATIVE_TESTS, ROOT, testPrograms } from './programs.js';
import { calls, hcncallInput, parseOutput, type BlockOutput, type CallOutput, type Step } from './steps.js';

export { NATIVE_TESTS, ROOT, testPrograms };

/** CI sets it: a missing tool fails the suite instead of skipping it. */
export const WINE_REQUIRED = process.env['HNSIM_WINE_REQUIRED'] === '1';

/** What is missing to run the Wine tests (a message), or undefined. */
export function wineMissing(): string | undefined {
  const report = wineDoctor(process.env, { mingw: mingwAvailable });
  return report.ok ? undefined : doctorMessage(report);
}

/**
 * `describe` for a suite that runs Windows programs: skipped with the doctor's first line when Wine
 * or mingw-w64 is missing, or, under HNSIM_WINE_REQUIRED=1, one failing test carrying the message.
 */
export function describeWine(name: string, fn: () => void): void {
  const missing = wineMissing();
  if (missing === undefined) {
    describe(name, fn);
  } else if (WINE_REQUIRED) {
    describe(name, () => {
      it('has Wine and mingw-w64 (HNSIM_WINE_REQUIRED=1)', () => {
        throw new Error(missing);
      });
    });
  } else {
    process.stderr.write(`test/wine: skipping "${name}": ${missing.split('\n').join(' ')}\n`);
    describe.skip(`${name} — skipped: ${missing.split('\n')[1]?.trim() ?? missing}`, fn);
  }
}

let wine: Promise<PreparedWine> | undefined;

/** The DLLs built and the prefix ready (once per test file). */
export function readyWine(): Promise<PreparedWine> {
  wine ??= prepareWine();
  return wine;
}

/** Everything a test needs before its first program: the prefix, the DLLs, the test programs. */
export async function ready(): Promise<{ wine: PreparedWine; hcncall: string; cnistyle: string }> {
  const [w, p] = await Promise.all([readyWine(), testPrograms()]);
  return { wine: w, ...p };
}

// ───────────────────────────── the simulator ─────────────────────────────

export interface Sim {
  readonly host: Host;
  readonly tcp: TcpRpcServer;
  /** `127.0.0.1:PORT`, HNSIM_ENDPOINT's value. */
  readonly endpoint: string;
  close(): Promise<void>;
}

/** A fresh host served on a loopback port (with the CNI methods, as `hnsim serve` has them). */
export async function startSim(options: HostOptions = {}, port = 0): Promise<Sim> {
  const host = createHost(options);
  return serveHost(host, port);
}

export async function serveHost(host: Host, port = 0): Promise<Sim> {
  const tcp = await serveTcp(host, { host: '127.0.0.1', port }, { methods: cniRpcMethods(host) });
  return { host, tcp, endpoint: `127.0.0.1:${tcp.port}`, close: () => tcp.close() };
}

// ───────────────────────────── running programs ─────────────────────────────

/** This process's environment without HNSIM_* (a test says what the program gets). */
export function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('HNSIM_')) env[k] = v;
  }
  return { ...env, ...extra };
}

export interface RunOptions {
  /** HNSIM_ENDPOINT (none: the variable is not set). */
  readonly endpoint?: string;
  readonly env?: Record<string, string>;
  readonly args?: readonly string[];
  readonly timeoutMs?: number;
}

export interface HcncallRun extends WineRunResult {
  readonly outputs: ReturnType<typeof parseOutput>;
  /** The per-call lines. */
  readonly calls: CallOutput[];
  /** The `!loop` / `!threads` summaries. */
  readonly blocks: BlockOutput[];
}

/** The `key=value` lines of a test program's stdout as an object (C stdout is in text mode: CRLF). */
export function keyValues(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split(/\r?\n/)
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

/** Run a Windows program of the kit under Wine. */
export async function runProgram(
  program: string,
  stdin: string,
  opts: RunOptions = {},
): Promise<WineRunResult> {
  const w = await readyWine();
  return runUnderWine({
    program,
    ...(opts.args ? { args: opts.args } : {}),
    env: baseEnv(opts.env),
    stdin,
    ...(opts.endpoint !== undefined ? { endpoint: opts.endpoint } : {}),
    timeoutMs: opts.timeoutMs ?? 60_000,
    wine: w,
  });
}

/**
 * Run hcncall.exe on steps (or raw input lines) and parse what it printed. A non-zero exit or a
 * timeout throws with the program's stderr: hcncall itself never fails on a failed call.
 */
export async function hcncall(input: readonly Step[] | string, opts: RunOptions = {}): Promise<HcncallRun> {
  const { hcncall: exe } = await testPrograms();
  const text = typeof input === 'string' ? input : hcncallInput(input);
  const r = await runProgram(exe, text, opts);
  if (r.exitCode !== 0 || r.timedOut) {
    throw new Error(
      `hcncall.exe exited with ${r.exitCode}${r.timedOut ? ' (timed out)' : ''}: ${r.stderr}\n${r.stdout}`,
    );
  }
  const outputs = parseOutput(r.stdout);
  return {
    ...r,
    outputs,
    calls: calls(outputs),
    blocks: outputs.filter(
      (o): o is BlockOutput => typeof (o as BlockOutput).calls === 'number' && !('fn' in o),
    ),
  };
}

/** Run cnistyle.exe with the CNI environment and configuration. */
export async function cni(
  command: 'ADD' | 'DEL' | 'CHECK' | 'VERSION',
  conf: Record<string, unknown>,
  opts: RunOptions & { containerId?: string; netns?: string; ifname?: string } = {},
): Promise<WineRunResult> {
  const { cnistyle } = await testPrograms();
  return runProgram(cnistyle, JSON.stringify(conf), {
    ...opts,
    env: {
      ...(opts.env ?? {}),
      CNI_COMMAND: command,
      CNI_CONTAINERID: opts.containerId ?? 'c1',
      CNI_NETNS: opts.netns ?? '',
      CNI_IFNAME: opts.ifname ?? 'eth0',
      CNI_PATH: 'Z:\\opt\\cni\\bin',
    },
  });
}

/** A Unix path as a Windows program under Wine sees it (drive Z: is /). */
export function winPath(unix: string): string {
  return `Z:${unix.replace(/\//g, '\\')}`;
}

// ───────────────────────────── the hnsim command ─────────────────────────────

export const HNSIM_BIN = join(ROOT, 'bin', 'hnsim.js');

export interface CommandResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run `node bin/hnsim.js ARGS` with the given stdin and extra environment. */
export function hnsim(
  args: readonly string[],
  opts: { stdin?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HNSIM_BIN, ...args], {
      cwd: ROOT,
      env: baseEnv(opts.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.stdin ?? '');
  });
}

/** `hnsim serve --listen 127.0.0.1:0` as a child process: its endpoint, and a way to stop it. */
export async function serveChild(
  args: readonly string[] = [],
): Promise<{ endpoint: string; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, [HNSIM_BIN, 'serve', '--listen', '127.0.0.1:0', ...args], {
    cwd: ROOT,
    env: baseEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const closed = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  const endpoint = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /^hnsim: listening on (.+):(\d+)$/m.exec(out);
      if (m) resolve(`${m[1]}:${m[2]}`);
    });
    void closed.then((code) => reject(new Error(`hnsim serve exited with ${code}: ${stderr}`)));
  });
  return {
    endpoint,
    stop: () => {
      child.kill('SIGTERM');
      return closed;
    },
  };
}

/** One JSON-RPC call over a fresh TCP connection to a simulator: the response object. */
export function rpc(
  endpoint: string,
  method: string,
  params: unknown[] = [],
): Promise<{ result?: unknown; error?: { code: number; message: string; data?: unknown } }> {
  const i = endpoint.lastIndexOf(':');
  const host = endpoint.slice(0, i).replace(/^\[|\]$/g, '');
  const port = Number(endpoint.slice(i + 1));
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port }, () => {
      socket.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) + '\n');
    });
    let buf = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        socket.end();
        resolve(JSON.parse(buf.slice(0, nl)) as never);
      }
    });
    socket.on('error', reject);
  });
}
