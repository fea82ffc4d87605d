/**
 * What both runtime flavours share: container/sandbox IDs, the name registrar, Go's `%w` error
 * chains, `runtime.step` events, and the pieces of containerd's CRI and go-cni that turn a pod
 * config into CNI inputs and CNI results into a pod IP (kubernetes-windows.md §3.1 step 3;
 * containerd `internal/cri/server/sandbox_run.go`, go-cni `result.go`, `namespace_opts.go`).
 */
import type { System } from '../api/hcs/system.js';
import type { CniResult } from '../cni/contracts.js';
import { goIPText } from '../cni/goip.js';
import type { Clock } from '../core/clock.js';
import type { EventBus, HcsNotificationEvent, RuntimeStepEvent } from '../core/events.js';
import type { Rng } from '../core/rng.js';
import { RuntimeError, type DnsConfig, type PodSandboxConfig, type PortMapping } from './contracts.js';

/** hcsshim's exit code of a killed WCOW init process (ERROR_PROCESS_ABORTED, hcs-lifecycle.md §2). */
export const KILLED_EXIT_CODE = 1067;

/** The text of any thrown value, as Go's `err.Error()` would give it. */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** `fmt.Errorf("<prefix>: %w", err)`. */
export function wrap(prefix: string, e: unknown): RuntimeError {
  return new RuntimeError(`${prefix}: ${errorText(e)}`, { cause: e });
}

/** Go's `%q` of a plain string (no escapes needed for IDs and names). */
export function q(s: string): string {
  return JSON.stringify(s);
}

/**
 * containerd's `util.GenerateID()` and docker's container IDs: 32 random bytes in lower-case hex
 * (64 digits), here from the runtime's own seeded generator.
 */
export function generateId(rng: Rng): string {
  let s = '';
  for (let i = 0; i < 8; i++) s += rng.nextU32().toString(16).padStart(8, '0');
  return s;
}

/**
 * containerd's `internal/registrar`: a name is reserved for one key. Reserving it again for the
 * same key is fine; for another key it fails with `name "x" is reserved for "y"`.
 */
export class NameIndex {
  readonly #byName = new Map<string, string>();
  readonly #byKey = new Map<string, string>();

  reserve(name: string, key: string): void {
    const k = this.#byName.get(name);
    if (k !== undefined) {
      if (k !== key) throw new RuntimeError(`name ${q(name)} is reserved for ${q(k)}`);
      return;
    }
    const n = this.#byKey.get(key);
    if (n !== undefined) throw new RuntimeError(`key ${q(key)} is reserved for ${q(n)}`);
    this.#byName.set(name, key);
    this.#byKey.set(key, name);
  }

  releaseByName(name: string): void {
    const k = this.#byName.get(name);
    if (k === undefined) return;
    this.#byName.delete(name);
    this.#byKey.delete(k);
  }

  releaseByKey(key: string): void {
    const n = this.#byKey.get(key);
    if (n === undefined) return;
    this.#byKey.delete(key);
    this.#byName.delete(n);
  }
}

/** What a runtime does on its own after an exit (closing handles, a UVM teardown), awaited by `settle`. */
export class BackgroundWork {
  readonly #pending = new Set<Promise<void>>();

  /** Run `p` in the background; its failure is dropped, as the runtime only logs it. */
  track(p: Promise<void>): void {
    const t = p.catch(() => undefined).finally(() => this.#pending.delete(t));
    this.#pending.add(t);
  }

  /** Wait until nothing is left, including work that work in progress starts. */
  async settle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }
}

/** An HCS notification that says the system is gone (it exited, or the service let go of it). */
export function isExitNotification(n: HcsNotificationEvent): boolean {
  return n.notification === 'SystemExited' || n.notification === 'ServiceDisconnect';
}

/** Kill a compute system (one already stopped is fine) and close its handle: a failed start's cleanup. */
export async function terminateAndClose(system: System): Promise<void> {
  await system.terminate().catch(() => undefined);
  await system.close();
}

/** A container record as both runtimes keep it, as far as stopping it goes. */
export interface StoppableContainer {
  readonly id: string;
  readonly sandboxId: string;
  readonly system: System | undefined;
  /** The runtime itself is stopping it (the exit monitor leaves the exit to the runtime). */
  stopping: boolean;
  unwatch: (() => void) | undefined;
}

/**
 * Stop a container's compute system as containerd and dockershim do, in one step: HCS Shutdown when
 * a timeout is given, Terminate unless it has exited by then, then Close; with `stopping` set for
 * the while, and the exit watch dropped afterwards.
 */
export async function stopContainerSystem(
  steps: Steps,
  op: string,
  step: string,
  c: StoppableContainer,
  timeout: number,
): Promise<void> {
  const system = c.system;
  c.stopping = true;
  try {
    await steps.run(
      op,
      step,
      c.sandboxId,
      async () => {
        if (system) {
          if (timeout > 0) await system.shutdown();
          if (!system.exit) await system.terminate();
          await system.close();
        }
      },
      () => c.id,
    );
  } finally {
    c.stopping = false;
  }
  c.unwatch?.();
  c.unwatch = undefined;
}

