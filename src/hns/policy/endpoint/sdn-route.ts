/**
 * `SDNRoute` endpoint policy: a route in the endpoint's compartment, optionally VXLAN-encapsulated
 * (`NeedEncap`, e.g. win-overlay's service-CIDR route) (reference hns-hcs.md §1.5, §2.2). A template
 * placeholder as DestinationPrefix is kept, routes nothing, and degrades the endpoint (cni-windows.md §7 P9).
 */
import { formatIp, formatPrefix, type IpAddr, type Prefix } from '../../../addr/ip.js';
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyModule } from '../contracts.js';
import {
  boolField,
  isTemplatePlaceholder,
  optIp,
  optString,
  putBool,
  putStr,
  requiredPrefix,
} from '../fields.js';

export interface SdnRouteSettings {
  readonly destinationPrefix: string;
  /** Undefined when `destinationPrefix` is a template placeholder (then `unresolved` holds it). */
  readonly destination: Prefix | undefined;
  /** A template placeholder given as DestinationPrefix (`<your service cidr>`): degrades the endpoint. */
  readonly unresolved: readonly string[];
  /** Absent = on-link / decided by the network. */
  readonly nextHop: string | undefined;
  readonly nextHopAddr: IpAddr | undefined;
  readonly needEncap: boolean;
  /** Schema-only field (HNS_Schema `SDNRoutePolicySetting`). */
  readonly automaticEndpointMonitor: boolean;
}

function parse(r: Reader): SdnRouteSettings {
  const text = optString(r, 'DestinationPrefix');
  const placeholder = text !== undefined && isTemplatePlaceholder(text);
  const dest = placeholder ? undefined : requiredPrefix(r, 'DestinationPrefix');
  const nextHop = optIp(r, 'NextHop');
  return {
    destinationPrefix: dest?.text ?? text!,
    destination: dest?.prefix,
    unresolved: placeholder ? [text!] : [],
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
      s.destination ? formatPrefix(s.destination) : s.destinationPrefix,
      s.nextHopAddr ? formatIp(s.nextHopAddr) : '',
      s.needEncap,
      s.automaticEndpointMonitor,
    ].join('|'),
};
