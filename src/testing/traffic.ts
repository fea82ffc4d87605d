/**
 * fast-check arbitraries for the packet side (DESIGN: dataplane/; reference vfp-dataplane.md §1,
 * §3): packets as the dataplane holds them, trace requests between named places, ACL rule sets as
 * HNS takes them (`{"Type":"ACL","Settings":…}` policies with distinct Ids), and sets of load
 * balancers whose frontends do not collide, so every one of them can be created together.
 *
 *   fc.property(aclSet(), traceRequest({ from: ['client'], to: ['web'] }), (acls, req) => { … })
 *
 * Like the document arbitraries, they draw from small pools (a few addresses, ports, priorities) so
 * that rules overlap and ties happen, and they are built from combinators that shrink: towards
 * fewer rules, TCP, the first address and port of each pool.
 */
import fc from 'fast-check';
import type { JsonObject } from '../core/json.js';
import type { TraceRequest } from '../dataplane/trace.js';
import { packet as makePacket, type Packet } from '../vswitch/contracts.js';
import { ip4 } from '../vswitch/v4.js';
import { compact, maybe, pick } from './arb-helpers.js';
import { loadBalancerDoc, type ArbContext } from './arbitraries.js';

/** The pools the traffic arbitraries draw from (first entries are where shrinking goes). */
export const TRAFFIC_ARB = {
  protocols: ['TCP', 'UDP', 'ICMP'] as const,
  ports: [80, 443, 53, 8080, 9376],
  sourcePorts: [50000, 40001, 1024],
  /** Addresses of packets: pod, service, node and outside ones. */
  addresses: ['10.244.1.3', '10.244.1.4', '10.244.2.3', '10.96.0.10', '10.0.0.10', '8.8.8.8'],
  /** ACL address matches: prefixes and single addresses, overlapping on purpose. */
  aclAddresses: ['10.244.0.0/16', '10.244.1.0/24', '10.244.1.3', '10.96.0.0/12', '0.0.0.0/0'],
  /** ACL port matches: single ports, lists and ranges. */
  aclPorts: ['80', '443', '80,443', '1-1024', '8080'],
  /** ACL Protocols values (numbers as text, a list): TCP, UDP, ICMP, both. */
  aclProtocols: ['6', '17', '1', '6,17'],
  /** Priorities: few, so that ties between Allow and Block happen. */
  priorities: [100, 200, 300, 1000],
} as const;

const PROTOCOL_NUMBER = { TCP: 6, UDP: 17, ICMP: 1 } as const;

export interface PacketArbOptions {
  /** Addresses to draw source and destination from (default `TRAFFIC_ARB.addresses`). */
  readonly addresses?: readonly string[];
  readonly protocols?: readonly ('TCP' | 'UDP' | 'ICMP')[];
  readonly ports?: readonly number[];
}

/**
 * A packet record as the dataplane holds it (src/vswitch/contracts.ts: IPv4 addresses as integers,
 * protocol numbers, ports 0 for ICMP, TTL 1–128), for tests of code that takes packets directly.
 */
export function packetArb(opts: PacketArbOptions = {}): fc.Arbitrary<Packet> {
  const addresses = (opts.addresses ?? TRAFFIC_ARB.addresses).map((a) => {
    const v = ip4(a);
    if (v === undefined) throw new TypeError(`packetArb: "${a}" is not an IPv4 address`);
    return v;
  });
  const ports = opts.ports ?? TRAFFIC_ARB.ports;
  return fc
    .record({
      protocol: pick(opts.protocols ?? TRAFFIC_ARB.protocols),
      src: pick(addresses),
      dst: pick(addresses),
      srcPort: pick(TRAFFIC_ARB.sourcePorts),
      dstPort: pick(ports),
      // mostly 128 (the Windows default), shrinking to it
      ttl: fc.nat({ max: 127 }).map((n) => 128 - n),
    })
    .map(({ protocol, src, dst, srcPort, dstPort, ttl }) => {
      const proto = PROTOCOL_NUMBER[protocol];
      const ported = proto !== 1;
      return makePacket({
        srcIp: src,
        dstIp: dst,
        proto,
        srcPort: ported ? srcPort : 0,
        dstPort: ported ? dstPort : 0,
        ttl,
      });
    });
}

export interface TraceRequestArbOptions {
  /** Where packets start: endpoint names or IDs, containers, pods (`ns/name`), nodes, addresses. */
  readonly from: readonly string[];
  /** Where they go: as `from`, plus services (`svc:ns/name`) and DNS names. */
  readonly to: readonly string[];
  readonly protocols?: readonly ('TCP' | 'UDP' | 'ICMP')[];
  readonly ports?: readonly number[];
  /** Sometimes ask for the reply too (default false). */
  readonly reply?: boolean;
}

/**
 * A trace request (`host.trace`, `cluster.trace`) from one of `from` to one of `to`, never a place
 * to itself: TCP, UDP or ICMP, a destination port from the pool (none for ICMP), sometimes another
 * source port.
 */
