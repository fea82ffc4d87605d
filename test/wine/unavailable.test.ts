/**
 * Issue 10: when the simulator cannot be reached, every call fails as calls to a stopped HNS service
 * fail — RPC_S_SERVER_UNAVAILABLE 0x800706BA, "The RPC server is unavailable." (winerror.h; the text
 * hcsshim prints: "hcnEnumerateNetworks failed in Win32: The RPC server is unavailable. (0x6ba)"),
 * with no error record — and quickly, never hanging.
 *
 * Bugs each test catches:
 * - "stopped mid-run": a DLL that keeps using a connection the server closed (the request is lost:
 *   0x800706BE or a hang) instead of reconnecting and finding nothing (0x800706BA), or that caches
 *   its failure and never reconnects once the simulator is back;
 * - "not set" / "refused" / malformed: a crash, a hang, or a made-up HRESULT when HNSIM_ENDPOINT is
 *   missing, malformed or nobody listens; a failure record invented where Windows has none; a
 *   `localhost` endpoint that only tries the first address it resolves to;
 * - "silent server": a read with no timeout (the call would hang forever): HNSIM_TIMEOUT_MS bounds it
 *   and the call fails with RPC_S_CALL_FAILED 0x800706BE (the request went out; HNS may have done it).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { describeWine, hcncall, ready, serveHost, startSim, winPath } from './kit.js';
import { guid, h, hcncallInput, step, ZERO, type CallOutput, type Step } from './steps.js';
import { DEFAULT_QUERY, endpointDoc, natNetwork, NET_ID } from './tables.js';

const RPC_S_SERVER_UNAVAILABLE = 0x800706ba;
const RPC_S_CALL_FAILED = 0x800706be;

/** One call of each kind of signature, on both DLLs. */
const EVERY_KIND: readonly Step[] = [
  step('HcnEnumerateNetworks', ['']),
  step('HcnCreateNetwork', [ZERO, natNetwork('nat')], { out: 'n' }),
  step('HcnOpenNetwork', [guid(NET_ID)], { out: 'n2' }),
  step('HcnDeleteNetwork', [guid(NET_ID)]),
  step('HcnEnumerateEndpoints', ['']),
  step('HcnOpenNamespace', [guid(NET_ID)]),
  step('HcnCreateLoadBalancer', [ZERO, '{}']),
  step('HcnEnumerateSdnRoutes', ['']),
  step('HNSCall', ['GET', '/networks/', '']),
  step('HcsEnumerateComputeSystems', ['']),
  step('HcsCreateComputeSystem', ['c1', '{}']),
  step('HcsOpenComputeSystem', ['c1']),
];

function expectUnavailable(calls: readonly CallOutput[], withinUs: number): void {
  expect(calls.length).toBeGreaterThan(0);
  for (const c of calls) {
    const where = `${c.fn}: ${JSON.stringify(c)}`;
    expect(c.hr, where).toBe(RPC_S_SERVER_UNAVAILABLE);
    // the system text of 0x6BA: Windows says "The RPC server is unavailable.", Wine "RPC server unavailable."
    expect(c.msg, where).toMatch(/^(The )?RPC server (is )?unavailable\.$/);
    expect(c.result, where).toBeNull();
    // a stopped service writes no ErrorRecord: the RPC never reached it
    expect(c.fn.startsWith('Hcs') ? true : c.record === null, where).toBe(true);
    if (c.handle !== null) expect(c.handle, where).toBe(0);
    expect(c.us, where).toBeLessThan(withinUs);
  }
}

