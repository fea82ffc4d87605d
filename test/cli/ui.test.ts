// `hnsim ui` (issue 18): the page served on 127.0.0.1 (port 0: a free one) with the scenario handed
// over as lesson-data.js, and --export writing the same files as a static site. The page itself is
// the browser tests' (test/ui-browser/); here, what the command serves and writes. From the sources
// (as here, in-process) the command builds the page from src/ first.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { cmdUi } from '../../src/cli/ui.js';
import { loadScenario, ScenarioLoadError } from '../../src/scenario/index.js';
import { root, runHnsim } from './hnsim.js';
import { stateFile } from './state-file.js';

const dirs: string[] = [];
const fresh = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'hnsim-ui-test-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const QUICKSTART = join(root, 'scenarios', 'quick-start.yaml');
const DSR = join(root, 'scenarios', 'dsr.yaml');

/** What lesson-data.js sets, run as the browser runs it (a classic script). */
function lessonDataOf(script: string): Record<string, unknown> {
  const g: Record<string, unknown> = {};
  g.globalThis = g;
  runInNewContext(script, g);
  return g.HNSIM_LESSON_DATA as Record<string, unknown>;
}

interface Got {
  status: number;
  type: string;
  body: string;
}

function get(url: string, method = 'GET', host?: string): Promise<Got> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = httpRequest({ host: host ?? u.hostname, port: u.port, path: u.pathname, method }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** `hnsim ui ARGS` in-process, serving until `stop` aborts; resolves once its URL is printed. */
async function startUi(args: string[]) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const stop = new AbortController();
  const io = { stdin: Readable.from(['']), stdout, stderr, isTTY: false, env: {} };
  const exit = cmdUi(args, io, stop.signal);
  const url = await new Promise<string>((resolve, reject) => {
    stdout.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      const m = /at (http:\/\/127\.0\.0\.1:\d+\/) \(Ctrl-C to stop\)/.exec(out);
      if (m) resolve(m[1]!);
    });
    void exit.then((code) => reject(new Error(`hnsim ui exited ${code}: ${err}`)));
  });
  return { url, out: () => out, stop: () => stop.abort(), exit };
}

describe('hnsim ui: serving', () => {
  it('serves the quick start on 127.0.0.1 (port 0: a free one): the page, its assets and lesson-data.js', async () => {
    const ui = await startUi(['--port', '0']);
    try {
      expect(ui.out()).toMatch(
        /^hnsim: ui: serving quick-start\.yaml at http:\/\/127\.0\.0\.1:\d+\/ \(Ctrl-C to stop\)\n$/,
      );
      expect(Number(new URL(ui.url).port)).toBeGreaterThan(0);
      const index = await get(ui.url);
      expect(index.status).toBe(200);
      expect(index.type).toBe('text/html; charset=utf-8');
      // the data before the page's script, both relative (file:// and any folder)
      expect(index.body.indexOf('<script src="lesson-data.js">')).toBeGreaterThan(0);
      expect(index.body.indexOf('<script src="app.js">')).toBeGreaterThan(
        index.body.indexOf('lesson-data.js'),
      );
      expect(index.body).not.toMatch(/(src|href)="(https?:)?\/\//);
      expect((await get(ui.url + 'index.html')).body).toBe(index.body);
      const app = await get(ui.url + 'app.js');
      expect(app.status).toBe(200);
      expect(app.type).toBe('text/javascript; charset=utf-8');
      expect(app.body.length).toBeGreaterThan(100_000);
      const css = await get(ui.url + 'app.css');
      expect(css.status).toBe(200);
      expect(css.type).toBe('text/css; charset=utf-8');
      expect(css.body).toContain('light-dark(');
      expect(css.body).toContain(':root[data-theme=dark]');
      const data = await get(ui.url + 'lesson-data.js');
      expect(data.status).toBe(200);
      expect(lessonDataOf(data.body)).toEqual({
        kind: 'scenario',
        file: 'scenarios/quick-start.yaml',
        text: readFileSync(QUICKSTART, 'utf8'),
      });
      expect((await get(ui.url + 'nope.js')).status).toBe(404);
      expect((await get(ui.url + '../package.json')).status).toBe(404);
      expect((await get(ui.url, 'POST')).status).toBe(405);
      expect((await get(ui.url + 'app.js', 'HEAD')).body).toBe('');
    } finally {
      ui.stop();
    }
    expect(await ui.exit).toBe(0);
  });

  it('listens on 127.0.0.1 only: another address of this machine is refused', async () => {
    const other = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal);
    const ui = await startUi([DSR]);
    try {
      expect(ui.out()).toContain('serving dsr.yaml at http://127.0.0.1:');
      expect((await get(ui.url + 'lesson-data.js')).body).toContain(
        JSON.stringify(readFileSync(DSR, 'utf8')),
      );
      if (other)
        await expect(get(ui.url, 'GET', other.address)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      await expect(get(ui.url, 'GET', '::1')).rejects.toBeTruthy();
    } finally {
      ui.stop();
    }
    expect(await ui.exit).toBe(0);
  });

  it('a port in use: exit 1 with the reason', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as AddressInfo).port;
    try {
      const r = await runHnsim(['ui', '--port', String(port)]);
      expect(r.status).toBe(1);
      expect(r.stderr).toBe(`hnsim: ui: cannot serve: port ${port} on 127.0.0.1 is in use\n`);
    } finally {
      taken.close();
    }
  });
});

