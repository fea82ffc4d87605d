/**
 * The call tables of the Wine tests: a step names a DLL export and its arguments as hcsshim passes
 * them; `hcncallInput` writes steps as native/tests/hcncall.c reads them, and `flatExpect` runs the
 * same steps on the handle-free flat API of a second, identical host, giving what each DLL call
 * must answer. The mapping is hcsshim's reading of the DLL contract (hcn/*.go, internal/vmcompute),
 * written here independently of native/:
 *
 *   HcnEnumerateX(q)            → HcnEnumerateX(q)                 the IDs, as a JSON array
 *   HcnCreateX(guid, s) → h     → HcnCreateX(guid | null, s)       no document (hcsshim queries next)
 *   HcnOpenX(guid) → h          → the open step of HcnQueryXProperties(guid, ""): its failure only
 *   HcnQueryXProperties(h, q)   → HcnQueryXProperties(id of h, q)  the document
 *   HcnModifyX(h, s)            → HcnModifyX(id of h, s)
 *   HcnDeleteX(guid)            → HcnDeleteX(guid)
 *   HcnCloseX(h)                → nothing: S_OK
 *   HNSCall(m, p, o)            → HNSCall(m, p, o)                 the response document
 *   Hcs*(h, …) (vmcompute)      → Hcs*(id of h, …)                 failures in vmcompute's spelling
 *                                                                  with a ResultError document
 *   HcsOpenComputeSystem(id)    → HcsGetComputeSystemProperties(id): its failure only
 *   HcsCloseComputeSystem(h)    → S_OK; HcsCloseComputeSystem(id) when it was the last handle
 *   cc:Hcs*(h, op, …)           → S_OK; the operation holds the flat outcome (computecoreStep)
 *
 * A success carries no error record (hcsshim's checkForErrors takes a non-empty one as a failure);
 * a failure carries the flat API's ErrorRecord, parsed as JSON.
 */
import type { FlatApi, HcnResult } from '../../src/api/flat.js';
import type { Json } from '../../src/core/json.js';

/** An argument of a step, by the parameter's type. */
export type Arg =
  | string // a string parameter (PCWSTR)
  | null // NULL, for any pointer parameter
  | { readonly h: string } // a handle stored by an earlier step (">name")
  | { readonly rawHandle: number } // any handle value (an unknown or closed one)
  | { readonly guid: string } // a GUID literal
  | { readonly guidOf: string } // the GUID stored under a name (">name" of an open/create, "&name")
  | { readonly zero: true } // the zero GUID hcsshim passes on create
  | { readonly n: number }; // a number parameter (DWORD)

export const ZERO: Arg = { zero: true };
export const h = (name: string): Arg => ({ h: name });
export const guid = (g: string): Arg => ({ guid: g });
export const guidOf = (name: string): Arg => ({ guidOf: name });
export const json = (v: Json): string => JSON.stringify(v);

export interface Step {
  readonly fn: string;
  readonly args: readonly Arg[];
  /** Store the out-handle (and the GUID argument, if any and not zero) under this name. */
  readonly out?: string;
  /** Store the ID of the result document under this name. */
  readonly id?: string;
  /** What the step is for (shown when it fails). */
  readonly why?: string;
  /**
   * What the DLL must answer, written from the reference (not from src/): caught even if the
   * simulator and the DLL shared a bug. `record` is compared whole when given.
   */
  readonly literal?: { readonly hr: number; readonly record?: Json };
}

export function step(fn: string, args: readonly Arg[], more: Omit<Step, 'fn' | 'args'> = {}): Step {
  return { fn, args, ...more };
}

/** What hcncall.exe prints for one call. */
export interface CallOutput {
  readonly i: number;
  readonly fn: string;
  readonly hr: number;
  readonly missing?: boolean;
  readonly result: string | null;
  readonly record: string | null;
  readonly handle: number | null;
  readonly heap: readonly (boolean | null)[];
  /** For a failure: the system text of the code, as hcsshim prints it (null when Wine has none). */
  readonly msg?: string | null;
  readonly us: number;
}

