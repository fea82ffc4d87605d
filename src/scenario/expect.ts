/**
 * A scenario's `expect` blocks (at the end, or as a step): each checkpoint checks pods, traces,
 * truth tables (truth.ts), HNS state and the leak audit, and gives one result per expectation with
 * where it is in the file and, when it does not hold, why.
 */
import type { Json, JsonObject } from '../core/json.js';
import { isJsonObject } from '../core/json.js';
import { packetChanges } from '../cluster/flows.js';
import type { TraceResult } from '../dataplane/trace.js';
import { analyzePort } from '../analysis/port.js';
import { outcomeLabel, ruleName } from '../analysis/json.js';
import { checkReachExactly, diffNamed, reachNamed } from '../analysis/reach-check.js';
import { renderReachDiff } from '../render/analysis.js';
import { collectListing, type HnsListing } from '../render/listing.js';
import { renderTrace, traceNames } from '../render/trace.js';
import { sinceSteps } from './load.js';
import { shorten } from './narrate.js';
import type { ExpectationResult, TraceOutcome } from './results.js';
import { checkReachability } from './truth.js';
import type { Expectations, ReachExactSpec, ReachUnchangedSpec, TraceSpec } from './types.js';
import type { JsonPath } from './validate.js';
import { errorText, type RunWorld } from './world.js';

/** Whether `actual` has everything `expected` has (objects: its keys; arrays: same length, element by element). */
function partialMatch(actual: Json | undefined, expected: Json, path = ''): string | undefined {
  if (expected === null || typeof expected !== 'object') {
    return actual === expected
      ? undefined
      : `${path || 'value'} is ${actual === undefined ? 'missing' : JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path || 'value'} is not a list`;
    if (actual.length !== expected.length)
      return `${path || 'value'} has ${actual.length} item(s), expected ${expected.length}`;
    for (let i = 0; i < expected.length; i++) {
      const m = partialMatch(actual[i], expected[i]!, `${path}[${i}]`);
      if (m) return m;
    }
    return undefined;
  }
  if (!isJsonObject(actual))
    return `${path || 'value'} is ${actual === undefined ? 'missing' : 'not an object'}`;
  for (const [k, v] of Object.entries(expected)) {
    const m = partialMatch(actual[k], v, path ? `${path}.${k}` : k);
    if (m) return m;
  }
  return undefined;
}

/** Check an `expect` block now; its results become a checkpoint and a narrated step. */
export async function checkpoint(w: RunWorld, title: string, e: Expectations, path: JsonPath): Promise<void> {
  if (!w.checks) return;
  const results: ExpectationResult[] = [];
  e.pods?.forEach((p, i) => results.push(checkPod(w, p, [...path, 'pods', i])));
  e.traces?.forEach((t, i) => results.push(checkTrace(w, t, [...path, 'traces', i])));
  e.reachability?.forEach((r, i) => results.push(checkReachability(w, r, [...path, 'reachability', i])));
  e.hns?.forEach((h, i) => results.push(checkHns(w, h, [...path, 'hns', i])));
  e.audit?.forEach((a, i) => results.push(...checkAudit(w, a, [...path, 'audit', i])));
  e.acls?.forEach((a, i) => results.push(checkAcls(w, a, [...path, 'acls', i])));
  e.reach?.forEach((r, i) => results.push(checkReach(w, r, [...path, 'reach', i])));
  for (const [i, r] of (e.reachUnchanged ?? []).entries())
    results.push(await checkReachUnchanged(w, r, path, [...path, 'reachUnchanged', i]));
  w.checkpoints.push({ title, at: w.where(path), results });
  w.step(title, [checkedHere(results)]);
}

const KIND_WORDS: Readonly<Record<ExpectationResult['kind'], readonly [string, string]>> = {
  pod: ['pod', 'pods'],
  trace: ['trace', 'traces'],
  reachability: ['truth table', 'truth tables'],
  hns: ['HNS query', 'HNS queries'],
  audit: ['audit', 'audits'],
  acls: ['ACL analysis', 'ACL analyses'],
  reach: ['exact reachability', 'exact reachabilities'],
  reachUnchanged: ['reachability differential', 'reachability differentials'],
  call: ['call', 'calls'],
  step: ['step', 'steps'],
};

