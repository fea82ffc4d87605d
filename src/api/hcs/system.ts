/**
 * A compute system as hcsshim's `internal/hcs/v2/system.go` holds one (reference hcs-lifecycle.md
 * §1): Start, Shutdown, Terminate, Pause, Resume, Modify, Properties, Close and a wait for its exit,
 * each one flat Hcs* call through the client's transport (so fault rules see it), failures thrown
 * as `SystemError` named after hcsshim's operation (`hcs::System::Start`). The handle is the ID (the
 * flat API is handle-free); `close()` makes this object unusable (hcsshim's ErrAlreadyClosed), as a
 * closed HCS handle is.
 *
 *   const c = await hcs.createComputeSystem('c1', doc);
 *   await c.start();
 *   await c.terminate();
 *   (await c.waitExited()).exitType; // 'ForcedExit'
 *   await c.close();
 */
import { HRESULTS } from '../../core/errors.js';
import type { HcsNotificationEvent } from '../../core/events.js';
import type { Json, JsonObject } from '../../core/json.js';
import type { ExitType } from '../../hcs/model.js';
import type { HcsApiMethod, HcsProperties } from '../flat.js';
import type { HcsClient } from './client.js';
import {
  AlreadyClosedError,
  HcsClientError,
  HcsErrno,
  SystemError,
  UnexpectedProcessAbortError,
} from './errors.js';

/** `ExitType` of a stopped system (NotificationType), as the service records it. */
export type SystemExitType = ExitType;

/** How a system exited: its `SystemExitStatus` (the `Status` HRESULT, unsigned, when HCS sent one). */
export interface SystemExit {
  readonly exitType: SystemExitType;
  readonly status?: number;
}

/**
 * The properties document of a compute system (schema 2 `Properties`, the v1 `ContainerProperties`
 * extras for schema 1 systems); fields hcsshim reads are typed, the rest kept as JSON.
 */
export type ComputeSystemProperties = HcsProperties & {
  readonly Name?: string;
  readonly Owner?: string;
  readonly RuntimeOsType?: string;
  readonly RuntimeId?: string;
  readonly ExitType?: SystemExitType;
  readonly HostingSystemId?: string;
  readonly Statistics?: JsonObject;
};

/** A property query: `{PropertyTypes: ["Statistics", …]}` (schema1/schema2 PropertyQuery). */
export interface PropertyQuery {
  readonly PropertyTypes?: readonly string[];
}

/**
 * Codes `shutdown()` and `terminate()` treat as done (internal/hcs/system.go and v2/system.go
 * Shutdown/Terminate return nil for them): ErrVmcomputeAlreadyStopped 0xC0370110,
 * ErrComputeSystemDoesNotExist 0xC037010E, ErrVmcomputeOperationPending 0xC0370103. Beside those,
 * the computecore spellings 0x80370110 and 0x8037010E: v2's `submitOperation` checks only the
 * synchronous HRESULT and discards the operation's result, which is where computecore reports
 * HCS_E_SYSTEM_ALREADY_STOPPED (hcs-lifecycle.md §1), so an hcsshim v2 caller sees success there too.
 */
export const STOP_SWALLOWED: readonly number[] = [
  HcsErrno.ErrVmcomputeAlreadyStopped,
  HcsErrno.ErrComputeSystemDoesNotExist,
  HcsErrno.ErrVmcomputeOperationPending,
  HcsErrno.ErrVmcomputeSystemAlreadyStopped,
  HRESULTS.HCS_E_SYSTEM_NOT_FOUND.code,
];

type Waiter = { resolve: (x: SystemExit) => void; reject: (e: Error) => void };

export class System {
  readonly #client: HcsClient;
  readonly #id: string;
  #closed = false;
  #exit: SystemExit | undefined;
  #waitError: Error | undefined;
  #waiters: Waiter[] = [];
  #unwatch: (() => void) | undefined;
  #typ = '';
  #os = '';
  #owner = '';

