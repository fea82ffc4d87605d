// The ovs-ofctl flow syntax, parsed and printed, against openvswitch/ovs @ d6a632a9b1:
// tests/ovs-ofctl.at ("parse-flows (NXM)": input lines and the match/actions OVS prints back,
// "invalid mask", TCP flags), tests/ofp-actions.at ("action parsing errors"), and the error texts
// of lib/ofp-flow.c parse_ofp_str__ (quoted where no test has them). Bad input changes nothing.
import { describe, expect, it } from 'vitest';
import { Bridge, OvsError, formatActions, formatMatch, parseFlowMod } from '../../src/ovs/index.js';

const parse = (line: string): { match: string; actions: string } => {
  const fm = parseFlowMod(line, 'add');
  return { match: formatMatch(fm.match, fm.priority), actions: formatActions(fm.actions) };
};
const errorOf = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof OvsError) return e.message;
    throw e;
  }
  throw new Error('no error');
};

describe('tests/ovs-ofctl.at: parse-flows (NXM) — match and actions as OVS prints them', () => {
  it.each([
    ['tcp,tp_src=123,actions=flood', 'tcp,tp_src=123', 'FLOOD'],
    [
      'cookie=0x123456789abcdef hard_timeout=10 priority=60000 actions=controller',
      'priority=60000',
      'CONTROLLER:65535',
    ],
    [
      'actions=note:41.42.43,note:00.01.02.03.04.05.06.07,note',
      '',
      'note:41.42.43.00.00.00,note:00.01.02.03.04.05.06.07.00.00.00.00.00.00,note:00.00.00.00.00.00',
    ],
    [
      'tcp,tp_src=0x1230/0xfff0,tun_id=0x1234,cookie=0x5678,actions=flood',
      'tcp,tun_id=0x1234,tp_src=0x1230/0xfff0',
      'FLOOD',
    ],
    ['table=1,actions=drop', '', 'drop'],
    [
      'tun_id=0x1234000056780000/0xffff0000ffff0000,actions=drop',
      'tun_id=0x1234000056780000/0xffff0000ffff0000',
      'drop',
    ],
    [
      'metadata=0x1234ffff5678ffff/0xffff0000ffff0000,actions=drop',
      'metadata=0x1234000056780000/0xffff0000ffff0000',
      'drop',
    ],
    [
      'actions=resubmit:1,resubmit(2),resubmit(,3),resubmit(2,3)',
      '',
      'resubmit:1,resubmit:2,resubmit(,3),resubmit(2,3)',
    ],
    [
      'send_flow_rem,actions=output:1,output:NXM_NX_REG0,output:2,output:reg1[16..31],output:3',
      '',
      'output:1,output:NXM_NX_REG0[],output:2,output:NXM_NX_REG1[16..31],output:3',
    ],
    ['check_overlap,actions=output:1,exit,output:2', '', 'output:1,exit,output:2'],
    [
      'actions=controller(max_len=123,reason=invalid_ttl,id=555)',
      '',
      'controller(reason=invalid_ttl,max_len=123,id=555)',
    ],
    ['ip,actions=ct(commit,zone=5)', 'ip', 'ct(commit,zone=5)'],
    [
      'ip,ct_state=+trk,ct_label=0x1234567890abcdef12345678,actions=ct(commit)',
      'ct_state=+trk,ct_label=0x1234567890abcdef12345678,ip',
      'ct(commit)',
    ],
  ])('%s', (line, match, actions) => {
    expect(parse(line)).toEqual({ match, actions });
  });
});