/**
 * What a checkpoint checks, for the narration: kinds and counts, not whether they hold — the run
 * has one tally, at the end of its report, so a narrated count cannot disagree with it.
 */
function checkedHere(results: readonly ExpectationResult[]): string {
  if (!results.length) return 'Nothing to check here.';
  const counts = new Map<ExpectationResult['kind'], number>();
  for (const r of results) counts.set(r.kind, (counts.get(r.kind) ?? 0) + 1);
  const parts = [...counts].map(([k, n]) => `${n} ${KIND_WORDS[k][n === 1 ? 0 : 1]}`);
  return `Checked here: ${parts.join(', ')} (results below).`;
}

function checkPod(
  w: RunWorld,
  p: NonNullable<Expectations['pods']>[number],
  path: JsonPath,
): ExpectationResult {
  const st = w.pods.get(p.pod);
  const phase = st?.phase ?? 'Absent';
  const problems: string[] = [];
  if (phase !== p.phase)
    problems.push(`expected ${p.phase}, but it is ${phase}${st?.error ? `: ${st.error}` : ''}`);
  if (p.ip !== undefined && st?.ip !== p.ip) problems.push(`expected IP ${p.ip}, got ${st?.ip ?? 'none'}`);
  if (p.error !== undefined && !(st?.error ?? '').includes(p.error))
    problems.push(`the error does not contain "${p.error}": ${st?.error ?? '(none)'}`);
  return {
    kind: 'pod',
    label: `pod ${p.pod} is ${p.phase}${p.ip ? ` at ${p.ip}` : ''}`,
    ok: !problems.length,
    at: w.where(path),
    problems,
  };
}

function checkTrace(w: RunWorld, t: TraceSpec, path: JsonPath): ExpectationResult {
  const req = w.request(t.from, t.to, t.protocol, t.port, {
    ...(t.sourcePort !== undefined ? { sourcePort: t.sourcePort } : {}),
    ...(t.reply !== undefined ? { reply: true } : {}),
  });
  const label = t.name ?? `${t.from} → ${t.to}`;
  const problems: string[] = [];
  let result: TraceResult | undefined;
  let observed: string;
  let detail: string | undefined;
  try {
    result = w.trace(req);
    observed = result.disposition;
    detail = result.detail;
  } catch (e) {
    observed = 'error';
    detail = w.traceError(e, t.from, t.to);
  }
  const changes = result ? packetChanges(result.observations) : [];
  if (!result) problems.push(`the trace could not run: ${detail}`);
  else if (observed !== t.expect)
    problems.push(`expected ${t.expect}, observed ${observed}${detail ? ` (${detail})` : ''}`);
  if (result && t.changes && JSON.stringify(t.changes) !== JSON.stringify(changes))
    problems.push(`expected the changes [${t.changes.join(', ')}], observed [${changes.join(', ')}]`);
  let reply: TraceOutcome['reply'];
  if (t.reply !== undefined) {
    const got = result?.reply?.disposition ?? (result ? 'no reply (the request was not delivered)' : 'error');
    reply = { expected: t.reply, observed: got };
    if (result && got !== t.reply) problems.push(`expected the reply ${t.reply}, observed ${got}`);
  }
  if (t.decidedBy && result) {
    const last = result.observations[result.observations.length - 1];
    const d = t.decidedBy;
    const fields: [string, string | undefined, string | undefined][] = [
      ['component', d.component, last?.component],
      ['policy', d.policy, last?.rule?.policy],
      ['name', d.name, last?.rule?.name ?? last?.rule?.rule],
    ];
    for (const [k, want, got] of fields)
      if (want !== undefined && want.toLowerCase() !== (got ?? '').toLowerCase())
        problems.push(`expected the last step's ${k} ${want}, observed ${got ?? 'none'}`);
  }
  const hosts = w.windowsNodes().map((n) => n.host!);
  const outcome: TraceOutcome = {
    from: t.from,
    to: t.to,
    protocol: t.protocol ?? 'TCP',
    ...(t.port !== undefined ? { port: t.port } : {}),
    expected: t.expect,
    observed,
    changes,
    ...(reply ? { reply } : {}),
    ...(detail ? { detail } : {}),
    ...(w.options.traces && result
      ? { text: shorten(renderTrace(result, 'summary', { names: traceNames(...hosts) })) }
      : {}),
  };
  return {
    kind: 'trace',
    label,
    ok: !problems.length,
    at: w.where(path),
    problems,
    ...(result ? {} : { errors: 1 }),
    trace: outcome,
  };
}

