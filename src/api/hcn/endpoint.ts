/**
 * HostComputeEndpoint, after hcsshim's `hcn/hcnendpoint.go` (reference hns-hcs.md §1.2, §6.2):
 * the document with hcsshim's JSON keys, `Create` refusing a set `HostComputeNamespace` (it is
 * read-only), policy changes through ModifyEndpointSettingRequest, and namespace attach/detach.
 */
import type { JsonObject } from '../../core/json.js';
import { create, enumerate, modify, remove } from './calls.js';
import type { HcnClient } from './client.js';
import { HcnResource } from './resource.js';
import { EndpointNotFoundError, HcnClientError } from './errors.js';
import {
  defaultQuery,
  DNS_SPEC,
  filterQuery,
  HEALTH_SPEC,
  marshalQuery,
  MODIFY_SPEC,
  POLICY_SPEC,
  ROUTE_SPEC,
  VERSION_SPEC,
  type Dns,
  type Health,
  type HostComputeQuery,
  type Route,
  type SchemaVersion,
} from './hcn.js';
import { copyOwned, fromUnmarshalled, marshal, unmarshal, type Spec } from './marshal.js';
import { addNamespaceEndpoint, removeNamespaceEndpoint } from './namespace.js';
import {
  EndpointResourceType,
  type EndpointPolicy,
  type ModifyEndpointSettingRequest,
  type PolicyEndpointRequest,
  type RequestType,
} from './policy.js';

export interface IpConfig {
  IpAddress?: string;
  PrefixLength?: number;
}

/** The fields of an endpoint document; every one optional when building one. */
export interface HostComputeEndpointDoc {
  ID?: string;
  Name?: string;
  HostComputeNetwork?: string;
  HostComputeNamespace?: string;
  Policies?: EndpointPolicy[];
  IpConfigurations?: IpConfig[];
  Dns?: Dns;
  Routes?: Route[];
  MacAddress?: string;
  Flags?: number;
  Health?: Health;
  SchemaVersion?: SchemaVersion;
}

export const ENDPOINT_SPEC: Spec = [
  ['ID', 'str'],
  ['Name', 'str'],
  ['HostComputeNetwork', 'str'],
  ['HostComputeNamespace', 'str'],
  ['Policies', { objs: POLICY_SPEC }],
  [
    'IpConfigurations',
    {
      objs: [
        ['IpAddress', 'str'],
        ['PrefixLength', 'num'],
      ],
    },
  ],
  ['Dns', { obj: DNS_SPEC }],
  ['Routes', { objs: ROUTE_SPEC }],
  ['MacAddress', 'str'],
  ['Flags', 'num'],
  ['Health', { obj: HEALTH_SPEC }],
  ['SchemaVersion', { obj: VERSION_SPEC }],
];

/**
 * hcsshim's `HNSEndpointStats` (root package; `internal/hns.EndpointStats`): the v1
 * `/endpointstats/<id>` document, every field always written (no `omitempty`).
 */
export interface HNSEndpointStats {
  BytesReceived: number;
  BytesSent: number;
  DroppedPacketsIncoming: number;
  DroppedPacketsOutgoing: number;
  EndpointID: string;
  InstanceID: string;
  PacketsReceived: number;
  PacketsSent: number;
}

/** The JSON keys of `HNSEndpointStats` (Go fields `EndpointID`/`InstanceID` are tagged `EndpointId`/`InstanceId`). */
export const ENDPOINT_STATS_SPEC: Spec = [
  ['BytesReceived', 'numReq'],
  ['BytesSent', 'numReq'],
  ['DroppedPacketsIncoming', 'numReq'],
  ['DroppedPacketsOutgoing', 'numReq'],
  ['EndpointId', 'strReq'],
  ['InstanceId', 'strReq'],
  ['PacketsReceived', 'numReq'],
  ['PacketsSent', 'numReq'],
];

/** Decode a stats document as Go does into a zero `EndpointStats` (absent keys stay 0 / ""). */
export function endpointStatsFromJSON(json: unknown): HNSEndpointStats {
  const v = unmarshal(ENDPOINT_STATS_SPEC, json) as Partial<Record<string, number | string>>;
  const n = (k: string): number => (typeof v[k] === 'number' ? v[k] : 0);
  const s = (k: string): string => (typeof v[k] === 'string' ? v[k] : '');
  return {
    BytesReceived: n('BytesReceived'),
    BytesSent: n('BytesSent'),
    DroppedPacketsIncoming: n('DroppedPacketsIncoming'),
    DroppedPacketsOutgoing: n('DroppedPacketsOutgoing'),
    EndpointID: s('EndpointId'),
    InstanceID: s('InstanceId'),
    PacketsReceived: n('PacketsReceived'),
    PacketsSent: n('PacketsSent'),
  };
}

export class HostComputeEndpoint extends HcnResource implements Required<HostComputeEndpointDoc> {
  ID = '';
  Name = '';
  HostComputeNetwork = '';
  HostComputeNamespace = '';
  Policies: EndpointPolicy[] = [];
  IpConfigurations: IpConfig[] = [];
  Dns: Dns = {};
  Routes: Route[] = [];
  MacAddress = '';
  Flags = 0;
  Health: Health = {};
  SchemaVersion: SchemaVersion = { Major: 0, Minor: 0 };

