/**
 * HNS v1 policies (reference hns-hcs.md §3.3) and their HCN v2 counterparts (§2.1, §2.2). A v1
 * policy is flat, `{"Type":"NAT","Protocol":"TCP","InternalPort":80,"ExternalPort":8080}`; a v2
 * policy nests its settings, `{"Type":"PortMapping","Settings":{"Protocol":6,…}}`. Both directions
 * are here, because v1 views also show policies that were created through v2.
 *
 *   v1PolicyToV2({ Type: 'ROUTE', DestinationPrefix: '10.96.0.0/12', NeedEncap: true }, 'endpoint')
 *   // {"Type":"SDNRoute","Settings":{"DestinationPrefix":"10.96.0.0/12","NeedEncap":true}}
 *
 * The v2 result is not validated here: the service parses it with the policy registry, so a bad
 * value fails exactly as it would on a v2 call (HCN_E_INVALID_POLICY, HCN_E_INVALID_POLICY_TYPE…).
 */
import { hnsError } from '../../core/errors.js';
import { isJsonObject, Reader, type Json, type JsonObject } from '../../core/json.js';
import type { PolicyScope } from '../policy/contracts.js';
import { putBool, putList, putNum, putStr } from '../policy/fields.js';
import { canonicalPolicyType } from '../policy/registry.js';

const POLICY_CODE = 'HCN_E_INVALID_POLICY';

/** hcsshim `internal/hns/hnspolicy.go` PolicyType strings. */
export const V1_POLICY_TYPES = [
  'NAT',
  'ACL',
  'PA',
  'VLAN',
  'VSID',
  'VNET',
  'L2Driver',
  'Isolation',
  'QOS',
  'OutBoundNAT',
  'ELB',
  'ROUTE',
  'PROXY',
] as const;
export type V1PolicyType = (typeof V1_POLICY_TYPES)[number];

/** Protocol names v1 NAT policies use (`"TCP"`, also `"tcp"` from win-bridge), and their numbers. */
const PROTOCOL_BY_NAME: Readonly<Record<string, number>> = { tcp: 6, udp: 17 };

// ─────────────────────────────── reading v1 fields ───────────────────────────────

function str(r: Reader, key: string): string | undefined {
  const v = r.optStr(key);
  return v === '' ? undefined : v;
}

function uint(r: Reader, key: string, max: number): number {
  return r.optUint(key, max) ?? 0;
}

function strList(r: Reader, ...keys: string[]): string[] | undefined {
  for (const k of keys) if (r.has(k)) return r.strs(k);
  return undefined;
}

function settings(entries: Record<string, Json | undefined>): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(entries)) if (v !== undefined) out[k] = v;
  return out;
}

/** v1 NAT `Protocol`: "TCP"/"UDP" in any case, a decimal string, or a number; absent = TCP (our choice). */
function natProtocol(r: Reader): number {
  const v = r.raw('Protocol');
  if (v === undefined || v === '') return 6;
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const named = PROTOCOL_BY_NAME[v.toLowerCase()];
    if (named !== undefined) return named;
    if (/^[0-9]{1,3}$/.test(v)) return Number(v);
  }
  return r.fail(`Protocol ${JSON.stringify(v)} is not TCP or UDP`);
}

/** A v1 ACL number field (Protocol, ports): a JSON number, kept; 0 and absent are omitted. */
function legacyNum(r: Reader, key: string): number | undefined {
  return r.optUint(key, 0xffff) || undefined;
}

// ─────────────────────────────── v1 → v2 ───────────────────────────────

type ToV2 = (r: Reader, scope: PolicyScope) => JsonObject;

