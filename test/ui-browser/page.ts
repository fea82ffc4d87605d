/**
 * Reading the page as the DOM contract between the page and the tests gives it (docs/ui.md;
 * .scratch's contract: `#narration[data-step]`, `#picture g[data-key]`, `#details pre[data-view]`,
 * `#trace[data-disposition] ol li[data-hop] [data-rule]`, …), and acting on it as a person does:
 * a click or a key, then waiting for what the page says it has finished (its `hnsim:step` and
 * `hnsim:trace` performance marks, the narration's step).
 */
import type { Page } from 'playwright-core';
import type { UiTraceRequest } from '../../src/ui/model/contract.js';

/** The narration: the step it says it shows and its text. */
export async function narration(page: Page): Promise<{ step: number; text: string }> {
  return page.$eval('#narration', (el) => ({
    step: Number(el.getAttribute('data-step')),
    text: (el.textContent ?? '').replace(/\s+/g, ' ').trim(),
  }));
}

/** The step the list marks current (`ol#steps li[aria-current=step]`), -1 for none. */
export async function currentListStep(page: Page): Promise<number> {
  return page.$eval('#steps', (ol) => {
    const li = ol.querySelectorAll('li[aria-current="step"]');
    return li.length === 1 ? Number(li[0]!.getAttribute('data-step')) : -1;
  });
}

/** Waits until the narration shows step `i` (after a click or a key). */
export async function waitStep(page: Page, i: number): Promise<void> {
  await page.waitForFunction(
    (want) => document.querySelector('#narration')?.getAttribute('data-step') === String(want),
    i,
    { timeout: 30_000 },
  );
}

/** Goes to step `i` through the page's test API (`window.hnsimUi.go`), resolved once it shows. */
export async function go(page: Page, i: number): Promise<void> {
  await page.evaluate(async (step) => {
    const api = (window as unknown as { hnsimUi?: { go(i: number): unknown } }).hnsimUi;
    if (!api) throw new Error('window.hnsimUi is missing');
    await api.go(step);
  }, i);
  await waitStep(page, i);
}

/** A box of the picture as the page draws it. */
export interface PageBox {
  readonly key: string;
  readonly ref: string;
  readonly kind: string;
  readonly change: string | null;
  /** Its `<text>` lines. */
  readonly lines: string[];
  readonly label: string | null;
}

/** Every box of `#picture` (`g[data-key]` with a data-ref). */
export async function boxes(page: Page): Promise<PageBox[]> {
  return page.$$eval('#picture g[data-key]', (gs) =>
    gs.map((g) => ({
      key: g.getAttribute('data-key') ?? '',
      ref: g.getAttribute('data-ref') ?? '',
      kind: g.getAttribute('data-kind') ?? '',
      change: g.getAttribute('data-change'),
      // its own label lines: not those of boxes nested in it, nor its markers' (aria-hidden)
      lines: [...g.querySelectorAll('text')]
        .filter((t) => t.closest('g[data-key]') === g && !t.closest('[aria-hidden="true"]'))
        .map((t) => (t.textContent ?? '').trim()),
      label: g.getAttribute('aria-label'),
    })),
  );
}

/** The groups of `#picture` (`g[data-group]`): key and kind. */
export async function groups(page: Page): Promise<{ key: string; kind: string; ref: string | null }[]> {
  return page.$$eval('#picture g[data-group]', (gs) =>
    gs.map((g) => ({
      key: g.getAttribute('data-group') ?? '',
      kind: g.getAttribute('data-kind') ?? '',
      ref: g.getAttribute('data-ref'),
    })),
  );
}

/** The JSON a details view shows (`#details pre[data-view=VIEW]`), parsed. */
export async function detailsJson(page: Page, view: 'v2' | 'v1'): Promise<unknown> {
  const sel = `#details pre[data-view="${view}"]`;
  await page.waitForSelector(sel, { state: 'attached', timeout: 30_000 });
  return JSON.parse((await page.$eval(sel, (el) => el.textContent ?? '')) || 'null') as unknown;
}

/** The trace the page shows: its disposition, each hop's text and rule, the explain text. */
export interface PageTrace {
  readonly disposition: string | null;
  readonly hops: { readonly n: number; readonly text: string; readonly rule: string | null }[];
  readonly explain: string | null;
}

export async function shownTrace(page: Page): Promise<PageTrace> {
  return page.$eval('#trace', (el) => ({
    disposition: el.getAttribute('data-disposition'),
    hops: [...el.querySelectorAll('ol li[data-hop]')].map((li) => ({
      n: Number(li.getAttribute('data-hop')),
      text: (li.textContent ?? '').replace(/\s+/g, ' ').trim(),
      rule: li.querySelector('[data-rule]')?.textContent?.trim() ?? null,
    })),
    explain: document.querySelector('#explain')?.textContent?.replace(/\s+/g, ' ').trim() ?? null,
  }));
}

/** How many `hnsim:NAME` marks the page has made so far. */
export async function marks(page: Page, name: 'step' | 'trace' | 'ready'): Promise<number> {
  return page.evaluate((n) => performance.getEntriesByName(`hnsim:${n}`).length, name);
}

/** Waits for the page's `count + 1`-th `hnsim:NAME` mark. */
export async function waitMark(page: Page, name: 'step' | 'trace', count: number): Promise<void> {
  await page.waitForFunction(
    ([n, c]) => performance.getEntriesByName(`hnsim:${n}`).length > c,
    [name, count] as const,
    { timeout: 30_000 },
  );
}

/** Fills the packet form with the mouse and the keyboard's typing, submits it, waits for the trace. */
export async function traceWithForm(page: Page, req: UiTraceRequest): Promise<void> {
  const before = await marks(page, 'trace');
  await page.fill('#packet [name=from]', req.from);
  await page.fill('#packet [name=to]', req.to);
  await page.selectOption('#packet [name=protocol]', String(req.protocol));
  await page.fill('#packet [name=port]', req.port === undefined ? '' : String(req.port));
  await page.click('#packet button[type=submit]');
  await waitMark(page, 'trace', before);
}
