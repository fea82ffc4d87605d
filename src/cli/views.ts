/**
 * The views of a scenario (or of a state file): `hnsim show FILE KIND`, `hnsim trace FILE`,
 * `hnsim diagram FILE` and `hnsim explain FILE`. A scenario is run to its end (or to `--at N`
 * steps) with src/scenario's runner and the view is taken of the state it leaves; a state file
 * (`hnsim call --state`, a JSON-RPC Snapshot) is restored into one host. The ends of a flow name
 * pods (`namespace/name`, or `name` when one pod has it), nodes, services (`svc:[namespace/]name
 * [:port]`, the port by number or name), `node/endpoint` names, IPv4 addresses, outside hosts or
 * DNS names. Each command parses its own line (node:util parseArgs, main.ts's style) and loads
 * the model only once the line is good.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import type { NamedNetwork } from '../analysis/reach-check.js';
import type { JsonObject } from '../core/json.js';
import type { TraceRequest, TraceResult } from '../dataplane/trace.js';
import type { Host } from '../host/host.js';
import type { NameLookup } from '../render/trace.js';
import type { RunReport, ScenarioDoc, ScenarioWorld } from '../scenario/index.js';
import type { CliIo } from './main.js';
import { progressBar, useColor } from './progress.js';

export const VIEW_OK = 0;
export const VIEW_FAILURE = 1;
export const VIEW_USAGE = 2;
export const VIEW_INVALID_FILE = 3;
export const VIEW_SETUP_FAILED = 4;

const SHOW_KIND_NAMES =
  'networks, endpoints, namespaces, loadbalancers, routes, adapters, policies, compartments, containers';

const REFS_HELP = `A flow's ends (--from, --to): a pod (namespace/name, or name when one pod has it), a
node, a service (svc:[namespace/]name[:port], the port by number or by name), a node's
endpoint (node/endpoint), an IPv4 address, an outside host, or a DNS name (resolved as the
source's DNS client resolves it). On a state file: an endpoint or container (ID or name),
"host", or an IPv4 address.`;

const SCENARIO_FLAGS_HELP = `  --at N            Take the view after the set-up and the first N steps (default: the end;
                    the final expect block is then skipped)
  --seed N          Override the scenario's seed (integer 0..4294967295)`;

const EXIT_HELP = (ok: string, cannot: string): string => `Exit status:
  0  ${ok}
  1  the view cannot be taken (${cannot})
  2  bad command line
  3  the file is not a valid scenario (FILE:LINE:COL: PATH: message) or state file
  4  the simulator refused what the scenario describes`;

export const DIAGRAM_USAGE = `Usage: hnsim diagram FILE [--format dot|mermaid|svg] [-o OUTPUT] [--node NAME]…
                     [--at N] [--seed N]

Draw a scenario's nodes (or a state file's host) as they are once it has run: each Windows
node with its physical NICs, the vSwitches HNS built on them (their host vNIC and a port per
endpoint, with the VFP layers that hold rules), the compartments (one per HNS namespace; 1 is
the host's) with their endpoints and containers, utility VMs holding a Hyper-V pod's
compartment; Linux nodes; and the underlay (the node segment, its router, outside hosts).
DOT is for Graphviz, Mermaid for Markdown viewers; SVG is laid out here by Graphviz compiled
to WebAssembly (offline, no 'dot' binary needed). Written to stdout unless -o is given.

  hnsim diagram scenarios/quick-start.yaml --format svg -o quick-start.svg
  hnsim diagram scenarios/hyperv-pods.yaml --format mermaid --node win-2

Options:
  --format FORMAT   dot (default), mermaid or svg
  -o, --output FILE Write the diagram to FILE instead of stdout
  --node NAME       Only this node (repeat for several; the underlay is kept)
${SCENARIO_FLAGS_HELP}
  -h, --help        Show this help

${EXIT_HELP('the diagram was written', 'an unknown node, an unwritable -o file')}
`;

export const ANALYZE_USAGE = `Usage: hnsim analyze FILE --port PORT [--node NAME] [--diff OTHER] [--format text|json]
                     [--at N] [--seed N]
       hnsim analyze FILE [--node NAME] [--format text|json] [--at N] [--seed N]
       hnsim analyze FILE --from SOURCE --to TARGET [--diff OTHER] [--format text|json]
                     [--at N] [--seed N]
       hnsim analyze FILE (--from SOURCE | --to TARGET) --diff OTHER [--format text|json]
                     [--at N] [--seed N]

Every packet at once, once a scenario (or a state file) has run (docs/analysis.md).

With --port, a port's ACLs: for each ACL rule of the port (its ACL and TierAcl policies and its
network's NetworkACLs), in each direction, the exact set of packets whose verdict it gives —
after the rules that come before it, the tiers' Pass, the VFP default and the WFP stage of Host
rules, as the packet path decides — written compactly ("TCP to 10.244.1.2 port 80 from
10.244.0.0/16 except 10.244.3.7"); the rules that decide nothing (shadowed), with the rules that
decide their packets instead; the rules whose removal would change no verdict (redundant); Allow
and Block rules of one priority that overlap, with the one that wins there; and what the
defaults decide. The packets are those of the port: its own address on the endpoint's side.
JSON adds counts and a witness packet per set ('hnsim trace FILE' replays it). With --diff, the
same port in another scenario or state file: per direction the packets the change newly allows
and newly denies, each part with the rule that decides it there. Without --port (nor --from or
--to), every local endpoint port of the nodes (or of --node) in a line each: its rules, the
shadowed ones with what takes their packets, the redundant ones and the ties.

With --from and --to, reachability: every packet SOURCE can send to TARGET (each protocol, each
source and destination port), by where it ends — Delivered, DeniedIn, NoRoute, … — through both
ports' ACLs, load balancers (a part per backend when the backend decides), NAT, routes,
encapsulation and the other nodes; each part with a trace that replays a packet of it. With
--diff OTHER, the packets whose dispositions differ in OTHER, with what they got and what they
get; with --from alone, that source to every pod and service of either file (a state file: to
every endpoint); with --to alone, every pod to that target.

  hnsim analyze scenarios/acl-analysis.yaml --port default/web
  hnsim analyze scenarios/acl-analysis.yaml --node win-2
  hnsim analyze scenarios/reach-services.yaml --from client --to svc:api
  hnsim analyze scenarios/reach-services.yaml --from client --diff scenarios/reach-services-sync.yaml

${REFS_HELP}

Options:
  --port PORT       The port: a pod (namespace/name, or name), or an endpoint's ID or name
                    (without it, --from or --to: every port, a line each)
  --node NAME       The node whose endpoint it is (default: the one that has it)
  --from SOURCE     Reachability from SOURCE (a pod, node, node/endpoint, address, …)
  --to TARGET       Reachability to TARGET (as SOURCE, or a service svc:[namespace/]name
                    without a port, or a DNS name)
  --diff OTHER      Compare with OTHER (a scenario or state file): the same port (its address
                    must be the same), or the same sources and targets
  --format FORMAT   text (default) or json
${SCENARIO_FLAGS_HELP}
  -h, --help        Show this help

${EXIT_HELP('the analysis was written, whatever it found', 'no such port or source, an unknown --node,\n     another address in OTHER, nothing to compare')}
`;

export const EXPLAIN_USAGE = `Usage: hnsim explain FILE --from SOURCE --to TARGET [--proto tcp|udp|icmp] [--port N]
                     [--sport N] [--format text|json] [--at N] [--seed N]

Say in plain words why a flow is allowed or denied, once a scenario (or a state file) has
run: the verdict, the step that decided it and the HNS policy behind it (quoted as HNS holds
it), the rules met on the way, and which policy to change and how — written as the ACL or
the policy setting that would turn the verdict, with the packet's own addresses and ports.
Everything comes from the packet trace (hnsim trace FILE … at --level detailed shows it all).

  hnsim explain scenarios/quick-start.yaml --from default/client --to svc:web
  hnsim explain scenarios/windows-limitations.yaml --from default/client --to 8.8.8.8 --proto icmp

${REFS_HELP}

Options:
  --from SOURCE     Where the packet starts (required)
  --to TARGET       Where it goes (required)
  --proto P         tcp (default), udp or icmp (also --protocol)
  --port N          Destination port (default: the service's port, else 80; also --dport)
  --sport N         Source port (default 50000)
  --format FORMAT   text (default) or json
${SCENARIO_FLAGS_HELP}
  -h, --help        Show this help

${EXIT_HELP('an explanation was printed, whatever the verdict', 'an unknown pod, service or node, a trace that cannot run')}
`;

export const TRACE_SCENARIO_USAGE = `       hnsim trace FILE --from SOURCE --to TARGET [--proto tcp|udp|icmp] [--port N]
                   [--sport N] [--ttl N] [--reply] [--all-branches]
                   [--level detailed|summary|minimal] [--format text|json] [--at N] [--seed N]

With FILE, a scenario is run (to its end, or --at N steps) and the packet is traced through
its cluster, or through the host of a state file. A flow's ends (--from, --to) are then a pod
(namespace/name, or name when one pod has it), a node, a service (svc:[namespace/]name[:port],
the port by number or by name), a node's endpoint (node/endpoint), an IPv4 address, an
outside host, or a DNS name. --proto and --port are --protocol and --dport. Exit status with
FILE: 0 whatever the disposition; 1 when the trace cannot run; 2 bad command line; 3 not a
valid scenario or state file; 4 the simulator refused the scenario.
`;

export const SHOW_SCENARIO_USAGE = `       hnsim show FILE [KIND] [--node NAME]… [--format text|json] [--at N] [--seed N]
       hnsim show FILE rules [--port ID|NAME|POD] [same options]

With FILE, the listing is of a scenario's Windows nodes once it has run (to its end, or
--at N steps: the set-up and the first N steps), one section per node (--node: only those;
JSON: {"NODE": {"KIND": […]}}), or of a state file's host. KIND is networks, endpoints,
namespaces, loadbalancers, routes, adapters, policies, compartments, containers, rules (the
ports' VFP rules) or all (the six hnsdiag kinds). policies: every policy with the object it
sits on (Get-HnsNetwork | Select -Expand Policies); compartments: the network compartments
(Get-NetCompartment: 1 is the host's, one per HNS namespace) with their endpoints and
containers; containers: the HCS compute systems (hcsdiag list) with their namespace and the
endpoints they see. These three also list a snapshot or a fresh host. Exit status with FILE:
0 listed; 1 an unknown --node or --port; 2 bad command line; 3 not a valid scenario or state
file; 4 the simulator refused the scenario.
`;

function write(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(text, (err) => (err ? reject(err) : resolve()));
  });
}

/** A bad command line (exit 2), or a view that cannot be taken (its exit code). */
class ViewError {
  constructor(
    readonly code: number,
    readonly message: string,
    readonly command: string,
  ) {}
}

