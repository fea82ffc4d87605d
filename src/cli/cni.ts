/**
 * `hnsim cni`: one CNI plugin invocation on a state file's node, as a container runtime execs a
 * plugin binary (CNI_* from the environment, the config on stdin, the plugin's stdout and exit code).
 */
import { isJsonObject } from '../core/json.js';
import {
  ADAPTER_HELP,
  EXIT_OK,
  PROFILE_HELP,
  SEED_HELP,
  UsageError,
  parse,
  readAll,
  write,
  type CliIo,
} from './args.js';
import { stateHost } from './node.js';

export const CNI_USAGE = `Usage: hnsim cni --state FILE [--plugin TYPE|PATH] [--seed N] [--profile NAME]
                 [--adapter SPEC]… [--host FILE]

Run one CNI invocation against a simulated node, exactly as a container runtime execs a
plugin binary: the CNI_* variables (CNI_COMMAND, CNI_CONTAINERID, CNI_NETNS, CNI_IFNAME,
CNI_ARGS, CNI_PATH) come from the environment, the network config from stdin; the
plugin's stdout is printed and its exit code returned (0, or 1 with a CNI error document).
The plugin is --plugin, else the "type" of the config. Reference plugins: host-local,
win-bridge, win-overlay, sdnbridge, sdnoverlay, nat, flannel, azure-vnet,
azure-vnet-ipam (on a host document with "azure" NICs) and azure-vnet-ipamv6 (on one with
"kubernetes": the API server holding the node's IPv6 pod CIDR; docs/cni.md), and antrea
(the antrea-cni shim: it calls the node's Antrea agent, which 'hnsim call --state FILE
AntreaStart' starts; without one it answers code 11; docs/antrea.md); a path to an .exe
runs that binary under Wine (docs/wine.md).

The node lives in the state file (a snapshot: HNS objects, compute systems, the node's
disk, where host-local and flannel keep their files, Azure CNS once 'hnsim call --state
FILE CnsStart' started it, an Antrea agent once AntreaStart did): read before the call (a
fresh host from the host options when the file does not exist yet) and written back after
it, so an ADD and a DEL in two commands see one node. Prepare its networks and namespaces with 'hnsim call'
(docs/cni.md shows cbr0-network.json and win-bridge.conf, and azure-vnet through CNS):

  hnsim call --state node.json HcnCreateNetwork null "$(cat cbr0-network.json)"
  hnsim call --state node.json HcnCreateNamespace 0b1ce66e-0000-4000-8000-000000000001 '{}'
  CNI_COMMAND=ADD CNI_CONTAINERID=abc CNI_NETNS=0b1ce66e-0000-4000-8000-000000000001 \\
    CNI_IFNAME=eth0 CNI_PATH='C:\\cni' hnsim cni --state node.json < win-bridge.conf

Options:
  --state FILE      The node's state file (created when missing; required)
  --plugin TYPE|PATH
                    The plugin to run (default: the config's "type"): a reference plugin's
                    type, or the path of a Windows plugin binary (.exe) on this machine,
                    run under Wine against the node (docs/wine.md)
${SEED_HELP}
${PROFILE_HELP}
${ADAPTER_HELP}
  -h, --help        Show this help

Exit status: the plugin's (0 success; 1 failure, its error document on stdout; 2 where the
Go plugin panics, the panic on stderr); 1 with a message on stderr when the state file cannot
be read or written, or the plugin is unknown; 2 for a bad command line.
`;

export async function cmdCni(args: string[], io: CliIo): Promise<number> {
  const { flags } = parse('cni', args, 0);
  if (flags.help) return write(io.stdout, CNI_USAGE).then(() => EXIT_OK);
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
