/**
 * Network configuration as libcni reads it (containernetworking/cni `libcni/conf.go`, `pkg/types`
 * `PluginConf`; reference cni-windows.md §1.4): conflist parsing with `cniVersions` negotiation and
 * the boolean keys, plugin configs decoded the way Go decodes them (case-insensitive keys, Go's
 * type errors), loading from a directory of the node's disk (`*.conflist` first, then a `.conf` /
 * `.json` up-converted), and `InjectConf` — the per-plugin request with its keys sorted.
 */
import type { FileStore } from '../core/files.js';
import type { Json, JsonObject } from '../core/json.js';
import {
  bytesMemo,
  goDecodeMap,
  goDynamicType,
  GoError,
  goMarshal,
  GoOrdered,
  goParse,
  goStrconvQuote,
  goStructOrder,
  goUnmarshal,
  type GoValue,
} from './gojson.js';
import type { CniDns, CniResult, RuntimeConf } from './contracts.js';
import { resultOwnGoValue } from './result.js';
import { TYPES_PLUGIN_CONF } from './gotypes.js';
import { versionCurrent, versionGt } from './version.js';

/** `types.PluginConf`, the fields libcni itself reads (everything else stays in the bytes). */
export interface PluginConf {
  readonly cniVersion: string;
  readonly name: string;
  readonly type: string;
  readonly capabilities: Readonly<Record<string, boolean>>;
  readonly ipam: { readonly type: string };
  readonly dns: CniDns;
  readonly prevResult?: JsonObject;
  readonly validAttachments?: readonly GCAttachment[];
}

/** `types.GCAttachment`. */
export interface GCAttachment {
  readonly containerID: string;
  readonly ifname: string;
}

/** `libcni.PluginConfig`: the decoded config and the exact bytes a plugin gets on stdin. */
export interface PluginConfig {
  readonly network: PluginConf;
  readonly bytes: Uint8Array;
}

/** `libcni.NetworkConfigList`. */
export interface NetworkConfigList {
  readonly name: string;
  readonly cniVersion: string;
  readonly disableCheck: boolean;
  readonly disableGC: boolean;
  readonly loadOnlyInlinedPlugins: boolean;
  readonly plugins: readonly PluginConfig[];
  readonly bytes: Uint8Array;
}

const toBytes = (b: string | Uint8Array): Uint8Array => (typeof b === 'string' ? Buffer.from(b, 'utf8') : b);
const text = (b: Uint8Array): string => Buffer.from(b).toString('utf8');

/** `NetworkPluginConfFromBytes` (= the deprecated `ConfFromBytes`): one plugin's config. */
export function pluginConfFromBytes(bytes: string | Uint8Array): PluginConfig {
  const b = toBytes(bytes);
  let raw: Record<string, unknown>;
  try {
    raw = (goUnmarshal(b, TYPES_PLUGIN_CONF) ?? {}) as Record<string, unknown>;
  } catch (e) {
    throw new GoError(`error parsing configuration: ${(e as Error).message}`);
  }
  const str = (k: string): string => (typeof raw[k] === 'string' ? (raw[k] as string) : '');
  const type = str('type');
  if (type === '') throw new GoError(`error parsing configuration: missing 'type'`);
  const caps: Record<string, boolean> = {};
  for (const [k, v] of Object.entries((raw['capabilities'] ?? {}) as Record<string, unknown>))
    caps[k] = v === true;
  const ipam = (raw['ipam'] ?? {}) as Record<string, unknown>;
  const dns = (raw['dns'] ?? {}) as Record<string, unknown>;
  const list = (x: unknown): string[] | undefined =>
    Array.isArray(x) && x.length ? x.map((s) => (typeof s === 'string' ? s : '')) : undefined;
  const d: { -readonly [K in keyof CniDns]: CniDns[K] } = {};
  if (list(dns['nameservers'])) d.nameservers = list(dns['nameservers']);
  if (typeof dns['domain'] === 'string' && dns['domain']) d.domain = dns['domain'];
  if (list(dns['search'])) d.search = list(dns['search']);
  if (list(dns['options'])) d.options = list(dns['options']);
  const network: PluginConf = {
    cniVersion: str('cniVersion'),
    name: str('name'),
    type,
    capabilities: caps,
    ipam: { type: typeof ipam['type'] === 'string' ? ipam['type'] : '' },
    dns: d,
    ...(raw['prevResult'] ? { prevResult: raw['prevResult'] as JsonObject } : {}),
    ...(Array.isArray(raw['cni.dev/valid-attachments'])
      ? {
          validAttachments: (raw['cni.dev/valid-attachments'] as (Record<string, string> | undefined)[]).map(
            (a) => ({
              containerID: a?.['containerID'] ?? '',
              ifname: a?.['ifname'] ?? '',
            }),
          ),
        }
      : {}),
  };
  return { network, bytes: b };
}

