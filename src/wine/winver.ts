/**
 * The Windows version a program under `hnsim wine` sees (issue 15): the build of the simulated node's
 * profile, not Wine 8's default Windows 7 (6.1.7601). hcsshim's `osversion` gates read it through
 * RtlGetVersion, ncproxy's tests skip below 21H1 (19043), and a program on a WS2019 node must take
 * the WS2019 paths.
 *
 *   windowsVersionOf({ name: 'ws2019', version: { major: 9, minor: 5 } }).build   // 17763
 *   windowsVersionOf({ name: 'hns-11.10', version: { major: 11, minor: 10 } }).build   // 19041
 *   registryFile(v)   // the .reg text `reg import` applies to a prefix (see src/wine/prefix.ts)
 *
 * Wine 8 answers RtlGetVersion, RtlGetNtVersionNumbers and GetVersionEx from the registry values
 * `winecfg /v <version>` writes (HKLM\Software\Microsoft\Windows NT\CurrentVersion: the
 * `CurrentVersion` string "10.0", `CurrentBuildNumber`; ProductOptions `ProductType`), unless
 * HKCU\Software\Wine `Version` (or an AppDefaults entry) names one of its fixed versions — and
 * Wine 8's newest, `win10`, is 10.0.18362. So the registry is how a prefix reports 10.0.17763,
 * 10.0.20348 or 10.0.26100 (docs/wine.md "Windows version"; docs/model.md, "Real binaries under Wine").
 */

import { buildOfHnsVersion } from '../hns/versions.js';

/** What a version is chosen from: a host profile's name and HNS version (src/hns/versions.ts, GetVersion). */
export interface VersionSource {
  readonly name: string;
  readonly version: { readonly major: number; readonly minor: number };
}

/** The Windows a prefix reports: RtlGetVersion's numbers and the CurrentVersion registry values. */
export interface WindowsVersion {
  readonly major: 10;
  readonly minor: 0;
  readonly build: number;
  /** `UBR` (update build revision): 0, the release as shipped (our choice: no cumulative update). */
  readonly ubr: number;
  readonly productName: string;
  readonly editionId: string;
  /** `ReleaseId`: the version number of the release (1809 … 2009, frozen at 2009 since 20H2). */
  readonly releaseId: string;
  /** `DisplayVersion` (from 20H2 on): 21H2, 24H2; absent before. */
  readonly displayVersion?: string;
  /** Where the build number comes from (docs/model.md). */
  readonly evidence: string;
}

function server(
  build: number,
  productName: string,
  releaseId: string,
  displayVersion: string | undefined,
  evidence: string,
): WindowsVersion {
  return {
    major: 10,
    minor: 0,
    build,
    ubr: 0,
    productName,
    editionId: 'ServerDatacenter',
    releaseId,
    ...(displayVersion ? { displayVersion } : {}),
    evidence,
  };
}

/**
 * The named profiles' Windows (src/hns/versions.ts PROFILES; build numbers as hcsshim's
 * osversion/windowsbuilds.go names them: RS5 / LTSC2019 17763, V21H2Server / LTSC2022 20348, and
 * Windows Server 2025's 26100).
 */
const NAMED: Readonly<Record<string, WindowsVersion>> = {
  ws2019: server(
    17763,
    'Windows Server 2019 Datacenter',
    '1809',
    undefined,
    'hcsshim osversion: LTSC2019 = RS5 = 17763',
  ),
  ws2022: server(
    20348,
    'Windows Server 2022 Datacenter',
    '2009',
    '21H2',
    'hcsshim osversion: LTSC2022 = V21H2Server = 20348',
  ),
  ws2025: server(
    26100,
    'Windows Server 2025 Datacenter',
    '2009',
    '24H2',
    'Windows Server 2025 release information: build 26100; HNS 15.4 reported on it (kubernetes#131466)',
  ),
};

/**
 * The releases an explicit HNS version (`--profile 11.10`) maps to, by build: src/hns/versions.ts
 * `HNS_VERSION_BUILDS` picks the build (the first row at or below the version, newest first), this
 * table names the release. Rows and their evidence:
 *
 * | HNS     | release (build)                  | evidence |
 * |---------|----------------------------------|----------|
 * | ≥ 15.4  | Windows Server 2025 (26100)      | reported: 15.4 on WS2025 (kubernetes#131466) |
 * | 12.0 …  | Windows Server 2022 (20348)      | inferred: 12.0 first in Insider 19551, released in WS2022; hnsim's ws2022 is 15.0; 15.1–15.3 our choice |
 * | 11.x    | Windows Server 2004 (19041)      | reported: {11 10} logged on 10.0.19041.867 (hcsshim PR #1003) |
 * | 10.x    | Windows Server 1903 (18362)      | inferred from hcsshim's ranges (DSR from 10.2, "19H1 or later") |
 * | 9.x     | Windows Server 2019 (17763)      | reported: 9.2 "RS5 plus Remote Subnet DCR" (hcsshim #436), 9.3/9.5 on 1809 |
 * | below 9 | Windows Server 1803 (17134)      | code: hcsshim's HNSVersion1803 = 7.2; 8.x and below 7.2 our choice |
 */
