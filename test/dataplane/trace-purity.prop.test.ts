/**
 * Traces change nothing (src/dataplane/trace.ts: "A trace changes nothing (its flow state is
 * scratch)"; docs/model.md: a trace counts nothing). On a random small host — an L2Bridge network
 * whose endpoints carry OutBoundNAT and ACLs, maybe a NAT network with port mappings, maybe a load
 * balancer (ClusterIP or NodePort, DSR or not) — built through host.api from HNS JSON:
 *
 * - a batch of random traces leaves host.snapshot(), every endpoint's HcnQueryEndpointStats and the
 *   flow state (the same probe traces before and after answer alike) as they were;
 * - a trace is a function of the state: run again (from the flow table, and computed afresh) it
 *   gives the same traceJson;
 * - the seed only picks IDs, MACs and load-balancer choices: a host built with the same calls from
 *   another seed gives the same dispositions (with a load-balancer fork, the same dispositions over
 *   all its branches).
 *
 * Seed: vitest.setup.ts.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { isHnsError } from '../../src/core/errors.js';
import type { Json, JsonObject } from '../../src/core/json.js';
import { traceJson, type TraceRequest, type TraceResult } from '../../src/dataplane/trace.js';
import type { Host } from '../../src/host/host.js';
import {
  endpointJson,
  HOST_IP,
  l2bridgeJson,
  newHost,
  observable,
  ok,
  queryEndpoint,
  SCHEMA,
  walkText,
  type EndpointFacts,
} from './prop-kit.js';
import { runs } from '../runs.js';

// ───────────────────────────── the host ─────────────────────────────

interface PodSpec {
  /** OutBoundNAT: none, to the host (cluster CIDR excepted), or to a VirtualIP. */
  readonly snat: 'none' | 'host' | 'vip';
  /** ACLs: none, allow all (In and Out), allow Out only (default-deny In), block In to 80 first. */
  readonly acl: 'none' | 'allowAll' | 'allowOut' | 'blockIn80';
}

interface LbSpec {
  readonly frontend: 'clusterIp' | 'nodePort';
  readonly dsr: boolean;
  readonly protocol: 6 | 17;
  /** Backend pods (indices, taken modulo the pod count; duplicates dropped). */
  readonly backends: readonly number[];
}

interface HostSpec {
  readonly pods: readonly PodSpec[];
  /** Pods on a NAT network (172.20.0.0/24); a port mapping host:8080 → 80 on the first, if any. */
  readonly natPods: number;
  readonly portMapping: boolean;
  readonly lb: LbSpec | null;
}

const VIP = '10.96.0.10';
const NODE_PORT = 30080;
const SERVICE_PORT = 80;
const TARGET_PORT = 8080;

const hostSpecArb: fc.Arbitrary<HostSpec> = fc.record({
  pods: fc.array(
    fc.record({
      snat: fc.constantFrom<PodSpec['snat']>('none', 'host', 'vip'),
      acl: fc.constantFrom<PodSpec['acl']>('none', 'allowAll', 'allowOut', 'blockIn80'),
    }),
    { minLength: 1, maxLength: 4 },
  ),
  natPods: fc.nat(2),
  portMapping: fc.boolean(),
  lb: fc.option(
    fc.record({
      frontend: fc.constantFrom<LbSpec['frontend']>('clusterIp', 'nodePort'),
      dsr: fc.boolean(),
      protocol: fc.constantFrom<6 | 17>(6, 17),
      backends: fc.array(fc.nat(3), { minLength: 1, maxLength: 3 }),
    }),
    { nil: null },
  ),
});

function podPolicies(p: PodSpec): JsonObject[] {
  const out: JsonObject[] = [];
  if (p.snat !== 'none') {
    out.push({
      Type: 'OutBoundNAT',
      Settings: {
        Exceptions: ['10.244.0.0/16', '10.96.0.0/12'],
        ...(p.snat === 'vip' ? { VirtualIP: '10.0.0.50' } : {}),
      },
    });
  }
  const rule = (Direction: string, Action: string, Priority: number, extra: JsonObject = {}): JsonObject => ({
    Type: 'ACL',
    Settings: { Action, Direction, Priority, RuleType: 'Switch', ...extra },
  });
  if (p.acl === 'allowAll') out.push(rule('In', 'Allow', 1000), rule('Out', 'Allow', 1000));
  if (p.acl === 'allowOut') out.push(rule('Out', 'Allow', 1000));
  if (p.acl === 'blockIn80')
    out.push(
      rule('In', 'Block', 500, { Protocols: '6', LocalPorts: '80' }),
      rule('In', 'Allow', 1000),
      rule('Out', 'Allow', 1000),
    );
  return out;
}

interface Built {
  readonly host: Host;
  readonly pods: readonly EndpointFacts[];
  readonly natPods: readonly EndpointFacts[];
  readonly lb: LbSpec | null;
}

