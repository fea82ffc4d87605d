/**
 * What flanneld's Windows backends share (reference cni-windows.md §5.2, §5.3): the external
 * interface looked up when the backend is made, the log, and the lease loop — `WatchLeases` turns
 * lease events (or a `Reset` snapshot) into batches through the `LeaseWatcher`, and each backend's
 * `handleSubnetEvents` (`handle`) acts on a batch.
 */
import type { FlanneldOptions } from './hostgw.js';
import {
  clockSleep,
  lookupExtIface,
  pollUntil,
  type ExternalInterface,
  type FlanneldHost,
  type FlanneldLogEntry,
  type FlanneldLogLevel,
  type Sleep,
} from './host.js';
import type { LeaseWatcher } from './lease.js';
import { parseLease, type Lease, type LeaseEvent, type LeaseEventType, type ParsedLease } from './lease.js';

/** How long the backends wait between HNS polls and in all (500 ms, 5 s in each backend's Go). */
export const WAIT_INTERVAL = 500;
export const WAIT_TIMEOUT = 5_000;

/** One batch of lease events as the backend's `handleSubnetEvents` receives it. */
export type LeaseBatch = readonly { type: LeaseEventType; lease: ParsedLease }[];

export abstract class FlanneldBackend {
  readonly log: FlanneldLogEntry[] = [];
  /** flanneld's external interface, looked up when the backend is made. */
  readonly ext: ExternalInterface;
  protected readonly host: FlanneldHost;
  protected readonly options: FlanneldOptions;
  protected readonly sleep: Sleep;
  /** Set by the backend's `setup`. */
  protected watcher: LeaseWatcher | undefined;

  /** How the backend calls itself when used before `setup` (`host-gw`, `vxlan`). */
  protected abstract readonly backendName: string;

  constructor(host: FlanneldHost, options: FlanneldOptions = {}) {
    this.host = host;
    this.options = options;
    this.sleep = options.sleep ?? clockSleep(host.clock);
    this.ext = lookupExtIface(host, options);
  }

  protected logEntry(level: FlanneldLogLevel, message: string): void {
    this.log.push({ level, time: this.host.clock.now(), message });
  }

  /** The other nodes' leases the backend knows (the lease watcher's set). */
  get leases(): readonly Lease[] {
    return (this.watcher?.leases ?? []).map((l) => l.lease);
  }

  /** A lease was added (or changed). */
  onLeaseAdded(remote: Lease): Promise<void> {
    return this.handleEvents([{ type: 'added', lease: remote }]);
  }

  /** A lease went away. */
  onLeaseRemoved(remote: Lease): Promise<void> {
    return this.handleEvents([{ type: 'removed', lease: remote }]);
  }

  /** `WatchLeases` → `handleSubnetEvents` for one batch of events. */
  async handleEvents(events: readonly LeaseEvent[]): Promise<void> {
    const watcher = this.ready();
    const parsed = events.map((e) => ({ type: e.type, lease: parseLease(e.lease) }));
    await this.handle(watcher.update(parsed));
  }

  /** A snapshot of every lease (`LeaseWatcher.Reset`): adds new ones, removes vanished ones. */
  async resync(leases: readonly Lease[]): Promise<void> {
    const watcher = this.ready();
    await this.handle(watcher.reset(leases.map((l) => parseLease(l))));
  }

  /** `pollUntil` on the node's clock with the backend's sleep. */
  protected pollUntil(
    intervalMs: number,
    timeoutMs: number,
    condition: () => Promise<boolean>,
  ): Promise<boolean> {
    return pollUntil(this.host.clock, this.sleep, intervalMs, timeoutMs, condition);
  }

  protected ready(): LeaseWatcher {
    if (!this.watcher) throw new Error(`${this.backendName}: setup() has not run`);
    return this.watcher;
  }

  /** The backend's `handleSubnetEvents`. */
  protected abstract handle(batch: LeaseBatch): Promise<void>;
}
