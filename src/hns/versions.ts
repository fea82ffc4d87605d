/**
 * HNS versions, host profiles and the supported-features table (reference hns-hcs.md §4,
 * vfp-dataplane.md §8). Ranges are data, as in hcsshim's hcnglobals.go: min and max inclusive,
 * a max minor of MAX_MINOR meaning "the rest of that major".
 */
import { isJsonObject } from '../core/json.js';

export interface HnsVersion {
  readonly major: number;
  readonly minor: number;
}

export const MAX_MINOR = 0x7fffffff;
export const MAX_MAJOR = 0x7fffffff;

export interface VersionRange {
  readonly min: HnsVersion;
  readonly max: HnsVersion;
}

function v(major: number, minor: number): HnsVersion {
  return { major, minor };
}
function from(major: number, minor: number): VersionRange {
  return { min: v(major, minor), max: v(MAX_MAJOR, MAX_MINOR) };
}
function within(major: number, minor: number): VersionRange {
  return { min: v(major, minor), max: v(major, MAX_MINOR) };
}

export function compareVersion(a: HnsVersion, b: HnsVersion): number {
  return a.major !== b.major ? a.major - b.major : a.minor - b.minor;
}

export function inRange(ver: HnsVersion, r: VersionRange): boolean {
  return compareVersion(ver, r.min) >= 0 && compareVersion(ver, r.max) <= 0;
}

/** Feature name → ranges in which it is supported, and the name hcsshim's checker prints. */
export const FEATURES = {
  Acl: { ranges: [from(7, 2)], display: 'ACL' },
  V2: { ranges: [from(9, 2)], display: 'V2 Api/Schema' },
  RemoteSubnet: { ranges: [from(9, 2)], display: 'Remote Subnet' },
  HostRoute: { ranges: [from(9, 2)], display: 'Host Route' },
  DSR: { ranges: [within(9, 3), from(10, 2)], display: 'Direct Server Return (DSR)' },
  Slash32EndpointPrefixes: { ranges: [within(9, 3), from(10, 4)], display: 'Slash 32 Endpoint prefixes' },
  AclSupportForProtocol252: {
    ranges: [from(11, 0)],
    display: 'HNS ACL Policies to support protocol 252 for VXLAN',
  },
  SessionAffinity: { ranges: [from(12, 0)], display: 'Session Affinity' },
  IPv6DualStack: { ranges: [from(11, 10)], display: 'IPv6 DualStack' },
  SetPolicy: { ranges: [from(13, 0)], display: 'SetPolicy' },
  VxlanPort: { ranges: [from(10, 3)], display: 'VXLAN port configuration' },
  L4Proxy: {
    ranges: [within(9, 5), within(10, 5), within(11, 11), within(12, 1), from(13, 1)],
    display: 'L4ProxyPolicy',
  },
  L4WfpProxy: { ranges: [from(13, 2)], display: 'L4WfpProxyPolicy' },
  TierAcl: { ranges: [from(14, 0)], display: 'TierAcl' },
  NetworkACL: { ranges: [from(15, 0)], display: 'NetworkACL' },
  NestedIpSet: { ranges: [from(15, 0)], display: 'NestedIpSet' },
  DisableHostPort: { ranges: [from(15, 1)], display: 'DisableHostPort' },
  ModifyLoadbalancer: { ranges: [from(15, 4)], display: 'ModifyLoadbalancer' },
  Accelnet: { ranges: [from(15, 4)], display: 'Accelnet' },
} as const satisfies Record<string, { ranges: readonly VersionRange[]; display: string }>;

export type FeatureName = keyof typeof FEATURES;

export function supports(ver: HnsVersion, feature: FeatureName): boolean {
  return FEATURES[feature].ranges.some((r) => inRange(ver, r));
}

/** The `SupportedFeatures` document hcsshim builds (hcnsupport.go), keys as its JSON tags (`ACL`, `API`). */
export interface SupportedFeatures {
  ACL: { AclAddressLists: boolean; AclHostRulePriority: boolean; AclPortRanges: boolean; AclRuleId: boolean };
  API: { V1: boolean; V2: boolean };
  RemoteSubnet: boolean;
  HostRoute: boolean;
  DSR: boolean;
  Slash32EndpointPrefixes: boolean;
  AclSupportForProtocol252: boolean;
  SessionAffinity: boolean;
  IPv6DualStack: boolean;
  SetPolicy: boolean;
  VxlanPort: boolean;
  L4Proxy: boolean;
  L4WfpProxy: boolean;
  TierAcl: boolean;
  NetworkACL: boolean;
  NestedIpSet: boolean;
  DisableHostPort: boolean;
  ModifyLoadbalancer: boolean;
  Accelnet: boolean;
}