describe('matches print the way match_format does (lib/match.c)', () => {
  it.each([
    // masks: CIDR prefixes print as /n, other masks in full; values are stored masked
    ['ip,nw_src=192.168.0.3/24,actions=drop', 'ip,nw_src=192.168.0.0/24'],
    ['ip,nw_dst=192.0.168.0/255.0.255.0,actions=drop', 'ip,nw_dst=192.0.168.0/255.0.255.0'],
    ['dl_src=00:11:22:33:44:55/00:ff:ff:ff:ff:ff,actions=drop', 'dl_src=00:11:22:33:44:55/00:ff:ff:ff:ff:ff'],
    ['dl_dst=00:0A:E4:25:6B:B0,actions=drop', 'dl_dst=00:0a:e4:25:6b:b0'],
    // registers in hex, subfield matches become value/mask
    ['reg0=0x3/0xf,reg1=100,actions=drop', 'reg0=0x3/0xf,reg1=0x64'],
    ['reg0[9]=1,actions=drop', 'reg0=0x200/0x200'],
    // ct_state: +/- in bit order when masked, flags joined by | when exact
    ['ct_state=+trk+new,ip,actions=drop', 'ct_state=+new+trk,ip'],
    ['ct_state=-new+est+trk,ip,actions=drop', 'ct_state=-new+est+trk,ip'],
    ['ct_state=0x21/0x21,ip,actions=drop', 'ct_state=+new+trk,ip'],
    ['ct_mark=0x10/0x10,ct_zone=65520,ip,actions=drop', 'ct_zone=65520,ct_mark=0x10/0x10,ip'],
    [
      'arp,arp_op=2,arp_spa=10.0.0.1,arp_sha=aa:bb:cc:dd:ee:ff,actions=drop',
      'arp,arp_spa=10.0.0.1,arp_op=2,arp_sha=aa:bb:cc:dd:ee:ff',
    ],
    ['icmp,icmp_type=8,icmp_code=0,actions=drop', 'icmp,icmp_type=8,icmp_code=0'],
    ['udp,udp_dst=53,actions=drop', 'udp,tp_dst=53'],
    ['ip,ip_dscp=0x3c,actions=drop', 'ip,nw_tos=240'],
    ['ipv6,ipv6_src=2001:db8::/32,actions=drop', 'ipv6,ipv6_src=2001:db8::/32'],
    ['tcp6,tcp_dst=443,actions=drop', 'tcp6,tp_dst=443'],
    [
      'tun_dst=192.168.77.101,tun_id=0x5,in_port=LOCAL,actions=drop',
      'tun_id=0x5,tun_dst=192.168.77.101,in_port=LOCAL',
    ],
    ['in_port=4294967294,actions=drop', 'in_port=LOCAL'],
    ['pkt_mark=0xbb,actions=drop', 'pkt_mark=0xbb'],
    ['conj_id=7,actions=drop', 'conj_id=7'],
    ['priority=0,actions=drop', 'priority=0'],
  ])('%s → %s', (line, match) => {
    expect(parse(line).match).toBe(match);
  });
});

describe('actions print as an OpenFlow 1.5 switch returns them (encode_SET_FIELD: OF1.5 has only Set-Field)', () => {
  it.each([
    ['actions=load:0x3->NXM_NX_REG0[0..3]', 'set_field:0x3/0xf->reg0'],
    ['actions=set_field:0x200/0x200->reg0', 'set_field:0x200/0x200->reg0'],
    [
      'actions=mod_dl_src:0a:00:00:00:00:01,mod_dl_dst:aa:bb:cc:dd:ee:ff',
      'set_field:0a:00:00:00:00:01->eth_src,set_field:aa:bb:cc:dd:ee:ff->eth_dst',
    ],
    ['ip,actions=mod_nw_dst:10.96.0.10', 'set_field:10.96.0.10->ip_dst'],
    ['udp,actions=mod_tp_dst:53', 'set_field:53->udp_dst'],
    ['actions=move:NXM_NX_REG0[0..3]->NXM_NX_REG1[4..7]', 'move:NXM_NX_REG0[0..3]->NXM_NX_REG1[4..7]'],
    ['ip,actions=ct(commit,exec(load(1->NXM_NX_CT_MARK[])))', 'ct(commit,exec(set_field:0x1->ct_mark))'],
    [
      'ip,actions=ct(commit,exec(set_field:000000000000000001->ct_label))',
      'ct(commit,exec(set_field:0x1->ct_label))',
    ],
    ['ip,actions=ct(table=6,zone=65520,nat)', 'ct(table=6,zone=65520,nat)'],
    [
      'tcp,actions=ct(commit,table=6,zone=NXM_NX_REG0[0..15],nat(dst=10.10.0.66:80))',
      'ct(commit,table=6,zone=NXM_NX_REG0[0..15],nat(dst=10.10.0.66:80))',
    ],
    ['actions=goto_table:5', 'goto_table:5'],
    ['actions=group:7', 'group:7'],
    ['actions=conjunction(2,1/3)', 'conjunction(2,1/3)'],
    ['actions=output:LOCAL,IN_PORT,NORMAL,in_port', 'LOCAL,IN_PORT,NORMAL,IN_PORT'],
    [
      'tcp,actions=learn(table=10,hard_timeout=300,priority=200,delete_learned,cookie=0x3,eth_type=0x800,nw_proto=6,NXM_OF_TCP_DST[],NXM_OF_IP_DST[],NXM_OF_IP_SRC[],load:NXM_NX_REG3[]->NXM_NX_REG3[],load:0x2->NXM_NX_REG4[16..18])',
      'learn(table=10,hard_timeout=300,priority=200,delete_learned,cookie=0x3,eth_type=0x800,nw_proto=6,NXM_OF_TCP_DST[],NXM_OF_IP_DST[],NXM_OF_IP_SRC[],load:NXM_NX_REG3[]->NXM_NX_REG3[],load:0x2->NXM_NX_REG4[16..18])',
    ],
  ])('%s', (line, actions) => {
    expect(parse(line).actions).toBe(actions);
  });
});

