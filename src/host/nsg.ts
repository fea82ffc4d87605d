/**
 * Azure network security groups as the virtualization host evaluates them on a VM's NIC (issue 16;
 * reference azure-cni.md §6; Azure's "Network security groups" and "security rules"
 * documentation): rules with a priority (100–4096, the lowest number decides), a direction
 * (Inbound/Outbound), an access (Allow/Deny), a protocol (Tcp, Udp, Icmp or `*`) and source and
 * destination address prefixes (`*`, an address, a CIDR, or the tags VirtualNetwork, Internet and
 * AzureLoadBalancer) and port ranges (`*`, `80`, `1000-2000`), in Azure's REST property names
 * (`sourceAddressPrefix` or `sourceAddressPrefixes`, …). Azure's default rules follow the user's
 * (AllowVnetInBound 65000, AllowAzureLoadBalancerInBound 65001, DenyAllInBound 65500;
 * AllowVnetOutBound 65000, AllowInternetOutBound 65001, DenyAllOutBound 65500). Evaluation is
 * stateful: the reply of an allowed flow is let through without a rule (the dataplane keeps that
 * state).
 *
 *   { "name": "pods", "rules": [{ "name": "deny-web", "priority": 200, "direction": "Inbound",
 *     "access": "Deny", "protocol": "Tcp", "destinationAddressPrefix": "10.224.0.6",
 *     "destinationPortRange": "80" }] }
 */
import { hnsError } from '../core/errors.js';
import { parseIPv4, parsePrefix } from '../addr/ip.js';

export type NsgDirection = 'Inbound' | 'Outbound';
export type NsgAccess = 'Allow' | 'Deny';

/** One security rule as `createHost({ azure: { nics: [{ nsg }] } })` takes it. */
export interface NsgRuleSpec {
  readonly name: string;
  readonly priority: number;
  readonly direction: NsgDirection;
  readonly access: NsgAccess;
  /** `Tcp`, `Udp`, `Icmp` or `*` (default `*`). */
  readonly protocol?: string;
  readonly sourceAddressPrefix?: string;
  readonly sourceAddressPrefixes?: readonly string[];
  readonly sourcePortRange?: string;
  readonly sourcePortRanges?: readonly string[];
  readonly destinationAddressPrefix?: string;
  readonly destinationAddressPrefixes?: readonly string[];
  readonly destinationPortRange?: string;
  readonly destinationPortRanges?: readonly string[];
}

/** A network security group: its name and rules. */
export interface NsgSpec {
  readonly name: string;
  readonly rules?: readonly NsgRuleSpec[];
}

/** An address match: an interval of addresses, or a tag resolved at evaluation. */
type AddressMatch =
  | { readonly lo: number; readonly hi: number }
  | { readonly tag: 'VirtualNetwork' | 'Internet' | 'AzureLoadBalancer' };

export interface NsgRule {
  readonly name: string;
  readonly priority: number;
  readonly direction: NsgDirection;
  readonly access: NsgAccess;
  /** 6, 17, 1, or 0 for any. */
  readonly protocol: number;
  readonly sources: readonly AddressMatch[];
  readonly sourcePorts: readonly (readonly [number, number])[];
  readonly destinations: readonly AddressMatch[];
  readonly destinationPorts: readonly (readonly [number, number])[];
  readonly defaultRule: boolean;
}

export interface Nsg {
  readonly name: string;
  /** User rules then Azure's defaults, in evaluation order (priority). */
  readonly rules: readonly NsgRule[];
}

/** What a packet crossing a NIC gets: the deciding rule (undefined: nothing filters the NIC). */
export interface NsgVerdict {
  readonly allowed: boolean;
  readonly nsg: string;
  readonly rule: NsgRule;
}

const ANY: AddressMatch = { lo: 0, hi: 0xffffffff };
const ALL_PORTS: readonly [number, number] = [0, 65535];
const AZURE_LB = parseIPv4('168.63.129.16')!;
const PROTOCOLS: Readonly<Record<string, number>> = { '*': 0, tcp: 6, udp: 17, icmp: 1 };

function nsgError(what: string): never {
  throw hnsError('E_INVALIDARG', `azure: ${what}`);
}

