/**
 * A real Open vSwitch as a test peer (issue 17 §4): Debian's `ovsdb-server` and `ovs-vswitchd`
 * started as ordinary child processes with the userspace "dummy" datapath and no kernel module,
 * as OVS's own test suite runs them (tests/ofproto-macros.at `_OVS_VSWITCHD_START`, `add_of_br`,
 * `add_of_ports`): every file (database, sockets, logs) in one temporary directory named by
 * OVS_RUNDIR/OVS_DBDIR/OVS_LOGDIR/OVS_SYSCONFDIR, nothing from systemd or /var/run.
 *
 *   const ovs = await ovsPeer();
 *   await ovs.addBridge('br0');
 *   await ovs.addPort('br0', 1);                       // dummy port p1, ofport 1
 *   await ovs.addFlows('br0', 'priority=10,ip actions=output:2');
 *   const t = await ovs.trace('br0', 'in_port=1,ip');  // t.datapathActions === '2'
 *   await ovs.stop();
 *
 * Ports are named `p<ofport>` as in OVS's tests, so the dummy datapath numbers them like their
 * OpenFlow ports (`Datapath actions: 10` for `output:10`); the bridge's LOCAL port is datapath
 * port 100 on the first bridge. Daemon commands (`ofproto/trace`, `netdev-dummy/receive`, …) go
 * over vswitchd's control socket (./unixctl.ts); table changes run `ovs-ofctl`/`ovs-vsctl`.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Unixctl } from './unixctl.js';

// ───────────────────────────── finding OVS ─────────────────────────────

const TOOLS = ['ovsdb-tool', 'ovsdb-server', 'ovs-vswitchd', 'ovs-vsctl', 'ovs-ofctl'] as const;
type Tool = (typeof TOOLS)[number];

/** PATH plus the sbin directories Debian installs the daemons in (not on a user's PATH). */
function searchPath(): string[] {
  const dirs = (process.env['PATH'] ?? '').split(delimiter).filter(Boolean);
  for (const d of ['/usr/sbin', '/usr/local/sbin', '/sbin']) if (!dirs.includes(d)) dirs.push(d);
  return dirs;
}

function which(name: string): string | undefined {
  for (const dir of searchPath()) {
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The OVSDB schema of the installed OVS (Debian: /usr/share/openvswitch/vswitch.ovsschema). */
function schemaPath(): string | undefined {
  const dirs = [process.env['OVS_PKGDATADIR'], '/usr/share/openvswitch', '/usr/local/share/openvswitch'];
  for (const d of dirs)
    if (d && existsSync(join(d, 'vswitch.ovsschema'))) return join(d, 'vswitch.ovsschema');
  return undefined;
}

/** What is missing to run a real OVS here (a message naming it), or undefined. */
export function ovsMissing(): string | undefined {
  const missing: string[] = TOOLS.filter((t) => which(t) === undefined);
  if (schemaPath() === undefined) missing.push('vswitch.ovsschema');
  return missing.length === 0
    ? undefined
    : `Open vSwitch is not installed (missing: ${missing.join(', ')}); ` +
        'install it with `apt-get install openvswitch-switch` (no service or kernel module is needed)';
}

// ───────────────────────────── errors ─────────────────────────────

/** An OVS command-line tool that exited non-zero: `stderr` is its text (e.g. `ovs-ofctl: …`). */
export class OvsCommandError extends Error {
  constructor(
    readonly argv: readonly string[],
    readonly code: number | null,
    readonly stderr: string,
  ) {
    super(stderr.trimEnd() || `${argv.join(' ')} exited with ${String(code)}`);
    this.name = 'OvsCommandError';
  }
}

// ───────────────────────────── trace results ─────────────────────────────

/** One pass of `ofproto/trace`: the first, then one per recirculation it follows (ct, …). */
export interface TracePass {
  /** After `Flow: `. */
  readonly flow: string;
  /** After `Final flow: ` — `unchanged` or the flow. */
  readonly finalFlow: string;
  /** After `Megaflow: `. */
  readonly megaflow: string;
  /** After `Datapath actions: `. */
  readonly datapathActions: string;
  /** The recirculation header that opens this pass (`recirc(0x1) - resume conntrack …`), if any. */
  readonly resume?: string;
}

export interface PeerTrace {
  /** The whole output of `ofproto/trace`. */
  readonly text: string;
  /** The LAST `Datapath actions:` line's actions: the verdict (reference ovs-windows.md §4). */
  readonly datapathActions: string;
  /** The last pass's `Final flow:` (`unchanged` or a flow). */
  readonly finalFlow: string;
  readonly passes: readonly TracePass[];
}

/** Splits `ofproto/trace` text into its passes. */
export function parseTrace(text: string): PeerTrace {
  const passes: TracePass[] = [];
  let cur:
    | { flow: string; finalFlow: string; megaflow: string; datapathActions: string; resume?: string }
    | undefined;
  let resume: string | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('Flow: ')) {
      cur = { flow: line.slice(6), finalFlow: '', megaflow: '', datapathActions: '' };
      if (resume !== undefined) cur.resume = resume;
      resume = undefined;
      passes.push(cur);
    } else if (/^recirc\(0x[0-9a-f]+\) - /.test(line)) resume = line;
    else if (cur && line.startsWith('Final flow: ')) cur.finalFlow = line.slice(12);
    else if (cur && line.startsWith('Megaflow: ')) cur.megaflow = line.slice(10);
    else if (cur && line.startsWith('Datapath actions: ')) cur.datapathActions = line.slice(18);
  }
  const last = passes[passes.length - 1];
  if (!last || last.datapathActions === '') throw new Error(`not an ofproto/trace output:\n${text}`);
  return { text, datapathActions: last.datapathActions, finalFlow: last.finalFlow, passes };
}

