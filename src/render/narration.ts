/**
 * Narrated walkthroughs as data, and their text rendering (DESIGN: render/ — narration built from API
 * results and events, never from log strings). A walkthrough is a list of steps; a step holds the
 * flat API calls made (method, arguments, HRESULT, result or ErrorRecord), the HNS notifications and
 * object changes each call caused, and optionally a listing or one object's JSON.
 */
import type { ErrorRecord } from '../core/errors.js';
import { formatHResult } from '../core/errors.js';
import type { HnsChangeEvent, HnsNotificationEvent } from '../core/events.js';
import type { Json, JsonObject } from '../core/json.js';
import { renderListing, type HnsListing, type ListingKind, type RenderOptions } from './listing.js';
import { table } from './table.js';

/** One event seen while a call ran. */
export type NarratedEvent =
  | { readonly type: 'notification'; readonly event: HnsNotificationEvent }
  | { readonly type: 'change'; readonly event: HnsChangeEvent };

export interface NarratedCall {
  readonly method: string;
  readonly params: readonly Json[];
  /** Unsigned HRESULT; 0 on success. */
  readonly hresult: number;
  readonly name: string;
  readonly result?: Json;
  readonly message?: string;
  readonly errorRecord?: ErrorRecord;
  /** One line on what the result means, derived from the result itself. */
  readonly summary?: string;
  readonly events: readonly NarratedEvent[];
}

export interface NarratedStep {
  readonly title: string;
  readonly notes: readonly string[];
  readonly calls: readonly NarratedCall[];
  readonly listing?: { readonly data: HnsListing; readonly kinds: readonly ListingKind[] };
  readonly json?: { readonly label: string; readonly value: Json };
  /** A table (Format-Table style), e.g. the flows of a cluster. */
  readonly table?: { readonly headers: readonly string[]; readonly rows: readonly (readonly string[])[] };
}

export interface Walkthrough {
  readonly title: string;
  readonly header: readonly string[];
  readonly steps: readonly NarratedStep[];
  /** False when a step that should have succeeded failed (the walk stopped there). */
  readonly completed: boolean;
}

const BOLD = '\x1b[1m';
const DIM = '\x1b[2m';
const RESET = '\x1b[0m';

/**
 * JSON laid out for reading: a value stays on one line (compact) when it fits in `width` columns
 * (counting `used`, what the line already holds: indentation and key), else its members go one
 * per line, each laid out the same way.
 */
export function layoutJson(v: Json, indent = '', width = 100, used = indent.length): string {
  const compact = JSON.stringify(v);
  if (used + compact.length <= width || v === null || typeof v !== 'object') return compact;
  const inner = indent + '  ';
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return `[\n${v.map((x) => inner + layoutJson(x, inner, width)).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(v);
  if (entries.length === 0) return '{}';
  const lines = entries.map(([k, x]) => {
    const key = `${inner}${JSON.stringify(k)}: `;
    return key + layoutJson(x, inner, width, key.length);
  });
  return `{\n${lines.join(',\n')}\n${indent}}`;
}

export function formatCall(c: Pick<NarratedCall, 'method' | 'params'>, indent = '  '): string {
  return `${c.method}(${c.params.map((p) => layoutJson(p, indent)).join(', ')})`;
}

export function formatEvent(e: NarratedEvent): string {
  if (e.type === 'notification') {
    const data = Object.entries(e.event.data)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    return `notification ${e.event.notification} (0x${e.event.code.toString(16)}) ${data}`.trimEnd();
  }
  const ev = e.event;
  return `change ${ev.kind} ${ev.op} ${ev.id}${ev.detail ? ` (${ev.detail})` : ''}`;
}

/** The outcome line: `S_OK: …` or `HCN_E_… (0x803B0013): message`. */
export function formatOutcome(c: NarratedCall): string {
  if (c.hresult === 0) return `S_OK${c.summary ? `: ${c.summary}` : ''}`;
  return `${c.name} (${formatHResult(c.hresult)}): ${c.message ?? ''}`;
}

export function renderCall(c: NarratedCall, opts: RenderOptions = {}): string {
  const dim = (s: string) => (opts.color ? DIM + s + RESET : s);
  const lines = [`  > ${formatCall(c, '    ')}`, `  < ${formatOutcome(c)}`];
  if (c.errorRecord) lines.push(`    ErrorRecord: ${JSON.stringify(c.errorRecord)}`);
  for (const e of c.events) lines.push(dim(`    ~ ${formatEvent(e)}`));
  return lines.join('\n');
}

/** Every line of `text` prefixed with `by` (blank lines left blank with `keepBlank`). */
function indent(text: string, by: string, keepBlank = false): string {
  return text
    .split('\n')
    .map((l) => (keepBlank && !l ? l : by + l))
    .join('\n');
}

export function renderStep(s: NarratedStep, index: number, opts: RenderOptions = {}): string {
  const head = `${index}. ${s.title}`;
  const out: string[] = [opts.color ? BOLD + head + RESET : head];
  for (const c of s.calls) out.push(renderCall(c, opts));
  for (const n of s.notes) out.push(`  ${n}`);
  // a listing keeps its blank separator lines blank
  if (s.listing) out.push(indent(renderListing(s.listing.data, s.listing.kinds, opts), '  ', true));
  if (s.table) out.push(indent(table(s.table.headers, s.table.rows, opts), '  '));
  if (s.json) {
    out.push(`  ${s.json.label}:`);
    out.push(indent(JSON.stringify(s.json.value, null, 2), '    '));
  }
  return out.join('\n');
}

/** The whole walkthrough as text: title, header lines, numbered steps separated by blank lines. */
export function renderWalkthrough(w: Walkthrough, opts: RenderOptions = {}): string {
  const title = opts.color ? BOLD + w.title + RESET : w.title;
  const parts = [[title, ...w.header].join('\n'), ...w.steps.map((s, i) => renderStep(s, i + 1, opts))];
  if (!w.completed) {
    parts.push('The walkthrough stopped: a step that should have succeeded failed (see above).');
  }
  return parts.join('\n\n') + '\n';
}

/** The walkthrough as plain JSON (`--format json`). */
export function walkthroughJson(w: Walkthrough): JsonObject {
  return JSON.parse(JSON.stringify(w)) as JsonObject;
}
