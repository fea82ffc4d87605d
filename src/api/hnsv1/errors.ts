/**
 * Errors of the v1 client with hcsshim's texts (microsoft/hcsshim v0.14.1 `internal/hns/hns.go`,
 * `hnsfuncs.go`, `namespace.go`, root `errors.go`, `hnsendpoint.go`; reference cni-windows.md §2.8):
 * a failed HNSCall (`failed during hnsCallRawResponse: hnsCall failed in Win32: …`), a
 * `{"Success":false}` answer (`hns failed with error : …`), the not-found errors of the by-name
 * lookups, Go's `syscall.Errno` for HCS failures of the hot attach, and the root `IsNotExist`.
 */
import { HnsError, type HResultName } from '../../core/errors.js';
import { ClientRaisedError, errorChain, setErrorName, systemMessage } from '../client-error.js';
import { HcnError, win32FromHResult } from '../hcn/errors.js';
import { isNotExist as hcsIsNotExist } from '../hcs/errors.js';

/** The HCS codes hcsshim's root package exports as `syscall.Errno` values. */
export const HnsV1Errno = {
  /** `ErrComputeSystemDoesNotExist`: "the container being operated on no longer exists". */
  ErrComputeSystemDoesNotExist: 0xc037010e,
  /** `ErrElementNotFound`. */
  ErrElementNotFound: 0x490,
} as const;

/**
 * `hnsCallRawResponse`'s failure: the HNSCall itself failed (the syscall returned an HRESULT), as
 * `fmt.Errorf("failed during hnsCallRawResponse: %w", hcserror.New(err, "hnsCall ", ""))` prints it:
 * `failed during hnsCallRawResponse: hnsCall failed in Win32: The object already exists. (0x1392)`.
 * `cause` is that `hnsCall …` error (an `HcnError` titled `hnsCall`); `hresult` the code.
 */
export class HnsCallError extends HnsError {
  readonly errorCode: number;

  constructor(readonly callError: HcnError) {
    super(callError.hresult, callError.detail);
    setErrorName(this, 'HnsCallError');
    this.errorCode = callError.errorCode;
    this.message = `failed during hnsCallRawResponse: ${callError.message}`;
    Object.defineProperty(this, 'cause', { value: callError, enumerable: false, configurable: true });
  }
}

/**
 * HNS answered `{"Success":false,"Error":…}`: `hns failed with error : <Error>` (hnsfuncs.go).
 * `hnsError` is the response's `Error` text; the code is its `ErrorCode` when that is a failing
 * HRESULT (our addition: hcsshim keeps only the text), else E_FAIL.
 */
export class HnsFailedError extends HnsError {
  constructor(
    readonly hnsError: string,
    errorCode: number | undefined,
  ) {
    super(errorCode !== undefined && errorCode >>> 0 >= 0x80000000 ? errorCode >>> 0 : 'E_FAIL');
    setErrorName(this, 'HnsFailedError');
    this.message = `hns failed with error : ${hnsError}`;
  }
}

/** An error the v1 client raises itself (hcsshim's `errors.New` / `fmt.Errorf` ones). */
export class HnsV1ClientError extends ClientRaisedError {
  constructor(code: HResultName | number, message: string, options?: { cause?: unknown }) {
    super(code, message, 'HnsV1ClientError', options);
  }
}

/** `hns.NetworkNotFoundError`: `Network <name> not found` (no quotes, unlike the hcn package). */
export class NetworkNotFoundError extends HnsV1ClientError {
  constructor(readonly NetworkName: string) {
    super('HCN_E_NETWORK_NOT_FOUND', `Network ${NetworkName} not found`);
    setErrorName(this, 'NetworkNotFoundError');
  }
}

/** `hns.EndpointNotFoundError`: `Endpoint <name> not found`. */
export class EndpointNotFoundError extends HnsV1ClientError {
  constructor(readonly EndpointName: string) {
    super('HCN_E_ENDPOINT_NOT_FOUND', `Endpoint ${EndpointName} not found`);
    setErrorName(this, 'EndpointNotFoundError');
  }
}

/**
 * `encoding/json`'s `UnmarshalTypeError` for a response of the wrong JSON kind:
 * `json: cannot unmarshal array into Go value of type hns.HNSNetwork`.
 */
