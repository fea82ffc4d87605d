/**
 * Open vSwitch on a Windows node (reference ovs-windows.md §1.2–§1.4; docs/ovs.md "On the node"):
 * the Open_vSwitch database with ovs-vswitchd following it (src/ovs), whose Windows datapath sees
 * the Hyper-V ports of the switch the Open vSwitch Extension is enabled on **by name** — the
 * physical NIC's alias, each host vNIC's adapter name, each attached endpoint's HNS name — and,
 * while ovs-vswitchd runs, forwards that switch's packets (src/dataplane/ovs.ts).
 *
 * An `internal` interface no Hyper-V port has the name of becomes a new host vNIC on that switch
 * (`create_wmi_port`: how `antrea-gw0` and ovn-kubernetes' `k8s-<node>` come to exist); one that
 * has it adopts that port (Antrea renames the management vNIC to `br-int` first, so the bridge's
 * LOCAL port is the vNIC holding the node's address). Deleting the interface deletes a vNIC OVS
 * created, never one it adopted.
 *
 *   const ovs = host.ovs;                       // installed, ovs-vswitchd stopped
 *   host.renameAdapter('vEthernet (Ethernet)', 'br-int');
 *   ovs.start();
 *   ovs.vsctl('add-br br-int -- add-port br-int Ethernet');
 *   ovs.ofctl(['add-flow', 'br-int', 'in_port=LOCAL,actions=output:Ethernet']);
 */
import { OVS_EXTENSION_ID } from '../hns/extensions.js';
import type { HnsService } from '../hns/service.js';
import { OvsDatapath } from '../dataplane/ovs.js';
import type { HostPlane } from '../dataplane/plane.js';
import { Bridge, Ovsdb, OvsdbError, OvsError, trace, vsctl, type VsctlResult } from '../ovs/index.js';
import { hnsError } from '../core/errors.js';
import { isJsonObject, type JsonObject } from '../core/json.js';
import type { SwitchView } from '../vswitch/view.js';

/** What `ovs-ofctl` / `ovs-appctl` answer: their exit status and output. */
export interface OvsCommandResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Open vSwitch's commands on a node as `hnsim ovs`, the `ovs` scenario step and JSON-RPC name them. */
export const OVS_TOOLS = ['vsctl', 'ofctl', 'appctl', 'start', 'stop'] as const;
export type OvsTool = (typeof OVS_TOOLS)[number];

export class NodeOvs {
  readonly db: Ovsdb;
  #running = false;
  #synced = -1;
  /** vNICs `create_wmi_port` made (lower-case names): the only ones closing an interface deletes. */
  readonly #created = new Set<string>();
  #datapath: OvsDatapath | undefined;
  readonly #tableNames = new Map<string, string[]>();
  #namesGeneration = 0;

  constructor(
    private readonly hns: HnsService,
    private readonly plane: HostPlane,
    private readonly seed: number,
    clock: { now(): number },
  ) {
    this.db = new Ovsdb({
      seed,
      clock,
      platform: {
        kind: 'windows',
        netdevExists: (name) => this.hyperVPortExists(name),
        openInternal: (name) => this.openInternal(name),
        closeInternal: (name) => this.closeInternal(name),
      },
    });
  }

  /** Whether ovs-vswitchd runs (its datapath forwards the OVS-enabled switch). */
  get running(): boolean {
    return this.#running;
  }

