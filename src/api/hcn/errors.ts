/**
 * Errors of the typed client, after hcsshim's `hcn/hcnerrors.go` and `internal/hcserror` (reference
 * hns-hcs.md §5.1): `HcnError` wraps an HRESULT the service returned, with hcsshim's message and
 * the Win32 reduction of facility-7 codes; the not-found, invalid-ID and client-check errors are
 * raised by the client itself with hcsshim's exact texts. All are `HnsError`s with a registered code.
 */
import { HRESULTS, HnsError, type ErrorRecord, type HResultName } from '../../core/errors.js';
import { ClientRaisedError, errorChain, setErrorName, systemMessage } from '../client-error.js';
import { goQuote } from './marshal.js';

/**
 * The code hcsshim keeps for an HRESULT (`hcserror.Win32FromError` after the syscall wrapper):
 * a failing HRESULT of facility 7 (FACILITY_WIN32, `0x8007xxxx`) becomes its Win32 code (`0x490`);
 * any other HRESULT stays whole (`0x803B0013`).
 */
export function win32FromHResult(hr: number): number {
  const u = hr >>> 0;
  if (u & 0x80000000 && (u & 0x1fff0000) === 0x00070000) return u & 0xffff;
  return u;
}

/** hcsshim's `ErrorCode` constants, for `checkErrorWithCode`. */
export const ErrorCode = {
  ERROR_NOT_FOUND: 0x490,
  HCN_E_PORT_ALREADY_EXISTS: 0x803b0013,
  HCN_E_NOTIMPL: 0x80004001,
} as const;

/**
 * A failure returned by the service for one flat call. `message` is hcsshim's
 * `"<fn> failed in Win32: <system message> (0x<code>) <ErrorRecord JSON>"`; `hresult` the full
 * HRESULT, `code` its registered name, `errorCode` the reduced code hcsshim compares against,
 * `title` the function (`hcnCreateEndpoint`), `errorRecord()` the record the service sent, and
 * `detail` what the service said about the input (our addition).
 */
export class HcnError extends HnsError {
  readonly title: string;
  readonly errorCode: number;
  readonly #record: ErrorRecord | undefined;

  constructor(
    title: string,
    code: HResultName | number,
    opts: { record?: ErrorRecord; detail?: string } = {},
  ) {
    super(code, opts.detail);
    setErrorName(this, 'HcnError');
    this.title = title;
    this.errorCode = win32FromHResult(this.hresult);
    this.#record = opts.record;
    let s = title;
    if (s.length > 0 && !s.endsWith(' ')) s += ' ';
    s += `failed in Win32: ${systemMessage(this.windowsMessage)} (0x${this.errorCode.toString(16)})`;
    if (opts.record) s += ` ${JSON.stringify(opts.record)}`;
    this.message = s;
  }

  /** The ErrorRecord the service returned beside the HRESULT (or the registered one if none came). */
  override errorRecord(): ErrorRecord {
    return this.#record ? { ...this.#record } : super.errorRecord();
  }
}

/**
 * An error the client raises without a service failure (hcsshim's `errors.New`/`fmt.Errorf` ones):
 * `message` is hcsshim's exact text; `code` a registered HRESULT we chose for it (docs/model.md).
 */
export class HcnClientError extends ClientRaisedError {
  constructor(code: HResultName | number, message: string, options?: { cause?: unknown }) {
    super(code, message, 'HcnClientError', options);
  }
}

/** `Network name "X" not found` / `Network ID "X" not found`. */
export class NetworkNotFoundError extends HcnClientError {
  constructor(
    readonly NetworkName: string,
    readonly NetworkID: string,
  ) {
    super(
      'HCN_E_NETWORK_NOT_FOUND',
      NetworkName !== ''
        ? `Network name ${goQuote(NetworkName)} not found`
        : `Network ID ${goQuote(NetworkID)} not found`,
    );
    setErrorName(this, 'NetworkNotFoundError');
  }
}

/** `Endpoint name "X" not found` / `Endpoint ID "X" not found`. */
export class EndpointNotFoundError extends HcnClientError {
  constructor(
    readonly EndpointName: string,
    readonly EndpointID: string,
  ) {
    super(
      'HCN_E_ENDPOINT_NOT_FOUND',
      EndpointName !== ''
        ? `Endpoint name ${goQuote(EndpointName)} not found`
        : `Endpoint ID ${goQuote(EndpointID)} not found`,
    );
    setErrorName(this, 'EndpointNotFoundError');
  }
}

