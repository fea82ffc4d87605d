/**
 * Fault and timing injection as transport middleware (issue: faults and timing). Rules match calls
 * by predicate and either fail them with a chosen HRESULT (the service is never reached, so nothing
 * changes), delay them on the simulated clock (the effect happens when the delay ends), or hang them
 * until released. Rules apply in the order added; a rule can be limited to its first N matches.
 *
 *   const f = new FaultInjector(transport, clock);
 *   f.fail((c) => c.method === 'HcnCreateEndpoint', 'HCN_E_ADDR_INVALID_OR_RESERVED', { times: 1 });
 *   const gate = f.hang((c) => c.method === 'HcnDeleteNetwork');  … gate.release();
 */
import type { Clock } from '../core/clock.js';
import { HRESULTS, HnsError, type HResultName } from '../core/errors.js';
import type { Json } from '../core/json.js';
import type { HcnResult } from './flat.js';
import type { HnsCall, HnsTransport } from './transport.js';

export type CallPredicate = (call: HnsCall) => boolean;

interface RuleBase {
  readonly id: number;
  readonly match: CallPredicate;
  remaining: number;
  hits: number;
}
type Rule =
  | (RuleBase & { readonly kind: 'fail'; readonly code: HResultName; readonly detail?: string })
  | (RuleBase & { readonly kind: 'delay'; readonly ms: number })
  | (RuleBase & { readonly kind: 'hang'; readonly gate: Gate });

export interface RuleOptions {
  /** Apply to the first N matching calls only (default: every match). */
  readonly times?: number;
}

export interface RuleHandle {
  /** How many calls this rule has matched so far. */
  readonly hits: number;
  remove(): void;
}

/** A hang rule's gate: calls caught by it wait until `release()`. */
export class Gate implements RuleHandle {
  private waiters: (() => void)[] = [];
  private open = false;
  hitCount = 0;

  constructor(private readonly onRemove: () => void) {}

  get hits(): number {
    return this.hitCount;
  }

  /** Calls currently held. */
  get held(): number {
    return this.waiters.length;
  }

  wait(): Promise<void> {
    if (this.open) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Let every held call (and, with `stayOpen`, every later one) through, in arrival order. */
  release(stayOpen = false): void {
    this.open = stayOpen;
    const w = this.waiters;
    this.waiters = [];
    for (const resolve of w) resolve();
  }

  /** Let the oldest held call through. */
  releaseOne(): boolean {
    const w = this.waiters.shift();
    w?.();
    return w !== undefined;
  }

  remove(): void {
    this.onRemove();
  }
}

export class FaultInjector implements HnsTransport {
  private rules: Rule[] = [];
  private seq = 0;

  constructor(
    private readonly inner: HnsTransport,
    private readonly clock: Clock,
  ) {}

  private add(rule: Rule): RuleHandle {
    this.rules.push(rule);
    return {
      get hits() {
        return rule.hits;
      },
      remove: () => this.removeRule(rule.id),
    };
  }

  private removeRule(id: number): void {
    this.rules = this.rules.filter((r) => r.id !== id);
  }

  /** Fail matching calls with `code`, without reaching the service. */
  fail(match: CallPredicate, code: HResultName, opts: RuleOptions & { detail?: string } = {}): RuleHandle {
    if (!(code in HRESULTS)) throw new HnsError('E_INVALIDARG', `unregistered HRESULT ${code}`);
    return this.add({
      id: ++this.seq,
      kind: 'fail',
      match,
      code,
      ...(opts.detail ? { detail: opts.detail } : {}),
      remaining: opts.times ?? Infinity,
      hits: 0,
    });
  }

  /** Delay matching calls by `ms` of simulated time; the call takes effect when the delay ends. */
  delay(match: CallPredicate, ms: number, opts: RuleOptions = {}): RuleHandle {
    return this.add({ id: ++this.seq, kind: 'delay', match, ms, remaining: opts.times ?? Infinity, hits: 0 });
  }

  /** Hold matching calls until the returned gate is released. */
  hang(match: CallPredicate, opts: RuleOptions = {}): Gate {
    const id = ++this.seq;
    const gate = new Gate(() => this.removeRule(id));
    this.rules.push({ id, kind: 'hang', match, gate, remaining: opts.times ?? Infinity, hits: 0 });
    return gate;
  }

  clear(): void {
    this.rules = [];
  }

  async call(call: HnsCall): Promise<HcnResult<Json>> {
    for (const rule of this.rules) {
      if (rule.remaining <= 0 || !rule.match(call)) continue;
      rule.remaining--;
      rule.hits++;
      if (rule.kind === 'fail') {
        const e = new HnsError(rule.code, rule.detail ?? `injected fault on ${call.method}`);
        return { ok: false, hr: e.hresult, name: e.code, message: e.message, errorRecord: e.errorRecord() };
      }
      if (rule.kind === 'delay') {
        await new Promise<void>((resolve) => this.clock.schedule(rule.ms, resolve));
      } else {
        rule.gate.hitCount++;
        await rule.gate.wait();
      }
    }
    return this.inner.call(call);
  }
}
