/**
 * `TierAcl` endpoint policy (HNS ≥ 14.0, schema 2.10): one named tier of ACL rules for one
 * direction; tiers run by ascending `Order`, `Pass` hands the packet to the next tier
 * (reference hns-hcs.md §2.2, vfp-dataplane.md §2.5; vectors from hcsshim `HcnCreateTierAcls`).
 */
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyContext, PolicyModule } from '../contracts.js';
import { optString, putStr, requiredString, uintField, UINT16_MAX } from '../fields.js';
import { putAddressesAndPorts, readRuleMatch, ruleMatchKey, type RuleMatch } from '../rule-match.js';
import { readAction, readDirection, type AclAction, type AclDirection } from './acl.js';

export interface TierAclRuleSettings extends RuleMatch {
  readonly id: string | undefined;
  /** Allow / Block terminate; Pass continues with the next tier. */
  readonly action: AclAction;
}

export interface TierAclSettings {
  readonly name: string;
  readonly direction: AclDirection;
  /** uint16; tiers are evaluated by ascending Order. */
  readonly order: number;
  /** In the order given (within a tier the lowest Priority wins). */
  readonly rules: readonly TierAclRuleSettings[];
}

function parseRule(r: Reader, ctx: PolicyContext): TierAclRuleSettings {
  const id = optString(r, 'Id');
  const action = readAction(r, 'TierAclRuleAction', ctx);
  return { ...readRuleMatch(r, ctx, { allowSetIds: true }), id, action };
}

function parse(r: Reader, ctx: PolicyContext): TierAclSettings {
  const name = requiredString(r, 'Name');
  const direction = readDirection(r);
  const order = uintField(r, 'Order', UINT16_MAX);
  const rules = r.objs('TierAclRules').map((rr) => parseRule(rr, ctx));
  return { name, direction, order, rules };
}

/** hcsshim `TierAclRule` order; TierAclRuleAction is never omitted. */
function serializeRule(s: TierAclRuleSettings): JsonObject {
  const out: JsonObject = {};
  putStr(out, 'Id', s.id);
  putStr(out, 'Protocols', s.protocols);
  out['TierAclRuleAction'] = s.action;
  putAddressesAndPorts(out, s);
  if (s.priority !== 0) out['Priority'] = s.priority;
  return out;
}

/** Name, Direction and Order are always serialised; TierAclRules is omitted when empty. */
function serialize(s: TierAclSettings): JsonObject {
  const out: JsonObject = { Name: s.name, Direction: s.direction, Order: s.order };
  if (s.rules.length > 0) out['TierAclRules'] = s.rules.map(serializeRule);
  return out;
}

/** A tier is identified by direction and name (Remove / duplicate detection); our choice. */
export const tierAclPolicy: PolicyModule<TierAclSettings> = {
  type: 'TierAcl',
  scopes: ['endpoint'],
  feature: 'TierAcl',
  parse,
  serialize,
  key: (s) => `${s.direction}|${s.name}`,
};

/** Canonical text of a whole tier, rules included (for tests and change detection). */
export function tierAclContentKey(s: TierAclSettings): string {
  return [
    s.direction,
    s.name,
    s.order,
    ...s.rules.map((x) => `${x.id ?? ''}:${x.action}:${ruleMatchKey(x)}`),
  ].join('|');
}
