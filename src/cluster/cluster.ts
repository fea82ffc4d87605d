/**
 * A cluster (DESIGN: cluster/): Windows hosts and Linux nodes on an underlay, Kubernetes-level
 * objects — nodes, pods, services — and cluster DNS, with traces and traffic across all of them.
 *
 * The HNS state of each Windows node is programmed through its flat API the way the real clients
 * do it, so the dataplane sees what a real node would hold (each step cites the client):
 * - `l2bridge` nodes as flannel host-gw + win-bridge: an L2Bridge network `cbr0` on the node's pod
 *   subnet (gateway .1), the bridge endpoint `cbr0_ep` at .2 attached to the host compartment
 *   (flannel `pkg/backend/hostgw/hostgw_windows.go`), host routes to every other node's pod subnet
 *   via that node, and pod endpoints with gateway .2, OutBoundNAT exceptions for the pod and service
 *   CIDRs and `ROUTE` NeedEncap policies for the service CIDR and the management IP (cni-windows.md
 *   W1, `win-bridge/sample-v1.conf`);
 * - `overlay` nodes as flannel vxlan + win-overlay: an Overlay network `flannel.<VNI>` with the
 *   subnet's VSID, a HostRoute policy, a RemoteSubnetRoute per other node with its DR MAC or VTEP
 *   MAC (flannel `pkg/backend/vxlan/*_windows.go`), pod endpoints with MAC `0E-2A-<ip>`, a
 *   ProviderAddress policy, OutBoundNAT exceptions and the service-CIDR SDNRoute; and kube-proxy's
 *   source-VIP endpoint (microsoft/SDN `helper.psm1`, winkernel);
 * - services as kube-proxy winkernel programs them: a load balancer per service port and frontend
 *   (ClusterIP, NodePort with no VIP and LocalRoutedVIP, external IPs), remote endpoints (Flags 1,
 *   MAC `02-11-<ip>`, ProviderAddress on overlay) for backends on other nodes, DSR when the cluster
 *   says so (`--enable-dsr`), SourceVIP the node IP (l2bridge) or the source VIP (overlay).
 *
 * Objects can be added in any order. A pod or service change re-programs only the services it
 * touches, on every node (`kubeProxySync: 'incremental'`, the default); a node, segment or underlay
 * change, or `kubeProxySync: 'full'`, re-syncs every service (kube-proxy's full sync). Both leave
 * each node with the same objects (test/cluster/sync.prop.test.ts), only their GUIDs and
 * enumeration order differ.
 *
 *   const c = new Cluster({ seed: 1 });
 *   c.addWindowsNode({ name: 'win-1', network: 'overlay' });
 *   c.addPod({ namespace: 'default', name: 'web', node: 'win-1', labels: { app: 'web' } });
 *   c.trace({ from: 'default/web', to: 'www.bing.com' });
 */
import { hnsError } from '../core/errors.js';
import type { JsonObject } from '../core/json.js';
import { formatMac, parseMac } from '../addr/mac.js';
import { createHost, type Host } from '../host/host.js';
import { Conntrack } from '../dataplane/conntrack.js';
import { findPort, hostSource, portSource } from '../dataplane/host-scope.js';
import type { DataplaneOptions } from '../dataplane/plane.js';
import {
  FlowTable,
  runSend,
  runTrace,
  type DnsOutcome,
  type SendRequest,
  type Source,
  type Target,
  type TraceRequest,
  type TraceResult,
  type TraceScope,
} from '../dataplane/trace.js';
import type { Walk, WalkEnd, World } from '../dataplane/walk.js';
import { errorOf, type HcnResult } from '../api/flat.js';
import {
  contains,
  fmt,
  fmtPrefix,
  ip4,
  parsePrefix4,
  prefix4,
  prefixArg,
  type Prefix4,
} from '../vswitch/v4.js';
import {
  ClusterDns,
  resolve as resolveName,
  selects,
  type DnsClientOptions,
  type EndpointDnsSettings,
  type ResolveResult,
} from './dns.js';
import { LinuxNode, serviceKey, type LinuxService, type LinuxVxlan } from './linux.js';
import { ExternalHost, Fabric } from './underlay.js';

export interface ClusterOptions {
  readonly seed?: number;
  /** The pod network (default 10.244.0.0/16); node i gets 10.244.(i+1).0/24. */
  readonly podCidr?: string;
  readonly serviceCidr?: string;
  /** The nodes' segment (default 10.0.0.0/24, router .1, nodes from .10). */
  readonly nodeSubnet?: string;
  readonly domain?: string;
  /** The kube-dns service address (default the service CIDR's .10). */
  readonly dnsServiceIp?: string;
  /** kube-proxy `--enable-dsr` (default false). */
  readonly dsr?: boolean;
  /** win-bridge/win-overlay `loopbackDSR` (default: on when DSR is). */
  readonly loopbackDsr?: boolean;
  /** Windows DNS client choices (src/cluster/dns.ts). */
  readonly dns?: DnsClientOptions;
  /** HNS version profile of Windows nodes (default ws2022). */
  readonly profile?: string;
  /** Dataplane options of every Windows node. */
  readonly dataplane?: DataplaneOptions;
  /**
   * How l2bridge / host-gw nodes reach each other's pod subnets: host routes as flannel host-gw
   * adds them (`host-gw`, default; nodes must share a segment), or routes on the underlay router
   * ("upstream L3 routing", `tor`).
   */
  readonly l2bridgeRouting?: 'host-gw' | 'tor';
  /**
   * How a pod or service change reaches kube-proxy's load balancers: `incremental` (default)
   * deletes and re-creates the load balancers of the services the change touches, on every
   * node; `full` re-creates every load balancer on every node on every change (the reference the
   * incremental sync is tested against). Node and underlay changes always sync everything.
   */
  readonly kubeProxySync?: 'incremental' | 'full';
}

export interface WindowsNodeSpec {
  readonly name: string;
  /** The underlay segment (default `nodes`; see `addSegment`). */
  readonly segment?: string;
  readonly network: 'l2bridge' | 'overlay';
  readonly podSubnet?: string;
  readonly profile?: string;
  /** Overlay: the VNI (default 4096) and VXLAN port (default 4789). */
  readonly vni?: number;
  readonly vxlanPort?: number;
  /** Whether the node's NIC allows MAC spoofing (default true, as a VM host for containers needs). */
  readonly macSpoofing?: boolean;
}

export interface LinuxNodeSpec {
  readonly name: string;
  /** The underlay segment (default `nodes`; see `addSegment`). */
  readonly segment?: string;
  readonly backend: 'host-gw' | 'vxlan';
  readonly podSubnet?: string;
  /** Linux flannel's defaults are VNI 1 and port 8472; a mixed cluster sets 4096 / 4789. */
  readonly vni?: number;
  readonly vxlanPort?: number;
  readonly mtu?: number;
}

export interface PodSpec {
  readonly namespace: string;
  readonly name: string;
  readonly node: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly hostname?: string;
  readonly subdomain?: string;
  /** Extra HNS endpoint policies (v2 JSON), e.g. ACLs, on a Windows node. */
  readonly policies?: readonly JsonObject[];
  /**
   * A Windows pod whose endpoint a runtime already made (containerd's CNI ADD on the node): the
   * cluster adopts the endpoint and its IPv4 address instead of programming one, and leaves its
   * removal to the runtime (CNI DEL).
   */
  readonly endpointId?: string;
}

export interface ServicePortSpec {
  readonly port: number;
  readonly targetPort?: number;
  readonly protocol?: 'TCP' | 'UDP';
  readonly nodePort?: number;
  readonly name?: string;
}

