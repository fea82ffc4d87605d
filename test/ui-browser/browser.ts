/**
 * The browser tests' and benchmarks' browser (issue 18): Debian's Chromium found on this machine
 * (`/usr/bin/chromium`, or the file HNSIM_CHROMIUM names), launched headless by playwright-core
 * (which downloads nothing: it only drives the executable given), and the page opened either as
 * `hnsim ui FILE --port 0` serves it (a child process; its URL read from its stdout) or as the
 * static site `hnsim ui FILE --export DIR` writes (file://). Nothing here imports vitest, so
 * bench/ui.bench.ts uses it too; test/ui-browser/suite.ts adds the skip-or-fail and the baselines.
 *
 *   const browser = await launchChromium();
 *   const served = await serveUi('scenarios/quick-start.yaml');
 *   const page = await openPage(browser, served.url);   // waits for body[data-ready="1"]
 *   …
 *   await page.context().close(); await served.close(); await browser.close();
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

/** The package root, and the command the tests run (bin/hnsim.js picks dist/ or the sources). */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const HNSIM = join(ROOT, 'bin', 'hnsim.js');

/** CI sets it: a missing Chromium fails the suite instead of skipping it. */
export const UI_REQUIRED = process.env['HNSIM_UI_REQUIRED'] === '1';

/** Where Debian's package puts the browser (a shell script that starts the real binary). */
export const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/** The fixed window every test and benchmark uses, so pictures and timings compare. */
export const VIEWPORT = { width: 1280, height: 800 } as const;

/** The Chromium executable: HNSIM_CHROMIUM when set, else Debian's; undefined when not there. */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const path = env['HNSIM_CHROMIUM'] || DEBIAN_CHROMIUM;
  try {
    if (!statSync(path).isFile()) return undefined;
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    return undefined;
  }
}

/** Why the browser tests cannot run here (two lines: what, and what to install), or undefined. */
export function chromiumMissing(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (chromiumPath(env) !== undefined) return undefined;
  const where = env['HNSIM_CHROMIUM']
    ? `HNSIM_CHROMIUM=${env['HNSIM_CHROMIUM']} is not an executable file`
    : `${DEBIAN_CHROMIUM} is missing`;
  return (
    `Chromium not found: ${where}.\n` +
    'Install it with `apt-get install chromium` (Debian; .ci/run does), or set HNSIM_CHROMIUM to a Chromium or Chrome executable.'
  );
}

/**
 * Chromium, headless, with what makes its pictures repeatable: no GPU (software rendering), sRGB,
 * font hinting off and grey-scale anti-aliasing, no scroll bars. `--no-sandbox` when running as
 * root (Chromium refuses to start its sandbox as root; CI runs as root).
 */
export async function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (executablePath === undefined) throw new Error(chromiumMissing());
  const root = process.getuid?.() === 0;
  return chromium.launch({
    executablePath,
    headless: true,
    chromiumSandbox: !root,
    args: [
      ...(root ? ['--no-sandbox'] : []),
      '--disable-gpu',
      '--force-color-profile=srgb',
      '--font-render-hinting=none',
      '--disable-lcd-text',
      '--hide-scrollbars',
      '--disable-dev-shm-usage',
    ],
  });
}

export interface PageOptions {
  /** `prefers-color-scheme` (default light). */
  readonly colorScheme?: 'light' | 'dark';
  /** Wait for `body[data-ready="1"]` (a page that says `error` throws its message) (default true; a benchmark measures it itself). */
  readonly waitReady?: boolean;
  /** How long to wait for the page to be ready (default 60 s: the 50-node scenario on a busy machine). */
  readonly timeoutMs?: number;
  /** Runs on the new page before it navigates (a benchmark starts its counters there). */
  readonly beforeNavigation?: (page: Page) => Promise<void>;
}

/**
 * A new page in its own context — the fixed viewport, device scale factor 1, reduced motion (the
 * page's animations off), the colour scheme asked for — navigated to `url`. Messages the page logs
 * as errors and uncaught exceptions are kept on `errors` (a test can expect none).
 */
