/**
 * Policy requests: the `RequestType` of a Modify document and what Add, Remove, Update and Refresh
 * do to an object's policy list (hcsshim's ModifyEndpointSettingRequest / ModifyNetworkSettingRequest
 * comments; docs/model.md "Policy requests").
 *
 *   applyPolicyRequest(e.Policies, parsePolicies(settings, ctx), 'Update', 'endpoint')
 */
import { hnsError } from '../core/errors.js';
import type { Reader } from '../core/json.js';
import type { ParsedPolicy } from './policy/contracts.js';
import { assertSingleInstances, policyKey, updateMode } from './policy/registry.js';

export type RequestType = 'Add' | 'Remove' | 'Update' | 'Refresh';

const REQUEST_TYPES: readonly RequestType[] = ['Add', 'Remove', 'Update', 'Refresh'];

/** The document's `RequestType`; anything else → HCN_E_REQUEST_UNSUPPORTED. */
export function readRequestType(r: Reader): RequestType {
  const t = r.optStr('RequestType') ?? '';
  const found = REQUEST_TYPES.find((x) => x === t);
  if (!found) throw hnsError('HCN_E_REQUEST_UNSUPPORTED', `RequestType "${t}"`);
  return found;
}

/**
 * Policy request semantics (hcsshim comments on ModifyEndpointSettingRequest): Add appends (the same
 * policy twice → HCN_E_POLICY_ALREADY_EXISTS); Remove drops each given policy (absent →
 * HCN_E_POLICY_NOT_FOUND); Update replaces the policies the request identifies — a SetPolicy the set
 * with its Id, any other policy every existing policy of its Type, and on an endpoint always the
 * ACL set (docs/model.md, with the Azure NPM and Calico evidence); Refresh re-applies and changes
 * nothing.
 */
export function applyPolicyRequest(
  current: readonly ParsedPolicy[],
  given: readonly ParsedPolicy[],
  requestType: RequestType,
  scope: 'network' | 'endpoint' = 'network',
): ParsedPolicy[] {
  const keys = new Set(current.map(policyKey));
  switch (requestType) {
    case 'Add': {
      const seen = new Set<string>();
      for (const p of given) {
        const k = policyKey(p);
        if (keys.has(k) || seen.has(k)) throw hnsError('HCN_E_POLICY_ALREADY_EXISTS', p.type);
        seen.add(k);
      }
      const merged = [...current, ...given];
      assertSingleInstances(merged);
      return merged;
    }
    case 'Remove': {
      const drop = new Set<string>();
      for (const p of given) {
        const k = policyKey(p);
        if (!keys.has(k)) throw hnsError('HCN_E_POLICY_NOT_FOUND', p.type);
        drop.add(k);
      }
      return current.filter((p) => !drop.has(policyKey(p)));
    }
    case 'Update': {
      // a keyed policy (SetPolicy) replaces the one with its identity, in place; any other replaces
      // every existing policy of its Type (Calico's ACL-only Update keeps OutBoundNAT and PA)
      const byKey = new Map<string, ParsedPolicy>();
      // an endpoint's ACL set is always replaced, by the request's ACLs or by none: Azure NPM removes
      // its last ACLs with an Update that carries only the endpoint's other policies
      const types = new Set<string>(scope === 'endpoint' ? ['ACL'] : []);
      for (const p of given) {
        if (updateMode(p) === 'key') {
          const k = policyKey(p);
          if (!keys.has(k)) throw hnsError('HCN_E_POLICY_NOT_FOUND', `${p.type} ${k} is not on the object`);
          if (byKey.has(k)) throw hnsError('HCN_E_POLICY_ALREADY_EXISTS', `${p.type} ${k} is given twice`);
          byKey.set(k, p);
        } else types.add(p.type);
      }
      const merged: ParsedPolicy[] = [];
      for (const p of current) {
        if (types.has(p.type)) continue;
        merged.push(byKey.get(policyKey(p)) ?? p);
      }
      for (const p of given) if (types.has(p.type)) merged.push(p);
      assertSingleInstances(merged);
      return merged;
    }
    case 'Refresh':
      return [...current];
  }
}
