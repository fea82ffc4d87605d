/**
 * The `hnsim` command as one long-lived process, for the page tests (test/docs/commands.ts): a shell
 * runs each page's lines for real, and each `hnsim` invocation in them is a small client that hands
 * its arguments, environment, working folder and stdin to this process, which runs `main` (what
 * bin/hnsim.js runs) with them and sends back stdout, stderr and the exit code. Loading the CLI
 * once instead of once per line is what keeps the pages' ~50 lines within a few seconds when the
 * sources run through tsx. Requests run one at a time (each changes the working folder). Listens on
 * the Unix socket given as argv[2]; ends when its stdin ends (the test process is gone).
 *
 *   node --import tsx test/docs/cli-server.ts /tmp/x/cli.sock
 */
import { createServer } from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import { main } from '../../src/cli/main.js';

interface Request {
  readonly argv: string[];
  readonly env: Record<string, string>;
  readonly cwd: string;
  /** base64 */
  readonly stdin: string;
}

async function run(req: Request): Promise<{ stdout: string; stderr: string; status: number }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  stderr.on('data', (c: Buffer) => err.push(c));
  process.chdir(req.cwd);
  const status = await main(req.argv, {
    stdin: Readable.from([Buffer.from(req.stdin, 'base64')]),
    stdout,
    stderr,
    isTTY: false,
    env: req.env,
  });
  return {
    stdout: Buffer.concat(out).toString('base64'),
    stderr: Buffer.concat(err).toString('base64'),
    status,
  };
}

let queue: Promise<unknown> = Promise.resolve();
const server = createServer({ allowHalfOpen: true }, (socket) => {
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (t: string) => {
    text += t;
    const nl = text.indexOf('\n');
    if (nl < 0) return;
    const req = JSON.parse(text.slice(0, nl)) as Request;
    queue = queue.then(async () => {
      const answer = await run(req).catch((e: unknown) => ({
        stdout: '',
        stderr: Buffer.from(`cli-server: ${(e as Error).stack ?? String(e)}\n`).toString('base64'),
        status: 70,
      }));
      socket.end(JSON.stringify(answer) + '\n');
    });
  });
  socket.on('error', () => undefined);
});
server.listen(process.argv[2], () => process.stdout.write('ready\n'));
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
