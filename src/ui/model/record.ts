/**
 * The lesson recorder (issue 18): a scenario run by the real runner (src/scenario/run.ts) with an
 * observer that follows every Windows node's captures (src/scenario/narrate.ts's tap) and cluster
 * changes. Each narrated line becomes a step; each event that moved a node's state takes that
 * node's snapshot (host.snapshot(), cheap: a fraction of a millisecond), numbered by one version
 * counter across the nodes, so the state at any step is, per node, its last snapshot at or before
 * the step's version. Pictures and details restore those snapshots into scratch hosts, lazily.
 */
import type { HnsChangeEvent } from '../../core/events.js';
import type { Host } from '../../host/host.js';
import type { NarrationEvent, NarrationLine, NodeEvents } from '../../scenario/narrate.js';
import type { RunObserver, ScenarioWorld } from '../../scenario/results.js';
import { fmt, fmtPrefix } from '../../vswitch/v4.js';
import type { UiObjectKind, UiRef, UiStep } from './contract.js';
import { upper } from '../../render/objects.js';

/** One Windows node as the recorder follows it. */
export interface NodeTrack {
  readonly name: string;
  readonly host: Host;
  /** Its snapshots, by the version they were taken at (ascending). */
  readonly snaps: { readonly v: number; readonly snap: unknown }[];
  dirty: boolean;
  gen: number;
  /** A tapped event's own bus event is not a loose change. */
  tapped: boolean;
  /** Changes made outside captures (the cluster's) since the last cluster lines. */
  loose: HnsChangeEvent[];
}

/** What only the cluster knows, as data, at a version: the underlay, Linux nodes, services. */
export interface WorldData {
  readonly segments: readonly { readonly name: string; readonly prefix: string }[];
  readonly routers: readonly {
    readonly name: string;
    readonly ips: readonly string[];
    readonly segments: readonly string[];
    readonly internet: boolean;
  }[];
  readonly externals: readonly { readonly name: string; readonly ip: string }[];
  readonly linux: readonly {
    readonly name: string;
    readonly lines: readonly string[];
    readonly segment: string;
  }[];
  /** Windows nodes on the underlay: their segment and address. */
  readonly windows: readonly { readonly name: string; readonly segment: string; readonly ip: string }[];
  readonly services: readonly { readonly key: string; readonly lines: readonly string[] }[];
}

/** A step as recorded: the contract's, with the state version it shows. */
export interface StepDraft extends Omit<UiStep, 'index'> {
  readonly at: number;
  /** The scenario step it belongs to (0: the set-up; -1: the final expectations). */
  readonly scenarioStep: number;
}

interface Pending {
  readonly text: string;
  readonly node?: string;
  readonly at: number;
  readonly event?: NarrationEvent;
  readonly kind: UiStep['kind'];
  readonly refs?: Refs;
}

interface Refs {
  readonly added: UiRef[];
  readonly changed: UiRef[];
  readonly removed: UiRef[];
}

const HNS_KINDS: Readonly<Record<string, UiObjectKind>> = {
  Endpoint: 'endpoint',
  Network: 'network',
  Namespace: 'namespace',
  LoadBalancer: 'loadbalancer',
};

const EVENT_KINDS: Readonly<Record<NarrationEvent['kind'], UiStep['kind']>> = {
  runtime: 'runtime',
  cni: 'cni',
  hns: 'hns',
  hcs: 'hcs',
  call: 'call',
  service: 'fault',
};

function emptyRefs(): Refs {
  return { added: [], changed: [], removed: [] };
}

function addChange(refs: Refs, node: string, e: HnsChangeEvent): void {
  const kind = HNS_KINDS[e.kind];
  if (!kind) return;
  const ref: UiRef = { node, kind, id: upper(e.id) };
  (e.op === 'create' ? refs.added : e.op === 'delete' ? refs.removed : refs.changed).push(ref);
}

function eventRefs(node: string, ev: NarrationEvent | undefined): Refs {
  const refs = emptyRefs();
  if (ev?.change) addChange(refs, node, ev.change);
  const h = ev?.hcs;
  if (h?.system) {
    const ref: UiRef = { node, kind: 'container', id: upper(h.system) };
    if (h.notification === 'SystemCreateCompleted') refs.added.push(ref);
    else refs.changed.push(ref);
  }
  return refs;
}

