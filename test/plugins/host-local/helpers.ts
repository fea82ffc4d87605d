/**
 * Fixtures for the host-local tests: Go's `fakestore` (containernetworking/plugins @3d27709f
 * `plugins/ipam/host-local/backend/testing/fake_store.go`), the `mustSubnet`/`networkSubnet`
 * helpers of range_test.go, and a simulated node to run the plugin on, through its skeleton (`exec`)
 * or by calling a command function directly as host_local_test.go calls `cmdAdd(args)`.
 */
import { createHost, type Host } from '../../../src/host/host.js';
import {
  pluginHost,
  PluginRegistry,
  type CmdArgs,
  type CmdFunc,
  type CniHost,
  type ExecOutput,
  type PluginContext,
} from '../../../src/cni/index.js';
import {
  hostLocal,
  ipString,
  networkIP,
  parseCIDR,
  parseIP,
  type IP,
  type IPNet,
  type Store,
} from '../../../src/plugins/host-local/index.js';

/** `fakestore.FakeStore`: ip text → id, and the last reserved IP per range ID. */
export class FakeStore implements Store {
  constructor(
    public ipMap: Map<string, string> = new Map(),
    public lastReserved: Map<string, IP | undefined> = new Map(),
  ) {}

  lock(): void {}
  unlock(): void {}
  close(): void {}

  reserve(id: string, _ifname: string, ip: IP, rangeID: string): boolean {
    const key = ipString(ip);
    if (this.ipMap.has(key)) return false;
    this.ipMap.set(key, id);
    this.lastReserved.set(rangeID, ip);
    return true;
  }

  /** A missing key is os.ErrNotExist; a present one may hold nil (`net.ParseIP("")`). */
  lastReservedIP(rangeID: string): IP | undefined {
    return this.lastReserved.get(rangeID);
  }

  releaseByID(id: string): void {
    for (const [k, v] of [...this.ipMap]) if (v === id) this.ipMap.delete(k);
  }

  getByID(id: string): IP[] {
    const out: IP[] = [];
    for (const [k, v] of this.ipMap) if (v === id) out.push(parseIP(k)!);
    return out;
  }
}

/** `net.ParseIP(s)` that must succeed. */
export function ip(s: string): IP {
  const v = parseIP(s);
  if (!v) throw new Error(`bad test IP ${s}`);
  return v;
}

/** range_test.go `mustSubnet`: `types.ParseCIDR` (the address as written), canonicalised. */
export function mustSubnet(s: string): IPNet {
  const n = parseCIDR(s);
  if (!n) throw new Error(`bad test CIDR ${s}`);
  return n;
}

/** range_test.go `networkSubnet`: the subnet with its host bits cleared. */
export function networkSubnet(s: string): IPNet {
  const n = mustSubnet(s);
  return { ...n, ip: networkIP(n) };
}

export interface Node {
  readonly host: Host;
  readonly ph: CniHost;
}

export function node(seed = 1): Node {
  const host = createHost({ seed });
  return { host, ph: pluginHost(host, new PluginRegistry().register(hostLocal)) };
}

export interface Invocation {
  readonly containerID?: string;
  readonly ifName?: string;
  readonly netns?: string;
  readonly args?: string;
}

/** Run host-local through its skeleton, as a runtime would. */
export function exec(n: Node, command: string, conf: string, inv: Invocation = {}): Promise<ExecOutput> {
  return hostLocal.exec(n.ph, {
    env: {
      CNI_COMMAND: command,
      CNI_CONTAINERID: inv.containerID ?? 'dummy',
      CNI_NETNS: inv.netns ?? '/some/where',
      CNI_IFNAME: inv.ifName ?? 'eth0',
      CNI_PATH: 'C:\\opt\\cni\\bin',
      ...(inv.args !== undefined ? { CNI_ARGS: inv.args } : {}),
    },
    stdin: conf,
  });
}

/** The printed document of a run (result or error). */
export function doc(out: ExecOutput): Record<string, unknown> {
  return JSON.parse(out.stdout) as Record<string, unknown>;
}

/**
 * Call a command function directly (`cmdAdd(args)` in host_local_test.go, bypassing skel's checks):
 * what it printed, or the error it threw.
 */
export async function direct(
  n: Node,
  fn: CmdFunc,
  conf: string,
  inv: Invocation = {},
): Promise<{ stdout: string; stderr: string; error?: Error }> {
  let stdout = '';
  let stderr = '';
  const args: CmdArgs = {
    containerID: inv.containerID ?? 'dummy',
    netns: inv.netns ?? '/some/where',
    ifName: inv.ifName ?? 'eth0',
    args: inv.args ?? '',
    path: '',
    netnsOverride: '1',
    stdinData: Buffer.from(conf, 'utf8'),
  };
  const ctx: PluginContext = {
    host: n.ph,
    env: {},
    stdout: { write: (t) => void (stdout += t) },
    stderr: { write: (t) => void (stderr += t) },
    depth: 0,
  };
  try {
    await fn(args, ctx);
    return { stdout, stderr };
  } catch (e) {
    return { stdout, stderr, error: e as Error };
  }
}
