/**
 * The Open_vSwitch database (OVSDB) as ovsdb-server holds it, for the tables and columns the
 * OVS-based CNI plugins use (reference ovs-windows.md §1.3–1.7; the column types are those of
 * vswitchd/vswitch.ovsschema), and the part of ovs-vswitchd that follows it: bridges and ports of
 * the OpenFlow engine, ofport assignment (ofproto/ofproto.c alloc_ofp_port), `error`, `mac_in_use`.
 * Values are OVSDB datums (sorted sets of atoms, or maps) with ovs-vsctl's text syntax
 * (lib/ovsdb-data.c): `ovsdb_datum_to_string` and `ovsdb_datum_from_string`.
 */
import { newGuid } from '../core/guid.js';
import { Rng } from '../core/rng.js';
import { Bridge, type TimeSource } from './bridge.js';
import { OFPP } from './fields.js';

// ───────────────────────────── schema ─────────────────────────────

export type AtomType = 'string' | 'integer' | 'boolean' | 'uuid';
export type Atom = string | number | boolean;

export interface BaseType {
  readonly type: AtomType;
  readonly enum?: readonly string[];
  readonly min?: number;
  readonly max?: number;
  readonly refTable?: TableName;
}

export interface ColumnType {
  readonly key: BaseType;
  readonly value?: BaseType;
  readonly min: 0 | 1;
  /** `Infinity` for "unlimited". */
  readonly max: number;
}

export type TableName = 'Open_vSwitch' | 'Bridge' | 'Port' | 'Interface';

const S: BaseType = { type: 'string' };
const scalar = (key: BaseType): ColumnType => ({ key, min: 1, max: 1 });
const optional = (key: BaseType): ColumnType => ({ key, min: 0, max: 1 });
const set = (key: BaseType, min: 0 | 1 = 0, max = Infinity): ColumnType => ({ key, min, max });
const smap: ColumnType = { key: S, value: S, min: 0, max: Infinity };
const ref = (t: TableName): BaseType => ({ type: 'uuid', refTable: t });
const upDown: BaseType = { type: 'string', enum: ['down', 'up'] };
const vlan: BaseType = { type: 'integer', min: 0, max: 4095 };

/** The modelled columns of each table, as vswitch.ovsschema types them (names sorted). */
export const SCHEMA: Readonly<Record<TableName, Readonly<Record<string, ColumnType>>>> = {
  Open_vSwitch: {
    bridges: set(ref('Bridge')),
    external_ids: smap,
    other_config: smap,
    ovs_version: optional(S),
  },
  Bridge: {
    datapath_id: optional(S),
    datapath_type: scalar(S),
    external_ids: smap,
    fail_mode: optional({ type: 'string', enum: ['secure', 'standalone'] }),
    name: scalar(S),
    other_config: smap,
    ports: set(ref('Port')),
    protocols: set({
      type: 'string',
      enum: ['OpenFlow10', 'OpenFlow11', 'OpenFlow12', 'OpenFlow13', 'OpenFlow14', 'OpenFlow15'],
    }),
  },
  Port: {
    external_ids: smap,
    interfaces: set(ref('Interface'), 1),
    name: scalar(S),
    other_config: smap,
    tag: optional(vlan),
    trunks: set(vlan, 0, 4096),
  },
  Interface: {
    admin_state: optional(upDown),
    error: optional(S),
    external_ids: smap,
    link_state: optional(upDown),
    mac_in_use: optional(S),
    mtu: optional({ type: 'integer' }),
    mtu_request: optional({ type: 'integer', min: 1 }),
    name: scalar(S),
    ofport: optional({ type: 'integer' }),
    ofport_request: optional({ type: 'integer', min: 1, max: 65279 }),
    options: smap,
    other_config: smap,
    type: scalar(S),
  },
};

/** Columns ovs-vsctl may not change after insertion (`"mutable": false`). */
export const IMMUTABLE: ReadonlySet<string> = new Set(['name']);

export const TABLES = Object.keys(SCHEMA) as TableName[];

// ───────────────────────────── datums ─────────────────────────────

/** An OVSDB datum: sorted, unique keys (and their values, for a map). */
export interface Datum {
  readonly keys: readonly Atom[];
  readonly values?: readonly Atom[];
}

export const isMap = (t: ColumnType): boolean => t.value !== undefined;

