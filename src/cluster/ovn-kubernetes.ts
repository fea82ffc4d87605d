/**
 * ovn-kubernetes' Windows node, the hybrid overlay (docs/ovn-kubernetes.md; reference
 * ovs-windows.md §3): no OVS on Windows. `hybrid-overlay-node.exe` makes a persistent base Overlay
 * network, then the node's own non-persistent Overlay network `OVNKubernetesHybridOverlayNetwork`
 * (VSID 4097, gateway .1, a HostRoute policy), and a RemoteSubnetRoute (VNI 4097, the peer's node
 * IP and DR MAC) per other node (ovn-org/ovn-kubernetes `go-controller/hybrid-overlay/pkg/
 * controller/ho_node_windows.go`, `overlay_windows.go`, `pkg/types/types.go`). WMCO then creates
 * kube-proxy's `VIPEndpoint` in the host compartment and writes the win-overlay conflist pods are
 * attached with (openshift/windows-machine-config-operator `pkg/nodeconfig/payload/payload.go`).
 * A Linux ovn-kubernetes node in hybrid mode answers with VXLAN VNI 4097 from its `br-ext`
 * (`hybrid-overlay/pkg/controller/ovn_node_linux.go`), its DR IP the subnet's .3 and its DR MAC
 * `0A-58-<DR IP>` (`pkg/util/net.go` GetNodeHybridOverlayIfAddr, IPAddrToHWAddr).
 */
import type { JsonObject } from '../core/json.js';
import { formatMac, parseMac } from '../addr/mac.js';
import { must } from '../api/flat.js';
import type { Host } from '../host/host.js';
import { fmt, fmtPrefix, parsePrefix4, type Prefix4 } from '../vswitch/v4.js';
import type { AnyNode, WinNode } from './types.js';
import type { WindowsNodeNetwork } from './windows-node.js';

/** `networkName` in ho_node_windows.go (WMCO's `OVNKubeOverlayNetwork`). */
export const HYBRID_OVERLAY_NETWORK = 'OVNKubernetesHybridOverlayNetwork';
/** `baseNetworkName` in ho_node_windows.go `ensureBaseNetwork`. */
export const BASE_HYBRID_OVERLAY_NETWORK = 'BaseOVNKubernetesHybridOverlayNetwork';
/** `types.HybridOverlayVNI`. */
export const HYBRID_OVERLAY_VNI = 4097;
/** `config.DefaultVXLANPort` (`--hybrid-overlay-vxlan-port`). */
export const HYBRID_OVERLAY_VXLAN_PORT = 4789;

const V2 = { Major: 2, Minor: 0 };

/** Whether a node is an ovn-kubernetes node (Windows hybrid overlay, or Linux in hybrid mode). */
export function isOvnKubernetes(n: AnyNode): boolean {
  return n.kind === 'Windows' ? n.spec.network === 'ovn-kubernetes' : n.spec.backend === 'ovn-kubernetes';
}

/**
 * `NetworkInfo.GetHostComputeNetworkConfig` (overlay_windows.go): an Overlay network, one Static
 * subnet with its VSID and a default route to the gateway, the AutomaticDNS policy, a VxlanPort
 * policy only off 4789, Flags 8 (EnableNonPersistent) unless persistent. No NetAdapterName: HNS
 * picks the adapter.
 */
function hybridNetworkDoc(
  name: string,
  subnet: string,
  gateway: string,
  vsid: number,
  automaticDns: boolean,
  persistent: boolean,
  port: number,
): JsonObject {
  const policies: JsonObject[] = [{ Type: 'AutomaticDNS', Settings: { Enable: automaticDns } }];
  if (port !== HYBRID_OVERLAY_VXLAN_PORT) policies.push({ Type: 'VxlanPort', Settings: { Port: port } });
  return {
    SchemaVersion: V2,
    Name: name,
    Type: 'Overlay',
    Ipams: [
      {
        Type: 'Static',
        Subnets: [
          {
            IpAddressPrefix: subnet,
            Routes: [{ NextHop: gateway, DestinationPrefix: '0.0.0.0/0' }],
            Policies: [{ Type: 'VSID', Settings: { IsolationId: vsid } }],
          },
        ],
      },
    ],
    ...(persistent ? {} : { Flags: 8 }),
    Policies: policies,
  };
}

