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
 *   (ClusterIP; NodePort with no VIP, VipExternalIP and LocalRoutedVIP; external and ingress IPs
 *   with VipExternalIP), remote endpoints (Flags 1, MAC `02-11-<ip>`, ProviderAddress on overlay)
 *   for backends on other nodes and, on overlay, one per ClusterIP (host MAC, PA = node IP); DSR
 *   for ClusterIPs when the cluster says so (`--enable-dsr`), for the others with
 *   `externalTrafficPolicy: Local` on an HNS with DSR; SourceVIP the node IP (l2bridge) or the
 *   source VIP (overlay).
 *
 * - `ovn-kubernetes` nodes as ovn-kubernetes' hybrid overlay (src/cluster/ovn-kubernetes.ts,
 *   docs/ovn-kubernetes.md): the Overlay network `OVNKubernetesHybridOverlayNetwork` (VSID 4097) with
 *   a RemoteSubnetRoute per other ovn-kubernetes node, WMCO's `VIPEndpoint`, pods as win-overlay with
 *   WMCO's conflist; Linux nodes with `backend: 'ovn-kubernetes'` answer in VXLAN VNI 4097.
 *
 * - `azure` nodes of an Azure cluster (`ClusterOptions.azure`, src/cluster/azure.ts): Azure VMs on a
 *   VNet subnet whose NICs' secondary IPs the VNet routes to them; their pods come from a runtime
 *   running azure-vnet and are adopted (`startAzurePod`), and kube-proxy finds the `azure` network
 *   by name.
 *
 * The rooms: types.ts (options, specs, records), windows-node.ts (a node's and a pod's HNS set-up),
 * azure.ts (an Azure cluster's nodes and AKS's conflist), flannel.ts (routes between nodes, the
 * overlay settings check), services.ts (endpoints, iptables,
 * the full and incremental sync) feeding each Windows node's kube-proxy agent
 * (src/plugins/kube-proxy, where node agents live, beside flanneld), scope.ts (traces), and this
 * file, the cluster's objects and what a change re-syncs.
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
import { createHost, type Host } from '../host/host.js';
import { Conntrack } from '../dataplane/conntrack.js';
import {
  FlowTable,
  resolveProbe,
  runProbe,
  runSend,
  runTrace,
  type Probe,
  type ProbeAddresses,
  type SendRequest,
  type TraceRequest,
  type TraceResult,
} from '../dataplane/trace.js';
import { WinKernelProxy } from '../plugins/kube-proxy/winkernel.js';
import { formatMac } from '../addr/mac.js';
import { contains, fmt, fmtPrefix, ip4, prefix4, prefixArg, type Prefix4 } from '../vswitch/v4.js';
import { ClusterDns, type EndpointDnsSettings } from './dns.js';
import { checkOverlays, syncNetworks } from './flannel.js';
import { LinuxNode, type LinuxVxlan } from './linux.js';
import { ClusterScope } from './scope.js';
import { ServiceSync } from './services.js';
import type {
  AnyNode,
  ClusterFinding,
  ClusterOptions,
  LinuxNodeSpec,
  PodInfo,
  PodRec,
  PodSpec,
  ServiceRec,
  ServiceSpec,
  WindowsNodeSpec,
  WinNode,
} from './types.js';
import { Fabric } from './underlay.js';
import { azureClusterDefaults, azureNetworkId, setUpAzureNode } from './azure.js';
import { azureEdge, type AzureVmSpec } from '../host/azure.js';
import { KubeApiServer } from '../host/kubeapi.js';
import { formatPrefix, parsePrefix, type Prefix } from '../addr/ip.js';
import { overlayNc, startCns, type CnsAgent } from '../plugins/cns/index.js';
import { createPodEndpoint, deletePodEndpoint, setUpWindowsNode } from './windows-node.js';
import { antreaPod, antreaSandbox } from './antrea.js';
import { checkNetworkPolicy, compileNetworkPolicies, type NetworkPolicySpec } from './netpol.js';
import { AntreaAgent } from '../plugins/antrea/agent.js';
import { OvnNativeNode } from './ovn-kubernetes-native.js';
import {
  HYBRID_OVERLAY_VNI,
  HYBRID_OVERLAY_VXLAN_PORT,
  isOvnKubernetes,
  linuxDrMac,
} from './ovn-kubernetes.js';

export type {
  AzureClusterOptions,
  ClusterFinding,
  ClusterOptions,
  LinuxNodeSpec,
  PodInfo,
  PodSpec,
  ServicePortSpec,
  ServiceSpec,
  WindowsNodeSpec,
} from './types.js';

/**
 * An ovn-kubernetes node's VXLAN settings: the VNI is `types.HybridOverlayVNI`, a constant (4097, no
 * `vni`); the port a UDP port (`--hybrid-overlay-vxlan-port`, config.go refuses > 65535).
 */
function checkHybridOverlaySpec(vni: number | undefined, port: number | undefined): void {
  if (vni !== undefined)
    throw hnsError(
      'E_INVALIDARG',
      'an ovn-kubernetes node has no vni: the hybrid overlay VNI is always 4097',
    );
  if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535))
    throw hnsError('E_INVALIDARG', `vxlanPort ${port} is not 1..65535`);
}

/**
 * `ovnKubernetes` of a Windows node: only on an ovn-kubernetes node, `mode` hybrid-overlay or
 * native, `encapType` geneve or stt and only native; whether the node is native. A native node
 * has no VXLAN settings (its tunnels are OVN's).
 */
