/**
 * Helpers for the reachability tests (src/analysis/reach.ts): random single-node states built
 * through the flat HCN API from HNS JSON (a network of a random type, 2–4 endpoints with random
 * ACL sets — overlapping ranges, equal priorities, Host and Switch rules —, OutBoundNAT with random
 * exceptions, load balancers DSR or not, port mappings, routes), two-node clusters, two Azure VMs
 * with random NSGs, random packets biased to the ports the state compares, and the oracle: the
 * `trace` (with `allBranches`) of each packet must land in the outcome the analysis puts it in.
 * Nothing here reads the analysis' own tables.
 */
import { fc } from '@fast-check/vitest';
import { expect } from 'vitest';
import '../../src/analysis/analyze.js';
import { DIAGONAL_NOTE } from '../../src/analysis/reach.js';
import type { Reachability } from '../../src/analysis/reach.js';
import type { AclPacket } from '../../src/analysis/space.js';
import { aksConflist, startAzurePod } from '../../src/cluster/azure.js';
import { Cluster } from '../../src/cluster/cluster.js';
import type { JsonObject } from '../../src/core/json.js';
import type { TraceResult } from '../../src/dataplane/trace.js';
import type { Host } from '../../src/host/host.js';
import type { NsgRuleSpec } from '../../src/host/nsg.js';
import { ContainerdRuntime } from '../../src/runtime/containerd.js';
import { cniNetwork } from '../../src/runtime/network.js';
import type { Disposition } from '../../src/vswitch/contracts.js';
import { optional, priorityArb } from '../vswitch/acl-arbs.js';
import { SOAK } from '../runs.js';
import { createEndpoint, createNetwork, HOST_IP, newHost, SCHEMA, walkText } from '../dataplane/prop-kit.js';

export type Net = Host | Cluster;

/** The soak's runs of a property take minutes on a busy machine: its timeout (else vitest's). */
export const SOAK_TIMEOUT = SOAK ? 600_000 : undefined;

// ───────────────────────────── addresses and ports ─────────────────────────────

export const VIPS = ['10.96.0.10', '10.96.0.11'] as const;
export const OUTSIDE = '8.8.8.8';
/** A prefix a host route sends to the gateway (routes: `ROUTED` is one of its addresses). */
export const ROUTED_PREFIX = '192.168.5.0/24';
export const ROUTED = '192.168.5.9';

/** The ports the states use: load-balancer and mapping ports, ACL range bounds. */
export const STATE_PORTS = [0, 53, 80, 443, 1000, 8080, 30080, 65535] as const;

/** Dotted quad → unsigned 32-bit. */
export function ipNum(s: string): number {
  return s.split('.').reduce((a, x) => a * 256 + Number(x), 0) >>> 0;
}

// ───────────────────────────── ACL rules ─────────────────────────────

