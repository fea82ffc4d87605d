/**
 * `vmcompute.dll!HNSCall(method, path, request)`: the legacy HNS v1 API (reference hns-hcs.md §3,
 * §0.3, §0.4) routed onto the same service and store as HCN v2, so an object created through one
 * API is visible through the other.
 *
 * The response is `{"Success":true,"Output":…}` (Output omitted when there is nothing to return:
 * DELETE, attach, detach) or `{"Success":false,"Error":"<message>","ErrorCode":<int32 HRESULT>}`:
 * hcsshim turns the latter into `hns failed with error : <Error>`. The call itself fails (throws an
 * HnsError) on a duplicate endpoint IP (0x80071392, as Windows does) and when it is malformed: a
 * method other than GET/POST/DELETE or a path that is not a string → E_INVALIDARG; a request that
 * is not JSON, or not a JSON object where a body is needed →
 * HCN_E_INVALID_JSON; a path no route matches → HCN_E_REQUEST_UNSUPPORTED (our choice; hcsshim then
 * reports `hnsCall failed in Win32: …`). Paths are case-insensitive, a trailing slash is optional,
 * GUIDs are read in any case and emitted upper-case.
 *
 *   hnsCall(hns, 'GET', '/globals/version', '') // {"Success":true,"Output":{"Major":15,"Minor":0}}
 */
import { HnsError, hnsError, type HResultLabel, type HResultName } from '../../core/errors.js';
import { parseGuid } from '../../core/guid.js';
import { isJsonObject, Reader, toJson, type Json, type JsonObject } from '../../core/json.js';
import type { EndpointRec } from '../model.js';
import type { ParsedPolicy } from '../policy/contracts.js';
import { parsePolicies, serializePolicy } from '../policy/registry.js';
import { formatMac, parseMac } from '../../addr/mac.js';
import { supports } from '../versions.js';
import { readDns } from '../schema/common.js';
import { applyPolicyRequest, type HnsService } from '../service.js';
import { setNetworkExtensions } from '../networks.js';
import { attachEndpoint, detachEndpoint, readAttachRequest } from './attach.js';
import {
  V1_ENDPOINT_DNS_KEYS,
  completeV1Gateways,
  v1EndpointExtras,
  v1EndpointToV2,
  v1NetworkExtras,
  v1NetworkToV2,
} from './convert.js';
import { createPolicyList, deletePolicyList, getPolicyList, listPolicyLists } from './policylist.js';
import {
  OVERLAY_ENCAP_OVERHEAD,
  v1EndpointView,
  v1NamespaceView,
  v1NetworkView,
  v1PolicyListView,
} from './views.js';

export type HnsMethod = 'GET' | 'POST' | 'DELETE';
const METHODS: readonly HnsMethod[] = ['GET', 'POST', 'DELETE'];

/** The v1 response document. */
export type HnsResponse = JsonObject;

/** What a route handler gets: the parsed ID segment (if any) and the request body. */
interface Call {
  readonly hns: HnsService;
  /** The raw ID segment of the path ("" when absent). */
  readonly idText: string;
  readonly body: JsonObject;
}

type Handler = (c: Call) => Json | undefined;

interface Route {
  readonly resource: string;
  /** Whether the path has an ID segment. */
  readonly withId: boolean;
  /** Sub-resource after the ID (`attach`, `addresource`, …), or '' . */
  readonly action: string;
  readonly method: HnsMethod;
  /** Whether the request must carry a JSON object body (absent = `{}`). */
  readonly needsBody: boolean;
  readonly handler: Handler;
}

// ─────────────────────────────── IDs ───────────────────────────────

function idOf(c: Call, notFound: HResultName): string {
  if (c.idText === '') throw hnsError(notFound, 'no ID in the path');
  const id = parseGuid(c.idText);
  if (!id) throw hnsError('HCN_E_GUID_CONVERSION_FAILURE', `"${c.idText}"`);
  return id;
}

// ─────────────────────────────── networks ───────────────────────────────

function listNetworks(c: Call): Json {
  return [...c.hns.store.networks.values()].map((n) => v1NetworkView(c.hns, n));
}

