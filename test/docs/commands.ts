/**
 * The command lines of hnsim's pages and help texts, found and run as a reader runs them: by
 * test/docs/commands.test.ts (`npm test`) and test/wine/doc-commands.test.ts (`npm run test:wine`,
 * the `hnsim wine` ones). The conventions below are what a page writer follows (docs/cli.md,
 * "Commands in these pages", says the same for readers).
 *
 * Pages (README.md, docs/*.md):
 * - A command line is a line of a `sh`, `bash`, `shell` or `console` code block (or of an unlabelled
 *   block, after a `$ ` prompt) that runs hnsim: `npx hnsim …` (also after `VAR=value`, in a pipe,
 *   or inside `$(…)`). It is written as a reader pastes it in a checkout or a project that has
 *   hnsim installed: a bare `hnsim …` is not on PATH there and fails. The lines of a block run in
 *   order in one `sh`, in a fresh folder holding `scenarios/` and the page's files (below), so
 *   `export`s, `x=$(…)` and files made by earlier lines carry over; lines that run other programs
 *   (`npm`, `git`, `go`, `apt-get`) are not run.
 * - It must exit 0, or the code a trailing comment gives (`# … exit 1`). Lines right after it that
 *   start with `# ` (in `sh`) or follow a `$ ` line (in `console`) are its example output: each must
 *   be found in what it prints, in order, `…` matching anything and `PORT` a port number.
 * - `127.0.0.1:PORT` is the address of an `hnsim serve --listen` the test starts for the block; an
 *   `hnsim serve --listen` line itself runs until its first line is printed, then gets SIGTERM.
 * - A file the page shows: a code block right after `<!-- file: NAME -->`, or after a line ending
 *   with `` `NAME`: ``, is written as NAME for every block of the page.
 * - The reader's own files: a command naming a path under `~/` or `/home/`, or an `.exe`, is
 *   checked, not run: its command and options must parse (as with `--help`). So is every `hnsim
 *   wine` line under `npm test` (no Wine there); the Wine suite runs those (the reader's plugin
 *   binaries: real ones from HNSIM_REAL_PLUGINS_DIR, else parsed there too). The lines after one
 *   that was only parsed still run, but what they show is not compared (it may depend on it).
 * - Inline code is not run: `npx hnsim …` in a sentence is run when it is a whole command (no
 *   `[`, `…`, `|`, `<` or UPPERCASE placeholder), else it is a synopsis; `hnsim NAME --option` names
 *   a command and its options. A synopsis or a name must name a command and options that exist.
 *
 * Help texts (`hnsim --help`, `hnsim CMD --help`): their indented example lines (`hnsim …`, with
 * `\` continuations) run the same way, with `hnsim` on PATH and the files docs/cni.md shows; every
 * `--option` of a `Usage:` line must be described in the Options.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { bin, root, runHnsim } from '../cli/hnsim.js';

/** Where a command line is written: a page and its line, or a help text and its line. */
export interface Place {
  readonly file: string;
  readonly line: number;
}

export interface DocCommand extends Place {
  /** The command as written (continuation lines joined with their `\`). */
  readonly text: string;
  /** The exit code it must end with. */
  readonly exit: number;
  /** Example output lines shown with it. */
  readonly output: readonly string[];
  /** Runs hnsim (not an assignment or another program). */
  readonly hnsim: boolean;
  /** The argument vectors of its hnsim invocations (for the parse check). */
  readonly argvs: readonly (readonly string[])[];
  /** `run`, or `check` (the reader's own files: parsed, not run), or `skip` (another program). */
  readonly mode: 'run' | 'check' | 'skip';
  /** Runs `hnsim wine`. */
  readonly wine: boolean;
  /** Starts `hnsim serve --listen`. */
  readonly server: boolean;
  /** Runs a bare `hnsim` (not on PATH in a checkout), rather than `npx hnsim`. */
  readonly bare: boolean;
}

/** The command lines of one code block (or one help text), run in one shell. */
export interface DocBlock extends Place {
  readonly commands: readonly DocCommand[];
  /** Files the page shows, by name. */
  readonly files: ReadonlyMap<string, string>;
  /** Whether bare `hnsim` is on PATH (help texts), or only `npx hnsim` (pages). */
  readonly bareHnsim: boolean;
}

