/**
 * The `hnsim` command (DESIGN: cli/, "What a user runs"): quickstart, serve (JSON-RPC 2.0 on
 * stdin/stdout, or on a loopback TCP port), show (hnsdiag-like listings of a snapshot), trace (a
 * packet through a host, at ovn-trace's three levels), version. Options are parsed with
 * node:util parseArgs; a usage error prints one line to stderr and exits 2, a runtime failure exits 1.
 *
 *   process.exitCode = await main(process.argv.slice(2));
 */
import type { PortRules } from '../vswitch/rules.js';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { isHnsError } from '../core/errors.js';
import type { Host, HostOptions } from '../host/host.js';
import type { TraceRequest } from '../dataplane/trace.js';
import type { TraceLevel } from '../render/trace.js';
import type { AdapterSpec } from '../hns/adapters.js';
import { isJsonObject } from '../core/json.js';
import {
  DEFAULT_PROFILE,
  PROFILES,
  formatVersion,
  resolveProfile,
  type HostProfile,
} from '../hns/versions.js';
import {
  collectListing,
  listingJson,
  renderListing,
  LISTING_KINDS,
  type ListingKind,
} from '../render/listing.js';
import { renderWalkthrough, walkthroughJson } from '../render/narration.js';
import type { ShowKind } from '../render/objects.js';
import { table } from '../render/table.js';
import { useColor } from './progress.js';
import { RUN_USAGE_TEXT } from './run.js';
import { cmdWine, WINE_USAGE, type WineHostFlags } from './wine.js';
import {
  DIAGRAM_USAGE,
  EXPLAIN_USAGE,
  firstPositional,
  SHOW_SCENARIO_USAGE,
  TRACE_SCENARIO_USAGE,
} from './views.js';

// The model (host, service, API) is imported only by the commands that run it, so help, version
// and usage errors answer without loading it.
const loadHost = () => import('../host/host.js');

