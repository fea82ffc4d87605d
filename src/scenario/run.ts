/**
 * The scenario runner: a loaded scenario (src/scenario/load.ts) made real on what the simulator
 * already has, then checked. The file is a declarative front only:
 * - a cluster (src/cluster) holds the nodes, the underlay, DNS, services and kube-proxy; each
 *   Windows node is set up by the cluster as its flanneld backend would (host-gw: L2Bridge `cbr0`
 *   with `cbr0_ep`; vxlan: Overlay `flannel.<vni>` with kube-proxy's source VIP); without `cluster`
 *   there is one standalone host whose HNS networks the file lists;
 * - a Windows node with `cni` runs its pods as kubelet does, through the CRI runtime
 *   (src/runtime: containerd + hcsshim, or dockershim) and the conflist's reference plugins
 *   (src/plugins) on the node's disk, with flanneld's subnet.env written for the flannel plugin;
 *   the cluster then adopts the endpoint the CNI ADD made (Cluster.addPod's `endpointId`). Without
 *   `cni`, the cluster programs the pod's endpoint straight into HNS;
 * - faults are the host's: HNS restart and reboot, HCS stop, out-of-band deletes, the fault layer.
 * Every action is narrated from the nodes' events (src/scenario/narrate.ts); every expectation
 * gives a result with where it is in the file, and a failed one says why.
 *
 *   const report = await runScenario(loadScenarioFile('scenarios/quick-start.yaml'));
 *   report.ok;    // every expectation held
 */
import { formatHResult, isHnsError, type HResultName } from '../core/errors.js';
import type { Json, JsonObject } from '../core/json.js';
import { isJsonObject } from '../core/json.js';
import { Cluster } from '../cluster/cluster.js';
import { packetChanges } from '../cluster/flows.js';
import type { TraceRequest, TraceResult } from '../dataplane/trace.js';
import { createHost, type Host } from '../host/host.js';
import { PluginRegistry } from '../cni/registry.js';
import { execPlugin, REFERENCE_PLUGINS } from '../plugins/index.js';
import { writeSubnetEnv } from '../plugins/flanneld/index.js';
import { collectListing, type HnsListing } from '../render/listing.js';
import type { NarratedStep, Walkthrough } from '../render/narration.js';
import { ContainerdRuntime } from '../runtime/containerd.js';
import type { PodSandboxConfig } from '../runtime/contracts.js';
import { DockershimRuntime } from '../runtime/dockershim.js';
import { cniNetwork } from '../runtime/network.js';
import { renderTrace, traceNames } from '../render/trace.js';
import { formatPath, expandPod, parseCell } from './load.js';
import { digest, LiveDigest, NodeEvents, shorten, type NarrationLine } from './narrate.js';
import { STEP_KINDS } from './schema.js';
import type {
  DispositionName,
  Expectations,
  HostSpec,
  PodSpec,
  ReachabilitySpec,
  Scenario,
  ServiceSpec,
  Step,
  TraceSpec,
} from './types.js';
import { parseHResult, type JsonPath } from './validate.js';

// ─────────────────────────────────────────── results ───────────────────────────────────────────

export type ResultKind = 'pod' | 'trace' | 'reachability' | 'hns' | 'audit' | 'call' | 'step';

/** Where something is in the scenario file. */
export interface FileLocation {
  readonly path: string;
  readonly line: number;
  readonly col: number;
}

/** A trace expectation's outcome. */
export interface TraceOutcome {
  readonly from: string;
  readonly to: string;
  readonly protocol: string;
  readonly port?: number;
  readonly expected: DispositionName;
  /** The disposition, or `error` when the trace could not run (an unknown source). */
  readonly observed: string;
  readonly changes: readonly string[];
  readonly reply?: { readonly expected: DispositionName; readonly observed: string };
  /** Why it could not run, or the trace's own detail. */
  readonly detail?: string;
  /** The trace at ovn-trace's summary level (with `traces: true`). */
  readonly text?: string;
}

/** A cell of a truth table: `.` connects, `X` does not, `-` ignored (loopback). */
export type Cell = '.' | 'X' | '-';

/** A reachability truth table: expected, observed and their comparison, as cyclonus prints them. */
export interface TruthTable {
  readonly label: string;
  /** `TCP/80`. */
  readonly header: string;
  readonly from: readonly string[];
  readonly to: readonly string[];
  readonly expected: readonly (readonly Cell[])[];
  readonly observed: readonly (readonly Cell[])[];
  /** The disposition of each cell's trace (`error: …` when it could not run). */
  readonly dispositions: readonly (readonly string[])[];
  readonly correct: number;
  readonly wrong: number;
  readonly ignored: number;
}

export interface ExpectationResult {
  readonly kind: ResultKind;
  readonly label: string;
  readonly ok: boolean;
  readonly at: FileLocation;
  /** What differs, one line each ([] when ok). */
  readonly problems: readonly string[];
  readonly trace?: TraceOutcome;
  readonly table?: TruthTable;
}

/** The results of one `expect` block (or of the actions, for what the steps themselves expect). */
export interface Checkpoint {
  readonly title: string;
  readonly at: FileLocation;
  readonly results: readonly ExpectationResult[];
}

export interface RunReport {
  readonly scenario: string;
  readonly file: string;
  readonly description?: string;
  readonly seed: number;
  readonly walkthrough: Walkthrough;
  readonly checkpoints: readonly Checkpoint[];
  readonly passed: number;
  readonly failed: number;
  readonly ok: boolean;
  /** What the run left behind, for the views (`hnsim show|trace|diagram|explain SCENARIO`). */
  readonly world: ScenarioWorld;
}

/** A pod as the run knows it (the key is `namespace/name`). */
export interface ScenarioPod {
  readonly key: string;
  readonly node: string;
  readonly phase: 'Running' | 'Failed' | 'Absent';
  readonly ip?: string;
  readonly sandboxId?: string;
  readonly netns?: string;
  readonly endpointId?: string;
  readonly hostProcess: boolean;
}

/** The nodes, pods and traces of a finished (or stopped, `until`) run. */
export interface ScenarioWorld {
  /** The cluster, when the file has `cluster`. */
  readonly cluster?: Cluster;
  /** Every node by name, in file order (Linux nodes have no host). */
  readonly nodes: ReadonlyMap<string, { readonly os: 'windows' | 'linux'; readonly host?: Host }>;
  readonly pods: ReadonlyMap<string, ScenarioPod>;
  /** A reference of the file's kinds (pod, node, svc:, IP, name) as the trace scope takes it. */
  ref(r: string): string;
  /** Trace through the cluster (or the standalone host). */
  trace(req: TraceRequest): TraceResult;
}

export interface RunOptions {
  /** Keep each trace expectation's trace as text (`hnsim run --trace`). */
  readonly traces?: boolean;
  /** Called as a truth table fills (cells done of total), for a progress bar. */
  readonly onProgress?: (done: number, total: number, label: string) => void;
  /** Stop after this many steps (0: after the set-up), skipping the final `expect` block. */
  readonly until?: number;
}

