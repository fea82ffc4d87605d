/**
 * The page's panels beside the picture: the timeline (buttons, the step slider, the narration and
 * the list of every step), an object's details (v2 and v1 JSON, VFP rules, ipconfig, route print),
 * the packet form with its trace (hops, the rule of each, explain, reply and branches) and the
 * scenario's truth tables. Each shows what the lesson gives, as it gives it.
 */
import { useLayoutEffect, useMemo, useRef } from 'preact/hooks';
import type { UiDetails, UiPlace, UiStep, UiTrace, UiTraceRequest, UiTruthTable } from '../model/contract.js';
import { onActivate } from './picture.js';

// ───────────────────────────── timeline ─────────────────────────────

export function Timeline(props: {
  steps: readonly UiStep[];
  step: number;
  playing: boolean;
  go: (i: number) => void;
  togglePlay: () => void;
}) {
  const { steps, step, playing, go } = props;
  const cur = steps[step];
  const list = useRef<HTMLOListElement>(null);
  // the list as one HTML string (thousands of steps in a 50-node lesson: building them as
  // components took most of a second); clicks are delegated, aria-current is moved below
  const items = useMemo(
    () =>
      steps
        .map((s, i) => {
          const chapter =
            i === 0 || steps[i - 1]!.chapter !== s.chapter
              ? `<span class="chapter">${esc(s.chapter)}</span>`
              : '';
          const node = s.node ? `<span class="node">${esc(s.node)}</span> ` : '';
          const changes = changesText(s);
          return (
            `<li data-step="${i}" data-kind="${esc(s.kind)}" style="padding-left:${s.depth * 1.2}em">` +
            `${chapter}<span class="n">${i + 1}</span> ${node}${esc(s.text)}` +
            `${changes ? `<span class="changes"> (${esc(changes)})</span>` : ''}</li>`
          );
        })
        .join(''),
    [steps],
  );
  // aria-current moves without diffing the whole list (thousands of steps in a 50-node lesson)
  useLayoutEffect(() => {
    const ol = list.current;
    if (!ol) return;
    ol.querySelector('li[aria-current]')?.removeAttribute('aria-current');
    const li = ol.querySelector<HTMLElement>(`li[data-step="${step}"]`);
    if (!li) return;
    li.setAttribute('aria-current', 'step');
    // the list is positioned (app.css): an item's offsetTop is within it
    const top = li.offsetTop;
    if (top < ol.scrollTop || top + li.offsetHeight > ol.scrollTop + ol.clientHeight)
      ol.scrollTop = top - ol.clientHeight / 3;
  }, [step, items]);
  return (
    <section id="timeline" aria-label="Timeline">
      <div class="controls">
        <button
          id="prev"
          type="button"
          disabled={step <= 0}
          onClick={() => go(step - 1)}
          aria-label="Previous step"
        >
          ◀ Prev
        </button>
        <button id="play" type="button" aria-pressed={playing} onClick={props.togglePlay}>
          {playing ? '❚❚ Pause' : '▶ Play'}
        </button>
        <button
          id="next"
          type="button"
          disabled={step >= steps.length - 1}
          onClick={() => go(step + 1)}
          aria-label="Next step"
        >
          Next ▶
        </button>
        <label class="slider">
          <span>
            Step {step + 1} of {steps.length}
          </span>
          <input
            id="step"
            type="range"
            min={0}
            max={Math.max(0, steps.length - 1)}
            value={step}
            aria-valuetext={cur ? `step ${step + 1}: ${cur.text}` : undefined}
            onInput={(e) => go(Number((e.currentTarget as HTMLInputElement).value))}
          />
        </label>
      </div>
      <div id="narration" data-step={step} aria-live="polite">
        {cur ? (
          <>
            <div class="chapter">{cur.chapter}</div>
            <p>
              {cur.node ? <span class="node">{cur.node}</span> : null} {cur.text}
            </p>
            <Changes s={cur} />
          </>
        ) : (
          <p>This lesson has no events.</p>
        )}
      </div>
      <ol
        id="steps"
        ref={list}
        aria-label="All steps"
        onClick={(e) => {
          const li = (e.target as Element).closest('li[data-step]');
          if (li) go(Number(li.getAttribute('data-step')));
        }}
        dangerouslySetInnerHTML={{ __html: items }}
      />
    </section>
  );
}

/** What a step added, changed and removed, counted ('+2 added, ~1 changed'), or ''. */
function changesText(s: UiStep): string {
  const parts: string[] = [];
  if (s.added.length) parts.push(`+${s.added.length} added`);
  if (s.changed.length) parts.push(`~${s.changed.length} changed`);
  if (s.removed.length) parts.push(`×${s.removed.length} removed`);
  return parts.join(', ');
}

