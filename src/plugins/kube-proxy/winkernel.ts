/**
 * kube-proxy's winkernel proxier as a node agent (reference kubernetes-windows.md §2; kubernetes
 * `pkg/proxy/winkernel` proxier.go and hns.go): on one Windows node, per service port a load
 * balancer for the ClusterIP, one for the NodePort (no frontend VIP, the LocalRoutedVIP port flag)
 * and one per external IP; the endpoints of other nodes as remote endpoints (Flags 1, MAC
 * `02-11-<ip>`, a ProviderAddress policy on overlay), shared by the services that use them and
 * deleted with the last; DSR when `--enable-dsr` is set (NodePorts and external IPs only with
 * `externalTrafficPolicy: Local`); SourceVIP the node's. No load balancer for a frontend without
 * endpoints (HNS refuses one).
 *
 * Like flanneld's backends (src/plugins/flanneld), the agent programs its node through the node's
 * API and is fed cluster state — here services and their endpoints, by the caller (src/cluster),
 * which also decides when to sync which services.
 */
import type { JsonObject } from '../../core/json.js';
import { errorOf, type HcnResult } from '../../api/flat.js';
import { conjureMac } from '../../cni/gomac.js';
import type { Host } from '../../host/host.js';
import { fmt } from '../../vswitch/v4.js';

/** A service port as kube-proxy reads it. */
export interface ProxyServicePort {
  readonly port: number;
  readonly targetPort?: number;
  readonly protocol?: 'TCP' | 'UDP';
  readonly nodePort?: number;
}

/** The fields of a Service kube-proxy programs from. */
export interface ProxyServiceSpec {
  readonly type?: 'ClusterIP' | 'NodePort' | 'LoadBalancer';
  readonly ports: readonly ProxyServicePort[];
  readonly externalIPs?: readonly string[];
  readonly loadBalancerIP?: string;
  readonly sessionAffinity?: 'None' | 'ClientIP';
  readonly externalTrafficPolicy?: 'Cluster' | 'Local';
}

/** One endpoint of a service: a pod's IPv4 address and its node (`endpointId`: its local HNS endpoint). */
export interface ProxyEndpoint {
  readonly ip: number;
  readonly node: string;
  /** The node's address: a remote endpoint's provider address on overlay. */
  readonly nodeIp: number;
  /** The pod's HNS endpoint, for an endpoint on this agent's node. */
  readonly endpointId?: string;
}

/** A service with a ClusterIP and its endpoints, as one sync programs it. */
export interface ProxyService {
  readonly spec: ProxyServiceSpec;
  readonly clusterIP: number;
  readonly endpoints: readonly ProxyEndpoint[];
}

/** The node a winkernel proxier runs on. */
export interface WinKernelNode {
  /** The node's name (an endpoint on it is local). */
  readonly name: string;
  readonly host: Host;
  /** The HNS network of the pods (`--network-name`). */
  readonly networkId: string;
  /** `--source-vip` on overlay, the node IP on l2bridge. */
  readonly sourceVip: number;
  readonly overlay: boolean;
  /** `--enable-dsr`. */
  readonly dsr: boolean;
}

const V2 = { Major: 2, Minor: 0 };

/** The result of a call the proxier makes; a failure is thrown as the HRESULT it was. */
function must<T>(r: HcnResult<T>): T {
  if (!r.ok) throw errorOf(r);
  return r.result;
}

function protoNum(p: 'TCP' | 'UDP' | undefined): number {
  return p === 'UDP' ? 17 : 6;
}

/** kube-proxy winkernel on one Windows node. */
export class WinKernelProxy {
  /** The LBs this proxier made, by service key, in creation order, with their records. */
  private readonly svcLbs = new Map<string, { readonly id: string; readonly rec: unknown }[]>();
  /** The remote endpoints by backend IPv4 address. */
  private readonly remoteEps = new Map<number, string>();
  /** The services using each remote endpoint (by backend IP), and the backend IPs of each service. */
  private readonly remoteUsers = new Map<number, Set<string>>();
  private readonly svcRemotes = new Map<string, number[]>();

  constructor(readonly node: WinKernelNode) {}

  /** Delete the LBs the last sync programmed (the remote endpoints go at the end of a sync). */
  clear(): void {
    const { host } = this.node;
    for (const lbs of this.svcLbs.values())
      for (const { id } of lbs)
        if (host.hns.store.loadBalancers.has(id)) must(host.api.HcnDeleteLoadBalancer(id));
    this.svcLbs.clear();
    this.svcRemotes.clear();
    this.remoteUsers.clear();
  }

  /** The full sync: every service's LBs anew, in order; remote endpoints no LB uses any more go. */
  syncAll(services: readonly (readonly [string, ProxyService])[]): void {
    this.clear();
    for (const [key, svc] of services) this.programService(key, svc);
    for (const ip of [...this.remoteEps.keys()]) this.dropRemoteIfUnused(ip);
  }