/** The simulator refused what the file describes (a pod subnet that is full, …): where and why. */
export class ScenarioSetupError extends Error {
  constructor(
    readonly file: string,
    readonly at: FileLocation,
    readonly reason: string,
  ) {
    super(`${file}:${at.line}:${at.col}: ${at.path ? `${at.path}: ` : ''}${reason}`);
    this.name = 'ScenarioSetupError';
  }
}

// ─────────────────────────────────────────── the world ──────────────────────────────────────────

type Runtime = ContainerdRuntime | DockershimRuntime;

interface NodeState {
  readonly name: string;
  readonly spec: HostSpec;
  readonly os: 'windows' | 'linux';
  readonly host?: Host;
  readonly events?: NodeEvents;
  readonly runtime?: Runtime;
}

interface PodState {
  readonly key: string;
  readonly node: string;
  phase: 'Running' | 'Failed' | 'Absent';
  ip?: string;
  sandboxId?: string;
  netns?: string;
  endpointId?: string;
  hostProcess: boolean;
  /** Known to the cluster (its traces, DNS and services see it). */
  inCluster: boolean;
  error?: string;
}

function errorText(e: unknown): string {
  if (isHnsError(e)) return `${e.code} (${formatHResult(e.hresult >>> 0)}): ${e.detail ?? e.message}`;
  return e instanceof Error ? e.message : String(e);
}

/** A deterministic pod UID from its position (kubelet gets one from the API server). */
function podUid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

/** Whether `actual` has everything `expected` has (objects: its keys; arrays: same length, element by element). */
export function partialMatch(actual: Json | undefined, expected: Json, path = ''): string | undefined {
  if (expected === null || typeof expected !== 'object') {
    return actual === expected
      ? undefined
      : `${path || 'value'} is ${actual === undefined ? 'missing' : JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path || 'value'} is not a list`;
    if (actual.length !== expected.length)
      return `${path || 'value'} has ${actual.length} item(s), expected ${expected.length}`;
    for (let i = 0; i < expected.length; i++) {
      const m = partialMatch(actual[i], expected[i]!, `${path}[${i}]`);
      if (m) return m;
    }
    return undefined;
  }
  if (!isJsonObject(actual))
    return `${path || 'value'} is ${actual === undefined ? 'missing' : 'not an object'}`;
  for (const [k, v] of Object.entries(expected)) {
    const m = partialMatch(actual[k], v, path ? `${path}.${k}` : k);
    if (m) return m;
  }
  return undefined;
}

const indentLines = (lines: readonly NarrationLine[], base = 0): string[] =>
  lines.map((l) => `${'  '.repeat(l.depth + base)}${l.text}`);

class Run {
  readonly steps: NarratedStep[] = [];
  readonly checkpoints: Checkpoint[] = [];
  private readonly actions: ExpectationResult[] = [];
  private readonly nodes = new Map<string, NodeState>();
  private readonly pods = new Map<string, PodState>();
  private cluster: Cluster | undefined;
  private podSeq = 0;
  private readonly doc;

  constructor(
    private readonly s: Scenario,
    private readonly options: RunOptions,
  ) {
    this.doc = s.doc;
  }

  private where(path: JsonPath): FileLocation {
    const { line, col } = this.s.locate(path);
    return { path: formatPath(path), line, col };
  }

  private setupError(path: JsonPath, e: unknown): ScenarioSetupError {
    return new ScenarioSetupError(this.s.file, this.where(path), errorText(e));
  }

  private step(title: string, notes: string[]): void {
    this.steps.push({ title, notes, calls: [] });
  }

  private get seed(): number {
    return this.doc.seed ?? 1;
  }

  private windowsNodes(): NodeState[] {
    return [...this.nodes.values()].filter((n) => n.host !== undefined);
  }

  /** Each Windows node's digest, kept up to date from its events. */
  private readonly digests = new Map<string, LiveDigest>();

  /** What changed on a node since the last call (the first call only starts following it). */
  private changesOf(n: NodeState): string[] {
    let d = this.digests.get(n.name);
    if (!d) this.digests.set(n.name, (d = new LiveDigest(n.host!)));
    return d.diff();
  }

  /** Run cluster work; what it changed on each Windows node (`lines`: `node:` then `  + …`). */
  private clusterOp<T>(
    path: JsonPath,
    fn: () => T,
  ): { value: T; lines: string[]; byNode: Map<string, string[]> } {
    // what changed since the last cluster work (a runtime's pods, steps) is not this work's
    for (const n of this.windowsNodes()) this.changesOf(n);
    let value: T;
    try {
      value = fn();
    } catch (e) {
      throw this.setupError(path, e);
    }
    const byNode = new Map<string, string[]>();
    for (const n of this.windowsNodes()) {
      const diff = this.changesOf(n);
      if (diff.length) byNode.set(n.name, diff);
    }
    return { value, lines: nodeLines(byNode), byNode };
  }

  // ───────────────────────────── set-up ─────────────────────────────

  async setup(): Promise<void> {
    if (this.doc.cluster) await this.setupCluster();
    else await this.setupStandalone();
    const dns = this.doc.cluster?.coreDns;
    if (dns) {
      for (let i = 0; i < (dns.replicas ?? 1); i++) {
        await this.addPod(
          {
            name: `coredns-${i}`,
            namespace: 'kube-system',
            node: dns.node,
            labels: { 'k8s-app': 'kube-dns' },
          },
          ['cluster', 'coreDns'],
          'CoreDNS',
        );
      }
      this.addService(
        {
          namespace: 'kube-system',
          name: 'kube-dns',
          clusterIP: this.cluster!.options.dnsServiceIp ?? this.dnsIp(),
          ports: [
            { port: 53, protocol: 'UDP', name: 'dns' },
            { port: 53, protocol: 'TCP', name: 'dns-tcp' },
          ],
          selector: { 'k8s-app': 'kube-dns' },
        },
        ['cluster', 'coreDns'],
      );
    }
    for (const [i, p] of (this.doc.pods ?? []).entries()) await this.addPod(p, ['pods', i]);
    for (const [i, svc] of (this.doc.services ?? []).entries()) this.addService(svc, ['services', i]);
  }

  private dnsIp(): string {
    return formatIp(this.cluster!.dnsServiceIp);
  }