function checkOvnKubernetesMode(spec: WindowsNodeSpec): boolean {
  const o = spec.ovnKubernetes as unknown;
  if (o === undefined) return false;
  if (spec.network !== 'ovn-kubernetes')
    throw hnsError('E_INVALIDARG', 'ovnKubernetes is for nodes with network ovn-kubernetes');
  if (typeof o !== 'object' || o === null || Array.isArray(o))
    throw hnsError('E_INVALIDARG', 'ovnKubernetes must be an object { mode, encapType }');
  const r = o as Record<string, unknown>;
  for (const k of Object.keys(r))
    if (k !== 'mode' && k !== 'encapType')
      throw hnsError('E_INVALIDARG', `ovnKubernetes.${k} is not a setting (mode, encapType)`);
  if (r['mode'] !== undefined && r['mode'] !== 'hybrid-overlay' && r['mode'] !== 'native')
    throw hnsError(
      'E_INVALIDARG',
      `ovnKubernetes.mode must be hybrid-overlay or native, not "${String(r['mode'])}"`,
    );
  const native = r['mode'] === 'native';
  if (r['encapType'] !== undefined) {
    if (!native) throw hnsError('E_INVALIDARG', 'ovnKubernetes.encapType is for native nodes (mode: native)');
    if (r['encapType'] !== 'geneve' && r['encapType'] !== 'stt')
      throw hnsError(
        'E_INVALIDARG',
        `ovnKubernetes.encapType must be geneve or stt, not "${String(r['encapType'])}"`,
      );
  }
  if (native)
    for (const k of ['vni', 'vxlanPort', 'tunnelType', 'maxPods', 'nsg'] as const)
      if (spec[k] !== undefined)
        throw hnsError('E_INVALIDARG', `${k} is not for a native ovn-kubernetes node`);
  return native;
}

/** `podCidrV6`: an IPv6 prefix of /63 or shorter (room for a /64 per node), or E_INVALIDARG. */
function podCidrV6Arg(given: string | undefined): Prefix | undefined {
  if (given === undefined) return undefined;
  const p = typeof given === 'string' ? parsePrefix(given) : undefined;
  if (!p || p.family !== 6 || p.len > 63)
    throw hnsError('E_INVALIDARG', `podCidrV6 "${String(given)}" is not an IPv6 prefix of /63 or shorter`);
  return { family: 6, addr: p.addr, len: p.len };
}

/** `serviceCidrV6`: an IPv6 prefix, given only with `podCidrV6`, or E_INVALIDARG. */
function serviceCidrV6Arg(given: string | undefined, podCidrV6: Prefix | undefined): void {
  if (given === undefined) return;
  const p = typeof given === 'string' ? parsePrefix(given) : undefined;
  if (!p || p.family !== 6)
    throw hnsError('E_INVALIDARG', `serviceCidrV6 "${String(given)}" is not an IPv6 prefix`);
  if (!podCidrV6)
    throw hnsError('E_INVALIDARG', 'serviceCidrV6 is for a dual-stack cluster: give podCidrV6 too');
}

export class Cluster {
  readonly options: ClusterOptions;
  readonly fabric = new Fabric();
  readonly dns: ClusterDns;
  readonly podCidr: Prefix4;
  /** The IPv6 pod network of a dual-stack cluster (`podCidrV6`), undefined otherwise. */
  readonly podCidrV6: Prefix | undefined;
  /**
   * The cluster's Kubernetes API server (src/host/kubeapi.ts): every Windows node reaches it at its
   * URL (the kubeconfig `c:\k\config` names it); every node the cluster took is a Node in it with
   * the pod CIDRs it uses (`registerNode`).
   */
  readonly kubeApi: KubeApiServer;
  readonly serviceCidr: Prefix4;
  readonly nodeSubnet: Prefix4;
  readonly dnsServiceIp: number;
  private readonly nodes = new Map<string, AnyNode>();
  private readonly pods = new Map<string, PodRec>();
  private readonly services = new Map<string, ServiceRec>();
  private readonly networkPolicies = new Map<string, NetworkPolicySpec>();
  private readonly segments = new Map<string, { prefix: Prefix4; next: number }>();
  private nextNodeIndex = 1;
  private nextServiceIp: number;
  private gen = 0;
  readonly conntrack = new Conntrack();
  readonly flowTable = new FlowTable();
  private readonly scope: ClusterScope;
  private readonly sync = new ServiceSync(this.nodes, this.pods, this.services);