export interface CliIo {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  /** Whether stdout is a terminal (colour is used only then, and only without NO_COLOR). */
  readonly isTTY: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** A bad command line: reported in one line, exit code 2. */
class UsageError {
  constructor(
    readonly message: string,
    readonly command?: string,
  ) {}
}

/** A failure while running a valid command (unreadable snapshot, …): exit code 1. */
class CommandError {
  constructor(readonly message: string) {}
}

export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as unknown;
    return isJsonObject(pkg) && typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

const COMMANDS = [
  'quickstart',
  'run',
  'serve',
  'show',
  'trace',
  'explain',
  'diagram',
  'cni',
  'call',
  'wine',
  'version',
  'help',
] as const;
type Command = (typeof COMMANDS)[number];

const profileNames = Object.keys(PROFILES).join(', ');

const MAIN_USAGE = `hnsim: an in-memory simulator of Windows container networking (HNS: the HCN v2 API and the v1 HNSCall API; the vSwitch and its packet path)

Usage: hnsim <command> [options]

Commands:
  quickstart   Run the quick-start scenario (what 'npm start' runs): two Windows nodes on
               L2Bridge, pods attached step by step, the nine Kubernetes flows checked
  run          Run a scenario file (YAML): nodes, CNI, pods, services, faults, narrated
               step by step; check its traces, truth tables and HNS state (exit 1 on a miss)
  serve        Serve the flat HNS API (and CNI: CniExec, CniExecList) as JSON-RPC 2.0 on
               stdin/stdout until EOF, or on a loopback TCP port (--listen)
  show         List the HNS objects of a scenario's nodes, a state file or a fresh host,
               hnsdiag-style (also policies, compartments, containers), or its vSwitch
               ports' VFP rules (show rules), vfpctrl-style
  trace        Trace a packet through a host (a snapshot, a fresh one) or a scenario's
               cluster: every step with the rule behind it, and where it ends (Delivered, …)
  explain      Say in plain words why a flow is allowed or denied in a scenario: the rule
               that decided, and which policy to change
  diagram      Draw a scenario's nodes (NICs, vSwitches, ports, endpoints, compartments,
               containers) and underlay as Graphviz DOT, Mermaid or SVG
  cni          Run one CNI plugin invocation as a runtime execs a plugin binary: CNI_*
               variables from the environment, the config on stdin, the plugin's stdout
               and exit code; the node is a state file kept between invocations
  call         Call one JSON-RPC method (a flat API function such as HcnCreateNetwork or
               HNSCall, a host method, CniExec, CniExecList) on a state file's node
  wine         Run a Windows program (a real CNI plugin .exe, a Go test binary) under Wine
               with hnsim's computenetwork.dll and vmcompute.dll, against a simulated node
  version      Print the hnsim version and the host profiles it simulates
  help [cmd]   Show this help, or a command's

Options:
  -h, --help      Show help (also after a command: hnsim <command> --help)
  -V, --version   Same as 'hnsim version'

Run 'hnsim <command> --help' for a command's options and exit codes (docs/cli.md has them
all). Colour only on a terminal, never with NO_COLOR set.
`;

const SEED_HELP =
  '  --seed N          Seed of every ID and choice the host makes (integer 0..4294967295, default 1)';
const PROFILE_HELP = `  --profile NAME    Host profile: ${profileNames}, or an HNS version such as 13.1 (default ${DEFAULT_PROFILE})`;
const ADAPTER_HELP = `  --adapter SPEC    A host network adapter (repeat for several; replaces the default one):
                    name=Ethernet,ip=10.0.0.4/24,gateway=10.0.0.1[,mac=00-0D-3A-12-34-56]
                    [,mtu=1500][,spoofing]. Default: one "Ethernet" with an address,
                    gateway and MAC derived from the seed
  --host FILE       A host document (JSON): {"name","seed","profile","adapters":[{"name",
                    "ipAddress","gateway","macAddress","mtu","macSpoofing"}],"serviceRestart":
                    {…,"downtimeMs"},"reboot":{…},"defaultNamespace","dataplane":{…},
                    "hcs":{"api":"computecore"|"vmcompute",…}}; flags override it`;

const USAGE: Readonly<Record<Exclude<Command, 'help'>, string>> = {
  run: RUN_USAGE_TEXT,
  quickstart: `Usage: hnsim quickstart [--seed N] [--profile NAME] [--format text|json] [--trace]
       hnsim quickstart --flat-api [--seed N] [--profile NAME] [--format text|json]

Run the quick-start scenario (scenarios/quick-start.yaml; what 'npm start' runs) exactly as
'hnsim run' does: two Windows Server nodes on one L2 segment set up as flannel host-gw does
(an L2Bridge network cbr0 per node), containerd starting pods through win-bridge and
host-local — each step narrated from the nodes' events: HCS creates the pause container, HNS
the namespace (= compartment N), CNI ADD, the endpoint and its policies, the attach, the
vSwitch port's VFP layers — then CoreDNS, a service, and the nine flows of the Kubernetes
"Networking on Windows" page checked with their packet changes, a truth table and the leak
audit. --seed and --profile override the scenario's.

With --flat-api, the older walkthrough of one host through the flat API instead:
a NAT network (HNS picks its subnet), an Overlay network with a subnet and policies, a
namespace, endpoints with HNS-assigned IPs and a PortMapping, attachment to the namespace,
a load balancer with two backends, an hnsdiag-like listing, one object's JSON, a failing
call with its HRESULT and ErrorRecord (state unchanged), and teardown in reverse order.
Then two two-node clusters (flannel host-gw on L2Bridge, flannel VXLAN on Overlay) with
CoreDNS, a service and an outside host, and the nine flows of the Kubernetes "Networking on
Windows" page traced on each: disposition and packet changes.
Output is deterministic for a given seed and profile.

Options:
${SEED_HELP.replace('default 1', "default: the scenario's, 1")}
${PROFILE_HELP}
  --format FORMAT   text (default) or json (the report, as 'hnsim run --format json')
  --trace           Also print each trace expectation's packet path (as 'hnsim run --trace')
  --flat-api        The one-host flat API walkthrough instead of the scenario
  -h, --help        Show this help

Exit status: 0 every expectation holds (--flat-api: the walkthrough completed); 1 one does
not (--flat-api: a call that should succeed failed); 2 bad command line; 4 the simulator
refused the scenario on this profile.
`,
  serve: `Usage: hnsim serve [--listen ADDR:PORT] [--seed N] [--profile NAME] [--adapter SPEC]…
                   [--host FILE]

Serve one simulated host as JSON-RPC 2.0 on stdin/stdout: one request per line in, one
response per line out, until stdin ends. A method is a flat API function (HcnCreateNetwork,
HcnQueryEndpointProperties, HNSCall, …) and "params" its positional arguments; an HNS
failure is error -32000 with data {hresult, name, errorRecord}. Host methods: Snapshot,
Restore(snapshot), RestartHns(policy?, with "downtimeMs"), Reboot(policy?), GetVersion,
GetAdapters, ListMethods. CNI: CniExec({plugin, env, stdin}) → {exitCode, stdout, stderr}
runs one plugin invocation; CniExecList({conflist, command, containerId, netns, ifname,
args?, capabilityArgs?}) runs a network config list as libcni does (ADD in order, DEL in
reverse, its result cache). Faults and time: FaultFail({method|id|name|path, hresult, times}),
FaultDelay({…, ms}), FaultHang({…}), FaultRelease({rule, one?}), FaultRemove({rule}),
FaultList, FaultHeld, FaultClear, ClockNow, ClockAdvance(ms). Dataplane: Trace({from, to,
protocol?, sourcePort?, destinationPort?, ttl?, reply?, allBranches?}), Send({… without
allBranches, packets?, bytes?}), GetRoutes, AddRoute({destinationPrefix, nextHop?,
interfaceAlias?, metric?}), RemoveRoute(destinationPrefix, nextHop?). Flat calls pass
through the fault rules and are answered as they complete (match responses by id); at end
of stdin, held calls are released and delays elapse, so every request is answered.
Requests without "id" are notifications (no response); batches (arrays) are supported.

  echo '{"jsonrpc":"2.0","id":1,"method":"HcnEnumerateNetworks","params":[]}' | hnsim serve

With --listen ADDR:PORT, the host is served on a TCP port instead, for any number of
connections at once. ADDR is 127.0.0.1, [::1] or localhost: any other address is refused,
since the server has no authentication. Port 0 picks a free port. Once listening, hnsim
prints one line to stdout, the address and port as bound:

  hnsim: listening on 127.0.0.1:PORT        ([::1]:PORT for IPv6)

and serves until SIGINT or SIGTERM (then exit 0); stdin is not read. Each connection is a
session as on stdin: one request per line (LF or CRLF; a line over 32 MiB is answered
-32700 and skipped), answers as calls complete. Every connection sees the same host and
fault rules: a call held on one does not block the others, and one connection can
FaultRelease another's. A connection's end releases nothing (unlike the end of stdin);
every line received is run, its answer dropped if the client has gone.

  hnsim serve --listen 127.0.0.1:0 --seed 7

Options:
  --listen ADDR:PORT
                    Serve on a loopback TCP port instead of stdin/stdout (above)
${SEED_HELP}
${PROFILE_HELP}
${ADAPTER_HELP}
  -h, --help        Show this help

Exit status: 0 at the end of stdin or on SIGINT/SIGTERM; 1 when the host cannot be built or
the port cannot be bound (in use); 2 for a bad command line (a non-loopback --listen).
`,
  show: `Usage: hnsim show [KIND] [--snapshot FILE] [--seed N] [--profile NAME] [--adapter SPEC]…
                  [--host FILE] [--format text|json]
       hnsim show rules [--port ID|NAME] [same host options]
${SHOW_SCENARIO_USAGE}
List HNS objects as HNS returns them, in hnsdiag-like tables, and the host's network
adapters (physical, and the vEthernet host vNICs of the vSwitches HNS created): those of
a snapshot file (the result of the JSON-RPC method Snapshot; "-" reads stdin), or of a
fresh host.

"show rules" lists what the policies became in the vSwitch, like vfpctrl /port <id>
/list-rule: each port's VFP layers, groups and rules (ACL, load balancing, NAT, routes,
encapsulation, MAC rewrite) in evaluation order, then the host vNIC and uplink ports.

Options:
  --port PORT       show rules: only this endpoint port (ID or name), or a host-side port
  --snapshot FILE   Snapshot to list (default: a fresh host, which holds its HostDefault namespace)
${SEED_HELP}
${PROFILE_HELP.replace('(default', "(default: the snapshot's HNS version, else")}
${ADAPTER_HELP}
  --format FORMAT   text (default) or json
  -h, --help        Show this help

Exit status: 0 listed; 1 an unreadable snapshot or an unknown --port; 2 bad command line.
`,
  trace: `Usage: hnsim trace --from SOURCE --to TARGET [--protocol TCP|UDP|ICMP|N] [--sport N]
                   [--dport N] [--ttl N] [--reply] [--all-branches]
                   [--level detailed|summary|minimal] [--format text|json]
                   [--snapshot FILE] [--seed N] [--profile NAME] [--adapter SPEC]… [--host FILE]
${TRACE_SCENARIO_USAGE}
Trace one packet through a simulated host, as ovn-trace does: nothing is sent and nothing
changes. The host is built as 'hnsim show' builds it: a snapshot file (the result of the
JSON-RPC method Snapshot; "-" reads stdin), or a fresh host. A source or target is an
endpoint (ID or name), a container or namespace ID, "host" (or the host's name), or an IPv4
address: one outside the host arrives on (or leaves by) its uplink. The seed also decides
which backend a load balancer picks; a snapshot does not record it, so give --seed the seed
of the host the snapshot was taken on.

  hnsim trace --snapshot node.json --from pod1 --to 8.8.8.8 --dport 443 --level summary

Options:
  --from SOURCE     Where the packet starts (required)
  --to TARGET       Where it goes (required)
  --protocol P      TCP (default), UDP, ICMP, or an IP protocol number 0..255
  --sport N         Source port, 0..65535 (default 50000; TCP and UDP only)
  --dport N         Destination port, 0..65535 (default 80; TCP and UDP only)
  --ttl N           The packet's TTL, 1..255 (default 128)
  --reply           Also trace the reply of a delivered packet
  --all-branches    One trace per backend of the first load balancer with a choice
  --level LEVEL     detailed (default: every step, its rule and the fields it changed),
                    summary (one line per step), or minimal (only the translations and
                    the disposition, without GUIDs: the form for regression tests)
  --format FORMAT   text (default, at --level) or json (the JSON-RPC Trace result)
  --snapshot FILE   Snapshot to trace through (default: a fresh host)
${SEED_HELP}
${PROFILE_HELP.replace('(default', "(default: the snapshot's HNS version, else")}
${ADAPTER_HELP}
  -h, --help        Show this help

Exit status: 0 whatever the disposition, 1 when the trace cannot run (an unknown source,
an unreadable snapshot), 2 for a bad command line.
`,
  cni: `Usage: hnsim cni --state FILE [--plugin TYPE] [--seed N] [--profile NAME]
                 [--adapter SPEC]… [--host FILE]

Run one CNI invocation against a simulated node, exactly as a container runtime execs a
plugin binary: the CNI_* variables (CNI_COMMAND, CNI_CONTAINERID, CNI_NETNS, CNI_IFNAME,
CNI_ARGS, CNI_PATH) come from the environment, the network config from stdin; the
plugin's stdout is printed and its exit code returned (0, or 1 with a CNI error document).
The plugin is --plugin, else the "type" of the config. Reference plugins: host-local,
win-bridge, win-overlay, sdnbridge, sdnoverlay, nat, flannel.

The node lives in the state file (a snapshot: HNS objects, compute systems and the node's
disk, where host-local and flannel keep their files): read before the call (a fresh host
from the host options when the file does not exist yet) and written back after it, so an
ADD and a DEL in two commands see one node. Prepare its networks with 'hnsim call'.

  hnsim call --state node.json HNSCall POST /networks/ "$(cat cbr0.json)"
  CNI_COMMAND=ADD CNI_CONTAINERID=abc CNI_NETNS=none CNI_IFNAME=eth0 CNI_PATH='C:\\cni' \\
    hnsim cni --state node.json < win-bridge.conf

Options:
  --state FILE      The node's state file (created when missing; required)
  --plugin TYPE     The plugin to run (default: the config's "type")
${SEED_HELP}
${PROFILE_HELP}
${ADAPTER_HELP}
  -h, --help        Show this help

Exit status: the plugin's (0 success; 1 failure, its error document on stdout; 2 where the
Go plugin panics, the panic on stderr); 1 with a message on stderr when the state file cannot
be read or written, or the plugin is unknown; 2 for a bad command line.
`,
  call: `Usage: hnsim call --state FILE METHOD [PARAM]… [--json] [host options]

Call one JSON-RPC method of 'hnsim serve' on the node of a state file (created from the
host options when missing, written back after the call) and print its result as JSON. A
PARAM is JSON when it parses as JSON, else a string (so HNSCall POST /networks/ '{…}'
works); --json takes the whole parameter array as one JSON argument instead.

  hnsim call --state node.json HcnCreateNetwork null '{"Name":"nat","Type":"NAT"}'
  hnsim call --state node.json HNSCall GET /networks/ ''
  hnsim call --state node.json ListMethods

Options:
  --state FILE      The node's state file (created when missing; required)
  --json            The one argument after METHOD is the JSON array of parameters
${SEED_HELP}
${PROFILE_HELP}
${ADAPTER_HELP}
  -h, --help        Show this help

Exit status: 0 with the result on stdout; 1 with the JSON-RPC error on stderr (an HNS
failure carries its HRESULT); 2 for a bad command line.
`,
  wine: WINE_USAGE,
  explain: EXPLAIN_USAGE,
  diagram: DIAGRAM_USAGE,
  version: `Usage: hnsim version [--format text|json]

Print the hnsim package version and the host profiles (HNS versions) it simulates.

Options:
  --format FORMAT   text (default) or json
  -h, --help        Show this help

Exit status: 0; 2 for a bad command line.
`,
};

function defaultIo(): CliIo {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    isTTY: process.stdout.isTTY === true,
    env: process.env,
  };
}

