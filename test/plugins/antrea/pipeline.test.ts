/**
 * Antrea's Windows pipeline against Antrea's own test vectors (antrea-io/antrea @ fc70f2bb70):
 * the expected flow strings of pkg/agent/openflow/pod_connectivity_test.go
 * (`Test_featurePodConnectivity_initFlows`, cases "IPv4 Encap" and "IPv4 NoEncap" on Windows:
 * lines 62-110 and 139-222) and client_test.go (`Test_client_InstallPodFlows` "IPv4", lines
 * 743-771; `Test_client_InstallNodeFlows` "IPv4 Encap", lines 579-611), with those tests' fixture:
 * gateway 10.10.0.1 / 0a:00:00:00:00:01, node 192.168.77.100, pod CIDR 10.10.0.0/24, cookie round
 * 1, proxyAll off. Compared as sets (the tests use assert.ElementsMatch).
 */
import { describe, expect, it } from 'vitest';
import {
  endpointFlows,
  nodePortFlows,
  serviceFlows,
  serviceGroup,
  serviceInitFlows,
  initFlows,
  missFlows,
  nodeFlows,
  podFlows,
  policyFlows,
  policyInitFlows,
  realize,
  windowsTables,
  type PipelineConfig,
} from '../../../src/plugins/antrea/pipeline.js';
import { sha1Hex } from '../../../src/core/sha1.js';
import { containerInterfaceName } from '../../../src/plugins/antrea/naming.js';
import { Bridge } from '../../../src/ovs/index.js';

const ENCAP_INIT = [
  'cookie=0x1010000000000, table=ARPSpoofGuard, priority=200,arp,in_port=32769,arp_spa=10.10.0.1,arp_sha=0a:00:00:00:00:01 actions=goto_table:ARPResponder',
  'cookie=0x1010000000000, table=ARPResponder, priority=190,arp actions=NORMAL',
  'cookie=0x1010000000000, table=Classifier, priority=210,ip,in_port=32769,nw_src=10.10.0.1 actions=set_field:0x2/0xf->reg0,set_field:0x10000000/0x10000000->reg4,goto_table:SpoofGuard',
  'cookie=0x1010000000000, table=Classifier, priority=200,in_port=32769 actions=set_field:0x2/0xf->reg0,set_field:0x8000000/0x8000000->reg4,goto_table:SpoofGuard',
  'cookie=0x1010000000000, table=ConntrackZone, priority=200,ip actions=ct(table=ConntrackState,zone=65520,nat)',
  'cookie=0x1010000000000, table=ConntrackState, priority=200,ct_state=+inv+trk,ip actions=drop',
  'cookie=0x1010000000000, table=ConntrackState, priority=190,ct_state=-new+trk,ct_mark=0x0/0x10,ip actions=goto_table:AntreaPolicyEgressRule',
  'cookie=0x1010000000000, table=ConntrackState, priority=0 actions=goto_table:PreRoutingClassifier',
  'cookie=0x1010000000000, table=L3Forwarding, priority=210,ip,nw_dst=10.10.0.1 actions=set_field:0a:00:00:00:00:01->eth_dst,set_field:0x20/0xf0->reg0,goto_table:L3DecTTL',
  'cookie=0x1010000000000, table=L3Forwarding, priority=210,ct_state=+rpl+trk,ct_mark=0x2/0xf,ip actions=set_field:0a:00:00:00:00:01->eth_dst,set_field:0x20/0xf0->reg0,goto_table:L3DecTTL',
  'cookie=0x1010000000000, table=L3Forwarding, priority=200,ip,reg0=0x0/0x200,nw_dst=10.10.0.0/24 actions=goto_table:L2ForwardingCalc',
  'cookie=0x1010000000000, table=L3Forwarding, priority=0 actions=set_field:0x20/0xf0->reg0,goto_table:L2ForwardingCalc',
  'cookie=0x1010000000000, table=L3DecTTL, priority=210,ip,reg0=0x2/0xf actions=goto_table:SNATMark',
  'cookie=0x1010000000000, table=L3DecTTL, priority=200,ip actions=dec_ttl,goto_table:SNATMark',
  'cookie=0x1010000000000, table=ConntrackCommit, priority=200,ct_state=+new+trk,ct_mark=0x0/0x20,ip actions=ct(commit,table=Output,zone=65520,exec(move:NXM_NX_REG0[0..3]->NXM_NX_CT_MARK[0..3]))',
  'cookie=0x1010000000000, table=Output, priority=200,reg0=0x200000/0x600000 actions=output:NXM_NX_REG1[]',
  'cookie=0x1010000000000, table=Classifier, priority=200,in_port=32768 actions=set_field:0x1/0xf->reg0,set_field:0x200/0x200->reg0,goto_table:UnSNAT',
  'cookie=0x1010000000000, table=SpoofGuard, priority=200,ip,in_port=32769 actions=goto_table:UnSNAT',
  'cookie=0x1010000000000, table=ARPSpoofGuard, priority=200,in_port=32770 actions=output:4294967294',
  'cookie=0x1010000000000, table=ARPSpoofGuard, priority=200,in_port=4294967294 actions=output:32770',
  'cookie=0x1010000000000, table=Classifier, priority=200,ip,in_port=32770,nw_dst=192.168.77.100 actions=output:4294967294',
  'cookie=0x1010000000000, table=Classifier, priority=200,in_port=4294967294 actions=output:32770',
  'cookie=0x1010000000000, table=IngressSecurityClassifier, priority=210,ct_state=-rpl+trk,ip,nw_src=10.10.0.1 actions=goto_table:ConntrackCommit',
  'cookie=0x1010000000000, table=L2ForwardingCalc, priority=200,dl_dst=0a:00:00:00:00:01 actions=set_field:0x8001->reg1,set_field:0x200000/0x600000->reg0,goto_table:IngressSecurityClassifier',
  'cookie=0x1010000000000, table=L2ForwardingCalc, priority=200,dl_dst=aa:bb:cc:dd:ee:ff actions=set_field:0x8000->reg1,set_field:0x200000/0x600000->reg0,goto_table:IngressSecurityClassifier',
];

