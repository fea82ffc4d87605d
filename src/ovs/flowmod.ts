/**
 * ovs-ofctl's flow syntax (ovs-ofctl(8) "Flow Syntax"; lib/ofp-flow.c parse_ofp_str__): one line
 * of add-flow, del-flows or mod-flows text into a flow-mod record, with the errors ovs-ofctl
 * prints for bad input.
 */
import { type Action, checkActions, parseActionList, parseSubfield } from './actions.js';
import { fail } from './errors.js';
import { IPPROTO, OFPP, W, fieldByName, fullMask, readBig, subfieldMask } from './fields.js';
import {
  Match,
  PROTOCOLS,
  type PortMap,
  applyProtocol,
  checkPrereqs,
  formatFieldValue,
  parseFieldValue,
  parsePort,
  prereqsOk,
  setMatchField,
} from './match.js';
import { keyValues } from './syntax.js';

export type FlowModCommand = 'add' | 'modify' | 'modify_strict' | 'delete' | 'delete_strict';

export interface FlowMod {
  readonly command: FlowModCommand;
  /** 255 = every table (del/mod) or table 0 (add). */
  readonly table: number;
  readonly priority: number;
  readonly match: Match;
  readonly actions: readonly Action[];
  readonly cookie: bigint;
  readonly cookieMask: bigint;
  /** Whether `cookie=` (without a mask) was given, to set on add/modify. */
  readonly setCookie: boolean;
  readonly idleTimeout: number;
  readonly hardTimeout: number;
  readonly importance: number;
  readonly sendFlowRem: boolean;
  readonly checkOverlap: boolean;
  readonly resetCounts: boolean;
  readonly outPort: number;
  readonly outGroup: number;
}

function u16(v: string, name: string): number {
  if (!/^(0[xX][0-9a-fA-F]+|\d+)$/.test(v) || Number(v) > 65535) return fail(`invalid ${name} "${v}"`);
  return Number(v);
}
function u64(v: string): bigint {
  if (!v) return fail('missing required numeric argument');
  if (/^0[xX][0-9a-fA-F]+$/.test(v) || /^\d+$/.test(v)) {
    const n = BigInt(v);
    if (n <= 0xffffffffffffffffn) return n;
  }
  if (v === '-1') return 0xffffffffffffffffn;
  return fail(`invalid numeric format ${v}`);
}

/** Splits off the actions: the text after `action…=` (ofp_extract_actions). */
function extractActions(s: string): [string, string | undefined] {
  const i = s.indexOf('action');
  if (i < 0) return [s, undefined];
  const eq = s.indexOf('=', i);
  return [s.slice(0, i), eq < 0 ? undefined : s.slice(eq + 1)];
}

