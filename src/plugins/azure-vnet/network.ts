/**
 * azure-vnet's network manager on Windows (ACN v1.8.12 `network/manager.go`, `network/network.go`,
 * `network/network_windows.go`, `network/endpoint.go`, `network/endpoint_windows.go`; reference
 * azure-cni.md §1.3, §2.3–§2.6, §2.8): the networks and endpoints `azure-vnet.json` records, and the
 * HNS calls behind them.
 *
 * - **HNS v1 or HCN v2** is chosen per operation from a netns: a GUID (Go's `uuid.Parse`) means
 *   HCN v2, which must then be supported (`V2ApiSupported`); anything else (`none`,
 *   `container:<id>`) means HNS v1.
 * - **Network** (only when the state file lacks it): v2 looks it up by name and reuses it, else
 *   creates `{Name, Type: L2Bridge, Ipams:[{Type: Static, Subnets:[{IpAddressPrefix, Routes:[0/0 via
 *   gw]}]}], Flags: EnableNonPersistent, Policies:[NetAdapterName]}` (the adapter policy only when
 *   `adapterName` is set or the master is not a `vEthernet…` interface); v1 always POSTs
 *   `{Name, Type: l2bridge, NetworkAdapterName, Policies, Subnets}`. The v1.5 line chooses the type
 *   from `mode` instead (bridge → L2Bridge, tunnel → L2Tunnel, else `Network mode is invalid`).
 * - **Endpoint**: v2 creates `{Name: <cid[:8]>-<ifname>, HostComputeNetwork, Dns, MacAddress: "",
 *   Policies, Routes, IpConfigurations, SchemaVersion 2.0}`, then adds it to the namespace CNI_NETNS
 *   (undoing both on failure); v1 POSTs `{Name, VirtualNetwork, DNSSuffix, DNSServerList, Policies,
 *   IPAddress, PrefixLength}` and hot-attaches it to the container (deleting it if that fails).
 * - **Delete**: v2 looks the endpoint up (not found is success), removes it from its namespace
 *   (errors ignored) and deletes it; v1 deletes and treats any error mentioning "not found" as
 *   success. An endpoint without an HNS ID is skipped. Networks are never deleted.
 */
import { parseMAC } from '../../cni/gomac.js';
import { NetworkNotFoundError, EndpointNotFoundError } from '../../api/hcn/errors.js';
import type { HostComputeEndpointDoc } from '../../api/hcn/endpoint.js';
import type { HostComputeNetworkDoc } from '../../api/hcn/network.js';
import type { PluginHost } from '../../cni/contracts.js';
import type { Json } from '../../core/json.js';
import type { HNSEndpoint, HNSNetwork } from '../../api/hnsv1/types.js';
import { goCanonicalIP } from '../../cni/goip.js';
import { hcnEndpointPolicies, v1Policies, POLICY, type NatInfo, type PolicyContext } from './policy.js';
import type { CniPolicy } from './conf.js';
import type {
  DnsInfo,
  EndpointState,
  ExternalInterface,
  IpNet,
  NetworkManagerState,
  NetworkState,
  RouteInfo,
  SubnetInfo,
} from './state.js';
import { maskLen, maskOf } from './store.js';
import { errorMessage } from '../../core/errors.js';

/** ACN `network.opModeDefault`: an empty `mode` is recorded as `tunnel`. */
export const OP_MODE_DEFAULT = 'tunnel';
const V_ETHERNET = 'vEthernet';
/** `cns.InfraNIC`. */
export const INFRA_NIC = 'InfraNIC';

/** The upstream release whose network-type rule the plugin follows (reference azure-cni.md §2.2). */
export type AzureCniRelease = 'v1.8.12' | 'v1.5.50';

/** `network.EndpointInfo`: what azure-vnet hands its network manager for one pod interface. */
export interface EndpointInfo {
  networkId: string;
  mode: string;
  masterIfName: string;
  adapterName: string;
  netNs: string;
  endpointId: string;
  containerId: string;
  ifName: string;
  dns: DnsInfo;
  podName: string;
  podNamespace: string;
  ipAddresses: IpNet[];
  routes: RouteInfo[];
  subnets: SubnetInfo[];
  /** The masked host subnet (`10.240.0.0/16`): the external interface's subnet. */
  hostSubnetPrefix: string;
  networkPolicies: CniPolicy[];
  endpointPolicies: CniPolicy[];
  natInfo: NatInfo[];
  enableSnatOnHost: boolean;
  /** Set when this ADD created or looked up the HNS network. */
  hnsNetworkId: string;
  /** Multitenancy (Swift v1): the NC CNS gave the pod (VLAN, cnet address space, …). */
  multitenancy?: MultitenantInfo;
}