export function traceRequest(opts: TraceRequestArbOptions): fc.Arbitrary<TraceRequest> {
  if (!opts.from.length || !opts.to.length)
    throw new TypeError('traceRequest: from and to must each name at least one place');
  if (opts.from.length === 1 && opts.to.length === 1 && opts.from[0] === opts.to[0])
    throw new TypeError('traceRequest: from and to name only the same place');
  return fc
    .record({
      from: pick(opts.from),
      to: pick(opts.to),
      protocol: pick(opts.protocols ?? TRAFFIC_ARB.protocols),
      destinationPort: pick(opts.ports ?? TRAFFIC_ARB.ports),
      sourcePort: maybe(pick(TRAFFIC_ARB.sourcePorts.slice(1)), 20),
      reply: opts.reply ? fc.boolean() : fc.constant(false),
    })
    .filter((r) => r.from !== r.to)
    .map(({ from, to, protocol, destinationPort, sourcePort, reply }): TraceRequest => {
      const ported = protocol !== 'ICMP';
      return {
        from,
        to,
        protocol,
        ...(ported ? { destinationPort } : {}),
        ...(ported && sourcePort !== undefined ? { sourcePort } : {}),
        ...(reply ? { reply } : {}),
      };
    });
}

export interface AclArbOptions {
  /** Directions to draw (default both). */
  readonly directions?: readonly ('In' | 'Out')[];
  /** Actions to draw (default Allow and Block; `Pass` needs HNS 14.0). */
  readonly actions?: readonly ('Allow' | 'Block')[];
  /** Address matches (default `TRAFFIC_ARB.aclAddresses`). */
  readonly addresses?: readonly string[];
  /** Also draw `RuleType: Host` rules (WFP rather than VFP; default false). */
  readonly hostRules?: boolean;
}

/**
 * The Settings of one ACL rule: an Action and Direction, and each match field (Protocols, Local
 * and Remote addresses and ports, Priority) present or not. Ports appear only with Protocols TCP,
 * UDP or both, as the rules HNS users write have them.
 */
export function aclRule(opts: AclArbOptions = {}): fc.Arbitrary<JsonObject> {
  const addresses = opts.addresses ?? TRAFFIC_ARB.aclAddresses;
  return fc
    .record({
      Action: pick(opts.actions ?? (['Block', 'Allow'] as const)),
      Direction: pick(opts.directions ?? (['In', 'Out'] as const)),
      Protocols: maybe(pick(TRAFFIC_ARB.aclProtocols), 60),
      LocalAddresses: maybe(pick(addresses), 30),
      RemoteAddresses: maybe(pick(addresses), 50),
      LocalPorts: maybe(pick(TRAFFIC_ARB.aclPorts), 40),
      RemotePorts: maybe(pick(TRAFFIC_ARB.aclPorts), 15),
      Priority: pick(TRAFFIC_ARB.priorities),
      RuleType: opts.hostRules ? maybe(fc.constant('Host'), 20) : fc.constant(undefined),
    })
    .map((r) => {
      const ported = r.Protocols === '6' || r.Protocols === '17' || r.Protocols === '6,17';
      return compact({
        ...r,
        LocalPorts: ported ? r.LocalPorts : undefined,
        RemotePorts: ported ? r.RemotePorts : undefined,
      });
    });
}

/**
 * An endpoint's ACL policies: `{"Type":"ACL","Settings":…}` with Ids `rule-1`, `rule-2`, … in
 * order (what `toBeDeniedBy('rule-2')` names), 0 to `maxLength` (default 4) rules.
 */
export function aclSet(
  opts: AclArbOptions & { readonly maxLength?: number } = {},
): fc.Arbitrary<JsonObject[]> {
  return fc
    .array(aclRule(opts), { maxLength: opts.maxLength ?? 4 })
    .map((rules) => rules.map((s, i) => ({ Type: 'ACL', Settings: { Id: `rule-${i + 1}`, ...s } })));
}

/** The host-port claims of a load balancer document: `<protocol>/<port>/<vip or *>`. */
function lbClaims(doc: JsonObject): string[] {
  const vips = (doc.FrontendVIPs as string[] | undefined) ?? ['*'];
  const maps = (doc.PortMappings as JsonObject[] | undefined) ?? [];
  return maps.flatMap((m) => vips.map((v) => `${String(m.Protocol)}/${String(m.ExternalPort)}/${v}`));
}

/**
 * Load balancers over `endpointIds` that can all be created on one host: `loadBalancerDoc()`s
 * with a later one dropped when it shares a (protocol, port) with an earlier one (frontends must
 * be unique; one without VIPs claims the port on every address). Up to `maxLength` (default 3).
 */
export function loadBalancerDocs(
  endpointIds: readonly string[],
  ctx: ArbContext = {},
  maxLength = 3,
): fc.Arbitrary<JsonObject[]> {
  return fc.array(loadBalancerDoc(endpointIds, ctx), { maxLength }).map((docs) => {
    const ports = new Set<string>();
    return docs.filter((d) => {
      const mine = new Set(lbClaims(d).map((k) => k.split('/').slice(0, 2).join('/')));
      if ([...mine].some((k) => ports.has(k))) return false;
      for (const k of mine) ports.add(k);
      return true;
    });
  });
}
