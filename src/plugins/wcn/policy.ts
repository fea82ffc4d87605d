/**
 * windows-container-networking's policy helpers (`network/policy.go` @ b96345f; reference
 * cni-windows.md §4.3 step 2 and 8): a policy is a CNI-side `{Type, Data}` pair whose Data is the
 * JSON of an `hcn.EndpointPolicy` (or `hcn.NetworkPolicy`); port mappings, the inbound ACL of
 * `allowAclPortMapping` and the loopback-DSR OutBoundNAT are built here with hcsshim v0.8.26's
 * field order and `omitempty` rules.
 */
import type { Json, JsonObject } from '../../core/json.js';
import { parseUintBase0 } from '../../cni/gostrconv.js';
import { goIPString, type GoIP } from './gonet.js';

/** `network.CNIPolicyType`: the `Name` of an AdditionalArgs entry becomes the policy's type. */
export const CNIPolicyType = {
  NetworkPolicy: 'NetworkPolicy',
  EndpointPolicy: 'EndpointPolicy',
  OutBoundNatPolicy: 'OutBoundNatPolicy',
} as const;

/** `network.Policy`: `data` is a `json.RawMessage` (undefined is a nil one). */
export interface Policy {
  readonly type: string;
  readonly data: Json | undefined;
}

/** `hcn.NatFlags`. */
export const NatFlags = { None: 0, LocalRoutedVip: 1, IPv6: 2 } as const;

/**
 * `GetPortEnumValue`: a number (`strconv.ParseUint(p, 0, 10)`: decimal, 0x/0o/0b or a leading 0,
 * at most 1023) or one of tcp, udp, icmpv4, icmpv6, igmp in any case.
 */
export function getPortEnumValue(protocol: string): number {
  const n = parseUintBase0(protocol, 10);
  if (n !== undefined) return n;
  switch (protocol.toLowerCase()) {
    case 'tcp':
      return 6;
    case 'udp':
      return 17;
    case 'icmpv4':
      return 1;
    case 'icmpv6':
      return 58;
    case 'igmp':
      return 2;
  }
  throw new Error('invalid protocol supplied to port mapping policy');
}

/** Go's `uint16(int)` conversion: the low 16 bits. */
function u16(n: number): number {
  return ((n % 65536) + 65536) % 65536;
}

/**
 * `GetPortMappingPolicy`: an EndpointPolicy `{"Type":"PortMapping","Settings":{…}}` whose settings
 * (`hcn.PortMappingPolicySetting`) drop zero ports, a zero protocol, an empty VIP and zero flags.
 */
export function getPortMappingPolicy(
  externalPort: number,
  internalPort: number,
  protocol: string,
  hostIp: string,
  flags: number,
): Policy {
  const proto = getPortEnumValue(protocol);
  const settings: JsonObject = {};
  if (proto !== 0) settings['Protocol'] = proto;
  if (u16(internalPort) !== 0) settings['InternalPort'] = u16(internalPort);
  if (u16(externalPort) !== 0) settings['ExternalPort'] = u16(externalPort);
  if (hostIp !== '') settings['VIP'] = hostIp;
  if (flags !== 0) settings['Flags'] = flags;
  return { type: CNIPolicyType.EndpointPolicy, data: { Type: 'PortMapping', Settings: settings } };
}

/**
 * `getInACLRule`: `{"Type":"ACL","Settings":{"Protocols":"6","Action":"Allow","Direction":"In",
 * "LocalPorts":"<containerPort>","Priority":<priority>}}` (`hcn.AclPolicySetting` order; the port is
 * the int as written, not truncated).
 */
export function getInACLRule(containerPort: number, protocol: string, priority: number): Policy {
  const proto = getPortEnumValue(protocol);
  const settings: JsonObject = {
    Protocols: String(proto),
    Action: 'Allow',
    Direction: 'In',
    LocalPorts: String(containerPort),
  };
  if (priority !== 0) settings['Priority'] = priority;
  return { type: CNIPolicyType.EndpointPolicy, data: { Type: 'ACL', Settings: settings } };
}

/** `GetLoopbackDSRPolicy`: `{"Type":"OutBoundNAT","Settings":{"Destinations":["<ip>"]}}` (`<nil>` for no IP). */
export function getLoopbackDSRPolicy(ip: GoIP | undefined): Policy {
  return {
    type: CNIPolicyType.EndpointPolicy,
    data: { Type: 'OutBoundNAT', Settings: { Destinations: [goIPString(ip)] } },
  };
}
