/**
 * The asynchronous boundary between clients and the service. Real HNS calls block on an RPC; here a
 * call is a promise that takes effect atomically when it resolves, so tests can interleave clients
 * deterministically. Middleware (faults, latency, tracing) wraps a transport rather than branching
 * inside the service (STYLE.md, smoltcp's fault_injector).
 */
import type { Json } from '../core/json.js';
import type { FlatApi, FlatApiMethod, HcnResult } from './flat.js';

export interface HnsCall {
  readonly method: FlatApiMethod;
  readonly args: readonly unknown[];
}

export interface HnsTransport {
  call(call: HnsCall): Promise<HcnResult<Json>>;
}

/** Calls the flat API on the next microtask: the effect happens when the promise settles. */
export class DirectTransport implements HnsTransport {
  constructor(private readonly api: FlatApi) {}

  async call(call: HnsCall): Promise<HcnResult<Json>> {
    await Promise.resolve();
    const r = this.api.call(call.method, call.args as Json[]);
    if (!r) throw new TypeError(`unknown HNS method ${call.method}`);
    return r;
  }
}
