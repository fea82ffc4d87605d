/**
 * kubelet's dockershim on Windows with moby underneath, over one simulated node
 * (kubernetes-windows.md §3.4; kubernetes `pkg/kubelet/dockershim/docker_sandbox.go`,
 * `helpers_windows.go`, `network/cni/cni.go` + `cni_windows.go`, v1.14–v1.23 era). There is no
 * namespace ID: CNI_NETNS is the docker NetworkMode — `none` for the pause container,
 * `container:<pauseId>` for a workload — and the v1 plugins HotAttach the endpoint to the
 * container (cni-windows.md §2.4).
 *
 * RunPodSandbox: docker create (NetworkMode none) → checkpoint → docker start (HCS schema 1
 * ContainerConfig, no endpoints) → CNI ADD (`CNI_CONTAINERID` = pause ID, netns `none`). A failed
 * ADD is followed by CNI DEL and docker stop, all errors aggregated. PodSandboxStatus re-runs ADD
 * — first for every workload container of the pod (`container:<pauseId>`, which is how each
 * workload gets the endpoint hot-attached and its DNS copied), then for the pause container, whose
 * result gives the IP (`GetPodNetworkStatus`: "assuming addToNetwork is idempotent"). Workload ADDs
 * never get a DEL (their cached results stay). StopPodSandbox: CNI DEL (netns from inspecting the
 * pause container, `''` when it is gone) unless already torn down, then docker stop.
 *
 * Steps (`runtime.step`, `pod` = pause container ID): docker.create, docker.start, cni.add,
 * cni.del, docker.stop, docker.remove, sandbox.ready.
 */
import { HcsClient } from '../api/hcs/client.js';
import type { System, SystemExit } from '../api/hcs/system.js';
import type { CniResult, RuntimeConf } from '../cni/contracts.js';
import type { JsonObject } from '../core/json.js';
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
  type PortMapping,
} from './contracts.js';
import {
  BackgroundWork,
  errorText,
  generateId,
  isExitNotification,
  KILLED_EXIT_CODE,
  podBandwidth,
  q,
  Steps,
  stopContainerSystem,
  terminateAndClose,
  wrap,
} from './cri.js';

export interface DockershimOptions {
  /** kubelet's default CNI network (the first valid config in `--cni-conf-dir`). */
  readonly network?: CniNetwork;
  /** kubelet's `--cni-cache-dir` (default `/var/lib/cni/cache`), passed as RuntimeConf.CacheDir. */
  readonly cacheDir?: string;
  /** The node's PodCIDR, sent as the `ipRanges` capability (default `''`, as before it is known). */
  readonly podCidr?: string;
  /** Seed of the runtime's own IDs (docker container IDs); default 1. */
  readonly seed?: number;
  /**
   * kubelet's working directory, where the CNI plugins it execs start (a network's runner `cwd`
   * wins); default `C:\k`, where aks-engine's `kubeletstart.ps1` starts kubelet (ACN #698).
   */
  readonly cwd?: string;
}

/** Where aks-engine starts kubelet (and so dockershim's CNI plugins): `C:\k`. */
export const DOCKERSHIM_CWD = 'C:\\k';

/** dockershim's `defaultSandboxGracePeriod` (10 s). */
const SANDBOX_GRACE_SECONDS = 10;

type DockerState = 'created' | 'running' | 'exited';

/** A docker container as dockershim sees it through `docker inspect`. */
interface DockerContainer {
  readonly id: string;
  /** `k8s_POD_<pod>_<ns>_<uid>_<attempt>` or `k8s_<container>_<pod>_<ns>_<uid>_<attempt>`. */
  readonly name: string;
  readonly kind: 'sandbox' | 'container';
  /** The pod's sandbox (its own ID for a sandbox). */
  readonly sandboxId: string;
  /** `HostConfig.NetworkMode`. */
  readonly networkMode: string;
  readonly podMetadata: PodSandboxMetadata;
  readonly containerConfig?: ContainerConfig;
  readonly createdAt: number;
  state: DockerState;
  startedAt: number;
  finishedAt: number;
  exitCode: number;
  system: System | undefined;
  unwatch: (() => void) | undefined;
  stopping: boolean;
}