/** What a multitenant ADD knows from CNS and NMAgent (`setNetworkOptions`, `setEndpointOptions`). */
export interface MultitenantInfo {
  readonly vlanId: number;
  readonly networkContainerId: string;
  /** `cnetAddressSpace` as `ip/len` texts. */
  readonly cnetAddressSpace: readonly string[];
  /** `PrimaryInterfaceIdentifier`: the ProviderAddress when no adapter is named. */
  readonly primaryInterfaceIp: string;
  readonly enableSnatForDns: boolean;
}

/** The endpoint key: `GetEndpointID` — '' for a container ID of 8 characters or fewer. */
export function endpointIdOf(containerId: string, ifName: string): string {
  return containerId.length > 8 ? `${containerId.slice(0, 8)}-${ifName}` : '';
}

/** `ConstructEndpointID`: the infrastructure endpoint name (`container:<id>` names the infra container). */
export function constructEndpointId(containerId: string, netNs: string, ifName: string): string {
  const parts = netNs.split(':');
  if (parts.length === 2) return `${parts[1]!.slice(0, 8)}-${ifName}`;
  return `${containerId.slice(0, 8)}-${ifName}`;
}

const HEX = '[0-9a-fA-F]';
const DASHED = `${HEX}{8}-${HEX}{4}-${HEX}{4}-${HEX}{4}-${HEX}{12}`;
const UUID_FORMS = [
  new RegExp(`^${DASHED}$`),
  new RegExp(`^\\{${DASHED}\\}$`),
  new RegExp(`^urn:uuid:${DASHED}$`, 'i'),
  new RegExp(`^${HEX}{32}$`),
];

/** Go's `uuid.Parse` (google/uuid): 36, 38 (`{…}`), 45 (`urn:uuid:…`) or 32 hex characters. */
export function isUuid(s: string): boolean {
  return UUID_FORMS.some((re) => re.test(s));
}

/** `net.IPNet.String()` of a stored prefix (`10.240.0.0/16`). */
export function ipNetText(n: IpNet): string {
  const len = maskLen(n.Mask ?? []);
  return `${n.IP === '' ? '<nil>' : n.IP}/${len ?? '?'}`;
}

/** The prefix length a stored mask holds (`Mask.Size()`); 0 for a nil or odd mask. */
export function prefixLen(n: IpNet): number {
  return maskLen(n.Mask ?? []) ?? 0;
}

/** An `IpNet` for `ip/len`. */
export function ipNet(ip: string, len: number, family: 4 | 6): IpNet {
  return { IP: ip, Mask: maskOf(family, len) };
}

const zeroDns = (): DnsInfo => ({ Suffix: '', Servers: null, Options: null });

/** The node, HNS and the manager's state, as the network layer needs them. */
export class NetworkManager {
  constructor(
    readonly host: PluginHost,
    readonly nm: NetworkManagerState,
    readonly release: AzureCniRelease,
    /** `policy.ValidWinVerForDnsNat`: the node's build is 1903 (18362) or later. */
    readonly validWinVerForDnsNat: boolean,
  ) {}

  /**
   * `windowsSettings.hnsTimeoutDurationInSeconds` (`platformInit`): when > 0, the calls ACN's
   * timeout wrappers wrap (hnsv2wrapperwithtimeout.go, hnsv1wrapperwithtimeout.go) fail after that
   * much simulated time with `<Op> timeout value is <duration> : timed out calling hns`; the call
   * itself goes on and takes effect when it ends, as the goroutine does.
   */
  hnsTimeoutSeconds = 0;

  private async timed<T>(op: string, call: () => Promise<T>): Promise<T> {
    const seconds = this.hnsTimeoutSeconds;
    if (seconds <= 0) return call();
    const clock = this.host.clock;
    let timer = 0;
    const timeout = new Promise<never>((_, reject) => {
      timer = clock.schedule(seconds * 1000, () =>
        reject(new Error(`${op} timeout value is ${goDuration(seconds)} : timed out calling hns`)),
      );
    });
    try {
      return await Promise.race([call(), timeout]);
    } finally {
      clock.cancel(timer);
    }
  }

  private interfaces(): Map<string, ExternalInterface> {
    return (this.nm.ExternalInterfaces ??= new Map());
  }

