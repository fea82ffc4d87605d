// learn: parsing and printing, what it adds, fin_timeout and delete_learned, against
// openvswitch/ovs @ d6a632a9b1 tests/learn.at (flows and expected dump-flows lines quoted; its
// packets, given there in datapath syntax, are written here in ofproto/trace's flow syntax).
import { describe, expect, it } from 'vitest';
import { Clock } from '../../src/core/clock.js';
import { Bridge, formatActions, parseFlowMod, receive } from '../../src/ovs/index.js';

const acts = (line: string): string => formatActions(parseFlowMod(line, 'add').actions);
const sorted = (lines: string[]): string[] => [...lines].sort();

function bridge(ports: number): Bridge {
  const br = new Bridge({ name: 'br0', clock: new Clock() });
  for (let i = 1; i <= ports; i++) br.addPort(`p${i}`, i);
  return br;
}

describe('tests/learn.at: learning action - parsing and formatting, examples', () => {
  it.each([
    ['actions=learn()', 'learn(table=1)'],
    ['actions=learn(send_flow_rem)', 'learn(table=1,send_flow_rem)'],
    ['actions=learn(delete_learned)', 'learn(table=1,delete_learned)'],
    ['actions=learn(send_flow_rem,delete_learned)', 'learn(table=1,send_flow_rem,delete_learned)'],
    [
      'actions=learn(NXM_OF_VLAN_TCI[0..11], NXM_OF_ETH_DST[]=NXM_OF_ETH_SRC[], NXM_NX_REG3[3..19]=0x10011, output:NXM_OF_IN_PORT[], load:10->NXM_NX_REG0[5..10])',
      'learn(table=1,NXM_OF_VLAN_TCI[0..11],NXM_OF_ETH_DST[]=NXM_OF_ETH_SRC[],NXM_NX_REG3[3..19]=0x10011,output:NXM_OF_IN_PORT[],load:0xa->NXM_NX_REG0[5..10])',
    ],
    [
      'actions=learn(table=1,idle_timeout=10, hard_timeout=20, fin_idle_timeout=5, fin_hard_timeout=10, priority=10, cookie=0xfedcba9876543210, in_port=99,eth_dst=eth_src,load:in_port->reg1[16..31])',
      'learn(table=1,idle_timeout=10,hard_timeout=20,fin_idle_timeout=5,fin_hard_timeout=10,priority=10,cookie=0xfedcba9876543210,in_port=99,NXM_OF_ETH_DST[]=NXM_OF_ETH_SRC[],load:NXM_OF_IN_PORT[]->NXM_NX_REG1[16..31])',
    ],
    ['actions=learn(limit=4096)', 'learn(table=1,limit=4096)'],
    [
      'table=0 actions=learn(table=1,hard_timeout=10, NXM_OF_VLAN_TCI[0..11],output:NXM_OF_IN_PORT[]), resubmit(,1)',
      'learn(table=1,hard_timeout=10,NXM_OF_VLAN_TCI[0..11],output:NXM_OF_IN_PORT[]),resubmit(,1)',
    ],
  ])('%s', (line, want) => {
    expect(acts(line)).toBe(want);
  });
});