const usage = (cmd: string, message: string): ViewError => new ViewError(VIEW_USAGE, message, cmd);

function parse(
  cmd: string,
  args: string[],
  options: NonNullable<Parameters<typeof parseArgs>[0]>['options'],
): { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] } {
  try {
    const r = parseArgs({
      args,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
    return {
      values: r.values as Record<string, string | boolean | string[] | undefined>,
      positionals: r.positionals,
    };
  } catch (e) {
    throw usage(cmd, (e as Error).message.split('\n')[0]!.replace(/\. To specify a positional.*$/, ''));
  }
}

function intFlag(cmd: string, name: string, v: unknown, lo: number, hi: number): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !/^\d{1,10}$/.test(v) || Number(v) < lo || Number(v) > hi)
    throw usage(cmd, `--${name} must be an integer ${lo}..${hi}, got "${String(v)}"`);
  return Number(v);
}

// ───────────────────────────── what a view looks at ─────────────────────────────

/** A scenario's nodes after its run, or a state file's host: what every view reads. */
export interface ViewTarget {
  readonly title: string;
  /** Windows hosts by node name, in file order. */
  readonly hosts: ReadonlyMap<string, Host>;
  /**
   * Turn a user's reference into the trace scope's, with a port when it names one, and the
   * file's own name for it (a scenario's `ns/name`, `svc:ns/name`).
   */
  resolve(ref: string): { readonly ref: string; readonly name?: string; readonly port?: number };
  trace(req: TraceRequest): TraceResult;
  /** The network reachability is asked of, with the user's references read as `resolve` reads them. */
  network(): NamedNetwork;
  /** What reachability compares by default: the running pods (a state file: its endpoints), and those and the services. */
  reachNames(): { readonly sources: readonly string[]; readonly destinations: readonly string[] };
  /** The scenario run, when a scenario. */
  readonly scenario?: RunReport;
  readonly doc?: ScenarioDoc;
}

