/**
 * hcsshim hcn/hcnsupport_test.go against the simulator: `/globals/version` per host profile, the
 * SupportedFeatures document it yields, every XSupported checker agreeing with it, and the
 * TestIsFeatureSupported range vectors (reference hns-hcs.md §0.4, §4).
 */
import { describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/host.js';
import { supportedFeatures, supports, type FeatureName, type HnsVersion } from '../../src/hns/versions.js';
import { HcsshimFlow } from './hcsshim-flow.js';

const PROFILES = ['ws2019', 'ws2022', 'ws2025'] as const;

/** hcsshim's GetGlobals(): `GET /globals/version` → `{"Major","Minor"}`. */
function hnsVersion(profile: string): HnsVersion {
  const hcn = new HcsshimFlow(createHost({ seed: 1, profile }));
  const out = hcn.hnsCallOk('GET', '/globals/version') as { Major: number; Minor: number };
  expect(Object.keys(out).sort()).toEqual(['Major', 'Minor']);
  return { major: out.Major, minor: out.Minor };
}

/** TestXSupport: the checker errors exactly when the SupportedFeatures flag is false. */
const CHECKERS: readonly [
  test: string,
  feature: FeatureName,
  flag: (f: ReturnType<typeof supportedFeatures>) => boolean,
][] = [
  ['TestV2ApiSupport', 'V2', (f) => f.API.V2],
  ['TestRemoteSubnetSupport', 'RemoteSubnet', (f) => f.RemoteSubnet],
  ['TestHostRouteSupport', 'HostRoute', (f) => f.HostRoute],
  ['TestDSRSupport', 'DSR', (f) => f.DSR],
  ['TestSlash32EndpointPrefixesSupport', 'Slash32EndpointPrefixes', (f) => f.Slash32EndpointPrefixes],
  ['TestAclSupportForProtocol252Support', 'AclSupportForProtocol252', (f) => f.AclSupportForProtocol252],
  ['TestSessionAffinitySupport', 'SessionAffinity', (f) => f.SessionAffinity],
  ['TestIPv6DualStackSupport', 'IPv6DualStack', (f) => f.IPv6DualStack],
  ['TestSetPolicySupport', 'SetPolicy', (f) => f.SetPolicy],
  ['TestNestedIpSetSupport', 'NestedIpSet', (f) => f.NestedIpSet],
  ['TestDisableHostPortSupport', 'DisableHostPort', (f) => f.DisableHostPort],
  ['TestNetworkACLPolicySupport', 'NetworkACL', (f) => f.NetworkACL],
  ['TestVxlanPortSupport', 'VxlanPort', (f) => f.VxlanPort],
  ['TestL4ProxyPolicySupport', 'L4Proxy', (f) => f.L4Proxy],
  ['TestL4WfpProxyPolicySupport', 'L4WfpProxy', (f) => f.L4WfpProxy],
  ['TestTierAclPolicySupport', 'TierAcl', (f) => f.TierAcl],
];

describe('hcsshim hcn/hcnsupport_test.go', () => {
  it.each(PROFILES)('TestSupportedFeatures on %s: /globals/version is the profile version', (profile) => {
    const ver = hnsVersion(profile);
    const want = {
      ws2019: { major: 9, minor: 5 },
      ws2022: { major: 15, minor: 0 },
      ws2025: { major: 15, minor: 4 },
    }[profile];
    expect(ver).toEqual(want);
  });

  it('TestSupportedFeatures: the SupportedFeatures document per profile (reference §4 ranges)', () => {
    const f2019 = supportedFeatures(hnsVersion('ws2019'));
    expect(f2019).toMatchObject({
      ACL: { AclAddressLists: true, AclHostRulePriority: true, AclPortRanges: true, AclRuleId: true },
      API: { V1: true, V2: true },
      RemoteSubnet: true,
      HostRoute: true,
      DSR: true,
      Slash32EndpointPrefixes: true,
      L4Proxy: true,
      AclSupportForProtocol252: false,
      SessionAffinity: false,
      IPv6DualStack: false,
      SetPolicy: false,
      VxlanPort: false,
      L4WfpProxy: false,
      TierAcl: false,
      NetworkACL: false,
    });
    const f2022 = supportedFeatures(hnsVersion('ws2022'));
    expect(f2022).toMatchObject({
      TierAcl: true,
      NetworkACL: true,
      NestedIpSet: true,
      L4WfpProxy: true,
      L4Proxy: true,
      DisableHostPort: false,
      ModifyLoadbalancer: false,
      Accelnet: false,
    });
    const f2025 = supportedFeatures(hnsVersion('ws2025'));
    expect(
      Object.values(f2025).every((v) => (typeof v === 'boolean' ? v : Object.values(v).every(Boolean))),
    ).toBe(true);
  });

  for (const [test, feature, flag] of CHECKERS) {
    it.each(PROFILES)(`${test} on %s`, (profile) => {
      const ver = hnsVersion(profile);
      expect(supports(ver, feature)).toBe(flag(supportedFeatures(ver)));
    });
  }

  it('TestIsFeatureSupported: HNSVersion1803 (≥ 7.2, single range)', () => {
    const v = (major: number, minor: number): HnsVersion => ({ major, minor });
    for (const no of [v(0, 0), v(7, 0), v(7, 1)]) expect(supports(no, 'Acl')).toBe(false);
    for (const yes of [v(7, 2), v(7, 3), v(8, 0), v(8, 2), v(8, 3), v(255, 2), v(255, 0), v(255, 6)]) {
      expect(supports(yes, 'Acl')).toBe(true);
    }
  });

  it('TestIsFeatureSupported: Slash32EndpointPrefixesVersion (9.3–9.max, ≥ 10.4)', () => {
    const v = (major: number, minor: number): HnsVersion => ({ major, minor });
    const no = [
      v(8, 0),
      v(8, 2),
      v(8, 3),
      v(8, 4),
      v(8, 5),
      v(9, 0),
      v(9, 2),
      v(10, 0),
      v(10, 1),
      v(10, 2),
      v(10, 3),
    ];
    const yes = [
      v(9, 3),
      v(9, 4),
      v(9, 5),
      v(9, 9),
      v(9, 372),
      v(10, 4),
      v(10, 5),
      v(10, 9),
      v(10, 410),
      v(11, 0),
      v(11, 1),
      v(11, 2),
      v(11, 3),
      v(11, 4),
      v(11, 5),
      v(11, 9),
      v(255, 2),
    ];
    for (const x of no) expect(supports(x, 'Slash32EndpointPrefixes'), `${x.major}.${x.minor}`).toBe(false);
    for (const x of yes) expect(supports(x, 'Slash32EndpointPrefixes'), `${x.major}.${x.minor}`).toBe(true);
  });
});