  private async setupCluster(): Promise<void> {
    const c = this.doc.cluster!;
    const u = this.doc.underlay ?? {};
    try {
      this.cluster = new Cluster({
        seed: this.seed,
        ...(c.podCidr ? { podCidr: c.podCidr } : {}),
        ...(c.serviceCidr ? { serviceCidr: c.serviceCidr } : {}),
        ...(u.nodeSubnet ? { nodeSubnet: u.nodeSubnet } : {}),
        ...(c.domain ? { domain: c.domain } : {}),
        ...(c.dnsServiceIp ? { dnsServiceIp: c.dnsServiceIp } : {}),
        ...(c.dsr !== undefined ? { dsr: c.dsr } : {}),
        ...(this.doc.profile ? { profile: this.doc.profile } : {}),
        ...(u.routing ? { l2bridgeRouting: u.routing } : {}),
      });
    } catch (e) {
      throw this.setupError(['cluster'], e);
    }
    const cl = this.cluster;
    const notes = [
      `Pod network ${c.podCidr ?? '10.244.0.0/16'}, services ${c.serviceCidr ?? '10.96.0.0/12'}, DNS ${cl.dns.domain} at ${this.dnsIp()}; kube-proxy ${c.dsr ? 'with --enable-dsr' : 'without DSR'}.`,
      `Underlay: segment nodes ${u.nodeSubnet ?? '10.0.0.0/24'} behind a router at its .1 (the way out to the internet).`,
    ];
    u.segments?.forEach((sg, i) => {
      this.clusterOp(['underlay', 'segments', i], () => cl.addSegment(sg.name, sg.prefix));
      notes.push(`Segment ${sg.name} ${sg.prefix}, joined by the router.`);
    });
    u.routes?.forEach((r, i) => {
      this.clusterOp(['underlay', 'routes', i], () => cl.addRouterRoute(r.destinationPrefix, r.nextHop));
      notes.push(`Router route ${r.destinationPrefix} via ${r.nextHop}.`);
    });
    u.externals?.forEach((x, i) => {
      this.clusterOp(['underlay', 'externals', i], () => cl.addExternalHost(x));
      notes.push(`Outside host ${x.name} at ${x.ip}${x.dnsName ? ` (DNS ${x.dnsName})` : ''}.`);
    });
    this.step('The cluster and its underlay', notes);
    for (const [i, h] of this.doc.hosts.entries()) await this.addClusterNode(h, ['hosts', i]);
  }

  private async addClusterNode(h: HostSpec, path: JsonPath): Promise<void> {
    const cl = this.cluster!;
    const f = h.flannel!;
    if ((h.os ?? 'windows') === 'linux') {
      const { lines } = this.clusterOp(path, () =>
        cl.addLinuxNode({
          name: h.name,
          backend: f.backend,
          ...(h.segment ? { segment: h.segment } : {}),
          ...(h.podSubnet ? { podSubnet: h.podSubnet } : {}),
          ...(f.vni !== undefined ? { vni: f.vni } : {}),
          ...(f.port !== undefined ? { vxlanPort: f.port } : {}),
          ...(f.mtu !== undefined ? { mtu: f.mtu } : {}),
        }),
      );
      this.nodes.set(h.name, { name: h.name, spec: h, os: 'linux' });
      const n = cl.nodeOf(h.name)!;
      this.step(`Node ${h.name} joins: Linux, flannel ${f.backend}`, [
        `Address ${formatIp(n.ip)}, pod subnet ${formatPrefix(n.podSubnet)}${f.backend === 'vxlan' ? `, VXLAN VNI ${f.vni ?? 1} port ${f.port ?? 8472}` : ''}.`,
        ...(lines.length ? ['The other nodes learn its pod subnet:', ...lines] : []),
      ]);
      return;
    }
    const { value: host, byNode } = this.clusterOp(path, () =>
      cl.addWindowsNode({
        name: h.name,
        network: f.backend === 'host-gw' ? 'l2bridge' : 'overlay',
        ...(h.segment ? { segment: h.segment } : {}),
        ...(h.podSubnet ? { podSubnet: h.podSubnet } : {}),
        ...(h.profile ? { profile: h.profile } : {}),
        ...(f.vni !== undefined ? { vni: f.vni } : {}),
        ...(f.port !== undefined ? { vxlanPort: f.port } : {}),
        ...(h.macSpoofing !== undefined ? { macSpoofing: h.macSpoofing } : {}),
      }),
    );
    byNode.delete(h.name);
    const others = nodeLines(byNode);
    const notes = [
      `HNS profile ${host.profile.name}: ${host.profile.description}.`,
      ...this.adapterLines(host),
      `flanneld (${f.backend})${f.backend === 'vxlan' ? ' and kube-proxy (its source VIP)' : ''} set the node up:`,
      ...[...digest(host).values()].map((v) => `  ${shorten(v)}`),
      ...(others.length ? ['The other nodes learn its pod subnet:', ...others] : []),
    ];
    this.nodes.set(h.name, await this.nodeWithRuntime(h, host, path, notes));
    this.step(`Node ${h.name} joins: Windows, flannel ${f.backend}`, notes);
  }

  private adapterLines(host: Host): string[] {
    return host.adapters().map((a) => {
      const ip = a['IPv4Address']
        ? `${String(a['IPv4Address'])}/${String(a['PrefixLength'])}`
        : 'no IPv4 address';
      return `Adapter ${String(a['Name'])} (${String(a['Kind'] ?? '')}): ${ip}, MAC ${String(a['MacAddress'])}`;
    });
  }

  /** The node's events, runtime and CNI network (and flanneld's files the flannel plugin reads). */
  private async nodeWithRuntime(
    h: HostSpec,
    host: Host,
    path: JsonPath,
    notes: string[],
  ): Promise<NodeState> {
    const events = new NodeEvents(h.name, host);
    if (!h.cni) {
      if (this.cluster)
        notes.push('No cni: the cluster programs pod endpoints straight into HNS (no runtime, no CNI).');
      return { name: h.name, spec: h, os: 'windows', host, events };
    }
    const conflist = h.cni.conflist;
    let network;
    try {
      network = cniNetwork(host, conflist, {
        registry: events.watchPlugins(new PluginRegistry(), REFERENCE_PLUGINS),
      });
    } catch (e) {
      throw this.setupError([...path, 'cni', 'conflist'], e);
    }
    const seed = this.seed * 1000 + this.nodes.size + 1;
    const runtime: Runtime =
      h.runtime === 'dockershim'
        ? new DockershimRuntime(host, { network, seed })
        : new ContainerdRuntime(host, { networks: [network], seed });
    const plugins = (Array.isArray(conflist['plugins']) ? conflist['plugins'] : [conflist])
      .filter(isJsonObject)
      .map((p) => String(p['type']));
    notes.push(
      `${h.runtime ?? 'containerd'} runs pods; CNI network ${String(conflist['name'])}: ${plugins.join(' → ')}.`,
    );
    if (this.cluster) {
      const subnet = this.nodeSubnet(host);
      const overlay = h.flannel?.backend === 'vxlan';
      if (subnet) {
        const env = writeSubnetEnv(host.files, {
          network: this.cluster.options.podCidr ?? '10.244.0.0/16',
          subnet,
          mtu: overlay ? 1450 : 1500,
          ipMasq: h.flannel?.ipMasq ?? false,
        });
        notes.push(`flanneld writes /run/flannel/subnet.env: ${env.trim().split('\n').join(' ')}`);
      }
      if (overlay && subnet) notes.push(await this.reserveSourceVip(host, String(conflist['name']), subnet));
    }
    return { name: h.name, spec: h, os: 'windows', host, events, runtime };
  }

  private nodeSubnet(host: Host): string | undefined {
    for (const n of host.hns.store.networks.values())
      for (const i of n.Ipams) for (const s of i.Subnets) return s.IpAddressPrefix;
    return undefined;
  }

