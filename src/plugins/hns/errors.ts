/**
 * How containernetworking/plugins wraps errors (`pkg/errors/errors.go`): `Annotate(err, msg)` is
 * `fmt.Errorf("%s: %v", msg, err)`, a plain error whose text is the context then the cause's text;
 * skel prints a plain error as code 999. Plus the Go runtime panics the plugins can hit by
 * indexing an empty slice (reference cni-windows.md §2.7).
 */

/**
 * `errors.Annotate(err, message)` / `Annotatef`: `<message>: <err.Error()>`. A Go panic is not an
 * error value: it unwinds through every caller unchanged.
 */
export function annotate(err: unknown, message: string): Error {
  if (err instanceof GoPanicError) return err;
  const text = err instanceof Error ? err.message : String(err);
  return new Error(`${message}: ${text}`, { cause: err });
}

/**
 * A Go runtime panic (`panic: runtime error: …`): the Go plugin dies with exit status 2 and a
 * goroutine dump on stderr instead of printing an error document.
 */
export class GoPanicError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GoPanicError';
  }
}

/** `s[0]` on a Go slice: the element, or the panic Go raises for an empty slice. */
export function first<T>(list: readonly T[] | undefined): T {
  if (!list || list.length === 0) {
    throw new GoPanicError('runtime error: index out of range [0] with length 0');
  }
  return list[0]!;
}

// ───────────────────────────── panics at the process boundary ─────────────────────────────

/** Panics raised inside a command, keyed by the invocation's stdin bytes (one object per exec). */
const PANICS = new WeakMap<Uint8Array, GoPanicError>();

/**
 * Wrap a command so that a Go panic inside it is remembered for `withGoPanics`, which turns the
 * invocation into what a panicking Go binary gives its caller.
 */
export function recoverPanics<A extends { readonly stdinData: Uint8Array }, C>(
  fn: (args: A, ctx: C) => Promise<void>,
): (args: A, ctx: C) => Promise<void> {
  return async (args, ctx) => {
    try {
      await fn(args, ctx);
    } catch (e) {
      if (e instanceof GoPanicError) PANICS.set(args.stdinData, e);
      throw e;
    }
  };
}

interface Exec<H, R> {
  readonly type: string;
  exec(host: H, request: R, depth?: number): Promise<{ exitCode: number; stdout: string; stderr: string }>;
}

/**
 * A plugin whose panics end the process as Go's runtime does: nothing on stdout, `panic: <text>`
 * and a goroutine header on stderr, exit status 2 (libcni then reports `netplugin failed: "<stderr>"`).
 */
export function withGoPanics<
  H,
  R extends {
    readonly env: Readonly<Record<string, string | undefined>>;
    readonly stdin: string | Uint8Array;
  },
  P extends Exec<H, R>,
>(plugin: P): P {
  return {
    ...plugin,
    type: plugin.type,
    async exec(host: H, request: R, depth?: number) {
      // a private copy: the key of this invocation alone
      const stdin =
        typeof request.stdin === 'string'
          ? new Uint8Array(Buffer.from(request.stdin, 'utf8'))
          : Uint8Array.from(request.stdin);
      const out = await plugin.exec(host, { ...request, stdin }, depth);
      const panic = PANICS.get(stdin);
      if (!panic) return out;
      PANICS.delete(stdin);
      return {
        exitCode: 2,
        stdout: '',
        stderr: `panic: ${panic.message}\n\ngoroutine 1 [running]:\nmain.main()\n`,
      };
    },
  };
}
