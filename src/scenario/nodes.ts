/**
 * A scenario's nodes made real: with `cluster`, a Cluster (src/cluster) on its underlay, each
 * Windows node set up as its flanneld backend would (host-gw: L2Bridge `cbr0` with `cbr0_ep`;
 * vxlan: Overlay `flannel.<vni>` with kube-proxy's source VIP), each Linux node joining; without
 * `cluster`, one standalone host with the NICs and HNS networks the file lists. A Windows node with
 * `cni` gets its CRI runtime and CNI network (and flanneld's subnet.env for the flannel plugin).
 */
import { formatHResult } from '../core/errors.js';
import { isJsonObject } from '../core/json.js';
import { Cluster } from '../cluster/cluster.js';
import { createHost, type Host } from '../host/host.js';
import { PluginRegistry } from '../cni/registry.js';
import { createAzureVnet, execPlugin, REFERENCE_PLUGINS } from '../plugins/index.js';
import type { AzureVmSpec } from '../host/azure.js';
import type { NsgSpec } from '../host/nsg.js';
import { aksConflist } from '../cluster/azure.js';
import { HYBRID_OVERLAY_NETWORK, linuxDrIp, linuxDrMac } from '../cluster/ovn-kubernetes.js';
import { NATIVE_HNS_NETWORK } from '../cluster/ovn-kubernetes-native.js';
import { formatMac } from '../addr/mac.js';
import { cnsOptionsFromJson, startCns } from '../plugins/cns/index.js';
import { writeSubnetEnv } from '../plugins/flanneld/index.js';
import { ContainerdRuntime } from '../runtime/containerd.js';
import { DockershimRuntime } from '../runtime/dockershim.js';
import { cniNetwork } from '../runtime/network.js';
import { fmt, fmtPrefix } from '../vswitch/v4.js';
import { digest, shorten } from './narrate.js';
import { ScenarioSetupError } from './results.js';
import type { HostSpec } from './types.js';
import type { JsonPath } from './validate.js';
import { errorText, indentLines, nodeLines, type NodeState, type Runtime, type RunWorld } from './world.js';

/** The cluster and its underlay, then each host joining it. */
export async function setupCluster(w: RunWorld): Promise<void> {
  const c = w.doc.cluster!;
  const u = w.doc.underlay ?? {};
  try {
    w.cluster = new Cluster({
      seed: w.seed,
      ...(c.podCidr ? { podCidr: c.podCidr } : {}),
      ...(c.serviceCidr ? { serviceCidr: c.serviceCidr } : {}),
      ...(c.podCidrV6 ? { podCidrV6: c.podCidrV6 } : {}),
      ...(c.serviceCidrV6 ? { serviceCidrV6: c.serviceCidrV6 } : {}),
      ...(u.nodeSubnet ? { nodeSubnet: u.nodeSubnet } : {}),
      ...(c.domain ? { domain: c.domain } : {}),
      ...(c.dnsServiceIp ? { dnsServiceIp: c.dnsServiceIp } : {}),
      ...(c.dsr !== undefined ? { dsr: c.dsr } : {}),
      ...(w.doc.profile ? { profile: w.doc.profile } : {}),
      ...(u.routing ? { l2bridgeRouting: u.routing } : {}),
      ...(c.azure ? { azure: c.azure } : {}),
    });
  } catch (e) {
    throw w.setupError(['cluster'], e);
  }
  const cl = w.cluster;
  const az = cl.options.azure;
  const notes = az
    ? [
        az.mode === 'overlay'
          ? `An Azure VNet (address space ${(az.addressSpace ?? []).join(', ')}): subnet ${fmtPrefix(cl.nodeSubnet)}, Azure's gateway at its .1 (the way out to the internet); every node is an Azure VM with a /24 of the pod CIDR ${fmtPrefix(cl.podCidr)}, which its CNS hands out and the VNet routes to it (Azure CNI Overlay).`
          : `An Azure VNet (address space ${(az.addressSpace ?? []).join(', ')}): subnet ${fmtPrefix(cl.nodeSubnet)}, Azure's gateway at its .1 (the way out to the internet); every node is an Azure VM whose NIC holds ${az.maxPods ?? 30} secondary IPs for pods (AKS node-subnet mode), routed to it by the VNet.`,
        `Services ${fmtPrefix(cl.serviceCidr)}, DNS ${cl.dns.domain} at ${w.dnsIp()}; kube-proxy --network-name azure ${c.dsr ? 'with --enable-dsr' : 'without DSR'}.`,
      ]
    : [
        `Pod network ${c.podCidr ?? '10.244.0.0/16'}, services ${c.serviceCidr ?? '10.96.0.0/12'}, DNS ${cl.dns.domain} at ${w.dnsIp()}; kube-proxy ${c.dsr ? 'with --enable-dsr' : 'without DSR'}.`,
        `Underlay: segment nodes ${u.nodeSubnet ?? '10.0.0.0/24'} behind a router at its .1 (the way out to the internet).`,
      ];
  if (cl.podCidrV6)
    notes.push(
      `Dual-stack: IPv6 pods ${c.podCidrV6} (a /64 per node in the cluster's Kubernetes API)${c.serviceCidrV6 ? `, IPv6 services ${c.serviceCidrV6}` : ''}.`,
    );
  u.segments?.forEach((sg, i) => {
    w.clusterOp(['underlay', 'segments', i], () => cl.addSegment(sg.name, sg.prefix));
    notes.push(`Segment ${sg.name} ${sg.prefix}, joined by the router.`);
  });
  u.routes?.forEach((r, i) => {
    w.clusterOp(['underlay', 'routes', i], () => cl.addRouterRoute(r.destinationPrefix, r.nextHop));
    notes.push(`Router route ${r.destinationPrefix} via ${r.nextHop}.`);
  });
  u.externals?.forEach((x, i) => {
    w.clusterOp(['underlay', 'externals', i], () => cl.addExternalHost(x));
    notes.push(`Outside host ${x.name} at ${x.ip}${x.dnsName ? ` (DNS ${x.dnsName})` : ''}.`);
  });
  w.step('The cluster and its underlay', notes);
  for (const [i, h] of w.doc.hosts.entries()) await addClusterNode(w, h, ['hosts', i]);
}