  /**
   * kube-proxy's source VIP comes from host-local on the pod subnet, as microsoft/SDN's
   * Get-SourceVip runs it, so the pods' host-local does not hand it out again.
   */
  private async reserveSourceVip(host: Host, name: string, subnet: string): Promise<string> {
    const stdin = JSON.stringify({
      cniVersion: '0.2.0',
      name,
      ipam: { type: 'host-local', ranges: [[{ subnet }]], dataDir: '/var/lib/cni/networks' },
    });
    const env = {
      CNI_COMMAND: 'ADD',
      CNI_CONTAINERID: 'dummy',
      CNI_NETNS: 'dummy',
      CNI_IFNAME: 'dummy',
      CNI_PATH: 'C:\\k\\cni',
    };
    const out = await execPlugin(host, 'host-local', { env, stdin });
    const m = /"(?:ip|address)"\s*:\s*"([0-9.]+)/.exec(out.stdout);
    return `kube-proxy's source VIP: host-local reserves ${m?.[1] ?? '(none)'} on ${subnet}, as microsoft/SDN's Get-SourceVip does (the sourcevip endpoint's address).`;
  }

  private async setupStandalone(): Promise<void> {
    const h = this.doc.hosts[0]!;
    let host: Host;
    try {
      host = createHost({
        seed: this.seed,
        name: h.name,
        ...((h.profile ?? this.doc.profile) ? { profile: h.profile ?? this.doc.profile } : {}),
        ...(h.nics ? { adapters: h.nics } : {}),
      });
    } catch (e) {
      throw this.setupError(['hosts', 0], e);
    }
    const events = new NodeEvents(h.name, host);
    const notes = [
      `HNS profile ${host.profile.name}: ${host.profile.description}.`,
      ...this.adapterLines(host),
    ];
    for (const [i, doc] of (h.networks ?? []).entries()) {
      const cap = events.captureSync(() => host.api.HcnCreateNetwork(null, doc));
      const r = cap.value;
      if (!r || !r.ok) {
        const why =
          r && !r.ok ? `${r.name} (${formatHResult(r.hr >>> 0)}): ${r.message}` : errorText(cap.error);
        throw new ScenarioSetupError(
          this.s.file,
          this.where(['hosts', 0, 'networks', i]),
          `HcnCreateNetwork failed: ${why}`,
        );
      }
      notes.push(...indentLines(cap.lines));
    }
    if (h.networks?.length) notes.push('Adapters now:', ...this.adapterLines(host).map((l) => `  ${l}`));
    const state = await this.nodeWithRuntime(h, host, ['hosts', 0], notes);
    this.nodes.set(h.name, state);
    this.step(`Host ${h.name}`, notes);
  }

  // ───────────────────────────── pods and services ─────────────────────────────

  private podConfig(p: PodSpec, name: string, attempt: number): PodSandboxConfig {
    const ns = p.namespace ?? 'default';
    const dns = this.cluster?.podDns(ns);
    return {
      metadata: { name, namespace: ns, uid: podUid(this.podSeq), attempt },
      hostname: p.hostname ?? name,
      ...(p.labels ? { labels: p.labels } : {}),
      ...(dns
        ? { dnsConfig: { servers: [...dns.servers], searches: [...dns.search], options: ['ndots:5'] } }
        : {}),
      ...(p.portMappings
        ? {
            portMappings: p.portMappings.map((m) => ({
              containerPort: m.containerPort,
              ...(m.hostPort !== undefined ? { hostPort: m.hostPort } : {}),
              ...(m.protocol ? { protocol: m.protocol } : {}),
              ...(m.hostIp ? { hostIp: m.hostIp } : {}),
            })),
          }
        : {}),
      ...(p.hostProcess ? { hostProcess: true } : {}),
    };
  }

  /** The endpoint a runtime pod got: one in its namespace, else one named after its sandbox. */
  private podEndpoint(host: Host, netns: string | undefined, sandboxId: string): string | undefined {
    const s = host.hns.store;
    if (netns) {
      const ns =
        s.namespaces.get(netns) ??
        [...s.namespaces.values()].find((n) => n.ID.toLowerCase() === netns.toLowerCase());
      const ep = ns?.Resources.find((r) => r.Type === 'Endpoint');
      if (ep) return s.endpoints.get(ep.ID)?.ID ?? ep.ID;
    }
    for (const e of s.endpoints.values()) if (e.Name.startsWith(sandboxId)) return e.ID;
    return undefined;
  }

  async addPod(p: PodSpec, path: JsonPath, title?: string): Promise<void> {
    for (const { key, name } of expandPod(p)) {
      this.podSeq++;
      const node = this.nodes.get(p.node)!;
      const state: PodState = {
        key,
        node: p.node,
        phase: 'Failed',
        hostProcess: p.hostProcess === true,
        inCluster: false,
      };
      this.pods.set(key, state);
      const notes: string[] = [];
      const ns = p.namespace ?? 'default';
      if (!node.runtime) {
        const { value, lines } = this.clusterOp(path, () =>
          this.cluster!.addPod({
            namespace: ns,
            name,
            node: p.node,
            ...(p.labels ? { labels: p.labels } : {}),
            ...(p.hostname ? { hostname: p.hostname } : {}),
            ...(p.subdomain ? { subdomain: p.subdomain } : {}),
            ...(p.policies ? { policies: p.policies } : {}),
          }),
        );
        Object.assign(state, {
          phase: 'Running',
          ip: value.ip,
          inCluster: true,
          endpointId: value.endpointId,
        });
        notes.push(
          node.os === 'linux'
            ? `kubelet on ${p.node} (Linux) starts it: ${value.ip}.`
            : `The cluster programs its endpoint straight into HNS (no runtime on ${p.node}): ${value.ip}.`,
          ...lines,
        );
      } else {
        await this.runtimePod(p, node, state, name, notes, path);
      }
      this.checkPodExpectation(p, state, path);
      const isolation = node.runtime
        ? `, ${p.hostProcess ? 'HostProcess' : (p.isolation ?? 'process') === 'hyperv' ? 'Hyper-V isolation' : 'process isolation'}`
        : '';
      this.step(
        `${title ? `${title}: p` : 'P'}od ${key} on ${p.node}${node.runtime ? ` (${node.spec.runtime ?? 'containerd'}${isolation})` : ''}`,
        notes,
      );
    }
  }

