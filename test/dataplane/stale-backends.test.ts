/**
 * A load balancer whose backend endpoint was deleted (docs/model.md, Dataplane "Stale backends";
 * kubernetes#112836: a stale rule "redirects traffic to an endpoint which no longer exists"): the
 * rule holds the address the backend had, not a live object, so the backend is still chosen and
 * the packet DNATed to that address; a `BackendGone` step names the load balancer and the endpoint;
 * then the packet goes by its address alone, ending as a packet sent straight to that address ends
 * (the oracle: the same host's trace of such a packet), or at whatever endpoint holds the address
 * now. Addresses, ports and names are the literals these tests create.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import { createHost, type Host } from '../../src/host/host.js';
import { listPortRules } from '../../src/vswitch/rules.js';
import { createEndpoint, createNetwork, ok } from './prop-kit.js';
import { step, tj, type StepJ, type TraceJ } from './trace-kit.js';

const V2 = { Major: 2, Minor: 0 };

function host(): Host {
  return createHost({
    seed: 12,
    adapters: [{ name: 'Ethernet', ipAddress: '192.168.1.10/24', gateway: '192.168.1.1' }],
  });
}

/**
 * A NAT network (an internal switch: an address no port holds is not on it) 172.20.0.0/24 with
 * client .10 and web-1 .11, web-2 .12 behind the load balancer 10.96.0.50 TCP 80 → 8080.
 */
function natLb(extra: JsonObject = {}) {
  const h = host();
  const net = createNetwork(h, 'nat', 'NAT', '172.20.0.0/24', '172.20.0.1');
  createEndpoint(h, net, 'client', '172.20.0.10');
  const webs = [
    createEndpoint(h, net, 'web-1', '172.20.0.11'),
    createEndpoint(h, net, 'web-2', '172.20.0.12'),
  ];
  const lb = String(
    ok(
      h.api.HcnCreateLoadBalancer(null, {
        HostComputeEndpoints: webs,
        FrontendVIPs: ['10.96.0.50'],
        PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 80 }],
        SchemaVersion: V2,
        ...extra,
      }),
    )['ID'],
  );
  return { h, net, webs, lb };
}

const walk = (steps: readonly StepJ[]) => steps.map((s) => `${s.component}/${s.action}`);

/** The steps of a trace after its step at `index` (component/action). */
const after = (t: TraceJ, index: number) => walk(t.observations.slice(index + 1));

