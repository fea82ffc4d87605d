/**
 * libcni against containernetworking/cni @ 3f51e880 `libcni/api_test.go` and `libcni/conf_test.go`:
 * the same configs, runtime confs and expectations, run through `CniRunner` with an in-test `noop`
 * plugin that behaves like upstream's `plugins/test/noop` (ReportResult, "PASSTHROUGH",
 * "INJECT-DNS", ReportError/ReportErrorCode), keyed by the config's `some-key` as upstream keys its
 * debug files. The node's disk (`host.files`) stands in for the temp directories.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import {
  CniError,
  CniRunner,
  confListFromBytes,
  confListFromConf,
  injectConf,
  loadConf,
  loadConfList,
  pluginConfFromBytes,
  pluginMain,
  resultJson,
  stdinText,
  type CmdArgs,
  type CniHost,
  type NetworkConfigList,
  type RuntimeConf,
} from '../../src/cni/index.js';
import type { Host } from '../../src/host/host.js';
import { cniErrorOf, LibcniError } from '../../src/cni/runner.js';
import { testNode } from '../cni/fake-plugins.js';

const CACHE = 'C:\\cni_cachedir';
const BIN = 'C:\\cni\\bin';
const CURRENT = '1.1.0';

interface NoopDebug {
  reportResult?: string;
  reportError?: string;
  reportErrorCode?: number;
}
interface NoopCall {
  command: string;
  args: CmdArgs;
  stdin: string;
}

/** plugins/test/noop: behaviour and call log per `some-key` (or per `name` for single configs). */
function noopPlugin(
  debug: Map<string, NoopDebug>,
  log: Map<string, NoopCall[]>,
): ReturnType<typeof pluginMain> {
  const act =
    (command: string) =>
    async (args: CmdArgs, ctx: { stdout: { write(t: string): void } }): Promise<void> => {
      const stdin = stdinText(args);
      const conf = JSON.parse(stdin) as Record<string, unknown>;
      const key = (conf['some-key'] as string | undefined) ?? (conf['name'] as string);
      const calls = log.get(key) ?? [];
      calls.push({ command, args, stdin });
      log.set(key, calls);
      const d = debug.get(key) ?? {};
      if (d.reportError) throw new CniError(d.reportErrorCode ?? 0, d.reportError);
      if (command !== 'ADD') return;
      if (d.reportResult === 'PASSTHROUGH' || d.reportResult === 'INJECT-DNS') {
        const prev = conf['prevResult'] as Record<string, unknown>;
        if (d.reportResult === 'INJECT-DNS') prev['dns'] = { nameservers: ['1.2.3.4'] };
        ctx.stdout.write(JSON.stringify(prev));
      } else if (d.reportResult) ctx.stdout.write(d.reportResult);
    };
  return pluginMain(
    'noop',
    { add: act('ADD'), del: act('DEL'), check: act('CHECK'), gc: act('GC'), status: act('STATUS') },
    ['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'],
    '',
  );
}

let host: Host;
let node: CniHost;
let debug: Map<string, NoopDebug>;
let log: Map<string, NoopCall[]>;
let cni: CniRunner;

beforeEach(() => {
  debug = new Map();
  log = new Map();
  ({ host, node } = testNode());
  node.registry.register(noopPlugin(debug, log), [BIN]);
  cni = new CniRunner(node, { path: [BIN], cacheDir: CACHE });
});

const cacheFile = (net: string, rt: RuntimeConf): string =>
  `${CACHE}\\results\\${net}-${rt.containerId}-${rt.ifName}`;

describe('api_test.go: Capabilities', () => {
  const pluginConfig = `{
				"type": "noop",
				"name": "apitest",
				"cniVersion": "${CURRENT}",
				"capabilities": {
					"portMappings": true,
					"somethingElse": true,
					"noCapability": false
				}
			}`;
  const rt = (capabilityArgs: Record<string, unknown>): RuntimeConf => ({
    containerId: 'some-container-id',
    netns: '/some/netns/path',
    ifName: 'some-eth0',
    args: [['DEBUG', 'x']],
    capabilityArgs,
  });

  beforeEach(() => {
    debug.set('apitest', {
      reportResult: `{"cniVersion": "${CURRENT}", "ips": [{"address": "10.1.2.3/24"}], "dns": {}}`,
    });
  });

  it('adds correct runtime config for capabilities to stdin', async () => {
    await cni.addNetwork(
      pluginConfFromBytes(pluginConfig),
      rt({
        portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }],
        somethingElse: ['foobar', 'baz'],
        noCapability: true,
        notAdded: [true, false],
      }),
    );
    const call = log.get('apitest')![0]!;
    expect(call.command).toBe('ADD');
    const rc = (JSON.parse(call.stdin) as Record<string, Record<string, unknown>>)['runtimeConfig']!;
    expect(Object.keys(rc).sort()).toEqual(['portMappings', 'somethingElse']);
  });

  it('adds no runtimeConfig when the plugin advertises no used capabilities', async () => {
    await cni.addNetwork(
      pluginConfFromBytes(pluginConfig),
      rt({
        portMappings22: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }],
        somethingElse22: ['foobar', 'baz'],
      }),
    );
    expect(JSON.parse(log.get('apitest')![0]!.stdin)).not.toHaveProperty('runtimeConfig');
  });

  it('outputs correct capabilities for validate', async () => {
    const list = confListFromConf(pluginConfFromBytes(pluginConfig));
    expect(await cni.validateNetworkList(list)).toEqual(['portMappings', 'somethingElse']);
  });
});

