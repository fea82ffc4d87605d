// The differential seam checked on the peer itself: two independent ovs-vswitchd agree with each
// other on random tables and packets over every feature the generator has (so a later
// peer-vs-engine failure is the engine's), the generator's tables are ones OVS accepts, and a
// provider that is wrong in a plausible way (it forgets resubmit; it ignores --ct-next) is caught.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ALL_FEATURES,
  diffCaseArbitrary,
  differentialProperty,
  firstDifference,
  peerProvider,
  type TraceProvider,
} from './differential.js';
import { describeOvs } from './kit.js';
import { ovsPeer, type OvsPeer } from './peer.js';

describeOvs('differential tests: trace providers compared', () => {
  const peers: OvsPeer[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const p = await ovsPeer();
      peers.push(p);
      await p.addBridge('br0');
      for (const n of [1, 2, 3, 4]) await p.addPort('br0', n);
    }
  }, 60_000);
  afterAll(async () => {
    for (const p of peers) await p.stop();
  });

  it('the generator’s tables are ones ovs-ofctl accepts, and its packets hit them (else the property compares nothing)', async () => {
    const a = peerProvider(peers[0]!);
    const cases = fc.sample(diffCaseArbitrary(ALL_FEATURES), { numRuns: 40, seed: 17 });
    const refused: string[] = [];
    const verdicts: string[] = [];
    const finals: string[] = [];
    for (const c of cases) {
      try {
        await a.load(c.table);
      } catch (e) {
        refused.push(`${(e as Error).message}\n${c.table.flows}`);
        continue;
      }
      for (const p of c.packets) {
        const o = await a.trace(p);
        verdicts.push(o.datapathActions);
        finals.push(o.finalFlow);
      }
    }
    expect(refused).toEqual([]);
    // most packets do something: an output, a ct, a set — not only the table-miss drop
    expect(verdicts.filter((v) => v !== 'drop').length).toBeGreaterThan(verdicts.length / 3);
    expect(verdicts.some((v) => v.includes('ct('))).toBe(true);
    // set_field/load/move change the packet or its registers: the final flow shows it
    expect(finals.some((v) => v !== 'unchanged')).toBe(true);
  });

  it('two independent peers agree on every random table and packet', async () => {
    const a = peerProvider(peers[0]!, 'br0', 'peer A');
    const b = peerProvider(peers[1]!, 'br0', 'peer B');
    const t0 = performance.now();
    await fc.assert(differentialProperty(a, b, ALL_FEATURES), { numRuns: 60 });
    process.stdout.write(
      `test/ovs/peer: 60 differential cases in ${Math.round(performance.now() - t0)} ms\n`,
    );
  });

  it('catches a provider that forgets resubmit', async () => {
    const right = peerProvider(peers[0]!, 'br0', 'ovs-vswitchd');
    const inner = peerProvider(peers[1]!, 'br0');
    const forgetful: TraceProvider = {
      name: 'no-resubmit',
      // each resubmit becomes a no-op note, as an engine that skipped the action would behave
      load: (t) => inner.load({ ...t, flows: t.flows.replace(/resubmit\(,\d+\)/g, 'note:00') }),
      trace: (p) => inner.trace(p),
    };
    const r = await fc.check(
      differentialProperty(right, forgetful, { tables: 3, resubmit: true, priorities: true }),
      {
        numRuns: 200,
      },
    );
    expect(r.failed).toBe(true);
    expect(String(r.errorInstance)).toMatch(/ovs-vswitchd vs no-resubmit:\nDatapath actions: /);
  });

  it('catches a provider that ignores --ct-next (every fork trk,new)', async () => {
    const right = peerProvider(peers[0]!, 'br0', 'ovs-vswitchd');
    const inner = peerProvider(peers[1]!, 'br0');
    const deaf: TraceProvider = {
      name: 'no-ct-next',
      load: (t) => inner.load(t),
      trace: (p) => inner.trace({ flow: p.flow }),
    };
    const r = await fc.check(
      differentialProperty(right, deaf, { tables: 3, priorities: true, ct: { commit: true } }),
      {
        numRuns: 200,
      },
    );
    expect(r.failed).toBe(true);
    expect(String(r.errorInstance)).toContain('--ct-next');
  });

  it('a table both refuse with the same text is no difference; one refused by one side is', async () => {
    const a = peerProvider(peers[0]!, 'br0', 'A');
    const b = peerProvider(peers[1]!, 'br0', 'B');
    const bad = { table: { flows: 'priority=1,nosuch=1 actions=drop' }, packets: [{ flow: 'in_port=1,ip' }] };
    expect(await firstDifference(a, b, bad)).toBeUndefined();
    const lenient: TraceProvider = { name: 'lenient', load: () => {}, trace: (p) => b.trace(p) };
    expect(await firstDifference(a, lenient, bad)).toMatch(
      /^loading the table: A: ovs-ofctl: -:1: unknown keyword nosuch\nlenient: accepted$/,
    );
  });
});
