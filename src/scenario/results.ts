/**
 * What a scenario run takes and gives (src/scenario/run.ts): its options; a report of checkpoints,
 * each expectation's result with where it is in the file, and the world the run left behind for
 * the views; or, when the simulator refuses what the file describes, a ScenarioSetupError saying
 * where and why.
 */
import type { NamedNetwork } from '../analysis/reach-check.js';
import type { Cluster } from '../cluster/cluster.js';
import type { TraceRequest, TraceResult } from '../dataplane/trace.js';
import type { Host } from '../host/host.js';
import type { Walkthrough } from '../render/narration.js';
import type { NodeEvents } from './narrate.js';
import type { DispositionName } from './types.js';

export type ResultKind =
  'pod' | 'trace' | 'reachability' | 'hns' | 'audit' | 'acls' | 'reach' | 'reachUnchanged' | 'call' | 'step';

/** Where something is in the scenario file. */
export interface FileLocation {
  readonly path: string;
  readonly line: number;
  readonly col: number;
}

/** A trace expectation's outcome. */
export interface TraceOutcome {
  readonly from: string;
  readonly to: string;
  readonly protocol: string;
  readonly port?: number;
  readonly expected: DispositionName;
  /** The disposition, or `error` when the trace could not run (an unknown source). */
  readonly observed: string;
  readonly changes: readonly string[];
  readonly reply?: { readonly expected: DispositionName; readonly observed: string };
  /** Why it could not run, or the trace's own detail. */
  readonly detail?: string;
  /** The trace at ovn-trace's summary level (with `traces: true`). */
  readonly text?: string;
}

/**
 * A cell of a truth table: `.` connects (the trace is Delivered), `X` does not (any other
 * disposition), `!` the trace could not run (an error: never a pass), `-` not traced (loopback,
 * with `ignoreLoopback`). Expected cells are `.`, `X` or `-`.
 */
export type Cell = '.' | 'X' | '!' | '-';

/** A reachability truth table: expected, observed and their comparison, as cyclonus prints them. */
export interface TruthTable {
  readonly label: string;
  /** `TCP/80`. */
  readonly header: string;
  readonly from: readonly string[];
  readonly to: readonly string[];
  readonly expected: readonly (readonly Cell[])[];
  readonly observed: readonly (readonly Cell[])[];
  /** The disposition of each cell's trace (`error: …` when it could not run). */
  readonly dispositions: readonly (readonly string[])[];
  /** Cells whose observation is as expected. */
  readonly correct: number;
  /** Cells whose trace ran and disagrees with the expectation. */
  readonly wrong: number;
  /** Cells whose trace could not run (`!`): each fails the table. */
  readonly errors: number;
  readonly ignored: number;
}

export interface ExpectationResult {
  readonly kind: ResultKind;
  readonly label: string;
  readonly ok: boolean;
  readonly at: FileLocation;
  /** What differs, one line each ([] when ok). */
  readonly problems: readonly string[];
  /** How many of its traces could not run (absent when none): such an expectation never holds. */
  readonly errors?: number;
  readonly trace?: TraceOutcome;
  readonly table?: TruthTable;
}

/** The results of one `expect` block (or of the actions, for what the steps themselves expect). */
export interface Checkpoint {
  readonly title: string;
  readonly at: FileLocation;
  readonly results: readonly ExpectationResult[];
}

export interface RunReport {
  readonly scenario: string;
  readonly file: string;
  readonly description?: string;
  readonly seed: number;
  readonly walkthrough: Walkthrough;
  readonly checkpoints: readonly Checkpoint[];
  /** The one tally of the run: every checkpoint's results, the steps' own included. */
  readonly passed: number;
  readonly failed: number;
  /** How many of the failed expectations have a trace that could not run. */
  readonly errors: number;
  readonly ok: boolean;
  /** What the run left behind, for the views (`hnsim show|trace|diagram|explain SCENARIO`). */
  readonly world: ScenarioWorld;
}

/** A pod as the run knows it (the key is `namespace/name`). */
export interface ScenarioPod {
  readonly key: string;
  readonly node: string;
  readonly phase: 'Running' | 'Failed' | 'Absent';
  readonly ip?: string;
  readonly sandboxId?: string;
  readonly netns?: string;
  readonly endpointId?: string;
  readonly hostProcess: boolean;
}

/** The nodes, pods and traces of a finished (or stopped, `until`) run. */
export interface ScenarioWorld {
  /** The cluster, when the file has `cluster`. */
  readonly cluster?: Cluster;
  /** Every node by name, in file order (Linux nodes have no host). */
  readonly nodes: ReadonlyMap<string, { readonly os: 'windows' | 'linux'; readonly host?: Host }>;
  readonly pods: ReadonlyMap<string, ScenarioPod>;
  /** A reference of the file's kinds (pod, node, svc:, IP, name) as the trace scope takes it. */
  ref(r: string): string;
  /** Trace through the cluster (or the standalone host). */
  trace(req: TraceRequest): TraceResult;
  /** The network reachability is asked of (the cluster, else the standalone host), its names read as traces read them. */
  named(): NamedNetwork;
  /** The running pods (`ns/name`), in the order the run made them. */
  runningPods(): string[];
  /** The services there now, as `svc:ns/name`. */
  services(): string[];
}

export interface RunOptions {
  /** Keep each trace expectation's trace as text (`hnsim run --trace`). */
  readonly traces?: boolean;
  /** Called as a truth table fills (cells done of total), for a progress bar. */
  readonly onProgress?: (done: number, total: number, label: string) => void;
  /** Stop after this many steps (0: after the set-up), skipping the final `expect` block. */
  readonly until?: number;
  /** Told of the run as it goes (the web page's lesson recorder, src/ui/model); the run is the same. */
  readonly observe?: RunObserver;
}

/**
 * What a run tells an observer: each Windows node as its events start being followed (its
 * captures can then be tapped), the lines of each cluster change as it is made, and each narrated
 * step as it is told, with the scenario step it is part of (0: the set-up).
 */
export interface RunObserver {
  node(name: string, host: Host, events: NodeEvents): void;
  cluster(lines: readonly string[]): void;
  chapter(title: string, notes: readonly string[], step: number, world: ScenarioWorld): void;
}

/** The simulator refused what the file describes (a pod subnet that is full, …): where and why. */
export class ScenarioSetupError extends Error {
  constructor(
    readonly file: string,
    readonly at: FileLocation,
    readonly reason: string,
  ) {
    super(`${file}:${at.line}:${at.col}: ${at.path ? `${at.path}: ` : ''}${reason}`);
    this.name = 'ScenarioSetupError';
  }
}
