/**
 * The picture at a step: each Windows node drawn by src/render/diagram.ts from its state then
 * (its snapshot restored into a scratch host, once per snapshot), the underlay, Linux nodes and
 * services from what the cluster held then, and the marks of what changed since the step before.
 */
import { createHost, type Host } from '../../host/host.js';
import { addHost, Diagram, type Box, type Group } from '../../render/diagram.js';
import { refKey, type UiBox, type UiGraph, type UiGroup, type UiLink, type UiRef } from './contract.js';
import { Recorder, type NodeTrack, type WorldData } from './record.js';

const GROUP_KINDS: Readonly<Record<Group['kind'], UiGroup['kind']>> = {
  host: 'node',
  vswitch: 'vswitch',
  compartment: 'compartment',
  uvm: 'uvm',
  underlay: 'underlay',
  graph: 'underlay',
};

interface NodePicture {
  readonly group: UiGroup;
  readonly links: readonly UiLink[];
  /** The key of its first physical NIC's box (the underlay link's end). */
  readonly nic?: string;
}

/** One Windows node's scratch host, restored to one snapshot at a time. */
class Scratch {
  private host: Host | undefined;
  private at = -1;

  constructor(private readonly track: NodeTrack) {}

  /** The scratch host in the state of snapshot `k`; `fresh`: restored again even when it is. */
  get(k: number, fresh = false): Host {
    if (!this.host) this.host = createHost({ profile: this.track.host.profile, name: this.track.name });
    if (fresh || this.at !== k) {
      this.host.restore(this.track.snaps[k]!.snap);
      this.at = k;
    }
    return this.host;
  }
}

export class Pictures {
  private readonly scratch = new Map<string, Scratch>();
  private readonly nodePictures = new Map<string, NodePicture>();
  private readonly raw = new Map<number, UiGraph>();

  constructor(
    private readonly rec: Recorder,
    private readonly title: string,
  ) {}

  /** A node's host in its state at version `v` (undefined: the node was not there yet). */
  hostAt(node: string, v: number, fresh = false): Host | undefined {
    const t = this.rec.nodes.get(node);
    if (!t) return undefined;
    const k = Recorder.snapAt(t, v);
    if (k < 0) return undefined;
    let s = this.scratch.get(node);
    if (!s) this.scratch.set(node, (s = new Scratch(t)));
    return s.get(k, fresh);
  }

  private nodePicture(t: NodeTrack, k: number): NodePicture {
    const key = `${t.name}#${k}`;
    let p = this.nodePictures.get(key);
    if (p) return p;
    const host = this.hostAt(t.name, t.snaps[k]!.v)!;
    const d = new Diagram(t.name);
    const nics = addHost(d, d.root, host, {
      name: t.name,
      caption: `Windows, ${host.profile.name}`,
      endpointLabels: this.rec.endpointLabels,
      systemLabels: this.rec.systemLabels,
      loadBalancers: true,
    });
    const keys = new Map<string, string>();
    const group = convert(d.root.groups[0]!, t.name, keys);
    const links = d.links.flatMap((l) => {
      const from = keys.get(l.from);
      const to = keys.get(l.to);
      return from && to
        ? [{ from, to, ...(l.label ? { label: l.label } : {}), ...(l.dashed ? { dashed: true } : {}) }]
        : [];
    });
    const first = [...nics.values()][0];
    const nic = first !== undefined ? keys.get(first) : undefined;
    p = { group, links, ...(nic ? { nic } : {}) };
    this.nodePictures.set(key, p);
    return p;
  }

  /** The picture at version `v`, without change marks. */
  at(v: number): UiGraph {
    let g = this.raw.get(v);
    if (g) return g;
    const groups: UiGroup[] = [];
    const links: UiLink[] = [];
    const world = this.rec.worldAt(v);
    const nicOf = new Map<string, string>();
    for (const t of this.rec.nodes.values()) {
      const k = Recorder.snapAt(t, v);
      if (k < 0) continue;
      const p = this.nodePicture(t, k);
      groups.push(p.group);
      links.push(...p.links);
      if (p.nic) nicOf.set(t.name, p.nic);
    }
    if (world) underlay(world, groups, links, nicOf);
    g = { title: this.title, groups, links };
    this.raw.set(v, g);
    return g;
  }
}

function convert(g: Group, node: string | undefined, keys: Map<string, string>): UiGroup {
  const boxes = g.boxes.map((b, i) => box(b, node, keys, `${g.id}.${i}`));
  const groups = g.groups.map((c) => convert(c, node, keys));
  const ref: UiRef | undefined = g.ref ? { ...(node !== undefined ? { node } : {}), ...g.ref } : undefined;
  return {
    key: `g:${ref ? refKey(ref) : `${node ?? ''}|${g.kind}|${g.label}`}`,
    kind: GROUP_KINDS[g.kind],
    label: g.label,
    ...(ref ? { ref } : {}),
    boxes,
    groups,
  };
}

