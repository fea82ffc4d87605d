/**
 * libcni's `CNIConfig` (containernetworking/cni `libcni/api.go`; reference cni-windows.md §1.4): runs
 * a conflist's plugins for a runtime — ADD in order with each result as the next `prevResult`, DEL in
 * reverse with the cached result, CHECK against the cache unless `disableCheck`, GC of stale cached
 * attachments then GC to every plugin, STATUS — and keeps the result cache
 * `<cacheDir>/results/<net>-<cid>-<ifname>` (`{"kind":"cniCacheV1",…}`) on the node's disk. Errors
 * carry libcni's wrapping text (`plugin type="x" failed (add): …`) around the plugin's own error.
 *
 *   const runner = new CniRunner(pluginHost(host, registry), { path: ['C:\\opt\\cni\\bin'] });
 *   const result = await runner.addNetworkList(confListFromBytes(text), { containerId, netns, ifName: 'eth0' });
 */
import type { Json, JsonObject } from '../core/json.js';
import { joinPath } from '../core/files.js';
import {
  CniError,
  CniErrorCode,
  type CniResult,
  type ExecOutput,
  type ExecRequest,
  type PluginHost,
  type RuntimeConf,
} from './contracts.js';
import {
  buildOneConfig,
  conflistBytes,
  confListFromBytes,
  gcAttachmentsValue,
  injectConf,
  type GCAttachment,
  type NetworkConfigList,
  type PluginConf,
  type PluginConfig,
} from './conf.js';
import {
  bytesMemo,
  field,
  goAny,
  GoError,
  goMap,
  goMapOf,
  goMarshal,
  GoOrdered,
  goQuote,
  GoRaw,
  goSlice,
  goStrconvQuote,
  goString,
  goStruct,
  goStructOrder,
  goUnmarshal,
  type GoType,
  type GoValue,
} from './gojson.js';
import type { CniHost } from './host.js';
import { pluginError } from './invoke.js';
import {
  convertResult,
  createFromBytes,
  parsePluginOutput,
  resultJson,
  resultOwnGoValue,
  resultVersion,
} from './result.js';
import { validateContainerID, validateInterfaceName, validateNetworkName } from './skel.js';
import { decodeVersionInfo, versionCurrent, versionGte } from './version.js';

type Runner = (req: ExecRequest) => Promise<ExecOutput>;

/** `libcni.CacheDir`. */
export const DEFAULT_CACHE_DIR = '/var/lib/cni';
/** `libcni.CNICacheV1`. */
export const CNI_CACHE_V1 = 'cniCacheV1';

/** A libcni error: Go's text, wrapping the plugin's `CniError` (or a plain error) as `%w` does. */
export class LibcniError extends Error {
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'LibcniError';
  }
}

/** `fmt.Errorf("<prefix>%w", err)`. */
function wrap(prefix: string, err: unknown): LibcniError {
  return new LibcniError(`${prefix}${errText(err)}`, err);
}

const errText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The innermost `CniError` a libcni error wraps, if a plugin (or a utils check) produced one. */
export function cniErrorOf(err: unknown): CniError | undefined {
  let e: unknown = err;
  for (let i = 0; i < 16 && e !== undefined; i++) {
    if (e instanceof CniError) return e;
    if (e instanceof LibcniError) e = e.cause;
    else if (e instanceof AggregateError) e = e.errors[0];
    else return undefined;
  }
  return undefined;
}

/** `pluginDescription`. */
function pluginDescription(net: PluginConf | undefined): string {
  if (!net) return '<missing>';
  let out = `type=${goStrconvQuote(net.type)}`;
  if (net.name !== '') out += ` name=${goStrconvQuote(net.name)}`;
  return out;
}

/** An attachment found in the cache (`libcni.NetworkAttachment`). */
export interface NetworkAttachment {
  readonly containerId: string;
  readonly network: string;
  readonly ifName: string;
  readonly config: Uint8Array;
  readonly netns: string;
  readonly cniArgs?: readonly (readonly [string, string])[];
  readonly capabilityArgs?: Readonly<Record<string, unknown>>;
}