/** Parses one flow line for `command`. Throws OvsError with ovs-ofctl's message. */
export function parseFlowMod(text: string, command: FlowModCommand, ports?: PortMap): FlowMod {
  const withActions = command === 'add' || command === 'modify' || command === 'modify_strict';
  let matchText = text;
  let actText: string | undefined;
  if (withActions) {
    [matchText, actText] = extractActions(text);
    if (actText === undefined) return fail('must specify an action');
  }
  const match = new Match();
  let table = 255;
  let priority = 32768;
  let cookie = 0n;
  let cookieMask = 0n;
  let setCookie = false;
  let idleTimeout = 0;
  let hardTimeout = 0;
  let importance = 0;
  let sendFlowRem = false;
  let checkOverlap = false;
  let resetCounts = false;
  let outPort: number = OFPP.NONE;
  let outGroup = 0xffffffff;
  const flags = withActions;
  for (const { key, value } of keyValues(matchText)) {
    if (flags && key === 'send_flow_rem') sendFlowRem = true;
    else if (flags && key === 'check_overlap') checkOverlap = true;
    else if (flags && key === 'reset_counts') resetCounts = true;
    else if (flags && (key === 'no_packet_counts' || key === 'no_byte_counts')) continue;
    else if (key === 'no_readonly_table' || key === 'allow_hidden_fields') continue;
    else if (setMatchField(match, key, value, ports)) continue;
    else if (key.includes('[')) {
      const sf = parseSubfield(key);
      const v = /^(0[xX][0-9a-fA-F]+|\d+)$/.test(value) ? BigInt(value) : undefined;
      if (v === undefined) return fail(`${key}: cannot parse integer value: ${value}`);
      if (v >> BigInt(sf.nBits))
        return fail(
          `${key}: value ${formatFieldValue(sf.field, { value: v, mask: fullMask(sf.field) })} does not fit into ${sf.nBits} bits`,
        );
      const cur = readBig(match.value, sf.field);
      const curM = readBig(match.mask, sf.field);
      const bits = subfieldMask(sf);
      const nv = (cur & ~bits) | (v << BigInt(sf.ofs));
      const nm = curM | bits;
      match.set(sf.field, { value: nv, mask: nm });
    } else {
      if (!value) return fail(`field ${key} missing value`);
      if (key === 'table') {
        if (!/^\d+$/.test(value) || Number(value) > 255) return fail(`unknown table "${value}"`);
        table = Number(value);
      } else if ((command === 'delete' || command === 'delete_strict') && key === 'out_port') {
        const p = parsePort(value, ports);
        if (p === undefined) return fail(`${value} is not a valid OpenFlow port`);
        outPort = p;
      } else if ((command === 'delete' || command === 'delete_strict') && key === 'out_group') {
        if (!/^\d+$/.test(value)) return fail(`${value} is not a valid OpenFlow group`);
        outGroup = Number(value);
      } else if (key === 'priority' && command !== 'delete') priority = u16(value, key);
      else if (withActions && key === 'idle_timeout') idleTimeout = u16(value, key);
      else if (withActions && key === 'hard_timeout') hardTimeout = u16(value, key);
      else if (command === 'add' && key === 'importance') importance = u16(value, key);
      else if (key === 'cookie') {
        const slash = value.indexOf('/');
        if (slash >= 0) {
          if (command === 'add') return fail('flow additions cannot use a cookie mask');
          cookie = u64(value.slice(0, slash));
          cookieMask = u64(value.slice(slash + 1));
        } else {
          if (!withActions)
            return fail(`cannot set cookie (to match on a cookie, specify a mask, e.g. cookie=${value}/-1)`);
          cookie = u64(value);
          setCookie = true;
        }
      } else if (['duration', 'n_packets', 'n_bytes', 'idle_age', 'hard_age'].includes(key)) continue;
      else return fail(`unknown keyword ${key}`);
    }
  }
  const actions = withActions ? parseActionList(actText!, { ports, match }) : [];
  checkPrereqs(match);
  if (withActions) checkActions(actions, match, table);
  return {
    command,
    table,
    priority,
    match,
    actions,
    cookie,
    cookieMask,
    setCookie,
    idleTimeout,
    hardTimeout,
    importance,
    sendFlowRem,
    checkOverlap,
    resetCounts,
    outPort,
    outGroup,
  };
}

/** Prerequisites a packet's fields need (mf_are_prereqs_ok on the flow parsed so far): stricter than matches. */
const PACKET_PREREQ: Readonly<Record<string, number>> = {
  tcp_src: IPPROTO.TCP,
  tcp_dst: IPPROTO.TCP,
  tp_src: IPPROTO.TCP,
  tp_dst: IPPROTO.TCP,
  tcp_flags: IPPROTO.TCP,
  udp_src: IPPROTO.UDP,
  udp_dst: IPPROTO.UDP,
  sctp_src: IPPROTO.SCTP,
  sctp_dst: IPPROTO.SCTP,
};

/**
 * A packet in ofproto/trace's flow syntax (`in_port=1,tcp,nw_src=…`; lib/ofp-flow.c
 * parse_ofp_exact_flow): every field exact, unspecified fields zero, with OVS's errors.
 */
export function parsePacket(text: string, ports?: PortMap): Uint32Array {
  const m = new Match();
  for (const { key, value } of keyValues(text)) {
    const proto = PROTOCOLS[key];
    if (proto) {
      if (m.mask[W.DL_TYPE]) return fail(`${text}: Ethernet type set multiple times`);
      if (proto.nwProto !== undefined && m.mask[W.NW_PROTO])
        return fail(`${text}: network protocol set multiple times`);
      applyProtocol(m, proto);
      continue;
    }
    const f = fieldByName(key);
    if (!f) return fail(`${text}: unknown field ${key}`);
    const strict = PACKET_PREREQ[key];
    const ok = strict !== undefined ? prereqsOk(f, m) && m.value[W.NW_PROTO] === strict : prereqsOk(f, m);
    if (!ok) return fail(`${text}: prerequisites not met for setting ${key}`);
    if (readBig(m.value, f) !== 0n) return fail(`${text}: field ${key} set multiple times`);
    let v;
    try {
      v = parseFieldValue(f, value, ports);
      // flags parse with the mask of their defined bits; a fragment type names the whole field
      const exact =
        v.mask === fullMask(f) || f.kind === 'ct_state' || f.kind === 'tcp_flags' || f.kind === 'frag';
      if (!exact) fail(`${value}: wildcards not allowed here`);
    } catch (e) {
      return fail(`${text}: bad value for ${key} (${e instanceof Error ? e.message : String(e)})`);
    }
    if (f.name === 'icmp_type' || f.name === 'icmp_code') {
      m.value[f.word] = Number(v.value);
      m.mask[f.word] = 0xffff;
    } else m.set(f, v);
  }
  return m.value.slice();
}
