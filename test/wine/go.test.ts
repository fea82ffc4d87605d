/**
 * Issue 10: `GOOS=windows go test -exec 'hnsim wine --'` runs a Windows-built Go test
 * (native/tests/go, standard library only, binding the DLLs as hcsshim does) against a simulated
 * node and reports its failures with a non-zero status. Needs Go (Debian's golang-go; 1.19 is
 * enough); skipped without it unless HNSIM_WINE_REQUIRED=1.
 *
 * Bugs each test catches:
 * - `hnsim wine` not usable as an -exec wrapper (arguments after `--` not passed to the program,
 *   its exit status or output lost, a stdout held open so `go test` waits);
 * - a failing Windows test reported as passing (the exit status of the program not returned);
 * - the DLL contract as a Go caller sees it: system32-only loading, CoTaskMemFree, hcsshim's
 *   Win32FromHresult reduction (ERROR_NOT_FOUND), the vmcompute spelling;
 * - Go's net package not seeing the node (issue 15): net.Interfaces / InterfaceByName / Addrs must
 *   show `Ethernet`, then `vEthernet (Ethernet)` with its address while an L2Bridge network exists
 *   (created and deleted through computenetwork.dll), then `Ethernet` again.
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { baseEnv, describeWine, HNSIM_BIN, NATIVE_TESTS, ready, startSim, WINE_REQUIRED } from './kit.js';

const GO_DIR = join(NATIVE_TESTS, 'go');
const TESTS = [
  'TestNetworkLifecycle',
  'TestMissingNamespaceIsElementNotFound',
  'TestEndpointAttachedToNamespace',
  'TestVmcompute',
  'TestInterfacesFollowTheNode',
];

function goVersion(): string | undefined {
  const r = spawnSync('go', ['version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** `go test -exec 'node bin/hnsim.js wine [flags] --'` in native/tests/go. */
function goTest(wineFlags: readonly string[]): Promise<{ code: number | null; out: string }> {
  const exec = [process.execPath, HNSIM_BIN, 'wine', ...wineFlags, '--'].join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('go', ['test', '-count=1', '-v', '-exec', exec, '.'], {
      cwd: GO_DIR,
      env: baseEnv({
        GOOS: 'windows',
        GOARCH: 'amd64',
        GOFLAGS: '-mod=mod',
        GOPROXY: 'off',
        CGO_ENABLED: '0',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

describeWine('a Windows-built Go test under go test -exec "hnsim wine --" (issue 10)', () => {
  const go = goVersion();
  beforeAll(async () => {
    await ready();
  }, 600_000);

  it.skipIf(!go && !WINE_REQUIRED)('passes against a fresh node: every test reported PASS', async () => {
    expect(go, 'Go is not installed (Debian: apt-get install golang-go)').toBeDefined();
    const r = await goTest([]);
    expect(r.code, r.out).toBe(0);
    for (const t of TESTS) expect(r.out).toContain(`--- PASS: ${t}`);
    expect(r.out).toMatch(/^ok\s+hnsim\.test\/wine/m);
  });

  it.skipIf(!go && !WINE_REQUIRED)(
    'fails with a non-zero status when the node answers wrongly (a fault rule on a running simulator)',
    async () => {
      const sim = await startSim({ seed: 7 });
      sim.host.faults.fail({ method: 'HcnCreateNetwork' }, 'E_ACCESSDENIED');
      try {
        const r = await goTest(['--connect', sim.endpoint]);
        expect(r.code, r.out).not.toBe(0);
        expect(r.out).toContain('--- FAIL: TestNetworkLifecycle');
        expect(r.out).toContain('HcnCreateNetwork: 0x80070005');
        // the tests that do not create networks still pass
        expect(r.out).toContain('--- PASS: TestMissingNamespaceIsElementNotFound');
        expect(r.out).toMatch(/^FAIL\s+hnsim\.test\/wine/m);
      } finally {
        await sim.close();
      }
    },
  );
});
