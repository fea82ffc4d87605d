/**
 * containernetworking/cni @ 3f51e880 `pkg/skel/skel_test.go` (and `pkg/utils/utils_test.go` where
 * skel relies on it), ported to the in-process plugin contract: the same environment, stdin,
 * supported versions ("9.8.7", "10.0.0") and expected `types.Error` values, read from the error
 * document the plugin prints on stdout with exit code 1.
 */
import { describe, expect, it } from 'vitest';
import { CniError, CniErrorCode, type ExecOutput } from '../../src/cni/index.js';
import { fakePlugin, testNode, type FakeBehaviour } from '../cni/fake-plugins.js';

const STDIN = `{ "name":"skel-test", "some": "config", "cniVersion": "9.8.7" }`;

function baseEnv(): Record<string, string> {
  return {
    CNI_COMMAND: 'ADD',
    CNI_CONTAINERID: 'some-container-id',
    CNI_NETNS: '/some/netns/path',
    CNI_IFNAME: 'eth0',
    CNI_ARGS: 'some;extra;args',
    CNI_PATH: '/some/cni/path',
  };
}

async function run(
  env: Record<string, string>,
  stdin = STDIN,
  behaviour: FakeBehaviour = {},
): Promise<{ out: ExecOutput; fake: ReturnType<typeof fakePlugin> }> {
  const fake = fakePlugin('skel', { versions: ['9.8.7', '10.0.0'], ...behaviour });
  const { node } = testNode(fake.plugin);
  const out = await fake.plugin.exec(node, { env, stdin }, 0);
  return { out, fake };
}

/** The error document a failed run printed (`types.Error`), checked to be one. */
function errorDoc(out: ExecOutput): { code: number; msg: string; details?: string } {
  expect(out.exitCode).toBe(1);
  return JSON.parse(out.stdout) as { code: number; msg: string; details?: string };
}

/** Run with `name` dropped from `env`: a required variable is reported missing, an optional one is not needed. */
async function expectRequired(env: Record<string, string>, name: string, required: boolean): Promise<void> {
  delete env[name];
  const { out } = await run(env);
  if (required) expect(errorDoc(out)).toEqual({ code: 4, msg: `required env variables [${name}] missing` });
  else expect(out.exitCode).toBe(0);
}

/** The `types.Error` code of a failed run with this stdin and these plugin versions. */
async function errorCode(env: Record<string, string>, stdin: string, versions: string[]): Promise<number> {
  return errorDoc((await run(env, stdin, { versions })).out).code;
}

const expectedArgs = {
  containerID: 'some-container-id',
  netns: '/some/netns/path',
  ifName: 'eth0',
  args: 'some;extra;args',
  path: '/some/cni/path',
  netnsOverride: '',
};

describe('skel_test.go: when the CNI_COMMAND is ADD', () => {
  it('extracts env vars and stdin data and calls cmdAdd', async () => {
    const { out, fake } = await run(baseEnv());
    expect(out).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(fake.calls.map((c) => c.command)).toEqual(['ADD']);
    expect(fake.calls[0]!.args).toMatchObject(expectedArgs);
    expect(fake.calls[0]!.stdin).toBe(STDIN);
  });

  it('returns an error when containerID has invalid characters', async () => {
    const { out } = await run({ ...baseEnv(), CNI_CONTAINERID: 'some-%%container-id' });
    expect(errorDoc(out)).toEqual({
      code: 4,
      msg: 'invalid characters in containerID',
      details: 'some-%%container-id',
    });
  });

  it.each([
    ['1234567890123456', 'interface name is too long', 'interface name should be less than 16 characters'],
    ['.', 'interface name is . or ..', undefined],
    ['..', 'interface name is . or ..', undefined],
    ['test/test', 'interface name contains / or : or whitespace characters', undefined],
    ['test:test', 'interface name contains / or : or whitespace characters', undefined],
    ['test test', 'interface name contains / or : or whitespace characters', undefined],
  ])('interface name %j is invalid', async (ifName, msg, details) => {
    const { out, fake } = await run({ ...baseEnv(), CNI_IFNAME: ifName });
    expect(errorDoc(out)).toEqual(details ? { code: 4, msg, details } : { code: 4, msg });
    expect(fake.calls).toEqual([]);
  });

  it.each([
    ['CNI_COMMAND', true],
    ['CNI_CONTAINERID', true],
    ['CNI_NETNS', true],
    ['CNI_IFNAME', true],
    ['CNI_ARGS', false],
    ['CNI_PATH', true],
  ])('required / optional env vars: %s required=%s', async (name, required) => {
    await expectRequired(baseEnv(), name, required);
  });

  it('reports that all of them are missing, not just the first', async () => {
    const env = baseEnv();
    delete env['CNI_NETNS'];
    delete env['CNI_IFNAME'];
    delete env['CNI_PATH'];
    const { out } = await run(env);
    expect(errorDoc(out)).toEqual({
      code: 4,
      msg: 'required env variables [CNI_NETNS,CNI_IFNAME,CNI_PATH] missing',
    });
  });

  it('infers a config without cniVersion is 0.1.0 and calls cmdAdd when the plugin supports 0.1.0', async () => {
    const stdin = `{ "name": "skel-test", "some": "config" }`;
    const { out, fake } = await run(baseEnv(), stdin, { versions: ['0.1.0'] });
    expect(out.exitCode).toBe(0);
    expect(fake.calls[0]!.stdin).toBe(stdin);
  });

  it('immediately returns a useful error when the plugin does not support 0.1.0', async () => {
    const { out, fake } = await run(baseEnv(), `{ "name": "skel-test", "some": "config" }`, {
      versions: ['4.3.2'],
    });
    expect(errorDoc(out)).toEqual({
      code: CniErrorCode.IncompatibleCNIVersion,
      msg: 'incompatible CNI versions',
      details: 'config is "0.1.0", plugin supports ["4.3.2"]',
    });
    expect(fake.calls).toEqual([]);
  });
});