const NOENCAP_INIT = [
  'cookie=0x1010000000000, table=ARPSpoofGuard, priority=200,arp,in_port=32769,arp_spa=10.10.0.1,arp_sha=0a:00:00:00:00:01 actions=goto_table:ARPResponder',
  'cookie=0x1010000000000, table=ARPResponder, priority=190,arp actions=NORMAL',
  'cookie=0x1010000000000, table=Classifier, priority=210,ip,in_port=32769,nw_src=10.10.0.1 actions=set_field:0x2/0xf->reg0,set_field:0x10000000/0x10000000->reg4,goto_table:SpoofGuard',
  'cookie=0x1010000000000, table=Classifier, priority=200,in_port=32769 actions=set_field:0x2/0xf->reg0,set_field:0x8000000/0x8000000->reg4,goto_table:SpoofGuard',
  'cookie=0x1010000000000, table=ConntrackState, priority=200,ct_state=+inv+trk,ip actions=drop',
  'cookie=0x1010000000000, table=ConntrackState, priority=190,ct_state=-new+trk,ct_mark=0x0/0x10,ip actions=goto_table:AntreaPolicyEgressRule',
  'cookie=0x1010000000000, table=ConntrackState, priority=0 actions=goto_table:PreRoutingClassifier',
  'cookie=0x1010000000000, table=L3Forwarding, priority=210,ip,nw_dst=10.10.0.1 actions=set_field:0a:00:00:00:00:01->eth_dst,set_field:0x20/0xf0->reg0,goto_table:L3DecTTL',
  'cookie=0x1010000000000, table=L3Forwarding, priority=210,ct_state=+rpl+trk,ct_mark=0x2/0xf,ip actions=set_field:0a:00:00:00:00:01->eth_dst,set_field:0x20/0xf0->reg0,goto_table:L3DecTTL',
  'cookie=0x1010000000000, table=L3Forwarding, priority=0 actions=set_field:0x20/0xf0->reg0,goto_table:L2ForwardingCalc',
  'cookie=0x1010000000000, table=L3DecTTL, priority=210,ip,reg0=0x2/0xf actions=goto_table:SNATMark',
  'cookie=0x1010000000000, table=L3DecTTL, priority=200,ip actions=dec_ttl,goto_table:SNATMark',
  'cookie=0x1010000000000, table=Output, priority=200,reg0=0x200000/0x600000 actions=output:NXM_NX_REG1[]',
  'cookie=0x1010000000000, table=ARPSpoofGuard, priority=200,in_port=32770 actions=output:4294967294',
  'cookie=0x1010000000000, table=ARPSpoofGuard, priority=200,in_port=4294967294 actions=output:32770',
  'cookie=0x1010000000000, table=Classifier, priority=210,ip,in_port=32770,nw_dst=10.10.0.0/24 actions=set_field:0x4/0xf->reg0,set_field:0x200/0x200->reg0,goto_table:UnSNAT',
  'cookie=0x1010000000000, table=Classifier, priority=200,ip,in_port=32770,nw_dst=192.168.77.100 actions=output:4294967294',
  'cookie=0x1010000000000, table=Classifier, priority=200,in_port=4294967294 actions=output:32770',
  'cookie=0x1010000000000, table=SpoofGuard, priority=200,ip,in_port=32769 actions=goto_table:UnSNAT',
  'cookie=0x1010000000000, table=ConntrackZone, priority=200,ip actions=ct(table=ConntrackState,zone=65520,nat)',
  'cookie=0x1010000000000, table=L3Forwarding, priority=200,ip,reg0=0x0/0x200,nw_dst=10.10.0.0/24 actions=goto_table:L2ForwardingCalc',
  'cookie=0x1010000000000, table=IngressSecurityClassifier, priority=210,ct_state=-rpl+trk,ip,nw_src=10.10.0.1 actions=goto_table:ConntrackCommit',
  'cookie=0x1010000000000, table=ConntrackCommit, priority=200,ct_state=+new+trk,ct_mark=0x0/0x20,ip actions=ct(commit,table=Output,zone=65520,exec(move:NXM_NX_REG0[0..3]->NXM_NX_CT_MARK[0..3]))',
  'cookie=0x1010000000000, table=L2ForwardingCalc, priority=200,dl_dst=0a:00:00:00:00:01 actions=set_field:0x8001->reg1,set_field:0x200000/0x600000->reg0,goto_table:IngressSecurityClassifier',
];

