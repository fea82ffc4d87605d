/**
 * Fault schedules: a declarative list of what goes wrong on a node and when, applied on the fault
 * layer (src/api/faults.ts; docs/api.md "Faults and time") — the HNS service restarts, the host
 * reboots, vmcompute stops, an object is deleted out of band (as `hnsdiag delete` does: straight
 * to HNS, past every client), calls fail, are slow or hang, a container crashes. Each step fires at
 * a point: the Nth call (optionally of a method, or matching any fault-rule matcher) as it reaches
 * the fault layer, or a moment of simulated time.
 *
 *   const s = applyFaultSchedule(host, [
 *     { at: { method: 'HcnCreateEndpoint', call: 2 }, do: { fail: 'HCN_E_ADDR_INVALID_OR_RESERVED' } },
 *     { at: { method: 'HcnModifyNamespace' }, do: { hang: { releaseAfterMs: 500 } } },
 *     { at: { time: 1000 }, do: { restartHns: { downtimeMs: 200 } } },
 *     { at: { call: 5 }, do: { deleteOutOfBand: { kind: 'namespace', which: 'newest' } } },
 *   ]);
 *   …  s.fired  // what happened, when, at which call
 *
 * A schedule is JSON (a scenario file can carry one). Calls made directly on `host.api` do not
 * pass the fault layer and neither count nor are failed, exactly as fault rules do not see them.
 * An action that changes the node (restart, reboot, delete, crash) fires as the call arrives, before
 * it goes on: an HNS restart then cuts that call off (RPC_S_CALL_FAILED, docs/model.md "While HNS is
 * down"), the others happen just before it reaches the service.
 */
import fc from 'fast-check';
import type { CallMatcher } from '../api/faults.js';
import { compileMatcher, readHResult, type RuleHandle } from '../api/faults.js';
import type { HnsCall } from '../api/transport.js';
import type { HResultName } from '../core/errors.js';
import type { ExitType } from '../hcs/model.js';
import type { RestartPolicy } from '../hns/lifecycle.js';
import type { Host } from '../host/host.js';

/** When a step fires. With `time`, at that simulated time; else at the `call`-th matching call. */
export interface FaultPoint extends CallMatcher {
  /** The Nth call (1-based, default 1) that matches the rest of the point, counted from `apply`. */
  readonly call?: number;
  /** Simulated milliseconds since the host booted (`host.clock.now()`). */
  readonly time?: number;
}

/** Which object an out-of-band delete takes. */
export interface OutOfBandTarget {
  readonly kind: 'network' | 'endpoint' | 'namespace' | 'loadBalancer';
  /** By ID (any case) … */
  readonly id?: string;
  /** … or by Name (networks, endpoints) … */
  readonly name?: string;
  /** … or the newest or oldest of the kind (namespaces: never the HostDefault one; default newest). */
  readonly which?: 'newest' | 'oldest';
}

/** What a step does. Call faults (`fail`, `delay`, `hang`) act on matching calls from the point on. */
export type FaultAction =
  | { readonly fail: HResultName | number | string; readonly times?: number }
  | { readonly delay: number; readonly times?: number }
  | { readonly hang: true | { readonly releaseAfterMs: number }; readonly times?: number }
  | { readonly restartHns: true | (Partial<RestartPolicy> & { readonly downtimeMs?: number }) }
  | { readonly reboot: true | Partial<RestartPolicy> }
  | { readonly restartHcs: true }
  | { readonly deleteOutOfBand: OutOfBandTarget }
  | {
      readonly crash:
        string | { readonly id: string; readonly exitType?: ExitType; readonly status?: number };
    };

export interface FaultStep {
  readonly at: FaultPoint;
  readonly do: FaultAction | readonly FaultAction[];
  /** A name for the log (default `step <n>`). */
  readonly label?: string;
}

/** A step that fired: when, at which call, and what each action did. */
export interface FiredStep {
  readonly step: number;
  readonly label: string;
  readonly time: number;
  /** The call it fired at (absent for a time point). */
  readonly method?: string;
  /** One line per action (`restartHns`, `fail HCN_E_… ×1`, `deleteOutOfBand namespace <id>` …). */
  readonly did: readonly string[];
}

