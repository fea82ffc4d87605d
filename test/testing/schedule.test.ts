/**
 * Fault schedules (src/testing/schedule.ts): each kind of step fires at its point and does what
 * the fault layer and the host document (docs/api.md "Faults and time", docs/model.md "Service
 * restart, reboot"); a random schedule under the kit's commands leaves the node consistent. The
 * HRESULT numbers are the reference's (hns-hcs.md §5.2; winerror.h for the RPC codes).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HcnClient } from '../../src/api/hcn/client.js';
import type { HcnResult } from '../../src/api/flat.js';
import type { Json } from '../../src/core/json.js';
import { createHost, type Host } from '../../src/host/host.js';
import {
  applyFaultSchedule,
  checkFaultSchedule,
  cniCommands,
  faultSchedule,
  hnsCommands,
  kitSetup,
  runUntilSettled,
  type FaultStep,
} from '../../src/testing/index.js';

const RPC_S_SERVER_UNAVAILABLE = 0x800706ba;
const RPC_S_CALL_FAILED = 0x800706be;
const HCN_E_ADDR_INVALID_OR_RESERVED = 0x803b002f;
const V2 = { Major: 2, Minor: 0 };

function nat(host: Host): string {
  const r = host.api.HcnCreateNetwork(null, { Name: 'nat', Type: 'NAT', SchemaVersion: V2 });
  if (!r.ok) throw new Error(r.message);
  return r.result.ID as string;
}

/** A call through the fault layer, as clients make them. */
function call(host: Host, method: string, ...args: unknown[]): Promise<HcnResult<Json>> {
  return host.transport.call({ method: method as never, args });
}

describe('call faults at a call point', () => {
  it('fail: the 2nd HcnCreateEndpoint and the next one fail with the HRESULT; the others go through', async () => {
    const host = createHost({ seed: 1 });
    const net = nat(host);
    const s = applyFaultSchedule(host, [
      {
        label: 'addresses run out',
        at: { method: 'HcnCreateEndpoint', call: 2 },
        do: { fail: 'HCN_E_ADDR_INVALID_OR_RESERVED', times: 2 },
      },
    ]);
    const hrs: number[] = [];
    for (let i = 0; i < 4; i++) {
      await call(host, 'HcnQueryNetworkProperties', net, ''); // other methods are not counted
      const r = await call(host, 'HcnCreateEndpoint', net, null, { Name: `ep${i}` });
      hrs.push(r.hr >>> 0);
    }
    expect(hrs).toEqual([0, HCN_E_ADDR_INVALID_OR_RESERVED, HCN_E_ADDR_INVALID_OR_RESERVED, 0]);
    expect(host.hns.store.endpoints.size).toBe(2);
    expect(s.fired).toEqual([
      {
        step: 0,
        label: 'addresses run out',
        time: 0,
        method: 'HcnCreateEndpoint',
        did: ['fail HCN_E_ADDR_INVALID_OR_RESERVED ×2'],
      },
    ]);
    expect(s.pending()).toEqual([]);
  });

  it('the typed client sees the failure as hcsshim reports it', async () => {
    const host = createHost({ seed: 1 });
    nat(host);
    applyFaultSchedule(host, [{ at: { name: 'nat' }, do: { fail: 0x800706ba } }]);
    await expect(HcnClient.forHost(host).getNetworkByName('nat')).rejects.toThrow(
      /The RPC server is unavailable/,
    );
  });

  it('delay: the call takes effect once the simulated clock has passed the delay', async () => {
    const host = createHost({ seed: 1 });
    applyFaultSchedule(host, [{ at: { method: 'HcnCreateNamespace' }, do: { delay: 250 } }]);
    const r = await runUntilSettled(host, call(host, 'HcnCreateNamespace', null, { SchemaVersion: V2 }));
    expect(r.ok).toBe(true);
    expect(host.clock.now()).toBeGreaterThanOrEqual(250);
    // the next one is not slowed
    const t = host.clock.now();
    await runUntilSettled(host, call(host, 'HcnCreateNamespace', null, { SchemaVersion: V2 }));
    expect(host.clock.now()).toBe(t);
  });

  it('hang: held until released, each call releaseAfterMs after it arrived', async () => {
    const host = createHost({ seed: 1 });
    applyFaultSchedule(host, [
      { at: { method: 'HcnCreateNamespace' }, do: { hang: { releaseAfterMs: 500 }, times: 2 } },
    ]);
    const a = call(host, 'HcnCreateNamespace', null, { SchemaVersion: V2 });
    await Promise.resolve();
    expect(host.faults.held().map((h) => h.call.method)).toEqual(['HcnCreateNamespace']);
    host.clock.advance(100);
    const b = call(host, 'HcnCreateNamespace', null, { SchemaVersion: V2 });
    await Promise.resolve();
    expect(host.faults.held()).toHaveLength(2);
    host.clock.advance(400); // a's 500 ms are up, b has 100 left
    await a;
    expect(host.faults.held()).toHaveLength(1);
    host.clock.advance(100);
    expect((await b).ok).toBe(true);
    expect(host.hns.store.namespaces.size).toBe(3); // HostDefault and the two
  });

  it('a hang with no release holds the call; runUntilSettled says the work never finished', async () => {
    const host = createHost({ seed: 1 });
    applyFaultSchedule(host, [{ at: { method: 'HcnCreateNamespace' }, do: { hang: true } }]);
    await expect(
      runUntilSettled(host, call(host, 'HcnCreateNamespace', null, {}), { maxSteps: 50 }),
    ).rejects.toThrow(/did not finish in 50 steps/);
  });
});

