/**
 * The scenario runner: a loaded scenario (src/scenario/load.ts) made real on what the simulator
 * already has, then checked. The file is a declarative front only, and the runner is in parts:
 * - nodes.ts: a cluster (src/cluster) holds the nodes, the underlay, DNS, services and
 *   kube-proxy; each Windows node is set up by the cluster as its flanneld backend would; without
 *   `cluster` there is one standalone host whose HNS networks the file lists;
 * - pods.ts, services.ts: a Windows node with `cni` runs its pods as kubelet does, through the CRI
 *   runtime (src/runtime) and the conflist's reference plugins (src/plugins), and the cluster then
 *   adopts the endpoint the CNI ADD made; without `cni`, the cluster programs the pod's endpoint
 *   straight into HNS;
 * - steps.ts, calls.ts: the steps, with the host's faults (HNS restart and reboot, HCS stop, the
 *   fault layer) and out-of-band calls through the flat API;
 * - expect.ts, truth.ts: the expectations and the truth tables;
 * - world.ts: the state they share. Every action is narrated from the nodes' events
 *   (src/scenario/narrate.ts); every expectation gives a result with where it is in the file, and
 *   a failed one says why (results.ts).
 *
 *   const report = await runScenario(loadScenarioFile('scenarios/quick-start.yaml'));
 *   report.ok;    // every expectation held
 */
import { checkpoint } from './expect.js';
import { setupCluster, setupStandalone } from './nodes.js';
import { addPod } from './pods.js';
import type { RunOptions, RunReport } from './results.js';
import { addCoreDns, addNetworkPolicy, addService } from './services.js';
import { runSteps } from './steps.js';
import type { Scenario } from './types.js';
import { RunWorld } from './world.js';

/** The set-up: the nodes, CoreDNS, the file's pods and services. */
async function setup(w: RunWorld): Promise<void> {
  if (w.doc.cluster) await setupCluster(w);
  else await setupStandalone(w);
  await addCoreDns(w);
  for (const [i, p] of (w.doc.pods ?? []).entries()) await addPod(w, p, ['pods', i]);
  for (const [i, svc] of (w.doc.services ?? []).entries()) addService(w, svc, ['services', i]);
  for (const [i, np] of (w.doc.networkPolicies ?? []).entries())
    addNetworkPolicy(w, np, ['networkPolicies', i]);
}

/**
 * The set-up and the steps (to `until`); a run that only rebuilds an earlier state for
 * `reachUnchanged` (`checks` false) checks nothing on the way.
 */
async function runWorld(s: Scenario, options: RunOptions, checks: boolean): Promise<RunWorld> {
  const w = new RunWorld(s, options, {
    checks,
    earlier: (steps) => runWorld(s, { until: steps }, false),
  });
  await setup(w);
  await runSteps(w, options.until);
  return w;
}

/** Run a loaded scenario. Throws ScenarioSetupError when the simulator refuses what the file describes. */
export async function runScenario(s: Scenario, options: RunOptions = {}): Promise<RunReport> {
  const w = await runWorld(s, options, true);
  if (s.doc.expect && options.until === undefined)
    await checkpoint(w, 'Expectations', s.doc.expect, ['expect']);
  if (w.actions.length)
    w.checkpoints.unshift({ title: 'What the pods and steps expect', at: w.where([]), results: w.actions });
  const results = w.checkpoints.flatMap((c) => c.results);
  const failed = results.filter((r) => !r.ok).length;
  const errors = results.filter((r) => r.errors).length;
  const doc = s.doc;
  return {
    scenario: doc.name,
    file: s.file,
    ...(doc.description ? { description: doc.description.trim() } : {}),
    seed: w.seed,
    walkthrough: {
      title: `hnsim run: ${doc.name}`,
      header: [...(doc.description ? doc.description.trim().split('\n') : []), `${s.file}, seed ${w.seed}`],
      steps: w.steps,
      completed: true,
    },
    checkpoints: w.checkpoints,
    passed: results.length - failed,
    failed,
    errors,
    ok: failed === 0,
    world: w.view(),
  };
}