/** A port list over the state's ports: single values and ranges between two of them. */
const portListArb = fc
  .array(
    fc.oneof(
      fc.constantFrom(...STATE_PORTS).map(String),
      fc
        .tuple(fc.constantFrom(...STATE_PORTS), fc.constantFrom(...STATE_PORTS))
        .map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((xs) => xs.join(','));

/** An address list over the addresses that matter to `subnet` (x.y.z): its pods, its prefix, … */
function addressListArb(subnet: string): fc.Arbitrary<string> {
  const one = fc.oneof(
    fc.constantFrom(`${subnet}.2/32`, `${subnet}.3/32`, `${subnet}.4/32`, `${subnet}.0/24`, `${subnet}.0/30`),
    fc.constantFrom(
      '10.244.0.0/16',
      `${HOST_IP}/32`,
      '10.0.0.0/24',
      `${OUTSIDE}/32`,
      '10.96.0.0/12',
      '0.0.0.0/1',
    ),
  );
  return fc.array(one, { minLength: 1, maxLength: 2 }).map((xs) => xs.join(','));
}

/** A random HNS ACL policy (Switch or Host, any action, rules that overlap and tie). */
export function aclArb(subnet: string): fc.Arbitrary<JsonObject> {
  return fc
    .record({
      Priority: priorityArb,
      Protocols: optional(fc.constantFrom('6', '17', '1', '256', '6,17', '1,6')),
      LocalAddresses: optional(addressListArb(subnet)),
      RemoteAddresses: optional(addressListArb(subnet)),
      LocalPorts: optional(portListArb),
      RemotePorts: optional(portListArb),
      Action: fc.constantFrom('Allow', 'Allow', 'Block'),
      Direction: fc.constantFrom('In', 'Out'),
      RuleType: fc.constantFrom('Switch', 'Switch', 'Switch', 'Host'),
    })
    .map((r) => {
      const s = Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)) as JsonObject;
      // ports on a rule whose protocols have none are refused by HNS: keep them to TCP/UDP rules
      const ported = s['Protocols'] === '6' || s['Protocols'] === '17' || s['Protocols'] === '6,17';
      if (!ported) {
        delete s['LocalPorts'];
        delete s['RemotePorts'];
      }
      return { Type: 'ACL', Settings: s };
    });
}

/** No ACL (two times in five), or a set of 1–5 rules, mostly with allow-alls at 1000 added. */
export function aclSetArb(subnet: string): fc.Arbitrary<JsonObject[]> {
  const allowAll = (Direction: string): JsonObject => ({
    Type: 'ACL',
    Settings: { Action: 'Allow', Direction, Priority: 1000, RuleType: 'Switch' },
  });
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant<JsonObject[]>([]) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(fc.array(aclArb(subnet), { minLength: 1, maxLength: 5 }), fc.boolean(), fc.boolean())
        .map(([rs, a, b]) => (a || b ? [...rs, allowAll('In'), allowAll('Out')] : rs)),
    },
  );
}

// ───────────────────────────── the single-node state ─────────────────────────────

export type NetType = 'L2Bridge' | 'L2Tunnel' | 'Overlay' | 'NAT' | 'Transparent';

export interface EndpointSpec {
  readonly acls: readonly JsonObject[];
  /** OutBoundNAT: none, or with these exceptions (maybe a VirtualIP, maybe Destinations). */
  readonly snat: null | {
    readonly exceptions: readonly string[];
    readonly virtualIp: boolean;
    readonly destinations: readonly string[];
  };
  /** A PortMapping (NAT networks): protocol, internal, external port. */
  readonly mapping: null | {
    readonly protocol: 6 | 17;
    readonly internal: number;
    readonly external: number;
  };
  /** An SDNRoute to the service CIDR (NeedEncap on Overlay, as win-overlay writes it). */
  readonly sdnRoute: boolean;
}

export interface LbSpec {
  /** A ClusterIP frontend (VIPS[n]) or a NodePort (no frontend VIP, LocalRoutedVIP). */
  readonly vip: 0 | 1 | 'nodePort';
  readonly dsr: boolean;
  readonly protocol: 6 | 17;
  readonly external: number;
  readonly internal: number;
  /** Endpoint indices (modulo the count; duplicates dropped). */
  readonly backends: readonly number[];
  /** PortMapping flags beside a NodePort's LocalRoutedVIP: ILB 1, LocalRoutedVIP 2, UseMux 4, PreserveDIP 8. */
  readonly flags: number;
}

export interface StateSpec {
  readonly seed: number;
  readonly type: NetType;
  readonly endpoints: readonly EndpointSpec[];
  readonly lbs: readonly LbSpec[];
  /** A host route ROUTED_PREFIX → the gateway. */
  readonly route: boolean;
}

/** The network's subnet (x.y.z of x.y.z.0/24): NAT networks take 172.20.0. */
export function subnetOf(type: NetType): string {
  return type === 'NAT' ? '172.20.0' : '10.244.1';
}

