// The OpenFlow engine (src/ovs) against a real ovs-vswitchd (issue 17 §4): the same random flow
// tables and packets through both, the last `Datapath actions:` line and the final flow compared
// (recirculation ids renumbered). Each feature alone first — a failure there names the feature —
// then everything the generator has at once. What the engine leaves out on purpose (OVS's own
// select hash, Megaflow) is outside the generator (docs/ovs.md, docs/model.md "Open vSwitch").
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { engineProvider } from '../../../src/ovs/index.js';
import { runs } from '../../runs.js';
import {
  ALL_FEATURES,
  differentialProperty,
  firstDifference,
  peerProvider,
  type FeatureSet,
} from './differential.js';
import { describeOvs, usePeer } from './kit.js';

const ALONE: readonly [string, FeatureSet][] = [
  ['priorities and masks', { tables: 1, flowsPerTable: 6, priorities: true, masks: true }],
  ['resubmit and goto_table', { tables: 4, priorities: true, resubmit: true }],
  ['set_field, load and move', { tables: 2, priorities: true, setField: true, load: true, move: true }],
  ['groups', { tables: 2, priorities: true, groups: true }],
  [
    'ct with zones, commit and nat',
    { tables: 3, priorities: true, ct: { zones: true, commit: true, nat: true } },
  ],
];

describeOvs('the OpenFlow engine agrees with ovs-vswitchd', () => {
  const peer = usePeer(async (p) => {
    await p.addBridge('br0');
    for (const n of [1, 2, 3, 4]) await p.addPort('br0', n);
  });

  it.each(ALONE)('%s', async (_name, features) => {
    await fc.assert(differentialProperty(peerProvider(peer()), engineProvider(), features), {
      numRuns: runs(60),
    });
  });

  it('every feature at once', async () => {
    await fc.assert(differentialProperty(peerProvider(peer()), engineProvider(), ALL_FEATURES), {
      numRuns: runs(200),
    });
  });

  it('the comparison would see a wrong engine: one that drops every ct fork', async () => {
    const engine = engineProvider();
    const wrong = {
      name: 'engine without ct',
      load: (t: { flows: string; groups?: readonly string[] }) =>
        engine.load({ ...t, flows: t.flows.replace(/ct\([^()]*(\([^()]*\)[^()]*)*\)/g, 'note:00') }),
      trace: engine.trace,
    };
    const r = await fc.check(differentialProperty(peerProvider(peer()), wrong, ALONE[4]![1]), {
      numRuns: 100,
    });
    expect(r.failed).toBe(true);
    // and a fixed case: a committed DNAT fork and its recirculation verdict agree
    const c = {
      table: {
        flows: [
          'table=0,priority=10,ip,nw_dst=10.96.0.10 actions=ct(commit,table=1,zone=1,nat(dst=10.244.1.5:80))',
          'table=0,priority=0 actions=drop',
          'table=1,priority=10,ct_state=+trk,ip actions=output:2',
          'table=1,priority=0 actions=drop',
        ].join('\n'),
      },
      packets: [{ flow: 'in_port=1,tcp,nw_src=10.244.0.2,nw_dst=10.96.0.10,tcp_dst=80' }],
    };
    expect(await firstDifference(peerProvider(peer()), engineProvider(), c)).toBeUndefined();
  });
});
