/**
 * The `azure-vnet-ipam` CNI plugin (Azure/azure-container-networking v1.8.12: `cni/ipam/plugin/
 * main.go`, `cni/ipam/ipam.go`, `ipam/*.go`; reference azure-cni.md §1, §5, §8): addresses from the
 * secondary IP configurations of the VM's NICs, as the wireserver lists them.
 *
 * One invocation, as the binary runs: restore `azure-vnet-ipam.json` from the working directory (a
 * file Go cannot decode: `Failed to start IPAM plugin, err:<error>.` on stdout, exit 1, before any
 * command — VERSION included); then skel with versions 0.1.0–1.0.0. ADD parses the configuration
 * (`ipam.environment` default `azure`, `ipam.addressSpace` default `local`), asks the wireserver
 * once (a failure is only logged), takes a pool when `ipam.subnet` is empty (on `master`'s
 * interface when set; IPv6 for `ipam.type` `azure-vnet-ipamv6`) and an address keyed by the
 * container ID (the same container gets the same address again), and prints `ips[{address,
 * gateway: host 1}]`, `routes[{0.0.0.0/0 via host 1}]`, `dns.nameservers ["168.63.129.16"]` at the
 * configuration's version; with `ipam.type` `internal` it prints nothing (azure-vnet's in-process
 * call). DEL releases by `ipam.ipAddress`, else by container ID, within `ipam.subnet`. CHECK does
 * nothing. Failures are code 100 with upstream's texts (`Failed to allocate pool: no available
 * address pools`, `Failed to allocate address: No available addresses`, …); the state is written
 * after every change, as upstream saves after each manager call.
 *
 * Every invocation, VERSION included, holds the store lock `azure-vnet-ipam.lock` (its PID
 * inside) while it runs: another invocation in the same directory waits for it, up to 60 s of the
 * node's time (then `Failed to initialize key-value store of ipam plugin, err:…`, exit 1).
 * `ipam.environment: mas` or `fileIpam` reads the same NIC configuration from
 * `c:\k\interfaces.json` (once per process, JSON, MACs compared without `:`); `ipv6NodeIpam`
 * (what azure-vnet sets for `azure-vnet-ipamv6`) takes the node's IPv6 pod CIDR's first /120 from
 * the Kubernetes API named by `c:\k\config` (ipv6.ts, kube.ts).
 *
 * `azure-vnet-ipamv6` (ACN `cni/ipam/pluginv6/main.go`) is the same program under another name:
 * its state is `azure-vnet-ipamv6.json`, its lock `azure-vnet-ipamv6.lock`.
 */
import { joinPath } from '../../core/files.js';
import { formatIp } from '../../addr/ip.js';
import {
  CniError,
  type CniPlugin,
  type CniResult,
  type ExecOutput,
  type ExecRequest,
  type PluginHost,
} from '../../cni/contracts.js';
import { printResult } from '../../cni/result.js';
import { pluginMain, type CmdArgs, type PluginContext } from '../../cni/skel.js';
import { AddressManager, LOCAL_ADDRESS_SPACE, type IpamSource } from './manager.js';
import { loadState, saveManager } from './state.js';
import { goTimeText, LOCK_TIMEOUT_ERROR, withStoreLock } from '../azure-vnet/store.js';
import { decodeNetworkConfig } from '../azure-vnet/conf.js';
import { INTERFACE_INFO_URL, PlatformUnreachable, WIRESERVER_IP } from '../../host/azure.js';
import { errorMessage } from '../../core/errors.js';
import { KubeClient, loadKubeconfig } from './kube.js';

export { AddressManager, IPAM_ERRORS, IpamError, DNS_HOST_PROXY, LOCAL_ADDRESS_SPACE } from './manager.js';
export { decodeInterfaceDocument, type WireInterface } from './xml.js';
export { loadState, stateText, STORE_KEY } from './state.js';

/** Where the `mas` / `fileIpam` source reads the NIC configuration (ACN `ipam/fileIpam.go`). */
export const MAS_INTERFACES_FILE = 'c:\\k\\interfaces.json';

