/**
 * A port's ACLs before and after a change, every packet at once: per direction the packets the
 * change newly allows and newly denies, each part with the rule (or default) that decides it after
 * the change. Both analyses are built in one space, so the sets compare exactly. The port's address
 * must be the same in both (its rules' local addresses are judged against it).
 */
import { hnsError } from '../core/errors.js';
import type { Host } from '../host/host.js';
import type { AclDirectionName, CompiledAcls } from '../vswitch/acl.js';
import { fmt, prefix4 } from '../vswitch/v4.js';
import { analyzeAcls, packetSet, type AclDirectionAnalysis, type AclOutcome, type PacketSet } from './acl.js';
import { FALSE } from './bdd.js';
import { localPortOf } from './port.js';
import { AclSpace } from './space.js';

/** Changed packets, and what decides each part of them after the change. */
export interface AclChange {
  readonly packets: PacketSet;
  readonly by: readonly { readonly outcome: AclOutcome; readonly packets: PacketSet }[];
}

export interface AclDirectionDiff {
  readonly direction: AclDirectionName;
  readonly newlyAllowed: AclChange;
  readonly newlyDenied: AclChange;
}

export interface AclDiff {
  readonly space: AclSpace;
  readonly In: AclDirectionDiff;
  readonly Out: AclDirectionDiff;
  /** Whether no packet's verdict changed, in either direction. */
  readonly unchanged: boolean;
}

/** Two ports' compiled ACLs compared, the packets of `localAddress` on the endpoint's side. */
export function diffAcls(before: CompiledAcls, after: CompiledAcls, localAddress?: number): AclDiff {
  const space = new AclSpace();
  const opts = {
    space,
    ...(localAddress !== undefined ? { localAddresses: [prefix4(localAddress, 32)] } : {}),
  };
  const a = analyzeAcls(before, opts);
  const b = analyzeAcls(after, opts);
  const In = directionDiff(space, a.In, b.In);
  const Out = directionDiff(space, a.Out, b.Out);
  const unchanged = [In, Out].every((d) => d.newlyAllowed.packets.empty && d.newlyDenied.packets.empty);
  return { space, In, Out, unchanged };
}

/**
 * The ACLs of a local endpoint's port on two nodes (or one node at two moments: a snapshot
 * restored beside it). Errors: ERROR_NOT_FOUND (no such local endpoint on one of them),
 * E_INVALIDARG (no IPv4 address, or not the same address on both).
 */
export function diffPorts(
  before: { host: Host; endpoint: string },
  after: { host: Host; endpoint: string },
): AclDiff {
  const portOf = (x: { host: Host; endpoint: string }) => localPortOf(x.host, x.endpoint);
  const p = portOf(before);
  const q = portOf(after);
  if (p.ip !== q.ip)
    throw hnsError(
      'E_INVALIDARG',
      `the port's address differs: ${fmt(p.ip)} before, ${fmt(q.ip)} after (its rules are judged against it)`,
    );
  return diffAcls(p.acls(), q.acls(), p.ip);
}

function directionDiff(space: AclSpace, a: AclDirectionAnalysis, b: AclDirectionAnalysis): AclDirectionDiff {
  const bdd = space.bdd;
  const after = [
    ...b.rules
      .filter((r) => !r.decides.empty)
      .map((r) => ({
        outcome: { kind: 'rule', rule: r.rule, stage: r.stage } as AclOutcome,
        node: r.decides.node,
      })),
    ...b.defaults.map((d) => ({ outcome: d.outcome, node: d.decides.node })),
  ];
  const change = (node: number, set: (n: number) => PacketSet): AclChange => ({
    packets: set(node),
    by:
      node === FALSE
        ? []
        : after.flatMap((o) => {
            const part = bdd.and(o.node, node);
            return part === FALSE ? [] : [{ outcome: o.outcome, packets: set(part) }];
          }),
  });
  const set = (n: number) => packetSet(space, n, b.direction);
  return {
    direction: b.direction,
    newlyAllowed: change(bdd.diff(b.allowed.node, a.allowed.node), set),
    newlyDenied: change(bdd.diff(a.allowed.node, b.allowed.node), set),
  };
}
