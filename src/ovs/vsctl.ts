/**
 * `ovs-vsctl` over the model's Open_vSwitch database (./ovsdb.ts): commands chained with `--`, run
 * as one transaction (a failing command leaves the database as it was), with ovs-vsctl's output
 * and error texts (utilities/ovs-vsctl.c for the bridge and port commands, lib/db-ctl-base.c for
 * get/set/add/remove/clear/list/find/show). Reference ovs-windows.md §1.3–1.7.
 *
 *   const db = new Ovsdb({ seed: 1 });
 *   vsctl(db, 'add-br br-int -- add-port br-int antrea-gw0 -- set interface antrea-gw0 type=internal ofport_request=32769');
 *   vsctl(db, 'get interface antrea-gw0 ofport').stdout; // "32769\n"
 *   db.bridge('br-int');                                 // the OpenFlow engine's bridge
 */
import {
  type Atom,
  type ColumnType,
  type Datum,
  IMMUTABLE,
  type Ovsdb,
  OvsdbError,
  type Row,
  SCHEMA,
  TABLES,
  type TableName,
  compareAtoms,
  datumEquals,
  dbFail,
  defaultDatum,
  formatAtom,
  formatDatum,
  isMap,
  makeDatum,
  mapGet,
  parseAtom,
  parseDatum,
  splitEquals,
} from './ovsdb.js';

export interface VsctlResult {
  /** ovs-vsctl's exit status: 0, 1 on an error, 2 for `br-exists` of a missing bridge. */
  readonly status: number;
  readonly stdout: string;
  /** `ovs-vsctl: …` lines, or "". */
  readonly stderr: string;
}

/** Splits a command line as a POSIX shell does (quotes removed, `\` escapes in double quotes). */
export function shellWords(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let have = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new OvsdbError(`unterminated quote in: ${line}`);
      cur += line.slice(i + 1, end);
      have = true;
      i = end;
    } else if (c === '"') {
      have = true;
      for (i++; i < line.length && line[i] !== '"'; i++) {
        if (line[i] === '\\' && '"\\$`'.includes(line[i + 1] ?? '')) i++;
        cur += line[i];
      }
      if (i >= line.length) throw new OvsdbError(`unterminated quote in: ${line}`);
    } else if (c === '\\') {
      cur += line[++i] ?? '';
      have = true;
    } else if (c === ' ' || c === '\t' || c === '\n') {
      if (have) out.push(cur);
      cur = '';
      have = false;
    } else {
      cur += c;
      have = true;
    }
  }
  if (have) out.push(cur);
  return out;
}

interface Command {
  readonly name: string;
  readonly options: Map<string, string | undefined>;
  readonly args: readonly string[];
}

interface Syntax {
  readonly min: number;
  readonly max: number;
  readonly options: readonly string[];
  readonly run: (ctx: Context, c: Command) => void;
}

/** One run of ovs-vsctl: the database, its output, and what vswitchd must report after commit. */
class Context {
  /** The current command's output. */
  out = '';
  status = 0;
  constructor(readonly db: Ovsdb) {}
}

/** `--oneline`: each command's output on one line, its newlines written `\\n` (ovs-vsctl.c). */
function oneline(out: string): string {
  return `${out.replace(/\n$/, '').replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n`;
}

// ───────────────────────────── records and columns ─────────────────────────────

/** lib/db-ctl-base.c score_partial_match: exact, then case/`-`/`_`-insensitive prefix. */
function score(name: string, s: string): number {
  if (name === s) return Number.MAX_SAFE_INTEGER;
  const norm = (c: string | undefined) => (c === '-' ? '_' : c?.toLowerCase());
  let n = 0;
  for (; ; n++) {
    if (norm(name[n]) !== norm(s[n])) break;
    if (n === name.length) return Number.MAX_SAFE_INTEGER - 1;
  }
  return n === s.length ? n : 0;
}

function bestMatch(names: readonly string[], s: string): string[] {
  let best = 0;
  let found: string[] = [];
  for (const n of names) {
    const sc = score(n, s);
    if (sc && sc >= best) {
      if (sc > best) found = [];
      found.push(n);
      best = sc;
    }
  }
  return found;
}

function table(name: string): TableName {
  const m = bestMatch(TABLES, name);
  if (m.length === 0) dbFail(`unknown table "${name}"`);
  if (m.length > 1) dbFail(`"${name}" matches multiple table names: ${m.join(', ')}`);
  return m[0] as TableName;
}

function column(t: TableName, name: string): string {
  const m = bestMatch(Object.keys(SCHEMA[t]), name);
  if (m.length === 0) dbFail(`${t} does not contain a column whose name matches "${name}"`);
  if (m.length > 1)
    dbFail(`${t} contains more than one column whose name matches "${name}": ${m.sort().join(', ')}`);
  return m[0]!;
}