export interface CniRunnerOptions {
  /** The plugin directories (`CNIConfig.Path`), joined with `;` into CNI_PATH. */
  readonly path: readonly string[];
  /** The cache directory (default: the RuntimeConf's, else `/var/lib/cni`). */
  readonly cacheDir?: string;
  /** Environment the runtime process has (`os.Environ()`), under the CNI_* variables. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * The runtime process's working directory, which the plugins it execs start in (containerd as a
   * Windows service: `C:\Windows\System32`; dockershim under aks-engine: `C:\k`); unset, plugins
   * see none (their own default).
   */
  readonly cwd?: string;
}

/** Go's `[]byte` JSON form: standard base64 with padding. */
const BYTES: GoType = {
  k: 'text',
  name: '[]uint8',
  decode: (s) => {
    const bad = s.search(/[^A-Za-z0-9+/=]/);
    if (bad >= 0 || s.length % 4 !== 0 || /=[^=]/.test(s) || /={3,}$/.test(s)) {
      throw new GoError(`illegal base64 data at input byte ${bad >= 0 ? bad : s.length - (s.length % 4)}`);
    }
    return new Uint8Array(Buffer.from(s, 'base64'));
  },
};

const CACHED_INFO = goStruct('libcni.cachedInfo', [
  field('kind', goString),
  field('containerId', goString),
  field('config', BYTES),
  field('ifName', goString),
  field('networkName', goString),
  field('netns', goString),
  field('cniArgs', goSlice(goSlice(goString))),
  field('capabilityArgs', goMap(goAny)),
  field('result', goMap(goAny)),
]);

interface CachedInfo {
  kind?: string;
  containerId?: string;
  config?: Uint8Array;
  ifName?: string;
  networkName?: string;
  netns?: string;
  cniArgs?: string[][];
  capabilityArgs?: Record<string, Json>;
  result?: JsonObject;
}

function readCachedInfo(data: string): CachedInfo {
  return (goUnmarshal(data, CACHED_INFO) ?? {}) as CachedInfo;
}

const pairs = (a: readonly (readonly string[])[] | undefined): [string, string][] | undefined =>
  a?.map((p): [string, string] => [p[0] ?? '', p[1] ?? '']);

/** `invoke.Args.AsEnv`'s `stringify` of CNI_ARGS pairs. */
export function cniArgsString(args: readonly (readonly [string, string])[] | undefined): string {
  return (args ?? []).map(([k, v]) => `${k}=${v}`).join(';');
}

/**
 * `config` as the cache holds it (Go's `[]byte`: base64, quoted): the same list's bytes for every
 * pod, so the text is kept per array while its bytes stay the same.
 */
const configText = bytesMemo((config): GoRaw => {
  const base64 = Buffer.from(config.buffer, config.byteOffset, config.byteLength).toString('base64');
  return new GoRaw(goQuote(base64), true);
});

/** libcni's `CNIConfig`: one runtime's view of the node's plugins and its result cache. */
export class CniRunner {
  readonly #host: PluginHost;
  readonly #path: readonly string[];
  readonly #cacheDir: string;
  readonly #env: Readonly<Record<string, string>>;
  readonly #cwd: string | undefined;

  constructor(host: PluginHost, options: CniRunnerOptions) {
    this.#host = host;
    this.#path = [...options.path];
    this.#cacheDir = options.cacheDir ?? '';
    this.#env = options.env ?? {};
    this.#cwd = options.cwd;
  }

  get path(): readonly string[] {
    return this.#path;
  }

  // ───────────────────────────────────── exec plumbing ─────────────────────────────────────

  /**
   * `exec.FindInPath(type, c.Path)` now (libcni looks the plugin up before anything else), when the
   * host can; otherwise the host's `exec` finds it through CNI_PATH (the same list) when it runs.
   */
  #find(type: string): Runner {
    const h = this.#host as Partial<CniHost>;
    if (typeof h.find === 'function' && typeof h.run === 'function') {
      const found = h.find(type, this.#path);
      return (req) => h.run!(found.plugin, req, 0);
    }
    return (req) => this.#host.exec(type, req, 0);
  }

