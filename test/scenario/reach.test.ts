/**
 * The scenario expectations `reach` (reach exactly) and `reachUnchanged` (unchanged reachability
 * since an earlier point: `previous`, `setup`, a step's title, a step count), docs/scenarios.md —
 * on the shipped scenarios/reach-services-sync.yaml (api's targetPort 8080 → 9090, which api-0's
 * ACL does not open), variants of it that must fail with the differences written out, a standalone
 * host (pods named by endpoint underneath), a run stopped early, and what the loader refuses.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, runScenario, type ExpectationResult } from '../../src/scenario/index.js';
import { root } from '../cli/hnsim.js';

const SYNC = readFileSync(join(root, 'scenarios/reach-services-sync.yaml'), 'utf8');
const NAT = readFileSync(join(root, 'scenarios/nat-port-mappings.yaml'), 'utf8');
const EXPECT_AT_END = /\nexpect:\n[\s\S]*$/;

const run = async (text: string, until?: number) =>
  (
    await runScenario(loadScenario(text, 'reach.yaml'), until === undefined ? {} : { until })
  ).checkpoints.flatMap((c) => c.results.filter((r) => r.kind === 'reach' || r.kind === 'reachUnchanged'));
const brief = (r: ExpectationResult) => [r.kind, r.ok, r.label];

/** The sync file with its final expect block replaced. */
const syncThen = (expect: string) => SYNC.replace(EXPECT_AT_END, `\nexpect:\n${expect}`);

describe('expect.reach and expect.reachUnchanged on the shipped sync scenario', () => {
  it('hold: api delivered TCP 80 before the sync, nothing after, every other pair unchanged', async () => {
    expect((await run(SYNC)).map(brief)).toEqual([
      ['reach', true, 'default/client → svc:default/api delivers exactly TCP port 80'],
      ['reach', true, 'default/client → svc:default/api delivers exactly nothing'],
      ['reachUnchanged', true, 'reachability unchanged since before the sync (9 pairs)'],
    ]);
  });

  it('every pair by default (each pod to each pod and service): the three that lost api, with the packets', async () => {
    const [, r] = await run(syncThen('  reachUnchanged:\n    - since: before the sync\n'));
    expect(brief(r!)).toEqual([
      'reachUnchanged',
      false,
      'reachability unchanged since before the sync (12 pairs)',
    ]);
    expect(r!.problems).toEqual([
      '12 pairs compared, 3 changed',
      ...['default/client 10.244.1.3', 'default/web-0 10.244.2.3', 'default/api-0 10.244.2.4'].flatMap(
        (x) => {
          const [pod, ip] = x.split(' ');
          return [
            `${pod} → svc:default/api`,
            '  Delivered → DeniedIn: 65536 packets',
            `      TCP to 10.96.0.21 port 80 from ${ip}`,
            `      e.g. --from ${pod} --to 10.96.0.21 --protocol TCP --sport 50000 --dport 80`,
          ];
        },
      ),
    ]);
  });

  it('reach exactly, missed both ways: what else is delivered, what is not and what it gets instead', async () => {
    const [, after] = await run(
      syncThen(
        "  reach:\n    - { from: default/client, to: svc:default/api, exactly: 'TCP port 80, 443' }\n" +
          '    - { name: client to web-0, from: default/client, to: default/web-0, exactly: UDP port 53 }\n',
      ),
    );
    expect(after!.problems).toEqual([
      'not delivered (DeniedIn): TCP to port 80',
      '  e.g. --from default/client --to 10.96.0.21 --protocol TCP --sport 50000 --dport 80',
      'not delivered (NoRoute): TCP to port 443',
      '  e.g. --from default/client --to 10.96.0.21 --protocol TCP --sport 50000 --dport 443',
    ]);
    const [, web] = await run(
      syncThen(
        '  reach:\n    - { name: client to web-0, from: default/client, to: default/web-0, exactly: UDP port 53 }\n',
      ),
    );
    expect(web!.label).toBe('client to web-0');
    expect(web!.problems).toEqual([
      'also delivered: any protocol except UDP; UDP to port 0-52, 54-65535',
      '  e.g. --from default/client --to 10.244.2.3 --protocol TCP --sport 50000 --dport 80',
    ]);
  });

  it('since previous, setup and a step count: the same earlier state, the pairs given', async () => {
    const pairs = 'from: [default/client], to: [svc:default/api, svc:default/web]';
    const results = await run(
      syncThen(
        `  reachUnchanged:\n    - { since: previous, ${pairs} }\n    - { since: setup, ${pairs} }\n` +
          `    - { since: 1, ${pairs} }\n    - { since: 2, ${pairs} }\n`,
      ),
    );
    // previous = the "before the sync" expect step = the set-up = 1 step; after 2 steps api is gone
    expect(results.slice(1).map((r) => [r.label, r.problems[0]])).toEqual([
      ['reachability unchanged since previous (2 pairs)', '2 pairs compared, 1 changed'],
      ['reachability unchanged since setup (2 pairs)', '2 pairs compared, 1 changed'],
      ['reachability unchanged since step 1 (2 pairs)', '2 pairs compared, 1 changed'],
      ['reachability unchanged since step 2 (2 pairs)', '2 pairs compared, 1 changed'],
    ]);
    // after step 2 (the delete) the service is not there: the pair exists after only
    expect(results[4]!.problems).toEqual([
      '2 pairs compared, 1 changed',
      'default/client → svc:default/api (exists after only)',
    ]);
    expect(results[1]!.problems[1]).toBe('default/client → svc:default/api');
  });

  it('inside the steps, and in a run stopped before the end', async () => {
    const text = SYNC.replace(
      "  - title: api's Service replaced",
      "  - title: nothing yet\n    expect:\n      reachUnchanged: [{ since: previous }]\n  - title: api's Service replaced",
    );
    const all = await run(text);
    expect(all.map(brief)[1]).toEqual([
      'reachUnchanged',
      true,
      'reachability unchanged since previous (12 pairs)',
    ]);
    const early = await run(text, 2);
    expect(early.map(brief)).toEqual([
      ['reach', true, 'default/client → svc:default/api delivers exactly TCP port 80'],
      ['reachUnchanged', true, 'reachability unchanged since previous (12 pairs)'],
    ]);
  });
});