/** A record by ovs-vsctl's ids: its UUID, `.` for Open_vSwitch, a name for the others. */
function findRecord(db: Ovsdb, t: TableName, id: string, mustExist: boolean): Row | undefined {
  let row: Row | undefined;
  if (/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(id))
    row = db.row(t, id.toLowerCase());
  // a name may look like a UUID (tests/ovs-vsctl.at "naming in db commands")
  if (!row) row = t === 'Open_vSwitch' ? (id === '.' ? db.root : undefined) : db.byName(t, id);
  if (!row && mustExist) dbFail(`no row "${id}" in table ${t}`);
  return row;
}

/** `column[:key]` then, where given, one of `ops` and the value. */
function parseColumnArg(
  t: TableName,
  arg: string,
  ops: readonly string[],
): { col: string; key?: string; op?: string; value?: string } {
  const m = /^([^:=!<>{}[\],\s]*)/.exec(arg)!;
  const colName = m[1]!;
  if (colName === '') dbFail(`${arg}: missing column name`);
  const col = column(t, colName);
  let rest = arg.slice(colName.length);
  let key: string | undefined;
  if (rest.startsWith(':')) {
    rest = rest.slice(1);
    let i = 0;
    if (rest.startsWith('"')) {
      for (i = 1; i < rest.length && rest[i] !== '"'; i++) if (rest[i] === '\\') i++;
      i++;
    } else while (i < rest.length && !':=!<>{}[], \t'.includes(rest[i]!)) i++;
    key = rest.slice(0, i);
    rest = rest.slice(i);
  }
  if (ops.length === 0) {
    if (rest !== '') dbFail(`${arg}: trailing garbage "${rest}" in argument`);
    return key === undefined ? { col } : { col, key };
  }
  const op = [...ops].sort((a, b) => b.length - a.length).find((o) => rest.startsWith(o));
  if (op === undefined) {
    const quoted = ops.map((o) => `"${o}"`);
    const list =
      quoted.length === 1
        ? quoted[0]!
        : quoted.length === 2
          ? `${quoted[0]!} or ${quoted[1]!}`
          : `${quoted.slice(0, -1).join(', ')}, or ${quoted[quoted.length - 1]!}`;
    dbFail(`${arg}: argument does not end in ${list} followed by a value.`);
  }
  const value = rest.slice(op!.length);
  return key === undefined ? { col, op, value } : { col, key, op, value };
}

const colType = (t: TableName, c: string): ColumnType => SCHEMA[t][c]!;

function keyAtom(t: TableName, col: string, key: string, what: string): Atom {
  const ct = colType(t, col);
  if (!isMap(ct)) dbFail(`cannot specify key to ${what} for non-map column ${col}`);
  return parseAtom(key, ct.key);
}

function recordName(db: Ovsdb, row: Row): string {
  return 'name' in SCHEMA[row.table] ? db.str(row, 'name') : row.uuid;
}

// ───────────────────────────── database commands ─────────────────────────────

function cmdGet(ctx: Context, c: Command): void {
  const t = table(c.args[0]!);
  const row = findRecord(ctx.db, t, c.args[1]!, !c.options.has('--if-exists'));
  if (!row) return;
  for (const arg of c.args.slice(2)) {
    if (arg === '_uuid') {
      ctx.out += `${row.uuid}\n`;
      continue;
    }
    const { col, key } = parseColumnArg(t, arg, []);
    const d = ctx.db.get(row, col);
    if (key === undefined) {
      ctx.out += `${formatDatum(d, colType(t, col))}\n`;
      continue;
    }
    const k = keyAtom(t, col, key, 'get');
    const v = mapGet(d, k);
    if (v === undefined) {
      if (c.options.has('--if-exists')) {
        ctx.out += '\n';
        continue;
      }
      dbFail(`no key ${JSON.stringify(String(k))} in ${t} record "${recordName(ctx.db, row)}" column ${col}`);
    }
    ctx.out += `${formatAtom(v!)}\n`;
  }
}

function setColumn(db: Ovsdb, row: Row, arg: string): void {
  const t = row.table;
  const { col, key, value } = parseColumnArg(t, arg, ['=']);
  if (IMMUTABLE.has(col)) dbFail(`cannot modify read-only column ${col} in table ${t}`);
  const ct = colType(t, col);
  if (key !== undefined) {
    const k = keyAtom(t, col, key, 'set');
    const v = parseAtom(value!, ct.value!);
    const d = db.get(row, col);
    const pairs = d.keys.map((x, i): [Atom, Atom] => [x, d.values![i]!]);
    db.set(row, col, makeDatum(ct, [...pairs, [k, v]]));
  } else db.set(row, col, parseDatum(value!, ct));
}

