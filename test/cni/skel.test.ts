/**
 * skel behaviour beyond the skel_test.go port (test/acceptance/cni-skel.test.ts), read from
 * containernetworking/cni @ 3f51e880 pkg/skel/skel.go, pkg/utils/utils.go and pkg/version: the order
 * of checks (a failed validation returns before the missing list), stdin decoding errors, nil
 * command functions, CNI_NETNS_OVERRIDE, exact-string version matching.
 */
import { describe, expect, it } from 'vitest';
import {
  parseVersion,
  validateContainerID,
  validateInterfaceName,
  validateNetworkName,
  versionGte,
} from '../../src/cni/index.js';
import { cniEnv, fakePlugin, testNode } from './fake-plugins.js';

async function run(env: Record<string, string>, stdin: string, b: Parameters<typeof fakePlugin>[1] = {}) {
  const fake = fakePlugin('p', b);
  const { node } = testNode(fake.plugin);
  return { out: await fake.plugin.exec(node, { env, stdin }, 0), fake };
}
const doc = (o: { stdout: string }): unknown => JSON.parse(o.stdout);
const CONF = '{"cniVersion":"1.0.0","name":"net","type":"p"}';

describe('environment checks', () => {
  it('a failed validation is reported before variables found missing earlier in the table', async () => {
    const env = cniEnv('ADD', { CNI_CONTAINERID: 'bad id' });
    delete (env as Record<string, string | undefined>)['CNI_NETNS'];
    const { out } = await run(env, CONF);
    expect(doc(out)).toEqual({ code: 4, msg: 'invalid characters in containerID', details: 'bad id' });
  });

  it('GC and STATUS do not validate a container ID or interface name they do not need', async () => {
    const { out } = await run(
      cniEnv('STATUS', { CNI_CONTAINERID: 'bad id', CNI_IFNAME: 'a/b' }),
      '{"cniVersion":"1.1.0","name":"n"}',
    );
    expect(out.exitCode).toBe(0);
  });

  it('CNI_NETNS_OVERRIDE reaches CmdArgs', async () => {
    const { fake } = await run(cniEnv('ADD', { CNI_NETNS_OVERRIDE: '1' }), CONF);
    expect(fake.calls[0]!.args.netnsOverride).toBe('1');
  });

  it('interface names count UTF-8 bytes and Unicode white space', () => {
    expect(validateInterfaceName('ééééééééé')?.msg).toBe('interface name is too long');
    expect(validateInterfaceName('a\u00a0b')?.msg).toBe(
      'interface name contains / or : or whitespace characters',
    );
    expect(validateInterfaceName('eth0')).toBeUndefined();
    expect(validateContainerID('')?.toJSON()).toEqual({ code: 3, msg: 'missing containerID' });
    expect(validateNetworkName('')?.toJSON()).toEqual({ code: 7, msg: 'missing network name:' });
  });
});

describe('stdin checks', () => {
  it.each([
    ['{', 6, 'error unmarshall network config: unexpected end of JSON input'],
    [
      '[]',
      6,
      'error unmarshall network config: json: cannot unmarshal array into Go value of type struct { Name string "json:\\"name\\"" }',
    ],
    [
      '{"name":7}',
      6,
      'error unmarshall network config: json: cannot unmarshal number into Go struct field .name of type string',
    ],
    ['{"cniVersion":"1.0.0"}', 7, 'missing network name'],
    ['null', 7, 'missing network name'],
    ['{"name":"bad name"}', 7, 'invalid characters found in network name'],
    [
      '{"name":"n","cniVersion":1}',
      6,
      'decoding version from network config: json: cannot unmarshal number into Go struct field .cniVersion of type string',
    ],
  ])('%j → %d %s', async (stdin, code, msg) => {
    const { out, fake } = await run(cniEnv('ADD'), stdin);
    expect(doc(out)).toMatchObject({ code, msg });
    expect(fake.calls).toEqual([]);
  });

  it('"Name" matches the name field case-insensitively', async () => {
    const { out } = await run(cniEnv('ADD'), '{"Name":"net","cniVersion":"1.0.0"}');
    expect(out.exitCode).toBe(0);
  });
});

describe('versions and dispatch', () => {
  it('the version check is an exact string match', async () => {
    const { out } = await run(cniEnv('ADD'), '{"cniVersion":"1.0","name":"n"}', { versions: ['1.0.0'] });
    expect(doc(out)).toEqual({
      code: 1,
      msg: 'incompatible CNI versions',
      details: 'config is "1.0", plugin supports ["1.0.0"]',
    });
  });

  it('a missing CHECK/GC/STATUS function succeeds silently after the version checks', async () => {
    const { out } = await run(cniEnv('CHECK'), CONF, { omit: ['check'] });
    expect(out).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    const old = await run(cniEnv('CHECK'), '{"cniVersion":"0.3.1","name":"n"}', { omit: ['check'] });
    expect(doc(old.out)).toEqual({ code: 1, msg: 'config version does not allow CHECK' });
    const status = await run(cniEnv('STATUS'), '{"cniVersion":"1.1.0","name":"n"}', {
      omit: ['status'],
      versions: ['1.0.0'],
    });
    expect(doc(status.out)).toEqual({ code: 1, msg: 'plugin version does not allow STATUS' });
  });

  it('a plugin function’s stdout is kept before the error document', async () => {
    const { out } = await run(cniEnv('ADD'), CONF, {
      add: (_c, ctx) => {
        ctx.stdout.write('partial');
        throw new Error('late');
      },
    });
    expect(out.stdout).toBe('partial{\n    "code": 999,\n    "msg": "late"\n}');
  });

  it('pluginMain refuses an empty version list', () => {
    expect(() => fakePlugin('p', { versions: [] })).toThrow(
      'programmer error: you must support at least one version',
    );
  });
});

describe('pkg/version', () => {
  it.each([
    ['', [0, 1, 0]],
    ['1', [1, 0, 0]],
    ['0.4', [0, 4, 0]],
    ['1.1.0', [1, 1, 0]],
  ])('ParseVersion(%j)', (v, want) => {
    expect(parseVersion(v)).toEqual(want);
  });

  it.each([
    ['1.1.0.0', 'invalid version "1.1.0.0": too many parts'],
    ['x.1', 'failed to convert major version part "x": strconv.Atoi: parsing "x": invalid syntax'],
    ['1..0', 'failed to convert minor version part "": strconv.Atoi: parsing "": invalid syntax'],
    ['1.0.f', 'failed to convert micro version part "f": strconv.Atoi: parsing "f": invalid syntax'],
  ])('ParseVersion(%j) fails: %s', (v, msg) => {
    expect(() => parseVersion(v)).toThrow(msg);
  });

  it('GreaterThanOrEqualTo compares numerically', () => {
    expect(versionGte('0.10.0', '0.4.0')).toBe(true);
    expect(versionGte('0.3.1', '0.4.0')).toBe(false);
    expect(versionGte('1.1.0', '1.1.0')).toBe(true);
  });
});
