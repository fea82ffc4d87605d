/**
 * The IPAM side of win-bridge/win-overlay (containernetworking/plugins `pkg/ipam`, reference
 * cni-windows.md §2.5-§2.6): `ipam.ExecAdd/ExecDel/ExecStatus` are `invoke.Delegate*` with the
 * plugin's own stdin, and the IPAM result is read through `current.NewResultFromResult`.
 */
import type { CniResult } from '../../cni/contracts.js';
import { delegateAdd, delegateDel, delegateStatus } from '../../cni/invoke.js';
import { convertResult, printResult } from '../../cni/result.js';
import type { CmdArgs, PluginContext } from '../../cni/skel.js';
import {
  constructEndpointName,
  IMPLEMENTED_SPEC_VERSION,
  removeHcnEndpoint,
  removeHnsEndpoint,
} from './endpoint.js';
import type { HnsNetConf } from './netconf.js';
import { GoPanic, indexOutOfRange } from '../../cni/gopanic.js';
import { maskIP, parseCIDR, type GoIPBytes } from '../../cni/goip.js';
import { annotate } from './errors.js';

/** `ipam.ExecAdd(plugin, stdin)`: an empty plugin name fails with `no plugin name provided`. */
export function ipamExecAdd(ctx: PluginContext, plugin: string, args: CmdArgs): Promise<CniResult> {
  return delegateAdd(ctx, plugin, args.stdinData);
}

/** `ipam.ExecDel(plugin, stdin)`. */
export function ipamExecDel(ctx: PluginContext, plugin: string, args: CmdArgs): Promise<void> {
  return delegateDel(ctx, plugin, args.stdinData);
}

/** `ipam.ExecDel` whose error is dropped (the ADD error paths ignore it). */
export async function ipamExecDelIgnoringErrors(
  ctx: PluginContext,
  plugin: string,
  args: CmdArgs,
): Promise<void> {
  try {
    await ipamExecDel(ctx, plugin, args);
  } catch (e) {
    if (e instanceof GoPanic) throw e;
  }
}

/** `ipam.ExecStatus(plugin, stdin)`. */
export function ipamExecStatus(ctx: PluginContext, plugin: string, args: CmdArgs): Promise<void> {
  return delegateStatus(ctx, plugin, args.stdinData);
}

/** One of a plugin's ADD paths (`cmdHnsAdd` for v1, `cmdHcnAdd` for v2). */
export type AddPath<N extends HnsNetConf> = (args: CmdArgs, ctx: PluginContext, n: N) => Promise<CniResult>;

/**
 * win-bridge's and win-overlay's `cmdAdd`: the path the config's `apiVersion` names; when it fails
 * with an error IPAM DEL runs with the same stdin, its own error dropped (a Go panic unwinds past
 * this cleanup: it is not deferred); the result is printed at the config's version.
 */
export async function addEndpointReleasingIpam<N extends HnsNetConf>(
  args: CmdArgs,
  ctx: PluginContext,
  n: N,
  v1: AddPath<N>,
  v2: AddPath<N>,
): Promise<void> {
  let result: CniResult;
  try {
    result = n.apiVersion === 2 ? await v2(args, ctx, n) : await v1(args, ctx, n);
  } catch (e) {
    if (!(e instanceof GoPanic)) await ipamExecDelIgnoringErrors(ctx, n.ipam.type, args);
    throw e;
  }
  printResult(ctx.stdout, result, n.cniVersion);
}

/**
 * win-bridge's and win-overlay's `cmdDel`: IPAM DEL first when `ipam.type` is set (its error returns
 * at once: the endpoint stays), then the endpoint through the API the config names (v1 with an
 * empty netns leaves it).
 */
export async function delEndpointAndIpam(args: CmdArgs, ctx: PluginContext, n: HnsNetConf): Promise<void> {
  if (n.ipam.type !== '') await ipamExecDel(ctx, n.ipam.type, args);
  const epName = constructEndpointName(args.containerID, args.netns, n.name);
  if (n.apiVersion === 2) {
    await removeHcnEndpoint(ctx.host, epName);
    return;
  }
  await removeHnsEndpoint(ctx.host, epName, args.netns, args.containerID);
}

/** `current.NewResultFromResult(r)`: the result converted to the implemented spec version. */
export function newResultFromResult(r: CniResult): CniResult {
  return convertResult(r, IMPLEMENTED_SPEC_VERSION);
}

/**
 * The makers' IPAM step: `ipam.ExecAdd`, then `current.NewResultFromResult`, each error annotated
 * with the caller's text, and `IPAM plugin return is missing IP config` when no address came back.
 */
export async function ipamAddResult(
  ctx: PluginContext,
  plugin: string,
  args: CmdArgs,
  annotations: { readonly exec: string; readonly convert: string },
): Promise<CniResult> {
  let r: CniResult;
  try {
    r = await ipamExecAdd(ctx, plugin, args);
  } catch (e) {
    throw annotate(e, annotations.exec);
  }
  let result: CniResult;
  try {
    result = newResultFromResult(r);
  } catch (e) {
    throw annotate(e, annotations.convert);
  }
  if ((result.ips?.length ?? 0) === 0) throw new Error('IPAM plugin return is missing IP config');
  return result;
}

/** The texts win-bridge's and win-overlay's v2 `processEndpointArgs` annotate IPAM errors with. */
export const PROCESS_ENDPOINT_ARGS_IPAM = {
  exec: 'error while executing IPAM addition',
  convert: 'error while converting the result from IPAM addition',
} as const;

/** `result.IPs[0].Address`: the host address (16 bytes for IPv4) and the subnet mask. */
export function firstAddress(r: CniResult): { ip: Uint8Array; mask: Uint8Array } {
  const address = r.ips?.[0]?.address ?? '';
  return parseCIDR(address);
}

/**
 * win-bridge's gateway rule: the IP masked to its network, last byte plus 2 (mod 256, as a Go
 * byte), whatever gateway IPAM returned (`10.244.1.3/24` → `10.244.1.2`).
 */
export function bridgeGateway(ip: Uint8Array, mask: Uint8Array): GoIPBytes {
  const gw = maskIP(ip, mask);
  if (gw === null || gw.length === 0) {
    throw indexOutOfRange(-1);
  }
  gw[gw.length - 1] = (gw[gw.length - 1]! + 2) & 0xff;
  return gw;
}
