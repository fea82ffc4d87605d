/**
 * The web page's model (issue 18, `hnsim ui`): a lesson recorded from a scenario (or a state file)
 * by the simulator itself — its timeline, the picture at each step, each object's details and a
 * packet's path (src/ui/model/contract.ts). Browser-safe: nothing here imports `node:*`.
 *
 *   const lesson = await recordLesson({ kind: 'scenario', file: 'quick-start.yaml', text });
 *   lesson.steps[12].text;       // 'CNI ADD win-bridge (eth0, CNI_NETNS 2A1F6C0B)'
 *   lesson.pictureAt(12);        // the boxes, marked with what step 12 changed
 *   await lesson.trace(12, { from: 'default/client', to: 'svc:default/web', protocol: 'TCP', port: 80 });
 */
import type { Json, JsonObject } from '../../core/json.js';
import { createHost, type Host } from '../../host/host.js';
import { profileOfSnapshot } from '../../hns/versions.js';
import '../../plugins/cns/index.js';
import '../../plugins/antrea/agent.js';
import { loadScenario } from '../../scenario/load.js';
import { NodeEvents } from '../../scenario/narrate.js';
import type { RunReport, ScenarioWorld } from '../../scenario/results.js';
import { runScenario } from '../../scenario/run.js';
import type { Scenario } from '../../scenario/types.js';
import { refKey } from './contract.js';
import type {
  Lesson,
  UiDetails,
  UiGraph,
  UiGroup,
  UiPlace,
  UiRef,
  UiStep,
  UiTrace,
  UiTruthTable,
} from './contract.js';
import { hostDetails, tracePacket, type TraceWorld } from './inspect.js';
import { markChanges, Pictures } from './picture.js';
import { upper } from '../../render/objects.js';
import { Recorder, type StepDraft } from './record.js';

export * from './contract.js';

/** What the page is given (`lesson-data.js`): a scenario file's text, or a state file's snapshot. */
export type LessonData =
  | { readonly kind: 'scenario'; readonly file: string; readonly text: string }
  | { readonly kind: 'state'; readonly file: string; readonly state: JsonObject };

/** Record a lesson: run the scenario (or restore the state) and keep what every step needs. */
export async function recordLesson(data: LessonData): Promise<Lesson> {
  if (data.kind === 'state') return stateLesson(data.file, data.state);
  const scenario = loadScenario(data.text, data.file);
  const segments = new Map((scenario.doc.underlay?.segments ?? []).map((s) => [s.name, s.prefix] as const));
  const rec = new Recorder(segments);
  const report = await runScenario(scenario, { observe: rec });
  return new RecordedLesson(rec, scenario, report, data);
}

async function stateLesson(file: string, state: JsonObject): Promise<Lesson> {
  const profile = profileOfSnapshot(state);
  const host = createHost(profile ? { profile } : {});
  host.restore(state);
  const rec = new Recorder();
  rec.node(host.name, host, new NodeEvents(host.name, host));
  const s = host.hns.store;
  rec.steps.push({
    chapter: file,
    node: host.name,
    kind: 'hns',
    text: `The state of ${file}: ${s.networks.size} networks, ${s.endpoints.size} endpoints, ${s.loadBalancers.size} load balancers.`,
    depth: 0,
    added: [],
    changed: [],
    removed: [],
    at: rec.version,
    scenarioStep: 0,
  });
  return new RecordedLesson(rec, undefined, undefined, { kind: 'state', file, state });
}

class RecordedLesson implements Lesson {
  readonly title: string;
  readonly description?: string;
  readonly steps: readonly UiStep[];
  readonly truthTables: readonly UiTruthTable[];
  readonly source: Json;
  private readonly drafts: readonly StepDraft[];
  private readonly pictures: Pictures;
  private readonly marked = new Map<number, UiGraph>();
  private readonly runs = new Map<number, Promise<ScenarioWorld>>();

