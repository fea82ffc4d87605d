/**
 * azure-vnet's side of CNS (ACN v1.8.12 `cns/client/client.go`, `cns/client/error.go`,
 * `cni/network/invoker_cns.go`; reference azure-cni.md §5.4): the client calls it makes over the
 * node's HTTP (`PluginHost.httpRequest`; src/plugins/cns answers them) and the CNS IPAM invoker that
 * turns CNS's `PodIpInfo` into the endpoint's addresses, gateway, routes and host subnet. SwiftV2
 * NIC types (FrontendNIC, BackendNIC, ApipaNIC) are not handled: like an unknown type they are
 * ignored, which leaves no interface with default routes.
 */
import type { PluginHost } from '../../cni/contracts.js';
import { errorMessage } from '../../core/errors.js';
import { isJsonObject, type Json, type JsonObject } from '../../core/json.js';
import { formatIPv4, parseIPv4, parsePrefix } from '../../addr/ip.js';
import { ASYNC_DELETE_DIR } from '../cns/index.js';

/** `cns/client` `defaultBaseURL`. */
export const CNS_DEFAULT_URL = 'http://localhost:10090';
/** `cns/types` `UnsupportedAPI`. */
const UNSUPPORTED_API = 43;
/** `cns/types` `UnexpectedError`. */
const UNEXPECTED_ERROR = 99;
/** The IPAM modes that mean Overlay (`cni/util/const.go`). */
export const OVERLAY_MODES: ReadonlySet<string> = new Set(['v4overlay', 'dualStackOverlay', 'overlay']);

/** `cnsclient.CNSClientError`. */
export class CnsClientError extends Error {
  constructor(
    readonly code: number,
    readonly err: string,
  ) {
    super(`[Azure cnsclient] Code: ${code} , Error: ${err}`);
    this.name = 'CnsClientError';
  }
}

/** `cnsclient.ConnectionFailureErr`: its text is the transport error's. */
export class ConnectionFailure extends Error {
  constructor(cause: unknown) {
    super(errorMessage(cause));
    this.name = 'ConnectionFailure';
  }
}

const isUnsupportedApi = (e: unknown): boolean => e instanceof CnsClientError && e.code === UNSUPPORTED_API;

/** A key of a decoded Go struct, matched as `encoding/json` does (case-insensitively). */
export function member(o: JsonObject, name: string): Json | undefined {
  if (name in o) return o[name];
  const lower = name.toLowerCase();
  for (const k of Object.keys(o)) if (k.toLowerCase() === lower) return o[k];
  return undefined;
}

export const str = (o: JsonObject | undefined, name: string): string => {
  const v = o ? member(o, name) : undefined;
  return typeof v === 'string' ? v : '';
};
export const obj = (o: JsonObject | undefined, name: string): JsonObject | undefined => {
  const v = o ? member(o, name) : undefined;
  return isJsonObject(v) ? v : undefined;
};

/** The HTTP exchange: a transport failure is thrown as Go's `Do` error text. */
function post(
  host: PluginHost,
  base: string,
  path: string,
  body: JsonObject,
): { status: number; text: string } {
  if (!host.httpRequest) throw new Error(`Post "${base}${path}": nothing answers on this host`);
  // json.NewEncoder(...).Encode: the body ends with a newline
  const r = host.httpRequest('POST', `${base}${path}`, `${JSON.stringify(body)}\n`);
  return { status: r.status, text: r.body };
}

function decode(text: string, what: string): JsonObject {
  try {
    const v = JSON.parse(text) as Json;
    if (isJsonObject(v)) return v;
    throw new Error(
      `json: cannot unmarshal ${Array.isArray(v) ? 'array' : typeof v} into Go value of type ${what}`,
    );
  } catch (e) {
    throw new Error(`failed to decode ${what.replace(/^cns\./, '')}: ${errorMessage(e)}`);
  }
}

