/**
 * The ACL analysis (src/analysis/acl.ts) against the evaluator the dataplane uses (evaluateAcls):
 * random ports — Switch and Host ACLs, Pass rules, TierAcl tiers, NetworkACLs, both tie-breaks and
 * both default-deny postures, rules that overlap and tie often — and random packets plus every
 * witness the analysis gives. Each packet must lie in exactly one outcome's set, the one whose
 * rule or default `evaluateAcls` names; a rule called redundant must change no packet's verdict
 * when it is removed (the policies compiled again without it), and one that is not must change
 * the verdict of the witness of `removalChanges`. Rules are HNS JSON through the real parser.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { analyzeAcls, type AclAnalysis, type AclDirectionAnalysis } from '../../src/analysis/acl.js';
import { diffAcls } from '../../src/analysis/diff.js';
import type { AclPacket } from '../../src/analysis/space.js';
import type { JsonObject } from '../../src/core/json.js';
import type { AclOptions } from '../../src/vswitch/acl.js';
import { acl, compileFrom, networkAcl, tierAcl } from '../vswitch/acl-kit.js';
import { HOSTS, PORTS, addressListArb, optional, portListArb, priorityArb } from '../vswitch/acl-arbs.js';
import { runs } from '../runs.js';
import { holders, key, outcomeOf, outcomes, verdictOf } from './acl-oracle.js';

type Dir = 'In' | 'Out';

/** The match fields of a rule (absent fields left out of the JSON). */
/** Now and then an address list with no IPv4 address in it (an IPv6 prefix): it matches nothing. */
const addressesArb = fc.oneof(
  { weight: 8, arbitrary: addressListArb },
  { weight: 1, arbitrary: fc.constant('fd00::/64') },
);

const matchArb = fc
  .record({
    Priority: priorityArb,
    Protocols: optional(fc.constantFrom('6', '17', '1', '256', '6,17', '1,6')),
    LocalAddresses: optional(addressesArb),
    RemoteAddresses: optional(addressesArb),
    LocalPorts: optional(portListArb),
    RemotePorts: optional(portListArb),
  })
  .map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)) as JsonObject);

const ruleArb = fc
  .tuple(
    matchArb,
    fc.constantFrom('Allow', 'Allow', 'Block', 'Block', 'Pass'),
    fc.constantFrom<Dir>('In', 'Out'),
    fc.constantFrom('Switch', 'Switch', 'Host'),
  )
  // (a Host Pass parses: WFP's stage counts it neither as a Block nor as an Allow)
  .map(([m, a, d, t]): JsonObject => ({ ...m, Action: a, Direction: d, RuleType: t }));

const tierArb = fc
  .tuple(
    fc.constantFrom<Dir>('In', 'Out'),
    fc.integer({ min: 1000, max: 1003 }),
    fc.array(fc.tuple(matchArb, fc.constantFrom('Allow', 'Block', 'Pass')), { maxLength: 4 }),
  )
  .map(([d, order, rs]) => ({ d, order, rs }));

interface Port {
  readonly rules: JsonObject[];
  readonly tiers: { d: Dir; order: number; rs: [JsonObject, string][] }[];
  readonly network: JsonObject[];
  readonly opts: AclOptions;
}

const portArb: fc.Arbitrary<Port> = fc.record({
  rules: fc.array(ruleArb, { maxLength: 7 }),
  tiers: fc.array(tierArb, { maxLength: 2 }),
  network: fc.array(ruleArb, { maxLength: 2 }),
  opts: fc.record(
    {
      tieBreak: fc.constantFrom<'Block' | 'Allow'>('Block', 'Allow'),
      defaultDeny: fc.constantFrom<'both' | 'direction'>('both', 'direction'),
    },
    { requiredKeys: [] },
  ),
});

/** The port's policies as JSON, rules named r0, r1, … (network n0, …; tiers t<k>r<j>). */
function policiesOf(p: Port, skip?: string): { endpoint: JsonObject[]; network: JsonObject[] } {
  const endpoint = p.rules
    .map((r, i) => ({ ...r, Id: `r${i}` }))
    .filter((r) => r.Id !== skip)
    .map((r) => acl(r));
  p.tiers.forEach((t, k) =>
    endpoint.push(
      tierAcl({
        Name: `tier${k}`,
        Direction: t.d,
        Order: t.order,
        TierAclRules: t.rs
          .map(([m, a], j) => ({ ...m, Id: `t${k}r${j}`, TierAclRuleAction: a }))
          .filter((r) => r.Id !== skip),
      }),
    ),
  );
  const network = p.network
    .map((r, i) => ({ ...r, Id: `n${i}` }))
    .filter((r) => r.Id !== skip)
    .map((r) => networkAcl(r));
  return { endpoint, network };
}