export interface ServiceSpec {
  readonly namespace: string;
  readonly name: string;
  readonly type?: 'ClusterIP' | 'NodePort' | 'LoadBalancer';
  /** Default: the next free address of the service CIDR; `None` = headless. */
  readonly clusterIP?: string;
  readonly ports: readonly ServicePortSpec[];
  readonly selector: Readonly<Record<string, string>>;
  readonly externalIPs?: readonly string[];
  readonly loadBalancerIP?: string;
  readonly sessionAffinity?: 'None' | 'ClientIP';
  readonly externalTrafficPolicy?: 'Cluster' | 'Local';
}

interface WinNode {
  readonly kind: 'Windows';
  readonly name: string;
  readonly segment: string;
  readonly host: Host;
  readonly ip: number;
  readonly mac: number;
  readonly spec: WindowsNodeSpec;
  readonly podSubnet: Prefix4;
  readonly networkId: string;
  /** The network's DR MAC (overlay). */
  readonly drMac: number;
  /** kube-proxy's source VIP (overlay) or the node IP. */
  readonly sourceVip: number;
  nextPod: number;
  /** The LBs this cluster's "kube-proxy" made, by service key, in creation order, with their records. */
  readonly svcLbs: Map<string, { readonly id: string; readonly rec: unknown }[]>;
  /** kube-proxy's remote endpoints by backend IPv4 address. */
  readonly remoteEps: Map<number, string>;
  /** The services using each remote endpoint (by backend IP), and the backend IPs of each service. */
  readonly remoteUsers: Map<number, Set<string>>;
  readonly svcRemotes: Map<string, number[]>;
  /** The node's HNS generation after the cluster last programmed it (another change means repair). */
  syncedGen: number;
}

interface LnxNode {
  readonly kind: 'Linux';
  readonly name: string;
  readonly segment: string;
  readonly node: LinuxNode;
  readonly ip: number;
  readonly spec: LinuxNodeSpec;
  readonly podSubnet: Prefix4;
}

type AnyNode = WinNode | LnxNode;

export interface PodInfo {
  readonly namespace: string;
  readonly name: string;
  readonly node: string;
  readonly ip: string;
  /** The HNS endpoint (Windows nodes). */
  readonly endpointId?: string;
  readonly labels: Readonly<Record<string, string>>;
}

interface PodRec extends PodInfo {
  readonly ipNum: number;
  /** The endpoint is the runtime's (PodSpec.endpointId): removePod leaves it. */
  readonly adopted?: boolean;
  readonly hostname?: string;
  readonly subdomain?: string;
  readonly dnsServer: boolean;
}

interface ServiceRec {
  readonly spec: ServiceSpec;
  readonly clusterIP: number | 'None';
}

/** A service with a ClusterIP and the pods its selector picks, as one sync programs it. */
interface ProgrammedService {
  readonly spec: ServiceSpec;
  readonly clusterIP: number;
  readonly backends: readonly PodRec[];
}

/** A finding of `check()`: overlay settings that do not agree between nodes. */
export interface ClusterFinding {
  readonly severity: 'error' | 'warning';
  readonly nodes: readonly string[];
  readonly setting: 'VNI' | 'UDP port' | 'MTU' | 'backend';
  readonly message: string;
}

/** The result of a call the cluster's own set-up makes; a failure is thrown as the HRESULT it was. */
function must<T>(r: HcnResult<T>): T {
  if (!r.ok) throw errorOf(r);
  return r.result;
}

const V2 = { Major: 2, Minor: 0 };

/**
 * `<prefix>-<ip as four %02x bytes>`, lower-case hex as win-overlay and kube-proxy `Sprintf` it (HNS
 * keeps a caller's MAC as written, so not `formatMac`, which is upper case).
 */
function ipMac(prefix: string, ip: number): string {
  const b = [(ip >>> 24) & 255, (ip >>> 16) & 255, (ip >>> 8) & 255, ip & 255].map((x) =>
    x.toString(16).padStart(2, '0'),
  );
  return `${prefix}-${b.join('-')}`;
}

function protoNum(p: 'TCP' | 'UDP' | undefined): number {
  return p === 'UDP' ? 17 : 6;
}

/** flannel host-gw peers: l2bridge Windows nodes and host-gw Linux nodes. */
function isHostGw(n: AnyNode): boolean {
  return n.kind === 'Windows' ? n.spec.network === 'l2bridge' : n.spec.backend === 'host-gw';
}

/** The MAC a VXLAN peer's packets go to: a Windows overlay node's DR MAC or a Linux VTEP's MAC. */
function vtepMac(n: AnyNode): number | undefined {
  if (n.kind === 'Windows') return n.spec.network === 'overlay' ? n.drMac : undefined;
  return n.node.vxlan?.mac;
}

/** Add an endpoint to a namespace, or remove it (HcnModifyNamespace, as containerd and flannel call it). */
function namespaceEndpoint(
  host: Host,
  namespaceId: string,
  endpointId: string,
  request: 'Add' | 'Remove',
): void {
  must(
    host.api.HcnModifyNamespace(namespaceId, {
      ResourceType: 'Endpoint',
      RequestType: request,
      Settings: { EndpointId: endpointId },
    }),
  );
}

/** A DNS client's outcome as a trace reports it (the first address answers). */
function dnsOutcome(name: string, r: ResolveResult, query?: TraceResult): DnsOutcome {
  if (r.ok)
    return query
      ? { name, tried: r.tried, fqdn: r.fqdn, address: r.addresses[0]!, query }
      : { name, tried: r.tried, fqdn: r.fqdn, address: r.addresses[0]! };
  return query
    ? { name, tried: r.tried, query, reason: r.reason }
    : { name, tried: r.tried, reason: r.reason };
}

export class Cluster {
  readonly options: ClusterOptions;
  readonly fabric = new Fabric();
  readonly dns: ClusterDns;
  readonly podCidr: Prefix4;
  readonly serviceCidr: Prefix4;
  readonly nodeSubnet: Prefix4;
  readonly dnsServiceIp: number;
  private readonly nodes = new Map<string, AnyNode>();
  private readonly pods = new Map<string, PodRec>();
  private readonly services = new Map<string, ServiceRec>();
  private readonly segments = new Map<string, { prefix: Prefix4; next: number }>();
  private nextNodeIndex = 1;
  private nextServiceIp: number;
  private gen = 0;
  readonly conntrack = new Conntrack();
  readonly flowTable = new FlowTable();
  private readonly scope: ClusterScope;

  constructor(options: ClusterOptions = {}) {
    this.options = options;
    this.podCidr = prefixArg(options.podCidr ?? '10.244.0.0/16', 'podCidr');
    this.serviceCidr = prefixArg(options.serviceCidr ?? '10.96.0.0/12', 'serviceCidr');
    this.nodeSubnet = prefixArg(options.nodeSubnet ?? '10.0.0.0/24', 'nodeSubnet');
    const dnsIp = options.dnsServiceIp ? ip4(options.dnsServiceIp) : (this.serviceCidr.addr + 10) >>> 0;
    if (dnsIp === undefined || !contains(this.serviceCidr, dnsIp))
      throw hnsError('E_INVALIDARG', `dnsServiceIp "${options.dnsServiceIp}" is not in the service CIDR`);
    this.dnsServiceIp = dnsIp;
    this.nextServiceIp = (this.serviceCidr.addr + 11) >>> 0;
    this.dns = new ClusterDns({ domain: options.domain ?? 'cluster.local' });
    this.fabric.addSegment('nodes', fmtPrefix(this.nodeSubnet));
    this.fabric.privatePrefixes.push(this.podCidr, this.serviceCidr);
    this.fabric.addRouter({
      name: 'router',
      interfaces: [{ segment: 'nodes', ip: fmt(this.nodeSubnet.addr + 1) }],
      internet: true,
    });
    this.segments.set('nodes', { prefix: this.nodeSubnet, next: (this.nodeSubnet.addr + 10) >>> 0 });
    // the API server's service (`kubernetes.default`), as every cluster has
    this.putService(
      { namespace: 'default', name: 'kubernetes', ports: [{ port: 443, targetPort: 6443 }], selector: {} },
      (this.serviceCidr.addr + 1) >>> 0,
    );
    this.scope = new ClusterScope(this);
  }