const exceptionArb = fc.constantFrom(
  '10.244.0.0/16',
  '10.96.0.0/12',
  '10.244.1.0/24',
  '172.20.0.0/24',
  '10.244.1.3/32',
  '8.8.8.0/24',
  '10.0.0.0/24',
);

function endpointArb(subnet: string, nat: boolean): fc.Arbitrary<EndpointSpec> {
  return fc.record({
    acls: aclSetArb(subnet),
    snat: fc.option(
      fc.record({
        exceptions: fc.uniqueArray(exceptionArb, { maxLength: 3 }),
        virtualIp: fc.boolean(),
        destinations: fc.oneof(
          { weight: 4, arbitrary: fc.constant([]) },
          { weight: 1, arbitrary: fc.constantFrom([OUTSIDE], [`${subnet}.2`]) },
        ),
      }),
      { nil: null, freq: 2 },
    ),
    mapping: nat
      ? fc.option(
          fc.record({
            protocol: fc.constantFrom<6 | 17>(6, 17),
            internal: fc.constantFrom(80, 8080, 53),
            external: fc.constantFrom(8080, 30080, 80),
          }),
          { nil: null },
        )
      : fc.constant(null),
    sdnRoute: fc.boolean(),
  });
}

export const lbArb: fc.Arbitrary<LbSpec> = fc.record({
  vip: fc.constantFrom<LbSpec['vip']>(0, 0, 0, 1, 'nodePort'),
  dsr: fc.boolean(),
  protocol: fc.constantFrom<6 | 17>(6, 6, 17),
  external: fc.constantFrom(80, 443, 53, 8080, 30080),
  internal: fc.constantFrom(80, 8080, 53),
  backends: fc.oneof(
    { weight: 1, arbitrary: fc.array(fc.nat(3), { minLength: 1, maxLength: 1 }) },
    { weight: 3, arbitrary: fc.uniqueArray(fc.nat(3), { minLength: 2, maxLength: 3 }) },
  ),
  flags: fc.oneof(
    { weight: 3, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.constantFrom(1, 2, 4, 8, 10) },
  ),
});

export const stateArb: fc.Arbitrary<StateSpec> = fc
  .constantFrom<NetType>('L2Bridge', 'L2Bridge', 'L2Tunnel', 'Overlay', 'NAT', 'Transparent')
  .chain((type) =>
    fc.record({
      seed: fc.integer({ min: 1, max: 1000 }),
      type: fc.constant(type),
      endpoints: fc.array(endpointArb(subnetOf(type), type === 'NAT'), { minLength: 2, maxLength: 4 }),
      lbs: fc.oneof(
        { weight: 1, arbitrary: fc.constant([]) },
        { weight: 4, arbitrary: fc.array(lbArb, { minLength: 1, maxLength: 2 }) },
      ),
      route: fc.boolean(),
    }),
  );

export interface Built {
  readonly host: Host;
  readonly subnet: string;
  /** Endpoint IDs and addresses, in the spec's order (an endpoint HNS refused is absent). */
  readonly endpoints: readonly { readonly id: string; readonly name: string; readonly ip: string }[];
}

function endpointPolicies(e: EndpointSpec, type: NetType): JsonObject[] {
  const out: JsonObject[] = [...e.acls];
  if (e.snat)
    out.push({
      Type: 'OutBoundNAT',
      Settings: {
        ...(e.snat.exceptions.length ? { Exceptions: [...e.snat.exceptions] } : {}),
        ...(e.snat.virtualIp ? { VirtualIP: '10.0.0.50' } : {}),
        ...(e.snat.destinations.length ? { Destinations: [...e.snat.destinations] } : {}),
      },
    });
  if (e.mapping)
    out.push({
      Type: 'PortMapping',
      Settings: {
        Protocol: e.mapping.protocol,
        InternalPort: e.mapping.internal,
        ExternalPort: e.mapping.external,
      },
    });
  if (e.sdnRoute)
    out.push({
      Type: 'SDNRoute',
      Settings: { DestinationPrefix: '10.96.0.0/12', ...(type === 'Overlay' ? { NeedEncap: true } : {}) },
    });
  return out;
}

