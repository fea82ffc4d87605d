/**
 * The agent's CNI server as the `antrea` CNI binary reaches it (antrea-io/antrea @ fc70f2bb70:
 * pkg/agent/cniserver/server.go, server_windows.go; the messages of pkg/apis/cni/v1beta1/cni.proto):
 * a gRPC service `antrea_io.antrea.pkg.apis.cni.v1beta1.Cni` with CmdAdd, CmdCheck and CmdDel, served
 * on the named pipe `\\.\pipe\cnisock` (pkg/cni/default_windows.go; src/host/pipes.ts).
 *
 * Every request is checked as `validateRequestMessage` checks it — the network configuration and
 * CNI_ARGS decoded (`Failed to decode network config`, DECODING_FAILURE), the `cniVersion` one of the
 * CNI library's (INCOMPATIBLE_CNI_VERSION), `type` `antrea` with an IPAM type that has a driver
 * (`host-local`, `antrea`; UNSUPPORTED_FIELD) — then the netns as server_windows.go `validateRuntime`
 * checks it (Docker's `none`/`container:<id>`: a gRPC error, not a response). ADD then asks the
 * agent (`AntreaAgent.cmdAdd`): an IPAM failure is IPAM_FAILURE, any other CONFIG_INTERFACE_FAILURE;
 * the result is what server.go builds (the host and container interfaces, the address on interface
 * 1 with the gateway, the default route via the gateway that `updateResultIfaceConfig` adds, DNS
 * from the config with the runtime's `dns` capability over it) converted to the request's version.
 *
 *   const reply = serveCni(agent, '/antrea_io.antrea.pkg.apis.cni.v1beta1.Cni/CmdAdd', { cniArgs });
 */
import type { CniDns, CniResult } from '../../cni/contracts.js';
import {
  field,
  goAny,
  goDecode,
  goInt,
  goJsonKind,
  goMap,
  goPtr,
  goSlice,
  goString,
  goStruct,
  goUnmarshal,
  type GoType,
} from '../../cni/godecode.js';
import { goCanonicalCIDR, goCidrError } from '../../cni/goip.js';
import { GoError } from '../../cni/goscan.js';
import { TYPES_DNS, typesRouteStruct } from '../../cni/gotypes.js';
import { loadArgs } from '../../cni/loadargs.js';
import { netIPType, parseResult, resultText } from '../../cni/result.js';
import { VERSION_ALL, versionGte } from '../../cni/version.js';
import { isJsonObject, type Json, type JsonObject } from '../../core/json.js';
import { GrpcStatusError } from '../../host/pipes.js';
import type { AntreaAgent } from './agent.js';

/** Where the agent serves its CNI server on Windows (pkg/cni/default_windows.go `AntreaCNISocketAddr`). */
export const ANTREA_CNI_SOCKET = '\\\\.\\pipe\\cnisock';
/** The gRPC service (cni.proto: package `antrea_io.antrea.pkg.apis.cni.v1beta1`, service `Cni`). */
export const ANTREA_CNI_SERVICE = 'antrea_io.antrea.pkg.apis.cni.v1beta1.Cni';
/** The CNI API version the shim and the server speak (pkg/cni/client.go `AntreaCNIVersion`). */
export const ANTREA_CNI_API_VERSION = '1.0.0-beta.1';

/** cni.proto `ErrorCode`. */
export const AntreaCniErrorCode = {
  UNKNOWN: 0,
  INCOMPATIBLE_CNI_VERSION: 1,
  UNSUPPORTED_FIELD: 2,
  UNKNOWN_CONTAINER: 3,
  INVALID_ENVIRONMENT_VARIABLES: 4,
  IO_FAILURE: 5,
  DECODING_FAILURE: 6,
  INVALID_NETWORK_CONFIG: 7,
  TRY_AGAIN_LATER: 11,
  IPAM_FAILURE: 101,
  CONFIG_INTERFACE_FAILURE: 102,
  CHECK_INTERFACE_FAILURE: 103,
  UNKNOWN_RPC_ERROR: 201,
  INCOMPATIBLE_API_VERSION: 202,
} as const;

/** cni.proto `CniCmdArgs` (`network_configuration` carried as its text). */
export interface CniCmdArgs {
  readonly containerId: string;
  readonly netns: string;
  readonly ifname: string;
  readonly args: string;
  readonly path: string;
  readonly networkConfiguration: string;
}

/** cni.proto `CniCmdResponse`: the printed result, or the error. */
export interface CniCmdResponse {
  readonly cniResult: string;
  readonly error?: { readonly code: number; readonly message: string };
}

/** An IPAM driver's failure (host-local's error text): IPAM_FAILURE. */
export class AntreaIpamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AntreaIpamError';
  }
}

