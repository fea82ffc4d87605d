/**
 * What every `hnsim` command shares: the I/O it is given, its exit codes and errors (a usage error is
 * one line on stderr and exit 2, a command error exit 1), the option table parsed with node:util
 * parseArgs, the readers of common values (seed, profile, format, integers) and the help lines of
 * the host options.
 */
import { existsSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { DEFAULT_PROFILE, PROFILES, resolveProfile, type HostProfile } from '../hns/versions.js';

export interface CliIo {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  /** Whether stdout is a terminal (colour is used only then, and only without NO_COLOR). */
  readonly isTTY: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
/** No hnsim server answers at --connect (as `hnsim wine --connect`: src/cli/wine.ts WINE_EXIT). */
export const EXIT_UNREACHABLE = 121;

/** A bad command line: reported in one line, exit code 2. */
export class UsageError {
  constructor(
    readonly message: string,
    readonly command?: string,
  ) {}
}

/** A failure while running a valid command (unreadable snapshot, …): exit code 1. */
export class CommandError {
  constructor(readonly message: string) {}
}

export const profileNames = Object.keys(PROFILES).join(', ');

export const SEED_HELP =
  '  --seed N          Seed of every ID and choice the host makes (integer 0..4294967295, default 1)';

export const PROFILE_HELP = `  --profile NAME    Host profile: ${profileNames}, or an HNS version such as 13.1 (default ${DEFAULT_PROFILE})`;

export const ADAPTER_HELP = `  --adapter SPEC    A host network adapter (repeat for several; replaces the default one):
                    name=Ethernet,ip=10.0.0.4/24,gateway=10.0.0.1[,mac=00-0D-3A-12-34-56]
                    [,mtu=1500][,spoofing]. Default: one "Ethernet" with an address,
                    gateway and MAC derived from the seed
  --host FILE       A host document (JSON): {"name","seed","profile","adapters":[{"name",
                    "ipAddress","gateway","macAddress","mtu","macSpoofing"}],"serviceRestart":
                    {…,"downtimeMs"},"reboot":{…},"defaultNamespace","dataplane":{…},
                    "hcs":{"api":"computecore"|"vmcompute",…},"azure":{"nics":[{"adapter",
                    "secondaryIps":[…],"publicIp"}],"compute":{"name","location","vmId",
                    "vmSize",…}},"kubernetes":{"url","version","podCIDRs":[…]}}; flags
                    override it`;

export function defaultIo(): CliIo {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    isTTY: process.stdout.isTTY === true,
    env: process.env,
  };
}

export function write(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(text, (err) => (err ? reject(err) : resolve()));
  });
}

export async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

export interface Flags {
  seed?: string;
  profile?: string;
  format?: string;
  snapshot?: string;
  adapter?: string[];
  host?: string;
  help?: boolean;
  from?: string;
  to?: string;
  protocol?: string;
  sport?: string;
  dport?: string;
  ttl?: string;
  reply?: boolean;
  'all-branches'?: boolean;
  level?: string;
  port?: string;
  state?: string;
  plugin?: string;
  json?: boolean;
  listen?: string;
  trace?: boolean;
  'flat-api'?: boolean;
  connect?: string;
}

const OPTION_SPECS = {
  seed: { type: 'string' },
  profile: { type: 'string' },
  format: { type: 'string' },
  snapshot: { type: 'string' },
  adapter: { type: 'string', multiple: true },
  host: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  from: { type: 'string' },
  to: { type: 'string' },
  protocol: { type: 'string' },
  sport: { type: 'string' },
  port: { type: 'string' },
  dport: { type: 'string' },
  ttl: { type: 'string' },
  reply: { type: 'boolean' },
  'all-branches': { type: 'boolean' },
  level: { type: 'string' },
  state: { type: 'string' },
  plugin: { type: 'string' },
  json: { type: 'boolean' },
  listen: { type: 'string' },
  trace: { type: 'boolean' },
  'flat-api': { type: 'boolean' },
  connect: { type: 'string' },
} as const;

/** The options each command parsed here takes (run, explain, diagram and wine parse their own). */
const ALLOWED = {
  quickstart: ['seed', 'profile', 'format', 'trace', 'flat-api', 'help'],
  serve: ['listen', 'seed', 'profile', 'adapter', 'host', 'help'],
  show: ['snapshot', 'seed', 'profile', 'adapter', 'host', 'format', 'port', 'help'],
  trace: [
    'from',
    'to',
    'protocol',
    'sport',
    'dport',
    'ttl',
    'reply',
    'all-branches',
    'level',
    'format',
    'snapshot',
    'seed',
    'profile',
    'adapter',
    'host',
    'help',
  ],
  cni: ['state', 'plugin', 'seed', 'profile', 'adapter', 'host', 'help'],
  call: ['state', 'connect', 'json', 'seed', 'profile', 'adapter', 'host', 'help'],
  wine: ['seed', 'profile', 'adapter', 'host', 'help'],
  ovs: ['state', 'seed', 'profile', 'adapter', 'host', 'help'],
  version: ['format', 'help'],
} as const satisfies Readonly<Record<string, readonly (keyof Flags)[]>>;