/** Build a state: HNS refusing a part (a clashing port mapping, frontend) leaves it out. */
export function buildState(s: StateSpec): Built {
  const host = newHost(s.seed);
  const subnet = subnetOf(s.type);
  const net = createNetwork(host, 'net', s.type, `${subnet}.0/24`, `${subnet}.1`);
  const endpoints: { id: string; name: string; ip: string }[] = [];
  s.endpoints.forEach((e, i) => {
    const name = `ep${i}`;
    const ip = `${subnet}.${i + 2}`;
    try {
      endpoints.push({
        id: createEndpoint(host, net, name, ip, endpointPolicies(e, s.type)),
        name,
        ip,
      });
    } catch {
      // refused (a port mapping's external port taken): the endpoint is not there
    }
  });
  if (endpoints.length)
    for (const lb of s.lbs) {
      const backends = [...new Set(lb.backends.map((i) => endpoints[i % endpoints.length]!.id))];
      const nodePort = lb.vip === 'nodePort';
      const doc: JsonObject = {
        HostComputeEndpoints: backends,
        ...(nodePort ? {} : { SourceVIP: HOST_IP, FrontendVIPs: [VIPS[lb.vip as 0 | 1]] }),
        PortMappings: [
          {
            Protocol: lb.protocol,
            InternalPort: lb.internal,
            ExternalPort: lb.external,
            ...(nodePort || lb.flags ? { Flags: lb.flags | (nodePort ? 2 : 0) } : {}),
          },
        ],
        ...(lb.dsr ? { Flags: 1 } : {}),
        SchemaVersion: { ...SCHEMA },
      };
      host.api.HcnCreateLoadBalancer(null, JSON.stringify(doc));
    }
  if (s.route) host.addRoute({ destinationPrefix: ROUTED_PREFIX, nextHop: '10.0.0.1' });
  return { host, subnet, endpoints };
}

/** Where a question starts and ends in a built state (names resolved against it). */
export type SourceRef =
  { readonly ep: number; readonly by: 'id' | 'name' } | 'host' | 'outside' | 'unused' | 'routed';
export type DestRef =
  | { readonly ep: number; readonly by: 'ip' | 'name' }
  | 'vip0'
  | 'vip1'
  | 'hostIp'
  | 'outside'
  | 'routed'
  | 'unused';

export const sourceArb: fc.Arbitrary<SourceRef> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ ep: fc.nat(3), by: fc.constantFrom<'id' | 'name'>('id', 'name') }) },
  { weight: 1, arbitrary: fc.constantFrom<SourceRef>('host', 'outside', 'unused', 'routed') },
);

export const destArb: fc.Arbitrary<DestRef> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ ep: fc.nat(3), by: fc.constantFrom<'ip' | 'name'>('ip', 'ip', 'name') }),
  },
  { weight: 3, arbitrary: fc.constant<DestRef>('vip0') },
  { weight: 2, arbitrary: fc.constantFrom<DestRef>('vip1', 'hostIp') },
  { weight: 1, arbitrary: fc.constantFrom<DestRef>('outside', 'routed', 'unused') },
);

export function sourceName(b: Built, r: SourceRef): string {
  if (r === 'host') return 'host';
  if (r === 'outside') return OUTSIDE;
  if (r === 'unused') return `${b.subnet}.99`;
  if (r === 'routed') return ROUTED;
  const e = b.endpoints[r.ep % b.endpoints.length]!;
  return r.by === 'id' ? e.id : e.name;
}