describe('host events', () => {
  it('HNS restart at a moment, with downtime: calls fail as on a stopped service, endpoints are gone', async () => {
    const host = createHost({ seed: 1 });
    const net = nat(host);
    await call(host, 'HcnCreateEndpoint', net, null, { Name: 'pod' });
    applyFaultSchedule(host, [{ at: { time: 1000 }, do: { restartHns: { downtimeMs: 300 } } }]);
    host.clock.advance(999);
    expect(host.hns.store.endpoints.size).toBe(1);
    host.clock.advance(1);
    expect(host.hns.store.endpoints.size).toBe(0); // docs/model.md: endpoints removed, networks kept
    expect(host.hns.store.networks.size).toBe(1);
    expect((await call(host, 'HcnEnumerateNetworks', '')).hr >>> 0).toBe(RPC_S_SERVER_UNAVAILABLE);
    host.clock.advance(300);
    expect((await call(host, 'HcnEnumerateNetworks', '')).ok).toBe(true);
  });

  it('HNS restart at a call: that call is cut off (RPC_S_CALL_FAILED)', async () => {
    const host = createHost({ seed: 1 });
    const net = nat(host);
    const s = applyFaultSchedule(host, [
      { at: { method: 'HcnCreateEndpoint', call: 2 }, do: { restartHns: true } },
    ]);
    expect((await call(host, 'HcnCreateEndpoint', net, null, {})).ok).toBe(true);
    const cut = await call(host, 'HcnCreateEndpoint', net, null, {});
    expect(cut.hr >>> 0).toBe(RPC_S_CALL_FAILED);
    expect(host.hns.store.endpoints.size).toBe(0);
    expect(s.fired[0]!.did).toEqual(['restartHns']);
  });

  it('reboot: non-persistent networks, namespaces and compute systems go; HostDefault comes back', async () => {
    const host = createHost({ seed: 1 });
    nat(host);
    host.api.HcnCreateNetwork(null, { Name: 'temp', Type: 'NAT', Flags: 8, SchemaVersion: V2 });
    host.api.HcnCreateNamespace(null, { SchemaVersion: V2 });
    host.api.HcsCreateComputeSystem('c1', { SchemaVersion: { Major: 2, Minor: 1 }, Container: {} });
    applyFaultSchedule(host, [{ at: { time: 10 }, do: { reboot: true } }]);
    host.clock.advance(10);
    expect([...host.hns.store.networks.values()].map((n) => n.Name)).toEqual(['nat']);
    expect([...host.hns.store.namespaces.values()].map((n) => n.Type)).toEqual(['HostDefault']);
    expect(host.hcs.enumerate()).toEqual([]);
  });

  it('out-of-band delete (hnsdiag delete): by newest, name or ID, past the fault layer', async () => {
    const host = createHost({ seed: 1 });
    const net = nat(host);
    const ns1 = await call(host, 'HcnCreateNamespace', null, { SchemaVersion: V2 });
    const ns2 = await call(host, 'HcnCreateNamespace', null, { SchemaVersion: V2 });
    await call(host, 'HcnCreateEndpoint', net, null, { Name: 'web' });
    // every HNS call fails from now on: the out-of-band deletes still happen
    host.faults.fail({ method: 'Hcn*' }, 'E_ACCESSDENIED');
    const s = applyFaultSchedule(host, [
      {
        at: { time: 5 },
        do: [
          { deleteOutOfBand: { kind: 'namespace' } },
          { deleteOutOfBand: { kind: 'endpoint', name: 'web' } },
        ],
      },
      {
        at: { time: 6 },
        do: {
          deleteOutOfBand: {
            kind: 'namespace',
            id: String((ns1.ok && (ns1.result as { ID: string }).ID) || '').toLowerCase(),
          },
        },
      },
      { at: { time: 7 }, do: { deleteOutOfBand: { kind: 'namespace' } } },
    ]);
    host.clock.advance(10);
    const id2 = (ns2 as unknown as { result: { ID: string } }).result.ID;
    expect(s.fired.map((f) => f.did)).toEqual([
      [
        `deleteOutOfBand namespace newest = ${id2}`,
        expect.stringMatching(/^deleteOutOfBand endpoint web = [0-9A-F-]{36}$/),
      ],
      [expect.stringMatching(/^deleteOutOfBand namespace [0-9a-f-]{36} = [0-9A-F-]{36}$/)],
      ['deleteOutOfBand namespace newest: none'], // the HostDefault namespace is never taken
    ]);
    expect(host.hns.store.endpoints.size).toBe(0);
    expect([...host.hns.store.namespaces.values()].map((n) => n.Type)).toEqual(['HostDefault']);
  });

  it('a container crashes at a call; restartHcs ends every system', async () => {
    const host = createHost({ seed: 1 });
    for (const id of ['c1', 'c2']) {
      host.api.HcsCreateComputeSystem(id, { SchemaVersion: { Major: 2, Minor: 1 }, Container: {} });
      host.api.HcsStartComputeSystem(id, '');
    }
    applyFaultSchedule(host, [
      { at: { method: 'HcsGetComputeSystemProperties', id: 'C1' }, do: { crash: 'c1' } },
      { at: { time: 50 }, do: { restartHcs: true } },
    ]);
    const props = await call(host, 'HcsGetComputeSystemProperties', 'c1', '');
    expect(props.ok && (props.result as { State: string; ExitType: string })).toMatchObject({
      State: 'Stopped',
      ExitType: 'UnexpectedExit',
    });
    host.clock.advance(50);
    expect(host.hcs.enumerate()).toEqual([]);
  });

  it('remove() stops a schedule: later points do not fire, its rules go', async () => {
    const host = createHost({ seed: 1 });
    const s = applyFaultSchedule(host, [
      { at: { method: 'HcnCreateNamespace' }, do: { fail: 'E_FAIL' } },
      { at: { time: 100 }, do: { reboot: true } },
    ]);
    expect(host.faults.list()).toHaveLength(1); // the tap
    s.remove();
    expect(host.faults.list()).toEqual([]);
    expect((await call(host, 'HcnCreateNamespace', null, {})).ok).toBe(true);
    host.clock.advance(200);
    expect(s.fired).toEqual([]);
    expect(s.pending()).toEqual([0, 1]);
  });
});