/** Whether a file's text is a state file (a JSON host snapshot) rather than a scenario. */
export function isStateText(text: string): boolean {
  const t = text.trimStart();
  if (!t.startsWith('{')) return false;
  try {
    const v = JSON.parse(t) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) && !('hnsim' in v);
  } catch {
    return false;
  }
}

/** Load FILE: a state file restored into a host, or a scenario run to its end (or `at` steps). */
export async function loadTarget(
  cmd: string,
  file: string,
  io: CliIo,
  opts: { readonly at?: number; readonly seed?: number; readonly progress?: boolean },
): Promise<ViewTarget> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ViewError(VIEW_INVALID_FILE, `cannot read ${file}: ${(e as Error).message}`, cmd);
  }
  if (isStateText(text)) {
    if (opts.at !== undefined) throw usage(cmd, '--at goes with a scenario, not a state file');
    return stateTarget(cmd, file, text, opts.seed);
  }
  const sc = await import('../scenario/index.js');
  let scenario;
  try {
    scenario = sc.loadScenario(text, file);
  } catch (e) {
    if (e instanceof sc.ScenarioLoadError) throw new ViewError(VIEW_INVALID_FILE, e.message, cmd);
    throw e;
  }
  if (opts.seed !== undefined) scenario = { ...scenario, doc: { ...scenario.doc, seed: opts.seed } };
  const steps = scenario.doc.steps?.length ?? 0;
  if (opts.at !== undefined && opts.at > steps)
    throw usage(cmd, `--at ${opts.at}: ${file} has ${steps} step${steps === 1 ? '' : 's'}`);
  const onProgress = opts.progress ? progressBar(io) : undefined;
  let report;
  try {
    report = await sc.runScenario(scenario, {
      ...(opts.at !== undefined ? { until: opts.at } : {}),
      ...(onProgress ? { onProgress } : {}),
    });
  } catch (e) {
    if (e instanceof sc.ScenarioSetupError) throw new ViewError(VIEW_SETUP_FAILED, e.message, cmd);
    throw e;
  }
  const world = report.world;
  const hosts = new Map<string, Host>();
  for (const [name, n] of world.nodes) if (n.host) hosts.set(name, n.host);
  const doc = scenario.doc;
  return {
    title: `${doc.name}${opts.at !== undefined ? ` after step ${opts.at}` : ''}`,
    hosts,
    scenario: report,
    doc,
    trace: (req) => world.trace(req),
    resolve: (ref) => resolveScenarioRef(cmd, ref, world, doc),
    network: () => world.named(),
    reachNames: () => {
      const pods = world.runningPods();
      return { sources: pods, destinations: [...pods, ...world.services()] };
    },
  };
}

async function stateTarget(cmd: string, file: string, text: string, seed?: number): Promise<ViewTarget> {
  const [{ createHost }, { profileOfSnapshot, loadNodeAgents }] = await Promise.all([
    import('../host/host.js'),
    import('./node.js'),
  ]);
  await loadNodeAgents();
  const snapshot = JSON.parse(text) as unknown;
  const profile = profileOfSnapshot(snapshot);
  let host: Host;
  try {
    host = createHost({ ...(seed !== undefined ? { seed } : {}), ...(profile ? { profile } : {}) });
    host.restore(snapshot);
  } catch (e) {
    throw new ViewError(VIEW_INVALID_FILE, `cannot restore state ${file}: ${(e as Error).message}`, cmd);
  }
  return {
    title: file,
    hosts: new Map([[host.name, host]]),
    trace: (req) => host.trace(req),
    resolve: (ref) => ({ ref }),
    network: () => ({ net: host }),
    reachNames: () => {
      // the endpoints with an IPv4 address, by name (by ID when two share a name)
      const ports = [...host.dataplane.view().ports.values()].filter((p) => !p.remote && p.ip !== 0);
      const names = ports.map((p) => p.name);
      const list = ports.map((p) =>
        p.name && names.indexOf(p.name) === names.lastIndexOf(p.name) ? p.name : p.id,
      );
      return { sources: list, destinations: list };
    },
  };
}

