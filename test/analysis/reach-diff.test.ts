/**
 * Differential reachability (src/analysis/reach-diff.ts) against the traces of both states: a
 * state against itself is unchanged; after a random change (an ACL added on an endpoint, a load
 * balancer's backends, frontend port or DSR flag, OutBoundNAT exceptions) a packet lies in a
 * change exactly when the dispositions the two states' traces give it differ (with a
 * load-balancer fork, the set of its branches' dispositions), and that change says what each
 * trace gave. Vectors with hand-written sets: an ACL added on a backend, a backend added, a
 * service's port changed; a pod that exists in one state only is `missing`; a pod recreated at
 * another address is compared by ports. Seed: vitest.setup.ts.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import '../../src/analysis/analyze.js';
import { flowSpecSet } from '../../src/analysis/flowspec.js';
import { diffReach, diffReachAll, type ReachDiff } from '../../src/analysis/reach-diff.js';
import { ReachContext, type Reachability } from '../../src/analysis/reach.js';
import { Cluster } from '../../src/cluster/cluster.js';
import { HnsError } from '../../src/core/errors.js';
import type { JsonObject } from '../../src/core/json.js';
import type { TraceResult } from '../../src/dataplane/trace.js';
import type { Host } from '../../src/host/host.js';
import type { Disposition } from '../../src/vswitch/contracts.js';
import {
  createEndpoint,
  createNetwork,
  HOST_IP,
  newHost,
  ok,
  SCHEMA,
  walkText,
} from '../dataplane/prop-kit.js';
import { runs } from '../runs.js';
import {
  aclArb,
  buildState,
  destArb,
  destName,
  flowArb,
  flowPacket,
  onNotedDiagonal,
  ipNum,
  lbArb,
  probeFlows,
  sourceArb,
  sourceName,
  stateArb,
  subnetOf,
  traceFlow,
  VIPS,
  type DestRef,
  type Flow,
  type LbSpec,
  type Net,
  type SourceRef,
  type StateSpec,
  SOAK_TIMEOUT,
} from './reach-kit.js';

/** The dispositions a trace gives a packet: its branches' when it forks, else its own. */
function traced(t: TraceResult): Disposition[] {
  const all = t.branches ? t.branches.map((b) => b.disposition) : [t.disposition];
  return [...new Set(all)].sort();
}

const sorted = (ds: readonly Disposition[]) => [...ds].sort();

/**
 * The diff against both states' traces for one flow: in a change iff the traces' dispositions
 * differ, and then in exactly one, whose before/after are the traces'.
 */
function checkDiffFlow(
  x: Net,
  y: Net,
  before: Reachability,
  after: Reachability,
  d: ReachDiff,
  f: Flow,
): boolean {
  // (packets the answers say they do not work out: their own reply, counted with their class)
  const tb = traceFlow(x, before, f);
  const ta = traceFlow(y, after, f);
  if (onNotedDiagonal(before, tb) || onNotedDiagonal(after, ta)) return false;
  const db = traced(tb);
  const da = traced(ta);
  const p = flowPacket(after, f);
  const holders = d.changes.filter((c) => c.set.has(p));
  const differs = db.join() !== da.join();
  const ok = differs
    ? holders.length === 1 &&
      sorted(holders[0]!.before).join() === db.join() &&
      sorted(holders[0]!.after).join() === da.join()
    : holders.length === 0;
  const msg = `${after.from} → ${after.to} proto ${f.proto} ${f.srcPort} → ${f.dstPort}: traces ${db} → ${da}; changes holding it: ${JSON.stringify(
    holders.map((c) => [c.before, c.after]),
  )}\nbefore: ${walkText(tb)}\nafter: ${walkText(ta)}`;
  expect(ok, msg).toBe(true);
  return differs;
}

/** Flows to try: the given ones, each change's witness, each outcome's of both answers. */
function diffFlows(before: Reachability, after: Reachability, d: ReachDiff, flows: readonly Flow[]): Flow[] {
  const out = [...probeFlows(after, flows), ...probeFlows(before, flows.slice(0, 2))];
  for (const c of d.changes) {
    const w = c.set.witness();
    if (w) out.push({ proto: w.protocol, srcPort: w.srcPort, dstPort: w.dstPort });
  }
  return out;
}

