/**
 * HostComputeNetwork documents (reference hns-hcs.md §1.1): parse into a validated draft, serialise
 * a stored record back in hcsshim's JSON shape (Type omitted for NAT, zero flags omitted, Dns and
 * Health always present).
 */
import { hnsError } from '../../core/errors.js';
import { newGuid } from '../../core/guid.js';
import { Reader, type JsonObject } from '../../core/json.js';
import type { Rng } from '../../core/rng.js';
import { formatIp, parsePrefix, prefixContains, prefixLast, prefixOverlaps } from '../../addr/ip.js';
import { formatMac, MacPool, parseMac } from '../../addr/mac.js';
import type {
  IpamRec,
  MacRangeRec,
  NetworkRec,
  RouteRec,
  SubnetRec,
  ExtensionRec,
  IpSubnetRec,
} from '../model.js';
import type { NetworkType, PolicyContext } from '../policy/contracts.js';
import { parsePolicies, serializePolicy } from '../policy/registry.js';
import { compareVersion, supports, type HnsVersion } from '../versions.js';
import {
  dnsIsEmpty,
  readDns,
  readGuid,
  readRoutes,
  readSchemaVersion,
  writeDns,
  writeRoutes,
  writeSchemaVersion,
} from './common.js';

export const NETWORK_TYPES: readonly NetworkType[] = [
  'NAT',
  'ICS',
  'Transparent',
  'L2Bridge',
  'L2Tunnel',
  'Overlay',
  'Private',
  'Internal',
  'Mirrored',
  'Infiniband',
  'ConstrainedICS',
  'Layered',
];

/** Network types that need a newer HCN schema than 2.0 (HNS_Schema.md NewInVersion). */
const TYPE_SCHEMA: Partial<Record<NetworkType, HnsVersion>> = {
  Mirrored: { major: 2, minor: 4 },
  Infiniband: { major: 2, minor: 4 },
  ConstrainedICS: { major: 2, minor: 10 },
};

/** NetworkFlags (microsoft/WSL hcs_schema.h) and what each needs. */
export const NetworkFlags = {
  None: 0,
  EnableDns: 1,
  EnableDhcp: 2,
  EnableMirroring: 4,
  EnableNonPersistent: 8,
  EnablePersistent: 16,
  IsolateVSwitch: 32,
  EnableFlowSteering: 64,
  DisableSharing: 128,
  EnableFirewall: 256,
  SuppressMediaDisconnect: 512,
  DisableHostPort: 1024,
  WeakHostReceiveAdapter: 2048,
  WeakHostSendAdapter: 4096,
  EnableIov: 8192,
} as const;
const ALL_NETWORK_FLAGS = 16383;
const FLAG_SCHEMA: readonly [number, HnsVersion][] = [
  [NetworkFlags.EnableFlowSteering, { major: 2, minor: 11 }],
  [NetworkFlags.DisableSharing, { major: 2, minor: 14 }],
  [NetworkFlags.EnableFirewall, { major: 2, minor: 14 }],
];

export const SubnetFlags = { None: 0, DoNotReserveGatewayAddress: 1 } as const;

export interface HostContext {
  readonly version: HnsVersion;
  readonly schema: HnsVersion;
  readonly rng: Rng;
}

/** Parse a v2 network document into a record (without ID/seq/allocations decided by the store). */
export function parseNetwork(
  doc: JsonObject,
  host: HostContext,
): Omit<
  NetworkRec,
  'ID' | 'seq' | 'SwitchGuid' | 'LayeredOn' | 'defaultSubnet' | 'created' | 'DrMacAddress'