describe('api_test.go: Invoking a single plugin', () => {
  const portMappings = [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }];
  const pluginConfig = `{
				"type": "noop",
				"name": "apitest",
				"some-key": "some-value",
				"cniVersion": "${CURRENT}",
				"capabilities": { "portMappings": true }
			}`;
  let rt: RuntimeConf;
  beforeEach(() => {
    rt = {
      containerId: 'some-container-id',
      netns: '/some/netns/path',
      ifName: 'some-eth0',
      args: [['DEBUG', 'debugFile']],
      capabilityArgs: { portMappings },
    };
    debug.set('some-value', {
      reportResult: `{"cniVersion": "${CURRENT}", "ips": [{"address": "10.1.2.3/24"}], "dns": {}}`,
    });
  });

  it('AddNetwork executes the plugin with command ADD and caches config, result and attachment', async () => {
    const net = pluginConfFromBytes(pluginConfig);
    const r = await cni.addNetwork(net, rt);
    expect(resultJson(r, '1.1.0')).toEqual({ cniVersion: '1.1.0', ips: [{ address: '10.1.2.3/24' }] });
    const call = log.get('some-value')![0]!;
    expect(call.command).toBe('ADD');
    expect(call.args).toMatchObject({
      containerID: 'some-container-id',
      netns: '/some/netns/path',
      ifName: 'some-eth0',
      args: 'DEBUG=debugFile',
      path: BIN,
    });
    // the expected stdin: the config as a map plus runtimeConfig, marshalled (keys sorted)
    const expected = { ...(JSON.parse(pluginConfig) as object), runtimeConfig: { portMappings } };
    expect(JSON.parse(call.stdin)).toEqual(expected);
    expect(call.stdin).toContain('"portMappings":');

    const cached = cni.getNetworkCachedConfig(net, rt)!;
    expect(Buffer.from(cached.config).toString()).toBe(pluginConfig);
    expect(cached.rt.args).toEqual(rt.args);
    expect(cached.rt.capabilityArgs).toEqual(rt.capabilityArgs);

    const cachedResult = cni.getNetworkCachedResult(net, rt)!;
    expect(resultJson(cachedResult, '1.1.0')).toEqual(resultJson(r, '1.1.0'));

    for (const cid of ['', rt.containerId]) {
      expect(cni.getCachedAttachments(cid)).toEqual([
        {
          containerId: rt.containerId,
          network: 'apitest',
          netns: rt.netns,
          ifName: rt.ifName,
          config: new Uint8Array(Buffer.from(pluginConfig)),
          cniArgs: rt.args,
          capabilityArgs: rt.capabilityArgs,
        },
      ]);
    }
  });

  it('AddNetwork: when finding the plugin fails', async () => {
    const net = pluginConfFromBytes(pluginConfig.replace('"noop"', '"does-not-exist"'));
    await expect(cni.addNetwork(net, rt)).rejects.toThrow(/failed to find plugin "does-not-exist"/);
  });

  it('AddNetwork: the plugin error is unmarshalled and returned', async () => {
    debug.set('some-value', { reportError: 'plugin error: banana' });
    await expect(cni.addNetwork(pluginConfFromBytes(pluginConfig), rt)).rejects.toThrow(
      /^plugin error: banana$/,
    );
  });

  it('AddNetwork: an error when the cache directory cannot be used (results is a file)', async () => {
    host.files.write(`${CACHE}\\results`, 'afdsasdfasdf');
    await expect(cni.addNetwork(pluginConfFromBytes(pluginConfig), rt)).rejects.toThrow();
  });

  it('CheckNetwork executes the plugin with command CHECK and the cached result as prevResult', async () => {
    const cachedJson = `{
					"cniVersion": "${CURRENT}",
					"ips": [{"address": "10.1.2.3/24"}]
				}`;
    host.files.write(cacheFile('apitest', rt), cachedJson);
    await cni.checkNetwork(pluginConfFromBytes(pluginConfig), rt);
    const call = log.get('some-value')![0]!;
    expect(call.command).toBe('CHECK');
    expect(call.stdin).toContain('"portMappings":');
    expect(JSON.parse(call.stdin)).toEqual({
      ...(JSON.parse(pluginConfig) as object),
      runtimeConfig: { portMappings },
      prevResult: JSON.parse(cachedJson),
    });
  });

  it('CheckNetwork: plugin errors and missing plugins', async () => {
    await expect(
      cni.checkNetwork(pluginConfFromBytes(pluginConfig.replace('"noop"', '"does-not-exist"')), rt),
    ).rejects.toThrow(/failed to find plugin "does-not-exist"/);
    debug.set('some-value', { reportError: 'plugin error: banana' });
    await expect(cni.checkNetwork(pluginConfFromBytes(pluginConfig), rt)).rejects.toThrow(
      /^plugin error: banana$/,
    );
  });

  it('CHECK with a config version below 0.4.0 fails as CHECK is not supported', async () => {
    const net = pluginConfFromBytes(`{"type": "noop", "name": "apitest", "cniVersion": "0.3.1"}`);
    await expect(cni.checkNetwork(net, rt)).rejects.toThrow(
      /^configuration version "0\.3\.1" does not support the CHECK command$/,
    );
    expect(log.size).toBe(0);
  });

  it('CHECK: a cached result that is invalid JSON is an error', async () => {
    host.files.write(cacheFile('apitest', rt), 'adfadsfasdfasfdsafaf');
    await expect(cni.checkNetwork(pluginConfFromBytes(pluginConfig), rt)).rejects.toThrow(
      /^failed to get network "apitest" cached result: decoding version from network config: invalid character 'a' looking for beginning of value$/,
    );
  });

  it('CHECK: a cached result at another version that can be converted', async () => {
    host.files.write(
      cacheFile('apitest', rt),
      `{"cniVersion": "0.3.1", "ips": [{"version": "4", "address": "10.1.2.3/24"}], "dns": {}}`,
    );
    await cni.checkNetwork(pluginConfFromBytes(pluginConfig), rt);
    expect(JSON.parse(log.get('some-value')![0]!.stdin).prevResult).toEqual({
      cniVersion: CURRENT,
      ips: [{ address: '10.1.2.3/24' }],
    });
  });

  it('CHECK: a cached result that cannot be converted', async () => {
    host.files.write(
      cacheFile('apitest', rt),
      `{"cniVersion": "0.4567.0", "ips": [{"version": "4", "address": "10.1.2.3/24"}], "dns": {}}`,
    );
    await expect(cni.checkNetwork(pluginConfFromBytes(pluginConfig), rt)).rejects.toThrow(
      /^failed to get network "apitest" cached result: unsupported CNI result version "0\.4567\.0"$/,
    );
  });

  it('DelNetwork executes the plugin with command DEL, with prevResult, and deletes the cache after the first DEL', async () => {
    const net = pluginConfFromBytes(pluginConfig);
    await cni.addNetwork(net, rt);
    expect(host.files.exists(cacheFile('apitest', rt))).toBe(true);
    await cni.delNetwork(net, rt);
    const del = log.get('some-value')![1]!;
    expect(del.command).toBe('DEL');
    expect(JSON.parse(del.stdin).prevResult).toEqual({
      cniVersion: CURRENT,
      ips: [{ address: '10.1.2.3/24' }],
    });
    expect(host.files.exists(cacheFile('apitest', rt))).toBe(false);
    expect(cni.getNetworkCachedConfig(net, rt)).toBeUndefined();
    await cni.delNetwork(net, rt);
    expect(JSON.parse(log.get('some-value')![2]!.stdin)).not.toHaveProperty('prevResult');
  });

  it('DEL below 0.4.0 passes no prevResult; an invalid cache is tolerated', async () => {
    const old = pluginConfFromBytes(
      `{"type": "noop", "name": "apitest", "cniVersion": "0.3.1", "some-key": "some-value"}`,
    );
    host.files.write(
      cacheFile('apitest', rt),
      `{"cniVersion": "0.3.1", "ips": [{"version": "4", "address": "10.1.2.3/24"}]}`,
    );
    await cni.delNetwork(old, rt);
    expect(log.get('some-value')![0]!.stdin).not.toContain('"prevResult":');
    host.files.write(cacheFile('apitest', rt), 'adfadsfasdfasfdsafaf');
    await cni.delNetwork(pluginConfFromBytes(pluginConfig), rt);
    expect(log.get('some-value')![1]!.stdin).not.toContain('"prevResult":');
  });

  it('GetVersionInfo executes the plugin with the command VERSION', async () => {
    expect(await cni.getVersionInfo('noop')).toEqual({
      cniVersion: CURRENT,
      supportedVersions: ['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'],
    });
    await expect(cni.getVersionInfo('does-not-exist')).rejects.toThrow(
      /failed to find plugin "does-not-exist"/,
    );
  });
});

