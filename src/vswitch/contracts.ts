/**
 * The seams of the packet path (STYLE.md: one contracts file per boundary): what a packet is, what
 * a step of a trace records, and the dispositions a trace ends in (reference vfp-dataplane.md §1;
 * anchors.md A1/A2/A4: ovn-trace's levels, Antrea's component × action observations, Batfish's
 * dispositions). A packet is a plain record of integers — IPv4 addresses as uint32, MACs as 48-bit
 * numbers — so the hot path never formats or parses text.
 *
 *   const p = packet({ srcIp: ip('10.244.1.5'), dstIp: ip('10.96.0.10'), proto: TCP, dstPort: 80 });
 */

export const ICMP = 1;
export const TCP = 6;
export const UDP = 17;

/** The VXLAN header a packet carries while encapsulated (outer Ethernet/IP/UDP + VNI). */
export interface OuterHeader {
  readonly srcMac: number;
  readonly dstMac: number;
  readonly srcIp: number;
  readonly dstIp: number;
  readonly srcPort: number;
  readonly dstPort: number;
  readonly vni: number;
  /** The outer L4 protocol when not UDP (STT: 6). */
  readonly proto?: number;
  /** The encapsulation when not HNS's VXLAN: an OVS tunnel's Geneve or STT (or VXLAN). */
  readonly kind?: 'geneve' | 'vxlan' | 'stt';
}

/** The encapsulation's name as traces print it: `VXLAN` unless the outer header says otherwise. */
export function tunnelName(o: OuterHeader): string {
  return (o.kind ?? 'vxlan').toUpperCase();
}

/** A packet as the dataplane sees it. Immutable: every change makes a new record. */
export interface Packet {
  readonly srcMac: number;
  readonly dstMac: number;
  /** IPv4, as an unsigned 32-bit integer. */
  readonly srcIp: number;
  readonly dstIp: number;
  /** IANA protocol number: 1 ICMP, 6 TCP, 17 UDP. */
  readonly proto: number;
  /** 0 for ICMP. */
  readonly srcPort: number;
  readonly dstPort: number;
  readonly ttl: number;
  /** Set while VXLAN-encapsulated. */
  readonly outer?: OuterHeader;
}

/** Where a step happened: Antrea's components, widened with the Windows parts. */
export type Component =
  | 'Container' // the container's own stack: its routes and DNS settings
  | 'DNS' // name resolution (Windows client rules, cluster DNS)
  | 'Port' // a vSwitch port (endpoint vNIC, host vNIC, uplink)
  | 'ACL' // VFP ACL_ENDPOINT layer (Switch rules) and WFP (Host rules)
  | 'LB' // VFP load balancing (LB_DSR / SLB): VIP → DIP
  | 'NAT' // VFP SLB_NAT: OutBoundNAT (SNAT), PortMapping (DNAT), un-NAT of replies
  | 'Routing' // VFP routes (SDNRoute, RemoteSubnetRoute), the vSwitch's and the host's forwarding
  | 'Encap' // VNET encapsulation (VXLAN)
  | 'Decap'
  | 'MacRewrite' // L2Bridge: container MAC ↔ host MAC
  | 'vSwitch' // switching between ports
  | 'HostStack' // the host's TCP/IP stack (compartment 1): routes, forwarding, WinNAT
  | 'Underlay' // the physical network between hosts
  | 'NSG' // an Azure network security group on a VM's NIC, evaluated by the virtualization host
  | 'OVS' // Open vSwitch on a switch whose forwarding extension it is: a bridge's OpenFlow tables, its tunnel vports
  | 'Conntrack' // flow state: established connections, replies
  | 'Delivery';

