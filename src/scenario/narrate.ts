/**
 * The narration of a scenario run, built from each node's event bus (DESIGN contract 4: from events
 * and state, never from log strings): the runtime's steps (`runtime.step`), the CNI plugins it ran
 * (`cni.exec`, with their delegates nested under them), what HNS created, changed and deleted
 * (`hns.change`, described from the store at the moment of the event), what HCS did
 * (`hcs.notification`) and the calls that failed (`api.call`). The events of one operation come as
 * a flat list — a plugin's event fires when it exits, after what it caused — and are folded into
 * a tree: a plugin owns what happened since the plugin before it, a runtime step owns what
 * happened since the step before it.
 *
 * Changes the cluster makes on its own (flannel's routes, kube-proxy's load balancers and remote
 * endpoints) are told as the difference of a node's state before and after (`digest`), so a
 * kube-proxy full sync that deletes and re-creates every load balancer reads as what changed.
 */
import { formatHResult, hresultName } from '../core/errors.js';
import type { CniExecEvent, HcsNotificationEvent, HnsChangeEvent, RuntimeStepEvent } from '../core/events.js';
import type { CniPlugin } from '../cni/contracts.js';
import type { PluginRegistry } from '../cni/registry.js';
import type { Host } from '../host/host.js';
import type { EndpointRec, LoadBalancerRec } from '../hns/model.js';
import { listPortRules } from '../vswitch/rules.js';
import { fmtPrefix } from '../vswitch/v4.js';

/** One line of narration, `depth` levels in. */
export interface NarrationLine {
  readonly depth: number;
  readonly text: string;
  /** What a tap (NodeEvents.tap) was told of the event the line tells; only when one listens. */
  readonly event?: NarrationEvent;
  /**
   * The tap's state version the line shows: a line that owns others shows the state before the
   * first of them, any other the state its own event left. Only when a tap listens.
   */
  readonly at?: number;
}

/** An event a capture records, as a tap (the web page's recorder, src/ui/model) is told of it. */
export interface NarrationEvent {
  readonly kind: 'runtime' | 'cni' | 'hns' | 'hcs' | 'call' | 'service';
  readonly change?: HnsChangeEvent;
  readonly hcs?: HcsNotificationEvent;
}

/**
 * Listens to a node's captures: told of each event as it happens (it answers the state version
 * before and after the event), and of the lines each outermost capture gave. Narration is the
 * same with or without one.
 */
export interface NarrationTap {
  event(e: NarrationEvent): { readonly before: number; readonly after: number };
  lines(lines: readonly NarrationLine[]): void;
}

interface Tagged {
  readonly ev?: NarrationEvent;
  readonly before?: number;
  readonly after?: number;
}

type Rec = Tagged &
  (
    | { readonly t: 'step'; readonly e: RuntimeStepEvent }
    | { readonly t: 'cni-start'; readonly plugin: string; readonly depth: number }
    | { readonly t: 'cni'; readonly e: CniExecEvent }
    | { readonly t: 'line'; readonly text: string }
  );

type TreeNode = { readonly rec: Rec; readonly children: TreeNode[] };

/** 64 hex digits (sandbox and container IDs) → their first 12, as docker and crictl print them. */
export function shorten(s: string): string {
  return s.replace(/(?<![0-9a-f])([0-9a-f]{12})[0-9a-f]{52}(?![0-9a-f])/g, '$1…');
}

const guid8 = (id: string) => id.slice(0, 8);

const PROTOCOLS: Readonly<Record<number, string>> = { 6: 'TCP', 17: 'UDP', 1: 'ICMP' };

// the events a capture records that carry nothing but their kind (one object each, shared)
const RUNTIME: NarrationEvent = { kind: 'runtime' };
const CNI: NarrationEvent = { kind: 'cni' };
const CALL: NarrationEvent = { kind: 'call' };
const SERVICE: NarrationEvent = { kind: 'service' };