// ───────────────────────────── the peer ─────────────────────────────

export interface TraceOptions {
  /** One `--ct-next` per ct fork, in order (e.g. `['trk,est']`); OVS's default is `trk,new`. */
  readonly ctNext?: readonly string[];
  /** `--generate`: a packet built from the flow, so that `learn` (and NORMAL) have side effects. */
  readonly generate?: boolean;
}

export interface PortOptions {
  /** The port's name; `p<ofport>` by default (the dummy datapath then numbers it `<ofport>`). */
  readonly name?: string;
  /** Record what the port transmits (`options:tx_pcap`), read back with `transmitted()`. */
  readonly capture?: boolean;
}

/** The OpenFlow version flows and groups are written in (Antrea speaks OpenFlow 1.5). */
export type OpenFlowVersion = 'OpenFlow10' | 'OpenFlow13' | 'OpenFlow15';

const PROTOCOLS = '[OpenFlow10,OpenFlow11,OpenFlow12,OpenFlow13,OpenFlow14,OpenFlow15]';

export interface OvsPeer {
  /** The temporary directory holding the database, sockets and logs. */
  readonly dir: string;
  /** `ovs-vswitchd --version`'s first line, e.g. `ovs-vswitchd (Open vSwitch) 3.1.0`. */
  readonly version: string;
  /** `add-br` with the dummy datapath, fail-mode secure, OpenFlow 1.0–1.5 (as `add_of_br` does). */
  addBridge(bridge?: string): Promise<void>;
  /** A dummy port with `ofport_request=ofport`. */
  addPort(bridge: string, ofport: number, options?: PortOptions): Promise<void>;
  /** `ovs-ofctl add-flows` of `text` (one flow per line). */
  addFlows(bridge: string, text: string, version?: OpenFlowVersion): Promise<void>;
  /** `ovs-ofctl del-flows` (all flows, or those `match` selects; `--strict` with `strict`). */
  delFlows(
    bridge: string,
    match?: string,
    options?: { strict?: boolean; version?: OpenFlowVersion },
  ): Promise<void>;
  /** `ovs-ofctl dump-flows --no-stats` lines (the reply header dropped). */
  dumpFlows(bridge: string, options?: { names?: boolean; version?: OpenFlowVersion }): Promise<string[]>;
  /** `ovs-ofctl add-group`. */
  addGroup(bridge: string, text: string, version?: OpenFlowVersion): Promise<void>;
  /** `ovs-ofctl del-groups` (all). */
  delGroups(bridge: string, version?: OpenFlowVersion): Promise<void>;
  /** `ovs-ofctl dump-groups` lines (the reply header dropped). */
  dumpGroups(bridge: string, version?: OpenFlowVersion): Promise<string[]>;
  /** Replaces the bridge's flows and groups (groups first, since flows name them). */
  replaceTable(bridge: string, table: { flows: string; groups?: readonly string[] }): Promise<void>;
  /** `ovs-appctl ofproto/trace bridge flow` (no side effects unless `generate`). */
  trace(bridge: string, flow: string, options?: TraceOptions): Promise<PeerTrace>;
  /**
   * A real packet through the datapath: `netdev-dummy/receive port packet`, where `packet` is a
   * datapath flow (`in_port(1),eth(…),eth_type(0x0800),ipv4(…),udp(…)`, as `ovs-dpctl dump-flows`
   * writes it) or hex bytes. Conntrack commits, learn adds flows, counters count. Resolves once
   * vswitchd has handled it.
   */
  receive(port: string, packet: string): Promise<void>;
  /** Frames a `capture` port has transmitted since it was added, as lowercase hex. */
  transmitted(port: string): string[];
  /** `dpctl/dump-conntrack` lines (of `zone` only, when given). */
  conntrack(zone?: number): Promise<string[]>;
  /** `dpctl/flush-conntrack`. */
  flushConntrack(): Promise<void>;
  /** Any vswitchd control command (`ovs-appctl <command> <args…>`). */
  appctl(command: string, ...args: readonly string[]): Promise<string>;
  /** `ovs-ofctl <args…>` with `stdin`; resolves stdout. */
  ofctl(args: readonly string[], stdin?: string): Promise<string>;
  /** `ovs-vsctl <args…>`; resolves stdout. */
  vsctl(args: readonly string[]): Promise<string>;
  /** Ends both daemons and removes the directory. */
  stop(): Promise<void>;
}