const TO_V2: Readonly<Record<string, ToV2>> = {
  nat: (r) => {
    const reserved = r.optBool('ExternalPortReserved') ?? false;
    const flags = uint(r, 'Flags', 0xffffffff) | (reserved ? 4 : 0);
    return policy(
      'PortMapping',
      settings({
        Protocol: natProtocol(r),
        InternalPort: uint(r, 'InternalPort', 0xffff),
        ExternalPort: r.optUint('ExternalPort', 0xffff),
        VIP: str(r, 'VIP'),
        Flags: flags || undefined,
      }),
    );
  },
  // the v1 single-value fields (Protocol, LocalPort, RemotePort, InternalPort, ServiceName) pass
  // through as given: the ACL module matches on them and echoes them
  acl: (r) =>
    policy(
      'ACL',
      settings({
        Id: str(r, 'Id'),
        Protocols: str(r, 'Protocols'),
        Action: r.optStr('Action'),
        Direction: r.optStr('Direction'),
        LocalAddresses: str(r, 'LocalAddresses'),
        RemoteAddresses: str(r, 'RemoteAddresses'),
        LocalPorts: str(r, 'LocalPorts'),
        RemotePorts: str(r, 'RemotePorts'),
        RuleType: str(r, 'RuleType'),
        Priority: r.optUint('Priority', 0xffff),
        Protocol: legacyNum(r, 'Protocol'),
        InternalPort: legacyNum(r, 'InternalPort'),
        LocalPort: legacyNum(r, 'LocalPort'),
        RemotePort: legacyNum(r, 'RemotePort'),
        ServiceName: str(r, 'ServiceName'),
      }),
    ),
  pa: (r) => policy('ProviderAddress', settings({ ProviderAddress: r.optStr('PA') })),
  vlan: (r) => policy('VLAN', { IsolationId: uint(r, 'VLAN', 0xffffffff) }),
  vsid: (r) => policy('VSID', { IsolationId: uint(r, 'VSID', 0xffffffff) }),
  qos: (r) =>
    policy(
      'QOS',
      settings({
        MaximumOutgoingBandwidthInBytes: r.optUint(
          'MaximumOutgoingBandwidthInBytes',
          Number.MAX_SAFE_INTEGER,
        ),
      }),
    ),
  outboundnat: (r) =>
    policy(
      'OutBoundNAT',
      settings({
        VirtualIP: str(r, 'VIP') ?? str(r, 'VirtualIP'),
        Exceptions: strList(r, 'ExceptionList', 'Exceptions'),
        Destinations: strList(r, 'Destinations'),
        Flags: r.optUint('Flags', 0xffffffff) || undefined,
        MaxPortPoolUsage: r.optUint('MaxPortPoolUsage', 0xffff) || undefined,
      }),
    ),
  route: (r) =>
    policy(
      'SDNRoute',
      settings({
        DestinationPrefix: r.optStr('DestinationPrefix'),
        NextHop: str(r, 'NextHop'),
        NeedEncap: r.optBool('NeedEncap'),
        AutomaticEndpointMonitor: r.optBool('AutomaticEndpointMonitor'),
      }),
    ),
  proxy: (r) =>
    policy(
      'L4Proxy',
      settings({
        IP: str(r, 'IP'),
        Port: str(r, 'Port'),
        Protocol: r.optUint('Protocol', 0xffffffff) || undefined,
        Exceptions: strList(r, 'ExceptionList', 'Exceptions'),
        Destination: r.optStr('Destination'),
        OutboundNAT: r.optBool('OutboundNat') ?? r.optBool('OutboundNAT'),
      }),
    ),
  isolation: (r, scope) => {
    // an endpoint keeps the v1 Isolation policy as it is (no HCN v2 counterpart)
    if (scope === 'endpoint') return policy('Isolation', withoutType(r.obj));
    const vlan = uint(r, 'VLAN', 0xffffffff);
    const vsid = uint(r, 'VSID', 0xffffffff);
    r.optBool('InDefaultIsolation');
    if (vlan) return policy('VLAN', { IsolationId: vlan });
    if (vsid && scope === 'subnet') return policy('VSID', { IsolationId: vsid });
    throw hnsError(
      'HCN_E_INVALID_POLICY_TYPE',
      `an Isolation policy without a VLAN has no HCN ${scope} equivalent`,
    );
  },
  l2driver: (r) => policy('L2Driver', withoutType(r.obj)),
  vnet: (_r, scope) => {
    if (scope === 'endpoint') return policy('VNET', {});
    throw hnsError('HCN_E_INVALID_POLICY_TYPE', `the v1 VNET policy has no HCN ${scope} equivalent`);
  },
  elb: () => {
    throw hnsError('HCN_E_INVALID_POLICY_TYPE', 'ELB policies belong in a policy list (/policylists)');
  },
};

