/**
 * An Azure cluster (issue 16; reference azure-cni.md §4.2, §6): AKS in node-subnet mode. Its nodes
 * are Azure VMs on one VNet subnet (src/cluster/underlay.ts `attachVm`: the VNet routes each NIC's
 * secondary IPs to its VM, the VM's host applies the NIC's NSG); each node is provisioned as
 * AgentBaker provisions a Windows node — the `ext` L2Bridge network binding the NIC (the node IP
 * moves to `vEthernet (Ethernet)`) and azure-vnet's conflist (`Set-AzureCNIConfig`); pods come
 * from a CRI runtime running azure-vnet (which creates the `azure` network at the first ADD) and
 * the cluster adopts their endpoints; kube-proxy (`--network-name azure`) finds that network by
 * name when it exists, and programs nothing until then.
 *
 *   const c = new Cluster({ azure: {} });
 *   const host = c.addWindowsNode({ name: 'akswin1', network: 'azure' });
 *   const rt = new ContainerdRuntime(host, { networks: [cniNetwork(host, aksConflist(c))] });
 *   await startAzurePod(c, rt, { namespace: 'default', name: 'web', node: 'akswin1' });
 *
 * (`aksDemoCluster` in src/testing/aks.ts builds a two-node one with its runtimes.)
 */
import { hnsError } from '../core/errors.js';
import type { JsonObject } from '../core/json.js';
import { must } from '../api/flat.js';
import { WIRESERVER_IP } from '../host/azure.js';
import { formatPrefix } from '../addr/ip.js';
import type { Host } from '../host/host.js';
import { resolveProfile } from '../hns/versions.js';
import { contains, fmt, fmtPrefix, parsePrefix4 } from '../vswitch/v4.js';
import type { Cluster } from './cluster.js';
import type { ClusterOptions, PodInfo, PodSpec } from './types.js';
import { sandboxEndpoint } from './windows-node.js';

/** The VNet address space and subnet AKS creates by default, and its service CIDR and DNS IP. */
const AKS_ADDRESS_SPACE = '10.224.0.0/12';
const AKS_NODE_SUBNET = '10.224.0.0/16';
const AKS_SERVICE_CIDR = '10.0.0.0/16';

/** The HNS network azure-vnet creates (the conflist's name) and kube-proxy's `--network-name`. */
export const AZURE_NETWORK = 'azure';

/** An Azure cluster's options with AKS's defaults filled in. */
export function azureClusterDefaults(o: ClusterOptions): ClusterOptions {
  const serviceCidr = o.serviceCidr ?? AKS_SERVICE_CIDR;
  const mode = o.azure?.mode;
  if (mode !== undefined && mode !== 'node-subnet' && mode !== 'overlay')
    throw hnsError('E_INVALIDARG', `azure.mode must be node-subnet or overlay, not ${String(mode)}`);
  const nodeSubnet = o.nodeSubnet ?? AKS_NODE_SUBNET;
  const addressSpace = o.azure?.addressSpace ?? [AKS_ADDRESS_SPACE];
  const space = addressSpace.map((a) => {
    const p = parsePrefix4(a);
    if (!p) throw hnsError('E_INVALIDARG', `azure.addressSpace "${a}" is not an IPv4 prefix`);
    return p;
  });
  // Azure refuses a subnet outside its VNet's address space
  const sub = parsePrefix4(nodeSubnet);
  if (sub && !space.some((p) => p.len <= sub.len && contains(p, sub.addr)))
    throw hnsError(
      'E_INVALIDARG',
      `the VNet subnet ${nodeSubnet} is not inside azure.addressSpace ${addressSpace.join(', ')}`,
    );
  // AKS's Overlay dual-stack conflist takes CNS's dualStackOverlay IPAM, not ipv6nat (not modelled)
  if (mode === 'overlay' && o.podCidrV6 !== undefined)
    throw hnsError(
      'E_INVALIDARG',
      'podCidrV6 with azure.mode overlay: AKS Overlay dual-stack (CNS dualStackOverlay) is not modelled; the legacy ipv6nat dual-stack is node-subnet mode',
    );
  const pods = parsePrefix4(o.podCidr ?? '10.244.0.0/16');
  if (mode === 'overlay' && pods && sub && (contains(pods, sub.addr) || contains(sub, pods.addr)))
    throw hnsError('E_INVALIDARG', `the pod CIDR ${fmtPrefix(pods)} overlaps the VNet subnet ${nodeSubnet}`);
  return {
    ...o,
    nodeSubnet,
    serviceCidr,
    ...(o.serviceCidr === undefined && o.dnsServiceIp === undefined ? { dnsServiceIp: '10.0.0.10' } : {}),
    azure: { ...o.azure, addressSpace },
  };
}