async function addClusterNode(w: RunWorld, h: HostSpec, path: JsonPath): Promise<void> {
  const cl = w.cluster!;
  if (h.ovnKubernetes) return addOvnKubernetesNode(w, h, path);
  const f = h.flannel!;
  if ((h.os ?? 'windows') === 'linux') {
    const { lines } = w.clusterOp(path, () =>
      cl.addLinuxNode({
        name: h.name,
        backend: f.backend,
        ...(h.segment ? { segment: h.segment } : {}),
        ...(h.podSubnet ? { podSubnet: h.podSubnet } : {}),
        ...(f.vni !== undefined ? { vni: f.vni } : {}),
        ...(f.port !== undefined ? { vxlanPort: f.port } : {}),
        ...(f.mtu !== undefined ? { mtu: f.mtu } : {}),
      }),
    );
    w.nodes.set(h.name, { name: h.name, spec: h, os: 'linux' });
    const n = cl.nodeOf(h.name)!;
    w.step(`Node ${h.name} joins: Linux, flannel ${f.backend}`, [
      `Address ${fmt(n.ip)}, pod subnet ${fmtPrefix(n.podSubnet)}${f.backend === 'vxlan' ? `, VXLAN VNI ${f.vni ?? 1} port ${f.port ?? 8472}` : ''}.`,
      ...(lines.length ? ['The other nodes learn its pod subnet:', ...lines] : []),
    ]);
    return;
  }
  if (cl.options.azure) return addAzureNode(w, h, path);
  if (h.antrea) return addAntreaNode(w, h, path);
  const { value: host, byNode } = w.clusterOp(path, () =>
    cl.addWindowsNode({
      name: h.name,
      network: f.backend === 'host-gw' ? 'l2bridge' : 'overlay',
      ...(h.segment ? { segment: h.segment } : {}),
      ...(h.podSubnet ? { podSubnet: h.podSubnet } : {}),
      ...(h.profile ? { profile: h.profile } : {}),
      ...(f.vni !== undefined ? { vni: f.vni } : {}),
      ...(f.port !== undefined ? { vxlanPort: f.port } : {}),
      ...(h.macSpoofing !== undefined ? { macSpoofing: h.macSpoofing } : {}),
    }),
  );
  byNode.delete(h.name);
  const others = nodeLines(byNode);
  const notes = [
    `HNS profile ${host.profile.name}: ${host.profile.description}.`,
    ...adapterLines(host),
    `flanneld (${f.backend})${f.backend === 'vxlan' ? ' and kube-proxy (its source VIP)' : ''} set the node up:`,
    ...[...digest(host).values()].map((v) => `  ${shorten(v)}`),
    ...(others.length ? ['The other nodes learn its pod subnet:', ...others] : []),
  ];
  w.nodes.set(h.name, await nodeWithRuntime(w, h, host, path, notes));
  w.step(`Node ${h.name} joins: Windows, flannel ${f.backend}`, notes);
}

