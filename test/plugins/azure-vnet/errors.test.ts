/**
 * azure-vnet's failures (reference azure-cni.md §1.1, §8; ACN v1.8.12 `cni/network/network.go`,
 * `cni/plugin.go`, `cni/network/plugin/main.go`): each bad input gets upstream's code and text, and
 * loses nothing — HNS, azure-vnet.json and the IPAM's records are as they were (a failure after the
 * network was created leaves that network, as upstream's rollback does).
 */
import { describe, expect, it } from 'vitest';
import { HcnClient } from '../../../src/api/hcn/client.js';
import { createAzureVnet } from '../../../src/plugins/azure-vnet/index.js';
import { referenceRegistry, execPlugin } from '../../../src/plugins/index.js';
import {
  aksNode,
  aksPluginConf,
  cid,
  files,
  hnsView,
  ipamRecords,
  namespace,
  podArgs,
  vnet,
  VNET_STATE,
  AZURE_CNI_BIN,
} from './kit.js';
import type { Host } from '../../../src/host/host.js';

/** The node after one pod: what every failing call must leave as it is. */
async function nodeWithOnePod(): Promise<{ host: Host; ns: string }> {
  const host = await aksNode();
  const ns = await namespace(host);
  expect((await vnet(host, { command: 'ADD', id: cid('aaaa0001'), netns: ns })).exitCode).toBe(0);
  return { host, ns };
}

async function snapshot(host: Host) {
  const f = files(host);
  return { hns: await hnsView(host), vnet: f.vnet, ipam: ipamRecords(host) };
}

