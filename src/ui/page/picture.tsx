/**
 * The picture: the lesson's graph at the current step drawn as SVG from an ELK layout — groups
 * (nodes, vSwitches, compartments, the underlay) as nested frames, boxes with their label lines and
 * a port's VFP layers, links. What the step changed carries a marker shape and a border style as
 * well as a colour (+ added, ~ changed, × removed), a packet's path marks its boxes with their hop
 * numbers, and a search match is outlined. Zoom (wheel, buttons, + and -) and pan (drag,
 * Shift+arrows) move one transform; nothing here lays anything out.
 */
import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { refKey, type UiBox, type UiGraph, type UiGroup } from '../model/contract.js';
import { CHAR_WIDTH, LINE_HEIGHT, boxLines, collapsedLines, type Layout, type Rect } from './layout.js';

export interface View {
  readonly scale: number;
  readonly x: number;
  readonly y: number;
}

export interface PictureProps {
  readonly graph: UiGraph;
  readonly layout: Layout;
  readonly collapsed: ReadonlySet<string>;
  readonly view: View;
  readonly onView: (v: View) => void;
  readonly onOpen: (key: string) => void;
  readonly selected?: string;
  /** Box key → the hop numbers (1-based) of the shown trace that happened there. */
  readonly hops: ReadonlyMap<string, readonly number[]>;
  /** The key of the box the animated packet is at. */
  readonly packetAt?: string;
  /** What happened to the packet there: its hop's stage, action and rule, as the trace names them. */
  readonly packetNote?: string;
  /** The box a denied packet stopped at. */
  readonly stoppedAt?: string;
  readonly matches: ReadonlySet<string>;
}

/** A keydown handler that does `act` on Enter or Space (what a button does), for role=button elements. */
export function onActivate(act: () => void): (e: KeyboardEvent) => void {
  return (e) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      act();
    }
  };
}

const MARK: Record<string, string> = { added: '+', changed: '~', removed: '×' };

function Marker({ r, change }: { r: Rect; change?: string }) {
  if (!change) return null;
  const cx = r.x + r.w - 2;
  const cy = r.y + 2;
  const shape =
    change === 'added' ? (
      <circle cx={cx} cy={cy} r={8} />
    ) : change === 'changed' ? (
      <path d={`M${cx} ${cy - 9}L${cx + 9} ${cy}L${cx} ${cy + 9}L${cx - 9} ${cy}Z`} />
    ) : (
      <rect x={cx - 8} y={cy - 8} width={16} height={16} />
    );
  return (
    <g class="marker" data-change={change} aria-hidden="true">
      {shape}
      <text x={cx} y={cy + 4} text-anchor="middle">
        {MARK[change]}
      </text>
    </g>
  );
}

/** The disc with the first hop number of the shown trace at a box. */
function HopMark({ r, hops }: { r: Rect; hops: readonly number[] | undefined }) {
  if (!hops) return null;
  return (
    <g class="hopmark" aria-hidden="true">
      <circle cx={r.x + 2} cy={r.y + 2} r={9} />
      <text x={r.x + 2} y={r.y + 6} text-anchor="middle">
        {hops[0]}
      </text>
    </g>
  );
}

