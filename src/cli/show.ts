/**
 * `hnsim show`: hnsdiag-like listings of a snapshot's or a fresh host's HNS objects, and `show rules`,
 * the vfpctrl-like listing of its ports' VFP rules. A scenario or state FILE goes to src/cli/views.ts.
 */
import type { PortRules } from '../vswitch/rules.js';
import type { ShowKind } from '../render/objects.js';
import {
  collectListing,
  listingJson,
  renderListing,
  LISTING_KINDS,
  type ListingKind,
} from '../render/listing.js';
import { useColor } from './progress.js';
import { firstPositional, SHOW_SCENARIO_USAGE } from './views.js';
import {
  ADAPTER_HELP,
  EXIT_OK,
  PROFILE_HELP,
  SEED_HELP,
  UsageError,
  VALUED,
  isViewFile,
  parse,
  readFormat,
  write,
  type CliIo,
  type Flags,
} from './args.js';
import { hostFromFlags, hostOptions } from './node.js';

export const SHOW_USAGE = `Usage: hnsim show [KIND] [--snapshot FILE] [--seed N] [--profile NAME] [--adapter SPEC]…
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
  --node NAME       With FILE: only this node (repeat for several)
  --at N            With FILE: after the set-up and the first N steps of the scenario
                    (default: its end; the final expect block is then skipped)
  --snapshot FILE   Snapshot to list (default: a fresh host, which holds its HostDefault namespace)
${SEED_HELP}
${PROFILE_HELP.replace('(default', "(default: the snapshot's HNS version, else")}
${ADAPTER_HELP}
  --format FORMAT   text (default) or json
  -h, --help        Show this help

Exit status: 0 listed; 1 an unreadable snapshot or an unknown --port; 2 bad command line.
`;

/** What `show` lists beyond hnsdiag's kinds (src/render/objects.ts), checked without loading it. */
const OBJECT_KIND_NAMES = ['policies', 'compartments', 'containers'];

export async function cmdShow(args: string[], io: CliIo): Promise<number> {
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
  if (flags.help) return write(io.stdout, SHOW_USAGE).then(() => EXIT_OK);
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
