/**
 * The ACL analysis of one pod's port, with its expected sets written out by hand from the ACL
 * semantics of reference vfp-dataplane.md §2: a lower Priority number wins and the first match
 * decides (§2.2: "block at 500 beats allow-all at 1000", hcsshim#1059), an endpoint with ACLs
 * denies what no rule allows (§2.3), equal priorities with different actions are our choice
 * (AclOptions.tieBreak, Block by default). Every set's witness is traced through the node and the
 * trace names the same rule. A small space (a /30 of peers, a handful of ports) is also checked
 * packet by packet against the evaluator.
 */
import { describe, expect, it } from 'vitest';
import { analyzePort } from '../../src/analysis/port.js';
import type { JsonObject } from '../../src/core/json.js';
import type { Host } from '../../src/host/host.js';
import { createHost } from '../../src/host/host.js';
import { ADAPTER, endpointJson, l2bridgeJson, newHost, ok } from '../dataplane/prop-kit.js';
import { holders, key, outcomeOf, verdictOf } from './acl-oracle.js';

const POD = '10.244.1.2';

function rule(
  Id: string,
  Action: 'Allow' | 'Block',
  Direction: 'In' | 'Out',
  Priority: number,
  more: JsonObject = {},
) {
  return { Type: 'ACL', Settings: { Id, Action, Direction, Priority, RuleType: 'Switch', ...more } };
}

/** A node with one L2Bridge network and the pod `web` carrying `policies`. */
function node(policies: readonly JsonObject[]): { host: Host; id: string } {
  const host = newHost(7);
  const net = ok(host.api.HcnCreateNetwork(null, l2bridgeJson()), 'HcnCreateNetwork');
  const ep = ok(
    host.api.HcnCreateEndpoint(net.ID, null, endpointJson(net.ID, 'web', { ip: POD, policies })),
    'HcnCreateEndpoint',
  );
  return { host, id: ep.ID };
}

/** A NetworkPolicy-like port: allow-all both ways, a block of the web port, its exceptions. */
const WEB = [
  rule('allow-all-in', 'Allow', 'In', 1000),
  rule('allow-all-out', 'Allow', 'Out', 1000),
  rule('block-web', 'Block', 'In', 500, {
    Protocols: '6',
    LocalPorts: '80',
    RemoteAddresses: '10.244.0.0/16',
  }),
  rule('allow-probe', 'Allow', 'In', 400, {
    Protocols: '6',
    LocalPorts: '80',
    RemoteAddresses: '10.244.3.7',
  }),
  rule('allow-sub', 'Allow', 'In', 600, {
    Protocols: '6',
    LocalPorts: '80',
    RemoteAddresses: '10.244.2.0/24',
  }),
  rule('allow-dns', 'Allow', 'Out', 900, { Protocols: '17', RemotePorts: '53' }),
  rule('tie-allow', 'Allow', 'In', 700, { Protocols: '6', LocalPorts: '443' }),
  rule('tie-block', 'Block', 'In', 700, {
    Protocols: '6',
    LocalPorts: '443-444',
    RemoteAddresses: '192.168.0.0/16',
  }),
];