function checkHns(
  w: RunWorld,
  h: NonNullable<Expectations['hns']>[number],
  path: JsonPath,
): ExpectationResult {
  const n = w.winNode(h.node);
  const listing: HnsListing = collectListing(n.host.api, n.host);
  const all = listing[h.kind] as readonly JsonObject[];
  const selected = h.where ? all.filter((o) => partialMatch(o, h.where!) === undefined) : [...all];
  const problems: string[] = [];
  if (h.count !== undefined && selected.length !== h.count)
    problems.push(
      `expected ${h.count} ${h.kind}${h.where ? ` matching ${JSON.stringify(h.where)}` : ''}, found ${selected.length}`,
    );
  if (h.has)
    for (const o of selected) {
      const m = partialMatch(o, h.has);
      if (m) problems.push(`${h.kind.slice(0, -1)} ${String(o['Name'] || o['ID'])}: ${m}`);
    }
  const label = `${h.node}: ${h.count !== undefined ? `${h.count} ` : ''}${h.kind}${h.where ? ` where ${JSON.stringify(h.where)}` : ''}${h.has ? ` with ${JSON.stringify(h.has)}` : ''}`;
  return { kind: 'hns', label: shorten(label), ok: !problems.length, at: w.where(path), problems };
}

function checkAudit(
  w: RunWorld,
  a: NonNullable<Expectations['audit']>[number],
  path: JsonPath,
): ExpectationResult[] {
  const nodes = a.node !== undefined ? [w.winNode(a.node)] : w.windowsNodes();
  return nodes.map((n) => {
    const findings = n.host!.audit();
    const got = findings.map((f) => f.kind as string).sort();
    const want = [...a.findings].sort();
    const ok = JSON.stringify(got) === JSON.stringify(want);
    const problems = ok
      ? []
      : [
          `expected ${want.length ? want.join(', ') : 'no findings'}, found ${got.length ? got.join(', ') : 'none'}:`,
          ...findings.map((f) => `${f.kind}: ${shorten(f.detail)}`),
        ];
    return {
      kind: 'audit' as const,
      label: `${n.name}: audit ${want.length ? `finds ${want.join(', ')}` : 'is clean'}`,
      ok,
      at: w.where(path),
      problems,
    };
  });
}

