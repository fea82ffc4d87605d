// Deferred side effects (src/ovs/xlate.ts `Effects`, src/ovs/conntrack.ts overlays): what the
// dataplane does for a trace (read-through conntrack, nothing applied) and for send (applied on
// commit). The property: running each packet with its effects deferred and then committed leaves a
// bridge exactly as running it directly does — same outputs, same connections, same flow and group
// counters, same learned flows and MACs — and not committing leaves the bridge untouched.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Clock } from '../../src/core/clock.js';
import { Bridge, type Effects, receive } from '../../src/ovs/index.js';

// Service DNAT in zone 65520 (a select group of two backends), NORMAL with MAC learning on the
// rest, and Antrea's session affinity learn (docs/design/ovs-pipeline.md SessionAffinity).
function pipeline(): Bridge {
  const br = new Bridge({ name: 'br-int', clock: new Clock(), seed: 3 });
  for (let i = 1; i <= 4; i++) br.addPort(`p${i}`, i);
  br.addGroup(
    'group_id=1,type=select,bucket=weight:100,actions=ct(commit,table=3,zone=65520,nat(dst=10.10.0.66:8080)),bucket=weight:100,actions=ct(commit,table=3,zone=65520,nat(dst=10.10.0.67:8080))',
  );
  br.addFlows(`table=0,priority=200,ip,actions=ct(table=1,zone=65520,nat)
table=1,priority=200,ct_state=+new+trk,tcp,nw_dst=10.96.0.10,tp_dst=80,actions=learn(table=2,hard_timeout=300,priority=200,delete_learned,cookie=0x77,eth_type=0x800,nw_proto=6,NXM_OF_IP_SRC[],NXM_OF_IP_DST[],NXM_OF_TCP_DST[],load:0x1->NXM_NX_REG4[16..18]),group:1
table=1,priority=190,ct_state=+new+trk,ip,actions=ct(commit,table=3,zone=65520)
table=1,priority=100,ct_state=+est+trk,ip,actions=goto_table:3
table=1,priority=0,actions=drop
table=3,priority=0,actions=NORMAL`);
  return br;
}

const octet = (lo: number, hi: number) => fc.integer({ min: lo, max: hi });
const packet = fc
  .record({
    inPort: octet(1, 4),
    // few clients and ports: replies often belong to a connection an earlier packet made
    src: octet(2, 3),
    toVip: fc.boolean(),
    dst: octet(2, 9),
    sport: fc.constantFrom(1000, 1001),
    backend: fc.constantFrom('66', '67'),
    reply: fc.boolean(),
  })
  .map(({ inPort, src, toVip, dst, sport, backend, reply }) => {
    const a = `10.10.0.${src}`;
    const b = toVip ? '10.96.0.10' : `10.10.0.${dst}`;
    const mac = (n: number) => `00:00:00:00:00:0${n}`;
    return reply
      ? `in_port=${inPort},dl_src=${mac(inPort)},dl_dst=${mac(((inPort + 1) % 4) + 1)},tcp,nw_src=10.10.0.${backend},nw_dst=${a},tp_src=8080,tp_dst=${sport}`
      : `in_port=${inPort},dl_src=${mac(inPort)},dl_dst=${mac(((inPort + 2) % 4) + 1)},tcp,nw_src=${a},nw_dst=${b},tp_src=${sport},tp_dst=80`;
  });

/** Everything a packet can change in a bridge, as text. */
function state(br: Bridge): string {
  const conns = br.conntrack
    .connections()
    .map((c) => `${c.zone}|${JSON.stringify(c.orig)}|${JSON.stringify(c.reply)}|${c.seenReply}|${c.mark}`)
    .sort();
  const macs = [...br.macTable].map(([m, e]) => `${m}:${e.port}`).sort();
  return [...br.dumpFlows(), ...br.dumpGroups(), ...conns, ...macs].join('\n');
}

const outputsOf = (r: ReturnType<typeof receive>) =>
  r.outputs.map((o) => `${o.port}:${Array.from(o.packet).join(',')}`);

describe('deferred effects', () => {
  it('deferred then committed = direct, packet by packet', () => {
    fc.assert(
      fc.property(fc.array(packet, { minLength: 1, maxLength: 12 }), (packets) => {
        const direct = pipeline();
        const deferred = pipeline();
        for (const p of packets) {
          const a = receive(direct, p, { text: false, selectBuckets: 'pick' });
          const fx: Effects = { conntrack: deferred.conntrack.child(), later: [] };
          const b = receive(deferred, p, { text: false, selectBuckets: 'pick', effects: fx });
          expect(outputsOf(b)).toEqual(outputsOf(a));
          deferred.conntrack.commit(fx.conntrack);
          for (const f of fx.later) f();
          expect(state(deferred)).toBe(state(direct));
        }
      }),
      { numRuns: 60 },
    );
  });

  it('not committed: the bridge is exactly as before, whatever the packets', () => {
    fc.assert(
      fc.property(fc.array(packet, { minLength: 1, maxLength: 8 }), packet, (warm, probe) => {
        const br = pipeline();
        for (const p of warm) receive(br, p, { text: false, selectBuckets: 'pick' });
        const before = state(br);
        const gen = br.generation;
        const fx: Effects = { conntrack: br.conntrack.child(), later: [] };
        receive(br, probe, { text: false, selectBuckets: 'pick', effects: fx });
        expect(state(br)).toBe(before);
        expect(br.generation).toBe(gen);
      }),
      { numRuns: 60 },
    );
  });

  it('an overlay commits only into its own parent', () => {
    const a = pipeline();
    const b = pipeline();
    expect(() => a.conntrack.commit(b.conntrack.child())).toThrow(/not an overlay of this table/);
  });
});