export class JsonUnmarshalTypeError extends HnsV1ClientError {
  constructor(
    readonly value: string,
    readonly goType: string,
  ) {
    super('E_UNEXPECTED', `json: cannot unmarshal ${value} into Go value of type ${goType}`);
    setErrorName(this, 'JsonUnmarshalTypeError');
  }
}

/**
 * Go's `syscall.Errno` as hcsshim's root package returns it from the hot attach (`getInnerError`
 * unwraps the HCS error to its code): `message` is the system message (`Errno.Error()`), `errno` the
 * code hcsshim compares (`hcsshim.ErrComputeSystemDoesNotExist == err`). A Win32 code `n` is the
 * HRESULT `0x8007000n`…; any other code is the HRESULT itself.
 */
export class Errno extends HnsError {
  readonly errno: number;

  constructor(code: number) {
    const u = code >>> 0;
    super(u <= 0xffff ? (0x80070000 | u) >>> 0 : u);
    setErrorName(this, 'Errno');
    this.errno = win32FromHResult(this.hresult);
    this.message = systemMessage(this.windowsMessage);
  }
}

/** `hcsshim.ErrComputeSystemDoesNotExist` (a fresh value each time; compare with the predicate). */
export function errComputeSystemDoesNotExist(): Errno {
  return new Errno(HnsV1Errno.ErrComputeSystemDoesNotExist);
}

/** `err == hcsshim.ErrComputeSystemDoesNotExist` (Go's `==`: the error itself, not what it wraps). */
export function isErrComputeSystemDoesNotExist(e: unknown): boolean {
  return e instanceof Errno && e.errno === HnsV1Errno.ErrComputeSystemDoesNotExist;
}

/** `hcsshim.ErrPlatformNotSupported`: "unsupported platform request" (a Modify HCS refused as unsupported). */
export class PlatformNotSupportedError extends HnsV1ClientError {
  constructor(options?: { cause?: unknown }) {
    super('ERROR_NOT_SUPPORTED', 'unsupported platform request', options);
    setErrorName(this, 'PlatformNotSupportedError');
  }
}

/** `err == hcsshim.ErrPlatformNotSupported`. */
export function isErrPlatformNotSupported(e: unknown): boolean {
  return e instanceof PlatformNotSupportedError;
}

/**
 * `os.ErrNotExist` ("file does not exist"): what `internal/hns/namespace.go` returns when HNS's
 * error text contains `Element not found.`.
 */
export class OsNotExistError extends HnsV1ClientError {
  constructor(options?: { cause?: unknown }) {
    super('ERROR_NOT_FOUND', 'file does not exist', options);
    setErrorName(this, 'OsNotExistError');
  }
}

/** `errors.Is(err, os.ErrNotExist)`. */
export function isOsNotExist(e: unknown): boolean {
  for (const c of errorChain(e)) if (c instanceof OsNotExistError) return true;
  return false;
}

/** A namespace request that failed otherwise: `<METHOD> <path>: <err>` (namespace.go). */
export class NamespaceRequestError extends HnsError {
  constructor(
    readonly method: string,
    readonly path: string,
    err: HnsError,
  ) {
    super(err.hresult, err.detail);
    setErrorName(this, 'NamespaceRequestError');
    this.message = `${method} ${path}: ${err.message}`;
    Object.defineProperty(this, 'cause', { value: err, enumerable: false, configurable: true });
  }
}

/**
 * hcsshim's root `IsNotExist`: a `NetworkNotFoundError` or `EndpointNotFoundError` itself (a type
 * assertion, so not when wrapped), or an HCS error whose code is ErrComputeSystemDoesNotExist
 * 0xC037010E or ErrElementNotFound 0x490 (`hcs.IsNotExist`, which unwraps). A failed HNSCall never
 * counts: hcsshim's `hcserror.HcsError` has no `Unwrap`, and `hns failed with error` is plain text.
 */
export function isNotExist(e: unknown): boolean {
  if (e instanceof NetworkNotFoundError || e instanceof EndpointNotFoundError) return true;
  for (const c of errorChain(e)) {
    if (c instanceof HnsCallError || c instanceof HnsFailedError || c instanceof HcnError) return false;
    if (c instanceof HnsV1ClientError) return false;
  }
  return hcsIsNotExist(e);
}
