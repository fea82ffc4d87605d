/**
 * OpenFlow actions as ovs-ofctl writes them (ovs-actions(7); lib/ofp-actions.c, lib/learn.c):
 * parsed into records, checked against the flow's match, and printed the way an OpenFlow 1.5
 * switch prints them back (load and mod_* come back as set_field, since OpenFlow 1.5 has only
 * Set-Field: encode_SET_FIELD).
 */
import { fail } from './errors.js';
import {
  type FieldDef,
  IPPROTO,
  N_WORDS,
  OFPP,
  type Subfield,
  W,
  fieldByName,
  formatSubfield,
  fullMask,
  newFlow,
  subfieldMask,
  writeBig,
} from './fields.js';
import {
  type Match,
  type PortMap,
  formatFieldValue,
  formatIp4,
  formatPort,
  parseFieldValue,
  parseIp4,
  parsePort,
  prereqsOk,
} from './match.js';
import { keyValues } from './syntax.js';

export interface Nat {
  readonly src: boolean;
  readonly dst: boolean;
  /** IPv4 range (0 = none given). */
  readonly ipMin: number;
  readonly ipMax: number;
  readonly portMin: number;
  readonly portMax: number;
  readonly persistent: boolean;
  readonly hash: boolean;
  readonly random: boolean;
}

export type LearnSpec =
  | { readonly kind: 'match_imm'; readonly dst: Subfield; readonly value: bigint }
  | { readonly kind: 'match_field'; readonly dst: Subfield; readonly src: Subfield }
  | { readonly kind: 'load_imm'; readonly dst: Subfield; readonly value: bigint }
  | { readonly kind: 'load_field'; readonly dst: Subfield; readonly src: Subfield }
  | { readonly kind: 'output'; readonly src: Subfield };

export interface Learn {
  readonly table: number;
  readonly idleTimeout: number;
  readonly hardTimeout: number;
  readonly finIdleTimeout: number;
  readonly finHardTimeout: number;
  readonly priority: number;
  readonly cookie: bigint;
  readonly deleteLearned: boolean;
  readonly sendFlowRem: boolean;
  readonly limit: number;
  readonly specs: readonly LearnSpec[];
}

/** A set_field/load, with the words it writes precomputed (applied with integer ops only). */
export interface SetField {
  readonly type: 'set_field';
  readonly field: FieldDef;
  readonly value: bigint;
  readonly mask: bigint;
  readonly words: Int32Array;
  readonly wordValues: Uint32Array;
  readonly wordMasks: Uint32Array;
}

export type Action =
  | { readonly type: 'output'; readonly port: number; readonly maxLen: number }
  | { readonly type: 'output_reg'; readonly src: Subfield }
  | SetField
  | { readonly type: 'move'; readonly src: Subfield; readonly dst: Subfield }
  | { readonly type: 'resubmit'; readonly port: number; readonly table: number; readonly ct: boolean }
  | { readonly type: 'goto_table'; readonly table: number }
  | { readonly type: 'group'; readonly id: number }
  | {
      readonly type: 'ct';
      readonly commit: boolean;
      readonly force: boolean;
      /** 255 = no recirculation. */
      readonly table: number;
      readonly zone: number;
      readonly zoneSrc: Subfield | undefined;
      readonly nat: Nat | undefined;
      readonly exec: readonly Action[];
    }
  | { readonly type: 'conjunction'; readonly id: number; readonly clause: number; readonly nClauses: number }
  | { readonly type: 'learn'; readonly learn: Learn }
  | {
      readonly type: 'controller';
      readonly maxLen: number;
      readonly reason: string;
      readonly id: number;
      readonly userdata: readonly number[];
      readonly pause: boolean;
    }
  | { readonly type: 'dec_ttl' }
  | { readonly type: 'push_vlan'; readonly ethertype: number }
  | { readonly type: 'pop_vlan'; readonly strip: boolean }
  | { readonly type: 'note'; readonly bytes: readonly number[] }
  | { readonly type: 'ct_clear' }
  | { readonly type: 'fin_timeout'; readonly idleTimeout: number; readonly hardTimeout: number }
  | { readonly type: 'exit' };

export interface ActionContext {
  readonly ports?: PortMap | undefined;
  /** The match of the flow the actions belong to (set_field prerequisites, mod_tp_* field). */
  readonly match?: Match | undefined;
  /** Inside ct(exec(...)): the only place ct_mark and ct_label may be set. */
  readonly inCt?: boolean;
}

