/**
 * The typed HNS v1 client: hcsshim's root-package v1 API (`GetHNSNetworkByName`, `HNSEndpoint.Create`,
 * `HotAttachEndpoint`, …; microsoft/hcsshim v0.14.1 `hnsnetwork.go`, `hnsendpoint.go`,
 * `internal/hns/{hnsfuncs,hnsnetwork,hnsendpoint,namespace}.go`; reference cni-windows.md §2.8) as one
 * object. Every HNS call is one flat `HNSCall` through the transport, and the hot attach goes through
 * the HCS client on the same transport, so the fault layer sees all of them.
 *
 *   const hns = HnsV1Client.forHost(host);
 *   const net = await hns.getNetworkByName('cbr0');          // NetworkNotFoundError if absent
 *   const ep = await hns.createEndpoint({ Name: 'c1_cbr0', VirtualNetwork: net.ID });
 *   await hns.hotAttachEndpoint('c1', ep.ID!);               // Errno 0xc037010e if c1 is unknown
 */
import { HnsError } from '../../core/errors.js';
import { isJsonObject, type Json, type JsonObject } from '../../core/json.js';
import type { HcnResult } from '../flat.js';
import type { HnsTransport } from '../transport.js';
import { HcnError } from '../hcn/errors.js';
import { marshal, pick } from '../hcn/marshal.js';
import { HcsClient, type HcsNotificationSource } from '../hcs/client.js';
import { HcsError, isNotExist as hcsIsNotExist, isNotSupported as hcsIsNotSupported } from '../hcs/errors.js';
import type { System } from '../hcs/system.js';
import {
  EndpointNotFoundError,
  Errno,
  errComputeSystemDoesNotExist,
  HnsCallError,
  HnsFailedError,
  HnsV1ClientError,
  JsonUnmarshalTypeError,
  NamespaceRequestError,
  NetworkNotFoundError,
  OsNotExistError,
  PlatformNotSupportedError,
} from './errors.js';
import {
  ATTACH_REQUEST_SPEC,
  marshalEndpoint,
  marshalNetwork,
  unmarshalEndpoint,
  unmarshalEndpointStats,
  unmarshalNamespace,
  unmarshalNetwork,
  type EndpointAttachDetachRequest,
  type HNSEndpoint,
  type HNSEndpointStats,
  type HNSNamespace,
  type HNSNetwork,
} from './types.js';

/** hcsshim's HNS request methods. */
export type HnsV1Method = 'GET' | 'POST' | 'DELETE';

/** `schema1.RequestType` of a hot attach. */
export type HotAttachRequestType = 'Add' | 'Remove';

/** Go's name for a JSON value's kind in `UnmarshalTypeError` (`array`, `object`, `string`, …). */
function goKind(v: Json): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'object' ? 'object' : typeof v;
}

/** Decode into a Go struct: absent or `null` leaves it zero; any other non-object is a type error. */
function decodeStruct(out: Json | undefined, goType: string): JsonObject | undefined {
  if (out === undefined || out === null) return undefined;
  if (!isJsonObject(out)) throw new JsonUnmarshalTypeError(goKind(out), goType);
  return out;
}

/** Decode into a Go slice of structs. */
function decodeList(out: Json | undefined, elemType: string): (JsonObject | undefined)[] {
  if (out === undefined || out === null) return [];
  if (!Array.isArray(out)) throw new JsonUnmarshalTypeError(goKind(out), `[]${elemType}`);
  return out.map((item) => decodeStruct(item, elemType));
}

/** Go's `path.Join`: join the non-empty elements with `/` and clean the result. */
function goPathJoin(...elems: string[]): string {
  const joined = elems.filter((e) => e !== '').join('/');
  if (joined === '') return '';
  const rooted = joined.startsWith('/');
  const parts: string[] = [];
  for (const seg of joined.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
      else if (!rooted) parts.push('..');
    } else parts.push(seg);
  }
  const body = parts.join('/');
  return rooted ? `/${body}` : body === '' ? '.' : body;
}

export class HnsV1Client {
  readonly #transport: HnsTransport;
  readonly #hcs: HcsClient;

  /** `hcs` runs the hot attach's HCS calls; by default a client on the same transport. */
  constructor(transport: HnsTransport, hcs: HcsClient = new HcsClient(transport)) {
    this.#transport = transport;
    this.#hcs = hcs;
  }

