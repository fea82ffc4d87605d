/**
 * `hnsim trace`: one packet through a snapshot's or a fresh host, as ovn-trace does, at its three
 * levels or as JSON. A scenario or state FILE goes to src/cli/views.ts.
 */
import { isHnsError } from '../core/errors.js';
import type { TraceRequest } from '../dataplane/trace.js';
import type { TraceLevel } from '../render/trace.js';
import { firstPositional, TRACE_SCENARIO_USAGE } from './views.js';
import {
  ADAPTER_HELP,
  CommandError,
  EXIT_OK,
  PROFILE_HELP,
  SEED_HELP,
  UsageError,
  VALUED,
  isViewFile,
  parse,
  readFormat,
  readInt,
  write,
  type CliIo,
  type Flags,
} from './args.js';
import { hostFromFlags, hostOptions } from './node.js';

export const TRACE_USAGE = `Usage: hnsim trace --from SOURCE --to TARGET [--protocol TCP|UDP|ICMP|N] [--sport N]
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

  hnsim call --state node.json HcnCreateNetwork null '{"Name":"nat","Type":"NAT"}'
  hnsim call --state node.json HNSCall POST /endpoints/ '{"Name":"pod1","VirtualNetworkName":"nat"}'
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
  --proto P         With FILE: tcp, udp or icmp (the short form of --protocol)
  --port N          With FILE: the destination port (the short form of --dport)
  --at N            With FILE: trace after the set-up and the first N steps of the scenario
                    (default: its end; the final expect block is then skipped)
  --snapshot FILE   Snapshot to trace through (default: a fresh host)
${SEED_HELP}
${PROFILE_HELP.replace('(default', "(default: the snapshot's HNS version, else")}
${ADAPTER_HELP}
  -h, --help        Show this help

Exit status: 0 whatever the disposition, 1 when the trace cannot run (an unknown source,
an unreadable snapshot), 2 for a bad command line.
`;

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

export async function cmdTrace(args: string[], io: CliIo): Promise<number> {
  const file = args.some((a) => a === '-h' || a === '--help') ? undefined : firstPositional(args, VALUED);
  if (file !== undefined && isViewFile(file)) return (await import('./views.js')).cmdTraceFile(args, io);
  const { flags } = parse('trace', args, 0);
  if (flags.help) return write(io.stdout, TRACE_USAGE).then(() => EXIT_OK);
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
