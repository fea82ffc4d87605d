/**
 * The replacement DLLs build with mingw-w64 and export exactly the functions a Windows program
 * binds (issue 10). In `npm run test:wine` (compiling takes tens of seconds: issue 15 keeps it out of
 * `npm test`), skipped like the other Wine tests when mingw-w64 is missing. The expected names are
 * copied from hcsshim's generated bindings (microsoft/hcsshim 7c9ff7f48, v0.15.0-rc.4+4), not
 * from the DLL sources.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import {
  buildDlls,
  buildProgram,
  DLL_NAMES,
  readPeExports,
  readPeForwards,
  readPeImports,
  type BuiltDlls,
} from '../../src/wine/build.js';
import { COMPUTECORE_ZSYSCALL, HCN_EXTRA, HCN_ZSYSCALL, VMCOMPUTE_ZSYSCALL } from './hcsshim-exports.js';
import { describeWine } from './kit.js';

const sorted = (names: readonly string[]): string[] => [...names].sort();
/** Windows system DLLs only: no libgcc_s or libwinpthread to ship beside them. */
const SYSTEM_DLLS = ['KERNEL32.dll', 'msvcrt.dll', 'ole32.dll', 'WS2_32.dll'];

/**
 * The IP Helper functions hnsim's iphlpapi.dll answers from the node: the ones issue 15 names (what
 * Go's net package — GetAdaptersAddresses — and golang.org/x/sys/windows bind), and their siblings
 * a caller of those meets (the legacy tables, the LUID/GUID/alias conversions, FreeMibTable).
 */
const IPHLPAPI_OWN = [
  'GetAdaptersAddresses',
  'GetAdaptersInfo',
  'GetIfEntry2',
  'GetIfEntry2Ex',
  'GetIfTable2',
  'GetIfTable2Ex',
  'GetIfEntry',
  'FreeMibTable',
  'GetIpForwardTable2',
  'GetIpForwardTable',
  'GetBestRoute2',
  'GetBestRoute',
  'GetBestInterface',
  'GetBestInterfaceEx',
  'ConvertInterfaceLuidToIndex',
  'ConvertInterfaceIndexToLuid',
  'ConvertInterfaceLuidToAlias',
  'ConvertInterfaceAliasToLuid',
  'ConvertInterfaceLuidToGuid',
  'ConvertInterfaceGuidToLuid',
  'GetUnicastIpAddressTable',
  'GetUnicastIpAddressEntry',
  'GetIpAddrTable',
  'GetNumberOfInterfaces',
  'NotifyIpInterfaceChange',
  'NotifyUnicastIpAddressChange',
  'NotifyRouteChange2',
  'CancelMibChangeNotify2',
];

const scratch = mkdtempSync(join(tmpdir(), 'hnsim-wine-build-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describeWine('replacement DLLs (mingw-w64)', () => {
  let built: BuiltDlls;

  it('build without compiler warnings', async () => {
    // the shared cache: a build of these sources made earlier (by the Wine tests too) is reused
    built = await buildDlls();
    expect(built.warnings).toBe('');
    expect(built.dlls.map((d) => d.slice(built.outDir.length + 1))).toEqual([...DLL_NAMES]);
  }, 600_000);

  it('computenetwork.dll exports what hcsshim binds, and the documented extras', () => {
    expect(sorted(readPeExports(built.dlls[0]!))).toEqual(sorted([...HCN_ZSYSCALL, ...HCN_EXTRA]));
  });

  it('vmcompute.dll exports HNSCall and the internal/vmcompute functions', () => {
    expect(sorted(readPeExports(built.dlls[1]!))).toEqual(sorted(VMCOMPUTE_ZSYSCALL));
  });

  it('computecore.dll exports the internal/computecore functions', () => {
    expect(sorted(readPeExports(built.dlls[2]!))).toEqual(sorted(COMPUTECORE_ZSYSCALL));
  });

  it('iphlpapi.dll exports what Go and golang.org/x/sys/windows call, answered by hnsim (issue 15)', () => {
    const dll = built.dlls[DLL_NAMES.indexOf('iphlpapi.dll')]!;
    expect(sorted(readPeExports(dll))).toEqual(sorted(IPHLPAPI_OWN));
    expect(readPeForwards(dll)).toEqual({});
  });

  it("iphlpapi.dll forwards every other export of Wine's iphlpapi to iphlpapi_wine.dll", async () => {
    const wine = [
      'GetNetworkParams',
      'GetAdaptersAddresses',
      'IcmpSendEcho',
      '_PfTestPacket@20',
      'if_nametoindex',
    ];
    const b = await buildDlls({ iphlpapiForwards: wine, outDir: join(scratch, 'forwarding') });
    const dll = b.dlls[DLL_NAMES.indexOf('iphlpapi.dll')]!;
    expect(sorted(readPeExports(dll))).toEqual(
      sorted([...IPHLPAPI_OWN, 'GetNetworkParams', 'IcmpSendEcho', '_PfTestPacket@20', 'if_nametoindex']),
    );
    expect(readPeForwards(dll)).toEqual({
      GetNetworkParams: 'iphlpapi_wine.GetNetworkParams',
      IcmpSendEcho: 'iphlpapi_wine.IcmpSendEcho',
      '_PfTestPacket@20': 'iphlpapi_wine._PfTestPacket@20',
      if_nametoindex: 'iphlpapi_wine.if_nametoindex',
    });
  }, 600_000);

  it('import from system DLLs only', () => {
    for (const dll of built.dlls) expect(sorted(readPeImports(dll))).toEqual(sorted(SYSTEM_DLLS));
  });

  it('reuse an unchanged build', async () => {
    const before = statSync(built.dlls[0]!).mtimeMs;
    const again = await buildDlls({ outDir: built.outDir });
    expect(again.built).toBe(false);
    expect(statSync(again.dlls[0]!).mtimeMs).toBe(before);
  });

  it('compile a test program once, then reuse it', async () => {
    const src = join(scratch, 'hello.c');
    writeFileSync(src, '#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n');
    const exe = join(scratch, 'bin', 'hello.exe');
    const first = await buildProgram([src], exe);
    expect(first).toMatchObject({ exe, built: true, warnings: '' });
    expect(readPeImports(exe)).toContain('KERNEL32.dll');
    expect((await buildProgram(src, exe)).built).toBe(false);
  });
});