/** A reference in a sentence: a synopsis or a command's name with options. */
export interface DocReference extends Place {
  readonly text: string;
  readonly command: string | undefined;
  readonly options: readonly string[];
}

// ---------------------------------------------------------------------------------------------
// Shell words: enough of sh to find the hnsim invocations of a line and their arguments.

type Token = { readonly op: string } | { readonly word: string; readonly subs: readonly string[] };

/** The end of a `$(…)` starting at `i` (after `$(`): the index of its `)`. */
function substitutionEnd(s: string, i: number): number {
  let depth = 1;
  for (; i < s.length; i++) {
    const c = s[i]!;
    if (c === "'") i = s.indexOf("'", i + 1);
    else if (c === '"') {
      for (i++; i < s.length && s[i] !== '"'; i++) if (s[i] === '\\') i++;
    } else if (c === '\\') i++;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
    if (i < 0) break;
  }
  throw new Error(`unbalanced $( in: ${s}`);
}

/** Split a line into words (quotes removed, `$(…)` kept as written) and operators; `#` ends it. */
export function shellTokens(line: string): Token[] {
  const out: Token[] = [];
  let word: string | undefined;
  let subs: string[] = [];
  const end = (): void => {
    if (word !== undefined) out.push({ word, subs });
    word = undefined;
    subs = [];
  };
  const s = line.replace(/\\\n/g, ' ');
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (/\s/.test(c)) {
      end();
    } else if (c === '#' && word === undefined) {
      break;
    } else if (c === "'") {
      const j = s.indexOf("'", i + 1);
      word = (word ?? '') + s.slice(i + 1, j < 0 ? undefined : j);
      i = j < 0 ? s.length : j;
    } else if (c === '"') {
      word ??= '';
      for (i++; i < s.length && s[i] !== '"'; i++) {
        if (s[i] === '\\' && '"\\$`'.includes(s[i + 1] ?? '')) word += s[++i];
        else if (s[i] === '$' && s[i + 1] === '(') {
          const j = substitutionEnd(s, i + 2);
          subs.push(s.slice(i + 2, j));
          word += s.slice(i, j + 1);
          i = j;
        } else word += s[i];
      }
    } else if (c === '\\') {
      word = (word ?? '') + (s[++i] ?? '');
    } else if (c === '$' && s[i + 1] === '(') {
      const j = substitutionEnd(s, i + 2);
      subs.push(s.slice(i + 2, j));
      word = (word ?? '') + s.slice(i, j + 1);
      i = j;
    } else if ('|&;<>()'.includes(c)) {
      end();
      const two = s.slice(i, i + 2);
      const op = ['||', '&&', '>>'].includes(two) ? two : c;
      i += op.length - 1;
      out.push({ op });
    } else {
      word = (word ?? '') + c;
    }
  }
  end();
  return out;
}

/** The simple commands of a line: words after assignments and redirections, and their `$(…)`s. */
function simpleCommands(line: string): { argv: string[]; subs: string[] }[] {
  const out: { argv: string[]; subs: string[] }[] = [];
  let argv: string[] = [];
  let subs: string[] = [];
  let redirect = false;
  const flush = (): void => {
    out.push({ argv, subs });
    argv = [];
    subs = [];
  };
  for (const t of shellTokens(line)) {
    if ('op' in t) {
      if (t.op === '<' || t.op === '>' || t.op === '>>') redirect = true;
      else flush();
      continue;
    }
    subs.push(...t.subs);
    if (redirect) redirect = false;
    else if (argv.length === 0 && /^[A-Za-z_]\w*=/.test(t.word)) continue;
    else argv.push(t.word);
  }
  flush();
  return out.filter((c) => c.argv.length > 0 || c.subs.length > 0);
}

/** hnsim's arguments when `argv` runs hnsim (`hnsim`, `npx hnsim`, `node bin/hnsim.js`), else undefined. */
function hnsimArgs(argv: readonly string[]): string[] | undefined {
  if (argv[0] === 'hnsim') return argv.slice(1);
  if (argv[0] === 'npx' && argv[1] === 'hnsim') return argv.slice(2);
  if (argv[0] === 'node' && /(^|\/)bin\/hnsim\.js$/.test(argv[1] ?? '')) return argv.slice(2);
  return undefined;
}