export function supportedFeatures(ver: HnsVersion): SupportedFeatures {
  const acl = supports(ver, 'Acl');
  return {
    ACL: { AclAddressLists: acl, AclHostRulePriority: acl, AclPortRanges: acl, AclRuleId: acl },
    API: { V1: true, V2: supports(ver, 'V2') },
    RemoteSubnet: supports(ver, 'RemoteSubnet'),
    HostRoute: supports(ver, 'HostRoute'),
    DSR: supports(ver, 'DSR'),
    Slash32EndpointPrefixes: supports(ver, 'Slash32EndpointPrefixes'),
    AclSupportForProtocol252: supports(ver, 'AclSupportForProtocol252'),
    SessionAffinity: supports(ver, 'SessionAffinity'),
    IPv6DualStack: supports(ver, 'IPv6DualStack'),
    SetPolicy: supports(ver, 'SetPolicy'),
    VxlanPort: supports(ver, 'VxlanPort'),
    L4Proxy: supports(ver, 'L4Proxy'),
    L4WfpProxy: supports(ver, 'L4WfpProxy'),
    TierAcl: supports(ver, 'TierAcl'),
    NetworkACL: supports(ver, 'NetworkACL'),
    NestedIpSet: supports(ver, 'NestedIpSet'),
    DisableHostPort: supports(ver, 'DisableHostPort'),
    ModifyLoadbalancer: supports(ver, 'ModifyLoadbalancer'),
    Accelnet: supports(ver, 'Accelnet'),
  };
}

/** A host profile: the HNS service version, the newest HCN schema it speaks, and the OS build. */
export interface HostProfile {
  readonly name: string;
  readonly description: string;
  readonly version: HnsVersion;
  readonly schema: HnsVersion;
  readonly build: number;
  /** Evidence for the version number (docs/model.md). */
  readonly evidence: string;
}

export const PROFILES: Readonly<Record<string, HostProfile>> = {
  ws2019: {
    name: 'ws2019',
    description: 'Windows Server 2019 (1809, build 17763)',
    version: v(9, 5),
    schema: v(2, 0),
    build: 17763,
    evidence:
      'issue report: kube-proxy logs version {9 5} on 1809 (kubernetes#137530); 9.2/9.3 on earlier servicing',
  },
  ws2022: {
    name: 'ws2022',
    description: 'Windows Server 2022 (build 20348)',
    version: v(15, 0),
    schema: v(2, 11),
    build: 20348,
    evidence:
      'inferred: SetPolicy/NESTEDIPSET (gated 13.0/15.0) and TierAcl are used on WS2022 in production; the exact number is not published',
  },
  ws2025: {
    name: 'ws2025',
    description: 'Windows Server 2025 (build 26100)',
    version: v(15, 4),
    schema: v(2, 16),
    build: 26100,
    evidence: 'issue report: HNS 15.4 on AKS Windows Server 2025 (kubernetes#131466)',
  },
};

export const DEFAULT_PROFILE = 'ws2022';

/**
 * The Windows build that shipped an HNS version: the first row at or below it, newest first
 * (reference vfp-dataplane.md §8 and hns-hcs.md §4, "HNS version per release"; each row's evidence
 * is in src/wine/winver.ts, which names the releases). An explicit `--profile 11.10` node reports
 * this build in `GetVersion` and, under Wine, to the program.
 */
export const HNS_VERSION_BUILDS: readonly { readonly from: HnsVersion; readonly build: number }[] = [
  { from: v(15, 4), build: 26100 },
  { from: v(12, 0), build: 20348 },
  { from: v(11, 0), build: 19041 },
  { from: v(10, 0), build: 18362 },
  { from: v(9, 0), build: 17763 },
  { from: v(0, 0), build: 17134 },
];

/** The build of the Windows release that shipped HNS `ver` (HNS_VERSION_BUILDS). */
export function buildOfHnsVersion(ver: HnsVersion): number {
  return (HNS_VERSION_BUILDS.find((r) => compareVersion(ver, r.from) >= 0) ?? HNS_VERSION_BUILDS.at(-1)!)
    .build;
}

/**
 * A profile by name, or an explicit "Major.Minor" HNS version (its schema then follows the nearest
 * named profile at or below it, its build the release that shipped that version). Returns undefined
 * for anything else.
 */
export function resolveProfile(nameOrVersion: string): HostProfile | undefined {
  const named = PROFILES[nameOrVersion.toLowerCase()];
  if (named) return named;
  const m = /^(\d{1,5})\.(\d{1,9})$/.exec(nameOrVersion);
  if (!m) return undefined;
  const ver = v(Number(m[1]), Number(m[2]));
  const base =
    Object.values(PROFILES)
      .filter((p) => compareVersion(p.version, ver) <= 0)
      .sort((a, b) => compareVersion(b.version, a.version))[0] ?? PROFILES.ws2019!;
  return {
    name: `hns-${ver.major}.${ver.minor}`,
    description: `HNS ${ver.major}.${ver.minor} (schema as ${base.name}, build ${buildOfHnsVersion(ver)})`,
    version: ver,
    schema: base.schema,
    build: buildOfHnsVersion(ver),
    evidence: 'explicit version chosen by the user',
  };
}

export function formatVersion(ver: HnsVersion): string {
  return `${ver.major}.${ver.minor}`;
}

/** The profile a snapshot was taken on: a named profile with its HNS version, else that version. */
export function profileOfSnapshot(snapshot: unknown): HostProfile | undefined {
  if (!isJsonObject(snapshot) || typeof snapshot.version !== 'string') return undefined;
  const v = snapshot.version;
  return Object.values(PROFILES).find((p) => formatVersion(p.version) === v) ?? resolveProfile(v);
}
