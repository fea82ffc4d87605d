/**
 * vitest matchers over the dataplane (src/dataplane/trace.ts): does a packet get there, and which
 * rule stops it. A trace request names a source and a target — an endpoint (name or ID), a
 * container, a pod (`ns/name`), a node, `host`, a service (`svc:ns/name`), a DNS name or an
 * address — and a trace ends in a disposition; a denial names the rule behind it (`RuleRef`: the
 * HNS object and policy, the ACL's `Id`, the VFP rule name as `vfpctrl /list-rule` prints it).
 *
 *   expect(packetsFrom(cluster, 'default/client')).toReach('svc:default/web', { port: 80 });
 *   expect(packetsFrom(host, 'client').to('web', { port: 81 })).toBeDeniedBy('default-deny');
 *   expect(host.trace({ from: 'client', to: 'web' })).toBeDeniedBy({ policy: 'ACL', ruleId: 'deny-80' });
 */
import type { Disposition, Observation, RuleRef } from '../vswitch/contracts.js';
import type { TraceRequest, TraceResult } from '../dataplane/trace.js';

/** What can trace: a host, a cluster, or anything with their `trace`. */
export interface TraceScopeLike {
  trace(request: TraceRequest): TraceResult;
}

/** The packet's shape, beyond where it starts and where it goes. */
export interface FlowOptions {
  /** `TCP` (default), `UDP`, `ICMP` or a protocol number. */
  readonly protocol?: string | number;
  /** The destination port (default: the service's port for a service, else 80). */
  readonly port?: number;
  readonly sourcePort?: number;
  /** `toReach`: the reply must come back too. */
  readonly reply?: boolean;
  /**
   * `toReach`: also count a packet that leaves the modelled network towards the target
   * (`ExitsNetwork`) as reaching it (default true: an outside address is reached by leaving).
   */
  readonly exits?: boolean;
}

/** A source on a host or cluster, for `toReach(target)`. */
export class PacketsFrom {
  constructor(
    readonly scope: TraceScopeLike,
    readonly from: string,
  ) {}

  /** The flow to one target, for `toReach()` and `toBeDeniedBy(rule)`. */
  to(target: string, options: FlowOptions = {}): Flow {
    return new Flow(this.scope, this.from, target, options);
  }

  toString(): string {
    return `packets from ${this.from}`;
  }
}

/** One flow: a source, a target and the packet's shape; traced when a matcher asks. */
export class Flow {
  constructor(
    readonly scope: TraceScopeLike,
    readonly from: string,
    readonly target: string,
    readonly options: FlowOptions = {},
  ) {}

  request(): TraceRequest {
    const o = this.options;
    return {
      from: this.from,
      to: this.target,
      ...(o.protocol !== undefined ? { protocol: o.protocol } : {}),
      ...(o.port !== undefined ? { destinationPort: o.port } : {}),
      ...(o.sourcePort !== undefined ? { sourcePort: o.sourcePort } : {}),
      ...(o.reply ? { reply: true } : {}),
    };
  }

  trace(): TraceResult {
    return this.scope.trace(this.request());
  }
}

/** Packets from `from` on a host or a cluster: `expect(packetsFrom(host, 'client')).toReach('web')`. */
export function packetsFrom(scope: TraceScopeLike, from: string): PacketsFrom {
  return new PacketsFrom(scope, from);
}

/** A rule as `toBeDeniedBy` takes it: an ACL `Id`, a VFP rule name or a policy Type; a RegExp on the first two; or fields of a `RuleRef`. */
export type RuleMatcher = string | RegExp | Partial<RuleRef>;

export interface MatcherResult {
  pass: boolean;
  message: () => string;
}

function isTraceResult(x: unknown): x is TraceResult {
  return typeof x === 'object' && x !== null && 'disposition' in x && 'observations' in x && 'request' in x;
}

const REACHED: readonly Disposition[] = ['Delivered'];

function reached(r: TraceResult, exits: boolean): boolean {
  return REACHED.includes(r.disposition) || (exits && r.disposition === 'ExitsNetwork');
}

function describeRule(rule: RuleRef | undefined): string {
  if (!rule) return 'no rule';
  const owner = rule.name ? `${rule.kind} ${rule.name}` : `${rule.kind} ${rule.id}`;
  const which = rule.ruleId ?? rule.rule;
  return `${rule.policy ?? 'rule'}${which ? ` ${which}` : ''} on ${owner}${rule.layer ? ` (${rule.layer})` : ''}`;
}

/** The step that decided a denial: the last `Denied` observation. */
function denial(r: TraceResult): Observation | undefined {
  return [...r.observations].reverse().find((o) => o.action === 'Denied');
}