function policy(type: string, s: JsonObject): JsonObject {
  return { Type: type, Settings: s };
}

function withoutType(o: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(o)) if (k !== 'Type') out[k] = v;
  return out;
}

/**
 * The v2 form of one v1 policy of `scope`. A policy that already has `Settings` is v2-shaped and
 * passes through. A v1 Type maps as in the table of §3.3; any other Type the HCN registry knows
 * (e.g. `SDNROUTE`, `EncapOverhead`) takes its flat fields as Settings. A subnet policy without a
 * Type but with `VSID` or `VLAN` (the `@{VSID = 4096}` form of microsoft/SDN hns.psm1) is inferred.
 * Errors: not an object / no Type / a field of the wrong type → HCN_E_INVALID_POLICY; a Type neither
 * v1 nor v2 knows (or VNET, ELB) → HCN_E_INVALID_POLICY_TYPE.
 */
export function v1PolicyToV2(raw: Json, scope: PolicyScope): JsonObject {
  if (!isJsonObject(raw)) throw hnsError(POLICY_CODE, 'a v1 policy must be an object with a Type');
  let type = raw['Type'];
  if ((type === undefined || type === null) && scope === 'subnet') {
    if (raw['VSID'] !== undefined) type = 'VSID';
    else if (raw['VLAN'] !== undefined) type = 'VLAN';
  }
  if (typeof type !== 'string') throw hnsError(POLICY_CODE, 'a v1 policy needs a string Type');
  if (raw['Settings'] !== undefined) return { Type: type, Settings: raw['Settings'] };
  const r = new Reader(raw, POLICY_CODE, `${type}`);
  const mapper = TO_V2[type.toLowerCase()];
  if (mapper) return mapper(r, scope);
  const v2Type = canonicalPolicyType(type);
  if (!v2Type) throw hnsError('HCN_E_INVALID_POLICY_TYPE', `policy type "${type}"`);
  return policy(v2Type, withoutType(raw));
}

// ─────────────────────────────── v2 → v1 ───────────────────────────────

type ToV1 = (s: JsonObject) => JsonObject;

function num(s: JsonObject, key: string): number {
  const v = s[key];
  return typeof v === 'number' ? v : 0;
}
function text(s: JsonObject, key: string): string | undefined {
  const v = s[key];
  return typeof v === 'string' ? v : undefined;
}
function list(s: JsonObject, key: string): string[] {
  const v = s[key];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}
function flag(s: JsonObject, key: string): boolean {
  return s[key] === true;
}