export interface FaultScheduleHandle {
  /** The steps that fired, in order. */
  readonly fired: readonly FiredStep[];
  /** Steps not fired yet (by index). */
  pending(): number[];
  /** Stop: no more steps fire; the call-fault rules the schedule added are removed (held calls go on). */
  remove(): void;
}

const FLAT_KINDS = {
  network: { list: 'HcnEnumerateNetworks', del: 'HcnDeleteNetwork' },
  endpoint: { list: 'HcnEnumerateEndpoints', del: 'HcnDeleteEndpoint' },
  namespace: { list: 'HcnEnumerateNamespaces', del: 'HcnDeleteNamespace' },
  loadBalancer: { list: 'HcnEnumerateLoadBalancers', del: 'HcnDeleteLoadBalancer' },
} as const;

const ACTION_KEYS = [
  'fail',
  'delay',
  'hang',
  'restartHns',
  'reboot',
  'restartHcs',
  'deleteOutOfBand',
  'crash',
];

function bad(message: string): never {
  throw new TypeError(`fault schedule: ${message}`);
}

/** Check a schedule's shape (it may come from a file): a TypeError naming the step and field. */
export function checkFaultSchedule(steps: unknown): readonly FaultStep[] {
  if (!Array.isArray(steps)) bad('must be an array of steps');
  steps.forEach((raw: unknown, i) => {
    const where = `step ${i + 1}`;
    if (typeof raw !== 'object' || raw === null) bad(`${where} must be an object {at, do}`);
    const s = raw as Record<string, unknown>;
    for (const k of Object.keys(s))
      if (!['at', 'do', 'label'].includes(k)) bad(`${where}: unknown field "${k}"`);
    const at = s['at'] as Record<string, unknown> | undefined;
    if (typeof at !== 'object' || at === null) bad(`${where}: "at" must be an object`);
    const { call, time, ...matcher } = at;
    if (time !== undefined && (typeof time !== 'number' || !(time >= 0)))
      bad(`${where}: at.time must be a number ≥ 0`);
    if (call !== undefined && (typeof call !== 'number' || !Number.isInteger(call) || call < 1))
      bad(`${where}: at.call must be an integer ≥ 1`);
    if (time !== undefined && call !== undefined) bad(`${where}: at has both time and call`);
    try {
      compileMatcher(matcher as CallMatcher);
    } catch (e) {
      bad(`${where}: at: ${e instanceof Error ? e.message : String(e)}`);
    }
    const actions = Array.isArray(s['do']) ? (s['do'] as unknown[]) : [s['do']];
    if (!actions.length) bad(`${where}: "do" is empty`);
    for (const a of actions) {
      if (typeof a !== 'object' || a === null) bad(`${where}: an action must be an object`);
      const keys = Object.keys(a).filter((k) => k !== 'times');
      if (keys.length !== 1 || !ACTION_KEYS.includes(keys[0]!))
        bad(`${where}: an action is one of ${ACTION_KEYS.join(', ')}, got {${Object.keys(a).join(', ')}}`);
      const act = a as Record<string, unknown>;
      if ('fail' in act) {
        try {
          readHResult(act['fail']);
        } catch (e) {
          bad(`${where}: fail: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      if ('delay' in act && (typeof act['delay'] !== 'number' || !(act['delay'] >= 0)))
        bad(`${where}: delay must be milliseconds ≥ 0`);
      if (
        'times' in act &&
        (typeof act['times'] !== 'number' || !Number.isInteger(act['times']) || act['times'] < 1)
      )
        bad(`${where}: times must be an integer ≥ 1`);
      if ('deleteOutOfBand' in act) {
        const t = act['deleteOutOfBand'] as Record<string, unknown> | null;
        if (typeof t !== 'object' || t === null || !(String(t['kind']) in FLAT_KINDS))
          bad(`${where}: deleteOutOfBand.kind is one of ${Object.keys(FLAT_KINDS).join(', ')}`);
      }
    }
  });
  return steps as FaultStep[];
}

/**
 * Apply a schedule to `host` from now on. Call points count the calls that reach the host's fault
 * layer (`host.transport`: typed clients, plugins, runtimes, JSON-RPC) after this; `fail`,
 * `delay` and `hang` become fault rules on `host.faults` that catch the call at the point and the
 * next `times - 1` matching ones (default 1). Rules the schedule adds come after the ones already
 * there.
 */
export function applyFaultSchedule(host: Host, schedule: readonly FaultStep[]): FaultScheduleHandle {
  const steps = checkFaultSchedule(schedule);
  const fired: FiredStep[] = [];
  const done = new Set<number>();
  const rules: RuleHandle[] = [];
  const timers: number[] = [];
  let stopped = false;

  const matchers = steps.map((s) => {
    const { call: _c, time: _t, ...m } = s.at;
    return compileMatcher(m, (id) => host.hns.nameOf(id) ?? host.hcs.find(id)?.name);
  });
  const counts = steps.map(() => 0);

  const fire = (i: number, call?: HnsCall): void => {
    if (done.has(i) || stopped) return;
    done.add(i);
    const step = steps[i]!;
    const did: string[] = [];
    const actions = (Array.isArray(step.do) ? step.do : [step.do]) as FaultAction[];
    actions.forEach((a) => {
      if ('fail' in a || 'delay' in a || 'hang' in a) {
        const times = a.times ?? 1;
        // the call at the point (if any) is the first the fault takes; later matching ones the rest
        const first = call;
        const match = matchers[i]!;
        const predicate = (c: HnsCall) => c === first || match(c);
        if ('fail' in a) {
          rules.push(host.faults.fail(predicate, readHResult(a.fail), { times }));
          did.push(`fail ${String(a.fail)} ×${times}`);
        } else if ('delay' in a) {
          rules.push(host.faults.delay(predicate, a.delay, { times }));
          did.push(`delay ${a.delay} ms ×${times}`);
        } else {
          const hang = a.hang;
          let gate: ReturnType<Host['faults']['hang']> | undefined = undefined;
          // each held call is let go `releaseAfterMs` after it arrived
          const held =
            hang === true
              ? predicate
              : (c: HnsCall) => {
                  if (!predicate(c)) return false;
                  timers.push(host.clock.schedule(hang.releaseAfterMs, () => gate?.releaseOne()));
                  return true;
                };
          gate = host.faults.hang(held, { times });
          rules.push(gate);
          did.push(
            `hang ×${times}${hang === true ? '' : ` (each released after ${hang.releaseAfterMs} ms)`}`,
          );
        }
      } else if ('restartHns' in a) {
        host.restartHns(a.restartHns === true ? {} : a.restartHns);
        did.push('restartHns');
      } else if ('reboot' in a) {
        host.reboot(a.reboot === true ? {} : a.reboot);
        did.push('reboot');
      } else if ('restartHcs' in a) {
        host.restartHcs();
        did.push('restartHcs');
      } else if ('deleteOutOfBand' in a) {
        did.push(deleteOutOfBand(host, a.deleteOutOfBand));
      } else if ('crash' in a) {
        const c = typeof a.crash === 'string' ? { id: a.crash } : a.crash;
        try {
          host.hcs.injectExit(c.id, c.exitType, c.status);
          did.push(`crash ${c.id}`);
        } catch (e) {
          did.push(`crash ${c.id}: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
    });
    fired.push({
      step: i,
      label: step.label ?? `step ${i + 1}`,
      time: host.clock.now(),
      ...(call ? { method: call.method } : {}),
      did,
    });
  };

  // the tap: a rule that never matches, so it sees every call the rules before it let through,
  // counts it for each step and fires the steps whose point it is
  const tap = host.faults.fail((c) => {
    if (stopped) return false;
    steps.forEach((s, i) => {
      if (s.at.time !== undefined || done.has(i) || !matchers[i]!(c)) return;
      counts[i]!++;
      if (counts[i] === (s.at.call ?? 1)) fire(i, c);
    });
    return false;
  }, 'E_FAIL');
  rules.push(tap);

  steps.forEach((s, i) => {
    if (s.at.time === undefined) return;
    const wait = s.at.time - host.clock.now();
    if (wait <= 0) fire(i);
    else timers.push(host.clock.schedule(wait, () => fire(i)));
  });

  return {
    fired,
    pending: () => steps.map((_, i) => i).filter((i) => !done.has(i)),
    remove: () => {
      stopped = true;
      for (const t of timers) host.clock.cancel(t);
      for (const r of rules) r.remove();
    },
  };
}

/** Delete one object through the flat API (past the fault layer, as hnsdiag does); one log line. */
function deleteOutOfBand(host: Host, t: OutOfBandTarget): string {
  const k = FLAT_KINDS[t.kind];
  const ids = host.api.call(k.list as never, ['']);
  let list = ids?.ok && Array.isArray(ids.result) ? (ids.result as string[]) : [];
  if (t.kind === 'namespace') {
    list = list.filter((id) => host.hns.store.namespaces.get(id)?.Type !== 'HostDefault');
  }
  let id: string | undefined;
  if (t.id) id = list.find((x) => x.toLowerCase() === t.id!.toLowerCase());
  else if (t.name) id = list.find((x) => host.hns.nameOf(x) === t.name);
  else id = t.which === 'oldest' ? list[0] : list.at(-1);
  const what = `deleteOutOfBand ${t.kind} ${t.id ?? t.name ?? t.which ?? 'newest'}`;
  if (!id) return `${what}: none`;
  const r = host.api.call(k.del as never, [id]);
  return r?.ok ? `${what} = ${id}` : `${what} = ${id}: ${r?.ok === false ? r.name : 'failed'}`;
}

export interface FaultScheduleArbOptions {
  /** Methods the call points pick from (default: the HCN calls a CNI plugin and a runtime make). */
  readonly methods?: readonly string[];
  /** HRESULTs `fail` picks from (default: a stopped manager, an unavailable RPC server, E_FAIL). */
  readonly codes?: readonly (HResultName | number)[];
  /** Up to this many steps (default 3). */
  readonly maxSteps?: number;
  /** Also restarts of the HNS service at a moment of simulated time (default false). */
  readonly restarts?: boolean;
}

/** The calls a CNI plugin on the HCN path and a CRI runtime make. */
export const SCHEDULE_METHODS: readonly string[] = [
  'HcnCreateEndpoint',
  'HcnDeleteEndpoint',
  'HcnModifyNamespace',
  'HcnCreateNamespace',
  'HcnDeleteNamespace',
  'HcnQueryNetworkProperties',
  'HcnEnumerateEndpoints',
  'HcsCreateComputeSystem',
  'HcsStartComputeSystem',
];

/**
 * A fault schedule: up to `maxSteps` steps, each at the 1st–3rd call of a method, failing it
 * (once or twice), delaying it (1–500 ms) or holding it (released 1–500 ms later); with
 * `restarts`, sometimes an HNS restart at a moment (with up to 200 ms of downtime). Shrinks
 * towards fewer steps, the first method, the first call, a single failure.
 */
export function faultSchedule(opts: FaultScheduleArbOptions = {}): fc.Arbitrary<FaultStep[]> {
  const methods = opts.methods ?? SCHEDULE_METHODS;
  const codes = opts.codes ?? (['HCN_E_MANAGER_STOPPED', 'RPC_S_SERVER_UNAVAILABLE', 'E_FAIL'] as const);
  const times = fc.integer({ min: 1, max: 2 });
  const callFault: fc.Arbitrary<FaultAction> = fc.oneof(
    fc.record({ fail: fc.constantFrom(...codes), times }),
    fc.record({ delay: fc.integer({ min: 1, max: 500 }), times }),
    fc.record({ hang: fc.record({ releaseAfterMs: fc.integer({ min: 1, max: 500 }) }), times }),
  );
  const callStep: fc.Arbitrary<FaultStep> = fc.record({
    at: fc.record({ method: fc.constantFrom(...methods), call: fc.integer({ min: 1, max: 3 }) }),
    do: callFault,
  });
  const restart: fc.Arbitrary<FaultStep> = fc.record({
    at: fc.record({ time: fc.integer({ min: 1, max: 2000 }) }),
    do: fc.record({ restartHns: fc.record({ downtimeMs: fc.integer({ min: 0, max: 200 }) }) }),
  });
  const step = opts.restarts
    ? fc.oneof({ weight: 4, arbitrary: callStep }, { weight: 1, arbitrary: restart })
    : callStep;
  return fc.array(step, { maxLength: opts.maxSteps ?? 3 });
}
