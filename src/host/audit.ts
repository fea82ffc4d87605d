/**
 * The leak audit of one node (`host.audit()`): what a CNI plugin or a runtime left behind, read from
 * the node's HNS state, its compute systems and its disk, as a list of findings. The kinds follow
 * the leaks of reference cni-windows.md §7 (P3, P4, P5, P7, P15) and kubernetes-windows.md §4
 * (#2, #3, #18): an endpoint nobody uses, an empty namespace, an IP reservation with no endpoint,
 * a remote endpoint no load balancer names, a libcni cache entry or a flannel config for a pod that
 * is gone, a load balancer, route or policy list still naming a deleted endpoint (kubernetes#112836),
 * and any inconsistency of the HNS store itself. Read-only.
 *
 *   expect(host.audit()).toEqual([]);   // after every pod is deleted
 */
import { formatIp } from '../addr/ip.js';
import { parseMac } from '../addr/mac.js';
import { normalizePath } from '../core/files.js';
import type { FileStore } from '../core/files.js';
import { isJsonObject } from '../core/json.js';
import { auditStore } from '../hns/audit.js';
import { policyListEndpoints } from '../hns/v1/policylist.js';
import type { EndpointRec } from '../hns/model.js';
import type { ProviderAddressSettings } from '../hns/policy/shared/provider-address.js';
import type { HnsStore } from '../hns/store.js';
import type { HcsService } from '../hcs/service.js';

export type AuditKind =
  | 'endpoint-unused'
  | 'namespace-without-container'
  | 'ip-reservation-orphaned'
  | 'remote-endpoint-unreferenced'
  | 'cni-cache-stale'
  | 'flannel-config-stale'
  | 'endpoint-reference-stale'
  | 'store-inconsistent';

export interface AuditFinding {
  readonly kind: AuditKind;
  /** The object: an endpoint or namespace ID, or a file path. */
  readonly object: string;
  /** One readable line: what it is and why it counts. */
  readonly detail: string;
}

export interface AuditOptions {
  /** host-local's data directories (default `/var/lib/cni/networks`). */
  readonly hostLocalDirs?: readonly string[];
  /** libcni's cache directories (default `/var/lib/cni`). */
  readonly cacheDirs?: readonly string[];
  /** flannel's data directories (default `/var/lib/cni/flannel`). */
  readonly flannelDirs?: readonly string[];
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * An endpoint on an Overlay network that points at this very node: the MAC of the host's interface
 * on the network's vSwitch (compared as a MAC: kube-proxy writes Go's `00:15:5d:…`, HNS and
 * PowerShell `00-15-5D-…`) and a ProviderAddress policy holding the node's address. kube-proxy
 * makes two such: its source-VIP endpoint (local) and, per service, the service-VIP endpoint
 * (remote, IP = the ClusterIP) — kubernetes-windows.md §2.4 steps 6 and 7.1.
 */
function pointsAtThisNode(s: HnsStore, e: EndpointRec): boolean {
  const net = s.networks.get(e.HostComputeNetwork);
  if (net?.Type !== 'Overlay') return false;
  const pa = e.Policies.find((p) => p.type === 'ProviderAddress')?.settings as
    ProviderAddressSettings | undefined;
  if (!pa) return false;
  const nodeIp = s.nics.managementIp(net.ID);
  const hostMac = s.nics.hostVNicOf(net.ID)?.MacAddress ?? s.nics.uplinkOf(net.ID)?.MacAddress;
  const mac = parseMac(e.MacAddress);
  return (
    nodeIp !== undefined &&
    pa.providerAddress === nodeIp &&
    hostMac !== undefined &&
    mac !== undefined &&
    parseMac(hostMac) === mac
  );
}