  constructor(
    private readonly rec: Recorder,
    private readonly scenario: Scenario | undefined,
    private readonly report: RunReport | undefined,
    data: LessonData,
  ) {
    this.title = scenario?.doc.name ?? data.file;
    if (scenario?.doc.description) this.description = scenario.doc.description.trim();
    this.drafts = rec.steps;
    this.steps = rec.steps.map(({ at: _at, scenarioStep: _s, ...s }, index) => ({ index, ...s }));
    this.pictures = new Pictures(rec, this.title);
    this.truthTables = this.tables();
    this.source =
      data.kind === 'scenario'
        ? { kind: 'scenario', file: data.file, steps: this.steps.length, ok: report?.ok ?? true }
        : { kind: 'state', file: data.file };
  }

  /** The state version step `i` shows (-1: before anything). */
  private version(i: number): number {
    if (i < 0) return -1;
    const d = this.drafts[Math.min(i, this.drafts.length - 1)];
    return d ? d.at : -1;
  }

  pictureAt(i: number): UiGraph {
    const key = Math.max(-1, Math.min(i, this.steps.length - 1));
    let g = this.marked.get(key);
    if (!g) {
      const cur = this.pictures.at(this.version(key));
      g = key < 0 ? cur : markChanges(cur, this.pictures.at(this.version(key - 1)));
      this.marked.set(key, g);
    }
    return g;
  }

  details(i: number, ref: UiRef): Promise<UiDetails> {
    const box = findBox(this.pictureAt(i), ref);
    const lines = box?.lines ?? [];
    if (ref.node !== undefined) {
      const host = this.pictures.hostAt(ref.node, this.version(i));
      if (host) return Promise.resolve(hostDetails(host, ref, lines));
    }
    return Promise.resolve({
      ref,
      title: lines[0] ?? `${ref.kind} ${ref.id}`,
      facts: lines.slice(1).map((l) => ['', l] as const),
    });
  }

  async trace(i: number, request: Parameters<Lesson['trace']>[1]): Promise<UiTrace> {
    return tracePacket(await this.traceWorld(i), request);
  }

  /** Where step `i`'s packets go: the cluster after its scenario step, else the host then. */
  private async traceWorld(i: number): Promise<TraceWorld> {
    const pods = new Map<string, string>();
    for (const [id, key] of this.rec.endpointLabels) pods.set(id, key);
    const cluster = this.report?.world.cluster;
    if (cluster && this.scenario) {
      const world = await this.worldAfter(this.drafts[Math.max(0, i)]?.scenarioStep ?? 0);
      const hosts = new Map<string, Host>();
      for (const [name, n] of world.nodes) if (n.host) hosts.set(name, n.host);
      return {
        trace: (req) => world.trace(req),
        host: (node) => hosts.get(node),
        hosts: [...hosts.values()],
        ref: (r) => world.ref(r),
        pods,
      };
    }
    const [name] = [...this.rec.nodes.keys()];
    const host = name !== undefined ? this.pictures.hostAt(name, this.version(i), true) : undefined;
    if (!host || name === undefined) throw new Error(`no host at step ${i}`);
    const byPod = new Map<string, string>();
    for (const [id, key] of pods) byPod.set(key, id);
    return {
      trace: (req) => host.trace(req),
      host: (node) => (node === name || node === host.name ? host : undefined),
      hosts: [host],
      ref: (r) => byPod.get(r) ?? (this.rec.nodes.has(r) ? 'host' : r),
      pods,
    };
  }

  /** The cluster after scenario step `s` (-1: the whole run): the recorded run's own when it is that. */
  private worldAfter(s: number): Promise<ScenarioWorld> {
    const total = this.scenario!.doc.steps?.length ?? 0;
    const until = s < 0 ? total : s;
    if (until >= total) return Promise.resolve(this.report!.world);
    let w = this.runs.get(until);
    if (!w) {
      w = runScenario(this.scenario!, { until }).then((r) => r.world);
      this.runs.set(until, w);
    }
    return w;
  }