  /** `getNetwork`: the network with this ID on any external interface. */
  getNetwork(id: string): { readonly extIf: ExternalInterface; readonly nw: NetworkState } | undefined {
    for (const extIf of this.interfaces().values()) {
      const nw = extIf.Networks?.get(id);
      if (nw) return { extIf, nw };
    }
    return undefined;
  }

  /** `GetEndpointInfosFromContainerID`: every endpoint of the container, with its network's ID. */
  endpointsOfContainer(containerId: string): { readonly networkId: string; readonly ep: EndpointState }[] {
    const out: { networkId: string; ep: EndpointState }[] = [];
    for (const extIf of this.interfaces().values()) {
      for (const [networkId, nw] of extIf.Networks ?? []) {
        for (const ep of nw.Endpoints?.values() ?? [])
          if (ep.ContainerID === containerId) out.push({ networkId, ep });
      }
    }
    return out;
  }

  /** `UseHnsV2(netNs)`: true for a GUID (then HCN v2 must be supported, or its error is thrown). */
  async useHnsV2(netNs: string): Promise<boolean> {
    if (!isUuid(netNs)) return false;
    await this.host.hcn.v2ApiSupported();
    return true;
  }

  /** `newExternalInterface`: record the master interface (its MAC from the OS) unless known. */
  addExternalInterface(ifName: string, subnet: string): void {
    const all = this.interfaces();
    if (all.get(ifName)) return;
    const iface = this.host.interfaces?.().find((i) => i.name === ifName);
    if (!iface) throw new Error('failed to find host interface: route ip+net: no such network interface');
    const mac = parseMAC(iface.mac);
    all.set(ifName, {
      Name: ifName,
      Networks: new Map(),
      Subnets: [subnet],
      BridgeName: '',
      DNSInfo: zeroDns(),
      MacAddress: mac ? [...mac] : [],
      IPAddresses: null,
      Routes: null,
      IPv4Gateway: '0.0.0.0',
      IPv6Gateway: '::',
    });
  }

  /** `findExternalInterface`: by the master's name, else by the first subnet. */
  private findExternalInterface(info: EndpointInfo): ExternalInterface {
    let extIf: ExternalInterface | undefined;
    if (info.masterIfName.trim() !== '') extIf = this.interfaces().get(info.masterIfName);
    else {
      const subnet = info.subnets[0] ? ipNetText(info.subnets[0].Prefix) : '';
      extIf = [...this.interfaces().values()].find((x) => (x.Subnets ?? []).includes(subnet));
    }
    if (!extIf) throw new Error('Subnet not found');
    if (extIf.Networks?.get(info.networkId)) throw new Error('Network already exists');
    return extIf;
  }

  /** `CreateNetwork` → `newNetwork`: the HNS network, recorded under its external interface. */
  async createNetwork(info: EndpointInfo): Promise<void> {
    if (info.mode === '') info.mode = OP_MODE_DEFAULT;
    const extIf = this.findExternalInterface(info);
    const nw = (await this.useHnsV2(info.netNs))
      ? await this.newNetworkHnsV2(info, extIf)
      : await this.newNetworkHnsV1(info, extIf);
    nw.Subnets = info.subnets.map((s) => ({ ...s }));
    (extIf.Networks ??= new Map()).set(info.networkId, nw);
  }

  /** The HNS network type: L2Bridge today; the v1.5 line's `mode` switch. */
  private networkType(info: EndpointInfo, v1: boolean): string {
    if (this.release === 'v1.8.12') return v1 ? 'l2bridge' : 'L2Bridge';
    if (info.mode === 'bridge') return v1 ? 'l2bridge' : 'L2Bridge';
    if (info.mode === 'tunnel') return v1 ? 'l2tunnel' : 'L2Tunnel';
    throw new Error('Network mode is invalid');
  }

  private newNetworkState(info: EndpointInfo, hnsId: string): NetworkState {
    return {
      Id: info.networkId,
      HnsId: hnsId,
      Mode: info.mode,
      VlanId: info.multitenancy?.vlanId ?? 0,
      Subnets: null,
      Endpoints: new Map(),
      DNS: zeroDns(),
      EnableSnatOnHost: info.enableSnatOnHost,
      NetNs: info.netNs,
      SnatBridgeIP: '',
    };
  }