function cmdSet(ctx: Context, c: Command): void {
  const t = table(c.args[0]!);
  const row = findRecord(ctx.db, t, c.args[1]!, !c.options.has('--if-exists'));
  if (!row) return;
  for (const arg of c.args.slice(2)) setColumn(ctx.db, row, arg);
}

function cmdAddRemove(ctx: Context, c: Command, remove: boolean): void {
  const t = table(c.args[0]!);
  const row = findRecord(ctx.db, t, c.args[1]!, !c.options.has('--if-exists'));
  if (!row) return;
  const col = column(t, c.args[2]!);
  if (IMMUTABLE.has(col)) dbFail(`cannot modify read-only column ${col} in table ${t}`);
  const ct = colType(t, col);
  const d = ctx.db.get(row, col);
  const pairs = new Map<Atom, Atom | undefined>(d.keys.map((k, i) => [k, d.values?.[i]]));
  for (const arg of c.args.slice(3)) {
    if (remove && isMap(ct)) {
      // KEY, or KEY=VALUE (removed only if the value matches), or a whole map
      for (const tok of arg
        .replace(/^\{|\}$/g, '')
        .split(/[,\s]+/)
        .filter(Boolean)) {
        const eq = splitEquals(tok);
        const k = parseAtom(eq < 0 ? tok : tok.slice(0, eq), ct.key);
        if (eq < 0 || pairs.get(k) === parseAtom(tok.slice(eq + 1), ct.value!)) pairs.delete(k);
      }
      continue;
    }
    const add = parseDatum(arg, { ...ct, min: 0, max: Infinity });
    add.keys.forEach((k, i) => {
      if (remove) pairs.delete(k);
      else if (!pairs.has(k)) pairs.set(k, add.values?.[i]);
    });
  }
  const next = makeDatum(ct, [...pairs.entries()]);
  const n = next.keys.length;
  const what = isMap(ct) ? 'pairs' : 'values';
  if (remove && n < ct.min)
    dbFail(
      `"remove" operation would put ${n} ${what} in column ${col} of table ${t} but the minimum number is ${ct.min}`,
    );
  if (!remove && n > ct.max)
    dbFail(
      `"add" operation would put ${n} ${what} in column ${col} of table ${t} but the maximum number is ${ct.max}`,
    );
  ctx.db.set(row, col, next);
}

function cmdClear(ctx: Context, c: Command): void {
  const t = table(c.args[0]!);
  const row = findRecord(ctx.db, t, c.args[1]!, !c.options.has('--if-exists'));
  if (!row) return;
  for (const arg of c.args.slice(2)) {
    const col = column(t, arg);
    if (IMMUTABLE.has(col)) dbFail(`cannot modify read-only column ${col} in table ${t}`);
    const ct = colType(t, col);
    if (ct.min > 0)
      dbFail(
        `"clear" operation cannot be applied to column ${col} of table ${t}, which is not allowed to be empty`,
      );
    ctx.db.set(row, col, defaultDatum(ct));
  }
}

/** The `--columns=` list (each matched like a column argument), or `_uuid` and every column. */
function listColumns(t: TableName, c: Command): string[] {
  const spec = c.options.get('--columns');
  if (spec === undefined) return ['_uuid', ...Object.keys(SCHEMA[t]).sort()];
  return spec.split(',').map((s) => (s.trim() === '_uuid' ? '_uuid' : column(t, s.trim())));
}

function formatRecords(db: Ovsdb, rows: readonly Row[], cols: readonly string[]): string {
  return rows
    .map((row) =>
      cols
        .map((col) => {
          const v = col === '_uuid' ? row.uuid : formatDatum(db.get(row, col), colType(row.table, col));
          return `${col.padEnd(20)}: ${v}\n`;
        })
        .join(''),
    )
    .join('\n');
}

function cmdList(ctx: Context, c: Command): void {
  const t = table(c.args[0]!);
  const rows =
    c.args.length > 1
      ? c.args
          .slice(1)
          .map((id) => findRecord(ctx.db, t, id, !c.options.has('--if-exists')))
          .filter((r): r is Row => r !== undefined)
      : [...ctx.db.rows(t)].sort((a, b) => compareAtoms(a.uuid, b.uuid));
  ctx.out += formatRecords(ctx.db, rows, listColumns(t, c));
}

/** lib/db-ctl-base.c RELOPS, in its order (the error text lists them so). */
const FIND_OPS = [
  '=',
  '!=',
  '<',
  '>',
  '<=',
  '>=',
  '{=}',
  '{!=}',
  '{<}',
  '{>}',
  '{<=}',
  '{>=}',
  '{in}',
  '{not-in}',
];

