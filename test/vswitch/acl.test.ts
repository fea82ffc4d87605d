/**
 * Vectors for the endpoint ACL layers (src/vswitch/acl.ts), each from reference vfp-dataplane.md
 * §2 and the issue or code it cites. Every policy is real HNS JSON parsed by the real parser
 * (acl-kit.ts); every check asserts the verdict, what decided it (`by`) and the deciding rule's
 * Id and priority (none for a default verdict).
 */
import { describe, expect, it } from 'vitest';
import { ICMP, TCP, UDP } from '../../src/vswitch/contracts.js';
import { acl, compileFrom, judge, NETWORK_ID, networkAcl, shape, tierAcl } from './acl-kit.js';

const POD = '10.244.1.5';
const HOST = '10.0.0.4';
const GRE = 47;

describe('no ACL at all', () => {
  it('allows everything in both directions (§2.3, MSdocs-net network-isolation-security)', () => {
    const acls = compileFrom([{ Type: 'OutBoundNAT', Settings: {} }]);
    expect(acls.any).toBe(false);
    expect(shape(judge(acls, 'In', TCP, '10.9.9.9:1234', `${POD}:80`))).toEqual({
      allowed: true,
      by: 'default-allow',
    });
    expect(shape(judge(acls, 'Out', ICMP, POD, '8.8.8.8'))).toEqual({ allowed: true, by: 'default-allow' });
  });
});

describe('hcsshim#1059: Block @500 beats Allow-all @1000', () => {
  // The Microsoft answer in microsoft/hcsshim#1059, v1 ACLPolicy fields as written there (numeric
  // `Protocol`, 256 = all protocols): block 10.0.0.92 → 10.0.0.25 TCP Out at 500, allow-all In and
  // Out at 1000. The endpoint is 10.0.0.92.
  const EP = '10.0.0.92';
  const block = acl({
    Id: 'block-10.0.0.25',
    Action: 'Block',
    Direction: 'Out',
    LocalAddresses: '10.0.0.92',
    RemoteAddresses: '10.0.0.25',
    Protocol: 6,
    RuleType: 'Switch',
    Priority: 500,
  });
  const allowAll = (Direction: 'In' | 'Out') =>
    acl({
      Id: `allow-all-${Direction}`,
      Action: 'Allow',
      Direction,
      Protocol: 256,
      RuleType: 'Switch',
      Priority: 1000,
    });

  it('the Block alone blocks its target and, default-deny, everything else (the "completely blocked" report)', () => {
    const acls = compileFrom([block]);
    expect(shape(judge(acls, 'Out', TCP, `${EP}:50000`, '10.0.0.25:80'))).toEqual({
      allowed: false,
      by: 'rule',
      ruleId: 'block-10.0.0.25',
      priority: 500,
    });
    expect(shape(judge(acls, 'Out', TCP, `${EP}:50000`, '10.0.0.26:80'))).toEqual({
      allowed: false,
      by: 'default-deny',
    });
    expect(shape(judge(acls, 'In', TCP, '10.0.0.25:50000', `${EP}:80`))).toEqual({
      allowed: false,
      by: 'default-deny',
    });
  });

  it('with allow-all In and Out @1000 added, the Block still wins for TCP to 10.0.0.25 and the rest flows', () => {
    const acls = compileFrom([block, allowAll('In'), allowAll('Out')]);
    expect(shape(judge(acls, 'Out', TCP, `${EP}:50000`, '10.0.0.25:80'))).toEqual({
      allowed: false,
      by: 'rule',
      ruleId: 'block-10.0.0.25',
      priority: 500,
    });
    // the Block is TCP only
    expect(shape(judge(acls, 'Out', UDP, `${EP}:50000`, '10.0.0.25:53'))).toEqual({
      allowed: true,
      by: 'rule',
      ruleId: 'allow-all-Out',
      priority: 1000,
    });
    expect(shape(judge(acls, 'Out', TCP, `${EP}:50000`, '10.0.0.26:80'))).toEqual({
      allowed: true,
      by: 'rule',
      ruleId: 'allow-all-Out',
      priority: 1000,
    });
    // the Block is Out only: 10.0.0.25 may still connect in
    expect(shape(judge(acls, 'In', TCP, '10.0.0.25:50000', `${EP}:80`))).toEqual({
      allowed: true,
      by: 'rule',
      ruleId: 'allow-all-In',
      priority: 1000,
    });
  });

  it('the order of the policies does not matter, only Priority', () => {
    const acls = compileFrom([allowAll('Out'), allowAll('In'), block]);
    expect(shape(judge(acls, 'Out', TCP, `${EP}:50000`, '10.0.0.25:80'))).toEqual({
      allowed: false,
      by: 'rule',
      ruleId: 'block-10.0.0.25',
      priority: 500,
    });
  });

  it('an Out allow-all alone leaves In default-denied (why the answer adds both)', () => {
    const acls = compileFrom([block, allowAll('Out')]);
    expect(shape(judge(acls, 'In', TCP, '10.0.0.26:50000', `${EP}:80`))).toEqual({
      allowed: false,
      by: 'default-deny',
    });
  });
});