const BY_BUILD: ReadonlyMap<number, WindowsVersion> = new Map([
  [26100, NAMED.ws2025!],
  [
    20348,
    {
      ...NAMED.ws2022!,
      evidence: 'HNS 12.0–15.3: inferred (first released in Windows Server 2022; 15.1–15.3 our choice)',
    },
  ],
  [
    19041,
    server(
      19041,
      'Windows Server Datacenter',
      '2004',
      undefined,
      'HNS 11.x: reported, {11 10} on 10.0.19041.867 (microsoft/hcsshim PR #1003)',
    ),
  ],
  [
    18362,
    server(
      18362,
      'Windows Server Datacenter',
      '1903',
      undefined,
      'HNS 10.x: inferred from hcsshim version ranges (DSR from 10.2, "Windows Server 19H1 or later")',
    ),
  ],
  [
    17763,
    {
      ...NAMED.ws2019!,
      evidence: 'HNS 9.x: reported on 1809 / WS2019 (hcsshim #436, kubernetes#93304, kubernetes#137530)',
    },
  ],
  [
    17134,
    server(
      17134,
      'Windows Server Datacenter',
      '1803',
      undefined,
      'HNS below 9: hcsshim HNSVersion1803 = 7.2 (ACLs); 8.x and below 7.2 our choice',
    ),
  ],
]);

/** The Windows a node of this profile runs: a named profile's own release, else by HNS version. */
export function windowsVersionOf(profile: VersionSource): WindowsVersion {
  const named = NAMED[profile.name.toLowerCase()];
  if (named) return named;
  const build = buildOfHnsVersion(profile.version);
  const release = BY_BUILD.get(build);
  if (!release) throw new Error(`no Windows release named for build ${build} (src/wine/winver.ts BY_BUILD)`);
  return release;
}

/** `10.0.17763`. */
export function versionText(v: WindowsVersion): string {
  return `${v.major}.${v.minor}.${v.build}`;
}

const CURRENT_VERSION = 'HKEY_LOCAL_MACHINE\\Software\\Microsoft\\Windows NT\\CurrentVersion';
const PRODUCT_OPTIONS = 'HKEY_LOCAL_MACHINE\\System\\CurrentControlSet\\Control\\ProductOptions';
const CONTROL_WINDOWS = 'HKEY_LOCAL_MACHINE\\System\\CurrentControlSet\\Control\\Windows';
const WINE_CONFIG = 'HKEY_CURRENT_USER\\Software\\Wine';

function dword(n: number): string {
  return `dword:${(n >>> 0).toString(16).padStart(8, '0')}`;
}

function str(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * The registry file that makes a prefix report `v` (Wine's `reg import` reads it): the values
 * Wine 8's `winecfg /v win10` writes — `CurrentVersion` "10.0" (Windows itself keeps "6.3" there,
 * but Wine 8 reads the version from that string only), `CurrentBuild` and `CurrentBuildNumber`,
 * `CurrentMajorVersionNumber` / `CurrentMinorVersionNumber`, `ProductName`, no `CSDVersion` — with
 * the server's `ProductType` `ServerNT`, `EditionID`, `InstallationType`, `ReleaseId`,
 * `DisplayVersion` and `UBR`, and no HKCU\Software\Wine `Version` overriding them.
 */
export function registryFile(v: WindowsVersion): string {
  const lines = [
    'Windows Registry Editor Version 5.00',
    '',
    `[${CURRENT_VERSION}]`,
    `"CurrentVersion"=${str(`${v.major}.${v.minor}`)}`,
    `"CurrentMajorVersionNumber"=${dword(v.major)}`,
    `"CurrentMinorVersionNumber"=${dword(v.minor)}`,
    `"CurrentBuild"=${str(String(v.build))}`,
    `"CurrentBuildNumber"=${str(String(v.build))}`,
    `"UBR"=${dword(v.ubr)}`,
    `"ProductName"=${str(v.productName)}`,
    `"EditionID"=${str(v.editionId)}`,
    `"InstallationType"=${str('Server')}`,
    `"ReleaseId"=${str(v.releaseId)}`,
    `"DisplayVersion"=${v.displayVersion ? str(v.displayVersion) : '-'}`,
    '"CSDVersion"=-',
    '',
    `[${PRODUCT_OPTIONS}]`,
    `"ProductType"=${str('ServerNT')}`,
    '',
    `[${CONTROL_WINDOWS}]`,
    `"CSDVersion"=${dword(0)}`,
    '',
    `[${WINE_CONFIG}]`,
    '"Version"=-',
    '',
  ];
  return lines.join('\r\n');
}