describe('checking a schedule', () => {
  it('a bad step is a TypeError naming the step and the field', () => {
    const bad: [unknown, RegExp][] = [
      [{}, /must be an array/],
      [[{ at: {}, do: { explode: true } }], /step 1: an action is one of fail, delay/],
      [[{ at: { call: 0 }, do: { fail: 'E_FAIL' } }], /step 1: at.call must be an integer ≥ 1/],
      [[{ at: { time: 1, call: 1 }, do: { fail: 'E_FAIL' } }], /both time and call/],
      [[{ at: { method: 'X' }, do: { fail: 'NOT_A_CODE' } }], /step 1: fail: .*"NOT_A_CODE" is neither/],
      [[{ at: { methd: 'X' }, do: { fail: 'E_FAIL' } }], /step 1: at: .*unknown matcher field "methd"/],
      [
        [
          { at: {}, do: { delay: 5 } },
          { at: {}, do: { deleteOutOfBand: { kind: 'lb' } } },
        ],
        /step 2: deleteOutOfBand.kind/,
      ],
      [[{ at: {}, do: [], label: 'x' }], /step 1: "do" is empty/],
    ];
    for (const [steps, message] of bad)
      expect(() => checkFaultSchedule(steps), JSON.stringify(steps)).toThrow(message);
    expect(() => applyFaultSchedule(createHost(), [{ at: {}, do: { fail: 'E_FAIL', times: 0 } }])).toThrow(
      TypeError,
    );
  });

  it('a schedule is JSON: it survives a round trip and applies the same', () => {
    const steps: FaultStep[] = fc.sample(faultSchedule({ restarts: true }), { numRuns: 30, seed: 9 }).flat();
    expect(checkFaultSchedule(JSON.parse(JSON.stringify(steps)))).toEqual(steps);
  });
});

describe('random schedules under the kit’s commands', () => {
  it('refused calls change nothing and the model still agrees (faults mode)', async () => {
    await fc.assert(
      fc.asyncProperty(
        faultSchedule({ maxSteps: 4 }),
        fc.commands([...hnsCommands(), ...cniCommands()], { maxCommands: 25, size: 'max' }),
        async (schedule, cmds) => {
          const setup = kitSetup({
            cni: true,
            faults: true,
            createHost: () => {
              const h = createHost({ seed: 1 });
              applyFaultSchedule(h, schedule);
              return h;
            },
          });
          await fc.asyncModelRun(setup, cmds);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('shrinks a failing schedule to the one step that matters', () => {
    // a property that fails when some step fails HcnDeleteEndpoint
    const out = fc.check(
      fc.property(faultSchedule({ maxSteps: 5 }), (steps) =>
        steps.every((s) => !(s.at.method === 'HcnDeleteEndpoint' && 'fail' in (s.do as object))),
      ),
      { numRuns: 500, seed: 11 },
    );
    expect(out.failed).toBe(true);
    const [steps] = out.counterexample!;
    expect(steps).toHaveLength(1);
    expect(steps[0]).toEqual({
      at: { method: 'HcnDeleteEndpoint', call: 1 },
      do: { fail: 'HCN_E_MANAGER_STOPPED', times: 1 },
    });
  });
});