/** `Response.ReturnCode != 0` → the bare message (the code is lost). */
function checkResponse(r: JsonObject | undefined): void {
  const code = r ? member(r, 'ReturnCode') : undefined;
  if (typeof code === 'number' && code !== 0) throw new Error(str(r, 'Message'));
}

/** `RequestIPs`: `/network/requestipconfigs`. */
export function requestIPs(host: PluginHost, base: string, req: JsonObject): JsonObject {
  let res;
  try {
    res = post(host, base, '/network/requestipconfigs', req);
  } catch (e) {
    // the deferred ReleaseIPs of the same request (its outcome is dropped)
    try {
      releaseIPs(host, base, req);
    } catch {
      // ignored upstream
    }
    throw new Error(`http request failed: ${errorMessage(e)}`);
  }
  if (res.status === 404) throw new CnsClientError(UNSUPPORTED_API, 'Unsupported API');
  if (res.status !== 200) throw new Error(`http response ${res.status}`);
  const body = decode(res.text, 'cns.IPConfigsResponse');
  checkResponse(obj(body, 'response'));
  return body;
}

/** `RequestIPAddress`: `/network/requestipconfig` (no 404 special case). */
export function requestIPAddress(host: PluginHost, base: string, req: JsonObject): JsonObject {
  let res;
  try {
    res = post(host, base, '/network/requestipconfig', req);
  } catch (e) {
    throw new Error(`http request failed: ${errorMessage(e)}`);
  }
  if (res.status !== 200) throw new Error(`http response ${res.status}`);
  const body = decode(res.text, 'cns.IPConfigResponse');
  checkResponse(obj(body, 'Response'));
  return body;
}

/**
 * `ReleaseIPs` / `ReleaseIPAddress`: the reply is decoded as a top-level `cns.Response`, so a CNS
 * failure inside `{"response":{…}}` reads as success, as upstream's client reads it.
 */
export function releaseIPs(host: PluginHost, base: string, req: JsonObject, single = false): void {
  let res;
  try {
    res = post(host, base, single ? '/network/releaseipconfig' : '/network/releaseipconfigs', req);
  } catch (e) {
    throw new ConnectionFailure(e);
  }
  if (res.status === 404 && !single) throw new CnsClientError(UNSUPPORTED_API, 'Unsupported API');
  if (res.status !== 200) throw new Error(`http response ${res.status}`);
  checkResponse(decode(res.text, 'cns.Response'));
}

/** `GetNetworkContainer` (`/network/getnetworkcontainerbyorchestratorcontext`), as UPDATE calls it. */
export function getNetworkContainer(
  host: PluginHost,
  base: string,
  podName: string,
  podNamespace: string,
): JsonObject {
  return ncCall(host, base, '/network/getnetworkcontainerbyorchestratorcontext', podName, podNamespace);
}

/** One NC lookup: a non-200 or a non-zero ReturnCode is a `CNSClientError` (404 on getAll: 43). */
function ncCall(
  host: PluginHost,
  base: string,
  path: string,
  podName: string,
  podNamespace: string,
): JsonObject {
  const body = { NetworkContainerid: '', OrchestratorContext: { podName, podNamespace } };
  let res;
  try {
    res = post(host, base, path, body);
  } catch (e) {
    throw new Error(`http request failed: ${errorMessage(e)}`);
  }
  if (res.status === 404 && path.endsWith('getAllNetworkContainers'))
    throw new CnsClientError(UNSUPPORTED_API, 'Unsupported API');
  if (res.status !== 200) throw new CnsClientError(UNEXPECTED_ERROR, `http response ${res.status}`);
  let doc: JsonObject;
  try {
    doc = decode(res.text, 'cns.GetNetworkContainerResponse');
  } catch (e) {
    throw new CnsClientError(UNEXPECTED_ERROR, errorMessage(e));
  }
  const r = obj(doc, 'Response');
  const code = r ? member(r, 'ReturnCode') : 0;
  if (typeof code === 'number' && code !== 0) throw new CnsClientError(code, str(r, 'Message'));
  return doc;
}