function compilePort(p: Port, skip?: string) {
  const { endpoint, network } = policiesOf(p, skip);
  return compileFrom(endpoint, { network, opts: p.opts });
}

const ip = (s: string) => s.split('.').reduce((a, x) => a * 256 + Number(x), 0) >>> 0;
const packetArb: fc.Arbitrary<AclPacket> = fc
  .record({
    proto: fc.constantFrom(6, 17, 1, 2),
    localIp: fc.oneof(fc.constantFrom(...HOSTS).map(ip), fc.constantFrom(ip('10.0.0.3'), ip('12.0.0.1'))),
    remoteIp: fc.oneof(fc.constantFrom(...HOSTS).map(ip), fc.constantFrom(ip('10.0.0.3'), ip('12.0.0.1'))),
    localPort: fc.oneof(fc.constantFrom(...PORTS), fc.constantFrom(0, 999, 2001, 65535)),
    remotePort: fc.oneof(fc.constantFrom(...PORTS), fc.constantFrom(0, 999, 2001, 65535)),
  })
  .map((p) => (p.proto === 6 || p.proto === 17 ? p : { ...p, localPort: 0, remotePort: 0 }));

/** Random packets plus a witness of every set the analysis gives for the direction. */
function probes(a: AclAnalysis, d: AclDirectionAnalysis, random: readonly AclPacket[]): AclPacket[] {
  const out = [...random];
  const add = (node: number) => {
    const w = a.space.pick(node);
    if (w) out.push(w);
  };
  for (const r of d.rules) {
    add(r.matches.node);
    add(r.decides.node);
    add(r.removalChanges.node);
  }
  for (const x of d.defaults) add(x.decides.node);
  for (const t of d.ties) add(t.overlap.node);
  return out;
}