const TO_V1: Readonly<Record<string, ToV1>> = {
  PortMapping: (s) => {
    const protocol = num(s, 'Protocol');
    const flags = num(s, 'Flags');
    const out: JsonObject = {
      Type: 'NAT',
      Protocol: protocol === 17 ? 'UDP' : protocol === 6 ? 'TCP' : String(protocol),
    };
    putNum(out, 'InternalPort', num(s, 'InternalPort'));
    putNum(out, 'ExternalPort', num(s, 'ExternalPort'));
    putBool(out, 'ExternalPortReserved', (flags & 4) !== 0);
    putStr(out, 'VIP', text(s, 'VIP'));
    putNum(out, 'Flags', flags & ~4);
    return out;
  },
  // hcsshim v1 ACLPolicy key order: Type, Id, Protocol, Protocols, InternalPort, Action, Direction,
  // LocalAddresses, RemoteAddresses, LocalPorts, LocalPort, RemotePorts, RemotePort, RuleType,
  // Priority, ServiceName (Action and Direction always present)
  ACL: (s) => {
    const out: JsonObject = { Type: 'ACL' };
    putStr(out, 'Id', text(s, 'Id'));
    putNum(out, 'Protocol', num(s, 'Protocol'));
    putStr(out, 'Protocols', text(s, 'Protocols'));
    putNum(out, 'InternalPort', num(s, 'InternalPort'));
    out['Action'] = text(s, 'Action') ?? '';
    out['Direction'] = text(s, 'Direction') ?? '';
    putStr(out, 'LocalAddresses', text(s, 'LocalAddresses'));
    putStr(out, 'RemoteAddresses', text(s, 'RemoteAddresses'));
    putStr(out, 'LocalPorts', text(s, 'LocalPorts'));
    putNum(out, 'LocalPort', num(s, 'LocalPort'));
    putStr(out, 'RemotePorts', text(s, 'RemotePorts'));
    putNum(out, 'RemotePort', num(s, 'RemotePort'));
    putStr(out, 'RuleType', text(s, 'RuleType'));
    putNum(out, 'Priority', num(s, 'Priority'));
    putStr(out, 'ServiceName', text(s, 'ServiceName'));
    return out;
  },
  ProviderAddress: (s) => ({ Type: 'PA', PA: text(s, 'ProviderAddress') ?? '' }),
  VLAN: (s) => ({ Type: 'VLAN', VLAN: num(s, 'IsolationId') }),
  VSID: (s) => ({ Type: 'VSID', VSID: num(s, 'IsolationId') }),
  QOS: (s) => ({ Type: 'QOS', MaximumOutgoingBandwidthInBytes: num(s, 'MaximumOutgoingBandwidthInBytes') }),
  OutBoundNAT: (s) => {
    const out: JsonObject = { Type: 'OutBoundNAT' };
    putStr(out, 'VIP', text(s, 'VirtualIP'));
    putList(out, 'ExceptionList', list(s, 'Exceptions'));
    putList(out, 'Destinations', list(s, 'Destinations'));
    putNum(out, 'MaxPortPoolUsage', num(s, 'MaxPortPoolUsage'));
    putNum(out, 'Flags', num(s, 'Flags'));
    return out;
  },
  SDNRoute: (s) => {
    const out: JsonObject = { Type: 'ROUTE' };
    putStr(out, 'DestinationPrefix', text(s, 'DestinationPrefix'));
    putStr(out, 'NextHop', text(s, 'NextHop'));
    putBool(out, 'NeedEncap', flag(s, 'NeedEncap'));
    putBool(out, 'AutomaticEndpointMonitor', flag(s, 'AutomaticEndpointMonitor'));
    return out;
  },
  L4Proxy: (s) => {
    const out: JsonObject = { Type: 'PROXY' };
    putStr(out, 'IP', text(s, 'IP'));
    putStr(out, 'Port', text(s, 'Port'));
    putNum(out, 'Protocol', num(s, 'Protocol'));
    putList(out, 'ExceptionList', list(s, 'Exceptions'));
    putStr(out, 'Destination', text(s, 'Destination'));
    putBool(out, 'OutboundNat', flag(s, 'OutboundNAT'));
    return out;
  },
};

/**
 * The v1 form of a serialised v2 policy `{"Type","Settings"}` (as `serializePolicy` emits it).
 * Types with a v1 counterpart use the v1 names (PortMapping → NAT, SDNRoute → ROUTE,
 * ProviderAddress → PA, L4Proxy → PROXY, …); any other type is shown flat, `{"Type", …Settings}`,
 * which `v1PolicyToV2` reads back. v2-only fields without a v1 key (NAT `VIP`/`Flags`, OutBoundNAT
 * `Flags`) are kept under their v2 names so nothing is lost.
 */
export function v2PolicyToV1(p: JsonObject): JsonObject {
  const type = typeof p['Type'] === 'string' ? p['Type'] : '';
  const s = isJsonObject(p['Settings']) ? p['Settings'] : {};
  const mapper = TO_V1[type];
  if (mapper) return mapper(s);
  return { Type: type, ...withoutType(s) };
}
