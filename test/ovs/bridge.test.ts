// The OpenFlow engine's flow tables and actions: lookup by priority and masks, dump-flows text
// (lib/ofp-flow.c ofputil_flow_stats_format field order; ovs-ofctl(8)), del/mod-flows loose and
// strict with cookie masks, timeouts on the simulated clock, NORMAL, packet-ins, learn, groups.
// Upstream vectors are from openvswitch/ovs @ d6a632a9b1, cited per test.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Clock } from '../../src/core/clock.js';
import { Bridge, W, receive, selectBucket, trace } from '../../src/ovs/index.js';

function bridge(ports = 4, clock = new Clock(), seed = 0): Bridge {
  const br = new Bridge({ name: 'br0', clock, seed });
  for (let i = 1; i <= ports; i++) br.addPort(`p${i}`, i);
  return br;
}

describe('lookup', () => {
  it('the highest priority wins; masks decide what matches', () => {
    const br = bridge();
    br.addFlows(`priority=10,ip,actions=output:1
priority=20,ip,nw_dst=10.0.0.0/8,actions=output:2
priority=30,ip,nw_dst=10.1.0.0/255.255.0.0,reg0=0x2/0x2,actions=output:3
priority=5,actions=output:4`);
    expect(trace(br, 'in_port=4,ip,nw_dst=10.1.2.3').datapathActions).toBe('2');
    expect(trace(br, 'in_port=4,ip,nw_dst=10.1.2.3,reg0=0x6').datapathActions).toBe('3');
    expect(trace(br, 'in_port=4,ip,nw_dst=10.1.2.3,reg0=0x4').datapathActions).toBe('2');
    expect(trace(br, 'in_port=4,ip,nw_dst=11.1.2.3').datapathActions).toBe('1');
    expect(trace(br, 'in_port=1,arp').datapathActions).toBe('4');
  });
  it('a flow with the same match and priority replaces the old one', () => {
    const br = bridge();
    br.addFlow('priority=7,in_port=1,actions=output:2');
    br.addFlow('priority=7,in_port=1,actions=output:3');
    expect(br.dumpFlows({ noStats: true })).toEqual([' priority=7,in_port=1 actions=output:3']);
  });
  it('--names prints port names (ovs-ofctl --names)', () => {
    const br = bridge();
    br.addFlow('in_port=p1,actions=output:p2,LOCAL');
    expect(br.dumpFlows({ noStats: true, names: true })).toEqual([' in_port=p1 actions=output:p2,LOCAL']);
    expect(br.dumpFlows({ noStats: true })).toEqual([' in_port=1 actions=output:2,LOCAL']);
  });
});

describe('dump-flows text and counters on the simulated clock', () => {
  it('prints cookie, duration, table, counters, timeouts, ages in ofputil_flow_stats_format order', () => {
    const clock = new Clock();
    const br = bridge(4, clock);
    br.addFlow('cookie=0x1f,priority=10,idle_timeout=10,hard_timeout=20,in_port=1,actions=output:2');
    clock.advance(1500);
    receive(br, 'in_port=1,ip', { bytes: 100 });
    clock.advance(1750);
    expect(br.dumpFlows()).toEqual([
      ' cookie=0x1f, duration=3.250s, table=0, n_packets=1, n_bytes=100, idle_timeout=10, hard_timeout=20, idle_age=1, priority=10,in_port=1 actions=output:2',
    ]);
    expect(br.dumpFlows({ noStats: true })).toEqual([
      ' cookie=0x1f, idle_timeout=10, hard_timeout=20, priority=10,in_port=1 actions=output:2',
    ]);
  });
  it('hard_age appears once a modification makes it differ from the duration', () => {
    const clock = new Clock();
    const br = bridge(4, clock);
    br.addFlow('table=3,in_port=1,actions=output:2');
    clock.advance(5000);
    br.modFlows('table=3,in_port=1,actions=output:3');
    clock.advance(2000);
    expect(br.dumpFlows()).toEqual([
      ' cookie=0x0, duration=7s, table=3, n_packets=0, n_bytes=0, idle_age=7, hard_age=2, in_port=1 actions=output:3',
    ]);
  });
  it('counts every flow a packet passes, resubmits included; a trace counts nothing', () => {
    const br = bridge();
    br.addFlows('in_port=1,actions=resubmit(,1)\ntable=1,actions=output:2');
    trace(br, 'in_port=1');
    receive(br, 'in_port=1', { bytes: 60 });
    receive(br, 'in_port=1', { bytes: 60 });
    expect(br.flows().map((f) => [f.table, f.nPackets, f.nBytes])).toEqual([
      [0, 2, 120],
      [1, 2, 120],
    ]);
  });
});