const POD_FLOWS = [
  'cookie=0x1010000000000, table=ARPSpoofGuard, priority=200,arp,in_port=100,arp_spa=10.10.0.66,arp_sha=00:00:10:10:00:66 actions=goto_table:ARPResponder',
  'cookie=0x1010000000000, table=Classifier, priority=190,in_port=100 actions=set_field:0x3/0xf->reg0,set_field:0x10000000/0x10000000->reg4,goto_table:SpoofGuard',
  'cookie=0x1010000000000, table=SpoofGuard, priority=200,ip,in_port=100,dl_src=00:00:10:10:00:66,nw_src=10.10.0.66 actions=goto_table:UnSNAT',
  'cookie=0x1010000000000, table=L3Forwarding, priority=200,ip,reg0=0x200/0x200,nw_dst=10.10.0.66 actions=set_field:0a:00:00:00:00:01->eth_src,set_field:00:00:10:10:00:66->eth_dst,goto_table:L3DecTTL',
  'cookie=0x1010000000000, table=L2ForwardingCalc, priority=200,dl_dst=00:00:10:10:00:66 actions=set_field:0x64->reg1,set_field:0x200000/0x600000->reg0,goto_table:IngressSecurityClassifier',
];

const NODE_FLOWS_TEST = [
  'cookie=0x1010000000000, table=ARPResponder, priority=200,arp,arp_tpa=10.10.1.1,arp_op=1 actions=move:NXM_OF_ETH_SRC[]->NXM_OF_ETH_DST[],set_field:aa:bb:cc:dd:ee:ff->eth_src,set_field:2->arp_op,move:NXM_NX_ARP_SHA[]->NXM_NX_ARP_THA[],set_field:aa:bb:cc:dd:ee:ff->arp_sha,move:NXM_OF_ARP_SPA[]->NXM_OF_ARP_TPA[],set_field:10.10.1.1->arp_spa,IN_PORT',
  'cookie=0x1010000000000, table=Classifier, priority=200,in_port=100 actions=set_field:0x1/0xf->reg0,set_field:0x200/0x200->reg0,goto_table:UnSNAT',
  'cookie=0x1010000000000, table=L3Forwarding, priority=200,ip,nw_dst=10.10.1.0/24 actions=set_field:0a:00:00:00:00:01->eth_src,set_field:aa:bb:cc:dd:ee:ff->eth_dst,set_field:192.168.77.101->tun_dst,set_field:0x10/0xf0->reg0,goto_table:L3DecTTL',
  'cookie=0x1040000000000, table=EgressMark, priority=210,ip,nw_dst=192.168.77.101 actions=set_field:0x20/0xf0->reg0,goto_table:L2ForwardingCalc',
];

// service_test.go:35-58 (Test_featureService_initFlows, IPv4) and client_test.go:1238-1240,
// 1367, 1406-1407, 1071-1073, 1092-1094, 1121-1122 (InstallEndpointFlows, InstallServiceFlows,
// InstallServiceGroup): Service 10.96.0.100:80/TCP, group 100, endpoints 10.10.0.100:80 (remote)
// and 10.10.0.101:80 (local)
const SERVICE_INIT_IPV4 = [
  'cookie=0x1030000000000, table=UnSNAT, priority=200,ip,nw_dst=169.254.0.253 actions=ct(table=ConntrackZone,zone=65521,nat)',
  'cookie=0x1030000000000, table=UnSNAT, priority=200,ip,nw_dst=10.10.0.1 actions=ct(table=ConntrackZone,zone=65521,nat)',
  'cookie=0x1030000000000, table=ConntrackState, priority=190,ct_state=-new+trk,ct_mark=0x10/0x10,ip actions=set_field:0x200/0x200->reg0,goto_table:AntreaPolicyEgressRule',
  'cookie=0x1030000000000, table=SessionAffinity, priority=0 actions=set_field:0x10000/0x70000->reg4',
  'cookie=0x1030000000000, table=EndpointDNAT, priority=200,reg0=0x4000/0x4000 actions=controller(id=32776,reason=no_match,userdata=04,max_len=65535)',
  'cookie=0x1030000000000, table=EndpointDNAT, priority=190,reg4=0x20000/0x70000 actions=set_field:0x10000/0x70000->reg4,resubmit:ServiceLB',
  'cookie=0x1030000000000, table=L3Forwarding, priority=190,ct_mark=0x10/0x10,reg0=0x202/0x20f actions=set_field:0a:00:00:00:00:01->eth_dst,set_field:0x20/0xf0->reg0,goto_table:L3DecTTL',
  'cookie=0x1030000000000, table=SNATMark, priority=200,ct_state=+new+trk,ip,reg0=0x22/0xff actions=ct(commit,table=SNAT,zone=65520,exec(set_field:0x20/0x20->ct_mark,set_field:0x40/0x40->ct_mark,move:NXM_NX_REG0[0..3]->NXM_NX_CT_MARK[0..3]))',
  'cookie=0x1030000000000, table=SNATMark, priority=200,ct_state=+new+trk,ip,reg0=0x12/0xff,reg4=0x200000/0x2200000 actions=ct(commit,table=SNAT,zone=65520,exec(set_field:0x20/0x20->ct_mark,move:NXM_NX_REG0[0..3]->NXM_NX_CT_MARK[0..3]))',
  'cookie=0x1030000000000, table=SNAT, priority=200,ct_state=+new+trk,ct_mark=0x40/0x40,ip,reg0=0x2/0xf actions=ct(commit,table=L2ForwardingCalc,zone=65521,nat(src=169.254.0.253),exec(set_field:0x10/0x10->ct_mark,set_field:0x20/0x20->ct_mark,set_field:0x40/0x40->ct_mark))',
  'cookie=0x1030000000000, table=SNAT, priority=200,ct_state=+new+trk,ct_mark=0x40/0x40,ip,reg0=0x3/0xf actions=ct(commit,table=L2ForwardingCalc,zone=65521,nat(src=10.10.0.1),exec(set_field:0x10/0x10->ct_mark,set_field:0x20/0x20->ct_mark,set_field:0x40/0x40->ct_mark))',
  'cookie=0x1030000000000, table=SNAT, priority=190,ct_state=+new+trk,ct_mark=0x20/0x20,ip,reg0=0x2/0xf actions=ct(commit,table=L2ForwardingCalc,zone=65521,nat(src=10.10.0.1),exec(set_field:0x10/0x10->ct_mark,set_field:0x20/0x20->ct_mark))',
  'cookie=0x1030000000000, table=SNAT, priority=200,ct_state=-new-rpl+trk,ct_mark=0x20/0x20,ip actions=ct(table=L2ForwardingCalc,zone=65521,nat)',
  'cookie=0x1030000000000, table=Output, priority=210,ct_mark=0x40/0x40,reg0=0x200000/0x600000 actions=IN_PORT',
];

