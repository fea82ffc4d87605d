/**
 * `hnsim wine -- program.exe [args…]` (issue 10; docs/wine.md): run a Windows program under Wine with
 * hnsim's computenetwork.dll, vmcompute.dll, computecore.dll and iphlpapi.dll in its system32, against a simulated
 * node — a running `hnsim serve --listen` (--connect), a state file's node (--state), or a fresh one —
 * with the caller's environment, stdin and stdout, and its exit code. Works as `go test -exec 'hnsim
 * wine --'`. The Wine machinery (src/wine/*) loads only when a program runs.
 */
import { parseArgs } from 'node:util';
import type { Readable, Writable } from 'node:stream';
import type { Host } from '../host/host.js';
import type { WineRunResult, WineStep } from '../wine/run.js';
import type { SimulatorFace } from '../wine/sim.js';

/** Exit codes of `hnsim wine` itself; any other code is the program's. */
export const WINE_EXIT = {
  /** A bad command line (as every hnsim command). */
  usage: 2,
  /** Wine or mingw-w64 is not installed (the message names the apt command). */
  missing: 120,
  /** --connect: no hnsim simulator answers at the address. */
  unreachable: 121,
  /** The Wine prefix or the DLLs cannot be prepared, or the state file cannot be read or written. */
  setup: 122,
  /** --timeout elapsed: the program was killed. */
  timeout: 124,
  /** The program is not a file. */
  cannotRun: 126,
  /** The program does not exist. */
  notFound: 127,
} as const;

export const WINE_USAGE = `Usage: hnsim wine [--state FILE | --connect ADDR:PORT] [--prefix DIR] [--keep-wineserver]
                  [--timeout DURATION] [--seed N] [--profile NAME] [--adapter SPEC]…
                  [--host FILE] [--] PROGRAM.exe [ARG]…
       hnsim wine --doctor

Run a Windows program under Wine against a simulated node: hnsim's own computenetwork.dll,
vmcompute.dll, computecore.dll and iphlpapi.dll (built from C with mingw-w64 on first use) sit
in the system32 of hnsim's Wine prefix, where hcsshim's NewLazySystemDLL finds them, and send
every HNS and HCS call, and every IP Helper question (GetAdaptersAddresses, GetIfTable2, …),
to the simulator over loopback TCP (HNSIM_ENDPOINT=127.0.0.1:PORT, set for the program). The
program sees the node's adapters (Ethernet, vEthernet (Ethernet), …) instead of Linux's, and
the node's Windows build (ws2019 10.0.17763, ws2022 10.0.20348, ws2025 10.0.26100). It gets
this process's environment, stdin and current directory (Wine's drive Z: is /, so /home/me is
Z:\\home\\me); its stdout and stderr are passed through and its exit code returned.

The simulated node:
  --connect ADDR:PORT  a running 'hnsim serve --listen 127.0.0.1:PORT' (checked with one
                       call): its host is shared with every other client and outlives the run
  --state FILE         the node of a state file (as 'hnsim cni --state'): read before the
                       run (created from the host options when missing), served in this
                       process while the program runs, written back after it, even when the
                       program fails; an ADD and a later DEL in two runs see one node
  neither              a fresh node from the host options, for this run only: discarded when
                       the program exits

An ADD and a DEL of a real win-bridge.exe (ApiVersion 2: CNI_NETNS is an HCN namespace;
cbr0-network.json and win-bridge.conf as docs/wine.md shows them; in a checkout or a project
with hnsim as a dependency, 'npx hnsim'):

  npx hnsim call --state node.json HcnCreateNetwork null "$(cat cbr0-network.json)"
  npx hnsim call --state node.json HcnCreateNamespace 0b1ce66e-0000-4000-8000-000000000001 '{}'
  export CNI_CONTAINERID=c1 CNI_NETNS=0b1ce66e-0000-4000-8000-000000000001 CNI_IFNAME=eth0 CNI_PATH="Z:$(echo ~/cni/bin | tr / '\\\\')"
  CNI_COMMAND=ADD npx hnsim wine --state node.json -- ~/cni/bin/win-bridge.exe < win-bridge.conf
  CNI_COMMAND=DEL npx hnsim wine --state node.json -- ~/cni/bin/win-bridge.exe < win-bridge.conf
  GOOS=windows go test -exec 'npx hnsim wine --' ./...
  GOOS=windows go test -exec 'npx hnsim wine --profile ws2019 --' ./...   # Windows 10.0.17763

The Wine prefix (default $HNSIM_WINE_PREFIX, else $XDG_CACHE_HOME/hnsim/wine-prefix, else
~/.cache/hnsim/wine-prefix) is created on first use (about 10 s and 700 MB) and reused; the
DLLs are compiled and copied in when they change; each Windows build gets a prefix of its own
inside it (hnsim-windows/10.0.BUILD: its registry and wineserver, drive C: shared) on its
first use. Each of these steps is said on stderr before it starts. A persistent wineserver
(its output on /dev/null) keeps a warm run to a fraction of a second; it exits a minute after
the last program unless --keep-wineserver keeps it until 'wineserver -k'. WINEDEBUG is -all
unless set.

Options:
  --state FILE        The node's state file (see above)
  --connect ADDR:PORT A running simulator: 127.0.0.1:PORT, localhost:PORT or [::1]:PORT
  --prefix DIR        The Wine prefix to use (created when missing)
  --keep-wineserver   Keep the wineserver running after the program (until wineserver -k)
  --timeout DURATION  Kill the program after this long: 90, 90s, 2m, 1h (default: none)
  --seed N, --profile NAME, --adapter SPEC, --host FILE
                      The host options of a fresh or new node (see 'hnsim serve --help');
                      not with --connect. The profile is also the Windows the program sees
  --doctor            Say whether Wine and mingw-w64 (and Go) are installed, where, which
                      versions, and the prefix
  -h, --help          Show this help

Exit status: the program's (Wine passes its low 8 bits; 128+N when killed by signal N); 2 for
a bad command line; 120 when Wine or mingw-w64 is missing (the message gives the apt-get
command: apt-get install wine64 gcc-mingw-w64-x86-64); 121 when --connect reaches no
simulator; 122 when the prefix, the DLLs or the state file cannot be prepared, read or
written; 124 when --timeout killed the program; 126 when PROGRAM is not a file; 127 when it
does not exist.
`;

