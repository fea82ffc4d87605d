/**
 * Race testing for plugins and runtimes: a host whose every HNS and HCS call waits for
 * fast-check's scheduler, so concurrent CNI invocations (or runtime calls) interleave at each call
 * the way fast-check chooses — and a failing interleaving is reported with its seed and path,
 * replayable. `runScheduled` drives the scheduler until the work is done, letting simulated time
 * pass when nothing is ready (calls delayed by `host.faults.delay`).
 *
 *   await fc.assert(fc.asyncProperty(fc.scheduler(), async (s) => {
 *     const host = scheduledHost(s, { seed: 1 });
 *     // … set up a network …
 *     await runScheduled(s, host, Promise.all([add('pod-a'), add('pod-b')]));
 *     expect(host).toHaveNoLeaks();
 *   }));
 */
import type { Scheduler } from 'fast-check';
import type { FlatApi, HcnResult } from '../api/flat.js';
import { DirectTransport, type HnsCall, type HnsTransport } from '../api/transport.js';
import type { Json } from '../core/json.js';
import { createHost, TOKENS, type Host, type HostOptions } from '../host/host.js';

/** A transport whose calls each wait for the scheduler first (labelled with the method name). */
export class ScheduledTransport implements HnsTransport {
  constructor(
    private readonly inner: HnsTransport,
    private readonly scheduler: Scheduler,
  ) {}

  async call(call: HnsCall): Promise<HcnResult<Json>> {
    await this.scheduler.schedule(Promise.resolve(), call.method);
    return this.inner.call(call);
  }
}

/** A host whose HNS and HCS calls (through `host.transport`: every typed client) are scheduled. */
export function scheduledHost(scheduler: Scheduler, options: HostOptions = {}): Host {
  return createHost({
    ...options,
    override: (c) => {
      c.rebind(TOKENS.Transport).toDynamicValue(
        (ctx) => new ScheduledTransport(new DirectTransport(ctx.get<FlatApi>(TOKENS.FlatApi)), scheduler),
      );
      options.override?.(c);
    },
  });
}

export interface RunScheduledOptions {
  /** Simulated milliseconds to let pass when no scheduled call is ready (default 10). */
  readonly stepMs?: number;
  /** Give up after this many steps (default 100,000): the work is stuck (a hang never released). */
  readonly maxSteps?: number;
}

/**
 * Drive `work` to its end: run one step (`step()` returns false when it had nothing to run), else
 * let `stepMs` of simulated time pass and yield to the event loop; throw after `maxSteps`.
 */
async function drive<T>(
  host: Pick<Host, 'clock'>,
  work: Promise<T>,
  step: () => Promise<boolean>,
  options: RunScheduledOptions,
  what: string,
): Promise<T> {
  const stepMs = options.stepMs ?? 10;
  const maxSteps = options.maxSteps ?? 100_000;
  let done = false;
  const settled = work.then(
    (v) => {
      done = true;
      return v;
    },
    (e: unknown) => {
      done = true;
      throw e;
    },
  );
  settled.catch(() => undefined);
  // let the work start before deciding that time must pass
  await new Promise<void>((resolve) => setImmediate(resolve));
  for (let n = 0; !done; n++) {
    if (n > maxSteps)
      throw new Error(`${what}: the work did not finish in ${maxSteps} steps (a call hangs?)`);
    if (await step()) continue;
    host.clock.advance(stepMs);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return settled;
}

/**
 * Run the scheduled calls until `work` settles, advancing `host.clock` when none is ready; then
 * return (or throw) what `work` did. Throws if the work never finishes.
 */
export async function runScheduled<T>(
  scheduler: Scheduler,
  host: Host,
  work: Promise<T>,
  options: RunScheduledOptions = {},
): Promise<T> {
  return drive(
    host,
    work,
    async () => {
      if (scheduler.count() === 0) return false;
      await scheduler.waitOne();
      return true;
    },
    options,
    'runScheduled',
  );
}

/**
 * `runScheduled` without a scheduler: wait for `work`, letting simulated time pass (10 ms steps)
 * while it waits on delayed calls (`host.faults.delay`, a restart's downtime, a schedule's
 * `releaseAfterMs`). Throws if it never finishes (a hang nobody releases).
 */
export async function runUntilSettled<T>(
  host: Pick<Host, 'clock'>,
  work: Promise<T>,
  options: RunScheduledOptions = {},
): Promise<T> {
  return drive(host, work, () => Promise.resolve(false), options, 'runUntilSettled');
}

/**
 * Start several tasks (CNI invocations, runtime calls, anything that calls the scheduled host)
 * concurrently, each at a moment the scheduler picks (labelled `start <name>`), and run them all
 * to the end; the outcome of each, by name, as `Promise.allSettled` gives it. Together with
 * `scheduledHost` every HNS/HCS call is an interleaving point, so a property over this finds
 * check-then-act races, and fast-check prints the seed, the path and the scheduler's log of the
 * failing interleaving (`start pod-a`, `HcnCreateEndpoint`, …):
 *
 *   const out = await runConcurrently(s, host, { a: () => add('a'), b: () => add('b') });
 *   expect(out.a.status).toBe('fulfilled');
 */
export async function runConcurrently<T>(
  scheduler: Scheduler,
  host: Host,
  tasks: Readonly<Record<string, () => Promise<T>>>,
  options: RunScheduledOptions = {},
): Promise<Record<string, PromiseSettledResult<T>>> {
  const names = Object.keys(tasks);
  const runs = names.map((name) =>
    scheduler.schedule(Promise.resolve(), `start ${name}`).then(() => tasks[name]!()),
  );
  const settled = await runScheduled(scheduler, host, Promise.allSettled(runs), options);
  return Object.fromEntries(names.map((name, i) => [name, settled[i]!]));
}
