/**
 * `hnsim quickstart`: the quick-start scenario as `hnsim run` runs it (what `npm start` runs), or with
 * --flat-api the older one-host walkthrough of the flat API (src/cli/quickstart.ts has both).
 */
import { renderWalkthrough, walkthroughJson } from '../render/narration.js';
import { useColor } from './progress.js';
import {
  EXIT_FAILURE,
  EXIT_OK,
  PROFILE_HELP,
  SEED_HELP,
  UsageError,
  parse,
  readFormat,
  readProfile,
  readSeed,
  write,
  type CliIo,
} from './args.js';

export const QUICKSTART_USAGE = `Usage: hnsim quickstart [--seed N] [--profile NAME] [--format text|json] [--trace]
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
`;

export async function cmdQuickstart(args: string[], io: CliIo): Promise<number> {
  const { flags } = parse('quickstart', args, 0);
  if (flags.help) return write(io.stdout, QUICKSTART_USAGE).then(() => EXIT_OK);
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