describe('tests/ofp-actions.at: action parsing errors', () => {
  it.each([
    ['controller(reason=asdf)', 'unknown reason "asdf"'],
    ['controller(foo=bar)', 'unknown key "foo" parsing controller action'],
    ['push_vlan(0x1234)', '0x1234: not a valid VLAN ethertype'],
    ['set_field:1', "1: missing `->'"],
    ['set_field:1->', "1->: missing field name following `->'"],
    ['set_field:1->x', 'x is not a valid OXM field name'],
    ['set_field:1->eth_type', 'eth_type is read-only'],
    ['set_field:1->eth_src', '1: invalid Ethernet address'],
    ['set_field:0xffff->ip_dscp', '0xffff: value too large for 1-byte field ip_dscp'],
    ['set_field:0xff->ip_dscp', '0xff is not a valid value for field ip_dscp'],
    ['load:xyzzy->eth_src', 'xyzzy->eth_src: cannot parse integer value'],
    ['load:0xff->eth_src[1..5]', '0xff->eth_src[1..5]: value 00:00:00:00:00:ff does not fit into 5 bits'],
    ['resubmit(asdf)', 'asdf: resubmit to unknown port'],
    ['resubmit(,asdf)', 'asdf: resubmit to unknown table'],
    ['resubmit(1,2,xyzzy)', 'xyzzy: unknown parameter'],
    ['resubmit(in_port,255)', 'at least one "in_port" or "table" must be specified on resubmit'],
    ['learn(load:1234->eth_dst[0..5])', '1234->eth_dst[0..5]: value does not fit into 6 bits'],
    [
      'learn(eth_type[5]=xyzzy)',
      "eth_type[5]=xyzzy: eth_type[5] value xyzzy cannot be parsed as a subfield (xyzzy: unknown field `xyzzy') or an immediate value (eth_type[5]=xyzzy: cannot parse integer value)",
    ],
    [
      'learn(eth_type[0]=eth_type[1..2])',
      'eth_type[0]=eth_type[1..2]: bit widths of eth_type[0] (2) and eth_type[1..2] (1) differ',
    ],
    ['learn(load:->)', "load: missing source before `->' in `->'"],
    ['learn(load:x)', "load: missing `->' in `x'"],
    ['learn(load:1x->foo)', "load: garbage before `->' in `1x->foo'"],
    ['learn(foo)', 'foo: unknown keyword foo'],
    ['learn(table=foo)', 'unknown table "foo"'],
    ['learn(table=255)', "table=255: table id 255 not valid for `learn' action"],
    ['conjunction(1, 1/1)', 'conjunction must have at least 2 clauses'],
    ['conjunction(1, 1/65)', 'conjunction must have at most 64 clauses'],
    ['conjunction(1, 0/2)', 'clause index must be positive'],
    ['conjunction(1, 3/2)', 'clause index must be less than or equal to number of clauses'],
    ['ct(table=asdf)', 'unknown table asdf'],
    ['ct(table=255)', 'invalid table 0xff'],
    ['ct(foo=bar)', 'invalid argument to "ct" action: `foo\''],
    ['ct(force)', '"force" flag requires "commit" flag.'],
    ['nat(src=1.2.3.4x)', 'Cannot have NAT action outside of "ct" action'],
    ['ct(commit,nat(src=1.2.3.4x))', 'garbage (x) after nat range "1.2.3.4x" (pos: 7)'],
    ['ct(commit,nat(src=1.2.3.4-0.1.2.3))', 'invalid nat range "1.2.3.4-0.1.2.3"'],
    ['ct(commit,nat(foo=bar))', 'invalid key "foo" in "nat" argument'],
    ['ct(commit,nat(src=1.2.3.4,dst=2.3.4.5))', 'May only specify one of "src" or "dst".'],
    ['ct(commit,nat(persistent))', 'Flags allowed only with "src" or "dst".'],
    ['ct(commit,nat(src=1.2.3.4,hash,random))', 'Both "hash" and "random" are not allowed.'],
    ['goto_table:asdf', 'unknown table "asdf"'],
    ['set_field:1234->ct_mark', 'cannot set CT fields outside of ct action'],
    ['nat', 'Cannot have NAT action outside of "ct" action'],
    ['ct(commit,exec(push_vlan(0x8100)))', "ct action doesn't support nested action push_vlan"],
    [
      'ct(commit,exec(set_field:12:34:56:78:9a:bc->eth_dst))',
      "ct action doesn't support nested modification of eth_dst",
    ],
    [
      'conjunction(1, 2/3),ct_clear',
      '"conjunction" actions may be used along with "note" but not any other kind of action (such as the "ct_clear" action used here)',
    ],
    ['note:x', "bad hex digit in `note' argument"],
    ['xyzzy', 'unknown action xyzzy'],
    ['drop,3', '"drop" must not be accompanied by any other action or instruction'],
  ])('actions=%s', (acts, msg) => {
    expect(errorOf(() => parseFlowMod(`actions=${acts}`, 'add'))).toBe(msg);
  });
  it('tests/classifier.at: conjunction beside output is refused', () => {
    expect(errorOf(() => parseFlowMod('actions=output:1,conjunction(3,1/2)', 'add'))).toBe(
      '"conjunction" actions may be used along with "note" but not any other kind of action (such as the "output" action used here)',
    );
    expect(() => parseFlowMod('actions=conjunction(3,1/2),note:41.42.43.44.45.46', 'add')).not.toThrow();
  });
});

