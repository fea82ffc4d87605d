/**
 * Matches: a value and a mask over the flow words (fields.ts), parsed from ovs-ofctl's flow syntax
 * and printed as OVS prints them (lib/match.c match_format; lib/flow.c flow_format for a packet).
 */
import { formatIPv4, formatIPv6, parseIPv6, v4Mask } from '../addr/ip.js';
import { fail } from './errors.js';
import {
  CS,
  CT_STATE_NAMES,
  ETH_TYPE,
  FIELDS,
  type FieldDef,
  type Flow,
  IPPROTO,
  N_REGS,
  N_WORDS,
  OFPP,
  RESERVED_PORT_NAMES,
  TCP_FLAG_NAMES,
  W,
  fieldByName,
  fullMask,
  newFlow,
  readBig,
  wordsOf,
  writeBig,
} from './fields.js';

/** Port numbers and names of a bridge, for `--names` and for port names in flows. */
export interface PortMap {
  portByName(name: string): number | undefined;
  nameOfPort(port: number): string | undefined;
}

export interface FieldValue {
  readonly value: bigint;
  readonly mask: bigint;
}

// ───────────────────────────── values ─────────────────────────────

const bytesOf = (f: FieldDef): number => (f.kind === 'port' ? 2 : Math.ceil(f.bits / 8));

function parseInteger(s: string): bigint | undefined {
  if (/^0[xX][0-9a-fA-F]+$/.test(s) || /^[0-9]+$/.test(s)) return BigInt(s);
  return undefined;
}

function parseIntField(f: FieldDef, s: string): FieldValue {
  const slash = s.indexOf('/');
  const vs = slash < 0 ? s : s.slice(0, slash);
  const v = parseInteger(vs);
  const limit = 1n << BigInt(bytesOf(f) * 8);
  if (v === undefined) return fail(`${s}: bad syntax for ${f.name} value`);
  if (v >= limit) return fail(`${s}: value too large for ${bytesOf(f)}-byte field ${f.name}`);
  let m = fullMask(f);
  if (slash >= 0) {
    const mv = parseInteger(s.slice(slash + 1));
    if (mv === undefined) return fail(`${s}: bad syntax for ${f.name} mask`);
    if (mv >= limit) return fail(`${s}: mask too large for ${bytesOf(f)}-byte field ${f.name}`);
    m = mv;
  }
  return { value: v, mask: m };
}

const MAC_RE =
  /^([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})$/;
export function parseMac(s: string): bigint | undefined {
  const m = MAC_RE.exec(s);
  if (!m) return undefined;
  let v = 0n;
  for (let i = 1; i <= 6; i++) v = (v << 8n) | BigInt(parseInt(m[i]!, 16));
  return v;
}
export function formatMac(v: bigint): string {
  const parts: string[] = [];
  for (let i = 5; i >= 0; i--)
    parts.push(
      Number((v >> BigInt(i * 8)) & 0xffn)
        .toString(16)
        .padStart(2, '0'),
    );
  return parts.join(':');
}

export function parseIp4(s: string): number | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (!m) return undefined;
  let v = 0;
  for (let i = 1; i <= 4; i++) {
    const o = Number(m[i]);
    if (o > 255) return undefined;
    v = v * 256 + o;
  }
  return v >>> 0;
}
/** Dotted quad (src/addr). */
export const formatIp4 = formatIPv4;

function cidrBits(mask: number): number | undefined {
  for (let b = 0; b <= 32; b++) if (v4Mask(b) === mask >>> 0) return b;
  return undefined;
}

/** `a.b.c.d`, `a.b.c.d/n` or `a.b.c.d/m.m.m.m` (ip_parse_masked). */
export function parseIp4Masked(s: string): { ip: number; mask: number } {
  const slash = s.indexOf('/');
  const ip = parseIp4(slash < 0 ? s : s.slice(0, slash));
  if (ip === undefined) return fail(`${s}: invalid IP address`);
  if (slash < 0) return { ip, mask: 0xffffffff };
  const rest = s.slice(slash + 1);
  const m = parseIp4(rest);
  if (m !== undefined) return { ip, mask: m };
  if (/^-?\d+$/.test(rest)) {
    const n = Number(rest);
    if (n < 0 || n > 32) return fail(`${s}: IPv4 network prefix bits not between 0 and 32, inclusive`);
    return { ip, mask: v4Mask(n) };
  }
  return fail(`${s}: invalid IP address`);
}
/** ip_format_masked. */
export function formatIp4Masked(ip: number, mask: number): string {
  if (mask >>> 0 === 0xffffffff) return formatIp4(ip);
  const b = cidrBits(mask);
  return `${formatIp4(ip)}/${b !== undefined ? b : formatIp4(mask)}`;
}