describe('Windows-Containers#616: a lone Block rule denies everything else', () => {
  // microsoft/Windows-Containers#616 (WS2025, Microsoft staff, "by design"): "When any ACL policy is
  // applied on an HNS endpoint, HNS switches the endpoint to a default-deny posture … a lone Block
  // rule effectively results in block the target + deny everything else". The reference (§2.3, ACN
  // PR #1752) models the posture in both directions; `defaultDeny: 'direction'` is the option.
  const lone = acl({
    Id: 'block-dest',
    Action: 'Block',
    Direction: 'Out',
    Protocols: '256',
    RemoteAddresses: '10.1.0.10',
    RuleType: 'Switch',
    Priority: 100,
  });

  it('default option: the target is blocked by the rule, other Out and all In traffic by default-deny', () => {
    const acls = compileFrom([lone]);
    expect(acls.defaultDenyIn).toBe(true);
    expect(acls.defaultDenyOut).toBe(true);
    expect(shape(judge(acls, 'Out', TCP, `${POD}:50000`, '10.1.0.10:443'))).toEqual({
      allowed: false,
      by: 'rule',
      ruleId: 'block-dest',
      priority: 100,
    });
    expect(shape(judge(acls, 'Out', TCP, `${POD}:50000`, '10.1.0.11:443'))).toEqual({
      allowed: false,
      by: 'default-deny',
    });
    expect(shape(judge(acls, 'In', TCP, '10.1.0.11:50000', `${POD}:80`))).toEqual({
      allowed: false,
      by: 'default-deny',
    });
  });

  it("defaultDeny 'direction': only Out (the direction with a rule) is default-denied; In is allowed", () => {
    const acls = compileFrom([lone], { opts: { defaultDeny: 'direction' } });
    expect(acls.defaultDenyIn).toBe(false);
    expect(acls.defaultDenyOut).toBe(true);
    expect(shape(judge(acls, 'Out', TCP, `${POD}:50000`, '10.1.0.10:443'))).toEqual({
      allowed: false,
      by: 'rule',
      ruleId: 'block-dest',
      priority: 100,
    });
    expect(shape(judge(acls, 'Out', TCP, `${POD}:50000`, '10.1.0.11:443'))).toEqual({
      allowed: false,
      by: 'default-deny',
    });
    expect(shape(judge(acls, 'In', TCP, '10.1.0.11:50000', `${POD}:80`))).toEqual({
      allowed: true,
      by: 'default-allow',
    });
  });

  it('the workaround (an Allow-all Out at a higher Priority number) restores the other Out traffic', () => {
    const acls = compileFrom([
      lone,
      acl({ Id: 'allow-out', Action: 'Allow', Direction: 'Out', RuleType: 'Switch', Priority: 200 }),
    ]);
    expect(shape(judge(acls, 'Out', TCP, `${POD}:50000`, '10.1.0.10:443'))).toEqual({
      allowed: false,
      by: 'rule',
      ruleId: 'block-dest',
      priority: 100,
    });
    expect(shape(judge(acls, 'Out', UDP, `${POD}:50000`, '10.1.0.11:53'))).toEqual({
      allowed: true,
      by: 'rule',
      ruleId: 'allow-out',
      priority: 200,
    });
  });
});

