// What the Azure tests share: an Azure VM node, one azure-vnet-ipam invocation's environment and
// configuration, and where the plugin keeps its state by default.
import { createHost, type Host } from '../../../src/host/host.js';

/** azure-vnet-ipam's state file where containerd (a Windows service) starts plugins. */
export const IPAM_STATE = 'C:\\Windows\\System32\\azure-vnet-ipam.json';

/** An Azure VM: `Ethernet` 10.240.0.4/16 with `secondary` as its NIC's secondary IP configurations. */
export function azureHost(secondary: readonly string[] = ['10.240.0.5', '10.240.0.6', '10.240.0.7']): Host {
  return createHost({
    adapters: [
      {
        name: 'Ethernet',
        ipAddress: '10.240.0.4/16',
        gateway: '10.240.0.1',
        macAddress: '00-0D-3A-F9-DC-A6',
      },
    ],
    azure: { nics: [{ adapter: 'Ethernet', secondaryIps: secondary }] },
  });
}

/** The CNI_* environment of one invocation (dockershim's `none` netns, eth0). */
export function ipamEnv(command: string, id: string): Record<string, string> {
  return {
    CNI_COMMAND: command,
    CNI_CONTAINERID: id,
    CNI_NETNS: 'none',
    CNI_IFNAME: 'eth0',
    CNI_PATH: 'C:\\k',
  };
}

export interface IpamConf {
  cniVersion?: string;
  subnet?: string;
  ipAddress?: string;
  type?: string;
  master?: string;
  environment?: string;
}

/** An azure-vnet configuration as its IPAM plugin receives it (only the keys given). */
export function ipamConf(c: IpamConf): string {
  const ipam: Record<string, string> = { type: c.type ?? 'azure-vnet-ipam' };
  if (c.subnet !== undefined) ipam['subnet'] = c.subnet;
  if (c.ipAddress !== undefined) ipam['ipAddress'] = c.ipAddress;
  if (c.environment !== undefined) ipam['environment'] = c.environment;
  return JSON.stringify({
    ...(c.cniVersion !== undefined ? { cniVersion: c.cniVersion } : {}),
    name: 'azure',
    type: 'azure-vnet',
    ...(c.master !== undefined ? { master: c.master } : {}),
    ipam,
  });
}
