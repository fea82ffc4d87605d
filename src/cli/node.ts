/**
 * The simulated node a command works on, from its host options: --host (a host document), --seed,
 * --profile and --adapter; a snapshot restored into it (show, trace) or a state file kept between
 * invocations (cni, call, wine). The model loads only when a host is built.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isHnsError } from '../core/errors.js';
import { isJsonObject } from '../core/json.js';
import type { AdapterSpec } from '../hns/adapters.js';
import { profileOfSnapshot, resolveProfile, type HostProfile } from '../hns/versions.js';
import type { Host, HostOptions } from '../host/host.js';
import type { WineHostFlags } from './wine.js';
import {
  CommandError,
  UsageError,
  profileNames,
  readAll,
  readProfile,
  readSeed,
  type CliIo,
  type Flags,
} from './args.js';

export const loadHost = () => import('../host/host.js');
/**
 * The node agents a snapshot may hold (src/host/agents.ts): each kind registers itself when its
 * module loads, so a state file's Azure CNS (`agents.cns`) and Antrea agent (`agents.antrea`) come
 * back with the node.
 */
export const loadNodeAgents = () =>
  Promise.all([import('../plugins/cns/index.js'), import('../plugins/antrea/agent.js')]);

const ADAPTER_KEYS: Readonly<Record<string, keyof AdapterSpec>> = {
  name: 'name',
  ip: 'ipAddress',
  gateway: 'gateway',
  mac: 'macAddress',
  mtu: 'mtu',
  description: 'description',
  spoofing: 'macSpoofing',
};

/** `name=Ethernet,ip=10.0.0.4/24,gateway=10.0.0.1,mac=…,mtu=1500,spoofing` as an AdapterSpec. */
export function parseAdapterFlag(cmd: string, text: string): AdapterSpec {
  const out: Record<string, string | number | boolean> = {};
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    const k = (eq < 0 ? part : part.slice(0, eq)).trim();
    const v = eq < 0 ? undefined : part.slice(eq + 1).trim();
    const key = ADAPTER_KEYS[k];
    if (!key) {
      throw new UsageError(
        `${cmd}: --adapter "${text}": unknown key "${k}" (${Object.keys(ADAPTER_KEYS).join(', ')})`,
        cmd,
      );
    }
    if (key === 'macSpoofing') out[key] = v === undefined || v === 'true';
    else if (v === undefined || v === '')
      throw new UsageError(`${cmd}: --adapter "${text}": ${k} needs a value`, cmd);
    else if (key === 'mtu') {
      if (!/^\d+$/.test(v)) throw new UsageError(`${cmd}: --adapter "${text}": mtu must be a number`, cmd);
      out[key] = Number(v);
    } else out[key] = v;
  }
  if (typeof out.name !== 'string')
    throw new UsageError(`${cmd}: --adapter "${text}": name= is required`, cmd);
  return out as unknown as AdapterSpec;
}

const HOST_DOC_KEYS = [
  'name',
  'seed',
  'profile',
  'adapters',
  'serviceRestart',
  'reboot',
  'defaultNamespace',
  'dataplane',
  'hcs',
  'azure',
  'kubernetes',
];

/**
 * A host document (JSON file) as HostOptions, its profile resolved; unknown keys and wrong types
 * are command errors.
 */
function readHostDocument(path: string): HostOptions {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new CommandError(`cannot read host document ${path}: ${(e as Error).message}`);
  }
  if (!isJsonObject(doc)) throw new CommandError(`host document ${path} must be a JSON object`);
  for (const k of Object.keys(doc)) {
    if (!HOST_DOC_KEYS.includes(k)) {
      throw new CommandError(`host document ${path}: unknown key "${k}" (${HOST_DOC_KEYS.join(', ')})`);
    }
  }
  const bad = (k: string, what: string) => new CommandError(`host document ${path}: ${k} must be ${what}`);
  if (doc.name !== undefined && typeof doc.name !== 'string') throw bad('name', 'a string');
  if (
    doc.seed !== undefined &&
    (typeof doc.seed !== 'number' || !Number.isInteger(doc.seed) || doc.seed < 0 || doc.seed > 0xffffffff)
  )
    throw bad('seed', 'an integer 0..4294967295');
  const profile = typeof doc.profile === 'string' ? resolveProfile(doc.profile) : undefined;
  if (doc.profile !== undefined && !profile) throw bad('profile', `one of ${profileNames} or an HNS version`);
  if (doc.adapters !== undefined && !Array.isArray(doc.adapters)) throw bad('adapters', 'an array');
  for (const k of ['serviceRestart', 'reboot'] as const) {
    if (doc[k] !== undefined && !isJsonObject(doc[k])) throw bad(k, 'an object');
  }
  if (doc.defaultNamespace !== undefined && typeof doc.defaultNamespace !== 'boolean')
    throw bad('defaultNamespace', 'true or false');
  if (doc.dataplane !== undefined && !isJsonObject(doc.dataplane)) throw bad('dataplane', 'an object');
  if (doc.azure !== undefined && (!isJsonObject(doc.azure) || !Array.isArray(doc.azure['nics'])))
    throw bad('azure', 'an object {"nics":[{"adapter","secondaryIps":[…]}]}');
  if (doc.kubernetes !== undefined && !isJsonObject(doc.kubernetes))
    throw bad('kubernetes', 'an object {"url","version","podCIDRs":[…]}');
  if (doc.hcs !== undefined) {
    if (!isJsonObject(doc.hcs)) throw bad('hcs', 'an object');
    const api = doc.hcs['api'];
    if (api !== undefined && api !== 'computecore' && api !== 'vmcompute')
      throw bad('hcs.api', '"computecore" or "vmcompute"');
  }
  return { ...(doc as unknown as HostOptions), ...(profile ? { profile } : {}) };
}

