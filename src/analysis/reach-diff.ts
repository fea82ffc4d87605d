/**
 * Differential reachability (Batfish's `differentialReachability`): two states of a network —
 * snapshots, scenario steps, before and after a change — and, per source and destination, the
 * packets whose dispositions changed, each part with what it got before and what it gets after.
 *
 * Packets are compared by protocol and ports: a source or destination whose address changed
 * between the states (a pod recreated) is compared as "the packets it sends" / "the packets sent to
 * it", and the answer says the address moved. Both answers must share one `ReachContext`.
 */
import { FALSE } from './bdd.js';
import { ACL_FIELDS } from './space.js';
import type { PacketSet } from './acl.js';
import { hnsError, HnsError } from '../core/errors.js';
import type { Disposition } from '../vswitch/contracts.js';
import { ip4 } from '../vswitch/v4.js';
import type { Network } from './cuts.js';
import { analyzeReach, flowSet, ReachContext, type ReachOptions, type Reachability } from './reach.js';

export interface ReachChange {
  /** The dispositions the packets got before and get after (more than one: a load balancer's choice). */
  readonly before: readonly Disposition[];
  readonly after: readonly Disposition[];
  /** The packets, addressed as the after state addresses them. */
  readonly set: PacketSet;
}

export interface ReachDiff {
  readonly from: string;
  readonly to: string;
  readonly unchanged: boolean;
  readonly changes: readonly ReachChange[];
  /** Both answers exact (else their notes say where). */
  readonly exact: boolean;
  readonly notes: readonly string[];
  /** Present when the pair exists in one state only (its source or destination is missing in the other). */
  readonly missing?: 'before' | 'after';
}

/** Compare two answers for the same source and destination (one context). */
export function diffReach(before: Reachability, after: Reachability): ReachDiff {
  if (before.space !== after.space)
    throw hnsError('E_INVALIDARG', 'compare reachability answers of one ReachContext (one space)');
  const space = after.space;
  const b = space.bdd;
  const addr = (r: Reachability) => ({ src: ip4(r.source) ?? 0, dst: ip4(r.destination) ?? 0 });
  const ab = addr(before);
  const aa = addr(after);
  const project = (node: number, a: { src: number; dst: number }) =>
    b.restrict(
      b.restrict(node, ACL_FIELDS.localIp.first, 32, a.src >>> 0),
      ACL_FIELDS.remoteIp.first,
      32,
      a.dst >>> 0,
    );
  const at = b.and(b.and(space.universe, space.value('localIp', aa.src)), space.value('remoteIp', aa.dst));
  const changes: ReachChange[] = [];
  for (const x of before.outcomes) {
    const px = project(x.set.node, ab);
    for (const y of after.outcomes) {
      if (x.dispositions.join() === y.dispositions.join()) continue;
      const both = b.and(b.and(px, project(y.set.node, aa)), at);
      if (both !== FALSE)
        changes.push({ before: x.dispositions, after: y.dispositions, set: flowSet(space, both) });
    }
  }
  const notes = [...before.notes.map((n) => `before: ${n}`), ...after.notes.map((n) => `after: ${n}`)];
  if (before.source !== after.source)
    notes.push(`the source's address moved: ${before.source} → ${after.source}`);
  if (before.destination !== after.destination)
    notes.push(`the destination's address moved: ${before.destination} → ${after.destination}`);
  return {
    from: after.from,
    to: after.to,
    unchanged: changes.length === 0,
    changes,
    exact: before.exact && after.exact,
    notes,
  };
}

/**
 * The differential of every source and destination pair between two states of a network (a
 * source to itself skipped). A pair whose source or destination exists in one state only is
 * reported `missing` (its packets are all changed by definition).
 */
export function diffReachAll(
  before: Network,
  after: Network,
  sources: readonly string[],
  destinations: readonly string[],
  opts: ReachOptions = {},
): ReachDiff[] {
  const context = opts.context ?? new ReachContext();
  const o = { ...opts, context };
  const out: ReachDiff[] = [];
  const tryReach = (net: Network, from: string, to: string): Reachability | undefined => {
    try {
      return analyzeReach(net, { from, to }, o);
    } catch (e) {
      if (e instanceof HnsError && e.code === 'ERROR_NOT_FOUND') return undefined;
      throw e;
    }
  };
  for (const from of sources)
    for (const to of destinations) {
      if (from === to) continue;
      const x = tryReach(before, from, to);
      const y = tryReach(after, from, to);
      if (x && y) out.push(diffReach(x, y));
      else if (x || y)
        out.push({
          from,
          to,
          unchanged: false,
          changes: [],
          exact: true,
          notes: [`${from} → ${to} exists ${x ? 'before' : 'after'} only`],
          missing: x ? 'after' : 'before',
        });
    }
  return out;
}
