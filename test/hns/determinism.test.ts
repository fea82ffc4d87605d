/**
 * Determinism and snapshots (DESIGN contract 1; src/hns/lifecycle.ts): the same seed and the same
 * calls give byte-identical results — IDs, allocated addresses and MACs included — and snapshots on
 * two hosts; another seed gives other IDs; a snapshot restored on a fresh host snapshots back
 * exactly, and the calls that follow give the same results as on the host it was taken from (the
 * RNG, the clock, the pools and the indexes come back with it).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { FLAT_API_METHODS, isFailure, type FlatApiMethod, type HcnResult } from '../../src/api/flat.js';
import { isJsonObject, type Json, type JsonObject } from '../../src/core/json.js';
import { createHost, type Host } from '../../src/host/host.js';
import {
  endpointDoc,
  HNS_ARB,
  invalidDoc,
  loadBalancerDoc,
  namespaceDoc,
  networkDoc,
  policies,
  sdnRouteDoc,
} from '../../src/testing/index.js';
import { runs } from '../runs.js';

// ───────────────────────────── scripts ─────────────────────────────

type Kind = 'Network' | 'Endpoint' | 'Namespace' | 'LoadBalancer' | 'SdnRoute';

/**
 * A script step: a flat API call whose arguments may hold placeholders `@<Kind>#<k>` (the k-th
 * object of that kind the script created, modulo their number), or a host operation.
 */
type ScriptStep =
  | { readonly op: 'call'; readonly method: FlatApiMethod; readonly args: readonly Json[] }
  | { readonly op: 'restartHns' | 'reboot' };

const ref = (kind: Kind, k: number): string => `@${kind}#${k}`;
const refs = (kind: Kind): string[] => [0, 1, 2].map((k) => ref(kind, k));
const pick = fc.nat(7);

const call = (method: FlatApiMethod, ...args: Json[]): ScriptStep => ({ op: 'call', method, args });

/** Steps over every kind of object, valid mostly, with a few bad documents and host operations. */
const stepArb: fc.Arbitrary<ScriptStep> = fc.oneof(
  { weight: 4, arbitrary: networkDoc().map((d) => call('HcnCreateNetwork', null, d)) },
  {
    weight: 8,
    arbitrary: fc
      .tuple(pick, endpointDoc(undefined, { subnets: HNS_ARB.ipv4Subnets.map((s) => s.prefix) }))
      .map(([k, d]) => call('HcnCreateEndpoint', ref('Network', k), null, d)),
  },
  { weight: 3, arbitrary: namespaceDoc(refs('Endpoint')).map((d) => call('HcnCreateNamespace', null, d)) },
  {
    weight: 3,
    arbitrary: fc.tuple(pick, pick, fc.constantFrom('Add', 'Remove')).map(([n, e, t]) =>
      call('HcnModifyNamespace', ref('Namespace', n), {
        ResourceType: 'Endpoint',
        RequestType: t,
        Settings: { EndpointId: ref('Endpoint', e) },
      }),
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(pick, fc.constantFrom('Add', 'Remove', 'Update'), policies('endpoint', {}, 2))
      .map(([e, t, p]) =>
        call('HcnModifyEndpoint', ref('Endpoint', e), {
          ResourceType: 'Policy',
          RequestType: t,
          Settings: { Policies: p },
        }),
      ),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(pick, fc.constantFrom(...HNS_ARB.ipv4Subnets), fc.constantFrom('Add', 'Remove'))
      .map(([n, s, t]) =>
        call('HcnModifyNetwork', ref('Network', n), {
          ResourceType: 'Subnet',
          RequestType: t,
          Settings: {
            Subnets: [
              { IpAddressPrefix: s.prefix, Routes: [{ NextHop: s.gateway, DestinationPrefix: '0.0.0.0/0' }] },
            ],
          },
        }),
      ),
  },
  {
    weight: 3,
    arbitrary: loadBalancerDoc(refs('Endpoint')).map((d) => call('HcnCreateLoadBalancer', null, d)),
  },
  { weight: 2, arbitrary: sdnRouteDoc(refs('Endpoint')).map((d) => call('HcnCreateSdnRoute', null, d)) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom<Kind>('Network', 'Endpoint', 'Namespace', 'LoadBalancer', 'SdnRoute'), pick)
      .map(([kind, k]) => call(`HcnDelete${kind}`, ref(kind, k))),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.constantFrom<Kind>('Network', 'Endpoint', 'Namespace', 'LoadBalancer', 'SdnRoute'),
        pick,
        fc.constantFrom(0, 1),
      )
      .map(([kind, k, flags]) => call(`HcnQuery${kind}Properties`, ref(kind, k), { Flags: flags })),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom<Kind>('Network', 'Endpoint', 'Namespace', 'LoadBalancer', 'SdnRoute')
      .map((kind) => call(`HcnEnumerate${kind}s`)),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(pick, fc.constantFrom(...HNS_ARB.vips)).map(([e, vip]) =>
      call('HNSCall', 'POST', '/policylists/', {
        References: [`/endpoints/${ref('Endpoint', e)}`],
        Policies: [{ Type: 'ELB', Protocol: 6, InternalPort: 80, ExternalPort: 80, VIPs: [vip] }],
      }),
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(pick, fc.constantFrom('attach', 'detach'))
      .map(([e, a]) =>
        call('HNSCall', 'POST', `/endpoints/${ref('Endpoint', e)}/${a}`, { SystemType: 'Host' }),
      ),
  },
  { weight: 1, arbitrary: fc.constant(call('HNSCall', 'GET', '/endpoints/', '')) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom<FlatApiMethod>(...FLAT_API_METHODS.filter((m) => m.startsWith('HcnCreate'))),
        invalidDoc(),
      )
      .map(([m, d]) => (m === 'HcnCreateEndpoint' ? call(m, ref('Network', 0), null, d) : call(m, null, d))),
  },
  { weight: 1, arbitrary: fc.constant<ScriptStep>({ op: 'restartHns' }) },
  { weight: 1, arbitrary: fc.constant<ScriptStep>({ op: 'reboot' }) },
);

