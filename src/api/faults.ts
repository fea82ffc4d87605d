/**
 * Fault and timing injection as transport middleware (STYLE.md: smoltcp's fault_injector). Rules
 * match calls — by a predicate, or declaratively by method, object ID, object name or v1 path — and
 * either fail them with a chosen HRESULT (the service is never reached, so nothing changes), delay
 * them on the simulated clock (the effect happens when the delay ends), or hang them until released.
 * Rules apply in the order added; a rule can be limited to its first N matches. A call still held
 * when the HNS service restarts fails with RPC_S_CALL_FAILED when it is let go, as a call cut off by
 * a crashing service does (an Hcs* call goes to vmcompute, which the HNS restart does not touch).
 *
 *   const f = new FaultInjector(transport, clock);
 *   f.fail({ method: 'HcnCreateEndpoint' }, 'HCN_E_ADDR_INVALID_OR_RESERVED', { times: 1 });
 *   f.fail((c) => c.method === 'HNSCall', 0x800706ba);          // any failing HRESULT, by number
 *   const gate = f.hang({ name: 'cbr0' });  … gate.held … gate.release();
 *   f.delay({ method: 'HcsStartComputeSystem', id: 'c1' }, 500);    // compute systems by ID too
 *
 * The same rules are reachable over JSON-RPC (FaultFail, FaultDelay, FaultHang, FaultRelease,
 * FaultList, FaultRemove, FaultClear; src/api/rpc.ts) so tests in any language can drive them.
 */
import type { Clock } from '../core/clock.js';
import { HRESULTS, HnsError, isFailureCode, type HResultName } from '../core/errors.js';
import { parseGuid } from '../core/guid.js';
import { isJsonObject, type Json } from '../core/json.js';
import { failureOf, type HcnResult } from './flat.js';
import type { HnsCall, HnsTransport } from './transport.js';

export type CallPredicate = (call: HnsCall) => boolean;

/**
 * A declarative call matcher (every given field must match):
 * - `method`: a flat API function name, or several; `*` at the end matches a prefix (`HcnCreate*`);
 * - `id`: a GUID that is one of the call's arguments, or in an HNSCall path (any case, braces ok);
 *   or the compute system an Hcs* call names (its ID, any case: compute system IDs need not be
 *   GUIDs, so any non-empty string of at most 255 characters is taken);
 * - `name`: the `Name` of the document a create sends, or the name of the object an argument or
 *   path names, or of the compute system an Hcs* call names (looked up through the injector's
 *   resolver);
 * - `path`: for HNSCall, a prefix of the path, case-insensitive (`/endpoints/`);
 * - `httpMethod`: for HNSCall, GET, POST or DELETE.
 */
export interface CallMatcher {
  readonly method?: string | readonly string[];
  readonly id?: string;
  readonly name?: string;
  readonly path?: string;
  readonly httpMethod?: string;
}

/** The fields of a CallMatcher. */
export const MATCHER_KEYS = [
  'method',
  'id',
  'name',
  'path',
  'httpMethod',
] as const satisfies readonly (keyof CallMatcher)[];

/** Looks up the name of the HNS object (networks, endpoints, …) or compute system with an ID, if any. */
export type NameResolver = (id: string) => string | undefined;

interface RuleBase {
  readonly id: number;
  readonly match: CallPredicate;
  readonly description: string;
  remaining: number;
  hits: number;
}
type Rule =
  | (RuleBase & { readonly kind: 'fail'; readonly code: HResultName | number; readonly detail?: string })
  | (RuleBase & { readonly kind: 'delay'; readonly ms: number })
  | (RuleBase & { readonly kind: 'hang'; readonly gate: Gate });

export interface RuleOptions {
  /** Apply to the first N matching calls only (default: every match). */
  readonly times?: number;
}

export interface RuleHandle {
  /** The rule's number (what FaultRelease and FaultRemove take over JSON-RPC). */
  readonly id: number;
  /** How many calls this rule has matched so far. */
  readonly hits: number;
  remove(): void;
}

/** A call a hang rule holds. */
export interface HeldCall {
  /** Arrival order among all held calls of the injector. */
  readonly seq: number;
  readonly call: HnsCall;
}

/** A hang rule's gate: calls caught by it wait until `release()`. */
export class Gate implements RuleHandle {
  private waiters: { readonly held: HeldCall; readonly resume: () => void }[] = [];
  private open = false;
  hitCount = 0;

