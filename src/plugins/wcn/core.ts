/**
 * The command bodies of windows-container-networking (`common/core/network.go` with the network
 * manager of `network/manager.go` @ b96345f; reference cni-windows.md §4.3): ADD gets or creates
 * the HCN network, returns early for an endpoint already on it, runs IPAM (read as a 0.2.0 result,
 * released again if ADD then fails), creates the endpoint and adds it to CNI_NETNS without deleting
 * it when that fails; DEL releases IPAM first and keeps the endpoint when that fails; CHECK does
 * nothing. hcsshim is v0.8.26, whose `IsNotFoundError` knows only its own not-found errors.
 */
import { HcnClient } from '../../api/hcn/client.js';
import type { HostComputeEndpoint } from '../../api/hcn/endpoint.js';
import {
  EndpointNotFoundError,
  LoadBalancerNotFoundError,
  NamespaceNotFoundError,
  NetworkNotFoundError,
  RouteNotFoundError,
} from '../../api/hcn/errors.js';
import type { HostComputeNetwork } from '../../api/hcn/network.js';
import { hasFeature } from '../../api/hcn/support.js';
import type { JsonObject } from '../../core/json.js';
import { GoPanic, indexOutOfRange } from '../../cni/gopanic.js';
import { delegateAdd, delegateDel } from '../../cni/invoke.js';
import { resultJson } from '../../cni/result.js';
import type { CmdArgs, PluginContext } from '../../cni/skel.js';
import { currResult, getEndpointInfo, getNetworkInfo } from './cni.js';
import {
  parseNetworkConfig,
  podNamespaceFromArgs,
  serializeNetworkConfig,
  type NetworkConfig,
} from './config.js';
import {
  goEndpointV,
  ipEqual,
  maskIP,
  maskOnes,
  parseCIDR,
  parseIP,
  parseTypesCIDR,
  setByte3,
  ZERO_NET,
  type GoIP,
  type GoNet,
} from './gonet.js';
import {
  endpointInfoFromHcn,
  hostComputeEndpoint,
  hostComputeNetworkConfig,
  networkInfoFromHcn,
  type EndpointInfo,
  type NetworkInfo,
} from './network.js';
import { getLoopbackDSRPolicy } from './policy.js';
import { wcnResultText } from './result.js';

/** hcsshim v0.8.26 `hcn.IsNotFoundError`: the client's own not-found errors only (no unwrapping). */
export function isNotFoundError(e: unknown): boolean {
  return (
    e instanceof NetworkNotFoundError ||
    e instanceof EndpointNotFoundError ||
    e instanceof NamespaceNotFoundError ||
    e instanceof LoadBalancerNotFoundError ||
    e instanceof RouteNotFoundError
  );
}

const text = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * hcsshim v0.8.26 `hcn.DSRSupported()`: the features of this HNS, queried once per process (one
 * plugin run here), or `Platform does not support feature Direct Server Return (DSR)`.
 */
async function dsrSupported(ctx: PluginContext): Promise<void> {
  const features = await new HcnClient(ctx.host.hcn.transport).getCachedSupportedFeatures();
  if (!hasFeature(features, 'DSR'))
    throw new Error('Platform does not support feature Direct Server Return (DSR)');
}

// ─────────────────────────────────────────── IPAM ────────────────────────────────────────────

/** The IPAM config: WCN's re-serialised struct unless dual-stack is on (then the original bytes). */
function ipamConf(config: NetworkConfig, stdin: Uint8Array): string | Uint8Array {
  return config.optionalFlags.enableDualStack ? stdin : serializeNetworkConfig(config);
}

interface Ip020 {
  readonly ip: GoNet;
  readonly gateway: GoIP | undefined;
  readonly routes: readonly { dst: GoNet; gw: GoIP | undefined }[];
}

function readIp020(v: unknown): Ip020 | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const o = v as JsonObject;
  const ip = parseTypesCIDR(typeof o['ip'] === 'string' ? o['ip'] : '') ?? ZERO_NET;
  const gateway = typeof o['gateway'] === 'string' ? parseIP(o['gateway']) : undefined;
  const routes = Array.isArray(o['routes'])
    ? o['routes'].map((r) => {
        const ro = (r ?? {}) as JsonObject;
        return {
          dst: parseTypesCIDR(typeof ro['dst'] === 'string' ? ro['dst'] : '') ?? ZERO_NET,
          gw: typeof ro['gw'] === 'string' ? parseIP(ro['gw']) : undefined,
        };
      })
    : [];
  return { ip, gateway, routes };
}

/** `forceBridgeGateway`: the address masked with its prefix, fourth byte set to 2. */
function bridgeGateway(ip: GoNet): GoIP {
  const masked = ip.ip && ip.mask ? maskIP(ip.ip, ip.mask) : undefined;
  if (!masked) throw indexOutOfRange(3, 0);
  return setByte3(masked, 2);
}

/**
 * `allocateIpam`: DelegateAdd, the result converted to 0.2.0 (`types020.GetResult`, with Go's
 * conversion errors), then the endpoint's address and gateway from `ip4` (and `ip6` when
 * dual-stack). IPAM routes are collected but never reach HCN.
 */
