/**
 * What the web page (issue 18, `hnsim ui`) asks of the simulator: a lesson recorded from a scenario
 * (or a state file) — its timeline of events, the picture at any step, any object's details, a
 * packet's path — all computed by the simulator, none by the page. Browser-safe: nothing here or
 * in the modules that implement it may import `node:*` (the page bundles them; the few Node-only
 * parts — files, the YAML loader's `createRequire` — are aliased by the page's build).
 *
 * The page draws `UiGraph` with a layout library (ELK) and never invents a number or a name.
 */
import type { Disposition } from '../../vswitch/contracts.js';
import type { Json, JsonObject } from '../../core/json.js';

/** An object of the simulated world the page can point at (click, highlight, pick as a source). */
export interface UiRef {
  /** The Windows node (host) it is on; absent for cluster-wide things (underlay, services). */
  readonly node?: string;
  readonly kind: UiObjectKind;
  /** The object's own identity: an HNS GUID, a compute-system ID, a port ID, an adapter name, … */
  readonly id: string;
}

export type UiObjectKind =
  | 'node'
  | 'nic'
  | 'vnic'
  | 'vswitch'
  | 'network'
  | 'port'
  | 'endpoint'
  | 'namespace'
  | 'compartment'
  | 'container'
  | 'loadbalancer'
  | 'service'
  | 'segment'
  | 'router'
  | 'external'
  | 'linux';

/** `node|kind|id`: a ref as a map key (the page's and the model's). */
export const refKey = (r: UiRef): string => `${r.node ?? ''}|${r.kind}|${r.id}`;

/** A box of the picture: one object, its label lines, and what the current step did to it. */
export interface UiBox {
  /** Unique within one picture and stable across the steps of one lesson (the page animates by it). */
  readonly key: string;
  readonly ref: UiRef;
  readonly lines: readonly string[];
  /** Relative to the step before: absent when unchanged. */
  readonly change?: 'added' | 'changed' | 'removed';
  /** VFP layers of a port, in evaluation order, with their rule counts. */
  readonly layers?: readonly { readonly name: string; readonly rules: number }[];
}

/** A nested group (a node, a vSwitch, a compartment, a utility VM, the underlay). */
export interface UiGroup {
  readonly key: string;
  readonly kind: 'node' | 'vswitch' | 'compartment' | 'uvm' | 'underlay' | 'services';
  readonly label: string;
  readonly ref?: UiRef;
  readonly boxes: readonly UiBox[];
  readonly groups: readonly UiGroup[];
  readonly change?: 'added' | 'changed' | 'removed';
}

export interface UiLink {
  readonly from: string;
  readonly to: string;
  readonly label?: string;
  readonly dashed?: boolean;
}

export interface UiGraph {
  readonly title: string;
  readonly groups: readonly UiGroup[];
  readonly links: readonly UiLink[];
}

/** One event of the timeline: what one node's bus (or the scenario runner) said, narrated. */
export interface UiStep {
  readonly index: number;
  /** The scenario step (or set-up part) it belongs to: its narrated title. */
  readonly chapter: string;
  readonly node?: string;
  readonly kind: 'runtime' | 'cni' | 'hns' | 'hcs' | 'call' | 'fault' | 'cluster' | 'expect';
  /** The narration line, as `hnsim run` tells it. */
  readonly text: string;
  /** Nesting under the chapter (a plugin's delegate, an object a plugin made). */
  readonly depth: number;
  readonly added: readonly UiRef[];
  readonly changed: readonly UiRef[];
  readonly removed: readonly UiRef[];
}

/** What a click on an object shows, at one step. */
export interface UiDetails {
  readonly ref: UiRef;
  readonly title: string;
  /** As `HcnQuery*Properties` returns it (v2), when the object is an HNS object. */
  readonly v2?: JsonObject;
  /** As the v1 HNSCall API returns it (`GET /endpoints/<id>`, …). */
  readonly v1?: JsonObject;
  /** The port's VFP rules as `hnsim show rules` lists them. */
  readonly rules?: string;
  /** What a container sees: `ipconfig /all`, `route print`. */
  readonly ipconfig?: string;
  readonly routePrint?: string;
  /** Anything else worth a line (a compute system's state, a service's ports). */
  readonly facts?: readonly (readonly [string, string])[];
}

/** A packet to trace: `from`/`to` as `hnsim trace` reads them (pod, service, IP, node, outside). */
export interface UiTraceRequest {
  readonly from: string;
  readonly to: string;
  readonly protocol: 'TCP' | 'UDP' | 'ICMP' | number;
  readonly port?: number;
  readonly sourcePort?: number;
}

/** One stage of a packet's path, with the box it happened at (for the animation). */
export interface UiHop {
  readonly node: string;
  readonly stage: string;
  readonly action: string;
  /** The rule that decided (`ACL_ENDPOINT_LAYER ACL_3 @1000`, `LB_…`), when one did. */
  readonly rule?: string;
  readonly packet: string;
  readonly at?: UiRef;
}

export interface UiTrace {
  readonly request: UiTraceRequest;
  readonly disposition: Disposition;
  readonly hops: readonly UiHop[];
  /** The `hnsim explain` text for a packet that is not delivered (what would change the verdict). */
  readonly explain?: string;
  /** One trace per load-balancer backend, when a load balancer chose. */
  readonly branches?: readonly UiTrace[];
  readonly reply?: UiTrace;
  /** The text `hnsim trace` prints for the same request. */
  readonly text: string;
}

/** A name the packet picker offers. */
export interface UiPlace {
  readonly name: string;
  readonly kind: 'pod' | 'service' | 'node' | 'endpoint' | 'external' | 'ip';
  readonly ip?: string;
}

/** A truth table of the scenario: each cell a disposition and the trace request that gives it. */
export interface UiTruthTable {
  readonly title: string;
  readonly rows: readonly string[];
  readonly columns: readonly string[];
  readonly cells: readonly (readonly { readonly disposition: string; readonly request: UiTraceRequest }[])[];
  /** The step it was checked at (trace its cells there: `lesson.trace(step, cell.request)`). */
  readonly step?: number;
}

/** A recorded lesson. Every method answers from the simulator. */
export interface Lesson {
  readonly title: string;
  readonly description?: string;
  readonly steps: readonly UiStep[];
  /** The picture after step `i` (-1: before the first event). */
  pictureAt(i: number): UiGraph;
  details(i: number, ref: UiRef): Promise<UiDetails>;
  trace(i: number, request: UiTraceRequest): Promise<UiTrace>;
  places(i: number): readonly UiPlace[];
  readonly truthTables: readonly UiTruthTable[];
  /** Free-form facts about the scenario's data (the JSON the page was given). */
  readonly source: Json;
}