function write(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(text, (err) => (err ? reject(err) : resolve()));
  });
}

interface Flags {
  seed?: string;
  profile?: string;
  format?: string;
  snapshot?: string;
  adapter?: string[];
  host?: string;
  help?: boolean;
  from?: string;
  to?: string;
  protocol?: string;
  sport?: string;
  dport?: string;
  ttl?: string;
  reply?: boolean;
  'all-branches'?: boolean;
  level?: string;
  port?: string;
  state?: string;
  plugin?: string;
  json?: boolean;
  listen?: string;
  trace?: boolean;
  'flat-api'?: boolean;
}

const OPTION_SPECS = {
  seed: { type: 'string' },
  profile: { type: 'string' },
  format: { type: 'string' },
  snapshot: { type: 'string' },
  adapter: { type: 'string', multiple: true },
  host: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  from: { type: 'string' },
  to: { type: 'string' },
  protocol: { type: 'string' },
  sport: { type: 'string' },
  port: { type: 'string' },
  dport: { type: 'string' },
  ttl: { type: 'string' },
  reply: { type: 'boolean' },
  'all-branches': { type: 'boolean' },
  level: { type: 'string' },
  state: { type: 'string' },
  plugin: { type: 'string' },
  json: { type: 'boolean' },
  listen: { type: 'string' },
  trace: { type: 'boolean' },
  'flat-api': { type: 'boolean' },
} as const;

