/**
 * The fields of an Open vSwitch flow (lib/meta-flow.xml, ovs-fields(7)) as hnsim stores them: a
 * packet's metadata and headers are one Uint32Array of 32-bit words, each field a fixed run of
 * big-endian words (a MAC is two words, a register one, ct_label four), so a match is two such
 * arrays (value, mask) and every lookup, set_field and load is integer work. Reference §4.
 */

/** Word indexes of the flow record. */
export const W = {
  IN_PORT: 0,
  DL_SRC: 1, // 2 words: hi 16 bits, lo 32
  DL_DST: 3,
  DL_TYPE: 5,
  VLAN_TCI: 6,
  NW_SRC: 7, // also arp_spa
  NW_DST: 8, // also arp_tpa
  IPV6_SRC: 9, // 4 words
  IPV6_DST: 13,
  NW_PROTO: 17, // also arp_op
  NW_TOS: 18,
  NW_TTL: 19,
  NW_FRAG: 20,
  TP_SRC: 21, // also icmp_type
  TP_DST: 22, // also icmp_code
  TCP_FLAGS: 23,
  ARP_SHA: 24,
  ARP_THA: 26,
  CT_STATE: 28,
  CT_ZONE: 29,
  CT_MARK: 30,
  CT_LABEL: 31, // 4 words
  CT_NW_SRC: 35,
  CT_NW_DST: 36,
  CT_NW_PROTO: 37,
  CT_TP_SRC: 38,
  CT_TP_DST: 39,
  REG0: 40, // reg0..reg15
  METADATA: 56, // 2 words
  TUN_ID: 58, // 2 words
  TUN_SRC: 60,
  TUN_DST: 61,
  CONJ_ID: 62,
  PKT_MARK: 63,
  RECIRC_ID: 64,
} as const;
export const N_WORDS = 65;
export const N_REGS = 16;

export type Flow = Uint32Array;
export const newFlow = (): Flow => new Uint32Array(N_WORDS);

/** OpenFlow 1.0 port numbers, as OVS keeps them internally (ofp_port_t). */
export const OFPP = {
  MAX: 0xff00,
  IN_PORT: 0xfff8,
  TABLE: 0xfff9,
  NORMAL: 0xfffa,
  FLOOD: 0xfffb,
  ALL: 0xfffc,
  CONTROLLER: 0xfffd,
  LOCAL: 0xfffe,
  NONE: 0xffff,
} as const;
export const RESERVED_PORT_NAMES: ReadonlyMap<number, string> = new Map([
  [OFPP.IN_PORT, 'IN_PORT'],
  [OFPP.TABLE, 'TABLE'],
  [OFPP.NORMAL, 'NORMAL'],
  [OFPP.FLOOD, 'FLOOD'],
  [OFPP.ALL, 'ALL'],
  [OFPP.CONTROLLER, 'CONTROLLER'],
  [OFPP.LOCAL, 'LOCAL'],
  [OFPP.NONE, 'NONE'],
]);

export const ETH_TYPE = { IP: 0x0800, ARP: 0x0806, RARP: 0x8035, IPV6: 0x86dd } as const;
export const IPPROTO = { ICMP: 1, TCP: 6, UDP: 17, SCTP: 132, ICMPV6: 58 } as const;

/** ct_state bits (lib/packets.h CS_*), in bit order, with the names ct_state prints. */
export const CS = {
  NEW: 0x01,
  ESTABLISHED: 0x02,
  RELATED: 0x04,
  REPLY_DIR: 0x08,
  INVALID: 0x10,
  TRACKED: 0x20,
  SRC_NAT: 0x40,
  DST_NAT: 0x80,
} as const;
export const CT_STATE_NAMES: readonly string[] = ['new', 'est', 'rel', 'rpl', 'inv', 'trk', 'snat', 'dnat'];

/** TCP flag names by bit (packet_tcp_flag_to_string). */
export const TCP_FLAG_NAMES: readonly string[] = [
  'fin',
  'syn',
  'rst',
  'psh',
  'ack',
  'urg',
  'ece',
  'cwr',
  'ns',
];

/** How a field's value is written and read (mf_string). */
export type FieldKind = 'hex' | 'dec' | 'eth' | 'ipv4' | 'ipv6' | 'port' | 'ct_state' | 'frag' | 'tcp_flags';

/** What a match must already say before a field may be matched (mf_prereqs). */
export type Prereq = 'none' | 'ip' | 'ipv6' | 'ip_any' | 'arp' | 'l4' | 'tcp' | 'icmp_any';