export function compareAtoms(a: Atom, b: Atom): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A datum from pairs, sorted; a later pair replaces an earlier one with the same key. */
export function makeDatum(t: ColumnType, pairs: ReadonlyArray<readonly [Atom, Atom?]>): Datum {
  const m = new Map<string, [Atom, Atom?]>();
  for (const p of pairs) m.set(`${typeof p[0]}:${String(p[0])}`, [p[0], p[1]]);
  const sorted = [...m.values()].sort((a, b) => compareAtoms(a[0], b[0]));
  return isMap(t)
    ? { keys: sorted.map((p) => p[0]), values: sorted.map((p) => p[1]!) }
    : { keys: sorted.map((p) => p[0]) };
}

export function defaultDatum(t: ColumnType): Datum {
  if (t.min === 0) return isMap(t) ? { keys: [], values: [] } : { keys: [] };
  return { keys: [t.key.type === 'string' ? '' : t.key.type === 'boolean' ? false : 0] };
}

export function datumEquals(a: Datum, b: Datum): boolean {
  if (a.keys.length !== b.keys.length) return false;
  for (let i = 0; i < a.keys.length; i++) {
    if (a.keys[i] !== b.keys[i]) return false;
    if (a.values && a.values[i] !== b.values?.[i]) return false;
  }
  return true;
}

const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** lib/ovsdb-data.c string_needs_quotes: bare only for an identifier-like word. */
function needsQuotes(s: string): boolean {
  if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(s)) return true;
  return s === 'true' || s === 'false' || UUID_RE.test(s);
}

/** One atom as ovs-vsctl prints it (strings quoted, JSON-escaped, where needed). */
export function formatAtom(a: Atom): string {
  if (typeof a !== 'string') return String(a);
  return needsQuotes(a) ? JSON.stringify(a) : a;
}

function formatUuidAtom(a: Atom, t: BaseType): string {
  return t.type === 'uuid' ? String(a) : formatAtom(a);
}

/** ovsdb_datum_to_string: a scalar or an optional's one value bare, else `[a, b]` / `{k=v, …}`. */
export function formatDatum(d: Datum, t: ColumnType): string {
  const n = d.keys.length;
  const parts = d.keys.map((k, i) =>
    d.values
      ? `${formatUuidAtom(k, t.key)}=${formatUuidAtom(d.values[i]!, t.value!)}`
      : formatUuidAtom(k, t.key),
  );
  if (isMap(t)) return `{${parts.join(', ')}}`;
  if (t.max > 1 || n === 0) return `[${parts.join(', ')}]`;
  return parts[0]!;
}

/** An error of the database or of ovs-vsctl: the text after `ovs-vsctl: `. */
export class OvsdbError extends Error {
  override readonly name = 'OvsdbError';
  /** The line ovs-vsctl writes to stderr. */
  get vsctl(): string {
    return `ovs-vsctl: ${this.message}`;
  }
}

export const dbFail = (message: string): never => {
  throw new OvsdbError(message);
};

/** Splits `s` at any of `seps` outside double quotes (a quoted atom keeps its quotes). */
function tokens(s: string, seps: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quoted) {
      cur += c;
      if (c === '\\') cur += s[++i] ?? '';
      else if (c === '"') quoted = false;
    } else if (c === '"') {
      quoted = true;
      cur += c;
    } else if (seps.includes(c)) {
      if (cur !== '') out.push(cur);
      cur = '';
    } else cur += c;
  }
  if (quoted) dbFail(`${s}: missing quote at end of quoted string`);
  if (cur !== '') out.push(cur);
  return out;
}

/** Where the first top-level `=` (outside quotes) is, or -1. */
export function splitEquals(s: string): number {
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === '=') return i;
  }
  return -1;
}

function unquote(s: string): string {
  if (s.startsWith('"')) {
    try {
      return JSON.parse(s) as string;
    } catch {
      return dbFail(`${s}: syntax error in string`);
    }
  }
  return s;
}

/** ovsdb_atom_from_string with its constraint check (ovsdb_atom_check_constraints). */
export function parseAtom(text: string, t: BaseType): Atom {
  let a: Atom;
  switch (t.type) {
    case 'integer': {
      if (!/^[-+]?\d+$/.test(text) || !Number.isSafeInteger(Number(text)))
        dbFail(`"${text}" is not a valid integer or range`);
      a = Number(text);
      const min = t.min ?? -Infinity;
      const max = t.max ?? Infinity;
      if (a < min || a > max) {
        if (t.min !== undefined && t.max !== undefined)
          dbFail(`constraint violation: ${a} is not in the valid range ${min} to ${max} (inclusive)`);
        if (t.min !== undefined)
          dbFail(`constraint violation: ${a} is less than minimum allowed value ${min}`);
        dbFail(`constraint violation: ${a} is greater than maximum allowed value ${max}`);
      }
      return a;
    }
    case 'boolean':
      if (text !== 'true' && text !== 'false')
        dbFail(`"${text}" is not a valid boolean (use "true" or "false")`);
      return text === 'true';
    case 'uuid':
      if (!UUID_RE.test(text)) dbFail(`"${text}" is not a valid UUID`);
      return text.toLowerCase();
    case 'string':
      a = unquote(text);
      if (t.enum && !t.enum.includes(a))
        dbFail(
          `constraint violation: ${formatAtom(a)} is not one of the allowed values ([${t.enum.join(', ')}])`,
        );
      return a;
  }
}