  private async runtimePod(
    p: PodSpec,
    node: NodeState,
    state: PodState,
    name: string,
    notes: string[],
    path: JsonPath,
  ): Promise<void> {
    const rt = node.runtime!;
    const host = node.host!;
    const handler = p.isolation === 'hyperv' ? 'runhcs-wcow-hypervisor' : '';
    const attempts = 1 + (p.retries ?? 0);
    let sandboxId: string | undefined;
    for (let a = 0; a < attempts && sandboxId === undefined; a++) {
      const config = this.podConfig(p, name, a);
      if (attempts > 1) notes.push(`kubelet: RunPodSandbox, attempt ${a + 1} of ${attempts}`);
      const cap = await node.events!.capture(async () => {
        const id = await rt.runPodSandbox(config, handler);
        state.sandboxId = id;
        for (const c of p.containers ?? [{ name: 'app' }]) {
          const cid = await rt.createContainer(
            id,
            {
              metadata: { name: c.name },
              ...(c.image ? { image: c.image } : {}),
              ...(p.hostProcess ? { hostProcess: true } : {}),
            },
            config,
          );
          await rt.startContainer(cid);
        }
        return id;
      });
      notes.push(...indentLines(cap.lines, attempts > 1 ? 1 : 0));
      if (cap.error !== undefined) {
        state.error = shorten(errorText(cap.error));
        notes.push(`${attempts > 1 ? '  ' : ''}✗ ${state.error}`);
        if (state.sandboxId) break; // the sandbox runs; a container failed
        continue;
      }
      sandboxId = cap.value;
      state.error = undefined;
    }
    if (sandboxId === undefined) return;
    const status = await rt.podSandboxStatus(sandboxId);
    state.netns = status.netns || undefined;
    state.ip = status.network.ip || undefined;
    if (state.error !== undefined) return;
    state.phase = 'Running';
    state.error = undefined;
    if (p.hostProcess) {
      notes.push(`A HostProcess pod: it has the node's network (no CNI call, no namespace).`);
      return;
    }
    state.endpointId = this.podEndpoint(host, state.netns, sandboxId);
    if (state.endpointId) {
      const layers = node.events!.portLayers(state.endpointId);
      if (layers) notes.push(layers);
    }
    notes.push(`Pod IP ${state.ip ?? '(none)'}.`);
    if (this.cluster && state.endpointId) {
      const ns = p.namespace ?? 'default';
      const { lines } = this.clusterOp(path, () =>
        this.cluster!.addPod({
          namespace: ns,
          name,
          node: p.node,
          endpointId: state.endpointId!,
          ...(p.labels ? { labels: p.labels } : {}),
          ...(p.hostname ? { hostname: p.hostname } : {}),
          ...(p.subdomain ? { subdomain: p.subdomain } : {}),
        }),
      );
      state.inCluster = true;
      if (lines.length) notes.push('The cluster sees the pod (DNS, services):', ...lines);
    }
  }

  private checkPodExpectation(p: PodSpec, state: PodState, path: JsonPath): void {
    const want = p.expect?.phase ?? 'Running';
    const problems: string[] = [];
    if (state.phase !== want)
      problems.push(`expected ${want}, but it is ${state.phase}${state.error ? `: ${state.error}` : ''}`);
    else if (p.expect?.error !== undefined && !(state.error ?? '').includes(p.expect.error))
      problems.push(`the error does not contain "${p.expect.error}": ${state.error ?? '(none)'}`);
    if (want === 'Failed' || problems.length)
      this.actions.push({
        kind: 'pod',
        label: `pod ${state.key} ${want === 'Failed' ? 'fails' : 'runs'}`,
        ok: problems.length === 0,
        at: this.where(path),
        problems,
      });
  }

  addService(svc: ServiceSpec, path: JsonPath): void {
    const cl = this.cluster!;
    const { value, lines } = this.clusterOp(path, () =>
      cl.addService({
        namespace: svc.namespace ?? 'default',
        name: svc.name,
        ports: svc.ports,
        selector: svc.selector,
        ...(svc.type ? { type: svc.type } : {}),
        ...(svc.clusterIP ? { clusterIP: svc.clusterIP } : {}),
        ...(svc.externalIPs ? { externalIPs: svc.externalIPs } : {}),
        ...(svc.loadBalancerIP ? { loadBalancerIP: svc.loadBalancerIP } : {}),
        ...(svc.sessionAffinity ? { sessionAffinity: svc.sessionAffinity } : {}),
        ...(svc.externalTrafficPolicy ? { externalTrafficPolicy: svc.externalTrafficPolicy } : {}),
      }),
    );
    const ports = svc.ports.map(
      (pt) =>
        `${pt.protocol ?? 'TCP'} ${pt.port}→${pt.targetPort ?? pt.port}${pt.nodePort ? ` (NodePort ${pt.nodePort})` : ''}`,
    );
    this.step(`Service ${svc.namespace ?? 'default'}/${svc.name}`, [
      `${svc.type ?? 'ClusterIP'} ${value.clusterIP}, ${ports.join(', ')}; kube-proxy programs every Windows node:`,
      ...(lines.length ? lines : ['(no backends yet: no load balancer)']),
    ]);
  }

  // ───────────────────────────── steps ─────────────────────────────

  async runSteps(until?: number): Promise<void> {
    for (const [i, st] of (this.doc.steps ?? []).entries()) {
      if (until !== undefined && i >= until) break;
      await this.runStep(st, ['steps', i]);
    }
  }

  world(): ScenarioWorld {
    return {
      ...(this.cluster ? { cluster: this.cluster } : {}),
      nodes: this.nodes,
      pods: this.pods,
      ref: (r) => this.ref(r),
      trace: (req) => this.trace(req),
    };
  }

  private winNode(name: string): NodeState & { host: Host; events: NodeEvents } {
    return this.nodes.get(name) as NodeState & { host: Host; events: NodeEvents };
  }