/** The policy or rule behind a step's action: enough to find it in HNS and in vfpctrl. */
export interface RuleRef {
  /** `Endpoint`, `Network`, `LoadBalancer`, `Host`, `Route` … */
  readonly kind: string;
  /** The HNS object's ID (or a host/route name). */
  readonly id: string;
  /** The object's name, when it has one. */
  readonly name?: string;
  /** The HNS policy Type (`ACL`, `OutBoundNAT`, `PortMapping`, `RemoteSubnetRoute`, …). */
  readonly policy?: string;
  /** Index of the policy in the object's Policies. */
  readonly index?: number;
  /** The rule's own Id (ACL `Id`) and priority, when it has them. */
  readonly ruleId?: string;
  readonly priority?: number;
  /** The VFP layer and rule name it compiles to (vfpctrl /list-rule). */
  readonly layer?: string;
  readonly rule?: string;
}

/** One step of a trace. */
export interface Observation {
  readonly host: string;
  readonly component: Component;
  /** What happened: Allowed, Denied, DNAT, SNAT, Forwarded, Encapsulated, Delivered, Dropped … */
  readonly action: string;
  readonly rule?: RuleRef;
  /** A short human explanation (`to 10.244.2.0/24 via 10.0.0.5`). */
  readonly detail?: string;
  readonly packetBefore: Packet;
  readonly packetAfter: Packet;
}

/**
 * How a trace ends (Batfish's vocabulary, with Windows' failure modes): Delivered to an endpoint,
 * a host or an external destination; denied by an ACL on the way out of the source or into the
 * destination; no route; a frame dropped because the NIC does not allow MAC spoofing; something
 * the platform does not do (ICMP through OutBoundNAT, IPv6 on overlay); SNAT ports exhausted;
 * TTL exceeded or a loop; a name that does not resolve; a packet leaving the modelled network.
 */
export type Disposition =
  | 'Delivered'
  | 'DeniedOut'
  | 'DeniedIn'
  | 'NoRoute'
  | 'DroppedMacSpoofing'
  | 'Unsupported'
  | 'PortExhausted'
  | 'TtlExceeded'
  | 'Loop'
  | 'NameNotResolved'
  | 'NoBackend'
  | 'ExitsNetwork';

export const DISPOSITIONS: readonly Disposition[] = [
  'Delivered',
  'DeniedOut',
  'DeniedIn',
  'NoRoute',
  'DroppedMacSpoofing',
  'Unsupported',
  'PortExhausted',
  'TtlExceeded',
  'Loop',
  'NameNotResolved',
  'NoBackend',
  'ExitsNetwork',
];

/** Build a packet; unspecified fields are zero (TTL 128, the Windows default). */
export function packet(p: Partial<Packet> & Pick<Packet, 'srcIp' | 'dstIp' | 'proto'>): Packet {
  return {
    srcMac: p.srcMac ?? 0,
    dstMac: p.dstMac ?? 0,
    srcIp: p.srcIp >>> 0,
    dstIp: p.dstIp >>> 0,
    proto: p.proto,
    srcPort: p.srcPort ?? 0,
    dstPort: p.dstPort ?? 0,
    ttl: p.ttl ?? 128,
    ...(p.outer ? { outer: p.outer } : {}),
  };
}

/** A copy with some fields changed (the outer header dropped when `outer: undefined` is given). */
export function withPacket(p: Packet, change: Partial<Packet>): Packet {
  const out: Packet = {
    srcMac: change.srcMac ?? p.srcMac,
    dstMac: change.dstMac ?? p.dstMac,
    srcIp: (change.srcIp ?? p.srcIp) >>> 0,
    dstIp: (change.dstIp ?? p.dstIp) >>> 0,
    proto: change.proto ?? p.proto,
    srcPort: change.srcPort ?? p.srcPort,
    dstPort: change.dstPort ?? p.dstPort,
    ttl: change.ttl ?? p.ttl,
  };
  const outer = 'outer' in change ? change.outer : p.outer;
  return outer ? { ...out, outer } : out;
}

/** The packet a reply carries: addresses and ports swapped (no outer header). */
export function reversed(p: Packet): Packet {
  return {
    srcMac: p.dstMac,
    dstMac: p.srcMac,
    srcIp: p.dstIp,
    dstIp: p.srcIp,
    proto: p.proto,
    srcPort: p.dstPort,
    dstPort: p.srcPort,
    ttl: 128,
  };
}