/** Records what one node's bus says while a capture is open, with each object described as it is then. */
export class NodeEvents {
  private buffer: Rec[] | undefined;
  /** Names and descriptions of objects, kept for the events of their deletion. */
  private readonly names = new Map<string, string>();
  /** Told of what each capture records (src/ui/model); the narration does not change. */
  tap: NarrationTap | undefined;

  constructor(
    readonly node: string,
    readonly host: Host,
  ) {
    const ev = host.events;
    // (outside a capture nothing is recorded: no record is built, as on every run without one)
    ev.on('runtime.step', (e) => this.buffer && this.push({ t: 'step', e }, RUNTIME));
    ev.on('cni.exec', (e) => this.buffer && this.push({ t: 'cni', e }, CNI));
    ev.on('hns.change', (e) => {
      // (described even then: the description keeps the names a later deletion is told by)
      const text = this.describeChange(e);
      if (this.buffer) this.line(text, { kind: 'hns', change: e });
    });
    ev.on('hcs.notification', (e) => {
      const text = this.describeHcs(e);
      if (this.buffer) this.line(text, { kind: 'hcs', hcs: e });
    });
    ev.on('api.call', (e) => {
      if (e.hresult !== 0 && this.buffer) {
        const name = hresultName(e.hresult >>> 0) ?? 'error';
        this.line(`${e.method} failed: ${name} (${formatHResult(e.hresult >>> 0)})`, CALL);
      }
    });
    ev.on(
      'hns.service',
      (e) =>
        this.buffer &&
        this.line(
          `the HNS service ${e.what === 'restart' ? 'restarts' : 'goes down with the reboot'}`,
          SERVICE,
        ),
    );
    // objects that exist before the first capture (the cluster made them) get their names now
    for (const [id, e] of host.hns.store.endpoints) this.names.set(id, e.Name || guid8(id));
    for (const [id, n] of host.hns.store.networks) this.names.set(id, n.Name);
    for (const [id, n] of host.hns.store.namespaces)
      this.names.set(id, `${guid8(id)} (compartment ${n.NamespaceId})`);
  }

  /**
   * The plugins of `registry`, each telling this recorder when it starts (the `cni.exec` event
   * comes when it exits), so what a plugin caused nests under it exactly.
   */
  watchPlugins(registry: PluginRegistry, plugins: readonly CniPlugin[]): PluginRegistry {
    for (const p of plugins) {
      registry.register({
        type: p.type,
        exec: (host, request, depth) => {
          if (this.buffer) this.push({ t: 'cni-start', plugin: p.type, depth: depth ?? 0 }, CNI);
          return p.exec(host, request, depth);
        },
      });
    }
    return registry;
  }

  /** Record `rec` while a capture is open, tagged by the tap when one listens. */
  private push(rec: Rec, ev: NarrationEvent): void {
    if (!this.buffer) return;
    this.buffer.push(this.tap ? { ...rec, ev, ...this.tap.event(ev) } : rec);
  }

  private line(text: string | undefined, ev: NarrationEvent): void {
    if (text !== undefined) this.push({ t: 'line', text }, ev);
    else if (this.buffer && this.tap) this.tap.event(ev); // not told, but the state moved
  }

  /** The lines of an outermost capture, given to the tap too. */
  private rendered(recs: readonly Rec[], outer: Rec[] | undefined): NarrationLine[] {
    const lines = render(fold(recs));
    if (this.tap && outer === undefined) this.tap.lines(lines);
    return lines;
  }

  /** Run `fn` and return what the node's bus said meanwhile, as narration lines. */
  async capture<T>(fn: () => Promise<T>): Promise<{ value?: T; error?: unknown; lines: NarrationLine[] }> {
    const outer = this.buffer;
    const mine: Rec[] = [];
    this.buffer = mine;
    try {
      const value = await fn();
      return { value, lines: this.rendered(mine, outer) };
    } catch (error) {
      return { error, lines: this.rendered(mine, outer) };
    } finally {
      this.buffer = outer;
    }
  }

