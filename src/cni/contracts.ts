/**
 * The seams of the CNI layer in one file (STYLE.md, "all layer contracts in one file"): what a CNI
 * plugin is, what it may touch on the host, what an invocation carries in and out, the error
 * family and the result record. Reference: cni-windows.md §1 (the spec, 0.1.0 … 1.1.0), §1.3
 * (error codes), §1.6 (results and delegation).
 *
 * A plugin has exactly the exec contract of a CNI binary — environment + stdin bytes in, stdout
 * bytes + exit code out — and runs in-process against a `PluginHost`, which hands it the typed
 * clients of one simulated node (HCN v2, the hcsshim v1 HNS package, HCS) with the host's fault
 * layer in their path, the node's disk, and a way to invoke other plugins (delegation).
 */
import type { HttpHeaders, PlatformReply } from '../host/azure.js';
import type { PipeHandler } from '../host/pipes.js';
import type { Clock } from '../core/clock.js';
import type { EventBus } from '../core/events.js';
import type { FileStore } from '../core/files.js';
import type { HcnClient } from '../api/hcn/client.js';
import type { HcsClient } from '../api/hcs/client.js';
import type { HnsV1Client } from '../api/hnsv1/client.js';
import type { HostProfile } from '../hns/versions.js';

// ───────────────────────────────────────── versions ─────────────────────────────────────────

/** Every spec version, oldest first (`version.All` of containernetworking/cni). */
export const CNI_VERSIONS = ['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'] as const;
export type CniVersion = (typeof CNI_VERSIONS)[number];
/** The version libcni and the skel implement (`version.Current()`). */
export const CNI_CURRENT: CniVersion = '1.1.0';

// ────────────────────────────────────────── errors ──────────────────────────────────────────

/** The spec's well-known error codes (`pkg/types/types.go`; reference §1.3). */
export const CniErrorCode = {
  Unknown: 0,
  IncompatibleCNIVersion: 1,
  UnsupportedField: 2,
  UnknownContainer: 3,
  InvalidEnvironmentVariables: 4,
  IOFailure: 5,
  DecodingFailure: 6,
  InvalidNetworkConfig: 7,
  InvalidNetNS: 8,
  TryAgainLater: 11,
  PluginNotAvailable: 50,
  LimitedConnectivity: 51,
  Internal: 999,
} as const;

/**
 * `types.Error`: what a plugin prints on stdout when it fails (`{"code","msg","details"?}`, exit 1),
 * and what a delegation or the runner throws. An untyped failure inside a plugin becomes code 999
 * with its text as `msg` (skel's rule).
 */
export class CniError extends Error {
  constructor(
    readonly code: number,
    readonly msg: string,
    readonly details = '',
  ) {
    super(details ? `${msg}; ${details}` : msg);
    this.name = 'CniError';
  }

  /** The error document, fields in Go's order, `details` omitted when empty. */
  toJSON(): { code: number; msg: string; details?: string } {
    return this.details
      ? { code: this.code, msg: this.msg, details: this.details }
      : { code: this.code, msg: this.msg };
  }
}

// ────────────────────────────────────────── results ─────────────────────────────────────────

/** `types100.Interface` (1.1.0 adds mtu, socketPath, pciID). */
export interface CniInterface {
  readonly name: string;
  readonly mac?: string;
  readonly mtu?: number;
  readonly sandbox?: string;
  readonly socketPath?: string;
  readonly pciID?: string;
}

/** `types100.IPConfig`: `address` in CIDR form, `interface` an index into `interfaces`. */
export interface CniIPConfig {
  readonly interface?: number;
  readonly address: string;
  readonly gateway?: string;
}

/** `types.Route` (1.1.0 adds mtu, advmss, priority, table, scope). */
export interface CniRoute {
  readonly dst: string;
  readonly gw?: string;
  readonly mtu?: number;
  readonly advmss?: number;
  readonly priority?: number;
  readonly table?: number;
  readonly scope?: number;
}

/** `types.DNS`. */
export interface CniDns {
  readonly nameservers?: readonly string[];
  readonly domain?: string;
  readonly search?: readonly string[];
  readonly options?: readonly string[];
}

/**
 * A result in the current (1.1.0) shape: what plugins build and what conversions start from.
 * `cniVersion` is the version it was read at or is to be printed at.
 */
export interface CniResult {
  readonly cniVersion: string;
  readonly interfaces?: readonly CniInterface[];
  readonly ips?: readonly CniIPConfig[];
  readonly routes?: readonly CniRoute[];
  readonly dns?: CniDns;
}

// ──────────────────────────────────────── invocation ────────────────────────────────────────

/** One invocation as a runtime makes it: the CNI_* environment and the config bytes on stdin. */
export interface ExecRequest {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdin: string | Uint8Array;
  /**
   * The process's working directory on the node's disk, where a plugin that keeps state beside it
   * writes (azure-vnet's `azure-vnet*.json`): containerd running as a service starts plugins in
   * `C:\Windows\System32`, dockershim under aks-engine in `C:\k`. Default `C:\Windows\System32`.
   */
  readonly cwd?: string;
}

