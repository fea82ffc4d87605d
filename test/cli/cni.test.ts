/**
 * `hnsim cni` and `hnsim call` as a shell-driven plugin test uses them: a state file holding one
 * node across invocations, the CNI_* variables from the environment, the config on stdin, the
 * plugin's stdout and exit code. Mostly in-process (fast); one run spawns the real command.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runHnsim, spawnHnsim, type CliOut } from './hnsim.js';

const run = (args: string[], input = '', env: Record<string, string> = {}): Promise<CliOut> =>
  runHnsim(args, { input, env });

const dirs: string[] = [];
function stateFile(): string {
  const d = mkdtempSync(join(tmpdir(), 'hnsim-cni-'));
  dirs.push(d);
  return join(d, 'node.json');
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** An HCN L2Bridge network `cbr0` on 10.244.1.0/24 (gateway .1), as flanneld's host-gw would make it. */
const CBR0 = {
  Name: 'cbr0',
  Type: 'L2Bridge',
  SchemaVersion: { Major: 2, Minor: 0 },
  Ipams: [
    {
      Type: 'Static',
      Subnets: [
        {
          IpAddressPrefix: '10.244.1.0/24',
          Routes: [{ NextHop: '10.244.1.1', DestinationPrefix: '0.0.0.0/0' }],
        },
      ],
    },
  ],
};

/** win-bridge on the HCN path (reference §3.3 W1's v2 variant), host-local starting past the +2 gateway. */
const WIN_BRIDGE_V2 = JSON.stringify({
  cniVersion: '1.0.0',
  name: 'cbr0',
  type: 'win-bridge',
  apiVersion: 2,
  ipam: { type: 'host-local', subnet: '10.244.1.0/24', rangeStart: '10.244.1.3' },
  dns: { nameservers: ['10.96.0.10'], search: ['svc.cluster.local'] },
});

function env(command: string, cid: string, netns: string): Record<string, string> {
  return {
    CNI_COMMAND: command,
    CNI_CONTAINERID: cid,
    CNI_NETNS: netns,
    CNI_IFNAME: 'eth0',
    CNI_PATH: 'C:\\Program Files\\containerd\\cni\\bin',
  };
}

/** A node with cbr0 and one namespace per container, built with `hnsim call`. */
async function prepared(): Promise<{ state: string; ns: string[] }> {
  const state = stateFile();
  const net = await run(['call', '--state', state, 'HcnCreateNetwork', 'null', JSON.stringify(CBR0)]);
  expect(net.status, net.stderr).toBe(0);
  expect(JSON.parse(net.stdout)).toMatchObject({ Name: 'cbr0', Type: 'L2Bridge' });
  const ns: string[] = [];
  for (let i = 0; i < 2; i++) {
    const r = await run([
      'call',
      '--state',
      state,
      '--json',
      'HcnCreateNamespace',
      '[null, {"SchemaVersion":{"Major":2,"Minor":0}}]',
    ]);
    expect(r.status, r.stderr).toBe(0);
    ns.push((JSON.parse(r.stdout) as { ID: string }).ID);
  }
  return { state, ns };
}

