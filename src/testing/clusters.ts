/**
 * Whole small clusters as fast-check values (DESIGN: cluster/): 1–3 nodes (Windows, and Linux
 * beside them when asked), pods with labels on them, services selecting them, maybe CoreDNS. A
 * value is a plain `ClusterSpec` — printable, so a failing property shows the cluster it failed on
 * — and `buildCluster(spec)` builds it through the real `Cluster` API, which programs every
 * Windows node through its flat HNS API as flannel, the CNI plugins and kube-proxy do.
 *
 *   fc.assert(fc.property(clusterSpec({ network: 'overlay' }), (spec) => {
 *     const c = buildCluster(spec);
 *     for (const p of spec.pods) expect(c.trace({ from: podRef(p), to: 'kube-system/coredns-0' }) …
 *   }));
 *
 * Shrinking goes towards one Windows node, no pods, no services: nodes are picked by index (modulo
 * the node count), names come from positions, so every shrunk spec still builds.
 */
import fc from 'fast-check';
import { Cluster, type ServiceSpec } from '../cluster/cluster.js';

/** A node of a spec: Windows on the cluster's network, or Linux with the matching flannel backend. */
export interface NodeSpec {
  readonly name: string;
  readonly os: 'windows' | 'linux';
}

export interface PodSpecOf {
  readonly namespace: string;
  readonly name: string;
  readonly node: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** A cluster as data: everything `buildCluster` needs. */
export interface ClusterSpec {
  readonly seed: number;
  /** Every Windows node's network (flannel host-gw on L2Bridge, or VXLAN on Overlay). */
  readonly network: 'l2bridge' | 'overlay';
  /** kube-proxy `--enable-dsr`. */
  readonly dsr: boolean;
  readonly nodes: readonly NodeSpec[];
  readonly pods: readonly PodSpecOf[];
  readonly services: readonly ServiceSpec[];
  /** The node CoreDNS runs on (the `kube-system/kube-dns` service), if any. */
  readonly coreDns?: string;
}

export interface ClusterArbOptions {
  /** 1–3 (default 3). */
  readonly maxNodes?: number;
  /** Default 6. */
  readonly maxPods?: number;
  /** Default 3. */
  readonly maxServices?: number;
  /** The Windows nodes' network, or `any` (default: one per cluster, drawn). */
  readonly network?: 'l2bridge' | 'overlay' | 'any';
  /** Also Linux nodes (not the first node; default false). */
  readonly linux?: boolean;
  /** Sometimes CoreDNS on the first node (default true). */
  readonly coreDns?: boolean;
}

/** The pools cluster specs draw from. */
export const CLUSTER_ARB = {
  nodeNames: ['win-1', 'node-2', 'node-3'],
  apps: ['web', 'api', 'db'],
  namespaces: ['default', 'prod'],
  ports: [80, 443, 8080],
  targetPorts: [8080, 80, 9376],
} as const;

/**
 * A small cluster spec: nodes, pods spread over them by index, services each selecting an app
 * label (so a service may select no pod: kube-proxy then programs nothing for it).
 */
export function clusterSpec(opts: ClusterArbOptions = {}): fc.Arbitrary<ClusterSpec> {
  const maxNodes = Math.min(3, Math.max(1, opts.maxNodes ?? 3));
  const node = fc.record({ linux: opts.linux ? fc.boolean() : fc.constant(false) });
  const pod = fc.record({
    node: fc.nat(2),
    app: fc.constantFrom(...CLUSTER_ARB.apps),
    namespace: fc.constantFrom(...CLUSTER_ARB.namespaces),
  });
  const service = fc.record({
    app: fc.constantFrom(...CLUSTER_ARB.apps),
    namespace: fc.constantFrom(...CLUSTER_ARB.namespaces),
    port: fc.constantFrom(...CLUSTER_ARB.ports),
    targetPort: fc.constantFrom(...CLUSTER_ARB.targetPorts),
    nodePort: fc.option(fc.integer({ min: 30000, max: 30009 }), { freq: 4, nil: undefined }),
  });
  const network =
    opts.network === 'l2bridge' || opts.network === 'overlay'
      ? fc.constant(opts.network)
      : fc.constantFrom<'l2bridge' | 'overlay'>('l2bridge', 'overlay');
  return fc
    .record({
      seed: fc.integer({ min: 1, max: 1000 }),
      network,
      dsr: fc.boolean(),
      extraNodes: fc.array(node, { maxLength: maxNodes - 1 }),
      pods: fc.array(pod, { maxLength: opts.maxPods ?? 6 }),
      services: fc.uniqueArray(service, {
        maxLength: opts.maxServices ?? 3,
        selector: (s) => `${s.namespace}/${s.app}`,
      }),
      coreDns: opts.coreDns === false ? fc.constant(false) : fc.boolean(),
    })
    .map(({ seed, network: net, dsr, extraNodes, pods, services, coreDns }): ClusterSpec => {
      const nodes: NodeSpec[] = [
        { name: CLUSTER_ARB.nodeNames[0], os: 'windows' },
        ...extraNodes.map((n, i): NodeSpec => ({
          name: CLUSTER_ARB.nodeNames[i + 1]!,
          os: n.linux ? 'linux' : 'windows',
        })),
      ];
      const nodePorts = new Set<number>();
      return {
        seed,
        network: net,
        dsr,
        nodes,
        pods: pods.map((p, i) => ({
          namespace: p.namespace,
          name: `${p.app}-${i}`,
          node: nodes[p.node % nodes.length]!.name,
          labels: { app: p.app },
        })),
        services: services.map((s): ServiceSpec => {
          // NodePorts are cluster-wide: a second service on one gets none
          const nodePort = s.nodePort !== undefined && !nodePorts.has(s.nodePort) ? s.nodePort : undefined;
          if (nodePort !== undefined) nodePorts.add(nodePort);
          return {
            namespace: s.namespace,
            name: s.app,
            ...(nodePort !== undefined ? { type: 'NodePort' as const } : {}),
            ports: [
              { port: s.port, targetPort: s.targetPort, ...(nodePort !== undefined ? { nodePort } : {}) },
            ],
            selector: { app: s.app },
          };
        }),
        ...(coreDns ? { coreDns: nodes[0]!.name } : {}),
      };
    });
}

/**
 * Build a spec through the real API: `new Cluster`, then nodes in order (Windows on the spec's
 * network, Linux with the flannel backend that matches it: host-gw, or vxlan with Windows' VNI 4096
 * and port 4789), CoreDNS, pods, services. Throws what the cluster throws (an HRESULT error).
 */
export function buildCluster(spec: ClusterSpec): Cluster {
  const c = new Cluster({ seed: spec.seed, dsr: spec.dsr });
  for (const n of spec.nodes) {
    if (n.os === 'windows') c.addWindowsNode({ name: n.name, network: spec.network });
    else
      c.addLinuxNode(
        spec.network === 'overlay'
          ? { name: n.name, backend: 'vxlan', vni: 4096, vxlanPort: 4789 }
          : { name: n.name, backend: 'host-gw' },
      );
  }
  if (spec.coreDns) c.addCoreDns(spec.coreDns);
  for (const p of spec.pods) c.addPod({ ...p, labels: { ...p.labels } });
  for (const s of spec.services) c.addService(s);
  return c;
}

/** `ns/name`, the reference traces take for a pod. */
export function podRef(p: { readonly namespace: string; readonly name: string }): string {
  return `${p.namespace}/${p.name}`;
}

/** A spec with its cluster, built on first use (`cluster` is a getter); prints as its spec. */
export interface BuiltCluster {
  readonly spec: ClusterSpec;
  readonly cluster: Cluster;
}

/** `clusterSpec(opts)` with the cluster built from it on first use of `.cluster`. */
export function cluster(opts: ClusterArbOptions = {}): fc.Arbitrary<BuiltCluster> {
  return clusterSpec(opts).map((spec): BuiltCluster => {
    let built: Cluster | undefined;
    return {
      spec,
      get cluster(): Cluster {
        return (built ??= buildCluster(spec));
      },
      [fc.toStringMethod]: () => `buildCluster(${fc.stringify(spec)})`,
    } as BuiltCluster;
  });
}