/** IPv6 text (or `[text]`) → 128-bit integer (src/addr). */
export function parseIp6(s: string): bigint | undefined {
  return parseIPv6(s.startsWith('[') && s.endsWith(']') ? s.slice(1, -1) : s);
}
/** RFC 5952 text, as inet_ntop writes it (src/addr). */
export const formatIp6 = formatIPv6;

/** Port number from text: a number, a reserved name, an OpenFlow 1.1 number, or a port name. */
export function parsePort(s: string, ports?: PortMap): number | undefined {
  if (/^\d+$/.test(s)) {
    const n = Number(s);
    if (n < OFPP.MAX) return n;
    if (n >= 0xfffffff8 && n <= 0xffffffff) return n - 0xffff0000; // OF1.1 reserved ports
    if (n <= 0xffff && RESERVED_PORT_NAMES.has(n)) return n;
    return undefined;
  }
  const upper = s.toUpperCase();
  for (const [n, name] of RESERVED_PORT_NAMES) if (name === upper) return n;
  if (upper === 'ANY') return OFPP.NONE;
  return ports?.portByName(s.startsWith('"') && s.endsWith('"') ? s.slice(1, -1) : s);
}

/** ofputil_format_port: reserved ports by name; others by number, or name with --names. */
export function formatPort(port: number, ports?: PortMap, names = false): string {
  const r = RESERVED_PORT_NAMES.get(port);
  if (r !== undefined) return r;
  if (names && ports) {
    const n = ports.nameOfPort(port);
    if (n !== undefined) return /^[A-Za-z0-9_.-]+$/.test(n) && !/^\d+$/.test(n) ? n : `"${n}"`;
  }
  return String(port);
}

/** Flags in `+a-b` (masked) or `a|b` / number form (parse_flags). */
function parseFlags(s: string, names: readonly string[], field: string, allowed: number): FieldValue {
  const num = /^(0[xX][0-9a-fA-F]+|\d+)\/(0[xX][0-9a-fA-F]+|\d+)$/.exec(s);
  if (num) {
    const v = Number(num[1]);
    const m = Number(num[2]);
    if ((v | m) & ~allowed) return fail(`${s}: unknown ${field} flag(s)`);
    return { value: BigInt(v), mask: BigInt(m) };
  }
  if (s.startsWith('+') || s.startsWith('-')) {
    let v = 0;
    let m = 0;
    let rest = s;
    while (rest.length) {
      const set = rest[0] === '+';
      if (rest[0] !== '+' && rest[0] !== '-')
        return fail(`${rest}: ${field} must be preceded by '+' (for SET) or '-' (NOT SET)`);
      rest = rest.slice(1);
      const bit = names.findIndex((nm) => rest.startsWith(nm) && /^([+-]|$)/.test(rest.slice(nm.length)));
      if (bit < 0 || !((1 << bit) & allowed)) return fail(`${rest}: unknown ${field} flag(s)`);
      if (m & (1 << bit)) return fail(`${rest}: Each ${field} flag can be specified only once`);
      m |= 1 << bit;
      if (set) v |= 1 << bit;
      rest = rest.slice(names[bit]!.length);
    }
    return { value: BigInt(v), mask: BigInt(m) };
  }
  let v = 0;
  for (const part of s.split('|')) {
    const n = parseInteger(part);
    if (n !== undefined) {
      if (Number(n) & ~allowed) return fail(`${s}: unknown ${field} flag(s)`);
      v |= Number(n);
      continue;
    }
    const bit = names.indexOf(part);
    if (bit < 0) return fail(`${part}: unknown ${field} flag(s)`);
    v |= 1 << bit;
  }
  return { value: BigInt(v), mask: 0xffffffffn };
}

/** format_flags: `a|b`, `0` when none. */
export function formatFlags(v: number, names: readonly string[]): string {
  if (!v) return '0';
  const out: string[] = [];
  let bad = 0;
  for (let b = 0; b < 32; b++) {
    if (!(v & (1 << b))) continue;
    const n = names[b];
    if (n !== undefined) out.push(n);
    else bad |= 1 << b;
  }
  if (bad) out.push(`0x${(bad >>> 0).toString(16)}`);
  return out.join('|');
}
/** format_flags_masked's +/- form. */
function formatFlagsMasked(v: number, m: number, names: readonly string[]): string {
  let out = '';
  for (let b = 0; b < 32; b++)
    if (m & (1 << b)) out += `${v & (1 << b) ? '+' : '-'}${names[b] ?? '[Unknown]'}`;
  return out;
}