  get seed(): number {
    return this.options.seed ?? 1;
  }

  get dsr(): boolean {
    return this.options.dsr ?? false;
  }

  /**
   * A number that moves with any change of any node, the underlay or the objects: the sum of their
   * generations, each of which only grows (a sum stays exact where a polynomial hash of many nodes
   * would pass 2^53 and lose a last node's change).
   */
  generation(): number {
    let g = this.gen + this.fabric.generation;
    for (const n of this.nodes.values()) if (n.kind === 'Windows') g += n.host.dataplane.generation();
    return g;
  }

  // ───────────────────────────── nodes ─────────────────────────────

  private takeNodeIp(segment: string): { ip: number; prefix: Prefix4; gateway: number } {
    const seg = this.segments.get(segment);
    if (!seg) throw hnsError('ERROR_NOT_FOUND', `no segment "${segment}"`);
    const ip = seg.next;
    if (!contains(seg.prefix, ip + 1))
      throw hnsError('E_INVALIDARG', `segment ${segment} (${fmtPrefix(seg.prefix)}) is full`);
    seg.next = (ip + 1) >>> 0;
    return { ip, prefix: seg.prefix, gateway: (seg.prefix.addr + 1) >>> 0 };
  }

  /**
   * Another L2 segment for nodes, joined to the others by the underlay router at its .1 (nodes on
   * different segments reach each other's pods only by overlay or ToR routes, not host-gw).
   */
  addSegment(name: string, prefix: string): void {
    const p = prefixArg(prefix, 'segment prefix', 28);
    for (const [n, s] of this.segments)
      if (n === name || contains(s.prefix, p.addr) || contains(p, s.prefix.addr))
        throw hnsError(
          'E_INVALIDARG',
          `segment "${name}" ${prefix} clashes with ${n} ${fmtPrefix(s.prefix)}`,
        );
    this.fabric.addSegment(name, fmtPrefix(p));
    this.fabric.addRouterInterface('router', name, fmt(p.addr + 1));
    this.segments.set(name, { prefix: p, next: (p.addr + 10) >>> 0 });
    this.changed();
  }

  private podSubnetFor(given: string | undefined): Prefix4 {
    if (given) return prefixArg(given, 'podSubnet', 29);
    const p = prefix4((this.podCidr.addr + (this.nextNodeIndex << 8)) >>> 0, 24);
    if (!contains(this.podCidr, p.addr))
      throw hnsError('E_INVALIDARG', `pod CIDR ${fmtPrefix(this.podCidr)} has no /24 left`);
    return p;
  }

  private checkName(name: string): void {
    if (!name || this.nodes.has(name))
      throw hnsError('E_INVALIDARG', `node name "${name}" is empty or taken`);
  }

  /** Add a Windows node, set up as flannel (host-gw or vxlan) + win-bridge / win-overlay would. */
  addWindowsNode(spec: WindowsNodeSpec): Host {
    this.checkName(spec.name);
    if (spec.network !== 'l2bridge' && spec.network !== 'overlay')
      throw hnsError('E_INVALIDARG', `network must be l2bridge or overlay`);
    const podSubnet = this.podSubnetFor(spec.podSubnet);
    const segment = spec.segment ?? 'nodes';
    const { ip, prefix: segPrefix, gateway: segGw } = this.takeNodeIp(segment);
    const index = this.nextNodeIndex++;
    const mac = 0x000d3a000000 + index;
    const host = createHost({
      seed: this.seed * 1000 + index,
      name: spec.name,
      profile: spec.profile ?? this.options.profile ?? 'ws2022',
      adapters: [
        {
          name: 'Ethernet',
          ipAddress: `${fmt(ip)}/${segPrefix.len}`,
          gateway: fmt(segGw),
          macAddress: formatMac(mac),
          macSpoofing: spec.macSpoofing ?? true,
        },
      ],
      ...(this.options.dataplane ? { dataplane: this.options.dataplane } : {}),
    });
    const gw = fmt(podSubnet.addr + 1);
    let networkId: string;
    let drMac = 0;
    let sourceVip = ip;
    if (spec.network === 'l2bridge') {
      const net = must(
        host.api.HcnCreateNetwork(null, {
          Name: 'cbr0',
          Type: 'L2Bridge',
          Policies: [{ Type: 'NetAdapterName', Settings: { NetworkAdapterName: 'Ethernet' } }],
          Ipams: [
            {
              Type: 'Static',
              Subnets: [
                {
                  IpAddressPrefix: fmtPrefix(podSubnet),
                  Routes: [{ NextHop: gw, DestinationPrefix: '0.0.0.0/0' }],
                },
              ],
            },
          ],
          SchemaVersion: V2,
        }),
      );
      networkId = String(net['ID']);
      // flannel host-gw: the bridge endpoint cbr0_ep at .2, attached to the host compartment
      const ep = must(
        host.api.HcnCreateEndpoint(networkId, null, {
          Name: 'cbr0_ep',
          HostComputeNetwork: networkId,
          IpConfigurations: [{ IpAddress: fmt(podSubnet.addr + 2), PrefixLength: podSubnet.len }],
          SchemaVersion: V2,
        }),
      );
      this.attachToHost(host, String(ep['ID']));
    } else {
      const vni = spec.vni ?? 4096;
      const port = spec.vxlanPort ?? 4789;
      const policies: JsonObject[] = [
        { Type: 'NetAdapterName', Settings: { NetworkAdapterName: 'Ethernet' } },
      ];
      if (port !== 4789) policies.push({ Type: 'VxlanPort', Settings: { Port: port } });
      const net = must(
        host.api.HcnCreateNetwork(null, {
          Name: `flannel.${vni}`,
          Type: 'Overlay',
          Policies: policies,
          Ipams: [
            {
              Type: 'Static',
              Subnets: [
                {
                  IpAddressPrefix: fmtPrefix(podSubnet),
                  Policies: [{ Type: 'VSID', Settings: { IsolationId: vni } }],
                  Routes: [{ NextHop: gw, DestinationPrefix: '0.0.0.0/0' }],
                },
              ],
            },
          ],
          Flags: 8,
          SchemaVersion: V2,
        }),
      );
      networkId = String(net['ID']);
      must(
        host.api.HcnModifyNetwork(networkId, {
          ResourceType: 'Policy',
          RequestType: 'Add',
          Settings: { Policies: [{ Type: 'HostRoute', Settings: {} }] },
        }),
      );
      const rec = host.hns.store.networks.get(networkId)!;
      drMac = parseMac(rec.DrMacAddress ?? '') ?? 0;
      // kube-proxy's source VIP endpoint: host MAC, PA = node IP (winkernel; microsoft/SDN helper.psm1)
      sourceVip = (podSubnet.addr + 2) >>> 0;
      must(
        host.api.HcnCreateEndpoint(networkId, null, {
          Name: 'sourcevip',
          HostComputeNetwork: networkId,
          IpConfigurations: [{ IpAddress: fmt(sourceVip), PrefixLength: podSubnet.len }],
          MacAddress: formatMac(mac),
          Policies: [{ Type: 'ProviderAddress', Settings: { ProviderAddress: fmt(ip) } }],
          SchemaVersion: V2,
        }),
      );
    }
    const node: WinNode = {
      kind: 'Windows',
      name: spec.name,
      segment,
      host,
      ip,
      mac,
      spec,
      podSubnet,
      networkId,
      drMac,
      sourceVip,
      nextPod: 3,
      svcLbs: new Map(),
      remoteEps: new Map(),
      remoteUsers: new Map(),
      svcRemotes: new Map(),
      syncedGen: -1,
    };
    this.nodes.set(spec.name, node);
    this.fabric.attach(segment, host.dataplane, ip, mac);
    this.changed();
    return host;
  }

