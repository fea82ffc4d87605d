/**
 * containernetworking/plugins `pkg/hns/endpoint_windows.go` (v1.9.1; reference cni-windows.md
 * §2.4-§2.7): endpoint naming from the container ID and CNI_NETNS, the HNS v1 add/remove flows
 * (reuse, corrupted-endpoint replacement, HotAttach, shared `container:<id>` endpoints, DEL with an
 * empty netns as a no-op), their HCN v2 twins (namespace add/remove), and the CNI result built from
 * what HNS returned (endpoint name as the interface name, `[""]` DNS lists from empty strings).
 */
import type { CniResult, PluginHost } from '../../cni/contracts.js';
import type { HNSEndpoint, HNSNetwork } from '../../api/hnsv1/types.js';
import { isErrComputeSystemDoesNotExist, isNotExist } from '../../api/hnsv1/errors.js';
import { HostComputeEndpoint } from '../../api/hcn/endpoint.js';
import type { HostComputeNamespace } from '../../api/hcn/namespace.js';
import type { HostComputeNetwork } from '../../api/hcn/network.js';
import { isNotFoundError } from '../../api/hcn/errors.js';
import { annotate, first } from './errors.js';
import { ipNetString, ipString, parseCIDR, parseIP, to4, type GoIPBytes } from '../../cni/goip.js';
import {
  applyLoopbackDSRPolicy,
  getHNSEndpointPolicies,
  getHostComputeEndpointPolicies,
  marshalRawMessages,
  type GoDns,
  type HnsNetConf,
  type RawMessage,
} from './netconf.js';

/**
 * An `hcsshim.HNSEndpoint` as the plugins build it: `Policies` are `json.RawMessage`s, marshalled
 * only when the endpoint is created (so a policy that is not JSON fails in `Create`).
 */
export interface HnsEndpointSpec extends Omit<HNSEndpoint, 'Policies'> {
  Policies?: RawMessage[];
}

/** The netns dockershim gives the infra (pause) container. */
export const PAUSE_CONTAINER_NETNS = 'none';

/** `current.ImplementedSpecVersion` of containernetworking/cni v1.3.0. */
export const IMPLEMENTED_SPEC_VERSION = '1.1.0';

/** `hns.EndpointInfo`. */
export interface EndpointInfo {
  endpointName: string;
  dns: GoDns;
  networkName: string;
  networkId: string;
  gateway: GoIPBytes;
  ipAddress: GoIPBytes;
  macAddress: string;
}

export function newEndpointInfo(): EndpointInfo {
  return {
    endpointName: '',
    dns: { nameservers: undefined, domain: '', search: undefined, options: undefined },
    networkName: '',
    networkId: '',
    gateway: null,
    ipAddress: null,
    macAddress: '',
  };
}

// ───────────────────────────── naming ─────────────────────────────

/**
 * `GetSandboxContainerID`: with a netns other than `""`/`none`, the part after its first `:` (if
 * any) is the sandbox ID (`container:<pauseID>` → pauseID); else the container ID.
 */
export function getSandboxContainerID(containerID: string, netNs: string): string {
  if (netNs.length !== 0 && netNs !== PAUSE_CONTAINER_NETNS) {
    const colon = netNs.indexOf(':');
    if (colon >= 0) return netNs.slice(colon + 1);
  }
  return containerID;
}

/** `ConstructEndpointName`: `<sandbox ID>_<network name>`. */
export function constructEndpointName(containerID: string, netNs: string, networkName: string): string {
  return `${getSandboxContainerID(containerID, netNs)}_${networkName}`;
}

/** `GetIpString`: `""` for an empty IP, else `ip.String()`. */
export function getIpString(ip: GoIPBytes): string {
  return ip === null || ip.length === 0 ? '' : ipString(ip);
}

/** `GetDefaultDestinationPrefix`: `0.0.0.0/0` for an IPv4 address, else (a nil one too) `::/0`. */
export function getDefaultDestinationPrefix(ip: GoIPBytes): string {
  return to4(ip) === null ? '::/0' : '0.0.0.0/0';
}