  /** `c.args(action, rt).AsEnv()`. */
  #env4(action: string, rt: RuntimeConf): Record<string, string> {
    return {
      ...this.#env,
      CNI_COMMAND: action,
      CNI_CONTAINERID: rt.containerId,
      CNI_NETNS: rt.netns,
      CNI_ARGS: cniArgsString(rt.args),
      CNI_IFNAME: rt.ifName,
      CNI_PATH: this.#path.join(';'),
    };
  }

  /** `ExecPluginWithoutResult`. */
  async #execNoResult(
    run: Runner,
    bytes: Uint8Array,
    env: Record<string, string>,
    rt?: RuntimeConf,
  ): Promise<ExecOutput> {
    const cwd = this.#cwd ?? rt?.cwd;
    const out = await run({ env, stdin: bytes, ...(cwd !== undefined ? { cwd } : {}) });
    if (out.exitCode !== 0) throw pluginError(out);
    return out;
  }

  /** `ExecPluginWithResult`. */
  async #execWithResult(
    run: Runner,
    bytes: Uint8Array,
    env: Record<string, string>,
    rt: RuntimeConf,
  ): Promise<CniResult> {
    const out = await this.#execNoResult(run, bytes, env, rt);
    return parsePluginOutput(out.stdout, bytes, out);
  }

  // ─────────────────────────────────────────── cache ─────────────────────────────────────────

  #cacheDirFor(rt: RuntimeConf | undefined): string {
    if (this.#cacheDir !== '') return this.#cacheDir;
    if (rt?.cacheDir) return rt.cacheDir;
    return DEFAULT_CACHE_DIR;
  }

  /** `getCacheFilePath`. */
  cacheFilePath(netName: string, rt: RuntimeConf): string {
    if (netName === '' || rt.containerId === '' || rt.ifName === '') {
      throw new GoError(
        `cache file path requires network name (${goStrconvQuote(netName)}), container ID (${goStrconvQuote(rt.containerId)}), and interface name (${goStrconvQuote(rt.ifName)})`,
      );
    }
    return joinPath(this.#cacheDirFor(rt), 'results', `${netName}-${rt.containerId}-${rt.ifName}`);
  }

  /** `cacheAdd`: the cache document, marshalled as Go marshals `cachedInfo` (compact). */
  #cacheAdd(result: CniResult | undefined, config: Uint8Array, netName: string, rt: RuntimeConf): void {
    const e: [string, GoValue][] = [
      ['kind', CNI_CACHE_V1],
      ['containerId', rt.containerId],
      ['config', configText(config)],
      ['ifName', rt.ifName],
      ['networkName', netName],
    ];
    if (rt.netns) e.push(['netns', rt.netns]);
    if (rt.args?.length) e.push(['cniArgs', rt.args.map((p) => [p[0], p[1]])]);
    if (rt.capabilityArgs && Object.keys(rt.capabilityArgs).length) {
      // a map (sorted keys) of the runtime's struct values (fields in the order given)
      const caps: Record<string, GoValue> = {};
      for (const [k, v] of Object.entries(rt.capabilityArgs)) caps[k] = goStructOrder(v);
      e.push(['capabilityArgs', caps]);
    }
    // the result goes through json.Marshal then into a map: every key sorted
    if (result) {
      const raw = goMapOf(resultOwnGoValue(result)) as JsonObject | null;
      if (raw && Object.keys(raw).length) e.push(['result', raw as GoValue]);
    }
    const text = goMarshal(new GoOrdered(e));
    this.#host.files.write(this.cacheFilePath(netName, rt), text);
  }

  #cacheDel(netName: string, rt: RuntimeConf): void {
    let path: string;
    try {
      path = this.cacheFilePath(netName, rt);
    } catch {
      return;
    }
    this.#host.files.remove(path);
  }

  /** `getCachedResult`: the cached result converted to `cniVersion`, or undefined when none. */
  #getCachedResult(netName: string, cniVersion: string, rt: RuntimeConf): CniResult | undefined {
    const fname = this.cacheFilePath(netName, rt);
    const data = this.#host.files.read(fname);
    if (data === undefined) return undefined;
    let info: CachedInfo | undefined;
    try {
      info = readCachedInfo(data);
    } catch {
      info = undefined;
    }
    let result: CniResult;
    if (!info || info.kind !== CNI_CACHE_V1) {
      // getLegacyCachedResult: the file is the result itself
      result = createFromBytes(data);
    } else {
      result = createFromBytes(goMarshal((info.result ?? null) as GoValue));
    }
    try {
      return convertResult(result, cniVersion);
    } catch (e) {
      throw new GoError(
        `failed to convert cached result to config version ${goStrconvQuote(cniVersion)}: ${errText(e)}`,
      );
    }
  }

  /** `GetNetworkListCachedResult`. */
  getNetworkListCachedResult(list: NetworkConfigList, rt: RuntimeConf): CniResult | undefined {
    return this.#getCachedResult(list.name, list.cniVersion, rt);
  }

  /** `GetNetworkCachedResult`. */
  getNetworkCachedResult(net: PluginConfig, rt: RuntimeConf): CniResult | undefined {
    return this.#getCachedResult(net.network.name, net.network.cniVersion, rt);
  }

  /** The plan's name for `GetNetworkListCachedResult`. */
  getCachedResult(list: NetworkConfigList, rt: RuntimeConf): CniResult | undefined {
    return this.getNetworkListCachedResult(list, rt);
  }

  /** `getCachedConfig`: the cached config bytes and the runtime conf filled from the cache. */
  #getCachedConfig(name: string, rt: RuntimeConf): { config: Uint8Array; rt: RuntimeConf } | undefined {
    const data = this.#host.files.read(this.cacheFilePath(name, rt));
    if (data === undefined) return undefined;
    let info: CachedInfo;
    try {
      info = readCachedInfo(data);
    } catch (e) {
      throw new GoError(`failed to unmarshal cached network ${goStrconvQuote(name)} config: ${errText(e)}`);
    }
    if (info.kind !== CNI_CACHE_V1) {
      throw new GoError(
        `read cached network ${goStrconvQuote(name)} config has wrong kind: ${info.kind ?? ''}`,
      );
    }
    const newRt: { -readonly [K in keyof RuntimeConf]: RuntimeConf[K] } = { ...rt };
    if (info.cniArgs) newRt.args = pairs(info.cniArgs);
    newRt.capabilityArgs = info.capabilityArgs;
    return { config: info.config ?? new Uint8Array(), rt: newRt };
  }

  /** `GetNetworkListCachedConfig`. */
  getNetworkListCachedConfig(
    list: NetworkConfigList,
    rt: RuntimeConf,
  ): { config: Uint8Array; rt: RuntimeConf } | undefined {
    return this.#getCachedConfig(list.name, rt);
  }

  /** `GetNetworkCachedConfig`. */
  getNetworkCachedConfig(
    net: PluginConfig,
    rt: RuntimeConf,
  ): { config: Uint8Array; rt: RuntimeConf } | undefined {
    return this.#getCachedConfig(net.network.name, rt);
  }

  /** `GetCachedAttachments`: the cache's attachments (of one container when `containerId` is set). */
  getCachedAttachments(containerId = ''): NetworkAttachment[] {
    const dir = joinPath(this.#cacheDirFor(undefined), 'results');
    const out: NetworkAttachment[] = [];
    for (const fname of this.#host.files.list(dir).sort()) {
      if (containerId.length > 0) {
        const part = `-${containerId}-`;
        const pos = fname.indexOf(part);
        if (pos <= 0 || pos + part.length >= fname.length) continue;
      }
      const data = this.#host.files.read(joinPath(dir, fname));
      if (data === undefined) continue;
      let info: CachedInfo;
      try {
        info = readCachedInfo(data);
      } catch {
        continue;
      }
      if (info.kind !== CNI_CACHE_V1) continue;
      if (containerId.length > 0 && info.containerId !== containerId) continue;
      if (!info.ifName || !info.networkName) continue;
      out.push({
        containerId: info.containerId ?? '',
        network: info.networkName,
        ifName: info.ifName,
        config: info.config ?? new Uint8Array(),
        netns: info.netns ?? '',
        ...(info.cniArgs ? { cniArgs: pairs(info.cniArgs) } : {}),
        ...(info.capabilityArgs ? { capabilityArgs: info.capabilityArgs } : {}),
      });
    }
    return out;
  }

  // ─────────────────────────────────────────── ADD ───────────────────────────────────────────

  async #addNetwork(
    name: string,
    cniVersion: string,
    net: PluginConfig,
    prev: CniResult | undefined,
    rt: RuntimeConf,
  ): Promise<CniResult> {
    const run = this.#find(net.network.type);
    const bad =
      validateContainerID(rt.containerId) ?? validateNetworkName(name) ?? validateInterfaceName(rt.ifName);
    if (bad) throw bad;
    const conf = buildOneConfig(name, cniVersion, net, prev, rt);
    return this.#execWithResult(run, conf.bytes, this.#env4('ADD', rt), rt);
  }

  /** `AddNetworkList`: every plugin in order, each result the next one's `prevResult`; then the cache. */
  async addNetworkList(list: NetworkConfigList, rt: RuntimeConf): Promise<CniResult | undefined> {
    let result: CniResult | undefined;
    for (const net of list.plugins) {
      try {
        result = await this.#addNetwork(list.name, list.cniVersion, net, result, rt);
      } catch (e) {
        throw wrap(`plugin ${pluginDescription(net.network)} failed (add): `, e);
      }
    }
    try {
      this.#cacheAdd(result, list.bytes, list.name, rt);
    } catch (e) {
      throw wrap(`failed to set network ${goStrconvQuote(list.name)} cached result: `, e);
    }
    return result;
  }

  /** `AddNetwork`: one plugin config. */
  async addNetwork(net: PluginConfig, rt: RuntimeConf): Promise<CniResult> {
    const result = await this.#addNetwork(net.network.name, net.network.cniVersion, net, undefined, rt);
    try {
      this.#cacheAdd(result, net.bytes, net.network.name, rt);
    } catch (e) {
      throw wrap(`failed to set network ${goStrconvQuote(net.network.name)} cached result: `, e);
    }
    return result;
  }

  // ────────────────────────────────────────── CHECK ──────────────────────────────────────────

  /** libcni's `checkNetwork` / `delNetwork`: one plugin run with the cached result as prevResult. */
  async #runNoResult(
    command: 'CHECK' | 'DEL',
    name: string,
    cniVersion: string,
    net: PluginConfig,
    prev: CniResult | undefined,
    rt: RuntimeConf,
  ): Promise<void> {
    const run = this.#find(net.network.type);
    const conf = buildOneConfig(name, cniVersion, net, prev, rt);
    await this.#execNoResult(run, conf.bytes, this.#env4(command, rt), rt);
  }

  /** `getCachedResult` for CHECK, its error wrapped as CheckNetwork(List) wraps it. */
  #cachedForCheck(name: string, cniVersion: string, rt: RuntimeConf): CniResult | undefined {
    try {
      return this.#getCachedResult(name, cniVersion, rt);
    } catch (e) {
      throw wrap(`failed to get network ${goStrconvQuote(name)} cached result: `, e);
    }
  }

  #checkSupported(version: string): void {
    if (!versionGte(version, '0.4.0')) {
      throw new GoError(
        `configuration version ${goStrconvQuote(version)} does not support the CHECK command`,
      );
    }
  }

  /** `CheckNetworkList`: ≥ 0.4.0, skipped when `disableCheck`, with the cached result. */
  async checkNetworkList(list: NetworkConfigList, rt: RuntimeConf): Promise<void> {
    this.#checkSupported(list.cniVersion);
    if (list.disableCheck) return;
    const cached = this.#cachedForCheck(list.name, list.cniVersion, rt);
    for (const net of list.plugins) {
      await this.#runNoResult('CHECK', list.name, list.cniVersion, net, cached, rt);
    }
  }

  /** `CheckNetwork`. */
  async checkNetwork(net: PluginConfig, rt: RuntimeConf): Promise<void> {
    this.#checkSupported(net.network.cniVersion);
    const cached = this.#cachedForCheck(net.network.name, net.network.cniVersion, rt);
    await this.#runNoResult('CHECK', net.network.name, net.network.cniVersion, net, cached, rt);
  }

  // ─────────────────────────────────────────── DEL ───────────────────────────────────────────

  /** The cached result DEL passes on (≥ 0.4.0); an unreadable cache is deleted and dropped. */
  #cachedForDel(netName: string, cniVersion: string, rt: RuntimeConf): CniResult | undefined {
    if (!versionGte(cniVersion, '0.4.0')) return undefined;
    try {
      return this.#getCachedResult(netName, cniVersion, rt);
    } catch {
      this.#cacheDel(netName, rt);
      return undefined;
    }
  }

  /** `DelNetworkList`: the plugins in reverse; the first error stops; the cache goes after success. */
  async delNetworkList(list: NetworkConfigList, rt: RuntimeConf): Promise<void> {
    const cached = this.#cachedForDel(list.name, list.cniVersion, rt);
    for (let i = list.plugins.length - 1; i >= 0; i--) {
      const net = list.plugins[i]!;
      try {
        await this.#runNoResult('DEL', list.name, list.cniVersion, net, cached, rt);
      } catch (e) {
        throw wrap(`plugin ${pluginDescription(net.network)} failed (delete): `, e);
      }
    }
    this.#cacheDel(list.name, rt);
  }

  /** `DelNetwork`. */
  async delNetwork(net: PluginConfig, rt: RuntimeConf): Promise<void> {
    const cached = this.#cachedForDel(net.network.name, net.network.cniVersion, rt);
    await this.#runNoResult('DEL', net.network.name, net.network.cniVersion, net, cached, rt);
    this.#cacheDel(net.network.name, rt);
  }

  // ──────────────────────────────────────── GC, STATUS ───────────────────────────────────────

  /**
   * `GCNetworkList`: DEL every cached attachment of this network not in `validAttachments` (all of
   * them when `args` is undefined), then for ≥ 1.1.0 send GC to every plugin with
   * `cni.dev/valid-attachments` (and the legacy `cni.dev/attachments`). Errors are joined (`\n`).
   */
  async gcNetworkList(
    list: NetworkConfigList,
    args?: { readonly validAttachments?: readonly GCAttachment[] },
  ): Promise<void> {
    if (list.disableGC) return;
    const cachedAttachments = this.getCachedAttachments('');
    const valid = args
      ? new Set((args.validAttachments ?? []).map((a) => `${a.containerID}\u0000${a.ifname}`))
      : undefined;
    const errs: Error[] = [];
    for (const a of cachedAttachments) {
      if (a.network !== list.name) continue;
      if (valid?.has(`${a.containerId}\u0000${a.ifName}`)) continue;
      const rt: RuntimeConf = {
        containerId: a.containerId,
        netns: a.netns,
        ifName: a.ifName,
        ...(a.cniArgs ? { args: a.cniArgs } : {}),
        ...(a.capabilityArgs ? { capabilityArgs: a.capabilityArgs } : {}),
      };
      try {
        await this.delNetworkList(list, rt);
      } catch (e) {
        errs.push(wrap(`failed to delete stale attachment ${rt.containerId} ${rt.ifName}: `, e));
      }
    }
    let gt = false;
    try {
      gt = versionGte(list.cniVersion, '1.1.0');
    } catch {
      gt = false;
    }
    if (gt) {
      const inject: Record<string, GoValue> = { name: list.name, cniVersion: list.cniVersion };
      if (args) {
        inject['cni.dev/valid-attachments'] = gcAttachmentsValue(args.validAttachments);
        inject['cni.dev/attachments'] = gcAttachmentsValue(args.validAttachments);
      }
      for (const plugin of list.plugins) {
        let conf: PluginConfig;
        try {
          conf = injectConf(plugin, inject);
        } catch (e) {
          errs.push(wrap(`failed to generate configuration to GC plugin ${plugin.network.type}: `, e));
          continue;
        }
        try {
          const run = this.#find(conf.network.type);
          await this.#execNoResult(
            run,
            conf.bytes,
            this.#env4('GC', { containerId: '', netns: '', ifName: '' }),
          );
        } catch (e) {
          errs.push(wrap(`failed to GC plugin ${plugin.network.type}: `, e));
        }
      }
    }
    if (errs.length === 1) throw new LibcniError(errs[0]!.message, errs[0]);
    if (errs.length > 1) {
      throw new LibcniError(
        errs.map((e) => e.message).join('\n'),
        new AggregateError(errs, errs.map((e) => e.message).join('\n')),
      );
    }
  }

  /** `GetStatusNetworkList`: ≥ 1.1.0 only; the first failing plugin's error, unwrapped. */
  async getStatusNetworkList(list: NetworkConfigList): Promise<void> {
    let gt = false;
    try {
      gt = versionGte(list.cniVersion, '1.1.0');
    } catch {
      gt = false;
    }
    if (!gt) return;
    const inject: Record<string, GoValue> = { name: list.name, cniVersion: list.cniVersion };
    for (const plugin of list.plugins) {
      let conf: PluginConfig;
      try {
        conf = injectConf(plugin, inject);
      } catch (e) {
        throw wrap(`failed to generate configuration to get plugin STATUS ${plugin.network.type}: `, e);
      }
      const run = this.#find(conf.network.type);
      await this.#execNoResult(
        run,
        conf.bytes,
        this.#env4('STATUS', { containerId: '', netns: '', ifName: '' }),
      );
    }
  }

  // ───────────────────────────────────── VERSION, validate ───────────────────────────────────

  /** `GetVersionInfo`: the plugin's VERSION answer (a plugin that predates VERSION supports 0.1.0). */
  async getVersionInfo(pluginType: string): Promise<{ cniVersion: string; supportedVersions: string[] }> {
    const run = this.#find(pluginType);
    const env = {
      ...this.#env,
      CNI_COMMAND: 'VERSION',
      CNI_CONTAINERID: '',
      CNI_NETNS: 'dummy',
      CNI_ARGS: '',
      CNI_IFNAME: 'dummy',
      CNI_PATH: 'dummy',
    };
    let out: ExecOutput;
    try {
      out = await this.#execNoResult(
        run,
        Buffer.from(`{"cniVersion":${goStrconvQuote(versionCurrent())}}`),
        env,
      );
    } catch (e) {
      if (errText(e) === 'unknown CNI_COMMAND: VERSION')
        return { cniVersion: versionCurrent(), supportedVersions: ['0.1.0'] };
      throw e;
    }
    return decodeVersionInfo(out.stdout);
  }

  async #validatePlugin(pluginName: string, expectedVersion: string): Promise<void> {
    const want = expectedVersion === '' ? '0.1.0' : expectedVersion;
    const vi = await this.getVersionInfo(pluginName);
    if (!vi.supportedVersions.includes(want)) {
      throw new GoError(`plugin ${pluginName} does not support config version ${goStrconvQuote(want)}`);
    }
  }

  /** `ValidateNetworkList`: every plugin exists and supports the list's version; the capabilities (sorted). */
  async validateNetworkList(list: NetworkConfigList): Promise<string[]> {
    const errs: string[] = [];
    const caps = new Set<string>();
    for (const net of list.plugins) {
      try {
        await this.#validatePlugin(net.network.type, list.cniVersion);
      } catch (e) {
        errs.push(errText(e));
      }
      for (const [c, on] of Object.entries(net.network.capabilities)) if (on) caps.add(c);
    }
    if (errs.length) throw new GoError(`[${errs.join(' ')}]`);
    return [...caps].sort();
  }
}

