/**
 * The `azure-vnet` CNI plugin on Windows (Azure/azure-container-networking v1.8.12:
 * `cni/network/plugin/main.go`, `cni/network/network.go`, `cni/network/network_windows.go`,
 * `cni/network/invoker_azure.go`, `cni/plugin.go`; reference azure-cni.md §1–§4, §7, §8), in its
 * node-subnet mode: addresses from `azure-vnet-ipam`, one L2Bridge HNS network per configuration
 * name, one endpoint per pod.
 *
 * One invocation, as the binary runs: unless the command is VERSION, take the store lock (an
 * invocation on the same node and working directory waits for the one holding it; the lock file
 * `azure-vnet.lock` holds the PID) and restore `azure-vnet.json` from the working directory (a file
 * Go cannot decode: `{"code":11,"msg":"Failed to start network plugin, err:<error>.\n"}`, exit 1);
 * then skel with versions 0.1.0–1.0.0.
 *
 * - **ADD** parses the configuration (a decode error is code 100 `Failed to parse network
 *   configuration: <err>.`), checks CNI_CONTAINERID, CNI_IFNAME and `bridge` against
 *   `^[a-zA-Z0-9._\-\(\) ]*$` (`invalid args value`, `invalid network config value`: code 999),
 *   requires `K8S_POD_NAMESPACE` and `K8S_POD_NAME` in CNI_ARGS (code 100), delegates to the IPAM
 *   plugin with its re-serialized configuration (`ipam.subnet` = the recorded network's first
 *   subnet; `no available address pools` retried once after deleting `C:\k\azure-vnet-ipam.json`
 *   when `C:\k\azure-vnet.json` is absent), finds the master interface (`master`, else the first
 *   interface with an address in the IPAM subnet), builds the endpoint's DNS (§4.3) and policies
 *   (§3: `AdditionalArgs`, loopback DSR, `runtimeConfig.portMappings`), creates the network when
 *   the state file lacks it and the endpoint (HCN v2 for a GUID netns, HNS v1 otherwise), saves the
 *   state, and prints the IPAM-derived result at the configuration's version. A failure undoes the
 *   endpoint (saving the state) and releases the addresses.
 * - **DEL** releases by container ID when the container has no recorded endpoint; otherwise deletes
 *   each endpoint, releases its addresses and saves. Failures are code 11. The network is never
 *   deleted.
 * - **CHECK** is upstream's `Get`: the recorded endpoint's addresses, routes and DNS printed as a
 *   result; a configuration Go cannot decode panics in the deferred print (code 100, recovered).
 *
 * `windowsSettings.hnsTimeoutDurationInSeconds` times the HNS calls ACN's wrappers time, on the
 * node's clock (network.ts `timed`).
 *
 * - **GET_ENDPOINT_STATE** (what CNS runs, in `C:\k`) prints network `azure`'s endpoints as
 *   `api.AzureCNIState` (state.ts `endpointStateText`).
 *
 * - With `ipam.type: azure-cns` (Swift, Overlay) the addresses come from CNS (cns.ts; the agent is
 *   src/plugins/cns), with `multiTenancy` the pod's NC from CNS and the SNAT choice from NMAgent
 *   (`multitenantAdd`); **UPDATE** follows `NetPlugin.Update` to its end on Windows (`update`).
 *
 * Not modelled (docs/model.md "azure-vnet"): SwiftV2 NIC types, dual-NIC multitenancy, baremetal's
 * NNS agent. A lock that stays taken for
 * 60 s of the node's time ends the invocation with code 11 (`withStoreLock`).
 */
import { joinPath } from '../../core/files.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import {
  CniError,
  type CniPlugin,
  type CniResult,
  type ExecOutput,
  type PluginHost,
} from '../../cni/contracts.js';
import { delegateAdd, delegateDel } from '../../cni/invoke.js';
import { errorText, printResult } from '../../cni/result.js';
import { goCanonicalIP, ipString, netString, parseCIDRNet } from '../../cni/goip.js';
import { GoPanic } from '../../cni/gopanic.js';
import { pluginMain, type CmdArgs, type PluginContext } from '../../cni/skel.js';
import { AZURE_CNI_VERSIONS, DEFAULT_CWD } from '../azure-vnet-ipam/index.js';
import {
  copyNetworkConfig,
  endpointDnsSettings,
  parseCniArgs,
  parseNetworkConfig,
  policiesFromConfig,
  serializeNetworkConfig,
  type AcnNetworkConfig,
  type CniPolicy,
} from './conf.js';
import {
  endpointIdOf,
  constructEndpointId,
  ipNet,
  ipNetText,
  prefixLen,
  NetworkManager,
  INFRA_NIC,
  type AzureCniRelease,
  type EndpointInfo,
  type MultitenantInfo,
} from './network.js';
import { loopbackDsrPolicy, runtimePortMappings, endpointPolicy, type NatInfo } from './policy.js';
import {
  CNS_DEFAULT_URL,
  cnsInvokerAdd,
  cnsInvokerDelete,
  getNetworkContainer,
  getNetworkContainers,
  member,
  obj,
  OVERLAY_MODES,
  str,
} from './cns.js';
import { IMDS_IP, WIRESERVER_IP } from '../../host/azure.js';
import {
  emptyManager,
  endpointStateText,
  loadNetworkState,
  saveNetworkState,
  type DnsInfo,
  type IpNet,
  type RouteInfo,
} from './state.js';
import { goTimeText, LOCK_TIMEOUT_ERROR, withStoreLock } from './store.js';
import { errorMessage } from '../../core/errors.js';

export type { AzureCniRelease } from './network.js';

