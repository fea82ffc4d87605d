/**
 * containernetworking/plugins `win-overlay` (v1.9.1, `plugins/main/windows/win-overlay/win-overlay_windows.go`;
 * reference cni-windows.md §2.6, §2.7, §7): an endpoint on an existing Overlay network, HNS v1 or
 * (`apiVersion: 2`) HCN. MAC = `endpointMacPrefix` (default `0E-2A`) + the IP's octets in lower-case
 * hex; gateway = the network's first subnet gateway; a PA policy with the network's management IP;
 * OutBoundNAT for the network's subnet when `ipMasq`. Port mappings are parsed but not applied.
 * Quirks kept: the `GETHNSNewtorkByName` typo, IPAM DEL run twice after a v1 failure, the two paths'
 * different policy orders.
 */
import type { CniPlugin, CniResult } from '../cni/contracts.js';
import { pluginMain, stdinText, type CmdArgs, type PluginContext } from '../cni/skel.js';
import { VERSION_ALL } from '../cni/version.js';
import { GoPanic } from '../cni/gopanic.js';
import type { HNSEndpoint, HNSNetwork } from '../api/hnsv1/types.js';
import type { HostComputeEndpoint } from '../api/hcn/endpoint.js';
import type { HostComputeNetwork } from '../api/hcn/network.js';
import {
  addHcnEndpoint,
  addHnsEndpoint,
  applyLoopbackDSR,
  constructEndpointName,
  constructHcnResult,
  constructHnsResult,
  endpointMaker,
  equalFold,
  generateHcnEndpoint,
  newEndpointInfo,
  type EndpointInfo,
  type HnsEndpointSpec,
} from './hns/endpoint.js';
import { annotate, first } from './hns/errors.js';
import { field, goBool, goString } from '../cni/gojson.js';
import { ipString, parseIP, to4 } from '../cni/goip.js';
import { conjureMac } from '../cni/gomac.js';
import {
  addEndpointReleasingIpam,
  delEndpointAndIpam,
  firstAddress,
  ipamAddResult,
  ipamExecDelIgnoringErrors,
  ipamExecStatus,
  PROCESS_ENDPOINT_ARGS_IPAM,
} from './hns/ipam.js';
import {
  applyDefaultPAPolicy,
  applyOutboundNatPolicy,
  getDNS,
  getHNSEndpointPolicies,
  loadNetConf,
  type HnsNetConf,
  type PluginField,
} from './hns/netconf.js';

/** What `bv.BuildString("win-overlay")` prints in a v1.9.1 release build. */
export const WIN_OVERLAY_ABOUT = 'CNI win-overlay plugin v1.9.1';

/** The MAC prefix used when `endpointMacPrefix` is empty. */
export const DEFAULT_ENDPOINT_MAC_PREFIX = '0E-2A';

/** win-overlay's `NetConf`: `hns.NetConf` plus `ipMasq` and `endpointMacPrefix`. */
export interface WinOverlayNetConf extends HnsNetConf {
  ipMasq: boolean;
  endpointMacPrefix: string;
}

const EXTRA_FIELDS: readonly PluginField[] = [field('ipMasq', goBool), field('endpointMacPrefix', goString)];

/** `loadNetConf(stdin)`: `failed to load netconf: <Go's decode error>`. */
export function loadWinOverlayConf(stdin: string): WinOverlayNetConf {
  return loadNetConf<WinOverlayNetConf>(stdin, EXTRA_FIELDS);
}

/**
 * The overlay MAC of a 4-byte address: `conjureMac`'s `%v-%02x-%02x-%02x-%02x`, lower-case hex
 * after the prefix as given (`0E-2A-0a-f4-01-05` for 10.244.1.5).
 */
export function overlayMac(prefix: string, ip4: Uint8Array): string {
  return conjureMac(prefix, new DataView(ip4.buffer, ip4.byteOffset, 4).getUint32(0));
}

/**
 * Validate `endpointMacPrefix` as both paths do: Go's `len` and index count bytes, so the prefix
 * must be 5 bytes with `-` as the third; empty means the default.
 */