/**
 * A fresh Windows node as hybrid-overlay-node and WMCO set it up: the base network (100.64.0.0/30,
 * gateway 100.64.0.2, VSID 4098, persistent, no automatic DNS), the hybrid overlay network on the
 * node's pod subnet with its HostRoute policy, then WMCO's `VIPEndpoint` attached to the host
 * compartment (`New-HnsEndpoint` leaves its address to HNS; kube-proxy's `sourceVip` is the address
 * the endpoint got).
 */
export function setUpHybridOverlayNode(
  host: Host,
  podSubnet: Prefix4,
  port: number,
  attachToHost: (host: Host, endpointId: string) => void,
): WindowsNodeNetwork {
  must(
    host.api.HcnCreateNetwork(
      null,
      hybridNetworkDoc(
        BASE_HYBRID_OVERLAY_NETWORK,
        '100.64.0.0/30',
        '100.64.0.2',
        HYBRID_OVERLAY_VNI + 1,
        false,
        true,
        port,
      ),
    ),
  );
  const net = must(
    host.api.HcnCreateNetwork(
      null,
      hybridNetworkDoc(
        HYBRID_OVERLAY_NETWORK,
        fmtPrefix(podSubnet),
        fmt(podSubnet.addr + 1),
        HYBRID_OVERLAY_VNI,
        true,
        false,
        port,
      ),
    ),
  );
  const networkId = String(net['ID']);
  must(
    host.api.HcnModifyNetwork(networkId, {
      ResourceType: 'Policy',
      RequestType: 'Add',
      Settings: { Policies: [{ Type: 'HostRoute', Settings: {} }] },
    }),
  );
  const rec = host.hns.store.networks.get(networkId)!;
  const drMac = parseMac(rec.DrMacAddress ?? '') ?? 0;
  const ep = must(
    host.api.HcnCreateEndpoint(networkId, null, {
      Name: 'VIPEndpoint',
      HostComputeNetwork: networkId,
      SchemaVersion: V2,
    }),
  );
  const epId = String(ep['ID']);
  attachToHost(host, epId);
  const vip = host.hns.store.endpoints.get(epId)!.IpConfigurations.find((c) => c.addr.family === 4);
  const sourceVip = parsePrefix4(`${vip!.IpAddress}/32`)!.addr;
  return { networkId, drMac, sourceVip };
}

/**
 * The endpoint policies of WMCO's win-overlay conflist (payload.go `cni_template`, apiVersion 2):
 * OutBoundNAT excepting the service CIDR (WMCO's "exceptionList", read as HCN's `Exceptions`:
 * docs/model.md), an SDNRoute for the service CIDR with NeedEncap, and the ProviderAddress (the
 * network's ManagementIP, the node IP).
 */
export function hybridOverlayPodPolicies(serviceCidr: string, providerAddress: string): JsonObject[] {
  return [
    { Type: 'OutBoundNAT', Settings: { Exceptions: [serviceCidr] } },
    { Type: 'SDNRoute', Settings: { DestinationPrefix: serviceCidr, NeedEncap: true } },
    { Type: 'ProviderAddress', Settings: { ProviderAddress: providerAddress } },
  ];
}

/**
 * WMCO's CNI config for a hybrid overlay node (payload.go `cni_template` with `HNS_NETWORK`,
 * `SERVICE_NETWORK_CIDR`, `ovn_host_subnet` and `provider_address` filled in), as the file
 * `c:\k\cni.conf` holds it.
 */
export function hybridOverlayConflist(
  serviceCidr: string,
  subnet: string,
  providerAddress: string,
): JsonObject {
  return {
    cniVersion: '0.2.0',
    name: HYBRID_OVERLAY_NETWORK,
    type: 'win-overlay',
    apiVersion: 2,
    capabilities: { portMappings: true, dns: true },
    ipam: { type: 'host-local', subnet },
    policies: [
      {
        name: 'EndpointPolicy',
        value: {
          type: 'OutBoundNAT',
          settings: { exceptionList: [serviceCidr], destinationPrefix: '', needEncap: false },
        },
      },
      {
        name: 'EndpointPolicy',
        value: {
          type: 'SDNRoute',
          settings: { exceptionList: [], destinationPrefix: serviceCidr, needEncap: true },
        },
      },
      {
        name: 'EndpointPolicy',
        value: { type: 'ProviderAddress', settings: { providerAddress } },
      },
    ],
  };
}

