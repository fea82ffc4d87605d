/**
 * The reference CNI plugins (DESIGN: plugins/) and the ways to run them: a registry holding all of
 * them, `execPlugin` (what exec'ing a plugin binary does), and the JSON-RPC methods `CniExec` and
 * `CniExecList` that `hnsim serve` and `hnsim call` add to the flat API.
 *
 *   const out = await execPlugin(host, 'win-bridge', { env: { CNI_COMMAND: 'VERSION' }, stdin: '{}' });
 */
import { invalidParams, objectParam, type RpcMethod } from '../api/rpc.js';
import type { Json, JsonObject } from '../core/json.js';
import { isJsonObject } from '../core/json.js';
import type { Host } from '../host/host.js';
import type { CniPlugin, ExecOutput, ExecRequest } from '../cni/contracts.js';
import { pluginHost, type CniHost } from '../cni/host.js';
import { PluginRegistry, splitPathList } from '../cni/registry.js';
import { runList, type CniCommand, type CniListRequest } from '../cni/runner.js';
import { hostLocal } from './host-local/index.js';
import { winBridge } from './win-bridge.js';
import { winOverlay } from './win-overlay.js';
import { nat, sdnbridge, sdnoverlay } from './wcn/index.js';
import { flannel } from './flannel/index.js';
import { azureVnetIpam, azureVnetIpamV6 } from './azure-vnet-ipam/index.js';
import { azureVnet, createAzureVnet } from './azure-vnet/index.js';
import { cnsOf, cnsOptionsFromJson, startCns, type CnsOptions } from './cns/index.js';
import { antrea } from './antrea/cni.js';
import { ANTREA_KIND, AntreaAgent, antreaOf, type AntreaAgentOptions } from './antrea/agent.js';
import { ANTREA_CNI_SOCKET } from './antrea/cniserver.js';
import { antreaOptionsFromJson } from './antrea/state.js';
import { errorMessage, isHnsError } from '../core/errors.js';

export {
  hostLocal,
  winBridge,
  winOverlay,
  sdnbridge,
  sdnoverlay,
  nat,
  flannel,
  azureVnet,
  azureVnetIpam,
  azureVnetIpamV6,
  createAzureVnet,
  antrea,
};

/** containerd's CNI binary directory on Windows (its `bin_dir` default). */
export const DEFAULT_CNI_BIN_DIR = 'C:\\Program Files\\containerd\\cni\\bin';

/** Every reference plugin, in the order the docs list them. */
export const REFERENCE_PLUGINS: readonly CniPlugin[] = [
  hostLocal,
  winBridge,
  winOverlay,
  sdnbridge,
  sdnoverlay,
  nat,
  flannel,
  azureVnet,
  azureVnetIpam,
  azureVnetIpamV6,
  antrea,
];

/**
 * A registry with every reference plugin, found in whichever directory a CNI_PATH names (pass
 * `dirs` to install them in those directories only, so a CNI_PATH elsewhere misses them).
 */
export function referenceRegistry(dirs?: readonly string[]): PluginRegistry {
  const r = new PluginRegistry();
  for (const p of REFERENCE_PLUGINS) r.register(p, dirs);
  return r;
}

/**
 * The plugin named by a type or a binary path: a real binary on this machine when the registry finds
 * one there (`useBinaries`: src/wine/plugin.ts), else the registered plugin of the path's name
 * (`C:\cni\win-bridge.exe` → `win-bridge`).
 */
function pluginNamed(registry: PluginRegistry, name: string): CniPlugin | undefined {
  const real = registry.binary(name);
  if (real) return real;
  const base = name
    .split(/[\\/]/)
    .pop()!
    .replace(/\.exe$/i, '');
  return base === '' ? undefined : registry.plugin(base);
}

/**
 * Run one plugin as a runtime execs its binary: the request's environment and stdin, the plugin's
 * stdout and exit code (a `cni.exec` event at depth 0). An unknown plugin is a TypeError (there is
 * no binary to exec).
 */
export function execPlugin(
  host: Host | CniHost,
  plugin: string,
  request: ExecRequest,
  registry: PluginRegistry = referenceRegistry(),
): Promise<ExecOutput> {
  const found = pluginNamed(registry, plugin);
  if (!found) {
    throw new TypeError(`no CNI plugin "${plugin}" (known: ${registry.types().join(', ')})`);
  }
  const ph = 'run' in host ? host : pluginHost(host, registry);
  return ph.run(found, request, 0);
}

