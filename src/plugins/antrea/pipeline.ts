/**
 * Antrea's OpenFlow pipeline on Windows, as text (reference ovs-windows.md §2; docs/antrea.md):
 * the tables a Windows agent realizes and the pod-connectivity flows it installs, written the way
 * Antrea's own tests print them (`binding.FlowModToString`: `cookie=0x…, table=<Name>, <match>
 * actions=<actions>`), then realized with the table numbers for `ovs-ofctl add-flows`.
 *
 * Facts from antrea-io/antrea @ fc70f2bb70: the flows of pkg/agent/openflow/pipeline.go,
 * pipeline_windows.go and pod_connectivity.go, checked against pod_connectivity_test.go and
 * client_test.go (test/plugins/antrea/pipeline.test.ts holds those vectors); table order from
 * pipeline.go/framework.go with Windows' default features (AntreaProxy with proxyAll,
 * AntreaPolicy; Egress, Multicast, TrafficControl off). Modelled: pod connectivity (the node's
 * uplink/LOCAL pass-through, gateway, tunnel, local pods, remote nodes by Geneve/VXLAN/STT),
 * AntreaProxy's ClusterIP and NodePort Services, Kubernetes NetworkPolicy (conjunctions in
 * Antrea's design).
 *
 *   const cfg = nodePipelineConfig({ nodeIp: '192.168.77.100', podCidr: '10.10.0.0/24', gatewayMac });
 *   realize([...initFlows(cfg), ...podFlows(cfg, pod)], windowsTables(cfg));
 */

/** Port numbers (pkg/agent/config/node_config.go, pkg/ovs/ovsconfig/interfaces.go). */
export const ANTREA_PORTS = {
  tunnel: 32768,
  gateway: 32769,
  uplink: 32770,
  /** The bridge's LOCAL port as Antrea prints it (OpenFlow 1.1+ 0xfffffffe). */
  local: 4294967294,
} as const;

/** Antrea's global virtual MAC: the destination MAC of every tunnelled packet (pipeline.go). */
export const GLOBAL_VIRTUAL_MAC = 'aa:bb:cc:dd:ee:ff';

/** Conntrack zones (pipeline.go CtZone, SNATCtZone). */
export const CT_ZONE = 65520;
export const SNAT_CT_ZONE = 65521;

/** Cookie categories (pkg/agent/openflow/cookie/allocator.go): round in bits 48-63, category 40-47. */
const COOKIE_CATEGORY = { Default: 0, PodConnectivity: 1, NetworkPolicy: 2, Service: 3 } as const;

export function cookieOf(round: number, category: keyof typeof COOKIE_CATEGORY): string {
  const v = (BigInt(round & 0xffff) << 48n) | (BigInt(COOKIE_CATEGORY[category]) << 40n);
  return `0x${v.toString(16)}`;
}

/** The traffic mode: encapsulated between nodes (a tunnel port), or not. */
export type TunnelType = 'geneve' | 'vxlan' | 'stt';

export interface PipelineConfig {
  readonly nodeIp: string;
  readonly podCidr: string;
  readonly gatewayIp: string;
  /** The gateway's MAC, lower-case colon form (Antrea reads it back from antrea-gw0). */
  readonly gatewayMac: string;
  /** Encap (a tunnel port at 32768) or noEncap. */
  readonly encap: boolean;
  /** AntreaProxy's proxyAll (on in Antrea's Windows manifests): adds NodePortMark. */
  readonly proxyAll: boolean;
  /** The cookie round (the agent's restart count; 1 in Antrea's tests). */
  readonly round: number;
}

/**
 * The tables a Windows agent realizes, numbered from 0 in declaration order (pipelines Root, ARP,
 * IP; pipeline.go's table declarations with the features on Windows): 29 with proxyAll.
 */
export function windowsTables(cfg: Pick<PipelineConfig, 'proxyAll'>): readonly string[] {
  return [
    'PipelineRootClassifier',
    'ARPSpoofGuard',
    'ARPResponder',
    'Classifier',
    'SpoofGuard',
    'UnSNAT',
    'ConntrackZone',
    'ConntrackState',
    'PreRoutingClassifier',
    ...(cfg.proxyAll ? ['NodePortMark'] : []),
    'SessionAffinity',
    'ServiceLB',
    'EndpointDNAT',
    'AntreaPolicyEgressRule',
    'EgressRule',
    'EgressDefaultRule',
    'EgressMetric',
    'L3Forwarding',
    'L3DecTTL',
    'SNATMark',
    'SNAT',
    'L2ForwardingCalc',
    'IngressSecurityClassifier',
    'AntreaPolicyIngressRule',
    'IngressRule',
    'IngressDefaultRule',
    'IngressMetric',
    'ConntrackCommit',
    'Output',
  ];
}