  /** Made by `HcsClient.createComputeSystem` / `openComputeSystem`; starts listening at once. */
  constructor(client: HcsClient, id: string) {
    this.#client = client;
    this.#id = id;
    this.#unwatch = client.watch(id, (e) => this.#notification(e));
  }

  /** hcsshim's `ID()`. */
  get id(): string {
    return this.#id;
  }
  /** Lower-case `SystemType` as hcsshim caches it (`container`, `virtualmachine`). */
  get systemType(): string {
    return this.#typ;
  }
  /** Lower-case `RuntimeOsType` (`windows` when HCS gave none for a container, as before RS5). */
  get os(): string {
    return this.#os;
  }
  get owner(): string {
    return this.#owner;
  }
  /** Whether `close()` was called. */
  get closed(): boolean {
    return this.#closed;
  }
  /** The exit seen (SystemExited, or a Stopped state when opened), if any. */
  get exit(): SystemExit | undefined {
    return this.#exit;
  }

  /** hcsshim's `getCachedProperties`: keep SystemType, RuntimeOsType and Owner lower-cased. */
  cache(p: ComputeSystemProperties): void {
    this.#typ = String(p.SystemType ?? '').toLowerCase();
    this.#os = String(p.RuntimeOsType ?? '').toLowerCase();
    this.#owner = String(p.Owner ?? '').toLowerCase();
    if (this.#os === '' && this.#typ === 'container') this.#os = 'windows';
    // opened after it stopped: no SystemExited will come, the state says it
    if (p.State === 'Stopped' && !this.#exit) this.#exited({ exitType: p.ExitType ?? 'Unknown' });
  }

  #notification(e: HcsNotificationEvent): void {
    if (e.notification === 'SystemExited') {
      const exitType = (e.data?.['ExitType'] ?? 'Unknown') as SystemExitType;
      const status = e.data?.['Status'];
      this.#exited(typeof status === 'number' ? { exitType, status: status >>> 0 } : { exitType });
    } else if (e.notification === 'ServiceDisconnect' && !this.#exit) {
      // hcsshim's waitBackground: the abort becomes waitError and the wait ends
      this.#endWait(
        new SystemError('hcs::System::waitBackground', this.#id, new UnexpectedProcessAbortError()),
      );
    }
  }

  #exited(x: SystemExit): void {
    if (this.#exit || this.#waitError) return;
    this.#exit = x;
    const w = this.#waiters;
    this.#waiters = [];
    for (const x2 of w) x2.resolve(x);
  }

  #endWait(err: Error): void {
    if (this.#exit || this.#waitError) return;
    this.#waitError = err;
    const w = this.#waiters;
    this.#waiters = [];
    for (const x of w) x.reject(err);
  }

  async #call(op: string, method: HcsApiMethod, ...args: unknown[]): Promise<Json> {
    if (this.#closed) throw new SystemError(op, this.#id, new AlreadyClosedError());
    return this.#client.call(
      method,
      [this.#id, ...args],
      (code, detail) => new SystemError(op, this.#id, code, detail),
    );
  }

  /** `hcs::System::Start` (hcsshim passes empty options). */
  async start(): Promise<void> {
    await this.#call('hcs::System::Start', 'HcsStartComputeSystem', '');
  }

  /**
   * `hcs::System::Shutdown`: a graceful stop. Resolves at once when the handle is closed or the
   * exit was seen, and when HCS answers already-stopped or not-found (`STOP_SWALLOWED`), as hcsshim
   * does.
   */
  async shutdown(): Promise<void> {
    await this.#stop('hcs::System::Shutdown', 'HcsShutdownComputeSystem');
  }

  /** `hcs::System::Terminate`: a forced stop, swallowing as `shutdown()` does. */
  async terminate(): Promise<void> {
    await this.#stop('hcs::System::Terminate', 'HcsTerminateComputeSystem');
  }

  async #stop(op: string, method: HcsApiMethod): Promise<void> {
    if (this.#closed || this.#exit) return;
    try {
      await this.#call(op, method, '');
    } catch (e) {
      if (e instanceof SystemError && e.errno !== undefined && STOP_SWALLOWED.includes(e.hresult)) return;
      throw e;
    }
  }

  /** `hcs::System::Pause`. */
  async pause(): Promise<void> {
    await this.#call('hcs::System::Pause', 'HcsPauseComputeSystem', '');
  }

  /** `hcs::System::Resume`. */
  async resume(): Promise<void> {
    await this.#call('hcs::System::Resume', 'HcsResumeComputeSystem', '');
  }

  /** `hcs::System::Modify`: the request is marshalled to JSON, as hcsshim does. */
  async modify(settings: object): Promise<void> {
    await this.#call('hcs::System::Modify', 'HcsModifyComputeSystem', JSON.stringify(settings));
  }

  /** `hcs::System::Properties`: the properties document for a query (`{}` by default). */
  async properties(query: PropertyQuery = {}): Promise<ComputeSystemProperties> {
    const op = 'hcs::System::Properties';
    const r = await this.#call(op, 'HcsGetComputeSystemProperties', JSON.stringify(query));
    return propertiesOf(r, op);
  }

  /**
   * `hcs::System::Close`: closes the handle (HcsCloseComputeSystem, which returns nothing, so a
   * failure is not reported) and stops listening. A wait still pending fails with
   * ErrAlreadyClosed, as hcsshim's Close releases its waiters. A second close does nothing.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.#client.call(
        'HcsCloseComputeSystem',
        [this.#id],
        (c) => new SystemError('hcs::System::Close', this.#id, c),
      );
    } catch {
      // computecore's HcsCloseComputeSystem is void: there is nothing to report
    } finally {
      this.#unwatch?.();
      this.#unwatch = undefined;
      // (the error only matters to waiters of a system that has not exited: not built otherwise)
      if (!this.#exit && !this.#waitError) this.#endWait(new AlreadyClosedError());
    }
  }

  /** Stop listening without closing anything: the handle never opened (a failed create or open). */
  discard(): void {
    this.#closed = true;
    this.#unwatch?.();
    this.#unwatch = undefined;
  }

  /**
   * Resolves with the exit once a SystemExited notification for this system arrives, or at once if
   * it already stopped (hcsshim's Wait). Rejects with ErrAlreadyClosed if the handle closes first,
   * with ErrUnexpectedProcessAbort (in a SystemError) if the service disconnects first. Needs the
   * client's notifications (`HcsClient.forHost`); without them it asks the system's state once and
   * rejects if it is still running.
   */
  async waitExited(): Promise<SystemExit> {
    if (this.#exit) return this.#exit;
    if (this.#waitError) throw this.#waitError;
    if (this.#closed) throw new AlreadyClosedError();
    if (!this.#client.hasNotifications) {
      this.cache(await this.properties());
      if (this.#exit) return this.#exit;
      throw new HcsClientError(
        'E_NOTIMPL',
        `hcsshim: no notifications: ${this.#id} is running and this client cannot wait for its exit`,
      );
    }
    return new Promise<SystemExit>((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /**
   * hcsshim's `ExitError()`: undefined after a graceful or forced exit, the wait error after a
   * disconnect, and for an UnexpectedExit a SystemError of ErrVmcomputeUnexpectedExit (0xC0370106,
   * in both API versions). Before the exit: hcsshim's "container not exited".
   */
  exitError(): Error | undefined {
    if (this.#waitError) return this.#waitError;
    if (!this.#exit) return new HcsClientError('E_FAIL', 'container not exited');
    if (this.#exit.exitType === 'UnexpectedExit')
      return new SystemError('hcs::System::waitBackground', this.#id, 'ERROR_VMCOMPUTE_UNEXPECTED_EXIT');
    return undefined;
  }
}

/** A properties answer as a document, or hcsshim's ErrUnexpectedValue. */
export function propertiesOf(r: Json, op: string): ComputeSystemProperties {
  if (r === null || typeof r !== 'object' || Array.isArray(r) || typeof r['Id'] !== 'string')
    throw new HcsClientError('E_UNEXPECTED', `${op}: unexpected value returned from hcs`);
  return r as ComputeSystemProperties;
}
