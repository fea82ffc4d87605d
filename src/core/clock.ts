/**
 * Simulated time. Nothing in hnsim reads the wall clock: time is this counter (milliseconds since
 * the host booted), advanced explicitly by tests or by the scenario runner. Timers fire in order of
 * due time, then of scheduling, so runs are deterministic.
 */

/** The wall-clock instant the simulated host booted (2026-01-01T00:00:00Z), for timestamps in documents. */
export const BOOT_UNIX_MS = 1_767_225_600_000;

/** A simulated time as the ISO text HCS documents carry (`2026-01-01T00:00:05.000Z`). */
export function isoAt(ms: number): string {
  return new Date(BOOT_UNIX_MS + ms).toISOString();
}

interface Timer {
  readonly id: number;
  readonly due: number;
  readonly fn: () => void;
}

export class Clock {
  private nowMs = 0;
  private seq = 0;
  private timers: Timer[] = [];

  now(): number {
    return this.nowMs;
  }

  /** Run `fn` when the clock reaches now + delayMs. Returns a handle for `cancel`. */
  schedule(delayMs: number, fn: () => void): number {
    const id = ++this.seq;
    const due = this.nowMs + Math.max(0, delayMs);
    // keep sorted by (due, id): insertion from the back, timers are usually appended in order
    let i = this.timers.length;
    while (i > 0 && this.timers[i - 1]!.due > due) i--;
    this.timers.splice(i, 0, { id, due, fn });
    return id;
  }

  cancel(id: number): void {
    const i = this.timers.findIndex((t) => t.id === id);
    if (i >= 0) this.timers.splice(i, 1);
  }

  pending(): number {
    return this.timers.length;
  }

  /** Advance by `ms`, firing every timer that falls due on the way. */
  advance(ms: number): void {
    const target = this.nowMs + Math.max(0, ms);
    for (;;) {
      const t = this.timers[0];
      if (!t || t.due > target) break;
      this.timers.shift();
      this.nowMs = t.due;
      t.fn();
    }
    this.nowMs = target;
  }

  /** Fire every pending timer (including ones scheduled while firing), advancing time to each. */
  runAll(limit = 100_000): void {
    for (let n = 0; n < limit; n++) {
      const t = this.timers.shift();
      if (!t) return;
      this.nowMs = Math.max(this.nowMs, t.due);
      t.fn();
    }
  }

  /** Set time directly (snapshot restore). */
  setNow(ms: number): void {
    this.nowMs = ms;
  }
}
