/**
 * The spec's appendix chain (containernetworking/cni @ 3f51e880 `SPEC.md`, "Example configuration"
 * and "Appendix: Examples"; reference cni-windows.md §1.6): conflist `dbnet` = bridge → tuning (cap
 * `mac`) → portmap (cap `portMappings`), with `argA=foo` and CNI_IFNAME=eth0. Fake plugins print the
 * spec's results; the runner must hand each plugin the spec's `runtimeConfig` and `prevResult`, run
 * CHECK with the final result and DEL in reverse.
 */
import { describe, expect, it } from 'vitest';
import { delegateAdd, runList, stdinText, type CniListRequest } from '../../src/cni/index.js';
import { BIN, fakePlugin, testNode } from '../cni/fake-plugins.js';

// SPEC.md "Example configuration" (its jsonc comments removed)
const DBNET = `{
  "cniVersion": "1.1.0",
  "cniVersions": ["0.3.1", "0.4.0", "1.0.0", "1.1.0"],
  "name": "dbnet",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "cni0",
      "keyA": ["some more", "plugin specific", "configuration"],
      "ipam": {
        "type": "host-local",
        "subnet": "10.1.0.0/16",
        "gateway": "10.1.0.1",
        "routes": [
            {"dst": "0.0.0.0/0"}
        ]
      },
      "dns": {
        "nameservers": [ "10.1.0.1" ]
      }
    },
    {
      "type": "tuning",
      "capabilities": {
        "mac": true
      },
      "sysctl": {
        "net.core.somaxconn": "500"
      }
    },
    {
        "type": "portmap",
        "capabilities": {"portMappings": true}
    }
  ]
}`;

// SPEC.md Appendix: what host-local returns, and what bridge returns
const HOST_LOCAL_RESULT = {
  ips: [{ address: '10.1.0.5/16', gateway: '10.1.0.1' }],
  routes: [{ dst: '0.0.0.0/0' }],
  dns: { nameservers: ['10.1.0.1'] },
};
const BRIDGE_RESULT = {
  ips: [{ address: '10.1.0.5/16', gateway: '10.1.0.1', interface: 2 }],
  routes: [{ dst: '0.0.0.0/0' }],
  interfaces: [
    { name: 'cni0', mac: '00:11:22:33:44:55' },
    { name: 'veth3243', mac: '55:44:33:22:11:11' },
    { name: 'eth0', mac: '99:88:77:66:55:44', sandbox: '/var/run/netns/blue' },
  ],
  dns: { nameservers: ['10.1.0.1'] },
};
// tuning's result: "Note that the **mac** has changed."
const TUNED_RESULT = {
  ...BRIDGE_RESULT,
  interfaces: [
    BRIDGE_RESULT.interfaces[0]!,
    BRIDGE_RESULT.interfaces[1]!,
    { ...BRIDGE_RESULT.interfaces[2]!, mac: '00:11:22:33:44:66' },
  ],
};

function chain(): ReturnType<typeof build> {
  return build();
}

function build() {
  const hostLocal = fakePlugin('host-local', { add: () => HOST_LOCAL_RESULT });
  // bridge delegates IPAM "with the exact same input", then returns its own result
  const bridge = fakePlugin('bridge', {
    add: async (conf, ctx, args) => {
      const ipam = await delegateAdd(ctx, (conf['ipam'] as { type: string }).type, args.stdinData);
      expect(ipam.ips?.[0]?.address).toBe('10.1.0.5/16');
      return BRIDGE_RESULT;
    },
  });
  const tuning = fakePlugin('tuning', {
    add: (conf) => {
      const prev = structuredClone(conf['prevResult']) as typeof BRIDGE_RESULT;
      prev.interfaces[2]!.mac = (conf['runtimeConfig'] as { mac: string }).mac;
      return prev;
    },
  });
  const portmap = fakePlugin('portmap', { add: (conf) => conf['prevResult'] });
  const t = testNode(hostLocal.plugin, bridge.plugin, tuning.plugin, portmap.plugin);
  return { ...t, hostLocal, bridge, tuning, portmap };
}

const REQUEST: Omit<CniListRequest, 'command'> = {
  conflist: DBNET,
  containerId: 'dbcontainer',
  netns: '/var/run/netns/blue',
  ifname: 'eth0',
  args: 'argA=foo',
  capabilityArgs: {
    mac: '00:11:22:33:44:66',
    portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }],
  },
};

/** The spec shows results without cniVersion; libcni adds the config's (fixupResultVersion). */
const at110 = <T extends object>(r: T): T & { cniVersion: string } => ({ cniVersion: '1.1.0', ...r });