> & {
  givenId?: string;
} {
  const r = new Reader(doc, 'HCN_E_INVALID_NETWORK');
  const givenId = readGuid(r, 'ID');
  const Name = r.optStr('Name') ?? '';
  const typeStr = r.optStr('Type');
  let Type: NetworkType = 'NAT';
  if (typeStr !== undefined && typeStr !== '') {
    const t = NETWORK_TYPES.find((n) => n.toLowerCase() === typeStr.toLowerCase());
    if (!t) throw hnsError('HCN_E_INVALID_NETWORK_TYPE', `"${typeStr}"`);
    const need = TYPE_SCHEMA[t];
    if (need && compareVersion(host.schema, need) < 0) {
      throw hnsError('HCN_E_INVALID_NETWORK_TYPE', `${t} needs HCN schema ${need.major}.${need.minor}`);
    }
    Type = t;
  }
  const Flags = r.uint('Flags', 0xffffffff);
  if ((Flags & ~ALL_NETWORK_FLAGS) !== 0) throw r.err(`Flags ${Flags} has unknown bits`);
  if (Flags & NetworkFlags.DisableHostPort && !supports(host.version, 'DisableHostPort')) {
    throw r.err('DisableHostPort needs HNS 15.1');
  }
  for (const [bit, need] of FLAG_SCHEMA) {
    if (Flags & bit && compareVersion(host.schema, need) < 0)
      throw r.err(`flag ${bit} needs HCN schema ${need.major}.${need.minor}`);
  }
  const ctx: PolicyContext = { version: host.version, scope: 'network', networkType: Type };
  const Policies = parsePolicies(r.optArr('Policies'), ctx);
  const MacRanges = readMacPool(r);
  const Dns = readDns(r);
  const Ipams = readIpams(r, host, Type);
  const SchemaVersion = readSchemaVersion(r);
  const Extensions: ExtensionRec[] = [];
  return {
    kind: 'Network',
    Name,
    Type,
    Policies,
    MacRanges,
    Dns,
    Ipams,
    Flags,
    SchemaVersion,
    Extensions,
    ...(givenId ? { givenId } : {}),
  };
}

function readMacPool(r: Reader): MacRangeRec[] {
  const mp = r.optObj('MacPool');
  if (!mp) return [];
  const ranges = mp.objs('Ranges').map((rg) => {
    const StartMacAddress = rg.str('StartMacAddress');
    const EndMacAddress = rg.str('EndMacAddress');
    const start = parseMac(StartMacAddress);
    const end = parseMac(EndMacAddress);
    if (start === undefined || end === undefined)
      throw rg.err('MAC address must look like 00-15-5D-52-C0-00');
    if (start > end) throw rg.err('StartMacAddress is after EndMacAddress');
    return { StartMacAddress: formatMac(start), EndMacAddress: formatMac(end), start, end };
  });
  new MacPool(ranges); // validates: overlapping or multicast ranges → HCN_E_INVALID_NETWORK
  return ranges;
}

function readIpams(r: Reader, host: HostContext, type: NetworkType): IpamRec[] {
  const all: SubnetRec[] = [];
  return r.objs('Ipams').map((ipam) => {
    const t = ipam.optStr('Type') ?? 'Static';
    const Type = t.toLowerCase() === 'dhcp' ? 'Dhcp' : t.toLowerCase() === 'static' ? 'Static' : undefined;
    if (!Type) throw ipam.err(`Ipam Type "${t}" is not Static or Dhcp`);
    const Subnets = ipam.objs('Subnets', 'HCN_E_INVALID_SUBNET').map((s) => {
      const sub = readSubnet(s, host, type);
      for (const other of all) {
        if (prefixOverlaps(other.prefix, sub.prefix))
          throw s.err(`subnet ${sub.IpAddressPrefix} overlaps ${other.IpAddressPrefix}`);
      }
      all.push(sub);
      return sub;
    });
    return { Type, Subnets };
  });
}

function readSubnet(s: Reader, host: HostContext, type: NetworkType): SubnetRec {
  const IpAddressPrefix = s.optStr('IpAddressPrefix') ?? '';
  const parsed = parsePrefix(IpAddressPrefix, true);
  if (!parsed) throw hnsError('HCN_E_INVALID_PREFIX', `${s.path}.IpAddressPrefix "${IpAddressPrefix}"`);
  const { host: _h, ...prefix } = parsed;
  const Flags = s.uint('Flags', 0xffffffff);
  if (Flags & ~1) throw s.err(`subnet Flags ${Flags} has unknown bits`);
  const Routes: RouteRec[] = readRoutes(s, 'Routes', 'HCN_E_INVALID_SUBNET');
  const ctx: PolicyContext = { version: host.version, scope: 'subnet', networkType: type };
  const Policies = parsePolicies(s.optArr('Policies'), ctx);
  const IpSubnets: IpSubnetRec[] = s.objs('IpSubnets', 'HCN_E_INVALID_IP_SUBNET').map((ips) => {
    const p = ips.optStr('IpAddressPrefix') ?? '';
    const pp = parsePrefix(p, true);
    if (!pp || !prefixContains(prefix, { family: pp.family, value: pp.addr } as never)) {
      throw ips.err(`IpSubnet "${p}" is not inside ${IpAddressPrefix}`);
    }
    return {
      ID: readGuid(ips, 'ID') ?? newGuid(host.rng),
      IpAddressPrefix: p,
      Flags: ips.uint('Flags', 0xffffffff),
    };
  });
  // The gateway is the next hop of the default route, when it lies in the subnet.
  let gateway;
  for (const rt of Routes) {
    if (rt.dest.len === 0 && rt.nextHop && prefixContains(prefix, rt.nextHop)) {
      gateway = rt.nextHop;
      break;
    }
  }
  if (gateway) {
    const last = prefixLast(prefix);
    const isNet = gateway.value === prefix.addr && prefix.len < (prefix.family === 4 ? 31 : 127);
    const isBcast = prefix.family === 4 && prefix.len < 31 && gateway.value === last.value;
    if (isNet || isBcast) throw hnsError('HCN_E_ADDR_INVALID_OR_RESERVED', `gateway ${formatIp(gateway)}`);
  }
  return {
    ID: readGuid(s, 'ID') ?? newGuid(host.rng),
    IpAddressPrefix,
    prefix,
    Policies,
    Routes,
    Flags,
    IpSubnets,
    ...(gateway ? { gateway } : {}),
  };
}