// ───────────────────────────── changes ─────────────────────────────

type Change =
  | { readonly kind: 'acl'; readonly endpoint: number; readonly rule: JsonObject }
  | { readonly kind: 'backends'; readonly lb: number; readonly backends: readonly number[] }
  | { readonly kind: 'port'; readonly lb: number; readonly external: number }
  | { readonly kind: 'dsr'; readonly lb: number }
  | { readonly kind: 'exceptions'; readonly endpoint: number; readonly exceptions: readonly string[] }
  | { readonly kind: 'newLb'; readonly lb: StateSpec['lbs'][number] };

function changeArb(type: StateSpec['type']): fc.Arbitrary<Change> {
  return fc.oneof(
    fc.record({ kind: fc.constant('acl' as const), endpoint: fc.nat(3), rule: aclArb(subnetOf(type)) }),
    fc.record({
      kind: fc.constant('backends' as const),
      lb: fc.nat(1),
      backends: fc.uniqueArray(fc.nat(3), { minLength: 1, maxLength: 3 }),
    }),
    fc.record({
      kind: fc.constant('port' as const),
      lb: fc.nat(1),
      external: fc.constantFrom(80, 443, 53, 8080),
    }),
    fc.record({ kind: fc.constant('dsr' as const), lb: fc.nat(1) }),
    fc.record({
      kind: fc.constant('exceptions' as const),
      endpoint: fc.nat(3),
      exceptions: fc.constantFrom([], ['10.244.0.0/16'], ['10.96.0.0/12', '8.8.8.0/24']),
    }),
    fc.record({ kind: fc.constant('newLb' as const), lb: lbArb }),
  );
}

/** The spec after the change (a change to something the spec does not have adds nothing). */
function applyChange(s: StateSpec, c: Change): StateSpec {
  const endpoints = s.endpoints.map((e, i) => {
    if (c.kind === 'acl' && i === c.endpoint % s.endpoints.length) return { ...e, acls: [...e.acls, c.rule] };
    if (c.kind === 'exceptions' && i === c.endpoint % s.endpoints.length)
      return { ...e, snat: { exceptions: c.exceptions, virtualIp: false, destinations: [] } };
    return e;
  });
  const lbs = s.lbs.map((lb, i) => {
    if (!('lb' in c) || typeof c.lb !== 'number' || i !== c.lb % s.lbs.length) return lb;
    if (c.kind === 'backends') return { ...lb, backends: c.backends };
    if (c.kind === 'port') return { ...lb, external: c.external };
    return { ...lb, dsr: !lb.dsr };
  });
  return { ...s, endpoints, lbs: c.kind === 'newLb' ? [...lbs, c.lb] : lbs };
}

const pairsArb = fc.array(fc.tuple(sourceArb, destArb), { minLength: 1, maxLength: 3 });

/** The VIP (or node address, for a NodePort) of a load balancer of the spec. */
function frontend(lb: LbSpec): DestRef {
  return lb.vip === 'nodePort' ? 'hostIp' : lb.vip === 0 ? 'vip0' : 'vip1';
}

/**
 * Pairs whose packets the change meets, beside the random ones: from and to the endpoint it
 * touches, to the frontend of the load balancer it touches (the other side from the first pair).
 */
function touched(
  s: StateSpec,
  c: Change,
  pairs: readonly (readonly [SourceRef, DestRef])[],
): [SourceRef, DestRef][] {
  const [src, dst] = pairs[0]!;
  switch (c.kind) {
    case 'acl':
    case 'exceptions':
      return [
        [{ ep: c.endpoint, by: 'name' }, dst],
        [src, { ep: c.endpoint, by: 'ip' }],
      ];
    case 'newLb':
      return [[src, frontend(c.lb)]];
    default:
      return s.lbs.length ? [[src, frontend(s.lbs[c.lb % s.lbs.length]!)]] : [];
  }
}

