/**
 * Scenario files (issue 9's benchmarks):
 *
 *   (a) `hnsim run scenarios/quick-start.yaml`, the whole process (spawn → exit) of the compiled
 *       command as a user runs it after `npm ci` (bin/hnsim.js → dist/cli/hnsim.js, one bundle):
 *       median of several runs, target ≤ 1 s;
 *   (b) a generated 50-node, 2,500-pod, 500-service scenario (`scaleScenarioYaml`, written to a
 *       temporary file) loaded and run in-process, expectations included: wall time ≤ 10 s, and
 *       peak RSS of this process during the run ≤ 1 GB (heap used after a full collection at the
 *       end, the memory the finished run keeps, is shown beside it).
 *
 * The command under test in (a) is the build: when dist/cli/hnsim.js is missing or older than src/
 * the module runs `npm run build` first (`ensureBundle`, as startup.bench.ts does), and spawns with
 * HNSIM_RUN=dist so that bin/hnsim.js never switches to the sources through tsx.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadScenarioFile, runScenario } from '../src/scenario/index.js';
import {
  BIN,
  ensureBundle,
  getGc,
  median,
  quantile,
  ROOT,
  settledHeapUsed,
  tick,
  type Report,
} from './harness.js';

const QUICK_START = join(ROOT, 'scenarios', 'quick-start.yaml');

/** spawn → exit of `node bin/hnsim.js run FILE`, in ms, and its exit code. */
function runOnce(file: string): Promise<{ ms: number; code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [BIN, 'run', file], {
      cwd: ROOT,
      env: { ...process.env, HNSIM_RUN: 'dist', NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const err: Buffer[] = [];
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('exit', (code) =>
      resolve({ ms: performance.now() - t0, code, stderr: Buffer.concat(err).toString('utf8') }),
    );
  });
}

export interface ScaleOptions {
  readonly nodes?: number;
  readonly pods?: number;
  readonly services?: number;
  /** Pods through containerd + win-bridge + host-local (default) or programmed by the cluster. */
  readonly cni?: boolean;
}

/**
 * A scenario of `nodes` Windows nodes (flannel host-gw, kube-proxy with DSR), `pods` pods and
 * `services` services. Service k selects `app: app-k`; its pods are spread over consecutive nodes
 * (pod r of service k on node (k·perService + r) mod nodes), so every service has backends on
 * several nodes and every node holds remote endpoints. Expectations: a few traces (pod → pod on
 * another node, pod → ClusterIP, pod → service by name, node → pod, pod → outside), a 4 × 4 truth
 * table, pods' addresses, and a clean audit on three nodes.
 */
export function scaleScenarioYaml(opts: ScaleOptions = {}): string {
  const nodes = opts.nodes ?? 50;
  const pods = opts.pods ?? 2500;
  const services = opts.services ?? 500;
  const cni = opts.cni ?? true;
  const perService = Math.max(1, Math.floor(pods / services));
  const out: string[] = [
    'hnsim: scenario/v1',
    `name: scale-${nodes}`,
    `description: ${nodes} Windows nodes (flannel host-gw, kube-proxy with DSR), ${pods} pods, ${services} services.`,
    'seed: 7',
    'cluster:',
    '  dsr: true',
    '  coreDns: { node: win-1 }',
    'underlay:',
    '  nodeSubnet: 10.0.0.0/24',
    '  externals:',
    '    - { name: www.bing.com, ip: 204.79.197.200, dnsName: www.bing.com }',
    'hosts:',
  ];
  for (let i = 1; i <= nodes; i++) {
    out.push(`  - name: win-${i}`, '    flannel: { backend: host-gw }');
    if (!cni) continue;
    out.push(
      '    cni:',
      '      conflist:',
      '        cniVersion: 0.3.1',
      '        name: cbr0',
      '        plugins:',
      '          - type: win-bridge',
      '            apiVersion: 2',
      '            loopbackDSR: true',
      '            capabilities: { portMappings: true, dns: true }',
      `            ipam: { type: host-local, subnet: 10.244.${i}.0/24, rangeStart: 10.244.${i}.3 }`,
      '            policies:',
      '              - name: EndpointPolicy',
      '                value: { Type: OutBoundNAT, Settings: { Exceptions: [10.244.0.0/16, 10.96.0.0/12, 10.0.0.0/24] } }',
      '              - name: EndpointPolicy',
      '                value: { Type: SDNRoute, Settings: { DestinationPrefix: 10.96.0.0/12, NeedEncap: true } }',
      '              - name: EndpointPolicy',
      `                value: { Type: SDNRoute, Settings: { DestinationPrefix: 10.0.0.${9 + i}/32, NeedEncap: true } }`,
    );
  }
  out.push('pods:');
  for (let p = 0; p < pods; p++) {
    const k = Math.floor(p / perService) % services;
    const r = p % perService;
    const node = ((k * perService + r) % nodes) + 1;
    out.push(`  - { name: app-${k}-${r}, node: win-${node}, labels: { app: app-${k} } }`);
  }
  out.push('services:');
  for (let k = 0; k < services; k++)
    out.push(`  - { name: svc-${k}, ports: [{ port: 80, targetPort: 8080 }], selector: { app: app-${k} } }`);
  // pods of service 0 are app-0-0 (win-1), app-0-1 (win-2), …; of service 1 on the next nodes
  const far = Math.min(perService - 1, 1);
  const table = `[${[0, 1, 2, 3].map((i) => `default/app-${Math.floor((i * services) / 4)}-0`).join(', ')}]`;
  out.push(
    'expect:',
    '  pods:',
    '    - { pod: default/app-0-0, phase: Running }',
    `    - { pod: default/app-${services - 1}-${perService - 1}, phase: Running }`,
    '  traces:',
    `    - { name: pod → pod on another node, from: default/app-0-0, to: default/app-1-${far}, port: 8080, expect: Delivered }`,
    '    - { name: pod → ClusterIP, from: default/app-0-0, to: svc:default/svc-1, expect: Delivered }',
    `    - { name: pod → service by name, from: default/app-2-0, to: svc-${services - 1}, expect: Delivered }`,
    '    - { name: pod → its own service (loopback DSR), from: default/app-3-0, to: svc:default/svc-3, expect: Delivered }',
    '    - { name: node → pod, from: win-1, to: default/app-4-0, port: 8080, expect: Delivered }',
    '    - { name: pod → outside, from: default/app-5-0, to: www.bing.com, port: 443, expect: Delivered }',
    '  reachability:',
    '    - name: four pods on TCP 8080',
    '      port: 8080',
    `      from: ${table}`,
    `      to: ${table}`,
    '      default: allow',
    '  audit:',
    '    - { node: win-1, findings: [] }',
    `    - { node: win-${Math.ceil(nodes / 2)}, findings: [] }`,
    `    - { node: win-${nodes}, findings: [] }`,
    '',
  );
  return out.join('\n');
}