export function destName(b: Built, r: DestRef): string {
  switch (r) {
    case 'vip0':
      return VIPS[0];
    case 'vip1':
      return VIPS[1];
    case 'hostIp':
      return HOST_IP;
    case 'outside':
      return OUTSIDE;
    case 'routed':
      return ROUTED;
    case 'unused':
      return `${b.subnet}.99`;
    default: {
      const e = b.endpoints[r.ep % b.endpoints.length]!;
      return r.by === 'ip' ? e.ip : e.name;
    }
  }
}

// ───────────────────────────── two nodes ─────────────────────────────

export interface ClusterPodSpec {
  readonly node: 0 | 1;
  readonly web: boolean;
  readonly acls: readonly JsonObject[];
}

export interface ClusterSpec {
  readonly seed: number;
  readonly mode: 'l2bridge' | 'overlay';
  readonly pods: readonly ClusterPodSpec[];
  readonly protocol: 'TCP' | 'UDP';
  readonly port: number;
  readonly targetPort: number;
}

export const clusterArb: fc.Arbitrary<ClusterSpec> = fc.record({
  seed: fc.integer({ min: 1, max: 1000 }),
  mode: fc.constantFrom<ClusterSpec['mode']>('l2bridge', 'overlay'),
  pods: fc
    .array(
      fc.record({
        node: fc.constantFrom<0 | 1>(0, 1),
        web: fc.boolean(),
        acls: aclSetArb('10.244.2'),
      }),
      { minLength: 2, maxLength: 4 },
    )
    // a backend on each node, and a client pod
    .map((ps) => [
      { node: 0 as const, web: true, acls: ps[0]!.acls },
      { node: 1 as const, web: true, acls: ps[1]!.acls },
      ...ps.slice(2),
    ]),
  protocol: fc.constantFrom<'TCP' | 'UDP'>('TCP', 'UDP'),
  port: fc.constantFrom(80, 443, 53),
  targetPort: fc.constantFrom(80, 8080, 53),
});

export function buildCluster(s: ClusterSpec): Cluster {
  const c = new Cluster({ seed: s.seed });
  c.addWindowsNode({ name: 'win-1', network: s.mode });
  c.addWindowsNode({ name: 'win-2', network: s.mode });
  s.pods.forEach((p, i) =>
    c.addPod({
      namespace: 'default',
      name: `p${i}`,
      node: p.node === 0 ? 'win-1' : 'win-2',
      labels: { app: p.web ? 'web' : 'other' },
      policies: [...p.acls],
    }),
  );
  c.addPod({ namespace: 'default', name: 'client', node: 'win-1' });
  c.addService({
    namespace: 'default',
    name: 'web',
    ports: [{ port: s.port, targetPort: s.targetPort, protocol: s.protocol }],
    selector: { app: 'web' },
  });
  return c;
}

export type ClusterDest = { readonly pod: number } | 'svc' | 'client' | 'node2' | 'outside';

export const clusterPairArb = fc.tuple(
  fc.oneof(fc.constant<'client'>('client'), fc.nat(3)),
  fc.oneof(
    { weight: 2, arbitrary: fc.nat(3).map((pod): ClusterDest => ({ pod })) },
    { weight: 3, arbitrary: fc.constant<ClusterDest>('svc') },
    { weight: 1, arbitrary: fc.constantFrom<ClusterDest>('client', 'node2', 'outside') },
  ),
);

/** A pair's source and destination as the cluster names them. */
export function clusterPair(
  s: ClusterSpec,
  [src, dst]: readonly ['client' | number, ClusterDest],
): { from: string; to: string } {
  const pod = (i: number) => `default/p${i % s.pods.length}`;
  const from = src === 'client' ? 'default/client' : pod(src);
  if (typeof dst === 'object') return { from, to: pod(dst.pod) };
  const named = {
    svc: 'svc:default/web',
    client: 'default/client',
    node2: 'win-2',
    outside: OUTSIDE,
  } as const;
  return { from, to: named[dst] };
}