  private attachToHost(host: Host, endpointId: string): void {
    // flannel's HostAttach(1): the endpoint joins the host's default compartment
    const ns = [...host.hns.store.namespaces.values()].find((n) => n.NamespaceId === 1);
    if (!ns) throw hnsError('ERROR_NOT_FOUND', 'the host has no HostDefault namespace');
    namespaceEndpoint(host, ns.ID, endpointId, 'Add');
  }

  /** Add a Linux node (flannel host-gw or vxlan). */
  addLinuxNode(spec: LinuxNodeSpec): LinuxNode {
    this.checkName(spec.name);
    if (spec.backend !== 'host-gw' && spec.backend !== 'vxlan')
      throw hnsError('E_INVALIDARG', `backend must be host-gw or vxlan`);
    const podSubnet = this.podSubnetFor(spec.podSubnet);
    const segment = spec.segment ?? 'nodes';
    const { ip, gateway: segGw } = this.takeNodeIp(segment);
    const index = this.nextNodeIndex++;
    const mac = 0x005056000000 + index;
    const vxlan: LinuxVxlan | undefined =
      spec.backend === 'vxlan'
        ? {
            vni: spec.vni ?? 1,
            port: spec.vxlanPort ?? 8472,
            mac: 0x0e2a00000000 + index,
            mtu: spec.mtu ?? 1450,
          }
        : undefined;
    const node = new LinuxNode(spec.name, ip, mac, segGw, podSubnet, this.podCidr, vxlan, (w, from, p, hop) =>
      this.fabric.send(w, from, p, hop),
    );
    this.nodes.set(spec.name, { kind: 'Linux', name: spec.name, segment, node, ip, spec, podSubnet });
    this.fabric.attach(segment, node, ip, mac);
    this.changed();
    return node;
  }

  /** An outside host (a web server, …) with an optional DNS name the cluster's upstream answers. */
  addExternalHost(spec: { readonly name: string; readonly ip: string; readonly dnsName?: string }): void {
    const ip = ip4(spec.ip);
    if (ip === undefined) throw hnsError('E_INVALIDARG', `external host address "${spec.ip}"`);
    if (contains(this.nodeSubnet, ip) || contains(this.podCidr, ip) || contains(this.serviceCidr, ip))
      throw hnsError('E_INVALIDARG', `${spec.ip} is inside the cluster's networks`);
    this.fabric.addExternal(spec.name, ip);
    if (spec.dnsName) this.dns.addExternal(spec.dnsName, ip);
    this.changed();
  }

  /** A ToR route on the underlay router ("upstream L3 routing"). */
  addRouterRoute(destinationPrefix: string, nextHop: string): void {
    this.fabric.addRoute('router', destinationPrefix, nextHop);
    this.changed();
  }

  host(name: string): Host {
    const n = this.nodes.get(name);
    if (!n || n.kind !== 'Windows') throw hnsError('ERROR_NOT_FOUND', `no Windows node "${name}"`);
    return n.host;
  }

  linux(name: string): LinuxNode {
    const n = this.nodes.get(name);
    if (!n || n.kind !== 'Linux') throw hnsError('ERROR_NOT_FOUND', `no Linux node "${name}"`);
    return n.node;
  }

  nodeNames(): string[] {
    return [...this.nodes.keys()];
  }

  /** @internal */
  nodeOf(name: string): AnyNode | undefined {
    return this.nodes.get(name);
  }

  /** @internal */
  allNodes(): Iterable<AnyNode> {
    return this.nodes.values();
  }

  // ───────────────────────────── pods ─────────────────────────────

  addPod(spec: PodSpec): PodInfo {
    const key = `${spec.namespace}/${spec.name}`;
    if (!spec.namespace || !spec.name || this.pods.has(key))
      throw hnsError('E_INVALIDARG', `pod "${key}" is unnamed or exists`);
    const node = this.nodes.get(spec.node);
    if (!node) throw hnsError('ERROR_NOT_FOUND', `no node "${spec.node}"`);
    const labels = spec.labels ?? {};
    const extra = {
      ...(spec.hostname ? { hostname: spec.hostname } : {}),
      ...(spec.subdomain ? { subdomain: spec.subdomain } : {}),
    };
    let ip: number;
    let endpoint: { endpointId: string; adopted?: boolean } | undefined;
    if (node.kind === 'Linux') {
      if (spec.policies?.length) throw hnsError('E_INVALIDARG', 'HNS policies need a Windows node');
      ip = node.node.addPod(spec.namespace, spec.name).ip;
    } else if (spec.endpointId !== undefined) {
      if (spec.policies?.length)
        throw hnsError('E_INVALIDARG', 'an adopted endpoint has the policies its runtime gave it');
      const ep = node.host.hns.store.endpoints.get(spec.endpointId);
      const v4 = ep?.IpConfigurations.find((c) => c.addr.family === 4);
      const adoptedIp = v4 ? ip4(v4.IpAddress) : undefined;
      if (!ep || adoptedIp === undefined)
        throw hnsError(
          'ERROR_NOT_FOUND',
          `no endpoint "${spec.endpointId}" with an IPv4 address on ${node.name}`,
        );
      ip = adoptedIp;
      endpoint = { endpointId: ep.ID, adopted: true };
    } else {
      ip = (node.podSubnet.addr + node.nextPod) >>> 0;
      if (!contains(node.podSubnet, ip + 1))
        throw hnsError('E_INVALIDARG', `pod subnet of ${node.name} is full`);
      // the cluster's own endpoint is no change behind its back (the sync need not repair the node)
      const clean = node.host.dataplane.generation() === node.syncedGen;
      endpoint = { endpointId: this.createPodEndpoint(node, spec, ip) };
      if (clean) node.syncedGen = node.host.dataplane.generation();
      node.nextPod++;
    }
    const rec: PodRec = {
      namespace: spec.namespace,
      name: spec.name,
      node: node.name,
      ip: fmt(ip),
      ipNum: ip,
      ...endpoint,
      labels,
      dnsServer: spec.namespace === 'kube-system' && labels['k8s-app'] === 'kube-dns',
      ...extra,
    };
    this.pods.set(key, rec);
    this.dns.addPod({ namespace: rec.namespace, name: rec.name, ip: rec.ipNum, labels, ...extra });
    this.changed(this.servicesOf(rec));
    return rec;
  }