/** What hcncall.exe prints for a `!loop` or `!threads` block. */
export interface BlockOutput {
  readonly loop?: number;
  readonly thread?: number;
  readonly i: number;
  readonly calls: number;
  readonly failed: number;
  readonly missing: number;
  readonly badHeap: number;
  readonly recordOnSuccess: number;
  /** Calls whose result differed from the same line's first result (a reply given to the wrong call). */
  readonly unstable: number;
  readonly firstFailure: { fn: string; hr: number } | null;
  readonly us: number;
  readonly usPerCall: number;
}

/** One line of hcncall.exe input for a step. */
export function stepLine(s: Step): string {
  const fields = [s.fn, ...s.args.map(argText)];
  if (s.out) fields.push(`>${s.out}`);
  if (s.id) fields.push(`&${s.id}`);
  return fields.join('\t');
}

function argText(a: Arg): string {
  if (a === null) return '~';
  if (typeof a === 'string') {
    if (a === '~' || /^[>&$#%]/.test(a)) {
      throw new Error(`hcncall cannot pass the string ${JSON.stringify(a)}: it starts with a marker`);
    }
    return a.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
  }
  if ('h' in a) return `$${a.h}`;
  if ('rawHandle' in a) return `#${a.rawHandle}`;
  if ('guid' in a) return a.guid;
  if ('guidOf' in a) return `%${a.guidOf}`;
  if ('zero' in a) return '0';
  return String(a.n);
}

/** hcncall.exe input for a list of steps (one line each). */
export function hcncallInput(steps: readonly Step[]): string {
  return steps.map(stepLine).join('\n') + '\n';
}

/** Parse hcncall.exe output: one JSON object per line. */
export function parseOutput(stdout: string): (CallOutput | BlockOutput | Record<string, unknown>)[] {
  return stdout
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as CallOutput);
}

export function calls(out: ReturnType<typeof parseOutput>): CallOutput[] {
  return out.filter((o): o is CallOutput => typeof (o as CallOutput).fn === 'string');
}

// ───────────────────────────── the flat model ─────────────────────────────

/** What a DLL call must answer, from the flat API. */
export interface Expected {
  readonly hr: number;
  /** The result document (parsed), or null when the call returns none (or fails). */
  readonly result: Json | null;
  /** The error record (parsed), or null on success. */
  readonly record: Json | null;
  /** Whether the call has an out-handle, and whether it must be set (success) or NULL. */
  readonly handle: 'set' | 'null' | 'none';
  /** For a failure: the registered name, for messages. */
  readonly name?: string;
}

const HCN_OP =
  /^Hcn(Enumerate|Create|Open|Modify|Query|Delete|Close)(Network|Endpoint|Namespace|LoadBalancer|SdnRoute)s?(Properties|Stats)?$/;

const HCS_STEPS = new Set([
  'HcsStartComputeSystem',
  'HcsShutdownComputeSystem',
  'HcsTerminateComputeSystem',
  'HcsPauseComputeSystem',
  'HcsResumeComputeSystem',
  'HcsModifyComputeSystem',
]);

/** Names → object IDs, as hcncall keeps them (handles) and as the steps name them (GUIDs). */
export class Vars {
  readonly handles = new Map<string, string>();
  readonly guids = new Map<string, string>();
  /** computecore operations: the outcome of the call that used each (undefined: not used yet). */
  readonly ops = new Map<string, { hr: number; doc: Json | null } | undefined>();
}

function guidText(g: string): string {
  return g.replace(/^\{|\}$/g, '').toUpperCase();
}

/**
 * How a handle-taking flat call sees a handle argument: the ID the handle was opened on. An
 * unknown handle name is a test bug (the DLL side would pass NULL): thrown.
 */
function idOfHandle(a: Arg | undefined, vars: Vars): string {
  if (a !== null && typeof a === 'object' && 'h' in a) {
    const id = vars.handles.get(a.h);
    if (id === undefined) throw new Error(`no handle named ${a.h}`);
    return id;
  }
  throw new Error(`a handle-free model of ${JSON.stringify(a)} is not defined (a DLL-only case)`);
}

function guidArg(a: Arg | undefined, vars: Vars): string | null {
  if (a === null || a === undefined) return null;
  if (typeof a === 'object' && 'zero' in a) return null;
  if (typeof a === 'object' && 'guid' in a) return guidText(a.guid);
  if (typeof a === 'object' && 'guidOf' in a) {
    const g = vars.guids.get(a.guidOf);
    if (g === undefined) throw new Error(`no GUID named ${a.guidOf}`);
    return g;
  }
  throw new Error(`not a GUID argument: ${JSON.stringify(a)}`);
}

