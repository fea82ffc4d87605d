/**
 * The node's plugin host (src/cni/host.ts): typed clients bound to the host's transport, a
 * `cni.exec` event per invocation (src/core/events.ts CniExecEvent), and a plugin that throws out of
 * its exec becoming exit 1 with a 999 error document rather than a rejection.
 */
import { describe, expect, it } from 'vitest';
import { CniError, type CniPlugin } from '../../src/cni/index.js';
import type { CniExecEvent } from '../../src/core/events.js';
import { BIN, cniEnv, fakePlugin, testNode } from './fake-plugins.js';

describe('pluginHost', () => {
  it('emits one cni.exec event per invocation, with the error code and message of a failure', async () => {
    const ok = fakePlugin('ok', { add: '{"cniVersion":"1.1.0"}' });
    const bad = fakePlugin('bad', { fail: { DEL: new CniError(3, 'container unknown', 'abc') } });
    const { host, node } = testNode(ok.plugin, bad.plugin);
    host.clock.advance(42);
    const events: CniExecEvent[] = [];
    host.events.on('cni.exec', (e) => events.push(e));
    const stdin = '{"cniVersion":"1.1.0","name":"n","type":"ok"}';
    await node.exec('ok', { env: cniEnv('ADD'), stdin }, 0);
    await node.exec('bad', { env: cniEnv('DEL'), stdin }, 2);
    expect(events).toEqual([
      {
        plugin: 'ok',
        command: 'ADD',
        containerId: 'some-container-id',
        ifName: 'eth0',
        netns: '/some/netns/path',
        exitCode: 0,
        depth: 0,
        time: 42,
      },
      {
        plugin: 'bad',
        command: 'DEL',
        containerId: 'some-container-id',
        ifName: 'eth0',
        netns: '/some/netns/path',
        exitCode: 1,
        code: 3,
        message: 'container unknown; abc',
        depth: 2,
        time: 42,
      },
    ]);
  });

  it('a plugin that throws out of exec exits 1 with a 999 document; a thrown CniError keeps its code', async () => {
    const buggy: CniPlugin = {
      type: 'buggy',
      exec: () => {
        throw new TypeError("Cannot read properties of undefined (reading 'x')");
      },
    };
    const typed: CniPlugin = { type: 'typed', exec: () => Promise.reject(new CniError(51, 'limited')) };
    const { node } = testNode(buggy, typed);
    const out = await node.exec('buggy', { env: cniEnv('ADD'), stdin: '{}' }, 0);
    expect(out).toEqual({
      exitCode: 1,
      stdout: `{\n    "code": 999,\n    "msg": "Cannot read properties of undefined (reading 'x')"\n}`,
      stderr: '',
    });
    expect(JSON.parse((await node.exec('typed', { env: cniEnv('STATUS'), stdin: '{}' }, 0)).stdout)).toEqual({
      code: 51,
      msg: 'limited',
    });
  });

  it('a plugin not on CNI_PATH rejects with invoke’s find error and emits nothing', async () => {
    const { host, node } = testNode();
    const events: CniExecEvent[] = [];
    host.events.on('cni.exec', (e) => events.push(e));
    await expect(node.exec('win-bridge', { env: cniEnv('ADD'), stdin: '{}' }, 0)).rejects.toThrow(
      `failed to find plugin "win-bridge" in path [${BIN}]`,
    );
    await expect(
      node.exec('win-bridge', { env: cniEnv('ADD', { CNI_PATH: '' }), stdin: '{}' }, 0),
    ).rejects.toThrow('no paths provided');
    expect(events).toEqual([]);
  });

  it('hands plugins the node: typed clients on the host transport, its disk, clock and profile', async () => {
    const { host, node } = testNode();
    expect(node.name).toBe(host.name);
    expect(node.profile).toBe(host.profile);
    expect(node.files).toBe(host.files);
    expect(node.clock).toBe(host.clock);
    expect(node.hcs.transport).toBe(host.transport);
    expect(node.hns.transport).toBe(host.transport);
    const before = (await node.hcn.listNetworks()).length;
    await node.hcn.createNetwork({ Name: 'nat', Type: 'NAT', SchemaVersion: { Major: 2, Minor: 0 } });
    expect((await node.hns.listNetworks()).map((n) => n.Name)).toContain('nat');
    expect((await node.hcn.listNetworks()).length).toBe(before + 1);
  });
});

describe('pluginHost interfaces (net.Interfaces())', () => {
  it('follows every change of the host: a vSwitch binding the NIC, its host vNIC, then its removal', async () => {
    const { host, node } = testNode();
    const names = () => node.interfaces!().map((i) => `${i.name} ${(i.addrs ?? []).join(',')}`);
    const before = names();
    expect(before).toEqual([expect.stringMatching(/^Ethernet \d+\.\d+\.\d+\.\d+\/\d+$/)]);
    const nicIp = before[0]!.split(' ')[1]!;
    // asked twice with nothing changed: the same answer
    expect(names()).toEqual(before);
    const net = host.api.HcnCreateNetwork(null, {
      Name: 'ext',
      Type: 'L2Bridge',
      Ipams: [{ Type: 'Static', Subnets: [{ IpAddressPrefix: '192.168.255.0/30' }] }],
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    if (!net.ok) throw new Error(net.message);
    // an external switch binds the NIC (its TCP/IP unbound) and its host vNIC takes the address
    expect(names()).toEqual(['Ethernet ', `vEthernet (Ethernet) ${nicIp}`]);
    expect(host.api.HcnDeleteNetwork(String(net.result['ID'])).hr).toBe(0);
    expect(names()).toEqual(before);
  });
});
