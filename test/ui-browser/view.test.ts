/**
 * Zoom and pan (issue 18: "collapse nodes, zoom, pan, search"; docs/ui.md's keyboard map: + and −
 * zoom, Shift+arrows pan, the wheel and the + − Fit buttons, dragging pans). Checked on the screen,
 * not on the page's own numbers: a box's rectangle as Chromium lays it out grows when zoomed in,
 * shrinks back when zoomed out, moves without changing size when panned, and Fit brings the whole
 * picture inside its frame.
 */
import { expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { servedLesson } from './fixture.js';
import { describeUi } from './suite.js';

interface Rect {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

/** The on-screen rectangle of the first endpoint box (after the page has rendered). */
async function endpointRect(page: Page): Promise<Rect> {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  return page.$eval('#picture g[data-kind="endpoint"]', (g) => {
    const r = g.getBoundingClientRect();
    return { x: r.x, y: r.y, w: r.width, h: r.height };
  });
}

/** The picture's drawn content and its frame, on screen. */
async function contentAndFrame(page: Page): Promise<{ content: Rect; frame: Rect }> {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  return page.$eval('#picture', (svg) => {
    const c = (svg.querySelector(':scope > g') as SVGGElement).getBoundingClientRect();
    const f = svg.getBoundingClientRect();
    return {
      content: { x: c.x, y: c.y, w: c.width, h: c.height },
      frame: { x: f.x, y: f.y, w: f.width, h: f.height },
    };
  });
}

describeUi('hnsim ui: zoom and pan', () => {
  const t = servedLesson('quick-start.yaml', { oracle: false });

  it('+ and − zoom about the picture, Shift+arrows pan it, by the keyboard', async () => {
    const page = t.page;
    // the last step: every endpoint is there
    const last = await page.$$eval('#steps li[data-step]', (li) => li.length - 1);
    await page.evaluate(
      (i) => (window as unknown as { hnsimUi: { go(i: number): Promise<void> } }).hnsimUi.go(i),
      last,
    );
    await page.locator('#prev').focus();
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    const r0 = await endpointRect(page);
    await page.keyboard.press('+');
    const r1 = await endpointRect(page);
    expect(r1.w).toBeGreaterThan(r0.w * 1.05);
    await page.keyboard.press('-');
    const r2 = await endpointRect(page);
    expect(r2.w).toBeCloseTo(r0.w, 0);
    await page.keyboard.press('Shift+ArrowRight');
    const r3 = await endpointRect(page);
    expect(r3.w).toBeCloseTo(r2.w, 0);
    expect(Math.abs(r3.x - r2.x)).toBeGreaterThan(10);
    await page.keyboard.press('Shift+ArrowDown');
    const r4 = await endpointRect(page);
    expect(Math.abs(r4.y - r3.y)).toBeGreaterThan(10);
    expect(r4.x).toBeCloseTo(r3.x, 0);
    expect(t.page.errors).toEqual([]);
  });

  it('the buttons and the wheel zoom, dragging pans, Fit brings the whole picture into its frame', async () => {
    const page = t.page;
    const r0 = await endpointRect(page);
    await page.click('#zoom-in');
    const r1 = await endpointRect(page);
    expect(r1.w).toBeGreaterThan(r0.w * 1.05);
    await page.click('#zoom-out');
    await page.click('#zoom-out');
    const r2 = await endpointRect(page);
    expect(r2.w).toBeLessThan(r0.w * 0.95);
    // the wheel over the picture: up zooms in
    const { frame } = await contentAndFrame(page);
    await page.mouse.move(frame.x + frame.w / 2, frame.y + frame.h / 2);
    await page.mouse.wheel(0, -300);
    const r3 = await endpointRect(page);
    expect(r3.w).toBeGreaterThan(r2.w * 1.05);
    // a drag moves the picture by about as much as the mouse moved
    await page.mouse.move(frame.x + 40, frame.y + 40);
    await page.mouse.down();
    await page.mouse.move(frame.x + 140, frame.y + 90, { steps: 5 });
    await page.mouse.up();
    const r4 = await endpointRect(page);
    expect(r4.x - r3.x).toBeGreaterThan(50);
    expect(r4.y - r3.y).toBeGreaterThan(25);
    // Fit: the drawn content lies inside the frame again
    await page.click('#zoom-fit');
    const fit = await contentAndFrame(page);
    expect(fit.content.x).toBeGreaterThanOrEqual(fit.frame.x - 1);
    expect(fit.content.y).toBeGreaterThanOrEqual(fit.frame.y - 1);
    expect(fit.content.x + fit.content.w).toBeLessThanOrEqual(fit.frame.x + fit.frame.w + 1);
    expect(fit.content.y + fit.content.h).toBeLessThanOrEqual(fit.frame.y + fit.frame.h + 1);
    expect(t.page.errors).toEqual([]);
  });
});