const SERVICE_INIT_PROXYALL = [
  'cookie=0x1030000000000, table=PreRoutingClassifier, priority=200,ip actions=resubmit:NodePortMark,resubmit:SessionAffinity,resubmit:ServiceLB',
  'cookie=0x1030000000000, table=NodePortMark, priority=200,ip,nw_dst=192.168.77.100 actions=set_field:0x80000/0x80000->reg4',
  'cookie=0x1030000000000, table=NodePortMark, priority=200,ip,nw_dst=169.254.0.252 actions=set_field:0x80000/0x80000->reg4',
];

const SERVICE_INIT_NO_PROXYALL = [
  'cookie=0x1030000000000, table=PreRoutingClassifier, priority=200,ip actions=resubmit:SessionAffinity,resubmit:ServiceLB',
];

const SERVICELB_CLUSTERIP = [
  'cookie=0x1030000000000, table=ServiceLB, priority=200,tcp,reg4=0x10000/0x70000,nw_dst=10.96.0.100,tp_dst=80 actions=set_field:0x200/0x200->reg0,set_field:0x20000/0x70000->reg4,set_field:0x64->reg7,group:100',
];

const SERVICELB_AFFINITY = [
  'cookie=0x1030000000000, table=ServiceLB, priority=200,tcp,reg4=0x10000/0x70000,nw_dst=10.96.0.100,tp_dst=80 actions=set_field:0x200/0x200->reg0,set_field:0x30000/0x70000->reg4,set_field:0x64->reg7,group:100',
  'cookie=0x1030000000064, table=ServiceLB, priority=190,tcp,reg4=0x30000/0x70000,nw_dst=10.96.0.100,tp_dst=80 actions=learn(table=SessionAffinity,hard_timeout=100,priority=200,delete_learned,cookie=0x1030000000064,eth_type=0x800,nw_proto=0x6,OXM_OF_TCP_DST[],NXM_OF_IP_DST[],NXM_OF_IP_SRC[],load:NXM_NX_REG4[0..15]->NXM_NX_REG4[0..15],load:NXM_NX_REG4[26]->NXM_NX_REG4[26],load:NXM_NX_REG3[]->NXM_NX_REG3[],load:0x2->NXM_NX_REG4[16..18],load:0x1->NXM_NX_REG0[9]),set_field:0x20000/0x70000->reg4,goto_table:EndpointDNAT',
];

/**
 * A NodePort as proxier.go installNodePortService asks for it (ServiceIP 169.254.0.252, IsExternal,
 * IsNodePort): client_test.go `Test_client_InstallServiceFlows` "Service NodePort,SessionAffinity"
 * (lines 1421-1432: UDP, nodePort 80, cluster group 100, affinity 100 s), verbatim.
 */
const SERVICELB_NODEPORT_AFFINITY = [
  'cookie=0x1030000000000, table=ServiceLB, priority=200,udp,reg4=0x90000/0xf0000,tp_dst=80 actions=set_field:0x200/0x200->reg0,set_field:0x30000/0x70000->reg4,set_field:0x200000/0x200000->reg4,set_field:0x64->reg7,group:100',
  'cookie=0x1030000000064, table=ServiceLB, priority=190,udp,reg4=0xb0000/0xf0000,tp_dst=80 actions=learn(table=SessionAffinity,hard_timeout=100,priority=200,delete_learned,cookie=0x1030000000064,eth_type=0x800,nw_proto=0x11,OXM_OF_UDP_DST[],NXM_OF_IP_DST[],NXM_OF_IP_SRC[],load:NXM_NX_REG4[0..15]->NXM_NX_REG4[0..15],load:NXM_NX_REG4[26]->NXM_NX_REG4[26],load:NXM_NX_REG3[]->NXM_NX_REG3[],load:0x2->NXM_NX_REG4[16..18],load:0x1->NXM_NX_REG0[9],load:0x1->NXM_NX_REG4[21]),set_field:0x20000/0x70000->reg4,goto_table:EndpointDNAT',
];

