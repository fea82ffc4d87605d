/**
 * What the kit says when a test goes wrong (issue 15): `toHaveEndpoint` shows the closest
 * endpoint field by field; `runUntilSettled` takes what `runConcurrently` takes (a promise, a
 * function that starts the work, named tasks) and refuses anything else saying what it takes, as
 * `runConcurrently` now does too; a scenario's `reply: true` lists the values `reply` takes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HcnResult } from '../../src/api/flat.js';
import type { Json } from '../../src/core/json.js';
import { createHost, type Host } from '../../src/host/host.js';
import { loadScenario } from '../../src/scenario/index.js';
import {
  addL2Bridge,
  applyFaultSchedule,
  hnsimMatchers,
  runConcurrently,
  runUntilSettled,
  scheduledHost,
  type HnsimMatchers,
} from '../../src/testing/index.js';

declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Assertion<T> extends HnsimMatchers<T> {}
}
expect.extend(hnsimMatchers);

const V2 = { Major: 2, Minor: 0 };

/** A node with `cbr0` and the endpoints a (10.244.1.20) and b (10.244.1.21); their IDs by name. */
function twoEndpoints(): { host: Host; id: Record<string, string> } {
  const host = createHost({ seed: 4 });
  const net = addL2Bridge(host, '10.244.1.1');
  const id: Record<string, string> = {};
  for (const [name, ip] of [
    ['a', '10.244.1.20'],
    ['b', '10.244.1.21'],
  ] as const) {
    const r = host.api.HcnCreateEndpoint(net, null, {
      Name: name,
      SchemaVersion: V2,
      IpConfigurations: [{ IpAddress: ip, PrefixLength: 24 }],
    });
    if (!r.ok) throw new Error(r.message);
    id[name] = (r.result as { ID: string }).ID;
  }
  return { host, id };
}