  constructor(
    readonly id: number,
    private readonly onRemove: () => void,
  ) {}

  get hits(): number {
    return this.hitCount;
  }

  /** How many calls are held now. */
  get held(): number {
    return this.waiters.length;
  }

  /** The calls held now, oldest first. */
  heldCalls(): HeldCall[] {
    return this.waiters.map((w) => w.held);
  }

  wait(held: HeldCall): Promise<void> {
    if (this.open) return Promise.resolve();
    return new Promise((resume) => this.waiters.push({ held, resume }));
  }

  /** Let every held call (and, with `stayOpen`, every later one) through, in arrival order. */
  release(stayOpen = false): number {
    this.open = stayOpen;
    const w = this.waiters;
    this.waiters = [];
    for (const x of w) x.resume();
    return w.length;
  }

  /** Let the oldest held call through. */
  releaseOne(): boolean {
    const w = this.waiters.shift();
    w?.resume();
    return w !== undefined;
  }

  /** Remove the rule; calls it holds are let through. */
  remove(): void {
    this.onRemove();
    this.release(true);
  }
}

/** A rule as data (FaultList). */
export interface RuleInfo {
  readonly rule: number;
  readonly kind: 'fail' | 'delay' | 'hang';
  readonly match: string;
  readonly hresult?: number;
  readonly name?: string;
  readonly ms?: number;
  /** Matches left (null: unlimited). */
  readonly remaining: number | null;
  readonly hits: number;
  /** hang: the calls held now. */
  readonly held?: number;
}

/** Codes that mean the call never reached a service: no ErrorRecord comes back with them. */
export const TRANSPORT_FAILURES: ReadonlySet<string> = new Set([
  'RPC_S_SERVER_UNAVAILABLE',
  'RPC_S_CALL_FAILED',
  'RPC_S_UNKNOWN_IF',
  'EPT_S_NOT_REGISTERED',
]);

function describeMatcher(m: CallMatcher): string {
  const parts: string[] = [];
  if (m.method !== undefined) parts.push(`method=${[m.method].flat().join('|')}`);
  if (m.httpMethod !== undefined) parts.push(`httpMethod=${m.httpMethod}`);
  if (m.path !== undefined) parts.push(`path=${m.path}`);
  if (m.id !== undefined) parts.push(`id=${m.id}`);
  if (m.name !== undefined) parts.push(`name=${m.name}`);
  return parts.length ? parts.join(' ') : 'every call';
}

/** The GUIDs a call names: string arguments that are GUIDs, and GUID segments of an HNSCall path. */
function guidsOf(call: HnsCall): string[] {
  const out: string[] = [];
  const args = call.method === 'HNSCall' ? [] : call.args;
  for (const a of args) {
    if (typeof a !== 'string') continue;
    const g = parseGuid(a);
    if (g) out.push(g);
  }
  if (call.method === 'HNSCall' && typeof call.args[1] === 'string') {
    for (const seg of call.args[1].split('/')) {
      const g = parseGuid(seg);
      if (g) out.push(g);
    }
  }
  return out;
}

/** The compute system an Hcs* call names: its first argument (HcsEnumerateComputeSystems names none). */
function systemIdOf(call: HnsCall): string | undefined {
  if (!call.method.startsWith('Hcs') || call.method === 'HcsEnumerateComputeSystems') return undefined;
  const a = call.args[0];
  return typeof a === 'string' && a !== '' ? a : undefined;
}

/** The `Name` of a settings document a call carries (string JSON or object), if any. */
function documentName(call: HnsCall): string | undefined {
  for (const a of call.method === 'HNSCall' ? call.args.slice(2) : call.args) {
    let doc: unknown = a;
    if (typeof a === 'string' && a.trimStart().startsWith('{')) {
      try {
        doc = JSON.parse(a);
      } catch {
        continue;
      }
    }
    if (isJsonObject(doc as Json) && typeof (doc as { Name?: unknown }).Name === 'string') {
      return (doc as { Name: string }).Name;
    }
  }
  return undefined;
}

function methodMatches(pattern: string, method: string): boolean {
  return pattern.endsWith('*') ? method.startsWith(pattern.slice(0, -1)) : pattern === method;
}

