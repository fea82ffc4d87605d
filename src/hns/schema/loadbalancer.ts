/**
 * HostComputeLoadBalancer documents (reference hns-hcs.md §1.4, vfp-dataplane.md §4): frontends
 * (VIPs, ports) mapped to backend endpoints. Flags and distribution types are gated by HNS version.
 */
import { hnsError } from '../../core/errors.js';
import { Reader, type JsonObject } from '../../core/json.js';
import { parseIp } from '../../addr/ip.js';
import type { LbPortMappingRec, LoadBalancerRec, SchemaVersion } from '../model.js';
import { supports, type HnsVersion } from '../versions.js';
import { readGuid, readSchemaVersion, writeSchemaVersion } from './common.js';
import { parseGuid } from '../../core/guid.js';

export const LoadBalancerFlags = { None: 0, EnableDirectServerReturn: 1, IPv6: 2 } as const;
export const LoadBalancerPortMappingFlags = {
  None: 0,
  EnableInternalLoadBalancer: 1,
  LocalRoutedVIP: 2,
  UseMux: 4,
  PreserveDIP: 8,
  VipExternalIP: 16,
} as const;
export const LoadBalancerDistribution = { None: 0, SourceIPProtocol: 1, SourceIP: 2 } as const;

export interface LoadBalancerDraft {
  readonly givenId?: string;
  readonly HostComputeEndpoints: readonly string[];
  readonly SourceVIP: string;
  readonly FrontendVIPs: readonly string[];
  readonly PortMappings: readonly LbPortMappingRec[];
  readonly SchemaVersion: SchemaVersion;
  readonly Flags: number;
  readonly HostComputeNetwork?: string;
}

export function parseLoadBalancer(doc: JsonObject, version: HnsVersion): LoadBalancerDraft {
  const r = new Reader(doc, 'HCN_E_INVALID_JSON');
  const givenId = readGuid(r, 'ID');
  const HostComputeEndpoints = r.strs('HostComputeEndpoints').map((s) => {
    const g = parseGuid(s);
    if (!g) throw hnsError('HCN_E_GUID_CONVERSION_FAILURE', `HostComputeEndpoints "${s}"`);
    return g;
  });
  if (new Set(HostComputeEndpoints).size !== HostComputeEndpoints.length) {
    throw hnsError('E_INVALIDARG', 'HostComputeEndpoints lists an endpoint twice');
  }
  const SourceVIP = r.optStr('SourceVIP') ?? '';
  if (SourceVIP && !parseIp(SourceVIP)) throw hnsError('HCN_E_INVALID_IP', `SourceVIP "${SourceVIP}"`);
  const FrontendVIPs = r.strs('FrontendVIPs');
  for (const v of FrontendVIPs) if (!parseIp(v)) throw hnsError('HCN_E_INVALID_IP', `FrontendVIPs "${v}"`);
  const Flags = r.uint('Flags', 0xffffffff);
  if (Flags & ~3) throw hnsError('E_INVALIDARG', `load balancer Flags ${Flags} has unknown bits`);
  if (Flags & LoadBalancerFlags.EnableDirectServerReturn && !supports(version, 'DSR')) {
    throw hnsError('E_INVALIDARG', 'Direct Server Return needs HNS 9.3 or 10.2+');
  }
  if (Flags & LoadBalancerFlags.IPv6 && !supports(version, 'IPv6DualStack')) {
    throw hnsError('E_INVALIDARG', 'IPv6 load balancers need HNS 11.10');
  }
  const PortMappings = r.objs('PortMappings').map((pm): LbPortMappingRec => {
    const Protocol = pm.uint('Protocol', 0xffffffff);
    if (Protocol !== 6 && Protocol !== 17)
      throw pm.err(`Protocol ${Protocol} is not TCP (6) or UDP (17)`, 'HCN_E_INVALID_POLICY');
    const InternalPort = pm.uint('InternalPort', 0xffff);
    const ExternalPort = pm.uint('ExternalPort', 0xffff);
    if (InternalPort === 0) throw hnsError('HCN_E_INVALID_INTERNAL_PORT', pm.path);
    const DistributionType = pm.uint('DistributionType', 0xffffffff);
    if (DistributionType > 2)
      throw pm.err(`DistributionType ${DistributionType} is not 0, 1 or 2`, 'HCN_E_INVALID_POLICY');
    if (DistributionType !== 0 && !supports(version, 'SessionAffinity')) {
      throw pm.err('session affinity (DistributionType) needs HNS 12.0', 'HCN_E_INVALID_POLICY');
    }
    const pmFlags = pm.uint('Flags', 0xffffffff);
    if (pmFlags & ~31) throw pm.err(`port mapping Flags ${pmFlags} has unknown bits`, 'HCN_E_INVALID_POLICY');
    return { Protocol, InternalPort, ExternalPort, DistributionType, Flags: pmFlags };
  });
  const HostComputeNetwork = readGuid(r, 'HostComputeNetwork');
  return {
    ...(givenId ? { givenId } : {}),
    HostComputeEndpoints,
    SourceVIP,
    FrontendVIPs,
    PortMappings,
    SchemaVersion: readSchemaVersion(r),
    Flags,
    ...(HostComputeNetwork ? { HostComputeNetwork } : {}),
  };
}

/** hcsshim key order: ID, HostComputeEndpoints, SourceVIP, FrontendVIPs, PortMappings, SchemaVersion, Flags. */
export function serializeLoadBalancer(lb: LoadBalancerRec): JsonObject {
  const out: JsonObject = { ID: lb.ID };
  if (lb.HostComputeEndpoints.length) out.HostComputeEndpoints = [...lb.HostComputeEndpoints];
  if (lb.SourceVIP) out.SourceVIP = lb.SourceVIP;
  if (lb.FrontendVIPs.length) out.FrontendVIPs = [...lb.FrontendVIPs];
  if (lb.PortMappings.length) {
    out.PortMappings = lb.PortMappings.map((pm) => {
      const o: JsonObject = {
        Protocol: pm.Protocol,
        InternalPort: pm.InternalPort,
        ExternalPort: pm.ExternalPort,
      };
      if (pm.DistributionType) o.DistributionType = pm.DistributionType;
      if (pm.Flags) o.Flags = pm.Flags;
      return o;
    });
  }
  out.SchemaVersion = writeSchemaVersion(lb.SchemaVersion);
  if (lb.Flags) out.Flags = lb.Flags;
  if (lb.HostComputeNetwork) out.HostComputeNetwork = lb.HostComputeNetwork;
  return out;
}

/** Frontend claims that must be unique across load balancers: protocol, external port, VIP. */
export function loadBalancerClaims(lb: {
  readonly FrontendVIPs: readonly string[];
  readonly PortMappings: readonly LbPortMappingRec[];
}): string[] {
  const vips = lb.FrontendVIPs.length ? lb.FrontendVIPs.map((v) => parseIp(v)!.value.toString()) : ['*'];
  const out: string[] = [];
  for (const pm of lb.PortMappings) {
    if (pm.ExternalPort === 0) continue;
    for (const v of vips) out.push(`${pm.Protocol}/${pm.ExternalPort}/${v}`);
  }
  return out;
}
