/**
 * HostComputeNetwork, after hcsshim's `hcn/hcnnetwork.go` (reference hns-hcs.md §1.1, §6.1): the
 * document with hcsshim's JSON keys, the client-side gateway checks of `Create`, and the policy
 * and endpoint helpers. HNS omits `Type` for NAT, so a network read back defaults to NAT.
 */
import type { JsonObject } from '../../core/json.js';
import { create, enumerate, modify, remove, type Invoker } from './calls.js';
import type { HcnClient } from './client.js';
import { HcnResource } from './resource.js';
import { createEndpoint, HostComputeEndpoint, type HostComputeEndpointDoc } from './endpoint.js';
import { HcnClientError, NetworkNotFoundError } from './errors.js';
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
import {
  EndpointFlags,
  NetworkResourceType,
  NetworkType,
  RequestType,
  type ModifyNetworkSettingRequest,
  type NetworkPolicy,
  type PolicyNetworkRequest,
} from './policy.js';

export interface Subnet {
  IpAddressPrefix?: string;
  /** Subnet policies (`VLAN`, `VSID`) as raw JSON. */
  Policies?: JsonObject[];
  Routes?: Route[];
  Flags?: number;
}

export interface Ipam {
  /** `Static` or `DHCP`. */
  Type?: string;
  Subnets?: Subnet[];
}

export interface MacRange {
  StartMacAddress?: string;
  EndMacAddress?: string;
}

export interface MacPool {
  Ranges?: MacRange[];
}

/** The fields of a network document; every one optional when building one. */
export interface HostComputeNetworkDoc {
  ID?: string;
  Name?: string;
  Type?: NetworkType | string;
  Policies?: NetworkPolicy[];
  MacPool?: MacPool;
  Dns?: Dns;
  Ipams?: Ipam[];
  Flags?: number;
  Health?: Health;
  SchemaVersion?: SchemaVersion;
}

const SUBNET_SPEC: Spec = [
  ['IpAddressPrefix', 'str'],
  ['Policies', 'raws'],
  ['Routes', { objs: ROUTE_SPEC }],
  ['Flags', 'num'],
];

export const NETWORK_SPEC: Spec = [
  ['ID', 'str'],
  ['Name', 'str'],
  ['Type', 'str'],
  ['Policies', { objs: POLICY_SPEC }],
  [
    'MacPool',
    {
      obj: [
        [
          'Ranges',
          {
            objs: [
              ['StartMacAddress', 'str'],
              ['EndMacAddress', 'str'],
            ],
          },
        ],
      ],
    },
  ],
  ['Dns', { obj: DNS_SPEC }],
  [
    'Ipams',
    {
      objs: [
        ['Type', 'str'],
        ['Subnets', { objs: SUBNET_SPEC }],
      ],
    },
  ],
  ['Flags', 'num'],
  ['Health', { obj: HEALTH_SPEC }],
  ['SchemaVersion', { obj: VERSION_SPEC }],
];

export class HostComputeNetwork extends HcnResource implements Required<HostComputeNetworkDoc> {
  ID = '';
  Name = '';
  Type: NetworkType | string = '';
  Policies: NetworkPolicy[] = [];
  MacPool: MacPool = {};
  Dns: Dns = {};
  Ipams: Ipam[] = [];
  Flags = 0;
  Health: Health = {};
  SchemaVersion: SchemaVersion = { Major: 0, Minor: 0 };

  constructor(client: HcnClient, doc: HostComputeNetworkDoc = {}) {
    super(client, NETWORK_SPEC);
    if (doc.ID !== undefined) this.ID = doc.ID;
    if (doc.Name !== undefined) this.Name = doc.Name;
    if (doc.Type !== undefined) this.Type = doc.Type;
    if (doc.Policies !== undefined) this.Policies = copyOwned(doc.Policies);
    if (doc.MacPool !== undefined) this.MacPool = copyOwned(doc.MacPool);
    if (doc.Dns !== undefined) this.Dns = copyOwned(doc.Dns);
    if (doc.Ipams !== undefined) this.Ipams = copyOwned(doc.Ipams);
    if (doc.Flags !== undefined) this.Flags = doc.Flags;
    if (doc.Health !== undefined) this.Health = copyOwned(doc.Health);
    if (doc.SchemaVersion !== undefined) this.SchemaVersion = { ...doc.SchemaVersion };
  }

  /** A network as HNS returned it; a missing `Type` means NAT (HNS omits the zero enum). */
  static fromJSON(client: HcnClient, json: unknown): HostComputeNetwork {
    const doc = unmarshal(NETWORK_SPEC, json) as HostComputeNetworkDoc;
    return fromUnmarshalled(() => new HostComputeNetwork(client, { Type: NetworkType.NAT, ...doc }));
  }

