/**
 * The flannel plugin as a runtime runs it (flannel-io/cni-plugin @ 092e6d26 `flannel.go`,
 * `flannel_windows.go`; reference cni-windows.md §5.1, P15), with in-test delegates: ADD saves the
 * delegate config under the sandbox ID and prints the delegate's result unchanged; a delegate's
 * error comes back as it was; DEL consumes the saved config; CHECK and VERSION; Go panics.
 */
import { describe, expect, it } from 'vitest';
import { CniError } from '../../../src/cni/index.js';
import { FLANNEL_ABOUT } from '../../../src/plugins/flannel/index.js';
import { errorDoc, fakeDelegate, flannelNode, run, SUBNET_ENV } from './node.js';

const CONF = {
  cniVersion: '0.3.0',
  name: 'cbr0',
  type: 'flannel',
  delegate: { type: 'win-bridge', dns: { Nameservers: ['10.96.0.10'] } },
};

const SAVED =
  '{"cniVersion":"0.3.0","dns":{"Nameservers":["10.96.0.10"]},"ipMasq":true,"ipMasqNetwork":"10.244.0.0/16","ipam":{"subnet":"10.244.1.0/24","type":"host-local"},"name":"cbr0","type":"win-bridge"}';

/** What a win-bridge at 0.3.0 prints: interfaces, ips, dns. */
const BRIDGE_RESULT = JSON.stringify({
  cniVersion: '0.3.0',
  interfaces: [{ name: 'c1_cbr0', mac: '00-15-5D-11-22-33' }],
  ips: [{ version: '4', interface: 0, address: '10.244.1.3/24', gateway: '10.244.1.2' }],
  dns: { nameservers: ['10.96.0.10'] },
});

