/**
 * Reachability held against what a test or a scenario expects (docs/analysis.md): "reaches
 * exactly" — the packets delivered whatever a load balancer picks are the hand-written flow set
 * (src/analysis/flowspec.ts), and what differs, said in the human form with a witness each — and
 * "unchanged" — the differential of source × destination pairs between two states whose names
 * are read each its own way (a scenario's pod → the trace scope's reference), a pair that exists in
 * one state only reported as such. The faces share them: the scenario's `reach` and
 * `reachUnchanged`, the test kit's `toReachExactly` and `toKeepReachability`, `hnsim analyze
 * --diff` with `--from` or `--to`.
 */
import { FALSE } from './bdd.js';
import { HnsError } from '../core/errors.js';
import type { Disposition } from '../vswitch/contracts.js';
import { ip4 } from '../vswitch/v4.js';
import { ACL_FIELDS, type AclPacket } from './space.js';
import type { Network } from './cuts.js';
import { flowSpecSet } from './flowspec.js';
import { replayTarget, witnessTrace } from './json.js';
import { ReachContext, type ReachOptions, type Reachability } from './reach.js';
import { diffReach, oneSided, reachNamed, type ReachDiff } from './reach-diff.js';
export { diffNamed, reachNamed, type NamedNetwork } from './reach-diff.js';

/** At most this many lines of a set's human form in a problem line. */
const LINES = 4;

/** A witness starts from TCP 50000 → 80 where the set allows (as the answer's own witnesses). */
const HINT: AclPacket = { proto: 6, localPort: 50000, remotePort: 80, localIp: 0, remoteIp: 0 };

/** A part of the packets that differ from the expectation, as people read it. */
export interface ReachPart {
  /** The dispositions the packets get (more than one: a load balancer's choice decides). */
  readonly dispositions: readonly Disposition[];
  /** Its human form without the pair's addresses ("TCP to port 443"). */
  readonly text: readonly string[];
  /** `--from … --to … --protocol …`: the trace that replays a packet of it. */
  readonly trace: string;
  readonly count: bigint;
}

export interface ReachExactly {
  readonly ok: boolean;
  /** The spec's packets of this pair, in the human form. */
  readonly expected: readonly string[];
  /** Delivered whatever a load balancer picks, though the spec does not name them. */
  readonly extra?: ReachPart;
  /** Named by the spec but not certainly delivered: per the dispositions they get instead. */
  readonly missing: readonly ReachPart[];
  /** What differs, a line each ([] when ok). */
  readonly problems: readonly string[];
}

/**
 * Whether the packets `r`'s source delivers to its destination whatever a load balancer picks
 * (`r.dispositions.Delivered`) are exactly `spec` (a flow spec, E_INVALIDARG when it does not
 * read). The sets are the pair's: the spec is read with the answer's two addresses.
 */
export function checkReachExactly(r: Reachability, spec: string): ReachExactly {
  const space = r.space;
  const b = space.bdd;
  const src = ip4(r.source) ?? 0;
  const dst = r.destination ? ip4(r.destination) : undefined;
  let scope = b.and(space.universe, space.value('localIp', src));
  if (dst !== undefined) scope = b.and(scope, space.value('remoteIp', dst));
  const want = flowSpecSet(space, spec, scope);
  const got = r.dispositions.Delivered?.node ?? FALSE;
  // the human form without the pair's addresses (they are the pair's constants)
  const free = (node: number) => {
    const u = b.restrict(node, ACL_FIELDS.localIp.first, 32, src >>> 0);
    return dst === undefined ? u : b.restrict(u, ACL_FIELDS.remoteIp.first, 32, dst >>> 0);
  };
  const part = (dispositions: readonly Disposition[], node: number): ReachPart => {
    const w = space.witness(node, 'Out', HINT);
    return {
      dispositions,
      text: space.describe(free(node), 'Out', LINES),
      trace: w ? witnessTrace(r.from, w, replayTarget(r)) : '',
      count: space.count(node),
    };
  };
  const extraNode = b.diff(got, want);
  const lacking = b.diff(want, got);
  const missing: ReachPart[] = [];
  for (const o of r.outcomes) {
    if (o.dispositions.length === 1 && o.dispositions[0] === 'Delivered') continue;
    const x = b.and(lacking, o.set.node);
    if (x !== FALSE) missing.push(part(o.dispositions, x));
  }
  const extra = extraNode === FALSE ? undefined : part(['Delivered'], extraNode);
  const problems: string[] = [];
  const say = (head: string, p: ReachPart) => {
    problems.push(`${head}: ${p.text.join('; ')}`);
    if (p.trace) problems.push(`  e.g. ${p.trace}`);
  };
  if (extra) say('also delivered', extra);
  for (const m of missing)
    say(
      m.dispositions.length > 1
        ? `not delivered whatever the load balancer picks (${m.dispositions.join(' or ')})`
        : `not delivered (${m.dispositions[0]!})`,
      m,
    );
  if (problems.length && !r.exact) problems.push(...r.notes.map((n) => `note: ${n}`));
  return {
    ok: !problems.length,
    expected: want === FALSE ? ['no packet'] : space.describe(free(want), 'Out', LINES),
    ...(extra ? { extra } : {}),
    missing,
    problems,
  };
}

/**
 * Answers taken earlier (one space) against the network now: each pair analysed again in that
 * space and compared; a pair whose source is gone is `missing` after.
 */
export function diffSince(
  before: readonly Reachability[],
  now: Network,
  opts: ReachOptions = {},
): ReachDiff[] {
  if (!before.length) return [];
  const space = before[0]!.space;
  if (before.some((r) => r.space !== space))
    throw new HnsError('E_INVALIDARG', 'compare answers of one ReachContext (one space)');
  const context = opts.context ?? new ReachContext(space);
  return before.map((x) => {
    try {
      return diffReach(x, reachNamed({ net: now }, x.from, x.to, { ...opts, context }));
    } catch (e) {
      if (e instanceof HnsError && e.code === 'ERROR_NOT_FOUND') return oneSided(x.from, x.to, 'after');
      throw e;
    }
  });
}