describe('a pod port with a NetworkPolicy-like ACL set', () => {
  const { host, id } = node(WEB);
  const a = analyzePort(host, 'web');
  const byId = (dir: 'In' | 'Out', ruleId: string) => a[dir].rules.find((r) => r.rule.ruleId === ruleId)!;

  it('is the port of web (10.244.1.2), found by name as by ID', () => {
    expect(a.endpoint).toEqual({ id, name: 'web', ip: POD });
    expect(analyzePort(host, id).In.rules.length).toBe(a.In.rules.length);
  });

  it('block-web decides TCP 80 from 10.244.0.0/16 except the probe (allow-probe at 400 beats it)', () => {
    const r = byId('In', 'block-web');
    expect(r.status).toBe('decides');
    expect(r.decides.describe()).toEqual(['TCP to 10.244.1.2 port 80 from 10.244.0.0/16 except 10.244.3.7']);
    // 2^16 - 1 peers, any of their 2^16 ports
    expect(r.decides.count).toBe(65535n * 65536n);
    expect(byId('In', 'allow-probe').decides.describe()).toEqual([
      'TCP to 10.244.1.2 port 80 from 10.244.3.7',
    ]);
    expect(byId('In', 'allow-probe').decides.count).toBe(65536n);
  });

  it('allow-sub (600) is shadowed by block-web (500) alone, and redundant', () => {
    const r = byId('In', 'allow-sub');
    expect(r.status).toBe('shadowed');
    expect(r.decides.empty).toBe(true);
    expect(r.shadowedBy).toEqual([{ kind: 'rule', rule: byId('In', 'block-web').rule, stage: 'VFP' }]);
    expect(r.redundant).toBe(true);
  });

  it('allow-dns decides UDP to port 53 but is redundant: allow-all-out (1000) allows the same', () => {
    const r = byId('Out', 'allow-dns');
    expect(r.status).toBe('decides');
    expect(r.decides.describe()).toEqual(['UDP to port 53 from 10.244.1.2']);
    expect(r.redundant).toBe(true);
    // the allow-alls are not: without them their packets meet the default deny (§2.3)
    expect(byId('Out', 'allow-all-out').redundant).toBe(false);
    expect(byId('In', 'allow-all-in').redundant).toBe(false);
    expect(byId('In', 'block-web').redundant).toBe(false);
  });

  it('tie-allow and tie-block share priority 700 on TCP 443 from 192.168.0.0/16: Block wins there', () => {
    expect(a.In.ties.map((t) => ({ ...t, overlap: t.overlap.describe() }))).toEqual([
      {
        priority: 700,
        allow: byId('In', 'tie-allow').rule,
        block: byId('In', 'tie-block').rule,
        overlap: ['TCP to 10.244.1.2 port 443 from 192.168.0.0/16'],
        winner: byId('In', 'tie-block').rule,
      },
    ]);
    expect(byId('In', 'tie-allow').decides.describe()).toEqual([
      'TCP to 10.244.1.2 port 443 from any except 192.168.0.0/16',
    ]);
    expect(byId('In', 'tie-block').decides.describe()).toEqual([
      'TCP to 10.244.1.2 port 443-444 from 192.168.0.0/16',
    ]);
  });

  it('no packet is left to a default: the allow-alls take the rest', () => {
    expect(a.In.defaults).toEqual([]);
    expect(a.Out.defaults).toEqual([]);
    expect(a.Out.denied.empty).toBe(true);
  });

  it('every witness, traced through the node, meets the rule the analysis names', () => {
    const traced: string[] = [];
    for (const dir of ['In', 'Out'] as const)
      for (const r of a[dir].rules) {
        const w = r.decides.witness();
        if (!w) continue;
        traced.push(r.rule.ruleId!);
        const t = host.trace({
          from: w.srcIp,
          to: w.dstIp,
          protocol: w.protocol,
          sourcePort: w.srcPort,
          destinationPort: w.dstPort,
        });
        const acl = t.observations.find((o) => o.component === 'ACL');
        expect(acl?.rule?.ruleId, `${r.rule.ruleId}: ${JSON.stringify(w)}`).toBe(r.rule.ruleId);
        expect(acl?.action).toBe(r.action === 'Allow' ? 'Allowed' : 'Denied');
      }
    // every rule but the shadowed allow-sub has a witness
    expect(traced.sort()).toEqual(
      [
        'allow-all-in',
        'allow-all-out',
        'allow-dns',
        'allow-probe',
        'block-web',
        'tie-allow',
        'tie-block',
      ].sort(),
    );
  });
});

describe('a port with only a Block rule (Windows-Containers#616: default-deny for everything else)', () => {
  const { host } = node([rule('block-ssh', 'Block', 'In', 500, { Protocols: '6', LocalPorts: '22' })]);
  const a = analyzePort(host, 'web');

  it('the rule decides TCP 22; the VFP default denies the rest of In and all of Out', () => {
    expect(a.In.rules[0]!.decides.describe()).toEqual(['TCP to 10.244.1.2 port 22']);
    expect(a.In.defaults.map((d) => d.outcome)).toEqual([{ kind: 'default-deny', stage: 'VFP' }]);
    expect(a.In.allowed.empty).toBe(true);
    expect(a.Out.allowed.empty).toBe(true);
    expect(a.Out.defaults.map((d) => d.outcome)).toEqual([{ kind: 'default-deny', stage: 'VFP' }]);
  });

  it('it is redundant in its direction, but it is the only ACL: removing it lifts the default deny', () => {
    expect(a.In.rules[0]!.redundant).toBe(false);
    expect(a.In.rules[0]!.removalChanges.describe()).toEqual(['any protocol to 10.244.1.2']);
  });
});