// ───────────────────────────── Azure ─────────────────────────────

/** An NSG port range: any, a port, a range (the only source of source-port cuts). */
const nsgPortsArb = fc.constantFrom(
  '*',
  '*',
  '80',
  '53',
  '8080',
  '0',
  '65535',
  '1000-2000',
  '0-1023',
  '49152-65535',
);

/** A random NSG rule: either direction and access, any protocol, ranges on both ports. */
export const nsgRuleArb = fc.record({
  priority: fc.integer({ min: 100, max: 110 }),
  direction: fc.constantFrom<'Inbound' | 'Outbound'>('Inbound', 'Outbound'),
  access: fc.constantFrom<'Allow' | 'Deny'>('Allow', 'Deny'),
  protocol: fc.constantFrom('Tcp', 'Udp', 'Icmp', '*'),
  sourcePortRange: nsgPortsArb,
  destinationPortRange: nsgPortsArb,
  sourceAddressPrefix: fc.constantFrom('*', 'VirtualNetwork', '10.224.0.0/24', '10.224.0.5'),
  destinationAddressPrefix: fc.constantFrom(
    '*',
    'VirtualNetwork',
    '10.224.0.0/24',
    '10.224.0.15',
    'Internet',
  ),
});

/** Each VM's NSG rules (priorities distinct, as Azure requires). */
export const azureNsgsArb = fc.tuple(
  fc.uniqueArray(nsgRuleArb, { maxLength: 5, selector: (r) => r.priority }),
  fc.uniqueArray(nsgRuleArb, { maxLength: 5, selector: (r) => r.priority }),
);

/**
 * Two Azure VMs in node-subnet mode with these NSGs, containerd running azure-vnet on each (as
 * src/testing/aks.ts builds them): client and web-1 on akswin1, web-0 on akswin2, the service web
 * (80 → 8080) over both webs.
 */
export async function buildAzureCluster(nsgs: readonly (readonly NsgRuleSpecIn[])[]): Promise<Cluster> {
  const c = new Cluster({ seed: 1, azure: { maxPods: 8 } });
  const runtimes = new Map<string, ContainerdRuntime>();
  for (const [i, name] of ['akswin1', 'akswin2'].entries()) {
    const rules = (nsgs[i] ?? []).map((r, k) => ({ ...r, name: `r${k}` }));
    const host = c.addWindowsNode({ name, network: 'azure', nsg: { name: `nsg${i}`, rules } });
    runtimes.set(
      name,
      new ContainerdRuntime(host, { networks: [cniNetwork(host, aksConflist(c, name))], seed: 1 + i }),
    );
  }
  const pod = (name: string, node: string, app?: string) =>
    startAzurePod(c, runtimes.get(node)!, {
      namespace: 'default',
      name,
      node,
      ...(app ? { labels: { app } } : {}),
    });
  await pod('client', 'akswin1');
  await pod('web-0', 'akswin2', 'web');
  await pod('web-1', 'akswin1', 'web');
  c.addService({
    namespace: 'default',
    name: 'web',
    ports: [{ port: 80, targetPort: 8080 }],
    selector: { app: 'web' },
  });
  return c;
}

type NsgRuleSpecIn = Omit<NsgRuleSpec, 'name'>;

// ───────────────────────────── packets ─────────────────────────────

/** A packet of a pair: protocol and the two ports (0 for a protocol without ports). */
export interface Flow {
  readonly proto: number;
  readonly srcPort: number;
  readonly dstPort: number;
}

/** The ports worth hitting: the state's, one off each, 0 and 65535, and now and then any. */
const portArb = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...STATE_PORTS) },
  {
    weight: 3,
    arbitrary: fc.tuple(fc.constantFrom(...STATE_PORTS), fc.constantFrom(-1, 1)).map(([p, d]) => {
      const v = p + d;
      return v < 0 || v > 65535 ? p : v;
    }),
  },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 65535 }) },
);

