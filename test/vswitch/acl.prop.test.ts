/**
 * Properties of the endpoint ACL layers (src/vswitch/acl.ts) against a reference evaluator written
 * here from reference vfp-dataplane.md §2, not from the module: rules are HNS ACL JSON (what a
 * counterexample prints), parsed by the real parser and compiled; the reference reads the same JSON
 * strings itself. Addresses come from five hosts with /8–/32 prefixes and ports from seven values,
 * so rules overlap and tie often; arrays shrink toward few rules and optional fields toward absent.
 * The fast-check seed is fixed in vitest.setup.ts (HNSIM_FC_SEED / HNSIM_FC_RANDOM to explore).
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import type { AclOptions, AclVerdict, CompiledAcls } from '../../src/vswitch/acl.js';
import { acl, compileFrom, judge, networkAcl } from './acl-kit.js';
import { HOSTS, PORTS, addressListArb, optional, portListArb, priorityArb } from './acl-arbs.js';
import { runs } from '../runs.js';

// ---------------------------------------------------------------------------------------------
// Rules and packets

type Action = 'Allow' | 'Block' | 'Pass';
type Direction = 'In' | 'Out';

/** An ACL policy's Settings as HNS receives them; absent optional fields are omitted. */
interface RuleJson {
  readonly Id: string;
  readonly Action: Action;
  readonly Direction: Direction;
  readonly Priority: number;
  readonly RuleType: 'Switch' | 'Host';
  readonly Protocols?: string;
  readonly LocalAddresses?: string;
  readonly RemoteAddresses?: string;
  readonly LocalPorts?: string;
  readonly RemotePorts?: string;
}

interface Packet {
  readonly Direction: Direction;
  readonly proto: number;
  readonly src: string;
  readonly sport: number;
  readonly dst: string;
  readonly dport: number;
}

function ruleArb(
  actions: readonly Action[],
  ruleTypes: readonly RuleJson['RuleType'][],
): fc.Arbitrary<Omit<RuleJson, 'Id'>> {
  return fc
    .record({
      Action: fc.constantFrom(...actions),
      Direction: fc.constantFrom<Direction>('In', 'Out'),
      Priority: priorityArb,
      RuleType: fc.constantFrom(...ruleTypes),
      Protocols: optional(fc.constantFrom('6', '17', '1', '256')),
      LocalAddresses: optional(addressListArb),
      RemoteAddresses: optional(addressListArb),
      LocalPorts: optional(portListArb),
      RemotePorts: optional(portListArb),
    })
    .map((r) => {
      // omitted fields are absent from the JSON (and from a printed counterexample)
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(r)) if (v !== undefined) out[k] = v;
      return out as unknown as Omit<RuleJson, 'Id'>;
    });
}

/** A list of rules with Ids `<prefix>0`, `<prefix>1`, … in list order. */
function rulesArb(
  rule: fc.Arbitrary<Omit<RuleJson, 'Id'>>,
  prefix: string,
  maxLength = 8,
): fc.Arbitrary<RuleJson[]> {
  return fc
    .array(rule, { maxLength })
    .map((rs) => rs.map((r, i): RuleJson => ({ Id: `${prefix}${i}`, ...r })));
}

const switchRules = rulesArb(ruleArb(['Allow', 'Block'], ['Switch']), 'r');

/** Mostly the rules' own hosts and ports; now and then one no rule names. */
const packetIpArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...HOSTS) },
  { weight: 1, arbitrary: fc.constantFrom('10.0.0.3', '12.0.0.1') },
);
const packetPortArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...PORTS) },
  { weight: 1, arbitrary: fc.constantFrom(999, 2001, 65535) },
);

const packetArb: fc.Arbitrary<Packet> = fc
  .record({
    Direction: fc.constantFrom<Direction>('In', 'Out'),
    proto: fc.constantFrom(6, 17, 1),
    src: packetIpArb,
    sport: packetPortArb,
    dst: packetIpArb,
    dport: packetPortArb,
  })
  .map((p) => (p.proto === 1 ? { ...p, sport: 0, dport: 0 } : p));

const optionsArb: fc.Arbitrary<AclOptions> = fc.record(
  {
    tieBreak: fc.constantFrom<'Block' | 'Allow'>('Block', 'Allow'),
    defaultDeny: fc.constantFrom<'both' | 'direction'>('both', 'direction'),
  },
  { requiredKeys: [] },
);

// ---------------------------------------------------------------------------------------------
// The system under test: JSON → parsePolicies → compileAcls → evaluateAcls

function compile(rules: readonly RuleJson[], opts: AclOptions = {}, network: readonly RuleJson[] = []) {
  return compileFrom(
    rules.map((r) => acl(r as unknown as JsonObject)),
    { network: network.map((r) => networkAcl(r as unknown as JsonObject)), opts },
  );
}