/** Tables whose miss drops (pipeline.go `defaultDrop`); the last table drops too. */
const DROP_ON_MISS: ReadonlySet<string> = new Set([
  'PipelineRootClassifier',
  'ARPSpoofGuard',
  'Classifier',
  'SpoofGuard',
]);

/** A flow in Antrea's printed form. */
const flow = (cookie: string, table: string, rest: string): string =>
  `cookie=${cookie}, table=${table}, ${rest}`;

/**
 * Every table's miss flow (`realizePipelines`): drop, or on to the next table of its pipeline;
 * ARPResponder ends the ARP pipeline. Tables that get a priority-0 flow of their own are skipped.
 */
export function missFlows(cfg: PipelineConfig): string[] {
  const c = cookieOf(cfg.round, 'Default');
  const tables = windowsTables(cfg);
  // (their priority-0 flows are pod connectivity's and AntreaProxy's: SessionAffinity's sets ToSelect)
  const own = new Set(['ConntrackState', 'L3Forwarding', 'SessionAffinity']);
  const out: string[] = [];
  tables.forEach((t, i) => {
    if (own.has(t)) return;
    const next = t === 'ARPResponder' || t === 'Output' ? undefined : tables[i + 1];
    out.push(
      flow(c, t, `priority=0 actions=${DROP_ON_MISS.has(t) || !next ? 'drop' : `goto_table:${next}`}`),
    );
  });
  return out;
}

/** The pipeline root's classification (pipeline.go pipelineClassifyFlow): ARP and IP to their pipelines. */
export function rootFlows(cfg: PipelineConfig): string[] {
  const c = cookieOf(cfg.round, 'Default');
  return [
    flow(c, 'PipelineRootClassifier', 'priority=200,arp actions=goto_table:ARPSpoofGuard'),
    flow(c, 'PipelineRootClassifier', 'priority=200,ip actions=goto_table:Classifier'),
  ];
}

/**
 * The node's pod-connectivity flows (featurePodConnectivity.initFlows on Windows): gateway
 * classification and spoof guard, conntrack, L3 forwarding to the gateway and the local subnet,
 * dec_ttl, commit, output, the gateway's L2 flow, the Windows uplink/LOCAL pass-through and probe
 * bypass; encap adds the tunnel's classifier and the global virtual MAC's L2 flow.
 */
