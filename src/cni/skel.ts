/**
 * The plugin skeleton (containernetworking/cni `pkg/skel/skel.go` with `pkg/utils/utils.go`;
 * reference cni-windows.md §1.2): turns an invocation's environment and stdin into `CmdArgs`, checks
 * them in Go's order with Go's messages, dispatches ADD/DEL/CHECK/GC/STATUS/VERSION, and prints any
 * error as the `{"code","msg","details"}` document on stdout with exit code 1; a `GoPanic` ends the
 * invocation as the Go runtime does (exit status 2, the panic on stderr).
 *
 *   export const myPlugin = pluginMain('my-plugin', { add, del }, VERSION_ALL, 'CNI my-plugin v1.0.0');
 */
import {
  CniError,
  CniErrorCode,
  type CniPlugin,
  type ExecOutput,
  type ExecRequest,
  type PluginHost,
  type Writer,
} from './contracts.js';
import type { Json } from '../core/json.js';
import { bytesMemo, field, goDecodeShared, goParseShared, goString, goStruct } from './gojson.js';
import { GoPanic } from './gopanic.js';
import { isGoSpace } from './gostrconv.js';
import { asCniError, decodeVersion, decodeVersionOf, errorText, notePrintedOutput } from './result.js';
import { incompatibleDetails, versionGte, versionInfoText } from './version.js';

/** `skel.CmdArgs`: the environment and stdin of one invocation. */
export interface CmdArgs {
  readonly containerID: string;
  readonly netns: string;
  readonly ifName: string;
  readonly args: string;
  readonly path: string;
  readonly netnsOverride: string;
  readonly stdinData: Uint8Array;
}

/** What a plugin function may use beyond its arguments. */
export interface PluginContext {
  readonly host: PluginHost;
  /** The plugin's whole environment (delegation passes it on with CNI_COMMAND replaced). */
  readonly env: Readonly<Record<string, string>>;
  readonly stdout: Writer;
  readonly stderr: Writer;
  /** 0 for the runtime's call, +1 per delegation. */
  readonly depth: number;
  /** The process's working directory, when the caller gave one (a delegate inherits it). */
  readonly cwd?: string;
}

export type CmdFunc = (args: CmdArgs, ctx: PluginContext) => Promise<void>;

/** `skel.CNIFuncs`. A missing function behaves as Go's nil one: the version check, then success. */
export interface PluginFuncs {
  add: CmdFunc;
  del: CmdFunc;
  check?: CmdFunc;
  status?: CmdFunc;
  gc?: CmdFunc;
}

/**
 * The stdin bytes as text (what a plugin's `json.Unmarshal(args.StdinData, …)` reads): the same
 * string for the same bytes (a plugin and its IPAM plugin get the runner's bytes pod after pod),
 * so readers keyed by the text find it without hashing it again.
 */