describe("azure-vnet ADD: bad input gets upstream's error and changes nothing", () => {
  const b = cid('bbbb0002');
  it.each([
    [
      'no K8S_POD_NAMESPACE',
      { args: 'IgnoreUnknown=1;K8S_POD_NAME=web' },
      { code: 100, msg: 'Pod Namespace not specified in CNI Args' },
    ],
    [
      'no K8S_POD_NAME',
      { args: 'K8S_POD_NAMESPACE=default' },
      { code: 100, msg: 'Pod Name not specified in CNI Args' },
    ],
    [
      'an unknown CNI_ARGS key without IgnoreUnknown',
      { args: 'K8S_POD_NAMESPACE=default;K8S_POD_NAME=web;K8S_POD_UID=1' },
      { code: 999, msg: 'ARGS: unknown args ["K8S_POD_UID=1"]' },
    ],
    ['an interface name outside allowedInput', { ifName: 'eth#0' }, { code: 999, msg: 'invalid args value' }],
    [
      'a bridge name outside allowedInput',
      { conf: aksPluginConf((p) => (p['bridge'] = 'azure/0')) },
      { code: 999, msg: 'invalid network config value' },
    ],
    [
      'a wrong-typed field',
      { conf: aksPluginConf((p) => (p['mode'] = 5)) },
      {
        code: 100,
        msg: 'Failed to parse network configuration: json: cannot unmarshal number into Go struct field NetworkConfig.mode of type string.',
      },
    ],
    [
      'only Nameservers in dns',
      { conf: aksPluginConf((p) => (p['dns'] = { Nameservers: ['10.0.0.10'] })) },
      {
        code: 100,
        msg: 'Failed to getEndpointDNSSettings: Wrong DNS configuration: {Nameservers:[10.0.0.10] Domain: Search:[] Options:[]}',
      },
    ],
    [
      'an AdditionalArgs policy of no known kind',
      {
        conf: aksPluginConf(
          (p) => (p['AdditionalArgs'] = [{ name: 'EndpointPolicy', value: { Type: 'Bogus' } }]),
        ),
      },
      {
        code: 999,
        msg: 'failed to create endpoint: Failed to set Policy: Type: EndpointPolicy, Data: {"Type":"Bogus"}',
      },
    ],
    [
      'an OutBoundNAT with an empty exception list',
      {
        conf: aksPluginConf(
          (p) =>
            (p['AdditionalArgs'] = [
              { name: 'EndpointPolicy', value: { Type: 'OutBoundNAT', ExceptionList: [] } },
            ]),
        ),
      },
      { code: 999, msg: 'failed to create endpoint: OutBoundNAT policy not set' },
    ],
    [
      'a port mapping with a bad hostIP',
      {
        conf: aksPluginConf(
          (p) =>
            (p['runtimeConfig'] = {
              portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp', hostIP: 'x' }],
            }),
        ),
      },
      { code: 100, msg: 'failed to parse hostIP invalid IP: ParseAddr("x"): unable to parse IP' },
    ],
    [
      'an IPAM plugin missing from CNI_PATH',
      { conf: aksPluginConf((p) => (p['ipam'] = { type: 'no-such-ipam' })) },
      {
        code: 100,
        msg: `Failed to allocate pool: Failed to delegate: failed to find plugin "no-such-ipam" in path [${AZURE_CNI_BIN}]`,
      },
    ],
  ])('%s', async (_name, call, expected) => {
    const { host } = await nodeWithOnePod();
    const before = await snapshot(host);
    const out = await vnet(host, { command: 'ADD', id: b, netns: await namespace(host), ...call });
    expect(out.exitCode).toBe(1);
    expect(JSON.parse(out.stdout)).toEqual(expected);
    expect(await snapshot(host)).toEqual({ ...before, vnet: before.vnet });
  });

  it('a state file Go cannot decode: code 11 "Failed to start network plugin" before any command', async () => {
    const { host, ns } = await nodeWithOnePod();
    host.files.write(VNET_STATE, '{"Network": {"Version": 3}}');
    const before = await snapshot(host);
    const out = await vnet(host, { command: 'DEL', id: cid('aaaa0001'), netns: ns });
    expect(out.exitCode).toBe(1);
    expect(JSON.parse(out.stdout)).toEqual({
      code: 11,
      msg: 'Failed to start network plugin, err:json: cannot unmarshal number into Go struct field networkManager.Version of type string.\n',
    });
    expect(await snapshot(host)).toEqual(before);
    // VERSION takes neither the lock nor the state
    const version = await vnet(host, { command: 'VERSION', id: '', netns: '' });
    expect(JSON.parse(version.stdout)).toEqual({
      // skel prints its library's current version (CNI v1.3.0: 1.1.0)
      cniVersion: '1.1.0',
      supportedVersions: ['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0'],
    });
  });

  it("an explicit master that is no host interface: the IPAM, which takes pools on master's interface, has none", async () => {
    const { host } = await nodeWithOnePod();
    const before = await snapshot(host);
    const out = await vnet(host, {
      command: 'ADD',
      id: cid('bbbb0002'),
      netns: await namespace(host),
      conf: aksPluginConf((p) => {
        p['master'] = 'Ethernet 9';
        p['name'] = 'other';
      }),
    });
    expect(JSON.parse(out.stdout)).toEqual({
      code: 100,
      msg: 'Failed to allocate pool: Failed to delegate: Failed to allocate pool: no available address pools',
    });
    expect(await snapshot(host)).toEqual(before);
  });

  it('CNS-backed modes are refused with the connection error of a CNS that is not running', async () => {
    const { host } = await nodeWithOnePod();
    const before = await snapshot(host);
    const out = await vnet(host, {
      command: 'ADD',
      id: cid('bbbb0002'),
      netns: await namespace(host),
      conf: aksPluginConf((p) => (p['ipam'] = { type: 'azure-cns' })),
    });
    expect(JSON.parse(out.stdout).code).toBe(999);
    expect(JSON.parse(out.stdout).msg).toContain('actively refused');
    expect(await snapshot(host)).toEqual(before);
  });
});

describe('azure-vnet: endpoint policies from windowsSettings and the runtime', () => {
  it("enableLoopbackDSR adds OutBoundNAT to the pod's own IP; port mappings become PortMapping with flags 1", async () => {
    const host = await aksNode();
    const out = await vnet(host, {
      command: 'ADD',
      id: cid('3f813b02'),
      netns: await namespace(host),
      conf: aksPluginConf((p) => {
        p['AdditionalArgs'] = [];
        p['windowsSettings'] = { enableLoopbackDSR: true };
        p['runtimeConfig'] = {
          portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp', hostIP: '' }],
        };
      }),
    });
    expect(out.exitCode).toBe(0);
    const ep = await HcnClient.forHost(host).getEndpointByName('3f813b02-eth0');
    // §3 order: AdditionalArgs, LoopbackDSR, PortMappings
    expect(ep.Policies).toEqual([
      { Type: 'OutBoundNAT', Settings: { Destinations: ['10.224.0.5'] } },
      { Type: 'PortMapping', Settings: { Protocol: 6, InternalPort: 80, ExternalPort: 8080, Flags: 1 } },
    ]);
  });

  it("on an HNS without DSR (9.2) enableLoopbackDSR fails the ADD with hcsshim's text", async () => {
    // HCN v2 from 9.2, DSR from 9.3 (hcsshim hcn/hcnsupport.go)
    const host = await aksNode({ profile: '9.2' });
    const out = await vnet(host, {
      command: 'ADD',
      id: cid('3f813b02'),
      netns: await namespace(host),
      conf: aksPluginConf((p) => (p['windowsSettings'] = { enableLoopbackDSR: true })),
    });
    expect(JSON.parse(out.stdout)).toEqual({
      code: 999,
      msg: "failed to create endpoint: hcn doesn't support DSR: platform does not support feature Direct Server Return (DSR)",
    });
    expect(ipamRecords(host)['10.224.0.5']!.InUse).toBe(false);
  });
});