/** Every hnsim invocation of a line, `$(…)` included, as hnsim's argument vectors. */
export function hnsimInvocations(line: string): string[][] {
  const out: string[][] = [];
  for (const c of simpleCommands(line)) {
    const args = hnsimArgs(c.argv);
    if (args) out.push(args);
    for (const sub of c.subs) out.push(...hnsimInvocations(sub));
  }
  return out;
}

/** The programs a line runs (first words of its simple commands, `$(…)` included). */
function programsOf(line: string): string[] {
  const out: string[] = [];
  for (const c of simpleCommands(line)) {
    if (c.argv[0] !== undefined) out.push(c.argv[0]);
    for (const sub of c.subs) out.push(...programsOf(sub));
  }
  return out;
}

/** The trailing `# comment` of a line (outside quotes), or ''. */
function trailingComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"') i++;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '\\') i++;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(i + 1).trim();
  }
  return '';
}

/** A path the reader supplies (their plugin binary, their home folder). */
const READERS_FILE = /(^|[\s'"=:])(~\/|\/home\/)|\.exe\b/;

function command(place: Place, text: string, output: string[]): DocCommand {
  const argvs = hnsimInvocations(text);
  const hnsim = argvs.length > 0;
  // `x=…` or `export x=…` alone sets variables later lines use: it runs
  const assignment =
    !hnsim && /^(export\s+)?[A-Za-z_]\w*=/.test(text.trim()) && !/^(\S+=\S*\s+)+[a-z]/.test(text.trim());
  const other = !hnsim && !assignment;
  const exit = /\bexit (\d+)\b/.exec(trailingComment(text));
  const wine = argvs.some((a) => a[0] === 'wine');
  const server = argvs.some((a) => a[0] === 'serve' && a.includes('--listen'));
  return {
    ...place,
    text,
    exit: exit ? Number(exit[1]) : 0,
    output,
    hnsim,
    argvs,
    mode: other ? 'skip' : READERS_FILE.test(text) ? 'check' : 'run',
    wine,
    server,
    bare: programsOf(text).includes('hnsim'),
  };
}

// ---------------------------------------------------------------------------------------------
// Pages

const SHELL_LANGS = new Set(['sh', 'bash', 'shell', 'console']);

/** The pages whose command lines run: README.md and docs/*.md. */
export function pages(): string[] {
  return [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
}

interface Fence {
  readonly lang: string;
  readonly line: number;
  readonly lines: readonly string[];
  /** The last non-blank line before the fence. */
  readonly before: string;
}

function fences(text: string): { fences: Fence[]; prose: { line: number; text: string }[] } {
  const lines = text.split('\n');
  const out: Fence[] = [];
  const prose: { line: number; text: string }[] = [];
  let before = '';
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\S*)\s*$/.exec(lines[i]!);
    if (!open) {
      prose.push({ line: i + 1, text: lines[i]! });
      if (lines[i]!.trim() !== '') before = lines[i]!;
      continue;
    }
    const indent = open[1]!.length;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]!); j++) body.push(lines[j]!.slice(indent));
    out.push({ lang: open[2]!, line: i + 1, lines: body, before });
    i = j;
    before = '';
  }
  return { fences: out, prose };
}

/** The files a page shows: blocks after `<!-- file: NAME -->` or a line ending in `` `NAME`: ``. */
function pageFiles(fs: readonly Fence[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of fs) {
    const m = /<!--\s*file:\s*(\S+)\s*-->\s*$/.exec(f.before) ?? /`([\w.-]+\.\w+)`:\s*$/.exec(f.before);
    if (m) out.set(m[1]!, f.lines.join('\n') + '\n');
  }
  return out;
}

