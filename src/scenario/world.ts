/**
 * The state of one scenario run, shared by its parts (nodes.ts, pods.ts, steps.ts, expect.ts,
 * truth.ts): the nodes and pods as the run knows them, the cluster, the narrated steps, the
 * checkpoints and what the actions themselves expect; and the helpers they all use — where a path
 * is in the file, a setup error there, a narrated step, cluster work with what it changed on each
 * node, and a trace through the cluster or the standalone host.
 */
import { formatHResult, isHnsError } from '../core/errors.js';
import type { NamedNetwork } from '../analysis/reach-check.js';
import type { Cluster } from '../cluster/cluster.js';
import type { TraceRequest, TraceResult } from '../dataplane/trace.js';
import type { Host } from '../host/host.js';
import type { NarratedStep } from '../render/narration.js';
import type { ContainerdRuntime } from '../runtime/containerd.js';
import type { DockershimRuntime } from '../runtime/dockershim.js';
import { fmt } from '../vswitch/v4.js';
import { formatPath } from './load.js';
import { LiveDigest, NodeEvents, type NarrationLine } from './narrate.js';
import {
  ScenarioSetupError,
  type Checkpoint,
  type ExpectationResult,
  type FileLocation,
  type RunOptions,
  type ScenarioWorld,
} from './results.js';
import type { HostSpec, Scenario, ScenarioDoc, ServiceSpec } from './types.js';
import type { JsonPath } from './validate.js';

export type Runtime = ContainerdRuntime | DockershimRuntime;

export interface NodeState {
  readonly name: string;
  readonly spec: HostSpec;
  readonly os: 'windows' | 'linux';
  readonly host?: Host;
  readonly events?: NodeEvents;
  readonly runtime?: Runtime;
}

/** A Windows node: its host and its events are there. */
export type WindowsNode = NodeState & { readonly host: Host; readonly events: NodeEvents };

export interface PodState {
  readonly key: string;
  readonly node: string;
  phase: 'Running' | 'Failed' | 'Absent';
  ip?: string;
  sandboxId?: string;
  netns?: string;
  endpointId?: string;
  hostProcess: boolean;
  /** Known to the cluster (its traces, DNS and services see it). */
  inCluster: boolean;
  error?: string;
}

export function errorText(e: unknown): string {
  if (isHnsError(e)) return `${e.code} (${formatHResult(e.hresult >>> 0)}): ${e.detail ?? e.message}`;
  return e instanceof Error ? e.message : String(e);
}

export const indentLines = (lines: readonly NarrationLine[], base = 0): string[] =>
  lines.map((l) => `${'  '.repeat(l.depth + base)}${l.text}`);

/** Per-node change lines: `node:` then each change indented. */
export function nodeLines(byNode: ReadonlyMap<string, readonly string[]>): string[] {
  return [...byNode].flatMap(([n, diff]) => [`${n}:`, ...diff.map((d) => `  ${d}`)]);
}

export class RunWorld {
  readonly steps: NarratedStep[] = [];
  readonly checkpoints: Checkpoint[] = [];
  /** What the pods and steps themselves expect (a refused delete, a call's outcome, …). */
  readonly actions: ExpectationResult[] = [];
  readonly nodes = new Map<string, NodeState>();
  readonly pods = new Map<string, PodState>();
  cluster: Cluster | undefined;
  podSeq = 0;
  /** The scenario step being run (1-based; 0: the set-up), for the observer. */
  scenarioStep = 0;
  readonly doc: ScenarioDoc;
  /** Each Windows node's digest, kept up to date from its events. */
  private readonly digests = new Map<string, LiveDigest>();

  /** Whether `expect` blocks are checked (not in a run that only rebuilds an earlier state). */
  readonly checks: boolean;
  readonly #earlier: ((steps: number) => Promise<RunWorld>) | undefined;
  readonly #runs = new Map<number, Promise<RunWorld>>();

  constructor(
    readonly s: Scenario,
    readonly options: RunOptions,
    more: { readonly checks?: boolean; readonly earlier?: (steps: number) => Promise<RunWorld> } = {},
  ) {
    this.doc = s.doc;
    this.checks = more.checks ?? true;
    this.#earlier = more.earlier;
  }

