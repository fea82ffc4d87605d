/**
 * The oracle of the ACL analysis tests: `evaluateAcls` (src/vswitch/acl.ts), the function the
 * dataplane judges every packet with. A packet of the analysis' space goes to it as the port sees
 * it (`In`: remote → local, `Out`: local → remote); its verdict is compared with the outcome whose
 * set holds the packet.
 */
import type { AclAnalysis, AclDirectionAnalysis, AclOutcome } from '../../src/analysis/acl.js';
import type { AclPacket } from '../../src/analysis/space.js';
import {
  evaluateAcls,
  type AclDirectionName,
  type AclVerdict,
  type CompiledAcls,
} from '../../src/vswitch/acl.js';

export function verdictOf(acls: CompiledAcls, dir: AclDirectionName, p: AclPacket): AclVerdict {
  return dir === 'In'
    ? evaluateAcls(acls, dir, p.proto, p.remoteIp, p.remotePort, p.localIp, p.localPort)
    : evaluateAcls(acls, dir, p.proto, p.localIp, p.localPort, p.remoteIp, p.remotePort);
}

/** The outcome of a verdict, in the analysis' terms. */
export function outcomeOf(v: AclVerdict): AclOutcome {
  return v.by === 'rule' ? { kind: 'rule', rule: v.rule!, stage: v.stage } : { kind: v.by, stage: v.stage };
}

/** Every outcome of a direction with the node of its packets: the rules that decide, the defaults. */
export function outcomes(d: AclDirectionAnalysis): { outcome: AclOutcome; node: number }[] {
  return [
    ...d.rules
      .filter((r) => r.action !== 'Pass')
      .map((r) => ({
        outcome: { kind: 'rule', rule: r.rule, stage: r.stage } as AclOutcome,
        node: r.decides.node,
      })),
    ...d.defaults.map((x) => ({ outcome: x.outcome, node: x.decides.node })),
  ];
}

/** The outcomes whose sets hold the packet (a partition: exactly one). */
export function holders(a: AclAnalysis, d: AclDirectionAnalysis, p: AclPacket): AclOutcome[] {
  return outcomes(d)
    .filter((o) => a.space.has(o.node, p))
    .map((o) => o.outcome);
}

/** An outcome as text for comparisons (rule refs compared by their rule name and stage). */
export function key(o: AclOutcome): string {
  return o.kind === 'rule'
    ? `${o.stage}:${o.rule.rule ?? '?'}#${o.rule.index ?? ''}`
    : `${o.stage}:${o.kind}`;
}