// ───────────────────────────────────────── JSON-RPC face ───────────────────────────────────────

export type CniCommand = 'ADD' | 'DEL' | 'CHECK' | 'GC' | 'STATUS';

/** One `CniExecList` request: a conflist and the runtime's parameters. */
export interface CniListRequest {
  /** The conflist: its text (as the file holds it) or a JSON object. */
  readonly conflist: string | Json;
  readonly command: CniCommand;
  readonly containerId?: string;
  readonly netns?: string;
  /** Default `eth0` (cnitool's). */
  readonly ifname?: string;
  /** CNI_ARGS: `K=V;K2=V2`, pairs, or an object (its key order kept). */
  readonly args?: string | readonly (readonly [string, string])[] | Readonly<Record<string, string>>;
  readonly capabilityArgs?: Readonly<Record<string, unknown>>;
  /** GC only: the attachments still in use (absent: every cached attachment of the network is stale). */
  readonly validAttachments?: readonly GCAttachment[];
  readonly cacheDir?: string;
}

/** What a `CniExecList` call answers. */
export interface CniListOutcome {
  readonly ok: boolean;
  /** ADD: the final result as the last plugin printed it (its own version, Go's field order). */
  readonly result?: JsonObject;
  /**
   * On failure: `code`/`msg`/`details` of the plugin's error document when a plugin (or one of
   * libcni's utils checks) produced one; otherwise code 7 for an unusable conflist and 999 for any
   * other libcni error, with `msg` the error text. `message` is libcni's whole error text
   * (`plugin type="x" failed (add): …`).
   */
  readonly error?: {
    readonly code: number;
    readonly msg: string;
    readonly details?: string;
    readonly message: string;
  };
}