/** ovsdb_datum_from_string: `v`, `[a, b]`, `{k=v, …}` (brackets optional, `,` or spaces between). */
export function parseDatum(text: string, t: ColumnType): Datum {
  let body = text.trim();
  const open = isMap(t) ? '{' : '[';
  const close = isMap(t) ? '}' : ']';
  if (body.startsWith(open)) {
    if (!body.endsWith(close)) dbFail(`${text}: missing "${close}" at end of data`);
    body = body.slice(1, -1);
  }
  const pairs: Array<[Atom, Atom?]> = [];
  for (const tok of tokens(body, ', \t')) {
    if (isMap(t)) {
      const eq = splitEquals(tok);
      if (eq < 0) dbFail(`${text}: syntax error at "${tok}" (expected "=")`);
      pairs.push([parseAtom(tok.slice(0, eq), t.key), parseAtom(tok.slice(eq + 1), t.value!)]);
    } else pairs.push([parseAtom(tok, t.key)]);
  }
  const d = makeDatum(t, pairs);
  checkCount(d, t);
  return d;
}

export function checkCount(d: Datum, t: ColumnType): void {
  const n = d.keys.length;
  if (n < t.min || n > t.max) {
    const what = isMap(t) ? 'pairs' : 'values';
    dbFail(
      t.max === 1 && t.min === 1
        ? `${n === 0 ? 'missing' : 'too many'} value${n === 0 ? '' : 's'}`
        : `${n} ${what} when type requires ${t.min === t.max ? '' : 'between '}${t.min}${t.min === t.max ? '' : ` and ${t.max}`}`,
    );
  }
}

/** A datum's value for `key` in a map column, or undefined. */
export function mapGet(d: Datum, key: Atom): Atom | undefined {
  const i = d.keys.indexOf(key);
  return i < 0 ? undefined : d.values?.[i];
}

// ───────────────────────────── rows ─────────────────────────────

/** A datum as plain JSON (`Ovsdb.toState`). */
export interface DatumJson {
  readonly keys: Atom[];
  readonly values?: Atom[];
}

export interface Row {
  readonly uuid: string;
  readonly table: TableName;
  readonly cols: Map<string, Datum>;
}

/** The host's side of OVS: what the datapath can open, and how the platform shows it. */
export interface Platform {
  /**
   * `windows`: the Hyper-V datapath (datapath-windows): internal ports report `mac_in_use`
   * 00:00:00:00:00:00 and link down, a port that cannot be bound gets ofport -1 but no `error`, and
   * a Hyper-V port that goes away keeps its ofport (ovs-windows.md §1.4, §5 #9). `linux`: the
   * netdev/system datapath with OVS's errors; `dummy`: the userspace dummy datapath OVS's test
   * suite (and test/ovs/peer) runs, where type `dummy` ports always open.
   */
  readonly kind: 'windows' | 'linux' | 'dummy';
  /** Whether a network device (a Hyper-V port by friendly name, on Windows) of this name exists. */
  netdevExists?(name: string): boolean;
  /**
   * Opening an `internal` interface (the bridge's own included): on Windows `create_wmi_port` —
   * a Hyper-V port of that name is adopted, else a host vNIC of that name is created on the switch
   * OVS runs on. False: it cannot be opened (ofport -1). Absent: always opens.
   */
  openInternal?(name: string): boolean;
  /** An `internal` interface closed (Windows: `delete_wmi_port` of a vNIC `openInternal` created). */
  closeInternal?(name: string): void;
}

/** An interface ovs-vswitchd has bound to an ofport (`Ovsdb.boundInterface`). */
export interface BoundInterface {
  readonly name: string;
  readonly bridge: string;
  readonly engine: Bridge;
  readonly ofport: number;
  /** The Interface `type` it was opened with (`internal` for the bridge's own). */
  readonly type: string;
  readonly options: ReadonlyMap<string, string>;
}

export interface OvsdbOptions {
  readonly seed?: number;
  readonly clock?: TimeSource;
  readonly platform?: Platform;
}