/** The same calls for any seed: networks, endpoints, the load balancer. */
function build(seed: number, spec: HostSpec): Built {
  const host = newHost(seed);
  const net = ok(host.api.HcnCreateNetwork(null, l2bridgeJson()), 'HcnCreateNetwork cbr0');
  const pods = spec.pods.map((p, i) =>
    queryEndpoint(
      host,
      ok(
        host.api.HcnCreateEndpoint(
          net.ID,
          null,
          endpointJson(net.ID, `pod${i}`, { policies: podPolicies(p) }),
        ),
        `HcnCreateEndpoint pod${i}`,
      ).ID,
    ),
  );
  const natPods: EndpointFacts[] = [];
  if (spec.natPods > 0) {
    const nat = ok(
      host.api.HcnCreateNetwork(
        null,
        JSON.stringify({
          Name: 'nat',
          Type: 'NAT',
          Ipams: [
            {
              Type: 'Static',
              Subnets: [
                {
                  IpAddressPrefix: '172.20.0.0/24',
                  Routes: [{ NextHop: '172.20.0.1', DestinationPrefix: '0.0.0.0/0' }],
                },
              ],
            },
          ],
          SchemaVersion: { ...SCHEMA },
        }),
      ),
      'HcnCreateNetwork nat',
    );
    for (let i = 0; i < spec.natPods; i++) {
      const policies: JsonObject[] =
        i === 0 && spec.portMapping
          ? [{ Type: 'PortMapping', Settings: { Protocol: 6, InternalPort: 80, ExternalPort: 8080 } }]
          : [];
      const e = ok(
        host.api.HcnCreateEndpoint(nat.ID, null, endpointJson(nat.ID, `nat${i}`, { policies })),
        `HcnCreateEndpoint nat${i}`,
      );
      natPods.push(queryEndpoint(host, e.ID));
    }
  }
  if (spec.lb) {
    const backends = [...new Set(spec.lb.backends.map((i) => pods[i % pods.length]!.id))];
    const doc: JsonObject = {
      HostComputeEndpoints: backends,
      ...(spec.lb.frontend === 'clusterIp' ? { SourceVIP: HOST_IP, FrontendVIPs: [VIP] } : {}),
      PortMappings: [
        {
          Protocol: spec.lb.protocol,
          InternalPort: TARGET_PORT,
          ExternalPort: spec.lb.frontend === 'clusterIp' ? SERVICE_PORT : NODE_PORT,
          ...(spec.lb.frontend === 'nodePort' ? { Flags: 2 } : {}),
        },
      ],
      ...(spec.lb.dsr ? { Flags: 1 } : {}),
      SchemaVersion: { ...SCHEMA },
    };
    ok(host.api.HcnCreateLoadBalancer(null, JSON.stringify(doc)), 'HcnCreateLoadBalancer');
  }
  return { host, pods, natPods, lb: spec.lb };
}

// ───────────────────────────── the traces ─────────────────────────────

/** Where a trace starts or ends, independent of the seed (endpoints by index). */
type Ref =
  | { readonly pod: number; readonly how: 'id' | 'name' | 'ip' }
  | { readonly natPod: number; readonly how: 'id' | 'name' | 'ip' }
  | { readonly at: string };

const PLACES = [
  'host',
  HOST_IP,
  '8.8.8.8',
  '203.0.113.9',
  '10.0.0.7',
  VIP,
  '10.0.0.50',
  'web.example',
] as const;

const refArb: fc.Arbitrary<Ref> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ pod: fc.nat(3), how: fc.constantFrom('id', 'name', 'ip') }) },
  { weight: 1, arbitrary: fc.record({ natPod: fc.nat(1), how: fc.constantFrom('id', 'name', 'ip') }) },
  { weight: 2, arbitrary: fc.record({ at: fc.constantFrom(...PLACES) }) },
);

interface TraceSpec {
  readonly from: Ref;
  readonly to: Ref;
  readonly protocol: 'TCP' | 'UDP' | 'ICMP';
  readonly sourcePort?: number;
  readonly destinationPort?: number;
  readonly reply: boolean;
  readonly allBranches: boolean;
  /** Aim at the load balancer (its VIP or NodePort, its protocol) instead of `to`, if there is one. */
  readonly toService?: boolean;
}

const traceArb: fc.Arbitrary<TraceSpec> = fc.record(
  {
    from: refArb,
    to: refArb,
    protocol: fc.constantFrom<TraceSpec['protocol']>('TCP', 'UDP', 'ICMP'),
    sourcePort: fc.constantFrom(50000, 40000, 53),
    destinationPort: fc.constantFrom(SERVICE_PORT, TARGET_PORT, NODE_PORT, 8080, 53, 443),
    reply: fc.boolean(),
    allBranches: fc.boolean(),
    toService: fc.constant(true),
  },
  { requiredKeys: ['from', 'to', 'protocol', 'reply', 'allBranches'] },
);

function resolveRef(b: Built, r: Ref): string {
  if ('at' in r) return r.at;
  const list = 'pod' in r ? b.pods : b.natPods;
  const i = 'pod' in r ? r.pod : r.natPod;
  // no NAT network: such a ref falls back to a pod (there is always one)
  const e = list.length ? list[i % list.length]! : b.pods[i % b.pods.length]!;
  return r.how === 'id' ? e.id : r.how === 'name' ? e.name : e.ip;
}

