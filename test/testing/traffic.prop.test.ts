/**
 * The packet-side and cluster arbitraries (src/testing/traffic.ts, clusters.ts), in the style of
 * fast-check's own tests: they produce only what they claim, are deterministic under a seed, and
 * shrink to small counterexamples. The cluster properties are the Kubernetes networking model's
 * (kubernetes.io "Cluster Networking" / "Services"): every pod reaches every other pod at its own
 * address, and a service with ready backends forwards to one of them on the target port.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import { createHost, type Host } from '../../src/host/host.js';
import { fmt } from '../../src/vswitch/v4.js';
import {
  aclRule,
  aclSet,
  buildCluster,
  checkInvariants,
  cluster,
  clusterSpec,
  loadBalancerDocs,
  packetArb,
  podRef,
  TRAFFIC_ARB,
  traceRequest,
} from '../../src/testing/index.js';
import { addL2Bridge } from '../../src/testing/commands.js';
import { runs } from '../runs.js';

const V2 = { Major: 2, Minor: 0 };

/** A node with endpoints `client` and `web` (in namespaces) on an L2Bridge network; `web` has `acls`. */
function node(acls: JsonObject[] = []): { host: Host; net: string; eps: string[] } {
  const host = createHost({ seed: 1 });
  const netId = addL2Bridge(host);
  const eps: string[] = [];
  for (const [name, policies] of [
    ['client', []],
    ['web', acls],
  ] as const) {
    const ep = host.api.HcnCreateEndpoint(netId, null, {
      Name: name,
      Policies: policies,
      SchemaVersion: V2,
    });
    if (!ep.ok) throw new Error(`${ep.name} ${ep.message}: ${JSON.stringify(policies)}`);
    const ns = host.api.HcnCreateNamespace(null, { SchemaVersion: V2 });
    if (ns.ok)
      host.api.HcnModifyNamespace(ns.result.ID as string, {
        ResourceType: 'Endpoint',
        RequestType: 'Add',
        Settings: { EndpointId: ep.result.ID },
      });
    eps.push(ep.result.ID as string);
  }
  return { host, net: netId, eps };
}

describe('packetArb', () => {
  it('draws only pool addresses, no ports for ICMP, a TTL of 1–128; the same under the same seed', () => {
    const pool = new Set<string>(TRAFFIC_ARB.addresses);
    const drawn = fc.sample(packetArb(), { numRuns: 500, seed: 1 });
    for (const p of drawn) {
      expect(pool.has(fmt(p.srcIp)) && pool.has(fmt(p.dstIp))).toBe(true);
      expect([1, 6, 17]).toContain(p.proto);
      if (p.proto === 1) expect([p.srcPort, p.dstPort]).toEqual([0, 0]);
      else expect(TRAFFIC_ARB.ports).toContain(p.dstPort);
      expect(p.ttl >= 1 && p.ttl <= 128).toBe(true);
    }
    expect(new Set(drawn.map((p) => p.proto)).size).toBe(3);
    expect(fc.sample(packetArb(), { numRuns: 50, seed: 7 })).toEqual(
      fc.sample(packetArb(), { numRuns: 50, seed: 7 }),
    );
    expect(() => packetArb({ addresses: ['nope'] })).toThrow(/"nope" is not an IPv4 address/);
  });

  it('shrinks to TCP between the first addresses of the pool', () => {
    const out = fc.check(
      fc.property(packetArb(), (p) => p.dstPort !== 443),
      { numRuns: 500, seed: 2 },
    );
    expect(out.failed).toBe(true);
    const [p] = out.counterexample!;
    expect(p).toMatchObject({
      proto: 6,
      srcIp: 0x0af40103,
      dstIp: 0x0af40103,
      dstPort: 443,
      srcPort: 50000,
      ttl: 128,
    });
  });
});

describe('traceRequest', () => {
  it('never from a place to itself; every request traces on a host', () => {
    const { host } = node();
    fc.assert(
      fc.property(
        traceRequest({ from: ['client', 'web', 'host'], to: ['client', 'web', '8.8.8.8'] }),
        (req) => {
          expect(req.from).not.toBe(req.to);
          if (req.protocol === 'ICMP') expect(req.destinationPort).toBeUndefined();
          const t = host.trace(req);
          expect(t.request.from).toBe(req.from);
        },
      ),
      { numRuns: runs(200) },
    );
    expect(() => traceRequest({ from: ['a'], to: ['a'] })).toThrow(TypeError);
  });
});