  /** `newNetworkImplHnsV2`. */
  private async newNetworkHnsV2(info: EndpointInfo, extIf: ExternalInterface): Promise<NetworkState> {
    const hcn = this.host.hcn;
    const doc: HostComputeNetworkDoc = {
      Name: info.networkId,
      Type: 'L2Bridge',
      Ipams: [{ Type: 'Static' }],
      SchemaVersion: { Major: 2, Minor: 0 },
    };
    if (info.adapterName !== '' || !extIf.Name.startsWith(V_ETHERNET)) {
      const adapter = info.adapterName !== '' ? info.adapterName : extIf.Name;
      doc.Policies = [{ Type: 'NetAdapterName', Settings: { NetworkAdapterName: adapter } }];
    } else if (info.multitenancy) {
      // the NC's PrimaryInterfaceIdentifier picks the switch (its host part: it may be a CIDR)
      const pa = info.multitenancy.primaryInterfaceIp.split('/')[0]!;
      if (goCanonicalIP(pa) !== undefined)
        doc.Policies = [{ Type: 'ProviderAddress', Settings: { ProviderAddress: pa } }];
    }
    const vlan = info.multitenancy?.vlanId ?? 0;
    // networks are removed at reboot
    doc.Flags = 8;
    doc.Type = this.networkType(info, false);
    for (const s of info.subnets) {
      const v4 = !s.Prefix.IP.includes(':');
      (doc.Ipams![0]!.Subnets ??= []).push({
        IpAddressPrefix: ipNetText(s.Prefix),
        ...(vlan > 0 ? { Policies: [{ Type: 'VLAN', Settings: { IsolationId: vlan } }] } : {}),
        Routes: [
          { NextHop: s.Gateway === '' ? '<nil>' : s.Gateway, DestinationPrefix: v4 ? '0.0.0.0/0' : '::/0' },
        ],
      });
    }
    let id: string;
    try {
      id = (await hcn.getNetworkByName(doc.Name!)).ID;
    } catch (e) {
      if (!(e instanceof NetworkNotFoundError)) {
        throw new Error(
          `Failed to create hcn network: ${doc.Name}, failed to query for existing network with error: ${errorMessage(e)}`,
        );
      }
      try {
        id = (await this.timed('CreateNetwork', () => hcn.createNetwork(doc))).ID;
      } catch (e2) {
        throw new Error(`Failed to create hcn network: ${doc.Name} due to error: ${errorMessage(e2)}`);
      }
    }
    info.hnsNetworkId = id;
    return this.newNetworkState(info, id);
  }

  /** `newNetworkImplHnsV1`. */
  private async newNetworkHnsV1(info: EndpointInfo, extIf: ExternalInterface): Promise<NetworkState> {
    let adapter = info.adapterName !== '' ? info.adapterName : extIf.Name;
    if (adapter.startsWith(V_ETHERNET)) adapter = '';
    const type = this.networkType(info, true);
    const policies = await v1Policies(POLICY.network, info.networkPolicies, this.policyContext(info), false);
    if ((info.multitenancy?.vlanId ?? 0) > 0)
      policies.push({ Type: 'VLAN', VLAN: info.multitenancy!.vlanId });
    const doc = {
      Name: info.networkId,
      Type: type,
      NetworkAdapterName: adapter,
      ...(policies.length > 0 ? { Policies: policies } : {}),
      Subnets: info.subnets.map((s) => ({
        AddressPrefix: ipNetText(s.Prefix),
        GatewayAddress: s.Gateway === '' ? '<nil>' : s.Gateway,
      })),
    };
    const created = await this.timed('CreateNetwork', () => this.host.hns.createNetwork(doc as HNSNetwork));
    const id = created.ID ?? '';
    info.hnsNetworkId = id;
    // Windows 1803 and older (HNS ≤ 7, or no /globals/version) needed 10 s to settle
    let major = 0;
    try {
      const v = (await this.timed('GetHNSGlobals', () =>
        this.host.hns.hnsCall('GET', '/globals/version'),
      )) as { Major?: number } | undefined;
      major = v?.Major ?? 0;
    } catch {
      major = 0;
    }
    if (major <= 7) this.host.clock.advance(10_000);
    return this.newNetworkState(info, id);
  }

  policyContext(info?: EndpointInfo): PolicyContext {
    const hcn = this.host.hcn;
    const mt = info?.multitenancy;
    return {
      dsrSupported: () => hcn.dsrSupported(),
      enableSnatForDns: mt?.enableSnatForDns ?? false,
      enableMultiTenancy: mt !== undefined,
      ...(mt && mt.cnetAddressSpace.length > 0 ? { cnetAddressSpace: mt.cnetAddressSpace } : {}),
    };
  }