/**
 * A user's reference as the scenario's trace scope takes it: `name` → the one pod of that name
 * (default namespace first), `svc:name[:port]` → `svc:namespace/name` and the port (a number or
 * the name of one of the service's ports).
 */
function resolveScenarioRef(
  cmd: string,
  ref: string,
  world: ScenarioWorld,
  doc: ScenarioDoc,
): { ref: string; name: string; port?: number } {
  if (ref.startsWith('svc:')) {
    const m = /^svc:(?:([^/:]+)\/)?([^/:]+)(?::([^/:]+))?$/.exec(ref);
    if (!m) throw new ViewError(VIEW_FAILURE, `"${ref}" is not svc:[namespace/]name[:port]`, cmd);
    const [, nsGiven, name, portText] = m;
    const services = [
      ...(doc.services ?? []),
      ...(doc.cluster?.coreDns
        ? [
            {
              name: 'kube-dns',
              namespace: 'kube-system',
              ports: [{ port: 53, name: 'dns-tcp' }],
              selector: {},
            },
          ]
        : []),
    ];
    const same = services.filter(
      (s) => s.name === name && (nsGiven === undefined || (s.namespace ?? 'default') === nsGiven),
    );
    const svc =
      same.find((s) => (s.namespace ?? 'default') === (nsGiven ?? 'default')) ??
      (same.length === 1 ? same[0] : undefined);
    const ns = nsGiven ?? (svc ? (svc.namespace ?? 'default') : 'default');
    let port: number | undefined;
    if (portText !== undefined) {
      if (/^\d{1,5}$/.test(portText) && Number(portText) <= 65535) port = Number(portText);
      else {
        const p = svc?.ports.find((x) => x.name === portText);
        if (!p)
          throw new ViewError(VIEW_FAILURE, `service ${ns}/${name} has no port named "${portText}"`, cmd);
        port = p.port;
      }
    }
    const key = `svc:${ns}/${name}`;
    return { ref: world.ref(key), name: key, ...(port !== undefined ? { port } : {}) };
  }
  if (!ref.includes('/') && !world.pods.has(ref) && !world.nodes.has(ref)) {
    const pods = [...world.pods.keys()].filter((k) => k.endsWith(`/${ref}`));
    const pick = pods.includes(`default/${ref}`) ? `default/${ref}` : pods.length === 1 ? pods[0] : undefined;
    if (pick) return { ref: world.ref(pick), name: pick };
    if (pods.length > 1)
      throw new ViewError(
        VIEW_FAILURE,
        `"${ref}" names several pods (${pods.join(', ')}): give namespace/name`,
        cmd,
      );
  }
  return { ref: world.ref(ref), name: ref };
}

/** The hosts a `--node` list selects (all without one); an unknown node is exit 1. */
function selectHosts(cmd: string, t: ViewTarget, nodes: readonly string[] | undefined): [string, Host][] {
  const all = [...t.hosts];
  if (!nodes?.length) return all;
  return nodes.map((n) => {
    const h = t.hosts.get(n);
    if (!h)
      throw new ViewError(
        VIEW_FAILURE,
        `no Windows node "${n}" in ${t.title} (${[...t.hosts.keys()].join(', ') || 'none'})`,
        cmd,
      );
    return [n, h];
  });
}

async function names(t: ViewTarget): Promise<NameLookup> {
  const { traceNames } = await import('../render/trace.js');
  const base = traceNames(...t.hosts.values());
  const pods = new Map<string, string>();
  for (const p of t.scenario?.world.pods.values() ?? [])
    if (p.endpointId) pods.set(p.endpointId.toUpperCase(), p.key);
  return (id) => pods.get(id.replace(/[{}]/g, '').toUpperCase()) ?? base(id);
}

// ───────────────────────────── trace and explain ─────────────────────────────

const FLOW_OPTIONS = {
  from: { type: 'string' },
  to: { type: 'string' },
  proto: { type: 'string' },
  protocol: { type: 'string' },
  port: { type: 'string' },
  dport: { type: 'string' },
  sport: { type: 'string' },
  format: { type: 'string' },
  at: { type: 'string' },
  seed: { type: 'string' },
} as const;

/** The trace request of --from/--to/--proto/--port/--sport, with the targets resolved. */
function flowRequest(
  cmd: string,
  v: Record<string, unknown>,
  t: ViewTarget,
): TraceRequest & { fromRef: string; toRef: string } {
  const from = t.resolve(v.from as string);
  const to = t.resolve(v.to as string);
  const protoText = (v.proto ?? v.protocol) as string | undefined;
  const protocol = protoText === undefined ? 'TCP' : protoText.toUpperCase();
  const dport = intFlag(cmd, v.port !== undefined ? 'port' : 'dport', v.port ?? v.dport, 0, 65535) ?? to.port;
  const sport = intFlag(cmd, 'sport', v.sport, 0, 65535);
  const ttl = intFlag(cmd, 'ttl', v.ttl, 1, 255);
  const isPorted = protocol === 'TCP' || protocol === 'UDP';
  return {
    from: from.ref,
    to: to.ref,
    fromRef: v.from as string,
    toRef: v.to as string,
    protocol,
    ...(isPorted && dport !== undefined ? { destinationPort: dport } : {}),
    ...(isPorted && sport !== undefined ? { sourcePort: sport } : {}),
    ...(ttl !== undefined ? { ttl } : {}),
    ...(v.reply ? { reply: true } : {}),
    ...(v['all-branches'] ? { allBranches: true } : {}),
  };
}

