/**
 * The policy registry (reference hns-hcs.md §2, §4): every HCN v2 policy module, lookup by `Type`
 * and scope, and the entry points the service uses to parse, check, serialise, identify and claim
 * policies. Type strings are matched case-insensitively and emitted in Windows' exact spelling.
 *
 *   const p = parsePolicy({ Type: 'PortMapping', Settings: { Protocol: 17, InternalPort: 45678,
 *     ExternalPort: 56789 } }, { version: { major: 15, minor: 4 }, scope: 'endpoint', networkType: 'Overlay' });
 *   serializePolicy(p) // {"Type":"PortMapping","Settings":{"Protocol":17,"InternalPort":45678,"ExternalPort":56789}}
 *   policyClaims(p)    // [{ key: 'PortMapping/17/56789/*', error: 'HCN_E_PORT_ALREADY_EXISTS' }]
 */
import { hnsError, type HResultName } from '../../core/errors.js';
import { isJsonObject, Reader, type Json, type JsonObject } from '../../core/json.js';
import { formatVersion, supports } from '../versions.js';
import type { ParsedPolicy, PolicyContext, PolicyModule, PolicyScope, UniqueClaim } from './contracts.js';
import { aclPolicy } from './endpoint/acl.js';
import { encapOverheadPolicy } from './endpoint/encap-overhead.js';
import { encryptionPolicy } from './endpoint/encryption.js';
import { interfaceParametersPolicy } from './endpoint/interface-parameters.js';
import { iovPolicy } from './endpoint/iov.js';
import { l2DriverPolicy } from './endpoint/l2-driver.js';
import { l4WfpProxyPolicy } from './endpoint/l4-wfp-proxy.js';
import { outboundNatPolicy } from './endpoint/outbound-nat.js';
import { portMappingPolicy } from './endpoint/port-mapping.js';
import { portNamePolicy } from './endpoint/port-name.js';
import { qosPolicy } from './endpoint/qos.js';
import { sdnRoutePolicy } from './endpoint/sdn-route.js';
import { tierAclPolicy } from './endpoint/tier-acl.js';
import { automaticDnsPolicy } from './network/automatic-dns.js';
import { drMacAddressPolicy } from './network/dr-mac-address.js';
import { hostRoutePolicy } from './network/host-route.js';
import { layerConstraintPolicy } from './network/layer-constraint.js';
import { neighborDiscoveryPolicy } from './network/neighbor-discovery.js';
import { netAdapterNamePolicy } from './network/net-adapter-name.js';
import { networkAclPolicy } from './network/network-acl.js';
import { remoteSubnetRoutePolicy } from './network/remote-subnet-route.js';
import { setPolicy } from './network/set-policy.js';
import { sourceMacAddressPolicy } from './network/source-mac-address.js';
import { vSwitchExtensionPolicy } from './network/vswitch-extension.js';
import { vxlanPortPolicy } from './network/vxlan-port.js';
import { interfaceConstraintPolicy } from './shared/interface-constraint.js';
import { l4ProxyPolicy } from './shared/l4-proxy.js';
import { providerAddressPolicy } from './shared/provider-address.js';
import { vlanPolicy } from './shared/vlan.js';
import { vsidPolicy } from './subnet/vsid.js';
import { isolationPolicy, vnetPolicy } from './v1/vnet.js';

/**
 * Every policy module. A Type name maps to exactly one module; a Type valid in two scopes
 * (L4Proxy, ProviderAddress, InterfaceConstraint, VLAN) is one module listing both scopes.
 */
export const POLICY_MODULES: readonly PolicyModule[] = [
  // network (hns-hcs.md §2.1)
  sourceMacAddressPolicy,
  netAdapterNamePolicy,
  vSwitchExtensionPolicy,
  drMacAddressPolicy,
  automaticDnsPolicy,
  remoteSubnetRoutePolicy,
  vxlanPortPolicy,
  hostRoutePolicy,
  setPolicy,
  layerConstraintPolicy,
  networkAclPolicy,
  neighborDiscoveryPolicy,
  // network and endpoint
  interfaceConstraintPolicy,
  providerAddressPolicy,
  l4ProxyPolicy,
  // endpoint (hns-hcs.md §2.2)
  portMappingPolicy,
  aclPolicy,
  qosPolicy,
  l2DriverPolicy,
  outboundNatPolicy,
  sdnRoutePolicy,
  l4WfpProxyPolicy,
  portNamePolicy,
  encapOverheadPolicy,
  iovPolicy,
  tierAclPolicy,
  encryptionPolicy,
  interfaceParametersPolicy,
  // endpoint and subnet
  vlanPolicy,
  // subnet
  vsidPolicy,
  // v1 endpoint policies without a v2 counterpart (accepted only through v1)
  vnetPolicy,
  isolationPolicy,
];