function Changes({ s }: { s: UiStep }) {
  const text = changesText(s);
  return text ? <span class="changes"> ({text})</span> : null;
}

const esc = (t: string): string =>
  t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

// ───────────────────────────── details ─────────────────────────────

const VIEWS = [
  ['v2', 'HNS v2 (HcnQuery*Properties)'],
  ['v1', 'HNS v1 (HNSCall)'],
  ['rules', 'VFP rules (hnsim show rules)'],
  ['ipconfig', 'ipconfig /all'],
  ['route', 'route print'],
] as const;

export function Details(props: { details?: UiDetails; error?: string; onClose: () => void }) {
  const d = props.details;
  const text = (v: (typeof VIEWS)[number][0]): string | undefined => {
    if (!d) return undefined;
    switch (v) {
      case 'v2':
        return d.v2 ? JSON.stringify(d.v2, null, 2) : undefined;
      case 'v1':
        return d.v1 ? JSON.stringify(d.v1, null, 2) : undefined;
      case 'rules':
        return d.rules;
      case 'ipconfig':
        return d.ipconfig;
      case 'route':
        return d.routePrint;
    }
  };
  return (
    <section id="details" aria-label="Details" aria-live="polite">
      <h2 tabindex={-1}>{d ? d.title : 'Details'}</h2>
      {props.error ? <p class="error">{props.error}</p> : null}
      {!d && !props.error ? (
        <p class="hint">Click a box (or focus it and press Enter) to see its objects.</p>
      ) : null}
      {d ? (
        <>
          <button type="button" class="close" onClick={props.onClose}>
            Close
          </button>
          {d.facts?.length ? (
            <dl class="facts">
              {d.facts.map(([k, v], i) => (
                <div key={i}>
                  <dt>{k}</dt>
                  <dd>{v}</dd>
                </div>
              ))}
            </dl>
          ) : null}
          {VIEWS.map(([v, title]) => {
            const t = text(v);
            return t === undefined ? null : (
              <details
                key={v}
                open={v === 'v2' || v === 'rules' || (v === 'v1' && !d.v2) || (!d.v2 && !d.rules)}
              >
                <summary>{title}</summary>
                <pre data-view={v} tabindex={0}>
                  {t}
                </pre>
              </details>
            );
          })}
        </>
      ) : null}
    </section>
  );
}

// ───────────────────────────── packet ─────────────────────────────

export function PacketForm(props: {
  places: readonly UiPlace[];
  request?: UiTraceRequest;
  onTrace: (r: UiTraceRequest) => void;
}) {
  const form = useRef<HTMLFormElement>(null);
  const r = props.request;
  // a cell of a truth table fills the form with its request
  useLayoutEffect(() => {
    const f = form.current;
    if (!f || !r) return;
    (f.elements.namedItem('from') as HTMLInputElement).value = r.from;
    (f.elements.namedItem('to') as HTMLInputElement).value = r.to;
    (f.elements.namedItem('protocol') as HTMLSelectElement).value =
      typeof r.protocol === 'number' ? String(r.protocol) : r.protocol;
    (f.elements.namedItem('port') as HTMLInputElement).value = r.port !== undefined ? String(r.port) : '';
  }, [r]);
  const options = props.places.map((p) => (
    <option key={p.name} value={p.name}>
      {p.kind}
      {p.ip ? ` ${p.ip}` : ''}
    </option>
  ));
  return (
    <form
      id="packet"
      ref={form}
      aria-label="Trace a packet"
      onSubmit={(e) => {
        e.preventDefault();
        const f = e.currentTarget as HTMLFormElement;
        const get = (n: string) => (f.elements.namedItem(n) as HTMLInputElement).value.trim();
        const proto = get('protocol');
        const port = get('port');
        props.onTrace({
          from: get('from'),
          to: get('to'),
          protocol: proto === 'TCP' || proto === 'UDP' || proto === 'ICMP' ? proto : Number(proto),
          ...(port !== '' && proto !== 'ICMP' ? { port: Number(port) } : {}),
        });
      }}
    >
      <datalist id="places">{options}</datalist>
      <label>
        From <input name="from" list="places" required autocomplete="off" placeholder="pod, node, IP" />
      </label>
      <label>
        To{' '}
        <input name="to" list="places" required autocomplete="off" placeholder="pod, service, IP, outside" />
      </label>
      <label>
        Protocol
        <select name="protocol">
          <option value="TCP">TCP</option>
          <option value="UDP">UDP</option>
          <option value="ICMP">ICMP</option>
        </select>
      </label>
      <label>
        Port <input name="port" type="number" min={1} max={65535} inputMode="numeric" placeholder="80" />
      </label>
      <button type="submit">Trace</button>
    </form>
  );
}