export interface FieldDef {
  /** The name meta-flow gives it (printed by set_field and learn). */
  readonly name: string;
  /** Other names accepted on input. */
  readonly aliases: readonly string[];
  /** The NXM/OXM name subfields print (`NXM_NX_REG0[0..3]`). */
  readonly nxm: string;
  readonly word: number;
  readonly bits: number;
  /** Bit offset inside its (single) word: ip_dscp is bits 2..7 of the TOS byte. */
  readonly shift: number;
  readonly kind: FieldKind;
  readonly prereq: Prereq;
  readonly writable: boolean;
  readonly maskable: boolean;
}

const defs: FieldDef[] = [];
function def(
  name: string,
  aliases: string[],
  nxm: string,
  word: number,
  bits: number,
  kind: FieldKind,
  prereq: Prereq = 'none',
  extra: { shift?: number; writable?: boolean; maskable?: boolean } = {},
): void {
  defs.push({
    name,
    aliases,
    nxm,
    word,
    bits,
    shift: extra.shift ?? 0,
    kind,
    prereq,
    writable: extra.writable ?? true,
    maskable: extra.maskable ?? true,
  });
}

def('in_port', [], 'NXM_OF_IN_PORT', W.IN_PORT, 16, 'port', 'none', { maskable: false });
def('eth_src', ['dl_src'], 'NXM_OF_ETH_SRC', W.DL_SRC, 48, 'eth');
def('eth_dst', ['dl_dst'], 'NXM_OF_ETH_DST', W.DL_DST, 48, 'eth');
def('eth_type', ['dl_type'], 'NXM_OF_ETH_TYPE', W.DL_TYPE, 16, 'hex', 'none', {
  writable: false,
  maskable: false,
});
def('vlan_tci', [], 'NXM_OF_VLAN_TCI', W.VLAN_TCI, 16, 'hex');
def('ip_src', ['nw_src'], 'NXM_OF_IP_SRC', W.NW_SRC, 32, 'ipv4', 'ip');
def('ip_dst', ['nw_dst'], 'NXM_OF_IP_DST', W.NW_DST, 32, 'ipv4', 'ip');
def('ipv6_src', [], 'NXM_NX_IPV6_SRC', W.IPV6_SRC, 128, 'ipv6', 'ipv6');
def('ipv6_dst', [], 'NXM_NX_IPV6_DST', W.IPV6_DST, 128, 'ipv6', 'ipv6');
def('nw_proto', ['ip_proto'], 'NXM_OF_IP_PROTO', W.NW_PROTO, 8, 'dec', 'ip_any', {
  writable: false,
  maskable: false,
});
def('nw_tos', [], 'NXM_OF_IP_TOS', W.NW_TOS, 8, 'dec', 'ip_any', { maskable: false });
def('ip_dscp', [], 'OXM_OF_IP_DSCP', W.NW_TOS, 6, 'dec', 'ip_any', { shift: 2, maskable: false });
def('nw_ecn', ['ip_ecn'], 'NXM_NX_IP_ECN', W.NW_TOS, 2, 'dec', 'ip_any', { maskable: false });
def('nw_ttl', [], 'NXM_NX_IP_TTL', W.NW_TTL, 8, 'dec', 'ip_any', { maskable: false });
def('ip_frag', ['nw_frag'], 'NXM_NX_IP_FRAG', W.NW_FRAG, 8, 'frag', 'ip_any', { writable: false });
def('arp_op', [], 'NXM_OF_ARP_OP', W.NW_PROTO, 16, 'dec', 'arp', { maskable: false });
def('arp_spa', [], 'NXM_OF_ARP_SPA', W.NW_SRC, 32, 'ipv4', 'arp');
def('arp_tpa', [], 'NXM_OF_ARP_TPA', W.NW_DST, 32, 'ipv4', 'arp');
def('arp_sha', [], 'NXM_NX_ARP_SHA', W.ARP_SHA, 48, 'eth', 'arp');
def('arp_tha', [], 'NXM_NX_ARP_THA', W.ARP_THA, 48, 'eth', 'arp');
def('tcp_src', ['tp_src'], 'NXM_OF_TCP_SRC', W.TP_SRC, 16, 'dec', 'l4');
def('tcp_dst', ['tp_dst'], 'NXM_OF_TCP_DST', W.TP_DST, 16, 'dec', 'l4');
def('udp_src', [], 'NXM_OF_UDP_SRC', W.TP_SRC, 16, 'dec', 'l4');
def('udp_dst', [], 'NXM_OF_UDP_DST', W.TP_DST, 16, 'dec', 'l4');
def('sctp_src', [], 'OXM_OF_SCTP_SRC', W.TP_SRC, 16, 'dec', 'l4');
def('sctp_dst', [], 'OXM_OF_SCTP_DST', W.TP_DST, 16, 'dec', 'l4');
def('icmp_type', ['icmpv6_type'], 'NXM_OF_ICMP_TYPE', W.TP_SRC, 8, 'dec', 'icmp_any', { maskable: false });
def('icmp_code', ['icmpv6_code'], 'NXM_OF_ICMP_CODE', W.TP_DST, 8, 'dec', 'icmp_any', { maskable: false });
def('tcp_flags', [], 'NXM_NX_TCP_FLAGS', W.TCP_FLAGS, 16, 'tcp_flags', 'tcp', { writable: false });
def('ct_state', [], 'NXM_NX_CT_STATE', W.CT_STATE, 32, 'ct_state', 'none', { writable: false });
def('ct_zone', [], 'NXM_NX_CT_ZONE', W.CT_ZONE, 16, 'dec', 'none', { writable: false, maskable: false });
def('ct_mark', [], 'NXM_NX_CT_MARK', W.CT_MARK, 32, 'hex');
def('ct_label', [], 'NXM_NX_CT_LABEL', W.CT_LABEL, 128, 'hex');
def('ct_nw_src', [], 'NXM_NX_CT_NW_SRC', W.CT_NW_SRC, 32, 'ipv4', 'ip', { writable: false });
def('ct_nw_dst', [], 'NXM_NX_CT_NW_DST', W.CT_NW_DST, 32, 'ipv4', 'ip', { writable: false });
def('ct_nw_proto', [], 'NXM_NX_CT_NW_PROTO', W.CT_NW_PROTO, 8, 'dec', 'ip_any', {
  writable: false,
  maskable: false,
});
def('ct_tp_src', [], 'NXM_NX_CT_TP_SRC', W.CT_TP_SRC, 16, 'dec', 'ip_any', { writable: false });
def('ct_tp_dst', [], 'NXM_NX_CT_TP_DST', W.CT_TP_DST, 16, 'dec', 'ip_any', { writable: false });
for (let i = 0; i < N_REGS; i++) def(`reg${i}`, [], `NXM_NX_REG${i}`, W.REG0 + i, 32, 'hex');
for (let i = 0; i < N_REGS / 2; i++) def(`xreg${i}`, [], `OXM_OF_PKT_REG${i}`, W.REG0 + 2 * i, 64, 'hex');
for (let i = 0; i < N_REGS / 4; i++) def(`xxreg${i}`, [], `NXM_NX_XXREG${i}`, W.REG0 + 4 * i, 128, 'hex');
def('metadata', [], 'OXM_OF_METADATA', W.METADATA, 64, 'hex');
def('tun_id', ['tunnel_id'], 'NXM_NX_TUN_ID', W.TUN_ID, 64, 'hex');
def('tun_src', [], 'NXM_NX_TUN_IPV4_SRC', W.TUN_SRC, 32, 'ipv4');
def('tun_dst', [], 'NXM_NX_TUN_IPV4_DST', W.TUN_DST, 32, 'ipv4');
def('conj_id', [], 'NXM_NX_CONJ_ID', W.CONJ_ID, 32, 'dec', 'none', { writable: false, maskable: false });
def('pkt_mark', [], 'NXM_NX_PKT_MARK', W.PKT_MARK, 32, 'hex');
def('recirc_id', [], 'NXM_NX_RECIRC_ID', W.RECIRC_ID, 32, 'dec', 'none', {
  writable: false,
  maskable: false,
});