/** Emits `runtime.step` events for one runtime (only when someone listens). */
export class Steps {
  constructor(
    private readonly events: EventBus,
    private readonly clock: Clock,
    private readonly runtime: RuntimeStepEvent['runtime'],
  ) {}

  emit(operation: string, step: string, pod: string, ok: boolean, detail?: string): void {
    if (this.events.listenerCount('runtime.step') === 0) return;
    this.events.emit('runtime.step', {
      runtime: this.runtime,
      operation,
      step,
      pod,
      ok,
      ...(detail !== undefined && detail !== '' ? { detail } : {}),
      time: this.clock.now(),
    });
  }

  /** Run one step: emits it with `ok` and the detail `describe` gives, or the error's text. */
  async run<T>(
    operation: string,
    step: string,
    pod: string,
    fn: () => Promise<T>,
    describe?: (r: T) => string | undefined,
  ): Promise<T> {
    let r: T;
    try {
      r = await fn();
    } catch (e) {
      this.emit(operation, step, pod, false, errorText(e));
      throw e;
    }
    this.emit(operation, step, pod, true, describe?.(r));
    return r;
  }
}

// ─────────────────────────── containerd's CNI inputs (sandbox_run.go) ───────────────────────────

/** containerd's `annotations.PodAnnotations`: the capability carrying the pod's annotations. */
export const POD_ANNOTATIONS_CAPABILITY = 'io.kubernetes.cri.pod-annotations';

/**
 * `toCNILabels`: the CNI_ARGS pairs. containerd builds them as a Go map, so their order in
 * CNI_ARGS is random there; ours is the order `toCNILabels` lists them in (our choice).
 */
export function containerdCniArgs(sandboxId: string, config: PodSandboxConfig): [string, string][] {
  const md = config.metadata;
  return [
    ['K8S_POD_NAMESPACE', md?.namespace ?? ''],
    ['K8S_POD_NAME', md?.name ?? ''],
    ['K8S_POD_INFRA_CONTAINER_ID', sandboxId],
    ['K8S_POD_UID', md?.uid ?? ''],
    ['IgnoreUnknown', '1'],
  ];
}

/** Go's nil-slice-is-null marshalling of a repeated CRI field (protobuf leaves empty ones nil). */
function goList(xs: readonly string[] | undefined): readonly string[] | null {
  return xs && xs.length > 0 ? [...xs] : null;
}

/** go-cni's `PortMapping` (no JSON tags: Go field names) from the CRI port mappings with a host port. */
export function goCniPortMappings(pms: readonly PortMapping[] | undefined): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const p of pms ?? []) {
    if ((p.hostPort ?? 0) <= 0) continue;
    out.push({
      HostPort: p.hostPort,
      ContainerPort: p.containerPort,
      Protocol: (p.protocol ?? 'TCP').toLowerCase(),
      HostIP: p.hostIp ?? '',
    });
  }
  return out;
}

/** go-cni's `DNS` (no JSON tags) from the CRI DNSConfig (`toCNIDNS`). */
function goCniDns(dns: DnsConfig): Record<string, unknown> {
  return { Servers: goList(dns.servers), Searches: goList(dns.searches), Options: goList(dns.options) };
}

// k8s.io/apimachinery resource.ParseQuantity, the subset bandwidth annotations use
const QUANTITY = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const SUFFIX: Readonly<Record<string, number>> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/**
 * `resource.ParseQuantity(s).Value()` (rounded up to an integer), with apimachinery's error texts
 * (`quantity.go`: ErrFormatWrong, ErrNumeric, ErrSuffix).
 */
export function quantityValue(s: string): number {
  const m = QUANTITY.exec(s);
  if (!m)
    throw new RuntimeError(
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
  const num = m[1]!;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(num))
    throw new RuntimeError('unable to parse numeric part of quantity');
  const suffix = m[2]!;
  let mult = SUFFIX[suffix];
  if (mult === undefined) {
    const e = /^[eE]([-+]?[0-9]+)$/.exec(suffix);
    if (!e) throw new RuntimeError("unable to parse quantity's suffix");
    mult = 10 ** Number(e[1]);
  }
  return Math.ceil(Number(num) * mult);
}

/** containerd `internal/cri/bandwidth.ExtractPodBandwidthResources`: ingress and egress rates, if set. */
export function podBandwidth(annotations: Readonly<Record<string, string>> | undefined): {
  ingress?: number;
  egress?: number;
} {
  const out: { ingress?: number; egress?: number } = {};
  if (!annotations) return out;
  for (const [key, field] of [
    ['kubernetes.io/ingress-bandwidth', 'ingress'],
    ['kubernetes.io/egress-bandwidth', 'egress'],
  ] as const) {
    const s = annotations[key];
    if (s === undefined) continue;
    const v = quantityValue(s);
    if (v < 1e3) throw new RuntimeError('resource is unreasonably small (< 1kbit)');
    if (v > 1e15) throw new RuntimeError('resource is unreasonably large (> 1Pbit)');
    out[field] = v;
  }
  return out;
}

