// The `hnsim` command for tests, two ways: as a user runs it (`node bin/hnsim.js …` in a child
// process, no build step) and in-process through `main` (fast: fake stdin/stdout/stderr).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';

/** The package's folder (the child's working directory). */
export const root = fileURLToPath(new URL('../..', import.meta.url));
export const bin = join(root, 'bin', 'hnsim.js');

export interface CliOut {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `node bin/hnsim.js ARGS` in a child process, in the package's folder, with this process's
 * environment (and `env` over it) less NO_COLOR.
 */
export function spawnHnsim(
  args: readonly string[],
  opts: { input?: string; env?: NodeJS.ProcessEnv; timeout?: number } = {},
): CliOut {
  const env = { ...process.env, ...opts.env };
  delete env.NO_COLOR;
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd: root,
    input: opts.input,
    encoding: 'utf8',
    env,
    timeout: opts.timeout ?? 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The CLI in-process: `input` on stdin, not a terminal unless `tty`, `env` its whole environment. */
export async function runHnsim(
  args: readonly string[],
  opts: { input?: string; tty?: boolean; env?: Record<string, string> } = {},
): Promise<CliOut> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: string[] = [];
  const err: string[] = [];
  stdout.on('data', (c: Buffer) => out.push(c.toString('utf8')));
  stderr.on('data', (c: Buffer) => err.push(c.toString('utf8')));
  const status = await main(args, {
    stdin: Readable.from([opts.input ?? '']),
    stdout,
    stderr,
    isTTY: opts.tty ?? false,
    env: opts.env ?? {},
  });
  return { status, stdout: out.join(''), stderr: err.join('') };
}

/**
 * `hnsim serve --host FILE` in-process, `hostDoc` written to FILE, `request` one JSON-RPC line on
 * stdin: its exit status, stdout (the response) and stderr.
 */
export async function serveWithHostDoc(
  hostDoc: unknown,
  request: unknown,
): Promise<{ status: number | null; out: string; err: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'hnsim-hostdoc-'));
  try {
    const file = join(dir, 'host.json');
    writeFileSync(file, JSON.stringify(hostDoc));
    const r = await runHnsim(['serve', '--host', file], { input: JSON.stringify(request) + '\n' });
    return { status: r.status, out: r.stdout, err: r.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