export function TraceView(props: {
  trace: UiTrace;
  /** What is shown: the request's trace, its reply, or a branch. */
  label: string;
  at: number;
  hop: number;
  canBack: boolean;
  onBack: () => void;
  onShow: (t: UiTrace, label: string) => void;
  onHop: (i: number) => void;
  showBranches: boolean;
  toggleBranches: () => void;
}) {
  const t = props.trace;
  const q = t.request;
  const last = t.hops[t.hops.length - 1];
  return (
    <section id="trace" data-disposition={t.disposition} aria-label="Packet trace" aria-live="polite">
      <h3>
        {props.label}: {typeof q.protocol === 'number' ? `protocol ${q.protocol}` : q.protocol} {q.from} →{' '}
        {q.to}
        {q.port !== undefined ? `:${q.port}` : ''} — <strong class="disposition">{t.disposition}</strong>
        <span class="at"> (traced at step {props.at + 1})</span>
      </h3>
      <div class="trace-buttons">
        {props.canBack ? (
          <button type="button" id="trace-back" onClick={props.onBack}>
            ◀ Back
          </button>
        ) : null}
        <button
          type="button"
          id="reply"
          disabled={!t.reply}
          onClick={() => t.reply && props.onShow(t.reply, 'Reply')}
        >
          ↩ Reply{t.reply ? `: ${t.reply.disposition}` : ' (none)'}
        </button>
        <button
          type="button"
          id="branches"
          disabled={!t.branches?.length}
          aria-expanded={props.showBranches}
          onClick={props.toggleBranches}
        >
          Load-balancer branches{t.branches?.length ? ` (${t.branches.length})` : ' (none)'}
        </button>
      </div>
      {props.showBranches && t.branches?.length ? (
        <ul id="branch-list">
          {t.branches.map((b, i) => (
            <li key={i}>
              <button type="button" data-branch={i} onClick={() => props.onShow(b, `Branch ${i + 1}`)}>
                Branch {i + 1}: {b.disposition}
                {b.hops.length
                  ? ` at ${b.hops[b.hops.length - 1]!.node} · ${b.hops[b.hops.length - 1]!.stage}`
                  : ''}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <ol>
        {t.hops.map((h, i) => (
          <li
            key={i}
            data-hop={i + 1}
            {...(i === props.hop ? { 'aria-current': 'true' } : {})}
            {...(i === t.hops.length - 1 && t.disposition !== 'Delivered' ? { 'data-final': '1' } : {})}
            onClick={() => props.onHop(i)}
          >
            <span class="where">
              {h.node} · {h.stage}
            </span>{' '}
            <span class="action">{h.action}</span>
            {h.rule ? (
              <>
                {' '}
                <code data-rule>{h.rule}</code>
              </>
            ) : null}
            <div class="packet">{h.packet}</div>
          </li>
        ))}
      </ol>
      {t.explain ? (
        <div id="explain" role="note">
          <h4>
            Stopped at {last ? `${last.node} · ${last.stage}` : 'the first hop'}: why, and what would change
            it
          </h4>
          <pre>{t.explain}</pre>
        </div>
      ) : null}
      <details class="trace-text">
        <summary>As hnsim trace prints it</summary>
        <pre>{t.text}</pre>
      </details>
    </section>
  );
}

// ───────────────────────────── truth tables ─────────────────────────────

export function TruthTables(props: { tables: readonly UiTruthTable[]; onCell: (r: UiTraceRequest) => void }) {
  if (!props.tables.length) return null;
  return (
    <section id="truth" aria-label="Truth tables">
      <h2>Truth tables</h2>
      {props.tables.map((t, ti) => (
        <table class="truth" key={ti} data-table={ti}>
          <caption>{t.title}</caption>
          <thead>
            <tr>
              <th scope="col">from \ to</th>
              {t.columns.map((c) => (
                <th scope="col" key={c}>
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {t.rows.map((row, r) => (
              <tr key={row}>
                <th scope="row">{row}</th>
                {t.columns.map((col, c) => {
                  const cell = t.cells[r]?.[c];
                  if (!cell) return <td key={c} />;
                  const ok = cell.disposition === 'Delivered';
                  return (
                    <td
                      key={c}
                      data-cell={`${r},${c}`}
                      data-disposition={cell.disposition}
                      class={ok ? 'ok' : 'no'}
                      tabindex={0}
                      role="button"
                      aria-label={`${row} to ${col}: ${cell.disposition}; trace it`}
                      onClick={() => props.onCell(cell.request)}
                      onKeyDown={onActivate(() => props.onCell(cell.request))}
                    >
                      <span aria-hidden="true">{ok ? '✓' : '✗'}</span> {cell.disposition}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      ))}
    </section>
  );
}