  /** The same for synchronous work. */
  captureSync<T>(fn: () => T): { value?: T; error?: unknown; lines: NarrationLine[] } {
    const outer = this.buffer;
    const mine: Rec[] = [];
    this.buffer = mine;
    try {
      const value = fn();
      return { value, lines: this.rendered(mine, outer) };
    } catch (error) {
      return { error, lines: this.rendered(mine, outer) };
    } finally {
      this.buffer = outer;
    }
  }

  private endpointText(id: string): string {
    const s = this.host.hns.store;
    const e = s.endpoints.get(id);
    if (!e) return `endpoint ${guid8(id)}`;
    const name = shorten(e.Name || guid8(id));
    const net = s.networks.get(e.HostComputeNetwork)?.Name ?? guid8(e.HostComputeNetwork);
    const ips = e.IpConfigurations.map(
      (c) => `${c.IpAddress}${c.PrefixLength !== undefined ? `/${c.PrefixLength}` : ''}`,
    );
    const policies = e.Policies.map((p) => p.type);
    const remote = e.Flags & 1 ? 'remote ' : '';
    return (
      `${remote}endpoint ${name} on ${net}: ${ips.join(', ') || 'no IP'}, MAC ${e.MacAddress || 'none'}` +
      (policies.length ? `, policies ${policies.join(', ')}` : ', no policies')
    );
  }

  private loadBalancerText(id: string): string {
    const s = this.host.hns.store;
    const lb = s.loadBalancers.get(id);
    if (!lb) return `load balancer ${guid8(id)}`;
    const backends = lb.HostComputeEndpoints.map(
      (ep) => s.endpoints.get(ep)?.IpConfigurations[0]?.IpAddress ?? guid8(ep),
    );
    const pm = lb.PortMappings[0];
    const front = lb.FrontendVIPs.length ? lb.FrontendVIPs.join(', ') : 'every node address';
    const port = pm ? ` ${PROTOCOLS[pm.Protocol] ?? pm.Protocol} ${pm.ExternalPort}` : '';
    const to = pm ? backends.map((b) => `${b}:${pm.InternalPort}`) : backends;
    return `load balancer ${front}${port} → ${to.join(', ')}${lb.Flags & 1 ? ' (DSR)' : ''}`;
  }

