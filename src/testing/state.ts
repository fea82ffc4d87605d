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
    const names = eps.map((e) => String(e['Name'] ?? e['ID'])).join(', ') || 'none';
    return {
      pass: hit !== undefined,
      message: () =>
        hit
          ? `expected no endpoint matching ${JSON.stringify(fields)}, found ${String(hit['ID'])}`
          : `expected an endpoint matching ${JSON.stringify(fields)}; the node has: ${names}`,
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
 */
export const hnsimMatchers = { ...stateMatchers, ...flowMatchers };

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
}

/** `fields` ⊆ `doc`: objects key by key, arrays element by element, else the context's equality. */
function contains(ctx: MatcherContext, doc: unknown, fields: unknown): boolean {
  if (isJsonObject(fields) && isJsonObject(doc) && !isAsymmetric(fields)) {
    return Object.entries(fields).every(([k, v]) => contains(ctx, doc[k], v));
  }
  if (Array.isArray(fields) && Array.isArray(doc)) {
    return fields.length === doc.length && fields.every((v, i) => contains(ctx, doc[i], v));
  }
  return ctx.equals(doc, fields);
}

/** An `expect.any(…)` / `expect.stringMatching(…)`-style value: compared by `equals`, not key by key. */
function isAsymmetric(x: JsonObject): boolean {
  return typeof (x as { asymmetricMatch?: unknown }).asymmetricMatch === 'function';
}