  private async runStep(st: Step, path: JsonPath): Promise<void> {
    const kind = STEP_KINDS.find((k) => Object.hasOwn(st, k))!;
    const at = [...path, kind];
    const titled = (t: string) => st.title ?? t;
    switch (kind) {
      case 'note':
        this.step(titled('Note'), [(st as { note: string }).note]);
        return;
      case 'addPod':
        await this.addPod((st as { addPod: PodSpec }).addPod, at, st.title);
        return;
      case 'deletePod':
        await this.deletePod((st as { deletePod: string }).deletePod, at, st.title);
        return;
      case 'addService':
        this.addService((st as { addService: ServiceSpec }).addService, at);
        return;
      case 'deleteService': {
        const ref = (st as { deleteService: string }).deleteService;
        const [ns, name] = ref.split('/') as [string, string];
        const { lines } = this.clusterOp(at, () => this.cluster!.removeService(ns, name));
        this.step(titled(`Delete service ${ref}`), lines.length ? lines : ['(nothing to change)']);
        return;
      }
      case 'restartHns': {
        const r = (st as Extract<Step, { restartHns: unknown }>).restartHns;
        const n = this.winNode(r.node);
        const cap = n.events.captureSync(() =>
          n.host.restartHns({
            ...(r.keep ?? {}),
            ...(r.downtimeMs !== undefined ? { downtimeMs: r.downtimeMs } : {}),
          }),
        );
        if (cap.error) throw this.setupError(at, cap.error);
        this.step(titled(`Restart the HNS service on ${r.node}`), [
          ...indentLines(cap.lines),
          ...(r.downtimeMs
            ? [`HNS answers RPC_S_SERVER_UNAVAILABLE for ${r.downtimeMs} ms of simulated time.`]
            : []),
          'kubelet, containerd, kube-proxy and flanneld are not told: what HNS dropped stays dropped.',
        ]);
        return;
      }
      case 'reboot': {
        const r = (st as Extract<Step, { reboot: unknown }>).reboot;
        const n = this.winNode(r.node);
        const cap = n.events.captureSync(() => n.host.reboot(r.keep ?? {}));
        if (cap.error) throw this.setupError(at, cap.error);
        this.step(titled(`Reboot ${r.node}`), [
          ...indentLines(cap.lines),
          'Every compute system is gone; kubelet, containerd, kube-proxy and flanneld do not run again here: the node is left as the reboot left it.',
        ]);
        return;
      }
      case 'restartHcs': {
        const r = (st as Extract<Step, { restartHcs: unknown }>).restartHcs;
        const n = this.winNode(r.node);
        const cap = n.events.captureSync(() => n.host.restartHcs());
        if (cap.error) throw this.setupError(at, cap.error);
        this.step(titled(`Stop the Host Compute Service on ${r.node}`), indentLines(cap.lines));
        return;
      }
      case 'deleteObject':
        this.deleteObject((st as Extract<Step, { deleteObject: unknown }>).deleteObject, at, st.title);
        return;
      case 'fail': {
        const f = (st as Extract<Step, { fail: unknown }>).fail;
        const n = this.winNode(f.node);
        const code = /^0x/i.test(f.hresult) ? parseHResult(f.hresult)! : (f.hresult as HResultName);
        try {
          n.host.faults.fail(
            { method: f.method, ...(f.name ? { name: f.name } : {}) },
            code,
            f.times !== undefined ? { times: f.times } : {},
          );
        } catch (e) {
          throw this.setupError(at, e);
        }
        const times = f.times === undefined ? 'every' : f.times === 1 ? 'the next' : `the next ${f.times}`;
        this.step(titled(`Fault on ${f.node}`), [
          `${times} ${f.method} call${f.times === 1 ? '' : 's'}${f.name ? ` on ${f.name}` : ''} will fail with ${f.hresult}${typeof code === 'number' ? '' : ` (${formatHResult(parseHResult(f.hresult)!)})`}.`,
        ]);
        return;
      }
      case 'clearFaults': {
        const r = (st as Extract<Step, { clearFaults: unknown }>).clearFaults;
        this.winNode(r.node).host.faults.clear();
        this.step(titled(`Clear the faults of ${r.node}`), ['Calls go through again.']);
        return;
      }
      case 'advance': {
        const { ms } = (st as Extract<Step, { advance: unknown }>).advance;
        for (const n of this.windowsNodes()) n.host!.clock.advance(ms);
        this.step(titled(`${ms} ms pass`), ['Simulated time moves on every node.']);
        return;
      }
      case 'call':
        this.call((st as Extract<Step, { call: unknown }>).call, at, st.title);
        return;
      case 'expect':
        this.checkpoint(
          st.title ?? `Expectations (step ${Number(path[1]) + 1})`,
          (st as { expect: Expectations }).expect,
          at,
        );
        return;
    }
  }

  private async deletePod(ref: string, path: JsonPath, title?: string): Promise<void> {
    const state = this.pods.get(ref);
    const notes: string[] = [];
    if (!state || state.phase === 'Absent') {
      this.step(title ?? `Delete pod ${ref}`, ['(no such pod running)']);
      return;
    }
    const node = this.nodes.get(state.node)!;
    const [ns, name] = ref.split('/') as [string, string];
    if (state.inCluster) {
      const { lines } = this.clusterOp(path, () => this.cluster!.removePod(ns, name));
      if (lines.length) notes.push('The cluster forgets the pod:', ...lines);
    }
    if (node.runtime && state.sandboxId) {
      const rt = node.runtime;
      const id = state.sandboxId;
      const cap = await node.events!.capture(async () => {
        await rt.stopPodSandbox(id);
        await rt.removePodSandbox(id);
      });
      notes.push(...indentLines(cap.lines));
      if (cap.error !== undefined) {
        const msg = shorten(errorText(cap.error));
        notes.push(`✗ ${msg}`);
        this.actions.push({
          kind: 'step',
          label: `delete pod ${ref}`,
          ok: false,
          at: this.where(path),
          problems: [msg],
        });
      }
    }
    state.phase = 'Absent';
    state.inCluster = false;
    this.step(title ?? `Delete pod ${ref}`, notes);
  }

  private deleteObject(
    d: Extract<Step, { deleteObject: unknown }>['deleteObject'],
    path: JsonPath,
    title?: string,
  ): void {
    const n = this.winNode(d.node);
    const s = n.host.hns.store;
    const pod = d.pod ? this.pods.get(d.pod) : undefined;
    let ids: string[] = [];
    if (d.kind === 'endpoint') {
      ids =
        d.name !== undefined
          ? [...s.endpoints.values()].filter((e) => e.Name === d.name).map((e) => e.ID)
          : pod?.endpointId
            ? [pod.endpointId]
            : [];
    } else if (d.kind === 'network') {
      ids = [...s.networks.values()].filter((x) => x.Name === d.name).map((x) => x.ID);
    } else if (d.kind === 'namespace') {
      ids = pod?.netns ? [pod.netns] : [];
    } else {
      ids = [...s.loadBalancers.values()].filter((lb) => lb.FrontendVIPs.includes(d.vip!)).map((lb) => lb.ID);
    }
    const what = d.name ?? d.pod ?? d.vip ?? '';
    const label = `hnsdiag delete ${d.kind}s ${what}`;
    if (!ids.length) {
      const msg = `no ${d.kind} ${what} on ${d.node}`;
      this.actions.push({ kind: 'step', label, ok: false, at: this.where(path), problems: [msg] });
      this.step(title ?? `Out of band on ${d.node}: ${label}`, [`✗ ${msg}`]);
      return;
    }
    const notes: string[] = [];
    const method = {
      endpoint: 'HcnDeleteEndpoint',
      network: 'HcnDeleteNetwork',
      namespace: 'HcnDeleteNamespace',
      loadbalancer: 'HcnDeleteLoadBalancer',
    }[d.kind];
    for (const id of ids) {
      const cap = n.events.captureSync(() => n.host.api.call(method, [id]));
      notes.push(...indentLines(cap.lines));
      const r = cap.value;
      if (r && !r.ok) {
        const msg = `${method} refused: ${r.name} (${formatHResult(r.hr >>> 0)}): ${r.message}`;
        notes.push(`✗ ${msg}`);
        this.actions.push({ kind: 'step', label, ok: false, at: this.where(path), problems: [msg] });
      }
    }
    notes.push('Nobody is told: kubelet, the runtime and kube-proxy still believe it exists.');
    this.step(title ?? `Out of band on ${d.node}: ${label}`, notes);
  }

