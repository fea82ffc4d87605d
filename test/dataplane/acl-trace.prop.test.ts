/**
 * Endpoint ACLs end to end (reference vfp-dataplane.md §1.4, §2): two endpoints A (10.244.1.2) and
 * B (10.244.1.3) of one L2Bridge network carry random Switch ACL sets, written as HNS ACL JSON and
 * created through host.api; packets go A → B through host.trace / host.send, so the parser, the
 * compiled vSwitch view, the port pipelines and conntrack are all in play.
 *
 * - Stateful ACLs (§1.4): a delivered connection's replies come back, whatever B's Out and A's In
 *   rules say — even a top-priority Block written for exactly the reply's tuple.
 * - Priority (§2.2): a matching Block on the packet's path with a lower Priority number than every
 *   Allow of that endpoint and direction is never bypassed; the denial names that Block or another
 *   Block at least as strong.
 *
 * Addresses, ports and priorities come from small pools so that rules overlap and tie often; rule
 * Ids say where a rule lives (`a…` on A, `b…` on B, `n…` NetworkACL). Seed: vitest.setup.ts.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import type { TraceRequest, TraceResult } from '../../src/dataplane/trace.js';
import type { Host } from '../../src/host/host.js';
import {
  endpointJson,
  l2bridgeJson,
  newHost,
  ok,
  podIp,
  queryEndpoint,
  walkText,
  type EndpointFacts,
} from './prop-kit.js';
import { runs } from '../runs.js';

type Action = 'Allow' | 'Block';
type Direction = 'In' | 'Out';
type Proto = 'TCP' | 'UDP' | 'ICMP';

/** An ACL policy's Settings as HNS receives them (absent optional fields are left out). */
interface RuleJson {
  readonly Id: string;
  readonly Action: Action;
  readonly Direction: Direction;
  readonly Priority: number;
  readonly RuleType: 'Switch';
  readonly Protocols?: string;
  readonly LocalAddresses?: string;
  readonly RemoteAddresses?: string;
  readonly LocalPorts?: string;
  readonly RemotePorts?: string;
}

interface Flow {
  readonly protocol: Proto;
  readonly sourcePort: number;
  readonly destinationPort: number;
  /** How the request names B: its ID, Name or IP. */
  readonly to: 'id' | 'name' | 'ip';
}

const A_IP = podIp(2);
const B_IP = podIp(3);
const PROTO_NUMBER: Record<Proto, number> = { TCP: 6, UDP: 17, ICMP: 1 };

const ADDRESSES = [A_IP, B_IP, podIp(4), '10.244.1.0/24', '10.244.0.0/16', '192.168.0.0/16'] as const;
const PORT_LISTS = ['53', '80', '443', '8080', '1000-2000', '80,443', '50000-50010'] as const;
const PACKET_PORTS = [53, 80, 443, 1000, 1500, 2000, 8080, 50000, 50005] as const;

/** Mostly shared values, so that equal priorities are common. */
const priorityArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(100, 500, 1000, 4000, 65000) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 65500 }) },
);

function optional<T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
}

function compact<T extends object>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as T;
}

const addressListArb = fc
  .uniqueArray(fc.constantFrom(...ADDRESSES), { minLength: 1, maxLength: 2 })
  .map((xs) => xs.join(','));

const ruleArb: fc.Arbitrary<Omit<RuleJson, 'Id'>> = fc
  .record({
    Action: fc.constantFrom<Action>('Allow', 'Block'),
    Direction: fc.constantFrom<Direction>('In', 'Out'),
    Priority: priorityArb,
    RuleType: fc.constant('Switch' as const),
    Protocols: optional(fc.constantFrom('6', '17', '256')),
    LocalAddresses: optional(addressListArb),
    RemoteAddresses: optional(addressListArb),
    LocalPorts: optional(fc.constantFrom(...PORT_LISTS)),
    RemotePorts: optional(fc.constantFrom(...PORT_LISTS)),
  })
  .map(compact);

function named(rules: readonly Omit<RuleJson, 'Id'>[], prefix: string): RuleJson[] {
  return rules.map((r, i) => ({ Id: `${prefix}${i}`, ...r }));
}

const flowArb: fc.Arbitrary<Flow> = fc
  .record({
    protocol: fc.constantFrom<Proto>('TCP', 'UDP', 'ICMP'),
    sourcePort: fc.constantFrom(...PACKET_PORTS),
    destinationPort: fc.constantFrom(...PACKET_PORTS),
    to: fc.constantFrom<Flow['to']>('id', 'name', 'ip'),
  })
  .map((f) => (f.protocol === 'ICMP' ? { ...f, sourcePort: 0, destinationPort: 0 } : f));