  private describeChange(e: HnsChangeEvent): string | undefined {
    const s = this.host.hns.store;
    switch (e.kind) {
      case 'Namespace': {
        if (e.op === 'create') {
          const n = s.namespaces.get(e.id);
          const text = `${guid8(e.id)} (compartment ${n?.NamespaceId ?? '?'})`;
          this.names.set(e.id, text);
          return `HNS creates namespace ${guid8(e.id)} = compartment ${n?.NamespaceId ?? '?'}`;
        }
        if (e.op === 'delete') return `HNS deletes namespace ${this.names.get(e.id) ?? guid8(e.id)}`;
        const m = /^(Endpoint|Container) (Add|Remove) (\S+)/.exec(e.detail ?? '');
        const ns = this.names.get(e.id) ?? guid8(e.id);
        if (!m) return `HNS modifies namespace ${ns}${e.detail ? `: ${e.detail}` : ''}`;
        const what =
          m[1] === 'Endpoint'
            ? `endpoint ${shorten(this.names.get(m[3]!) ?? s.endpoints.get(m[3]!)?.Name ?? guid8(m[3]!))}`
            : `container ${shorten(m[3]!)}`;
        return `${what} ${m[2] === 'Add' ? 'joins' : 'leaves'} namespace ${ns}`;
      }
      case 'Endpoint': {
        if (e.op === 'create') {
          const ep = s.endpoints.get(e.id);
          this.names.set(e.id, ep?.Name || guid8(e.id));
          return `HNS creates ${this.endpointText(e.id)}`;
        }
        const name = shorten(this.names.get(e.id) ?? guid8(e.id));
        if (e.op === 'delete') return `HNS deletes endpoint ${name}`;
        return `HNS modifies endpoint ${name}${e.detail ? `: ${e.detail}` : ''}`;
      }
      case 'Network': {
        const n = s.networks.get(e.id);
        if (e.op === 'create' && n) {
          this.names.set(e.id, n.Name);
          const subnets = n.Ipams.flatMap((i) => i.Subnets.map((sub) => sub.IpAddressPrefix));
          return `HNS creates network ${n.Name} (${n.Type}${subnets.length ? `, ${subnets.join(', ')}` : ''})`;
        }
        const name = this.names.get(e.id) ?? guid8(e.id);
        if (e.op === 'delete') return `HNS deletes network ${name}`;
        return `HNS modifies network ${name}${e.detail ? `: ${e.detail}` : ''}`;
      }
      case 'LoadBalancer': {
        if (e.op === 'create') {
          const text = this.loadBalancerText(e.id);
          this.names.set(e.id, text);
          return `HNS adds ${text}`;
        }
        if (e.op === 'delete') return `HNS deletes ${this.names.get(e.id) ?? `load balancer ${guid8(e.id)}`}`;
        return `HNS modifies ${this.loadBalancerText(e.id)}`;
      }
      default:
        return `HNS ${e.op === 'create' ? 'creates' : e.op === 'delete' ? 'deletes' : 'modifies'} ${e.kind} ${guid8(e.id)}${e.detail ? `: ${e.detail}` : ''}`;
    }
  }

  private describeHcs(e: HcsNotificationEvent): string | undefined {
    const id = e.system;
    if (id === undefined)
      return e.notification === 'ServiceDisconnect' ? 'the HCS service disconnects' : undefined;
    const rec = this.host.hcs.find(id);
    const kind =
      rec === undefined
        ? 'compute system'
        : {
            Process: 'a process-isolated container',
            HostProcess: 'a HostProcess container',
            HyperV: 'a Hyper-V container',
            Hosted: 'a container in the utility VM',
            VirtualMachine: 'a utility VM',
          }[rec.isolation];
    const sid = shorten(id);
    switch (e.notification) {
      case 'SystemCreateCompleted':
        return `HCS creates ${kind} ${sid}`;
      case 'SystemStartCompleted':
        return `HCS starts ${sid}`;
      case 'SystemExited':
        return `${sid} exits`;
      case 'SystemModifyCompleted':
        return `HCS modifies ${sid}`;
      default:
        return undefined;
    }
  }

  /** The VFP layers of an endpoint's vSwitch port, in one line. */
  portLayers(endpointId: string): string | undefined {
    let rules;
    try {
      rules = listPortRules(this.host.dataplane.view(), endpointId);
    } catch {
      return undefined;
    }
    const layers = rules.layers.map((l) => {
      const n = l.groups.reduce((sum, g) => sum + g.rules.length, 0);
      return `${l.name} (${n} rule${n === 1 ? '' : 's'})`;
    });
    const name = shorten(rules.port.name || guid8(rules.port.id));
    return `the vSwitch port of ${name} gets its VFP layers: ${layers.join(', ') || 'none'}`;
  }
}

/**
 * Fold the flat record list into the tree: a plugin owns what came between its start and its
 * exit (or, when its start was not seen, since the plugin before it); a runtime step owns what
 * came since the step before it.
 */