/** Parse a single Subnet object (network modify, ResourceType Subnet). */
export function parseSubnetDoc(s: Reader, host: HostContext, type: NetworkType): SubnetRec {
  return readSubnet(s, host, type);
}

export interface SerializeOptions {
  readonly detailed?: boolean;
  readonly endpointCount?: number;
  /** The network's management IP (its external switch's host vNIC address), if any. */
  readonly managementIp?: string;
}

/**
 * The policies a query shows: the stored ones, then what HNS reports about an Overlay network's
 * adapter — `ProviderAddress` (the management IP) and `DrMacAddress` — unless the caller gave a
 * policy of that type (flannel `device_windows.go` and Calico `GetDRMACAddr` read both).
 */
export function networkPoliciesView(n: NetworkRec, managementIp: string | undefined): JsonObject[] {
  const out = n.Policies.map(serializePolicy);
  if (n.Type !== 'Overlay') return out;
  if (managementIp && !n.Policies.some((p) => p.type === 'ProviderAddress')) {
    out.push({ Type: 'ProviderAddress', Settings: { ProviderAddress: managementIp } });
  }
  if (n.DrMacAddress && !n.Policies.some((p) => p.type === 'DrMacAddress')) {
    out.push({ Type: 'DrMacAddress', Settings: { Address: n.DrMacAddress } });
  }
  return out;
}

export function serializeNetwork(n: NetworkRec, opts: SerializeOptions = {}): JsonObject {
  const out: JsonObject = { ID: n.ID, Name: n.Name };
  if (n.Type !== 'NAT') out.Type = n.Type;
  const policies = networkPoliciesView(n, opts.managementIp);
  if (policies.length) out.Policies = policies;
  out.MacPool = n.MacRanges.length
    ? {
        Ranges: n.MacRanges.map((m) => ({
          StartMacAddress: m.StartMacAddress,
          EndMacAddress: m.EndMacAddress,
        })),
      }
    : {};
  out.Dns = writeDns(n.Dns);
  if (n.Ipams.length) {
    out.Ipams = n.Ipams.map((ipam) => {
      const o: JsonObject = { Type: ipam.Type };
      if (ipam.Subnets.length) o.Subnets = ipam.Subnets.map(serializeSubnet);
      return o;
    });
  }
  if (n.Flags) out.Flags = n.Flags;
  const extra: JsonObject = n.SwitchGuid
    ? { SwitchGuid: n.SwitchGuid, LayeredOn: n.LayeredOn }
    : { LayeredOn: n.LayeredOn };
  if (opts.detailed) {
    extra.Resources = {
      Extensions: n.Extensions.map((e) => ({ Id: e.Id, IsEnabled: e.IsEnabled })),
      CurrentEndpointCount: opts.endpointCount ?? 0,
      DnsConfigured: !dnsIsEmpty(n.Dns),
    };
  }
  out.Health = { Extra: extra };
  out.SchemaVersion = writeSchemaVersion(n.SchemaVersion);
  return out;
}

export function serializeSubnet(s: SubnetRec): JsonObject {
  const o: JsonObject = { ID: s.ID, IpAddressPrefix: s.IpAddressPrefix };
  if (s.Policies.length) o.Policies = s.Policies.map(serializePolicy);
  if (s.Routes.length) o.Routes = writeRoutes(s.Routes);
  if (s.Flags) o.Flags = s.Flags;
  if (s.IpSubnets.length) {
    o.IpSubnets = s.IpSubnets.map((ips) => {
      const x: JsonObject = { ID: ips.ID, IpAddressPrefix: ips.IpAddressPrefix };
      if (ips.Flags) x.Flags = ips.Flags;
      return x;
    });
  }
  return o;
}
