/**
 * Errors of the typed HCS client, after hcsshim's `internal/hcs/errors.go` and
 * `internal/hcs/v2/errors.go` (reference hcs-lifecycle.md §0): `HcsError` (an operation failed:
 * `"<op>: <text>"`), `SystemError` (on one compute system: `"<op> <id>: <text>"`), the errors
 * hcsshim raises itself (`ErrAlreadyClosed`, `ErrUnexpectedProcessAbort`, …) and the predicates
 * callers branch on. All are `HnsError`s with a registered code (DESIGN contract 3).
 */
import { HRESULTS, HnsError, type HResultName } from '../../core/errors.js';
import { ClientRaisedError, errorChain, setErrorName, systemMessage } from '../client-error.js';
import { win32FromHResult } from '../hcn/errors.js';

/**
 * The codes hcsshim declares as `syscall.Errno` (internal/hcs/errors.go; v2/errors.go adds
 * ErrInvalidState) and compares errors against. hcsshim's syscall wrappers hand a FACILITY_WIN32
 * HRESULT over as its Win32 code (0x80070490 → 0x490), and every other HRESULT whole.
 */
export const HcsErrno = {
  /** internal/hcs/errors.go: "the container being operated on no longer exists". */
  ErrComputeSystemDoesNotExist: 0xc037010e,
  ErrElementNotFound: 0x490,
  ErrNotSupported: 0x32,
  ErrInvalidData: 0xd,
  /** internal/hcs/errors.go: "a shutdown or terminate request is made on a stopped container". */
  ErrVmcomputeAlreadyStopped: 0xc0370110,
  /** internal/hcs/errors.go (Jul 2026): HCS_E_SYSTEM_ALREADY_STOPPED, an operation on a stopped system. */
  ErrVmcomputeSystemAlreadyStopped: 0x80370110,
  ErrVmcomputeOperationPending: 0xc0370103,
  ErrVmcomputeOperationInvalidState: 0xc0370105,
  /** internal/hcs/v2/errors.go: HCS_E_INVALID_STATE, "the CoError HRESULT the HCS v2 APIs return". */
  ErrInvalidState: 0x80370105,
  ErrVmcomputeOperationAccessIsDenied: 0x5,
  ErrVmcomputeInvalidJSON: 0xc037010d,
  ErrVmcomputeUnknownMessage: 0xc037010b,
  ErrVmcomputeUnexpectedExit: 0xc0370106,
  /** Returned even on the v1 path: only the 0x8037 form exists. */
  ErrProcessAlreadyStopped: 0x8037011f,
  ErrInvalidHandle: 0x6,
} as const;

/**
 * An error the client raises without the service failing (hcsshim's `errors.New` ones):
 * `message` is hcsshim's exact text; `code` a registered HRESULT we chose for it.
 */
export class HcsClientError extends ClientRaisedError {
  constructor(code: HResultName | number, message: string, options?: { cause?: unknown }) {
    super(code, message, 'HcsClientError', options);
  }
}

/**
 * hcsshim's `ErrAlreadyClosed` ("hcsshim: the handle has already been closed"): an operation on a
 * System after `close()`; hcsshim checks its handle before calling HCS. Its code is what HCS
 * gives for a stale handle, ERROR_INVALID_HANDLE (hcs-lifecycle.md §1), though `isErrorInvalidHandle`
 * does not count it, as in hcsshim.
 */
export class AlreadyClosedError extends HcsClientError {
  constructor() {
    super('ERROR_INVALID_HANDLE', 'hcsshim: the handle has already been closed');
    setErrorName(this, 'AlreadyClosedError');
  }
}

/**
 * hcsshim's `ErrUnexpectedProcessAbort` ("lost communication with compute service"): a wait cut off
 * by ServiceDisconnect before the system's exit was seen (hcs-lifecycle.md §7).
 */
export class UnexpectedProcessAbortError extends HcsClientError {
  constructor() {
    super('HCS_E_SERVICE_DISCONNECT', 'lost communication with compute service');
    setErrorName(this, 'UnexpectedProcessAbortError');
  }
}

/**
 * hcsshim's `HcsError{Op, Err}`: `op` is the operation (`hcs::GetComputeSystems`), the code is the
 * HRESULT the service returned (or the code of the error it wraps, then its `cause`), `errno` what
 * hcsshim's predicates compare (the HRESULT, FACILITY_WIN32 reduced: 0x80070490 → 0x490; undefined
 * when it wraps an error hcsshim raised itself), `detail` what the service said about the input
 * (our addition; not in `message`, which is hcsshim's `"<op>: <text>"`).
 */
export class HcsError extends HnsError {
  readonly op: string;
  readonly errno: number | undefined;

  constructor(op: string, err: HResultName | number | HcsClientError, opts: { detail?: string } = {}) {
    super(err instanceof HnsError ? err.hresult : err, opts.detail);
    setErrorName(this, 'HcsError');
    this.op = op;
    if (err instanceof HnsError) {
      this.errno = undefined;
      Object.defineProperty(this, 'cause', { value: err, enumerable: false, configurable: true });
    } else {
      this.errno = win32FromHResult(this.hresult);
    }
    this.message = `${op}: ${this.errText()}`;
  }

  /** What hcsshim prints for `Err`: the wrapped error's text, or the code's system message. */
  protected errText(): string {
    return this.cause instanceof Error ? this.cause.message : systemMessage(this.windowsMessage);
  }
}

