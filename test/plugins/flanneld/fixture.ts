/**
 * The node the flanneld tests start from: one NIC on 10.0.0.0/24 and the lease the subnet manager
 * gives it (10.244.1.0/24, public IP = the NIC's address).
 */
export const NIC = {
  name: 'Ethernet',
  ipAddress: '10.0.0.11/24',
  gateway: '10.0.0.1',
  macAddress: '00-0D-3A-00-00-11',
};
export const LEASE = { subnet: '10.244.1.0/24', publicIp: '10.0.0.11' };