describe('a load balancer whose backend endpoint is gone', () => {
  it('still chooses it: DNAT to its old address, a BackendGone step, then NoRoute as any packet to nobody', () => {
    const { h, webs, lb } = natLb();
    const before = tj(h.trace({ from: 'client', to: '10.96.0.50', allBranches: true }));
    expect(before.branches!.map((b) => b.disposition)).toEqual(['Delivered', 'Delivered']);
    for (const b of before.branches!) expect(walk(b.observations)).not.toContain('LB/BackendGone');

    ok(h.api.HcnDeleteEndpoint(webs[1]!));
    const t = tj(h.trace({ from: 'client', to: '10.96.0.50', allBranches: true }));
    // both backends are still branches of the load balancer
    expect(t.lbChoices).toEqual([{ host: 'node-1', lb, count: 2, chosen: expect.any(Number) }]);
    const [live, gone] = t.branches!;
    expect(live!.disposition).toBe('Delivered');
    expect(live!.at).toBe(`endpoint:${webs[0]}`);
    expect(walk(live!.observations)).not.toContain('LB/BackendGone');

    const dnat = step(gone!, 'node-1', 'LB', 'DNAT+SNAT');
    expect(dnat.detail).toContain('backend 2 of 2: 172.20.0.12:8080');
    expect(dnat.packetAfter).toMatchObject({ dstIp: '172.20.0.12', dstPort: 8080 });
    const note = step(gone!, 'node-1', 'LB', 'BackendGone');
    expect(note.rule).toMatchObject({ kind: 'LoadBalancer', id: lb });
    expect(note.detail).toBe(
      `backend endpoint ${webs[1]} is gone: the load balancer still sends to the address it had, 172.20.0.12`,
    );
    expect(gone!.disposition).toBe('NoRoute');
    expect(gone!.detail ?? '').not.toContain('LB');
    // after that step it ends as a packet sent straight to 172.20.0.12:8080 ends
    const direct = tj(h.trace({ from: 'client', to: '172.20.0.12', destinationPort: 8080 }));
    expect(direct.disposition).toBe('NoRoute');
    const i = gone!.observations.indexOf(note);
    expect(after(gone!, i)).toEqual(after(direct, 0));
    expect(after(gone!, i)).toEqual(['vSwitch/NoRoute']);
  });

  it('sends to whatever endpoint holds the address now (a recycled IP)', () => {
    const { h, net, webs } = natLb();
    ok(h.api.HcnDeleteEndpoint(webs[1]!));
    const reused = createEndpoint(h, net, 'web-3', '172.20.0.12');
    const t = tj(h.trace({ from: 'client', to: '10.96.0.50', allBranches: true }));
    const gone = t.branches![1]!;
    expect(walk(gone.observations)).toContain('LB/BackendGone');
    expect(gone.disposition).toBe('Delivered');
    expect(gone.at).toBe(`endpoint:${reused}`);
  });

  it('a v1 ELB policy list does the same', () => {
    const h = host();
    const net = createNetwork(h, 'nat', 'NAT', '172.20.0.0/24', '172.20.0.1');
    createEndpoint(h, net, 'client', '172.20.0.10');
    const web = createEndpoint(h, net, 'web', '172.20.0.11');
    const out = ok(
      h.api.HNSCall(
        'POST',
        '/policylists/',
        JSON.stringify({
          References: [`/endpoints/${web}`],
          Policies: [
            { Type: 'ELB', Protocol: 6, InternalPort: 8080, ExternalPort: 80, VIPs: ['10.96.0.60'] },
          ],
        }),
      ),
    );
    const list = String((out['Output'] as JsonObject)['ID']);
    ok(h.api.HNSCall('DELETE', `/endpoints/${web}`, ''));
    const t = tj(h.trace({ from: 'client', to: '10.96.0.60' }));
    const note = step(t, 'node-1', 'LB', 'BackendGone');
    expect(note.rule).toMatchObject({ kind: 'PolicyList', id: list });
    expect(note.detail).toContain(`backend endpoint ${web} is gone`);
    expect(t.final).toMatchObject({ dstIp: '172.20.0.11', dstPort: 8080 });
    expect(t.disposition).toBe('NoRoute');
  });

  it('from the host stack (a NodePort): DNAT to the old address, then the host routes it as any packet', () => {
    const h = host();
    const net = createNetwork(h, 'cbr0', 'L2Bridge', '10.244.1.0/24', '10.244.1.1');
    const web = createEndpoint(h, net, 'web', '10.244.1.11');
    const lb = String(
      ok(
        h.api.HcnCreateLoadBalancer(null, {
          HostComputeEndpoints: [web],
          PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 30080 }],
          SchemaVersion: V2,
        }),
      )['ID'],
    );
    ok(h.api.HcnDeleteEndpoint(web));
    const t = tj(h.trace({ from: '192.168.1.50', to: '192.168.1.10', destinationPort: 30080 }));
    const note = step(t, 'node-1', 'LB', 'BackendGone');
    expect(note.rule).toMatchObject({ kind: 'LoadBalancer', id: lb });
    expect(t.final).toMatchObject({ dstIp: '10.244.1.11', dstPort: 8080 });
    const direct = tj(h.trace({ from: 'host', to: '10.244.1.11', destinationPort: 8080 }));
    expect(t.disposition).toBe(direct.disposition);
    // no port holds 10.244.1.11 any more: the host sends it out by its default route
    expect([t.disposition, t.at]).toEqual(['ExitsNetwork', 'external:10.244.1.11']);
    expect(after(t, t.observations.indexOf(note))[0]).toBe('HostStack/Forwarded');
  });

  it('the VFP listing shows the gone backend by its address and says so', () => {
    const { h, webs } = natLb();
    ok(h.api.HcnDeleteEndpoint(webs[1]!));
    const rules = listPortRules(h.dataplane.view(), 'client');
    const lbRules = rules.layers
      .flatMap((l) => l.groups.flatMap((g) => g.rules))
      .filter((r) => r.action === 'DNAT');
    expect(lbRules.map((r) => r.data['Backends'])).toEqual([
      `172.20.0.11:8080,172.20.0.12:8080 (endpoint ${webs[1]} gone)`,
    ]);
  });
});