export function checkMacPrefix(n: WinOverlayNetConf): void {
  if (n.endpointMacPrefix.length === 0) {
    n.endpointMacPrefix = DEFAULT_ENDPOINT_MAC_PREFIX;
    return;
  }
  const bytes = Buffer.from(n.endpointMacPrefix, 'utf8');
  if (bytes.length !== 5 || bytes[2] !== 0x2d) {
    throw new Error(
      `endpointMacPrefix [${n.endpointMacPrefix}] is invalid, value must be of the format xx-xx`,
    );
  }
}

/**
 * `processEndpointArgs` (the v2 path's maker): IPAM when `ipam.type` is set (an IPv4 address is
 * required), the MAC, the merged DNS, then loopback DSR.
 */
async function processEndpointArgs(
  args: CmdArgs,
  ctx: PluginContext,
  n: WinOverlayNetConf,
): Promise<EndpointInfo> {
  const epInfo = newEndpointInfo();
  epInfo.networkName = n.name;
  epInfo.endpointName = constructEndpointName(args.containerID, args.netns, epInfo.networkName);
  if (n.ipam.type !== '') {
    const result = await ipamAddResult(ctx, n.ipam.type, args, PROCESS_ENDPOINT_ARGS_IPAM);
    epInfo.ipAddress = to4(firstAddress(result).ip);
    if (epInfo.ipAddress === null) throw new Error('IPAM plugin return is missing valid IP Address');
    epInfo.macAddress = overlayMac(n.endpointMacPrefix, epInfo.ipAddress);
  }
  epInfo.dns = getDNS(n);
  if (n.loopbackDSR) await applyLoopbackDSR(ctx.host, n, epInfo.ipAddress);
  return epInfo;
}

/** `cmdHcnAdd`: the v2 path, which looks the network up through both APIs. */
async function cmdHcnAdd(args: CmdArgs, ctx: PluginContext, n: WinOverlayNetConf): Promise<CniResult> {
  checkMacPrefix(n);
  const host = ctx.host;
  const networkName = n.name;
  // the v1 lookup's error is overwritten by the v2 one's (Go reuses `err`)
  let hnsNetwork: HNSNetwork | undefined;
  try {
    hnsNetwork = await host.hns.getNetworkByName(networkName);
  } catch {
    hnsNetwork = undefined;
  }
  let hcnNetwork: HostComputeNetwork;
  try {
    hcnNetwork = await host.hcn.getNetworkByName(networkName);
  } catch (e) {
    throw annotate(e, `error while hcn.GetNetworkByName(${networkName})`);
  }
  if (hnsNetwork === undefined) throw new Error(`network ${networkName} not found`);
  if (!equalFold(hcnNetwork.Type, 'Overlay')) {
    throw new Error(`network ${networkName} is of an unexpected type: ${hcnNetwork.Type}`);
  }
  const v1 = hnsNetwork;
  const epName = constructEndpointName(args.containerID, args.netns, n.name);
  let ep: HostComputeEndpoint;
  try {
    ep = await addHcnEndpoint(
      host,
      epName,
      hcnNetwork.ID,
      args.netns,
      endpointMaker(
        () => processEndpointArgs(args, ctx, n),
        (epInfo) => {
          epInfo.networkId = hcnNetwork.ID;
          epInfo.gateway = to4(parseIP(first(v1.Subnets).GatewayAddress ?? ''));
          applyDefaultPAPolicy(n, v1.ManagementIP ?? '');
          if (n.ipMasq) applyOutboundNatPolicy(n, first(v1.Subnets).AddressPrefix ?? '');
        },
        (epInfo) => generateHcnEndpoint(host, epInfo, n),
        'HostComputeEndpoint',
      ),
    );
  } catch (e) {
    throw annotate(e, 'error while adding HostComputeEndpoint');
  }
  try {
    return constructHcnResult(hcnNetwork, ep);
  } catch (e) {
    if (!(e instanceof GoPanic)) await ipamExecDelIgnoringErrors(ctx, n.ipam.type, args);
    throw annotate(e, 'error while constructing HostComputeEndpoint addition result');
  }
}

/**
 * `cmdHnsAdd`: the v1 path. Its maker runs IPAM unconditionally (no `ipam.type` → `no plugin name
 * provided`). A deferred IPAM DEL, registered once AddHnsEndpoint has returned, runs when it
 * failed or when the result cannot be built (a panic there too; a panic inside AddHnsEndpoint comes
 * before the defer, so nothing releases the address).
 */