/**
 * An ovn-kubernetes node (docs/ovn-kubernetes.md): on Windows hybrid-overlay-node's networks and
 * WMCO's VIPEndpoint, pods programmed as win-overlay with WMCO's conflist would; on Linux an OVN
 * node whose br-ext reaches the Windows nodes by VXLAN VNI 4097. Every node learns its subnet.
 */
async function addOvnKubernetesNode(w: RunWorld, h: HostSpec, path: JsonPath): Promise<void> {
  const cl = w.cluster!;
  const port = h.ovnKubernetes?.vxlanPort;
  if ((h.os ?? 'windows') === 'linux') {
    const { lines } = w.clusterOp(path, () =>
      cl.addLinuxNode({
        name: h.name,
        backend: 'ovn-kubernetes',
        ...(h.segment ? { segment: h.segment } : {}),
        ...(h.podSubnet ? { podSubnet: h.podSubnet } : {}),
        ...(port !== undefined ? { vxlanPort: port } : {}),
      }),
    );
    w.nodes.set(h.name, { name: h.name, spec: h, os: 'linux' });
    const n = cl.nodeOf(h.name)!;
    const dr = fmt(linuxDrIp(n.podSubnet));
    w.step(`Node ${h.name} joins: Linux, ovn-kubernetes (hybrid overlay)`, [
      `Address ${fmt(n.ip)}, pod subnet ${fmtPrefix(n.podSubnet)} (pods from .4); br-ext's ext-vxlan: VXLAN VNI 4097 port ${port ?? 4789}, hybrid overlay DR IP ${dr}, DR MAC ${formatMac(linuxDrMac(n.podSubnet))}.`,
      ...(lines.length ? ['The other nodes learn its pod subnet:', ...lines] : []),
    ]);
    return;
  }
  if (h.ovnKubernetes?.mode === 'native') return addOvnNativeNode(w, h, path);
  const { value: host, byNode } = w.clusterOp(path, () =>
    cl.addWindowsNode({
      name: h.name,
      network: 'ovn-kubernetes',
      ...(h.segment ? { segment: h.segment } : {}),
      ...(h.podSubnet ? { podSubnet: h.podSubnet } : {}),
      ...(h.profile ? { profile: h.profile } : {}),
      ...(port !== undefined ? { vxlanPort: port } : {}),
      ...(h.macSpoofing !== undefined ? { macSpoofing: h.macSpoofing } : {}),
    }),
  );
  byNode.delete(h.name);
  const others = nodeLines(byNode);
  const n = cl.nodeOf(h.name)!;
  const notes = [
    `HNS profile ${host.profile.name}: ${host.profile.description}.`,
    ...adapterLines(host),
    `hybrid-overlay-node set the node up (the base network, then ${HYBRID_OVERLAY_NETWORK} on ${fmtPrefix(n.podSubnet)}, VNI 4097, a RemoteSubnetRoute per other node), WMCO kube-proxy's VIPEndpoint:`,
    ...[...digest(host).values()].map((v) => `  ${shorten(v)}`),
    `Pods: win-overlay with WMCO's conflist (${HYBRID_OVERLAY_NETWORK}; OutBoundNAT excepting the service CIDR, SDNRoute to it, ProviderAddress), programmed by the cluster (no runtime).`,
    ...(others.length ? ['The other nodes learn its pod subnet:', ...others] : []),
  ];
  w.nodes.set(h.name, { name: h.name, spec: h, os: 'windows', host, events: w.nodeEvents(h.name, host) });
  w.step(`Node ${h.name} joins: Windows, ovn-kubernetes hybrid overlay`, notes);
}

/**
 * A native (historical) ovn-kubernetes node (docs/ovn-kubernetes.md "Native (historical) node"):
 * the Ansible role's Transparent network and br-int, ovnkube's management port, a Geneve or STT
 * port to every other native node, and the stand-in for ovn-controller's flows.
 */