const LIST_COMMANDS: readonly CniCommand[] = ['ADD', 'DEL', 'CHECK', 'GC', 'STATUS'];
const EXEC_KEYS = ['plugin', 'env', 'stdin', 'cwd'];
const LIST_KEYS = [
  'conflist',
  'command',
  'containerId',
  'netns',
  'ifname',
  'args',
  'capabilityArgs',
  'validAttachments',
  'cacheDir',
  'cniPath',
];

const CNS_KEYS: readonly string[] = ['ncs', 'multitenancy', 'port'];
const ANTREA_KEYS: readonly string[] = [
  'podCidr',
  'tunnelType',
  'trafficEncapMode',
  'proxyAll',
  'dnsServers',
  'dnsSearch',
  'adapter',
];

function optString(method: string, o: JsonObject, k: string): string | undefined {
  const v = o[k];
  if (v !== undefined && typeof v !== 'string') throw invalidParams(`${method}: ${k} must be a string`);
  return v;
}

/**
 * `CniExec({plugin, env, stdin, cwd?})` → `{exitCode, stdout, stderr}`: one invocation, as exec'ing
 * the plugin binary with that environment and stdin (in `cwd` on the node's disk, where a plugin
 * keeping state beside it writes). `CniExecList({conflist, command, containerId,
 * netns, ifname?, args?, capabilityArgs?, validAttachments?, cacheDir?, cniPath?})` → the runner's
 * outcome `{ok, result?, error?}` (src/cni/runner.ts runList); `cniPath` defaults to containerd's
 * bin directory. `CnsStart({ncs?, multitenancy?, port?})` → `{port}` starts the node's CNS agent
 * (src/plugins/cns; with no parameter after a `CnsStop`, the same agent again), `CnsStop()`,
 * `CnsState()` → `{running, assigned: {<pod interface>: [addresses]}}`. They work on the host's CNS
 * (`cnsOf`), so a `Restore` (or a state file's node, `hnsim call --state`) brings its CNS with it.
 * `AntreaStart({podCidr, tunnelType?, trafficEncapMode?, proxyAll?, dnsServers?, dnsSearch?,
 * adapter?})` → `{pipe, nodeIp, gatewayIp}` starts an Antrea agent on the node (src/plugins/antrea:
 * its HNS network, bridge and pipeline, its CNI server on `\\.\pipe\cnisock` for the `antrea`
 * binary), `AntreaStop()` stops its CNI server and drops it from the node (and its snapshot),
 * `AntreaState()` → `{running, ...its agents.antrea section}`; the same holds (`antreaOf`).
 */
