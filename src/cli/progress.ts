/**
 * The CLI's terminal rules: colour only on a terminal and never with NO_COLOR set; the progress
 * bar on stderr, on a terminal only, for work long enough to wait for (a truth table of 100 cells
 * or more), cleared when done. `hnsim run` and the views use it while a scenario's reachability
 * matrices fill.
 */
import type { CliIo } from './main.js';

/** Whether output to `io` is coloured: stdout is a terminal and NO_COLOR is unset or empty. */
export function useColor(io: Pick<CliIo, 'isTTY' | 'env'>): boolean {
  return io.isTTY && (io.env.NO_COLOR === undefined || io.env.NO_COLOR === '');
}

export type Progress = (done: number, total: number, label: string) => void;

/** A progress reporter for `io`, or undefined when stderr is not a terminal's. */
export function progressBar(io: Pick<CliIo, 'isTTY' | 'stderr'>, minimum = 100): Progress | undefined {
  if (!io.isTTY) return undefined;
  let shown = false;
  return (done, total, label) => {
    if (total < minimum) return;
    if (done >= total) {
      if (shown) io.stderr.write('\r\x1b[K');
      shown = false;
      return;
    }
    const width = 30;
    const filled = Math.round((done / total) * width);
    io.stderr.write(`\r${label}: [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}`);
    shown = true;
  };
}