/** A pod's ACLs analysed whole: exactly these rules shadowed (and, if given, redundant). */
function checkAcls(
  w: RunWorld,
  a: NonNullable<Expectations['acls']>[number],
  path: JsonPath,
): ExpectationResult {
  const want = {
    shadowed: [...a.shadowed].sort(),
    redundant: a.redundant ? [...a.redundant].sort() : undefined,
  };
  const label = `${a.pod}: ${want.shadowed.length ? `shadowed ${want.shadowed.join(', ')}` : 'no shadowed rule'}${
    want.redundant
      ? `; ${want.redundant.length ? `redundant ${want.redundant.join(', ')}` : 'no redundant rule'}`
      : ''
  }`;
  const result = (problems: string[]) => ({
    kind: 'acls' as const,
    label,
    ok: !problems.length,
    at: w.where(path),
    problems,
  });
  const pod = w.pods.get(a.pod);
  if (!pod?.endpointId || pod.phase !== 'Running')
    return result([`pod ${a.pod} is ${pod?.phase ?? 'Absent'}: no port to analyse`]);
  let analysis;
  try {
    analysis = analyzePort(w.winNode(pod.node).host, pod.endpointId);
  } catch (e) {
    return result([`the analysis could not run: ${errorText(e)}`]);
  }
  const rules = [...analysis.In.rules, ...analysis.Out.rules];
  const problems: string[] = [];
  const compare = (what: 'shadowed' | 'redundant', expected: readonly string[], got: typeof rules) => {
    const names = [...new Set(got.map((r) => ruleName(r.rule)))].sort();
    if (JSON.stringify(names) === JSON.stringify(expected)) return;
    problems.push(
      `expected ${what} ${expected.length ? expected.join(', ') : 'none'}, found ${names.length ? names.join(', ') : 'none'}:`,
    );
    const head = (r: (typeof rules)[number]) => `${ruleName(r.rule)} (${r.action} ${r.rule.priority ?? ''})`;
    for (const r of got)
      if (!expected.includes(ruleName(r.rule)))
        problems.push(
          what === 'shadowed'
            ? `${head(r)} decides nothing: ${r.shadowedBy.map((o) => outcomeLabel(o)).join(', ')} take(s) its packets`
            : `${head(r)} could go: no verdict would change`,
        );
    // an expected rule the analysis does not find so: what it does instead
    for (const name of expected) {
      if (names.includes(name)) continue;
      const r = rules.find((x) => ruleName(x.rule) === name);
      problems.push(
        !r
          ? `${name}: the port has no such rule`
          : what === 'shadowed'
            ? `${head(r)} is not shadowed: ${r.status === 'decides' ? `it decides ${r.decides.describe(2).join('; ')}` : `it is ${r.status}`}`
            : `${head(r)} is needed: removing it changes ${r.removalChanges.empty ? "the other direction (the port's only ACL)" : r.removalChanges.describe(2).join('; ')}`,
      );
    }
  };
  compare(
    'shadowed',
    want.shadowed,
    rules.filter((r) => r.status === 'shadowed'),
  );
  if (want.redundant)
    compare(
      'redundant',
      want.redundant,
      rules.filter((r) => r.redundant),
    );
  return result(problems);
}

/** Reach exactly: the packets delivered whatever a load balancer picks are the spec's, no more, no fewer. */
function checkReach(w: RunWorld, r: ReachExactSpec, path: JsonPath): ExpectationResult {
  const label = r.name ?? `${r.from} → ${r.to} delivers exactly ${r.exactly}`;
  const result = (problems: string[], errors = false): ExpectationResult => ({
    kind: 'reach',
    label,
    ok: !problems.length,
    at: w.where(path),
    problems,
    ...(errors ? { errors: 1 } : {}),
  });
  try {
    return result([...checkReachExactly(reachNamed(w.named(), r.from, r.to), r.exactly).problems]);
  } catch (e) {
    return result([`the analysis could not run: ${w.traceError(e, r.from, r.to)}`], true);
  }
}

/** Both lists, the first's order then what the second adds. */
const union = (a: readonly string[], b: readonly string[]) => [...new Set([...a, ...b])];

/**
 * Unchanged reachability: the differential of the pairs (default every running pod to every pod
 * and service, of either state) between this point and an earlier one (`since`); a miss is the
 * differential's text — per changed pair, the packets, what they got and what they get.
 */
async function checkReachUnchanged(
  w: RunWorld,
  r: ReachUnchangedSpec,
  where: JsonPath,
  path: JsonPath,
): Promise<ExpectationResult> {
  const steps = sinceSteps(w.doc, r.since, where) as number;
  const point = typeof r.since === 'number' ? `step ${r.since}` : r.since;
  const result = (label: string, problems: string[], errors = false): ExpectationResult => ({
    kind: 'reachUnchanged',
    label: r.name ?? label,
    ok: !problems.length,
    at: w.where(path),
    problems,
    ...(errors ? { errors: 1 } : {}),
  });
  try {
    const before = await w.earlier(steps);
    const from = r.from ?? union(before.runningPods(), w.runningPods());
    const to =
      r.to ?? union([...before.runningPods(), ...before.services()], [...w.runningPods(), ...w.services()]);
    const diffs = diffNamed(before.named(), w.named(), from, to);
    const changed = diffs.some((d) => !d.unchanged);
    return result(
      `reachability unchanged since ${point} (${diffs.length} pairs)`,
      changed ? renderReachDiff(diffs).trimEnd().split('\n') : [],
    );
  } catch (e) {
    return result(
      `reachability unchanged since ${point}`,
      [`the analysis could not run: ${errorText(e)}`],
      true,
    );
  }
}