/** `Namespace ID "X" not found`. */
export class NamespaceNotFoundError extends HcnClientError {
  constructor(readonly NamespaceID: string) {
    super('ERROR_NOT_FOUND', `Namespace ID ${goQuote(NamespaceID)} not found`);
    setErrorName(this, 'NamespaceNotFoundError');
  }
}

/** `LoadBalancer "X" not found`. */
export class LoadBalancerNotFoundError extends HcnClientError {
  constructor(readonly LoadBalancerId: string) {
    super('ERROR_NOT_FOUND', `LoadBalancer ${goQuote(LoadBalancerId)} not found`);
    setErrorName(this, 'LoadBalancerNotFoundError');
  }
}

/** `SDN Route "X" not found`. */
export class RouteNotFoundError extends HcnClientError {
  constructor(readonly RouteId: string) {
    super('ERROR_NOT_FOUND', `SDN Route ${goQuote(RouteId)} not found`);
    setErrorName(this, 'RouteNotFoundError');
  }
}

export type ResourceKind = 'network' | 'endpoint' | 'namespace' | 'load balancer' | 'route';

/** `invalid network ID` …: a GUID argument that go-winio cannot parse, before any call. */
export class InvalidIdError extends HcnClientError {
  constructor(readonly kind: ResourceKind) {
    super('HCN_E_GUID_CONVERSION_FAILURE', `invalid ${kind} ID`);
    setErrorName(this, 'InvalidIdError');
  }
}

/** `platform does not support feature <name>` from the feature checkers. */
export class PlatformNotSupportedError extends HcnClientError {
  constructor(readonly feature: string) {
    super('E_NOTIMPL', `platform does not support feature ${feature}`);
    setErrorName(this, 'PlatformNotSupportedError');
  }
}

function findHcnError(e: unknown): HcnError | undefined {
  for (const c of errorChain(e)) if (c instanceof HcnError) return c;
  return undefined;
}

function codeOf(code: number | HResultName): number {
  return win32FromHResult(typeof code === 'number' ? code : HRESULTS[code].code);
}

/**
 * Whether `e` (or an error it wraps) is an `HcnError` with this code. The code is compared after
 * the Win32 reduction, so `0x490`, `0x80070490` and `'ERROR_NOT_FOUND'` are the same code.
 */
export function checkErrorWithCode(e: unknown, code: number | HResultName): boolean {
  const h = findHcnError(e);
  return h !== undefined && h.errorCode === codeOf(code);
}

/** ERROR_NOT_FOUND (1168, HRESULT 0x80070490 "Element not found.") from the service. */
export function isElementNotFoundError(e: unknown): boolean {
  return checkErrorWithCode(e, ErrorCode.ERROR_NOT_FOUND);
}

/** HCN_E_PORT_ALREADY_EXISTS (0x803B0013) from the service. */
export function isPortAlreadyExistsError(e: unknown): boolean {
  return checkErrorWithCode(e, ErrorCode.HCN_E_PORT_ALREADY_EXISTS);
}

/** E_NOTIMPL (0x80004001) from the service. */
export function isNotImplemented(e: unknown): boolean {
  return checkErrorWithCode(e, ErrorCode.HCN_E_NOTIMPL);
}

/**
 * hcsshim's `IsNotFoundError`: one of the client's not-found errors, or a service failure whose
 * code is ERROR_NOT_FOUND (0x490), also when wrapped. hcsshim tests the underlying `HcsError`, so a
 * bare `HnsError` from the service (not raised by this client) counts too.
 */
export function isNotFoundError(e: unknown): boolean {
  for (const c of errorChain(e)) {
    if (
      c instanceof NetworkNotFoundError ||
      c instanceof EndpointNotFoundError ||
      c instanceof NamespaceNotFoundError ||
      c instanceof LoadBalancerNotFoundError ||
      c instanceof RouteNotFoundError
    ) {
      return true;
    }
    if (c instanceof HnsError && !(c instanceof HcnClientError)) {
      return win32FromHResult(c.hresult) === ErrorCode.ERROR_NOT_FOUND;
    }
  }
  return false;
}