async function addOvnNativeNode(w: RunWorld, h: HostSpec, path: JsonPath): Promise<void> {
  const cl = w.cluster!;
  const encap = h.ovnKubernetes?.encapType ?? 'geneve';
  const { value: host, byNode } = w.clusterOp(path, () =>
    cl.addWindowsNode({
      name: h.name,
      network: 'ovn-kubernetes',
      ovnKubernetes: { mode: 'native', encapType: encap },
      ...(h.segment ? { segment: h.segment } : {}),
      ...(h.podSubnet ? { podSubnet: h.podSubnet } : {}),
      ...(h.profile ? { profile: h.profile } : {}),
      ...(h.macSpoofing !== undefined ? { macSpoofing: h.macSpoofing } : {}),
    }),
  );
  byNode.delete(h.name);
  const others = nodeLines(byNode);
  const n = cl.nodeOf(h.name)!;
  const ovn = n.kind === 'Windows' ? n.ovnNative : undefined;
  const ports = host.ovs.vsctl('--columns=name,ofport list interface').stdout.trim().split(/\n\n/);
  const notes = [
    `HNS profile ${host.profile.name}: ${host.profile.description}.`,
    ...adapterLines(host),
    `The Ansible role and ovnkube set the node up: the Transparent network ${NATIVE_HNS_NETWORK} over Ethernet (${fmtPrefix(n.podSubnet)}, gateway .1), the Open vSwitch Extension, br-int, system-id ${ovn?.systemId ?? ''}, ovn-encap-type ${encap}, the management port ${ovn?.managementPort ?? ''} (.2, routes to the cluster and service CIDRs via .1), and br-int's ports:`,
    ...ports.map((p) => `  ${p.replace(/\s+:\s+/g, ' ').replace(/\n/, ', ')}`),
    `Flows: hnsim's stand-in for ovn-controller, ${host.ovs.bridge('br-int')!.flowCount} flows in 7 tables (not OVN's logical flows); ${encap.toUpperCase()} tunnels to the other native nodes.`,
    ...[...digest(host).values()].map((v) => `  ${shorten(v)}`),
    ...(others.length ? ['The other nodes learn of it:', ...others] : []),
  ];
  w.nodes.set(h.name, { name: h.name, spec: h, os: 'windows', host, events: w.nodeEvents(h.name, host) });
  w.step(`Node ${h.name} joins: Windows, ovn-kubernetes native (${encap}, historical)`, notes);
}

/** A node of an Azure cluster: an Azure VM on the VNet subnet, its pods through azure-vnet. */
async function addAzureNode(w: RunWorld, h: HostSpec, path: JsonPath): Promise<void> {
  const cl = w.cluster!;
  const az = h.azure ?? {};
  const { value: host } = w.clusterOp(path, () =>
    cl.addWindowsNode({
      name: h.name,
      network: 'azure',
      ...(h.profile ? { profile: h.profile } : {}),
      ...(h.macSpoofing !== undefined ? { macSpoofing: h.macSpoofing } : {}),
      ...(typeof az['maxPods'] === 'number' ? { maxPods: az['maxPods'] } : {}),
      ...(az['nsg'] !== undefined ? { nsg: az['nsg'] as unknown as NsgSpec } : {}),
    }),
  );
  const nic = host.azure!.nics[0]!;
  const ips = nic.secondaryIps;
  const notes = [
    `HNS profile ${host.profile.name}: ${host.profile.description}.`,
    `Azure VM: NIC ${nic.adapter} ${nic.primaryIp} (MAC ${nic.mac}), ${ips.length ? `secondary IPs ${ips[0]}–${ips[ips.length - 1]} (${ips.length})` : `pod CIDR ${fmtPrefix(cl.nodeOf(h.name)!.podSubnet)} routed to it, its CNS handing it out`}, ${nic.nsgSpec ? `NSG ${nic.nsgSpec.name}` : 'no NSG'}.`,
    ...adapterLines(host),
    "AgentBaker's New-ExternalHnsNetwork set the node up:",
    ...[...digest(host).values()].map((v) => `  ${shorten(v)}`),
    'kube-proxy waits for the azure network (azure-vnet creates it at the first pod).',
  ];
  w.nodes.set(h.name, await nodeWithRuntime(w, h, host, path, notes));
  w.step(`Node ${h.name} joins: Windows, an Azure VM (azure-vnet)`, notes);
}

function adapterLines(host: Host): string[] {
  return host.adapters().map((a) => {
    const ip = a['IPv4Address']
      ? `${String(a['IPv4Address'])}/${String(a['PrefixLength'])}`
      : 'no IPv4 address';
    return `Adapter ${String(a['Name'])} (${String(a['Kind'] ?? '')}): ${ip}, MAC ${String(a['MacAddress'])}`;
  });
}