// ───────────────────────────── subfields and set_field ─────────────────────────────

/** `NXM_NX_REG0[0..3]`, `reg0[]`, `reg0[5]`, `reg0` (mf_parse_subfield). */
export function parseSubfield(s: string): Subfield {
  const k = s.search(/[[-]/);
  const name = k < 0 ? s : s.slice(0, k);
  const f = fieldByName(name);
  if (!f) return fail(`${s}: unknown field \`${name}'`);
  let start = 0;
  let end = f.bits - 1;
  const rest = k < 0 ? '' : s.slice(k);
  if (rest.startsWith('[')) {
    let m: RegExpExecArray | null;
    if (rest.startsWith('[]')) {
      /* whole field */
    } else if ((m = /^\[(\d+)\.\.(\d+)\]/.exec(rest))) {
      start = Number(m[1]);
      end = Number(m[2]);
    } else if ((m = /^\[(\d+)\]/.exec(rest))) {
      start = end = Number(m[1]);
    } else return fail(`${s}: syntax error expecting [] or [<bit>] or [<start>..<end>]`);
  }
  if (start > end) return fail(`${s}: starting bit ${start} is after ending bit ${end}`);
  if (start >= f.bits)
    return fail(`${s}: starting bit ${start} is not valid because field is only ${f.bits} bits wide`);
  if (end >= f.bits)
    return fail(`${s}: ending bit ${end} is not valid because field is only ${f.bits} bits wide`);
  return { field: f, ofs: start, nBits: end - start + 1 };
}

/** A set_field of `value` under `mask` (both in the field's bit positions). */
export function makeSetField(field: FieldDef, value: bigint, mask: bigint): SetField {
  const v = newFlow();
  const m = newFlow();
  writeBig(v, field, value & mask, fullMask(field));
  writeBig(m, field, mask, fullMask(field));
  const words: number[] = [];
  for (let i = 0; i < N_WORDS; i++) if (m[i]) words.push(i);
  return {
    type: 'set_field',
    field,
    value: value & mask,
    mask,
    words: Int32Array.from(words),
    wordValues: Uint32Array.from(words.map((i) => v[i]!)),
    wordMasks: Uint32Array.from(words.map((i) => m[i]!)),
  };
}

function splitArrow(arg: string): [string, string] {
  const i = arg.indexOf('->');
  if (i < 0) return fail(`${arg}: missing \`->'`);
  if (i + 2 >= arg.length) return fail(`${arg}: missing field name following \`->'`);
  return [arg.slice(0, i), arg.slice(i + 2)];
}

function parseBigInt(s: string): bigint | undefined {
  if (/^0[xX][0-9a-fA-F]+$/.test(s) || /^\d+$/.test(s)) return BigInt(s);
  return undefined;
}

function parseLoad(arg: string, ctx: ActionContext): SetField {
  const [vs, ds] = splitArrow(arg);
  const dst = parseSubfield(ds);
  const v = parseBigInt(vs);
  if (v === undefined || v >= 1n << BigInt(Math.ceil(dst.field.bits / 8) * 8))
    return fail(`${arg}: cannot parse integer value`);
  if (v >> BigInt(dst.nBits))
    return fail(
      `${arg}: value ${formatFieldValue(dst.field, { value: v, mask: fullMask(dst.field) })} does not fit into ${dst.nBits} bits`,
    );
  if (!dst.field.writable) return fail(`${dst.field.name} is read-only`);
  if ((dst.field.name === 'ct_mark' || dst.field.name === 'ct_label') && !ctx.inCt)
    return fail('cannot set CT fields outside of ct action');
  const mask = subfieldMask(dst);
  return makeSetField(dst.field, v << BigInt(dst.ofs), mask);
}

function parseSetField(arg: string, ctx: ActionContext): SetField {
  const [vs, key] = splitArrow(arg);
  const f = fieldByName(key);
  if (!f) return fail(`${key} is not a valid OXM field name`);
  if (!f.writable) return fail(`${key} is read-only`);
  const v = parseFieldValue(f, vs, ctx.ports);
  if (v.value > fullMask(f)) return fail(`${vs} is not a valid value for field ${key}`);
  if ((f.name === 'ct_mark' || f.name === 'ct_label') && !ctx.inCt)
    return fail('cannot set CT fields outside of ct action');
  return makeSetField(f, v.value, v.mask);
}

function parseMove(arg: string): Action {
  const [ss, ds] = splitArrow(arg);
  const src = parseSubfield(ss);
  const dst = parseSubfield(ds);
  if (src.nBits !== dst.nBits)
    return fail(
      `source field ${formatSubfield(src)} and destination field ${formatSubfield(dst)} have different widths (${src.nBits} vs. ${dst.nBits})`,
    );
  if (!dst.field.writable) return fail(`${dst.field.name} is read-only`);
  return { type: 'move', src, dst };
}

// ───────────────────────────── ct, nat, learn, controller ─────────────────────────────

function parseNat(arg: string): Nat {
  let src = false;
  let dst = false;
  let ipMin = 0;
  let ipMax = 0;
  let portMin = 0;
  let portMax = 0;
  let persistent = false;
  let hash = false;
  let random = false;
  for (const { key, value } of keyValues(arg)) {
    if (key === 'src' || key === 'dst') {
      if (src || dst) return fail('May only specify one of "src" or "dst".');
      if (key === 'src') src = true;
      else dst = true;
      if (!value) continue;
      const m = /^(\d+\.\d+\.\d+\.\d+)(?:-(\d+\.\d+\.\d+\.\d+))?(?::(\d+)(?:-(\d+))?)?/.exec(value);
      const a = m ? parseIp4(m[1]!) : undefined;
      const b = m?.[2] !== undefined ? parseIp4(m[2]) : a;
      if (!m || a === undefined || b === undefined) return fail(`invalid nat range "${value}"`);
      if (m[0].length < value.length)
        return fail(`garbage (${value.slice(m[0].length)}) after nat range "${value}" (pos: ${m[0].length})`);
      if (b < a) return fail(`invalid nat range "${value}"`);
      ipMin = a;
      ipMax = m[2] !== undefined ? b : 0;
      if (m[3] !== undefined) {
        portMin = Number(m[3]);
        portMax = m[4] !== undefined ? Number(m[4]) : 0;
        if (portMin > 65535 || portMax > 65535) return fail(`${value}: invalid port`);
        if (portMax && portMax < portMin) return fail(`invalid nat range "${value}"`);
      }
    } else if (key === 'persistent') persistent = true;
    else if (key === 'hash') hash = true;
    else if (key === 'random') random = true;
    else return fail(`invalid key "${key}" in "nat" argument`);
  }
  if ((persistent || hash || random) && !src && !dst) return fail('Flags allowed only with "src" or "dst".');
  if (hash && random) return fail('Both "hash" and "random" are not allowed.');
  return { src, dst, ipMin, ipMax, portMin, portMax, persistent, hash, random };
}

function parseCt(arg: string, ctx: ActionContext): Action {
  let commit = false;
  let force = false;
  let table = 255;
  let zone = 0;
  let zoneSrc: Subfield | undefined;
  let nat: Nat | undefined;
  let exec: Action[] = [];
  for (const { key, value } of keyValues(arg)) {
    if (key === 'commit') commit = true;
    else if (key === 'force') force = true;
    else if (key === 'table') {
      if (!/^(\d+|0[xX][0-9a-fA-F]+)$/.test(value)) return fail(`unknown table ${value}`);
      const t = Number(value);
      if (t > 254) return fail(`invalid table 0x${t.toString(16)}`);
      table = t;
    } else if (key === 'zone') {
      if (/^\d+$/.test(value) || /^0[xX][0-9a-fA-F]+$/.test(value)) {
        const z = Number(value);
        if (z > 0xffff) return fail(`invalid zone "${value}"`);
        zone = z;
      } else {
        zoneSrc = parseSubfield(value);
        if (zoneSrc.nBits !== 16) return fail(`${value}: zone field must be 16 bits`);
      }
    } else if (key === 'nat') nat = parseNat(value);
    else if (key === 'exec') {
      exec = parseActionList(value, { ...ctx, inCt: true });
      for (const a of exec) {
        const f = a.type === 'set_field' ? a.field : a.type === 'move' ? a.dst.field : undefined;
        if (!f) return fail(`ct action doesn't support nested action ${actionName(a)}`);
        if (f.name !== 'ct_mark' && f.name !== 'ct_label')
          return fail(`ct action doesn't support nested modification of ${f.name}`);
      }
    } else if (key === 'alg') return fail(`invalid conntrack helper "${value}"`);
    else return fail(`invalid argument to "ct" action: \`${key}'`);
  }
  if (force && !commit) fail('"force" flag requires "commit" flag.');
  if (force) commit = true;
  return { type: 'ct', commit, force, table, zone, zoneSrc, nat, exec };
}

function parseLearn(arg: string, ctx: ActionContext): Action {
  let table = 1;
  let idleTimeout = 0;
  let hardTimeout = 0;
  let finIdleTimeout = 0;
  let finHardTimeout = 0;
  let priority = 32768;
  let cookie = 0n;
  let deleteLearned = false;
  let sendFlowRem = false;
  let limit = 0;
  const specs: LearnSpec[] = [];
  const u16 = (name: string, v: string): number => {
    const n = Number(v);
    if (!/^(\d+|0[xX][0-9a-fA-F]+)$/.test(v) || n > 65535) return fail(`invalid ${name} "${v}"`);
    return n;
  };
  for (const { key, value } of keyValues(arg)) {
    if (key === 'table') {
      if (!/^\d+$/.test(value) || Number(value) > 255) return fail(`unknown table "${value}"`);
      if (Number(value) === 255) return fail(`${arg}: table id 255 not valid for \`learn' action`);
      table = Number(value);
    } else if (key === 'priority') priority = u16(key, value);
    else if (key === 'idle_timeout') idleTimeout = u16(key, value);
    else if (key === 'hard_timeout') hardTimeout = u16(key, value);
    else if (key === 'fin_idle_timeout') finIdleTimeout = u16(key, value);
    else if (key === 'fin_hard_timeout') finHardTimeout = u16(key, value);
    else if (key === 'cookie') {
      const c = parseBigInt(value);
      if (c === undefined) return fail(`invalid numeric format ${value}`);
      cookie = c;
    } else if (key === 'send_flow_rem') sendFlowRem = true;
    else if (key === 'delete_learned') deleteLearned = true;
    else if (key === 'limit') limit = Number(value);
    else if (key === 'load') {
      const arrow = value.indexOf('->');
      if (arrow < 0) return fail(`load: missing \`->' in \`${value}'`);
      if (arrow === 0) return fail(`load: missing source before \`->' in \`${value}'`);
      const s = value.slice(0, arrow);
      const d = value.slice(arrow + 2);
      const imm = parseBigInt(s);
      if (imm === undefined && /^(0[xX]|\d)/.test(s))
        return fail(`load: garbage before \`->' in \`${value}'`);
      const dst = parseSubfield(d);
      if (imm !== undefined) {
        if (imm >> BigInt(dst.nBits)) return fail(`${value}: value does not fit into ${dst.nBits} bits`);
        specs.push({ kind: 'load_imm', dst, value: imm });
      } else {
        const src = parseSubfield(s);
        if (src.nBits !== dst.nBits)
          return fail(`${value}: bit widths of ${s} (${src.nBits}) and ${d} (${dst.nBits}) differ`);
        specs.push({ kind: 'load_field', dst, src });
      }
    } else if (key === 'output') specs.push({ kind: 'output', src: parseSubfield(value) });
    else {
      // a match spec: `field=value`, `dst[...]=src[...]` or `field[...]`
      const f = fieldByName(key.replace(/\[.*$/, ''));
      if (!f) return fail(`${arg}: unknown keyword ${key}`);
      const dst = parseSubfield(key);
      if (!value) {
        specs.push({ kind: 'match_field', dst, src: dst });
        continue;
      }
      const imm = key.includes('[') ? parseBigInt(value) : undefined;
      if (key.includes('[') && imm !== undefined) {
        specs.push({ kind: 'match_imm', dst, value: imm });
        continue;
      }
      if (!key.includes('[')) {
        let parsed: bigint | undefined;
        try {
          const v = parseFieldValue(f, value, ctx.ports);
          if (v.mask === fullMask(f)) parsed = v.value;
        } catch {
          parsed = undefined;
        }
        if (parsed !== undefined) {
          specs.push({ kind: 'match_imm', dst, value: parsed });
          continue;
        }
      }
      let src: Subfield;
      try {
        src = parseSubfield(value);
      } catch (e) {
        const why = e instanceof Error ? e.message : String(e);
        return fail(
          `${key}=${value}: ${key} value ${value} cannot be parsed as a subfield (${why}) or an immediate value (${key}=${value}: cannot parse integer value)`,
        );
      }
      if (src.nBits !== dst.nBits)
        return fail(
          `${key}=${value}: bit widths of ${key} (${src.nBits}) and ${value} (${dst.nBits}) differ`,
        );
      specs.push({ kind: 'match_field', dst, src });
    }
  }
  return {
    type: 'learn',
    learn: {
      table,
      idleTimeout,
      hardTimeout,
      finIdleTimeout,
      finHardTimeout,
      priority,
      cookie,
      deleteLearned,
      sendFlowRem,
      limit,
      specs,
    },
  };
}

const PACKET_IN_REASONS = ['no_match', 'action', 'invalid_ttl', 'action_set', 'group', 'packet_out'];

function parseController(arg: string): Action {
  let maxLen = 65535;
  let reason = 'action';
  let id = 0;
  let userdata: number[] = [];
  let pause = false;
  if (/^\d+$/.test(arg)) maxLen = Number(arg);
  else
    for (const { key, value } of keyValues(arg)) {
      if (key === 'reason') {
        if (!PACKET_IN_REASONS.includes(value)) return fail(`unknown reason "${value}"`);
        reason = value;
      } else if (key === 'max_len') maxLen = Number(value);
      else if (key === 'id') id = Number(value);
      else if (key === 'userdata') userdata = value.split('.').map((h) => parseInt(h, 16));
      else if (key === 'pause') pause = true;
      else return fail(`unknown key "${key}" parsing controller action`);
    }
  return { type: 'controller', maxLen, reason, id, userdata, pause };
}

// ───────────────────────────── the action list ─────────────────────────────

/** mod_tp_src/dst become set_field on the match's L4 protocol field (tcp by default). */
function l4Field(ctx: ActionContext, dir: 'src' | 'dst'): FieldDef {
  const p = ctx.match && ctx.match.mask[W.NW_PROTO] ? ctx.match.value[W.NW_PROTO] : IPPROTO.TCP;
  const proto = p === IPPROTO.UDP ? 'udp' : p === IPPROTO.SCTP ? 'sctp' : 'tcp';
  return fieldByName(`${proto}_${dir}`)!;
}

function parseOne(key: string, value: string, ctx: ActionContext): Action {
  const lower = key.toLowerCase();
  const reservedOut = parsePort(key, undefined);
  if (value === '' && reservedOut !== undefined && !/^\d+$/.test(key) && lower !== 'any' && lower !== 'none')
    return reservedOut === OFPP.CONTROLLER
      ? { type: 'controller', maxLen: 65535, reason: 'action', id: 0, userdata: [], pause: false }
      : { type: 'output', port: reservedOut, maxLen: 0 };
  if (/^\d+$/.test(key) && value === '') {
    const p = parsePort(key);
    if (p === undefined) return fail(`${key}: output to unknown port`);
    return { type: 'output', port: p, maxLen: 0 };
  }
  switch (lower) {
    case 'output': {
      if (value.includes('[') || fieldByName(value)) return { type: 'output_reg', src: parseSubfield(value) };
      const p = parsePort(value, ctx.ports);
      if (p === undefined) return fail(`${value}: output to unknown port`);
      return p === OFPP.CONTROLLER
        ? { type: 'controller', maxLen: 65535, reason: 'action', id: 0, userdata: [], pause: false }
        : { type: 'output', port: p, maxLen: 0 };
    }
    case 'controller':
      return parseController(value);
    case 'set_field':
      return parseSetField(value, ctx);
    case 'load':
      return parseLoad(value, ctx);
    case 'move':
      return parseMove(value);
    case 'resubmit': {
      const parts = value.split(',');
      const ps = parts[0] ?? '';
      const ts = parts[1] ?? '';
      const cs = parts[2] ?? '';
      let port: number = OFPP.IN_PORT;
      if (ps) {
        const p = parsePort(ps, ctx.ports);
        if (p === undefined) return fail(`${ps}: resubmit to unknown port`);
        port = p;
      }
      let table = 255;
      if (ts) {
        if (!/^\d+$/.test(ts) || Number(ts) > 255) return fail(`${ts}: resubmit to unknown table`);
        table = Number(ts);
      }
      if (cs && cs !== 'ct') return fail(`${cs}: unknown parameter`);
      if (port === OFPP.IN_PORT && table === 255)
        return fail('at least one "in_port" or "table" must be specified on resubmit');
      return { type: 'resubmit', port, table, ct: cs === 'ct' };
    }
    case 'goto_table': {
      if (!/^\d+$/.test(value) || Number(value) > 254) return fail(`unknown table "${value}"`);
      return { type: 'goto_table', table: Number(value) };
    }
    case 'group': {
      if (!/^\d+$/.test(value) || Number(value) > 0xffffff00) return fail(`invalid group_id "${value}"`);
      return { type: 'group', id: Number(value) };
    }
    case 'ct':
      return parseCt(value, ctx);
    case 'ct_clear':
      return { type: 'ct_clear' };
    case 'nat':
      return fail('Cannot have NAT action outside of "ct" action');
    case 'conjunction': {
      const m = /^\s*(\d+)\s*,\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(value);
      if (!m) return fail(`"conjunction" syntax is "conjunction(id,i/n)"`);
      const k = Number(m[2]);
      const n = Number(m[3]);
      if (n < 2) return fail('conjunction must have at least 2 clauses');
      if (n > 64) return fail('conjunction must have at most 64 clauses');
      if (k < 1) return fail('clause index must be positive');
      if (k > n) return fail('clause index must be less than or equal to number of clauses');
      return { type: 'conjunction', id: Number(m[1]), clause: k - 1, nClauses: n };
    }
    case 'learn':
      return parseLearn(value, ctx);
    case 'dec_ttl':
      return { type: 'dec_ttl' };
    case 'mod_dl_src':
    case 'mod_dl_dst':
    case 'mod_nw_src':
    case 'mod_nw_dst': {
      const f = fieldByName(
        lower === 'mod_dl_src'
          ? 'eth_src'
          : lower === 'mod_dl_dst'
            ? 'eth_dst'
            : lower === 'mod_nw_src'
              ? 'ip_src'
              : 'ip_dst',
      )!;
      const v = parseFieldValue(f, value, ctx.ports);
      if (v.mask !== fullMask(f))
        return fail(`${value}: invalid ${f.kind === 'eth' ? 'mac address' : 'IP address'}`);
      return makeSetField(f, v.value, v.mask);
    }
    case 'mod_tp_src':
    case 'mod_tp_dst': {
      const n = Number(value);
      if (!/^\d+$/.test(value) || n > 65535) return fail(`invalid ${lower} "${value}"`);
      const f = l4Field(ctx, lower === 'mod_tp_src' ? 'src' : 'dst');
      return makeSetField(f, BigInt(n), 0xffffn);
    }
    case 'mod_nw_ttl': {
      const n = Number(value);
      if (!/^\d+$/.test(value) || n > 255) return fail(`invalid TTL "${value}"`);
      return makeSetField(fieldByName('nw_ttl')!, BigInt(n), 0xffn);
    }
    case 'push_vlan': {
      const n = Number(value);
      if (n !== 0x8100 && n !== 0x88a8) return fail(`${value}: not a valid VLAN ethertype`);
      return { type: 'push_vlan', ethertype: n };
    }
    case 'pop_vlan':
      return { type: 'pop_vlan', strip: false };
    case 'strip_vlan':
      return { type: 'pop_vlan', strip: true };
    case 'note': {
      const bytes = value === '' ? [] : value.split('.').map((h) => parseInt(h, 16));
      if (bytes.some((b) => Number.isNaN(b) || b > 255)) return fail(`bad hex digit in \`note' argument`);
      return { type: 'note', bytes };
    }
    case 'exit':
      return { type: 'exit' };
    case 'fin_timeout': {
      let idleTimeout = 0;
      let hardTimeout = 0;
      for (const kv of keyValues(value)) {
        const n = Number(kv.value);
        if (kv.key === 'idle_timeout' || kv.key === 'hard_timeout') {
          if (!/^\d+$/.test(kv.value) || n > 65535) return fail(`invalid ${kv.key} "${kv.value}"`);
          if (kv.key === 'idle_timeout') idleTimeout = n;
          else hardTimeout = n;
        } else return fail(`invalid key '${kv.key}' in 'fin_timeout' argument`);
      }
      return { type: 'fin_timeout', idleTimeout, hardTimeout };
    }
    default:
      return fail(`unknown action ${key}`);
  }
}

/** An action list (`actions=` text, or the inside of `exec(...)`). `drop` alone is the empty list. */
export function parseActionList(text: string, ctx: ActionContext = {}): Action[] {
  const out: Action[] = [];
  let drop = false;
  for (const { key, value } of keyValues(text)) {
    if (key.toLowerCase() === 'drop') {
      drop = true;
      continue;
    }
    out.push(parseOne(key, value, ctx));
  }
  if (drop && out.length) return fail('"drop" must not be accompanied by any other action or instruction');
  if (out.some((a) => a.type === 'conjunction')) {
    const other = out.find((a) => a.type !== 'conjunction' && a.type !== 'note');
    if (other)
      return fail(
        `"conjunction" actions may be used along with "note" but not any other kind of action (such as the "${actionName(other)}" action used here)`,
      );
  }
  return out;
}

/** The name ovs-actions(7) gives an action's kind. */
function actionName(a: Action): string {
  return a.type === 'output_reg'
    ? 'output'
    : a.type === 'pop_vlan'
      ? a.strip
        ? 'strip_vlan'
        : 'pop_vlan'
      : a.type;
}

/** ofpacts_check: what the switch refuses about actions given the flow's match and table. */
export function checkActions(actions: readonly Action[], match: Match, tableId: number): void {
  const bad = (e: string): never => fail(`actions are invalid with specified match (${e})`);
  for (const a of actions) {
    if (a.type === 'set_field' && !prereqsOk(a.field, match)) bad('OFPBAC_MATCH_INCONSISTENT');
    if (a.type === 'move' && (!prereqsOk(a.src.field, match) || !prereqsOk(a.dst.field, match)))
      bad('OFPBAC_MATCH_INCONSISTENT');
    if (a.type === 'goto_table' && a.table <= tableId && tableId !== 255) bad('OFPBIC_BAD_TABLE_ID');
    if (a.type === 'dec_ttl' || a.type === 'ct') {
      // both need an IP packet only at run time (they are no-ops or fail then), nothing to check
    }
  }
}

// ───────────────────────────── printing ─────────────────────────────

const hex = (v: bigint | number): string => (BigInt(v) === 0n ? '0' : `0x${BigInt(v).toString(16)}`);

/** A nat() as both ovs-ofctl and the datapath's ct() print it (format_NAT, format_odp_ct_nat). */
export function formatNat(n: Nat): string {
  if (!n.src && !n.dst) return 'nat';
  let s = `nat(${n.src ? 'src' : 'dst'}`;
  if (n.ipMin) {
    s += `=${formatIp4(n.ipMin)}`;
    if (n.ipMax && n.ipMax !== n.ipMin) s += `-${formatIp4(n.ipMax)}`;
    if (n.portMin) {
      s += `:${n.portMin}`;
      if (n.portMax && n.portMax !== n.portMin) s += `-${n.portMax}`;
    }
    if (n.persistent) s += ',persistent';
    if (n.hash) s += ',hash';
    if (n.random) s += ',random';
  }
  return `${s})`;
}

function formatLearn(l: Learn, ports?: PortMap, names = false): string {
  let s = `learn(table=${l.table}`;
  if (l.idleTimeout) s += `,idle_timeout=${l.idleTimeout}`;
  if (l.hardTimeout) s += `,hard_timeout=${l.hardTimeout}`;
  if (l.finIdleTimeout) s += `,fin_idle_timeout=${l.finIdleTimeout}`;
  if (l.finHardTimeout) s += `,fin_hard_timeout=${l.finHardTimeout}`;
  if (l.priority !== 32768) s += `,priority=${l.priority}`;
  if (l.sendFlowRem) s += ',send_flow_rem';
  if (l.deleteLearned) s += ',delete_learned';
  if (l.cookie) s += `,cookie=${hex(l.cookie)}`;
  if (l.limit) s += `,limit=${l.limit}`;
  for (const sp of l.specs) {
    s += ',';
    switch (sp.kind) {
      case 'match_imm':
        if (sp.dst.ofs === 0 && sp.dst.nBits === sp.dst.field.bits)
          s += `${sp.dst.field.name}=${formatFieldValue(sp.dst.field, { value: sp.value, mask: fullMask(sp.dst.field) }, ports, names)}`;
        else s += `${formatSubfield(sp.dst)}=${hex(sp.value)}`;
        break;
      case 'match_field':
        s += formatSubfield(sp.dst);
        if (sp.src.field !== sp.dst.field || sp.src.ofs !== sp.dst.ofs) s += `=${formatSubfield(sp.src)}`;
        break;
      case 'load_imm':
        s += `load:${hex(sp.value)}->${formatSubfield(sp.dst)}`;
        break;
      case 'load_field':
        s += `load:${formatSubfield(sp.src)}->${formatSubfield(sp.dst)}`;
        break;
      case 'output':
        s += `output:${formatSubfield(sp.src)}`;
        break;
    }
  }
  return `${s})`;
}

/** One action as OVS prints it (format_<ACTION> in lib/ofp-actions.c, OpenFlow 1.5 encoding). */
export function formatAction(a: Action, ports?: PortMap, names = false): string {
  switch (a.type) {
    case 'output':
      return a.port < OFPP.MAX
        ? `output:${formatPort(a.port, ports, names)}`
        : formatPort(a.port, ports, names);
    case 'output_reg':
      return `output:${formatSubfield(a.src)}`;
    case 'set_field':
      return `set_field:${formatFieldValue(a.field, { value: a.value, mask: a.mask }, ports, names)}->${a.field.name}`;
    case 'move':
      return `move:${formatSubfield(a.src)}->${formatSubfield(a.dst)}`;
    case 'resubmit':
      if (a.port !== OFPP.IN_PORT && a.table === 255 && !a.ct)
        return `resubmit:${formatPort(a.port, ports, names)}`;
      return `resubmit(${a.port !== OFPP.IN_PORT ? formatPort(a.port, ports, names) : ''},${a.table !== 255 ? a.table : ''}${a.ct ? ',ct' : ''})`;
    case 'goto_table':
      return `goto_table:${a.table}`;
    case 'group':
      return `group:${a.id}`;
    case 'ct': {
      const parts: string[] = [];
      if (a.commit) parts.push('commit');
      if (a.force) parts.push('force');
      if (a.table !== 255) parts.push(`table=${a.table}`);
      if (a.zoneSrc) parts.push(`zone=${formatSubfield(a.zoneSrc)}`);
      else if (a.zone) parts.push(`zone=${a.zone}`);
      if (a.nat) parts.push(formatNat(a.nat));
      if (a.exec.length) parts.push(`exec(${formatActions(a.exec, ports, names)})`);
      return `ct(${parts.join(',')})`;
    }
    case 'conjunction':
      return `conjunction(${a.id},${a.clause + 1}/${a.nClauses})`;
    case 'learn':
      return formatLearn(a.learn, ports, names);
    case 'controller': {
      if (a.reason === 'action' && !a.id && !a.userdata.length && !a.pause) return `CONTROLLER:${a.maxLen}`;
      const parts: string[] = [];
      if (a.reason !== 'action') parts.push(`reason=${a.reason}`);
      if (a.maxLen !== 65535) parts.push(`max_len=${a.maxLen}`);
      if (a.id) parts.push(`id=${a.id}`);
      if (a.userdata.length)
        parts.push(`userdata=${a.userdata.map((b) => b.toString(16).padStart(2, '0')).join('.')}`);
      if (a.pause) parts.push('pause');
      return `controller(${parts.join(',')})`;
    }
    case 'dec_ttl':
      return 'dec_ttl';
    case 'push_vlan':
      return `push_vlan:0x${a.ethertype.toString(16)}`;
    case 'pop_vlan':
      return a.strip ? 'strip_vlan' : 'pop_vlan';
    case 'note': {
      // the note is padded so the action is a multiple of 8 bytes (6 bytes of header+subtype)
      const bytes = [...a.bytes];
      while ((bytes.length + 10) % 8 !== 0 || bytes.length < 6) bytes.push(0);
      return `note:${bytes.map((b) => b.toString(16).padStart(2, '0')).join('.')}`;
    }
    case 'ct_clear':
      return 'ct_clear';
    case 'exit':
      return 'exit';
    case 'fin_timeout': {
      const parts: string[] = [];
      if (a.idleTimeout) parts.push(`idle_timeout=${a.idleTimeout}`);
      if (a.hardTimeout) parts.push(`hard_timeout=${a.hardTimeout}`);
      return `fin_timeout(${parts.join(',')})`;
    }
  }
}

/** An action list, `drop` when empty. */
export function formatActions(actions: readonly Action[], ports?: PortMap, names = false): string {
  return actions.length ? actions.map((a) => formatAction(a, ports, names)).join(',') : 'drop';
}