const LIST_ERR = 'error parsing configuration list';

/**
 * `NetworkConfFromBytes` (= `ConfListFromBytes`): a conflist. The version is the highest of
 * `cniVersions` ∪ {`cniVersion`} not above what libcni implements; `disableCheck`, `disableGC` and
 * `loadOnlyInlinedPlugins` accept booleans or "true"/"false" strings; each plugin is re-marshalled
 * (so its bytes have sorted keys) and parsed as a plugin config.
 */
export function confListFromBytes(bytes: string | Uint8Array): NetworkConfigList {
  const b = toBytes(bytes);
  let rawList: JsonObject | null;
  try {
    rawList = goDecodeMap(goParse(b));
  } catch (e) {
    throw new GoError(`${LIST_ERR}: ${(e as Error).message}`);
  }
  const raw: JsonObject = rawList ?? {};
  const has = (k: string): boolean => Object.prototype.hasOwnProperty.call(raw, k);
  if (!has('name')) throw new GoError(`${LIST_ERR}: no name`);
  const rawName = raw['name'];
  if (typeof rawName !== 'string')
    throw new GoError(`${LIST_ERR}: invalid name type ${goDynamicType(rawName)}`);

  let cniVersion = '';
  if (has('cniVersion')) {
    const rv = raw['cniVersion'];
    if (typeof rv !== 'string')
      throw new GoError(`${LIST_ERR}: invalid cniVersion type ${goDynamicType(rv)}`);
    cniVersion = rv;
  }
  if (has('cniVersions')) {
    const rvs = raw['cniVersions'];
    // Go prints the type of the failed assertion's zero value here
    if (!Array.isArray(rvs)) throw new GoError(`${LIST_ERR}: invalid type for cniVersions: []interface {}`);
    const vs: string[] = [];
    rvs.forEach((rv, i) => {
      if (typeof rv !== 'string') {
        throw new GoError(`${LIST_ERR}: invalid type for cniVersions index ${i}: ${goDynamicType(rv)}`);
      }
      let gt: boolean;
      try {
        gt = versionGt(rv, versionCurrent());
      } catch (e) {
        throw new GoError(
          `${LIST_ERR}: invalid cniVersions entry ${rv} at index ${i}: ${(e as Error).message}`,
        );
      }
      if (!gt) vs.push(rv);
    });
    if (cniVersion !== '') {
      let gt: boolean;
      try {
        gt = versionGt(cniVersion, versionCurrent());
      } catch (e) {
        throw new GoError(`${LIST_ERR}: invalid cniVersion ${cniVersion}: ${(e as Error).message}`);
      }
      if (!gt) vs.push(cniVersion);
    }
    vs.sort((a, b2) => (a === b2 ? 0 : versionGt(a, b2) ? 1 : -1));
    if (vs.length > 0) cniVersion = vs[vs.length - 1]!;
  }

  const readBool = (key: string): boolean => {
    if (!has(key)) return false;
    const v = raw[key];
    if (typeof v === 'boolean') return v;
    if (typeof v !== 'string') throw new GoError(`${LIST_ERR}: invalid type ${goDynamicType(v)} for ${key}`);
    const s = v.toLowerCase();
    if (s === 'false') return false;
    if (s === 'true') return true;
    throw new GoError(`${LIST_ERR}: invalid value ${goStrconvQuote(s)} for ${key}`);
  };
  const disableCheck = readBool('disableCheck');
  const disableGC = readBool('disableGC');
  const loadOnlyInlinedPlugins = readBool('loadOnlyInlinedPlugins');

  const base = { name: rawName, cniVersion, disableCheck, disableGC, loadOnlyInlinedPlugins, bytes: b };
  if (!has('plugins')) {
    if (loadOnlyInlinedPlugins)
      throw new GoError(`${LIST_ERR}: \`loadOnlyInlinedPlugins\` is true, and no 'plugins' key`);
    return { ...base, plugins: [] };
  }
  const plugins = raw['plugins'];
  if (!Array.isArray(plugins))
    throw new GoError(`${LIST_ERR}: invalid 'plugins' type ${goDynamicType(plugins)}`);
  if (plugins.length === 0) throw new GoError(`${LIST_ERR}: no plugins in list`);
  const parsed = plugins.map((conf, i) => {
    const newBytes = goMarshal(conf as GoValue);
    try {
      return pluginConfFromBytes(newBytes);
    } catch (e) {
      throw new GoError(`failed to parse plugin config ${i}: ${(e as Error).message}`);
    }
  });
  return { ...base, plugins: parsed };
}