const KEYS = new Set([
  'name',
  'priority',
  'direction',
  'access',
  'protocol',
  'sourceAddressPrefix',
  'sourceAddressPrefixes',
  'sourcePortRange',
  'sourcePortRanges',
  'destinationAddressPrefix',
  'destinationAddressPrefixes',
  'destinationPortRange',
  'destinationPortRanges',
]);

function addresses(where: string, one: unknown, many: unknown): AddressMatch[] {
  if (one !== undefined && many !== undefined)
    nsgError(`${where}: give the prefix or the prefixes, not both`);
  const list = many ?? (one === undefined ? ['*'] : [one]);
  if (!Array.isArray(list) || list.length === 0) nsgError(`${where} must be a non-empty list of prefixes`);
  return list.map((x: unknown) => {
    if (typeof x !== 'string') nsgError(`${where}: ${JSON.stringify(x)} is not an address prefix`);
    if (x === '*' || x === 'Any') return ANY;
    if (x === 'VirtualNetwork' || x === 'Internet' || x === 'AzureLoadBalancer') return { tag: x };
    const single = parseIPv4(x);
    if (single !== undefined) return { lo: single, hi: single };
    const p = parsePrefix(x);
    if (!p || p.family !== 4)
      nsgError(`${where}: ${JSON.stringify(x)} is not *, an IPv4 address or CIDR, or a service tag`);
    const size = 2 ** (32 - p.len);
    return { lo: p.addr, hi: p.addr + size - 1 };
  });
}

function ports(where: string, one: unknown, many: unknown): (readonly [number, number])[] {
  if (one !== undefined && many !== undefined) nsgError(`${where}: give the range or the ranges, not both`);
  const list = many ?? (one === undefined ? ['*'] : [one]);
  if (!Array.isArray(list) || list.length === 0) nsgError(`${where} must be a non-empty list of port ranges`);
  return list.map((x: unknown) => {
    if (x === '*') return ALL_PORTS;
    const m = typeof x === 'string' ? /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(x) : null;
    const lo = m ? Number(m[1]) : NaN;
    const hi = m ? Number(m[2] ?? m[1]) : NaN;
    if (!(lo >= 0 && hi <= 65535 && lo <= hi))
      nsgError(`${where}: ${JSON.stringify(x)} is not *, a port or a range a-b`);
    return [lo, hi] as const;
  });
}

function defaults(): NsgRule[] {
  const rule = (
    name: string,
    priority: number,
    direction: NsgDirection,
    access: NsgAccess,
    src: AddressMatch,
    dst: AddressMatch,
  ): NsgRule => ({
    name,
    priority,
    direction,
    access,
    protocol: 0,
    sources: [src],
    sourcePorts: [ALL_PORTS],
    destinations: [dst],
    destinationPorts: [ALL_PORTS],
    defaultRule: true,
  });
  const vnet: AddressMatch = { tag: 'VirtualNetwork' };
  return [
    rule('AllowVnetInBound', 65000, 'Inbound', 'Allow', vnet, vnet),
    rule('AllowAzureLoadBalancerInBound', 65001, 'Inbound', 'Allow', { tag: 'AzureLoadBalancer' }, ANY),
    rule('DenyAllInBound', 65500, 'Inbound', 'Deny', ANY, ANY),
    rule('AllowVnetOutBound', 65000, 'Outbound', 'Allow', vnet, vnet),
    rule('AllowInternetOutBound', 65001, 'Outbound', 'Allow', ANY, { tag: 'Internet' }),
    rule('DenyAllOutBound', 65500, 'Outbound', 'Deny', ANY, ANY),
  ];
}

