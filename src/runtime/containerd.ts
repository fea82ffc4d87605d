/**
 * containerd's CRI plugin on Windows with hcsshim's runhcs shim, over one simulated node
 * (kubernetes-windows.md §3.1–§3.3; containerd 301026e5 `internal/cri/server/sandbox_run.go`,
 * `sandbox_stop.go`, `sandbox_remove.go`, `container_create.go`, `container_start.go`,
 * `pkg/netns/netns_windows.go`; go-cni 3dbce1d; hcsshim 7c9ff7f4 `pod.go`, `uvm/network.go`).
 *
 * RunPodSandbox: reserve the name → an HCN namespace with no Type (skipped for HostProcess pods) →
 * CNI ADD of every network (`CNI_CONTAINERID` = sandbox ID, `CNI_NETNS` = namespace GUID, ifname
 * `eth<i>`, capabilities from the pod config) → the pod IP from go-cni's `eth0` → the sandbox:
 * a pause container naming the namespace (process isolation) or a utility VM with the namespace
 * added to its guest and each endpoint hot-added as a NIC (Hyper-V). A failure unwinds as
 * containerd's defers do: the controller's own cleanup, then CNI DEL (its error ignored when setup
 * never completed), then the namespace; a failed cleanup leaves the sandbox in the store as
 * UNKNOWN with its name reserved.
 * StopPodSandbox: stop the containers, stop the sandbox, CNI DEL (empty netns when the namespace is
 * already gone), delete the namespace; idempotent. RemovePodSandbox stops, checks the namespace is
 * closed, removes the containers and forgets the sandbox.
 *
 * Steps (`runtime.step` events, `pod` = sandbox ID): name.reserve, namespace.create, cni.add,
 * cni.result, pause.create, pause.start, uvm.create, uvm.start, uvm.namespace.add, uvm.nic.add,
 * sandbox.ready; pause.stop, uvm.nic.remove, uvm.namespace.remove, uvm.close, cni.del,
 * namespace.remove; container.create, container.start, container.stop, container.remove.
 */
import { HcnClient } from '../api/hcn/client.js';
import { isNotFoundError } from '../api/hcn/errors.js';
import type { HostComputeNamespace } from '../api/hcn/namespace.js';
import { HcsClient } from '../api/hcs/client.js';
import { isNotExist } from '../api/hcs/errors.js';
import type { System, SystemExit } from '../api/hcs/system.js';
import type { CniResult, RuntimeConf } from '../cni/contracts.js';
import type { HcsNotificationEvent } from '../core/events.js';
import { Rng } from '../core/rng.js';
import type { Host } from '../host/host.js';
import {
  RuntimeError,
  type CniNetwork,
  type ContainerConfig,
  type ContainerState,
  type ContainerStatus,
  type PodSandbox,
  type PodSandboxConfig,
  type PodSandboxMetadata,
  type PodSandboxStatus,
} from './contracts.js';
import {
  BackgroundWork,
  containerdCapabilityArgs,
  containerdCniArgs,
  DEFAULT_IFNAME,
  errorText,
  generateId,
  goCniCreateResult,
  isExitNotification,
  KILLED_EXIT_CODE,
  NameIndex,
  q,
  selectPodIPs,
  Steps,
  stopContainerSystem,
  terminateAndClose,
  wrap,
  type GoCniConfig,
  type IpPreference,
} from './cri.js';
import { hostedContainerDocument, processContainerDocument, UtilityVm } from './shim.js';

/** How a runtime handler isolates its pods (runhcs' `SandboxIsolation`: 0 process, 1 hypervisor). */
export interface RuntimeHandlerConfig {
  readonly isolation: 'process' | 'hyperv';
}

/** containerd's Windows runtime classes as commonly configured; `''` is the default runtime. */
export const DEFAULT_RUNTIME_HANDLERS: Readonly<Record<string, RuntimeHandlerConfig>> = {
  '': { isolation: 'process' },
  'runhcs-wcow-process': { isolation: 'process' },
  'runhcs-wcow-hypervisor': { isolation: 'hyperv' },
};