const ALLOWED: Readonly<Record<Exclude<Command, 'help'>, readonly (keyof Flags)[]>> = {
  quickstart: ['seed', 'profile', 'format', 'trace', 'flat-api', 'help'],
  run: [], // parsed by src/cli/run.ts
  serve: ['listen', 'seed', 'profile', 'adapter', 'host', 'help'],
  show: ['snapshot', 'seed', 'profile', 'adapter', 'host', 'format', 'port', 'help'],
  trace: [
    'from',
    'to',
    'protocol',
    'sport',
    'dport',
    'ttl',
    'reply',
    'all-branches',
    'level',
    'format',
    'snapshot',
    'seed',
    'profile',
    'adapter',
    'host',
    'help',
  ],
  cni: ['state', 'plugin', 'seed', 'profile', 'adapter', 'host', 'help'],
  call: ['state', 'json', 'seed', 'profile', 'adapter', 'host', 'help'],
  wine: ['seed', 'profile', 'adapter', 'host', 'help'],
  version: ['format', 'help'],
  explain: [], // parsed by src/cli/views.ts
  diagram: [],
};

function parse(
  cmd: Exclude<Command, 'help'>,
  args: string[],
  maxPositionals: number,
): { flags: Flags; positionals: string[] } {
  const options = Object.fromEntries(ALLOWED[cmd].map((k) => [k, OPTION_SPECS[k]]));
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    const msg = (e as Error).message.split('\n')[0]!.replace(/\. To specify a positional.*$/, '');
    throw new UsageError(`${cmd}: ${msg}`, cmd);
  }
  const flags = parsed.values as Flags;
  if (!flags.help && parsed.positionals.length > maxPositionals) {
    throw new UsageError(`${cmd}: unexpected argument "${parsed.positionals[maxPositionals]}"`, cmd);
  }
  return { flags, positionals: parsed.positionals };
}

function readSeed(cmd: string, flags: Flags): number {
  if (flags.seed === undefined) return 1;
  if (!/^\d{1,10}$/.test(flags.seed) || Number(flags.seed) > 0xffffffff) {
    throw new UsageError(`${cmd}: --seed must be an integer 0..4294967295, got "${flags.seed}"`, cmd);
  }
  return Number(flags.seed);
}

function readProfile(cmd: string, flags: Flags): HostProfile | undefined {
  if (flags.profile === undefined) return undefined;
  const p = resolveProfile(flags.profile);
  if (!p) {
    throw new UsageError(
      `${cmd}: unknown --profile "${flags.profile}" (use ${profileNames} or an HNS version like 13.1)`,
      cmd,
    );
  }
  return p;
}

function readFormat(cmd: string, flags: Flags): 'text' | 'json' {
  const f = flags.format ?? 'text';
  if (f !== 'text' && f !== 'json') {
    throw new UsageError(`${cmd}: --format must be text or json, got "${f}"`, cmd);
  }
  return f;
}

const ADAPTER_KEYS: Readonly<Record<string, keyof AdapterSpec>> = {
  name: 'name',
  ip: 'ipAddress',
  gateway: 'gateway',
  mac: 'macAddress',
  mtu: 'mtu',
  description: 'description',
  spoofing: 'macSpoofing',
};

/** `name=Ethernet,ip=10.0.0.4/24,gateway=10.0.0.1,mac=…,mtu=1500,spoofing` as an AdapterSpec. */
export function parseAdapterFlag(cmd: string, text: string): AdapterSpec {
  const out: Record<string, string | number | boolean> = {};
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    const k = (eq < 0 ? part : part.slice(0, eq)).trim();
    const v = eq < 0 ? undefined : part.slice(eq + 1).trim();
    const key = ADAPTER_KEYS[k];
    if (!key) {
      throw new UsageError(
        `${cmd}: --adapter "${text}": unknown key "${k}" (${Object.keys(ADAPTER_KEYS).join(', ')})`,
        cmd,
      );
    }
    if (key === 'macSpoofing') out[key] = v === undefined || v === 'true';
    else if (v === undefined || v === '')
      throw new UsageError(`${cmd}: --adapter "${text}": ${k} needs a value`, cmd);
    else if (key === 'mtu') {
      if (!/^\d+$/.test(v)) throw new UsageError(`${cmd}: --adapter "${text}": mtu must be a number`, cmd);
      out[key] = Number(v);
    } else out[key] = v;
  }
  if (typeof out.name !== 'string')
    throw new UsageError(`${cmd}: --adapter "${text}": name= is required`, cmd);
  return out as unknown as AdapterSpec;
}

const HOST_DOC_KEYS = [
  'name',
  'seed',
  'profile',
  'adapters',
  'serviceRestart',
  'reboot',
  'defaultNamespace',
  'dataplane',
  'hcs',
];

/**
 * A host document (JSON file) as HostOptions, its profile resolved; unknown keys and wrong types
 * are command errors.
 */
