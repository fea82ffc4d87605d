/**
 * A canonical view of a node's objects, without history: the HNS objects as HNS returns them
 * (schema 2, by kind, sorted by ID, without the `Health` timestamps), the compute systems as HCS
 * lists them, and the node's files — no RNG state, counters, clock or pool bookkeeping. Two nodes
 * (or one node before and after a call that failed) hold the same objects exactly when their views
 * are equal, so "nothing changed" is one comparison. And vitest matchers built on it and on
 * `host.audit()`:
 *
 *   expect.extend(hnsimMatchers);             // types: HnsimMatchers (docs/testing.md)
 *   expect(host).toHaveNoLeaks();
 *   expect(host).toHaveEndpoint({ Name: 'pod1_cbr0', IpConfigurations: [{ IpAddress: '10.244.1.3' }] });
 *   expect(host).toMatchHnsState(before);      // a canonicalState taken earlier
 */
import type { Json, JsonObject } from '../core/json.js';
import { isJsonObject } from '../core/json.js';
import type { AuditOptions } from '../host/audit.js';
import type { Host } from '../host/host.js';
import { analysisMatchers, type ReachPairs } from './analysis.js';
import type { Network } from '../analysis/cuts.js';
import type { Reachability } from '../analysis/reach.js';
import { flowMatchers, type FlowOptions, type MatcherResult, type RuleMatcher } from './flows.js';

export interface CanonicalState {
  readonly networks: readonly JsonObject[];
  readonly endpoints: readonly JsonObject[];
  readonly namespaces: readonly JsonObject[];
  readonly loadBalancers: readonly JsonObject[];
  readonly routes: readonly JsonObject[];
  readonly computeSystems: readonly JsonObject[];
  readonly files: Readonly<Record<string, string>>;
}

const KINDS = [
  ['networks', 'Networks', 'Network'],
  ['endpoints', 'Endpoints', 'Endpoint'],
  ['namespaces', 'Namespaces', 'Namespace'],
  ['loadBalancers', 'LoadBalancers', 'LoadBalancer'],
  ['routes', 'SdnRoutes', 'SdnRoute'],
] as const;

/** Drop what records when rather than what: `Health` (timestamps, activity IDs). */
function withoutHistory(doc: JsonObject): JsonObject {
  const { Health: _h, ...rest } = doc;
  return rest;
}