function requestOf(b: Built, t: TraceSpec, extra: Partial<TraceRequest> = {}): TraceRequest {
  const lb = t.toService ? b.lb : null;
  const destinationPort = lb ? (lb.frontend === 'clusterIp' ? SERVICE_PORT : NODE_PORT) : t.destinationPort;
  return {
    from: resolveRef(b, t.from),
    to: lb ? (lb.frontend === 'clusterIp' ? VIP : HOST_IP) : resolveRef(b, t.to),
    protocol: lb ? lb.protocol : t.protocol,
    ...(t.sourcePort !== undefined ? { sourcePort: t.sourcePort } : {}),
    ...(destinationPort !== undefined ? { destinationPort } : {}),
    ...(t.reply ? { reply: true } : {}),
    ...(t.allBranches ? { allBranches: true } : {}),
    ...extra,
  };
}

/** The way back: from the destination to the source, ports swapped. */
function reverseOf(b: Built, t: TraceSpec): TraceSpec {
  if (t.toService && b.lb) {
    // the way back from the VIP (ClusterIP) or from the host's NodePort
    const at = b.lb.frontend === 'clusterIp' ? VIP : HOST_IP;
    const port = b.lb.frontend === 'clusterIp' ? SERVICE_PORT : NODE_PORT;
    return {
      from: { at },
      to: t.from,
      protocol: b.lb.protocol === 6 ? 'TCP' : 'UDP',
      sourcePort: port,
      ...(t.sourcePort !== undefined ? { destinationPort: t.sourcePort } : {}),
      reply: false,
      allBranches: false,
    };
  }
  return {
    from: t.to,
    to: t.from,
    protocol: t.protocol,
    ...(t.destinationPort !== undefined ? { sourcePort: t.destinationPort } : {}),
    ...(t.sourcePort !== undefined ? { destinationPort: t.sourcePort } : {}),
    reply: false,
    allBranches: false,
  };
}

/** A trace's answer as JSON, or the HRESULT it failed with (an unknown source, say). */
function answer(host: Host, req: TraceRequest): Json {
  try {
    return traceJson(host.trace(req));
  } catch (e) {
    if (isHnsError(e)) return { error: e.code };
    throw e;
  }
}

/** Computed afresh: the flow table (a cache of answers) is emptied first. */
function fresh(host: Host, req: TraceRequest): Json {
  host.flowTable.clear();
  return answer(host, req);
}

/** What must not differ between seeds: dispositions, over every branch of a load-balancer fork. */
function dispositions(r: TraceResult): string {
  if (r.branches)
    return `fork[${r.branches
      .map((x) => x.disposition)
      .sort()
      .join(',')}]`;
  return r.reply ? `${r.disposition}/reply ${r.reply.disposition}` : r.disposition;
}

const caseArb = fc.record({
  seed: fc.integer({ min: 1, max: 1000 }),
  otherSeed: fc.integer({ min: 1001, max: 2000 }),
  spec: hostSpecArb,
  traces: fc.array(traceArb, { minLength: 1, maxLength: 6 }),
});

describe('traces change nothing, and depend on nothing but the state', () => {
  test.prop([caseArb], { numRuns: runs(50, 1_500) })(
    'snapshot, endpoint stats and flow state are unchanged by traces; a trace repeats exactly',
    ({ seed, spec, traces }) => {
      const b = build(seed, spec);
      const before = observable(b.host);
      const probes = traces.map((t) => requestOf(b, reverseOf(b, t)));
      const probesBefore = probes.map((p) => fresh(b.host, p));
      for (const t of traces) {
        const req = requestOf(b, t);
        const first = answer(b.host, req);
        // from the flow table, then computed afresh: the same answer
        expect(answer(b.host, req), JSON.stringify(req)).toEqual(first);
        expect(fresh(b.host, req), JSON.stringify(req)).toEqual(first);
      }
      expect(observable(b.host)).toBe(before);
      // the flow state is as it was: the way back of every trace answers as it did before
      expect(probes.map((p) => fresh(b.host, p))).toEqual(probesBefore);
    },
  );

  test.prop([caseArb], { numRuns: runs(50, 1_500) })(
    'a host built with the same calls from another seed gives the same dispositions',
    ({ seed, otherSeed, spec, traces }) => {
      const one = build(seed, spec);
      const two = build(otherSeed, spec);
      for (const t of traces) {
        const run = (b: Built) => {
          try {
            return b.host.trace(requestOf(b, t, { allBranches: true }));
          } catch (e) {
            if (isHnsError(e)) return e.code;
            throw e;
          }
        };
        const r1 = run(one);
        const r2 = run(two);
        const d1 = typeof r1 === 'string' ? r1 : dispositions(r1);
        const d2 = typeof r2 === 'string' ? r2 : dispositions(r2);
        const walks = [r1, r2]
          .map((r) => (typeof r === 'string' ? r : walkText(r)))
          .join('\n--- other seed:\n');
        expect(d2, `${JSON.stringify(t)}\n${walks}`).toBe(d1);
      }
    },
  );
});
