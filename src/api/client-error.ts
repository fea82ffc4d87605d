/**
 * What the two typed clients' errors share (hcn/errors.ts, hcs/errors.ts): a settable `name`, the
 * `cause` chain Go's `errors.Is`/`errors.As` walk, the system-message form of a code's text, and
 * the base of the errors a client raises itself. Internal: neither client index re-exports it.
 */
import { HnsError, type HResultName } from '../core/errors.js';

/** Give an error instance its class name (HnsError's own `name` is a read-only field). */
export function setErrorName(e: Error, name: string): void {
  Object.defineProperty(e, 'name', { value: name, enumerable: false, configurable: true, writable: true });
}

/** Walk an error and its `cause` chain (Go's `errors.Is`/`errors.As` over wrapped errors). */
export function* errorChain(e: unknown): Generator<unknown> {
  let cur = e;
  for (let depth = 0; depth < 32 && cur !== undefined && cur !== null; depth++) {
    yield cur;
    cur = cur instanceof Error ? cur.cause : undefined;
  }
}

/**
 * The system message Windows formats for a code (what Go's `syscall.Errno.Error()` prints): the
 * registered text, ending in a period.
 */
export function systemMessage(m: string): string {
  return m.endsWith('.') ? m : `${m}.`;
}

/**
 * An error a client raises without the service failing (hcsshim's `errors.New`/`fmt.Errorf` ones):
 * `message` is hcsshim's exact text, `code` a registered HRESULT we chose for it, `name` the class.
 */
export abstract class ClientRaisedError extends HnsError {
  protected constructor(
    code: HResultName | number,
    message: string,
    name: string,
    options?: { cause?: unknown },
  ) {
    super(code);
    setErrorName(this, name);
    this.message = message;
    if (options && 'cause' in options) {
      Object.defineProperty(this, 'cause', { value: options.cause, enumerable: false, configurable: true });
    }
  }
}