export class Recorder implements RunObserver {
  version = 0;
  readonly nodes = new Map<string, NodeTrack>();
  readonly steps: StepDraft[] = [];
  readonly worlds: { readonly v: number; readonly data: WorldData; readonly json: string }[] = [];
  /** Pod names by endpoint ID and sandbox, for the picture (IDs are unique in a run). */
  readonly endpointLabels = new Map<string, string>();
  readonly systemLabels = new Map<string, string>();
  /** Each pod as last seen (`ns/name` → node, IP, phase) and the version it was first seen at. */
  readonly pods = new Map<
    string,
    { readonly node: string; readonly ip?: string; readonly phase: string; readonly since: number }
  >();
  readonly services = new Set<string>();
  private pending: Pending[] = [];
  private lastAt = 0;

  /** `segments`: the file's underlay segments, name → prefix. */
  constructor(private readonly segments: ReadonlyMap<string, string> = new Map()) {}

  node(name: string, host: Host, events: NodeEvents): void {
    const t: NodeTrack = { name, host, snaps: [], dirty: true, gen: -1, tapped: false, loose: [] };
    this.nodes.set(name, t);
    events.tap = {
      event: (ev) => {
        if (ev.kind !== 'hns' && ev.kind !== 'hcs' && ev.kind !== 'service')
          return { before: this.version, after: this.version };
        this.version++;
        this.later(t);
        t.tapped = true;
        return { before: this.version - 1, after: this.version };
      },
      lines: (lines) => this.captured(name, lines),
    };
    const moved = (e?: HnsChangeEvent) => {
      if (t.tapped) {
        t.tapped = false;
        return;
      }
      t.dirty = true;
      if (e) t.loose.push(e);
    };
    host.events.on('hns.change', (e) => moved(e));
    host.events.on('hcs.notification', () => moved());
    host.events.on('hns.service', () => moved());
    this.take(t);
  }

  /** A new version: `t`'s snapshot now. */
  private take(t: NodeTrack): void {
    this.version++;
    this.keep(t, this.version);
  }

  private keep(t: NodeTrack, v: number): void {
    t.snaps.push({ v, snap: t.host.snapshot() });
    t.dirty = false;
    t.gen = t.host.dataplane.generation();
  }

  /**
   * Nodes whose snapshot is due: an event fires inside the operation that causes it (HNS has not
   * finished it), so the snapshot waits until the operation is done — a microtask later, or the
   * next cluster change or chapter, whichever comes first. The events of one operation share it,
   * at the last one's version: the picture moves when the operation's last event is told.
   */
  private readonly due = new Map<NodeTrack, number>();

  private later(t: NodeTrack): void {
    if (!this.due.size) queueMicrotask(() => this.settle());
    this.due.set(t, this.version);
  }

  private settle(): void {
    for (const [t, v] of this.due) this.keep(t, v);
    this.due.clear();
  }

  /** Snapshots of the nodes whose state moved since their last one: the version of each. */
  private flush(): Map<string, number> {
    this.settle();
    const taken = new Map<string, number>();
    for (const t of this.nodes.values())
      if (t.dirty || t.host.dataplane.generation() !== t.gen) {
        this.take(t);
        taken.set(t.name, this.version);
      }
    return taken;
  }

  private captured(node: string, lines: readonly NarrationLine[]): void {
    for (const l of lines)
      this.pending.push({
        text: l.text,
        node,
        at: l.at ?? this.version,
        ...(l.event ? { event: l.event } : {}),
        kind: l.event ? EVENT_KINDS[l.event.kind] : 'runtime',
      });
  }

  cluster(lines: readonly string[]): void {
    const before = this.version;
    const taken = this.flush();
    let node: string | undefined;
    // each node's lines show the cluster's change on that node alone, node after node
    let at = before;
    for (const line of lines) {
      const header = /^(\S+):$/.exec(line);
      const track = header ? this.nodes.get(header[1]!) : undefined;
      let refs: Refs | undefined;
      if (track) {
        node = track.name;
        at = taken.get(track.name) ?? at;
        refs = emptyRefs();
        for (const e of track.loose) addChange(refs, track.name, e);
        track.loose = [];
      }
      this.pending.push({
        text: line.trim(),
        ...(node !== undefined ? { node } : {}),
        at,
        kind: 'cluster',
        ...(refs ? { refs } : {}),
      });
    }
  }

