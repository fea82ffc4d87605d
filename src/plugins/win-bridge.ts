/**
 * containernetworking/plugins `win-bridge` (v1.9.1, `plugins/main/windows/win-bridge/win-bridge_windows.go`;
 * reference cni-windows.md §2.5, §2.7, §7): an endpoint on an existing L2Bridge/L2Tunnel network,
 * through HNS v1 (HotAttach; dockershim's `none` / `container:<id>`) or, with `apiVersion: 2`, HCN
 * (namespace add; containerd). Gateway = IPAM address masked + 2; OutBoundNAT exception from
 * `ipMasqNetwork`; port mappings; loopback DSR when HNS supports it. Quirks kept: IPAM DEL first on
 * DEL (an error there leaves the endpoint), a v1 DEL with an empty netns does nothing.
 */
import type { CniPlugin, CniResult } from '../cni/contracts.js';
import { pluginMain, stdinText, type CmdArgs, type PluginContext } from '../cni/skel.js';
import { VERSION_ALL } from '../cni/version.js';
import type { HNSEndpoint } from '../api/hnsv1/types.js';
import type { HostComputeEndpoint } from '../api/hcn/endpoint.js';
import {
  addHcnEndpoint,
  addHnsEndpoint,
  constructEndpointName,
  endpointMaker,
  equalFold,
  constructHcnResult,
  constructHnsResult,
  generateHcnEndpoint,
  generateHnsEndpoint,
  newEndpointInfo,
  type EndpointInfo,
} from './hns/endpoint.js';
import { annotate } from './hns/errors.js';
import { field, goString } from '../cni/gojson.js';
import {
  bridgeGateway,
  firstAddress,
  addEndpointReleasingIpam,
  delEndpointAndIpam,
  ipamAddResult,
  ipamExecStatus,
  PROCESS_ENDPOINT_ARGS_IPAM,
} from './hns/ipam.js';
import {
  applyOutboundNatPolicy,
  applyPortMappingPolicy,
  getDNS,
  loadNetConf,
  type HnsNetConf,
  type PluginField,
} from './hns/netconf.js';

/** What `bv.BuildString("win-bridge")` prints in a v1.9.1 release build. */
export const WIN_BRIDGE_ABOUT = 'CNI win-bridge plugin v1.9.1';

/** win-bridge's `NetConf`: `hns.NetConf` plus `ipMasqNetwork`. */
export interface WinBridgeNetConf extends HnsNetConf {
  ipMasqNetwork: string;
}

const EXTRA_FIELDS: readonly PluginField[] = [field('ipMasqNetwork', goString)];

/** `loadNetConf(stdin)`: `failed to load netconf: <Go's decode error>`. */
export function loadWinBridgeConf(stdin: string): WinBridgeNetConf {
  return loadNetConf<WinBridgeNetConf>(stdin, EXTRA_FIELDS);
}

/**
 * `processEndpointArgs`: IPAM ADD when `ipam.type` is set (IP = first address, gateway = its network
 * + 2), then the OutBoundNAT exception, the port mappings and the merged DNS.
 */
async function processEndpointArgs(
  args: CmdArgs,
  ctx: PluginContext,
  n: WinBridgeNetConf,
): Promise<EndpointInfo> {
  const epInfo = newEndpointInfo();
  epInfo.networkName = n.name;
  epInfo.endpointName = constructEndpointName(args.containerID, args.netns, epInfo.networkName);
  // HNS can pick the IP and gateway itself, so IPAM is optional on Windows
  if (n.ipam.type !== '') {
    const result = await ipamAddResult(ctx, n.ipam.type, args, PROCESS_ENDPOINT_ARGS_IPAM);
    const { ip, mask } = firstAddress(result);
    epInfo.ipAddress = ip;
    epInfo.gateway = bridgeGateway(ip, mask);
  }
  applyOutboundNatPolicy(n, n.ipMasqNetwork);
  applyPortMappingPolicy(n, n.runtimeConfig.portMaps);
  epInfo.dns = getDNS(n);
  return epInfo;
}