// ---------------------------------------------------------------------------------------------

interface World {
  readonly host: Host;
  readonly a: EndpointFacts;
  readonly b: EndpointFacts;
  readonly networkId: string;
}

function acls(rules: readonly RuleJson[]): JsonObject[] {
  return rules.map((r) => ({ Type: 'ACL', Settings: { ...r } }));
}

/** The network (with NetworkACL rules, when given) and A, B with their ACLs, through host.api. */
function build(
  seed: number,
  onA: readonly RuleJson[],
  onB: readonly RuleJson[],
  onNetwork: readonly RuleJson[] = [],
): World {
  const host = newHost(seed);
  const netPolicies = onNetwork.map((r): JsonObject => ({ Type: 'NetworkACL', Settings: { ...r } }));
  const net = ok(host.api.HcnCreateNetwork(null, l2bridgeJson(netPolicies)), 'HcnCreateNetwork');
  const mk = (name: string, ip: string, rules: readonly RuleJson[]) =>
    queryEndpoint(
      host,
      ok(
        host.api.HcnCreateEndpoint(net.ID, null, endpointJson(net.ID, name, { ip, policies: acls(rules) })),
        `HcnCreateEndpoint ${name}`,
      ).ID,
    );
  return { host, a: mk('pod-a', A_IP, onA), b: mk('pod-b', B_IP, onB), networkId: net.ID };
}

function request(w: World, f: Flow, extra: Partial<TraceRequest> = {}): TraceRequest {
  const to = f.to === 'id' ? w.b.id : f.to === 'name' ? w.b.name : w.b.ip;
  return {
    from: w.a.id,
    to,
    protocol: f.protocol,
    sourcePort: f.sourcePort,
    destinationPort: f.destinationPort,
    ...extra,
  };
}

/**
 * A top-priority Block written for exactly the reply of `f` (B:dport → A:sport) as `side` sees
 * it: B's Out (B local) or A's In (A local). Any protocol, no ports, for ICMP.
 */
function replyBlock(f: Flow, side: 'B-Out' | 'A-In'): RuleJson {
  const onB = side === 'B-Out';
  const ported = f.protocol !== 'ICMP';
  const [localPort, remotePort] = onB ? [f.destinationPort, f.sourcePort] : [f.sourcePort, f.destinationPort];
  return {
    Id: onB ? 'bReplyBlock' : 'aReplyBlock',
    Action: 'Block',
    Direction: onB ? 'Out' : 'In',
    Priority: 100,
    RuleType: 'Switch',
    Protocols: ported ? String(PROTO_NUMBER[f.protocol]) : '256',
    LocalAddresses: onB ? B_IP : A_IP,
    RemoteAddresses: onB ? A_IP : B_IP,
    ...(ported ? { LocalPorts: String(localPort), RemotePorts: String(remotePort) } : {}),
  };
}

const ALLOW_ALL_OUT: RuleJson = {
  Id: 'aAllowOut',
  Action: 'Allow',
  Direction: 'Out',
  Priority: 65000,
  RuleType: 'Switch',
};
const ALLOW_ALL_IN: RuleJson = { ...ALLOW_ALL_OUT, Id: 'bAllowIn', Direction: 'In' };

/** Random rules on A and B, a broad allow on the forward path most of the time, reply blockers. */
const statefulCaseArb = fc.record({
  seed: fc.integer({ min: 1, max: 1000 }),
  onA: fc.array(ruleArb, { maxLength: 5 }),
  onB: fc.array(ruleArb, { maxLength: 5 }),
  allowOutOnA: fc.integer({ min: 1, max: 10 }).map((n) => n <= 8),
  allowInOnB: fc.integer({ min: 1, max: 10 }).map((n) => n <= 8),
  blockReplyOnB: fc.boolean(),
  blockReplyOnA: fc.boolean(),
  flow: flowArb,
});

type StatefulCase = typeof statefulCaseArb extends fc.Arbitrary<infer T> ? T : never;

function statefulWorld(c: StatefulCase): World {
  const onA = [
    ...named(c.onA, 'a'),
    ...(c.allowOutOnA ? [ALLOW_ALL_OUT] : []),
    ...(c.blockReplyOnA ? [replyBlock(c.flow, 'A-In')] : []),
  ];
  const onB = [
    ...named(c.onB, 'b'),
    ...(c.allowInOnB ? [ALLOW_ALL_IN] : []),
    ...(c.blockReplyOnB ? [replyBlock(c.flow, 'B-Out')] : []),
  ];
  return build(c.seed, onA, onB);
}