function getNetwork(c: Call): Json {
  return v1NetworkView(c.hns, c.hns.getNetwork(idOf(c, 'HCN_E_NETWORK_NOT_FOUND')));
}

function createNetwork(c: Call): Json {
  const doc = v1NetworkToV2(c.body, c.hns.profile.version);
  return v1NetworkView(c.hns, c.hns.createNetwork(null, doc, v1NetworkExtras(c.body)));
}

/**
 * `POST /networks/<id>`: update. microsoft/SDN hns.psm1 `Set-HnsSwitchExtension` sends
 * `{"Extensions":[{"Id","IsEnabled"}]}` (Antrea's EnableHNSNetworkExtension sends the same body):
 * each entry enables or disables an extension of the network's switch (src/hns/extensions.ts).
 * Other keys are ignored (our choice). Every entry is validated before any is applied.
 */
function updateNetwork(c: Call): Json {
  const id = idOf(c, 'HCN_E_NETWORK_NOT_FOUND');
  c.hns.getNetwork(id);
  const r = new Reader(c.body, 'HCN_E_INVALID_JSON', '$');
  const exts = r.objs('Extensions').map((x) => {
    const extId = parseGuid(x.optStr('Id') ?? '');
    if (!extId) throw hnsError('HCN_E_GUID_CONVERSION_FAILURE', `${x.path}.Id`);
    return { Id: extId, IsEnabled: x.optBool('IsEnabled') ?? false };
  });
  setNetworkExtensions(c.hns, id, exts);
  return v1NetworkView(c.hns, c.hns.getNetwork(id));
}

function deleteNetwork(c: Call): undefined {
  c.hns.deleteNetwork(idOf(c, 'HCN_E_NETWORK_NOT_FOUND'));
  return undefined;
}

// ─────────────────────────────── endpoints ───────────────────────────────

function listEndpoints(c: Call): Json {
  return [...c.hns.store.endpoints.values()].map((e) => v1EndpointView(c.hns, e));
}

function getEndpoint(c: Call): Json {
  return v1EndpointView(c.hns, c.hns.getEndpoint(idOf(c, 'HCN_E_ENDPOINT_NOT_FOUND')));
}

/**
 * The network of a v1 endpoint body: `VirtualNetwork` (a GUID), else `VirtualNetworkName` (exact
 * name, case-insensitive like network names). Both given and naming different networks →
 * HCN_E_INVALID_ENDPOINT; neither or unknown → HCN_E_NETWORK_NOT_FOUND.
 */
function networkOfBody(hns: HnsService, body: JsonObject): string {
  const r = new Reader(body, 'HCN_E_INVALID_JSON', '$');
  const byIdText = r.optStr('VirtualNetwork') ?? '';
  const name = r.optStr('VirtualNetworkName') ?? '';
  let byId: string | undefined;
  if (byIdText !== '') {
    byId = parseGuid(byIdText);
    if (!byId) throw hnsError('HCN_E_GUID_CONVERSION_FAILURE', `VirtualNetwork "${byIdText}"`);
  }
  let byName: string | undefined;
  if (name !== '') {
    byName = hns.store.networkByName.get(hns.store.nameKey(name));
    if (!byName && !byId) throw hnsError('HCN_E_NETWORK_NOT_FOUND', `VirtualNetworkName "${name}"`);
  }
  if (byId && byName && byId !== byName) {
    throw hnsError('HCN_E_INVALID_ENDPOINT', `VirtualNetwork ${byId} is not the network named "${name}"`);
  }
  const id = byId ?? byName;
  if (!id)
    throw hnsError('HCN_E_NETWORK_NOT_FOUND', 'neither VirtualNetwork nor VirtualNetworkName is given');
  return id;
}

function createEndpoint(c: Call): Json {
  const networkId = networkOfBody(c.hns, c.body);
  const doc = completeV1Gateways(v1EndpointToV2(c.body, c.hns.profile.version), c.hns.getNetwork(networkId));
  return v1EndpointView(
    c.hns,
    c.hns.createEndpoint(networkId, null, doc, {
      v1: true,
      v1Extras: v1EndpointExtras(c.body),
      createdV1: true,
    }),
  );
}