function fold(recs: readonly Rec[]): TreeNode[] {
  const buf: TreeNode[] = [];
  for (const rec of recs) {
    if (rec.t === 'line' || rec.t === 'cni-start') {
      buf.push({ rec, children: [] });
      continue;
    }
    const started =
      rec.t === 'cni' &&
      buf.some(
        (n) => n.rec.t === 'cni-start' && n.rec.plugin === rec.e.plugin && n.rec.depth === rec.e.depth,
      );
    const children: TreeNode[] = [];
    while (buf.length) {
      const last = buf[buf.length - 1]!;
      if (started) {
        const l = last.rec;
        buf.pop();
        if (l.t === 'cni-start' && rec.t === 'cni' && l.plugin === rec.e.plugin && l.depth === rec.e.depth)
          break;
        children.unshift(last);
        continue;
      }
      if (last.rec.t === 'step' || last.rec.t === 'cni-start') break;
      if (rec.t === 'cni' && last.rec.t === 'cni' && last.rec.e.depth <= rec.e.depth) break;
      children.unshift(buf.pop()!);
    }
    buf.push({ rec, children });
  }
  return buf.filter((n) => n.rec.t !== 'cni-start');
}

const STEP_WORDS: Readonly<Record<string, (d: string) => string>> = {
  'namespace.create': (d) => `the pod's HCN namespace ${guid8(d)}`,
  'cni.add': (d) => `CNI ADD of the pod network${d ? ` (${d})` : ''}`,
  'cni.result': (d) => `the pod IP: ${d || 'none'}`,
  'pause.create': () => 'HCS creates the pause container',
  'pause.start': (d) => `the pause container starts${d ? ` (${d})` : ''}`,
  'uvm.create': () => 'HCS creates the utility VM',
  'uvm.start': () => 'the utility VM starts',
  'uvm.namespace.add': () => "the pod's namespace is added to the utility VM",
  'uvm.nic.add': (d) => `a NIC is hot-added to the utility VM${d ? ` (${d})` : ''}`,
  'sandbox.ready': (d) => `the sandbox is ready${d ? `: ${d}` : ''}`,
  'container.create': (d) => {
    const m = /^(\S+) (\S+)$/.exec(d);
    return m ? `container ${m[1]} (${m[2]}) is created` : 'HCS creates the container';
  },
  'container.start': (d) => `container ${d} starts`,
  'container.stop': (d) => `container ${d} stops`,
  'container.remove': (d) => `container ${d} is removed`,
  'pause.stop': () => 'the pause container stops',
  'uvm.nic.remove': (d) => `the NIC is removed from the utility VM${d ? ` (${d})` : ''}`,
  'uvm.namespace.remove': () => 'the namespace is removed from the utility VM',
  'uvm.close': () => 'the utility VM is closed',
  'cni.del': (d) => `CNI DEL of the pod network${d ? ` (${d})` : ''}`,
  'namespace.remove': (d) =>
    `the pod's namespace is deleted${d ? ` (${/^[0-9A-F]{8}-/i.test(d) ? guid8(d) : d})` : ''}`,
  'sandbox.remove': () => 'the sandbox is removed',
};

/** A long error cut to its start (the whole text is in the pod's result). */
function clip(s: string, n = 140): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

function stepText(e: RuntimeStepEvent): string {
  const words = STEP_WORDS[e.step];
  const detail = shorten(e.detail ?? '');
  if (!e.ok) return `${words ? words('') : e.step} FAILED: ${clip(detail)}`;
  return words ? words(detail) : `${e.step}${detail ? `: ${detail}` : ''}`;
}

function cniText(e: CniExecEvent): string {
  const where =
    e.depth === 0 ? ` (${e.ifName || 'no ifname'}, CNI_NETNS ${e.netns ? guid8(e.netns) : '""'})` : '';
  const verb = e.depth === 0 ? 'CNI' : 'delegate';
  const outcome =
    e.exitCode === 0
      ? ''
      : ` → exit ${e.exitCode}${e.code !== undefined ? `, CNI error ${e.code}` : ''}${e.message ? `: ${clip(shorten(e.message))}` : ''}`;
  return `${verb} ${e.command} ${e.plugin}${where}${outcome}`;
}