/** Compile a matcher; bad fields throw E_INVALIDARG naming them. */
export function compileMatcher(m: CallMatcher, resolve: NameResolver = () => undefined): CallPredicate {
  if (!isJsonObject(m as unknown as Json))
    throw new HnsError('E_INVALIDARG', 'a call matcher must be an object');
  for (const k of Object.keys(m)) {
    if (!(MATCHER_KEYS as readonly string[]).includes(k)) {
      throw new HnsError('E_INVALIDARG', `unknown matcher field "${k}" (${MATCHER_KEYS.join(', ')})`);
    }
  }
  const methods = m.method === undefined ? undefined : [m.method].flat();
  if (methods && (!methods.length || methods.some((x) => typeof x !== 'string' || x === ''))) {
    throw new HnsError('E_INVALIDARG', 'matcher method must be a method name or a list of them');
  }
  let id: string | undefined;
  let systemId: string | undefined;
  if (m.id !== undefined) {
    if (typeof m.id !== 'string' || m.id === '' || m.id.length > 255)
      throw new HnsError(
        'E_INVALIDARG',
        `matcher id ${JSON.stringify(m.id)} is neither a GUID nor a compute system ID (1–255 characters)`,
      );
    id = parseGuid(m.id);
    systemId = m.id.toLowerCase();
  }
  for (const k of ['name', 'path', 'httpMethod'] as const) {
    if (m[k] !== undefined && typeof m[k] !== 'string') {
      throw new HnsError('E_INVALIDARG', `matcher ${k} must be a string`);
    }
  }
  const path = m.path?.toLowerCase();
  const httpMethod = m.httpMethod?.toUpperCase();
  return (call) => {
    if (methods && !methods.some((p) => methodMatches(p, call.method))) return false;
    if (path !== undefined || httpMethod !== undefined) {
      if (call.method !== 'HNSCall') return false;
      if (httpMethod !== undefined && String(call.args[0]).toUpperCase() !== httpMethod) return false;
      if (path !== undefined && !String(call.args[1]).toLowerCase().startsWith(path)) return false;
    }
    const system = systemIdOf(call);
    if (systemId !== undefined) {
      const named =
        (id !== undefined && guidsOf(call).includes(id)) ||
        (system !== undefined && system.toLowerCase() === systemId);
      if (!named) return false;
    }
    if (m.name !== undefined) {
      const named =
        documentName(call) === m.name ||
        guidsOf(call).some((g) => resolve(g) === m.name) ||
        (system !== undefined && resolve(system) === m.name);
      if (!named) return false;
    }
    return true;
  };
}

/** An HRESULT given by registered name or by number (a decimal or `0x…` string also works). */
export function readHResult(v: unknown): HResultName | number {
  if (typeof v === 'string' && v in HRESULTS) return v as HResultName;
  const n =
    typeof v === 'number'
      ? v
      : typeof v === 'string' && /^(0x[0-9a-f]{1,8}|-?\d+)$/i.test(v)
        ? Number(v)
        : NaN;
  if (!isFailureCode(n)) {
    throw new HnsError(
      'E_INVALIDARG',
      `${JSON.stringify(v)} is neither a registered HRESULT name nor a failing HRESULT (0x80000000..0xFFFFFFFF)`,
    );
  }
  return n >>> 0;
}

export class FaultInjector implements HnsTransport {
  private rules: Rule[] = [];
  private seq = 0;
  private heldSeq = 0;

  constructor(
    private readonly inner: HnsTransport,
    private readonly clock: Clock,
    private readonly resolve: NameResolver = () => undefined,
    /** The HNS service's restart count: a call held across a restart fails with RPC_S_CALL_FAILED. */
    private readonly epoch: () => number = () => 0,
  ) {}

  /** What every rule has: its number, compiled matcher, description and match budget (checked first). */
  private base(match: CallPredicate | CallMatcher, opts: RuleOptions): RuleBase {
    const compiled =
      typeof match === 'function'
        ? { fn: match, description: 'predicate' }
        : { fn: compileMatcher(match, this.resolve), description: describeMatcher(match) };
    const t = opts.times;
    if (t !== undefined && (!Number.isInteger(t) || t < 1))
      throw new HnsError('E_INVALIDARG', `times must be a positive integer, got ${String(t)}`);
    return {
      id: ++this.seq,
      match: compiled.fn,
      description: compiled.description,
      remaining: t ?? Infinity,
      hits: 0,
    };
  }