function argPairs(args: CniListRequest['args']): [string, string][] | undefined {
  if (args === undefined) return undefined;
  if (typeof args === 'string') {
    if (args === '') return [];
    return args.split(';').map((kv): [string, string] => {
      const eq = kv.indexOf('=');
      return eq < 0 ? [kv, ''] : [kv.slice(0, eq), kv.slice(eq + 1)];
    });
  }
  if (Array.isArray(args))
    return (args as readonly (readonly [string, string])[]).map(([k, v]): [string, string] => [k, v]);
  return Object.entries(args as Record<string, string>).map(([k, v]): [string, string] => [k, String(v)]);
}

function outcomeError(e: unknown, fallbackCode: number): NonNullable<CniListOutcome['error']> {
  const message = errText(e);
  const inner = cniErrorOf(e);
  if (inner) {
    return inner.details
      ? { code: inner.code, msg: inner.msg, details: inner.details, message }
      : { code: inner.code, msg: inner.msg, message };
  }
  return { code: fallbackCode, msg: message, message };
}

/**
 * Run one libcni list operation and report it as data (never throws for CNI failures): parse the
 * conflist (`ConfListFromBytes`; a list with no plugins is refused as `NetworkConfFromFile` does),
 * then `AddNetworkList` / `DelNetworkList` / `CheckNetworkList` / `GCNetworkList` /
 * `GetStatusNetworkList`. This is the shape the JSON-RPC `CniExecList` method returns.
 */