/** `GetAllNetworkContainers` (falling back to `GetNetworkContainer` on 404, as multitenancy.go does). */
export function getNetworkContainers(
  host: PluginHost,
  base: string,
  podName: string,
  podNamespace: string,
): JsonObject[] {
  const call = (path: string): JsonObject => ncCall(host, base, path, podName, podNamespace);
  try {
    const all = call('/network/getAllNetworkContainers');
    const list = member(all, 'NetworkContainers');
    return Array.isArray(list) ? list.filter(isJsonObject) : [];
  } catch (e) {
    if (!isUnsupportedApi(e)) throw e;
    return [call('/network/getnetworkcontainerbyorchestratorcontext')];
  }
}

/** The `IPConfigsRequest` azure-vnet sends for a pod interface (lower-camel tags, the upstream typo included). */
export function ipConfigsRequest(
  podName: string,
  podNamespace: string,
  podInterfaceId: string,
  containerId: string,
  desired: readonly string[] | null,
): JsonObject {
  return {
    desiredIPAddresses: desired === null ? null : [...desired],
    podInterfaceID: podInterfaceId,
    infraContainerID: containerId,
    orchestratorContext: { podName, podNamespace },
    ifname: '',
    secondaryInterfacesExist: false,
    BackendInterfaceExist: false,
    BacknendInterfaceMacAddress: null,
  };
}

/** The legacy single-IP `IPConfigRequest` (Go field names, no tags) for a pod interface. */
function ipConfigRequest(args: {
  podName: string;
  podNamespace: string;
  podInterfaceId: string;
  containerId: string;
}): JsonObject {
  return {
    DesiredIPAddress: '',
    PodInterfaceID: args.podInterfaceId,
    InfraContainerID: args.containerId,
    OrchestratorContext: { podName: args.podName, podNamespace: args.podNamespace },
    Ifname: '',
  };
}

/** One address of the InfraNIC as `configureDefaultAddResult` makes it. */
export interface CnsIpConfig {
  readonly ip: string;
  readonly len: number;
  readonly gateway: string;
  readonly family: 4 | 6;
}

/** `invoker_cns.go` `overlayGatewayV6IP`: an Overlay IPv6 NC's gateway when CNS gives none. */
const OVERLAY_GATEWAY_V6 = 'fe80::1234:5678:9abc';

/** What the CNS invoker's ADD gives the plugin: the InfraNIC's addresses, routes and host subnet. */
export interface CnsAddResult {
  readonly ipConfigs: CnsIpConfig[];
  readonly routes: { readonly dst: string; readonly gw: string }[];
  /** `HostPrimaryIPInfo.Subnet` (the master interface is found by it). */
  readonly hostSubnet: string;
  /** The NC's primary IP (`NCPrimaryIPKey`): Swift's DNS NAT VirtualIP. */
  readonly ncPrimaryIp: string;
  readonly overlay: boolean;
  /** An IPv6 address was handed out (dual-stack). */
  readonly ipv6Enabled: boolean;
}

const invalidArgs = 'invalid arg(s)';