/** Checks of the flow flags that need no model (so a bad line is exit 2 before any work). */
function checkFlowFlags(cmd: string, v: Record<string, unknown>): void {
  for (const k of ['from', 'to'] as const) {
    if (v[k] === undefined) throw usage(cmd, `--${k} is required`);
    if (v[k] === '') throw usage(cmd, `--${k} must not be empty`);
  }
  if (v.proto !== undefined && v.protocol !== undefined)
    throw usage(cmd, '--proto and --protocol are the same option');
  if (v.port !== undefined && v.dport !== undefined)
    throw usage(cmd, '--port and --dport are the same option');
  const p = (v.proto ?? v.protocol) as string | undefined;
  if (p !== undefined && !/^(tcp|udp|icmp)$/i.test(p))
    throw usage(cmd, `--proto must be tcp, udp or icmp, got "${p}"`);
  intFlag(cmd, 'port', v.port ?? v.dport, 0, 65535);
  intFlag(cmd, 'sport', v.sport, 0, 65535);
  intFlag(cmd, 'ttl', v.ttl, 1, 255);
  if (p !== undefined && /^icmp$/i.test(p) && (v.port ?? v.dport ?? v.sport) !== undefined)
    throw usage(cmd, '--port and --sport apply to tcp and udp, not icmp');
  const f = (v.format as string | undefined) ?? 'text';
  if (f !== 'text' && f !== 'json') throw usage(cmd, `--format must be text or json, got "${f}"`);
}

function scenarioOpts(cmd: string, v: Record<string, unknown>, io: CliIo, progress: boolean) {
  const at = intFlag(cmd, 'at', v.at, 0, 100000);
  const seed = intFlag(cmd, 'seed', v.seed, 0, 0xffffffff);
  return {
    ...(at !== undefined ? { at } : {}),
    ...(seed !== undefined ? { seed } : {}),
    progress: progress && io.isTTY,
  };
}

function runTrace(cmd: string, t: ViewTarget, req: TraceRequest): TraceResult {
  try {
    return t.trace(req);
  } catch (e) {
    const detail = (e as { detail?: string }).detail ?? (e as Error).message;
    throw new ViewError(VIEW_FAILURE, `${cmd}: ${detail}`, cmd);
  }
}

/** `hnsim trace FILE --from … --to …`. */
export async function cmdTraceFile(args: string[], io: CliIo): Promise<number> {
  return guard(io, 'trace', async () => {
    const { values: v, positionals } = parse('trace', args, {
      ...FLOW_OPTIONS,
      ttl: { type: 'string' },
      reply: { type: 'boolean' },
      'all-branches': { type: 'boolean' },
      level: { type: 'string' },
    });
    if (positionals.length > 1) throw usage('trace', `unexpected argument "${positionals[1]}"`);
    checkFlowFlags('trace', v);
    const level = (v.level as string | undefined) ?? 'detailed';
    if (!['detailed', 'summary', 'minimal'].includes(level))
      throw usage('trace', `--level must be detailed, summary or minimal, got "${level}"`);
    const t = await loadTarget(
      'trace',
      positionals[0]!,
      io,
      scenarioOpts('trace', v, io, v.format !== 'json'),
    );
    const { fromRef: _f, toRef: _t, ...req } = flowRequest('trace', v, t);
    const result = runTrace('trace', t, req);
    const [{ traceJson }, { renderTrace }] = await Promise.all([
      import('../dataplane/trace.js'),
      import('../render/trace.js'),
    ]);
    await write(
      io.stdout,
      v.format === 'json'
        ? JSON.stringify(traceJson(result), null, 2) + '\n'
        : renderTrace(result, level as 'detailed', { names: await names(t) }) + '\n',
    );
    return VIEW_OK;
  });
}

/** `hnsim explain FILE --from … --to …`. */
export async function cmdExplain(args: string[], io: CliIo): Promise<number> {
  return guard(io, 'explain', async () => {
    const { values: v, positionals } = parse('explain', args, FLOW_OPTIONS);
    if (v.help) return write(io.stdout, EXPLAIN_USAGE).then(() => VIEW_OK);
    if (positionals.length === 0) throw usage('explain', 'a scenario or state FILE is required');
    if (positionals.length > 1) throw usage('explain', `unexpected argument "${positionals[1]}"`);
    checkFlowFlags('explain', v);
    const t = await loadTarget(
      'explain',
      positionals[0]!,
      io,
      scenarioOpts('explain', v, io, v.format !== 'json'),
    );
    const { fromRef, toRef, ...req } = flowRequest('explain', v, t);
    const result = runTrace('explain', t, req);
    const { explainTrace, renderExplanation, policyOnHost } = await import('../render/explain.js');
    const e = explainTrace(result, {
      names: await names(t),
      from: fromRef,
      to: toRef,
      policy: (node, rule) => {
        const host = t.hosts.get(node) ?? [...t.hosts.values()].find((h) => h.name === node);
        return host ? policyOnHost(host, rule) : undefined;
      },
    });
    await write(io.stdout, v.format === 'json' ? JSON.stringify(e, null, 2) + '\n' : renderExplanation(e));
    return VIEW_OK;
  });
}

// ───────────────────────────── show ─────────────────────────────