describe('azure-vnet: the release it follows (reference §2.2)', () => {
  /** A registry whose azure-vnet is the v1.5.50 binary. */
  function v15(host: Host, conf: string, id: string, netns: string) {
    const registry = referenceRegistry();
    registry.register(createAzureVnet({ release: 'v1.5.50' }));
    return execPlugin(
      host,
      'azure-vnet',
      {
        env: {
          CNI_COMMAND: 'ADD',
          CNI_CONTAINERID: id,
          CNI_NETNS: netns,
          CNI_IFNAME: 'eth0',
          CNI_ARGS: podArgs('web', 'default', id),
          CNI_PATH: AZURE_CNI_BIN,
        },
        stdin: conf,
      },
      registry,
    );
  }

  it("v1.5.50: an empty mode (the default, tunnel) creates L2Tunnel; bridge creates L2Bridge; today's release ignores mode", async () => {
    const host = await aksNode();
    const tunnel = await v15(
      host,
      aksPluginConf((p) => delete p['mode']),
      cid('aaaa0001'),
      await namespace(host),
    );
    expect(tunnel.exitCode).toBe(0);
    expect((await HcnClient.forHost(host).getNetworkByName('azure')).Type).toBe('L2Tunnel');
    const host2 = await aksNode();
    await v15(
      host2,
      aksPluginConf((p) => (p['name'] = 'br')),
      cid('bbbb0002'),
      await namespace(host2),
    );
    expect((await HcnClient.forHost(host2).getNetworkByName('br')).Type).toBe('L2Bridge');
    const host3 = await aksNode();
    await vnet(host3, {
      command: 'ADD',
      id: cid('cccc0003'),
      netns: await namespace(host3),
      conf: aksPluginConf((p) => delete p['mode']),
    });
    expect((await HcnClient.forHost(host3).getNetworkByName('azure')).Type).toBe('L2Bridge');
    // …and records Mode "tunnel" for it all the same (opModeDefault)
    expect(
      JSON.parse(files(host3).vnet!).Network.ExternalInterfaces['vEthernet (Ethernet)'].Networks.azure.Mode,
    ).toBe('tunnel');
  });

  it('v1.5.50: any other mode fails "Network mode is invalid"; the address is released', async () => {
    const host = await aksNode();
    const out = await v15(
      host,
      aksPluginConf((p) => (p['mode'] = 'transparent')),
      cid('aaaa0001'),
      await namespace(host),
    );
    expect(JSON.parse(out.stdout)).toEqual({
      code: 999,
      msg: 'failed to create endpoint: Network mode is invalid',
    });
    expect((await hnsView(host)).networks).toEqual(['ext']);
    expect(ipamRecords(host)['10.224.0.5']!.InUse).toBe(false);
  });

  it('refuses a release it does not model', () => {
    expect(() => createAzureVnet({ release: 'v1.4.0' as 'v1.8.12' })).toThrow(/v1\.8\.12 or v1\.5\.50/);
  });
});