  /**
   * Re-program the services `keys` (in that order): each one's LBs go, and come back from
   * `service(key)` when it still has a ClusterIP; then the remote endpoints they used and no
   * service uses any more go.
   */
  sync(keys: readonly string[], service: (key: string) => ProxyService | undefined): void {
    const { host } = this.node;
    const touched = new Set<number>();
    for (const key of keys) {
      for (const { id } of this.svcLbs.get(key) ?? [])
        if (host.hns.store.loadBalancers.has(id)) must(host.api.HcnDeleteLoadBalancer(id));
      this.svcLbs.delete(key);
      for (const ip of this.svcRemotes.get(key) ?? []) {
        this.remoteUsers.get(ip)?.delete(key);
        touched.add(ip);
      }
      this.svcRemotes.delete(key);
      const svc = service(key);
      if (svc) this.programService(key, svc);
    }
    for (const ip of touched) this.dropRemoteIfUnused(ip);
  }

  /** Services whose load balancers or remote endpoints are not what this proxier made. */
  damaged(): Set<string> {
    const s = this.node.host.hns.store;
    const out = new Set<string>();
    for (const [key, lbs] of this.svcLbs)
      if (lbs.some(({ id, rec }) => s.loadBalancers.get(id) !== rec)) out.add(key);
    for (const [ip, id] of this.remoteEps)
      if (!s.endpoints.has(id)) for (const key of this.remoteUsers.get(ip) ?? []) out.add(key);
    return out;
  }

  /** Delete the remote endpoint of `ip` when no service uses it any more. */
  private dropRemoteIfUnused(ip: number): void {
    if (this.remoteUsers.get(ip)?.size) return;
    this.remoteUsers.delete(ip);
    const id = this.remoteEps.get(ip);
    if (id === undefined) return;
    const { host } = this.node;
    if (host.hns.store.endpoints.has(id)) must(host.api.HcnDeleteEndpoint(id));
    this.remoteEps.delete(ip);
  }

  /** One service's LBs (its LBs must be gone already), with the remote endpoints they need. */
  private programService(key: string, svc: ProxyService): void {
    const { name, host, sourceVip, dsr } = this.node;
    const { spec, clusterIP, endpoints } = svc;
    const local = spec.externalTrafficPolicy === 'Local';
    const affinity = spec.sessionAffinity === 'ClientIP' ? 2 : 0;
    const remotes: number[] = [];
    const endpointIds = (onNode: boolean) =>
      endpoints
        .filter((b) => !onNode || b.node === name)
        .map((b) => (b.node === name ? b.endpointId! : this.remoteEndpoint(b, key, remotes)));
    const all = endpointIds(false);
    if (remotes.length) this.svcRemotes.set(key, remotes);
    // externalTrafficPolicy Local: NodePorts and external IPs go to this node's backends only
    const external = local ? endpointIds(true) : all;
    const externalIps = [...(spec.externalIPs ?? []), ...(spec.loadBalancerIP ? [spec.loadBalancerIP] : [])];
    const lbs: { id: string; rec: unknown }[] = [];
    for (const port of spec.ports) {
      const make = (vips: string[], ext: number, flags: number, lbDsr: boolean, eps: string[]) => {
        // kube-proxy programs no load balancer for a service without endpoints (HNS refuses one)
        if (!eps.length) return;
        const lb = must(
          host.api.HcnCreateLoadBalancer(null, {
            HostComputeEndpoints: eps,
            SourceVIP: fmt(sourceVip),
            FrontendVIPs: vips,
            PortMappings: [
              {
                Protocol: protoNum(port.protocol),
                InternalPort: port.targetPort ?? port.port,
                ExternalPort: ext,
                DistributionType: affinity,
                Flags: flags,
              },
            ],
            Flags: lbDsr ? 1 : 0,
            SchemaVersion: V2,
          }),
        );
        const id = String(lb['ID']);
        lbs.push({ id, rec: host.hns.store.loadBalancers.get(id) });
        this.svcLbs.set(key, lbs);
      };
      make([fmt(clusterIP)], port.port, 0, dsr, all);
      if ((spec.type === 'NodePort' || spec.type === 'LoadBalancer') && port.nodePort)
        make([], port.nodePort, 2, dsr && local, external);
      for (const e of externalIps) make([e], port.port, 0, dsr && local, external);
    }
  }

  /** A remote endpoint for a backend on another node, reused by IP. */
  private remoteEndpoint(b: ProxyEndpoint, key: string, remotes: number[]): string {
    const { host, networkId, overlay } = this.node;
    const users = this.remoteUsers.get(b.ip);
    if (users) users.add(key);
    else this.remoteUsers.set(b.ip, new Set([key]));
    remotes.push(b.ip);
    const have = this.remoteEps.get(b.ip);
    if (have && host.hns.store.endpoints.has(have)) return have;
    const doc: JsonObject = {
      HostComputeNetwork: networkId,
      IpConfigurations: [{ IpAddress: fmt(b.ip) }],
      MacAddress: conjureMac('02-11', b.ip),
      Flags: 1,
      SchemaVersion: V2,
    };
    if (overlay)
      doc['Policies'] = [{ Type: 'ProviderAddress', Settings: { ProviderAddress: fmt(b.nodeIp) } }];
    const ep = must(host.api.HcnCreateEndpoint(networkId, null, doc));
    const id = String(ep['ID']);
    this.remoteEps.set(b.ip, id);
    return id;
  }
}