/** The state file's name, in the plugin's working directory. */
export const VNET_STATE_FILE = 'azure-vnet.json';
/** The store lock's name (`<plugin>.lock`). */
export const VNET_LOCK_FILE = 'azure-vnet.lock';
/** ACN `platform.CNIStateFilePath` / `CNIIpamStatePath`: the absolute paths the pool retry consults. */
export const CNI_STATE_FILE_PATH = 'C:\\k\\azure-vnet.json';
export const CNI_IPAM_STATE_PATH = 'C:\\k\\azure-vnet-ipam.json';
/** ACN `cni.CmdGetEndpointsState`, and the network whose endpoints it dumps. */
const GET_ENDPOINT_STATE = 'GET_ENDPOINT_STATE';
/** ACN `cni.CmdUpdate`. */
const UPDATE = 'UPDATE';
const AZURE_STATE_NETWORK = 'azure';
const V4_SWIFT = 'v4swift';
const AZURE_CNS = 'azure-cns';
/** The Windows build from which DNS/IMDS NAT rules apply (1903). */
const WIN_1903_BUILD = 18362;
const IPAM_V6 = 'azure-vnet-ipamv6';
const ENV_IPV6_NODE_IPAM = 'ipv6NodeIpam';
const IPV6_NAT = 'ipv6nat';
/** `allowedInput` (cni/network/network.go). */
const ALLOWED_INPUT = /^[a-zA-Z0-9._\-() ]*$/;
/** cniTypes.ErrTryAgainLater. */
const TRY_AGAIN_LATER = 11;

/** `plugin.Errorf`: a code-100 error. */
const errorf = (msg: string): CniError => new CniError(100, msg);
/** `plugin.RetriableError`: code 11 with the error's text. */
const retriable = (msg: string): CniError => new CniError(TRY_AGAIN_LATER, msg);

/**
 * `fmt.Errorf("<prefix>%w", err)` / `errors.Wrap(err, prefix)`: the text is the prefix and the
 * cause's text, and skel's `errors.As` finds a `*types.Error` inside.
 */
class Wrapped extends Error {
  constructor(
    prefix: string,
    readonly inner: unknown,
  ) {
    super(`${prefix}${errorMessage(inner)}`);
    this.name = 'Wrapped';
  }
}

/** What skel prints for a returned error: the first `*types.Error` in the chain, else the error. */
function asReturned(e: unknown): unknown {
  for (let x: unknown = e; x !== undefined; x = x instanceof Wrapped ? x.inner : undefined) {
    if (x instanceof CniError || x instanceof GoPanic) return x;
  }
  return e;
}

/** One IPAM-allocated address: `IPConfig{Address, Gateway}`. */
interface IpConfig {
  readonly address: IpNet;
  readonly gateway: string;
  readonly family: 4 | 6;
}

/** `network.InterfaceInfo` as the Azure IPAM invoker fills it. */
interface InterfaceInfo {
  readonly ipConfigs: IpConfig[];
  readonly routes: RouteInfo[];
  readonly dns: DnsInfo;
  /** The first address as the IPAM printed it (`10.240.0.5/16`). */
  readonly hostSubnetPrefix: string;
  readonly ipv6Enabled: boolean;
  /** CNS: the NC's primary IP (`NCPrimaryIPKey`), '' otherwise. */
  readonly ncPrimaryIp?: string;
}

/** An `ip/len` text as `types.ParseCIDR` keeps it: the address itself and a mask of its family's length. */
function ipNetOfCidr(cidr: string): { net: IpNet; family: 4 | 6 } {
  const [ip = '', len = '0'] = cidr.split('/');
  const family = ip.includes(':') ? 6 : 4;
  return { net: ipNet(goCanonicalIP(ip) ?? ip, Number(len), family), family };
}

function routeInfo(dst: string, gw: string): RouteInfo {
  return {
    Dst: ipNetOfCidr(dst).net,
    Src: '',
    Gw: gw,
    Protocol: 0,
    DevName: '',
    Scope: 0,
    Priority: 0,
    Table: 0,
  };
}

/**
 * `getNATInfo`: Swift (`executionMode: v4swift`, not Overlay) NATs the wireserver to the NC's primary
 * IP and IMDS to the node's; applied only from build 1903 (`hcnEndpointPolicies`).
 */
function natInfo(c: AcnNetworkConfig, ncPrimaryIp: string, snatForDns: boolean): NatInfo[] {
  if (c.executionMode === V4_SWIFT && !OVERLAY_MODES.has(c.ipam.mode))
    return [
      { virtualIp: ncPrimaryIp, destinations: [WIRESERVER_IP] },
      { virtualIp: '', destinations: [IMDS_IP] },
    ];
  // multitenancy with SNAT for DNS: the wireserver NATed
  if (c.multiTenancy && snatForDns) return [{ virtualIp: '', destinations: [WIRESERVER_IP] }];
  return [];
}

/** `GetPodNameWithoutSuffix`: a deployment pod's name without its two generated parts. */
export function podNameWithoutSuffix(name: string): string {
  const parts = name.split('-');
  return parts.length > 2 ? parts.slice(0, -2).join('-') : name;
}

/** NMAgent's `GetSupportedApis` on the wireserver, as `buildNmAgentSupportedApisURL` writes it. */
const NMAGENT_SUPPORTED_APIS_URL = `http://${WIRESERVER_IP}/machine/plugins/?comp=nmagent&type=GetSupportedApis`;
const NMAGENT_SNAT_SUPPORT = 'NetworkManagementSnatSupport';
const NMAGENT_DNS_SUPPORT = 'NetworkManagementDNSSupport';