describe('azure-vnet: what its IPAM plugin receives', () => {
  it('the re-serialized configuration, with ipam.subnet set once the network is recorded', async () => {
    const host = await aksNode();
    const seen: string[] = [];
    const registry = referenceRegistry();
    const real = registry.plugin('azure-vnet-ipam')!;
    registry.register({
      type: 'azure-vnet-ipam',
      exec(h, req, depth) {
        seen.push(
          `${String(req.env['CNI_COMMAND'])} ${typeof req.stdin === 'string' ? req.stdin : Buffer.from(req.stdin).toString()}`,
        );
        return real.exec(h, req, depth);
      },
    });
    const run = async (id: string) =>
      execPlugin(
        host,
        'azure-vnet',
        {
          env: {
            CNI_COMMAND: 'ADD',
            CNI_CONTAINERID: id,
            CNI_NETNS: await namespace(host),
            CNI_IFNAME: 'eth0',
            CNI_ARGS: podArgs('web', 'default', id),
            CNI_PATH: AZURE_CNI_BIN,
          },
          stdin: aksPluginConf((p) => (p['AdditionalArgs'] = [])),
        },
        registry,
      );
    await run(cid('aaaa0001'));
    await run(cid('bbbb0002'));
    const ipamOf = (s: string) => (JSON.parse(s.slice(s.indexOf(' ') + 1)) as { ipam: object }).ipam;
    expect(seen.map((s) => s.split(' ')[0])).toEqual(['ADD', 'ADD']);
    expect(ipamOf(seen[0]!)).toEqual({ type: 'azure-vnet-ipam' });
    expect(ipamOf(seen[1]!)).toEqual({ type: 'azure-vnet-ipam', subnet: '10.224.0.0/16' });
    expect(seen[0]).toBe(
      'ADD {"cniVersion":"0.3.0","name":"azure","type":"azure-vnet","mode":"bridge","bridge":"azure0",' +
        '"ipam":{"type":"azure-vnet-ipam"},"dns":{"nameservers":["10.0.0.10","168.63.129.16"],' +
        '"search":["svc.cluster.local"]},"runtimeConfig":{"dns":{}},"windowsSettings":{}}',
    );
  });
});

describe('azure-vnet: windowsSettings.hnsTimeoutDurationInSeconds (ACN PR #1369)', () => {
  /** Run `work`, letting a second of simulated time pass whenever nothing else is left to do. */
  async function withTimePassing<T>(host: Host, work: Promise<T>): Promise<T> {
    let done = false;
    const settled = work.finally(() => (done = true));
    for (let i = 0; i < 120 && !done; i++) {
      await new Promise((r) => setImmediate(r));
      if (!done) host.clock.advance(1000);
    }
    return settled;
  }

  it("an HNS call slower than the timeout fails the ADD with the wrapper's text; the call still lands afterwards", async () => {
    const host = await aksNode();
    // the fake of the upstream test: HNS takes 15 s, the plugin waits 10 s
    host.faults.delay({ method: 'HcnCreateEndpoint' }, 15_000, { times: 1 });
    const out = await withTimePassing(
      host,
      vnet(host, {
        command: 'ADD',
        id: cid('3f813b02'),
        netns: await namespace(host),
        conf: aksPluginConf((p) => (p['windowsSettings'] = { hnsTimeoutDurationInSeconds: 10 })),
      }),
    );
    expect(JSON.parse(out.stdout)).toEqual({
      code: 999,
      msg: 'failed to create endpoint: Failed to create endpoint: 3f813b02-eth0 due to error: CreateEndpoint timeout value is 10s : timed out calling hns',
    });
    // the address went back; the endpoint HNS was still creating appears when it is done: a leak
    expect(ipamRecords(host)['10.224.0.5']!.InUse).toBe(false);
    host.clock.advance(10_000);
    await new Promise((r) => setImmediate(r));
    expect((await hnsView(host)).endpoints).toEqual(['3f813b02-eth0']);
  });

  it('a call within the timeout is not affected; minutes print as Go prints a Duration', async () => {
    const host = await aksNode();
    host.faults.delay({ method: 'HcnCreateEndpoint' }, 5_000, { times: 1 });
    const ok = await withTimePassing(
      host,
      vnet(host, {
        command: 'ADD',
        id: cid('3f813b02'),
        netns: await namespace(host),
        conf: aksPluginConf((p) => (p['windowsSettings'] = { hnsTimeoutDurationInSeconds: 10 })),
      }),
    );
    expect(ok.exitCode).toBe(0);
    host.faults.delay({ method: 'HcnDeleteEndpoint' }, 200_000, { times: 1 });
    const del = await withTimePassing(
      host,
      vnet(host, {
        command: 'DEL',
        id: cid('3f813b02'),
        netns: 'unused',
        conf: aksPluginConf((p) => (p['windowsSettings'] = { hnsTimeoutDurationInSeconds: 120 })),
      }),
    );
    expect(JSON.parse(del.stdout).msg).toBe(
      'failed to delete endpoint: Failed to delete hcn endpoint: ' +
        JSON.parse(host.files.read('C:\\Windows\\System32\\azure-vnet.json')!).Network.ExternalInterfaces[
          'vEthernet (Ethernet)'
        ].Networks.azure.Endpoints['3f813b02-eth0'].HnsId +
        ' due to error: DeleteEndpoint timeout value is 2m0s : timed out calling hns',
    );
  });
});