/** The command lines of a shell block: `$ ` lines (console) or every logical line (sh). */
function blockCommands(file: string, f: Fence): DocCommand[] {
  const prompt = f.lang === 'console' || f.lang === '' || f.lines.some((l) => l.startsWith('$ '));
  const out: DocCommand[] = [];
  for (let i = 0; i < f.lines.length; i++) {
    let text = f.lines[i]!;
    const line = f.line + 1 + i;
    if (prompt && !text.startsWith('$ ')) continue;
    if (prompt) text = text.slice(2);
    if (!prompt && (text.trim() === '' || text.trimStart().startsWith('#'))) continue;
    while (text.endsWith('\\') && i + 1 < f.lines.length) text += '\n' + f.lines[++i]!;
    const output: string[] = [];
    if (prompt) {
      while (i + 1 < f.lines.length && !f.lines[i + 1]!.startsWith('$ ')) output.push(f.lines[++i]!);
    } else {
      while (i + 1 < f.lines.length && f.lines[i + 1]!.startsWith('# ')) output.push(f.lines[++i]!.slice(2));
    }
    out.push(command({ file, line }, text, output));
  }
  return out;
}

/** Every shell block of the pages with its command lines. */
export function pageBlocks(): DocBlock[] {
  const out: DocBlock[] = [];
  for (const file of pages()) {
    const { fences: fs } = fences(readFileSync(join(root, file), 'utf8'));
    const files = pageFiles(fs);
    for (const f of fs) {
      if (!SHELL_LANGS.has(f.lang) && !(f.lang === '' && f.lines.some((l) => l.startsWith('$ ')))) continue;
      const commands = blockCommands(file, f);
      if (commands.some((c) => c.hnsim)) out.push({ file, line: f.line, commands, files, bareHnsim: false });
    }
  }
  return out;
}

/** A synopsis mark: brackets, an ellipsis, alternatives, `<…>` or an UPPERCASE placeholder. */
const SYNOPSIS = /[[\]…|<>]|(^|\s)[A-Z][A-Z0-9_]*(:[A-Z]+)?(\s|$)|ADDR:PORT/;

