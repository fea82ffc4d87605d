/**
 * The typed HCS client: hcsshim's `internal/hcs/v2` package-level functions (reference
 * hcs-lifecycle.md §1; DESIGN "The typed client and the flat API") as one object bound to a
 * transport — `createComputeSystem`, `openComputeSystem`, `getComputeSystems` — handing out
 * `System`s. Every call is one flat Hcs* call through `transport.call`, so the fault layer sees it;
 * exit notifications come from the host's event bus (hcsshim's notification callback).
 *
 *   const hcs = HcsClient.forHost(createHost());
 *   const c = await hcs.createComputeSystem('c1', {
 *     SchemaVersion: { Major: 2, Minor: 1 }, Owner: 'containerd',
 *     Container: { Networking: { Namespace: ns.ID } },
 *   });
 *   await c.start();
 *   try { await hcs.openComputeSystem('gone'); } catch (e) { if (isNotExist(e)) … }
 */
import { HnsError } from '../../core/errors.js';
import type { HcsNotificationEvent } from '../../core/events.js';
import type { Json } from '../../core/json.js';
import type { HcnResult, HcsApiMethod } from '../flat.js';
import type { HnsTransport } from '../transport.js';
import { HcsClientError, HcsError, SystemError } from './errors.js';
import { propertiesOf, System, type ComputeSystemProperties } from './system.js';

/** Where HCS notifications come from: the host's event bus (`host.events`), or anything like it. */
export interface HcsNotificationSource {
  on(event: 'hcs.notification', fn: (e: HcsNotificationEvent) => void): unknown;
  off(event: 'hcs.notification', fn: (e: HcsNotificationEvent) => void): unknown;
}

export interface HcsClientOptions {
  /** HCS notifications (SystemExited, ServiceDisconnect), for `System.waitExited`. */
  readonly notifications?: HcsNotificationSource;
}

/** `HcsEnumerateComputeSystems`' query (schema1 `ComputeSystemQuery`): every list given must match. */
export interface ComputeSystemQuery {
  readonly Ids?: readonly string[];
  readonly Names?: readonly string[];
  readonly Types?: readonly string[];
  readonly Owners?: readonly string[];
}

type Listener = (e: HcsNotificationEvent) => void;

export class HcsClient {
  readonly #transport: HnsTransport;
  readonly #source: HcsNotificationSource | undefined;
  /** Listeners by lower-case system ID (hcsshim's notification context registry). */
  readonly #watchers = new Map<string, Set<Listener>>();
  #subscribed = false;
  readonly #onNotification = (e: HcsNotificationEvent): void => {
    if (e.system === undefined) return;
    const set = this.#watchers.get(e.system.toLowerCase());
    if (set) for (const fn of [...set]) fn(e);
  };

  constructor(transport: HnsTransport, options: HcsClientOptions = {}) {
    this.#transport = transport;
    this.#source = options.notifications;
  }

  /** A client of a simulated host: `host.transport` (faults included) and `host.events`. */
  static forHost(host: {
    readonly transport: HnsTransport;
    readonly events: HcsNotificationSource;
  }): HcsClient {
    return new HcsClient(host.transport, { notifications: host.events });
  }

  get transport(): HnsTransport {
    return this.#transport;
  }

  /** Whether exits can be waited for (a notification source was given). */
  get hasNotifications(): boolean {
    return this.#source !== undefined;
  }

  /**
   * Listen to the notifications of one compute system (what `System` does from its creation to its
   * close); returns the function that stops listening. The client holds one listener on the source
   * while any system is watched.
   */
  watch(id: string, fn: Listener): () => void {
    const k = id.toLowerCase();
    let set = this.#watchers.get(k);
    if (!set) this.#watchers.set(k, (set = new Set()));
    set.add(fn);
    if (this.#source && !this.#subscribed) {
      this.#source.on('hcs.notification', this.#onNotification);
      this.#subscribed = true;
    }
    return () => {
      set.delete(fn);
      if (set.size === 0 && this.#watchers.get(k) === set) this.#watchers.delete(k);
      if (this.#watchers.size === 0 && this.#subscribed) {
        this.#source?.off('hcs.notification', this.#onNotification);
        this.#subscribed = false;
      }
    };
  }

  /**
   * One flat Hcs* call; a failure (returned, or thrown by the transport as an HnsError) becomes
   * the error `fail` builds from its code and the service's detail.
   */
  async call(
    method: HcsApiMethod,
    args: readonly unknown[],
    fail: (code: number, detail: { detail?: string }) => Error,
  ): Promise<Json> {
    let r: HcnResult<Json>;
    try {
      r = await this.#transport.call({ method, args });
    } catch (e) {
      if (e instanceof HnsError) throw fail(e.hresult, { detail: e.message });
      throw e;
    }
    if (!r.ok) throw fail(r.hr, { detail: r.message });
    return r.result;
  }

  /**
   * hcsshim's `CreateComputeSystem(ctx, id, document)`: create (`hcs::CreateComputeSystem`), then
   * read and cache the properties as hcsshim does (`hcs::System::Properties`); if that read fails,
   * the new system is terminated and closed, as hcsshim's deferred cleanup does. `document` is
   * marshalled to JSON (a string is sent as it is).
   */
  async createComputeSystem(id: string, document: object | string): Promise<System> {
    const op = 'hcs::CreateComputeSystem';
    const system = new System(this, id);
    const doc = typeof document === 'string' ? document : JSON.stringify(document);
    try {
      await this.call('HcsCreateComputeSystem', [id, doc], (c, d) => new SystemError(op, id, c, d));
    } catch (e) {
      // no handle was opened: nothing to terminate or close (hcsshim's cleanup is a no-op then)
      system.discard();
      throw e;
    }
    try {
      system.cache(await system.properties());
    } catch (e) {
      await system.terminate().catch(() => undefined);
      await system.close();
      throw e;
    }
    return system;
  }

  /**
   * hcsshim's `OpenComputeSystem(ctx, id)`: a handle to an existing system (`hcs::OpenComputeSystem`;
   * the flat API is handle-free, so opening is reading its properties, which are cached). A system
   * that already stopped resolves `waitExited()` at once.
   */
  async openComputeSystem(id: string): Promise<System> {
    const op = 'hcs::OpenComputeSystem';
    const system = new System(this, id);
    try {
      const r = await this.call(
        'HcsGetComputeSystemProperties',
        [id, '{}'],
        (c, d) => new SystemError(op, id, c, d),
      );
      system.cache(propertiesOf(r, op));
    } catch (e) {
      system.discard();
      throw e;
    }
    return system;
  }

  /** hcsshim's `GetComputeSystems(ctx, query)` (`hcs::GetComputeSystems`): the properties of each match. */
  async getComputeSystems(query: ComputeSystemQuery = {}): Promise<ComputeSystemProperties[]> {
    const op = 'hcs::GetComputeSystems';
    const r = await this.call(
      'HcsEnumerateComputeSystems',
      [JSON.stringify(query)],
      (c, d) => new HcsError(op, c, d),
    );
    if (!Array.isArray(r))
      throw new HcsClientError('E_UNEXPECTED', `${op}: unexpected value returned from hcs`);
    return r.map((p) => propertiesOf(p, op));
  }
}