/** `getNetworkName` for a multitenant NC: `<name>-vlan<ID>-<masked CIDR, . → -, / → _>`. */
export function multitenantNetworkName(name: string, vlan: number, ip: string, len: number): string {
  const n = parseCIDRNet(`${ip}/${len}`);
  if (!n)
    throw new Error(
      `cns returned invalid CIDR ${ip}/${len}: netip.ParsePrefix("${ip}/${len}"): bad IP address`,
    );
  return `${name}-vlan${vlan}-${netString(n).replaceAll('.', '-').replaceAll('/', '_')}`;
}

/** One process of the plugin: its network manager over the state file. */
class VnetProcess {
  readonly mgr: NetworkManager;
  private others = new Map<string, string>();

  constructor(
    private readonly host: PluginHost,
    private readonly path: string,
    release: AzureCniRelease,
  ) {
    this.mgr = new NetworkManager(host, emptyManager(release), release, host.profile.build >= WIN_1903_BUILD);
  }

  /** `nm.restore`: throws Go's error for a file it cannot decode. */
  restore(): void {
    const loaded = loadNetworkState(this.host.files, this.path, this.mgr.nm.Version);
    this.others = loaded.others;
    Object.assign(this.mgr.nm, loaded.nm);
  }

  private dirty = false;

  /**
   * `nm.save()`: the manager as it is now becomes the file's content. Nothing changes the manager
   * after an invocation's last save, and the store lock keeps every other invocation from reading
   * the file before this one ends: it is written once, then (`flush`).
   */
  save(): void {
    this.mgr.nm.TimeStamp = goTimeText(this.host.clock.now());
    this.dirty = true;
  }

  /** Write the state file if a save asked for it. */
  flush(): void {
    if (!this.dirty) return;
    this.dirty = false;
    saveNetworkState(this.host.files, this.path, this.mgr.nm, this.others);
  }

  /** `validateArgs`. */
  private validateArgs(args: CmdArgs, c: AcnNetworkConfig): void {
    if (!ALLOWED_INPUT.test(args.containerID) || !ALLOWED_INPUT.test(args.ifName)) {
      throw new Error('invalid args value');
    }
    if (!ALLOWED_INPUT.test(c.bridge)) throw new Error('invalid network config value');
  }

  /** `getPodInfo`. */
  private podInfo(args: CmdArgs): { name: string; namespace: string } {
    const pod = parseCniArgs(args.args);
    if (pod.podNamespace === '') throw errorf('Pod Namespace not specified in CNI Args');
    if (pod.podName === '') throw errorf('Pod Name not specified in CNI Args');
    return { name: pod.podName, namespace: pod.podNamespace };
  }

  /** The recorded network's subnets (`GetNetworkInfo(...).Subnets`), none when it is not recorded. */
  private recordedSubnets(networkId: string): IpNet[] {
    return (this.mgr.getNetwork(networkId)?.nw.Subnets ?? []).map((s) => s.Prefix);
  }

  /** `CNSIPAMInvoker.Add`: the InfraNIC's addresses from CNS (`cnsurl`, default localhost:10090). */
  private cnsAdd(
    args: CmdArgs,
    c: AcnNetworkConfig,
    pod: { name: string; namespace: string },
  ): InterfaceInfo {
    const r = cnsInvokerAdd(
      this.host,
      c.cnsurl !== '' ? c.cnsurl : CNS_DEFAULT_URL,
      {
        podName: pod.name,
        podNamespace: pod.namespace,
        podInterfaceId: constructEndpointId(args.containerID, args.netns, args.ifName),
        containerId: args.containerID,
      },
      c.ipam.mode,
    );
    return {
      ipConfigs: r.ipConfigs.map((ip) => ({
        address: ipNet(ip.ip, ip.len, ip.family),
        gateway: ip.gateway,
        family: ip.family,
      })),
      routes: r.routes.map((x) => routeInfo(x.dst, x.gw)),
      dns: { Suffix: '', Servers: null, Options: null },
      hostSubnetPrefix: r.hostSubnet,
      ipv6Enabled: r.ipv6Enabled,
      ncPrimaryIp: r.ncPrimaryIp,
    };
  }

  /** `CNSIPAMInvoker.Delete` for this invocation's pod interface. */
  private cnsDelete(args: CmdArgs, c: AcnNetworkConfig, address: IpNet | null): void {
    let pod = { podName: '', podNamespace: '' };
    try {
      const p = this.podInfo(args);
      pod = { podName: p.name, podNamespace: p.namespace };
    } catch {
      // DEL goes on without them
    }
    cnsInvokerDelete(
      this.host,
      {
        ...pod,
        podInterfaceId: constructEndpointId(args.containerID, args.netns, args.ifName),
        containerId: args.containerID,
      },
      address === null ? null : address.IP,
      c.disableAsyncDelete,
    );
  }