/** `strings.EqualFold` on the (ASCII) IDs and network type names the plugins compare. */
export function equalFold(a: string | undefined, b: string | undefined): boolean {
  return (a ?? '').toLowerCase() === (b ?? '').toLowerCase();
}

/** `hcn.DSRSupported() == nil`: the HNS version's DSR gate (a failed version query counts as unsupported). */
export async function dsrSupported(host: PluginHost): Promise<boolean> {
  try {
    await host.hcn.dsrSupported();
    return true;
  } catch {
    return false;
  }
}

/** `n.ApplyLoopbackDSRPolicy(&ip)` with the live DSR gate (`hcn.DSRSupported()` is asked first). */
export async function applyLoopbackDSR(host: PluginHost, n: HnsNetConf, ip: GoIPBytes): Promise<void> {
  applyLoopbackDSRPolicy(n, ipString(ip), await dsrSupported(host));
}

// ───────────────────────────── HNS v1 ─────────────────────────────

/**
 * `GenerateHnsEndpoint`: refuse when an endpoint of that name is already on the network (`HNSEndpoint
 * X is already existed`), delete one left on another network, apply loopback DSR, and build the
 * request document.
 */
export async function generateHnsEndpoint(
  host: PluginHost,
  epInfo: EndpointInfo,
  n: HnsNetConf,
): Promise<HnsEndpointSpec> {
  let existing: HNSEndpoint | undefined;
  try {
    existing = await host.hns.getEndpointByName(epInfo.endpointName);
  } catch (e) {
    if (!isNotExist(e)) throw annotate(e, `failed to get HNSEndpoint ${epInfo.endpointName}`);
  }
  if (existing) {
    if (equalFold(existing.VirtualNetwork, epInfo.networkId)) {
      throw new Error(`HNSEndpoint ${epInfo.endpointName} is already existed`);
    }
    try {
      await host.hns.deleteEndpoint(existing.ID ?? '');
    } catch (e) {
      throw annotate(e, `failed to delete corrupted HNSEndpoint ${epInfo.endpointName}`);
    }
  }
  if (n.loopbackDSR) await applyLoopbackDSR(host, n, epInfo.ipAddress);
  const ep: HnsEndpointSpec = {
    Name: epInfo.endpointName,
    VirtualNetwork: epInfo.networkId,
    DNSServerList: (epInfo.dns.nameservers ?? []).join(','),
    DNSSuffix: (epInfo.dns.search ?? []).join(','),
    GatewayAddress: getIpString(epInfo.gateway),
    Policies: getHNSEndpointPolicies(n),
  };
  if (epInfo.ipAddress !== null && epInfo.ipAddress.length > 0) ep.IPAddress = ipString(epInfo.ipAddress);
  return ep;
}

/**
 * `RemoveHnsEndpoint`: nothing for an empty netns (the endpoint stays: pitfall P3); nothing if the
 * endpoint is gone; for a shared netns only `ContainerDetach`; for `none` HotDetach then Delete.
 * Detach and delete errors are ignored.
 */
export async function removeHnsEndpoint(
  host: PluginHost,
  epName: string,
  netns: string,
  containerID: string,
): Promise<void> {
  if (netns.length === 0) return;
  let ep: HNSEndpoint;
  try {
    ep = await host.hns.getEndpointByName(epName);
  } catch (e) {
    if (isNotExist(e)) return;
    throw annotate(e, `failed to find HNSEndpoint ${epName}`);
  }
  if (netns !== PAUSE_CONTAINER_NETNS) {
    await host.hns.containerDetach(ep.ID ?? '', containerID).catch(() => undefined);
    return;
  }
  await host.hns.hotDetachEndpoint(containerID, ep.ID ?? '').catch(() => undefined);
  await host.hns.deleteEndpoint(ep.ID ?? '').catch(() => undefined);
}