export const FIELDS: readonly FieldDef[] = defs;
const byName = new Map<string, FieldDef>();
for (const f of defs) {
  byName.set(f.name, f);
  for (const a of f.aliases) byName.set(a, f);
  byName.set(f.nxm, f);
}
/**
 * The OpenFlow 1.2+ (OXM) names of fields whose primary name here is an NXM one: ovs-ofctl takes
 * either in a subfield (lib/meta-flow.xml; Antrea's OpenFlow library writes `OXM_OF_TCP_DST[]`).
 */
const OXM_NAMES: Readonly<Record<string, string>> = {
  in_port: 'OXM_OF_IN_PORT',
  eth_src: 'OXM_OF_ETH_SRC',
  eth_dst: 'OXM_OF_ETH_DST',
  eth_type: 'OXM_OF_ETH_TYPE',
  ip_src: 'OXM_OF_IPV4_SRC',
  ip_dst: 'OXM_OF_IPV4_DST',
  ipv6_src: 'OXM_OF_IPV6_SRC',
  ipv6_dst: 'OXM_OF_IPV6_DST',
  nw_proto: 'OXM_OF_IP_PROTO',
  tcp_src: 'OXM_OF_TCP_SRC',
  tcp_dst: 'OXM_OF_TCP_DST',
  udp_src: 'OXM_OF_UDP_SRC',
  udp_dst: 'OXM_OF_UDP_DST',
  icmp_type: 'OXM_OF_ICMPV4_TYPE',
  icmp_code: 'OXM_OF_ICMPV4_CODE',
  arp_op: 'OXM_OF_ARP_OP',
  arp_spa: 'OXM_OF_ARP_SPA',
  arp_tpa: 'OXM_OF_ARP_TPA',
  arp_sha: 'OXM_OF_ARP_SHA',
  arp_tha: 'OXM_OF_ARP_THA',
  tun_id: 'OXM_OF_TUNNEL_ID',
};
for (const [name, oxm] of Object.entries(OXM_NAMES)) {
  const f = byName.get(name);
  if (f && !byName.has(oxm)) byName.set(oxm, f);
}
/** A field by any of its names (meta-flow name, alias, NXM/OXM name). */
export function fieldByName(name: string): FieldDef | undefined {
  return byName.get(name);
}

