// azure-vnet.json read back: what a save remembers for the next invocation (src/plugins/azure-vnet/
// state.ts saveNetworkState) must be what Go's decoder makes of the text it wrote — checked on the
// states real ADD/DEL sequences leave, by decoding the same text on a fresh disk (nothing
// remembered there) — and a state file edited behind the plugin's back is decoded, not recalled.
import { describe, expect, it } from 'vitest';
import { FileStore } from '../../../src/core/files.js';
import { loadNetworkState } from '../../../src/plugins/azure-vnet/state.js';
import { aksNode, aksPluginConf, cid, namespace, podArgs, vnet, VNET_STATE } from './kit.js';

function decodedFresh(text: string) {
  const fresh = new FileStore();
  fresh.write(VNET_STATE, text);
  return loadNetworkState(fresh, VNET_STATE, 'unused');
}

describe('azure-vnet.json: remembered and decoded agree', () => {
  it("after ADDs, a DEL and a failed ADD, the next invocation's manager is the decoded file's", async () => {
    const host = await aksNode();
    const ns = [await namespace(host), await namespace(host), await namespace(host)];
    const ids = [cid('aaaa0001'), cid('bbbb0002'), cid('cccc0003')];
    const steps = [
      () => vnet(host, { command: 'ADD', id: ids[0]!, netns: ns[0]! }),
      () =>
        vnet(host, { command: 'ADD', id: ids[1]!, netns: ns[1]!, args: podArgs('b', 'kube-system', ids[1]) }),
      () => vnet(host, { command: 'DEL', id: ids[0]!, netns: ns[0]! }),
      () => vnet(host, { command: 'ADD', id: ids[2]!, netns: 'none' }),
    ];
    for (const step of steps) {
      await step();
      const text = host.files.read(VNET_STATE)!;
      const recalled = loadNetworkState(host.files, VNET_STATE, 'unused');
      expect(recalled).toEqual(decodedFresh(text));
    }
  });

  it("a file changed behind the plugin's back is decoded again (and its error is Go's)", async () => {
    const host = await aksNode();
    await vnet(host, { command: 'ADD', id: cid('aaaa0001'), netns: await namespace(host) });
    const text = host.files.read(VNET_STATE)!;
    const edited = text.replace('"Mode": "bridge"', '"Mode": "tunnel"');
    host.files.write(VNET_STATE, edited);
    const nm = loadNetworkState(host.files, VNET_STATE, 'unused').nm;
    expect(nm.ExternalInterfaces!.get('vEthernet (Ethernet)')!.Networks!.get('azure')!.Mode).toBe('tunnel');
    host.files.write(VNET_STATE, text.replace('"VlanId": 0', '"VlanId": "0"'));
    expect(() => loadNetworkState(host.files, VNET_STATE, 'unused')).toThrow(
      'json: cannot unmarshal string into Go struct field network.ExternalInterfaces.Networks.VlanId of type int',
    );
  });
});

describe('azure-vnet-ipam.json: a restored node allocates as the original does', () => {
  it('after a snapshot and a restore (the state decoded from its text) the next pods get the addresses they would have', async () => {
    // 12 secondary IPs: .5 … .16, whose texts do not sort as their addresses ("10.224.0.10" < "10.224.0.5")
    const secondary = Array.from({ length: 12 }, (_, i) => `10.224.0.${5 + i}`);
    const original = await aksNode({ secondary });
    const ip = async (host: typeof original, tag: string): Promise<string> => {
      const out = await vnet(host, { command: 'ADD', id: cid(tag), netns: await namespace(host) });
      return (JSON.parse(out.stdout) as { ips: { address: string }[] }).ips[0]!.address;
    };
    expect(await ip(original, 'aaaa0001')).toBe('10.224.0.5/16');
    const restored = await aksNode({ secondary });
    restored.restore(original.snapshot());
    const next = ['bbbb0002', 'cccc0003', 'dddd0004'];
    const fromOriginal: string[] = [];
    const fromRestored: string[] = [];
    for (const tag of next) fromOriginal.push(await ip(original, tag));
    for (const tag of next) fromRestored.push(await ip(restored, tag));
    // the lowest free address each time, on both (docs/model.md "azure-vnet-ipam")
    expect(fromOriginal).toEqual(['10.224.0.6/16', '10.224.0.7/16', '10.224.0.8/16']);
    expect(fromRestored).toEqual(fromOriginal);
  });
});

// GET_ENDPOINT_STATE (ACN cni/network/plugin/main.go, NetPlugin.GetAllEndpointState; the struct
// api.AzureCNIState in cni/api/api.go): what CNS's client reads — network "azure"'s endpoints by
// ID, json.MarshalIndent with four spaces, a net.IPNet as {"IP","Mask":<base64>}.
describe('GET_ENDPOINT_STATE', () => {
  const dump = (host: Awaited<ReturnType<typeof aksNode>>, conf?: string) =>
    vnet(host, { command: 'GET_ENDPOINT_STATE', id: '', netns: '', ...(conf ? { conf } : {}) });

  it('prints network azure’s endpoints as api.AzureCNIState', async () => {
    const host = await aksNode();
    const id = cid('aaaa0001');
    await vnet(host, {
      command: 'ADD',
      id,
      netns: await namespace(host),
      args: podArgs('web-0', 'shop', id),
    });
    const before = host.files.read(VNET_STATE);
    const out = await dump(host);
    expect(out.exitCode).toBe(0);
    expect(out.stdout).toBe(
      [
        '{',
        '    "ContainerInterfaces": {',
        `        "${id.slice(0, 8)}-eth0": {`,
        '            "PodName": "web-0",',
        '            "PodNamespace": "shop",',
        `            "PodEndpointId": "${id.slice(0, 8)}-eth0",`,
        `            "ContainerID": "${id}",`,
        '            "IPAddresses": [',
        '                {',
        '                    "IP": "10.224.0.5",',
        '                    "Mask": "//8AAA=="',
        '                }',
        '            ]',
        '        }',
        '    }',
        '}',
      ].join('\n'),
    );
    expect(host.files.read(VNET_STATE)).toBe(before);
  });

  it('an empty state prints an empty map; a state without network azure prints nothing and exits 1', async () => {
    const host = await aksNode();
    expect(await dump(host)).toMatchObject({ exitCode: 0, stdout: '{\n    "ContainerInterfaces": {}\n}' });
    const other = aksPluginConf((p) => {
      p['name'] = 'mynet';
    });
    await vnet(host, { command: 'ADD', id: cid('bbbb0002'), netns: await namespace(host), conf: other });
    expect(await dump(host)).toMatchObject({ exitCode: 1, stdout: '' });
  });
});