  chapter(title: string, notes: readonly string[], step: number, world: ScenarioWorld): void {
    this.flush();
    for (const t of this.nodes.values()) t.loose = [];
    this.learn(world);
    const end = this.version;
    const pending = this.pending;
    this.pending = [];
    let p = 0;
    const scenarioStep = title === 'Expectations' ? -1 : step;
    const lines = notes.length ? notes : [title];
    lines.forEach((note, n) => {
      const text = note.trim();
      const depth = Math.floor((note.length - note.trimStart().length) / 2);
      let j = p;
      while (j < pending.length && pending[j]!.text !== text) j++;
      const hit = j < pending.length ? pending[j] : undefined;
      if (hit) p = j + 1;
      const last = n === lines.length - 1;
      const at = Math.max(last ? end : hit ? hit.at : this.lastAt, this.lastAt);
      this.lastAt = at;
      const refs = hit?.refs ?? (hit?.node !== undefined ? eventRefs(hit.node, hit.event) : emptyRefs());
      this.steps.push({
        chapter: title,
        ...(hit?.node !== undefined ? { node: hit.node } : {}),
        kind: hit ? hit.kind : /^\s*[✓✗]/.test(note) || scenarioStep === -1 ? 'expect' : 'cluster',
        text,
        depth,
        ...refs,
        at,
        scenarioStep,
      });
    });
  }

  /** The run's world now: labels, pods, and the cluster's data when it changed. */
  private learn(world: ScenarioWorld): void {
    for (const p of world.pods.values()) {
      if (p.endpointId) this.endpointLabels.set(upper(p.endpointId), p.key);
      if (p.sandboxId) {
        this.systemLabels.set(p.sandboxId.toUpperCase(), `${p.key} (pause)`);
        this.systemLabels.set(`${p.sandboxId}@vm`.toUpperCase(), `of ${p.key}`);
      }
      const since = this.pods.get(p.key)?.since ?? this.version;
      this.pods.set(p.key, { node: p.node, ...(p.ip ? { ip: p.ip } : {}), phase: p.phase, since });
    }
    for (const s of world.services()) this.services.add(s);
    const data = worldData(world, this.segments);
    const json = JSON.stringify(data);
    if (this.worlds[this.worlds.length - 1]?.json !== json) this.worlds.push({ v: this.version, data, json });
  }

  /** The snapshot index of `t` at version `v` (-1: the node was not there yet). */
  static snapAt(t: NodeTrack, v: number): number {
    let lo = 0;
    let hi = t.snaps.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (t.snaps[mid]!.v <= v) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  worldAt(v: number): WorldData | undefined {
    let w: WorldData | undefined;
    for (const x of this.worlds) if (x.v <= v) w = x.data;
    return w;
  }
}

function worldData(world: ScenarioWorld, prefixes: ReadonlyMap<string, string>): WorldData {
  const cl = world.cluster;
  const services = world.services().map((key) => {
    const rec = cl?.service(key.slice(4));
    const ports = (rec?.spec.ports ?? []).map((p) => `${p.protocol ?? 'TCP'} ${p.port}`);
    return {
      key,
      lines: [
        `service ${key.slice(4)}`,
        rec && rec.clusterIP !== 'None' ? fmt(rec.clusterIP) : 'headless',
        ...(ports.length ? [ports.join(', ')] : []),
      ],
    };
  });
  if (!cl) return { segments: [], routers: [], externals: [], linux: [], windows: [], services };
  const segments = new Map<string, string>();
  const segment = (name: string) => {
    if (!segments.has(name))
      segments.set(name, prefixes.get(name) ?? (name === 'nodes' ? fmtPrefix(cl.nodeSubnet) : ''));
    return name;
  };
  const linux: { name: string; lines: string[]; segment: string }[] = [];
  const windows: { name: string; segment: string; ip: string }[] = [];
  for (const n of cl.allNodes()) {
    if (n.kind === 'Linux')
      linux.push({
        name: n.name,
        lines: [
          `${n.name} (Linux, ${n.spec.backend === 'ovn-kubernetes' ? 'ovn-kubernetes hybrid overlay' : `flannel ${n.spec.backend}`})`,
          fmt(n.ip),
          `pods ${fmtPrefix(n.podSubnet)}`,
        ],
        segment: segment(n.segment),
      });
    else windows.push({ name: n.name, segment: segment(n.segment), ip: fmt(n.ip) });
  }
  const routers = [...cl.fabric.routers.values()].map((r) => ({
    name: r.name,
    ips: r.interfaces.map((i) => fmt(i.ip)),
    segments: r.interfaces.map((i) => segment(i.segment)),
    internet: r.internet === true,
  }));
  const externals = [...cl.fabric.externals.values()].map((x) => ({ name: x.name, ip: fmt(x.ip) }));
  return {
    segments: [...segments].map(([name, prefix]) => ({ name, prefix })),
    routers,
    externals,
    linux,
    windows,
    services,
  };
}
