/**
 * Issue 10: every export of the replacement computenetwork.dll and vmcompute.dll, called as hcsshim
 * calls it (native/tests/hcncall.c under Wine), answers as the flat API does on an identical fresh
 * host (same seed, same calls): the same HRESULT, the same result document, the same error record
 * (test/wine/tables.ts; the handle-free mapping in test/wine/steps.ts).
 *
 * Bugs each check catches:
 * - hr, result and record per step against the flat API: a DLL that maps an export to the wrong flat
 *   function or argument order (Create's GUID and settings swapped, a handle mapped to the wrong ID),
 *   drops or double-encodes the UTF-16 text (the unicode network name), returns the document of a
 *   failed call, loses the ErrorRecord, or turns a failure into S_OK;
 * - a success has no error record: a DLL that writes "" or "{}" there, which hcsshim's checkForErrors
 *   takes for a failure;
 * - out-handles are set on success and NULL on failure;
 * - every returned string is a CoTaskMemAlloc block (IMalloc::DidAlloc), which the caller frees with
 *   CoTaskMemFree: a DLL that returns malloc'd or static memory;
 * - the hosts end in the same state (snapshots equal): an Open or Close with a side effect, a call
 *   sent twice;
 * - literal HRESULTs and records from the reference for key cases (HCN_E_NETWORK_NOT_FOUND with its
 *   record, ERROR_NOT_FOUND for a namespace, HCN_E_PORT_ALREADY_EXISTS, ERROR_VMCOMPUTE_* on the
 *   vmcompute path): a bug the simulator and the DLL would share.
 */
import { beforeAll, expect, it } from 'vitest';
import type { HcnFailure } from '../../src/api/flat.js';
import type { Json } from '../../src/core/json.js';
import { createHost, type HostOptions } from '../../src/host/host.js';
import { describeWine, hcncall, ready, startSim } from './kit.js';
import {
  flatExpect,
  guid,
  h,
  hcncallInput,
  hex,
  observed,
  step,
  ZERO,
  type Expected,
  type Step,
} from './steps.js';
import {
  DETAILED_QUERY,
  endpointDoc,
  HCS_V1,
  HCS_V2,
  natNetwork,
  NET_ID,
  TABLES,
  type Table,
} from './tables.js';

/** vmcompute.dll's result document for a failed Hcs* call: hcsshim's hcsResult {Error, ErrorMessage}. */
function hcsResultDocument(f: HcnFailure): Json {
  return { Error: f.hr | 0, ErrorMessage: f.message };
}

interface Row {
  readonly step: string;
  readonly hr: string;
  readonly result: Json | null;
  readonly record: Json | null;
  readonly handle: Expected['handle'];
}

function row(i: number, s: Step, e: Expected): Row {
  return {
    step: `${i} ${s.fn}${s.why ? ` (${s.why})` : ''}`,
    hr: hex(e.hr),
    result: e.result,
    record: e.record,
    handle: e.handle,
  };
}

/** Run a table both ways and compare; returns the DLL's outputs for more checks. */
async function compare(t: Table, options: HostOptions, flatOptions: HostOptions = options) {
  const sim = await startSim(options);
  let run;
  try {
    run = await hcncall(t.steps, { endpoint: sim.endpoint });
  } finally {
    await sim.close();
  }
  const flatHost = createHost(flatOptions);
  const expected = flatExpect(flatHost.api, t.steps, hcsResultDocument);
  expect(run.calls.map((c) => c.fn)).toEqual(t.steps.map((s) => s.fn));
  const got = run.calls.map((c, i) => row(i, t.steps[i]!, observed(c)));
  const want = expected.map((e, i) => row(i, t.steps[i]!, e));
  expect(got).toEqual(want);

  for (const [i, c] of run.calls.entries()) {
    const where = `step ${i} ${c.fn}`;
    expect(c.missing, where).toBeUndefined();
    // hcsshim's checkForErrors: a non-empty record is an error even with S_OK
    if (c.hr === 0) expect(c.record, where).toBeNull();
    // every string handed out is the COM task allocator's, for CoTaskMemFree
    expect(
      c.heap.every((x) => x === true),
      `${where}: heap ${JSON.stringify(c.heap)}`,
    ).toBe(true);
    const lit = t.steps[i]!.literal;
    if (lit) {
      expect(hex(c.hr), where).toBe(hex(lit.hr));
      if (lit.record !== undefined) expect(JSON.parse(c.record ?? 'null'), where).toEqual(lit.record);
    }
  }
  // nothing the DLL did beside the calls changed the host
  expect(sim.host.snapshot()).toEqual(flatHost.snapshot());
  return { run, expected };
}