function box(b: Box, node: string | undefined, keys: Map<string, string>, fallback: string): UiBox {
  const ref: UiRef = b.ref
    ? { ...(node !== undefined ? { node } : {}), kind: b.ref.kind, id: b.ref.id }
    : { ...(node !== undefined ? { node } : {}), kind: 'node', id: fallback };
  const key = refKey(ref);
  keys.set(b.id, key);
  return { key, ref, lines: b.lines, ...(b.layers ? { layers: b.layers } : {}) };
}

/** The underlay (segments, routers, outside hosts, Linux nodes) and the services, as groups. */
function underlay(
  w: WorldData,
  groups: UiGroup[],
  links: UiLink[],
  nicOf: ReadonlyMap<string, string>,
): void {
  const boxes: UiBox[] = [];
  const add = (kind: UiRef['kind'], id: string, lines: readonly string[]): string => {
    const ref: UiRef = { kind, id };
    const key = refKey(ref);
    boxes.push({ key, ref, lines });
    return key;
  };
  const seg = new Map<string, string>();
  for (const s of w.segments)
    seg.set(s.name, add('segment', s.name, [`segment ${s.name}`, ...(s.prefix ? [s.prefix] : [])]));
  for (const r of w.routers) {
    const k = add('router', r.name, [r.name, ...r.ips]);
    for (const s of r.segments) if (seg.has(s)) links.push({ from: k, to: seg.get(s)! });
  }
  const routerKeys = w.routers.filter((r) => r.internet).map((r) => refKey({ kind: 'router', id: r.name }));
  for (const x of w.externals) {
    const k = add('external', x.name, [x.name, x.ip]);
    for (const r of routerKeys) links.push({ from: r, to: k, label: 'internet', dashed: true });
  }
  for (const l of w.linux) {
    const k = add('linux', l.name, l.lines);
    if (seg.has(l.segment)) links.push({ from: k, to: seg.get(l.segment)! });
  }
  for (const n of w.windows) {
    const nic = nicOf.get(n.name);
    if (nic && seg.has(n.segment)) links.push({ from: nic, to: seg.get(n.segment)!, label: n.ip });
  }
  if (boxes.length)
    groups.unshift({ key: 'g:underlay', kind: 'underlay', label: 'underlay', boxes, groups: [] });
  if (w.services.length)
    groups.push({
      key: 'g:services',
      kind: 'services',
      label: 'services',
      boxes: w.services.map((s) => {
        const ref: UiRef = { kind: 'service', id: s.key };
        return { key: refKey(ref), ref, lines: s.lines };
      }),
      groups: [],
    });
}

// ───────────────────────────── change marks ─────────────────────────────

const sig = (b: UiBox): string => `${b.lines.join('\n')}\u0000${JSON.stringify(b.layers ?? [])}`;

function allKeys(groups: readonly UiGroup[], boxes: Set<string>, gs: Set<string>): void {
  for (const g of groups) {
    gs.add(g.key);
    for (const b of g.boxes) boxes.add(b.key);
    allKeys(g.groups, boxes, gs);
  }
}

function markAll(g: UiGroup, change: 'added'): UiGroup {
  return {
    ...g,
    change,
    boxes: g.boxes.map((b) => ({ ...b, change })),
    groups: g.groups.map((c) => markAll(c, change)),
  };
}

/** `cur` with what changed since `prev` marked, and what `prev` had and `cur` has not kept as removed. */
export function markChanges(cur: UiGraph, prev: UiGraph): UiGraph {
  const boxKeys = new Set<string>();
  const groupKeys = new Set<string>();
  allKeys(cur.groups, boxKeys, groupKeys);
  /** A group that is no more, less what moved elsewhere (a key is drawn once). */
  const gone = (g: UiGroup): UiGroup => ({
    ...g,
    change: 'removed',
    boxes: g.boxes.filter((b) => !boxKeys.has(b.key)).map((b) => ({ ...b, change: 'removed' as const })),
    groups: g.groups.filter((c) => !groupKeys.has(c.key)).map(gone),
  });
  const merge = (cs: readonly UiGroup[], ps: readonly UiGroup[]): UiGroup[] => {
    const byKey = new Map(ps.map((p) => [p.key, p]));
    const out = cs.map((c) => {
      const p = byKey.get(c.key);
      if (!p) return markAll(c, 'added');
      const before = new Map(p.boxes.map((b) => [b.key, b]));
      const boxes: UiBox[] = c.boxes.map((b) => {
        const was = before.get(b.key);
        return !was ? { ...b, change: 'added' } : sig(was) !== sig(b) ? { ...b, change: 'changed' } : b;
      });
      for (const b of p.boxes) if (!boxKeys.has(b.key)) boxes.push({ ...b, change: 'removed' });
      return {
        ...c,
        ...(c.label !== p.label ? { change: 'changed' as const } : {}),
        boxes,
        groups: merge(c.groups, p.groups),
      };
    });
    for (const p of ps) if (!groupKeys.has(p.key)) out.push(gone(p));
    return out;
  };
  return { ...cur, groups: merge(cur.groups, prev.groups) };
}
