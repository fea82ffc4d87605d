/**
 * The skeleton the WCN binaries run behind: libcni v1.1.2 `pkg/skel/skel.go` (vendored by
 * microsoft/windows-container-networking @ b96345f; `PluginMainWithError` as called from
 * `cni/plugin.go` Execute) with `cni.VersionsSupported` = 0.2.0, 0.3.0, 0.4.0, 1.0.0 (`cni/cni.go`
 * l.31). Reference cni-windows.md §1.2, §4.1 and pitfall P17.
 */
import { describe, expect, it } from 'vitest';
import type { ExecOutput } from '../../../src/cni/contracts.js';
import { nat, sdnbridge, sdnoverlay } from '../../../src/plugins/wcn/index.js';
import { BIN, testNode } from '../../cni/fake-plugins.js';

const { node } = testNode(sdnbridge, sdnoverlay, nat);

const env = (
  command: string,
  extra: Record<string, string | undefined> = {},
): Record<string, string | undefined> => ({
  CNI_COMMAND: command,
  CNI_CONTAINERID: 'c1',
  CNI_NETNS: '787816C2-FBBE-4C00-9A5C-175A89063DE1',
  CNI_IFNAME: 'eth0',
  CNI_PATH: BIN,
  ...extra,
});

const conf = (cniVersion?: string, more: object = {}): string =>
  JSON.stringify({
    ...(cniVersion === undefined ? {} : { cniVersion }),
    name: 'cbr0',
    type: 'sdnbridge',
    ...more,
  });

const PLUGINS = { sdnbridge, sdnoverlay, nat };

/** Run the binary directly (as a runtime does after finding it), CNI_PATH or not. */
function run(
  e: Record<string, string | undefined>,
  stdin: string,
  plugin: keyof typeof PLUGINS = 'sdnbridge',
): Promise<ExecOutput> {
  return node.run(PLUGINS[plugin], { env: e, stdin }, 0);
}

/** `types.Error.Print()`: MarshalIndent with four spaces, no trailing newline. */
function errorDoc(code: number, msg: string, details?: string): string {
  const lines = [
    `    "code": ${code},`,
    `    "msg": ${JSON.stringify(msg)}${details === undefined ? '' : ','}`,
  ];
  if (details !== undefined) lines.push(`    "details": ${JSON.stringify(details)}`);
  return `{\n${lines.join('\n')}\n}`;
}

describe('VERSION and the about text', () => {
  it("VERSION reports libcni v1.1.2's current version (1.0.0) and the four supported ones", async () => {
    for (const p of ['sdnbridge', 'sdnoverlay', 'nat'] as const) {
      const out = await run({ CNI_COMMAND: 'VERSION' }, '', p);
      expect(out).toEqual({
        exitCode: 0,
        stdout: '{"cniVersion":"1.0.0","supportedVersions":["0.2.0","0.3.0","0.4.0","1.0.0"]}\n',
        stderr: '',
      });
    }
  });

  it('without CNI_COMMAND prints the about text on stderr and exits 0', async () => {
    expect(await run({}, '')).toEqual({
      exitCode: 0,
      stdout: '',
      stderr: 'CNI plugin WinCni\nCNI protocol versions supported: 0.2.0, 0.3.0, 0.4.0, 1.0.0\n',
    });
  });
});

describe('version checks (P17)', () => {
  it('rejects 0.3.1 and 1.1.0 (and a missing cniVersion, read as 0.1.0) with code 1', async () => {
    const supported = 'plugin supports ["0.2.0" "0.3.0" "0.4.0" "1.0.0"]';
    for (const v of ['0.3.1', '1.1.0', undefined]) {
      for (const cmd of ['ADD', 'DEL']) {
        const out = await run(env(cmd), conf(v));
        expect(out.exitCode).toBe(1);
        expect(out.stdout).toBe(
          errorDoc(1, 'incompatible CNI versions', `config is "${v ?? '0.1.0'}", ${supported}`),
        );
      }
    }
  });

  it('CHECK needs 0.4.0 or later and then does nothing', async () => {
    expect((await run(env('CHECK'), conf('0.2.0'))).stdout).toBe(
      errorDoc(1, 'config version does not allow CHECK'),
    );
    expect(await run(env('CHECK'), conf('0.4.0'))).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(await run(env('CHECK'), conf('1.0.0'))).toEqual({ exitCode: 0, stdout: '', stderr: '' });
  });
});

describe('no STATUS or GC (libcni v1.1.2)', () => {
  it('as libcni sends them (no container ID): "missing containerID", code 3', async () => {
    for (const cmd of ['STATUS', 'GC']) {
      const out = await run({ CNI_COMMAND: cmd, CNI_PATH: BIN }, conf('1.0.0'));
      expect(out.exitCode).toBe(1);
      expect(out.stdout).toBe(errorDoc(3, 'missing containerID'));
    }
  });

  it('with a container ID and interface: unknown CNI_COMMAND, code 4', async () => {
    expect((await run(env('STATUS'), conf('1.0.0'))).stdout).toBe(errorDoc(4, 'unknown CNI_COMMAND: STATUS'));
    expect((await run(env('GC'), conf('1.0.0'))).stdout).toBe(errorDoc(4, 'unknown CNI_COMMAND: GC'));
  });
});

describe('libcni v1.1.2 check order', () => {
  it('the missing-variable list comes before a bad container ID', async () => {
    const out = await run(env('ADD', { CNI_CONTAINERID: 'bad id', CNI_PATH: undefined }), conf('1.0.0'));
    expect(out.stdout).toBe(errorDoc(4, 'required env variables [CNI_PATH] missing'));
  });

  it('the config comes before the container ID and the interface name', async () => {
    const out = await run(
      env('DEL', { CNI_CONTAINERID: 'bad id', CNI_IFNAME: 'a/b' }),
      '{"cniVersion":"1.0.0"}',
    );
    expect(out.stdout).toBe(errorDoc(7, 'missing network name'));
    expect((await run(env('DEL', { CNI_CONTAINERID: 'bad id' }), conf('1.0.0'))).stdout).toBe(
      errorDoc(4, 'invalid characters in containerID', 'bad id'),
    );
    expect((await run(env('DEL', { CNI_IFNAME: 'a/b' }), conf('1.0.0'))).stdout).toBe(
      errorDoc(4, 'interface name contains / or : or whitespace characters'),
    );
  });

  it('DEL does not need CNI_NETNS; ADD does', async () => {
    expect((await run(env('ADD', { CNI_NETNS: undefined }), conf('1.0.0'))).stdout).toBe(
      errorDoc(4, 'required env variables [CNI_NETNS] missing'),
    );
    expect(await run(env('DEL', { CNI_NETNS: undefined }), conf('1.0.0'))).toEqual({
      exitCode: 0,
      stdout: '',
      stderr: '',
    });
  });
});
