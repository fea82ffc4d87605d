/**
 * The quick-start lesson in Chromium (issue 18): `hnsim ui scenarios/quick-start.yaml` served, the
 * page driven with the mouse, and what it shows compared with what the simulator says in this
 * process — the model's own step texts and pictures, the scenario run by the real runner and asked
 * through the flat API (`HcnQueryEndpointProperties`), and `hnsim trace`'s JSON.
 */
import { expect, it } from 'vitest';
import { refKey, type UiGraph } from '../../src/ui/model/contract.js';
import { expectSameTrace } from './check.js';
import { cliTrace, endpointOf, ipOf } from './oracle.js';
import {
  boxes,
  currentListStep,
  detailsJson,
  go,
  marks,
  narration,
  shownTrace,
  traceWithForm,
  waitMark,
  waitStep,
} from './page.js';
import { servedLesson } from './fixture.js';
import { describeUi } from './suite.js';

/** Every box of a picture, nested groups included: `refKey → change`. */
function modelBoxes(g: UiGraph): Map<string, string | undefined> {
  const out = new Map<string, string | undefined>();
  const walk = (gs: UiGraph['groups']): void => {
    for (const x of gs) {
      for (const b of x.boxes) out.set(refKey(b.ref), b.change);
      walk(x.groups);
    }
  };
  walk(g.groups);
  return out;
}