  constructor(given: ClusterOptions = {}) {
    const options = given.azure ? azureClusterDefaults(given) : given;
    this.options = options;
    this.podCidr = prefixArg(options.podCidr ?? '10.244.0.0/16', 'podCidr');
    this.podCidrV6 = podCidrV6Arg(options.podCidrV6);
    serviceCidrV6Arg(options.serviceCidrV6, this.podCidrV6);
    this.serviceCidr = prefixArg(options.serviceCidr ?? '10.96.0.0/12', 'serviceCidr');
    this.nodeSubnet = prefixArg(options.nodeSubnet ?? '10.0.0.0/24', 'nodeSubnet');
    const dnsIp = options.dnsServiceIp ? ip4(options.dnsServiceIp) : (this.serviceCidr.addr + 10) >>> 0;
    if (dnsIp === undefined || !contains(this.serviceCidr, dnsIp))
      throw hnsError('E_INVALIDARG', `dnsServiceIp "${options.dnsServiceIp}" is not in the service CIDR`);
    this.dnsServiceIp = dnsIp;
    this.nextServiceIp = (this.serviceCidr.addr + 11) >>> 0;
    // the API server answers on the `kubernetes` service's ClusterIP (the service CIDR's first)
    this.kubeApi = new KubeApiServer({ url: `https://${fmt((this.serviceCidr.addr + 1) >>> 0)}:443` });
    this.dns = new ClusterDns({ domain: options.domain ?? 'cluster.local' });
    this.fabric.addSegment('nodes', fmtPrefix(this.nodeSubnet));
    this.fabric.privatePrefixes.push(this.podCidr, this.serviceCidr);
    this.fabric.addRouter({
      name: 'router',
      interfaces: [{ segment: 'nodes', ip: fmt(this.nodeSubnet.addr + 1) }],
      internet: true,
    });
    // Azure gives a subnet's VMs addresses from its .4 (.0–.3 are reserved)
    const first = options.azure ? 4 : 10;
    this.segments.set('nodes', { prefix: this.nodeSubnet, next: (this.nodeSubnet.addr + first) >>> 0 });
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

  /** The next free address of a segment, and `extra` after it (an Azure VM's secondary IPs). */
  private takeNodeIp(segment: string, extra = 0): { ip: number; prefix: Prefix4; gateway: number } {
    const seg = this.segments.get(segment);
    if (!seg) throw hnsError('ERROR_NOT_FOUND', `no segment "${segment}"`);
    const ip = seg.next;
    if (!contains(seg.prefix, ip + extra + 1))
      throw hnsError('E_INVALIDARG', `segment ${segment} (${fmtPrefix(seg.prefix)}) is full`);
    seg.next = (ip + extra + 1) >>> 0;
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
    // (the API server knows a node by its name in lower case, as kubelet registers it)
    if (!name || this.nodes.has(name) || this.kubeApi.node(name.toLowerCase()))
      throw hnsError('E_INVALIDARG', `node name "${name}" is empty or taken`);
  }

  /**
   * A Windows node's record with its kube-proxy (`--network-name` read from the record: an Azure
   * node's network is found later), not yet synced.
   */
  private winNode(base: Omit<WinNode, 'kind' | 'proxy' | 'syncedGen'>): WinNode {
    const node: WinNode = {
      kind: 'Windows',
      ...base,
      proxy: new WinKernelProxy({
        name: base.name,
        host: base.host,
        // syncProxyRules looks the network up at each sync: one a reboot removed (Flags 8) is not
        // found, and kube-proxy waits for it as for one not made yet
        get networkId() {
          return node.host.hns.store.networks.has(node.networkId) ? node.networkId : '';
        },
        sourceVip: base.sourceVip,
        overlay: base.spec.network === 'overlay' || base.spec.network === 'ovn-kubernetes',
        dsr: this.dsr,
        nodeIp: base.ip,
      }),
      syncedGen: -1,
    };
    return node;
  }

  /** A Windows node's host: one NIC `Ethernet` with the node's address (and the Azure VM it is). */
  private nodeHost(
    spec: WindowsNodeSpec,
    index: number,
    nic: { readonly ip: number; readonly prefix: Prefix4; readonly gateway: number; readonly mac: number },
    azure?: AzureVmSpec,
  ): Host {
    const host = createHost({
      seed: this.seed * 1000 + index,
      name: spec.name,
      profile: spec.profile ?? this.options.profile ?? 'ws2022',
      adapters: [
        {
          name: 'Ethernet',
          ipAddress: `${fmt(nic.ip)}/${nic.prefix.len}`,
          gateway: fmt(nic.gateway),
          macAddress: formatMac(nic.mac),
          macSpoofing: spec.macSpoofing ?? true,
        },
      ],
      ...(azure ? { azure } : {}),
      ...(this.options.dataplane ? { dataplane: this.options.dataplane } : {}),
    });
    // (the node is registered in the API server once the cluster has it: `registerNode`)
    host.attachKubernetes(this.kubeApi);
    return host;
  }

  /**
   * With `podCidrV6`, node `index`'s IPv6 pod CIDR (kube-controller-manager's allocation, our
   * layout): the index-th /64 of it; one past its end is E_INVALIDARG and nothing changes.
   */
  private podSubnetV6For(index: number, name: string): string | undefined {
    const v6 = this.podCidrV6;
    if (!v6 || v6.family !== 6) return undefined;
    if (BigInt(index) >> BigInt(64 - v6.len) !== 0n)
      throw hnsError(
        'E_INVALIDARG',
        `podCidrV6 ${formatPrefix(v6)} has no /64 left for node "${name}" (/64 number ${index} of it is past its end)`,
      );
    return formatPrefix({ family: 6, addr: v6.addr + (BigInt(index) << 64n), len: 64 });
  }

  /**
   * A node the cluster took, as kubelet registers it: a Node in the API server (name in lower case)
   * with the pod CIDRs it really uses — its pod subnet (flannel's, an Overlay node's block; an Azure
   * node-subnet node has none: its pods take the VNet's addresses, and aks-engine's controller
   * manager allocates Azure CNI nodes no IPv4 CIDR), then its IPv6 /64 — and its node IP.
   */
  private registerNode(name: string, v4: Prefix4 | undefined, v6: string | undefined, ip: number): void {
    const cidrs = [...(v4 ? [fmtPrefix(v4)] : []), ...(v6 ? [v6] : [])];
    this.kubeApi.setNode(name.toLowerCase(), cidrs, fmt(ip));
  }

  /** Add a Windows node, set up as flannel (host-gw or vxlan) + win-bridge / win-overlay would. */
  addWindowsNode(spec: WindowsNodeSpec): Host {
    this.checkName(spec.name);
    if (this.options.azure) {
      if (spec.network !== 'azure')
        throw hnsError('E_INVALIDARG', `a node of an Azure cluster is an Azure VM: network must be azure`);
      return this.addAzureNode(spec);
    }
    this.checkPlugin(spec.name, spec.network === 'ovn-kubernetes');
    const native = checkOvnKubernetesMode(spec);
    if (spec.network === 'ovn-kubernetes') this.checkOvnMode(spec.name, native);
    if (native) return this.addOvnNativeNode(spec);
    if (spec.network === 'antrea') return this.addAntreaNode(spec);
    if (spec.tunnelType !== undefined) throw hnsError('E_INVALIDARG', 'tunnelType is for antrea nodes');
    if (spec.network !== 'l2bridge' && spec.network !== 'overlay' && spec.network !== 'ovn-kubernetes')
      throw hnsError(
        'E_INVALIDARG',
        spec.network === 'azure'
          ? 'network azure needs an Azure cluster (ClusterOptions.azure)'
          : `network must be l2bridge, overlay, antrea or ovn-kubernetes`,
      );
    if (spec.network === 'ovn-kubernetes') checkHybridOverlaySpec(spec.vni, spec.vxlanPort);
    for (const k of ['maxPods', 'nsg'] as const)
      if (spec[k] !== undefined) throw hnsError('E_INVALIDARG', `${k} is for nodes of an Azure cluster`);
    const podSubnet = this.podSubnetFor(spec.podSubnet);
    const podSubnetV6 = this.podSubnetV6For(this.nextNodeIndex, spec.name);
    const segment = spec.segment ?? 'nodes';
    const before = this.segments.get(segment)?.next;
    const { ip, prefix: segPrefix, gateway: segGw } = this.takeNodeIp(segment);
    const index = this.nextNodeIndex++;
    const mac = 0x000d3a000000 + index;
    let host: Host;
    let set: ReturnType<typeof setUpWindowsNode>;
    try {
      host = this.nodeHost(spec, index, { ip, prefix: segPrefix, gateway: segGw, mac });
      set = setUpWindowsNode(host, spec, podSubnet, ip, mac);
    } catch (e) {
      this.segments.get(segment)!.next = before!;
      this.nextNodeIndex = index;
      throw e;
    }
    const { networkId, drMac, sourceVip } = set;
    const node = this.winNode({
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
    });
    this.admit(node, host.dataplane, mac, podSubnetV6, { segmentNext: before!, index });
    return host;
  }

  /**
   * The cluster takes a new node: its place on the segment, its record, its Node in the API server,
   * then a sync of the cluster (the overlay's routes to it and its own, kube-proxy). If any of that
   * fails the node is taken out again — off the segment, out of the cluster and the API server, its
   * address and index given back — and the error is thrown: a failed add leaves no half-added node.
   * What the sync had programmed on other nodes before it failed stays until a later sync (a retry
   * gets the same address and pod subnet, so routes already made to them are right for it).
   */
  private admit(
    node: AnyNode,
    attach: Parameters<Fabric['attach']>[1],
    mac: number,
    podSubnetV6: string | undefined,
    undo: { readonly segmentNext: number; readonly index: number },
  ): void {
    let attached = false;
    try {
      this.fabric.attach(node.segment, attach, node.ip, mac);
      attached = true;
      this.nodes.set(node.name, node);
      this.registerNode(node.name, node.podSubnet, podSubnetV6, node.ip);
      this.changed();
    } catch (e) {
      // (checkName: neither the cluster nor the API server had the name before)
      this.nodes.delete(node.name);
      this.kubeApi.removeNode(node.name.toLowerCase());
      if (attached) this.fabric.detach(node.segment, node.ip);
      this.segments.get(node.segment)!.next = undo.segmentNext;
      this.nextNodeIndex = undo.index;
      throw e;
    }
  }

  /**
   * A cluster runs one network plugin: ovn-kubernetes nodes (hybrid overlay on Windows, OVN on
   * Linux) do not join a cluster of flannel or Antrea nodes, nor those one of ovn-kubernetes nodes.
   */
  private checkPlugin(name: string, ovn: boolean): void {
    for (const o of this.nodes.values())
      if (isOvnKubernetes(o) !== ovn)
        throw hnsError(
          'E_INVALIDARG',
          `node "${name}" ${ovn ? 'runs' : 'does not run'} ovn-kubernetes but node "${o.name}" ${ovn ? 'does not' : 'does'}: a cluster runs one network plugin`,
        );
  }

  /**
   * ovn-kubernetes' two Windows nodes do not meet here: native nodes (OVS, Geneve/STT) tunnel only
   * to other native nodes, hybrid overlay nodes speak VXLAN 4097 with OVN's Linux `br-ext`, and
   * OVN's Linux side of the native era (Geneve to the Windows chassis) is not modelled.
   */
  private checkOvnMode(name: string, native: boolean): void {
    for (const o of this.nodes.values()) {
      if (!isOvnKubernetes(o)) continue;
      const other = o.kind === 'Windows' && o.ovnNative !== undefined;
      if (other !== native)
        throw hnsError(
          'E_INVALIDARG',
          `node "${name}" is ${native ? 'a native' : 'a hybrid overlay'} ovn-kubernetes node but "${o.name}" is ${other ? 'a native one' : o.kind === 'Linux' ? 'an OVN Linux node (hybrid mode)' : 'a hybrid overlay one'}: the two modes do not meet in hnsim`,
        );
    }
  }

  /**
   * A native (historical) ovn-kubernetes node (src/cluster/ovn-kubernetes-native.ts): the Ansible
   * role's Transparent network `external` and br-int, ovnkube's management port `k8s-<node>`, a
   * tunnel port to every other native node (and theirs to it). No kube-proxy: OVN's load
   * balancers (the stand-in's select groups) serve Services.
   */
  private addOvnNativeNode(spec: WindowsNodeSpec): Host {
    const podSubnet = this.podSubnetFor(spec.podSubnet);
    const podSubnetV6 = this.podSubnetV6For(this.nextNodeIndex, spec.name);
    const segment = spec.segment ?? 'nodes';
    const before = this.segments.get(segment)?.next;
    const { ip, prefix: segPrefix, gateway: segGw } = this.takeNodeIp(segment);
    const index = this.nextNodeIndex;
    const mac = 0x000d3a000000 + index;
    const natives = [...this.nodes.values()].filter(
      (o): o is WinNode => o.kind === 'Windows' && o.ovnNative !== undefined,
    );
    let host: Host;
    let ovn: OvnNativeNode;
    try {
      host = this.nodeHost(spec, index, { ip, prefix: segPrefix, gateway: segGw, mac });
      ovn = new OvnNativeNode(host, {
        name: spec.name,
        podSubnet,
        clusterCidr: this.podCidr,
        serviceCidr: this.serviceCidr,
        encapType: spec.ovnKubernetes?.encapType ?? 'geneve',
        datapathKey: 2 + natives.length,
        dns: (ns) => {
          const d = this.podDns(ns);
          return { servers: d.servers, search: d.search };
        },
      });
      ovn.start();
    } catch (e) {
      this.segments.get(segment)!.next = before!;
      throw e;
    }
    this.nextNodeIndex++;
    const node = this.winNode({
      name: spec.name,
      segment,
      host,
      ip,
      mac,
      spec,
      podSubnet,
      networkId: ovn.networkId,
      drMac: 0,
      sourceVip: ip,
      nextPod: 3,
      ovnNative: ovn,
    });
    // every native node tunnels to every other: the new one to all, all to it
    meshOvnNative([...natives, node]);
    try {
      this.admit(node, host.dataplane, mac, podSubnetV6, { segmentNext: before!, index });
    } catch (e) {
      // the others' tunnel ports to it go again (admit took it out of the cluster)
      meshOvnNative(natives);
      throw e;
    }
    return host;
  }

  /**
   * An Antrea node (docs/antrea.md): its host, then Antrea's agent preparing it (the Transparent
   * network, br-int, the tunnel to every other Antrea node) on the node's pod subnet; each Antrea
   * node and the new one learn of each other (peers: routes and tunnel flows). No kube-proxy: on
   * Windows AntreaProxy serves Services in OVS (the agent's `setServices`).
   */
  private addAntreaNode(spec: WindowsNodeSpec): Host {
    for (const k of ['maxPods', 'nsg', 'vni', 'vxlanPort'] as const)
      if (spec[k] !== undefined) throw hnsError('E_INVALIDARG', `${k} is not for antrea nodes`);
    if (spec.tunnelType !== undefined && !['geneve', 'vxlan', 'stt'].includes(spec.tunnelType))
      throw hnsError(
        'E_INVALIDARG',
        `tunnelType must be geneve, vxlan or stt, not "${String(spec.tunnelType)}"`,
      );
    const podSubnet = this.podSubnetFor(spec.podSubnet);
    const podSubnetV6 = this.podSubnetV6For(this.nextNodeIndex, spec.name);
    const segment = spec.segment ?? 'nodes';
    const before = this.segments.get(segment)?.next;
    const { ip, prefix: segPrefix, gateway: segGw } = this.takeNodeIp(segment);
    const index = this.nextNodeIndex;
    const mac = 0x000d3a000000 + index;
    let host: Host;
    let agent: AntreaAgent;
    try {
      host = this.nodeHost(spec, index, { ip, prefix: segPrefix, gateway: segGw, mac });
      agent = new AntreaAgent(host, {
        podCidr: fmtPrefix(podSubnet),
        tunnelType: spec.tunnelType ?? 'geneve',
      });
      agent.start();
    } catch (e) {
      this.segments.get(segment)!.next = before!;
      throw e;
    }
    this.nextNodeIndex++;
    const node = this.winNode({
      name: spec.name,
      segment,
      host,
      ip,
      mac,
      spec,
      podSubnet,
      networkId: '',
      drMac: 0,
      sourceVip: ip,
      nextPod: 0,
      antrea: agent,
    });
    const others = [...this.nodes.values()].flatMap((o) =>
      o.kind === 'Windows' && o.antrea
        ? [{ name: o.name, ip: o.ip, podSubnet: o.podSubnet, agent: o.antrea }]
        : [],
    );
    for (const other of others) {
      other.agent.addPeer({ name: spec.name, nodeIp: fmt(ip), podCidr: fmtPrefix(podSubnet) });
      agent.addPeer({ name: other.name, nodeIp: fmt(other.ip), podCidr: fmtPrefix(other.podSubnet) });
    }
    try {
      this.admit(node, host.dataplane, mac, podSubnetV6, { segmentNext: before!, index });
    } catch (e) {
      // the others' routes and tunnel flows to it go again (admit took it out of the cluster)
      for (const other of others) other.agent.removePeer(spec.name);
      throw e;
    }
    return host;
  }

  /**
   * An Overlay node's pod block: the given one (inside the pod CIDR, off the VNet, routed to no
   * other VM), else the next /24 of the pod CIDR no node has.
   */
  private overlayBlock(given: string | undefined): Prefix4 {
    const taken = [...this.nodes.values()].map((n) => n.podSubnet);
    const clash = (p: Prefix4) => taken.some((q) => contains(q, p.addr) || contains(p, q.addr));
    if (given !== undefined) {
      const p = prefixArg(given, 'podSubnet', 29);
      if (!contains(this.podCidr, p.addr) || p.len < this.podCidr.len)
        throw hnsError(
          'E_INVALIDARG',
          `podSubnet ${given} is not inside the pod CIDR ${fmtPrefix(this.podCidr)}`,
        );
      if (contains(this.nodeSubnet, p.addr) || contains(p, this.nodeSubnet.addr))
        throw hnsError(
          'E_INVALIDARG',
          `podSubnet ${given} overlaps the VNet subnet ${fmtPrefix(this.nodeSubnet)}`,
        );
      if (clash(p)) throw hnsError('E_INVALIDARG', `${fmtPrefix(p)} is routed to another VM already`);
      return p;
    }
    for (let k = this.nextNodeIndex; ; k++) {
      const p = prefix4((this.podCidr.addr + (k << 8)) >>> 0, 24);
      if (!contains(this.podCidr, p.addr))
        throw hnsError('E_INVALIDARG', `pod CIDR ${fmtPrefix(this.podCidr)} has no /24 left`);
      if (!clash(p)) return p;
    }
  }

  /**
   * An Azure VM joins (AKS node-subnet mode): its NIC takes the next address of the VNet subnet and
   * `maxPods` secondary IPs after it, the VNet routes all of them to it, its NSG filters it, and
   * AgentBaker's `ext` network binds the NIC. No pod network yet: azure-vnet creates `azure` at
   * the first pod's ADD, and kube-proxy finds it by name then.
   */
  private addAzureNode(spec: WindowsNodeSpec): Host {
    const overlay = this.options.azure?.mode === 'overlay';
    if (overlay && spec.maxPods !== undefined)
      throw hnsError('E_INVALIDARG', 'an Overlay node has no secondary IPs: maxPods is for node-subnet mode');
    const maxPods = overlay ? 0 : (spec.maxPods ?? this.options.azure?.maxPods ?? 30);
    if (!overlay && (!Number.isInteger(maxPods) || maxPods < 1 || maxPods > 250))
      throw hnsError('E_INVALIDARG', `maxPods ${maxPods} is not 1..250`);
    if (spec.vni !== undefined || spec.vxlanPort !== undefined || (!overlay && spec.podSubnet !== undefined))
      throw hnsError(
        'E_INVALIDARG',
        overlay
          ? 'an Overlay Azure node has no vni or vxlanPort'
          : 'an Azure node takes its pod IPs from the VNet: no podSubnet, vni or vxlanPort',
      );
    const podCidr = overlay ? this.overlayBlock(spec.podSubnet) : undefined;
    const podSubnetV6 = this.podSubnetV6For(this.nextNodeIndex, spec.name);
    const segment = spec.segment ?? 'nodes';
    const before = this.segments.get(segment)?.next;
    const { ip, prefix, gateway } = this.takeNodeIp(segment, maxPods);
    const index = this.nextNodeIndex;
    const mac = 0x000d3a000000 + index;
    const secondaryIps = Array.from({ length: maxPods }, (_, i) => (ip + 1 + i) >>> 0);
    let host: Host;
    let cns: CnsAgent | undefined;
    try {
      host = this.nodeHost(
        spec,
        index,
        { ip, prefix, gateway, mac },
        {
          nics: [
            {
              adapter: 'Ethernet',
              secondaryIps: secondaryIps.map(fmt),
              ...(spec.nsg ? { nsg: spec.nsg } : {}),
            },
          ],
          addressSpace: this.options.azure?.addressSpace ?? ['10.224.0.0/12'],
        },
      );
      setUpAzureNode(host);
      // Overlay: the node's CNS hands out its pod CIDR (the NC DNC-RC would program)
      if (podCidr)
        cns = startCns(host, {
          ncs: [overlayNc(`${spec.name}-overlay`, fmtPrefix(podCidr), fmtPrefix(this.podCidr))],
        });
    } catch (e) {
      this.segments.get(segment)!.next = before!;
      throw e;
    }
    this.nextNodeIndex++;
    const node = this.winNode({
      name: spec.name,
      segment,
      host,
      ip,
      mac,
      spec,
      podSubnet: podCidr ?? prefix,
      networkId: '',
      drMac: 0,
      sourceVip: ip,
      nextPod: 0,
      ...(cns ? { cns } : {}),
    });
    try {
      this.fabric.attachVm(segment, host.dataplane, {
        ip,
        mac,
        secondaryIps,
        edge: azureEdge(host.azure!),
        ...(podCidr ? { routed: [podCidr] } : {}),
      });
    } catch (e) {
      this.segments.get(segment)!.next = before!;
      this.nextNodeIndex--;
      throw e;
    }
    this.nodes.set(spec.name, node);
    this.registerNode(spec.name, podCidr, podSubnetV6, ip);
    this.changed();
    return host;
  }

  /** Add a Linux node (flannel host-gw or vxlan). */
  addLinuxNode(spec: LinuxNodeSpec): LinuxNode {
    this.checkName(spec.name);
    if (this.options.azure)
      throw hnsError(
        'E_INVALIDARG',
        "an Azure cluster's nodes are Windows VMs here (AKS Linux nodes' azure-vnet is not modelled)",
      );
    if (spec.backend !== 'host-gw' && spec.backend !== 'vxlan' && spec.backend !== 'ovn-kubernetes')
      throw hnsError('E_INVALIDARG', `backend must be host-gw, vxlan or ovn-kubernetes`);
    const ovn = spec.backend === 'ovn-kubernetes';
    this.checkPlugin(spec.name, ovn);
    if (ovn) {
      this.checkOvnMode(spec.name, false);
      checkHybridOverlaySpec(spec.vni, spec.vxlanPort);
      const other = [...this.nodes.values()].find((o) => o.kind === 'Linux');
      if (other)
        throw hnsError(
          'E_INVALIDARG',
          `Linux node "${other.name}" runs OVN already: Geneve between OVN's Linux nodes is not modelled (one Linux ovn-kubernetes node per cluster)`,
        );
    }
    const podSubnet = this.podSubnetFor(spec.podSubnet);
    const podSubnetV6 = this.podSubnetV6For(this.nextNodeIndex, spec.name);
    const segment = spec.segment ?? 'nodes';
    const before = this.segments.get(segment)?.next;
    const { ip, gateway: segGw } = this.takeNodeIp(segment);
    const index = this.nextNodeIndex++;
    const mac = 0x005056000000 + index;
    // ovn-kubernetes: br-ext's ext-vxlan (VNI 4097) and the hybrid overlay port's DR MAC 0A-58-<.3>;
    // OVN's MTU default 1400; pods from .4 (.1 router port, .2 management port, .3 DR IP)
    const vxlan: LinuxVxlan | undefined = ovn
      ? {
          vni: HYBRID_OVERLAY_VNI,
          port: spec.vxlanPort ?? HYBRID_OVERLAY_VXLAN_PORT,
          mac: linuxDrMac(podSubnet),
          mtu: spec.mtu ?? 1400,
          dev: 'ext-vxlan',
        }
      : spec.backend === 'vxlan'
        ? {
            vni: spec.vni ?? 1,
            port: spec.vxlanPort ?? 8472,
            mac: 0x0e2a00000000 + index,
            mtu: spec.mtu ?? 1450,
          }
        : undefined;
    const node = new LinuxNode(
      spec.name,
      ip,
      mac,
      segGw,
      podSubnet,
      this.podCidr,
      vxlan,
      (w, from, p, hop) => this.fabric.send(w, from, p, hop),
      ovn ? 4 : 2,
    );
    this.admit(
      { kind: 'Linux', name: spec.name, segment, node, ip, spec, podSubnet },
      node,
      mac,
      podSubnetV6,
      {
        segmentNext: before!,
        index,
      },
    );
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
    let endpoint: { endpointId: string; namespaceId?: string; adopted?: boolean } | undefined;
    if (node.kind === 'Linux') {
      if (spec.policies?.length) throw hnsError('E_INVALIDARG', 'HNS policies need a Windows node');
      ip = node.node.addPod(spec.namespace, spec.name).ip;
    } else if (node.ovnNative) {
      if (spec.policies?.length)
        throw hnsError('E_INVALIDARG', 'ovn-kubernetes native pods have no HNS policies');
      if (spec.endpointId !== undefined)
        throw hnsError('E_INVALIDARG', 'ovn-kubernetes attaches its own pods (ovn-k8s-cni-overlay)');
      const attached = node.ovnNative.addPod(
        spec.namespace,
        spec.name,
        antreaSandbox(spec.namespace, spec.name),
      );
      ip = attached.ip;
      endpoint = { endpointId: attached.endpointId };
    } else if (node.antrea) {
      if (spec.policies?.length) throw hnsError('E_INVALIDARG', 'Antrea pods have no HNS policies');
      if (spec.endpointId !== undefined) throw hnsError('E_INVALIDARG', 'Antrea attaches its own pods');
      const attached = antreaPod(this, node.antrea, node.host, spec);
      ip = attached.ip;
      endpoint = { endpointId: attached.endpointId, namespaceId: attached.namespaceId };
    } else if (node.spec.network === 'azure' && spec.endpointId === undefined) {
      throw hnsError(
        'E_INVALIDARG',
        `pods on Azure node ${node.name} get their endpoint from azure-vnet: start them through a runtime (startAzurePod) and pass endpointId`,
      );
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
      endpoint = createPodEndpoint(this, node, spec, ip);
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
    this.changed(this.sync.servicesOf(rec));
    return rec;
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
    // the endpoint and namespace the cluster made for the pod (an adopted one is its runtime's)
    const own =
      node.kind === 'Windows' &&
      !node.antrea &&
      !rec.adopted &&
      rec.endpointId !== undefined &&
      rec.namespaceId !== undefined
        ? { node, pod: { endpointId: rec.endpointId, namespaceId: rec.namespaceId } }
        : undefined;
    // the services that pick the pod drop it (changed() ignores them on a full sync)
    const dirty = this.sync.servicesOf(rec);
    if (node.kind === 'Linux') node.node.removePod(rec.ipNum);
    this.pods.delete(key);
    this.dns.removePod(namespace, name);
    // kube-proxy learns of the pod's removal and syncs, then the pod's endpoint goes (kubelet tears
    // the sandbox down after the containers' grace period). HNS would delete the endpoint in either
    // order; deleted first, the load balancers would name it until kube-proxy synced
    // (kubernetes#112836, test/acceptance/stale-load-balancer.test.ts).
    this.changed(dirty);
    // an Antrea pod: AntreaProxy has dropped it from its Services, then kubelet's CNI DEL runs
    if (node.kind === 'Windows' && node.ovnNative) node.ovnNative.removePod(rec.namespace, rec.name);
    if (node.kind === 'Windows' && node.antrea && rec.namespaceId !== undefined) {
      node.antrea.cmdDel({ containerId: antreaSandbox(rec.namespace, rec.name), netns: rec.namespaceId });
      node.host.api.HcnDeleteNamespace(rec.namespaceId);
    }
    if (own) {
      deletePodEndpoint(own.node, own.pod);
      own.node.syncedGen = own.node.host.dataplane.generation();
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
    // the API server's NodePort allocator: a nodePort is one Service's (any protocol)
    const external = (x: ServiceSpec) => x.type === 'NodePort' || x.type === 'LoadBalancer';
    if (external(spec))
      for (const p of spec.ports) {
        if (p.nodePort === undefined) continue;
        const other = [...this.services.values()].find(
          (s) => external(s.spec) && s.spec.ports.some((q) => q.nodePort === p.nodePort),
        );
        if (other)
          throw hnsError(
            'E_INVALIDARG',
            `nodePort ${p.nodePort}: provided port is already allocated (${other.spec.namespace}/${other.spec.name})`,
          );
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
    this.addKubeDnsService();
  }

  /**
   * The `kube-system/kube-dns` service at the DNS service IP (UDP and TCP 53), selecting the
   * CoreDNS pods (`k8s-app: kube-dns`) — for CoreDNS pods a runtime started (`startAzurePod`).
   */
  addKubeDnsService(): void {
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

  /**
   * Something changed. `dirty`: the keys of the services a pod or service change touches (the
   * incremental sync re-programs only those, and repairs what changed on a node behind the
   * cluster's back); without it (nodes, segments, the underlay) everything is synced.
   */
  private changed(dirty?: readonly string[]): void {
    this.gen++;
    if (dirty === undefined || !this.incremental) {
      this.syncNetworks();
      this.sync.full();
    } else this.sync.changed(dirty, (n) => this.syncNetworks(n));
    this.syncNetworkPolicies();
    for (const n of this.nodes.values())
      if (n.kind === 'Windows') n.syncedGen = n.host.dataplane.generation();
  }

  // ───────────────────────────── NetworkPolicy (Antrea nodes) ─────────────────────────────

  /**
   * A Kubernetes NetworkPolicy (src/cluster/netpol.ts): enforced by the Antrea agents of the
   * cluster's Antrea nodes (other nodes' plugins do not enforce NetworkPolicy here). Errors:
   * E_INVALIDARG (a bad spec, a name taken).
   */
  /** The NetworkPolicies (as given). */
  networkPolicyList(): NetworkPolicySpec[] {
    return [...this.networkPolicies.values()];
  }

  addNetworkPolicy(spec: NetworkPolicySpec): void {
    checkNetworkPolicy(spec);
    const key = `${spec.namespace}/${spec.name}`;
    if (this.networkPolicies.has(key)) throw hnsError('E_INVALIDARG', `NetworkPolicy "${key}" exists`);
    // (a spec checkNetworkPolicy passes always compiles: nothing to refuse after it)
    this.networkPolicies.set(key, spec);
    this.changed([]);
  }

  removeNetworkPolicy(namespace: string, name: string): boolean {
    const gone = this.networkPolicies.delete(`${namespace}/${name}`);
    if (gone) this.changed([]);
    return gone;
  }

  /** Every Antrea agent gets the policies' rules with their groups resolved from the pods now. */
  private syncNetworkPolicies(): void {
    const agents = [...this.nodes.values()].flatMap((n) =>
      n.kind === 'Windows' && n.antrea ? [n.antrea] : [],
    );
    if (!agents.length) return;
    const { rules, isolated } = compileNetworkPolicies(this.networkPolicies.values(), [
      ...this.pods.values(),
    ]);
    for (const a of agents) a.setNetworkPolicies(rules, isolated);
  }

  /** flannel: routes (host-gw) and RemoteSubnetRoutes / FDB (vxlan) towards every other node. */
  private syncNetworks(only?: AnyNode): void {
    // kube-proxy --network-name azure: an Azure node's network, found by name (azure-vnet made it)
    for (const n of this.nodes.values())
      if (n.kind === 'Windows' && n.spec.network === 'azure' && (only === undefined || n === only))
        n.networkId = azureNetworkId(n.host);
    syncNetworks([...this.nodes.values()], this.fabric, this.options.l2bridgeRouting === 'tor', only);
  }

  // ───────────────────────────── checks, traces ─────────────────────────────

  /** Overlay settings that do not agree between nodes (VNI, UDP port, MTU, backends). */
  check(): ClusterFinding[] {
    return checkOverlays(this.nodes.values());
  }

  trace(request: TraceRequest): TraceResult {
    return runTrace(this.scope, request, this.flowTable);
  }

  /**
   * Walk a packet as the reachability analysis does (src/dataplane/trace.ts `runProbe`): a new
   * connection, each HNS ACL stage recorded and passed; `forced` picks a backend per `node|lb`.
   */
  probe(request: TraceRequest, forced?: ReadonlyMap<string, number>): Probe {
    return runProbe(this.scope, request, forced);
  }

  /** The addresses a probe of `request` would start from and go to, nothing walked. */
  probeAddresses(request: TraceRequest): ProbeAddresses {
    return resolveProbe(this.scope, request);
  }

  send(request: SendRequest): TraceResult {
    return runSend(this.scope, request);
  }
}

/** Native ovn-kubernetes nodes: each gets a tunnel port to every other one of `natives` (and only those). */
function meshOvnNative(natives: readonly WinNode[]): void {
  for (const n of natives)
    n.ovnNative!.setPeers(
      natives
        .filter((o) => o !== n)
        .map((o) => ({
          name: o.name,
          nodeIp: o.ip,
          podSubnet: o.podSubnet,
          systemId: o.ovnNative!.systemId,
          datapathKey: o.ovnNative!.options.datapathKey,
        })),
    );
}
