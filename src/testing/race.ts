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
 * Run the scheduled calls until `work` settles, advancing `host.clock` when none is ready; then
 * return (or throw) what `work` did. Throws if the work never finishes.
 */
export async function runScheduled<T>(
  scheduler: Scheduler,
  host: Host,
  work: Promise<T>,
  options: RunScheduledOptions = {},
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
  for (let step = 0; !done; step++) {
    if (step > maxSteps) throw new Error(`runScheduled: the work did not finish in ${maxSteps} steps`);
    if (scheduler.count() > 0) await scheduler.waitOne();
    else {
      host.clock.advance(stepMs);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  return settled;
}