export async function openPage(
  browser: Browser,
  url: string,
  opts: PageOptions = {},
): Promise<Page & { readonly errors: string[] }> {
  const context = await browser.newContext({
    viewport: VIEWPORT,
    deviceScaleFactor: 1,
    colorScheme: opts.colorScheme ?? 'light',
    reducedMotion: 'reduce',
    locale: 'en-US',
    timezoneId: 'UTC',
  });
  const page = (await context.newPage()) as Page & { errors: string[] };
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(`${e.name}: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') page.errors.push(m.text());
  });
  // nothing may come from the network: only the page's own origin (or file://) is let through
  const origin = new URL(url).origin;
  await context.route('**/*', (route) => {
    const u = new URL(route.request().url());
    if (u.protocol === 'file:' || u.protocol === 'data:' || u.origin === origin) return route.continue();
    page.errors.push(`the page fetched ${u.href} from the network`);
    return route.abort();
  });
  await opts.beforeNavigation?.(page);
  await page.goto(url);
  if (opts.waitReady !== false) await waitReady(page, opts.timeoutMs);
  return page;
}

/** Waits until the page says it is ready (the picture drawn and the first event shown). */
export async function waitReady(page: Page, timeoutMs = 60_000): Promise<void> {
  try {
    // expressions run in the page (this file is also type-checked without the DOM's types)
    await page.waitForFunction("['1', 'error'].includes(document.body?.dataset.ready)", undefined, {
      timeout: timeoutMs,
    });
  } catch (e) {
    const errors = (page as Page & { errors?: string[] }).errors ?? [];
    throw new Error(
      `the page at ${page.url()} did not become ready (body[data-ready="1"]) within ${timeoutMs} ms` +
        (errors.length ? `; page errors: ${errors.join(' | ')}` : '') +
        `: ${(e as Error).message.split('\n')[0]}`,
    );
  }
  if ((await page.evaluate('document.body.dataset.ready')) === 'error') {
    const why = (await page.evaluate("document.querySelector('#error')?.textContent ?? ''")) as string;
    throw new Error(`the page at ${page.url()} could not show the lesson: ${why}`);
  }
}

/** A running `hnsim ui FILE --port 0`. */
export interface Served {
  readonly url: string;
  /** What the command printed (its URL line). */
  readonly stdout: string;
  /** SIGTERM, then its exit (the command stops serving on SIGTERM, exit 0). */
  close(): Promise<number | null>;
}

/** Where a scenario of this package is (`scenarios/NAME`). */
export const scenario = (name: string): string => join(ROOT, 'scenarios', name);

/**
 * Runs `hnsim ui FILE --port 0` as a child and resolves once it has printed its URL
 * (`http://127.0.0.1:PORT/`). `env` adds to this process's environment (HNSIM_RUN=dist: the
 * build, as the benchmarks run it).
 */
export function serveUi(
  file?: string,
  env: Record<string, string> = {},
  timeoutMs = 120_000,
): Promise<Served> {
  const args = [HNSIM, 'ui', ...(file === undefined ? [] : [resolve(file)]), '--port', '0'];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (c: string) => (stderr += c));
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  return new Promise<Served>((resolveServed, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`hnsim ui printed no URL within ${timeoutMs} ms; stdout: ${stdout} stderr: ${stderr}`),
      );
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(
        new Error(`hnsim ui ${args.slice(2).join(' ')} exited (${code}) before serving: ${stderr || stdout}`),
      );
    });
    child.stdout.on('data', (c: string) => {
      stdout += c;
      const m = /http:\/\/127\.0\.0\.1:\d+\//.exec(stdout);
      if (!m) return;
      clearTimeout(timer);
      resolveServed({ url: m[0], stdout, close: () => stop(child, exited) });
    });
  });
}

async function stop(child: ChildProcess, exited: Promise<number | null>): Promise<number | null> {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  return exited;
}

/** The result of a finished child command. */
export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `node bin/hnsim.js ARGS…` to its end. */
export function hnsim(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, [HNSIM, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

/** `hnsim ui FILE --export DIR`, then the file:// URL of DIR/index.html. */
export async function exportUi(file: string, dir: string, env: Record<string, string> = {}): Promise<string> {
  const r = await hnsim(['ui', resolve(file), '--export', dir], env);
  if (r.code !== 0) throw new Error(`hnsim ui --export exited ${r.code}: ${r.stderr || r.stdout}`);
  return pathToFileURL(join(resolve(dir), 'index.html')).href;
}