  /**
   * Create the network. Client-side first (hcsshim, reference §6.1): in a subnet with an address
   * prefix every route needs a NextHop and one route must be a default route.
   */
  async create(): Promise<HostComputeNetwork> {
    for (const ipam of this.Ipams) {
      for (const subnet of ipam.Subnets ?? []) {
        if (!subnet.IpAddressPrefix) continue;
        let hasDefault = false;
        for (const route of subnet.Routes ?? []) {
          if (!route.NextHop) {
            throw new HcnClientError(
              'E_INVALIDARG',
              'network create error, subnet has address prefix but no gateway specified',
            );
          }
          if (route.DestinationPrefix === '0.0.0.0/0' || route.DestinationPrefix === '::/0')
            hasDefault = true;
        }
        if (!hasDefault) throw new HcnClientError('E_INVALIDARG', 'network create error, no default gateway');
      }
    }
    return HostComputeNetwork.fromJSON(this.client, await create(this.client, 'Network', this.toJSON()));
  }

  async delete(): Promise<void> {
    await remove(this.client, 'Network', this.ID);
  }

  /** Send a ModifyNetworkSettingRequest (Policy, DNS, Extension, …). */
  async modifyNetworkSettings(request: ModifyNetworkSettingRequest): Promise<void> {
    await modifyNetwork(this.client, this.ID, request);
  }

  /** Add policies (e.g. RemoteSubnetRoute, HostRoute) to the network. */
  async addPolicy(networkPolicy: PolicyNetworkRequest): Promise<void> {
    await this.modifyNetworkSettings({
      ResourceType: NetworkResourceType.Policy,
      RequestType: RequestType.Add,
      Settings: marshalPolicies(networkPolicy),
    });
  }

  /** Remove policies from the network. */
  async removePolicy(networkPolicy: PolicyNetworkRequest): Promise<void> {
    await this.modifyNetworkSettings({
      ResourceType: NetworkResourceType.Policy,
      RequestType: RequestType.Remove,
      Settings: marshalPolicies(networkPolicy),
    });
  }

  /**
   * Create an endpoint on this network. Sets the endpoint's `HostComputeNetwork` to this network's
   * ID (on the given object, as hcsshim does, when it is a HostComputeEndpoint).
   */
  async createEndpoint(endpoint: HostComputeEndpoint | HostComputeEndpointDoc): Promise<HostComputeEndpoint> {
    const ep =
      endpoint instanceof HostComputeEndpoint ? endpoint : new HostComputeEndpoint(this.client, endpoint);
    ep.HostComputeNetwork = this.ID;
    return createEndpoint(this.client, this.ID, ep.toJSON());
  }

  /** Create a remote endpoint: `createEndpoint` with the RemoteEndpoint flag ORed in. */
  async createRemoteEndpoint(
    endpoint: HostComputeEndpoint | HostComputeEndpointDoc,
  ): Promise<HostComputeEndpoint> {
    const ep =
      endpoint instanceof HostComputeEndpoint ? endpoint : new HostComputeEndpoint(this.client, endpoint);
    ep.Flags = EndpointFlags.RemoteEndpoint | ep.Flags;
    return this.createEndpoint(ep);
  }
}

function marshalPolicies(req: PolicyNetworkRequest): JsonObject {
  return marshal([['Policies', { objs: POLICY_SPEC }]], req);
}

/** The package-level modify: checks the ID, modifies, returns the network as queried after. */
export async function modifyNetwork(
  client: HcnClient,
  networkId: string,
  request: ModifyNetworkSettingRequest,
): Promise<HostComputeNetwork> {
  return HostComputeNetwork.fromJSON(
    client,
    await modify(client, 'Network', networkId, marshal(MODIFY_SPEC, request)),
  );
}

export async function listNetworksQuery(
  client: HcnClient,
  query: HostComputeQuery,
): Promise<HostComputeNetwork[]> {
  const found = await enumerate(client as Invoker, 'Network', marshalQuery(query));
  return found.map((n) => HostComputeNetwork.fromJSON(client, n));
}

export async function listNetworks(client: HcnClient): Promise<HostComputeNetwork[]> {
  return listNetworksQuery(client, defaultQuery());
}

export async function getNetworkByID(client: HcnClient, networkId: string): Promise<HostComputeNetwork> {
  const found = await listNetworksQuery(client, filterQuery('ID', networkId));
  if (found.length === 0) throw new NetworkNotFoundError('', networkId);
  return found[0]!;
}

export async function getNetworkByName(client: HcnClient, networkName: string): Promise<HostComputeNetwork> {
  const found = await listNetworksQuery(client, filterQuery('Name', networkName));
  if (found.length === 0) throw new NetworkNotFoundError(networkName, '');
  return found[0]!;
}