/**
 * A NodePort without affinity: upstream has no vector for it. Derived by hand from pipeline.go
 * serviceLBFlows (lines 2399-2440): EpToSelectRegMark and ToNodePortAddressRegMark matched (one
 * reg4 match, 0x10000/0x70000 + 0x80000/0x80000), no address; RewriteMAC, EpSelected (0x20000),
 * ToExternalAddress (reg4 bit 21), the group ID into reg7 — the same order as the vector above.
 */
const SERVICELB_NODEPORT = [
  'cookie=0x1030000000000, table=ServiceLB, priority=200,tcp,reg4=0x90000/0xf0000,tp_dst=30080 actions=set_field:0x200/0x200->reg0,set_field:0x20000/0x70000->reg4,set_field:0x200000/0x200000->reg4,set_field:0x64->reg7,group:100',
];

const ENDPOINT_DNAT = [
  'cookie=0x1030000000000, table=EndpointDNAT, priority=200,tcp,reg3=0xa0a0064,reg4=0x20050/0x7ffff actions=ct(commit,table=AntreaPolicyEgressRule,zone=65520,nat(dst=10.10.0.100:80),exec(set_field:0x10/0x10->ct_mark))',
  'cookie=0x1030000000000, table=EndpointDNAT, priority=200,tcp,reg3=0xa0a0065,reg4=0x20050/0x7ffff actions=ct(commit,table=AntreaPolicyEgressRule,zone=65520,nat(dst=10.10.0.101:80),exec(set_field:0x10/0x10->ct_mark))',
  'cookie=0x1030000000000, table=SNATMark, priority=190,ct_state=+new+trk,ip,nw_src=10.10.0.101,nw_dst=10.10.0.101 actions=ct(commit,table=SNAT,zone=65520,exec(set_field:0x20/0x20->ct_mark,set_field:0x40/0x40->ct_mark,move:NXM_NX_REG0[0..3]->NXM_NX_CT_MARK[0..3]))',
];

const FIXTURE: PipelineConfig = {
  nodeIp: '192.168.77.100',
  podCidr: '10.10.0.0/24',
  gatewayIp: '10.10.0.1',
  gatewayMac: '0a:00:00:00:00:01',
  encap: true,
  proxyAll: false,
  round: 1,
};

const sorted = (a: readonly string[]) => [...a].sort();

describe('the Windows pipeline against Antrea’s test vectors', () => {
  it('initial flows, encap (Geneve): the whole expected set', () => {
    expect(sorted(initFlows(FIXTURE))).toEqual(sorted(ENCAP_INIT));
  });

  it('initial flows, noEncap: the whole expected set (the uplink → pod CIDR flow, no tunnel flows)', () => {
    expect(sorted(initFlows({ ...FIXTURE, encap: false }))).toEqual(sorted(NOENCAP_INIT));
  });

  it('a local pod: its five flows', () => {
    expect(podFlows(FIXTURE, { ip: '10.10.0.66', mac: '00:00:10:10:00:66', ofport: 100 })).toEqual(POD_FLOWS);
  });

  it('a remote node over the tunnel: the ARP reply for its gateway and L3 forwarding with tun_dst (no IPsec, no Egress on Windows)', () => {
    const flows = nodeFlows(FIXTURE, {
      nodeIp: '192.168.77.101',
      podCidr: '10.10.1.0/24',
      gatewayIp: '10.10.1.1',
    });
    // the test's set also holds an IPsec tunnel classifier (ipsecTunOFPort 100) and an EgressMark
    // flow, neither of which a Windows node has (options_windows.go, antrea_features.go)
    expect(flows).toEqual(
      NODE_FLOWS_TEST.filter((l) => !l.includes('in_port=100') && !l.includes('EgressMark')),
    );
    expect(flows).toHaveLength(2);
  });

  it('with proxyAll (Antrea’s Windows manifests) the probe bypass also needs a non-Service connection', () => {
    const probe = initFlows({ ...FIXTURE, proxyAll: true }).find((l) =>
      l.includes('IngressSecurityClassifier'),
    )!;
    expect(probe).toBe(
      'cookie=0x1010000000000, table=IngressSecurityClassifier, priority=210,ct_state=-rpl+trk,ct_mark=0x0/0x10,ip,nw_src=10.10.0.1 actions=goto_table:ConntrackCommit',
    );
  });
});