export async function runList(
  host: PluginHost,
  options: CniRunnerOptions,
  request: CniListRequest,
): Promise<CniListOutcome> {
  let list: NetworkConfigList;
  try {
    list = confListFromBytes(conflistBytes(request.conflist));
    if (list.plugins.length === 0) throw new GoError('no plugin configs found');
  } catch (e) {
    const msg = errText(e);
    return { ok: false, error: { code: CniErrorCode.InvalidNetworkConfig, msg, message: msg } };
  }
  const runner = new CniRunner(host, options);
  const args = argPairs(request.args);
  const rt: RuntimeConf = {
    containerId: request.containerId ?? '',
    netns: request.netns ?? '',
    ifName: request.ifname ?? 'eth0',
    ...(args ? { args } : {}),
    ...(request.capabilityArgs ? { capabilityArgs: request.capabilityArgs } : {}),
    ...(request.cacheDir ? { cacheDir: request.cacheDir } : {}),
  };
  try {
    switch (request.command) {
      case 'ADD': {
        const result = await runner.addNetworkList(list, rt);
        return result ? { ok: true, result: resultJson(result, resultVersion(result)) } : { ok: true };
      }
      case 'DEL':
        await runner.delNetworkList(list, rt);
        return { ok: true };
      case 'CHECK':
        await runner.checkNetworkList(list, rt);
        return { ok: true };
      case 'GC':
        await runner.gcNetworkList(
          list,
          request.validAttachments ? { validAttachments: request.validAttachments } : undefined,
        );
        return { ok: true };
      case 'STATUS':
        await runner.getStatusNetworkList(list);
        return { ok: true };
      default: {
        const msg = `unknown CNI command ${goStrconvQuote(String(request.command))}`;
        return { ok: false, error: { code: CniErrorCode.InvalidEnvironmentVariables, msg, message: msg } };
      }
    }
  } catch (e) {
    if (!(e instanceof Error)) throw e;
    return { ok: false, error: outcomeError(e, CniErrorCode.Internal) };
  }
}