  constructor(client: HcnClient, doc: HostComputeEndpointDoc = {}) {
    super(client, ENDPOINT_SPEC);
    if (doc.ID !== undefined) this.ID = doc.ID;
    if (doc.Name !== undefined) this.Name = doc.Name;
    if (doc.HostComputeNetwork !== undefined) this.HostComputeNetwork = doc.HostComputeNetwork;
    if (doc.HostComputeNamespace !== undefined) this.HostComputeNamespace = doc.HostComputeNamespace;
    if (doc.Policies !== undefined) this.Policies = copyOwned(doc.Policies);
    if (doc.IpConfigurations !== undefined) this.IpConfigurations = copyOwned(doc.IpConfigurations);
    if (doc.Dns !== undefined) this.Dns = copyOwned(doc.Dns);
    if (doc.Routes !== undefined) this.Routes = copyOwned(doc.Routes);
    if (doc.MacAddress !== undefined) this.MacAddress = doc.MacAddress;
    if (doc.Flags !== undefined) this.Flags = doc.Flags;
    if (doc.Health !== undefined) this.Health = copyOwned(doc.Health);
    if (doc.SchemaVersion !== undefined) this.SchemaVersion = { ...doc.SchemaVersion };
  }

  static fromJSON(client: HcnClient, json: unknown): HostComputeEndpoint {
    const doc = unmarshal(ENDPOINT_SPEC, json) as HostComputeEndpointDoc;
    return fromUnmarshalled(() => new HostComputeEndpoint(client, doc));
  }

  /** Create on the network named by `HostComputeNetwork`; `HostComputeNamespace` must be empty. */
  async create(): Promise<HostComputeEndpoint> {
    if (this.HostComputeNamespace !== '') {
      throw new HcnClientError(
        'E_INVALIDARG',
        'endpoint create error, endpoint json HostComputeNamespace is read only and should not be set',
      );
    }
    return createEndpoint(this.client, this.HostComputeNetwork, this.toJSON());
  }

  async delete(): Promise<void> {
    await remove(this.client, 'Endpoint', this.ID);
  }

  /** Send a ModifyEndpointSettingRequest (Policy or Port) for this endpoint. */
  async modifyEndpointSettings(request: ModifyEndpointSettingRequest): Promise<void> {
    await modifyEndpointSettings(this.client, this.ID, request);
  }

  /** Add, remove or replace (`Update`) the endpoint's policies, or refresh them. */
  async applyPolicy(requestType: RequestType, endpointPolicy: PolicyEndpointRequest): Promise<void> {
    await this.modifyEndpointSettings({
      ResourceType: EndpointResourceType.Policy,
      RequestType: requestType,
      Settings: marshal([['Policies', { objs: POLICY_SPEC }]], endpointPolicy),
    });
  }

  /** Add this endpoint to a namespace. */
  async namespaceAttach(namespaceId: string): Promise<void> {
    await addNamespaceEndpoint(this.client, namespaceId, this.ID);
  }

  /** Remove this endpoint from a namespace. */
  async namespaceDetach(namespaceId: string): Promise<void> {
    await removeNamespaceEndpoint(this.client, namespaceId, this.ID);
  }
}

/** Create an endpoint on `networkId` from a marshalled document; returns it as queried after. */
export async function createEndpoint(
  client: HcnClient,
  networkId: string,
  settings: JsonObject,
): Promise<HostComputeEndpoint> {
  return HostComputeEndpoint.fromJSON(client, await create(client, 'Endpoint', settings, networkId));
}

/** hcsshim's package-level `ModifyEndpointSettings(endpointID, request)`. */
export async function modifyEndpointSettings(
  client: HcnClient,
  endpointId: string,
  request: ModifyEndpointSettingRequest,
): Promise<HostComputeEndpoint> {
  return HostComputeEndpoint.fromJSON(
    client,
    await modify(client, 'Endpoint', endpointId, marshal(MODIFY_SPEC, request)),
  );
}

export async function listEndpointsQuery(
  client: HcnClient,
  query: HostComputeQuery,
): Promise<HostComputeEndpoint[]> {
  const found = await enumerate(client, 'Endpoint', marshalQuery(query));
  return found.map((e) => HostComputeEndpoint.fromJSON(client, e));
}

export async function listEndpoints(client: HcnClient): Promise<HostComputeEndpoint[]> {
  return listEndpointsQuery(client, defaultQuery());
}

/** Endpoints of a network: filtered on the v1 key `VirtualNetwork`, exactly as hcsshim does. */
export async function listEndpointsOfNetwork(
  client: HcnClient,
  networkId: string,
): Promise<HostComputeEndpoint[]> {
  return listEndpointsQuery(client, filterQuery('VirtualNetwork', networkId));
}

export async function getEndpointByID(client: HcnClient, endpointId: string): Promise<HostComputeEndpoint> {
  const found = await listEndpointsQuery(client, filterQuery('ID', endpointId));
  if (found.length === 0) throw new EndpointNotFoundError('', endpointId);
  return found[0]!;
}

/** The first endpoint with this name (names are not unique). */
export async function getEndpointByName(
  client: HcnClient,
  endpointName: string,
): Promise<HostComputeEndpoint> {
  const found = await findEndpointByName(client, endpointName);
  if (found === undefined) throw new EndpointNotFoundError(endpointName, '');
  return found;
}

/**
 * `getEndpointByName` with undefined where it would throw its `EndpointNotFoundError` (any other
 * failure is thrown the same): for callers that expect the name to be free, so that no error is
 * built only to be dropped.
 */
export async function findEndpointByName(
  client: HcnClient,
  endpointName: string,
): Promise<HostComputeEndpoint | undefined> {
  const found = await listEndpointsQuery(client, filterQuery('Name', endpointName));
  return found[0];
}
