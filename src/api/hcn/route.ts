/**
 * HostComputeRoute (SDN route), after hcsshim's `hcn/hcnroute.go` (reference hns-hcs.md §1.5): the
 * settings live under hcsshim's key `Setting`. Routes cannot be modified, so adding or removing an
 * endpoint deletes and re-creates; `delete` first looks the route up and succeeds if it is gone.
 */
import { create, enumerate, remove } from './calls.js';
import type { HcnClient } from './client.js';
import { HcnResource } from './resource.js';
import { HcnClientError, RouteNotFoundError } from './errors.js';
import {
  defaultQuery,
  filterQuery,
  marshalQuery,
  v2SchemaVersion,
  VERSION_SPEC,
  type HostComputeQuery,
  type SchemaVersion,
} from './hcn.js';
import { copyData, unmarshal, type Spec } from './marshal.js';
import type { SDNRoutePolicySetting } from './policy.js';

export interface HostComputeRouteDoc {
  ID?: string;
  HostComputeEndpoints?: string[];
  Setting?: SDNRoutePolicySetting[];
  SchemaVersion?: SchemaVersion;
}

export const ROUTE_DOC_SPEC: Spec = [
  ['ID', 'str'],
  ['HostComputeEndpoints', 'strs'],
  [
    'Setting',
    {
      objs: [
        ['DestinationPrefix', 'str'],
        ['NextHop', 'str'],
        ['NeedEncap', 'bool'],
      ],
    },
  ],
  ['SchemaVersion', { obj: VERSION_SPEC }],
];

export class HostComputeRoute extends HcnResource implements Required<HostComputeRouteDoc> {
  ID = '';
  HostComputeEndpoints: string[] = [];
  Setting: SDNRoutePolicySetting[] = [];
  SchemaVersion: SchemaVersion = { Major: 0, Minor: 0 };

  constructor(client: HcnClient, doc: HostComputeRouteDoc = {}) {
    super(client, ROUTE_DOC_SPEC);
    if (doc.ID !== undefined) this.ID = doc.ID;
    if (doc.HostComputeEndpoints !== undefined) this.HostComputeEndpoints = [...doc.HostComputeEndpoints];
    if (doc.Setting !== undefined) this.Setting = copyData(doc.Setting);
    if (doc.SchemaVersion !== undefined) this.SchemaVersion = { ...doc.SchemaVersion };
  }

  static fromJSON(client: HcnClient, json: unknown): HostComputeRoute {
    return new HostComputeRoute(client, unmarshal(ROUTE_DOC_SPEC, json) as HostComputeRouteDoc);
  }

  async create(): Promise<HostComputeRoute> {
    return HostComputeRoute.fromJSON(this.client, await create(this.client, 'SdnRoute', this.toJSON()));
  }

  /** Delete the route if a lookup by ID finds it; any lookup failure counts as "already gone". */
  async delete(): Promise<void> {
    let existing: HostComputeRoute | undefined;
    try {
      existing = await getRouteByID(this.client, this.ID);
    } catch {
      existing = undefined;
    }
    if (existing) await remove(this.client, 'SdnRoute', this.ID);
  }

  /** Delete, append the endpoint to this object's list, create again. */
  async addEndpoint(endpoint: { readonly ID: string }): Promise<HostComputeRoute> {
    await this.delete();
    this.HostComputeEndpoints.push(endpoint.ID);
    return this.create();
  }

  /**
   * Delete, drop the endpoint from this object's list, create again. As in hcsshim, the index
   * searched for starts at 0, so an endpoint not in the list removes the first entry.
   */
  async removeEndpoint(endpoint: { readonly ID: string }): Promise<HostComputeRoute> {
    await this.delete();
    let i = 0;
    for (let index = 0; index < this.HostComputeEndpoints.length; index++) {
      if (this.HostComputeEndpoints[index] === endpoint.ID) {
        i = index;
        break;
      }
    }
    this.HostComputeEndpoints = [
      ...this.HostComputeEndpoints.slice(0, i),
      ...this.HostComputeEndpoints.slice(i + 1),
    ];
    return this.create();
  }
}

export async function listRoutesQuery(
  client: HcnClient,
  query: HostComputeQuery,
): Promise<HostComputeRoute[]> {
  const found = await enumerate(client, 'SdnRoute', marshalQuery(query));
  return found.map((r) => HostComputeRoute.fromJSON(client, r));
}

export async function listRoutes(client: HcnClient): Promise<HostComputeRoute[]> {
  return listRoutesQuery(client, defaultQuery());
}

export async function getRouteByID(client: HcnClient, routeId: string): Promise<HostComputeRoute> {
  const found = await listRoutesQuery(client, filterQuery('ID', routeId));
  if (found.length === 0) throw new RouteNotFoundError(routeId);
  return found[0]!;
}

/** hcsshim's `AddRoute`: one SDN route setting over the given endpoints (at least one). */
export async function addRoute(
  client: HcnClient,
  endpoints: readonly { readonly ID: string }[],
  destinationPrefix: string,
  nextHop: string,
  needEncapsulation: boolean,
): Promise<HostComputeRoute> {
  if (endpoints.length <= 0) throw new HcnClientError('E_INVALIDARG', 'missing endpoints');
  const route = new HostComputeRoute(client, {
    SchemaVersion: v2SchemaVersion(),
    Setting: [{ DestinationPrefix: destinationPrefix, NextHop: nextHop, NeedEncap: needEncapsulation }],
    HostComputeEndpoints: endpoints.map((e) => e.ID),
  });
  return route.create();
}
