/**
 * The static site `hnsim ui FILE --export DIR` writes, opened from file:// in Chromium (issue 18: "works
 * from any static web server or file://", nothing fetched from the network): the same lesson as the
 * served page — the first event narrated with the model's text, the whole timeline, a step.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Lesson } from '../../src/ui/model/contract.js';
import { lessonOf } from './oracle.js';
import { narration, waitStep } from './page.js';
import { describeUi, exportUi, launchChromium, openPage, scenario } from './suite.js';

describeUi('hnsim ui --export: the static site from file://', () => {
  let browser: Browser;
  let dir: string;
  let url: string;
  let lesson: Lesson;
  let page: Page & { errors: string[] };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hnsim-ui-export-'));
    [browser, url, lesson] = await Promise.all([
      launchChromium(),
      exportUi(scenario('quick-start.yaml'), dir),
      lessonOf('quick-start.yaml'),
    ]);
    page = await openPage(browser, url);
  });
  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('writes the page and its data, and nothing else', () => {
    expect(url).toMatch(/^file:\/\/\/.*\/index\.html$/);
    expect(readdirSync(dir).sort()).toEqual(['app.css', 'app.js', 'index.html', 'lesson-data.js']);
  });

  it('shows the lesson from file:// as the served page does, fetching nothing', async () => {
    expect(page.url()).toBe(url);
    const n = await narration(page);
    expect(n.step).toBe(0);
    expect(n.text).toContain(lesson.steps[0]!.text);
    expect(await page.$$eval('#steps li[data-step]', (li) => li.length)).toBe(lesson.steps.length);
    expect(await page.$$eval('#picture g[data-key]', (g) => g.length)).toBeGreaterThan(0);
    await page.click('#next');
    await waitStep(page, 1);
    expect((await narration(page)).text).toContain(lesson.steps[1]!.text);
    // openPage lets file: through and records any other request as an error
    expect(page.errors).toEqual([]);
  });
});