export function initFlows(cfg: PipelineConfig): string[] {
  const c = cookieOf(cfg.round, 'PodConnectivity');
  const { gatewayIp: gw, gatewayMac: gwMac, podCidr, nodeIp } = cfg;
  const P = ANTREA_PORTS;
  const f = (table: string, rest: string) => flow(c, table, rest);
  const out = [
    f(
      'ARPSpoofGuard',
      `priority=200,arp,in_port=${P.gateway},arp_spa=${gw},arp_sha=${gwMac} actions=goto_table:ARPResponder`,
    ),
    f('ARPResponder', 'priority=190,arp actions=NORMAL'),
    f(
      'Classifier',
      `priority=210,ip,in_port=${P.gateway},nw_src=${gw} actions=set_field:0x2/0xf->reg0,set_field:0x10000000/0x10000000->reg4,goto_table:SpoofGuard`,
    ),
    f(
      'Classifier',
      `priority=200,in_port=${P.gateway} actions=set_field:0x2/0xf->reg0,set_field:0x8000000/0x8000000->reg4,goto_table:SpoofGuard`,
    ),
    f('ConntrackZone', `priority=200,ip actions=ct(table=ConntrackState,zone=${CT_ZONE},nat)`),
    f('ConntrackState', 'priority=200,ct_state=+inv+trk,ip actions=drop'),
    f(
      'ConntrackState',
      'priority=190,ct_state=-new+trk,ct_mark=0x0/0x10,ip actions=goto_table:AntreaPolicyEgressRule',
    ),
    f('ConntrackState', 'priority=0 actions=goto_table:PreRoutingClassifier'),
    f(
      'L3Forwarding',
      `priority=210,ip,nw_dst=${gw} actions=set_field:${gwMac}->eth_dst,set_field:0x20/0xf0->reg0,goto_table:L3DecTTL`,
    ),
    f(
      'L3Forwarding',
      `priority=210,ct_state=+rpl+trk,ct_mark=0x2/0xf,ip actions=set_field:${gwMac}->eth_dst,set_field:0x20/0xf0->reg0,goto_table:L3DecTTL`,
    ),
    f('L3Forwarding', `priority=200,ip,reg0=0x0/0x200,nw_dst=${podCidr} actions=goto_table:L2ForwardingCalc`),
    f('L3Forwarding', 'priority=0 actions=set_field:0x20/0xf0->reg0,goto_table:L2ForwardingCalc'),
    f('L3DecTTL', 'priority=210,ip,reg0=0x2/0xf actions=goto_table:SNATMark'),
    f('L3DecTTL', 'priority=200,ip actions=dec_ttl,goto_table:SNATMark'),
    f(
      'ConntrackCommit',
      `priority=200,ct_state=+new+trk,ct_mark=0x0/0x20,ip actions=ct(commit,table=Output,zone=${CT_ZONE},exec(move:NXM_NX_REG0[0..3]->NXM_NX_CT_MARK[0..3]))`,
    ),
    f('Output', 'priority=200,reg0=0x200000/0x600000 actions=output:NXM_NX_REG1[]'),
    f('SpoofGuard', `priority=200,ip,in_port=${P.gateway} actions=goto_table:UnSNAT`),
    // Windows (pipeline_windows.go): the uplink and the bridge's LOCAL port pass ARP and the node's traffic
    f('ARPSpoofGuard', `priority=200,in_port=${P.uplink} actions=output:${P.local}`),
    f('ARPSpoofGuard', `priority=200,in_port=${P.local} actions=output:${P.uplink}`),
    f('Classifier', `priority=200,ip,in_port=${P.uplink},nw_dst=${nodeIp} actions=output:${P.local}`),
    f('Classifier', `priority=200,in_port=${P.local} actions=output:${P.uplink}`),
    // the local probe bypass: Windows has no pkt_mark, so the gateway's IP (with proxyAll, not a Service's)
    f(
      'IngressSecurityClassifier',
      `priority=210,ct_state=-rpl+trk,${cfg.proxyAll ? 'ct_mark=0x0/0x10,' : ''}ip,nw_src=${gw} actions=goto_table:ConntrackCommit`,
    ),
    f(
      'L2ForwardingCalc',
      `priority=200,dl_dst=${gwMac} actions=set_field:0x${P.gateway.toString(16)}->reg1,set_field:0x200000/0x600000->reg0,goto_table:IngressSecurityClassifier`,
    ),
  ];
  if (cfg.encap) {
    out.push(
      f(
        'Classifier',
        `priority=200,in_port=${P.tunnel} actions=set_field:0x1/0xf->reg0,set_field:0x200/0x200->reg0,goto_table:UnSNAT`,
      ),
      f(
        'L2ForwardingCalc',
        `priority=200,dl_dst=${GLOBAL_VIRTUAL_MAC} actions=set_field:0x${P.tunnel.toString(16)}->reg1,set_field:0x200000/0x600000->reg0,goto_table:IngressSecurityClassifier`,
      ),
    );
  } else {
    // noEncap: pods of this node reached straight from the uplink (PR #3516)
    out.push(
      f(
        'Classifier',
        `priority=210,ip,in_port=${P.uplink},nw_dst=${podCidr} actions=set_field:0x4/0xf->reg0,set_field:0x200/0x200->reg0,goto_table:UnSNAT`,
      ),
    );
  }
  return out;
}

export interface PodPort {
  readonly ip: string;
  /** Lower-case colon form. */
  readonly mac: string;
  readonly ofport: number;
}

/** InstallPodFlows: ARP and IP spoof guard, classification, L3 forwarding to it, its L2 flow. */
export function podFlows(cfg: PipelineConfig, pod: PodPort): string[] {
  const c = cookieOf(cfg.round, 'PodConnectivity');
  const f = (table: string, rest: string) => flow(c, table, rest);
  return [
    f(
      'ARPSpoofGuard',
      `priority=200,arp,in_port=${pod.ofport},arp_spa=${pod.ip},arp_sha=${pod.mac} actions=goto_table:ARPResponder`,
    ),
    f(
      'Classifier',
      `priority=190,in_port=${pod.ofport} actions=set_field:0x3/0xf->reg0,set_field:0x10000000/0x10000000->reg4,goto_table:SpoofGuard`,
    ),
    f(
      'SpoofGuard',
      `priority=200,ip,in_port=${pod.ofport},dl_src=${pod.mac},nw_src=${pod.ip} actions=goto_table:UnSNAT`,
    ),
    f(
      'L3Forwarding',
      `priority=200,ip,reg0=0x200/0x200,nw_dst=${pod.ip} actions=set_field:${cfg.gatewayMac}->eth_src,set_field:${pod.mac}->eth_dst,goto_table:L3DecTTL`,
    ),
    f(
      'L2ForwardingCalc',
      `priority=200,dl_dst=${pod.mac} actions=set_field:0x${pod.ofport.toString(16)}->reg1,set_field:0x200000/0x600000->reg0,goto_table:IngressSecurityClassifier`,
    ),
  ];
}

export interface PeerNode {
  readonly nodeIp: string;
  readonly podCidr: string;
  readonly gatewayIp: string;
}