/** The IPAM types with a driver on a Windows agent (ipam_delegator.go, antrea_ipam.go `init`). */
const IPAM_TYPES: readonly string[] = ['host-local', 'antrea'];

// pkg/agent/cniserver/types NetworkConfig, as json.Unmarshal reads it (a value that does not
// decode is DECODING_FAILURE): the CNI library's types (cni v1.3.0 pkg/types) where it uses them

/** cni `types.IPNet` (UnmarshalJSON): a JSON string, then `types.ParseCIDR`. */
const TYPES_IPNET: GoType = {
  k: 'custom',
  name: 'types.IPNet',
  decode: (raw) => {
    // (null: json.Unmarshal into a string leaves "", which ParseCIDR refuses)
    const s = raw === null ? '' : raw;
    if (typeof s !== 'string')
      throw new GoError(`json: cannot unmarshal ${goJsonKind(s)} into Go value of type string`);
    if (goCanonicalCIDR(s) === undefined) throw new GoError(goCidrError(s));
    return s;
  },
};
/** cni `types.Route` (UnmarshalJSON): the private `types.route` with `dst` a CIDR and `gw` a `net.IP`. */
const TYPES_ROUTE_FIELDS = typesRouteStruct(TYPES_IPNET, netIPType);
const TYPES_ROUTE: GoType = {
  k: 'custom',
  name: 'types.Route',
  // (the raw value decoded as a document: a JSON string is never read as JSON text)
  decode: (raw) => goDecode(raw, TYPES_ROUTE_FIELDS),
};
/** `net.IPMask` (a `[]byte`): a base64 string (encoding/base64 StdEncoding, CR and LF skipped) or bytes. */
const NET_IPMASK: GoType = {
  k: 'custom',
  name: 'net.IPMask',
  decode: (raw) => {
    if (raw === null) return undefined;
    if (typeof raw === 'string') {
      const b64 = raw.replace(/[\r\n]/g, '');
      if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(b64))
        throw new GoError('illegal base64 data');
      return raw;
    }
    if (
      Array.isArray(raw) &&
      raw.every((b) => typeof b === 'number' && Number.isInteger(b) && b >= 0 && b < 256)
    )
      return raw;
    throw new GoError(`json: cannot unmarshal ${goJsonKind(raw)} into Go value of type net.IPMask`);
  },
};
/** types.go `Address`: `gateway` a `net.IP`; the untagged `IPNet` (a `net.IPNet`) and `Version`. */
const ADDRESS = goStruct('types.Address', [
  field('address', goString),
  field('gateway', netIPType),
  field('IPNet', goStruct('net.IPNet', [field('IP', netIPType), field('Mask', NET_IPMASK)])),
  field('Version', goString),
]);
const NETWORK_CONFIG = goStruct('types.NetworkConfig', [
  field('cniVersion', goString),
  field('name', goString),
  field('type', goString),
  field('deviceID', goString),
  field('mtu', goInt),
  field('dns', TYPES_DNS),
  field(
    'ipam',
    goPtr(
      goStruct('types.IPAMConfig', [
        field('type', goString),
        field(
          'ranges',
          goSlice(goSlice(goStruct('types.Range', [field('subnet', goString), field('gateway', goString)]))),
        ),
        field('routes', goSlice(goPtr(TYPES_ROUTE))),
        field('addresses', goSlice(ADDRESS)),
        field('dns', TYPES_DNS),
        field('ippools', goSlice(goString)),
      ]),
    ),
  ),
  field(
    'runtimeConfig',
    goStruct('types.RuntimeConfig', [
      field(
        'dns',
        goStruct('types.RuntimeDNS', [
          field('servers', goSlice(goString)),
          field('searches', goSlice(goString)),
        ]),
      ),
    ]),
  ),
  field('prevResult', goMap(goAny)),
]);

interface NetworkConfig {
  readonly cniVersion?: string;
  readonly type?: string;
  readonly dns?: { nameservers?: string[]; domain?: string; search?: string[]; options?: string[] };
  readonly ipam?: { type?: string } | null;
  readonly runtimeConfig?: { dns?: { servers?: string[]; searches?: string[] } };
  readonly prevResult?: JsonObject | null;
}

interface CniConfig {
  readonly conf: NetworkConfig;
  readonly args: CniCmdArgs;
  readonly podName: string;
  readonly podNamespace: string;
}

const errorResponse = (code: number, message: string): CniCmdResponse => ({
  cniResult: '',
  error: { code, message },
});
const unsupportedField = (key: string, value: string): CniCmdResponse =>
  errorResponse(
    AntreaCniErrorCode.UNSUPPORTED_FIELD,
    `Network configuration does not support ${key}=${value}`,
  );