describe('api_test.go: Invoking a plugin list', () => {
  const capabilityArgs = {
    portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }],
    otherCapability: 33,
  };
  let rt: RuntimeConf;
  const ipResult = `{"cniVersion": "${CURRENT}", "ips":[{"address": "10.1.2.3/24"}]}`;

  /** makePluginList: three noop configs; the 2nd and 3rd carry an on-disk prevResult. */
  function makePluginList(
    cniVersion: string,
    ip: string,
  ): { list: NetworkConfigList; stdin: Record<string, unknown>[] } {
    const configs = [
      { value: 'some-value', prev: '', caps: ['portMappings', 'otherCapability'], result: ip },
      { value: 'some-other-value', prev: ip, caps: ['otherCapability'], result: 'PASSTHROUGH' },
      { value: 'yet-another-value', prev: ip, caps: [] as string[], result: 'INJECT-DNS' },
    ];
    const texts = configs.map((c) => {
      let config = `{"type": "noop", "some-key": "${c.value}"`;
      if (c.prev) config += `, "prevResult": ${c.prev}`;
      if (c.caps.length) config += `, "capabilities": {${c.caps.map((x) => `"${x}": true`).join(', ')}}`;
      return `${config}}`;
    });
    configs.forEach((c) => debug.set(c.value, { reportResult: c.result }));
    const stdin = configs.map((c, i) => {
      const conf = JSON.parse(texts[i]!) as Record<string, unknown>;
      conf['name'] = 'some-list';
      conf['cniVersion'] = cniVersion;
      const rc = Object.fromEntries(Object.entries(capabilityArgs).filter(([k]) => c.caps.includes(k)));
      if (Object.keys(rc).length) conf['runtimeConfig'] = rc;
      return conf;
    });
    const list = confListFromBytes(`{
"name": "some-list",
"cniVersion": "${cniVersion}",
"plugins": [
${texts.join(',\n')}
]
}`);
    return { list, stdin };
  }

  beforeEach(() => {
    rt = {
      containerId: 'some-container-id',
      netns: '/some/netns/path',
      ifName: 'some-eth0',
      args: [['FOO', 'BAR']],
      capabilityArgs,
    };
  });

  const expectedArgs = {
    containerID: 'some-container-id',
    netns: '/some/netns/path',
    ifName: 'some-eth0',
    args: 'FOO=BAR',
    path: BIN,
  };

  it('AddNetworkList executes all plugins with command ADD and returns an intermediate result', async () => {
    const { list, stdin } = makePluginList(CURRENT, ipResult);
    const r = await cni.addNetworkList(list, rt);
    expect(resultJson(r!, '1.1.0')).toEqual({
      cniVersion: '1.1.0',
      ips: [{ address: '10.1.2.3/24' }],
      dns: { nameservers: ['1.2.3.4'] },
    });
    ['some-value', 'some-other-value', 'yet-another-value'].forEach((key, i) => {
      const call = log.get(key)![0]!;
      expect(call.command).toBe('ADD');
      const want = { ...stdin[i]! };
      // plugins after the first get the previous plugin's result (libcni replaces the on-disk one)
      if (i === 1) want['prevResult'] = { cniVersion: CURRENT, ips: [{ address: '10.1.2.3/24' }] };
      if (i === 2) want['prevResult'] = { cniVersion: CURRENT, ips: [{ address: '10.1.2.3/24' }] };
      expect(JSON.parse(call.stdin)).toEqual(want);
      expect(call.args).toMatchObject(expectedArgs);
    });
  });

  it('writes the correct cached result and config', async () => {
    const { list } = makePluginList(CURRENT, ipResult);
    const r = await cni.addNetworkList(list, rt);
    expect(resultJson(cni.getNetworkListCachedResult(list, rt)!, '1.1.0')).toEqual(resultJson(r!, '1.1.0'));
    const cached = cni.getNetworkListCachedConfig(list, rt)!;
    expect(Buffer.from(cached.config).equals(Buffer.from(list.bytes))).toBe(true);
    expect(cached.rt.args).toEqual(rt.args);
    expect(cached.rt.capabilityArgs).toEqual(capabilityArgs);
  });

  it('AddNetworkList: a missing plugin, an invalid containerID, network name or interface name', async () => {
    const { list } = makePluginList(CURRENT, ipResult);
    const broken = {
      ...list,
      plugins: list.plugins.map((p, i) =>
        i === 1 ? { ...p, network: { ...p.network, type: 'does-not-exist' } } : p,
      ),
    };
    await expect(cni.addNetworkList(broken, rt)).rejects.toThrow(/failed to find plugin "does-not-exist"/);

    const badId = await cni
      .addNetworkList(list, { ...rt, containerId: 'some-%%container-id' })
      .catch((e: unknown) => e);
    expect(cniErrorOf(badId)?.toJSON()).toEqual({
      code: 4,
      msg: 'invalid characters in containerID',
      details: 'some-%%container-id',
    });
    expect((badId as Error).message.startsWith('plugin type="noop" failed (add):')).toBe(true);

    const badName = await cni
      .addNetworkList({ ...list, name: 'invalid-%%-name' }, rt)
      .catch((e: unknown) => e);
    expect(cniErrorOf(badName)?.toJSON()).toEqual({
      code: 7,
      msg: 'invalid characters found in network name',
      details: 'invalid-%%-name',
    });

    const badIf = await cni.addNetworkList(list, { ...rt, ifName: '' }).catch((e: unknown) => e);
    expect(cniErrorOf(badIf)?.toJSON()).toEqual({ code: 4, msg: 'interface name is empty' });
    const longIf = await cni
      .addNetworkList(list, { ...rt, ifName: '1234567890123456' })
      .catch((e: unknown) => e);
    expect(cniErrorOf(longIf)?.toJSON()).toEqual({
      code: 4,
      msg: 'interface name is too long',
      details: 'interface name should be less than 16 characters',
    });
  });

  it('AddNetworkList: when the second plugin errors, nothing is cached', async () => {
    const { list } = makePluginList(CURRENT, ipResult);
    debug.set('some-other-value', { reportError: 'plugin error: banana' });
    const err = await cni.addNetworkList(list, rt).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LibcniError);
    expect((err as LibcniError).cause).toBeInstanceOf(CniError);
    expect(((err as LibcniError).cause as Error).message).toBe('plugin error: banana');
    expect((err as Error).message).toBe('plugin type="noop" failed (add): plugin error: banana');
    expect(host.files.exists(cacheFile('some-list', rt))).toBe(false);
  });

  it('CheckNetworkList executes all plugins with command CHECK, each with the cached prevResult', async () => {
    const { list } = makePluginList(CURRENT, ipResult);
    const r = await cni.addNetworkList(list, rt);
    await cni.checkNetworkList(list, rt);
    for (const key of ['some-value', 'some-other-value', 'yet-another-value']) {
      const call = log.get(key)![1]!;
      expect(call.command).toBe('CHECK');
      expect(JSON.parse(call.stdin).prevResult).toEqual(resultJson(r!, CURRENT));
    }
  });

  it('does not execute plugins with command CHECK when disableCheck is true', async () => {
    const { list } = makePluginList(CURRENT, ipResult);
    await cni.checkNetworkList({ ...list, disableCheck: true }, rt);
    expect(log.size).toBe(0);
  });

  it('CheckNetworkList below 0.4.0 fails as CHECK is not supported', async () => {
    const { list } = makePluginList(
      '0.3.1',
      `{"cniVersion": "0.3.1", "ips": [{"version": "4", "address": "10.1.2.3/24"}], "dns": {}}`,
    );
    await expect(cni.checkNetworkList(list, rt)).rejects.toThrow(
      /^configuration version "0\.3\.1" does not support the CHECK command$/,
    );
  });

  it('DelNetworkList executes all the plugins in reverse order with command DEL; no cache remains', async () => {
    const { list, stdin } = makePluginList(CURRENT, ipResult);
    await cni.delNetworkList(list, rt);
    const order = ['yet-another-value', 'some-other-value', 'some-value'];
    const calls = order.map((k) => log.get(k)![0]!);
    calls.forEach((c, i) => {
      expect(c.command).toBe('DEL');
      expect(JSON.parse(c.stdin)).toEqual(stdin[2 - i]);
      expect(c.args).toMatchObject(expectedArgs);
    });
    expect(cni.getNetworkListCachedResult(list, rt)).toBeUndefined();
    expect(cni.getNetworkListCachedConfig(list, rt)).toBeUndefined();
  });

  it('DelNetworkList at 0.4.0 passes the cached result (a 0.4.0 struct: "dns":{} kept) to the first plugin', async () => {
    const ip040 = `{
							"cniVersion": "0.4.0",
							"ips": [{"version": "4", "address": "10.1.2.3/24"}],
							"dns": {}
						}`;
    host.files.write(cacheFile('some-list', rt), ip040);
    const { list } = makePluginList('0.4.0', ip040);
    await cni.delNetworkList(list, rt);
    const first = log.get('yet-another-value')![0]!;
    expect(JSON.parse(first.stdin).prevResult).toEqual(JSON.parse(ip040));
    // a types040.Result marshals in struct order inside the sorted config
    expect(first.stdin).toContain(
      '"prevResult":{"cniVersion":"0.4.0","ips":[{"version":"4","address":"10.1.2.3/24"}],"dns":{}}',
    );
  });

  it('DelNetworkList below 0.4.0 does not pass a cached result', async () => {
    const ip031 = `{"cniVersion": "0.3.1", "ips": [{"version": "4", "address": "10.1.2.3/24"}], "dns": {}}`;
    host.files.write(cacheFile('some-list', rt), ip031);
    const { list } = makePluginList('0.3.1', ip031);
    await cni.delNetworkList(list, rt);
    // the first plugin DEL runs (the last in the list) has no prevResult in its config on disk
    expect(log.get('some-value')![0]!.stdin).not.toContain('"prevResult":');
  });

  it('DelNetworkList: plugin errors are wrapped "(delete)"; an invalid cached result is tolerated', async () => {
    const { list } = makePluginList(CURRENT, ipResult);
    debug.set('some-other-value', { reportError: 'plugin error: banana' });
    await expect(cni.delNetworkList(list, rt)).rejects.toThrow(
      /^plugin type="noop" failed \(delete\): plugin error: banana$/,
    );
    debug.delete('some-other-value');
    host.files.write(cacheFile('some-list', rt), 'adfadsfasdfasfdsafaf');
    await cni.delNetworkList(list, rt);
  });

  it('ValidateNetworkList checks that the plugins exist and support the version', async () => {
    const { list } = makePluginList(CURRENT, ipResult);
    const missing = {
      ...list,
      plugins: list.plugins.map((p) => ({ ...p, network: { ...p.network, type: 'nope' } })),
    };
    await expect(cni.validateNetworkList(missing)).rejects.toThrow(
      /^\[failed to find plugin "nope" in path \[C:\\cni\\bin\]/,
    );
    await expect(cni.validateNetworkList({ ...list, cniVersion: 'broken' })).rejects.toThrow(
      '[plugin noop does not support config version "broken" plugin noop does not support config version "broken" plugin noop does not support config version "broken"]',
    );
  });

  it('GCNetworkList issues a DEL and GC as necessary', async () => {
    const { list } = makePluginList(CURRENT, ipResult);
    await cni.addNetworkList(list, rt);
    const commands = (): string[] => (log.get('some-value') ?? []).map((c) => c.command);

    await cni.gcNetworkList({ ...list, disableGC: true }, {});
    expect(commands()).toEqual(['ADD']);

    await cni.gcNetworkList(list, { validAttachments: [{ containerID: rt.containerId, ifname: rt.ifName }] });
    await cni.gcNetworkList(list, { validAttachments: undefined });
    expect(commands()).toEqual(['ADD', 'GC', 'DEL', 'GC']);
    const calls = log.get('some-value')!;
    expect(calls[1]!.args).toMatchObject({ containerID: '', ifName: '', netns: '' });
    expect(JSON.parse(calls[1]!.stdin)['cni.dev/valid-attachments']).toEqual([
      { containerID: rt.containerId, ifname: rt.ifName },
    ]);
    expect(calls[2]!.args).toMatchObject({ containerID: rt.containerId, ifName: rt.ifName });
    expect(JSON.parse(calls[3]!.stdin)['cni.dev/valid-attachments']).toBeNull();
    expect(calls[3]!.stdin).toContain('"cni.dev/attachments":null');
  });

  it('GetStatusNetworkList issues a STATUS request and reports the first error with its code', async () => {
    const { list } = makePluginList(CURRENT, ipResult);
    await cni.getStatusNetworkList(list);
    expect(log.get('some-value')![0]!.command).toBe('STATUS');
    debug.set('some-other-value', { reportError: 'plugin error: banana', reportErrorCode: 50 });
    const err = await cni.getStatusNetworkList(list).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CniError);
    expect((err as CniError).code).toBe(50);
    expect(log.get('yet-another-value')!.length).toBe(1); // stopped at the second plugin
  });
});