/** `CNSIPAMInvoker.Add`. */
export function cnsInvokerAdd(
  host: PluginHost,
  base: string,
  args: { podName: string; podNamespace: string; podInterfaceId: string; containerId: string },
  ipamMode: string,
): CnsAddResult {
  const req = ipConfigsRequest(args.podName, args.podNamespace, args.podInterfaceId, args.containerId, null);
  let infos: JsonObject[];
  try {
    const res = requestIPs(host, base, req);
    const list = member(res, 'podIPInfo');
    infos = Array.isArray(list) ? list.filter(isJsonObject) : [];
  } catch (e) {
    if (!isUnsupportedApi(e)) throw new Error(`Failed to get IP address from CNS: ${errorMessage(e)}`);
    try {
      const single = requestIPAddress(host, base, ipConfigRequest(args));
      const one = obj(single, 'PodIpInfo');
      infos = one ? [one] : [];
    } catch (e2) {
      throw new Error(`Failed to get IP address from CNS: ${errorMessage(e2)}`);
    }
  }
  const overlay = OVERLAY_MODES.has(ipamMode);
  const out: CnsAddResult = {
    ipConfigs: [],
    routes: [],
    hostSubnet: '',
    ncPrimaryIp: '',
    overlay,
    ipv6Enabled: false,
  };
  let defaultRouteInterfaces = 0;
  let infra = false;
  for (const info of infos) {
    const nicType = str(info, 'NICType');
    if (nicType !== 'InfraNIC' && nicType !== '') continue; // SwiftV2 NICs: not modelled
    const skip = member(info, 'SkipDefaultRoutes') === true;
    if (!infra) {
      infra = true;
      if (!skip) defaultRouteInterfaces++;
    }
    defaultAddResult(info, overlay, out);
  }
  if (defaultRouteInterfaces !== 1)
    throw new Error('add result requires exactly one interface with default routes');
  return out;
}

/** `configureDefaultAddResult` (one InfraNIC address, IPv4 or IPv6) into `out`. */
function defaultAddResult(info: JsonObject, overlay: boolean, out: CnsAddResult): void {
  const nc = obj(info, 'NetworkContainerPrimaryIPConfig');
  const ncPrimary = str(obj(nc, 'IPSubnet'), 'IPAddress');
  const podIp = str(obj(info, 'PodIPConfig'), 'IPAddress');
  const v6 = podIp.includes(':') && parsePrefix(`${podIp}/128`)?.family === 6;
  // getIPConfigPrefixLength: IPSubnetV6's length for an IPv6 pod when set, else IPSubnet's
  const lenOf = (sub: JsonObject | undefined): number => {
    const v = sub ? member(sub, 'PrefixLength') : undefined;
    return typeof v === 'number' ? v : 0;
  };
  const v6Len = lenOf(obj(nc, 'IPSubnetV6'));
  const len = v6 && v6Len > 0 ? v6Len : lenOf(obj(nc, 'IPSubnet'));
  // getIPConfigGatewayAddress: GatewayIPv6Address for an IPv6 pod when it parses, else GatewayIPAddress
  const gw6 = str(nc, 'GatewayIPv6Address');
  const gwText = v6 && parsePrefix(`${gw6}/128`)?.family === 6 ? gw6 : str(nc, 'GatewayIPAddress');
  const host = obj(info, 'HostPrimaryIPInfo');
  if (parseIPv4(ncPrimary) !== undefined) (out as { ncPrimaryIp: string }).ncPrimaryIp = ncPrimary;
  const pod = parsePrefix(`${podIp}/${len}`);
  if (!pod)
    throw new Error(
      `Unable to parse IP from response: ${podIp} with err %w: invalid CIDR address: ${podIp}/${len}`,
    );
  const gwOk = gwText !== '' && parsePrefix(`${gwText}/${gwText.includes(':') ? 128 : 32}`) !== undefined;
  let gateway = gwOk ? gwText : '';
  if (gateway === '') {
    if (!overlay) throw new Error(`%w: Gateway address ${gwText} from response is invalid: ${invalidArgs}`);
    if (pod.family === 6) gateway = OVERLAY_GATEWAY_V6;
    else {
      // Windows: the subnet's address with its last byte + 1
      const gw = ((pod.addr & ~0xff) | (((pod.addr & 0xff) + 1) & 0xff)) >>> 0;
      const mask = len === 0 ? 0 : (~0 << (32 - len)) >>> 0;
      if ((gw & mask) >>> 0 !== pod.addr || gw === pod.addr)
        throw new Error(`%w: Failed to retrieve overlay gateway from podsubnet${podIp}: ${invalidArgs}`);
      gateway = formatIPv4(gw);
    }
  }
  const hostSubnet = str(host, 'Subnet');
  if (!parsePrefix(hostSubnet))
    throw new Error(`unable to parse hostSubnet: invalid CIDR address: ${hostSubnet}`);
  out.ipConfigs.push({ ip: podIp, len, gateway, family: pod.family });
  const routes = member(info, 'Routes');
  if (Array.isArray(routes) && routes.length > 0) {
    for (const r of routes.filter(isJsonObject)) {
      const dst = str(r, 'IPAddress');
      if (!parsePrefix(dst))
        throw new Error(`unable to parse destination ${dst}: invalid CIDR address: ${dst}`);
      out.routes.push({ dst, gw: str(r, 'GatewayIPAddress') });
    }
  } else out.routes.push({ dst: pod.family === 6 ? '::/0' : '0.0.0.0/0', gw: gateway });
  if (pod.family === 6) (out as { ipv6Enabled: boolean }).ipv6Enabled = true;
  (out as { hostSubnet: string }).hostSubnet = hostSubnet;
  if (!overlay) {
    const primary = str(host, 'PrimaryIP');
    if (parseIPv4(primary) === undefined)
      throw new Error(`Host IP address ${primary} from response is invalid`);
    const hostGw = str(host, 'Gateway');
    if (parseIPv4(hostGw) === undefined) throw new Error(`Host Gateway ${hostGw} from response is invalid`);
  }
}