  /** A client of a simulated host: `host.transport` (faults and latency included) and `host.events`. */
  static forHost(host: {
    readonly transport: HnsTransport;
    readonly events: HcsNotificationSource;
  }): HnsV1Client {
    return new HnsV1Client(host.transport, HcsClient.forHost(host));
  }

  get transport(): HnsTransport {
    return this.#transport;
  }

  // ───────────────────────────── hnsCall (internal/hns/hnsfuncs.go) ─────────────────────────────

  /**
   * `hnsCallRawResponse`: the `{"Success","Error","Output"}` document. A failed call throws
   * `HnsCallError` (`failed during hnsCallRawResponse: hnsCall failed in Win32: …`).
   */
  async hnsCallRawResponse(method: string, path: string, request = ''): Promise<JsonObject> {
    let r: HcnResult<Json>;
    try {
      r = await this.#transport.call({ method: 'HNSCall', args: [method, path, request] });
    } catch (e) {
      if (e instanceof HnsError && !(e instanceof HcnError))
        throw new HnsCallError(new HcnError('hnsCall', e.hresult, { detail: e.message }));
      throw e;
    }
    if (!r.ok) throw new HnsCallError(new HcnError('hnsCall', r.hr, { detail: r.message }));
    const doc = decodeStruct(r.result, 'hns.hnsResponse');
    return doc ?? {};
  }

  /**
   * `hnsCall`: the response's `Output` (undefined when absent or null: the caller's value stays
   * zero). `{"Success":false}` throws `HnsFailedError` (`hns failed with error : <Error>`).
   */
  async hnsCall(method: string, path: string, request = ''): Promise<Json | undefined> {
    const resp = await this.hnsCallRawResponse(method, path, request);
    if (pick(resp, 'Success') !== true) {
      const text = pick(resp, 'Error');
      const code = pick(resp, 'ErrorCode');
      throw new HnsFailedError(
        typeof text === 'string' ? text : '',
        typeof code === 'number' && Number.isInteger(code) ? code : undefined,
      );
    }
    const out = pick(resp, 'Output');
    return out === null ? undefined : out;
  }

  // ───────────────────────────── networks ─────────────────────────────

  /** `HNSNetworkRequest(method, path, request)`: one network at `/networks/<path>`. */
  async hnsNetworkRequest(method: string, path: string, request = ''): Promise<HNSNetwork> {
    const out = await this.hnsCall(method, `/networks/${path}`, request);
    return unmarshalNetwork(decodeStruct(out, 'hns.HNSNetwork'));
  }

  /** `HNSListNetworkRequest(method, path, request)`. */
  async hnsListNetworkRequest(method: string, path: string, request = ''): Promise<HNSNetwork[]> {
    const out = await this.hnsCall(method, `/networks/${path}`, request);
    return decodeList(out, 'hns.HNSNetwork').map((n) => unmarshalNetwork(n));
  }

  /** `HNSListNetworkRequest("GET", "", "")`. */
  listNetworks(): Promise<HNSNetwork[]> {
    return this.hnsListNetworkRequest('GET', '', '');
  }

  /** `GetHNSNetworkByID(id)`: `GET /networks/<id>`. */
  getNetworkByID(networkId: string): Promise<HNSNetwork> {
    return this.hnsNetworkRequest('GET', networkId, '');
  }

  /**
   * `GetHNSNetworkByName(name)`: list, then the first network whose `Name` equals `name` exactly
   * (case-sensitive); `NetworkNotFoundError` (`Network <name> not found`) if none.
   */
  async getNetworkByName(networkName: string): Promise<HNSNetwork> {
    for (const n of await this.listNetworks()) if ((n.Name ?? '') === networkName) return n;
    throw new NetworkNotFoundError(networkName);
  }

  /**
   * `HNSNetwork.Create()`: a subnet with an `AddressPrefix` but no `GatewayAddress` is refused before
   * any call; else `POST /networks/` with the marshalled document.
   */
  async createNetwork(network: HNSNetwork): Promise<HNSNetwork> {
    for (const s of network.Subnets ?? []) {
      if ((s.AddressPrefix ?? '') !== '' && (s.GatewayAddress ?? '') === '')
        throw new HnsV1ClientError(
          'E_INVALIDARG',
          'network create error, subnet has address prefix but no gateway specified',
        );
    }
    return this.hnsNetworkRequest('POST', '', JSON.stringify(marshalNetwork(network)));
  }