describe('Calico: CNI default deny + Felix allow-host-to-endpoint', () => {
  // calico-cni (cni-plugin/pkg/dataplane/windows/dataplane_windows.go): `Block In`, protocol 256,
  // Switch, 65500, Id CNIDefaultDenyAllPolicy. felix-win: allow-host-to-endpoint In, RemoteAddresses
  // = host IPs /32, priority 900 (§2.4).
  const cniDefaultDeny = acl({
    Id: 'CNIDefaultDenyAllPolicy',
    Action: 'Block',
    Direction: 'In',
    Protocols: '256',
    RuleType: 'Switch',
    Priority: 65500,
  });
  const allowHost = acl({
    Id: 'allow-host-to-endpoint',
    Action: 'Allow',
    Direction: 'In',
    Protocols: '256',
    RemoteAddresses: `${HOST}/32`,
    RuleType: 'Switch',
    Priority: 900,
  });

  it('the CNI rule alone: every In packet is blocked by it; Out falls to default-deny', () => {
    const acls = compileFrom([cniDefaultDeny]);
    expect(shape(judge(acls, 'In', TCP, `${HOST}:50000`, `${POD}:8080`))).toEqual({
      allowed: false,
      by: 'rule',
      ruleId: 'CNIDefaultDenyAllPolicy',
      priority: 65500,
    });
    expect(shape(judge(acls, 'Out', UDP, `${POD}:50000`, '10.96.0.10:53'))).toEqual({
      allowed: false,
      by: 'default-deny',
    });
  });

  it('with allow-host-to-endpoint @900: the host gets in (any protocol), other sources hit the 65500 Block', () => {
    const acls = compileFrom([cniDefaultDeny, allowHost]);
    for (const proto of [TCP, UDP, ICMP]) {
      expect(shape(judge(acls, 'In', proto, `${HOST}:50000`, `${POD}:8080`))).toEqual({
        allowed: true,
        by: 'rule',
        ruleId: 'allow-host-to-endpoint',
        priority: 900,
      });
    }
    expect(shape(judge(acls, 'In', TCP, '10.244.2.7:50000', `${POD}:8080`))).toEqual({
      allowed: false,
      by: 'rule',
      ruleId: 'CNIDefaultDenyAllPolicy',
      priority: 65500,
    });
    // a /32: the host's neighbour is not the host
    expect(shape(judge(acls, 'In', TCP, '10.0.0.5:50000', `${POD}:8080`))).toEqual({
      allowed: false,
      by: 'rule',
      ruleId: 'CNIDefaultDenyAllPolicy',
      priority: 65500,
    });
  });

  it('Out with only these two In rules is denied: default-deny covers both directions (§2.3, ACN PR #1752)', () => {
    // §2.3: Calico-CNI endpoints with only `Block In 65500` needed NPM's base allow-out @65499 for
    // connectivity, so the reference models default-deny in both directions; no rule decides.
    const acls = compileFrom([cniDefaultDeny, allowHost]);
    expect(shape(judge(acls, 'Out', TCP, `${POD}:50000`, `${HOST}:443`))).toEqual({
      allowed: false,
      by: 'default-deny',
    });
    // with the per-direction option Out has no rule, so it is allowed
    const perDirection = compileFrom([cniDefaultDeny, allowHost], { opts: { defaultDeny: 'direction' } });
    expect(shape(judge(perDirection, 'Out', TCP, `${POD}:50000`, `${HOST}:443`))).toEqual({
      allowed: true,
      by: 'default-allow',
    });
  });
});

describe('Azure NPM priority bands', () => {
  // npm-win (policy_windows.go / policymanager_windows.go, §2.4): policy allows @222, policy blocks
  // @3000 (so allows win), node-IP ingress allow @201, and on top of Calico-CNI endpoints a base of
  // wireserver block Out @200, allow In/Out Switch @65499 and allow In/Out Host @0 (NPM sends an
  // empty Protocols for any).
  const base = [
    acl({
      Id: 'CNIDefaultDenyAllPolicy',
      Action: 'Block',
      Direction: 'In',
      Protocols: '256',
      RuleType: 'Switch',
      Priority: 65500,
    }),
    acl({
      Id: 'base-allow-in',
      Action: 'Allow',
      Direction: 'In',
      Protocols: '',
      RuleType: 'Switch',
      Priority: 65499,
    }),
    acl({
      Id: 'base-allow-out',
      Action: 'Allow',
      Direction: 'Out',
      Protocols: '',
      RuleType: 'Switch',
      Priority: 65499,
    }),
    acl({ Id: 'host-allow-in', Action: 'Allow', Direction: 'In', RuleType: 'Host', Priority: 0 }),
    acl({ Id: 'host-allow-out', Action: 'Allow', Direction: 'Out', RuleType: 'Host', Priority: 0 }),
    acl({
      Id: 'block-wireserver',
      Action: 'Block',
      Direction: 'Out',
      Protocols: '6',
      RemoteAddresses: '168.63.129.16',
      RemotePorts: '80',
      RuleType: 'Switch',
      Priority: 200,
    }),
  ];

  it('base allow @65499 beats the Calico CNI Block @65500 (ACN PR #1752)', () => {
    const acls = compileFrom(base);
    // allowed by VFP's base allow, then by WFP's Host allow @0; the Switch rule is the one named
    expect(shape(judge(acls, 'In', TCP, '10.244.2.7:50000', `${POD}:8080`))).toEqual({
      allowed: true,
      by: 'rule',
      ruleId: 'base-allow-in',
      priority: 65499,
    });
    expect(shape(judge(acls, 'Out', UDP, `${POD}:50000`, '10.96.0.10:53'))).toEqual({
      allowed: true,
      by: 'rule',
      ruleId: 'base-allow-out',
      priority: 65499,
    });
    expect(shape(judge(acls, 'Out', TCP, `${POD}:50000`, '168.63.129.16:80'), true)).toEqual({
      allowed: false,
      by: 'rule',
      ruleId: 'block-wireserver',
      priority: 200,
      stage: 'VFP',
    });
    // only TCP 80 to the wireserver is blocked
    expect(shape(judge(acls, 'Out', UDP, `${POD}:50000`, '168.63.129.16:53'))).toEqual({
      allowed: true,
      by: 'rule',
      ruleId: 'base-allow-out',
      priority: 65499,
    });
  });

  it('a selected pod: allow @222 beats block @3000; node IP allowed @201; others blocked @3000', () => {
    const acls = compileFrom([
      ...base,
      acl({
        Id: 'azure-npm-allow-web',
        Action: 'Allow',
        Direction: 'In',
        Protocols: '6',
        RemoteAddresses: '10.244.3.0/24',
        LocalPorts: '80',
        RuleType: 'Switch',
        Priority: 222,
      }),
      acl({
        Id: 'azure-npm-default-deny-in',
        Action: 'Block',
        Direction: 'In',
        RuleType: 'Switch',
        Priority: 3000,
      }),
      acl({
        Id: 'azure-npm-allow-node',
        Action: 'Allow',
        Direction: 'In',
        RemoteAddresses: HOST,
        RuleType: 'Switch',
        Priority: 201,
      }),
    ]);
    expect(shape(judge(acls, 'In', TCP, '10.244.3.7:50000', `${POD}:80`))).toEqual({
      allowed: true,
      by: 'rule',
      ruleId: 'azure-npm-allow-web',
      priority: 222,
    });
    expect(shape(judge(acls, 'In', TCP, '10.244.3.7:50000', `${POD}:81`))).toEqual({
      allowed: false,
      by: 'rule',
      ruleId: 'azure-npm-default-deny-in',
      priority: 3000,
    });
    expect(shape(judge(acls, 'In', TCP, '10.244.4.7:50000', `${POD}:80`))).toEqual({
      allowed: false,
      by: 'rule',
      ruleId: 'azure-npm-default-deny-in',
      priority: 3000,
    });
    // readiness probes from the node
    expect(shape(judge(acls, 'In', TCP, `${HOST}:50000`, `${POD}:8080`))).toEqual({
      allowed: true,
      by: 'rule',
      ruleId: 'azure-npm-allow-node',
      priority: 201,
    });
    // Out is not selected: base allow
    expect(shape(judge(acls, 'Out', TCP, `${POD}:50000`, '10.244.4.7:80'))).toEqual({
      allowed: true,
      by: 'rule',
      ruleId: 'base-allow-out',
      priority: 65499,
    });
  });
});