export const flowArb: fc.Arbitrary<Flow> = fc
  .record({
    proto: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(6, 17) },
      { weight: 1, arbitrary: fc.constantFrom(1, 47, 0, 2, 255) },
    ),
    srcPort: fc.oneof({ weight: 1, arbitrary: portArb }, { weight: 1, arbitrary: fc.constant(50000) }),
    dstPort: portArb,
  })
  .map((f) => (f.proto === 6 || f.proto === 17 ? f : { ...f, srcPort: 0, dstPort: 0 }));

/** A flow as a packet of the answer's space (local = the source). */
export function flowPacket(a: Reachability, f: Flow): AclPacket {
  return {
    proto: f.proto,
    localIp: ipNum(a.source),
    localPort: f.srcPort,
    remoteIp: ipNum(a.destination),
    remotePort: f.dstPort,
  };
}

/** A packet of the answer's space as a flow. */
export function packetFlow(p: AclPacket): Flow {
  return { proto: p.proto, srcPort: p.localPort, dstPort: p.remotePort };
}

/** The oracle: a trace of the flow from the answer's source to its destination's address, every branch. */
export function traceFlow(net: Net, a: Reachability, f: Flow): TraceResult {
  return net.trace({
    from: a.from,
    to: a.destination,
    protocol: f.proto,
    sourcePort: f.srcPort,
    destinationPort: f.dstPort,
    allBranches: true,
  });
}

/** Every packet between two fixed addresses: TCP and UDP with all port pairs, 254 protocols with none. */
export const PAIR_PACKETS = 2n * 2n ** 32n + 254n;

function flowText(a: Reachability, f: Flow): string {
  return `${a.from} → ${a.to} (${a.source} → ${a.destination}) proto ${f.proto} ${f.srcPort} → ${f.dstPort}`;
}

function outcomesText(a: Reachability): string {
  return a.outcomes.map((o) => `  [${o.dispositions.join('|')}] ${o.set.describe(6).join(' / ')}`).join('\n');
}

/**
 * The dispositions the trace gives a flow: its own, and (when it forks at a load balancer) each
 * branch's. Checked against the answer: exactly one outcome holds the packet; its dispositions
 * include the trace's; with no fork they are the trace's alone, with one they are the branches'
 * (as a set); each branch of the answer for that load balancer puts the packet in its trace
 * branch's disposition; the certain and possible sets agree with the outcome.
 */
export function checkFlow(net: Net, a: Reachability, f: Flow): void {
  checkTrace(a, f, traceFlow(net, a, f));
}

/**
 * A packet the answer says it does not work out exactly, when it carries DIAGONAL_NOTE: one that
 * somewhere on its walk (any branch) is addressed to its own source with source port =
 * destination port (TCP, UDP), its own reply — a pod to itself, or to a VIP whose backend is the
 * pod with the ports unchanged (a DSR hairpin).
 */
export function onNotedDiagonal(a: Reachability, t: TraceResult): boolean {
  if (a.exact || !a.notes.includes(DIAGONAL_NOTE)) return false;
  const own = (r: TraceResult): boolean =>
    r.observations.some(
      (o) =>
        (o.packetAfter.proto === 6 || o.packetAfter.proto === 17) &&
        o.packetAfter.srcIp === o.packetAfter.dstIp &&
        o.packetAfter.srcPort === o.packetAfter.dstPort,
    ) || (r.branches ?? []).some(own);
  return own(t);
}