/**
 * `POST /endpoints/<id>` with the full v1 endpoint (hcsshim `HNSEndpoint.Update`, used by
 * ApplyACLPolicy/ApplyProxyPolicy): the policies are replaced by the body's; DNS is replaced when
 * the body has a DNS key (DNSSuffix, DNSServerList, DNSDomain), else kept. Addresses, MAC, routes
 * and flags are kept whatever the body says (our choice). A body `ID` other than the path's →
 * HCN_E_INVALID_ENDPOINT.
 */
function updateEndpoint(c: Call): Json {
  const id = idOf(c, 'HCN_E_ENDPOINT_NOT_FOUND');
  const e = c.hns.getEndpoint(id);
  const bodyId = new Reader(c.body, 'HCN_E_INVALID_JSON', '$').optStr('ID') ?? '';
  if (bodyId !== '' && parseGuid(bodyId) !== id) {
    throw hnsError('HCN_E_INVALID_ENDPOINT', `body ID "${bodyId}" is not the endpoint ${id}`);
  }
  const doc = v1EndpointToV2(c.body, c.hns.profile.version);
  const n = c.hns.getNetwork(e.HostComputeNetwork);
  const policies = parsePolicies(doc['Policies'], {
    version: c.hns.profile.version,
    scope: 'endpoint',
    networkType: n.Type,
    v1: true,
  });
  const hasDns = V1_ENDPOINT_DNS_KEYS.some((k) => c.body[k] !== undefined && c.body[k] !== null);
  const dns = hasDns ? readDns(new Reader(doc, 'HCN_E_INVALID_ENDPOINT', '$')) : undefined;
  // the EncapOverhead HNS reports on Overlay endpoints comes back in a round trip of the read-back
  // endpoint (Calico's ApplyACLPolicy): it is not a policy the caller set
  const reported =
    n.Type === 'Overlay' && !e.Policies.some((p) => p.type === 'EncapOverhead')
      ? policies.filter((p) => !(p.type === 'EncapOverhead' && isReportedOverhead(p)))
      : policies;
  // the body's policies replace those of their types, as an HCN Update does: Felix posts only
  // {"ID","Policies":[ACL…]} and the endpoint keeps its OutBoundNAT/ROUTE/PA (calico endpoint_mgr.go)
  const next = applyPolicyRequest(e.Policies, reported, 'Update', 'endpoint');
  return v1EndpointView(c.hns, c.hns.replaceEndpointPolicies(id, next, dns));
}

/** An EncapOverhead policy equal to what the v1 view reports by itself on Overlay endpoints. */
function isReportedOverhead(p: ParsedPolicy): boolean {
  return (
    JSON.stringify(serializePolicy(p)['Settings']) === JSON.stringify({ Overhead: OVERLAY_ENCAP_OVERHEAD })
  );
}

function deleteEndpoint(c: Call): undefined {
  c.hns.deleteEndpoint(idOf(c, 'HCN_E_ENDPOINT_NOT_FOUND'));
  return undefined;
}

function attach(c: Call): undefined {
  const id = idOf(c, 'HCN_E_ENDPOINT_NOT_FOUND');
  attachEndpoint(c.hns, id, readAttachRequest(c.body));
  return undefined;
}

function detach(c: Call): undefined {
  const id = idOf(c, 'HCN_E_ENDPOINT_NOT_FOUND');
  detachEndpoint(c.hns, id, readAttachRequest(c.body));
  return undefined;
}

/** The endpoint stats document: hcsshim `EndpointStats` (reference hns-hcs.md §3.2). */
export interface EndpointStatsDocument extends JsonObject {
  BytesReceived: number;
  BytesSent: number;
  DroppedPacketsIncoming: number;
  DroppedPacketsOutgoing: number;
  EndpointId: string;
  InstanceId: string;
  PacketsReceived: number;
  PacketsSent: number;
}