/** The tree as lines: runtime operations at depth 0, their steps under them, the rest nested. */
function render(tree: readonly TreeNode[]): NarrationLine[] {
  const out: NarrationLine[] = [];
  let operation: string | undefined;
  /** A tagged line's event and state version (untagged: nothing more than depth and text). */
  const start = (n: TreeNode): number | undefined =>
    n.children.length ? start(n.children[0]!) : n.rec.before;
  const tags = (n: TreeNode): Partial<NarrationLine> => {
    const at = n.children.length ? start(n) : n.rec.after;
    return n.rec.ev ? { event: n.rec.ev, ...(at !== undefined ? { at } : {}) } : {};
  };
  const walk = (n: TreeNode, depth: number) => {
    const r = n.rec;
    if (r.t === 'cni-start') return;
    if (r.t === 'step' && r.e.step === 'name.reserve' && r.e.ok) return;
    const text = r.t === 'step' ? stepText(r.e) : r.t === 'cni' ? cniText(r.e) : r.text;
    out.push({ depth, text, ...tags(n) });
    for (const c of n.children) walk(c, depth + 1);
  };
  for (const n of tree) {
    if (n.rec.t === 'step') {
      if (n.rec.e.operation !== operation) {
        operation = n.rec.e.operation;
        const at = start(n);
        out.push({ depth: 0, text: `${operation}:`, ...(at !== undefined ? { at } : {}) });
      }
      walk(n, 1);
    } else walk(n, operation === undefined ? 0 : 1);
  }
  return out;
}

// ─────────────────────────────── state digests ───────────────────────────────

/** What a node holds that the cluster programs on its own, fact by fact: key → words. */
export type Digest = ReadonlyMap<string, string>;

export function digest(host: Host): Digest {
  const out = new Map<string, string>();
  for (const e of digestEntries(host)) out.set(e.key, e.value);
  return out;
}

/** A fact of a digest: its key and words, its section (0 networks … 3 LBs) and its object's ID. */
interface DigestEntry {
  readonly key: string;
  readonly value: string;
  readonly section: number;
  readonly id?: string;
}

function endpointEntry(e: EndpointRec): DigestEntry {
  const ip = e.IpConfigurations[0]?.IpAddress ?? '';
  if (e.Flags & 1) {
    const pa = e.Policies.find((p) => p.type === 'ProviderAddress')?.settings as
      { providerAddress?: string } | undefined;
    return {
      key: `remote ${ip}`,
      value: `remote endpoint ${ip}${pa?.providerAddress ? ` (provider address ${pa.providerAddress})` : ''} (kube-proxy)`,
      section: 2,
      id: e.ID,
    };
  }
  return {
    key: `endpoint ${e.Name || e.ID}`,
    value: `endpoint ${e.Name || guid8(e.ID)} ${ip}`,
    section: 2,
    id: e.ID,
  };
}

function loadBalancerEntry(host: Host, lb: LoadBalancerRec): DigestEntry {
  const s = host.hns.store;
  const pm = lb.PortMappings[0];
  const front = lb.FrontendVIPs.length ? lb.FrontendVIPs.join(',') : 'node ports';
  const key = `lb ${front} ${pm?.Protocol} ${pm?.ExternalPort} ${lb.Flags}`;
  const backends = lb.HostComputeEndpoints.map(
    (ep) => s.endpoints.get(ep)?.IpConfigurations[0]?.IpAddress ?? guid8(ep),
  ).sort();
  const port = pm ? ` ${PROTOCOLS[pm.Protocol] ?? pm.Protocol} ${pm.ExternalPort}` : '';
  const to = pm ? backends.map((b) => `${b}:${pm.InternalPort}`) : backends;
  return {
    key,
    value: `load balancer ${lb.FrontendVIPs.length ? lb.FrontendVIPs.join(', ') : 'on every node address'}${port} → ${to.join(', ')}${lb.Flags & 1 ? ' (DSR)' : ''} (kube-proxy)`,
    section: 3,
    id: lb.ID,
  };
}

