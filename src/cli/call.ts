/**
 * `hnsim call`: one JSON-RPC method of `hnsim serve` (src/api/rpc.ts) on a state file's node, its
 * result printed as JSON.
 */
import {
  ADAPTER_HELP,
  EXIT_FAILURE,
  EXIT_OK,
  PROFILE_HELP,
  SEED_HELP,
  UsageError,
  parse,
  write,
  type CliIo,
} from './args.js';
import { stateHost } from './node.js';

export const CALL_USAGE = `Usage: hnsim call --state FILE METHOD [PARAM]… [--json] [host options]

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