/** Peak RSS while `fn` runs, sampled every 20 ms (and at the end), and what `fn` returned. */
async function withPeakRss<T>(fn: () => Promise<T>): Promise<{ value: T; peak: number }> {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 20);
  try {
    const value = await fn();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { value, peak };
  } finally {
    clearInterval(timer);
  }
}

const MB = 1024 * 1024;

export async function run(report: Report, opts: { quick?: boolean } = {}): Promise<void> {
  const quick = opts.quick === true;
  const gc = getGc();

  // ── (a) hnsim run scenarios/quick-start.yaml, the whole process
  ensureBundle('scenario');

  const first = await runOnce(QUICK_START); // untimed: the page cache
  if (first.code !== 0) throw new Error(`hnsim run quick-start exited ${first.code}: ${first.stderr}`);
  const rounds = quick ? 5 : 15;
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const r = await runOnce(QUICK_START);
    if (r.code !== 0) throw new Error(`hnsim run quick-start exited ${r.code}: ${r.stderr}`);
    times.push(r.ms);
  }
  report({
    name: 'hnsim run quick-start (whole process)',
    value: median(times),
    unit: 'ms',
    target: { max: 1000 },
    note: `node bin/hnsim.js run scenarios/quick-start.yaml with HNSIM_RUN=dist (the bundle dist/cli/hnsim.js, as after npm ci), spawn → exit, stdout discarded; median of ${rounds} after one untimed run (min ${Math.min(...times).toFixed(0)}, p95 ${quantile(times, 0.95).toFixed(0)} ms)`,
  });

  // ── (b) 50 nodes, 2,500 pods, 500 services, in-process
  const dir = mkdtempSync(join(tmpdir(), 'hnsim-bench-'));
  try {
    const file = join(dir, 'scale-50.yaml');
    const yaml = scaleScenarioYaml();
    writeFileSync(file, yaml);
    await tick();
    gc();
    const heap0 = process.memoryUsage().heapUsed;
    const t0 = performance.now();
    const { value: rep, peak } = await withPeakRss(async () => {
      const s = loadScenarioFile(file);
      const loaded = performance.now();
      const r = await runScenario(s);
      return { r, loadMs: loaded - t0 };
    });
    const wall = performance.now() - t0;
    if (!rep.r.ok) {
      const bad = rep.r.checkpoints
        .flatMap((c) => c.results)
        .filter((x) => !x.ok)
        .map((x) => `${x.label}: ${x.problems.join('; ')}`);
      throw new Error(`the scale scenario failed ${rep.r.failed} expectation(s):\n${bad.join('\n')}`);
    }
    const kept = (await settledHeapUsed(gc)) - heap0;
    const scale = `50 Windows nodes (host-gw, containerd + win-bridge + host-local, kube-proxy DSR), 2,500 pods, 500 services (${(yaml.length / 1024).toFixed(0)} KB of YAML, generated)`;
    report({
      name: 'scenario 50 nodes/2,500 pods/500 services',
      value: wall / 1000,
      unit: 's',
      target: { max: 10 },
      note: `${scale}: loadScenarioFile + runScenario in-process, ${rep.r.passed} expectations held; load ${rep.loadMs.toFixed(0)} ms`,
    });
    report({
      name: 'scenario 50/2,500/500 peak RSS',
      value: peak / MB,
      unit: 'MB',
      target: { max: 1024 },
      note: 'the process RSS sampled every 20 ms during the run (the bench process itself included)',
    });
    report({
      name: 'scenario 50/2,500/500 heap kept',
      value: kept / MB,
      unit: 'MB',
      note: 'heapUsed after full collections with the report (and its world) alive, minus before',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