/** Lower-cased Type → module (Type names are unique; the contract battery checks it). */
const byType = new Map<string, PolicyModule>(POLICY_MODULES.map((m) => [m.type.toLowerCase(), m]));
/** The same modules by exact Windows spelling: a parsed policy's Type is found without folding case. */
const byExactType = new Map<string, PolicyModule>(POLICY_MODULES.map((m) => [m.type, m]));

/** The module of a Type in any case (the exact Windows spelling first, as parsed policies hold it). */
function lookupType(type: string): PolicyModule | undefined {
  return byExactType.get(type) ?? byType.get(type.toLowerCase());
}

function typesIn(scope: PolicyScope): readonly string[] {
  return POLICY_MODULES.filter((m) => m.scopes.includes(scope)).map((m) => m.type);
}

/** Policy Type names per scope, in Windows' spelling (for docs, fuzzers and listings). */
export const POLICY_TYPES: Readonly<Record<PolicyScope, readonly string[]>> = {
  network: typesIn('network'),
  endpoint: typesIn('endpoint'),
  subnet: typesIn('subnet'),
};

/** The module of a Type (any case) if it is valid in `scope`. */
export function getPolicyModule(type: string, scope: PolicyScope): PolicyModule | undefined {
  const m = lookupType(type);
  return m && m.scopes.includes(scope) ? m : undefined;
}

/** Whether `type` (any case) is a policy Type in some scope. */
export function isKnownPolicyType(type: string): boolean {
  return lookupType(type) !== undefined;
}

/** The exact Windows spelling of a known Type (`outboundnat` → `OutBoundNAT`). */
export function canonicalPolicyType(type: string): string | undefined {
  return lookupType(type)?.type;
}

function moduleOf(p: ParsedPolicy): PolicyModule {
  const m = lookupType(p.type);
  if (!m) throw hnsError('HCN_E_INVALID_POLICY_TYPE', `unknown policy type "${p.type}"`);
  return m;
}

/**
 * Parse one `{"Type","Settings"}` policy of `ctx.scope`. Errors: not an object / Type not a string /
 * Settings not an object / bad settings → HCN_E_INVALID_POLICY; unknown Type, Type of another scope,
 * or a feature the host version lacks → HCN_E_INVALID_POLICY_TYPE; a Type the network type does
 * not support → the module's `unsupportedOn.error`. Missing or null Settings = `{}`.
 */
export function parsePolicy(raw: Json, ctx: PolicyContext): ParsedPolicy {
  if (!isJsonObject(raw))
    throw hnsError('HCN_E_INVALID_POLICY', 'a policy must be an object {"Type","Settings"}');
  const type = raw['Type'];
  if (typeof type !== 'string') throw hnsError('HCN_E_INVALID_POLICY', 'policy Type must be a string');
  const found = getPolicyModule(type, ctx.scope);
  const m = found?.v1Only && !ctx.v1 ? undefined : found;
  if (!m) {
    const where = isKnownPolicyType(type) ? ` (not a ${ctx.scope} policy)` : '';
    throw hnsError('HCN_E_INVALID_POLICY_TYPE', `policy type "${type}"${where}`);
  }
  if (m.feature && !supports(ctx.version, m.feature)) {
    throw hnsError(
      'HCN_E_INVALID_POLICY_TYPE',
      `${m.type} needs feature ${m.feature}, not in HNS ${formatVersion(ctx.version)}`,
    );
  }
  if (m.unsupportedOn?.types.includes(ctx.networkType)) {
    throw hnsError(m.unsupportedOn.error, `${m.type} on a ${ctx.networkType} network`);
  }
  const settings = raw['Settings'];
  if (settings !== undefined && settings !== null && !isJsonObject(settings)) {
    throw hnsError('HCN_E_INVALID_POLICY', `${m.type} Settings must be an object`);
  }
  // Parsed policies are immutable, so identical ones are shared: most endpoints of a network carry
  // the same OutBoundNAT and ACL settings (memory per endpoint, DESIGN contract 5). Types that claim
  // something unique (PortMapping host ports) differ per object by design and are not interned.
  if (m.claims)
    return {
      type: m.type,
      settings: m.parse(new Reader(settings ?? {}, 'HCN_E_INVALID_POLICY', m.type + '.Settings'), ctx),
    };
  const table = internTable(ctx, m.type);
  const given = settings ?? EMPTY_SETTINGS;
  // fast path: the same settings as the previous policy of this type (most endpoints of a network)
  if (table.last && jsonEqual(given, table.last.raw)) return table.last.parsed;
  const key = JSON.stringify(given);
  let parsed = table.byText.get(key);
  if (!parsed) {
    const reader = new Reader(given, 'HCN_E_INVALID_POLICY', m.type + '.Settings');
    parsed = { type: m.type, settings: m.parse(reader, ctx) };
    if (++interned > INTERN_LIMIT) {
      INTERNED.clear();
      interned = 1;
    }
    table.byText.set(key, parsed);
  }
  table.last = { raw: JSON.parse(key) as JsonObject, parsed };
  return parsed;
}