/** A Linux ovn-kubernetes node's hybrid overlay DR IP: its subnet's .3 (management port .2, plus one). */
export function linuxDrIp(podSubnet: Prefix4): number {
  return (podSubnet.addr + 3) >>> 0;
}

/** `IPAddrToHWAddr`: `0A:58` and the address's four bytes. */
export function linuxDrMac(podSubnet: Prefix4): number {
  return 0x0a5800000000 + linuxDrIp(podSubnet);
}

/** The DR MAC a hybrid overlay peer annotates (`k8s.ovn.org/hybrid-overlay-distributed-router-gateway-mac`). */
function peerDrMac(n: AnyNode): number | undefined {
  if (!isOvnKubernetes(n)) return undefined;
  return n.kind === 'Windows' ? n.drMac : n.node.vxlan?.mac;
}

/**
 * hybrid-overlay-node's AddNode / DeleteNode on a Windows node: a RemoteSubnetRoute (IsolationId
 * 4097, the peer's node IP as ProviderAddress, its DR MAC) for each other ovn-kubernetes node's
 * subnet it lacks, and those of nodes no longer there removed. A node whose network is gone (Flags
 * 8: a reboot removed it) is skipped: it gets no routes, and its peers keep theirs to it (our choice,
 * docs/model.md).
 */
export function syncHybridOverlay(n: WinNode, nodes: readonly AnyNode[]): void {
  const rec = n.host.hns.store.networks.get(n.networkId);
  if (!rec) return;
  const want = new Map<string, JsonObject>();
  for (const o of nodes) {
    const mac = o === n ? undefined : peerDrMac(o);
    if (mac === undefined) continue;
    want.set(fmtPrefix(o.podSubnet), {
      Type: 'RemoteSubnetRoute',
      Settings: {
        DestinationPrefix: fmtPrefix(o.podSubnet),
        IsolationId: HYBRID_OVERLAY_VNI,
        ProviderAddress: fmt(o.ip),
        DistributedRouterMacAddress: formatMac(mac),
      },
    });
  }
  const stale: JsonObject[] = [];
  for (const p of rec.Policies) {
    if (p.type !== 'RemoteSubnetRoute') continue;
    const s = p.settings as {
      destinationPrefix: string;
      isolationId: number;
      providerAddress: string;
      distributedRouterMacAddress: string;
    };
    const dest = fmtPrefix(parsePrefix4(s.destinationPrefix)!);
    if (want.delete(dest)) continue;
    stale.push({
      Type: 'RemoteSubnetRoute',
      Settings: {
        DestinationPrefix: s.destinationPrefix,
        IsolationId: s.isolationId,
        ProviderAddress: s.providerAddress,
        DistributedRouterMacAddress: s.distributedRouterMacAddress,
      },
    });
  }
  for (const [requestType, policies] of [
    ['Remove', stale],
    ['Add', [...want.values()]],
  ] as const)
    if (policies.length)
      must(
        n.host.api.HcnModifyNetwork(n.networkId, {
          ResourceType: 'Policy',
          RequestType: requestType,
          Settings: { Policies: policies },
        }),
      );
}

/** A Linux ovn-kubernetes node's br-ext flows toward each Windows hybrid overlay node (VNI 4097, its DR MAC). */
export function linuxHybridRoutes(
  n: AnyNode,
  nodes: readonly AnyNode[],
): { dest: Prefix4; via: number; vtepMac: number }[] {
  return nodes.flatMap((o) =>
    o !== n && o.kind === 'Windows' && isOvnKubernetes(o)
      ? [{ dest: o.podSubnet, via: o.ip, vtepMac: o.drMac }]
      : [],
  );
}