/**
 * The endpoint stats document (hcsshim `EndpointStats`, reference hns-hcs.md §3.2): the counters
 * the dataplane fed into the store (`HnsStore.countTraffic`), in hcsshim's field order. `InstanceId`
 * is the VM switch port when the endpoint has one, else the endpoint ID (our choice). v1
 * `/endpointstats/<id>` and HCN `HcnQueryEndpointStats` both answer with it.
 */
export function endpointStatsDocument(hns: HnsService, e: EndpointRec): EndpointStatsDocument {
  const t = hns.store.statsOf(e.ID);
  return {
    BytesReceived: t.BytesReceived,
    BytesSent: t.BytesSent,
    DroppedPacketsIncoming: t.DroppedPacketsIncoming,
    DroppedPacketsOutgoing: t.DroppedPacketsOutgoing,
    EndpointId: e.ID,
    InstanceId: e.VmPort?.PortId ?? e.ID,
    PacketsReceived: t.PacketsReceived,
    PacketsSent: t.PacketsSent,
  };
}

/** `GET /endpointstats/<id>`: the endpoint's traffic counters. */
function endpointStats(c: Call): Json {
  return endpointStatsDocument(c.hns, c.hns.getEndpoint(idOf(c, 'HCN_E_ENDPOINT_NOT_FOUND')));
}

// ─────────────────────────────── policy lists ───────────────────────────────

/** Every list, HCN load balancers included (one store, docs/model.md "Policy lists"). */
function listPolicyListsRoute(c: Call): Json {
  return listPolicyLists(c.hns).map(v1PolicyListView);
}

function getPolicyListRoute(c: Call): Json {
  return v1PolicyListView(getPolicyList(c.hns, idOf(c, 'ERROR_NOT_FOUND')));
}

function createPolicyListRoute(c: Call): Json {
  return v1PolicyListView(createPolicyList(c.hns, c.body));
}

function deletePolicyListRoute(c: Call): undefined {
  deletePolicyList(c.hns, idOf(c, 'ERROR_NOT_FOUND'));
  return undefined;
}

// ─────────────────────────────── namespaces ───────────────────────────────

function listNamespaces(c: Call): Json {
  return [...c.hns.store.namespaces.values()].map(v1NamespaceView);
}

function getNamespace(c: Call): Json {
  return v1NamespaceView(c.hns.getNamespace(idOf(c, 'ERROR_NOT_FOUND')));
}

/** `POST /namespaces/` `{"IsDefault":bool}`: IsDefault takes compartment 1 (service rule). */
function createNamespace(c: Call): Json {
  const r = new Reader(c.body, 'HCN_E_INVALID_JSON', '$');
  const isDefault = r.optBool('IsDefault') ?? false;
  const id = r.optStr('ID');
  return v1NamespaceView(c.hns.createNamespace(id ?? null, {}, { isDefault }));
}

function deleteNamespace(c: Call): undefined {
  c.hns.deleteNamespace(idOf(c, 'ERROR_NOT_FOUND'));
  return undefined;
}

/**
 * `POST /namespaces/<id>/addresource|removeresource` `{"Type":"Endpoint"|"Container","Data":{"Id"}}`
 * → HCN namespace modify (Endpoint: `EndpointId`; Container: `ContainerId`). A resource missing on
 * remove is "Element not found." (hcsshim maps it to os.ErrNotExist).
 */
function namespaceResource(requestType: 'Add' | 'Remove'): Handler {
  return (c) => {
    const id = idOf(c, 'ERROR_NOT_FOUND');
    c.hns.getNamespace(id);
    const r = new Reader(c.body, 'HCN_E_INVALID_JSON', '$');
    const type = r.optStr('Type') ?? '';
    const data = r.optObj('Data');
    const resId = data ? (data.optStr('Id') ?? data.optStr('ID') ?? '') : '';
    if (resId === '') throw hnsError('E_INVALIDARG', 'Data.Id is required');
    let settings: JsonObject;
    let resourceType: 'Endpoint' | 'Container';
    if (type.toLowerCase() === 'endpoint') {
      resourceType = 'Endpoint';
      settings = { EndpointId: resId };
    } else if (type.toLowerCase() === 'container') {
      resourceType = 'Container';
      settings = { ContainerId: resId };
    } else {
      throw hnsError('HCN_E_REQUEST_UNSUPPORTED', `namespace resource Type "${type}"`);
    }
    const ns = c.hns.modifyNamespace(id, {
      ResourceType: resourceType,
      RequestType: requestType,
      Settings: settings,
    });
    return v1NamespaceView(ns);
  };
}