function expectReplyDelivered(reply: TraceResult | undefined, w: World, f: Flow, context: string): void {
  expect(reply, context).toBeDefined();
  const walk = `${context}\nreply: ${walkText(reply!)}`;
  expect(reply!.disposition, walk).toBe('Delivered');
  expect(reply!.at, walk).toBe(`endpoint:${w.a.id}`);
  expect(reply!.final, walk).toMatchObject({
    proto: PROTO_NUMBER[f.protocol],
    srcPort: f.destinationPort,
    dstPort: f.sourcePort,
  });
}

describe('stateful ACLs: replies of an allowed connection come back (§1.4)', () => {
  test.prop([statefulCaseArb], { numRuns: runs(100, 3_000) })(
    'trace with reply: a Delivered packet A → B has a Delivered reply, whatever B Out / A In block',
    (c) => {
      const w = statefulWorld(c);
      const fwd = w.host.trace(request(w, c.flow, { reply: true }));
      fc.pre(fwd.disposition === 'Delivered');
      expectReplyDelivered(fwd.reply, w, c.flow, `forward: ${walkText(fwd)}`);
    },
  );

  test.prop([statefulCaseArb], { numRuns: runs(100, 3_000) })(
    'send: after a Delivered send A → B, a trace of its reply B → A is Delivered',
    (c) => {
      const w = statefulWorld(c);
      const fwd = w.host.send(request(w, c.flow));
      fc.pre(fwd.disposition === 'Delivered');
      const reply = w.host.trace({
        from: w.b.id,
        to: A_IP,
        protocol: c.flow.protocol,
        sourcePort: c.flow.destinationPort,
        destinationPort: c.flow.sourcePort,
      });
      expectReplyDelivered(reply, w, c.flow, `sent: ${walkText(fwd)}`);
    },
  );
});

// ---------------------------------------------------------------------------------------------
// A Block built to match the flow where it is judged

interface BlockShape {
  readonly proto: 'exact' | 'any' | 'omit';
  /** Local / remote address: the exact address, the pod subnet, or left out. */
  readonly local: 'ip' | 'subnet' | 'omit';
  readonly remote: 'ip' | 'subnet' | 'omit';
  /** Ports (TCP/UDP only): the exact port, a range around it, or left out. */
  readonly localPorts: 'exact' | 'range' | 'omit';
  readonly remotePorts: 'exact' | 'range' | 'omit';
}

const blockShapeArb: fc.Arbitrary<BlockShape> = fc.record({
  proto: fc.constantFrom<BlockShape['proto']>('omit', 'any', 'exact'),
  local: fc.constantFrom<BlockShape['local']>('omit', 'ip', 'subnet'),
  remote: fc.constantFrom<BlockShape['remote']>('omit', 'ip', 'subnet'),
  localPorts: fc.constantFrom<BlockShape['localPorts']>('omit', 'exact', 'range'),
  remotePorts: fc.constantFrom<BlockShape['remotePorts']>('omit', 'exact', 'range'),
});

/** The Block for `f` on A's Out (A local, B remote) or B's In (B local, A remote). */
function matchingBlock(f: Flow, where: 'A-Out' | 'B-In', s: BlockShape, priority: number): RuleJson {
  const onA = where === 'A-Out';
  const local = onA ? { ip: A_IP, port: f.sourcePort } : { ip: B_IP, port: f.destinationPort };
  const remote = onA ? { ip: B_IP, port: f.destinationPort } : { ip: A_IP, port: f.sourcePort };
  const ported = f.protocol !== 'ICMP';
  const addr = (how: BlockShape['local'], ip: string) =>
    how === 'omit' ? undefined : how === 'ip' ? ip : '10.244.1.0/24';
  const ports = (how: BlockShape['localPorts'], port: number) =>
    !ported || how === 'omit'
      ? undefined
      : how === 'exact'
        ? String(port)
        : `${Math.max(0, port - 7)}-${Math.min(65535, port + 7)}`;
  return compact({
    Id: 'BLOCK',
    Action: 'Block' as const,
    Direction: onA ? ('Out' as const) : ('In' as const),
    Priority: priority,
    RuleType: 'Switch' as const,
    Protocols: s.proto === 'omit' ? undefined : s.proto === 'any' ? '256' : String(PROTO_NUMBER[f.protocol]),
    LocalAddresses: addr(s.local, local.ip),
    RemoteAddresses: addr(s.remote, remote.ip),
    LocalPorts: ports(s.localPorts, local.port),
    RemotePorts: ports(s.remotePorts, remote.port),
  });
}