/** An OS network interface as Go's `net.Interfaces()` lists it: name and hardware address. */
export interface NetInterface {
  readonly name: string;
  /** `00:0d:3a:…` as `net.HardwareAddr.String()` prints it; '' for none. */
  readonly mac: string;
  /**
   * `Interface.Addrs()` as `net.IPNet.String()` prints them (`10.240.0.4/16`); none for an adapter
   * whose TCP/IP is unbound (a NIC bound to an external vSwitch: its host vNIC carries the address).
   */
  readonly addrs?: readonly string[];
}

export type { PlatformReply };

/** What the invocation printed and how it exited (0 success, 1 failure with an error document). */
export interface ExecOutput {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Where a plugin writes (its stdout and stderr). */
export interface Writer {
  write(text: string): void;
}

/**
 * What a plugin may use on the node. Every HNS/HCS call goes through the host's transport, so the
 * fault layer (failures, delays, hangs) applies to plugins as it applies to any client.
 */
export interface PluginHost {
  /** The node's name (listings, events). */
  readonly name: string;
  /** The node's HNS version profile (feature gates such as DSR). */
  readonly profile: HostProfile;
  /** HCN v2: hcsshim's `hcn` package. */
  readonly hcn: HcnClient;
  /** HNS v1: hcsshim's root package (`HNSNetwork`, `HNSEndpoint`, `HotAttachEndpoint`, …). */
  readonly hns: HnsV1Client;
  /** HCS: hcsshim's `internal/hcs` (compute systems). */
  readonly hcs: HcsClient;
  /** The node's disk (host-local's store, flannel's saved configs, libcni's cache). */
  readonly files: FileStore;
  readonly clock: Clock;
  readonly events: EventBus;
  /**
   * Run another plugin found through `CNI_PATH` (`;`-separated; `<type>.exe`, then `<type>`), as
   * `invoke.ExecPluginWithResult` does. `depth` is the caller's depth + 1 (for events).
   */
  exec(pluginType: string, request: ExecRequest, depth: number): Promise<ExecOutput>;
  /**
   * The node's network interfaces in `net.Interfaces()` order (physical adapters, then host vNICs);
   * absent on a host that does not model them (a plugin then sees none).
   */
  interfaces?(): readonly NetInterface[];
  /**
   * An HTTP GET from the node to a platform address (the Azure wireserver, IMDS — which wants
   * `headers` `{ Metadata: 'true' }`): the reply, or a thrown Error carrying Go's HTTP client text
   * when nothing answers; absent: nothing ever answers.
   */
  platformGet?(url: string, headers?: HttpHeaders): PlatformReply;
  /**
   * An HTTP request from the plugin's process (`net/http`): a loopback URL reaches the node's
   * agents (Azure CNS on localhost:10090), another URL the platform (the wireserver, IMDS with the
   * request's `headers`); a thrown Error carries Go's client text when nothing answers (refused on
   * the loopback, a timeout elsewhere). Absent: nothing ever answers.
   */
  httpRequest?(method: string, url: string, body?: string, headers?: HttpHeaders): PlatformReply;
  /**
   * Connect to a named pipe on the node (`\\.\pipe\cnisock`, Antrea's CNI server): its server's
   * unary calls; throws src/host/pipes.ts `PipeNotFound` (go-winio's text) when no server holds
   * it. Absent: no pipe ever exists.
   */
  dialPipe?(path: string): PipeHandler;
}

/**
 * A CNI plugin: a binary's exec contract, in-process. `depth` is 0 when a runtime calls it and
 * grows by one per delegation.
 */
export interface CniPlugin {
  /** The `type` configs name it by (the binary's name without `.exe`). */
  readonly type: string;
  exec(host: PluginHost, request: ExecRequest, depth?: number): Promise<ExecOutput>;
}

/** A runtime's parameters of one attachment (libcni `RuntimeConf`). */
export interface RuntimeConf {
  readonly containerId: string;
  /** CNI_NETNS: on Windows a namespace GUID (containerd), `none` or `container:<id>` (dockershim). */
  readonly netns: string;
  readonly ifName: string;
  /** CNI_ARGS pairs, in order (`K8S_POD_NAMESPACE`, `IgnoreUnknown`, `IP`, …). */
  readonly args?: readonly (readonly [string, string])[];
  /** Capability values offered to plugins that declare them (`portMappings`, `dns`, `ipRanges`, …). */
  readonly capabilityArgs?: Readonly<Record<string, unknown>>;
  /** Overrides the runner's cache directory for this call. */
  readonly cacheDir?: string;
  /**
   * The runtime process's working directory, where the plugins it execs start (the runner's own
   * `cwd` option wins): containerd as a Windows service runs in `C:\Windows\System32`, kubelet
   * with dockershim as aks-engine starts it in `C:\k`.
   */
  readonly cwd?: string;
}
