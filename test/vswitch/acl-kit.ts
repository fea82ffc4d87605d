/**
 * Helpers for the ACL tests: real HNS policy JSON goes through the real parser (parsePolicies with
 * the endpoint or network scope, as src/hns/service.ts calls it), becomes AclSources the way
 * src/vswitch/view.ts builds them (endpoint ACL/TierAcl, then the network's NetworkACL), and is
 * compiled by compileAcls; packets are written as text (`'10.0.0.5:80'`).
 */
import type { JsonObject } from '../../src/core/json.js';
import type { PolicyContext } from '../../src/hns/policy/contracts.js';
import type { AclSettings } from '../../src/hns/policy/endpoint/acl.js';
import type { TierAclSettings } from '../../src/hns/policy/endpoint/tier-acl.js';
import { parsePolicies } from '../../src/hns/policy/registry.js';
import {
  compileAcls,
  evaluateAcls,
  type AclDirectionName,
  type AclOptions,
  type AclSource,
  type AclVerdict,
  type CompiledAcls,
  type SetResolver,
} from '../../src/vswitch/acl.js';
import { ip, parsePrefix4, type Prefix4 } from '../../src/vswitch/v4.js';

/** HNS 15.4 (WS2025): ACL, TierAcl (≥ 14.0), NetworkACL and SetPolicy (≥ 13.0/15.0) all parse. */
const VERSION = { major: 15, minor: 4 } as const;
export const ENDPOINT_CTX: PolicyContext = { version: VERSION, scope: 'endpoint', networkType: 'L2Bridge' };
export const NETWORK_CTX: PolicyContext = { version: VERSION, scope: 'network', networkType: 'L2Bridge' };

export const ENDPOINT_ID = '7A3F0C2E-5B1D-4E8A-9C6F-0D2B4A6E8F10';
export const NETWORK_ID = 'C1D2E3F4-A5B6-4C7D-8E9F-0A1B2C3D4E5F';

/** An `ACL` endpoint policy. */
export function acl(settings: JsonObject): JsonObject {
  return { Type: 'ACL', Settings: settings };
}

/** A `TierAcl` endpoint policy. */
export function tierAcl(settings: JsonObject): JsonObject {
  return { Type: 'TierAcl', Settings: settings };
}

/** A `NetworkACL` network policy. */
export function networkAcl(settings: JsonObject): JsonObject {
  return { Type: 'NetworkACL', Settings: settings };
}

export interface AclFixture {
  /** The network's Policies (NetworkACL rules join the endpoint's flat rules). */
  readonly network?: readonly JsonObject[];
  /** IP sets by id (what the network's SetPolicies resolve to). */
  readonly sets?: Readonly<Record<string, readonly string[]>>;
  readonly opts?: AclOptions;
}

/** A resolver over a plain table of set id → prefixes (text). */
export function setResolver(sets: Readonly<Record<string, readonly string[]>> = {}): SetResolver {
  const table = new Map<string, readonly Prefix4[]>(
    Object.entries(sets).map(([id, values]) => [
      id,
      values.map((v) => {
        const p = parsePrefix4(v);
        if (!p) throw new TypeError(`not an IPv4 prefix: ${v}`);
        return p;
      }),
    ]),
  );
  return (id) => table.get(id);
}

/** Parse the endpoint's (and its network's) policies and compile their ACLs. */
export function compileFrom(endpoint: readonly JsonObject[], fx: AclFixture = {}): CompiledAcls {
  const sources: AclSource[] = [];
  const owner = { kind: 'Endpoint' as const, id: ENDPOINT_ID, name: 'pod-a' };
  parsePolicies([...endpoint], ENDPOINT_CTX).forEach((p, index) => {
    if (p.type === 'ACL') sources.push({ type: 'ACL', settings: p.settings as AclSettings, owner, index });
    else if (p.type === 'TierAcl')
      sources.push({ type: 'TierAcl', settings: p.settings as TierAclSettings, owner, index });
  });
  const netOwner = { kind: 'Network' as const, id: NETWORK_ID, name: 'cbr0' };
  parsePolicies([...(fx.network ?? [])], NETWORK_CTX).forEach((p, index) => {
    if (p.type === 'NetworkACL')
      sources.push({ type: 'NetworkACL', settings: p.settings as AclSettings, owner: netOwner, index });
  });
  return compileAcls(sources, setResolver(fx.sets), fx.opts);
}

function endpointOf(text: string): { ip: number; port: number } {
  const colon = text.indexOf(':');
  return colon < 0
    ? { ip: ip(text), port: 0 }
    : { ip: ip(text.slice(0, colon)), port: Number(text.slice(colon + 1)) };
}

/** Evaluate one packet, `src`/`dst` as `'a.b.c.d:port'` (the port may be left out for ICMP). */
export function judge(
  acls: CompiledAcls,
  dir: AclDirectionName,
  proto: number,
  src: string,
  dst: string,
): AclVerdict {
  const s = endpointOf(src);
  const d = endpointOf(dst);
  return evaluateAcls(acls, dir, proto, s.ip, s.port, d.ip, d.port);
}

/** The part of a verdict the tests assert: allowed, what decided, and the deciding rule's Id/priority. */
export interface VerdictShape {
  readonly allowed: boolean;
  readonly by: AclVerdict['by'];
  readonly ruleId?: string;
  readonly priority?: number;
  readonly stage?: AclVerdict['stage'];
}

export function shape(v: AclVerdict, withStage = false): VerdictShape {
  return {
    allowed: v.allowed,
    by: v.by,
    ...(v.rule?.ruleId !== undefined ? { ruleId: v.rule.ruleId } : {}),
    ...(v.rule?.priority !== undefined ? { priority: v.rule.priority } : {}),
    ...(withStage ? { stage: v.stage } : {}),
  };
}