const priorityCaseArb = fc.record({
  seed: fc.integer({ min: 1, max: 1000 }),
  where: fc.constantFrom<'A-Out' | 'B-In'>('A-Out', 'B-In'),
  shape: blockShapeArb,
  priority: fc.oneof(fc.constantFrom(100, 500, 1000, 4000), fc.integer({ min: 100, max: 60000 })),
  onA: fc.array(ruleArb, { maxLength: 5 }),
  onB: fc.array(ruleArb, { maxLength: 5 }),
  onNetwork: fc.oneof(
    { weight: 2, arbitrary: fc.constant([]) },
    { weight: 1, arbitrary: fc.array(ruleArb, { maxLength: 3 }) },
  ),
  allowOutOnA: fc.boolean(),
  at: fc.nat(),
  flow: flowArb,
});

describe('a higher-priority Block is never bypassed end to end (§2.2)', () => {
  test.prop([priorityCaseArb], { numRuns: runs(100, 3_000) })(
    'a matching Switch Block (A Out or B In) above every Allow of that endpoint/direction denies; the denial names it or a Block as strong',
    (c) => {
      const block = matchingBlock(c.flow, c.where, c.shape, c.priority);
      const dir = block.Direction;
      const blockedSide = c.where === 'A-Out' ? 'a' : 'b';
      // every Allow that applies to the blocked endpoint in the blocked direction comes after it
      const below = (rules: readonly RuleJson[], applies: boolean) =>
        rules.map((r) =>
          applies && r.Action === 'Allow' && r.Direction === dir
            ? { ...r, Priority: Math.max(r.Priority, c.priority + 1) }
            : r,
        );
      const onA = below(named(c.onA, 'a'), blockedSide === 'a');
      const onB = below(named(c.onB, 'b'), blockedSide === 'b');
      const onNetwork = below(named(c.onNetwork, 'n'), true);
      // the Block anywhere in its endpoint's list; on A's Out path a broad allow now and then
      const withBlock = (rules: readonly RuleJson[]) => {
        const i = c.at % (rules.length + 1);
        return [...rules.slice(0, i), block, ...rules.slice(i)];
      };
      const aRules = blockedSide === 'a' ? withBlock(onA) : c.allowOutOnA ? [...onA, ALLOW_ALL_OUT] : onA;
      const bRules = blockedSide === 'b' ? withBlock(onB) : onB;
      const w = build(c.seed, aRules, bRules, onNetwork);
      const r = w.host.trace(request(w, c.flow));
      const walk = walkText(r);
      expect(c.where === 'A-Out' ? ['DeniedOut'] : ['DeniedOut', 'DeniedIn'], walk).toContain(r.disposition);
      const denied = r.observations.filter((o) => o.component === 'ACL' && o.action === 'Denied');
      expect(denied, walk).toHaveLength(1);
      const rule = denied[0]!.rule;
      if (r.disposition === 'DeniedOut' && c.where === 'B-In') {
        // A denied it before B could: A's own Out decision (its rule, a NetworkACL, its default-deny)
        expect([w.a.id, w.networkId], walk).toContain(rule?.id);
        return;
      }
      const owner = c.where === 'A-Out' ? w.a : w.b;
      const all = [...aRules, ...bRules, ...onNetwork];
      const decider = all.find((x) => x.Id === rule?.ruleId);
      expect(decider, `${walk}\ndeciding rule ${JSON.stringify(rule)}`).toBeDefined();
      expect(decider, walk).toMatchObject({ Action: 'Block', Direction: dir, RuleType: 'Switch' });
      expect(decider!.Priority, walk).toBeLessThanOrEqual(c.priority);
      expect(rule, walk).toMatchObject({ layer: 'ACL_ENDPOINT_LAYER', priority: decider!.Priority });
      // the rule lives on the blocked endpoint, or is the network's NetworkACL
      if (decider!.Id.startsWith('n'))
        expect(rule, walk).toMatchObject({ kind: 'Network', policy: 'NetworkACL' });
      else expect(rule, walk).toMatchObject({ kind: 'Endpoint', id: owner.id, policy: 'ACL' });
    },
  );
});