// ─────────────────────────────── globals ───────────────────────────────

function version(c: Call): Json {
  const v = c.hns.profile.version;
  return { Major: v.major, Minor: v.minor };
}

// ─────────────────────────────── accelnet ───────────────────────────────

/**
 * `/accelnet/` (reference §3.5): the management MAC addresses for accelerated networking, HNS ≥ 15.4.
 * POST replaces the list (`{"MacAddressList":[{"MacAddress":"00-15-5D-0A-B7-C6"}]}`; an empty list →
 * E_INVALIDARG, as hcsshim refuses it client-side), GET reads it, DELETE clears it; each answers with
 * the list as it then stands.
 */
function accelnet(op: 'GET' | 'POST' | 'DELETE'): Handler {
  return (c) => {
    if (!supports(c.hns.profile.version, 'Accelnet')) {
      throw hnsError('HCN_E_REQUEST_UNSUPPORTED', 'accelnet needs HNS 15.4');
    }
    const store = c.hns.store;
    if (op === 'POST') {
      const r = new Reader(c.body, 'HCN_E_INVALID_JSON');
      const macs = r.objs('MacAddressList').map((m) => {
        const text = m.str('MacAddress');
        const mac = parseMac(text);
        if (mac === undefined) throw m.err(`MacAddress "${text}" is not a MAC address`, 'E_INVALIDARG');
        return formatMac(mac);
      });
      if (macs.length === 0) throw hnsError('E_INVALIDARG', 'management mac_address list is empty');
      store.accelnetMacs = [...new Set(macs)];
    } else if (op === 'DELETE') {
      store.accelnetMacs = [];
    }
    return { MacAddressList: store.accelnetMacs.map((m) => ({ MacAddress: m })) };
  };
}

// ─────────────────────────────── the table ───────────────────────────────

function route(
  method: HnsMethod,
  resource: string,
  withId: boolean,
  action: string,
  handler: Handler,
  needsBody = method === 'POST',
): Route {
  return { method, resource, withId, action, handler, needsBody };
}

/** Every v1 route: (method, resource, has ID, action). */
export const ROUTES: readonly Route[] = [
  route('GET', 'networks', false, '', listNetworks),
  route('POST', 'networks', false, '', createNetwork),
  route('GET', 'networks', true, '', getNetwork),
  route('POST', 'networks', true, '', updateNetwork),
  route('DELETE', 'networks', true, '', deleteNetwork),
  route('GET', 'endpoints', false, '', listEndpoints),
  route('POST', 'endpoints', false, '', createEndpoint),
  route('GET', 'endpoints', true, '', getEndpoint),
  route('POST', 'endpoints', true, '', updateEndpoint),
  route('DELETE', 'endpoints', true, '', deleteEndpoint),
  route('POST', 'endpoints', true, 'attach', attach),
  route('POST', 'endpoints', true, 'detach', detach),
  route('GET', 'endpointstats', true, '', endpointStats),
  route('GET', 'policylists', false, '', listPolicyListsRoute),
  route('POST', 'policylists', false, '', createPolicyListRoute),
  route('GET', 'policylists', true, '', getPolicyListRoute),
  route('DELETE', 'policylists', true, '', deletePolicyListRoute),
  route('GET', 'namespaces', false, '', listNamespaces),
  route('POST', 'namespaces', false, '', createNamespace),
  route('GET', 'namespaces', true, '', getNamespace),
  route('DELETE', 'namespaces', true, '', deleteNamespace),
  route('POST', 'namespaces', true, 'addresource', namespaceResource('Add')),
  route('POST', 'namespaces', true, 'removeresource', namespaceResource('Remove')),
  route('GET', 'globals', true, '', version),
  route('GET', 'accelnet', false, '', accelnet('GET')),
  route('POST', 'accelnet', false, '', accelnet('POST')),
  route('DELETE', 'accelnet', false, '', accelnet('DELETE')),
];

