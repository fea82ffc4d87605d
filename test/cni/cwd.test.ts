// The working directory of a plugin process (ExecRequest.cwd): the runtime's (CniRunnerOptions.cwd,
// cniNetwork's `cwd`), inherited by the IPAM plugin a plugin delegates to, as a child process starts
// in its parent's directory. azure-vnet-ipam keeps its state there (reference azure-cni.md §1.2:
// `C:\k` under dockershim/aks-engine, `C:\Windows\System32` under containerd as a service).
import { describe, expect, it } from 'vitest';
import { azureHost } from '../plugins/azure-vnet-ipam/kit.js';
import { referenceRegistry } from '../../src/plugins/index.js';
import { cniNetwork } from '../../src/runtime/network.js';
import { pluginMain, type PluginContext } from '../../src/cni/skel.js';
import { delegateAdd } from '../../src/cni/invoke.js';
import { printResult } from '../../src/cni/result.js';
import { stdinText } from '../../src/cni/skel.js';

/** A main plugin that records its working directory and hands ADD to its `ipam` plugin. */
function recorder(seen: (string | undefined)[]) {
  return pluginMain(
    'recorder',
    {
      async add(args, ctx: PluginContext) {
        seen.push(ctx.cwd);
        const conf = JSON.parse(stdinText(args)) as { cniVersion: string; ipam: { type: string } };
        printResult(ctx.stdout, await delegateAdd(ctx, conf.ipam.type, args.stdinData), conf.cniVersion);
      },
      async del() {},
    },
    ['0.4.0', '1.0.0'],
    '',
  );
}

const CONFLIST = {
  cniVersion: '1.0.0',
  name: 'azure',
  plugins: [{ type: 'recorder', ipam: { type: 'azure-vnet-ipam', subnet: '10.240.0.0/16' } }],
};

describe('a plugin process’s working directory', () => {
  it('is the runtime’s, and the delegated IPAM plugin starts in it too', async () => {
    for (const [cwd, state] of [
      ['C:\\k', 'C:\\k\\azure-vnet-ipam.json'],
      [undefined, 'C:\\Windows\\System32\\azure-vnet-ipam.json'],
    ] as const) {
      const host = azureHost(['10.240.0.5']);
      const seen: (string | undefined)[] = [];
      const registry = referenceRegistry();
      registry.register(recorder(seen));
      const net = cniNetwork(host, CONFLIST, { registry, ...(cwd !== undefined ? { cwd } : {}) });
      const result = await net.runner.addNetworkList(net.list, {
        containerId: 'pod-a',
        netns: 'none',
        ifName: 'eth0',
      });
      expect(result?.ips?.[0]?.address).toBe('10.240.0.5/16');
      expect(seen).toEqual([cwd]);
      expect(host.files.exists(state)).toBe(true);
    }
  });
});
