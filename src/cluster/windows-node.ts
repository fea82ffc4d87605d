/**
 * A Windows node as its node software sets it up (reference kubernetes-windows.md §1, cni-windows.md
 * W1): flannel host-gw + win-bridge (`l2bridge`: the L2Bridge network `cbr0`, the bridge endpoint
 * `cbr0_ep` at .2 in the host compartment) or flannel vxlan + win-overlay (`overlay`: the Overlay
 * network `flannel.<VNI>` with its HostRoute policy, and kube-proxy's source-VIP endpoint), and
 * each pod's endpoint and namespace as win-bridge / win-overlay and containerd make them. Every
 * call goes through the node's flat API, as the real clients' do.
 */
import { hnsError } from '../core/errors.js';
import type { JsonObject } from '../core/json.js';
import { formatMac, parseMac } from '../addr/mac.js';
import { must } from '../api/flat.js';
import { conjureMac } from '../cni/gomac.js';
import type { Host } from '../host/host.js';
import { fmt, fmtPrefix, type Prefix4 } from '../vswitch/v4.js';
import type { Cluster } from './cluster.js';
import type { PodSpec, WindowsNodeSpec, WinNode } from './types.js';
import {
  HYBRID_OVERLAY_NETWORK,
  HYBRID_OVERLAY_VXLAN_PORT,
  hybridOverlayPodPolicies,
  setUpHybridOverlayNode,
} from './ovn-kubernetes.js';

const V2 = { Major: 2, Minor: 0 };

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

function attachToHost(host: Host, endpointId: string): void {
  // flannel's HostAttach(1): the endpoint joins the host's default compartment
  const ns = [...host.hns.store.namespaces.values()].find((n) => n.NamespaceId === 1);
  if (!ns) throw hnsError('ERROR_NOT_FOUND', 'the host has no HostDefault namespace');
  namespaceEndpoint(host, ns.ID, endpointId, 'Add');
}

/** What the node's set-up made: its pod network, the network's DR MAC and kube-proxy's source VIP. */
export interface WindowsNodeNetwork {
  readonly networkId: string;
  /** The network's DR MAC (overlay), else 0. */
  readonly drMac: number;
  /** kube-proxy's source VIP (overlay) or the node IP. */
  readonly sourceVip: number;
}

/** Set a fresh node up as flannel (host-gw or vxlan) and its CNI plugin would (node address `ip`, NIC MAC `mac`). */
export function setUpWindowsNode(
  host: Host,
  spec: WindowsNodeSpec,
  podSubnet: Prefix4,
  ip: number,
  mac: number,
): WindowsNodeNetwork {
  if (spec.network === 'ovn-kubernetes')
    return setUpHybridOverlayNode(host, podSubnet, spec.vxlanPort ?? HYBRID_OVERLAY_VXLAN_PORT, attachToHost);
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
    attachToHost(host, String(ep['ID']));
  } else {
    const vni = spec.vni ?? 4096;
    const port = spec.vxlanPort ?? 4789;
    const policies: JsonObject[] = [{ Type: 'NetAdapterName', Settings: { NetworkAdapterName: 'Ethernet' } }];
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
  return { networkId, drMac, sourceVip };
}

/** What the cluster made for a pod: its endpoint and the namespace that holds it. */
export interface PodEndpoint {
  readonly endpointId: string;
  /** The pod's HCN namespace (containerd's `netns.NewNetNS()`: a namespace per sandbox). */
  readonly namespaceId: string;
}

