/**
 * `hnsim ovs` and the JSON-RPC Ovs* methods: Open vSwitch's commands on a state file's node, their
 * output and exit status passed through, the node (database, flows, the vNICs OVS made) kept
 * between invocations; bad command lines and parameters refused with nothing changed.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runHnsim, type CliOut } from './hnsim.js';
import { createHost } from '../../src/host/host.js';
import { RpcServer } from '../../src/api/rpc.js';

const run = (args: string[]): Promise<CliOut> => runHnsim(args, { input: '' });

const dirs: string[] = [];
function stateFile(): string {
  const d = mkdtempSync(join(tmpdir(), 'hnsim-ovs-'));
  dirs.push(d);
  return join(d, 'node.json');
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const TRANSPARENT_WITH_OVS = JSON.stringify({
  Name: 'antrea-hnsnetwork',
  Type: 'Transparent',
  Policies: [
    {
      Type: 'VSwitchExtension',
      Settings: { ExtensionID: '583CC151-73EC-4A6A-8B47-578297AD7623', Enable: true },
    },
  ],
  SchemaVersion: { Major: 2, Minor: 0 },
});

describe('hnsim ovs', () => {
  it('a session: network with the extension, start, bridge, an internal port (a new host vNIC), flows, trace', async () => {
    const s = stateFile();
    expect((await run(['call', '--state', s, 'HcnCreateNetwork', 'null', TRANSPARENT_WITH_OVS])).status).toBe(
      0,
    );
    expect(await run(['ovs', '--state', s, 'start'])).toEqual({ status: 0, stdout: '', stderr: '' });
    const add = await run([
      'ovs',
      '--state',
      s,
      'vsctl',
      'add-br',
      'br-int',
      '--',
      'add-port',
      'br-int',
      'antrea-gw0',
      '--',
      'set',
      'interface',
      'antrea-gw0',
      'type=internal',
      'ofport_request=32769',
    ]);
    expect(add).toEqual({ status: 0, stdout: '', stderr: '' });
    // the vNIC OVS created is in the node's state file
    const adapters = JSON.parse((await run(['call', '--state', s, 'GetAdapters'])).stdout) as {
      adapters: { Name: string; Kind: string }[];
    };
    expect(adapters.adapters.find((a) => a.Name === 'antrea-gw0')).toMatchObject({ Kind: 'HostVNic' });
    expect(
      (await run(['ovs', '--state', s, 'ofctl', 'add-flow', 'br-int', 'priority=5,ip,actions=output:32769']))
        .status,
    ).toBe(0);
    expect((await run(['ovs', '--state', s, 'ofctl', '--no-stats', 'dump-flows', 'br-int'])).stdout).toBe(
      ' priority=5,ip actions=output:32769\n',
    );
    const t = await run([
      'ovs',
      '--state',
      s,
      'appctl',
      'ofproto/trace',
      'br-int',
      'in_port=LOCAL,ip,nw_dst=10.10.0.5',
    ]);
    expect(t.status).toBe(0);
    expect(t.stdout).toContain('Datapath actions: ');
    expect(t.stdout).toMatch(/^ 0\. ip, priority 5$/m);
    // the state file carries it all
    const snap = JSON.parse(readFileSync(s, 'utf8')) as { ovs: { running: boolean; created: string[] } };
    // (no Hyper-V port is named br-int here: the bridge's own interface made a vNIC too)
    expect(snap.ovs).toMatchObject({ running: true, created: ['antrea-gw0', 'br-int'] });
  });

  it("the tools' errors and statuses pass through; the node is kept as it was", async () => {
    const s = stateFile();
    await run(['call', '--state', s, 'HcnCreateNetwork', 'null', TRANSPARENT_WITH_OVS]);
    await run(['ovs', '--state', s, 'start']);
    await run(['ovs', '--state', s, 'vsctl', 'add-br', 'br-int']);
    const before = readFileSync(s, 'utf8');
    expect(await run(['ovs', '--state', s, 'vsctl', 'del-br', 'nope'])).toEqual({
      status: 1,
      stdout: '',
      stderr: 'ovs-vsctl: no bridge named nope\n',
    });
    expect((await run(['ovs', '--state', s, 'vsctl', 'br-exists', 'nope'])).status).toBe(2);
    const bad = await run(['ovs', '--state', s, 'ofctl', 'add-flow', 'br-int', 'actions=frobnicate']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^ovs-ofctl: /);
    // the texts ovs-vswitchd 3.1 answers (checked through the peer of test/ovs/peer), exit 2
    expect(await run(['ovs', '--state', s, 'appctl', 'frob'])).toEqual({
      status: 2,
      stdout: '',
      stderr:
        '"frob" is not a valid command (use "list-commands" to see a list of valid commands)\novs-appctl: ovs-vswitchd: server returned an error\n',
    });
    for (const [args, text] of [
      [['ofproto/trace', 'nosuch', 'in_port=1'], 'nosuch: unknown bridge'],
      [
        ['ofproto/trace', 'br-int', 'in_port=1,frob=3'],
        'Bad openflow flow syntax: in_port=1,frob=3: unknown field frob',
      ],
      [['ofproto/trace'], '"ofproto/trace" command requires at least 1 arguments'],
    ] as const)
      expect((await run(['ovs', '--state', s, 'appctl', ...args])).stderr.split('\n')[0]).toBe(text);
    expect(JSON.parse(readFileSync(s, 'utf8'))).toEqual(JSON.parse(before));
  });

  it('bad command lines: exit 2, no state file written', async () => {
    const s = stateFile();
    for (const args of [
      ['ovs', '--state', s],
      ['ovs', '--state', s, 'frob'],
      ['ovs', '--state', s, 'start', 'now'],
      ['ovs', 'vsctl', 'show'],
      ['ovs', '--bogus', 'vsctl'],
    ]) {
      const r = await run(args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^hnsim: ovs: /);
    }
    expect(() => readFileSync(s)).toThrow();
  });

  it("a tool's own options after TOOL are the tool's, not hnsim's", async () => {
    const s = stateFile();
    const r = await run([
      'ovs',
      '--state',
      s,
      'vsctl',
      '--may-exist',
      'add-br',
      'br0',
      '--',
      '--may-exist',
      'add-br',
      'br0',
    ]);
    expect(r.status).toBe(0);
    expect((await run(['ovs', '--state', s, 'vsctl', '--columns=name', 'list', 'bridge'])).stdout).toBe(
      'name                : br0\n',
    );
  });
});

describe('JSON-RPC', () => {
  async function call(server: RpcServer, method: string, params: unknown[]) {
    return server.request({ jsonrpc: '2.0', id: 1, method, params: params as never });
  }

  it('OvsStart, OvsVsctl (argv or a line), OvsOfctl, OvsAppctl, RenameAdapter, SetAdapterAddress', async () => {
    const host = createHost({ seed: 3 });
    const server = new RpcServer(host);
    await call(server, 'HcnCreateNetwork', [null, JSON.parse(TRANSPARENT_WITH_OVS)]);
    expect(await call(server, 'RenameAdapter', ['vEthernet (Ethernet)', 'br-int'])).toMatchObject({
      result: null,
    });
    expect(await call(server, 'OvsStart', [])).toMatchObject({ result: { running: true } });
    expect(
      await call(server, 'OvsVsctl', [
        'add-br br-int -- add-port br-int gw0 -- set interface gw0 type=internal',
      ]),
    ).toMatchObject({
      result: { status: 0 },
    });
    expect(await call(server, 'SetAdapterAddress', ['gw0', '10.10.0.1/24', null])).toMatchObject({
      result: null,
    });
    expect(host.adapters().find((a) => a['Name'] === 'gw0')).toMatchObject({ IPv4Address: '10.10.0.1' });
    expect(await call(server, 'OvsOfctl', [['add-flow', 'br-int', 'actions=drop']])).toMatchObject({
      result: { status: 0 },
    });
    const t = await call(server, 'OvsAppctl', [['ofproto/trace', 'br-int', 'in_port=LOCAL,tcp']]);
    expect((t as unknown as { result: { stdout: string } }).result.stdout).toContain(
      'Datapath actions: drop',
    );
    expect(await call(server, 'OvsStop', [])).toMatchObject({ result: { running: false } });
  });

  it('wrong parameter types are -32602 and change nothing', async () => {
    const host = createHost({ seed: 3 });
    const server = new RpcServer(host);
    const before = JSON.stringify(host.snapshot());
    for (const [m, p] of [
      ['OvsVsctl', [42]],
      ['OvsOfctl', ['add-flow br0 actions=drop']],
      ['OvsAppctl', [[1, 2]]],
      ['RenameAdapter', ['Ethernet', 7]],
      ['SetAdapterAddress', ['Ethernet', 12]],
      ['SetAdapterAddress', ['Ethernet', '10.0.0.5/24', 5]],
    ] as const) {
      const r = (await call(server, m, [...p])) as { error?: { code: number } };
      expect(r.error?.code, m).toBe(-32602);
    }
    expect(JSON.stringify(host.snapshot())).toBe(before);
  });
});

describe('review regressions', () => {
  it('a restored database draws no UUID its rows hold: bridges added in later invocations are all kept', async () => {
    const s = stateFile();
    expect((await run(['ovs', '--state', s, 'vsctl', 'add-br', 'br-int'])).status).toBe(0);
    expect((await run(['ovs', '--state', s, 'vsctl', 'add-br', 'br-ex'])).status).toBe(0);
    expect((await run(['ovs', '--state', s, 'vsctl', 'add-br', 'br-3'])).status).toBe(0);
    expect((await run(['ovs', '--state', s, 'vsctl', 'list-br'])).stdout).toBe('br-3\nbr-ex\nbr-int\n');
  });

  it("ovs-ofctl's -O option (Antrea's docs write -O OpenFlow15) is taken", async () => {
    const s = stateFile();
    await run(['call', '--state', s, 'HcnCreateNetwork', 'null', TRANSPARENT_WITH_OVS]);
    await run(['ovs', '--state', s, 'start']);
    await run(['ovs', '--state', s, 'vsctl', 'add-br', 'br-int']);
    await run([
      'ovs',
      '--state',
      s,
      'ofctl',
      '-O',
      'OpenFlow15',
      'add-flow',
      'br-int',
      'priority=7,actions=drop',
    ]);
    expect(
      (await run(['ovs', '--state', s, 'ofctl', '-O', 'OpenFlow15', '--no-stats', 'dump-flows', 'br-int']))
        .stdout,
    ).toBe(' priority=7 actions=drop\n');
  });
});