describe('hnsim cni: one invocation per command, one node across them', () => {
  it('ADD, ADD, DEL, DEL through the state file: addresses from host-local’s file on the node’s disk, nothing left', async () => {
    const { state, ns } = await prepared();
    const a = await run(['cni', '--state', state], WIN_BRIDGE_V2, env('ADD', 'pod-a', ns[0]!));
    expect(a.status, a.stdout + a.stderr).toBe(0);
    const ra = JSON.parse(a.stdout) as { cniVersion: string; ips: { address: string; gateway: string }[] };
    // win-bridge: the IPAM address, the "+2" gateway (reference §3.3 G1), printed at the config's version
    expect(ra.cniVersion).toBe('1.0.0');
    expect(ra.ips).toEqual([{ address: '10.244.1.3/24', gateway: '10.244.1.2' }]);
    // the second ADD, in another process as far as the node is concerned, gets the next address
    const b = await run(['cni', '--state', state], WIN_BRIDGE_V2, env('ADD', 'pod-b', ns[1]!));
    expect(b.status, b.stdout).toBe(0);
    expect((JSON.parse(b.stdout) as { ips: { address: string }[] }).ips[0]!.address).toBe('10.244.1.4/24');

    const eps = await run(['call', '--state', state, 'HcnEnumerateEndpoints', '']);
    expect(JSON.parse(eps.stdout)).toHaveLength(2);
    const disk = JSON.parse(readFileSync(state, 'utf8')) as { files: Record<string, string> };
    expect(disk.files['/var/lib/cni/networks/cbr0/10.244.1.3']).toBe('pod-a\r\neth0');

    for (const [cid, n] of [
      ['pod-a', ns[0]!],
      ['pod-b', ns[1]!],
    ] as const) {
      const d = await run(['cni', '--state', state], WIN_BRIDGE_V2, env('DEL', cid, n));
      expect(d.status, d.stdout).toBe(0);
      expect(d.stdout).toBe('');
    }
    expect(JSON.parse((await run(['call', '--state', state, 'HcnEnumerateEndpoints', ''])).stdout)).toEqual(
      [],
    );
    const after = JSON.parse(readFileSync(state, 'utf8')) as { files: Record<string, string> };
    expect(Object.keys(after.files).filter((p) => /\/10\.244\./.test(p))).toEqual([]);
  });

  it('a failing plugin prints its CNI error document on stdout and exits 1 (skel: missing variables, code 4)', async () => {
    const { state } = await prepared();
    const r = await run(['cni', '--state', state], WIN_BRIDGE_V2, {
      CNI_COMMAND: 'ADD',
      CNI_PATH: 'C:\\cni',
    });
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({
      code: 4,
      msg: 'required env variables [CNI_CONTAINERID,CNI_NETNS,CNI_IFNAME] missing',
    });
  });

  it('VERSION with --plugin needs no config type; the state file is created when missing', async () => {
    const state = stateFile();
    const r = await run(['cni', '--state', state, '--plugin', 'host-local'], '{"cniVersion":"1.0.0"}', {
      CNI_COMMAND: 'VERSION',
    });
    expect(r.status).toBe(0);
    // skel's VERSION answer carries the library's version (version.Current()), not the config's
    expect(JSON.parse(r.stdout)).toEqual({
      cniVersion: '1.1.0',
      supportedVersions: ['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'],
    });
    expect(existsSync(state)).toBe(true);
  });

  it('a Go panic in the plugin is exit 2 with the panic on stderr, and what it did stays in the state', async () => {
    const state = stateFile();
    const call = (...a: string[]) => run(['call', '--state', state, ...a]);
    // a v1 network without subnets: win-bridge indexes Subnets[0] for its result (reference §2.7)
    expect(
      (
        await call(
          'HNSCall',
          'POST',
          '/networks/',
          '{"Name":"cbr0","Type":"L2Bridge","NetworkAdapterName":"Ethernet"}',
        )
      ).status,
    ).toBe(0);
    expect(
      (await call('HcsCreateComputeSystem', 'c1', '{"SchemaVersion":{"Major":2,"Minor":1},"Container":{}}'))
        .status,
    ).toBe(0);
    expect((await call('HcsStartComputeSystem', 'c1', '')).status).toBe(0);
    const conf = JSON.stringify({ cniVersion: '0.3.1', name: 'cbr0', type: 'win-bridge' });
    const r = await run(['cni', '--state', state], conf, env('ADD', 'c1', 'none'));
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^panic: runtime error: index out of range \[0\] with length 0\n/);
    const eps = JSON.parse((await call('HNSCall', 'GET', '/endpoints/', '')).stdout) as {
      Output: { Name: string }[];
    };
    expect(eps.Output.map((e) => e.Name)).toEqual(['c1_cbr0']);
  });

  it('usage and state errors: exit 2 without --state or a plugin to run, 1 for an unreadable state or an unknown plugin', async () => {
    expect((await run(['cni'], WIN_BRIDGE_V2)).status).toBe(2);
    const noType = await run(['cni', '--state', stateFile()], 'not json');
    expect(noType.status).toBe(2);
    expect(noType.stderr).toContain('give --plugin TYPE, or a config with a "type"');
    const bad = stateFile();
    writeFileSync(bad, '{oops');
    const r = await run(['cni', '--state', bad], WIN_BRIDGE_V2, env('ADD', 'x', 'none'));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^hnsim: cannot read state .*node\.json: /);
    const unknown = await run(
      ['cni', '--state', stateFile(), '--plugin', 'bridge'],
      '{}',
      env('ADD', 'x', 'none'),
    );
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain(
      'no CNI plugin "bridge" (known: antrea, azure-vnet, azure-vnet-ipam, azure-vnet-ipamv6, flannel, host-local, nat, sdnbridge, sdnoverlay, win-bridge, win-overlay)',
    );
  });
});