  private add(rule: Rule): RuleHandle {
    this.rules.push(rule);
    return {
      id: rule.id,
      get hits() {
        return rule.hits;
      },
      remove: () => this.remove(rule.id),
    };
  }

  /** Remove a rule by number (a hang rule lets its held calls go). Unknown → false. */
  remove(id: number): boolean {
    const rule = this.rules.find((r) => r.id === id);
    if (!rule) return false;
    this.rules = this.rules.filter((r) => r.id !== id);
    if (rule.kind === 'hang') rule.gate.release(true);
    return true;
  }

  /** Fail matching calls with `code` (a registered name or any failing HRESULT), without reaching the service. */
  fail(
    match: CallPredicate | CallMatcher,
    code: HResultName | number,
    opts: RuleOptions & { detail?: string } = {},
  ): RuleHandle {
    const checked = readHResult(code);
    return this.add({
      ...this.base(match, opts),
      kind: 'fail',
      code: checked,
      ...(opts.detail ? { detail: opts.detail } : {}),
    });
  }

  /** Delay matching calls by `ms` of simulated time; the call takes effect when the delay ends. */
  delay(match: CallPredicate | CallMatcher, ms: number, opts: RuleOptions = {}): RuleHandle {
    if (!Number.isFinite(ms) || ms < 0)
      throw new HnsError('E_INVALIDARG', `delay ms must be ≥ 0, got ${String(ms)}`);
    return this.add({ ...this.base(match, opts), kind: 'delay', ms });
  }

  /** Hold matching calls until the returned gate is released. */
  hang(match: CallPredicate | CallMatcher, opts: RuleOptions = {}): Gate {
    const base = this.base(match, opts);
    const gate = new Gate(base.id, () => this.remove(base.id));
    this.rules.push({ ...base, kind: 'hang', gate });
    return gate;
  }

  /** The gate of a hang rule, by number. */
  gate(id: number): Gate | undefined {
    const r = this.rules.find((x) => x.id === id);
    return r?.kind === 'hang' ? r.gate : undefined;
  }

  /** Every held call, oldest first, with the rule holding it. */
  held(): (HeldCall & { readonly rule: number })[] {
    const out: (HeldCall & { rule: number })[] = [];
    for (const r of this.rules)
      if (r.kind === 'hang') for (const h of r.gate.heldCalls()) out.push({ ...h, rule: r.id });
    return out.sort((a, b) => a.seq - b.seq);
  }

  /** The rules as data, in the order they apply. */
  list(): RuleInfo[] {
    return this.rules.map((r) => {
      const base = {
        rule: r.id,
        kind: r.kind,
        match: r.description,
        remaining: Number.isFinite(r.remaining) ? r.remaining : null,
        hits: r.hits,
      };
      if (r.kind === 'fail') {
        const e = new HnsError(r.code);
        return { ...base, hresult: e.hresult, name: e.code };
      }
      if (r.kind === 'delay') return { ...base, ms: r.ms };
      return { ...base, held: r.gate.held };
    });
  }

  /** Remove every rule; held calls are let through. */
  clear(): void {
    const rules = this.rules;
    this.rules = [];
    for (const r of rules) if (r.kind === 'hang') r.gate.release(true);
  }

  async call(call: HnsCall): Promise<HcnResult<Json>> {
    const epoch = this.epoch();
    for (const rule of this.rules) {
      if (rule.remaining <= 0 || !rule.match(call)) continue;
      rule.remaining--;
      rule.hits++;
      if (rule.kind === 'fail') {
        return failureOf(new HnsError(rule.code, rule.detail ?? `injected fault on ${call.method}`));
      }
      if (rule.kind === 'delay') {
        await new Promise<void>((resolve) => this.clock.schedule(rule.ms, resolve));
      } else {
        rule.gate.hitCount++;
        await rule.gate.wait({ seq: ++this.heldSeq, call });
      }
    }
    if (this.epoch() !== epoch && !call.method.startsWith('Hcs')) {
      // HNS restarted while the call was on its way: the RPC was cut off (vmcompute answers Hcs* calls)
      return failureOf(
        new HnsError('RPC_S_CALL_FAILED', `${call.method} was in flight when the HNS service restarted`),
      );
    }
    return this.inner.call(call);
  }
}
