// `hnsim serve` ends when whatever started it ends it, whichever way it was started: node
// bin/hnsim.js directly, through npm's runner (`npm exec -c`, the code path of `npx hnsim`: npm runs
// the command in `sh -c` and passes SIGTERM/SIGINT to that shell only, which dies or waits without
// passing them on), and, for a stdio server, when its parent dies. Each test records the process
// tree while it runs and checks, by pid and with a bounded wait, that none of it is left. stdin is
// a FIFO this process holds open, so a server never ends for lack of input: only what the test
// does ends it.
//
// `npx hnsim` itself would first link this checkout into npx's cache (running `prepare`, a build
// when dist/ is stale); `npm exec -c` runs the same runner without that step.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bin, root } from './hnsim.js';

const posix = process.platform !== 'win32';

/** Processes started by a test, killed after it whatever happened; FIFOs' fds and folders. */
const started: number[] = [];
const fds: number[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  for (const fd of fds.splice(0)) closeSync(fd);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A FIFO opened read-write by this process: a stdin that stays open whoever else closes it. */
function heldStdin(): number {
  const dir = mkdtempSync(join(tmpdir(), 'hnsim-stop-'));
  dirs.push(dir);
  const fifo = join(dir, 'stdin');
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  const fd = openSync(fifo, 'r+');
  fds.push(fd);
  return fd;
}

/** Whether `pid` is a live process (a zombie, ended but not yet reaped, counts as gone). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw e;
  }
  try {
    // /proc/PID/stat: "PID (comm) STATE …"
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc: kill(pid, 0) said it exists
  }
}

/** `pid` and its descendants now (ps -A -o pid=,ppid=). */
function processTree(pid: number): number[] {
  const ps = spawnSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' });
  const children = new Map<number, number[]>();
  for (const line of ps.stdout.trim().split('\n')) {
    const [p, pp] = line.trim().split(/\s+/).map(Number) as [number, number];
    children.set(pp, [...(children.get(pp) ?? []), p]);
  }
  const out: number[] = [];
  const walk = (p: number): void => {
    out.push(p);
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(pid);
  return out;
}

/** The pids of `pids` still alive after waiting up to `boundMs` for them to end. */
async function leftAfter(pids: readonly number[], boundMs = 30_000): Promise<number[]> {
  for (let waited = 0; waited < boundMs; waited += 100) {
    if (!pids.some(alive)) return [];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return pids.filter(alive);
}

/** npm's own CLI (the one running this suite when there is one), as [command, ...args]. */
function npmCommand(): string[] {
  const execpath = process.env.npm_execpath;
  if (execpath && /^npm-cli\.[cm]?js$/.test(basename(execpath))) return [process.execPath, execpath];
  return ['npm'];
}

const hnsimCommand = (args: string): string => `"${process.execPath}" "${bin}" ${args}`;

/**
 * Spawn `argv` in the package folder (in a process group of its own) with a held stdin carrying
 * `input`, and resolve once its stdout has shown `ready`, with the process tree as it is then.
 */
function start(argv: string[], ready: RegExp, input = ''): Promise<{ child: ChildProcess; tree: number[] }> {
  const stdin = heldStdin();
  const child = spawn(argv[0]!, argv.slice(1), { cwd: root, stdio: [stdin, 'pipe', 'pipe'], detached: true });
  started.push(child.pid!);
  if (input) writeSync(stdin, input);
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (t: string) => (err += t));
  return new Promise((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (t: string) => {
      out += t;
      if (!ready.test(out)) return;
      const tree = processTree(child.pid!);
      started.push(...tree);
      resolve({ child, tree });
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`${argv.join(' ')} ended (${code ?? signal}) before it was ready: ${err}`)),
    );
  });
}

const LISTENING = /^hnsim: listening on 127\.0\.0\.1:\d+\n/;
/** A request a stdio server answers, to know it runs. */
const VERSION_REQUEST = '{"jsonrpc":"2.0","id":1,"method":"GetVersion","params":[]}\n';
const ANSWERED = /^\{"jsonrpc":"2\.0","id":1,"result":/;

describe.runIf(posix)('hnsim serve ends when what started it ends it', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`node bin/hnsim.js serve --listen: ${signal} ends it (exit 0)`, async () => {
      const { child, tree } = await start(
        [process.execPath, bin, 'serve', '--listen', '127.0.0.1:0'],
        LISTENING,
      );
      const exit = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill(signal);
      expect(await exit).toBe(0);
      expect(await leftAfter(tree)).toEqual([]);
    });
  }

  it("through npm's runner (npx's code path): SIGTERM to npm ends the --listen server", async () => {
    const { child, tree } = await start(
      [...npmCommand(), 'exec', '-c', hnsimCommand('serve --listen 127.0.0.1:0')],
      LISTENING,
    );
    expect(tree.length).toBeGreaterThanOrEqual(3); // npm, its shell and the server
    child.kill('SIGTERM');
    expect(await leftAfter(tree)).toEqual([]);
  });

  it("through npm's runner: SIGINT to the process group (a terminal's Ctrl-C) ends the --listen server", async () => {
    const { child, tree } = await start(
      [...npmCommand(), 'exec', '-c', hnsimCommand('serve --listen 127.0.0.1:0')],
      LISTENING,
    );
    process.kill(-child.pid!, 'SIGINT');
    expect(await leftAfter(tree)).toEqual([]);
  });

  it("through npm's runner: SIGTERM to npm ends a stdio server", async () => {
    const { child, tree } = await start(
      [...npmCommand(), 'exec', '-c', hnsimCommand('serve')],
      ANSWERED,
      VERSION_REQUEST,
    );
    child.kill('SIGTERM');
    expect(await leftAfter(tree)).toEqual([]);
  });

  it('a stdio server ends when its parent is killed', async () => {
    // `; :` keeps the shell from exec'ing node: node is its child, and the shell is killed alone
    const { child, tree } = await start(
      ['sh', '-c', `${hnsimCommand('serve')}; :`],
      ANSWERED,
      VERSION_REQUEST,
    );
    const server = tree.filter((p) => p !== child.pid);
    expect(server.length).toBeGreaterThanOrEqual(1);
    child.kill('SIGKILL');
    expect(await leftAfter(server)).toEqual([]);
  });
});