/**
 * InstallNodeFlows for a peer reached through the tunnel (encap): the ARP reply for its gateway
 * with the global virtual MAC, and L3 forwarding of its pod subnet into the tunnel towards it.
 */
export function nodeFlows(cfg: PipelineConfig, peer: PeerNode): string[] {
  const c = cookieOf(cfg.round, 'PodConnectivity');
  const V = GLOBAL_VIRTUAL_MAC;
  return [
    flow(
      c,
      'ARPResponder',
      `priority=200,arp,arp_tpa=${peer.gatewayIp},arp_op=1 actions=move:NXM_OF_ETH_SRC[]->NXM_OF_ETH_DST[],set_field:${V}->eth_src,set_field:2->arp_op,move:NXM_NX_ARP_SHA[]->NXM_NX_ARP_THA[],set_field:${V}->arp_sha,move:NXM_OF_ARP_SPA[]->NXM_OF_ARP_TPA[],set_field:${peer.gatewayIp}->arp_spa,IN_PORT`,
    ),
    flow(
      c,
      'L3Forwarding',
      `priority=200,ip,nw_dst=${peer.podCidr} actions=set_field:${cfg.gatewayMac}->eth_src,set_field:${V}->eth_dst,set_field:${peer.nodeIp}->tun_dst,set_field:0x10/0xf0->reg0,goto_table:L3DecTTL`,
    ),
  ];
}

/**
 * The printed flows with the tables' numbers, as `ovs-ofctl add-flows` takes them (`table=<N>`,
 * `goto_table:<N>`, `ct(table=<N>…`). A table not in `tables` is an error (a flow for a table
 * the pipeline does not realize).
 */
