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
class ScheduledTransport implements HnsTransport {
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

/** Named tasks, each started by calling it (what `runConcurrently` and `runUntilSettled` take). */
export type NamedTasks<T> = Readonly<Record<string, () => Promise<T>>>;

/** What a value is, for the kit's messages. */
function kindOf(x: unknown): string {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'an array';
  if (isThenable(x)) return 'a promise';
  if (typeof x === 'function') return 'a function';
  if (typeof x === 'object') return 'an object';
  if (typeof x === 'string') return `the string ${JSON.stringify(x)}`;
  return x === undefined ? 'undefined' : `the ${typeof x} ${String(x)}`;
}

function isThenable(x: unknown): x is PromiseLike<unknown> {
  return (
    (typeof x === 'object' || typeof x === 'function') &&
    x !== null &&
    typeof (x as { then?: unknown }).then === 'function'
  );
}

/** A plain object of named tasks, each a function; else a TypeError that says what it takes. */
function checkNamedTasks<T>(what: string, tasks: unknown, expected: string): NamedTasks<T> {
  if (tasks === null || typeof tasks !== 'object' || Array.isArray(tasks) || isThenable(tasks))
    throw new TypeError(`${what}: expected ${expected}, got ${kindOf(tasks)}`);
  for (const [name, task] of Object.entries(tasks))
    if (typeof task !== 'function')
      throw new TypeError(
        `${what}: task "${name}" must be a function that starts the work (() => work), got ${kindOf(task)}`,
      );
  return tasks as NamedTasks<T>;
}

/** A host has a simulated clock to advance; anything else (a scheduler in its place) is refused. */
function checkHost(what: string, host: unknown, hint: string): void {
  const clock = (host as { clock?: { advance?: unknown } } | null)?.clock;
  if (typeof clock?.advance !== 'function')
    throw new TypeError(
      `${what}: the first argument must be a simulated host (createHost()), got ${kindOf(host)}; ${hint}`,
    );
}

const TASKS = 'named tasks ({ name: () => work, … })';

/**
 * `runScheduled` without a scheduler: wait for the work, letting simulated time pass (10 ms steps)
 * while it waits on delayed calls (`host.faults.delay`, a restart's downtime, a schedule's
 * `releaseAfterMs`); then return (or throw) what it did. The work is a promise, a function that
 * starts it, or named tasks as `runConcurrently` takes them — all started at once, in order, and
 * answered by name as `Promise.allSettled` gives each outcome. Anything else is a TypeError that
 * says what it takes; it throws if the work never finishes (a hang nobody releases).
 *
 *   await runUntilSettled(host, add('pod-a'));
 *   const out = await runUntilSettled(host, { a: () => add('a'), b: () => add('b') });
 */
export function runUntilSettled<T>(
  host: Pick<Host, 'clock'>,
  work: Promise<T> | (() => Promise<T>),
  options?: RunScheduledOptions,
): Promise<T>;
export function runUntilSettled<T>(
  host: Pick<Host, 'clock'>,
  tasks: NamedTasks<T>,
  options?: RunScheduledOptions,
): Promise<Record<string, PromiseSettledResult<T>>>;
export async function runUntilSettled<T>(
  host: Pick<Host, 'clock'>,
  work: Promise<T> | (() => Promise<T>) | NamedTasks<T>,
  options: RunScheduledOptions = {},
): Promise<T | Record<string, PromiseSettledResult<T>>> {
  checkHost(
    'runUntilSettled',
    host,
    'with a scheduler, use runScheduled(scheduler, host, work) or runConcurrently(scheduler, host, tasks)',
  );
  const run = (p: Promise<unknown>) =>
    drive(host, p, () => Promise.resolve(false), options, 'runUntilSettled');
  if (isThenable(work)) return run(Promise.resolve(work)) as Promise<T>;
  if (typeof work === 'function') {
    const started: unknown = work();
    if (!isThenable(started))
      throw new TypeError(
        `runUntilSettled: the function must return a promise (the work), got ${kindOf(started)}`,
      );
    return run(Promise.resolve(started)) as Promise<T>;
  }
  const tasks = checkNamedTasks<T>(
    'runUntilSettled',
    work,
    `a promise, a function that starts the work (() => work), or ${TASKS} as runConcurrently takes them`,
  );
  const names = Object.keys(tasks);
  const settled = (await run(
    // a task that throws before its first await settles as rejected, as under runConcurrently
    Promise.allSettled(names.map((name) => new Promise<T>((resolve) => resolve(tasks[name]!())))),
  )) as PromiseSettledResult<T>[];
  return Object.fromEntries(names.map((name, i) => [name, settled[i]!]));
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
  tasks: NamedTasks<T>,
  options: RunScheduledOptions = {},
): Promise<Record<string, PromiseSettledResult<T>>> {
  checkHost('runConcurrently', host, 'runConcurrently(scheduler, host, tasks)');
  checkNamedTasks<T>('runConcurrently', tasks, TASKS);
  const names = Object.keys(tasks);
  const runs = names.map((name) =>
    scheduler.schedule(Promise.resolve(), `start ${name}`).then(() => tasks[name]!()),
  );
  const settled = await runScheduled(scheduler, host, Promise.allSettled(runs), options);
  return Object.fromEntries(names.map((name, i) => [name, settled[i]!]));
}