async function allocateIpam(
  ctx: PluginContext,
  networkInfo: NetworkInfo,
  ep: EndpointInfo,
  config: NetworkConfig,
  stdin: Uint8Array,
): Promise<void> {
  const result = await delegateAdd(ctx, config.ipam.type, ipamConf(config, stdin));
  const r020 = resultJson(result, '0.2.0');
  const ip4 = readIp020(r020['ip4']);
  const ip6 = readIp020(r020['ip6']);
  const force = config.optionalFlags.forceBridgeGateway;
  if (!config.optionalFlags.enableDualStack) {
    if (ip4) {
      networkInfo.subnets.push({ addressPrefix: ip4.ip, gatewayAddress: ip4.gateway, policies: [] });
      ep.ipAddress = ip4.ip.ip;
      ep.gateway = force ? bridgeGateway(ip4.ip) : ip4.gateway;
      ep.subnet = ip4.ip;
      for (const r of ip4.routes) ep.routes.push({ destination: r.dst, gateway: r.gw });
    }
    return;
  }
  if (ip4) {
    ep.ipAddress = ip4.ip.ip;
    ep.ip4Mask = ip4.ip.mask;
    ep.gateway = force ? bridgeGateway(ip4.ip) : ip4.gateway;
    for (const r of ip4.routes) ep.routes.push({ destination: r.dst, gateway: r.gw });
  }
  if (ip6) {
    ep.ipAddress6 = ip6.ip;
    ep.gateway6 = ip6.gateway;
    for (const r of ip6.routes) ep.routes.push({ destination: r.dst, gateway: r.gw });
  }
}

/** `deallocateIpam`: DelegateDel with the same config `allocateIpam` sent. */
async function deallocateIpam(ctx: PluginContext, config: NetworkConfig, stdin: Uint8Array): Promise<void> {
  await delegateDel(ctx, config.ipam.type, ipamConf(config, stdin));
}

const DEFAULT_V4 = parseCIDR('0.0.0.0/0')!;
/** `::/0`, parsed at first use: an IPv6 parse loads ip-num (src/addr/ip.ts), which importing hnsim does not. */
let defaultV6: { ip: GoIP; net: GoNet } | undefined;

/**
 * `addEndpointGatewaysFromConfig`: a still-nil gateway (IPv4, or IPv6 for routes whose gw is not
 * IPv4 — a nil gw counts as IPv6) is taken from an additionalRoutes entry whose dst is exactly
 * `0.0.0.0/0` (or `::/0`), comparing the prefix length and the address as written.
 */
function addEndpointGatewaysFromConfig(ep: EndpointInfo, config: NetworkConfig): void {
  for (const r of config.additionalRoutes ?? []) {
    const isV4 = r.gw?.family === 4;
    const isDefault = (d: { ip: GoIP; net: GoNet }): boolean =>
      maskOnes(r.dst.mask) === maskOnes(d.net.mask) && ipEqual(r.dst.ip, d.ip);
    if (isV4) {
      if (!ep.gateway && isDefault(DEFAULT_V4)) ep.gateway = r.gw;
    } else if (!ep.gateway6 && isDefault((defaultV6 ??= parseCIDR('::/0')!))) {
      ep.gateway6 = r.gw;
    }
    if (ep.gateway && ep.gateway6) break;
  }
}

// ───────────────────────────────────────── networks ──────────────────────────────────────────

/** `getOrCreateNetwork`: any lookup failure means "missing"; the created network is read back. */
async function getOrCreateNetwork(
  hcn: HcnClient,
  networkInfo: NetworkInfo,
  config: NetworkConfig,
): Promise<NetworkInfo> {
  let found: HostComputeNetwork | undefined;
  try {
    found = await hcn.getNetworkByName(config.name);
  } catch {
    found = undefined;
  }
  if (found) return networkInfoFromHcn(found);
  const created = await hcn.createNetwork(hostComputeNetworkConfig(networkInfo));
  return networkInfoFromHcn(created);
}

/** `networkManager.CreateEndpoint`: create, then add to the namespace — a failure there leaks the endpoint. */
async function createEndpoint(
  hcn: HcnClient,
  networkId: string,
  ep: EndpointInfo,
  namespaceId: string,
): Promise<EndpointInfo> {
  ep.networkId = networkId;
  const config = hostComputeEndpoint(ep);
  let created: HostComputeEndpoint;
  try {
    created = await hcn.createEndpoint(config);
  } catch (e) {
    throw new Error(`error creating endpoint ${text(e)} : endpoint config ${goEndpointV(config)}`);
  }
  try {
    await hcn.addNamespaceEndpoint(namespaceId, created.ID);
  } catch (e) {
    throw new Error(`error adding endpoint to namespace ${text(e)} : endpoint ${goEndpointV(created)}`);
  }
  return endpointInfoFromHcn(created, ep.dualStack);
}

/**
 * `networkManager.DeleteEndpoint`: leave the namespace unless it is '' or not found (a failure to
 * leave it that is not hcsshim's not-found is an error), delete, and on a failed delete re-query by
 * name (its error, e.g. not found, wins).
 */
