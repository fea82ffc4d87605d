/**
 * The page with the keyboard only (issue 18: "keyboard-usable throughout"): no mouse event at all —
 * ArrowRight/ArrowLeft step, Space plays and pauses, Tab reaches a box and Enter opens it, Tab
 * reaches the packet form, typing fills it and Enter traces. What is shown is compared with the
 * same oracles as the mouse tests: the model's step texts, the flat API's endpoint document and
 * `hnsim trace`'s JSON (an allowed packet on the quick start, a denied one on acl-analysis.yaml).
 */
import { expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { refKey } from '../../src/ui/model/contract.js';
import { expectSameTrace } from './check.js';
import { cliTrace, endpointOf } from './oracle.js';
import { detailsJson, marks, narration, shownTrace, waitMark, waitStep } from './page.js';
import { servedLesson } from './fixture.js';
import { describeUi } from './suite.js';

/** Presses Tab until the focused element matches `selector` (at most `max` presses). */
async function tabTo(page: Page, selector: string, max = 400): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press('Tab');
  }
  const at = await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 120));
  throw new Error(`Tab did not reach ${selector} in ${max} presses (focus on ${at})`);
}

/** Steps with the arrow keys to step `to` (focus outside any form field). */
async function arrowTo(page: Page, to: number): Promise<void> {
  let at = (await narration(page)).step;
  while (at !== to) {
    await page.keyboard.press(at < to ? 'ArrowRight' : 'ArrowLeft');
    at += at < to ? 1 : -1;
    await waitStep(page, at);
  }
}

/** Fills the packet form by typing: Tab to each field from the one before, Enter submits. */
async function traceByKeys(page: Page, from: string, to: string, port: number | undefined): Promise<void> {
  const before = await marks(page, 'trace');
  await tabTo(page, '#packet [name=from]');
  await page.keyboard.press('Control+A');
  await page.keyboard.type(from);
  await tabTo(page, '#packet [name=to]', 5);
  await page.keyboard.press('Control+A');
  await page.keyboard.type(to);
  await tabTo(page, '#packet [name=port]', 5);
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  if (port !== undefined) await page.keyboard.type(String(port));
  await page.keyboard.press('Enter');
  await waitMark(page, 'trace', before);
}

describeUi('hnsim ui with the keyboard only: the quick start', () => {
  const t = servedLesson('quick-start.yaml');

  it('ArrowRight and ArrowLeft step, each step narrated as the model tells it', async () => {
    for (const i of [1, 2, 3]) {
      await t.page.keyboard.press('ArrowRight');
      await waitStep(t.page, i);
      expect((await narration(t.page)).text).toContain(t.lesson.steps[i]!.text);
    }
    await t.page.keyboard.press('ArrowLeft');
    await waitStep(t.page, 2);
    expect((await narration(t.page)).text).toContain(t.lesson.steps[2]!.text);
  });

  it('Space plays and pauses', async () => {
    const from = (await narration(t.page)).step;
    await t.page.keyboard.press('Space');
    expect(await t.page.getAttribute('#play', 'aria-pressed')).toBe('true');
    await waitStep(t.page, from + 1);
    await t.page.keyboard.press('Space');
    await t.page.waitForFunction(
      () => document.querySelector('#play')?.getAttribute('aria-pressed') === 'false',
    );
    // a step already under way when Space was pressed may still land: let it, then watch
    await t.page.waitForTimeout(500);
    const stopped = (await narration(t.page)).step;
    expect(stopped).toBeGreaterThan(from);
    // paused: no further step (the page plays one step a few hundred ms; a second is several)
    await t.page.waitForTimeout(1500);
    expect((await narration(t.page)).step).toBe(stopped);
  });

  it("Tab reaches client's endpoint, Enter opens it: the v2 JSON HcnQueryEndpointProperties returns", async () => {
    await arrowTo(t.page, t.lesson.steps.length - 1);
    const ep = endpointOf(t.report, 'default/client');
    const want = `${ep.node}|endpoint|${ep.id}`.toUpperCase();
    const ref = t.lesson
      .pictureAt(t.lesson.steps.length - 1)
      .groups.flatMap(function all(g): string[] {
        return [...g.boxes.map((b) => refKey(b.ref)), ...g.groups.flatMap(all)];
      })
      .find((r) => r.toUpperCase() === want);
    expect(ref, 'the model draws the endpoint').toBeDefined();
    await tabTo(t.page, `#picture g[data-ref="${ref}"]`);
    await t.page.keyboard.press('Enter');
    expect(await detailsJson(t.page, 'v2')).toEqual(ep.doc);
    // the arrows still step from a focused box (not a form field)
    await t.page.keyboard.press('ArrowLeft');
    await waitStep(t.page, t.lesson.steps.length - 2);
    await t.page.keyboard.press('ArrowRight');
    await waitStep(t.page, t.lesson.steps.length - 1);
  });

  it('the packet form by typing: client → svc:default/web, as hnsim trace does', async () => {
    await traceByKeys(t.page, 'default/client', 'svc:default/web', undefined);
    const cli = await cliTrace('quick-start.yaml', { from: 'default/client', to: 'svc:default/web' });
    expect(cli.disposition).toBe('Delivered');
    expectSameTrace(await shownTrace(t.page), cli);
    expect(t.page.errors).toEqual([]);
  });
});

describeUi('hnsim ui with the keyboard only: a denied packet', () => {
  const t = servedLesson('acl-analysis.yaml', { oracle: false });

  it('client → web on TCP 80 typed in: DeniedIn by block-web, as hnsim trace says', async () => {
    const last = await t.page.$$eval('#steps li[data-step]', (li) => li.length - 1);
    await arrowTo(t.page, last);
    await traceByKeys(t.page, 'default/client', 'default/web', 80);
    const cli = await cliTrace('acl-analysis.yaml', { from: 'default/client', to: 'default/web', port: 80 });
    expect(cli.disposition).toBe('DeniedIn');
    const shown = await shownTrace(t.page);
    expectSameTrace(shown, cli);
    expect(shown.hops[shown.hops.length - 1]!.rule).toContain('block-web');
    expect(shown.explain).toContain('block-web');
    expect(t.page.errors).toEqual([]);
  });
});
