/**
 * Issue 10: memory and handles of the replacement DLLs, seen from a Windows program
 * (native/tests/hcncall.c under Wine): results freed by the caller with CoTaskMemFree over many
 * iterations, handles closed and reused, the HRESULT of a bad handle, threads of one process, and
 * two programs at once on one host.
 *
 * Bugs each test catches:
 * - "freed with CoTaskMemFree": a DLL that hands out malloc'd, static or reused buffers (DidAlloc
 *   fails, the heap is corrupted after thousands of frees, or the program crashes), or that leaks a
 *   copy per call (the process heap grows when the caller frees everything);
 * - "handles reused": a handle table whose closed slots are never reused (it fills up after a few
 *   thousand open/close pairs), or whose Close frees nothing;
 * - "bad handles": a closed, unknown, NULL or wrong-kind handle accepted (a crash or a call on the
 *   wrong object) instead of E_HANDLE (0x80070006, winerror.h);
 * - "threads": one connection shared by threads without a lock (replies crossed between threads, or
 *   garbled lines): answers change from one iteration to the next;
 * - "two programs": the simulator serving one connection at a time, or a per-process state that
 *   leaks into the host (IDs or addresses handed out twice).
 */
import { beforeAll, expect, it } from 'vitest';
import { describeWine, hcncall, ready, startSim } from './kit.js';
import { guid, h, hcncallInput, step, stepLine, ZERO, type Step } from './steps.js';
import { DEFAULT_QUERY, endpointDoc, natNetwork, NET_ID } from './tables.js';

const E_HANDLE = 0x80070006;

/** Lines of a !loop / !threads block. */
function block(head: string, steps: readonly Step[]): string {
  return `${head}\n${steps.map(stepLine).join('\n')}\n!end\n`;
}

const SETUP: readonly Step[] = [
  step('HcnCreateNetwork', [guid(NET_ID), natNetwork('nat')], { out: 'net' }),
  step('HcnCreateEndpoint', [h('net'), ZERO, endpointDoc('ep', { HostComputeNetwork: NET_ID })], {
    out: 'ep',
  }),
  step('HcnQueryEndpointProperties', [h('ep'), DEFAULT_QUERY], { id: 'epid' }),
];