/** The release this plugin follows (its `version`, written into the state file as `Version`). */
export const AZURE_CNI_VERSION = 'v1.8.12';
/** ACN `cni/cni.go` `supportedVersions`. */
export const AZURE_CNI_VERSIONS: readonly string[] = ['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0'];
/** The state file's name, in the plugin's working directory. */
export const IPAM_STATE_FILE = 'azure-vnet-ipam.json';
/** Its store lock (`<plugin>.lock`, holding the PID), beside it. */
export const IPAM_LOCK_FILE = 'azure-vnet-ipam.lock';
/** The legacy dual-stack IPAM's name (`cni/ipam/pluginv6`), its state file and lock beside azure-vnet's. */
export const IPAM_V6_PLUGIN = 'azure-vnet-ipamv6';
export const IPAM_V6_STATE_FILE = 'azure-vnet-ipamv6.json';
export const IPAM_V6_LOCK_FILE = 'azure-vnet-ipamv6.lock';
/** Where a plugin runs when the runtime does not say: containerd as a Windows service. */
export const DEFAULT_CWD = 'C:\\Windows\\System32';
const IPAM_V6 = 'azure-vnet-ipamv6';

interface IpamConfig {
  readonly cniVersion: string;
  readonly master: string;
  readonly type: string;
  readonly addressSpace: string;
  readonly subnet: string;
  readonly ipAddress: string;
}

/** `plugin.Errorf`: a code-100 error. */
const errorf = (msg: string): CniError => new CniError(100, msg);

/** `fn()`, its error as `plugin.Errorf("<what>: %v", err)`. */
function step<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw errorf(`${what}: ${errorMessage(e)}`);
  }
}

/** `_ = fn()`: a deferred release whose error nobody reads. */
function ignoring(fn: () => void): void {
  try {
    fn();
  } catch {
    // dropped, as upstream drops it
  }
}

/** One process of the plugin: its manager over the state file and the node's wireserver. */
class IpamProcess {
  readonly am: AddressManager;
  private others = new Map<string, string>();

  constructor(
    private readonly host: PluginHost,
    private readonly path: string,
  ) {
    this.am = new AddressManager(() => this.save());
    this.am.Version = AZURE_CNI_VERSION;
  }

  /** `am.restore`: throws Go's error for a file it cannot decode. */
  restore(): void {
    this.others = loadState(this.host.files, this.path, this.am).others;
  }

  private dirty = false;

  /**
   * `am.save()`: the manager as it is now becomes the file's content. Upstream writes the file at
   * each save; every manager call saves right after its change (nothing changes the manager after
   * an invocation's last save), and the invocation holds the store lock and does not wait between
   * saves, so nothing can read the file in between: it is written once, when the invocation ends.
   */
  private save(): void {
    this.am.TimeStamp = goTimeText(this.host.clock.now());
    this.dirty = true;
  }

  /** Write the state file if a save asked for it. */
  flush(): void {
    if (!this.dirty) return;
    this.dirty = false;
    saveManager(this.host.files, this.path, this.am, this.others);
  }

  /** `Configure`: the configuration, its source started. */
  configure(args: CmdArgs): IpamConfig {
    const parse = 'Failed to parse network configuration';
    const doc = step(parse, () => decodeNetworkConfig(args.stdinData));
    const ipam = (doc['ipam'] ?? {}) as Record<string, string | undefined>;
    const host = this.host;
    const source: IpamSource = {
      fetch: () => {
        if (!host.platformGet) throw new PlatformUnreachable(INTERFACE_INFO_URL, `${WIRESERVER_IP}:80`);
        const reply = host.platformGet(INTERFACE_INFO_URL);
        if (reply.status !== 200) throw new Error(`wireserver http error: status ${reply.status}`);
        return reply.body;
      },
      interfaces: () => host.interfaces?.() ?? [],
      readFile: () => host.files.read(MAS_INTERFACES_FILE),
      kubernetes: {
        hostname: () => host.name,
        client: () => new KubeClient(host, loadKubeconfig(host)),
      },
    };
    step(parse, () => this.am.startSource(ipam['environment'] || 'azure', source));
    return {
      cniVersion: (doc['cniVersion'] as string | undefined) || '0.2.0',
      master: (doc['master'] as string | undefined) ?? '',
      type: ipam['type'] ?? '',
      addressSpace: ipam['addressSpace'] || LOCAL_ADDRESS_SPACE,
      subnet: ipam['subnet'] ?? '',
      ipAddress: ipam['ipAddress'] ?? '',
    };
  }