function readHostDocument(path: string): HostOptions {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new CommandError(`cannot read host document ${path}: ${(e as Error).message}`);
  }
  if (!isJsonObject(doc)) throw new CommandError(`host document ${path} must be a JSON object`);
  for (const k of Object.keys(doc)) {
    if (!HOST_DOC_KEYS.includes(k)) {
      throw new CommandError(`host document ${path}: unknown key "${k}" (${HOST_DOC_KEYS.join(', ')})`);
    }
  }
  const bad = (k: string, what: string) => new CommandError(`host document ${path}: ${k} must be ${what}`);
  if (doc.name !== undefined && typeof doc.name !== 'string') throw bad('name', 'a string');
  if (
    doc.seed !== undefined &&
    (typeof doc.seed !== 'number' || !Number.isInteger(doc.seed) || doc.seed < 0 || doc.seed > 0xffffffff)
  )
    throw bad('seed', 'an integer 0..4294967295');
  const profile = typeof doc.profile === 'string' ? resolveProfile(doc.profile) : undefined;
  if (doc.profile !== undefined && !profile) throw bad('profile', `one of ${profileNames} or an HNS version`);
  if (doc.adapters !== undefined && !Array.isArray(doc.adapters)) throw bad('adapters', 'an array');
  for (const k of ['serviceRestart', 'reboot'] as const) {
    if (doc[k] !== undefined && !isJsonObject(doc[k])) throw bad(k, 'an object');
  }
  if (doc.defaultNamespace !== undefined && typeof doc.defaultNamespace !== 'boolean')
    throw bad('defaultNamespace', 'true or false');
  if (doc.dataplane !== undefined && !isJsonObject(doc.dataplane)) throw bad('dataplane', 'an object');
  if (doc.hcs !== undefined) {
    if (!isJsonObject(doc.hcs)) throw bad('hcs', 'an object');
    const api = doc.hcs['api'];
    if (api !== undefined && api !== 'computecore' && api !== 'vmcompute')
      throw bad('hcs.api', '"computecore" or "vmcompute"');
  }
  return { ...(doc as unknown as HostOptions), ...(profile ? { profile } : {}) };
}

/** Host options from --host, then --seed, --profile and --adapter over it; `profile` as resolved. */
function hostOptions(cmd: string, flags: Flags): { options: HostOptions; profile?: HostProfile } {
  const base: HostOptions = flags.host !== undefined ? readHostDocument(flags.host) : {};
  const profile = readProfile(cmd, flags) ?? (base.profile as HostProfile | undefined);
  const options: HostOptions = {
    ...base,
    ...(flags.seed !== undefined ? { seed: readSeed(cmd, flags) } : {}),
    ...(profile ? { profile } : {}),
    ...(flags.adapter?.length ? { adapters: flags.adapter.map((a) => parseAdapterFlag(cmd, a)) } : {}),
  };
  return { options, ...(profile ? { profile } : {}) };
}

/** createHost, turning a bad adapter or option (E_INVALIDARG) into a command error. */
function buildHost(create: (o: HostOptions) => Host, options: HostOptions): Host {
  try {
    return create(options);
  } catch (e) {
    if (isHnsError(e)) throw new CommandError(`cannot build the host: ${e.detail ?? e.message}`);
    throw e;
  }
}

async function cmdQuickstart(args: string[], io: CliIo): Promise<number> {
  const { flags } = parse('quickstart', args, 0);
  if (flags.help) return write(io.stdout, USAGE.quickstart).then(() => EXIT_OK);
  const seed = readSeed('quickstart', flags);
  const profile = readProfile('quickstart', flags);
  const format = readFormat('quickstart', flags);
  if (!flags['flat-api']) {
    const { runQuickstartScenario } = await import('./quickstart.js');
    return runQuickstartScenario(io, {
      ...(flags.seed !== undefined ? { seed } : {}),
      ...(flags.profile !== undefined ? { profile: flags.profile } : {}),
      format,
      trace: flags.trace === true,
    });
  }
  if (flags.trace)
    throw new UsageError('quickstart: --trace goes with the scenario, not --flat-api', 'quickstart');
  const { runQuickstart } = await import('./quickstart.js');
  const w = runQuickstart({ seed, ...(profile ? { profile } : {}) });
  const text =
    format === 'json'
      ? JSON.stringify(walkthroughJson(w), null, 2) + '\n'
      : renderWalkthrough(w, { color: useColor(io) });
  await write(io.stdout, text);
  return w.completed ? EXIT_OK : EXIT_FAILURE;
}

/** The hosts `serve --listen` binds to (src/api/rpc.ts LOOPBACK_HOSTS; checked here without loading it). */
const LISTEN_HOSTS = ['127.0.0.1', '::1', 'localhost'] as const;

/**
 * `--listen ADDR:PORT`: ADDR 127.0.0.1, [::1] or localhost, PORT 0..65535. Anything else, a
 * non-loopback address above all, is a usage error.
 */
function readListen(text: string): { host: (typeof LISTEN_HOSTS)[number]; port: number } {
  const m = /^\[([^\]]*)\]:([^:]*)$/.exec(text) ?? /^([^:[\]]*):([^:]*)$/.exec(text);
  if (!m) {
    throw new UsageError(
      `serve: --listen takes ADDR:PORT (127.0.0.1:PORT, [::1]:PORT or localhost:PORT), got "${text}"`,
      'serve',
    );
  }
  const addr = m[1]!.toLowerCase();
  const portText = m[2]!;
  const host = LISTEN_HOSTS.find((h) => h === addr);
  if (!host) {
    throw new UsageError(
      `serve: --listen ${text}: ${addr === '' ? 'no address' : `${m[1]} is not a loopback address`}; ` +
        'hnsim serves on 127.0.0.1, [::1] or localhost only (the server has no authentication)',
      'serve',
    );
  }
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) {
    throw new UsageError(
      `serve: --listen ${text}: the port must be an integer 0..65535 (0 picks a free one)`,
      'serve',
    );
  }
  return { host, port: Number(portText) };
}

async function cmdServe(args: string[], io: CliIo): Promise<number> {
  const { flags } = parse('serve', args, 0);
  if (flags.help) return write(io.stdout, USAGE.serve).then(() => EXIT_OK);
  const listen = flags.listen === undefined ? undefined : readListen(flags.listen);
  const { options } = hostOptions('serve', flags);
  const [{ createHost }, { serveStdio, serveTcp }, { cniRpcMethods }, { wineRegistry }, { registerFace }] =
    await Promise.all([
      loadHost(),
      import('../api/rpc.js'),
      import('../plugins/index.js'),
      import('../wine/plugin.js'),
      import('../wine/sim.js'),
    ]);
  const host = buildHost(createHost, options);
  // CniExec and CniExecList also run real plugin binaries of this machine under Wine (docs/wine.md)
  const methods = cniRpcMethods(host, wineRegistry(host));
  if (!listen) {
    await serveStdio(host, io.stdin, io.stdout, { methods });
    return EXIT_OK;
  }
  let server;
  try {
    server = await serveTcp(host, listen, { methods });
  } catch (e) {
    throw new CommandError(`serve: cannot listen on ${flags.listen}: ${(e as Error).message}`);
  }
  const stopped = new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  const shown = server.address.includes(':') ? `[${server.address}]` : server.address;
  registerFace(host, `${shown}:${server.port}`); // a real plugin run by CniExec reaches this host here
  await write(io.stdout, `hnsim: listening on ${shown}:${server.port}\n`);
  await stopped;
  await server.close();
  return EXIT_OK;
}