/** A command whose options `parse` knows. */
export type ParsedCommand = keyof typeof ALLOWED;

export function parse(
  cmd: ParsedCommand,
  args: string[],
  maxPositionals: number,
): { flags: Flags; positionals: string[] } {
  const options = Object.fromEntries(ALLOWED[cmd].map((k) => [k, OPTION_SPECS[k]]));
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    const msg = (e as Error).message.split('\n')[0]!.replace(/\. To specify a positional.*$/, '');
    throw new UsageError(`${cmd}: ${msg}`, cmd);
  }
  const flags = parsed.values as Flags;
  if (!flags.help && parsed.positionals.length > maxPositionals) {
    throw new UsageError(`${cmd}: unexpected argument "${parsed.positionals[maxPositionals]}"`, cmd);
  }
  return { flags, positionals: parsed.positionals };
}

export function readSeed(cmd: string, flags: Flags): number {
  if (flags.seed === undefined) return 1;
  if (!/^\d{1,10}$/.test(flags.seed) || Number(flags.seed) > 0xffffffff) {
    throw new UsageError(`${cmd}: --seed must be an integer 0..4294967295, got "${flags.seed}"`, cmd);
  }
  return Number(flags.seed);
}

export function readProfile(cmd: string, flags: Flags): HostProfile | undefined {
  if (flags.profile === undefined) return undefined;
  const p = resolveProfile(flags.profile);
  if (!p) {
    throw new UsageError(
      `${cmd}: unknown --profile "${flags.profile}" (use ${profileNames} or an HNS version like 13.1)`,
      cmd,
    );
  }
  return p;
}

export function readFormat(cmd: string, flags: Flags): 'text' | 'json' {
  const f = flags.format ?? 'text';
  if (f !== 'text' && f !== 'json') {
    throw new UsageError(`${cmd}: --format must be text or json, got "${f}"`, cmd);
  }
  return f;
}

/** An integer flag in `lo..hi`, or undefined when absent; anything else is a usage error. */
export function readInt(
  cmd: string,
  name: string,
  v: string | undefined,
  lo: number,
  hi: number,
): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d{1,10}$/.test(v) || Number(v) < lo || Number(v) > hi)
    throw new UsageError(`${cmd}: --${name} must be an integer ${lo}..${hi}, got "${v}"`, cmd);
  return Number(v);
}

/** Options of `trace` and `show` that take a value (to find a FILE among the arguments). */
export const VALUED = new Set([
  ...Object.entries(OPTION_SPECS)
    .filter(([, o]) => o.type === 'string')
    .map(([k]) => k),
  'proto',
  'at',
  'node',
  'output',
  'o',
]);

/** A FILE argument of `show`/`trace`: one that exists, or a name a scenario or state file has. */
export function isViewFile(arg: string): boolean {
  return existsSync(arg) || /\.(ya?ml|json)$/i.test(arg);
}

/** The hosts `serve --listen` binds to and `call --connect` reaches (src/api/rpc.ts LOOPBACK_HOSTS). */
const LOOPBACK = ['127.0.0.1', '::1', 'localhost'] as const;

/**
 * A loopback `ADDR:PORT` (--listen, --connect): ADDR 127.0.0.1, [::1] or localhost, PORT 0..65535
 * for --listen (0: a free one), 1..65535 for --connect. Anything else, a non-loopback address above
 * all, is a usage error.
 */
export function readLoopback(
  cmd: string,
  flag: 'listen' | 'connect',
  text: string,
): { host: (typeof LOOPBACK)[number]; port: number } {
  const m = /^\[([^\]]*)\]:([^:]*)$/.exec(text) ?? /^([^:[\]]*):([^:]*)$/.exec(text);
  if (!m) {
    throw new UsageError(
      `${cmd}: --${flag} takes ADDR:PORT (127.0.0.1:PORT, [::1]:PORT or localhost:PORT), got "${text}"`,
      cmd,
    );
  }
  const addr = m[1]!.toLowerCase();
  const portText = m[2]!;
  const host = LOOPBACK.find((h) => h === addr);
  if (!host) {
    throw new UsageError(
      `${cmd}: --${flag} ${text}: ${addr === '' ? 'no address' : `${m[1]} is not a loopback address`}; ` +
        'hnsim serves on 127.0.0.1, [::1] or localhost only (the server has no authentication)',
      cmd,
    );
  }
  const lowest = flag === 'listen' ? 0 : 1;
  if (!/^\d{1,5}$/.test(portText) || Number(portText) < lowest || Number(portText) > 65535) {
    throw new UsageError(
      `${cmd}: --${flag} ${text}: the port must be an integer ${lowest}..65535` +
        (flag === 'listen' ? ' (0 picks a free one)' : ''),
      cmd,
    );
  }
  return { host, port: Number(portText) };
}
