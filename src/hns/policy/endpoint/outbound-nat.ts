/**
 * `OutBoundNAT` endpoint policy: SNAT of traffic leaving the endpoint to the host IP (or
 * `VirtualIP`) unless the destination is in `Exceptions`; `Destinations`, when given, restricts
 * SNAT to those (reference hns-hcs.md §2.2, vfp-dataplane.md §3). A template placeholder among them
 * (`<your service cidr>`) is kept but not applied, and degrades the endpoint (cni-windows.md §7 P9).
 */
import { formatIp, type IpAddr, type Prefix } from '../../../addr/ip.js';
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyModule } from '../contracts.js';
import {
  canonicalPrefixes,
  isTemplatePlaceholder,
  optIp,
  prefixList,
  putList,
  putNum,
  putStr,
  stringList,
  uintField,
  UINT16_MAX,
  aliasedStringList,
} from '../fields.js';
import { NAT_FLAG_IPV6, NAT_FLAG_LOCAL_ROUTED_VIP, readNatFlags } from './port-mapping.js';

export interface OutboundNatSettings {
  readonly virtualIp: string | undefined;
  readonly virtualIpAddr: IpAddr | undefined;
  /** As written (IPs or CIDR prefixes), and parsed. Traffic to these is not NATed. */
  readonly exceptions: readonly string[];
  readonly exceptionPrefixes: readonly Prefix[];
  /** As written, and parsed. Empty = every non-excepted destination. */
  readonly destinations: readonly string[];
  readonly destinationPrefixes: readonly Prefix[];
  /**
   * Exceptions and Destinations that are template placeholders (`<your service cidr>`): kept as
   * written, left out of the prefixes; they make the endpoint Degraded.
   */
  readonly unresolved: readonly string[];
  readonly flags: number;
  readonly localRoutedVip: boolean;
  readonly ipv6: boolean;
  /** uint16, added 2024 (hcsshim PR #2106) with no documented semantics; 0 = not given. */
  readonly maxPortPoolUsage: number;
}

function parse(r: Reader): OutboundNatSettings {
  const vip = optIp(r, 'VirtualIP');
  const exceptions = aliasedStringList(r, 'Exceptions', 'ExceptionList');
  const destinations = stringList(r, 'Destinations');
  const flags = readNatFlags(r);
  return {
    virtualIp: vip?.text,
    virtualIpAddr: vip?.addr,
    exceptions,
    exceptionPrefixes: prefixList(r, 'Exceptions', exceptions, isTemplatePlaceholder),
    destinations,
    destinationPrefixes: prefixList(r, 'Destinations', destinations, isTemplatePlaceholder),
    unresolved: [...exceptions, ...destinations].filter(isTemplatePlaceholder),
    flags,
    localRoutedVip: (flags & NAT_FLAG_LOCAL_ROUTED_VIP) !== 0,
    ipv6: (flags & NAT_FLAG_IPV6) !== 0,
    maxPortPoolUsage: uintField(r, 'MaxPortPoolUsage', UINT16_MAX),
  };
}

function serialize(s: OutboundNatSettings): JsonObject {
  const out: JsonObject = {};
  putStr(out, 'VirtualIP', s.virtualIp);
  putList(out, 'Exceptions', s.exceptions);
  putList(out, 'Destinations', s.destinations);
  putNum(out, 'Flags', s.flags);
  putNum(out, 'MaxPortPoolUsage', s.maxPortPoolUsage);
  return out;
}

export const outboundNatPolicy: PolicyModule<OutboundNatSettings> = {
  type: 'OutBoundNAT',
  scopes: ['endpoint'],
  parse,
  serialize,
  key: (s) =>
    [
      s.virtualIpAddr ? formatIp(s.virtualIpAddr) : '',
      canonicalPrefixes(s.exceptionPrefixes),
      canonicalPrefixes(s.destinationPrefixes),
      s.flags,
      s.maxPortPoolUsage,
      s.unresolved.join(','),
    ].join('|'),
};
