/**
 * The web page (`hnsim ui`, issue 18) in headless Chromium (Debian's, driven by playwright-core as
 * the browser tests drive it: test/ui-browser/browser.ts), served by `hnsim ui FILE --port 0` as
 * bin/hnsim.js runs it (the build when dist/ is fresh, else the sources, which build the page from
 * src/ first: the same page code either way, and the server's own start is not measured):
 *
 *   (a) the quick-start page ready: navigation start → the page's `hnsim:ready` mark (the picture
 *       drawn and the first event shown; the simulator records the lesson in the page first).
 *       Target ≤ 1000 ms;
 *   (b) one timeline step: `#next` clicked → the page's `hnsim:step` mark (the picture laid out and
 *       rendered for the next step), each step of the lesson forward. Target ≤ 50 ms;
 *   (c) a packet trace shown: the packet form submitted → the `hnsim:trace` mark (the trace
 *       computed and its hops rendered). Target ≤ 100 ms;
 *   (d) the 50-node scenario drawn: navigation start → `hnsim:ready` (the lesson recorded, its first
 *       step drawn) plus the last step's picture — all 50 nodes — laid out and drawn (the page's
 *       test API `go(last)` → its `hnsim:step` mark). Target ≤ 3000 ms.
 *
 * Each time is taken inside the page (performance.now() and the marks' own times), so the
 * DevTools protocol's round trips are not in it. Fresh browser context per page load (no cache:
 * `hnsim ui` serves with no-store), one untimed load first. Skipped, saying why, without Chromium.
 */
import type { CDPSession, Page } from 'playwright-core';
import { median, quantile, type Report } from './harness.js';
import {
  chromiumMissing,
  launchChromium,
  openPage,
  scenario,
  serveUi,
  waitReady,
} from '../test/ui-browser/browser.js';

type Chromium = Awaited<ReturnType<typeof launchChromium>>;

/**
 * A new page on `url`: navigation → `hnsim:ready` in ms (from the page's own clock), and with
 * `toLast` also the time `window.hnsimUi.go(last step)` takes to its `hnsim:step` mark (the whole
 * picture of the lesson's end laid out and drawn); each with the main thread's task time.
 */
async function loadMs(browser: Chromium, url: string, toLast = false): Promise<Load> {
  let cdp: CDPSession | undefined;
  const page = await openPage(browser, url, {
    waitReady: false,
    // the task-time counter starts when the domain is enabled: before the navigation
    beforeNavigation: async (p) => {
      cdp = await p.context().newCDPSession(p);
      await cdp.send('Performance.enable');
    },
  });
  try {
    await waitReady(page, 120_000);
    const ready = await page.evaluate(() => performance.getEntriesByName('hnsim:ready')[0]?.startTime);
    if (ready === undefined) throw new Error('the page is ready but made no hnsim:ready mark');
    const readyTask = await taskMs(cdp!);
    const last = toLast ? await timeToMark(page, 'step', 'last') : 0;
    const lastTask = toLast ? (await taskMs(cdp!)) - readyTask : 0;
    if (page.errors.length) throw new Error(`page errors: ${page.errors.join(' | ')}`);
    return { ready, last, readyTask, lastTask };
  } finally {
    await page.context().close();
  }
}

interface Load {
  readonly ready: number;
  readonly last: number;
  /** The page's main-thread task time (CPU, not wall) up to ready, and for the last step. */
  readonly readyTask: number;
  readonly lastTask: number;
}

/**
 * The renderer main thread's busy time since the page's Performance domain was enabled (ms): the
 * DevTools protocol's `TaskDuration` metric, a CPU-bound twin of the wall-clock figures that a
 * busy machine inflates less. A Web Worker's time (the page lays out with ELK in one) is not in it.
 */
async function taskMs(cdp: CDPSession): Promise<number> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return (metrics.find((m) => m.name === 'TaskDuration')?.value ?? NaN) * 1000;
}

/**
 * In the page: runs `act` and resolves the time from just before it to the next `hnsim:NAME` mark
 * (a PerformanceObserver sees the mark with its exact time).
 */
async function timeToMark(
  page: Page,
  name: 'step' | 'trace',
  act: 'next' | 'submit' | 'last',
): Promise<number> {
  return page.evaluate(
    ([mark, what]) =>
      new Promise<number>((resolve, reject) => {
        let t0 = 0;
        const timer = setTimeout(() => reject(new Error(`no ${mark} mark within 30 s`)), 30_000);
        const obs = new PerformanceObserver((list) => {
          const e = list.getEntries().find((x) => x.name === mark && x.startTime >= t0);
          if (!e) return;
          obs.disconnect();
          clearTimeout(timer);
          resolve(e.startTime - t0);
        });
        obs.observe({ type: 'mark' });
        t0 = performance.now();
        if (what === 'next') document.querySelector<HTMLButtonElement>('#next')!.click();
        else if (what === 'submit') document.querySelector<HTMLFormElement>('#packet')!.requestSubmit();
        else {
          const api = (window as unknown as { hnsimUi: { go(i: number): unknown } }).hnsimUi;
          void api.go(document.querySelectorAll('#steps li[data-step]').length - 1);
        }
      }),
    [`hnsim:${name}`, act] as const,
  );
}

function spread(values: readonly number[]): string {
  return `n ${values.length}, min ${Math.min(...values).toFixed(1)}, p95 ${quantile(values, 0.95).toFixed(1)}, max ${Math.max(...values).toFixed(1)} ms`;
}