/** Inline `npx hnsim …` commands of the pages' sentences (whole ones: run), and references. */
export function pageInline(): { commands: DocCommand[]; references: DocReference[] } {
  const commands: DocCommand[] = [];
  const references: DocReference[] = [];
  for (const file of pages()) {
    const { prose } = fences(readFileSync(join(root, file), 'utf8'));
    // a span may continue on the next line: join each paragraph line with the next
    for (let k = 0; k < prose.length; k++) {
      const { line, text } = prose[k]!;
      const joined = text + (prose[k + 1] && prose[k + 1]!.line === line + 1 ? ' ' + prose[k + 1]!.text : '');
      for (const m of joined.matchAll(/`((?:npx )?hnsim(?: [^`]*)?)`/g)) {
        if (m.index! >= text.length) continue; // found again from the next line
        const span = m[1]!.replace(/\s+/g, ' ');
        if (span.startsWith('npx hnsim') && !SYNOPSIS.test(span.slice(10))) {
          commands.push(command({ file, line }, span, []));
          continue;
        }
        const words = span.replace(/^npx /, '').split(/\s+/);
        references.push({
          file,
          line,
          text: span,
          command: words[1] !== undefined && /^[a-z]+$/.test(words[1]) ? words[1] : undefined,
          options: [...span.matchAll(/(?:^|[\s[|])(--[a-z][a-z-]*|-[a-zA-Z])\b/g)].map((o) => o[1]!),
        });
      }
    }
  }
  return { commands, references };
}

// ---------------------------------------------------------------------------------------------
// Help texts

/** `hnsim --help` and every `hnsim CMD --help`, by name (`hnsim`, `hnsim run`, …). */
export async function helpTexts(): Promise<Map<string, string>> {
  const main = await runHnsim(['--help']);
  const out = new Map([['hnsim --help', main.stdout]]);
  const names = [...main.stdout.matchAll(/^ {2}([a-z]+) {2,}/gm)]
    .map((m) => m[1]!)
    .filter((n) => n !== 'help');
  for (const name of names) out.set(`hnsim ${name} --help`, (await runHnsim([name, '--help'])).stdout);
  return out;
}

/** The example command lines of a help text (2-space indented lines running hnsim). */
export function helpBlock(name: string, text: string, files: ReadonlyMap<string, string>): DocBlock {
  const lines = text.split('\n');
  const commands: DocCommand[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^ {2}(\S.*)$/.exec(lines[i]!);
    if (!m || m[1]!.startsWith('-')) continue;
    let cmd = m[1]!;
    const line = i + 1;
    while (cmd.endsWith('\\') && i + 1 < lines.length) cmd += '\n' + lines[++i]!.trim();
    if (!/^(\S+=\S+\s+)*hnsim\s|\|\s*hnsim\s/.test(cmd.replace(/\\\n/g, ' '))) continue;
    // an aside after the command, "  (…)", is not part of it
    cmd = cmd.replace(/\s{2,}\(.*\)$/, '');
    commands.push(command({ file: name, line }, cmd, []));
  }
  return { file: name, line: 1, commands, files, bareHnsim: true };
}

/** The `--options` of a help text's `Usage:` lines that its Options section does not describe. */
export function undescribedOptions(text: string): string[] {
  const usage: string[] = [];
  const lines = text.split('\n');
  let i = lines.findIndex((l) => l.startsWith('Usage: '));
  for (; i >= 0 && i < lines.length && lines[i]!.trim() !== ''; i++) usage.push(lines[i]!);
  // every --option of an Options line (one that starts with "  -")
  const described = new Set(
    lines.filter((l) => /^ {2}-/.test(l)).flatMap((l) => [...l.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0])),
  );
  const wanted = new Set(
    usage.flatMap((l) =>
      [...l.matchAll(/\[(--[a-z][a-z-]*)|(?:^|\s)(--[a-z][a-z-]*)/g)].map((m) => m[1] ?? m[2]!),
    ),
  );
  return [...wanted].filter((o) => !described.has(o));
}

// ---------------------------------------------------------------------------------------------
// Running

/** What one command line did. */
export interface Ran {
  readonly command: DocCommand;
  /** Exit status, or undefined when the shell never reached the line. */
  readonly status: number | undefined;
  readonly stdout: string;
  readonly stderr: string;
  /** An earlier hnsim line of the block was not run (only parsed): what it shows is not checked. */
  readonly afterUnrun: boolean;
}

/** The CLI as one process (test/docs/cli-server.ts) and the client an `hnsim` line runs. */
export interface Cli {
  readonly socket: string;
  readonly client: string;
  stop(): void;
}

/** The client: hands argv, environment, folder and stdin to the CLI process, prints its answer. */
const CLIENT = `import { connect } from 'node:net';
const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'HNSIM_DOCS_SOCKET'));
const socket = connect(process.env.HNSIM_DOCS_SOCKET);
socket.end(JSON.stringify({ argv: process.argv.slice(2), env, cwd: process.cwd(), stdin: Buffer.concat(chunks).toString('base64') }) + '\\n');
let text = '';
socket.setEncoding('utf8');
socket.on('data', (t) => (text += t));
socket.on('end', () => {
  const r = JSON.parse(text);
  process.stdout.write(Buffer.from(r.stdout, 'base64'));
  process.stderr.write(Buffer.from(r.stderr, 'base64'));
  process.exitCode = r.status;
});
`;

/** Start the CLI process (once per test file: `stop()` it after). */
export async function startCli(): Promise<Cli> {
  const dir = mkdtempSync(join(tmpdir(), 'hnsim-cli-'));
  const socket = join(dir, 'cli.sock');
  const client = join(dir, 'client.mjs');
  writeFileSync(client, CLIENT);
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(root, 'test', 'docs', 'cli-server.ts'), socket],
    {
      cwd: root,
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`test/docs/cli-server.ts exited (${code})`)));
  });
  return {
    socket,
    client,
    stop() {
      child.stdin!.end();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A folder holding `npx` (and, for help texts, `hnsim`): `npx hnsim …` and `hnsim …` run the CLI
 * process's `main`, except a server (`serve --listen`) and `wine`, which run bin/hnsim.js itself
 * (they live on after their first line, or take signals); the PATH the lines see.
 */
function shims(dir: string, bareHnsim: boolean, cli: Cli): string {
  const shimDir = join(dir, '.bin');
  mkdirSync(shimDir, { recursive: true });
  const node = JSON.stringify(process.execPath);
  const run =
    `case " $* " in *" --listen "*|" wine "*) exec ${node} ${JSON.stringify(bin)} "$@" ;; esac\n` +
    `exec ${node} ${JSON.stringify(cli.client)} "$@"\n`;
  writeFileSync(
    join(shimDir, 'npx'),
    `#!/bin/sh\nif [ "$1" != hnsim ]; then echo "docs test: only 'npx hnsim' runs here, not npx $1" >&2; exit 127; fi\nshift\n` +
      run,
  );
  chmodSync(join(shimDir, 'npx'), 0o755);
  if (bareHnsim) {
    writeFileSync(join(shimDir, 'hnsim'), `#!/bin/sh\n${run}`);
    chmodSync(join(shimDir, 'hnsim'), 0o755);
  }
  // PATH without any other hnsim: a bare `hnsim` in a page must fail as it does in a checkout
  const rest = (process.env.PATH ?? '').split(delimiter).filter((d) => d && !existsSync(join(d, 'hnsim')));
  return [shimDir, ...rest].join(delimiter);
}

