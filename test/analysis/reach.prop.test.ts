/**
 * Reachability (src/analysis/reach.ts) against the trace, its oracle (issue 19): random states —
 * one node (a network of a random type, endpoints with random ACL sets that overlap and tie,
 * Host and Switch rules, OutBoundNAT with random exceptions, load balancers DSR or not with 1–3
 * backends and random PortMapping flags, port mappings, SDN and host routes), two-node clusters
 * (pods with random ACLs on two Windows nodes, l2bridge or overlay, a service with backends on
 * both) and two Azure VMs with random NSGs (the only source-port ranges forwarding compares) —
 * and random packets biased to the ports the state compares. For every packet: exactly one
 * outcome holds it; its dispositions include the trace's; without a load-balancer fork they are
 * the trace's alone, with one they are the set of the branches' (and each branch of the answer
 * puts the packet where that trace branch ends). Each outcome's witness, traced, gets one of its
 * dispositions; the outcomes partition the pair's packets; the analysis changes nothing. Seed:
 * vitest.setup.ts.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { observable } from '../dataplane/prop-kit.js';
import { runs } from '../runs.js';
import {
  azureNsgsArb,
  buildAzureCluster,
  buildCluster,
  buildState,
  checkFlow,
  checkPartition,
  checkWitnesses,
  clusterArb,
  clusterPair,
  clusterPairArb,
  destArb,
  destName,
  flowArb,
  probeFlows,
  sourceArb,
  sourceName,
  stateArb,
  type Net,
  SOAK_TIMEOUT,
} from './reach-kit.js';
import type { Reachability } from '../../src/analysis/reach.js';

/** Every check of one answer against the trace. */
function checkAnswer(net: Net, a: Reachability, flows: Parameters<typeof probeFlows>[1]): void {
  checkPartition(a);
  for (const f of probeFlows(a, flows)) checkFlow(net, a, f);
  checkWitnesses(net, a);
}

describe('reachability on one node against the trace', () => {
  test.prop(
    [
      stateArb,
      fc.array(fc.tuple(sourceArb, destArb), { minLength: 1, maxLength: 3 }),
      fc.array(flowArb, { minLength: 8, maxLength: 16 }),
    ],
    { numRuns: runs(60, 600) },
  )(
    'every packet in one outcome, the one whose dispositions the trace (and its branches) gives',
    (spec, pairs, flows) => {
      const built = buildState(spec);
      if (!built.endpoints.length) return;
      const { host } = built;
      const before = observable(host);
      for (const [s, d] of pairs) {
        const from = sourceName(built, s);
        const to = destName(built, d);
        if (from === to) continue;
        const a = host.analyze({ from, to });
        checkAnswer(host, a, flows);
      }
      expect(observable(host), 'the analysis changed the host').toBe(before);
    },
    SOAK_TIMEOUT,
  );
});

// ───────────────────────────── two nodes ─────────────────────────────

describe('reachability across two nodes against the cluster trace', () => {
  test.prop(
    [
      clusterArb,
      fc.array(clusterPairArb, { minLength: 1, maxLength: 3 }),
      fc.array(flowArb, { minLength: 8, maxLength: 14 }),
    ],
    { numRuns: runs(25, 250) },
  )(
    'every packet in one outcome, the one whose dispositions the cluster trace gives',
    (spec, pairs, flows) => {
      const c = buildCluster(spec);
      for (const pair of pairs) {
        const { from, to } = clusterPair(spec, pair);
        if (from === to) continue;
        const a = c.analyze({ from, to });
        checkAnswer(c, a, flows);
      }
    },
    SOAK_TIMEOUT,
  );
});

// ───────────────────────────── Azure ─────────────────────────────

describe('reachability across two Azure VMs with NSGs against the cluster trace', () => {
  test.prop(
    [
      azureNsgsArb,
      fc.constantFrom(
        ['default/client', 'svc:default/web'],
        ['default/client', 'default/web-0'],
        ['default/web-0', 'default/client'],
        ['default/client', '8.8.8.8'],
      ),
      fc.array(flowArb, { minLength: 8, maxLength: 14 }),
    ],
    { numRuns: runs(20, 200) },
  )(
    'every packet in one outcome, the one whose dispositions the trace gives (NSG port ranges cut the classes)',
    async (nsgs, [from, to], flows) => {
      const c = await buildAzureCluster(nsgs);
      checkAnswer(c, c.analyze({ from: from!, to: to! }), flows);
    },
    SOAK_TIMEOUT,
  );
});
