/**
 * A fresh HNS service with the flat API for the v1 tests, and helpers that call `HNSCall` the way
 * hcsshim's `internal/hns` does (JSON strings in, `{Success, Error, Output}` out).
 */
import { expect } from 'vitest';
import { FlatApi, isFailure, type HcnResult } from '../../../src/api/flat.js';
import { Clock } from '../../../src/core/clock.js';
import { HnsError, HRESULTS, type HResultName } from '../../../src/core/errors.js';
import { EventBus } from '../../../src/core/events.js';
import type { Json, JsonObject } from '../../../src/core/json.js';
import { Rng } from '../../../src/core/rng.js';
import { HnsService } from '../../../src/hns/service.js';
import { parseAdapterSpecs, type AdapterSpec } from '../../../src/hns/adapters.js';
import { PROFILES } from '../../../src/hns/versions.js';
import {
  v1EndpointView,
  v1NamespaceView,
  v1NetworkView,
  v1PolicyListView,
} from '../../../src/hns/v1/views.js';

export const GUID_UPPER = /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/;

/**
 * `Health` of a v1 object created at simulated time 0: the host boots at 2026-01-01T00:00:00Z, and
 * LastUpdateTime is a FILETIME (100 ns ticks since 1601-01-01): (1767225600 + 11644473600) s × 10^7.
 */
export const V1_HEALTH_AT_BOOT = { LastErrorCode: 0, LastUpdateTime: 134116992000000000 };

/**
 * The v1 `Extensions` of a network on a ws2022 host (`Get-HnsNetwork` on WS2022 20348.2700,
 * kubernetes-sigs/sig-windows-tools#378; OVS listed as a host with it installed lists it, after WFP),
 * with VFP and OVS in the given states (NDIS Capture on, as Windows ships it).
 */
export function ws2022Extensions(vfp: boolean, ovs = false): JsonObject[] {
  return [
    {
      Id: 'E7C3B2F0-F3C5-48DF-AF2B-10FED6D72E7A',
      IsEnabled: false,
      Name: 'Microsoft Windows Filtering Platform',
    },
    { Id: '583CC151-73EC-4A6A-8B47-578297AD7623', IsEnabled: ovs, Name: 'Open vSwitch Extension' },
    {
      Id: 'F74F241B-440F-4433-BB28-00F89EAD20D8',
      IsEnabled: vfp,
      Name: 'Microsoft Azure VFP Switch Extension',
    },
    { Id: '430BDADD-BAB0-41AB-A369-94B67FA5BE0A', IsEnabled: true, Name: 'Microsoft NDIS Capture' },
  ];
}

export interface Host {
  readonly hns: HnsService;
  readonly api: FlatApi;
  /** HNSCall with a JSON-string request (objects are marshalled first, as hcsshim does); the call must not fail. */
  call(method: string, path: string, request?: unknown): JsonObject;
  /** A successful HNSCall's Output. */
  ok(method: string, path: string, request?: unknown): Json;
}

export function makeHost(
  profile = 'ws2022',
  seed = 1,
  nics: readonly AdapterSpec[] = [{ name: 'Ethernet', ipAddress: '10.0.0.4/24', gateway: '10.0.0.1' }],
): Host {
  const hns = new HnsService({
    profile: PROFILES[profile]!,
    rng: new Rng(seed),
    clock: new Clock(),
    events: new EventBus(),
    // the node's NIC: the management IP the v1 views report for external-switch networks
    adapters: parseAdapterSpecs(nics, seed),
  });
  const api = new FlatApi(hns);
  const call = (method: string, path: string, request?: unknown): JsonObject => {
    const body = request === undefined ? '' : typeof request === 'string' ? request : JSON.stringify(request);
    return unwrap(api.HNSCall(method, path, body));
  };
  const ok = (method: string, path: string, request?: unknown): Json => {
    const r = call(method, path, request);
    expect(r, `${method} ${path}`).toMatchObject({ Success: true });
    return r['Output'] ?? null;
  };
  return { hns, api, call, ok };
}

export function unwrap<T>(r: HcnResult<T>): T {
  if (isFailure(r)) throw new Error(`call failed: ${r.name} ${r.message}`);
  return r.result;
}

/** The v1 failure response for a registered HRESULT: the ErrorRecord text, the code as a signed int32. */
export function v1Error(name: HResultName): JsonObject {
  return {
    Success: false,
    Error: new HnsError(name).errorRecord().Error,
    ErrorCode: HRESULTS[name].code | 0,
  };
}

/** What hcsshim's internal/hns hnsCall returns as the Go error text for a Success:false response. */
export function hcsshimError(response: JsonObject): string {
  return `hns failed with error : ${String(response['Error'])}`;
}

/** Everything observable in the store, for "a failed call leaves no trace" checks. */
export function snapshot(h: Host): string {
  const s = h.hns.store;
  return JSON.stringify({
    networks: [...s.networks.values()].map((n) => v1NetworkView(h.hns, n)),
    endpoints: [...s.endpoints.values()].map((e) => v1EndpointView(h.hns, e)),
    namespaces: [...s.namespaces.values()].map(v1NamespaceView),
    policyLists: [...s.policyLists.values()].map(v1PolicyListView),
    lbClaims: [...s.lbClaims],
    refs: [...s.endpointRefs].map(([k, v]) => [k, [...v]]),
    claims: [...s.alloc].map(([k, a]) => [k, [...a.claims], a.pools.map((p) => p.used), a.macs.used]),
    seq: s.seq,
    rng: h.hns.deps.rng.state(),
  });
}

export const asObj = (v: Json | undefined): JsonObject => v as JsonObject;
export const asArr = (v: Json | undefined): JsonObject[] => v as JsonObject[];
