/**
 * The page (issue 18): a recorded lesson shown as a picture, a timeline, an object's details, a
 * packet's path and the scenario's truth tables. State lives here; the panels and the picture only
 * draw it. A timeline step asks the lesson for the picture at that step and lays it out again only
 * when its shape changed (src/ui/page/layout.ts); the DOM contract the browser tests rely on is in
 * docs/ui.md.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import {
  refKey,
  type Lesson,
  type UiDetails,
  type UiGraph,
  type UiGroup,
  type UiRef,
  type UiTrace,
  type UiTraceRequest,
} from '../model/contract.js';
import { collapsedAliases, layout, type Layout, type Rect } from './layout.js';
import { Details, PacketForm, Timeline, TraceView, TruthTables } from './panels.js';
import { Picture, fit, zoomAt, type View } from './picture.js';

/** Above this many Windows nodes the picture starts with every node collapsed to one box. */
export const COLLAPSE_ABOVE = 4;
const PLAY_MS = 900;
const HOP_MS = 320;

export interface PageApi {
  readonly lesson: Lesson;
  go(step: number): Promise<void>;
  trace(req: UiTraceRequest): Promise<UiTrace>;
}

interface Shown {
  readonly step: number;
  readonly graph: UiGraph;
  readonly layout: Layout;
  readonly collapsed: ReadonlySet<string>;
}

/** The node groups of a picture (what collapses), with the node's name. */
function nodeGroups(graph: UiGraph): { key: string; name: string; group: UiGroup }[] {
  const out: { key: string; name: string; group: UiGroup }[] = [];
  const walk = (g: UiGroup) => {
    if (g.kind === 'node') out.push({ key: g.key, name: g.ref?.node ?? g.ref?.id ?? g.label, group: g });
    else g.groups.forEach(walk);
  };
  graph.groups.forEach(walk);
  return out;
}

/** Every box and group with a ref, by key, and the key of each ref. */
function index(graph: UiGraph) {
  const refOf = new Map<string, UiRef>();
  const keyOf = new Map<string, string>();
  const text = new Map<string, string>();
  const walk = (g: UiGroup) => {
    if (g.ref) {
      refOf.set(g.key, g.ref);
      keyOf.set(refKey(g.ref), g.key);
    }
    text.set(g.key, `${g.label}`.toLowerCase());
    for (const b of g.boxes) {
      refOf.set(b.key, b.ref);
      keyOf.set(refKey(b.ref), b.key);
      text.set(b.key, [...b.lines, b.ref.id].join('\n').toLowerCase());
    }
    g.groups.forEach(walk);
  };
  graph.groups.forEach(walk);
  return { refOf, keyOf, text };
}

/** The view at the same scale with `r` in the middle of the element `box`. */
const centred = (v: View, r: Rect, box: HTMLElement): View => ({
  scale: v.scale,
  x: box.clientWidth / 2 - (r.x + r.w / 2) * v.scale,
  y: box.clientHeight / 2 - (r.y + r.h / 2) * v.scale,
});

const isField = (t: EventTarget | null): boolean =>
  t instanceof HTMLElement && (t.isContentEditable || /^(INPUT|SELECT|TEXTAREA)$/.test(t.tagName));