/**
 * The maker `cmdHnsAdd`/`cmdHcnAdd` hand to `AddHnsEndpoint`/`AddHcnEndpoint`: the plugin's
 * `processEndpointArgs` (its error annotated `error while processing endpoint args`), `prepare`
 * (network ID, gateway, policies), then the API's endpoint document (`error while generating <kind>`).
 */
export function endpointMaker<T>(
  processArgs: () => Promise<EndpointInfo>,
  prepare: (epInfo: EndpointInfo) => void,
  generate: (epInfo: EndpointInfo) => Promise<T>,
  kind: 'HNSEndpoint' | 'HostComputeEndpoint',
): () => Promise<T> {
  return async () => {
    let epInfo: EndpointInfo;
    try {
      epInfo = await processArgs();
    } catch (e) {
      throw annotate(e, 'error while processing endpoint args');
    }
    prepare(epInfo);
    try {
      return await generate(epInfo);
    } catch (e) {
      throw annotate(e, `error while generating ${kind}`);
    }
  };
}

export type HnsEndpointMaker = () => Promise<HnsEndpointSpec>;

/**
 * `AddHnsEndpoint`: reuse the endpoint named `epName` (a shared netns requires it), replace one on
 * another network, else make and create one; then HotAttach the container. A new endpoint is
 * removed when the attach fails; an existing one whose container is gone counts as attached.
 */
export async function addHnsEndpoint(
  host: PluginHost,
  epName: string,
  expectedNetworkId: string,
  containerID: string,
  netns: string,
  makeEndpoint: HnsEndpointMaker,
): Promise<HNSEndpoint> {
  let ep: HNSEndpoint | undefined;
  let lookupErr: unknown;
  try {
    ep = await host.hns.getEndpointByName(epName);
  } catch (e) {
    if (!isNotExist(e)) throw annotate(e, `failed to find HNSEndpoint ${epName}`);
    lookupErr = e;
  }
  // a shared endpoint (netns `container:<id>`, or a namespace GUID: pitfall P1) must exist already
  if (netns !== PAUSE_CONTAINER_NETNS && ep === undefined) {
    throw annotate(lookupErr, `failed to find HNSEndpoint ${epName}`);
  }
  if (ep !== undefined && !equalFold(ep.VirtualNetwork, expectedNetworkId)) {
    try {
      await host.hns.deleteEndpoint(ep.ID ?? '');
    } catch (e) {
      throw annotate(e, `failed to delete corrupted HNSEndpoint ${epName}`);
    }
    ep = undefined;
  }
  let isNewEndpoint = false;
  if (ep === undefined) {
    let made: HnsEndpointSpec;
    try {
      made = await makeEndpoint();
    } catch (e) {
      throw annotate(e, 'failed to make a new HNSEndpoint');
    }
    try {
      const { Policies, ...rest } = made;
      ep = await host.hns.createEndpoint(
        Policies === undefined ? rest : { ...rest, Policies: marshalRawMessages(Policies) },
      );
    } catch (e) {
      throw annotate(e, 'failed to create the new HNSEndpoint');
    }
    isNewEndpoint = true;
  }
  const id = ep.ID ?? '';
  try {
    await host.hns.hotAttachEndpoint(containerID, id);
  } catch (err) {
    if (isNewEndpoint) {
      try {
        await removeHnsEndpoint(host, epName, netns, containerID);
      } catch (e) {
        throw annotate(
          e,
          `failed to remove the new HNSEndpoint ${id} after attaching container ${containerID} failure`,
        );
      }
    } else if (isErrComputeSystemDoesNotExist(err)) {
      return ep;
    }
    throw annotate(err, `failed to attach container ${containerID} to HNSEndpoint ${id}`);
  }
  return ep;
}

/**
 * `ConstructHnsResult`: interface = the endpoint's name and MAC; one IP with the network's first
 * subnet mask and the endpoint's gateway; DNS split on `,` (so `""` gives `[""]`). No routes.
 */