describe('hnsim call', () => {
  it('prints a result as JSON; an HNS failure goes to stderr with its HRESULT, exit 1, and the state is unchanged', async () => {
    const { state } = await prepared();
    const before = readFileSync(state, 'utf8');
    const r = await run(['call', '--state', state, 'HcnCreateNetwork', 'null', JSON.stringify(CBR0)]);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stderr)).toMatchObject({ code: -32000, data: { hresult: 0x803b0010 } });
    expect(JSON.parse(readFileSync(state, 'utf8'))).toEqual(JSON.parse(before));
  });

  it('CniExecList runs a conflist as libcni does, with its cache on the node', async () => {
    const { state, ns } = await prepared();
    const conflist = { cniVersion: '1.0.0', name: 'cbr0', plugins: [JSON.parse(WIN_BRIDGE_V2) as object] };
    const req = { conflist, command: 'ADD', containerId: 'pod-c', netns: ns[0], ifname: 'eth0' };
    const r = await run(['call', '--state', state, '--json', 'CniExecList', JSON.stringify([req])]);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { ok: boolean; result: { ips: { address: string }[] } };
    expect(out.ok).toBe(true);
    expect(out.result.ips[0]!.address).toBe('10.244.1.3/24');
    const disk = JSON.parse(readFileSync(state, 'utf8')) as { files: Record<string, string> };
    expect(Object.keys(disk.files)).toContain('/var/lib/cni/results/cbr0-pod-c-eth0');
  });

  it('cni --help says --plugin takes a reference type or the path of a Windows .exe', async () => {
    const r = await run(['cni', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /^ {2}--plugin TYPE\|PATH\n {20}.*\n.*the path of a Windows plugin binary \(\.exe\)/m,
    );
  });

  it('usage errors exit 2', async () => {
    expect((await run(['call', '--state', stateFile()])).status).toBe(2);
    expect((await run(['call', 'ListMethods'])).status).toBe(2);
    expect((await run(['call', '--state', stateFile(), '--json', 'X', '{'])).status).toBe(2);
  });
});

describe('as a user runs it (child process)', () => {
  it('CNI_* from the environment and the config on stdin, exit code passed through', () => {
    const state = stateFile();
    const r = spawnHnsim(['cni', '--state', state], {
      input: '{"cniVersion":"0.4.0","type":"win-overlay"}',
      env: { CNI_COMMAND: 'VERSION' },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      cniVersion: '1.1.0',
      supportedVersions: expect.arrayContaining(['0.4.0']),
    });
    const bad = spawnHnsim(['cni', '--state', state], {
      input: '{"cniVersion":"0.4.0","name":"vxlan0","type":"win-overlay"}',
      env: { CNI_COMMAND: 'BOGUS' },
    });
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stdout)).toEqual({ code: 4, msg: 'unknown CNI_COMMAND: BOGUS' });
  });
});