describe('timeouts expire on the clock', () => {
  it('idle_timeout counts from the last packet, hard_timeout from the add', () => {
    const clock = new Clock();
    const br = bridge(4, clock);
    br.addFlows(
      'priority=1,in_port=1,idle_timeout=10,actions=output:2\npriority=2,in_port=2,hard_timeout=20,actions=output:1',
    );
    clock.advance(5000);
    receive(br, 'in_port=1');
    receive(br, 'in_port=2');
    clock.advance(9999);
    expect(br.flowCount).toBe(2);
    clock.advance(1);
    expect(br.dumpFlows({ noStats: true })).toEqual([
      ' hard_timeout=20, priority=2,in_port=2 actions=output:1',
    ]);
    clock.advance(4999);
    receive(br, 'in_port=2');
    expect(br.flowCount).toBe(1);
    clock.advance(1);
    expect(br.flowCount).toBe(0);
    expect(trace(br, 'in_port=2').datapathActions).toBe('drop');
  });
});

describe('del-flows and mod-flows (ovs-ofctl(8): loose vs --strict, cookie=value/mask)', () => {
  const flows = `cookie=0x11,priority=10,ip,nw_src=10.0.0.1,actions=output:1
cookie=0x12,priority=20,ip,nw_src=10.0.0.1,actions=output:2
cookie=0x21,priority=10,ip,actions=output:3
cookie=0x22,table=1,priority=10,ip,nw_src=10.0.0.1,actions=output:4`;
  it('loose delete takes every flow at least as specific, in every table', () => {
    const br = bridge();
    br.addFlows(flows);
    expect(br.delFlows('ip,nw_src=10.0.0.1')).toBe(3);
    expect(br.dumpFlows({ noStats: true })).toEqual([' cookie=0x21, priority=10,ip actions=output:3']);
  });
  it('--strict deletes only the same match and priority; table= limits it', () => {
    const br = bridge();
    br.addFlows(flows);
    expect(br.delFlows('table=0,priority=10,ip,nw_src=10.0.0.1', { strict: true })).toBe(1);
    expect(br.flows().map((f) => f.cookie)).toEqual([0x12n, 0x21n, 0x22n]);
  });
  it('a cookie mask selects by cookie bits; out_port by output action', () => {
    const br = bridge();
    br.addFlows(flows);
    expect(br.delFlows('cookie=0x10/0xf0')).toBe(2);
    expect(br.delFlows('out_port=3')).toBe(1);
    expect(br.flows().map((f) => f.cookie)).toEqual([0x22n]);
  });
  it('mod-flows replaces actions, keeps counters, sets the cookie only when given', () => {
    const br = bridge();
    br.addFlows(flows);
    receive(br, 'in_port=4,ip,nw_src=10.0.0.1');
    expect(br.modFlows('priority=20,ip,nw_src=10.0.0.1,actions=output:4', { strict: true })).toBe(1);
    const f = br.flows(0)[0]!;
    expect([f.cookie, f.nPackets]).toEqual([0x12n, 1]);
    expect(trace(br, 'in_port=3,ip,nw_src=10.0.0.1').datapathActions).toBe('4');
    expect(br.modFlows('cookie=0x99,ip,actions=drop')).toBe(4);
    expect(new Set(br.flows().map((f) => f.cookie))).toEqual(new Set([0x99n]));
  });
});

