/**
 * How containernetworking/plugins wraps errors (`pkg/errors/errors.go`): `Annotate(err, msg)` is
 * `fmt.Errorf("%s: %v", msg, err)`, a plain error whose text is the context then the cause's text;
 * skel prints a plain error as code 999. Plus the Go runtime panic the plugins can hit by
 * indexing an empty slice (reference cni-windows.md §2.7; `pluginMain` ends the process on it).
 */
import { GoPanic, indexOutOfRange } from '../../cni/gopanic.js';

/**
 * `errors.Annotate(err, message)` / `Annotatef`: `<message>: <err.Error()>`. A Go panic is not an
 * error value: it unwinds through every caller unchanged.
 */
export function annotate(err: unknown, message: string): Error {
  if (err instanceof GoPanic) return err;
  const text = err instanceof Error ? err.message : String(err);
  return new Error(`${message}: ${text}`, { cause: err });
}

/** `s[0]` on a Go slice: the element, or the panic Go raises for an empty slice. */
export function first<T>(list: readonly T[] | undefined): T {
  if (!list || list.length === 0) throw indexOutOfRange(0, 0);
  return list[0]!;
}
