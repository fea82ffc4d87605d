// Connection tracking with NAT through the OpenFlow engine, as a property: the ct action's state
// bits (lib/meta-flow.xml ct_state: new 0x01, est 0x02, rpl 0x08, trk 0x20, dnat 0x80) and NAT
// applied to later packets of both directions (ovs-actions(7) "ct", reference §4).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Clock } from '../../src/core/clock.js';
import { Bridge, W, receive } from '../../src/ovs/index.js';

const VIP = '10.96.0.10';
const EP = '10.10.0.66';
const CS = { new: 0x01, est: 0x02, rpl: 0x08, trk: 0x20, snat: 0x40, dnat: 0x80 };
const ip = (v: number): string => `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;

// An Antrea-like service pipeline: client on port 1, endpoint on port 2; zone 65520.
function servicePipeline(): Bridge {
  const br = new Bridge({ name: 'br-int', clock: new Clock() });
  br.addPort('client', 1);
  br.addPort('endpoint', 2);
  br.addFlows(`table=0,priority=200,ip,actions=ct(table=1,zone=65520,nat)
table=1,priority=200,ct_state=+new+trk,tcp,nw_dst=${VIP},tp_dst=80,actions=ct(commit,table=2,zone=65520,nat(dst=${EP}:8080))
table=1,priority=190,ct_state=+new+trk,ip,actions=ct(commit,table=2,zone=65520)
table=1,priority=100,ct_state=+est+trk,ip,actions=goto_table:2
table=1,priority=0,actions=drop
table=2,priority=100,in_port=1,actions=output:2
table=2,priority=100,in_port=2,actions=output:1`);
  return br;
}

/** The ct_state the last recirculated pass saw (the state after the last ct). */
const stateAfterCt = (r: ReturnType<typeof receive>): number =>
  r.passes[r.passes.length - 1]!.flow[W.CT_STATE]!;

const client = fc.record({
  src: fc.integer({ min: 0x0a0a0002, max: 0x0a0a00fe }),
  sport: fc.integer({ min: 1024, max: 65535 }),
});

describe('conntrack: DNAT round trips', () => {
  it('a new connection is +new+trk+dnat and reaches the endpoint; its reply is +est+rpl and un-NATed', () => {
    fc.assert(
      fc.property(client, ({ src, sport }) => {
        const br = servicePipeline();
        const syn = receive(
          br,
          `in_port=1,tcp,nw_src=${ip(src)},nw_dst=${VIP},tp_src=${sport},tp_dst=80,tcp_flags=0x002`,
          { text: false },
        );
        expect(stateAfterCt(syn) & (CS.new | CS.trk | CS.dnat)).toBe(CS.new | CS.trk | CS.dnat);
        expect(syn.outputs).toHaveLength(1);
        const out = syn.outputs[0]!;
        expect([out.port, ip(out.packet[W.NW_DST]!), out.packet[W.TP_DST]]).toEqual([2, EP, 8080]);
        expect([ip(out.packet[W.NW_SRC]!), out.packet[W.TP_SRC]]).toEqual([ip(src), sport]);

        const reply = receive(
          br,
          `in_port=2,tcp,nw_src=${EP},nw_dst=${ip(src)},tp_src=8080,tp_dst=${sport},tcp_flags=0x012`,
          { text: false },
        );
        const st = stateAfterCt(reply);
        expect(st & (CS.est | CS.rpl | CS.trk)).toBe(CS.est | CS.rpl | CS.trk);
        expect(st & CS.new).toBe(0);
        const back = reply.outputs[0]!;
        expect([back.port, ip(back.packet[W.NW_SRC]!), back.packet[W.TP_SRC]]).toEqual([1, VIP, 80]);
        expect([ip(back.packet[W.NW_DST]!), back.packet[W.TP_DST]]).toEqual([ip(src), sport]);

        // the next packet of the connection is established, not new, and still DNATed
        const ack = receive(
          br,
          `in_port=1,tcp,nw_src=${ip(src)},nw_dst=${VIP},tp_src=${sport},tp_dst=80,tcp_flags=0x010`,
          { text: false },
        );
        expect(stateAfterCt(ack) & (CS.est | CS.new | CS.rpl)).toBe(CS.est);
        expect(ip(ack.outputs[0]!.packet[W.NW_DST]!)).toBe(EP);
      }),
      { numRuns: 60 },
    );
  });

  it('another source port is another connection: +new again', () => {
    fc.assert(
      fc.property(client, fc.integer({ min: 1, max: 1000 }), ({ src, sport }, delta) => {
        const br = servicePipeline();
        receive(br, `in_port=1,tcp,nw_src=${ip(src)},nw_dst=${VIP},tp_src=${sport},tp_dst=80`, {
          text: false,
        });
        const other = ((sport - 1024 + delta) % (65536 - 1024)) + 1024;
        const r = receive(br, `in_port=1,tcp,nw_src=${ip(src)},nw_dst=${VIP},tp_src=${other},tp_dst=80`, {
          text: false,
        });
        expect(stateAfterCt(r) & (CS.new | CS.est)).toBe(CS.new);
        expect(br.conntrack.size).toBe(2);
      }),
      { numRuns: 40 },
    );
  });

  it('an uncommitted packet leaves no connection; zones are separate', () => {
    const br = new Bridge({ clock: new Clock() });
    br.addPort('p1', 1);
    br.addPort('p2', 2);
    br.addFlows(`table=0,udp,actions=ct(table=1,zone=1)