/** ovsdb_datum_compare_3way: by size, then atom by atom (keys, then values). */
function compare3way(a: Datum, b: Datum): number {
  if (a.keys.length !== b.keys.length) return a.keys.length < b.keys.length ? -1 : 1;
  for (let i = 0; i < a.keys.length; i++) {
    const r = compareAtoms(a.keys[i]!, b.keys[i]!);
    if (r) return r;
  }
  for (let i = 0; i < (a.values?.length ?? 0); i++) {
    const r = compareAtoms(a.values![i]!, b.values![i]!);
    if (r) return r;
  }
  return 0;
}

/** Every element (pair) of `a` is in `b` (ovsdb_datum_includes_all). */
function isSubset(a: Datum, b: Datum): boolean {
  return a.keys.every((k, i) => {
    const j = b.keys.indexOf(k);
    return j >= 0 && (!a.values || a.values[i] === b.values![j]);
  });
}

/** lib/db-ctl-base.c is_condition_satisfied for one `column[:key]OP value`. */
function satisfied(db: Ovsdb, row: Row, arg: string): boolean {
  const t = row.table;
  const { col, key, op, value } = parseColumnArg(t, arg, FIND_OPS);
  const ct = colType(t, col);
  const have = db.get(row, col);
  if (key !== undefined) {
    const k = keyAtom(t, col, key, 'check');
    const want = parseDatum(value!, { key: ct.value!, min: 0, max: Infinity });
    const v = mapGet(have, k);
    // an arithmetic relation needs the key; a set relation sees a missing key as the empty set
    if (v === undefined && !op!.startsWith('{')) return false;
    const got = makeDatum({ key: ct.value!, min: 0, max: 1 }, v === undefined ? [] : [[v]]);
    return compareOp(op!, got, want);
  }
  return compareOp(op!, have, parseDatum(value!, { ...ct, min: 0, max: Infinity }));
}

/** lib/db-ctl-base.c evaluate_relop. */
function compareOp(op: string, have: Datum, want: Datum): boolean {
  switch (op) {
    case '=':
    case '{=}':
      return compare3way(have, want) === 0;
    case '!=':
    case '{!=}':
      return compare3way(have, want) !== 0;
    case '<':
      return compare3way(have, want) < 0;
    case '>':
      return compare3way(have, want) > 0;
    case '<=':
      return compare3way(have, want) <= 0;
    case '>=':
      return compare3way(have, want) >= 0;
    case '{<}':
      return want.keys.length > have.keys.length && isSubset(have, want);
    case '{>}':
      return have.keys.length > want.keys.length && isSubset(want, have);
    case '{<=}':
    case '{in}':
      return isSubset(have, want);
    case '{>=}':
      return isSubset(want, have);
    default:
      // {not-in}: no element of the column is in the value (ovsdb_datum_excludes_all)
      return have.keys.every(
        (k, i) => !isSubset({ keys: [k], values: have.values && [have.values[i]!] }, want),
      );
  }
}

function cmdFind(ctx: Context, c: Command): void {
  const t = table(c.args[0]!);
  const rows = [...ctx.db.rows(t)]
    .sort((a, b) => compareAtoms(a.uuid, b.uuid))
    .filter((r) => c.args.slice(1).every((arg) => satisfied(ctx.db, r, arg)));
  ctx.out += formatRecords(ctx.db, rows, listColumns(t, c));
}

/** utilities/ovs-vsctl.c cmd_show_tables: per table its name column and shown columns. */
const SHOW: Readonly<Partial<Record<TableName, readonly string[]>>> = {
  Open_vSwitch: ['bridges', 'ovs_version'],
  Bridge: ['fail_mode', 'datapath_type', 'ports'],
  Port: ['tag', 'trunks', 'interfaces'],
  Interface: ['type', 'options', 'error'],
};

function showRow(db: Ovsdb, row: Row, level: number): string {
  const pad = ' '.repeat(level * 4);
  let s =
    row.table === 'Open_vSwitch'
      ? `${pad}${row.uuid}\n`
      : `${pad}${row.table} ${formatDatum(db.get(row, 'name'), colType(row.table, 'name'))}\n`;
  for (const col of SHOW[row.table] ?? []) {
    const ct = colType(row.table, col);
    const d = db.get(row, col);
    if (ct.key.refTable) {
      for (const r of db.refs(row, col)) s += showRow(db, r, level + 1);
    } else if (!datumEquals(d, defaultDatum(ct))) {
      s += `${' '.repeat((level + 1) * 4)}${col}: ${formatDatum(d, ct)}\n`;
    }
  }
  return s;
}