describe('skel_test.go: when the CNI_COMMAND is CHECK', () => {
  const env = (): Record<string, string> => ({ ...baseEnv(), CNI_COMMAND: 'CHECK' });

  it('extracts env vars and stdin data and calls cmdCheck', async () => {
    const { out, fake } = await run(env());
    expect(out.exitCode).toBe(0);
    expect(fake.calls.map((c) => c.command)).toEqual(['CHECK']);
    expect(fake.calls[0]!.args).toMatchObject(expectedArgs);
  });

  it.each([
    ['CNI_COMMAND', true],
    ['CNI_CONTAINERID', true],
    ['CNI_NETNS', true],
    ['CNI_IFNAME', true],
    ['CNI_ARGS', false],
    ['CNI_PATH', true],
  ])('required / optional env vars: %s required=%s', async (name, required) => {
    await expectRequired(env(), name, required);
  });

  it('config version below 0.4.0: "config version does not allow CHECK"', async () => {
    const { out, fake } = await run(
      env(),
      `{ "name": "skel-test", "cniVersion": "0.3.0", "some": "config" }`,
    );
    expect(errorDoc(out)).toEqual({ code: 1, msg: 'config version does not allow CHECK' });
    expect(fake.calls).toEqual([]);
  });

  it('plugin without 0.4.0: "plugin version does not allow CHECK"', async () => {
    const { out } = await run(env(), `{ "name": "skel-test", "cniVersion": "0.4.0", "some": "config" }`, {
      versions: ['0.1.0', '0.2.0', '0.3.0'],
    });
    expect(errorDoc(out)).toEqual({ code: 1, msg: 'plugin version does not allow CHECK' });
  });

  it('a bad config version is a decoding failure', async () => {
    expect(
      await errorCode(env(), `{ "cniVersion": "adsfsadf", "some": "config", "name": "test" }`, [
        '0.1.0',
        '0.2.0',
        '0.3.0',
      ]),
    ).toBe(CniErrorCode.DecodingFailure);
  });

  it('a bad name is an invalid network config', async () => {
    expect(
      await errorCode(env(), `{ "cniVersion": "0.4.0", "some": "config", "name": "te%%st" }`, [
        '0.1.0',
        '0.2.0',
        '0.3.0',
        '0.4.0',
      ]),
    ).toBe(CniErrorCode.InvalidNetworkConfig);
  });

  it('a bad plugin version is a decoding failure', async () => {
    expect(
      await errorCode(env(), `{ "cniVersion": "0.4.0", "some": "config", "name": "test" }`, [
        '0.1.0',
        '0.2.0',
        'adsfasdf',
      ]),
    ).toBe(CniErrorCode.DecodingFailure);
  });
});

describe('skel_test.go: when the CNI_COMMAND is GC', () => {
  const env = (): Record<string, string> => {
    const e = { ...baseEnv(), CNI_COMMAND: 'GC' };
    delete (e as Record<string, string>)['CNI_NETNS'];
    delete (e as Record<string, string>)['CNI_IFNAME'];
    delete (e as Record<string, string>)['CNI_CONTAINERID'];
    delete (e as Record<string, string>)['CNI_ARGS'];
    return e;
  };

  it('extracts env vars and stdin data and calls cmdGC', async () => {
    const { out, fake } = await run(env());
    expect(out.exitCode).toBe(0);
    expect(fake.calls.map((c) => c.command)).toEqual(['GC']);
    expect(fake.calls[0]!.args).toMatchObject({
      containerID: '',
      netns: '',
      ifName: '',
      args: '',
      path: '/some/cni/path',
    });
  });

  it.each([
    ['CNI_COMMAND', true],
    ['CNI_CONTAINERID', false],
    ['CNI_NETNS', false],
    ['CNI_IFNAME', false],
    ['CNI_ARGS', false],
    ['CNI_PATH', true],
  ])('required / optional env vars: %s required=%s', async (name, required) => {
    await expectRequired(env(), name, required);
  });

  it('config version below 1.1.0: "config version does not allow GC"', async () => {
    const { out } = await run(env(), `{ "name": "skel-test", "cniVersion": "0.3.0", "some": "config" }`);
    expect(errorDoc(out)).toEqual({ code: 1, msg: 'config version does not allow GC' });
  });

  it('plugin without 1.1.0: "plugin version does not allow GC"', async () => {
    const { out } = await run(env(), `{ "name": "skel-test", "cniVersion": "1.1.0", "some": "config" }`, {
      versions: ['0.1.0', '0.2.0', '0.3.0'],
    });
    expect(errorDoc(out)).toEqual({ code: 1, msg: 'plugin version does not allow GC' });
  });

  it('bad config version, bad name, bad plugin version', async () => {
    expect(
      await errorCode(env(), `{ "cniVersion": "adsfsadf", "some": "config", "name": "test" }`, ['1.1.0']),
    ).toBe(6);
    expect(
      await errorCode(env(), `{ "cniVersion": "0.4.0", "some": "config", "name": "te%%st" }`, ['1.1.0']),
    ).toBe(7);
    expect(
      await errorCode(env(), `{ "cniVersion": "1.1.0", "some": "config", "name": "test" }`, [
        '0.1.0',
        '0.2.0',
        'adsfasdf',
      ]),
    ).toBe(6);
  });
});

