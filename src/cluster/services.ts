/**
 * Services as the nodes' kube-proxies program them (reference kubernetes-windows.md §2): each
 * service's endpoints (the pods of its namespace its selector picks, in pod order), iptables rules
 * on Linux nodes (ClusterIPs, the same on every node: src/cluster/linux.ts) and the winkernel
 * proxier of each Windows node (src/plugins/kube-proxy). Two ways to sync: the full sync
 * re-programs every service on every node; the incremental one only the services a change touches,
 * plus, on a node whose HNS state changed behind the cluster's back, flannel's routes and the
 * services whose objects are gone or changed.
 */
import type { ProxyEndpoint, ProxyService } from '../plugins/kube-proxy/winkernel.js';
import { selects } from './dns.js';
import { serviceKey, type LinuxService } from './linux.js';
import type { AnyNode, PodRec, ServiceRec, ServiceSpec, WinNode } from './types.js';
import { fmt } from '../vswitch/v4.js';

/** A service with a ClusterIP and the endpoints its selector picks, as one sync programs it. */
interface ProgrammedService extends ProxyService {
  readonly spec: ServiceSpec;
}

function protoNum(p: 'TCP' | 'UDP' | undefined): number {
  return p === 'UDP' ? 17 : 6;
}

/** The cluster's services on its nodes. */
export class ServiceSync {
  /** Each programmed service's iptables rules (incremental sync: re-computed for changed services only). */
  private readonly iptables = new Map<string, [string, LinuxService][]>();

  /** The cluster's nodes, pods and services, in the order they were added. */
  constructor(
    private readonly nodes: ReadonlyMap<string, AnyNode>,
    private readonly pods: ReadonlyMap<string, PodRec>,
    private readonly services: ReadonlyMap<string, ServiceRec>,
  ) {}

  /** The keys of the services (with a ClusterIP or not) whose selector picks `pod`, in service order. */
  servicesOf(pod: PodRec): string[] {
    const out: string[] = [];
    for (const [key, { spec }] of this.services)
      if (spec.namespace === pod.namespace && selects(spec.selector, pod.labels)) out.push(key);
    return out;
  }

  /** The pods a service picks, in pod order (kube-proxy's endpoints), or undefined when it has no ClusterIP. */
  private programmed(key: string): ProgrammedService | undefined {
    const s = this.services.get(key);
    if (!s || s.clusterIP === 'None') return undefined;
    const { spec } = s;
    const endpoints: ProxyEndpoint[] = [];
    for (const p of this.pods.values())
      if (p.namespace === spec.namespace && selects(spec.selector, p.labels))
        endpoints.push({
          ip: p.ipNum,
          node: p.node,
          nodeIp: this.nodes.get(p.node)!.ip,
          ...(p.endpointId !== undefined ? { endpointId: p.endpointId } : {}),
        });
    return { spec, clusterIP: s.clusterIP, endpoints };
  }

  /** The iptables rules of a service on Linux nodes, one per port. */
  private iptablesOf(svc: ProgrammedService): [string, LinuxService][] {
    const { spec, clusterIP, endpoints } = svc;
    return spec.ports.map((port) => [
      serviceKey(protoNum(port.protocol), clusterIP, port.port),
      {
        name: `${spec.namespace}/${spec.name}:${port.port}`,
        targets: endpoints.map((b) => ({ ip: b.ip, port: port.targetPort ?? port.port })),
      },
    ]);
  }

  /**
   * AntreaProxy on each Antrea node: every Service port with a ClusterIP (a full sync each time:
   * the agent keeps each port's group ID) and its nodePort, endpoints on the node marked local.
   */
  private setAntreaServices(prog: (key: string) => ProgrammedService | undefined): void {
    this.setOvnNativeServices(prog);
    const nodes = [...this.nodes.values()].filter((n): n is WinNode => n.kind === 'Windows' && !!n.antrea);
    if (!nodes.length) return;
    const svcs: ProgrammedService[] = [];
    for (const key of this.services.keys()) {
      const s = prog(key);
      if (s) svcs.push(s);
    }
    for (const n of nodes)
      n.antrea!.setServices(
        svcs.flatMap(({ spec, clusterIP, endpoints }) =>
          spec.ports.map((port) => ({
            key: `${spec.namespace}/${spec.name}:${port.port}/${port.protocol ?? 'TCP'}`,
            clusterIP: fmt(clusterIP),
            port: port.port,
            protocol: port.protocol ?? 'TCP',
            ...(spec.sessionAffinity === 'ClientIP' ? { affinityTimeout: 10800 } : {}),
            // as kube-proxy nodes take it (winkernel.ts): a NodePort or LoadBalancer Service's nodePort
            ...((spec.type === 'NodePort' || spec.type === 'LoadBalancer') && port.nodePort !== undefined
              ? { nodePort: port.nodePort }
              : {}),
            endpoints: endpoints.map((e) => ({
              ip: fmt(e.ip),
              port: port.targetPort ?? port.port,
              local: e.node === n.name,
            })),
          })),
        ),
      );
  }

  /**
   * Native ovn-kubernetes nodes: OVN's load balancer per Service port (the stand-in's select
   * group), the same on every node (ovn-kubernetes programs one per cluster).
   */
  private setOvnNativeServices(prog: (key: string) => ProgrammedService | undefined): void {
    const nodes = [...this.nodes.values()].filter((n): n is WinNode => n.kind === 'Windows' && !!n.ovnNative);
    if (!nodes.length) return;
    const ports = [...this.services.keys()].flatMap((key) => {
      const s = prog(key);
      if (!s) return [];
      return s.spec.ports.map((port) => ({
        key: `${s.spec.namespace}/${s.spec.name}:${port.port}/${port.protocol ?? 'TCP'}`,
        clusterIP: fmt(s.clusterIP),
        port: port.port,
        protocol: port.protocol ?? 'TCP',
        endpoints: s.endpoints.map((e) => ({ ip: fmt(e.ip), port: port.targetPort ?? port.port })),
      }));
    });
    for (const n of nodes) n.ovnNative!.setServices(ports);
  }

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
  full(): void {
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
    // (an Antrea node runs no kube-proxy: AntreaProxy serves Services there)
    for (const n of this.nodes.values())
      if (n.kind === 'Windows' && !n.antrea && !n.ovnNative) n.proxy.syncAll(services);
    this.setAntreaServices((key) => services.find(([k]) => k === key)?.[1]);
  }

  /**
   * The incremental sync: the services in `dirty` (keys, some maybe deleted) are re-programmed on
   * every node; a Windows node whose HNS state changed behind the cluster's back (a runtime's CNI
   * ADD, an out-of-band delete, a restart) gets flannel's routes again (`repair`) and every service
   * whose load balancers or remote endpoints are gone or changed — what a full sync would re-create.
   */
  changed(dirty: readonly string[], repair: (n: WinNode) => void): void {
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
    if (dirty.length) {
      this.setLinuxServices();
      this.setAntreaServices(prog);
    }
    for (const n of this.nodes.values()) {
      if (n.kind !== 'Windows' || n.antrea || n.ovnNative) continue;
      const keys = new Set(dirty);
      if (n.host.dataplane.generation() !== n.syncedGen) {
        repair(n);
        for (const k of n.proxy.damaged()) keys.add(k);
      }
      if (!keys.size) continue;
      // in service order (deleted services first), as a full sync would create them
      const sorted = [...keys].sort((a, b) => (order.get(a) ?? -1) - (order.get(b) ?? -1));
      n.proxy.sync(sorted, prog);
    }
  }
}