/** `hnsim show FILE [KIND]` for a scenario or a state file. */
export async function cmdShowFile(args: string[], io: CliIo): Promise<number> {
  return guard(io, 'show', async () => {
    const { values: v, positionals } = parse('show', args, {
      node: { type: 'string', multiple: true },
      format: { type: 'string' },
      port: { type: 'string' },
      at: { type: 'string' },
      seed: { type: 'string' },
    });
    if (positionals.length > 2) throw usage('show', `unexpected argument "${positionals[2]}"`);
    const { SHOW_KINDS, collectObjects, objectsJson, renderObjects } = await import('../render/objects.js');
    const { LISTING_KINDS } = await import('../render/listing.js');
    const what = positionals[1] ?? 'all';
    if (what === 'rules') return showFileRules(io, positionals[0]!, v);
    if (v.port !== undefined) throw usage('show', '--port goes with "show FILE rules"');
    const kinds =
      what === 'all'
        ? [...LISTING_KINDS]
        : (SHOW_KINDS as readonly string[]).includes(what)
          ? [what as (typeof SHOW_KINDS)[number]]
          : undefined;
    if (!kinds) throw usage('show', `unknown object kind "${what}" (use ${SHOW_KIND_NAMES} or all)`);
    const format = (v.format as string | undefined) ?? 'text';
    if (format !== 'text' && format !== 'json')
      throw usage('show', `--format must be text or json, got "${format}"`);
    const t = await loadTarget('show', positionals[0]!, io, scenarioOpts('show', v, io, format === 'text'));
    const selected = selectHosts('show', t, v.node as string[] | undefined);
    if (!t.scenario) {
      const [, host] = selected[0]!;
      const o = collectObjects(host);
      await write(
        io.stdout,
        format === 'json'
          ? JSON.stringify(objectsJson(o, kinds), null, 2) + '\n'
          : renderObjects(o, kinds, { color: useColor(io) }) + '\n',
      );
      return VIEW_OK;
    }
    if (format === 'json') {
      const doc: JsonObject = {};
      for (const [name, host] of selected) doc[name] = objectsJson(collectObjects(host), kinds);
      await write(io.stdout, JSON.stringify(doc, null, 2) + '\n');
      return VIEW_OK;
    }
    const bold = (s: string) => (useColor(io) ? `\x1b[1m${s}\x1b[0m` : s);
    const parts = selected.map(
      ([name, host]) =>
        `${bold(`== ${name} ==`)}\n\n${renderObjects(collectObjects(host), kinds, { color: useColor(io) })}`,
    );
    await write(io.stdout, parts.join('\n\n') + '\n');
    return VIEW_OK;
  });
}

/** `hnsim show FILE rules`: each node's ports and their VFP rules, as `hnsim show rules`. */
async function showFileRules(io: CliIo, file: string, v: Record<string, unknown>): Promise<number> {
  const format = (v.format as string | undefined) ?? 'text';
  if (format !== 'text' && format !== 'json')
    throw usage('show', `--format must be text or json, got "${format}"`);
  const t = await loadTarget('show', file, io, scenarioOpts('show', v, io, format === 'text'));
  const selected = selectHosts('show', t, v.node as string[] | undefined);
  const [{ listHostRules, listPortRules }, { renderPortRules }] = await Promise.all([
    import('../vswitch/rules.js'),
    import('../render/vfp.js'),
  ]);
  // --port: a port's ID or name, or a pod (namespace/name or name) whose endpoint it is
  const want = v.port as string | undefined;
  const pods = [...(t.scenario?.world.pods.values() ?? [])];
  const pod =
    want === undefined
      ? undefined
      : (pods.find((p) => p.key === want) ?? pods.find((p) => p.key === `default/${want}`));
  const portIds = new Set(
    want === undefined
      ? []
      : [want.toUpperCase(), ...(pod?.endpointId ? [pod.endpointId.toUpperCase()] : [])],
  );
  const rulesOf = (host: Host) => {
    const view = host.dataplane.view();
    const local = [...view.ports.values()].filter((p) => !p.remote);
    const all = [...local.map((p) => listPortRules(view, p.id)), ...listHostRules(view)];
    return want === undefined
      ? all
      : all.filter((r) => portIds.has(r.port.id.toUpperCase()) || portIds.has(r.port.name.toUpperCase()));
  };
  const byNode = selected.map(([name, host]) => [name, rulesOf(host)] as const);
  if (want !== undefined && byNode.every(([, rules]) => rules.length === 0))
    throw new ViewError(VIEW_FAILURE, `show: no port "${want}" in ${t.title}`, 'show');
  if (format === 'json') {
    const doc = Object.fromEntries(byNode);
    await write(io.stdout, JSON.stringify(t.scenario ? doc : doc[selected[0]![0]], null, 2) + '\n');
    return VIEW_OK;
  }
  const text = byNode
    .filter(([, rules]) => want === undefined || rules.length > 0)
    .map(([name, rules]) => {
      const body = renderPortRules(rules, { color: useColor(io) });
      return t.scenario ? `== ${name} ==\n\n${body}` : body;
    });
  await write(io.stdout, text.join('\n\n') + '\n');
  return VIEW_OK;
}

// ───────────────────────────── analyze ─────────────────────────────

/** An analysis the model refused (an unknown source, a port without an address): exit 1. */
const analyzeFailure = (e: unknown) =>
  new ViewError(
    VIEW_FAILURE,
    `analyze: ${(e as { detail?: string }).detail ?? (e as Error).message}`,
    'analyze',
  );

/**
 * `hnsim analyze FILE --port PORT`: a port's ACL analysis; `--from X --to Y`: reachability; with
 * `--diff OTHER`, each compared with OTHER.
 */