describe('Local = endpoint side, Remote = peer, in both directions (§2.1, felix-win)', () => {
  it('an Out rule with RemotePorts 53 matches a packet to port 53, not one from port 53', () => {
    const acls = compileFrom([
      acl({
        Id: 'dns-out',
        Action: 'Allow',
        Direction: 'Out',
        Protocols: '17',
        RemotePorts: '53',
        RuleType: 'Switch',
        Priority: 100,
      }),
      acl({ Id: 'block-out', Action: 'Block', Direction: 'Out', RuleType: 'Switch', Priority: 200 }),
    ]);
    expect(shape(judge(acls, 'Out', UDP, `${POD}:50000`, '10.96.0.10:53'))).toEqual({
      allowed: true,
      by: 'rule',
      ruleId: 'dns-out',
      priority: 100,
    });
    expect(shape(judge(acls, 'Out', UDP, `${POD}:53`, '10.96.0.10:50000'))).toEqual({
      allowed: false,
      by: 'rule',
      ruleId: 'block-out',
      priority: 200,
    });
  });

  it('an In rule: LocalPorts/LocalAddresses are the endpoint (destination), RemoteAddresses the source', () => {
    const acls = compileFrom([
      acl({
        Id: 'web-in',
        Action: 'Allow',
        Direction: 'In',
        Protocols: '6',
        LocalAddresses: `${POD}/32`,
        LocalPorts: '80',
        RemoteAddresses: '10.0.0.0/24',
        RuleType: 'Switch',
        Priority: 100,
      }),
    ]);
    expect(shape(judge(acls, 'In', TCP, '10.0.0.7:40000', `${POD}:80`))).toEqual({
      allowed: true,
      by: 'rule',
      ruleId: 'web-in',
      priority: 100,
    });
    // source port 80 is a RemotePort, not a LocalPort
    expect(shape(judge(acls, 'In', TCP, '10.0.0.7:80', `${POD}:40000`))).toEqual({
      allowed: false,
      by: 'default-deny',
    });
    // the source outside RemoteAddresses
    expect(shape(judge(acls, 'In', TCP, '10.0.1.7:40000', `${POD}:80`))).toEqual({
      allowed: false,
      by: 'default-deny',
    });
    // a packet whose source is in LocalAddresses but destination is not: Local is the destination
    expect(shape(judge(acls, 'In', TCP, `${POD}:40000`, '10.0.0.7:80'))).toEqual({
      allowed: false,
      by: 'default-deny',
    });
  });

  it('an Out rule: LocalAddresses is the endpoint (source), RemoteAddresses the destination', () => {
    const acls = compileFrom([
      acl({
        Id: 'to-infra',
        Action: 'Allow',
        Direction: 'Out',
        LocalAddresses: POD,
        RemoteAddresses: '10.0.0.0/24',
        RuleType: 'Switch',
        Priority: 100,
      }),
    ]);
    expect(shape(judge(acls, 'Out', TCP, `${POD}:40000`, '10.0.0.7:443'))).toEqual({
      allowed: true,
      by: 'rule',
      ruleId: 'to-infra',
      priority: 100,
    });
    expect(shape(judge(acls, 'Out', TCP, `10.0.0.7:40000`, `${POD}:443`))).toEqual({
      allowed: false,
      by: 'default-deny',
    });
  });
});

