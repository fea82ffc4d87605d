/**
 * containernetworking/plugins `win-bridge` (v1.9.1, `plugins/main/windows/win-bridge/win-bridge_windows.go`;
 * reference cni-windows.md §2.5, §2.7, §7): an endpoint on an existing L2Bridge/L2Tunnel network,
 * through HNS v1 (HotAttach; dockershim's `none` / `container:<id>`) or, with `apiVersion: 2`, HCN
 * (namespace add; containerd). Gateway = IPAM address masked + 2; OutBoundNAT exception from
 * `ipMasqNetwork`; port mappings; loopback DSR when HNS supports it. Quirks kept: IPAM DEL first on
 * DEL (an error there leaves the endpoint), a v1 DEL with an empty netns does nothing.
 */
import type { CniPlugin, CniResult } from '../cni/contracts.js';
import { printResult } from '../cni/result.js';
import { pluginMain, stdinText, type CmdArgs, type PluginContext } from '../cni/skel.js';
import { VERSION_ALL } from '../cni/version.js';
import type { HNSEndpoint } from '../api/hnsv1/types.js';
import type { HostComputeEndpoint } from '../api/hcn/endpoint.js';
import {
  addHcnEndpoint,
  addHnsEndpoint,
  constructEndpointName,
  constructHcnResult,
  constructHnsResult,
  generateHcnEndpoint,
  generateHnsEndpoint,
  newEndpointInfo,
  removeHcnEndpoint,
  removeHnsEndpoint,
  type EndpointInfo,
} from './hns/endpoint.js';
import { annotate, GoPanicError, recoverPanics, withGoPanics } from './hns/errors.js';
import { GO_STRING } from './hns/gojson.js';
import {
  bridgeGateway,
  firstAddress,
  ipamExecAdd,
  ipamExecDel,
  ipamExecDelIgnoringErrors,
  ipamExecStatus,
  newResultFromResult,
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

const EXTRA_FIELDS: readonly PluginField[] = [
  { json: 'ipMasqNetwork', prop: 'ipMasqNetwork', type: GO_STRING },
];

/** `loadNetConf(stdin)`: `failed to load netconf: <Go's decode error>`. */
export function loadWinBridgeConf(stdin: string): WinBridgeNetConf {
  return loadNetConf<WinBridgeNetConf>(stdin, EXTRA_FIELDS);
}

function equalFold(a: string | undefined, b: string): boolean {
  return (a ?? '').toLowerCase() === b.toLowerCase();
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
    let r: CniResult;
    try {
      r = await ipamExecAdd(ctx, n.ipam.type, args);
    } catch (e) {
      throw annotate(e, 'error while executing IPAM addition');
    }
    let result: CniResult;
    try {
      result = newResultFromResult(r);
    } catch (e) {
      throw annotate(e, 'error while converting the result from IPAM addition');
    }
    if ((result.ips?.length ?? 0) === 0) throw new Error('IPAM plugin return is missing IP config');
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
    ep = await addHnsEndpoint(host, epName, networkId, args.containerID, args.netns, async () => {
      let epInfo: EndpointInfo;
      try {
        epInfo = await processEndpointArgs(args, ctx, n);
      } catch (e) {
        throw annotate(e, 'error while processing endpoint args');
      }
      epInfo.networkId = networkId;
      try {
        return await generateHnsEndpoint(host, epInfo, n);
      } catch (e) {
        throw annotate(e, 'error while generating HNSEndpoint');
      }
    });
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
    ep = await addHcnEndpoint(host, epName, networkId, args.netns, async () => {
      let epInfo: EndpointInfo;
      try {
        epInfo = await processEndpointArgs(args, ctx, n);
      } catch (e) {
        throw annotate(e, 'error while processing endpoint args');
      }
      epInfo.networkId = networkId;
      try {
        return await generateHcnEndpoint(host, epInfo, n);
      } catch (e) {
        throw annotate(e, 'error while generating HostComputeEndpoint');
      }
    });
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
  const n = loadWinBridgeConf(stdinText(args));
  let result: CniResult;
  try {
    result = n.apiVersion === 2 ? await cmdHcnAdd(args, ctx, n) : await cmdHnsAdd(args, ctx, n);
  } catch (e) {
    // a Go panic unwinds past this cleanup (it is not deferred)
    if (!(e instanceof GoPanicError)) await ipamExecDelIgnoringErrors(ctx, n.ipam.type, args);
    throw e;
  }
  printResult(ctx.stdout, result, n.cniVersion);
}

/** `cmdDel`: IPAM DEL first (its error returns at once: the endpoint stays), then the endpoint. */
async function cmdDel(args: CmdArgs, ctx: PluginContext): Promise<void> {
  const n = loadWinBridgeConf(stdinText(args));
  if (n.ipam.type !== '') await ipamExecDel(ctx, n.ipam.type, args);
  const epName = constructEndpointName(args.containerID, args.netns, n.name);
  if (n.apiVersion === 2) {
    await removeHcnEndpoint(ctx.host, epName);
    return;
  }
  await removeHnsEndpoint(ctx.host, epName, args.netns, args.containerID);
}

/** `cmdCheck`: not implemented upstream (a TODO): success. */
async function cmdCheck(): Promise<void> {}

/** `cmdStatus`: forwarded to IPAM when `ipam.type` is set. */
async function cmdStatus(args: CmdArgs, ctx: PluginContext): Promise<void> {
  const n = loadWinBridgeConf(stdinText(args));
  if (n.ipam.type !== '') await ipamExecStatus(ctx, n.ipam.type, args);
}

/** The win-bridge plugin (GC is not implemented upstream: a FIXME). */
export const winBridge: CniPlugin = withGoPanics(
  pluginMain(
    'win-bridge',
    {
      add: recoverPanics(cmdAdd),
      del: recoverPanics(cmdDel),
      check: cmdCheck,
      status: recoverPanics(cmdStatus),
    },
    VERSION_ALL,
    WIN_BRIDGE_ABOUT,
  ),
);