export interface ContainerdOptions {
  /**
   * The CNI networks every pod is attached to, in order (go-cni's networks: the first gets
   * `eth0`, the next `eth1`, …). None: every pod setup fails with go-cni's "cni plugin not
   * initialized".
   */
  readonly networks?: readonly CniNetwork[];
  /** Runtime handlers (`RunPodSandboxRequest.runtime_handler`); default DEFAULT_RUNTIME_HANDLERS. */
  readonly runtimeHandlers?: Readonly<Record<string, RuntimeHandlerConfig>>;
  /** containerd's `ip_pref` (default `ipv4`). */
  readonly ipPreference?: IpPreference;
  /** Seed of the runtime's own IDs (sandbox/container IDs, NIC GUIDs); default 1. */
  readonly seed?: number;
  /**
   * containerd's working directory, where the CNI plugins it execs start (a network's runner `cwd`
   * wins); default `C:\Windows\System32`, as the Windows service runs (containerd #4928).
   */
  readonly cwd?: string;
}

/** Where the containerd service runs: the Service Control Manager starts it in System32. */
export const CONTAINERD_CWD = 'C:\\Windows\\System32';

type SandboxState = 'READY' | 'NOTREADY' | 'UNKNOWN';

interface SandboxRec {
  readonly id: string;
  readonly name: string;
  readonly config: PodSandboxConfig;
  readonly metadata: PodSandboxMetadata;
  readonly runtimeHandler: string;
  readonly isolation: 'process' | 'hyperv';
  readonly hostNetwork: boolean;
  readonly createdAt: number;
  state: SandboxState;
  /** The HCN namespace (containerd's `NetNS`); undefined for host-network pods. */
  netns: string | undefined;
  ip: string;
  additionalIps: string[];
  /** go-cni's result, once setup completed (containerd's `CNIResult != nil`). */
  cniResult: Map<string, GoCniConfig> | undefined;
  pause: System | undefined;
  uvm: UtilityVm | undefined;
  unwatch: (() => void) | undefined;
  /** The runtime itself is stopping the sandbox (the exit monitor leaves it alone). */
  stopping: boolean;
}

interface ContainerRec {
  readonly id: string;
  readonly name: string;
  readonly sandboxId: string;
  readonly config: ContainerConfig;
  readonly createdAt: number;
  state: ContainerState;
  starting: boolean;
  startedAt: number;
  finishedAt: number;
  exitCode: number;
  reason: string;
  message: string;
  system: System | undefined;
  unwatch: (() => void) | undefined;
  stopping: boolean;
}

/** containerd's `errorStartExitCode` / `errorStartReason`. */
const START_ERROR = { exitCode: 128, reason: 'StartError' } as const;

const OP = {
  run: 'RunPodSandbox',
  stop: 'StopPodSandbox',
  remove: 'RemovePodSandbox',
  create: 'CreateContainer',
  start: 'StartContainer',
  stopC: 'StopContainer',
  removeC: 'RemoveContainer',
  /** What the shim does on its own when the sandbox's VM exits. */
  exit: 'TaskExit',
} as const;

export class ContainerdRuntime {
  readonly #host: Host;
  readonly #hcn: HcnClient;
  readonly #hcs: HcsClient;
  readonly #networks: readonly CniNetwork[];
  readonly #handlers: Readonly<Record<string, RuntimeHandlerConfig>>;
  readonly #ipPreference: IpPreference;
  readonly #cwd: string;
  readonly #rng: Rng;
  readonly #steps: Steps;
  readonly #sandboxes = new Map<string, SandboxRec>();
  readonly #containers = new Map<string, ContainerRec>();
  readonly #sandboxNames = new NameIndex();
  readonly #containerNames = new NameIndex();
  readonly #background = new BackgroundWork();

  constructor(host: Host, options: ContainerdOptions = {}) {
    this.#host = host;
    this.#hcn = HcnClient.forHost(host);
    this.#hcs = HcsClient.forHost(host);
    this.#networks = options.networks ?? [];
    this.#handlers = options.runtimeHandlers ?? DEFAULT_RUNTIME_HANDLERS;
    this.#ipPreference = options.ipPreference ?? 'ipv4';
    this.#cwd = options.cwd ?? CONTAINERD_CWD;
    // a stream of its own ("CTRD"): with the host's stream, a node and its runtime on one seed would
    // draw the same bits, and the first sandbox ID would spell the host's first GUID
    this.#rng = new Rng(((options.seed ?? 1) ^ 0x43545244) >>> 0);
    this.#steps = new Steps(host.events, host.clock, 'containerd');
  }