/** Check an NSG spec (E_INVALIDARG naming the problem) and add Azure's default rules. */
export function parseNsg(where: string, spec: unknown): Nsg {
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec))
    nsgError(`${where} must be an object {"name","rules":[…]}`);
  const s = spec as Record<string, unknown>;
  for (const k of Object.keys(s))
    if (k !== 'name' && k !== 'rules') nsgError(`${where}: unknown key "${k}" (name, rules)`);
  if (typeof s['name'] !== 'string' || s['name'] === '')
    nsgError(`${where}: name must be a non-empty string`);
  const list = s['rules'] ?? [];
  if (!Array.isArray(list)) nsgError(`${where}: rules must be a list`);
  const seen = new Set<string>();
  const taken = new Set<string>();
  const rules = list.map((r: unknown, i): NsgRule => {
    const at = `${where} rule ${i}`;
    if (typeof r !== 'object' || r === null || Array.isArray(r)) nsgError(`${at} must be an object`);
    const o = r as Record<string, unknown>;
    for (const k of Object.keys(o)) if (!KEYS.has(k)) nsgError(`${at}: unknown key "${k}"`);
    if (typeof o['name'] !== 'string' || o['name'] === '') nsgError(`${at}: name must be a non-empty string`);
    const name = o['name'];
    if (seen.has(name.toLowerCase())) nsgError(`${at}: the name "${name}" is used twice`);
    seen.add(name.toLowerCase());
    const priority = o['priority'];
    if (typeof priority !== 'number' || !Number.isInteger(priority) || priority < 100 || priority > 4096)
      nsgError(`${at}: priority must be an integer from 100 to 4096`);
    const direction = o['direction'];
    if (direction !== 'Inbound' && direction !== 'Outbound')
      nsgError(`${at}: direction must be Inbound or Outbound`);
    if (taken.has(`${direction}/${priority}`))
      nsgError(`${at}: priority ${priority} is taken by another ${direction} rule`);
    taken.add(`${direction}/${priority}`);
    const access = o['access'];
    if (access !== 'Allow' && access !== 'Deny') nsgError(`${at}: access must be Allow or Deny`);
    const proto =
      typeof o['protocol'] === 'string'
        ? PROTOCOLS[o['protocol'].toLowerCase()]
        : o['protocol'] === undefined
          ? 0
          : undefined;
    if (proto === undefined) nsgError(`${at}: protocol must be Tcp, Udp, Icmp or *`);
    return {
      name,
      priority,
      direction,
      access,
      protocol: proto,
      sources: addresses(`${at} source`, o['sourceAddressPrefix'], o['sourceAddressPrefixes']),
      sourcePorts: ports(`${at} source port`, o['sourcePortRange'], o['sourcePortRanges']),
      destinations: addresses(
        `${at} destination`,
        o['destinationAddressPrefix'],
        o['destinationAddressPrefixes'],
      ),
      destinationPorts: ports(
        `${at} destination port`,
        o['destinationPortRange'],
        o['destinationPortRanges'],
      ),
      defaultRule: false,
    };
  });
  const all = [...rules, ...defaults()].sort((a, b) => a.priority - b.priority);
  return { name: s['name'], rules: all };
}

/** The address space the VirtualNetwork tag stands for: intervals of addresses. */
export type AddressSpace = readonly { readonly lo: number; readonly hi: number }[];

function matches(m: AddressMatch, ip: number, vnet: AddressSpace): boolean {
  if ('lo' in m) return ip >= m.lo && ip <= m.hi;
  const inVnet = vnet.some((r) => ip >= r.lo && ip <= r.hi);
  if (m.tag === 'VirtualNetwork') return inVnet;
  if (m.tag === 'AzureLoadBalancer') return ip === AZURE_LB;
  return !inVnet;
}

const inPorts = (list: readonly (readonly [number, number])[], port: number): boolean =>
  list.some(([lo, hi]) => port >= lo && port <= hi);

/** The rule of `nsg` that decides a packet in `direction` (the lowest priority that matches). */
export function evaluateNsg(
  nsg: Nsg,
  direction: NsgDirection,
  p: {
    readonly proto: number;
    readonly srcIp: number;
    readonly dstIp: number;
    readonly srcPort: number;
    readonly dstPort: number;
  },
  vnet: AddressSpace,
): NsgVerdict {
  const ported = p.proto === 6 || p.proto === 17;
  for (const r of nsg.rules) {
    if (r.direction !== direction) continue;
    if (r.protocol !== 0 && r.protocol !== p.proto) continue;
    if (!r.sources.some((m) => matches(m, p.srcIp, vnet))) continue;
    if (!r.destinations.some((m) => matches(m, p.dstIp, vnet))) continue;
    if (ported && (!inPorts(r.sourcePorts, p.srcPort) || !inPorts(r.destinationPorts, p.dstPort))) continue;
    return { allowed: r.access === 'Allow', nsg: nsg.name, rule: r };
  }
  // the defaults end in DenyAll: never reached
  throw new Error('an NSG without its default rules');
}
