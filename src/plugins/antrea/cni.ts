/**
 * The `antrea` CNI plugin: the antrea-cni shim (antrea-io/antrea @ fc70f2bb70: cmd/antrea-cni/main.go,
 * pkg/cni/client.go, pkg/cni/dial_windows.go). It does no networking: each ADD, DEL and CHECK is sent
 * as a `CniCmdRequest` — container ID, netns, ifname, CNI_ARGS, CNI_PATH and the network
 * configuration as given — over gRPC to the agent's CNI server on the node's named pipe
 * `\\.\pipe\cnisock` (./cniserver.ts), and what the server answers is the outcome: its `cni_result`
 * bytes printed as they are, its error as a CNI error of the same code and message.
 *
 * skel accepts every spec version (`cniversion.All`); the server then checks the version itself. The
 * gRPC failures are mapped as client.go maps them: `Unimplemented` → 202 (incompatible API version),
 * `Unavailable`/`DeadlineExceeded` → 11 (try again later) — what a node whose agent does not serve
 * the pipe gives (grpc-go's dial error around go-winio's `open \\.\pipe\cnisock: The system cannot
 * find the file specified.`) — and any other → 201.
 *
 *   await execPlugin(host, 'antrea', { env: { CNI_COMMAND: 'ADD', … }, stdin: conf });
 */
import { CniError, type PluginHost } from '../../cni/contracts.js';
import { goStrconvQuote } from '../../cni/goencode.js';
import { pluginMain, stdinText, type CmdArgs, type CmdFunc } from '../../cni/skel.js';
import { VERSION_ALL } from '../../cni/version.js';
import { isJsonObject, type Json } from '../../core/json.js';
import { GrpcStatusError, PipeNotFound, type PipeHandler } from '../../host/pipes.js';
import {
  ANTREA_CNI_API_VERSION,
  ANTREA_CNI_SERVICE,
  ANTREA_CNI_SOCKET,
  AntreaCniErrorCode,
} from './cniserver.js';

/**
 * What the binary prints about itself (`Antrea CNI <version.GetFullVersionWithRuntimeInfo()>`): the
 * VERSION file's `v2.8.0-dev` with the mirrored commit, as a Windows build stamps it.
 */
export const ANTREA_CNI_ABOUT = 'Antrea CNI v2.8.0-dev-fc70f2b windows/amd64 go1.26.0';

/** grpc-go's status for an RPC on a connection whose dial failed (`connection error: desc = %q`). */
function dialFailure(err: Error): GrpcStatusError {
  return new GrpcStatusError(
    'Unavailable',
    `connection error: desc = ${goStrconvQuote(`transport: Error while dialing: ${err.message}`)}`,
  );
}

/** `rpcClient`: the pipe's calls (dialing lazily, as grpc.Dial does: the failure comes with the RPC). */
function connect(host: PluginHost): PipeHandler {
  try {
    if (!host.dialPipe) throw new PipeNotFound(ANTREA_CNI_SOCKET);
    return host.dialPipe(ANTREA_CNI_SOCKET);
  } catch (e) {
    if (!(e instanceof PipeNotFound)) throw e;
    return () => {
      throw dialFailure(e);
    };
  }
}

/** client.go `Action.Request`. */
function request(method: 'CmdAdd' | 'CmdDel' | 'CmdCheck'): CmdFunc {
  return (args: CmdArgs, ctx) => {
    const call = connect(ctx.host);
    const cmdRequest: Json = {
      cniArgs: {
        containerId: args.containerID,
        ifname: args.ifName,
        args: args.args,
        netns: args.netns,
        networkConfiguration: stdinText(args),
        path: args.path,
      },
    };
    let resp: Json;
    try {
      resp = call(`/${ANTREA_CNI_SERVICE}/${method}`, cmdRequest);
    } catch (e) {
      if (!(e instanceof GrpcStatusError)) throw e;
      if (e.code === 'Unimplemented')
        throw new CniError(
          AntreaCniErrorCode.INCOMPATIBLE_API_VERSION,
          `incompatible CNI API version between client (antrea-cni) and server (antrea-agent), client is using version ${ANTREA_CNI_API_VERSION}`,
          `service or method unimplemented by gRPC server: ${e.message}`,
        );
      if (e.code === 'Unavailable' || e.code === 'DeadlineExceeded')
        throw new CniError(AntreaCniErrorCode.TRY_AGAIN_LATER, e.message);
      throw new CniError(AntreaCniErrorCode.UNKNOWN_RPC_ERROR, e.message);
    }
    const r = isJsonObject(resp) ? resp : {};
    const error = r['error'];
    if (isJsonObject(error))
      throw new CniError(
        typeof error['code'] === 'number' ? error['code'] : 0,
        typeof error['message'] === 'string' ? error['message'] : '',
      );
    const result = r['cniResult'];
    if (typeof result === 'string' && result !== '') ctx.stdout.write(result);
    return Promise.resolve();
  };
}

/** The `antrea` plugin (its binary `antrea.exe` in the CNI bin directory). */
export const antrea = pluginMain(
  'antrea',
  { add: request('CmdAdd'), del: request('CmdDel'), check: request('CmdCheck') },
  VERSION_ALL,
  ANTREA_CNI_ABOUT,
);