/**
 * A new node as AgentBaker leaves it (`azurecnifunc.ps1` `New-ExternalHnsNetwork`): the L2Bridge
 * network `ext` on `192.168.255.0/30` bound to the NIC, so the node IP sits on the host vNIC
 * before any pod exists.
 */
export function setUpAzureNode(host: Host): void {
  must(
    host.api.HcnCreateNetwork(null, {
      Name: 'ext',
      Type: 'L2Bridge',
      Ipams: [
        {
          Type: 'Static',
          Subnets: [
            {
              IpAddressPrefix: '192.168.255.0/30',
              Routes: [{ NextHop: '192.168.255.1', DestinationPrefix: '0.0.0.0/0' }],
            },
          ],
        },
      ],
      Policies: [{ Type: 'NetAdapterName', Settings: { NetworkAdapterName: 'Ethernet' } }],
      SchemaVersion: { Major: 2, Minor: 0 },
    }),
  );
}

/** The ID of the node's `azure` network, '' while azure-vnet has not made it (kube-proxy's getNetworkByName). */
export function azureNetworkId(host: Host): string {
  for (const n of host.hns.store.networks.values()) if (n.Name === AZURE_NETWORK) return n.ID;
  return '';
}

/** AKS's default IPv6 service CIDR of a dual-stack cluster. */
const AKS_SERVICE_CIDR_V6 = 'fd12:3456:789a:1::/108';

/** `Get-WindowsVersion` answers "1809" for build 17763 (AgentBaker `windowscsehelper.ps1`). */
const WS2019_BUILD = 17763;

/**
 * `GetBroadestRangesForEachAddress` (azurecnifunc.ps1, the WS2019 path): each entry's first
 * `<digits and dots>/<digits>` match, by address the shortest prefix length; an entry without such a
 * match — an IPv6 CIDR whose address ends in `::`, as every /64-aligned one written canonically
 * does — is dropped. (The script collects them in a hashtable, whose order it does not fix; ours
 * is first-seen: docs/model.md "Azure clusters".)
 */
function broadestRanges(values: readonly string[]): string[] {
  const shortest = new Map<string, number>();
  for (const v of values) {
    const m = /([0-9.]+)\/([0-9]+)/.exec(v);
    if (!m) continue;
    const len = Number(m[2]);
    const have = shortest.get(m[1]!);
    if (have === undefined || len < have) shortest.set(m[1]!, len);
  }
  return [...shortest].map(([ip, len]) => `${ip}/${len}`);
}

/**
 * `Set-AzureCNIConfig`'s OutBoundNAT exceptions and dual-stack part (AgentBaker
 * `staging/cse/windows/azurecnifunc.ps1` @ 031ff735; `$IsDualStackEnabled` with kube-proxy
 * without WinDSR, the cluster in node-subnet mode — `azureClusterDefaults` refuses Overlay with
 * `podCidrV6`). The first OutBoundNAT excepts `v4` (and, dual-stack, the IPv6 cluster CIDR is
 * added to the candidates): on WS2019 ("1809") the list goes through `GetBroadestRangesForEachAddress`,
 * which drops the IPv6 CIDR, and no IPv6 OutBoundNAT is added; elsewhere the IPv4 entries stay and
 * the IPv6 ones go into a second OutBoundNAT appended after the ROUTE. Dual-stack on every OS: a
 * ROUTE for the IPv6 service CIDR appended after that, and `ipv6Mode: ipv6nat`.
 */
