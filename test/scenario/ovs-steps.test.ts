/**
 * The `ovs` and `renameAdapter` steps: Open vSwitch's commands and Rename-NetAdapter on a node in
 * a scenario, each checked (exit status, pieces of output; a refused rename fails the run), and
 * misuse refused by the loader with the path and a reason.
 */
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';

const HEAD = [
  'hnsim: scenario/v1',
  'name: t',
  'hosts:',
  '  - name: h',
  '    nics: [{ name: Ethernet, ipAddress: 192.168.1.10/24, gateway: 192.168.1.1 }]',
  'steps:',
];

const run = (...steps: string[]) => runScenario(loadScenario([...HEAD, ...steps].join('\n'), 't.yaml'));
const stepResults = (r: Awaited<ReturnType<typeof run>>) =>
  r.checkpoints.flatMap((c) => c.results).filter((x) => x.kind === 'step');

function problems(...steps: string[]): string[] {
  try {
    loadScenario([...HEAD, ...steps].join('\n'), 't.yaml');
    return [];
  } catch (e) {
    return String((e as Error).message).split('\n');
  }
}

describe('the ovs step', () => {
  it('runs the tool on the node: the database changes, the output is checked', async () => {
    const r = await run(
      '  - ovs: { node: h, tool: vsctl, args: [add-br, br-int] }',
      '  - ovs: { node: h, tool: vsctl, args: [list-br], stdout: [br-int] }',
    );
    expect(stepResults(r).map((x) => [x.label, x.ok])).toEqual([
      ['ovs-vsctl add-br br-int on h', true],
      ['ovs-vsctl list-br on h', true],
    ]);
    expect(r.ok).toBe(true);
    const host = r.world.nodes.get('h')!.host!;
    expect(host.ovs.vsctl(['list-br']).stdout).toBe('br-int\n');
  });

  it('another exit status, or output without the expected piece, fails the run and says why', async () => {
    // ovs-vsctl add-br of an existing bridge: 'ovs-vsctl: cannot create a bridge named br-int
    // because a bridge named br-int already exists', status 1 (ovs-vsctl.c cmd_add_br)
    const r = await run(
      '  - ovs: { node: h, tool: vsctl, args: [add-br, br-int] }',
      '  - ovs: { node: h, tool: vsctl, args: [add-br, br-int] }',
      '  - ovs: { node: h, tool: vsctl, args: [list-br], stdout: [br-ex] }',
      '  - ovs: { node: h, tool: vsctl, args: [add-br, br-int], status: 1, stdout: [already exists] }',
    );
    const s = stepResults(r);
    expect(s.map((x) => x.ok)).toEqual([true, false, false, true]);
    expect(s[1]!.problems[0]).toMatch(/^expected exit status 0, got 1: .*already exists/);
    expect(s[2]!.problems).toEqual(['its output does not contain "br-ex"']);
    expect(r.ok).toBe(false);
  });

  it('start/stop ovs-vswitchd: no bridge opens before a switch has the extension; ofctl fails on a stopped one', async () => {
    const r = await run(
      '  - ovs: { node: h, tool: vsctl, args: [add-br, br-int] }',
      '  - ovs: { node: h, tool: ofctl, args: [dump-flows, br-int], status: 1 }',
      '  - ovs: { node: h, tool: start }',
      // no switch has the Open vSwitch Extension enabled: no datapath, the bridge does not open
      '  - ovs: { node: h, tool: ofctl, args: [dump-flows, br-int], status: 1, stdout: [not a bridge] }',
      '  - call:',
      '      node: h',
      '      method: HcnCreateNetwork',
      '      params:',
      '        - null',
      '        - Name: t',
      '          Type: Transparent',
      '          Policies:',
      '            - { Type: NetAdapterName, Settings: { NetworkAdapterName: Ethernet } }',
      '            - Type: VSwitchExtension',
      '              Settings: { ExtensionID: 583CC151-73EC-4A6A-8B47-578297AD7623, Enable: true }',
      '          SchemaVersion: { Major: 2, Minor: 0 }',
      '  - ovs: { node: h, tool: ofctl, args: [add-flow, br-int, "priority=0,actions=NORMAL"] }',
      '  - ovs: { node: h, tool: ofctl, args: [--no-stats, dump-flows, br-int], stdout: [" priority=0 actions=NORMAL"] }',
      '  - ovs: { node: h, tool: stop }',
      '  - ovs: { node: h, tool: ofctl, args: [dump-flows, br-int], status: 1 }',
    );
    expect(stepResults(r).map((x) => x.ok)).toEqual([true, true, true, true, true, true, true, true]);
    expect(r.world.nodes.get('h')!.host!.ovs.running).toBe(false);
  });

  it('misuse is refused at load: an unknown tool, an unknown node, arguments that are not strings', () => {
    expect(problems('  - ovs: { node: h, tool: dpctl }').join('\n')).toMatch(
      /steps\[0\]\.ovs\.tool: must be one of vsctl, ofctl, appctl, start, stop/,
    );
    expect(problems('  - ovs: { node: nope, tool: start }').join('\n')).toMatch(/steps\[0\]\.ovs\.node/);
    expect(problems('  - ovs: { node: h, tool: start, stdout: [x] }').join('\n')).toMatch(
      /steps\[0\]\.ovs\.stdout: stdout is for vsctl, ofctl and appctl, not start/,
    );
    expect(problems('  - ovs: { node: h, tool: stop, status: 0 }').join('\n')).toMatch(
      /steps\[0\]\.ovs\.status/,
    );
    expect(problems('  - ovs: { node: h, tool: vsctl, args: [add-br, 7] }').join('\n')).toMatch(
      /steps\[0\]\.ovs\.args\[1\]/,
    );
  });
});

describe('the renameAdapter step', () => {
  it('renames a host adapter; an unknown adapter fails the run with the reason', async () => {
    const r = await run(
      '  - renameAdapter: { node: h, name: Ethernet, to: uplink }',
      '  - renameAdapter: { node: h, name: nope, to: x }',
    );
    const s = stepResults(r);
    expect(s.map((x) => x.ok)).toEqual([true, false]);
    expect(s[1]!.problems.join()).toMatch(/nope/);
    const host = r.world.nodes.get('h')!.host!;
    expect(host.adapters().map((a) => a['Name'])).toContain('uplink');
    expect(host.adapters().map((a) => a['Name'])).not.toContain('Ethernet');
  });
});
