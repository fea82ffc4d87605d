/**
 * `hnsim serve`: one simulated host as JSON-RPC 2.0 (src/api/rpc.ts) on stdin/stdout until EOF, or on
 * a loopback TCP port (--listen) until SIGINT or SIGTERM.
 */
import {
  ADAPTER_HELP,
  CommandError,
  EXIT_OK,
  PROFILE_HELP,
  SEED_HELP,
  parse,
  readLoopback,
  write,
  type CliIo,
} from './args.js';
import { buildHost, hostOptions, loadHost } from './node.js';

export const SERVE_USAGE = `Usage: hnsim serve [--listen ADDR:PORT] [--seed N] [--profile NAME] [--adapter SPEC]…
                   [--host FILE]

Serve one simulated host as JSON-RPC 2.0 on stdin/stdout: one request per line in, one
response per line out, until stdin ends or the process that started hnsim does. A method
is a flat API function (HcnCreateNetwork, HcnQueryEndpointProperties, HNSCall, …) and
"params" its positional arguments; an HNS failure is error -32000 with data {hresult,
name, errorRecord}. Host methods: Snapshot, Restore(snapshot), RestartHns(policy?, with
"downtimeMs"), Reboot(policy?), GetVersion, GetAdapters, ListMethods. CNI:
CniExec({plugin, env, stdin, cwd?}) → {exitCode, stdout, stderr} runs one plugin invocation;
CniExecList({conflist, command, containerId, netns, ifname, args?, capabilityArgs?}) runs
a network config list as libcni does (ADD in order, DEL in reverse, its result cache);
CnsStart({ncs?, multitenancy?, port?}), CnsStop, CnsState run Azure CNS on the node (a
Snapshot carries it: running or not, its NCs and what it assigned); AntreaStart({podCidr,
tunnelType?, trafficEncapMode?, proxyAll?, dnsServers?, dnsSearch?, adapter?}), AntreaStop,
AntreaState run an Antrea agent on the node (a Snapshot carries it too). Analysis, every
packet at once (docs/analysis.md): Analyze({from, to}) → reachability from one to the other
by disposition; Analyze({endpoint}) and AnalyzePort({endpoint}) → that port's ACLs.
Faults and time: FaultFail({method|id|name|path, hresult, times}), FaultDelay({…, ms}),
FaultHang({…}), FaultRelease({rule, one?}), FaultRemove({rule}), FaultList, FaultHeld,
FaultClear, ClockNow, ClockAdvance(ms). Dataplane: Trace({from, to, protocol?,
sourcePort?, destinationPort?, ttl?, reply?, allBranches?}), Send({… without allBranches,
packets?, bytes?}), GetRoutes, AddRoute({destinationPrefix, nextHop?, interfaceAlias?,
metric?}), RemoveRoute(destinationPrefix, nextHop?). Flat calls pass through the fault
rules and are answered as they complete (match responses by id); at end of stdin, held
calls are released and delays elapse, so every request is answered.
Requests without "id" are notifications (no response); batches (arrays) are supported.

  echo '{"jsonrpc":"2.0","id":1,"method":"HcnEnumerateNetworks","params":[]}' | hnsim serve

With --listen ADDR:PORT, the host is served on a TCP port instead, for any number of
connections at once. ADDR is 127.0.0.1, [::1] or localhost: any other address is refused,
since the server has no authentication. Port 0 picks a free port. Once listening, hnsim
prints one line to stdout, the address and port as bound:

  hnsim: listening on 127.0.0.1:PORT        ([::1]:PORT for IPv6)

and serves until SIGINT or SIGTERM (then exit 0); stdin is not read. Started by npm (npx
hnsim, npm exec, npm run), it also ends when npm's shell does: npm passes SIGTERM and
SIGINT to that shell only. Each connection is a session as on stdin: one request per line
(LF or CRLF; a line over 32 MiB is answered -32700 and skipped), answers as calls
complete. Every connection sees the same host and fault rules: a call held on one does not
block the others, and one connection can FaultRelease another's. A connection's end
releases nothing (unlike the end of stdin); every line received is run, its answer dropped
if the client has gone.

  hnsim serve --listen 127.0.0.1:0 --seed 7

Options:
  --listen ADDR:PORT
                    Serve on a loopback TCP port instead of stdin/stdout (above)
${SEED_HELP}
${PROFILE_HELP}
${ADAPTER_HELP}
  -h, --help        Show this help

Exit status: 0 at the end of stdin, of the process that started it, or on SIGINT/SIGTERM;
1 when the host cannot be built or the port cannot be bound (in use);
2 for a bad command line (a non-loopback --listen).
`;

/** How often a server looks whether the process that started it is still there. */
const PARENT_POLL_MS = 500;

/**
 * Call `gone` once the process that started this one has ended (this one was given another parent),
 * polling; returns the function that stops watching. A process already orphaned at start is never
 * reported.
 */
function whenParentGone(gone: () => void): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    gone();
  }, PARENT_POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Whether npm started this process (npx, npm exec, npm run: npm sets npm_lifecycle_event). npm runs
 * the command in a shell and passes SIGTERM and SIGINT to that shell only, which dies without passing
 * them on: the end of the shell is then the only sign that npm was told to stop.
 */
function startedByNpm(io: CliIo): boolean {
  return io.env.npm_lifecycle_event !== undefined;
}

export async function cmdServe(args: string[], io: CliIo): Promise<number> {
  const { flags } = parse('serve', args, 0);
  if (flags.help) return write(io.stdout, SERVE_USAGE).then(() => EXIT_OK);
  const listen = flags.listen === undefined ? undefined : readLoopback('serve', 'listen', flags.listen);
  const { options } = hostOptions('serve', flags);
  const [
    { createHost },
    { serveStdio, serveTcp },
    { cniRpcMethods },
    { wineRegistry },
    { registerFace },
    { analysisRpcMethods },
  ] = await Promise.all([
    loadHost(),
    import('../api/rpc.js'),
    import('../plugins/index.js'),
    import('../wine/plugin.js'),
    import('../wine/sim.js'),
    import('../analysis/rpc.js'),
  ]);
  const host = buildHost(createHost, options);
  // CniExec and CniExecList also run real plugin binaries of this machine under Wine (docs/wine.md)
  const methods = { ...cniRpcMethods(host, wineRegistry(host)), ...analysisRpcMethods(host) };
  if (!listen) {
    // until the end of stdin, or the end of the client that holds it when stdin stays open
    // (npx's shell killed, a client that shares its own stdin): then stop reading, so nothing
    // keeps this process
    let unwatch = (): void => undefined;
    const orphaned = new Promise<void>((resolve) => {
      unwatch = whenParentGone(() => {
        io.stdin.destroy();
        resolve();
      });
    });
    try {
      await Promise.race([serveStdio(host, io.stdin, io.stdout, { methods }), orphaned]);
    } finally {
      unwatch();
    }
    return EXIT_OK;
  }
  let server;
  try {
    server = await serveTcp(host, listen, { methods });
  } catch (e) {
    throw new CommandError(`serve: cannot listen on ${flags.listen}: ${(e as Error).message}`);
  }
  const stopped = new Promise<void>((resolve) => {
    let unwatch = (): void => undefined;
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      unwatch();
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (startedByNpm(io)) unwatch = whenParentGone(stop);
  });
  const shown = server.address.includes(':') ? `[${server.address}]` : server.address;
  registerFace(host, `${shown}:${server.port}`); // a real plugin run by CniExec reaches this host here
  await write(io.stdout, `hnsim: listening on ${shown}:${server.port}\n`);
  await stopped;
  await server.close();
  return EXIT_OK;
}
