/**
 * The seams of the pod runtime (STYLE.md, "all layer contracts in one file"): the CRI-like
 * configuration a kubelet hands a runtime, the statuses it reads back, the CNI network a runtime
 * attaches pods to (a conflist and the libcni-like runner that executes it), and the runtime's
 * error. Reference: kubernetes-windows.md §3 (pod network lifecycle), cni-windows.md §1.4–§1.5
 * (RuntimeConf, capabilities), hcs-lifecycle.md §4–§6.
 *
 * Two flavours implement it: `ContainerdRuntime` (containerd CRI + hcsshim's runhcs shim, HCN
 * namespaces) and `DockershimRuntime` (kubelet's dockershim + moby, netns `none` /
 * `container:<id>` and the v1 HotAttach path).
 */
import type { CniResult, RuntimeConf } from '../cni/contracts.js';

// ───────────────────────────────────────── CRI config ────────────────────────────────────────

/** `runtime.PodSandboxMetadata`. */
export interface PodSandboxMetadata {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly attempt?: number;
}

/** `runtime.DNSConfig` (what kubelet computes from the pod's dnsPolicy). */
export interface DnsConfig {
  readonly servers?: readonly string[];
  readonly searches?: readonly string[];
  readonly options?: readonly string[];
}

/** `runtime.PortMapping`; `protocol` defaults to TCP as the CRI enum's zero value does. */
export interface PortMapping {
  readonly protocol?: 'TCP' | 'UDP' | 'SCTP';
  readonly containerPort: number;
  readonly hostPort?: number;
  readonly hostIp?: string;
}

/**
 * `runtime.PodSandboxConfig`, the parts a Windows runtime reads. `hostProcess` is
 * `windows.securityContext.hostProcess`: such a pod runs in the host's network and gets no CNI
 * call. `annotations` also carry `kubernetes.io/ingress-bandwidth` / `egress-bandwidth`.
 */
export interface PodSandboxConfig {
  readonly metadata?: PodSandboxMetadata;
  readonly hostname?: string;
  readonly dnsConfig?: DnsConfig;
  readonly portMappings?: readonly PortMapping[];
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly hostProcess?: boolean;
}

/** `runtime.ContainerMetadata`. */
export interface ContainerMetadata {
  readonly name: string;
  readonly attempt?: number;
}

/** `runtime.ContainerConfig`, the parts a Windows runtime reads. */
export interface ContainerConfig {
  readonly metadata?: ContainerMetadata;
  readonly image?: string;
  /** `windows.securityContext.hostProcess`: must equal the pod's (containerd checks it). */
  readonly hostProcess?: boolean;
}

// ───────────────────────────────────────── statuses ─────────────────────────────────────────

/** `runtime.PodSandboxState`. */
export type PodSandboxState = 'SANDBOX_READY' | 'SANDBOX_NOTREADY';

/** `runtime.ContainerState`. */
export type ContainerState =
  'CONTAINER_CREATED' | 'CONTAINER_RUNNING' | 'CONTAINER_EXITED' | 'CONTAINER_UNKNOWN';

/** `runtime.PodSandboxStatus`, the parts that matter here. Times are simulated milliseconds. */
export interface PodSandboxStatus {
  readonly id: string;
  readonly metadata: PodSandboxMetadata;
  readonly state: PodSandboxState;
  readonly createdAt: number;
  /** The pod's IP and the others, as the runtime reports them (`''` when it reports none). */
  readonly network: { readonly ip: string; readonly additionalIps: readonly string[] };
  /**
   * What the runtime calls the pod's network namespace: the HCN namespace GUID (containerd,
   * `''` for HostProcess pods) or the docker NetworkMode (`none`, dockershim).
   */
  readonly netns: string;
  readonly runtimeHandler: string;
}

/** `runtime.PodSandbox` as ListPodSandbox returns it. */
export interface PodSandbox {
  readonly id: string;
  readonly metadata: PodSandboxMetadata;
  readonly state: PodSandboxState;
  readonly createdAt: number;
  readonly runtimeHandler: string;
}

/** `runtime.ContainerStatus`, the parts that matter here. */
export interface ContainerStatus {
  readonly id: string;
  readonly podSandboxId: string;
  readonly metadata: ContainerMetadata;
  readonly state: ContainerState;
  readonly createdAt: number;
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly exitCode: number;
  readonly reason: string;
  readonly message: string;
}

// ───────────────────────────────────────── the CNI side ─────────────────────────────────────

/**
 * What a runtime needs of libcni's `CNIConfig` (src/cni/runner.ts `CniRunner` fits): run a network
 * list's ADD (in order, result cached) and DEL (in reverse, cache removed). `L` is the parsed
 * conflist the runner takes.
 */
export interface CniListRunner<L> {
  /** The final result (libcni's may be nil: a list whose plugins printed none). */
  addNetworkList(list: L, rt: RuntimeConf): Promise<CniResult | undefined>;
  delNetworkList(list: L, rt: RuntimeConf): Promise<void>;
}

/** One CNI network a runtime attaches pods to: a loaded conflist and the runner for it. */
export interface CniNetwork<L = unknown> {
  readonly list: L;
  readonly runner: CniListRunner<L>;
}

// ─────────────────────────────────────────── errors ─────────────────────────────────────────

/**
 * A runtime call failed. `message` is the text the real runtime returns (containerd's and
 * kubelet's `fmt.Errorf("…: %w", err)` chains, so the cause's text ends it); `cause` is the error
 * it wraps (an HNS/HCS client error, a `CniError`, …).
 */
export class RuntimeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RuntimeError';
  }
}