export function stdinText(args: CmdArgs): string {
  return stdinTexts(args.stdinData);
}
const stdinTexts = bytesMemo((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8'));

// ─────────────────────────────────────── pkg/utils checks ──────────────────────────────────────

const CNI_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

/** `utils.ValidateContainerID`. */
export function validateContainerID(id: string): CniError | undefined {
  if (id === '') return new CniError(CniErrorCode.UnknownContainer, 'missing containerID');
  if (!CNI_NAME.test(id))
    return new CniError(CniErrorCode.InvalidEnvironmentVariables, 'invalid characters in containerID', id);
  return undefined;
}

/** `utils.ValidateNetworkName` (its empty-name text ends in a colon). */
export function validateNetworkName(name: string): CniError | undefined {
  if (name === '') return new CniError(CniErrorCode.InvalidNetworkConfig, 'missing network name:');
  if (!CNI_NAME.test(name))
    return new CniError(CniErrorCode.InvalidNetworkConfig, 'invalid characters found in network name', name);
  return undefined;
}

/** `utils.ValidateInterfaceName`: 1–15 bytes, not `.`/`..`, no `/`, `:` or white space. */
export function validateInterfaceName(ifName: string): CniError | undefined {
  const bytes = Buffer.byteLength(ifName, 'utf8');
  if (bytes === 0) return new CniError(CniErrorCode.InvalidEnvironmentVariables, 'interface name is empty');
  if (bytes > 15) {
    return new CniError(
      CniErrorCode.InvalidEnvironmentVariables,
      'interface name is too long',
      'interface name should be less than 16 characters',
    );
  }
  if (ifName === '.' || ifName === '..')
    return new CniError(CniErrorCode.InvalidEnvironmentVariables, 'interface name is . or ..');
  for (const ch of ifName) {
    const c = ch.codePointAt(0)!;
    if (c === 0x2f || c === 0x3a || isGoSpace(c)) {
      return new CniError(
        CniErrorCode.InvalidEnvironmentVariables,
        'interface name contains / or : or whitespace characters',
      );
    }
  }
  return undefined;
}

// ─────────────────────────────────────────── dispatch ──────────────────────────────────────────

type Cmd = 'ADD' | 'CHECK' | 'DEL' | 'GC' | 'STATUS';

/** skel's table: which variables each command requires, and which are validated. */
const VARS: readonly { name: string; req: readonly Cmd[]; validate?: (v: string) => CniError | undefined }[] =
  [
    { name: 'CNI_COMMAND', req: ['ADD', 'CHECK', 'DEL', 'GC', 'STATUS'] },
    { name: 'CNI_CONTAINERID', req: ['ADD', 'CHECK', 'DEL'], validate: validateContainerID },
    { name: 'CNI_NETNS', req: ['ADD', 'CHECK'] },
    { name: 'CNI_IFNAME', req: ['ADD', 'CHECK', 'DEL'], validate: validateInterfaceName },
    { name: 'CNI_ARGS', req: [] },
    { name: 'CNI_PATH', req: ['ADD', 'CHECK', 'DEL', 'GC', 'STATUS'] },
    { name: 'CNI_NETNS_OVERRIDE', req: [] },
  ];

const NAME_STRUCT = goStruct('struct { Name string "json:\\"name\\"" }', [field('name', goString)], '');

/**
 * skel's `validateConfig`: stdin must be JSON with a valid `name`. Returns the decoded document
 * when it is valid (the version check decodes `cniVersion` from it rather than parsing again).
 */
export function validateConfig(stdin: Uint8Array): CniError | { readonly doc: Json } {
  let conf: Record<string, unknown>;
  let doc: Json;
  try {
    // (read only: decoded into strings here and by the version check)
    doc = goParseShared(stdin);
    conf = (goDecodeShared(doc, NAME_STRUCT) ?? {}) as Record<string, unknown>;
  } catch (e) {
    return new CniError(
      CniErrorCode.DecodingFailure,
      `error unmarshall network config: ${(e as Error).message}`,
    );
  }
  const name = typeof conf['name'] === 'string' ? conf['name'] : '';
  if (name === '') return new CniError(CniErrorCode.InvalidNetworkConfig, 'missing network name');
  return validateNetworkName(name) ?? { doc };
}

class Buffered implements Writer {
  text = '';
  write(text: string): void {
    this.text += text;
  }
}

const toBytes = (stdin: string | Uint8Array): Uint8Array =>
  typeof stdin === 'string' ? Buffer.from(stdin, 'utf8') : stdin;

/** How a plugin's binary differs from the others where skel has no say. */
export interface PluginMainOptions {
  /**
   * The frame a panic's goroutine trace shows for a command (`ADD`, `DEL`, …); `main.main()` when
   * omitted.
   */
  readonly panicFrame?: (command: string) => string;
}

/**
 * Build a CNI plugin from its command functions, as `skel.PluginMainFuncs` does: `versions` is what
 * VERSION reports and what the exact-string version check accepts; `about` is printed on stderr
 * (with the supported versions) when CNI_COMMAND is unset, and the plugin then exits 0. A `GoPanic`
 * thrown by a command gives exit status 2, no stdout, and the stderr written so far followed by the
 * panic.
 */
export function pluginMain(
  type: string,
  funcs: PluginFuncs,
  versions: readonly string[],
  about: string,
  options: PluginMainOptions = {},
): CniPlugin {
  if (versions.length < 1) throw new Error('programmer error: you must support at least one version');
  const supported = [...versions];
  const panicFrame = options.panicFrame ?? ((): string => 'main.main()');
  return {
    type,
    async exec(host: PluginHost, request: ExecRequest, depth = 0): Promise<ExecOutput> {
      const stdout = new Buffered();
      const stderr = new Buffered();
      const env: Record<string, string> = {};
      const given = request.env;
      for (const k of Object.keys(given)) {
        const v = given[k];
        if (v !== undefined) env[k] = v;
      }
      const ctx: PluginContext = {
        host,
        env,
        stdout,
        stderr,
        depth,
        ...(request.cwd !== undefined ? { cwd: request.cwd } : {}),
      };
      let err: CniError | undefined;
      try {
        err = await dispatch(funcs, supported, about, env, toBytes(request.stdin), ctx);
      } catch (e) {
        if (!(e instanceof GoPanic)) throw e;
        const frame = panicFrame(env['CNI_COMMAND'] ?? '');
        return { exitCode: 2, stdout: '', stderr: stderr.text + e.stderr(frame) };
      }
      if (err) {
        stdout.write(errorText(err));
        return { exitCode: 1, stdout: stdout.text, stderr: stderr.text };
      }
      const out: ExecOutput = { exitCode: 0, stdout: stdout.text, stderr: stderr.text };
      notePrintedOutput(out, stdout);
      return out;
    },
  };
}

/** `dispatcher.getCmdArgsFromEnv`: the missing list, but a failed validation returns at once. */
function cmdArgsFromEnv(
  env: Readonly<Record<string, string>>,
  stdin: Uint8Array,
): [string, CmdArgs, Json | undefined] | CniError {
  const get = (k: string): string => env[k] ?? '';
  const cmd = get('CNI_COMMAND');
  const missing: string[] = [];
  for (const v of VARS) {
    const val = get(v.name);
    const required = (v.req as readonly string[]).includes(cmd);
    if (val === '') {
      if (required || v.name === 'CNI_COMMAND') missing.push(v.name);
    } else if (required && v.validate) {
      const e = v.validate(val);
      if (e) return e;
    }
  }
  if (missing.length > 0) {
    return new CniError(
      CniErrorCode.InvalidEnvironmentVariables,
      `required env variables [${missing.join(',')}] missing`,
    );
  }
  const data = cmd === 'VERSION' ? new Uint8Array() : stdin;
  let doc: Json | undefined;
  if (cmd !== 'VERSION') {
    const v = validateConfig(data);
    if (v instanceof CniError) return v;
    doc = v.doc;
  }
  return [
    cmd,
    {
      containerID: get('CNI_CONTAINERID'),
      netns: get('CNI_NETNS'),
      ifName: get('CNI_IFNAME'),
      args: get('CNI_ARGS'),
      path: get('CNI_PATH'),
      netnsOverride: get('CNI_NETNS_OVERRIDE'),
      stdinData: data,
    },
    doc,
  ];
}

async function dispatch(
  funcs: PluginFuncs,
  supported: readonly string[],
  about: string,
  env: Readonly<Record<string, string>>,
  stdin: Uint8Array,
  ctx: PluginContext,
): Promise<CniError | undefined> {
  const got = cmdArgsFromEnv(env, stdin);
  if (got instanceof CniError) {
    if (
      got.code === CniErrorCode.InvalidEnvironmentVariables &&
      (env['CNI_COMMAND'] ?? '') === '' &&
      about !== ''
    ) {
      ctx.stderr.write(`${about}\n`);
      ctx.stderr.write(`CNI protocol versions supported: ${supported.join(', ')}\n`);
      return undefined;
    }
    return got;
  }
  const [cmd, args, doc] = got;

  const configVersion = (): string | CniError => {
    try {
      // version.ConfigDecoder.Decode(StdinData): the document validateConfig decoded
      return doc !== undefined ? decodeVersionOf(doc) : decodeVersion(args.stdinData);
    } catch (e) {
      return new CniError(CniErrorCode.DecodingFailure, (e as Error).message);
    }
  };

  const checkVersionAndCall = async (fn: CmdFunc | undefined): Promise<CniError | undefined> => {
    const v = configVersion();
    if (v instanceof CniError) return v;
    const details = incompatibleDetails(v, supported);
    if (details !== undefined)
      return new CniError(CniErrorCode.IncompatibleCNIVersion, 'incompatible CNI versions', details);
    if (!fn) return undefined;
    try {
      await fn(args, ctx);
    } catch (e) {
      if (e instanceof GoPanic) throw e;
      return asCniError(e);
    }
    return undefined;
  };

  // CHECK, GC and STATUS: a version floor, then some plugin version ≥ the config's
  const gated = async (
    floor: string,
    name: string,
    fn: CmdFunc | undefined,
  ): Promise<CniError | undefined> => {
    const v = configVersion();
    if (v instanceof CniError) return v;
    try {
      if (!versionGte(v, floor))
        return new CniError(CniErrorCode.IncompatibleCNIVersion, `config version does not allow ${name}`);
      for (const pv of supported) {
        if (versionGte(pv, v)) return await checkVersionAndCall(fn);
      }
    } catch (e) {
      if (e instanceof GoPanic) throw e;
      return new CniError(CniErrorCode.DecodingFailure, (e as Error).message);
    }
    return new CniError(CniErrorCode.IncompatibleCNIVersion, `plugin version does not allow ${name}`);
  };

  switch (cmd) {
    case 'ADD':
      // ns.CheckNetNS is a no-op on Windows (ns_windows.go), so nothing follows the call
      return checkVersionAndCall(funcs.add);
    case 'DEL':
      return checkVersionAndCall(funcs.del);
    case 'CHECK':
      return gated('0.4.0', 'CHECK', funcs.check);
    case 'GC':
      return gated('1.1.0', 'GC', funcs.gc);
    case 'STATUS':
      return gated('1.1.0', 'STATUS', funcs.status);
    case 'VERSION':
      ctx.stdout.write(versionInfoText(supported));
      return undefined;
    default:
      return new CniError(CniErrorCode.InvalidEnvironmentVariables, `unknown CNI_COMMAND: ${cmd}`);
  }
}