describe('on a standalone host', () => {
  it('pods named by their endpoints underneath; a deleted pod is a pair that exists before only', async () => {
    const text = NAT.replace(
      EXPECT_AT_END,
      '\nsteps:\n  - deletePod: default/web-3\nexpect:\n  reach:\n    - { from: default/web, to: 192.168.1.10, exactly: any protocol }\n' +
        '  reachUnchanged:\n    - { since: setup }\n',
    );
    const [reach, unchanged] = await run(text);
    expect(brief(reach!)).toEqual([
      'reach',
      true,
      'default/web → 192.168.1.10 delivers exactly any protocol',
    ]);
    expect(unchanged!.problems).toEqual([
      '2 pairs compared, 2 changed',
      'default/web → default/web-3 (exists before only)',
      'default/web-3 → default/web (exists before only)',
    ]);
  });
});

describe('the loader', () => {
  const refused = (expect: string) => () => loadScenario(syncThen(expect), 'reach.yaml');

  it('refuses a spec that does not read, an unknown pod or service, a since that is not before', () => {
    expect(
      refused("  reach:\n    - { from: default/client, to: svc:default/api, exactly: 'ICMP port 7' }\n"),
    ).toThrow(/expect\.reach\[0\]\.exactly: packet set "ICMP port 7": only TCP and UDP have ports/);
    expect(
      refused('  reach:\n    - { from: default/nope, to: svc:default/api, exactly: nothing }\n'),
    ).toThrow(/expect\.reach\[0\]\.from: no pod default\/nope in this scenario/);
    expect(refused('  reachUnchanged:\n    - { since: setup, to: [svc:default/nope] }\n')).toThrow(
      /expect\.reachUnchanged\[0\]\.to\[0\]: no service default\/nope in this scenario/,
    );
    expect(refused('  reachUnchanged:\n    - { since: the sync }\n')).toThrow(
      /expect\.reachUnchanged\[0\]\.since: no step titled "the sync" before this expectation \(or previous, setup, a step count\)/,
    );
    expect(refused('  reachUnchanged:\n    - { since: 4 }\n')).toThrow(
      /expect\.reachUnchanged\[0\]\.since: 4 steps: only 3 run before this expectation/,
    );
    expect(refused('  reachUnchanged:\n    - { since: true }\n')).toThrow(
      /expect\.reachUnchanged\[0\]\.since: must be/,
    );
    // a step title later than the expectation
    expect(() =>
      loadScenario(
        SYNC.replace(
          '        - { from: default/client, to: svc:default/api, exactly: TCP port 80 }\n',
          '',
        ).replace(
          '      reach:\n',
          '      reachUnchanged: [{ since: "api\'s Service replaced with targetPort 9090; kube-proxy syncs every node" }]\n',
        ),
        'reach.yaml',
      ),
    ).toThrow(/steps\[0\]\.expect\.reachUnchanged\[0\]\.since: no step titled/);
  });
});