  async add(args: CmdArgs, ctx: PluginContext): Promise<void> {
    const { addressSpace: as, master, type, ipAddress, cniVersion, ...conf } = this.configure(args);
    const am = this.am;
    const id = args.containerID;
    let subnet = conf.subnet;
    let poolId = '';
    let address = '';
    try {
      if (subnet === '') {
        ({ poolId, subnet } = step('Failed to allocate pool', () =>
          am.requestPool(as, '', master, type === IPAM_V6),
        ));
      }
      address = step('Failed to allocate address', () => am.requestAddress(as, subnet, ipAddress, id));
      const info = step('Failed to get pool information', () => am.poolInfo(as, subnet));
      const gateway = formatIp(info.gateway);
      const result: CniResult = {
        cniVersion: '1.0.0',
        ips: [{ address, gateway }],
        routes: [{ dst: '0.0.0.0/0', gw: gateway }],
        dns: { nameservers: [...info.dnsServers] },
      };
      // `internal`: azure-vnet's in-process call reads the result instead
      if (type !== 'internal')
        step('Failed to convert result', () => printResult(ctx.stdout, result, cniVersion));
    } catch (e) {
      // upstream's deferred releases, the last deferred first
      if (address !== '') ignoring(() => am.releaseAddress(as, subnet, address, id));
      if (poolId !== '') ignoring(() => am.releasePool(as, poolId));
      throw e;
    }
    return Promise.resolve();
  }

  async del(args: CmdArgs): Promise<void> {
    const conf = this.configure(args);
    step('Failed to release address', () =>
      this.am.releaseAddress(conf.addressSpace, conf.subnet, conf.ipAddress, args.containerID),
    );
    return Promise.resolve();
  }
}

/** The skeleton the binary runs for one process. */
function skeleton(proc: IpamProcess, name: string): CniPlugin {
  return pluginMain(
    name,
    {
      add: (args, ctx) => proc.add(args, ctx),
      del: (args) => proc.del(args),
      // `Get` (CNI CHECK) returns nil
      check: () => Promise.resolve(),
    },
    AZURE_CNI_VERSIONS,
    AZURE_CNI_VERSION,
  );
}

/** The IPAM binary called `name`: its state `<name>.json`, its lock `<name>.lock`. */
function ipamBinary(name: string): CniPlugin {
  return {
    type: name,
    exec: (host, request, depth = 0) => runIpam(name, host, request, depth),
  };
}

/** The azure-vnet-ipam plugin. */
export const azureVnetIpam: CniPlugin = ipamBinary('azure-vnet-ipam');
/** The azure-vnet-ipamv6 plugin (`cni/ipam/pluginv6`: the same program, its own state file and lock). */
export const azureVnetIpamV6: CniPlugin = ipamBinary(IPAM_V6_PLUGIN);

/** One run of the binary `name`, as main.go runs it. */
function runIpam(name: string, host: PluginHost, request: ExecRequest, depth: number): Promise<ExecOutput> {
  const cwd = request.cwd ?? DEFAULT_CWD;
  const proc = new IpamProcess(host, joinPath(cwd, `${name}.json`));
  // main.go: a lock that times out is printed with fmt.Printf, then os.Exit(1)
  const lockTimedOut = (): ExecOutput => ({
    exitCode: 1,
    stdout: `Failed to initialize key-value store of ipam plugin, err:${LOCK_TIMEOUT_ERROR}.\n`,
    stderr: '',
  });
  return withStoreLock(
    host.files,
    host.clock,
    joinPath(cwd, `${name}.lock`),
    () => {
      try {
        proc.restore();
      } catch (e) {
        // main.go: Start fails before skel runs, printed with fmt.Printf, then os.Exit(1)
        return Promise.resolve({
          exitCode: 1,
          stdout: `Failed to start IPAM plugin, err:${errorMessage(e)}.\n`,
          stderr: '',
        });
      }
      return skeleton(proc, name)
        .exec(host, request, depth)
        .finally(() => proc.flush());
    },
    lockTimedOut,
  );
}