export function constructHnsResult(network: HNSNetwork, ep: HNSEndpoint): CniResult {
  const prefix = first(network.Subnets).AddressPrefix ?? '';
  let mask: Uint8Array;
  try {
    mask = parseCIDR(prefix).mask;
  } catch (e) {
    throw annotate(e, `failed to parse CIDR from ${prefix}`);
  }
  const gateway = parseIP(ep.GatewayAddress ?? '');
  return {
    cniVersion: IMPLEMENTED_SPEC_VERSION,
    interfaces: [{ name: ep.Name ?? '', ...(ep.MacAddress ? { mac: ep.MacAddress } : {}) }],
    ips: [
      {
        address: ipNetString(ep.IPAddress ? parseIP(ep.IPAddress) : null, mask),
        ...(gateway ? { gateway: ipString(gateway) } : {}),
      },
    ],
    dns: {
      search: (ep.DNSSuffix ?? '').split(','),
      nameservers: (ep.DNSServerList ?? '').split(','),
    },
  };
}

// ───────────────────────────── HCN v2 ─────────────────────────────

/**
 * `GenerateHcnEndpoint`: the same existence checks as v1 (`HostComputeNetwork X is already
 * existed`), loopback DSR, then `{SchemaVersion 2.0, Name, MacAddress, HostComputeNetwork, Dns,
 * Routes:[{NextHop: gw, DestinationPrefix}], IpConfigurations:[{IpAddress}], Policies}`.
 */
export async function generateHcnEndpoint(
  host: PluginHost,
  epInfo: EndpointInfo,
  n: HnsNetConf,
): Promise<HostComputeEndpoint> {
  let existing: HostComputeEndpoint | undefined;
  try {
    // hcn.GetEndpointByName; its not-found error is the undefined here
    existing = await host.hcn.findEndpointByName(epInfo.endpointName);
  } catch (e) {
    if (!isNotFoundError(e)) throw annotate(e, `failed to get HostComputeEndpoint ${epInfo.endpointName}`);
  }
  if (existing) {
    if (equalFold(existing.HostComputeNetwork, epInfo.networkId)) {
      throw new Error(`HostComputeNetwork ${epInfo.endpointName} is already existed`);
    }
    try {
      await existing.delete();
    } catch (e) {
      throw annotate(e, `failed to delete corrupted HostComputeEndpoint ${epInfo.endpointName}`);
    }
  }
  if (n.loopbackDSR) await applyLoopbackDSR(host, n, epInfo.ipAddress);
  return new HostComputeEndpoint(host.hcn, {
    SchemaVersion: { Major: 2, Minor: 0 },
    Name: epInfo.endpointName,
    MacAddress: epInfo.macAddress,
    HostComputeNetwork: epInfo.networkId,
    Dns: {
      Domain: epInfo.dns.domain,
      Search: epInfo.dns.search ?? [],
      ServerList: epInfo.dns.nameservers ?? [],
      Options: epInfo.dns.options ?? [],
    },
    Routes: [
      {
        NextHop: getIpString(epInfo.gateway),
        DestinationPrefix: getDefaultDestinationPrefix(epInfo.gateway),
      },
    ],
    IpConfigurations: [{ IpAddress: getIpString(epInfo.ipAddress) }],
    Policies: getHostComputeEndpointPolicies(n),
  });
}

/**
 * `RemoveHcnEndpoint`: nothing if the endpoint is gone; remove it from its namespace when that
 * namespace still exists (not-found tolerated), then delete it (that error is returned).
 */
export async function removeHcnEndpoint(host: PluginHost, epName: string): Promise<void> {
  let ep: HostComputeEndpoint | undefined;
  try {
    // hcn.GetEndpointByName; its not-found error is the undefined here
    ep = await host.hcn.findEndpointByName(epName);
  } catch (e) {
    if (isNotFoundError(e)) return;
    throw annotate(e, `failed to find HostComputeEndpoint ${epName}`);
  }
  if (ep === undefined) return;
  let ns: HostComputeNamespace | undefined;
  try {
    // hcn.GetNamespaceByID; its not-found error is the undefined here
    ns = await host.hcn.findNamespaceByID(ep.HostComputeNamespace);
  } catch (e) {
    if (!isNotFoundError(e)) throw annotate(e, `failed to get HostComputeNamespace ${epName}`);
  }
  if (ns !== undefined) {
    try {
      await host.hcn.removeNamespaceEndpoint(ep.HostComputeNamespace, ep.ID);
    } catch (e) {
      if (!isNotFoundError(e)) throw annotate(e, `error removing endpoint: ${epName} from namespace`);
    }
  }
  try {
    await ep.delete();
  } catch (e) {
    throw annotate(e, `failed to remove HostComputeEndpoint ${epName}`);
  }
}

