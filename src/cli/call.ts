/**
 * `hnsim call`: one JSON-RPC method of `hnsim serve` (src/api/rpc.ts) on a state file's node, or on
 * a running `hnsim serve --listen` (--connect), its result printed as JSON.
 */
import {
  ADAPTER_HELP,
  EXIT_FAILURE,
  EXIT_OK,
  PROFILE_HELP,
  SEED_HELP,
  EXIT_UNREACHABLE,
  UsageError,
  parse,
  readLoopback,
  write,
  type CliIo,
  type Flags,
} from './args.js';
import { stateHost } from './node.js';

export const CALL_USAGE = `Usage: hnsim call --state FILE METHOD [PARAM]… [--json] [host options]
       hnsim call --connect ADDR:PORT METHOD [PARAM]… [--json]

Call one JSON-RPC method of 'hnsim serve' and print its result as JSON: on the node of a
state file (created from the host options when missing, written back after the call), or
on a running 'hnsim serve --listen' (--connect), whose host every client shares: a shell
prepares it, sets its faults and moves its clock while a program under test uses it. A
PARAM is JSON when it parses as JSON, else a string (so HNSCall POST /networks/ '{…}'
works); --json takes the whole parameter array as one JSON argument instead. Every
method of 'hnsim serve' is here, its CNI ones included: CnsStart starts Azure CNS on the
state file's node, which keeps it (running or stopped, its NCs and assignments) for the
'hnsim cni' runs after it (docs/cni.md shows cns.json); AntreaStart starts an Antrea agent
there, which the file keeps (its pods, peers, Services, policies) for the antrea plugin's
'hnsim cni' runs (docs/antrea.md).

  hnsim call --state node.json HcnCreateNetwork null '{"Name":"nat","Type":"NAT"}'
  hnsim call --state node.json HNSCall GET /networks/ ''
  hnsim call --state node.json ListMethods
  hnsim call --state node.json CnsStart "$(cat cns.json)"
  hnsim call --state node.json AntreaStart '{"podCidr":"10.10.0.0/24"}'
  hnsim call --connect 127.0.0.1:PORT FaultFail '{"method":"HcnCreateEndpoint","hresult":"E_ACCESSDENIED"}'
  hnsim call --connect 127.0.0.1:PORT ClockAdvance 30000

With --connect, the server is first asked GetVersion (answered within 5 s, or exit 121);
the call is then awaited as long as a fault rule holds it.

Options:
  --state FILE      The node's state file (created when missing)
  --connect ADDR:PORT
                    A running 'hnsim serve --listen': 127.0.0.1:PORT, localhost:PORT or
                    [::1]:PORT (one of --state and --connect is required)
  --json            The one argument after METHOD is the JSON array of parameters
${SEED_HELP}
${PROFILE_HELP}
${ADAPTER_HELP}
                    (host options describe a state file's new node: not with --connect)
  -h, --help        Show this help

Exit status: 0 with the result on stdout; 1 with the JSON-RPC error on stderr (an HNS
failure carries its HRESULT); 2 for a bad command line; 121 when no hnsim server answers
at --connect (refused, silent, not hnsim, or gone before answering).
`;

export async function cmdCall(args: string[], io: CliIo): Promise<number> {
  const { flags, positionals } = parse('call', args, Infinity);
  if (flags.help) return write(io.stdout, CALL_USAGE).then(() => EXIT_OK);
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
  if (flags.state === undefined && flags.connect === undefined)
    throw new UsageError('call: --state FILE or --connect ADDR:PORT is required', 'call');
  if (flags.connect !== undefined) return callConnected(flags.connect, method, params, io, hostFlagOf(flags));
  const node = await stateHost('call', flags);
  const [{ RpcServer }, { cniRpcMethods }, { wineRegistry }, { analysisRpcMethods }] = await Promise.all([
    import('../api/rpc.js'),
    import('../plugins/index.js'),
    import('../wine/plugin.js'),
    import('../analysis/rpc.js'),
  ]);
  const server = new RpcServer(node.host, {
    methods: { ...cniRpcMethods(node.host, wineRegistry(node.host)), ...analysisRpcMethods(node.host) },
  });
  const answer = await server.request({ jsonrpc: '2.0', id: 1, method, params });
  node.save();
  return printAnswer(answer, io);
}

/** The first host option given, which --connect refuses (the server's node is used as it is). */
function hostFlagOf(flags: Flags): string | undefined {
  if (flags.state !== undefined) return 'state';
  return (['host', 'seed', 'profile', 'adapter'] as const).find((k) => flags[k] !== undefined);
}

/** `hnsim call --connect`: the call on a running server. */
async function callConnected(
  address: string,
  method: string,
  params: unknown[],
  io: CliIo,
  hostFlag: string | undefined,
): Promise<number> {
  if (hostFlag !== undefined) {
    throw new UsageError(
      hostFlag === 'state'
        ? 'call: --state and --connect exclude each other'
        : `call: --${hostFlag} describes a node built here; with --connect the server's node is used`,
      'call',
    );
  }
  const where = readLoopback('call', 'connect', address);
  const { callServer, ServerUnreachableError } = await import('./rpc-client.js');
  let answer;
  try {
    answer = await callServer(where, method, params);
  } catch (e) {
    if (!(e instanceof ServerUnreachableError)) throw e;
    await write(io.stderr, `hnsim: call: ${e.message}\n`);
    return EXIT_UNREACHABLE;
  }
  return printAnswer(answer, io);
}

/** The result on stdout (exit 0), or the JSON-RPC error on stderr (exit 1). */
async function printAnswer(
  answer: { readonly result?: unknown; readonly error?: unknown } | undefined,
  io: CliIo,
): Promise<number> {
  if (answer && 'error' in answer) {
    await write(io.stderr, JSON.stringify(answer.error, null, 2) + '\n');
    return EXIT_FAILURE;
  }
  await write(io.stdout, JSON.stringify(answer?.result ?? null, null, 2) + '\n');
  return EXIT_OK;
}