/** Host options from --host, then --seed, --profile and --adapter over it; `profile` as resolved. */
export function hostOptions(cmd: string, flags: Flags): { options: HostOptions; profile?: HostProfile } {
  const base: HostOptions = flags.host !== undefined ? readHostDocument(flags.host) : {};
  const profile = readProfile(cmd, flags) ?? (base.profile as HostProfile | undefined);
  const options: HostOptions = {
    ...base,
    ...(flags.seed !== undefined ? { seed: readSeed(cmd, flags) } : {}),
    ...(profile ? { profile } : {}),
    ...(flags.adapter?.length ? { adapters: flags.adapter.map((a) => parseAdapterFlag(cmd, a)) } : {}),
  };
  return { options, ...(profile ? { profile } : {}) };
}

/** createHost, turning a bad adapter or option (E_INVALIDARG) into a command error. */
export function buildHost(create: (o: HostOptions) => Host, options: HostOptions): Host {
  try {
    return create(options);
  } catch (e) {
    if (isHnsError(e)) throw new CommandError(`cannot build the host: ${e.detail ?? e.message}`);
    throw e;
  }
}

/** The profile a snapshot was taken on (src/hns/versions.ts; the model of the web page uses it too). */
export { profileOfSnapshot };

/**
 * The host `show` and `trace` work on: a fresh one from --host/--seed/--profile/--adapter, with
 * the snapshot of --snapshot restored into it (its HNS version is the profile unless one is given).
 */
export async function hostFromFlags(
  built: ReturnType<typeof hostOptions>,
  flags: Flags,
  io: CliIo,
): Promise<Host> {
  if (flags.snapshot === undefined) return restoredHost(built);
  let text: string;
  try {
    text = flags.snapshot === '-' ? await readAll(io.stdin) : readFileSync(flags.snapshot, 'utf8');
  } catch (e) {
    throw new CommandError(`cannot read snapshot ${flags.snapshot}: ${(e as Error).message}`);
  }
  return restoredHost(built, {
    text,
    what: `snapshot ${flags.snapshot}`,
    notJson: `snapshot ${flags.snapshot} is not JSON`,
  });
}

/**
 * A host from the host options with a snapshot's text restored into it (its HNS version is the
 * profile unless one is given); `what` and `notJson` word the command errors.
 */
async function restoredHost(
  built: ReturnType<typeof hostOptions>,
  source?: { readonly text: string; readonly what: string; readonly notJson: string },
): Promise<Host> {
  let profile = built.profile;
  let snapshot: unknown;
  if (source) {
    try {
      snapshot = JSON.parse(source.text);
    } catch (e) {
      throw new CommandError(`${source.notJson}: ${(e as Error).message}`);
    }
    profile ??= profileOfSnapshot(snapshot);
  }
  const [{ createHost }] = await Promise.all([loadHost(), source ? loadNodeAgents() : undefined]);
  const host = buildHost(createHost, { ...built.options, ...(profile ? { profile } : {}) });
  if (source) {
    try {
      host.restore(snapshot);
    } catch (e) {
      throw new CommandError(`cannot restore ${source.what}: ${(e as Error).message}`);
    }
  }
  return host;
}

/**
 * The node of a state file: restored from it when it exists (its HNS version is the profile unless
 * one is given), else fresh from the host options; `save` writes it back (temp file, then rename).
 */
export async function stateHost(
  cmd: 'cni' | 'call' | 'wine' | 'ovs',
  flags: Flags,
): Promise<{ host: Host; save(): void }> {
  const path = flags.state;
  if (path === undefined) throw new UsageError(`${cmd}: --state FILE is required`, cmd);
  let text: string | undefined;
  if (existsSync(path)) {
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw new CommandError(`cannot read state ${path}: ${(e as Error).message}`);
    }
  }
  const host = await restoredHost(
    hostOptions(cmd, flags),
    text === undefined ? undefined : { text, what: `state ${path}`, notJson: `cannot read state ${path}` },
  );
  return {
    host,
    save() {
      const tmp = `${path}.${process.pid}.tmp`;
      try {
        writeFileSync(tmp, JSON.stringify(host.snapshot()) + '\n');
        renameSync(tmp, path);
      } catch (e) {
        throw new CommandError(`cannot write state ${path}: ${(e as Error).message}`);
      }
    },
  };
}

/**
 * `hnsim wine`'s node (src/cli/wine.ts): a state file's, or a fresh one, from the host flags; a bad
 * flag is a usage error, a state file that cannot be read is `{error}` (wine's exit code 122).
 */
export async function wineNode(
  state: string | undefined,
  hostFlags: WineHostFlags,
): Promise<{ host: Host; save(): void } | { error: string }> {
  const flags: Flags = { ...hostFlags, ...(state !== undefined ? { state } : {}) };
  try {
    if (state !== undefined) return await stateHost('wine', flags);
    return { host: await restoredHost(hostOptions('wine', flags)), save: () => undefined };
  } catch (e) {
    if (e instanceof CommandError) return { error: e.message };
    throw e;
  }
}
