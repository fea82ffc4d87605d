// What the azure-vnet tests share: an AKS-like node (an Azure VM whose NIC carries the node IP and
// secondary IP configurations, with the `ext` L2Bridge network AKS's provisioning script creates
// first), the conflist AKS writes (a vector from Azure/AgentBaker), and one-invocation helpers.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createHost, type Host, type HostOptions } from '../../../src/host/host.js';
import { HcnClient } from '../../../src/api/hcn/client.js';
import { execPlugin } from '../../../src/plugins/index.js';
import type { ExecOutput } from '../../../src/cni/contracts.js';

/**
 * AgentBaker `staging/cse/windows/azurecnifunc.tests.suites/AzureCNI.Expect.DisableWinDSR.conflist`
 * (commit 3d0be13d): what `Set-AzureCNIConfig` writes for a node-subnet cluster without WinDSR.
 */
export const AKS_CONFLIST_TEXT = readFileSync(
  fileURLToPath(new URL('./vectors/aks-disable-windsr.conflist', import.meta.url)),
  'utf8',
);
export const AKS_CONFLIST = JSON.parse(AKS_CONFLIST_TEXT) as {
  cniVersion: string;
  name: string;
  plugins: Record<string, unknown>[];
};

/** The plugin object of the AKS conflist with libcni's injected `name` and `cniVersion`, then `edit`. */
export function aksPluginConf(edit: (p: Record<string, unknown>) => void = () => {}): string {
  const p = {
    ...structuredClone(AKS_CONFLIST.plugins[0]!),
    name: AKS_CONFLIST.name,
    cniVersion: AKS_CONFLIST.cniVersion,
  };
  edit(p);
  return JSON.stringify(p);
}

/** Where azure-vnet and its IPAM keep state under containerd (a Windows service). */
export const SYSTEM32 = 'C:\\Windows\\System32';
export const VNET_STATE = `${SYSTEM32}\\azure-vnet.json`;
export const IPAM_STATE = `${SYSTEM32}\\azure-vnet-ipam.json`;
/** AKS's CNI binary directory. */
export const AZURE_CNI_BIN = 'C:\\k\\azurecni\\bin';

export const NODE_IP = '10.224.0.4';
export const SECONDARY = ['10.224.0.5', '10.224.0.6', '10.224.0.7'];

/** An AKS Windows node: `Ethernet` 10.224.0.4/16 with `secondary` IP configurations, and `ext`. */
export async function aksNode(
  options: { secondary?: readonly string[]; profile?: HostOptions['profile'] } = {},
): Promise<Host> {
  const host = createHost({
    ...(options.profile !== undefined ? { profile: options.profile } : {}),
    adapters: [
      {
        name: 'Ethernet',
        ipAddress: `${NODE_IP}/16`,
        gateway: '10.224.0.1',
        macAddress: '00-0D-3A-F9-DC-A6',
      },
    ],
    azure: { nics: [{ adapter: 'Ethernet', secondaryIps: options.secondary ?? SECONDARY }] },
  });
  await addExtNetwork(host);
  return host;
}

/**
 * AgentBaker `azurecnifunc.ps1` New-ExternalHnsNetwork: the L2Bridge network `ext` on
 * 192.168.255.0/30 bound to `Ethernet`, so the node IP moves to `vEthernet (Ethernet)`.
 */
export async function addExtNetwork(host: Host): Promise<void> {
  await HcnClient.forHost(host).createNetwork({
    Name: 'ext',
    Type: 'L2Bridge',
    Ipams: [
      {
        Type: 'Static',
        Subnets: [
          {
            IpAddressPrefix: '192.168.255.0/30',
            Routes: [{ NextHop: '192.168.255.1', DestinationPrefix: '0.0.0.0/0' }],
          },
        ],
      },
    ],
    Policies: [{ Type: 'NetAdapterName', Settings: { NetworkAdapterName: 'Ethernet' } }],
  });
}

/** ACN v1.8.12 `cni/azure-windows-swift.conflist`'s plugin object (with libcni's name and version). */
export const SWIFT_CONF = {
  cniVersion: '1.0.0',
  name: 'azure',
  type: 'azure-vnet',
  executionMode: 'v4swift',
  capabilities: { portMappings: true, dns: true },
  ipam: { type: 'azure-cns' },
  dns: { Nameservers: ['10.0.0.10', '168.63.129.16'], Search: ['svc.cluster.local'] },
  AdditionalArgs: [
    {
      Name: 'EndpointPolicy',
      Value: { Type: 'OutBoundNAT', ExceptionList: ['10.240.0.0/16', '10.0.0.0/8'] },
    },
    { Name: 'EndpointPolicy', Value: { Type: 'ROUTE', DestinationPrefix: '10.0.0.0/8', NeedEncap: true } },
  ],
  windowsSettings: { hnsTimeoutDurationInSeconds: 120 },
};