/** A string argument with %{name} replaced, as hcncall.c does. */
function str(a: Arg | undefined, vars: Vars): string | null {
  if (a === null || a === undefined) return null;
  if (typeof a !== 'string') throw new Error(`not a string argument: ${JSON.stringify(a)}`);
  return a.replace(/%\{([^}]*)\}/g, (_, name: string) => {
    const g = vars.guids.get(name);
    if (g === undefined) throw new Error(`no GUID named ${name}`);
    return g;
  });
}

/**
 * The ID a result names, as hcncall.c finds it (`&name`): the first "ID":"…" in the document's
 * text, else the first "Id":"…", else the first GUID anywhere (an enumeration's first element).
 */
function firstId(v: Json): string | undefined {
  const text = JSON.stringify(v);
  const GUID = '[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}';
  const m =
    new RegExp(`"ID":"\\{?(${GUID})\\}?"`).exec(text) ??
    new RegExp(`"Id":"\\{?(${GUID})\\}?"`).exec(text) ??
    new RegExp(`(${GUID})`).exec(text);
  return m ? m[1]!.toUpperCase() : undefined;
}

function asJson(v: unknown): Json {
  return JSON.parse(JSON.stringify(v ?? null)) as Json;
}

function fromResult(r: HcnResult<unknown>, opts: { result: boolean; handle: 'set' | 'none' }): Expected {
  if (r.ok) {
    return {
      hr: 0,
      result: opts.result ? asJson(r.result) : null,
      record: null,
      handle: opts.handle,
    };
  }
  return {
    hr: r.hr >>> 0,
    result: null,
    record: asJson(r.errorRecord),
    handle: opts.handle === 'set' ? 'null' : 'none',
    name: r.name,
  };
}

/**
 * Run one step on the flat API, as the DLL must have run it; updates `vars` as hcncall.exe does.
 * `hcsRecord` turns a flat Hcs* failure into the record vmcompute.dll writes (its result document).
 */