describe('tables and realization', () => {
  it('29 tables with proxyAll, numbered in declaration order; 28 without (NodePortMark goes)', () => {
    const t = windowsTables({ proxyAll: true });
    expect(t).toHaveLength(29);
    expect([
      t.indexOf('Classifier'),
      t.indexOf('L3Forwarding'),
      t.indexOf('L2ForwardingCalc'),
      t.indexOf('Output'),
    ]).toEqual([3, 17, 21, 28]);
    const u = windowsTables({ proxyAll: false });
    expect(u).toHaveLength(28);
    expect(u.indexOf('SessionAffinity')).toBe(9);
  });

  it('every flow realizes into text ovs-ofctl takes; the miss flows chain each table to the next', () => {
    const cfg = { ...FIXTURE, proxyAll: true };
    const tables = windowsTables(cfg);
    const br = new Bridge({ name: 'br-int' });
    br.addFlows(
      realize(
        [
          ...missFlows(cfg),
          ...initFlows(cfg),
          ...podFlows(cfg, { ip: '10.10.0.66', mac: '00:00:10:10:00:66', ofport: 100 }),
        ],
        tables,
      ).join('\n'),
    );
    const dump = br.dumpFlows({ noStats: true }).join('\n');
    expect(dump).toContain('table=3, priority=0 actions=drop'); // Classifier drops on a miss
    expect(dump).toContain('table=8, priority=0 actions=goto_table:9'); // PreRoutingClassifier → NodePortMark
    expect(dump).toContain('table=28, priority=0 actions=drop');
    expect(dump).toContain('table=6, priority=200,ip actions=ct(table=7,zone=65520,nat)');
    expect(() => realize(['cookie=0x1, table=EgressMark, priority=0 actions=drop'], tables)).toThrow(
      /EgressMark/,
    );
  });
});

describe('interface names (pkg/agent/util/net.go GenerateContainerInterfaceName)', () => {
  it('SHA-1 as FIPS 180-4 gives it', () => {
    expect(sha1Hex('abc')).toBe('a9993e364706816aba3e25717850c26c9cd0d89d');
    expect(sha1Hex('')).toBe('da39a3ee5e6b4b0d3255bfef95601890afd80709');
    expect(sha1Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '84983e441c3bd26ebaae4aa1f95129e5e54670f1',
    );
  });

  it('upstream vector: pod0 with infra container 261a1970-… is pod0-6631b7 (server_windows_test.go)', () => {
    expect(containerInterfaceName('pod0', '261a1970-5b6c-11ed-8caf-000c294e5d03')).toBe('pod0-6631b7');
  });

  it('long names: the first 8 characters, leading dashes trimmed only then; 15 characters at most', () => {
    const n = containerInterfaceName('pod1-abcde-12345', 'container0');
    expect(n).toMatch(/^pod1-abc-[0-9a-f]{6}$/);
    expect(n).toHaveLength(15);
    expect(containerInterfaceName('--abcdefgh', 'c')).toMatch(/^abcdef-[0-9a-f]{6}$/);
    expect(containerInterfaceName('-ab', 'c')).toMatch(/^-ab-[0-9a-f]{6}$/);
    expect(containerInterfaceName('pod1-abcde-12345', 'container1')).not.toBe(n);
  });
});

describe('AntreaProxy’s flows and groups against Antrea’s test vectors', () => {
  const eps = [
    { ip: '10.10.0.100', port: 80, local: false },
    { ip: '10.10.0.101', port: 80, local: true },
  ];
  const svc = { clusterIP: '10.96.0.100', port: 80, protocol: 'TCP' as const, groupId: 100, endpoints: eps };

  it('the Service stage’s initial flows, with and without proxyAll', () => {
    expect(sorted(serviceInitFlows(FIXTURE))).toEqual(
      sorted([...SERVICE_INIT_IPV4, ...SERVICE_INIT_NO_PROXYALL]),
    );
    expect(sorted(serviceInitFlows({ ...FIXTURE, proxyAll: true }))).toEqual(
      sorted([...SERVICE_INIT_IPV4, ...SERVICE_INIT_PROXYALL]),
    );
  });

  it('a ClusterIP port: ServiceLB to its group; with ClientIP affinity, the learn flow into SessionAffinity', () => {
    expect(serviceFlows(FIXTURE, svc)).toEqual(SERVICELB_CLUSTERIP);
    expect(serviceFlows(FIXTURE, { ...svc, affinityTimeout: 100 })).toEqual(SERVICELB_AFFINITY);
  });

  it('a NodePort: ServiceLB on the NodePort mark and the nodePort, no address, ToExternalAddress loaded (client_test.go vector); none without proxyAll', () => {
    const udp = { ...svc, protocol: 'UDP' as const, affinityTimeout: 100, nodePort: 80 };
    const cfg = { ...FIXTURE, proxyAll: true };
    expect(nodePortFlows(cfg, udp)).toEqual(SERVICELB_NODEPORT_AFFINITY);
    expect(nodePortFlows(cfg, { ...svc, nodePort: 30080 })).toEqual(SERVICELB_NODEPORT);
    // the ClusterIP's flows are unchanged by a nodePort
    expect(serviceFlows(cfg, { ...svc, nodePort: 30080 })).toEqual(SERVICELB_CLUSTERIP);
    expect(nodePortFlows(cfg, svc)).toEqual([]);
    expect(nodePortFlows(FIXTURE, { ...svc, nodePort: 30080 })).toEqual([]);
  });

  it('the endpoints’ DNAT commits, and hairpin marking for the local one', () => {
    expect(endpointFlows(FIXTURE, 'TCP', eps)).toEqual(ENDPOINT_DNAT);
  });

  it('the select group: a bucket per endpoint (a remote one marked), to EndpointDNAT or back to ServiceLB with affinity; none: the no-endpoint mark', () => {
    expect(serviceGroup(svc)).toBe(
      'group_id=100,type=select,bucket=bucket_id:0,weight:100,actions=set_field:0x4000000/0x4000000->reg4,set_field:0xa0a0064->reg3,set_field:0x50/0xffff->reg4,resubmit:EndpointDNAT,bucket=bucket_id:1,weight:100,actions=set_field:0xa0a0065->reg3,set_field:0x50/0xffff->reg4,resubmit:EndpointDNAT',
    );
    expect(serviceGroup({ ...svc, affinityTimeout: 100 })).toBe(
      'group_id=100,type=select,bucket=bucket_id:0,weight:100,actions=set_field:0x4000000/0x4000000->reg4,set_field:0xa0a0064->reg3,set_field:0x50/0xffff->reg4,resubmit:ServiceLB,bucket=bucket_id:1,weight:100,actions=set_field:0xa0a0065->reg3,set_field:0x50/0xffff->reg4,resubmit:ServiceLB',
    );
    expect(serviceGroup({ ...svc, endpoints: [] })).toBe(
      'group_id=100,type=select,bucket=bucket_id:0,weight:100,actions=set_field:0x4000/0x4000->reg0,resubmit:EndpointDNAT',
    );
  });

  it('all of it realizes into flows and a group ovs-ofctl takes', () => {
    const cfg = { ...FIXTURE, proxyAll: true };
    const tables = windowsTables(cfg);
    const br = new Bridge({ name: 'br-int' });
    br.addGroup(realize([serviceGroup({ ...svc, affinityTimeout: 100 })], tables)[0]!);
    br.addFlows(
      realize(
        [
          ...serviceInitFlows(cfg),
          ...serviceFlows(cfg, { ...svc, affinityTimeout: 100 }),
          ...endpointFlows(cfg, 'TCP', eps),
        ],
        tables,
      ).join('\n'),
    );
    expect(br.dumpGroups()[0]).toContain('resubmit(,11)');
    expect(br.dumpFlows({ noStats: true }).join('\n')).toContain('learn(table=10,');
  });
});

