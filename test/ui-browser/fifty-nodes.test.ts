/**
 * The 50-node scenario in Chromium (issue 18: "stays readable from one node to a 50-node
 * scenario"): the page gets ready and draws one node — a group, or a collapsed box — for each of
 * the scenario file's 50 hosts at the lesson's last step (every node has joined), each named as the
 * file names it; nodes that join are drawn collapsed, a user's choice holds across steps; a node
 * expands and collapses; a service with 25 backends lists every load-balancer branch, each the
 * trace `hnsim trace --all-branches` gives (no small shipped scenario has a two-backend service).
 */
import { beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { expectSameTrace } from './check.js';
import { cliTrace, scenarioHosts } from './oracle.js';
import { servedLesson } from './fixture.js';
import { go, shownTrace, traceWithForm } from './page.js';
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

  it('every load-balancer branch is one click away: one per backend, each the trace `hnsim trace --all-branches` gives', async () => {
    const req = { from: 'default/client-1', to: 'svc:default/web', port: 80 } as const;
    const cli = await cliTrace('fifty-nodes.yaml', { ...req, allBranches: true });
    const branches = cli.branches ?? [];
    expect(branches.length).toBeGreaterThan(1);
    await traceWithForm(t.page, { ...req, protocol: 'TCP' });
    for (const i of [0, 1, branches.length - 1]) {
      // back at the request's trace, its branches listed
      if (await t.page.$('#trace-back')) await t.page.click('#trace-back');
      if (!(await t.page.$('#branch-list'))) await t.page.click('#branches');
      const listed = await t.page.$$eval('#branch-list button[data-branch]', (bs) => bs.length);
      expect(listed).toBe(branches.length);
      await t.page.click(`#branch-list button[data-branch="${i}"]`);
      await t.page.waitForFunction(
        (label) => document.querySelector('#trace h3')?.textContent?.startsWith(label),
        `Branch ${i + 1}:`,
      );
      expectSameTrace(await shownTrace(t.page), branches[i]!);
    }
    expect(t.page.errors).toEqual([]);
  }, 120_000);

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
