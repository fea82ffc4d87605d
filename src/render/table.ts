/**
 * Plain-text tables in the shape of PowerShell's Format-Table (what `hnsdiag` and `Get-HnsNetwork`
 * users read on Windows): a header row, dashes under each header, left-aligned columns two spaces
 * apart. No dependencies, so the CLI can print help and version tables without loading the model.
 */

export interface RenderOptions {
  /** Bold headers and titles (ANSI); the CLI turns this on only for a TTY without NO_COLOR. */
  readonly color?: boolean;
}

const BOLD = '\x1b[1m';
const RESET = '\x1b[0m';

/** A Format-Table-like table; `(none)` under the header when there are no rows. */
export function table(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  opts: RenderOptions = {},
): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const head = line(headers);
  const out = [opts.color ? BOLD + head + RESET : head, line(headers.map((h) => '-'.repeat(h.length)))];
  if (rows.length === 0) out.push('(none)');
  for (const r of rows) out.push(line(r));
  return out.join('\n');
}