async function deleteEndpoint(hcn: HcnClient, endpointId: string): Promise<void> {
  const ep = await hcn.getEndpointByID(endpointId);
  let nsFound = false;
  try {
    await hcn.getNamespaceByID(ep.HostComputeNamespace);
    nsFound = true;
  } catch (e) {
    if (!isNotFoundError(e) && ep.HostComputeNamespace !== '') {
      throw new Error(`error while attempting to get namespace, err:${text(e)}`);
    }
  }
  if (nsFound) {
    try {
      await hcn.removeNamespaceEndpoint(ep.HostComputeNamespace, ep.ID);
    } catch (e) {
      if (!isNotFoundError(e)) {
        throw new Error(`error removing endpoint from namespace ${text(e)} : endpoint ${goEndpointV(ep)}`);
      }
    }
  }
  try {
    await ep.delete();
  } catch (e) {
    await hcn.getEndpointByName(ep.Name);
    throw e;
  }
}

// ───────────────────────────────────────── commands ──────────────────────────────────────────

/** `netPlugin.Add`. */
export async function cmdAdd(args: CmdArgs, ctx: PluginContext): Promise<void> {
  const hcn = ctx.host.hcn;
  const podNamespace = podNamespaceFromArgs(args.args);
  const config = parseNetworkConfig(args.stdinData);
  const dualStack = config.optionalFlags.enableDualStack;
  const networkInfo = await getNetworkInfo(config, podNamespace, () => dsrSupported(ctx));
  const epInfo = getEndpointInfo(config, networkInfo, args.containerID, '');
  epInfo.dualStack = dualStack;

  if (args.netns === '') throw new Error('cannot create endpoint without a namespace');

  let nw: NetworkInfo;
  if (!dualStack) {
    nw = await getOrCreateNetwork(hcn, networkInfo, config);
  } else {
    // the network must have been created beforehand, as an L2Bridge
    nw = networkInfoFromHcn(await hcn.getNetworkByName(config.name));
    if (nw.type !== 'L2Bridge') throw new Error('Dual stack specified with non l2bridge network');
  }

  // an endpoint of that name already on this network: its result, nothing else (idempotent ADD)
  let existing: EndpointInfo | undefined;
  let existingEp: HostComputeEndpoint | undefined;
  try {
    existingEp = await hcn.getEndpointByName(epInfo.name);
  } catch {
    existingEp = undefined;
  }
  if (existingEp) existing = endpointInfoFromHcn(existingEp, dualStack);
  if (existing && existing.networkId === nw.id) {
    ctx.stdout.write(wcnResultText(currResult(nw, existing, args.ifName, config), config.cniVersion));
    return;
  }

  let ipamDone = false;
  try {
    if (config.ipam.type !== '') {
      await allocateIpam(ctx, networkInfo, epInfo, config, args.stdinData);
      ipamDone = true;
    }
    if (config.optionalFlags.gatewayFromAdditionalRoutes) addEndpointGatewaysFromConfig(epInfo, config);
    epInfo.policies.push(...networkInfo.policies);
    if (config.optionalFlags.loopbackDSR) epInfo.policies.push(getLoopbackDSRPolicy(epInfo.ipAddress));
    const created = await createEndpoint(hcn, nw.id, epInfo, args.netns);
    ctx.stdout.write(wcnResultText(currResult(nw, created, args.ifName, config), config.cniVersion));
  } catch (e) {
    // the deferred release sees the named error result; a panic leaves it nil
    if (ipamDone && !(e instanceof GoPanic)) {
      try {
        await deallocateIpam(ctx, config, args.stdinData);
      } catch {
        // logged and ignored
      }
    }
    throw e;
  }
}

/** `netPlugin.Delete`. */
export async function cmdDel(args: CmdArgs, ctx: PluginContext): Promise<void> {
  const hcn = ctx.host.hcn;
  const podNamespace = podNamespaceFromArgs(args.args);
  const config = parseNetworkConfig(args.stdinData);
  if (config.ipam.type !== '') {
    try {
      await deallocateIpam(ctx, config, args.stdinData);
    } catch (e) {
      throw new Error(`ipam deletion failed, ${text(e)}`);
    }
  }
  const networkInfo = await getNetworkInfo(config, podNamespace, () => dsrSupported(ctx));
  const epInfo = getEndpointInfo(config, networkInfo, args.containerID, args.netns);
  let ep: HostComputeEndpoint;
  try {
    ep = await hcn.getEndpointByName(epInfo.name);
  } catch (e) {
    if (isNotFoundError(e)) return;
    throw e;
  }
  const endpointInfo = endpointInfoFromHcn(ep, config.optionalFlags.enableDualStack);
  try {
    await deleteEndpoint(hcn, endpointInfo.id);
  } catch (e) {
    if (isNotFoundError(e)) return;
    throw e;
  }
}

/** `netPlugin.Check`: not implemented upstream, so it succeeds. */
export async function cmdCheck(): Promise<void> {
  // logrus.Warnf("CHECK is currently NOT implemented!") and return nil
}
