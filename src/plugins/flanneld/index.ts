/**
 * flanneld's Windows backends as host-side setup on a simulated node (reference cni-windows.md §5.2,
 * §5.3): host-gw (`FlanneldHostGw`), vxlan (`FlanneldVxlan`) and the 2018 vxlan design
 * (`FlanneldVxlanLegacy`), each `setup(lease)` once, then `onLeaseAdded` / `onLeaseRemoved` (or
 * `handleEvents`, `resync`) for the other nodes' leases; and `writeSubnetEnv`, flanneld's subnet.env
 * writer, which the flannel CNI plugin reads.
 *
 *   const fh = flanneldHost(host);
 *   const vx = new FlanneldVxlan(fh);
 *   const net = await vx.setup({ subnet: '10.244.1.0/24', publicIp: '10.0.0.11' });
 *   writeSubnetEnv(host.files, { network: '10.244.0.0/16', subnet: '10.244.1.0/24', mtu: net.mtu, ipMasq: true });
 */
export {
  flanneldHost,
  lookupExtIface,
  getInterfaceByIP,
  pollUntil,
  clockSleep,
  type FlanneldHost,
  type FlanneldLogEntry,
  type FlanneldLogLevel,
  type ExternalInterface,
  type ExtIfaceOptions,
  type NetInterface,
  type Sleep,
} from './host.js';
export {
  LeaseWatcher,
  parseLease,
  type Lease,
  type LeaseEvent,
  type LeaseEventType,
  type ParsedLease,
} from './lease.js';
export {
  FlanneldHostGw,
  backendJson,
  ROUTE_CHECK_INTERVAL_MS,
  type FlanneldOptions,
  type FlannelRoute,
  type HostGwNetwork,
} from './hostgw.js';
export {
  FlanneldVxlan,
  vxlanConfig,
  leaseAttrs,
  managementIpOf,
  DEFAULT_VNI,
  VXLAN_PORT,
  ENCAP_OVERHEAD,
  type VxlanConfig,
  type VxlanNetwork,
} from './vxlan.js';
export {
  FlanneldVxlanLegacy,
  conjureMac,
  remoteEndpointName,
  type LegacyVxlanNetwork,
} from './vxlan-legacy.js';
export {
  writeSubnetEnv,
  subnetEnvText,
  DEFAULT_SUBNET_FILE_PATH,
  type SubnetFileOptions,
} from './subnet-file.js';
export {
  startFlanneld,
  type FlanneldBackendType,
  type FlanneldNode,
  type FlanneldNodeOptions,
} from './node.js';
