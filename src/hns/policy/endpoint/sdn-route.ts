/**
 * `SDNRoute` endpoint policy: a route in the endpoint's compartment, optionally VXLAN-encapsulated
 * (`NeedEncap`, e.g. win-overlay's service-CIDR route) (reference hns-hcs.md §1.5, §2.2).
 */
import { formatIp, formatPrefix, type IpAddr, type Prefix } from '../../../addr/ip.js';
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyModule } from '../contracts.js';
import { boolField, optIp, putBool, putStr, requiredPrefix } from '../fields.js';

export interface SdnRouteSettings {
  readonly destinationPrefix: string;
  readonly destination: Prefix;
  /** Absent = on-link / decided by the network. */
  readonly nextHop: string | undefined;
  readonly nextHopAddr: IpAddr | undefined;
  readonly needEncap: boolean;
  /** Schema-only field (HNS_Schema `SDNRoutePolicySetting`). */
  readonly automaticEndpointMonitor: boolean;
}

function parse(r: Reader): SdnRouteSettings {
  const dest = requiredPrefix(r, 'DestinationPrefix');
  const nextHop = optIp(r, 'NextHop');
  return {
    destinationPrefix: dest.text,
    destination: dest.prefix,
    nextHop: nextHop?.text,
    nextHopAddr: nextHop?.addr,
    needEncap: boolField(r, 'NeedEncap'),
    automaticEndpointMonitor: boolField(r, 'AutomaticEndpointMonitor'),
  };
}

function serialize(s: SdnRouteSettings): JsonObject {
  const out: JsonObject = {};
  putStr(out, 'DestinationPrefix', s.destinationPrefix);
  putStr(out, 'NextHop', s.nextHop);
  putBool(out, 'NeedEncap', s.needEncap);
  putBool(out, 'AutomaticEndpointMonitor', s.automaticEndpointMonitor);
  return out;
}

export const sdnRoutePolicy: PolicyModule<SdnRouteSettings> = {
  type: 'SDNRoute',
  scopes: ['endpoint'],
  parse,
  serialize,
  key: (s) =>
    [
      formatPrefix(s.destination),
      s.nextHopAddr ? formatIp(s.nextHopAddr) : '',
      s.needEncap,
      s.automaticEndpointMonitor,
    ].join('|'),
};