  places(i: number): readonly UiPlace[] {
    const out: UiPlace[] = [];
    const g = this.pictureAt(i);
    const present = new Set<string>();
    const walk = (gs: readonly UiGroup[]) => {
      for (const x of gs) {
        for (const b of x.boxes) if (b.change !== 'removed') present.add(upper(b.ref.id));
        walk(x.groups);
      }
    };
    walk(g.groups);
    const podEndpoints = new Map<string, string>();
    for (const [id, key] of this.rec.endpointLabels) podEndpoints.set(key, id);
    for (const [key, p] of this.rec.pods) {
      // a pod there at step i: its endpoint drawn (with none: running, and known by then)
      const ep = podEndpoints.get(key);
      if (ep !== undefined ? !present.has(ep) : p.phase !== 'Running' || p.since > this.version(i)) continue;
      out.push({ name: key, kind: 'pod', ...(p.ip ? { ip: p.ip } : {}) });
    }
    const world = this.rec.worldAt(this.version(i));
    for (const s of world?.services ?? [])
      out.push({ name: s.key, kind: 'service', ...(s.lines[1] ? { ip: s.lines[1] } : {}) });
    for (const [n, t] of this.rec.nodes) {
      const ip = world?.windows.find((w) => w.name === n)?.ip;
      if (Recorder.snapAt(t, this.version(i)) >= 0)
        out.push({ name: n, kind: 'node', ...(ip ? { ip } : {}) });
    }
    for (const l of world?.linux ?? [])
      out.push({ name: l.name, kind: 'node', ...(l.lines[1] ? { ip: l.lines[1] } : {}) });
    for (const x of world?.externals ?? []) out.push({ name: x.name, kind: 'external', ip: x.ip });
    if (!this.report?.world.cluster) {
      const walkEndpoints = (gs: readonly UiGroup[]) => {
        for (const x of gs) {
          for (const b of x.boxes)
            if (b.ref.kind === 'endpoint' && b.change !== 'removed' && !this.rec.endpointLabels.has(b.ref.id))
              out.push({
                name: b.ref.id,
                kind: 'endpoint',
                ...(b.lines[1] ? { ip: b.lines[1].split(/[ /,]/)[0]! } : {}),
              });
          walkEndpoints(x.groups);
        }
      };
      walkEndpoints(g.groups);
    }
    return out;
  }

  /** The truth tables the run checked, each cell with its trace request and the step it was checked at. */
  private tables(): UiTruthTable[] {
    const out: UiTruthTable[] = [];
    for (const c of this.report?.checkpoints ?? []) {
      let step = -1;
      this.steps.forEach((s, i) => {
        if (s.chapter === c.title) step = i;
      });
      for (const r of c.results) {
        const t = r.table;
        if (!t) continue;
        const [proto, portText] = t.header.split('/');
        const protocol = proto === 'UDP' || proto === 'ICMP' ? proto : 'TCP';
        out.push({
          title: t.label,
          rows: t.from,
          columns: t.to,
          step: step < 0 ? this.steps.length - 1 : step,
          cells: t.from.map((f, i) =>
            t.to.map((to, j) => ({
              disposition: t.dispositions[i]![j]!,
              request: {
                from: f,
                to,
                protocol,
                ...(portText !== undefined && protocol !== 'ICMP' ? { port: Number(portText) } : {}),
              },
            })),
          ),
        });
      }
    }
    return out;
  }
}

function findBox(g: UiGraph, ref: UiRef) {
  const want = refKey(ref);
  const walk = (gs: readonly UiGroup[]): { lines: readonly string[] } | undefined => {
    for (const x of gs) {
      const b = x.boxes.find((y) => y.key === want);
      if (b) return b;
      if (x.key === `g:${want}`) return { lines: [x.label] };
      const inner = walk(x.groups);
      if (inner) return inner;
    }
    return undefined;
  };
  return walk(g.groups);
}