  /**
   * `DetermineSnatFeatureOnHost`: the cached `%TEMP%\snatConfig` if it decodes (upstream writes the
   * cache as `snatConfig.json`, so it is never found), else NMAgent's supported APIs from the
   * wireserver — no `NetworkManagementDNSSupport`: SNAT for DNS, and SNAT on the host unless
   * `NetworkManagementSnatSupport` — written to `%TEMP%\snatConfig.json`.
   */
  private snatFeatures(ctx: PluginContext): { snatForDns: boolean; snatOnHost: boolean } {
    const temp = ctx.env['TEMP'] ?? '';
    const cached = this.host.files.read(`${temp}\\snatConfig`);
    if (cached !== undefined) {
      try {
        const v = JSON.parse(cached) as { EnableSnatOnHost?: boolean; EnableSnatForDns?: boolean };
        return { snatForDns: v.EnableSnatForDns === true, snatOnHost: v.EnableSnatOnHost === true };
      } catch {
        // logged; NMAgent is asked
      }
    }
    if (!this.host.httpRequest) throw new Error(`Get "${NMAGENT_SUPPORTED_APIS_URL}": no route`);
    const r = this.host.httpRequest('GET', NMAGENT_SUPPORTED_APIS_URL);
    if (r.status !== 200) throw new Error(`nmagent request status code:${r.status}`);
    const dns = r.body.includes(NMAGENT_DNS_SUPPORT);
    const out = { snatForDns: !dns, snatOnHost: !dns && !r.body.includes(NMAGENT_SNAT_SUPPORT) };
    this.host.files.write(
      `${temp}\\snatConfig.json`,
      JSON.stringify({ EnableSnatOnHost: out.snatOnHost, EnableSnatForDns: out.snatForDns }),
    );
    return out;
  }