  /** `createEndpoint` → `newEndpointImpl`: the HNS endpoint, recorded in its network. */
  async createEndpoint(info: EndpointInfo): Promise<EndpointState> {
    const found = this.getNetwork(info.networkId);
    if (!found) throw new Error('Network not found');
    const ep = (await this.useHnsV2(info.netNs))
      ? await this.newEndpointHnsV2(found.nw, info)
      : await this.newEndpointHnsV1(found.nw, info);
    (found.nw.Endpoints ??= new Map()).set(ep.Id, ep);
    return ep;
  }

  private endpointState(
    info: EndpointInfo,
    id: string,
    hnsId: string,
    gateway: string,
    mac: string,
  ): EndpointState {
    const hw = parseMAC(mac);
    return {
      Id: id,
      HnsId: hnsId,
      HNSNetworkID: '',
      SandboxKey: info.containerId,
      IfName: info.ifName,
      HostIfName: '',
      MacAddress: hw ? [...hw] : undefined,
      InfraVnetIP: { IP: '', Mask: undefined },
      LocalIP: '',
      IPAddresses: info.ipAddresses.map((a) => ({ ...a })),
      Gateways: [gateway],
      DNS: { ...info.dns },
      Routes: info.routes.length > 0 ? info.routes.map((r) => ({ ...r })) : null,
      VlanID: info.multitenancy?.vlanId ?? 0,
      EnableSnatOnHost: info.enableSnatOnHost,
      EnableInfraVnet: false,
      EnableMultitenancy: info.multitenancy !== undefined,
      AllowInboundFromHostToNC: false,
      AllowInboundFromNCToHost: false,
      NetworkContainerID: info.multitenancy?.networkContainerId ?? '',
      NetworkNameSpace: '',
      ContainerID: info.containerId,
      PODName: '',
      PODNameSpace: '',
      InfraVnetAddressSpace: '',
      NetNs: info.netNs,
      SecondaryInterfaces: null,
      NICType: INFRA_NIC,
    };
  }

  /** `configureHcnEndpoint` + `newEndpointImplHnsV2`. */
  private async newEndpointHnsV2(nw: NetworkState, info: EndpointInfo): Promise<EndpointState> {
    const hcn = this.host.hcn;
    const name = constructEndpointId(info.containerId, info.netNs, info.ifName);
    const doc: HostComputeEndpointDoc = {
      Name: name,
      HostComputeNetwork: nw.HnsId,
      Dns: {
        Search: info.dns.Suffix.split(','),
        ...(info.dns.Servers ? { ServerList: [...info.dns.Servers] } : {}),
        ...(info.dns.Options ? { Options: [...info.dns.Options] } : {}),
      },
      SchemaVersion: { Major: 2, Minor: 0 },
      MacAddress: '',
    };
    const policies = await hcnEndpointPolicies(
      info.endpointPolicies,
      this.policyContext(info),
      info.natInfo,
      this.validWinVerForDnsNat,
    );
    if (policies.length > 0) doc.Policies = policies;
    if (info.routes.length > 0) {
      doc.Routes = info.routes.map((r) => ({
        NextHop: r.Gw === '' ? '<nil>' : r.Gw,
        DestinationPrefix: ipNetText(r.Dst),
      }));
    }
    if (info.ipAddresses.length > 0) {
      doc.IpConfigurations = info.ipAddresses.map((a) => ({ IpAddress: a.IP, PrefixLength: prefixLen(a) }));
    }
    let created;
    try {
      created = await this.timed('CreateEndpoint', () => hcn.createEndpoint(doc));
    } catch (e) {
      throw new Error(`Failed to create endpoint: ${name} due to error: ${errorMessage(e)}`);
    }
    try {
      let nsId: string;
      try {
        nsId = (await this.timed('GetNamespaceByID', () => hcn.getNamespaceByID(info.netNs))).ID;
      } catch (e) {
        throw new Error(`Failed to get hcn namespace: ${info.netNs} due to error: ${errorMessage(e)}`);
      }
      try {
        await hcn.addNamespaceEndpoint(nsId, created.ID);
      } catch (e) {
        throw new Error(
          `Failed to add endpoint: ${created.ID} to hcn namespace: ${nsId} due to error: ${errorMessage(e)}`,
        );
      }
    } catch (e) {
      // the deferred DeleteEndpoint assigns to a local err: the function still returns its own error
      try {
        await this.timed('DeleteEndpoint', () => created.delete());
      } catch {
        // dropped
      }
      throw e;
    }
    const gateway = created.Routes?.[0]?.NextHop ?? '';
    const ep = this.endpointState(info, name, created.ID, canonicalIp(gateway), created.MacAddress ?? '');
    ep.HNSNetworkID = info.hnsNetworkId;
    ep.PODName = info.podName;
    ep.PODNameSpace = info.podNamespace;
    return ep;
  }