/** A cluster node under Antrea: its agent prepares it; the other Antrea nodes learn of it. */
async function addAntreaNode(w: RunWorld, h: HostSpec, path: JsonPath): Promise<void> {
  const cl = w.cluster!;
  const tunnel = h.antrea?.tunnelType ?? 'geneve';
  const { value: host, byNode } = w.clusterOp(path, () =>
    cl.addWindowsNode({
      name: h.name,
      network: 'antrea',
      tunnelType: tunnel,
      ...(h.segment ? { segment: h.segment } : {}),
      ...(h.podSubnet ? { podSubnet: h.podSubnet } : {}),
      ...(h.profile ? { profile: h.profile } : {}),
    }),
  );
  byNode.delete(h.name);
  const others = nodeLines(byNode);
  const n = cl.nodeOf(h.name)!;
  const ports = host.ovs.vsctl('--columns=name,ofport list interface').stdout.trim().split(/\n\n/);
  const notes = [
    `HNS profile ${host.profile.name}: ${host.profile.description}.`,
    `Antrea's agent set the node up: the Transparent network antrea-hnsnetwork over Ethernet (pod subnet ${fmtPrefix(n.podSubnet)}), the management vNIC renamed br-int, the Open vSwitch Extension enabled, ovs-vswitchd started, and the bridge br-int with its ports:`,
    ...ports.map((p) => `  ${p.replace(/\s+:\s+/g, ' ').replace(/\n/, ', ')}`),
    `The pipeline: ${host.ovs.bridge('br-int')!.flowCount} flows in 29 tables (docs/antrea.md); ${tunnel.toUpperCase()} tunnels to the other Antrea nodes.`,
    ...[...digest(host).values()].map((v) => `  ${shorten(v)}`),
    ...(others.length ? ['The other nodes learn of it:', ...others] : []),
  ];
  w.nodes.set(h.name, { name: h.name, spec: h, os: 'windows', host, events: w.nodeEvents(h.name, host) });
  w.step(`Node ${h.name} joins: Windows, Antrea (${tunnel})`, notes);
}

/** The node's events, runtime and CNI network (and flanneld's files the flannel plugin reads). */
async function nodeWithRuntime(
  w: RunWorld,
  h: HostSpec,
  host: Host,
  path: JsonPath,
  notes: string[],
): Promise<NodeState> {
  const events = w.nodeEvents(h.name, host);
  // a node of an Azure cluster: AgentBaker's Set-AzureCNIConfig conflist unless the file gives one
  if (!h.cni && w.cluster?.options.azure) h = { ...h, cni: {} };
  if (!h.cni) {
    if (w.cluster)
      notes.push('No cni: the cluster programs pod endpoints straight into HNS (no runtime, no CNI).');
    return { name: h.name, spec: h, os: 'windows', host, events };
  }
  const conflist = h.cni.conflist ?? aksConflist(w.cluster!, h.name);
  let network;
  try {
    const release = h.cni.azureVnetRelease;
    const plugins =
      release === undefined
        ? REFERENCE_PLUGINS
        : REFERENCE_PLUGINS.map((p) => (p.type === 'azure-vnet' ? createAzureVnet({ release }) : p));
    network = cniNetwork(host, conflist, {
      registry: events.watchPlugins(new PluginRegistry(), plugins),
    });
  } catch (e) {
    throw w.setupError([...path, 'cni', 'conflist'], e);
  }
  const seed = w.seed * 1000 + w.nodes.size + 1;
  const runtime: Runtime =
    h.runtime === 'dockershim'
      ? new DockershimRuntime(host, { network, seed })
      : new ContainerdRuntime(host, { networks: [network], seed });
  const plugins = (Array.isArray(conflist['plugins']) ? conflist['plugins'] : [conflist])
    .filter(isJsonObject)
    .map((p) => String(p['type']));
  notes.push(
    `${h.runtime ?? 'containerd'} runs pods; CNI network ${String(conflist['name'])}: ${plugins.join(' → ')}${h.cni.conflist ? '' : " (AgentBaker's Set-AzureCNIConfig conflist for this cluster)"}.`,
  );
  if (w.cluster && !w.cluster.options.azure) {
    const subnet = nodeSubnet(host);
    const overlay = h.flannel?.backend === 'vxlan';
    if (subnet) {
      const env = writeSubnetEnv(host.files, {
        network: w.cluster.options.podCidr ?? '10.244.0.0/16',
        subnet,
        mtu: overlay ? 1450 : 1500,
        ipMasq: h.flannel?.ipMasq ?? false,
      });
      notes.push(`flanneld writes /run/flannel/subnet.env: ${env.trim().split('\n').join(' ')}`);
    }
    if (overlay && subnet) notes.push(await reserveSourceVip(host, String(conflist['name']), subnet));
  }
  return { name: h.name, spec: h, os: 'windows', host, events, runtime };
}

