/**
 * Feature support, after hcsshim's `hcn/hcnsupport.go` and `hcnglobals.go` (reference hns-hcs.md
 * §4): the HNS version from `GET /globals/version` decides every feature through version ranges
 * (min and max inclusive, a max minor of MaxInt32 meaning "the rest of that major"). The ranges
 * are the service's table in src/hns/versions.ts, named here as hcsshim names them.
 */
import {
  FEATURES,
  inRange,
  supportedFeatures,
  type FeatureName,
  type SupportedFeatures,
} from '../../hns/versions.js';
import type { Version } from './hcn.js';

export type { SupportedFeatures } from '../../hns/versions.js';

/** Global properties of the HCN service. */
export interface Globals {
  Version: Version;
}

export interface VersionRange {
  MinVersion: Version;
  MaxVersion: Version;
}
export type VersionRanges = readonly VersionRange[];

function ranges(feature: FeatureName): VersionRanges {
  return FEATURES[feature].ranges.map((r) => ({
    MinVersion: { Major: r.min.major, Minor: r.min.minor },
    MaxVersion: { Major: r.max.major, Minor: r.max.minor },
  }));
}

export const HNSVersion1803 = ranges('Acl');
export const V2ApiSupport = ranges('V2');
export const RemoteSubnetVersion = ranges('RemoteSubnet');
export const HostRouteVersion = ranges('HostRoute');
export const DSRVersion = ranges('DSR');
export const Slash32EndpointPrefixesVersion = ranges('Slash32EndpointPrefixes');
export const AclSupportForProtocol252Version = ranges('AclSupportForProtocol252');
export const SessionAffinityVersion = ranges('SessionAffinity');
export const IPv6DualStackVersion = ranges('IPv6DualStack');
export const SetPolicyVersion = ranges('SetPolicy');
export const VxlanPortVersion = ranges('VxlanPort');
export const L4ProxyPolicyVersion = ranges('L4Proxy');
export const L4WfpProxyPolicyVersion = ranges('L4WfpProxy');
export const TierAclPolicyVersion = ranges('TierAcl');
export const NetworkACLPolicyVersion = ranges('NetworkACL');
export const NestedIpSetVersion = ranges('NestedIpSet');
export const DisableHostPortVersion = ranges('DisableHostPort');
export const ModifyLoadbalancerVersion = ranges('ModifyLoadbalancer');
export const AccelnetVersion = ranges('Accelnet');

/** Whether `current` falls in any of the ranges. */
export function isFeatureSupported(current: Version, supported: VersionRanges): boolean {
  const ver = { major: current.Major, minor: current.Minor };
  return supported.some((r) =>
    inRange(ver, {
      min: { major: r.MinVersion.Major, minor: r.MinVersion.Minor },
      max: { major: r.MaxVersion.Major, minor: r.MaxVersion.Minor },
    }),
  );
}

/** The features of an HNS version, as `getSupportedFeatures` builds them. */
export function featuresOfVersion(v: Version): SupportedFeatures {
  return supportedFeatures({ major: v.Major, minor: v.Minor });
}

/** All false: what the deprecated `GetSupportedFeatures` returns when the version query fails. */
export function noFeatures(): SupportedFeatures {
  return featuresOfVersion({ Major: 0, Minor: 0 });
}

/**
 * The checkers: client method name → (SupportedFeatures key, the name in the error text). The
 * names are hcsshim's; `FEATURES[…].display` holds the same text.
 */
export const FEATURE_CHECKERS = {
  v2ApiSupported: 'V2',
  remoteSubnetSupported: 'RemoteSubnet',
  hostRouteSupported: 'HostRoute',
  dsrSupported: 'DSR',
  slash32EndpointPrefixesSupported: 'Slash32EndpointPrefixes',
  aclSupportForProtocol252Supported: 'AclSupportForProtocol252',
  sessionAffinitySupported: 'SessionAffinity',
  ipv6DualStackSupported: 'IPv6DualStack',
  setPolicySupported: 'SetPolicy',
  vxlanPortSupported: 'VxlanPort',
  l4proxyPolicySupported: 'L4Proxy',
  l4WfpProxyPolicySupported: 'L4WfpProxy',
  tierAclPolicySupported: 'TierAcl',
  networkACLPolicySupported: 'NetworkACL',
  nestedIpSetSupported: 'NestedIpSet',
  disableHostPortSupported: 'DisableHostPort',
  modifyLoadbalancerSupported: 'ModifyLoadbalancer',
  accelnetSupported: 'Accelnet',
} as const satisfies Record<string, Exclude<FeatureName, 'Acl'>>;

export type FeatureChecker = keyof typeof FEATURE_CHECKERS;

/** Read one feature flag out of a SupportedFeatures document. */
export function hasFeature(f: SupportedFeatures, feature: Exclude<FeatureName, 'Acl'>): boolean {
  return feature === 'V2' ? f.API.V2 : f[feature];
}
