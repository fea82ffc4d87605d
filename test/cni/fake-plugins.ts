/**
 * Small in-test CNI plugins for the runtime's tests: each records what it received (command,
 * CmdArgs, stdin text, env) and answers with a fixed or computed result, or an error.
 */
import { createHost, type Host } from '../../src/host/host.js';
import {
  pluginHost,
  pluginMain,
  PluginRegistry,
  stdinText,
  type CmdArgs,
  type CmdFunc,
  type CniHost,
  type CniPlugin,
  type PluginContext,
} from '../../src/cni/index.js';

export interface Call {
  readonly command: string;
  readonly args: CmdArgs;
  readonly stdin: string;
  readonly conf: Record<string, unknown>;
  readonly env: Readonly<Record<string, string>>;
  readonly depth: number;
}

export interface FakeBehaviour {
  /** What ADD prints: a JSON text, or a function of the parsed stdin returning a JSON value. */
  add?: string | ((conf: Record<string, unknown>, ctx: PluginContext, args: CmdArgs) => unknown);
  /** Throw this from the given command. */
  fail?: Partial<Record<'ADD' | 'DEL' | 'CHECK' | 'GC' | 'STATUS', Error>>;
  versions?: readonly string[];
  about?: string;
  /** Leave these command functions out (Go's nil func). */
  omit?: readonly ('check' | 'status' | 'gc')[];
}

export interface Fake {
  readonly plugin: CniPlugin;
  readonly calls: Call[];
}

export function fakePlugin(type: string, behaviour: FakeBehaviour = {}): Fake {
  const calls: Call[] = [];
  const record =
    (command: 'ADD' | 'DEL' | 'CHECK' | 'GC' | 'STATUS'): CmdFunc =>
    async (args, ctx) => {
      const stdin = stdinText(args);
      calls.push({
        command,
        args,
        stdin,
        conf: JSON.parse(stdin) as Record<string, unknown>,
        env: ctx.env,
        depth: ctx.depth,
      });
      const err = behaviour.fail?.[command];
      if (err) throw err;
      if (command === 'ADD' && behaviour.add !== undefined) {
        const out =
          typeof behaviour.add === 'string'
            ? behaviour.add
            : JSON.stringify(await behaviour.add(JSON.parse(stdin) as Record<string, unknown>, ctx, args));
        ctx.stdout.write(out);
      }
    };
  const omit = new Set(behaviour.omit ?? []);
  const plugin = pluginMain(
    type,
    {
      add: record('ADD'),
      del: record('DEL'),
      ...(omit.has('check') ? {} : { check: record('CHECK') }),
      ...(omit.has('status') ? {} : { status: record('STATUS') }),
      ...(omit.has('gc') ? {} : { gc: record('GC') }),
    },
    behaviour.versions ?? ['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'],
    behaviour.about ?? '',
  );
  return { plugin, calls };
}

export const BIN = 'C:\\opt\\cni\\bin';

export function testNode(...plugins: CniPlugin[]): { host: Host; registry: PluginRegistry; node: CniHost } {
  const host = createHost();
  const registry = new PluginRegistry();
  for (const p of plugins) registry.register(p, [BIN]);
  return { host, registry, node: pluginHost(host, registry) };
}

/** The environment a runtime gives a plugin for `command`. */
export function cniEnv(command: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    CNI_COMMAND: command,
    CNI_CONTAINERID: 'some-container-id',
    CNI_NETNS: '/some/netns/path',
    CNI_IFNAME: 'eth0',
    CNI_ARGS: 'some;extra;args',
    CNI_PATH: BIN,
    ...extra,
  };
}