/**
 * The node of a state file: restored from it when it exists (its HNS version is the profile unless
 * one is given), else fresh from the host options; `save` writes it back (temp file, then rename).
 */
async function stateHost(cmd: 'cni' | 'call' | 'wine', flags: Flags): Promise<{ host: Host; save(): void }> {
  const path = flags.state;
  if (path === undefined) throw new UsageError(`${cmd}: --state FILE is required`, cmd);
  let text: string | undefined;
  if (existsSync(path)) {
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw new CommandError(`cannot read state ${path}: ${(e as Error).message}`);
    }
  }
  const host = await restoredHost(
    hostOptions(cmd, flags),
    text === undefined ? undefined : { text, what: `state ${path}`, notJson: `cannot read state ${path}` },
  );
  return {
    host,
    save() {
      const tmp = `${path}.${process.pid}.tmp`;
      try {
        writeFileSync(tmp, JSON.stringify(host.snapshot()) + '\n');
        renameSync(tmp, path);
      } catch (e) {
        throw new CommandError(`cannot write state ${path}: ${(e as Error).message}`);
      }
    },
  };
}

async function cmdCni(args: string[], io: CliIo): Promise<number> {
  const { flags } = parse('cni', args, 0);
  if (flags.help) return write(io.stdout, USAGE.cni).then(() => EXIT_OK);
  const stdin = await readAll(io.stdin);
  let plugin = flags.plugin;
  if (plugin === undefined) {
    let conf: unknown;
    try {
      conf = JSON.parse(stdin);
    } catch {
      conf = undefined;
    }
    const type = isJsonObject(conf) ? conf['type'] : undefined;
    if (typeof type !== 'string' || type === '') {
      throw new UsageError('cni: no plugin to run: give --plugin TYPE, or a config with a "type"', 'cni');
    }
    plugin = type;
  }
  const node = await stateHost('cni', flags);
  const [{ execPlugin }, { wineRegistry }] = await Promise.all([
    import('../plugins/index.js'),
    import('../wine/plugin.js'),
  ]);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(io.env)) if (v !== undefined) env[k] = v;
  const out = await execPlugin(node.host, plugin, { env, stdin }, wineRegistry(node.host));
  node.save();
  await write(io.stdout, out.stdout);
  if (out.stderr) await write(io.stderr, out.stderr);
  return out.exitCode;
}

/**
 * `hnsim wine`'s node (src/cli/wine.ts): a state file's, or a fresh one, from the host flags; a bad
 * flag is a usage error, a state file that cannot be read is `{error}` (wine's exit code 122).
 */
async function wineNode(
  state: string | undefined,
  hostFlags: WineHostFlags,
): Promise<{ host: Host; save(): void } | { error: string }> {
  const flags: Flags = { ...hostFlags, ...(state !== undefined ? { state } : {}) };
  try {
    if (state !== undefined) return await stateHost('wine', flags);
    return { host: await restoredHost(hostOptions('wine', flags)), save: () => undefined };
  } catch (e) {
    if (e instanceof CommandError) return { error: e.message };
    throw e;
  }
}

