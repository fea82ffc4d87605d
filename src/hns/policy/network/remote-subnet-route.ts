/**
 * `RemoteSubnetRoute` network policy (HNS ≥ 9.2, `RemoteSubnet`): on an overlay network, the pod
 * subnet of a peer node behind its PA and DR MAC (reference hns-hcs.md §2.1, §2.3 vector,
 * vfp-dataplane.md §5). All four fields are always serialised (no omitempty in hcsshim).
 */
import { formatIp, formatPrefix, type IpAddr, type Prefix } from '../../../addr/ip.js';
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyModule } from '../contracts.js';
import { canonicalMac, requiredIp, requiredMac, requiredPrefix } from '../fields.js';
import { readVsid } from '../subnet/vsid.js';

export interface RemoteSubnetRouteSettings {
  readonly destinationPrefix: string;
  readonly destination: Prefix;
  /** The VNI; uint16 in hcsshim, uint32 in the schema; must be a VSID (4096..16777214). */
  readonly isolationId: number;
  /** The peer node's provider (underlay) address. */
  readonly providerAddress: string;
  readonly provider: IpAddr;
  readonly distributedRouterMacAddress: string;
}

function parse(r: Reader): RemoteSubnetRouteSettings {
  const dest = requiredPrefix(r, 'DestinationPrefix');
  const isolationId = readVsid(r);
  const pa = requiredIp(r, 'ProviderAddress');
  const mac = requiredMac(r, 'DistributedRouterMacAddress');
  return {
    destinationPrefix: dest.text,
    destination: dest.prefix,
    isolationId,
    providerAddress: pa.text,
    provider: pa.addr,
    distributedRouterMacAddress: mac,
  };
}

function serialize(s: RemoteSubnetRouteSettings): JsonObject {
  return {
    DestinationPrefix: s.destinationPrefix,
    IsolationId: s.isolationId,
    ProviderAddress: s.providerAddress,
    DistributedRouterMacAddress: s.distributedRouterMacAddress,
  };
}

export const remoteSubnetRoutePolicy: PolicyModule<RemoteSubnetRouteSettings> = {
  type: 'RemoteSubnetRoute',
  scopes: ['network'],
  feature: 'RemoteSubnet',
  parse,
  serialize,
  key: (s) =>
    [
      formatPrefix(s.destination),
      s.isolationId,
      formatIp(s.provider),
      canonicalMac(s.distributedRouterMacAddress),
    ].join('|'),
};
