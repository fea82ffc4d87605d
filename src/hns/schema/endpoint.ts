/**
 * HostComputeEndpoint documents (reference hns-hcs.md §1.2). Parsing validates shapes, flags and
 * policies; the service decides addresses (pools) and MACs. Serialisation follows hcsshim's key
 * order; `HostComputeNamespace` reflects namespace membership and is read-only on input.
 */
import { hnsError } from '../../core/errors.js';
import { Reader, type JsonObject } from '../../core/json.js';
import { parseIp, type IpAddr } from '../../addr/ip.js';
import { isUnicastMac, parseMac } from '../../addr/mac.js';
import type { DnsRec, EndpointRec, NetworkRec, RouteRec, SchemaVersion } from '../model.js';
import type { ParsedPolicy, PolicyContext } from '../policy/contracts.js';
import { parsePolicies, serializePolicy } from '../policy/registry.js';
import type { HnsVersion } from '../versions.js';
import {
  readDns,
  readGuid,
  readRoutes,
  readSchemaVersion,
  writeDns,
  writeRoutes,
  writeSchemaVersion,
} from './common.js';

export const EndpointFlags = {
  None: 0,
  RemoteEndpoint: 1,
  DisableInterComputeCommunication: 2,
  EnableMirroring: 4,
  EnableLowInterfaceMetric: 8,
  OverrideDNSServerOrder: 16,
  EnableDhcp: 32,
} as const;
const ALL_ENDPOINT_FLAGS = 63;

export interface IpConfigDraft {
  readonly IpAddress: string;
  readonly PrefixLength?: number;
  readonly IpSubnetId?: string;
  readonly addr: IpAddr;
}

export interface EndpointDraft {
  readonly givenId?: string;
  readonly Name: string;
  readonly HostComputeNetwork?: string;
  readonly Policies: readonly ParsedPolicy[];
  readonly IpConfigurations: readonly IpConfigDraft[];
  readonly Dns: DnsRec;
  readonly Routes: readonly RouteRec[];
  readonly MacAddress?: { readonly text: string; readonly mac: number };
  readonly Flags: number;
  readonly SchemaVersion: SchemaVersion;
}

/** `v1`: the document came through the v1 API or is v1-shaped (v1-only policy types allowed). */
export function parseEndpoint(
  doc: JsonObject,
  network: NetworkRec,
  version: HnsVersion,
  v1 = false,
): EndpointDraft {
  const r = new Reader(doc, 'HCN_E_INVALID_ENDPOINT');
  const givenId = readGuid(r, 'ID');
  const Name = r.optStr('Name') ?? '';
  const HostComputeNetwork = readGuid(r, 'HostComputeNetwork');
  readGuid(r, 'HostComputeNamespace'); // read-only: validated, then ignored
  const Flags = r.uint('Flags', 0xffffffff);
  if (Flags & ~ALL_ENDPOINT_FLAGS) throw r.err(`Flags ${Flags} has unknown bits`);
  const ctx: PolicyContext = { version, scope: 'endpoint', networkType: network.Type, ...(v1 ? { v1 } : {}) };
  const Policies = parsePolicies(r.optArr('Policies'), ctx);
  // an entry without IpAddress asks HNS to pick one: win-bridge and win-overlay without IPAM send
  // `"IpConfigurations":[{}]` and read the address back ("HNS can provide IP/GW", win-bridge l.63)
  const IpConfigurations = r
    .objs('IpConfigurations')
    .filter((c) => {
      const ip = c.optStr('IpAddress');
      if (ip !== undefined && ip !== '') return true;
      c.optUint('PrefixLength', 0xff);
      readGuid(c, 'IpSubnetId');
      return false;
    })
    .map((c) => {
      const IpAddress = c.optStr('IpAddress') ?? '';
      const addr = parseIp(IpAddress);
      if (!addr) throw hnsError('HCN_E_INVALID_IP', `${c.path}.IpAddress "${IpAddress}"`);
      const PrefixLength = c.optUint('PrefixLength', 0xff);
      if (PrefixLength !== undefined && PrefixLength > (addr.family === 4 ? 32 : 128)) {
        throw hnsError('HCN_E_INVALID_PREFIX', `${c.path}.PrefixLength ${PrefixLength}`);
      }
      const IpSubnetId = readGuid(c, 'IpSubnetId');
      const d: IpConfigDraft = { IpAddress, PrefixLength, IpSubnetId, addr };
      return d;
    });
  const n = IpConfigurations.length;
  if (n > 2 || (n === 2 && IpConfigurations[0]!.addr.family === IpConfigurations[1]!.addr.family)) {
    throw r.err('at most one IPv4 and one IPv6 IpConfiguration');
  }
  const Dns = readDns(r);
  const Routes = readRoutes(r, 'Routes', 'HCN_E_INVALID_ENDPOINT');
  const macText = r.optStr('MacAddress');
  let MacAddress;
  if (macText !== undefined && macText !== '') {
    const mac = parseMac(macText);
    if (mac === undefined) throw r.err(`MacAddress "${macText}" is not a MAC address`);
    if (!isUnicastMac(mac)) throw hnsError('HCN_E_ADDR_INVALID_OR_RESERVED', `multicast MAC ${macText}`);
    // kept as written: HNS echoes a caller's MAC unchanged (calico#4682: "0E-2A-0a-01-12-43")
    MacAddress = { text: macText, mac };
  }
  const SchemaVersion = readSchemaVersion(r);
  return {
    givenId,
    Name,
    HostComputeNetwork,
    Policies,
    IpConfigurations,
    Dns,
    Routes,
    MacAddress,
    Flags,
    SchemaVersion,
  };
}

