/**
 * kube-proxy's incremental sync (the default: a pod or service change re-programs the services it
 * touches) leaves every node with the same objects as the full sync (`kubeProxySync: 'full'`, every
 * load balancer re-created on every change), for random sequences of pod and service adds and
 * deletes on a small cluster: two l2bridge nodes, an overlay pair, a Linux node. Only GUIDs and
 * enumeration order may differ (the full sync draws an ID for every load balancer it re-creates),
 * so objects are compared with every GUID replaced by what the object is, and sorted.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Cluster } from '../../src/cluster/cluster.js';
import type { Json, JsonObject } from '../../src/core/json.js';
import { canonicalState } from '../../src/testing/state.js';
import { runs } from '../runs.js';

type Op =
  | { readonly t: 'pod'; readonly name: number; readonly node: number; readonly app: number }
  | { readonly t: 'unpod'; readonly name: number }
  | {
      readonly t: 'svc';
      readonly name: number;
      readonly app: number;
      readonly nodePort: boolean;
      readonly local: boolean;
      readonly external: boolean;
      readonly headless: boolean;
    }
  | { readonly t: 'unsvc'; readonly name: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    arbitrary: fc.record({
      t: fc.constant('pod' as const),
      name: fc.nat(11),
      node: fc.nat(4),
      app: fc.nat(2),
    }),
    weight: 4,
  },
  { arbitrary: fc.record({ t: fc.constant('unpod' as const), name: fc.nat(11) }), weight: 2 },
  {
    arbitrary: fc.record({
      t: fc.constant('svc' as const),
      name: fc.nat(4),
      app: fc.nat(2),
      nodePort: fc.boolean(),
      local: fc.boolean(),
      external: fc.boolean(),
      headless: fc.boolean(),
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ t: fc.constant('unsvc' as const), name: fc.nat(4) }), weight: 1 },
);

const NODES = ['w1', 'w2', 'o1', 'o2', 'lx'];

function cluster(mode: 'incremental' | 'full', layout: 'l2bridge' | 'overlay', dsr: boolean): Cluster {
  const c = new Cluster({ seed: 3, kubeProxySync: mode, dsr });
  c.addWindowsNode({ name: 'w1', network: layout });
  c.addWindowsNode({ name: 'w2', network: layout });
  c.addWindowsNode({ name: 'o1', network: layout });
  c.addWindowsNode({ name: 'o2', network: layout });
  c.addLinuxNode({
    name: 'lx',
    backend: layout === 'l2bridge' ? 'host-gw' : 'vxlan',
    vni: 4096,
    vxlanPort: 4789,
  });
  return c;
}

/** Apply `op` when it makes sense for the cluster's current objects (a no-op otherwise). */
function apply(c: Cluster, op: Op): void {
  switch (op.t) {
    case 'pod':
      if (c.pod(`default/p${op.name}`)) return;
      c.addPod({
        namespace: 'default',
        name: `p${op.name}`,
        node: NODES[op.node]!,
        labels: { app: `a${op.app}` },
      });
      return;
    case 'unpod':
      c.removePod('default', `p${op.name}`);
      return;
    case 'svc':
      if (c.service(`default/s${op.name}`)) return;
      c.addService({
        namespace: 'default',
        name: `s${op.name}`,
        ...(op.headless ? { clusterIP: 'None' } : {}),
        ...(op.nodePort ? { type: 'NodePort' as const } : {}),
        ports: [{ port: 80, targetPort: 8080, ...(op.nodePort ? { nodePort: 30000 + op.name } : {}) }],
        selector: { app: `a${op.app}` },
        ...(op.local ? { externalTrafficPolicy: 'Local' as const } : {}),
        ...(op.external ? { externalIPs: [`198.51.100.${op.name + 1}`] } : {}),
      });
      return;
    case 'unsvc':
      c.removeService('default', `s${op.name}`);
  }
}

const GUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

/** Every GUID replaced by what it names (an endpoint's name or address), lists sorted by their JSON. */
function normalize(v: Json, names: ReadonlyMap<string, string>): Json {
  if (typeof v === 'string') return GUID.test(v) ? (names.get(v.toUpperCase()) ?? 'guid') : v;
  if (Array.isArray(v))
    return v.map((x) => normalize(x, names)).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalize(x, names)]));
  return v;
}

function nodeState(c: Cluster, node: string): Json {
  const host = c.host(node);
  const st = canonicalState(host);
  const names = new Map<string, string>();
  for (const e of st.endpoints) {
    const ip = ((e['IpConfigurations'] as JsonObject[] | undefined)?.[0]?.['IpAddress'] as string) ?? '';
    names.set(String(e['ID']).toUpperCase(), `endpoint ${String(e['Name'] ?? '')} ${ip}`);
  }
  for (const n of st.networks) names.set(String(n['ID']).toUpperCase(), `network ${String(n['Name'])}`);
  for (const n of st.namespaces)
    names.set(String(n['ID']).toUpperCase(), `namespace ${String(n['NamespaceId'])}`);
  const { computeSystems: _c, files: _f, ...objects } = st;
  return normalize(objects as unknown as Json, names);
}

function state(c: Cluster): Json {
  const out: JsonObject = {};
  for (const n of ['w1', 'w2', 'o1', 'o2']) out[n] = nodeState(c, n);
  out['lx'] = [...c.linux('lx').services].map(([k, s]) => ({ k, s: JSON.parse(JSON.stringify(s)) as Json }));
  return out;
}

describe('kube-proxy sync: incremental = full', () => {
  it('random pod and service adds and deletes leave the same objects on every node', () => {
    fc.assert(
      fc.property(
        fc.array(opArb, { minLength: 1, maxLength: 30 }),
        fc.constantFrom('l2bridge' as const, 'overlay' as const),
        fc.boolean(),
        (ops, layout, dsr) => {
          const inc = cluster('incremental', layout, dsr);
          const full = cluster('full', layout, dsr);
          for (const op of ops) {
            apply(inc, op);
            apply(full, op);
          }
          expect(state(inc)).toEqual(state(full));
          // pods the cluster programs have no containers: their namespaces are the only findings
          for (const n of ['w1', 'w2', 'o1', 'o2'])
            expect(
              inc
                .host(n)
                .audit()
                .filter((f) => f.kind !== 'namespace-without-container'),
            ).toEqual([]);
        },
      ),
      { numRuns: runs(20, 600) },
    );
  });

  it('a load balancer deleted behind the cluster is re-created by the next change, as a full sync does', () => {
    const run = (mode: 'incremental' | 'full') => {
      const c = cluster(mode, 'l2bridge', false);
      c.addPod({ namespace: 'default', name: 'a', node: 'w1', labels: { app: 'a' } });
      c.addPod({ namespace: 'default', name: 'b', node: 'w2', labels: { app: 'b' } });
      c.addService({ namespace: 'default', name: 'sa', ports: [{ port: 80 }], selector: { app: 'a' } });
      c.addService({ namespace: 'default', name: 'sb', ports: [{ port: 80 }], selector: { app: 'b' } });
      const h = c.host('w2');
      for (const id of h.hns.store.loadBalancers.keys()) h.api.HcnDeleteLoadBalancer(id);
      c.addPod({ namespace: 'default', name: 'c', node: 'w1', labels: { app: 'c' } });
      return state(c);
    };
    const inc = run('incremental');
    expect(inc).toEqual(run('full'));
    expect((inc as { w2: { loadBalancers: unknown[] } }).w2.loadBalancers).toHaveLength(2);
  });
});