/**
 * Children still running when the test process ends are killed by pid, and their directories
 * removed (no stray daemons or files when a test file dies before `stop()`).
 */
const live = new Set<ChildProcess>();
const dirs = new Set<string>();
process.once('exit', () => {
  for (const c of live) if (c.pid !== undefined) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function waitFor(what: string, ok: () => boolean, child: ChildProcess, ms = 10_000): Promise<void> {
  for (let waited = 0; !ok(); waited += 10) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${what}: the daemon exited early`);
    if (waited > ms) throw new Error(`${what}: not ready after ${ms} ms`);
    await sleep(10);
  }
}

/** Reads the frames of a pcap file (little-endian microsecond format, as netdev-dummy writes). */
function pcapFrames(path: string): string[] {
  if (!existsSync(path)) return [];
  const b = readFileSync(path);
  const frames: string[] = [];
  for (let at = 24; at + 16 <= b.length;) {
    const len = b.readUInt32LE(at + 8);
    if (at + 16 + len > b.length) break; // a record still being written
    frames.push(b.subarray(at + 16, at + 16 + len).toString('hex'));
    at += 16 + len;
  }
  return frames;
}

/** Starts ovsdb-server and ovs-vswitchd (dummy datapath) in a new temporary directory. */
export async function ovsPeer(): Promise<OvsPeer> {
  const missing = ovsMissing();
  if (missing !== undefined) throw new Error(missing);
  const bin = (t: Tool) => which(t)!;
  const dir = mkdtempSync(join(tmpdir(), 'hnsim-ovs-'));
  dirs.add(dir);
  const env = {
    ...process.env,
    OVS_RUNDIR: dir,
    OVS_DBDIR: dir,
    OVS_LOGDIR: dir,
    OVS_SYSCONFDIR: dir,
  };
  const children: ChildProcess[] = [];

  const run = (tool: Tool, args: readonly string[], stdin?: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const argv = [bin(tool), ...args];
      const child = execFile(
        argv[0]!,
        argv.slice(1),
        { env, cwd: dir, maxBuffer: 64 << 20 },
        (err, stdout, stderr) => {
          if (err)
            reject(
              new OvsCommandError([tool, ...args], typeof err.code === 'number' ? err.code : null, stderr),
            );
          else resolve(stdout);
        },
      );
      // a tool that exits without reading its input (a bad argument) must not fail the write
      child.stdin?.on('error', () => {});
      child.stdin?.end(stdin ?? '');
    });

  const daemon = (tool: Tool, args: readonly string[]): ChildProcess => {
    const child = spawn(bin(tool), args, { env, cwd: dir, stdio: 'ignore' });
    child.on('error', () => {});
    live.add(child);
    child.once('exit', () => live.delete(child));
    children.push(child);
    return child;
  };

  const stopDaemons = async (): Promise<void> => {
    for (const c of children.slice().reverse()) {
      if (c.exitCode === null && c.signalCode === null) {
        c.kill('SIGTERM');
        for (let i = 0; i < 200 && c.exitCode === null && c.signalCode === null; i++) await sleep(10);
        if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      }
    }
  };

  let ctl: Unixctl | undefined;
  try {
    await run('ovsdb-tool', ['create', join(dir, 'conf.db'), schemaPath()!]);
    const db = join(dir, 'db.sock');
    const server = daemon('ovsdb-server', [
      join(dir, 'conf.db'),
      `--remote=punix:${db}`,
      `--unixctl=${join(dir, 'ovsdb-server.ctl')}`,
      '--no-chdir',
      `--log-file=${join(dir, 'ovsdb-server.log')}`,
    ]);
    await waitFor('ovsdb-server', () => existsSync(db), server);
    await run('ovs-vsctl', ['--no-wait', 'init']);
    const ctlPath = join(dir, 'ovs-vswitchd.ctl');
    const vswitchd = daemon('ovs-vswitchd', [
      `unix:${db}`,
      '--enable-dummy',
      '--disable-system',
      '--disable-system-route',
      `--unixctl=${ctlPath}`,
      '--no-chdir',
      `--log-file=${join(dir, 'ovs-vswitchd.log')}`,
    ]);
    // the socket's file appears at bind(), a moment before vswitchd listens on it
    for (let i = 0; ctl === undefined; i++) {
      await waitFor('ovs-vswitchd', () => existsSync(ctlPath), vswitchd);
      ctl = await Unixctl.open(ctlPath).catch((e: Error) => {
        if (i > 500) throw e;
        return sleep(10).then(() => undefined);
      });
    }
  } catch (e) {
    await stopDaemons();
    rmSync(dir, { recursive: true, force: true });
    dirs.delete(dir);
    throw e;
  }
  const control = ctl;
  const version = (await run('ovs-vswitchd', ['--version']).catch(() => '')).split('\n')[0] ?? '';

  const captures = new Map<string, { path: string; seen: number }>();
  /** Per port: packets handed to netdev-dummy/receive, to wait for vswitchd to take them. */
  const fed = new Map<string, number>();
  const ofVersion = (v?: OpenFlowVersion) => ['-O', v ?? 'OpenFlow15'];
  const body = (out: string) =>
    out
      .split('\n')
      .filter((l) => l !== '' && !/^(NXST|OFPST)_/.test(l))
      .map((l) => l.trimStart());

  /** RX packets per port as `dpctl/show -s` reports them. */
  const rxCounts = async (): Promise<Map<string, number>> => {
    const text = await control.call('dpctl/show', '-s');
    const counts = new Map<string, number>();
    let port: string | undefined;
    for (const line of text.split('\n')) {
      const p = /^ {2}port \d+: (\S+)/.exec(line);
      if (p) port = p[1];
      const rx = /^ {4}RX packets:(\d+)/.exec(line);
      if (rx && port !== undefined) counts.set(port, Number(rx[1]));
    }
    return counts;
  };

  const peer: OvsPeer = {
    dir,
    version,
    async addBridge(bridge = 'br0') {
      await run('ovs-vsctl', [
        ...['--', 'add-br', bridge],
        ...[
          '--',
          'set',
          'bridge',
          bridge,
          'datapath-type=dummy',
          'fail-mode=secure',
          `protocols=${PROTOCOLS}`,
        ],
      ]);
    },
    async addPort(bridge, ofport, options = {}) {
      const name = options.name ?? `p${ofport}`;
      const iface = ['--', 'set', 'Interface', name, 'type=dummy', `ofport_request=${ofport}`];
      if (options.capture) {
        const path = join(dir, `${name}-tx.pcap`);
        iface.push(`options:tx_pcap=${path}`);
        captures.set(name, { path, seen: 0 });
      }
      await run('ovs-vsctl', ['--', 'add-port', bridge, name, ...iface]);
    },
    async addFlows(bridge, text, version) {
      await run(
        'ovs-ofctl',
        [...ofVersion(version), 'add-flows', bridge, '-'],
        text.endsWith('\n') ? text : `${text}\n`,
      );
    },
    async delFlows(bridge, match, options = {}) {
      const args = [...ofVersion(options.version), 'del-flows'];
      if (options.strict) args.push('--strict');
      args.push(bridge);
      if (match !== undefined) args.push(match);
      await run('ovs-ofctl', args);
    },
    async dumpFlows(bridge, options = {}) {
      const args = [...ofVersion(options.version), 'dump-flows', '--no-stats'];
      if (options.names) args.push('--names');
      return body(await run('ovs-ofctl', [...args, bridge]));
    },
    async addGroup(bridge, text, version) {
      await run('ovs-ofctl', [...ofVersion(version), 'add-group', bridge, text]);
    },
    async delGroups(bridge, version) {
      await run('ovs-ofctl', [...ofVersion(version), 'del-groups', bridge]);
    },
    async dumpGroups(bridge, version) {
      return body(await run('ovs-ofctl', [...ofVersion(version), 'dump-groups', bridge]));
    },
    async replaceTable(bridge, table) {
      // one `ovs-ofctl bundle`: atomic (a refused line leaves the old table), and one process
      // instead of four (~25 ms against ~130 ms). Its errors name the bundle's line: they are
      // renumbered to the line of `table.flows` (or the index of `table.groups`, from 1) they came
      // from, as `add-flows`/`add-groups` would name them.
      const lines = ['flow delete', 'group delete group_id=all'];
      const origin: string[] = ['', ''];
      (table.groups ?? []).forEach((g, i) => {
        lines.push(`group add ${g}`);
        origin.push(`-:${i + 1}:`);
      });
      table.flows.split('\n').forEach((f, i) => {
        if (f.trim() === '') return;
        lines.push(`flow add ${f}`);
        origin.push(`-:${i + 1}:`);
      });
      try {
        await run('ovs-ofctl', ['-O', 'OpenFlow15', 'bundle', bridge, '-'], `${lines.join('\n')}\n`);
      } catch (e) {
        if (!(e instanceof OvsCommandError)) throw e;
        const text = e.stderr.replace(/-:(\d+):/g, (m, n: string) => origin[Number(n) - 1] || m);
        throw new OvsCommandError(e.argv, e.code, text);
      }
    },
    async trace(bridge, flow, options = {}) {
      const args: string[] = [];
      for (const state of options.ctNext ?? []) args.push('--ct-next', state);
      if (options.generate) args.push('--generate');
      return parseTrace(await control.call('ofproto/trace', ...args, bridge, flow));
    },
    async receive(port, packet) {
      const want = (fed.get(port) ?? (await rxCounts()).get(port) ?? 0) + 1;
      fed.set(port, want);
      await control.call('netdev-dummy/receive', port, packet);
      // vswitchd's main loop reads the dummy port's queue and runs the upcall in the same thread
      // that answers control commands: once the port's RX count shows the packet, it is handled
      for (let i = 0; ((await rxCounts()).get(port) ?? 0) < want; i++) {
        if (i > 1000) throw new Error(`netdev-dummy/receive ${port}: the packet was not taken in 10 s`);
        await sleep(10);
      }
    },
    transmitted(port) {
      const c = captures.get(port);
      if (!c) throw new Error(`port ${port} was not added with capture`);
      const frames = pcapFrames(c.path);
      const fresh = frames.slice(c.seen);
      c.seen = frames.length;
      return fresh;
    },
    async conntrack(zone) {
      const args = zone === undefined ? [] : [`zone=${zone}`];
      return (await control.call('dpctl/dump-conntrack', ...args)).split('\n').filter((l) => l !== '');
    },
    async flushConntrack() {
      await control.call('dpctl/flush-conntrack');
    },
    appctl: (command, ...args) => control.call(command, ...args),
    ofctl: (args, stdin) => run('ovs-ofctl', args, stdin),
    vsctl: (args) => run('ovs-vsctl', args),
    async stop() {
      await control.call('exit').catch(() => undefined);
      control.close();
      await stopDaemons();
      rmSync(dir, { recursive: true, force: true });
      dirs.delete(dir);
    },
  };
  return peer;
}