describe('actions', () => {
  it('set_field, load, move and output:NXM_NX_REG1[] compose like Antrea L2ForwardingCalc → Output', () => {
    const br = bridge();
    br.addFlows(`table=0,in_port=1,actions=load:0x3->NXM_NX_REG1[0..15],move:NXM_NX_REG1[0..1]->NXM_NX_REG2[4..5],goto_table:1
table=1,actions=output:NXM_NX_REG1[]`);
    const r = trace(br, 'in_port=1');
    expect(r.datapathActions).toBe('3');
    expect(r.finalFlow).toContain('reg1=0x3,reg2=0x30,');
  });
  it('header rewrites become set() datapath actions before the output that needs them', () => {
    const br = bridge();
    br.addFlow(
      'tcp,in_port=1,actions=mod_dl_src:0a:00:00:00:00:01,mod_nw_dst:10.0.0.9,mod_tp_dst:8080,dec_ttl,output:2',
    );
    const r = trace(br, 'in_port=1,tcp,nw_dst=10.0.0.1,nw_ttl=64,tp_dst=80');
    expect(r.datapathActions).toBe(
      'set(eth(src=0a:00:00:00:00:01)),set(ipv4(dst=10.0.0.9,ttl=63)),set(tcp(dst=8080)),2',
    );
  });
  it('output to the input port is skipped; IN_PORT sends it back', () => {
    const br = bridge();
    br.addFlow('in_port=1,actions=output:1,IN_PORT');
    const r = trace(br, 'in_port=1');
    expect(r.datapathActions).toBe('1');
    expect(r.text).toContain('     >> skipping output to input port\n');
  });
  it('LOCAL is the bridge port, numbered 100 in the dummy datapath (lib/dpif-netdev.c choose_port)', () => {
    const br = bridge();
    br.addFlow('in_port=1,actions=LOCAL');
    expect(trace(br, 'in_port=1').datapathActions).toBe('100');
  });
  it('controller records a packet-in with its reason and userdata', () => {
    const br = bridge();
    br.addFlow('cookie=0x5,in_port=1,actions=controller(reason=no_match,userdata=01.02)');
    const r = receive(br, 'in_port=1,ip,nw_src=10.0.0.1');
    expect(r.packetIns).toHaveLength(1);
    expect(r.packetIns[0]).toMatchObject({ reason: 'no_match', userdata: [1, 2], cookie: 0x5n });
    expect(r.packetIns[0]!.flow).toContain('nw_src=10.0.0.1');
  });
  it('NORMAL floods an unknown destination, then forwards to the learned port', () => {
    const br = bridge(3);
    br.addFlow('actions=NORMAL');
    const a = '00:00:00:00:00:0a';
    const b = '00:00:00:00:00:0b';
    expect(receive(br, `in_port=1,dl_src=${a},dl_dst=${b}`).datapathActions).toBe('2,3,100');
    expect(receive(br, `in_port=2,dl_src=${b},dl_dst=${a}`).datapathActions).toBe('1');
    expect(trace(br, `in_port=3,dl_src=00:00:00:00:00:0c,dl_dst=${b}`).datapathActions).toBe('2');
  });
  it('group actions have no effect afterwards (tests/ofproto-dpif.at; the dpctl flow it dumps)', () => {
    const br = bridge(10);
    br.addGroup('group_id=1234,type=select,bucket=set_field:192.168.3.90->ip_src,output:10');
    br.addFlow('ip actions=group:1234,output:10');
    const pkt =
      'in_port=1,dl_src=50:54:00:00:00:07,dl_dst=50:54:00:00:00:01,ip,nw_src=192.168.0.1,nw_dst=192.168.1.2,nw_proto=1,nw_ttl=128';
    // a real packet: the datapath's hash picks the bucket, then the recirculated flow's actions
    expect(receive(br, pkt).datapathActions).toBe(
      'set(ipv4(src=192.168.3.90)),10,set(ipv4(src=192.168.0.1)),10',
    );
    // ofproto/trace without a packet stops at the datapath hash (the dpctl flow's first half)
    const t = trace(br, pkt);
    expect(t.datapathActions).toBe('hash(sym_l4(0)),recirc(0x1)');
    expect(t.text).toContain('    group:1234\n     -> no live bucket\n');
    expect(trace(br, pkt, { selectBuckets: 'pick' }).datapathActions).toBe(
      'set(ipv4(src=192.168.3.90)),10,set(ipv4(src=192.168.0.1)),10',
    );
  });
  it('registers set in a bucket are restored after it (ovs-actions(7) "group")', () => {
    const br = bridge();
    br.addGroup('group_id=1,type=all,bucket=load:0x5->NXM_NX_REG3[],resubmit(,2)');
    br.addFlows(
      'actions=group:1,goto_table:1\ntable=1,reg3=0,actions=output:1\ntable=1,reg3=5,actions=output:3\ntable=2,reg3=5,actions=output:2',
    );
    expect(trace(br, 'in_port=4').datapathActions).toBe('2,1');
  });
  it('dump-groups lists buckets with ids and weights', () => {
    const br = bridge();
    br.addGroup(
      'group_id=7,type=select,bucket=bucket_id:0,weight:100,actions=output:1,bucket=bucket_id:1,weight:50,actions=output:2',
    );
    expect(br.dumpGroups()).toEqual([
      ' group_id=7,type=select,bucket=bucket_id:0,weight:100,actions=output:1,bucket=bucket_id:1,weight:50,actions=output:2',
    ]);
  });
});