/** `globals/version` is routed as resource `globals` with ID segment `version`. */
function matches(r: Route, method: HnsMethod, resource: string, idText: string, action: string): boolean {
  if (r.method !== method || r.resource !== resource || r.action !== action) return false;
  if (r.resource === 'globals') return idText.toLowerCase() === 'version';
  return r.withId === (idText !== '');
}

function readMethod(method: unknown): HnsMethod {
  const m = typeof method === 'string' ? METHODS.find((x) => x === method.toUpperCase()) : undefined;
  if (!m)
    throw hnsError(
      'E_INVALIDARG',
      `method ${typeof method === 'string' ? JSON.stringify(method) : typeof method} is not GET, POST or DELETE`,
    );
  return m;
}

function readPath(path: unknown): { resource: string; idText: string; action: string } {
  if (typeof path !== 'string') throw hnsError('E_INVALIDARG', 'path must be a string');
  const parts = path.split('/').filter((s) => s !== '');
  if (parts.length === 0 || parts.length > 3) throw hnsError('HCN_E_REQUEST_UNSUPPORTED', `path "${path}"`);
  return {
    resource: parts[0]!.toLowerCase(),
    idText: parts[1] ?? '',
    action: (parts[2] ?? '').toLowerCase(),
  };
}

/** The request: absent, null or "" = none; a string is parsed as JSON; an object is copied. */
function readBody(request: unknown): Json | undefined {
  if (request === undefined || request === null) return undefined;
  if (typeof request === 'string' && request.trim() === '') return undefined;
  return toJson(request, 'HCN_E_INVALID_JSON');
}

/**
 * The text HNS v1 puts in `Error`: the same text as the HCN ErrorRecord (the Windows message and a
 * space, e.g. "The endpoint was not found. "; reference §0.1, §3.2).
 */
export function v1ErrorText(e: HnsError): string {
  return e.errorRecord().Error;
}

/** `{"Success":false,"Error":…,"ErrorCode":…}`; ErrorCode is the HRESULT as a signed int32 (hcsshim `hnsResponse`). */
export function v1Failure(e: HnsError): HnsResponse {
  return { Success: false, Error: v1ErrorText(e), ErrorCode: e.hresult | 0 };
}

/**
 * Failures that fail the HNSCall itself rather than answering Success:false: a duplicate IP on v1
 * endpoint create surfaces in hcsshim as `hnsCall failed in Win32: The object already exists.
 * (0x1392)` (kubernetes#74766, microsoft/SDN#333; reference cni-windows.md §P2).
 */
const CALL_LEVEL_FAILURES: ReadonlySet<HResultLabel> = new Set<HResultLabel>(['ERROR_OBJECT_ALREADY_EXISTS']);

/** HNSCall. See the module comment for the response and for when the call itself fails. */
export function hnsCall(hns: HnsService, method: unknown, path: unknown, request: unknown): HnsResponse {
  const m = readMethod(method);
  const p = readPath(path);
  const body = readBody(request);
  const r = ROUTES.find((x) => matches(x, m, p.resource, p.idText, p.action));
  if (!r) throw hnsError('HCN_E_REQUEST_UNSUPPORTED', `${m} ${String(path)}`);
  let obj: JsonObject = {};
  if (r.needsBody && body !== undefined) {
    if (!isJsonObject(body))
      throw hnsError('HCN_E_INVALID_JSON', `the ${m} ${String(path)} request must be a JSON object`);
    obj = body;
  }
  try {
    const output = r.handler({ hns, idText: p.idText, body: obj });
    return output === undefined ? { Success: true } : { Success: true, Output: output };
  } catch (e) {
    if (e instanceof HnsError && !CALL_LEVEL_FAILURES.has(e.code)) return v1Failure(e);
    throw e;
  }
}
