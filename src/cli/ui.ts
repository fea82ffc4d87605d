/**
 * `hnsim ui [SCENARIO.yaml | STATE.json] [--port N] [--export DIR]` (issue 18): the web page that
 * shows a scenario's lesson — HNS attaching containers step by step, any object's JSON, a packet
 * clicked through the vSwitch. The simulator runs in the page (docs/ui.md says why); this command
 * only checks the file and hands it over as data: the built page (dist/ui: index.html, app.js,
 * app.css) plus a `lesson-data.js` that sets `globalThis.HNSIM_LESSON_DATA`. It serves them on
 * 127.0.0.1 until Ctrl-C, or with --export writes them to a folder (a static site that also works
 * from file://). Options are parsed here with node:util parseArgs, as `hnsim run` does.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { JsonObject } from '../core/json.js';
import type { LessonData } from '../ui/model/index.js';
import { CommandError, EXIT_OK, UsageError, write, type CliIo } from './args.js';

export const UI_OK = 0;
export const UI_FAILED = 1;
export const UI_USAGE = 2;
export const UI_INVALID_FILE = 3;

export const UI_USAGE_TEXT = `Usage: hnsim ui [SCENARIO.yaml | STATE.json] [--port N]
       hnsim ui [SCENARIO.yaml | STATE.json] --export DIR

A web page to watch HNS attach containers and to click a packet through the vSwitch: the
picture of the nodes (NICs, vSwitches, ports with their VFP layers, endpoints, compartments,
containers; the underlay, Linux nodes, services), a timeline of the scenario's events with
each step's narration and what it changed, any object's HNS JSON (v2 and v1), VFP rules,
ipconfig and route print, a packet's path hop by hop with the rule of each hop (explain,
reply and load-balancer branches a click away) and the scenario's truth tables. Without a
file, the quick-start scenario (scenarios/quick-start.yaml). The simulator runs in the page:
nothing is fetched from the network, in either mode (docs/ui.md).

Serves the page on 127.0.0.1 only and prints its URL, until Ctrl-C (SIGINT) or SIGTERM;
--export DIR writes the same page as a static site (index.html, app.js, app.css,
lesson-data.js) that any static web server or file://DIR/index.html shows. 'hnsim ui'
alone serves the quick start; 'hnsim ui scenarios/dsr.yaml --port 8080' another scenario.

  hnsim ui scenarios/quick-start.yaml --export lesson/

Options:
  --port N          The port on 127.0.0.1 (0..65535; default 0: a free one)
  --export DIR      Write the static site to DIR (created if missing) and exit
  -h, --help        Show this help

Keys on the page: Left/Right step, Space play or pause, + and - zoom, Shift+arrows pan,
Tab to a box and Enter to open it.

Exit status:
  0  served until Ctrl-C, or exported
  1  the page is not built (run 'npm run build'), the port is taken, DIR cannot be written
  2  bad command line
  3  the file cannot be read or is not a valid scenario (the loader's FILE:LINE:COL: PATH:
     message) or state file
`;

/** The quick-start scenario of this package (beside src/ and dist/, so both find it). */
const QUICKSTART = new URL('../../scenarios/quick-start.yaml', import.meta.url);
/** The built page (`npm run build`: bin/build-ui.js), beside src/ and dist/. */
const PAGE = new URL('../../dist/ui/', import.meta.url);
const PAGE_FILES = ['index.html', 'app.js', 'app.css'] as const;

const TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

/**
 * lesson-data.js: what the page gives the model (src/ui/model's LessonData), as a classic script
 * (not fetched JSON), so the page also works from file://.
 */
export function lessonScript(data: LessonData): string {
  // JSON is a JavaScript expression; `<` escaped so no `</script>` can appear even when inlined
  const json = JSON.stringify(data).replace(/</g, '\\u003c');
  return `// Written by hnsim ui: the lesson's data (the simulator in app.js runs it).\nglobalThis.HNSIM_LESSON_DATA = ${json};\n`;
}

/** Read FILE (or the quick-start scenario) and check it as `hnsim run` and `hnsim show` would. */
async function lessonData(file: string | undefined): Promise<LessonData> {
  const path = file ?? fileURLToPath(QUICKSTART);
  const shown = file ?? 'scenarios/quick-start.yaml';
  const { loadScenario, ScenarioLoadError } = await import('../scenario/index.js');
  let text: string;
  try {
    if (statSync(path).isDirectory()) throw new Error('it is a directory');
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new InvalidFile(`${shown}:1:1: cannot read the file: ${(e as Error).message}`);
  }
  const { isStateText } = await import('./views.js');
  // a state file's text is a JSON object (isStateText)
  if (isStateText(text)) return { kind: 'state', file: shown, state: JSON.parse(text) as JsonObject };
  try {
    loadScenario(text, shown);
  } catch (e) {
    if (e instanceof ScenarioLoadError) throw new InvalidFile(e.message);
    throw e;
  }
  return { kind: 'scenario', file: shown, text };
}

class InvalidFile {
  constructor(readonly message: string) {}
}

/**
 * The page's files. The built CLI (dist/cli) serves dist/ui, which `npm run build` wrote with it; the
 * sources (a checkout running through tsx, as bin/hnsim.js does when dist/ is stale) build the page
 * from src/ first (bin/build-ui.js into a temporary folder, about a second), so the page always shows
 * the code that runs.
 */