/** `cmdHnsAdd`: the v1 path. */
async function cmdHnsAdd(args: CmdArgs, ctx: PluginContext, n: WinBridgeNetConf): Promise<CniResult> {
  const host = ctx.host;
  const networkName = n.name;
  let network;
  try {
    network = await host.hns.getNetworkByName(networkName);
  } catch (e) {
    throw annotate(e, `error while getting network ${networkName}`);
  }
  if (!equalFold(network.Type, 'L2Bridge') && !equalFold(network.Type, 'L2Tunnel')) {
    throw new Error(`network ${networkName} is of unexpected type: ${network.Type ?? ''}`);
  }
  const networkId = network.ID ?? '';
  const epName = constructEndpointName(args.containerID, args.netns, n.name);
  let ep: HNSEndpoint;
  try {
    ep = await addHnsEndpoint(
      host,
      epName,
      networkId,
      args.containerID,
      args.netns,
      endpointMaker(
        () => processEndpointArgs(args, ctx, n),
        (epInfo) => {
          epInfo.networkId = networkId;
        },
        (epInfo) => generateHnsEndpoint(host, epInfo, n),
        'HNSEndpoint',
      ),
    );
  } catch (e) {
    throw annotate(e, 'error while adding HNSEndpoint');
  }
  try {
    return constructHnsResult(network, ep);
  } catch (e) {
    throw annotate(e, 'error while constructing HNSEndpoint addition result');
  }
}

/** `cmdHcnAdd`: the v2 path (`apiVersion: 2`); the endpoint joins the namespace CNI_NETNS. */
async function cmdHcnAdd(args: CmdArgs, ctx: PluginContext, n: WinBridgeNetConf): Promise<CniResult> {
  const host = ctx.host;
  const networkName = n.name;
  let network;
  try {
    network = await host.hcn.getNetworkByName(networkName);
  } catch (e) {
    throw annotate(e, `error while getting network ${networkName}`);
  }
  // v2 compares the type exactly (hcn.L2Bridge / hcn.L2Tunnel)
  if (network.Type !== 'L2Bridge' && network.Type !== 'L2Tunnel') {
    throw new Error(`network ${networkName} is of unexpected type: ${network.Type}`);
  }
  const networkId = network.ID;
  const epName = constructEndpointName(args.containerID, args.netns, n.name);
  let ep: HostComputeEndpoint;
  try {
    ep = await addHcnEndpoint(
      host,
      epName,
      networkId,
      args.netns,
      endpointMaker(
        () => processEndpointArgs(args, ctx, n),
        (epInfo) => {
          epInfo.networkId = networkId;
        },
        (epInfo) => generateHcnEndpoint(host, epInfo, n),
        'HostComputeEndpoint',
      ),
    );
  } catch (e) {
    throw annotate(e, 'error while adding HostComputeEndpoint');
  }
  try {
    return constructHcnResult(network, ep);
  } catch (e) {
    throw annotate(e, 'error while constructing HostComputeEndpoint addition result');
  }
}

/** `cmdAdd`: on any error IPAM DEL runs with the same stdin (even after a reused endpoint: pitfall P6). */
async function cmdAdd(args: CmdArgs, ctx: PluginContext): Promise<void> {
  await addEndpointReleasingIpam(args, ctx, loadWinBridgeConf(stdinText(args)), cmdHnsAdd, cmdHcnAdd);
}

/** `cmdDel`: IPAM DEL first (its error returns at once: the endpoint stays), then the endpoint. */
async function cmdDel(args: CmdArgs, ctx: PluginContext): Promise<void> {
  await delEndpointAndIpam(args, ctx, loadWinBridgeConf(stdinText(args)));
}

/** `cmdCheck`: not implemented upstream (a TODO): success. */
async function cmdCheck(): Promise<void> {}

/** `cmdStatus`: forwarded to IPAM when `ipam.type` is set. */
async function cmdStatus(args: CmdArgs, ctx: PluginContext): Promise<void> {
  const n = loadWinBridgeConf(stdinText(args));
  if (n.ipam.type !== '') await ipamExecStatus(ctx, n.ipam.type, args);
}

/** The win-bridge plugin (GC is not implemented upstream: a FIXME). */
export const winBridge: CniPlugin = pluginMain(
  'win-bridge',
  {
    add: cmdAdd,
    del: cmdDel,
    check: cmdCheck,
    status: cmdStatus,
  },
  VERSION_ALL,
  WIN_BRIDGE_ABOUT,
);