  /** The endpoint win-bridge / win-overlay would create, in a fresh namespace (containerd). */
  private createPodEndpoint(node: WinNode, spec: PodSpec, ip: number): string {
    const host = node.host;
    const dns = this.podDns(spec.namespace);
    const overlay = node.spec.network === 'overlay';
    const svc = fmtPrefix(this.serviceCidr);
    const policies: JsonObject[] = [
      // flannel's Windows CNI configs: the cluster and service CIDRs, and on l2bridge the management
      // subnet (Microsoft's troubleshooting list); overlay pods reach nodes through SNAT
      {
        Type: 'OutBoundNAT',
        Settings: {
          Exceptions: overlay
            ? [fmtPrefix(this.podCidr), svc]
            : [fmtPrefix(this.podCidr), svc, fmtPrefix(this.nodeSubnet)],
        },
      },
      { Type: 'SDNRoute', Settings: { DestinationPrefix: svc, NeedEncap: true } },
    ];
    if (overlay) policies.push({ Type: 'ProviderAddress', Settings: { ProviderAddress: fmt(node.ip) } });
    else
      policies.push({
        Type: 'SDNRoute',
        Settings: { DestinationPrefix: `${fmt(node.ip)}/32`, NeedEncap: true },
      });
    if (this.options.loopbackDsr ?? this.dsr)
      policies.push({ Type: 'OutBoundNAT', Settings: { Destinations: [fmt(ip)] } });
    policies.push(...(spec.policies ?? []));
    const gw = overlay ? node.podSubnet.addr + 1 : node.podSubnet.addr + 2;
    const doc: JsonObject = {
      Name: `${spec.name}_${overlay ? `flannel.${node.spec.vni ?? 4096}` : 'cbr0'}`,
      HostComputeNetwork: node.networkId,
      Policies: policies,
      IpConfigurations: [{ IpAddress: fmt(ip), PrefixLength: node.podSubnet.len }],
      Dns: { Search: [...dns.search], ServerList: [...dns.servers] },
      Routes: [{ NextHop: fmt(gw), DestinationPrefix: '0.0.0.0/0' }],
      SchemaVersion: V2,
    };
    if (overlay) doc['MacAddress'] = ipMac('0E-2A', ip);
    const ep = must(host.api.HcnCreateEndpoint(node.networkId, null, doc));
    const id = String(ep['ID']);
    const ns = must(host.api.HcnCreateNamespace(null, { SchemaVersion: V2 }));
    namespaceEndpoint(host, String(ns['ID']), id, 'Add');
    return id;
  }

  /**
   * @internal The DNS settings of a pod in `namespace` (kubelet's ClusterFirst, as the CNI configs
   * write them into the endpoint).
   */
  podDns(namespace: string): EndpointDnsSettings & { readonly servers: readonly string[] } {
    const d = this.dns.domain;
    return { search: [`${namespace}.svc.${d}`, `svc.${d}`, d], servers: [fmt(this.dnsServiceIp)] };
  }

  removePod(namespace: string, name: string): boolean {
    const key = `${namespace}/${name}`;
    const rec = this.pods.get(key);
    if (!rec) return false;
    const node = this.nodes.get(rec.node)!;
    const deleteEndpoint = (n: WinNode): void => {
      const ep = n.host.hns.store.endpoints.get(rec.endpointId!);
      if (ep?.HostComputeNamespace) namespaceEndpoint(n.host, ep.HostComputeNamespace, ep.ID, 'Remove');
      must(n.host.api.HcnDeleteEndpoint(rec.endpointId!));
    };
    const ownEndpoint = node.kind === 'Windows' && !rec.adopted ? node : undefined;
    // the services that pick the pod drop it (changed() ignores them on a full sync)
    const dirty = this.servicesOf(rec);
    if (node.kind === 'Linux') node.node.removePod(rec.ipNum);
    else if (ownEndpoint && !this.incremental) {
      // full sync: every LB of the node goes first (HNS refuses to delete an endpoint an LB uses)
      this.clearServices(ownEndpoint);
      deleteEndpoint(ownEndpoint);
    }
    this.pods.delete(key);
    this.dns.removePod(namespace, name);
    this.changed(dirty);
    if (ownEndpoint && this.incremental) {
      // incremental sync: the LBs that used the endpoint are gone now
      deleteEndpoint(ownEndpoint);
      ownEndpoint.syncedGen = ownEndpoint.host.dataplane.generation();
    }
    return true;
  }

  pod(ref: string): PodInfo | undefined {
    return this.pods.get(ref);
  }

  /** @internal */
  podRec(ref: string): PodRec | undefined {
    return this.pods.get(ref);
  }

  /** @internal */
  podRecs(): Iterable<PodRec> {
    return this.pods.values();
  }

  // ───────────────────────────── services ─────────────────────────────

  addService(spec: ServiceSpec): { readonly clusterIP: string } {
    const key = `${spec.namespace}/${spec.name}`;
    if (!spec.namespace || !spec.name || this.services.has(key))
      throw hnsError('E_INVALIDARG', `service "${key}" is unnamed or exists`);
    if (!spec.ports.length) throw hnsError('E_INVALIDARG', `service "${key}" has no ports`);
    for (const p of spec.ports) {
      for (const [k, v] of [
        ['port', p.port],
        ['targetPort', p.targetPort],
        ['nodePort', p.nodePort],
      ] as const)
        if (v !== undefined && (!Number.isInteger(v) || v < 1 || v > 65535))
          throw hnsError('E_INVALIDARG', `${k} ${v} is not 1..65535`);
    }
    let clusterIP: number | 'None';
    if (spec.clusterIP === 'None') clusterIP = 'None';
    else if (spec.clusterIP) {
      const v = ip4(spec.clusterIP);
      if (v === undefined || !contains(this.serviceCidr, v))
        throw hnsError(
          'E_INVALIDARG',
          `clusterIP "${spec.clusterIP}" is not in ${fmtPrefix(this.serviceCidr)}`,
        );
      clusterIP = v;
    } else {
      clusterIP = this.nextServiceIp;
      this.nextServiceIp = (this.nextServiceIp + 1) >>> 0;
    }
    for (const s of this.services.values())
      if (clusterIP !== 'None' && s.clusterIP === clusterIP)
        throw hnsError(
          'E_INVALIDARG',
          `clusterIP ${fmt(clusterIP)} is taken by ${s.spec.namespace}/${s.spec.name}`,
        );
    this.putService(spec, clusterIP);
    this.changed([key]);
    return { clusterIP: clusterIP === 'None' ? 'None' : fmt(clusterIP) };
  }

  private putService(spec: ServiceSpec, clusterIP: number | 'None'): void {
    this.services.set(`${spec.namespace}/${spec.name}`, { spec, clusterIP });
    this.dns.addService({ namespace: spec.namespace, name: spec.name, clusterIP, selector: spec.selector });
  }

  removeService(namespace: string, name: string): boolean {
    const key = `${namespace}/${name}`;
    const ok = this.services.delete(key);
    if (ok) {
      this.dns.removeService(namespace, name);
      this.changed([key]);
    }
    return ok;
  }

  /** @internal */
  service(ref: string): ServiceRec | undefined {
    return this.services.get(ref);
  }

  /** CoreDNS pods (on `node`) behind the `kube-system/kube-dns` service at the DNS service IP. */
  addCoreDns(node: string, replicas = 1): void {
    for (let i = 0; i < replicas; i++)
      this.addPod({
        namespace: 'kube-system',
        name: `coredns-${i}`,
        node,
        labels: { 'k8s-app': 'kube-dns' },
      });
    this.addService({
      namespace: 'kube-system',
      name: 'kube-dns',
      clusterIP: fmt(this.dnsServiceIp),
      ports: [
        { port: 53, protocol: 'UDP', name: 'dns' },
        { port: 53, protocol: 'TCP', name: 'dns-tcp' },
      ],
      selector: { 'k8s-app': 'kube-dns' },
    });
  }

  private get incremental(): boolean {
    return this.options.kubeProxySync !== 'full';
  }

  /** The keys of the services (with a ClusterIP or not) whose selector picks `pod`, in service order. */
  private servicesOf(pod: PodRec): string[] {
    const out: string[] = [];
    for (const [key, { spec }] of this.services)
      if (spec.namespace === pod.namespace && selects(spec.selector, pod.labels)) out.push(key);
    return out;
  }