  /**
   * The multitenant ADD's CNS part (`GetAllNetworkContainers`): the pod's one NC — its address
   * and gateway, its routes and cnet routes, the host subnet of the interface holding its
   * `PrimaryInterfaceIdentifier`, and the network name with its VLAN.
   */
  private multitenantAdd(
    ctx: PluginContext,
    c: AcnNetworkConfig,
    pod: { name: string; namespace: string },
  ): { ifInfo: InterfaceInfo; mt: MultitenantInfo; networkId: string } {
    let snat: { snatForDns: boolean; snatOnHost: boolean };
    try {
      snat = this.snatFeatures(ctx);
    } catch (e) {
      throw new Error(errorMessage(e));
    }
    c.enableSnatOnHost = snat.snatOnHost;
    const podName = c.enableExactMatchForPodName ? pod.name : podNameWithoutSuffix(pod.name);
    let ncs;
    try {
      ncs = getNetworkContainers(
        this.host,
        c.cnsurl !== '' ? c.cnsurl : CNS_DEFAULT_URL,
        podName,
        pod.namespace,
      );
      if (ncs.length > 1)
        throw new Error('dual-NIC multitenancy (several NCs for a pod) is not modelled by hnsim');
      if (ncs.length === 0) throw new Error('no network container for the pod');
    } catch (e) {
      throw new Error(
        `GetAllNetworkContainers failed for podname ${pod.name} namespace ${pod.namespace}. error: ${errorMessage(e)}`,
      );
    }
    const nc = ncs[0]!;
    // the NC as Go decodes it (keys case-insensitive)
    const ipc = obj(nc, 'IPConfiguration');
    const ip = str(obj(ipc, 'IPSubnet'), 'IPAddress');
    const len = Number(member(obj(ipc, 'IPSubnet') ?? {}, 'PrefixLength') ?? 0);
    const gateway = str(ipc, 'GatewayIPAddress');
    const identifier = str(nc, 'PrimaryInterfaceIdentifier');
    let hostSubnet = '';
    for (const iface of this.host.interfaces?.() ?? []) {
      for (const a of iface.addrs ?? []) if (a.split('/')[0] === identifier) hostSubnet ||= a;
    }
    if (hostSubnet === '')
      throw new Error(
        `GetAllNetworkContainers failed for podname ${pod.name} namespace ${pod.namespace}. error: Interface not found for this ip`,
      );
    if (snat.snatOnHost && str(obj(obj(nc, 'LocalIPConfiguration'), 'IPSubnet'), 'IPAddress') === '')
      throw new Error(
        `GetAllNetworkContainers failed for podname ${pod.name} namespace ${pod.namespace}. error: Snat IP not populated`,
      );
    const list = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter(isJsonObject) : []);
    const cnet = list(member(nc, 'CnetAddressSpace')).map(
      (x) => `${str(x, 'IPAddress')}/${String(member(x, 'PrefixLength'))}`,
    );
    const routes = [
      ...list(member(nc, 'Routes')).map((r) => routeInfo(str(r, 'IPAddress'), str(r, 'GatewayIPAddress'))),
      ...cnet.map((x) => routeInfo(x, gateway)),
    ];
    const vlanId = Number(member(obj(nc, 'MultiTenancyInfo') ?? {}, 'ID') ?? 0);
    return {
      ifInfo: {
        ipConfigs: [{ address: ipNet(ip, len, 4), gateway, family: 4 }],
        routes,
        dns: { Suffix: '', Servers: null, Options: null },
        hostSubnetPrefix: hostSubnet,
        ipv6Enabled: false,
      },
      mt: {
        vlanId,
        networkContainerId: str(nc, 'NetworkContainerID'),
        cnetAddressSpace: cnet,
        primaryInterfaceIp: identifier,
        enableSnatForDns: snat.snatForDns,
      },
      networkId: multitenantNetworkName(c.name, vlanId, ip, len),
    };
  }

  /** `AzureIPAMInvoker.Add`. */
  private async ipamAdd(ctx: PluginContext, c: AcnNetworkConfig): Promise<InterfaceInfo> {
    const subnets = this.recordedSubnets(c.name);
    if (subnets.length > 0) c.ipam.subnet = ipNetText(subnets[0]!);
    const delegate = async (conf: AcnNetworkConfig): Promise<CniResult> => {
      try {
        return await delegateAdd(ctx, conf.ipam.type, serializeNetworkConfig(conf));
      } catch (e) {
        throw new Error(`Failed to delegate: ${errorMessage(e)}`);
      }
    };
    let result: CniResult;
    try {
      try {
        result = await delegate(c);
      } catch (e) {
        if (!errorMessage(e).includes('no available address pools')) throw e;
        this.deleteIpamState();
        result = await delegate(c);
      }
    } catch (e) {
      throw errorf(`Failed to allocate pool: ${errorMessage(e)}`);
    }
    let ips = [...(result.ips ?? [])];
    let routes = [...(result.routes ?? [])];
    let v6Error: CniError | undefined;
    let ipv6Enabled = false;
    if (c.ipv6Mode !== '') {
      const c6 = copyNetworkConfig(c);
      c6.ipam.environment = ENV_IPV6_NODE_IPAM;
      c6.ipam.type = IPAM_V6;
      if (subnets.length > 1) c6.ipam.subnet = ipNetText(subnets[1]!);
      try {
        const r6 = await delegate(c6);
        ips = [...ips, ...(r6.ips ?? [])];
        routes = [...routes, ...(r6.routes ?? [])];
        ipv6Enabled = true;
      } catch (e) {
        v6Error = errorf(`Failed to allocate v6 pool: ${errorMessage(e)}`);
      }
    }
    const ipConfigs = ips.map((ip) => {
      const { net, family } = ipNetOfCidr(ip.address);
      return { address: net, gateway: ip.gateway ?? '', family };
    });
    if (v6Error) {
      // the deferred cleanup releases the first address; the Add error stands
      if (ipConfigs.length > 0) await this.ipamDelete(ctx, c, ipConfigs[0]!.address).catch(() => undefined);
      throw v6Error;
    }
    return {
      ipConfigs,
      routes: routes.map((r) => routeInfo(r.dst, r.gw ?? '')),
      dns: {
        Suffix: result.dns?.domain ?? '',
        Servers: result.dns?.nameservers ? [...result.dns.nameservers] : null,
        Options: null,
      },
      hostSubnetPrefix: ips[0]?.address ?? '',
      ipv6Enabled,
    };
  }

  /** `deleteIpamState`: only when `C:\k\azure-vnet.json` is absent, remove `C:\k\azure-vnet-ipam.json`. */
  private deleteIpamState(): void {
    const files = this.host.files;
    if (files.exists(CNI_STATE_FILE_PATH)) return;
    if (files.exists(CNI_IPAM_STATE_PATH)) files.remove(CNI_IPAM_STATE_PATH);
  }

  /** `AzureIPAMInvoker.Delete(address, nwCfg)`: release one address, or (null) the container's. */
  private async ipamDelete(ctx: PluginContext, c: AcnNetworkConfig, address: IpNet | null): Promise<void> {
    const subnets = this.recordedSubnets(c.name);
    if (subnets.length > 0) c.ipam.subnet = ipNetText(subnets[0]!);
    const del = async (conf: AcnNetworkConfig): Promise<void> => {
      try {
        await delegateDel(ctx, conf.ipam.type, serializeNetworkConfig(conf));
      } catch (e) {
        throw new Error(`Failed to delegate: ${errorMessage(e)}`);
      }
    };
    if (address === null) {
      try {
        await del(c);
      } catch (e) {
        throw errorf(`Attempted to release address with error:  ${errorMessage(e)}`);
      }
      return;
    }
    if (!address.IP.includes(':')) {
      c.ipam.ipAddress = address.IP;
      try {
        await del(c);
      } catch (e) {
        throw errorf(`Failed to release ipv4 address: ${errorMessage(e)}`);
      }
      return;
    }
    const c6 = copyNetworkConfig(c);
    c6.ipam.environment = ENV_IPV6_NODE_IPAM;
    c6.ipam.type = IPAM_V6;
    c6.ipam.ipAddress = address.IP;
    const recorded = this.mgr.getNetwork(c.name)?.nw.Subnets ?? [];
    if (recorded.length > 1) {
      const v6 = recorded.find((s) => s.Prefix.IP.includes(':'));
      if (v6) c6.ipam.subnet = ipNetText(v6.Prefix);
    }
    try {
      await del(c6);
    } catch (e) {
      throw errorf(`Failed to release ipv6 address: ${errorMessage(e)}`);
    }
  }

  /** `findMasterInterfaceBySubnet`: `master`, else the first interface with an address in the subnet. */
  private masterInterface(c: AcnNetworkConfig, subnet: string): string {
    if (c.master !== '') return c.master;
    for (const iface of this.host.interfaces?.() ?? []) {
      for (const addr of iface.addrs ?? []) {
        const n = parseCIDRNet(addr);
        if (n && netString(n) === subnet) return iface.name;
      }
    }
    return '';
  }

  /** `createEpInfo` for the node-subnet InfraNIC. */
  private endpointInfo(
    args: CmdArgs,
    c: AcnNetworkConfig,
    pod: { name: string; namespace: string },
    ifInfo: InterfaceInfo,
    policies: readonly CniPolicy[],
  ): EndpointInfo {
    const hostSubnet = netString(parseCIDRNet(ifInfo.hostSubnetPrefix));
    c.ipam.subnet = hostSubnet;
    const master = this.masterInterface(c, hostSubnet);
    if (master === '') throw errorf('Failed to find the master interface');
    let dns: DnsInfo;
    try {
      dns = endpointDnsSettings(c, ifInfo.dns, pod.namespace);
    } catch (e) {
      throw errorf(`Failed to getEndpointDNSSettings: ${errorMessage(e)}`);
    }
    const subnets = ifInfo.ipConfigs.map((ip) => {
      const masked = parseCIDRNet(ipNetText(ip.address));
      const prefix = ipNet(masked ? ipString(masked.ip) : '', prefixLen(ip.address), ip.family);
      return { Family: ip.family === 4 ? 2 : 10, Prefix: prefix, Gateway: ip.gateway, PrimaryIP: '' };
    });
    const own: CniPolicy[] = [];
    if (c.ipv6Mode === IPV6_NAT) {
      if (subnets.length < 2)
        throw new Error("failed to get ipv6 endpoint policy: network state doesn't have ipv6 subnet");
      own.push(endpointPolicy({ Type: 'OutBoundNAT', ExceptionList: [ipNetText(subnets[1]!.Prefix)] }));
    }
    if (c.windowsSettings.enableLoopbackDSR) {
      for (const ip of ifInfo.ipConfigs) if (ip.family === 4) own.push(loopbackDsrPolicy(ip.address.IP));
    }
    let runtime: CniPolicy[];
    try {
      runtime = runtimePortMappings(c.runtimeConfig.portMappings, ifInfo.ipv6Enabled);
    } catch (e) {
      throw errorf(errorMessage(e));
    }
    return {
      networkId: c.name,
      mode: c.mode,
      masterIfName: master,
      adapterName: c.adapterName,
      netNs: args.netns,
      endpointId: endpointIdOf(args.containerID, args.ifName),
      containerId: args.containerID,
      ifName: args.ifName,
      dns,
      podName: pod.name,
      podNamespace: pod.namespace,
      ipAddresses: ifInfo.ipConfigs.map((ip) => ip.address),
      routes: ifInfo.routes,
      subnets,
      hostSubnetPrefix: hostSubnet,
      networkPolicies: [...policies],
      endpointPolicies: [...policies, ...own, ...runtime],
      natInfo: natInfo(c, ifInfo.ncPrimaryIp ?? '', false),
      enableSnatOnHost: c.enableSnatOnHost,
      hnsNetworkId: '',
    };
  }

  /** Modes this model does not run: the error their missing service gives. */
  private unsupported(c: AcnNetworkConfig): void {
    if (c.executionMode === 'baremetal') {
      throw new Error(
        'baremetal mode needs the node network service (NNS) agent, which hnsim does not model',
      );
    }
  }

  /** `NetPlugin.Add`. */
  async add(args: CmdArgs, ctx: PluginContext): Promise<void> {
    let c: AcnNetworkConfig;
    try {
      c = parseNetworkConfig(args.stdinData);
    } catch (e) {
      throw errorf(`Failed to parse network configuration: ${errorMessage(e)}.`);
    }
    this.validateArgs(args, c);
    const pod = this.podInfo(args);
    if (args.containerID === '') throw errorf('Container ID not specified in CNI Args');
    if (args.ifName === '') throw errorf('Interfacename not specified in CNI Args');
    this.mgr.hnsTimeoutSeconds = c.windowsSettings.hnsTimeoutDurationInSeconds;
    this.unsupported(c);
    let ifInfo: InterfaceInfo;
    let multitenant: { mt: MultitenantInfo; networkId: string } | undefined;
    const cns = c.ipam.type === AZURE_CNS;
    if (c.multiTenancy) {
      const r = this.multitenantAdd(ctx, c, pod);
      ifInfo = r.ifInfo;
      multitenant = r;
    } else {
      try {
        ifInfo = cns ? this.cnsAdd(args, c, pod) : await this.ipamAdd(ctx, c);
      } catch (e) {
        throw new Wrapped(
          'IPAM Invoker Add failed with error: ',
          new Wrapped('failed to add ipam invoker: ', e),
        );
      }
    }
    const policies = policiesFromConfig(c.AdditionalArgs);
    let info: EndpointInfo | undefined;
    try {
      info = this.endpointInfo(args, c, pod, ifInfo, policies);
      if (multitenant) {
        info.networkId = multitenant.networkId;
        info.multitenancy = multitenant.mt;
        // SetupRoutingForMultitenancy: without SNAT on the host, a default route via the NC gateway
        if (!c.enableSnatOnHost)
          info.routes = [...info.routes, routeInfo('0.0.0.0/0', ifInfo.ipConfigs[0]!.gateway)];
        info.natInfo = natInfo(c, ifInfo.ncPrimaryIp ?? '', multitenant.mt.enableSnatForDns);
      }
      try {
        if (!this.mgr.getNetwork(info.networkId)) {
          this.mgr.addExternalInterface(info.masterIfName, info.hostSubnetPrefix);
          await this.mgr.createNetwork(info);
        }
        await this.mgr.createEndpoint(info);
        this.save();
      } catch (e) {
        // delete the endpoint, then save (DeleteState); a delete error ends the cleanup there
        try {
          await this.mgr.deleteEndpoint(info.networkId, info.endpointId);
          this.save();
        } catch {
          // logged upstream
        }
        throw new Wrapped('failed to create endpoint: ', e);
      }
    } catch (e) {
      // multitenancy: CNI does not release CNS's addresses
      for (const ip of c.multiTenancy ? [] : ifInfo.ipConfigs) {
        if (cns) {
          try {
            this.cnsDelete(args, c, ip.address);
          } catch {
            // logged upstream
          }
        } else await this.ipamDelete(ctx, c, ip.address).catch(() => undefined);
      }
      throw e;
    }
    const result: CniResult = {
      cniVersion: '1.0.0',
      interfaces: [{ name: args.ifName }],
      ips: ifInfo.ipConfigs.map((ip) => ({
        address: ipNetText(ip.address),
        ...(ip.gateway !== '' ? { gateway: ip.gateway } : {}),
      })),
      ...(ifInfo.ipConfigs.length > 0 && ifInfo.routes.length > 0
        ? {
            routes: ifInfo.routes.map((r) => ({
              dst: ipNetText(r.Dst),
              ...(r.Gw !== '' ? { gw: r.Gw } : {}),
            })),
          }
        : {}),
      dns: {
        ...(ifInfo.dns.Servers && ifInfo.dns.Servers.length > 0 ? { nameservers: ifInfo.dns.Servers } : {}),
        ...(ifInfo.dns.Suffix !== '' ? { domain: ifInfo.dns.Suffix } : {}),
      },
    };
    printResult(ctx.stdout, result, c.cniVersion);
  }

  /** `NetPlugin.Delete`. */
  async del(args: CmdArgs, ctx: PluginContext): Promise<void> {
    let c: AcnNetworkConfig;
    try {
      c = parseNetworkConfig(args.stdinData);
    } catch (e) {
      throw errorf(`[cni-net] Failed to parse network configuration: ${errorMessage(e)}`);
    }
    this.validateArgs(args, c);
    try {
      this.podInfo(args);
    } catch {
      // only logged on DEL
    }
    this.mgr.hnsTimeoutSeconds = c.windowsSettings.hnsTimeoutDurationInSeconds;
    if (c.executionMode === 'baremetal') this.unsupported(c);
    const eps = this.mgr.endpointsOfContainer(args.containerID);
    if (eps.length === 0) {
      if (!c.multiTenancy) {
        try {
          if (c.ipam.type === AZURE_CNS) this.cnsDelete(args, c, null);
          else await this.ipamDelete(ctx, c, null);
        } catch (e) {
          throw retriable(`failed to release address(no endpoint): ${errorMessage(e)}`);
        }
      }
      return;
    }
    for (const { networkId, ep } of eps) {
      try {
        await this.mgr.deleteEndpoint(networkId, ep.Id);
      } catch (e) {
        throw retriable(`failed to delete endpoint: ${errorMessage(e)}`);
      }
    }
    for (const { ep } of eps) {
      if (c.multiTenancy || !(ep.NICType === INFRA_NIC || ep.NICType === '')) continue;
      for (const addr of ep.IPAddresses ?? []) {
        try {
          if (c.ipam.type === AZURE_CNS) this.cnsDelete(args, c, addr);
          else await this.ipamDelete(ctx, c, addr);
        } catch (e) {
          throw retriable(`failed to release address: ${errorMessage(e)}`);
        }
      }
    }
    try {
      this.save();
    } catch (e) {
      throw retriable(`failed to delete state: ${errorMessage(e)}`);
    }
  }

  /**
   * The non-standard `UPDATE` (`HandleIfCniUpdate` → `NetPlugin.Update`): find the pod's endpoint
   * (`enableExactMatchForPodName`, else the recorded pod name without its two generated parts
   * must be the given one), ask CNS for its NC (`GetNetworkContainer`), and update the endpoint —
   * which on Windows (`updateEndpointImpl` returns no endpoint) dereferences nil: the deferred
   * print writes an empty result at the configuration's version and the process exits 1, the state
   * untouched. Any error before that is only logged: nothing printed, exit 0.
   */
  update(env: Readonly<Record<string, string | undefined>>, stdinData: string | Uint8Array): ExecOutput {
    const stdin = typeof stdinData === 'string' ? stdinData : new TextDecoder().decode(stdinData);
    const quiet: ExecOutput = { exitCode: 0, stdout: '', stderr: '' };
    try {
      const name = (JSON.parse(stdin) as { name?: unknown }).name;
      if (typeof name !== 'string' || name === '') return quiet;
    } catch {
      return quiet;
    }
    let c: AcnNetworkConfig;
    try {
      c = parseNetworkConfig(stdin);
    } catch {
      return quiet;
    }
    // validateArgs, then the pod's name and namespace (failures are logged, nothing printed)
    const containerId = env['CNI_CONTAINERID'] ?? '';
    const ifName = env['CNI_IFNAME'] ?? '';
    if (!ALLOWED_INPUT.test(containerId) || !ALLOWED_INPUT.test(ifName) || !ALLOWED_INPUT.test(c.bridge))
      return quiet;
    let pod: { name: string; namespace: string };
    try {
      const p = parseCniArgs(env['CNI_ARGS'] ?? '');
      if (p.podNamespace === '' || p.podName === '') return quiet;
      pod = { name: p.podName, namespace: p.podNamespace };
    } catch {
      return quiet;
    }
    const nw = this.mgr.getNetwork(c.name)?.nw;
    if (!nw) return quiet;
    const matches = [...(nw.Endpoints?.values() ?? [])].filter(
      (ep) =>
        (c.enableExactMatchForPodName
          ? ep.PODName === pod.name
          : podNameWithoutSuffix(ep.PODName) === pod.name) && ep.PODNameSpace === pod.namespace,
    );
    if (matches.length !== 1) return quiet;
    try {
      getNetworkContainer(this.host, c.cnsurl !== '' ? c.cnsurl : CNS_DEFAULT_URL, pod.name, pod.namespace);
    } catch {
      return quiet;
    }
    // nm.UpdateEndpoint → updateEndpointImpl (nil, nil) → ep.Routes on nil: a panic; the deferred
    // print runs first, then main's recover exits 1
    const out = {
      text: '',
      write(t: string) {
        this.text += t;
      },
    };
    try {
      printResult(out, { cniVersion: '1.0.0', dns: {} }, c.cniVersion);
    } catch {
      // GetAsVersion failed: only logged (plugin.Error), nothing printed
    }
    return { exitCode: 1, stdout: out.text, stderr: '' };
  }

  /** `NetPlugin.Get` (CNI CHECK). */
  async get(args: CmdArgs, ctx: PluginContext): Promise<void> {
    let c: AcnNetworkConfig;
    try {
      c = parseNetworkConfig(args.stdinData);
    } catch {
      // the deferred print reads nwCfg.CNIVersion through the nil config
      throw new GoPanic('invalid memory address or nil pointer dereference', true);
    }
    this.validateArgs(args, c);
    const found = this.mgr.getNetwork(c.name);
    if (!found) throw new Error('Network not found');
    const ep = found.nw.Endpoints?.get(constructEndpointId(args.containerID, args.netns, args.ifName));
    if (!ep) throw new Error('Endpoint not found');
    const gateway = ep.Gateways?.[0];
    const result: CniResult = {
      cniVersion: '1.0.0',
      interfaces: [{ name: args.ifName }],
      ips: (ep.IPAddresses ?? []).map((a) => ({
        interface: 0,
        address: ipNetText(a),
        ...(gateway ? { gateway } : {}),
      })),
      ...((ep.Routes ?? []).length > 0
        ? { routes: ep.Routes!.map((r) => ({ dst: ipNetText(r.Dst), ...(r.Gw !== '' ? { gw: r.Gw } : {}) })) }
        : {}),
      dns: {
        ...(ep.DNS.Servers && ep.DNS.Servers.length > 0 ? { nameservers: ep.DNS.Servers } : {}),
        ...(ep.DNS.Suffix !== '' ? { domain: ep.DNS.Suffix } : {}),
      },
    };
    printResult(ctx.stdout, result, c.cniVersion);
    return Promise.resolve();
  }
}