/** The host options `hnsim wine` takes, handed to the node loader as given. */
export interface WineHostFlags {
  readonly seed?: string;
  readonly profile?: string;
  readonly adapter?: string[];
  readonly host?: string;
}

/**
 * Builds the node of a run (src/cli/main.ts: a state file's, or a fresh one, from the host flags).
 * A bad host flag throws the caller's usage error; a state file that cannot be read is `{error}`.
 */
export type WineNodeLoader = (
  state: string | undefined,
  flags: WineHostFlags,
) => Promise<{ readonly host: Host; save(): void } | { readonly error: string }>;

export interface WineCliIo {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly env: Readonly<Record<string, string | undefined>>;
}

const OPTIONS = {
  state: { type: 'string' },
  connect: { type: 'string' },
  prefix: { type: 'string' },
  'keep-wineserver': { type: 'boolean' },
  timeout: { type: 'string' },
  doctor: { type: 'boolean' },
  seed: { type: 'string' },
  profile: { type: 'string' },
  adapter: { type: 'string', multiple: true },
  host: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

interface WineFlags extends WineHostFlags {
  state?: string;
  connect?: string;
  prefix?: string;
  'keep-wineserver'?: boolean;
  timeout?: string;
  doctor?: boolean;
  help?: boolean;
}

class WineUsageError {
  constructor(readonly message: string) {}
}

/**
 * hnsim's options, then the program and its arguments: after `--`, or from the first argument that
 * is not an option (so `hnsim wine prog.exe -v` gives -v to the program).
 */
export function splitWineArgs(args: readonly string[]): {
  options: string[];
  program?: string;
  programArgs: string[];
} {
  const options: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return { options, program: args[i + 1], programArgs: args.slice(i + 2) };
    if (a.startsWith('-') && a !== '-') {
      options.push(a);
      const name = a.startsWith('--') ? a.slice(2) : undefined;
      const spec =
        name !== undefined && !name.includes('=') ? OPTIONS[name as keyof typeof OPTIONS] : undefined;
      if (spec?.type === 'string' && i + 1 < args.length) options.push(args[++i]!);
      continue;
    }
    return { options, program: a, programArgs: args.slice(i + 1) };
  }
  return { options, programArgs: [] };
}

/** `90`, `90s`, `1500ms`, `2m`, `1h` → milliseconds. */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  const ms = Math.round(n * unit);
  return ms > 0 ? ms : undefined;
}

function write(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve) => stream.write(text, () => resolve()));
}

function parseWineFlags(options: string[]): WineFlags {
  try {
    return parseArgs({ args: options, options: OPTIONS, allowPositionals: false, strict: true })
      .values as WineFlags;
  } catch (e) {
    throw new WineUsageError(
      (e as Error).message.split('\n')[0]!.replace(/\. To specify a positional.*$/, ''),
    );
  }
}