async function pageFiles(): Promise<Map<string, Buffer>> {
  const here = fileURLToPath(import.meta.url);
  const fromSources = /[\\/]src[\\/]cli[\\/]ui\.ts$/.test(here);
  let dir = fileURLToPath(PAGE);
  let temp: string | undefined;
  if (fromSources) {
    temp = mkdtempSync(join(tmpdir(), 'hnsim-ui-'));
    const script = fileURLToPath(new URL('../../bin/build-ui.js', import.meta.url));
    // a computed specifier: the CLI bundle must not take the build script in
    const { buildUi } = (await import(pathToFileURL(script).href)) as {
      buildUi: (outdir: string) => Promise<unknown>;
    };
    await buildUi(temp);
    dir = temp;
  }
  try {
    const files = new Map<string, Buffer>();
    for (const f of PAGE_FILES) {
      const path = join(dir, f);
      if (!existsSync(path))
        throw new CommandError(`ui: the page is not built (${path} is missing): run \`npm run build\``);
      files.set(f, readFileSync(path));
    }
    return files;
  } finally {
    if (temp) rmSync(temp, { recursive: true, force: true });
  }
}

export async function cmdUi(
  args: string[],
  io: CliIo,
  /** Stops a serving command (tests; the command itself stops on SIGINT and SIGTERM). */
  stop?: AbortSignal,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        port: { type: 'string' },
        export: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    throw new UsageError(
      `ui: ${(e as Error).message.split('\n')[0]!.replace(/\. To specify a positional.*$/, '')}`,
      'ui',
    );
  }
  const { values: flags, positionals } = parsed;
  if (flags.help) {
    await write(io.stdout, UI_USAGE_TEXT);
    return EXIT_OK;
  }
  if (positionals.length > 1) throw new UsageError(`ui: unexpected argument "${positionals[1]}"`, 'ui');
  if (flags.export !== undefined && flags.port !== undefined)
    throw new UsageError('ui: --port serves the page, --export writes it: not both', 'ui');
  if (flags.export === '') throw new UsageError('ui: --export needs a folder', 'ui');
  let port = 0;
  if (flags.port !== undefined) {
    if (!/^\d{1,5}$/.test(flags.port) || Number(flags.port) > 65535)
      throw new UsageError(
        `ui: --port must be an integer 0..65535 (0 picks a free one), got "${flags.port}"`,
        'ui',
      );
    port = Number(flags.port);
  }
  let data: LessonData;
  try {
    data = await lessonData(positionals[0]);
  } catch (e) {
    if (!(e instanceof InvalidFile)) throw e;
    await write(
      io.stderr,
      e.message
        .split('\n')
        .map((l) => `hnsim: ${l}\n`)
        .join(''),
    );
    return UI_INVALID_FILE;
  }
  const files = await pageFiles();
  files.set('lesson-data.js', Buffer.from(lessonScript(data)));
  if (flags.export !== undefined) return exportSite(io, flags.export, files);
  return serve(io, port, files, data, stop);
}

async function exportSite(io: CliIo, dir: string, files: ReadonlyMap<string, Buffer>): Promise<number> {
  try {
    mkdirSync(dir, { recursive: true });
    for (const [name, body] of files) writeFileSync(join(dir, name), body);
  } catch (e) {
    throw new CommandError(`ui: cannot write ${dir}: ${(e as Error).message}`);
  }
  const index = resolve(dir, 'index.html');
  await write(
    io.stdout,
    `hnsim: ui: wrote ${[...files.keys()].join(', ')} to ${dir}\n` +
      `open file://${index.startsWith('/') ? '' : '/'}${index.replace(/\\/g, '/')} or serve ${dir} with any static web server\n`,
  );
  return UI_OK;
}

function serve(
  io: CliIo,
  port: number,
  files: ReadonlyMap<string, Buffer>,
  data: LessonData,
  stop: AbortSignal | undefined,
): Promise<number> {
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    const name = path === '/' ? 'index.html' : path.slice(1);
    const body = files.get(name);
    const headers = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...headers, allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' });
      res.end('method not allowed\n');
      return;
    }
    if (!body) {
      res.writeHead(404, { ...headers, 'content-type': 'text/plain; charset=utf-8' });
      res.end(`not found: ${path}\n`);
      return;
    }
    res.writeHead(200, {
      ...headers,
      'content-type': TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream',
      'content-length': body.length,
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  const server = createServer(handle);
  return new Promise<number>((done) => {
    let finished = false;
    const end = (code: number) => {
      if (finished) return;
      finished = true;
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      stop?.removeEventListener('abort', onSignal);
      server.closeAllConnections();
      server.close(() => done(code));
    };
    const onSignal = () => end(UI_OK);
    server.once('error', (e: NodeJS.ErrnoException) => {
      const why = e.code === 'EADDRINUSE' ? `port ${port} on 127.0.0.1 is in use` : e.message;
      void write(io.stderr, `hnsim: ui: cannot serve: ${why}\n`).then(() => {
        finished = true;
        done(UI_FAILED);
      });
    });
    server.listen(port, '127.0.0.1', () => {
      const a = server.address() as AddressInfo;
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      if (stop?.aborted) return end(UI_OK);
      stop?.addEventListener('abort', onSignal);
      const what = data.kind === 'scenario' ? basename(data.file) : `state ${basename(data.file)}`;
      void write(io.stdout, `hnsim: ui: serving ${what} at http://127.0.0.1:${a.port}/ (Ctrl-C to stop)\n`);
    });
  });
}