export function cniRpcMethods(
  host: Host,
  registry: PluginRegistry = referenceRegistry(),
): Record<string, RpcMethod> {
  let ph: CniHost | undefined;
  const node = (): CniHost => (ph ??= pluginHost(host, registry));
  return {
    CniExec: {
      arity: 1,
      async run(params) {
        const m = 'CniExec';
        const o = objectParam(m, params[0], EXEC_KEYS);
        const plugin = optString(m, o, 'plugin');
        if (plugin === undefined) throw invalidParams(`${m}: plugin (a type or a binary path) is required`);
        const stdin = optString(m, o, 'stdin') ?? '';
        const envIn = o['env'] ?? {};
        if (!isJsonObject(envIn)) throw invalidParams(`${m}: env must be an object of strings`);
        const env: Record<string, string> = {};
        for (const [k, v] of Object.entries(envIn)) {
          if (typeof v !== 'string') throw invalidParams(`${m}: env.${k} must be a string`);
          env[k] = v;
        }
        const found = pluginNamed(registry, plugin);
        if (!found) {
          throw invalidParams(`${m}: no CNI plugin "${plugin}" (known: ${registry.types().join(', ')})`);
        }
        const cwd = optString(m, o, 'cwd');
        const out = await node().run(found, { env, stdin, ...(cwd !== undefined ? { cwd } : {}) }, 0);
        return { exitCode: out.exitCode, stdout: out.stdout, stderr: out.stderr };
      },
    },
    CniExecList: {
      arity: 1,
      async run(params) {
        const m = 'CniExecList';
        const o = objectParam(m, params[0], LIST_KEYS);
        const conflist = o['conflist'];
        if (typeof conflist !== 'string' && !isJsonObject(conflist)) {
          throw invalidParams(`${m}: conflist (its text, or the JSON object) is required`);
        }
        const command = o['command'];
        if (typeof command !== 'string' || !LIST_COMMANDS.includes(command as CniCommand)) {
          throw invalidParams(`${m}: command must be one of ${LIST_COMMANDS.join(', ')}`);
        }
        for (const k of ['containerId', 'netns', 'ifname', 'cacheDir']) optString(m, o, k);
        const args = o['args'];
        if (args !== undefined && typeof args !== 'string' && !isJsonObject(args) && !Array.isArray(args)) {
          throw invalidParams(`${m}: args must be "K=V;…", [[K,V],…] or an object`);
        }
        if (
          Array.isArray(args) &&
          !args.every((p) => Array.isArray(p) && p.length === 2 && p.every((x) => typeof x === 'string'))
        ) {
          throw invalidParams(`${m}: args pairs must be [string, string]`);
        }
        if (isJsonObject(args) && !Object.values(args).every((x) => typeof x === 'string')) {
          throw invalidParams(`${m}: args values must be strings`);
        }
        if (o['capabilityArgs'] !== undefined && !isJsonObject(o['capabilityArgs'])) {
          throw invalidParams(`${m}: capabilityArgs must be an object`);
        }
        const va = o['validAttachments'];
        if (
          va !== undefined &&
          (!Array.isArray(va) ||
            !va.every(
              (a) =>
                isJsonObject(a) && typeof a['containerID'] === 'string' && typeof a['ifname'] === 'string',
            ))
        ) {
          throw invalidParams(`${m}: validAttachments must be [{containerID, ifname}, …]`);
        }
        const cniPath = o['cniPath'];
        if (
          cniPath !== undefined &&
          typeof cniPath !== 'string' &&
          !(Array.isArray(cniPath) && cniPath.every((x) => typeof x === 'string'))
        ) {
          throw invalidParams(`${m}: cniPath must be a ";"-separated string or an array of directories`);
        }
        const path =
          cniPath === undefined
            ? [DEFAULT_CNI_BIN_DIR]
            : typeof cniPath === 'string'
              ? splitPathList(cniPath)
              : (cniPath as string[]);
        const request = { ...o, conflist, command } as unknown as CniListRequest;
        const out = await runList(node(), { path }, request);
        return JSON.parse(JSON.stringify(out)) as Json;
      },
    },
    CnsStart: {
      arity: 1,
      run(params) {
        const m = 'CnsStart';
        const o = params[0] === undefined ? {} : objectParam(m, params[0], CNS_KEYS);
        const programmed =
          o['ncs'] !== undefined || o['multitenancy'] !== undefined || o['port'] !== undefined;
        const cns = cnsOf(host);
        if (cns && !programmed) {
          // the service starts again with what it had (and releases what DELs left meanwhile)
          cns.start();
          return Promise.resolve({ port: cns.port });
        }
        if (cns?.running) throw invalidParams(`${m}: CNS runs on this node already (CnsStop first)`);
        let options: CnsOptions;
        try {
          options = cnsOptionsFromJson(o, m);
        } catch (e) {
          throw invalidParams(isHnsError(e) ? (e.detail ?? e.message) : errorMessage(e));
        }
        try {
          return Promise.resolve({ port: startCns(host, options).port });
        } catch (e) {
          throw invalidParams(`${m}: ${errorMessage(e)}`);
        }
      },
    },
    CnsStop: {
      arity: 0,
      run() {
        const cns = cnsOf(host);
        if (!cns) throw invalidParams('CnsStop: CNS was never started on this node');
        cns.stop();
        return Promise.resolve(null);
      },
    },
    AntreaStart: {
      arity: 1,
      run(params) {
        const m = 'AntreaStart';
        const o = objectParam(m, params[0], ANTREA_KEYS);
        if (antreaOf(host)?.running)
          throw invalidParams(`${m}: an Antrea agent runs on this node already (AntreaStop first)`);
        let agent: AntreaAgent;
        try {
          const options: AntreaAgentOptions = antreaOptionsFromJson(o, m);
          agent = new AntreaAgent(host, options);
        } catch (e) {
          throw invalidParams(isHnsError(e) ? (e.detail ?? e.message) : errorMessage(e));
        }
        // the node's failures (no uplink, HNS refusing the network) as HNS errors
        agent.start();
        return Promise.resolve({ pipe: ANTREA_CNI_SOCKET, nodeIp: agent.nodeIp, gatewayIp: agent.gatewayIp });
      },
    },
    AntreaStop: {
      arity: 0,
      run() {
        if (!antreaOf(host)) throw invalidParams('AntreaStop: no Antrea agent runs on this node');
        host.agents.delete(ANTREA_KIND);
        return Promise.resolve(null);
      },
    },
    AntreaState: {
      arity: 0,
      run() {
        const agent = antreaOf(host);
        return Promise.resolve(agent ? { running: agent.running, ...agent.toState() } : { running: false });
      },
    },
    CnsState: {
      arity: 0,
      run() {
        const cns = cnsOf(host);
        return Promise.resolve({
          running: cns?.running ?? false,
          assigned: Object.fromEntries(cns ? cns.assigned() : []),
        });
      },
    },
  };
}