export async function cmdAnalyze(args: string[], io: CliIo): Promise<number> {
  return guard(io, 'analyze', async () => {
    const { values: v, positionals } = parse('analyze', args, {
      port: { type: 'string' },
      node: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      diff: { type: 'string' },
      format: { type: 'string' },
      at: { type: 'string' },
      seed: { type: 'string' },
    });
    if (v.help) return write(io.stdout, ANALYZE_USAGE).then(() => VIEW_OK);
    if (positionals.length === 0) throw usage('analyze', 'a scenario or state FILE is required');
    if (positionals.length > 1) throw usage('analyze', `unexpected argument "${positionals[1]}"`);
    const want = v.port as string | undefined;
    if (want === '') throw usage('analyze', '--port must not be empty');
    const ends = { from: v.from as string | undefined, to: v.to as string | undefined };
    for (const k of ['from', 'to'] as const)
      if (ends[k] === '') throw usage('analyze', `--${k} must not be empty`);
    const reach = ends.from !== undefined || ends.to !== undefined;
    if (reach && want !== undefined)
      throw usage(
        'analyze',
        "--port (a port's ACLs) and --from/--to (reachability) are two analyses: give one",
      );
    if (reach && v.node !== undefined) throw usage('analyze', '--node goes with --port');
    if (reach && v.diff === undefined && (ends.from === undefined || ends.to === undefined))
      throw usage(
        'analyze',
        ends.from === undefined
          ? '--to needs --from (or --diff OTHER: every pod to it)'
          : '--from needs --to (or --diff OTHER: it to every pod and service)',
      );
    if (!reach && want === undefined && v.diff !== undefined)
      throw usage('analyze', '--diff goes with --port, or with --from and/or --to');
    const format = (v.format as string | undefined) ?? 'text';
    if (format !== 'text' && format !== 'json')
      throw usage('analyze', `--format must be text or json, got "${format}"`);
    const opts = scenarioOpts('analyze', v, io, format === 'text');
    const node = v.node as string | undefined;
    const t = await loadTarget('analyze', positionals[0]!, io, opts);
    if (reach) return analyzeReachability(io, t, ends, v.diff as string | undefined, format, opts);
    if (want === undefined) return analyzeAllPorts(io, t, node, format);
    const fail = analyzeFailure;
    const [
      { analyzePort },
      { diffPorts },
      { analysisJson, diffJson, renderAnalysis, renderDiff },
      { findPort },
    ] = await Promise.all([
      import('../analysis/port.js'),
      import('../analysis/diff.js'),
      import('../render/analysis.js'),
      import('../dataplane/host-scope.js'),
    ]);
    const here = analyzedPort(t, want, node, findPort);
    if (v.diff !== undefined) {
      // the same port of another scenario or state file (--at and --seed apply to both)
      const other = await loadTarget('analyze', v.diff as string, io, opts);
      const there = analyzedPort(other, want, node, findPort);
      let d;
      try {
        d = diffPorts(here, there);
      } catch (e) {
        throw fail(e);
      }
      const title = `ACL changes of ${want}: ${positionals[0]!} → ${String(v.diff)}`;
      await write(
        io.stdout,
        format === 'json' ? JSON.stringify(diffJson(d), null, 2) + '\n' : renderDiff(d, title),
      );
      return VIEW_OK;
    }
    let a;
    try {
      a = analyzePort(here.host, here.endpoint);
    } catch (e) {
      throw fail(e);
    }
    await write(
      io.stdout,
      format === 'json' ? JSON.stringify(analysisJson(a), null, 2) + '\n' : renderAnalysis(a),
    );
    return VIEW_OK;
  });
}

/**
 * `hnsim analyze FILE --from X --to Y`: every packet from X to Y by where it ends. With `--diff
 * OTHER`, the packets whose dispositions differ in OTHER: of that pair, or with one end only, of
 * that source to every pod and service (that destination from every pod) of either file.
 */
async function analyzeReachability(
  io: CliIo,
  t: ViewTarget,
  ends: { readonly from?: string | undefined; readonly to?: string | undefined },
  diff: string | undefined,
  format: string,
  opts: { readonly at?: number; readonly seed?: number; readonly progress?: boolean },
): Promise<number> {
  // the ends by the file's own names (a pod's namespace/name, svc:namespace/name), as the defaults name them
  const named = (ref: string | undefined) => {
    if (ref === undefined) return undefined;
    const r = t.resolve(ref);
    if (r.port !== undefined)
      throw usage('analyze', `${ref}: reachability covers every port; name the service without one`);
    return r.name ?? ref;
  };
  const from = named(ends.from);
  const to = named(ends.to);
  const given = [from, to].filter((x): x is string => x !== undefined);
  const [
    { ReachContext },
    { diffNamed, reachNamed },
    { reachDiffJson, reachJson, renderReach, renderReachDiff },
  ] = await Promise.all([
    import('../analysis/reach.js'),
    import('../analysis/reach-check.js'),
    import('../render/analysis.js'),
  ]);
  const json = (doc: unknown) => JSON.stringify(doc, null, 2) + '\n';
  if (diff === undefined) {
    let r;
    try {
      r = reachNamed(t.network(), from!, to!);
    } catch (e) {
      throw analyzeFailure(e);
    }
    await write(io.stdout, format === 'json' ? json(reachJson(r)) : renderReach(r));
    return VIEW_OK;
  }
  // the same ends in another scenario or state file (--at and --seed apply to both)
  const other = await loadTarget('analyze', diff, io, opts);
  const union = (pick: (n: ReturnType<ViewTarget['reachNames']>) => readonly string[]) => [
    ...new Set([...pick(t.reachNames()), ...pick(other.reachNames())]),
  ];
  const sources = from !== undefined ? [from] : union((n) => n.sources);
  const destinations = to !== undefined ? [to] : union((n) => n.destinations);
  let diffs;
  try {
    diffs = diffNamed(t.network(), other.network(), sources, destinations, { context: new ReachContext() });
  } catch (e) {
    throw analyzeFailure(e);
  }
  if (!diffs.length)
    throw new ViewError(
      VIEW_FAILURE,
      `analyze: nothing to compare: ${given.join(' → ')} is in neither ${t.title} nor ${other.title}`,
      'analyze',
    );
  const title = `Reachability changes: ${t.title} → ${other.title}`;
  await write(
    io.stdout,
    format === 'json' ? json(diffs.map(reachDiffJson)) : `${title}\n\n${renderReachDiff(diffs)}`,
  );
  return VIEW_OK;
}

