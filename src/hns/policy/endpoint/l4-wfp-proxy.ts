/**
 * `L4WFPPROXY` endpoint policy (HNS ≥ 13.2, `L4WfpProxy`): WFP redirection of the endpoint's
 * traffic matching `FilterTuple` to local proxy ports, with exceptions (reference hns-hcs.md §2.2;
 * vector from hcsshim `HcnCreateWfpProxyPolicyRequest`). Struct fields are always emitted.
 */
import type { Prefix } from '../../../addr/ip.js';
import { Reader, type JsonObject } from '../../../core/json.js';
import type { PolicyContext, PolicyModule } from '../contracts.js';
import {
  canonicalPorts,
  canonicalPrefixes,
  optPortString,
  optSid,
  parsePortList,
  prefixList,
  putList,
  putStr,
  stringList,
  type PortRange,
} from '../fields.js';
import { readRuleMatch, ruleMatchKey, serializeFiveTuple, type RuleMatch } from '../rule-match.js';

export interface ProxyExceptionsSettings {
  /** As written (IPs or prefixes), and parsed. */
  readonly ipAddressExceptions: readonly string[];
  readonly ipPrefixes: readonly Prefix[];
  /** As written (`"81"`, ranges accepted), and parsed. */
  readonly portExceptions: readonly string[];
  readonly portRanges: readonly PortRange[];
}

export interface L4WfpProxySettings {
  readonly inboundProxyPort: string | undefined;
  readonly outboundProxyPort: string | undefined;
  /** Parsed ports; undefined = no proxy in that direction. */
  readonly inboundPort: number | undefined;
  readonly outboundPort: number | undefined;
  readonly filterTuple: RuleMatch;
  /** User account of the proxy container. */
  readonly userSid: string | undefined;
  readonly inboundExceptions: ProxyExceptionsSettings;
  readonly outboundExceptions: ProxyExceptionsSettings;
}

const EMPTY_EXCEPTIONS: ProxyExceptionsSettings = {
  ipAddressExceptions: [],
  ipPrefixes: [],
  portExceptions: [],
  portRanges: [],
};

function parseExceptions(r: Reader, key: string): ProxyExceptionsSettings {
  const x = r.optObj(key);
  if (!x) return EMPTY_EXCEPTIONS;
  const ips = stringList(x, 'IpAddressExceptions');
  const ports = stringList(x, 'PortExceptions');
  return {
    ipAddressExceptions: ips,
    ipPrefixes: prefixList(x, 'IpAddressExceptions', ips),
    portExceptions: ports,
    portRanges: ports.flatMap((p, i) => parsePortList(x, `PortExceptions[${i}]`, p)),
  };
}

function parse(r: Reader, ctx: PolicyContext): L4WfpProxySettings {
  const inbound = optPortString(r, 'InboundProxyPort');
  const outbound = optPortString(r, 'OutboundProxyPort');
  if (!inbound && !outbound) r.fail('InboundProxyPort or OutboundProxyPort is required');
  const tuple = r.optObj('FilterTuple');
  return {
    inboundProxyPort: inbound?.text,
    outboundProxyPort: outbound?.text,
    inboundPort: inbound?.port,
    outboundPort: outbound?.port,
    filterTuple: readRuleMatch(tuple ?? new Reader({}, r.code, `${r.path}.FilterTuple`), ctx, {
      allowSetIds: false,
    }),
    userSid: optSid(r, 'UserSID'),
    inboundExceptions: parseExceptions(r, 'InboundExceptions'),
    outboundExceptions: parseExceptions(r, 'OutboundExceptions'),
  };
}

function serializeExceptions(x: ProxyExceptionsSettings): JsonObject {
  const out: JsonObject = {};
  putList(out, 'IpAddressExceptions', x.ipAddressExceptions);
  putList(out, 'PortExceptions', x.portExceptions);
  return out;
}

/** hcsshim `L4WfpProxyPolicySetting` order; FilterTuple and both exception structs always present. */
function serialize(s: L4WfpProxySettings): JsonObject {
  const out: JsonObject = {};
  putStr(out, 'InboundProxyPort', s.inboundProxyPort);
  putStr(out, 'OutboundProxyPort', s.outboundProxyPort);
  out['FilterTuple'] = serializeFiveTuple(s.filterTuple);
  putStr(out, 'UserSID', s.userSid);
  out['InboundExceptions'] = serializeExceptions(s.inboundExceptions);
  out['OutboundExceptions'] = serializeExceptions(s.outboundExceptions);
  return out;
}

function exceptionsKey(x: ProxyExceptionsSettings): string {
  return `${canonicalPrefixes(x.ipPrefixes)}/${canonicalPorts(x.portRanges)}`;
}

export const l4WfpProxyPolicy: PolicyModule<L4WfpProxySettings> = {
  type: 'L4WFPPROXY',
  scopes: ['endpoint'],
  feature: 'L4WfpProxy',
  parse,
  serialize,
  key: (s) =>
    [
      s.inboundPort ?? '',
      s.outboundPort ?? '',
      ruleMatchKey(s.filterTuple),
      s.userSid?.toUpperCase() ?? '',
      exceptionsKey(s.inboundExceptions),
      exceptionsKey(s.outboundExceptions),
    ].join('|'),
};