/** The request's `cni_args` as the server reads them (absent fields: proto3's zero values). */
function cmdArgsOf(request: Json): CniCmdArgs {
  const a = isJsonObject(request) && isJsonObject(request['cniArgs']) ? request['cniArgs'] : {};
  const s = (k: string): string => (typeof a[k] === 'string' ? a[k] : '');
  return {
    containerId: s('containerId'),
    netns: s('netns'),
    ifname: s('ifname'),
    args: s('args'),
    path: s('path'),
    networkConfiguration: s('networkConfiguration'),
  };
}

/** server.go `loadNetworkConfig` + `validateRequestMessage`. */
function validateRequestMessage(args: CniCmdArgs): CniConfig | CniCmdResponse {
  let conf: NetworkConfig;
  const k8s = { K8S_POD_NAME: '', K8S_POD_NAMESPACE: '', K8S_POD_INFRA_CONTAINER_ID: '' };
  try {
    conf = (goUnmarshal(args.networkConfiguration, NETWORK_CONFIG) ?? {}) as NetworkConfig;
    loadArgs(args.args, {
      K8S_POD_NAME: (v) => (k8s.K8S_POD_NAME = v),
      K8S_POD_NAMESPACE: (v) => (k8s.K8S_POD_NAMESPACE = v),
      K8S_POD_INFRA_CONTAINER_ID: (v) => (k8s.K8S_POD_INFRA_CONTAINER_ID = v),
    });
  } catch {
    return errorResponse(AntreaCniErrorCode.DECODING_FAILURE, 'Failed to decode network config');
  }
  const cniVersion = conf.cniVersion ?? '';
  if (!VERSION_ALL.includes(cniVersion))
    return errorResponse(
      AntreaCniErrorCode.INCOMPATIBLE_CNI_VERSION,
      `Unsupported CNI version [${cniVersion}], supported versions [${VERSION_ALL.join(' ')}]`,
    );
  const ipamType = conf.ipam?.type ?? '';
  // validateCNIAndIPAMType (not chaining; secondary-network IPAM off, as on Windows)
  if ((conf.type ?? '') !== 'antrea') return unsupportedField('type', conf.type ?? '');
  if (!IPAM_TYPES.includes(ipamType)) return unsupportedField('ipam/type', ipamType);
  return { conf, args, podName: k8s.K8S_POD_NAME, podNamespace: k8s.K8S_POD_NAMESPACE };
}

/** server_windows.go `validateRuntime`: Docker's netns (`none`, `container:<id>`) is refused — a Go error. */
function validateRuntime(netns: string, method: string): void {
  if (netns === 'none' || netns.includes(':'))
    throw new GrpcStatusError(
      'Unknown',
      `failed to validate container runtime for ${method} request: Docker runtime is not supported after Antrea 2.0 for Windows Nodes`,
    );
}

/** server_windows.go `updateResultDNSConfig`: the config's DNS, the runtime's servers and searches over it. */
function dnsOf(conf: NetworkConfig): CniDns {
  const d = conf.dns ?? {};
  const rt = conf.runtimeConfig?.dns ?? {};
  const nameservers = rt.servers?.length ? rt.servers : d.nameservers;
  const search = rt.searches?.length ? rt.searches : d.search;
  return {
    ...(nameservers?.length ? { nameservers } : {}),
    ...(d.domain ? { domain: d.domain } : {}),
    ...(search?.length ? { search } : {}),
    ...(d.options?.length ? { options: d.options } : {}),
  };
}

function cmdAdd(agent: AntreaAgent, c: CniConfig): CniCmdResponse {
  validateRuntime(c.args.netns, 'CmdAdd');
  const dns = dnsOf(c.conf);
  let added: JsonObject;
  try {
    added = agent.cmdAdd({
      containerId: c.args.containerId,
      netns: c.args.netns,
      ifName: c.args.ifname,
      podName: c.podName,
      podNamespace: c.podNamespace,
      dns: { nameservers: dns.nameservers ?? [], search: dns.search ?? [] },
    });
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return errorResponse(
      e instanceof AntreaIpamError
        ? AntreaCniErrorCode.IPAM_FAILURE
        : AntreaCniErrorCode.CONFIG_INTERFACE_FAILURE,
      message,
    );
  }
  const ifaces = added['interfaces'] as JsonObject[];
  const ip = (added['ips'] as JsonObject[])[0]!;
  const gateway = String(ip['gateway']);
  const result: CniResult = {
    cniVersion: '1.0.0',
    interfaces: ifaces.map((i) => ({
      name: String(i['name']),
      mac: String(i['mac']),
      ...(i['sandbox'] ? { sandbox: String(i['sandbox']) } : {}),
    })),
    ips: [{ interface: 1, address: String(ip['address']), gateway }],
    // updateResultIfaceConfig: the default route through the node's gateway
    routes: [{ dst: '0.0.0.0/0', gw: gateway }],
    dns,
  };
  return { cniResult: resultText(result, c.conf.cniVersion ?? '') };
}

