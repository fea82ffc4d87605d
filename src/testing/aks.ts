/**
 * An AKS-like demo cluster (src/cluster/azure.ts): two Azure VMs in node-subnet mode, each with
 * containerd running azure-vnet with AKS's conflist — the pods come from the runtime, as on a real
 * node — set up like `demoCluster` for `kubernetesFlows`. A fixture of the test kit because it
 * needs both the cluster and the pod runtime (siblings in DESIGN's layers).
 *
 *   const { cluster, names } = await aksDemoCluster();
 *   kubernetesFlows(cluster, names);   // the nine flows on an Azure VNet
 */
import { aksConflist, startAzurePod } from '../cluster/azure.js';
import { Cluster } from '../cluster/cluster.js';
import { demoFlowsAround, type FlowNames } from '../cluster/flows.js';
import type { AzureClusterOptions, ClusterOptions } from '../cluster/types.js';
import { ContainerdRuntime } from '../runtime/containerd.js';
import { cniNetwork } from '../runtime/network.js';

/**
 * The two-node AKS-like cluster `demoCluster` has for flannel, in node-subnet mode: Azure VMs
 * `akswin1` and `akswin2` (`maxPods` secondary IPs each, 8 unless given), containerd running
 * azure-vnet with AKS's conflist on each (`runtimes`), CoreDNS and the server on `akswin2`, the
 * client on `akswin1`, the `web` service and an outside web server — ready for `kubernetesFlows`.
 */
export async function aksDemoCluster(
  options: Omit<ClusterOptions, 'azure'> & { readonly azure?: AzureClusterOptions } = {},
): Promise<{ cluster: Cluster; names: FlowNames; runtimes: Map<string, ContainerdRuntime> }> {
  const c = new Cluster({ seed: 1, ...options, azure: { maxPods: 8, ...options.azure } });
  const runtimes = new Map<string, ContainerdRuntime>();
  for (const [i, name] of ['akswin1', 'akswin2'].entries()) {
    const host = c.addWindowsNode({ name, network: 'azure' });
    runtimes.set(
      name,
      new ContainerdRuntime(host, { networks: [cniNetwork(host, aksConflist(c, name))], seed: c.seed + i }),
    );
  }
  const on = (node: string) => runtimes.get(node)!;
  await startAzurePod(c, on('akswin2'), {
    namespace: 'kube-system',
    name: 'coredns-0',
    node: 'akswin2',
    labels: { 'k8s-app': 'kube-dns' },
  });
  c.addKubeDnsService();
  await startAzurePod(c, on('akswin1'), {
    namespace: 'default',
    name: 'client',
    node: 'akswin1',
    labels: { app: 'client' },
  });
  const web = await startAzurePod(c, on('akswin2'), {
    namespace: 'default',
    name: 'web-0',
    node: 'akswin2',
    labels: { app: 'web' },
  });
  return { cluster: c, runtimes, names: demoFlowsAround(c, 'akswin1', web.ip) };
}