/** The endpoint win-bridge / win-overlay would create for a pod at `ip`, in a fresh namespace (containerd). */
export function createPodEndpoint(c: Cluster, node: WinNode, spec: PodSpec, ip: number): PodEndpoint {
  const host = node.host;
  const dns = c.podDns(spec.namespace);
  if (node.spec.network === 'ovn-kubernetes') return hybridOverlayPodEndpoint(c, node, spec, ip);
  const overlay = node.spec.network === 'overlay';
  const svc = fmtPrefix(c.serviceCidr);
  const policies: JsonObject[] = [
    // flannel's Windows CNI configs: the cluster and service CIDRs, and on l2bridge the management
    // subnet (Microsoft's troubleshooting list); overlay pods reach nodes through SNAT
    {
      Type: 'OutBoundNAT',
      Settings: {
        Exceptions: overlay
          ? [fmtPrefix(c.podCidr), svc]
          : [fmtPrefix(c.podCidr), svc, fmtPrefix(c.nodeSubnet)],
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
  if (c.options.loopbackDsr ?? c.dsr)
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
  if (overlay) doc['MacAddress'] = conjureMac('0E-2A', ip);
  const ep = must(host.api.HcnCreateEndpoint(node.networkId, null, doc));
  const id = String(ep['ID']);
  const ns = must(host.api.HcnCreateNamespace(null, { SchemaVersion: V2 }));
  const namespaceId = String(ns['ID']);
  namespaceEndpoint(host, namespaceId, id, 'Add');
  return { endpointId: id, namespaceId };
}

/**
 * win-overlay (apiVersion 2) with WMCO's conflist on a hybrid overlay node: the conflist's three
 * policies (src/cluster/ovn-kubernetes.ts), MAC `0E-2A-<ip>`, the network's gateway .1, the name
 * `<sandbox>_OVNKubernetesHybridOverlayNetwork`; no loopback DSR unless the cluster asks for it
 * (WMCO's conflist sets none).
 */
function hybridOverlayPodEndpoint(c: Cluster, node: WinNode, spec: PodSpec, ip: number): PodEndpoint {
  const host = node.host;
  const dns = c.podDns(spec.namespace);
  const policies = hybridOverlayPodPolicies(fmtPrefix(c.serviceCidr), fmt(node.ip));
  if (c.options.loopbackDsr) policies.push({ Type: 'OutBoundNAT', Settings: { Destinations: [fmt(ip)] } });
  policies.push(...(spec.policies ?? []));
  const ep = must(
    host.api.HcnCreateEndpoint(node.networkId, null, {
      Name: `${spec.name}_${HYBRID_OVERLAY_NETWORK}`,
      HostComputeNetwork: node.networkId,
      Policies: policies,
      IpConfigurations: [{ IpAddress: fmt(ip), PrefixLength: node.podSubnet.len }],
      Dns: { Search: [...dns.search], ServerList: [...dns.servers] },
      Routes: [{ NextHop: fmt(node.podSubnet.addr + 1), DestinationPrefix: '0.0.0.0/0' }],
      MacAddress: conjureMac('0E-2A', ip),
      SchemaVersion: V2,
    }),
  );
  const id = String(ep['ID']);
  const ns = must(host.api.HcnCreateNamespace(null, { SchemaVersion: V2 }));
  const namespaceId = String(ns['ID']);
  namespaceEndpoint(host, namespaceId, id, 'Add');
  return { endpointId: id, namespaceId };
}

/**
 * A pod's endpoint goes, then its namespace: out of the namespace and deleted (the CNI plugin's
 * DEL at StopPodSandbox), then the namespace deleted (RemovePodSandbox: containerd's
 * `netns.Remove()`, which takes a namespace already gone as done — reference kubernetes-windows.md
 * §3.1 step 2).
 */
export function deletePodEndpoint(node: WinNode, pod: PodEndpoint): void {
  const { host } = node;
  const ep = host.hns.store.endpoints.get(pod.endpointId);
  if (ep?.HostComputeNamespace) namespaceEndpoint(host, ep.HostComputeNamespace, ep.ID, 'Remove');
  must(host.api.HcnDeleteEndpoint(pod.endpointId));
  const gone = host.api.HcnDeleteNamespace(pod.namespaceId);
  if (!gone.ok && gone.name !== 'ERROR_NOT_FOUND') must(gone);
}

/** The endpoint a runtime's sandbox got: the one in its namespace, else one named after the sandbox. */
export function sandboxEndpoint(
  host: Host,
  netns: string | undefined,
  sandboxId: string,
): string | undefined {
  const s = host.hns.store;
  if (netns) {
    const ns =
      s.namespaces.get(netns) ??
      [...s.namespaces.values()].find((n) => n.ID.toLowerCase() === netns.toLowerCase());
    const ep = ns?.Resources.find((r) => r.Type === 'Endpoint');
    if (ep) return s.endpoints.get(ep.ID)?.ID ?? ep.ID;
  }
  for (const e of s.endpoints.values()) if (e.Name.startsWith(sandboxId)) return e.ID;
  return undefined;
}