const TUNNELS: ReadonlySet<string> = new Set(['geneve', 'vxlan', 'stt', 'gre']);

/** Datapath port name prefixes of OVS 3.1's vport classes (lib/netdev-vport.c `dpif_port`). */
const RESERVED_PREFIXES = [
  'genev_sys',
  'gre_sys',
  'vxlan_sys',
  'lisp_sys',
  'stt_sys',
  'erspan_sys',
  'ip6erspan_sys',
  'ip6gre_sys',
  'gtpu_sys',
  'udp_sys',
];

/** ofproto's port range: ports above 0xff00 are reserved (OFPP_MAX). */
const MAX_PORTS = OFPP.MAX;
const HOUR_MS = 60 * 60 * 1000;

/** ovs-vswitchd's per-bridge state: the engine bridge and ofproto's port-number history. */
interface BridgeState {
  readonly engine: Bridge;
  /** ofport → ms of last use (Infinity while in use), as ofproto's ofport_usage. */
  readonly usage: Map<number, number>;
  allocPortNo: number;
  /** Interface name → its bound ofport. */
  readonly bound: Map<string, number>;
  /** Interface name → the type it was opened with (a new type reopens it: bridge.c). */
  readonly types: Map<string, string>;
}

/**
 * The database and the ovs-vswitchd that follows it. Change it through ovs-vsctl (./vsctl.ts) or
 * `transact`; after every committed change `reconfigure` runs (as vswitchd does on each database
 * update) and the engine bridges (`bridge(name)`) follow.
 */
export class Ovsdb {
  readonly platform: Platform;
  readonly clock: TimeSource;
  readonly seed: number;
  private readonly rng: Rng;
  private tables = new Map<TableName, Map<string, Row>>();
  private readonly vswitchd = new Map<string, BridgeState>();
  #rootUuid: string;

  constructor(opts: OvsdbOptions = {}) {
    this.seed = opts.seed ?? 0;
    this.rng = new Rng(this.seed);
    this.clock = opts.clock ?? { now: () => 0 };
    this.platform = opts.platform ?? { kind: 'windows' };
    for (const t of TABLES) this.tables.set(t, new Map());
    this.#rootUuid = this.insert('Open_vSwitch', {}).uuid;
  }

  // ───────────── rows ─────────────

  rows(table: TableName): IterableIterator<Row> {
    return this.tables.get(table)!.values();
  }
  row(table: TableName, uuid: string): Row | undefined {
    return this.tables.get(table)!.get(uuid);
  }
  /** The uuid of the Open_vSwitch table's one row. */
  get rootUuid(): string {
    return this.#rootUuid;
  }