export function realize(flows: readonly string[], tables: readonly string[]): string[] {
  const id = new Map(tables.map((t, i) => [t, i]));
  const num = (name: string): string => {
    const n = id.get(name);
    if (n === undefined) throw new Error(`antrea: table ${name} is not realized on this node`);
    return String(n);
  };
  return flows.map((l) =>
    l
      .replace(
        /(^|, )table=([A-Za-z][A-Za-z0-9]*)/,
        (_m, pre: string, name: string) => `${pre}table=${num(name)}`,
      )
      .replace(/goto_table:([A-Za-z][A-Za-z0-9]*)/g, (_m, name: string) => `goto_table:${num(name)}`)
      .replace(/ct\(table=([A-Za-z][A-Za-z0-9]*)/g, (_m, name: string) => `ct(table=${num(name)}`)
      .replace(
        /ct\(commit,table=([A-Za-z][A-Za-z0-9]*)/g,
        (_m, name: string) => `ct(commit,table=${num(name)}`,
      )
      .replace(/resubmit:([A-Za-z][A-Za-z0-9]*)/g, (_m, name: string) => `resubmit(,${num(name)})`)
      .replace(/learn\(table=([A-Za-z][A-Za-z0-9]*)/g, (_m, name: string) => `learn(table=${num(name)}`),
  );
}

// ───────────────────────────── AntreaProxy (Services) ─────────────────────────────

/** AntreaProxy's virtual addresses (pkg/agent/config): the SNAT address and the NodePort DNAT one. */
export const VIRTUAL_SERVICE_IP = '169.254.0.253';
export const VIRTUAL_NODEPORT_DNAT_IP = '169.254.0.252';

/**
 * featureService.initFlows with AntreaProxy on (IPv4): un-SNAT of hairpin replies, established
 * Service connections, session affinity's default, the no-endpoint packet-in and re-selection,
 * hairpin SNAT and IN_PORT output, and the Service stage's classifier (with proxyAll: NodePortMark
 * for the node's address and 169.254.0.252).
 */
export function serviceInitFlows(cfg: PipelineConfig): string[] {
  const c = cookieOf(cfg.round, 'Service');
  const f = (table: string, rest: string) => flow(c, table, rest);
  const { gatewayIp: gw, gatewayMac: gwMac } = cfg;
  const snat = (src: string, marks: string) =>
    `actions=ct(commit,table=L2ForwardingCalc,zone=${SNAT_CT_ZONE},nat(src=${src}),exec(${marks}))`;
  const out = [
    f(
      'UnSNAT',
      `priority=200,ip,nw_dst=${VIRTUAL_SERVICE_IP} actions=ct(table=ConntrackZone,zone=${SNAT_CT_ZONE},nat)`,
    ),
    f('UnSNAT', `priority=200,ip,nw_dst=${gw} actions=ct(table=ConntrackZone,zone=${SNAT_CT_ZONE},nat)`),
    f(
      'ConntrackState',
      'priority=190,ct_state=-new+trk,ct_mark=0x10/0x10,ip actions=set_field:0x200/0x200->reg0,goto_table:AntreaPolicyEgressRule',
    ),
    f('SessionAffinity', 'priority=0 actions=set_field:0x10000/0x70000->reg4'),
    f(
      'EndpointDNAT',
      'priority=200,reg0=0x4000/0x4000 actions=controller(id=32776,reason=no_match,userdata=04,max_len=65535)',
    ),
    f(
      'EndpointDNAT',
      'priority=190,reg4=0x20000/0x70000 actions=set_field:0x10000/0x70000->reg4,resubmit:ServiceLB',
    ),
    f(
      'L3Forwarding',
      `priority=190,ct_mark=0x10/0x10,reg0=0x202/0x20f actions=set_field:${gwMac}->eth_dst,set_field:0x20/0xf0->reg0,goto_table:L3DecTTL`,
    ),
    f(
      'SNATMark',
      `priority=200,ct_state=+new+trk,ip,reg0=0x22/0xff actions=ct(commit,table=SNAT,zone=${CT_ZONE},exec(set_field:0x20/0x20->ct_mark,set_field:0x40/0x40->ct_mark,move:NXM_NX_REG0[0..3]->NXM_NX_CT_MARK[0..3]))`,
    ),
    f(
      'SNATMark',
      `priority=200,ct_state=+new+trk,ip,reg0=0x12/0xff,reg4=0x200000/0x2200000 actions=ct(commit,table=SNAT,zone=${CT_ZONE},exec(set_field:0x20/0x20->ct_mark,move:NXM_NX_REG0[0..3]->NXM_NX_CT_MARK[0..3]))`,
    ),
    f(
      'SNAT',
      `priority=200,ct_state=+new+trk,ct_mark=0x40/0x40,ip,reg0=0x2/0xf ${snat(VIRTUAL_SERVICE_IP, 'set_field:0x10/0x10->ct_mark,set_field:0x20/0x20->ct_mark,set_field:0x40/0x40->ct_mark')}`,
    ),
    f(
      'SNAT',
      `priority=200,ct_state=+new+trk,ct_mark=0x40/0x40,ip,reg0=0x3/0xf ${snat(gw, 'set_field:0x10/0x10->ct_mark,set_field:0x20/0x20->ct_mark,set_field:0x40/0x40->ct_mark')}`,
    ),
    f(
      'SNAT',
      `priority=190,ct_state=+new+trk,ct_mark=0x20/0x20,ip,reg0=0x2/0xf ${snat(gw, 'set_field:0x10/0x10->ct_mark,set_field:0x20/0x20->ct_mark')}`,
    ),
    f(
      'SNAT',
      `priority=200,ct_state=-new-rpl+trk,ct_mark=0x20/0x20,ip actions=ct(table=L2ForwardingCalc,zone=${SNAT_CT_ZONE},nat)`,
    ),
    f('Output', 'priority=210,ct_mark=0x40/0x40,reg0=0x200000/0x600000 actions=IN_PORT'),
  ];
  if (cfg.proxyAll)
    out.push(
      f(
        'PreRoutingClassifier',
        'priority=200,ip actions=resubmit:NodePortMark,resubmit:SessionAffinity,resubmit:ServiceLB',
      ),
      f('NodePortMark', `priority=200,ip,nw_dst=${cfg.nodeIp} actions=set_field:0x80000/0x80000->reg4`),
      f(
        'NodePortMark',
        `priority=200,ip,nw_dst=${VIRTUAL_NODEPORT_DNAT_IP} actions=set_field:0x80000/0x80000->reg4`,
      ),
    );
  else
    out.push(
      f('PreRoutingClassifier', 'priority=200,ip actions=resubmit:SessionAffinity,resubmit:ServiceLB'),
    );
  return out;
}

export interface ServiceEndpoint {
  readonly ip: string;
  readonly port: number;
  /** On this node (a remote one's bucket marks RemoteEndpointRegMark). */
  readonly local: boolean;
}

export interface ServicePort {
  readonly clusterIP: string;
  readonly port: number;
  readonly protocol: 'TCP' | 'UDP';
  readonly groupId: number;
  /** ClientIP session affinity's timeout in seconds; undefined: no affinity. */
  readonly affinityTimeout?: number;
  /** A NodePort (or LoadBalancer) Service port's nodePort; undefined: none. */
  readonly nodePort?: number;
  readonly endpoints: readonly ServiceEndpoint[];
}

const hex = (n: number): string => `0x${(n >>> 0).toString(16)}`;
const ipNum = (s: string): number => s.split('.').reduce((a, x) => a * 256 + Number(x), 0) >>> 0;

/** InstallServiceGroup: a select group, one bucket per endpoint (none: the no-endpoint mark). */
export function serviceGroup(svc: ServicePort): string {
  const next = svc.affinityTimeout !== undefined ? 'ServiceLB' : 'EndpointDNAT';
  const buckets = svc.endpoints.length
    ? svc.endpoints.map(
        (e, i) =>
          `bucket=bucket_id:${i},weight:100,actions=${e.local ? '' : 'set_field:0x4000000/0x4000000->reg4,'}set_field:${hex(ipNum(e.ip))}->reg3,set_field:${hex(e.port)}/0xffff->reg4,resubmit:${next}`,
      )
    : [`bucket=bucket_id:0,weight:100,actions=set_field:0x4000/0x4000->reg0,resubmit:EndpointDNAT`];
  return `group_id=${svc.groupId},type=select,${buckets.join(',')}`;
}

/** InstallServiceFlows for a ClusterIP port: ServiceLB to its group (with affinity, the learn flow). */
export function serviceFlows(cfg: PipelineConfig, svc: ServicePort): string[] {
  return serviceLBFlows(cfg, svc, { port: svc.port });
}

/**
 * InstallServiceFlows for a port's NodePort, as proxier.go installNodePortService asks for it
 * (proxyAll; ServiceIP 169.254.0.252, IsExternal and IsNodePort, never DSR): ServiceLB matches
 * the NodePort reg mark NodePortMark loaded (`reg4=0x80000/0x80000`, for the node's addresses and
 * 169.254.0.252) with the nodePort, not an address; it loads ToExternalAddressRegMark (reg4 bit 21)
 * and goes to the port's group, the ClusterIP's. None without a nodePort or without proxyAll.
 */
export function nodePortFlows(cfg: PipelineConfig, svc: ServicePort): string[] {
  if (!cfg.proxyAll || svc.nodePort === undefined) return [];
  return serviceLBFlows(cfg, svc, { port: svc.nodePort, nodePort: true });
}

/**
 * pipeline.go serviceLBFlows and serviceLearnFlow: EpToSelect (ClusterIP: and the address; a
 * NodePort: and ToNodePortAddressRegMark, no address) → RewriteMAC, EpSelected or EpToLearn,
 * ToExternalAddress for a NodePort, the group ID in reg7, the group.
 */
function serviceLBFlows(
  cfg: PipelineConfig,
  svc: ServicePort,
  at: { readonly port: number; readonly nodePort?: boolean },
): string[] {
  const c = cookieOf(cfg.round, 'Service');
  const proto = svc.protocol === 'UDP' ? 'udp' : 'tcp';
  // EpToSelect 0x10000/0x70000 (EpToLearn 0x30000), with ToNodePortAddress 0x80000/0x80000 merged
  const select = at.nodePort ? '0x90000/0xf0000' : '0x10000/0x70000';
  const learn = at.nodePort ? '0xb0000/0xf0000' : '0x30000/0x70000';
  const dst = at.nodePort ? '' : `nw_dst=${svc.clusterIP},`;
  const external = at.nodePort ? 'set_field:0x200000/0x200000->reg4,' : '';
  const state = svc.affinityTimeout !== undefined ? '0x30000' : '0x20000';
  const out = [
    flow(
      c,
      'ServiceLB',
      `priority=200,${proto},reg4=${select},${dst}tp_dst=${at.port} actions=set_field:0x200/0x200->reg0,set_field:${state}/0x70000->reg4,${external}set_field:${hex(svc.groupId)}->reg7,group:${svc.groupId}`,
    ),
  ];
  if (svc.affinityTimeout !== undefined) {
    const lc = `0x${((BigInt(cfg.round & 0xffff) << 48n) | (3n << 40n) | BigInt(svc.groupId)).toString(16)}`;
    const l4 = proto === 'udp' ? 'OXM_OF_UDP_DST[]' : 'OXM_OF_TCP_DST[]';
    out.push(
      flow(
        lc,
        'ServiceLB',
        `priority=190,${proto},reg4=${learn},${dst}tp_dst=${at.port} actions=learn(table=SessionAffinity,hard_timeout=${svc.affinityTimeout},priority=200,delete_learned,cookie=${lc},eth_type=0x800,nw_proto=${proto === 'udp' ? '0x11' : '0x6'},${l4},NXM_OF_IP_DST[],NXM_OF_IP_SRC[],load:NXM_NX_REG4[0..15]->NXM_NX_REG4[0..15],load:NXM_NX_REG4[26]->NXM_NX_REG4[26],load:NXM_NX_REG3[]->NXM_NX_REG3[],load:0x2->NXM_NX_REG4[16..18],load:0x1->NXM_NX_REG0[9]${at.nodePort ? ',load:0x1->NXM_NX_REG4[21]' : ''}),set_field:0x20000/0x70000->reg4,goto_table:EndpointDNAT`,
      ),
    );
  }
  return out;
}

/** InstallEndpointFlows: each endpoint's DNAT commit (zone 65520) and, for a local one, hairpin SNAT marking. */
export function endpointFlows(
  cfg: PipelineConfig,
  protocol: 'TCP' | 'UDP',
  endpoints: readonly ServiceEndpoint[],
): string[] {
  const c = cookieOf(cfg.round, 'Service');
  const proto = protocol === 'UDP' ? 'udp' : 'tcp';
  const out: string[] = [];
  for (const e of endpoints) {
    out.push(
      flow(
        c,
        'EndpointDNAT',
        `priority=200,${proto},reg3=${hex(ipNum(e.ip))},reg4=${hex(0x20000 | e.port)}/0x7ffff actions=ct(commit,table=AntreaPolicyEgressRule,zone=${CT_ZONE},nat(dst=${e.ip}:${e.port}),exec(set_field:0x10/0x10->ct_mark))`,
      ),
    );
    if (e.local)
      out.push(
        flow(
          c,
          'SNATMark',
          `priority=190,ct_state=+new+trk,ip,nw_src=${e.ip},nw_dst=${e.ip} actions=ct(commit,table=SNAT,zone=${CT_ZONE},exec(set_field:0x20/0x20->ct_mark,set_field:0x40/0x40->ct_mark,move:NXM_NX_REG0[0..3]->NXM_NX_CT_MARK[0..3]))`,
        ),
      );
  }
  return out;
}

// ───────────────────────────── NetworkPolicy ─────────────────────────────

/** One NetworkPolicy rule as the agent gets it: its groups resolved to addresses (Antrea's AddressGroups/AppliedToGroups). */
export interface PolicyRule {
  /** The conjunction ID (Antrea's rule ID: unique on the node). */
  readonly id: number;
  readonly direction: 'In' | 'Out';
  /** The pods the rule applies to, on this node: their ofports (ingress) and addresses (egress). */
  readonly appliedTo: readonly { readonly ofport: number; readonly ip: string }[];
  /** The peers as prefixes (`10.10.1.5/32`, `192.168.0.0/16`); undefined: any peer. */
  readonly peers?: readonly string[];
  /** TCP/UDP ports (a range: `endPort`); undefined: any. */
  readonly ports?: readonly {
    readonly protocol: 'TCP' | 'UDP';
    readonly port?: number;
    readonly endPort?: number;
  }[];
}

/** A port range as OpenFlow matches: value/mask pairs covering it exactly (largest aligned blocks first). */
export function portMasks(lo: number, hi: number): string[] {
  const out: string[] = [];
  let p = lo;
  while (p <= hi) {
    let size = 1;
    while (size < 0x10000 && p % (size * 2) === 0 && p + size * 2 - 1 <= hi) size *= 2;
    out.push(size === 1 ? String(p) : `0x${p.toString(16)}/0x${(0xffff & ~(size - 1)).toString(16)}`);
    p += size;
  }
  return out;
}

/**
 * featureNetworkPolicy.initFlows on a K8s Node without OVS meters (network_policy_test.go
 * networkPolicyInitFlows): the Output table's packet-in flows for policy logging, the
 * IngressSecurityClassifier's skips (to the gateway, the tunnel, the uplink; hairpinned Service
 * connections, HairpinCTMark `ct_mark=0x40/0x40`), and the established/related bypass at the head of the Antrea-native policy tables.
 */
export function policyInitFlows(cfg: PipelineConfig): string[] {
  const c = cookieOf(cfg.round, 'NetworkPolicy');
  const f = (table: string, rest: string) => flow(c, table, rest);
  const out: string[] = [];
  for (let k = 1; k <= 7; k++)
    out.push(
      f(
        'Output',
        `priority=200,reg0=0x${((k << 25) | 0x400000).toString(16)}/0xfe600000 actions=controller(id=32776,reason=no_match,userdata=01.0${k},max_len=65535)`,
      ),
    );
  out.push(
    f('IngressSecurityClassifier', 'priority=200,reg0=0x20/0xf0 actions=goto_table:IngressMetric'),
    f('IngressSecurityClassifier', 'priority=200,reg0=0x10/0xf0 actions=goto_table:IngressMetric'),
    f('IngressSecurityClassifier', 'priority=200,reg0=0x40/0xf0 actions=goto_table:IngressMetric'),
    f('IngressSecurityClassifier', 'priority=200,ct_mark=0x40/0x40 actions=goto_table:ConntrackCommit'),
    f('AntreaPolicyEgressRule', 'priority=64990,ct_state=-new+est,ip actions=goto_table:EgressMetric'),
    f('AntreaPolicyEgressRule', 'priority=64990,ct_state=-new+rel,ip actions=goto_table:EgressMetric'),
    f('AntreaPolicyIngressRule', 'priority=64990,ct_state=-new+est,ip actions=goto_table:IngressMetric'),
    f('AntreaPolicyIngressRule', 'priority=64990,ct_state=-new+rel,ip actions=goto_table:IngressMetric'),
  );
  return out;
}

/** The prefix as Antrea prints an address match: a host without `/32`. */
const addr = (p: string): string => (p.endsWith('/32') ? p.slice(0, -3) : p);

/**
 * Kubernetes NetworkPolicy rules on the node, as Antrea's agent installs them
 * (network_policy.go, network_policy_test.go TestBatchInstallPolicyRuleFlows): each rule is a
 * conjunction of its source (clause 1), destination (clause 2) and, when it names ports, service
 * (clause 3). Egress: the applied-to pods' `ip,nw_src`, the peers' `ip,nw_dst` (any peer:
 * `0.0.0.0/0`, as the controller writes an empty peer list); ingress: the peers' `ip,nw_src`, the
 * applied-to pods' target ofport `reg1`. Clauses at priority 200 (a clause several rules share
 * carries each rule's `conjunction`), the rule's `conj_id` flow at 190 loading its ID into
 * `reg5`/`reg6` and committing it to ct_label (egress the high 32 bits, ingress the low) in zone
 * 65520, on to the Metric table, where the rule's label sends the connection on (L3Forwarding,
 * ConntrackCommit). A pod a policy of that direction selects is isolated: what no rule allows
 * falls to the DefaultRule table's drop (egress `ip,nw_src`, ingress `reg1`).
 */
export function policyFlows(
  cfg: PipelineConfig,
  rules: readonly PolicyRule[],
  isolated: {
    readonly in: readonly PolicyRule['appliedTo'][number][];
    readonly out: readonly PolicyRule['appliedTo'][number][];
  },
): string[] {
  const c = cookieOf(cfg.round, 'NetworkPolicy');
  const f = (table: string, rest: string) => flow(c, table, rest);
  const out: string[] = [];
  const clauses = new Map<string, string[]>();
  for (const r of rules) {
    if (!r.appliedTo.length) continue;
    const egress = r.direction === 'Out';
    const table = egress ? 'EgressRule' : 'IngressRule';
    const metric = egress ? 'EgressMetric' : 'IngressMetric';
    const pods = r.appliedTo.map((a) => (egress ? `ip,nw_src=${a.ip}` : `reg1=0x${a.ofport.toString(16)}`));
    const peers = (r.peers ?? ['0.0.0.0/0']).map((p) => `ip,${egress ? 'nw_dst' : 'nw_src'}=${addr(p)}`);
    const ports = r.ports?.flatMap((pt) => {
      const proto = pt.protocol === 'UDP' ? 'udp' : 'tcp';
      if (pt.port === undefined) return [proto];
      return portMasks(pt.port, pt.endPort ?? pt.port).map((m) => `${proto},tp_dst=${m}`);
    });
    // a dimension with nothing in it (selectors matching no pod) completes no conjunction
    if (!peers.length || (ports && !ports.length)) continue;
    const dims = egress ? [pods, peers] : [peers, pods];
    if (ports) dims.push(ports);
    dims.forEach((d, k) => {
      for (const m of d) {
        const key = `${table}|${m}`;
        const acts = clauses.get(key) ?? [];
        acts.push(`conjunction(${r.id},${k + 1}/${dims.length})`);
        clauses.set(key, acts);
      }
    });
    const id = `0x${r.id.toString(16)}`;
    const label = egress ? `0x${r.id.toString(16)}00000000/0xffffffff00000000` : `${id}/0xffffffff`;
    out.push(
      f(
        table,
        `priority=190,conj_id=${r.id},ip actions=set_field:${id}->${egress ? 'reg5' : 'reg6'},ct(commit,table=${metric},zone=${CT_ZONE},exec(set_field:${label}->ct_label))`,
      ),
    );
    const next = egress ? 'L3Forwarding' : 'ConntrackCommit';
    for (const st of ['+new', '-new'])
      out.push(f(metric, `priority=200,ct_state=${st},ct_label=${label},ip actions=goto_table:${next}`));
  }
  for (const [key, acts] of clauses) {
    const [table, m] = key.split('|') as [string, string];
    out.push(f(table, `priority=200,${m} actions=${acts.join(',')}`));
  }
  for (const a of isolated.in)
    out.push(f('IngressDefaultRule', `priority=200,reg1=0x${a.ofport.toString(16)} actions=drop`));
  for (const a of isolated.out)
    out.push(f('EgressDefaultRule', `priority=200,ip,nw_src=${a.ip} actions=drop`));
  return out;
}