describe('diffReach against the traces of both states', () => {
  test.prop([stateArb, pairsArb], { numRuns: runs(25, 250) })(
    'a state against itself (built again from the same calls) is unchanged',
    (spec, pairs) => {
      const x = buildState(spec);
      const y = buildState(spec);
      if (!x.endpoints.length) return;
      const context = new ReachContext();
      for (const [s, dst] of pairs) {
        const from = sourceName(x, s);
        const to = destName(x, dst);
        if (from === to) continue;
        const d = diffReach(
          x.host.analyze({ from, to }, { context }),
          y.host.analyze({ from, to }, { context }),
        );
        expect(d.changes.map((c) => [c.before, c.after, c.set.describe()])).toEqual([]);
        expect(d.unchanged).toBe(true);
        expect(d.missing).toBeUndefined();
      }
    },
    SOAK_TIMEOUT,
  );

  test.prop(
    [
      stateArb.chain((s) => fc.tuple(fc.constant(s), changeArb(s.type))),
      pairsArb,
      fc.array(flowArb, { minLength: 8, maxLength: 14 }),
    ],
    { numRuns: runs(50, 500) },
  )(
    'after a change, a packet is in a change exactly when its traces’ dispositions differ, with those dispositions',
    ([spec, change], pairs, flows) => {
      const x = buildState(spec);
      const y = buildState(applyChange(spec, change));
      // (HNS refused an endpoint in one state: the names differ; the missing case is a vector)
      if (
        !x.endpoints.length ||
        x.endpoints.map((e) => e.name).join() !== y.endpoints.map((e) => e.name).join()
      )
        return;
      const context = new ReachContext();
      for (const [s, dst] of [...touched(spec, change, pairs), ...pairs]) {
        const from = sourceName(x, s);
        const to = destName(x, dst);
        if (from === to) continue;
        const before = x.host.analyze({ from, to }, { context });
        const after = y.host.analyze({ from, to }, { context });
        const d = diffReach(before, after);
        expect(d.unchanged).toBe(d.changes.length === 0);
        // the changes are disjoint, and each one's before and after differ
        const b = context.space.bdd;
        d.changes.forEach((c, i) => {
          expect(c.before.join()).not.toBe(c.after.join());
          for (const o of d.changes.slice(i + 1)) expect(b.intersects(c.set.node, o.set.node)).toBe(false);
        });
        let differs = false;
        for (const f of diffFlows(before, after, d, flows))
          differs = checkDiffFlow(x.host, y.host, before, after, d, f) || differs;
        if (differs) expect(d.unchanged).toBe(false);
      }
    },
    SOAK_TIMEOUT,
  );
});

// ───────────────────────────── vectors ─────────────────────────────

const CLIENT = '10.244.1.2';
const WEB = '10.244.1.3';
const VIP = VIPS[0];

function rule(Direction: 'In' | 'Out', Action: 'Allow' | 'Block', Priority: number, more: JsonObject = {}) {
  return { Type: 'ACL', Settings: { Action, Direction, Priority, RuleType: 'Switch', ...more } };
}
const ALLOW_ALL = [rule('In', 'Allow', 1000), rule('Out', 'Allow', 1000)];

/** client, web (and db when given) on an L2Bridge network; a VIP:80 → 8080 over `backends`. */
function node(o: {
  web: readonly JsonObject[];
  db?: readonly JsonObject[];
  webIp?: string;
  backends?: readonly ('web' | 'db')[];
}): Host {
  const host = newHost(4);
  const net = createNetwork(host, 'cbr0', 'L2Bridge', '10.244.1.0/24', '10.244.1.1');
  const ids: Record<string, string> = {
    client: createEndpoint(host, net, 'client', CLIENT),
    web: createEndpoint(host, net, 'web', o.webIp ?? WEB, o.web),
  };
  if (o.db) ids['db'] = createEndpoint(host, net, 'db', '10.244.1.4', o.db);
  ok(
    host.api.HcnCreateLoadBalancer(
      null,
      JSON.stringify({
        HostComputeEndpoints: (o.backends ?? ['web']).map((b) => ids[b]),
        SourceVIP: HOST_IP,
        FrontendVIPs: [VIP],
        PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 80 }],
        SchemaVersion: { ...SCHEMA },
      }),
    ),
  );
  return host;
}

/** The set a spec names among the after answer's pair. */
function spec(a: Reachability, text: string): number {
  const s = a.space;
  const b = s.bdd;
  const scope = b.and(
    b.and(s.universe, s.value('localIp', ipNum(a.source))),
    s.value('remoteIp', ipNum(a.destination)),
  );
  return flowSpecSet(s, text, scope);
}