export interface Call {
  readonly command: string;
  readonly id: string;
  readonly netns: string;
  readonly conf?: string;
  readonly ifName?: string;
  readonly args?: string;
  readonly cwd?: string;
  readonly plugin?: string;
}

/** The CNI_ARGS containerd passes for pod `name` in `namespace`. */
export function podArgs(name = 'web', namespace = 'default', id = ''): string {
  return `IgnoreUnknown=1;K8S_POD_NAMESPACE=${namespace};K8S_POD_NAME=${name};K8S_POD_INFRA_CONTAINER_ID=${id}`;
}

/** One azure-vnet invocation as a runtime execs the binary. */
export function vnet(host: Host, c: Call): Promise<ExecOutput> {
  return execPlugin(host, c.plugin ?? 'azure-vnet', {
    env: {
      CNI_COMMAND: c.command,
      CNI_CONTAINERID: c.id,
      CNI_NETNS: c.netns,
      CNI_IFNAME: c.ifName ?? 'eth0',
      CNI_ARGS: c.args ?? podArgs('web', 'default', c.id),
      CNI_PATH: AZURE_CNI_BIN,
    },
    stdin: c.conf ?? aksPluginConf(),
    ...(c.cwd !== undefined ? { cwd: c.cwd } : {}),
  });
}

/** A 64-hex container ID from a short tag (the first 8 characters differ by tag). */
export function cid(tag: string): string {
  return (tag.repeat(64).replace(/[^0-9a-f]/g, 'a') + '0'.repeat(64)).slice(0, 64);
}

/** An HCN namespace for a pod, as containerd creates it before CNI ADD. */
export async function namespace(host: Host): Promise<string> {
  return (await HcnClient.forHost(host).createNamespace({})).ID;
}

/** The state files' text (undefined when absent). */
export function files(host: Host, dir = SYSTEM32): { vnet?: string; ipam?: string } {
  const v = host.files.read(`${dir}\\azure-vnet.json`);
  const i = host.files.read(`${dir}\\azure-vnet-ipam.json`);
  return { ...(v !== undefined ? { vnet: v } : {}), ...(i !== undefined ? { ipam: i } : {}) };
}

/** The IPAM's address records `{addr: {ID, InUse}}` (the file's `local` space, every pool). */
export function ipamRecords(
  host: Host,
  dir = SYSTEM32,
  file = 'azure-vnet-ipam.json',
): Record<string, { ID: string; InUse: boolean }> {
  const text = host.files.read(`${dir}\\${file}`);
  if (text === undefined) return {};
  const doc = JSON.parse(text) as {
    IPAM: {
      AddressSpaces: Record<
        string,
        { Pools: Record<string, { Addresses: Record<string, { ID: string; InUse: boolean }> }> }
      >;
    };
  };
  const out: Record<string, { ID: string; InUse: boolean }> = {};
  for (const space of Object.values(doc.IPAM.AddressSpaces)) {
    for (const pool of Object.values(space.Pools)) {
      for (const [k, r] of Object.entries(pool.Addresses)) out[k] = { ID: r.ID, InUse: r.InUse };
    }
  }
  return out;
}

/** The HNS endpoints and networks by name (as HCN lists them). */
export async function hnsView(host: Host): Promise<{ networks: string[]; endpoints: string[] }> {
  const hcn = HcnClient.forHost(host);
  return {
    networks: (await hcn.listNetworks()).map((n) => n.Name).sort(),
    endpoints: (await hcn.listEndpoints()).map((e) => e.Name).sort(),
  };
}

/**
 * The pod endpoints as HNS and azure-vnet.json each hold them: the names of network `azure`'s HNS
 * endpoints and the endpoint keys the state file records, both sorted.
 */
export async function recordedEndpoints(host: Host): Promise<{ hns: string[]; state: string[] }> {
  const hcn = HcnClient.forHost(host);
  let hns: string[] = [];
  try {
    const nw = await hcn.getNetworkByName('azure');
    hns = (await hcn.listEndpointsOfNetwork(nw.ID)).map((e) => e.Name).sort();
  } catch {
    hns = [];
  }
  const text = files(host).vnet;
  const nets = text
    ? (JSON.parse(text) as { Network: { ExternalInterfaces: unknown } }).Network.ExternalInterfaces
    : {};
  const state: string[] = [];
  for (const x of Object.values(nets ?? {}) as {
    Networks: Record<string, { Endpoints: Record<string, unknown> }>;
  }[]) {
    for (const nw of Object.values(x.Networks)) state.push(...Object.keys(nw.Endpoints));
  }
  return { hns, state: state.sort() };
}
