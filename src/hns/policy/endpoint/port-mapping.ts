/**
 * `PortMapping` endpoint policy: a static NAT from a host port (optionally on a VIP) to the
 * endpoint's port (reference hns-hcs.md §2.2, §5.3: a duplicate mapping on one network is
 * HCN_E_PORT_ALREADY_EXISTS; `InternalPort` 0 is HCN_E_INVALID_INTERNAL_PORT).
 */
import { formatIp, type IpAddr } from '../../../addr/ip.js';
import type { JsonObject, Reader } from '../../../core/json.js';
import type { PolicyModule, UniqueClaim } from '../contracts.js';
import { optIp, putNum, putStr, uintField, UINT16_MAX, UINT32_MAX } from '../fields.js';

/** NatFlags (hns-hcs.md §2.2): None 0, LocalRoutedVip 1, IPv6 2, ExternalPortReserved 4 (SDN). */
export const NAT_FLAG_LOCAL_ROUTED_VIP = 1;
export const NAT_FLAG_IPV6 = 2;
export const NAT_FLAG_EXTERNAL_PORT_RESERVED = 4;
export const NAT_FLAGS_MASK = 7;

export const PROTOCOL_TCP = 6;
export const PROTOCOL_UDP = 17;

export interface PortMappingSettings {
  /** 6 (TCP) or 17 (UDP). */
  readonly protocol: 6 | 17;
  /** The endpoint-side port, never 0. */
  readonly internalPort: number;
  /** The host-side port; 0 = not given (claims nothing). */
  readonly externalPort: number;
  /** `VIP` as written, and parsed. */
  readonly vip: string | undefined;
  readonly vipAddr: IpAddr | undefined;
  /** NatFlags bits. */
  readonly flags: number;
  readonly localRoutedVip: boolean;
  readonly ipv6: boolean;
  readonly externalPortReserved: boolean;
}

/** NatFlags shared with OutBoundNAT: an integer whose bits are all known. */
export function readNatFlags(r: Reader): number {
  const flags = uintField(r, 'Flags', UINT32_MAX);
  if ((flags & ~NAT_FLAGS_MASK) !== 0) r.fail(`Flags ${flags} has unknown NatFlags bits (known: 1, 2, 4)`);
  return flags;
}

function parse(r: Reader): PortMappingSettings {
  const protocol = uintField(r, 'Protocol', UINT32_MAX);
  if (protocol !== PROTOCOL_TCP && protocol !== PROTOCOL_UDP)
    r.fail(`Protocol ${protocol} must be 6 (TCP) or 17 (UDP)`);
  const internalPort = uintField(r, 'InternalPort', UINT16_MAX);
  if (internalPort === 0) r.fail('InternalPort must be set and non-zero', 'HCN_E_INVALID_INTERNAL_PORT');
  const externalPort = uintField(r, 'ExternalPort', UINT16_MAX);
  const vip = optIp(r, 'VIP');
  const flags = readNatFlags(r);
  return {
    protocol,
    internalPort,
    externalPort,
    vip: vip?.text,
    vipAddr: vip?.addr,
    flags,
    localRoutedVip: (flags & NAT_FLAG_LOCAL_ROUTED_VIP) !== 0,
    ipv6: (flags & NAT_FLAG_IPV6) !== 0,
    externalPortReserved: (flags & NAT_FLAG_EXTERNAL_PORT_RESERVED) !== 0,
  };
}

function serialize(s: PortMappingSettings): JsonObject {
  const out: JsonObject = { Protocol: s.protocol, InternalPort: s.internalPort };
  putNum(out, 'ExternalPort', s.externalPort);
  putStr(out, 'VIP', s.vip);
  putNum(out, 'Flags', s.flags);
  return out;
}

function vipText(s: PortMappingSettings): string {
  return s.vipAddr ? formatIp(s.vipAddr) : '*';
}

/**
 * One host port per (protocol, external port, VIP) on a network. A mapping without an external
 * port claims nothing (HNS picks no host port for it; our choice, docs/model.md). The VIP is
 * compared exactly: a wildcard mapping and a VIP-specific one on the same port do not collide. A
 * mapping claims the port of its address family only (NatFlags IPv6): the IPv6 twin of an IPv4
 * mapping on the same port is no conflict (Azure CNI `cni/network/network_windows.go` and
 * windows-container-networking `cni/cni.go` send both on dual-stack clusters).
 */
function claims(s: PortMappingSettings): readonly UniqueClaim[] {
  if (s.externalPort === 0) return [];
  return [
    // joined, not templated: a flat string hashes without first being flattened (hot path)
    {
      key: s.ipv6
        ? ['PortMapping', s.protocol, s.externalPort, vipText(s), 'IPv6'].join('/')
        : ['PortMapping', s.protocol, s.externalPort, vipText(s)].join('/'),
      error: 'HCN_E_PORT_ALREADY_EXISTS',
    },
  ];
}

export const portMappingPolicy: PolicyModule<PortMappingSettings> = {
  type: 'PortMapping',
  scopes: ['endpoint'],
  unsupportedOn: {
    types: ['Transparent', 'L2Tunnel', 'Private', 'Internal'],
    error: 'HCN_E_MAPPING_NOT_SUPPORTED',
  },
  parse,
  serialize,
  key: (s) => [s.protocol, s.internalPort, s.externalPort, vipText(s), s.flags].join('|'),
  claims,
};