  /** Wait for what the runtime does on its own after an exit (closing handles, the UVM teardown). */
  async settle(): Promise<void> {
    await this.#background.settle();
  }

  // ───────────────────────────── RunPodSandbox ─────────────────────────────

  /** `RunPodSandbox`: the new sandbox's ID. */
  async runPodSandbox(config: PodSandboxConfig, runtimeHandler = ''): Promise<string> {
    const md = config.metadata;
    if (!md) throw new RuntimeError('sandbox config must include metadata');
    const id = generateId(this.#rng);
    const name = [md.name, md.namespace, md.uid, String(md.attempt ?? 0)].join('_');
    try {
      this.#sandboxNames.reserve(name, id);
    } catch (e) {
      this.#steps.emit(OP.run, 'name.reserve', id, false, errorText(e));
      throw wrap(`failed to reserve sandbox name ${q(name)}`, e);
    }
    this.#steps.emit(OP.run, 'name.reserve', id, true, name);
    const handler = this.#handlers[runtimeHandler];
    if (!handler) {
      this.#sandboxNames.releaseByName(name);
      throw new RuntimeError(
        `unable to get OCI runtime for sandbox ${q(id)}: no runtime for ${q(runtimeHandler)} is configured`,
      );
    }
    const sb: SandboxRec = {
      id,
      name,
      config,
      metadata: md,
      runtimeHandler,
      isolation: handler.isolation,
      hostNetwork: config.hostProcess === true,
      createdAt: this.#host.clock.now(),
      state: 'UNKNOWN',
      netns: undefined,
      ip: '',
      additionalIps: [],
      cniResult: undefined,
      pause: undefined,
      uvm: undefined,
      unwatch: undefined,
      stopping: false,
    };
    let cleanupErr: unknown;
    try {
      if (!sb.hostNetwork) {
        try {
          sb.netns = await this.#steps.run(
            OP.run,
            'namespace.create',
            id,
            async () => (await this.#hcn.createNamespace({})).ID,
            (ns) => ns,
          );
        } catch (e) {
          throw wrap(`failed to create network namespace for sandbox ${q(id)}`, e);
        }
        try {
          await this.#setupPodNetwork(sb);
        } catch (e) {
          throw wrap(`failed to setup network for sandbox ${q(id)}`, e);
        }
      }
      const started = await this.#startSandbox(sb);
      if (started.error) {
        cleanupErr = started.cleanupError;
        throw wrap(`failed to start sandbox ${q(id)}`, started.error);
      }
      sb.state = 'READY';
      this.#sandboxes.set(id, sb);
      this.#steps.emit(OP.run, 'sandbox.ready', id, true, sb.ip);
      return id;
    } catch (err) {
      // containerd's defers, last registered first: teardown, then the namespace
      if (sb.netns !== undefined && cleanupErr === undefined) {
        try {
          await this.#teardownPodNetwork(OP.run, sb, sb.netns);
        } catch (e) {
          // "ignoring failed to destroy networks when we failed to setup networks"
          if (sb.cniResult !== undefined) cleanupErr = e;
        }
      }
      if (sb.netns !== undefined && cleanupErr === undefined) {
        try {
          await this.#removeNetns(OP.run, sb);
        } catch (e) {
          cleanupErr = e;
        }
      }
      if (cleanupErr !== undefined) {
        // marked SANDBOX_UNKNOWN in the store, its name still reserved, for kubelet to clean up
        sb.state = 'UNKNOWN';
        this.#sandboxes.set(id, sb);
      } else {
        this.#sandboxNames.releaseByName(name);
      }
      throw err;
    }
  }

  /** One runtime config per network (`eth<i>`); the pod's args and capabilities are built once. */
  #runtimeConfs(sb: SandboxRec, netnsPath: string): RuntimeConf[] {
    const args = containerdCniArgs(sb.id, sb.config);
    const capabilityArgs = this.#capabilityArgs(sb.config);
    return this.#networks.map((_, i) => ({
      containerId: sb.id,
      netns: netnsPath,
      ifName: `eth${i}`,
      args,
      capabilityArgs,
      cwd: this.#cwd,
    }));
  }

  #capabilityArgs(config: PodSandboxConfig): Record<string, unknown> {
    try {
      return containerdCapabilityArgs(config);
    } catch (e) {
      throw wrap('get cni namespace options', e);
    }
  }

  /** `setupPodNetwork`: go-cni `Setup` (every network attached, first error kept), then eth0's IP. */
  async #setupPodNetwork(sb: SandboxRec): Promise<void> {
    if (this.#networks.length === 0) throw new RuntimeError('cni plugin not initialized');
    const rts = this.#runtimeConfs(sb, sb.netns!);
    const results: CniResult[] = [];
    let firstError: unknown;
    // go-cni attaches the networks concurrently and keeps the first error; here one after the other
    for (let i = 0; i < this.#networks.length; i++) {
      const net = this.#networks[i]!;
      try {
        const r = await this.#steps.run(
          OP.run,
          'cni.add',
          sb.id,
          () => net.runner.addNetworkList(net.list, rts[i]!),
          () => rts[i]!.ifName,
        );
        // a nil result (no plugin printed one) carries no interface and no IP
        if (r) results.push(r);
      } catch (e) {
        firstError ??= e;
      }
    }
    if (firstError !== undefined) throw firstError;
    const result = goCniCreateResult(results);
    const eth0 = result.get(DEFAULT_IFNAME)!;
    if (eth0.ipConfigs.length > 0) {
      [sb.ip, sb.additionalIps] = selectPodIPs(eth0.ipConfigs, this.#ipPreference);
      sb.cniResult = result;
      this.#steps.emit(OP.run, 'cni.result', sb.id, true, sb.ip);
      return;
    }
    const msg = `failed to find network info for sandbox ${q(sb.id)}`;
    this.#steps.emit(OP.run, 'cni.result', sb.id, false, msg);
    throw new RuntimeError(msg);
  }

  /**
   * go-cni `Remove`: CNI DEL of every network in order; an error that says "not found" (or, with
   * no netns, "no such file or directory") is skipped, any other stops it.
   */
  async #teardownPodNetwork(op: string, sb: SandboxRec, netnsPath: string): Promise<void> {
    if (this.#networks.length === 0) throw new RuntimeError('cni plugin not initialized');
    const rts = this.#runtimeConfs(sb, netnsPath);
    for (let i = 0; i < this.#networks.length; i++) {
      const net = this.#networks[i]!;
      const rt = rts[i]!;
      try {
        await this.#steps.run(
          op,
          'cni.del',
          sb.id,
          () => net.runner.delNetworkList(net.list, rt),
          () => `${rt.ifName} netns=${q(netnsPath)}`,
        );
      } catch (e) {
        const t = errorText(e);
        if ((netnsPath === '' && t.includes('no such file or directory')) || t.includes('not found'))
          continue;
        throw e;
      }
    }
  }

  /** hcn.GetNamespaceByID: the namespace, or undefined when HNS says not found. */
  async #findNetns(path: string): Promise<HostComputeNamespace | undefined> {
    try {
      return await this.#hcn.findNamespaceByID(path);
    } catch (e) {
      if (isNotFoundError(e)) return undefined;
      throw e;
    }
  }

  /** `NetNS.Closed()`: the namespace lookup says not found. */
  async #netnsClosed(path: string): Promise<boolean> {
    return (await this.#findNetns(path)) === undefined;
  }

  /** `NetNS.Remove()`: idempotent (not found counts as removed). */
  async #removeNetns(op: string, sb: SandboxRec): Promise<void> {
    const path = sb.netns!;
    await this.#steps.run(
      op,
      'namespace.remove',
      sb.id,
      async () => {
        const ns = await this.#findNetns(path);
        if (ns === undefined) return 'already gone';
        try {
          await ns.delete();
        } catch (e) {
          if (isNotFoundError(e)) return 'already gone';
          throw e;
        }
        return path;
      },
      (r) => r,
    );
  }

  /**
   * The pod-sandbox controller's `Start` with the shim's `createPod`: the pause container
   * (process isolation) or the utility VM with the pod's network (Hyper-V). On failure the
   * controller has cleaned up after itself; `cleanupError` is set when that cleanup failed.
   */
  async #startSandbox(sb: SandboxRec): Promise<{ error?: unknown; cleanupError?: unknown }> {
    if (sb.hostNetwork) {
      // a HostProcess pod's sandbox is a job container: hcsshim makes no HCS compute system
      this.#steps.emit(OP.run, 'pause.start', sb.id, true, 'HostProcess job container');
      return {};
    }
    if (sb.isolation === 'hyperv') return this.#startUtilityVm(sb);
    let pause: System;
    try {
      pause = await this.#steps.run(OP.run, 'pause.create', sb.id, () =>
        this.#hcs.createComputeSystem(sb.id, processContainerDocument(sb.netns!)),
      );
    } catch (e) {
      return { error: wrap('failed to create containerd task', e) };
    }
    try {
      await this.#steps.run(OP.run, 'pause.start', sb.id, () => pause.start());
    } catch (e) {
      const error = wrap(`failed to start sandbox container task ${q(sb.id)}`, e);
      // task.Delete(WithProcessKill): the shim kills and closes the container
      try {
        await pause.terminate();
        await pause.close();
      } catch (ce) {
        return { error, cleanupError: ce };
      }
      return { error };
    }
    sb.pause = pause;
    sb.unwatch = this.#hcs.watch(sb.id, (n) => this.#onPauseNotification(sb, n));
    return {};
  }

  async #startUtilityVm(sb: SandboxRec): Promise<{ error?: unknown; cleanupError?: unknown }> {
    const report = (step: string, ok: boolean, detail?: string) =>
      this.#steps.emit(OP.run, step, sb.id, ok, detail);
    let uvm: UtilityVm;
    try {
      uvm = await UtilityVm.start(this.#hcs, `${sb.id}@vm`, this.#rng, report);
    } catch (e) {
      return { error: wrap('failed to create containerd task', e) };
    }
    try {
      await uvm.setupNetworkNamespace(this.#hcn, sb.netns!, report);
    } catch (e) {
      const error = wrap(
        'failed to create containerd task',
        wrap(`failed to setup networking for pod ${q(sb.id)}`, e),
      );
      // createPod's defer: parent.Close()
      try {
        await this.#steps.run(OP.run, 'uvm.close', sb.id, () => uvm.close());
      } catch (ce) {
        return { error, cleanupError: ce };
      }
      return { error };
    }
    sb.uvm = uvm;
    sb.unwatch = this.#hcs.watch(uvm.id, (n) => this.#onPauseNotification(sb, n));
    return {};
  }

  /** The sandbox's pause container or utility VM exited: NOTREADY, and the shim lets go of it. */
  #onPauseNotification(sb: SandboxRec, n: HcsNotificationEvent): void {
    if (!isExitNotification(n) || sb.stopping) return;
    if (sb.state === 'READY') sb.state = 'NOTREADY';
    sb.unwatch?.();
    sb.unwatch = undefined;
    if (sb.pause) this.#background.track(sb.pause.close());
    if (sb.uvm) this.#background.track(this.#closeUtilityVm(OP.exit, sb));
  }

  /** The fake sandbox task's close: TearDownNetworking (errors only logged), then the VM's close. */
  async #closeUtilityVm(op: string, sb: SandboxRec): Promise<void> {
    const uvm = sb.uvm;
    if (!uvm || uvm.system.closed) return;
    const report = (step: string, ok: boolean, detail?: string) =>
      this.#steps.emit(op, step, sb.id, ok, detail);
    try {
      await uvm.removeNetNS(this.#hcn, sb.netns!, report);
    } catch {
      // "failed to cleanup networking for utility VM" is only logged
    }
    try {
      await this.#steps.run(op, 'uvm.close', sb.id, () => uvm.close());
    } catch {
      // "failed host vm shutdown" is only logged
    }
  }

  // ───────────────────────────── Stop / Remove ─────────────────────────────

  /** `StopPodSandbox`: a sandbox that is not known is already stopped. */
  async stopPodSandbox(id: string): Promise<void> {
    const sb = this.#sandboxes.get(id);
    if (!sb) return;
    await this.#stopPodSandbox(OP.stop, sb);
  }

  async #stopPodSandbox(op: string, sb: SandboxRec): Promise<void> {
    for (const c of this.#containersOf(sb.id)) {
      try {
        await this.#stopContainer(op, c, 0);
      } catch (e) {
        throw wrap(`failed to stop container ${q(c.id)}`, e);
      }
    }
    if (sb.state === 'READY' || sb.state === 'UNKNOWN') {
      try {
        await this.#stopSandbox(op, sb);
      } catch (e) {
        if (!isNotExist(e)) throw wrap(`failed to stop sandbox ${q(sb.id)}`, e);
      }
      sb.state = 'NOTREADY';
    }
    if (sb.netns !== undefined) {
      let closed: boolean;
      try {
        closed = await this.#netnsClosed(sb.netns);
      } catch (e) {
        throw wrap('failed to check network namespace closed', e);
      }
      try {
        await this.#teardownPodNetwork(op, sb, closed ? '' : sb.netns);
      } catch (e) {
        if (sb.cniResult !== undefined) throw wrap(`failed to destroy network for sandbox ${q(sb.id)}`, e);
        // "ignoring because the sandbox network setup result is nil indicating the network setup never completed"
      }
      try {
        await this.#removeNetns(op, sb);
      } catch (e) {
        throw wrap(`failed to remove network namespace for sandbox ${q(sb.id)}`, e);
      }
    }
  }

  /** The controller's `Stop`: kill the pause container's task, or close the Hyper-V pod's VM. */
  async #stopSandbox(op: string, sb: SandboxRec): Promise<void> {
    // our own stop: the exit it causes is handled here, not by the exit monitor
    sb.stopping = true;
    try {
      if (sb.uvm) {
        await this.#closeUtilityVm(op, sb);
      } else if (sb.pause && !sb.pause.closed) {
        const pause = sb.pause;
        await this.#steps.run(op, 'pause.stop', sb.id, async () => {
          await pause.terminate();
          await pause.close();
        });
      }
      sb.unwatch?.();
      sb.unwatch = undefined;
    } finally {
      sb.stopping = false;
    }
  }

  /** `RemovePodSandbox`: force-stop, check the namespace is gone, remove the containers, forget it. */
  async removePodSandbox(id: string): Promise<void> {
    const sb = this.#sandboxes.get(id);
    if (!sb) return;
    try {
      await this.#stopPodSandbox(OP.remove, sb);
    } catch (e) {
      throw wrap(`failed to forcibly stop sandbox ${q(id)}`, e);
    }
    if (sb.netns !== undefined) {
      let closed: boolean;
      try {
        closed = await this.#netnsClosed(sb.netns);
      } catch (e) {
        throw wrap(`failed to check sandbox network namespace ${q(sb.netns)} closed`, e);
      }
      if (!closed) throw new RuntimeError(`sandbox network namespace ${q(sb.netns)} is not fully closed`);
    }
    for (const c of this.#containersOf(id)) {
      try {
        await this.#removeContainer(OP.remove, c);
      } catch (e) {
        throw wrap(`failed to remove container ${q(c.id)}`, e);
      }
    }
    sb.unwatch?.();
    sb.unwatch = undefined;
    this.#sandboxes.delete(id);
    this.#sandboxNames.releaseByKey(id);
    this.#steps.emit(OP.remove, 'sandbox.remove', id, true);
  }

  // ───────────────────────────── status ─────────────────────────────

  /** `PodSandboxStatus`: the IP is reported only while the namespace exists. */
  async podSandboxStatus(id: string): Promise<PodSandboxStatus> {
    const sb = this.#sandboxes.get(id);
    if (!sb) throw new RuntimeError('an error occurred when try to find sandbox: not found');
    let ip = '';
    let additionalIps: string[] = [];
    if (!sb.hostNetwork && sb.netns !== undefined) {
      let closed: boolean;
      try {
        closed = await this.#netnsClosed(sb.netns);
      } catch (e) {
        throw wrap('failed to get sandbox ip', wrap('check network namespace closed', e));
      }
      if (!closed) [ip, additionalIps] = [sb.ip, [...sb.additionalIps]];
    }
    return {
      id: sb.id,
      metadata: sb.metadata,
      state: sb.state === 'READY' ? 'SANDBOX_READY' : 'SANDBOX_NOTREADY',
      createdAt: sb.createdAt,
      network: { ip, additionalIps },
      netns: sb.netns ?? '',
      runtimeHandler: sb.runtimeHandler,
    };
  }

  /** `ListPodSandbox`, in creation order. */
  listPodSandbox(): PodSandbox[] {
    return [...this.#sandboxes.values()].map((sb) => ({
      id: sb.id,
      metadata: sb.metadata,
      state: sb.state === 'READY' ? 'SANDBOX_READY' : 'SANDBOX_NOTREADY',
      createdAt: sb.createdAt,
      runtimeHandler: sb.runtimeHandler,
    }));
  }

  /** The utility VM of a Hyper-V pod: its ID and the NICs it hot-added (`[nicId, endpointId]`). */
  utilityVm(id: string): { id: string; nics: [string, string][] } | undefined {
    const sb = this.#sandboxes.get(id);
    if (!sb?.uvm || sb.netns === undefined) return undefined;
    return { id: sb.uvm.id, nics: sb.uvm.nics(sb.netns) };
  }

  // ───────────────────────────── containers ─────────────────────────────

  #containersOf(sandboxId: string): ContainerRec[] {
    return [...this.#containers.values()].filter((c) => c.sandboxId === sandboxId);
  }

  /** `CreateContainer`: a container record in the sandbox (HCS sees nothing until it starts). */
  async createContainer(
    podSandboxId: string,
    config: ContainerConfig,
    sandboxConfig: PodSandboxConfig,
  ): Promise<string> {
    const sb = this.#sandboxes.get(podSandboxId);
    if (!sb) throw new RuntimeError(`failed to find sandbox id ${q(podSandboxId)}: not found`);
    if (sb.state !== 'READY') throw new RuntimeError(`sandbox container ${q(sb.id)} is not running`);
    const id = generateId(this.#rng);
    const md = config.metadata;
    if (!md) throw new RuntimeError('container config must include metadata');
    const smd = sandboxConfig.metadata;
    if (!smd) throw new RuntimeError('pod sandbox config must include metadata');
    const name = [md.name, smd.name, smd.namespace, smd.uid, String(md.attempt ?? 0)].join('_');
    try {
      this.#containerNames.reserve(name, id);
    } catch (e) {
      throw wrap(`failed to reserve container name ${q(name)}`, e);
    }
    if ((config.hostProcess === true) !== (sandboxConfig.hostProcess === true)) {
      this.#containerNames.releaseByName(name);
      throw new RuntimeError(
        'pod spec and all containers inside must have the HostProcess field set to be valid',
      );
    }
    this.#containers.set(id, {
      id,
      name,
      sandboxId: sb.id,
      config,
      createdAt: this.#host.clock.now(),
      state: 'CONTAINER_CREATED',
      starting: false,
      startedAt: 0,
      finishedAt: 0,
      exitCode: 0,
      reason: '',
      message: '',
      system: undefined,
      unwatch: undefined,
      stopping: false,
    });
    this.#steps.emit(OP.create, 'container.create', sb.id, true, `${md.name} ${id}`);
    return id;
  }

  /**
   * `StartContainer`: the task is created (HCS create: a process container naming the pod's
   * namespace, or one hosted in the pod's VM) and started. A failure deletes the task and leaves
   * the container EXITED with exit code 128, reason StartError.
   */
  async startContainer(id: string): Promise<void> {
    const c = this.#containers.get(id);
    if (!c) throw new RuntimeError(`an error occurred when try to find container ${q(id)}: not found`);
    if (c.state !== 'CONTAINER_CREATED')
      throw wrap(`failed to set starting state for container ${q(id)}`, `container is in ${c.state} state`);
    if (c.starting)
      throw wrap(
        `failed to set starting state for container ${q(id)}`,
        'container is already in starting state',
      );
    c.starting = true;
    try {
      await this.#startContainer(c);
    } catch (e) {
      c.state = 'CONTAINER_EXITED';
      c.finishedAt = this.#host.clock.now();
      c.exitCode = START_ERROR.exitCode;
      c.reason = START_ERROR.reason;
      c.message = errorText(e);
      throw e;
    } finally {
      c.starting = false;
    }
  }

  async #startContainer(c: ContainerRec): Promise<void> {
    const sb = this.#sandboxes.get(c.sandboxId);
    if (!sb) throw new RuntimeError(`sandbox ${q(c.sandboxId)} not found: not found`);
    if (sb.state !== 'READY') throw new RuntimeError(`sandbox container ${q(sb.id)} is not running`);
    if (sb.hostNetwork) {
      // a HostProcess container is a job container: no HCS compute system
      this.#markRunning(c, sb);
      return;
    }
    const doc = sb.uvm ? hostedContainerDocument(sb.uvm.id, sb.netns!) : processContainerDocument(sb.netns!);
    let system: System;
    try {
      system = await this.#steps.run(OP.start, 'container.create', sb.id, () =>
        this.#hcs.createComputeSystem(c.id, doc),
      );
    } catch (e) {
      throw wrap('failed to create containerd task', e);
    }
    try {
      await this.#steps.run(
        OP.start,
        'container.start',
        sb.id,
        () => system.start(),
        () => c.id,
      );
    } catch (e) {
      await terminateAndClose(system);
      throw wrap(`failed to start containerd task ${q(c.id)}`, e);
    }
    c.system = system;
    c.unwatch = this.#hcs.watch(c.id, (n) => {
      if (isExitNotification(n)) this.#onContainerExit(c);
    });
    this.#markRunning(c, sb);
  }

  #markRunning(c: ContainerRec, sb: SandboxRec): void {
    c.state = 'CONTAINER_RUNNING';
    c.startedAt = this.#host.clock.now();
    if (!c.system) this.#steps.emit(OP.start, 'container.start', sb.id, true, `${c.id} (job container)`);
  }

  /** The task exited: the container is EXITED and the shim closes its compute system. */
  #onContainerExit(c: ContainerRec): void {
    if (c.stopping) return;
    const system = c.system;
    c.unwatch?.();
    c.unwatch = undefined;
    if (!system) return;
    if (c.state === 'CONTAINER_RUNNING') this.#exited(c, system.exit);
    this.#background.track(system.close());
  }

  #exited(c: ContainerRec, exit: SystemExit | undefined): void {
    const graceful = exit?.exitType === 'GracefulExit';
    c.state = 'CONTAINER_EXITED';
    c.finishedAt = this.#host.clock.now();
    c.exitCode = graceful ? 0 : KILLED_EXIT_CODE;
    c.reason = graceful ? 'Completed' : 'Error';
  }

  /**
   * `StopContainer`: nothing to do unless it runs. With a timeout the container is asked to stop
   * (HCS Shutdown, GracefulExit, exit code 0); without one it is killed (Terminate, exit code 1067).
   */
  async stopContainer(id: string, timeout = 0): Promise<void> {
    const c = this.#containers.get(id);
    if (!c) return;
    await this.#stopContainer(OP.stopC, c, timeout);
  }

  async #stopContainer(op: string, c: ContainerRec, timeout: number): Promise<void> {
    if (c.state !== 'CONTAINER_RUNNING' && c.state !== 'CONTAINER_UNKNOWN') return;
    const system = c.system;
    // our own stop: the exit it causes is handled here, not by the exit monitor
    await stopContainerSystem(this.#steps, op, 'container.stop', c, timeout);
    if (c.state === 'CONTAINER_RUNNING' || c.state === 'CONTAINER_UNKNOWN')
      this.#exited(c, system?.exit ?? { exitType: timeout > 0 ? 'GracefulExit' : 'ForcedExit' });
  }

  /** `RemoveContainer`: a running container is stopped first; an unknown one is already removed. */
  async removeContainer(id: string): Promise<void> {
    const c = this.#containers.get(id);
    if (!c) return;
    await this.#removeContainer(OP.removeC, c);
  }

  async #removeContainer(op: string, c: ContainerRec): Promise<void> {
    if (c.state === 'CONTAINER_RUNNING' || c.state === 'CONTAINER_UNKNOWN') {
      try {
        await this.#stopContainer(op, c, 0);
      } catch (e) {
        throw wrap(`failed to forcibly stop container ${q(c.id)}`, e);
      }
    }
    if (c.system && !c.system.closed) await c.system.close();
    this.#containers.delete(c.id);
    this.#containerNames.releaseByKey(c.id);
    this.#steps.emit(op, 'container.remove', c.sandboxId, true, c.id);
  }

  /** `ContainerStatus`. */
  containerStatus(id: string): ContainerStatus {
    const c = this.#containers.get(id);
    if (!c) throw new RuntimeError(`an error occurred when try to find container ${q(id)}: not found`);
    return {
      id: c.id,
      podSandboxId: c.sandboxId,
      metadata: c.config.metadata!,
      state: c.state,
      createdAt: c.createdAt,
      startedAt: c.startedAt,
      finishedAt: c.finishedAt,
      exitCode: c.exitCode,
      reason: c.reason,
      message: c.message,
    };
  }

  /** `ListContainers`, in creation order (optionally of one sandbox). */
  listContainers(podSandboxId?: string): ContainerStatus[] {
    return [...this.#containers.values()]
      .filter((c) => podSandboxId === undefined || c.sandboxId === podSandboxId)
      .map((c) => this.containerStatus(c.id));
  }
}
