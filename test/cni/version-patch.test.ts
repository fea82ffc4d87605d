/**
 * CNI versions compared at the patch ("micro") level, and the version libcni picks among a
 * conflist's `cniVersions`. Source: containernetworking/cni (the revision src/cni follows,
 * reference cni-windows.md §1.4: "Version chosen = the highest of `cniVersions ∪ {cniVersion}` that
 * is ≤ what libcni implements"):
 * - `pkg/version/version.go`: `ParseVersion` reads major.minor.micro; `GreaterThanOrEqualTo` and
 *   `GreaterThan` compare the three parts in order, so 0.3.1 > 0.3.0;
 * - `libcni/conf.go` `NetworkConfFromBytes`: each `cniVersions` entry with `GreaterThan(v,
 *   version.Current())` false is kept, `cniVersion` (when set and not above Current) is added,
 *   the list is sorted with `GreaterThan` and the last one wins — whatever order the file lists
 *   them in; `LoadNetworkConf` reads `*.conflist` files through it, and libcni's `AddNetworkList`
 *   injects the list's version into every plugin's stdin (`buildOneConfig`).
 * Expected versions are literals.
 */
import { describe, expect, it } from 'vitest';
import { confListFromBytes, loadConfList, runList } from '../../src/cni/index.js';
import { versionGt, versionGte } from '../../src/cni/version.js';
import { BIN, fakePlugin, testNode } from './fake-plugins.js';

describe('pkg/version at the patch level', () => {
  it('GreaterThan and GreaterThanOrEqualTo see the micro part', () => {
    expect(versionGt('0.3.1', '0.3.0')).toBe(true);
    expect(versionGt('0.3.0', '0.3.1')).toBe(false);
    expect(versionGte('0.3.0', '0.3.1')).toBe(false);
    expect(versionGte('0.3.1', '0.3.0')).toBe(true);
    expect(versionGt('1.0.10', '1.0.9')).toBe(true);
    expect(versionGt('0.3.1', '0.3.1')).toBe(false);
    // minor beats micro, major beats minor
    expect(versionGt('0.4.0', '0.3.9')).toBe(true);
    expect(versionGt('1.0.0', '0.9.9')).toBe(true);
  });
});

const conflist = (versions: readonly string[], cniVersion?: string): string =>
  JSON.stringify({
    name: 'net1',
    ...(cniVersion !== undefined ? { cniVersion } : {}),
    cniVersions: versions,
    plugins: [{ type: 'first' }],
  });

describe('libcni: the version chosen among cniVersions', () => {
  it.each([
    [['0.3.0', '0.3.1'], '0.3.1'],
    [['0.3.1', '0.3.0'], '0.3.1'],
    [['0.3.1', '0.4.0', '0.3.0'], '0.4.0'],
    [['1.0.0', '1.1.0', '1.0.1'], '1.1.0'],
    // above what libcni implements (1.1.0): skipped, also at the patch level
    [['1.1.1', '1.0.0'], '1.0.0'],
    [['1.1.1', '1.1.0'], '1.1.0'],
  ])('%j → %s', (versions, want) => {
    expect(confListFromBytes(conflist(versions)).cniVersion).toBe(want);
  });

  it('cniVersion joins the candidates: the highest of both wins', () => {
    expect(confListFromBytes(conflist(['0.3.0'], '0.3.1')).cniVersion).toBe('0.3.1');
    expect(confListFromBytes(conflist(['0.3.1'], '0.3.0')).cniVersion).toBe('0.3.1');
    // a cniVersion above libcni's is dropped when cniVersions is given
    expect(confListFromBytes(conflist(['0.3.1'], '1.1.1')).cniVersion).toBe('0.3.1');
  });

  it('a conflist loaded from the node’s disk gets the same choice', () => {
    const { host } = testNode();
    const dir = 'C:\\etc\\cni\\net.d';
    host.files.write(`${dir}\\10-net1.conflist`, conflist(['0.3.1', '0.3.0']));
    expect(loadConfList(host.files, dir, 'net1').cniVersion).toBe('0.3.1');
  });

  it('the plugin is called with the chosen version on its stdin', async () => {
    const first = fakePlugin('first', { add: () => ({ cniVersion: '0.3.1', ips: [] }) });
    const t = testNode(first.plugin);
    const out = await runList(
      t.node,
      { path: [BIN] },
      {
        conflist: conflist(['0.3.1', '0.3.0']),
        command: 'ADD',
        containerId: 'c1',
        netns: 'ns1',
        ifname: 'eth0',
      },
    );
    expect(out.ok, JSON.stringify(out)).toBe(true);
    expect(JSON.parse(first.calls[0]!.stdin) as unknown).toMatchObject({ cniVersion: '0.3.1' });
  });
});