/** Every leak and inconsistency of the node, in a stable order (by kind, then object). */
export function auditNode(
  s: HnsStore,
  hcs: HcsService,
  files: FileStore,
  options: AuditOptions = {},
): AuditFinding[] {
  const out: AuditFinding[] = [];
  const add = (kind: AuditKind, object: string, detail: string) => out.push({ kind, object, detail });

  for (const line of auditStore(s)) add('store-inconsistent', '', line);

  // endpoints: a local endpoint in no namespace, shared with no container, on no VM port and named
  // by no load balancer, route or policy list is used by nobody — except kube-proxy's source-VIP
  // endpoint, which load balancers name by address (SourceVIP) and which kube-proxy keeps on an
  // overlay network whether or not a service uses it yet (kubernetes-windows.md §2: "if no
  // endpoint exists with IP == sourceVip, create the source-VIP endpoint: local, MAC = host MAC,
  // PA = node IP"). A remote endpoint no load balancer names is left over — except kube-proxy's
  // service-VIP endpoint on overlay, which no load balancer names either (§2.4 7.1: "if there is no
  // HNS endpoint for the ClusterIP, create a remote endpoint for the service VIP: IP = ClusterIP,
  // MAC = host MAC, PA = node IP"; a service without endpoints has one and no load balancer)
  const sourceVips = new Set<string>();
  for (const lb of s.loadBalancers.values()) if (lb.SourceVIP) sourceVips.add(lb.SourceVIP);
  const inNamespace = new Set<string>();
  for (const ns of s.namespaces.values()) {
    for (const r of ns.Resources) if (r.Type === 'Endpoint') inNamespace.add(r.ID.toLowerCase());
  }
  const liveIps = new Set<string>();
  for (const e of s.endpoints.values()) {
    for (const c of e.IpConfigurations) liveIps.add(formatIp(c.addr));
    const referenced = (s.endpointRefs.get(e.ID)?.size ?? 0) > 0;
    if ((e.Flags & 1) !== 0) {
      if (!referenced && !pointsAtThisNode(s, e)) {
        add(
          'remote-endpoint-unreferenced',
          e.ID,
          `remote endpoint ${e.Name || e.ID} is named by no load balancer`,
        );
      }
      continue;
    }
    const used =
      inNamespace.has(e.ID.toLowerCase()) ||
      e.SharedContainers.length > 0 ||
      e.VmPort !== undefined ||
      referenced ||
      e.IpConfigurations.some((c) => sourceVips.has(formatIp(c.addr))) ||
      pointsAtThisNode(s, e);
    if (!used) {
      add(
        'endpoint-unused',
        e.ID,
        `endpoint ${e.Name || e.ID} is in no namespace, attached to no container or VM and named by nothing`,
      );
    }
  }

  // namespaces: one no container has joined is left over (a pod's pause container holds its
  // namespace while the pod lives); the host's own (HostDefault, compartment 1) never is. A
  // Hyper-V pod's namespace is held by its utility VM instead: HCS adds it to the guest
  // (`NetworkNamespace` guest request, hcs-lifecycle.md) and no container joins it on the host
  const inGuest = new Set<string>();
  for (const sys of hcs.systems.values())
    if (sys.guestNamespace) inGuest.add(sys.guestNamespace.toLowerCase());
  for (const ns of s.namespaces.values()) {
    if (ns.Type === 'HostDefault' || ns.NamespaceId === 1 || ns.IsDefault) continue;
    if (ns.Resources.some((r) => r.Type === 'Container')) continue;
    if (inGuest.has(ns.ID.toLowerCase())) continue;
    const eps = ns.Resources.length;
    add(
      'namespace-without-container',
      ns.ID,
      `namespace ${ns.ID} (compartment ${ns.NamespaceId}) has no container${eps ? ` and holds ${eps} endpoint${eps > 1 ? 's' : ''}` : ' and holds nothing'}`,
    );
  }

  // host-local: <dataDir>/<network>/<ip> whose address is on no endpoint (`:` written as `_`)
  for (const dir of options.hostLocalDirs ?? ['/var/lib/cni/networks']) {
    for (const net of files.list(dir)) {
      const netDir = `${normalizePath(dir).display}/${net}`;
      if (!files.isDirectory(netDir)) continue;
      for (const name of files.list(netDir)) {
        if (name === 'lock' || name.startsWith('last_reserved_ip')) continue;
        const path = `${netDir}/${name}`;
        const ip = name.replace(/_/g, ':');
        if (!liveIps.has(ip)) {
          const owner = (files.read(path) ?? '').split('\r\n')[0] ?? '';
          add(
            'ip-reservation-orphaned',
            path,
            `host-local reserved ${ip} for ${owner || '?'} on ${net}, and no endpoint has it`,
          );
        }
      }
    }
  }

  const namespaceIds = new Set([...s.namespaces.keys()].map((k) => k.toLowerCase()));
  // libcni's cache: an attachment whose namespace (a containerd GUID) is gone, or whose container
  // (dockershim's `none` / `container:<id>`) no compute system has, is stale
  for (const dir of options.cacheDirs ?? ['/var/lib/cni']) {
    const results = `${normalizePath(dir).display}/results`;
    for (const name of files.list(results)) {
      const path = `${results}/${name}`;
      let doc: unknown;
      try {
        doc = JSON.parse(files.read(path) ?? '');
      } catch {
        add('cni-cache-stale', path, 'libcni cache entry that is not JSON');
        continue;
      }
      if (!isJsonObject(doc)) continue;
      const netns = typeof doc['netns'] === 'string' ? doc['netns'] : '';
      const cid = typeof doc['containerId'] === 'string' ? doc['containerId'] : '';
      if (GUID.test(netns)) {
        if (!namespaceIds.has(netns.toLowerCase())) {
          add('cni-cache-stale', path, `cached attachment of ${cid} names namespace ${netns}, which is gone`);
        }
      } else if (cid !== '' && !hcs.find(cid)) {
        add('cni-cache-stale', path, `cached attachment of ${cid}, which no compute system is`);
      }
    }
  }

  // flannel: <dataDir>/<sandboxID> for a sandbox that no compute system is
  for (const dir of options.flannelDirs ?? ['/var/lib/cni/flannel']) {
    for (const name of files.list(dir)) {
      const path = `${normalizePath(dir).display}/${name}`;
      if (files.isDirectory(path)) continue;
      if (!hcs.find(name))
        add(
          'flannel-config-stale',
          path,
          `flannel's saved delegate for sandbox ${name}, which no compute system is`,
        );
    }
  }

  // load balancers, SDN routes and v1 policy lists still naming an endpoint (or network) deleted
  // since: HNS keeps them as they are, and a load balancer still redirects to the gone backend's
  // address (kubernetes#112836)
  staleReferences(s, add);

  const order: readonly AuditKind[] = [
    'store-inconsistent',
    'endpoint-unused',
    'namespace-without-container',
    'remote-endpoint-unreferenced',
    'endpoint-reference-stale',
    'ip-reservation-orphaned',
    'cni-cache-stale',
    'flannel-config-stale',
  ];
  return out.sort(
    (a, b) =>
      order.indexOf(a.kind) - order.indexOf(b.kind) ||
      (a.object < b.object ? -1 : a.object > b.object ? 1 : 0),
  );
}

/** One `endpoint-reference-stale` finding per load balancer, SDN route or policy list naming what is gone. */
function staleReferences(s: HnsStore, add: (kind: AuditKind, object: string, detail: string) => void): void {
  const report = (what: string, id: string, endpoints: readonly string[], network?: string) => {
    const gone = [...new Set(endpoints.filter((ep) => !s.endpoints.has(ep)))];
    const netGone = network !== undefined && network !== '' && !s.networks.has(network);
    if (!gone.length && !netGone) return;
    const names = [
      ...(gone.length ? [`endpoint${gone.length > 1 ? 's' : ''} ${gone.join(', ')}`] : []),
      ...(netGone ? [`network ${network}`] : []),
    ];
    add('endpoint-reference-stale', id, `${what} ${id} names ${names.join(' and ')}, deleted since`);
  };
  for (const lb of s.loadBalancers.values())
    report('load balancer', lb.ID, lb.HostComputeEndpoints, lb.HostComputeNetwork);
  for (const rt of s.routes.values())
    report('SDN route', rt.ID, rt.HostComputeEndpoints, rt.HostComputeNetwork);
  for (const pl of s.policyLists.values()) report('policy list', pl.ID, policyListEndpoints(pl));
}