describe('flow errors (tests/ovs-ofctl.at; lib/ofp-flow.c, lib/meta-flow.c, lib/nx-match.c texts)', () => {
  it.each([
    // tests/ovs-ofctl.at "invalid mask"
    ['ip,ip_dscp=0x3c/0xf0,actions=drop', '0x3c/0xf0: invalid mask for field ip_dscp'],
    ['ip,nw_ttl=5/1,actions=drop', '5/1: invalid mask for field nw_ttl'],
    ['icmp,icmp_type=1/1,actions=drop', '1/1: invalid mask for field icmp_type'],
    ['tcp,tcp_flags=+ack-ack,action=', 'ack: Each TCP flag can be specified only once'],
    // parse_ofp_str__
    ['foo=bar,actions=drop', 'unknown keyword foo'],
    ['in_port=1', 'must specify an action'],
    ['priority=70000,actions=drop', 'invalid priority "70000"'],
    ['idle_timeout=x,actions=drop', 'invalid idle_timeout "x"'],
    ['cookie=1/1,actions=drop', 'flow additions cannot use a cookie mask'],
    ['table=300,actions=drop', 'unknown table "300"'],
    ['table=,actions=drop', 'field table missing value'],
    // field values
    ['ip,nw_src=300.1.1.1,actions=drop', '300.1.1.1: invalid IP address'],
    [
      'ip,nw_src=10.0.0.0/33,actions=drop',
      '10.0.0.0/33: IPv4 network prefix bits not between 0 and 32, inclusive',
    ],
    ['dl_src=zz,actions=drop', 'zz: invalid Ethernet address'],
    ['ct_state=+foo,actions=drop', 'foo: unknown ct_state flag(s)'],
    ['ct_state=trk+new,actions=drop', 'trk+new: unknown ct_state flag(s)'],
    ['reg0=0x100000000,actions=drop', '0x100000000: value too large for 4-byte field reg0'],
    ['reg0=x,actions=drop', 'x: bad syntax for reg0 value'],
    ['in_port=nosuchport,actions=drop', 'nosuchport: invalid or unknown port for in_port'],
    ['reg0[40]=1,actions=drop', 'reg0[40]: starting bit 40 is not valid because field is only 32 bits wide'],
    ['reg0[0..3]=20,actions=drop', 'reg0[0..3]: value 0x14 does not fit into 4 bits'],
    ['reg0[3..1]=0,actions=drop', 'reg0[3..1]: starting bit 3 is after ending bit 1'],
    // the switch refuses a field without its prerequisites (OpenFlow error OFPBMC_BAD_PREREQ)
    ['nw_src=10.0.0.1,actions=drop', 'OFPBMC_BAD_PREREQ'],
    ['tp_dst=80,ip,actions=drop', 'OFPBMC_BAD_PREREQ'],
    ['actions=mod_nw_dst:10.0.0.1', 'actions are invalid with specified match (OFPBAC_MATCH_INCONSISTENT)'],
    ['table=3,actions=goto_table:2', 'actions are invalid with specified match (OFPBIC_BAD_TABLE_ID)'],
  ])('%s → %s', (line, msg) => {
    expect(errorOf(() => parseFlowMod(line, 'add'))).toBe(msg);
  });

  it('a bad line in add-flows changes nothing, and names its line', () => {
    const br = new Bridge();
    br.addFlows('priority=1,actions=drop');
    const before = br.dumpFlows({ noStats: true });
    expect(errorOf(() => br.addFlows('in_port=1,actions=drop\nin_port=2,actions=frobnicate'))).toBe(
      '-:2: unknown action frobnicate',
    );
    expect(br.dumpFlows({ noStats: true })).toEqual(before);
    expect(errorOf(() => br.delFlows('cookie=1'))).toBe(
      'cannot set cookie (to match on a cookie, specify a mask, e.g. cookie=1/-1)',
    );
    expect(br.dumpFlows({ noStats: true })).toEqual(before);
  });

  it('add-flows skips # comments, also after a flow (tests/ovs-ofctl.at tcp_flags flows)', () => {
    const br = new Bridge();
    br.addPort('p1', 1);
    br.addPort('p2', 2);
    br.addFlows(
      '# comment\n  in_port=1,tcp,tp_dst=80,tcp_flags=+syn-rst-ack-fin,action=2  # Allow outbound web traffic bare-SYN\n',
    );
    expect(br.dumpFlows({ noStats: true })).toEqual([
      ' tcp,in_port=1,tp_dst=80,tcp_flags=-fin+syn-rst-ack actions=output:2',
    ]);
  });

  it("OXM field names in subfields (as Antrea's OpenFlow library writes them) are read as their NXM fields; dump-flows prints NXM names, as Debian's ovs-vswitchd 3.1 does", () => {
    const br = new Bridge({ name: 'br0' });
    br.addFlows(
      'table=1,priority=190,tcp,actions=learn(table=2,hard_timeout=100,priority=200,cookie=0x64,eth_type=0x800,nw_proto=0x6,OXM_OF_TCP_DST[],OXM_OF_IPV4_DST[],NXM_OF_IP_SRC[],load:NXM_NX_REG4[0..15]->NXM_NX_REG4[0..15]),move:OXM_OF_ETH_SRC[]->NXM_OF_ETH_DST[]',
    );
    // the real daemon's dump of the same flow (observed through test/ovs/peer)
    expect(br.dumpFlows({ noStats: true })).toEqual([
      ' table=1, priority=190,tcp actions=learn(table=2,hard_timeout=100,priority=200,cookie=0x64,eth_type=0x800,nw_proto=6,NXM_OF_TCP_DST[],NXM_OF_IP_DST[],NXM_OF_IP_SRC[],load:NXM_NX_REG4[0..15]->NXM_NX_REG4[0..15]),move:NXM_OF_ETH_SRC[]->NXM_OF_ETH_DST[]',
    ]);
  });
});