describe('select groups: the bucket is a deterministic function of the seed and the flow', () => {
  const group = {
    id: 1,
    type: 'select' as const,
    selectionMethod: 'hash' as const,
    buckets: [0, 1, 2, 3].map((id) => ({ id, weight: 100, watchPort: 0xffff, actions: [], actionSet: [] })),
    nPackets: 0,
    nBytes: 0,
  };
  const flowOf = (src: number, sport: number): Uint32Array => {
    const f = new Uint32Array(65);
    f[W.DL_TYPE] = 0x800;
    f[W.NW_PROTO] = 6;
    f[W.NW_SRC] = src;
    f[W.NW_DST] = 0x0a600001;
    f[W.TP_SRC] = sport;
    f[W.TP_DST] = 80;
    return f;
  };
  it('same seed and flow → same bucket; every bucket gets traffic', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.integer({ min: 1, max: 65535 }),
        (seed, src, sport) => {
          expect(selectBucket(group, flowOf(src, sport), seed)).toBe(
            selectBucket(group, flowOf(src, sport), seed),
          );
        },
      ),
    );
    const hits = new Set<number>();
    for (let p = 1; p <= 200; p++) hits.add(selectBucket(group, flowOf(0x0a000001, p), 42));
    expect(hits).toEqual(new Set([0, 1, 2, 3]));
  });
  it('the seed changes the choice for some flows; the bridge uses its own seed', () => {
    let differ = 0;
    for (let p = 1; p <= 100; p++)
      if (selectBucket(group, flowOf(0x0a000001, p), 1) !== selectBucket(group, flowOf(0x0a000001, p), 2))
        differ++;
    expect(differ).toBeGreaterThan(0);
    const run = (seed: number): string[] => {
      const br = bridge(4, new Clock(), seed);
      br.addGroup(
        'group_id=1,type=select,selection_method=hash,bucket=output:1,bucket=output:2,bucket=output:3,bucket=output:4',
      );
      br.addFlow('in_port=LOCAL,actions=group:1');
      return Array.from(
        { length: 20 },
        (_, i) => trace(br, `in_port=LOCAL,tcp,nw_src=10.0.0.1,tp_src=${1000 + i}`).datapathActions,
      );
    };
    expect(run(7)).toEqual(run(7));
    // … and the bridge's own seed is what picks: another seed, other buckets
    expect(run(7)).not.toEqual(run(8));
  });
  it('weight 0 buckets are never chosen', () => {
    const g = { ...group, buckets: group.buckets.map((b) => ({ ...b, weight: b.id === 2 ? 100 : 0 })) };
    for (let p = 1; p <= 50; p++) expect(selectBucket(g, flowOf(1, p), 3)).toBe(2);
  });
});

describe('learn (Antrea session affinity shape)', () => {
  const learnFlow =
    'table=0,tcp,nw_dst=10.96.0.10,tp_dst=80,actions=learn(table=10,hard_timeout=300,priority=200,delete_learned,cookie=0x3,eth_type=0x800,nw_proto=6,NXM_OF_TCP_DST[],NXM_OF_IP_DST[],NXM_OF_IP_SRC[],load:NXM_NX_REG3[]->NXM_NX_REG3[],load:0x2->NXM_NX_REG4[16..18]),output:2';
  it('a real packet adds the learned flow; a trace does not', () => {
    const clock = new Clock();
    const br = bridge(4, clock);
    br.addFlow(learnFlow);
    trace(br, 'in_port=1,tcp,nw_src=10.10.0.5,nw_dst=10.96.0.10,tp_dst=80,reg3=0x0a0a0042');
    expect(br.flows(10)).toHaveLength(0);
    const r = receive(br, 'in_port=1,tcp,nw_src=10.10.0.5,nw_dst=10.96.0.10,tp_dst=80,reg3=0x0a0a0042', {
      text: true,
    });
    expect(r.datapathActions).toBe('2');
    expect(br.dumpFlows({ noStats: true, filter: 'table=10' })).toEqual([
      ' cookie=0x3, table=10, hard_timeout=300, priority=200,tcp,nw_src=10.10.0.5,nw_dst=10.96.0.10,tp_dst=80 actions=set_field:0xa0a0042->reg3,set_field:0x20000/0x70000->reg4',
    ]);
    expect(r.text).toContain(
      ' -> table=10 tcp,nw_src=10.10.0.5,nw_dst=10.96.0.10,tp_dst=80 priority=200 cookie=0x3 hard=300 actions=set_field:0xa0a0042->reg3,set_field:0x20000/0x70000->reg4',
    );
  });
  it('learned flows expire on their hard_timeout and go with delete_learned', () => {
    const clock = new Clock();
    const br = bridge(4, clock);
    br.addFlow(learnFlow);
    receive(br, 'in_port=1,tcp,nw_src=10.10.0.5,nw_dst=10.96.0.10,tp_dst=80');
    clock.advance(299_999);
    expect(br.flows(10)).toHaveLength(1);
    clock.advance(1);
    br.expire();
    expect(br.flows(10)).toHaveLength(0);
    receive(br, 'in_port=1,tcp,nw_src=10.10.0.6,nw_dst=10.96.0.10,tp_dst=80');
    expect(br.flows(10)).toHaveLength(1);
    br.delFlows('table=0');
    expect(br.flows(10)).toHaveLength(0);
  });
});
