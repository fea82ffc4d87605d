/**
 * kube-proxy's winkernel proxier as a node agent (reference kubernetes-windows.md §2.4–2.6;
 * kubernetes `pkg/proxy/winkernel` proxier.go, v1.31 era, and hns.go): on one Windows node, per
 * service port a load balancer for the ClusterIP (DSR when `--enable-dsr` is set), one for the
 * NodePort (no frontend VIP, port-mapping flags VipExternalIP + LocalRoutedVIP = 18) and one per
 * external IP and per load-balancer ingress IP (VipExternalIP = 16); those three are DSR, and reach
 * only this node's backends, when the service is `externalTrafficPolicy: Local` and HNS supports
 * DSR (`localTrafficDSR`, whatever `--enable-dsr` says). The endpoints of other nodes are remote
 * endpoints (Flags 1, MAC `02-11-<ip>`, a ProviderAddress policy on overlay), shared by the
 * services that use them and deleted with the last. On overlay, every service with a ClusterIP also
 * gets a remote endpoint for its VIP (MAC = the host's, PA = the node IP) unless an endpoint of the
 * network already has that address; it goes with the service's policies. SourceVIP the node's. No
 * load balancer for a frontend without endpoints (HNS refuses one).
 *
 * Like flanneld's backends (src/plugins/flanneld), the agent programs its node through the node's
 * API and is fed cluster state — here services and their endpoints, by the caller (src/cluster),
 * which also decides when to sync which services.
 */
import { hnsError } from '../../core/errors.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import { must } from '../../api/flat.js';
import { featuresOfVersion } from '../../api/hcn/support.js';
import { conjureMac, macString, parseMAC } from '../../cni/gomac.js';
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
  /**
   * The HNS network of the pods (`--network-name`), '' while it does not exist (an Azure node
   * before azure-vnet's first ADD): a sync then programs nothing, as kube-proxy's does when
   * `getNetworkByName` fails, and the services wait (`damaged`) until the network is there.
   */
  readonly networkId: string;
  /** `--source-vip` on overlay, the node IP on l2bridge. */
  readonly sourceVip: number;
  readonly overlay: boolean;
  /** `--enable-dsr`. */
  readonly dsr: boolean;
  /** The node IP: the ProviderAddress of the service-VIP endpoints, and how the host MAC is found. */
  readonly nodeIp: number;
}

