/**
 * What a cluster is made of (DESIGN: cluster/): the options, the specs of its nodes, pods and
 * services as a user gives them, and the records the cluster keeps of each (@internal: the
 * scenario runner and the diagrams read them through `Cluster.nodeOf` / `allNodes`).
 */
import type { JsonObject } from '../core/json.js';
import type { DataplaneOptions } from '../dataplane/plane.js';
import type { Host } from '../host/host.js';
import type { NsgSpec } from '../host/nsg.js';
import type { CnsAgent } from '../plugins/cns/index.js';
import type { AntreaAgent } from '../plugins/antrea/agent.js';
import type { OvnNativeNode } from './ovn-kubernetes-native.js';
import type { WinKernelProxy } from '../plugins/kube-proxy/winkernel.js';
import type { Prefix4 } from '../vswitch/v4.js';
import type { DnsClientOptions } from './dns.js';
import type { LinuxNode } from './linux.js';

export interface ClusterOptions {
  readonly seed?: number;
  /** The pod network (default 10.244.0.0/16); node i gets 10.244.(i+1).0/24. */
  readonly podCidr?: string;
  /**
   * The cluster is dual-stack: its IPv6 pod network (e.g. `fd00:10:244::/56`, a prefix of at most
   * /63), from which node i gets the i-th /64 as its IPv6 `spec.podCIDRs` entry in the cluster's
   * Kubernetes API (what azure-vnet's `ipv6Mode: ipv6nat` IPAM reads; a node whose /64 would fall
   * outside is refused). An Azure cluster must be in node-subnet mode. Default: none (IPv4 only).
   */
  readonly podCidrV6?: string;
  /** A dual-stack cluster's IPv6 service CIDR (with `podCidrV6`; default AKS's `fd12:3456:789a:1::/108`). */
  readonly serviceCidrV6?: string;
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
  /**
   * The cluster sits in an Azure VNet (AKS node-subnet mode; src/cluster/azure.ts): the nodes'
   * segment is the VNet subnet (default `10.224.0.0/16`, nodes from its .4; router — Azure's
   * gateway — at .1), every Windows node is an Azure VM (`network: 'azure'`) whose NIC holds
   * `maxPods` secondary IPs, and the VNet routes each of them to its VM. With it the service CIDR
   * defaults to AKS's `10.0.0.0/16` (DNS `10.0.0.10`).
   */
  readonly azure?: AzureClusterOptions;
}

export interface AzureClusterOptions {
  /**
   * How pods get their addresses (reference azure-cni.md §2.1): `node-subnet` (default; NIC
   * secondary IPs through azure-vnet-ipam) or `overlay` (Azure CNI Overlay: each node a /24 of the
   * pod CIDR, handed out by the node's CNS, and the VNet routing it to the node).
   */
  readonly mode?: 'node-subnet' | 'overlay';
  /** The VNet's address space (default `10.224.0.0/12`, AKS's): the NSGs' VirtualNetwork tag. */
  readonly addressSpace?: readonly string[];
  /** Node-subnet: secondary IPs per node NIC (AKS `--max-pods`, default 30). */
  readonly maxPods?: number;
}

export interface WindowsNodeSpec {
  readonly name: string;
  /** The underlay segment (default `nodes`; see `addSegment`). */
  readonly segment?: string;
  /**
   * `azure`: an Azure VM of an Azure cluster, its pods attached by azure-vnet (src/cluster/azure.ts);
   * `antrea`: Antrea's Transparent network under Open vSwitch, pods attached by its agent
   * (src/plugins/antrea), nodes joined by tunnels; `ovn-kubernetes`: ovn-kubernetes' hybrid overlay
   * (the Overlay network `OVNKubernetesHybridOverlayNetwork`, VNI 4097; src/cluster/ovn-kubernetes.ts).
   */
  readonly network: 'l2bridge' | 'overlay' | 'azure' | 'antrea' | 'ovn-kubernetes';
  /** Antrea: the tunnel between nodes (default geneve). */
  readonly tunnelType?: 'geneve' | 'vxlan' | 'stt';
  readonly podSubnet?: string;
  readonly profile?: string;
  /**
   * Overlay: the VNI (default 4096) and VXLAN port (default 4789); ovn-kubernetes: the port only
   * (`--hybrid-overlay-vxlan-port`, default 4789; the VNI is always 4097).
   */
  readonly vni?: number;
  readonly vxlanPort?: number;
  /**
   * ovn-kubernetes: which Windows node. `hybrid-overlay` (default): today's hybrid overlay (HNS
   * Overlay, VXLAN 4097). `native`: the historical OVS-based node (removed upstream in 2020:
   * Transparent network `external`, br-int, `ovn-k8s-cni-overlay`, Geneve or STT between native
   * nodes; src/cluster/ovn-kubernetes-native.ts), `encapType` its tunnel (default geneve).
   */
  readonly ovnKubernetes?: {
    readonly mode?: 'hybrid-overlay' | 'native';
    readonly encapType?: 'geneve' | 'stt';
  };
  /** Whether the node's NIC allows MAC spoofing (default true, as a VM host for containers needs). */
  readonly macSpoofing?: boolean;
  /** Azure: secondary IPs on the NIC (default the cluster's `azure.maxPods`). */
  readonly maxPods?: number;
  /** Azure: the network security group on the node's NIC (src/host/nsg.ts). */
  readonly nsg?: NsgSpec;
}

