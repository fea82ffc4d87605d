/**
 * Antrea's own Traceflow end-to-end vectors, replayed on simulated Windows nodes
 * (antrea-io/antrea test/e2e/traceflow_test.go at fc70f2bb70: testTraceflowIntraNode,
 * testTraceflowInterNode and testTraceflowExternalIP, which pick Windows nodes when the cluster
 * has them). The setting is the test's: agnhost pods labelled `antrea-e2e: <pod name>`, the
 * NetworkPolicies `test-networkpolicy-allow-all-egress` (podSelector {}, egress [{}]) and
 * `test-networkpolicy-deny-ingress` (one pod, Ingress, no rules) of createNPAllowAllEgress and
 * createNPDenyAllIngress, and the Service `agnhost-ipv4` (80 → 8080) on a pod `agnhost` of the
 * second node. Each expected observation list is the test's `expectedResults`, compared on the
 * fields its compareObservations compares (component, componentInfo, pod, srcPodIP,
 * translatedDstIP, action, networkPolicy).
 *
 * Not replayed: live-traffic cases (intraNodeICMPSrcIPDroppedTraceflowIPv4 and the
 * *LiveTraceflow* ones: hnsim traces no captured packet), nonExistingDstPod (a controller
 * validation error), IPv6 cases, and the Antrea-native policy cases (not modelled).
 */
import { describe, expect, it } from 'vitest';
import { Cluster } from '../../src/cluster/cluster.js';
import { traceflowResults, type TraceflowObservation } from '../../src/render/traceflow.js';

const NS = 'antrea-test';
const ALLOW_EGRESS = `K8sNetworkPolicy:${NS}/test-networkpolicy-allow-all-egress`;

/** node1: pods p0 p1 p2 (p1 denied ingress, testTraceflowIntraNode); node2: q0 q1 q2 and agnhost. */
function e2eCluster(deny: 'p1' | 'q1') {
  const c = new Cluster({ seed: 11 });
  c.addWindowsNode({ name: 'node1', network: 'antrea' });
  c.addWindowsNode({ name: 'node2', network: 'antrea' });
  for (const p of ['p0', 'p1', 'p2'])
    c.addPod({ namespace: NS, name: p, node: 'node1', labels: { 'antrea-e2e': p } });
  for (const q of ['q0', 'q1', 'q2'])
    c.addPod({ namespace: NS, name: q, node: 'node2', labels: { 'antrea-e2e': q } });
  c.addPod({ namespace: NS, name: 'agnhost', node: 'node2', labels: { app: 'agnhost-server' } });
  c.addService({
    namespace: NS,
    name: 'agnhost-ipv4',
    ports: [{ port: 80, targetPort: 8080 }],
    selector: { app: 'agnhost-server' },
  });
  c.addNetworkPolicy({
    namespace: NS,
    name: 'test-networkpolicy-allow-all-egress',
    podSelector: {},
    egress: [{}],
    policyTypes: ['Egress'],
  });
  c.addNetworkPolicy({
    namespace: NS,
    name: 'test-networkpolicy-deny-ingress',
    podSelector: { 'antrea-e2e': deny },
    policyTypes: ['Ingress'],
  });
  return c;
}

const ip = (c: Cluster, pod: string) => c.pod(`${NS}/${pod}`)!.ip;

/** The fields compareObservations compares. */
const compared = (o: TraceflowObservation) => ({
  component: o.component,
  componentInfo: o.componentInfo ?? '',
  pod: o.pod ?? '',
  srcPodIP: o.srcPodIP ?? '',
  translatedDstIP: o.translatedDstIP ?? '',
  action: o.action,
  networkPolicy: o.networkPolicy ?? '',
});

/** An expected observation (the test's literal) in the compared form. */
const norm = (o: object) => compared(o as TraceflowObservation);

function results(c: Cluster, from: string, to: string, protocol: 'tcp' | 'udp' | 'icmp', port?: number) {
  const t = c.trace({
    from: `${NS}/${from}`,
    to: to.includes('.') || to.startsWith('svc:') ? to : `${NS}/${to}`,
    protocol,
    ...(port !== undefined ? { destinationPort: port } : {}),
  });
  return traceflowResults(t, c).map((r) => ({ node: r.node, observations: r.observations.map(compared) }));
}