describe('ports and protocols (§2.1)', () => {
  // felix-win protoPortToHCSPort: "80", "1000-2000", "80,8080,1000-2000"
  const acls = compileFrom([
    acl({
      Id: 'ports',
      Action: 'Allow',
      Direction: 'In',
      Protocols: '6',
      LocalPorts: '80,8080,1000-2000',
      RuleType: 'Switch',
      Priority: 100,
    }),
  ]);

  it.each([80, 8080, 1000, 1500, 2000])('LocalPorts 80,8080,1000-2000 matches %i', (port) => {
    expect(shape(judge(acls, 'In', TCP, '10.0.0.7:40000', `${POD}:${port}`))).toEqual({
      allowed: true,
      by: 'rule',
      ruleId: 'ports',
      priority: 100,
    });
  });

  it.each([79, 81, 999, 2001, 8079, 8081])('LocalPorts 80,8080,1000-2000 does not match %i', (port) => {
    expect(shape(judge(acls, 'In', TCP, '10.0.0.7:40000', `${POD}:${port}`))).toEqual({
      allowed: false,
      by: 'default-deny',
    });
  });

  it('Protocols 256 (and an omitted Protocols) = any protocol; a list matches only its members', () => {
    const any256 = compileFrom([
      acl({
        Id: 'any',
        Action: 'Allow',
        Direction: 'In',
        Protocols: '256',
        RuleType: 'Switch',
        Priority: 100,
      }),
    ]);
    const omitted = compileFrom([
      acl({ Id: 'any', Action: 'Allow', Direction: 'In', RuleType: 'Switch', Priority: 100 }),
    ]);
    for (const a of [any256, omitted]) {
      for (const proto of [TCP, UDP, ICMP, GRE]) {
        expect(shape(judge(a, 'In', proto, '10.0.0.7:1', `${POD}:2`))).toEqual({
          allowed: true,
          by: 'rule',
          ruleId: 'any',
          priority: 100,
        });
      }
    }
    const tcpUdp = compileFrom([
      acl({
        Id: 'tcp-udp',
        Action: 'Allow',
        Direction: 'In',
        Protocols: '6,17',
        RuleType: 'Switch',
        Priority: 100,
      }),
    ]);
    expect(shape(judge(tcpUdp, 'In', UDP, '10.0.0.7:1', `${POD}:2`))).toEqual({
      allowed: true,
      by: 'rule',
      ruleId: 'tcp-udp',
      priority: 100,
    });
    expect(shape(judge(tcpUdp, 'In', ICMP, '10.0.0.7', POD))).toEqual({ allowed: false, by: 'default-deny' });
  });

  it('an ICMP packet never matches a rule with ports, even with Protocols 256', () => {
    const a = compileFrom([
      acl({
        Id: 'block-80',
        Action: 'Block',
        Direction: 'In',
        Protocols: '256',
        LocalPorts: '80',
        RuleType: 'Switch',
        Priority: 100,
      }),
      acl({
        Id: 'allow-icmp-ported',
        Action: 'Allow',
        Direction: 'In',
        Protocols: '1',
        RemotePorts: '0-65535',
        RuleType: 'Switch',
        Priority: 150,
      }),
      acl({ Id: 'allow-all', Action: 'Allow', Direction: 'In', RuleType: 'Switch', Priority: 200 }),
    ]);
    expect(shape(judge(a, 'In', ICMP, '10.0.0.7', POD))).toEqual({
      allowed: true,
      by: 'rule',
      ruleId: 'allow-all',
      priority: 200,
    });
    expect(shape(judge(a, 'In', TCP, '10.0.0.7:40000', `${POD}:80`))).toEqual({
      allowed: false,
      by: 'rule',
      ruleId: 'block-80',
      priority: 100,
    });
  });
});