function digestEntries(host: Host): DigestEntry[] {
  const s = host.hns.store;
  const out: DigestEntry[] = [];
  for (const n of s.networks.values()) {
    const subnets = n.Ipams.flatMap((i) => i.Subnets.map((sub) => sub.IpAddressPrefix));
    out.push({
      key: `network ${n.Name}`,
      value: `network ${n.Name} (${n.Type}${subnets.length ? `, ${subnets.join(', ')}` : ''})`,
      section: 0,
    });
    for (const p of n.Policies) {
      if (p.type !== 'RemoteSubnetRoute') continue;
      const st = p.settings as { destinationPrefix?: string; providerAddress?: string };
      out.push({
        key: `rsr ${n.Name} ${st.destinationPrefix}`,
        value: `RemoteSubnetRoute ${st.destinationPrefix} → provider address ${st.providerAddress} on ${n.Name} (${n.Name === 'OVNKubernetesHybridOverlayNetwork' ? 'hybrid-overlay-node' : 'flannel'})`,
        section: 0,
      });
    }
  }
  for (const r of host.routes()) {
    if (r.origin !== 'User') continue;
    const dest = fmtPrefix(r.dest);
    const via = r.nextHop
      ? [(r.nextHop >>> 24) & 255, (r.nextHop >>> 16) & 255, (r.nextHop >>> 8) & 255, r.nextHop & 255].join(
          '.',
        )
      : 'on-link';
    out.push({
      key: `route ${dest} ${via}`,
      value: `host route ${dest} via ${via} (${r.iface === 'antrea-gw0' ? 'Antrea' : r.iface.startsWith('k8s-') ? 'ovnkube, the management port' : 'flannel host-gw'})`,
      section: 1,
    });
  }
  for (const e of s.endpoints.values()) out.push(endpointEntry(e));
  for (const lb of s.loadBalancers.values()) out.push(loadBalancerEntry(host, lb));
  return out;
}

/** Rank of a fact created after the last full digest: after every fact of its section, in creation order. */
const SECTION = 2 ** 40;
const NEW_OBJECT = 2 ** 30;

/**
 * A node's digest kept up to date from its HNS events, for `diff()`: the changes since the last
 * `diff()`, the lines `diffDigest` would print for the digests before and after, in the same order.
 * When only load balancers and remote endpoints changed (what kube-proxy does, and what a sync of
 * hundreds of services on tens of nodes consists of) only those objects are described again;
 * anything else (networks, local endpoints, routes, an HNS restart) takes a whole new digest.
 */
export class LiveDigest {
  /** key → words, and the rank that orders the key as a fresh digest would. */
  private entries = new Map<string, { value: string; rank: number }>();
  /** The keys of each endpoint's and load balancer's facts. */
  private byId = new Map<string, string>();
  private readonly changed = new Set<string>();
  private whole = true;
  private routesGen = -1;

  constructor(private readonly host: Host) {
    host.events.on('hns.change', (e) => {
      if (this.whole) return;
      if (e.kind === 'LoadBalancer' || (e.kind === 'Endpoint' && this.isRemote(e.id))) this.changed.add(e.id);
      else this.whole = true;
    });
    host.events.on('hns.service', () => {
      this.whole = true;
    });
  }

  private isRemote(id: string): boolean {
    const e = this.host.hns.store.endpoints.get(id);
    if (e) return (e.Flags & 1) === 1 && this.byId.get(id)?.startsWith('endpoint ') !== true;
    return this.byId.get(id)?.startsWith('remote ') === true;
  }

  /** The host routes' own generation. */
  private userRoutesGen(): number {
    return this.host.dataplane.userRoutesGeneration;
  }