  /**
   * A call's parameters with each string `$(network NAME)`, `$(endpoint NAME)`, `$(namespace POD)`
   * or `$(loadbalancer VIP)` replaced by that object's ID on the node (a file cannot know the
   * GUIDs HNS will give); an unknown name is left as written, so HNS says what it thinks of it.
   */
  private withIds(v: Json, host: Host): Json {
    if (typeof v === 'string') {
      const m = /^\$\((network|endpoint|namespace|loadbalancer) ([^)]+)\)$/.exec(v);
      if (!m) return v;
      const s = host.hns.store;
      const name = m[2]!;
      const id =
        m[1] === 'network'
          ? [...s.networks.values()].find((x) => x.Name === name)?.ID
          : m[1] === 'endpoint'
            ? [...s.endpoints.values()].find((x) => x.Name === name)?.ID
            : m[1] === 'namespace'
              ? this.pods.get(name)?.netns
              : [...s.loadBalancers.values()].find((x) => x.FrontendVIPs.includes(name))?.ID;
      return id ?? v;
    }
    if (Array.isArray(v)) return v.map((x) => this.withIds(x, host));
    if (isJsonObject(v))
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.withIds(x, host)]));
    return v;
  }

  private call(c: Extract<Step, { call: unknown }>['call'], path: JsonPath, title?: string): void {
    const n = this.winNode(c.node);
    const params = (c.params ?? []).map((p) => this.withIds(p as Json, n.host));
    const cap = n.events.captureSync(() => n.host.api.call(c.method, params));
    const r = cap.value;
    const want = c.expect ?? 'S_OK';
    const wantCode = parseHResult(want)!;
    const notes = [
      `${c.method}(${params.map((p) => JSON.stringify(p)).join(', ')})`,
      ...indentLines(cap.lines, 1),
    ];
    let observed: string;
    let code: number | undefined;
    if (!r)
      observed =
        cap.error !== undefined ? `threw: ${errorText(cap.error)}` : `no flat API method ${c.method}`;
    else if (r.ok) {
      observed = 'S_OK';
      code = 0;
    } else {
      code = r.hr >>> 0;
      observed = `${r.name} (${formatHResult(code)}): ${r.message}`;
    }
    notes.push(`→ ${observed}`);
    const ok = code === wantCode;
    this.actions.push({
      kind: 'call',
      label: `${c.method} on ${c.node} → ${want}`,
      ok,
      at: this.where(path),
      problems: ok
        ? []
        : [`expected ${want}${wantCode ? ` (${formatHResult(wantCode)})` : ''}, got ${observed}`],
    });
    this.step(title ?? `Call ${c.method} on ${c.node}`, notes);
  }

  // ───────────────────────────── expectations ─────────────────────────────

  /** A reference as the trace scope knows it. */
  private ref(r: string): string {
    const pod = this.pods.get(r);
    if (this.cluster) return pod?.hostProcess ? pod.node : r;
    if (pod?.endpointId) return pod.endpointId;
    if (this.nodes.has(r)) return 'host';
    return r;
  }

  private trace(req: TraceRequest): TraceResult {
    if (this.cluster) return this.cluster.trace(req);
    return this.windowsNodes()[0]!.host!.trace(req);
  }

  private request(
    from: string,
    to: string,
    protocol: string | undefined,
    port: number | undefined,
    extra: Partial<TraceRequest> = {},
  ): TraceRequest {
    const proto = protocol ?? 'TCP';
    return {
      from: this.ref(from),
      to: this.ref(to),
      protocol: proto,
      ...(proto !== 'ICMP' && port !== undefined ? { destinationPort: port } : {}),
      ...extra,
    };
  }

  checkpoint(title: string, e: Expectations, path: JsonPath): void {
    const results: ExpectationResult[] = [];
    e.pods?.forEach((p, i) => results.push(this.checkPod(p, [...path, 'pods', i])));
    e.traces?.forEach((t, i) => results.push(this.checkTrace(t, [...path, 'traces', i])));
    e.reachability?.forEach((r, i) => results.push(this.checkReachability(r, [...path, 'reachability', i])));
    e.hns?.forEach((h, i) => results.push(this.checkHns(h, [...path, 'hns', i])));
    e.audit?.forEach((a, i) => results.push(...this.checkAudit(a, [...path, 'audit', i])));
    this.checkpoints.push({ title, at: this.where(path), results });
    const failed = results.filter((r) => !r.ok).length;
    this.step(title, [
      `${results.length - failed} of ${results.length} expectation(s) hold${failed ? `; ${failed} do not (below)` : ''}.`,
    ]);
  }

  private checkPod(p: NonNullable<Expectations['pods']>[number], path: JsonPath): ExpectationResult {
    const st = this.pods.get(p.pod);
    const phase = st?.phase ?? 'Absent';
    const problems: string[] = [];
    if (phase !== p.phase)
      problems.push(`expected ${p.phase}, but it is ${phase}${st?.error ? `: ${st.error}` : ''}`);
    if (p.ip !== undefined && st?.ip !== p.ip) problems.push(`expected IP ${p.ip}, got ${st?.ip ?? 'none'}`);
    if (p.error !== undefined && !(st?.error ?? '').includes(p.error))
      problems.push(`the error does not contain "${p.error}": ${st?.error ?? '(none)'}`);
    return {
      kind: 'pod',
      label: `pod ${p.pod} is ${p.phase}${p.ip ? ` at ${p.ip}` : ''}`,
      ok: !problems.length,
      at: this.where(path),
      problems,
    };
  }

  private checkTrace(t: TraceSpec, path: JsonPath): ExpectationResult {
    const req = this.request(t.from, t.to, t.protocol, t.port, {
      ...(t.sourcePort !== undefined ? { sourcePort: t.sourcePort } : {}),
      ...(t.reply !== undefined ? { reply: true } : {}),
    });
    const label = t.name ?? `${t.from} → ${t.to}`;
    const problems: string[] = [];
    let result: TraceResult | undefined;
    let observed: string;
    let detail: string | undefined;
    try {
      result = this.trace(req);
      observed = result.disposition;
      detail = result.detail;
    } catch (e) {
      observed = 'error';
      detail = errorText(e);
    }
    const changes = result ? packetChanges(result.observations) : [];
    if (observed !== t.expect)
      problems.push(`expected ${t.expect}, observed ${observed}${detail ? ` (${detail})` : ''}`);
    if (t.changes && JSON.stringify(t.changes) !== JSON.stringify(changes))
      problems.push(`expected the changes [${t.changes.join(', ')}], observed [${changes.join(', ')}]`);
    let reply: TraceOutcome['reply'];
    if (t.reply !== undefined) {
      const got =
        result?.reply?.disposition ?? (result ? 'no reply (the request was not delivered)' : 'error');
      reply = { expected: t.reply, observed: got };
      if (got !== t.reply) problems.push(`expected the reply ${t.reply}, observed ${got}`);
    }
    if (t.decidedBy && result) {
      const last = result.observations[result.observations.length - 1];
      const d = t.decidedBy;
      const fields: [string, string | undefined, string | undefined][] = [
        ['component', d.component, last?.component],
        ['policy', d.policy, last?.rule?.policy],
        ['name', d.name, last?.rule?.name ?? last?.rule?.rule],
      ];
      for (const [k, want, got] of fields)
        if (want !== undefined && want.toLowerCase() !== (got ?? '').toLowerCase())
          problems.push(`expected the last step's ${k} ${want}, observed ${got ?? 'none'}`);
    }
    const hosts = this.windowsNodes().map((n) => n.host!);
    const outcome: TraceOutcome = {
      from: t.from,
      to: t.to,
      protocol: t.protocol ?? 'TCP',
      ...(t.port !== undefined ? { port: t.port } : {}),
      expected: t.expect,
      observed,
      changes,
      ...(reply ? { reply } : {}),
      ...(detail ? { detail } : {}),
      ...(this.options.traces && result
        ? { text: shorten(renderTrace(result, 'summary', { names: traceNames(...hosts) })) }
        : {}),
    };
    return { kind: 'trace', label, ok: !problems.length, at: this.where(path), problems, trace: outcome };
  }

  private checkReachability(r: ReachabilitySpec, path: JsonPath): ExpectationResult {
    const allow = new Set((r.allow ?? []).map((c) => parseCell(c)!.join('\u0000')));
    const deny = new Set((r.deny ?? []).map((c) => parseCell(c)!.join('\u0000')));
    const expected: Cell[][] = [];
    const observed: Cell[][] = [];
    const dispositions: string[][] = [];
    const problems: string[] = [];
    let correct = 0;
    let wrong = 0;
    let ignored = 0;
    const total = r.from.length * r.to.length;
    const label = r.name ?? `reachability ${formatPath(path)}`;
    let done = 0;
    for (const f of r.from) {
      const e: Cell[] = [];
      const o: Cell[] = [];
      const d: string[] = [];
      for (const t of r.to) {
        done++;
        if (r.ignoreLoopback && f === t) {
          e.push('-');
          o.push('-');
          d.push('-');
          ignored++;
          continue;
        }
        const key = `${f}\u0000${t}`;
        const want: Cell = allow.has(key) ? '.' : deny.has(key) ? 'X' : r.default === 'allow' ? '.' : 'X';
        let disp: string;
        try {
          const res = this.trace(this.request(f, t, r.protocol, r.port));
          disp = res.disposition;
        } catch (err) {
          disp = `error: ${errorText(err)}`;
        }
        const got: Cell = disp === 'Delivered' ? '.' : 'X';
        e.push(want);
        o.push(got);
        d.push(disp);
        if (want === got) correct++;
        else {
          wrong++;
          problems.push(
            `${f} -> ${t}: expected ${want === '.' ? 'to connect' : 'not to connect'}, observed ${disp}`,
          );
        }
        if (this.options.onProgress && (done % 25 === 0 || done === total))
          this.options.onProgress(done, total, label);
      }
      expected.push(e);
      observed.push(o);
      dispositions.push(d);
    }
    const header = `${r.protocol ?? 'TCP'}${r.protocol === 'ICMP' ? '' : `/${r.port ?? 80}`}`;
    return {
      kind: 'reachability',
      label,
      ok: wrong === 0,
      at: this.where(path),
      problems,
      table: {
        label,
        header,
        from: r.from,
        to: r.to,
        expected,
        observed,
        dispositions,
        correct,
        wrong,
        ignored,
      },
    };
  }

  private checkHns(h: NonNullable<Expectations['hns']>[number], path: JsonPath): ExpectationResult {
    const n = this.winNode(h.node);
    const listing: HnsListing = collectListing(n.host.api, n.host);
    const all = listing[h.kind] as readonly JsonObject[];
    const selected = h.where ? all.filter((o) => partialMatch(o, h.where!) === undefined) : [...all];
    const problems: string[] = [];
    if (h.count !== undefined && selected.length !== h.count)
      problems.push(
        `expected ${h.count} ${h.kind}${h.where ? ` matching ${JSON.stringify(h.where)}` : ''}, found ${selected.length}`,
      );
    if (h.has)
      for (const o of selected) {
        const m = partialMatch(o, h.has);
        if (m) problems.push(`${h.kind.slice(0, -1)} ${String(o['Name'] || o['ID'])}: ${m}`);
      }
    const label = `${h.node}: ${h.count !== undefined ? `${h.count} ` : ''}${h.kind}${h.where ? ` where ${JSON.stringify(h.where)}` : ''}${h.has ? ` with ${JSON.stringify(h.has)}` : ''}`;
    return { kind: 'hns', label: shorten(label), ok: !problems.length, at: this.where(path), problems };
  }

  private checkAudit(a: NonNullable<Expectations['audit']>[number], path: JsonPath): ExpectationResult[] {
    const nodes = a.node !== undefined ? [this.winNode(a.node)] : this.windowsNodes();
    return nodes.map((n) => {
      const findings = n.host!.audit();
      const got = findings.map((f) => f.kind as string).sort();
      const want = [...a.findings].sort();
      const ok = JSON.stringify(got) === JSON.stringify(want);
      const problems = ok
        ? []
        : [
            `expected ${want.length ? want.join(', ') : 'no findings'}, found ${got.length ? got.join(', ') : 'none'}:`,
            ...findings.map((f) => `${f.kind}: ${shorten(f.detail)}`),
          ];
      return {
        kind: 'audit' as const,
        label: `${n.name}: audit ${want.length ? `finds ${want.join(', ')}` : 'is clean'}`,
        ok,
        at: this.where(path),
        problems,
      };
    });
  }

  finish(): void {
    if (this.actions.length)
      this.checkpoints.unshift({
        title: 'What the pods and steps expect',
        at: this.where([]),
        results: this.actions,
      });
  }
}

