/**
 * The picture's layout: a lesson's `UiGraph` (nested groups of boxes, links) given to ELK's
 * 'layered' algorithm with hierarchy handling INCLUDE_CHILDREN, so a node's vSwitch, its ports and
 * the compartments inside are laid out as nested boxes with the links between levels routed once.
 * The page sizes each box from its label lines and places nothing itself: every coordinate is
 * ELK's. A layout is kept and reused while the graph's shape (the keys, the nesting, the box sizes,
 * the links, what is collapsed) stays the same, so a timeline step that only changes labels or
 * highlights restyles the picture without laying it out again.
 */
import type { ELK, ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api.js';
import type { UiBox, UiGraph, UiGroup } from '../model/contract.js';

/** Text metrics of the picture's monospace labels (app.css: .picture text, 12px). */
export const LINE_HEIGHT = 15;
export const CHAR_WIDTH = 7.3;
const PAD_X = 8;
const PAD_Y = 6;
/** Room above a group's children for its label. */
const GROUP_HEAD = 24;

export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

export interface PlacedEdge {
  readonly from: string;
  readonly to: string;
  readonly d: string;
  readonly label?: string;
  readonly labelAt?: { readonly x: number; readonly y: number };
  readonly dashed: boolean;
}

export interface Layout {
  /** What the layout was made for: equal for two graphs of the same shape. */
  readonly signature: string;
  /** Absolute rectangles of boxes, groups and collapsed groups (drawn as one box), by key. */
  readonly rects: ReadonlyMap<string, Rect>;
  readonly edges: readonly PlacedEdge[];
  readonly width: number;
  readonly height: number;
}

/** The lines a box shows: its own, then a port's VFP layers in evaluation order. */
export function boxLines(b: UiBox): string[] {
  return [...b.lines, ...(b.layers ?? []).map((l) => `  ${l.name} (${l.rules})`)];
}

/** A collapsed group's lines: its label and how many objects it holds. */
export function collapsedLines(g: UiGroup): string[] {
  const count = (x: UiGroup): number => x.boxes.length + x.groups.reduce((n, c) => n + count(c), 0);
  return [g.label, `${count(g)} objects (collapsed)`];
}

export function sizeOf(lines: readonly string[]): { w: number; h: number } {
  const longest = lines.reduce((n, l) => Math.max(n, l.length), 4);
  // widths in steps of 4 characters, so a label growing by a character rarely re-lays the picture
  return {
    w: Math.ceil(longest / 4) * 4 * CHAR_WIDTH + 2 * PAD_X,
    h: Math.max(1, lines.length) * LINE_HEIGHT + 2 * PAD_Y,
  };
}

/** Each key inside a collapsed group, mapped to that group's key (what links to it attach to). */
export function collapsedAliases(graph: UiGraph, collapsed: ReadonlySet<string>): Map<string, string> {
  const alias = new Map<string, string>();
  const under = (g: UiGroup, top: string): void => {
    for (const b of g.boxes) alias.set(b.key, top);
    for (const c of g.groups) {
      alias.set(c.key, top);
      under(c, top);
    }
  };
  const walk = (g: UiGroup): void => {
    if (collapsed.has(g.key)) under(g, g.key);
    else g.groups.forEach(walk);
  };
  graph.groups.forEach(walk);
  return alias;
}

/**
 * The ELK graph of a picture, and its signature. `pack`: many nodes — the top level is packed in
 * rows by ELK's 'rectpacking' (a 'layered' row of 50 nodes is unreadable), each top-level group laid
 * out by 'layered' inside, and the links between top-level groups (a node's NIC to the underlay)
 * left out.
 */
export function elkGraph(
  graph: UiGraph,
  collapsed: ReadonlySet<string>,
  pack = false,
): {
  root: ElkNode;
  signature: string;
  links: { from: string; to: string; label?: string; dashed: boolean }[];
} {
  const sig: string[] = [pack ? 'packed' : 'layered'];
  const known = new Set<string>();
  /** Each key's top-level group key. */
  const topOf = new Map<string, string>();
  const tops = new Map<string, ElkNode>();
  const leaf = (key: string, lines: readonly string[], top: string): ElkNode => {
    const { w, h } = sizeOf(lines);
    sig.push(`${key}:${w}x${h}`);
    known.add(key);
    topOf.set(key, top);
    return { id: key, width: w, height: h };
  };
  const group = (g: UiGroup, top?: string): ElkNode => {
    const t = top ?? g.key;
    if (collapsed.has(g.key)) return leaf(g.key, collapsedLines(g), t);
    sig.push(`(${g.key}`);
    known.add(g.key);
    topOf.set(g.key, t);
    const children = [
      ...g.groups.map((c) => group(c, t)),
      ...g.boxes.map((b) => leaf(b.key, boxLines(b), t)),
    ];
    sig.push(')');
    const n: ElkNode = {
      id: g.key,
      layoutOptions: {
        'elk.padding': `[top=${GROUP_HEAD},left=10,bottom=10,right=10]`,
        'elk.nodeSize.minimum': `(${sizeOf([g.label]).w + 20}, ${GROUP_HEAD + 10})`,
        'elk.nodeSize.constraints': 'MINIMUM_SIZE',
        ...(pack && top === undefined ? LAYERED : {}),
      },
      children,
      edges: [],
    };
    if (top === undefined) tops.set(g.key, n);
    return n;
  };
  const children = graph.groups.map((g) => group(g));
  const alias = collapsedAliases(graph, collapsed);
  const seen = new Set<string>();
  const links: { from: string; to: string; label?: string; dashed: boolean }[] = [];
  for (const l of graph.links) {
    const from = alias.get(l.from) ?? l.from;
    const to = alias.get(l.to) ?? l.to;
    if (from === to || !known.has(from) || !known.has(to)) continue;
    // packed: a link must stay inside one top-level group
    if (pack && (topOf.get(from) !== topOf.get(to) || !tops.has(topOf.get(from)!))) continue;
    const id = `${from}\u0000${to}\u0000${l.label ?? ''}`;
    if (seen.has(id)) continue;
    seen.add(id);
    links.push({ from, to, ...(l.label !== undefined ? { label: l.label } : {}), dashed: l.dashed === true });
    sig.push(`${from}>${to}`);
  }
  const edges: ElkExtendedEdge[] = [];
  links.forEach((l, i) => {
    const e: ElkExtendedEdge = {
      id: `e${i}`,
      sources: [l.from],
      targets: [l.to],
      ...(l.label ? { labels: [{ text: l.label, ...sizeOf([l.label]) }] } : {}),
    };
    if (pack) tops.get(topOf.get(l.from)!)!.edges!.push(e);
    else edges.push(e);
  });
  const root: ElkNode = {
    id: '\u0000root',
    layoutOptions: {
      ...(pack
        ? {
            'elk.algorithm': 'rectpacking',
            'elk.hierarchyHandling': 'SEPARATE_CHILDREN',
            'elk.aspectRatio': '1.6',
            'elk.spacing.nodeNode': '18',
          }
        : LAYERED),
      'elk.padding': '[top=12,left=12,bottom=12,right=12]',
    },
    children,
    edges,
  };
  return { root, signature: sig.join('\n'), links };
}

/** ELK's 'layered' with nested groups laid out in one pass. */
const LAYERED: Readonly<Record<string, string>> = {
  'elk.algorithm': 'layered',
  'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
  'elk.direction': 'DOWN',
  'elk.edgeRouting': 'ORTHOGONAL',
  'elk.spacing.nodeNode': '18',
  'elk.layered.spacing.nodeNodeBetweenLayers': '28',
  'elk.spacing.edgeLabel': '2',
  'elk.edgeLabels.inline': 'false',
};

let elk: ELK | undefined;
/** Layouts by signature: a step back, or one laid out ahead (app.tsx), costs no ELK run. */
const cache = new Map<string, Promise<Layout>>();
const CACHE_SIZE = 200;

/** The ELK the page lays out with (the page's worker: src/ui/page/elk.ts; tests: elkjs's bundled build). */
export function useElk(engine: ELK): void {
  elk = engine;
}

function engine(): ELK {
  if (!elk) throw new Error('no ELK engine: useElk() first');
  return elk;
}

/**
 * Lay the picture out with ELK, or hand back `previous` (or a layout made before) when the shape
 * is the same.
 */
export async function layout(
  graph: UiGraph,
  collapsed: ReadonlySet<string>,
  previous?: Layout,
  pack = false,
): Promise<Layout> {
  const { root, signature, links } = elkGraph(graph, collapsed, pack);
  if (previous && previous.signature === signature) return previous;
  let made = cache.get(signature);
  if (!made) {
    // the promise is kept: a layout asked for again while ELK works on it waits for the same one
    made = engine()
      .layout(root)
      .then((out) => placed(root.id, out, signature, links));
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(signature, made);
    made.catch(() => cache.delete(signature));
  }
  return made;
}

/** Absolute rectangles and edge paths from ELK's answer (coordinates relative to parents). */
function placed(
  rootId: string,
  out: ElkNode,
  signature: string,
  links: readonly { from: string; to: string; label?: string; dashed: boolean }[],
): Layout {
  const rects = new Map<string, Rect>();
  const origin = new Map<string, { x: number; y: number }>();
  const place = (n: ElkNode, ox: number, oy: number): void => {
    const x = ox + (n.x ?? 0);
    const y = oy + (n.y ?? 0);
    origin.set(n.id, { x, y });
    if (n.id !== rootId) rects.set(n.id, { x, y, w: n.width ?? 0, h: n.height ?? 0 });
    for (const c of n.children ?? []) place(c, x, y);
  };
  place(out, 0, 0);
  const edges: PlacedEdge[] = [];
  const collect = (n: ElkNode): void => {
    for (const e of (n.edges ?? []) as (ElkExtendedEdge & { container?: string })[]) {
      const link = links[Number(e.id.slice(1))];
      if (!link) continue;
      // an edge's coordinates are relative to the node that contains it
      const o = origin.get(e.container ?? n.id) ?? { x: 0, y: 0 };
      const parts: string[] = [];
      for (const s of e.sections ?? []) {
        const pts = [s.startPoint, ...(s.bendPoints ?? []), s.endPoint];
        parts.push(
          pts.map((p, i) => `${i ? 'L' : 'M'}${(p.x + o.x).toFixed(1)} ${(p.y + o.y).toFixed(1)}`).join(''),
        );
      }
      const lab = e.labels?.[0];
      edges.push({
        from: link.from,
        to: link.to,
        d: parts.join(''),
        dashed: link.dashed,
        ...(link.label !== undefined ? { label: link.label } : {}),
        ...(lab && link.label !== undefined
          ? { labelAt: { x: o.x + (lab.x ?? 0) + PAD_X, y: o.y + (lab.y ?? 0) + LINE_HEIGHT } }
          : {}),
      });
    }
    for (const c of n.children ?? []) collect(c);
  };
  collect(out);
  return { signature, rects, edges, width: out.width ?? 0, height: out.height ?? 0 };
}