  /**
   * Something changed. `dirty`: the keys of the services a pod or service change touches (the
   * incremental sync re-programs only those, and repairs what changed on a node behind the
   * cluster's back); without it (nodes, segments, the underlay) everything is synced.
   */
  private changed(dirty?: readonly string[]): void {
    this.gen++;
    if (dirty === undefined || !this.incremental) {
      this.syncNetworks();
      this.syncServices();
    } else this.syncChanged(dirty);
    for (const n of this.nodes.values())
      if (n.kind === 'Windows') n.syncedGen = n.host.dataplane.generation();
  }

  /** flannel: routes (host-gw) and RemoteSubnetRoutes / FDB (vxlan) towards every other node. */
  private syncNetworks(only?: AnyNode): void {
    const nodes = [...this.nodes.values()];
    const tor = this.options.l2bridgeRouting === 'tor';
    // flannel host-gw: a route per other host-gw node on the same segment (L2 adjacency)
    const hostGwPeers = (n: AnyNode) =>
      tor ? [] : nodes.filter((o) => o !== n && isHostGw(o) && o.segment === n.segment);
    for (const n of nodes) {
      if (only !== undefined && n !== only) continue;
      if (tor && isHostGw(n) && !this.fabric.hasRoute('router', n.podSubnet))
        this.fabric.addRoute('router', fmtPrefix(n.podSubnet), fmt(n.ip));
      if (n.kind === 'Linux') {
        n.node.routes =
          n.spec.backend === 'host-gw'
            ? hostGwPeers(n).map((o) => ({ dest: o.podSubnet, via: o.ip }))
            : nodes.flatMap((o) => {
                const mac = o === n ? undefined : vtepMac(o);
                return mac === undefined ? [] : [{ dest: o.podSubnet, via: o.ip, vtepMac: mac }];
              });
      } else if (n.spec.network === 'overlay') this.syncRemoteSubnets(n, nodes);
      else this.syncHostRoutes(n, hostGwPeers(n));
    }
  }

  /** flannel host-gw on Windows: a host route to each peer's pod subnet via the peer. */
  private syncHostRoutes(n: WinNode, peers: readonly AnyNode[]): void {
    for (const o of peers) {
      const have = n.host
        .routes()
        .some(
          (r) => r.origin === 'User' && r.dest.addr === o.podSubnet.addr && r.dest.len === o.podSubnet.len,
        );
      if (!have)
        n.host.addRoute({
          destinationPrefix: fmtPrefix(o.podSubnet),
          nextHop: fmt(o.ip),
          interfaceAlias: 'vEthernet (Ethernet)',
        });
    }
  }

  /** flannel vxlan: a RemoteSubnetRoute per other VXLAN node (its DR MAC or VTEP MAC). */
  private syncRemoteSubnets(n: WinNode, nodes: readonly AnyNode[]): void {
    const rec = n.host.hns.store.networks.get(n.networkId)!;
    const have = new Set(
      rec.Policies.filter((p) => p.type === 'RemoteSubnetRoute').map((p) =>
        fmtPrefix(parsePrefix4(String((p.settings as { destinationPrefix: string }).destinationPrefix))!),
      ),
    );
    const add: JsonObject[] = [];
    for (const o of nodes) {
      const mac = vtepMac(o);
      if (o === n || mac === undefined || have.has(fmtPrefix(o.podSubnet))) continue;
      add.push({
        Type: 'RemoteSubnetRoute',
        Settings: {
          DestinationPrefix: fmtPrefix(o.podSubnet),
          IsolationId: n.spec.vni ?? 4096,
          ProviderAddress: fmt(o.ip),
          DistributedRouterMacAddress: formatMac(mac),
        },
      });
    }
    if (add.length)
      must(
        n.host.api.HcnModifyNetwork(n.networkId, {
          ResourceType: 'Policy',
          RequestType: 'Add',
          Settings: { Policies: add },
        }),
      );
  }

  /** Delete the LBs the last sync programmed on a node (its remote endpoints go at the end of a sync). */
  private clearServices(n: WinNode): void {
    for (const lbs of n.svcLbs.values())
      for (const { id } of lbs)
        if (n.host.hns.store.loadBalancers.has(id)) must(n.host.api.HcnDeleteLoadBalancer(id));
    n.svcLbs.clear();
    n.svcRemotes.clear();
    n.remoteUsers.clear();
  }

  /** The pods a service picks, in pod order (kube-proxy's endpoints), or undefined when it has no ClusterIP. */
  private programmed(key: string): ProgrammedService | undefined {
    const s = this.services.get(key);
    if (!s || s.clusterIP === 'None') return undefined;
    const { spec } = s;
    const backends: PodRec[] = [];
    for (const p of this.pods.values())
      if (p.namespace === spec.namespace && selects(spec.selector, p.labels)) backends.push(p);
    return { spec, clusterIP: s.clusterIP, backends };
  }

  /** The iptables rules of a service on Linux nodes, one per port. */
  private iptablesOf(svc: ProgrammedService): [string, LinuxService][] {
    const { spec, clusterIP, backends } = svc;
    return spec.ports.map((port) => [
      serviceKey(protoNum(port.protocol), clusterIP, port.port),
      {
        name: `${spec.namespace}/${spec.name}:${port.port}`,
        targets: backends.map((b) => ({ ip: b.ipNum, port: port.targetPort ?? port.port })),
      },
    ]);
  }

  /** Each programmed service's iptables rules (incremental sync: re-computed for changed services only). */
  private readonly iptables = new Map<string, [string, LinuxService][]>();

  private setLinuxServices(): void {
    let linux = false;
    for (const n of this.nodes.values()) linux ||= n.kind === 'Linux';
    if (!linux) return;
    // in service order, as a full sync builds it
    const all = new Map<string, LinuxService>();
    for (const key of this.services.keys()) for (const [k, v] of this.iptables.get(key) ?? []) all.set(k, v);
    for (const n of this.nodes.values()) if (n.kind === 'Linux') n.node.services = new Map(all);
  }

  /** kube-proxy full sync: iptables rules on Linux nodes, winkernel LBs on Windows nodes. */
  private syncServices(): void {
    const services: [string, ProgrammedService][] = [];
    this.iptables.clear();
    for (const key of this.services.keys()) {
      const svc = this.programmed(key);
      if (!svc) continue;
      services.push([key, svc]);
      this.iptables.set(key, this.iptablesOf(svc));
    }
    // Linux nodes: kube-proxy in iptables mode, ClusterIPs only (the same rules on every node)
    this.setLinuxServices();
    for (const n of this.nodes.values()) if (n.kind === 'Windows') this.syncLoadBalancers(n, services);
  }

  /** kube-proxy winkernel on one node: LBs per service port and frontend. */
  private syncLoadBalancers(n: WinNode, services: readonly [string, ProgrammedService][]): void {
    this.clearServices(n);
    for (const [key, svc] of services) this.programService(n, key, svc);
    // remote endpoints no LB uses any more go (kube-proxy's cleanup)
    for (const ip of [...n.remoteEps.keys()]) this.dropRemoteIfUnused(n, ip);
  }