export async function run(report: Report, opts: { quick?: boolean } = {}): Promise<void> {
  const missing = chromiumMissing();
  if (missing !== undefined) {
    process.stderr.write(`bench: ui: skipped — ${missing.replace(/\n\s*/g, ' ')}\n`);
    return;
  }
  const loads = opts.quick ? 3 : 7;
  const browser = await launchChromium();
  try {
    await measure(report, browser, loads, opts.quick === true);
  } finally {
    await browser.close();
  }
}

async function measure(
  report: Report,
  browser: Awaited<ReturnType<typeof launchChromium>>,
  loads: number,
  quickRun: boolean,
): Promise<void> {
  const quick = await serveUi(scenario('quick-start.yaml'));
  try {
    // (a) ready, after one untimed load
    await loadMs(browser, quick.url);
    const loaded: Load[] = [];
    for (let r = 0; r < loads; r++) loaded.push(await loadMs(browser, quick.url));
    const ready = loaded.map((l) => l.ready);
    report({
      name: 'quick-start page: navigation → ready, median',
      value: median(ready),
      unit: 'ms',
      target: { max: 1000 },
      note: `hnsim ui scenarios/quick-start.yaml, a new context per load, navigation start → the hnsim:ready mark (lesson recorded in the page, picture laid out and drawn, first event shown); ${spread(ready)}`,
    });
    report({
      name: 'quick-start page: main-thread task time to ready, median',
      value: median(loaded.map((l) => l.readyTask)),
      unit: 'ms',
      note: "the renderer main thread's busy time (DevTools TaskDuration) from navigation to ready: the CPU twin of the row above, less inflated on a busy machine",
    });

    // (b) every step forward, (c) traces, on one page
    const page = await openPage(browser, quick.url);
    const steps = await page.$$eval('#steps li[data-step]', (li) => li.length);
    const stepMs: number[] = [];
    for (let i = 1; i < steps; i++) stepMs.push(await timeToMark(page, 'step', 'next'));
    report({
      name: 'quick-start: one timeline step, median',
      value: median(stepMs),
      unit: 'ms',
      target: { max: 50 },
      note: `#next clicked → the hnsim:step mark, each of the ${steps - 1} steps forward; ${spread(stepMs)}`,
    });
    report({ name: 'quick-start: one timeline step, p95', value: quantile(stepMs, 0.95), unit: 'ms' });

    const requests = [
      { from: 'default/client', to: 'svc:default/web', port: '' },
      { from: 'default/client', to: '10.244.2.4', port: '8080' },
      { from: 'default/client', to: 'www.bing.com', port: '443' },
      { from: 'win-1', to: 'default/web-0', port: '8080' },
    ];
    const traceMs: number[] = [];
    const rounds = quickRun ? 2 : 5;
    for (let r = 0; r < rounds; r++) {
      for (const q of requests) {
        await page.fill('#packet [name=from]', q.from);
        await page.fill('#packet [name=to]', q.to);
        await page.fill('#packet [name=port]', q.port);
        traceMs.push(await timeToMark(page, 'trace', 'submit'));
      }
    }
    if (page.errors.length) throw new Error(`page errors: ${page.errors.join(' | ')}`);
    report({
      name: 'quick-start: a packet trace shown, median',
      value: median(traceMs),
      unit: 'ms',
      target: { max: 100 },
      note: `the packet form submitted → the hnsim:trace mark (traced in the page at the last step, hops rendered); ${requests.length} requests × ${rounds}; ${spread(traceMs)}`,
    });
    await page.context().close();
  } finally {
    await quick.close();
  }

  // (d) the 50-node scenario
  const fifty = await serveUi(scenario('fifty-nodes.yaml')).catch((e: Error) => e);
  try {
    if (fifty instanceof Error) {
      process.stderr.write(`bench: ui: the 50-node figure skipped — ${fifty.message.split('\n')[0]}\n`);
      return;
    }
    const fiftyLoads: Load[] = [];
    await loadMs(browser, fifty.url, true);
    for (let r = 0; r < (quickRun ? 1 : 3); r++) fiftyLoads.push(await loadMs(browser, fifty.url, true));
    const drawn = fiftyLoads.map((l) => l.ready + l.last);
    report({
      name: '50-node scenario: navigation → all nodes drawn, median',
      value: median(drawn),
      unit: 'ms',
      target: { max: 3000 },
      note: `hnsim ui scenarios/fifty-nodes.yaml, after one untimed load: navigation start → hnsim:ready (the lesson recorded in the page, the first step drawn), plus hnsimUi.go(last step) → its hnsim:step mark (the picture with all 50 nodes laid out and drawn); ${spread(drawn)}`,
    });
    report({
      name: '50-node scenario: navigation → ready, median',
      value: median(fiftyLoads.map((l) => l.ready)),
      unit: 'ms',
      note: 'of which: the lesson recorded (the scenario run in the page) and the first step drawn',
    });
    report({
      name: '50-node scenario: the last step drawn, median',
      value: median(fiftyLoads.map((l) => l.last)),
      unit: 'ms',
      note: 'of which: the picture of all 50 nodes laid out (ELK) and rendered',
    });
    report({
      name: '50-node scenario: main-thread task time, median',
      value: median(fiftyLoads.map((l) => l.readyTask + l.lastTask)),
      unit: 'ms',
      note: "the renderer main thread's busy time (DevTools TaskDuration) over both parts, ELK's worker not included",
    });
  } finally {
    if (!(fifty instanceof Error)) await fifty.close();
  }
}
