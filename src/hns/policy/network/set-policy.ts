/**
 * `SetPolicy` network policy (HNS ≥ 13.0, `SetPolicy`): a named IP set that ACL address fields can
 * reference by `Id` (Azure NPM). `IPSET` holds IPs/prefixes; `NESTEDIPSET` (HNS ≥ 15.0,
 * `NestedIpSet`) holds other set ids (reference hns-hcs.md §2.1, vfp-dataplane.md §2.5).
 */
import type { Prefix } from '../../../addr/ip.js';
import { supports } from '../../versions.js';
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyContext, PolicyModule } from '../contracts.js';
import { parseAddressList, SET_ID_RE } from '../fields.js';

export const SET_POLICY_TYPES = ['IPSET', 'NESTEDIPSET'] as const;
export type SetPolicyType = (typeof SET_POLICY_TYPES)[number];

export interface SetPolicySettings {
  /** The set's identity (what ACLs reference); letters first, then letters, digits, `-_.`. */
  readonly id: string;
  readonly name: string;
  /** Go field `Type`, JSON key `PolicyType`. */
  readonly policyType: SetPolicyType;
  /** Comma list as written ("" = empty set). */
  readonly values: string;
  /** IPSET members. */
  readonly prefixes: readonly Prefix[];
  /** NESTEDIPSET members (set ids, resolved by the service against the network's sets). */
  readonly memberSetIds: readonly string[];
}

/** `PolicyType` as hcsshim writes it (string), or as microsoft/SDN's script does (0 / 1). */
function readPolicyType(r: Reader): SetPolicyType {
  const raw = r.raw('PolicyType');
  if (typeof raw === 'number') {
    const t = Number.isInteger(raw) ? SET_POLICY_TYPES[raw] : undefined;
    if (t === undefined) r.fail(`PolicyType ${raw} is not 0 (IPSET) or 1 (NESTEDIPSET)`);
    return t;
  }
  const t = r.optEnum('PolicyType', SET_POLICY_TYPES);
  if (t === undefined) r.fail('PolicyType is required (IPSET or NESTEDIPSET)');
  return t;
}

function parse(r: Reader, ctx: PolicyContext): SetPolicySettings {
  const id = r.optStr('Id') ?? '';
  if (!SET_ID_RE.test(id))
    r.fail(`Id "${id}" must start with a letter and contain only letters, digits, - _ .`);
  const name = r.optStr('Name') ?? '';
  const policyType = readPolicyType(r);
  if (policyType === 'NESTEDIPSET' && !supports(ctx.version, 'NestedIpSet')) {
    r.fail('PolicyType NESTEDIPSET needs HNS 15.0 or later', 'HCN_E_INVALID_POLICY_TYPE');
  }
  const values = r.optStr('Values') ?? '';
  const text = values === '' ? undefined : values;
  if (policyType === 'IPSET') {
    const m = parseAddressList(r, 'Values', text, false);
    return { id, name, policyType, values, prefixes: m.prefixes, memberSetIds: [] };
  }
  const m = parseAddressList(r, 'Values', text, true);
  if (m.prefixes.length > 0) r.fail('Values of a NESTEDIPSET must be set ids, not addresses');
  return { id, name, policyType, values, prefixes: [], memberSetIds: m.setIds };
}

/** All four fields are always serialised (no omitempty in hcsshim's `SetPolicySetting`). */
function serialize(s: SetPolicySettings): JsonObject {
  return { Id: s.id, Name: s.name, PolicyType: s.policyType, Values: s.values };
}

/**
 * A set is identified by its Id: Update replaces only the sets it names (Azure NPM sends just the
 * changed sets, `ipsetmanager_windows.go`), Remove removes the set with that Id.
 */
export const setPolicy: PolicyModule<SetPolicySettings> = {
  type: 'SetPolicy',
  scopes: ['network'],
  feature: 'SetPolicy',
  update: 'key',
  parse,
  serialize,
  key: (s) => s.id,
};