describe('TierAcl (§2.5, hcsshim HcnCreateTierAcls)', () => {
  // Shaped like hcsshim's test tiers (Order 1001/1002, Pass rules and a final catch-all Block),
  // given out of Order to show tiers run by ascending Order, not by position.
  const tier2 = tierAcl({
    Name: 'TierIn2',
    Direction: 'In',
    Order: 1002,
    TierAclRules: [
      {
        Id: 'TierIn2Rule1',
        Protocols: '6',
        TierAclRuleAction: 'Allow',
        LocalPorts: '80',
        Priority: 3001,
      },
      { Id: 'TierIn2Rule2', TierAclRuleAction: 'Block', Priority: 3100 },
    ],
  });
  const tier1 = tierAcl({
    Name: 'TierIn1',
    Direction: 'In',
    Order: 1001,
    TierAclRules: [
      {
        Id: 'TierIn1Rule1',
        Protocols: '6',
        TierAclRuleAction: 'Pass',
        RemoteAddresses: '192.168.100.0/24,10.0.0.22',
        Priority: 2001,
      },
      { Id: 'TierIn1Rule2', TierAclRuleAction: 'Block', Priority: 2100 },
    ],
  });

  it('tiers run by ascending Order; Pass goes on to the next tier; a tier ends in its own Block', () => {
    const acls = compileFrom([tier2, tier1]);
    expect(acls.In.tiers.map((t) => t.order)).toEqual([1001, 1002]);
    // passes tier 1, allowed by tier 2
    expect(shape(judge(acls, 'In', TCP, '192.168.100.9:40000', `${POD}:80`))).toEqual({
      allowed: true,
      by: 'rule',
      ruleId: 'TierIn2Rule1',
      priority: 3001,
    });
    expect(shape(judge(acls, 'In', TCP, '10.0.0.22:40000', `${POD}:80`))).toEqual({
      allowed: true,
      by: 'rule',
      ruleId: 'TierIn2Rule1',
      priority: 3001,
    });
    // passes tier 1, stopped by tier 2's final Block
    expect(shape(judge(acls, 'In', TCP, '192.168.100.9:40000', `${POD}:443`))).toEqual({
      allowed: false,
      by: 'rule',
      ruleId: 'TierIn2Rule2',
      priority: 3100,
    });
    // not passed by tier 1: its final Block decides, tier 2's Allow is never reached
    expect(shape(judge(acls, 'In', TCP, '10.0.0.23:40000', `${POD}:80`))).toEqual({
      allowed: false,
      by: 'rule',
      ruleId: 'TierIn1Rule2',
      priority: 2100,
    });
  });

  it('a Pass out of the last tier reaches the flat ACL rules; a terminating tier rule decides before them', () => {
    const acls = compileFrom([
      tierAcl({
        Name: 'TierIn1',
        Direction: 'In',
        Order: 1,
        TierAclRules: [
          { Id: 'allow-web', Protocols: '6', TierAclRuleAction: 'Allow', LocalPorts: '80', Priority: 5000 },
          { Id: 'pass-rest', TierAclRuleAction: 'Pass', Priority: 5001 },
        ],
      }),
      acl({
        Id: 'flat-block-tcp',
        Action: 'Block',
        Direction: 'In',
        Protocols: '6',
        RuleType: 'Switch',
        Priority: 100,
      }),
      acl({ Id: 'flat-allow', Action: 'Allow', Direction: 'In', RuleType: 'Switch', Priority: 200 }),
    ]);
    // the tier runs first (module doc), so its Allow @5000 beats the flat Block @100
    expect(shape(judge(acls, 'In', TCP, '10.0.0.7:40000', `${POD}:80`))).toEqual({
      allowed: true,
      by: 'rule',
      ruleId: 'allow-web',
      priority: 5000,
    });
    expect(shape(judge(acls, 'In', TCP, '10.0.0.7:40000', `${POD}:443`))).toEqual({
      allowed: false,
      by: 'rule',
      ruleId: 'flat-block-tcp',
      priority: 100,
    });
    expect(shape(judge(acls, 'In', UDP, '10.0.0.7:40000', `${POD}:53`))).toEqual({
      allowed: true,
      by: 'rule',
      ruleId: 'flat-allow',
      priority: 200,
    });
  });

  it('an Out tier does not filter In packets, but its presence still puts In in default-deny', () => {
    const acls = compileFrom([
      tierAcl({
        Name: 'TierOut1',
        Direction: 'Out',
        Order: 1,
        TierAclRules: [{ Id: 'out-allow', TierAclRuleAction: 'Allow', Priority: 100 }],
      }),
    ]);
    expect(shape(judge(acls, 'Out', TCP, `${POD}:40000`, '10.0.0.7:80'))).toEqual({
      allowed: true,
      by: 'rule',
      ruleId: 'out-allow',
      priority: 100,
    });
    expect(shape(judge(acls, 'In', TCP, '10.0.0.7:40000', `${POD}:80`))).toEqual({
      allowed: false,
      by: 'default-deny',
    });
  });
});