const FRAG_VALUES: Record<string, [number, number]> = {
  no: [0, 1],
  yes: [1, 1],
  first: [1, 3],
  later: [3, 3],
  not_later: [0, 2],
};

/** Parses a field's text (mf_parse). `s` empty means "0/0". */
export function parseFieldValue(f: FieldDef, s: string, ports?: PortMap): FieldValue {
  if (s === '') return { value: 0n, mask: 0n };
  switch (f.kind) {
    case 'eth': {
      const slash = s.indexOf('/');
      const v = parseMac(slash < 0 ? s : s.slice(0, slash));
      const m = slash < 0 ? fullMask(f) : parseMac(s.slice(slash + 1));
      if (v === undefined || m === undefined) return fail(`${s}: invalid Ethernet address`);
      return { value: v, mask: m };
    }
    case 'ipv4': {
      const { ip, mask } = parseIp4Masked(s);
      return { value: BigInt(ip), mask: BigInt(mask) };
    }
    case 'ipv6': {
      const slash = s.indexOf('/');
      const v = parseIp6(slash < 0 ? s : s.slice(0, slash));
      if (v === undefined) return fail(`${s}: invalid IPv6 address`);
      if (slash < 0) return { value: v, mask: fullMask(f) };
      const rest = s.slice(slash + 1);
      if (/^\d+$/.test(rest)) {
        const n = Number(rest);
        if (n > 128) return fail(`${s}: IPv6 network prefix bits not between 0 and 128, inclusive`);
        return { value: v, mask: n === 0 ? 0n : ((1n << BigInt(n)) - 1n) << BigInt(128 - n) };
      }
      const m = parseIp6(rest);
      if (m === undefined) return fail(`${s}: Invalid IPv6 mask`);
      return { value: v, mask: m };
    }
    case 'port': {
      const p = parsePort(s, ports);
      if (p === undefined) return fail(`${s}: invalid or unknown port for ${f.name}`);
      return { value: BigInt(p), mask: 0xffffn };
    }
    case 'ct_state':
      return parseFlags(s, CT_STATE_NAMES, 'ct_state', 0xff);
    case 'tcp_flags': {
      const r = parseFlags(s, TCP_FLAG_NAMES, 'TCP', 0xfff);
      return { value: r.value, mask: r.mask & 0xfffn };
    }
    case 'frag': {
      const fv = FRAG_VALUES[s];
      if (!fv)
        return fail(
          `${s}: unknown fragment type (valid types are "no", "yes", "first", "later", "not_first"`,
        );
      return { value: BigInt(fv[0]), mask: BigInt(fv[1]) };
    }
    default:
      return parseIntField(f, s);
  }
}

/** A value as OVS prints a register or a cookie: `0`, else hex with `0x`. */
export function hexOf(v: bigint): string {
  return v === 0n ? '0' : `0x${v.toString(16)}`;
}

/** mf_format: a field's value (and mask when not exact) as set_field and learn print it. */
export function formatFieldValue(f: FieldDef, v: FieldValue, ports?: PortMap, names = false): string {
  const full = fullMask(f);
  if (v.mask === 0n) return 'ANY';
  const exact = v.mask === full;
  switch (f.kind) {
    case 'eth':
      return exact ? formatMac(v.value) : `${formatMac(v.value)}/${formatMac(v.mask)}`;
    case 'ipv4':
      return formatIp4Masked(Number(v.value), Number(v.mask));
    case 'ipv6':
      return exact ? formatIp6(v.value) : `${formatIp6(v.value)}/${formatIp6(v.mask)}`;
    case 'port':
      if (exact) return formatPort(Number(v.value), ports, names);
      break;
    case 'ct_state':
      return v.mask === 0xffffffffn
        ? formatFlags(Number(v.value), CT_STATE_NAMES)
        : formatFlagsMasked(Number(v.value), Number(v.mask), CT_STATE_NAMES);
    default:
      break;
  }
  const val = f.kind === 'hex' ? hexOf(v.value) : v.value.toString();
  return exact ? val : `${val}/${hexOf(v.mask)}`;
}

// ───────────────────────────── matches ─────────────────────────────