export function flatStep(
  api: FlatApi,
  s: Step,
  vars: Vars,
  hcsRecord: (f: Extract<HcnResult<unknown>, { ok: false }>) => Json = (f) => asJson(f.errorRecord),
): Expected {
  const a = s.args;
  let e: Expected;
  let handleId: string | undefined;
  const m = HCN_OP.exec(s.fn);
  const call = (name: string, ...args: unknown[]): HcnResult<unknown> => {
    const f = (api as unknown as Record<string, (...x: unknown[]) => HcnResult<unknown>>)[name];
    if (typeof f !== 'function') throw new Error(`the flat API has no ${name}`);
    return f.apply(api, args);
  };
  if (m) {
    const [, op, kind, suffix] = m;
    const plural = kind === 'SdnRoute' ? 'SdnRoutes' : `${kind}s`;
    switch (op) {
      case 'Enumerate': {
        const r = call(`HcnEnumerate${plural}`, str(a[0], vars));
        e = fromResult(r, { result: true, handle: 'none' });
        break;
      }
      case 'Create': {
        const r =
          kind === 'Endpoint'
            ? call('HcnCreateEndpoint', idOfHandle(a[0], vars), guidArg(a[1], vars), str(a[2], vars))
            : call(`HcnCreate${kind}`, guidArg(a[0], vars), str(a[1], vars));
        e = fromResult(r, { result: false, handle: 'set' });
        if (r.ok) handleId = firstId(asJson(r.result));
        break;
      }
      case 'Open': {
        const id = guidArg(a[0], vars);
        const r = call(`HcnQuery${kind}Properties`, id, '');
        e = fromResult(r, { result: false, handle: 'set' });
        if (r.ok) handleId = firstId(asJson(r.result));
        break;
      }
      case 'Query': {
        const name = suffix === 'Stats' ? `HcnQuery${kind}Stats` : `HcnQuery${kind}Properties`;
        const r = call(name, idOfHandle(a[0], vars), str(a[1], vars));
        e = fromResult(r, { result: true, handle: 'none' });
        break;
      }
      case 'Modify':
        e = fromResult(call(`HcnModify${kind}`, idOfHandle(a[0], vars), str(a[1], vars)), {
          result: false,
          handle: 'none',
        });
        break;
      case 'Delete':
        e = fromResult(call(`HcnDelete${kind}`, guidArg(a[0], vars)), { result: false, handle: 'none' });
        break;
      default: // Close
        idOfHandle(a[0], vars);
        vars.handles.delete((a[0] as { h: string }).h);
        e = { hr: 0, result: null, record: null, handle: 'none' };
    }
  } else if (s.fn === 'HNSCall') {
    const r = call('HNSCall', str(a[0], vars), str(a[1], vars), str(a[2], vars));
    e = fromResult(r, { result: true, handle: 'none' });
    // HNSCall has no error record: a failed call's response is checked by the caller
    if (!r.ok) e = { ...e, record: null };
  } else if (s.fn === 'HcsCreateComputeSystem') {
    const id = str(a[0], vars);
    const r = call('HcsCreateComputeSystem', id, str(a[1], vars));
    e = hcsExpected(r, false, 'set', hcsRecord);
    if (r.ok && id !== null) handleId = id;
  } else if (s.fn === 'HcsOpenComputeSystem') {
    const id = str(a[0], vars);
    const r = call('HcsGetComputeSystemProperties', id, '');
    e = hcsExpected(r, false, 'set', hcsRecord);
    if (r.ok && id !== null) handleId = id;
  } else if (HCS_STEPS.has(s.fn)) {
    e = hcsExpected(call(s.fn, idOfHandle(a[0], vars), str(a[1], vars)), false, 'none', hcsRecord);
  } else if (s.fn === 'HcsGetComputeSystemProperties') {
    e = hcsExpected(call(s.fn, idOfHandle(a[0], vars), str(a[1], vars)), true, 'none', hcsRecord);
  } else if (s.fn === 'HcsEnumerateComputeSystems') {
    e = hcsExpected(call(s.fn, str(a[0], vars)), true, 'none', hcsRecord);
  } else if (s.fn === 'HcsCloseComputeSystem') {
    // the flat close is the close of the system's last handle (docs/api.md): one of two handles
    // closes without a word to HCS; the caller's handle is closed whatever HCS answers
    const id = idOfHandle(a[0], vars);
    const name = (a[0] as { h: string }).h;
    vars.handles.delete(name);
    const others = [...vars.handles.values()].filter((x) => x.toLowerCase() === id.toLowerCase());
    if (!others.length) call(s.fn, id);
    e = { hr: 0, result: null, record: null, handle: 'none' };
  } else if (s.fn.startsWith('cc:')) {
    e = computecoreStep(s, vars, call, hcsRecord);
    if (s.fn === 'cc:HcsCreateComputeSystem' || s.fn === 'cc:HcsOpenComputeSystem') {
      const id = str(a[0], vars);
      if (e.hr === 0 && id !== null) handleId = id;
    }
  } else {
    throw new Error(`no flat model for ${s.fn}: a DLL-only step`);
  }
  if (s.out) {
    if (handleId !== undefined) vars.handles.set(s.out, handleId);
    const g = m && (m[2] === 'Endpoint' && m[1] === 'Create' ? a[1] : a[0]);
    if (g && typeof g === 'object' && ('guid' in g || 'guidOf' in g) && e.hr === 0) {
      vars.guids.set(s.out, guidArg(g, vars)!);
    }
  }
  const resultId = e.result !== null ? firstId(e.result) : undefined;
  if (s.id && resultId !== undefined) vars.guids.set(s.id, resultId);
  return e;
}

/**
 * computecore.dll (HCS v2): a call takes an operation and returns S_OK once the work started; the
 * operation carries the outcome (HcsWaitForOperationResult: its HRESULT, and the properties or
 * enumeration document, or the ResultError of a failure). The simulator answers at once, so the
 * outcome is there when the call returns. HcsCreateComputeSystem also returns its failure (no
 * handle is handed out for an ID it did not create); HcsOpenComputeSystem has no operation.
 */
