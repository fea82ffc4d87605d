/**
 * Screenshots of the quick-start page's key states compared with the committed baselines
 * (test/ui-browser/baselines/*.png) within suite.ts's tolerance: the first step, the step after
 * client's CNI ADD, a packet's trace shown, and the dark theme; and both themes render (the colour
 * scheme the browser prefers, and the page's own toggle). Deterministic rendering: the fixed
 * viewport, device scale factor 1, reduced motion and animations off, Chromium's default fonts.
 * `HNSIM_UPDATE_BASELINES=1 npm run test:ui` rewrites the pictures (docs/ui.md, Testing).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { refKey, type Lesson } from '../../src/ui/model/contract.js';
import { endpointOf, lessonOf, runShipped } from './oracle.js';
import { go, traceWithForm } from './page.js';
import {
  describeUi,
  launchChromium,
  matchBaseline,
  openPage,
  scenario,
  serveUi,
  type Served,
} from './suite.js';

/** A screenshot once nothing moves: fonts loaded, animations finished, no caret. */
async function shot(page: Page): Promise<Buffer> {
  await page.evaluate(() => document.fonts.ready);
  return page.screenshot({ animations: 'disabled', caret: 'hide', scale: 'css' });
}

/** The page's background colour (the body's, else the root's) as `rgb(…)`. */
async function background(page: Page): Promise<string> {
  return page.evaluate(() => {
    const b = getComputedStyle(document.body).backgroundColor;
    return b === 'rgba(0, 0, 0, 0)' ? getComputedStyle(document.documentElement).backgroundColor : b;
  });
}

/** Relative luminance of an `rgb(r, g, b)` colour, 0 (black) .. 1 (white). */
function luminance(rgb: string): number {
  const [r, g, b] = (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map(Number);
  return (0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0)) / 255;
}

describeUi('hnsim ui: screenshots and themes', () => {
  let browser: Browser;
  let served: Served;
  let lesson: Lesson;
  let addAt: number;

  beforeAll(async () => {
    let report;
    [browser, served, lesson, report] = await Promise.all([
      launchChromium(),
      serveUi(scenario('quick-start.yaml')),
      lessonOf('quick-start.yaml'),
      runShipped('quick-start.yaml'),
    ]);
    const ep = endpointOf(report, 'default/client');
    const ref = `${ep.node}|endpoint|${ep.id}`.toUpperCase();
    addAt = lesson.steps.findIndex((s) => s.added.some((r) => refKey(r).toUpperCase() === ref));
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  it('light: the first step, after CNI ADD and a trace shown match their baselines', async () => {
    const page = await openPage(browser, served.url, { colorScheme: 'light' });
    matchBaseline('first-step', await shot(page));
    expect(addAt).toBeGreaterThan(0);
    await go(page, addAt);
    matchBaseline('after-cni-add', await shot(page));
    await go(page, lesson.steps.length - 1);
    await traceWithForm(page, { from: 'default/client', to: 'svc:default/web', protocol: 'TCP' });
    // with reduced motion the packet jumps to its last hop one render after the trace is shown
    await page.waitForFunction(() => {
      const hops = document.querySelectorAll('#trace ol li[data-hop]');
      return hops.length > 0 && hops[hops.length - 1]!.getAttribute('aria-current') === 'true';
    });
    matchBaseline('trace-shown', await shot(page));
    expect(page.errors).toEqual([]);
    await page.context().close();
  });

  it('dark: the first step matches its baseline', async () => {
    const page = await openPage(browser, served.url, { colorScheme: 'dark' });
    matchBaseline('dark-first-step', await shot(page));
    expect(page.errors).toEqual([]);
    await page.context().close();
  });

  it('both themes render: a light page is light, a dark one dark, and the toggle flips them', async () => {
    const light = await openPage(browser, served.url, { colorScheme: 'light' });
    const dark = await openPage(browser, served.url, { colorScheme: 'dark' });
    const [l, d] = [luminance(await background(light)), luminance(await background(dark))];
    expect(l).toBeGreaterThan(0.5);
    expect(d).toBeLessThan(0.5);
    // the text is readable on each: its colour is on the other side of the background's
    const text = (p: Page) => p.evaluate(() => getComputedStyle(document.querySelector('#narration')!).color);
    expect(luminance(await text(light))).toBeLessThan(0.5);
    expect(luminance(await text(dark))).toBeGreaterThan(0.5);
    // the toggle turns the light page dark, and back
    const was = await background(light);
    await light.click('#theme');
    await light.waitForFunction((before) => {
      const b = getComputedStyle(document.body).backgroundColor;
      const bg = b === 'rgba(0, 0, 0, 0)' ? getComputedStyle(document.documentElement).backgroundColor : b;
      return bg !== before;
    }, was);
    expect(luminance(await background(light))).toBeLessThan(0.5);
    for (const p of [light, dark]) {
      expect(await p.$$eval('#picture g[data-key]', (g) => g.length)).toBeGreaterThan(0);
      expect(p.errors).toEqual([]);
      await p.context().close();
    }
  });
});