function Box(props: { box: UiBox; r: Rect; p: PictureProps }) {
  const { box, r, p } = props;
  const lines = boxLines(box);
  const hops = p.hops.get(box.key);
  const label = `${box.ref.kind} ${lines.join(', ')}${box.change ? ` (${box.change})` : ''}${
    hops ? ` (packet hop ${hops.join(', ')})` : ''
  }`;
  return (
    <g
      data-key={box.key}
      data-ref={refKey(box.ref)}
      data-kind={box.ref.kind}
      {...(box.change ? { 'data-change': box.change } : {})}
      {...(p.matches.has(box.key) ? { 'data-match': '1' } : {})}
      {...(hops ? { 'data-hop': hops.join(' ') } : {})}
      {...(p.packetAt === box.key ? { 'data-packet': '1' } : {})}
      {...(p.stoppedAt === box.key ? { 'data-stopped': '1' } : {})}
      {...(p.selected === box.key ? { 'aria-pressed': 'true' } : {})}
      class="box"
      tabindex={0}
      role="button"
      aria-label={label}
      onClick={() => p.onOpen(box.key)}
      onKeyDown={onActivate(() => p.onOpen(box.key))}
    >
      <rect x={r.x} y={r.y} width={r.w} height={r.h} rx={3} />
      {lines.map((l, i) => (
        <text
          key={i}
          x={r.x + 8}
          y={r.y + 6 + LINE_HEIGHT * (i + 1) - 4}
          class={i >= box.lines.length ? 'layer' : i === 0 ? 'title' : undefined}
        >
          {l}
        </text>
      ))}
    </g>
  );
}

function Collapsed({ g, r, p }: { g: UiGroup; r: Rect; p: PictureProps }) {
  const lines = collapsedLines(g);
  return (
    <g
      data-key={g.key}
      {...(g.ref ? { 'data-ref': refKey(g.ref) } : {})}
      data-kind={g.kind}
      data-collapsed="1"
      {...(g.change ? { 'data-change': g.change } : {})}
      {...(p.matches.has(g.key) ? { 'data-match': '1' } : {})}
      {...(p.hops.has(g.key) ? { 'data-hop': p.hops.get(g.key)!.join(' ') } : {})}
      {...(p.packetAt === g.key ? { 'data-packet': '1' } : {})}
      {...(p.stoppedAt === g.key ? { 'data-stopped': '1' } : {})}
      class="box collapsed"
      tabindex={0}
      role="button"
      aria-label={`${g.kind} ${lines.join(', ')}`}
      onClick={() => p.onOpen(g.key)}
      onKeyDown={onActivate(() => p.onOpen(g.key))}
    >
      <rect x={r.x} y={r.y} width={r.w} height={r.h} rx={3} />
      <rect class="stack" x={r.x + 4} y={r.y + r.h} width={r.w - 8} height={3} />
      {lines.map((l, i) => (
        <text
          key={i}
          x={r.x + 8}
          y={r.y + 6 + LINE_HEIGHT * (i + 1) - 4}
          class={i === 0 ? 'title' : undefined}
        >
          {l}
        </text>
      ))}
    </g>
  );
}

function Group({ g, p }: { g: UiGroup; p: PictureProps }): JSX.Element | null {
  const r = p.layout.rects.get(g.key);
  if (!r) return null;
  if (p.collapsed.has(g.key)) return <Collapsed g={g} r={r} p={p} />;
  return (
    <g
      data-group={g.key}
      data-kind={g.kind}
      {...(g.ref ? { 'data-ref': refKey(g.ref) } : {})}
      {...(g.change ? { 'data-change': g.change } : {})}
      class="group"
    >
      <rect x={r.x} y={r.y} width={r.w} height={r.h} rx={6} />
      <text x={r.x + 8} y={r.y + 16} class="title">
        {g.label}
      </text>
      {g.groups.map((c) => (
        <Group key={c.key} g={c} p={p} />
      ))}
      {g.boxes.map((b) => {
        const br = p.layout.rects.get(b.key);
        return br ? <Box key={b.key} box={b} r={br} p={p} /> : null;
      })}
    </g>
  );
}

/**
 * The change markers and hop discs, drawn over the picture (outside the boxes, whose `text` are their
 * label lines only).
 */