function exceptionArgs(
  c: Cluster,
  v4: readonly string[],
  ws2019: boolean,
  policy: (value: JsonObject) => JsonObject,
): { first: string[]; v6: JsonObject[] } {
  const v6 = c.podCidrV6 ? formatPrefix(c.podCidrV6) : undefined;
  const candidates = v6 ? [...v4, v6] : [...v4];
  if (ws2019) {
    const first = broadestRanges(candidates);
    return {
      first,
      v6: v6 ? [policy({ Type: 'ROUTE', DestinationPrefix: serviceV6(c), NeedEncap: true })] : [],
    };
  }
  if (!v6) return { first: candidates, v6: [] };
  // azurecnifunc.ps1: an entry with two or more ':' is IPv6
  const isV6 = (x: string) => x.split(':').length >= 3;
  return {
    first: candidates.filter((x) => !isV6(x)),
    v6: [
      policy({ Type: 'OutBoundNAT', ExceptionList: candidates.filter(isV6) }),
      policy({ Type: 'ROUTE', DestinationPrefix: serviceV6(c), NeedEncap: true }),
    ],
  };
}

/** The second entry of the dual-stack `KubeServiceCIDR`. */
const serviceV6 = (c: Cluster): string => c.options.serviceCidrV6 ?? AKS_SERVICE_CIDR_V6;

/**
 * The conflist AgentBaker's `Set-AzureCNIConfig` writes for this cluster's `node` (its Windows version
 * decides the dual-stack exceptions, `exceptionArgs`; no node: the cluster's profile; kube-proxy without
 * WinDSR; its expected outputs `AzureCNI.Expect.DisableWinDSR.conflist` and, for Overlay,
 * `AzureCNI.Expect.Overlay.conflist` — `executionMode: v4swift`, `ipam: azure-cns` `v4overlay`,
 * only the pod CIDR excepted from OutBoundNAT):
 * azure-vnet in `bridge` mode with azure-vnet-ipam, kube-dns then the wireserver as name servers,
 * OutBoundNAT excepting the VNet's address space, a ROUTE for the service CIDR, the two ACLs that
 * keep pods off the wireserver's TCP 80 and 32526, and allow-all at 65500.
 */
export function aksConflist(c: Cluster, node?: string): JsonObject {
  const vnet = c.options.azure?.addressSpace ?? [AKS_ADDRESS_SPACE];
  const policy = (value: JsonObject): JsonObject => ({ Name: 'EndpointPolicy', Value: value });
  const wireserverBlock = (port: string): JsonObject =>
    policy({
      Type: 'ACL',
      Protocols: '6',
      Action: 'Block',
      Direction: 'Out',
      RemoteAddresses: `${WIRESERVER_IP}/32`,
      RemotePorts: port,
      Priority: 200,
      RuleType: 'Switch',
    });
  const overlay = c.options.azure?.mode === 'overlay';
  // the node's OS (Get-WindowsVersion), else the cluster's nodes' profile
  const profile = node !== undefined ? c.host(node).profile : resolveProfile(c.options.profile ?? 'ws2022');
  const nat = exceptionArgs(
    c,
    // the cluster CIDR, and the VNet's unless Overlay (whose pods reach the VNet SNATed)
    overlay ? [fmtPrefix(c.podCidr)] : [...vnet],
    profile?.build === WS2019_BUILD,
    policy,
  );
  return {
    cniVersion: '0.3.0',
    name: AZURE_NETWORK,
    adapterName: '',
    plugins: [
      {
        type: 'azure-vnet',
        mode: 'bridge',
        bridge: 'azure0',
        // Overlay (AzureCNI.Expect.Overlay.conflist): CNS in v4overlay mode
        ...(overlay ? { executionMode: 'v4swift' } : {}),
        capabilities: { portMappings: true, dns: true },
        ipam: overlay ? { type: 'azure-cns', mode: 'v4overlay' } : { type: 'azure-vnet-ipam' },
        ...(c.podCidrV6 ? { ipv6Mode: 'ipv6nat' } : {}),
        dns: { Nameservers: [fmt(c.dnsServiceIp), WIRESERVER_IP], Search: [`svc.${c.dns.domain}`] },
        AdditionalArgs: [
          policy({ Type: 'OutBoundNAT', ExceptionList: nat.first }),
          policy({ Type: 'ROUTE', DestinationPrefix: fmtPrefix(c.serviceCidr), NeedEncap: true }),
          ...nat.v6,
          wireserverBlock('80'),
          wireserverBlock('32526'),
          policy({ Type: 'ACL', Action: 'Allow', Direction: 'In', Priority: 65500 }),
          policy({ Type: 'ACL', Action: 'Allow', Direction: 'Out', Priority: 65500 }),
        ],
      },
    ],
  };
}