/** The changes as `before → after: set` with the sets compared to hand-written specs. */
function expectChanges(d: ReachDiff, after: Reachability, want: readonly [string, string, string][]): void {
  const got = d.changes.map((c) => `${c.before.join('|')} → ${c.after.join('|')}`).sort();
  expect(got).toEqual(want.map(([x, y]) => `${x} → ${y}`).sort());
  for (const [x, y, text] of want) {
    const c = d.changes.find((k) => k.before.join('|') === x && k.after.join('|') === y)!;
    expect(c.set.node, `${x} → ${y}: ${c.set.describe().join(' / ')}, want ${text}`).toBe(spec(after, text));
  }
}

describe('diff vectors', () => {
  it('an ACL added on the backend (Block In TCP 8080 under allow-all): the VIP’s TCP 80 and web’s TCP 8080 go Delivered → DeniedIn', () => {
    const x = node({ web: ALLOW_ALL });
    const y = node({ web: [...ALLOW_ALL, rule('In', 'Block', 500, { Protocols: '6', LocalPorts: '8080' })] });
    const context = new ReachContext();
    for (const [to, text] of [
      [VIP, 'TCP port 80'],
      ['web', 'TCP port 8080'],
    ] as const) {
      const before = x.analyze({ from: 'client', to }, { context });
      const after = y.analyze({ from: 'client', to }, { context });
      const d = diffReach(before, after);
      expect(d.unchanged).toBe(false);
      expectChanges(d, after, [['Delivered', 'DeniedIn', text]]);
    }
  });

  it('a backend that denies added to the load balancer: TCP 80 goes Delivered → Delivered|DeniedIn (a choice now decides)', () => {
    const x = node({ web: [], db: [rule('Out', 'Allow', 100)] });
    const y = node({ web: [], db: [rule('Out', 'Allow', 100)], backends: ['web', 'db'] });
    const context = new ReachContext();
    const after = y.analyze({ from: 'client', to: VIP }, { context });
    const d = diffReach(x.analyze({ from: 'client', to: VIP }, { context }), after);
    expectChanges(d, after, [['Delivered', 'Delivered|DeniedIn', 'TCP port 80']]);
  });

  it('a service’s port changed 80 → 8080 on a two-node cluster: exactly TCP 80 and TCP 8080 change, as the traces say', () => {
    const cluster = (port: number) => {
      const c = new Cluster({ seed: 5 });
      c.addWindowsNode({ name: 'win-1', network: 'l2bridge' });
      c.addWindowsNode({ name: 'win-2', network: 'l2bridge' });
      c.addPod({ namespace: 'default', name: 'client', node: 'win-1' });
      c.addPod({ namespace: 'default', name: 'web', node: 'win-2', labels: { app: 'web' } });
      c.addService({
        namespace: 'default',
        name: 'web',
        ports: [{ port, targetPort: 9000 }],
        selector: { app: 'web' },
      });
      return c;
    };
    const x = cluster(80);
    const y = cluster(8080);
    const [d] = diffReachAll(x, y, ['default/client'], ['svc:default/web']);
    expect(d!.missing).toBeUndefined();
    const context = new ReachContext();
    const before = x.analyze({ from: 'default/client', to: 'svc:default/web' }, { context });
    const after = y.analyze({ from: 'default/client', to: 'svc:default/web' }, { context });
    expect(after.destination).toBe(before.destination);
    const dd = diffReach(before, after);
    const b = context.space.bdd;
    const all = b.orAll(dd.changes.map((c) => c.set.node));
    expect(all, dd.changes.map((c) => c.set.describe().join(' / ')).join('\n')).toBe(
      spec(after, 'TCP port 80, 8080'),
    );
    // what each state's trace gives those ports
    for (const port of [80, 8080]) {
      const f = { proto: 6, srcPort: 50000, dstPort: port };
      const c = dd.changes.find((k) => k.set.has(flowPacket(after, f)))!;
      expect(sorted(c.before)).toEqual(traced(traceFlow(x, before, f)));
      expect(sorted(c.after)).toEqual(traced(traceFlow(y, after, f)));
    }
    expect(
      dd.changes.find((k) => k.set.has(flowPacket(after, { proto: 6, srcPort: 1, dstPort: 8080 })))!.after,
    ).toEqual(['Delivered']);
    // the same from diffReachAll (its own context)
    expect(d!.changes.map((c) => [c.before, c.after, c.set.count])).toEqual(
      dd.changes.map((c) => [c.before, c.after, c.set.count]),
    );
  });

  it('a pod that exists in one state only is reported missing (as a source), the others compared', () => {
    const x = node({ web: [], db: [] });
    const y = node({ web: [] });
    const ds = diffReachAll(x, y, ['client', 'db'], ['web']);
    expect(ds.map((d) => [d.from, d.to, d.missing, d.unchanged])).toEqual([
      ['client', 'web', undefined, true],
      ['db', 'web', 'after', false],
    ]);
    const back = diffReachAll(y, x, ['db'], ['web']);
    expect(back.map((d) => d.missing)).toEqual(['before']);
  });

  it('a destination that exists in one state only (a pod removed) is missing there, not a name that stopped resolving', () => {
    const build = () => {
      const c = new Cluster({ seed: 1 });
      c.addWindowsNode({ name: 'win-1', network: 'l2bridge' });
      c.addWindowsNode({ name: 'win-2', network: 'l2bridge' });
      c.addPod({ namespace: 'default', name: 'client', node: 'win-1' });
      c.addPod({ namespace: 'default', name: 'db', node: 'win-2' });
      return c;
    };
    const before = build();
    const after = build();
    after.removePod('default', 'db');
    const ds = diffReachAll(before, after, ['default/client'], ['default/db']);
    expect(ds.map((d) => [d.missing, d.unchanged, d.changes.length])).toEqual([['after', false, 0]]);
    expect(diffReachAll(after, before, ['default/client'], ['default/db']).map((d) => d.missing)).toEqual([
      'before',
    ]);
    // a name that resolves in neither state is compared as it is: unchanged
    const none = diffReachAll(before, after, ['default/client'], ['nope.example']);
    expect(none.map((d) => [d.missing, d.unchanged])).toEqual([[undefined, true]]);
  });

  it('a pod recreated at another address with the same ACLs: compared by ports, unchanged, the move noted', () => {
    const x = node({ web: [rule('In', 'Allow', 100, { Protocols: '6', LocalPorts: '8080' })] });
    const y = node({
      web: [rule('In', 'Allow', 100, { Protocols: '6', LocalPorts: '8080' })],
      webIp: '10.244.1.9',
    });
    const [d] = diffReachAll(x, y, ['client'], ['web']);
    expect(d!.unchanged).toBe(true);
    expect(d!.notes.join('\n')).toContain('10.244.1.3 → 10.244.1.9');
    // the VIP's backend moved too: still TCP 80 delivered
    const [v] = diffReachAll(x, y, ['client'], [VIP]);
    expect(v!.unchanged).toBe(true);
    // and with web's ACL changed as well, the change is addressed as the after state addresses it
    const z = node({
      web: [rule('In', 'Allow', 100, { Protocols: '6', LocalPorts: '8081' })],
      webIp: '10.244.1.9',
    });
    const context = new ReachContext();
    const after = z.analyze({ from: 'client', to: 'web' }, { context });
    const moved = diffReach(x.analyze({ from: 'client', to: 'web' }, { context }), after);
    expectChanges(moved, after, [
      ['Delivered', 'DeniedIn', 'TCP port 8080'],
      ['DeniedIn', 'Delivered', 'TCP port 8081'],
    ]);
    expect(moved.changes.every((c) => c.set.witness()?.dstIp === '10.244.1.9')).toBe(true);
  });

  it('answers of two contexts are not compared: E_INVALIDARG', () => {
    const x = node({ web: [] });
    const a = x.analyze({ from: 'client', to: 'web' });
    const b = x.analyze({ from: 'client', to: 'web' });
    let code = '';
    try {
      diffReach(a, b);
    } catch (e) {
      code = e instanceof HnsError ? e.code : String(e);
    }
    expect(code).toBe('E_INVALIDARG');
  });
});