describe('tests/learn.at: learning action - standard VLAN+MAC learning', () => {
  it('learns a MAC per port, floods until then, and relearns a moved MAC', () => {
    const br = bridge(3);
    br.addFlows(`table=0 actions=learn(table=1, hard_timeout=60, NXM_OF_VLAN_TCI[0..11], NXM_OF_ETH_DST[]=NXM_OF_ETH_SRC[], output:NXM_OF_IN_PORT[]), resubmit(,1)
table=1 priority=0 actions=flood`);
    const arp1 =
      'in_port=3,arp,dl_src=50:54:00:00:00:05,dl_dst=ff:ff:ff:ff:ff:ff,arp_spa=192.168.0.1,arp_tpa=192.168.0.2,arp_op=1,arp_sha=50:54:00:00:00:05';
    expect(receive(br, arp1).datapathActions).toBe('1,2,100');
    expect(sorted(br.dumpFlows({ noStats: true, filter: 'table=1' }))).toEqual([
      ' table=1, hard_timeout=60, vlan_tci=0x0000/0x0fff,dl_dst=50:54:00:00:00:05 actions=output:3',
      ' table=1, priority=0 actions=FLOOD',
    ]);
    const arp2 =
      'in_port=1,arp,dl_src=50:54:00:00:00:06,dl_dst=50:54:00:00:00:05,arp_spa=192.168.0.2,arp_tpa=192.168.0.1,arp_op=2,arp_sha=50:54:00:00:00:06,arp_tha=50:54:00:00:00:05';
    expect(receive(br, arp2).datapathActions).toBe('3');
    expect(sorted(br.dumpFlows({ noStats: true, filter: 'table=1' }))).toEqual([
      ' table=1, hard_timeout=60, vlan_tci=0x0000/0x0fff,dl_dst=50:54:00:00:00:05 actions=output:3',
      ' table=1, hard_timeout=60, vlan_tci=0x0000/0x0fff,dl_dst=50:54:00:00:00:06 actions=output:1',
      ' table=1, priority=0 actions=FLOOD',
    ]);
    const arp3 = arp1.replace('in_port=3', 'in_port=2');
    expect(receive(br, arp3).datapathActions).toBe('1,3,100');
    expect(sorted(br.dumpFlows({ noStats: true, filter: 'table=1' }))).toEqual([
      ' table=1, hard_timeout=60, vlan_tci=0x0000/0x0fff,dl_dst=50:54:00:00:00:05 actions=output:2',
      ' table=1, hard_timeout=60, vlan_tci=0x0000/0x0fff,dl_dst=50:54:00:00:00:06 actions=output:1',
      ' table=1, priority=0 actions=FLOOD',
    ]);
  });
});

describe('tests/learn.at: TCPv4 port learning, fin_timeout', () => {
  it('learns the reverse 5-tuple', () => {
    const br = bridge(3);
    br.addFlow(
      'table=0 tcp actions=learn(table=1, hard_timeout=60, eth_type=0x800, nw_proto=6, NXM_OF_IP_SRC[]=NXM_OF_IP_DST[], NXM_OF_IP_DST[]=NXM_OF_IP_SRC[], NXM_OF_TCP_SRC[]=NXM_OF_TCP_DST[], NXM_OF_TCP_DST[]=NXM_OF_TCP_SRC[]), flood',
    );
    const r = receive(
      br,
      'in_port=3,tcp,dl_src=50:54:00:00:00:05,dl_dst=50:54:00:00:00:06,nw_src=192.168.0.2,nw_dst=192.168.0.1,nw_ttl=64,tcp_src=40000,tcp_dst=80',
    );
    expect(r.datapathActions).toBe('1,2,100');
    expect(br.dumpFlows({ noStats: true, filter: 'table=1' })).toEqual([
      ' table=1, hard_timeout=60, tcp,nw_src=192.168.0.1,nw_dst=192.168.0.2,tp_src=80,tp_dst=40000 actions=drop',
    ]);
  });
  it('fin timeouts become a fin_timeout action of the learned flow', () => {
    const br = bridge(1);
    br.addFlow(
      'actions=learn(fin_hard_timeout=10, fin_idle_timeout=5, NXM_OF_ETH_DST[]=NXM_OF_ETH_SRC[], output:NXM_OF_IN_PORT[])',
    );
    receive(
      br,
      'in_port=1,arp,dl_src=50:54:00:00:00:05,dl_dst=ff:ff:ff:ff:ff:ff,arp_spa=192.168.0.1,arp_tpa=192.168.0.2,arp_op=1,arp_sha=50:54:00:00:00:05',
    );
    expect(br.dumpFlows({ noStats: true, filter: 'table=1' })).toEqual([
      ' table=1, dl_dst=50:54:00:00:00:05 actions=fin_timeout(idle_timeout=5,hard_timeout=10),output:1',
    ]);
  });
  it('fin_timeout shortens a flow’s timeouts when a FIN passes (ovs-actions(7) "fin_timeout")', () => {
    const clock = new Clock();
    const br = new Bridge({ clock });
    br.addPort('p1', 1);
    br.addFlow('tcp,idle_timeout=60,actions=fin_timeout(idle_timeout=5),output:1');
    receive(br, 'in_port=2,tcp,tcp_flags=0x010');
    expect(br.dumpFlows({ noStats: true })).toEqual([
      ' idle_timeout=60, tcp actions=fin_timeout(idle_timeout=5),output:1',
    ]);
    receive(br, 'in_port=2,tcp,tcp_flags=0x011');
    expect(br.dumpFlows({ noStats: true })).toEqual([
      ' idle_timeout=5, tcp actions=fin_timeout(idle_timeout=5),output:1',
    ]);
    clock.advance(5000);
    expect(br.flowCount).toBe(0);
  });
});

