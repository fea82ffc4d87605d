/**
 * What a policy type is (reference hns-hcs.md §2). Every policy type lives in its own module that
 * exports one `PolicyModule`: how its Settings parse and validate, how they serialise back in the
 * shape HNS emits, which HNS version introduced it, and what it may not coexist with. The service
 * never looks inside Settings except through this contract.
 */
import type { HResultName } from '../../core/errors.js';
import type { JsonObject, Reader } from '../../core/json.js';
import type { FeatureName, HnsVersion } from '../versions.js';

/** Where a policy may appear: a network's Policies, an endpoint's Policies, a subnet's Policies. */
export type PolicyScope = 'network' | 'endpoint' | 'subnet';

/** HCN network types (NetworkMode), exact strings. */
export type NetworkType =
  | 'NAT'
  | 'ICS'
  | 'Transparent'
  | 'L2Bridge'
  | 'L2Tunnel'
  | 'Overlay'
  | 'Private'
  | 'Internal'
  | 'Mirrored'
  | 'Infiniband'
  | 'ConstrainedICS'
  | 'Layered';

export interface PolicyContext {
  /** The HNS service version of the host (feature gates). */
  readonly version: HnsVersion;
  readonly scope: PolicyScope;
  /** The type of the network the policy is on (or the endpoint's network). */
  readonly networkType: NetworkType;
  /** The policy came through the v1 API (or a v1-shaped document): v1-only types are allowed. */
  readonly v1?: boolean;
}

/** A parsed, validated policy: the module that owns it and its normalised settings. */
export interface ParsedPolicy<S = unknown> {
  readonly type: string;
  readonly settings: S;
}

/** A claim that must be unique among all endpoints of one network (e.g. a host port). */
export interface UniqueClaim {
  readonly key: string;
  readonly error: HResultName;
}

export interface PolicyModule<S = unknown> {
  /** The exact `Type` string Windows uses (e.g. `OutBoundNAT`, `PortMapping`, `L4WFPPROXY`). */
  readonly type: string;
  readonly scopes: readonly PolicyScope[];
  /** HNS feature that must be supported by the host version; absent = any v2 HNS. */
  readonly feature?: FeatureName;
  /** Network types on which this policy is rejected with HCN_E_MAPPING_NOT_SUPPORTED-like errors. */
  readonly unsupportedOn?: { readonly types: readonly NetworkType[]; readonly error: HResultName };
  /**
   * Validate `settings` (already known to be an object; the Reader throws HCN_E_INVALID_POLICY) and
   * return the normalised settings record. Must not mutate anything.
   */
  parse(settings: Reader, ctx: PolicyContext): S;
  /** The Settings object exactly as HNS emits it on query (key order fixed). */
  serialize(settings: S): JsonObject;
  /**
   * Identity of a policy instance: two policies with the same key are "the same policy" for Remove
   * requests and for duplicate detection on one object.
   */
  key(settings: S): string;
  /**
   * What a policy in an `Update` request replaces: `type` (default) every existing policy of its
   * Type; `key` only the existing policy with the same identity (none → HCN_E_POLICY_NOT_FOUND).
   */
  readonly update?: 'type' | 'key';
  /** A v1 policy type with no HCN v2 counterpart (VNET, Isolation): only where `ctx.v1`. */
  readonly v1Only?: boolean;
  /** Whether more than one policy of this type may sit on one object (default true). */
  readonly multiple?: boolean;
  /** Claims that must be unique across the endpoints of one network (PortMapping host ports). */
  claims?(settings: S): readonly UniqueClaim[];
}