// ───────────────────────────────────────── from disk ─────────────────────────────────────────

/** `filepath.Ext`: the suffix from the last `.` of the last element. */
function ext(name: string): string {
  const base = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
  const dot = base.lastIndexOf('.');
  return dot < 0 ? '' : base.slice(dot);
}

const joinWin = (dir: string, name: string): string => {
  const d = dir.replace(/\//g, '\\');
  return d.endsWith('\\') ? `${d}${name}` : `${d}\\${name}`;
};
const dirOf = (path: string): string => {
  const p = path.replace(/\//g, '\\');
  const i = p.lastIndexOf('\\');
  return i <= 0 ? (i === 0 ? '\\' : '.') : p.slice(0, i);
};

function readFile(files: FileStore, path: string): Uint8Array {
  const data = files.read(path);
  if (data === undefined) {
    throw new GoError(`error reading ${path}: open ${path}: The system cannot find the file specified.`);
  }
  return Buffer.from(data, 'utf8');
}

/** `ConfFiles`: the files of `dir` (not directories) whose extension is one of `extensions`. */
export function confFiles(files: FileStore, dir: string, extensions: readonly string[]): string[] {
  const out: string[] = [];
  for (const name of files.list(dir)) {
    const path = joinWin(dir, name);
    if (!files.exists(path)) continue; // a directory
    if (extensions.includes(ext(name))) out.push(path);
  }
  return out;
}

/** `NetworkPluginConfsFromFiles`: the `<dir>/<network>/*.conf` plugin configs. */
export function pluginConfsFromFiles(files: FileStore, confDir: string, networkName: string): PluginConfig[] {
  const dir = joinWin(confDir, networkName);
  return confFiles(files, dir, ['.conf']).map((p) => pluginConfFromBytes(readFile(files, p)));
}

/** `NetworkConfFromFile` (= `ConfListFromFile`). */
export function confListFromFile(files: FileStore, filename: string): NetworkConfigList {
  const conf = confListFromBytes(readFile(files, filename));
  let plugins = conf.plugins;
  if (!conf.loadOnlyInlinedPlugins)
    plugins = [...plugins, ...pluginConfsFromFiles(files, dirOf(filename), conf.name)];
  if (plugins.length === 0) throw new GoError('no plugin configs found');
  return { ...conf, plugins };
}

/** `ConfFromFile` (deprecated single-plugin file). */
export function confFromFile(files: FileStore, filename: string): PluginConfig {
  return pluginConfFromBytes(readFile(files, filename));
}

/** `NoConfigsFoundError` / `NotFoundError` texts. */
export const noConfigsFound = (dir: string): string => `no net configurations found in ${dir}`;
export const confNotFound = (dir: string, name: string): string =>
  `no net configuration with name "${name}" in ${dir}`;

class NoConfigsFound extends GoError {}

/** `LoadConf` (deprecated): the first `.conf`/`.json` file (sorted) whose network has `name`. */
export function loadConf(files: FileStore, dir: string, name: string): PluginConfig {
  const list = confFiles(files, dir, ['.conf', '.json']).sort();
  if (list.length === 0) throw new NoConfigsFound(noConfigsFound(dir));
  for (const f of list) {
    const conf = confFromFile(files, f);
    if (conf.network.name === name) return conf;
  }
  throw new GoError(confNotFound(dir, name));
}

/**
 * `LoadNetworkConf` (= `LoadConfList`): the first `*.conflist` (sorted) named `name`, else a
 * single-plugin `.conf`/`.json` of that name up-converted into a list.
 */
export function loadConfList(files: FileStore, dir: string, name: string): NetworkConfigList {
  const lists = confFiles(files, dir, ['.conflist']).sort();
  for (const f of lists) {
    const conf = confListFromFile(files, f);
    if (conf.name === name) return conf;
  }
  let single: PluginConfig;
  try {
    single = loadConf(files, dir, name);
  } catch (e) {
    if (lists.length !== 0 && e instanceof NoConfigsFound) throw new GoError(confNotFound(dir, name));
    throw e;
  }
  return confListFromConf(single);
}

/** `ConfListFromConf`: a single plugin config as a one-plugin list. */
export function confListFromConf(original: PluginConfig): NetworkConfigList {
  const rawConfig = goDecodeMap(goParse(original.bytes)) ?? {};
  return confListFromBytes(
    goMarshal({
      name: original.network.name,
      cniVersion: original.network.cniVersion,
      plugins: [rawConfig],
    } as GoValue),
  );
}

// ──────────────────────────────────────── injection ─────────────────────────────────────────

/**
 * `InjectConf`: the plugin's bytes decoded into a map, `newValues` set on top, marshalled again (so
 * every key is sorted) and parsed as a plugin config. A value is a GoValue: plain objects are maps;
 * a result's Go value (`GoOrdered`) keeps its struct order, as the `types.Result` itself does in Go.
 */
export function injectConf(
  original: PluginConfig,
  newValues: Readonly<Record<string, GoValue | undefined>>,
): PluginConfig {
  let known: KnownBytes;
  try {
    known = knownBytes(original.bytes);
  } catch (e) {
    throw new GoError(`unmarshal existing network bytes: ${(e as Error).message}`);
  }
  for (const k of Object.keys(newValues)) {
    if (k === '') throw new GoError('keys cannot be empty');
    // an untyped nil is refused; a typed nil (a nil slice: `null` here) marshals as null
    if (newValues[k] === undefined) throw new GoError(`key '${k}' value must not be nil`);
  }
  // the same values injected into the same bytes give the same text, so the same config (libcni's
  // list runs inject the list's name and version, and the runtime's capability args — the cluster's
  // DNS for every pod — into each plugin's bytes on every call): the key is the values' own text
  const key = injectedKey(newValues);
  if (key !== undefined) {
    const hit = known.injected.get(key.text);
    if (hit) return hit;
  }
  const out: Record<string, GoValue> = { ...(known.map ?? {}) };
  for (const k of Object.keys(newValues)) out[k] = newValues[k]!;
  const conf = configFromText(goMarshal(out));
  // plain strings are remembered at once; other values once their text was seen twice (frozen)
  if (key !== undefined && (key.plain || Object.isFrozen(conf))) {
    if (known.injected.size >= 16) known.injected.clear();
    known.injected.set(key.text, freezeConfig(conf));
  }
  return conf;
}

/**
 * `pluginConfFromBytes` of text `injectConf` made. The same text comes back call after call (the
 * same runtimeConfig injected into the same config: every pod with the cluster's DNS), so a text
 * seen twice keeps its (frozen) config; one seen once is only remembered as seen.
 */
function configFromText(text: string): PluginConfig {
  const hit = configsByText.get(text);
  if (hit !== undefined) return hit;
  const conf = pluginConfFromBytes(text);
  if (textsSeen.has(text)) {
    if (configsByText.size >= 64) configsByText.clear();
    configsByText.set(text, freezeConfig(conf));
  } else {
    if (textsSeen.size >= 256) textsSeen.clear();
    textsSeen.add(text);
  }
  return conf;
}
const configsByText = new Map<string, PluginConfig>();
const textsSeen = new Set<string>();

/**
 * What this module learnt about a config's bytes: their decoding as a Go map (private to
 * `injectConf`, which only reads it), and the configs made from it by injections. Plugin configs
 * are never written to; the bytes are compared on every use all the same.
 */
interface KnownBytes {
  readonly map: JsonObject | null;
  readonly injected: Map<string, PluginConfig>;
}
const knownBytes = bytesMemo((b): KnownBytes => ({ map: goDecodeMap(goParse(b)), injected: new Map() }));

/**
 * A key for `newValues`: each key (as JSON) and the text Go marshals its value to — what the
 * injected text is made of, so equal keys give equal texts — and whether every value is a string.
 * Undefined when a value cannot be marshalled (the slow path then fails as Go does).
 */
function injectedKey(
  newValues: Readonly<Record<string, GoValue | undefined>>,
): { readonly text: string; readonly plain: boolean } | undefined {
  let text = '';
  let plain = true;
  for (const k of Object.keys(newValues)) {
    const v = newValues[k]!;
    if (typeof v !== 'string') plain = false;
    let marshalled: string;
    try {
      marshalled = goMarshal(v);
    } catch {
      return undefined;
    }
    text += `${JSON.stringify(k)}:${marshalled},`;
  }
  return { text, plain };
}

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
    Object.freeze(v);
  }
  return v;
}