export type HcnEndpointMaker = () => Promise<HostComputeEndpoint>;

/**
 * `AddHcnEndpoint`: reuse an endpoint of that name on the expected network (replace one on another
 * network), else make and create one; then ALWAYS add it to the namespace `namespace` (CNI_NETNS).
 * A new endpoint is removed again when that fails.
 */
export async function addHcnEndpoint(
  host: PluginHost,
  epName: string,
  expectedNetworkId: string,
  namespace: string,
  makeEndpoint: HcnEndpointMaker,
): Promise<HostComputeEndpoint> {
  let ep: HostComputeEndpoint | undefined;
  try {
    // hcn.GetEndpointByName; its not-found error is the undefined here
    ep = await host.hcn.findEndpointByName(epName);
  } catch (e) {
    if (!isNotFoundError(e)) throw annotate(e, `failed to find HostComputeEndpoint ${epName}`);
  }
  if (ep !== undefined && !equalFold(ep.HostComputeNetwork, expectedNetworkId)) {
    try {
      await ep.delete();
    } catch (e) {
      throw annotate(e, `failed to delete corrupted HostComputeEndpoint ${epName}`);
    }
    ep = undefined;
  }
  let isNewEndpoint = false;
  if (ep === undefined) {
    let made: HostComputeEndpoint;
    try {
      made = await makeEndpoint();
    } catch (e) {
      throw annotate(e, 'failed to make a new HostComputeEndpoint');
    }
    try {
      ep = await made.create();
    } catch (e) {
      throw annotate(e, 'failed to create the new HostComputeEndpoint');
    }
    isNewEndpoint = true;
  }
  try {
    await host.hcn.addNamespaceEndpoint(namespace, ep.ID);
  } catch (err) {
    if (isNewEndpoint) {
      try {
        await removeHcnEndpoint(host, epName);
      } catch (e) {
        throw annotate(
          e,
          `failed to remove the new HostComputeEndpoint ${epName} after adding HostComputeNamespace ${namespace} failure`,
        );
      }
    }
    throw annotate(err, `failed to add HostComputeEndpoint ${epName} to HostComputeNamespace ${namespace}`);
  }
  return ep;
}

/**
 * `ConstructHcnResult`: interface = the endpoint's name and MAC; the IP with the mask of the
 * network's first IPAM subnet and the first route's next hop as gateway; DNS copied (options and
 * domain included). A bad subnet prefix is returned unwrapped (`invalid CIDR address: …`).
 */
export function constructHcnResult(network: HostComputeNetwork, ep: HostComputeEndpoint): CniResult {
  const { mask } = parseCIDR(first(first(network.Ipams).Subnets).IpAddressPrefix ?? '');
  const ip = parseIP(first(ep.IpConfigurations).IpAddress ?? '');
  const gateway = parseIP(first(ep.Routes).NextHop ?? '');
  const dns = ep.Dns;
  return {
    cniVersion: IMPLEMENTED_SPEC_VERSION,
    interfaces: [{ name: ep.Name, ...(ep.MacAddress ? { mac: ep.MacAddress } : {}) }],
    ips: [{ address: ipNetString(ip, mask), ...(gateway ? { gateway: ipString(gateway) } : {}) }],
    dns: {
      ...(dns.ServerList?.length ? { nameservers: dns.ServerList } : {}),
      ...(dns.Domain ? { domain: dns.Domain } : {}),
      ...(dns.Search?.length ? { search: dns.Search } : {}),
      ...(dns.Options?.length ? { options: dns.Options } : {}),
    },
  };
}