// ───────────────────────────── bridge and port commands ─────────────────────────────

interface Where {
  readonly bridge: Row;
  readonly port: Row;
}

function bridges(db: Ovsdb): Row[] {
  return db.refs(db.root, 'bridges');
}

function findBridge(db: Ovsdb, name: string, mustExist: boolean): Row | undefined {
  const b = bridges(db).find((r) => db.str(r, 'name') === name);
  if (!b && mustExist) dbFail(`no bridge named ${name}`);
  return b;
}

/** ovs-vsctl's cache leaves out each bridge's own port (and its interface): they are the bridge. */
function ownPorts(db: Ovsdb, bridge: Row): Row[] {
  const name = db.str(bridge, 'name');
  return db.refs(bridge, 'ports').filter((p) => db.str(p, 'name') !== name);
}

function findPort(db: Ovsdb, name: string, mustExist: boolean): Where | undefined {
  for (const bridge of bridges(db))
    for (const port of ownPorts(db, bridge)) if (db.str(port, 'name') === name) return { bridge, port };
  if (mustExist) dbFail(`no port named ${name}`);
  return undefined;
}

function findIface(db: Ovsdb, name: string, mustExist: boolean): (Where & { iface: Row }) | undefined {
  for (const bridge of bridges(db))
    for (const port of ownPorts(db, bridge))
      for (const iface of db.refs(port, 'interfaces'))
        if (db.str(iface, 'name') === name) return { bridge, port, iface };
  if (mustExist) dbFail(`no interface named ${name}`);
  return undefined;
}

function checkConflicts(db: Ovsdb, name: string, msg: string): void {
  if (findBridge(db, name, false)) dbFail(`${msg} because a bridge named ${name} already exists`);
  const p = findPort(db, name, false);
  if (p) dbFail(`${msg} because a port named ${name} already exists on bridge ${db.str(p.bridge, 'name')}`);
  const i = findIface(db, name, false);
  if (i)
    dbFail(`${msg} because an interface named ${name} already exists on bridge ${db.str(i.bridge, 'name')}`);
}

const str = (name: string): Datum => ({ keys: [name] });
const uuids = (rows: readonly Row[]): Datum => ({ keys: rows.map((r) => r.uuid).sort() });

function withRef(db: Ovsdb, row: Row, col: string, add?: Row, remove?: Row): void {
  const keys = db.get(row, col).keys.filter((k) => k !== remove?.uuid);
  if (add) keys.push(add.uuid);
  db.set(row, col, { keys: [...keys].sort(compareAtoms) });
}

function cmdAddBr(ctx: Context, c: Command): void {
  const db = ctx.db;
  const name = c.args[0]!;
  if (name === '') dbFail('bridge name must not be empty string');
  if (c.args.length !== 1)
    dbFail(
      c.args.length === 3
        ? 'VLAN (fake) bridges are not modelled'
        : `'add-br' command takes exactly 1 or 3 arguments`,
    );
  if (c.options.has('--may-exist') && findBridge(db, name, false)) return;
  checkConflicts(db, name, `cannot create a bridge named ${name}`);
  const iface = db.insert('Interface', { name: str(name), type: str('internal') });
  const port = db.insert('Port', { name: str(name), interfaces: uuids([iface]) });
  const bridge = db.insert('Bridge', { name: str(name), ports: uuids([port]) });
  withRef(db, db.root, 'bridges', bridge);
}

function cmdDelBr(ctx: Context, c: Command): void {
  const b = findBridge(ctx.db, c.args[0]!, !c.options.has('--if-exists'));
  if (b) withRef(ctx.db, ctx.db.root, 'bridges', undefined, b);
}

function cmdAddPort(ctx: Context, c: Command): void {
  const db = ctx.db;
  const [brName, portName] = [c.args[0]!, c.args[1]!];
  if (portName === '') dbFail('port name must not be empty string');
  const settings = c.args.slice(2);
  if (c.options.has('--may-exist')) {
    const have = findPort(db, portName, false);
    if (have) {
      const command = ['--may-exist', 'add-port', ...c.args].join(' ');
      const on = db.str(have.bridge, 'name');
      if (on !== brName) dbFail(`"${command}" but ${portName} is actually attached to bridge ${on}`);
      const names = db.refs(have.port, 'interfaces').map((i) => db.str(i, 'name'));
      if (names.length !== 1 || names[0] !== portName)
        dbFail(`"${command}" but ${portName} actually has interface(s) ${names.sort().join(', ')}`);
      return;
    }
  }
  checkConflicts(db, portName, `cannot create a port named ${portName}`);
  const bridge = findBridge(db, brName, true)!;
  const iface = db.insert('Interface', { name: str(portName) });
  const port = db.insert('Port', { name: str(portName), interfaces: uuids([iface]) });
  for (const s of settings) setColumn(db, port, s);
  withRef(db, bridge, 'ports', port);
}

