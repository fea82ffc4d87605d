/**
 * The IPAM side of win-bridge/win-overlay (containernetworking/plugins `pkg/ipam`, reference
 * cni-windows.md §2.5-§2.6): `ipam.ExecAdd/ExecDel/ExecStatus` are `invoke.Delegate*` with the
 * plugin's own stdin, and the IPAM result is read through `current.NewResultFromResult`.
 */
import type { CniResult } from '../../cni/contracts.js';
import { delegateAdd, delegateDel, delegateStatus } from '../../cni/invoke.js';
import { convertResult } from '../../cni/result.js';
import type { CmdArgs, PluginContext } from '../../cni/skel.js';
import { IMPLEMENTED_SPEC_VERSION } from './endpoint.js';
import { GoPanicError } from './errors.js';
import { maskIP, parseCIDR, type GoIP } from './goip.js';

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
    await delegateDel(ctx, plugin, args.stdinData);
  } catch (e) {
    if (e instanceof GoPanicError) throw e;
  }
}

/** `ipam.ExecStatus(plugin, stdin)`. */
export function ipamExecStatus(ctx: PluginContext, plugin: string, args: CmdArgs): Promise<void> {
  return delegateStatus(ctx, plugin, args.stdinData);
}

/** `current.NewResultFromResult(r)`: the result converted to the implemented spec version. */
export function newResultFromResult(r: CniResult): CniResult {
  return convertResult(r, IMPLEMENTED_SPEC_VERSION);
}

/** `result.IPs[0].Address`: the host address (16 bytes for IPv4) and the subnet mask. */
export function firstAddress(r: CniResult): { ip: Uint8Array; mask: Uint8Array } {
  const address = r.ips?.[0]?.address ?? '';
  return parseCIDR(address);
}

/**
 * win-bridge's gateway rule: the IP masked to its network, last byte plus 2 (mod 256, as a Go
 * byte), whatever gateway IPAM returned (`10.244.1.3/24` → `10.244.1.2`).
 */
export function bridgeGateway(ip: Uint8Array, mask: Uint8Array): GoIP {
  const gw = maskIP(ip, mask);
  if (gw === null || gw.length === 0) {
    throw new GoPanicError('runtime error: index out of range [-1]');
  }
  gw[gw.length - 1] = (gw[gw.length - 1]! + 2) & 0xff;
  return gw;
}
