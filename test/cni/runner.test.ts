/**
 * The runner's JSON-RPC face (`runList`) and libcni rules not covered by the api_test.go port
 * (test/acceptance/cni-libcni.test.ts): outcomes as data with the right codes, nothing written when
 * ADD fails, GC without a valid set, STATUS and CHECK gates, cache directory choice, cache document
 * layout (containernetworking/cni @ 3f51e880 libcni/api.go cachedInfo).
 */
import { describe, expect, it } from 'vitest';
import { CniError, CniRunner, confListFromBytes, runList, type CniListRequest } from '../../src/cni/index.js';
import type { CniExecEvent } from '../../src/core/events.js';
import { BIN, fakePlugin, testNode } from './fake-plugins.js';

const list = (version = '1.1.0', extra = ''): string =>
  `{"cniVersion":"${version}","name":"net1"${extra},"plugins":[{"type":"first","capabilities":{"portMappings":true}},{"type":"second"}]}`;
const RESULT = { cniVersion: '1.1.0', ips: [{ address: '10.0.0.5/24', gateway: '10.0.0.1' }] };

function setup(behaviour: { second?: Parameters<typeof fakePlugin>[1] } = {}) {
  const first = fakePlugin('first', { add: () => RESULT });
  const second = fakePlugin('second', { add: (c) => c['prevResult'], ...behaviour.second });
  const t = testNode(first.plugin, second.plugin);
  const base = (command: CniListRequest['command'], conflist = list()): CniListRequest => ({
    conflist,
    command,
    containerId: 'c1',
    netns: 'ns1',
    ifname: 'eth0',
    args: [['K8S_POD_NAMESPACE', 'default']],
    capabilityArgs: { portMappings: [{ hostPort: 80, containerPort: 8080, protocol: 'tcp' }] },
  });
  return { ...t, first, second, base };
}