const scriptArb = fc.array(stepArb, { minLength: 5, maxLength: 40 });

/** Objects the script created, per kind, in order (what placeholders resolve to). */
type Created = Record<Kind, string[]>;

const KIND_OF: Readonly<Partial<Record<FlatApiMethod, Kind>>> = {
  HcnCreateNetwork: 'Network',
  HcnCreateEndpoint: 'Endpoint',
  HcnCreateNamespace: 'Namespace',
  HcnCreateLoadBalancer: 'LoadBalancer',
  HcnCreateSdnRoute: 'SdnRoute',
};

function resolve(v: Json, created: Created): Json {
  if (typeof v === 'string') {
    return v.replace(
      /@(Network|Endpoint|Namespace|LoadBalancer|SdnRoute)#(\d+)/g,
      (_m, kind: Kind, k: string) => {
        const ids = created[kind];
        return ids.length ? ids[Number(k) % ids.length]! : '0C0FFEE0-0000-4000-8000-00000000B001';
      },
    );
  }
  if (Array.isArray(v)) return v.map((x) => resolve(x, created));
  if (isJsonObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x, created)]));
  return v;
}

/** Run `steps` on `host`, returning one JSON line per step (the call's result, or the host op). */
function run(host: Host, steps: readonly ScriptStep[], created: Created = emptyCreated()): string[] {
  const api = host.api as unknown as Record<FlatApiMethod, (...a: unknown[]) => HcnResult<unknown>>;
  return steps.map((step) => {
    if (step.op !== 'call') {
      host[step.op]();
      return step.op;
    }
    const args = step.args.map((a) => resolve(a, created));
    const r = api[step.method]!.apply(host.api, args);
    const kind = KIND_OF[step.method];
    if (kind && !isFailure(r)) created[kind].push((r.result as JsonObject).ID as string);
    return JSON.stringify(r);
  });
}

function emptyCreated(): Created {
  return { Network: [], Endpoint: [], Namespace: [], LoadBalancer: [], SdnRoute: [] };
}

const PROFILES = ['ws2019', 'ws2022', 'ws2025'] as const;

const seedArb = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });

// ───────────────────────────── properties ─────────────────────────────

describe('determinism', () => {
  it('the same seed and the same calls give byte-identical results and snapshots on two hosts', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PROFILES), seedArb, scriptArb, (profile, seed, script) => {
        const a = createHost({ seed, profile });
        const b = createHost({ seed, profile });
        const ra = run(a, script);
        const rb = run(b, script);
        expect(rb.join('\n')).toBe(ra.join('\n'));
        expect(JSON.stringify(b.snapshot())).toBe(JSON.stringify(a.snapshot()));
      }),
      { numRuns: runs(50, 1_500) },
    );
  });

  it('a different seed gives different IDs', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...PROFILES),
        fc.uniqueArray(seedArb, { minLength: 2, maxLength: 2 }),
        (profile, [s1, s2]) => {
          const ids = (seed: number) => {
            const h = createHost({ seed, profile });
            const n = h.api.HcnCreateNetwork(null, { Name: 'nat', Type: 'NAT' });
            if (isFailure(n)) throw new Error(n.message);
            const e = h.api.HcnCreateEndpoint(n.result.ID, null, { Name: 'eth0' });
            if (isFailure(e)) throw new Error(e.message);
            const ns = h.api.HcnEnumerateNamespaces();
            return [n.result.ID, e.result.ID, ...(isFailure(ns) ? [] : ns.result)];
          };
          const x = ids(s1!);
          const y = ids(s2!);
          for (let i = 0; i < x.length; i++)
            expect(y[i], `ID #${i} for seeds ${s1} and ${s2}`).not.toBe(x[i]);
          // and the same seed again gives the same IDs
          expect(ids(s1!)).toEqual(x);
        },
      ),
      { numRuns: runs(35, 1_000) },
    );
  });

  it('a snapshot restored on a fresh host snapshots back exactly, and the calls after it give the same results', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...PROFILES),
        seedArb,
        seedArb,
        scriptArb,
        scriptArb,
        fc.boolean(),
        (profile, seed, otherSeed, before, after, viaText) => {
          const a = createHost({ seed, profile });
          const created = emptyCreated();
          run(a, before, created);
          const snap = a.snapshot();
          // a fresh host with another seed: everything it has is replaced
          const c = createHost({ seed: otherSeed, profile });
          c.restore(viaText ? JSON.parse(JSON.stringify(snap)) : snap);
          expect(c.snapshot()).toEqual(snap);
          expect(JSON.stringify(c.snapshot())).toBe(JSON.stringify(snap));
          // the restored host continues exactly as the original: RNG, clock, pools, indexes
          const createdC: Created = structuredClone(created);
          const ra = run(a, after, created);
          const rc = run(c, after, createdC);
          expect(rc.join('\n')).toBe(ra.join('\n'));
          expect(c.snapshot()).toEqual(a.snapshot());
          expect(JSON.stringify(c.snapshot())).toBe(JSON.stringify(a.snapshot()));
        },
      ),
      { numRuns: runs(50, 1_500) },
    );
  });
});