function cmdDel(agent: AntreaAgent, c: CniConfig): CniCmdResponse {
  validateRuntime(c.args.netns, 'CmdDel');
  try {
    agent.cmdDel({ containerId: c.args.containerId, netns: c.args.netns });
  } catch (e) {
    return errorResponse(
      AntreaCniErrorCode.CONFIG_INTERFACE_FAILURE,
      e instanceof Error ? e.message : String(e),
    );
  }
  return { cniResult: '' };
}

/**
 * server.go `CmdCheck`: host-local's CHECK (the container holds an address), then from 0.4.0 the
 * prevResult against the node (`validatePrevResult`, interface_configuration_windows.go
 * `checkContainerInterface`): the container interface is the one whose name ends with CNI_IFNAME,
 * its sandbox must be the netns, and the agent looks it up as `vEthernet (<name up to "_">)` among the
 * interfaces Go's `net.InterfaceByName` sees — the agent's (host) compartment.
 */
function cmdCheck(agent: AntreaAgent, c: CniConfig): CniCmdResponse {
  validateRuntime(c.args.netns, 'CmdCheck');
  const pod = agent.pods().find((p) => p.containerId === c.args.containerId);
  if (!pod)
    return errorResponse(
      AntreaCniErrorCode.IPAM_FAILURE,
      `host-local: Failed to find address added by container ${c.args.containerId}`,
    );
  const cniVersion = c.conf.cniVersion ?? '';
  if (!versionGte(cniVersion, '0.4.0')) return { cniResult: '' };
  if (!c.conf.prevResult) return unsupportedField('prevResult', '');
  let prev: CniResult;
  // parsePrevResultFromRequest: parsePrevResult (version.NewResult at the config's version) failing
  // is DECODING_FAILURE; its `current.NewResultFromResult` (a conversion to 1.0.0, UNSUPPORTED_FIELD
  // `…prevResult=<result>` when it fails) cannot fail here: only a 0.1.0/0.2.0 result without
  // addresses fails to convert, and CHECK reads prevResult at a config version of 0.4.0 or later
  try {
    prev = parseResult(c.conf.prevResult, cniVersion);
  } catch {
    return errorResponse(AntreaCniErrorCode.DECODING_FAILURE, 'Failed to decode prevResult');
  }
  const iface = (prev.interfaces ?? []).find((i) => i.name.endsWith(c.args.ifname));
  if (!iface)
    return errorResponse(
      AntreaCniErrorCode.INVALID_NETWORK_CONFIG,
      'prevResult does not match network configuration',
    );
  const fail = (message: string): CniCmdResponse =>
    errorResponse(AntreaCniErrorCode.CHECK_INTERFACE_FAILURE, message);
  if ((iface.sandbox ?? '') !== c.args.netns)
    return fail(
      `sandbox in prevResult ${iface.sandbox ?? ''} doesn't match configured netns: ${c.args.netns}`,
    );
  const alias = `vEthernet (${iface.name.split('_')[0]!})`;
  const nic = agent.host.adapters().find((a) => a['Name'] === alias);
  // Go's net.InterfaceByName: an OpError around errNoSuchInterface
  if (!nic) return fail('route ip+net: no such network interface');
  const hw = String(nic['MacAddress'] ?? '')
    .toLowerCase()
    .replace(/-/g, ':');
  if (hw !== (iface.mac ?? ''))
    return fail(`container MAC in prevResult ${iface.mac ?? ''} doesn't match configured address: ${hw}`);
  return { cniResult: '' };
}

/**
 * One unary call on the CNI service: the reply message, or a thrown `GrpcStatusError` (a method the
 * service does not have: grpc-go's `Unimplemented`; a Go error the handler returned: `Unknown`).
 */
export function serveCni(agent: AntreaAgent, method: string, request: Json): Json {
  const prefix = `/${ANTREA_CNI_SERVICE}/`;
  const name = method.startsWith(prefix) ? method.slice(prefix.length) : '';
  const handler = { CmdAdd: cmdAdd, CmdDel: cmdDel, CmdCheck: cmdCheck }[name];
  if (!handler) {
    throw new GrpcStatusError(
      'Unimplemented',
      method.startsWith(prefix)
        ? `unknown method ${name} for service ${ANTREA_CNI_SERVICE}`
        : `unknown service ${method.replace(/^\//, '').replace(/\/[^/]*$/, '')}`,
    );
  }
  const checked = validateRequestMessage(cmdArgsOf(request));
  const reply = 'conf' in checked ? handler(agent, checked) : checked;
  return reply as unknown as Json;
}