/** Start `hnsim serve --listen 127.0.0.1:0`; its port and how to stop it. */
async function startServer(): Promise<{ port: number; stop(): void }> {
  const child = spawn(process.execPath, [bin, 'serve', '--listen', '127.0.0.1:0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (t: string) => {
      out += t;
      const m = /^hnsim: listening on 127\.0\.0\.1:(\d+)\n/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`hnsim serve --listen exited (${code})`)));
  });
  return { port, stop: () => child.kill('SIGTERM') };
}

const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Run a block's `run` commands in one sh in `dir` (made fresh by the caller), its files written
 * there with `scenarios/` linked in; `env` is added to the environment.
 */
export async function runBlock(
  block: DocBlock,
  dir: string,
  cli: Cli,
  options: {
    readonly env?: Readonly<Record<string, string>>;
    readonly modes?: (c: DocCommand) => boolean;
  } = {},
): Promise<Ran[]> {
  const chosen = block.commands.filter((c) => (options.modes ? options.modes(c) : c.mode === 'run'));
  if (chosen.length === 0) return [];
  for (const [name, text] of block.files) writeFileSync(join(dir, name), text);
  if (!existsSync(join(dir, 'scenarios'))) symlinkSync(join(root, 'scenarios'), join(dir, 'scenarios'));
  const state = join(dir, '.doc');
  mkdirSync(state, { recursive: true });
  const server = chosen.some((c) => c.text.includes('127.0.0.1:PORT')) ? await startServer() : undefined;
  const script: string[] = [`cd ${q(dir)} || exit 99`];
  chosen.forEach((c, i) => {
    const text = server ? c.text.split('127.0.0.1:PORT').join(`127.0.0.1:${server.port}`) : c.text;
    const [out, err, st] = ['out', 'err', 'status'].map((k) => q(join(state, `${k}.${i}`)));
    script.push(`# ${c.file}:${c.line}`);
    if (c.server) {
      // a server: until its first line, then SIGTERM (npx execs node: $! is the server)
      script.push(
        `${text.replace(/\s+#[^'"]*$/, '')} >${out} 2>${err} </dev/null &`,
        `pid=$!; n=0; while [ ! -s ${out} ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n+1)); done`,
        `kill -TERM $pid 2>/dev/null; wait $pid; echo $? >${st}`,
      );
    } else {
      script.push(`{ ${text}\n} >${out} 2>${err} </dev/null`, `echo $? >${st}`);
    }
  });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...options.env,
    PATH: shims(dir, block.bareHnsim, cli),
    HNSIM_DOCS_SOCKET: cli.socket,
  };
  delete env.NO_COLOR;
  try {
    spawnSync('sh', ['-c', script.join('\n')], { cwd: dir, env, stdio: 'ignore', timeout: 600_000 });
  } finally {
    server?.stop();
  }
  const read = (k: string, i: number): string => {
    const p = join(state, `${k}.${i}`);
    return existsSync(p) ? readFileSync(p, 'utf8') : '';
  };
  const unrun = (c: DocCommand): boolean =>
    block.commands.some((d) => d.line < c.line && d.hnsim && !chosen.includes(d));
  return chosen.map((c, i) => {
    const st = read('status', i).trim();
    return {
      command: c,
      status: st === '' ? undefined : Number(st),
      stdout: read('out', i),
      stderr: read('err', i),
      afterUnrun: unrun(c),
    };
  });
}

