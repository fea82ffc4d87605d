/**
 * A node for the flannel plugin's tests: a host, a plugin registry with flannel and small in-test
 * delegates (each records what it received and answers with a fixed result or an error), and the
 * runtime's view of an invocation (env + stdin → exit code, stdout, stderr).
 */
import { createHost, type Host } from '../../../src/host/host.js';
import {
  CniError,
  pluginHost,
  pluginMain,
  PluginRegistry,
  stdinText,
  type CniHost,
  type CniPlugin,
  type ExecOutput,
} from '../../../src/cni/index.js';
import { flannel } from '../../../src/plugins/flannel/index.js';

export const BIN = 'C:\\opt\\cni\\bin';

export interface DelegateCall {
  readonly command: string;
  readonly stdin: string;
  readonly env: Readonly<Record<string, string>>;
  readonly depth: number;
}

export interface FakeDelegate {
  readonly plugin: CniPlugin;
  readonly calls: DelegateCall[];
}

/** A delegate that records its calls; ADD prints `result` (text), or a command throws `fail[cmd]`. */
export function fakeDelegate(
  type: string,
  opts: { result?: string; fail?: Partial<Record<'ADD' | 'DEL', Error>>; versions?: readonly string[] } = {},
): FakeDelegate {
  const calls: DelegateCall[] = [];
  const plugin = pluginMain(
    type,
    {
      add: async (args, ctx) => {
        calls.push({ command: 'ADD', stdin: stdinText(args), env: ctx.env, depth: ctx.depth });
        if (opts.fail?.ADD) throw opts.fail.ADD;
        ctx.stdout.write(opts.result ?? '{}');
        return Promise.resolve();
      },
      del: async (args, ctx) => {
        calls.push({ command: 'DEL', stdin: stdinText(args), env: ctx.env, depth: ctx.depth });
        if (opts.fail?.DEL) throw opts.fail.DEL;
        return Promise.resolve();
      },
    },
    opts.versions ?? ['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'],
    '',
  );
  return { plugin, calls };
}

/** The node: flannel plus the given delegates in C:\opt\cni\bin. */
export function flannelNode(...delegates: CniPlugin[]): {
  host: Host;
  node: CniHost;
  registry: PluginRegistry;
} {
  const host = createHost();
  const registry = new PluginRegistry().register(flannel, [BIN]);
  for (const d of delegates) registry.register(d, [BIN]);
  return { host, registry, node: pluginHost(host, registry) };
}

/** The env of a runtime's call (dockershim-style `none` netns unless given). */
export function env(command: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    CNI_COMMAND: command,
    CNI_CONTAINERID: 'c1',
    CNI_NETNS: 'none',
    CNI_IFNAME: 'eth0',
    CNI_PATH: BIN,
    ...extra,
  };
}

/** Run flannel as a runtime would. */
export function run(
  node: CniHost,
  command: string,
  conf: unknown,
  extra: Record<string, string> = {},
): Promise<ExecOutput> {
  return node.exec(
    'flannel',
    { env: env(command, extra), stdin: typeof conf === 'string' ? conf : JSON.stringify(conf) },
    0,
  );
}

/** The error document of a failed run. */
export function errorDoc(out: ExecOutput): { code: number; msg: string; details?: string } {
  return JSON.parse(out.stdout) as { code: number; msg: string; details?: string };
}

/** flanneld's subnet.env for 10.244.1.0/24 in 10.244.0.0/16 (what WriteSubnetFile writes). */
export const SUBNET_ENV =
  'FLANNEL_NETWORK=10.244.0.0/16\nFLANNEL_SUBNET=10.244.1.1/24\nFLANNEL_MTU=1450\nFLANNEL_IPMASQ=true\n';

export { CniError };