describe('ACL analysis against evaluateAcls', () => {
  test.prop([portArb, fc.array(packetArb, { minLength: 10, maxLength: 20 })], { numRuns: runs(120, 1_500) })(
    'every packet lies in exactly one outcome’s set: the rule or default evaluateAcls names; allowed as it allows',
    (port, packets) => {
      const acls = compilePort(port);
      const a = analyzeAcls(acls);
      for (const dir of ['In', 'Out'] as const) {
        const d = a[dir];
        for (const p of probes(a, d, packets)) {
          const v = verdictOf(acls, dir, p);
          expect(holders(a, d, p).map(key), JSON.stringify({ dir, p })).toEqual([key(outcomeOf(v))]);
          expect(d.allowed.has(p)).toBe(v.allowed);
          expect(d.denied.has(p)).toBe(!v.allowed);
          // a flat Allow/Block that decided beside a rule of its priority and the other action
          // matching the packet too: the analysis reports that tie, with the packet in it
          const r = acls[dir].vfp.find((x) => x.ref === v.rule);
          const rival =
            r &&
            acls[dir].vfp.find(
              (o) =>
                o.priority === r.priority &&
                [o.action, r.action].sort().join() === 'Allow,Block' &&
                a.space.has(d.rules.find((x) => x.rule === o.ref)!.matches.node, p),
            );
          if (r && rival)
            expect(
              d.ties.some(
                (t) => t.winner === r.ref && [t.allow, t.block].includes(rival.ref) && t.overlap.has(p),
              ),
              `${JSON.stringify({ dir, p })}: no tie of ${r.ref.rule} and ${rival.ref.rule}`,
            ).toBe(true);
        }
        // the outcomes partition the space: their counts add up to every packet of it
        const total = outcomes(d).reduce((n, o) => n + a.space.count(o.node), 0n);
        expect(total).toBe(a.space.count(a.space.universe));
      }
    },
  );

  test.prop([portArb, fc.array(packetArb, { minLength: 10, maxLength: 20 })], { numRuns: runs(80, 800) })(
    'a redundant rule’s removal changes no verdict; another’s changes the verdict of its removalChanges witness',
    (port, packets) => {
      const acls = compilePort(port);
      const a = analyzeAcls(acls);
      for (const dir of ['In', 'Out'] as const) {
        const d = a[dir];
        const ps = probes(a, d, packets);
        for (const r of d.rules) {
          const id = r.rule.ruleId!;
          const without = compilePort(port, id);
          if (r.redundant) {
            for (const p of ps)
              expect(verdictOf(without, dir, p).allowed, `${id} ${JSON.stringify(p)}`).toBe(
                verdictOf(acls, dir, p).allowed,
              );
            for (const other of ['In', 'Out'] as const)
              for (const p of probes(a, a[other], packets))
                expect(verdictOf(without, other, p).allowed).toBe(verdictOf(acls, other, p).allowed);
          } else if (!r.removalChanges.empty) {
            const w = a.space.pick(r.removalChanges.node)!;
            expect(verdictOf(without, dir, w).allowed, `${id} ${JSON.stringify(w)}`).toBe(
              !verdictOf(acls, dir, w).allowed,
            );
          }
        }
      }
    },
  );

  test.prop([portArb], { numRuns: runs(80, 800) })(
    'removalChanges is exactly where the allowed sets with and without the rule differ (one space for both analyses)',
    (port) => {
      const a = analyzeAcls(compilePort(port));
      const b = a.space.bdd;
      const xor = (x: number, y: number) => b.or(b.diff(x, y), b.diff(y, x));
      for (const dir of ['In', 'Out'] as const) {
        const other = dir === 'In' ? 'Out' : 'In';
        for (const r of a[dir].rules) {
          const w = analyzeAcls(compilePort(port, r.rule.ruleId!), { space: a.space });
          const id = r.rule.ruleId!;
          expect(r.removalChanges.node, id).toBe(xor(a[dir].allowed.node, w[dir].allowed.node));
          // the other direction changes only when the port's only ACL goes (then it allows everything)
          if (r.liftsDefaultDeny) expect(w[other].allowed.node, id).toBe(a.space.universe);
          else expect(w[other].allowed.node, id).toBe(a[other].allowed.node);
          expect(r.redundant, id).toBe(
            r.removalChanges.empty && (!r.liftsDefaultDeny || a[other].allowed.node === a.space.universe),
          );
        }
      }
    },
  );

  test.prop([portArb], { numRuns: runs(80, 800) })(
    'a shadowed rule matches packets, decides none, and the outcomes it names decide all of them',
    (port) => {
      const acls = compilePort(port);
      const a = analyzeAcls(acls);
      const b = a.space.bdd;
      for (const dir of ['In', 'Out'] as const) {
        const d = a[dir];
        const all = outcomes(d);
        for (const r of d.rules) {
          if (r.status !== 'shadowed') {
            expect(r.shadowedBy).toEqual([]);
            continue;
          }
          expect(r.matches.empty).toBe(false);
          expect(r.decides.empty).toBe(true);
          const by = r.shadowedBy.map((o) => all.find((x) => key(x.outcome) === key(o))!.node);
          for (const n of by) expect(b.intersects(n, r.matches.node)).toBe(true);
          expect(b.diff(r.matches.node, b.orAll(by))).toBe(0);
        }
        for (const t of d.ties) {
          // the overlap is where the winner meets packets first: the evaluator names it there
          // (unless the WFP stage has the last word: a Host Block, or no Host Allow)
          expect([t.allow, t.block]).toContain(t.winner);
          const w = a.space.pick(t.overlap.node)!;
          if (acls[dir].wfp.length === 0) expect(verdictOf(acls, dir, w).rule).toBe(t.winner);
        }
      }
    },
  );

  test.prop([portArb, portArb, fc.array(packetArb, { minLength: 10, maxLength: 20 })], {
    numRuns: runs(80, 800),
  })(
    'a diff of two ports: newly allowed / denied exactly where evaluateAcls’ verdicts part, each part by the rule that decides it after',
    (before, after, packets) => {
      const x = compilePort(before);
      const y = compilePort(after);
      const d = diffAcls(x, y);
      let parted = false;
      for (const dir of ['In', 'Out'] as const) {
        const c = d[dir];
        const ps = [...packets];
        for (const set of [c.newlyAllowed, c.newlyDenied]) {
          const w = d.space.pick(set.packets.node);
          if (w) ps.push(w);
          for (const part of set.by) ps.push(d.space.pick(part.packets.node)!);
        }
        for (const p of ps) {
          const [vx, vy] = [verdictOf(x, dir, p), verdictOf(y, dir, p)];
          if (vx.allowed !== vy.allowed) parted = true;
          expect(c.newlyAllowed.packets.has(p), JSON.stringify({ dir, p })).toBe(!vx.allowed && vy.allowed);
          expect(c.newlyDenied.packets.has(p)).toBe(vx.allowed && !vy.allowed);
          const parts = [...c.newlyAllowed.by, ...c.newlyDenied.by].filter((b) => b.packets.has(p));
          expect(parts.map((b) => key(b.outcome))).toEqual(
            vx.allowed === vy.allowed ? [] : [key(outcomeOf(vy))],
          );
        }
      }
      // a packet whose verdict parts means a change; a port against itself has none
      if (parted) expect(d.unchanged).toBe(false);
      const same = diffAcls(x, x);
      expect(same.unchanged).toBe(true);
      expect(
        [same.In, same.Out].every((c) => c.newlyAllowed.packets.empty && c.newlyDenied.packets.empty),
      ).toBe(true);
    },
  );
});
