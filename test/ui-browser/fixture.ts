/**
 * One served lesson per suite: Chromium launched, `hnsim ui scenarios/NAME --port 0` running, a
 * page open on it and ready, and (unless `oracle: false`) the oracles of oracle.ts computed in this
 * process — the model's lesson and the scenario run by the real runner. Registered as the suite's
 * beforeAll/afterAll; the fields are there once beforeAll has run.
 *
 *   const t = servedLesson('quick-start.yaml');
 *   it('…', async () => { expect((await narration(t.page)).text).toContain(t.lesson.steps[0]!.text); });
 */
import { afterAll, beforeAll } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { RunReport } from '../../src/scenario/index.js';
import type { Lesson } from '../../src/ui/model/contract.js';
import { lessonOf, runShipped } from './oracle.js';
import { launchChromium, openPage, scenario, serveUi, type PageOptions, type Served } from './browser.js';

export interface ServedLesson {
  readonly browser: Browser;
  readonly served: Served;
  readonly page: Page & { readonly errors: string[] };
  /** The model's lesson recorded in Node (not with `oracle: false`). */
  readonly lesson: Lesson;
  /** The scenario run to its end by the runner (not with `oracle: false`). */
  readonly report: RunReport;
}

export function servedLesson(
  name: string,
  opts: PageOptions & { readonly oracle?: boolean } = {},
): ServedLesson {
  const t: { -readonly [K in keyof ServedLesson]?: ServedLesson[K] } = {};
  beforeAll(async () => {
    const oracle = opts.oracle !== false;
    const [browser, served, lesson, report] = await Promise.all([
      launchChromium(),
      serveUi(scenario(name)),
      oracle ? lessonOf(name) : undefined,
      oracle ? runShipped(name) : undefined,
    ]);
    Object.assign(t, { browser, served, lesson, report });
    t.page = await openPage(browser, served.url, opts);
  });
  afterAll(async () => {
    await t.browser?.close();
    await t.served?.close();
  });
  return t as ServedLesson;
}