/** Words a field spans. */
export const wordsOf = (f: FieldDef): number => Math.ceil(f.bits / 32);

/** The in-word mask of a single-word field. */
export function wordMask(f: FieldDef): number {
  return f.bits >= 32 ? 0xffffffff : (((1 << f.bits) - 1) << f.shift) >>> 0;
}

// ───────────── bit-level access to any field (bigint only past 32 bits) ─────────────

/** A field's value (bits 0..bits-1) from a word array, as bigint. */
export function readBig(a: Uint32Array, f: FieldDef): bigint {
  const n = wordsOf(f);
  if (n === 1) return BigInt(((a[f.word]! & wordMask(f)) >>> f.shift) >>> 0);
  let v = 0n;
  for (let i = 0; i < n; i++) v = (v << 32n) | BigInt(a[f.word + i]!);
  return v;
}

/** Writes `value` under `mask` (both in field bit positions) into a word array. */
export function writeBig(a: Uint32Array, f: FieldDef, value: bigint, mask: bigint): void {
  const n = wordsOf(f);
  if (n === 1) {
    const m = (Number(mask) << f.shift) >>> 0;
    const v = (Number(value) << f.shift) >>> 0;
    a[f.word] = ((a[f.word]! & ~m) | (v & m)) >>> 0;
    return;
  }
  for (let i = n - 1; i >= 0; i--) {
    const m = Number(mask & 0xffffffffn);
    const v = Number(value & 0xffffffffn);
    const w = f.word + i;
    a[w] = ((a[w]! & ~m) | (v & m)) >>> 0;
    mask >>= 32n;
    value >>= 32n;
  }
}

/** Full-width mask of a field as bigint. */
export const fullMask = (f: FieldDef): bigint => (1n << BigInt(f.bits)) - 1n;

/** A subfield: bits ofs..ofs+nBits-1 of a field. */
export interface Subfield {
  readonly field: FieldDef;
  readonly ofs: number;
  readonly nBits: number;
}

/** The value of a subfield; a number when it fits 32 bits and the field is one word. */
export function readSubfield(flow: Flow, sf: Subfield): bigint {
  return (readBig(flow, sf.field) >> BigInt(sf.ofs)) & ((1n << BigInt(sf.nBits)) - 1n);
}

/** The bits a subfield covers, in place in its field. */
export const subfieldMask = (sf: Subfield): bigint => ((1n << BigInt(sf.nBits)) - 1n) << BigInt(sf.ofs);

export function writeSubfield(flow: Flow, sf: Subfield, value: bigint): void {
  writeBig(flow, sf.field, value << BigInt(sf.ofs), subfieldMask(sf));
}

/** Whether a subfield's field is one word: its value is read and written as a number. */
export const isWordSubfield = (sf: Subfield): boolean => sf.field.bits <= 32;

/** readSubfield of a one-word field (isWordSubfield), without BigInt: the hot path's moves and outputs. */
export function readWordSubfield(flow: Flow, sf: Subfield): number {
  const f = sf.field;
  const v = ((flow[f.word]! & wordMask(f)) >>> f.shift) >>> sf.ofs;
  return sf.nBits >= 32 ? v >>> 0 : (v & ((1 << sf.nBits) - 1)) >>> 0;
}

/** writeSubfield of a one-word field (isWordSubfield), without BigInt. */
export function writeWordSubfield(flow: Flow, sf: Subfield, value: number): void {
  const f = sf.field;
  const bits = sf.nBits >= 32 ? 0xffffffff : (1 << sf.nBits) - 1;
  const m = ((bits << sf.ofs) << f.shift) >>> 0;
  const v = (((value & bits) << sf.ofs) << f.shift) >>> 0;
  flow[f.word] = ((flow[f.word]! & ~m) | (v & m)) >>> 0;
}

/** `NXM_NX_REG0[]`, `NXM_NX_REG0[5]`, `NXM_NX_REG0[0..3]` (mf_format_subfield). */
export function formatSubfield(sf: Subfield): string {
  const name = sf.field.nxm;
  if (sf.ofs === 0 && sf.nBits === sf.field.bits) return `${name}[]`;
  if (sf.nBits === 1) return `${name}[${sf.ofs}]`;
  return `${name}[${sf.ofs}..${sf.ofs + sf.nBits - 1}]`;
}
