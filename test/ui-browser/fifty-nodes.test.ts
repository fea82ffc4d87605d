/**
 * The 50-node scenario in Chromium (issue 18: "stays readable from one node to a 50-node
 * scenario"): the page gets ready and draws one node — a group, or a collapsed box — for each of
 * the scenario file's 50 hosts at the lesson's last step (every node has joined), each named as the
 * file names it; a node expands and collapses.
 */
import { beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { scenarioHosts } from './oracle.js';
import { servedLesson } from './fixture.js';
import { go } from './page.js';
import { describeUi } from './suite.js';

/** The nodes drawn: each `data-kind=node` group or collapsed box, by its title line. */
async function drawnNodes(page: Page): Promise<{ key: string; title: string; collapsed: boolean }[]> {
  return page.$$eval('#picture g[data-kind="node"]', (gs) =>
    gs
      .filter((g) => g.hasAttribute('data-group') || g.getAttribute('data-collapsed') === '1')
      .map((g) => ({
        key: g.getAttribute('data-group') ?? g.getAttribute('data-key') ?? '',
        title: (g.querySelector(':scope > text')?.textContent ?? '').trim(),
        collapsed: g.getAttribute('data-collapsed') === '1',
      })),
  );
}

describeUi('hnsim ui: the 50-node scenario', () => {
  const t = servedLesson('fifty-nodes.yaml', { oracle: false, timeoutMs: 120_000 });
  const hosts = scenarioHosts('fifty-nodes.yaml');

  beforeAll(async () => {
    // every node has joined by the last step
    const last = await t.page.$$eval('#steps li[data-step]', (li) => li.length - 1);
    await go(t.page, last);
  });

  it('draws one node per host of the file, 50 of them, each named', async () => {
    expect(hosts).toHaveLength(50);
    const nodes = await drawnNodes(t.page);
    expect(nodes).toHaveLength(50);
    for (const h of hosts) {
      const named = nodes.filter((n) => n.title === h || n.title.startsWith(`${h} `));
      expect(named, `node ${h}`).toHaveLength(1);
    }
    expect(t.page.errors).toEqual([]);
  });

  it('above four nodes, a node that joins is drawn collapsed, as the page starts them (the lesson opened at a step with none)', async () => {
    const nodes = await drawnNodes(t.page);
    expect(nodes.filter((n) => n.collapsed).map((n) => n.title)).toHaveLength(50);
    // ... while a choice the user made holds as the timeline moves
    const last = await t.page.$$eval('#steps li[data-step]', (li) => li.length - 1);
    const name = hosts[1]!;
    await t.page.click(`button[data-collapse="${name}"]`);
    await t.page.waitForSelector(`button[data-collapse="${name}"][aria-expanded="true"]`);
    await go(t.page, last - 1);
    await go(t.page, last);
    const open = (await drawnNodes(t.page)).filter((n) => !n.collapsed).map((n) => n.title);
    expect(open).toHaveLength(1);
    expect(open[0] === name || open[0]!.startsWith(`${name} `), open[0]).toBe(true);
    await t.page.click(`button[data-collapse="${name}"]`);
    await t.page.waitForSelector(`button[data-collapse="${name}"][aria-expanded="false"]`);
  });

  it('a node expands and collapses with its button', async () => {
    const first = hosts[0]!;
    const button = `button[data-collapse="${first}"]`;
    const before = (await drawnNodes(t.page)).find(
      (n) => n.title === first || n.title.startsWith(`${first} `),
    )!;
    await t.page.click(button);
    await t.page.waitForFunction(
      ([key, was]) => {
        const g = document.querySelector(`#picture g[data-group="${key}"], #picture g[data-key="${key}"]`);
        return g !== null && (g.getAttribute('data-collapsed') === '1') !== was;
      },
      [before.key, before.collapsed] as const,
    );
    const after = (await drawnNodes(t.page)).find((n) => n.key === before.key)!;
    expect(after.collapsed).toBe(!before.collapsed);
    expect(await drawnNodes(t.page)).toHaveLength(50);
  });
});