/** Why `ran` is not what its page says (wrong exit, an example line not printed), or undefined. */
export function mismatch(ran: Ran): string | undefined {
  const { command: c } = ran;
  const where = `${c.file}:${c.line}: ${c.text.replace(/\\\n\s*/g, '')}`;
  if (ran.status === undefined) return `${where}\n  did not run (an earlier line ended the shell)`;
  if (ran.status !== c.exit) {
    return `${where}\n  exited ${ran.status}, the page says ${c.exit}\n  stderr: ${ran.stderr.trim().slice(0, 800)}`;
  }
  // what a line shows may depend on an earlier line that was only parsed
  if (ran.afterUnrun) return undefined;
  const printed = (ran.stdout + ran.stderr).split('\n').map((l) => l.trimEnd());
  let from = 0;
  for (const want of c.output.map((l) => l.trimEnd()).filter((l) => l.trim() !== '')) {
    const re = new RegExp(
      '^' +
        want
          .trim()
          .split(/(…|PORT|\s+)/)
          .map((p) =>
            p === '…'
              ? '.*'
              : p === 'PORT'
                ? '\\d+'
                : /^\s+$/.test(p)
                  ? '\\s+'
                  : p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
          )
          .join('') +
        '$',
    );
    const at = printed.findIndex((l, k) => k >= from && re.test(l.trim()));
    if (at < 0)
      return `${where}\n  the page shows "${want.trim()}", not printed:\n${printed.join('\n').slice(0, 2000)}`;
    from = at + 1;
  }
  return undefined;
}

/**
 * The parse check of a command the test does not run: each hnsim invocation with `--help` after
 * its command word (before `--` for wine) must exit 0, i.e. the command and its options exist.
 */
export async function parseCheck(c: DocCommand): Promise<string | undefined> {
  for (const argv of c.argvs) {
    const [cmd, ...rest] = argv;
    const args = cmd === undefined || cmd.startsWith('-') ? [...argv, '--help'] : [cmd, '--help', ...rest];
    const r = await runHnsim(args);
    if (r.status !== 0)
      return `${c.file}:${c.line}: ${c.text}\n  hnsim ${args.join(' ')} → exit ${r.status}: ${r.stderr.trim()}`;
  }
  return undefined;
}

/**
 * The options a help text names that its command refuses (a bad command line with them, also with
 * a scenario FILE for the views), leaving out what it quotes of other programs (`'hnsim serve
 * --listen'`, `'wineserver -k'`) and the rest of a line from another command's name on (`hnsim
 * trace FILE … at --level`).
 */
/** Other programs help texts name with their own options. */
const OTHER_PROGRAMS = ['wineserver', 'go test', 'kill', 'apt-get'].join('|');

export async function refusedOptions(cmd: string, text: string): Promise<string[]> {
  const own = text
    .replace(/'[^'\n]*'/g, ' ')
    .split('\n')
    .map((l) => l.replace(new RegExp(`\\b(hnsim (?!${cmd}\\b)[a-z]+|${OTHER_PROGRAMS})\\b.*$`), ''))
    .join('\n');
  const options = new Set(
    [...own.matchAll(/(?:^|[\s[(,|])(--[a-z][a-z-]*|-[a-zA-Z])(?![\w-])/g)].map((m) => m[1]!),
  );
  const refused: string[] = [];
  for (const o of options) {
    // refused when the command calls it unknown, also for a view of a FILE (whose options differ)
    let known = false;
    for (const args of [
      [cmd, '--help', o],
      [cmd, 'no-such-scenario.yaml', o],
    ]) {
      const r = await runHnsim(args);
      if (r.status === 0 || !/Unknown option/i.test(r.stderr)) known = true;
      if (known) break;
    }
    if (!known) refused.push(o);
  }
  return refused;
}