/**
 * hcsshim's `SystemError{HcsError, ID}`: an operation on one compute system failed;
 * `message` is `"<op> <id>: <text>"` (`hcs::System::Start c1: The requested virtual machine or
 * container operation is not valid in the current state.`).
 */
export class SystemError extends HcsError {
  readonly id: string;

  constructor(
    op: string,
    id: string,
    err: HResultName | number | HcsClientError,
    opts: { detail?: string } = {},
  ) {
    super(op, err, opts);
    setErrorName(this, 'SystemError');
    this.id = id;
    this.message = `${op} ${id}: ${this.errText()}`;
  }
}

/**
 * Whether `e` or an error it wraps carries one of `codes` as hcsshim compares them: an `HcsError`'s
 * `errno`, or the reduced HRESULT of any other service error (a bare `HnsError`, an `HcnError`);
 * errors the client raised itself carry none.
 */
export function isAnyCode(e: unknown, ...codes: readonly (number | HResultName)[]): boolean {
  const want = codes.map((c) => win32FromHResult(typeof c === 'number' ? c : HRESULTS[c].code));
  for (const c of errorChain(e)) {
    if (c instanceof HcsClientError) continue;
    if (c instanceof HcsError) {
      if (c.errno !== undefined && want.includes(c.errno)) return true;
      continue;
    }
    if (c instanceof HnsError && want.includes(win32FromHResult(c.hresult))) return true;
  }
  return false;
}

/**
 * hcsshim's `IsNotExist` (internal/hcs/errors.go, v2/errors.go): ErrComputeSystemDoesNotExist
 * 0xC037010E or ErrElementNotFound 0x490. Ours also takes 0x8037010E, HCS_E_SYSTEM_NOT_FOUND, the
 * spelling computecore returns (hcsshim's list predates it; hcs-lifecycle.md §8 gap 4).
 */
export function isNotExist(e: unknown): boolean {
  return isAnyCode(
    e,
    HcsErrno.ErrComputeSystemDoesNotExist,
    HcsErrno.ErrElementNotFound,
    HRESULTS.HCS_E_SYSTEM_NOT_FOUND.code,
  );
}

/**
 * hcsshim's `IsAlreadyStopped` (internal/hcs/errors.go): ErrVmcomputeAlreadyStopped 0xC0370110,
 * ErrVmcomputeSystemAlreadyStopped 0x80370110, ErrProcessAlreadyStopped 0x8037011F and
 * ErrElementNotFound 0x490 (errors_test.go asserts all four, also wrapped in SystemError).
 * internal/hcs/v2/errors.go lacks 0x80370110; we follow the newer internal/hcs list.
 */
export function isAlreadyStopped(e: unknown): boolean {
  return isAnyCode(
    e,
    HcsErrno.ErrVmcomputeAlreadyStopped,
    HcsErrno.ErrVmcomputeSystemAlreadyStopped,
    HcsErrno.ErrProcessAlreadyStopped,
    HcsErrno.ErrElementNotFound,
  );
}

/**
 * hcsshim's `IsAlreadyClosed` (internal/hcs/errors.go, v2/errors.go): `errors.Is(err,
 * ErrAlreadyClosed)`, an operation on a System after its `close()`.
 */
export function isAlreadyClosed(e: unknown): boolean {
  for (const c of errorChain(e)) if (c instanceof AlreadyClosedError) return true;
  return false;
}

/**
 * hcsshim's `IsOperationInvalidState` (internal/hcs/errors.go, v2/errors.go): ErrVmcomputeOperation-
 * InvalidState 0xC0370105. Ours also takes 0x80370105, v2/errors.go's ErrInvalidState ("the CoError
 * HRESULT the HCS v2 APIs return"), which hcsshim declares but its predicate does not test.
 */
export function isOperationInvalidState(e: unknown): boolean {
  return isAnyCode(e, HcsErrno.ErrVmcomputeOperationInvalidState, HcsErrno.ErrInvalidState);
}

/**
 * hcsshim's `IsNotSupported` (internal/hcs/errors.go, v2/errors.go): "Unsupported platform
 * requests can be mean either ErrVmcomputeInvalidJSON, ErrInvalidData, ErrNotSupported or
 * ErrVmcomputeUnknownMessage": 0xC037010D, 0xD, 0x32, 0xC037010B. The computecore spelling of
 * invalid JSON (0x8037010D) is not in hcsshim's list, nor here.
 */
export function isNotSupported(e: unknown): boolean {
  return isAnyCode(
    e,
    HcsErrno.ErrVmcomputeInvalidJSON,
    HcsErrno.ErrInvalidData,
    HcsErrno.ErrNotSupported,
    HcsErrno.ErrVmcomputeUnknownMessage,
  );
}

/** hcsshim's `IsPending` (internal/hcs/errors.go): ErrVmcomputeOperationPending 0xC0370103. */
export function isPending(e: unknown): boolean {
  return isAnyCode(e, HcsErrno.ErrVmcomputeOperationPending);
}

/** hcsshim's `IsAccessIsDenied` (internal/hcs/errors.go): 0x5, seen enumerating on RS1/RS2. */
export function isAccessIsDenied(e: unknown): boolean {
  return isAnyCode(e, HcsErrno.ErrVmcomputeOperationAccessIsDenied);
}

/** hcsshim's `IsErrorInvalidHandle` (internal/hcs/errors.go): ErrInvalidHandle 0x6 from HCS. */
export function isErrorInvalidHandle(e: unknown): boolean {
  return isAnyCode(e, HcsErrno.ErrInvalidHandle);
}