function Marks({ p }: { p: PictureProps }) {
  const out: JSX.Element[] = [];
  const mark = (key: string, change: string | undefined) => {
    const r = p.layout.rects.get(key);
    if (!r) return;
    if (change) out.push(<Marker key={`c${key}`} r={r} change={change} />);
    const hops = p.hops.get(key);
    if (hops) out.push(<HopMark key={`h${key}`} r={r} hops={hops} />);
  };
  const walk = (g: UiGroup) => {
    mark(g.key, g.change);
    if (p.collapsed.has(g.key)) return;
    g.groups.forEach(walk);
    for (const b of g.boxes) mark(b.key, b.change);
  };
  p.graph.groups.forEach(walk);
  const at = p.packetAt !== undefined ? p.layout.rects.get(p.packetAt) : undefined;
  if (at && p.packetNote) {
    const w = p.packetNote.length * CHAR_WIDTH + 12;
    out.push(
      <g key="note" class="packet-note">
        <rect x={at.x} y={at.y + at.h + 4} width={w} height={LINE_HEIGHT + 6} rx={3} />
        <text x={at.x + 6} y={at.y + at.h + 4 + LINE_HEIGHT}>
          {p.packetNote}
        </text>
      </g>,
    );
  }
  return <g class="marks">{out}</g>;
}

/** The SVG picture with its zoom and pan. */
export function Picture(p: PictureProps) {
  const svg = useRef<SVGSVGElement>(null);
  const [drag, setDrag] = useState<{ x: number; y: number; vx: number; vy: number } | null>(null);
  const { scale, x, y } = p.view;
  useEffect(() => {
    const el = svg.current;
    if (!el) return;
    // a non-passive wheel listener: the page does not scroll while the picture zooms
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      const box = el.getBoundingClientRect();
      const factor = e.deltaY < 0 ? 1.15 : 1 / 1.15;
      p.onView(zoomAt(p.view, factor, e.clientX - box.left, e.clientY - box.top));
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, [p.view, p.onView]);
  return (
    <svg
      id="picture"
      ref={svg}
      role="group"
      aria-label={`Picture: ${p.graph.title}`}
      class={drag ? 'dragging' : undefined}
      onPointerDown={(e) => {
        if (e.button !== 0 || (e.target as Element).closest('[data-key]')) return;
        setDrag({ x: e.clientX, y: e.clientY, vx: x, vy: y });
        (e.currentTarget as Element).setPointerCapture(e.pointerId);
      }}
      onPointerMove={(e) => {
        if (drag) p.onView({ scale, x: drag.vx + e.clientX - drag.x, y: drag.vy + e.clientY - drag.y });
      }}
      onPointerUp={() => setDrag(null)}
      onPointerCancel={() => setDrag(null)}
    >
      <title>{p.graph.title}</title>
      <g transform={`translate(${x.toFixed(1)} ${y.toFixed(1)}) scale(${scale.toFixed(4)})`}>
        {p.graph.groups.map((g) => (
          <Group key={g.key} g={g} p={p} />
        ))}
        <g class="links">
          {p.layout.edges.map((e, i) => (
            <g key={i} class={e.dashed ? 'link dashed' : 'link'} data-from={e.from} data-to={e.to}>
              <path d={e.d} />
              {e.label && e.labelAt ? (
                <text x={e.labelAt.x} y={e.labelAt.y}>
                  {e.label}
                </text>
              ) : null}
            </g>
          ))}
        </g>
        <Marks p={p} />
      </g>
    </svg>
  );
}

/** The view zoomed by `factor` about the point (px, py) of the picture's element. */
export function zoomAt(v: View, factor: number, px: number, py: number): View {
  const scale = Math.min(4, Math.max(0.05, v.scale * factor));
  const k = scale / v.scale;
  return { scale, x: px - (px - v.x) * k, y: py - (py - v.y) * k };
}

/** The view that fits a `w`×`h` layout into a `cw`×`ch` element (never above 1:1). */
export function fit(w: number, h: number, cw: number, ch: number): View {
  const scale = Math.max(0.05, Math.min(1, (cw - 16) / Math.max(w, 1), (ch - 16) / Math.max(h, 1)));
  return { scale, x: (cw - w * scale) / 2, y: 8 };
}