/** Run a loaded scenario. Throws ScenarioSetupError when the simulator refuses what the file describes. */
export async function runScenario(s: Scenario, options: RunOptions = {}): Promise<RunReport> {
  const run = new Run(s, options);
  await run.setup();
  await run.runSteps(options.until);
  if (s.doc.expect && options.until === undefined) run.checkpoint('Expectations', s.doc.expect, ['expect']);
  run.finish();
  const results = run.checkpoints.flatMap((c) => c.results);
  const failed = results.filter((r) => !r.ok).length;
  const doc = s.doc;
  return {
    scenario: doc.name,
    file: s.file,
    ...(doc.description ? { description: doc.description.trim() } : {}),
    seed: doc.seed ?? 1,
    walkthrough: {
      title: `hnsim run: ${doc.name}`,
      header: [
        ...(doc.description ? doc.description.trim().split('\n') : []),
        `${s.file}, seed ${doc.seed ?? 1}`,
      ],
      steps: run.steps,
      completed: true,
    },
    checkpoints: run.checkpoints,
    passed: results.length - failed,
    failed,
    ok: failed === 0,
    world: run.world(),
  };
}

function formatIp(ip: number): string {
  return [(ip >>> 24) & 255, (ip >>> 16) & 255, (ip >>> 8) & 255, ip & 255].join('.');
}

function formatPrefix(p: { addr: number; len: number }): string {
  return `${formatIp(p.addr)}/${p.len}`;
}

/** Per-node change lines: `node:` then each change indented. */
function nodeLines(byNode: ReadonlyMap<string, readonly string[]>): string[] {
  return [...byNode].flatMap(([n, diff]) => [`${n}:`, ...diff.map((d) => `  ${d}`)]);
}
