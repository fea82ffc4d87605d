/**
 * The delegate config flannel builds on Windows (flannel-io/cni-plugin @ 092e6d26: `cmdAdd`'s checks
 * in `flannel.go`, `doCmdAdd` in `flannel_windows.go`; reference cni-windows.md §5.1), the bytes it
 * saves and hands on (a Go map marshalled: keys sorted at every level), and the sandbox ID it keys
 * the saved file by (containernetworking/plugins `pkg/hns` `GetSandboxContainerID`).
 */
import { asGoValue, goMarshal } from '../../cni/gojson.js';
import type { JsonObject } from '../../core/json.js';
import type { FlannelNetConf } from './conf.js';
import { indexOutOfRange } from '../../cni/gopanic.js';
import { netString } from '../../cni/goip.js';
import type { SubnetEnv } from './subnet-env.js';

/** `types020.ImplementedSpecVersion`: the delegate's cniVersion when flannel's conf has none. */
export const FALLBACK_CNI_VERSION = '0.2.0';

/** The delegate `type` when the config names none. */
export const DEFAULT_DELEGATE_TYPE = 'win-bridge';

/**
 * cmdAdd's checks of `delegate` (a present key counts, whatever its value, `null` included); returns
 * the map flannel goes on with (a fresh one when `delegate` is absent), plus `runtimeConfig` copied
 * in when the conf has one.
 */
export function checkedDelegate(conf: FlannelNetConf): Record<string, unknown> {
  const d: Record<string, unknown> = { ...(conf.delegate ?? {}) };
  if (conf.delegate) {
    if (Object.hasOwn(d, 'type') && typeof d['type'] !== 'string') {
      throw new Error("'delegate' dictionary, if present, must have (string) 'type' field");
    }
    if (Object.hasOwn(d, 'name'))
      throw new Error("'delegate' dictionary must not have 'name' field, it'll be set by flannel");
    if (Object.hasOwn(d, 'ipam'))
      throw new Error("'delegate' dictionary must not have 'ipam' field, it'll be set by flannel");
  }
  if (conf.runtimeConfig) d['runtimeConfig'] = conf.runtimeConfig;
  return d;
}

/**
 * `doCmdAdd` on Windows: `name` from the conf, `type` defaulting to win-bridge, `ipMasq` =
 * FLANNEL_IPMASQ as it is (not inverted), `ipMasqNetwork` = the first FLANNEL_NETWORK (none: Go
 * panics indexing it), `cniVersion` = the conf's or 0.2.0, `ipam` = host-local on FLANNEL_SUBNET's
 * network (`<nil>` when only an IPv6 subnet is known, as Go prints a nil `*IPNet`).
 */
export function windowsDelegate(
  conf: FlannelNetConf,
  delegate: Record<string, unknown>,
  fenv: SubnetEnv,
): JsonObject {
  const d: Record<string, unknown> = { ...delegate };
  d['name'] = conf.name;
  if (!Object.hasOwn(d, 'type')) d['type'] = DEFAULT_DELEGATE_TYPE;
  d['ipMasq'] = fenv.ipMasq === true;
  const first = fenv.networks[0];
  if (!first) throw indexOutOfRange(0, 0);
  d['ipMasqNetwork'] = netString(first);
  d['cniVersion'] = conf.cniVersion !== '' ? conf.cniVersion : FALLBACK_CNI_VERSION;
  d['ipam'] = { type: 'host-local', subnet: netString(fenv.subnet) };
  return d as JsonObject;
}

/** `json.Marshal(map[string]interface{})`: compact, keys sorted at every level, HTML escaped. */
export function delegateBytes(delegate: JsonObject): string {
  return goMarshal(asGoValue(delegate));
}

/**
 * `hns.GetSandboxContainerID(containerID, netns)`: a netns other than "" and `none` that has a `:`
 * names the sandbox after its first `:` (`container:<id>` from dockershim); anything else (a
 * namespace GUID from containerd, `none`, "") leaves the container ID.
 */
export function sandboxContainerId(containerId: string, netns: string): string {
  if (netns !== '' && netns !== 'none') {
    const i = netns.indexOf(':');
    if (i >= 0) return netns.slice(i + 1);
  }
  return containerId;
}