function cmdDelPort(ctx: Context, c: Command): void {
  const db = ctx.db;
  const mustExist = !c.options.has('--if-exists');
  const target = c.args[c.args.length - 1]!;
  if (findBridge(db, target, false)) {
    if (mustExist)
      dbFail(
        `cannot delete port ${target} because it is the local port for bridge ${target} (deleting this port requires deleting the entire bridge)`,
      );
    return;
  }
  let where = findPort(db, target, !c.options.has('--with-iface') && mustExist);
  if (!where && c.options.has('--with-iface')) {
    where = findIface(db, target, false);
    if (!where && mustExist) dbFail(`no port or interface named ${target}`);
  }
  if (!where) return;
  if (c.args.length === 2) {
    const br = findBridge(db, c.args[0]!, true)!;
    if (br !== where.bridge) dbFail(`bridge ${c.args[0]!} does not have a port ${c.args[1]!}`);
  }
  withRef(db, where.bridge, 'ports', undefined, where.port);
}

const sortedNames = (db: Ovsdb, rows: readonly Row[]): string[] =>
  rows.map((r) => db.str(r, 'name')).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** A command of one argument and no options. */
const oneArg = (run: Syntax['run']): Syntax => ({ min: 1, max: 1, options: [], run });

const COMMANDS: Readonly<Record<string, Syntax>> = {
  init: { min: 0, max: 0, options: [], run: () => {} },
  'add-br': { min: 1, max: 3, options: ['--may-exist'], run: cmdAddBr },
  'del-br': { min: 1, max: 1, options: ['--if-exists'], run: cmdDelBr },
  'list-br': {
    min: 0,
    max: 0,
    options: ['--real', '--fake'],
    run: (ctx, c) => {
      // no VLAN (fake) bridges are modelled: every bridge is real
      if (c.options.has('--fake')) return;
      for (const n of sortedNames(ctx.db, bridges(ctx.db))) ctx.out += `${n}\n`;
    },
  },
  'br-exists': oneArg((ctx, c) => {
    if (!findBridge(ctx.db, c.args[0]!, false)) ctx.status = 2;
  }),
  'list-ports': oneArg((ctx, c) => {
    const br = findBridge(ctx.db, c.args[0]!, true)!;
    for (const n of sortedNames(ctx.db, ownPorts(ctx.db, br))) ctx.out += `${n}\n`;
  }),
  'list-ifaces': oneArg((ctx, c) => {
    const br = findBridge(ctx.db, c.args[0]!, true)!;
    const ifaces = ctx.db.refs(br, 'ports').flatMap((p) => ctx.db.refs(p, 'interfaces'));
    for (const n of sortedNames(ctx.db, ifaces)) if (n !== c.args[0]) ctx.out += `${n}\n`;
  }),
  'add-port': { min: 2, max: Infinity, options: ['--may-exist'], run: cmdAddPort },
  'del-port': { min: 1, max: 2, options: ['--if-exists', '--with-iface'], run: cmdDelPort },
  'port-to-br': oneArg((ctx, c) => {
    ctx.out += `${ctx.db.str(findPort(ctx.db, c.args[0]!, true)!.bridge, 'name')}\n`;
  }),
  'iface-to-br': oneArg((ctx, c) => {
    ctx.out += `${ctx.db.str(findIface(ctx.db, c.args[0]!, true)!.bridge, 'name')}\n`;
  }),
  get: { min: 2, max: Infinity, options: ['--if-exists'], run: cmdGet },
  list: { min: 1, max: Infinity, options: ['--if-exists', '--columns='], run: cmdList },
  find: { min: 1, max: Infinity, options: ['--columns='], run: cmdFind },
  set: { min: 3, max: Infinity, options: ['--if-exists'], run: cmdSet },
  add: { min: 4, max: Infinity, options: ['--if-exists'], run: (ctx, c) => cmdAddRemove(ctx, c, false) },
  remove: { min: 4, max: Infinity, options: ['--if-exists'], run: (ctx, c) => cmdAddRemove(ctx, c, true) },
  clear: { min: 3, max: Infinity, options: ['--if-exists'], run: cmdClear },
  show: {
    min: 0,
    max: 0,
    options: [],
    run: (ctx) => {
      ctx.out += showRow(ctx.db, ctx.db.root, 0);
    },
  },
};

/** Global options accepted and ignored (they concern the daemon connection, not the model). */
const GLOBAL_IGNORED =
  /^(--no-wait|--timeout=\d+|-t\d*|--db=.*|--retry|--no-syslog|-v.*|--verbose.*|--oneline)$/;

