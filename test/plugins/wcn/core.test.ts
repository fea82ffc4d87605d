/**
 * windows-container-networking's command bodies on paths the binary's skel does not reach or that
 * need an HNS failure. Source: microsoft/windows-container-networking @ b96345f
 * `common/core/network.go` (Add l.95: the empty-netns check; Delete l.425), `network/manager.go`
 * DeleteEndpoint l.142, with hcsshim v0.8.26 `hcn/hcnerrors.go` IsNotFoundError (only the client's own
 * not-found errors: an HNS `Element not found` on RemoveNamespaceEndpoint is an error).
 */
import { describe, expect, it } from 'vitest';
import { HcnClient } from '../../../src/api/hcn/client.js';
import { EndpointNotFoundError, HcnError, NamespaceNotFoundError } from '../../../src/api/hcn/errors.js';
import { pluginHost, PluginRegistry } from '../../../src/cni/index.js';
import type { CmdArgs, PluginContext } from '../../../src/cni/skel.js';
import { createHost } from '../../../src/host/host.js';
import { hostLocal } from '../../../src/plugins/host-local/index.js';
import { cmdAdd, isNotFoundError } from '../../../src/plugins/wcn/core.js';
import { nat, sdnbridge } from '../../../src/plugins/wcn/index.js';

const BIN = 'C:\\k\\cni';

function setup(): {
  host: ReturnType<typeof createHost>;
  hcn: HcnClient;
  run: (cmd: string, netns?: string) => Promise<{ exitCode: number; stdout: string }>;
} {
  const host = createHost();
  const registry = new PluginRegistry()
    .register(sdnbridge, [BIN])
    .register(nat, [BIN])
    .register(hostLocal, [BIN]);
  const node = pluginHost(host, registry);
  const conf = JSON.stringify({
    cniVersion: '0.4.0',
    name: 'cbr0',
    type: 'sdnbridge',
    ipam: { type: 'host-local', subnet: '10.244.1.0/24' },
  });
  return {
    host,
    hcn: HcnClient.forHost(host),
    run: (cmd, netns) =>
      node.exec(
        'sdnbridge',
        {
          env: {
            CNI_COMMAND: cmd,
            CNI_CONTAINERID: 'c1',
            CNI_IFNAME: 'eth0',
            CNI_PATH: BIN,
            ...(netns !== undefined ? { CNI_NETNS: netns } : {}),
          },
          stdin: conf,
        },
        0,
      ),
  };
}

describe('hcsshim v0.8.26 IsNotFoundError', () => {
  it("is true for the client's not-found errors only", () => {
    expect(isNotFoundError(new EndpointNotFoundError('x', ''))).toBe(true);
    expect(isNotFoundError(new NamespaceNotFoundError('x'))).toBe(true);
    expect(isNotFoundError(new HcnError('hcnModifyNamespace', 'ERROR_NOT_FOUND'))).toBe(false);
    expect(isNotFoundError(new Error('Endpoint name "x" not found'))).toBe(false);
  });
});

describe('ADD', () => {
  it('refuses an empty CNI_NETNS (reachable only past the skel, e.g. from CallPlugin)', async () => {
    const host = createHost();
    const node = pluginHost(host, new PluginRegistry());
    const out: string[] = [];
    const ctx: PluginContext = {
      host: node,
      env: {},
      stdout: { write: (t) => out.push(t) },
      stderr: { write: () => undefined },
      depth: 0,
    };
    const args: CmdArgs = {
      containerID: 'c1',
      netns: '',
      ifName: 'eth0',
      args: '',
      path: BIN,
      netnsOverride: '',
      stdinData: Buffer.from('{"cniVersion":"0.4.0","name":"natnet","type":"nat"}'),
    };
    const before = JSON.stringify(host.snapshot());
    await expect(cmdAdd(args, ctx)).rejects.toThrow('cannot create endpoint without a namespace');
    expect(out).toEqual([]);
    expect(JSON.stringify(host.snapshot())).toBe(before);
  });

  it('passes a network create failure through, before any IPAM', async () => {
    const { host, hcn, run } = setup();
    const ns = (await hcn.newNamespace('HostDefault').create()).ID;
    host.faults.fail({ method: 'HcnCreateNetwork' }, 'HCN_E_MANAGER_STOPPED', { times: 1 });
    const out = await run('ADD', ns);
    expect(out.exitCode).toBe(1);
    expect(JSON.parse(out.stdout).msg).toMatch(/^hcnCreateNetwork failed in Win32: .*\(0x803b0020\)/);
    expect(host.files.entries().filter(([p]) => p.startsWith('/var/lib/cni/networks/cbr0/'))).toEqual([]);
  });
});

describe('DEL (DeleteEndpoint)', () => {
  it('an HNS "Element not found" while leaving the namespace is an error with v0.8.26: the endpoint stays', async () => {
    const { host, hcn, run } = setup();
    const ns = (await hcn.newNamespace('HostDefault').create()).ID;
    expect((await run('ADD', ns)).exitCode).toBe(0);
    host.faults.fail({ method: 'HcnModifyNamespace' }, 'ERROR_NOT_FOUND', { times: 1 });
    const out = await run('DEL', ns);
    expect(out.exitCode).toBe(1);
    const msg = JSON.parse(out.stdout).msg as string;
    expect(msg).toMatch(
      /^error removing endpoint from namespace hcnModifyNamespace failed in Win32: Element not found\. \(0x490\)/,
    );
    expect(msg).toMatch(
      / : endpoint &\{[0-9A-F-]{36} c1_cbr0 [0-9A-F-]{36} [0-9A-F-]{36} \[\] \[\{10\.244\.1\.2 24\}\]/,
    );
    expect((await hcn.getEndpointByName('c1_cbr0')).Name).toBe('c1_cbr0');
    // IPAM was released first (P3's other side): a retry finds nothing to release and finishes
    expect((await run('DEL', ns)).exitCode).toBe(0);
    await expect(hcn.getEndpointByName('c1_cbr0')).rejects.toThrow('Endpoint name "c1_cbr0" not found');
  });

  it('a failed delete returns its error when the endpoint is still there', async () => {
    const { host, hcn, run } = setup();
    const ns = (await hcn.newNamespace('HostDefault').create()).ID;
    expect((await run('ADD', ns)).exitCode).toBe(0);
    host.faults.fail({ method: 'HcnDeleteEndpoint' }, 'HCN_E_MANAGER_STOPPED', { times: 1 });
    const out = await run('DEL', ns);
    expect(out.exitCode).toBe(1);
    expect(JSON.parse(out.stdout).msg).toMatch(/^hcnDeleteEndpoint failed in Win32: .*\(0x803b0020\)/);
    const ep = await hcn.getEndpointByName('c1_cbr0');
    // it already left the namespace
    expect(ep.HostComputeNamespace).toBe('');
  });
});
