/**
 * kube-proxy's Windows proxier (winkernel) as a node agent: `new WinKernelProxy(node)` per Windows
 * node, fed services and their endpoints (`syncAll`, `sync`). src/cluster runs one per node.
 */
export {
  WinKernelProxy,
  type WinKernelNode,
  type ProxyService,
  type ProxyServiceSpec,
  type ProxyServicePort,
  type ProxyEndpoint,
} from './winkernel.js';