/** One line on how a trace ended: disposition, where, and the denying rule or the detail. */
function describeTrace(r: TraceResult): string {
  const d = denial(r);
  const where = r.at ? ` at ${r.at}` : ` on ${r.host}`;
  const why = d ? `, denied by ${describeRule(d.rule)}` : r.detail ? ` (${r.detail})` : '';
  return `${r.disposition}${where}${why}`;
}

function requestText(r: TraceResult['request']): string {
  const proto =
    r.protocol === 6 ? 'TCP' : r.protocol === 17 ? 'UDP' : r.protocol === 1 ? 'ICMP' : String(r.protocol);
  const port = r.destinationPort ? `:${r.destinationPort}` : '';
  return `${r.from} → ${r.to}${port}/${proto}`;
}

function ruleMatches(rule: RuleRef | undefined, want: RuleMatcher): boolean {
  if (!rule) return false;
  if (typeof want === 'string') return rule.ruleId === want || rule.rule === want || rule.policy === want;
  if (want instanceof RegExp) return [rule.ruleId, rule.rule].some((x) => x !== undefined && want.test(x));
  return Object.entries(want).every(([k, v]) => {
    const got = (rule as unknown as Record<string, unknown>)[k];
    return typeof v === 'string' && typeof got === 'string' && (k === 'id' || k === 'name')
      ? got.toLowerCase() === v.toLowerCase()
      : got === v;
  });
}

function ruleText(want: RuleMatcher): string {
  return typeof want === 'string' || want instanceof RegExp ? String(want) : JSON.stringify(want);
}

/** The trace a subject stands for (a result, or a flow traced now), or an error message. */
function traceOf(
  received: unknown,
  target: string | undefined,
  options: FlowOptions | undefined,
  name: string,
): TraceResult | string {
  if (isTraceResult(received)) {
    if (target !== undefined && received.request.to !== target && !(received.at ?? '').includes(target))
      return `${name}: the trace went to ${received.request.to}, not ${target}`;
    return received;
  }
  if (received instanceof Flow) return received.trace();
  if (received instanceof PacketsFrom) {
    if (target === undefined) return `${name}: packetsFrom(…) needs a target: toReach(target)`;
    return received.to(target, options).trace();
  }
  return `${name}: expected a trace result, packetsFrom(scope, source) or packetsFrom(…).to(target), got ${typeof received}`;
}

/** vitest (or jest) matchers on the dataplane: `expect.extend(flowMatchers)` (hnsimMatchers has them too). */
export const flowMatchers = {
  /**
   * The packet is delivered to `target` (and, with `reply`, its reply comes back). The subject is
   * `packetsFrom(scope, source)` (then `target` is needed), a `Flow`, or a `TraceResult`.
   */
  toReach(received: unknown, target?: string, options?: FlowOptions): MatcherResult {
    const t = traceOf(received, target, options, 'toReach');
    if (typeof t === 'string') return { pass: false, message: () => t };
    const exits = (received instanceof Flow ? received.options.exits : options?.exits) ?? true;
    const wantReply = (received instanceof Flow ? received.options.reply : options?.reply) ?? false;
    const there = reached(t, exits);
    const back = !wantReply || (t.reply !== undefined && reached(t.reply, true));
    const pass = there && back;
    const what = requestText(t.request);
    return {
      pass,
      message: () =>
        pass
          ? `expected ${what} not to get there, and it did: ${describeTrace(t)}`
          : !there
            ? `expected ${what} to get there; it ended ${describeTrace(t)}`
            : `expected the reply of ${what} to come back; ${t.reply ? `it ended ${describeTrace(t.reply)}` : 'there was none'}`,
    };
  },

  /**
   * The packet is denied (DeniedIn / DeniedOut) and the rule that denied it matches `rule`: an
   * ACL `Id`, a VFP rule name (`default-deny`) or a policy Type (`ACL`, `NetworkACL`, `TierAcl`), a
   * RegExp on the Id or rule name, or fields of the `RuleRef` (`{ policy: 'ACL', id: epId }`).
   */
  toBeDeniedBy(received: unknown, rule: RuleMatcher): MatcherResult {
    const t = traceOf(received, undefined, undefined, 'toBeDeniedBy');
    if (typeof t === 'string') return { pass: false, message: () => t };
    const d = denial(t);
    const denied = t.disposition === 'DeniedIn' || t.disposition === 'DeniedOut';
    const pass = denied && ruleMatches(d?.rule, rule);
    const what = requestText(t.request);
    return {
      pass,
      message: () =>
        pass
          ? `expected ${what} not to be denied by ${ruleText(rule)}, and it was: ${describeTrace(t)}`
          : denied
            ? `expected ${what} to be denied by ${ruleText(rule)}; it was denied by ${describeRule(d?.rule)}`
            : `expected ${what} to be denied by ${ruleText(rule)}; it ended ${describeTrace(t)}`,
    };
  },
};