  /**
   * The incremental sync: the services in `dirty` (keys, some maybe deleted) are re-programmed on
   * every node; a Windows node whose HNS state changed behind the cluster's back (a runtime's CNI
   * ADD, an out-of-band delete, a restart) gets flannel's routes again and every service whose
   * load balancers or remote endpoints are gone or changed — what a full sync would re-create.
   */
  private syncChanged(dirty: readonly string[]): void {
    const order = new Map<string, number>();
    let i = 0;
    for (const key of this.services.keys()) order.set(key, i++);
    const progs = new Map<string, ProgrammedService | undefined>();
    const prog = (key: string): ProgrammedService | undefined => {
      if (!progs.has(key)) progs.set(key, this.programmed(key));
      return progs.get(key);
    };
    for (const key of dirty) {
      const svc = prog(key);
      if (svc) this.iptables.set(key, this.iptablesOf(svc));
      else this.iptables.delete(key);
    }
    if (dirty.length) this.setLinuxServices();
    for (const n of this.nodes.values()) {
      if (n.kind !== 'Windows') continue;
      const keys = new Set(dirty);
      if (n.host.dataplane.generation() !== n.syncedGen) {
        this.syncNetworks(n);
        for (const k of this.damaged(n)) keys.add(k);
      }
      if (!keys.size) continue;
      // in service order (deleted services first), as a full sync would create them
      const sorted = [...keys].sort((a, b) => (order.get(a) ?? -1) - (order.get(b) ?? -1));
      const touched = new Set<number>();
      for (const key of sorted) {
        for (const { id } of n.svcLbs.get(key) ?? [])
          if (n.host.hns.store.loadBalancers.has(id)) must(n.host.api.HcnDeleteLoadBalancer(id));
        n.svcLbs.delete(key);
        for (const ip of n.svcRemotes.get(key) ?? []) {
          n.remoteUsers.get(ip)?.delete(key);
          touched.add(ip);
        }
        n.svcRemotes.delete(key);
        const svc = prog(key);
        if (svc) this.programService(n, key, svc);
      }
      for (const ip of touched) this.dropRemoteIfUnused(n, ip);
    }
  }

  /** Services whose load balancers or remote endpoints on `n` are not what the cluster made. */
  private damaged(n: WinNode): Set<string> {
    const s = n.host.hns.store;
    const out = new Set<string>();
    for (const [key, lbs] of n.svcLbs)
      if (lbs.some(({ id, rec }) => s.loadBalancers.get(id) !== rec)) out.add(key);
    for (const [ip, id] of n.remoteEps)
      if (!s.endpoints.has(id)) for (const key of n.remoteUsers.get(ip) ?? []) out.add(key);
    return out;
  }

  /** Delete the remote endpoint of `ip` on `n` when no service uses it any more. */
  private dropRemoteIfUnused(n: WinNode, ip: number): void {
    if (n.remoteUsers.get(ip)?.size) return;
    n.remoteUsers.delete(ip);
    const id = n.remoteEps.get(ip);
    if (id === undefined) return;
    if (n.host.hns.store.endpoints.has(id)) must(n.host.api.HcnDeleteEndpoint(id));
    n.remoteEps.delete(ip);
  }

  /** One service's LBs on one node (its LBs must be gone already), with the remote endpoints they need. */
  private programService(n: WinNode, key: string, svc: ProgrammedService): void {
    const { spec, clusterIP, backends } = svc;
    const local = spec.externalTrafficPolicy === 'Local';
    const affinity = spec.sessionAffinity === 'ClientIP' ? 2 : 0;
    const remotes: number[] = [];
    const endpointIds = (onNode: boolean) =>
      backends
        .filter((b) => !onNode || b.node === n.name)
        .map((b) => (b.node === n.name ? b.endpointId! : this.remoteEndpoint(n, b, key, remotes)));
    const all = endpointIds(false);
    if (remotes.length) n.svcRemotes.set(key, remotes);
    // externalTrafficPolicy Local: NodePorts and external IPs go to this node's backends only
    const external = local ? endpointIds(true) : all;
    const externalIps = [...(spec.externalIPs ?? []), ...(spec.loadBalancerIP ? [spec.loadBalancerIP] : [])];
    const lbs: { id: string; rec: unknown }[] = [];
    for (const port of spec.ports) {
      const make = (vips: string[], ext: number, flags: number, dsr: boolean, eps: string[]) => {
        // kube-proxy programs no load balancer for a service without endpoints (HNS refuses one)
        if (!eps.length) return;
        const lb = must(
          n.host.api.HcnCreateLoadBalancer(null, {
            HostComputeEndpoints: eps,
            SourceVIP: fmt(n.sourceVip),
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
            Flags: dsr ? 1 : 0,
            SchemaVersion: V2,
          }),
        );
        const id = String(lb['ID']);
        lbs.push({ id, rec: n.host.hns.store.loadBalancers.get(id) });
        n.svcLbs.set(key, lbs);
      };
      make([fmt(clusterIP)], port.port, 0, this.dsr, all);
      if ((spec.type === 'NodePort' || spec.type === 'LoadBalancer') && port.nodePort)
        make([], port.nodePort, 2, this.dsr && local, external);
      for (const e of externalIps) make([e], port.port, 0, this.dsr && local, external);
    }
  }

  /** A remote endpoint for a backend on another node (winkernel), reused by IP. */
  private remoteEndpoint(n: WinNode, b: PodRec, key: string, remotes: number[]): string {
    const users = n.remoteUsers.get(b.ipNum);
    if (users) users.add(key);
    else n.remoteUsers.set(b.ipNum, new Set([key]));
    remotes.push(b.ipNum);
    const have = n.remoteEps.get(b.ipNum);
    if (have && n.host.hns.store.endpoints.has(have)) return have;
    const other = this.nodes.get(b.node)!;
    const doc: JsonObject = {
      HostComputeNetwork: n.networkId,
      IpConfigurations: [{ IpAddress: b.ip }],
      MacAddress: ipMac('02-11', b.ipNum),
      Flags: 1,
      SchemaVersion: V2,
    };
    if (n.spec.network === 'overlay')
      doc['Policies'] = [{ Type: 'ProviderAddress', Settings: { ProviderAddress: fmt(other.ip) } }];
    const ep = must(n.host.api.HcnCreateEndpoint(n.networkId, null, doc));
    const id = String(ep['ID']);
    n.remoteEps.set(b.ipNum, id);
    return id;
  }

  // ───────────────────────────── checks, traces ─────────────────────────────

  /** Overlay settings that do not agree between nodes (VNI, UDP port, MTU, backends). */
  check(): ClusterFinding[] {
    const out: ClusterFinding[] = [];
    const overlay: { name: string; kind: AnyNode['kind']; vni: number; port: number; mtu: number }[] = [];
    const hostgw: string[] = [];
    for (const n of this.nodes.values()) {
      const { name, kind } = n;
      if (isHostGw(n)) hostgw.push(name);
      else if (n.kind === 'Windows')
        overlay.push({ name, kind, vni: n.spec.vni ?? 4096, port: n.spec.vxlanPort ?? 4789, mtu: 1450 });
      else overlay.push({ name, kind, ...n.node.vxlan! });
    }
    const differ = (key: 'vni' | 'port' | 'mtu', setting: ClusterFinding['setting'], why: string) => {
      const values = new Map<number, string[]>();
      for (const o of overlay) values.set(o[key], [...(values.get(o[key]) ?? []), o.name]);
      if (values.size > 1) {
        const desc = [...values].map(([v, ns]) => `${v} on ${ns.join(', ')}`).join('; ');
        out.push({
          severity: key === 'mtu' ? 'warning' : 'error',
          nodes: overlay.map((o) => o.name),
          setting,
          message: `${setting} differs: ${desc} — ${why}`,
        });
      }
    };
    differ(
      'vni',
      'VNI',
      'VXLAN packets with another VNI are dropped at decapsulation (Windows needs 4096 or more)',
    );
    differ(
      'port',
      'UDP port',
      'a node drops VXLAN on a port it does not listen on (Windows flannel supports only 4789)',
    );
    differ('mtu', 'MTU', 'pods on the larger-MTU side send packets the other side fragments or drops');
    const windowsOverlay = overlay.some((o) => o.kind === 'Windows');
    for (const o of overlay) {
      if (o.vni < 4096 && o.kind === 'Linux' && windowsOverlay)
        out.push({
          severity: 'error',
          nodes: [o.name],
          setting: 'VNI',
          message: `${o.name} uses VNI ${o.vni}; Windows overlay needs a VNI of 4096 or more`,
        });
    }
    if (overlay.length && hostgw.length)
      out.push({
        severity: 'error',
        nodes: [...overlay.map((o) => o.name), ...hostgw],
        setting: 'backend',
        message: `overlay nodes (${overlay.map((o) => o.name).join(', ')}) and host-gw nodes (${hostgw.join(', ')}) have no route between their pods`,
      });
    return out;
  }

