/**
 * microsoft/windows-container-networking @ b96345f (hcsshim v0.8.26, libcni v1.1.2): the
 * `sdnbridge`, `sdnoverlay` and `nat` CNI plugins (reference cni-windows.md §4).
 */
export { nat, sdnbridge, sdnoverlay, WCN_ABOUT, WCN_VERSIONS } from './plugin.js';
export {
  CNI_PLUGIN_NAME_TO_HCN_TYPE,
  mapCniTypeToHcnType,
  parseNetworkConfig,
  podNamespaceFromArgs,
  serializeNetworkConfig,
  type NetworkConfig,
} from './config.js';