/** Splits argv into commands at `--` (db-ctl-base.c ctl_parse_commands). */
function parseCommands(argv: readonly string[]): { commands: Command[]; oneline: boolean; noWait: boolean } {
  let lines = false;
  let noWait = false;
  let i = 0;
  while (i < argv.length && argv[i]!.startsWith('-') && argv[i] !== '--') {
    if (!GLOBAL_IGNORED.test(argv[i]!)) break;
    if (argv[i] === '--oneline') lines = true;
    if (argv[i] === '--no-wait') noWait = true;
    i++;
  }
  const groups: string[][] = [[]];
  for (; i < argv.length; i++) {
    if (argv[i] === '--') groups.push([]);
    else groups[groups.length - 1]!.push(argv[i]!);
  }
  const commands: Command[] = [];
  for (const g of groups) {
    if (g.length === 0) continue;
    const options = new Map<string, string | undefined>();
    let j = 0;
    for (; j < g.length && g[j]!.startsWith('-'); j++) {
      const eq = g[j]!.indexOf('=');
      const name = eq < 0 ? g[j]! : g[j]!.slice(0, eq);
      if (options.has(name)) dbFail(`'${name}' option specified multiple times`);
      options.set(name, eq < 0 ? undefined : g[j]!.slice(eq + 1));
    }
    const name = g[j];
    if (name === undefined) dbFail('missing command name (use --help for help)');
    const syntax = COMMANDS[name!];
    if (!syntax) dbFail(`unknown command '${name!}'; use --help for help`);
    for (const [opt, val] of options) {
      const known = syntax!.options.find((o) => o === opt || o === `${opt}=`);
      if (!known) dbFail(`'${name!}' command has no '${opt}' option`);
      if (known!.endsWith('=') && val === undefined)
        dbFail(`missing argument to '${opt}' option on '${name!}' command`);
      if (!known!.endsWith('=') && val !== undefined)
        dbFail(`'${opt}' option on '${name!}' does not accept an argument`);
    }
    const args = g.slice(j + 1);
    if (args.length < syntax!.min) dbFail(`'${name!}' command requires at least ${syntax!.min} arguments`);
    if (args.length > syntax!.max) {
      if (args.some((a) => a.startsWith('-')))
        dbFail(
          `'${name!}' command takes at most ${syntax!.max} arguments (note that options must precede command names and follow a "--" argument)`,
        );
      dbFail(`'${name!}' command takes at most ${syntax!.max} arguments`);
    }
    commands.push({ name: name!, options, args });
  }
  if (commands.length === 0) dbFail('missing command name (use --help for help)');
  return { commands, oneline: lines, noWait };
}

/**
 * Runs one ovs-vsctl invocation: `command` is a command line (`"add-port br-int p -- set interface
 * p type=internal"`, split as a shell would) or its argv. All its commands form one transaction.
 * After a commit, as ovs-vsctl waits for ovs-vswitchd, a new interface that could not be opened is
 * reported on stderr (`Error detected while setting up 'X': <error>.  See …`, or without the error
 * text when the `error` column is empty, as on Windows; the status stays 0, as Debian's 3.1.0).
 */
export function vsctl(db: Ovsdb, command: string | readonly string[]): VsctlResult {
  const ctx = new Context(db);
  let stdout = '';
  let noWait = false;
  // ovs-vsctl checks the interfaces its transaction inserted once vswitchd has applied it
  const before = new Set<string>();
  for (const i of db.rows('Interface')) before.add(i.uuid);
  try {
    const argv = typeof command === 'string' ? shellWords(command) : command;
    const parsed = parseCommands(argv);
    noWait = parsed.noWait;
    db.transact(() => {
      for (const c of parsed.commands) {
        ctx.out = '';
        COMMANDS[c.name]!.run(ctx, c);
        const table = c.name === 'list' || c.name === 'find';
        stdout += parsed.oneline && !table ? oneline(ctx.out) : ctx.out;
      }
    });
  } catch (e) {
    if (!(e instanceof OvsdbError)) throw e;
    return { status: 1, stdout: '', stderr: `${e.vsctl}\n` };
  }
  let stderr = '';
  // --no-wait: ovs-vsctl does not wait for ovs-vswitchd, so it does not look at the result
  for (const i of noWait ? [] : db.rows('Interface')) {
    if (before.has(i.uuid) || db.get(i, 'ofport').keys[0] !== -1) continue;
    const err = db.get(i, 'error').keys[0];
    const what = err === undefined ? '' : `: ${String(err)}`;
    stderr += `ovs-vsctl: Error detected while setting up '${db.str(i, 'name')}'${what}.  See ovs-vswitchd log for details.\n`;
  }
  return { status: ctx.status, stdout, stderr };
}

