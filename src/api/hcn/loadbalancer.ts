/**
 * HostComputeLoadBalancer, after hcsshim's `hcn/hcnloadbalancer.go` (reference hns-hcs.md §1.4):
 * frontends (VIPs, port mappings) over backend endpoints. `update` sends the whole document to
 * HcnModifyLoadBalancer; `addEndpoint`/`removeEndpoint` delete the load balancer and create it
 * again from the changed document, as hcsshim does.
 */
import { create, enumerate, modify, remove } from './calls.js';
import type { HcnClient } from './client.js';
import { HcnResource } from './resource.js';
import { LoadBalancerNotFoundError } from './errors.js';
import {
  defaultQuery,
  filterQuery,
  marshalQuery,
  VERSION_SPEC,
  type HostComputeQuery,
  type SchemaVersion,
} from './hcn.js';
import { copyData, unmarshal, type Spec } from './marshal.js';
import type { LoadBalancerDistribution, LoadBalancerFlags, LoadBalancerPortMappingFlags } from './policy.js';

export interface LoadBalancerPortMapping {
  /** 6 TCP, 17 UDP. */
  Protocol?: number;
  InternalPort?: number;
  ExternalPort?: number;
  DistributionType?: LoadBalancerDistribution;
  Flags?: LoadBalancerPortMappingFlags;
}

export interface HostComputeLoadBalancerDoc {
  ID?: string;
  HostComputeEndpoints?: string[];
  SourceVIP?: string;
  FrontendVIPs?: string[];
  PortMappings?: LoadBalancerPortMapping[];
  SchemaVersion?: SchemaVersion;
  Flags?: LoadBalancerFlags;
}

export const LOAD_BALANCER_SPEC: Spec = [
  ['ID', 'str'],
  ['HostComputeEndpoints', 'strs'],
  ['SourceVIP', 'str'],
  ['FrontendVIPs', 'strs'],
  [
    'PortMappings',
    {
      objs: [
        ['Protocol', 'num'],
        ['InternalPort', 'num'],
        ['ExternalPort', 'num'],
        ['DistributionType', 'num'],
        ['Flags', 'num'],
      ],
    },
  ],
  ['SchemaVersion', { obj: VERSION_SPEC }],
  ['Flags', 'num'],
];

export class HostComputeLoadBalancer extends HcnResource implements Required<HostComputeLoadBalancerDoc> {
  ID = '';
  HostComputeEndpoints: string[] = [];
  SourceVIP = '';
  FrontendVIPs: string[] = [];
  PortMappings: LoadBalancerPortMapping[] = [];
  SchemaVersion: SchemaVersion = { Major: 0, Minor: 0 };
  Flags = 0;

  constructor(client: HcnClient, doc: HostComputeLoadBalancerDoc = {}) {
    super(client, LOAD_BALANCER_SPEC);
    if (doc.ID !== undefined) this.ID = doc.ID;
    if (doc.HostComputeEndpoints !== undefined) this.HostComputeEndpoints = [...doc.HostComputeEndpoints];
    if (doc.SourceVIP !== undefined) this.SourceVIP = doc.SourceVIP;
    if (doc.FrontendVIPs !== undefined) this.FrontendVIPs = [...doc.FrontendVIPs];
    if (doc.PortMappings !== undefined) this.PortMappings = copyData(doc.PortMappings);
    if (doc.SchemaVersion !== undefined) this.SchemaVersion = { ...doc.SchemaVersion };
    if (doc.Flags !== undefined) this.Flags = doc.Flags;
  }

  static fromJSON(client: HcnClient, json: unknown): HostComputeLoadBalancer {
    return new HostComputeLoadBalancer(
      client,
      unmarshal(LOAD_BALANCER_SPEC, json) as HostComputeLoadBalancerDoc,
    );
  }

  async create(): Promise<HostComputeLoadBalancer> {
    return HostComputeLoadBalancer.fromJSON(
      this.client,
      await create(this.client, 'LoadBalancer', this.toJSON()),
    );
  }

  /** Replace the load balancer `hnsLoadbalancerID` with this document (HNS 15.4+ accepts it). */
  async update(hnsLoadbalancerID: string): Promise<HostComputeLoadBalancer> {
    return HostComputeLoadBalancer.fromJSON(
      this.client,
      await modify(this.client, 'LoadBalancer', hnsLoadbalancerID, this.toJSON()),
    );
  }

  async delete(): Promise<void> {
    await remove(this.client, 'LoadBalancer', this.ID);
  }

  /**
   * Delete this load balancer, append the endpoint to this object's backend list, and create it
   * again. This object keeps its old ID; the returned one is the re-created load balancer.
   */
  async addEndpoint(endpoint: { readonly ID: string }): Promise<HostComputeLoadBalancer> {
    await this.delete();
    this.HostComputeEndpoints.push(endpoint.ID);
    return this.create();
  }

  /** Delete, drop the endpoint from this object's backend list (exact ID match), create again. */
  async removeEndpoint(endpoint: { readonly ID: string }): Promise<HostComputeLoadBalancer> {
    await this.delete();
    this.HostComputeEndpoints = this.HostComputeEndpoints.filter((id) => id !== endpoint.ID);
    return this.create();
  }
}

export async function listLoadBalancersQuery(
  client: HcnClient,
  query: HostComputeQuery,
): Promise<HostComputeLoadBalancer[]> {
  const found = await enumerate(client, 'LoadBalancer', marshalQuery(query));
  return found.map((lb) => HostComputeLoadBalancer.fromJSON(client, lb));
}

export async function listLoadBalancers(client: HcnClient): Promise<HostComputeLoadBalancer[]> {
  return listLoadBalancersQuery(client, defaultQuery());
}

export async function getLoadBalancerByID(
  client: HcnClient,
  loadBalancerId: string,
): Promise<HostComputeLoadBalancer> {
  const found = await listLoadBalancersQuery(client, filterQuery('ID', loadBalancerId));
  if (found.length === 0) throw new LoadBalancerNotFoundError(loadBalancerId);
  return found[0]!;
}

/** hcsshim's `AddLoadBalancer`: one port mapping over the given endpoints, schema 2.0. */
export async function addLoadBalancer(
  client: HcnClient,
  endpoints: readonly { readonly ID: string }[],
  flags: LoadBalancerFlags,
  portMappingFlags: LoadBalancerPortMappingFlags,
  sourceVIP: string,
  frontendVIPs: readonly string[],
  protocol: number,
  internalPort: number,
  externalPort: number,
): Promise<HostComputeLoadBalancer> {
  const lb = new HostComputeLoadBalancer(client, {
    SourceVIP: sourceVIP,
    PortMappings: [
      { Protocol: protocol, InternalPort: internalPort, ExternalPort: externalPort, Flags: portMappingFlags },
    ],
    FrontendVIPs: [...frontendVIPs],
    SchemaVersion: { Major: 2, Minor: 0 },
    Flags: flags,
    HostComputeEndpoints: endpoints.map((e) => e.ID),
  });
  return lb.create();
}
