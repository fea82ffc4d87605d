/**
 * `ACL` endpoint policy: one allow/block rule on the endpoint's port (reference hns-hcs.md §2.2,
 * vfp-dataplane.md §2). The same settings shape serves the `NetworkACL` network policy, so the
 * module is built by `aclModule()`; the VFP compiler reads the parsed fields of `AclSettings`.
 */
import type { JsonObject, Reader } from '../../../core/json.js';
import { supports, type FeatureName } from '../../versions.js';
import type { PolicyContext, PolicyModule, PolicyScope } from '../contracts.js';
import { optString, parsePortList, parseProtocolList, putStr, UINT16_MAX } from '../fields.js';
import { putAddressesAndPorts, readRuleMatch, ruleMatchKey, type RuleMatch } from '../rule-match.js';

/** Protocol 256 = any protocol (hcsshim#1059, Calico's "256 // any (as understood by hns)"). */
const PROTOCOL_ANY = 256;

export const ACL_ACTIONS = ['Allow', 'Block', 'Pass'] as const;
export type AclAction = (typeof ACL_ACTIONS)[number];
export const ACL_DIRECTIONS = ['In', 'Out'] as const;
/** `In` = traffic coming to the endpoint, `Out` = traffic leaving it. */
export type AclDirection = (typeof ACL_DIRECTIONS)[number];
export const ACL_RULE_TYPES = ['Host', 'Switch'] as const;
/** `Host` = WFP (Windows Firewall), `Switch` = VFP. */
export type AclRuleType = (typeof ACL_RULE_TYPES)[number];

/**
 * The v1 ACL fields beside the schema's (hcsshim `internal/hns/hnspolicy.go` ACLPolicy): a numeric
 * `Protocol` (Felix sends 256 = any), single `LocalPort`/`RemotePort`, `InternalPort` and
 * `ServiceName`. Kept as written and echoed; when the schema field is absent they decide the match.
 */
export interface AclLegacyFields {
  readonly Protocol?: number;
  readonly InternalPort?: number;
  readonly LocalPort?: number;
  readonly RemotePort?: number;
  readonly ServiceName?: string;
}

export interface AclSettings extends RuleMatch {
  /** Schema `Id` (RS4+, Calico writes one); not in hcsshim's struct. */
  readonly id: string | undefined;
  readonly action: AclAction;
  readonly direction: AclDirection;
  /** As written; undefined = omitted. */
  readonly ruleType: AclRuleType | undefined;
  /** What applies when `RuleType` is omitted: `Switch` (our choice, docs/model.md). */
  readonly effectiveRuleType: AclRuleType;
  /** v1 fields as written (undefined when none was given). */
  readonly legacy: AclLegacyFields | undefined;
}

/** Reads the v1 fields; a port of 0 counts as absent (Go's omitempty never sends it). */
function readLegacy(r: Reader): AclLegacyFields | undefined {
  const out: { -readonly [K in keyof AclLegacyFields]: AclLegacyFields[K] } = {};
  const protocol = r.optUint('Protocol', PROTOCOL_ANY);
  if (protocol !== undefined) out.Protocol = protocol;
  for (const k of ['InternalPort', 'LocalPort', 'RemotePort'] as const) {
    const v = r.optUint(k, UINT16_MAX);
    if (v !== undefined) out[k] = v;
  }
  const service = optString(r, 'ServiceName');
  if (service !== undefined) out.ServiceName = service;
  return Object.keys(out).length ? out : undefined;
}

/**
 * Reads `Action`/`Direction`: required, exact case. `Pass` (schema 2.10, made for TierAcl) is
 * accepted in a flat ACL only on hosts that have TierAcl (HNS ≥ 14.0).
 */
export function readAction(r: Reader, key: string, ctx: PolicyContext): AclAction {
  const action = r.optEnum(key, ACL_ACTIONS);
  if (action === undefined) r.fail(`${key} is required (Allow, Block or Pass)`);
  if (action === 'Pass' && !supports(ctx.version, 'TierAcl')) r.fail(`${key} Pass needs HNS 14.0 or later`);
  return action;
}

export function readDirection(r: Reader): AclDirection {
  const direction = r.optEnum('Direction', ACL_DIRECTIONS);
  if (direction === undefined) r.fail('Direction is required (In or Out)');
  return direction;
}

export function parseAclSettings(r: Reader, ctx: PolicyContext): AclSettings {
  const id = optString(r, 'Id');
  const action = readAction(r, 'Action', ctx);
  const direction = readDirection(r);
  const ruleType = r.optEnum('RuleType', ACL_RULE_TYPES);
  const match = readRuleMatch(r, ctx, { allowSetIds: true });
  const legacy = readLegacy(r);
  let { protocolSet, localPortRanges, remotePortRanges } = match;
  if (legacy) {
    // the v1 single-value fields stand in for absent schema fields
    if (match.protocols === undefined && legacy.Protocol)
      protocolSet = parseProtocolList(r, 'Protocol', String(legacy.Protocol), ctx);
    const localPort = legacy.LocalPort || legacy.InternalPort;
    if (match.localPorts === undefined && localPort)
      localPortRanges = parsePortList(r, 'LocalPort', String(localPort));
    if (match.remotePorts === undefined && legacy.RemotePort)
      remotePortRanges = parsePortList(r, 'RemotePort', String(legacy.RemotePort));
  }
  // built field by field (not spread): one hidden class for every ACL record
  return {
    protocols: match.protocols,
    localAddresses: match.localAddresses,
    remoteAddresses: match.remoteAddresses,
    localPorts: match.localPorts,
    remotePorts: match.remotePorts,
    priority: match.priority,
    protocolSet,
    local: match.local,
    remote: match.remote,
    localPortRanges,
    remotePortRanges,
    id,
    action,
    direction,
    ruleType,
    effectiveRuleType: ruleType ?? 'Switch',
    legacy,
  };
}

/**
 * hcsshim `AclPolicySetting` order; Action and Direction are never omitted. v1 fields given by the
 * caller follow, in hcsshim's v1 ACLPolicy order (the v1 view re-orders them in place).
 */
export function serializeAclSettings(s: AclSettings): JsonObject {
  const out: JsonObject = {};
  putStr(out, 'Id', s.id);
  putStr(out, 'Protocols', s.protocols);
  out['Action'] = s.action;
  out['Direction'] = s.direction;
  putAddressesAndPorts(out, s);
  putStr(out, 'RuleType', s.ruleType);
  if (s.priority !== 0) out['Priority'] = s.priority;
  if (s.legacy) {
    for (const k of ['Protocol', 'InternalPort', 'LocalPort', 'RemotePort', 'ServiceName'] as const) {
      const v = s.legacy[k];
      if (v !== undefined) out[k] = v;
    }
  }
  return out;
}

export function aclKey(s: AclSettings): string {
  return [s.id ?? '', s.action, s.direction, s.effectiveRuleType, ruleMatchKey(s)].join('|');
}

export function aclModule(
  type: string,
  scope: PolicyScope,
  feature?: FeatureName,
): PolicyModule<AclSettings> {
  return {
    type,
    scopes: [scope],
    ...(feature ? { feature } : {}),
    parse: parseAclSettings,
    serialize: serializeAclSettings,
    key: aclKey,
  };
}

export const aclPolicy = aclModule('ACL', 'endpoint');
