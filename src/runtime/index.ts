/**
 * The pod runtime (DESIGN: runtime/): a CRI-like lifecycle over one simulated node in two
 * flavours — containerd + hcsshim (HCN namespaces, Hyper-V pods through utility-VM NICs) and
 * kubelet's dockershim (netns `none` / `container:<id>`, HotAttach). Reference:
 * kubernetes-windows.md §3.
 */
export * from './contracts.js';
export {
  ContainerdRuntime,
  DEFAULT_RUNTIME_HANDLERS,
  type ContainerdOptions,
  type RuntimeHandlerConfig,
} from './containerd.js';
export { DockershimRuntime, type DockershimOptions } from './dockershim.js';
export {
  containerdCapabilityArgs,
  containerdCniArgs,
  goCniCreateResult,
  KILLED_EXIT_CODE,
  POD_ANNOTATIONS_CAPABILITY,
  selectPodIPs,
  type GoCniConfig,
  type GoCniIPConfig,
  type IpPreference,
} from './cri.js';
export { hostedContainerDocument, processContainerDocument, SHIM_OWNER, utilityVmDocument } from './shim.js';
export { cniNetwork, type CniNetworkOptions } from './network.js';