const V2 = { Major: 2, Minor: 0 };
/** Load balancer flag DSR; port-mapping flags LocalRoutedVIP and VipExternalIP (hcsshim hcnloadbalancer.go, proxier.go). */
const LB_DSR = 1;
const PM_LOCAL_ROUTED_VIP = 2;
const PM_VIP_EXTERNAL_IP = 16;

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
  /**
   * Overlay: the service-VIP remote endpoint each service made (upstream `svcInfo.remoteEndpoint`,
   * its reference count 1: only the service that created it holds it, and its cleanup deletes it).
   */
  private readonly svcVips = new Map<string, { readonly ip: number; readonly id: string }>();
  /** The network's endpoints by IPv4 address, as one sync queried them (`getAllEndpointsByNetwork`). */
  private queried: Map<number, string> | undefined;
  /** `hcn.DSRSupported()`, asked once (hcsshim caches the features per process). */
  private dsrSupported: boolean | undefined;
  /** The MAC of the interface holding the node IP, as Go prints it (NewProxier, overlay). */
  private hostMac: string | undefined;
  /** Services a sync could not program because the network did not exist yet. */
  private readonly waiting = new Set<string>();

  constructor(readonly node: WinKernelNode) {}

  /** Delete the LBs and service-VIP endpoints the last sync programmed (backends' remote endpoints go at the end of a sync). */
  clear(): void {
    for (const key of [...this.svcLbs.keys(), ...this.svcVips.keys()]) this.cleanup(key);
    this.svcRemotes.clear();
    this.remoteUsers.clear();
  }

  /** The full sync: every service's LBs anew, in order; remote endpoints no LB uses any more go. */
  syncAll(services: readonly (readonly [string, ProxyService])[]): void {
    this.queried = undefined;
    this.clear();
    this.waiting.clear();
    if (!this.node.networkId) {
      for (const [key] of services) this.waiting.add(key);
      return;
    }
    for (const [key, svc] of services) this.programService(key, svc);
    for (const ip of [...this.remoteEps.keys()]) this.dropRemoteIfUnused(ip);
    this.queried = undefined;
  }

  /**
   * Re-program the services `keys` (in that order): each one's LBs and service-VIP endpoint go
   * (`cleanupAllPolicies`), and come back from `service(key)` when it still has a ClusterIP; then
   * the remote endpoints they used and no service uses any more go.
   */
  sync(keys: readonly string[], service: (key: string) => ProxyService | undefined): void {
    this.queried = undefined;
    const touched = new Set<number>();
    const network = this.node.networkId !== '';
    for (const key of keys) {
      this.waiting.delete(key);
      this.cleanup(key);
      for (const ip of this.svcRemotes.get(key) ?? []) {
        this.remoteUsers.get(ip)?.delete(key);
        touched.add(ip);
      }
      this.svcRemotes.delete(key);
      const svc = service(key);
      if (svc && network) this.programService(key, svc);
      else if (svc) this.waiting.add(key);
    }
    for (const ip of touched) this.dropRemoteIfUnused(ip);
    this.queried = undefined;
  }

  /**
   * Services whose load balancers or remote endpoints (backends' or VIP's) are not what this
   * proxier made, and those still waiting for the network.
   */
  damaged(): Set<string> {
    const s = this.node.host.hns.store;
    const out = new Set<string>(this.waiting);
    for (const [key, lbs] of this.svcLbs)
      if (lbs.some(({ id, rec }) => s.loadBalancers.get(id) !== rec)) out.add(key);
    for (const [ip, id] of this.remoteEps)
      if (!s.endpoints.has(id)) for (const key of this.remoteUsers.get(ip) ?? []) out.add(key);
    for (const [key, { id }] of this.svcVips) if (!s.endpoints.has(id)) out.add(key);
    return out;
  }

  /** A service's LBs go, and its service-VIP endpoint (upstream `cleanupAllPolicies`). */
  private cleanup(key: string): void {
    const { host } = this.node;
    for (const { id } of this.svcLbs.get(key) ?? [])
      if (host.hns.store.loadBalancers.has(id)) must(host.api.HcnDeleteLoadBalancer(id));
    this.svcLbs.delete(key);
    const vip = this.svcVips.get(key);
    if (!vip) return;
    if (host.hns.store.endpoints.has(vip.id)) must(host.api.HcnDeleteEndpoint(vip.id));
    if (this.queried?.get(vip.ip) === vip.id) this.queried.delete(vip.ip);
    this.svcVips.delete(key);
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

  /**
   * `localTrafficDSR`: `externalTrafficPolicy: Local`, forced off when HNS lacks DSR
   * (`newServiceInfo` asks `DsrSupported()`: the DSR range of the version HNS reports; a failed
   * version query counts as no support).
   */
  private localTrafficDsr(spec: ProxyServiceSpec): boolean {
    if (spec.externalTrafficPolicy !== 'Local') return false;
    if (this.dsrSupported === undefined) {
      const r = this.node.host.api.HNSCall('GET', '/globals/version', '');
      const out = r.ok && r.result['Success'] === true ? r.result['Output'] : undefined;
      this.dsrSupported =
        isJsonObject(out) &&
        featuresOfVersion({ Major: Number(out['Major'] ?? 0), Minor: Number(out['Minor'] ?? 0) }).DSR;
    }
    return this.dsrSupported;
  }

  /**
   * The host MAC kube-proxy records on overlay (NewProxier): the hardware address of the interface
   * that holds the node IP, in Go's `HardwareAddr.String()` form (`00:15:5d:…`); none is
   * `could not find host mac address for <ip>`.
   */
  private macOfNodeIp(): string {
    if (this.hostMac !== undefined) return this.hostMac;
    const ip = fmt(this.node.nodeIp);
    const nic = this.node.host.adapters().find((a) => a['IPv4Address'] === ip);
    const mac = nic ? macString(parseMAC(String(nic['MacAddress'] ?? ''))) : '';
    if (!mac) throw hnsError('ERROR_NOT_FOUND', `could not find host mac address for ${ip}`);
    return (this.hostMac = mac);
  }

  /** The network's endpoints by IPv4 address (first one wins), queried once per sync. */
  private endpointsByIp(): Map<number, string> {
    if (this.queried) return this.queried;
    const m = new Map<number, string>();
    const net = this.node.networkId.toUpperCase();
    for (const e of this.node.host.hns.store.endpoints.values()) {
      if (e.HostComputeNetwork.toUpperCase() !== net) continue;
      for (const c of e.IpConfigurations)
        if (c.addr.family === 4 && !m.has(c.addr.value)) m.set(c.addr.value, e.ID);
    }
    return (this.queried = m);
  }

  /**
   * Overlay: a remote endpoint for the service VIP (IP = ClusterIP, MAC = the host's, PA = the node
   * IP) when no endpoint of the network has that address — before the service's endpoints are
   * looked at, so a service without endpoints has one too (syncProxyRules).
   */
  private serviceVipEndpoint(key: string, clusterIP: number): void {
    const { host, networkId, nodeIp } = this.node;
    const have = this.endpointsByIp();
    if (have.has(clusterIP)) return;
    const ep = must(
      host.api.HcnCreateEndpoint(networkId, null, {
        HostComputeNetwork: networkId,
        IpConfigurations: [{ IpAddress: fmt(clusterIP) }],
        MacAddress: this.macOfNodeIp(),
        Flags: 1,
        Policies: [{ Type: 'ProviderAddress', Settings: { ProviderAddress: fmt(nodeIp) } }],
        SchemaVersion: V2,
      }),
    );
    const id = String(ep['ID']);
    have.set(clusterIP, id);
    this.svcVips.set(key, { ip: clusterIP, id });
  }

  /** One service's policies (its LBs must be gone already), with the remote endpoints they need. */
  private programService(key: string, svc: ProxyService): void {
    const { name, host, sourceVip, dsr, overlay } = this.node;
    const { spec, clusterIP, endpoints } = svc;
    if (overlay) this.serviceVipEndpoint(key, clusterIP);
    const localDsr = this.localTrafficDsr(spec);
    const affinity = spec.sessionAffinity === 'ClientIP' ? 2 : 0;
    const remotes: number[] = [];
    const endpointIds = (onNode: boolean) =>
      endpoints
        .filter((b) => !onNode || b.node === name)
        .map((b) => (b.node === name ? b.endpointId! : this.remoteEndpoint(b, key, remotes)));
    const all = endpointIds(false);
    if (remotes.length) this.svcRemotes.set(key, remotes);
    // localTrafficDSR: NodePorts, external and ingress IPs go to this node's backends only
    const external = localDsr ? endpointIds(true) : all;
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
            Flags: lbDsr ? LB_DSR : 0,
            SchemaVersion: V2,
          }),
        );
        const id = String(lb['ID']);
        lbs.push({ id, rec: host.hns.store.loadBalancers.get(id) });
        this.svcLbs.set(key, lbs);
      };
      make([fmt(clusterIP)], port.port, 0, dsr, all);
      if ((spec.type === 'NodePort' || spec.type === 'LoadBalancer') && port.nodePort)
        make([], port.nodePort, PM_VIP_EXTERNAL_IP | PM_LOCAL_ROUTED_VIP, localDsr, external);
      for (const e of spec.externalIPs ?? []) make([e], port.port, PM_VIP_EXTERNAL_IP, localDsr, external);
      if (spec.loadBalancerIP) make([spec.loadBalancerIP], port.port, PM_VIP_EXTERNAL_IP, localDsr, external);
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