describeWine('the DLLs: memory, handles, threads and processes (issue 10)', () => {
  beforeAll(async () => {
    await ready();
  }, 600_000);

  it('results freed with CoTaskMemFree: 3000 calls, every block the task allocator’s, the heap flat; unfreed, it grows', async () => {
    const sim = await startSim({ seed: 7 });
    const calls: readonly Step[] = [
      step('HcnEnumerateNetworks', ['']),
      step('HcnQueryNetworkProperties', [h('net'), DEFAULT_QUERY]),
      step('HcnQueryEndpointProperties', [h('ep'), DEFAULT_QUERY]),
      step('HcnOpenNetwork', [guid('99999999-2222-4333-8444-555555555555')]), // a failure: an error record
    ];
    // warm-up loop first, so that the heap's own growth (first allocations) is not counted
    const input =
      hcncallInput(SETUP) +
      block('!loop 50', calls) +
      '!mem\n' +
      block('!loop 750', calls) +
      '!mem\n' +
      '!nofree\n' +
      block('!loop 750', calls) +
      '!mem\n';
    const run = await hcncall(input, { endpoint: sim.endpoint, timeoutMs: 120_000 });
    await sim.close();
    const mem = run.outputs
      .filter((o): o is { mem: { heapBusy: number } } => 'mem' in o)
      .map((o) => o.mem.heapBusy);
    expect(run.blocks.map((b) => [b.calls, b.failed, b.badHeap, b.recordOnSuccess, b.unstable])).toEqual([
      [200, 50, 0, 0, 0],
      [3000, 750, 0, 0, 0],
      [3000, 750, 0, 0, 0],
    ]);
    const [before, freed, kept] = mem as [number, number, number];
    // 3000 calls whose results are freed: the heap keeps nothing of them (allowance: 64 KiB)
    expect(freed - before).toBeLessThan(64 * 1024);
    // the same calls unfreed keep every document (UTF-16: > 2 bytes a character): the measure works
    expect(kept - freed).toBeGreaterThan(750 * 2 * 500);
  });

  it('handles closed and reused: the value of a closed handle comes back; 2000 open/query/close cycles', async () => {
    const sim = await startSim({ seed: 7 });
    const cycle: readonly Step[] = [
      step('HcnOpenNetwork', [guid(NET_ID)], { out: 'n' }),
      step('HcnQueryNetworkProperties', [h('n'), DEFAULT_QUERY]),
      step('HcnCloseNetwork', [h('n')]),
      step('HcnOpenEndpoint', [{ guidOf: 'epid' }], { out: 'e' }),
      step('HcnCloseEndpoint', [h('e')]),
    ];
    const reuse: readonly Step[] = [
      step('HcnOpenNetwork', [guid(NET_ID)], { out: 'a' }),
      step('HcnOpenNetwork', [guid(NET_ID)], { out: 'b' }),
      step('HcnCloseNetwork', [h('a')]),
      step('HcnOpenEndpoint', [{ guidOf: 'epid' }], { out: 'c' }),
      step('HcnCloseNetwork', [h('b')]),
      step('HcnCloseEndpoint', [h('c')]),
    ];
    const run = await hcncall(hcncallInput(SETUP) + hcncallInput(reuse) + block('!loop 2000', cycle), {
      endpoint: sim.endpoint,
      timeoutMs: 120_000,
    });
    await sim.close();
    const [a, b, , c] = run.calls.slice(SETUP.length).map((x) => x.handle);
    // two live handles differ; a closed one's value is handed out again (as Windows reuses
    // handle values): a table whose slots never come back would grow with every open
    expect(a).not.toBe(b);
    expect(c).toBe(a);
    expect(run.blocks).toHaveLength(1);
    expect(run.blocks[0]).toMatchObject({ calls: 10_000, failed: 0, badHeap: 0, unstable: 0 });
  });

  it('a closed, unknown, NULL or wrong-kind handle is E_HANDLE (0x80070006), and nothing is called', async () => {
    const sim = await startSim({ seed: 7 });
    const steps: Step[] = [
      ...SETUP,
      step('HcnOpenNetwork', [guid(NET_ID)], { out: 'n' }),
      step('HcnCloseNetwork', [h('n')]),
      step('HcnCloseNetwork', [h('n')], { why: 'closed twice' }),
      step('HcnQueryNetworkProperties', [h('n'), DEFAULT_QUERY], { why: 'a closed handle' }),
      step('HcnModifyNetwork', [h('n'), '{}'], { why: 'a closed handle' }),
      step('HcnCloseNetwork', [{ rawHandle: 0x7fff1234 }], { why: 'never handed out' }),
      step('HcnQueryNetworkProperties', [{ rawHandle: 0x7fff1234 }, DEFAULT_QUERY]),
      step('HcnCloseEndpoint', [null], { why: 'NULL' }),
      step('HcnQueryEndpointProperties', [null, DEFAULT_QUERY]),
      step('HcnQueryEndpointProperties', [h('net'), DEFAULT_QUERY], { why: 'a network handle' }),
      step('HcnCloseNamespace', [h('ep')], { why: 'an endpoint handle' }),
      step('HcnCreateEndpoint', [h('ep'), ZERO, endpointDoc('x', {})], { why: 'an endpoint as the network' }),
      step('HcnQueryEndpointProperties', [h('ep'), DEFAULT_QUERY], { why: 'still open after all that' }),
      step('HcnCloseEndpoint', [h('ep')]),
    ];
    const calledBefore = { n: 0 };
    sim.host.events.on('api.call', () => calledBefore.n++);
    const run = await hcncall(steps, { endpoint: sim.endpoint });
    await sim.close();
    const tail = run.calls.slice(SETUP.length);
    expect(tail.map((c) => [c.fn, c.hr])).toEqual([
      ['HcnOpenNetwork', 0],
      ['HcnCloseNetwork', 0],
      ['HcnCloseNetwork', E_HANDLE],
      ['HcnQueryNetworkProperties', E_HANDLE],
      ['HcnModifyNetwork', E_HANDLE],
      ['HcnCloseNetwork', E_HANDLE],
      ['HcnQueryNetworkProperties', E_HANDLE],
      ['HcnCloseEndpoint', E_HANDLE],
      ['HcnQueryEndpointProperties', E_HANDLE],
      ['HcnQueryEndpointProperties', E_HANDLE],
      ['HcnCloseNamespace', E_HANDLE],
      ['HcnCreateEndpoint', E_HANDLE],
      ['HcnQueryEndpointProperties', 0],
      ['HcnCloseEndpoint', 0],
    ]);
    // a bad handle is refused in the DLL: no record, no result, no call reaches the simulator
    for (const c of tail.filter((x) => x.hr === E_HANDLE)) {
      expect([c.result, c.record]).toEqual([null, null]);
    }
    // SETUP's 3 calls, the open, the last query: 5 flat calls
    expect(calledBefore.n).toBe(5);
    // the handle values are the DLL's own (no two live handles equal)
    const handles = run.calls.filter((c) => c.handle).map((c) => c.handle);
    expect(new Set(handles.slice(0, 2)).size).toBe(2);
  });

  it('four threads of one process, 150 iterations each: no failure, every answer the same each time', async () => {
    const sim = await startSim({ seed: 7 });
    const work: readonly Step[] = [
      step('HcnOpenNetwork', [guid(NET_ID)], { out: 'n' }),
      step('HcnQueryNetworkProperties', [h('n'), DEFAULT_QUERY]),
      step('HcnEnumerateEndpoints', ['']),
      step('HcnQueryEndpointProperties', [h('ep'), DEFAULT_QUERY]),
      step('HcnOpenNamespace', [guid('99999999-2222-4333-8444-555555555555')]),
      step('HcnCloseNetwork', [h('n')]),
    ];
    // a lost lock can deadlock the threads: the program is killed after 30 s
    const run = await hcncall(hcncallInput(SETUP) + block('!threads 4 150', work), {
      endpoint: sim.endpoint,
      timeoutMs: 30_000,
    });
    await sim.close();
    expect(run.blocks).toHaveLength(4);
    for (const b of run.blocks) {
      // the namespace open fails each time (ERROR_NOT_FOUND): 150 failures, nothing else
      expect(b).toMatchObject({ calls: 900, failed: 150, badHeap: 0, unstable: 0 });
      expect(b.firstFailure).toEqual({ fn: 'HcnOpenNamespace', hr: 0x80070490 });
    }
  });

  it('two programs at once on one host: 2 × 40 endpoints, all created, every address once', async () => {
    const sim = await startSim({ seed: 7 });
    await hcncall([SETUP[0]!], { endpoint: sim.endpoint });
    const program = (tag: string): Step[] => [
      step('HcnOpenNetwork', [guid(NET_ID)], { out: 'net' }),
      ...Array.from({ length: 40 }, (_, i) =>
        step(
          'HcnCreateEndpoint',
          [h('net'), ZERO, endpointDoc(`${tag}-${i}`, { HostComputeNetwork: NET_ID })],
          {
            out: `e${i}`,
          },
        ),
      ),
      ...Array.from({ length: 40 }, (_, i) =>
        step('HcnQueryEndpointProperties', [h(`e${i}`), DEFAULT_QUERY]),
      ),
    ];
    const [a, b] = await Promise.all([
      hcncall(program('a'), { endpoint: sim.endpoint }),
      hcncall(program('b'), { endpoint: sim.endpoint }),
    ]);
    const ids = sim.host.api.HcnEnumerateEndpoints('');
    await sim.close();
    for (const run of [a, b]) expect(run.calls.filter((c) => c.hr !== 0)).toEqual([]);
    const docs = [...a.calls, ...b.calls]
      .filter((c) => c.fn === 'HcnQueryEndpointProperties')
      .map(
        (c) =>
          JSON.parse(c.result!) as { ID: string; Name: string; IpConfigurations: { IpAddress: string }[] },
      );
    expect(docs).toHaveLength(80);
    expect(new Set(docs.map((d) => d.ID)).size).toBe(80);
    expect(new Set(docs.map((d) => d.IpConfigurations[0]!.IpAddress)).size).toBe(80);
    expect(ids.ok && [...ids.result].sort()).toEqual(docs.map((d) => d.ID).sort());
    // each program saw its own endpoints: names a-* in a, b-* in b
    expect(docs.slice(0, 40).every((d) => d.Name.startsWith('a-'))).toBe(true);
  });
});