  /** `HNSNetwork.Delete()`: `DELETE /networks/<id>` (HNS returns no document: a zero network). */
  deleteNetwork(networkId: string): Promise<HNSNetwork> {
    return this.hnsNetworkRequest('DELETE', networkId, '');
  }

  /** `HNSNetwork.CreateEndpoint(endpoint)`: the endpoint's `VirtualNetwork` becomes the network's ID. */
  createEndpointOnNetwork(networkId: string, endpoint: HNSEndpoint): Promise<HNSEndpoint> {
    return this.createEndpoint({ ...endpoint, VirtualNetwork: networkId });
  }

  /** `HNSNetwork.CreateRemoteEndpoint(endpoint)`: as CreateEndpoint with `IsRemoteEndpoint`. */
  createRemoteEndpoint(networkId: string, endpoint: HNSEndpoint): Promise<HNSEndpoint> {
    return this.createEndpointOnNetwork(networkId, { ...endpoint, IsRemoteEndpoint: true });
  }

  // ───────────────────────────── endpoints ─────────────────────────────

  /** `HNSEndpointRequest(method, path, request)`: one endpoint at `/endpoints/<path>`. */
  async hnsEndpointRequest(method: string, path: string, request = ''): Promise<HNSEndpoint> {
    const out = await this.hnsCall(method, `/endpoints/${path}`, request);
    return unmarshalEndpoint(decodeStruct(out, 'hns.HNSEndpoint'));
  }

  /** `HNSListEndpointRequest()`: `GET /endpoints/`. */
  async listEndpoints(): Promise<HNSEndpoint[]> {
    const out = await this.hnsCall('GET', '/endpoints/', '');
    return decodeList(out, 'hns.HNSEndpoint').map((e) => unmarshalEndpoint(e));
  }

  /** `GetHNSEndpointByID(id)`: `GET /endpoints/<id>`. */
  getEndpointByID(endpointId: string): Promise<HNSEndpoint> {
    return this.hnsEndpointRequest('GET', endpointId, '');
  }

  /**
   * `GetHNSEndpointByName(name)`: list, then the first endpoint whose `Name` equals `name` exactly;
   * `EndpointNotFoundError` (`Endpoint <name> not found`) if none.
   */
  async getEndpointByName(endpointName: string): Promise<HNSEndpoint> {
    for (const e of await this.listEndpoints()) if ((e.Name ?? '') === endpointName) return e;
    throw new EndpointNotFoundError(endpointName);
  }

  /** `HNSEndpoint.Create()`: `POST /endpoints/` with the marshalled document. */
  createEndpoint(endpoint: HNSEndpoint): Promise<HNSEndpoint> {
    return this.hnsEndpointRequest('POST', '', JSON.stringify(marshalEndpoint(endpoint)));
  }

  /** `HNSEndpoint.Delete()`: `DELETE /endpoints/<id>`. */
  deleteEndpoint(endpointId: string): Promise<HNSEndpoint> {
    return this.hnsEndpointRequest('DELETE', endpointId, '');
  }

  /**
   * `HNSEndpoint.Update()`: `POST /endpoints/<ID>` with the marshalled document; the answer is
   * decoded over the caller's endpoint (fields HNS returns replace the ones given).
   */
  async updateEndpoint(endpoint: HNSEndpoint): Promise<HNSEndpoint> {
    const out = await this.hnsCall(
      'POST',
      `/endpoints/${endpoint.ID ?? ''}`,
      JSON.stringify(marshalEndpoint(endpoint)),
    );
    return { ...endpoint, ...unmarshalEndpoint(decodeStruct(out, 'hns.HNSEndpoint')) };
  }

  /** `GetHNSEndpointStats(id)`: `GET /endpointstats/<id>`. */
  async getEndpointStats(endpointId: string): Promise<HNSEndpointStats> {
    const out = await this.hnsCall('GET', `/endpointstats/${endpointId}`, '');
    return unmarshalEndpointStats(decodeStruct(out, 'hns.EndpointStats'));
  }