  /** The lines of what changed since the last call (the first call: everything, as `+`). */
  diff(): string[] {
    if (this.whole || this.userRoutesGen() !== this.routesGen) return this.rebuild();
    if (!this.changed.size) return [];
    const s = this.host.hns.store;
    const removed = new Map<string, { value: string; rank: number }>();
    const added = new Map<string, { value: string; rank: number }>();
    /** Each changed object's key now (absent: the object is gone). */
    const keys = new Map<string, string>();
    for (const id of this.changed) {
      const old = this.byId.get(id);
      if (old !== undefined) removed.set(old, this.entries.get(old)!);
      const ep = s.endpoints.get(id);
      const lb = ep ? undefined : s.loadBalancers.get(id);
      const rec = ep ?? lb;
      if (!rec) continue;
      const e = ep ? endpointEntry(ep) : loadBalancerEntry(this.host, lb!);
      const rank =
        e.section * SECTION +
        (old !== undefined ? this.entries.get(old)!.rank % SECTION : NEW_OBJECT + rec.seq);
      if (added.has(e.key)) return this.rebuild(); // two changed objects with one key
      added.set(e.key, { value: e.value, rank });
      keys.set(id, e.key);
    }
    // a key another (unchanged) object holds too: only a whole digest tells which one wins
    for (const k of added.keys()) if (this.entries.has(k) && !removed.has(k)) return this.rebuild();
    for (const id of this.changed) {
      const key = keys.get(id);
      if (key === undefined) this.byId.delete(id);
      else this.byId.set(id, key);
    }
    this.changed.clear();
    const lines: [number, string][] = [];
    for (const [k, v] of added) {
      const was = this.entries.get(k);
      if (was === undefined) lines.push([v.rank, `+ ${shorten(v.value)}`]);
      else if (was.value !== v.value) lines.push([v.rank, `~ ${shorten(v.value)}`]);
    }
    const minus: [number, string][] = [];
    for (const [k, v] of removed) if (!added.has(k)) minus.push([v.rank, `- ${shorten(v.value)}`]);
    for (const k of removed.keys()) this.entries.delete(k);
    for (const [k, v] of added) this.entries.set(k, v);
    return [...lines.sort((a, b) => a[0] - b[0]), ...minus.sort((a, b) => a[0] - b[0])].map((l) => l[1]);
  }

  private rebuild(): string[] {
    const fresh = digestEntries(this.host);
    const entries = new Map<string, { value: string; rank: number }>();
    const byId = new Map<string, string>();
    const counts = [0, 0, 0, 0];
    let unique = true;
    for (const e of fresh) {
      const have = entries.get(e.key);
      if (have) {
        unique = false;
        have.value = e.value; // Map.set keeps the first position
      } else entries.set(e.key, { value: e.value, rank: e.section * SECTION + counts[e.section]!++ });
      if (e.id !== undefined) byId.set(e.id, e.key);
    }
    const lines: string[] = [];
    for (const [k, v] of entries) {
      const was = this.entries.get(k);
      if (was === undefined) lines.push(`+ ${shorten(v.value)}`);
      else if (was.value !== v.value) lines.push(`~ ${shorten(v.value)}`);
    }
    const gone = [...this.entries].filter(([k]) => !entries.has(k)).sort((a, b) => a[1].rank - b[1].rank);
    for (const [, v] of gone) lines.push(`- ${shorten(v.value)}`);
    this.entries = entries;
    this.byId = byId;
    this.changed.clear();
    // two objects with one key: every later change takes a whole digest
    this.whole = !unique;
    this.routesGen = this.userRoutesGen();
    return lines;
  }
}

/** What changed between two digests, as `+ …`, `- …` and `~ …` lines. */
export function diffDigest(before: Digest, after: Digest): string[] {
  if (before === after) return [];
  const out: string[] = [];
  for (const [k, v] of after) {
    const was = before.get(k);
    if (was === undefined) out.push(`+ ${shorten(v)}`);
    else if (was !== v) out.push(`~ ${shorten(v)}`);
  }
  for (const [k, v] of before) if (!after.has(k)) out.push(`- ${shorten(v)}`);
  return out;
}
