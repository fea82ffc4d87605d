/**
 * The web page's model (src/ui/model, issue 18) checked against the simulator itself: each
 * expected value comes from the flat API on a host in the same state, from `hnsim trace` /
 * `hnsim explain`, or from the scenario loader — never from the model's own tables.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import { loadScenario, runScenario, ScenarioLoadError } from '../../src/scenario/index.js';
import type { RunReport } from '../../src/scenario/results.js';
import {
  recordLesson,
  refKey,
  type Lesson,
  type UiBox,
  type UiGraph,
  type UiGroup,
  type UiRef,
} from '../../src/ui/model/index.js';
import { root, runHnsim } from '../cli/hnsim.js';

const read = (f: string) => readFileSync(join(root, f), 'utf8');
const scenario = (f: string) => recordLesson({ kind: 'scenario', file: f, text: read(f) });

function boxes(g: UiGraph): UiBox[] {
  const out: UiBox[] = [];
  const walk = (gs: readonly UiGroup[]) => {
    for (const x of gs) {
      out.push(...x.boxes);
      walk(x.groups);
    }
  };
  walk(g.groups);
  return out;
}

const findBox = (g: UiGraph, ref: UiRef) => boxes(g).find((b) => b.key === refKey(ref));

describe('quick-start, step by step', () => {
  let lesson: Lesson;
  let report: RunReport;
  beforeAll(async () => {
    lesson = await scenario('scenarios/quick-start.yaml');
    report = await runScenario(
      loadScenario(read('scenarios/quick-start.yaml'), 'scenarios/quick-start.yaml'),
    );
  });

  it('tells every step of the run, in the words of `hnsim run`', async () => {
    const run = await runHnsim(['run', 'scenarios/quick-start.yaml']);
    const told = run.stdout.split('\n').map((l) => l.trim());
    for (const s of lesson.steps) expect(told).toContain(s.text);
    expect(lesson.steps.map((s) => s.index)).toEqual(lesson.steps.map((_, i) => i));
    expect(lesson.title).toBe('quick-start');
  });

  it('after the CNI ADD of default/client the endpoint box shows what HcnQueryEndpointProperties returns', async () => {
    const win1 = report.world.nodes.get('win-1')!.host!;
    const pod = report.world.pods.get('default/client')!;
    const id = pod.endpointId!.toUpperCase();
    const i = lesson.steps.findIndex(
      (s) =>
        s.kind === 'hns' && s.node === 'win-1' && s.added.some((r) => r.kind === 'endpoint' && r.id === id),
    );
    expect(i).toBeGreaterThan(0);
    expect(lesson.steps[i]!.chapter).toMatch(/^Pod default\/client on win-1/);
    const ref: UiRef = { node: 'win-1', kind: 'endpoint', id };
    const q = win1.api.HcnQueryEndpointProperties(pod.endpointId);
    expect(q.ok).toBe(true);
    const doc = (q as { result: JsonObject }).result;
    const ip = (doc['IpConfigurations'] as JsonObject[])[0]!['IpAddress'] as string;
    expect(ip).toBe('10.244.1.3');
    const box = findBox(lesson.pictureAt(i), ref)!;
    expect(box.change).toBe('added');
    expect(box.lines.join('\n')).toContain(ip);
    expect(findBox(lesson.pictureAt(i - 1), ref)).toBeUndefined();
    // at step i the endpoint is made, not yet in the pod's namespace: what HNS says of it then
    expect((await lesson.details(i, ref)).v2?.['HostComputeNamespace']).toBeUndefined();
    expect((await lesson.details(i, ref)).v2?.['IpConfigurations']).toEqual(doc['IpConfigurations']);
    // once the pod is up (its chapter's end), the same document as on the finished run's host
    const end = lesson.steps.findLastIndex((s) => s.chapter === lesson.steps[i]!.chapter);
    const d = await lesson.details(end, ref);
    expect(d.v2).toEqual(doc);
    expect(d.v1).toEqual(
      (win1.api.HNSCall('GET', `/endpoints/${pod.endpointId}`, '') as { result: JsonObject }).result,
    );
    // its port carries the VFP layers the dataplane lists, and `hnsim show rules`' text
    const last = lesson.steps.length - 1;
    const port = findBox(lesson.pictureAt(last), { node: 'win-1', kind: 'port', id })!;
    expect(port.layers!.find((l) => l.name === 'SLB_NAT_LAYER')!.rules).toBeGreaterThan(0);
    const rules = (await lesson.details(last, port.ref)).rules!;
    const shown = await runHnsim([
      'show',
      'scenarios/quick-start.yaml',
      'rules',
      '--node',
      'win-1',
      '--port',
      id,
    ]);
    expect(shown.stdout).toContain(rules);
  });

  it("a container's ipconfig and route print are the simulator's", async () => {
    const last = lesson.steps.length - 1;
    const pod = report.world.pods.get('default/client')!;
    const ref: UiRef = { node: 'win-1', kind: 'container', id: pod.sandboxId!.toUpperCase() };
    expect(findBox(lesson.pictureAt(last), ref)).toBeDefined();
    const d = await lesson.details(last, ref);
    const rpc = report.world.nodes.get('win-1')!.host!;
    const { containerView } = await import('../../src/hcs/view.js');
    const { renderIpconfigAll, renderRoutePrint } = await import('../../src/render/container.js');
    const view = containerView(rpc.hcs, pod.sandboxId!, rpc);
    expect(d.ipconfig).toBe(renderIpconfigAll(view));
    expect(d.routePrint).toBe(renderRoutePrint(view));
    expect(d.ipconfig).toContain('10.244.1.3');
  });

  it("a vSwitch shows its network's documents, a compartment its namespace's", async () => {
    const last = lesson.steps.length - 1;
    const win2 = report.world.nodes.get('win-2')!.host!;
    const net = [...win2.hns.store.networks.values()].find((n) => n.Name === 'cbr0')!;
    const sw = boxes(lesson.pictureAt(last)).find(
      (b) => b.ref.node === 'win-2' && b.ref.kind === 'vswitch' && b.lines.some((l) => l.startsWith('cbr0')),
    )!;
    const d = await lesson.details(last, sw.ref);
    expect(d.v2).toEqual((win2.api.HcnQueryNetworkProperties(net.ID) as { result: JsonObject }).result);
    expect(d.v1).toEqual(
      (win2.api.HNSCall('GET', `/networks/${net.ID}`, '') as { result: JsonObject }).result,
    );
    const pod = report.world.pods.get('default/web-0')!;
    const comp = (await lesson.details(last, { node: 'win-2', kind: 'compartment', id: '3' })).v2!;
    expect(comp).toEqual((win2.api.HcnQueryNamespaceProperties(pod.netns) as { result: JsonObject }).result);
  });

  it('the last picture is the finished run drawn: every endpoint of every node', () => {
    const g = lesson.pictureAt(lesson.steps.length - 1);
    for (const [name, n] of report.world.nodes) {
      const host = n.host!;
      for (const [id, e] of host.hns.store.endpoints) {
        if (e.Flags & 1) continue;
        expect(
          findBox(g, { node: name, kind: 'endpoint', id: id.toUpperCase() }),
          `${name} ${id}`,
        ).toBeDefined();
      }
      for (const lb of host.hns.store.loadBalancers.keys())
        expect(findBox(g, { node: name, kind: 'loadbalancer', id: lb.toUpperCase() })).toBeDefined();
    }
    const keys = boxes(g).map((b) => b.key);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("a trace's disposition, rules and text are `hnsim trace`'s; branches follow the backends", async () => {
    const last = lesson.steps.length - 1;
    const t = await lesson.trace(last, {
      from: 'default/client',
      to: 'svc:default/web',
      protocol: 'TCP',
      port: 80,
    });
    const cli = await runHnsim([
      'trace',
      'scenarios/quick-start.yaml',
      '--from',
      'default/client',
      '--to',
      'svc:default/web',
      '--port',
      '80',
    ]);
    expect(cli.status).toBe(0);
    expect(t.text + '\n').toBe(cli.stdout);
    expect(t.disposition).toBe('Delivered');
    expect(cli.stdout).toContain('Delivered');
    const lb = t.hops.find((h) => h.stage === 'LB')!;
    expect(lb.rule).toMatch(/^SLB_NAT_LAYER LB_/);
    expect(cli.stdout).toContain(lb.rule!.split(' ')[1]!);
    expect(lb.at?.kind).toBe('loadbalancer');
    expect(t.hops.at(-1)!.at?.kind).toBe('endpoint');
    expect(t.branches ?? []).toHaveLength(0); // web has one backend, web-0: no choice to fork
    expect(t.reply?.disposition).toBe('Delivered');
    expect(t.explain).toBeUndefined();
  });

  it("the truth table's cells carry the request that gives their disposition", async () => {
    expect(lesson.truthTables.length).toBe(1);
    const table = lesson.truthTables[0]!;
    const cell = table.cells[0]![0]!;
    const t = await lesson.trace(table.step!, cell.request);
    expect(t.disposition).toBe(cell.disposition);
    expect(cell.request.from).toBe(table.rows[0]);
  });

  it('places name the pods, services and nodes with their addresses', () => {
    const p = lesson.places(lesson.steps.length - 1);
    expect(p).toContainEqual({ name: 'default/client', kind: 'pod', ip: '10.244.1.3' });
    expect(p).toContainEqual({ name: 'svc:default/web', kind: 'service', ip: '10.96.0.11' });
    expect(p).toContainEqual({ name: 'win-2', kind: 'node', ip: '10.0.0.11' });
    expect(lesson.places(-1)).toEqual([]);
  });
});

describe('deletes, denials, branches', () => {
  it('a deleted endpoint is marked removed for one step, then gone', async () => {
    const lesson = await scenario('scenarios/failures/stale-load-balancer.yaml');
    const i = lesson.steps.findIndex((s) => s.removed.some((r) => r.kind === 'endpoint'));
    expect(i).toBeGreaterThan(0);
    const ref = lesson.steps[i]!.removed.find((r) => r.kind === 'endpoint')!;
    expect(findBox(lesson.pictureAt(i - 1), ref)?.change).not.toBe('removed');
    expect(findBox(lesson.pictureAt(i), ref)?.change).toBe('removed');
    expect(findBox(lesson.pictureAt(i + 1), ref)).toBeUndefined();
  });

  it('two backends: two branches', async () => {
    const lesson = await scenario('scenarios/failures/stale-load-balancer.yaml');
    const i = lesson.steps.findIndex((s) => s.chapter.startsWith('Service default/web'));
    const t = await lesson.trace(i, {
      from: 'default/client',
      to: 'svc:default/web',
      protocol: 'TCP',
      port: 80,
    });
    expect(t.disposition).toBe('Delivered');
    expect(t.branches).toHaveLength(2);
  });

  it('a denied packet has `hnsim explain`’s text', async () => {
    const f = 'scenarios/acl-analysis.yaml';
    const lesson = await scenario(f);
    const t = await lesson.trace(lesson.steps.length - 1, {
      from: 'default/client',
      to: 'default/web',
      protocol: 'TCP',
      port: 80,
    });
    expect(t.disposition).toBe('DeniedIn');
    const cli = await runHnsim([
      'explain',
      f,
      '--from',
      'default/client',
      '--to',
      'default/web',
      '--port',
      '80',
    ]);
    expect(t.explain).toBe(cli.stdout);
    expect(t.hops.some((h) => h.stage === 'ACL' && h.action === 'Denied' && h.at?.kind === 'port')).toBe(
      true,
    );
  });
});

describe('a state file and errors', () => {
  it('a state file is a one-frame lesson whose details are its host’s', async () => {
    const f = 'scenarios/nat-port-mappings.yaml';
    const report = await runScenario(loadScenario(read(f), f));
    const host = [...report.world.nodes.values()].find((n) => n.host)!.host!;
    const state = JSON.parse(JSON.stringify(host.snapshot())) as JsonObject;
    const lesson = await recordLesson({ kind: 'state', file: 'state.json', state });
    expect(lesson.steps).toHaveLength(1);
    const eps = boxes(lesson.pictureAt(0)).filter((b) => b.ref.kind === 'endpoint');
    expect(eps.length).toBe(host.hns.store.endpoints.size);
    const d = await lesson.details(0, eps[0]!.ref);
    expect(d.v2).toEqual(
      (host.api.HcnQueryEndpointProperties(eps[0]!.ref.id) as { result: JsonObject }).result,
    );
  });

  it("a malformed scenario gives the loader's error", async () => {
    const text = 'hnsim: scenario/v1\nname: broken\nhosts: 7\n';
    let expected = '';
    try {
      loadScenario(text, 'broken.yaml');
    } catch (e) {
      expect(e).toBeInstanceOf(ScenarioLoadError);
      expected = (e as Error).message;
    }
    expect(expected).not.toBe('');
    await expect(recordLesson({ kind: 'scenario', file: 'broken.yaml', text })).rejects.toThrow(expected);
  });
});

describe('the whole timeline', () => {
  it('every picture of quick-start draws each key once, and marks what its step added or removed', async () => {
    const lesson = await scenario('scenarios/quick-start.yaml');
    let checked = 0;
    for (let i = -1; i < lesson.steps.length; i++) {
      const g = lesson.pictureAt(i);
      const keys = boxes(g).map((b) => b.key);
      expect(new Set(keys).size, `step ${i}`).toBe(keys.length);
      const step = lesson.steps[i];
      if (!step) continue;
      for (const r of step.added) {
        const b = findBox(g, r);
        // a remote endpoint has no box of its own (the vSwitch's "N remote endpoints" has it)
        if (r.kind === 'loadbalancer' || (r.kind === 'endpoint' && b)) {
          expect(b?.change, `${i} ${step.text}`).toBe('added');
          checked++;
        }
      }
    }
    expect(checked).toBe(9); // three pods' endpoints, six load balancers (kube-dns UDP and TCP, web; on both nodes)
  });

  it('fifty nodes are all drawn at the end', async () => {
    // (its time is a benchmark's: bench/ui.bench.ts)
    const lesson = await scenario('scenarios/fifty-nodes.yaml');
    const g = lesson.pictureAt(lesson.steps.length - 1);
    expect(g.groups.filter((x) => x.kind === 'node')).toHaveLength(50);
    expect(lesson.places(lesson.steps.length - 1).filter((p) => p.kind === 'pod')).toHaveLength(100);
  }, 60_000);
});

describe('every shipped scenario', () => {
  const files = [
    ...readdirSync(join(root, 'scenarios')).filter((f) => f.endsWith('.yaml') && f !== 'fifty-nodes.yaml'),
    ...readdirSync(join(root, 'scenarios', 'failures')).map((f) => `failures/${f}`),
  ].map((f) => `scenarios/${f}`);

  it.each(files)(
    '%s: every step drawn, every truth-table cell traced at its step as the run observed it',
    async (f) => {
      const lesson = await scenario(f);
      for (let i = -1; i < lesson.steps.length; i++) {
        const keys = boxes(lesson.pictureAt(i)).map((b) => b.key);
        expect(new Set(keys).size).toBe(keys.length);
      }
      for (const t of lesson.truthTables)
        for (const row of t.cells)
          for (const c of row) {
            if (c.disposition === '-' || c.disposition.startsWith('error')) continue;
            expect((await lesson.trace(t.step!, c.request)).disposition).toBe(c.disposition);
          }
      // a pod that failed to start is no place to send from
      const running = new Set(
        [...(await runScenario(loadScenario(read(f), f))).world.pods.values()]
          .filter((p) => p.phase === 'Running')
          .map((p) => p.key),
      );
      for (const p of lesson.places(lesson.steps.length - 1))
        if (p.kind === 'pod') expect(running, p.name).toContain(p.name);
    },
    60_000,
  );
});
