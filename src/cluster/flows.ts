/**
 * The nine flows the Kubernetes "Networking on Windows" page lists as supported (kubernetes-windows.md
 * §1.3: Pod→Pod by IP and by name, Pod→Service by ClusterIP, PQDN and FQDN, Pod→external by IP and
 * by name, Node→Pod, Pod→Node), run on a cluster as traces, each summarised by its disposition and
 * the packet changes on the way (DNAT, SNAT, encapsulation, MAC rewrite) — the table `npm start`
 * prints, and a starting point for a user's own truth tables.
 *
 * `aksDemoCluster()` (hnsim/testing) is the same on an Azure VNet (AKS node-subnet mode).
 *
 *   const { cluster, names } = demoCluster('overlay');
 *   for (const row of kubernetesFlows(cluster, names)) console.log(row.flow, row.disposition, row.changes);
 */
import { hnsError } from '../core/errors.js';
import { fmt } from '../vswitch/v4.js';
import { tunnelName, type Disposition, type Observation } from '../vswitch/contracts.js';
import type { TraceRequest, TraceResult } from '../dataplane/trace.js';
import { Cluster, type ClusterOptions } from './cluster.js';

/** What the flows run between. */
export interface FlowNames {
  /** The client pod (`ns/name`) and its node. */
  readonly client: string;
  readonly clientNode: string;
  /** A pod on another node, its DNS name (pod A record or headless hostname) and port. */
  readonly server: string;
  readonly serverName: string;
  readonly serverPort: number;
  /** A service selecting the server: `ns/name`, its single-label name and FQDN. */
  readonly service: string;
  readonly serviceName: string;
  readonly serviceFqdn: string;
  /** An outside host: its address and DNS name. */
  readonly externalIp: string;
  readonly externalName: string;
}

export interface FlowRow {
  readonly flow: string;
  readonly request: TraceRequest;
  readonly disposition: Disposition;
  /** The packet changes, in order: `DNAT 10.96.0.11:80→10.244.2.3:8080`, `VXLAN VNI 4096 …`. */
  readonly changes: string;
  readonly result: TraceResult;
}

/** The steps that change a packet, each in a few words. */
export function packetChanges(obs: readonly Observation[]): string[] {
  const out: string[] = [];
  let podMac: number | undefined;
  let macShown = false;
  for (const o of obs) {
    const a = o.packetBefore;
    const b = o.packetAfter;
    if (o.component === 'Container' && podMac === undefined) podMac = b.srcMac;
    // a pod's frame leaving a host with the host's MAC (MAC rewrite, or the host stack forwarding it)
    if (o.action === 'Transmitted' && !b.outer && podMac !== undefined && b.srcMac !== podMac && !macShown) {
      out.push('MAC→host MAC');
      macShown = true;
    }
    switch (o.action) {
      case 'DNAT':
      case 'DNAT+SNAT':
        out.push(`DNAT ${fmt(a.dstIp)}:${a.dstPort}→${fmt(b.dstIp)}:${b.dstPort}`);
        if (a.srcIp !== b.srcIp) out.push(`SNAT ${fmt(a.srcIp)}→${fmt(b.srcIp)}`);
        break;
      case 'SNAT':
        out.push(`SNAT ${fmt(a.srcIp)}→${fmt(b.srcIp)}`);
        break;
      case 'Encapsulated':
        if (b.outer)
          out.push(
            `${tunnelName(b.outer)} VNI ${b.outer.vni} ${fmt(b.outer.srcIp)}→${fmt(b.outer.dstIp)}:${b.outer.dstPort}`,
          );
        break;
      case 'Rewritten':
        if (o.component === 'MacRewrite' && a.srcMac !== b.srcMac && !macShown) {
          out.push('MAC→host MAC');
          macShown = true;
        }
        break;
      default:
        break;
    }
  }
  return out;
}

/** Run the nine flows (TCP; the DNS flows resolve through the cluster's DNS first). */
export function kubernetesFlows(c: Cluster, n: FlowNames): FlowRow[] {
  const server = c.pod(n.server);
  if (!server) throw hnsError('ERROR_NOT_FOUND', `no pod ${n.server}`);
  const flows: [string, TraceRequest][] = [
    ['Pod → Pod (IP)', { from: n.client, to: server.ip, destinationPort: n.serverPort }],
    ['Pod → Pod (name)', { from: n.client, to: n.serverName, destinationPort: n.serverPort }],
    ['Pod → Service (ClusterIP)', { from: n.client, to: `svc:${n.service}` }],
    ['Pod → Service (PQDN)', { from: n.client, to: n.serviceName }],
    ['Pod → Service (FQDN)', { from: n.client, to: n.serviceFqdn }],
    ['Pod → external (IP)', { from: n.client, to: n.externalIp, destinationPort: 443 }],
    ['Pod → external (DNS)', { from: n.client, to: n.externalName, destinationPort: 443 }],
    ['Node → Pod', { from: n.clientNode, to: n.server, destinationPort: n.serverPort }],
    ['Pod → Node', { from: n.client, to: n.clientNode, destinationPort: 10250 }],
  ];
  return flows.map(([flow, request]) => {
    const result = c.trace(request);
    return {
      flow,
      request,
      disposition: result.disposition,
      changes: packetChanges(result.observations).join(', '),
      result,
    };
  });
}

/**
 * The rest of a demo cluster once its client and server pods run: the `web` service (80 → 8080)
 * selecting the server, the outside web server `www.bing.com`, and the flow ends — `default/client`
 * on `clientNode`, `default/web-0` at `webIp`.
 */
export function demoFlowsAround(c: Cluster, clientNode: string, webIp: string): FlowNames {
  c.addService({
    namespace: 'default',
    name: 'web',
    ports: [{ port: 80, targetPort: 8080 }],
    selector: { app: 'web' },
  });
  c.addExternalHost({ name: 'www.bing.com', ip: '204.79.197.200', dnsName: 'www.bing.com' });
  return {
    client: 'default/client',
    clientNode,
    server: 'default/web-0',
    serverName: `${webIp.replaceAll('.', '-')}.default.pod.${c.dns.domain}`,
    serverPort: 8080,
    service: 'default/web',
    serviceName: 'web',
    serviceFqdn: `web.default.svc.${c.dns.domain}`,
    externalIp: '204.79.197.200',
    externalName: 'www.bing.com',
  };
}

/**
 * A two-node Windows cluster like the Kubernetes docs describe: flannel host-gw (`l2bridge`) or
 * VXLAN (`overlay`), CoreDNS, a client and a server pod on different nodes, a service, and an
 * outside web server with a DNS name.
 */
export function demoCluster(
  mode: 'l2bridge' | 'overlay',
  options: ClusterOptions = {},
): { cluster: Cluster; names: FlowNames } {
  const c = new Cluster({ seed: 1, ...options });
  c.addWindowsNode({ name: 'win-1', network: mode });
  c.addWindowsNode({ name: 'win-2', network: mode });
  c.addCoreDns('win-2');
  c.addPod({ namespace: 'default', name: 'client', node: 'win-1', labels: { app: 'client' } });
  const web = c.addPod({ namespace: 'default', name: 'web-0', node: 'win-2', labels: { app: 'web' } });
  return { cluster: c, names: demoFlowsAround(c, 'win-1', web.ip) };
}