export function checkTrace(a: Reachability, f: Flow, t: TraceResult): void {
  // (the answer says these are not worked out: counted with their class)
  if (onNotedDiagonal(a, t)) return;
  const p = flowPacket(a, f);
  const msg = () => `${flowText(a, f)}\ntrace: ${walkText(t)}\noutcomes:\n${outcomesText(a)}`;
  const holders = a.outcomes.filter((o) => o.set.has(p));
  expect(holders.length, msg()).toBe(1);
  const got = holders[0]!.dispositions;
  expect(got, msg()).toContain(t.disposition);
  if (t.branches) {
    const fromBranches = new Set<Disposition>(t.branches.map((x) => x.disposition));
    expect([...got].sort(), msg()).toEqual([...fromBranches].sort());
    const fork = t.lbChoices.find((c) => c.count > 1)!;
    for (const br of a.branches) {
      const c = br.choices.find((x) => x.host === fork.host && x.lb === fork.lb);
      if (!c) continue;
      const want = t.branches[c.backend]!.disposition;
      const inBranch = Object.entries(br.dispositions)
        .filter(([, s]) => s.has(p))
        .map(([d]) => d);
      expect(inBranch, `branch ${c.backend} of ${c.of}\n${msg()}`).toEqual([want]);
    }
  } else {
    expect(got, msg()).toEqual([t.disposition]);
  }
  for (const [d, s] of Object.entries(a.dispositions))
    expect(s.has(p), `certain ${d}\n${msg()}`).toBe(got.length === 1 && got[0] === d);
  for (const [d, s] of Object.entries(a.possible))
    expect(s.has(p), `possible ${d}\n${msg()}`).toBe(got.includes(d as Disposition));
}

/** The outcomes cover every packet of the pair once: pairwise disjoint, counts adding up. */
export function checkPartition(a: Reachability): void {
  const b = a.space.bdd;
  let total = 0n;
  a.outcomes.forEach((o, i) => {
    expect(o.set.empty, `outcome ${i} empty`).toBe(false);
    total += o.set.count;
    for (const x of a.outcomes.slice(i + 1))
      expect(b.intersects(o.set.node, x.set.node), `${o.dispositions} ∩ ${x.dispositions}`).toBe(false);
  });
  expect(total, outcomesText(a)).toBe(PAIR_PACKETS);
  const sigs = a.outcomes.map((o) => o.dispositions.join());
  expect(new Set(sigs).size, 'one outcome per set of dispositions').toBe(sigs.length);
}

/**
 * Packets to check in an answer: the given flows, each outcome's witness, each outcome's packet
 * nearest each flow (so every outcome is hit in several places), each branch set's witness.
 */
export function probeFlows(a: Reachability, flows: readonly Flow[]): Flow[] {
  const out = [...flows];
  const nodes = [
    ...a.outcomes.map((o) => o.set.node),
    ...a.branches.flatMap((br) => Object.values(br.dispositions).map((s) => s.node)),
  ];
  for (const n of nodes) {
    const w = a.space.pick(n, { proto: 6, localIp: 0, localPort: 50000, remoteIp: 0, remotePort: 80 });
    if (w) out.push(packetFlow(w));
  }
  for (const o of a.outcomes)
    for (const f of flows.slice(0, 4)) {
      const w = a.space.pick(o.set.node, flowPacket(a, f));
      if (w) out.push(packetFlow(w));
    }
  return out;
}

/** Each outcome's own witness (`set.witness()`, a trace request's words) traced: one of its dispositions. */
export function checkWitnesses(net: Net, a: Reachability): void {
  for (const o of a.outcomes) {
    const w = o.set.witness();
    expect(w, `witness of ${o.dispositions}`).toBeDefined();
    expect(w!.srcIp).toBe(a.source);
    expect(w!.dstIp).toBe(a.destination);
    const t = net.trace({
      from: a.from,
      to: w!.dstIp,
      protocol: w!.protocol,
      sourcePort: w!.srcPort,
      destinationPort: w!.dstPort,
    });
    if (onNotedDiagonal(a, t)) continue;
    expect(o.dispositions, `witness ${JSON.stringify(w)}: ${walkText(t)}`).toContain(t.disposition);
  }
}