/** A config shared between calls: its decoded form frozen (its bytes are never written to). */
function freezeConfig(conf: PluginConfig): PluginConfig {
  deepFreeze(conf.network);
  return Object.freeze(conf);
}

/**
 * libcni's `buildOneConfig`: `name` and `cniVersion` from the list, `prevResult` (the previous result
 * as it is, not converted), then `runtimeConfig` with the runtime's capability args whose key the
 * plugin's `capabilities` sets to true.
 */
export function buildOneConfig(
  name: string,
  cniVersion: string,
  orig: PluginConfig,
  prevResult: CniResult | undefined,
  rt: RuntimeConf | undefined,
): PluginConfig {
  const inject: Record<string, GoValue> = { name, cniVersion };
  if (prevResult) inject['prevResult'] = resultOwnGoValue(prevResult);
  let conf = injectConf(orig, inject);
  if (rt) conf = injectRuntimeConfig(conf, rt);
  return conf;
}

/** `injectRuntimeConfig`. */
export function injectRuntimeConfig(orig: PluginConfig, rt: RuntimeConf): PluginConfig {
  const rc: Record<string, GoValue> = {};
  const capArgs = rt.capabilityArgs ?? {};
  for (const [capability, supported] of Object.entries(orig.network.capabilities)) {
    if (!supported) continue;
    // the runtime's values are Go structs (go-cni): their fields keep the order given
    if (Object.prototype.hasOwnProperty.call(capArgs, capability))
      rc[capability] = goStructOrder(capArgs[capability]);
  }
  if (Object.keys(rc).length === 0) return orig;
  return injectConf(orig, { runtimeConfig: rc });
}

/** The GC attachments as Go marshals them (`{"containerID","ifname"}` structs). */
export function gcAttachmentsValue(list: readonly GCAttachment[] | undefined): GoValue {
  if (list === undefined) return null;
  return list.map(
    (a) =>
      new GoOrdered([
        ['containerID', a.containerID],
        ['ifname', a.ifname],
      ]),
  );
}

/** The stdin text of a plugin config (what the plugin will read). */
export function configText(conf: PluginConfig): string {
  return text(conf.bytes);
}

/** For JSON-RPC callers: a conflist given as an object is written out as JSON text first. */
export function conflistBytes(conflist: string | Uint8Array | Json): Uint8Array {
  if (typeof conflist === 'string') return Buffer.from(conflist, 'utf8');
  if (conflist instanceof Uint8Array) return conflist;
  return Buffer.from(JSON.stringify(conflist), 'utf8');
}