export function App(props: { lesson: Lesson; onApi: (api: PageApi) => void }) {
  const { lesson } = props;
  const [shown, setShown] = useState<Shown | null>(null);
  const [view, setViewState] = useState<View>({ scale: 1, x: 0, y: 0 });
  /** Whether the user moved the view (then a new layout keeps it; Fit forgets it). */
  const userView = useRef(false);
  const setView = useCallback((v: View | ((old: View) => View)) => {
    userView.current = true;
    setViewState(v);
  }, []);
  const [playing, setPlaying] = useState(false);
  const [selected, setSelected] = useState<{ key: string; ref: UiRef } | null>(null);
  const [details, setDetails] = useState<{ d?: UiDetails; error?: string }>({});
  const [request, setRequest] = useState<UiTraceRequest | undefined>(undefined);
  const [traces, setTraces] = useState<{ t: UiTrace; label: string; at: number }[]>([]);
  const [hop, setHop] = useState(-1);
  const [showBranches, setShowBranches] = useState(false);
  const [traceError, setTraceError] = useState<string | undefined>(undefined);
  const [search, setSearch] = useState('');
  const [theme, setTheme] = useState<'light' | 'dark' | undefined>(undefined);
  const pictureBox = useRef<HTMLDivElement>(null);
  const shownRef = useRef<Shown | null>(null);
  shownRef.current = shown;
  /**
   * Where the background lays out ahead: from the step after the one shown, with its collapse, one
   * step at a time, to the end and then from the start, so a later step only restyles.
   */
  const ahead = useRef<{ from: number; choices: number } | null>(null);
  /**
   * The nodes the user collapsed (true) or expanded (false), by key. A node without a choice is
   * collapsed when the picture holds more than COLLAPSE_ABOVE nodes, so a node that joins the
   * 50th is drawn as one box like the others, not opened among them; `choices` counts changes.
   */
  const userChoice = useRef(new Map<string, boolean>());
  const choices = useRef(0);
  /** A picture's collapsed nodes, and whether its top level is packed (more than COLLAPSE_ABOVE nodes). */
  const collapseFor = useCallback(
    (graph: UiGraph, collapsed?: ReadonlySet<string>): { collapsed: ReadonlySet<string>; pack: boolean } => {
      const nodes = nodeGroups(graph);
      const pack = nodes.length > COLLAPSE_ABOVE;
      if (collapsed) {
        // what the user chose (a node button, a search opening a node) holds at every step
        for (const x of nodes) userChoice.current.set(x.key, collapsed.has(x.key));
        choices.current++;
        return { collapsed, pack };
      }
      const col = nodes.filter((n) => userChoice.current.get(n.key) ?? pack).map((n) => n.key);
      return { collapsed: new Set(col), pack };
    },
    [],
  );
  useEffect(() => {
    let stop = false;
    let done = new Set<number>();
    let last: number | undefined;
    const next = (): void => {
      if (stop) return;
      const a = ahead.current;
      const n = lesson.steps.length;
      if (!a || done.size >= n) return void setTimeout(next, 200);
      if (a.choices !== last) {
        done = new Set();
        last = a.choices;
      }
      let j = a.from;
      while (done.has(j % n) && j < a.from + n) j++;
      j %= n;
      done.add(j);
      // (each step with the collapse and packing show() gives it)
      const g = lesson.pictureAt(j);
      const { collapsed, pack } = collapseFor(g);
      void layout(g, collapsed, undefined, pack).then(
        () => setTimeout(next, 0),
        () => setTimeout(next, 0),
      );
    };
    const t = setTimeout(next, 0);
    return () => {
      stop = true;
      clearTimeout(t);
    };
  }, [lesson, collapseFor]);
  /** The latest show request: an older layout finishing later is dropped. */
  const ticket = useRef(0);
  const afterRender = useRef<(() => void)[]>([]);

  const show = useCallback(
    async (step: number, collapsed?: ReadonlySet<string>): Promise<void> => {
      const n = lesson.steps.length;
      const i = Math.max(n ? 0 : -1, Math.min(n - 1, step));
      const mine = ++ticket.current;
      const prev = shownRef.current;
      const graph = lesson.pictureAt(i);
      const { collapsed: col, pack } = collapseFor(graph, collapsed);
      const lay = await layout(graph, col, prev?.layout, pack);
      if (mine !== ticket.current) return;
      ahead.current = { from: i + 1, choices: choices.current };
      await new Promise<void>((resolve) => {
        afterRender.current.push(() => {
          performance.mark('hnsim:step');
          // a new layout is fitted into view, unless the user has zoomed or panned
          if (lay !== prev?.layout && !userView.current) {
            const el = pictureBox.current;
            if (el) setViewState(fit(lay.width, lay.height, el.clientWidth, el.clientHeight));
          }
          if (document.body.dataset.ready !== '1') {
            document.body.dataset.ready = '1';
            performance.mark('hnsim:ready');
          }
          resolve();
        });
        setShown({ step: i, graph, layout: lay, collapsed: col });
      });
    },
    [lesson, collapseFor],
  );

  // after each render: whoever waits for it (go(), a trace) runs once the DOM shows it
  useEffect(() => {
    for (const w of afterRender.current.splice(0)) w();
  });

  useEffect(() => {
    void show(0);
  }, [show]);

  const step = shown?.step ?? 0;
  const go = useCallback((i: number) => show(i), [show]);

  // playing: one step after another to the end
  useEffect(() => {
    if (!playing) return;
    if (step >= lesson.steps.length - 1) {
      setPlaying(false);
      return;
    }
    const t = setTimeout(() => void go(step + 1), PLAY_MS);
    return () => clearTimeout(t);
  }, [playing, step, go, lesson]);

  const idx = useMemo(() => (shown ? index(shown.graph) : undefined), [shown?.graph]);
  const alias = useMemo(
    () => (shown ? collapsedAliases(shown.graph, shown.collapsed) : new Map<string, string>()),
    [shown?.graph, shown?.collapsed],
  );
  const boxOfRef = useCallback(
    (r: UiRef | undefined): string | undefined => {
      if (!r || !idx) return undefined;
      const k = idx.keyOf.get(refKey(r));
      return k === undefined ? undefined : (alias.get(k) ?? k);
    },
    [idx, alias],
  );

  // details: asked again at each step while an object is open
  useEffect(() => {
    if (!selected) return;
    let live = true;
    lesson.details(step, selected.ref).then(
      (d) => live && setDetails({ d }),
      (e: unknown) => live && setDetails({ error: e instanceof Error ? e.message : String(e) }),
    );
    return () => {
      live = false;
    };
  }, [selected, step, lesson]);

  const open = useCallback(
    (key: string) => {
      const ref = idx?.refOf.get(key);
      if (ref) setSelected({ key, ref });
      else setDetails({ error: `${key} has no object to show` });
    },
    [idx],
  );

  const current = traces[traces.length - 1];
  const runTrace = useCallback(
    async (req: UiTraceRequest): Promise<UiTrace> => {
      setRequest(req);
      setTraceError(undefined);
      const at = shownRef.current?.step ?? 0;
      try {
        const t = await lesson.trace(at, req);
        await new Promise<void>((resolve) => {
          afterRender.current.push(() => {
            performance.mark('hnsim:trace');
            resolve();
          });
          setShowBranches(false);
          setTraces([{ t, label: 'Packet', at }]);
          setHop(0);
        });
        return t;
      } catch (e) {
        setTraces([]);
        setTraceError(e instanceof Error ? e.message : String(e));
        throw e;
      }
    },
    [lesson],
  );

  // the packet moves hop by hop (at once with reduced motion)
  useEffect(() => {
    if (!current) return;
    const n = current.t.hops.length;
    if (hop < 0 || hop >= n - 1) return;
    const reduced = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches;
    if (reduced) {
      setHop(n - 1);
      return;
    }
    const t = setTimeout(() => setHop(hop + 1), HOP_MS);
    return () => clearTimeout(t);
  }, [hop, current]);

  const hops = useMemo(() => {
    const m = new Map<string, number[]>();
    current?.t.hops.forEach((h, i) => {
      if (i > hop) return;
      const k = boxOfRef(h.at);
      if (k !== undefined) m.set(k, [...(m.get(k) ?? []), i + 1]);
    });
    return m;
  }, [current, hop, boxOfRef]);
  const lastHop = current?.t.hops[current.t.hops.length - 1];
  const packetAt = current ? boxOfRef(current.t.hops[Math.max(0, hop)]?.at) : undefined;
  const atHop = current?.t.hops[Math.max(0, hop)];
  const packetNote = atHop
    ? `${Math.max(0, hop) + 1}. ${atHop.stage}: ${atHop.action}${atHop.rule ? ` (${atHop.rule})` : ''}`
    : undefined;
  const stoppedAt =
    current && current.t.disposition !== 'Delivered' && hop >= current.t.hops.length - 1
      ? boxOfRef(lastHop?.at)
      : undefined;

  // the packet's box is kept in view while it moves (the scale is left as the user set it)
  useEffect(() => {
    const r = packetAt !== undefined ? shownRef.current?.layout.rects.get(packetAt) : undefined;
    const box = pictureBox.current;
    if (!r || !box) return;
    setViewState((v) => {
      const x = r.x * v.scale + v.x;
      const y = r.y * v.scale + v.y;
      const inside =
        x >= 0 && y >= 0 && x + r.w * v.scale <= box.clientWidth && y + r.h * v.scale <= box.clientHeight;
      return inside ? v : centred(v, r, box);
    });
  }, [packetAt]);

  const matches = useMemo(() => {
    const q = search.trim().toLowerCase();
    const m = new Set<string>();
    if (!q || !idx) return m;
    for (const [k, t] of idx.text) if (t.includes(q)) m.add(alias.get(k) ?? k);
    return m;
  }, [search, idx, alias]);

  const setCollapsed = useCallback(
    (next: ReadonlySet<string>) => {
      if (shownRef.current) void show(shownRef.current.step, next);
    },
    [show],
  );

  /** Search's Enter: open what hides the first match, then bring it into view and focus it. */
  const findFirst = useCallback(() => {
    const s = shownRef.current;
    if (!s || !idx) return;
    const q = search.trim().toLowerCase();
    const hit = [...idx.text].find(([k, t]) => t.includes(q) && !s.collapsed.has(k))?.[0];
    if (hit === undefined) return;
    const holder = alias.get(hit);
    const reveal = (): void => {
      const el = document.querySelector<SVGGElement>(`#picture [data-key="${CSS.escape(hit)}"]`);
      const r = shownRef.current?.layout.rects.get(hit);
      const box = pictureBox.current;
      if (r && box) {
        setView((v) => centred(v, r, box));
      }
      el?.focus();
    };
    if (holder !== undefined) {
      const next = new Set(s.collapsed);
      next.delete(holder);
      void show(s.step, next).then(reveal);
    } else reveal();
  }, [search, idx, alias, show]);

  // the keyboard: arrows step, Space plays, + and - zoom, Shift+arrows pan
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || isField(e.target)) return;
      const s = shownRef.current;
      const box = pictureBox.current;
      if (e.shiftKey && e.key.startsWith('Arrow')) {
        const d = 60;
        const dx = e.key === 'ArrowLeft' ? d : e.key === 'ArrowRight' ? -d : 0;
        const dy = e.key === 'ArrowUp' ? d : e.key === 'ArrowDown' ? -d : 0;
        setView((v) => ({ ...v, x: v.x + dx, y: v.y + dy }));
        e.preventDefault();
      } else if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
        if (s) void go(s.step + (e.key === 'ArrowLeft' ? -1 : 1));
        e.preventDefault();
      } else if (e.key === ' ' || e.key === 'Spacebar') {
        const t = e.target as Element | null;
        if (t && t.closest('button, [role=button], a, summary, details, pre')) return;
        setPlaying((p) => !p);
        e.preventDefault();
      } else if ((e.key === '+' || e.key === '=' || e.key === '-') && box) {
        setView((v) => zoomAt(v, e.key === '-' ? 1 / 1.25 : 1.25, box.clientWidth / 2, box.clientHeight / 2));
        e.preventDefault();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [go]);

  useEffect(() => {
    props.onApi({ lesson, go, trace: runTrace });
  }, [lesson, go, runTrace]);

  useEffect(() => {
    if (theme) document.documentElement.dataset.theme = theme;
    else delete document.documentElement.dataset.theme;
  }, [theme]);
  const dark =
    theme === 'dark' || (theme === undefined && window.matchMedia?.('(prefers-color-scheme: dark)').matches);

  const places = useMemo(() => lesson.places(step), [lesson, step]);
  const nodes = shown ? nodeGroups(shown.graph) : [];
  const zoomBy = (f: number) => {
    const box = pictureBox.current;
    if (box) setView((v) => zoomAt(v, f, box.clientWidth / 2, box.clientHeight / 2));
  };

  return (
    <>
      <header>
        <h1>{lesson.title}</h1>
        {lesson.description ? <p class="description">{lesson.description}</p> : null}
        <button
          id="theme"
          type="button"
          aria-pressed={dark}
          onClick={() => setTheme(dark ? 'light' : 'dark')}
          title="Light or dark theme"
        >
          {dark ? '☀ Light theme' : '☾ Dark theme'}
        </button>
      </header>
      <main>
        <section id="view" aria-label="The picture">
          <div class="toolbar">
            <label>
              Search{' '}
              <input
                id="search"
                type="search"
                placeholder="name or IP"
                value={search}
                onInput={(e) => setSearch((e.currentTarget as HTMLInputElement).value)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter') {
                    e.preventDefault();
                    findFirst();
                  }
                }}
              />
            </label>
            <span class="matches" aria-live="polite">
              {search.trim() ? `${matches.size} match${matches.size === 1 ? '' : 'es'}` : ''}
            </span>
            <button id="zoom-in" type="button" onClick={() => zoomBy(1.25)} aria-label="Zoom in">
              +
            </button>
            <button id="zoom-out" type="button" onClick={() => zoomBy(1 / 1.25)} aria-label="Zoom out">
              −
            </button>
            <button
              id="zoom-fit"
              type="button"
              onClick={() => {
                const el = pictureBox.current;
                userView.current = false;
                if (el && shown)
                  setViewState(fit(shown.layout.width, shown.layout.height, el.clientWidth, el.clientHeight));
              }}
            >
              Fit
            </button>
            {nodes.length ? (
              <ul id="nodes" aria-label="Nodes">
                {nodes.map((n) => {
                  const c = shown!.collapsed.has(n.key);
                  return (
                    <li key={n.key}>
                      <button
                        type="button"
                        data-collapse={n.name}
                        aria-expanded={!c}
                        onClick={() => {
                          const next = new Set(shown!.collapsed);
                          if (c) next.delete(n.key);
                          else next.add(n.key);
                          setCollapsed(next);
                        }}
                      >
                        {c ? '▸' : '▾'} {n.name}
                      </button>
                    </li>
                  );
                })}
              </ul>
            ) : null}
          </div>
          <div class="picture-box" ref={pictureBox}>
            {shown ? (
              <Picture
                graph={shown.graph}
                layout={shown.layout}
                collapsed={shown.collapsed}
                view={view}
                onView={setView}
                onOpen={open}
                {...(selected ? { selected: selected.key } : {})}
                hops={hops}
                {...(packetAt !== undefined ? { packetAt } : {})}
                {...(packetNote !== undefined ? { packetNote } : {})}
                {...(stoppedAt !== undefined ? { stoppedAt } : {})}
                matches={matches}
              />
            ) : (
              <p class="loading">Laying out the picture…</p>
            )}
          </div>
          <p class="legend" aria-label="Legend">
            <span class="lg added">+ added</span> <span class="lg changed">~ changed</span>{' '}
            <span class="lg removed">× removed</span> <span class="lg hop">① packet hop</span>{' '}
            <span class="lg match">search match</span> · keys: ←/→ step, Space play, +/− zoom, Shift+arrows
            pan
          </p>
        </section>
        <Timeline
          steps={lesson.steps}
          step={step}
          playing={playing}
          go={(i) => void go(i)}
          togglePlay={() => setPlaying((p) => !p)}
        />
        <aside>
          <Details
            {...(details.d && selected ? { details: details.d } : {})}
            {...(details.error ? { error: details.error } : {})}
            onClose={() => {
              setSelected(null);
              setDetails({});
            }}
          />
          <section id="packet-panel" aria-label="Packet">
            <h2>A packet</h2>
            <PacketForm
              places={places}
              {...(request ? { request } : {})}
              onTrace={(r) => void runTrace(r).catch(() => {})}
            />
            {traceError ? (
              <p class="error" role="alert" id="trace-error">
                {traceError}
              </p>
            ) : null}
            {current ? (
              <TraceView
                trace={current.t}
                label={current.label}
                at={current.at}
                hop={hop}
                canBack={traces.length > 1}
                onBack={() => {
                  setTraces(traces.slice(0, -1));
                  setHop(traces[traces.length - 2]!.t.hops.length - 1);
                }}
                onShow={(t, label) => {
                  setTraces([...traces, { t, label, at: current.at }]);
                  setShowBranches(false);
                  setHop(0);
                }}
                onHop={setHop}
                showBranches={showBranches}
                toggleBranches={() => setShowBranches((b) => !b)}
              />
            ) : null}
          </section>
          <TruthTables tables={lesson.truthTables} onCell={(r) => void runTrace(r).catch(() => {})} />
        </aside>
      </main>
    </>
  );
}