describe('Host rules (WFP): a matching Block beats any Allow, whatever the priority', () => {
  const switchAllow = acl({
    Id: 'switch-allow-in',
    Action: 'Allow',
    Direction: 'In',
    RuleType: 'Switch',
    Priority: 1000,
  });

  it('Host Block @65000 beats Host Allow @100 (Windows Firewall semantics, §2.2 / HNS_Schema RuleType)', () => {
    const acls = compileFrom([
      switchAllow,
      acl({ Id: 'host-allow', Action: 'Allow', Direction: 'In', RuleType: 'Host', Priority: 100 }),
      acl({
        Id: 'host-block',
        Action: 'Block',
        Direction: 'In',
        RemoteAddresses: '10.0.0.0/24',
        RuleType: 'Host',
        Priority: 65000,
      }),
    ]);
    expect(shape(judge(acls, 'In', TCP, '10.0.0.7:40000', `${POD}:80`), true)).toEqual({
      allowed: false,
      by: 'rule',
      ruleId: 'host-block',
      priority: 65000,
      stage: 'WFP',
    });
    // no Host Block matches: allowed; the Switch rule is what the verdict names
    expect(shape(judge(acls, 'In', TCP, '10.1.0.7:40000', `${POD}:80`))).toEqual({
      allowed: true,
      by: 'rule',
      ruleId: 'switch-allow-in',
      priority: 1000,
    });
  });

  it('stage names the stage whose rule decided: VFP when a Switch Allow decided and WFP only agreed', () => {
    const acls = compileFrom([
      switchAllow,
      acl({ Id: 'host-allow', Action: 'Allow', Direction: 'In', RuleType: 'Host', Priority: 100 }),
    ]);
    const v = judge(acls, 'In', TCP, '10.1.0.7:40000', `${POD}:80`);
    expect(v.allowed).toBe(true);
    expect(v.stage).toBe('VFP');
    expect(v.rule?.ruleId).toBe('switch-allow-in');
  });

  it('a direction with only Host rules is decided by WFP: a matching Host Allow lets it in, others are denied', () => {
    // VFP has no Switch rule in that direction to enforce; WFP (Windows Firewall) decides, and once
    // the endpoint has ACLs what no Host rule allows is denied (our choice, docs/model.md)
    for (const defaultDeny of ['both', 'direction'] as const) {
      const acls = compileFrom(
        [
          acl({
            Id: 'host-allow',
            Action: 'Allow',
            Direction: 'In',
            RuleType: 'Host',
            Priority: 100,
            RemoteAddresses: '10.1.0.0/16',
          }),
        ],
        { opts: { defaultDeny } },
      );
      expect(shape(judge(acls, 'In', TCP, '10.1.0.7:40000', `${POD}:80`), true)).toEqual({
        allowed: true,
        by: 'rule',
        ruleId: 'host-allow',
        priority: 100,
        stage: 'WFP',
      });
      expect(shape(judge(acls, 'In', TCP, '10.2.0.7:40000', `${POD}:80`), true)).toEqual({
        allowed: false,
        by: 'default-deny',
        stage: 'WFP',
      });
    }
  });

  it('a Host Allow does not override a Switch Block: VFP denies first', () => {
    const acls = compileFrom([
      acl({ Id: 'switch-block', Action: 'Block', Direction: 'In', RuleType: 'Switch', Priority: 1000 }),
      acl({ Id: 'host-allow', Action: 'Allow', Direction: 'In', RuleType: 'Host', Priority: 100 }),
    ]);
    expect(shape(judge(acls, 'In', TCP, '10.0.0.7:40000', `${POD}:80`), true)).toEqual({
      allowed: false,
      by: 'rule',
      ruleId: 'switch-block',
      priority: 1000,
      stage: 'VFP',
    });
  });

  it('where a direction has Host rules, what no Host rule allows is denied by WFP (default-deny)', () => {
    const acls = compileFrom([
      switchAllow,
      acl({
        Id: 'host-allow-infra',
        Action: 'Allow',
        Direction: 'In',
        RemoteAddresses: '10.0.0.0/24',
        RuleType: 'Host',
      }),
    ]);
    expect(shape(judge(acls, 'In', TCP, '10.1.0.7:40000', `${POD}:80`), true)).toEqual({
      allowed: false,
      by: 'default-deny',
      stage: 'WFP',
    });
  });
});

describe('equal priority, Allow vs Block (§2.2: undocumented, an option)', () => {
  const allow = acl({
    Id: 'allow-1000',
    Action: 'Allow',
    Direction: 'In',
    Protocols: '6',
    RuleType: 'Switch',
    Priority: 1000,
  });
  const block = acl({
    Id: 'block-1000',
    Action: 'Block',
    Direction: 'In',
    RemoteAddresses: '10.0.0.0/24',
    RuleType: 'Switch',
    Priority: 1000,
  });

  it.each([
    ['Allow first', [allow, block]],
    ['Block first', [block, allow]],
  ])('default tie-break is Block (%s in the list)', (_name, policies) => {
    const acls = compileFrom(policies);
    expect(shape(judge(acls, 'In', TCP, '10.0.0.7:40000', `${POD}:80`))).toEqual({
      allowed: false,
      by: 'rule',
      ruleId: 'block-1000',
      priority: 1000,
    });
    // only the Allow matches: it decides
    expect(shape(judge(acls, 'In', TCP, '10.1.0.7:40000', `${POD}:80`))).toEqual({
      allowed: true,
      by: 'rule',
      ruleId: 'allow-1000',
      priority: 1000,
    });
  });

  it.each([
    ['Allow first', [allow, block]],
    ['Block first', [block, allow]],
  ])("tieBreak 'Allow' lets the Allow win (%s in the list)", (_name, policies) => {
    const acls = compileFrom(policies, { opts: { tieBreak: 'Allow' } });
    expect(shape(judge(acls, 'In', TCP, '10.0.0.7:40000', `${POD}:80`))).toEqual({
      allowed: true,
      by: 'rule',
      ruleId: 'allow-1000',
      priority: 1000,
    });
    // only the Block matches (UDP): it decides
    expect(shape(judge(acls, 'In', UDP, '10.0.0.7:40000', `${POD}:53`))).toEqual({
      allowed: false,
      by: 'rule',
      ruleId: 'block-1000',
      priority: 1000,
    });
  });
});

