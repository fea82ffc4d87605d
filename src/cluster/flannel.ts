/**
 * flannel's routes between the cluster's nodes (reference kubernetes-windows.md §1; flannel
 * `pkg/backend/hostgw/hostgw_windows.go`, `pkg/backend/vxlan/*_windows.go`): host-gw nodes get a
 * route to each other host-gw node's pod subnet on their segment (or, with ToR routing, the
 * underlay router gets one per node); Windows vxlan nodes a RemoteSubnetRoute per other VXLAN node
 * with its DR MAC or VTEP MAC; Linux nodes their routes or FDB entries. Only what is missing is
 * added, so a sync repairs a node; `checkOverlays` finds VXLAN settings nodes disagree on. The
 * cluster runs this synchronously on each change; the lease-driven agent, flanneld's own Windows
 * backends, is src/plugins/flanneld.
 */
import type { JsonObject } from '../core/json.js';
import { formatMac } from '../addr/mac.js';
import { must } from '../api/flat.js';
import { fmt, fmtPrefix, parsePrefix4 } from '../vswitch/v4.js';
import type { Fabric } from './underlay.js';
import type { AnyNode, ClusterFinding, WinNode } from './types.js';
import { isOvnKubernetes, linuxHybridRoutes, syncHybridOverlay } from './ovn-kubernetes.js';

/** flannel host-gw peers: l2bridge Windows nodes and host-gw Linux nodes. */
function isHostGw(n: AnyNode): boolean {
  return n.kind === 'Windows' ? n.spec.network === 'l2bridge' : n.spec.backend === 'host-gw';
}

/** The MAC a VXLAN peer's packets go to: a Windows overlay node's DR MAC or a Linux VTEP's MAC. */
function vtepMac(n: AnyNode): number | undefined {
  if (n.kind === 'Windows') return n.spec.network === 'overlay' ? n.drMac : undefined;
  return isOvnKubernetes(n) ? undefined : n.node.vxlan?.mac;
}

/**
 * flannel on every node (or on `only`): routes (host-gw) and RemoteSubnetRoutes / FDB (vxlan)
 * towards every other node; `tor`: host-gw subnets are routed by the underlay router instead.
 */
export function syncNetworks(nodes: readonly AnyNode[], fabric: Fabric, tor: boolean, only?: AnyNode): void {
  // flannel host-gw: a route per other host-gw node on the same segment (L2 adjacency)
  const hostGwPeers = (n: AnyNode) =>
    tor ? [] : nodes.filter((o) => o !== n && isHostGw(o) && o.segment === n.segment);
  for (const n of nodes) {
    if (only !== undefined && n !== only) continue;
    if (tor && isHostGw(n) && !fabric.hasRoute('router', n.podSubnet))
      fabric.addRoute('router', fmtPrefix(n.podSubnet), fmt(n.ip));
    if (n.kind === 'Linux') {
      n.node.routes = isOvnKubernetes(n)
        ? linuxHybridRoutes(n, nodes)
        : n.spec.backend === 'host-gw'
          ? hostGwPeers(n).map((o) => ({ dest: o.podSubnet, via: o.ip }))
          : nodes.flatMap((o) => {
              const mac = o === n ? undefined : vtepMac(o);
              return mac === undefined ? [] : [{ dest: o.podSubnet, via: o.ip, vtepMac: mac }];
            });
    } else if (n.spec.network === 'overlay') syncRemoteSubnets(n, nodes);
    else if (n.spec.network === 'ovn-kubernetes' && !n.ovnNative) syncHybridOverlay(n, nodes);
    // (native ovn-kubernetes nodes: ovn-controller's tunnels, kept by the cluster when nodes join)
    else if (n.spec.network === 'l2bridge') syncHostRoutes(n, hostGwPeers(n));
    // (Antrea nodes: their agents keep their peers' routes and tunnels)
  }
}

/** flannel host-gw on Windows: a host route to each peer's pod subnet via the peer. */
function syncHostRoutes(n: WinNode, peers: readonly AnyNode[]): void {
  for (const o of peers) {
    const have = n.host
      .routes()
      .some((r) => r.origin === 'User' && r.dest.addr === o.podSubnet.addr && r.dest.len === o.podSubnet.len);
    if (!have)
      n.host.addRoute({
        destinationPrefix: fmtPrefix(o.podSubnet),
        nextHop: fmt(o.ip),
        interfaceAlias: 'vEthernet (Ethernet)',
      });
  }
}