describe('runList', () => {
  it('ADD returns the last plugin’s result and writes the cache document in cachedInfo order', async () => {
    const s = setup();
    const out = await runList(s.node, { path: [BIN] }, s.base('ADD'));
    expect(out).toEqual({ ok: true, result: RESULT });
    const text = s.host.files.read('/var/lib/cni/results/net1-c1-eth0')!;
    expect(text).toBe(
      `{"kind":"cniCacheV1","containerId":"c1","config":"${Buffer.from(list()).toString('base64')}","ifName":"eth0","networkName":"net1","netns":"ns1","cniArgs":[["K8S_POD_NAMESPACE","default"]],"capabilityArgs":{"portMappings":[{"hostPort":80,"containerPort":8080,"protocol":"tcp"}]},"result":{"cniVersion":"1.1.0","ips":[{"address":"10.0.0.5/24","gateway":"10.0.0.1"}]}}`,
    );
    expect(s.first.calls[0]!.env).toMatchObject({ CNI_ARGS: 'K8S_POD_NAMESPACE=default', CNI_PATH: BIN });
    // capability values are the runtime's Go structs: fields in the order given, inside sorted config keys
    expect(s.first.calls[0]!.stdin).toBe(
      '{"capabilities":{"portMappings":true},"cniVersion":"1.1.0","name":"net1","runtimeConfig":{"portMappings":[{"hostPort":80,"containerPort":8080,"protocol":"tcp"}]},"type":"first"}',
    );
  });

  it('a plugin error: its code/msg/details, and libcni’s wrapped text; nothing is cached', async () => {
    const s = setup({ second: { fail: { ADD: new CniError(11, 'busy', 'retry') } } });
    const before = s.host.files.entries();
    const out = await runList(s.node, { path: [BIN] }, s.base('ADD'));
    expect(out).toEqual({
      ok: false,
      error: {
        code: 11,
        msg: 'busy',
        details: 'retry',
        message: 'plugin type="second" failed (add): busy; retry',
      },
    });
    expect(s.host.files.entries()).toEqual(before);
  });

  it('an untyped plugin failure is 999; a missing plugin is 999 with the find text', async () => {
    const s = setup({ second: { fail: { ADD: new Error('boom') } } });
    expect((await runList(s.node, { path: [BIN] }, s.base('ADD'))).error).toEqual({
      code: 999,
      msg: 'boom',
      message: 'plugin type="second" failed (add): boom',
    });
    expect((await runList(s.node, { path: ['C:\\elsewhere'] }, s.base('ADD'))).error).toEqual({
      code: 999,
      msg: 'plugin type="first" failed (add): failed to find plugin "first" in path [C:\\elsewhere]',
      message: 'plugin type="first" failed (add): failed to find plugin "first" in path [C:\\elsewhere]',
    });
  });

  it('an unusable conflist is code 7 and runs nothing', async () => {
    const s = setup();
    const cases: [string, string][] = [
      ['{', 'error parsing configuration list: unexpected end of JSON input'],
      ['{"cniVersion":"1.1.0"}', 'error parsing configuration list: no name'],
      ['{"name":5}', 'error parsing configuration list: invalid name type float64'],
      [
        '{"name":"n","plugins":{}}',
        "error parsing configuration list: invalid 'plugins' type map[string]interface {}",
      ],
      ['{"name":"n","plugins":[]}', 'error parsing configuration list: no plugins in list'],
      [
        '{"name":"n","plugins":[{"Type":5}]}',
        'failed to parse plugin config 0: error parsing configuration: json: cannot unmarshal number into Go struct field PluginConf.type of type string',
      ],
      [
        '{"name":"n","plugins":["x"]}',
        'failed to parse plugin config 0: error parsing configuration: json: cannot unmarshal string into Go value of type types.PluginConf',
      ],
      [
        '{"name":"n","cniVersions":"1.0.0"}',
        'error parsing configuration list: invalid type for cniVersions: []interface {}',
      ],
      [
        '{"name":"n","cniVersions":[1]}',
        'error parsing configuration list: invalid type for cniVersions index 0: float64',
      ],
      ['{"name":"n","disableGC":1}', 'error parsing configuration list: invalid type float64 for disableGC'],
      ['{"name":"n"}', 'no plugin configs found'],
    ];
    for (const [conflist, msg] of cases) {
      expect(await runList(s.node, { path: [BIN] }, s.base('ADD', conflist))).toEqual({
        ok: false,
        error: { code: 7, msg, message: msg },
      });
    }
    expect(s.first.calls).toEqual([]);
  });

  it('a plugin config key matches case-insensitively ("Type")', async () => {
    const s = setup();
    const out = await runList(
      s.node,
      { path: [BIN] },
      s.base('ADD', '{"cniVersion":"1.1.0","name":"n","plugins":[{"Type":"first"}]}'),
    );
    expect(out.ok).toBe(true);
    expect(s.first.calls[0]!.conf).toEqual({ Type: 'first', cniVersion: '1.1.0', name: 'n' });
  });

  it('DEL runs in reverse with the cached prevResult and removes the cache; a second DEL has none', async () => {
    const s = setup();
    await runList(s.node, { path: [BIN] }, s.base('ADD'));
    const order: string[] = [];
    s.host.events.on('cni.exec', (e: CniExecEvent) => order.push(e.plugin));
    expect(await runList(s.node, { path: [BIN] }, s.base('DEL'))).toEqual({ ok: true });
    expect(order).toEqual(['second', 'first']);
    expect(s.second.calls[1]!.conf['prevResult']).toEqual(RESULT);
    expect(s.host.files.exists('/var/lib/cni/results/net1-c1-eth0')).toBe(false);
    expect(await runList(s.node, { path: [BIN] }, s.base('DEL'))).toEqual({ ok: true });
    expect(s.second.calls[2]!.conf).not.toHaveProperty('prevResult');
  });

  it('DEL stops at the first error and keeps the cache', async () => {
    const s = setup({ second: { fail: { DEL: new CniError(5, 'io') } } });
    await runList(s.node, { path: [BIN] }, s.base('ADD'));
    const out = await runList(s.node, { path: [BIN] }, s.base('DEL'));
    expect(out.error).toEqual({ code: 5, msg: 'io', message: 'plugin type="second" failed (delete): io' });
    expect(s.first.calls.map((c) => c.command)).toEqual(['ADD']);
    expect(s.host.files.exists('/var/lib/cni/results/net1-c1-eth0')).toBe(true);
  });

  it('CHECK: skipped with disableCheck, refused below 0.4.0', async () => {
    const s = setup();
    expect(
      await runList(s.node, { path: [BIN] }, s.base('CHECK', list('1.1.0', ',"disableCheck":"TRUE"'))),
    ).toEqual({ ok: true });
    expect(s.first.calls).toEqual([]);
    const out = await runList(s.node, { path: [BIN] }, s.base('CHECK', list('0.3.1')));
    expect(out.error).toEqual({
      code: 999,
      msg: 'configuration version "0.3.1" does not support the CHECK command',
      message: 'configuration version "0.3.1" does not support the CHECK command',
    });
  });

  it('STATUS below 1.1.0 does nothing; at 1.1.0 the first failure’s code is the outcome', async () => {
    const s = setup({ second: { fail: { STATUS: new CniError(50, 'not ready') } } });
    expect(await runList(s.node, { path: [BIN] }, s.base('STATUS', list('1.0.0')))).toEqual({ ok: true });
    expect(s.first.calls).toEqual([]);
    expect(await runList(s.node, { path: [BIN] }, s.base('STATUS'))).toEqual({
      ok: false,
      error: { code: 50, msg: 'not ready', message: 'not ready' },
    });
    expect(s.first.calls[0]!.args).toMatchObject({ containerID: '', ifName: '', netns: '' });
  });

  it('GC without a valid set deletes every cached attachment of the network, not others', async () => {
    const s = setup();
    await runList(s.node, { path: [BIN] }, s.base('ADD'));
    await runList(s.node, { path: [BIN] }, { ...s.base('ADD'), containerId: 'c2' });
    const other = list().replace('"net1"', '"net2"');
    await runList(s.node, { path: [BIN] }, { ...s.base('ADD', other), containerId: 'c3' });
    expect(s.host.files.list('/var/lib/cni/results')).toEqual([
      'net1-c1-eth0',
      'net1-c2-eth0',
      'net2-c3-eth0',
    ]);
    expect(await runList(s.node, { path: [BIN] }, s.base('GC'))).toEqual({ ok: true });
    expect(s.host.files.list('/var/lib/cni/results')).toEqual(['net2-c3-eth0']);
    const gcs = s.first.calls.filter((c) => c.command === 'GC');
    expect(gcs.length).toBe(1);
    expect(gcs[0]!.conf).not.toHaveProperty('cni.dev/valid-attachments');
  });

  it('GC keeps the valid attachments and joins the errors of failed deletes', async () => {
    const s = setup({ second: { fail: { DEL: new CniError(3, 'gone') } } });
    await runList(s.node, { path: [BIN] }, s.base('ADD'));
    await runList(s.node, { path: [BIN] }, { ...s.base('ADD'), containerId: 'c2' });
    await runList(s.node, { path: [BIN] }, { ...s.base('ADD'), containerId: 'c3' });
    const out = await runList(
      s.node,
      { path: [BIN] },
      { ...s.base('GC'), validAttachments: [{ containerID: 'c1', ifname: 'eth0' }] },
    );
    expect(out.error?.message).toBe(
      'failed to delete stale attachment c2 eth0: plugin type="second" failed (delete): gone\nfailed to delete stale attachment c3 eth0: plugin type="second" failed (delete): gone',
    );
    expect(out.error?.code).toBe(3);
  });

  it('disableGC: nothing happens', async () => {
    const s = setup();
    await runList(s.node, { path: [BIN] }, s.base('ADD'));
    expect(await runList(s.node, { path: [BIN] }, s.base('GC', list('1.1.0', ',"disableGC":true')))).toEqual({
      ok: true,
    });
    expect(s.host.files.exists('/var/lib/cni/results/net1-c1-eth0')).toBe(true);
  });

  it('the runner’s cache directory wins over the RuntimeConf’s, which wins over the default', async () => {
    const s = setup();
    await runList(s.node, { path: [BIN] }, { ...s.base('ADD'), cacheDir: 'C:\\rt-cache' });
    expect(s.host.files.exists('C:\\rt-cache\\results\\net1-c1-eth0')).toBe(true);
    await runList(
      s.node,
      { path: [BIN], cacheDir: 'C:\\runner' },
      { ...s.base('ADD'), containerId: 'c2', cacheDir: 'C:\\rt-cache' },
    );
    expect(s.host.files.exists('C:\\runner\\results\\net1-c2-eth0')).toBe(true);
  });

  it('every plugin the runtime calls is depth 0; a plain host without find still works', async () => {
    const s = setup();
    const depths: number[] = [];
    s.host.events.on('cni.exec', (e: CniExecEvent) => depths.push(e.depth));
    const plain = { ...s.node, exec: s.node.exec.bind(s.node), find: undefined, run: undefined };
    const runner = new CniRunner(plain, { path: [BIN] });
    const r = await runner.addNetworkList(confListFromBytes(list()), {
      containerId: 'c9',
      netns: 'ns',
      ifName: 'eth0',
    });
    expect(r?.ips?.[0]?.address).toBe('10.0.0.5/24');
    expect(depths).toEqual([0, 0]);
  });
});