describe('flannel ADD', () => {
  it('delegates the built config, saves it at <dataDir>/<sandbox ID>, prints the result unchanged', async () => {
    const bridge = fakeDelegate('win-bridge', { result: BRIDGE_RESULT });
    const { host, node } = flannelNode(bridge.plugin);
    host.files.write('/run/flannel/subnet.env', SUBNET_ENV);
    const out = await run(node, 'ADD', CONF, { CNI_CONTAINERID: 'workload1', CNI_NETNS: 'container:pause1' });
    expect(out.exitCode).toBe(0);
    expect(bridge.calls).toHaveLength(1);
    expect(bridge.calls[0]!.command).toBe('ADD');
    expect(bridge.calls[0]!.stdin).toBe(SAVED);
    expect(bridge.calls[0]!.depth).toBe(1);
    // the environment is flannel's with CNI_COMMAND replaced
    expect(bridge.calls[0]!.env['CNI_CONTAINERID']).toBe('workload1');
    expect(host.files.read('/var/lib/cni/flannel/pause1')).toBe(SAVED);
    expect(host.files.exists('/var/lib/cni/flannel/workload1')).toBe(false);
    expect(JSON.parse(out.stdout)).toEqual({
      cniVersion: '0.3.0',
      interfaces: [{ name: 'c1_cbr0', mac: '00-15-5D-11-22-33' }],
      ips: [{ version: '4', interface: 0, address: '10.244.1.3/24', gateway: '10.244.1.2' }],
      dns: { nameservers: ['10.96.0.10'] },
    });
    expect(out.stderr).toBe(`delegateAdd: netconf sent to delegate plugin:\n${SAVED}`);
  });

  it('a conf without cniVersion: the delegate gets 0.2.0 and its 0.2.0 result is printed at 0.2.0', async () => {
    const bridge = fakeDelegate('win-bridge', {
      result: JSON.stringify({ ip4: { ip: '10.244.1.3/24', gateway: '10.244.1.2' } }),
    });
    const { host, node } = flannelNode(bridge.plugin);
    host.files.write('/run/flannel/subnet.env', SUBNET_ENV);
    const out = await run(node, 'ADD', { name: 'cbr0', type: 'flannel' });
    expect(out.exitCode).toBe(0);
    expect(JSON.parse(bridge.calls[0]!.stdin)).toMatchObject({ cniVersion: '0.2.0', type: 'win-bridge' });
    expect(JSON.parse(out.stdout)).toMatchObject({ cniVersion: '0.2.0', ip4: { ip: '10.244.1.3/24' } });
  });

  it("a delegate's error document comes back as it is (skel's errors.As unwraps flannel's prefix)", async () => {
    const bridge = fakeDelegate('win-bridge', { fail: { ADD: new CniError(11, 'try again', 'HNS busy') } });
    const { host, node } = flannelNode(bridge.plugin);
    host.files.write('/run/flannel/subnet.env', SUBNET_ENV);
    const out = await run(node, 'ADD', CONF);
    expect(out.exitCode).toBe(1);
    expect(errorDoc(out)).toEqual({ code: 11, msg: 'try again', details: 'HNS busy' });
    // P15: the saved config stays behind when ADD fails
    expect(host.files.read('/var/lib/cni/flannel/c1')).toBe(SAVED);
  });

  it("a delegate that is not in CNI_PATH: 999 with flannel's prefix and invoke's lookup error", async () => {
    const { host, node } = flannelNode();
    host.files.write('/run/flannel/subnet.env', SUBNET_ENV);
    const out = await run(node, 'ADD', CONF);
    expect(errorDoc(out)).toEqual({
      code: 999,
      msg: 'failed to delegate add: failed to find plugin "win-bridge" in path [C:\\opt\\cni\\bin]',
    });
  });

  it("subnet.env problems are wrapped with flannel's hint, before the delegate is looked at", async () => {
    const { host, node } = flannelNode();
    let out = await run(node, 'ADD', { ...CONF, delegate: { name: 'x' } });
    expect(errorDoc(out)).toEqual({
      code: 999,
      msg: "failed to load flannel 'subnet.env' file: open /run/flannel/subnet.env: The system cannot find the path specified.. Check the flannel pod log for this node.",
    });
    host.files.write('/run/flannel/subnet.env', 'FLANNEL_MTU=1450\n');
    out = await run(node, 'ADD', CONF);
    expect(errorDoc(out).msg).toBe(
      "failed to load flannel 'subnet.env' file: /run/flannel/subnet.env is missing FLANNEL_NETWORK, FLANNEL_IPV6_NETWORK, FLANNEL_SUBNET, FLANNEL_IPV6_SUBNET, FLANNEL_IPMASQ. Check the flannel pod log for this node.",
    );
    host.files.write('C:\\etc\\flannel.env', SUBNET_ENV.replace('10.244.1.1/24', '10.244.1.1'));
    out = await run(node, 'ADD', { ...CONF, subnetFile: 'C:\\etc\\flannel.env' });
    expect(errorDoc(out).msg).toBe(
      "failed to load flannel 'subnet.env' file: invalid CIDR address: 10.244.1.1. Check the flannel pod log for this node.",
    );
    expect(host.files.list('/var/lib/cni')).toEqual([]);
  });

  it('delegate check errors, and the netconf error, are 999 and nothing is written', async () => {
    const { host, node } = flannelNode();
    host.files.write('/run/flannel/subnet.env', SUBNET_ENV);
    let out = await run(node, 'ADD', {
      ...CONF,
      delegate: { type: 'win-bridge', ipam: { type: 'host-local' } },
    });
    expect(errorDoc(out)).toEqual({
      code: 999,
      msg: "'delegate' dictionary must not have 'ipam' field, it'll be set by flannel",
    });
    out = await run(node, 'ADD', { ...CONF, dataDir: 7 });
    expect(errorDoc(out)).toEqual({
      code: 999,
      msg: 'failed to load flannel netconf file: failed to load netconf: json: cannot unmarshal number into Go struct field NetConf.dataDir of type string',
    });
    expect(host.files.list('/var/lib/cni')).toEqual([]);
  });

  it('an IPv6-only subnet.env panics: exit status 2, nothing on stdout, the panic on stderr', async () => {
    const bridge = fakeDelegate('win-bridge', { result: BRIDGE_RESULT });
    const { host, node } = flannelNode(bridge.plugin);
    host.files.write(
      '/run/flannel/subnet.env',
      'FLANNEL_IPV6_NETWORK=fc00::/48\nFLANNEL_IPV6_SUBNET=fc00::1/64\nFLANNEL_MTU=1450\nFLANNEL_IPMASQ=true\n',
    );
    const out = await run(node, 'ADD', CONF);
    expect(out.exitCode).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toMatch(
      /^panic: runtime error: index out of range \[0\] with length 0\n\ngoroutine 1 \[running\]:/,
    );
    expect(bridge.calls).toHaveLength(0);
  });

  it('the saved file: its directory in the way, or an empty sandbox ID', async () => {
    const bridge = fakeDelegate('win-bridge', { result: BRIDGE_RESULT });
    const { host, node } = flannelNode(bridge.plugin);
    host.files.write('/run/flannel/subnet.env', SUBNET_ENV);
    host.files.write('/var/lib/cni/flannel', 'a file');
    let out = await run(node, 'ADD', CONF);
    expect(errorDoc(out)).toEqual({ code: 999, msg: 'mkdir /var/lib/cni/flannel: not a directory' });
    host.files.remove('/var/lib/cni/flannel');
    host.files.write('/var/lib/cni/flannel/other', '{}');
    out = await run(node, 'ADD', CONF, { CNI_NETNS: 'container:' });
    expect(errorDoc(out)).toEqual({ code: 999, msg: 'open \\var\\lib\\cni\\flannel: Access is denied.' });
    expect(bridge.calls).toHaveLength(0);
  });
});