table=1,ct_state=+new+trk,udp,actions=ct(commit,zone=2),output:2`);
    const a = receive(br, 'in_port=1,udp,nw_src=1.1.1.1,nw_dst=2.2.2.2,udp_src=5,udp_dst=53', {
      text: false,
    });
    expect(stateAfterCt(a) & CS.new).toBe(CS.new);
    const b = receive(br, 'in_port=1,udp,nw_src=1.1.1.1,nw_dst=2.2.2.2,udp_src=5,udp_dst=53', {
      text: false,
    });
    // committed in zone 2 only, so zone 1 still sees a new connection
    expect(stateAfterCt(b) & CS.new).toBe(CS.new);
    expect(br.conntrack.connections().map((c) => c.zone)).toEqual([2]);
  });

  it('SNAT picks the first free port of the range; replies are un-SNATed', () => {
    const br = new Bridge({ clock: new Clock() });
    br.addPort('in', 1);
    br.addPort('out', 2);
    br.addFlows(`table=0,in_port=1,tcp,actions=ct(commit,table=1,zone=65521,nat(src=192.168.77.100:40000-40001))
table=0,in_port=2,tcp,actions=ct(table=1,zone=65521,nat)
table=1,in_port=1,ct_state=+trk-inv,actions=output:2
table=1,in_port=2,ct_state=+est+rpl+trk,actions=output:1`);
    const ports = [1, 2, 3].map((i) => {
      const r = receive(br, `in_port=1,tcp,nw_src=10.10.0.${i},nw_dst=8.8.8.8,tp_src=5000,tp_dst=443`, {
        text: false,
      });
      return r.outputs.map((o) => `${ip(o.packet[W.NW_SRC]!)}:${o.packet[W.TP_SRC]}`);
    });
    // the third connection finds the range exhausted: it leaves untranslated and uncommitted, as
    // Debian's ovs-vswitchd 3.1 did with the same flows (observed through test/ovs/peer)
    expect(ports).toEqual([['192.168.77.100:40000'], ['192.168.77.100:40001'], ['10.10.0.3:5000']]);
    expect(br.conntrack.size).toBe(2);
    const back = receive(br, 'in_port=2,tcp,nw_src=8.8.8.8,nw_dst=192.168.77.100,tp_src=443,tp_dst=40001', {
      text: false,
    });
    expect(back.outputs.map((o) => `${ip(o.packet[W.NW_DST]!)}:${o.packet[W.TP_DST]}`)).toEqual([
      '10.10.0.2:5000',
    ]);
  });
});

describe('conntrack: a second ct in the same zone is the packet’s connection (the datapath’s cached md.conn)', () => {
  // Antrea's EndpointDNAT commit then ConntrackCommit's in zone 65520. Observed on Debian's
  // ovs-vswitchd 3.1 through test/ovs/peer (userspace conntrack, real packets): one entry
  // `udp,orig=(src=10.10.0.5,dst=10.96.0.10,sport=40000,dport=80),reply=(src=10.10.0.66,
  // dst=10.10.0.5,sport=8080,dport=40000),zone=5,mark=1`, and the reply leaves un-DNATed from
  // 10.96.0.10:80. Committing the translated tuple as a new connection would lose both.
  const FLOWS = [
    'table=0,priority=100,ip,actions=ct(table=1,zone=5,nat)',
    'table=1,priority=100,ct_state=+new+trk,udp,nw_dst=10.96.0.10,udp_dst=80,actions=ct(commit,table=2,zone=5,nat(dst=10.10.0.66:8080))',
    'table=1,priority=90,ct_state=+est+trk,ip,actions=goto_table:3',
    'table=2,priority=100,ct_state=+new+trk,ip,actions=ct(commit,table=3,zone=5,exec(set_field:0x1->ct_mark))',
    'table=2,priority=90,actions=goto_table:3',
    'table=3,priority=100,in_port=1,actions=output:2',
    'table=3,priority=100,in_port=2,actions=output:1',
  ].join('\n');

  it('one connection, marked by the second commit; the reply un-DNATed', () => {
    const br = new Bridge({ name: 'br0', clock: new Clock() });
    br.addPort('p1', 1);
    br.addPort('p2', 2);
    br.addFlows(FLOWS);
    const fwd = receive(br, 'in_port=1,udp,nw_src=10.10.0.5,nw_dst=10.96.0.10,udp_src=40000,udp_dst=80', {
      text: false,
    });
    expect(fwd.outputs.map((o) => [o.port, ip(o.packet[W.NW_DST]!), o.packet[W.TP_DST]])).toEqual([
      [2, EP, 8080],
    ]);
    const conns = br.conntrack.connections();
    expect(conns).toHaveLength(1);
    expect(conns[0]).toMatchObject({
      zone: 5,
      mark: 1,
      orig: { src: 0x0a0a0005, dst: 0x0a60000a, sport: 40000, dport: 80 },
      reply: { src: 0x0a0a0042, dst: 0x0a0a0005, sport: 8080, dport: 40000 },
    });
    const back = receive(br, 'in_port=2,udp,nw_src=10.10.0.66,nw_dst=10.10.0.5,udp_src=8080,udp_dst=40000', {
      text: false,
    });
    expect(back.outputs.map((o) => [o.port, ip(o.packet[W.NW_SRC]!), o.packet[W.TP_SRC]])).toEqual([
      [1, VIP, 80],
    ]);
  });
});