describe('NetworkPolicy flows against Antrea’s test vectors (pkg/agent/openflow/network_policy_test.go)', () => {
  it('the initial flows (networkPolicyInitFlows, a K8s Node, no OVS meters): logging packet-ins, IngressSecurityClassifier skips, the established bypass', () => {
    const expected = [
      ...[1, 2, 3, 4, 5, 6, 7].map(
        (k) =>
          `cookie=0x1020000000000, table=Output, priority=200,reg0=0x${['2', '4', '6', '8', 'a', 'c', 'e'][k - 1]}400000/0xfe600000 actions=controller(id=32776,reason=no_match,userdata=01.0${k},max_len=65535)`,
      ),
      'cookie=0x1020000000000, table=IngressSecurityClassifier, priority=200,reg0=0x20/0xf0 actions=goto_table:IngressMetric',
      'cookie=0x1020000000000, table=IngressSecurityClassifier, priority=200,reg0=0x10/0xf0 actions=goto_table:IngressMetric',
      'cookie=0x1020000000000, table=IngressSecurityClassifier, priority=200,reg0=0x40/0xf0 actions=goto_table:IngressMetric',
      'cookie=0x1020000000000, table=IngressSecurityClassifier, priority=200,ct_mark=0x40/0x40 actions=goto_table:ConntrackCommit',
      'cookie=0x1020000000000, table=AntreaPolicyEgressRule, priority=64990,ct_state=-new+est,ip actions=goto_table:EgressMetric',
      'cookie=0x1020000000000, table=AntreaPolicyEgressRule, priority=64990,ct_state=-new+rel,ip actions=goto_table:EgressMetric',
      'cookie=0x1020000000000, table=AntreaPolicyIngressRule, priority=64990,ct_state=-new+est,ip actions=goto_table:IngressMetric',
      'cookie=0x1020000000000, table=AntreaPolicyIngressRule, priority=64990,ct_state=-new+rel,ip actions=goto_table:IngressMetric',
    ];
    expect([...policyInitFlows(FIXTURE)].sort()).toEqual([...expected].sort());
  });

  it('TestBatchInstallPolicyRuleFlows "multiple K8s NetworkPolicy rules": conjunctions, conj_id flows, default drops, metric flows', () => {
    // rule 10: out, from .40 .50 to 0.0.0.0/0; rule 11: out, from .40 .51 to 0.0.0.0/0 on TCP 8080
    const pod = (ip: string) => ({ ofport: 0, ip });
    // the test's To is 0.0.0.0/0; a Kubernetes rule with no `to` reaches the agent with no peers,
    // which the controller writes as that same "any" block: both must give the vector
    const got = (peers: { peers?: string[] }) =>
      policyFlows(
        FIXTURE,
        [
          { id: 10, direction: 'Out', appliedTo: [pod('192.168.1.40'), pod('192.168.1.50')], ...peers },
          {
            id: 11,
            direction: 'Out',
            appliedTo: [pod('192.168.1.40'), pod('192.168.1.51')],
            ...peers,
            ports: [{ protocol: 'TCP', port: 8080 }],
          },
        ],
        { in: [], out: [pod('192.168.1.40'), pod('192.168.1.50'), pod('192.168.1.51')] },
      ).sort();
    const expected = [
      'cookie=0x1020000000000, table=EgressRule, priority=190,conj_id=10,ip actions=set_field:0xa->reg5,ct(commit,table=EgressMetric,zone=65520,exec(set_field:0xa00000000/0xffffffff00000000->ct_label))',
      'cookie=0x1020000000000, table=EgressRule, priority=190,conj_id=11,ip actions=set_field:0xb->reg5,ct(commit,table=EgressMetric,zone=65520,exec(set_field:0xb00000000/0xffffffff00000000->ct_label))',
      'cookie=0x1020000000000, table=EgressRule, priority=200,ip,nw_src=192.168.1.40 actions=conjunction(10,1/2),conjunction(11,1/3)',
      'cookie=0x1020000000000, table=EgressRule, priority=200,ip,nw_src=192.168.1.50 actions=conjunction(10,1/2)',
      'cookie=0x1020000000000, table=EgressRule, priority=200,ip,nw_src=192.168.1.51 actions=conjunction(11,1/3)',
      'cookie=0x1020000000000, table=EgressRule, priority=200,ip,nw_dst=0.0.0.0/0 actions=conjunction(10,2/2),conjunction(11,2/3)',
      'cookie=0x1020000000000, table=EgressRule, priority=200,tcp,tp_dst=8080 actions=conjunction(11,3/3)',
      'cookie=0x1020000000000, table=EgressDefaultRule, priority=200,ip,nw_src=192.168.1.40 actions=drop',
      'cookie=0x1020000000000, table=EgressDefaultRule, priority=200,ip,nw_src=192.168.1.50 actions=drop',
      'cookie=0x1020000000000, table=EgressDefaultRule, priority=200,ip,nw_src=192.168.1.51 actions=drop',
      'cookie=0x1020000000000, table=EgressMetric, priority=200,ct_state=+new,ct_label=0xa00000000/0xffffffff00000000,ip actions=goto_table:L3Forwarding',
      'cookie=0x1020000000000, table=EgressMetric, priority=200,ct_state=-new,ct_label=0xa00000000/0xffffffff00000000,ip actions=goto_table:L3Forwarding',
      'cookie=0x1020000000000, table=EgressMetric, priority=200,ct_state=+new,ct_label=0xb00000000/0xffffffff00000000,ip actions=goto_table:L3Forwarding',
      'cookie=0x1020000000000, table=EgressMetric, priority=200,ct_state=-new,ct_label=0xb00000000/0xffffffff00000000,ip actions=goto_table:L3Forwarding',
    ].sort();
    expect(got({ peers: ['0.0.0.0/0'] })).toEqual(expected);
    expect(got({})).toEqual(expected);
  });

  it('an ingress rule: peers are clause 1 (nw_src), the target ofport clause 2 (reg1, as the Antrea-native vector writes it), its label the low 32 bits, on to ConntrackCommit', () => {
    // network_policy_test.go (the Antrea-native case's K8s-shaped parts: `reg1=0x1` clauses,
    // `set_field:0xa->reg6`, `ct_label=0xa/0xffffffff`, IngressMetric → ConntrackCommit) and
    // pipeline.go defaultDropFlow (the ingress drop matches the target ofport only)
    const got = policyFlows(
      FIXTURE,
      [{ id: 10, direction: 'In', appliedTo: [{ ofport: 1, ip: '10.10.0.5' }], peers: ['192.168.1.40/32'] }],
      { in: [{ ofport: 1, ip: '10.10.0.5' }], out: [] },
    );
    expect(got.sort()).toEqual(
      [
        'cookie=0x1020000000000, table=IngressRule, priority=190,conj_id=10,ip actions=set_field:0xa->reg6,ct(commit,table=IngressMetric,zone=65520,exec(set_field:0xa/0xffffffff->ct_label))',
        'cookie=0x1020000000000, table=IngressRule, priority=200,ip,nw_src=192.168.1.40 actions=conjunction(10,1/2)',
        'cookie=0x1020000000000, table=IngressRule, priority=200,reg1=0x1 actions=conjunction(10,2/2)',
        'cookie=0x1020000000000, table=IngressMetric, priority=200,ct_state=+new,ct_label=0xa/0xffffffff,ip actions=goto_table:ConntrackCommit',
        'cookie=0x1020000000000, table=IngressMetric, priority=200,ct_state=-new,ct_label=0xa/0xffffffff,ip actions=goto_table:ConntrackCommit',
        'cookie=0x1020000000000, table=IngressDefaultRule, priority=200,reg1=0x1 actions=drop',
      ].sort(),
    );
  });

  it('the flows realize into a bridge ovs-ofctl takes', () => {
    const cfg = { ...FIXTURE, proxyAll: true };
    const br = new Bridge({ name: 'br-int' });
    const flows = [
      ...policyInitFlows(cfg),
      ...policyFlows(
        cfg,
        [
          {
            id: 3,
            direction: 'Out',
            appliedTo: [{ ofport: 5, ip: '10.10.0.5' }],
            ports: [{ protocol: 'UDP', port: 53 }],
          },
        ],
        { in: [], out: [{ ofport: 5, ip: '10.10.0.5' }] },
      ),
    ];
    for (const f of realize(flows, windowsTables(cfg))) br.addFlow(f);
    expect(br.flowCount).toBe(flows.length);
  });
});
