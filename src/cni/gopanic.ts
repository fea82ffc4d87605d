/**
 * A Go panic inside a plugin (reference cni-windows.md §2.7): not an error value, it unwinds past
 * every caller and deferred cleanup that tests a named error, and `pluginMain` ends the invocation
 * as the Go runtime does — exit status 2, nothing on stdout, `panic: …` and a goroutine header on
 * stderr (libcni then reports `netplugin failed: "<stderr>"`).
 */

/**
 * A Go panic with its value's text. `runtimeError`: a runtime panic, whose message (and printed
 * value) is `runtime error: <value>`.
 */
export class GoPanic extends Error {
  constructor(
    readonly value: string,
    readonly runtimeError = false,
  ) {
    super(runtimeError ? `runtime error: ${value}` : value);
    this.name = 'GoPanic';
  }

  /**
   * What the Go runtime writes to stderr, the trace abridged to its first frame (`trace`, e.g.
   * `main.main()`); a nil dereference also prints the access violation's signal line.
   */
  stderr(trace: string): string {
    const head = `panic: ${this.message}`;
    const signal = this.value.includes('nil pointer dereference')
      ? '\n[signal 0xc0000005 code=0x0 addr=0x0 pc=0x0]'
      : '';
    return `${head}${signal}\n\ngoroutine 1 [running]:\n${trace}\n`;
  }
}

/** `panic: runtime error: invalid memory address or nil pointer dereference`. */
export function nilDereference(): GoPanic {
  return new GoPanic('invalid memory address or nil pointer dereference', true);
}

/** `panic: runtime error: index out of range [i] with length n` (`length` omitted: a constant index). */
export function indexOutOfRange(index: number, length?: number): GoPanic {
  const tail = length === undefined ? '' : ` with length ${length}`;
  return new GoPanic(`index out of range [${index}]${tail}`, true);
}
