/**
 * A denied and an allowed packet in Chromium (issue 18), on scenarios/acl-analysis.yaml: web's ACLs
 * block TCP 80 from the pod CIDR (block-web) and allow the rest (allow-all-in). The page's trace —
 * hops, the rule of each, the disposition, the explain text of the denied one — against `hnsim
 * trace`'s JSON for the same request and the scenario's own expectations.
 */
import { beforeAll, expect, it } from 'vitest';
import { expectSameTrace } from './check.js';
import { cliTrace } from './oracle.js';
import { go, shownTrace, traceWithForm } from './page.js';
import { servedLesson } from './fixture.js';
import { describeUi } from './suite.js';

describeUi('hnsim ui: an ACL that denies', () => {
  const t = servedLesson('acl-analysis.yaml', { oracle: false });

  beforeAll(async () => {
    // trace at the lesson's last step: the state `hnsim trace FILE` traces through
    const last = await t.page.$$eval('#steps li[data-step]', (li) => li.length - 1);
    await go(t.page, last);
  });

  it('client → web on TCP 80: DeniedIn where block-web stops it, the rule named and explained', async () => {
    await traceWithForm(t.page, { from: 'default/client', to: 'default/web', protocol: 'TCP', port: 80 });
    const cli = await cliTrace('acl-analysis.yaml', { from: 'default/client', to: 'default/web', port: 80 });
    expect(cli.disposition).toBe('DeniedIn'); // the scenario's expectation
    const shown = await shownTrace(t.page);
    expectSameTrace(shown, cli);
    const last = shown.hops[shown.hops.length - 1]!;
    expect(last.rule).toContain('block-web');
    expect(shown.explain, 'the explain text of a denied packet').not.toBeNull();
    expect(shown.explain).toContain('block-web');
    expect(t.page.errors).toEqual([]);
  });

  it('client → web on TCP 8080: Delivered through allow-all-in', async () => {
    await traceWithForm(t.page, { from: 'default/client', to: 'default/web', protocol: 'TCP', port: 8080 });
    const cli = await cliTrace('acl-analysis.yaml', {
      from: 'default/client',
      to: 'default/web',
      port: 8080,
    });
    expect(cli.disposition).toBe('Delivered'); // the scenario's expectation
    const shown = await shownTrace(t.page);
    expectSameTrace(shown, cli);
    expect(shown.hops.some((h) => h.rule?.includes('allow-all-in'))).toBe(true);
    expect(shown.explain).toBeNull();
  });

  it("the allowed packet's reply is one click away, as hnsim trace --reply traces it", async () => {
    expect(await t.page.isDisabled('#reply')).toBe(false);
    await t.page.click('#reply');
    // the reply is shown in place of the request's trace
    await t.page.waitForFunction(() => /Reply/.test(document.querySelector('#trace h3')?.textContent ?? ''));
    const cli = await cliTrace('acl-analysis.yaml', {
      from: 'default/client',
      to: 'default/web',
      port: 8080,
      reply: true,
    });
    expect(cli.reply).toBeDefined();
    expectSameTrace(await shownTrace(t.page), cli.reply!);
  });
});
