/**
 * Delegation (containernetworking/cni @ 3f51e880 pkg/invoke/{delegate,exec,raw_exec,find}.go): the
 * delegate runs with the caller's environment and CNI_COMMAND replaced, one level deeper; its error
 * document comes back as a CniError with the same code/msg/details, and a caller that lets it escape
 * prints it unchanged. Texts of RawExec.pluginErr and FindInPath are Go's.
 */
import { describe, expect, it } from 'vitest';
import {
  CniError,
  delegateAdd,
  delegateCheck,
  delegateDel,
  delegateGC,
  delegateStatus,
  pluginError,
  pluginMain,
  resultJson,
  VERSION_ALL,
  type CniPlugin,
  type PluginContext,
} from '../../src/cni/index.js';
import { BIN, cniEnv, fakePlugin, testNode } from './fake-plugins.js';

const CONF = '{"cniVersion":"0.4.0","name":"net","type":"outer","ipam":{"type":"inner"}}';

/** A plugin whose ADD/DEL run `body` with its context (what a meta-plugin does). */
function outer(body: (ctx: PluginContext, stdin: Uint8Array) => Promise<void>): CniPlugin {
  const run = async (a: { stdinData: Uint8Array }, ctx: PluginContext): Promise<void> =>
    body(ctx, a.stdinData);
  return pluginMain('outer', { add: run, del: run, check: run, status: run, gc: run }, VERSION_ALL, '');
}

describe('delegateAdd and friends', () => {
  it('the delegate gets the same env with CNI_COMMAND replaced, the bytes given, depth + 1', async () => {
    const inner = fakePlugin('inner', {
      add: '{"cniVersion":"0.4.0","ips":[{"version":"4","address":"10.0.0.9/24"}],"dns":{}}',
    });
    let got: unknown;
    const o = outer(async (ctx, stdin) => {
      if (ctx.env['CNI_COMMAND'] === 'DEL') {
        await delegateDel(ctx, 'inner', stdin);
        await delegateCheck(ctx, 'inner', stdin);
        await delegateGC(ctx, 'inner', '{"cniVersion":"1.1.0","name":"net","type":"inner"}');
        await delegateStatus(ctx, 'inner', { cniVersion: '1.1.0', type: 'inner', name: 'net' });
        return;
      }
      got = resultJson(await delegateAdd(ctx, 'inner', stdin), '0.4.0');
    });
    const { node } = testNode(inner.plugin, o);
    expect(
      (await node.exec('outer', { env: cniEnv('ADD', { EXTRA: 'kept' }), stdin: CONF }, 0)).exitCode,
    ).toBe(0);
    expect(got).toEqual({ cniVersion: '0.4.0', ips: [{ version: '4', address: '10.0.0.9/24' }], dns: {} });
    expect(inner.calls[0]!.env).toEqual(cniEnv('ADD', { EXTRA: 'kept' }));
    expect(inner.calls[0]!.stdin).toBe(CONF);
    expect(inner.calls[0]!.depth).toBe(1);

    expect((await node.exec('outer', { env: cniEnv('DEL'), stdin: CONF }, 0)).exitCode).toBe(0);
    expect(inner.calls.map((c) => c.command)).toEqual(['ADD', 'DEL', 'CHECK', 'GC', 'STATUS']);
    // an object netconf is marshalled as Go marshals a map: sorted keys
    expect(inner.calls[4]!.stdin).toBe('{"cniVersion":"1.1.0","name":"net","type":"inner"}');
  });

  it('a delegate error document is re-thrown with its code, msg and details and printed unchanged', async () => {
    const inner = fakePlugin('inner', { fail: { ADD: new CniError(11, 'try again', 'later') } });
    let caught: unknown;
    const o = outer(async (ctx, stdin) => {
      try {
        await delegateAdd(ctx, 'inner', stdin);
      } catch (e) {
        caught = e;
        throw e;
      }
    });
    const { node } = testNode(inner.plugin, o);
    const out = await node.exec('outer', { env: cniEnv('ADD'), stdin: CONF }, 0);
    expect(caught).toBeInstanceOf(CniError);
    expect((caught as CniError).toJSON()).toEqual({ code: 11, msg: 'try again', details: 'later' });
    expect(out.exitCode).toBe(1);
    expect(JSON.parse(out.stdout)).toEqual({ code: 11, msg: 'try again', details: 'later' });
  });

  it('a delegate missing from CNI_PATH: Go’s find error, which the caller fails with as 999', async () => {
    const o = outer(async (ctx, stdin) => {
      await delegateAdd(ctx, 'inner', stdin);
    });
    const { node } = testNode(o);
    const out = await node.exec('outer', { env: cniEnv('ADD'), stdin: CONF }, 0);
    expect(JSON.parse(out.stdout)).toEqual({
      code: 999,
      msg: `failed to find plugin "inner" in path [${BIN}]`,
    });
  });

  it('a delegate that prints a bad result fails the caller with Go’s parse error', async () => {
    const inner = fakePlugin('inner', {
      add: '{"cniVersion":"0.4.0","ips":[{"version":"4","address":"nonsense"}]}',
    });
    const o = outer(async (ctx, stdin) => {
      await delegateAdd(ctx, 'inner', stdin);
    });
    const { node } = testNode(inner.plugin, o);
    const out = await node.exec('outer', { env: cniEnv('ADD'), stdin: CONF }, 0);
    expect(JSON.parse(out.stdout)).toEqual({ code: 999, msg: 'invalid CIDR address: nonsense' });
  });

  it('a successful delegate’s stderr is copied to the caller’s stderr', async () => {
    const noisy: CniPlugin = {
      type: 'inner',
      exec: async () => ({ exitCode: 0, stdout: '', stderr: 'warning: x\n' }),
    };
    const o = outer(async (ctx, stdin) => {
      await delegateDel(ctx, 'inner', stdin);
    });
    const { node } = testNode(noisy, o);
    const out = await node.exec('outer', { env: cniEnv('DEL'), stdin: CONF }, 0);
    expect(out).toEqual({ exitCode: 0, stdout: '', stderr: 'warning: x\n' });
  });
});

describe('pluginError (RawExec.pluginErr)', () => {
  it.each([
    [
      { exitCode: 1, stdout: '', stderr: '' },
      { code: 0, msg: 'netplugin failed with no error message: exit status 1' },
    ],
    [
      { exitCode: 2, stdout: '', stderr: 'panic: x\n' },
      { code: 0, msg: 'netplugin failed: "panic: x\\n": exit status 2' },
    ],
    [
      { exitCode: 1, stdout: 'oops', stderr: '' },
      {
        code: 0,
        msg: `netplugin failed but error parsing its diagnostic message "oops": invalid character 'o' looking for beginning of value`,
      },
    ],
    [
      { exitCode: 1, stdout: '{"Code":7,"MSG":"bad"}', stderr: '' },
      { code: 7, msg: 'bad' },
    ],
  ])('%j', (out, doc) => {
    expect(pluginError(out).toJSON()).toEqual(doc);
  });
});