/** As `vsctl`, but an error (status 1) throws OvsdbError; resolves stdout. */
export function vsctlOrThrow(db: Ovsdb, command: string | readonly string[]): string {
  const r = vsctl(db, command);
  if (r.status === 1) throw new OvsdbError(r.stderr.replace(/^ovs-vsctl: /, '').trimEnd());
  return r.stdout;
}

// ───────────────────────────── the TypeScript API ─────────────────────────────

export interface InterfaceSpec {
  /** `""` (a Hyper-V port by name), `internal`, `geneve`, `vxlan`, `stt`, `patch`, … */
  readonly type?: string;
  readonly ofportRequest?: number;
  readonly mtuRequest?: number;
  readonly options?: Readonly<Record<string, string>>;
  readonly externalIds?: Readonly<Record<string, string>>;
}

const mapArg = (col: string, m: Readonly<Record<string, string>> | undefined): string[] =>
  Object.entries(m ?? {}).map(([k, v]) => `${col}:${JSON.stringify(k)}=${JSON.stringify(v)}`);

/** `ovs-vsctl [--may-exist] add-port BR PORT -- set interface PORT …` as argv. */
export function addPortArgs(
  bridge: string,
  port: string,
  spec: InterfaceSpec & { mayExist?: boolean; tag?: number } = {},
): string[] {
  const argv = [...(spec.mayExist ? ['--may-exist'] : []), 'add-port', bridge, port];
  if (spec.tag !== undefined) argv.push(`tag=${spec.tag}`);
  const set: string[] = [];
  if (spec.type !== undefined) set.push(`type=${JSON.stringify(spec.type)}`);
  if (spec.ofportRequest !== undefined) set.push(`ofport_request=${spec.ofportRequest}`);
  if (spec.mtuRequest !== undefined) set.push(`mtu_request=${spec.mtuRequest}`);
  set.push(...mapArg('options', spec.options), ...mapArg('external_ids', spec.externalIds));
  if (set.length) argv.push('--', 'set', 'Interface', port, ...set);
  return argv;
}

/** Typed ovs-vsctl over a database: each call one transaction; errors throw OvsdbError. */
export class Vsctl {
  constructor(readonly db: Ovsdb) {}
  addBridge(
    name: string,
    opts: { mayExist?: boolean; otherConfig?: Readonly<Record<string, string>> } = {},
  ): void {
    const argv = [...(opts.mayExist ? ['--may-exist'] : []), 'add-br', name];
    const oc = mapArg('other_config', opts.otherConfig);
    if (oc.length) argv.push('--', 'set', 'Bridge', name, ...oc);
    vsctlOrThrow(this.db, argv);
  }
  delBridge(name: string, opts: { ifExists?: boolean } = {}): void {
    vsctlOrThrow(this.db, [...(opts.ifExists ? ['--if-exists'] : []), 'del-br', name]);
  }
  addPort(
    bridge: string,
    port: string,
    spec: InterfaceSpec & { mayExist?: boolean; tag?: number } = {},
  ): void {
    vsctlOrThrow(this.db, addPortArgs(bridge, port, spec));
  }
  delPort(port: string, opts: { bridge?: string; ifExists?: boolean } = {}): void {
    vsctlOrThrow(this.db, [
      ...(opts.ifExists ? ['--if-exists'] : []),
      'del-port',
      ...(opts.bridge !== undefined ? [opts.bridge] : []),
      port,
    ]);
  }
  /** `set TABLE RECORD col[:key]=value …`. */
  set(tableName: string, record: string, ...settings: string[]): void {
    vsctlOrThrow(this.db, ['set', tableName, record, ...settings]);
  }
  /** One column's value as ovs-vsctl `get` prints it (without the newline). */
  get(tableName: string, record: string, col: string): string {
    return vsctlOrThrow(this.db, ['get', tableName, record, col]).replace(/\n$/, '');
  }
  /** The ofport of an interface (-1 when it could not be bound), or undefined if none is named so. */
  ofport(iface: string): number | undefined {
    const row = this.db.byName('Interface', iface);
    const v = row ? this.db.get(row, 'ofport').keys[0] : undefined;
    return v === undefined ? undefined : Number(v);
  }
  listBridges(): string[] {
    return sortedNames(this.db, bridges(this.db));
  }
  listPorts(bridge: string): string[] {
    return vsctlOrThrow(this.db, ['list-ports', bridge]).split('\n').filter(Boolean);
  }
  show(): string {
    return vsctlOrThrow(this.db, ['show']);
  }
}