/**
 * `CNSIPAMInvoker.Delete`: release the pod interface's addresses (`address`: the one to name, or
 * null). CNS not reachable: the pod is left in `deleteIDs/<container ID>` for CNS to release when it
 * runs again and the DEL succeeds — unless `disableAsyncDelete`.
 */
export function cnsInvokerDelete(
  host: PluginHost,
  args: { podName: string; podNamespace: string; podInterfaceId: string; containerId: string },
  address: string | null,
  disableAsyncDelete: boolean,
): void {
  // DEL's client ignores cnsurl (network.go Delete: cnscli.New("", …))
  const base = CNS_DEFAULT_URL;
  const req = ipConfigsRequest(
    args.podName,
    args.podNamespace,
    args.podInterfaceId,
    args.containerId,
    address === null ? null : [address],
  );
  const asyncDelete = (suffix: string): void => {
    const path = `${ASYNC_DELETE_DIR}/${args.containerId}`;
    try {
      host.files.write(path, args.podInterfaceId);
    } catch (e) {
      throw new Error(
        `failed to add file to watcher with containerID ${args.containerId} and podInterfaceID ${args.podInterfaceId}${suffix}: error creating file: ${errorMessage(e)}`,
      );
    }
  };
  // CNS not reachable: the pod is left for CNS (async delete), unless that is disabled
  const unreachable = (api: string, e: ConnectionFailure, suffix: string): void => {
    if (disableAsyncDelete)
      throw new Error(
        `failed to release IP address using ${api} and async delete is disabled: ${errorMessage(e)}`,
      );
    asyncDelete(suffix);
  };
  try {
    releaseIPs(host, base, req);
  } catch (e) {
    if (isUnsupportedApi(e)) {
      try {
        releaseIPs(host, base, ipConfigRequest(args), true);
      } catch (e2) {
        if (!(e2 instanceof ConnectionFailure))
          throw new Error(`failed to release IP  using ReleaseIPAddress with err %w: ${errorMessage(e2)}`);
        unreachable('ReleaseIPAddress', e2, ' (unsupported api path)');
      }
      return;
    }
    if (e instanceof ConnectionFailure) return unreachable('ReleaseIPs', e, '');
    throw new Error(
      `failed to release IP [${address ?? ''}] using ReleaseIPs with err %w: ${errorMessage(e)}`,
    );
  }
}