/** `hnsim analyze FILE` without --port: every local endpoint port of the nodes, its findings in a line. */
async function analyzeAllPorts(
  io: CliIo,
  t: ViewTarget,
  node: string | undefined,
  format: string,
): Promise<number> {
  const hosts = selectHosts('analyze', t, node === undefined ? undefined : [node]);
  const [{ analyzePort }, { portSummary, renderPortSummaries }] = await Promise.all([
    import('../analysis/port.js'),
    import('../render/analysis.js'),
  ]);
  const byNode = hosts.map(([name, host]) => {
    const ports = [...host.dataplane.view().ports.values()].filter((p) => !p.remote && p.ip !== 0);
    return [name, ports.map((p) => portSummary(analyzePort(host, p.id)))] as const;
  });
  if (format === 'json') {
    const doc = Object.fromEntries(byNode.map(([name, list]) => [name, list]));
    await write(io.stdout, JSON.stringify(doc, null, 2) + '\n');
  } else await write(io.stdout, renderPortSummaries(byNode));
  return VIEW_OK;
}

/**
 * The node and endpoint a port reference names in a view: a pod (namespace/name, or name in
 * default) names its endpoint, else an endpoint's ID or name, on `node` or the first node that has it.
 */
function analyzedPort(
  t: ViewTarget,
  want: string,
  node: string | undefined,
  findPort: (plane: Host['dataplane'], ref: string) => { readonly remote: boolean } | undefined,
): { host: Host; endpoint: string } {
  const hosts = selectHosts('analyze', t, node === undefined ? undefined : [node]);
  const pods = [...(t.scenario?.world.pods.values() ?? [])];
  const pod = pods.find((p) => p.key === want) ?? pods.find((p) => p.key === `default/${want}`);
  const refs = [...(pod?.endpointId ? [pod.endpointId] : []), want];
  for (const [, host] of hosts) {
    const endpoint = refs.find((r) => findPort(host.dataplane, r)?.remote === false);
    if (endpoint !== undefined) return { host, endpoint };
  }
  throw new ViewError(VIEW_FAILURE, `analyze: no port "${want}" in ${t.title}`, 'analyze');
}

// ───────────────────────────── diagram ─────────────────────────────

/** `hnsim diagram FILE`. */
export async function cmdDiagram(args: string[], io: CliIo): Promise<number> {
  return guard(io, 'diagram', async () => {
    const { values: v, positionals } = parse('diagram', args, {
      format: { type: 'string' },
      output: { type: 'string', short: 'o' },
      node: { type: 'string', multiple: true },
      at: { type: 'string' },
      seed: { type: 'string' },
    });
    if (v.help) return write(io.stdout, DIAGRAM_USAGE).then(() => VIEW_OK);
    if (positionals.length === 0) throw usage('diagram', 'a scenario or state FILE is required');
    if (positionals.length > 1) throw usage('diagram', `unexpected argument "${positionals[1]}"`);
    const format = (v.format as string | undefined) ?? 'dot';
    if (!['dot', 'mermaid', 'svg'].includes(format))
      throw usage('diagram', `--format must be dot, mermaid or svg, got "${format}"`);
    if (v.output === '') throw usage('diagram', '-o must name a file');
    const t = await loadTarget('diagram', positionals[0]!, io, scenarioOpts('diagram', v, io, true));
    const selected = selectHosts('diagram', t, v.node as string[] | undefined);
    const { diagramOf } = await import('./diagram.js');
    const { toDot, toMermaid } = await import('../render/diagram.js');
    const d = diagramOf(t, selected);
    let text: string;
    if (format === 'mermaid') text = toMermaid(d);
    else if (format === 'dot') text = toDot(d);
    else {
      const { dotToSvg } = await import('../render/svg.js');
      try {
        text = await dotToSvg(toDot(d));
      } catch (e) {
        throw new ViewError(VIEW_FAILURE, `diagram: ${(e as Error).message}`, 'diagram');
      }
    }
    if (v.output !== undefined) {
      try {
        writeFileSync(v.output as string, text);
      } catch (e) {
        throw new ViewError(
          VIEW_FAILURE,
          `cannot write ${String(v.output)}: ${(e as Error).message}`,
          'diagram',
        );
      }
      return VIEW_OK;
    }
    await write(io.stdout, text);
    return VIEW_OK;
  });
}

/** Run a view; a ViewError becomes its message on stderr and its exit code. */
async function guard(io: CliIo, cmd: string, fn: () => Promise<number>): Promise<number> {
  try {
    return await fn();
  } catch (e) {
    if (!(e instanceof ViewError)) throw e;
    const lines = e.message.split('\n').map((l) => `hnsim: ${l}`);
    if (e.code === VIEW_USAGE) lines[0] = `hnsim: ${cmd}: ${e.message} (see 'hnsim ${cmd} --help')`;
    await write(io.stderr, lines.join('\n') + '\n');
    return e.code;
  }
}

/**
 * The first argument that is not an option or an option's value (`hnsim trace FILE …`), given the
 * options that take a value; undefined when there is none.
 */
export function firstPositional(args: readonly string[], valued: ReadonlySet<string>): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return args[i + 1];
    if (a.startsWith('--')) {
      if (!a.includes('=') && valued.has(a.slice(2))) i++;
      continue;
    }
    if (a.startsWith('-') && a.length > 1) {
      if (a.length === 2 && valued.has(a.slice(1))) i++;
      continue;
    }
    return a;
  }
  return undefined;
}