/** A match: `value` holds only bits under `mask`. */
export class Match {
  readonly value: Flow;
  readonly mask: Flow;
  constructor(value?: Flow, mask?: Flow) {
    this.value = value ?? newFlow();
    this.mask = mask ?? newFlow();
  }
  clone(): Match {
    return new Match(this.value.slice(), this.mask.slice());
  }
  set(f: FieldDef, v: FieldValue): void {
    writeBig(this.mask, f, v.mask, fullMask(f));
    writeBig(this.value, f, v.value & v.mask, fullMask(f));
  }
  get(f: FieldDef): FieldValue {
    return { value: readBig(this.value, f), mask: readBig(this.mask, f) };
  }
  has(f: FieldDef): boolean {
    return readBig(this.mask, f) !== 0n;
  }
  /** Whether `flow` satisfies this match. */
  matches(flow: Flow): boolean {
    const v = this.value;
    const m = this.mask;
    for (let i = 0; i < N_WORDS; i++) if ((flow[i]! & m[i]!) >>> 0 !== v[i]) return false;
    return true;
  }
  equals(o: Match): boolean {
    for (let i = 0; i < N_WORDS; i++)
      if (this.value[i] !== o.value[i] || this.mask[i] !== o.mask[i]) return false;
    return true;
  }
  /** Whether every packet this match accepts, `o` accepts too (o is looser or equal). */
  isSubsetOf(o: Match): boolean {
    for (let i = 0; i < N_WORDS; i++) {
      const om = o.mask[i]!;
      if ((this.mask[i]! & om) >>> 0 !== om) return false;
      if ((this.value[i]! & om) >>> 0 !== o.value[i]) return false;
    }
    return true;
  }
  /** A stable key of value and mask (for flow identity). */
  key(): string {
    let s = '';
    for (let i = 0; i < N_WORDS; i++) if (this.mask[i]) s += `${i}:${this.value[i]}/${this.mask[i]};`;
    return s;
  }
}

const dlType = (m: Match): number | undefined =>
  m.mask[W.DL_TYPE] === 0xffff ? m.value[W.DL_TYPE] : undefined;
const nwProto = (m: Match): number | undefined => (m.mask[W.NW_PROTO] ? m.value[W.NW_PROTO] : undefined);

/** mf_are_prereqs_ok for a match. */
export function prereqsOk(f: FieldDef, m: Match): boolean {
  const t = dlType(m);
  const p = nwProto(m);
  const ipAny = t === ETH_TYPE.IP || t === ETH_TYPE.IPV6;
  switch (f.prereq) {
    case 'none':
      return true;
    case 'ip':
      return t === ETH_TYPE.IP;
    case 'ipv6':
      return t === ETH_TYPE.IPV6;
    case 'ip_any':
      return ipAny;
    case 'arp':
      return t === ETH_TYPE.ARP || t === ETH_TYPE.RARP;
    case 'tcp':
      return ipAny && p === IPPROTO.TCP;
    case 'l4':
      return ipAny && (p === IPPROTO.TCP || p === IPPROTO.UDP || p === IPPROTO.SCTP);
    case 'icmp_any':
      return (t === ETH_TYPE.IP && p === IPPROTO.ICMP) || (t === ETH_TYPE.IPV6 && p === IPPROTO.ICMPV6);
  }
}

/** Protocol shorthands (ofp_parse_protocol). */
export const PROTOCOLS: Readonly<Record<string, { dlType: number; nwProto?: number }>> = {
  ip: { dlType: ETH_TYPE.IP },
  ipv4: { dlType: ETH_TYPE.IP },
  ipv6: { dlType: ETH_TYPE.IPV6 },
  ip6: { dlType: ETH_TYPE.IPV6 },
  icmp: { dlType: ETH_TYPE.IP, nwProto: IPPROTO.ICMP },
  icmp6: { dlType: ETH_TYPE.IPV6, nwProto: IPPROTO.ICMPV6 },
  tcp: { dlType: ETH_TYPE.IP, nwProto: IPPROTO.TCP },
  tcp6: { dlType: ETH_TYPE.IPV6, nwProto: IPPROTO.TCP },
  udp: { dlType: ETH_TYPE.IP, nwProto: IPPROTO.UDP },
  udp6: { dlType: ETH_TYPE.IPV6, nwProto: IPPROTO.UDP },
  sctp: { dlType: ETH_TYPE.IP, nwProto: IPPROTO.SCTP },
  sctp6: { dlType: ETH_TYPE.IPV6, nwProto: IPPROTO.SCTP },
  arp: { dlType: ETH_TYPE.ARP },
  rarp: { dlType: ETH_TYPE.RARP },
};