  /**
   * The state of this file after its set-up and `steps` steps, for `reachUnchanged`: a cluster
   * cannot be copied, so it is the same file run again that far (runs are deterministic), once.
   */
  earlier(steps: number): Promise<RunWorld> {
    if (!this.#earlier) throw new Error('scenario: no earlier state in this run');
    let r = this.#runs.get(steps);
    if (!r) this.#runs.set(steps, (r = this.#earlier(steps)));
    return r;
  }

  /** The network reachability is asked of (the cluster, else the standalone host), its names as traces read them. */
  named(): NamedNetwork {
    return {
      net: this.cluster ?? this.windowsNodes()[0]!.host!,
      ref: (r) => this.ref(r),
      has: (r) => this.exists(r),
    };
  }

  /** Whether a pod (running) or a service (`svc:ns/name`) is there now; other references are taken as there. */
  exists(r: string): boolean {
    if (r.startsWith('svc:')) return this.cluster?.service(r.slice(4)) !== undefined;
    const pod = this.pods.get(r);
    return pod ? pod.phase === 'Running' : true;
  }

  /** The running pods, in the order the run made them. */
  runningPods(): string[] {
    return [...this.pods.values()].filter((p) => p.phase === 'Running').map((p) => p.key);
  }

  /** The services there now, as `svc:ns/name`: the file's (set-up and steps) and kube-dns. */
  services(): string[] {
    const specs: ServiceSpec[] = [...(this.doc.services ?? [])];
    for (const st of this.doc.steps ?? []) if ('addService' in st) specs.push(st.addService);
    const keys = specs.map((x) => `${x.namespace ?? 'default'}/${x.name}`);
    if (this.doc.cluster?.coreDns) keys.push('kube-system/kube-dns');
    return [...new Set(keys)].filter((k) => this.cluster?.service(k) !== undefined).map((k) => `svc:${k}`);
  }

  where(path: JsonPath): FileLocation {
    const { line, col } = this.s.locate(path);
    return { path: formatPath(path), line, col };
  }

  setupError(path: JsonPath, e: unknown): ScenarioSetupError {
    return new ScenarioSetupError(this.s.file, this.where(path), errorText(e));
  }

  step(title: string, notes: string[]): void {
    this.steps.push({ title, notes, calls: [] });
    this.options.observe?.chapter(title, notes, this.scenarioStep, this.view());
  }

  /** A Windows node's narration recorder (the observer is told of it). */
  nodeEvents(name: string, host: Host): NodeEvents {
    const events = new NodeEvents(name, host);
    this.options.observe?.node(name, host, events);
    return events;
  }

  get seed(): number {
    return this.doc.seed ?? 1;
  }

  windowsNodes(): NodeState[] {
    return [...this.nodes.values()].filter((n) => n.host !== undefined);
  }

  winNode(name: string): WindowsNode {
    return this.nodes.get(name) as WindowsNode;
  }

  dnsIp(): string {
    return fmt(this.cluster!.dnsServiceIp);
  }

  /** What changed on a node since the last call (the first call only starts following it). */
  private changesOf(n: NodeState): string[] {
    let d = this.digests.get(n.name);
    if (!d) this.digests.set(n.name, (d = new LiveDigest(n.host!)));
    return d.diff();
  }

  /** Run cluster work; what it changed on each Windows node (`lines`: `node:` then `  + …`). */
  clusterOp<T>(path: JsonPath, fn: () => T): { value: T; lines: string[]; byNode: Map<string, string[]> } {
    // what changed since the last cluster work (a runtime's pods, steps) is not this work's
    for (const n of this.windowsNodes()) this.changesOf(n);
    let value: T;
    try {
      value = fn();
    } catch (e) {
      throw this.setupError(path, e);
    }
    const byNode = new Map<string, string[]>();
    for (const n of this.windowsNodes()) {
      const diff = this.changesOf(n);
      if (diff.length) byNode.set(n.name, diff);
    }
    const lines = nodeLines(byNode);
    this.options.observe?.cluster(lines);
    return { value, lines, byNode };
  }

  /** A reference as the trace scope knows it. */
  ref(r: string): string {
    const pod = this.pods.get(r);
    if (this.cluster) return pod?.hostProcess ? pod.node : r;
    if (pod?.endpointId) return pod.endpointId;
    if (this.nodes.has(r)) return 'host';
    return r;
  }

  /**
   * Why a trace between two references could not run: the error, and which of the file's pods
   * among them is not running (a pod that failed to start is not there to trace from or to).
   */
  traceError(e: unknown, from: string, to: string): string {
    const down = [...new Set([from, to])].flatMap((r) => {
      const pod = this.pods.get(r);
      return pod && pod.phase !== 'Running' ? [`pod ${r} is ${pod.phase}`] : [];
    });
    return `${errorText(e)}${down.length ? ` (${down.join(', ')})` : ''}`;
  }

  trace(req: TraceRequest): TraceResult {
    if (this.cluster) return this.cluster.trace(req);
    return this.windowsNodes()[0]!.host!.trace(req);
  }

  request(
    from: string,
    to: string,
    protocol: string | undefined,
    port: number | undefined,
    extra: Partial<TraceRequest> = {},
  ): TraceRequest {
    const proto = protocol ?? 'TCP';
    return {
      from: this.ref(from),
      to: this.ref(to),
      protocol: proto,
      ...(proto !== 'ICMP' && port !== undefined ? { destinationPort: port } : {}),
      ...extra,
    };
  }

  /** What the run left behind, for the views. */
  view(): ScenarioWorld {
    return {
      ...(this.cluster ? { cluster: this.cluster } : {}),
      nodes: this.nodes,
      pods: this.pods,
      ref: (r) => this.ref(r),
      trace: (req) => this.trace(req),
      named: () => this.named(),
      runningPods: () => this.runningPods(),
      services: () => this.services(),
    };
  }
}