/**
 * containerd's `cniNamespaceOpts`: the capability args of every CNI call for a pod — the pod
 * annotations (always, `null` when none), `portMappings` (entries with a host port, if any),
 * `bandwidth` (from the annotations; burst is MaxUint32) and `dns` (when the pod has a DNSConfig).
 * Values are shaped as go-cni's structs marshal: Go field names, nil lists as `null`.
 */
export function containerdCapabilityArgs(config: PodSandboxConfig): Record<string, unknown> {
  const caps: Record<string, unknown> = {
    [POD_ANNOTATIONS_CAPABILITY]: config.annotations ? { ...config.annotations } : null,
  };
  const pms = goCniPortMappings(config.portMappings);
  if (pms.length > 0) caps['portMappings'] = pms;
  let bw: { ingress?: number; egress?: number };
  try {
    bw = podBandwidth(config.annotations);
  } catch (e) {
    throw wrap('reading pod bandwidth annotations', e);
  }
  if (bw.ingress !== undefined || bw.egress !== undefined) {
    caps['bandwidth'] = {
      IngressRate: bw.ingress ?? 0,
      IngressBurst: bw.ingress !== undefined ? 0xffffffff : 0,
      EgressRate: bw.egress ?? 0,
      EgressBurst: bw.egress !== undefined ? 0xffffffff : 0,
    };
  }
  if (config.dnsConfig) caps['dns'] = goCniDns(config.dnsConfig);
  return caps;
}

// ─────────────────────────────── go-cni's result (result.go) ───────────────────────────────

/** go-cni `IPConfig`: the address (no prefix) and gateway. */
export interface GoCniIPConfig {
  readonly ip: string;
  readonly gateway?: string;
  readonly family: 4 | 6;
}

/** go-cni `Config`: one interface of the merged result. */
export interface GoCniConfig {
  readonly ipConfigs: GoCniIPConfig[];
  readonly mac?: string;
  readonly sandbox?: string;
}

/** go-cni `defaultInterface(prefix)`: `eth0`. */
export const DEFAULT_IFNAME = 'eth0';

function ipOf(address: string): GoCniIPConfig {
  const slash = address.indexOf('/');
  const text = slash < 0 ? address : address.slice(0, slash);
  const ip = goIPText(text);
  if (!ip) return { ip: text, family: text.includes(':') ? 6 : 4 };
  return { ip: ip.text, family: ip.family };
}

/**
 * go-cni `createResult`: the results of every network merged into interfaces by name. `eth0` is
 * there from the start (empty); each result's interfaces replace same-named ones; each IP goes to
 * the interface its `interface` index names, or to `eth0` when it has none — which is where
 * win-bridge's IPs land, since it names its interface after the endpoint and sets no index.
 * An index past the list is go-cni's "invalid interface config" error; an index equal to the
 * list's length passes that check (`> ifs`, not `>=`) and then panics in Go, as here.
 */
export function goCniCreateResult(results: readonly CniResult[]): Map<string, GoCniConfig> {
  const out = new Map<string, GoCniConfig>([[DEFAULT_IFNAME, { ipConfigs: [] }]]);
  for (const r of results) {
    const ifs = r.interfaces ?? [];
    for (const i of ifs) {
      const c: { ipConfigs: GoCniIPConfig[]; mac?: string; sandbox?: string } = { ipConfigs: [] };
      if (i.mac !== undefined) c.mac = i.mac;
      if (i.sandbox !== undefined) c.sandbox = i.sandbox;
      out.set(i.name, c);
    }
    for (const ip of r.ips ?? []) {
      const idx = ip.interface;
      if (idx !== undefined && idx > ifs.length)
        throw new RuntimeError(
          `invalid interface config: invalid IP configuration (interface number ${idx} is > number of interfaces ${ifs.length}): invalid result`,
        );
      let name = DEFAULT_IFNAME;
      if (idx !== undefined) {
        const named = ifs[idx];
        if (!named || idx < 0)
          throw new RuntimeError(`runtime error: index out of range [${idx}] with length ${ifs.length}`);
        name = named.name;
      }
      const conf = ipOf(ip.address);
      out.get(name)!.ipConfigs.push(ip.gateway !== undefined ? { ...conf, gateway: ip.gateway } : conf);
    }
  }
  return out;
}

/** containerd's `ip_pref` setting. */
export type IpPreference = 'ipv4' | 'ipv6' | 'cni' | '';

/** containerd `selectPodIPs`: the pod IP and the additional ones, by preference. */
export function selectPodIPs(
  configs: readonly GoCniIPConfig[],
  preference: IpPreference,
): [string, string[]] {
  const all = configs.map((c) => c.ip);
  if (configs.length === 1) return [all[0]!, []];
  if (preference !== 'cni') {
    const want = preference === 'ipv6' ? 6 : 4;
    const extra: string[] = [];
    for (let i = 0; i < configs.length; i++) {
      if (configs[i]!.family === want) return [all[i]!, [...extra, ...all.slice(i + 1)]];
      extra.push(all[i]!);
    }
  }
  return [all[0]!, all.slice(1)];
}
