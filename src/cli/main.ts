/**
 * The `hnsim` command (DESIGN: cli/, "What a user runs"): the dispatcher. Each command is a module of
 * its own (quickstart, run, serve, show, trace, explain, diagram, cni, call, wine, ovs, analyze,
 * ui, version) with its
 * help text; what they share is src/cli/args.ts (I/O, exit codes, option parsing) and
 * src/cli/node.ts (the host from the host options). A usage error prints one line to stderr and
 * exits 2, a runtime failure exits 1. Help, version and usage errors answer without loading the model.
 *
 *   process.exitCode = await main(process.argv.slice(2));
 */
import { isHnsError } from '../core/errors.js';
import {
  CommandError,
  EXIT_FAILURE,
  EXIT_OK,
  EXIT_USAGE,
  UsageError,
  defaultIo,
  write,
  type CliIo,
} from './args.js';
import { CALL_USAGE, cmdCall } from './call.js';
import { CNI_USAGE, cmdCni } from './cni.js';
import { wineNode } from './node.js';
import { QUICKSTART_USAGE, cmdQuickstart } from './quickstart-command.js';
import { RUN_USAGE_TEXT } from './run.js';
import { SERVE_USAGE, cmdServe } from './serve.js';
import { SHOW_USAGE, cmdShow } from './show.js';
import { TRACE_USAGE, cmdTrace } from './trace.js';
import { VERSION_USAGE, cmdVersion } from './version.js';
import { ANALYZE_USAGE, DIAGRAM_USAGE, EXPLAIN_USAGE } from './views.js';
import { UI_USAGE_TEXT } from './ui.js';
import { cmdWine, WINE_USAGE } from './wine.js';
import { OVS_USAGE } from './ovs.js';

export { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, type CliIo } from './args.js';
export { parseAdapterFlag, profileOfSnapshot } from './node.js';
export { packageVersion } from './version.js';

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
  'ovs',
  'analyze',
  'ui',
  'version',
  'help',
] as const;
type Command = (typeof COMMANDS)[number];

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
               HNSCall, a host method, a fault or clock method, CniExec, CniExecList) on
               a state file's node, or on a running 'hnsim serve --listen' (--connect)
  wine         Run a Windows program (a real CNI plugin .exe, a Go test binary) under Wine
               with hnsim's computenetwork.dll and vmcompute.dll, against a simulated node
  ovs          Run Open vSwitch's commands (ovs-vsctl, ovs-ofctl, ovs-appctl ofproto/trace)
               on a state file's node, whose ovs-vswitchd forwards the OVS-enabled switch
  analyze      Every packet at once, in a scenario or a state file: a port's ACLs (each
               rule's exact packets, shadowed and redundant rules, ties), or reachability
               from a source to a target by disposition; --diff against another file
  ui           A web page to watch HNS attach containers step by step and click a packet
               through the vSwitch (a scenario, a state file or the quick start), served
               on 127.0.0.1 or exported as a static site (--export DIR)
  version      Print the hnsim version and the host profiles it simulates
  help [cmd]   Show this help, or a command's

Options:
  -h, --help      Show help (also after a command: hnsim <command> --help)
  -V, --version   Same as 'hnsim version'

Run 'hnsim <command> --help' for a command's options and exit codes (docs/cli.md has them
all). Colour only on a terminal, never with NO_COLOR set.
`;

const USAGE: Readonly<Record<Exclude<Command, 'help'>, string>> = {
  quickstart: QUICKSTART_USAGE,
  run: RUN_USAGE_TEXT,
  serve: SERVE_USAGE,
  show: SHOW_USAGE,
  trace: TRACE_USAGE,
  explain: EXPLAIN_USAGE,
  diagram: DIAGRAM_USAGE,
  cni: CNI_USAGE,
  call: CALL_USAGE,
  wine: WINE_USAGE,
  ovs: OVS_USAGE,
  analyze: ANALYZE_USAGE,
  ui: UI_USAGE_TEXT,
  version: VERSION_USAGE,
};

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
      case 'ovs':
        return await (await import('./ovs.js')).cmdOvs(rest, io);
      case 'analyze':
        return await (await import('./views.js')).cmdAnalyze(rest, io);
      case 'ui':
        return await (await import('./ui.js')).cmdUi(rest, io);
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