describe('SPEC.md appendix: dbnet', () => {
  it('Add example: each plugin gets the spec request; the final result is tuning’s', async () => {
    const c = chain();
    const out = await runList(c.node, { path: [BIN] }, { ...REQUEST, command: 'ADD' });
    expect(out.ok).toBe(true);
    expect(out.result).toEqual(at110(TUNED_RESULT));

    // 1) bridge: cniVersion, name injected; no prevResult, no runtimeConfig
    const bridgeConf = c.bridge.calls[0]!.conf;
    expect(bridgeConf).toEqual({
      ...(JSON.parse(DBNET) as { plugins: object[] }).plugins[0],
      cniVersion: '1.1.0',
      name: 'dbnet',
    });
    expect(c.bridge.calls[0]!.env).toMatchObject({
      CNI_COMMAND: 'ADD',
      CNI_IFNAME: 'eth0',
      CNI_ARGS: 'argA=foo',
    });
    // host-local runs with the exact same input, CNI_COMMAND=ADD, one level deeper
    expect(c.hostLocal.calls[0]!.stdin).toBe(c.bridge.calls[0]!.stdin);
    expect(c.hostLocal.calls[0]!.depth).toBe(1);

    // 2) tuning: runtimeConfig {mac} and prevResult = bridge's result
    const tuningConf = c.tuning.calls[0]!.conf;
    expect(tuningConf['runtimeConfig']).toEqual({ mac: '00:11:22:33:44:66' });
    expect(tuningConf['prevResult']).toEqual(at110(BRIDGE_RESULT));
    expect(tuningConf['sysctl']).toEqual({ 'net.core.somaxconn': '500' });

    // 3) portmap: runtimeConfig {portMappings} and prevResult = tuning's (mac changed)
    const portmapConf = c.portmap.calls[0]!.conf;
    expect(portmapConf['runtimeConfig']).toEqual({
      portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }],
    });
    expect(portmapConf['prevResult']).toEqual(at110(TUNED_RESULT));
  });

  it('Check example: every plugin in order with the final result (mac changed) as prevResult', async () => {
    const c = chain();
    await runList(c.node, { path: [BIN] }, { ...REQUEST, command: 'ADD' });
    const out = await runList(c.node, { path: [BIN] }, { ...REQUEST, command: 'CHECK' });
    expect(out).toEqual({ ok: true });
    for (const p of [c.bridge, c.tuning, c.portmap]) {
      expect(p.calls[1]!.command).toBe('CHECK');
      expect(p.calls[1]!.conf['prevResult']).toEqual(at110(TUNED_RESULT));
    }
    expect(c.tuning.calls[1]!.conf['runtimeConfig']).toEqual({ mac: '00:11:22:33:44:66' });
    expect(c.bridge.calls[1]!.conf).not.toHaveProperty('runtimeConfig');
  });

  it('Delete example: reverse order, each with the cached result; the cache is removed', async () => {
    const c = chain();
    await runList(c.node, { path: [BIN] }, { ...REQUEST, command: 'ADD' });
    expect(c.host.files.exists('/var/lib/cni/results/dbnet-dbcontainer-eth0')).toBe(true);
    const order: string[] = [];
    c.host.events.on('cni.exec', (e) => order.push(`${e.plugin}:${e.command}`));
    const out = await runList(c.node, { path: [BIN] }, { ...REQUEST, command: 'DEL' });
    expect(out).toEqual({ ok: true });
    expect(order).toEqual(['portmap:DEL', 'tuning:DEL', 'bridge:DEL']);
    const portmapDel = c.portmap.calls[1]!.conf;
    expect(portmapDel['runtimeConfig']).toEqual({
      portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }],
    });
    expect(portmapDel['prevResult']).toEqual(at110(TUNED_RESULT));
    expect(c.host.files.exists('/var/lib/cni/results/dbnet-dbcontainer-eth0')).toBe(false);
  });

  it('the cached attachment holds the conflist bytes (base64) and the runtime args', async () => {
    const c = chain();
    await runList(c.node, { path: [BIN] }, { ...REQUEST, command: 'ADD' });
    const doc = JSON.parse(c.host.files.read('/var/lib/cni/results/dbnet-dbcontainer-eth0')!) as Record<
      string,
      unknown
    >;
    expect(Object.keys(doc)).toEqual([
      'kind',
      'containerId',
      'config',
      'ifName',
      'networkName',
      'netns',
      'cniArgs',
      'capabilityArgs',
      'result',
    ]);
    expect(Buffer.from(doc['config'] as string, 'base64').toString()).toBe(DBNET);
    expect(doc['cniArgs']).toEqual([['argA', 'foo']]);
    expect(doc['result']).toEqual(at110(TUNED_RESULT));
    expect(stdinText(c.bridge.calls[0]!.args)).toBe(c.bridge.calls[0]!.stdin);
  });
});