/** dockershim's sandbox checkpoint (`PodSandboxCheckpoint`). */
interface Checkpoint {
  readonly name: string;
  readonly namespace: string;
  readonly portMappings: readonly PortMapping[];
}

/** docker's not-found error (`libdocker.IsContainerNotFoundError` looks for "No such container"). */
function noSuchContainer(id: string): RuntimeError {
  return new RuntimeError(`Error: No such container: ${id}`);
}

function isContainerNotFound(e: unknown): boolean {
  return errorText(e).includes('No such container');
}

/** `utilerrors.NewAggregate(errs).Error()`: one error as it is, several as `[a, b]`. */
function aggregate(errs: readonly unknown[]): RuntimeError | undefined {
  if (errs.length === 0) return undefined;
  if (errs.length === 1) return new RuntimeError(errorText(errs[0]), { cause: errs[0] });
  return new RuntimeError(`[${errs.map(errorText).join(', ')}]`, { cause: errs[0] });
}

const OP = {
  run: 'RunPodSandbox',
  stop: 'StopPodSandbox',
  remove: 'RemovePodSandbox',
  status: 'PodSandboxStatus',
  create: 'CreateContainer',
  start: 'StartContainer',
  stopC: 'StopContainer',
  removeC: 'RemoveContainer',
} as const;

export class DockershimRuntime {
  readonly #host: Host;
  readonly #hcs: HcsClient;
  readonly #network: CniNetwork | undefined;
  readonly #cacheDir: string;
  readonly #cwd: string;
  readonly #podCidr: string;
  readonly #rng: Rng;
  readonly #steps: Steps;
  /** docker's containers, in creation order. */
  readonly #docker = new Map<string, DockerContainer>();
  readonly #checkpoints = new Map<string, Checkpoint>();
  /** dockershim's `networkReady` map. */
  readonly #networkReady = new Map<string, boolean>();
  readonly #background = new BackgroundWork();

  constructor(host: Host, options: DockershimOptions = {}) {
    this.#host = host;
    this.#hcs = HcsClient.forHost(host);
    this.#network = options.network;
    this.#cacheDir = options.cacheDir ?? '/var/lib/cni/cache';
    this.#cwd = options.cwd ?? DOCKERSHIM_CWD;
    this.#podCidr = options.podCidr ?? '';
    // a stream of its own ("DKSH"), not the host's: see ContainerdRuntime
    this.#rng = new Rng(((options.seed ?? 1) ^ 0x444b5348) >>> 0);
    this.#steps = new Steps(host.events, host.clock, 'dockershim');
  }

  /** Wait for what moby does on its own after an exit (closing compute systems). */
  async settle(): Promise<void> {
    await this.#background.settle();
  }

  // ───────────────────────────── docker (moby) ─────────────────────────────