  trace(request: TraceRequest): TraceResult {
    return runTrace(this.scope, request, this.flowTable);
  }

  send(request: SendRequest): TraceResult {
    return runSend(this.scope, request);
  }
}

/** Traces over the whole cluster. */
class ClusterScope implements TraceScope {
  readonly world: World;

  constructor(private readonly c: Cluster) {
    this.world = {
      underlay: c.fabric,
      conntrack: c.conntrack,
      seed: c.seed,
      generation: () => c.generation(),
    };
  }

  private podSource(p: PodRec): Source | undefined {
    const node = this.c.nodeOf(p.node);
    if (!node) return undefined;
    const label = `${p.namespace}/${p.name}`;
    if (node.kind === 'Linux') {
      const lp = node.node.pods.get(p.ipNum);
      if (!lp) return undefined;
      return {
        label,
        node: node.name,
        ip: p.ipNum,
        send: (w, pkt) => node.node.sendFromPod(w, lp, pkt),
        dns: this.c.podDns(p.namespace),
      };
    }
    const port = findPort(node.host.dataplane, p.endpointId!);
    return port ? { ...portSource(node.host.dataplane, port), label } : undefined;
  }

  /** The node itself, sending from `ip` (default: its address). */
  private nodeSource(n: AnyNode, ip?: number): Source {
    if (n.kind === 'Windows') return hostSource(n.host.dataplane, ip);
    return { label: n.name, node: n.name, ip: ip ?? n.ip, send: (w, p) => n.node.sendFromNode(w, p) };
  }

  /** An outside host (a modelled one, or any address of the internet when `adHoc`). */
  private externalSource(ip: number, adHoc = false): Source | undefined {
    const ext =
      this.c.fabric.externals.get(ip) ?? (adHoc ? new ExternalHost(fmt(ip), ip, this.c.fabric) : undefined);
    return ext ? { label: ext.name, node: ext.name, ip, send: (w, p) => ext.send(w, p) } : undefined;
  }

  /** A modelled outside host by name. */
  private external(name: string): ExternalHost | undefined {
    for (const ext of this.c.fabric.externals.values()) if (ext.name === name) return ext;
    return undefined;
  }

  source(ref: string): Source | undefined {
    const pod = this.c.podRec(ref);
    if (pod) return this.podSource(pod);
    const node = this.c.nodeOf(ref);
    if (node) return this.nodeSource(node);
    const ip = ip4(ref);
    if (ip !== undefined) {
      for (const p of this.c.podRecs()) if (p.ipNum === ip) return this.podSource(p);
      for (const n of this.c.allNodes()) {
        if (n.ip === ip) return this.nodeSource(n);
        if (n.kind === 'Windows' && n.host.dataplane.ownsIp(ip)) return this.nodeSource(n, ip);
      }
      return this.externalSource(ip);
    }
    const ext = this.external(ref);
    if (ext) return this.externalSource(ext.ip);
    // node/endpoint: an endpoint of a Windows node by ID or name
    const slash = ref.indexOf('/');
    if (slash > 0) {
      const n = this.c.nodeOf(ref.slice(0, slash));
      if (n?.kind === 'Windows') {
        const port = findPort(n.host.dataplane, ref.slice(slash + 1));
        if (port) return portSource(n.host.dataplane, port);
      }
    }
    return undefined;
  }

  target(ref: string): Target | undefined {
    const svcRef = ref.startsWith('svc:') ? ref.slice(4) : undefined;
    if (svcRef) {
      const s = this.c.service(svcRef);
      if (!s || s.clusterIP === 'None')
        throw hnsError('ERROR_NOT_FOUND', `no service with a ClusterIP "${svcRef}"`);
      return { label: ref, ip: s.clusterIP, port: s.spec.ports[0]!.port };
    }
    const pod = this.c.podRec(ref);
    if (pod) return { label: ref, ip: pod.ipNum };
    const ip = (this.c.nodeOf(ref) ?? this.external(ref))?.ip;
    return ip === undefined ? undefined : { label: ref, ip };
  }

  resolve(from: Source, name: string): DnsOutcome {
    const settings = from.dns;
    const opts = this.c.options.dns ?? {};
    const zone = this.c.dns;
    if (!settings) {
      // a node resolves with the infrastructure's DNS: the external records only
      const upstream = { lookup: (f: string) => (f.endsWith(zone.domain) ? undefined : zone.lookup(f)) };
      return dnsOutcome(name, resolveName(name, { search: [] }, upstream, opts));
    }
    const server = settings.servers[0];
    const serverIp = server ? ip4(server) : undefined;
    if (serverIp === undefined) return { name, tried: [], reason: 'the endpoint has no DNS server' };
    // the query itself: UDP 53 from the container to its DNS server
    const query = runTrace(this, {
      from: from.label,
      to: fmt(serverIp),
      protocol: 'UDP',
      destinationPort: 53,
    });
    if (query.disposition !== 'Delivered' || !this.isDnsServer(query)) {
      return {
        name,
        tried: [],
        query,
        reason: `the DNS query to ${server}:53 ended ${query.disposition}${query.disposition === 'Delivered' ? ' at something that is not a DNS server' : ''}`,
      };
    }
    const asked = { ...(settings.domain ? { domain: settings.domain } : {}), search: settings.search };
    return dnsOutcome(name, resolveName(name, asked, zone, opts), query);
  }

  private isDnsServer(r: TraceResult): boolean {
    for (const p of this.c.podRecs()) {
      if (!p.dnsServer) continue;
      if (r.at === `endpoint:${p.endpointId}` || r.at === `pod:${p.namespace}/${p.name}`) return true;
    }
    return false;
  }

  replier(end: WalkEnd): Source | undefined {
    const at = end.at ?? '';
    if (at.startsWith('endpoint:')) {
      const n = this.c.nodeOf(end.host);
      if (n?.kind !== 'Windows') return undefined;
      const id = at.slice(9);
      for (const p of this.c.podRecs()) if (p.endpointId === id) return this.podSource(p);
      const port = n.host.dataplane.view().ports.get(id);
      return port ? portSource(n.host.dataplane, port) : undefined;
    }
    if (at.startsWith('pod:')) {
      const p = this.c.podRec(at.slice(4));
      return p ? this.podSource(p) : undefined;
    }
    if (at === 'host' || at === 'node') {
      const n = this.c.nodeOf(end.host);
      return n ? this.nodeSource(n, end.packet.dstIp) : undefined;
    }
    if (at.startsWith('external:')) return this.externalSource(end.packet.dstIp, true);
    return undefined;
  }

  count(w: Walk, packets: number, bytes: number): void {
    for (const u of w.counters) {
      const n = this.c.nodeOf(u.host);
      if (n?.kind === 'Windows') n.host.hns.store.countTrafficField(u.endpoint, u.field, packets, bytes);
    }
  }
}
