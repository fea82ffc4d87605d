/**
 * `NetworkACL` network policy: an ACL rule attached to the whole network, same fields as the
 * endpoint `ACL` (reference hns-hcs.md §2.1, vfp-dataplane.md §2.5). HNS ≥ 15.0 (`NetworkACL`).
 * Enforcement semantics are undocumented; the dataplane decides how to apply it.
 */
import { aclModule } from '../endpoint/acl.js';

export const networkAclPolicy = aclModule('NetworkACL', 'network', 'NetworkACL');