/** Wait (polling) until a file exists. */
async function waitFile(path: string, ms = 60_000): Promise<void> {
  const until = performance.now() + ms;
  while (!existsSync(path)) {
    if (performance.now() > until) throw new Error(`timed out waiting for ${path}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describeWine('the DLLs when the simulator cannot be reached (issue 10)', () => {
  beforeAll(async () => {
    await ready();
  }, 600_000);

  it('HNSIM_ENDPOINT not set: every call fails at once with 0x800706BA, "The RPC server is unavailable."', async () => {
    const run = await hcncall(EVERY_KIND, {});
    expectUnavailable(run.calls, 1_000_000);
  });

  it('HNSIM_ENDPOINT as localhost:PORT reaches the simulator; a malformed one is 0x800706BA', async () => {
    const sim = await startSim({ seed: 7 });
    try {
      const port = sim.tcp.port;
      const ok = await hcncall([step('HcnEnumerateNetworks', [''])], { endpoint: `localhost:${port}` });
      expect(ok.calls.map((c) => [c.hr, c.result])).toEqual([[0, '[]']]);
      for (const bad of [`127.0.0.1`, `127.0.0.1:`, `:${port}`, `127.0.0.1:${port}x`]) {
        const run = await hcncall([step('HcnEnumerateNetworks', [''])], { endpoint: bad });
        expectUnavailable(run.calls, 1_000_000);
      }
    } finally {
      await sim.close();
    }
  });

  it('nobody listening on the port: the same, at once', async () => {
    // a port that was just free: bound, then closed
    const sim = await startSim();
    const endpoint = sim.endpoint;
    await sim.close();
    const run = await hcncall(EVERY_KIND, { endpoint });
    expectUnavailable(run.calls, 1_000_000);
  });

  it('the simulator stopped mid-run: the next calls fail with 0x800706BA at once; started again, they succeed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hnsim-wine-'));
    const sim = await startSim({ seed: 7 });
    const [stopped, goOn, restarted, goOnAgain] = ['stopped', 'go', 'restarted', 'again'].map((f) =>
      join(dir, f),
    ) as [string, string, string, string];
    const before: Step[] = [
      step('HcnCreateNetwork', [guid(NET_ID), natNetwork('nat')], { out: 'net' }),
      step('HcnCreateEndpoint', [h('net'), ZERO, endpointDoc('ep', { HostComputeNetwork: NET_ID })], {
        out: 'ep',
      }),
    ];
    const during: Step[] = [
      step('HcnQueryNetworkProperties', [h('net'), DEFAULT_QUERY], { why: 'a handle from before the stop' }),
      step('HcnEnumerateNetworks', ['']),
      step('HcnCreateEndpoint', [h('net'), ZERO, endpointDoc('ep2', { HostComputeNetwork: NET_ID })]),
      step('HcnCloseEndpoint', [h('ep')], { why: 'a close asks nothing of HNS' }),
    ];
    const after: Step[] = [
      step('HcnQueryNetworkProperties', [h('net'), DEFAULT_QUERY]),
      step('HcnEnumerateEndpoints', ['']),
    ];
    const input =
      hcncallInput(before) +
      `!touch ${winPath(stopped)}\n!wait ${winPath(goOn)} 60000\n` +
      hcncallInput(during) +
      `!touch ${winPath(restarted)}\n!wait ${winPath(goOnAgain)} 60000\n` +
      hcncallInput(after);
    const running = hcncall(input, { endpoint: sim.endpoint, timeoutMs: 120_000 });
    let again;
    try {
      await waitFile(stopped);
      await sim.close(); // the connection the DLL keeps is closed by the server
      writeFileSync(goOn, '');
      await waitFile(restarted);
      again = await serveHost(sim.host, sim.tcp.port); // the same host on the same port
      writeFileSync(goOnAgain, '');
      const run = await running;
      const [b, d, a] = [run.calls.slice(0, 2), run.calls.slice(2, 6), run.calls.slice(6)];
      expect(b.map((c) => c.hr)).toEqual([0, 0]);
      expectUnavailable(
        d.filter((c) => c.fn !== 'HcnCloseEndpoint'),
        1_000_000,
      );
      expect(d[3]!.hr).toBe(0);
      expect(a.map((c) => c.hr)).toEqual([0, 0]);
      expect(JSON.parse(a[1]!.result!)).toHaveLength(1);
    } finally {
      await again?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a server that never answers: the call ends after HNSIM_TIMEOUT_MS with 0x800706BE, the next one too', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((s) => {
      sockets.push(s);
      s.on('data', () => undefined);
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const port = (silent.address() as { port: number }).port;
    try {
      const run = await hcncall(
        [step('HcnEnumerateNetworks', ['']), step('HNSCall', ['GET', '/networks/', ''])],
        {
          endpoint: `127.0.0.1:${port}`,
          env: { HNSIM_TIMEOUT_MS: '700' },
        },
      );
      for (const c of run.calls) {
        expect(c.hr, c.fn).toBe(RPC_S_CALL_FAILED);
        expect(c.us, c.fn).toBeGreaterThan(600_000);
        expect(c.us, c.fn).toBeLessThan(3_000_000);
      }
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });
});
