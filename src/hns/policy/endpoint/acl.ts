/**
 * `ACL` endpoint policy: one allow/block rule on the endpoint's port (reference hns-hcs.md §2.2,
 * vfp-dataplane.md §2). The same settings shape serves the `NetworkACL` network policy, so the
 * module is built by `aclModule()`; the VFP compiler reads the parsed fields of `AclSettings`.
 */
import type { JsonObject, Reader } from '../../../core/json.js';
import { supports, type FeatureName } from '../../versions.js';
import type { PolicyContext, PolicyModule, PolicyScope } from '../contracts.js';
import { optString, putStr } from '../fields.js';
import { putAddressesAndPorts, readRuleMatch, ruleMatchKey, type RuleMatch } from '../rule-match.js';

export const ACL_ACTIONS = ['Allow', 'Block', 'Pass'] as const;
export type AclAction = (typeof ACL_ACTIONS)[number];
export const ACL_DIRECTIONS = ['In', 'Out'] as const;
/** `In` = traffic coming to the endpoint, `Out` = traffic leaving it. */
export type AclDirection = (typeof ACL_DIRECTIONS)[number];
export const ACL_RULE_TYPES = ['Host', 'Switch'] as const;
/** `Host` = WFP (Windows Firewall), `Switch` = VFP. */
export type AclRuleType = (typeof ACL_RULE_TYPES)[number];

export interface AclSettings extends RuleMatch {
  /** Schema `Id` (RS4+, Calico writes one); not in hcsshim's struct. */
  readonly id: string | undefined;
  readonly action: AclAction;
  readonly direction: AclDirection;
  /** As written; undefined = omitted. */
  readonly ruleType: AclRuleType | undefined;
  /** What applies when `RuleType` is omitted: `Switch` (our choice, docs/model.md). */
  readonly effectiveRuleType: AclRuleType;
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
  // built field by field (not spread): one hidden class for every ACL record
  return {
    protocols: match.protocols,
    localAddresses: match.localAddresses,
    remoteAddresses: match.remoteAddresses,
    localPorts: match.localPorts,
    remotePorts: match.remotePorts,
    priority: match.priority,
    protocolSet: match.protocolSet,
    local: match.local,
    remote: match.remote,
    localPortRanges: match.localPortRanges,
    remotePortRanges: match.remotePortRanges,
    id,
    action,
    direction,
    ruleType,
    effectiveRuleType: ruleType ?? 'Switch',
  };
}

/** hcsshim `AclPolicySetting` order; Action and Direction are never omitted. */
export function serializeAclSettings(s: AclSettings): JsonObject {
  const out: JsonObject = {};
  putStr(out, 'Id', s.id);
  putStr(out, 'Protocols', s.protocols);
  out['Action'] = s.action;
  out['Direction'] = s.direction;
  putAddressesAndPorts(out, s);
  putStr(out, 'RuleType', s.ruleType);
  if (s.priority !== 0) out['Priority'] = s.priority;
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