function nodeSubnet(host: Host): string | undefined {
  for (const n of host.hns.store.networks.values())
    for (const i of n.Ipams) for (const s of i.Subnets) return s.IpAddressPrefix;
  return undefined;
}

/**
 * kube-proxy's source VIP comes from host-local on the pod subnet, as microsoft/SDN's
 * Get-SourceVip runs it, so the pods' host-local does not hand it out again.
 */
async function reserveSourceVip(host: Host, name: string, subnet: string): Promise<string> {
  const stdin = JSON.stringify({
    cniVersion: '0.2.0',
    name,
    ipam: { type: 'host-local', ranges: [[{ subnet }]], dataDir: '/var/lib/cni/networks' },
  });
  const env = {
    CNI_COMMAND: 'ADD',
    CNI_CONTAINERID: 'dummy',
    CNI_NETNS: 'dummy',
    CNI_IFNAME: 'dummy',
    CNI_PATH: 'C:\\k\\cni',
  };
  const out = await execPlugin(host, 'host-local', { env, stdin });
  const m = /"(?:ip|address)"\s*:\s*"([0-9.]+)/.exec(out.stdout);
  return `kube-proxy's source VIP: host-local reserves ${m?.[1] ?? '(none)'} on ${subnet}, as microsoft/SDN's Get-SourceVip does (the sourcevip endpoint's address).`;
}

/** One host without a cluster, with the NICs and HNS networks the file lists. */
export async function setupStandalone(w: RunWorld): Promise<void> {
  const h = w.doc.hosts[0]!;
  let host: Host;
  try {
    host = createHost({
      seed: w.seed,
      name: h.name,
      ...((h.profile ?? w.doc.profile) ? { profile: h.profile ?? w.doc.profile } : {}),
      ...(h.nics ? { adapters: h.nics } : {}),
      ...(h.azure ? { azure: h.azure as unknown as AzureVmSpec } : {}),
    });
  } catch (e) {
    throw w.setupError(['hosts', 0], e);
  }
  const events = w.nodeEvents(h.name, host);
  const notes = [`HNS profile ${host.profile.name}: ${host.profile.description}.`, ...adapterLines(host)];
  if (h.cns) {
    try {
      startCns(host, cnsOptionsFromJson(h.cns, 'cns'));
    } catch (e) {
      throw w.setupError(['hosts', 0, 'cns'], e);
    }
    const ncs =
      (h.cns['ncs'] as { id?: string; primaryIp?: string; secondaryIps?: unknown[] }[] | undefined) ?? [];
    const mt = (h.cns['multitenancy'] as unknown[] | undefined) ?? [];
    notes.push(
      `Azure CNS answers on localhost:10090: ${
        [
          ...ncs.map((n) => `NC ${n.id} ${n.primaryIp} (${n.secondaryIps?.length ?? 0} pod IPs)`),
          ...(mt.length ? [`${mt.length} multitenant NC(s)`] : []),
        ].join(', ') || 'no network containers'
      }.`,
    );
  }
  for (const [i, doc] of (h.networks ?? []).entries()) {
    const cap = events.captureSync(() => host.api.HcnCreateNetwork(null, doc));
    const r = cap.value;
    if (!r || !r.ok) {
      const why =
        r && !r.ok ? `${r.name} (${formatHResult(r.hr >>> 0)}): ${r.message}` : errorText(cap.error);
      throw new ScenarioSetupError(
        w.s.file,
        w.where(['hosts', 0, 'networks', i]),
        `HcnCreateNetwork failed: ${why}`,
      );
    }
    notes.push(...indentLines(cap.lines));
  }
  if (h.networks?.length) notes.push('Adapters now:', ...adapterLines(host).map((l) => `  ${l}`));
  const state = await nodeWithRuntime(w, h, host, ['hosts', 0], notes);
  w.nodes.set(h.name, state);
  w.step(`Host ${h.name}`, notes);
}