/**
 * What `startAzurePod` needs of a CRI runtime (src/runtime's `ContainerdRuntime` and
 * `DockershimRuntime` are ones): RunPodSandbox with kubelet's config, and the sandbox's status.
 */
export interface PodSandboxRunner {
  runPodSandbox(config: {
    readonly metadata: {
      readonly name: string;
      readonly namespace: string;
      readonly uid: string;
      readonly attempt?: number;
    };
    readonly hostname?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly dnsConfig?: {
      readonly servers?: readonly string[];
      readonly searches?: readonly string[];
      readonly options?: readonly string[];
    };
  }): Promise<string>;
  podSandboxStatus(id: string): Promise<{ readonly netns: string }>;
  stopPodSandbox(id: string): Promise<void>;
  removePodSandbox(id: string): Promise<void>;
}

/**
 * Start a pod on an Azure node as kubelet does — RunPodSandbox through `runtime` (its CNI network
 * azure-vnet's), with the cluster's DNS config — and adopt the endpoint azure-vnet made. A failed
 * sandbox is the runtime's error, and the cluster does not learn of the pod.
 */
export async function startAzurePod(
  c: Cluster,
  runtime: PodSandboxRunner,
  spec: Omit<PodSpec, 'endpointId' | 'policies'>,
): Promise<PodInfo & { readonly sandboxId: string }> {
  const node = c.nodeOf(spec.node);
  if (node?.kind !== 'Windows' || node.spec.network !== 'azure')
    throw hnsError('ERROR_NOT_FOUND', `no Azure node "${spec.node}"`);
  const key = `${spec.namespace}/${spec.name}`;
  if (c.pod(key)) throw hnsError('E_INVALIDARG', `pod "${key}" is unnamed or exists`);
  const dns = c.podDns(spec.namespace);
  const sandboxId = await runtime.runPodSandbox({
    metadata: { name: spec.name, namespace: spec.namespace, uid: key, attempt: 0 },
    hostname: spec.hostname ?? spec.name,
    ...(spec.labels ? { labels: spec.labels } : {}),
    dnsConfig: { servers: [...dns.servers], searches: [...dns.search], options: ['ndots:5'] },
  });
  try {
    const status = await runtime.podSandboxStatus(sandboxId);
    const endpointId = sandboxEndpoint(node.host, status.netns || undefined, sandboxId);
    if (!endpointId)
      throw hnsError(
        'ERROR_NOT_FOUND',
        `sandbox ${sandboxId} has no HNS endpoint on ${spec.node} (is the runtime ${spec.node}'s?)`,
      );
    return { ...c.addPod({ ...spec, endpointId }), sandboxId };
  } catch (e) {
    // the cluster does not take the pod: its sandbox goes again (CNI DEL), as kubelet would
    await runtime.stopPodSandbox(sandboxId);
    await runtime.removePodSandbox(sandboxId);
    throw e;
  }
}