export function serializeEndpoint(e: EndpointRec, detailed = false): JsonObject {
  const out: JsonObject = { ID: e.ID };
  if (e.Name) out.Name = e.Name;
  out.HostComputeNetwork = e.HostComputeNetwork;
  if (e.HostComputeNamespace) out.HostComputeNamespace = e.HostComputeNamespace;
  if (e.Policies.length) out.Policies = e.Policies.map(serializePolicy);
  if (e.IpConfigurations.length) {
    out.IpConfigurations = e.IpConfigurations.map((c) => {
      const o: JsonObject = { IpAddress: c.IpAddress };
      if (c.PrefixLength) o.PrefixLength = c.PrefixLength;
      if (c.IpSubnetId) o.IpSubnetId = c.IpSubnetId;
      return o;
    });
  }
  out.Dns = writeDns(e.Dns);
  if (e.Routes.length) out.Routes = writeRoutes(e.Routes);
  if (e.MacAddress) out.MacAddress = e.MacAddress;
  if (e.Flags) out.Flags = e.Flags;
  // the schema's Base `State` (EndpointState): Azure NPM lists endpoints with Filter {"State":2}/{"State":3}
  out.State = endpointState(e);
  const extra: JsonObject = {};
  if (detailed) {
    extra.Resources = {
      Allocators: [
        ...e.IpConfigurations.map((c) => ({ Tag: 'IP', IpAddress: c.IpAddress, IsLocal: c.pooled })),
        { Tag: 'MAC', MacAddress: e.MacAddress, IsLocal: e.macPooled },
      ],
    };
    if (e.SharedContainers.length) extra.SharedContainers = [...e.SharedContainers];
    if (e.VmPort) extra.VirtualMachine = e.VmPort.VirtualMachineId;
  }
  out.Health = { Extra: extra };
  out.SchemaVersion = writeSchemaVersion(e.SchemaVersion);
  return out;
}

/** HNS EndpointState (hcsshim `internal/hns/hnsendpoint.go`). */
export const EndpointState = {
  Uninitialized: 0,
  Created: 1,
  Attached: 2,
  AttachedSharing: 3,
  Detached: 4,
  Degraded: 5,
  Destroyed: 6,
} as const;

/**
 * The template placeholders (`<your service cidr>`) an endpoint's OutBoundNAT or SDNRoute policies
 * carry instead of addresses: HNS keeps such an endpoint but it is Degraded, and a container cannot
 * join a namespace holding it (reference cni-windows.md §7 P9; containerd#5729).
 */
export function unresolvedAddresses(e: EndpointRec): string[] {
  const out: string[] = [];
  for (const p of e.Policies) {
    if (p.type !== 'OutBoundNAT' && p.type !== 'SDNRoute') continue;
    const u = (p.settings as { readonly unresolved?: readonly string[] }).unresolved;
    if (u) out.push(...u);
  }
  return out;
}

/**
 * EndpointState of an endpoint: Degraded when a policy carries a template placeholder
 * (`unresolvedAddresses`); else from what attaches it: each container in `SharedContainers`, a VM
 * port, and membership of a namespace (a host compartment). None → Created, one → Attached, more →
 * AttachedSharing. (Detached is never shown: the store keeps no attach history; our choice.)
 */
export function endpointState(e: EndpointRec): number {
  if (unresolvedAddresses(e).length > 0) return EndpointState.Degraded;
  const n = e.SharedContainers.length + (e.VmPort ? 1 : 0) + (e.HostComputeNamespace ? 1 : 0);
  return n === 0 ? EndpointState.Created : n === 1 ? EndpointState.Attached : EndpointState.AttachedSharing;
}

export function isRemote(e: { readonly Flags: number }): boolean {
  return (e.Flags & EndpointFlags.RemoteEndpoint) !== 0;
}