async function cmdCall(args: string[], io: CliIo): Promise<number> {
  const { flags, positionals } = parse('call', args, Infinity);
  if (flags.help) return write(io.stdout, USAGE.call).then(() => EXIT_OK);
  const [method, ...rest] = positionals;
  if (method === undefined) throw new UsageError('call: a METHOD is required', 'call');
  let params: unknown[];
  if (flags.json) {
    if (rest.length !== 1)
      throw new UsageError('call: --json takes one argument, the parameter array', 'call');
    try {
      params = JSON.parse(rest[0]!) as unknown[];
    } catch (e) {
      throw new UsageError(`call: --json: ${(e as Error).message}`, 'call');
    }
    if (!Array.isArray(params)) throw new UsageError('call: --json takes a JSON array', 'call');
  } else {
    params = rest.map((a) => {
      try {
        return JSON.parse(a) as unknown;
      } catch {
        return a;
      }
    });
  }
  const node = await stateHost('call', flags);
  const [{ RpcServer }, { cniRpcMethods }, { wineRegistry }] = await Promise.all([
    import('../api/rpc.js'),
    import('../plugins/index.js'),
    import('../wine/plugin.js'),
  ]);
  const server = new RpcServer(node.host, { methods: cniRpcMethods(node.host, wineRegistry(node.host)) });
  const answer = await server.request({ jsonrpc: '2.0', id: 1, method, params });
  node.save();
  if (answer && 'error' in answer) {
    await write(io.stderr, JSON.stringify(answer.error, null, 2) + '\n');
    return EXIT_FAILURE;
  }
  await write(io.stdout, JSON.stringify(answer?.result ?? null, null, 2) + '\n');
  return EXIT_OK;
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** The profile a snapshot was taken on: a named profile with its HNS version, else that version. */
export function profileOfSnapshot(snapshot: unknown): HostProfile | undefined {
  if (!isJsonObject(snapshot) || typeof snapshot.version !== 'string') return undefined;
  const v = snapshot.version;
  return Object.values(PROFILES).find((p) => formatVersion(p.version) === v) ?? resolveProfile(v);
}

/**
 * The host `show` and `trace` work on: a fresh one from --host/--seed/--profile/--adapter, with
 * the snapshot of --snapshot restored into it (its HNS version is the profile unless one is given).
 */
async function hostFromFlags(built: ReturnType<typeof hostOptions>, flags: Flags, io: CliIo): Promise<Host> {
  if (flags.snapshot === undefined) return restoredHost(built);
  let text: string;
  try {
    text = flags.snapshot === '-' ? await readAll(io.stdin) : readFileSync(flags.snapshot, 'utf8');
  } catch (e) {
    throw new CommandError(`cannot read snapshot ${flags.snapshot}: ${(e as Error).message}`);
  }
  return restoredHost(built, {
    text,
    what: `snapshot ${flags.snapshot}`,
    notJson: `snapshot ${flags.snapshot} is not JSON`,
  });
}

/**
 * A host from the host options with a snapshot's text restored into it (its HNS version is the
 * profile unless one is given); `what` and `notJson` word the command errors.
 */
async function restoredHost(
  built: ReturnType<typeof hostOptions>,
  source?: { readonly text: string; readonly what: string; readonly notJson: string },
): Promise<Host> {
  let profile = built.profile;
  let snapshot: unknown;
  if (source) {
    try {
      snapshot = JSON.parse(source.text);
    } catch (e) {
      throw new CommandError(`${source.notJson}: ${(e as Error).message}`);
    }
    profile ??= profileOfSnapshot(snapshot);
  }
  const { createHost } = await loadHost();
  const host = buildHost(createHost, { ...built.options, ...(profile ? { profile } : {}) });
  if (source) {
    try {
      host.restore(snapshot);
    } catch (e) {
      throw new CommandError(`cannot restore ${source.what}: ${(e as Error).message}`);
    }
  }
  return host;
}

/** What `show` lists beyond hnsdiag's kinds (src/render/objects.ts), checked without loading it. */
const OBJECT_KIND_NAMES = ['policies', 'compartments', 'containers'];

async function cmdShow(args: string[], io: CliIo): Promise<number> {
  const first = args.some((a) => a === '-h' || a === '--help') ? undefined : firstPositional(args, VALUED);
  if (
    first !== undefined &&
    first !== 'rules' &&
    first !== 'all' &&
    !(LISTING_KINDS as readonly string[]).includes(first) &&
    !OBJECT_KIND_NAMES.includes(first) &&
    isViewFile(first)
  )
    return (await import('./views.js')).cmdShowFile(args, io);
  const { flags, positionals } = parse('show', args, 1);
  if (flags.help) return write(io.stdout, USAGE.show).then(() => EXIT_OK);
  const what = positionals[0] ?? 'all';
  if (what === 'rules') return showRules(flags, io);
  if (flags.port !== undefined) throw new UsageError('show: --port goes with "show rules"', 'show');
  const kinds: readonly string[] =
    what === 'all' ? LISTING_KINDS : [...LISTING_KINDS, ...OBJECT_KIND_NAMES].includes(what) ? [what] : [];
  if (kinds.length === 0) {
    throw new UsageError(
      `show: unknown object kind "${what}" (use ${[...LISTING_KINDS, ...OBJECT_KIND_NAMES].join(', ')} or all)`,
      'show',
    );
  }
  const built = hostOptions('show', flags);
  const format = readFormat('show', flags);
  const host = await hostFromFlags(built, flags, io);
  let text: string;
  if (kinds.every((k) => (LISTING_KINDS as readonly string[]).includes(k))) {
    const listing = collectListing(host.api, host);
    const listed = kinds as readonly ListingKind[];
    text =
      format === 'json'
        ? JSON.stringify(listingJson(listing, listed), null, 2) + '\n'
        : renderListing(listing, listed, { color: useColor(io) }) + '\n';
  } else {
    const { collectObjects, objectsJson, renderObjects } = await import('../render/objects.js');
    const o = collectObjects(host);
    const listed = kinds as readonly ShowKind[];
    text =
      format === 'json'
        ? JSON.stringify(objectsJson(o, listed), null, 2) + '\n'
        : renderObjects(o, listed, { color: useColor(io) }) + '\n';
  }
  await write(io.stdout, text);
  return EXIT_OK;
}

/** `hnsim show rules`: the vfpctrl-like listing of every port (or one). */
async function showRules(flags: Flags, io: CliIo): Promise<number> {
  const built = hostOptions('show', flags);
  const format = readFormat('show', flags);
  const host = await hostFromFlags(built, flags, io);
  const [{ listHostRules, listPortRules }, { renderPortRules }] = await Promise.all([
    import('../vswitch/rules.js'),
    import('../render/vfp.js'),
  ]);
  const view = host.dataplane.view();
  const port = flags.port;
  let rules: PortRules[];
  if (port !== undefined) {
    const hostSide = listHostRules(view).filter((r) => r.port.id === port || r.port.name === port);
    rules = hostSide.length ? hostSide : [listPortRules(view, port)];
  } else {
    const local = [...view.ports.values()].filter((p) => !p.remote);
    rules = [...local.map((p) => listPortRules(view, p.id)), ...listHostRules(view)];
  }
  const text =
    format === 'json'
      ? JSON.stringify(rules, null, 2) + '\n'
      : renderPortRules(rules, { color: useColor(io) }) + '\n';
  await write(io.stdout, text);
  return EXIT_OK;
}

/** An integer flag in `lo..hi`, or undefined when absent; anything else is a usage error. */
function readInt(
  cmd: string,
  name: string,
  v: string | undefined,
  lo: number,
  hi: number,
): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d{1,10}$/.test(v) || Number(v) < lo || Number(v) > hi)
    throw new UsageError(`${cmd}: --${name} must be an integer ${lo}..${hi}, got "${v}"`, cmd);
  return Number(v);
}

/** The trace request the flags describe (checked here, so a bad value is a usage error). */
function traceRequestOf(flags: Flags): TraceRequest {
  const cmd = 'trace';
  for (const k of ['from', 'to'] as const) {
    if (flags[k] === undefined) throw new UsageError(`${cmd}: --${k} is required`, cmd);
    if (flags[k] === '') throw new UsageError(`${cmd}: --${k} must not be empty`, cmd);
  }
  let protocol: string | number = 'TCP';
  if (flags.protocol !== undefined) {
    const p = flags.protocol;
    if (/^(tcp|udp|icmp)$/i.test(p)) protocol = p.toUpperCase();
    else if (/^\d{1,3}$/.test(p) && Number(p) <= 255) protocol = Number(p);
    else
      throw new UsageError(
        `${cmd}: --protocol must be TCP, UDP, ICMP or a protocol number 0..255, got "${p}"`,
        cmd,
      );
  }
  const sourcePort = readInt(cmd, 'sport', flags.sport, 0, 65535);
  const destinationPort = readInt(cmd, 'dport', flags.dport, 0, 65535);
  const ttl = readInt(cmd, 'ttl', flags.ttl, 1, 255);
  const ported = protocol === 'TCP' || protocol === 'UDP' || protocol === 6 || protocol === 17;
  if (!ported && (sourcePort !== undefined || destinationPort !== undefined))
    throw new UsageError(
      `${cmd}: --${sourcePort !== undefined ? 'sport' : 'dport'} applies to TCP and UDP, not ${String(protocol)}`,
      cmd,
    );
  return {
    from: flags.from!,
    to: flags.to!,
    protocol,
    ...(sourcePort !== undefined ? { sourcePort } : {}),
    ...(destinationPort !== undefined ? { destinationPort } : {}),
    ...(ttl !== undefined ? { ttl } : {}),
    ...(flags.reply ? { reply: true } : {}),
    ...(flags['all-branches'] ? { allBranches: true } : {}),
  };
}