const F = (name: string): FieldDef => fieldByName(name)!;
const DL_TYPE_F = F('eth_type');
const NW_PROTO_F = F('nw_proto');

/** Applies a protocol shorthand to a match (match_set_dl_type / match_set_nw_proto). */
export function applyProtocol(m: Match, proto: { dlType: number; nwProto?: number }): void {
  m.set(DL_TYPE_F, { value: BigInt(proto.dlType), mask: 0xffffn });
  if (proto.nwProto !== undefined) m.set(NW_PROTO_F, { value: BigInt(proto.nwProto), mask: 0xffn });
}

/** Sets one `name=value` match item; returns false when `name` is not a field. */
export function setMatchField(m: Match, name: string, value: string, ports?: PortMap): boolean {
  const proto = PROTOCOLS[name];
  if (proto) {
    applyProtocol(m, proto);
    return true;
  }
  const f = fieldByName(name);
  if (!f) return false;
  const v = parseFieldValue(f, value, ports);
  if (v.mask !== fullMask(f) && v.mask !== 0n && !f.maskable && f.kind !== 'ct_state')
    return fail(`${value}: invalid mask for field ${name}`);
  if (v.value > fullMask(f) || v.mask > fullMask(f) || (f.name === 'nw_tos' && v.value & 3n))
    return fail('OFPBMC_BAD_VALUE');
  // icmp_type/icmp_code live in tp_src/tp_dst, which an exact match masks whole (match_set_icmp_type)
  if ((f.name === 'icmp_type' || f.name === 'icmp_code') && v.mask === fullMask(f)) {
    m.mask[f.word] = 0xffff;
    m.value[f.word] = Number(v.value);
    return true;
  }
  m.set(f, v);
  return true;
}

const USERS_OF_WORD: FieldDef[][] = Array.from({ length: N_WORDS }, () => []);
for (const f of FIELDS) for (let i = 0; i < wordsOf(f); i++) USERS_OF_WORD[f.word + i]!.push(f);

/**
 * Checks every matched word's prerequisites: the switch refuses the flow otherwise. Words are
 * shared (tp_src by tcp, udp and icmp; nw_src by ip and arp), so one satisfied user suffices.
 */
export function checkPrereqs(m: Match): void {
  for (let w = 0; w < N_WORDS; w++) {
    if (!m.mask[w]) continue;
    const users = USERS_OF_WORD[w]!;
    if (users.length && !users.some((f) => prereqsOk(f, m))) fail('OFPBMC_BAD_PREREQ');
  }
}

// ───────────────────────────── printing ─────────────────────────────

const u32hex = (v: number): string => `0x${(v >>> 0).toString(16)}`;
const u32masked = (name: string, v: number, m: number): string =>
  m >>> 0 === 0xffffffff
    ? `${name}=${v === 0 ? '0' : u32hex(v)}`
    : `${name}=${v === 0 ? '0' : u32hex(v)}/${u32hex(m)}`;
const u16masked = (name: string, v: number, m: number): string =>
  m === 0xffff ? `${name}=${v}` : `${name}=0x${v.toString(16)}/0x${m.toString(16)}`;
const be64 = (hi: number, lo: number): bigint => (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0);
function u64masked(name: string, v: bigint, m: bigint): string {
  const vs = v === 0n ? '0' : `0x${v.toString(16)}`;
  return m === 0xffffffffffffffffn
    ? `${name}=${vs}`
    : `${name}=${vs}/${m === 0n ? '0' : `0x${m.toString(16)}`}`;
}
function hexBytes(v: bigint): string {
  return v === 0n ? '0' : `0x${v.toString(16)}`;
}
const mac = (a: Flow, w: number): bigint => (BigInt(a[w]!) << 32n) | BigInt(a[w + 1]!);
function ethMasked(name: string, m: Match, w: number, out: string[]): void {
  const mk = mac(m.mask, w);
  if (!mk) return;
  const v = mac(m.value, w);
  out.push(mk === 0xffffffffffffn ? `${name}=${formatMac(v)}` : `${name}=${formatMac(v)}/${formatMac(mk)}`);
}
function ipMasked(name: string, m: Match, w: number, out: string[]): void {
  const mk = m.mask[w]!;
  if (mk) out.push(`${name}=${formatIp4Masked(m.value[w]!, mk)}`);
}
function ip6Masked(name: string, m: Match, f: FieldDef, out: string[]): void {
  const mk = readBig(m.mask, f);
  if (!mk) return;
  const v = readBig(m.value, f);
  if (mk === fullMask(f)) out.push(`${name}=${formatIp6(v)}`);
  else {
    let bits = -1;
    for (let b = 0; b <= 128; b++)
      if (mk === (b === 0 ? 0n : ((1n << BigInt(b)) - 1n) << BigInt(128 - b))) bits = b;
    out.push(`${name}=${formatIp6(v)}/${bits >= 0 ? bits : formatIp6(mk)}`);
  }
}