async function cmdHnsAdd(args: CmdArgs, ctx: PluginContext, n: WinOverlayNetConf): Promise<CniResult> {
  checkMacPrefix(n);
  const host = ctx.host;
  const networkName = n.name;
  let network: HNSNetwork;
  try {
    network = await host.hns.getNetworkByName(networkName);
  } catch (e) {
    throw annotate(e, `error while GETHNSNewtorkByName(${networkName})`);
  }
  if (!equalFold(network.Type, 'Overlay')) {
    throw new Error(`network ${networkName} is of an unexpected type: ${network.Type ?? ''}`);
  }
  const networkId = network.ID ?? '';
  const epName = constructEndpointName(args.containerID, args.netns, n.name);
  let ep: HNSEndpoint | undefined;
  let addErr: unknown;
  try {
    ep = await addHnsEndpoint(host, epName, networkId, args.containerID, args.netns, async () => {
      const result = await ipamAddResult(ctx, n.ipam.type, args, {
        exec: 'error while ipam.ExecAdd',
        convert: 'error while NewResultFromResult',
      });
      const ipAddr = to4(firstAddress(result).ip);
      if (ipAddr === null) throw new Error("win-overlay doesn't support IPv6 now");
      const macAddr = overlayMac(n.endpointMacPrefix, ipAddr);
      const gw = first(network.Subnets).GatewayAddress ?? '';
      applyDefaultPAPolicy(n, network.ManagementIP ?? '');
      if (n.ipMasq) applyOutboundNatPolicy(n, first(network.Subnets).AddressPrefix ?? '');
      const dns = getDNS(n);
      if (n.loopbackDSR) await applyLoopbackDSR(host, n, ipAddr);
      const endpoint: HnsEndpointSpec = {
        Name: epName,
        VirtualNetwork: networkId,
        DNSServerList: (dns.nameservers ?? []).join(','),
        DNSSuffix: (dns.search ?? []).join(','),
        GatewayAddress: gw,
        IPAddress: ipString(ipAddr),
        MacAddress: macAddr,
        Policies: getHNSEndpointPolicies(n),
      };
      return endpoint;
    });
  } catch (e) {
    // a panic inside AddHnsEndpoint unwinds before the deferred IPAM DEL is registered
    if (e instanceof GoPanic) throw e;
    addErr = e;
  }
  // `defer func() { if !success { ipam.ExecDel(...) } }()`: from here on, on an error or a panic
  let success = false;
  try {
    if (ep === undefined) {
      throw annotate(addErr, `error while AddHnsEndpoint(${epName},${networkId},${args.containerID})`);
    }
    let result: CniResult;
    try {
      result = constructHnsResult(network, ep);
    } catch (e) {
      throw annotate(e, 'error while constructResult');
    }
    success = true;
    return result;
  } finally {
    if (!success) await ipamExecDelIgnoringErrors(ctx, n.ipam.type, args);
  }
}

/** `cmdAdd`: on an error IPAM DEL runs (again, after the v1 path's own deferred one). */
async function cmdAdd(args: CmdArgs, ctx: PluginContext): Promise<void> {
  await addEndpointReleasingIpam(args, ctx, loadWinOverlayConf(stdinText(args)), cmdHnsAdd, cmdHcnAdd);
}

/** `cmdDel`: as win-bridge's (IPAM DEL first; v1 with an empty netns leaves the endpoint). */
async function cmdDel(args: CmdArgs, ctx: PluginContext): Promise<void> {
  await delEndpointAndIpam(args, ctx, loadWinOverlayConf(stdinText(args)));
}

/** `cmdCheck`: a TODO upstream: success. */
async function cmdCheck(): Promise<void> {}

/** `cmdStatus`: always forwarded to IPAM (no `ipam.type` → `no plugin name provided`). */
async function cmdStatus(args: CmdArgs, ctx: PluginContext): Promise<void> {
  const n = loadWinOverlayConf(stdinText(args));
  await ipamExecStatus(ctx, n.ipam.type, args);
}

/** The win-overlay plugin (GC is not implemented upstream). */
export const winOverlay: CniPlugin = pluginMain(
  'win-overlay',
  {
    add: cmdAdd,
    del: cmdDel,
    check: cmdCheck,
    status: cmdStatus,
  },
  VERSION_ALL,
  WIN_OVERLAY_ABOUT,
);
