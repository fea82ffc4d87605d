/**
 * Client-side pieces of the Calico and Azure vectors (calico.test.ts, azure.test.ts), written from the
 * upstream clients: hcsshim's v1 `hnsCall` (microsoft/hcsshim v0.14.1 fb5aa2e9,
 * `internal/hns/hnsfuncs.go` L14–50: `{"Success","Error","Output"}`, Success false → error), the v1
 * `HNSEndpoint` struct a Go client unmarshals into and marshals back (`internal/hns/hnsendpoint.go`
 * L36–60), Go's `net.ParseMAC` / `HardwareAddr.String()`, and hcsshim's create → default-query flow
 * with request text sent byte for byte. Facts: /work/research/calico.md §1, azure.md §0.
 */
import { expect } from 'vitest';
import type { Json, JsonObject } from '../../src/core/json.js';
import type { Host } from '../../src/host/host.js';
import { goHardwareAddrString, goParseMac } from './client-flow.js';
import { ok, type HcsshimFlow } from './hcsshim-flow.js';
import { ZERO_GUID } from './hcsshim-vectors.js';

/** hcsshim's `hnsCall(method, path, request)` with the request text exactly as the client sends it. */
export function v1Call(host: Host, method: string, path: string, body = ''): JsonObject {
  return ok(host.api.HNSCall(method, path, body), `HNSCall ${method} ${path}`);
}

/** `hnsCall` as hcsshim uses it: Success must be true (else `hns failed with error : …`); the Output. */
export function v1Ok(host: Host, method: string, path: string, body = ''): Json | undefined {
  const resp = v1Call(host, method, path, body);
  expect(resp.Success, `${method} ${path}: ${String(resp.Error)}`).toBe(true);
  return resp.Output;
}

/** `GetHNSNetworkByName` / `GetHNSEndpointByName`: GET the list, pick `Name` (exact case, L79). */
export function v1ByName(
  host: Host,
  resource: 'networks' | 'endpoints',
  name: string,
): JsonObject | undefined {
  const list = v1Ok(host, 'GET', `/${resource}/`) as JsonObject[];
  expect(Array.isArray(list)).toBe(true);
  return list.find((x) => x.Name === name);
}

/** hcsshim `HNSEndpoint` fields, in struct order, all `omitempty` (`internal/hns/hnsendpoint.go` L36–60). */
const V1_ENDPOINT_FIELDS = [
  'ID',
  'Name',
  'VirtualNetwork',
  'VirtualNetworkName',
  'Policies',
  'MacAddress',
  'IPAddress',
  'IPv6Address',
  'DNSSuffix',
  'DNSServerList',
  'DNSDomain',
  'GatewayAddress',
  'GatewayAddressV6',
  'EnableInternalDNS',
  'DisableICC',
  'PrefixLength',
  'IPv6PrefixLength',
  'IsRemoteEndpoint',
  'EnableLowMetric',
  'Namespace',
  'EncapOverhead',
  'SharedContainers',
  'State',
] as const;

/** hcsshim `Namespace` (`internal/hns/namespace.go`): `ID`, then omitempty `IsDefault, ResourceList, CompartmentId`. */
const V1_NAMESPACE_FIELDS = ['ID', 'IsDefault', 'ResourceList', 'CompartmentId'] as const;

function goZero(v: Json | undefined): boolean {
  return (
    v === undefined ||
    v === null ||
    v === '' ||
    v === 0 ||
    v === false ||
    (Array.isArray(v) && v.length === 0)
  );
}

/**
 * The v1 endpoint as a Go client holds it after `json.Unmarshal` and writes it with `json.Marshal`:
 * only hcsshim's fields, in struct order, zero values omitted; fields HNS adds (`ActivityId`,
 * `Health`, …) are dropped. `Policies` are `[]json.RawMessage`, kept as HNS returned them.
 */
export function goV1Endpoint(obj: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const k of V1_ENDPOINT_FIELDS) {
    const v = obj[k];
    if (goZero(v)) continue;
    if (k === 'Namespace' && v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const ns: JsonObject = { ID: v.ID ?? '' };
      for (const f of V1_NAMESPACE_FIELDS.slice(1)) if (!goZero(v[f])) ns[f] = v[f]!;
      out[k] = ns;
    } else out[k] = v!;
  }
  return out;
}

/** Go's `net.ParseMAC` (6 octets, any of its three spellings): client-flow.ts's. */
export { goParseMac };

/** `net.ParseMAC(s).String()`, failing the test when Go would return an error. */
export function goMac(s: unknown): string {
  const parsed = typeof s === 'string' ? goParseMac(s) : undefined;
  expect(parsed, `net.ParseMAC(${JSON.stringify(s)})`).toBeDefined();
  return goHardwareAddrString(parsed!);
}

/** hcsshim `endpoint.Create()` / `network.Create()` with the body text as marshalled: create, then the default query. */
export function createEndpointText(hcn: HcsshimFlow, networkId: string, body: string): JsonObject {
  const created = ok(hcn.host.api.HcnCreateEndpoint(networkId, ZERO_GUID, body), 'HcnCreateEndpoint');
  return hcn.get('Endpoint', String(created.ID));
}

export function createNetworkText(hcn: HcsshimFlow, body: string): JsonObject {
  const created = ok(hcn.host.api.HcnCreateNetwork(ZERO_GUID, body), 'HcnCreateNetwork');
  return hcn.get('Network', String(created.ID));
}

/** `HcnModifyNetwork` / `HcnModifyEndpoint` / `HcnModifyNamespace` with the request text, then the default query. */
export function modifyText(
  hcn: HcsshimFlow,
  kind: 'Network' | 'Endpoint' | 'Namespace',
  id: string,
  body: string,
) {
  const api = hcn.host.api;
  const r =
    kind === 'Network'
      ? api.HcnModifyNetwork(id, body)
      : kind === 'Endpoint'
        ? api.HcnModifyEndpoint(id, body)
        : api.HcnModifyNamespace(id, body);
  ok(r, `HcnModify${kind}`);
  return hcn.get(kind, id);
}

/** The `Policies` of an object as JSON objects (empty when omitted). */
export function policiesOf(obj: JsonObject | undefined): JsonObject[] {
  const p = obj?.Policies;
  return Array.isArray(p) ? (p as JsonObject[]) : [];
}

/** Policies whose `Type` is `type`, compared as Go's `==` on the string (exact case). */
export function policiesOfType(obj: JsonObject | undefined, type: string): JsonObject[] {
  return policiesOf(obj).filter((p) => p.Type === type);
}