describe('SetPolicy IP sets in RemoteAddresses (§2.5, npm-win)', () => {
  const policies = [
    acl({
      Id: 'allow-from-set',
      Action: 'Allow',
      Direction: 'In',
      RemoteAddresses: 'azure-npm-3216600258',
      RuleType: 'Switch',
      Priority: 222,
    }),
    acl({
      Id: 'allow-from-missing',
      Action: 'Allow',
      Direction: 'In',
      RemoteAddresses: 'azure-npm-missing',
      RuleType: 'Switch',
      Priority: 223,
    }),
    acl({ Id: 'block-in', Action: 'Block', Direction: 'In', RuleType: 'Switch', Priority: 3000 }),
  ];
  const sets = { 'azure-npm-3216600258': ['10.0.5.0/24', '10.0.6.7'] };

  it('a set id resolves through the resolver to its members', () => {
    const acls = compileFrom(policies, { sets });
    for (const src of ['10.0.5.1', '10.0.5.254', '10.0.6.7']) {
      expect(shape(judge(acls, 'In', TCP, `${src}:40000`, `${POD}:80`))).toEqual({
        allowed: true,
        by: 'rule',
        ruleId: 'allow-from-set',
        priority: 222,
      });
    }
  });

  it('an address outside the set, or a set the resolver does not know, matches nothing', () => {
    const acls = compileFrom(policies, { sets });
    expect(shape(judge(acls, 'In', TCP, '10.0.6.8:40000', `${POD}:80`))).toEqual({
      allowed: false,
      by: 'rule',
      ruleId: 'block-in',
      priority: 3000,
    });
  });

  it('a set mixed with prefixes in one field matches either', () => {
    const acls = compileFrom(
      [
        acl({
          Id: 'mixed',
          Action: 'Allow',
          Direction: 'In',
          RemoteAddresses: '10.0.9.0/24,azure-npm-3216600258',
          RuleType: 'Switch',
          Priority: 222,
        }),
      ],
      { sets },
    );
    for (const src of ['10.0.9.9', '10.0.6.7']) {
      expect(shape(judge(acls, 'In', TCP, `${src}:40000`, `${POD}:80`))).toEqual({
        allowed: true,
        by: 'rule',
        ruleId: 'mixed',
        priority: 222,
      });
    }
  });
});

describe('NetworkACL rules apply to the endpoints of the network (§2.5)', () => {
  const netBlock = networkAcl({
    Id: 'net-block-infra',
    Action: 'Block',
    Direction: 'In',
    RemoteAddresses: '10.0.9.0/24',
    RuleType: 'Switch',
    Priority: 100,
  });

  it('joins the endpoint ACLs by priority, and its rule names the network', () => {
    const acls = compileFrom(
      [acl({ Id: 'ep-allow-in', Action: 'Allow', Direction: 'In', RuleType: 'Switch', Priority: 1000 })],
      { network: [netBlock] },
    );
    const v = judge(acls, 'In', TCP, '10.0.9.9:40000', `${POD}:80`);
    expect(shape(v)).toEqual({ allowed: false, by: 'rule', ruleId: 'net-block-infra', priority: 100 });
    expect(v.rule).toMatchObject({ kind: 'Network', id: NETWORK_ID, policy: 'NetworkACL' });
    expect(shape(judge(acls, 'In', TCP, '10.0.8.9:40000', `${POD}:80`))).toEqual({
      allowed: true,
      by: 'rule',
      ruleId: 'ep-allow-in',
      priority: 1000,
    });
  });

  it('a NetworkACL alone puts the endpoint in default-deny', () => {
    const acls = compileFrom([], { network: [netBlock] });
    expect(acls.any).toBe(true);
    expect(shape(judge(acls, 'In', TCP, '10.0.8.9:40000', `${POD}:80`))).toEqual({
      allowed: false,
      by: 'default-deny',
    });
    expect(shape(judge(acls, 'Out', TCP, `${POD}:40000`, '10.0.8.9:80'))).toEqual({
      allowed: false,
      by: 'default-deny',
    });
  });
});