describe('hnsim ui --export', () => {
  it('writes the static site with the scenario text inside, relative links only', async () => {
    const dir = join(fresh(), 'site');
    const r = await runHnsim(['ui', DSR, '--export', dir]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`wrote index.html, app.js, app.css, lesson-data.js to ${dir}`);
    expect(r.stdout).toContain(`file://${join(dir, 'index.html')}`);
    expect(readdirSync(dir).sort()).toEqual(['app.css', 'app.js', 'index.html', 'lesson-data.js']);
    expect(lessonDataOf(readFileSync(join(dir, 'lesson-data.js'), 'utf8'))).toEqual({
      kind: 'scenario',
      file: DSR,
      text: readFileSync(DSR, 'utf8'),
    });
    const app = readFileSync(join(dir, 'app.js'), 'utf8');
    // the browser bundle: no Node module left to load, no module syntax (file:// refuses modules)
    expect(app).not.toMatch(/\bfrom\s*["']node:|\brequire\(\s*["']node:|\bimport\(\s*["']node:/);
    expect(app).not.toMatch(/^\s*(import|export)\s/m);
    expect(readFileSync(join(dir, 'index.html'), 'utf8')).not.toMatch(/type="module"/);
  });

  it('a state file is handed over as its JSON', async () => {
    const dir = fresh();
    const file = stateFile(dir, 'node.json', [['web', '10.244.1.2', []]]);
    const r = await runHnsim(['ui', file, '--export', join(dir, 'out')]);
    expect(r.status).toBe(0);
    const data = lessonDataOf(readFileSync(join(dir, 'out', 'lesson-data.js'), 'utf8'));
    expect(data).toEqual({ kind: 'state', file, state: JSON.parse(readFileSync(file, 'utf8')) });
  });

  it('without a file: the quick-start scenario', async () => {
    const dir = fresh();
    expect((await runHnsim(['ui', '--export', dir])).status).toBe(0);
    const data = lessonDataOf(readFileSync(join(dir, 'lesson-data.js'), 'utf8'));
    expect(data.text).toBe(readFileSync(QUICKSTART, 'utf8'));
  });
});

describe('hnsim ui: refusals', () => {
  it('a missing file: exit 3, the file named', async () => {
    const r = await runHnsim(['ui', 'nope.yaml', '--export', fresh()]);
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(/^hnsim: nope\.yaml:1:1: cannot read the file: ENOENT/);
    expect(r.stdout).toBe('');
  });

  it("a bad scenario: exit 3 with the loader's message", async () => {
    const dir = fresh();
    const file = join(dir, 'bad.yaml');
    const text = 'hnsim: 1\nname: bad\nhosts: 3\n';
    writeFileSync(file, text);
    let expected = '';
    try {
      loadScenario(text, file);
    } catch (e) {
      if (!(e instanceof ScenarioLoadError)) throw e;
      expected = e.message;
    }
    expect(expected).not.toBe('');
    const r = await runHnsim(['ui', file, '--export', join(dir, 'out')]);
    expect(r.status).toBe(3);
    expect(r.stderr).toBe(
      expected
        .split('\n')
        .map((l) => `hnsim: ${l}\n`)
        .join(''),
    );
    expect(readdirSync(dir)).toEqual(['bad.yaml']);
  });

  it.each([
    [['--port', 'abc'], '--port must be an integer 0..65535 (0 picks a free one), got "abc"'],
    [['--port', '65536'], '--port must be an integer 0..65535 (0 picks a free one), got "65536"'],
    [['--port', '-1'], "Option '--port' argument is ambiguous"],
    [['a.yaml', 'b.yaml'], 'unexpected argument "b.yaml"'],
    [['--export', 'x', '--port', '1'], '--port serves the page, --export writes it: not both'],
    [['--export', ''], '--export needs a folder'],
    [['--bogus'], "Unknown option '--bogus'"],
  ])('hnsim ui %j: exit 2', async (args, message) => {
    const r = await runHnsim(['ui', ...args]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`hnsim: ui: ${message}`);
    expect(r.stderr).toContain("(see 'hnsim ui --help')");
    expect(r.stdout).toBe('');
  });

  it('--help and help ui print the usage', async () => {
    const a = await runHnsim(['ui', '--help']);
    const b = await runHnsim(['help', 'ui']);
    expect(a.status).toBe(0);
    expect(a.stdout).toMatch(/^Usage: hnsim ui \[SCENARIO\.yaml \| STATE\.json\] \[--port N\]/);
    expect(b.stdout).toBe(a.stdout);
    expect((await runHnsim(['--help'])).stdout).toMatch(/\n {2}ui {11}A web page/);
  });
});
