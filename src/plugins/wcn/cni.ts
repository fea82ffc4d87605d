/**
 * The config-to-record half of windows-container-networking's `cni/cni.go` @ b96345f (reference
 * cni-windows.md §4.2–4.3): `GetNetworkInfo` (subnet gateway = the subnet's address + 1 unless
 * `ipam.routes[0].gw`, the K8S namespace DNS search prefix, runtime DNS overrides, AdditionalArgs
 * policies), `GetEndpointInfo` (name `<cid>_<network>`, port mappings, the IPv6 twin and the ACL of
 * the optional flags) and `GetCurrResult` (the result WCN prints, raw-byte `mac` included).
 */
import type { NetworkConfig } from './config.js';
import { indexOutOfRange } from '../../cni/gopanic.js';
import { incByte3, parseCIDR, ZERO_NET, type GoIP, type GoNet } from './gonet.js';
import {
  emptyEndpointInfo,
  type DNSInfo,
  type EndpointInfo,
  type NetworkInfo,
  type SubnetInfo,
} from './network.js';
import { getInACLRule, getPortMappingPolicy, NatFlags, type Policy } from './policy.js';

/**
 * `NetworkConfig.GetNetworkInfo(podNamespace)`. `dsrSupported` is hcsshim's `hcn.DSRSupported()`,
 * asked only when `loopbackDSR` is set. Mutates `config.dns.search[0]` as the Go code does (the
 * prefixed search then also reaches the IPAM plugin through `Serialize()`).
 */
export async function getNetworkInfo(
  config: NetworkConfig,
  podNamespace: string,
  dsrSupported: () => Promise<void>,
): Promise<NetworkInfo> {
  if (config.optionalFlags.loopbackDSR) await dsrSupported();
  const subnets: SubnetInfo[] = [];
  if (config.ipam.subnet !== '') {
    const parsed = parseCIDR(config.ipam.subnet);
    // gatewayIP := ip.To4(); gatewayIP[3]++ — nil for an IPv6 or unparsable subnet
    if (!parsed || parsed.ip.family !== 4) throw indexOutOfRange(3, 0);
    let gateway: GoIP = incByte3(parsed.ip);
    const routes = config.ipam.routes;
    if (routes && routes.length > 0 && routes[0]!.gw) gateway = routes[0]!.gw;
    subnets.push({ addressPrefix: parsed.net, gatewayAddress: gateway, policies: [] });
  }

  const search = config.dns.search;
  if (search && search.length > 0 && podNamespace !== '') search[0] = `${podNamespace}.${search[0]}`;
  const rt = config.runtimeConfig.dns;
  const dns: DNSInfo = {
    nameservers: rt.servers?.length ? rt.servers : config.dns.nameservers,
    search: rt.searches?.length ? rt.searches : config.dns.search,
    domain: config.dns.domain,
    options: rt.options?.length ? rt.options : config.dns.options,
  };

  const policies: Policy[] = [];
  for (const kv of config.additionalArgs ?? []) {
    if (kv.name.includes('Policy')) policies.push({ type: kv.name, data: kv.value });
  }
  return { id: config.name, name: config.name, type: config.type, interfaceName: '', subnets, dns, policies };
}

/**
 * `NetworkConfig.GetEndpointInfo(networkInfo, containerID, netNs)`: for every runtime port mapping
 * a PortMapping (flag LocalRoutedVip with `localRoutedPortMapping`, VIP = hostIP), with dual-stack
 * an IPv6 twin (flag IPv6, no VIP), with `allowAclPortMapping` an inbound ACL at priority 1000.
 */
export function getEndpointInfo(
  config: NetworkConfig,
  networkInfo: NetworkInfo,
  containerId: string,
  netNs: string,
): EndpointInfo {
  const ep = emptyEndpointInfo();
  ep.name = `${containerId}_${networkInfo.id}`;
  ep.networkId = networkInfo.id;
  ep.namespaceId = netNs;
  ep.containerId = containerId;
  ep.dns = { ...networkInfo.dns };
  if (networkInfo.subnets.length > 0) {
    ep.subnet = networkInfo.subnets[0]!.addressPrefix;
    ep.gateway = networkInfo.subnets[0]!.gatewayAddress;
  }
  const flags = config.optionalFlags.localRoutedPortMapping ? NatFlags.LocalRoutedVip : NatFlags.None;
  const aclPriority = 1000;
  for (const m of config.runtimeConfig.portMappings ?? []) {
    try {
      ep.policies.push(getPortMappingPolicy(m.hostPort, m.containerPort, m.protocol, m.hostIP, flags));
      if (config.optionalFlags.enableDualStack) {
        ep.policies.push(
          getPortMappingPolicy(m.hostPort, m.containerPort, m.protocol, '', flags | NatFlags.IPv6),
        );
      }
    } catch (e) {
      throw new Error(`failed during GetEndpointInfo from netconf: ${(e as Error).message}`);
    }
    if (config.optionalFlags.allowAclPortMapping) {
      try {
        ep.policies.push(getInACLRule(m.containerPort, m.protocol, aclPriority));
      } catch (e) {
        throw new Error(`failed getInACLRule: ${(e as Error).message}`);
      }
    }
  }
  return ep;
}

/** The result WCN builds (`cniTypesCurr.Result` of libcni v1.1.2), before any conversion. */
export interface WcnResult {
  /** `Name` = CNI_IFNAME; `mac` the raw `net.HardwareAddr` bytes (`Mac: string(mac)`), if any. */
  readonly interfaces: readonly { readonly name: string; readonly mac: Uint8Array | undefined }[];
  /** Every entry has `Interface: 0`. */
  readonly ips: readonly { readonly address: GoNet; readonly gateway: GoIP | undefined }[];
}

/**
 * `GetCurrResult`: one interface (CNI_IFNAME, the MAC's raw bytes), the endpoint's address (single
 * stack: masked with the network's first subnet, `<nil>` when it has none; dual stack: with the
 * endpoint's own prefixes), no routes and no DNS.
 */
export function currResult(
  network: NetworkInfo,
  endpoint: EndpointInfo,
  ifName: string,
  config: NetworkConfig,
): WcnResult {
  const ips: { address: GoNet; gateway: GoIP | undefined }[] = [];
  if (!config.optionalFlags.enableDualStack) {
    const prefix = network.subnets.length > 0 ? network.subnets[0]!.addressPrefix : ZERO_NET;
    ips.push({ address: { ip: endpoint.ipAddress, mask: prefix.mask }, gateway: endpoint.gateway });
  } else {
    ips.push({ address: { ip: endpoint.ipAddress, mask: endpoint.ip4Mask }, gateway: endpoint.gateway });
    if (endpoint.ipAddress6.ip) ips.push({ address: endpoint.ipAddress6, gateway: endpoint.gateway6 });
  }
  return { interfaces: [{ name: ifName, mac: endpoint.macAddress }], ips };
}