describe('tests/learn.at: learning action - delete_learned feature', () => {
  const dump = (br: Bridge): string[] => sorted(br.dumpFlows({ noStats: true }));
  it('deletes the flows of a (table, cookie) once no learn targets it', () => {
    const br = bridge(2);
    br.addFlows(`                       reg0=0x1 actions=learn(delete_learned,cookie=0x123)
                       reg0=0x2 actions=learn(delete_learned,cookie=0x123)
cookie=0x123, table=1, reg0=0x3 actions=drop
cookie=0x123, table=1, reg0=0x4 actions=drop
cookie=0x123, table=2, reg0=0x5 actions=drop
cookie=0x234, table=1, reg0=0x6 actions=drop`);
    const base = [
      ' cookie=0x123, table=1, reg0=0x3 actions=drop',
      ' cookie=0x123, table=1, reg0=0x4 actions=drop',
      ' cookie=0x123, table=2, reg0=0x5 actions=drop',
      ' cookie=0x234, table=1, reg0=0x6 actions=drop',
    ];
    expect(dump(br)).toEqual([
      ...base,
      ' reg0=0x1 actions=learn(table=1,delete_learned,cookie=0x123)',
      ' reg0=0x2 actions=learn(table=1,delete_learned,cookie=0x123)',
    ]);
    br.delFlows('table=0 reg0=1');
    expect(dump(br)).toEqual([...base, ' reg0=0x2 actions=learn(table=1,delete_learned,cookie=0x123)']);
    br.modFlows('table=0 reg0=2 actions=output:1,learn(delete_learned,cookie=0x123)');
    expect(dump(br)).toEqual([
      ...base,
      ' reg0=0x2 actions=output:1,learn(table=1,delete_learned,cookie=0x123)',
    ]);
    br.modFlows('table=0 reg0=2 actions=learn(delete_learned,cookie=0x234)');
    expect(dump(br)).toEqual([
      ' cookie=0x123, table=2, reg0=0x5 actions=drop',
      ' cookie=0x234, table=1, reg0=0x6 actions=drop',
      ' reg0=0x2 actions=learn(table=1,delete_learned,cookie=0x234)',
    ]);
    br.addFlow('table=0 reg0=2 actions=learn(delete_learned,cookie=0x234),output:2');
    expect(dump(br)).toEqual([
      ' cookie=0x123, table=2, reg0=0x5 actions=drop',
      ' cookie=0x234, table=1, reg0=0x6 actions=drop',
      ' reg0=0x2 actions=learn(table=1,delete_learned,cookie=0x234),output:2',
    ]);
    br.delFlows('table=0');
    expect(dump(br)).toEqual([' cookie=0x123, table=2, reg0=0x5 actions=drop']);
  });
  it('cascades through learned flows that learn', () => {
    const br = bridge(2);
    br.delFlows();
    br.addFlows(`                       reg0=0x1 actions=learn(table=1,delete_learned,cookie=0x123)
                       reg0=0x2 actions=learn(table=2,delete_learned,cookie=0x234)
cookie=0x123, table=1, reg0=0x3 actions=learn(table=3,delete_learned,cookie=0x345)
cookie=0x234, table=2, reg0=0x3 actions=learn(table=4,delete_learned,cookie=0x456)
cookie=0x345, table=3, reg0=0x4 actions=learn(table=5,delete_learned,cookie=0x567)
cookie=0x456, table=4, reg0=0x5 actions=learn(table=5,delete_learned,cookie=0x567)
cookie=0x567, table=5, reg0=0x6 actions=drop
cookie=0x567, table=5, reg0=0x7 actions=drop
cookie=0x567, table=5, reg0=0x8 actions=drop`);
    br.delFlows('table=0 reg0=1');
    expect(dump(br)).toEqual([
      ' cookie=0x234, table=2, reg0=0x3 actions=learn(table=4,delete_learned,cookie=0x456)',
      ' cookie=0x456, table=4, reg0=0x5 actions=learn(table=5,delete_learned,cookie=0x567)',
      ' cookie=0x567, table=5, reg0=0x6 actions=drop',
      ' cookie=0x567, table=5, reg0=0x7 actions=drop',
      ' cookie=0x567, table=5, reg0=0x8 actions=drop',
      ' reg0=0x2 actions=learn(table=2,delete_learned,cookie=0x234)',
    ]);
    br.delFlows('table=0 reg0=2');
    expect(dump(br)).toEqual([]);
  });
});
