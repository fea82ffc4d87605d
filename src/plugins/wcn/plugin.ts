/**
 * The windows-container-networking binaries `sdnbridge`, `sdnoverlay` and `nat` (one body,
 * `common/core/core.go` @ b96345f; reference cni-windows.md §4.1): versions 0.2.0, 0.3.0, 0.4.0 and
 * 1.0.0 only, behind libcni v1.1.2's skel — which knows no STATUS or GC, checks the config and
 * CNI_CONTAINERID/CNI_IFNAME after the environment, and reports `cniVersion` 1.0.0 on VERSION. The
 * commands themselves run through this project's `pluginMain`. A Go panic exits 2 with the panic on
 * stderr.
 */
import {
  CniError,
  CniErrorCode,
  type CniPlugin,
  type ExecOutput,
  type ExecRequest,
  type PluginHost,
} from '../../cni/contracts.js';
import { goMarshal, GoOrdered } from '../../cni/gojson.js';
import { errorText } from '../../cni/result.js';
import { pluginMain, validateConfig, validateContainerID, validateInterfaceName } from '../../cni/skel.js';
import { cmdAdd, cmdCheck, cmdDel } from './core.js';

/** `cni.VersionsSupported`: 0.3.1 and 1.1.0 are not in it, so the exact-match check rejects them. */
export const WCN_VERSIONS: readonly string[] = ['0.2.0', '0.3.0', '0.4.0', '1.0.0'];

/** The about string of `cni.Plugin.Execute`. */
export const WCN_ABOUT = 'CNI plugin WinCni';

/** `version.Current()` of libcni v1.1.2, what its VERSION output carries. */
const LIBCNI_1_1_2_CURRENT = '1.0.0';

/** libcni v1.1.2 `getCmdArgsFromEnv`: which variables each command needs. */
const REQUIRED: Readonly<Record<string, readonly string[]>> = {
  ADD: ['CNI_COMMAND', 'CNI_CONTAINERID', 'CNI_NETNS', 'CNI_IFNAME', 'CNI_PATH'],
  CHECK: ['CNI_COMMAND', 'CNI_CONTAINERID', 'CNI_NETNS', 'CNI_IFNAME', 'CNI_PATH'],
  DEL: ['CNI_COMMAND', 'CNI_CONTAINERID', 'CNI_IFNAME', 'CNI_PATH'],
};
const VARS = ['CNI_COMMAND', 'CNI_CONTAINERID', 'CNI_NETNS', 'CNI_IFNAME', 'CNI_ARGS', 'CNI_PATH'];

function failed(err: CniError): ExecOutput {
  return { exitCode: 1, stdout: errorText(err), stderr: '' };
}

/**
 * What libcni v1.1.2's `pluginMain` decides before it dispatches ADD/DEL/CHECK: the about text,
 * VERSION, the environment, config, container ID and interface name checks (in that order) and
 * `unknown CNI_COMMAND` for everything else (STATUS and GC included). Undefined: dispatch.
 */
function skel112Front(request: ExecRequest): ExecOutput | undefined {
  const get = (k: string): string => request.env[k] ?? '';
  const cmd = get('CNI_COMMAND');
  const required = REQUIRED[cmd] ?? [];
  const missing = VARS.filter((v) => get(v) === '' && (required.includes(v) || v === 'CNI_COMMAND'));
  if (missing.length > 0) {
    if (cmd === '') {
      return {
        exitCode: 0,
        stdout: '',
        stderr: `${WCN_ABOUT}\nCNI protocol versions supported: ${WCN_VERSIONS.join(', ')}\n`,
      };
    }
    return failed(
      new CniError(
        CniErrorCode.InvalidEnvironmentVariables,
        `required env variables [${missing.join(',')}] missing`,
      ),
    );
  }
  if (cmd === 'VERSION') {
    const info = new GoOrdered([
      ['cniVersion', LIBCNI_1_1_2_CURRENT],
      ['supportedVersions', [...WCN_VERSIONS]],
    ]);
    return { exitCode: 0, stdout: `${goMarshal(info)}\n`, stderr: '' };
  }
  const stdin = typeof request.stdin === 'string' ? Buffer.from(request.stdin, 'utf8') : request.stdin;
  const conf = validateConfig(stdin);
  const err =
    (conf instanceof CniError ? conf : undefined) ??
    validateContainerID(get('CNI_CONTAINERID')) ??
    validateInterfaceName(get('CNI_IFNAME'));
  if (err) return failed(err);
  if (!(cmd in REQUIRED)) {
    return failed(new CniError(CniErrorCode.InvalidEnvironmentVariables, `unknown CNI_COMMAND: ${cmd}`));
  }
  return undefined;
}

/** One WCN binary: `type` is its file name (the network type comes from the config's `type`). */
function wcnPlugin(type: 'sdnbridge' | 'sdnoverlay' | 'nat'): CniPlugin {
  const inner = pluginMain(type, { add: cmdAdd, del: cmdDel, check: cmdCheck }, WCN_VERSIONS, WCN_ABOUT, {
    panicFrame: () => '(simulated)',
  });
  return {
    type,
    async exec(host: PluginHost, request: ExecRequest, depth = 0): Promise<ExecOutput> {
      return skel112Front(request) ?? inner.exec(host, request, depth);
    },
  };
}

/** `sdnbridge.exe`: usually `type: "sdnbridge"` → an L2Bridge network. */
export const sdnbridge: CniPlugin = wcnPlugin('sdnbridge');
/** `sdnoverlay.exe`: usually `type: "sdnoverlay"` → an Overlay network. */
export const sdnoverlay: CniPlugin = wcnPlugin('sdnoverlay');
/** `nat.exe`: usually `type: "nat"` → a NAT network. */
export const nat: CniPlugin = wcnPlugin('nat');
