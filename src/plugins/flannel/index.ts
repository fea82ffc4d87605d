/**
 * The flannel CNI meta-plugin (flannel-io/cni-plugin @ 092e6d26; reference cni-windows.md §5.1):
 * the plugin, its config and subnet.env readers, and the Windows delegate builder.
 */
export { flannel, FLANNEL_ABOUT } from './plugin.js';
export { loadFlannelNetConf, DEFAULT_DATA_DIR, DEFAULT_SUBNET_FILE, type FlannelNetConf } from './conf.js';
export { loadSubnetEnv, parseSubnetEnv, SubnetEnvError, type SubnetEnv } from './subnet-env.js';
export {
  checkedDelegate,
  delegateBytes,
  sandboxContainerId,
  windowsDelegate,
  DEFAULT_DELEGATE_TYPE,
  FALLBACK_CNI_VERSION,
} from './delegate.js';
export { netString, parseCIDRNet } from '../../cni/goip.js';
export { parseMAC, macString } from '../../cni/gomac.js';