function computecoreStep(
  s: Step,
  vars: Vars,
  call: (name: string, ...args: unknown[]) => HcnResult<unknown>,
  hcsRecord: (f: Extract<HcnResult<unknown>, { ok: false }>) => Json,
): Expected {
  const a = s.args;
  const none: Expected = { hr: 0, result: null, record: null, handle: 'none' };
  const opName = (x: Arg | undefined): string => {
    if (x === null || typeof x !== 'object' || !('h' in x) || !vars.ops.has(x.h))
      throw new Error(`not an operation: ${JSON.stringify(x)}`);
    if (vars.ops.get(x.h) !== undefined) throw new Error(`operation ${x.h} used twice (a DLL-only case)`);
    return x.h;
  };
  const complete = (op: string, r: HcnResult<unknown>, keepDoc: boolean): void => {
    vars.ops.set(op, {
      hr: r.hr >>> 0,
      doc: r.ok ? (keepDoc ? asJson(r.result) : null) : hcsRecord(r),
    });
  };
  switch (s.fn) {
    case 'cc:HcsCreateOperation':
      if (s.out) vars.ops.set(s.out, undefined);
      return { ...none, handle: 'set' };
    case 'cc:HcsCloseOperation':
      return none;
    case 'cc:HcsWaitForOperationResult': {
      const x = a[0] as { h: string };
      const o = vars.ops.get(x.h);
      if (o === undefined) throw new Error(`operation ${x.h} not used yet`);
      return { hr: o.hr, result: o.doc, record: null, handle: 'none' };
    }
    case 'cc:HcsCreateComputeSystem': {
      const op = opName(a[2]);
      const r = call('HcsCreateComputeSystem', str(a[0], vars), str(a[1], vars));
      complete(op, r, false);
      return { hr: r.hr >>> 0, result: null, record: null, handle: r.ok ? 'set' : 'null' };
    }
    case 'cc:HcsOpenComputeSystem': {
      const r = call('HcsGetComputeSystemProperties', str(a[0], vars), '');
      return { hr: r.hr >>> 0, result: null, record: null, handle: r.ok ? 'set' : 'null' };
    }
    case 'cc:HcsEnumerateComputeSystems': {
      complete(opName(a[1]), call('HcsEnumerateComputeSystems', str(a[0], vars)), true);
      return none;
    }
    case 'cc:HcsCloseComputeSystem': {
      const id = idOfHandle(a[0], vars);
      vars.handles.delete((a[0] as { h: string }).h);
      const others = [...vars.handles.values()].filter((x) => x.toLowerCase() === id.toLowerCase());
      if (!others.length) call('HcsCloseComputeSystem', id);
      return none;
    }
    default: {
      // cc:HcsStartComputeSystem(system, operation, options) and its siblings
      const flat = s.fn === 'cc:HcsShutDownComputeSystem' ? 'HcsShutdownComputeSystem' : s.fn.slice(3);
      const id = idOfHandle(a[0], vars);
      const op = opName(a[1]);
      complete(op, call(flat, id, str(a[2], vars)), flat === 'HcsGetComputeSystemProperties');
      return none;
    }
  }
}

function hcsExpected(
  r: HcnResult<unknown>,
  result: boolean,
  handle: 'set' | 'none',
  hcsRecord: (f: Extract<HcnResult<unknown>, { ok: false }>) => Json,
): Expected {
  const e = fromResult(r, { result, handle });
  return r.ok ? e : { ...e, record: hcsRecord(r) };
}

/** Run a table on the flat API. */
export function flatExpect(
  api: FlatApi,
  steps: readonly Step[],
  hcsRecord?: (f: Extract<HcnResult<unknown>, { ok: false }>) => Json,
): Expected[] {
  const vars = new Vars();
  return steps.map((s) => flatStep(api, s, vars, hcsRecord));
}

/** A DLL call's output in the shape of Expected (strings parsed), for a deep comparison. */
export function observed(o: CallOutput): Expected & { raw: CallOutput } {
  const parse = (s: string | null): Json | null => (s === null || s === '' ? null : (JSON.parse(s) as Json));
  return {
    hr: o.hr >>> 0,
    result: parse(o.result),
    record: parse(o.record),
    handle: o.handle === null ? 'none' : o.handle === 0 ? 'null' : 'set',
    raw: o,
  };
}

/** `0x803B0001`: for messages. */
export function hex(hr: number): string {
  return `0x${(hr >>> 0).toString(16).toUpperCase().padStart(8, '0')}`;
}
