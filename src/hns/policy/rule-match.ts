/**
 * The five-tuple condition shared by ACL, NetworkACL, TierAcl rules and the L4WFPPROXY FilterTuple
 * (reference hns-hcs.md §2.2, vfp-dataplane.md §2.1): Protocols, Local/RemoteAddresses,
 * Local/RemotePorts and Priority, kept as written and parsed for the VFP compiler.
 */
import type { JsonObject, Reader } from '../../core/json.js';
import type { PolicyContext } from './contracts.js';
import {
  canonicalAddressMatch,
  canonicalPorts,
  optString,
  parseAddressList,
  parsePortList,
  parseProtocolList,
  putNum,
  putStr,
  uintField,
  UINT16_MAX,
  type AddressMatch,
  type PortRange,
} from './fields.js';

/** Local = the endpoint side, Remote = the peer, in both directions (vfp-dataplane.md §2.1). */
export interface RuleMatch {
  /** Wire strings, exactly as given (undefined = omitted). */
  readonly protocols: string | undefined;
  readonly localAddresses: string | undefined;
  readonly remoteAddresses: string | undefined;
  readonly localPorts: string | undefined;
  readonly remotePorts: string | undefined;
  /** uint16; 0 = not given (omitted on output). Lower number = higher precedence. */
  readonly priority: number;
  /** Parsed: sorted protocol numbers; [] = any (absent, empty or 256). */
  readonly protocolSet: readonly number[];
  /** Parsed: empty prefixes and set ids = any address. */
  readonly local: AddressMatch;
  readonly remote: AddressMatch;
  /** Parsed: [] = any port. */
  readonly localPortRanges: readonly PortRange[];
  readonly remotePortRanges: readonly PortRange[];
}

export interface RuleMatchOptions {
  /** Whether address fields may name SetPolicy IP sets (ACL, NetworkACL, TierAcl; not FiveTuple). */
  readonly allowSetIds: boolean;
}

export function readRuleMatch(r: Reader, ctx: PolicyContext, opts: RuleMatchOptions): RuleMatch {
  const protocols = optString(r, 'Protocols');
  const localAddresses = optString(r, 'LocalAddresses');
  const remoteAddresses = optString(r, 'RemoteAddresses');
  const localPorts = optString(r, 'LocalPorts');
  const remotePorts = optString(r, 'RemotePorts');
  const priority = uintField(r, 'Priority', UINT16_MAX);
  return {
    protocols,
    localAddresses,
    remoteAddresses,
    localPorts,
    remotePorts,
    priority,
    protocolSet: parseProtocolList(r, 'Protocols', protocols, ctx),
    local: parseAddressList(r, 'LocalAddresses', localAddresses, opts.allowSetIds),
    remote: parseAddressList(r, 'RemoteAddresses', remoteAddresses, opts.allowSetIds),
    localPortRanges: parsePortList(r, 'LocalPorts', localPorts),
    remotePortRanges: parsePortList(r, 'RemotePorts', remotePorts),
  };
}

/** Writes the address/port fields (not Protocols or Priority, whose position differs per type). */
export function putAddressesAndPorts(out: JsonObject, m: RuleMatch): void {
  putStr(out, 'LocalAddresses', m.localAddresses);
  putStr(out, 'RemoteAddresses', m.remoteAddresses);
  putStr(out, 'LocalPorts', m.localPorts);
  putStr(out, 'RemotePorts', m.remotePorts);
}

/** FiveTuple order (hcsshim `FiveTuple`): Protocols, addresses, ports, Priority. */
export function serializeFiveTuple(m: RuleMatch): JsonObject {
  const out: JsonObject = {};
  putStr(out, 'Protocols', m.protocols);
  putAddressesAndPorts(out, m);
  putNum(out, 'Priority', m.priority);
  return out;
}

/** Canonical text of the condition (protocols, addresses, ports, priority) for policy keys. */
export function ruleMatchKey(m: RuleMatch): string {
  return [
    m.protocolSet.join(','),
    canonicalAddressMatch(m.local),
    canonicalAddressMatch(m.remote),
    canonicalPorts(m.localPortRanges),
    canonicalPorts(m.remotePortRanges),
    String(m.priority),
  ].join('|');
}
