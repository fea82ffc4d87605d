/**
 * Issue 15: under `hnsim wine` a program sees the Windows build of the node's profile, not Wine 8's
 * Windows 7 (6.1.7601) — through RtlGetVersion (hcsshim's osversion.Build), RtlGetNtVersionNumbers
 * (Go's runtime) and the CurrentVersion registry values. winver.exe (native/tests/winver.c) prints
 * them. The expected builds are literals: WS2019 10.0.17763, WS2022 10.0.20348, WS2025 10.0.26100
 * (hcsshim osversion LTSC2019/LTSC2022, Windows Server 2025), and for an explicit HNS version the
 * release of the reference's "HNS version per release" table (11.10 → 2004, 19041).
 *
 * Bugs each test catches: a profile's build not reaching the prefix (the registry not imported, or
 * Wine's HKCU Version overriding it), a prefix shared by two builds at once (one run sees the other's
 * build), `--connect` ignoring the server's profile, GetVersionEx answering what Windows does not
 * (an unmanifested program gets 6.2.9200 on Windows 8.1 and later).
 */
import { beforeAll, expect, it } from 'vitest';
import { createHost } from '../../src/host/host.js';
import { describeWine, hnsim, keyValues, readyWine, runProgram, serveChild, serveHost } from './kit.js';
import { ipPrograms } from './programs.js';

let winver = '';

function expectBuild(out: Record<string, string>, build: number, productName: string): void {
  expect(out['RtlGetVersion.status']).toBe('0');
  expect(out['RtlGetVersion']).toBe(`10.0.${build}`);
  expect(out['RtlGetNtVersionNumbers']).toBe(`10.0.${build}`);
  expect(out['RtlGetVersion.productType']).toBe('3'); // VER_NT_SERVER
  expect(out['RtlGetVersion.platform']).toBe('2'); // VER_PLATFORM_WIN32_NT
  expect(out['RtlGetVersion.csd']).toBe('');
  // an unmanifested program: the version Windows 8.1 and later give it (GetVersionEx documentation)
  expect(out['GetVersionEx']).toBe('6.2.9200');
  expect(out['HKLM.CurrentBuild']).toBe(String(build));
  expect(out['HKLM.CurrentBuildNumber']).toBe(String(build));
  expect(out['HKLM.CurrentMajorVersionNumber']).toBe('10');
  expect(out['HKLM.CurrentMinorVersionNumber']).toBe('0');
  expect(out['HKLM.ProductName']).toBe(productName);
  expect(out['HKLM.InstallationType']).toBe('Server');
  expect(out['HKLM.ProductType']).toBe('ServerNT');
  expect(out['HKLM.CSDVersion']).toBe('<none>');
  expect(out['HKCU.Version']).toBe('<none>');
}

describeWine('the Windows version per profile (issue 15)', () => {
  beforeAll(async () => {
    await readyWine();
    winver = (await ipPrograms()).winver;
  }, 600_000);

  it.each([
    ['ws2019', 17763, 'Windows Server 2019 Datacenter'],
    ['ws2022', 20348, 'Windows Server 2022 Datacenter'],
    ['ws2025', 26100, 'Windows Server 2025 Datacenter'],
    ['11.10', 19041, 'Windows Server Datacenter'],
    ['15.4', 26100, 'Windows Server 2025 Datacenter'],
  ])('hnsim wine --profile %s: Windows 10.0.%i', async (profile, build, productName) => {
    const r = await hnsim(['wine', '--profile', profile, '--', winver]);
    expect(r.code, r.stderr).toBe(0);
    expectBuild(keyValues(r.stdout), build, productName);
  });

  it('the default profile (ws2022) when none is named; the DisplayVersion of releases that have one', async () => {
    const r = await hnsim(['wine', '--', winver]);
    const out = keyValues(r.stdout);
    expectBuild(out, 20348, 'Windows Server 2022 Datacenter');
    expect(out['HKLM.DisplayVersion']).toBe('21H2');
    expect(out['HKLM.ReleaseId']).toBe('2009');
  });

  it('--connect: the running server profile', async () => {
    const server = await serveChild(['--profile', 'ws2019']);
    try {
      const r = await hnsim(['wine', '--connect', server.endpoint, '--', winver]);
      expect(r.code, r.stderr).toBe(0);
      expectBuild(keyValues(r.stdout), 17763, 'Windows Server 2019 Datacenter');
    } finally {
      await server.stop();
    }
  });

  it('two programs for two profiles at once, one prefix: each sees its own build', async () => {
    const a = await serveHost(createHost({ profile: 'ws2019' }));
    const b = await serveHost(createHost({ profile: 'ws2025' }));
    try {
      const runs = await Promise.all(
        [a, b, a, b].map((sim) => runProgram(winver, '', { endpoint: sim.endpoint })),
      );
      expect(runs.map((r) => keyValues(r.stdout)['RtlGetVersion'])).toEqual([
        '10.0.17763',
        '10.0.26100',
        '10.0.17763',
        '10.0.26100',
      ]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