describeWine('computenetwork.dll and vmcompute.dll answer as the flat API (issue 10)', () => {
  beforeAll(async () => {
    await ready();
  }, 600_000);

  for (const t of TABLES) {
    it(t.name, async () => {
      const { run } = await compare(t, { seed: 7 });
      // each table has successes and failures
      expect(run.calls.some((c) => c.hr === 0)).toBe(true);
      expect(run.calls.some((c) => c.hr !== 0) || t.steps.every((s) => s.fn === 'HNSCall')).toBe(true);
    });
  }

  it(`${HCS_V1.name}: ERROR_VMCOMPUTE_* as vmcompute.dll spells them, the result document as hcsshim reads it`, async () => {
    // hnsim serve answers computecore's spelling; the flat host of reference spells as vmcompute
    const { run } = await compare(HCS_V1, { seed: 7 }, { seed: 7, hcs: { api: 'vmcompute' } });
    const missing = run.calls.find((c) => c.fn === 'HcsOpenComputeSystem' && c.hr !== 0)!;
    // hcsshim's hcsResult: Error is the HRESULT as an int32, ErrorMessage the text
    expect(JSON.parse(missing.record!)).toMatchObject({ Error: ERROR_VMCOMPUTE_SYSTEM_NOT_FOUND_I32 });
    expect((JSON.parse(missing.record!) as { ErrorMessage: string }).ErrorMessage).toMatch(
      /^A virtual machine or container with the specified identifier does not exist/,
    );
  });

  it(`${HCS_V2.name}: HCS_E_* as computecore.dll spells them`, async () => {
    const { run } = await compare(HCS_V2, { seed: 7 });
    // a failed operation's document is hcsshim's hcsResult, the HRESULT as an int32
    const missing = run.calls.find((c) => c.fn === 'cc:HcsCreateComputeSystem' && c.hr !== 0)!;
    expect(missing.hr).toBe(0x8037010f);
    const outcome = run.calls[run.calls.indexOf(missing) + 1]!;
    expect(JSON.parse(outcome.result!)).toMatchObject({ Error: 0x8037010f | 0 });
  });

  it('large documents both ways: a 100 KB request, 40 KB and 60 KB answers (several TCP reads and writes)', async () => {
    const acls = Array.from({ length: 700 }, (_, i) => ({
      Type: 'ACL',
      Settings: { Action: 'Allow', Direction: 'In', Priority: 1000 + i, RemotePorts: String(1000 + i) },
    }));
    const pods = Array.from({ length: 1000 }, (_, i) =>
      step('HcnCreateEndpoint', [h('net'), ZERO, endpointDoc(`pod-${i}`, { HostComputeNetwork: NET_ID })]),
    );
    const big: Table = {
      name: 'large documents',
      steps: [
        step('HcnCreateNetwork', [guid(NET_ID), natNetwork('nat', '10.128.0', 16)], { out: 'net' }),
        ...pods,
        step('HcnEnumerateEndpoints', ['']),
        step(
          'HcnCreateEndpoint',
          [h('net'), ZERO, endpointDoc('acl', { HostComputeNetwork: NET_ID, Policies: acls })],
          {
            out: 'acl',
          },
        ),
        step('HcnQueryEndpointProperties', [h('acl'), DETAILED_QUERY]),
      ],
    };
    expect(hcncallInput(big.steps).length).toBeGreaterThan(100_000);
    const { run } = await compare(big, { seed: 7 });
    expect(run.calls.at(-3)!.result!.length).toBeGreaterThan(39_000);
    expect(run.calls.at(-1)!.result!.length).toBeGreaterThan(60_000);
  });
});

/** 0xC037010E as the int32 hcsshim's hcsResult.Error holds. */
const ERROR_VMCOMPUTE_SYSTEM_NOT_FOUND_I32 = 0xc037010e | 0;