describe('a small space, packet by packet', () => {
  // peers 10.0.0.0/30 and one outside it, ports 79-81 and two outside, four protocols
  const { host } = node([
    rule('a', 'Allow', 'In', 300, { Protocols: '6', LocalPorts: '80', RemoteAddresses: '10.0.0.0/31' }),
    rule('b', 'Block', 'In', 300, { Protocols: '6', LocalPorts: '79-80', RemoteAddresses: '10.0.0.1' }),
    rule('c', 'Allow', 'In', 400, { RemoteAddresses: '10.0.0.0/30' }),
    rule('d', 'Block', 'In', 200, { Protocols: '17', RemotePorts: '81' }),
    rule('e', 'Allow', 'Out', 300, { Protocols: '1' }),
    {
      Type: 'ACL',
      Settings: { Id: 'h', Action: 'Block', Direction: 'In', RuleType: 'Host', RemoteAddresses: '10.0.0.3' },
    },
    {
      Type: 'ACL',
      Settings: { Id: 'g', Action: 'Allow', Direction: 'In', RuleType: 'Host', Protocols: '6' },
    },
  ]);
  const a = analyzePort(host, 'web');
  const port = host.dataplane.view().portByRef.get('web')!;
  const acls = port.acls();

  it('every packet lies in the one outcome evaluateAcls names, and is allowed as it allows', () => {
    const peers = ['10.0.0.0', '10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4'].map((s) =>
      s.split('.').reduce((x, o) => x * 256 + Number(o), 0),
    );
    let checked = 0;
    for (const dir of ['In', 'Out'] as const)
      for (const proto of [1, 2, 6, 17])
        for (const remoteIp of peers)
          for (const localPort of proto === 6 || proto === 17 ? [0, 79, 80, 81, 65535] : [0])
            for (const remotePort of proto === 6 || proto === 17 ? [0, 79, 80, 81, 65535] : [0]) {
              const p = { proto, localIp: port.ip, localPort, remoteIp, remotePort };
              const v = verdictOf(acls, dir, p);
              expect(holders(a, a[dir], p).map(key)).toEqual([key(outcomeOf(v))]);
              expect(a[dir].allowed.has(p)).toBe(v.allowed);
              checked++;
            }
    expect(checked).toBe(2 * 5 * (2 + 2 * 25));
  });

  it('the sets, written out', () => {
    const d = (ruleId: string) => a.In.rules.find((r) => r.rule.ruleId === ruleId)!;
    // b (Block, 300) beats a (Allow, 300) where both match: the tie-break (Block)
    expect(d('b').decides.describe()).toEqual(['TCP to 10.244.1.2 port 79-80 from 10.0.0.1']);
    expect(d('a').decides.describe()).toEqual(['TCP to 10.244.1.2 port 80 from 10.0.0.0']);
    // WFP: h blocks 10.0.0.3 whatever VFP allowed; g names the verdict nowhere (VFP rules allowed)
    expect(d('h').decides.describe()).toEqual([
      'any protocol except UDP to 10.244.1.2 from 10.0.0.3',
      'UDP to 10.244.1.2 from 10.0.0.3 port 0-80, 82-65535',
    ]);
    // g names no verdict (the VFP rule that allowed does) but it is what lets TCP through WFP
    // (WFP denies what no Host rule allows once there are Host rules): removing it denies those
    expect(d('g').status).toBe('permits');
    expect(d('g').removalChanges.describe()).toEqual([
      'TCP to 10.244.1.2 port 0-78, 81-65535 from 10.0.0.0/31, 10.0.0.2',
      'TCP to 10.244.1.2 port 79-80 from 10.0.0.0, 10.0.0.2',
    ]);
    // without h, TCP from 10.0.0.3 gets through (g allows it); the rest from there stays denied
    expect(d('h').removalChanges.describe()).toEqual(['TCP to 10.244.1.2 from 10.0.0.3']);
  });
});