describeUi('hnsim ui: the quick-start lesson', () => {
  const t = servedLesson('quick-start.yaml');

  it('is ready showing the first event, with every step listed and nothing fetched from the network', async () => {
    expect(t.lesson.steps.length).toBeGreaterThan(10);
    const n = await narration(t.page);
    expect(n.step).toBe(0);
    expect(n.text).toContain(t.lesson.steps[0]!.text);
    expect(await t.page.$$eval('#steps li[data-step]', (li) => li.length)).toBe(t.lesson.steps.length);
    expect(await currentListStep(t.page)).toBe(0);
    expect(await t.page.isDisabled('#prev')).toBe(true);
    expect(t.page.errors).toEqual([]);
  });

  it("steps through every event with Next: each narrated with the model's text, the picture the model's", async () => {
    await go(t.page, 0);
    for (let i = 0; i < t.lesson.steps.length; i++) {
      if (i > 0) {
        await t.page.click('#next');
        await waitStep(t.page, i);
      }
      const n = await narration(t.page);
      expect(n.text, `step ${i}`).toContain(t.lesson.steps[i]!.text);
      expect(await currentListStep(t.page), `step ${i}`).toBe(i);
      expect(await t.page.inputValue('#step')).toBe(String(i));
      // the boxes drawn are the model's boxes at this step, each marked as the step changed it
      const want = modelBoxes(t.lesson.pictureAt(i));
      const shown = new Map((await boxes(t.page)).map((b) => [b.ref, b.change ?? undefined]));
      expect(new Map([...shown].filter(([ref]) => want.has(ref))), `step ${i}`).toEqual(want);
    }
    expect(await t.page.isDisabled('#next')).toBe(true);
    await t.page.click('#prev');
    await waitStep(t.page, t.lesson.steps.length - 2);
    expect(t.page.errors).toEqual([]);
  });

  it('after the CNI ADD of default/client, its endpoint box shows the IP HcnQueryEndpointProperties returns', async () => {
    const ep = endpointOf(t.report, 'default/client');
    const ip = ipOf(ep.doc);
    expect(ip).toBe('10.244.1.3'); // the scenario's own expectation (expect.pods)
    const ref = `${ep.node}|endpoint|${ep.id}`.toUpperCase();
    // the step that adds it, as the model says; the t.page must agree before and after it
    const at = t.lesson.steps.findIndex((s) => s.added.some((r) => refKey(r).toUpperCase() === ref));
    expect(at, 'a step adds the endpoint').toBeGreaterThan(0);
    await go(t.page, at - 1);
    expect((await boxes(t.page)).some((b) => b.ref.toUpperCase() === ref)).toBe(false);
    await go(t.page, at);
    const box = (await boxes(t.page)).find((b) => b.ref.toUpperCase() === ref);
    expect(box, `box ${ref} at step ${at}`).toBeDefined();
    expect(box!.kind).toBe('endpoint');
    expect(box!.change).toBe('added');
    // said without colour too: the label a screen reader reads, and one marker shape per change
    expect(box!.label).toContain('added');
    const counts = await t.page.evaluate(() => ({
      changes: document.querySelectorAll(
        '#picture g[data-key][data-change], #picture g[data-group][data-change]',
      ).length,
      markers: document.querySelectorAll('#picture .marker[data-change]').length,
    }));
    expect(counts.changes).toBeGreaterThan(0);
    expect(counts.markers).toBe(counts.changes);
    expect(box!.lines.join('\n')).toContain(ip);
    // the narration of that step is the plugin's or HNS's telling of client's ADD
    const n = await narration(t.page);
    expect(n.text).toContain(t.lesson.steps[at]!.text);
    expect(`${t.lesson.steps[at]!.chapter} ${t.lesson.steps[at]!.text}`).toMatch(/client/);
  });

  it('an endpoint clicked shows its v2 JSON exactly as HcnQueryEndpointProperties returns it', async () => {
    const ep = endpointOf(t.report, 'default/client');
    await go(t.page, t.lesson.steps.length - 1);
    const ref = `${ep.node}|endpoint|${ep.id}`;
    const box = (await boxes(t.page)).find((b) => b.ref.toUpperCase() === ref.toUpperCase());
    expect(box).toBeDefined();
    await t.page.click(`#picture g[data-ref="${box!.ref}"]`);
    expect(await detailsJson(t.page, 'v2')).toEqual(ep.doc);
    expect((await t.page.textContent('#details h2'))?.trim()).not.toBe('');
  });

  it('traces an allowed packet (client → svc:default/web) as hnsim trace does', async () => {
    await go(t.page, t.lesson.steps.length - 1);
    await traceWithForm(t.page, { from: 'default/client', to: 'svc:default/web', protocol: 'TCP' });
    const cli = await cliTrace('quick-start.yaml', { from: 'default/client', to: 'svc:default/web' });
    expect(cli.disposition).toBe('Delivered'); // the scenario's expectation "Pod → Service (ClusterIP)"
    const shown = await shownTrace(t.page);
    expectSameTrace(shown, cli);
    expect(shown.explain).toBeNull();
    // the DNAT to the backend is among the hops, as the scenario expects it
    expect(shown.hops.map((h) => h.text).join('\n')).toMatch(/10\.244\.2\.4/);
  });

  it("the search box finds client's endpoint by the IP the API gives it", async () => {
    const ep = endpointOf(t.report, 'default/client');
    await go(t.page, t.lesson.steps.length - 1);
    await t.page.fill('#search', ipOf(ep.doc));
    await t.page.waitForSelector('#picture g[data-match="1"]');
    const matched = await t.page.$$eval('#picture g[data-match="1"]', (gs) =>
      gs.map((g) => g.getAttribute('data-ref') ?? ''),
    );
    expect(matched.map((r) => r.toUpperCase())).toContain(`${ep.node}|endpoint|${ep.id}`.toUpperCase());
    await t.page.fill('#search', '');
  });

  it("a truth table's cell opens its trace: the cell's disposition, hnsim trace's hops", async () => {
    // the scenario's table: rows default/client, default/web-0, win-1; columns … on TCP 8080
    const cell = await t.page.$$eval('table.truth td[data-cell]', (tds) =>
      tds.map((td) => ({
        cell: td.getAttribute('data-cell')!,
        disposition: td.getAttribute('data-disposition'),
        row: td.closest('tr')!.querySelector('th')!.textContent!.trim(),
        column: [...td.closest('table')!.querySelectorAll('thead th')]
          .at((td as HTMLTableCellElement).cellIndex)!
          .textContent!.trim(),
      })),
    );
    const c = cell.find((x) => x.row === 'default/client' && x.column === 'default/web-0');
    expect(c, 'the cell default/client → default/web-0').toBeDefined();
    const before = await marks(t.page, 'trace');
    await t.page.click(`table.truth td[data-cell="${c!.cell}"]`);
    await waitMark(t.page, 'trace', before);
    const cli = await cliTrace('quick-start.yaml', {
      from: 'default/client',
      to: 'default/web-0',
      port: 8080,
    });
    expect(c!.disposition).toBe(cli.disposition);
    expectSameTrace(await shownTrace(t.page), cli);
  });

  it('traces pod → pod on 8080 as hnsim trace does', async () => {
    await traceWithForm(t.page, { from: 'default/client', to: '10.244.2.4', protocol: 'TCP', port: 8080 });
    const cli = await cliTrace('quick-start.yaml', { from: 'default/client', to: '10.244.2.4', port: 8080 });
    expect(cli.disposition).toBe('Delivered');
    expectSameTrace(await shownTrace(t.page), cli);
    expect(t.page.errors).toEqual([]);
  });
});
