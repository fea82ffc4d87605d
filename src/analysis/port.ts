/**
 * The ACL analysis of one endpoint port of a node: the port's compiled ACLs (its ACL and TierAcl
 * policies and its network's NetworkACLs, IP sets resolved) over the packets that can cross it —
 * those with the endpoint's own IPv4 address on the local side — under the node's ACL options.
 */
import { hnsError } from '../core/errors.js';
import { findPort } from '../dataplane/host-scope.js';
import type { Host } from '../host/host.js';
import type { PortView } from '../vswitch/view.js';
import { fmt, prefix4 } from '../vswitch/v4.js';
import { analyzeAcls, type AclAnalysis } from './acl.js';

export interface PortAnalysis extends AclAnalysis {
  /** The endpoint: its ID, name and IPv4 address (dotted). */
  readonly endpoint: { readonly id: string; readonly name: string; readonly ip: string };
}

/**
 * Analyse the ACLs of a local endpoint's port. `endpoint`: its ID, name, container or namespace
 * ID (as a trace names it). Errors: ERROR_NOT_FOUND (no such local endpoint), E_INVALIDARG (an
 * endpoint without an IPv4 address: no packet of this space crosses it).
 */
export function analyzePort(host: Host, endpoint: string): PortAnalysis {
  const port = localPortOf(host, endpoint);
  const a = analyzeAcls(port.acls(), { localAddresses: [prefix4(port.ip, 32)] });
  return { ...a, endpoint: { id: port.id, name: port.name, ip: fmt(port.ip) } };
}

/** The local endpoint port a reference names, with an IPv4 address (the errors of analyzePort). */
export function localPortOf(host: Host, endpoint: string): PortView {
  const port = findPort(host.dataplane, endpoint);
  if (!port || port.remote)
    throw hnsError('ERROR_NOT_FOUND', `no local endpoint "${endpoint}" on ${host.name}`);
  if (!port.ip) throw hnsError('E_INVALIDARG', `endpoint "${port.name}" has no IPv4 address`);
  return port;
}