/** `hnsim wine --doctor`: what is installed, where, which versions, and the prefix. */
async function doctor(flags: WineFlags, io: WineCliIo): Promise<number> {
  const [{ wineDoctor, doctorMessage, findGo, toolVersions }, { defaultPrefixDir, prefixReady }] =
    await Promise.all([import('../wine/doctor.js'), import('../wine/prefix.js')]);
  const report = wineDoctor(io.env);
  const go = findGo(io.env);
  const versions = await toolVersions(
    {
      ...(report.wine ? { wine: report.wine } : {}),
      ...(report.mingw ? { mingw: report.mingw } : {}),
      ...(go ? { go } : {}),
    },
    io.env,
  );
  const dir = flags.prefix ?? defaultPrefixDir(io.env);
  const found = (path: string | undefined, version: string | undefined, absent = 'missing'): string =>
    path ? (version ? `${path} (${version})` : path) : absent;
  const rows = [
    `wine        ${found(report.wine, versions.wine)}`,
    `wineserver  ${report.wineserver ?? 'missing'}`,
    `mingw-w64   ${found(report.mingw, versions.mingw)}`,
    `go          ${found(go, versions.go, 'not found (optional: it builds Go programs for GOOS=windows)')}`,
    `prefix      ${dir} (${prefixReady(dir) ? 'ready' : 'not created yet: the first run creates it'})`,
  ];
  await write(io.stdout, rows.join('\n') + '\n');
  if (report.ok) return 0;
  await write(io.stderr, `hnsim: ${doctorMessage(report)}\n`);
  return WINE_EXIT.missing;
}

/** What `hnsim wine` says on stderr before a slow first-use step. */
function stepMessage(step: WineStep): string {
  switch (step.step) {
    case 'prefix':
      return `creating the Wine prefix ${step.dir} (first use: about 10 s, 700 MB)`;
    case 'compile':
      return "compiling hnsim's DLLs from native/ with mingw-w64 (first use, and after an update of hnsim or Wine: a few seconds)";
    case 'windows':
      return (
        `setting up Windows ${step.windows.major}.${step.windows.minor}.${step.windows.build} ` +
        `(${step.windows.productName}) in ${step.dir} (first use of this build: a few seconds)`
      );
  }
}