function byId(a: JsonObject, b: JsonObject): number {
  const x = String(a['ID'] ?? a['Id'] ?? '');
  const y = String(b['ID'] ?? b['Id'] ?? '');
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The node's objects, canonical (see the module comment). Read-only; nothing is emitted. */
export function canonicalState(host: Host): CanonicalState {
  const query = JSON.stringify({ SchemaVersion: { Major: 2, Minor: 0 } });
  const out: Record<string, JsonObject[]> = {};
  for (const [key, plural, kind] of KINDS) {
    const ids = host.api.call(`HcnEnumerate${plural}` as never, [query]);
    const list: JsonObject[] = [];
    if (ids?.ok && Array.isArray(ids.result)) {
      for (const id of ids.result as Json[]) {
        const r = host.api.call(`HcnQuery${kind}Properties` as never, [id, query]);
        if (r?.ok && isJsonObject(r.result)) list.push(withoutHistory(r.result));
      }
    }
    out[key] = list.sort(byId);
  }
  const systems = host.hcs
    .enumerate()
    .map((d) => {
      const { RuntimeId: _r, ...rest } = d;
      return rest;
    })
    .sort(byId);
  return {
    networks: out['networks']!,
    endpoints: out['endpoints']!,
    namespaces: out['namespaces']!,
    loadBalancers: out['loadBalancers']!,
    routes: out['routes']!,
    computeSystems: systems,
    files: Object.fromEntries(host.files.entries()),
  };
}

// ───────────────────────────────────────── matchers ─────────────────────────────────────────

/** What a matcher's `this` offers that these use (vitest's and jest's both have it). */
interface MatcherContext {
  readonly isNot?: boolean;
  equals(a: unknown, b: unknown): boolean;
}

function isHost(x: unknown): x is Host {
  return typeof x === 'object' && x !== null && 'hns' in x && 'api' in x && 'files' in x && 'audit' in x;
}

function notAHost(name: string): MatcherResult {
  return {
    pass: false,
    message: () => `${name}: expected a simulated host (createHost()), got something else`,
  };
}

/** The matchers on a host's objects (see `hnsimMatchers`). */
const stateMatchers = {
  toHaveNoLeaks(
    this: MatcherContext,
    received: unknown,
    options?: Parameters<Host['audit']>[0],
  ): MatcherResult {
    if (!isHost(received)) return notAHost('toHaveNoLeaks');
    const found = received.audit(options);
    return {
      pass: found.length === 0,
      message: () =>
        found.length === 0
          ? 'expected the node to leak something, and it holds nothing left over'
          : `expected no leaks, found ${found.length}:\n${found.map((f) => `  ${f.kind} ${f.object}: ${f.detail}`).join('\n')}`,
    };
  },

  toHaveEndpoint(this: MatcherContext, received: unknown, want: string | JsonObject): MatcherResult {
    if (!isHost(received)) return notAHost('toHaveEndpoint');
    const eps = canonicalState(received).endpoints;
    const fields: JsonObject = typeof want === 'string' ? { Name: want } : want;
    const hit = eps.find((e) => contains(this, e, fields));
    return {
      pass: hit !== undefined,
      message: () =>
        hit
          ? `expected no endpoint matching ${show(fields)}, found ${String(hit['ID'])}`
          : missingEndpoint(this, eps, fields),
    };
  },

  toMatchHnsState(this: MatcherContext, received: unknown, state: CanonicalState): MatcherResult {
    if (!isHost(received)) return notAHost('toMatchHnsState');
    const now = canonicalState(received);
    const pass = this.equals(now, state);
    const differing = (Object.keys(now) as (keyof CanonicalState)[]).filter(
      (k) => !this.equals(now[k], state[k]),
    );
    return {
      pass,
      message: () =>
        pass
          ? 'expected the node to differ from the given state, and it holds the same objects'
          : `expected the node to hold the same objects; these differ: ${differing.join(', ')}\n${differing
              .map((k) => `  ${k}: ${JSON.stringify(state[k])}\n  now: ${JSON.stringify(now[k])}`)
              .join('\n')}`,
    };
  },
};

/**
 * vitest (or jest) matchers: `expect.extend(hnsimMatchers)`, typed by `HnsimMatchers`.
 * - `toHaveNoLeaks(options?)`: `host.audit(options)` is empty; the failure lists the findings.
 * - `toHaveEndpoint(name | fields)`: an endpoint with that name, or whose HNS document has at
 *   least those fields (`expect.objectContaining` semantics, nested).
 * - `toMatchHnsState(state)`: `canonicalState(host)` equals `state` (taken earlier, or built).
 * - `toReach(target, options?)` and `toBeDeniedBy(rule)`: over a trace (src/testing/flows.ts).
 * - `toHaveNoShadowedRules()`: over an ACL analysis; `toReachExactly(spec)`: over a reachability
 *   answer; `toKeepReachability(before, pairs?)`: over a host or cluster (src/testing/analysis.ts).
 */
export const hnsimMatchers = { ...stateMatchers, ...flowMatchers, ...analysisMatchers };

/**
 * The matchers' types, for vitest's `Assertion` (or jest's `Matchers`):
 *
 *   declare module 'vitest' {
 *     interface Assertion<T> extends HnsimMatchers<T> {}
 *   }
 */
export interface HnsimMatchers<R = unknown> {
  toHaveNoLeaks(options?: AuditOptions): R;
  toHaveEndpoint(want: string | JsonObject): R;
  toMatchHnsState(state: CanonicalState): R;
  toReach(target?: string, options?: FlowOptions): R;
  toBeDeniedBy(rule: RuleMatcher): R;
  toHaveNoShadowedRules(): R;
  toReachExactly(spec: string): R;
  toKeepReachability(before: Network | Reachability | readonly Reachability[], pairs?: ReachPairs): R;
}

/** `fields` ⊆ `doc`: objects key by key, arrays element by element, else the context's equality. */
function contains(ctx: MatcherContext, doc: unknown, fields: unknown): boolean {
  return fieldDiff(ctx, doc, fields).every((d) => d.ok);
}

/** One expected field (a leaf of `fields`) against what a document has there. */
interface FieldDiff {
  /** `IpConfigurations[0].IpAddress`. */
  readonly path: string;
  readonly ok: boolean;
  readonly expected: unknown;
  /** What the document has there (`undefined`: nothing). */
  readonly found: unknown;
}

/**
 * `fields` against `doc`, leaf by leaf: an object key by key, a list item by item when the lengths
 * agree (else the list is one leaf), anything else — asymmetric matchers included — by the
 * context's equality.
 */
function fieldDiff(ctx: MatcherContext, doc: unknown, fields: unknown, path = ''): FieldDiff[] {
  if (isJsonObject(fields) && !isMatcher(fields) && isJsonObject(doc))
    return Object.entries(fields).flatMap(([k, v]) => fieldDiff(ctx, doc[k], v, path ? `${path}.${k}` : k));
  if (Array.isArray(fields) && Array.isArray(doc) && fields.length === doc.length)
    return fields.flatMap((v, i) => fieldDiff(ctx, doc[i], v, `${path}[${i}]`));
  return [{ path: path || '(the document)', ok: ctx.equals(doc, fields), expected: fields, found: doc }];
}

/** An asymmetric matcher by its name and sample (`StringMatching /_cbr0$/`, `Any<String>`). */
function showMatcher(m: { toString(): string; sample?: unknown }): string {
  const name = m.toString();
  const sample = m.sample;
  if (sample === undefined) return name;
  if (typeof sample === 'function') return `${name}<${sample.name}>`;
  return `${name} ${sample instanceof RegExp ? String(sample) : JSON.stringify(sample)}`;
}

/** An `expect.any(…)` / `expect.stringMatching(…)`-style value: compared by `equals`, not key by key. */
const isMatcher = (v: unknown): v is { asymmetricMatch: unknown; sample?: unknown } =>
  v !== null &&
  typeof v === 'object' &&
  typeof (v as { asymmetricMatch?: unknown }).asymmetricMatch === 'function';

/** A value as a message shows it: JSON (cut at 200 characters), an asymmetric matcher by its name. */
function show(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (isMatcher(v)) return showMatcher(v);
  const text = JSON.stringify(v, (_k, x: unknown) => (isMatcher(x) ? showMatcher(x) : x));
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

/**
 * Why no endpoint matches: the closest one (the fewest expected fields that differ; the first by
 * ID on a tie) field by field — each expected field, what it has there — and every endpoint's name.
 */
function missingEndpoint(ctx: MatcherContext, eps: readonly JsonObject[], fields: JsonObject): string {
  const head = `expected an endpoint matching ${show(fields)}`;
  if (!eps.length) return `${head}; the node has no endpoints`;
  let best: { ep: JsonObject; diff: FieldDiff[]; wrong: number } | undefined;
  for (const ep of eps) {
    const diff = fieldDiff(ctx, ep, fields);
    const wrong = diff.filter((d) => !d.ok).length;
    if (!best || wrong < best.wrong) best = { ep, diff, wrong };
  }
  const { ep, diff, wrong } = best!;
  const name = ep['Name'] ? `${String(ep['Name'])} (${String(ep['ID'])})` : String(ep['ID']);
  const lines = diff.map((d) =>
    d.ok
      ? `  = ${d.path}: ${show(d.found)}`
      : `  ✗ ${d.path}: expected ${show(d.expected)}, found ${show(d.found)}`,
  );
  const names = eps.map((e) => String(e['Name'] || e['ID'])).join(', ');
  return [
    `${head}; none of the node's ${eps.length} endpoint(s) does.`,
    `The closest, ${name}, differs in ${wrong} of ${diff.length} field(s):`,
    ...lines,
    `the node has: ${names}`,
  ].join('\n');
}
