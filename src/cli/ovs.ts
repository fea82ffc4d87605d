/**
 * `hnsim ovs`: Open vSwitch's own commands on a state file's node (src/host/ovs.ts) — `ovs-vsctl`,
 * `ovs-ofctl`, `ovs-appctl ofproto/trace` — with their output and exit status, plus starting and
 * stopping ovs-vswitchd. The node (its OVS database, flows and the vNICs OVS made) is saved back.
 */
import {
  ADAPTER_HELP,
  PROFILE_HELP,
  SEED_HELP,
  EXIT_OK,
  UsageError,
  parse,
  write,
  type CliIo,
} from './args.js';
import { stateHost } from './node.js';
import { OVS_TOOLS, type OvsTool } from '../host/ovs.js';

export const OVS_USAGE = `Usage: hnsim ovs --state FILE [host options] TOOL [ARG]…

Run Open vSwitch's commands on the node of a state file (created from the host options
when missing, written back afterwards): TOOL is one of
  vsctl ARG…     ovs-vsctl: add-br, add-port, set, list, find, show, … (one transaction)
  ofctl ARG…     ovs-ofctl: add-flow, add-flows, del-flows, mod-flows, dump-flows,
                 add-group, del-groups, dump-groups (--strict, --no-stats, --names)
  appctl ARG…    ovs-appctl ofproto/trace [--names] BRIDGE FLOW [--ct-next STATE]…
  start | stop   start ovs-vswitchd (bridges from the database, no flows) or stop it
Everything after TOOL goes to it as written (its own options included). The output and
the exit status are the tool's. ovs-vswitchd's datapath forwards the switch the Open
vSwitch Extension is enabled on (docs/ovs.md "On the node"): with none, bridges have no
datapath (the first example enables it on a Transparent network's switch).

  hnsim call --state node.json HcnCreateNetwork null '{"Name":"t","Type":"Transparent","Policies":[{"Type":"VSwitchExtension","Settings":{"ExtensionID":"583CC151-73EC-4A6A-8B47-578297AD7623","Enable":true}}],"SchemaVersion":{"Major":2,"Minor":0}}'
  hnsim ovs --state node.json start
  hnsim ovs --state node.json vsctl add-br br-int -- add-port br-int Ethernet
  hnsim ovs --state node.json ofctl add-flow br-int 'in_port=LOCAL,actions=output:Ethernet'
  hnsim ovs --state node.json ofctl --no-stats dump-flows br-int
  hnsim ovs --state node.json appctl ofproto/trace br-int in_port=LOCAL,tcp

Options (before TOOL):
  --state FILE      The node's state file (created when missing)
${SEED_HELP}
${PROFILE_HELP}
${ADAPTER_HELP}
  -h, --help        Show this help

Exit status: the tool's (0, 1 on its error; ovs-vsctl 2 for br-exists of a missing
bridge); 2 for a bad command line.
`;

/** Options that take a value (the word after them is not TOOL). */
const VALUED = new Set(['--state', '--seed', '--profile', '--adapter', '--host']);

export async function cmdOvs(args: string[], io: CliIo): Promise<number> {
  // hnsim's options come before TOOL; everything after it is the tool's
  let k = 0;
  while (k < args.length && args[k]!.startsWith('-'))
    k += VALUED.has(args[k]!.split('=')[0]!) && !args[k]!.includes('=') ? 2 : 1;
  const { flags } = parse('ovs', args.slice(0, k), 0);
  if (flags.help) return write(io.stdout, OVS_USAGE).then(() => EXIT_OK);
  const tool = args[k];
  if (tool === undefined) throw new UsageError(`ovs: a TOOL is required (${OVS_TOOLS.join(', ')})`, 'ovs');
  if (!(OVS_TOOLS as readonly string[]).includes(tool))
    throw new UsageError(`ovs: unknown TOOL "${tool}" (${OVS_TOOLS.join(', ')})`, 'ovs');
  const rest = args.slice(k + 1);
  if ((tool === 'start' || tool === 'stop') && rest.length)
    throw new UsageError(`ovs: ${tool} takes no arguments`, 'ovs');
  if (flags.state === undefined) throw new UsageError('ovs: --state FILE is required', 'ovs');
  const node = await stateHost('ovs', flags);
  const ovs = node.host.ovs;
  const r = ovs.run(tool as OvsTool, rest);
  node.save();
  if (r.stdout) await write(io.stdout, r.stdout);
  if (r.stderr) await write(io.stderr, r.stderr);
  return r.status;
}
