/**
 * azure-vnet-ipam against Azure/azure-container-networking v1.8.12: the flows of
 * `cni/ipam/ipam_test.go` (its wireserver document and its ADD/DEL sequence), the semantics of
 * `ipam/pool.go` and `ipam/manager.go` as reference azure-cni.md §5.3 lists them, the texts of
 * `ipam/api.go` and `cni/ipam/plugin/main.go`, and the state file's shape (§5.2). Expected values
 * are written here from those sources, never read from src/.
 */
import { describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../src/host/host.js';
import { azureHost, ipamConf, ipamEnv, IPAM_STATE, type IpamConf } from './kit.js';
import { pluginHost, type CniHost } from '../../../src/cni/host.js';
import { cniRpcMethods, referenceRegistry } from '../../../src/plugins/index.js';
import { azureVnetIpam } from '../../../src/plugins/azure-vnet-ipam/index.js';
import type { ExecOutput } from '../../../src/cni/contracts.js';

/** The document of ACN cni/ipam/ipam_test.go (`ipamQueryResponse`), as its fake wireserver serves it. */
const UPSTREAM_DOC =
  '<Interfaces>' +
  '\t<Interface MacAddress="*" IsPrimary="true">' +
  '\t\t<IPSubnet Prefix="10.0.0.0/16">' +
  '\t\t\t<IPAddress Address="10.0.0.4" IsPrimary="true"/>' +
  '\t\t\t<IPAddress Address="10.0.0.5" IsPrimary="false"/>' +
  '\t\t\t<IPAddress Address="10.0.0.6" IsPrimary="false"/>' +
  '\t\t\t<IPAddress Address="10.0.0.7" IsPrimary="false"/>' +
  '\t\t</IPSubnet>' +
  '\t</Interface>' +
  '</Interfaces>';

/** The node's plugin host with the wireserver answering `doc` instead (the upstream test's fake). */
function withDocument(host: Host, doc: () => string): CniHost {
  const ph = pluginHost(host, referenceRegistry());
  return Object.create(ph, { platformGet: { value: () => ({ status: 200, body: doc() }) } }) as CniHost;
}

function run(
  ph: CniHost | Host,
  command: string,
  id: string,
  c: IpamConf = { cniVersion: '0.4.0' },
): Promise<ExecOutput> {
  const host = 'run' in ph ? ph : pluginHost(ph, referenceRegistry());
  return azureVnetIpam.exec(host, {
    env: ipamEnv(command, id),
    stdin: ipamConf(c),
  });
}

const ok = (out: ExecOutput): Record<string, unknown> => {
  expect(out.exitCode, out.stdout).toBe(0);
  return out.stdout === '' ? {} : (JSON.parse(out.stdout) as Record<string, unknown>);
};
const failed = (out: ExecOutput): unknown => {
  expect(out.exitCode).toBe(1);
  return JSON.parse(out.stdout);
};
const addressOf = (doc: Record<string, unknown>): string =>
  ((doc['ips'] as { address: string }[])[0] ?? { address: '' }).address;

describe('azure-vnet-ipam: the flows of ACN cni/ipam/ipam_test.go', () => {
  it('ADD without a subnet takes the pool; DEL by subnet and address, then by subnet alone; ADD of 10.0.0.6; ADD in the subnet', async () => {
    const ph = withDocument(createHost(), () => UPSTREAM_DOC);
    const used = new Set<string>();
    // "When ADD with nothing, call for ipam triggering request pool and address"
    const first = ok(await run(ph, 'ADD', 'c1', { cniVersion: '0.4.0', subnet: '', ipAddress: '' }));
    const a1 = addressOf(first);
    expect(['10.0.0.5/16', '10.0.0.6/16', '10.0.0.7/16']).toContain(a1);
    used.add(a1);
    // "When DELETE with subnet and address, call for ipam triggering release address"
    ok(
      await run(ph, 'DEL', 'c1', { cniVersion: '0.4.0', subnet: '10.0.0.0/16', ipAddress: a1.split('/')[0] }),
    );
    used.delete(a1);
    // "When DELETE with subnet, call for ipam triggering releasing pool"
    ok(await run(ph, 'DEL', 'c1', { cniVersion: '0.4.0', subnet: '10.0.0.0/16', ipAddress: '' }));
    // "When address is given": the pool is free again, and 10.0.0.6 is that address
    const given = ok(await run(ph, 'ADD', 'c2', { cniVersion: '0.4.0', subnet: '', ipAddress: '10.0.0.6' }));
    expect(addressOf(given)).toBe('10.0.0.6/16');
    used.add('10.0.0.6/16');
    // "When subnet is given": a usable address no one holds
    const inSubnet = ok(await run(ph, 'ADD', 'c3', { cniVersion: '0.4.0', subnet: '10.0.0.0/16' }));
    expect(used.has(addressOf(inSubnet))).toBe(false);
    expect(['10.0.0.5/16', '10.0.0.7/16']).toContain(addressOf(inSubnet));
  });
});

describe('azure-vnet-ipam on an Azure VM (the wireserver lists the NIC)', () => {
  it('prints the result of ipam.go Add: the address in the pool, host 1 as gateway and default route, Azure DNS', async () => {
    const host = azureHost();
    const out = ok(await run(host, 'ADD', 'pod-a', { cniVersion: '1.0.0' }));
    expect(out).toEqual({
      cniVersion: '1.0.0',
      ips: [{ address: '10.240.0.5/16', gateway: '10.240.0.1' }],
      routes: [{ dst: '0.0.0.0/0', gw: '10.240.0.1' }],
      dns: { nameservers: ['168.63.129.16'] },
    });
  });

  it('a configuration without cniVersion is 0.2.0: ip4 with its routes, and dns', async () => {
    const out = ok(await run(azureHost(), 'ADD', 'pod-a', {}));
    expect(out).toEqual({
      cniVersion: '0.2.0',
      ip4: { ip: '10.240.0.5/16', gateway: '10.240.0.1', routes: [{ dst: '0.0.0.0/0', gw: '10.240.0.1' }] },
      dns: { nameservers: ['168.63.129.16'] },
    });
  });

  it('the same container gets the same address again; others get the next free ones; then none is left', async () => {
    const host = azureHost(['10.240.0.5', '10.240.0.6']);
    const inPool = { cniVersion: '0.4.0', subnet: '10.240.0.0/16' };
    expect(addressOf(ok(await run(host, 'ADD', 'a', { cniVersion: '0.4.0' })))).toBe('10.240.0.5/16');
    expect(addressOf(ok(await run(host, 'ADD', 'a', inPool)))).toBe('10.240.0.5/16');
    expect(addressOf(ok(await run(host, 'ADD', 'b', inPool)))).toBe('10.240.0.6/16');
    expect(failed(await run(host, 'ADD', 'c', inPool))).toEqual({
      code: 100,
      msg: 'Failed to allocate address: No available addresses',
    });
    // released by container ID (no ipAddress), the address is free for the next container
    ok(await run(host, 'DEL', 'a', inPool));
    expect(addressOf(ok(await run(host, 'ADD', 'c', inPool)))).toBe('10.240.0.5/16');
  });

  it('a second ADD without a subnet finds no pool while the first pool holds an address (pool.go requestPool)', async () => {
    const host = azureHost();
    ok(await run(host, 'ADD', 'a', { cniVersion: '0.4.0' }));
    expect(failed(await run(host, 'ADD', 'b', { cniVersion: '0.4.0' }))).toEqual({
      code: 100,
      msg: 'Failed to allocate pool: no available address pools',
    });
  });

  it('a requested address must exist and be free or the caller’s', async () => {
    const host = azureHost();
    const inPool = (ipAddress: string) => ({ cniVersion: '0.4.0', subnet: '10.240.0.0/16', ipAddress });
    ok(await run(host, 'ADD', 'a', { cniVersion: '0.4.0', ipAddress: '10.240.0.6' }));
    expect(failed(await run(host, 'ADD', 'b', inPool('10.240.0.9')))).toEqual({
      code: 100,
      msg: 'Failed to allocate address: Address not found',
    });
    expect(failed(await run(host, 'ADD', 'b', inPool('10.240.0.6')))).toEqual({
      code: 100,
      msg: 'Failed to allocate address: Address already in use',
    });
    expect(addressOf(ok(await run(host, 'ADD', 'a', inPool('10.240.0.6'))))).toBe('10.240.0.6/16');
  });

  it('DEL of an unknown or free address succeeds; DEL without a subnet fails as upstream does (code 100)', async () => {
    const host = azureHost();
    ok(await run(host, 'ADD', 'a', { cniVersion: '0.4.0' }));
    ok(
      await run(host, 'DEL', 'zz', { cniVersion: '0.4.0', subnet: '10.240.0.0/16', ipAddress: '10.240.0.7' }),
    );
    ok(
      await run(host, 'DEL', 'zz', { cniVersion: '0.4.0', subnet: '10.240.0.0/16', ipAddress: '10.240.9.9' }),
    );
    expect(failed(await run(host, 'DEL', 'a', { cniVersion: '0.4.0' }))).toEqual({
      code: 100,
      msg: 'Failed to release address: Pool id  not found :Invalid address pool',
    });
  });

  it('ipam.type internal prints nothing (azure-vnet reads the result in-process)', async () => {
    const out = await run(azureHost(), 'ADD', 'a', { cniVersion: '0.4.0', type: 'internal' });
    expect(out).toEqual({ exitCode: 0, stdout: '', stderr: '' });
  });

  it('master names the interface a pool must be on', async () => {
    const host = azureHost();
    expect(failed(await run(host, 'ADD', 'a', { cniVersion: '0.4.0', master: 'Ethernet 2' }))).toEqual({
      code: 100,
      msg: 'Failed to allocate pool: no available address pools',
    });
    expect(addressOf(ok(await run(host, 'ADD', 'a', { cniVersion: '0.4.0', master: 'Ethernet' })))).toBe(
      '10.240.0.5/16',
    );
  });

  it('CHECK does nothing; VERSION lists 0.1.0 to 1.0.0', async () => {
    const host = azureHost();
    expect(await run(host, 'CHECK', 'a', { cniVersion: '0.4.0' })).toEqual({
      exitCode: 0,
      stdout: '',
      stderr: '',
    });
    const v = ok(await run(host, 'VERSION', 'a', { cniVersion: '0.4.0' }));
    expect(v['supportedVersions']).toEqual(['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0']);
  });
});

describe('azure-vnet-ipam off Azure and with bad state', () => {
  it('a node nothing answers for: no address space ("Invalid address space")', async () => {
    expect(failed(await run(createHost(), 'ADD', 'a', { cniVersion: '0.4.0' }))).toEqual({
      code: 100,
      msg: 'Failed to allocate pool: Invalid address space',
    });
  });

  it('an environment the plugin has no source for is "Invalid configuration"', async () => {
    expect(failed(await run(azureHost(), 'ADD', 'a', { cniVersion: '0.4.0', environment: 'mars' }))).toEqual({
      code: 100,
      msg: 'Failed to parse network configuration: Invalid configuration',
    });
  });

  it('a state file Go cannot decode stops the plugin before any command, VERSION included (main.go)', async () => {
    const host = azureHost();
    host.files.write(IPAM_STATE, 'x');
    for (const cmd of ['ADD', 'VERSION']) {
      expect(await run(host, cmd, 'a', { cniVersion: '0.4.0' })).toEqual({
        exitCode: 1,
        stdout: "Failed to start IPAM plugin, err:invalid character 'x' looking for beginning of value.\n",
        stderr: '',
      });
    }
    expect(host.files.read(IPAM_STATE)).toBe('x');
  });

  it('an empty state file is no state (store.ErrStoreEmpty)', async () => {
    const host = azureHost();
    host.files.write(IPAM_STATE, '');
    expect(addressOf(ok(await run(host, 'ADD', 'a', { cniVersion: '0.4.0' })))).toBe('10.240.0.5/16');
  });
});

describe('azure-vnet-ipam across a reboot (reference azure-cni.md §5.3 "No reboot reset", §7 #1)', () => {
  it('keeps every address in use after a reboot, until the state file is deleted (AKS cleanupnetwork.ps1)', async () => {
    const host = azureHost(['10.240.0.5']);
    const inPool = { cniVersion: '0.4.0', subnet: '10.240.0.0/16' };
    ok(await run(host, 'ADD', 'before-reboot', { cniVersion: '0.4.0' }));
    host.reboot();
    // the pod is gone with the reboot, its address is not: the CNI path never clears InUse
    expect(failed(await run(host, 'ADD', 'after-reboot', inPool))).toEqual({
      code: 100,
      msg: 'Failed to allocate address: No available addresses',
    });
    // what AKS's node start-up does: delete azure-vnet*.json
    host.files.remove(IPAM_STATE);
    expect(addressOf(ok(await run(host, 'ADD', 'after-reboot', { cniVersion: '0.4.0' })))).toBe(
      '10.240.0.5/16',
    );
  });
});

describe('azure-vnet-ipam.json', () => {
  it('is the manager under IPAM, tab-indented, fields in Go declaration order, the mask base64', async () => {
    const host = azureHost(['10.240.0.5', '10.240.0.6']);
    ok(await run(host, 'ADD', 'pod-a', { cniVersion: '0.4.0' }));
    const expected = [
      '{',
      '\t"IPAM": {',
      '\t\t"Version": "v1.8.12",',
      '\t\t"TimeStamp": "2026-01-01T00:00:00Z",',
      '\t\t"AddressSpaces": {',
      '\t\t\t"local": {',
      '\t\t\t\t"Id": "local",',
      '\t\t\t\t"Scope": 0,',
      '\t\t\t\t"Pools": {',
      '\t\t\t\t\t"10.240.0.0/16": {',
      '\t\t\t\t\t\t"Id": "10.240.0.0/16",',
      '\t\t\t\t\t\t"IfName": "Ethernet",',
      '\t\t\t\t\t\t"Subnet": {',
      '\t\t\t\t\t\t\t"IP": "10.240.0.0",',
      '\t\t\t\t\t\t\t"Mask": "//8AAA=="',
      '\t\t\t\t\t\t},',
      '\t\t\t\t\t\t"Gateway": "10.240.0.1",',
      '\t\t\t\t\t\t"Addresses": {',
      '\t\t\t\t\t\t\t"10.240.0.5": {',
      '\t\t\t\t\t\t\t\t"ID": "pod-a",',
      '\t\t\t\t\t\t\t\t"Addr": "10.240.0.5",',
      '\t\t\t\t\t\t\t\t"InUse": true',
      '\t\t\t\t\t\t\t},',
      '\t\t\t\t\t\t\t"10.240.0.6": {',
      '\t\t\t\t\t\t\t\t"ID": "",',
      '\t\t\t\t\t\t\t\t"Addr": "10.240.0.6",',
      '\t\t\t\t\t\t\t\t"InUse": false',
      '\t\t\t\t\t\t\t}',
      '\t\t\t\t\t\t},',
      '\t\t\t\t\t\t"IsIPv6": false,',
      '\t\t\t\t\t\t"Priority": 0,',
      '\t\t\t\t\t\t"RefCount": 1',
      '\t\t\t\t\t}',
      '\t\t\t\t}',
      '\t\t\t}',
      '\t\t}',
      '\t}',
      '}',
    ].join('\n');
    expect(host.files.read(IPAM_STATE)).toBe(expected);
  });

  it('keeps the Version of the release that wrote it first (Initialize sets it, restore reads over it)', async () => {
    const host = azureHost();
    host.files.write(IPAM_STATE, '{"IPAM":{"Version":"v1.4.22","AddressSpaces":{}}}');
    ok(await run(host, 'ADD', 'a', { cniVersion: '0.4.0' }));
    expect((JSON.parse(host.files.read(IPAM_STATE)!) as { IPAM: { Version: string } }).IPAM.Version).toBe(
      'v1.4.22',
    );
  });

  it('keeps the other keys of the file; is written in the working directory the runtime gives', async () => {
    const host = azureHost();
    host.files.write('C:\\k\\azure-vnet-ipam.json', '{"Other":{"a":1}}');
    const out = await azureVnetIpam.exec(pluginHost(host, referenceRegistry()), {
      env: ipamEnv('ADD', 'a'),
      stdin: ipamConf({ cniVersion: '0.4.0' }),
      cwd: 'C:\\k',
    });
    ok(out);
    const doc = JSON.parse(host.files.read('C:\\k\\azure-vnet-ipam.json')!) as Record<string, unknown>;
    expect(Object.keys(doc)).toEqual(['IPAM', 'Other']);
    expect(doc['Other']).toEqual({ a: 1 });
    expect(host.files.read(IPAM_STATE)).toBeUndefined();
  });

  it('an address the wireserver no longer lists stays while in use (unhealthy) and goes when released', async () => {
    const doc = (secondaries: string[]): string =>
      '<Interfaces><Interface MacAddress="000D3AF9DCA6" IsPrimary="true"><IPSubnet Prefix="10.240.0.0/16">' +
      '<IPAddress Address="10.240.0.4" IsPrimary="true"/>' +
      secondaries.map((a) => `<IPAddress Address="${a}" IsPrimary="false"/>`).join('') +
      '</IPSubnet></Interface></Interfaces>';
    let listed = ['10.240.0.5', '10.240.0.6'];
    const ph = withDocument(azureHost(), () => doc(listed));
    const inPool = { cniVersion: '0.4.0', subnet: '10.240.0.0/16' };
    ok(await run(ph, 'ADD', 'a', { cniVersion: '0.4.0' }));
    const addresses = (): string[] =>
      Object.keys(
        (
          JSON.parse(ph.files.read(IPAM_STATE)!) as {
            IPAM: { AddressSpaces: { local: { Pools: Record<string, { Addresses: object }> } } };
          }
        ).IPAM.AddressSpaces.local.Pools['10.240.0.0/16']!.Addresses,
      );
    listed = ['10.240.0.7'];
    // a refresh (any command) merges: .6 (free) goes, .5 (in use) stays, .7 comes
    ok(await run(ph, 'ADD', 'b', inPool));
    expect(addresses()).toEqual(['10.240.0.5', '10.240.0.7']);
    ok(await run(ph, 'DEL', 'a', inPool));
    expect(addresses()).toEqual(['10.240.0.7']);
  });

  it('JSON-RPC CniExec takes the working directory as cwd (a string)', async () => {
    const host = azureHost();
    const m = cniRpcMethods(host);
    const params = {
      plugin: 'azure-vnet-ipam',
      env: ipamEnv('ADD', 'a'),
      stdin: ipamConf({ cniVersion: '0.4.0' }),
    };
    const out = (await m['CniExec']!.run([{ ...params, cwd: 'C:\\k' }])) as { exitCode: number };
    expect(out.exitCode).toBe(0);
    expect(host.files.exists('C:\\k\\azure-vnet-ipam.json')).toBe(true);
    await expect(Promise.resolve().then(() => m['CniExec']!.run([{ ...params, cwd: 7 }]))).rejects.toThrow(
      'Invalid params: CniExec: cwd must be a string',
    );
  });
});

// The `mas` / `fileIpam` source (ACN v1.8.12 ipam/fileIpam.go): the NIC configuration from
// `c:\k\interfaces.json` (`NetworkInterfaces{Interfaces[{MacAddress, IsPrimary, IPSubnets[{Prefix,
// IPAddresses[{Address, IsPrimary}]}]}]}`), MACs matched by macAddressesEqual (lower case, ':'
// removed), primary addresses kept for the host; a missing file is only logged (no address space).
describe('azure-vnet-ipam: the mas / fileIpam source', () => {
  const file = (mac: string) =>
    JSON.stringify({
      Interfaces: [
        {
          MacAddress: mac,
          IsPrimary: true,
          IPSubnets: [
            {
              Prefix: '10.240.0.0/16',
              IPAddresses: [
                { Address: '10.240.0.4', IsPrimary: true },
                { Address: '10.240.0.7', IsPrimary: false },
              ],
            },
          ],
        },
      ],
    });
  /** A node (not on Azure) whose one NIC has the MAC the file names. */
  const fileNode = () =>
    createHost({
      adapters: [
        {
          name: 'Ethernet',
          ipAddress: '10.240.0.4/16',
          gateway: '10.240.0.1',
          macAddress: '00-0D-3A-00-00-01',
        },
      ],
    });

  it.each(['mas', 'fileIpam'])('%s: the file’s secondary address, matched by MAC', async (environment) => {
    const host = fileNode();
    host.files.write('c:\\k\\interfaces.json', file('00:0d:3a:00:00:01'));
    const out = ok(await run(host, 'ADD', 'a', { cniVersion: '0.4.0', environment }));
    expect(addressOf(out)).toBe('10.240.0.7/16');
  });

  it('a MAC written with dashes matches nothing (only ":" is removed): no pool; a missing file: no address space', async () => {
    const host = fileNode();
    host.files.write('c:\\k\\interfaces.json', file('00-0D-3A-00-00-01'));
    // the file was read: an address space without pools
    expect(failed(await run(host, 'ADD', 'a', { cniVersion: '0.4.0', environment: 'mas' }))).toEqual({
      code: 100,
      msg: 'Failed to allocate pool: no available address pools',
    });
    const bare = createHost({});
    expect(failed(await run(bare, 'ADD', 'a', { cniVersion: '0.4.0', environment: 'mas' }))).toEqual({
      code: 100,
      msg: 'Failed to allocate pool: Invalid address space',
    });
  });
});