describe('skel_test.go: DEL, VERSION, unknown and missing commands', () => {
  it('calls cmdDel with the env vars and stdin data', async () => {
    const { out, fake } = await run({ ...baseEnv(), CNI_COMMAND: 'DEL' });
    expect(out.exitCode).toBe(0);
    expect(fake.calls.map((c) => c.command)).toEqual(['DEL']);
  });

  it.each([
    ['CNI_COMMAND', true],
    ['CNI_CONTAINERID', true],
    ['CNI_NETNS', false],
    ['CNI_IFNAME', true],
    ['CNI_ARGS', false],
    ['CNI_PATH', true],
  ])('DEL env vars: %s required=%s', async (name, required) => {
    await expectRequired({ ...baseEnv(), CNI_COMMAND: 'DEL' }, name, required);
  });

  it('VERSION prints the version to stdout (json.Encoder: compact, newline-terminated)', async () => {
    const { out, fake } = await run({ ...baseEnv(), CNI_COMMAND: 'VERSION' });
    expect(out).toEqual({
      exitCode: 0,
      stdout: '{"cniVersion":"1.1.0","supportedVersions":["9.8.7","10.0.0"]}\n',
      stderr: '',
    });
    expect(fake.calls).toEqual([]);
  });

  it.each(['CNI_CONTAINERID', 'CNI_NETNS', 'CNI_IFNAME', 'CNI_ARGS', 'CNI_PATH'])(
    'VERSION does not need %s, nor stdin',
    async (name) => {
      const e = { ...baseEnv(), CNI_COMMAND: 'VERSION' } as Record<string, string>;
      delete e[name];
      const { out } = await run(e, 'not json at all');
      expect(out.exitCode).toBe(0);
    },
  );

  it('an unrecognized command is an error', async () => {
    const { out, fake } = await run({ ...baseEnv(), CNI_COMMAND: 'NOPE' });
    expect(errorDoc(out)).toEqual({ code: 4, msg: 'unknown CNI_COMMAND: NOPE' });
    expect(fake.calls).toEqual([]);
  });

  it('prints the about string when the command is blank', async () => {
    const { out } = await run({ ...baseEnv(), CNI_COMMAND: '' }, STDIN, { about: 'test framework v42' });
    expect(out.exitCode).toBe(0);
    expect(out.stderr).toContain('test framework v42');
  });

  it('prints the about string to stderr when CNI_COMMAND is missing', async () => {
    const { out, fake } = await run({}, STDIN, { about: 'AWESOME PLUGIN' });
    expect(out).toEqual({
      exitCode: 0,
      stdout: '',
      stderr: 'AWESOME PLUGIN\nCNI protocol versions supported: 9.8.7, 10.0.0\n',
    });
    expect(fake.calls).toEqual([]);
  });

  it('fails if there is no about string', async () => {
    const { out } = await run({});
    expect(errorDoc(out)).toEqual({ code: 4, msg: 'required env variables [CNI_COMMAND] missing' });
  });
});

describe('skel_test.go: when the callback returns an error', () => {
  it('a typed Error is returned as-is', async () => {
    const { out } = await run(baseEnv(), STDIN, {
      fail: { ADD: new CniError(1234, 'insufficient something') },
    });
    expect(errorDoc(out)).toEqual({ code: 1234, msg: 'insufficient something' });
  });

  it('an unknown error is wrapped as ErrInternal (999)', async () => {
    const { out } = await run(baseEnv(), STDIN, { fail: { ADD: new Error('potato') } });
    expect(errorDoc(out)).toEqual({ code: 999, msg: 'potato' });
  });

  it('the error document is types.Error.Print: MarshalIndent with 4 spaces, no newline', async () => {
    const { out } = await run(baseEnv(), STDIN, {
      fail: { ADD: new CniError(7, 'bad <conf> & more', 'details') },
    });
    expect(out.stdout).toBe(
      '{\n    "code": 7,\n    "msg": "bad \\u003cconf\\u003e \\u0026 more",\n    "details": "details"\n}',
    );
  });
});