describe('statuses and ties, written out', () => {
  it('matches-nothing: a local address that is not the endpoint’s, ports on ICMP, an IPv6-only list', () => {
    const { host } = node([
      rule('other-pod', 'Allow', 'In', 100, { LocalAddresses: '10.244.1.99' }),
      rule('icmp-port', 'Allow', 'In', 110, { Protocols: '1', LocalPorts: '80' }),
      rule('v6-only', 'Allow', 'In', 120, { RemoteAddresses: 'fd00::/64' }),
      rule('rest', 'Allow', 'In', 1000),
    ]);
    const a = analyzePort(host, 'web');
    expect(a.In.rules.map((r) => [r.rule.ruleId, r.status, r.redundant])).toEqual([
      ['other-pod', 'matches-nothing', true],
      ['icmp-port', 'matches-nothing', true],
      ['v6-only', 'matches-nothing', true],
      ['rest', 'decides', false],
    ]);
  });

  it('with tieBreak Allow the Allow of a tie wins it, and decides the overlap', () => {
    const host = createHost({
      seed: 7,
      adapters: [{ ...ADAPTER }],
      dataplane: { acl: { tieBreak: 'Allow' } },
    });
    const net = ok(host.api.HcnCreateNetwork(null, l2bridgeJson()), 'HcnCreateNetwork');
    ok(
      host.api.HcnCreateEndpoint(
        net.ID,
        null,
        endpointJson(net.ID, 'web', {
          ip: POD,
          policies: [
            rule('tie-allow', 'Allow', 'In', 700, { Protocols: '6', LocalPorts: '443' }),
            rule('tie-block', 'Block', 'In', 700, { Protocols: '6', LocalPorts: '443-444' }),
          ],
        }),
      ),
      'HcnCreateEndpoint',
    );
    const a = analyzePort(host, 'web');
    const [allow, block] = a.In.rules;
    expect(a.In.ties.map((t) => [t.winner, t.overlap.describe()])).toEqual([
      [allow!.rule, ['TCP to 10.244.1.2 port 443']],
    ]);
    expect(allow!.decides.describe()).toEqual(['TCP to 10.244.1.2 port 443']);
    expect(block!.decides.describe()).toEqual(['TCP to 10.244.1.2 port 444']);
  });

  it('tiers: a Pass hands its packets to the next tier; a Pass no packet reaches is shadowed', () => {
    const tier = (Name: string, Order: number, TierAclRules: JsonObject[]) => ({
      Type: 'TierAcl',
      Settings: { Name, Direction: 'In', Order, TierAclRules },
    });
    const { host } = node([
      tier('admin', 1001, [
        { Id: 'pass-web', TierAclRuleAction: 'Pass', Protocols: '6', LocalPorts: '80', Priority: 100 },
        { Id: 'block-rest', TierAclRuleAction: 'Block', Priority: 200 },
      ]),
      tier('dev', 1002, [
        { Id: 'late-pass', TierAclRuleAction: 'Pass', Protocols: '17', Priority: 100 },
        {
          Id: 'allow-web',
          TierAclRuleAction: 'Allow',
          Protocols: '6',
          LocalPorts: '80',
          RemoteAddresses: '10.244.0.0/16',
          Priority: 200,
        },
      ]),
    ]);
    const a = analyzePort(host, 'web');
    const r = (id: string) => a.In.rules.find((x) => x.rule.ruleId === id)!;
    expect(r('pass-web').status).toBe('pass');
    expect(r('pass-web').passes!.describe()).toEqual(['TCP to 10.244.1.2 port 80']);
    // UDP never reaches tier dev: admin's block-rest takes it
    expect(r('late-pass').status).toBe('shadowed');
    expect(r('late-pass').shadowedBy.map((o) => (o.kind === 'rule' ? o.rule.ruleId : o.kind))).toEqual([
      'block-rest',
    ]);
    expect(r('allow-web').decides.describe()).toEqual(['TCP to 10.244.1.2 port 80 from 10.244.0.0/16']);
    // what tier dev does not allow of what admin passed falls to the default deny
    expect(a.In.defaults.map((d) => [d.outcome.kind, d.decides.describe()])).toEqual([
      ['default-deny', ['TCP to 10.244.1.2 port 80 from any except 10.244.0.0/16']],
    ]);
  });
});