export interface LinuxNodeSpec {
  readonly name: string;
  /** The underlay segment (default `nodes`; see `addSegment`). */
  readonly segment?: string;
  /**
   * flannel's backend, or `ovn-kubernetes`: an OVN node in hybrid overlay mode, reaching the Windows
   * hybrid overlay nodes by VXLAN VNI 4097 from `br-ext` (src/cluster/ovn-kubernetes.ts).
   */
  readonly backend: 'host-gw' | 'vxlan' | 'ovn-kubernetes';
  readonly podSubnet?: string;
  /**
   * Linux flannel's defaults are VNI 1 and port 8472; a mixed cluster sets 4096 / 4789.
   * ovn-kubernetes: the port only (`--hybrid-overlay-vxlan-port`, default 4789).
   */
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

/** @internal */
export interface WinNode {
  readonly kind: 'Windows';
  readonly name: string;
  readonly segment: string;
  readonly host: Host;
  readonly ip: number;
  readonly mac: number;
  readonly spec: WindowsNodeSpec;
  /** The node's pod subnet (an Azure node: its NIC's secondary IPs, within the VNet subnet). */
  readonly podSubnet: Prefix4;
  /**
   * The pods' HNS network; an Azure node's `azure` network exists only once azure-vnet's first ADD
   * made it: '' until then, and found again by name after a change on the node.
   */
  networkId: string;
  /** The network's DR MAC (overlay). */
  readonly drMac: number;
  /** kube-proxy's source VIP (overlay) or the node IP. */
  readonly sourceVip: number;
  nextPod: number;
  /** The node's kube-proxy (src/plugins/kube-proxy). */
  readonly proxy: WinKernelProxy;
  /** The node's HNS generation after the cluster last programmed it (another change means repair). */
  syncedGen: number;
  /** An Overlay Azure node's CNS (src/plugins/cns), handing out its pod CIDR. */
  readonly cns?: CnsAgent;
  /** An Antrea node's agent (src/plugins/antrea). */
  readonly antrea?: AntreaAgent;
  /** A native (historical) ovn-kubernetes node: ovnkube node + ovn-controller's stand-in. */
  readonly ovnNative?: OvnNativeNode;
}

/** @internal */
export interface LnxNode {
  readonly kind: 'Linux';
  readonly name: string;
  readonly segment: string;
  readonly node: LinuxNode;
  readonly ip: number;
  readonly spec: LinuxNodeSpec;
  readonly podSubnet: Prefix4;
}

/** @internal */
export type AnyNode = WinNode | LnxNode;

export interface PodInfo {
  readonly namespace: string;
  readonly name: string;
  readonly node: string;
  readonly ip: string;
  /** The HNS endpoint (Windows nodes). */
  readonly endpointId?: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** @internal */
export interface PodRec extends PodInfo {
  readonly ipNum: number;
  /** The endpoint is the runtime's (PodSpec.endpointId): removePod leaves it. */
  readonly adopted?: boolean;
  /** The namespace the cluster made for the pod's endpoint (not an adopted pod's): removePod deletes it. */
  readonly namespaceId?: string;
  readonly hostname?: string;
  readonly subdomain?: string;
  readonly dnsServer: boolean;
}

/** @internal */
export interface ServiceRec {
  readonly spec: ServiceSpec;
  readonly clusterIP: number | 'None';
}

/** A finding of `check()`: overlay settings that do not agree between nodes. */
export interface ClusterFinding {
  readonly severity: 'error' | 'warning';
  readonly nodes: readonly string[];
  readonly setting: 'VNI' | 'UDP port' | 'MTU' | 'tunnel' | 'backend';
  readonly message: string;
}