/**
 * ACN's `Execute`: a panic in a command is recovered and printed as a code-100 error whose message
 * is the panic's value and whose details are the goroutine's stack (abridged here).
 */
function recovering(fn: (args: CmdArgs, ctx: PluginContext) => Promise<void>) {
  return async (args: CmdArgs, ctx: PluginContext): Promise<void> => {
    try {
      await fn(args, ctx);
    } catch (e) {
      const r = asReturned(e);
      if (r instanceof GoPanic) {
        throw new CniError(
          100,
          r.message,
          'goroutine 1 [running]:\ngithub.com/Azure/azure-container-networking/cni.(*Plugin).Execute.func1()',
        );
      }
      throw r;
    }
  };
}

/** Options of the simulated binary. */
export interface AzureVnetOptions {
  /**
   * The upstream release whose behaviour the plugin follows: `v1.8.12` (default; the network is
   * always L2Bridge) or `v1.5.50` (the v1.5 line: `mode` bridge → L2Bridge, tunnel or empty →
   * L2Tunnel, anything else `Network mode is invalid`).
   */
  readonly release?: AzureCniRelease;
}

/** An azure-vnet binary of the given release. */
export function createAzureVnet(options: AzureVnetOptions = {}): CniPlugin {
  const release = options.release ?? 'v1.8.12';
  if (release !== 'v1.8.12' && release !== 'v1.5.50') {
    throw new TypeError(`azure-vnet release must be v1.8.12 or v1.5.50, not ${String(release)}`);
  }
  return {
    type: 'azure-vnet',
    async exec(host, request, depth = 0): Promise<ExecOutput> {
      const cwd = request.cwd ?? DEFAULT_CWD;
      const skeleton = (proc: VnetProcess): CniPlugin =>
        pluginMain(
          'azure-vnet',
          {
            add: recovering((a, c) => proc.add(a, c)),
            del: recovering((a, c) => proc.del(a, c)),
            check: recovering((a, c) => proc.get(a, c)),
          },
          AZURE_CNI_VERSIONS,
          release,
        );
      const proc = new VnetProcess(host, joinPath(cwd, VNET_STATE_FILE), release);
      if (request.env['CNI_COMMAND'] === 'VERSION') return skeleton(proc).exec(host, request, depth);
      // main.go: a lock that times out is printed as a code-11 error (PrintCNIError), exit 1
      const lockTimedOut = (): ExecOutput => ({
        exitCode: 1,
        stdout: errorText(
          new CniError(
            TRY_AGAIN_LATER,
            `Failed to initialize key-value store of network plugin: ${LOCK_TIMEOUT_ERROR}`,
          ),
        ),
        stderr: '',
      });
      return withStoreLock(
        host.files,
        host.clock,
        joinPath(cwd, VNET_LOCK_FILE),
        async () => {
          try {
            proc.restore();
          } catch (e) {
            const err = new CniError(
              TRY_AGAIN_LATER,
              `Failed to start network plugin, err:${errorMessage(e)}.\n`,
            );
            return { exitCode: 1, stdout: errorText(err), stderr: '' };
          }
          // main.go: UPDATE is handled before skel (network/common.go HandleIfCniUpdate)
          if (request.env['CNI_COMMAND'] === UPDATE) return proc.update(request.env, request.stdin);
          // main.go: the state dump CNS asks for (network "azure"), before skel
          if (request.env['CNI_COMMAND'] === GET_ENDPOINT_STATE) {
            const text = endpointStateText(proc.mgr.nm, AZURE_STATE_NETWORK);
            return text === undefined
              ? { exitCode: 1, stdout: '', stderr: '' }
              : { exitCode: 0, stdout: text, stderr: '' };
          }
          return skeleton(proc)
            .exec(host, request, depth)
            .finally(() => proc.flush());
        },
        lockTimedOut,
      );
    },
  };
}

/** The azure-vnet plugin (today's release). */
export const azureVnet: CniPlugin = createAzureVnet();