/** The message a failing assertion throws. */
function failure(assertion: () => void): string {
  try {
    assertion();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('the assertion passed');
}

describe('toHaveEndpoint', () => {
  it('shows the closest endpoint field by field: what was expected, what it has', () => {
    const { host, id } = twoEndpoints();
    expect(
      failure(() =>
        expect(host).toHaveEndpoint({
          Name: 'b',
          IpConfigurations: [{ IpAddress: '10.244.1.22', PrefixLength: 24 }],
        }),
      ),
    ).toBe(
      [
        'expected an endpoint matching {"Name":"b","IpConfigurations":[{"IpAddress":"10.244.1.22","PrefixLength":24}]}; none of the node\'s 2 endpoint(s) does.',
        `The closest, b (${id['b']}), differs in 1 of 3 field(s):`,
        '  = Name: "b"',
        '  ✗ IpConfigurations[0].IpAddress: expected "10.244.1.22", found "10.244.1.21"',
        '  = IpConfigurations[0].PrefixLength: 24',
        'the node has: a, b',
      ].join('\n'),
    );
  });

  it('names asymmetric matchers, a field the endpoint lacks, a list of another length, a node without endpoints', () => {
    const { host, id } = twoEndpoints();
    expect(
      failure(() =>
        expect(host).toHaveEndpoint({
          Name: expect.stringMatching(/^a$/) as unknown as string,
          Flags: 1,
          IpConfigurations: [],
        }),
      ),
    ).toBe(
      [
        'expected an endpoint matching {"Name":"StringMatching /^a$/","Flags":1,"IpConfigurations":[]}; none of the node\'s 2 endpoint(s) does.',
        `The closest, a (${id['a']}), differs in 2 of 3 field(s):`,
        '  = Name: "a"',
        '  ✗ Flags: expected 1, found nothing',
        '  ✗ IpConfigurations: expected [], found [{"IpAddress":"10.244.1.20","PrefixLength":24}]',
        'the node has: a, b',
      ].join('\n'),
    );
    expect(failure(() => expect(createHost({ seed: 1 })).toHaveEndpoint('web'))).toBe(
      'expected an endpoint matching {"Name":"web"}; the node has no endpoints',
    );
  });

  it('still passes on a match and fails .not with the match', () => {
    const { host, id } = twoEndpoints();
    expect(host).toHaveEndpoint({ Name: 'a', IpConfigurations: [{ IpAddress: '10.244.1.20' }] });
    expect(failure(() => expect(host).not.toHaveEndpoint('b'))).toBe(
      `expected no endpoint matching {"Name":"b"}, found ${id['b']}`,
    );
  });
});

/** A call through the fault layer, as clients make them. */
function call(host: Host, method: string, ...args: unknown[]): Promise<HcnResult<Json>> {
  return host.transport.call({ method: method as never, args });
}

describe('runUntilSettled takes what runConcurrently takes', () => {
  /** A host whose namespace creations take 250 ms of simulated time. */
  function slow(): Host {
    const host = createHost({ seed: 1 });
    applyFaultSchedule(host, [{ at: { method: 'HcnCreateNamespace' }, do: { delay: 250, times: 3 } }]);
    return host;
  }
  const ns = (host: Host) => call(host, 'HcnCreateNamespace', null, { SchemaVersion: V2 });

  it('a promise, a function that starts the work, or named tasks answered by name', async () => {
    const host = slow();
    expect((await runUntilSettled(host, ns(host))).ok).toBe(true);
    expect((await runUntilSettled(host, () => ns(host))).ok).toBe(true);
    const out = await runUntilSettled(host, {
      made: () => ns(host),
      refused: () => call(host, 'HcnDeleteNamespace', '00000000-0000-0000-0000-000000000001'),
      thrown: () => {
        throw new Error('boom');
      },
    });
    expect(Object.keys(out)).toEqual(['made', 'refused', 'thrown']);
    expect(out['made']).toMatchObject({ status: 'fulfilled', value: { ok: true } });
    expect(out['refused']).toMatchObject({ status: 'fulfilled', value: { ok: false } });
    expect(out['thrown']).toMatchObject({ status: 'rejected', reason: new Error('boom') });
    // three delayed creations, one after the other: simulated time passed for each
    expect(host.clock.now()).toBeGreaterThanOrEqual(750);
    expect(host.hns.store.namespaces.size).toBe(4);
  });

  it('anything else is a TypeError that says what it takes', async () => {
    const host = slow();
    const takes =
      'runUntilSettled: expected a promise, a function that starts the work (() => work), or named tasks ({ name: () => work, … }) as runConcurrently takes them, got';
    await expect(runUntilSettled(host, 42 as never)).rejects.toThrow(new TypeError(`${takes} the number 42`));
    await expect(runUntilSettled(host, [ns(host)] as never)).rejects.toThrow(
      new TypeError(`${takes} an array`),
    );
    await expect(runUntilSettled(host, undefined as never)).rejects.toThrow(
      new TypeError(`${takes} undefined`),
    );
    await expect(runUntilSettled(host, { a: ns(host) } as never)).rejects.toThrow(
      new TypeError(
        'runUntilSettled: task "a" must be a function that starts the work (() => work), got a promise',
      ),
    );
    await expect(runUntilSettled(host, (() => 'done') as never)).rejects.toThrow(
      new TypeError('runUntilSettled: the function must return a promise (the work), got the string "done"'),
    );
    const s = fc.sample(fc.scheduler(), { seed: 1, numRuns: 1 })[0]!;
    await expect(runUntilSettled(s as never, ns(host))).rejects.toThrow(
      new TypeError(
        'runUntilSettled: the first argument must be a simulated host (createHost()), got an object; with a scheduler, use runScheduled(scheduler, host, work) or runConcurrently(scheduler, host, tasks)',
      ),
    );
  });

  it('runConcurrently refuses a task that is not a function (it used to settle as a TypeError)', async () => {
    const s = fc.sample(fc.scheduler(), { seed: 1, numRuns: 1 })[0]!;
    const host = scheduledHost(s, { seed: 1 });
    await expect(runConcurrently(s, host, { a: Promise.resolve(1) } as never)).rejects.toThrow(
      new TypeError(
        'runConcurrently: task "a" must be a function that starts the work (() => work), got a promise',
      ),
    );
    await expect(runConcurrently(s, host, (() => Promise.resolve(1)) as never)).rejects.toThrow(
      new TypeError('runConcurrently: expected named tasks ({ name: () => work, … }), got a function'),
    );
    const out = await runConcurrently(s, host, { one: () => Promise.resolve(1) });
    expect(out).toEqual({ one: { status: 'fulfilled', value: 1 } });
  });
});

describe('scenario messages', () => {
  it('reply: true lists the values reply takes and suggests one', () => {
    const file = [
      'hnsim: scenario/v1',
      'name: r',
      'hosts:',
      '  - name: h',
      'expect:',
      '  traces:',
      '    - { from: h, to: 1.1.1.1, expect: Delivered, reply: true }',
      '',
    ].join('\n');
    expect(() => loadScenario(file, 'r.yaml')).toThrow(
      'r.yaml:7:57: expect.traces[0].reply: must be one of Delivered, DeniedOut, DeniedIn, NoRoute, DroppedMacSpoofing, Unsupported, PortExhausted, TtlExceeded, Loop, NameNotResolved, NoBackend, ExitsNetwork (got true); did you mean reply: Delivered?',
    );
  });
});