describe("Antrea's traceflow e2e vectors on Windows nodes (test/e2e/traceflow_test.go)", () => {
  describe('testTraceflowIntraNode (deny-ingress on node1Pods[1])', () => {
    const c = e2eCluster('p1');
    const sender = (c: Cluster) =>
      ({ component: 'SpoofGuard', action: 'Forwarded', srcPodIP: ip(c, 'p0') }) as const;
    const egress = {
      component: 'NetworkPolicy',
      componentInfo: 'EgressRule',
      action: 'Forwarded',
      networkPolicy: ALLOW_EGRESS,
    } as const;

    it('intraNodeTraceflowIPv4: TCP 80 to the denied pod, dropped by IngressDefaultRule', () => {
      expect(results(c, 'p0', 'p1', 'tcp', 80)).toEqual([
        {
          node: 'node1',
          observations: [
            sender(c),
            egress,
            { component: 'NetworkPolicy', componentInfo: 'IngressDefaultRule', action: 'Dropped' },
          ].map(norm),
        },
      ]);
    });

    it.each([
      ['intraNodeUDPDstPodTraceflowIPv4', 'p2', 'udp', 321],
      ['intraNodeUDPDstIPTraceflowIPv4', 'ip:p2', 'udp', 321],
      ['intraNodeICMPDstIPTraceflowIPv4', 'ip:p2', 'icmp', undefined],
    ] as const)('%s: delivered on the node', (_name, to, protocol, port) => {
      const dst = to.startsWith('ip:') ? ip(c, to.slice(3)) : to;
      expect(results(c, 'p0', dst, protocol, port)).toEqual([
        {
          node: 'node1',
          observations: [
            sender(c),
            egress,
            { component: 'Forwarding', componentInfo: 'Output', action: 'Delivered' },
          ].map(norm),
        },
      ]);
    });

    it('localGatewayDestinationIPv4: ICMP to the node’s gateway (antrea-gw0) is Delivered', () => {
      const gw = c
        .host('node1')
        .adapters()
        .find((a) => a['Name'] === 'antrea-gw0')!['IPv4Address'] as string;
      expect(results(c, 'p0', gw, 'icmp')).toEqual([
        {
          node: 'node1',
          observations: [
            sender(c),
            egress,
            { component: 'Forwarding', componentInfo: 'Output', action: 'Delivered' },
          ].map(norm),
        },
      ]);
    });
  });

  describe('testTraceflowInterNode (deny-ingress on node2Pods[1])', () => {
    const c = e2eCluster('q1');
    const sender = () =>
      [
        { component: 'SpoofGuard', action: 'Forwarded', srcPodIP: ip(c, 'p0') },
        {
          component: 'NetworkPolicy',
          componentInfo: 'EgressRule',
          action: 'Forwarded',
          networkPolicy: ALLOW_EGRESS,
        },
        { component: 'Forwarding', componentInfo: 'Output', action: 'Forwarded' },
      ] as const;
    const received = { component: 'Forwarding', action: 'Received' } as const;
    const delivered = { component: 'Forwarding', componentInfo: 'Output', action: 'Delivered' } as const;

    it.each([
      ['interNodeTraceflowIPv4', 'q0', 'tcp', 80],
      ['interNodeUDPDstIPTraceflowIPv4', 'ip:q0', 'udp', 321],
    ] as const)('%s: through the tunnel, delivered on node2', (_name, to, protocol, port) => {
      const dst = to.startsWith('ip:') ? ip(c, to.slice(3)) : to;
      expect(results(c, 'p0', dst, protocol, port)).toEqual([
        { node: 'node1', observations: sender().map(norm) },
        { node: 'node2', observations: [received, delivered].map(norm) },
      ]);
    });

    it('interNodeICMPDstPodDroppedTraceflowIPv4: received on node2, dropped by IngressDefaultRule', () => {
      expect(results(c, 'p0', 'q1', 'icmp')).toEqual([
        { node: 'node1', observations: sender().map(norm) },
        {
          node: 'node2',
          observations: [
            received,
            { component: 'NetworkPolicy', componentInfo: 'IngressDefaultRule', action: 'Dropped' },
          ].map(norm),
        },
      ]);
    });

    it('serviceTraceflowIPv4: LB names the endpoint pod and its address, then the tunnel', () => {
      const [spoof, np, out] = sender();
      expect(results(c, 'p0', `svc:${NS}/agnhost-ipv4`, 'tcp', 80)).toEqual([
        {
          node: 'node1',
          observations: [
            spoof,
            { component: 'LB', pod: `${NS}/agnhost`, translatedDstIP: ip(c, 'agnhost'), action: 'Forwarded' },
            np,
            out,
          ].map(norm),
        },
        { node: 'node2', observations: [received, delivered].map(norm) },
      ]);
    });

    it('hairpinServiceTraceflowIPv4: the endpoint to its own Service, SNATed to the gateway, delivered', () => {
      const t = c.trace({
        from: `${NS}/agnhost`,
        to: `svc:${NS}/agnhost-ipv4`,
        protocol: 'tcp',
        destinationPort: 80,
      });
      const r = traceflowResults(t, c);
      expect(r.map((x) => ({ node: x.node, observations: x.observations.map(compared) }))).toEqual([
        {
          node: 'node2',
          observations: [
            { component: 'SpoofGuard', action: 'Forwarded', srcPodIP: ip(c, 'agnhost') },
            { component: 'LB', pod: `${NS}/agnhost`, translatedDstIP: ip(c, 'agnhost'), action: 'Forwarded' },
            {
              component: 'NetworkPolicy',
              componentInfo: 'EgressRule',
              action: 'Forwarded',
              networkPolicy: ALLOW_EGRESS,
            },
            delivered,
          ].map(norm),
        },
      ]);
      // the test's expected LB also has TranslatedSrcIP: gatewayIPv4 (compareObservations skips it)
      const gw = c
        .host('node2')
        .adapters()
        .find((a) => a['Name'] === 'antrea-gw0')!['IPv4Address'];
      expect(r[0]!.observations[1]!.translatedSrcIP).toBe(gw);
    });
  });

  it('testTraceflowExternalIP nodeIPDestination: a pod to its own node’s IP goes out through the gateway', () => {
    // on Windows the target is the pod's own node (targetNodeIdx = nodeIdx); no policies in this test
    const c = new Cluster({ seed: 11 });
    c.addWindowsNode({ name: 'node1', network: 'antrea' });
    c.addPod({ namespace: NS, name: 'p0', node: 'node1' });
    const nodeIp = c
      .host('node1')
      .adapters()
      .find((a) => a['Name'] === 'br-int')!['IPv4Address'] as string;
    expect(results(c, 'p0', nodeIp, 'icmp')).toEqual([
      {
        node: 'node1',
        observations: [
          { component: 'SpoofGuard', action: 'Forwarded', srcPodIP: ip(c, 'p0') },
          { component: 'Forwarding', componentInfo: 'Output', action: 'ForwardedOutOfNetwork' },
        ].map(norm),
      },
    ]);
  });
});