/** Options of `trace` and `show` that take a value (to find a FILE among the arguments). */
const VALUED = new Set([
  ...Object.entries(OPTION_SPECS)
    .filter(([, o]) => o.type === 'string')
    .map(([k]) => k),
  'proto',
  'at',
  'node',
  'output',
  'o',
]);

/** A FILE argument of `show`/`trace`: one that exists, or a name a scenario or state file has. */
function isViewFile(arg: string): boolean {
  return existsSync(arg) || /\.(ya?ml|json)$/i.test(arg);
}

async function cmdTrace(args: string[], io: CliIo): Promise<number> {
  const file = args.some((a) => a === '-h' || a === '--help') ? undefined : firstPositional(args, VALUED);
  if (file !== undefined && isViewFile(file)) return (await import('./views.js')).cmdTraceFile(args, io);
  const { flags } = parse('trace', args, 0);
  if (flags.help) return write(io.stdout, USAGE.trace).then(() => EXIT_OK);
  const request = traceRequestOf(flags);
  const { TRACE_LEVELS, renderTrace, traceNames } = await import('../render/trace.js');
  const level = flags.level ?? 'detailed';
  if (!(TRACE_LEVELS as readonly string[]).includes(level))
    throw new UsageError(`trace: --level must be detailed, summary or minimal, got "${level}"`, 'trace');
  const format = readFormat('trace', flags);
  const host = await hostFromFlags(hostOptions('trace', flags), flags, io);
  const { traceJson } = await import('../dataplane/trace.js');
  let result;
  try {
    result = host.trace(request);
  } catch (e) {
    if (isHnsError(e)) throw new CommandError(`trace: ${e.detail ?? e.message}`);
    throw e;
  }
  const text =
    format === 'json'
      ? JSON.stringify(traceJson(result), null, 2) + '\n'
      : renderTrace(result, level as TraceLevel, { names: traceNames(host) }) + '\n';
  await write(io.stdout, text);
  return EXIT_OK;
}

async function cmdVersion(args: string[], io: CliIo): Promise<number> {
  const { flags } = parse('version', args, 0);
  if (flags.help) return write(io.stdout, USAGE.version).then(() => EXIT_OK);
  const format = readFormat('version', flags);
  const version = packageVersion();
  const profiles = Object.values(PROFILES);
  if (format === 'json') {
    const doc = {
      hnsim: version,
      defaultProfile: DEFAULT_PROFILE,
      profiles: profiles.map((p) => ({
        name: p.name,
        description: p.description,
        hns: formatVersion(p.version),
        schema: formatVersion(p.schema),
        build: p.build,
      })),
    };
    await write(io.stdout, JSON.stringify(doc, null, 2) + '\n');
    return EXIT_OK;
  }
  const rows = profiles.map((p) => [
    p.name + (p.name === DEFAULT_PROFILE ? ' *' : ''),
    formatVersion(p.version),
    formatVersion(p.schema),
    String(p.build),
    p.description,
  ]);
  const text = [
    `hnsim ${version}`,
    '',
    'Host profiles (--profile NAME, or an HNS version such as 13.1; * = default):',
    table(['Profile', 'HNS', 'Schema', 'Build', 'Description'], rows, { color: useColor(io) }),
    '',
  ].join('\n');
  await write(io.stdout, text);
  return EXIT_OK;
}

function isCommand(s: string): s is Command {
  return (COMMANDS as readonly string[]).includes(s);
}

/** Run the CLI; resolves to the exit code. Never throws for bad input. */
export async function main(argv: readonly string[], io: CliIo = defaultIo()): Promise<number> {
  const [first, ...rest] = argv;
  try {
    if (first === undefined || first === '-h' || first === '--help') {
      await write(io.stdout, MAIN_USAGE);
      return EXIT_OK;
    }
    if (first === '-V' || first === '--version') return await cmdVersion(rest, io);
    if (first.startsWith('-')) throw new UsageError(`unknown option "${first}"`);
    if (!isCommand(first)) throw new UsageError(`unknown command "${first}"`);
    switch (first) {
      case 'help': {
        const topic = rest[0];
        if (topic === undefined) {
          await write(io.stdout, MAIN_USAGE);
          return EXIT_OK;
        }
        if (!isCommand(topic) || topic === 'help') throw new UsageError(`help: unknown command "${topic}"`);
        await write(io.stdout, USAGE[topic]);
        return EXIT_OK;
      }
      case 'quickstart':
        return await cmdQuickstart(rest, io);
      case 'run':
        return await (await import('./run.js')).cmdRun(rest, io);
      case 'serve':
        return await cmdServe(rest, io);
      case 'show':
        return await cmdShow(rest, io);
      case 'trace':
        return await cmdTrace(rest, io);
      case 'explain':
        return await (await import('./views.js')).cmdExplain(rest, io);
      case 'diagram':
        return await (await import('./views.js')).cmdDiagram(rest, io);
      case 'cni':
        return await cmdCni(rest, io);
      case 'call':
        return await cmdCall(rest, io);
      case 'wine':
        return await cmdWine(rest, io, wineNode);
      case 'version':
        return await cmdVersion(rest, io);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      await write(io.stderr, `hnsim: ${e.message} (see 'hnsim ${e.command ? e.command + ' ' : ''}--help')\n`);
      return EXIT_USAGE;
    }
    if (e instanceof CommandError) {
      await write(io.stderr, `hnsim: ${e.message}\n`);
      return EXIT_FAILURE;
    }
    const what = isHnsError(e) ? `${e.code}: ${e.message}` : e instanceof Error ? e.message : String(e);
    await write(io.stderr, `hnsim: ${what}\n`);
    return EXIT_FAILURE;
  }
}