describe('api_test.go: Result cache', () => {
  const rt: RuntimeConf = {
    containerId: 'some-container-id',
    netns: 'some-netns',
    ifName: 'eth0',
    args: [['DEBUG', 'x']],
  };
  const netConf = `{"type": "noop", "name": "cachetest", "cniVersion": "${CURRENT}"}`;

  it('creates separate result cache files for multiple attachments to the same network', async () => {
    debug.set('cachetest', {
      reportResult: `{"cniVersion": "${CURRENT}", "ips": [{"version": "4", "address": "10.1.2.3/24"}]}`,
    });
    await cni.addNetwork(pluginConfFromBytes(netConf), rt);
    debug.set('cachetest', {
      reportResult: `{"cniVersion": "${CURRENT}", "ips": [{"version": "4", "address": "10.1.2.5/24"}]}`,
    });
    await cni.addNetwork(pluginConfFromBytes(netConf), { ...rt, ifName: 'eth1' });
    const files = host.files.list(`${CACHE}\\results`);
    expect(files).toEqual(['cachetest-some-container-id-eth0', 'cachetest-some-container-id-eth1']);
    for (const [f, ip, ifName] of [
      [files[0]!, '10.1.2.3/24', 'eth0'],
      [files[1]!, '10.1.2.5/24', 'eth1'],
    ] as const) {
      const data = host.files.read(`${CACHE}\\results\\${f}`)!;
      const cc = JSON.parse(data) as Record<string, unknown>;
      expect(cc).toMatchObject({
        kind: 'cniCacheV1',
        containerId: 'some-container-id',
        networkName: 'cachetest',
        ifName,
      });
      expect(data).toContain(ip);
    }
  });

  it('returns an updated copy of RuntimeConf filled with cached info', async () => {
    debug.set('cachetest', {
      reportResult: `{"cniVersion": "${CURRENT}", "ips": [{"address": "10.1.2.3/24"}]}`,
    });
    await cni.addNetwork(pluginConfFromBytes(netConf), rt);
    const got = cni.getNetworkListCachedConfig(
      { ...confListFromConf(pluginConfFromBytes(netConf)) },
      {
        containerId: rt.containerId,
        netns: rt.netns,
        ifName: rt.ifName,
      },
    )!;
    expect(got.rt).toMatchObject({ ifName: rt.ifName, containerId: rt.containerId, args: rt.args });
    expect(got.rt.capabilityArgs).toBeUndefined();
  });

  it.each([
    [
      { name: '', containerId: 'some-container-id', ifName: 'eth0' },
      '(""), container ID ("some-container-id"), and interface name ("eth0")',
    ],
    [
      { name: 'foobar', containerId: '', ifName: 'eth0' },
      '("foobar"), container ID (""), and interface name ("eth0")',
    ],
    [
      { name: 'foobar', containerId: 'some-container-id', ifName: '' },
      '("foobar"), container ID ("some-container-id"), and interface name ("")',
    ],
  ])('an incomplete RuntimeConf is an error: %j', (c, tail) => {
    const list = { ...confListFromConf(pluginConfFromBytes(netConf)), name: c.name };
    expect(() =>
      cni.getNetworkListCachedConfig(list, { containerId: c.containerId, netns: '', ifName: c.ifName }),
    ).toThrow(`cache file path requires network name ${tail}`);
  });

  it('a cached config that is invalid JSON is an error; a missing one is not', () => {
    const net = pluginConfFromBytes(netConf);
    expect(cni.getNetworkCachedConfig(net, rt)).toBeUndefined();
    host.files.write(cacheFile('cachetest', rt), 'adfadsfasdfasfdsafaf');
    expect(() => cni.getNetworkCachedConfig(net, rt)).toThrow(
      `failed to unmarshal cached network "cachetest" config: invalid character 'a' looking for beginning of value`,
    );
  });
});