/** Run `hnsim wine`; resolves to the exit code (see WINE_EXIT). */
export async function cmdWine(
  args: readonly string[],
  io: WineCliIo,
  loadNode: WineNodeLoader,
): Promise<number> {
  const usage = async (message: string): Promise<number> => {
    await write(io.stderr, `hnsim: wine: ${message} (see 'hnsim wine --help')\n`);
    return WINE_EXIT.usage;
  };
  const fail = async (code: number, message: string): Promise<number> => {
    await write(io.stderr, `hnsim: ${message}\n`);
    return code;
  };
  const split = splitWineArgs(args);
  let flags: WineFlags;
  try {
    flags = parseWineFlags(split.options);
  } catch (e) {
    if (e instanceof WineUsageError) return usage(e.message);
    throw e;
  }
  if (flags.help) {
    await write(io.stdout, WINE_USAGE);
    return 0;
  }
  if (flags.state !== undefined && flags.connect !== undefined)
    return usage('--state and --connect exclude each other');
  const hostFlags: WineHostFlags = {
    ...(flags.seed !== undefined ? { seed: flags.seed } : {}),
    ...(flags.profile !== undefined ? { profile: flags.profile } : {}),
    ...(flags.adapter !== undefined ? { adapter: flags.adapter } : {}),
    ...(flags.host !== undefined ? { host: flags.host } : {}),
  };
  if (flags.connect !== undefined && Object.keys(hostFlags).length > 0) {
    return usage(
      `--${Object.keys(hostFlags)[0]} describes a node built here; with --connect the server's node is used`,
    );
  }
  const sim = await import('../wine/sim.js');
  if (flags.connect !== undefined && !sim.parseEndpoint(flags.connect)) {
    return usage(
      `--connect takes a loopback ADDR:PORT (127.0.0.1:PORT, localhost:PORT or [::1]:PORT), got "${flags.connect}"`,
    );
  }
  let timeoutMs: number | undefined;
  if (flags.timeout !== undefined) {
    timeoutMs = parseDuration(flags.timeout);
    if (timeoutMs === undefined)
      return usage(`--timeout takes a duration such as 90, 90s, 2m or 1h, got "${flags.timeout}"`);
  }
  if (flags.prefix === '') return usage('--prefix must not be empty');
  if (flags.doctor) {
    if (split.program !== undefined) return usage('--doctor runs no program');
    return doctor(flags, io);
  }
  if (split.program === undefined || split.program === '')
    return usage('no program to run: hnsim wine [options] -- PROGRAM.exe [ARG]…');
  const program = split.program;

  const [run, prefix] = await Promise.all([import('../wine/run.js'), import('../wine/prefix.js')]);
  /** The exit code of a program that cannot be run: the shell's 127 (not found) or 126. */
  const programFailure = (e: InstanceType<typeof run.WineProgramError>): Promise<number> =>
    fail(e.exitCode === 127 ? WINE_EXIT.notFound : WINE_EXIT.cannotRun, e.message);
  try {
    run.checkProgram(program);
  } catch (e) {
    if (e instanceof run.WineProgramError) return programFailure(e);
    throw e;
  }

  // The simulator first: an unreachable one or a bad state file is said before anything slow
  let node: { readonly host: Host; save(): void } | undefined;
  let face: SimulatorFace | undefined;
  if (flags.connect !== undefined) {
    try {
      face = await sim.connectSimulator(flags.connect);
    } catch (e) {
      if (e instanceof sim.SimulatorUnreachableError) return fail(WINE_EXIT.unreachable, e.message);
      throw e;
    }
  } else {
    const loaded = await loadNode(flags.state, hostFlags);
    if ('error' in loaded) return fail(WINE_EXIT.setup, loaded.error);
    node = loaded;
  }

  // Wine and mingw-w64 (cheap to check): without them nothing runs
  const { wineDoctor, doctorMessage } = await import('../wine/doctor.js');
  const report = wineDoctor(io.env);
  if (!report.ok) return fail(WINE_EXIT.missing, doctorMessage(report));

  // The prefix, the DLLs and the prefix of the node's Windows build: a first use creates them, and
  // each slow step is said on stderr before it runs
  const prefixDir = flags.prefix ?? prefix.defaultPrefixDir(io.env);
  const announce = (step: WineStep): void => {
    io.stderr.write(`hnsim: ${stepMessage(step)}\n`);
  };
  let wine;
  try {
    wine = await run.prepareWine({ prefix: prefixDir, env: io.env, onStep: announce });
  } catch (e) {
    if (e instanceof run.WineMissingError) return fail(WINE_EXIT.missing, e.message);
    return fail(WINE_EXIT.setup, `cannot prepare Wine: ${(e as Error).message}`);
  }
  const { windowsVersionOf } = await import('../wine/winver.js');
  const windows = node
    ? windowsVersionOf(node.host.profile)
    : face?.version
      ? windowsVersionOf(face.version)
      : undefined;

  if (node) {
    const [{ cniRpcMethods }, { wineRegistry }, { analysisRpcMethods }] = await Promise.all([
      import('../plugins/index.js'),
      import('../wine/plugin.js'),
      import('../analysis/rpc.js'),
    ]);
    face = await sim.serveSimulator(node.host, {
      methods: {
        ...cniRpcMethods(node.host, wineRegistry(node.host, { prefix: prefixDir })),
        ...analysisRpcMethods(node.host),
      },
    });
  }
  if (!face) throw new Error('unreachable: no simulator face');

  // The program; SIGINT and SIGTERM stop it (and then the state is still saved)
  const abort = new AbortController();
  let stoppedBy: NodeJS.Signals | undefined;
  const onSignal = (sig: NodeJS.Signals): void => {
    stoppedBy ??= sig;
    abort.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let result: WineRunResult | undefined;
  let runError: unknown;
  try {
    result = await run.runUnderWine({
      program,
      args: split.programArgs,
      env: io.env,
      stdin: io.stdin === process.stdin ? 'inherit' : io.stdin,
      stdout: io.stdout,
      stderr: io.stderr,
      endpoint: face.endpoint,
      signal: abort.signal,
      wine,
      onStep: announce,
      ...(windows ? { windows } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(flags['keep-wineserver'] ? { keepWineserver: true } : {}),
    });
  } catch (e) {
    runError = e;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await face.close();
  }
  if (node) {
    try {
      node.save();
    } catch (e) {
      return fail(WINE_EXIT.setup, (e as Error).message);
    }
  }
  if (runError !== undefined) {
    if (runError instanceof run.WineMissingError) return fail(WINE_EXIT.missing, runError.message);
    if (runError instanceof run.WineProgramError) return programFailure(runError);
    return fail(WINE_EXIT.setup, `cannot run ${program} under Wine: ${(runError as Error).message}`);
  }
  if (result!.timedOut) {
    return fail(WINE_EXIT.timeout, `${program} was killed after --timeout ${flags.timeout}`);
  }
  if (stoppedBy) return 128 + (stoppedBy === 'SIGINT' ? 2 : 15);
  return result!.exitCode;
}