describe('flannel DEL', () => {
  it('delegates the saved bytes to the saved type, then removes the file', async () => {
    const overlay = fakeDelegate('win-overlay');
    const { host, node } = flannelNode(overlay.plugin);
    const saved =
      '{"cniVersion":"0.3.0","name":"vxlan0","type":"win-overlay","ipam":{"subnet":"10.244.1.0/24","type":"host-local"}}';
    host.files.write('/var/lib/cni/flannel/pause1', saved);
    // the DEL conf itself need not name the delegate: the saved one decides
    const out = await run(
      node,
      'DEL',
      { cniVersion: '0.3.0', name: 'vxlan0', type: 'flannel' },
      { CNI_NETNS: 'container:pause1' },
    );
    expect(out).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(overlay.calls.map((c) => [c.command, c.stdin])).toEqual([['DEL', saved]]);
    expect(host.files.exists('/var/lib/cni/flannel/pause1')).toBe(false);
  });

  it('no saved file: success without calling a delegate (and DEL needs no netns)', async () => {
    const bridge = fakeDelegate('win-bridge');
    const { node } = flannelNode(bridge.plugin);
    const out = await run(node, 'DEL', CONF, { CNI_NETNS: '' });
    expect(out.exitCode).toBe(0);
    expect(bridge.calls).toHaveLength(0);
  });

  it('a failing delegate DEL keeps the file and its error comes back as it is', async () => {
    const bridge = fakeDelegate('win-bridge', { fail: { DEL: new CniError(7, 'bad config') } });
    const { host, node } = flannelNode(bridge.plugin);
    host.files.write('/var/lib/cni/flannel/c1', SAVED);
    const out = await run(node, 'DEL', CONF);
    expect(errorDoc(out)).toEqual({ code: 7, msg: 'bad config' });
    expect(host.files.read('/var/lib/cni/flannel/c1')).toBe(SAVED);
  });

  it('an unreadable saved file: "failed to parse netconf", the file kept', async () => {
    const { host, node } = flannelNode();
    host.files.write('/var/lib/cni/flannel/c1', '{"type":');
    let out = await run(node, 'DEL', CONF);
    expect(errorDoc(out)).toEqual({
      code: 999,
      msg: 'failed to parse netconf: unexpected end of JSON input',
    });
    host.files.write('/var/lib/cni/flannel/c1', '{"type":3}');
    out = await run(node, 'DEL', CONF);
    expect(errorDoc(out)).toEqual({
      code: 999,
      msg: 'failed to parse netconf: json: cannot unmarshal number into Go struct field NetConf.type of type string',
    });
    expect(host.files.exists('/var/lib/cni/flannel/c1')).toBe(true);
  });

  it('the saved type is not in CNI_PATH: the lookup error, unwrapped', async () => {
    const { host, node } = flannelNode();
    host.files.write('/var/lib/cni/flannel/c1', SAVED);
    const out = await run(node, 'DEL', CONF);
    expect(errorDoc(out)).toEqual({
      code: 999,
      msg: 'failed to find plugin "win-bridge" in path [C:\\opt\\cni\\bin]',
    });
  });

  it("P15: with dockershim, a workload container's DEL consumes the pause container's file", async () => {
    const bridge = fakeDelegate('win-bridge', { result: BRIDGE_RESULT });
    const { host, node } = flannelNode(bridge.plugin);
    host.files.write('/run/flannel/subnet.env', SUBNET_ENV);
    await run(node, 'ADD', CONF, { CNI_CONTAINERID: 'pause1', CNI_NETNS: 'none' });
    expect(host.files.exists('/var/lib/cni/flannel/pause1')).toBe(true);
    await run(node, 'DEL', CONF, { CNI_CONTAINERID: 'app1', CNI_NETNS: 'container:pause1' });
    expect(host.files.exists('/var/lib/cni/flannel/pause1')).toBe(false);
    // the pause container's own DEL then finds nothing and skips the delegate
    await run(node, 'DEL', CONF, { CNI_CONTAINERID: 'pause1', CNI_NETNS: 'none' });
    expect(bridge.calls.map((c) => [c.command, c.env['CNI_CONTAINERID']])).toEqual([
      ['ADD', 'pause1'],
      ['DEL', 'app1'],
    ]);
  });
});

describe('flannel CHECK and VERSION', () => {
  it("CHECK succeeds for ≥ 0.4.0 without touching anything; older configs fail skel's floor", async () => {
    const { node } = flannelNode();
    expect(await run(node, 'CHECK', { ...CONF, cniVersion: '0.4.0' })).toEqual({
      exitCode: 0,
      stdout: '',
      stderr: '',
    });
    const out = await run(node, 'CHECK', CONF);
    expect(errorDoc(out)).toEqual({ code: 1, msg: 'config version does not allow CHECK' });
  });

  it('VERSION lists every spec version', async () => {
    const { node } = flannelNode();
    const out = await run(node, 'VERSION', '');
    expect(JSON.parse(out.stdout)).toEqual({
      cniVersion: '1.1.0',
      supportedVersions: ['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'],
    });
  });

  it('no CNI_COMMAND: the about text on stderr', async () => {
    const { node } = flannelNode();
    const out = await node.exec('flannel', { env: { CNI_PATH: 'C:\\opt\\cni\\bin' }, stdin: '' }, 0);
    expect(out.exitCode).toBe(0);
    expect(out.stderr).toBe(
      `${FLANNEL_ABOUT}\nCNI protocol versions supported: 0.1.0, 0.2.0, 0.3.0, 0.3.1, 0.4.0, 1.0.0, 1.1.0\n`,
    );
  });
});