describe('conf_test.go', () => {
  const configList = `{
  "name": "some-network",
  "cniVersion": "0.2.0",
  "disableCheck": true,
  "plugins": [
    {
      "type": "host-local",
      "subnet": "10.0.0.1/24"
    },
    {
      "type": "bridge",
      "mtu": 1400
    },
    {
      "type": "port-forwarding",
      "ports": {"20.0.0.1:8080": "80"}
    }
  ]
}`;
  const dir = 'C:\\etc\\cni\\net.d';

  it('LoadNetworkConf finds the list; each plugin is re-marshalled with sorted keys', () => {
    host.files.write(`${dir}\\50-whatever.conflist`, configList);
    const list = loadConfList(host.files, dir, 'some-network');
    expect(list).toMatchObject({
      name: 'some-network',
      cniVersion: '0.2.0',
      disableCheck: true,
      disableGC: false,
    });
    expect(list.plugins.map((p) => Buffer.from(p.bytes).toString())).toEqual([
      '{"subnet":"10.0.0.1/24","type":"host-local"}',
      '{"mtu":1400,"type":"bridge"}',
      '{"ports":{"20.0.0.1:8080":"80"},"type":"port-forwarding"}',
    ]);
    expect(list.plugins.map((p) => p.network.type)).toEqual(['host-local', 'bridge', 'port-forwarding']);
    expect(Buffer.from(list.bytes).toString()).toBe(configList);
  });

  it('loads the config list first, and falls back to a config file', () => {
    host.files.write(`${dir}\\50-whatever.conflist`, configList);
    host.files.write(
      `${dir}\\49-whatever.conf`,
      `{"name": "some-network", "cniVersion": "0.2.0", "type": "bridge"}`,
    );
    expect(loadConfList(host.files, dir, 'some-network').plugins.length).toBe(3);
    host.files.write(
      `${dir}\\49-whatever.conf`,
      `{"name": "some-other-network", "cniVersion": "0.2.0", "type": "bridge"}`,
    );
    const single = loadConfList(host.files, dir, 'some-other-network');
    expect(single.plugins[0]!.network.type).toBe('bridge');
  });

  it('NoConfigsFoundError and NotFoundError', () => {
    expect(() => loadConfList(host.files, dir, 'some-network')).toThrow(
      `no net configurations found in ${dir}`,
    );
    host.files.write(`${dir}\\50-whatever.conflist`, configList);
    expect(() => loadConfList(host.files, dir, 'some-other-network')).toThrow(
      `no net configuration with name "some-other-network" in ${dir}`,
    );
  });

  it('LoadConf finds a .conf/.json file by name; errors are useful', () => {
    expect(() => loadConf(host.files, dir, 'some-plugin')).toThrow(`no net configurations found in ${dir}`);
    host.files.write(
      `${dir}\\50-whatever.conf`,
      `{"name": "some-plugin", "type": "foobar", "some-key": "some-value"}`,
    );
    expect(loadConf(host.files, dir, 'some-plugin').network).toMatchObject({
      name: 'some-plugin',
      type: 'foobar',
    });
    expect(() => loadConf(host.files, dir, 'some-other-plugin')).toThrow(
      /^no net configuration with name "some-other-plugin" in/,
    );
    host.files.write(`${dir}\\50-whatever.conf`, '{');
    expect(() => loadConf(host.files, dir, 'some-plugin')).toThrow(
      /^error parsing configuration: unexpected end of JSON input$/,
    );
  });

  it('a config list that is not JSON', () => {
    host.files.write(`${dir}\\50-whatever.conflist`, '{');
    expect(() => loadConfList(host.files, dir, 'some-network')).toThrow(
      /^error parsing configuration list: unexpected end of JSON input$/,
    );
  });

  it('reads plugin capabilities from network config; missing type', () => {
    const p = pluginConfFromBytes(
      `{"name": "some-plugin", "type": "foobar", "capabilities": {"portMappings": true, "other": false}}`,
    );
    expect(p.network.capabilities).toEqual({ portMappings: true, other: false });
    expect(() => pluginConfFromBytes(`{"name": "some-plugin"}`)).toThrow(
      /^error parsing configuration: missing 'type'$/,
    );
    expect(() => pluginConfFromBytes(`{"name": "some-plugin", "type": ""}`)).toThrow(
      /^error parsing configuration: missing 'type'$/,
    );
  });

  it.each([
    ['"true"', true],
    ['"false"', false],
  ])('disableCheck as a string %s', (v, want) => {
    const list = confListFromBytes(
      `{"name": "some-network", "cniVersion": "0.4.0", "disableCheck": ${v}, "plugins": [{"type": "host-local", "subnet": "10.0.0.1/24"}]}`,
    );
    expect(list.disableCheck).toBe(want);
  });

  it('disableCheck / loadOnlyInlinedPlugins: an unrecognized value', () => {
    const bad = 'adsfasdfasf';
    expect(() =>
      confListFromBytes(
        `{"name": "n", "cniVersion": "0.4.0", "disableCheck": "${bad}", "plugins": [{"type": "host-local"}]}`,
      ),
    ).toThrow(`error parsing configuration list: invalid value "${bad}" for disableCheck`);
    expect(() =>
      confListFromBytes(
        `{"name": "n", "cniVersion": "0.4.0", "loadOnlyInlinedPlugins": "${bad}", "plugins": [{"type": "host-local"}]}`,
      ),
    ).toThrow(`error parsing configuration list: invalid value "${bad}" for loadOnlyInlinedPlugins`);
  });

  it('loadOnlyInlinedPlugins and the <dir>/<network>/*.conf plugins', () => {
    expect(() =>
      confListFromBytes(`{"name": "some-network", "cniVersion": "0.4.0", "loadOnlyInlinedPlugins": true}`),
    ).toThrow("error parsing configuration list: `loadOnlyInlinedPlugins` is true, and no 'plugins' key");
    expect(confListFromBytes(`{"name": "some-network", "cniVersion": "0.4.0"}`).plugins).toEqual([]);
    host.files.write(`${dir}\\50-whatever.conflist`, `{"name": "some-network", "cniVersion": "0.4.0"}`);
    expect(() => loadConfList(host.files, dir, 'some-network')).toThrow(/^no plugin configs found$/);
    host.files.write(`${dir}\\some-network\\10-a.conf`, `{"type": "bridge"}`);
    expect(loadConfList(host.files, dir, 'some-network').plugins.map((p) => p.network.type)).toEqual([
      'bridge',
    ]);
    host.files.write(
      `${dir}\\50-whatever.conflist`,
      `{"name": "some-network", "cniVersion": "0.4.0", "plugins": [{"type": "host-local"}]}`,
    );
    expect(loadConfList(host.files, dir, 'some-network').plugins.map((p) => p.network.type)).toEqual([
      'host-local',
      'bridge',
    ]);
    host.files.write(
      `${dir}\\50-whatever.conflist`,
      `{"name": "some-network", "cniVersion": "0.4.0", "loadOnlyInlinedPlugins": true, "plugins": [{"type": "host-local"}]}`,
    );
    expect(loadConfList(host.files, dir, 'some-network').plugins.map((p) => p.network.type)).toEqual([
      'host-local',
    ]);
  });

  describe('InjectConf', () => {
    const testNetConfig = pluginConfFromBytes(`{ "name": "some-plugin", "type": "foobar" }`);

    it('parameter errors', () => {
      expect(() => injectConf({ ...testNetConfig, bytes: Buffer.from('{ cc cc cc}') }, { '': 'x' })).toThrow(
        /^unmarshal existing network bytes/,
      );
      expect(() => injectConf(testNetConfig, { '': 'x' })).toThrow(/^keys cannot be empty/);
      expect(() => injectConf(testNetConfig, { test: undefined })).toThrow(
        /^key 'test' value must not be nil/,
      );
    });

    it('adds new keys, replaces existing ones, sorted', () => {
      let c = injectConf(testNetConfig, { test: 'test' });
      expect(Buffer.from(c.bytes).toString()).toBe('{"name":"some-plugin","test":"test","type":"foobar"}');
      c = injectConf(c, { test: 'changedValue' });
      expect(Buffer.from(c.bytes).toString()).toBe(
        '{"name":"some-plugin","test":"changedValue","type":"foobar"}',
      );
      expect(c.network).toMatchObject({ name: 'some-plugin', type: 'foobar' });
    });

    it('adds sub-fields of NetworkConfig.Network to the config', () => {
      let c = injectConf(testNetConfig, { dns: { nameservers: ['server1', 'server2'], domain: 'local' } });
      c = injectConf(c, { type: 'bridge' });
      expect(Buffer.from(c.bytes).toString()).toBe(
        '{"dns":{"domain":"local","nameservers":["server1","server2"]},"name":"some-plugin","type":"bridge"}',
      );
      expect(c.network.dns).toEqual({ nameservers: ['server1', 'server2'], domain: 'local' });
    });
  });

  describe('NetworkConfFromBytes: version selection', () => {
    const make = (...vs: string[]): string =>
      `{"name": "test", "cniVersions": [${vs.map((v) => `"${v}"`).join(',')}], "plugins": [{"type": "foo"}]}`;
    it('selects the maximum version not above libcni’s', () => {
      expect(confListFromBytes(make('1.1.0', '0.4.0', '1.0.0')).cniVersion).toBe('1.1.0');
      expect(confListFromBytes(make('99.0.0', '1.1.0', '0.4.0', '1.0.0')).cniVersion).toBe('1.1.0');
    });
    it('fails when invalid versions are specified', () => {
      expect(() => confListFromBytes(make('1.1.0', '0.4.0', '1.0.f'))).toThrow(
        /^error parsing configuration list: invalid cniVersions entry 1\.0\.f at index 2: failed to convert micro version part "f"/,
      );
    });
    it('falls back to cniVersion, merges, handles an empty array', () => {
      expect(
        confListFromBytes(`{"name": "test", "cniVersion": "1.2.3", "plugins": [{"type": "foo"}]}`).cniVersion,
      ).toBe('1.2.3');
      expect(
        confListFromBytes(
          `{"name": "test", "cniVersion": "1.0.0", "cniVersions": ["0.1.0", "0.4.0"], "plugins": [{"type": "foo"}]}`,
        ).cniVersion,
      ).toBe('1.0.0');
      expect(
        confListFromBytes(`{"name": "test", "cniVersions": [], "plugins": [{"type": "foo"}]}`).cniVersion,
      ).toBe('');
    });
  });

  it('ConfListFromConf correctly upconverts a NetworkConfig to a NetworkConfigList', () => {
    const pc = pluginConfFromBytes(`{"name":"some-plugin","cniVersion":"0.3.1", "type":"foobar"}`);
    const ncl = confListFromConf(pc);
    expect(ncl).toMatchObject({ name: 'some-plugin', cniVersion: '0.3.1', disableCheck: false });
    expect(ncl.plugins[0]!.network).toEqual(pc.network);
    const again = confListFromBytes(ncl.bytes);
    expect(again.plugins[0]!.network).toEqual(pc.network);
  });
});