function run(acls: CompiledAcls, p: Packet): AclVerdict {
  return judge(acls, p.Direction, p.proto, `${p.src}:${p.sport}`, `${p.dst}:${p.dport}`);
}

interface Outcome {
  readonly allowed: boolean;
  readonly by: AclVerdict['by'];
  readonly ruleId?: string;
  readonly priority?: number;
}

function outcome(v: AclVerdict): Outcome {
  return {
    allowed: v.allowed,
    by: v.by,
    ...(v.rule ? { ruleId: v.rule.ruleId, priority: v.rule.priority } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// The reference evaluator, from vfp-dataplane.md §2 only

function ipValue(text: string): number {
  return text.split('.').reduce((acc, octet) => acc * 256 + Number(octet), 0);
}

/** `a.b.c.d/len` (or a bare IP = /32) contains `ip`: same value in the top `len` bits. */
function prefixHas(text: string, ip: string): boolean {
  const [addr = '', len = '32'] = text.split('/');
  const unit = 2 ** (32 - Number(len));
  return Math.floor(ipValue(addr) / unit) === Math.floor(ipValue(ip) / unit);
}

/** `80`, `1000-2000`, `80,8080,1000-2000` (§2.1). */
function portListHas(text: string, port: number): boolean {
  return text.split(',').some((item) => {
    const [first = '', last = first] = item.split('-');
    return port >= Number(first) && port <= Number(last);
  });
}

/**
 * §2.1: Direction In = traffic to the endpoint, Out = from it; Local = the endpoint's side, Remote =
 * the peer's, in both directions; Protocols 256 (or absent) = any; ports only exist for TCP and UDP,
 * so a packet of another protocol (ICMP) never matches a rule that names ports.
 */
function refMatches(r: RuleJson, p: Packet): boolean {
  if (r.Direction !== p.Direction) return false;
  const inbound = p.Direction === 'In';
  const local = inbound ? { ip: p.dst, port: p.dport } : { ip: p.src, port: p.sport };
  const remote = inbound ? { ip: p.src, port: p.sport } : { ip: p.dst, port: p.dport };
  const proto = r.Protocols === undefined ? 256 : Number(r.Protocols);
  if (proto !== 256 && proto !== p.proto) return false;
  if (r.LocalAddresses !== undefined && !r.LocalAddresses.split(',').some((x) => prefixHas(x, local.ip)))
    return false;
  if (r.RemoteAddresses !== undefined && !r.RemoteAddresses.split(',').some((x) => prefixHas(x, remote.ip)))
    return false;
  if (r.LocalPorts !== undefined || r.RemotePorts !== undefined) {
    if (p.proto !== 6 && p.proto !== 17) return false;
    if (r.LocalPorts !== undefined && !portListHas(r.LocalPorts, local.port)) return false;
    if (r.RemotePorts !== undefined && !portListHas(r.RemotePorts, remote.port)) return false;
  }
  return true;
}

/**
 * §2.2: Switch rules by Priority, lower number first; equal priority: the tie-break action first
 * (Block by default, §9 open point 2), then the order given; the first match decides. A Pass
 * decides nothing.
 */
function refSwitchRule(rules: readonly RuleJson[], p: Packet, tieBreak: Action): RuleJson | undefined {
  const rank = (a: Action) => (a === tieBreak ? 0 : 1);
  const ordered = rules
    .map((r, i) => ({ r, i }))
    .filter(({ r }) => r.RuleType === 'Switch')
    .sort((a, b) => a.r.Priority - b.r.Priority || rank(a.r.Action) - rank(b.r.Action) || a.i - b.i);
  return ordered.find(({ r }) => r.Action !== 'Pass' && refMatches(r, p))?.r;
}

/**
 * §2.3: no ACL → allow; once any ACL exists, what no rule decides is denied — in both directions
 * (the reference's model), or with `defaultDeny: 'direction'` only where the direction has rules.
 */
function refDefaultDeny(rules: readonly RuleJson[], p: Packet, opts: AclOptions): boolean {
  if (rules.length === 0) return false;
  return opts.defaultDeny === 'direction' ? rules.some((r) => r.Direction === p.Direction) : true;
}

function refVfp(rules: readonly RuleJson[], p: Packet, opts: AclOptions = {}): Outcome {
  if (rules.length === 0) return { allowed: true, by: 'default-allow' };
  const hit = refSwitchRule(rules, p, opts.tieBreak ?? 'Block');
  if (hit) return { allowed: hit.Action === 'Allow', by: 'rule', ruleId: hit.Id, priority: hit.Priority };
  return refDefaultDeny(rules, p, opts)
    ? { allowed: false, by: 'default-deny' }
    : { allowed: true, by: 'default-allow' };
}

/**
 * The module's two stages in series (its doc, §1.2 "enforced by Both Windows Firewall and VFP"): VFP
 * as above, except that a direction with no Switch rule leaves VFP nothing to enforce; then, in a
 * direction that has Host rules, Windows Firewall: any matching Host Block denies (the first
 * given), a matching Host Allow lets the VFP verdict stand (or decides, when VFP had no rule), no
 * match is denied.
 */
function refTwoStage(rules: readonly RuleJson[], p: Packet, opts: AclOptions = {}): Outcome {
  const host = rules.filter((r) => r.RuleType === 'Host' && r.Direction === p.Direction);
  const switchRules = rules.filter((r) => r.RuleType !== 'Host' && r.Direction === p.Direction);
  const vfp: Outcome =
    switchRules.length === 0 && host.length > 0
      ? { allowed: true, by: 'default-allow' }
      : refVfp(rules, p, opts);
  if (!vfp.allowed) return vfp;
  if (host.length === 0) return vfp;
  const block = host.find((r) => r.Action === 'Block' && refMatches(r, p));
  if (block) return { allowed: false, by: 'rule', ruleId: block.Id, priority: block.Priority };
  const allow = host.find((r) => r.Action === 'Allow' && refMatches(r, p));
  if (allow)
    return vfp.by === 'rule'
      ? vfp
      : { allowed: true, by: 'rule', ruleId: allow.Id, priority: allow.Priority };
  return { allowed: false, by: 'default-deny' };
}

// ---------------------------------------------------------------------------------------------
// A rule built to match a given packet

interface MatchShape {
  readonly proto: 'exact' | 'any' | 'omit';
  readonly localLen?: number;
  readonly remoteLen?: number;
  readonly localPorts?: readonly [number, number];
  readonly remotePorts?: readonly [number, number];
}

const matchShapeArb: fc.Arbitrary<MatchShape> = fc.record(
  {
    proto: fc.constantFrom<MatchShape['proto']>('exact', 'any', 'omit'),
    localLen: fc.integer({ min: 8, max: 32 }),
    remoteLen: fc.integer({ min: 8, max: 32 }),
    localPorts: fc.tuple(fc.nat(600), fc.nat(600)),
    remotePorts: fc.tuple(fc.nat(600), fc.nat(600)),
  },
  { requiredKeys: ['proto'] },
);

function around(port: number, [below, above]: readonly [number, number]): string {
  return `${Math.max(0, port - below)}-${Math.min(65535, port + above)}`;
}

function matchingRule(
  p: Packet,
  s: MatchShape,
  fields: Pick<RuleJson, 'Id' | 'Action' | 'Priority' | 'RuleType'>,
): RuleJson {
  const inbound = p.Direction === 'In';
  const local = inbound ? { ip: p.dst, port: p.dport } : { ip: p.src, port: p.sport };
  const remote = inbound ? { ip: p.src, port: p.sport } : { ip: p.dst, port: p.dport };
  const ported = p.proto === 6 || p.proto === 17;
  return {
    ...fields,
    Direction: p.Direction,
    ...(s.proto === 'omit' ? {} : { Protocols: s.proto === 'any' ? '256' : String(p.proto) }),
    ...(s.localLen !== undefined ? { LocalAddresses: `${local.ip}/${s.localLen}` } : {}),
    ...(s.remoteLen !== undefined ? { RemoteAddresses: `${remote.ip}/${s.remoteLen}` } : {}),
    ...(ported && s.localPorts ? { LocalPorts: around(local.port, s.localPorts) } : {}),
    ...(ported && s.remotePorts ? { RemotePorts: around(remote.port, s.remotePorts) } : {}),
  };
}

function insertAt<T>(xs: readonly T[], at: number, x: T): T[] {
  const i = at % (xs.length + 1);
  return [...xs.slice(0, i), x, ...xs.slice(i)];
}

// ---------------------------------------------------------------------------------------------

describe('Switch ACL rules agree with the reference evaluator (§2.1–§2.3)', () => {
  test.prop([switchRules, fc.array(packetArb, { minLength: 1, maxLength: 4 })], {
    numRuns: runs(300, 10_000),
  })(
    '(a) default options: same verdict, same deciding rule (Id and priority) or the same default',
    (rules, packets) => {
      const acls = compile(rules);
      for (const p of packets) expect(outcome(run(acls, p))).toEqual(refVfp(rules, p));
    },
  );

  test.prop([switchRules, fc.array(packetArb, { minLength: 1, maxLength: 4 }), optionsArb], {
    numRuns: runs(150, 5_000),
  })('(a′) any tieBreak / defaultDeny option: same verdict and deciding rule', (rules, packets, opts) => {
    const acls = compile(rules, opts);
    for (const p of packets) expect(outcome(run(acls, p))).toEqual(refVfp(rules, p, opts));
  });
});

describe('priority properties', () => {
  // Anything else: Switch and Host rules of any action (Pass included), on the endpoint or as the
  // network's NetworkACL, with either option. TierAcl is left out on purpose: tiers run before the
  // flat rules whatever their priorities (the module doc), so a tier Allow can beat a flat Block.
  const othersArb = fc.array(
    fc.tuple(ruleArb(['Allow', 'Block', 'Pass'], ['Switch', 'Host']), fc.boolean()),
    { maxLength: 8 },
  );

  test.prop(
    [packetArb, matchShapeArb, fc.integer({ min: 100, max: 1000 }), othersArb, fc.nat(), optionsArb],
    { numRuns: runs(100, 3_000) },
  )(
    '(b) a matching Block with a lower Priority number than every Allow denies, whatever else is added',
    (p, s, priority, others, at, opts) => {
      const block = matchingRule(p, s, { Id: 'B', Action: 'Block', Priority: priority, RuleType: 'Switch' });
      expect(refMatches(block, p)).toBe(true);
      const rest = others.map(([r, onNetwork], i): [RuleJson, boolean] => [
        {
          Id: `o${i}`,
          ...r,
          Priority: r.Action === 'Allow' ? Math.max(r.Priority, priority + 1) : r.Priority,
        },
        onNetwork,
      ]);
      const endpoint = insertAt(
        rest.filter(([, n]) => !n).map(([r]) => r),
        at,
        block,
      );
      const network = rest.filter(([, n]) => n).map(([r]) => r);
      const v = run(compile(endpoint, opts, network), p);
      expect(v.allowed).toBe(false);
      expect(v.by).toBe('rule');
      expect(v.stage).toBe('VFP');
      // the decider is B or another Block before it
      const decider = [...endpoint, ...network].find((r) => r.Id === v.rule?.ruleId);
      expect(decider?.Action).toBe('Block');
      expect(decider?.RuleType).toBe('Switch');
      expect(v.rule?.priority).toBeLessThanOrEqual(priority);
    },
  );

  test.prop(
    [
      switchRules,
      packetArb,
      ruleArb(['Allow', 'Block', 'Pass'], ['Switch']),
      fc.integer({ min: 0, max: 2000 }),
      fc.nat(),
      optionsArb,
    ],
    { numRuns: runs(100, 3_000) },
  )(
    '(c) adding a rule with a greater Priority number than the deciding rule changes nothing',
    (rules, p, extra, offset, at, opts) => {
      const before = outcome(run(compile(rules, opts), p));
      fc.pre(before.by === 'rule' && before.priority !== undefined);
      // uint16: deciding priorities are ≤ 65500, so there is always room above
      const added: RuleJson = {
        Id: 'added',
        ...extra,
        Priority: Math.min(65535, before.priority! + 1 + offset),
      };
      const after = outcome(run(compile(insertAt(rules, at, added), opts), p));
      expect(after).toEqual(before);
    },
  );
});

describe('Host (WFP) rules', () => {
  const mixedRules = rulesArb(ruleArb(['Allow', 'Block'], ['Switch', 'Host']), 'r');

  test.prop([mixedRules, packetArb, matchShapeArb, priorityArb, fc.nat(), optionsArb], {
    numRuns: runs(100, 3_000),
  })(
    '(d) any matching Host Block denies, whatever its priority and whatever Allows exist',
    (rules, p, s, priority, at, opts) => {
      const hostBlock = matchingRule(p, s, {
        Id: 'H',
        Action: 'Block',
        Priority: priority,
        RuleType: 'Host',
      });
      expect(refMatches(hostBlock, p)).toBe(true);
      const all = insertAt(rules, at, hostBlock);
      const v = run(compile(all, opts), p);
      expect(v.allowed).toBe(false);
      // when VFP alone would allow, WFP denied it with a matching Host Block (otherwise VFP denied
      // first, by a Switch Block or its default-deny: the stages run in series)
      if (refVfp(all, p, opts).allowed) {
        expect(v.stage).toBe('WFP');
        const decider = all.find((r) => r.Id === v.rule?.ruleId);
        expect(decider).toMatchObject({ RuleType: 'Host', Action: 'Block' });
        expect(refMatches(decider!, p)).toBe(true);
      }
    },
  );

  test.prop([mixedRules, fc.array(packetArb, { minLength: 1, maxLength: 4 }), optionsArb], {
    numRuns: runs(100, 3_000),
  })(
    '(e) Switch and Host rules together agree with the two-stage reference (VFP, then WFP)',
    (rules, packets, opts) => {
      const acls = compile(rules, opts);
      for (const p of packets) expect(outcome(run(acls, p))).toEqual(refTwoStage(rules, p, opts));
    },
  );
});