const EMPTY_SETTINGS: JsonObject = {};

/** Deep equality of two JSON values (object key order ignored). */
function jsonEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i]!, b[i]!)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  let n = 0;
  for (const k in a) {
    const bv = b[k];
    if (bv === undefined || !jsonEqual(a[k]!, bv)) return false;
    n++;
  }
  for (const _k in b) n--;
  return n === 0;
}

/**
 * Interned parsed policies: scope → network type → HNS version → policy type → Settings JSON text.
 * Nested maps keep every lookup key short; the whole cache is dropped when it passes its bound.
 */
interface Table {
  /** Parsed policies by the JSON text of their Settings. */
  readonly byText: Map<string, ParsedPolicy>;
  /** The last Settings seen (a private copy) and their parse: compared before any stringify. */
  last?: { readonly raw: JsonObject; readonly parsed: ParsedPolicy };
}
const INTERNED = new Map<string, Map<string, Map<number, Map<string, Table>>>>();
const INTERN_LIMIT = 8192;
let interned = 0;

function internTable(ctx: PolicyContext, type: string): Table {
  let byNet = INTERNED.get(ctx.scope);
  if (!byNet) INTERNED.set(ctx.scope, (byNet = new Map()));
  let byVersion = byNet.get(ctx.networkType);
  if (!byVersion) byNet.set(ctx.networkType, (byVersion = new Map()));
  const v = ctx.version.major * 0x10000 + ctx.version.minor;
  let byType = byVersion.get(v);
  if (!byType) byVersion.set(v, (byType = new Map()));
  let table = byType.get(type);
  if (!table) byType.set(type, (table = { byText: new Map() }));
  return table;
}

/** The registered error for a second instance of a single-instance (`multiple: false`) type. */
export function duplicateInstanceError(type: string): HResultName {
  return type === 'InterfaceParameters'
    ? 'HCN_INTERFACEPARAMETERS_ALREADY_APPLIED'
    : 'HCN_E_POLICY_ALREADY_EXISTS';
}

/**
 * Throws if a single-instance type (`multiple: false`) appears more than once in `policies`:
 * HCN_INTERFACEPARAMETERS_ALREADY_APPLIED for InterfaceParameters, else HCN_E_POLICY_ALREADY_EXISTS.
 * The service calls it on the policies an object would have after a change (existing + added for
 * Add; the list with replaced policies swapped for Update), so a failed request changes nothing.
 */
export function assertSingleInstances(policies: readonly ParsedPolicy[]): void {
  const seen = new Set<string>();
  for (const p of policies) {
    const m = moduleOf(p);
    if (m.multiple !== false) continue;
    if (seen.has(m.type)) throw hnsError(duplicateInstanceError(m.type), `more than one ${m.type} policy`);
    seen.add(m.type);
  }
}

/** Parse a Policies array (absent = []), then enforce single-instance types. */
export function parsePolicies(raw: readonly Json[] | Json | undefined, ctx: PolicyContext): ParsedPolicy[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw hnsError('HCN_E_INVALID_POLICY', 'Policies must be an array');
  const out = raw.map((p: Json) => parsePolicy(p, ctx));
  assertSingleInstances(out);
  return out;
}

/** `{"Type":…, "Settings":{…}}` exactly as HNS emits it on query. */
export function serializePolicy(p: ParsedPolicy): JsonObject {
  return { Type: p.type, Settings: moduleOf(p).serialize(p.settings) };
}

/**
 * Identity of a policy on one object: Type + the module's key. Equal keys = the same policy for
 * Remove/Update requests and for duplicate detection.
 */
export function policyKey(p: ParsedPolicy): string {
  return `${p.type}/${moduleOf(p).key(p.settings)}`;
}

/** What an Update request's policy of this type replaces (PolicyModule.update). */
export function updateMode(p: ParsedPolicy): 'type' | 'key' {
  return moduleOf(p).update ?? 'type';
}

/** Claims that must be unique across the endpoints of one network (PortMapping host ports). */
export function policyClaims(p: ParsedPolicy): readonly UniqueClaim[] {
  return moduleOf(p).claims?.(p.settings) ?? [];
}