/** match_format: the match as dump-flows and ofproto/trace print it (priority omitted at 32768). */
export function formatMatch(m: Match, priority = 32768, ports?: PortMap, names = false): string {
  const out: string[] = [];
  const v = m.value;
  const k = m.mask;
  if (priority !== 32768) out.push(`priority=${priority}`);
  if (k[W.PKT_MARK]) out.push(u32masked('pkt_mark', v[W.PKT_MARK]!, k[W.PKT_MARK]!));
  if (k[W.RECIRC_ID])
    out.push(
      `recirc_id=${v[W.RECIRC_ID] === 0 ? '0' : u32hex(v[W.RECIRC_ID]!)}${k[W.RECIRC_ID] === 0xffffffff ? '' : `/${u32hex(k[W.RECIRC_ID]!)}`}`,
    );
  if (k[W.CONJ_ID]) out.push(`conj_id=${v[W.CONJ_ID]}`);
  if (k[W.CT_STATE]) {
    const cs = v[W.CT_STATE]! & 0xff;
    out.push(
      (k[W.CT_STATE]! & 0xff) === 0xff
        ? `ct_state=${formatFlags(cs, CT_STATE_NAMES)}`
        : `ct_state=${formatFlagsMasked(cs, k[W.CT_STATE]! & 0xff, CT_STATE_NAMES)}`,
    );
  }
  if (k[W.CT_ZONE]) out.push(u16masked('ct_zone', v[W.CT_ZONE]!, k[W.CT_ZONE]!));
  if (k[W.CT_MARK]) out.push(u32masked('ct_mark', v[W.CT_MARK]!, k[W.CT_MARK]!));
  const lbl = F('ct_label');
  const lm = readBig(k, lbl);
  if (lm) {
    const lv = hexBytes(readBig(v, lbl));
    out.push(lm === fullMask(lbl) ? `ct_label=${lv}` : `ct_label=${lv}/${hexBytes(lm)}`);
  }
  ipMasked('ct_nw_src', m, W.CT_NW_SRC, out);
  ipMasked('ct_nw_dst', m, W.CT_NW_DST, out);
  if (k[W.CT_NW_PROTO]) {
    out.push(`ct_nw_proto=${v[W.CT_NW_PROTO]}`);
    if (k[W.CT_TP_SRC]) out.push(u16masked('ct_tp_src', v[W.CT_TP_SRC]!, k[W.CT_TP_SRC]!));
    if (k[W.CT_TP_DST]) out.push(u16masked('ct_tp_dst', v[W.CT_TP_DST]!, k[W.CT_TP_DST]!));
  }
  let skipType = false;
  let skipProto = false;
  const t = v[W.DL_TYPE]!;
  // packet_type prints (as `eth`) in megaflows and recirculated flows: is_megaflow in match_format
  if (k[W.RECIRC_ID]) out.push('eth');
  if (k[W.DL_TYPE]) {
    skipType = true;
    const hasProto = k[W.NW_PROTO] !== 0;
    const p = v[W.NW_PROTO]!;
    if (t === ETH_TYPE.IP || t === ETH_TYPE.IPV6) {
      const six = t === ETH_TYPE.IPV6;
      const names4: Record<number, string> = six
        ? { [IPPROTO.ICMPV6]: 'icmp6', [IPPROTO.TCP]: 'tcp6', [IPPROTO.UDP]: 'udp6', [IPPROTO.SCTP]: 'sctp6' }
        : { [IPPROTO.ICMP]: 'icmp', [IPPROTO.TCP]: 'tcp', [IPPROTO.UDP]: 'udp', [IPPROTO.SCTP]: 'sctp' };
      const pn = hasProto ? names4[p] : undefined;
      if (pn) {
        out.push(pn);
        skipProto = true;
      } else out.push(six ? 'ipv6' : 'ip');
    } else if (t === ETH_TYPE.ARP) out.push('arp');
    else if (t === ETH_TYPE.RARP) out.push('rarp');
    else skipType = false;
  }
  for (let i = 0; i < N_REGS; i++)
    if (k[W.REG0 + i]) out.push(u32masked(`reg${i}`, v[W.REG0 + i]!, k[W.REG0 + i]!));
  const tm = be64(k[W.TUN_ID]!, k[W.TUN_ID + 1]!);
  if (tm) out.push(u64masked('tun_id', be64(v[W.TUN_ID]!, v[W.TUN_ID + 1]!), tm));
  ipMasked('tun_src', m, W.TUN_SRC, out);
  ipMasked('tun_dst', m, W.TUN_DST, out);
  const mm = be64(k[W.METADATA]!, k[W.METADATA + 1]!);
  if (mm) out.push(u64masked('metadata', be64(v[W.METADATA]!, v[W.METADATA + 1]!), mm));
  if (k[W.IN_PORT]) out.push(`in_port=${formatPort(v[W.IN_PORT]!, ports, names)}`);
  if (k[W.VLAN_TCI]) {
    const tci = v[W.VLAN_TCI]!;
    const tk = k[W.VLAN_TCI]!;
    const hex4 = (x: number): string => `0x${x.toString(16).padStart(4, '0')}`;
    out.push(tk === 0xffff ? `vlan_tci=${hex4(tci)}` : `vlan_tci=${hex4(tci)}/${hex4(tk)}`);
  }
  ethMasked('dl_src', m, W.DL_SRC, out);
  ethMasked('dl_dst', m, W.DL_DST, out);
  if (!skipType && k[W.DL_TYPE]) out.push(`dl_type=0x${t.toString(16).padStart(4, '0')}`);
  const isArp = t === ETH_TYPE.ARP || t === ETH_TYPE.RARP;
  if (t === ETH_TYPE.IPV6) {
    ip6Masked('ipv6_src', m, F('ipv6_src'), out);
    ip6Masked('ipv6_dst', m, F('ipv6_dst'), out);
  } else if (isArp) {
    ipMasked('arp_spa', m, W.NW_SRC, out);
    ipMasked('arp_tpa', m, W.NW_DST, out);
  } else {
    ipMasked('nw_src', m, W.NW_SRC, out);
    ipMasked('nw_dst', m, W.NW_DST, out);
  }
  if (!skipProto && k[W.NW_PROTO]) out.push(`${isArp ? 'arp_op' : 'nw_proto'}=${v[W.NW_PROTO]}`);
  if (isArp) {
    ethMasked('arp_sha', m, W.ARP_SHA, out);
    ethMasked('arp_tha', m, W.ARP_THA, out);
  }
  if (k[W.NW_TOS]! & 0xfc) out.push(`nw_tos=${v[W.NW_TOS]! & 0xfc}`);
  if (k[W.NW_TOS]! & 0x03) out.push(`nw_ecn=${v[W.NW_TOS]! & 0x03}`);
  if (k[W.NW_TTL]) out.push(`nw_ttl=${v[W.NW_TTL]}`);
  const fk = k[W.NW_FRAG]! & 3;
  const fv = v[W.NW_FRAG]!;
  if (fk === 3) out.push(`nw_frag=${fv & 1 ? (fv & 2 ? 'later' : 'first') : fv & 2 ? '<error>' : 'no'}`);
  else if (fk === 1) out.push(`nw_frag=${fv & 1 ? 'yes' : 'no'}`);
  else if (fk === 2) out.push(`nw_frag=${fv & 2 ? 'later' : 'not_later'}`);
  const p = v[W.NW_PROTO]!;
  if ((t === ETH_TYPE.IP && p === IPPROTO.ICMP) || (t === ETH_TYPE.IPV6 && p === IPPROTO.ICMPV6)) {
    if (k[W.TP_SRC]) out.push(u16masked('icmp_type', v[W.TP_SRC]!, k[W.TP_SRC]!));
    if (k[W.TP_DST]) out.push(u16masked('icmp_code', v[W.TP_DST]!, k[W.TP_DST]!));
  } else {
    if (k[W.TP_SRC]) out.push(u16masked('tp_src', v[W.TP_SRC]!, k[W.TP_SRC]!));
    if (k[W.TP_DST]) out.push(u16masked('tp_dst', v[W.TP_DST]!, k[W.TP_DST]!));
  }
  if ((t === ETH_TYPE.IP || t === ETH_TYPE.IPV6) && p === IPPROTO.TCP && k[W.TCP_FLAGS]) {
    const fm = k[W.TCP_FLAGS]! & 0xfff;
    const fl = v[W.TCP_FLAGS]! & 0xfff;
    out.push(
      fm === 0xfff
        ? `tcp_flags=${formatFlags(fl, TCP_FLAG_NAMES)}`
        : `tcp_flags=${formatFlagsMasked(fl, fm, TCP_FLAG_NAMES)}`,
    );
  }
  return out.join(',');
}