/**
 * flannel vxlan: a RemoteSubnetRoute per other VXLAN node (its DR MAC or VTEP MAC). A node whose
 * network is gone (a reboot removed a non-persistent one) is skipped: it gets no routes, and its
 * peers keep theirs to it (our choice, docs/model.md).
 */
function syncRemoteSubnets(n: WinNode, nodes: readonly AnyNode[]): void {
  const rec = n.host.hns.store.networks.get(n.networkId);
  if (!rec) return;
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

/**
 * Overlay settings that do not agree between nodes (VNI, UDP port, MTU, tunnel type, backends):
 * flannel's VXLAN settings, the hybrid overlay's UDP port between ovn-kubernetes' Windows nodes and
 * its Linux node, Antrea's tunnel type, native ovn-kubernetes' encapsulation, and plugins whose
 * nodes have no route between their pods (flannel overlay and host-gw; Antrea and flannel).
 */
export function checkOverlays(nodes: Iterable<AnyNode>): ClusterFinding[] {
  const out: ClusterFinding[] = [];
  const overlay: { name: string; kind: AnyNode['kind']; vni: number; port: number; mtu: number }[] = [];
  const hostgw: string[] = [];
  const hybrid: { name: string; port: number }[] = [];
  const antrea: { name: string; tunnel: string }[] = [];
  const native: { name: string; encap: string }[] = [];
  for (const n of nodes) {
    const { name, kind } = n;
    if (n.kind === 'Windows' && n.antrea) antrea.push({ name, tunnel: n.spec.tunnelType ?? 'geneve' });
    else if (n.kind === 'Windows' && n.ovnNative)
      native.push({ name, encap: n.spec.ovnKubernetes?.encapType ?? 'geneve' });
    // (the hybrid overlay's VNI is the constant 4097: only its port can differ)
    else if (isOvnKubernetes(n))
      hybrid.push({ name, port: n.kind === 'Windows' ? (n.spec.vxlanPort ?? 4789) : n.node.vxlan!.port });
    else if (isHostGw(n)) hostgw.push(name);
    else if (n.kind === 'Windows')
      overlay.push({ name, kind, vni: n.spec.vni ?? 4096, port: n.spec.vxlanPort ?? 4789, mtu: 1450 });
    else overlay.push({ name, kind, ...n.node.vxlan! });
  }
  /** A finding when the nodes' values of one setting are not all the same. */
  const differ = (
    values: readonly (readonly [name: string, value: string | number])[],
    setting: ClusterFinding['setting'],
    why: string,
    severity: ClusterFinding['severity'] = 'error',
  ) => {
    const by = new Map<string | number, string[]>();
    for (const [name, v] of values) by.set(v, [...(by.get(v) ?? []), name]);
    if (by.size > 1) {
      const desc = [...by].map(([v, ns]) => `${v} on ${ns.join(', ')}`).join('; ');
      out.push({
        severity,
        nodes: values.map(([name]) => name),
        setting,
        message: `${setting === 'tunnel' ? 'tunnel type' : setting} differs: ${desc} — ${why}`,
      });
    }
  };
  differ(
    overlay.map((o) => [o.name, o.vni]),
    'VNI',
    'VXLAN packets with another VNI are dropped at decapsulation (Windows needs 4096 or more)',
  );
  differ(
    overlay.map((o) => [o.name, o.port]),
    'UDP port',
    'a node drops VXLAN on a port it does not listen on (Windows flannel supports only 4789)',
  );
  differ(
    overlay.map((o) => [o.name, o.mtu]),
    'MTU',
    'pods on the larger-MTU side send packets the other side fragments or drops',
    'warning',
  );
  differ(
    hybrid.map((o) => [o.name, o.port]),
    'UDP port',
    "the hybrid overlay's VXLAN reaches a node only on the port its network listens on",
  );
  differ(
    antrea.map((o) => [o.name, o.tunnel]),
    'tunnel',
    "Antrea's tunnel type is one for the cluster: a node takes only its own tunnel's packets",
  );
  differ(
    native.map((o) => [o.name, o.encap]),
    'tunnel',
    'OVN encapsulates to a chassis in the type it registered: a node takes only its own',
  );
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
  const flannel = [...overlay.map((o) => o.name), ...hostgw];
  if (antrea.length && flannel.length)
    out.push({
      severity: 'error',
      nodes: [...antrea.map((o) => o.name), ...flannel],
      setting: 'backend',
      message: `Antrea nodes (${antrea.map((o) => o.name).join(', ')}) and flannel nodes (${flannel.join(', ')}) have no route between their pods`,
    });
  return out;
}