  /**
   * Start ovs-vswitchd: it builds its bridges from the database (no OpenFlow flows: a controller
   * programs them) and its datapath takes the packets of the switch the extension is enabled on.
   */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.db.restartVswitchd();
    this.#synced = this.hns.store.generation;
    this.#datapath = new OvsDatapath(this.db, {
      sync: () => this.sync(),
      tableName: (bridge, table) => this.tableName(bridge, table),
      namesGeneration: () => this.#namesGeneration,
    });
    this.plane.bindSwitchDatapath('*', this.#datapath);
  }

  /** Stop ovs-vswitchd: flows gone; an OVS-enabled switch then forwards nothing (the pitfall). */
  stop(): void {
    if (!this.#running) return;
    this.#running = false;
    this.plane.bindSwitchDatapath('*', undefined);
    this.#datapath = undefined;
  }

  /**
   * Name a bridge's tables (an agent that realized its pipeline does: Antrea's table names): trace
   * steps show them, and a drop in a table named `…Egress…` is `DeniedOut`, `…Ingress…`
   * `DeniedIn` (a policy's verdict), elsewhere `NoRoute`. `undefined` forgets them.
   */
  setTableNames(bridge: string, names: readonly string[] | undefined): void {
    if (names) this.#tableNames.set(bridge, [...names]);
    else this.#tableNames.delete(bridge);
    this.#namesGeneration++;
  }

  /** The name an agent gave a bridge's table, if any. */
  tableName(bridge: string, table: number): string | undefined {
    return this.#tableNames.get(bridge)?.[table];
  }

  /** ovs-vswitchd catches up with the host's Hyper-V ports (endpoints attached or gone, vNICs renamed). */
  sync(): void {
    const gen = this.hns.store.generation;
    if (gen === this.#synced) return;
    this.#synced = gen;
    this.db.netdevsChanged();
    this.#synced = this.hns.store.generation;
  }

  /** `ovs-vsctl …` (a command line or argv); without ovs-vswitchd, as `--no-wait` would. */
  vsctl(command: string | readonly string[]): VsctlResult {
    this.sync();
    return vsctl(this.db, command);
  }

  /** The engine bridge of a running ovs-vswitchd. */
  bridge(name: string): Bridge | undefined {
    return this.#running ? this.db.bridge(name) : undefined;
  }

  /**
   * `ovs-ofctl <command> <bridge> [arg…]`: add-flow, add-flows (one flow per line), del-flows,
   * mod-flows, dump-flows, add-group, del-groups, dump-groups, with `--strict`, `--no-stats`,
   * `--names` before the command. Errors as ovs-ofctl prints them, status 1.
   */
  ofctl(argv: readonly string[]): OvsCommandResult {
    this.sync();
    // `-O OpenFlow15` (Antrea's docs write it) and --options; the engine speaks every version
    const words: string[] = [];
    for (let k = 0; k < argv.length; k++) {
      if (argv[k] === '-O' || argv[k] === '--protocols') k++;
      else if (!argv[k]!.startsWith('-O')) words.push(argv[k]!);
    }
    const opts = words.filter((a) => a.startsWith('--'));
    const [command, bridgeName, ...rest] = words.filter((a) => !a.startsWith('--'));
    if (!command || !bridgeName) return fail('ovs-ofctl: missing command name; use --help for help');
    const br = this.bridge(bridgeName);
    if (!br) {
      return fail(
        this.#running
          ? `ovs-ofctl: ${bridgeName} is not a bridge or a socket`
          : `ovs-ofctl: ${bridgeName}: failed to connect to socket (No such file or directory)`,
      );
    }
    const strict = opts.includes('--strict');
    const arg = rest.join(' ');
    try {
      switch (command) {
        case 'add-flow':
          br.addFlow(arg);
          return ok('');
        case 'add-flows':
          br.addFlows(arg);
          return ok('');
        case 'del-flows':
          br.delFlows(arg, { strict });
          return ok('');
        case 'mod-flows':
          br.modFlows(arg, { strict });
          return ok('');
        case 'dump-flows': {
          const lines = br.dumpFlows({
            ...(opts.includes('--no-stats') ? { noStats: true } : {}),
            ...(opts.includes('--names') ? { names: true } : {}),
          });
          return ok(lines.length ? `${lines.join('\n')}\n` : '');
        }
        case 'add-group':
          br.addGroup(arg);
          return ok('');
        case 'del-groups':
          br.delGroups(arg);
          return ok('');
        case 'dump-groups': {
          const lines = br.dumpGroups();
          return ok(`OFPST_GROUP_DESC reply (OF1.5) (xid=0x2):\n${lines.map((l) => `${l}\n`).join('')}`);
        }
        default:
          return fail(`ovs-ofctl: unknown command '${command}'; use --help for help`);
      }
    } catch (e) {
      if (e instanceof OvsError) return fail(`ovs-ofctl: ${e.message}`);
      throw e;
    }
  }

  /** One tool with its arguments (start/stop take none): its exit status and output. */
  run(tool: OvsTool, args: readonly string[]): OvsCommandResult {
    switch (tool) {
      case 'start':
        this.start();
        return { status: 0, stdout: '', stderr: '' };
      case 'stop':
        this.stop();
        return { status: 0, stdout: '', stderr: '' };
      case 'vsctl':
        return this.vsctl(args);
      case 'ofctl':
        return this.ofctl(args);
      case 'appctl':
        return this.appctl(args);
    }
  }

  /**
   * `ovs-appctl <command> [arg…]` to ovs-vswitchd: `ofproto/trace [--names] BRIDGE FLOW
   * [--ct-next STATE]…` (the trace text, nothing changed). Errors as ovs-appctl prints them.
   */
  appctl(argv: readonly string[]): OvsCommandResult {
    this.sync();
    const SERVER = 'ovs-appctl: ovs-vswitchd: server returned an error';
    const [command, ...rest] = argv;
    if (!this.#running)
      return fail(
        'ovs-appctl: cannot connect to "/var/run/openvswitch/ovs-vswitchd.ctl" (No such file or directory)',
      );
    // ovs-appctl prints the server's error, then its own line, and exits 2 (utilities/ovs-appctl.c)
    const refused = (text: string): OvsCommandResult => ({
      status: 2,
      stdout: '',
      stderr: `${text}\n${SERVER}\n`,
    });
    if (command !== 'ofproto/trace')
      return refused(
        `"${command ?? ''}" is not a valid command (use "list-commands" to see a list of valid commands)`,
      );
    const names = rest.includes('--names');
    const ctNext: string[] = [];
    const words: string[] = [];
    for (let k = 0; k < rest.length; k++) {
      if (rest[k] === '--names') continue;
      if (rest[k] === '--ct-next') ctNext.push(rest[++k] ?? '');
      else words.push(rest[k]!);
    }
    const [bridgeName, flow] = words;
    if (bridgeName === undefined || flow === undefined || words.length > 2)
      return refused(`"ofproto/trace" command requires at least 1 arguments`);
    const br = this.db.bridge(bridgeName);
    if (!br) return refused(`${bridgeName}: unknown bridge`);
    try {
      return ok(trace(br, flow, { names, ...(ctNext.length ? { ctNext } : {}) }).text);
    } catch (e) {
      if (e instanceof OvsError) return refused(`Bad openflow flow syntax: ${e.message}`);
      throw e;
    }
  }

  // ───────────── snapshots ─────────────

  /**
   * The node's OVS as plain JSON (the host snapshot's `ovs`): the database, whether ovs-vswitchd
   * runs, the vNICs it created, and each running bridge's groups and flows as `ovs-ofctl
   * dump-groups` / `dump-flows --no-stats` print them (re-added on restore: counters, ages and
   * connections are not kept).
   */
  toState(): JsonObject {
    const bridges: JsonObject = {};
    if (this.#running)
      for (const name of this.db.bridgeNames()) {
        const br = this.db.bridge(name)!;
        bridges[name] = {
          groups: br.dumpGroups().map((g) => g.trim()),
          flows: br.dumpFlows({ noStats: true }).map((f) => f.trim()),
        };
      }
    return {
      running: this.#running,
      created: [...this.#created].sort(),
      tableNames: Object.fromEntries([...this.#tableNames].map(([b, n]) => [b, [...n]])),
      db: this.db.toState() as unknown as JsonObject,
      bridges,
    };
  }

  /**
   * Check a `toState()` section against nothing but itself (bad: E_INVALIDARG naming it; the flows
   * and groups are parsed on a scratch bridge); the function returned makes this node's OVS that.
   */
  readState(state: unknown): () => void {
    const bad = (what: string): never => {
      throw hnsError('E_INVALIDARG', `snapshot: ovs: ${what}`);
    };
    if (!isJsonObject(state)) bad('expected {running, created, db, bridges}');
    const st = state as JsonObject;
    if (typeof st['running'] !== 'boolean') bad('running must be a boolean');
    const created = st['created'];
    if (!Array.isArray(created) || !created.every((c) => typeof c === 'string'))
      bad('created must be a list of names');
    let applyDb: () => void = () => undefined;
    try {
      applyDb = this.db.readState(st['db']);
    } catch (e) {
      if (e instanceof OvsdbError) bad(e.message);
      throw e;
    }
    const tn = st['tableNames'] ?? {};
    if (
      !isJsonObject(tn) ||
      !Object.values(tn).every((v) => Array.isArray(v) && v.every((x) => typeof x === 'string'))
    )
      bad('tableNames must be lists of table names by bridge');
    const names = tn as Record<string, string[]>;
    const bridges = st['bridges'];
    if (!isJsonObject(bridges)) bad('bridges must be an object by bridge name');
    const programs: [string, string[], string[]][] = [];
    for (const [name, b] of Object.entries(bridges as JsonObject)) {
      const lines = (k: string): string[] => {
        const v = isJsonObject(b) ? b[k] : undefined;
        if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
          bad(`bridges.${name}.${k} must be a list of strings`);
        return v as string[];
      };
      const groups = lines('groups');
      const flows = lines('flows');
      // parsed on a scratch bridge first: a bad line changes nothing
      try {
        const scratch = new Bridge({ name });
        for (const g of groups) scratch.addGroup(g);
        if (flows.length) scratch.addFlows(flows.join('\n'));
      } catch (e) {
        if (e instanceof OvsError) bad(`bridges.${name}: ${e.message}`);
        throw e;
      }
      programs.push([name, groups, flows]);
    }
    return () => {
      applyDb();
      this.#tableNames.clear();
      for (const [b, n] of Object.entries(names)) this.#tableNames.set(b, n);
      this.#namesGeneration++;
      this.#created.clear();
      for (const c of created as string[]) this.#created.add(c);
      this.stop();
      if (st['running'] === true) {
        this.start();
        for (const [name, groups, flows] of programs) {
          const br = this.db.bridge(name);
          if (!br) continue;
          for (const g of groups) br.addGroup(g);
          if (flows.length) br.addFlows(flows.join('\n'));
        }
      }
    };
  }

  // ───────────── the Windows datapath's view of the host ─────────────

  /** The switch the Open vSwitch Extension is enabled on (OVS runs on one switch only). */
  private ovsSwitch(): SwitchView | undefined {
    for (const sw of this.plane.view().switches.values())
      if (sw.forwardingExtension?.id === OVS_EXTENSION_ID) return sw;
    return undefined;
  }

  /** A Hyper-V port of that friendly name on the OVS switch: its NIC, a host vNIC, an attached endpoint. */
  private hyperVPortExists(name: string): boolean {
    const sw = this.ovsSwitch();
    if (!sw) return false;
    const key = name.toLowerCase();
    if (sw.uplinkName?.toLowerCase() === key) return true;
    for (const a of this.hns.store.nics.adapters.values())
      if (a.Kind === 'HostVNic' && a.SwitchId === sw.id && a.Name.toLowerCase() === key) return true;
    const port = this.plane.view().portByRef.get(key);
    // attached: in a namespace (HCN), or hot-attached to a (schema 1) container (`SharedContainers`)
    return (
      port !== undefined &&
      !port.remote &&
      port.network.switchId === sw.id &&
      (port.compartment !== 0 || port.rec.SharedContainers.length > 0)
    );
  }

  /** create_wmi_port: adopt a Hyper-V port of that name, else create a host vNIC; false without an OVS switch. */
  private openInternal(name: string): boolean {
    if (this.hyperVPortExists(name)) return true;
    const sw = this.ovsSwitch();
    if (!sw) return false;
    // a name another adapter holds (a second NIC): the port cannot be opened
    if (this.hns.store.nics.adapters.has(name.toLowerCase())) return false;
    this.hns.store.nics.addVNic(sw.id, name, this.seed);
    this.hns.store.generation++;
    this.#created.add(name.toLowerCase());
    return true;
  }

  /** delete_wmi_port of a vNIC OVS created. */
  private closeInternal(name: string): void {
    if (!this.#created.delete(name.toLowerCase())) return;
    if (this.hns.store.nics.removeVNic(name)) this.hns.store.generation++;
  }
}

const ok = (stdout: string): OvsCommandResult => ({ status: 0, stdout, stderr: '' });
const fail = (stderr: string): OvsCommandResult => ({ status: 1, stdout: '', stderr: `${stderr}\n` });