/** The exact-match mask OVS uses to print a packet (flow_wildcards_init_for_packet + flow_format). */
export function packetMask(flow: Flow): Flow {
  const k = newFlow();
  const all = (w: number, n = 1, m = 0xffffffff): void => {
    for (let i = 0; i < n; i++) k[w + i] = m;
  };
  const tunnel = flow[W.TUN_DST] !== 0;
  if (tunnel) all(W.TUN_SRC, 2);
  if (tunnel || flow[W.TUN_ID] || flow[W.TUN_ID + 1]) all(W.TUN_ID, 2);
  if (flow[W.PKT_MARK]) all(W.PKT_MARK);
  if (flow[W.CT_STATE]) all(W.CT_STATE, 1, 0xff);
  if (flow[W.CT_ZONE]) all(W.CT_ZONE, 1, 0xffff);
  if (flow[W.CT_MARK]) all(W.CT_MARK);
  if (flow[W.CT_LABEL] || flow[W.CT_LABEL + 1] || flow[W.CT_LABEL + 2] || flow[W.CT_LABEL + 3])
    all(W.CT_LABEL, 4);
  if (flow[W.RECIRC_ID]) all(W.RECIRC_ID);
  if (flow[W.IN_PORT]) all(W.IN_PORT, 1, 0xffff);
  for (let i = 0; i < N_REGS; i++) if (flow[W.REG0 + i]) all(W.REG0 + i);
  if (flow[W.METADATA] || flow[W.METADATA + 1]) all(W.METADATA, 2);
  all(W.DL_SRC, 1, 0xffff);
  all(W.DL_SRC + 1);
  all(W.DL_DST, 1, 0xffff);
  all(W.DL_DST + 1);
  all(W.DL_TYPE, 1, 0xffff);
  all(W.VLAN_TCI, 1, 0xffff);
  const t = flow[W.DL_TYPE]!;
  const cs = flow[W.CT_STATE]!;
  const ctValid = (cs & CS.TRACKED) !== 0 && (cs & CS.INVALID) === 0 && flow[W.CT_NW_PROTO] !== 0;
  if (t === ETH_TYPE.ARP || t === ETH_TYPE.RARP) {
    all(W.NW_SRC);
    all(W.NW_DST);
    all(W.NW_PROTO, 1, 0xff);
    all(W.ARP_SHA, 1, 0xffff);
    all(W.ARP_SHA + 1);
    all(W.ARP_THA, 1, 0xffff);
    all(W.ARP_THA + 1);
    return k;
  }
  if (t !== ETH_TYPE.IP && t !== ETH_TYPE.IPV6) return k;
  if (t === ETH_TYPE.IP) {
    all(W.NW_SRC);
    all(W.NW_DST);
    if (ctValid) {
      all(W.CT_NW_SRC);
      all(W.CT_NW_DST);
    }
  } else {
    all(W.IPV6_SRC, 8);
  }
  if (ctValid) {
    all(W.CT_NW_PROTO, 1, 0xff);
    all(W.CT_TP_SRC, 1, 0xffff);
    all(W.CT_TP_DST, 1, 0xffff);
  }
  all(W.NW_PROTO, 1, 0xff);
  all(W.NW_TOS, 1, 0xff);
  all(W.NW_TTL, 1, 0xff);
  all(W.NW_FRAG, 1, 3);
  const p = flow[W.NW_PROTO]!;
  if (
    p === IPPROTO.TCP ||
    p === IPPROTO.UDP ||
    p === IPPROTO.SCTP ||
    p === IPPROTO.ICMP ||
    p === IPPROTO.ICMPV6
  ) {
    all(W.TP_SRC, 1, 0xffff);
    all(W.TP_DST, 1, 0xffff);
  }
  if (p === IPPROTO.TCP) all(W.TCP_FLAGS, 1, 0xfff);
  return k;
}

/** flow_format: a packet's fields as `Flow:` and `Final flow:` print them. */
export function formatFlow(flow: Flow, ports?: PortMap, names = false): string {
  const k = packetMask(flow);
  const v = newFlow();
  for (let i = 0; i < N_WORDS; i++) v[i] = (flow[i]! & k[i]!) >>> 0;
  return formatMatch(new Match(v, k), 32768, ports, names);
}