  /** `newEndpointImplHnsV1`. */
  private async newEndpointHnsV1(nw: NetworkState, info: EndpointInfo): Promise<EndpointState> {
    const hns = this.host.hns;
    const name = constructEndpointId(info.containerId, info.netNs, info.ifName);
    const policies = await v1Policies(
      POLICY.endpoint,
      info.endpointPolicies,
      this.policyContext(info),
      this.validWinVerForDnsNat,
    );
    const doc: Record<string, Json> = {
      Name: name,
      VirtualNetwork: nw.HnsId,
      DNSSuffix: info.dns.Suffix,
      DNSServerList: (info.dns.Servers ?? []).join(','),
    };
    if (policies.length > 0) doc['Policies'] = policies;
    for (const a of info.ipAddresses) {
      if (!a.IP.includes(':')) {
        doc['IPAddress'] = a.IP;
        doc['PrefixLength'] = prefixLen(a);
      } else {
        doc['IPv6Address'] = a.IP;
        doc['IPv6PrefixLength'] = prefixLen(a);
        if ((nw.Subnets ?? []).length > 1) doc['GatewayAddressV6'] = nw.Subnets![1]!.Gateway;
      }
    }
    const created = await this.timed('CreateEndpoint', () => hns.createEndpoint(doc as HNSEndpoint));
    const id = created.ID ?? '';
    try {
      await this.timed('HotAttachEndpoint', () => hns.hotAttachEndpoint(info.containerId, id));
    } catch (e) {
      try {
        await this.timed('DeleteEndpoint', () => hns.deleteEndpoint(id));
      } catch {
        // logged upstream
      }
      throw e;
    }
    return this.endpointState(
      info,
      name,
      id,
      canonicalIp(created.GatewayAddress ?? ''),
      created.MacAddress ?? '',
    );
  }

  /** `DeleteEndpoint` → `deleteEndpoint`: nothing when the endpoint is not recorded. */
  async deleteEndpoint(networkId: string, endpointId: string): Promise<void> {
    const found = this.getNetwork(networkId);
    if (!found) throw new Error('Network not found');
    const ep = found.nw.Endpoints?.get(endpointId);
    if (!ep) return;
    if (ep.HnsId !== '') {
      if (await this.useHnsV2(ep.NetNs)) await this.deleteEndpointHnsV2(ep);
      else await this.deleteEndpointHnsV1(ep);
    }
    found.nw.Endpoints!.delete(endpointId);
  }

  private async deleteEndpointHnsV2(ep: EndpointState): Promise<void> {
    const hcn = this.host.hcn;
    let hcnEp;
    try {
      hcnEp = await hcn.getEndpointByID(ep.HnsId);
    } catch (e) {
      if (e instanceof EndpointNotFoundError) return;
      throw new Error(`Failed to get hcn endpoint with id: ${ep.HnsId} due to err: ${errorMessage(e)}`);
    }
    try {
      await hcn.removeNamespaceEndpoint(hcnEp.HostComputeNamespace ?? '', hcnEp.ID);
    } catch {
      // only logged (PR #1272: the namespace may be gone already)
    }
    try {
      await this.timed('DeleteEndpoint', () => hcnEp.delete());
    } catch (e) {
      throw new Error(`Failed to delete hcn endpoint: ${ep.HnsId} due to error: ${errorMessage(e)}`);
    }
  }

  private async deleteEndpointHnsV1(ep: EndpointState): Promise<void> {
    try {
      await this.timed('DeleteEndpoint', () => this.host.hns.deleteEndpoint(ep.HnsId));
    } catch (e) {
      if (errorMessage(e).toLowerCase().includes('not found')) return;
      throw e;
    }
  }
}

/** Go's `time.Duration.String()` of whole seconds: `10s`, `2m0s`, `1h0m0s`. */
export function goDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const sec = seconds % 60;
  if (h > 0) return `${h}h${m}m${sec}s`;
  if (m > 0) return `${m}m${sec}s`;
  return `${sec}s`;
}

/** `net.ParseIP(s)` as stored: Go's canonical text, '' for text that is no address. */
const canonicalIp = (s: string): string => goCanonicalIP(s) ?? '';