  #inspect(id: string): DockerContainer {
    const c = this.#docker.get(id);
    if (!c) throw noSuchContainer(id);
    return c;
  }

  #dockerCreate(
    c: Omit<
      DockerContainer,
      'state' | 'startedAt' | 'finishedAt' | 'exitCode' | 'system' | 'unwatch' | 'stopping'
    >,
  ): DockerContainer {
    for (const other of this.#docker.values()) {
      if (other.name === c.name)
        throw new RuntimeError(
          `Error response from daemon: Conflict. The container name "/${c.name}" is already in use by container "${other.id}". You have to remove (or rename) that container to be able to reuse that name.`,
        );
    }
    const rec: DockerContainer = {
      ...c,
      state: 'created',
      startedAt: 0,
      finishedAt: 0,
      exitCode: 0,
      system: undefined,
      unwatch: undefined,
      stopping: false,
    };
    this.#docker.set(rec.id, rec);
    return rec;
  }

  /**
   * moby's schema 1 ContainerConfig (libcontainerd `createWindows`): no endpoints for NetworkMode
   * `none`; a `container:<id>` mode shares that container's stack (NetworkSharedContainerName).
   */
  #hcsDocument(c: DockerContainer): JsonObject {
    const doc: JsonObject = {
      SystemType: 'Container',
      Name: c.id,
      Owner: 'docker',
      IgnoreFlushesDuringBoot: true,
      LayerFolderPath: `C:\\ProgramData\\docker\\windowsfilter\\${c.id}`,
      Layers: [],
      HostName: c.podMetadata.name,
      HvPartition: false,
    };
    if (c.networkMode.startsWith('container:')) doc['NetworkSharedContainerName'] = c.networkMode.slice(10);
    doc['EndpointList'] = [];
    return doc;
  }

  /** `docker start`: moby creates and starts the compute system; a failure leaves it closed. */
  async #dockerStart(op: string, c: DockerContainer): Promise<void> {
    if (c.state === 'running') return;
    if (c.networkMode.startsWith('container:')) {
      const other = this.#docker.get(c.networkMode.slice(10));
      if (!other) throw noSuchContainer(c.networkMode.slice(10));
      if (other.state !== 'running')
        throw new RuntimeError(
          `Error response from daemon: cannot join network of a non running container: ${other.id}`,
        );
    }
    await this.#steps.run(
      op,
      'docker.start',
      c.sandboxId,
      async () => {
        let system: System;
        try {
          system = await this.#hcs.createComputeSystem(c.id, this.#hcsDocument(c));
        } catch (e) {
          throw wrap('Error response from daemon', e);
        }
        try {
          await system.start();
        } catch (e) {
          await terminateAndClose(system);
          throw wrap('Error response from daemon', e);
        }
        c.system = system;
        c.unwatch = this.#hcs.watch(c.id, (n) => {
          if (isExitNotification(n)) this.#onExit(c);
        });
      },
      () => c.id,
    );
    c.state = 'running';
    c.startedAt = this.#host.clock.now();
  }

  /** A compute system exited on its own: docker marks the container exited and closes it. */
  #onExit(c: DockerContainer): void {
    if (c.stopping) return;
    c.unwatch?.();
    c.unwatch = undefined;
    if (c.state === 'running') this.#exited(c, c.system?.exit);
    if (c.system) this.#background.track(c.system.close());
  }

  #exited(c: DockerContainer, exit: SystemExit | undefined): void {
    c.state = 'exited';
    c.finishedAt = this.#host.clock.now();
    c.exitCode = exit?.exitType === 'GracefulExit' ? 0 : KILLED_EXIT_CODE;
  }

  /** `docker stop -t <timeout>`: a shutdown, a terminate if it did not stop, then the handle closed. */
  async #dockerStop(op: string, id: string, timeout: number): Promise<void> {
    const c = this.#inspect(id);
    if (c.state !== 'running') return;
    const system = c.system;
    await stopContainerSystem(this.#steps, op, 'docker.stop', c, timeout);
    this.#exited(c, system?.exit);
  }

  /** `docker rm -f`: a running container is killed first. */
  async #dockerRemove(op: string, id: string): Promise<void> {
    const c = this.#inspect(id);
    if (c.state === 'running') await this.#dockerStop(op, id, 0);
    if (c.system && !c.system.closed) await c.system.close();
    this.#docker.delete(id);
    this.#steps.emit(op, 'docker.remove', c.sandboxId, true, id);
  }

  /** dockershim's `GetNetNS` on Windows: the container's NetworkMode. */
  #netnsOf(id: string): string {
    return this.#inspect(id).networkMode;
  }

  // ───────────────────────────── the CNI network plugin ─────────────────────────────

  /** `buildCNIRuntimeConf`. */
  #runtimeConf(
    podName: string,
    podNs: string,
    id: string,
    netns: string,
    annotations: Readonly<Record<string, string>> | undefined,
    dns: PodSandboxConfig['dnsConfig'] | undefined,
  ): RuntimeConf {
    const pms = (this.#checkpoints.get(id)?.portMappings ?? [])
      .filter((p) => (p.hostPort ?? 0) > 0)
      .map((p) => ({
        hostPort: p.hostPort,
        containerPort: p.containerPort,
        protocol: (p.protocol ?? 'TCP').toLowerCase(),
        hostIP: p.hostIp ?? '',
      }));
    const caps: Record<string, unknown> = { portMappings: pms };
    let bw: { ingress?: number; egress?: number };
    try {
      bw = podBandwidth(annotations);
    } catch (e) {
      throw wrap('failed to get pod bandwidth from annotations', e);
    }
    if (bw.ingress !== undefined || bw.egress !== undefined) {
      const b: Record<string, number> = {};
      if (bw.ingress !== undefined) [b['ingressRate'], b['ingressBurst']] = [bw.ingress, 2147483647];
      if (bw.egress !== undefined) [b['egressRate'], b['egressBurst']] = [bw.egress, 2147483647];
      caps['bandwidth'] = b;
    }
    caps['ipRanges'] = [[{ subnet: this.#podCidr }]];
    if (dns) {
      const d: Record<string, readonly string[]> = {};
      if (dns.servers?.length) d['servers'] = [...dns.servers];
      if (dns.searches?.length) d['searches'] = [...dns.searches];
      if (dns.options?.length) d['options'] = [...dns.options];
      caps['dns'] = d;
    }
    return {
      containerId: id,
      netns,
      ifName: 'eth0',
      args: [
        ['IgnoreUnknown', '1'],
        ['K8S_POD_NAMESPACE', podNs],
        ['K8S_POD_NAME', podName],
        ['K8S_POD_INFRA_CONTAINER_ID', id],
      ],
      capabilityArgs: caps,
      cacheDir: this.#cacheDir,
      cwd: this.#cwd,
    };
  }

  #plugin(): CniNetwork {
    if (!this.#network) throw new RuntimeError('cni config uninitialized');
    return this.#network;
  }

  /** `addToNetwork` for a container (its netns from inspecting it). */
  async #addToNetwork(
    op: string,
    sandboxId: string,
    md: { name: string; namespace: string },
    id: string,
    annotations?: Readonly<Record<string, string>>,
    dns?: PodSandboxConfig['dnsConfig'],
  ): Promise<CniResult | undefined> {
    const net = this.#plugin();
    let netns: string;
    try {
      netns = this.#netnsOf(id);
    } catch (e) {
      throw wrap('CNI failed to retrieve network namespace path', e);
    }
    const rt = this.#runtimeConf(md.name, md.namespace, id, netns, annotations, dns);
    return this.#steps.run(
      op,
      'cni.add',
      sandboxId,
      () => net.runner.addNetworkList(net.list, rt),
      () => `${id} netns=${q(rt.netns)}`,
    );
  }

  /**
   * `TearDownPod`: CNI DEL with the netns of the pause container (`''` when docker no longer
   * knows it: "lack of namespace should not be fatal on teardown"); "no such file or directory"
   * errors count as done.
   */
  async #tearDownPod(op: string, md: { name: string; namespace: string }, id: string): Promise<void> {
    const net = this.#plugin();
    let netns = '';
    try {
      netns = this.#netnsOf(id);
    } catch {
      // "CNI failed to retrieve network namespace path" is only a warning
    }
    const rt = this.#runtimeConf(md.name, md.namespace, id, netns, undefined, undefined);
    try {
      await this.#steps.run(
        op,
        'cni.del',
        id,
        () => net.runner.delNetworkList(net.list, rt),
        () => `${id} netns=${q(netns)}`,
      );
    } catch (e) {
      if (!errorText(e).includes('no such file or directory')) throw e;
    }
  }

  // ───────────────────────────── sandboxes ─────────────────────────────

  /** `RunPodSandbox`. A failed network setup still leaves the (stopped) sandbox container. */
  async runPodSandbox(config: PodSandboxConfig, runtimeHandler = ''): Promise<string> {
    const md = config.metadata;
    if (!md) throw new RuntimeError('sandbox config must include metadata');
    if (runtimeHandler !== '' && runtimeHandler !== 'docker')
      throw new RuntimeError(`RuntimeHandler ${q(runtimeHandler)} not supported`);
    const id = generateId(this.#rng);
    const name = ['k8s', 'POD', md.name, md.namespace, md.uid, String(md.attempt ?? 0)].join('_');
    try {
      this.#dockerCreate({
        id,
        name,
        kind: 'sandbox',
        sandboxId: id,
        networkMode: 'none',
        podMetadata: md,
        createdAt: this.#host.clock.now(),
      });
    } catch (e) {
      this.#steps.emit(OP.run, 'docker.create', id, false, errorText(e));
      throw wrap(`failed to create a sandbox for pod ${q(md.name)}`, e);
    }
    this.#steps.emit(OP.run, 'docker.create', id, true, name);
    // the deferred setNetworkReady looks at the last error assigned to `err` when it returns
    let err: unknown;
    this.#networkReady.set(id, false);
    try {
      this.#checkpoints.set(id, {
        name: md.name,
        namespace: md.namespace,
        portMappings: config.portMappings ?? [],
      });
      try {
        await this.#dockerStart(OP.run, this.#inspect(id));
      } catch (e) {
        err = e;
        throw wrap(`failed to start sandbox container for pod ${q(md.name)}`, e);
      }
      try {
        await this.#addToNetwork(OP.run, id, md, id, config.annotations, config.dnsConfig);
      } catch (e) {
        err = e;
        const errs: unknown[] = [
          wrap(`failed to set up sandbox container ${q(id)} network for pod ${q(md.name)}`, e),
        ];
        // "ensure network resources are cleaned up even if the plugin succeeded but an error happened"
        err = undefined;
        try {
          await this.#tearDownPod(OP.run, md, id);
        } catch (te) {
          err = te;
          errs.push(wrap(`failed to clean up sandbox container ${q(id)} network for pod ${q(md.name)}`, te));
        }
        err = undefined;
        try {
          await this.#dockerStop(OP.run, id, SANDBOX_GRACE_SECONDS);
        } catch (se) {
          err = se;
          errs.push(wrap(`failed to stop sandbox container ${q(id)} for pod ${q(md.name)}`, se));
        }
        throw aggregate(errs)!;
      }
      this.#steps.emit(OP.run, 'sandbox.ready', id, true);
      return id;
    } finally {
      if (err === undefined) this.#networkReady.set(id, true);
    }
  }

  /**
   * `StopPodSandbox`: the pod's name from docker or the checkpoint; CNI DEL unless the network was
   * already torn down; docker stop. Errors are aggregated.
   */
  async stopPodSandbox(id: string): Promise<void> {
    let md: { name: string; namespace: string } = { name: '', namespace: '' };
    const c = this.#docker.get(id);
    if (c) {
      md = c.podMetadata;
    } else {
      const cp = this.#checkpoints.get(id);
      if (cp) md = { name: cp.name, namespace: cp.namespace };
      // neither: "Proceed without further sandbox information"
    }
    const errs: unknown[] = [];
    const ready = this.#networkReady.get(id);
    if (ready === true || ready === undefined) {
      try {
        await this.#tearDownPod(OP.stop, md, id);
        this.#networkReady.set(id, false);
      } catch (e) {
        errs.push(e);
      }
    }
    try {
      await this.#dockerStop(OP.stop, id, SANDBOX_GRACE_SECONDS);
    } catch (e) {
      if (!isContainerNotFound(e)) errs.push(e);
      else this.#checkpoints.delete(id);
    }
    const e = aggregate(errs);
    if (e) throw e;
  }

  /** `RemovePodSandbox`: its containers, then the sandbox container, then the checkpoint. */
  async removePodSandbox(id: string): Promise<void> {
    const errs: unknown[] = [];
    for (const c of this.#workloadsOf(id)) {
      try {
        await this.removeContainer(c.id);
      } catch (e) {
        if (!isContainerNotFound(e)) errs.push(e);
      }
    }
    try {
      await this.#dockerRemove(OP.remove, id);
      this.#networkReady.delete(id);
    } catch (e) {
      if (isContainerNotFound(e)) this.#networkReady.delete(id);
      else errs.push(e);
    }
    this.#checkpoints.delete(id);
    const e = aggregate(errs);
    if (e) throw e;
  }

  /** The pod's workload containers, newest first (as `docker ps -a` lists them). */
  #workloadsOf(sandboxId: string): DockerContainer[] {
    return [...this.#docker.values()]
      .filter((c) => c.kind === 'container' && c.sandboxId === sandboxId)
      .reverse();
  }

  /**
   * `getIPs` → `GetPodNetworkStatus`: ADD again (without the DNS and bandwidth capabilities) and
   * the result read as 0.2.0 (its first IPv4 and first IPv6). Nothing when the network is known
   * not to be ready; a failed ADD gives nothing either (docker has no IP for a `none` container).
   */
  async #getIPs(sandboxId: string, c: DockerContainer): Promise<string[]> {
    const ready = this.#networkReady.get(sandboxId);
    if (ready === false) return [];
    let r: CniResult | undefined;
    try {
      r = await this.#addToNetwork(OP.status, sandboxId, c.podMetadata, c.id);
    } catch {
      return [];
    }
    if (!r) return [];
    const v4 = r.ips?.find((ip) => !ip.address.includes(':'));
    const v6 = r.ips?.find((ip) => ip.address.includes(':'));
    if (!v4) return [];
    const out = [v4.address.split('/')[0]!];
    if (v6) out.push(v6.address.split('/')[0]!);
    return out;
  }

  /**
   * `PodSandboxStatus`: `determinePodIPBySandboxID` first (an ADD per workload container with
   * `container:<pauseId>`, whose IPs are dropped), then the pause container's own ADD for the IP.
   */
  async podSandboxStatus(id: string): Promise<PodSandboxStatus> {
    const sb = this.#inspect(id);
    for (const w of this.#workloadsOf(id)) await this.#getIPs(id, w);
    const ips = await this.#getIPs(id, sb);
    return {
      id,
      metadata: sb.podMetadata,
      state: sb.state === 'running' ? 'SANDBOX_READY' : 'SANDBOX_NOTREADY',
      createdAt: sb.createdAt,
      network: { ip: ips[0] ?? '', additionalIps: ips.slice(1) },
      netns: sb.networkMode,
      runtimeHandler: '',
    };
  }

  /** `ListPodSandbox`: the sandbox containers, in creation order. */
  listPodSandbox(): PodSandbox[] {
    return [...this.#docker.values()]
      .filter((c) => c.kind === 'sandbox')
      .map((c) => ({
        id: c.id,
        metadata: c.podMetadata,
        state: c.state === 'running' ? 'SANDBOX_READY' : 'SANDBOX_NOTREADY',
        createdAt: c.createdAt,
        runtimeHandler: '',
      }));
  }

  // ───────────────────────────── containers ─────────────────────────────

  /** `CreateContainer`: docker create with NetworkMode `container:<pauseId>`. */
  async createContainer(
    podSandboxId: string,
    config: ContainerConfig,
    sandboxConfig: PodSandboxConfig,
  ): Promise<string> {
    const md = config.metadata;
    if (!md) throw new RuntimeError('container config must include metadata');
    const smd = sandboxConfig.metadata;
    if (!smd) throw new RuntimeError('sandbox config must include metadata');
    const id = generateId(this.#rng);
    const name = ['k8s', md.name, smd.name, smd.namespace, smd.uid, String(md.attempt ?? 0)].join('_');
    this.#dockerCreate({
      id,
      name,
      kind: 'container',
      sandboxId: podSandboxId,
      networkMode: `container:${podSandboxId}`,
      podMetadata: smd,
      containerConfig: config,
      createdAt: this.#host.clock.now(),
    });
    this.#steps.emit(OP.create, 'docker.create', podSandboxId, true, `${md.name} ${id}`);
    return id;
  }

  /** `StartContainer`: docker start (the compute system shares the pause container's stack). */
  async startContainer(id: string): Promise<void> {
    try {
      await this.#dockerStart(OP.start, this.#inspect(id));
    } catch (e) {
      throw wrap(`failed to start container ${q(id)}`, e);
    }
  }

  /** `StopContainer`: docker stop with the timeout. */
  async stopContainer(id: string, timeout = 0): Promise<void> {
    await this.#dockerStop(OP.stopC, id, timeout);
  }

  /** `RemoveContainer`: docker rm -f. */
  async removeContainer(id: string): Promise<void> {
    try {
      await this.#dockerRemove(OP.removeC, id);
    } catch (e) {
      throw wrap(`failed to remove container ${q(id)}`, e);
    }
  }

  /** `ContainerStatus`. */
  containerStatus(id: string): ContainerStatus {
    const c = this.#inspect(id);
    const state: ContainerState =
      c.state === 'running'
        ? 'CONTAINER_RUNNING'
        : c.state === 'created'
          ? 'CONTAINER_CREATED'
          : 'CONTAINER_EXITED';
    return {
      id: c.id,
      podSandboxId: c.sandboxId,
      metadata: c.containerConfig?.metadata ?? { name: 'POD' },
      state,
      createdAt: c.createdAt,
      startedAt: c.startedAt,
      finishedAt: c.finishedAt,
      exitCode: c.exitCode,
      reason: state === 'CONTAINER_EXITED' ? (c.exitCode === 0 ? 'Completed' : 'Error') : '',
      message: '',
    };
  }
}