  /**
   * `HNSEndpoint.IsAttached(vID)`: `GET /endpoints/<id>`, then whether the raw JSON text of its
   * `SharedContainers` contains `vID`, both lower-cased (a substring test: a prefix of a container
   * ID counts, and an empty `vID` always does).
   */
  async isAttached(endpointId: string, containerId: string): Promise<boolean> {
    const out = await this.hnsCall('GET', `/endpoints/${endpointId}`, '');
    const info = decodeStruct(out, 'hns.endpointAttachInfo');
    const shared = info ? pick(info, 'SharedContainers') : undefined;
    const raw = shared === undefined ? '' : JSON.stringify(shared);
    return raw.toLowerCase().includes(containerId.toLowerCase());
  }

  async #attachDetach(
    endpointId: string,
    action: 'attach' | 'detach',
    req: EndpointAttachDetachRequest,
  ): Promise<void> {
    const body = JSON.stringify(marshal(ATTACH_REQUEST_SPEC, req));
    // the answer is decoded into an EndpointResquestResponse that nobody reads
    decodeStruct(
      await this.hnsCall('POST', `/endpoints/${endpointId}/${action}`, body),
      'hns.EndpointResquestResponse',
    );
  }

  /** `HNSEndpoint.ContainerAttach(containerID, compartmentID)`: `{"ContainerId","SystemType":"Container","CompartmentId"}`. */
  containerAttach(endpointId: string, containerId: string, compartmentId = 0): Promise<void> {
    return this.#attachDetach(endpointId, 'attach', {
      ContainerId: containerId,
      SystemType: 'Container',
      CompartmentId: compartmentId,
    });
  }

  /** `HNSEndpoint.ContainerDetach(containerID)`. */
  containerDetach(endpointId: string, containerId: string): Promise<void> {
    return this.#attachDetach(endpointId, 'detach', { ContainerId: containerId, SystemType: 'Container' });
  }

  /** `HNSEndpoint.HostAttach(compartmentID)`: `{"SystemType":"Host","CompartmentId":n}`. */
  hostAttach(endpointId: string, compartmentId: number): Promise<void> {
    return this.#attachDetach(endpointId, 'attach', { SystemType: 'Host', CompartmentId: compartmentId });
  }

  /** `HNSEndpoint.HostDetach()`: `{"SystemType":"Host"}`. */
  hostDetach(endpointId: string): Promise<void> {
    return this.#attachDetach(endpointId, 'detach', { SystemType: 'Host' });
  }

  /** `HNSEndpoint.VirtualMachineNICAttach(nicName)`. */
  virtualMachineNicAttach(endpointId: string, virtualNicName: string): Promise<void> {
    return this.#attachDetach(endpointId, 'attach', {
      VirtualNicName: virtualNicName,
      SystemType: 'VirtualMachine',
    });
  }

  /** `HNSEndpoint.VirtualMachineNICDetach()`. */
  virtualMachineNicDetach(endpointId: string): Promise<void> {
    return this.#attachDetach(endpointId, 'detach', { SystemType: 'VirtualMachine' });
  }

  // ───────────────────────────── hot attach (hnsendpoint.go, through HCS) ─────────────────────────────

  /**
   * `HotAttachEndpoint(containerID, endpointID)`: read the endpoint; if `IsAttached` says the
   * container already shares it, nothing more (an `IsAttached` failure is ignored, as hcsshim does);
   * else open the container in HCS and modify it with `{ResourceType:"Network",Settings:<endpoint
   * ID>,RequestType:"Add"}`. An unknown container → `Errno` ErrComputeSystemDoesNotExist (0xc037010e).
   */
  async hotAttachEndpoint(containerId: string, endpointId: string): Promise<void> {
    const endpoint = await this.getEndpointByID(endpointId);
    let attached = false;
    try {
      attached = await this.isAttached(endpoint.ID ?? '', containerId);
    } catch {
      attached = false;
    }
    if (attached) return;
    await this.#modifyNetworkEndpoint(containerId, endpointId, 'Add');
  }

  /**
   * `HotDetachEndpoint(containerID, endpointID)`: read the endpoint; if it is not attached to the
   * container, stop (with `IsAttached`'s error, if it failed); else modify with `RequestType:"Remove"`.
   */
  async hotDetachEndpoint(containerId: string, endpointId: string): Promise<void> {
    const endpoint = await this.getEndpointByID(endpointId);
    const attached = await this.isAttached(endpoint.ID ?? '', containerId);
    if (!attached) return;
    await this.#modifyNetworkEndpoint(containerId, endpointId, 'Remove');
  }

  /**
   * `modifyContainer`: `OpenContainer` (a not-exist failure becomes ErrComputeSystemDoesNotExist,
   * any other is returned as it is), `Modify` (an unsupported request becomes
   * ErrPlatformNotSupported, any other failure its inner code, `getInnerError`), then `Close`.
   */
  async #modifyNetworkEndpoint(
    containerId: string,
    endpointId: string,
    request: HotAttachRequestType,
  ): Promise<void> {
    let container: System;
    try {
      container = await this.#hcs.openComputeSystem(containerId);
    } catch (e) {
      if (hcsIsNotExist(e)) throw errComputeSystemDoesNotExist();
      throw e;
    }
    try {
      // schema1.ResourceModificationRequestResponse: ResourceType, Settings, RequestType (Go order)
      await container.modify({ ResourceType: 'Network', Settings: endpointId, RequestType: request });
    } catch (e) {
      if (hcsIsNotSupported(e)) throw new PlatformNotSupportedError({ cause: e });
      throw innerError(e);
    } finally {
      await container.close();
    }
  }

  // ───────────────────────────── namespaces (internal/hns/namespace.go) ─────────────────────────────

  /**
   * `issueNamespaceRequest`: a failure whose text contains `Element not found.` is `os.ErrNotExist`,
   * any other `<METHOD> <path>: <err>`.
   */
  async #namespaceRequest(
    id: string | undefined,
    method: HnsV1Method,
    subpath: string,
    request: JsonObject | undefined,
  ): Promise<HNSNamespace> {
    let path = '/namespaces/';
    if (id !== undefined) path = goPathJoin(path, id);
    if (subpath !== '') path = goPathJoin(path, subpath);
    try {
      const out = await this.hnsCall(method, path, request === undefined ? '' : JSON.stringify(request));
      return unmarshalNamespace(decodeStruct(out, 'hns.Namespace'));
    } catch (e) {
      if (!(e instanceof HnsError)) throw e;
      if (e.message.includes('Element not found.')) throw new OsNotExistError({ cause: e });
      throw new NamespaceRequestError(method, path, e);
    }
  }

  /** `CreateNamespace()`: `POST /namespaces/` with `{}`; the new namespace's ID. */
  async createNamespace(): Promise<string> {
    const ns = await this.#namespaceRequest(undefined, 'POST', '', {});
    return ns.ID ?? '';
  }

  /** `RemoveNamespace(id)`: `DELETE /namespaces/<id>`. */
  async removeNamespace(id: string): Promise<void> {
    await this.#namespaceRequest(id, 'DELETE', '', undefined);
  }

  /** `GetNamespaceEndpoints(id)`: the `Id` of each `Endpoint` resource of the namespace. */
  async getNamespaceEndpoints(id: string): Promise<string[]> {
    const ns = await this.#namespaceRequest(id, 'GET', '', undefined);
    const out: string[] = [];
    for (const r of ns.ResourceList ?? []) {
      if (r.Type !== 'Endpoint') continue;
      const data = r.Data ?? null;
      if (data !== null && !isJsonObject(data)) {
        const inner = new JsonUnmarshalTypeError(goKind(data), 'hns.namespaceEndpointRequest');
        throw new HnsV1ClientError(inner.hresult, `unmarshal endpoint: ${inner.message}`, { cause: inner });
      }
      const v = data === null ? undefined : pick(data, 'Id');
      out.push(typeof v === 'string' ? v : '');
    }
    return out;
  }

  /** `AddNamespaceEndpoint(id, endpointID)`: `POST /namespaces/<id>/addresource`. */
  async addNamespaceEndpoint(id: string, endpointId: string): Promise<void> {
    await this.#namespaceRequest(id, 'POST', 'addresource', { Type: 'Endpoint', Data: { Id: endpointId } });
  }

  /** `RemoveNamespaceEndpoint(id, endpointID)`: `POST /namespaces/<id>/removeresource`. */
  async removeNamespaceEndpoint(id: string, endpointId: string): Promise<void> {
    await this.#namespaceRequest(id, 'POST', 'removeresource', {
      Type: 'Endpoint',
      Data: { Id: endpointId },
    });
  }
}

/**
 * hcsshim's root `getInnerError` after `convertSystemError`: the code inside an HCS failure as a bare
 * `Errno`, or the error hcsshim raised itself that it wraps; anything else as it is.
 */
function innerError(e: unknown): unknown {
  if (!(e instanceof HcsError)) return e;
  if (e.cause instanceof Error) return e.cause;
  return new Errno(e.hresult);
}