describe('aclRule / aclSet', () => {
  it('every set is accepted on an endpoint and comes back with its rule Ids; ports only with TCP/UDP', () => {
    fc.assert(
      fc.property(aclSet({ maxLength: 5 }), (acls) => {
        const { host, eps } = node(acls);
        const ep = host.api.HcnQueryEndpointProperties(eps[1]!, '');
        if (!ep.ok) throw new Error(ep.message);
        const ids = ((ep.result.Policies as JsonObject[] | undefined) ?? [])
          .filter((p) => p.Type === 'ACL')
          .map((p) => (p.Settings as JsonObject).Id);
        expect(ids).toEqual(acls.map((_, i) => `rule-${i + 1}`));
        for (const a of acls) {
          const s = a.Settings as JsonObject;
          if (s.LocalPorts || s.RemotePorts) expect(['6', '17', '6,17']).toContain(s.Protocols);
        }
      }),
      { numRuns: runs(150) },
    );
  });

  it('a denial names a Block rule of the set, for the right direction, or the default deny', () => {
    fc.assert(
      fc.property(
        aclSet({ maxLength: 4 }),
        fc.constantFrom('TCP', 'UDP', 'ICMP'),
        fc.constantFrom(...TRAFFIC_ARB.ports),
        (acls, protocol, port) => {
          const { host } = node(acls);
          const t = host.trace({
            from: 'client',
            to: 'web',
            protocol,
            ...(protocol !== 'ICMP' ? { destinationPort: port } : {}),
          });
          const denied = [...t.observations].reverse().find((o) => o.action === 'Denied');
          if (t.disposition === 'DeniedIn') {
            const id = denied?.rule?.ruleId ?? denied?.rule?.rule;
            if (id === 'default-deny') return;
            const rule = acls.find((a) => (a.Settings as JsonObject).Id === id)?.Settings as
              JsonObject | undefined;
            expect(rule, `denied by ${String(id)}`).toMatchObject({ Action: 'Block', Direction: 'In' });
          } else {
            expect(t.disposition).toBe('Delivered');
            // with no In rule, ACLs on the endpoint still mean default deny (docs/model.md): something allowed it
            if (acls.length)
              expect(acls.some((a) => (a.Settings as JsonObject).Action === 'Allow')).toBe(true);
          }
        },
      ),
      { numRuns: runs(200) },
    );
  });

  it('rules shrink towards a single Block In rule with no match fields but the priority', () => {
    const out = fc.check(
      fc.property(aclRule(), (r) => r.Direction !== 'In'),
      { numRuns: 200, seed: 3 },
    );
    expect(out.failed).toBe(true);
    expect(out.counterexample![0]).toEqual({ Action: 'Block', Direction: 'In', Priority: 100 });
  });
});

describe('loadBalancerDocs', () => {
  it('every set can be created together on one host', () => {
    const { host, eps } = node();
    fc.assert(
      fc.property(loadBalancerDocs(eps), (docs) => {
        const ids: string[] = [];
        for (const d of docs) {
          const r = host.api.HcnCreateLoadBalancer(null, d);
          if (!r.ok) throw new Error(`${r.name}: ${JSON.stringify(d)}`);
          ids.push(r.result.ID as string);
        }
        for (const id of ids) host.api.HcnDeleteLoadBalancer(id);
      }),
      { numRuns: runs(150) },
    );
    expect(checkInvariants(host)).toEqual([]);
  });
});

describe('clusterSpec / buildCluster', () => {
  it('every spec builds through the real API: consistent nodes, no overlay/host-gw mix', () => {
    fc.assert(
      fc.property(clusterSpec({ linux: true }), (spec) => {
        const c = buildCluster(spec);
        expect(c.nodeNames()).toEqual(spec.nodes.map((n) => n.name));
        expect(c.check()).toEqual([]);
        for (const n of spec.nodes)
          if (n.os === 'windows') expect(checkInvariants(c.host(n.name))).toEqual([]);
        for (const p of spec.pods) expect(c.pod(podRef(p))?.node).toBe(p.node);
      }),
      { numRuns: runs(60) },
    );
    expect(fc.sample(clusterSpec(), { numRuns: 10, seed: 5 })).toEqual(
      fc.sample(clusterSpec(), { numRuns: 10, seed: 5 }),
    );
  });

  it('the Kubernetes model holds: pod to pod, and pod to a service with backends', () => {
    fc.assert(
      fc.property(cluster({ linux: true, maxPods: 4 }), ({ spec, cluster: c }) => {
        for (const a of spec.pods)
          for (const b of spec.pods) {
            if (a === b) continue;
            const t = c.trace({ from: podRef(a), to: podRef(b), destinationPort: 8080 });
            expect(t.disposition, `${podRef(a)} → ${podRef(b)}`).toBe('Delivered');
            expect(fmt(t.final.dstIp)).toBe(c.pod(podRef(b))!.ip);
          }
        for (const s of spec.services) {
          const backends = spec.pods.filter(
            (p) => p.namespace === s.namespace && p.labels.app === s.selector.app,
          );
          if (!backends.length) continue;
          const ips = backends.map((b) => c.pod(podRef(b))!.ip);
          for (const a of spec.pods) {
            const t = c.trace({ from: podRef(a), to: `svc:${s.namespace}/${s.name}` });
            expect(t.disposition, `${podRef(a)} → svc ${s.name}`).toBe('Delivered');
            expect(ips).toContain(fmt(t.final.dstIp));
            expect(t.final.dstPort).toBe(s.ports[0]!.targetPort);
          }
        }
      }),
      { numRuns: runs(40) },
    );
  });

  it('a failing property shrinks to the smallest cluster that shows it', () => {
    // "no service selects a pod on another node than the client's": false once there are two nodes
    const out = fc.check(
      fc.property(clusterSpec(), (spec) =>
        spec.services.every((s) =>
          spec.pods
            .filter((p) => p.labels.app === s.selector.app && p.namespace === s.namespace)
            .every((p) => p.node === spec.nodes[0]!.name),
        ),
      ),
      { numRuns: 300, seed: 4 },
    );
    expect(out.failed).toBe(true);
    const [spec] = out.counterexample!;
    expect(spec.nodes).toEqual([
      { name: 'win-1', os: 'windows' },
      { name: 'node-2', os: 'windows' },
    ]);
    // one pod on the second node and the one service that selects it
    expect(spec.pods).toHaveLength(1);
    expect(spec.pods[0]).toMatchObject({ namespace: 'default', node: 'node-2' });
    expect(spec.services).toEqual([
      {
        namespace: 'default',
        name: spec.pods[0]!.labels.app,
        ports: [{ port: 80, targetPort: 8080 }],
        selector: { app: spec.pods[0]!.labels.app },
      },
    ]);
    expect(spec.coreDns).toBeUndefined();
    expect(fc.stringify(fc.sample(cluster(), { numRuns: 1, seed: 1 })[0])).toMatch(
      /^buildCluster\(\{"seed":/,
    );
  });
});