  /** The database as plain JSON: every row of the modelled tables, by table and uuid. */
  toState(): { root: string; tables: Record<string, Record<string, Record<string, DatumJson>>> } {
    const tables: Record<string, Record<string, Record<string, DatumJson>>> = {};
    for (const [t, rows] of this.tables) {
      const out: Record<string, Record<string, DatumJson>> = {};
      for (const [u, r] of rows) {
        const cols: Record<string, DatumJson> = {};
        for (const [c, d] of r.cols)
          cols[c] = d.values ? { keys: [...d.keys], values: [...d.values] } : { keys: [...d.keys] };
        out[u] = cols;
      }
      tables[t] = out;
    }
    return { root: this.#rootUuid, tables };
  }

  /**
   * Check a `toState()` document (bad: OvsdbError naming what is wrong); the function returned
   * replaces this database's rows with it (ovs-vswitchd not reconfigured: see `restartVswitchd`).
   */
  readState(state: unknown): () => void {
    const bad = (what: string): never => dbFail(`database state: ${what}`);
    const obj = (v: unknown): v is Record<string, unknown> =>
      typeof v === 'object' && v !== null && !Array.isArray(v);
    if (!obj(state) || typeof state['root'] !== 'string' || !obj(state['tables']))
      bad('expected {root, tables}');
    const st = state as { root: string; tables: Record<string, unknown> };
    const next = new Map<TableName, Map<string, Row>>();
    for (const t of TABLES) next.set(t, new Map());
    for (const [t, rows] of Object.entries(st.tables)) {
      if (!(TABLES as readonly string[]).includes(t)) bad(`unknown table ${t}`);
      if (!obj(rows)) bad(`${t}: expected rows by uuid`);
      for (const [u, cols] of Object.entries(rows as Record<string, unknown>)) {
        if (!obj(cols)) bad(`${t} ${u}: expected columns`);
        const m = new Map<string, Datum>();
        for (const [c, d] of Object.entries(cols as Record<string, unknown>)) {
          const type = SCHEMA[t as TableName][c];
          if (!type) bad(`${t}: unknown column ${c}`);
          const atom = (a: unknown) =>
            typeof a === 'string' || typeof a === 'number' || typeof a === 'boolean';
          if (!obj(d) || !Array.isArray(d['keys']) || !d['keys'].every(atom))
            bad(`${t} ${u} ${c}: bad datum`);
          const dd = d as { keys: Atom[]; values?: unknown };
          if (isMap(type!) !== Array.isArray(dd.values)) bad(`${t} ${u} ${c}: bad datum`);
          if (Array.isArray(dd.values) && (dd.values.length !== dd.keys.length || !dd.values.every(atom)))
            bad(`${t} ${u} ${c}: bad datum`);
          m.set(
            c,
            Array.isArray(dd.values)
              ? { keys: [...dd.keys], values: [...(dd.values as Atom[])] }
              : { keys: [...dd.keys] },
          );
        }
        next.get(t as TableName)!.set(u, { uuid: u, table: t as TableName, cols: m });
      }
    }
    if (!next.get('Open_vSwitch')!.has(st.root)) bad(`no Open_vSwitch row ${st.root}`);
    // every column present, every reference resolving (the accessors rely on both)
    for (const [t, rows] of next)
      for (const r of rows.values())
        for (const [c, type] of Object.entries(SCHEMA[t])) {
          const d = r.cols.get(c);
          if (!d) bad(`${t} ${r.uuid}: missing column ${c}`);
          const refTo = (b: BaseType | undefined, atoms: readonly Atom[] | undefined) => {
            if (b?.refTable)
              for (const u of atoms ?? [])
                if (!next.get(b.refTable)!.has(String(u)))
                  bad(`${t} ${r.uuid} ${c}: no ${b.refTable} row ${String(u)}`);
          };
          refTo(type.key, d!.keys);
          refTo(type.value, d!.values);
        }
    return () => {
      this.tables = next;
      this.#rootUuid = st.root;
      this.changes++;
    };
  }

  get root(): Row {
    return this.row('Open_vSwitch', this.rootUuid)!;
  }

  insert(table: TableName, values: Readonly<Record<string, Datum>>): Row {
    const cols = new Map<string, Datum>();
    for (const [c, t] of Object.entries(SCHEMA[table])) cols.set(c, values[c] ?? defaultDatum(t));
    // a restored database's rows came from elsewhere: a drawn UUID they hold is drawn again
    let uuid = newGuid(this.rng).toLowerCase();
    while (TABLES.some((t) => this.tables.get(t)!.has(uuid))) uuid = newGuid(this.rng).toLowerCase();
    const row: Row = { uuid, table, cols };
    this.tables.get(table)!.set(row.uuid, row);
    return row;
  }

  delete(row: Row): void {
    this.tables.get(row.table)!.delete(row.uuid);
  }

  get(row: Row, column: string): Datum {
    return row.cols.get(column)!;
  }
  set(row: Row, column: string, d: Datum): void {
    row.cols.set(column, d);
  }
  /** A string column's value ("" when empty). */
  str(row: Row, column: string): string {
    const k = this.get(row, column).keys[0];
    return k === undefined ? '' : String(k);
  }
  /** The rows a uuid-set column refers to. */
  refs(row: Row, column: string): Row[] {
    const t = SCHEMA[row.table][column]!.key.refTable!;
    return this.get(row, column).keys.map((u) => this.row(t, String(u))!);
  }

  byName(table: TableName, name: string): Row | undefined {
    for (const r of this.rows(table)) if (this.str(r, 'name') === name) return r;
    return undefined;
  }

  /** Runs `fn` as one transaction: if it throws, the database is as before. Then reconfigures. */
  transact<T>(fn: () => T): T {
    const saved = new Map<TableName, Map<string, Row>>();
    for (const [t, rows] of this.tables) {
      const copy = new Map<string, Row>();
      for (const [u, r] of rows) copy.set(u, { uuid: r.uuid, table: r.table, cols: new Map(r.cols) });
      saved.set(t, copy);
    }
    let result: T;
    try {
      result = fn();
      this.collectGarbage();
    } catch (e) {
      this.tables = saved;
      throw e;
    }
    // ovs-vswitchd reconfigures once per database change; a transaction that changed nothing
    // (`--may-exist add-br` of an existing bridge, a `set` to the same value) does not wake it
    if (this.changedSince(saved)) this.reconfigure();
    return result;
  }

  private changedSince(saved: ReadonlyMap<TableName, ReadonlyMap<string, Row>>): boolean {
    for (const [t, rows] of this.tables) {
      const old = saved.get(t)!;
      if (old.size !== rows.size) return true;
      for (const [u, r] of rows) {
        const o = old.get(u);
        if (!o) return true;
        for (const [c, d] of r.cols) if (!datumEquals(d, o.cols.get(c)!)) return true;
      }
    }
    return false;
  }

  /**
   * The host's network devices changed (a Hyper-V port appeared or went away: `netdevExists`
   * answers differently): ovs-vswitchd reconfigures, as on its interface notifier.
   */
  netdevsChanged(): void {
    this.reconfigure();
  }

  /** Deletes Bridge, Port and Interface rows no longer referenced (they are not root tables). */
  private collectGarbage(): void {
    const live = new Set<string>();
    for (const b of this.refs(this.root, 'bridges')) {
      live.add(b.uuid);
      for (const p of this.refs(b, 'ports')) {
        live.add(p.uuid);
        for (const i of this.refs(p, 'interfaces')) live.add(i.uuid);
      }
    }
    for (const t of ['Bridge', 'Port', 'Interface'] as const)
      for (const r of [...this.rows(t)]) if (!live.has(r.uuid)) this.delete(r);
  }

  // ───────────── ovs-vswitchd ─────────────

  /** The engine bridge ovs-vswitchd runs for the bridge named `name`. */
  bridge(name: string): Bridge | undefined {
    return this.vswitchd.get(name)?.engine;
  }

  /**
   * ovs-vswitchd restarted: its bridges come back from the database with no OpenFlow flows, groups
   * or connections (those live in the daemon; the controller programs them again). Interfaces keep
   * their ofports where they can (the database remembers them); nothing is closed on the host.
   */
  restartVswitchd(): void {
    this.vswitchd.clear();
    this.reconfigure();
  }

  /** The bridges ovs-vswitchd runs, by name. */
  bridgeNames(): string[] {
    return [...this.vswitchd.keys()];
  }

  /** The interface named `name` if vswitchd bound it (on any bridge): its ofport, type and options. */
  boundInterface(name: string): BoundInterface | undefined {
    for (const [bridge, st] of this.vswitchd) {
      const ofport = st.bound.get(name);
      if (ofport === undefined) continue;
      const row = this.byName('Interface', name);
      const options = new Map<string, string>();
      if (row) {
        const d = this.get(row, 'options');
        d.keys.forEach((k, i) => options.set(String(k), String(d.values![i])));
      }
      const type = name === bridge ? 'internal' : (st.types.get(name) ?? '');
      return { name, bridge, engine: st.engine, ofport, type, options };
    }
    return undefined;
  }

  /**
   * lib/netdev.c netdev_is_reserved_name: a vport's datapath name, or `ovs-<datapath type>`.
   * vswitchd refuses such an interface with a log line only (ofport -1, no `error`).
   */
  private reserved(name: string): boolean {
    if (RESERVED_PREFIXES.some((p) => name.startsWith(p))) return true;
    const types = this.platform.kind === 'dummy' ? ['system', 'netdev', 'dummy'] : ['system', 'netdev'];
    return name.startsWith('ovs-') && types.includes(name.slice(4));
  }

  /** Whether the platform can open an interface of `type` named `name`: undefined, or the error. */
  private openError(iface: Row): string | undefined {
    const name = this.str(iface, 'name');
    const type = this.str(iface, 'type');
    const options = this.get(iface, 'options');
    if (type === 'internal') return undefined; // opened (platform.openInternal) as it binds
    if (type === 'dummy' || type === 'dummy-internal')
      return this.platform.kind === 'dummy'
        ? undefined
        : `could not open network device ${name} (Address family not supported by protocol)`;
    if (TUNNELS.has(type))
      return mapGet(options, 'remote_ip') === undefined
        ? `${name}: ${type} type requires valid 'remote_ip' argument`
        : undefined;
    if (type === 'patch')
      return mapGet(options, 'peer') === undefined
        ? `${name}: patch type requires valid 'peer' argument`
        : undefined;
    if (type === '' || type === 'system')
      return this.platform.netdevExists?.(name)
        ? undefined
        : `could not open network device ${name} (No such device)`;
    return `could not open network device ${name} (Address family not supported by protocol)`;
  }

  /** ofproto alloc_ofp_port: the request if free, else round-robin over 1…32767, unused first. */
  private allocOfport(st: BridgeState, request: number | undefined): number | undefined {
    if (request !== undefined && request < MAX_PORTS && st.usage.get(request) !== Infinity) {
      st.usage.set(request, Infinity);
      return request;
    }
    const end = st.allocPortNo;
    const now = this.clock.now();
    let lru = Infinity;
    let lruPort = 0;
    for (;;) {
      if (++st.allocPortNo >= Math.min(MAX_PORTS, 32768)) st.allocPortNo = 1;
      const n = st.allocPortNo;
      const last = st.usage.get(n);
      if (last === undefined || last < now - HOUR_MS) break;
      if (last < lru) {
        lru = last;
        lruPort = n;
      }
      if (n === end) {
        if (lruPort === 0) return undefined;
        st.allocPortNo = lruPort;
        break;
      }
    }
    st.usage.set(st.allocPortNo, Infinity);
    return st.allocPortNo;
  }

  private unbind(st: BridgeState, name: string): void {
    const n = st.bound.get(name);
    if (n === undefined) return;
    st.bound.delete(name);
    if (n !== OFPP.LOCAL) {
      st.engine.delPort(name);
      st.usage.set(n, this.clock.now());
    }
    if (n === OFPP.LOCAL || st.types.get(name) === 'internal') this.platform.closeInternal?.(name);
    st.types.delete(name);
  }

  private localMac(bridge: string): string {
    let h = this.seed >>> 0;
    for (let i = 0; i < bridge.length; i++) h = Math.imul(h ^ bridge.charCodeAt(i), 0x01000193) >>> 0;
    const b = [0x02, (h >>> 24) & 255, (h >>> 16) & 255, (h >>> 8) & 255, h & 255, bridge.length & 255];
    return b.map((x) => x.toString(16).padStart(2, '0')).join(':');
  }

  /**
   * What ovs-vswitchd does on a database change (vswitchd/bridge.c bridge_reconfigure): bridges
   * created or destroyed in the engine, interfaces opened and bound to an ofport (or -1 and
   * `error`), ports whose interface went away removed (their flows' outputs then go nowhere), and
   * the status columns written back.
   */
  /** Moves with every committed change of the database and every reconfiguration of ovs-vswitchd. */
  changes = 0;

  reconfigure(): void {
    this.changes++;
    const wanted = new Map<string, Row>();
    for (const b of this.refs(this.root, 'bridges')) wanted.set(this.str(b, 'name'), b);
    for (const [name, st] of this.vswitchd) {
      if (!wanted.has(name)) {
        for (const n of st.bound.keys()) this.unbind(st, n);
        this.vswitchd.delete(name);
      }
    }
    // a new bridge's own interface opens first (on Windows it adopts or creates the host vNIC)
    for (const name of wanted.keys())
      if (!this.vswitchd.has(name) && this.platform.openInternal && !this.platform.openInternal(name)) {
        wanted.delete(name);
      }
    for (const [name, br] of wanted) {
      let st = this.vswitchd.get(name);
      if (!st) {
        st = {
          engine: new Bridge({ name, clock: this.clock, seed: this.seed }),
          usage: new Map(),
          allocPortNo: 0,
          bound: new Map([[name, OFPP.LOCAL]]),
          types: new Map(),
        };
        this.vswitchd.set(name, st);
      }
      this.reconfigureBridge(br, st);
    }
  }

  /** The interface's ofport_request, or undefined. */
  private request(i: Row | undefined): number | undefined {
    const v = i ? this.get(i, 'ofport_request').keys[0] : undefined;
    return v === undefined ? undefined : Number(v);
  }

  /**
   * One bridge, as bridge_delete_or_reconfigure_ports then bridge_add_ports do: once per change.
   * A new port whose ofport_request another port holds gets another number now, and its request
   * (both ports re-added) only on the next database change, as Debian's 3.1.0 shows.
   */
  private reconfigureBridge(br: Row, st: BridgeState): void {
    const name = this.str(br, 'name');
    const ifaces = new Map<string, Row>();
    for (const p of this.refs(br, 'ports'))
      for (const i of this.refs(p, 'interfaces')) ifaces.set(this.str(i, 'name'), i);
    const windows = this.platform.kind === 'windows';
    const drop = (n: string): void => this.unbind(st, n);
    for (const n of [...st.bound.keys()]) {
      if (!st.bound.has(n)) continue; // a victim already taken out this pass
      const i = ifaces.get(n);
      if (n === name) continue;
      if (!i) drop(n);
      else if (this.openError(i) !== undefined) {
        // on Windows a bound Hyper-V port that goes away keeps its ofport (§5 #9)
        const gone = this.str(i, 'type') === '' || this.str(i, 'type') === 'system';
        if (!(windows && gone)) drop(n);
      } else if (st.types.get(n) !== this.str(i, 'type')) drop(n);
      else {
        const req = this.request(i);
        if (req === undefined || req === st.bound.get(n)) continue;
        // the port holding the requested number gives it up unless it requested it too
        const victim = [...st.bound].find(([, o]) => o === req)?.[0];
        if (victim === undefined) drop(n);
        else if (this.request(ifaces.get(victim)) !== req) {
          drop(victim);
          drop(n);
        }
      }
    }
    const dpid = mapGet(this.get(br, 'other_config'), 'datapath-id');
    const localMac = this.localMac(name);
    this.set(
      br,
      'datapath_id',
      makeDatum(SCHEMA.Bridge.datapath_id!, [
        [
          typeof dpid === 'string' && /^[0-9a-fA-F]{16}$/.test(dpid)
            ? dpid.toLowerCase()
            : `0000${localMac.replace(/:/g, '')}`,
        ],
      ]),
    );
    // interfaces with an ofport_request are added first, then the others (each by name)
    const ordered = [...ifaces.entries()].sort(
      (a, b) =>
        Number(this.request(a[1]) === undefined) - Number(this.request(b[1]) === undefined) ||
        (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0),
    );
    for (const [n, i] of ordered) {
      const I = SCHEMA.Interface;
      const refused = n !== name && this.reserved(n);
      const error = n === name || refused ? undefined : this.openError(i);
      let ofport = st.bound.get(n);
      const added = ofport === undefined && error === undefined && !refused;
      const opened =
        !added || this.str(i, 'type') !== 'internal' || (this.platform.openInternal?.(n) ?? true);
      if (added && opened) {
        // bridge.c iface_pick_ofport: ofport_request, else the ofport the row last had
        const last = Number(this.get(i, 'ofport').keys[0] ?? 0);
        ofport = this.allocOfport(st, this.request(i) ?? (last > 0 && last < MAX_PORTS ? last : undefined));
        if (ofport !== undefined) {
          st.bound.set(n, ofport);
          st.types.set(n, this.str(i, 'type'));
          st.engine.addPort(n, ofport);
        }
      }
      const bound = ofport !== undefined;
      const internal = this.str(i, 'type') === 'internal' || n === name;
      this.set(i, 'ofport', makeDatum(I.ofport!, [[bound ? ofport! : -1]]));
      // a patch port without a usable peer is reported as it is added, and the next
      // reconfiguration clears the column (observed: Debian's 3.1.0 also loses it at times)
      const problem = bound ? (added ? this.patchError(i, br) : undefined) : error;
      this.set(i, 'error', makeDatum(I.error!, problem !== undefined && !windows ? [[problem]] : []));
      const mac = windows && internal ? '00:00:00:00:00:00' : n === name ? localMac : this.ifaceMac(n);
      const status = (v: string): Datum => makeDatum(I.link_state!, bound ? [[v]] : []);
      this.set(i, 'mac_in_use', makeDatum(I.mac_in_use!, bound ? [[mac]] : []));
      this.set(i, 'admin_state', status('up'));
      this.set(i, 'link_state', status(windows && internal ? 'down' : 'up'));
      const mtu = this.get(i, 'mtu_request').keys[0];
      this.set(i, 'mtu', makeDatum(I.mtu!, bound ? [[mtu === undefined ? 1500 : Number(mtu)]] : []));
    }
  }

  /**
   * A bound patch port whose peer is not a patch port pointing back, on a bridge of the same
   * datapath type: ofproto-dpif keeps it but reports it (`No usable peer …`).
   */
  private patchError(iface: Row, br: Row): string | undefined {
    if (this.str(iface, 'type') !== 'patch') return undefined;
    const peer = String(mapGet(this.get(iface, 'options'), 'peer'));
    const dpType = (b: Row): string => this.str(b, 'datapath_type') || 'system';
    for (const b of this.refs(this.root, 'bridges'))
      for (const p of this.refs(b, 'ports'))
        for (const i of this.refs(p, 'interfaces'))
          if (
            this.str(i, 'name') === peer &&
            this.str(i, 'type') === 'patch' &&
            mapGet(this.get(i, 'options'), 'peer') === this.str(iface, 'name') &&
            dpType(b) === dpType(br)
          )
            return undefined;
    return `No usable peer '${peer}' exists in '${dpType(br)}' datapath.`;
  }

  private ifaceMac(name: string): string {
    let h = (this.seed ^ 0x5bd1e995) >>> 0;
    for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193) >>> 0;
    const b = [0x02, 0x00, (h >>> 24) & 255, (h >>> 16) & 255, (h >>> 8) & 255, h & 255];
    return b.map((x) => x.toString(16).padStart(2, '0')).join(':');
  }
}
